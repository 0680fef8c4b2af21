// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: what crosses to user space. The ioctls (STACKINFO_IOC_QUERY,
 * STACKINFO_IOC_QUERY_THREADS) and the text, shared by every file that
 * answers: the module's /proc/stackinfo and the kernel's own
 * /proc/<pid>/stackinfo. Who asks, and whom tid 0 and pid 0 name, comes
 * from the file (stackinfo_caller_get()); the answer from query.c. Every
 * copy to or from user memory happens here, after query.c has dropped
 * whatever it took.
 *
 * Reading answers for the file's thread (for /proc/stackinfo: the reader),
 * as "key value" lines in a fixed order (stackinfo(4)); addresses are
 * written as /proc/<pid>/maps writes them, "-" stands for a value there is
 * no answer for, or that the reader may not see. The text is made at each
 * read, for whoever reads (the module's file) or for the file's thread
 * (the kernel's), and read from the read's offset: nothing of it is kept
 * between reads (stackinfo_read_iter()).
 */
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/kernel.h> /* DIV_ROUND_UP() */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h> /* kvmalloc_array(): mm.h before 5.16, slab.h since */
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include "stackinfo.h"

static_assert(sizeof(struct stackinfo_query) == STACKINFO_QUERY_SIZE_VER2);
/* the answer in words, for the copy out: six a round */
#define STACKINFO_QUERY_WORDS (sizeof(struct stackinfo_query) / sizeof(u64))
static_assert(STACKINFO_QUERY_WORDS % 6 == 0);
static_assert(offsetof(struct stackinfo_query, proof_fd) ==
	      STACKINFO_QUERY_SIZE_VER0);
static_assert(offsetof(struct stackinfo_query, ss_sp) ==
	      STACKINFO_QUERY_SIZE_VER1);
static_assert(sizeof(struct stackinfo_threads) == STACKINFO_THREADS_SIZE_VER1);
static_assert(offsetof(struct stackinfo_threads, proof_fd) ==
	      STACKINFO_THREADS_SIZE_VER0);

/*
 * Both ioctls' structs are extensible in the same way: a __u64 size first,
 * at least the first published size, at most a page, and whatever lies
 * beyond the kernel's struct zero. Sets *usize.
 */
static int stackinfo_size_in(const void __user *uarg, size_t ver0, u64 *usize)
{
	if (get_user(*usize, (const u64 __user *)uarg))
		return -EFAULT;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	if (*usize < ver0)
		return -EINVAL;
	return 0;
}

static int stackinfo_copy_in(void *karg, size_t ksize, const void __user *uarg,
			     size_t ver0, u64 *usize)
{
	int err = stackinfo_size_in(uarg, ver0, usize);

	return err ?: copy_struct_from_user(karg, ksize, uarg, *usize);
}

/*
 * The query's in fields, read one by one into @q (zeroed by the caller):
 * the rest of the struct is out fields, which the query clears whatever
 * the caller left there, so copying them in would only cost time (under
 * TCG the whole struct copied bytewise was a third of the module's own
 * time). What copy_struct_from_user() checks is checked here too:
 * the size, and a zeroed tail beyond the kernel's struct. Every in field
 * lies in an aligned 8-byte word of its own, so a size that is a multiple
 * of 8 leaves each either read whole or not at all; any other size takes
 * copy_struct_from_user(), which copies part of a word as it always has.
 */
static int stackinfo_query_in(struct stackinfo_query *q,
			      const struct stackinfo_query __user *uarg,
			      u64 *usize)
{
	size_t len;
	int err;

	err = stackinfo_size_in(uarg, STACKINFO_QUERY_SIZE_VER0, usize);
	if (err)
		return err;
	if (*usize % sizeof(u64))
		return copy_struct_from_user(q, sizeof(*q), uarg, *usize);
	len = min_t(size_t, *usize, sizeof(*q));
	if (*usize > sizeof(*q)) {
		err = check_zeroed_user((const void __user *)uarg + sizeof(*q),
					*usize - sizeof(*q));
		if (err <= 0)
			return err ?: -E2BIG;
	}
	if (!user_read_access_begin(uarg, len))
		return -EFAULT;
	q->size = *usize;
	unsafe_get_user(q->query_flags, &uarg->query_flags, efault);
	unsafe_get_user(q->tid, &uarg->tid, efault);
	unsafe_get_user(q->reserved, &uarg->reserved, efault);
	if (len >= offsetofend(struct stackinfo_query, reserved1)) {
		unsafe_get_user(q->proof_fd, &uarg->proof_fd, efault);
		unsafe_get_user(q->reserved1, &uarg->reserved1, efault);
	}
	if (len >= offsetofend(struct stackinfo_query, reserved2)) {
		unsafe_get_user(q->addr, &uarg->addr, efault);
		unsafe_get_user(q->reserved2, &uarg->reserved2, efault);
	}
	user_read_access_end();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}

/*
 * The first @len bytes of the answer @q to @dst, a word at a time where
 * the architecture can (x86's unsafe_copy_to_user(): bytewise copies of
 * the whole struct cost as much as the lookup under TCG). The whole
 * struct, what a caller of this layout asks for, goes six words a round:
 * a word a round, the loop's own counting was two thirds of the copy's
 * instructions (docs/cost.md).
 */
static int stackinfo_query_out(void __user *dst,
			       const struct stackinfo_query *q, size_t len)
{
	const u64 *words = (const u64 *)q;
	u64 __user *uwords = dst;
	size_t i;

	if (!user_write_access_begin(dst, len))
		return -EFAULT;
	if (len == sizeof(*q)) {
		for (i = 0; i < STACKINFO_QUERY_WORDS; i += 6) {
			unsafe_put_user(words[i], &uwords[i], efault);
			unsafe_put_user(words[i + 1], &uwords[i + 1], efault);
			unsafe_put_user(words[i + 2], &uwords[i + 2], efault);
			unsafe_put_user(words[i + 3], &uwords[i + 3], efault);
			unsafe_put_user(words[i + 4], &uwords[i + 4], efault);
			unsafe_put_user(words[i + 5], &uwords[i + 5], efault);
		}
	} else {
		unsafe_copy_to_user(dst, (const char *)q, len, efault);
	}
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}

/*
 * The query flags and the proof fd they may name: the fd needs a struct
 * from the layout that has the field.
 */
static int stackinfo_check_flags(u64 flags, u64 usize, size_t proof_end)
{
	if (flags & ~STACKINFO_QUERY_VALID_FLAGS)
		return -EINVAL;
	if ((flags & STACKINFO_QUERY_PROOF_FD) && usize < proof_end)
		return -EINVAL;
	return 0;
}

/* The address to classify needs a struct that has it: not a batch's. */
static int stackinfo_check_addr(const struct stackinfo_query *q, u64 usize)
{
	if ((q->query_flags & STACKINFO_QUERY_ADDR) &&
	    usize < offsetofend(struct stackinfo_query, addr_vma_flags))
		return -EINVAL;
	return 0;
}

/*
 * An answer for a caller that knows the first @usize bytes of the struct:
 * no valid bit for a field beyond them, so that an older layout gets
 * exactly the answer it got before those fields existed.
 */
static void stackinfo_fit(struct stackinfo_query *q, u64 usize)
{
	if (usize < offsetofend(struct stackinfo_query, ss_flags))
		q->valid &= ~STACKINFO_VALID_ALTSTACK;
	if (usize < offsetofend(struct stackinfo_query, stack_kind))
		q->valid &= ~STACKINFO_VALID_STACK_KIND;
	if (usize < offsetofend(struct stackinfo_query, addr_vma_flags))
		q->valid &= ~(STACKINFO_VALID_ADDR | STACKINFO_VALID_ADDR_VMA);
}

VISIBLE_IF_KUNIT int stackinfo_ioctl_query(struct stackinfo_caller *c,
					   const struct file *file,
					   struct stackinfo_query __user *uarg)
{
	struct stackinfo_query q = {};
	bool proof;
	u64 usize;
	int err;

	err = stackinfo_query_in(&q, uarg, &usize);
	if (err)
		return err;
	err = stackinfo_check_flags(q.query_flags, usize,
				    STACKINFO_QUERY_SIZE_VER1);
	if (err)
		return err;
	if (q.reserved || q.reserved1 || q.reserved2)
		return -EINVAL;
	err = stackinfo_check_addr(&q, usize);
	if (err)
		return err;

	proof = q.query_flags & STACKINFO_QUERY_PROOF_FD;
	err = stackinfo_caller_get(c, file, proof, q.proof_fd);
	if (err)
		return err;
	err = stackinfo_query(c, &q);
	stackinfo_caller_put(c);
	if (err)
		return err;

	stackinfo_fit(&q, usize);
	err = stackinfo_query_out(uarg, &q, min_t(size_t, sizeof(q), usize));
	if (err)
		return err;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_ioctl_query);

/* Room for this many more threads than the process had when counted. */
#define STACKINFO_THREADS_SLACK 64
/* Collections a stream of new threads may spoil before the call gives up. */
#define STACKINFO_THREADS_TRIES 8

/* Images (an exec after the process check) a call checks at most. */
#define STACKINFO_IMAGE_TRIES 4

/*
 * References to every thread of @leader's process, into a new array: at
 * most @count (the caller's array), else -ERANGE with *nr set to the
 * threads there are. A burst of new threads beyond the slack retries with
 * a larger array rather than failing while the caller's array would do.
 * -ESTALE when the process no longer runs c->image (it exec'd).
 */
static int stackinfo_collect(const struct stackinfo_caller *c,
			     struct task_struct *leader, u32 count,
			     struct task_struct ***tasksp, u32 *nr)
{
	struct task_struct **tasks;
	u32 cap, tries;
	int err;

	/* how many there are now: nothing is referenced with cap 0 */
	err = stackinfo_threads_get(c, leader, NULL, 0, nr);
	for (tries = 0; tries < STACKINFO_THREADS_TRIES; tries++) {
		if (err != -ERANGE)
			return err ? err : -ESRCH; /* 0: the group has exited */
		if (*nr > count)
			return -ERANGE;
		cap = min_t(u32, count, *nr + STACKINFO_THREADS_SLACK);
		tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL_ACCOUNT);
		if (!tasks)
			return -ENOMEM;
		err = stackinfo_threads_get(c, leader, tasks, cap, nr);
		if (!err) {
			if (!*nr) {
				kvfree(tasks);
				return -ESRCH;
			}
			*tasksp = tasks;
			return 0;
		}
		kvfree(tasks);
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	return -EAGAIN;
}

/*
 * The process of @leader checked, then its threads counted and referenced
 * (stackinfo_collect()), both about one image: c->image, the mm the check
 * was about, which the count must find the process running (under its
 * exec_update_lock) and which every entry's thread must have. An exec in
 * between (a setuid one, say) is the new image's check's to answer,
 * count and all: the check is made again, four times at most (-EAGAIN).
 * c->image is left set for the entries; the caller drops it.
 */
static int stackinfo_process_threads(struct stackinfo_caller *c,
				     struct task_struct *leader, u32 count,
				     struct task_struct ***tasksp, u32 *nr)
{
	unsigned int tries;
	int err;

	for (tries = 0; tries < STACKINFO_IMAGE_TRIES; tries++) {
		/* nothing about the process, not even its size, before this */
		err = stackinfo_process_grant(c, leader, &c->image);
		if (!err)
			err = stackinfo_collect(c, leader, count, tasksp, nr);
		if (err != -ESTALE)
			return err;
		mmdrop(c->image);
		c->image = NULL;
	}
	return -EAGAIN;
}

static void stackinfo_image_put(struct stackinfo_caller *c)
{
	if (c->image)
		mmdrop(c->image);
	c->image = NULL;
}

/*
 * Every thread of a process: the process checked first, then references
 * to its threads collected, both about one image of it, then one query
 * each (a thread of another image left out), each copied out with no
 * lock held. A thread that exits or exec's meanwhile, or that the policy
 * refuses while it allowed the process (a thread whose credentials
 * differ, or whose own check refuses it now), is left out; any other
 * error ends the call. Once the input has been found
 * good, count says how many entries were written, on every outcome but
 * -ERANGE (then: the threads there are). The call keeps the proc entry in
 * use, so rmmod waits for it: it is bounded by the process's threads, and
 * a fatal signal ends it between two.
 */
VISIBLE_IF_KUNIT int
stackinfo_ioctl_threads(struct stackinfo_caller *c, const struct file *file,
			struct stackinfo_threads __user *uarg)
{
	struct task_struct **tasks = NULL, *leader;
	struct stackinfo_threads a;
	struct stackinfo_query q;
	u32 nr = 0, i, written = 0;
	size_t copy, len;
	bool proof;
	u64 usize;
	int err;

	err = stackinfo_copy_in(&a, sizeof(a), uarg,
				STACKINFO_THREADS_SIZE_VER0, &usize);
	if (err)
		return err;
	err = stackinfo_check_flags(a.query_flags, usize,
				    STACKINFO_THREADS_SIZE_VER1);
	if (err)
		return err;
	if (a.reserved1 || (a.query_flags & STACKINFO_QUERY_ADDR))
		return -EINVAL;
	if (a.entry_size < STACKINFO_QUERY_SIZE_VER0 ||
	    a.entry_size > PAGE_SIZE)
		return -EINVAL;
	/* a 32-bit kernel takes neither an address nor a size beyond its own */
	if (a.entries > ULONG_MAX ||
	    check_mul_overflow((size_t)a.count, (size_t)a.entry_size, &len) ||
	    (len && !access_ok(u64_to_user_ptr(a.entries), len)))
		return -EFAULT;

	proof = a.query_flags & STACKINFO_QUERY_PROOF_FD;
	err = stackinfo_caller_get(c, file, proof, a.proof_fd);
	if (err)
		return err;
	/* the input was good: from here on, count says what was written */
	if (a.pid) {
		leader = stackinfo_get_task(c, a.pid);
		err = PTR_ERR_OR_ZERO(leader);
		if (err)
			leader = NULL;
	} else {
		leader = get_task_struct(c->file_task ?: current);
	}
	if (!err)
		err = stackinfo_process_threads(c, leader, a.count, &tasks,
						&nr);
	if (leader)
		put_task_struct(leader);
	if (err == -ERANGE) {
		stackinfo_image_put(c);
		stackinfo_caller_put(c);
		return put_user(nr, &uarg->count) ? -EFAULT : -ERANGE;
	}
	if (err)
		goto out;

	copy = min_t(size_t, sizeof(q), a.entry_size);
	for (i = 0; i < nr; i++) {
		void __user *dst = u64_to_user_ptr(a.entries) +
				   (size_t)written * a.entry_size;

		cond_resched();
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		q = (struct stackinfo_query){
			.size = sizeof(q),
			.query_flags = a.query_flags,
		};
		err = stackinfo_query_task(c, tasks[i], &q);
		if (err == -ESRCH || err == -EACCES || err == -ENOENT) {
			err = 0; /* exited since, or refused alone: left out */
			continue;
		}
		if (err)
			break;
		/*
		 * As a query of the caller's own layout: its size, the number
		 * it would ask for; the proof flag was the call's, not its.
		 */
		q.size = copy;
		q.tid = q.out_tid;
		q.query_flags &= ~STACKINFO_QUERY_PROOF_FD;
		stackinfo_fit(&q, copy);
		if (stackinfo_query_out(dst, &q, copy) ||
		    clear_user(dst + copy, a.entry_size - copy)) {
			err = -EFAULT;
			break;
		}
		written++;
	}
	stackinfo_threads_put(tasks, nr);
	kvfree(tasks);
out:
	stackinfo_image_put(c);
	if (put_user(written, &uarg->count) && !err)
		err = -EFAULT;
	stackinfo_caller_put(c);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_ioctl_threads);

/*
 * Commands are matched on type, direction and number, not on the size
 * bits: a caller built with a larger struct reaches the handler, which
 * reads the struct's own size field.
 */
long stackinfo_ioctl(struct stackinfo_caller *c, struct file *file,
		     unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	if (_IOC_TYPE(cmd) != STACKINFO_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(STACKINFO_IOC_QUERY):
		return stackinfo_ioctl_query(c, file, uarg);
	case _IOC_NR(STACKINFO_IOC_QUERY_THREADS):
		return stackinfo_ioctl_threads(c, file, uarg);
	default:
		return -ENOTTY;
	}
}

#ifdef CONFIG_COMPAT
long stackinfo_compat_ioctl(struct stackinfo_caller *c, struct file *file,
			    unsigned int cmd, unsigned long arg)
{
	/* The structs hold only __u64/__u32 in pairs: one layout for both. */
	return stackinfo_ioctl(c, file, cmd, (unsigned long)compat_ptr(arg));
}
#endif

/*
 * The text is formatted by hand into room on the reader's stack: no
 * seq_file, nothing allocated per open or per read, no printf. Each line
 * is a key, a space and a value at most as long as its kind's widest
 * (below); the room is their sum and the few bytes a hex number's whole
 * 16-digit store may write past its digits, checked at build time.
 */
#define STACKINFO_LINE(key, value) (sizeof(key) + (value) + 1)
#define STACKINFO_HEX 16 /* a u64 in hex */
#define STACKINFO_RANGE (2 * STACKINFO_HEX + 1) /* "start-end" */
#define STACKINFO_DEC32 10
#define STACKINFO_DEC64 20 /* "unlimited" is shorter */
#define STACKINFO_PERMS 5 /* " rwxp" */
#define STACKINFO_TEXT_LONGEST                                                 \
	(STACKINFO_LINE("tid", STACKINFO_DEC32) +                              \
	 STACKINFO_LINE("tgid", STACKINFO_DEC32) + STACKINFO_LINE("main", 1) + \
	 STACKINFO_LINE("map_count", STACKINFO_DEC32) +                        \
	 STACKINFO_LINE("start_stack", STACKINFO_HEX) +                        \
	 STACKINFO_LINE("main_vma", STACKINFO_RANGE + STACKINFO_PERMS) +       \
	 STACKINFO_LINE("main_prev_end", STACKINFO_HEX) +                      \
	 STACKINFO_LINE("sp", STACKINFO_HEX) +                                 \
	 STACKINFO_LINE("sp_vma", STACKINFO_RANGE + STACKINFO_PERMS) +         \
	 STACKINFO_LINE("sp_prev_end", STACKINFO_HEX) +                        \
	 STACKINFO_LINE("sp_guard", STACKINFO_RANGE) +                         \
	 STACKINFO_LINE("rlim_stack_cur", STACKINFO_DEC64) +                   \
	 STACKINFO_LINE("rlim_stack_max", STACKINFO_DEC64) +                   \
	 STACKINFO_LINE("guard_gap", STACKINFO_DEC64))
static_assert(STACKINFO_TEXT_LONGEST + STACKINFO_HEX <= STACKINFO_TEXT_MAX);

/* a string constant, its length known at build time: a store, not a loop */
#define STACKINFO_PUT(p, s) stackinfo_put_const(p, s, sizeof(s) - 1)
#define STACKINFO_KEY(p, key) STACKINFO_PUT(p, key " ")

static __always_inline char *stackinfo_put_const(char *p, const char *s,
						 size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

/*
 * The 8 hex digits of @v, as ASCII in the 8 bytes of a u64, the most
 * significant digit in the most significant byte: each nibble spread to
 * a byte of its own, then '0' added to each, and 'a' - '0' - 10 more to
 * each of 10 or more (a byte's 6 more carries into its bit 4 exactly
 * then; no byte ever carries into the next).
 */
static u64 stackinfo_hex8(u32 v)
{
	u64 x = v;

	x = (x | x << 16) & 0x0000ffff0000ffffULL;
	x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
	return x + 0x3030303030303030ULL +
	       (((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL) *
		       ('a' - '0' - 10);
}

/*
 * @v in hex, at least 8 digits, as /proc/<pid>/maps writes addresses: its
 * n digits are the first n of @v shifted to the top of 16, all 16 stored
 * (the bytes past the n are written over by what follows, or are past
 * the text's end, in the room STACKINFO_TEXT_MAX keeps for them).
 */
static char *stackinfo_put_hex(char *p, u64 v)
{
	unsigned int n = v >> 32 ? DIV_ROUND_UP(fls64(v), 4) : 8;

	v <<= 4 * (STACKINFO_HEX - n);
	put_unaligned_be64(stackinfo_hex8(v >> 32), p);
	put_unaligned_be64(stackinfo_hex8(v), p + 8);
	return p + n;
}

/*
 * @v in decimal, two digits at a time from its last (the count is first);
 * do_div(), which 32-bit kernels need for a u64, is / and % on 64-bit
 */
static char *stackinfo_put_dec(char *p, u64 v)
{
	unsigned int n = 1;
	u64 d = v;
	char *end;
	u32 r;

	while (d >= 100) {
		do_div(d, 100);
		n += 2;
	}
	n += d >= 10;
	end = p + n;
	while (v >= 100) {
		r = do_div(v, 100);
		end -= 2;
		end[0] = '0' + r / 10;
		end[1] = '0' + r % 10;
	}
	if (v >= 10) {
		end[-2] = '0' + (u32)v / 10;
		end[-1] = '0' + (u32)v % 10;
	} else {
		end[-1] = '0' + v;
	}
	return p + n;
}

/* a hex value and its line's end, or "-" for one there is no answer for */
static char *stackinfo_put_addr(char *p, bool valid, u64 v)
{
	if (valid)
		p = stackinfo_put_hex(p, v);
	else
		*p++ = '-';
	*p++ = '\n';
	return p;
}

static char *stackinfo_put_range(char *p, u64 start, u64 end)
{
	p = stackinfo_put_hex(p, start);
	*p++ = '-';
	return stackinfo_put_hex(p, end);
}

/* a VMA as maps writes its range and permissions */
static char *stackinfo_put_vma(char *p, bool valid, u64 start, u64 end,
			       u64 flags)
{
	if (!valid)
		return stackinfo_put_addr(p, false, 0);
	p = stackinfo_put_range(p, start, end);
	p[0] = ' ';
	p[1] = flags & STACKINFO_VMA_READ ? 'r' : '-';
	p[2] = flags & STACKINFO_VMA_WRITE ? 'w' : '-';
	p[3] = flags & STACKINFO_VMA_EXEC ? 'x' : '-';
	p[4] = flags & STACKINFO_VMA_SHARED ? 's' : 'p';
	p[5] = '\n';
	return p + 6;
}

/* a decimal value and its line's end; an rlimit's infinity in words */
static char *stackinfo_put_u64(char *p, bool valid, u64 v, bool rlim)
{
	if (!valid)
		*p++ = '-';
	else if (rlim && v == STACKINFO_RLIM_INFINITY)
		p = STACKINFO_PUT(p, "unlimited");
	else
		p = stackinfo_put_dec(p, v);
	*p++ = '\n';
	return p;
}

/*
 * The text for an answered query, into @buf (STACKINFO_TEXT_MAX bytes, not
 * NUL-terminated); returns its length. The keys and their order are ABI.
 */
VISIBLE_IF_KUNIT size_t stackinfo_format(char *buf,
					 const struct stackinfo_query *q)
{
	bool main = q->thread_flags & STACKINFO_THREAD_MAIN;
	u64 v = q->valid;
	char *p = buf;

	p = STACKINFO_KEY(p, "tid");
	p = stackinfo_put_u64(p, true, q->out_tid, false);
	p = STACKINFO_KEY(p, "tgid");
	p = stackinfo_put_u64(p, true, q->tgid, false);
	p = STACKINFO_KEY(p, "main");
	p = stackinfo_put_u64(p, true, main, false);
	p = STACKINFO_KEY(p, "map_count");
	p = stackinfo_put_u64(p, true, q->map_count, false);
	p = STACKINFO_KEY(p, "start_stack");
	p = stackinfo_put_addr(p, v & STACKINFO_VALID_START_STACK,
			       q->start_stack);
	p = STACKINFO_KEY(p, "main_vma");
	p = stackinfo_put_vma(p, v & STACKINFO_VALID_MAIN_VMA,
			      q->main_vma_start, q->main_vma_end,
			      q->main_vma_flags);
	p = STACKINFO_KEY(p, "main_prev_end");
	p = stackinfo_put_addr(p, v & STACKINFO_VALID_MAIN_PREV,
			       q->main_prev_end);
	p = STACKINFO_KEY(p, "sp");
	p = stackinfo_put_addr(p, v & STACKINFO_VALID_SP, q->sp);
	p = STACKINFO_KEY(p, "sp_vma");
	p = stackinfo_put_vma(p, v & STACKINFO_VALID_SP_VMA, q->sp_vma_start,
			      q->sp_vma_end, q->sp_vma_flags);
	p = STACKINFO_KEY(p, "sp_prev_end");
	p = stackinfo_put_addr(p, v & STACKINFO_VALID_SP_PREV, q->sp_prev_end);
	/* A guard is PROT_NONE by definition: "---p" says nothing more. */
	p = STACKINFO_KEY(p, "sp_guard");
	if (v & STACKINFO_VALID_SP_GUARD) {
		p = stackinfo_put_range(p, q->sp_guard_start, q->sp_guard_end);
		*p++ = '\n';
	} else {
		p = stackinfo_put_addr(p, false, 0);
	}
	p = STACKINFO_KEY(p, "rlim_stack_cur");
	p = stackinfo_put_u64(p, v & STACKINFO_VALID_RLIMIT, q->rlim_stack_cur,
			      true);
	p = STACKINFO_KEY(p, "rlim_stack_max");
	p = stackinfo_put_u64(p, v & STACKINFO_VALID_RLIMIT, q->rlim_stack_max,
			      true);
	p = STACKINFO_KEY(p, "guard_gap");
	p = stackinfo_put_u64(p, v & STACKINFO_VALID_GUARD_GAP, q->guard_gap,
			      false);
	return p - buf;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_format);

/*
 * The text of @q copied from @pos: its own frame, so that the text's room
 * is on the stack only after the query has returned. The room is not
 * cleared: only the text's own bytes are copied.
 */
static noinline ssize_t stackinfo_text_out(const struct stackinfo_query *q,
					   loff_t pos, struct iov_iter *to)
{
	char text[STACKINFO_TEXT_MAX] __uninitialized;
	size_t len = stackinfo_format(text, q), n;

	if (pos >= len)
		return 0;
	n = copy_to_iter(text + pos, len - pos, to);
	return n ?: -EFAULT;
}

/*
 * A read of the text: made anew at every read, for the file's thread (tid
 * 0), and copied from the read's offset. Nothing outlives the read, so
 * nothing is kept between reads or shared by the readers of one open
 * file: a read that goes on from a later offset goes on in a text made
 * for its own reader, now. The text is under STACKINFO_TEXT_MAX, so one
 * read() of that size from offset 0 has all of it. The copy out comes
 * after the query has dropped whatever it took.
 */
ssize_t stackinfo_read_iter(struct stackinfo_caller *c, struct kiocb *iocb,
			    struct iov_iter *to)
{
	struct stackinfo_query q = { .size = sizeof(q) };
	ssize_t ret;
	int err;

	if (iocb->ki_pos < 0)
		return -EINVAL;
	if (!iov_iter_count(to))
		return 0;
	err = stackinfo_caller_get(c, iocb->ki_filp, false, 0);
	if (err)
		return err;
	err = stackinfo_query(c, &q);
	stackinfo_caller_put(c);
	if (err)
		return err;
	ret = stackinfo_text_out(&q, iocb->ki_pos, to);
	if (ret > 0)
		iocb->ki_pos += ret;
	return ret;
}
