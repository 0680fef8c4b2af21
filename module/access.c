// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: who may ask about whom.
 *
 * /proc/<pid>/maps asks ptrace_may_access(PTRACE_MODE_READ_FSCREDS) and
 * /proc/<pid>/syscall, which shows the SP, PTRACE_MODE_ATTACH_FSCREDS. That
 * check, mm_access() and the LSM and Yama hooks behind them are not exported
 * to modules, and CAP_SYS_PTRACE is no substitute: Yama's ptrace_scope 3,
 * SELinux, AppArmor and Landlock refuse capable callers too. So the module
 * never judges credentials itself. It grants only what the kernel has
 * already granted the caller with its full check, through facts it can see:
 *
 *  - a thread of the caller's own thread group: everything (ptrace allows
 *    the own thread group at every mode, LSMs included);
 *  - a thread the caller's thread group traces (ptrace_parent()): the
 *    kernel ran the ATTACH check, LSMs and Yama included, when the tracer
 *    attached, and the tracer reads the registers anyway: everything;
 *  - a proof fd: an fd of /proc/<pid>/mem (opened with PTRACE_MODE_ATTACH)
 *    or of /proc/<pid>/auxv (PTRACE_MODE_READ) whose mm is the thread's mm.
 *    Both opens ran mm_access() and keep that mm in ->private_data; an exec
 *    gives the thread a new mm, which no older fd names. mem grants
 *    everything, auxv everything but the SP, as /proc/<pid>/syscall and
 *    /proc/<pid>/maps would. Such an fd works for whoever holds it, as
 *    /proc/<pid>/mem itself does;
 *  - only where the administrator set allow_cap_sys_ptrace=1: a caller with
 *    CAP_SYS_PTRACE in the initial user namespace, now and when it opened
 *    /proc/stackinfo. This bypasses LSMs and Yama; it is off by default.
 *
 * The files are recognised by their file_operations, learnt at module init
 * by opening /proc/self/mem and /proc/self/auxv and checking that each
 * keeps the opener's mm in ->private_data; if that does not hold, proof fds
 * are refused and the log says so once.
 *
 * The /proc mount the caller's fd was opened on decides the rest, as it
 * does for /proc itself: tids are numbers in its pid namespace, and where
 * its hidepid option hides processes from the caller, a refused target is
 * answered as a pid that does not exist.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/user_namespace.h>
#include <kunit/visibility.h>

#include "stackinfo.h"

VISIBLE_IF_KUNIT bool stackinfo_allow_cap_sys_ptrace;
EXPORT_SYMBOL_IF_KUNIT(stackinfo_allow_cap_sys_ptrace);
module_param_named(allow_cap_sys_ptrace, stackinfo_allow_cap_sys_ptrace, bool,
		   0644);
#define STACKINFO_CAP_DESC \
	"CAP_SYS_PTRACE alone grants all, bypassing LSMs and Yama (default 0)"
MODULE_PARM_DESC(allow_cap_sys_ptrace, STACKINFO_CAP_DESC);

static const struct file_operations *stackinfo_mem_fops;
static const struct file_operations *stackinfo_auxv_fops;

/*
 * The file_operations of @path if opening it keeps the opener's mm in
 * ->private_data, as /proc/<pid>/mem and /proc/<pid>/auxv do; else NULL.
 */
VISIBLE_IF_KUNIT const struct file_operations *
stackinfo_learn_proof_fops(const char *path)
{
	const struct file_operations *fops = NULL;
	struct file *f;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return NULL;
	if (current->mm && f->private_data == current->mm)
		fops = f->f_op;
	filp_close(f, NULL);
	return fops;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_learn_proof_fops);

void stackinfo_access_init(void)
{
	stackinfo_mem_fops = stackinfo_learn_proof_fops("/proc/self/mem");
	stackinfo_auxv_fops = stackinfo_learn_proof_fops("/proc/self/auxv");
	if (!stackinfo_mem_fops || !stackinfo_auxv_fops ||
	    stackinfo_mem_fops == stackinfo_auxv_fops) {
		stackinfo_mem_fops = NULL;
		stackinfo_auxv_fops = NULL;
		pr_warn("stackinfo: /proc/<pid>/mem and auxv are not as expected here: proof fds are refused\n");
	}
}

bool stackinfo_proof_fds_work(void)
{
	return stackinfo_mem_fops && stackinfo_auxv_fops;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_proof_fds_work);

/*
 * Who asks: the /proc mount behind @file (NULL: the caller's own pid
 * namespace, no hidepid) and, when @want_proof, the proof fd @proof_fd.
 * -EBADF when that is no open fd, -EINVAL when it is not a proof file.
 * stackinfo_caller_put() undoes it.
 */
int stackinfo_caller_get(struct stackinfo_caller *c, const struct file *file,
			 bool want_proof, int proof_fd)
{
	struct file *proof;

	memset(c, 0, sizeof(*c));
	c->file = file;
	if (file) {
		struct proc_fs_info *fs_info =
			proc_sb_info(file_inode(file)->i_sb);

		c->ns = fs_info->pid_ns;
		c->hide = fs_info->hide_pid == HIDEPID_NOT_PTRACEABLE ||
			  (fs_info->hide_pid >= HIDEPID_INVISIBLE &&
			   !in_group_p(fs_info->pid_gid));
	} else {
		c->ns = task_active_pid_ns(current);
	}
	if (!want_proof)
		return 0;

	proof = fget(proof_fd);
	if (!proof)
		return -EBADF;
	return stackinfo_caller_set_proof(c, proof);
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_caller_get);

/*
 * @proof, referenced, as @c's proof: kept (stackinfo_caller_put() drops
 * it) if it is an open /proc/<pid>/mem or auxv, else dropped and -EINVAL.
 */
int stackinfo_caller_set_proof(struct stackinfo_caller *c, struct file *proof)
{
	if (stackinfo_mem_fops && proof->f_op == stackinfo_mem_fops) {
		c->proof_grant = STACKINFO_GRANT_ALL;
	} else if (stackinfo_auxv_fops && proof->f_op == stackinfo_auxv_fops) {
		c->proof_grant = STACKINFO_GRANT_NO_SP;
	} else {
		fput(proof);
		return -EINVAL;
	}
	/* kept by the open file (mmgrab): never another mm's while we look */
	c->proof_mm = proof->private_data;
	c->proof = proof;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_caller_set_proof);

void stackinfo_caller_put(struct stackinfo_caller *c)
{
	if (c->proof)
		fput(c->proof);
	c->proof = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_caller_put);

static bool stackinfo_traced_by_caller(struct task_struct *task)
{
	struct task_struct *tracer;
	bool ours;

	rcu_read_lock();
	tracer = ptrace_parent(task);
	ours = tracer && same_thread_group(tracer, current);
	rcu_read_unlock();
	return ours;
}

static bool stackinfo_cap_sys_ptrace(const struct stackinfo_caller *c)
{
	if (!READ_ONCE(stackinfo_allow_cap_sys_ptrace))
		return false;
	/* an fd passed to another process lends it no privilege */
	if (c->file && !file_ns_capable(c->file, &init_user_ns, CAP_SYS_PTRACE))
		return false;
	return capable(CAP_SYS_PTRACE);
}

/*
 * What @c may learn about @task, whose mm is @mm (NULL when it has none):
 * STACKINFO_GRANT_ALL, STACKINFO_GRANT_NO_SP (everything but the SP) or
 * STACKINFO_GRANT_NONE. The caller holds @task's exec_update_lock when
 * @task is another process's, so @mm is the one the answer will describe.
 */
enum stackinfo_grant stackinfo_grant(const struct stackinfo_caller *c,
				     struct task_struct *task,
				     struct mm_struct *mm)
{
	if (same_thread_group(task, current))
		return STACKINFO_GRANT_ALL;
	if (stackinfo_traced_by_caller(task))
		return STACKINFO_GRANT_ALL;
	if (c->proof && mm && mm == c->proof_mm)
		return c->proof_grant;
	if (stackinfo_cap_sys_ptrace(c))
		return STACKINFO_GRANT_ALL;
	return STACKINFO_GRANT_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_grant);

/* The answer to a refused caller: as for a free pid where hidepid hides. */
int stackinfo_refusal(const struct stackinfo_caller *c)
{
	return c->hide ? -ESRCH : -EACCES;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_refusal);
