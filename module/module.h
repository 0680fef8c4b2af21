/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: what only the module's own files share: its init, its
 * /proc/stackinfo, and the access policy's parts that ask the kernel
 * (access.c, grant.c). The in-kernel /proc/<pid>/stackinfo has none of
 * this; its policy is procfs's (kernel/proc/stackinfo.c).
 */
#ifndef _STACKINFO_MODULE_H
#define _STACKINFO_MODULE_H

#include <linux/kernel.h>
#include <linux/fs.h>
#include <linux/path.h>
#include <linux/types.h>

#include "stackinfo.h"

struct cred;
struct mm_struct;
struct task_struct;

/*
 * The kernel's last "yes" to a thread's maps in a call (grant.c): the
 * credentials that thread had, the caller's when it asked, and the mm the
 * answer was about. Each referenced (mmgrab() for the mm), so that no
 * address names another cred or mm while kept. Never an answer about the
 * SP: that is asked thread by thread.
 */
struct stackinfo_asked {
	const struct cred *cred; /* NULL: nothing yet */
	const struct cred *asker; /* current_cred() when it was asked */
	struct mm_struct *mm;
};

/*
 * What the kernel itself grants @c about @task beyond @have, what the
 * module has already (STACKINFO_GRANT_NONE, or NO_SP: then only the SP is
 * asked), when the module's own look (stackinfo_grant()) and the call's
 * memo say less than asked: stackinfo_kernel_grant() asks procfs.
 */
typedef int (*stackinfo_ask_fn)(const struct stackinfo_caller *c,
				struct task_struct *task, bool want_sp,
				enum stackinfo_grant have, pid_t *nr);

/*
 * Who asks the module, with which proof: stackinfo_caller_get() (access.c)
 * fills it; its file operations give it the room (procfs.c).
 */
struct stackinfo_module_caller {
	struct stackinfo_caller c;
	struct path proc_root; /* c.file's mount's root (pinned by c.file) */
	struct file *proof; /* a referenced proof fd, or NULL */
	struct mm_struct *proof_mm; /* its mm (kept by the open file) */
	/*
	 * The kernel's last "yes" to maps: a batch of one process opens maps
	 * once, not once a thread (grant.c); stackinfo_caller_put() drops it.
	 */
	struct stackinfo_asked asked;
	/*
	 * c.file is not on the whole of a /proc mount (a bind mount of the
	 * file alone): it has no <tid> directories to ask the kernel with,
	 * and its mount's pid namespace knows nothing of hidepid. A tid that
	 * names no thread of the caller's process is refused (-EACCES)
	 * whether it names another process's thread or none; only a proof fd
	 * may grant another process's thread there.
	 */
	bool blind;
	stackinfo_ask_fn ask_kernel; /* NULL: stackinfo_grant() is final */
};

static inline struct stackinfo_module_caller *
stackinfo_mc(const struct stackinfo_caller *c)
{
	/*
	 * Every caller the module's policy sees is in its own struct, which
	 * its file operations give the core. The core passes it as const;
	 * the memo (asked) is the call's scratch all the same, which grant.c
	 * writes through the pointer returned here.
	 */
	return container_of((struct stackinfo_caller *)c,
			    struct stackinfo_module_caller, c);
}

/* access.c: the proof fds and the kernel asked as the caller */
int stackinfo_access_init(void);
int stackinfo_caller_set_proof(struct stackinfo_caller *c, struct file *proof);
int stackinfo_kernel_grant(const struct stackinfo_caller *c,
			   struct task_struct *task, bool want_sp,
			   enum stackinfo_grant have, pid_t *nr);
bool stackinfo_proof_fds_work(void);

/* grant.c: drop what the kernel's last answer kept */
void stackinfo_forget(struct stackinfo_asked *a);

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
