// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite stackinfo_signal: a fatal signal ends every wait the
 * module's entry points make, and nothing they took is left behind. Each
 * case holds a lock another process's query needs (init's mmap_lock or
 * exec_update_lock, for writing), starts the call in a kthread of its
 * own that may be killed (allow_signal()), waits until that kthread
 * sleeps on the lock, sends it SIGKILL, and then, with the lock still
 * held, the call must have returned -EINTR: a wait that does not wake for
 * a fatal signal leaves the call asleep until the lock is dropped, and
 * fails the case. init's task and mm references are counted before and
 * after. The sleeping paths: the locked look (mmap_read_lock_killable()),
 * the query's and the batch's exec_update_lock, the kernel's own check
 * (the open of <tid>/maps, which takes exec_update_lock in mm_access()),
 * the batch's loop, and the in-tree file's open and ioctl where the
 * kernel has them.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../module/module.h"
#include "../module/stackinfo.h"
#include "util.h"

#define UBUF BASE
#define UBUF_LEN (2 * PAGE_SIZE)
/* how long a killed call may take to return, with the lock still held */
#define KILLED_WITHIN (5 * HZ)

/* A call made in a kthread of its own, which the case may kill. */
struct sig_call {
	long (*fn)(struct sig_call *s);
	struct mm_struct *use_mm; /* the case's mm, for user memory */
	struct file *file; /* the file the call goes through, or NULL */
	bool self_kill; /* SIGKILL pending before the call */
	/* the case takes its lock only once the call is in the kernel's check */
	bool lock_at_check;
	bool in_check;
	struct completion lock_held;
	bool started;
	long ret;
	struct completion done;
};

static int sig_call_thread(void *data)
{
	struct sig_call *s = data;

	allow_signal(SIGKILL);
	if (s->use_mm)
		kthread_use_mm(s->use_mm);
	if (s->self_kill)
		send_sig(SIGKILL, current, 1);
	WRITE_ONCE(s->started, true);
	s->ret = s->fn(s);
	if (s->use_mm)
		kthread_unuse_mm(s->use_mm);
	/* for every wait: the case waits once with a bound, then for good */
	complete_all(&s->done);
	return 0;
}

/* The call's kthread, made (not yet running) before the case locks. */
static struct task_struct *sig_call_create(struct kunit *test,
					   struct sig_call *s)
{
	struct task_struct *t;

	init_completion(&s->done);
	init_completion(&s->lock_held);
	t = kthread_create(sig_call_thread, s, "stackinfo-sig");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t), "kthread_create: %ld",
			       PTR_ERR(t));
	return get_task_struct(t);
}

/*
 * Has @t gone to sleep on @sem since it started the call? Its state reads
 * as TASK_KILLABLE's ('D'), and, where the rwsem keeps a list of waiters
 * (not PREEMPT_RT's rwbase, which counts its readers otherwise), someone
 * waits on @sem. Up to 5 s.
 */
static bool sig_call_asleep(struct sig_call *s, struct task_struct *t,
			    struct rw_semaphore *sem)
{
	int i;

	for (i = 0; i < 250; i++) {
		if (READ_ONCE(s->started) &&
		    task_state_index(t) == fls(TASK_UNINTERRUPTIBLE) &&
		    (IS_ENABLED(CONFIG_PREEMPT_RT) || rwsem_is_contended(sem)))
			return true;
		msleep(20);
	}
	return false;
}

/* Up to 5 s for the call to be in the kernel's check (or done). */
static void sig_call_wait_check(struct sig_call *s)
{
	int i;

	for (i = 0; i < 250; i++) {
		if (READ_ONCE(s->in_check) || completion_done(&s->done))
			return;
		msleep(20);
	}
}

/*
 * The lock a case holds: an mm's mmap_lock, taken as the kernel takes it
 * for writing (mmap_write_lock(), which also begins the write of the
 * sequence the lock-free look checks: a bare down_write() would leave
 * that look answering), or another rwsem.
 */
struct sig_lock {
	struct mm_struct *mm;
	struct rw_semaphore *sem;
};

static void sig_lock(const struct sig_lock *l)
{
	if (l->mm)
		mmap_write_lock(l->mm);
	else
		down_write(l->sem);
}

static void sig_unlock(const struct sig_lock *l)
{
	if (l->mm)
		mmap_write_unlock(l->mm);
	else
		up_write(l->sem);
}

/*
 * Run @s while the case holds @l for writing: wake the call, wait until
 * it sleeps on @l, kill it, and give it KILLED_WITHIN to return before
 * @l is dropped. Whatever happens, @s has returned when this does.
 */
static void sig_call_kill_blocked(struct kunit *test, struct sig_call *s,
				  const struct sig_lock *l)
{
	struct task_struct *t = sig_call_create(test, s);
	bool asleep, returned;

	if (!s->lock_at_check)
		sig_lock(l);
	wake_up_process(t);
	if (s->lock_at_check) {
		sig_call_wait_check(s);
		sig_lock(l);
		complete(&s->lock_held);
	}
	asleep = sig_call_asleep(s, t, l->mm ? &l->mm->mmap_lock : l->sem);
	send_sig(SIGKILL, t, 1);
	returned = wait_for_completion_timeout(&s->done, KILLED_WITHIN);
	sig_unlock(l);
	wait_for_completion(&s->done);
	put_task_struct(t);
	KUNIT_EXPECT_TRUE_MSG(test, asleep, "the call never slept on the lock");
	KUNIT_EXPECT_TRUE_MSG(test, returned,
			      "killed, the call waited for the lock (%ld)",
			      s->ret);
}

/* @s with nothing held: it runs to its end. */
static void sig_call_run(struct kunit *test, struct sig_call *s)
{
	struct task_struct *t = sig_call_create(test, s);

	wake_up_process(t);
	wait_for_completion(&s->done);
	put_task_struct(t);
}

/*
 * init, referenced, and its reference counts as the case found them: the
 * task's and its mm's users. Not mm_count: a CPU that switches from init
 * to a kthread keeps init's mm as its lazy active_mm and holds an
 * mm_count reference for it until it switches to another mm, which the
 * case's own kthreads do (kernel/sched/core.c, context_switch()).
 */
struct sig_target {
	struct task_struct *task;
	struct mm_struct *mm;
	unsigned int task_refs, mm_users;
	/* its locks: pinned by the references on the task and the mm */
	struct sig_lock mmap_lock, exec_lock;
};

static void target_get(struct kunit *test, struct sig_target *tg)
{
	tg->task = stackinfo_get_init(test, &tg->mm);
	tg->mmap_lock = (struct sig_lock){ .mm = tg->mm };
	tg->exec_lock = (struct sig_lock){
		.sem = &tg->task->signal->exec_update_lock,
	};
	tg->task_refs = refcount_read(&tg->task->usage);
	tg->mm_users = atomic_read(&tg->mm->mm_users);
}

/* Every reference the killed call took is dropped again. */
static void target_put(struct kunit *test, struct sig_target *tg)
{
	KUNIT_EXPECT_EQ(test, refcount_read(&tg->task->usage), tg->task_refs);
	KUNIT_EXPECT_EQ(test, atomic_read(&tg->mm->mm_users), tg->mm_users);
	mmput(tg->mm);
	put_task_struct(tg->task);
}

/* ---- the query ---- */

static long call_query(struct sig_call *s)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = 1 };
	struct stackinfo_module_caller mc;
	long err;

	err = stackinfo_caller_get(&mc.c, s->file, false, 0);
	if (!err)
		err = stackinfo_query(&mc.c, &q);
	stackinfo_caller_put(&mc.c);
	return err;
}

/* Killed in the locked look: mmap_read_lock_killable() on init's mm. */
static void signal_query_mmap_lock(struct kunit *test)
{
	struct sig_call s = { .fn = call_query };
	struct sig_target tg;

	target_get(test, &tg);
	sig_call_kill_blocked(test, &s, &tg.mmap_lock);
	KUNIT_EXPECT_EQ(test, s.ret, -EINTR);
	target_put(test, &tg);
}

/* Killed before the look: the query holds init's exec_update_lock there. */
static void signal_query_exec_lock(struct kunit *test)
{
	struct sig_call s = { .fn = call_query };
	struct sig_target tg;

	target_get(test, &tg);
	sig_call_kill_blocked(test, &s, &tg.exec_lock);
	KUNIT_EXPECT_EQ(test, s.ret, -EINTR);
	target_put(test, &tg);
}

/*
 * The kernel's own check, which an ordinary caller's query asks: the
 * call is let into it (stackinfo_kernel_grant() is asked with no lock
 * held) before the case takes init's exec_update_lock, on which the open
 * of 1/maps then sleeps (mm_access()).
 */
static struct sig_call *check_call;

static int ask_kernel_in_lock(const struct stackinfo_caller *c,
			      struct task_struct *task, bool want_sp,
			      enum stackinfo_grant have, pid_t *nr)
{
	WRITE_ONCE(check_call->in_check, true);
	wait_for_completion(&check_call->lock_held);
	return stackinfo_kernel_grant(c, task, want_sp, have, nr);
}

static long call_query_checked(struct sig_call *s)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = 1 };
	struct stackinfo_module_caller mc;
	long err;

	err = stackinfo_caller_get(&mc.c, s->file, false, 0);
	if (!err) {
		mc.ask_kernel = ask_kernel_in_lock;
		err = stackinfo_query(&mc.c, &q);
	}
	stackinfo_caller_put(&mc.c);
	return err;
}

static void signal_kernel_check(struct kunit *test)
{
	struct sig_call s = { .fn = call_query_checked, .lock_at_check = true };
	struct sig_target tg;

	target_get(test, &tg);
	s.file = filp_open("/proc/stackinfo", O_RDONLY, 0);
	if (IS_ERR(s.file)) {
		target_put(test, &tg);
		KUNIT_FAIL(test, "open /proc/stackinfo: %ld", PTR_ERR(s.file));
		return;
	}
	/* the root shortcut off: only the kernel's check can grant */
	stackinfo_allow_cap_sys_ptrace = false;
	check_call = &s;
	sig_call_kill_blocked(test, &s, &tg.exec_lock);
	check_call = NULL;
	filp_close(s.file, NULL);
	KUNIT_EXPECT_TRUE_MSG(test, s.in_check, "the kernel was never asked");
	KUNIT_EXPECT_EQ(test, s.ret, -EINTR);
	target_put(test, &tg);
}

/* ---- the batch, on user memory of the case's own mm ---- */

static void uread(struct kunit *test, unsigned long addr, void *dst, size_t len)
{
	KUNIT_ASSERT_EQ(test, copy_from_user(dst, (void __user *)addr, len),
			0UL);
}

static void uwrite(struct kunit *test, unsigned long addr, const void *src,
		   size_t len)
{
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, src, len), 0UL);
}

/* A batch for init's threads at UBUF, its entries after it, zeroed. */
static void batch_prepare(struct kunit *test, struct sig_call *s)
{
	struct stackinfo_threads a = {
		.size = sizeof(a),
		.pid = 1,
		.count = 4,
		.entries = UBUF + 64,
		.entry_size = sizeof(struct stackinfo_query),
	};
	void *zero = kunit_kzalloc(test, UBUF_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, zero);
	map_at(test, UBUF, UBUF_LEN, PROT_READ | PROT_WRITE, MAP_TEST);
	uwrite(test, UBUF, zero, UBUF_LEN);
	uwrite(test, UBUF, &a, sizeof(a));
	s->use_mm = current->mm;
}

static long call_batch(struct sig_call *s)
{
	struct stackinfo_module_caller mc;

	return stackinfo_ioctl_threads(&mc.c, NULL, (void __user *)UBUF);
}

/* Killed, the batch wrote no entry and says so. */
static void batch_expect_nothing(struct kunit *test, struct sig_call *s)
{
	struct stackinfo_threads a;
	struct stackinfo_query q;

	KUNIT_EXPECT_EQ(test, s->ret, -EINTR);
	uread(test, UBUF, &a, sizeof(a));
	KUNIT_EXPECT_EQ(test, a.count, 0U);
	uread(test, UBUF + 64, &q, sizeof(q));
	KUNIT_EXPECT_EQ(test, q.out_tid, 0U);
}

/* Killed while the process is checked (exec_update_lock). */
static void signal_batch_exec_lock(struct kunit *test)
{
	struct sig_call s = { .fn = call_batch };
	struct sig_target tg;

	batch_prepare(test, &s);
	target_get(test, &tg);
	sig_call_kill_blocked(test, &s, &tg.exec_lock);
	batch_expect_nothing(test, &s);
	target_put(test, &tg);
}

/* Killed in a thread's query (init's mmap_lock), its threads referenced. */
static void signal_batch_mmap_lock(struct kunit *test)
{
	struct sig_call s = { .fn = call_batch };
	struct sig_target tg;

	batch_prepare(test, &s);
	target_get(test, &tg);
	sig_call_kill_blocked(test, &s, &tg.mmap_lock);
	batch_expect_nothing(test, &s);
	target_put(test, &tg);
}

/* A fatal signal already pending ends the batch before its first entry. */
static void signal_batch_pending(struct kunit *test)
{
	struct sig_call s = { .fn = call_batch, .self_kill = true };
	struct sig_target tg;

	batch_prepare(test, &s);
	target_get(test, &tg);
	sig_call_run(test, &s);
	batch_expect_nothing(test, &s);
	target_put(test, &tg);
}

/* ---- the in-tree file, where the kernel has it ---- */

static void need_intree(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_PROC_STACKINFO))
		kunit_skip(test, "no CONFIG_PROC_STACKINFO here");
}

static long call_intree_open(struct sig_call *s)
{
	struct file *f = filp_open("/proc/1/stackinfo", O_RDONLY, 0);

	if (IS_ERR(f))
		return PTR_ERR(f);
	filp_close(f, NULL);
	return 0;
}

/* The open takes what maps' takes: mm_access()'s exec_update_lock. */
static void signal_intree_open(struct kunit *test)
{
	struct sig_call s = { .fn = call_intree_open };
	struct sig_target tg;

	need_intree(test);
	target_get(test, &tg);
	sig_call_kill_blocked(test, &s, &tg.exec_lock);
	KUNIT_EXPECT_EQ(test, s.ret, -EINTR);
	target_put(test, &tg);
}

static long call_intree_ioctl(struct sig_call *s)
{
	return s->file->f_op->unlocked_ioctl(s->file, STACKINFO_IOC_QUERY,
					     UBUF);
}

/* The ioctl on an open 1/stackinfo, killed in its look. */
static void signal_intree_ioctl(struct kunit *test)
{
	struct stackinfo_query q = { .size = sizeof(q) };
	struct sig_call s = { .fn = call_intree_ioctl };
	struct sig_target tg;

	need_intree(test);
	map_at(test, UBUF, UBUF_LEN, PROT_READ | PROT_WRITE, MAP_TEST);
	uwrite(test, UBUF, &q, sizeof(q));
	s.use_mm = current->mm;
	target_get(test, &tg);
	s.file = filp_open("/proc/1/stackinfo", O_RDONLY, 0);
	if (IS_ERR(s.file)) {
		target_put(test, &tg);
		KUNIT_FAIL(test, "open /proc/1/stackinfo: %ld",
			   PTR_ERR(s.file));
		return;
	}
	sig_call_kill_blocked(test, &s, &tg.mmap_lock);
	filp_close(s.file, NULL);
	KUNIT_EXPECT_EQ(test, s.ret, -EINTR);
	/* and nothing of an answer reached the caller */
	uread(test, UBUF, &q, sizeof(q));
	KUNIT_EXPECT_EQ(test, q.valid, 0ULL);
	target_put(test, &tg);
}

static struct kunit_case stackinfo_signal_cases[] = {
	KUNIT_CASE(signal_query_mmap_lock),
	KUNIT_CASE(signal_query_exec_lock),
	KUNIT_CASE(signal_kernel_check),
	KUNIT_CASE(signal_batch_exec_lock),
	KUNIT_CASE(signal_batch_mmap_lock),
	KUNIT_CASE(signal_batch_pending),
	KUNIT_CASE(signal_intree_open),
	KUNIT_CASE(signal_intree_ioctl),
	{}
};

static struct kunit_suite stackinfo_signal_suite = {
	.name = "stackinfo_signal",
	.init = stackinfo_case_init,
	.exit = stackinfo_case_exit,
	.test_cases = stackinfo_signal_cases,
};

kunit_test_suite(stackinfo_signal_suite);
