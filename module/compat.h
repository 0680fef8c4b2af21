/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: kernel API differences between the kernels we build for
 * (Debian 11's 5.10 LTS, Debian 12's 6.1 LTS and 6.12 LTS, Debian
 * unstable's 7.2). Every version #if lives here; the Kbuild probes that
 * feed them default to the newest API, which is what the in-tree series
 * (no Kbuild probes) gets.
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
#define PF_USER_WORKER 0
#endif

/* Threads that share a user mm but never run user code: no user SP. */
#define STACKINFO_PF_WORKER (PF_IO_WORKER | PF_USER_WORKER)

/*
 * mmap_assert_locked() calls dump_mm() under CONFIG_DEBUG_VM, which 6.1
 * does not export to modules: lockdep's half of it works everywhere.
 */
#define stackinfo_assert_mmap_locked(mm) lockdep_assert_held(&(mm)->mmap_lock)

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

/*
 * A cursor over an mm's VMAs for the walks of module/query.c: the VMA
 * holding an address, the one at or above an address, and the one below
 * the last found. The maple tree's (6.1+) works under RCU alone; 5.10's
 * VMAs are an rbtree plus a list (find_vma(), vm_prev) that only
 * mmap_lock makes safe to read, and no lock-free look exists there
 * (STACKINFO_HAVE_LOCKFREE is 0 without CONFIG_PER_VMA_LOCK).
 * Kbuild defines STACKINFO_NO_MAPLE_TREE when mm_types.h has no mm_mt.
 */
#ifndef STACKINFO_NO_MAPLE_TREE
#define STACKINFO_VMA_CURSOR(name, mm) MA_STATE(name, &(mm)->mm_mt, 0, 0)

/* The VMA holding @addr, or NULL in a gap. */
static inline struct vm_area_struct *stackinfo_cursor_at(struct ma_state *c,
							 unsigned long addr)
{
	mas_set(c, addr);
	return mas_walk(c);
}

/* The first VMA at or above @addr (find_vma()'s answer), or NULL. */
static inline struct vm_area_struct *stackinfo_cursor_from(struct ma_state *c,
							   unsigned long addr)
{
	mas_set(c, addr);
	return mas_find(c, ULONG_MAX);
}

/* The VMA below the one the cursor last found, or NULL. */
static inline struct vm_area_struct *stackinfo_cursor_prev(struct ma_state *c)
{
	return mas_prev(c, 0);
}
#else
struct stackinfo_cursor {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
};

#define STACKINFO_VMA_CURSOR(name, mm) struct stackinfo_cursor name = { (mm) }

static inline struct vm_area_struct *
stackinfo_cursor_at(struct stackinfo_cursor *c, unsigned long addr)
{
	stackinfo_assert_mmap_locked(c->mm);
	c->vma = find_vma(c->mm, addr);
	if (c->vma && c->vma->vm_start > addr)
		c->vma = NULL;
	return c->vma;
}

static inline struct vm_area_struct *
stackinfo_cursor_from(struct stackinfo_cursor *c, unsigned long addr)
{
	stackinfo_assert_mmap_locked(c->mm);
	c->vma = find_vma(c->mm, addr);
	return c->vma;
}

static inline struct vm_area_struct *
stackinfo_cursor_prev(struct stackinfo_cursor *c)
{
	return c->vma ? c->vma->vm_prev : NULL;
}
#endif

#ifndef STACKINFO_INTREE
/*
 * What only the module's own files (main.c, access.c) need: the in-tree
 * series has no such files, and scripts/gen-series.sh leaves this out of
 * its stackinfo_compat.h (unifdef -DSTACKINFO_INTREE).
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/string.h>

/*
 * file_open_root() takes a struct path since 5.12; 5.10's takes the
 * dentry and the mount (Kbuild: STACKINFO_FILE_OPEN_ROOT_DENTRY).
 */
static inline struct file *stackinfo_file_open_root(const struct path *root,
						    const char *name, int flags)
{
#ifdef STACKINFO_FILE_OPEN_ROOT_DENTRY
	return file_open_root(root->dentry, root->mnt, name, flags, 0);
#else
	return file_open_root(root, name, flags, 0);
#endif
}

/*
 * What vfs_read() checks before a read of @len at *@pos: rw_verify_area(),
 * which is the LSMs' file_permission hook and fsnotify's permission
 * event. 5.10 exports neither it (fs/internal.h) nor
 * security_file_permission(): there the read asks only what the open
 * asked (security_file_open()) and what the file's own read asks
 * (lock_trace()'s ptrace_may_access() for syscall). Kbuild defines
 * STACKINFO_NO_RW_VERIFY_AREA when linux/fs.h does not declare it.
 */
static inline int stackinfo_rw_verify_area(struct file *f, loff_t *pos,
					   size_t len)
{
#ifdef STACKINFO_NO_RW_VERIFY_AREA
	return 0;
#else
	return rw_verify_area(READ, f, pos, len);
#endif
}

/*
 * next_arg() (lib/cmdline.c) is exported on 6.1, not on 5.10; there the
 * same split of one boot parameter off @args: an optional leading quote
 * that lets the parameter hold spaces, "param=val" split at the first '='
 * past the first character, a quote around the value and the closing
 * quote of the whole dropped, trailing spaces skipped. Kbuild defines
 * STACKINFO_NO_NEXT_ARG when Module.symvers lacks it. kunit/main_test.c's
 * command lines pin next_arg()'s use where KUnit runs (6.1 on); 5.10's
 * guest boots with a quoted stack_guard_gap that the guard_gap test holds
 * against the kernel's own parse.
 */
#ifdef STACKINFO_NO_NEXT_ARG
static inline char *stackinfo_next_arg(char *args, char **param, char **val)
{
	bool quoted = *args == '"', in_quote;
	char *p, *eq = NULL;

	if (quoted)
		args++;
	in_quote = quoted;
	for (p = args; *p && (in_quote || !isspace(*p)); p++) {
		if (*p == '=' && !eq && p != args)
			eq = p;
		if (*p == '"')
			in_quote = !in_quote;
	}
	*param = args;
	*val = NULL;
	if (eq) {
		*eq = '\0';
		*val = eq + 1;
		if (**val == '"') {
			(*val)++;
			if (p[-1] == '"')
				p[-1] = '\0';
		}
	}
	if (quoted && p > args && p[-1] == '"')
		p[-1] = '\0';
	if (*p)
		*p++ = '\0';
	return skip_spaces(p);
}
#else
#define stackinfo_next_arg next_arg
#endif

#endif /* !STACKINFO_INTREE */
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
#define STACKINFO_IMPORT_NS_KUNIT() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
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
