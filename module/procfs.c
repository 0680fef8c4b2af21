// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: /proc/stackinfo and the ioctl on it.
 *
 * Reading the file answers for the reading thread, as "key value" lines in
 * a fixed order (stackinfo(4)); addresses are written as /proc/<pid>/maps
 * writes them, "-" stands for a value the kernel has no answer for.
 * The ioctl answers for any thread the access policy allows.
 *
 * procfs keeps rmmod safe with fds open: proc_remove() waits for calls in
 * flight, releases the open files, and later calls on them get -EIO.
 */
#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "stackinfo.h"

static_assert(sizeof(struct stackinfo_query) == STACKINFO_QUERY_SIZE_VER0);
static_assert(sizeof(struct stackinfo_threads) == STACKINFO_THREADS_SIZE_VER0);

static struct proc_dir_entry *stackinfo_pde;

/*
 * Both ioctls' structs are extensible in the same way: a __u64 size first,
 * at least the first published size, at most a page, and whatever lies
 * beyond the kernel's struct zero. Sets *usize.
 */
static int stackinfo_copy_in(void *karg, size_t ksize, const void __user *uarg,
			     size_t ver0, u64 *usize)
{
	if (get_user(*usize, (const u64 __user *)uarg))
		return -EFAULT;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	if (*usize < ver0)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, *usize);
}

VISIBLE_IF_KUNIT int stackinfo_ioctl_query(const struct file *file,
					   struct stackinfo_query __user *uarg)
{
	struct stackinfo_query q;
	u64 usize;
	int err;

	err = stackinfo_copy_in(&q, sizeof(q), uarg, STACKINFO_QUERY_SIZE_VER0,
				&usize);
	if (err)
		return err;
	if (q.query_flags & ~STACKINFO_QUERY_VALID_FLAGS)
		return -EINVAL;
	if (q.reserved)
		return -EINVAL;

	err = stackinfo_query(file, &q);
	if (err)
		return err;

	if (copy_to_user(uarg, &q, min_t(size_t, sizeof(q), usize)))
		return -EFAULT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_ioctl_query);

/* Room for this many more threads than the process had when counted. */
#define STACKINFO_THREADS_SLACK 64

/*
 * Every thread of a process: tids collected first, then one query each,
 * each copied out with no lock held. A thread that exits in between is
 * left out; any other error ends the call.
 */
VISIBLE_IF_KUNIT int
stackinfo_ioctl_threads(const struct file *file,
			struct stackinfo_threads __user *uarg)
{
	struct stackinfo_threads a;
	struct stackinfo_query q;
	u32 nr, i, written = 0;
	size_t copy;
	pid_t *tids;
	u64 usize;
	int err;

	err = stackinfo_copy_in(&a, sizeof(a), uarg,
				STACKINFO_THREADS_SIZE_VER0, &usize);
	if (err)
		return err;
	if (a.query_flags & ~STACKINFO_QUERY_VALID_FLAGS)
		return -EINVAL;
	if (a.entry_size < STACKINFO_QUERY_SIZE_VER0 ||
	    a.entry_size > PAGE_SIZE)
		return -EINVAL;
	if (a.count &&
	    !access_ok(u64_to_user_ptr(a.entries), (u64)a.count * a.entry_size))
		return -EFAULT;

	/* count first, then collect into an array sized by that count */
	err = stackinfo_thread_tids(a.pid, NULL, 0, &nr);
	if (err && err != -E2BIG)
		return err;
	if (nr > a.count)
		goto too_small;
	nr = min_t(u32, a.count, nr + STACKINFO_THREADS_SLACK);
	tids = kvmalloc_array(nr, sizeof(*tids), GFP_KERNEL);
	if (!tids)
		return -ENOMEM;
	err = stackinfo_thread_tids(a.pid, tids, nr, &nr);
	if (err) {
		kvfree(tids);
		if (err == -E2BIG)
			goto too_small;
		return err;
	}

	copy = min_t(size_t, sizeof(q), a.entry_size);
	for (i = 0; i < nr; i++) {
		void __user *dst = u64_to_user_ptr(a.entries) +
				   (u64)written * a.entry_size;

		q = (struct stackinfo_query){
			.size = sizeof(q),
			.query_flags = a.query_flags,
			.tid = tids[i],
		};
		err = stackinfo_query(file, &q);
		if (err == -ESRCH)
			continue; /* exited since it was counted */
		if (err)
			break;
		if (copy_to_user(dst, &q, copy) ||
		    clear_user(dst + copy, a.entry_size - copy)) {
			err = -EFAULT;
			break;
		}
		written++;
	}
	kvfree(tids);
	if (err && err != -ESRCH)
		return err;
	return put_user(written, &uarg->count) ? -EFAULT : 0;

too_small:
	return put_user(nr, &uarg->count) ? -EFAULT : -E2BIG;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_ioctl_threads);

static long stackinfo_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	switch (cmd) {
	case STACKINFO_IOC_QUERY:
		return stackinfo_ioctl_query(file, (void __user *)arg);
	case STACKINFO_IOC_QUERY_THREADS:
		return stackinfo_ioctl_threads(file, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

#ifdef CONFIG_COMPAT
static long stackinfo_compat_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	/* The structs hold only __u64/__u32 in pairs: one layout for both. */
	return stackinfo_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif

static void stackinfo_show_addr(struct seq_file *m, const char *key, bool valid,
				u64 addr)
{
	if (valid)
		seq_printf(m, "%s %08llx\n", key, addr);
	else
		seq_printf(m, "%s -\n", key);
}

static void stackinfo_show_vma(struct seq_file *m, const char *key, bool valid,
			       u64 start, u64 end, u64 flags)
{
	if (!valid) {
		seq_printf(m, "%s -\n", key);
		return;
	}
	seq_printf(m, "%s %08llx-%08llx %c%c%c%c\n", key, start, end,
		   flags & STACKINFO_VMA_READ ? 'r' : '-',
		   flags & STACKINFO_VMA_WRITE ? 'w' : '-',
		   flags & STACKINFO_VMA_EXEC ? 'x' : '-',
		   flags & STACKINFO_VMA_SHARED ? 's' : 'p');
}

static void stackinfo_show_rlim(struct seq_file *m, const char *key, bool valid,
				u64 lim)
{
	if (!valid)
		seq_printf(m, "%s -\n", key);
	else if (lim == STACKINFO_RLIM_INFINITY)
		seq_printf(m, "%s unlimited\n", key);
	else
		seq_printf(m, "%s %llu\n", key, lim);
}

/* The text of /proc/stackinfo for an answered query; order is ABI. */
VISIBLE_IF_KUNIT void stackinfo_show_query(struct seq_file *m,
					   const struct stackinfo_query *q)
{
	u64 v = q->valid;

	seq_printf(m, "tid %u\n", q->out_tid);
	seq_printf(m, "tgid %u\n", q->tgid);
	seq_printf(m, "main %u\n", !!(q->thread_flags & STACKINFO_THREAD_MAIN));
	seq_printf(m, "map_count %u\n", q->map_count);
	stackinfo_show_addr(m, "start_stack", v & STACKINFO_VALID_START_STACK,
			    q->start_stack);
	stackinfo_show_vma(m, "main_vma", v & STACKINFO_VALID_MAIN_VMA,
			   q->main_vma_start, q->main_vma_end,
			   q->main_vma_flags);
	stackinfo_show_addr(m, "main_prev_end", v & STACKINFO_VALID_MAIN_PREV,
			    q->main_prev_end);
	stackinfo_show_addr(m, "sp", v & STACKINFO_VALID_SP, q->sp);
	stackinfo_show_vma(m, "sp_vma", v & STACKINFO_VALID_SP_VMA,
			   q->sp_vma_start, q->sp_vma_end, q->sp_vma_flags);
	stackinfo_show_addr(m, "sp_prev_end", v & STACKINFO_VALID_SP_PREV,
			    q->sp_prev_end);
	/* A guard is PROT_NONE by definition: "---p" says nothing more. */
	if (v & STACKINFO_VALID_SP_GUARD)
		seq_printf(m, "sp_guard %08llx-%08llx\n", q->sp_guard_start,
			   q->sp_guard_end);
	else
		seq_puts(m, "sp_guard -\n");
	stackinfo_show_rlim(m, "rlim_stack_cur", v & STACKINFO_VALID_RLIMIT,
			    q->rlim_stack_cur);
	stackinfo_show_rlim(m, "rlim_stack_max", v & STACKINFO_VALID_RLIMIT,
			    q->rlim_stack_max);
	if (v & STACKINFO_VALID_GUARD_GAP)
		seq_printf(m, "guard_gap %llu\n", q->guard_gap);
	else
		seq_puts(m, "guard_gap -\n");
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_show_query);

static int stackinfo_show(struct seq_file *m, void *v)
{
	struct stackinfo_query q = { .size = sizeof(q) };
	int err;

	err = stackinfo_query(m->file, &q);
	if (err)
		return err;
	stackinfo_show_query(m, &q);
	return 0;
}

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
