// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: the module's /proc/stackinfo. Its text and ioctls are
 * abi.c's; here, the entry itself. Reading it answers for the reading
 * thread, the ioctl for any thread the access policy allows (access.c).
 *
 * The text is about its reader, so one reader's text is never read by
 * another: an open file description can be shared (an inherited fd, a
 * shared stdin), and seq_file continues a text made at offset 0 for
 * whoever reads on. So the file remembers whom the text in its buffer was
 * made for (the reading thread's struct pid), and a read by any other
 * thread makes it anew, for that thread, and reads it from the offset
 * asked, as a fresh open would.
 *
 * procfs keeps rmmod safe with fds open: proc_remove() waits for calls in
 * flight (a call's copy to user memory included, however long it waits),
 * releases the open files, and calls on them from the start of the
 * removal get -EIO (read) or -ENOTTY (ioctl).
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "module.h"
#include "profile.h"
#include "stackinfo.h"

static struct proc_dir_entry *stackinfo_pde;

/* An open file's text, and whom it was made for. */
struct stackinfo_text {
	/* held across a read or a seek: the check and the read are one */
	struct mutex lock;
	/* the thread the buffered text is about (referenced), or NULL */
	struct pid *reader;
};

/* seq_file makes the text: for the reading thread, which it remembers. */
static int stackinfo_text_show(struct seq_file *m, void *v)
{
	struct stackinfo_text *t = m->private;
	struct pid *me = task_pid(current);
	struct stackinfo_module_caller mc __uninitialized;

	/* under m->lock, inside a read or a seek that holds t->lock */
	if (t->reader != me) {
		put_pid(t->reader);
		t->reader = get_pid(me);
	}
	return stackinfo_show(&mc.c, m);
}

static int stackinfo_open(struct inode *inode, struct file *file)
{
	struct stackinfo_text *t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	int err;

	if (!t)
		return -ENOMEM;
	mutex_init(&t->lock);
	err = single_open(file, stackinfo_text_show, t);
	if (err)
		kfree(t);
	return err;
}

static int stackinfo_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct stackinfo_text *t = m->private;

	put_pid(t->reader);
	mutex_destroy(&t->lock);
	kfree(t);
	return single_release(inode, file);
}

/*
 * A read goes on in the buffered text only for the thread it was made
 * for. For any other, the buffer is forgotten as seq_read_iter() forgets
 * it after an error (nothing buffered, the record and the position at 0),
 * so that it makes the text anew for this reader and skips to the offset
 * asked (traverse()), as a read of a fresh open at that offset does.
 */
static ssize_t stackinfo_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct seq_file *m = iocb->ki_filp->private_data;
	struct stackinfo_text *t = m->private;
	ssize_t ret;

	mutex_lock(&t->lock);
	mutex_lock(&m->lock);
	if (t->reader != task_pid(current)) {
		m->count = 0;
		m->index = 0;
		m->read_pos = 0;
	}
	mutex_unlock(&m->lock);
	ret = seq_read_iter(iocb, to);
	mutex_unlock(&t->lock);
	return ret;
}

/* seq_lseek() may make the text (traverse()): under t->lock too. */
static loff_t stackinfo_lseek(struct file *file, loff_t offset, int whence)
{
	struct seq_file *m = file->private_data;
	struct stackinfo_text *t = m->private;
	loff_t ret;

	mutex_lock(&t->lock);
	ret = seq_lseek(file, offset, whence);
	mutex_unlock(&t->lock);
	return ret;
}

/* Room for the module's caller (stackinfo_caller_get(), access.c). */
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
	.proc_open = stackinfo_open,
	.proc_read_iter = stackinfo_read_iter,
	.proc_lseek = stackinfo_lseek,
	.proc_release = stackinfo_release,
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
