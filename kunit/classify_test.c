// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite stackinfo_classify, for stackinfo_classify() (query.c): where
 * an address is, against the kernel itself. Each growth case lays out a
 * VM_GROWSDOWN VMA and a mapping below it in the case's own mm, classifies
 * an address below the stack, and then faults on it with copy_to_user():
 * the kernel's own fault path (lock_mm_and_find_vma(), expand_downwards(),
 * acct_stack_growth(), under this kthread's RLIMIT_STACK and the kernel's
 * stack_guard_gap) grows the stack over it exactly when the class says
 * STACKINFO_ADDR_GROWTH. The mapped cases check guard and mapping.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>

#include "../module/stackinfo.h"
#include "util.h"

struct growth_case {
	const char *name;
	int low_prot; /* the mapping at BASE */
	unsigned long low_flags; /* its mmap flags beyond MAP_TEST */
	unsigned long stack_flags; /* the stack's */
	long above_gap; /* the stack starts this far above BASE + SZ + gap */
	long below_stack; /* the address this far below it; -1: BASE + SZ */
	unsigned long rlim; /* RLIMIT_STACK for the case, 0: as it is */
	u32 want;
};

#define RW (PROT_READ | PROT_WRITE)
#define GD MAP_GROWSDOWN

static const struct growth_case growth_cases[] = {
	{ "far above the mapping below", PROT_READ, 0, GD, 64 * SZ, SZ, 0,
	  STACKINFO_ADDR_GROWTH },
	{ "a page inside the guard gap", PROT_READ, 0, GD, 64 * SZ, 65 * SZ, 0,
	  STACKINFO_ADDR_GUARD_GAP },
	{ "the last byte inside the guard gap", PROT_READ, 0, GD, 64 * SZ,
	  64 * SZ + 1, 0, STACKINFO_ADDR_GUARD_GAP },
	{ "exactly the guard gap above", PROT_READ, 0, GD, 64 * SZ, 64 * SZ, 0,
	  STACKINFO_ADDR_GROWTH },
	{ "PROT_NONE below keeps no gap", PROT_NONE, 0, GD, 64 * SZ, -1, 0,
	  STACKINFO_ADDR_GROWTH },
	{ "a stack below keeps no gap", RW, GD, GD, 64 * SZ, -1, 0,
	  STACKINFO_ADDR_GROWTH },
	{ "beyond RLIMIT_STACK", PROT_READ, 0, GD, 64 * SZ, 32 * SZ, 16 * SZ,
	  STACKINFO_ADDR_BEYOND_LIMIT },
	{ "RLIMIT_STACK exactly", PROT_READ, 0, GD, 64 * SZ, 15 * SZ, 16 * SZ,
	  STACKINFO_ADDR_GROWTH },
	{ "RLIMIT_STACK and a page", PROT_READ, 0, GD, 64 * SZ, 16 * SZ,
	  16 * SZ, STACKINFO_ADDR_BEYOND_LIMIT },
	{ "below a VMA that does not grow", PROT_READ, 0, 0, 64 * SZ, SZ, 0,
	  STACKINFO_ADDR_UNMAPPED },
};

static void growth_case_desc(const struct growth_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(growth, growth_cases, growth_case_desc);

/* This kthread's RLIMIT_STACK, which its own faults are held to. */
static unsigned long rlim_stack_set(unsigned long cur)
{
	struct rlimit *r = &current->signal->rlim[RLIMIT_STACK];
	unsigned long old;

	task_lock(current->group_leader);
	old = r->rlim_cur;
	if (cur)
		r->rlim_cur = cur;
	task_unlock(current->group_leader);
	return old;
}

/* Classify @addr in the case's mm as a query about a thread would. */
static u32 classify(struct kunit *test, unsigned long addr, unsigned long rlim,
		    struct stackinfo_query *q)
{
	struct stackinfo_look l = { .addr = addr, .want_addr = true };

	memset(q, 0, sizeof(*q));
	q->addr = addr;
	q->rlim_stack_cur = rlim == RLIM_INFINITY ? STACKINFO_RLIM_INFINITY :
						    rlim;
	q->guard_gap = stackinfo_guard_gap;
	q->valid = STACKINFO_VALID_RLIMIT | STACKINFO_VALID_GUARD_GAP;
	KUNIT_ASSERT_EQ(test, stackinfo_look_locked(current->mm, 0, false, &l),
			0);
	stackinfo_classify(&l, q);
	KUNIT_ASSERT_TRUE(test, q->valid & STACKINFO_VALID_ADDR);
	return q->addr_class;
}

static void classify_growth(struct kunit *test)
{
	const struct growth_case *c = test->param_value;
	unsigned long gap = stackinfo_guard_gap, stack, addr, old, rlim;
	struct stackinfo_query q;
	u8 byte = 0x5a;
	bool grew;

	if (!stackinfo_guard_gap_known)
		kunit_skip(test, "the module does not know stack_guard_gap");
	map_at(test, BASE, SZ, c->low_prot, MAP_TEST | c->low_flags);
	stack = BASE + SZ + gap + c->above_gap;
	map_at(test, stack, SZ, RW, MAP_TEST | c->stack_flags);
	addr = c->below_stack < 0 ? BASE + SZ : stack - c->below_stack;

	old = rlim_stack_set(c->rlim);
	rlim = READ_ONCE(current->signal->rlim[RLIMIT_STACK].rlim_cur);
	KUNIT_EXPECT_EQ(test, classify(test, addr, rlim, &q), c->want);
	if (c->want != STACKINFO_ADDR_UNMAPPED) {
		KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_ADDR_VMA);
		KUNIT_EXPECT_EQ(test, q.addr_vma_start, (u64)stack);
	}
	/* the kernel's own answer: does a fault there grow the stack? */
	grew = !copy_to_user((void __user *)addr, &byte, 1);
	rlim_stack_set(old);
	KUNIT_EXPECT_EQ_MSG(test, grew, c->want == STACKINFO_ADDR_GROWTH,
			    "fault at %#lx, stack at %#lx, gap %#lx", addr,
			    stack, gap);
	/* and grown, the address is in the stack's VMA */
	if (grew)
		KUNIT_EXPECT_EQ(test, classify(test, addr, rlim, &q),
				(u32)STACKINFO_ADDR_MAPPED);
}

/* A PROT_NONE VMA right below an accessible one: a thread stack's guard. */
static void classify_guard(struct kunit *test)
{
	struct stackinfo_query q;

	map_at(test, BASE, SZ, PROT_NONE, MAP_TEST);
	map_at(test, BASE + SZ, 4 * SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_EXPECT_EQ(test, classify(test, BASE + 8, RLIM_INFINITY, &q),
			(u32)STACKINFO_ADDR_GUARD);
	KUNIT_EXPECT_EQ(test, q.addr_vma_start, (u64)BASE);
	KUNIT_EXPECT_EQ(test, q.addr_vma_end, (u64)(BASE + SZ));
	KUNIT_EXPECT_EQ(test, q.addr_vma_flags, 0ULL);
	/* the stack above is only another mapping to this mm */
	KUNIT_EXPECT_EQ(test, classify(test, BASE + SZ, RLIM_INFINITY, &q),
			(u32)STACKINFO_ADDR_MAPPED);
}

/* PROT_NONE with a gap above, or under PROT_NONE: no guard of anything. */
static void classify_prot_none_alone(struct kunit *test)
{
	struct stackinfo_query q;

	map_at(test, BASE, SZ, PROT_NONE, MAP_TEST);
	map_at(test, BASE + 2 * SZ, SZ, PROT_READ, MAP_TEST);
	map_at(test, BASE + 8 * SZ, SZ, PROT_NONE, MAP_TEST);
	/* shared, so that it does not merge with the one below */
	map_at(test, BASE + 9 * SZ, SZ, PROT_NONE,
	       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE);
	KUNIT_EXPECT_EQ(test, classify(test, BASE, RLIM_INFINITY, &q),
			(u32)STACKINFO_ADDR_MAPPED);
	KUNIT_EXPECT_EQ(test, classify(test, BASE + 8 * SZ, RLIM_INFINITY, &q),
			(u32)STACKINFO_ADDR_MAPPED);
	KUNIT_EXPECT_EQ(test, classify(test, BASE + SZ, RLIM_INFINITY, &q),
			(u32)STACKINFO_ADDR_UNMAPPED);
	KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_ADDR_VMA);
}

/* The sigaltstack and the stack VMAs come first; beyond task_size nothing. */
static void classify_altstack_and_stack(struct kunit *test)
{
	struct stackinfo_look l = { .addr = BASE + SZ, .want_addr = true };
	struct stackinfo_query q = { .addr = BASE + SZ };

	unsigned long sp = BASE + 2 * SZ;
	int err;

	map_at(test, BASE, 4 * SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	err = stackinfo_look_locked(current->mm, sp, true, &l);
	KUNIT_ASSERT_EQ(test, err, 0);
	stackinfo_classify(&l, &q);
	KUNIT_EXPECT_EQ(test, q.addr_class, (u32)STACKINFO_ADDR_STACK);

	q = (struct stackinfo_query){
		.addr = BASE + SZ,
		.valid = STACKINFO_VALID_ALTSTACK,
		.ss_sp = BASE + SZ,
		.ss_size = SZ,
	};
	stackinfo_classify(&l, &q);
	KUNIT_EXPECT_EQ(test, q.addr_class, (u32)STACKINFO_ADDR_ALTSTACK);
	KUNIT_EXPECT_EQ(test, q.addr_vma_start, (u64)BASE);

	/* the SP on a sigaltstack in that VMA: the rest of it is no stack */
	l = (struct stackinfo_look){ .addr = BASE + 3 * SZ, .want_addr = true };
	err = stackinfo_look_locked(current->mm, sp, true, &l);
	KUNIT_ASSERT_EQ(test, err, 0);
	q = (struct stackinfo_query){
		.addr = BASE + 3 * SZ,
		.valid = STACKINFO_VALID_ALTSTACK | STACKINFO_VALID_STACK_KIND,
		.ss_sp = BASE + SZ,
		.ss_size = 2 * SZ,
		.stack_kind = STACKINFO_STACK_ALTSTACK,
	};
	stackinfo_classify(&l, &q);
	KUNIT_EXPECT_EQ(test, q.addr_class, (u32)STACKINFO_ADDR_MAPPED);

	l = (struct stackinfo_look){ .addr = TASK_SIZE_MAX, .want_addr = true };
	KUNIT_ASSERT_EQ(test, stackinfo_look_locked(current->mm, 0, false, &l),
			0);
	q = (struct stackinfo_query){ .addr = TASK_SIZE_MAX };
	stackinfo_classify(&l, &q);
	KUNIT_EXPECT_EQ(test, q.addr_class, (u32)STACKINFO_ADDR_UNMAPPED);
}

/* Without the gap or the rlimit a growth question gets no answer. */
static void classify_unknown_limits(struct kunit *test)
{
	struct stackinfo_look l = { .addr = BASE + 32 * SZ, .want_addr = true };
	struct stackinfo_query q = { .addr = BASE + 32 * SZ };

	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	map_at(test, BASE + 64 * SZ, SZ, PROT_READ | PROT_WRITE,
	       MAP_TEST | MAP_GROWSDOWN);
	KUNIT_ASSERT_EQ(test, stackinfo_look_locked(current->mm, 0, false, &l),
			0);
	stackinfo_classify(&l, &q);
	KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_ADDR);
}

/*
 * expand_downwards() refuses below mmap_min_addr first; with no VMA below,
 * under the kernel's default for it (the sysctl is not exported) there is
 * no answer, from the default on the usual rules.
 */
static void classify_below_mmap_min_addr(struct kunit *test)
{
	const unsigned long min = CONFIG_DEFAULT_MMAP_MIN_ADDR;
	struct stackinfo_look l = {
		.want_addr = true,
		.at = {
			.found = true,
			.start = min + 16 * PAGE_SIZE,
			.end = min + 32 * PAGE_SIZE,
			.vm_flags = VM_READ | VM_WRITE | VM_GROWSDOWN,
			.pgoff = ULONG_MAX >> PAGE_SHIFT,
		},
	};
	struct stackinfo_query q = {
		.valid = STACKINFO_VALID_RLIMIT | STACKINFO_VALID_GUARD_GAP,
		.rlim_stack_cur = STACKINFO_RLIM_INFINITY,
		.guard_gap = 256 * PAGE_SIZE,
	};

	q.addr = min;
	stackinfo_classify(&l, &q);
	KUNIT_EXPECT_EQ(test, q.addr_class, (u32)STACKINFO_ADDR_GROWTH);
	if (min < PAGE_SIZE)
		return;
	q.valid &= ~(STACKINFO_VALID_ADDR | STACKINFO_VALID_ADDR_VMA);
	q.addr_class = 0;
	q.addr = min - 1;
	stackinfo_classify(&l, &q);
	KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_ADDR);
}

static struct kunit_case stackinfo_classify_cases[] = {
	KUNIT_CASE_PARAM(classify_growth, growth_gen_params),
	KUNIT_CASE(classify_guard),
	KUNIT_CASE(classify_prot_none_alone),
	KUNIT_CASE(classify_altstack_and_stack),
	KUNIT_CASE(classify_unknown_limits),
	KUNIT_CASE(classify_below_mmap_min_addr),
	{}
};

static struct kunit_suite stackinfo_classify_suite = {
	.name = "stackinfo_classify",
	.init = stackinfo_case_init,
	.exit = stackinfo_case_exit,
	.test_cases = stackinfo_classify_cases,
};

kunit_test_suite(stackinfo_classify_suite);
