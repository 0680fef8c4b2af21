// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Thread ids reused while the library reads /proc: with pid_max lowered to
 * leave a hundred free numbers from 300 up (a few hundred on a fresh
 * guest; more after a long run, where tasks hold some of them), two
 * processes create and join threads without pause, so
 * every tid of the range keeps changing hands between them; this process
 * asks about every tid of the range over and over through the fallback
 * backends (PROCMAP_QUERY where the kernel has it, the maps parse). An
 * answer naming one of the two processes must carry that process's
 * start_stack (fixed from exec to exit, read once beforehand): a reply
 * that mixed two processes' files would not. On each backend SECONDS at
 * least, then until MIN_ANSWERS answers have named them (race.h: the
 * cap, its progress in the log): fewer, and the race was not exercised.
 *
 * A query of another process's thread reads several of its /proc files
 * (its ids twice, stat, maps, limits); on a KASAN kernel under TCG that
 * takes tens of milliseconds, longer than a thread's life once was (20
 * ms), and nearly every query then found its thread gone (33 answers of
 * 12 600 queries in 80 s). The threads live LIFE_QUERIES times a query
 * of a live thread measured here first, 20 ms at least.
 *
 * Needs root (pid_max).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "race.h"
#include "testutil.h"

/* pids wrap to RESERVED_PIDS; the range gets FREE_PIDS that no task holds */
#define PID_MIN		300
#define FREE_PIDS	100
#define PID_LIMIT	4000
#define SECONDS		4
#define MIN_ANSWERS	50
#define LIFE_MIN	0.02	/* s: a churner's thread's life, at least */
#define LIFE_QUERIES	4	/* ... and this many times a query (query_time()) */
#define MEASURED	20	/* queries of a live thread, on each backend */

/* a churner's thread's life, set before the churners fork */
static struct timespec life = { 0, 20000000 };

/* A short life, long enough to be asked about whole (life_measure()). */
static void *brief(void *arg)
{
	nanosleep(&life, NULL);
	return arg;
}

static pid_t churner(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;) {
			pthread_t th[8];
			int i, n = 0;

			for (i = 0; i < 8; i++)
				n += !pthread_create(&th[n], NULL, brief, NULL);
			for (i = 0; i < n; i++)
				pthread_join(th[i], NULL);
		}
	}
	return pid;
}

static int start_stack_of(pid_t pid, uint64_t *v)
{
	char path[64], buf[2048], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (si_read_file(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return -1;
	for (i = 2; i < 28 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -1;
	*v = strtoull(p + 1, NULL, 10);
	return 0;
}

/*
 * The pid_max that leaves FREE_PIDS numbers from PID_MIN up free: after a
 * long guest run, tasks (kernel workers among them) hold some of the
 * lowest ones, and a churner that finds none free creates no thread.
 */
static int free_range_end(void)
{
	char path[32];
	int end, free_pids = 0;

	for (end = PID_MIN; end < PID_LIMIT && free_pids < FREE_PIDS; end++) {
		snprintf(path, sizeof(path), "/proc/%d", end);
		free_pids += access(path, F_OK) != 0;
	}
	return end;
}

/* The thread group of thread @tid as /proc says it, 0 if none. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* Do the churners' threads take numbers of the range within @secs? */
static int range_in_use(pid_t a, pid_t b, int pid_max, double secs)
{
	double end = t_now() + secs;
	pid_t tid, g;

	while (t_now() < end)
		for (tid = PID_MIN; tid < pid_max; tid++) {
			g = tgid_of(tid);
			if (g == a || g == b)
				return 1;
		}
	return 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The median of MEASURED queries on each fallback backend of a live
 * thread of another process, in seconds (the median: one query slowed
 * by the host is no measure of them); < 0 when one failed.
 */
static double query_time(void)
{
	pid_t pid = t_spawn_threaded(1), tids[2];
	double t[2 * MEASURED];
	int backend, i, n = 0;

	if (pid < 0 || t_task_tids(pid, tids, 2) != 2) {
		t_reap(pid);
		return -1;
	}
	for (backend = STACKINFO_BACKEND_PROCMAP_QUERY; backend <= STACKINFO_BACKEND_MAPS;
	     backend++) {
		if (stackinfo_set_backend(backend))
			continue;
		for (i = 0; i < MEASURED; i++) {
			struct stackinfo_query q;
			double start = t_now();
			int err = stackinfo_query_thread(tids[1], STACKINFO_QUERY_NO_SP, &q);

			if (err) {
				fprintf(stderr, "a query of a live thread: %s [%s]\n", strerror(-err),
					stackinfo_backend_name(backend));
				t_reap(pid);
				return -1;
			}
			t[n++] = t_now() - start;
		}
	}
	t_reap(pid);
	if (!n)
		return -1;
	qsort(t, n, sizeof(t[0]), by_value);
	return t[n / 2];
}

/* pid_max as it was, and no churner left */
static void restore(FILE *f, const char *saved, pid_t a, pid_t b)
{
	rewind(f);
	fputs(saved, f);
	fclose(f);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
}

int main(void)
{
	char saved[32] = "";
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r+");
	pid_t a, b;
	uint64_t ss_a, ss_b;
	unsigned long answers = 0, mixed = 0, wrong_tid = 0, queries = 0;
	double query, secs;
	int backend, pid_max;

	if (geteuid() != 0 || !f || !fgets(saved, sizeof(saved), f)) {
		fprintf(stderr, "needs root and /proc/sys/kernel/pid_max\n");
		return T_SKIP;
	}
	query = query_time();
	CHECK(query >= 0, "a query of a live thread failed");
	if (query < 0)
		return t_result();
	secs = query * LIFE_QUERIES > LIFE_MIN ? query * LIFE_QUERIES : LIFE_MIN;
	life.tv_sec = (time_t)secs;
	life.tv_nsec = (long)((secs - (double)life.tv_sec) * 1e9);
	printf("info: a query of a live thread %.1f ms (a median): the churners' threads live %.0f ms\n",
	       query * 1e3, secs * 1e3);
	fflush(stdout);	/* not again in the churners' copies */
	a = churner();
	b = churner();
	if (a < 0 || b < 0 || start_stack_of(a, &ss_a) || start_stack_of(b, &ss_b)) {
		fprintf(stderr, "churners: %s\n", strerror(errno));
		return 1;
	}
	pid_max = free_range_end();
	rewind(f);
	fprintf(f, "%d\n", pid_max);
	fflush(f);
	/* the churners' threads must take numbers of the range, or nothing is tested */
	if (!range_in_use(a, b, pid_max, T_WAIT_SECS + 4 * secs)) {
		restore(f, saved, a, b);
		printf("the churners' threads took no number in [%d, %d) in %.0f s: nothing to test here\n",
		       PID_MIN, pid_max, T_WAIT_SECS + 4 * secs);
		return T_SKIP;
	}
	for (backend = STACKINFO_BACKEND_PROCMAP_QUERY; backend <= STACKINFO_BACKEND_MAPS;
	     backend++) {
		unsigned long named = 0;
		char what[64];
		struct t_race r;

		if (stackinfo_set_backend(backend))
			continue;
		snprintf(what, sizeof(what), "%s: reused tids", stackinfo_backend_name(backend));
		t_race_begin(&r, what, SECONDS);
		t_race_case(&r, "answers naming the churners", &named, MIN_ANSWERS);
		while (t_race_more(&r)) {
			pid_t tid;

			for (tid = PID_MIN; tid < pid_max; tid++) {
				struct stackinfo_query q;
				uint64_t want;

				queries++;
				if (stackinfo_query_thread(tid, STACKINFO_QUERY_NO_SP, &q))
					continue;
				if (q.out_tid != (uint32_t)tid)
					wrong_tid++;
				if (q.tgid != (uint32_t)a && q.tgid != (uint32_t)b)
					continue;
				want = q.tgid == (uint32_t)a ? ss_a : ss_b;
				named++;
				if (q.start_stack != want) {
					if (mixed++ < 5)
						fprintf(stderr, "tid %d: tgid %u with start_stack %#llx, its own is %#llx [%s]\n",
							(int)tid, q.tgid,
							(unsigned long long)q.start_stack,
							(unsigned long long)want,
							stackinfo_backend_name(backend));
				}
			}
		}
		t_race_end(&r);
		answers += named;
	}
	restore(f, saved, a, b);
	printf("info: pid_max %d; %lu queries, %lu answers naming the churners, %lu mixed, %lu with another tid\n",
	       pid_max, queries, answers, mixed, wrong_tid);
	CHECK(!mixed, "%lu answers mixed two processes", mixed);
	CHECK(!wrong_tid, "%lu answers for another tid than asked", wrong_tid);
	return t_result();
}
