// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/stackinfo and /proc/<pid>/task/<tid>/stackinfo: where a
 * thread's stack is, from task data (Documentation/filesystems/proc.rst).
 * The text and the ioctls are stackinfo_abi.c's, the answer
 * stackinfo_query.c's; here are the files and who may read them.
 *
 * Exactly what the neighbours grant. Opening the file takes what opening
 * /proc/<pid>/maps takes: proc_mem_open() with PTRACE_MODE_READ and the
 * opener's fs credentials. The open file then stands for that check, as
 * an open maps does (and as PROCMAP_QUERY relies on): the VMAs, rlimits
 * and counts of the file's process, for as long as the process has the
 * mm the open was granted for; an exec gives it another, and the file
 * answers -EACCES from then on. The SP is what /proc/<pid>/syscall shows:
 * it goes to whoever passes lock_trace()'s check at the time of the read
 * or the ioctl (PTRACE_MODE_ATTACH_FSCREDS, under exec_update_lock, which
 * the query core holds for another process's thread); to anyone else the
 * answer comes without it.
 *
 * The ioctls answer about the threads of the file's process only: tid 0
 * is the file's thread, pid 0 its process. There is no proof fd to pass:
 * STACKINFO_QUERY_PROOF_FD is -EINVAL here.
 */
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/threads.h>

#include "internal.h"
#include "stackinfo.h"

/* The kernel's own: set before any file can be opened. */
unsigned long stackinfo_guard_gap;
bool stackinfo_guard_gap_known;

/*
 * Who asks through @file, an open stackinfo file: its thread (referenced),
 * the pid namespace of its /proc mount, and the mm its open was granted
 * for (kept by the open, mmgrab(); NULL when the thread had none: a
 * kernel thread, or one that had exited). stackinfo_caller_put() undoes it.
 */
int stackinfo_caller_get(struct stackinfo_caller *c, const struct file *file,
			 bool want_proof, int proof_fd)
{
	/* the open's mm (mmgrab()), kept by @file, which the caller holds */
	const struct mm_struct *open_mm = file->private_data;

	memset(c, 0, sizeof(*c));
	/* the open stands for the proof: there is nothing else to prove */
	if (want_proof)
		return -EINVAL;
	c->file_task = get_proc_task(file_inode(file));
	if (!c->file_task)
		return -ESRCH;
	/*
	 * The caller's own process does not pass through stackinfo_grant()
	 * (its threads are its own): its mm differs from the open's only when
	 * it has exec'd since, with the fd inherited, and the open was for
	 * the old image.
	 */
	if (open_mm && current->mm != open_mm &&
	    same_thread_group(current, c->file_task)) {
		put_task_struct(c->file_task);
		c->file_task = NULL;
		return -EACCES;
	}
	c->file = file;
	c->ns = proc_pid_ns(file_inode(file)->i_sb);
	return 0;
}

void stackinfo_caller_put(struct stackinfo_caller *c)
{
	if (c->file_task)
		put_task_struct(c->file_task);
	c->file_task = NULL;
}

/* Thread @tid of the file's process, referenced, or ERR_PTR(-ESRCH). */
struct task_struct *stackinfo_get_task(const struct stackinfo_caller *c,
				       pid_t tid)
{
	struct task_struct *task;

	if (tid <= 0 || tid > PID_MAX_LIMIT)
		return ERR_PTR(-ESRCH);
	rcu_read_lock();
	task = pid_task(find_pid_ns(tid, c->ns), PIDTYPE_PID);
	if (task && !same_thread_group(task, c->file_task))
		task = NULL;
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task ?: ERR_PTR(-ESRCH);
}

/*
 * What @c may learn about @task, a thread of the file's process whose mm
 * is @mm (NULL when it has none): everything but the SP while @mm is the
 * one the open was granted for, and the SP too for whoever passes
 * syscall's check. With no mm there is nothing to see but that (a kernel
 * thread, or an exited one), which the open granted. The query core holds
 * @task's exec_update_lock when @task is another process's (as
 * lock_trace() does), so that the check and @mm are about one image. The
 * file is 0444 and an answer without the SP its ordinary outcome, so a
 * refusal is not audited (as /proc/<pid>/stat's fields are not).
 */
enum stackinfo_grant stackinfo_grant(const struct stackinfo_caller *c,
				     struct task_struct *task,
				     struct mm_struct *mm)
{
	/* c->file: pinned by the read's or the ioctl's own reference */
	const struct mm_struct *open_mm = c->file->private_data;

	if (!mm)
		return STACKINFO_GRANT_NO_SP;
	/* the open's mm, kept by the open file (mmgrab()) */
	if (mm != open_mm)
		return STACKINFO_GRANT_NONE;
	if (ptrace_may_access(task, PTRACE_MODE_ATTACH_FSCREDS |
					    PTRACE_MODE_NOAUDIT))
		return STACKINFO_GRANT_ALL;
	return STACKINFO_GRANT_NO_SP;
}

/*
 * @task is a thread of the file's process, which is not the caller's
 * (stackinfo_get_task() finds no other): its mm, SP and grant, read under
 * its exec_update_lock, which is returned held (as lock_trace() holds it)
 * so that the check and @mm are about one image.
 */
int stackinfo_lock_target(const struct stackinfo_caller *c,
			  struct task_struct *task, bool want_sp,
			  struct stackinfo_target *t, struct mm_struct **mmp,
			  enum stackinfo_grant *grantp)
{
	/* task->signal: pinned by the caller's reference on @task */
	int err = down_read_killable(&task->signal->exec_update_lock);

	if (err)
		return err;
	*mmp = stackinfo_task_mm(task, t);
	*grantp = stackinfo_grant(c, task, *mmp);
	return 0;
}

/*
 * Before the batch counts @task's threads: the file's process as the open
 * found it, judged by its first thread that still has an mm; none left,
 * and there is no stack to report. *@image is that mm (mmgrab(), which the
 * batch drops), the image it counts and answers about: an exec after this
 * gives the process another mm, and the open's grant with it is gone.
 */
int stackinfo_process_grant(const struct stackinfo_caller *c,
			    struct task_struct *task, struct mm_struct **image)
{
	struct task_struct *with_mm;
	enum stackinfo_grant grant;
	struct mm_struct *mm;
	int err;

	*image = NULL;
	if (same_thread_group(task, current))
		return 0;
	err = stackinfo_process_look(c, task, &with_mm, &mm, &grant);
	if (err)
		return err;
	if (grant == STACKINFO_GRANT_NONE)
		err = -EACCES;
	else if (!with_mm)
		err = (task->flags & PF_KTHREAD) ? -ENOENT : -ESRCH;
	if (!err) {
		mmgrab(mm);
		*image = mm;
	}
	stackinfo_process_look_put(with_mm, mm);
	return err;
}

/* The query core fills the caller in room its callers give it. */
static ssize_t proc_stackinfo_read_iter(struct kiocb *iocb,
					struct iov_iter *to)
{
	struct stackinfo_caller c;

	return stackinfo_read_iter(&c, iocb, to);
}

static long proc_stackinfo_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	struct stackinfo_caller c;

	return stackinfo_ioctl(&c, file, cmd, arg);
}

#ifdef CONFIG_COMPAT
static long proc_stackinfo_compat_ioctl(struct file *file, unsigned int cmd,
					unsigned long arg)
{
	struct stackinfo_caller c;

	return stackinfo_compat_ioctl(&c, file, cmd, arg);
}
#endif

/* The open's grant: its mm, kept (mmgrab()) until the release. */
static int proc_stackinfo_open(struct inode *inode, struct file *file)
{
	struct mm_struct *mm = proc_mem_open(inode, PTRACE_MODE_READ);

	if (IS_ERR(mm))
		return PTR_ERR(mm);
	file->private_data = mm;
	return 0;
}

static int proc_stackinfo_release(struct inode *inode, struct file *file)
{
	struct mm_struct *mm = file->private_data;

	if (mm)
		mmdrop(mm);
	return 0;
}

/* The text is made at each read (stackinfo_abi.c): nothing is buffered. */
const struct file_operations proc_pid_stackinfo_operations = {
	.open		= proc_stackinfo_open,
	.read_iter	= proc_stackinfo_read_iter,
	.splice_read	= copy_splice_read,
	.llseek		= generic_file_llseek,
	.release	= proc_stackinfo_release,
	.unlocked_ioctl	= proc_stackinfo_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= proc_stackinfo_compat_ioctl,
#endif
};

static int __init proc_stackinfo_init(void)
{
	/* early_param("stack_guard_gap") has run: it is fixed from here on */
	stackinfo_guard_gap = stack_guard_gap;
	stackinfo_guard_gap_known = true;
	return 0;
}
fs_initcall(proc_stackinfo_init);
