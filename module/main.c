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
#include <kunit/visibility.h>

#include "stackinfo.h"

#define STACKINFO_CMDLINE_MAX 4096

unsigned long stackinfo_guard_gap;
bool stackinfo_guard_gap_known;

/*
 * stack_guard_gap is not exported. mm/mmap.c starts it at 256 pages and a
 * boot parameter "stack_guard_gap=<pages>" replaces it when all of its
 * value is digits (simple_strtoul() up to the NUL); the last one given
 * wins, and nothing after "--" is a kernel parameter. This reads a command
 * line the same way. @cmdline is modified.
 */
VISIBLE_IF_KUNIT unsigned long stackinfo_guard_gap_from_cmdline(char *cmdline)
{
	static const char key[] = "stack_guard_gap=";
	unsigned long gap = 256UL << PAGE_SHIFT;
	char *tok;

	while ((tok = strsep(&cmdline, " \t\n")) != NULL) {
		unsigned long pages;

		if (!strcmp(tok, "--"))
			break;
		if (strncmp(tok, key, sizeof(key) - 1))
			continue;
		tok += sizeof(key) - 1;
		if (!*tok)
			gap = 0;
		else if (!kstrtoul(tok, 10, &pages))
			gap = pages << PAGE_SHIFT;
	}
	return gap;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_guard_gap_from_cmdline);

/* If the command line cannot be read, the gap stays unknown: not reported. */
static void __init stackinfo_read_guard_gap(void)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t len;
	char *buf;

	f = filp_open("/proc/cmdline", O_RDONLY, 0);
	if (IS_ERR(f))
		return;
	buf = kzalloc(STACKINFO_CMDLINE_MAX, GFP_KERNEL);
	len = buf ? kernel_read(f, buf, STACKINFO_CMDLINE_MAX - 1, &pos) :
		    -ENOMEM;
	filp_close(f, NULL);
	if (len >= 0) {
		stackinfo_guard_gap = stackinfo_guard_gap_from_cmdline(buf);
		stackinfo_guard_gap_known = true;
	}
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
MODULE_DESCRIPTION("A thread's stack bounds: /proc/stackinfo and its ioctl");
MODULE_VERSION("0.1.0");
