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
 *    granted. For the SP the module reads "<tid>/personality", whose read
 *    is lock_trace() under the same inode mode as syscall, without
 *    syscall's wait for the task to stop: if it reads, the SP is granted.
 *    An exec between that check and the look would put another image
 *    behind the answer: the look compares the task's self_exec_id, read
 *    under exec_update_lock before the check, with its value under that
 *    lock after it (module/query.c).
 *  - A proof fd: an fd of /proc/<pid>/mem (opened with PTRACE_MODE_ATTACH)
 *    or of /proc/<pid>/auxv (PTRACE_MODE_READ) whose mm is the thread's mm.
 *    Both opens ran mm_access() and keep that mm in ->private_data; an exec
 *    gives the thread a new mm, which no older fd names. mem grants
 *    everything, auxv everything but the SP. Such an fd works for whoever
 *    holds it, as /proc/<pid>/mem itself does: a capability handed on, for
 *    callers whose own credentials would not pass.
 *  - Only where the administrator set allow_cap_sys_ptrace=1: a caller with
 *    CAP_SYS_PTRACE in the initial user namespace, now and when it opened
 *    /proc/stackinfo. This bypasses Yama and the LSMs' ptrace hooks (their
 *    capability hooks still apply); it is off by default. The checks do not
 *    audit: a refused caller is not a denial to log.
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
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/uio.h>
#include <linux/user_namespace.h>
#include <kunit/visibility.h>

#include "compat.h"
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
 * namespace, and no other process can be asked about) and, when
 * @want_proof, the proof fd @proof_fd. -EBADF when that is no open fd,
 * -EINVAL when it is not a proof file, -EOPNOTSUPP when proof fds do not
 * work on this kernel. stackinfo_caller_put() undoes it.
 */
int stackinfo_caller_get(struct stackinfo_caller *c, const struct file *file,
			 bool want_proof, int proof_fd)
{
	struct file *proof;

	memset(c, 0, sizeof(*c));
	c->file = file;
	if (file) {
		/* pinned by @file, which the caller holds for the call */
		c->proc_root.mnt = file->f_path.mnt;
		c->proc_root.dentry = file->f_path.mnt->mnt_root;
		c->ns = proc_sb_info(file_inode(file)->i_sb)->pid_ns;
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
 * it) if it is an open /proc/<pid>/mem or auxv, else dropped and -EINVAL
 * (-EOPNOTSUPP where proof fds do not work at all).
 */
int stackinfo_caller_set_proof(struct stackinfo_caller *c, struct file *proof)
{
	if (!stackinfo_proof_fds_work()) {
		fput(proof);
		return -EOPNOTSUPP;
	}
	if (proof->f_op == stackinfo_mem_fops) {
		c->proof_grant = STACKINFO_GRANT_ALL;
	} else if (proof->f_op == stackinfo_auxv_fops) {
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
	enum stackinfo_grant proof = STACKINFO_GRANT_NONE;

	if (same_thread_group(task, current))
		return STACKINFO_GRANT_ALL;
	if (c->proof && mm && mm == c->proof_mm) {
		proof = c->proof_grant;
		/*
		 * mm_access() opens mem for a sharer of the mm (CLONE_VM)
		 * without the ptrace check, which syscall makes: such a proof
		 * proves only what maps would.
		 */
		if (mm == current->mm)
			proof = min(proof, STACKINFO_GRANT_NO_SP);
	}
	if (proof == STACKINFO_GRANT_ALL || stackinfo_cap_sys_ptrace(c))
		return STACKINFO_GRANT_ALL;
	return proof;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_grant);

/* Open "<nr>/<name>" on @c's /proc mount as the caller. */
static struct file *stackinfo_proc_open(const struct stackinfo_caller *c,
					pid_t nr, const char *name)
{
	char path[32];

	snprintf(path, sizeof(path), "%d/%s", nr, name);
	return file_open_root(&c->proc_root, path, O_RDONLY | O_NOFOLLOW, 0);
}

/*
 * Read the start of @f into @buf. /proc/<pid>/'s ONE() files are seq_files
 * whose only read is seq_read(), which kernel_read() refuses (it wants
 * ->read_iter): read them as seq_read() does, into kernel memory.
 */
static ssize_t stackinfo_proc_read(struct file *f, char *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	loff_t pos = 0;

	if (f->f_op->read != seq_read)
		return kernel_read(f, buf, len, &pos);
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

/*
 * What the kernel itself grants the caller about thread @task of another
 * process, asked as the caller's own opens would ask (see the top of this
 * file): STACKINFO_GRANT_NO_SP when "<tid>/maps" opens on @c's /proc mount,
 * STACKINFO_GRANT_ALL when, @want_sp, "<tid>/personality" reads too; else
 * the refusal: -EACCES, or -ESRCH where the mount shows no such thread to
 * the caller (also hidepid=invisible), -EINTR on a fatal signal. Sleeps;
 * the caller holds no lock. It holds a reference on @task, which pins the
 * task_struct only: the number is read here under RCU (0 once the thread
 * is released), and the kernel's own lookup of it is what the opens check.
 * That the number still named @task afterwards is the caller's to prove
 * (a released task has no mm).
 */
int stackinfo_kernel_grant(const struct stackinfo_caller *c,
			   struct task_struct *task, bool want_sp)
{
	struct file *f;
	char buf[16];
	ssize_t n;
	pid_t nr;

	/* only a mount of the whole of /proc has the <tid> directories */
	if (!c->file || c->proc_root.dentry != c->proc_root.mnt->mnt_sb->s_root)
		return -EACCES;
	nr = task_pid_nr_ns(task, c->ns);
	if (!nr)
		return -ESRCH;

	f = stackinfo_proc_open(c, nr, "maps");
	if (IS_ERR(f))
		return stackinfo_kernel_errno(PTR_ERR(f));
	fput(f);
	if (!want_sp)
		return STACKINFO_GRANT_NO_SP;

	/* its mode (0400, root's when not dumpable) is syscall's: checked too */
	f = stackinfo_proc_open(c, nr, "personality");
	if (IS_ERR(f)) {
		n = PTR_ERR(f);
	} else {
		n = stackinfo_proc_read(f, buf, sizeof(buf));
		fput(f);
	}
	if (n == -EPERM || n == -EACCES)
		return STACKINFO_GRANT_NO_SP;
	if (n < 0)
		return stackinfo_kernel_errno(n);
	return STACKINFO_GRANT_ALL;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_kernel_grant);
