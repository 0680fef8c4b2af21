// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock-free look against the locked one while a churner maps and
 * unmaps pages next door. Two threads query themselves in rounds that
 * alternate /sys/module/stackinfo/parameters/lockfree between N (always
 * mmap_lock) and Y, with the same churn running. Every answer must equal
 * the one the thread got from the locked path before the churn started,
 * map_count must stay within what the churner can add, and the module's
 * lockfree_hits counter must grow in the Y rounds and only there.
 * The project's guest kernels from 6.12 on must have the lock-free path;
 * 6.1 must not, and then lockfree cannot be set to Y (the rounds all run
 * locked, and the answers are still checked).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define PARAMS "/sys/module/stackinfo/parameters/"
#define ROUNDS 6
#define ROUND_SECONDS 0.5
#define QUERIERS 2

static int fd;
/* -1: wait, 0: take reference, 1: query, 2: stop */
static volatile int phase = -1;
static volatile int mode;	/* round's path: 0 locked, 1 lock-free */
static int ref_count;		/* map_count with the churner started, idle */
static volatile int churn;

struct querier {
	pthread_t th;
	struct stackinfo_query ref;
	volatile int have_ref;
	long queries[2], bad;
};

static int param_read(const char *name, char *buf, size_t len)
{
	int pfd = open(name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (pfd < 0)
		return -errno;
	n = read(pfd, buf, len - 1);
	close(pfd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static unsigned long counter(const char *name)
{
	char buf[64];

	if (param_read(name, buf, sizeof(buf)))
		return 0;
	return strtoul(buf, NULL, 10);
}

/*
 * Everything but the SP itself, which moves with the caller's frame, and
 * the main stack's start, which moves down as the main thread's stack
 * grows (and never up).
 */
static int same_answer(const struct stackinfo_query *a,
		       const struct stackinfo_query *b)
{
	return a->valid == b->valid && a->out_tid == b->out_tid &&
	       a->tgid == b->tgid && a->thread_flags == b->thread_flags &&
	       a->start_stack == b->start_stack &&
	       a->main_vma_start <= b->main_vma_start &&
	       a->main_vma_start > a->main_prev_end &&
	       a->main_vma_end == b->main_vma_end &&
	       a->main_vma_flags == b->main_vma_flags &&
	       a->main_prev_end == b->main_prev_end &&
	       a->sp_vma_start == b->sp_vma_start &&
	       a->sp_vma_end == b->sp_vma_end &&
	       a->sp_vma_flags == b->sp_vma_flags &&
	       a->sp_prev_end == b->sp_prev_end &&
	       a->sp_guard_start == b->sp_guard_start &&
	       a->sp_guard_end == b->sp_guard_end &&
	       a->sp >= a->sp_vma_start && a->sp < a->sp_vma_end;
}

static void *querier(void *arg)
{
	struct querier *me = arg;
	struct stackinfo_query q;

	/*
	 * Not before every thread is made: while glibc sets up the next
	 * thread's stack it is all PROT_NONE, merged with this one's guard.
	 */
	while (phase < 0)
		;
	if (si_module_query(fd, 0, 0, &me->ref))
		me->bad++;
	me->have_ref = 1;
	while (phase == 0)
		;
	while (phase == 1) {
		int m = mode;

		if (si_module_query(fd, 0, 0, &q) || !same_answer(&q, &me->ref) ||
		    q.map_count < (uint64_t)ref_count ||
		    q.map_count > (uint64_t)ref_count + 1) {
			if (me->bad++ < 3)
				fprintf(stderr, "tid %u, %s: valid %#llx main %#llx-%#llx sp_vma %#llx-%#llx prev_end %#llx map_count %llu (ref valid %#llx main %#llx-%#llx sp_vma %#llx-%#llx %#llx, %d)\n",
					q.out_tid, m ? "lock-free" : "locked",
					(unsigned long long)q.valid,
					(unsigned long long)q.main_vma_start,
					(unsigned long long)q.main_vma_end,
					(unsigned long long)q.sp_vma_start,
					(unsigned long long)q.sp_vma_end,
					(unsigned long long)q.sp_prev_end,
					(unsigned long long)q.map_count,
					(unsigned long long)me->ref.valid,
					(unsigned long long)me->ref.main_vma_start,
					(unsigned long long)me->ref.main_vma_end,
					(unsigned long long)me->ref.sp_vma_start,
					(unsigned long long)me->ref.sp_vma_end,
					(unsigned long long)me->ref.sp_prev_end,
					ref_count);
		}
		me->queries[m]++;
	}
	return NULL;
}

static void *churner(void *arg)
{
	long page = sysconf(_SC_PAGESIZE), *rounds = arg;

	while (!churn)
		;
	while (churn == 1) {
		void *p = mmap(NULL, page, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, page);
		(*rounds)++;
	}
	return NULL;
}

/* Does this kernel have to have the lock-free path? 6.12 and later. */
static int lockfree_expected(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	return major > 6 || (major == 6 && minor >= 12);
}

int main(void)
{
	struct querier qs[QUERIERS];
	unsigned long hits[2] = { 0, 0 }, fallbacks = 0, h;
	struct stackinfo_query q;
	pthread_t churn_th;
	long churn_rounds = 0;
	char buf[16];
	int have, want, r, i;

	fd = si_open();
	if (fd < 0)
		return 1;
	if (param_read(PARAMS "lockfree", buf, sizeof(buf))) {
		fprintf(stderr, "no %slockfree\n", PARAMS);
		return 1;
	}
	have = buf[0] == 'Y';
	want = lockfree_expected();
	CHECK(have == want, "lockfree reads %c on a kernel that should%s have it",
	      buf[0], want ? "" : " not");
	if (!have)
		CHECK(t_write_file(PARAMS "lockfree", "Y") == -EOPNOTSUPP,
		      "lockfree=Y accepted without a lock-free path");

	/* the references: locked path, nothing churning */
	CHECK(!t_write_file(PARAMS "lockfree", "N"), "cannot set lockfree=N");
	memset(qs, 0, sizeof(qs));
	pthread_create(&churn_th, NULL, churner, &churn_rounds);
	for (i = 0; i < QUERIERS; i++)
		pthread_create(&qs[i].th, NULL, querier, &qs[i]);
	phase = 0;
	for (i = 0; i < QUERIERS; i++)
		while (!qs[i].have_ref)
			usleep(1000);
	CHECK(!si_module_query(fd, 0, 0, &q), "main thread's query");
	ref_count = (int)q.map_count;

	phase = 1;
	churn = 1;
	for (r = 0; r < ROUNDS; r++) {
		double end;

		mode = have && (r & 1);
		if (have)
			CHECK(!t_write_file(PARAMS "lockfree", mode ? "Y" : "N"),
			      "cannot set lockfree");
		h = counter(PARAMS "lockfree_hits");
		fallbacks -= counter(PARAMS "lockfree_fallbacks");
		end = t_now() + ROUND_SECONDS;
		while (t_now() < end)
			usleep(10000);
		hits[mode] += counter(PARAMS "lockfree_hits") - h;
		fallbacks += counter(PARAMS "lockfree_fallbacks");
	}
	phase = 2;
	churn = 2;
	for (i = 0; i < QUERIERS; i++)
		pthread_join(qs[i].th, NULL);
	pthread_join(churn_th, NULL);
	if (have)
		t_write_file(PARAMS "lockfree", "Y");

	for (i = 0; i < QUERIERS; i++) {
		CHECK(!qs[i].bad, "thread %d: %ld answers differ from the locked one",
		      i, qs[i].bad);
		CHECK(qs[i].queries[0] > 0, "thread %d: no locked queries", i);
		CHECK(!have || qs[i].queries[1] > 0,
		      "thread %d: no lock-free queries", i);
	}
	/* the mode switches between reads of the counter: allow the edges */
	CHECK(!have || hits[1] > 0, "no lock-free answers during churn");
	CHECK(hits[0] <= QUERIERS * ROUNDS,
	      "%lu lock-free answers with lockfree=N", hits[0]);
	CHECK(churn_rounds > 0, "the churner did not run");
	fprintf(stderr, "lockfree %s: locked %ld, lock-free %ld queries (%lu answered without the lock, %lu fell back) against %ld mmap/munmap\n",
		have ? "Y" : "N", qs[0].queries[0] + qs[1].queries[0],
		qs[0].queries[1] + qs[1].queries[1], hits[1], fallbacks,
		churn_rounds);
	return t_result();
}
