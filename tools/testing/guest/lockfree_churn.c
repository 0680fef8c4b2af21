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
 *
 * Then the same rounds with a churner of the very mappings the answers
 * report: it flips the lowest page of each querier's guard between
 * PROT_NONE and PROT_READ (the guard VMA splits, so the answer's
 * sp_guard_start moves up a page, and merges again) and maps and unmaps
 * the page right below the main stack (main_prev_end). Every answer must
 * be of one moment: each of those fields one of its two values, and
 * map_count at least what the flips it shows add. At the end of each
 * round the churner stops with every flip made, or every flip undone,
 * and each querier's answer then must be what /proc/self/maps says; both
 * values of each field must have been answered.
 *
 * Each round runs ROUND_SECONDS at least, then until its cases are met
 * (race.h: the cap, its progress in the log): each querier's answers in
 * the round's mode, lock-free answers in a lock-free round, and in the
 * edge rounds each querier's answers with its guard split and whole and
 * answers with main's page mapped and not. A round that did not meet
 * them fails, naming what it missed, and ends the set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "race.h"
#include "testutil.h"

#define PARAMS "/sys/module/stackinfo/parameters/"
#define ROUNDS 6
#define ROUND_SECONDS 0.5
#define QUERIERS 2
#define MIN_ROUND_QUERIES 50	/* each querier's answers in a round */
#define MIN_ROUND_EDGES 3	/* in an edge round: each value of each flipped field */

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
	/* the edge rounds: answers with the guard split or not, main's page */
	long split_seen[2], main_seen[2];
	/* this round's, for its cases (race.h; set to 0 at its start) */
	unsigned long round_queries, round_split[2], round_main[2];
	struct stackinfo_query quiet;	/* the answer at a quiet point */
	volatile int quiet_done;
};

/*
 * Is @a an answer the round allows, against the thread's reference
 * @ref? *@split and *@mapped: which value of the edge churn's fields.
 */
typedef int answer_ok_fn(const struct stackinfo_query *a, const struct stackinfo_query *ref,
			 int *split, int *mapped);
static answer_ok_fn *answer_ok;

/* The edge rounds' flips: each querier's guard page, the page below main. */
#define FLIPS (QUERIERS + 1)
static struct querier qs[QUERIERS];
static long page_size;
static volatile int flip_want = -1;	/* -1: churn; 0/1: stop all undone/made */
static volatile int flips_stopped;
static volatile int quiet_round;	/* a querier answers once when it changes */
static long flip_rounds;

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

/* The first rounds: same_answer(), and the churner's one page or none. */
static int plain_answer(const struct stackinfo_query *a, const struct stackinfo_query *ref,
			int *split, int *mapped)
{
	*split = *mapped = 0;
	return same_answer(a, ref) && a->map_count >= (uint64_t)ref_count &&
	       a->map_count <= (uint64_t)ref_count + 1;
}

static void *querier(void *arg)
{
	struct querier *me = arg;
	struct stackinfo_query q;
	int split, mapped, quiet = 0;

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

		if (quiet_round != quiet) {
			quiet = quiet_round;
			if (si_module_query(fd, 0, 0, &me->quiet))
				me->bad++;
			me->quiet_done = quiet;
			continue;
		}
		if (si_module_query(fd, 0, 0, &q) || !answer_ok(&q, &me->ref, &split, &mapped)) {
			if (me->bad++ < 3)
				fprintf(stderr, "tid %u, %s: valid %#llx main %#llx-%#llx prev_end %#llx sp_vma %#llx-%#llx prev_end %#llx guard %#llx-%#llx map_count %u (ref valid %#llx main %#llx-%#llx %#llx sp_vma %#llx-%#llx %#llx guard %#llx, %d)\n",
					q.out_tid, m ? "lock-free" : "locked",
					(unsigned long long)q.valid,
					(unsigned long long)q.main_vma_start,
					(unsigned long long)q.main_vma_end,
					(unsigned long long)q.main_prev_end,
					(unsigned long long)q.sp_vma_start,
					(unsigned long long)q.sp_vma_end,
					(unsigned long long)q.sp_prev_end,
					(unsigned long long)q.sp_guard_start,
					(unsigned long long)q.sp_guard_end, q.map_count,
					(unsigned long long)me->ref.valid,
					(unsigned long long)me->ref.main_vma_start,
					(unsigned long long)me->ref.main_vma_end,
					(unsigned long long)me->ref.main_prev_end,
					(unsigned long long)me->ref.sp_vma_start,
					(unsigned long long)me->ref.sp_vma_end,
					(unsigned long long)me->ref.sp_prev_end,
					(unsigned long long)me->ref.sp_guard_start, ref_count);
			continue;
		}
		me->queries[m]++;
		me->split_seen[split]++;
		me->main_seen[mapped]++;
		T_RACE_INC(me->round_queries);
		T_RACE_INC(me->round_split[split]);
		T_RACE_INC(me->round_main[mapped]);
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

/* Round @r of set @what, until its cases are met; false if they were not. */
static bool one_round(const char *what, int r, bool edge, unsigned long *hits)
{
	unsigned long h = counter(PARAMS "lockfree_hits"), main_seen[2];
	struct t_race race;
	char label[96];
	int i, j;

	for (i = 0; i < QUERIERS; i++) {
		__atomic_store_n(&qs[i].round_queries, 0, __ATOMIC_RELAXED);
		for (j = 0; j < 2; j++) {
			__atomic_store_n(&qs[i].round_split[j], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&qs[i].round_main[j], 0, __ATOMIC_RELAXED);
		}
	}
	*hits = 0;
	main_seen[0] = main_seen[1] = 0;
	snprintf(label, sizeof(label), "%s, round %d (%s)", what, r + 1,
		 mode ? "lock-free" : "locked");
	t_race_begin(&race, label, ROUND_SECONDS);
	t_race_case_each(&race, "each querier's answers", &qs[0].round_queries, QUERIERS,
			 sizeof(qs[0]), MIN_ROUND_QUERIES);
	if (mode)
		t_race_case(&race, "lock-free answers", hits, 1);
	if (edge) {
		t_race_case_each(&race, "each querier's answers with its guard split",
				 &qs[0].round_split[1], QUERIERS, sizeof(qs[0]), MIN_ROUND_EDGES);
		t_race_case_each(&race, "... with it whole", &qs[0].round_split[0], QUERIERS,
				 sizeof(qs[0]), MIN_ROUND_EDGES);
		t_race_case(&race, "answers with main's page", &main_seen[1], MIN_ROUND_EDGES);
		t_race_case(&race, "answers without it", &main_seen[0], MIN_ROUND_EDGES);
	}
	do {
		usleep(10000);
		*hits = counter(PARAMS "lockfree_hits") - h;
		for (j = 0; j < 2; j++)
			main_seen[j] = __atomic_load_n(&qs[0].round_main[j], __ATOMIC_RELAXED) +
				       __atomic_load_n(&qs[1].round_main[j], __ATOMIC_RELAXED);
	} while (t_race_more(&race));
	t_race_end(&race);
	return t_race_met(&race);
}

/*
 * One set of rounds (@what): @churner and the queriers (each with a guard
 * of @guard bytes, 0 for glibc's default; @ok judging their answers)
 * started, the references taken with the churner idle and lockfree=N,
 * then ROUNDS rounds alternating lockfree N and Y with the churn running,
 * each until its cases are met (@edge: the edge rounds' too), @round_end
 * (if any) called after each; the lock-free answers and fallbacks counted
 * per mode into @hits and @fallbacks. Leaves lockfree=Y where it can be.
 */
static void run_rounds(const char *what, bool edge, int have, answer_ok_fn *ok, size_t guard,
		       void *(*churner_fn)(void *), void *churner_arg,
		       void (*round_end)(int r), unsigned long hits[2],
		       unsigned long *fallbacks)
{
	struct stackinfo_query q;
	pthread_attr_t attr;
	pthread_t churn_th;
	unsigned long h;
	int r, i;

	memset(qs, 0, sizeof(qs));
	answer_ok = ok;
	phase = -1;
	churn = 0;
	CHECK(!t_write_file(PARAMS "lockfree", "N"), "cannot set lockfree=N");
	pthread_attr_init(&attr);
	if (guard)
		pthread_attr_setguardsize(&attr, guard);
	pthread_create(&churn_th, NULL, churner_fn, churner_arg);
	for (i = 0; i < QUERIERS; i++)
		pthread_create(&qs[i].th, &attr, querier, &qs[i]);
	pthread_attr_destroy(&attr);
	phase = 0;
	for (i = 0; i < QUERIERS; i++)
		while (!qs[i].have_ref)
			usleep(1000);
	CHECK(!si_module_query(fd, 0, 0, &q), "main thread's query");
	ref_count = (int)q.map_count;

	phase = 1;
	churn = 1;
	for (r = 0; r < ROUNDS; r++) {
		bool met;

		mode = have && (r & 1);
		if (have)
			CHECK(!t_write_file(PARAMS "lockfree", mode ? "Y" : "N"),
			      "cannot set lockfree");
		*fallbacks -= counter(PARAMS "lockfree_fallbacks");
		met = one_round(what, r, edge, &h);
		hits[mode] += h;
		*fallbacks += counter(PARAMS "lockfree_fallbacks");
		if (round_end)
			round_end(r);
		if (!met)
			break;	/* said by one_round(); the set ends */
	}
	phase = 2;
	churn = 2;
	for (i = 0; i < QUERIERS; i++)
		pthread_join(qs[i].th, NULL);
	pthread_join(churn_th, NULL);
	if (have)
		t_write_file(PARAMS "lockfree", "Y");
}

/* ---- the edge rounds ---- */

/* Flip @i to @on: querier i's lowest guard page readable, or main's page mapped. */
static int flip(int i, int on)
{
	struct stackinfo_query *ref = &qs[i < QUERIERS ? i : 0].ref;

	if (i < QUERIERS)
		return mprotect((void *)(uintptr_t)ref->sp_guard_start, page_size,
				on ? PROT_READ : PROT_NONE);
	if (!on)
		return munmap((void *)(uintptr_t)(ref->main_vma_start - page_size), page_size);
	return mmap((void *)(uintptr_t)(ref->main_vma_start - page_size), page_size, PROT_READ,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED ? -1 : 0;
}

static void *edge_churner(void *arg)
{
	int state[FLIPS] = { 0 }, i = 0, j, *failed = arg;

	while (!churn)
		;
	while (churn == 1) {
		int want = flip_want;

		if (want >= 0) {
			for (j = 0; j < FLIPS; j++)
				if (state[j] != want && !flip(j, want))
					state[j] = want;
			for (j = 0; j < FLIPS; j++)
				*failed += state[j] != want;
			flips_stopped = 1;
			while (flip_want >= 0 && churn == 1)
				;
			flips_stopped = 0;
			continue;
		}
		if (flip(i, !state[i]))
			(*failed)++;
		else
			state[i] = !state[i];
		i = (i + 1) % FLIPS;
		flip_rounds++;
	}
	for (j = 0; j < FLIPS; j++)
		if (state[j])
			flip(j, 0);
	return NULL;
}

/*
 * An answer of one moment of the edge churn: what the flips do not touch
 * as @ref has it, each flipped field one of its two values, and map_count
 * at least what the flips it shows add (the other queriers' flips it
 * cannot see). @split and @mapped say which values it had.
 */
static int edge_answer(const struct stackinfo_query *a, const struct stackinfo_query *ref,
		       int *split, int *mapped)
{
	uint64_t page = (uint64_t)page_size;

	*split = a->sp_guard_start == ref->sp_guard_start + page;
	*mapped = a->main_prev_end == ref->main_vma_start;
	return a->valid == ref->valid && a->out_tid == ref->out_tid && a->tgid == ref->tgid &&
	       a->thread_flags == ref->thread_flags && a->start_stack == ref->start_stack &&
	       a->main_vma_start == ref->main_vma_start && a->main_vma_end == ref->main_vma_end &&
	       a->main_vma_flags == ref->main_vma_flags &&
	       (*mapped || a->main_prev_end == ref->main_prev_end) &&
	       a->sp_vma_start == ref->sp_vma_start && a->sp_vma_end == ref->sp_vma_end &&
	       a->sp_vma_flags == ref->sp_vma_flags && a->sp_prev_end == ref->sp_prev_end &&
	       a->sp_guard_end == ref->sp_guard_end &&
	       (*split || a->sp_guard_start == ref->sp_guard_start) &&
	       a->sp >= a->sp_vma_start && a->sp < a->sp_vma_end &&
	       a->map_count >= (uint64_t)ref_count + *split + *mapped &&
	       a->map_count <= (uint64_t)ref_count + FLIPS;
}

/* Deep enough a main stack that nothing here grows it past the page below. */
static __attribute__((noinline)) void grow_main_stack(void)
{
	volatile char deep[256 * 1024];

	memset((char *)deep, 1, sizeof(deep));
}

/*
 * The churner stopped with every flip @made (or undone): each querier's
 * answer of that moment against maps read before and after it, equal.
 */
static struct maps before, after;

static void quiet_check(int made, int round)
{
	char what[64];
	int i, tries;

	for (tries = 0; tries < 5; tries++) {
		CHECK(!maps_read(&before, 0), "maps");
		quiet_round = round;
		for (i = 0; i < QUERIERS; i++)
			while (qs[i].quiet_done != round)
				usleep(1000);
		CHECK(!maps_read(&after, 0), "maps");
		if (before.n == after.n && !memcmp(before.v, after.v, before.n * sizeof(*before.v)))
			break;
		round += 1000;	/* another answer each, as maps moved */
	}
	CHECK(tries < 5, "maps never still around the quiet answers");
	for (i = 0; i < QUERIERS; i++) {
		const struct stackinfo_query *q = &qs[i].quiet;

		snprintf(what, sizeof(what), "querier %d, flips %s", i, made ? "made" : "undone");
		t_layout_against_maps(what, q, &after);
		CHECK(made == (q->sp_guard_start == qs[i].ref.sp_guard_start + (uint64_t)page_size),
		      "%s: guard %#llx-%#llx", what, (unsigned long long)q->sp_guard_start,
		      (unsigned long long)q->sp_guard_end);
		CHECK(made == (q->main_prev_end == qs[i].ref.main_vma_start),
		      "%s: main_prev_end %#llx", what, (unsigned long long)q->main_prev_end);
	}
}

/* The end of an edge round: every flip made (odd rounds) or undone. */
static void edge_round_end(int r)
{
	flip_want = r & 1;
	while (!flips_stopped)
		usleep(1000);
	quiet_check(r & 1, r + 1);
	flip_want = -1;
	while (flips_stopped)
		usleep(1000);
}

/*
 * The edge rounds: the same alternation of lockfree, the churner flipping
 * the reported mappings, a quiet check at the end of each round.
 */
static void edge_rounds(int have)
{
	unsigned long hits[2] = { 0, 0 }, fallbacks = 0;
	int churn_failed = 0, i;

	grow_main_stack();
	/* maps' arrays allocated now: later reads map nothing new */
	CHECK(!maps_read(&before, 0) && !maps_read(&after, 0), "maps");
	/* four pages of guard: one to flip, the rest stays the guard */
	run_rounds("edges", true, have, edge_answer, 4 * page_size, edge_churner, &churn_failed,
		   edge_round_end, hits, &fallbacks);

	CHECK(!churn_failed, "%d flips failed", churn_failed);
	for (i = 0; i < QUERIERS; i++) {
		CHECK(qs[i].ref.valid & STACKINFO_VALID_SP_GUARD &&
		      qs[i].ref.sp_guard_end - qs[i].ref.sp_guard_start >= 2 * (uint64_t)page_size,
		      "querier %d: a guard of %llu bytes", i,
		      (unsigned long long)(qs[i].ref.sp_guard_end - qs[i].ref.sp_guard_start));
		CHECK(!qs[i].bad, "edges, thread %d: %ld answers not of one moment", i, qs[i].bad);
		CHECK(qs[i].split_seen[0] > 0 && qs[i].split_seen[1] > 0,
		      "edges, thread %d: guard split in %ld answers, whole in %ld", i,
		      qs[i].split_seen[1], qs[i].split_seen[0]);
		CHECK(qs[i].queries[0] > 0 && (!have || qs[i].queries[1] > 0),
		      "edges, thread %d: %ld locked, %ld lock-free queries", i, qs[i].queries[0],
		      qs[i].queries[1]);
	}
	CHECK(qs[0].main_seen[0] + qs[1].main_seen[0] > 0 && qs[0].main_seen[1] + qs[1].main_seen[1] > 0,
	      "edges: the page below main in %ld answers, not in %ld",
	      qs[0].main_seen[1] + qs[1].main_seen[1], qs[0].main_seen[0] + qs[1].main_seen[0]);
	CHECK(!have || hits[1] > 0, "edges: no lock-free answers");
	fprintf(stderr, "lockfree %s, edges: locked %ld, lock-free %ld queries (%lu answered without the lock, %lu fell back) against %ld flips; guard split in %ld answers, whole in %ld; main's page in %ld, not in %ld\n",
		have ? "Y" : "N", qs[0].queries[0] + qs[1].queries[0],
		qs[0].queries[1] + qs[1].queries[1], hits[1], fallbacks, flip_rounds,
		qs[0].split_seen[1] + qs[1].split_seen[1], qs[0].split_seen[0] + qs[1].split_seen[0],
		qs[0].main_seen[1] + qs[1].main_seen[1], qs[0].main_seen[0] + qs[1].main_seen[0]);
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
	unsigned long hits[2] = { 0, 0 }, fallbacks = 0;
	long churn_rounds = 0;
	char buf[16];
	int have, want, i;

	page_size = sysconf(_SC_PAGESIZE);
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

	run_rounds("churn", false, have, plain_answer, 0, churner, &churn_rounds, NULL, hits,
		   &fallbacks);
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
	edge_rounds(have);
	return t_result();
}
