// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: the module's /proc/stackinfo. Its text and ioctls are
 * abi.c's; here, the entry itself. Reading it answers for the reading
 * thread, the ioctl for any thread the access policy allows (access.c).
 *
 * procfs keeps rmmod safe with fds open: proc_remove() waits for calls in
 * flight (a call's copy to user memory included, however long it waits),
 * releases the open files, and calls on them from the start of the
 * removal get -EIO (read) or -ENOTTY (ioctl).
 */
#include <linux/fs.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "stackinfo.h"

static struct proc_dir_entry *stackinfo_pde;

static int stackinfo_open(struct inode *inode, struct file *file)
{
	return single_open(file, stackinfo_show, NULL);
}

static const struct proc_ops stackinfo_proc_ops = {
	.proc_open = stackinfo_open,
	.proc_read_iter = seq_read_iter,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_ioctl = stackinfo_ioctl,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl = stackinfo_compat_ioctl,
#endif
};

int stackinfo_procfs_init(void)
{
	stackinfo_pde =
		proc_create("stackinfo", 0444, NULL, &stackinfo_proc_ops);
	return stackinfo_pde ? 0 : -ENOMEM;
}

void stackinfo_procfs_exit(void)
{
	proc_remove(stackinfo_pde);
}
