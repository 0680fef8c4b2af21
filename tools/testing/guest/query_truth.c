// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ioctl and /proc/stackinfo against the truth: /proc/self/maps,
 * /proc/self/stat, getrlimit() and each thread's own stack pointer; for
 * the main thread and a second pthread, each asking about itself and about
 * the other; in a plain process and again with 3000 extra mappings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testutil.h"

#define SP_SLACK	(64 * 1024)	/* SP at the ioctl vs a local's address */
#define EXTRA_MAPS	3000

static int fd;
static struct maps maps;

static const uint64_t want_self =
	STACKINFO_VALID_THREAD | STACKINFO_VALID_START_STACK |
	STACKINFO_VALID_MAIN_VMA | STACKINFO_VALID_MAIN_PREV |
	STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA | STACKINFO_VALID_SP_PREV |
	STACKINFO_VALID_RLIMIT | STACKINFO_VALID_GUARD_GAP;

static uint64_t rlim_u64(rlim_t v)
{
	return v == RLIM_INFINITY ? STACKINFO_RLIM_INFINITY : v;
}

/* The VMA fields of @q against the maps entry holding @addr. */
static void check_vma(const char *what, uint64_t addr, uint64_t start,
		      uint64_t end, uint64_t flags, uint64_t prev_end)
{
	const struct maps_entry *e, *prev;
	char perms[5];

	e = maps_find(&maps, addr, &prev);
	CHECK(e, "%s: no maps entry holds %#llx", what, (unsigned long long)addr);
	if (!e)
		return;
	CHECK_EQ(start, e->start);
	CHECK_EQ(end, e->end);
	vma_flags_perms(flags, perms);
	CHECK(!strcmp(perms, e->perms), "%s: perms %s, maps says %s", what,
	      perms, e->perms);
	CHECK(prev, "%s: nothing below", what);
	if (prev)
		CHECK_EQ(prev_end, prev->end);
}

/* A query the calling thread made about itself, against the truth. */
static void check_self(const char *what, const struct stackinfo_query *q,
		       uint64_t local, int is_main)
{
	const struct maps_entry *e, *prev;
	struct rlimit rl;
	int guard;

	CHECK((q->valid & want_self) == want_self, "%s: valid %#llx", what,
	      (unsigned long long)q->valid);
	CHECK_EQ(q->out_tid, t_gettid());
	CHECK_EQ(q->tgid, getpid());
	CHECK_EQ(!!(q->thread_flags & STACKINFO_THREAD_MAIN), is_main);
	CHECK(q->thread_flags & STACKINFO_THREAD_SELF, "%s: not SELF", what);
	CHECK_EQ(q->map_count, maps_vma_count(&maps));

	CHECK_EQ(q->start_stack, t_stat_start_stack());
	check_vma(what, q->start_stack, q->main_vma_start, q->main_vma_end,
		  q->main_vma_flags, q->main_prev_end);
	e = maps_find(&maps, q->start_stack, NULL);
	CHECK(e && !strcmp(e->name, "[stack]"), "%s: start_stack not in [stack]", what);
	CHECK(q->main_vma_flags & STACKINFO_VMA_GROWSDOWN, "%s: main VMA not GROWSDOWN", what);

	CHECK(q->sp <= local && local - q->sp < SP_SLACK,
	      "%s: sp %#llx, a local at %#llx", what,
	      (unsigned long long)q->sp, (unsigned long long)local);
	check_vma(what, local, q->sp_vma_start, q->sp_vma_end, q->sp_vma_flags,
		  q->sp_prev_end);
	e = maps_find(&maps, local, &prev);
	guard = e && prev && prev->end == e->start &&
		!strncmp(prev->perms, "---", 3);
	CHECK_EQ(!!(q->valid & STACKINFO_VALID_SP_GUARD), guard);
	if (guard) {
		CHECK_EQ(q->sp_guard_start, prev->start);
		CHECK_EQ(q->sp_guard_end, prev->end);
	}
	/* glibc puts a guard page below every stack it allocates */
	CHECK_EQ(guard, !is_main);

	CHECK(!getrlimit(RLIMIT_STACK, &rl), "getrlimit: %s", strerror(errno));
	CHECK_EQ(q->rlim_stack_cur, rlim_u64(rl.rlim_cur));
	CHECK_EQ(q->rlim_stack_max, rlim_u64(rl.rlim_max));
	CHECK_EQ(q->guard_gap, cmdline_guard_gap());
}

/* /proc/stackinfo read by the same thread right after the ioctl. */
static void check_text(const char *what, const struct stackinfo_query *q)
{
	struct stackinfo_query t;
	int err = si_text_read(fd, &t);

	CHECK(!err, "%s: /proc/stackinfo: %s", what, strerror(-err));
	if (err)
		return;
	CHECK_EQ(t.valid, q->valid & ~(uint64_t)T_VALID_NOT_TEXT);
	CHECK_EQ(t.out_tid, q->out_tid);
	CHECK_EQ(t.tgid, q->tgid);
	CHECK_EQ(t.thread_flags & STACKINFO_THREAD_MAIN,
		 q->thread_flags & STACKINFO_THREAD_MAIN);
	CHECK_EQ(t.map_count, q->map_count);
	CHECK_EQ(t.start_stack, q->start_stack);
	CHECK_EQ(t.main_vma_start, q->main_vma_start);
	CHECK_EQ(t.main_vma_end, q->main_vma_end);
	/* the text shows maps' perms, not GROWSDOWN */
	CHECK_EQ(t.main_vma_flags, q->main_vma_flags & ~STACKINFO_VMA_GROWSDOWN);
	CHECK_EQ(t.main_prev_end, q->main_prev_end);
	/* read() and ioctl() enter the kernel from different frames */
	CHECK(t.sp >= q->sp - SP_SLACK && t.sp <= q->sp + SP_SLACK,
	      "%s: text sp %#llx, ioctl sp %#llx", what,
	      (unsigned long long)t.sp, (unsigned long long)q->sp);
	CHECK_EQ(t.sp_vma_start, q->sp_vma_start);
	CHECK_EQ(t.sp_vma_end, q->sp_vma_end);
	CHECK_EQ(t.sp_vma_flags, q->sp_vma_flags & ~STACKINFO_VMA_GROWSDOWN);
	CHECK_EQ(t.sp_prev_end, q->sp_prev_end);
	CHECK_EQ(t.sp_guard_start, q->sp_guard_start);
	CHECK_EQ(t.sp_guard_end, q->sp_guard_end);
	CHECK_EQ(t.rlim_stack_cur, q->rlim_stack_cur);
	CHECK_EQ(t.rlim_stack_max, q->rlim_stack_max);
	CHECK_EQ(t.guard_gap, q->guard_gap);
}

/* The calling thread asks about itself, with and without its SP. */
static void check_thread_self(const char *what, int is_main)
{
	struct stackinfo_query q, nosp;
	volatile char local = 0;
	int err;

	/* twice: the first read may grow the buffers, the second maps nothing */
	maps_read(&maps, 0);
	err = maps_read(&maps, 0);
	CHECK(!err, "%s: maps: %s", what, strerror(-err));
	err = si_module_query(fd, 0, 0, &q);
	CHECK(!err, "%s: ioctl: %s", what, strerror(-err));
	if (err)
		return;
	/* the text first: the checks may allocate, and so map */
	check_text(what, &q);
	check_self(what, &q, (uint64_t)(uintptr_t)&local, is_main);

	err = si_module_query(fd, 0, STACKINFO_QUERY_NO_SP, &nosp);
	CHECK(!err, "%s: NO_SP: %s", what, strerror(-err));
	CHECK_EQ(nosp.valid, q.valid & ~(STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA |
					 STACKINFO_VALID_SP_PREV | STACKINFO_VALID_SP_GUARD |
					 T_VALID_WITH_SP_VER2));
	CHECK_EQ(nosp.sp, 0);
	CHECK_EQ(nosp.sp_vma_start, 0);
	CHECK_EQ(nosp.main_vma_start, q.main_vma_start);
	CHECK_EQ(nosp.main_prev_end, q.main_prev_end);
}

struct peer {
	pthread_barrier_t ready, done;
	pid_t tid;
	uint64_t lo, hi;	/* its stack as glibc reports it */
	size_t guard;
};

static void *thread_main(void *arg)
{
	struct peer *p = arg;
	pthread_attr_t attr;
	void *addr;
	size_t size;

	check_thread_self("second thread", 0);

	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &addr, &size);
	pthread_attr_getguardsize(&attr, &p->guard);
	pthread_attr_destroy(&attr);
	p->lo = (uintptr_t)addr;
	p->hi = (uintptr_t)addr + size;
	p->tid = t_gettid();

	/* the main thread asks about us while we wait here */
	pthread_barrier_wait(&p->ready);
	pthread_barrier_wait(&p->done);

	/* and we about the main thread, blocked in pthread_join() */
	{
		struct stackinfo_query q;
		int err = si_module_query(fd, getpid(), 0, &q);

		CHECK(!err, "main from thread: %s", strerror(-err));
		if (!err) {
			CHECK_EQ(q.out_tid, getpid());
			CHECK(q.thread_flags & STACKINFO_THREAD_MAIN, "main not MAIN");
			CHECK(!(q.thread_flags & STACKINFO_THREAD_SELF), "main SELF");
			CHECK(q.valid & STACKINFO_VALID_SP_VMA, "main SP VMA");
			CHECK(q.sp >= q.main_vma_start && q.sp < q.main_vma_end,
			      "main sp %#llx outside its stack",
			      (unsigned long long)q.sp);
			CHECK_EQ(q.sp_vma_start, q.main_vma_start);
		}
	}
	return NULL;
}

/*
 * The thread's guard as the kernel shows it: the PROT_NONE mapping just
 * below its stack in /proc/self/maps. glibc's guardsize attribute is the
 * size asked for, at most that: aarch64's glibc maps at least 64 KiB
 * (ARCH_MIN_GUARD_SIZE, for stack-clash probes) below a 4 KiB request.
 */
static void check_peer_guard(const struct stackinfo_query *q, const struct peer *p)
{
	const struct maps_entry *g;
	struct maps m = { 0 };

	CHECK(!maps_read(&m, 0), "maps");
	g = maps_find(&m, q->sp_vma_start - 1, NULL);
	CHECK(g && g->end == q->sp_vma_start && !strncmp(g->perms, "---", 3),
	      "no PROT_NONE mapping below the thread's stack at %#llx",
	      (unsigned long long)q->sp_vma_start);
	if (g)
		CHECK_EQ(q->sp_guard_start, g->start);
	CHECK(q->sp_guard_end - q->sp_guard_start >= p->guard, "guard %#llx, glibc's attribute %#zx",
	      (unsigned long long)(q->sp_guard_end - q->sp_guard_start), p->guard);
	maps_free(&m);
}

static void check_round(const char *label)
{
	struct stackinfo_query q;
	struct peer p;
	pthread_t th;
	int err;

	fprintf(stderr, "round: %s\n", label);
	check_thread_self("main thread", 1);

	pthread_barrier_init(&p.ready, NULL, 2);
	pthread_barrier_init(&p.done, NULL, 2);
	if (pthread_create(&th, NULL, thread_main, &p)) {
		CHECK(0, "pthread_create");
		return;
	}
	pthread_barrier_wait(&p.ready);
	err = si_module_query(fd, p.tid, 0, &q);
	CHECK(!err, "thread from main: %s", strerror(-err));
	if (!err) {
		CHECK_EQ(q.out_tid, p.tid);
		CHECK_EQ(q.tgid, getpid());
		CHECK(!(q.thread_flags & (STACKINFO_THREAD_MAIN | STACKINFO_THREAD_SELF)),
		      "flags %#x", q.thread_flags);
		CHECK(q.sp >= p.lo && q.sp < p.hi, "thread sp %#llx outside [%#llx, %#llx)",
		      (unsigned long long)q.sp, (unsigned long long)p.lo,
		      (unsigned long long)p.hi);
		CHECK(q.sp_vma_start <= p.lo && p.hi <= q.sp_vma_end,
		      "thread VMA %#llx-%#llx, glibc stack %#llx-%#llx",
		      (unsigned long long)q.sp_vma_start,
		      (unsigned long long)q.sp_vma_end,
		      (unsigned long long)p.lo, (unsigned long long)p.hi);
		CHECK(q.valid & STACKINFO_VALID_SP_GUARD, "thread has no guard");
		CHECK_EQ(q.sp_guard_end, q.sp_vma_start);
		check_peer_guard(&q, &p);
	}
	pthread_barrier_wait(&p.done);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&p.ready);
	pthread_barrier_destroy(&p.done);
}

int main(void)
{
	void *extra;

	fd = si_open();
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", STACKINFO_PROC_PATH, strerror(-fd));
		return 1;
	}
	check_round("plain process");

	extra = map_many(EXTRA_MAPS);
	CHECK(extra, "map_many: %s", strerror(errno));
	check_round("3000 extra mappings");
	unmap_many(extra, EXTRA_MAPS);

	check_round("mappings removed again");
	maps_free(&maps);
	close(fd);
	return t_result();
}
