// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite stackinfo_query, for module/query.c (and module/grant.c, the
 * kernel asked for another process's thread): the VMA walk on real
 * mms (each case lays out its own, util.c), the vm_flags it reports,
 * stackinfo_query() on tids, and the lock-free look against the locked one.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/umh.h>

#include "../module/module.h"
#include "../module/stackinfo.h"
#include "util.h"

static int vma_at(struct kunit *test, unsigned long addr,
		  struct stackinfo_vma *v)
{
	struct mm_struct *mm = current->mm;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, mm);
	mmap_read_lock(mm);
	ret = stackinfo_vma_at(mm, addr, v);
	mmap_read_unlock(mm);
	return ret;
}

/* ---- VMA flags: kernel vm_flags to the ABI's STACKINFO_VMA_* ---- */

struct flags_case {
	const char *name;
	unsigned long vm_flags;
	u64 want;
};

static const struct flags_case flags_cases[] = {
	{ "none", 0, 0 },
	{ "read", VM_READ, STACKINFO_VMA_READ },
	{ "write", VM_WRITE, STACKINFO_VMA_WRITE },
	{ "exec", VM_EXEC, STACKINFO_VMA_EXEC },
	{ "mayshare", VM_MAYSHARE, STACKINFO_VMA_SHARED },
	{ "growsdown", VM_GROWSDOWN, STACKINFO_VMA_GROWSDOWN },
	{ "stack rw",
	  VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_GROWSDOWN,
	  STACKINFO_VMA_READ | STACKINFO_VMA_WRITE | STACKINFO_VMA_GROWSDOWN },
	{ "shared r-x", VM_READ | VM_EXEC | VM_SHARED | VM_MAYSHARE,
	  STACKINFO_VMA_READ | STACKINFO_VMA_EXEC | STACKINFO_VMA_SHARED },
	{ "unreported bits", VM_LOCKED | VM_DONTCOPY | VM_ACCOUNT, 0 },
};

static void flags_desc(const struct flags_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(flags, flags_cases, flags_desc);

static void vma_flags_translate(struct kunit *test)
{
	const struct flags_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, stackinfo_vma_flags(c->vm_flags), c->want);
}

/* ---- the query core on a real mm ---- */

static void vma_at_middle(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, 4 * SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 2 * SZ + 123, &v), 0);
	KUNIT_EXPECT_TRUE(test, v.found);
	KUNIT_EXPECT_EQ(test, v.start, BASE);
	KUNIT_EXPECT_EQ(test, v.end, BASE + 4 * SZ);
	KUNIT_EXPECT_EQ(test, v.flags,
			STACKINFO_VMA_READ | STACKINFO_VMA_WRITE);
}

static void vma_at_boundaries(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, 2 * SZ, PROT_READ, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE, &v), 0);
	KUNIT_EXPECT_EQ(test, v.start, BASE);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 2 * SZ - 1, &v), 0);
	KUNIT_EXPECT_EQ(test, v.end, BASE + 2 * SZ);
	/* the end is exclusive */
	KUNIT_EXPECT_EQ(test, vma_at(test, BASE + 2 * SZ, &v), -ENOENT);
	KUNIT_EXPECT_FALSE(test, v.found);
	KUNIT_EXPECT_EQ(test, vma_at(test, BASE - 1, &v), -ENOENT);
}

static void vma_at_gap(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	map_at(test, BASE + 16 * SZ, SZ, PROT_READ, MAP_TEST);
	KUNIT_EXPECT_EQ(test, vma_at(test, BASE + 8 * SZ, &v), -ENOENT);
	KUNIT_EXPECT_FALSE(test, v.found);
	KUNIT_EXPECT_FALSE(test, v.has_prev);
	KUNIT_EXPECT_FALSE(test, v.has_guard);
}

/*
 * The last byte of a gap belongs to no VMA, whatever starts one byte
 * above it: 6.1's vma_find(addr + 1) returned that VMA.
 */
static void vma_at_gap_last_byte(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	map_at(test, BASE + 16 * SZ, SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_EXPECT_EQ(test, vma_at(test, BASE + 16 * SZ - 1, &v), -ENOENT);
	KUNIT_EXPECT_FALSE(test, v.found);
	/* and the first byte of the gap, just above the lower VMA */
	KUNIT_EXPECT_EQ(test, vma_at(test, BASE + SZ, &v), -ENOENT);
	/* the VMA above starts where it says */
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 16 * SZ, &v), 0);
	KUNIT_EXPECT_EQ(test, v.start, BASE + 16 * SZ);
	KUNIT_EXPECT_EQ(test, v.prev_end, BASE + SZ);
}

/* Adjacent VMAs: the last byte of one and the first of the next. */
static void vma_at_adjacent_edges(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, 2 * SZ, PROT_READ, MAP_TEST);
	map_at(test, BASE + 2 * SZ, 2 * SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 2 * SZ - 1, &v), 0);
	KUNIT_EXPECT_EQ(test, v.start, BASE);
	KUNIT_EXPECT_EQ(test, v.end, BASE + 2 * SZ);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 2 * SZ, &v), 0);
	KUNIT_EXPECT_EQ(test, v.start, BASE + 2 * SZ);
	KUNIT_EXPECT_EQ(test, v.prev_end, BASE + 2 * SZ);
	KUNIT_EXPECT_FALSE(test, v.has_guard);
}

/* Addresses no user SP should have: 0, the kernel's, non-canonical ones. */
static void vma_at_impossible_addresses(struct kunit *test)
{
	static const unsigned long addrs[] = {
		0,
		1,
		PAGE_SIZE - 1,
		0x0000800000000000UL,
		0x00ff000000000000UL,
		0xffff800000000000UL,
		ULONG_MAX - 7,
	};
	struct stackinfo_vma v;
	unsigned int i;

	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		KUNIT_EXPECT_EQ_MSG(test, vma_at(test, addrs[i], &v), -ENOENT,
				    "addr %#lx", addrs[i]);
		KUNIT_EXPECT_FALSE(test, v.found);
	}
}

static void vma_at_beyond_task_size(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	KUNIT_EXPECT_EQ(test, vma_at(test, current->mm->task_size, &v),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, vma_at(test, ULONG_MAX, &v), -ENOENT);
	KUNIT_EXPECT_FALSE(test, v.found);
}

/* The VMA below at several distances: adjacent, inside the gap, far. */
struct prev_case {
	const char *name;
	unsigned long below; /* bytes between the VMA below and ours */
};

static const struct prev_case prev_cases[] = {
	{ "adjacent", 0 },
	{ "one page", SZ },
	{ "inside the 1 MiB guard gap", 64 * SZ },
	{ "at the guard gap", 256 * SZ },
	{ "far (1 GiB)", 1UL << 30 },
};

static void prev_desc(const struct prev_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(prev, prev_cases, prev_desc);

static void vma_at_prev_distance(struct kunit *test)
{
	const struct prev_case *c = test->param_value;
	unsigned long stack = BASE + (2UL << 30);
	struct stackinfo_vma v;

	/* different protections, so that an adjacent pair cannot merge */
	map_at(test, stack - c->below - 2 * SZ, 2 * SZ, PROT_READ, MAP_TEST);
	map_at(test, stack, 8 * SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, stack + 5 * SZ, &v), 0);
	KUNIT_EXPECT_EQ(test, v.start, stack);
	KUNIT_EXPECT_TRUE(test, v.has_prev);
	KUNIT_EXPECT_EQ(test, v.prev_end, stack - c->below);
	/* readable: a neighbour, never a guard */
	KUNIT_EXPECT_FALSE(test, v.has_guard);
}

/* Below everything any mm starts with (a static busybox sits at 4 MiB). */
#define LOW 0x100000UL

static void vma_at_no_prev(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, LOW, SZ, PROT_READ, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, LOW, &v), 0);
	KUNIT_EXPECT_FALSE(test, v.has_prev);
	KUNIT_EXPECT_EQ(test, v.prev_end, 0UL);
}

static void vma_at_guard_below(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, SZ, PROT_NONE, MAP_TEST);
	map_at(test, BASE + SZ, 8 * SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 4 * SZ, &v), 0);
	KUNIT_EXPECT_TRUE(test, v.has_guard);
	KUNIT_EXPECT_EQ(test, v.guard_start, BASE);
	KUNIT_EXPECT_EQ(test, v.guard_end, BASE + SZ);
	KUNIT_EXPECT_EQ(test, v.prev_end, BASE + SZ);
}

static void vma_at_prot_none_not_touching(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, SZ, PROT_NONE, MAP_TEST);
	map_at(test, BASE + 2 * SZ, 8 * SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 4 * SZ, &v), 0);
	KUNIT_EXPECT_FALSE(test, v.has_guard);
	KUNIT_EXPECT_TRUE(test, v.has_prev);
	KUNIT_EXPECT_EQ(test, v.prev_end, BASE + SZ);
}

static void vma_at_inside_guard(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, SZ, PROT_NONE, MAP_TEST);
	map_at(test, BASE + SZ, SZ, PROT_READ, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 10, &v), 0);
	KUNIT_EXPECT_EQ(test, v.start, BASE);
	KUNIT_EXPECT_EQ(test, v.flags, 0ULL);
}

static void vma_at_growsdown(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, 4 * SZ, PROT_READ | PROT_WRITE,
	       MAP_TEST | MAP_GROWSDOWN);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + SZ, &v), 0);
	KUNIT_EXPECT_TRUE(test, v.flags & STACKINFO_VMA_GROWSDOWN);
}

static void vma_at_shared(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, 2 * SZ, PROT_READ,
	       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE, &v), 0);
	KUNIT_EXPECT_EQ(test, v.flags,
			STACKINFO_VMA_READ | STACKINFO_VMA_SHARED);
}

#define MANY_VMAS 4000

static void vma_at_thousands(struct kunit *test)
{
	static const unsigned long probe[] = { 0, 1, 2, 1999, 2000, 3998, 3999 };
	struct stackinfo_vma v;
	unsigned long i;

	for (i = 0; i < MANY_VMAS; i++) {
		map_at(test, BASE + i * SZ, SZ,
		       i & 1 ? PROT_READ : PROT_READ | PROT_WRITE, MAP_TEST);
		/* 4 000 mmaps under KASAN: not without a break (soft lockup) */
		cond_resched();
	}
	KUNIT_ASSERT_GE(test, current->mm->map_count, MANY_VMAS);
	for (i = 0; i < ARRAY_SIZE(probe); i++) {
		unsigned long page = probe[i];

		KUNIT_ASSERT_EQ(test, vma_at(test, BASE + page * SZ + 7, &v),
				0);
		KUNIT_EXPECT_EQ(test, v.start, BASE + page * SZ);
		KUNIT_EXPECT_EQ(test, v.end, BASE + (page + 1) * SZ);
		/* below the first: whatever the mm started with, under BASE */
		if (page)
			KUNIT_EXPECT_EQ(test, v.prev_end, BASE + page * SZ);
		else
			KUNIT_EXPECT_TRUE(test,
					  !v.has_prev || v.prev_end <= BASE);
	}
	KUNIT_EXPECT_EQ(test, vma_at(test, BASE + MANY_VMAS * SZ, &v), -ENOENT);
}

static void vma_at_never_stale(struct kunit *test)
{
	struct stackinfo_vma v;

	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	map_at(test, BASE + 8 * SZ, SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 8 * SZ, &v), 0);
	KUNIT_EXPECT_EQ(test, v.prev_end, BASE + SZ);
	/* a new neighbour closer below is seen at once */
	map_at(test, BASE + 4 * SZ, SZ, PROT_NONE, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 8 * SZ, &v), 0);
	KUNIT_EXPECT_EQ(test, v.prev_end, BASE + 5 * SZ);
	/* and gone at once */
	KUNIT_ASSERT_EQ(test, vm_munmap(BASE + 4 * SZ, SZ), 0);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE + 8 * SZ, &v), 0);
	KUNIT_EXPECT_EQ(test, v.prev_end, BASE + SZ);
}

/* ---- stackinfo_query(): tids and what comes back ---- */

/* A query as the ioctl makes it, for this kthread through no fd. */
static int query_tid(u32 tid, u64 flags, struct stackinfo_query *q)
{
	struct stackinfo_module_caller mc;
	int err;

	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->tid = tid;
	q->query_flags = flags;
	err = stackinfo_caller_get(&mc.c, NULL, false, 0);
	if (!err)
		err = stackinfo_query(&mc.c, q);
	stackinfo_caller_put(&mc.c);
	return err;
}

static void query_init(struct kunit *test)
{
	struct stackinfo_query q;

	KUNIT_ASSERT_EQ(test, query_tid(1, 0, &q), 0);
	KUNIT_EXPECT_EQ(test, q.out_tid, 1U);
	KUNIT_EXPECT_EQ(test, q.tgid, 1U);
	KUNIT_EXPECT_EQ(test, q.thread_flags, STACKINFO_THREAD_MAIN);
	KUNIT_EXPECT_GT(test, q.map_count, 0U);
	KUNIT_ASSERT_TRUE(test, q.valid & STACKINFO_VALID_MAIN_VMA);
	KUNIT_EXPECT_LE(test, q.main_vma_start, q.start_stack);
	KUNIT_EXPECT_GT(test, q.main_vma_end, q.start_stack);
	KUNIT_EXPECT_TRUE(test, q.main_vma_flags & STACKINFO_VMA_GROWSDOWN);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_RLIMIT);
	/* init is blocked in the kernel: its saved SP is on its stack */
	KUNIT_ASSERT_TRUE(test, q.valid & STACKINFO_VALID_SP_VMA);
	KUNIT_EXPECT_EQ(test, q.sp_vma_start, q.main_vma_start);
}

static void query_no_sp(struct kunit *test)
{
	struct stackinfo_query q;

	KUNIT_ASSERT_EQ(test, query_tid(1, STACKINFO_QUERY_NO_SP, &q), 0);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_MAIN_VMA);
	KUNIT_EXPECT_FALSE(test, q.valid & (STACKINFO_VALID_SP |
					    STACKINFO_VALID_SP_VMA |
					    STACKINFO_VALID_SP_PREV |
					    STACKINFO_VALID_SP_GUARD));
	KUNIT_EXPECT_EQ(test, q.sp, 0ULL);
}

static void query_no_such_tid(struct kunit *test)
{
	struct stackinfo_query q;

	KUNIT_EXPECT_EQ(test, query_tid(PID_MAX_LIMIT - 1, 0, &q), -ESRCH);
	KUNIT_EXPECT_EQ(test, query_tid(PID_MAX_LIMIT + 1, 0, &q), -ESRCH);
	KUNIT_EXPECT_EQ(test, query_tid(U32_MAX, 0, &q), -ESRCH);
}

static void query_kernel_thread(struct kunit *test)
{
	struct stackinfo_query q;

	KUNIT_EXPECT_EQ(test, query_tid(2, 0, &q), -ENOENT); /* kthreadd */
	/* tid 0 is the caller: this case runs in a kthread */
	KUNIT_EXPECT_EQ(test, query_tid(0, 0, &q), -ENOENT);
	/* to a caller the policy refuses, a kernel thread is any process */
	stackinfo_allow_cap_sys_ptrace = false;
	KUNIT_EXPECT_EQ(test, query_tid(2, 0, &q), -EACCES);
}

static int ask_kernel_result;

static int ask_kernel_fake(const struct stackinfo_caller *c,
			   struct task_struct *task, bool want_sp,
			   enum stackinfo_grant have, pid_t *nr)
{
	*nr = task_pid_vnr(task);
	return ask_kernel_result;
}

/*
 * A proof that grants less than the query needs (auxv: all but the SP):
 * the kernel is asked for the rest, and only its refusal leaves the
 * proof's grant; a check that fails otherwise (no memory, a fatal
 * signal) is the query's answer, not an answer without the SP.
 */
static void query_check_failure_is_the_answer(struct kunit *test)
{
	static const int results[] = { -EACCES, -ESRCH, -ENOMEM, -EINTR };
	struct stackinfo_module_caller mc;
	struct stackinfo_query q;
	struct file *auxv;
	unsigned int i;
	int err;

	if (!stackinfo_proof_fds_work())
		kunit_skip(test, "proof fds do not work on this kernel");
	stackinfo_allow_cap_sys_ptrace = false;
	for (i = 0; i < ARRAY_SIZE(results); i++) {
		auxv = filp_open("/proc/1/auxv", O_RDONLY, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(auxv));
		KUNIT_ASSERT_EQ(test,
				stackinfo_caller_get(&mc.c, NULL, false, 0), 0);
		KUNIT_ASSERT_EQ(test, stackinfo_caller_set_proof(&mc.c, auxv),
				0);
		mc.ask_kernel = ask_kernel_fake;
		ask_kernel_result = results[i];
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.tid = 1;
		err = stackinfo_query(&mc.c, &q);
		stackinfo_caller_put(&mc.c);
		if (results[i] == -EACCES || results[i] == -ESRCH) {
			KUNIT_EXPECT_EQ_MSG(test, err, 0, "check %d",
					    results[i]);
			KUNIT_EXPECT_TRUE(test,
					  q.valid & STACKINFO_VALID_MAIN_VMA);
			KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_SP);
		} else {
			KUNIT_EXPECT_EQ_MSG(test, err, results[i], "check %d",
					    results[i]);
		}
	}
}

static int ask_kernel_calls;
static enum stackinfo_grant ask_kernel_had[4];
/* the kernel's answers about the SP, call by call: 0 refuses it */
static bool ask_kernel_sp[4];

/*
 * The kernel as a tracer of some threads sees it: maps for anyone, the
 * SP where ask_kernel_sp[] says; each call's @have recorded.
 */
static int ask_kernel_counted(const struct stackinfo_caller *c,
			      struct task_struct *task, bool want_sp,
			      enum stackinfo_grant have, pid_t *nr)
{
	int i = ask_kernel_calls++;

	*nr = task_pid_vnr(task);
	if (i < ARRAY_SIZE(ask_kernel_had))
		ask_kernel_had[i] = have;
	if (want_sp && i < ARRAY_SIZE(ask_kernel_sp) && ask_kernel_sp[i])
		return STACKINFO_GRANT_ALL;
	return STACKINFO_GRANT_NO_SP;
}

/* Three queries about init in one call, their answers about its SP. */
static void query_three(struct kunit *test, struct stackinfo_module_caller *mc,
			bool sp[3])
{
	struct stackinfo_query q;
	int i;

	ask_kernel_calls = 0;
	memset(ask_kernel_had, 0, sizeof(ask_kernel_had));
	KUNIT_ASSERT_EQ(test, stackinfo_caller_get(&mc->c, NULL, false, 0), 0);
	mc->ask_kernel = ask_kernel_counted;
	for (i = 0; i < 3; i++) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.tid = 1;
		/* first without the SP, then twice with it */
		q.query_flags = i ? 0 : STACKINFO_QUERY_NO_SP;
		KUNIT_EXPECT_EQ(test, stackinfo_query(&mc->c, &q), 0);
		sp[i] = q.valid & STACKINFO_VALID_SP;
	}
	stackinfo_caller_put(&mc->c);
}

/*
 * A call keeps the kernel's "yes" to maps for the next question about the
 * same credentials and mm while the process is dumpable (grant.c), and
 * nothing about the SP: each question about the SP is the kernel's, asked
 * on top of maps' grant (the SP alone), and its answer is that
 * question's. A thread refused the SP does not withhold it from the next
 * (a traced one), nor one given it give it to the next.
 */
static void query_memo_keeps_maps_not_the_sp(struct kunit *test)
{
	static const bool answers[][3] = {
		{ false, true, false },
		{ false, false, true },
	};
	struct stackinfo_module_caller mc;
	struct task_struct *init;
	bool dumpable, sp[3];
	unsigned int k;

	stackinfo_allow_cap_sys_ptrace = false;
	rcu_read_lock();
	init = pid_task(find_vpid(1), PIDTYPE_PID);
	dumpable = init &&
		   task_exec_state_get_dumpable(init) == TASK_DUMPABLE_OWNER;
	rcu_read_unlock();
	for (k = 0; k < ARRAY_SIZE(answers); k++) {
		memcpy(ask_kernel_sp, answers[k], sizeof(answers[k]));
		query_three(test, &mc, sp);
		KUNIT_EXPECT_FALSE(test, sp[0]);
		KUNIT_EXPECT_EQ_MSG(test, sp[1], answers[k][1], "answers %u",
				    k);
		KUNIT_EXPECT_EQ_MSG(test, sp[2], answers[k][2], "answers %u",
				    k);
		/* every question about the SP asked; maps' asked once */
		KUNIT_EXPECT_EQ(test, ask_kernel_calls, 3);
		KUNIT_EXPECT_EQ(test, ask_kernel_had[0], STACKINFO_GRANT_NONE);
		KUNIT_EXPECT_EQ(test, ask_kernel_had[1],
				dumpable ? STACKINFO_GRANT_NO_SP :
					   STACKINFO_GRANT_NONE);
		KUNIT_EXPECT_EQ(test, ask_kernel_had[2],
				dumpable ? STACKINFO_GRANT_NO_SP :
					   STACKINFO_GRANT_NONE);
	}
}

/*
 * A batch counts its process's threads only while the process runs the
 * image its check was about (c->image): with another mm there (an exec
 * since), nothing is counted and nothing referenced.
 */
static void query_threads_of_one_image(struct kunit *test)
{
	struct stackinfo_module_caller mc;
	struct task_struct *init, *tasks[1];
	struct mm_struct *mm;
	u32 nr = 77;

	init = stackinfo_get_init(test, &mm);
	KUNIT_ASSERT_EQ(test, stackinfo_caller_get(&mc.c, NULL, false, 0), 0);
	/* this case's own mm stands for the image an exec left behind */
	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	mc.c.image = current->mm;
	KUNIT_EXPECT_EQ(test, stackinfo_threads_get(&mc.c, init, NULL, 0, &nr),
			-ESTALE);
	KUNIT_EXPECT_EQ(test, nr, 0);
	mc.c.image = mm;
	KUNIT_EXPECT_EQ(test, stackinfo_threads_get(&mc.c, init, NULL, 0, &nr),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, nr, 1);
	KUNIT_EXPECT_EQ(test, stackinfo_threads_get(&mc.c, init, tasks, 1, &nr),
			0);
	KUNIT_EXPECT_EQ(test, nr, 1);
	if (nr == 1)
		put_task_struct(tasks[0]);
	mc.c.image = NULL;
	stackinfo_caller_put(&mc.c);
	mmput(mm);
	put_task_struct(init);
}

/*
 * Every path drops what it took: task and mm references stay balanced.
 * mm_users, not mm_count, which the module never takes (mmgrab()) and the
 * scheduler moves on its own: a CPU that switched from init to a kthread
 * keeps init's mm as its lazy active_mm, with an mm_count reference,
 * until it switches to another mm (kernel/sched/core.c, context_switch();
 * debug-6.12 once saw it go from 5 to 1 across this case).
 */
static void query_balances_references(struct kunit *test)
{
	unsigned int task_refs, mm_users, i;
	struct task_struct *init;
	struct stackinfo_query q;
	struct mm_struct *mm;
	struct cred *dropped;
	const struct cred *saved;

	init = stackinfo_get_init(test, &mm);
	dropped = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, dropped);
	cap_lower(dropped->cap_effective, CAP_SYS_PTRACE);

	task_refs = refcount_read(&init->usage);
	mm_users = atomic_read(&mm->mm_users);
	for (i = 0; i < 50; i++) {
		KUNIT_EXPECT_EQ(test, query_tid(1, 0, &q), 0);
		KUNIT_EXPECT_EQ(test, query_tid(1, STACKINFO_QUERY_NO_SP, &q),
				0);
		KUNIT_EXPECT_EQ(test, query_tid(2, 0, &q), -ENOENT);
		saved = override_creds(dropped);
		KUNIT_EXPECT_EQ(test, query_tid(1, 0, &q), -EACCES);
		revert_creds(saved);
	}
	KUNIT_EXPECT_EQ(test, refcount_read(&init->usage), task_refs);
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_users), mm_users);
	put_cred(dropped);
	mmput(mm);
	put_task_struct(init);
}

static void query_clears_out_fields(struct kunit *test)
{
	struct stackinfo_query q;

	struct stackinfo_module_caller mc;

	memset(&q, 0xa5, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = 0;
	q.tid = 2;
	q.reserved = 0;
	KUNIT_ASSERT_EQ(test, stackinfo_caller_get(&mc.c, NULL, false, 0), 0);
	KUNIT_EXPECT_EQ(test, stackinfo_query(&mc.c, &q), -ENOENT);
	stackinfo_caller_put(&mc.c);
	KUNIT_EXPECT_EQ(test, q.size, (u64)sizeof(q));
	KUNIT_EXPECT_EQ(test, q.tid, 2U);
	KUNIT_EXPECT_EQ(test, q.valid, 0ULL);
	KUNIT_EXPECT_EQ(test, q.out_tid, 0U);
	KUNIT_EXPECT_EQ(test, q.sp, 0ULL);
	KUNIT_EXPECT_EQ(test, q.guard_gap, 0ULL);
}

/* ---- a thread released while the query looked (module/query.c) ---- */

struct reap_proc {
	struct task_struct *leader;
};

static int reap_proc_started(struct subprocess_info *info, struct cred *new)
{
	struct reap_proc *p = info->data;

	p->leader = get_task_struct(current);
	return 0;
}

/*
 * A reference on a non-leader thread of a process of its own (started
 * with the usermode helper, whose children kthreadd reaps), the process
 * killed and reaped, the leader's last reference dropped by its RCU
 * callback (rcu_barrier()): then the rlimit read, which reaches the
 * leader, must see that the thread is released and touch nothing of it.
 */
static void query_rlimit_after_reap(struct kunit *test)
{
	char path[] = "/usr/bin/thread-sleeper", two[] = "2";
	struct task_struct *t, *thread = NULL;
	char *argv[3], *envp[1];
	struct subprocess_info *info;
	struct reap_proc p = {};
	struct pid *leader_pid;
	struct rlimit rlim;
	bool gone = false;
	int i, err;

	argv[0] = path;
	argv[1] = two;
	argv[2] = NULL;
	envp[0] = NULL;
	info = call_usermodehelper_setup(path, argv, envp, GFP_KERNEL,
					 reap_proc_started, NULL, &p);
	KUNIT_ASSERT_NOT_NULL(test, info);
	err = call_usermodehelper_exec(info, UMH_WAIT_EXEC);
	if (err || !p.leader) {
		if (p.leader)
			put_task_struct(p.leader);
		kunit_skip(test, "cannot start %s: %d", path, err);
	}
	for (i = 0; i < 250 && !thread; i++) {
		rcu_read_lock();
		for_each_thread(p.leader, t) {
			if (t != p.leader) {
				thread = get_task_struct(t);
				break;
			}
		}
		rcu_read_unlock();
		if (!thread)
			msleep(20);
	}
	leader_pid = get_task_pid(p.leader, PIDTYPE_PID);
	kill_pid(leader_pid, SIGKILL, 1);
	/* from here the leader is pinned by nothing of ours */
	put_task_struct(p.leader);
	if (!thread) {
		put_pid(leader_pid);
		KUNIT_FAIL(test, "%s started no thread", path);
		return;
	}
	for (i = 0; i < 250 && !gone; i++) {
		rcu_read_lock();
		gone = !pid_alive(thread) && !pid_task(leader_pid, PIDTYPE_PID);
		rcu_read_unlock();
		if (!gone)
			msleep(20);
	}
	put_pid(leader_pid);
	KUNIT_EXPECT_TRUE_MSG(test, gone, "the process was not reaped");
	/*
	 * release_task() queues the leader's last put after it unhashed it,
	 * and on PREEMPT_RT that put queues one more callback: wait, then
	 * let two rounds of callbacks run.
	 */
	msleep(100);
	rcu_barrier();
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, stackinfo_rlimit_stack(thread, &rlim), -ESRCH);
	put_task_struct(thread);
}

/* ---- the lock-free look against the locked one ---- */

static void skip_unless_lockfree(struct kunit *test)
{
	if (!STACKINFO_HAVE_LOCKFREE)
		kunit_skip(test, "no lock-free path in this build (%s)",
			   STACKINFO_LOCKFREE_HOW);
}

/*
 * A stack-like layout: a read-only page, a PROT_NONE guard touching a
 * three-page RW "stack", and a lone RW page above. Returns an SP in it.
 */
static unsigned long map_stack_layout(struct kunit *test)
{
	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	map_at(test, BASE + 4 * SZ, SZ, PROT_NONE, MAP_TEST);
	map_at(test, BASE + 5 * SZ, 3 * SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	map_at(test, BASE + 12 * SZ, SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	return BASE + 6 * SZ + 24;
}

static void lockfree_matches_locked(struct kunit *test)
{
	struct mm_struct *mm;
	struct stackinfo_look fast = {}, slow = {};
	unsigned long sp, addrs[5];
	unsigned int i;
	int err;

	skip_unless_lockfree(test);
	sp = map_stack_layout(test);
	mm = current->mm;
	addrs[0] = sp;
	addrs[1] = BASE + 4 * SZ + 1; /* in the guard */
	addrs[2] = BASE + 12 * SZ; /* lone page: the stack is below */
	addrs[3] = BASE + 2 * SZ; /* nothing there */
	addrs[4] = ~0UL; /* beyond task_size */
	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		/* and the address walk, about another of them */
		fast.addr = addrs[(i + 1) % ARRAY_SIZE(addrs)];
		slow.addr = fast.addr;
		fast.want_addr = true;
		slow.want_addr = true;
		/* nothing else writes this mm: the look must not give way */
		KUNIT_ASSERT_TRUE(test,
				  stackinfo_look_lockless(mm, addrs[i], true,
							  &fast, NULL));
		err = stackinfo_look_locked(mm, addrs[i], true, &slow);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_EXPECT_MEMEQ(test, &fast, &slow, sizeof(fast));
	}
	/* and it is the right answer, not only the same one */
	fast.want_addr = false;
	KUNIT_ASSERT_TRUE(test,
			  stackinfo_look_lockless(mm, sp, true, &fast, NULL));
	KUNIT_EXPECT_TRUE(test, fast.sp_vma.found);
	KUNIT_EXPECT_EQ(test, fast.sp_vma.start, BASE + 5 * SZ);
	KUNIT_EXPECT_EQ(test, fast.sp_vma.end, BASE + 8 * SZ);
	KUNIT_EXPECT_EQ(test, fast.sp_vma.prev_end, BASE + 5 * SZ);
	KUNIT_EXPECT_TRUE(test, fast.sp_vma.has_guard);
	KUNIT_EXPECT_EQ(test, fast.sp_vma.guard_start, BASE + 4 * SZ);
	KUNIT_EXPECT_EQ(test, fast.map_count, mm->map_count);
}

/* A writer between the walk and the check: nothing changes, yet it shows. */
static void take_and_drop_mmap_lock(struct mm_struct *mm)
{
	mmap_write_lock(mm);
	mmap_write_unlock(mm);
}

static void lockfree_gives_way_after_writer(struct kunit *test)
{
	struct stackinfo_look l = {};
	unsigned long sp;

	skip_unless_lockfree(test);
	sp = map_stack_layout(test);
	KUNIT_EXPECT_FALSE(test,
			   stackinfo_look_lockless(current->mm, sp, true, &l,
						   take_and_drop_mmap_lock));
	/* the same look with no writer answers */
	KUNIT_EXPECT_TRUE(test, stackinfo_look_lockless(current->mm, sp, true,
							&l, NULL));
}

static void lockfree_gives_way_to_held_lock(struct kunit *test)
{
	struct mm_struct *mm;
	struct stackinfo_look l = {};
	unsigned long sp;
	bool answered;

	skip_unless_lockfree(test);
	sp = map_stack_layout(test);
	mm = current->mm;
	mmap_write_lock(mm);
	answered = stackinfo_look_lockless(mm, sp, true, &l, NULL);
	mmap_write_unlock(mm);
	KUNIT_EXPECT_FALSE(test, answered);
}

/* The guard below the stack goes away between the walk and the check. */
static void unmap_guard(struct mm_struct *mm)
{
	WARN_ON(vm_munmap(BASE + 4 * SZ, SZ));
}

/* stackinfo_look() then answers under mmap_lock, with the new layout. */
static void lockfree_fallback_sees_change(struct kunit *test)
{
	bool was = READ_ONCE(stackinfo_lockfree);
	unsigned long sp, hits, fallbacks;
	struct stackinfo_look l = {};

	skip_unless_lockfree(test);
	sp = map_stack_layout(test);
	WRITE_ONCE(stackinfo_lockfree, true);
	hits = stackinfo_lockfree_count(true);
	fallbacks = stackinfo_lockfree_count(false);
	KUNIT_ASSERT_EQ(test,
			stackinfo_look(current->mm, sp, true, &l, unmap_guard),
			0);
	WRITE_ONCE(stackinfo_lockfree, was);
	KUNIT_EXPECT_GE(test, stackinfo_lockfree_count(false), fallbacks + 1);
	KUNIT_EXPECT_EQ(test, l.sp_vma.start, BASE + 5 * SZ);
	/* the guard's end before; now the read-only page's */
	KUNIT_EXPECT_EQ(test, l.sp_vma.prev_end, BASE + SZ);
	KUNIT_EXPECT_FALSE(test, l.sp_vma.has_guard);
	/* and with no writer the lock-free look answers, and is counted */
	WRITE_ONCE(stackinfo_lockfree, true);
	KUNIT_ASSERT_EQ(test, stackinfo_look(current->mm, sp, true, &l, NULL),
			0);
	WRITE_ONCE(stackinfo_lockfree, was);
	KUNIT_EXPECT_GE(test, stackinfo_lockfree_count(true), hits + 1);
	KUNIT_EXPECT_EQ(test, l.sp_vma.prev_end, BASE + SZ);
}

/* Where the kernel has no sequence to check, only the locked look runs. */
static void lockfree_off_where_unavailable(struct kunit *test)
{
	struct stackinfo_look l = {};
	unsigned long sp;

	if (STACKINFO_HAVE_LOCKFREE)
		kunit_skip(test, "this build has the lock-free path (%s)",
			   STACKINFO_LOCKFREE_HOW);
	sp = map_stack_layout(test);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(stackinfo_lockfree));
	KUNIT_EXPECT_FALSE(test, stackinfo_look_lockless(current->mm, sp, true,
							 &l, NULL));
	KUNIT_ASSERT_EQ(test, stackinfo_look(current->mm, sp, true, &l, NULL),
			0);
	KUNIT_EXPECT_EQ(test, l.sp_vma.start, BASE + 5 * SZ);
	KUNIT_EXPECT_TRUE(test, l.sp_vma.has_guard);
}

static struct kunit_case stackinfo_query_cases[] = {
	KUNIT_CASE_PARAM(vma_flags_translate, flags_gen_params),
	KUNIT_CASE(vma_at_middle),
	KUNIT_CASE(vma_at_boundaries),
	KUNIT_CASE(vma_at_gap),
	KUNIT_CASE(vma_at_gap_last_byte),
	KUNIT_CASE(vma_at_adjacent_edges),
	KUNIT_CASE(vma_at_impossible_addresses),
	KUNIT_CASE(vma_at_beyond_task_size),
	KUNIT_CASE_PARAM(vma_at_prev_distance, prev_gen_params),
	KUNIT_CASE(vma_at_no_prev),
	KUNIT_CASE(vma_at_guard_below),
	KUNIT_CASE(vma_at_prot_none_not_touching),
	KUNIT_CASE(vma_at_inside_guard),
	KUNIT_CASE(vma_at_growsdown),
	KUNIT_CASE(vma_at_shared),
	KUNIT_CASE_SLOW(vma_at_thousands),
	KUNIT_CASE(vma_at_never_stale),
	KUNIT_CASE(query_init),
	KUNIT_CASE(query_no_sp),
	KUNIT_CASE(query_no_such_tid),
	KUNIT_CASE(query_kernel_thread),
	KUNIT_CASE(query_check_failure_is_the_answer),
	KUNIT_CASE(query_memo_keeps_maps_not_the_sp),
	KUNIT_CASE(query_threads_of_one_image),
	KUNIT_CASE(query_balances_references),
	KUNIT_CASE_SLOW(query_rlimit_after_reap),
	KUNIT_CASE(query_clears_out_fields),
	KUNIT_CASE(lockfree_matches_locked),
	KUNIT_CASE(lockfree_gives_way_after_writer),
	KUNIT_CASE(lockfree_gives_way_to_held_lock),
	KUNIT_CASE(lockfree_fallback_sees_change),
	KUNIT_CASE(lockfree_off_where_unavailable),
	{}
};

static struct kunit_suite stackinfo_query_suite = {
	.name = "stackinfo_query",
	.init = stackinfo_case_init,
	.exit = stackinfo_case_exit,
	.test_cases = stackinfo_query_cases,
};

kunit_test_suite(stackinfo_query_suite);
