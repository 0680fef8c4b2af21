// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Races, each run for a few seconds at least and then until it has met
 * the cases it counts (race.h: a cap, its progress in the log):
 *  - threads that exit while another thread queries them (0 or ESRCH):
 *    threads made, queries answered about one, queries that found it gone;
 *  - processes that exec, exit and linger as zombies while queried:
 *    processes, answers, refusals (a new mm, none, or reaped);
 *  - the main stack's neighbours mapped, mremapped and unmapped, and the
 *    stack grown, while other threads query it (answers self-consistent):
 *    rounds, answers with a neighbour mapped and without;
 *  - 8 querying threads against an mmap/munmap churner: the churner's
 *    rounds, each thread's queries;
 *  - RLIMIT_STACK pairs against a flipping setrlimit: answers with each
 *    pair.
 * harness_race --hammer SECONDS [READY]: 4 threads query until each has
 * seen the module go (at most SECONDS), having created the file READY
 * once each had an answer; after a thread's first ENOTTY (procfs's answer
 * to an ioctl on a removed entry) only ENOTTY may follow. run-tests runs
 * it across an rmmod.
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

#include "race.h"
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

/* What the queries of the victims met. */
struct victim_counts {
	unsigned long made, answers, gone, bad;
};

/*
 * Ask about the victim over and over. Another process needs a proof,
 * opened here each time: after its exec (a new mm) or as a zombie (none)
 * the module refuses it, EACCES; once reaped it is gone, ESRCH.
 */
static void *query_victims(void *arg)
{
	struct victim_counts *c = arg;

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
		/* a process's proof that no longer names its mm: as gone */
		if (victim_is_process && err == -EACCES)
			err = -ESRCH;
		if (!err && q.out_tid == (uint32_t)v && consistent(&q)) {
			T_RACE_INC(c->answers);
		} else if (err == -ESRCH) {
			T_RACE_INC(c->gone);
		} else if (T_RACE_INC(c->bad) < 3) {
			fprintf(stderr, "victim %d: err %d tid %u tgid %u valid %#llx\n", (int)v,
				err, q.out_tid, q.tgid, (unsigned long long)q.valid);
		}
	}
	return NULL;
}

/*
 * The querier of the victims started, and @r begun (@what, 3 s at least):
 * victims made (@made, @min_made of them), answers, refusals (@gone).
 */
static void victims_begin(struct victim_counts *c, struct t_race *r, pthread_t *q,
			  const char *what, const char *made, unsigned long min_made,
			  const char *gone)
{
	stop = 0;
	victim = 0;
	pthread_create(q, NULL, query_victims, c);
	t_race_begin(r, what, 3);
	t_race_case(r, made, &c->made, min_made);
	t_race_case(r, "answers", &c->answers, 20);
	t_race_case(r, gone, &c->gone, 20);
}

static void victims_end(struct victim_counts *c, struct t_race *r, pthread_t q)
{
	stop = 1;
	pthread_join(q, NULL);
	t_race_end(r);
	CHECK(!c->bad, "%s: %lu bad answers", r->what, c->bad);
}

static void *short_lived(void *arg)
{
	(void)arg;
	victim = t_gettid();
	return NULL;
}

static void race_exiting_threads(void)
{
	struct victim_counts c = { 0 };
	struct t_race r;
	pthread_t q, t;

	victims_begin(&c, &r, &q, "exiting threads", "threads made", 300, "queries of one gone");
	while (t_race_more(&r)) {
		if (pthread_create(&t, NULL, short_lived, NULL))
			break;
		pthread_join(t, NULL);
		T_RACE_INC(c.made);
	}
	victims_end(&c, &r, q);
}

static void race_exec_and_zombies(void)
{
	struct victim_counts c = { 0 };
	struct t_race r;
	pthread_t q;
	unsigned long n;

	victim_is_process = 1;
	victims_begin(&c, &r, &q, "exec/exit/zombies", "processes", 100,
		      "refusals (exec'd, a zombie, reaped)");
	while (t_race_more(&r)) {
		pid_t pid;

		n = c.made;
		pid = fork();
		if (pid == 0) {
			if (n % 2)
				execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		victim = pid;
		usleep(n % 3 ? 0 : 2000);	/* sometimes query the zombie */
		waitpid(pid, NULL, 0);
		T_RACE_INC(c.made);
	}
	victims_end(&c, &r, q);
	victim_is_process = 0;
}

/* Grow the main stack by touching pages further down. */
static int grow(int depth)
{
	volatile char pad[4096];

	pad[0] = (char)depth;
	return depth ? grow(depth - 1) + pad[0] : pad[0];
}

/* What the queries of the main thread met. */
struct neighbour_counts {
	uint64_t prev_end;	/* main_prev_end with no neighbour mapped */
	unsigned long rounds, with, without, bad;
};

static void *query_main(void *arg)
{
	struct neighbour_counts *c = arg;

	while (!stop) {
		struct stackinfo_query q;
		int err = si_module_query(fd, getpid(), 0, &q);

		if (err || !consistent(&q))
			T_RACE_INC(c->bad);
		else if (q.main_prev_end == c->prev_end)
			T_RACE_INC(c->without);
		else
			T_RACE_INC(c->with);
	}
	return NULL;
}

static void race_neighbours(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct neighbour_counts c = { 0 };
	struct stackinfo_query q;
	struct t_race r;
	pthread_t th[2];
	char *below;
	int i;

	si_module_query(fd, 0, 0, &q);
	c.prev_end = q.main_prev_end;
	/* a spot inside the guard gap, below the main stack */
	below = (char *)(uintptr_t)(q.main_vma_start - 64 * page);
	stop = 0;
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, query_main, &c);
	t_race_begin(&r, "neighbours", 3);
	t_race_case(&r, "map/mremap/unmap rounds", &c.rounds, 300);
	t_race_case(&r, "answers with a neighbour mapped", &c.with, 20);
	t_race_case(&r, "answers without", &c.without, 20);
	while (t_race_more(&r)) {
		char *p = mmap(below, page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p != MAP_FAILED) {
			char *r = mremap(p, page, 2 * page, 0);

			munmap(r != MAP_FAILED ? r : p, r != MAP_FAILED ? 2 * page : page);
		}
		grow(c.rounds % 16);
		T_RACE_INC(c.rounds);
	}
	stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	t_race_end(&r);
	CHECK(!c.bad, "neighbours: %lu bad answers", c.bad);
}

#define CHURN_THREADS 8

/* One querier of the churn. */
struct churner {
	pthread_t th;
	unsigned long queries, bad;
};

static void *churn_query(void *arg)
{
	struct churner *me = arg;

	while (!stop) {
		struct stackinfo_query q;

		if (si_module_query(fd, 0, 0, &q) || !consistent(&q) ||
		    q.out_tid != (uint32_t)t_gettid())
			T_RACE_INC(me->bad);
		T_RACE_INC(me->queries);
	}
	return NULL;
}

static void race_churn(void)
{
	static struct churner th[CHURN_THREADS];
	long page = sysconf(_SC_PAGESIZE);
	unsigned long rounds = 0, bad = 0;
	struct t_race r;
	int i;

	stop = 0;
	for (i = 0; i < CHURN_THREADS; i++)
		pthread_create(&th[i].th, NULL, churn_query, &th[i]);
	t_race_begin(&r, "churn", 3);
	t_race_case(&r, "mmap/munmap rounds", &rounds, 300);
	t_race_case_each(&r, "queries of each of 8 threads", &th[0].queries, CHURN_THREADS,
			 sizeof(th[0]), 100);
	while (t_race_more(&r)) {
		void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, page);
		T_RACE_INC(rounds);
	}
	stop = 1;
	for (i = 0; i < CHURN_THREADS; i++) {
		pthread_join(th[i].th, NULL);
		bad += th[i].bad;
	}
	t_race_end(&r);
	CHECK(!bad, "churn: %lu bad answers", bad);
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
	unsigned long bad = 0, n = 0, seen[2] = { 0, 0 };
	struct rlimit saved;
	pthread_t flipper;
	struct t_race r;

	if (getrlimit(RLIMIT_STACK, &saved) || saved.rlim_max != RLIM_INFINITY) {
		fprintf(stderr, "rlimit pairs: skipped (hard limit not raisable)\n");
		return;
	}
	stop = 0;
	flipper_tid = 0;
	pthread_create(&flipper, NULL, flip_rlimit, NULL);
	while (!flipper_tid)
		usleep(100);
	t_race_begin(&r, "rlimit pairs", 2);
	t_race_case(&r, "answers with the first pair", &seen[0], 20);
	t_race_case(&r, "answers with the second pair", &seen[1], 20);
	while (t_race_more(&r)) {
		struct stackinfo_query q;
		/* the flipper (another task) and ourselves, in turn */
		int err = si_module_query(fd, n & 1 ? flipper_tid : 0, STACKINFO_QUERY_NO_SP,
					  &q);
		int which = -1, i;

		for (i = 0; i < 2; i++)
			if (q.rlim_stack_cur == rl_pairs[i].rlim_cur &&
			    q.rlim_stack_max == rl_pairs[i].rlim_max)
				which = i;
		if (!err && which >= 0) {
			seen[which]++;
		} else if (bad++ < 3) {
			fprintf(stderr, "rlimit pair: err %d cur %llu max %llu\n", err,
				(unsigned long long)q.rlim_stack_cur,
				(unsigned long long)q.rlim_stack_max);
		}
		n++;
	}
	stop = 1;
	pthread_join(flipper, NULL);
	setrlimit(RLIMIT_STACK, &saved);
	t_race_end(&r);
	CHECK(!bad, "rlimit pairs: %lu torn or failed of %lu", bad, n);
}

/*
 * --hammer: each thread until it has seen the module go away, then only
 * ENOTTY (HAMMER_AFTER calls more).
 */
#define HAMMER_THREADS	4
#define HAMMER_AFTER	100

struct hammerer {
	pthread_t th;
	unsigned long ok, gone, bad;
};

static struct hammerer hammerers[HAMMER_THREADS];
static double hammer_end;

static void *hammer(void *arg)
{
	struct hammerer *me = arg;

	while (t_now() < hammer_end && me->gone < HAMMER_AFTER) {
		struct stackinfo_query q;
		int err = si_module_query(fd, 0, 0, &q);

		if (!err && !me->gone && consistent(&q))
			T_RACE_INC(me->ok);
		else if (err == -ENOTTY)
			T_RACE_INC(me->gone);
		else
			T_RACE_INC(me->bad);
	}
	return NULL;
}

/* Each thread answered, then saw the module go; @ready created in between. */
static int run_hammer(double seconds, const char *ready)
{
	unsigned long ok = 0, gone = 0, bad = 0;
	int i, failed = 0;

	hammer_end = t_now() + seconds;
	for (i = 0; i < HAMMER_THREADS; i++)
		pthread_create(&hammerers[i].th, NULL, hammer, &hammerers[i]);
	for (i = 0; ready && i < HAMMER_THREADS; i++)
		while (!__atomic_load_n(&hammerers[i].ok, __ATOMIC_RELAXED) && t_now() < hammer_end)
			usleep(1000);
	if (ready && t_now() < hammer_end) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
		else
			failed = 1;
	}
	for (i = 0; i < HAMMER_THREADS; i++) {
		struct hammerer *h = &hammerers[i];

		pthread_join(h->th, NULL);
		fprintf(stderr, "hammer, thread %d: %lu answers, %lu ENOTTY after removal, %lu bad\n",
			i, h->ok, h->gone, h->bad);
		failed |= h->bad || !h->ok || h->gone < HAMMER_AFTER;
		ok += h->ok;
		gone += h->gone;
		bad += h->bad;
	}
	fprintf(stderr, "hammer: %lu answers, %lu ENOTTY after removal, %lu bad%s\n", ok, gone,
		bad, failed ? "; a thread without answers, or that never saw the module go" : "");
	return failed;
}

int main(int argc, char **argv)
{
	fd = si_open();
	if (fd < 0)
		return 1;
	if (argc > 2 && !strcmp(argv[1], "--hammer"))
		return run_hammer(atof(argv[2]), argc > 3 ? argv[3] : NULL);
	race_exiting_threads();
	race_exec_and_zombies();
	race_neighbours();
	race_churn();
	race_rlimit_pair();
	return t_result();
}
