/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: where a query's time goes, in a measurement build only
 * (make module STACKINFO_PROFILE=y; tools/bench/profile-run). Each
 * stackinfo_prof(STEP) adds the cycles since the previous mark on this CPU
 * to STEP's sum; stackinfo_prof_begin() starts a chain, in the ioctl
 * (procfs.c). The marks are in the module's own files only (procfs.c,
 * access.c), at the edges of the query core's calls into the policy,
 * never in the core: the steps are what lies between. In every other
 * build the marks are empty.
 */
#ifndef _STACKINFO_PROFILE_H
#define _STACKINFO_PROFILE_H

enum stackinfo_step {
	STACKINFO_STEP_MARK, /* a mark right after begin: a mark's own cost */
	STACKINFO_STEP_ENTRY, /* copy-in, checks, stackinfo_caller_get() */
	STACKINFO_STEP_QUERY, /* the thread, the look, the answer */
	STACKINFO_STEP_CALLER_PUT,
	STACKINFO_STEP_COPY_OUT, /* and the return to procfs */
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
