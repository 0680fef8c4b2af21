// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every entry point at once from every CPU, for KCSAN: four threads, each
 * with its own /proc/stackinfo fd, go round the query for the caller and
 * for another of the four, the read of the text and, where the kernel has
 * the in-tree files, the read of the caller's
 * /proc/self/task/<tid>/stackinfo and its ioctl; one call in every
 * EXPENSIVE_EVERY is for a child process instead (its thread's query, the
 * batch, its in-tree file's read), which the kernel's check makes some
 * twenty times dearer. A
 * data race between two of them (module state written on one CPU while
 * another reads it) is then a KCSAN report, which fails the run; the
 * race tests race the module against the kernel's changes to a process,
 * which this does not. Every answer must be for the thread asked, with
 * no error: the targets live throughout.
 *
 * It runs 20 s at least under KCSAN (/sys/kernel/debug/kcsan exists:
 * KCSAN watches one access in a few thousand, for microseconds, so a
 * racing pair of plain accesses needs some 10^5 calls to be seen), 3 s
 * elsewhere, and on until each thread has made MIN_CALLS of each cheap
 * kind and MIN_EXPENSIVE of each dear one (race.h: the cap, its progress
 * in the log); it fails below them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "race.h"
#include "testutil.h"

#define THREADS 4
#define CHILD_THREADS 3
#define MIN_CALLS 200
#define MIN_EXPENSIVE 10
#define EXPENSIVE_EVERY 32

/* the cheap ones first, CHEAP of them */
enum op {
	OP_SELF, OP_SIBLING, OP_TEXT, OP_INTREE, OP_INTREE_IOCTL, CHEAP,
	OP_CHILD = CHEAP, OP_BATCH, OP_INTREE_CHILD, OPS
};

static const char *const op_name[OPS] = {
	"query self", "query sibling", "text", "in-tree read", "in-tree ioctl",
	"query child", "batch", "in-tree read of the child's",
};

struct worker {
	pthread_t th;
	pid_t tid;
	unsigned long calls[OPS];	/* T_RACE_INC: the main thread watches them */
	long bad[OPS];
};

static struct worker workers[THREADS];
static pid_t child, child_tid;
static int have_intree;
static volatile int stop;
/* start together; and none exits while another may still ask about it */
static pthread_barrier_t start, done;

static unsigned long min_calls(enum op op)
{
	if ((op == OP_INTREE || op == OP_INTREE_IOCTL || op == OP_INTREE_CHILD) && !have_intree)
		return 0;
	return op < CHEAP ? MIN_CALLS : MIN_EXPENSIVE;
}

static void count(struct worker *w, enum op op, int ok)
{
	T_RACE_INC(w->calls[op]);
	if (!ok && w->bad[op]++ < 3)
		fprintf(stderr, "%s: a bad answer (%s)\n", op_name[op], strerror(errno));
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct worker *sibling = &workers[(w - workers + 1) % THREADS];
	struct stackinfo_query arr[CHILD_THREADS + 4];
	struct stackinfo_threads a;
	struct stackinfo_query q;
	int fd = si_open(), ifd = -1, cfd = -1, err;
	unsigned int i, dear = 0, cheap = 0;

	w->tid = t_gettid();
	if (have_intree) {
		ifd = t_intree_open("/proc", getpid(), w->tid);
		cfd = t_intree_open("/proc", child, child_tid);
	}
	pthread_barrier_wait(&start);
	for (i = 0; !stop; i++) {
		enum op op = i % EXPENSIVE_EVERY ? cheap++ % CHEAP : CHEAP + dear++ % (OPS - CHEAP);

		switch (op) {
		case OP_SELF:
			err = si_module_query(fd, 0, 0, &q);
			count(w, op, !err && q.out_tid == (uint32_t)w->tid);
			break;
		case OP_SIBLING:
			err = si_module_query(fd, sibling->tid, 0, &q);
			count(w, op, !err && q.out_tid == (uint32_t)sibling->tid);
			break;
		case OP_CHILD:
			err = si_module_query(fd, child_tid, 0, &q);
			count(w, op, !err && q.out_tid == (uint32_t)child_tid);
			break;
		case OP_BATCH:
			err = t_threads_call(fd, child, &a, arr, CHILD_THREADS + 4);
			count(w, op, !err && a.count == CHILD_THREADS + 1);
			break;
		case OP_TEXT:
			err = si_text_read(fd, &q);
			count(w, op, !err && q.out_tid == (uint32_t)w->tid);
			break;
		case OP_INTREE:
			if (ifd < 0)
				break;
			err = si_text_read(ifd, &q);
			count(w, op, !err && q.out_tid == (uint32_t)w->tid);
			break;
		case OP_INTREE_IOCTL:
			if (ifd < 0)
				break;
			err = si_module_query(ifd, 0, 0, &q);
			count(w, op, !err && q.out_tid == (uint32_t)w->tid);
			break;
		case OP_INTREE_CHILD:
			if (cfd < 0)
				break;
			err = si_text_read(cfd, &q);
			count(w, op, !err && q.out_tid == (uint32_t)child_tid);
			break;
		default:
			break;
		}
	}
	pthread_barrier_wait(&done);
	if (ifd >= 0)
		close(ifd);
	if (cfd >= 0)
		close(cfd);
	close(fd);
	return NULL;
}

int main(void)
{
	pid_t tids[CHILD_THREADS + 1];
	double seconds, began;
	unsigned long total = 0;
	struct t_race r;
	int i, op;

	seconds = access("/sys/kernel/debug/kcsan", F_OK) ? 3 : 20;
	have_intree = !access("/proc/self/stackinfo", F_OK);
	child = t_spawn_threaded(CHILD_THREADS);
	if (child < 0 || t_task_tids(child, tids, CHILD_THREADS + 1) != CHILD_THREADS + 1) {
		fprintf(stderr, "a child of %d threads: %s\n", CHILD_THREADS + 1, strerror(errno));
		return 1;
	}
	child_tid = tids[CHILD_THREADS];
	pthread_barrier_init(&start, NULL, THREADS);
	pthread_barrier_init(&done, NULL, THREADS);
	began = t_now();
	for (i = 0; i < THREADS; i++)
		CHECK(!pthread_create(&workers[i].th, NULL, work, &workers[i]), "pthread_create");
	/* each kind of call, in each thread */
	t_race_begin(&r, "every entry point from 4 threads", seconds);
	for (op = 0; op < OPS; op++)
		if (min_calls(op))
			t_race_case_each(&r, op_name[op], &workers[0].calls[op], THREADS,
					 sizeof(workers[0]), min_calls(op));
	while (t_race_more(&r))
		usleep(10000);
	stop = 1;
	for (i = 0; i < THREADS; i++)
		pthread_join(workers[i].th, NULL);
	t_reap(child);
	t_race_end(&r);

	for (op = 0; op < OPS; op++) {
		unsigned long calls = 0;
		long bad = 0;

		if (!min_calls(op))
			continue;
		for (i = 0; i < THREADS; i++) {
			calls += workers[i].calls[op];
			bad += workers[i].bad[op];
		}
		total += calls;
		printf("info: %s: %lu calls, %ld bad\n", op_name[op], calls, bad);
		CHECK(!bad, "%s: %ld bad answers", op_name[op], bad);
	}
	printf("info: %lu calls in %.1f s (%.0f s at least) from %d threads on %ld CPUs\n", total,
	       t_now() - began, seconds, THREADS, sysconf(_SC_NPROCESSORS_ONLN));
	return t_result();
}
