// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: the answer from task data.
 *
 * Everything here works on kernel memory only: the ioctl and
 * /proc/stackinfo copy and format what stackinfo_query() fills in, after
 * every lock taken here has been dropped.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/resource.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <asm/ptrace.h>
#include <kunit/visibility.h>

#include "compat.h"
#include "stackinfo.h"

u64 stackinfo_vma_flags(unsigned long vm_flags)
{
	u64 flags = 0;

	if (vm_flags & VM_READ)
		flags |= STACKINFO_VMA_READ;
	if (vm_flags & VM_WRITE)
		flags |= STACKINFO_VMA_WRITE;
	if (vm_flags & VM_EXEC)
		flags |= STACKINFO_VMA_EXEC;
	if (vm_flags & VM_MAYSHARE)
		flags |= STACKINFO_VMA_SHARED;
	if (vm_flags & VM_GROWSDOWN)
		flags |= STACKINFO_VMA_GROWSDOWN;
	return flags;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_vma_flags);

/*
 * The VMA holding @addr, the end of the VMA below it, and that VMA again
 * as a guard when it is PROT_NONE and touches it (a pthread stack's guard).
 * One walk of the maple tree and one step back: O(log n) in VMAs.
 * The caller holds mmap_lock for reading. -ENOENT when no VMA holds @addr.
 */
int stackinfo_vma_at(struct mm_struct *mm, unsigned long addr,
		     struct stackinfo_vma *out)
{
	VMA_ITERATOR(vmi, mm, addr);
	struct vm_area_struct *vma, *prev;

	mmap_assert_locked(mm);
	memset(out, 0, sizeof(*out));
	/* A user SP can hold anything; vma_find() needs addr + 1 > addr. */
	if (addr >= mm->task_size)
		return -ENOENT;

	vma = vma_find(&vmi, addr + 1);
	if (!vma)
		return -ENOENT;
	out->found = true;
	out->start = vma->vm_start;
	out->end = vma->vm_end;
	out->flags = stackinfo_vma_flags(vma->vm_flags);

	prev = vma_prev(&vmi);
	if (!prev)
		return 0;
	out->has_prev = true;
	out->prev_end = prev->vm_end;
	if (prev->vm_end == vma->vm_start &&
	    !(prev->vm_flags & (VM_READ | VM_WRITE | VM_EXEC))) {
		out->has_guard = true;
		out->guard_start = prev->vm_start;
		out->guard_end = prev->vm_end;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_vma_at);

/* Thread @tid (not 0) of the caller's pid namespace, referenced. */
static struct task_struct *stackinfo_get_task(pid_t tid)
{
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(find_vpid(tid), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task;
}

/*
 * The task's mm (referenced) and its user SP, both under task_lock() as
 * get_task_mm() takes the mm: while task->mm is set the task has not
 * passed exit_mm(), so its kernel stack, where the SP was saved at its last
 * kernel entry, is still its own.
 */
static int stackinfo_grab_mm(struct task_struct *task, bool want_sp,
			     struct mm_struct **mmp, unsigned long *sp,
			     bool *have_sp)
{
	struct mm_struct *mm;

	task_lock(task);
	mm = task->mm;
	if (!mm) {
		task_unlock(task);
		return -ESRCH; /* exited, or a zombie */
	}
	mmget(mm);
	*have_sp = want_sp && !(task->flags & STACKINFO_PF_WORKER);
	if (*have_sp)
		*sp = user_stack_pointer(task_pt_regs(task));
	task_unlock(task);
	*mmp = mm;
	return 0;
}

/*
 * Take the mm the policy allows. For another process this happens under
 * exec_update_lock, as mm_access() does, so the decision and the mm it
 * was made for cannot be split by an exec of a setuid program.
 */
static int stackinfo_target_mm(const struct file *file,
			       struct task_struct *task, bool want_sp,
			       struct mm_struct **mmp, unsigned long *sp,
			       bool *have_sp)
{
	bool other = !same_thread_group(task, current);
	int err;

	if (other) {
		err = down_read_killable(&task->signal->exec_update_lock);
		if (err)
			return err;
	}
	err = stackinfo_grab_mm(task, want_sp, mmp, sp, have_sp);
	if (!err) {
		err = stackinfo_may_access(file, task, *mmp);
		if (err)
			mmput(*mmp);
	}
	if (other)
		up_read(&task->signal->exec_update_lock);
	return err;
}

/*
 * What a query holds while it looks. The caller itself takes nothing: its
 * task and mm cannot go away under its own system call, and its SP is
 * the one it entered with.
 */
struct stackinfo_target {
	struct task_struct *task;
	struct mm_struct *mm;
	unsigned long sp;
	pid_t tid, tgid; /* in the caller's pid namespace */
	bool have_sp;
	bool self;
};

static int stackinfo_target_get(const struct file *file, pid_t tid,
				bool want_sp, struct stackinfo_target *t)
{
	struct task_struct *task;
	int err;

	t->self = !tid;
	if (t->self) {
		t->task = current;
		if (current->flags & PF_KTHREAD)
			return -ENOENT; /* no user stack to report */
		t->tid = task_pid_vnr(current);
		t->tgid = task_tgid_vnr(current);
		t->mm = current->mm;
		t->have_sp = want_sp;
		if (want_sp)
			t->sp = user_stack_pointer(current_pt_regs());
		return 0;
	}

	task = stackinfo_get_task(tid);
	if (!task)
		return -ESRCH;
	/*
	 * The numbers first: a thread reaped after this has passed exit_mm()
	 * and gives no mm below, so no answer pairs an mm with a tid of 0.
	 */
	t->tid = tid;
	t->tgid = task_tgid_vnr(task);
	err = -ENOENT;
	if (!(task->flags & PF_KTHREAD))
		err = stackinfo_target_mm(file, task, want_sp, &t->mm, &t->sp,
					  &t->have_sp);
	if (err) {
		put_task_struct(task);
		return err;
	}
	t->task = task;
	return 0;
}

static void stackinfo_target_put(struct stackinfo_target *t)
{
	if (t->self)
		return;
	mmput(t->mm);
	put_task_struct(t->task);
}

/* One VMA's out fields; the valid bits they earn. */
static u64 stackinfo_put_vma(const struct stackinfo_vma *v, u64 *start,
			     u64 *end, u64 *flags, u64 *prev_end, u64 vma_bit,
			     u64 prev_bit)
{
	if (!v->found)
		return 0;
	*start = v->start;
	*end = v->end;
	*flags = v->flags;
	*prev_end = v->prev_end;
	return vma_bit | (v->has_prev ? prev_bit : 0);
}

static u64 stackinfo_rlim(unsigned long lim)
{
	return lim == RLIM_INFINITY ? STACKINFO_RLIM_INFINITY : lim;
}

/*
 * Answer @q, whose in fields the caller has checked, for thread q->tid of
 * the caller's pid namespace (0: the caller). @file is the fd the question
 * came through, NULL for none: the access policy looks at who opened it.
 * The out fields are cleared first, whatever the outcome.
 */
int stackinfo_query(const struct file *file, struct stackinfo_query *q)
{
	const struct stackinfo_query in = {
		.size = q->size,
		.query_flags = q->query_flags,
		.tid = q->tid,
		.reserved = q->reserved,
	};
	struct stackinfo_vma main_vma, sp_vma;
	struct stackinfo_target t;
	struct task_struct *task;
	bool want_sp;
	int err;

	*q = in;
	if (in.tid > PID_MAX_LIMIT)
		return -ESRCH;
	want_sp = !(in.query_flags & STACKINFO_QUERY_NO_SP);
	err = stackinfo_target_get(file, in.tid, want_sp, &t);
	if (err)
		return err;
	task = t.task;

	err = mmap_read_lock_killable(t.mm);
	if (err)
		goto out;
	q->map_count = t.mm->map_count;
	q->start_stack = t.mm->start_stack;
	stackinfo_vma_at(t.mm, t.mm->start_stack, &main_vma);
	/* the main thread's SP is nearly always in its main stack: one walk */
	if (t.have_sp && main_vma.found && t.sp >= main_vma.start &&
	    t.sp < main_vma.end)
		sp_vma = main_vma;
	else if (t.have_sp)
		stackinfo_vma_at(t.mm, t.sp, &sp_vma);
	mmap_read_unlock(t.mm);

	q->out_tid = t.tid;
	q->tgid = t.tgid;
	if (thread_group_leader(task))
		q->thread_flags |= STACKINFO_THREAD_MAIN;
	if (task == current)
		q->thread_flags |= STACKINFO_THREAD_SELF;
	if (task->flags & STACKINFO_PF_WORKER)
		q->thread_flags |= STACKINFO_THREAD_WORKER;
	q->valid |= STACKINFO_VALID_THREAD | STACKINFO_VALID_START_STACK;

	q->valid |= stackinfo_put_vma(&main_vma, &q->main_vma_start,
				      &q->main_vma_end, &q->main_vma_flags,
				      &q->main_prev_end,
				      STACKINFO_VALID_MAIN_VMA,
				      STACKINFO_VALID_MAIN_PREV);
	if (t.have_sp) {
		q->sp = t.sp;
		q->valid |= STACKINFO_VALID_SP;
		q->valid |= stackinfo_put_vma(&sp_vma, &q->sp_vma_start,
					      &q->sp_vma_end, &q->sp_vma_flags,
					      &q->sp_prev_end,
					      STACKINFO_VALID_SP_VMA,
					      STACKINFO_VALID_SP_PREV);
		if (sp_vma.has_guard) {
			q->sp_guard_start = sp_vma.guard_start;
			q->sp_guard_end = sp_vma.guard_end;
			q->valid |= STACKINFO_VALID_SP_GUARD;
		}
	}

	q->rlim_stack_cur = stackinfo_rlim(task_rlimit(task, RLIMIT_STACK));
	q->rlim_stack_max = stackinfo_rlim(task_rlimit_max(task, RLIMIT_STACK));
	q->valid |= STACKINFO_VALID_RLIMIT;
	if (stackinfo_guard_gap_known) {
		q->guard_gap = stackinfo_guard_gap;
		q->valid |= STACKINFO_VALID_GUARD_GAP;
	}
out:
	stackinfo_target_put(&t);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_query);

/*
 * The tids (caller's pid namespace) of every thread of the process that
 * thread @pid (0: the caller) belongs to, at most @cap of them into @tids.
 * *@nr is how many there are; -E2BIG when that is more than @cap.
 */
int stackinfo_thread_tids(pid_t pid, pid_t *tids, u32 cap, u32 *nr)
{
	struct task_struct *task, *t;
	u32 n = 0;

	if (pid < 0 || pid > PID_MAX_LIMIT)
		return -ESRCH;
	task = pid ? stackinfo_get_task(pid) : current;
	if (!task)
		return -ESRCH;
	rcu_read_lock();
	for_each_thread(task, t) {
		if (n < cap)
			tids[n] = task_pid_vnr(t);
		n++;
	}
	rcu_read_unlock();
	if (pid)
		put_task_struct(task);
	*nr = n;
	if (!n)
		return -ESRCH; /* the whole group has exited */
	return n > cap ? -E2BIG : 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_thread_tids);
