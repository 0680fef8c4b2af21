// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite stackinfo_intree, for the in-tree /proc/<pid>/stackinfo
 * (kernel/proc/stackinfo.c, built into the patched debug kernels): its
 * entry points, the open, the read and the ioctls, reached through the
 * VFS as a user's calls reach them, with the answers held against the
 * module's own for the same thread. Every case skips on a kernel without
 * CONFIG_PROC_STACKINFO.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../module/module.h"
#include "../module/stackinfo.h"
#include "util.h"

#define UBUF BASE
#define UBUF_LEN (4 * PAGE_SIZE)

static void need_intree(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_PROC_STACKINFO))
		kunit_skip(test, "no CONFIG_PROC_STACKINFO here");
}

static struct file *open_file(struct kunit *test, const char *path)
{
	struct file *f = filp_open(path, O_RDONLY, 0);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "open %s: %ld", path,
			       PTR_ERR(f));
	return f;
}

/* 0 if @path opens (closed again at once), else the open's error. */
static long open_err(const char *path)
{
	struct file *f = filp_open(path, O_RDONLY, 0);

	if (IS_ERR(f))
		return PTR_ERR(f);
	fput(f);
	return 0;
}

/* What read(2) of @f from offset 0 gives: the text, or the error. */
static ssize_t read_text(struct kunit *test, struct file *f, char **text)
{
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	loff_t pos = 0;
	ssize_t n;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	n = kernel_read(f, buf, PAGE_SIZE - 1, &pos);
	*text = buf;
	return n;
}

/* The module's text for thread @tid, asked as this kthread (root). */
static const char *module_text(struct kunit *test, pid_t tid)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = tid };
	struct stackinfo_module_caller mc;

	KUNIT_ASSERT_EQ(test, stackinfo_caller_get(&mc.c, NULL, false, 0), 0);
	KUNIT_ASSERT_EQ(test, stackinfo_query(&mc.c, &q), 0);
	stackinfo_caller_put(&mc.c);
	return stackinfo_text(test, &q);
}

/*
 * @path's text equals the module's for @tid: read between two of the
 * module's, and those two equal (init sleeps meanwhile; else again).
 */
static void expect_module_text(struct kunit *test, const char *path, pid_t tid)
{
	const char *before, *after;
	struct file *f;
	char *text;
	int tries;

	for (tries = 0; tries < 5; tries++) {
		before = module_text(test, tid);
		f = open_file(test, path);
		KUNIT_ASSERT_GT(test, read_text(test, f, &text), 0);
		fput(f);
		after = module_text(test, tid);
		if (!strcmp(before, after))
			break;
	}
	KUNIT_ASSERT_STREQ_MSG(test, before, after, "init kept moving");
	KUNIT_EXPECT_STREQ(test, text, before);
}

static void intree_text_is_the_modules(struct kunit *test)
{
	need_intree(test);
	expect_module_text(test, "/proc/1/stackinfo", 1);
	expect_module_text(test, "/proc/1/task/1/stackinfo", 1);
}

/* A kernel thread's file opens, as its maps does, and reads ENOENT. */
static void intree_kthread(struct kunit *test)
{
	struct file *f;
	char *text;

	need_intree(test);
	f = open_file(test, "/proc/2/stackinfo");
	KUNIT_EXPECT_EQ(test, read_text(test, f, &text), -ENOENT);
	fput(f);
}

/* An ioctl through @f's file operations on a query at the user buffer. */
static long file_ioctl(struct kunit *test, struct file *f, unsigned int cmd,
		       const void *arg, size_t len)
{
	void __user *u = (void __user *)UBUF;

	KUNIT_ASSERT_EQ(test, copy_to_user(u, arg, len), 0UL);
	return f->f_op->unlocked_ioctl(f, cmd, (unsigned long)u);
}

static void ubuf(struct kunit *test)
{
	map_at(test, UBUF, UBUF_LEN, PROT_READ | PROT_WRITE, MAP_TEST);
}

/* tid 0 is the file's thread, not the caller (this kthread) */
static void intree_ioctl_tid0(struct kunit *test)
{
	struct stackinfo_query q = { .size = sizeof(q) };
	void __user *u = (void __user *)UBUF;
	struct file *f;

	need_intree(test);
	ubuf(test);
	f = open_file(test, "/proc/1/stackinfo");
	KUNIT_ASSERT_EQ(test,
			file_ioctl(test, f, STACKINFO_IOC_QUERY, &q, sizeof(q)),
			0L);
	KUNIT_ASSERT_EQ(test, copy_from_user(&q, u, sizeof(q)), 0UL);
	KUNIT_EXPECT_EQ(test, q.out_tid, 1U);
	KUNIT_EXPECT_EQ(test, q.tgid, 1U);
	KUNIT_EXPECT_TRUE(test, q.thread_flags & STACKINFO_THREAD_MAIN);
	KUNIT_EXPECT_FALSE(test, q.thread_flags & STACKINFO_THREAD_SELF);
	KUNIT_EXPECT_TRUE(test, q.valid & STACKINFO_VALID_SP_VMA);
	fput(f);
}

/* Only the file's process: kthreadd through init's file is ESRCH; no proof fd. */
static void intree_ioctl_refusals(struct kunit *test)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = 2 };
	unsigned int bad;
	struct file *f;

	need_intree(test);
	ubuf(test);
	f = open_file(test, "/proc/1/stackinfo");
	KUNIT_EXPECT_EQ(test,
			file_ioctl(test, f, STACKINFO_IOC_QUERY, &q, sizeof(q)),
			-ESRCH);
	q.tid = 1;
	q.query_flags = STACKINFO_QUERY_PROOF_FD;
	q.proof_fd = 0;
	KUNIT_EXPECT_EQ(test,
			file_ioctl(test, f, STACKINFO_IOC_QUERY, &q, sizeof(q)),
			-EINVAL);
	bad = _IO(STACKINFO_IOC_MAGIC, 0x7f);
	KUNIT_EXPECT_EQ(test, f->f_op->unlocked_ioctl(f, bad, 0), -ENOTTY);
	fput(f);
}

/* The batch on init's file: pid 0 is init's process; another pid is ESRCH. */
static void intree_threads(struct kunit *test)
{
	struct stackinfo_threads a = {
		.size = sizeof(a),
		.count = 8,
		.entries = UBUF + PAGE_SIZE,
		.entry_size = sizeof(struct stackinfo_query),
	};
	void __user *u = (void __user *)UBUF;
	struct stackinfo_query e;
	struct file *f;

	need_intree(test);
	ubuf(test);
	f = open_file(test, "/proc/1/stackinfo");
	KUNIT_ASSERT_EQ(test,
			file_ioctl(test, f, STACKINFO_IOC_QUERY_THREADS, &a,
				   sizeof(a)),
			0L);
	KUNIT_ASSERT_EQ(test, copy_from_user(&a, u, sizeof(a)), 0UL);
	KUNIT_ASSERT_GE(test, a.count, 1U);
	KUNIT_ASSERT_EQ(test,
			copy_from_user(&e, (void __user *)(UBUF + PAGE_SIZE),
				       sizeof(e)),
			0UL);
	KUNIT_EXPECT_EQ(test, e.tgid, 1U);
	a.pid = 2;
	a.count = 8;
	KUNIT_EXPECT_EQ(test,
			file_ioctl(test, f, STACKINFO_IOC_QUERY_THREADS, &a,
				   sizeof(a)),
			-ESRCH);
	fput(f);
}

/*
 * The open's grant stays with the file (maps' rule); the SP is the
 * reader's own right at each read (syscall's): opened as root, read as
 * uid 1000, the VMAs are there and the SP lines say "-". Opened as uid
 * 1000, init's file is refused as its maps is.
 */
static void intree_grant_at_open_sp_at_read(struct kunit *test)
{
	const struct cred *saved;
	struct cred *user;
	struct file *f;
	char *text, *sp;

	need_intree(test);
	f = open_file(test, "/proc/1/stackinfo");
	user = stackinfo_uid_creds(test, 1000);
	saved = override_creds(user);
	KUNIT_EXPECT_GT(test, read_text(test, f, &text), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nmain_vma 7"));
	sp = strstr(text, "\nsp -\nsp_vma -\nsp_prev_end -\nsp_guard -\n");
	KUNIT_EXPECT_NOT_NULL(test, sp);
	KUNIT_EXPECT_EQ(test, open_err("/proc/1/maps"), -EACCES);
	KUNIT_EXPECT_EQ(test, open_err("/proc/1/stackinfo"),
			open_err("/proc/1/maps"));
	revert_creds(saved);
	put_cred(user);
	fput(f);
}

static struct kunit_case stackinfo_intree_cases[] = {
	KUNIT_CASE(intree_text_is_the_modules),
	KUNIT_CASE(intree_kthread),
	KUNIT_CASE(intree_ioctl_tid0),
	KUNIT_CASE(intree_ioctl_refusals),
	KUNIT_CASE(intree_threads),
	KUNIT_CASE(intree_grant_at_open_sp_at_read),
	{}
};

static struct kunit_suite stackinfo_intree_suite = {
	.name = "stackinfo_intree",
	.init = stackinfo_case_init,
	.exit = stackinfo_case_exit,
	.test_cases = stackinfo_intree_cases,
};

kunit_test_suite(stackinfo_intree_suite);
