// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: who may ask about whom.
 *
 * /proc/<pid>/maps shows a thread's VMAs to whoever passes the check its
 * open makes (mm_access() with PTRACE_MODE_READ_FSCREDS), and
 * /proc/<pid>/syscall, which shows the SP, to whoever passes lock_trace()
 * (PTRACE_MODE_ATTACH_FSCREDS) when reading it. ptrace_may_access() and
 * mm_access() are not exported to modules, and CAP_SYS_PTRACE is no
 * substitute: Yama's ptrace_scope 3, SELinux, AppArmor and Landlock refuse
 * capable callers too. So the module does not judge credentials itself: it
 * asks the kernel, in the caller's own context, the very questions those
 * files ask.
 *
 *  - A thread of the caller's own thread group: everything (ptrace allows
 *    the own thread group at every mode, LSMs included).
 *  - Any other thread: the module opens "<tid>/maps" on the /proc mount
 *    the caller's /proc/stackinfo fd was opened on, with the caller's
 *    credentials (file_open_root()). That runs the path walk (hidepid, the
 *    mount's pid namespace, the inode's permissions) and maps' own open
 *    check (mm_access(), LSMs and Yama) exactly as the caller's own open of
 *    that file would: if it opens, the VMAs, rlimits and counts are
 *    granted. For the SP the module reads "<tid>/syscall" itself (its
 *    lock_trace(), its mode, its path): if it reads, the SP is granted.
 *    Each file opened must be on that very mount and have procfs's
 *    file_operations for it, learnt at init: anything mounted over it (a
 *    user namespace may mount) proves nothing.
 *    An open is a grant only about a live mm: maps opens for anyone when
 *    the thread has none (a zombie, an exiting thread, a kernel thread),
 *    so the thread must have an mm before the opens and after them
 *    (stackinfo_kernel_grant()), and a call keeps and reuses only such
 *    an answer of maps, never one of syscall (module/grant.c).
 *    An exec between that check and the look would put another image
 *    behind the answer: the look compares the task's self_exec_id, read
 *    under exec_update_lock before the check, and the number the check
 *    looked up, with what they are under that lock after it
 *    (module/grant.c).
 *  - A proof fd: an fd of /proc/<pid>/mem or /proc/<pid>/auxv whose mm is
 *    the thread's mm. Both opens ran mm_access() and keep that mm in
 *    ->private_data; an exec gives the thread a new mm, which no older fd
 *    names. mm_access() lets an opener that runs on that mm (a vfork
 *    child, a CLONE_VM sharer) in without the ptrace check, and the file
 *    does not say whether its opener was checked: so either proves what
 *    maps' open would have let its opener see, everything but the SP, for
 *    whoever holds it (after its opener's exec, or passed over a socket).
 *    The SP is asked of syscall as the caller, as without a proof.
 *  - Only where the administrator set allow_cap_sys_ptrace=1: a caller with
 *    CAP_SYS_PTRACE in the initial user namespace, now and when it opened
 *    /proc/stackinfo. This bypasses Yama and the LSMs' ptrace hooks (their
 *    capability hooks still apply); it is off by default, and its check
 *    writes no audit record. The kernel's own checks log what they log for
 *    the caller's own opens (Yama's and SELinux's denials).
 *
 * The proof files are recognised by their file_operations, learnt at module
 * init by opening /proc/self/mem and /proc/self/auxv and checking that each
 * keeps the opener's mm in ->private_data; if that does not hold, proof fds
 * are refused with EOPNOTSUPP and the log says so once.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/magic.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/threads.h>
#include <linux/uio.h>
#include <linux/user_namespace.h>
#include <kunit/visibility.h>

#include "module.h"
#include "profile.h"
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
/* What the kernel's own check opens (stackinfo_kernel_grant()). */
static const struct file_operations *stackinfo_maps_fops;
static const struct file_operations *stackinfo_syscall_fops;

/*
 * The file_operations of @path if opening it keeps the opener's mm in
 * ->private_data, as /proc/<pid>/mem and /proc/<pid>/auxv do; else NULL;
 * ERR_PTR() when the open failed for want of memory or a fatal signal.
 */
VISIBLE_IF_KUNIT const struct file_operations *
stackinfo_learn_proof_fops(const char *path)
{
	const struct file_operations *fops = NULL;
	struct file *f;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f) && stackinfo_init_transient(PTR_ERR(f)))
		return ERR_CAST(f);
	if (IS_ERR(f))
		return NULL;
	if (current->mm && f->private_data == current->mm)
		fops = f->f_op;
	filp_close(f, NULL);
	return fops;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_learn_proof_fops);

/*
 * The file_operations of @path if it is a file of procfs itself; else
 * NULL (ERR_PTR() as above). Learnt at init, in insmod's namespaces,
 * never from a caller's.
 */
static const struct file_operations *stackinfo_learn_proc_fops(const char *path)
{
	const struct file_operations *fops = NULL;
	struct file *f;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f) && stackinfo_init_transient(PTR_ERR(f)))
		return ERR_CAST(f);
	if (IS_ERR(f))
		return NULL;
	if (file_inode(f)->i_sb->s_magic == PROC_SUPER_MAGIC)
		fops = f->f_op;
	filp_close(f, NULL);
	return fops;
}

int stackinfo_access_init(void)
{
	const struct file_operations *maps, *syscall, *mem, *auxv;

	/*
	 * A failure that says nothing about this kernel fails the load:
	 * the module would refuse, for its whole life, what it should answer.
	 */
	maps = stackinfo_learn_proc_fops("/proc/self/maps");
	if (IS_ERR(maps))
		return PTR_ERR(maps);
	syscall = stackinfo_learn_proc_fops("/proc/self/syscall");
	if (IS_ERR(syscall))
		return PTR_ERR(syscall);
	mem = stackinfo_learn_proof_fops("/proc/self/mem");
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	auxv = stackinfo_learn_proof_fops("/proc/self/auxv");
	if (IS_ERR(auxv))
		return PTR_ERR(auxv);

	/* /proc/<pid>/'s ONE() files are seq_files read by seq_read() alone */
	if (syscall && syscall->read != seq_read)
		syscall = NULL;
	if (!maps)
		pr_warn("stackinfo: /proc/self/maps is not procfs's here: other processes are refused\n");
	else if (!syscall)
		pr_warn("stackinfo: /proc/self/syscall is not as expected here: other threads' SPs are refused\n");
	if (!mem || !auxv || mem == auxv) {
		mem = NULL;
		auxv = NULL;
		pr_warn("stackinfo: /proc/<pid>/mem and auxv are not as expected here: proof fds are refused\n");
	}
	stackinfo_maps_fops = maps;
	stackinfo_syscall_fops = syscall;
	stackinfo_mem_fops = mem;
	stackinfo_auxv_fops = auxv;
	return 0;
}

bool stackinfo_proof_fds_work(void)
{
	return stackinfo_mem_fops && stackinfo_auxv_fops;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_proof_fds_work);

/*
 * Who asks: the /proc mount behind @file (NULL: the caller's own pid
 * namespace, and no other process can be asked about) and, when
 * @want_proof, the proof fd @proof_fd. -EBADF when that is no open fd,
 * -EINVAL when it is not a proof file, -EOPNOTSUPP when proof fds do not
 * work on this kernel. stackinfo_caller_put() undoes it.
 */
int stackinfo_caller_get(struct stackinfo_caller *c, const struct file *file,
			 bool want_proof, int proof_fd)
{
	struct stackinfo_module_caller *mc = stackinfo_mc(c);
	struct file *proof;

	memset(mc, 0, sizeof(*mc));
	c->file = file;
	mc->ask_kernel = stackinfo_kernel_grant;
	if (file) {
		/* pinned by @file, which the caller holds for the call */
		mc->proc_root.mnt = file->f_path.mnt;
		mc->proc_root.dentry = file->f_path.mnt->mnt_root;
		c->ns = proc_sb_info(file_inode(file)->i_sb)->pid_ns;
		/* only a mount of the whole of /proc has the <tid> directories */
		mc->blind = mc->proc_root.dentry !=
			    file->f_path.mnt->mnt_sb->s_root;
	} else {
		c->ns = task_active_pid_ns(current);
	}
	stackinfo_prof(STACKINFO_STEP_ENTRY);
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
 * it) if it is an open /proc/<pid>/mem or auxv, else dropped and -EINVAL
 * (-EOPNOTSUPP where proof fds do not work at all).
 */
int stackinfo_caller_set_proof(struct stackinfo_caller *c, struct file *proof)
{
	struct stackinfo_module_caller *mc = stackinfo_mc(c);

	if (!stackinfo_proof_fds_work()) {
		fput(proof);
		return -EOPNOTSUPP;
	}
	if (proof->f_op != stackinfo_mem_fops &&
	    proof->f_op != stackinfo_auxv_fops) {
		fput(proof);
		return -EINVAL;
	}
	/* kept by the open file (mmgrab): never another mm's while we look */
	mc->proof_mm = proof->private_data;
	mc->proof = proof;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_caller_set_proof);

void stackinfo_caller_put(struct stackinfo_caller *c)
{
	struct stackinfo_module_caller *mc = stackinfo_mc(c);

	stackinfo_prof(STACKINFO_STEP_QUERY);
	if (mc->proof)
		fput(mc->proof);
	mc->proof = NULL;
	stackinfo_forget(&mc->asked);
	stackinfo_prof(STACKINFO_STEP_CALLER_PUT);
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_caller_put);

/*
 * Thread @tid (not 0) of @c's pid namespace, referenced; ERR_PTR(-ESRCH)
 * if none, or if @c asks through a file about one process and @tid is not
 * of it. Through a blind file (stackinfo_module_caller) the refusal of
 * other processes comes first and alike for every tid: ERR_PTR(-EACCES)
 * for one that names no thread of the caller's process, found or not;
 * with a proof fd, which may still grant another process's thread, for
 * one that names no thread (stackinfo_grant() judges one that does).
 */
struct task_struct *stackinfo_get_task(const struct stackinfo_caller *c,
				       pid_t tid)
{
	const struct stackinfo_module_caller *mc = stackinfo_mc(c);
	int none = mc->blind ? -EACCES : -ESRCH;
	struct task_struct *task;

	if (tid <= 0 || tid > PID_MAX_LIMIT)
		return ERR_PTR(none);
	rcu_read_lock();
	task = pid_task(find_pid_ns(tid, c->ns), PIDTYPE_PID);
	if (task && c->file_task && !same_thread_group(task, c->file_task))
		task = NULL;
	if (task && mc->blind && !mc->proof &&
	    !same_thread_group(task, current))
		task = NULL;
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task ?: ERR_PTR(none);
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_get_task);

/*
 * CAP_SYS_PTRACE in the initial user namespace, without an audit record:
 * the caller through the capability hooks (LSMs still decide), the fd's
 * opener from the credentials it opened with, as cap_capable() reads them.
 */
static bool stackinfo_cap_sys_ptrace(const struct stackinfo_caller *c)
{
	const struct cred *opener;

	if (!READ_ONCE(stackinfo_allow_cap_sys_ptrace))
		return false;
	/* an fd passed to another process lends it no privilege */
	if (c->file) {
		opener = c->file->f_cred;
		if (opener->user_ns != &init_user_ns ||
		    !cap_raised(opener->cap_effective, CAP_SYS_PTRACE))
			return false;
	}
	return ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE);
}

/*
 * What @c may learn about @task, whose mm is @mm (NULL when it has none),
 * from what the module sees without asking the kernel: its own thread
 * group, a proof fd for @mm, the capability parameter.
 * STACKINFO_GRANT_ALL, STACKINFO_GRANT_NO_SP (everything but the SP) or
 * STACKINFO_GRANT_NONE (then stackinfo_kernel_grant() may still allow).
 * The caller holds @task's exec_update_lock when @task is another
 * process's, so @mm is the one the answer will describe.
 */
enum stackinfo_grant stackinfo_grant(const struct stackinfo_caller *c,
				     struct task_struct *task,
				     struct mm_struct *mm)
{
	const struct stackinfo_module_caller *mc = stackinfo_mc(c);

	if (same_thread_group(task, current))
		return STACKINFO_GRANT_ALL;
	if (stackinfo_cap_sys_ptrace(c))
		return STACKINFO_GRANT_ALL;
	/*
	 * A proof's open passed mm_access() for @mm: the ptrace check, or
	 * none for an opener that ran on @mm (a vfork child, a CLONE_VM
	 * sharer), and the file does not say which. That is what maps'
	 * open would have let that opener see; never the SP, which the
	 * kernel shows only to a reader of syscall that passes its check.
	 */
	if (mc->proof && mm && mm == mc->proof_mm)
		return STACKINFO_GRANT_NO_SP;
	return STACKINFO_GRANT_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_grant);

/*
 * Open "<nr>/<name>" on @c's /proc mount as the caller, and make sure it
 * is that file: the walk crosses mount points, and a user who may mount
 * (a user namespace of its own) can mount anything on /proc/<pid>/maps.
 * So the file must sit on the very mount it was looked up from and have
 * the file_operations that procfs gives that file (@fops, learnt at init).
 */
static struct file *stackinfo_proc_open(const struct stackinfo_caller *c,
					pid_t nr, const char *name,
					const struct file_operations *fops)
{
	const struct path *root = &stackinfo_mc(c)->proc_root;
	struct file *f;
	char path[32];

	if (!fops)
		return ERR_PTR(-EACCES);
	snprintf(path, sizeof(path), "%d/%s", nr, name);
	f = file_open_root(root, path, O_RDONLY | O_NOFOLLOW, 0);
	if (IS_ERR(f))
		return f;
	if (f->f_path.mnt != root->mnt || f->f_op != fops) {
		fput(f);
		return ERR_PTR(-EACCES);
	}
	return f;
}

/*
 * Read the start of @f, a seq_file whose only read is seq_read() (which
 * kernel_read() refuses: it wants ->read_iter), as vfs_read() would:
 * rw_verify_area() (LSMs' file_permission, fsnotify) first, then what
 * seq_read() does, into kernel memory.
 */
static ssize_t stackinfo_proc_read(struct file *f, char *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	loff_t pos = 0;
	int err;

	err = rw_verify_area(READ, f, &pos, len);
	if (err)
		return err;
	init_sync_kiocb(&kiocb, f);
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	return seq_read_iter(&kiocb, &iter);
}

/* The kernel's refusals as the ABI words them (stackinfo(4)). */
static int stackinfo_kernel_errno(long err)
{
	switch (err) {
	case -ENOENT: /* no such pid in the mount's namespace, or hidepid */
		return -ESRCH;
	case -EPERM: /* hidepid=noaccess, lock_trace() */
		return -EACCES;
	default:
		return err;
	}
}

/* Has @task a user mm, the one maps would show? */
static bool stackinfo_has_user_mm(struct task_struct *task)
{
	bool has;

	/* exit_mm() and exec_mmap() change task->mm under task_lock() */
	task_lock(task);
	has = !(task->flags & PF_KTHREAD) && task->mm;
	task_unlock(task);
	return has;
}

/*
 * @grant, the kernel's answer about @task, if @task had a user mm before
 * it was asked (@had_mm) and has one still; else what the answer proves.
 */
static int stackinfo_about_mm(struct task_struct *task, bool had_mm,
			      enum stackinfo_grant grant)
{
	if (had_mm && stackinfo_has_user_mm(task))
		return grant;
	return (task->flags & PF_KTHREAD) ? -ENOENT : -ESRCH;
}

/*
 * What the kernel itself grants the caller about thread @task of another
 * process, asked as the caller's own opens would ask (see the top of this
 * file): STACKINFO_GRANT_NO_SP when "<tid>/maps" opens on @c's /proc mount,
 * STACKINFO_GRANT_ALL when, @want_sp, "<tid>/syscall" reads too; else the
 * refusal: -EACCES, or -ESRCH where the mount shows no such thread to the
 * caller (also hidepid=invisible), -EINTR on a fatal signal. With @have
 * STACKINFO_GRANT_NO_SP (the call's memo or a proof gives maps' grant)
 * only syscall is asked, and a refusal of it is STACKINFO_GRANT_NO_SP.
 *
 * Only an answer about a live mm is a grant. maps opens for anyone when
 * the thread has no mm (mm_access() says -ESRCH, which proc_mem_open()
 * turns into a NULL mm and a successful open: 5.10, 6.12 and 7.2 alike),
 * and lock_trace()'s check skips the dumpable test without one. So @task
 * must have a user mm before the opens and still have one after them: a
 * task loses its mm only in exit_mm(), for good, and exec swaps one mm
 * for another, never for none, so it had one at every moment between,
 * and the checks saw it. Otherwise the open proves only that there is no
 * mm to show, which is what it tells anyone: -ENOENT for a kernel thread,
 * -ESRCH for any other thread (a zombie, an exiting thread).
 *
 * Sleeps; the caller holds no lock. Its reference on @task pins the
 * task_struct only: *@nr is the number the opens looked up (read here
 * under RCU, 0 once the thread is released), and the caller must find it
 * still naming @task under exec_update_lock afterwards (de_thread() hands
 * a thread's number to another task before exec takes that lock).
 */
int stackinfo_kernel_grant(const struct stackinfo_caller *c,
			   struct task_struct *task, bool want_sp,
			   enum stackinfo_grant have, pid_t *nr)
{
	struct file *f;
	bool had_mm;
	char buf[64];
	ssize_t n;

	*nr = 0;
	/* no <tid> directories to open (stackinfo_caller_get()) */
	if (!c->file || stackinfo_mc(c)->blind)
		return -EACCES;
	*nr = task_pid_nr_ns(task, c->ns);
	if (!*nr)
		return -ESRCH;
	had_mm = stackinfo_has_user_mm(task);

	if (have < STACKINFO_GRANT_NO_SP) {
		f = stackinfo_proc_open(c, *nr, "maps", stackinfo_maps_fops);
		if (IS_ERR(f))
			return stackinfo_kernel_errno(PTR_ERR(f));
		fput(f);
	}
	if (!want_sp)
		return stackinfo_about_mm(task, had_mm, STACKINFO_GRANT_NO_SP);

	/*
	 * syscall itself: its mode (0400, root's when not dumpable), its path
	 * for path-based LSMs, and its read's lock_trace(). The read waits
	 * only for a thread already going to sleep to get off its CPU (a
	 * running one reads as "running").
	 */
	f = stackinfo_proc_open(c, *nr, "syscall", stackinfo_syscall_fops);
	if (IS_ERR(f)) {
		n = PTR_ERR(f);
	} else {
		n = stackinfo_proc_read(f, buf, sizeof(buf));
		fput(f);
	}
	if (n == -EPERM || n == -EACCES)
		return stackinfo_about_mm(task, had_mm, STACKINFO_GRANT_NO_SP);
	if (n < 0)
		return stackinfo_kernel_errno(n);
	return stackinfo_about_mm(task, had_mm, STACKINFO_GRANT_ALL);
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_kernel_grant);
