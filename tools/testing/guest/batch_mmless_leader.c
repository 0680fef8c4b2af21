// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A batch about a process whose group leader has exited: a grant is only
 * a grant about a live mm. The kernel opens <tid>/maps of a thread with no
 * mm (a zombie leader, a thread past exit_mm()) for anyone and shows
 * nothing; that open must never stand for the process's threads that
 * have one. Run as root:
 *
 *  - the victim V, root, records its own [stack] line and start_stack,
 *    then its main thread calls pthread_exit(): its leader is a zombie
 *    with no mm, and its work goes on in a relay of short threads, each
 *    of which starts the next and exits about a millisecond later. Each
 *    relay thread has a file table of its own with many fds in it, so that
 *    its exit spends a while between exit_mm() and its release: still
 *    listed, but with no mm;
 *  - a child C becomes uid 1000, which the kernel refuses every live
 *    thread's maps of V, and loops STACKINFO_IOC_QUERY_THREADS on V with
 *    STACKINFO_QUERY_NO_SP, switching itself between SCHED_IDLE and
 *    SCHED_OTHER every few calls so that it is preempted anywhere in the
 *    call, between the module's choice of a thread and its question too.
 *
 * Every call must be refused (EACCES; ESRCH or EAGAIN when every thread
 * asked about exited during its question), and no entry written: any
 * entry is a leak of V's layout (its stack VMA, start_stack, map_count),
 * printed against V's own. The kernel is asked the same in the same run:
 * as C, the open of a live relay thread's maps must fail, and the zombie
 * leader's maps opens and reads empty. The test counts the batches made
 * while the leader was a zombie, those during which a relay thread
 * exited, and the kernel's refusals of a live relay thread's maps: a run
 * that never raced an exit, or never saw the kernel refuse what the
 * module refuses, proves nothing. It runs RUN_SECS at least, then until
 * each of those has met its minimum (race.h: the cap, its progress in
 * the log), and fails naming each that did not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "race.h"
#include "testutil.h"

#define USER_UID	1000
#define RELAY_NS	300000L		/* each relay thread's life */
#define RELAY_FDS	500		/* fds in each relay thread's own table */
#define ENTRIES		16
#define SWITCH_EVERY	8		/* calls between policy switches */
#define KERNEL_EVERY	64		/* calls between asks of the kernel */
#define KERNEL_OFTEN	8		/* ... while it has refused too few */
#define RUN_SECS	3

/* Below these the run raced too little to prove anything. */
#define MIN_BATCHES	400
#define MIN_RACED	100
#define MIN_REFUSED	3

/* What V says of itself and does, in memory shared with the test. */
struct victim {
	atomic_ulong relays;	/* relay threads started */
	atomic_ulong exits;	/* relay threads about to exit */
	atomic_int ready;	/* its leader is about to exit */
	atomic_int failed;	/* the relay could not go on */
	uint64_t stack_start, stack_end, start_stack;
};

static struct victim *v;
static pthread_attr_t relay_attr;

static void spin_ns(long ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < ns);
}

static void *relay(void *arg)
{
	pthread_t next;

	(void)arg;
	atomic_fetch_add(&v->relays, 1);
	/* its own copy of the fds: closed between exit_mm() and release */
	if (unshare(CLONE_FILES)) {
		atomic_store(&v->failed, errno);
		return NULL;
	}
	while (pthread_create(&next, &relay_attr, relay, NULL))
		spin_ns(RELAY_NS / 10);
	spin_ns(RELAY_NS);
	atomic_fetch_add(&v->exits, 1);
	return NULL;
}

/* V: record what it is, fill its fd table, start the relay, exit. */
static void victim(void)
{
	struct rlimit rl = { RELAY_FDS + 64, RELAY_FDS + 64 };
	pthread_t first;
	int fd, i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (maps_stack(0, &v->stack_start, &v->stack_end) ||
	    !(v->start_stack = t_stat_start_stack()) || setrlimit(RLIMIT_NOFILE, &rl))
		_exit(1);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	for (i = 0; fd >= 0 && i < RELAY_FDS; i++)
		if (dup(fd) < 0)
			_exit(1);
	pthread_attr_init(&relay_attr);
	pthread_attr_setdetachstate(&relay_attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&relay_attr, 64 * 1024);
	if (pthread_create(&first, &relay_attr, relay, NULL))
		_exit(1);
	atomic_store(&v->ready, 1);
	pthread_exit(NULL);
}

static void set_policy(int policy)
{
	struct sched_param p = { 0 };

	CHECK(!sched_setscheduler(0, policy, &p), "policy %d: %s", policy, strerror(errno));
}

/* Read all of @fd: bytes read, or -errno. */
static ssize_t read_all(int fd)
{
	char buf[4096];
	ssize_t n, total = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	return n < 0 ? -errno : total;
}

struct counts {
	unsigned long batches, zombie_batches, raced, eacces, esrch, eagain, leaks;
	unsigned long kernel_refused, kernel_empty, leader_empty;
};

/*
 * The kernel, asked as C: each listed thread's maps but the leader's is
 * refused (or gone, or opened in its exit with nothing in it), the
 * leader's opens and reads empty.
 */
static void ask_kernel(pid_t pid, struct counts *n)
{
	pid_t tids[64];
	ssize_t len;
	int i, cnt, fd;

	cnt = t_task_tids(pid, tids, 64);
	for (i = 0; i < cnt; i++) {
		if (tids[i] == pid)
			continue;
		fd = proc_open(tids[i], "maps");
		if (fd == -EACCES) {
			n->kernel_refused++;
			continue;
		}
		/* gone meanwhile: from the lookup (ENOENT) or the open (ESRCH) */
		CHECK(fd == -ENOENT || fd == -ESRCH || fd >= 0, "open %d/maps: %d", (int)tids[i], fd);
		if (fd < 0)
			continue;
		len = read_all(fd);
		close(fd);
		/* opened during its exit, with no mm: nothing to show */
		CHECK(len == 0 || len == -ESRCH, "the kernel showed %d/maps: %zd", (int)tids[i],
		      len);
		n->kernel_empty++;
	}
	fd = proc_open(pid, "maps");
	CHECK(fd >= 0, "the zombie leader's maps: %d", fd);
	if (fd >= 0) {
		len = read_all(fd);
		CHECK(len == 0, "the zombie leader's maps read %zd", len);
		n->leader_empty += len == 0;
		close(fd);
	}
}

static void report_leak(unsigned long batch, const struct stackinfo_query *q)
{
	fprintf(stderr,
		"  batch %lu gave uid %d tid %u of root's process: start_stack %#llx%s, main_vma %#llx-%#llx%s, map_count %u (its [stack] %#llx-%#llx, start_stack %#llx)\n",
		batch, USER_UID, q->out_tid, (unsigned long long)q->start_stack,
		q->start_stack == v->start_stack ? " (its own)" : "",
		(unsigned long long)q->main_vma_start, (unsigned long long)q->main_vma_end,
		q->main_vma_start == v->stack_start && q->main_vma_end == v->stack_end ?
			" (its [stack])" : "",
		q->map_count, (unsigned long long)v->stack_start,
		(unsigned long long)v->stack_end, (unsigned long long)v->start_stack);
}

/* C: uid 1000 asks about V until the minimums are met. */
static void caller(pid_t pid)
{
	static struct stackinfo_query arr[ENTRIES];
	struct rlimit nice = { 20, 20 };
	struct stackinfo_threads a;
	struct counts n = { 0 };
	unsigned long r0, r1, since = 0;
	bool zombie, was_zombie;
	struct t_race race;
	uint32_t i;
	int fd, err;

	/* SCHED_IDLE and back needs RLIMIT_NICE to allow nice 0 */
	CHECK(!setrlimit(RLIMIT_NICE, &nice), "RLIMIT_NICE: %s", strerror(errno));
	t_become_user(USER_UID);
	fd = si_open();
	if (fd < 0) {
		CHECK(0, "open /proc/stackinfo: %d", fd);
		return;
	}
	was_zombie = t_proc_state(pid) == 'Z';
	CHECK(was_zombie, "V's leader is not a zombie: %c", t_proc_state(pid));
	ask_kernel(pid, &n);
	t_race_begin(&race, "batches about a process with a zombie leader", RUN_SECS);
	t_race_case(&race, "batches while the leader was a zombie", &n.zombie_batches,
		    MIN_BATCHES);
	t_race_case(&race, "batches across a relay thread's exit", &n.raced, MIN_RACED);
	t_race_case(&race, "the kernel's refusals of a relay thread's maps", &n.kernel_refused,
		    MIN_REFUSED);
	while (t_race_more(&race)) {
		if (n.batches % SWITCH_EVERY == 0)
			set_policy((n.batches / SWITCH_EVERY) % 2 ? SCHED_IDLE : SCHED_OTHER);
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.query_flags = STACKINFO_QUERY_NO_SP;
		a.pid = pid;
		a.count = ENTRIES;
		a.entries = (uintptr_t)arr;
		a.entry_size = sizeof(arr[0]);
		r0 = atomic_load(&v->exits);
		err = ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) ? -errno : 0;
		r1 = atomic_load(&v->exits);
		n.batches++;
		n.raced += r1 != r0;
		if (!err) {
			n.leaks++;
			CHECK(0, "leak: batch %lu granted uid %d root's process (%u entries)",
			      n.batches, USER_UID, a.count);
			for (i = 0; i < a.count && i < ENTRIES; i++)
				report_leak(n.batches, &arr[i]);
		} else if (err == -EACCES) {
			n.eacces++;
		} else if (err == -ESRCH) {
			n.esrch++;
		} else if (err == -EAGAIN) {
			n.eagain++;
		} else {
			CHECK(0, "batch %lu: %s", n.batches, strerror(-err));
		}
		/*
		 * the batches between two looks at the leader that both saw
		 * a zombie were made while it was one; the kernel is asked
		 * more often while it has refused too few
		 */
		if (++since == (n.kernel_refused < MIN_REFUSED ? KERNEL_OFTEN : KERNEL_EVERY)) {
			ask_kernel(pid, &n);
			zombie = t_proc_state(pid) == 'Z';
			if (zombie && was_zombie)
				n.zombie_batches += since;
			was_zombie = zombie;
			since = 0;
		}
	}
	set_policy(SCHED_OTHER);
	close(fd);
	t_race_end(&race);
	printf("info: %lu batches; EACCES %lu, ESRCH %lu, EAGAIN %lu, leaks %lu; %lu relay threads\n",
	       n.batches, n.eacces, n.esrch, n.eagain, n.leaks, atomic_load(&v->relays));
	printf("info: the kernel refused uid %d a relay thread's maps %lu times, opened one in its exit (empty) %lu times, the zombie leader's (empty) %lu times\n",
	       USER_UID, n.kernel_refused, n.kernel_empty, n.leader_empty);
	CHECK(!atomic_load(&v->failed), "the relay stopped: %s", strerror(atomic_load(&v->failed)));
}

int main(void)
{
	pid_t vpid, cpid;
	int status;

	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	v = mmap(NULL, sizeof(*v), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (v == MAP_FAILED)
		return 1;
	vpid = fork();
	if (vpid == 0)
		victim();
	CHECK(vpid > 0, "fork: %s", strerror(errno));
	if (vpid < 0)
		return t_result();
	/* the leader has exited once it is a zombie with a relay behind it */
	while (!atomic_load(&v->ready) || t_proc_state(vpid) != 'Z') {
		if (waitpid(vpid, &status, WNOHANG) == vpid) {
			CHECK(0, "the victim died: %#x", status);
			return t_result();
		}
		usleep(1000);
	}
	cpid = fork();
	if (cpid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		caller(vpid);
		fflush(stdout);
		_exit(t_result());
	}
	CHECK(cpid > 0, "fork: %s", strerror(errno));
	if (cpid > 0 && waitpid(cpid, &status, 0) == cpid)
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the caller: %#x", status);
	t_reap(vpid);
	return t_result();
}
