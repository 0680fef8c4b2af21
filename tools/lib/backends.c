// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo's backends: the module's ioctl, and two ways of getting the
 * same answer from /proc when the module is absent: PROCMAP_QUERY
 * (O(log n) per lookup, Linux 6.11+) and a parse of the maps text (O(n)).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "compat.h"
#include "internal.h"

int si_module_query(int fd, pid_t tid, uint64_t flags,
		    struct stackinfo_query *q)
{
	return si_module_query_proof(fd, tid, flags, -1, q);
}

/*
 * The raw ABI with a proof, for the project's tests of the module; the
 * library itself never sends one (see lib.c).
 */
int si_module_query_proof(int fd, pid_t tid, uint64_t flags, int proof_fd,
			  struct stackinfo_query *q)
{
	/* the one in field a caller sets: read only with the flag that names it */
	uint64_t addr = (flags & STACKINFO_QUERY_ADDR) ? q->addr : 0;

	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = flags;
	q->tid = (uint32_t)tid;
	q->addr = addr;
	if (proof_fd >= 0) {
		q->query_flags |= STACKINFO_QUERY_PROOF_FD;
		q->proof_fd = proof_fd;
	}
	return ioctl(fd, STACKINFO_IOC_QUERY, q) ? -errno : 0;
}

/* What a fallback finds for one address: its VMA, the one below, a guard. */
struct si_lookup {
	uint64_t addr;
	bool want, found, has_prev, has_guard, skip_prev;
	uint64_t start, end, flags, prev_end, guard_start, guard_end;
};

/* ---- PROCMAP_QUERY ---- */

int si_procmap_covering(int fd, uint64_t addr, bool or_next, uint64_t *start,
			uint64_t *end, uint64_t *flags)
{
	struct si_procmap_query pq = {
		.size = sizeof(pq),
		.query_flags = or_next ? SI_PROCMAP_COVERING_OR_NEXT_VMA : 0,
		.query_addr = addr,
	};

	if (ioctl(fd, SI_PROCMAP_QUERY, &pq))
		return -errno;
	*start = pq.vma_start;
	*end = pq.vma_end;
	*flags = (pq.vma_flags & SI_PROCMAP_VMA_READABLE ? STACKINFO_VMA_READ : 0) |
		 (pq.vma_flags & SI_PROCMAP_VMA_WRITABLE ? STACKINFO_VMA_WRITE : 0) |
		 (pq.vma_flags & SI_PROCMAP_VMA_EXECUTABLE ? STACKINFO_VMA_EXEC : 0) |
		 (pq.vma_flags & SI_PROCMAP_VMA_SHARED ? STACKINFO_VMA_SHARED : 0);
	return 0;
}

/*
 * The end of the highest VMA in [@lo, @below): 1 found, 0 none, or -errno.
 * PROCMAP_QUERY only looks upward, so: one call for the adjacent case, else
 * a binary search for the last VMA starting below @below, O(log of the
 * range) calls.
 */
static int procmap_prev_end(int fd, uint64_t lo, uint64_t below, uint64_t *prev_end,
			    uint64_t *prev_start, uint64_t *prev_flags)
{
	uint64_t hi = below, s = 0, e = 0, f = 0;
	int found = 0, err;

	if (below && !si_procmap_covering(fd, below - 1, false, &s, &e, &f)) {
		*prev_start = s;
		*prev_end = e;
		*prev_flags = f;
		return 1;
	}
	/*
	 * Where [@lo, @below) holds no VMA, one call says so; the search
	 * that follows would find none, but in some 50 calls
	 */
	if (lo) {
		err = si_procmap_covering(fd, lo, true, &s, &e, &f);
		if (err == -ENOENT || (!err && s >= below))
			return 0;
		if (err)
			return err;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		err = si_procmap_covering(fd, mid, true, &s, &e, &f);
		if (err == -ENOENT || (!err && s >= below)) {
			hi = mid;	/* nothing in [mid, below) */
			continue;
		}
		if (err)
			return err;
		found = 1;
		*prev_start = s;
		*prev_end = e;
		*prev_flags = f;
		lo = e;
	}
	return found;
}

int si_procmap_prev_end(int fd, uint64_t below, uint64_t *prev_end)
{
	uint64_t s, f;

	return procmap_prev_end(fd, 0, below, prev_end, &s, &f);
}

/*
 * @l's VMA and, unless @l->skip_prev, the one below it; with @reach (0:
 * none), only one that ends within @reach below the VMA's end.
 */
static int procmap_lookup(int fd, struct si_lookup *l, uint64_t reach)
{
	uint64_t ps = 0, pe = 0, pf = 0, floor = 0;
	int err;

	err = si_procmap_covering(fd, l->addr, false, &l->start, &l->end,
				  &l->flags);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	l->found = true;
	if (l->skip_prev)
		return 0;
	if (reach && reach < l->end) {
		floor = l->end - reach;
		if (floor >= l->start)
			return 0;	/* none can be in reach */
	}
	err = procmap_prev_end(fd, floor, l->start, &pe, &ps, &pf);
	if (err < 0)
		return err;
	if (err) {
		l->has_prev = true;
		l->prev_end = pe;
		if (pe == l->start && !pf) {
			l->has_guard = true;
			l->guard_start = ps;
			l->guard_end = pe;
		}
	}
	return 0;
}

/* ---- /proc/<pid>/maps text ---- */

struct maps_ctx {
	struct si_lookup *l[2];
	uint32_t count;
	bool have_last;
	struct si_maps_line last;
};

static void maps_match(struct si_lookup *l, const struct si_maps_line *line,
		       const struct maps_ctx *c)
{
	if (!l->want || l->found || line->start > l->addr || l->addr >= line->end)
		return;
	l->found = true;
	l->start = line->start;
	l->end = line->end;
	l->flags = si_perms_flags(line->perms);
	if (!c->have_last)
		return;
	l->has_prev = true;
	l->prev_end = c->last.end;
	if (c->last.end == line->start && !si_perms_flags(c->last.perms)) {
		l->has_guard = true;
		l->guard_start = c->last.start;
		l->guard_end = c->last.end;
	}
}

static int maps_line(const struct si_maps_line *line, void *ctx)
{
	struct maps_ctx *c = ctx;

	if (!si_maps_is_gate(line))
		c->count++;
	maps_match(c->l[0], line, c);
	maps_match(c->l[1], line, c);
	c->last = *line;
	c->have_last = true;
	return 0;
}

/* ---- both fallbacks ---- */

/* One lookup's out fields; the valid bits they earn. */
static uint64_t put_lookup(const struct si_lookup *l, __u64 *start, __u64 *end,
			   __u64 *flags, __u64 *prev_end, uint64_t vma_bit,
			   uint64_t prev_bit)
{
	if (!l->found)
		return 0;
	*start = l->start;
	*end = l->end;
	*flags = l->flags;
	*prev_end = l->prev_end;
	return vma_bit | (l->has_prev ? prev_bit : 0);
}

static uint64_t rlim_u64(rlim_t v)
{
	return v == RLIM_INFINITY ? STACKINFO_RLIM_INFINITY : v;
}

/* Who @tid is, in the numbers of the /proc mount. */
struct si_target {
	int dir;		/* /proc/<tid>, or -1 for the caller itself */
	pid_t tid, tgid;	/* 0 when not asked (SI_QUERY_NO_IDS) */
	bool self, own;		/* the calling thread; the calling process */
};

static int find_target(pid_t tid, uint64_t flags, struct si_target *t)
{
	pid_t me = 0, my_tgid = 0;
	int err;

	t->dir = -1;
	t->tid = t->tgid = 0;
	t->self = t->own = !tid;
	if (!tid) {
		if (flags & SI_QUERY_NO_IDS)
			return 0;
		return si_proc_self_ids(&t->tid, &t->tgid);
	}
	if (tid < 0)
		return -ESRCH;
	t->dir = si_proc_open_tid(tid);
	if (t->dir < 0)
		return t->dir;
	err = si_proc_ids(t->dir, &t->tid, &t->tgid);
	if (err)
		return err;
	/* a caller the mount does not show is no thread of it */
	if (!si_proc_self_ids(&me, &my_tgid)) {
		t->own = t->tgid == my_tgid;
		t->self = t->own && t->tid == me;
	}
	return 0;
}

static int fallback_query(int backend, pid_t tid, uint64_t flags, int maps_fd,
			  struct si_target *t, struct stackinfo_query *q)
{
	struct si_lookup main_l = { .want = true }, sp_l = { 0 };
	bool want_sp = !(flags & STACKINFO_QUERY_NO_SP);
	uint64_t sp = 0, cur, max;
	struct rlimit rl;
	pid_t tid2, tgid2;
	int fd, err;

	uint64_t addr = (flags & STACKINFO_QUERY_ADDR) ? q->addr : 0;

	memset(q, 0, sizeof(*q));
	q->addr = addr;	/* asked about, not answered: no STACKINFO_VALID_ADDR */
	q->size = sizeof(*q);
	q->query_flags = flags & ~SI_QUERY_INTERNAL;
	q->tid = (uint32_t)tid;
	err = find_target(tid, flags, t);
	if (err)
		return err;
	/* the process's own files for the caller's threads: no /proc/<tid> */
	err = t->own ? si_self_start_stack(&main_l.addr) :
		       si_proc_start_stack(t->dir, &main_l.addr);
	if (err)
		return err;
	main_l.skip_prev = flags & SI_QUERY_NO_MAIN_PREV;

	if (want_sp && t->self) {
		sp = (uintptr_t)__builtin_frame_address(0);
		sp_l.want = true;
	} else if (want_sp && !si_proc_syscall_sp(t->dir, &sp)) {
		sp_l.want = true;
	}
	sp_l.addr = sp;

	/* a kept maps is this process's: for its own threads only */
	if (!t->own)
		maps_fd = -1;
	fd = maps_fd >= 0 ? maps_fd : t->own ? si_open_maps(0) : si_open_maps_at(t->dir);
	if (fd < 0)
		return fd;
	/* the text of a kept maps is read again from its start */
	if (fd == maps_fd && backend == STACKINFO_BACKEND_MAPS && lseek(fd, 0, SEEK_SET))
		return -errno;

	if (t->own && !prlimit(0, RLIMIT_STACK, NULL, &rl)) {
		q->rlim_stack_cur = rlim_u64(rl.rlim_cur);
		q->rlim_stack_max = rlim_u64(rl.rlim_max);
		q->valid |= STACKINFO_VALID_RLIMIT;
	} else if (!t->own && !si_proc_stack_limit(t->dir, &cur, &max)) {
		q->rlim_stack_cur = cur;
		q->rlim_stack_max = max;
		q->valid |= STACKINFO_VALID_RLIMIT;
	}
	if (backend == STACKINFO_BACKEND_PROCMAP_QUERY) {
		/*
		 * The VMA below the main stack where it ends within
		 * RLIMIT_STACK of the top, the only place it limits the stack
		 * (glibc's answer, the kernel's growth): one call finds that
		 * none does, and no search is made (libstackinfo(3))
		 */
		err = procmap_lookup(fd, &main_l,
				     (q->valid & STACKINFO_VALID_RLIMIT) &&
				     q->rlim_stack_cur != STACKINFO_RLIM_INFINITY ?
				     q->rlim_stack_cur : 0);
		/* the SP on the main stack: the lookup just made */
		if (!err && sp_l.want && main_l.found && sp >= main_l.start && sp < main_l.end) {
			sp_l.found = true;
			sp_l.start = main_l.start;
			sp_l.end = main_l.end;
			sp_l.flags = main_l.flags;
			sp_l.has_prev = main_l.has_prev;
			sp_l.prev_end = main_l.prev_end;
			sp_l.has_guard = main_l.has_guard;
			sp_l.guard_start = main_l.guard_start;
			sp_l.guard_end = main_l.guard_end;
		} else if (!err && sp_l.want) {
			err = procmap_lookup(fd, &sp_l, 0);
		}
	} else {
		struct maps_ctx c = { .l = { &main_l, &sp_l } };

		err = si_maps_scan(fd, maps_line, &c);
		q->map_count = c.count;
	}
	if (fd != maps_fd)
		close(fd);
	if (err)
		return err;

	/* still the thread we started with, alive through every read */
	if (t->dir >= 0 && (si_proc_ids(t->dir, &tid2, &tgid2) || tgid2 != t->tgid))
		return -ESRCH;

	q->out_tid = t->tid;
	q->tgid = t->tgid;
	q->thread_flags = (t->tid == t->tgid ? STACKINFO_THREAD_MAIN : 0) |
			  (t->self ? STACKINFO_THREAD_SELF : 0);
	q->start_stack = main_l.addr;
	q->valid |= STACKINFO_VALID_THREAD | STACKINFO_VALID_START_STACK;
	q->valid |= put_lookup(&main_l, &q->main_vma_start, &q->main_vma_end,
			       &q->main_vma_flags, &q->main_prev_end,
			       STACKINFO_VALID_MAIN_VMA, STACKINFO_VALID_MAIN_PREV);
	if (sp_l.want) {
		q->sp = sp;
		q->valid |= STACKINFO_VALID_SP;
		q->valid |= put_lookup(&sp_l, &q->sp_vma_start, &q->sp_vma_end,
				       &q->sp_vma_flags, &q->sp_prev_end,
				       STACKINFO_VALID_SP_VMA, STACKINFO_VALID_SP_PREV);
		if (sp_l.has_guard) {
			q->sp_guard_start = sp_l.guard_start;
			q->sp_guard_end = sp_l.guard_end;
			q->valid |= STACKINFO_VALID_SP_GUARD;
		}
	}
	return 0;
}

int si_fallback_query(int backend, pid_t tid, uint64_t flags,
		      struct stackinfo_query *q)
{
	return si_fallback_query_fd(backend, tid, flags, -1, q);
}

int si_fallback_query_fd(int backend, pid_t tid, uint64_t flags, int maps_fd,
			 struct stackinfo_query *q)
{
	struct si_target t;
	int err = fallback_query(backend, tid, flags, maps_fd, &t, q);

	if (t.dir >= 0)
		close(t.dir);
	return err;
}
