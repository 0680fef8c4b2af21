/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A race test's loop: run until each case it counts has been met, with a
 * cap. A case is a counter (or the fewest of several, one a thread) and
 * the minimum it must reach; a race that never met its cases proves
 * nothing, and how long meeting them takes is the machine's business,
 * not the test's: on a slow or busy host it runs longer, and fails only
 * when the cap has passed, naming each case not met.
 *
 *	struct t_race r;
 *
 *	t_race_begin(&r, "relay", 0);
 *	t_race_case(&r, "batches across an exit", &n.raced, 100);
 *	while (t_race_more(&r))
 *		one_round();
 *	t_race_end(&r);
 *
 * t_race_more() says "progress: ..." every T_RACE_REPORT seconds;
 * t_race_end() says "info: ..." with each count and when it was met, and
 * is a CHECK failure for each case below its minimum. Counters are read
 * with relaxed atomic loads: a thread counting into one while another
 * runs the loop adds with T_RACE_INC() or T_RACE_ADD().
 */
#ifndef STACKINFO_RACE_H
#define STACKINFO_RACE_H

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

/*
 * The cap of one race, in seconds: T_RACE_CAP_DEBUG on a debug kernel
 * (lockdep, KCSAN or kmemleak there: KASAN alone makes a guest some five
 * times slower under TCG; lib_fork's 300 forks took 150-270 s on
 * debug-6.12 beside other guests, load 4-9), STACKINFO_RACE_CAP=SECONDS
 * to set another.
 */
#define T_RACE_CAP		120.0
#define T_RACE_CAP_DEBUG	600.0
/* Seconds between progress lines. */
#define T_RACE_REPORT	10.0
#define T_RACE_CASES	40

#define T_RACE_INC(c)	__atomic_fetch_add(&(c), 1, __ATOMIC_RELAXED)
#define T_RACE_ADD(c, n) __atomic_fetch_add(&(c), (n), __ATOMIC_RELAXED)

struct t_race_case {
	const char *name;
	const unsigned long *count;	/* the first of @n counters, @stride bytes apart */
	unsigned int n;
	size_t stride;
	unsigned long min;
	double met_at;			/* seconds from the start; < 0 while not met */
};

struct t_race {
	const char *what;
	double start, floor, cap, next_report;
	unsigned int ncases;
	struct t_race_case cases[T_RACE_CASES];
};

/*
 * Start @r, named @what in its lines: t_race_more() goes on for @floor
 * seconds at least (0: none), then until every case is met, and never
 * past the cap.
 */
void t_race_begin(struct t_race *r, const char *what, double floor);
/* A case: *@count must reach @min. */
void t_race_case(struct t_race *r, const char *name, const unsigned long *count,
		 unsigned long min);
/*
 * A case of @n counters @stride bytes apart (a field of each of @n
 * threads' structs): each must reach @min.
 */
void t_race_case_each(struct t_race *r, const char *name, const unsigned long *first,
		      unsigned int n, size_t stride, unsigned long min);
/* The case's count now: the fewest of its counters. */
unsigned long t_race_count(const struct t_race_case *c);
/* Every case met? */
bool t_race_met(struct t_race *r);
/* Go on? Within the cap, and the floor not passed or a case not met. */
bool t_race_more(struct t_race *r);
/* The cap a race has on this kernel, in seconds. */
double t_race_cap(void);
/* Seconds since t_race_begin(). */
double t_race_elapsed(const struct t_race *r);
/*
 * The counts in an "info:" line; a CHECK failure for each case below its
 * minimum, naming it. Call once the counters have stopped.
 */
void t_race_end(struct t_race *r);

#endif
