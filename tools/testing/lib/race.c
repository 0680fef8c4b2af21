// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A race test's loop until its cases are met; see race.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "race.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A kernel that checks every lock or access: lockdep, KCSAN, kmemleak. */
static bool debug_kernel(void)
{
	return !access("/proc/lockdep", F_OK) || !access("/sys/kernel/debug/kcsan", F_OK) ||
	       !access("/sys/kernel/debug/kmemleak", F_OK);
}

double t_race_cap(void)
{
	double cap = debug_kernel() ? T_RACE_CAP_DEBUG : T_RACE_CAP;
	const char *env = getenv("STACKINFO_RACE_CAP");
	char *end;
	double set;

	if (!env || !*env)
		return cap;
	set = strtod(env, &end);
	return *end || set <= 0 ? cap : set;
}

void t_race_begin(struct t_race *r, const char *what, double floor)
{
	memset(r, 0, sizeof(*r));
	r->what = what;
	r->cap = t_race_cap();
	r->floor = floor < r->cap ? floor : r->cap;
	r->start = now();
	r->next_report = r->start + T_RACE_REPORT;
}

void t_race_case_each(struct t_race *r, const char *name, const unsigned long *first,
		      unsigned int n, size_t stride, unsigned long min)
{
	struct t_race_case *c;

	if (r->ncases == T_RACE_CASES) {
		CHECK(0, "%s: more than %d cases", r->what, T_RACE_CASES);
		return;
	}
	c = &r->cases[r->ncases++];
	c->name = name;
	c->count = first;
	c->n = n;
	c->stride = stride;
	c->min = min;
	c->met_at = -1;
}

void t_race_case(struct t_race *r, const char *name, const unsigned long *count,
		 unsigned long min)
{
	t_race_case_each(r, name, count, 1, sizeof(*count), min);
}

unsigned long t_race_count(const struct t_race_case *c)
{
	unsigned long least = 0, v;
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		v = __atomic_load_n((const unsigned long *)((const char *)c->count + i * c->stride),
				    __ATOMIC_RELAXED);
		if (i == 0 || v < least)
			least = v;
	}
	return least;
}

double t_race_elapsed(const struct t_race *r)
{
	return now() - r->start;
}

bool t_race_met(struct t_race *r)
{
	double t = -1;
	bool all = true;
	unsigned int i;

	for (i = 0; i < r->ncases; i++) {
		struct t_race_case *c = &r->cases[i];

		if (c->met_at >= 0)
			continue;
		if (t_race_count(c) < c->min) {
			all = false;
			continue;
		}
		if (t < 0)
			t = t_race_elapsed(r);
		c->met_at = t;
	}
	return all;
}

/* "name COUNT/MIN" for each case, into @buf */
static void counts(struct t_race *r, char *buf, size_t len, bool when)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < r->ncases && used < len; i++) {
		const struct t_race_case *c = &r->cases[i];
		int n;

		if (when && c->met_at >= 0)
			n = snprintf(buf + used, len - used, "%s%s %lu (>= %lu, met at %.1f s)",
				     i ? ", " : "", c->name, t_race_count(c), c->min, c->met_at);
		else
			n = snprintf(buf + used, len - used, "%s%s %lu/%lu", i ? ", " : "",
				     c->name, t_race_count(c), c->min);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

bool t_race_more(struct t_race *r)
{
	double t = now();
	bool met = t_race_met(r);
	char buf[3072];

	if (t - r->start >= r->cap)
		return false;
	if (t >= r->next_report) {
		r->next_report = t + T_RACE_REPORT;
		counts(r, buf, sizeof(buf), false);
		fprintf(stderr, "progress: %s: %.0f s: %s\n", r->what, t - r->start, buf);
	}
	return t - r->start < r->floor || !met;
}

void t_race_end(struct t_race *r)
{
	bool met = t_race_met(r);
	double t = t_race_elapsed(r);
	char buf[3072];
	unsigned int i;

	counts(r, buf, sizeof(buf), true);
	fprintf(stderr, "info: %s: %s in %.1f s (cap %.0f s): %s\n", r->what,
		met ? "every case met" : "NOT every case met", t, r->cap, buf);
	for (i = 0; i < r->ncases; i++) {
		const struct t_race_case *c = &r->cases[i];
		unsigned long v = t_race_count(c);

		CHECK(v >= c->min, "%s: case \"%s\" not reached: %lu%s of %lu in %.1f s (cap %.0f s)",
		      r->what, c->name, v, c->n > 1 ? " (the fewest of one thread)" : "", c->min,
		      t, r->cap);
	}
}
