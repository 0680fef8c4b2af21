// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for stackinfo: the query core on real mms, the ioctl's ABI
 * checks on real user memory, the exact text of /proc/stackinfo, the
 * guard-gap command-line reader and the access policy's decisions. It
 * reaches the module through EXPORT_SYMBOL_IF_KUNIT; each case runs in its
 * own kthread, whose mm the first map_at() gives it: kunit_vm_mmap()'s
 * fresh mm where the kernel has it (6.10+), else the mm of a user process
 * the case starts for itself (6.1).
 *
 * Cases that query another process do it as the module's root shortcut
 * allows (allow_cap_sys_ptrace, which every case starts with on: the
 * kthread is root); the access cases turn it off and test the policy
 * itself. Nothing else runs in the guest while the suite does.
 */
#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/uaccess.h>
#include <linux/umh.h>

#include "../module/compat.h"
#include "../module/stackinfo.h"

STACKINFO_IMPORT_NS_KUNIT();

/* Where the cases lay out their VMAs: far from anything the mm starts with. */
#define BASE BIT(32)
#define SZ PAGE_SIZE
#define MAP_TEST (MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE)

#ifdef STACKINFO_HAVE_KUNIT_VM_MMAP
static unsigned long case_vm_mmap(struct kunit *test, unsigned long addr,
				  unsigned long len, unsigned long prot,
				  unsigned long flags)
{
	return kunit_vm_mmap(test, NULL, addr, len, prot, flags, 0);
}
#else
/*
 * No kunit_vm_mmap() and no exported mm_alloc(): the case borrows the mm
 * of a process of its own, /bin/busybox sleeping, started with the
 * usermode helper, and uses it as kunit_vm_mmap() uses a fresh one (its
 * reference is dropped when the kthread exits). The process is killed when
 * the case ends. Its mappings sit far below BASE and at the top of the
 * address space, out of the cases' way.
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

static void map_at(struct kunit *test, unsigned long addr, unsigned long len,
		   unsigned long prot, unsigned long flags)
{
	unsigned long got = case_vm_mmap(test, addr, len, prot, flags);

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

static void abi_reserved1_nonzero(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER1);
	u32 reserved = 1;

	size_t at = offsetof(struct stackinfo_query, reserved1);

	KUNIT_ASSERT_EQ(test, copy_to_user(u + at, &reserved, sizeof(reserved)),
			0UL);
	expect_ioctl_fails(test, u, -EINVAL);
}

/* A proof fd needs a struct that has the field. */
static void abi_proof_flag_needs_ver1(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER0);
	u64 flags = STACKINFO_QUERY_PROOF_FD;

	size_t at = offsetof(struct stackinfo_query, query_flags);

	KUNIT_ASSERT_EQ(test, copy_to_user(u + at, &flags, sizeof(flags)), 0UL);
	expect_ioctl_fails(test, u, -EINVAL);
}

static void abi_proof_fd_not_open(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER1);
	size_t flags_at = offsetof(struct stackinfo_query, query_flags);
	size_t fd_at = offsetof(struct stackinfo_query, proof_fd);
	u64 flags = STACKINFO_QUERY_PROOF_FD;
	s32 fd = -1;

	KUNIT_ASSERT_EQ(test, copy_to_user(u + flags_at, &flags, sizeof(flags)),
			0UL);
	KUNIT_ASSERT_EQ(test, copy_to_user(u + fd_at, &fd, sizeof(fd)), 0UL);
	expect_ioctl_fails(test, u, -EBADF);
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

	KUNIT_EXPECT_EQ(test, stackinfo_ioctl_threads(NULL, u), -ERANGE);
	ubuf_read(test, u, &a, sizeof(a));
	KUNIT_EXPECT_EQ(test, a.count, 1U);
}

/* Refused before anything about the process, its size included, is told. */
static void threads_refused_tells_nothing(struct kunit *test)
{
	struct stackinfo_threads __user *u =
		ubuf_threads(test, 0, STACKINFO_QUERY_SIZE_VER0);

	stackinfo_allow_cap_sys_ptrace = false;
	expect_fails(test, u, -EACCES, ioctl_threads);
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

/* A query as the ioctl makes it, for this kthread through no fd. */
static int query_tid(u32 tid, u64 flags, struct stackinfo_query *q)
{
	struct stackinfo_caller c;
	int err;

	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->tid = tid;
	q->query_flags = flags;
	err = stackinfo_caller_get(&c, NULL, false, 0);
	if (!err)
		err = stackinfo_query(&c, q);
	stackinfo_caller_put(&c);
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

/* Every path drops what it took: task and mm references stay balanced. */
static void query_balances_references(struct kunit *test)
{
	struct pid *pid = find_get_pid(1);
	struct task_struct *init = get_pid_task(pid, PIDTYPE_PID);
	unsigned int task_refs, mm_users, mm_count, i;
	struct stackinfo_query q;
	struct mm_struct *mm;
	struct cred *dropped;
	const struct cred *saved;

	put_pid(pid);
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

	struct stackinfo_caller c;

	memset(&q, 0xa5, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = 0;
	q.tid = 2;
	q.reserved = 0;
	KUNIT_ASSERT_EQ(test, stackinfo_caller_get(&c, NULL, false, 0), 0);
	KUNIT_EXPECT_EQ(test, stackinfo_query(&c, &q), -ENOENT);
	stackinfo_caller_put(&c);
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
	{ "stack-guard-gap=32", 32 },
	{ "stack_guard-gap=24", 24 },
	{ "stack_guard_gap=\"48\"", 48 },
	{ "\"stack_guard_gap=40\" quiet", 40 },
	{ "stack_guard_gap", 256 },
	{ "stack_guard_gap=+5", 256 },
	{ "  stack_guard_gap=2  ", 2 },
	{ "stack_guard_gap=18446744073709551617",
	  1 }, /* wraps, as the kernel's */
	{ "init=/bin/sh -- stack_guard_gap=3", 256 },
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
	struct stackinfo_caller c;
	const struct cred *saved;
	struct cred *dropped;
};

/* init (pid 1) as the target, a caller through no fd, no shortcut. */
static void access_setup(struct kunit *test, struct access_ctx *a)
{
	struct pid *pid = find_get_pid(1);

	memset(a, 0, sizeof(*a));
	stackinfo_allow_cap_sys_ptrace = false;
	a->init = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	KUNIT_ASSERT_NOT_NULL(test, a->init);
	a->init_mm = get_task_mm(a->init);
	if (!a->init_mm)
		put_task_struct(a->init);
	KUNIT_ASSERT_NOT_NULL(test, a->init_mm);
	KUNIT_ASSERT_EQ(test, stackinfo_caller_get(&a->c, NULL, false, 0), 0);
}

static void access_teardown(struct access_ctx *a)
{
	if (a->saved) {
		revert_creds(a->saved);
		put_cred(a->dropped);
	}
	stackinfo_caller_put(&a->c);
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
	return stackinfo_caller_set_proof(&a->c, f);
}

static void access_self(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	drop_ptrace_cap(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.c, current, current->mm),
			STACKINFO_GRANT_ALL);
	access_teardown(&a);
}

/* CAP_SYS_PTRACE alone grants nothing: LSMs and Yama were not asked. */
static void access_other_capable_refused(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	KUNIT_EXPECT_TRUE(test, capable(CAP_SYS_PTRACE));
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.c, a.init, a.init_mm),
			STACKINFO_GRANT_NONE);
	/* and no kernel to ask without a /proc mount to ask it through */
	KUNIT_EXPECT_EQ(test, stackinfo_kernel_grant(&a.c, a.init, false),
			-EACCES);
	access_teardown(&a);
}

static void access_cap_param(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	stackinfo_allow_cap_sys_ptrace = true;
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.c, a.init, a.init_mm),
			STACKINFO_GRANT_ALL);
	drop_ptrace_cap(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.c, a.init, a.init_mm),
			STACKINFO_GRANT_NONE);
	access_teardown(&a);
}

/* With the shortcut, whoever opened the fd must have had the capability. */
static void access_cap_param_fd_opener(struct kunit *test)
{
	struct file *with, *without;
	struct access_ctx a;
	struct stackinfo_caller cw, cwo;

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
	KUNIT_EXPECT_EQ(test, stackinfo_caller_get(&cw, with, false, 0), 0);
	KUNIT_EXPECT_EQ(test, stackinfo_caller_get(&cwo, without, false, 0), 0);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&cw, a.init, a.init_mm),
			STACKINFO_GRANT_ALL);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&cwo, a.init, a.init_mm),
			STACKINFO_GRANT_NONE);
	stackinfo_caller_put(&cw);
	stackinfo_caller_put(&cwo);
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

static void access_proof_mem(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	KUNIT_ASSERT_EQ(test, set_proof(test, &a, "/proc/1/mem"), 0);
	drop_ptrace_cap(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.c, a.init, a.init_mm),
			STACKINFO_GRANT_ALL);
	/* another mm: the one an exec would give, or another process's */
	map_at(test, BASE, SZ, PROT_READ, MAP_TEST);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.c, a.init, current->mm),
			STACKINFO_GRANT_NONE);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.c, a.init, NULL),
			STACKINFO_GRANT_NONE);
	access_teardown(&a);
}

static void access_proof_auxv(struct kunit *test)
{
	struct access_ctx a;

	access_setup(test, &a);
	KUNIT_ASSERT_EQ(test, set_proof(test, &a, "/proc/1/auxv"), 0);
	KUNIT_EXPECT_EQ(test, stackinfo_grant(&a.c, a.init, a.init_mm),
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
	KUNIT_EXPECT_NULL(test, a.c.proof);
	access_teardown(&a);
}

/* The whole query through a proof: mem gives the SP, auxv does not. */
static void access_proof_query(struct kunit *test)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = 1 };
	struct access_ctx a;

	access_setup(test, &a);
	KUNIT_EXPECT_EQ(test, stackinfo_query(&a.c, &q), -EACCES);
	KUNIT_ASSERT_EQ(test, set_proof(test, &a, "/proc/1/auxv"), 0);
	KUNIT_ASSERT_EQ(test, stackinfo_query(&a.c, &q), 0);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_MAIN_VMA);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_RLIMIT);
	KUNIT_EXPECT_FALSE(test, q.valid & (STACKINFO_VALID_SP |
					    STACKINFO_VALID_SP_VMA));
	KUNIT_EXPECT_EQ(test, q.sp, 0ULL);
	stackinfo_caller_put(&a.c);
	KUNIT_ASSERT_EQ(test, set_proof(test, &a, "/proc/1/mem"), 0);
	KUNIT_ASSERT_EQ(test, stackinfo_query(&a.c, &q), 0);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_SP_VMA);
	/* and nothing for kthreadd, which has no mm to match */
	q.tid = 2;
	KUNIT_EXPECT_EQ(test, stackinfo_query(&a.c, &q), -EACCES);
	access_teardown(&a);
}

/* Run as this case's kthread as uid @uid, with no capabilities at all. */
static void become_uid(struct kunit *test, struct access_ctx *a, uid_t uid)
{
	a->dropped = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, a->dropped);
	a->dropped->uid = KUIDT_INIT(uid);
	a->dropped->euid = KUIDT_INIT(uid);
	a->dropped->suid = KUIDT_INIT(uid);
	a->dropped->fsuid = KUIDT_INIT(uid);
	a->dropped->gid = KGIDT_INIT(uid);
	a->dropped->egid = KGIDT_INIT(uid);
	a->dropped->sgid = KGIDT_INIT(uid);
	a->dropped->fsgid = KGIDT_INIT(uid);
	cap_clear(a->dropped->cap_effective);
	cap_clear(a->dropped->cap_permitted);
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
 * uid 1000 without capabilities may do neither, nor may it for kthreadd,
 * whose maps opens for anyone (it has no mm), its personality not.
 */
static void access_kernel_check(struct kunit *test)
{
	struct stackinfo_caller c;
	struct access_ctx a;
	struct task_struct *kthreadd;
	struct file *f;

	access_setup(test, &a);
	f = access_proc_caller(test, &c);
	stackinfo_allow_cap_sys_ptrace = false;
	KUNIT_EXPECT_EQ(test, stackinfo_kernel_grant(&c, a.init, true),
			STACKINFO_GRANT_ALL);
	KUNIT_EXPECT_EQ(test, stackinfo_kernel_grant(&c, a.init, false),
			STACKINFO_GRANT_NO_SP);
	rcu_read_lock();
	kthreadd = get_task_struct(pid_task(find_vpid(2), PIDTYPE_PID));
	rcu_read_unlock();
	become_uid(test, &a, 1000);
	KUNIT_EXPECT_EQ(test, stackinfo_kernel_grant(&c, a.init, true),
			-EACCES);
	KUNIT_EXPECT_EQ(test, stackinfo_kernel_grant(&c, a.init, false),
			-EACCES);
	KUNIT_EXPECT_EQ(test, stackinfo_kernel_grant(&c, kthreadd, true),
			STACKINFO_GRANT_NO_SP);
	put_task_struct(kthreadd);
	stackinfo_caller_put(&c);
	filp_close(f, NULL);
	access_teardown(&a);
}

/* A whole query through the kernel's check: what it grants, nothing else. */
static void access_kernel_check_query(struct kunit *test)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = 1 };
	struct stackinfo_caller c;
	struct access_ctx a;
	struct file *f;

	access_setup(test, &a);
	f = access_proc_caller(test, &c);
	stackinfo_allow_cap_sys_ptrace = false;
	KUNIT_ASSERT_EQ(test, stackinfo_query(&c, &q), 0);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_SP_VMA);
	/* kthreadd: the kernel lets anyone see it has no mm */
	q.tid = 2;
	KUNIT_EXPECT_EQ(test, stackinfo_query(&c, &q), -ENOENT);
	become_uid(test, &a, 1000);
	q.tid = 1;
	KUNIT_EXPECT_EQ(test, stackinfo_query(&c, &q), -EACCES);
	KUNIT_EXPECT_EQ(test, q.valid, 0ULL);
	q.tid = 2;
	KUNIT_EXPECT_EQ(test, stackinfo_query(&c, &q), -ENOENT);
	stackinfo_caller_put(&c);
	filp_close(f, NULL);
	access_teardown(&a);
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
	char *argv[] = { path, two, NULL }, *envp[] = { NULL };
	struct task_struct *t, *thread = NULL;
	struct subprocess_info *info;
	struct reap_proc p = {};
	struct pid *leader_pid;
	struct rlimit rlim;
	bool gone = false;
	int i, err;

	info = call_usermodehelper_setup(path, argv, envp, GFP_KERNEL,
					 reap_proc_started, NULL, &p);
	KUNIT_ASSERT_NOT_NULL(test, info);
	err = call_usermodehelper_exec(info, UMH_WAIT_EXEC);
	if (err || !p.leader) {
		if (p.leader)
			put_task_struct(p.leader);
		kunit_skip(test, "cannot start %s: %d", path, err);
	}
	for (i = 0; i < 500 && !thread; i++) {
		rcu_read_lock();
		for_each_thread(p.leader, t) {
			if (t != p.leader) {
				thread = get_task_struct(t);
				break;
			}
		}
		rcu_read_unlock();
		if (!thread)
			msleep(10);
	}
	leader_pid = get_pid(task_pid(p.leader));
	kill_pid(leader_pid, SIGKILL, 1);
	/* from here the leader is pinned by nothing of ours */
	put_task_struct(p.leader);
	if (!thread) {
		put_pid(leader_pid);
		KUNIT_FAIL(test, "%s started no thread", path);
		return;
	}
	KUNIT_EXPECT_EQ(test, stackinfo_rlimit_stack(thread, &rlim) == 0 ||
			      !pid_alive(thread), true);
	for (i = 0; i < 500 && !gone; i++) {
		rcu_read_lock();
		gone = !pid_alive(thread) && !pid_task(leader_pid, PIDTYPE_PID);
		rcu_read_unlock();
		if (!gone)
			msleep(10);
	}
	put_pid(leader_pid);
	KUNIT_EXPECT_TRUE_MSG(test, gone, "the process was not reaped");
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, stackinfo_rlimit_stack(thread, &rlim), -ESRCH);
	put_task_struct(thread);
}

/* ---- the lock-free look against the locked one (module/query.c) ---- */

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
	struct stackinfo_look fast, slow;
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
		/* nothing else writes this mm: the look must not give way */
		KUNIT_ASSERT_TRUE(test,
				  stackinfo_look_lockless(mm, addrs[i], true,
							  &fast, NULL));
		err = stackinfo_look_locked(mm, addrs[i], true, &slow);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_EXPECT_MEMEQ(test, &fast, &slow, sizeof(fast));
	}
	/* and it is the right answer, not only the same one */
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
	struct stackinfo_look l;
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
	struct stackinfo_look l;
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
	struct stackinfo_look l;

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
	struct stackinfo_look l;
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

static int stackinfo_case_init(struct kunit *test)
{
	stackinfo_allow_cap_sys_ptrace = true;
	return 0;
}

static void stackinfo_case_exit(struct kunit *test)
{
	stackinfo_allow_cap_sys_ptrace = false;
}

static struct kunit_case stackinfo_cases[] = {
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
	KUNIT_CASE(abi_size_zero),
	KUNIT_CASE(abi_size_short),
	KUNIT_CASE(abi_size_over_page),
	KUNIT_CASE(abi_size_equal),
	KUNIT_CASE(abi_size_larger_zero_tail),
	KUNIT_CASE(abi_size_larger_nonzero_tail),
	KUNIT_CASE(abi_unknown_flags),
	KUNIT_CASE(abi_reserved_nonzero),
	KUNIT_CASE(abi_reserved1_nonzero),
	KUNIT_CASE(abi_proof_flag_needs_ver1),
	KUNIT_CASE(abi_proof_fd_not_open),
	KUNIT_CASE(abi_copy_back_length),
	KUNIT_CASE(abi_bad_pointer),
	KUNIT_CASE(threads_init),
	KUNIT_CASE(threads_too_short),
	KUNIT_CASE(threads_refused_tells_nothing),
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
	KUNIT_CASE(query_rlimit_after_reap),
	KUNIT_CASE(lockfree_matches_locked),
	KUNIT_CASE(lockfree_gives_way_after_writer),
	KUNIT_CASE(lockfree_gives_way_to_held_lock),
	KUNIT_CASE(lockfree_fallback_sees_change),
	KUNIT_CASE(lockfree_off_where_unavailable),
	{}
};

static struct kunit_suite stackinfo_suite = {
	.name = "stackinfo",
	.init = stackinfo_case_init,
	.exit = stackinfo_case_exit,
	.test_cases = stackinfo_cases,
};

kunit_test_suite(stackinfo_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for stackinfo");
