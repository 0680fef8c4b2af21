// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for /proc/<pid>/stackinfo's query core: the flags and the
 * text it reports, and its look at an mm, each against the kernel itself.
 * The look cases lay out VMAs in the case's own mm (kunit_vm_mmap()) and
 * hold the answer against vma_lookup() under mmap_lock, and the class of
 * an address below a stack against what a fault there does.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "stackinfo.h"

/* far from anything a fresh mm starts with */
#define TEST_BASE SZ_4G
#define TEST_MAP (MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE)

struct vma_flags_case {
	unsigned long vm_flags;
	u64 want;
};

static const struct vma_flags_case vma_flags_cases[] = {
	{ 0, 0 },
	{ VM_READ, STACKINFO_VMA_READ },
	{ VM_READ | VM_WRITE | VM_GROWSDOWN,
	  STACKINFO_VMA_READ | STACKINFO_VMA_WRITE | STACKINFO_VMA_GROWSDOWN },
	{ VM_READ | VM_EXEC, STACKINFO_VMA_READ | STACKINFO_VMA_EXEC },
	/* maps' 's': VM_MAYSHARE, a shared mapping even if read-only now */
	{ VM_READ | VM_MAYSHARE, STACKINFO_VMA_READ | STACKINFO_VMA_SHARED },
	/* what maps does not show is not reported */
	{ VM_MAYREAD | VM_MAYWRITE | VM_ACCOUNT, 0 },
};

static void proc_stackinfo_vma_flags(struct kunit *test)
{
	const struct vma_flags_case *c;

	for (c = vma_flags_cases;
	     c < vma_flags_cases + ARRAY_SIZE(vma_flags_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test, stackinfo_vma_flags(c->vm_flags),
				    c->want, "vm_flags %#lx", c->vm_flags);
}

/* The text of @q, NUL-terminated. */
static const char *query_text(struct kunit *test,
			      const struct stackinfo_query *q)
{
	char *buf = kunit_kzalloc(test, STACKINFO_TEXT_MAX + 1, GFP_KERNEL);
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = stackinfo_format(buf, q);
	KUNIT_ASSERT_LE(test, len, STACKINFO_TEXT_MAX);
	buf[len] = '\0';
	return buf;
}

/* The text's keys and their order are ABI (proc.rst). */
static void proc_stackinfo_text(struct kunit *test)
{
	struct stackinfo_query q = {
		.valid = GENMASK_ULL(9, 0),
		.out_tid = 12,
		.tgid = 10,
		.thread_flags = 0,
		.map_count = 31,
		.start_stack = 0x7ffc1000,
		.main_vma_start = 0x7ffb0000,
		.main_vma_end = 0x7ffd0000,
		.main_vma_flags = STACKINFO_VMA_READ | STACKINFO_VMA_WRITE |
				  STACKINFO_VMA_GROWSDOWN,
		.main_prev_end = 0x7ff00000,
		.sp = 0x7f0012345678,
		.sp_vma_start = 0x7f0012000000,
		.sp_vma_end = 0x7f0012800000,
		.sp_vma_flags = STACKINFO_VMA_READ | STACKINFO_VMA_WRITE,
		.sp_prev_end = 0x7f0011fff000,
		.sp_guard_start = 0x7f0011fff000,
		.sp_guard_end = 0x7f0012000000,
		.rlim_stack_cur = SZ_8M,
		.rlim_stack_max = STACKINFO_RLIM_INFINITY,
		.guard_gap = SZ_1M,
	};
	struct stackinfo_query none = { .out_tid = 12,
					.tgid = 12,
					.thread_flags = STACKINFO_THREAD_MAIN };

	KUNIT_EXPECT_STREQ(test, query_text(test, &q),
			   "tid 12\ntgid 10\nmain 0\nmap_count 31\n"
			   "start_stack 7ffc1000\n"
			   "main_vma 7ffb0000-7ffd0000 rw-p\n"
			   "main_prev_end 7ff00000\n"
			   "sp 7f0012345678\n"
			   "sp_vma 7f0012000000-7f0012800000 rw-p\n"
			   "sp_prev_end 7f0011fff000\n"
			   "sp_guard 7f0011fff000-7f0012000000\n"
			   "rlim_stack_cur 8388608\n"
			   "rlim_stack_max unlimited\n"
			   "guard_gap 1048576\n");
	/* nothing valid: every key still there, each "-" */
	KUNIT_EXPECT_STREQ(test, query_text(test, &none),
			   "tid 12\ntgid 12\nmain 1\nmap_count 0\n"
			   "start_stack -\nmain_vma -\nmain_prev_end -\n"
			   "sp -\nsp_vma -\nsp_prev_end -\nsp_guard -\n"
			   "rlim_stack_cur -\nrlim_stack_max -\nguard_gap -\n");
}

/* Every value at its widest: the longest text fits the room a read has. */
static void proc_stackinfo_text_longest(struct kunit *test)
{
	struct stackinfo_query q = {
		.valid = ~0ULL,
		.out_tid = U32_MAX, .tgid = U32_MAX, .map_count = U32_MAX,
		.start_stack = U64_MAX,
		.main_vma_start = U64_MAX, .main_vma_end = U64_MAX,
		.main_vma_flags = ~0ULL, .main_prev_end = U64_MAX,
		.sp = U64_MAX, .sp_vma_start = U64_MAX, .sp_vma_end = U64_MAX,
		.sp_vma_flags = ~0ULL, .sp_prev_end = U64_MAX,
		.sp_guard_start = U64_MAX, .sp_guard_end = U64_MAX,
		.rlim_stack_cur = U64_MAX - 1, .rlim_stack_max = U64_MAX - 1,
		.guard_gap = U64_MAX,
	};
	const char *text = query_text(test, &q);

	KUNIT_EXPECT_EQ(test, strlen(text), 408);
	KUNIT_EXPECT_STREQ(test, text + strlen(text) - 31,
			   "guard_gap 18446744073709551615\n");
}

/*
 * Map [@addr, @addr + @len) in the case's own mm, which the first call
 * gives this kthread; the case fails unless it lands at @addr.
 */
static void map_at(struct kunit *test, unsigned long addr, unsigned long len,
		   unsigned long prot, unsigned long flags)
{
	bool attach = !current->mm;
	unsigned long got;

	got = kunit_vm_mmap(test, NULL, addr, len, prot, flags, 0);
	/*
	 * The mm kunit_vm_mmap() attached (even to a mapping that failed)
	 * is the thread's as a forked process's is: its exit_mm() puts it.
	 * kthread_use_mm() took a second reference (mmgrab()) that only
	 * kthread_unuse_mm() drops, which the case's thread never calls.
	 */
	if (attach && current->mm)
		mmdrop(current->mm);
	KUNIT_ASSERT_EQ(test, got, addr);
}

/* What the kernel says of the VMA holding @addr, read under mmap_lock. */
struct kernel_vma {
	unsigned long start;
	unsigned long end;
	unsigned long vm_flags;
	bool found;
};

static void kernel_vma(struct mm_struct *mm, unsigned long addr,
		       struct kernel_vma *k)
{
	struct vm_area_struct *vma;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	k->found = vma;
	if (vma) {
		k->start = vma->vm_start;
		k->end = vma->vm_end;
		k->vm_flags = vma->vm_flags;
	}
	mmap_read_unlock(mm);
}

/* The look at a stack with a guard below, against the kernel's VMAs. */
static void proc_stackinfo_look(struct kunit *test)
{
	unsigned long stack = TEST_BASE + SZ_64M, sp = stack + 3 * PAGE_SIZE;
	struct stackinfo_look locked = { .addr = stack - 1, .want_addr = true };
	struct stackinfo_look lockless = locked;
	struct kernel_vma k, guard;
	struct mm_struct *mm;
	bool same;

	map_at(test, TEST_BASE, PAGE_SIZE, PROT_READ, TEST_MAP);
	map_at(test, stack - PAGE_SIZE, PAGE_SIZE, PROT_NONE, TEST_MAP);
	map_at(test, stack, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE, TEST_MAP);
	mm = current->mm;

	KUNIT_ASSERT_EQ(test, stackinfo_look_locked(mm, sp, true, &locked), 0);
	/* nothing else maps in this mm: the kernel's answer is still this */
	kernel_vma(mm, sp, &k);
	kernel_vma(mm, stack - 1, &guard);
	KUNIT_ASSERT_TRUE(test, k.found);
	KUNIT_ASSERT_TRUE(test, guard.found);
	KUNIT_EXPECT_TRUE(test, locked.sp_vma.found);
	KUNIT_EXPECT_EQ(test, locked.sp_vma.start, k.start);
	KUNIT_EXPECT_EQ(test, locked.sp_vma.end, k.end);
	KUNIT_EXPECT_EQ(test, locked.sp_vma.flags,
			stackinfo_vma_flags(k.vm_flags));
	KUNIT_EXPECT_EQ(test, locked.map_count, READ_ONCE(mm->map_count));
	/* the PROT_NONE VMA right below is the guard, and its end prev_end */
	KUNIT_EXPECT_TRUE(test, locked.sp_vma.has_guard);
	KUNIT_EXPECT_EQ(test, locked.sp_vma.guard_start, guard.start);
	KUNIT_EXPECT_EQ(test, locked.sp_vma.guard_end, guard.end);
	KUNIT_EXPECT_EQ(test, locked.sp_vma.prev_end, guard.end);
	/* the address in the guard: its VMA, and the stack above it */
	KUNIT_EXPECT_TRUE(test, locked.at.found);
	KUNIT_EXPECT_EQ(test, locked.at.start, guard.start);
	KUNIT_EXPECT_EQ(test, locked.at.vm_flags, guard.vm_flags);
	KUNIT_EXPECT_TRUE(test, locked.at.has_next);
	KUNIT_EXPECT_EQ(test, locked.at.next_start, stack);

	/* with no writer, the lock-free look is the locked one, if any */
	same = stackinfo_look_lockless(mm, sp, true, &lockless, NULL);
	if (IS_ENABLED(CONFIG_PER_VMA_LOCK))
		KUNIT_EXPECT_TRUE(test, same);
	if (!same)
		return;
	KUNIT_EXPECT_EQ(test, lockless.map_count, locked.map_count);
	KUNIT_EXPECT_EQ(test, lockless.sp_vma.start, locked.sp_vma.start);
	KUNIT_EXPECT_EQ(test, lockless.sp_vma.end, locked.sp_vma.end);
	KUNIT_EXPECT_EQ(test, lockless.sp_vma.flags, locked.sp_vma.flags);
	KUNIT_EXPECT_EQ(test, lockless.sp_vma.guard_start,
			locked.sp_vma.guard_start);
	KUNIT_EXPECT_EQ(test, lockless.at.start, locked.at.start);
	KUNIT_EXPECT_EQ(test, lockless.at.next_start, locked.at.next_start);
}

struct growth_case {
	const char *name;
	unsigned long above_gap; /* the stack starts this far above low + gap */
	unsigned long below; /* the address this far below the stack */
	u32 want;
};

static const struct growth_case growth_cases[] = {
	{ "far above the mapping below", SZ_1M, PAGE_SIZE,
	  STACKINFO_ADDR_GROWTH },
	{ "a page into the guard gap", SZ_64K, SZ_64K + PAGE_SIZE,
	  STACKINFO_ADDR_GUARD_GAP },
	{ "exactly the guard gap above", SZ_64K, SZ_64K,
	  STACKINFO_ADDR_GROWTH },
};

static void growth_desc(const struct growth_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(growth, growth_cases, growth_desc);

/*
 * An address below a VM_GROWSDOWN stack, a read-only mapping under both:
 * the class the core gives it, and then the kernel's own fault path
 * (copy_to_user() there) grows the stack over it exactly when the class
 * says STACKINFO_ADDR_GROWTH.
 */
static void proc_stackinfo_growth(struct kunit *test)
{
	const struct growth_case *c = test->param_value;
	unsigned long low = TEST_BASE, stack, addr;
	struct stackinfo_query q = {};
	struct stackinfo_look l = {};
	struct rlimit rlim;
	bool grew;
	char x = 0;

	/* the gap case's address would fall in the mapping below */
	if (stackinfo_guard_gap < PAGE_SIZE)
		kunit_skip(test, "stack_guard_gap is below a page");
	stack = low + PAGE_SIZE + stackinfo_guard_gap + c->above_gap;
	addr = stack - c->below;
	map_at(test, low, PAGE_SIZE, PROT_READ, TEST_MAP);
	map_at(test, stack, PAGE_SIZE, PROT_READ | PROT_WRITE,
	       TEST_MAP | MAP_GROWSDOWN);

	l.addr = addr;
	l.want_addr = true;
	KUNIT_ASSERT_EQ(test, stackinfo_look_locked(current->mm, 0, false, &l),
			0);
	task_lock(current->group_leader);
	rlim = current->signal->rlim[RLIMIT_STACK];
	task_unlock(current->group_leader);
	q.addr = addr;
	q.rlim_stack_cur = rlim.rlim_cur == RLIM_INFINITY ?
				   STACKINFO_RLIM_INFINITY :
				   rlim.rlim_cur;
	q.guard_gap = stackinfo_guard_gap;
	q.valid = STACKINFO_VALID_RLIMIT | STACKINFO_VALID_GUARD_GAP;
	stackinfo_classify(&l, &q);
	KUNIT_EXPECT_EQ(test, q.addr_class, c->want);

	grew = !copy_to_user((void __user *)addr, &x, 1);
	KUNIT_EXPECT_EQ_MSG(test, grew, c->want == STACKINFO_ADDR_GROWTH,
			    "the kernel's fault at %lx", addr);
}

/* A kernel thread has no user stack to report. */
static void proc_stackinfo_kthread(struct kunit *test)
{
	struct stackinfo_caller c = { .ns = &init_pid_ns };
	struct stackinfo_query q = { .size = sizeof(q) };

	KUNIT_EXPECT_EQ(test, stackinfo_query_task(&c, current, &q), -ENOENT);
}

static struct kunit_case proc_stackinfo_cases[] = {
	KUNIT_CASE(proc_stackinfo_vma_flags),
	KUNIT_CASE(proc_stackinfo_text),
	KUNIT_CASE(proc_stackinfo_text_longest),
	KUNIT_CASE(proc_stackinfo_look),
	KUNIT_CASE_PARAM(proc_stackinfo_growth, growth_gen_params),
	KUNIT_CASE(proc_stackinfo_kthread),
	{}
};

static struct kunit_suite proc_stackinfo_suite = {
	.name = "stackinfo_proc",
	.test_cases = proc_stackinfo_cases,
};

kunit_test_suite(proc_stackinfo_suite);
