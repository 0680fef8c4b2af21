/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: what only the module's own files share: its init, its
 * /proc/stackinfo, and the access policy's parts that ask the kernel
 * (access.c, grant.c). The in-kernel /proc/<pid>/stackinfo has none of
 * this; its policy is procfs's (kernel/proc/stackinfo.c).
 */
#ifndef _STACKINFO_MODULE_H
#define _STACKINFO_MODULE_H

#include <linux/fs.h>
#include <linux/types.h>

struct stackinfo_caller;
struct task_struct;

/* access.c: the proof fds and the kernel asked as the caller */
int stackinfo_access_init(void);
int stackinfo_caller_set_proof(struct stackinfo_caller *c, struct file *proof);
int stackinfo_kernel_grant(const struct stackinfo_caller *c,
			   struct task_struct *task, bool want_sp, pid_t *nr);
bool stackinfo_proof_fds_work(void);

/* procfs.c: /proc/stackinfo and its ioctl */
int stackinfo_procfs_init(void);
void stackinfo_procfs_exit(void);

/*
 * main.c: an error at init that says nothing about the kernel (no memory,
 * a fatal signal): the load fails with it
 */
bool stackinfo_init_transient(long err);

#if IS_ENABLED(CONFIG_KUNIT)
/* Static unless kunit/ needs to reach them (VISIBLE_IF_KUNIT). */
extern bool stackinfo_allow_cap_sys_ptrace;
const struct file_operations *stackinfo_learn_proof_fops(const char *path);
unsigned long stackinfo_guard_gap_from_cmdline(char *cmdline);
#endif

#endif /* _STACKINFO_MODULE_H */
