// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Races, each bounded in count and time:
 *  - threads that exit while another thread queries them (0 or ESRCH);
 *  - processes that exec, exit and linger as zombies while queried;
 *  - the main stack's neighbours mapped, mremapped and unmapped, and the
 *    stack grown, while other threads query it (answers self-consistent);
 *  - 8 querying threads against an mmap/munmap churner for 3 s.
 * harness_race --hammer SECONDS: 4 threads query until the module goes;
 * after the first ENOTTY (procfs's answer to an ioctl on a removed entry)
 * only ENOTTY may follow. run-tests runs it across an rmmod.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testutil.h"

static int fd;
static volatile int stop;
static volatile pid_t victim;

/* A query's answer must hang together, whatever raced with it. */
static int consistent(const struct stackinfo_query *q)
{
	if (!(q->valid & STACKINFO_VALID_THREAD))
		return 0;
	if ((q->valid & STACKINFO_VALID_MAIN_VMA) &&
	    (q->start_stack < q->main_vma_start || q->start_stack >= q->main_vma_end ||
	     ((q->valid & STACKINFO_VALID_MAIN_PREV) && q->main_prev_end > q->main_vma_start)))
		return 0;
	if ((q->valid & STACKINFO_VALID_SP_VMA) &&
	    (q->sp < q->sp_vma_start || q->sp >= q->sp_vma_end ||
	     ((q->valid & STACKINFO_VALID_SP_PREV) && q->sp_prev_end > q->sp_vma_start)))
		return 0;
	if ((q->valid & STACKINFO_VALID_SP_GUARD) && q->sp_guard_end != q->sp_vma_start)
		return 0;
	return 1;
}

static volatile int victim_is_process;

/*
 * Ask about the victim over and over. Another process needs a proof,
 * opened here each time: after its exec (a new mm) or as a zombie (none)
 * the module refuses it, EACCES; once reaped it is gone, ESRCH.
 */
static void *query_victims(void *arg)
{
	long *bad = arg;

	while (!stop) {
		struct stackinfo_query q;
		pid_t v = victim;
		int err, proof = -1;

		if (!v)
			continue;
		if (victim_is_process)
			proof = proc_open(v, "mem");
		err = si_module_query_proof(fd, v, 0, proof, &q);
		if (proof >= 0)
			close(proof);
		if (victim_is_process && err == -EACCES)
			err = -ESRCH;
		if ((err && err != -ESRCH) ||
		    (!err && (q.out_tid != (uint32_t)v || !consistent(&q)))) {
			if ((*bad)++ < 3)
				fprintf(stderr, "victim %d: err %d tid %u tgid %u valid %#llx\n",
					(int)v, err, q.out_tid, q.tgid,
					(unsigned long long)q.valid);
		}
	}
	return NULL;
}

static void *short_lived(void *arg)
{
	(void)arg;
	victim = t_gettid();
	return NULL;
}

static void race_exiting_threads(void)
{
	pthread_t q, t;
	long bad = 0;
	double end = t_now() + 3;
	int n = 0;

	stop = 0;
	pthread_create(&q, NULL, query_victims, &bad);
	while (n < 3000 && t_now() < end) {
		if (pthread_create(&t, NULL, short_lived, NULL))
			break;
		pthread_join(t, NULL);
		n++;
	}
	stop = 1;
	pthread_join(q, NULL);
	CHECK(!bad, "exiting threads: %ld bad answers", bad);
	fprintf(stderr, "exiting threads: %d created and queried\n", n);
}

static void race_exec_and_zombies(void)
{
	pthread_t q;
	long bad = 0;
	double end = t_now() + 3;
	int n = 0;

	stop = 0;
	victim_is_process = 1;
	pthread_create(&q, NULL, query_victims, &bad);
	while (n < 300 && t_now() < end) {
		pid_t pid = fork();

		if (pid == 0) {
			if (n % 2)
				execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		victim = pid;
		usleep(n % 3 ? 0 : 2000);	/* sometimes query the zombie */
		waitpid(pid, NULL, 0);
		n++;
	}
	stop = 1;
	pthread_join(q, NULL);
	victim_is_process = 0;
	CHECK(!bad, "exec/exit/zombies: %ld bad answers", bad);
	fprintf(stderr, "exec/exit/zombies: %d processes queried\n", n);
}

/* Grow the main stack by touching pages further down. */
static int grow(int depth)
{
	volatile char pad[4096];

	pad[0] = (char)depth;
	return depth ? grow(depth - 1) + pad[0] : pad[0];
}

static void *query_main(void *arg)
{
	long *bad = arg;

	while (!stop) {
		struct stackinfo_query q;
		int err = si_module_query(fd, getpid(), 0, &q);

		if (err || !consistent(&q))
			(*bad)++;
	}
	return NULL;
}

static void race_neighbours(void)
{
	long page = sysconf(_SC_PAGESIZE), bad = 0;
	struct stackinfo_query q;
	pthread_t th[2];
	double end = t_now() + 3;
	char *below;
	int i, n = 0;

	si_module_query(fd, 0, 0, &q);
	/* a spot inside the guard gap, below the main stack */
	below = (char *)(uintptr_t)(q.main_vma_start - 64 * page);
	stop = 0;
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, query_main, &bad);
	while (n < 5000 && t_now() < end) {
		char *p = mmap(below, page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p != MAP_FAILED) {
			char *r = mremap(p, page, 2 * page, 0);

			munmap(r != MAP_FAILED ? r : p, r != MAP_FAILED ? 2 * page : page);
		}
		grow(n % 16);
		n++;
	}
	stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK(!bad, "neighbours: %ld bad answers", bad);
	fprintf(stderr, "neighbours: %d map/mremap/unmap rounds\n", n);
}

static long churn_queries;

static void *churn_query(void *arg)
{
	long *bad = arg, n = 0;

	while (!stop) {
		struct stackinfo_query q;

		if (si_module_query(fd, 0, 0, &q) || !consistent(&q) ||
		    q.out_tid != (uint32_t)t_gettid())
			__atomic_add_fetch(bad, 1, __ATOMIC_RELAXED);
		n++;
	}
	__atomic_add_fetch(&churn_queries, n, __ATOMIC_RELAXED);
	return NULL;
}

static void race_churn(void)
{
	long page = sysconf(_SC_PAGESIZE), bad = 0, rounds = 0;
	pthread_t th[8];
	double end = t_now() + 3;
	int i;

	stop = 0;
	for (i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, churn_query, &bad);
	while (t_now() < end) {
		void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, page);
		rounds++;
	}
	stop = 1;
	for (i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	CHECK(!bad, "churn: %ld bad answers", bad);
	fprintf(stderr, "churn: 8 threads, %ld queries against %ld mmap/munmap in 3 s\n",
		churn_queries, rounds);
}

/*
 * RLIMIT_STACK's two values change together (setrlimit() writes both under
 * the group leader's task_lock): a query never sees one pair's soft limit
 * with another's hard limit. One thread flips between two pairs, another
 * asks about it.
 */
static const struct rlimit rl_pairs[2] = {
	{ 8UL << 20, 64UL << 20 },
	{ 2UL << 20, 512UL << 20 },
};

static volatile pid_t flipper_tid;

static void *flip_rlimit(void *arg)
{
	int i = 0;

	(void)arg;
	/* one of the pairs is in place before anyone asks */
	setrlimit(RLIMIT_STACK, &rl_pairs[i++ & 1]);
	flipper_tid = t_gettid();
	while (!stop)
		setrlimit(RLIMIT_STACK, &rl_pairs[i++ & 1]);
	return NULL;
}

static void race_rlimit_pair(void)
{
	struct rlimit saved;
	pthread_t flipper;
	long bad = 0, n = 0;
	double end = t_now() + 2;

	if (getrlimit(RLIMIT_STACK, &saved) || saved.rlim_max != RLIM_INFINITY) {
		fprintf(stderr, "rlimit pairs: skipped (hard limit not raisable)\n");
		return;
	}
	stop = 0;
	flipper_tid = 0;
	pthread_create(&flipper, NULL, flip_rlimit, NULL);
	while (!flipper_tid)
		usleep(100);
	while (t_now() < end) {
		struct stackinfo_query q;
		/* the flipper (another task) and ourselves, in turn */
		int err = si_module_query(fd, n & 1 ? flipper_tid : 0, STACKINFO_QUERY_NO_SP,
					  &q);
		int ok = 0, i;

		for (i = 0; i < 2; i++)
			ok |= q.rlim_stack_cur == rl_pairs[i].rlim_cur &&
			      q.rlim_stack_max == rl_pairs[i].rlim_max;
		if (err || !ok) {
			if (bad++ < 3)
				fprintf(stderr, "rlimit pair: err %d cur %llu max %llu\n", err,
					(unsigned long long)q.rlim_stack_cur,
					(unsigned long long)q.rlim_stack_max);
		}
		n++;
	}
	stop = 1;
	pthread_join(flipper, NULL);
	setrlimit(RLIMIT_STACK, &saved);
	CHECK(!bad, "rlimit pairs: %ld torn or failed of %ld", bad, n);
	fprintf(stderr, "rlimit pairs: %ld queries against a flipping setrlimit\n", n);
}

/* --hammer: until the module goes away, then only ENOTTY. */
static long hammer_bad, hammer_gone, hammer_ok;

static void *hammer(void *arg)
{
	double end = t_now() + *(double *)arg;
	int gone = 0;

	while (t_now() < end) {
		struct stackinfo_query q;
		int err = si_module_query(fd, 0, 0, &q);

		if (!err && !gone && consistent(&q)) {
			__atomic_add_fetch(&hammer_ok, 1, __ATOMIC_RELAXED);
		} else if (err == -ENOTTY) {
			gone = 1;
			__atomic_add_fetch(&hammer_gone, 1, __ATOMIC_RELAXED);
		} else {
			__atomic_add_fetch(&hammer_bad, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static int run_hammer(double seconds)
{
	pthread_t th[4];
	int i;

	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, hammer, &seconds);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	fprintf(stderr, "hammer: %ld answers, %ld ENOTTY after removal, %ld bad\n",
		hammer_ok, hammer_gone, hammer_bad);
	return hammer_bad || !hammer_ok || !hammer_gone;
}

int main(int argc, char **argv)
{
	fd = si_open();
	if (fd < 0)
		return 1;
	if (argc > 2 && !strcmp(argv[1], "--hammer"))
		return run_hammer(atof(argv[2]));
	race_exiting_threads();
	race_exec_and_zombies();
	race_neighbours();
	race_churn();
	race_rlimit_pair();
	return t_result();
}
