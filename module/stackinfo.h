/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: what the module's files share. Only module code includes this.
 */
#ifndef _STACKINFO_INTERNAL_H
#define _STACKINFO_INTERNAL_H

#include <linux/kconfig.h>
#include <linux/types.h>
#include <uapi/linux/stackinfo.h>

struct file;
struct mm_struct;
struct seq_file;
struct task_struct;

/* One VMA as the query reports it; prev_end is 0 when nothing is below. */
struct stackinfo_vma {
	unsigned long start;
	unsigned long end;
	u64 flags;			/* STACKINFO_VMA_* */
	unsigned long prev_end;
	unsigned long guard_start;	/* PROT_NONE VMA ending at start */
	unsigned long guard_end;
	bool found;
	bool has_prev;
	bool has_guard;
};

/* query.c: the answer from task data */
int stackinfo_query(const struct file *file, struct stackinfo_query *q);
int stackinfo_thread_tids(pid_t pid, pid_t *tids, u32 cap, u32 *nr);
int stackinfo_vma_at(struct mm_struct *mm, unsigned long addr,
		     struct stackinfo_vma *out);
u64 stackinfo_vma_flags(unsigned long vm_flags);

/* access.c: who may ask about whom */
int stackinfo_may_access(const struct file *file, struct task_struct *task,
			 struct mm_struct *mm);

/* procfs.c: /proc/stackinfo and its ioctl */
int stackinfo_procfs_init(void);
void stackinfo_procfs_exit(void);

/* main.c: the kernel's stack_guard_gap, which modules cannot read */
extern unsigned long stackinfo_guard_gap;
extern bool stackinfo_guard_gap_known;

#if IS_ENABLED(CONFIG_KUNIT)
/* Static unless kunit/ needs to reach them (VISIBLE_IF_KUNIT). */
int stackinfo_ioctl_query(const struct file *file,
			  struct stackinfo_query __user *uarg);
int stackinfo_ioctl_threads(const struct file *file,
			    struct stackinfo_threads __user *uarg);
void stackinfo_show_query(struct seq_file *m, const struct stackinfo_query *q);
unsigned long stackinfo_guard_gap_from_cmdline(char *cmdline);
#endif

#endif /* _STACKINFO_INTERNAL_H */
