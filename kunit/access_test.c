// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite stackinfo_access, for module/access.c: the access policy's
 * decisions, with the root shortcut (on when each case starts, util.c)
 * turned off, and the proof fds.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/string.h>

#include "../module/module.h"
#include "../module/stackinfo.h"
#include "util.h"

struct access_ctx {
	struct task_struct *init;
	struct mm_struct *init_mm;
	struct stackinfo_module_caller mc;
	const struct cred *saved;
	struct cred *dropped;
};

/* init (pid 1) as the target, a caller through no fd, no shortcut. */
static void access_setup(struct kunit *test, struct access_ctx *a)
{
	memset(a, 0, sizeof(*a));
	stackinfo_allow_cap_sys_ptrace = false;
	a->init = stackinfo_get_init(test, &a->init_mm);
	KUNIT_ASSERT_EQ(test, stackinfo_caller_get(&a->mc.c, NULL, false, 0),
			0);
}

static void access_teardown(struct access_ctx *a)
{
	if (a->saved) {
		revert_creds(a->saved);
		put_cred(a->dropped);
	}
	stackinfo_caller_put(&a->mc.c);
	mmput(a->init_mm);
	put_task_struct(a->init);
}

/* Run as this case's kthread, less CAP_SYS_PTRACE. */
static void drop_ptrace_cap(struct kunit *test, struct access_ctx *a)
{
	a->dropped = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, a->dropped);
	cap_lower(a->dropped->cap_effective, CAP_SYS_PTRACE);
	a->saved = override_creds(a->dropped);
}

/* @path (a /proc/1/ file) as @a's proof: what stackinfo_caller_get() does. */
static int set_proof(struct kunit *test, struct access_ctx *a, const char *path)
{
	struct file *f = filp_open(path, O_RDONLY, 0);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "open %s: %ld", path,
			       PTR_ERR(f));
	return stackinfo_caller_set_proof(&a->mc.c, f);
}

static void access_self(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	drop_ptrace_cap(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.mc.c, current, current->mm),
			STACKINFO_GRANT_ALL);
	access_teardown(&a);
}

/* CAP_SYS_PTRACE alone grants nothing: LSMs and Yama were not asked. */
static void access_other_capable_refused(struct kunit *test)
{
	struct access_ctx a;
	pid_t nr;

	access_setup(test, &a);
	KUNIT_EXPECT_TRUE(test, capable(CAP_SYS_PTRACE));
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.mc.c, a.init, a.init_mm),
			STACKINFO_GRANT_NONE);
	/* and no kernel to ask without a /proc mount to ask it through */
	KUNIT_EXPECT_EQ(test,
			stackinfo_kernel_grant(&a.mc.c, a.init, false,
					       STACKINFO_GRANT_NONE, &nr),
			-EACCES);
	access_teardown(&a);
}

static void access_cap_param(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	stackinfo_allow_cap_sys_ptrace = true;
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.mc.c, a.init, a.init_mm),
			STACKINFO_GRANT_ALL);
	drop_ptrace_cap(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.mc.c, a.init, a.init_mm),
			STACKINFO_GRANT_NONE);
	access_teardown(&a);
}

/* With the shortcut, whoever opened the fd must have had the capability. */
static void access_cap_param_fd_opener(struct kunit *test)
{
	struct file *with, *without;
	struct access_ctx a;
	struct stackinfo_module_caller mw, mwo;

	access_setup(test, &a);
	stackinfo_allow_cap_sys_ptrace = true;
	with = filp_open("/proc/stackinfo", O_RDONLY, 0);
	drop_ptrace_cap(test, &a);
	without = filp_open("/proc/stackinfo", O_RDONLY, 0);
	revert_creds(a.saved);
	put_cred(a.dropped);
	a.saved = NULL;
	if (IS_ERR(with) || IS_ERR(without)) {
		if (!IS_ERR(with))
			filp_close(with, NULL);
		if (!IS_ERR(without))
			filp_close(without, NULL);
		access_teardown(&a);
		KUNIT_FAIL(test, "cannot open /proc/stackinfo");
		return;
	}
	/* the caller has the capability again; the opener decides */
	KUNIT_EXPECT_EQ(test, stackinfo_caller_get(&mw.c, with, false, 0), 0);
	KUNIT_EXPECT_EQ(test, stackinfo_caller_get(&mwo.c, without, false, 0),
			0);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&mw.c, a.init, a.init_mm),
			STACKINFO_GRANT_ALL);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&mwo.c, a.init, a.init_mm),
			STACKINFO_GRANT_NONE);
	stackinfo_caller_put(&mw.c);
	stackinfo_caller_put(&mwo.c);
	filp_close(with, NULL);
	filp_close(without, NULL);
	access_teardown(&a);
}

/* Module init learnt /proc/<pid>/mem's and auxv's file_operations. */
static void access_proof_fops_learnt(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, stackinfo_proof_fds_work());
	/* a file whose private_data is not the opener's mm teaches nothing */
	KUNIT_EXPECT_NULL(test, stackinfo_learn_proof_fops("/proc/1/mem"));
	KUNIT_EXPECT_NULL(test, stackinfo_learn_proof_fops("/proc/1/maps"));
	KUNIT_EXPECT_NULL(test, stackinfo_learn_proof_fops("/nonexistent"));
}

/*
 * A mem fd's open passed mm_access(): the ptrace check, or none for an
 * opener on that mm (a vfork child), and the file does not say which. It
 * grants what maps would have: never the SP, which is syscall's check's.
 */
static void access_proof_mem(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	KUNIT_ASSERT_EQ(test, set_proof(test, &a, "/proc/1/mem"), 0);
	drop_ptrace_cap(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.mc.c, a.init, a.init_mm),
			STACKINFO_GRANT_NO_SP);
	/* another mm: the one an exec would give, or another process's */
	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.mc.c, a.init, current->mm),
			STACKINFO_GRANT_NONE);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.mc.c, a.init, NULL),
			STACKINFO_GRANT_NONE);
	access_teardown(&a);
}

static void access_proof_auxv(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	KUNIT_ASSERT_EQ(test, set_proof(test, &a, "/proc/1/auxv"), 0);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.mc.c, a.init, a.init_mm),
			STACKINFO_GRANT_NO_SP);
	access_teardown(&a);
}

/* Other files of the same process prove nothing. */
static void access_proof_other_files(struct kunit *test)
{
	static const char *const paths[] = {
		"/proc/1/maps",
		"/proc/1/environ",
		"/proc/1/status",
		"/proc/stackinfo",
	};
	struct access_ctx a;
	unsigned int i;

	access_setup(test, &a);
	for (i = 0; i < ARRAY_SIZE(paths); i++)
		KUNIT_EXPECT_EQ_MSG(test, set_proof(test, &a, paths[i]),
				    -EINVAL, "%s", paths[i]);
	KUNIT_EXPECT_NULL(test, a.mc.proof);
	access_teardown(&a);
}

/*
 * The whole query through a proof: the VMAs, and no SP from either proof
 * (this caller has no /proc mount to ask syscall through).
 */
static void access_proof_query(struct kunit *test)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = 1 };
	struct access_ctx a;

	access_setup(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_query(&a.mc.c, &q), -EACCES);
	KUNIT_ASSERT_EQ(test, set_proof(test, &a, "/proc/1/auxv"), 0);
	KUNIT_ASSERT_EQ(test, stackinfo_query(&a.mc.c, &q), 0);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_MAIN_VMA);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_RLIMIT);
	KUNIT_EXPECT_FALSE(test, q.valid & (STACKINFO_VALID_SP |
					    STACKINFO_VALID_SP_VMA));
	KUNIT_EXPECT_EQ(test, q.sp, 0ULL);
	stackinfo_caller_put(&a.mc.c);
	KUNIT_ASSERT_EQ(test, set_proof(test, &a, "/proc/1/mem"), 0);
	KUNIT_ASSERT_EQ(test, stackinfo_query(&a.mc.c, &q), 0);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_MAIN_VMA);
	KUNIT_EXPECT_FALSE(test, q.valid & (STACKINFO_VALID_SP |
					    STACKINFO_VALID_SP_VMA));
	/* and nothing for kthreadd, which has no mm to match */
	q.tid = 2;
	KUNIT_EXPECT_EQ(test, stackinfo_query(&a.mc.c, &q), -EACCES);
	access_teardown(&a);
}

/* Run as this case's kthread as uid @uid, with no capabilities at all. */
static void become_uid(struct kunit *test, struct access_ctx *a, uid_t uid)
{
	a->dropped = stackinfo_uid_creds(test, uid);
	a->saved = override_creds(a->dropped);
}

/* A caller whose fd is an open /proc/stackinfo of the mount at /proc. */
static struct file *access_proc_caller(struct kunit *test,
				       struct stackinfo_caller *c)
{
	struct file *f = filp_open("/proc/stackinfo", O_RDONLY, 0);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "open /proc/stackinfo: %ld",
			       PTR_ERR(f));
	KUNIT_EXPECT_EQ(test, stackinfo_caller_get(c, f, false, 0), 0);
	return f;
}

/*
 * The kernel's own check, asked as the caller through its /proc mount:
 * root (this kthread) may open init's maps and read its personality;
 * uid 1000 without capabilities may do neither; kthreadd's maps opens
 * for anyone, but it has no mm, and an open about no mm is no grant:
 * what it tells is that there is no user stack (-ENOENT).
 */
static void access_kernel_check(struct kunit *test)
{
	const enum stackinfo_grant none = STACKINFO_GRANT_NONE;
	const enum stackinfo_grant maps = STACKINFO_GRANT_NO_SP;
	struct stackinfo_module_caller mc;
	struct access_ctx a;
	struct task_struct *kthd;
	struct file *f;
	pid_t nr;

	access_setup(test, &a);
	f = access_proc_caller(test, &mc.c);
	stackinfo_allow_cap_sys_ptrace = false;
	KUNIT_EXPECT_EQ(test,
			stackinfo_kernel_grant(&mc.c, a.init, true, none, &nr),
			STACKINFO_GRANT_ALL);
	KUNIT_EXPECT_EQ(test, nr, 1);
	KUNIT_EXPECT_EQ(test,
			stackinfo_kernel_grant(&mc.c, a.init, false, none, &nr),
			STACKINFO_GRANT_NO_SP);
	/* maps' grant had already: syscall alone is asked */
	KUNIT_EXPECT_EQ(test,
			stackinfo_kernel_grant(&mc.c, a.init, true, maps, &nr),
			STACKINFO_GRANT_ALL);
	rcu_read_lock();
	kthd = get_task_struct(pid_task(find_vpid(2), PIDTYPE_PID));
	rcu_read_unlock();
	become_uid(test, &a, 1000);
	KUNIT_EXPECT_EQ(test,
			stackinfo_kernel_grant(&mc.c, a.init, true, none, &nr),
			-EACCES);
	KUNIT_EXPECT_EQ(test,
			stackinfo_kernel_grant(&mc.c, a.init, false, none, &nr),
			-EACCES);
	/* syscall refused: what was had, nothing more */
	KUNIT_EXPECT_EQ(test,
			stackinfo_kernel_grant(&mc.c, a.init, true, maps, &nr),
			STACKINFO_GRANT_NO_SP);
	KUNIT_EXPECT_EQ(test,
			stackinfo_kernel_grant(&mc.c, kthd, true, none, &nr),
			-ENOENT);
	KUNIT_EXPECT_EQ(test,
			stackinfo_kernel_grant(&mc.c, kthd, false, none, &nr),
			-ENOENT);
	put_task_struct(kthd);
	stackinfo_caller_put(&mc.c);
	filp_close(f, NULL);
	access_teardown(&a);
}

/* A whole query through the kernel's check: what it grants, nothing else. */
static void access_kernel_check_query(struct kunit *test)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = 1 };
	struct stackinfo_module_caller mc;
	struct access_ctx a;
	struct file *f;

	access_setup(test, &a);
	f = access_proc_caller(test, &mc.c);
	stackinfo_allow_cap_sys_ptrace = false;
	KUNIT_ASSERT_EQ(test, stackinfo_query(&mc.c, &q), 0);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_SP_VMA);
	/* kthreadd: the kernel lets anyone see it has no mm */
	q.tid = 2;
	KUNIT_EXPECT_EQ(test, stackinfo_query(&mc.c, &q), -ENOENT);
	become_uid(test, &a, 1000);
	q.tid = 1;
	KUNIT_EXPECT_EQ(test, stackinfo_query(&mc.c, &q), -EACCES);
	KUNIT_EXPECT_EQ(test, q.valid, 0ULL);
	q.tid = 2;
	KUNIT_EXPECT_EQ(test, stackinfo_query(&mc.c, &q), -ENOENT);
	stackinfo_caller_put(&mc.c);
	filp_close(f, NULL);
	access_teardown(&a);
}

static struct kunit_case stackinfo_access_cases[] = {
	KUNIT_CASE(access_self),
	KUNIT_CASE(access_other_capable_refused),
	KUNIT_CASE(access_cap_param),
	KUNIT_CASE(access_cap_param_fd_opener),
	KUNIT_CASE(access_proof_fops_learnt),
	KUNIT_CASE(access_proof_mem),
	KUNIT_CASE(access_proof_auxv),
	KUNIT_CASE(access_proof_other_files),
	KUNIT_CASE(access_proof_query),
	KUNIT_CASE(access_kernel_check),
	KUNIT_CASE(access_kernel_check_query),
	{}
};

static struct kunit_suite stackinfo_access_suite = {
	.name = "stackinfo_access",
	.init = stackinfo_case_init,
	.exit = stackinfo_case_exit,
	.test_cases = stackinfo_access_cases,
};

kunit_test_suite(stackinfo_access_suite);
