// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: who may ask about whom.
 *
 * /proc/<pid>/maps asks ptrace_may_access(PTRACE_MODE_READ_FSCREDS) and
 * /proc/<pid>/syscall (which shows the SP) PTRACE_MODE_ATTACH_FSCREDS.
 * Neither that check, nor mm_access(), nor the LSM hook behind them is
 * exported to modules, so this policy is stricter than both:
 *
 *  - a thread of the caller's own thread group: always (ptrace allows the
 *    same thread group at every mode, LSMs included);
 *  - any other thread: CAP_SYS_PTRACE in the user namespace of the target's
 *    credentials, held both by the caller and by whoever opened the fd;
 *    and when the target's mm is not dumpable (setuid, prctl
 *    PR_SET_DUMPABLE 0) CAP_SYS_PTRACE in the mm's user namespace too, as
 *    __ptrace_may_access() asks.
 *
 * Same-uid access without the capability, which ptrace would allow, is
 * refused: a Yama or LSM policy could forbid it and this module cannot ask.
 * What is granted is ATTACH-level, so it covers the SP as well.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <kunit/visibility.h>

#include "stackinfo.h"

static bool stackinfo_ptrace_capable(const struct file *file,
				     struct user_namespace *ns)
{
	/* An fd passed to another process lends it no privilege. */
	if (file && !file_ns_capable(file, ns, CAP_SYS_PTRACE))
		return false;
	return ns_capable(ns, CAP_SYS_PTRACE);
}

/*
 * 0 when the caller (through @file, which may be NULL) may see @task's
 * stack and SP, whose mm is @mm; -EACCES when not.
 */
int stackinfo_may_access(const struct file *file, struct task_struct *task,
			 struct mm_struct *mm)
{
	const struct cred *tcred;
	bool ok;

	if (same_thread_group(task, current))
		return 0;

	tcred = get_task_cred(task);
	ok = stackinfo_ptrace_capable(file, tcred->user_ns);
	put_cred(tcred);
	if (ok && get_dumpable(mm) != SUID_DUMP_USER)
		ok = stackinfo_ptrace_capable(file, mm->user_ns);
	return ok ? 0 : -EACCES;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_may_access);
