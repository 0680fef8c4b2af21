/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: kernel API differences between the kernels we build for
 * (Debian's 6.1 LTS and 6.12 LTS, Debian unstable's 7.2). Every version
 * #if lives here.
 */
#ifndef _STACKINFO_COMPAT_H
#define _STACKINFO_COMPAT_H

#include <linux/lockdep.h>
#include <linux/sched.h>

/* PF_USER_WORKER (6.4+) marks kernel workers cloned from user threads. */
#ifndef PF_USER_WORKER
#define PF_USER_WORKER	0
#endif

/* Threads that share a user mm but never run user code: no user SP. */
#define STACKINFO_PF_WORKER	(PF_IO_WORKER | PF_USER_WORKER)

/*
 * mmap_assert_locked() calls dump_mm() under CONFIG_DEBUG_VM, which 6.1
 * does not export to modules: lockdep's half of it works everywhere.
 */
#define stackinfo_assert_mmap_locked(mm) \
	lockdep_assert_held(&(mm)->mmap_lock)

/*
 * MODULE_IMPORT_NS() takes a bare name before 6.13 and a string since
 * (Kbuild probes module.h).
 */
#ifdef STACKINFO_IMPORT_NS_STRING
#define STACKINFO_IMPORT_NS_KUNIT() \
	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define STACKINFO_IMPORT_NS_KUNIT() \
	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

/*
 * kunit_vm_mmap() (6.10+; Kbuild probes kunit/test.h for it,
 * STACKINFO_HAVE_KUNIT_VM_MMAP) gives a KUnit case's kthread a fresh mm.
 * Without it, and with mm_alloc() not exported, the suite borrows the mm of
 * a user process it starts itself (kunit/stackinfo_kunit.c).
 */

/* KUnit helpers 6.1 lacks (the suite includes <kunit/test.h> first). */
#ifdef _KUNIT_TEST_H
#ifndef KUNIT_CASE_SLOW
#define KUNIT_CASE_SLOW(name) KUNIT_CASE(name)
#endif
#ifndef KUNIT_EXPECT_MEMEQ
#define KUNIT_EXPECT_MEMEQ(test, left, right, size) \
	KUNIT_EXPECT_EQ(test, memcmp(left, right, size), 0)
#endif
#endif

#endif /* _STACKINFO_COMPAT_H */
