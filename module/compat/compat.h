/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: mainline's API (7.2) on the older kernels the module builds
 * for (Debian 11's 5.10, Debian 12's 6.1 and 6.12). The module's Kbuild
 * puts this file before every source of the module (-include); the query
 * core (module/query.c, abi.c, stackinfo.h), which the in-tree series
 * copies into fs/proc, never includes it and is written against 7.2 alone.
 *
 * Each item says what it supplies, the kernel lines that make it needed,
 * and the Kbuild probe that selects it (a name grepped in the kernel's
 * headers or Module.symvers, or a file of module/probe/ that compiles):
 * never a version number. Line numbers are those of Debian's 5.10.0-32
 * and 6.1.0-57 headers, 6.12.118's and 7.2.13's.
 */
#ifndef _STACKINFO_COMPAT_H
#define _STACKINFO_COMPAT_H

#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/seqlock.h>
#include <linux/string.h>
#include <linux/uio.h>

/*
 * PF_USER_WORKER: 7.2 include/linux/sched.h:1798; added in 6.4, absent
 * from 6.1's and 5.10's sched.h. There no user worker exists but the
 * io_uring ones, which PF_IO_WORKER (5.10 sched.h:1536) marks.
 */
#ifndef PF_USER_WORKER
#define PF_USER_WORKER 0
#endif

/*
 * mmap_assert_locked(): 6.1 include/linux/mmap_lock.h:153-157 calls
 * VM_BUG_ON_MM(), that is dump_mm() under CONFIG_DEBUG_VM, which a kernel
 * without dump_mm in Module.symvers does not export to modules (7.2
 * exports it, mm/debug.c:232). Kbuild: STACKINFO_COMPAT_NO_DUMP_MM. The
 * lockdep half of the assertion (mmap_lock.h:155) is kept.
 */
#ifdef STACKINFO_COMPAT_NO_DUMP_MM
#define mmap_assert_locked(mm) lockdep_assert_held(&(mm)->mmap_lock)
#endif

/*
 * mmap_lock_speculate_try_begin()/_retry(): 7.2 include/linux/mmap_lock.h:
 * 134-148 (with CONFIG_PER_VMA_LOCK; 493-501 without, always "take the
 * lock"). 6.12.118's mm_lock_seq is the seqcount_t they read
 * (include/linux/mm_types.h:946), odd while mmap_lock is write-locked,
 * but the helpers came in 6.14 (module/probe/mm_lock_seqcount.c against
 * module/probe/mmap_lock_speculate.c); 6.1 and 5.10 have no such sequence
 * (no CONFIG_PER_VMA_LOCK), so there the answer is always "take the lock".
 * STACKINFO_HAVE_LOCKFREE and STACKINFO_LOCKFREE_HOW tell the module's
 * own files (main.c's parameter, the KUnit suites) which it is.
 */
#if IS_ENABLED(CONFIG_PER_VMA_LOCK) && \
	defined(STACKINFO_PROBE_MMAP_LOCK_SPECULATE)
#define STACKINFO_HAVE_LOCKFREE 1
#define STACKINFO_LOCKFREE_HOW "mmap_lock_speculate"
#elif IS_ENABLED(CONFIG_PER_VMA_LOCK) && \
	defined(STACKINFO_PROBE_MM_LOCK_SEQCOUNT)
#define STACKINFO_HAVE_LOCKFREE 1
#define STACKINFO_LOCKFREE_HOW "mm_lock_seq"
/* 7.2's raw_seqcount_try_begin() is this: odd means a writer is in. */
static inline bool mmap_lock_speculate_try_begin(struct mm_struct *mm,
						 unsigned int *seq)
{
	*seq = raw_read_seqcount(&mm->mm_lock_seq);
	return !(*seq & 1);
}

static inline bool mmap_lock_speculate_retry(struct mm_struct *mm,
					     unsigned int seq)
{
	return read_seqcount_retry(&mm->mm_lock_seq, seq);
}
#elif !defined(STACKINFO_PROBE_MMAP_LOCK_SPECULATE)
#define STACKINFO_HAVE_LOCKFREE 0
#define STACKINFO_LOCKFREE_HOW "none"
static inline bool mmap_lock_speculate_try_begin(struct mm_struct *mm,
						 unsigned int *seq)
{
	return false;
}

static inline bool mmap_lock_speculate_retry(struct mm_struct *mm,
					     unsigned int seq)
{
	return true;
}
#else
#define STACKINFO_HAVE_LOCKFREE 0
#define STACKINFO_LOCKFREE_HOW "none"
#endif

/*
 * vma_find(): 7.2 include/linux/mm.h:1628-1632 searches up to max - 1,
 * 6.1's (mm.h:687-691) up to max itself. Kbuild greps mm.h for 6.1's body:
 * STACKINFO_COMPAT_VMA_FIND_INCLUSIVE. Defined after mm.h, so 6.1's own
 * inline users of vma_find() (vma_next()) keep its meaning; its
 * for_each_vma_range(), which would not, the module does not use.
 */
#ifdef STACKINFO_COMPAT_VMA_FIND_INCLUSIVE
static inline struct vm_area_struct *
stackinfo_compat_vma_find(struct vma_iterator *vmi, unsigned long max)
{
	return mas_find(&vmi->mas, max - 1);
}

#define vma_find stackinfo_compat_vma_find
#endif

/*
 * The VMA iterator (7.2 include/linux/mm_types.h:1534-1548, mm.h:1628-
 * 1653): 5.10 has no maple tree; its VMAs are an rbtree and a list
 * (include/linux/mm.h:2668 find_vma(), mm_types.h:315 vm_prev) that only
 * mmap_lock makes safe to read. There is no lock-free look on 5.10
 * (STACKINFO_HAVE_LOCKFREE is 0 without CONFIG_PER_VMA_LOCK), so every
 * walk holds mmap_lock, which these assert. The subset the module uses:
 * VMA_ITERATOR(), vma_iter_init(), vma_find(), and vma_prev() after a
 * vma_find() that found a VMA. Kbuild: STACKINFO_COMPAT_NO_MAPLE_TREE
 * when mm_types.h has no mm_mt.
 */
#ifdef STACKINFO_COMPAT_NO_MAPLE_TREE
struct vma_iterator {
	struct mm_struct *mm;
	unsigned long index;
	struct vm_area_struct *vma;
};

#define VMA_ITERATOR(name, __mm, __addr) \
	struct vma_iterator name = { .mm = (__mm), .index = (__addr) }

static inline void vma_iter_init(struct vma_iterator *vmi,
				 struct mm_struct *mm, unsigned long addr)
{
	vmi->mm = mm;
	vmi->index = addr;
	vmi->vma = NULL;
}

/* The first VMA at or above the iterator's index that starts below max. */
static inline struct vm_area_struct *vma_find(struct vma_iterator *vmi,
					      unsigned long max)
{
	struct vm_area_struct *vma;

	mmap_assert_locked(vmi->mm);
	vma = find_vma(vmi->mm, vmi->index);
	if (vma && vma->vm_start >= max)
		vma = NULL;
	vmi->vma = vma;
	if (vma)
		vmi->index = vma->vm_end;
	return vma;
}

/* The VMA below the one vma_find() last found (NULL if it found none). */
static inline struct vm_area_struct *vma_prev(struct vma_iterator *vmi)
{
	mmap_assert_locked(vmi->mm);
	WARN_ON_ONCE(!vmi->vma);
	if (!vmi->vma)
		return NULL;
	vmi->vma = vmi->vma->vm_prev;
	if (vmi->vma)
		vmi->index = vmi->vma->vm_start;
	return vmi->vma;
}
#endif

/*
 * file_open_root(): 7.2 fs/open.c:1347 takes a struct path; 5.10's
 * (include/linux/fs.h:2632) the dentry and the mount. Kbuild:
 * STACKINFO_COMPAT_FILE_OPEN_ROOT_DENTRY. (A macro's own name is not
 * expanded again: the inner call is 5.10's function.)
 */
#ifdef STACKINFO_COMPAT_FILE_OPEN_ROOT_DENTRY
#define file_open_root(root, name, flags, mode) \
	file_open_root((root)->dentry, (root)->mnt, name, flags, mode)
#endif

/*
 * rw_verify_area(): what vfs_read() checks before a read, the LSMs'
 * file_permission hook and fsnotify's permission event; 7.2 declares it
 * in include/linux/fs.h:3109 and exports it. 5.10 has it in fs/internal.h
 * only, and exports neither it nor security_file_permission(): there a
 * read asks only what the open asked (security_file_open()) and what the
 * file's own read asks (lock_trace()'s ptrace_may_access() for syscall).
 * Kbuild: STACKINFO_COMPAT_NO_RW_VERIFY_AREA.
 */
#ifdef STACKINFO_COMPAT_NO_RW_VERIFY_AREA
static inline int rw_verify_area(int read_write, struct file *file,
				 const loff_t *ppos, size_t count)
{
	return 0;
}
#endif

/*
 * next_arg(): 7.2 lib/cmdline.c:237, exported; 5.10 declares it
 * (include/linux/kernel.h:364) but lib/cmdline.c does not export it
 * (its only exports: get_option, get_options, memparse). The same split
 * of one boot parameter off @args: an optional leading quote that lets
 * the parameter hold spaces, "param=val" split at the first '=' past the
 * first character, a quote around the value and the closing quote of the
 * whole dropped, trailing spaces skipped. Kbuild:
 * STACKINFO_COMPAT_NO_NEXT_ARG when Module.symvers lacks it.
 * kunit/main_test.c's command lines pin next_arg()'s use where KUnit runs
 * (6.1 on); 5.10's guest boots with a quoted stack_guard_gap that the
 * guard_gap test holds against the kernel's own parse.
 */
#ifdef STACKINFO_COMPAT_NO_NEXT_ARG
static inline char *stackinfo_compat_next_arg(char *args, char **param,
					      char **val)
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

#define next_arg stackinfo_compat_next_arg
#endif

/*
 * ITER_DEST: 7.2 include/linux/uio.h names the direction of a read
 * (6.1.y has it too); 5.10's uio.h does not, and READ meant the same.
 */
#ifndef ITER_DEST
#define ITER_DEST READ
#endif

/*
 * task_exec_state_get_dumpable(): 7.2 kernel/exec_state.c:104-111, a
 * process's dumpability (include/linux/sched/coredump.h:10-14), kept in
 * task->exec_state (include/linux/sched.h:974,
 * include/linux/sched/exec_state.h:12-17), which CLONE_VM sharers share
 * and exec replaces under exec_update_lock and task_lock(); not exported
 * (7.2's Module.symvers), so the same read under RCU is made here. Before
 * 7.2 the mode is in the mm's flags, get_dumpable() (6.12 and 6.1
 * include/linux/sched/coredump.h:29-32, 5.10 the same), and
 * TASK_DUMPABLE_OWNER is SUID_DUMP_USER (coredump.h:8); a task without an
 * mm reads as TASK_DUMPABLE_OFF here. Kbuild:
 * STACKINFO_COMPAT_DUMPABLE_IN_MM (no TASK_DUMPABLE_OWNER in coredump.h),
 * STACKINFO_COMPAT_NO_GET_DUMPABLE (not in Module.symvers).
 */
#ifdef STACKINFO_COMPAT_DUMPABLE_IN_MM
#define TASK_DUMPABLE_OFF 0
#define TASK_DUMPABLE_OWNER SUID_DUMP_USER
static inline int stackinfo_compat_get_dumpable(struct task_struct *task)
{
	int dumpable = TASK_DUMPABLE_OFF;

	task_lock(task);
	if (task->mm)
		dumpable = get_dumpable(task->mm);
	task_unlock(task);
	return dumpable;
}
#define task_exec_state_get_dumpable stackinfo_compat_get_dumpable
#elif defined(STACKINFO_COMPAT_NO_GET_DUMPABLE)
#include <linux/sched/exec_state.h>
static inline enum task_dumpable
stackinfo_compat_get_dumpable(struct task_struct *task)
{
	enum task_dumpable dumpable;

	rcu_read_lock();
	dumpable = READ_ONCE(rcu_dereference(task->exec_state)->dumpable);
	rcu_read_unlock();
	return dumpable;
}
#define task_exec_state_get_dumpable stackinfo_compat_get_dumpable
#endif

/*
 * MODULE_IMPORT_NS() takes a string since 6.13 and a bare name before
 * (Kbuild probes module.h: STACKINFO_IMPORT_NS_STRING).
 */
#ifdef STACKINFO_IMPORT_NS_STRING
#define STACKINFO_IMPORT_NS_KUNIT() \
	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define STACKINFO_IMPORT_NS_KUNIT() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

#endif /* _STACKINFO_COMPAT_H */
