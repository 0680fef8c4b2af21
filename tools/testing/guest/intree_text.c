// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The in-tree files (CONFIG_PROC_STACKINFO) against the truth and against
 * each other. A process with 3000 extra mappings and threads that sleep
 * where their SP does not move: the main thread in pthread_join(), three
 * pthreads in read(), and one thread parked at each edge sp_parked uses
 * (the last byte of a gap, the first and last byte of a mapping, 0, a
 * kernel address, ...). A checker thread then, for every tid of
 * /proc/<pid>/task, reads /proc/<pid>/task/<tid>/stackinfo and asks its
 * ioctl (tid 0 and tid <tid>), and /proc/<pid>/stackinfo's ioctl for
 * <tid>: all the same, field for field, and all as /proc/<pid>/maps,
 * getrlimit() and the SP the thread was parked at say; the module's answer
 * too where it is loaded. /proc/<pid>/stackinfo is task/<pid>'s. The batch
 * ioctl gives exactly /proc/<pid>/task's tids, each as the single query.
 * Then the errors: a tid of another process, PROOF_FD, malformed structs,
 * unknown commands, bad pointers. SKIP where the kernel has no such files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testutil.h"

#define EXTRA_MAPS	3000
#define NPLAIN		3
#define MAX_THREADS	(2 + NPLAIN + T_EDGES)

#define SP_BITS (STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA | STACKINFO_VALID_SP_PREV | \
		 STACKINFO_VALID_SP_GUARD | T_VALID_WITH_SP_VER2)

enum kind { K_MAIN, K_PLAIN, K_PARKED, K_CHECKER };

/* A thread of ours and where its SP must be. */
struct known {
	enum kind kind;
	pid_t tid;
	uint64_t sp;		/* K_PARKED: exactly here */
	uint64_t lo, hi;	/* K_PLAIN, K_CHECKER: in glibc's stack */
	const char *what;
};

static struct known known[MAX_THREADS];
static int nknown;
static struct maps maps;
static pid_t me;
static int pfd;		/* /proc/<pid>/stackinfo */
static int modfd = -1;	/* /proc/stackinfo where the module is loaded */
static int plain_pipe[2];

static uint64_t rlim_u64(rlim_t v)
{
	return v == RLIM_INFINITY ? STACKINFO_RLIM_INFINITY : v;
}

static void glibc_stack(uint64_t *lo, uint64_t *hi)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &addr, &size);
	pthread_attr_destroy(&attr);
	*lo = (uintptr_t)addr;
	*hi = (uintptr_t)addr + size;
}

static const struct known *find_known(pid_t tid)
{
	int i;

	for (i = 0; i < nknown; i++)
		if (known[i].tid == tid)
			return &known[i];
	return NULL;
}

/* One answer about thread @k against /proc/self/maps and getrlimit(). */
static void check_truth(const struct known *k, const struct stackinfo_query *q)
{
	const uint64_t always = STACKINFO_VALID_THREAD | STACKINFO_VALID_START_STACK |
				STACKINFO_VALID_MAIN_VMA | STACKINFO_VALID_MAIN_PREV |
				STACKINFO_VALID_SP | STACKINFO_VALID_RLIMIT |
				STACKINFO_VALID_GUARD_GAP;
	const struct maps_entry *e, *prev;
	struct rlimit rl;
	char perms[5];
	int guard;

	CHECK((q->valid & always) == always, "%s: valid %#llx", k->what,
	      (unsigned long long)q->valid);
	CHECK_EQ(q->out_tid, k->tid);
	CHECK_EQ(q->tgid, me);
	CHECK_EQ(!!(q->thread_flags & STACKINFO_THREAD_MAIN), k->tid == me);
	CHECK_EQ(q->map_count, maps_vma_count(&maps));

	e = maps_find(&maps, q->start_stack, &prev);
	CHECK(e && !strcmp(e->name, "[stack]"), "%s: start_stack %#llx not in [stack]", k->what,
	      (unsigned long long)q->start_stack);
	if (e) {
		CHECK_EQ(q->main_vma_start, e->start);
		CHECK_EQ(q->main_vma_end, e->end);
		vma_flags_perms(q->main_vma_flags, perms);
		CHECK(!strcmp(perms, e->perms), "%s: main perms %s, maps %s", k->what, perms,
		      e->perms);
		CHECK(prev && q->main_prev_end == prev->end, "%s: main_prev_end %#llx", k->what,
		      (unsigned long long)q->main_prev_end);
	}

	switch (k->kind) {
	case K_PARKED:
		CHECK(q->sp == k->sp, "%s: sp %#llx, parked at %#llx", k->what,
		      (unsigned long long)q->sp, (unsigned long long)k->sp);
		break;
	case K_MAIN:
		CHECK(q->sp >= q->main_vma_start && q->sp < q->main_vma_end,
		      "%s: sp %#llx outside the main stack", k->what, (unsigned long long)q->sp);
		break;
	case K_PLAIN:
	case K_CHECKER:
		CHECK(q->sp >= k->lo && q->sp < k->hi, "%s: sp %#llx outside [%#llx, %#llx)",
		      k->what, (unsigned long long)q->sp, (unsigned long long)k->lo,
		      (unsigned long long)k->hi);
		break;
	}
	e = maps_find(&maps, q->sp, &prev);
	if (!e) {
		CHECK(!(q->valid & (STACKINFO_VALID_SP_VMA | STACKINFO_VALID_SP_GUARD)),
		      "%s: sp %#llx: a VMA %#llx-%#llx where maps has none", k->what,
		      (unsigned long long)q->sp, (unsigned long long)q->sp_vma_start,
		      (unsigned long long)q->sp_vma_end);
	} else {
		CHECK(q->valid & STACKINFO_VALID_SP_VMA, "%s: no SP VMA", k->what);
		CHECK_EQ(q->sp_vma_start, e->start);
		CHECK_EQ(q->sp_vma_end, e->end);
		vma_flags_perms(q->sp_vma_flags, perms);
		CHECK(!strcmp(perms, e->perms), "%s: sp perms %s, maps %s", k->what, perms,
		      e->perms);
		CHECK_EQ(!!(q->valid & STACKINFO_VALID_SP_PREV), !!prev);
		if (prev)
			CHECK_EQ(q->sp_prev_end, prev->end);
		guard = prev && prev->end == e->start && !strncmp(prev->perms, "---", 3);
		CHECK_EQ(!!(q->valid & STACKINFO_VALID_SP_GUARD), guard);
		if (guard) {
			CHECK_EQ(q->sp_guard_start, prev->start);
			CHECK_EQ(q->sp_guard_end, prev->end);
		}
		/* glibc puts a guard page below every stack it allocates */
		if (k->kind == K_PLAIN || k->kind == K_CHECKER)
			CHECK(guard, "%s: no guard below a pthread stack", k->what);
	}
	CHECK(!getrlimit(RLIMIT_STACK, &rl), "getrlimit: %s", strerror(errno));
	CHECK_EQ(q->rlim_stack_cur, rlim_u64(rl.rlim_cur));
	CHECK_EQ(q->rlim_stack_max, rlim_u64(rl.rlim_max));
	CHECK_EQ(q->guard_gap, cmdline_guard_gap());
}

/* Every answer about one thread: the text, the ioctls, the module. */
static void check_thread(const struct known *k)
{
	unsigned int how = k->kind == K_CHECKER ? T_CMP_NO_SP : 0;
	struct stackinfo_query text, q0, qt, qp, nosp, qm;
	int fd, err;

	fd = t_intree_open(NULL, me, k->tid);
	CHECK(fd >= 0, "%s: open task/%d/stackinfo: %s", k->what, (int)k->tid, strerror(-fd));
	if (fd < 0)
		return;
	err = si_text_read(fd, &text);
	CHECK(!err, "%s: text: %s", k->what, strerror(-err));
	err = si_module_query(fd, 0, 0, &q0);
	CHECK(!err, "%s: ioctl tid 0: %s", k->what, strerror(-err));
	err = si_module_query(fd, k->tid, 0, &qt);
	CHECK(!err, "%s: ioctl tid %d: %s", k->what, (int)k->tid, strerror(-err));
	err = si_module_query(pfd, k->tid, 0, &qp);
	CHECK(!err, "%s: /proc/%d/stackinfo ioctl: %s", k->what, (int)me, strerror(-err));
	err = si_module_query(fd, 0, STACKINFO_QUERY_NO_SP, &nosp);
	CHECK(!err, "%s: NO_SP: %s", k->what, strerror(-err));
	if (modfd >= 0) {
		err = si_module_query(modfd, k->tid, 0, &qm);
		CHECK(!err, "%s: the module: %s", k->what, strerror(-err));
		if (!err)
			CHECK_SAME(&qm, &q0, how, k->what, "module vs in-tree");
	}
	/* after the queries, which allocate nothing; this read maps nothing either */
	err = maps_read(&maps, 0);
	CHECK(!err, "maps: %s", strerror(-err));
	close(fd);

	CHECK_SAME(&text, &q0, how | T_CMP_TEXT, k->what, "text vs ioctl tid 0");
	CHECK_SAME(&qt, &q0, how, k->what, "ioctl tid vs tid 0");
	CHECK_SAME(&qp, &q0, how, k->what, "process file's ioctl vs the task file's");
	CHECK_EQ(!!(q0.thread_flags & STACKINFO_THREAD_SELF), k->kind == K_CHECKER);
	CHECK_EQ(nosp.valid, q0.valid & ~SP_BITS);
	CHECK(!nosp.sp && !nosp.sp_vma_start && !nosp.sp_prev_end && !nosp.sp_guard_end,
	      "%s: NO_SP gave SP fields", k->what);
	check_truth(k, &q0);
	printf("%-28s tid %-6d sp %#18llx  sp_vma %s\n", k->what, (int)k->tid,
	       (unsigned long long)q0.sp, (q0.valid & STACKINFO_VALID_SP_VMA) ? "found" : "none");
}

/* /proc/<pid>/stackinfo is about the leader: task/<pid>/stackinfo's text. */
static void check_process_file(void)
{
	struct stackinfo_query a, b, q;
	int fd = t_intree_open(NULL, me, me), err;

	CHECK(fd >= 0, "task/%d/stackinfo: %s", (int)me, strerror(-fd));
	CHECK(!si_text_read(pfd, &a), "/proc/%d/stackinfo text", (int)me);
	CHECK(!si_text_read(fd, &b), "task/%d/stackinfo text", (int)me);
	CHECK_SAME(&a, &b, 0, "main", "process file vs task file");
	err = si_module_query(pfd, 0, 0, &q);
	CHECK(!err && q.out_tid == (uint32_t)me, "/proc/%d/stackinfo tid 0: %s, tid %u",
	      (int)me, strerror(-err), q.out_tid);
	CHECK_SAME(&a, &q, T_CMP_TEXT, "main", "process file's text vs its ioctl");
	if (fd >= 0)
		close(fd);
	/* /proc/self and /proc/thread-self name the same files */
	fd = open("/proc/self/stackinfo", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && !si_text_read(fd, &b), "/proc/self/stackinfo");
	CHECK_SAME(&a, &b, 0, "main", "/proc/self vs /proc/<pid>");
	if (fd >= 0)
		close(fd);
	fd = open("/proc/thread-self/stackinfo", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && !si_text_read(fd, &b), "/proc/thread-self/stackinfo");
	CHECK_EQ(b.out_tid, t_gettid());
	if (fd >= 0)
		close(fd);
}

/* The batch on @fd: every thread of ours, each as the single query. */
static void check_batch(int fd, const char *what, pid_t pid, const pid_t *tids, int n)
{
	struct stackinfo_query arr[MAX_THREADS + 4], q;
	struct stackinfo_threads a;
	int err, i, j;

	err = t_threads_call(fd, pid, &a, arr, MAX_THREADS + 4);
	CHECK(!err, "%s: batch pid %d: %s", what, (int)pid, strerror(-err));
	if (err)
		return;
	CHECK(a.count == (uint32_t)n, "%s: batch gave %u threads, task has %d", what, a.count, n);
	for (i = 0; i < n; i++) {
		const struct known *k = find_known(tids[i]);

		for (j = 0; j < (int)a.count && arr[j].out_tid != (uint32_t)tids[i]; j++)
			;
		CHECK(j < (int)a.count, "%s: tid %d not in the batch", what, (int)tids[i]);
		if (j == (int)a.count || !k)
			continue;
		CHECK_EQ(arr[j].size, sizeof(arr[j]));
		err = si_module_query(fd, tids[i], 0, &q);
		CHECK(!err, "%s: single tid %d: %s", what, (int)tids[i], strerror(-err));
		CHECK_SAME(&arr[j], &q, k->kind == K_CHECKER ? T_CMP_NO_SP : 0, k->what, what);
	}
	for (j = 0; j < (int)a.count; j++) {
		for (i = 0; i < n && tids[i] != (pid_t)arr[j].out_tid; i++)
			;
		CHECK(i < n, "%s: batch has tid %u, not in /proc/%d/task", what, arr[j].out_tid,
		      (int)me);
	}
	/* short array: ERANGE and the count there is */
	err = t_threads_call(fd, pid, &a, arr, 1);
	CHECK(err == -ERANGE && a.count == (uint32_t)n, "%s: short array: %s, count %u", what,
	      strerror(-err), a.count);
}

/* The in-tree ioctls' own errors, on a task file of another thread. */
static void check_errors(pid_t other_tid)
{
	struct stackinfo_query q, arr[4];
	struct stackinfo_threads a;
	pid_t child = t_spawn_sleeper(0, 0), gone;
	int fd = t_intree_open(NULL, me, other_tid), self_fd, mem, err;

	CHECK(fd >= 0 && child > 0, "open task file, fork");
	if (fd < 0)
		return;
	/* another process: its tid, init's, a reaped child's */
	CHECK_EQ(si_module_query(fd, child, 0, &q), -ESRCH);
	CHECK_EQ(si_module_query(pfd, child, 0, &q), -ESRCH);
	CHECK_EQ(si_module_query(fd, 1, 0, &q), -ESRCH);
	gone = child;
	t_reap(child);
	CHECK_EQ(si_module_query(fd, gone, 0, &q), -ESRCH);
	CHECK_EQ(si_module_query(fd, 0x7fffffff, 0, &q), -ESRCH);

	/* PROOF_FD: EINVAL whatever the fd */
	mem = proc_open(me, "mem");
	CHECK(mem >= 0, "own mem: %s", strerror(-mem));
	CHECK_EQ(si_module_query_proof(fd, 0, 0, mem, &q), -EINVAL);
	CHECK_EQ(si_module_query_proof(pfd, other_tid, 0, mem, &q), -EINVAL);
	CHECK_EQ(si_module_query_proof(fd, 0, 0, 1000, &q), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.query_flags = STACKINFO_QUERY_PROOF_FD;
	a.proof_fd = mem;
	a.count = 4;
	a.entries = (uintptr_t)arr;
	a.entry_size = sizeof(arr[0]);
	t_ioctl_expect(pfd, "batch PROOF_FD", STACKINFO_IOC_QUERY_THREADS, &a, sizeof(a), EINVAL);
	if (mem >= 0)
		close(mem);

	/*
	 * the batch: only this process, named by 0, its tgid or (as the
	 * module takes it) any thread of it; it has more than 4 threads
	 */
	err = t_threads_call(pfd, other_tid, &a, arr, 4);
	CHECK(err == -ERANGE && a.count > 4, "batch pid of a non-leader thread: %s, count %u",
	      strerror(-err), a.count);
	err = t_threads_call(fd, 1, &a, arr, 4);
	CHECK(err == -ESRCH && a.count == 0, "batch pid 1: %s, count %u", strerror(-err),
	      a.count);
	err = t_threads_call(fd, gone, &a, arr, 4);
	CHECK(err == -ESRCH && a.count == 0, "batch free pid: %s", strerror(-err));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.count = 1024;	/* room for every thread: no ERANGE first */
	a.entries = 1;
	a.entry_size = sizeof(arr[0]);
	errno = 0;
	CHECK(ioctl(pfd, STACKINFO_IOC_QUERY_THREADS, &a) == -1 && errno == EFAULT,
	      "batch into a bad pointer: %s", strerror(errno));
	t_ioctl_expect(pfd, "batch struct at 1", STACKINFO_IOC_QUERY_THREADS, (void *)1, 0,
		       EFAULT);
	t_ioctl_expect(pfd, "_IO nr 3", _IO(STACKINFO_IOC_MAGIC, 0x03), NULL, 0, ENOTTY);
	close(fd);

	/* malformed structs, pointers, commands: as the module's file */
	self_fd = t_intree_open(NULL, me, t_gettid());
	CHECK(self_fd >= 0, "own task file: %s", strerror(-self_fd));
	if (self_fd >= 0) {
		t_bad_query(self_fd, t_gettid());
		close(self_fd);
	}
	t_bad_query(pfd, me);
}

static void *checker(void *arg)
{
	struct known *k = &known[nknown++];
	pid_t tids[MAX_THREADS + 4];
	int n, i, fd;

	(void)arg;
	k->kind = K_CHECKER;
	k->tid = t_gettid();
	k->what = "the checking thread";
	glibc_stack(&k->lo, &k->hi);
	CHECK(!t_wait_sleeping(me), "the main thread never slept");

	/* twice: the first read may grow the array, the second maps nothing */
	maps_read(&maps, 0);
	maps_read(&maps, 0);
	n = t_task_tids(me, tids, MAX_THREADS + 4);
	CHECK(n == nknown, "/proc/%d/task has %d threads, we made %d", (int)me, n, nknown);
	for (i = 0; i < n; i++) {
		const struct known *kt = find_known(tids[i]);

		CHECK(kt, "tid %d is none of ours", (int)tids[i]);
		if (kt)
			check_thread(kt);
	}
	check_process_file();
	check_batch(pfd, "batch pid 0 on /proc/<pid>/stackinfo", 0, tids, n);
	check_batch(pfd, "batch pid <tgid> on /proc/<pid>/stackinfo", me, tids, n);
	fd = t_intree_open(NULL, me, known[1].tid);
	CHECK(fd >= 0, "task file of tid %d: %s", (int)known[1].tid, strerror(-fd));
	if (fd >= 0) {
		check_batch(fd, "batch pid 0 on a task file", 0, tids, n);
		check_batch(fd, "batch pid <tgid> on a task file", me, tids, n);
		close(fd);
	}
	check_errors(known[1].tid);
	return NULL;
}

static void *plain_thread(void *arg)
{
	struct known *k = arg;
	char c;

	glibc_stack(&k->lo, &k->hi);
	__atomic_store_n(&k->tid, t_gettid(), __ATOMIC_RELEASE);
	/* sleeps here until the pipe closes */
	while (read(plain_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

int main(void)
{
	struct t_parked parked[T_EDGES];
	struct t_edge edges[T_EDGES];
	pthread_t plain[NPLAIN], th;
	int i, nedges;
	void *extra;

	if (t_intree_missing())
		return T_SKIP;
	setvbuf(stdout, NULL, _IOLBF, 0);
	me = getpid();
	pfd = t_intree_open(NULL, me, 0);
	if (pfd < 0) {
		fprintf(stderr, "/proc/%d/stackinfo: %s\n", (int)me, strerror(-pfd));
		return 1;
	}
	modfd = si_open();
	printf("module: %s\n", modfd >= 0 ? "loaded, compared field for field" : "not loaded");

	extra = map_many(EXTRA_MAPS);
	CHECK(extra, "map_many: %s", strerror(errno));
	known[nknown++] = (struct known){ .kind = K_MAIN, .tid = me, .what = "main thread" };

	CHECK(!pipe(plain_pipe), "pipe");
	for (i = 0; i < NPLAIN; i++) {
		struct known *k = &known[nknown++];

		*k = (struct known){ .kind = K_PLAIN, .what = "a pthread in read()" };
		CHECK(!pthread_create(&plain[i], NULL, plain_thread, k), "pthread_create");
		while (!__atomic_load_n(&k->tid, __ATOMIC_ACQUIRE))
			usleep(1000);
		CHECK(!t_wait_sleeping(k->tid), "plain thread %d never slept", (int)k->tid);
	}
	nedges = t_edge_sps(edges);
	CHECK(nedges > 0, "mmap the edges: %s", strerror(errno));
	for (i = 0; i < nedges; i++) {
		int err = t_park(&parked[i], edges[i].sp);

		if (err == -ENOSYS) {	/* not x86-64: no edges */
			nedges = 0;
			break;
		}
		CHECK(!err, "park at %s: %s", edges[i].what, strerror(-err));
		known[nknown++] = (struct known){ .kind = K_PARKED, .tid = parked[i].tid,
						  .sp = edges[i].sp, .what = edges[i].what };
	}

	/* the checker asks while this thread sleeps in pthread_join() */
	CHECK(!pthread_create(&th, NULL, checker, NULL), "pthread_create checker");
	pthread_join(th, NULL);

	for (i = 0; i < nedges; i++)
		t_unpark(&parked[i]);
	close(plain_pipe[1]);
	for (i = 0; i < NPLAIN; i++)
		pthread_join(plain[i], NULL);
	unmap_many(extra, EXTRA_MAPS);
	maps_free(&maps);
	if (modfd >= 0)
		close(modfd);
	close(pfd);
	return t_result();
}
