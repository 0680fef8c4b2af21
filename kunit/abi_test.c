// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite stackinfo_abi, for module/abi.c: the ioctls' ABI
 * checks on real user memory of the case's own mm (util.c), the batch
 * ioctl on init, and the exact text of /proc/stackinfo.
 */
#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../module/module.h"
#include "../module/stackinfo.h"
#include "util.h"

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

/* The ioctls as the module's file operations call them (procfs.c). */
static int ioctl_query(const struct file *file, void __user *u)
{
	struct stackinfo_module_caller mc;

	return stackinfo_ioctl_query(&mc.c, file, u);
}

static int ioctl_threads(const struct file *file, void __user *u)
{
	struct stackinfo_module_caller mc;

	return stackinfo_ioctl_threads(&mc.c, file, u);
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

	KUNIT_ASSERT_EQ(test, ioctl_query(NULL, u), 0);
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

	KUNIT_ASSERT_EQ(test, ioctl_query(NULL, u), 0);
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

/* A query of @size with the u32 at @at set to 1 fails -EINVAL. */
static void expect_u32_refused(struct kunit *test, u64 size, size_t at)
{
	void __user *u = ubuf_query(test, size);
	u32 one = 1;

	KUNIT_ASSERT_EQ(test, copy_to_user(u + at, &one, sizeof(one)), 0UL);
	expect_ioctl_fails(test, u, -EINVAL);
}

static void abi_reserved_nonzero(struct kunit *test)
{
	expect_u32_refused(test, STACKINFO_QUERY_SIZE_VER0,
			   offsetof(struct stackinfo_query, reserved));
}

static void abi_reserved1_nonzero(struct kunit *test)
{
	expect_u32_refused(test, STACKINFO_QUERY_SIZE_VER1,
			   offsetof(struct stackinfo_query, reserved1));
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
	KUNIT_ASSERT_EQ(test, ioctl_query(NULL, u), 0);
	ubuf_read(test, u + STACKINFO_QUERY_SIZE_VER0, after, sizeof(after));
	KUNIT_EXPECT_MEMEQ(test, after, sentinel, sizeof(sentinel));
}

/* init's sigaltstack fields, read from its task_struct (nothing changes them) */
static void init_altstack(struct kunit *test, u64 *ss_sp, u64 *ss_size)
{
	struct task_struct *init;

	rcu_read_lock();
	init = pid_task(find_vpid(1), PIDTYPE_PID);
	KUNIT_ASSERT_NOT_NULL(test, init);
	*ss_sp = init->sas_ss_sp;
	*ss_size = init->sas_ss_size;
	rcu_read_unlock();
}

/* A VER1 caller gets the answer VER1 had: no bit for VER2's fields. */
static void abi_ver1_no_ver2_bits(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER1);
	struct stackinfo_query q;

	KUNIT_ASSERT_EQ(test, ioctl_query(NULL, u), 0);
	ubuf_read(test, u, &q, sizeof(q));
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_SP);
	KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_ALTSTACK);
	KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_STACK_KIND);
	KUNIT_EXPECT_EQ(test, q.ss_sp, 0ULL);
	KUNIT_EXPECT_EQ(test, q.ss_flags, 0U);
}

/* VER2 has the thread's sigaltstack as its task_struct holds it. */
static void abi_ver2_altstack(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER2);
	struct stackinfo_query q;
	u64 ss_sp, ss_size;

	KUNIT_ASSERT_EQ(test, ioctl_query(NULL, u), 0);
	ubuf_read(test, u, &q, sizeof(q));
	init_altstack(test, &ss_sp, &ss_size);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_ALTSTACK);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_STACK_KIND);
	KUNIT_EXPECT_EQ(test, q.ss_sp, ss_sp);
	KUNIT_EXPECT_EQ(test, q.ss_size, ss_size);
	if (!ss_size)
		KUNIT_EXPECT_TRUE(test, q.ss_flags & SS_DISABLE);
	/* init runs on its main stack */
	KUNIT_EXPECT_EQ(test, q.stack_kind, (u32)STACKINFO_STACK_MAIN);
}

/* NO_SP asks for nothing granted with the SP: no sigaltstack either. */
static void abi_no_sp_no_altstack(struct kunit *test)
{
	void __user *u = ubuf_query(test, STACKINFO_QUERY_SIZE_VER2);
	size_t at = offsetof(struct stackinfo_query, query_flags);
	u64 flags = STACKINFO_QUERY_NO_SP;
	struct stackinfo_query q;

	KUNIT_ASSERT_EQ(test, copy_to_user(u + at, &flags, sizeof(flags)), 0UL);
	KUNIT_ASSERT_EQ(test, ioctl_query(NULL, u), 0);
	ubuf_read(test, u, &q, sizeof(q));
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_MAIN_VMA);
	KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_ALTSTACK);
	KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_STACK_KIND);
}

static void abi_bad_pointer(struct kunit *test)
{
	void __user *unmapped = (void __user *)(UBUF + 64 * SZ);
	/* size readable, the struct runs off the end of the mapping */
	u64 size = STACKINFO_QUERY_SIZE_VER0;
	void __user *u = (void __user *)(UBUF + SZ - sizeof(size));

	map_at(test, UBUF, SZ, PROT_READ | PROT_WRITE, MAP_TEST);
	KUNIT_EXPECT_EQ(test, ioctl_query(NULL, unmapped), -EFAULT);
	KUNIT_ASSERT_EQ(test, copy_to_user(u, &size, sizeof(size)), 0UL);
	KUNIT_EXPECT_EQ(test, ioctl_query(NULL, u), -EFAULT);
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

	KUNIT_ASSERT_EQ(test, ioctl_threads(NULL, u), 0);
	ubuf_read(test, u, &a, sizeof(a));
	KUNIT_EXPECT_EQ(test, a.count, 1U);
	ubuf_read(test, (void __user *)(UBUF + 64), &q, sizeof(q));
	KUNIT_EXPECT_EQ(test, q.out_tid, 1U);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_MAIN_VMA);
}

/* Batch entries of a VER1 caller's size have no bit for VER2's fields. */
static void threads_entry_ver1_no_ver2_bits(struct kunit *test)
{
	struct stackinfo_threads __user *u =
		ubuf_threads(test, 4, STACKINFO_QUERY_SIZE_VER1);
	struct stackinfo_query q;

	KUNIT_ASSERT_EQ(test, ioctl_threads(NULL, u), 0);
	ubuf_read(test, (void __user *)(UBUF + 64), &q, sizeof(q));
	KUNIT_EXPECT_EQ(test, q.size, (u64)STACKINFO_QUERY_SIZE_VER1);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_SP);
	KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_ALTSTACK);
	KUNIT_EXPECT_FALSE(test, q.valid & STACKINFO_VALID_STACK_KIND);
}

static void threads_entry_ver2_altstack(struct kunit *test)
{
	struct stackinfo_threads __user *u =
		ubuf_threads(test, 4, STACKINFO_QUERY_SIZE_VER2);
	struct stackinfo_query q;
	u64 ss_sp, ss_size;

	KUNIT_ASSERT_EQ(test, ioctl_threads(NULL, u), 0);
	ubuf_read(test, (void __user *)(UBUF + 64), &q, sizeof(q));
	init_altstack(test, &ss_sp, &ss_size);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_ALTSTACK);
	KUNIT_EXPECT_EQ(test, q.ss_sp, ss_sp);
	KUNIT_EXPECT_EQ(test, q.ss_size, ss_size);
}

static void threads_too_short(struct kunit *test)
{
	struct stackinfo_threads __user *u =
		ubuf_threads(test, 0, STACKINFO_QUERY_SIZE_VER0);
	struct stackinfo_threads a;

	KUNIT_EXPECT_EQ(test, ioctl_threads(NULL, u), -ERANGE);
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

/* ---- the text of /proc/stackinfo ---- */

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
	KUNIT_EXPECT_STREQ(test, stackinfo_text(test, &text_thread),
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

	KUNIT_EXPECT_STREQ(test, stackinfo_text(test, &q),
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
	KUNIT_EXPECT_STREQ(test, stackinfo_text(test, &q),
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

/* Every value at its widest: the longest text, which the room must hold. */
static void text_longest(struct kunit *test)
{
	struct stackinfo_query q = {
		.valid = ~0ULL,
		.out_tid = U32_MAX,
		.tgid = U32_MAX,
		.thread_flags = STACKINFO_THREAD_MAIN,
		.map_count = U32_MAX,
		.start_stack = U64_MAX,
		.main_vma_start = U64_MAX,
		.main_vma_end = U64_MAX,
		.main_vma_flags = ~0ULL,
		.main_prev_end = U64_MAX,
		.sp = U64_MAX,
		.sp_vma_start = U64_MAX,
		.sp_vma_end = U64_MAX,
		.sp_vma_flags = ~0ULL,
		.sp_prev_end = U64_MAX,
		.sp_guard_start = U64_MAX,
		.sp_guard_end = U64_MAX,
		.rlim_stack_cur = U64_MAX - 1, /* U64_MAX is "unlimited" */
		.rlim_stack_max = U64_MAX - 1,
		.guard_gap = U64_MAX,
	};
	const char *text = stackinfo_text(test, &q);

	KUNIT_EXPECT_STREQ(test, text,
			   "tid 4294967295\n"
			   "tgid 4294967295\n"
			   "main 1\n"
			   "map_count 4294967295\n"
			   "start_stack ffffffffffffffff\n"
			   "main_vma ffffffffffffffff-ffffffffffffffff rwxs\n"
			   "main_prev_end ffffffffffffffff\n"
			   "sp ffffffffffffffff\n"
			   "sp_vma ffffffffffffffff-ffffffffffffffff rwxs\n"
			   "sp_prev_end ffffffffffffffff\n"
			   "sp_guard ffffffffffffffff-ffffffffffffffff\n"
			   "rlim_stack_cur 18446744073709551614\n"
			   "rlim_stack_max 18446744073709551614\n"
			   "guard_gap 18446744073709551615\n");
	/* the sum abi.c checks at build time, met exactly */
	KUNIT_EXPECT_EQ(test, strlen(text), 408);
	KUNIT_EXPECT_LE(test, strlen(text), STACKINFO_TEXT_MAX);
}

/*
 * The hand-made numbers against the kernel's printf, at every width's
 * edges: addresses as maps writes them ("%08llx"), the rest in decimal.
 */
static void text_as_printf(struct kunit *test)
{
	static const u64 values[] = {
		0,
		1,
		9,
		10,
		15,
		16,
		99,
		100,
		0xfffffff,
		0x10000000,
		0xffffffff,
		0x100000000ULL,
		0x123456789ULL,
		0x7fffffffffffULL,
		0x800000000000ULL,
		0xffff800000000000ULL,
		9999999999999999999ULL,
		10000000000000000000ULL,
		U64_MAX - 1,
	};
	/* off the stack: with KASAN's redzones the frame would pass 1 KiB */
	char *want = kunit_kzalloc(test, STACKINFO_TEXT_MAX + 1, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < ARRAY_SIZE(values); i++) {
		u64 v = values[i];
		u32 v32 = lower_32_bits(v);
		struct stackinfo_query q = {
			.valid = ~0ULL,
			.out_tid = v32,
			.tgid = v32,
			.map_count = v32,
			.start_stack = v,
			.main_vma_start = v,
			.main_vma_end = v,
			.main_prev_end = v,
			.sp = v,
			.sp_vma_start = v,
			.sp_vma_end = v,
			.sp_prev_end = v,
			.sp_guard_start = v,
			.sp_guard_end = v,
			.rlim_stack_cur = v,
			.rlim_stack_max = v,
			.guard_gap = v,
		};

		snprintf(want, STACKINFO_TEXT_MAX + 1,
			 "tid %u\ntgid %u\nmain 0\nmap_count %u\n"
			 "start_stack %08llx\n"
			 "main_vma %08llx-%08llx ---p\n"
			 "main_prev_end %08llx\nsp %08llx\n"
			 "sp_vma %08llx-%08llx ---p\n"
			 "sp_prev_end %08llx\nsp_guard %08llx-%08llx\n"
			 "rlim_stack_cur %llu\nrlim_stack_max %llu\n"
			 "guard_gap %llu\n",
			 v32, v32, v32, v, v, v, v, v, v, v, v, v, v, v, v, v);
		KUNIT_EXPECT_STREQ_MSG(test, stackinfo_text(test, &q),
				       (const char *)want, "value %#llx", v);
	}
}

static struct kunit_case stackinfo_abi_cases[] = {
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
	KUNIT_CASE(abi_ver1_no_ver2_bits),
	KUNIT_CASE(abi_ver2_altstack),
	KUNIT_CASE(abi_no_sp_no_altstack),
	KUNIT_CASE(abi_bad_pointer),
	KUNIT_CASE(threads_init),
	KUNIT_CASE(threads_entry_ver1_no_ver2_bits),
	KUNIT_CASE(threads_entry_ver2_altstack),
	KUNIT_CASE(threads_too_short),
	KUNIT_CASE(threads_refused_tells_nothing),
	KUNIT_CASE(threads_bad_entry_size),
	KUNIT_CASE(threads_bad_entry_size_large),
	KUNIT_CASE(text_thread_all_valid),
	KUNIT_CASE(text_nothing_but_thread),
	KUNIT_CASE(text_flags_and_short_addresses),
	KUNIT_CASE(text_longest),
	KUNIT_CASE(text_as_printf),
	{}
};

static struct kunit_suite stackinfo_abi_suite = {
	.name = "stackinfo_abi",
	.init = stackinfo_case_init,
	.exit = stackinfo_case_exit,
	.test_cases = stackinfo_abi_cases,
};

kunit_test_suite(stackinfo_abi_suite);
