// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * STACKINFO_IOC_QUERY_THREADS: every thread of a process in one call.
 * Its entries equal one STACKINFO_IOC_QUERY per thread and cover
 * /proc/<pid>/task; a short array gets E2BIG and the count needed; a
 * larger entry_size keeps the stride and zeroes each entry's tail; bad
 * sizes, flags, pids and pointers get their errno and write nothing; a
 * user may not list another user's process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "race.h"
#include "testutil.h"

#define PEERS 3

static int fd;
static pthread_barrier_t done;

static void *peer(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&done);
	return NULL;
}

static int batch_proof(pid_t pid, void *entries, uint32_t *count,
		       uint64_t entry_size, uint64_t flags, int proof)
{
	struct stackinfo_threads a = {
		.size = sizeof(a), .query_flags = flags, .pid = pid,
		.count = *count, .entries = (uintptr_t)entries,
		.entry_size = entry_size,
	};
	int ret;

	if (proof >= 0) {
		a.query_flags |= STACKINFO_QUERY_PROOF_FD;
		a.proof_fd = proof;
	}
	ret = ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a);
	*count = a.count;
	return ret ? -errno : 0;
}

static int batch(pid_t pid, void *entries, uint32_t *count, uint64_t entry_size,
		 uint64_t flags)
{
	return batch_proof(pid, entries, count, entry_size, flags, -1);
}

/* Threads born and dying all the time, until killed. */
static void *churn_thread(void *arg)
{
	(void)arg;
	return NULL;
}

static void churn_process(void)
{
	pthread_t t[8];
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		for (i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, churn_thread, NULL);
		for (i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	}
}

/*
 * A process whose threads come and go, listed over and over: every entry
 * is one of its threads, never one with tid 0 and never the caller (an
 * exiting thread's pid is detached before it leaves the thread list; its
 * number read as 0 once meant "the caller"). For 3 s at least, then
 * until its cases are met (race.h): calls, entries, and calls whose
 * count differed from the call before (threads came or went between).
 */
static void churned(void)
{
	enum { N = 64 };
	struct stackinfo_query *qs = calloc(N, sizeof(*qs));
	pid_t child = fork(), me = t_gettid();
	unsigned long rounds = 0, entries = 0, changed = 0;
	uint32_t count, i, last = 0;
	int proof, bad = 0, err;
	struct t_race r;

	if (child == 0)
		churn_process();
	CHECK(child > 0, "fork");
	proof = proc_open(child, "mem");
	CHECK(proof >= 0, "proof: %s", strerror(-proof));
	t_race_begin(&r, "batches of a process whose threads come and go", 3);
	t_race_case(&r, "batch calls", &rounds, 100);
	t_race_case(&r, "entries", &entries, 100);
	t_race_case(&r, "calls with another count than the call before", &changed, 10);
	while (t_race_more(&r)) {
		count = N;
		err = batch_proof(child, qs, &count, sizeof(*qs), 0, proof);
		if (err) {
			bad++;
			fprintf(stderr, "round %lu: %s\n", rounds, strerror(-err));
		}
		for (i = 0; !err && i < count; i++) {
			entries++;
			if (qs[i].tgid != (uint32_t)child || !qs[i].out_tid ||
			    qs[i].out_tid == (uint32_t)me ||
			    (qs[i].thread_flags & STACKINFO_THREAD_SELF)) {
				if (bad++ < 5)
					fprintf(stderr, "entry: tid %u tgid %u flags %#x\n",
						qs[i].out_tid, qs[i].tgid, qs[i].thread_flags);
			}
		}
		if (!err) {
			changed += rounds && count != last;
			last = count;
		}
		rounds++;
	}
	t_race_end(&r);
	printf("churn: %lu batch calls, %lu entries, %d bad\n", rounds, entries, bad);
	CHECK(!bad, "%d bad batch answers", bad);
	close(proof);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	free(qs);
}

static void check_entries(const unsigned char *buf, uint32_t n, size_t stride)
{
	uint32_t i;
	int mains = 0;

	for (i = 0; i < n; i++) {
		const struct stackinfo_query *e = (const void *)(buf + i * stride);
		struct stackinfo_query q;
		int err = si_module_query(fd, e->out_tid, 0, &q);

		CHECK(!err, "entry %u: tid %u: %s", i, e->out_tid, strerror(-err));
		CHECK_EQ(e->tgid, getpid());
		/* an entry shorter than VER2 has none of VER2's groups */
		CHECK_EQ(e->valid, stride < STACKINFO_QUERY_SIZE_VER2 ?
					   q.valid & ~T_VALID_WITH_SP_VER2 : q.valid);
		CHECK_EQ(e->sp_vma_start, q.sp_vma_start);
		CHECK_EQ(e->sp_vma_end, q.sp_vma_end);
		CHECK_EQ(e->sp_guard_start, q.sp_guard_start);
		CHECK_EQ(e->main_vma_start, q.main_vma_start);
		mains += !!(e->thread_flags & STACKINFO_THREAD_MAIN);
	}
	CHECK_EQ(mains, 1);
}

/*
 * Entries of the first published layout (168 bytes) each say so in their
 * size: one reused as a query, at the very end of a mapping, is read and
 * written within its own bytes.
 */
static void first_layout_entries(long page)
{
	const size_t v0 = STACKINFO_QUERY_SIZE_VER0;
	unsigned char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *arr;
	struct stackinfo_query *last;
	uint32_t count = PEERS + 1, i;
	int err;

	CHECK(map != MAP_FAILED, "mmap");
	munmap(map + page, page);
	arr = map + page - count * v0;
	err = batch(0, arr, &count, v0, 0);
	CHECK_EQ(err, 0);
	CHECK_EQ(count, PEERS + 1);
	for (i = 0; i < count; i++)
		CHECK_EQ(((struct stackinfo_query *)(arr + i * v0))->size, v0);
	last = (struct stackinfo_query *)(arr + (count - 1) * v0);
	CHECK(!ioctl(fd, STACKINFO_IOC_QUERY, last), "the last entry as a query: %s",
	      strerror(errno));
	CHECK_EQ(last->out_tid, last->tid);
	munmap(map, page);
}

/*
 * Each entry size a caller may have (the published ones, odd ones, a
 * page): entries exactly entry_size apart, each saying how much of it the
 * kernel filled, every byte beyond that zero, nothing past the last; one
 * entry per thread of /proc/self/task, each equal to a single query.
 */
static void entry_sizes(long page)
{
	const size_t qs = sizeof(struct stackinfo_query);
	const size_t sizes[] = { 168, 170, 172, 176, 184, page };
	pid_t tids[PEERS + 1];
	int ntids = t_task_tids(getpid(), tids, PEERS + 1);

	CHECK_EQ(ntids, PEERS + 1);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t size = sizes[k], fill = size < qs ? size : qs;
		uint32_t count = PEERS + 2, i;
		unsigned char *buf = malloc((PEERS + 3) * size);
		int seen = 0;

		memset(buf, 0xff, (PEERS + 3) * size);
		CHECK_EQ(batch(0, buf, &count, size, 0), 0);
		CHECK(count == (uint32_t)ntids, "entry size %zu: %u entries, %d threads",
		      size, count, ntids);
		for (i = 0; i < count && i < PEERS + 1; i++) {
			const unsigned char *e = buf + i * size;
			const struct stackinfo_query *q = (const void *)e;

			CHECK(q->size == fill, "entry size %zu: entry %u says %llu", size, i,
			      (unsigned long long)q->size);
			for (size_t b = fill; b < size; b++)
				if (e[b]) {
					CHECK(0, "entry size %zu: entry %u: byte %zu is %#x",
					      size, i, b, e[b]);
					break;
				}
			for (int t = 0; t < ntids; t++)
				if (tids[t] == (pid_t)q->out_tid) {
					seen |= 1 << t;
					CHECK_EQ(q->tid, q->out_tid);
				}
		}
		CHECK(seen == (1 << ntids) - 1, "entry size %zu: tids %#x of /proc/self/task",
		      size, seen);
		for (size_t b = count * size; b < (PEERS + 3) * size; b++)
			if (buf[b] != 0xff) {
				CHECK(0, "entry size %zu: byte %zu past the last entry written",
				      size, b);
				break;
			}
		check_entries(buf, count, size);
		free(buf);
	}
}

static void as_user(pid_t root_child)
{
	uint32_t count = 8;
	unsigned char buf[8 * sizeof(struct stackinfo_query)];

	int err;

	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
		_exit(1);
	err = batch(root_child, buf, &count, sizeof(struct stackinfo_query), 0);
	CHECK_EQ(err, -EACCES);
	CHECK_EQ(count, 0);	/* the entries written: not even the thread count */
	count = 8;
	err = batch(0, buf, &count, sizeof(struct stackinfo_query), 0);
	CHECK_EQ(err, 0);
	CHECK_EQ(count, 1);
	_exit(t_result());
}

int main(void)
{
	const size_t qs = sizeof(struct stackinfo_query);
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *buf, *two;
	pthread_t th[PEERS];
	uint32_t count;
	pid_t child;
	int i, status, err;

	fd = si_open();
	if (fd < 0)
		return 1;
	pthread_barrier_init(&done, NULL, PEERS + 1);
	for (i = 0; i < PEERS; i++)
		pthread_create(&th[i], NULL, peer, NULL);
	buf = calloc(16, 2 * qs);

	/* too short: ERANGE and the count needed, nothing written */
	count = 2;
	memset(buf, 0xa5, 2 * qs);
	err = batch(0, buf, &count, qs, 0);
	CHECK_EQ(err, -ERANGE);
	CHECK_EQ(count, PEERS + 1);
	CHECK(buf[0] == 0xa5 && buf[2 * qs - 1] == 0xa5, "written on ERANGE");
	count = 0;
	err = batch(0, NULL, &count, qs, 0);
	CHECK_EQ(err, -ERANGE);
	CHECK_EQ(count, PEERS + 1);

	/* enough: one entry per thread, equal to single queries */
	count = 16;
	CHECK_EQ(batch(0, buf, &count, qs, 0), 0);
	CHECK_EQ(count, PEERS + 1);
	CHECK_EQ(count, t_task_tids(getpid(), NULL, 0));
	check_entries(buf, count, qs);
	count = 16;
	CHECK_EQ(batch(getpid(), buf, &count, qs, STACKINFO_QUERY_NO_SP), 0);
	CHECK(!(((struct stackinfo_query *)buf)->valid & STACKINFO_VALID_SP), "NO_SP ignored");

	/* a larger entry: the stride is the caller's, the tail zeroed */
	memset(buf, 0xff, 16 * 2 * qs);
	count = 16;
	CHECK_EQ(batch(0, buf, &count, qs + 24, 0), 0);
	CHECK_EQ(count, PEERS + 1);
	for (i = 0; i < (int)count; i++) {
		const unsigned char *tail = buf + i * (qs + 24) + qs;

		CHECK(!tail[0] && !tail[23], "entry %d: tail not zeroed", i);
	}
	CHECK(buf[count * (qs + 24)] == 0xff, "written past the last entry");
	check_entries(buf, count, qs + 24);
	for (i = 0; i < (int)count; i++)
		CHECK_EQ(((struct stackinfo_query *)(buf + i * (qs + 24)))->size, qs);
	first_layout_entries(page);
	entry_sizes(page);

	/* bad input */
	count = 16;
	CHECK_EQ(batch(0, buf, &count, STACKINFO_QUERY_SIZE_VER0 - 8, 0), -EINVAL);
	CHECK_EQ(batch(0, buf, &count, page + 8, 0), -EINVAL);
	CHECK_EQ(batch(0, buf, &count, qs, 1ULL << 40), -EINVAL);
	/* no address to classify in a batch */
	CHECK_EQ(batch(0, buf, &count, qs, STACKINFO_QUERY_ADDR), -EINVAL);
	CHECK_EQ(batch(0x7ffffff0, buf, &count, qs, 0), -ESRCH);
	/* kthreadd: the kernel shows anyone that it has no user memory */
	count = 16;
	CHECK_EQ(batch(2, buf, &count, qs, 0), -ENOENT);
	CHECK_EQ(count, 0);
	{
		struct stackinfo_threads a = {
			.size = sizeof(a), .query_flags = STACKINFO_QUERY_PROOF_FD,
			.count = 16, .entries = (uintptr_t)buf, .entry_size = qs,
			.proof_fd = -1,
		};

		CHECK(ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) == -1 && errno == EBADF,
		      "proof fd -1: %s", strerror(errno));
		a.proof_fd = fd;	/* open, but not a proof */
		CHECK(ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) == -1 && errno == EINVAL,
		      "not a proof: %s", strerror(errno));
		a.proof_fd = 0;
		a.query_flags = 0;
		a.reserved1 = 1;
		CHECK(ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) == -1 && errno == EINVAL,
		      "reserved1: %s", strerror(errno));
	}
	count = 16;
	CHECK_EQ(batch(0, (void *)0xffff888000000000UL, &count, qs, 0), -EFAULT);
	CHECK_EQ(count, 16);	/* bad input: nothing changed */
	two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(two + page, page);
	count = 16;
	CHECK_EQ(batch(0, two + page - qs, &count, qs, 0), -EFAULT);
	{
		struct stackinfo_threads a = { .size = 8 };

		CHECK(ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) == -1 && errno == EINVAL, "short");
		a.size = page + 1;
		CHECK(ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) == -1 && errno == E2BIG, "long");
	}

	/* another user's process: refused */
	child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	if (getuid() == 0) {
		pid_t u = fork();

		if (u == 0)
			as_user(child);
		CHECK(waitpid(u, &status, 0) == u && WIFEXITED(status) &&
		      !WEXITSTATUS(status), "as user 1000");
		int proof = proc_open(child, "auxv");

		/* root: what the kernel's own check gives it, proof or not */
		int sp = !proc_readable(child, "syscall");

		count = 16;
		CHECK_EQ(batch(child, buf, &count, qs, 0), 0);
		CHECK_EQ(count, 1);
		CHECK(!!(((struct stackinfo_query *)buf)->valid & STACKINFO_VALID_SP) == sp,
		      "SP %d where the kernel gives syscall %d",
		      !!(((struct stackinfo_query *)buf)->valid & STACKINFO_VALID_SP), sp);
		count = 16;
		err = batch_proof(child, buf, &count, qs, 0, proof);
		CHECK_EQ(err, 0);
		CHECK_EQ(count, 1);
		CHECK(!!(((struct stackinfo_query *)buf)->valid & STACKINFO_VALID_SP) == sp,
		      "with an auxv proof: the SP only as the kernel gives it");
		close(proof);
	}
	churned();
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	pthread_barrier_wait(&done);
	for (i = 0; i < PEERS; i++)
		pthread_join(th[i], NULL);
	free(buf);
	return t_result();
}
