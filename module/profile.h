/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: where a query's time goes, in a measurement build only
 * (make module STACKINFO_PROFILE=y; tools/bench/profile-run). Each
 * stackinfo_prof(STEP) adds the cycles since the previous mark on this CPU
 * to STEP's sum; stackinfo_prof_begin() starts a chain. In every other
 * build the marks are empty, and scripts/gen-series.sh drops their lines:
 * the in-tree series never has them.
 */
#ifndef _STACKINFO_PROFILE_H
#define _STACKINFO_PROFILE_H

enum stackinfo_step {
	STACKINFO_STEP_MARK, /* a mark right after begin: a mark's own cost */
	STACKINFO_STEP_COPY_IN,
	STACKINFO_STEP_CHECKS,
	STACKINFO_STEP_CALLER_GET,
	STACKINFO_STEP_TARGET_GET,
	STACKINFO_STEP_PID_NR,
	STACKINFO_STEP_SEQ_BEGIN,
	STACKINFO_STEP_LOCK,
	STACKINFO_STEP_WALK_ADDR,
	STACKINFO_STEP_WALK_MAIN,
	STACKINFO_STEP_WALK_SP,
	STACKINFO_STEP_SEQ_RETRY,
	STACKINFO_STEP_UNLOCK,
	STACKINFO_STEP_COUNTERS,
	STACKINFO_STEP_FILL,
	STACKINFO_STEP_RLIMIT,
	STACKINFO_STEP_TAIL,
	STACKINFO_STEP_CALLER_PUT,
	STACKINFO_STEP_COPY_OUT,
	STACKINFO_STEP_NR
};

#ifdef STACKINFO_PROFILE
void stackinfo_prof_begin(void);
void stackinfo_prof(enum stackinfo_step step);
#else
static inline void stackinfo_prof_begin(void)
{
}

static inline void stackinfo_prof(enum stackinfo_step step)
{
}
#endif

#endif /* _STACKINFO_PROFILE_H */
