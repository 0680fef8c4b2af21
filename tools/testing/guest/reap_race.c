// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A query that sleeps on mmap_lock while the thread it asks about is
 * released and that thread's zombie group leader is reaped: a reference on
 * a thread pins neither its leader nor its pid, so whatever the module
 * reads through the thread after it slept must be checked (pid_alive())
 * or pinned. Run as an ordinary user against its own processes, as the
 * review that found it did:
 *
 *  - this process P maps and populates a large range, and a writer thread
 *    mprotect()s it back and forth, holding mmap_lock for writing for
 *    milliseconds at a time;
 *  - over and over, P makes a process C with clone(CLONE_VM): C shares
 *    P's mm, so the mm (and the writer's hold on its lock) outlives C. C
 *    starts threads with raw clone(CLONE_THREAD), its leader exits at once
 *    (a zombie while its threads live), the threads exit a moment later,
 *    and the kernel reaps C (P ignores SIGCHLD);
 *  - querier threads of P ask the module about C's threads, one by one
 *    (plainly, and with P's /proc/self/mem as the proof: it names C's mm
 *    too, and was the review's way in) and in batches, while that
 *    happens.
 * Every answer must be about the thread asked for (its tgid is C's), and
 * every refusal must be ESRCH (the thread is gone): the kernel itself lets
 * P see C's maps and syscall. On the debug kernels KASAN watches every
 * read; the runner fails the test on any report. The test counts queries
 * that blocked for a millisecond or more and fails when too few did, or
 * when too few processes and writer rounds ran: a run that never slept
 * across an exit proves nothing. It runs RUN_SECS at least, and on a
 * slow guest (a KASAN kernel under TCG on a loaded host) on until every
 * minimum is met (race.h: the cap, its progress in the log).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "race.h"
#include "testutil.h"

#define USER_UID	1000
#define NTHREADS	6
#define NQUERIERS	2
#define REGION		(64UL << 20)
#define STACK		(64 * 1024)
#define RUN_SECS	10

/* Minimums below which the run exercised too little to prove anything. */
#define MIN_GENERATIONS	50
#define MIN_WRITES	20
#define MIN_ANSWERS	200
#define MIN_BLOCKED	20

/* C and its threads: raw syscalls only (they share P's memory and TLS). */
static _Atomic pid_t c_tgid;
static _Atomic pid_t c_tids[NTHREADS];
static _Atomic int c_started;
static char c_stack[STACK] __attribute__((aligned(64)));
static char t_stacks[NTHREADS][STACK] __attribute__((aligned(64)));

static atomic_bool stop;
/* counted with T_RACE_INC/ADD, read with relaxed loads (race.h) */
static unsigned long n_answers, n_gone, n_blocked, n_blocked_gone, n_batches,
	n_batch_entries, n_writes, n_generations;
static atomic_int n_bad;
static int query_fd, proof_fd;

static void raw_sleep_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	syscall(SYS_nanosleep, &ts, NULL);
}

static int c_thread(void *arg)
{
	long i = (long)arg;

	atomic_store(&c_tids[i], (pid_t)syscall(SYS_gettid));
	atomic_fetch_add(&c_started, 1);
	raw_sleep_us(500 + 300 * i);
	syscall(SYS_exit, 0);
	return 0;
}

static int c_main(void *arg)
{
	const int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			  CLONE_SYSVSEM;
	long i;

	(void)arg;
	atomic_store(&c_tgid, (pid_t)syscall(SYS_getpid));
	for (i = 0; i < NTHREADS; i++)
		clone(c_thread, t_stacks[i] + STACK, flags, (void *)i);
	/* the leader goes first: a zombie until its last thread has exited */
	syscall(SYS_exit, 0);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *writer(void *arg)
{
	char *region = arg;

	while (!atomic_load(&stop)) {
		mprotect(region, REGION, PROT_READ);
		mprotect(region, REGION, PROT_READ | PROT_WRITE);
		T_RACE_INC(n_writes);
	}
	return NULL;
}

/*
 * Plainly (the kernel's own check) or, without the SP, with P's
 * /proc/self/mem, which names C's mm too: then no file is opened.
 */
static void one_query(pid_t tgid, pid_t tid, int proof)
{
	uint64_t flags = proof >= 0 ? STACKINFO_QUERY_NO_SP : 0;
	struct stackinfo_query q;
	double t0 = now_ms();
	int err = si_module_query_proof(query_fd, tid, flags, proof, &q);
	int blocked = now_ms() - t0 >= 1.0;

	if (blocked)
		T_RACE_INC(n_blocked);
	if (!err) {
		T_RACE_INC(n_answers);
		if (q.out_tid != (uint32_t)tid || q.tgid != (uint32_t)tgid) {
			atomic_fetch_add(&n_bad, 1);
			fprintf(stderr, "asked %d of %d, answered %u of %u\n", tid, tgid, q.out_tid,
				q.tgid);
		}
	} else if (err == -ESRCH) {
		T_RACE_INC(n_gone);
		if (blocked)
			T_RACE_INC(n_blocked_gone);
	} else {
		atomic_fetch_add(&n_bad, 1);
		fprintf(stderr, "query of %d: %s\n", tid, strerror(-err));
	}
}

static void one_batch(pid_t tgid)
{
	struct stackinfo_query arr[NTHREADS + 1];
	struct stackinfo_threads a = {
		.size = sizeof(a),
		.pid = (uint32_t)tgid,
		.count = NTHREADS + 1,
		.entries = (uint64_t)(uintptr_t)arr,
		.entry_size = sizeof(arr[0]),
	};
	uint32_t i;

	if (ioctl(query_fd, STACKINFO_IOC_QUERY_THREADS, &a)) {
		if (errno != ESRCH) {
			atomic_fetch_add(&n_bad, 1);
			fprintf(stderr, "batch of %d: %s\n", tgid, strerror(errno));
		}
		return;
	}
	T_RACE_INC(n_batches);
	T_RACE_ADD(n_batch_entries, a.count);
	for (i = 0; i < a.count; i++)
		if (arr[i].tgid != (uint32_t)tgid) {
			atomic_fetch_add(&n_bad, 1);
			fprintf(stderr, "batch of %d: an entry of %u\n", tgid, arr[i].tgid);
		}
}

static void *querier(void *arg)
{
	unsigned long n = (unsigned long)arg;

	while (!atomic_load(&stop)) {
		pid_t tgid = atomic_load(&c_tgid);
		pid_t tid = atomic_load(&c_tids[n++ % NTHREADS]);

		if (!tgid || !tid) {
			sched_yield();
			continue;
		}
		if (n % 16 == 0)
			one_batch(tgid);
		else
			one_query(tgid, tid, n & 1 ? proof_fd : -1);
	}
	return NULL;
}

int main(void)
{
	pthread_t w, qs[NQUERIERS];
	struct t_race r;
	char *region;
	long i;

	if (getuid() == 0 && (setresgid(USER_UID, USER_UID, USER_UID) ||
			      setresuid(USER_UID, USER_UID, USER_UID))) {
		perror("become uid 1000");
		return 1;
	}
	prctl(PR_SET_DUMPABLE, 1);
	query_fd = si_open();
	if (query_fd < 0) {
		fprintf(stderr, "no %s: %s\n", STACKINFO_PROC_PATH, strerror(-query_fd));
		return T_SKIP;
	}
	proof_fd = proc_open(getpid(), "mem");
	if (proof_fd < 0) {
		fprintf(stderr, "/proc/self/mem: %s\n", strerror(-proof_fd));
		return 1;
	}
	/* the kernel reaps C as soon as its last thread has gone */
	signal(SIGCHLD, SIG_IGN);
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	pthread_create(&w, NULL, writer, region);
	for (i = 0; i < NQUERIERS; i++)
		pthread_create(&qs[i], NULL, querier, (void *)i);

	t_race_begin(&r, "queries across a reap", RUN_SECS);
	t_race_case(&r, "processes", &n_generations, MIN_GENERATIONS);
	t_race_case(&r, "writer rounds", &n_writes, MIN_WRITES);
	t_race_case(&r, "answers", &n_answers, MIN_ANSWERS);
	t_race_case(&r, "queries blocked >= 1 ms", &n_blocked, MIN_BLOCKED);
	while (t_race_more(&r)) {
		pid_t c;

		atomic_store(&c_started, 0);
		for (i = 0; i < NTHREADS; i++)
			atomic_store(&c_tids[i], 0);
		c = clone(c_main, c_stack + STACK, CLONE_VM | SIGCHLD, NULL);
		if (c < 0) {
			perror("clone");
			break;
		}
		/* C and every thread of it gone: their stacks are free again */
		while (kill(c, 0) == 0 || errno != ESRCH)
			usleep(200);
		atomic_store(&c_tgid, 0);
		T_RACE_INC(n_generations);
	}
	atomic_store(&stop, true);
	pthread_join(w, NULL);
	for (i = 0; i < NQUERIERS; i++)
		pthread_join(qs[i], NULL);

	t_race_end(&r);
	/* every thread has stopped: the counters are still */
	printf("info: reap_race: queries %lu gone (%lu of them after blocking); %lu batches, %lu entries\n",
	       n_gone, n_blocked_gone, n_batches, n_batch_entries);
	CHECK(atomic_load(&n_bad) == 0, "%d wrong answers or errors", atomic_load(&n_bad));
	return t_result();
}
