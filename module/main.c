// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: a thread's stack bounds in one syscall.
 * Module init and exit, and the one value modules cannot read directly.
 */
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "stackinfo.h"

#define STACKINFO_CMDLINE_MAX	4096

unsigned long stackinfo_guard_gap;
bool stackinfo_guard_gap_known;

/*
 * stack_guard_gap is not exported. mm/mmap.c starts it at 256 pages and a
 * boot parameter "stack_guard_gap=<pages>" replaces it when all of its
 * value is digits; the last one given wins. Read the command line the same
 * way. If it cannot be read the gap stays unknown and is not reported.
 */
static void __init stackinfo_read_guard_gap(void)
{
	static const char key[] = "stack_guard_gap=";
	unsigned long gap = 256UL << PAGE_SHIFT;
	char *buf, *cur, *tok;
	struct file *f;
	loff_t pos = 0;
	ssize_t len;

	f = filp_open("/proc/cmdline", O_RDONLY, 0);
	if (IS_ERR(f))
		return;
	buf = kzalloc(STACKINFO_CMDLINE_MAX, GFP_KERNEL);
	len = buf ? kernel_read(f, buf, STACKINFO_CMDLINE_MAX - 1, &pos) : -ENOMEM;
	filp_close(f, NULL);
	if (len < 0)
		goto out;

	cur = buf;
	while ((tok = strsep(&cur, " \t\n")) != NULL) {
		unsigned long pages;

		if (!strcmp(tok, "--"))
			break;	/* the rest is for init */
		if (strncmp(tok, key, sizeof(key) - 1))
			continue;
		tok += sizeof(key) - 1;
		if (!*tok)
			gap = 0;	/* simple_strtoul("") is 0, end at NUL */
		else if (!kstrtoul(tok, 10, &pages))
			gap = pages << PAGE_SHIFT;
	}
	stackinfo_guard_gap = gap;
	stackinfo_guard_gap_known = true;
out:
	kfree(buf);
}

static int __init stackinfo_init(void)
{
	stackinfo_read_guard_gap();
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
MODULE_DESCRIPTION("A thread's stack bounds from task data: /proc/stackinfo and its ioctl");
MODULE_VERSION("0.1.0");
