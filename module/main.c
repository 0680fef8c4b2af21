// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: a thread's stack bounds in one syscall.
 * Module init and exit, and the one value modules cannot read directly.
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>

#include "module.h"
#include "stackinfo.h"

/* The longest command line read; bootconfig can add to the boot loader's. */
#define STACKINFO_CMDLINE_MAX SZ_1M

unsigned long stackinfo_guard_gap;
EXPORT_SYMBOL_IF_KUNIT(stackinfo_guard_gap);
bool stackinfo_guard_gap_known;
EXPORT_SYMBOL_IF_KUNIT(stackinfo_guard_gap_known);

static long stack_guard_gap_pages = -1;
module_param_named(stack_guard_gap, stack_guard_gap_pages, long, 0444);
#define STACKINFO_GAP_DESC \
	"The kernel's stack_guard_gap in pages (default: from /proc/cmdline)"
MODULE_PARM_DESC(stack_guard_gap, STACKINFO_GAP_DESC);

/*
 * lockfree: Y while queries try the lock-free look first; it cannot be
 * set where this build has none (module/compat/compat.h says where), so
 * reading it tells an administrator which path answers. The two counters say how
 * often that look answered and how often it gave way to mmap_lock.
 */
static int stackinfo_lockfree_set(const char *val,
				  const struct kernel_param *kp)
{
	bool on;
	int err = kstrtobool(val, &on);

	if (err)
		return err;
	if (on && !STACKINFO_HAVE_LOCKFREE)
		return -EOPNOTSUPP;
	WRITE_ONCE(stackinfo_lockfree, on);
	return 0;
}

static const struct kernel_param_ops stackinfo_lockfree_ops = {
	.set = stackinfo_lockfree_set,
	.get = param_get_bool,
};

module_param_cb(lockfree, &stackinfo_lockfree_ops, &stackinfo_lockfree, 0644);
MODULE_PARM_DESC(lockfree, "Answer without mmap_lock where the kernel can");

static int stackinfo_count_readonly(const char *val,
				    const struct kernel_param *kp)
{
	return -EPERM;
}

static int stackinfo_count_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n",
			  stackinfo_lockfree_count(*(bool *)kp->arg));
}

static const struct kernel_param_ops stackinfo_count_ops = {
	.set = stackinfo_count_readonly,
	.get = stackinfo_count_get,
};

static bool stackinfo_count_hits = true, stackinfo_count_fallbacks;
module_param_cb(lockfree_hits, &stackinfo_count_ops, &stackinfo_count_hits,
		0444);
MODULE_PARM_DESC(lockfree_hits, "Queries answered without mmap_lock");
module_param_cb(lockfree_fallbacks, &stackinfo_count_ops,
		&stackinfo_count_fallbacks, 0444);
MODULE_PARM_DESC(lockfree_fallbacks,
		 "Lock-free looks that met a writer and took mmap_lock instead");

/* Parameter names as the kernel compares them: '-' and '_' are the same. */
static bool stackinfo_param_is(const char *param, const char *name)
{
	for (; *param && *name; param++, name++) {
		char a = *param == '-' ? '_' : *param;
		char b = *name == '-' ? '_' : *name;

		if (a != b)
			return false;
	}
	return !*param && !*name;
}

/*
 * stack_guard_gap is not exported. mm/mmap.c starts it at 256 pages, and
 * its boot parameter handler replaces it with the value when
 * simple_strtoul() reads all of it (so "" gives 0, and digits that
 * overflow wrap); the last one given wins. Boot parameters are split as
 * next_arg() splits them (quotes removed), names match with '-' and '_'
 * alike, and nothing after "--" is a kernel parameter. This reads a
 * command line the same way. @cmdline is modified.
 */
VISIBLE_IF_KUNIT unsigned long stackinfo_guard_gap_from_cmdline(char *cmdline)
{
	unsigned long gap = 256UL << PAGE_SHIFT;
	char *args = skip_spaces(cmdline);

	while (*args) {
		unsigned long pages = 0;
		char *param, *val, *p;

		args = next_arg(args, &param, &val);
		if (!val && !strcmp(param, "--"))
			break;
		if (!val || !stackinfo_param_is(param, "stack_guard_gap"))
			continue;
		for (p = val; isdigit(*p); p++)
			pages = pages * 10 + (*p - '0');
		if (!*p)
			gap = pages << PAGE_SHIFT;
	}
	return gap;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_guard_gap_from_cmdline);

/*
 * /proc/cmdline as seen from the root of the initial namespace's init,
 * whatever mount namespace insmod runs in; ERR_PTR() if it cannot be
 * opened.
 */
static struct file *stackinfo_open_cmdline(void)
{
	struct file *f = ERR_PTR(-ENOENT);
	struct task_struct *init;
	struct path root;
	bool have_root = false;

	rcu_read_lock();
	init = pid_task(find_pid_ns(1, &init_pid_ns), PIDTYPE_PID);
	if (init)
		get_task_struct(init);
	rcu_read_unlock();
	if (!init)
		return f;
	task_lock(init);
	if (init->fs) {
		get_fs_root(init->fs, &root);
		have_root = true;
	}
	task_unlock(init);
	put_task_struct(init);
	if (have_root) {
		f = file_open_root(&root, "proc/cmdline", O_RDONLY, 0);
		path_put(&root);
	}
	return f;
}

/* All of the command line, NUL-terminated; ERR_PTR() if it cannot be read. */
static char *stackinfo_read_cmdline(void)
{
	size_t size = PAGE_SIZE, len = 0;
	char *buf = NULL, *bigger;
	loff_t pos = 0;
	struct file *f;
	ssize_t got;

	f = stackinfo_open_cmdline();
	if (IS_ERR(f))
		return ERR_CAST(f);
	for (;;) {
		bigger = krealloc(buf, size, GFP_KERNEL);
		if (!bigger) {
			got = -ENOMEM;
			goto fail;
		}
		buf = bigger;
		got = kernel_read(f, buf + len, size - 1 - len, &pos);
		if (got < 0)
			goto fail;
		len += got;
		if (!got)
			break;
		if (len == size - 1) {
			if (size >= STACKINFO_CMDLINE_MAX) {
				got = -E2BIG;
				goto fail;
			}
			size *= 2;
		}
	}
	filp_close(f, NULL);
	buf[len] = '\0';
	return buf;
fail:
	filp_close(f, NULL);
	kfree(buf);
	return ERR_PTR(got);
}

bool stackinfo_init_transient(long err)
{
	return err == -ENOMEM || err == -EINTR || err == -ERESTARTSYS ||
	       err == -ENFILE;
}

/*
 * If neither says it, the gap stays unknown and is not reported; an error
 * stackinfo_init_transient() names fails the load instead.
 */
static int stackinfo_read_guard_gap(void)
{
	char *cmdline;

	if (stack_guard_gap_pages >= 0) {
		stackinfo_guard_gap = (unsigned long)stack_guard_gap_pages
				      << PAGE_SHIFT;
		stackinfo_guard_gap_known = true;
		return 0;
	}
	cmdline = stackinfo_read_cmdline();
	if (IS_ERR(cmdline)) {
		if (stackinfo_init_transient(PTR_ERR(cmdline)))
			return PTR_ERR(cmdline);
		pr_warn("stackinfo: cannot read /proc/cmdline (%pe): the guard gap is not reported (module parameter stack_guard_gap sets it)\n",
			cmdline);
		return 0;
	}
	stackinfo_guard_gap = stackinfo_guard_gap_from_cmdline(cmdline);
	stackinfo_guard_gap_known = true;
	kfree(cmdline);
	return 0;
}

static int __init stackinfo_init(void)
{
	int err;

	err = stackinfo_read_guard_gap();
	if (!err)
		err = stackinfo_access_init();
	if (err)
		return err;
	/* the core's default: wherever CONFIG_PER_VMA_LOCK is set */
	if (!STACKINFO_HAVE_LOCKFREE)
		stackinfo_lockfree = false;
	if (STACKINFO_HAVE_LOCKFREE)
		pr_info("stackinfo: lock-free path: yes (%s)%s\n",
			STACKINFO_LOCKFREE_HOW,
			stackinfo_lockfree ? "" : ", disabled by lockfree=0");
	else
		pr_info("stackinfo: lock-free path: no (mmap_read_lock only)\n");
	return stackinfo_procfs_init();
}

static void __exit stackinfo_exit(void)
{
	stackinfo_procfs_exit();
}

module_init(stackinfo_init);
module_exit(stackinfo_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The stackinfo developers");
MODULE_DESCRIPTION("A thread's stack bounds: /proc/stackinfo and its ioctl");
MODULE_VERSION("0.3.0");
