// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: the module's /proc/stackinfo. Its text and ioctls are
 * abi.c's; here, the entry itself. Reading it answers for the reading
 * thread, the ioctl for any thread the access policy allows (access.c).
 *
 * The text is about its reader, and made for whoever reads, at each read
 * (abi.c): an open file description can be shared (an inherited fd, a
 * shared stdin), and each reader reads its own text. The file keeps
 * nothing: no open or release of its own, no state between reads.
 *
 * procfs keeps rmmod safe with fds open: proc_remove() waits for calls in
 * flight (a call's copy to user memory included, however long it waits),
 * and calls on the open files from the start of the removal get -EIO
 * (read), -ENOTTY (ioctl) or -EINVAL (lseek); having no release, the file
 * leaves procfs nothing to release for it.
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/proc_fs.h>

#include "module.h"
#include "profile.h"
#include "stackinfo.h"

static struct proc_dir_entry *stackinfo_pde;

/* Room for the module's caller (stackinfo_caller_get(), access.c). */
static ssize_t stackinfo_proc_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	/* stackinfo_caller_get() clears it: not the compiler too */
	struct stackinfo_module_caller mc __uninitialized;

	return stackinfo_read_iter(&mc.c, iocb, to);
}

/* As for the read. */
static long stackinfo_proc_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	/* stackinfo_caller_get() clears it: not the compiler too */
	struct stackinfo_module_caller mc __uninitialized;
	long ret;

	stackinfo_prof_begin();
	stackinfo_prof(STACKINFO_STEP_MARK);
	ret = stackinfo_ioctl(&mc.c, file, cmd, arg);
	stackinfo_prof(STACKINFO_STEP_COPY_OUT);
	return ret;
}

#ifdef CONFIG_COMPAT
/* The structs hold only __u64/__u32 in pairs: one layout for both. */
static long stackinfo_proc_compat_ioctl(struct file *file, unsigned int cmd,
					unsigned long arg)
{
	return stackinfo_proc_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif

static const struct proc_ops stackinfo_proc_ops = {
	.proc_read_iter = stackinfo_proc_read_iter,
	/* offsets within the text; SEEK_END is from 0, the inode's size */
	.proc_lseek = generic_file_llseek,
	.proc_ioctl = stackinfo_proc_ioctl,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl = stackinfo_proc_compat_ioctl,
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
