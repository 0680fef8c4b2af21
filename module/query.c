// SPDX-License-Identifier: GPL-2.0
/*
 * stackinfo: the answer from task data.
 *
 * Everything here works on kernel memory only: the ioctl and
 * /proc/stackinfo copy and format what stackinfo_query() fills in, after
 * every lock taken here has been dropped.
 */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/resource.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <asm/ptrace.h>
#include <kunit/visibility.h>

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
 * One walk of the VMA tree to the entry at @addr and one step back:
 * O(log n) in VMAs.
 * The caller holds rcu_read_lock(), and either mmap_lock, which makes
 * every read here stable, or a sequence it checks afterwards
 * (stackinfo_look_lockless()): then the VMAs may be changing or freed
 * under it (vm_start and vm_end share a union with what frees them), the
 * reads race on purpose, and nothing read may be trusted or acted on
 * before that check passes. -ENOENT when no VMA holds @addr.
 */
static int stackinfo_vma_walk(struct mm_struct *mm, unsigned long addr,
			      struct stackinfo_vma *out)
{
	VMA_ITERATOR(vmi, mm, addr);
	struct vm_area_struct *vma, *prev;
	unsigned long vm_flags;

	memset(out, 0, sizeof(*out));
	/* a user SP can hold anything */
	if (addr >= mm->task_size)
		return -ENOENT;

	/* the VMA that intersects [addr, addr + 1) */
	vma = vma_find(&vmi, addr + 1);
	if (!vma)
		return -ENOENT;
	out->found = true;
	out->start = data_race(vma->vm_start); /* racy: see above */
	out->end = data_race(vma->vm_end); /* racy: see above */
	vm_flags = data_race(vma->vm_flags); /* racy: see above */
	out->flags = stackinfo_vma_flags(vm_flags);

	prev = vma_prev(&vmi);
	if (!prev)
		return 0;
	out->has_prev = true;
	out->prev_end = data_race(prev->vm_end); /* racy: see above */
	vm_flags = data_race(prev->vm_flags); /* racy: see above */
	if (out->prev_end == out->start &&
	    !(vm_flags & (VM_READ | VM_WRITE | VM_EXEC))) {
		out->has_guard = true;
		out->guard_start = data_race(prev->vm_start); /* see above */
		out->guard_end = out->prev_end;
	}
	return 0;
}

/*
 * The VMA holding @addr or the first above it (find_vma()'s), the VMA
 * below that one and the VMA above it: what the fault path and
 * expand_downwards() look at. Under the same conditions as
 * stackinfo_vma_walk(): a lock-free caller's reads race on purpose, and
 * the racy end read here is used only as an index for the next step of
 * the walk, never as a pointer.
 */
static void stackinfo_addr_walk(struct mm_struct *mm, unsigned long addr,
				struct stackinfo_addr *out)
{
	VMA_ITERATOR(vmi, mm, addr);
	struct vm_area_struct *vma, *prev, *next;

	memset(out, 0, sizeof(*out));
	if (addr >= mm->task_size)
		return;
	vma = vma_find(&vmi, ULONG_MAX);
	if (!vma)
		return;
	out->found = true;
	out->start = data_race(vma->vm_start); /* racy: see above */
	out->end = data_race(vma->vm_end); /* racy: see above */
	out->vm_flags = data_race(vma->vm_flags); /* racy: see above */
	out->pgoff = data_race(vma->vm_pgoff); /* racy: see above */

	prev = vma_prev(&vmi);
	if (prev) {
		out->has_prev = true;
		out->prev_end = data_race(prev->vm_end); /* racy: see above */
		out->prev_flags = data_race(prev->vm_flags); /* see above */
	}
	vma_iter_init(&vmi, mm, out->end);
	next = vma_find(&vmi, ULONG_MAX);
	if (next) {
		out->has_next = true;
		out->next_start = data_race(next->vm_start); /* see above */
		out->next_flags = data_race(next->vm_flags); /* see above */
	}
}

/* stackinfo_vma_walk() for a caller holding mmap_lock for reading. */
int stackinfo_vma_at(struct mm_struct *mm, unsigned long addr,
		     struct stackinfo_vma *out)
{
	int err;

	mmap_assert_locked(mm);
	rcu_read_lock();
	err = stackinfo_vma_walk(mm, addr, out);
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_vma_at);

/*
 * Whether queries try the lock-free look first (module parameter
 * "lockfree"; it cannot be set where the kernel offers no such look), and
 * how often it answered or gave way to mmap_lock. Per-CPU, so that
 * counting costs concurrent queries no shared cache line.
 */
bool stackinfo_lockfree = IS_ENABLED(CONFIG_PER_VMA_LOCK);
EXPORT_SYMBOL_IF_KUNIT(stackinfo_lockfree);
static DEFINE_PER_CPU(unsigned long, stackinfo_lockfree_hits);
static DEFINE_PER_CPU(unsigned long, stackinfo_lockfree_fallbacks);

unsigned long stackinfo_lockfree_count(bool hits)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += hits ? per_cpu(stackinfo_lockfree_hits, cpu) :
			      per_cpu(stackinfo_lockfree_fallbacks, cpu);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_lockfree_count);

/*
 * The walks of one look: the caller makes them stable (see above). Every
 * out field of @l is written, each once (what a failed lock-free look
 * left is overwritten), none cleared first: under TCG a cleared struct
 * costs an instruction a word (docs/cost.md).
 */
static void stackinfo_look_walk(struct mm_struct *mm, unsigned long sp,
				bool have_sp, struct stackinfo_look *l)
{
	if (l->want_addr)
		stackinfo_addr_walk(mm, l->addr, &l->at);
	else
		memset(&l->at, 0, sizeof(l->at));
	/* written under mmap_lock for writing: racy without it, checked */
	l->map_count = data_race(mm->map_count);
	/* also by prctl(PR_SET_MM) under the read lock: one read, used once */
	l->start_stack = READ_ONCE(mm->start_stack);
	/*
	 * The VMA maps labels [stack]: vm_start <= start_stack <= vm_end
	 * (vma_is_initial_stack(); is_stack() on 5.10 and 6.1). The one holding
	 * start_stack, else the one ending there (what was above it unmapped).
	 */
	if (stackinfo_vma_walk(mm, l->start_stack, &l->main_vma) &&
	    l->start_stack &&
	    (stackinfo_vma_walk(mm, l->start_stack - 1, &l->main_vma) ||
	     l->main_vma.end != l->start_stack))
		memset(&l->main_vma, 0, sizeof(l->main_vma));
	/* the main thread's SP is nearly always in its main stack: one walk */
	if (have_sp && l->main_vma.found && sp >= l->main_vma.start &&
	    sp < l->main_vma.end)
		l->sp_vma = l->main_vma;
	else if (have_sp)
		stackinfo_vma_walk(mm, sp, &l->sp_vma);
	else
		memset(&l->sp_vma, 0, sizeof(l->sp_vma));
}

/*
 * One look at @mm without mmap_lock: true when @l holds an answer as the
 * locked look would have given it at some moment, false when a writer
 * held or took mmap_lock meanwhile (then @l is garbage). Every change to
 * the VMA tree and to a VMA's bounds or flags happens with mmap_lock held
 * for writing, which makes the sequence odd. The maple tree's nodes are
 * freed through RCU, so the walk under RCU never reads freed tree memory.
 * The VMAs it reaches are a weaker thing: 6.12 frees a removed VMA an RCU
 * grace period later, but since 6.15 the VMA cache is SLAB_TYPESAFE_BY_RCU
 * (7.2): under RCU a VMA's memory stays a VMA, yet may already be another
 * VMA of another mm. So the walk reads only a VMA's own scalars (bounds,
 * flags), never follows a pointer read from one, and trusts nothing it
 * read before the sequence check. An even sequence, the walk under RCU,
 * and the same sequence after it prove that no writer ran during the
 * walk. @before_retry runs between the walk and that check, outside RCU
 * (KUnit makes a writer run there); NULL in use.
 */
VISIBLE_IF_KUNIT bool
stackinfo_look_lockless(struct mm_struct *mm, unsigned long sp, bool have_sp,
			struct stackinfo_look *l,
			void (*before_retry)(struct mm_struct *mm))
{
	unsigned int seq;

	if (!mmap_lock_speculate_try_begin(mm, &seq))
		return false;
	rcu_read_lock();
	stackinfo_look_walk(mm, sp, have_sp, l);
	rcu_read_unlock();
	if (before_retry)
		before_retry(mm);
	return !mmap_lock_speculate_retry(mm, seq);
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_look_lockless);

/* The same look under mmap_lock, which waits for writers. */
VISIBLE_IF_KUNIT int stackinfo_look_locked(struct mm_struct *mm,
					   unsigned long sp, bool have_sp,
					   struct stackinfo_look *l)
{
	int err = mmap_read_lock_killable(mm);

	if (err)
		return err;
	rcu_read_lock();
	stackinfo_look_walk(mm, sp, have_sp, l);
	rcu_read_unlock();
	mmap_read_unlock(mm);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_look_locked);

/* @l from one moment of @mm: lock-free where it can, else locked. */
VISIBLE_IF_KUNIT int stackinfo_look(struct mm_struct *mm, unsigned long sp,
				    bool have_sp, struct stackinfo_look *l,
				    void (*before_retry)(struct mm_struct *mm))
{
	if (READ_ONCE(stackinfo_lockfree)) {
		if (stackinfo_look_lockless(mm, sp, have_sp, l, before_retry)) {
			this_cpu_inc(stackinfo_lockfree_hits);
			return 0;
		}
		this_cpu_inc(stackinfo_lockfree_fallbacks);
	}
	return stackinfo_look_locked(mm, sp, have_sp, l);
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_look);

/* A user worker (io-wq) shares the mm but never ran user code: no SP. */
static bool stackinfo_has_user_sp(struct task_struct *task)
{
	return !(task->flags & (PF_IO_WORKER | PF_USER_WORKER));
}

/*
 * @task's sigaltstack as it keeps it (pinned with the task_struct by the
 * caller's reference, or current's own call). Only @task writes it:
 * sigaltstack() (under its siglock only with CONFIG_DYNAMIC_SIGFRAME), a
 * signal delivered with SS_AUTODISARM (sas_ss_reset()), sigreturn
 * (restore_altstack()), and exec clears it under exec_update_lock
 * (begin_new_exec()), with no lock a reader could take. About another thread the reads
 * race with it on purpose: each value is one it held, and the three may
 * straddle one change (stackinfo(4) says so). Thread clone resets them
 * before the thread is visible, so they are never uninitialised. Read
 * under the exec_update_lock the grant was made under, as the SP is: a
 * new image's sigaltstack is never told for the old image's grant.
 */
static void stackinfo_read_altstack(struct task_struct *task,
				    struct stackinfo_target *t)
{
	/* racy on purpose about another thread: see above */
	t->ss_sp = data_race(READ_ONCE(task->sas_ss_sp));
	/* racy on purpose: see above */
	t->ss_size = data_race(READ_ONCE(task->sas_ss_size));
	/* racy on purpose: see above */
	t->ss_flags = data_race(READ_ONCE(task->sas_ss_flags));
}

/*
 * @task's mm (referenced) and SP, taken under task_lock() as get_task_mm()
 * takes the mm: while task->mm is set the task has not passed exit_mm(),
 * so its kernel stack, where the SP was saved at its last kernel entry,
 * is still its own. A thread running in user space meanwhile has moved on
 * from that SP, and one entering the kernel may be saving a new one: the
 * read races on purpose (the answer is "the SP at the last entry", a
 * snapshot of a moving value, which stackinfo(4) says).
 * NULL for a kernel thread or one past exit_mm(). For another process's
 * thread, the policy's stackinfo_lock_target() calls this under the
 * thread's exec_update_lock.
 */
struct mm_struct *stackinfo_task_mm(struct task_struct *task,
				    struct stackinfo_target *t)
{
	struct mm_struct *mm;

	task_lock(task);
	mm = (task->flags & PF_KTHREAD) ? NULL : task->mm;
	if (mm) {
		mmget(mm);
		/* racy on purpose: see above */
		t->sp = data_race(user_stack_pointer(task_pt_regs(task)));
		stackinfo_read_altstack(task, t);
	}
	task_unlock(task);
	return mm;
}

/*
 * Undo stackinfo_lock_target()'s exec_update_lock (task->signal pinned by
 * the caller's reference on @task), as unlock_trace() undoes lock_trace().
 */
void stackinfo_unlock_target(struct task_struct *task)
{
	up_read(&task->signal->exec_update_lock);
}

/*
 * Take @task's mm and SP if the policy allows. For another process the
 * policy decides under exec_update_lock, as mm_access() does, and returns
 * it held (stackinfo_lock_target()), so that the decision and the mm it
 * was made for cannot be split by an exec. Nothing about the task, not
 * even that it is a kernel thread, before the policy has allowed it.
 */
static int stackinfo_target_get(const struct stackinfo_caller *c,
				struct task_struct *task, bool want_sp,
				struct stackinfo_target *t)
{
	bool other = !same_thread_group(task, current);
	enum stackinfo_grant grant;
	struct mm_struct *mm;
	int err;

	memset(t, 0, sizeof(*t));
	if (task == current) {
		/* a kernel thread (KUnit) or one past exit_mm(): no user mm */
		if ((task->flags & PF_KTHREAD) || !task->mm)
			return -ENOENT;
		t->self = true;
		t->task = task;
		t->mm = task->mm;
		t->sp_granted = want_sp;
		t->have_sp = want_sp && stackinfo_has_user_sp(task);
		if (t->have_sp)
			t->sp = user_stack_pointer(current_pt_regs());
		stackinfo_read_altstack(task, t);
		return 0;
	}

	if (other) {
		err = stackinfo_lock_target(c, task, want_sp, t, &mm, &grant);
		if (err) {
			t->sp = 0; /* read, perhaps, but not granted */
			return err;
		}
	} else {
		mm = stackinfo_task_mm(task, t);
		grant = stackinfo_grant(c, task, mm);
	}
	if (grant == STACKINFO_GRANT_NONE)
		err = -EACCES;
	else if (task->flags & PF_KTHREAD)
		err = -ENOENT; /* no user stack to report */
	else if (!mm)
		err = -ESRCH; /* exited, or a zombie */
	else if (c->image && mm != c->image)
		err = -ESRCH; /* exec'd since the batch counted it */
	else
		err = 0;
	if (other)
		stackinfo_unlock_target(task);
	if (err) {
		if (mm)
			mmput(mm);
		t->sp = 0;
		return err;
	}
	t->task = task;
	t->mm = mm;
	t->sp_granted = want_sp && grant == STACKINFO_GRANT_ALL;
	t->have_sp = t->sp_granted && stackinfo_has_user_sp(task);
	if (!t->have_sp)
		t->sp = 0;
	return 0;
}

static void stackinfo_target_put(struct stackinfo_target *t)
{
	if (!t->self && t->mm)
		mmput(t->mm);
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
 * RLIMIT_STACK as prlimit() reads it: both values under the group leader's
 * task_lock(), which setrlimit() holds while it writes them, so the pair is
 * never torn. The reference on @task pins @task and its signal_struct,
 * where the limits live, but not its leader: once @task is released
 * (release_task()), its zombie leader may be reaped and freed a grace
 * period later, with task->group_leader still pointing at it. So, as
 * prlimit64() does under tasklist_lock and as pid_alive() says: under RCU,
 * first that @task is not released; then its leader, which is released no
 * sooner than @task (delay_group_leader()) and freed no sooner than a
 * grace period after that, stays valid until rcu_read_unlock(). An exec
 * can make another thread the leader; the old one is freed through RCU
 * too. -ESRCH once @task is released.
 */
VISIBLE_IF_KUNIT int stackinfo_rlimit_stack(struct task_struct *task,
					    struct rlimit *rlim)
{
	struct task_struct *leader;

	rcu_read_lock();
	if (!pid_alive(task)) {
		rcu_read_unlock();
		return -ESRCH;
	}
	leader = READ_ONCE(task->group_leader);
	task_lock(leader);
	*rlim = task->signal->rlim[RLIMIT_STACK];
	task_unlock(leader);
	rcu_read_unlock();
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_rlimit_stack);

/* Is @sp on the sigaltstack at @ss_sp? __on_sig_stack() for any task. */
static bool stackinfo_on_altstack(unsigned long sp, unsigned long ss_sp,
				  unsigned long ss_size)
{
	if (IS_ENABLED(CONFIG_STACK_GROWSUP))
		return sp >= ss_sp && sp - ss_sp < ss_size;
	return sp > ss_sp && sp - ss_sp <= ss_size;
}

/*
 * The sigaltstack @t read with the SP (stackinfo_read_altstack()), with
 * the flags sigaltstack(NULL, &old) would give the thread at @t's SP
 * (sas_ss_flags() there: SS_DISABLE without one, SS_ONSTACK on it unless
 * SS_AUTODISARM), and which stack that SP is on.
 */
static void stackinfo_put_altstack(const struct stackinfo_target *t,
				   const struct stackinfo_look *l,
				   struct stackinfo_query *q)
{
	unsigned long ss_sp = t->ss_sp;
	size_t ss_size = t->ss_size;
	unsigned int ss_flags = t->ss_flags;
	bool on = t->have_sp && stackinfo_on_altstack(t->sp, ss_sp, ss_size);

	q->ss_sp = ss_sp;
	q->ss_size = ss_size;
	if (!ss_size)
		q->ss_flags = SS_DISABLE;
	else if (on && !(ss_flags & SS_AUTODISARM))
		q->ss_flags = SS_ONSTACK;
	q->ss_flags |= ss_flags & SS_FLAG_BITS;
	q->valid |= STACKINFO_VALID_ALTSTACK;
	if (!t->have_sp)
		return;

	if (on)
		q->stack_kind = STACKINFO_STACK_ALTSTACK;
	else if (l->sp_vma.found && l->main_vma.found &&
		 l->sp_vma.start == l->main_vma.start)
		q->stack_kind = STACKINFO_STACK_MAIN;
	else if (l->sp_vma.found && l->sp_vma.has_guard)
		q->stack_kind = STACKINFO_STACK_THREAD;
	else
		q->stack_kind = STACKINFO_STACK_UNKNOWN;
	q->valid |= STACKINFO_VALID_STACK_KIND;
}

static bool stackinfo_accessible(unsigned long vm_flags)
{
	return vm_flags & (VM_READ | VM_WRITE | VM_EXEC);
}

static bool stackinfo_in_vma(const struct stackinfo_vma *v, unsigned long addr)
{
	return v->found && addr >= v->start && addr < v->end;
}

/*
 * An address in no VMA, below @at, a VM_GROWSDOWN VMA: what a fault there
 * does, as lock_mm_and_find_vma() hands it to expand_downwards() and that
 * to acct_stack_growth() on 6.1, 6.12 and 7.2 alike: page-aligned; refused
 * within stack_guard_gap above a mapping below that neither grows down nor
 * is PROT_NONE (vma_is_accessible()); refused when the stack would grow
 * beyond its vm_pgoff or RLIMIT_STACK (rlimit() of the faulting thread,
 * its process's); refused below mmap_min_addr. Not judged: RLIMIT_AS
 * (may_expand_vm()), mlock limits and overcommit. 0 when it cannot say:
 * the guard gap or the rlimit unknown, or an address below the default
 * mmap_min_addr with no VMA under it (the sysctl is not exported).
 */
static u32 stackinfo_growth(const struct stackinfo_addr *at,
			    const struct stackinfo_query *q)
{
	unsigned long addr = q->addr & PAGE_MASK;
	unsigned long size = at->end - addr;
	unsigned long grow = (at->start - addr) >> PAGE_SHIFT;

	/*
	 * expand_downwards()' first refusal, below mmap_min_addr: a VMA
	 * below was placed above it, and without one the sysctl (which
	 * modules cannot read) may be anything up to its default.
	 */
	if (!at->has_prev && addr < CONFIG_DEFAULT_MMAP_MIN_ADDR)
		return 0;
	if (at->has_prev && !(at->prev_flags & VM_GROWSDOWN) &&
	    stackinfo_accessible(at->prev_flags)) {
		if (!(q->valid & STACKINFO_VALID_GUARD_GAP))
			return 0;
		if (addr - at->prev_end < q->guard_gap)
			return STACKINFO_ADDR_GUARD_GAP;
	}
	if (grow > at->pgoff)
		return STACKINFO_ADDR_BEYOND_LIMIT;
	if (!(q->valid & STACKINFO_VALID_RLIMIT))
		return 0;
	if (q->rlim_stack_cur != STACKINFO_RLIM_INFINITY &&
	    size > q->rlim_stack_cur)
		return STACKINFO_ADDR_BEYOND_LIMIT;
	return STACKINFO_ADDR_GROWTH;
}

/*
 * Where q->addr is (STACKINFO_ADDR_*), from the look @l made of it and
 * the fields of @q answered already: the stack VMAs of @l, the
 * sigaltstack, the rlimit and the guard gap, as far as @q has them.
 */
VISIBLE_IF_KUNIT void stackinfo_classify(const struct stackinfo_look *l,
					 struct stackinfo_query *q)
{
	const struct stackinfo_addr *at = &l->at;
	unsigned long addr = q->addr;
	bool holds = at->found && addr >= at->start;
	/* the SP on the sigaltstack: its VMA (heap, mmap) is no stack */
	bool on_alt = (q->valid & STACKINFO_VALID_STACK_KIND) &&
		      q->stack_kind == STACKINFO_STACK_ALTSTACK;
	bool grows;
	u32 class;

	if ((q->valid & STACKINFO_VALID_ALTSTACK) && q->ss_size &&
	    addr >= q->ss_sp && addr - q->ss_sp < q->ss_size)
		class = STACKINFO_ADDR_ALTSTACK;
	else if (holds && (stackinfo_in_vma(&l->main_vma, addr) ||
			   (stackinfo_in_vma(&l->sp_vma, addr) && !on_alt)))
		class = STACKINFO_ADDR_STACK;
	else if (holds && !stackinfo_accessible(at->vm_flags) && at->has_next &&
		 at->next_start == at->end &&
		 stackinfo_accessible(at->next_flags))
		class = STACKINFO_ADDR_GUARD;
	else if (holds)
		class = STACKINFO_ADDR_MAPPED;
	else if (at->found && (at->vm_flags & VM_GROWSDOWN))
		class = stackinfo_growth(at, q);
	else
		class = STACKINFO_ADDR_UNMAPPED;
	grows = !holds && at->found && (at->vm_flags & VM_GROWSDOWN);
	if (!class)
		return;
	q->addr_class = class;
	q->valid |= STACKINFO_VALID_ADDR;
	if (holds || grows) {
		q->addr_vma_start = at->start;
		q->addr_vma_end = at->end;
		q->addr_vma_flags = stackinfo_vma_flags(at->vm_flags);
		q->valid |= STACKINFO_VALID_ADDR_VMA;
	}
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_classify);

/*
 * @task's tid and tgid in @ns, as task_pid_nr_ns() and task_tgid_nr_ns()
 * read them (0 for a number it no longer has there: reaped), both under
 * one RCU read section. @task's reference pins it and its signal_struct,
 * where the tgid's struct pid hangs; RCU keeps a struct pid that is
 * being detached readable.
 */
static void stackinfo_task_nrs(struct task_struct *task,
			       struct pid_namespace *ns, pid_t *tid,
			       pid_t *tgid)
{
	rcu_read_lock();
	*tid = pid_nr_ns(READ_ONCE(task->thread_pid), ns);
	*tgid = pid_nr_ns(READ_ONCE(task->signal->pids[PIDTYPE_TGID]), ns);
	rcu_read_unlock();
}

/*
 * Answer @q, whose in fields the caller has checked, about @task
 * (referenced by the caller, or current) for @c. The out fields are
 * cleared first, whatever the outcome.
 */
int stackinfo_query_task(const struct stackinfo_caller *c,
			 struct task_struct *task, struct stackinfo_query *q)
{
	const struct stackinfo_query in = {
		.size = q->size,
		.query_flags = q->query_flags,
		.tid = q->tid,
		.reserved = q->reserved,
		.proof_fd = q->proof_fd,
		.reserved1 = q->reserved1,
		.addr = q->addr,
		.reserved2 = q->reserved2,
	};
	/*
	 * Neither is cleared on entry where the kernel clears the stack's
	 * variables (INIT_STACK_ALL_ZERO, Debian's): look's in fields are
	 * set below and stackinfo_look_walk() writes every other before any
	 * is read; stackinfo_target_get() clears t itself.
	 */
	struct stackinfo_look look __uninitialized;
	struct stackinfo_target t __uninitialized;
	struct rlimit rlim;
	pid_t tid, tgid;
	bool want_sp;
	int err;

	*q = in;
	look.addr = q->addr;
	look.want_addr = q->query_flags & STACKINFO_QUERY_ADDR;
	want_sp = !(in.query_flags & STACKINFO_QUERY_NO_SP);
	err = stackinfo_target_get(c, task, want_sp, &t);
	if (err)
		return err;
	/* numbers in the mount's namespace; 0 once the thread is reaped */
	stackinfo_task_nrs(task, c->ns, &tid, &tgid);
	if (!t.self && (!tid || !tgid)) {
		err = -ESRCH;
		goto out;
	}

	/*
	 * This may sleep on mmap_lock. Afterwards t.mm is pinned by the
	 * reference target_get took (mmget), @task and task->signal by the
	 * caller's reference on @task; nothing else read through @task is
	 * trusted without its own check (the rlimit's pid_alive()).
	 */
	err = stackinfo_look(t.mm, t.sp, t.have_sp, &look, NULL);
	if (err)
		goto out;
	q->map_count = look.map_count;
	q->start_stack = look.start_stack;

	q->out_tid = tid;
	q->tgid = tgid;
	if (thread_group_leader(task))
		q->thread_flags |= STACKINFO_THREAD_MAIN;
	if (task == current)
		q->thread_flags |= STACKINFO_THREAD_SELF;
	if (task->flags & (PF_IO_WORKER | PF_USER_WORKER))
		q->thread_flags |= STACKINFO_THREAD_WORKER;
	q->valid |= STACKINFO_VALID_THREAD | STACKINFO_VALID_START_STACK;

	q->valid |= stackinfo_put_vma(&look.main_vma, &q->main_vma_start,
				      &q->main_vma_end, &q->main_vma_flags,
				      &q->main_prev_end,
				      STACKINFO_VALID_MAIN_VMA,
				      STACKINFO_VALID_MAIN_PREV);
	if (t.have_sp) {
		q->sp = t.sp;
		q->valid |= STACKINFO_VALID_SP;
		q->valid |= stackinfo_put_vma(&look.sp_vma, &q->sp_vma_start,
					      &q->sp_vma_end, &q->sp_vma_flags,
					      &q->sp_prev_end,
					      STACKINFO_VALID_SP_VMA,
					      STACKINFO_VALID_SP_PREV);
		if (look.sp_vma.has_guard) {
			q->sp_guard_start = look.sp_vma.guard_start;
			q->sp_guard_end = look.sp_vma.guard_end;
			q->valid |= STACKINFO_VALID_SP_GUARD;
		}
	}
	if (t.sp_granted)
		stackinfo_put_altstack(&t, &look, q);

	/* released while we looked: the thread is gone, say so */
	err = stackinfo_rlimit_stack(task, &rlim);
	if (err) {
		*q = in;
		goto out;
	}
	q->rlim_stack_cur = stackinfo_rlim(rlim.rlim_cur);
	q->rlim_stack_max = stackinfo_rlim(rlim.rlim_max);
	q->valid |= STACKINFO_VALID_RLIMIT;
	if (stackinfo_guard_gap_known) {
		q->guard_gap = stackinfo_guard_gap;
		q->valid |= STACKINFO_VALID_GUARD_GAP;
	}
	if (look.want_addr)
		stackinfo_classify(&look, q);
out:
	stackinfo_target_put(&t);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_query_task);

/*
 * Answer @q about thread q->tid of @c's pid namespace; 0 names the file's
 * thread, or the caller.
 */
int stackinfo_query(const struct stackinfo_caller *c, struct stackinfo_query *q)
{
	struct task_struct *task;
	int err;

	if (!q->tid)
		return stackinfo_query_task(c, c->file_task ?: current, q);
	task = stackinfo_get_task(c, q->tid);
	if (IS_ERR(task))
		return PTR_ERR(task);
	err = stackinfo_query_task(c, task, q);
	put_task_struct(task);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_query);

/*
 * The first thread of @task's process that still has an mm, referenced,
 * with that mm (mmget: its address names no other mm while we hold it),
 * under exec_update_lock (held by the caller).
 */
static struct task_struct *stackinfo_thread_with_mm(struct task_struct *task,
						    struct mm_struct **mmp)
{
	struct task_struct *t, *found = NULL;

	*mmp = NULL;
	rcu_read_lock();
	for_each_thread(task, t) {
		task_lock(t);
		if (!(t->flags & PF_KTHREAD) && t->mm) {
			*mmp = t->mm;
			mmget(*mmp);
			found = get_task_struct(t);
		}
		task_unlock(t);
		if (found)
			break;
	}
	rcu_read_unlock();
	return found;
}

/*
 * For the policy's stackinfo_process_grant(): the first thread of @task's
 * process that still has an mm, referenced, into *@with_mm (NULL if none)
 * and its mm into *@mmp, with what stackinfo_grant() gives @c about them
 * into *@grant, all under @task's exec_update_lock (pinned by the
 * caller's reference on @task, as task->signal is).
 * stackinfo_process_look_put() drops the references.
 */
int stackinfo_process_look(const struct stackinfo_caller *c,
			   struct task_struct *task,
			   struct task_struct **with_mm, struct mm_struct **mmp,
			   enum stackinfo_grant *grant)
{
	struct rw_semaphore *exec_lock = &task->signal->exec_update_lock;
	int err = down_read_killable(exec_lock);

	if (err)
		return err;
	*with_mm = stackinfo_thread_with_mm(task, mmp);
	*grant = stackinfo_grant(c, task, *mmp);
	up_read(exec_lock);
	return 0;
}

void stackinfo_process_look_put(struct task_struct *with_mm,
				struct mm_struct *mm)
{
	if (mm)
		mmput(mm);
	if (with_mm)
		put_task_struct(with_mm);
}

/*
 * Does @task's process run @image still? Every thread of one image shares
 * its mm, and exec_mmap() gives the exec'ing thread another only once
 * de_thread() has ended the others, under exec_update_lock held for
 * writing: under that lock held for reading (by the caller), the first
 * thread that has an mm has the image's mm, or another image runs. @image
 * is kept by the caller (mmgrab()), so no other mm has its address; the
 * pointer read under task_lock() is only compared.
 */
static bool stackinfo_runs_image(struct task_struct *task,
				 struct mm_struct *image)
{
	struct mm_struct *mm = NULL;
	struct task_struct *t;

	rcu_read_lock();
	for_each_thread(task, t) {
		task_lock(t);
		if (!(t->flags & PF_KTHREAD))
			mm = t->mm;
		task_unlock(t);
		if (mm)
			break;
	}
	rcu_read_unlock();
	return mm == image;
}

/*
 * References to the threads of @task's process that have a number in @c's
 * pid namespace, at most @cap of them into @tasks: a thread whose pid is
 * already detached (exiting) has none, and would read as tid 0, the
 * caller. *@nr is how many there are; -ERANGE when that is more than @cap
 * (then nothing is referenced). With c->image (a batch of another
 * process), counted under @task's exec_update_lock (pinned by the caller's
 * reference, as task->signal is) and only while the process runs that
 * image: else -ESTALE, and nothing is counted, for the count of another
 * image is that image's check's to grant.
 */
int stackinfo_threads_get(const struct stackinfo_caller *c,
			  struct task_struct *task, struct task_struct **tasks,
			  u32 cap, u32 *nr)
{
	struct rw_semaphore *exec_lock = &task->signal->exec_update_lock;
	struct task_struct *t;
	u32 n = 0;
	int err;

	*nr = 0;
	if (c->image) {
		err = down_read_killable(exec_lock);
		if (err)
			return err;
		if (!stackinfo_runs_image(task, c->image)) {
			up_read(exec_lock);
			return -ESTALE;
		}
	}
	rcu_read_lock();
	for_each_thread(task, t) {
		if (!task_pid_nr_ns(t, c->ns))
			continue;
		if (n < cap)
			tasks[n] = get_task_struct(t);
		n++;
	}
	rcu_read_unlock();
	if (c->image)
		up_read(exec_lock);
	*nr = n;
	if (n > cap) {
		stackinfo_threads_put(tasks, cap);
		return -ERANGE;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_threads_get);

void stackinfo_threads_put(struct task_struct **tasks, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		put_task_struct(tasks[i]);
}
EXPORT_SYMBOL_IF_KUNIT(stackinfo_threads_put);
