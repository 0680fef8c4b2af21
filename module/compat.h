/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: kernel API differences between the kernels we build for
 * (Debian's 6.1 LTS and 6.12 LTS, Debian unstable's 7.2). Every version
 * #if lives here.
 */
#ifndef _STACKINFO_COMPAT_H
#define _STACKINFO_COMPAT_H

#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/uio.h>

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
 * The lock-free read (module/query.c): a walk under RCU validated by
 * mm->mm_lock_seq, which mmap_write_lock() makes odd and vma_end_write_all()
 * even again, so an unchanged even value proves no writer ran. It needs
 * that seqcount and VMAs whose memory stays VMA memory under RCU, which
 * CONFIG_PER_VMA_LOCK gives: freed a grace period later on 6.12 (call_rcu),
 * type-stable only on 6.15+ (SLAB_TYPESAFE_BY_RCU, 7.2), which is why the
 * walk never follows a pointer read from a VMA. The Kbuild probes say
 * what the headers have: the kernel's own helpers (6.14+), or the bare
 * seqcount (6.12.y since it changed type). 6.1 has neither:
 * mmap_read_lock only.
 */
#if IS_ENABLED(CONFIG_PER_VMA_LOCK) && \
	defined(STACKINFO_PROBE_MMAP_LOCK_SPECULATE)
#define STACKINFO_HAVE_LOCKFREE 1
#define STACKINFO_LOCKFREE_HOW "mmap_lock_speculate"
static inline bool stackinfo_mm_seq_begin(struct mm_struct *mm,
					  unsigned int *seq)
{
	return mmap_lock_speculate_try_begin(mm, seq);
}

static inline bool stackinfo_mm_seq_retry(struct mm_struct *mm,
					  unsigned int seq)
{
	return mmap_lock_speculate_retry(mm, seq);
}
#elif IS_ENABLED(CONFIG_PER_VMA_LOCK) && \
	defined(STACKINFO_PROBE_MM_LOCK_SEQCOUNT)
#define STACKINFO_HAVE_LOCKFREE 1
#define STACKINFO_LOCKFREE_HOW "mm_lock_seq"
/* As 6.14's mmap_lock_speculate_try_begin(): odd means a writer is in. */
static inline bool stackinfo_mm_seq_begin(struct mm_struct *mm,
					  unsigned int *seq)
{
	*seq = raw_read_seqcount(&mm->mm_lock_seq);
	return !(*seq & 1);
}

static inline bool stackinfo_mm_seq_retry(struct mm_struct *mm,
					  unsigned int seq)
{
	return read_seqcount_retry(&mm->mm_lock_seq, seq);
}
#else
#define STACKINFO_HAVE_LOCKFREE 0
#define STACKINFO_LOCKFREE_HOW "none"
static inline bool stackinfo_mm_seq_begin(struct mm_struct *mm,
					  unsigned int *seq)
{
	*seq = 0;
	return false;
}

static inline bool stackinfo_mm_seq_retry(struct mm_struct *mm,
					  unsigned int seq)
{
	return true;
}
#endif

/* ITER_DEST (6.2+) names the direction READ named before. */
#ifndef ITER_DEST
#define ITER_DEST READ
#endif

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
 * Without it, and with mm_alloc() not exported, each case borrows the mm
 * of a user process it starts itself (kunit/util.c).
 */

/* KUnit helpers 6.1 lacks (the suites include <kunit/test.h> first). */
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
