// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for stackinfo, one suite per file of module/ (query_test.c,
 * abi_test.c, main_test.c, access_test.c) and one for the in-tree files
 * (intree_test.c), in one module,
 * stackinfo_kunit.ko: what they share. The suites reach the module through
 * EXPORT_SYMBOL_IF_KUNIT; each case runs in its own kthread, whose mm the
 * first map_at() gives it: kunit_vm_mmap()'s fresh mm where the kernel has
 * it (6.10+), else the mm of a user process the case starts for itself
 * (6.1).
 *
 * Cases that query another process do it as the module's root shortcut
 * allows (allow_cap_sys_ptrace, which every case starts with on: the
 * kthread is root); the access cases turn it off and test the policy
 * itself. Nothing else runs in the guest while the suites do.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/umh.h>

#include "../module/module.h"
#include "../module/stackinfo.h"
#include "util.h"

STACKINFO_IMPORT_NS_KUNIT();

/*
 * kthread_use_mm() takes a reference on the mm (mm_count) that only
 * kthread_unuse_mm() drops, and a case's kthread never calls it: it exits
 * with the mm attached, and exit_mm() drops only the mm_users reference
 * the thread holds (kernel/exit.c, exit_mm(): mmgrab_lazy_tlb(), then
 * mmput()). So every mm a case attached stayed allocated, with mm_count 1
 * (kmemleak reports each on arm64; on x86 the mm's page-table pages still
 * point at it, so kmemleak is silent, but /proc/slabinfo's mm_struct count
 * grew by about 60 with each KUnit run). The thread's mm_users reference
 * keeps the mm as alive as a process's own mm until exit_mm(), so the
 * case drops the kthread_use_mm() one as soon as the mm is attached.
 */
static void case_mm_attached(struct mm_struct *mm)
{
	mmdrop(mm);
}

#ifdef STACKINFO_HAVE_KUNIT_VM_MMAP
static unsigned long case_vm_mmap(struct kunit *test, unsigned long addr,
				  unsigned long len, unsigned long prot,
				  unsigned long flags)
{
	bool attach = !current->mm;
	unsigned long got;

	got = kunit_vm_mmap(test, NULL, addr, len, prot, flags, 0);

	/*
	 * kunit_attach_mm() (lib/kunit/user_alloc.c, 6.10 to 7.2): mm_alloc(),
	 * then kthread_use_mm(), "cleaned up when the process dies". It may
	 * have attached the mm and still failed the mapping.
	 */
	if (attach && current->mm)
		case_mm_attached(current->mm);
	return got;
}
#else
/*
 * No kunit_vm_mmap() and no exported mm_alloc(): the case borrows the mm
 * of a process of its own, /bin/busybox sleeping, started with the
 * usermode helper, and uses it as kunit_vm_mmap() uses a fresh one (its
 * get_task_mm() reference is dropped when the kthread exits). The process
 * is killed when the case ends. Its mappings sit far below BASE and at the
 * top of the address space, out of the cases' way.
 */
struct case_proc {
	struct task_struct *task;
};

static void case_proc_free(struct kunit_resource *res)
{
	struct case_proc *p = res->data;

	if (p && p->task) {
		send_sig(SIGKILL, p->task, 1);
		put_task_struct(p->task);
	}
	kfree(p);
	res->data = NULL;
}

static int case_proc_started(struct subprocess_info *info, struct cred *new)
{
	struct case_proc *p = info->data;

	p->task = get_task_struct(current);
	return 0;
}

static int case_proc_init(struct kunit_resource *res, void *context)
{
	char busybox[] = "/bin/busybox", sleep[] = "sleep", secs[] = "3600";
	char path[] = "PATH=/bin";
	struct case_proc *p = kzalloc(sizeof(*p), GFP_KERNEL);
	char *argv[4], *envp[2];
	struct subprocess_info *info;
	struct mm_struct *mm;
	int err;

	if (!p)
		return -ENOMEM;
	res->data = p;
	argv[0] = busybox;
	argv[1] = sleep;
	argv[2] = secs;
	argv[3] = NULL;
	envp[0] = path;
	envp[1] = NULL;
	info = call_usermodehelper_setup(argv[0], argv, envp, GFP_KERNEL,
					 case_proc_started, NULL, p);
	err = info ? call_usermodehelper_exec(info, UMH_WAIT_EXEC) : -ENOMEM;
	mm = !err && p->task ? get_task_mm(p->task) : NULL;
	if (!mm) {
		/* KUnit frees nothing of a resource whose init failed */
		case_proc_free(res);
		return err ? err : -ESRCH;
	}
	kthread_use_mm(mm);
	case_mm_attached(mm);
	return 0;
}

static unsigned long case_vm_mmap(struct kunit *test, unsigned long addr,
				  unsigned long len, unsigned long prot,
				  unsigned long flags)
{
	if (!current->mm &&
	    !kunit_alloc_resource(test, case_proc_init, case_proc_free,
				  GFP_KERNEL, NULL))
		return 0;
	return vm_mmap(NULL, addr, len, prot, flags, 0);
}
#endif

void map_at(struct kunit *test, unsigned long addr, unsigned long len,
	    unsigned long prot, unsigned long flags)
{
	unsigned long got = case_vm_mmap(test, addr, len, prot, flags);

	KUNIT_ASSERT_EQ_MSG(test, got, addr, "vm_mmap at %#lx", addr);
}

int stackinfo_case_init(struct kunit *test)
{
	stackinfo_allow_cap_sys_ptrace = true;
	return 0;
}

void stackinfo_case_exit(struct kunit *test)
{
	stackinfo_allow_cap_sys_ptrace = false;
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for stackinfo");

const char *stackinfo_text(struct kunit *test, const struct stackinfo_query *q)
{
	char *buf = kunit_kzalloc(test, STACKINFO_TEXT_MAX + 1, GFP_KERNEL);
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = stackinfo_format(buf, q);
	KUNIT_ASSERT_LE(test, len, STACKINFO_TEXT_MAX);
	buf[len] = '\0';
	return buf;
}

struct task_struct *stackinfo_get_init(struct kunit *test,
				       struct mm_struct **mm)
{
	struct pid *pid = find_get_pid(1);
	struct task_struct *init = get_pid_task(pid, PIDTYPE_PID);

	put_pid(pid);
	KUNIT_ASSERT_NOT_NULL(test, init);
	*mm = get_task_mm(init);
	if (!*mm)
		put_task_struct(init);
	KUNIT_ASSERT_NOT_NULL(test, *mm);
	return init;
}

struct cred *stackinfo_uid_creds(struct kunit *test, uid_t uid)
{
	struct cred *c = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->uid = KUIDT_INIT(uid);
	c->euid = KUIDT_INIT(uid);
	c->suid = KUIDT_INIT(uid);
	c->fsuid = KUIDT_INIT(uid);
	c->gid = KGIDT_INIT(uid);
	c->egid = KGIDT_INIT(uid);
	c->sgid = KGIDT_INIT(uid);
	c->fsgid = KGIDT_INIT(uid);
	cap_clear(c->cap_effective);
	cap_clear(c->cap_permitted);
	return c;
}
