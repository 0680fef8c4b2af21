// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: the module's grants about another process, where its own
 * look (stackinfo_grant(), access.c) says less than asked: the kernel is
 * asked (ask_kernel: stackinfo_kernel_grant(), which opens procfs's
 * files as the caller), with no lock held, and its answer is tied to the
 * image it was about. The in-kernel /proc/<pid>/stackinfo needs none of
 * this: its open is the kernel's check (kernel/proc/stackinfo.c).
 */
#include <linux/cred.h>
#include <linux/minmax.h>
#include <linux/pid.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <kunit/visibility.h>

#include "module.h"
#include "stackinfo.h"

/* Looks at another process that an exec keeps spoiling give up after this. */
#define STACKINFO_EXEC_TRIES 4

/*
 * A call keeps the kernel's last answer (stackinfo_module_caller's
 * asked) with the credentials it was about, those it was asked with
 * (the opens are the caller's: current_cred(), which an override changes
 * within a call) and whether the SP was asked (an answer without it says
 * nothing of the SP): ptrace_may_access() and maps' open judge a thread by its
 * credentials, its mm (one for the whole process) and its thread group,
 * so a thread whose real_cred is that very cred gets the very answer, and
 * a batch of one process asks the kernel once, not twice a thread (every
 * open kept until the ioctl returns, as fput() defers). Only a grant about
 * a live mm is kept: stackinfo_kernel_grant() gives none about a thread
 * without one (a zombie leader's maps opens for anyone), and the thread
 * must still have its mm under the lock afterwards. The references on
 * the remembered creds keep their addresses from naming other credentials;
 * credentials are never changed in place, and exec installs new ones.
 * Under exec_update_lock.
 */
static bool stackinfo_asked_before(const struct stackinfo_caller *c,
				   struct task_struct *task, bool want_sp,
				   int *grant)
{
	const struct stackinfo_asked *a = &stackinfo_mc(c)->asked;

	/* an answer without the SP's question says nothing of the SP */
	if (!a->cred || rcu_access_pointer(task->real_cred) != a->cred ||
	    a->asker != current_cred() || (want_sp && !a->want_sp))
		return false;
	*grant = a->grant;
	return true;
}

void stackinfo_forget(struct stackinfo_asked *a)
{
	if (a->cred)
		put_cred(a->cred);
	if (a->asker)
		put_cred(a->asker);
	a->cred = NULL;
	a->asker = NULL;
}

/*
 * Remember @grant, the kernel's answer about @task (about its SP too if
 * @want_sp), whose credentials were @cred (referenced) when it was asked:
 * if they still are, the memo takes references of its own to them and to
 * the caller's. Under exec_update_lock.
 */
static void stackinfo_remember(const struct stackinfo_caller *c,
			       struct task_struct *task,
			       const struct cred *cred, bool want_sp, int grant)
{
	struct stackinfo_asked *a = &stackinfo_mc(c)->asked;

	if (!cred || rcu_access_pointer(task->real_cred) != cred)
		return;
	stackinfo_forget(a);
	a->cred = get_cred(cred);
	a->asker = get_current_cred();
	a->want_sp = want_sp;
	a->grant = grant;
}

/* Is @task the image and the number @exec_id and @nr were read from? */
static bool stackinfo_still(const struct stackinfo_caller *c,
			    struct task_struct *task, u64 exec_id, pid_t nr)
{
	return READ_ONCE(task->self_exec_id) == exec_id &&
	       task_pid_nr_ns(task, c->ns) == nr;
}

/*
 * The module's stackinfo_lock_target(): what the module sees for itself (a
 * proof fd for this mm, the caller's own capability) is decided under the
 * lock; where the kernel must be asked, it is asked with no lock held,
 * and the lock taken again must find the task's self_exec_id as it was
 * before the question (exec changes it under that lock, between its new
 * mm and its new credentials), or the question is asked again. A refusal
 * of the kernel's (-ESRCH for a number that names no thread there) is the
 * answer when nothing else grants.
 */
int stackinfo_lock_target(const struct stackinfo_caller *c,
			  struct task_struct *task, bool want_sp,
			  struct stackinfo_target *t, struct mm_struct **mmp,
			  enum stackinfo_grant *grantp)
{
	/* pinned by the caller's reference on @task, as task->signal is */
	struct rw_semaphore *exec_lock = &task->signal->exec_update_lock;
	stackinfo_ask_fn ask_kernel = stackinfo_mc(c)->ask_kernel;
	enum stackinfo_grant need, grant;
	int asked = STACKINFO_GRANT_NONE;
	const struct cred *cred = NULL;
	struct mm_struct *mm;
	unsigned int tries;
	u64 exec_id = 0;
	pid_t nr = 0;
	int err;

	need = want_sp ? STACKINFO_GRANT_ALL : STACKINFO_GRANT_NO_SP;
	for (tries = 0;; tries++) {
		err = down_read_killable(exec_lock);
		if (err)
			goto out_cred;
		mm = stackinfo_task_mm(task, t);
		/* the policy may ask LSMs (capable()): no spinlock held */
		grant = stackinfo_grant(c, task, mm);
		if (grant >= need || !ask_kernel)
			break;
		/* the call asked the kernel already about these credentials */
		if (!tries &&
		    stackinfo_asked_before(c, task, want_sp, &asked)) {
			grant = max_t(int, grant, asked);
			break;
		}
		/*
		 * The kernel's answer holds if it was about this task and this
		 * image: no exec since it was asked, and the number it looked
		 * up still this task's (a task never gets a lost number back).
		 */
		if (tries &&
		    (asked < 0 || stackinfo_still(c, task, exec_id, nr))) {
			/* only a grant about a live mm is worth remembering */
			if (asked >= 0 && mm)
				stackinfo_remember(c, task, cred, want_sp,
						   asked);
			grant = max_t(int, grant, asked);
			break;
		}
		exec_id = READ_ONCE(task->self_exec_id);
		up_read(exec_lock);
		if (mm)
			mmput(mm);
		if (tries == STACKINFO_EXEC_TRIES) {
			err = -EAGAIN;
			goto out_cred;
		}
		if (!cred)
			cred = get_task_cred(task);
		asked = ask_kernel(c, task, want_sp, &nr);
		/*
		 * Only a refusal leaves the grant as it was (a proof's): any
		 * other failure of the check (-EINTR, -ENOMEM) is the answer.
		 */
		if (asked < 0 && asked != -EACCES && asked != -ESRCH) {
			err = asked;
			goto out_cred;
		}
	}
	if (cred)
		put_cred(cred);
	if (grant == STACKINFO_GRANT_NONE && asked < 0) {
		up_read(exec_lock);
		if (mm)
			mmput(mm);
		return asked;
	}
	*mmp = mm;
	*grantp = grant;
	return 0;

out_cred:
	if (cred)
		put_cred(cred);
	return err;
}

/*
 * Does @t still have @mm and the number @nr the kernel was asked by? Then
 * it had them all along (a task never gets back a lost mm or number), and
 * the kernel's answer was about @mm. @mm is pinned by the caller (mmget),
 * @t by its reference; under exec_update_lock, which exec_mmap() takes to
 * change @t's mm.
 */
static bool stackinfo_still_has(const struct stackinfo_caller *c,
				struct task_struct *t, struct mm_struct *mm,
				pid_t nr)
{
	bool same;

	task_lock(t);
	same = t->mm == mm;
	task_unlock(t);
	return same && task_pid_nr_ns(t, c->ns) == nr;
}

/*
 * May @c learn anything about the process @task belongs to? 0, or the
 * refusal: the batch ioctl asks this before it counts threads. It asks
 * about the first thread that still has an mm (the leader may have
 * exited): a proof fd is compared with that mm, and the kernel is asked
 * about that thread, which is referenced while it is asked. The kernel's
 * "yes" is a grant only if that thread still has that mm and number under
 * exec_update_lock afterwards; when it lost either meanwhile (it exited,
 * or exec'd), the next thread with an mm is asked, four times at most
 * (-EAGAIN). Each thread's answer is then granted on its own
 * (stackinfo_query_task()).
 */
int stackinfo_process_grant(const struct stackinfo_caller *c,
			    struct task_struct *task)
{
	/* pinned by the reference on @task, as task->signal is */
	struct rw_semaphore *exec_lock = &task->signal->exec_update_lock;
	stackinfo_ask_fn ask_kernel = stackinfo_mc(c)->ask_kernel;
	struct task_struct *with_mm;
	enum stackinfo_grant grant;
	struct mm_struct *mm;
	unsigned int tries;
	int err = -ESRCH;
	bool retry;
	pid_t nr;

	if (same_thread_group(task, current))
		return 0;
	for (tries = 0; tries < STACKINFO_EXEC_TRIES; tries++) {
		err = stackinfo_process_look(c, task, &with_mm, &mm, &grant);
		if (err)
			return err;
		if (grant != STACKINFO_GRANT_NONE)
			err = 0;
		else if (ask_kernel)
			err = ask_kernel(c, with_mm ?: task, false, &nr);
		else
			err = -EACCES;
		/* allowed to know: no user stack anywhere in it */
		if (err >= 0 && !with_mm)
			err = (task->flags & PF_KTHREAD) ? -ENOENT : -ESRCH;
		/* the kernel's yes: about the mm @with_mm had when picked? */
		if (err >= 0 && grant == STACKINFO_GRANT_NONE) {
			err = down_read_killable(exec_lock);
			if (!err) {
				if (!stackinfo_still_has(c, with_mm, mm, nr))
					err = -EAGAIN;
				up_read(exec_lock);
			}
		}
		/* the thread asked about exited, or exec'd: ask the next */
		retry = with_mm && (err == -ESRCH || err == -EAGAIN);
		stackinfo_process_look_put(with_mm, mm);
		if (!retry)
			break;
	}
	return err < 0 ? err : 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_process_grant);
