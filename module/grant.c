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
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <kunit/visibility.h>

#include "module.h"
#include "stackinfo.h"

/* Looks at another process that an exec keeps spoiling give up after this. */
#define STACKINFO_EXEC_TRIES 4

/*
 * A call keeps the kernel's last "yes" to a thread's maps (the grant of
 * VMAs, rlimits and counts), never its answer about the SP. maps' open
 * is mm_access() with PTRACE_MODE_READ_FSCREDS, and ptrace_may_access()
 * judges that mode by the caller's credentials, the thread's real_cred,
 * its thread group and its process's dumpability and user namespace; Yama
 * judges only PTRACE_MODE_ATTACH, and the other LSMs read the thread's
 * credentials. So the answer holds for another thread whose real_cred is
 * that very cred, whose mm is that very mm, asked by the very caller's
 * credentials (the opens are current_cred()'s, which an override changes
 * within a call), while the process is dumpable (a "yes" given while it
 * was not also holds once it is: dumpability only ever adds a refusal),
 * and a batch of one process opens maps once, not once a thread (every
 * open kept until the ioctl returns, as fput() defers). The SP is
 * syscall's (PTRACE_MODE_ATTACH): Yama decides it by the thread asked
 * about (ptracer_exception_found() reads its ptrace_parent()), by the
 * process's PR_SET_PTRACER and by ancestry, all of which change without a
 * new cred, so it is asked thread by thread. Only a grant about a live mm
 * is kept: stackinfo_kernel_grant() gives none about a thread without one
 * (a zombie leader's maps opens for anyone), and the thread must still
 * have its mm under the lock afterwards. The references keep the
 * addresses from naming other credentials or another mm; credentials are
 * never changed in place, and exec installs new ones. Under
 * exec_update_lock, @mm the thread's (stackinfo_task_mm()).
 */
static bool stackinfo_asked_before(const struct stackinfo_caller *c,
				   struct task_struct *task,
				   struct mm_struct *mm)
{
	const struct stackinfo_asked *a = &stackinfo_mc(c)->asked;

	return a->mm && a->mm == mm &&
	       rcu_access_pointer(task->real_cred) == a->cred &&
	       a->asker == current_cred() &&
	       task_exec_state_get_dumpable(task) == TASK_DUMPABLE_OWNER;
}

void stackinfo_forget(struct stackinfo_asked *a)
{
	if (a->cred)
		put_cred(a->cred);
	if (a->asker)
		put_cred(a->asker);
	if (a->mm)
		mmdrop(a->mm);
	a->cred = NULL;
	a->asker = NULL;
	a->mm = NULL;
}

/*
 * Remember the kernel's "yes" to the maps of @task, whose credentials were
 * @cred (referenced) when it was asked and whose mm is @mm (the caller
 * holds it): if they still are, the memo takes references of its own to
 * them and to the caller's credentials. Under exec_update_lock.
 */
static void stackinfo_remember(const struct stackinfo_caller *c,
			       struct task_struct *task,
			       const struct cred *cred, struct mm_struct *mm)
{
	struct stackinfo_asked *a = &stackinfo_mc(c)->asked;

	if (!cred || rcu_access_pointer(task->real_cred) != cred)
		return;
	stackinfo_forget(a);
	a->cred = get_cred(cred);
	a->asker = get_current_cred();
	mmgrab(mm);
	a->mm = mm;
}

/* Is @task the image and the number @exec_id and @nr were read from? */
static bool stackinfo_still(const struct stackinfo_caller *c,
			    struct task_struct *task, u64 exec_id, pid_t nr)
{
	return READ_ONCE(task->self_exec_id) == exec_id &&
	       task_pid_nr_ns(task, c->ns) == nr;
}

/*
 * What @c may learn about @task under the lock without asking the kernel
 * again: what the module sees for itself (stackinfo_grant()), and maps'
 * grant where the call's memo has it for this thread and @mm.
 */
static enum stackinfo_grant
stackinfo_grant_known(const struct stackinfo_caller *c,
		      struct task_struct *task, struct mm_struct *mm)
{
	enum stackinfo_grant grant = stackinfo_grant(c, task, mm);

	if (grant < STACKINFO_GRANT_NO_SP && mm &&
	    stackinfo_asked_before(c, task, mm))
		grant = STACKINFO_GRANT_NO_SP;
	return grant;
}

/*
 * The module's stackinfo_lock_target(): what the module knows (a proof fd
 * for this mm, the caller's own capability, the call's memo of maps) is
 * decided under the lock; where the kernel must be asked, it is asked with
 * no lock held, about what is not known yet (the SP alone, when maps'
 * grant is), and the lock taken again must find the task's self_exec_id
 * as it was before the question (exec changes it under that lock, between
 * its new mm and its new credentials) and what was known still known, or
 * the question is asked again. A refusal of the kernel's (-ESRCH for a
 * number that names no thread there) is the answer when nothing else
 * grants.
 */
int stackinfo_lock_target(const struct stackinfo_caller *c,
			  struct task_struct *task, bool want_sp,
			  struct stackinfo_target *t, struct mm_struct **mmp,
			  enum stackinfo_grant *grantp)
{
	/* pinned by the caller's reference on @task, as task->signal is */
	struct rw_semaphore *exec_lock = &task->signal->exec_update_lock;
	stackinfo_ask_fn ask_kernel = stackinfo_mc(c)->ask_kernel;
	enum stackinfo_grant need, grant, had = STACKINFO_GRANT_NONE;
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
		grant = ask_kernel ? stackinfo_grant_known(c, task, mm) :
				     stackinfo_grant(c, task, mm);
		if (grant >= need || !ask_kernel)
			break;
		/*
		 * The kernel's answer holds if it was about this task and this
		 * image (no exec since it was asked, and the number it looked
		 * up still this task's: a task never gets a lost number back),
		 * and if what it was asked on top of is still known.
		 */
		if (tries &&
		    (asked < 0 ||
		     (grant >= had && stackinfo_still(c, task, exec_id, nr)))) {
			/* maps' "yes", about a live mm: worth remembering */
			if (asked >= STACKINFO_GRANT_NO_SP &&
			    had == STACKINFO_GRANT_NONE && mm)
				stackinfo_remember(c, task, cred, mm);
			grant = max_t(int, grant, asked);
			break;
		}
		exec_id = READ_ONCE(task->self_exec_id);
		had = grant;
		up_read(exec_lock);
		if (mm)
			mmput(mm);
		if (tries == STACKINFO_EXEC_TRIES) {
			err = -EAGAIN;
			goto out_cred;
		}
		if (!cred)
			cred = get_task_cred(task);
		asked = ask_kernel(c, task, want_sp, had, &nr);
		/*
		 * Only a refusal leaves the grant as it was (a proof's, the
		 * memo's): any other failure of the check (-EINTR, -ENOMEM)
		 * is the answer.
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
 * exec_update_lock afterwards (and then it is the call's memo of maps for
 * the threads that share its credentials); when it lost either meanwhile
 * (it exited, or exec'd), the next thread with an mm is asked, four times
 * at most (-EAGAIN). *@image is then that mm (mmgrab(): the caller
 * mmdrop()s it), the image the batch counts and answers about; NULL for
 * the caller's own process. Each thread's answer is then granted on its
 * own (stackinfo_query_task()).
 */
int stackinfo_process_grant(const struct stackinfo_caller *c,
			    struct task_struct *task, struct mm_struct **image)
{
	/* pinned by the reference on @task, as task->signal is */
	struct rw_semaphore *exec_lock = &task->signal->exec_update_lock;
	stackinfo_ask_fn ask_kernel = stackinfo_mc(c)->ask_kernel;
	const struct cred *cred = NULL;
	struct task_struct *with_mm;
	enum stackinfo_grant grant;
	struct mm_struct *mm;
	unsigned int tries;
	int err = -ESRCH;
	bool retry;
	pid_t nr;

	*image = NULL;
	if (same_thread_group(task, current))
		return 0;
	for (tries = 0; tries < STACKINFO_EXEC_TRIES; tries++) {
		err = stackinfo_process_look(c, task, &with_mm, &mm, &grant);
		if (err)
			return err;
		if (grant != STACKINFO_GRANT_NONE) {
			err = 0;
		} else if (ask_kernel) {
			cred = with_mm ? get_task_cred(with_mm) : NULL;
			err = ask_kernel(c, with_mm ?: task, false,
					 STACKINFO_GRANT_NONE, &nr);
		} else {
			err = -EACCES;
		}
		/* allowed to know: no user stack anywhere in it */
		if (err >= 0 && !with_mm)
			err = (task->flags & PF_KTHREAD) ? -ENOENT : -ESRCH;
		/* the kernel's yes: about the mm @with_mm had when picked? */
		if (err >= 0 && grant == STACKINFO_GRANT_NONE) {
			err = down_read_killable(exec_lock);
			if (!err) {
				if (stackinfo_still_has(c, with_mm, mm, nr))
					stackinfo_remember(c, with_mm, cred,
							   mm);
				else
					err = -EAGAIN;
				up_read(exec_lock);
			}
		}
		if (cred)
			put_cred(cred);
		cred = NULL;
		if (err >= 0) {
			mmgrab(mm);
			*image = mm;
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
