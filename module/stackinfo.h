/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: what its files share: the query core (query.c), the user
 * interface (abi.c) and the access policy, which is the module's (access.c)
 * or, in the kernel's own /proc/<pid>/stackinfo, procfs's. Only stackinfo
 * code includes this.
 */
#ifndef _STACKINFO_INTERNAL_H
#define _STACKINFO_INTERNAL_H

#include <linux/fs.h>
#include <linux/kconfig.h>
#include <linux/types.h>
#include <uapi/linux/stackinfo.h>

struct file;
struct iov_iter;
struct kiocb;
struct mm_struct;
struct pid_namespace;
struct rlimit;
struct task_struct;

/* The text's room: the longest text (abi.c adds it up) and a little more. */
#define STACKINFO_TEXT_MAX	512

/* One VMA as the query reports it; prev_end is 0 when nothing is below. */
struct stackinfo_vma {
	unsigned long start;
	unsigned long end;
	u64 flags; /* STACKINFO_VMA_* */
	unsigned long prev_end;
	unsigned long guard_start; /* PROT_NONE VMA ending at start */
	unsigned long guard_end;
	bool found;
	bool has_prev;
	bool has_guard;
};

/*
 * What one look finds about an address: the VMA holding it or the first
 * above it, the VMA below that one and the one above it (raw vm_flags).
 */
struct stackinfo_addr {
	unsigned long start;
	unsigned long end;
	unsigned long vm_flags;
	unsigned long pgoff;
	unsigned long prev_end;
	unsigned long prev_flags;
	unsigned long next_start;
	unsigned long next_flags;
	bool found;
	bool has_prev;
	bool has_next;
};

/*
 * What one look at an mm finds, all from one moment of it (query.c).
 * addr and want_addr are in: set before the look, kept by it.
 */
struct stackinfo_look {
	unsigned long addr;
	bool want_addr;
	struct stackinfo_addr at; /* about addr, if wanted */
	unsigned long start_stack;
	int map_count;
	struct stackinfo_vma main_vma; /* maps' [stack]: holds start_stack or ends there */
	struct stackinfo_vma sp_vma; /* the VMA holding the SP, if asked */
};

/* What the access policy grants about one thread. */
enum stackinfo_grant {
	STACKINFO_GRANT_NONE,
	STACKINFO_GRANT_NO_SP, /* VMAs, rlimits, counts: /proc/<pid>/maps */
	STACKINFO_GRANT_ALL, /* and the SP: /proc/<pid>/syscall */
};

/*
 * Who asks, through which file: filled in by stackinfo_caller_get() of the
 * policy in use, into room the file's operations give it (the policy's
 * own struct may hold this one and more: the module's does).
 */
struct stackinfo_caller {
	const struct file *file; /* the file asked through; may be NULL */
	struct pid_namespace *ns; /* tids are numbers here */
	/*
	 * The thread a /proc/<pid>/stackinfo file is about (referenced):
	 * tid 0 and pid 0 name it, and only its process is answered about.
	 * NULL for /proc/stackinfo: tid 0 is the caller, any process may be
	 * asked about.
	 */
	struct task_struct *file_task;
	/*
	 * The batch's: the mm of the image its process check was about
	 * (kept by abi.c, mmgrab()); a thread with another mm is of another
	 * image and left out. NULL for the caller's own process and for a
	 * query of one thread.
	 */
	struct mm_struct *image;
};

/*
 * What a query holds while it looks. For the caller itself it takes no
 * reference: its task and mm cannot go away under its own system call.
 */
struct stackinfo_target {
	struct task_struct *task;
	struct mm_struct *mm;
	unsigned long sp;
	/* its sigaltstack, read with the SP: the image the grant was for */
	unsigned long ss_sp;
	size_t ss_size;
	unsigned int ss_flags;
	bool have_sp;
	bool sp_granted; /* the SP may be shown, had it one */
	bool self;
};

/* query.c: the answer from task data */
int stackinfo_query(const struct stackinfo_caller *c,
		    struct stackinfo_query *q);
int stackinfo_query_task(const struct stackinfo_caller *c,
			 struct task_struct *task, struct stackinfo_query *q);
struct mm_struct *stackinfo_task_mm(struct task_struct *task,
				    struct stackinfo_target *t);
int stackinfo_process_look(const struct stackinfo_caller *c,
			   struct task_struct *task,
			   struct task_struct **with_mm, struct mm_struct **mmp,
			   enum stackinfo_grant *grant);
void stackinfo_process_look_put(struct task_struct *with_mm,
				struct mm_struct *mm);
int stackinfo_threads_get(const struct stackinfo_caller *c,
			  struct task_struct *task, struct task_struct **tasks,
			  u32 cap, u32 *nr);
void stackinfo_threads_put(struct task_struct **tasks, u32 nr);
int stackinfo_vma_at(struct mm_struct *mm, unsigned long addr,
		     struct stackinfo_vma *out);
u64 stackinfo_vma_flags(unsigned long vm_flags);
extern bool stackinfo_lockfree;
unsigned long stackinfo_lockfree_count(bool hits);

/*
 * abi.c: the ioctls and the text, for any file that answers; @c is room
 * for the caller, which the policy's stackinfo_caller_get() fills
 */
long stackinfo_ioctl(struct stackinfo_caller *c, struct file *file,
		     unsigned int cmd, unsigned long arg);
long stackinfo_compat_ioctl(struct stackinfo_caller *c, struct file *file,
			    unsigned int cmd, unsigned long arg);
/* a read of the text, from the read's offset (under STACKINFO_TEXT_MAX) */
ssize_t stackinfo_read_iter(struct stackinfo_caller *c, struct kiocb *iocb,
			    struct iov_iter *to);

/* the access policy: who may ask about whom (the module's, or procfs's) */
int stackinfo_caller_get(struct stackinfo_caller *c, const struct file *file,
			 bool want_proof, int proof_fd);
void stackinfo_caller_put(struct stackinfo_caller *c);
/*
 * Thread @tid (not 0) of @c's pid namespace, referenced, if @c may ask
 * about it by number; else an ERR_PTR: -ESRCH, or the policy's refusal
 */
struct task_struct *stackinfo_get_task(const struct stackinfo_caller *c,
				       pid_t tid);
enum stackinfo_grant stackinfo_grant(const struct stackinfo_caller *c,
				     struct task_struct *task,
				     struct mm_struct *mm);
/*
 * Another process's thread: take @task's exec_update_lock for reading,
 * its mm into *@mmp and SP into @t (stackinfo_task_mm()), and what @c may
 * learn of them into *@grantp; 0 with the lock held (as lock_trace() holds
 * it), which the caller drops with stackinfo_unlock_target(), and the mm.
 * An error holds nothing.
 */
int stackinfo_lock_target(const struct stackinfo_caller *c,
			  struct task_struct *task, bool want_sp,
			  struct stackinfo_target *t, struct mm_struct **mmp,
			  enum stackinfo_grant *grantp);
void stackinfo_unlock_target(struct task_struct *task);
/*
 * May @c learn anything about @task's process? 0, or the refusal; on 0
 * *@image is the mm of the image the check was about (mmgrab(): the caller
 * drops it), NULL for the caller's own process.
 */
int stackinfo_process_grant(const struct stackinfo_caller *c,
			    struct task_struct *task, struct mm_struct **image);

/*
 * The kernel's stack_guard_gap: the module's main.c reads it off the
 * command line (modules cannot read the variable), procfs copies it
 */
extern unsigned long stackinfo_guard_gap;
extern bool stackinfo_guard_gap_known;

#if IS_ENABLED(CONFIG_KUNIT)
/* Static unless kunit/ needs to reach them (VISIBLE_IF_KUNIT). */
int stackinfo_ioctl_query(struct stackinfo_caller *c, const struct file *file,
			  struct stackinfo_query __user *uarg);
int stackinfo_ioctl_threads(struct stackinfo_caller *c,
			    const struct file *file,
			    struct stackinfo_threads __user *uarg);
size_t stackinfo_format(char *buf, const struct stackinfo_query *q);
bool stackinfo_look_lockless(struct mm_struct *mm, unsigned long sp,
			     bool have_sp, struct stackinfo_look *l,
			     void (*before_retry)(struct mm_struct *mm));
int stackinfo_look_locked(struct mm_struct *mm, unsigned long sp, bool have_sp,
			  struct stackinfo_look *l);
int stackinfo_rlimit_stack(struct task_struct *task, struct rlimit *rlim);
int stackinfo_look(struct mm_struct *mm, unsigned long sp, bool have_sp,
		   struct stackinfo_look *l,
		   void (*before_retry)(struct mm_struct *mm));
void stackinfo_classify(const struct stackinfo_look *l,
			struct stackinfo_query *q);
#endif

#endif /* _STACKINFO_INTERNAL_H */
