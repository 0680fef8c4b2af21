// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for stackinfo: the query core on real mms made with
 * kunit_vm_mmap(), the ioctl's ABI checks on real user memory, the exact
 * text of /proc/stackinfo, the guard-gap command-line reader and the
 * access policy's decisions. It reaches the module through
 * EXPORT_SYMBOL_IF_KUNIT; each case runs in its own kthread, whose mm the
 * first kunit_vm_mmap() creates.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/uaccess.h>

#include "../module/stackinfo.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* Where the cases lay out their VMAs: far from anything the mm starts with. */
#define BASE BIT(32)
#define SZ PAGE_SIZE
#define MAP_TEST (MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE)

static void map_at(struct kunit *test, unsigned long addr, unsigned long len,
		   unsigned long prot, unsigned long flags)
{
	unsigned long got =
		kunit_vm_mmap(test, NULL, addr, len, prot, flags, 0);

	KUNIT_ASSERT_EQ_MSG(test, got, addr, "vm_mmap at %#lx", addr);
}

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

static void vma_at_no_prev(struct kunit *test)
{
	struct stackinfo_vma v;

	/* the kthread's fresh mm holds only what this case maps */
	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	KUNIT_ASSERT_EQ(test, vma_at(test, BASE, &v), 0);
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

	for (i = 0; i < MANY_VMAS; i++)
		map_at(test, BASE + i * SZ, SZ,
		       i & 1 ? PROT_READ : PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_ASSERT_GE(test, current->mm->map_count, MANY_VMAS);
	for (i = 0; i < ARRAY_SIZE(probe); i++) {
		unsigned long page = probe[i];

		KUNIT_ASSERT_EQ(test, vma_at(test, BASE + page * SZ + 7, &v),
				0);
		KUNIT_EXPECT_EQ(test, v.start, BASE + page * SZ);
		KUNIT_EXPECT_EQ(test, v.end, BASE + (page + 1) * SZ);
		KUNIT_EXPECT_EQ(test, v.has_prev, page > 0);
		if (page)
			KUNIT_EXPECT_EQ(test, v.prev_end, BASE + page * SZ);
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

/* ---- the ioctl's ABI, on user memory of the case's own mm ---- */

#define UBUF BASE
#define UBUF_LEN (2 * PAGE_SIZE)

/* A query for init (pid 1) at the start of a zeroed user buffer. */
static void __user *ubuf_query(struct kunit *test, u64 size)
{
	struct stackinfo_query q = { .size = size, .tid = 1 };
	void __user *u = (void __user *)UBUF;
	void *zero = kunit_kzalloc(test, UBUF_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, zero);
	map_at(test, UBUF, UBUF_LEN, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_ASSERT_EQ(test, copy_to_user(u, zero, UBUF_LEN), 0UL);
	KUNIT_ASSERT_EQ(test, copy_to_user(u, &q, sizeof(q)), 0UL);
	return u;
}

static void ubuf_read(struct kunit *test, void __user *u, void *dst, size_t len)
{
	KUNIT_ASSERT_EQ(test, copy_from_user(dst, u, len), 0UL);
}

/* A failed call leaves every byte the caller gave where it was. */
static void expect_fails(struct kunit *test, void __user *u, int err,
			 int (*ioctl)(const struct file *, void __user *))
{
	u8 *before = kunit_kzalloc(test, UBUF_LEN, GFP_KERNEL);
	u8 *after = kunit_kzalloc(test, UBUF_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	ubuf_read(test, u, before, UBUF_LEN);
	KUNIT_EXPECT_EQ(test, ioctl(NULL, u), err);
	ubuf_read(test, u, after, UBUF_LEN);
	KUNIT_EXPECT_MEMEQ(test, before, after, UBUF_LEN);
}

static int ioctl_query(const struct file *file, void __user *u)
{
	return stackinfo_ioctl_query(file, u);
}

static int ioctl_threads(const struct file *file, void __user *u)
{
	return stackinfo_ioctl_threads(file, u);
}

static void expect_ioctl_fails(struct kunit *test, void __user *u, int err)
{
	expect_fails(test, u, err, ioctl_query);
}

static void abi_size_zero(struct kunit *test)
{
	expect_ioctl_fails(test, ubuf_query(test, 0), -EINVAL);
}

static void abi_size_short(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER0 - 8);

	expect_ioctl_fails(test, u, -EINVAL);
}

static void abi_size_over_page(struct kunit *test)
{
	expect_ioctl_fails(test, ubuf_query(test, PAGE_SIZE + 1), -E2BIG);
}

static void abi_size_equal(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER0);
	struct stackinfo_query q;

	KUNIT_ASSERT_EQ(test, stackinfo_ioctl_query(NULL, u), 0);
	ubuf_read(test, u, &q, sizeof(q));
	KUNIT_EXPECT_EQ(test, q.size, (u64)STACKINFO_QUERY_SIZE_VER0);
	KUNIT_EXPECT_EQ(test, q.tid, 1U);
	KUNIT_EXPECT_EQ(test, q.out_tid, 1U);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_MAIN_VMA);
}

static void abi_size_larger_zero_tail(struct kunit *test)
{
	void __user *u = ubuf_query(test, PAGE_SIZE);
	struct stackinfo_query q;

	KUNIT_ASSERT_EQ(test, stackinfo_ioctl_query(NULL, u), 0);
	ubuf_read(test, u, &q, sizeof(q));
	KUNIT_EXPECT_EQ(test, q.out_tid, 1U);
	KUNIT_EXPECT_EQ(test, q.size, (u64)PAGE_SIZE);
}

static void abi_size_larger_nonzero_tail(struct kunit *test)
{
	void __user *u = ubuf_query(test, sizeof(struct stackinfo_query) + 8);
	u8 one = 1;

	KUNIT_ASSERT_EQ(test,
			copy_to_user(u + sizeof(struct stackinfo_query) + 7,
				     &one, 1),
			0UL);
	expect_ioctl_fails(test, u, -E2BIG);
}

static void abi_unknown_flags(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER0);
	u64 flags = ~STACKINFO_QUERY_VALID_FLAGS;

	size_t at = offsetof(struct stackinfo_query, query_flags);

	KUNIT_ASSERT_EQ(test, copy_to_user(u + at, &flags, sizeof(flags)), 0UL);
	expect_ioctl_fails(test, u, -EINVAL);
}

static void abi_reserved_nonzero(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER0);
	u32 reserved = 1;

	size_t at = offsetof(struct stackinfo_query, reserved);

	KUNIT_ASSERT_EQ(test, copy_to_user(u + at, &reserved, sizeof(reserved)),
			0UL);
	expect_ioctl_fails(test, u, -EINVAL);
}

static void abi_copy_back_length(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER0);
	u8 sentinel[64], after[64];

	/* bytes past the caller's size belong to the caller */
	memset(sentinel, 0x5a, sizeof(sentinel));
	KUNIT_ASSERT_EQ(test,
			copy_to_user(u + STACKINFO_QUERY_SIZE_VER0, sentinel,
				     sizeof(sentinel)),
			0UL);
	KUNIT_ASSERT_EQ(test, stackinfo_ioctl_query(NULL, u), 0);
	ubuf_read(test, u + STACKINFO_QUERY_SIZE_VER0, after, sizeof(after));
	KUNIT_EXPECT_MEMEQ(test, after, sentinel, sizeof(sentinel));
}

static void abi_bad_pointer(struct kunit *test)
{
	void __user *unmapped = (void __user *)(UBUF + 64 * SZ);
	/* size readable, the struct runs off the end of the mapping */
	u64 size = STACKINFO_QUERY_SIZE_VER0;
	void __user *u = (void __user *)(UBUF + SZ - sizeof(size));

	map_at(test, UBUF, SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_EXPECT_EQ(test, stackinfo_ioctl_query(NULL, unmapped), -EFAULT);
	KUNIT_ASSERT_EQ(test, copy_to_user(u, &size, sizeof(size)), 0UL);
	KUNIT_EXPECT_EQ(test, stackinfo_ioctl_query(NULL, u), -EFAULT);
}

/* ---- STACKINFO_IOC_QUERY_THREADS, on init (one thread) ---- */

/* A request for init's threads at UBUF, its array right after it. */
static struct stackinfo_threads __user *ubuf_threads(struct kunit *test,
						     u32 count, u64 entry_size)
{
	struct stackinfo_threads a = {
		.size = sizeof(a),
		.pid = 1,
		.count = count,
		.entries = UBUF + 64,
		.entry_size = entry_size,
	};
	void __user *u = ubuf_query(test, 0); /* a zeroed user buffer */

	KUNIT_ASSERT_EQ(test, copy_to_user(u, &a, sizeof(a)), 0UL);
	return u;
}

static void threads_init(struct kunit *test)
{
	struct stackinfo_threads __user *u =
		ubuf_threads(test, 4, STACKINFO_QUERY_SIZE_VER0);
	struct stackinfo_threads a;
	struct stackinfo_query q;

	KUNIT_ASSERT_EQ(test, stackinfo_ioctl_threads(NULL, u), 0);
	ubuf_read(test, u, &a, sizeof(a));
	KUNIT_EXPECT_EQ(test, a.count, 1U);
	ubuf_read(test, (void __user *)(UBUF + 64), &q, sizeof(q));
	KUNIT_EXPECT_EQ(test, q.out_tid, 1U);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_MAIN_VMA);
}

static void threads_too_short(struct kunit *test)
{
	struct stackinfo_threads __user *u =
		ubuf_threads(test, 0, STACKINFO_QUERY_SIZE_VER0);
	struct stackinfo_threads a;

	KUNIT_EXPECT_EQ(test, stackinfo_ioctl_threads(NULL, u), -E2BIG);
	ubuf_read(test, u, &a, sizeof(a));
	KUNIT_EXPECT_EQ(test, a.count, 1U);
}

static void threads_bad_entry_size(struct kunit *test)
{
	expect_fails(test, ubuf_threads(test, 4, STACKINFO_QUERY_SIZE_VER0 - 1),
		     -EINVAL, ioctl_threads);
}

static void threads_bad_entry_size_large(struct kunit *test)
{
	expect_fails(test, ubuf_threads(test, 4, PAGE_SIZE + 1), -EINVAL,
		     ioctl_threads);
}

/* ---- stackinfo_query(): tids and what comes back ---- */

static int query_tid(u32 tid, u64 flags, struct stackinfo_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->tid = tid;
	q->query_flags = flags;
	return stackinfo_query(NULL, q);
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
}

/* Every path drops what it took: task and mm references stay balanced. */
static void query_balances_references(struct kunit *test)
{
	struct task_struct *init = get_pid_task(find_get_pid(1), PIDTYPE_PID);
	unsigned int task_refs, mm_users, mm_count, i;
	struct stackinfo_query q;
	struct mm_struct *mm;
	struct cred *dropped;
	const struct cred *saved;

	KUNIT_ASSERT_NOT_NULL(test, init);
	mm = get_task_mm(init);
	if (!mm)
		put_task_struct(init);
	KUNIT_ASSERT_NOT_NULL(test, mm);
	dropped = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, dropped);
	cap_lower(dropped->cap_effective, CAP_SYS_PTRACE);

	task_refs = refcount_read(&init->usage);
	mm_users = atomic_read(&mm->mm_users);
	mm_count = atomic_read(&mm->mm_count);
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
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_count), mm_count);
	put_cred(dropped);
	mmput(mm);
	put_task_struct(init);
}

static void query_clears_out_fields(struct kunit *test)
{
	struct stackinfo_query q;

	memset(&q, 0xa5, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = 0;
	q.tid = 2;
	q.reserved = 0;
	KUNIT_ASSERT_EQ(test, stackinfo_query(NULL, &q), -ENOENT);
	KUNIT_EXPECT_EQ(test, q.size, (u64)sizeof(q));
	KUNIT_EXPECT_EQ(test, q.tid, 2U);
	KUNIT_EXPECT_EQ(test, q.valid, 0ULL);
	KUNIT_EXPECT_EQ(test, q.out_tid, 0U);
	KUNIT_EXPECT_EQ(test, q.sp, 0ULL);
	KUNIT_EXPECT_EQ(test, q.guard_gap, 0ULL);
}

/* ---- the text of /proc/stackinfo ---- */

static const char *show(struct kunit *test, const struct stackinfo_query *q)
{
	struct seq_file *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->size = PAGE_SIZE;
	m->buf = kunit_kzalloc(test, m->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	stackinfo_show_query(m, q);
	KUNIT_ASSERT_LT(test, m->count, m->size);
	m->buf[m->count] = '\0';
	return m->buf;
}

static const struct stackinfo_query text_thread = {
	.valid = STACKINFO_VALID_THREAD | STACKINFO_VALID_START_STACK |
		 STACKINFO_VALID_MAIN_VMA | STACKINFO_VALID_MAIN_PREV |
		 STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA |
		 STACKINFO_VALID_SP_PREV | STACKINFO_VALID_SP_GUARD |
		 STACKINFO_VALID_RLIMIT | STACKINFO_VALID_GUARD_GAP,
	.out_tid = 1234,
	.tgid = 1200,
	.thread_flags = STACKINFO_THREAD_SELF,
	.map_count = 57,
	.start_stack = 0x7ffc8a1b2c30,
	.main_vma_start = 0x7ffc8a193000,
	.main_vma_end = 0x7ffc8a1b4000,
	.main_vma_flags = STACKINFO_VMA_READ | STACKINFO_VMA_WRITE |
			  STACKINFO_VMA_GROWSDOWN,
	.main_prev_end = 0x7f3c5e2f1000,
	.sp = 0x7f3c5dff0e58,
	.sp_vma_start = 0x7f3c5d7f1000,
	.sp_vma_end = 0x7f3c5dff1000,
	.sp_vma_flags = STACKINFO_VMA_READ | STACKINFO_VMA_WRITE,
	.sp_prev_end = 0x7f3c5d7f1000,
	.sp_guard_start = 0x7f3c5d7f0000,
	.sp_guard_end = 0x7f3c5d7f1000,
	.rlim_stack_cur = 8388608,
	.rlim_stack_max = STACKINFO_RLIM_INFINITY,
	.guard_gap = 1048576,
};

static void text_thread_all_valid(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, show(test, &text_thread),
			   "tid 1234\n"
			   "tgid 1200\n"
			   "main 0\n"
			   "map_count 57\n"
			   "start_stack 7ffc8a1b2c30\n"
			   "main_vma 7ffc8a193000-7ffc8a1b4000 rw-p\n"
			   "main_prev_end 7f3c5e2f1000\n"
			   "sp 7f3c5dff0e58\n"
			   "sp_vma 7f3c5d7f1000-7f3c5dff1000 rw-p\n"
			   "sp_prev_end 7f3c5d7f1000\n"
			   "sp_guard 7f3c5d7f0000-7f3c5d7f1000\n"
			   "rlim_stack_cur 8388608\n"
			   "rlim_stack_max unlimited\n"
			   "guard_gap 1048576\n");
}

static void text_nothing_but_thread(struct kunit *test)
{
	const struct stackinfo_query q = {
		.valid = STACKINFO_VALID_THREAD,
		.out_tid = 1,
		.tgid = 1,
		.thread_flags = STACKINFO_THREAD_MAIN,
		.map_count = 3,
		/* ignored: their valid bits are clear */
		.sp = 0x1000,
		.rlim_stack_cur = 5,
		.guard_gap = 4096,
	};

	KUNIT_EXPECT_STREQ(test, show(test, &q),
			   "tid 1\n"
			   "tgid 1\n"
			   "main 1\n"
			   "map_count 3\n"
			   "start_stack -\n"
			   "main_vma -\n"
			   "main_prev_end -\n"
			   "sp -\n"
			   "sp_vma -\n"
			   "sp_prev_end -\n"
			   "sp_guard -\n"
			   "rlim_stack_cur -\n"
			   "rlim_stack_max -\n"
			   "guard_gap -\n");
}

static void text_flags_and_short_addresses(struct kunit *test)
{
	struct stackinfo_query q = text_thread;

	q.valid &= ~STACKINFO_VALID_SP_GUARD;
	q.main_vma_start = 0x1000; /* maps pads to 8 hex digits */
	q.main_vma_end = 0x21000;
	q.main_vma_flags = STACKINFO_VMA_READ | STACKINFO_VMA_EXEC |
			   STACKINFO_VMA_SHARED;
	q.sp_vma_flags = 0;
	q.rlim_stack_cur = STACKINFO_RLIM_INFINITY;
	q.rlim_stack_max = 0;
	q.guard_gap = 0;
	KUNIT_EXPECT_STREQ(test, show(test, &q),
			   "tid 1234\n"
			   "tgid 1200\n"
			   "main 0\n"
			   "map_count 57\n"
			   "start_stack 7ffc8a1b2c30\n"
			   "main_vma 00001000-00021000 r-xs\n"
			   "main_prev_end 7f3c5e2f1000\n"
			   "sp 7f3c5dff0e58\n"
			   "sp_vma 7f3c5d7f1000-7f3c5dff1000 ---p\n"
			   "sp_prev_end 7f3c5d7f1000\n"
			   "sp_guard -\n"
			   "rlim_stack_cur unlimited\n"
			   "rlim_stack_max 0\n"
			   "guard_gap 0\n");
}

/* ---- the guard gap from the boot command line ---- */

struct gap_case {
	const char *cmdline;
	unsigned long pages;
};

static const struct gap_case gap_cases[] = {
	{ "", 256 },
	{ "console=ttyS0 quiet", 256 },
	{ "stack_guard_gap=512", 512 },
	{ "quiet stack_guard_gap=1 panic=-1", 1 },
	{ "stack_guard_gap=0", 0 },
	{ "stack_guard_gap=", 0 },
	{ "stack_guard_gap=12x", 256 },
	{ "stack_guard_gap=8 stack_guard_gap=16", 16 },
	{ "stack_guard_gap=8 -- stack_guard_gap=16", 8 },
	{ "xstack_guard_gap=8", 256 },
	{ "quiet\tstack_guard_gap=64", 64 },
};

static void gap_desc(const struct gap_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->cmdline);
}

KUNIT_ARRAY_PARAM(gap, gap_cases, gap_desc);

static void guard_gap_cmdline(struct kunit *test)
{
	const struct gap_case *c = test->param_value;
	char *buf = kunit_kzalloc(test, strlen(c->cmdline) + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	strscpy(buf, c->cmdline, strlen(c->cmdline) + 1);
	KUNIT_EXPECT_EQ(test, stackinfo_guard_gap_from_cmdline(buf),
			c->pages << PAGE_SHIFT);
}

/* ---- the access policy ---- */

struct access_ctx {
	struct task_struct *init;
	struct mm_struct *init_mm;
	const struct cred *saved;
	struct cred *dropped;
};

static void access_setup(struct kunit *test, struct access_ctx *a)
{
	a->init = get_pid_task(find_get_pid(1), PIDTYPE_PID);
	KUNIT_ASSERT_NOT_NULL(test, a->init);
	a->init_mm = get_task_mm(a->init);
	if (!a->init_mm)
		put_task_struct(a->init);
	KUNIT_ASSERT_NOT_NULL(test, a->init_mm);
	a->saved = NULL;
	a->dropped = NULL;
}

static void access_teardown(struct access_ctx *a)
{
	if (a->saved) {
		revert_creds(a->saved);
		put_cred(a->dropped);
	}
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

static void access_self(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, stackinfo_may_access(NULL, current, current->mm),
			0);
}

static void access_self_without_cap(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	drop_ptrace_cap(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_may_access(NULL, current, current->mm),
			0);
	access_teardown(&a);
}

static void access_other_with_cap(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_may_access(NULL, a.init, a.init_mm), 0);
	access_teardown(&a);
}

static void access_other_without_cap(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	drop_ptrace_cap(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_may_access(NULL, a.init, a.init_mm),
			-EACCES);
	access_teardown(&a);
}

/* A non-dumpable mm: this case's own, marked SUID_DUMP_DISABLE. */
static struct mm_struct *nondumpable_mm(struct kunit *test)
{
	struct mm_struct *mm;

	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	mm = current->mm;
	set_mask_bits(&mm->flags, MMF_DUMPABLE_MASK, SUID_DUMP_DISABLE);
	KUNIT_ASSERT_EQ(test, get_dumpable(mm), SUID_DUMP_DISABLE);
	return mm;
}

static void access_nondumpable_with_cap(struct kunit *test)
{
	struct mm_struct *mm = nondumpable_mm(test);
	struct access_ctx a;

	access_setup(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_may_access(NULL, a.init, mm), 0);
	access_teardown(&a);
}

static void access_nondumpable_without_cap(struct kunit *test)
{
	struct mm_struct *mm = nondumpable_mm(test);
	struct access_ctx a;

	access_setup(test, &a);
	drop_ptrace_cap(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_may_access(NULL, a.init, mm), -EACCES);
	access_teardown(&a);
}

static void access_fd_opener(struct kunit *test)
{
	struct access_ctx a;
	struct file *with, *without;

	access_setup(test, &a);
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
	KUNIT_EXPECT_EQ(test, stackinfo_may_access(with, a.init, a.init_mm), 0);
	KUNIT_EXPECT_EQ(test, stackinfo_may_access(without, a.init, a.init_mm),
			-EACCES);
	filp_close(with, NULL);
	filp_close(without, NULL);
	access_teardown(&a);
}

static struct kunit_case stackinfo_cases[] = {
	KUNIT_CASE_PARAM(vma_flags_translate, flags_gen_params),
	KUNIT_CASE(vma_at_middle),
	KUNIT_CASE(vma_at_boundaries),
	KUNIT_CASE(vma_at_gap),
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
	KUNIT_CASE(abi_size_zero),
	KUNIT_CASE(abi_size_short),
	KUNIT_CASE(abi_size_over_page),
	KUNIT_CASE(abi_size_equal),
	KUNIT_CASE(abi_size_larger_zero_tail),
	KUNIT_CASE(abi_size_larger_nonzero_tail),
	KUNIT_CASE(abi_unknown_flags),
	KUNIT_CASE(abi_reserved_nonzero),
	KUNIT_CASE(abi_copy_back_length),
	KUNIT_CASE(abi_bad_pointer),
	KUNIT_CASE(threads_init),
	KUNIT_CASE(threads_too_short),
	KUNIT_CASE(threads_bad_entry_size),
	KUNIT_CASE(threads_bad_entry_size_large),
	KUNIT_CASE(query_init),
	KUNIT_CASE(query_no_sp),
	KUNIT_CASE(query_no_such_tid),
	KUNIT_CASE(query_kernel_thread),
	KUNIT_CASE(query_balances_references),
	KUNIT_CASE(query_clears_out_fields),
	KUNIT_CASE(text_thread_all_valid),
	KUNIT_CASE(text_nothing_but_thread),
	KUNIT_CASE(text_flags_and_short_addresses),
	KUNIT_CASE_PARAM(guard_gap_cmdline, gap_gen_params),
	KUNIT_CASE(access_self),
	KUNIT_CASE(access_self_without_cap),
	KUNIT_CASE(access_other_with_cap),
	KUNIT_CASE(access_other_without_cap),
	KUNIT_CASE(access_nondumpable_with_cap),
	KUNIT_CASE(access_nondumpable_without_cap),
	KUNIT_CASE(access_fd_opener),
	{}
};

static struct kunit_suite stackinfo_suite = {
	.name = "stackinfo",
	.test_cases = stackinfo_cases,
};

kunit_test_suite(stackinfo_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for stackinfo");
