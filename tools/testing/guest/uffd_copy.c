// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every copy to user space of the module's /proc/stackinfo, and of the
 * in-tree /proc/<pid>/stackinfo where the kernel has it, held in the copy
 * for as long as the test wants. The destination is a page of a
 * userfaultfd region that is missing, so the kernel's copy faults and
 * sleeps in handle_userfault() until the test supplies the page
 * (UFFDIO_COPY or UFFDIO_ZEROPAGE); a struct the call reads before it
 * writes is held by a write-protected page instead (UFFDIO_WRITEPROTECT
 * lifts it), or by a page dropped between the call's read and its write.
 * The copies:
 *   read      read() of the text, into a missing page
 *   query     STACKINFO_IOC_QUERY of the first published size, whose in
 *             fields end where a page ends: the call reads those alone, its
 *             answer's copy then meets the missing page after them
 *   query-wp  STACKINFO_IOC_QUERY of today's size, on a write-protected page
 *   entries   STACKINFO_IOC_QUERY_THREADS, the array on a missing page
 *   count     the batch's count: the struct's page is dropped while the
 *             entries' copy waits, so the count's put_user() meets a
 *             missing page too
 *   erange    the count of an -ERANGE batch (that call's one copy out), on
 *             a write-protected page
 * asked about a sleeping thread of this process or of C, a child of
 * sleeping threads (a batch: all of either process; a read: the reader,
 * or the file's thread). While a copy waits:
 *
 *  1. Nothing is copied under mmap_lock: a thread of this process and one
 *     of C mmap, write, mprotect and munmap CHURN_CYCLES times each, all
 *     done while the copy still waits. Each of those takes mmap_lock for
 *     writing; had the call kept the lock (of its own process or of C's)
 *     across its copy, they would wait for the page. Then the page is
 *     supplied and the answer must equal what the same call answered into
 *     an ordinary buffer just before (and /proc/<pid>/maps' [stack]).
 *  2. rmmod. The module's proc_ops have no owner: an open file holds no
 *     module reference, and delete_module() goes on to the module's exit.
 *     There proc_remove() unlinks the entry (an open finds nothing) and
 *     proc_entry_rundown() (fs/proc/inode.c; the same in 5.10, 6.1 and
 *     6.12) adds BIAS to its in_use count and waits, uninterruptibly
 *     (wait_for_completion()), until the last call that came in through
 *     use_pde() has left; a call on any open fd of it now fails at once
 *     (use_pde() fails: proc_reg_unlocked_ioctl() -ENOTTY,
 *     proc_reg_read_iter() -EIO), and a second delete_module() finds the
 *     module no longer live (-EBUSY). So the unload, from another
 *     process, must be seen waiting (its task in D, initstate "going")
 *     for as long as the copy waits, and return 0 once the page comes;
 *     the held call must answer in full; its fd then gets ENOTTY and EIO;
 *     the module loads again and answers.
 *  3. SIGKILL to a process (forked for each copy) whose call waits in the
 *     copy: the wait is killable, the copy fails, the call unwinds and the
 *     process must be gone within DEATH_MAX. After all of them the module
 *     must unload (nothing left using its entry) and load again; on the
 *     debug kernels run-tests' kmemleak scans then look for what the
 *     unwinding left.
 *
 * Every case must be seen held (the fault on its page, the call not yet
 * back) before it counts, each part fails below its number of cases, and
 * every wait is bounded. A call that does not come back once its page is
 * there (a copy under mmap_lock deadlocks so with the writers queued
 * behind it) ends the test at once: its exit kills what is stuck. The
 * test runs as root: the userfaultfd handles
 * the kernel's own faults (no UFFD_USER_MODE_ONLY), which CAP_SYS_PTRACE
 * allows on 5.10, 6.1 and 6.12 whatever vm.unprivileged_userfaultfd says
 * (fs/userfaultfd.c; 5.10 has no UFFD_USER_MODE_ONLY, and a uffd with it
 * would fail a kernel fault at once, VM_FAULT_SIGBUS, on 6.1 and 6.12).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <linux/userfaultfd.h>

#include "testutil.h"

#define C_SLEEPERS	3	/* C: its main thread, these, and its churner */
#define OWN_THREADS	4	/* main, caller, churner, sleeper */
#define MAX_ENTRIES	16	/* a batch's array, within one page */
#define CHURN_CYCLES	8	/* mmap, write, mprotect, munmap: per churner and hold */
/*
 * A writer stuck behind a held copy would wait until the page came, which
 * only happens after CHURN_WAIT: the bound on one call is slack for a
 * loaded host (382 ms seen on debug-6.12 beside a make check).
 */
#define CHURN_OP_MAX	10.0	/* s: one of those calls */
#define CHURN_WAIT	30.0	/* s: all of them, while the copy waits */
#define FAULT_WAIT	20.0	/* s: until a call's copy faults on its page */
#define CALL_WAIT	20.0	/* s: until a call returns once its page came */
#define HELD_FOR	1.0	/* s: the unload seen waiting behind the copy */
#define RMMOD_WAIT	20.0	/* s: until the unload returns */
#define DEATH_MAX	10.0	/* s: SIGKILL to gone */
#define COUNT_SENTINEL	0xdeadbeefU

static size_t page;

enum copy { CP_READ, CP_QUERY, CP_QUERY_WP, CP_ENTRIES, CP_COUNT, CP_ERANGE, NCOPIES };
static const char *const copy_names[NCOPIES] = {
	"read", "query", "query-wp", "entries", "count", "erange",
};

/*
 * One process's userfaultfd: two ordinary pages, two missing-mode pages
 * after them, a write-protect page, and a page to copy from.
 */
struct uf {
	int fd;
	char *base;
	char *wp;
	char *src;
};
#define PLAIN(u, i)	((u)->base + (i) * page)
#define MISS(u, i)	((u)->base + (2 + (i)) * page)

/* One mmap_lock writer: a thread of this process, or C's. */
struct churn {
	atomic_uint go, done;	/* rounds asked for, rounds done */
	atomic_uint ops;	/* calls made */
	atomic_uint max_us;	/* the longest, this round */
};

static struct churn *own_churn, *c_churn;	/* shared with C */

/* What a call answered. */
struct result {
	long ret;
	int err;
	int parse;		/* read: si_text_parse() */
	uint32_t count;		/* batch */
	struct stackinfo_query ans[MAX_ENTRIES];
};

/* One call: its copy, its file, whom it asks about, and its answers. */
struct job {
	enum copy cp;
	bool intree;
	int fd;
	pid_t tid;		/* query: the thread asked about */
	pid_t pid;		/* batch: the process (0: the caller's or the file's) */
	pid_t tgid;		/* whose answer it is */
	int nthreads;		/* of that process */
	unsigned int how;	/* t_query_same() */
	struct result ref;	/* into ordinary memory, just before */
	struct result held;	/* the held call */
};

/* Where a call writes. */
struct dest {
	char *text;
	struct stackinfo_query *q;
	struct stackinfo_threads *a;
	struct stackinfo_query *arr;
};

/* The thread that makes the calls while the test holds their copies. */
struct caller {
	pthread_t th;
	sem_t go;
	atomic_int done;
	struct job *j;
	struct dest plain, held;
	char text[4096];
	struct stackinfo_query q;
	struct stackinfo_threads a;
	struct stackinfo_query arr[MAX_ENTRIES];
};

static pid_t c_pid, c_sleeper, own_sleeper;
static int c_threads;
static uint64_t c_stack[2], own_stack[2];	/* [stack] in /proc/<pid>/maps */
static unsigned int n_copy, n_zero, n_unprotect;

/* ---- userfaultfd ---- */

static int uf_setup(struct uf *u)
{
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	u->fd = t_uffd_open();
	if (u->fd < 0)
		return u->fd;
	u->base = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	u->wp = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	u->src = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->base == MAP_FAILED || u->wp == MAP_FAILED || u->src == MAP_FAILED)
		return -ENOMEM;
	reg.range.start = (uintptr_t)MISS(u, 0);
	reg.range.len = 2 * page;
	if (ioctl(u->fd, UFFDIO_REGISTER, &reg))
		return -errno;
	/* write protection needs the page there first */
	memset(u->wp, 0, page);
	reg.range.start = (uintptr_t)u->wp;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	if (ioctl(u->fd, UFFDIO_REGISTER, &reg))
		return -errno;
	if (!(reg.ioctls & (1ULL << _UFFDIO_WRITEPROTECT)))
		return -EOPNOTSUPP;
	return 0;
}

static void uf_close(struct uf *u)
{
	close(u->fd);
	munmap(u->base, 4 * page);
	munmap(u->wp, page);
	munmap(u->src, page);
}

static int uf_protect(struct uf *u, bool on)
{
	struct uffdio_writeprotect w = {
		.range = { (uintptr_t)u->wp, page },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(u->fd, UFFDIO_WRITEPROTECT, &w) ? -errno : 0;
}

/* Supply the missing page @dst: a copy of u->src, or the zero page. */
static int uf_supply(struct uf *u, char *dst, bool zero)
{
	struct uffdio_copy c = { (uintptr_t)dst, (uintptr_t)u->src, page, 0, 0 };
	struct uffdio_zeropage z = { { (uintptr_t)dst, page }, 0, 0 };

	if (zero)
		return ioctl(u->fd, UFFDIO_ZEROPAGE, &z) ? -errno : 0;
	return ioctl(u->fd, UFFDIO_COPY, &c) ? -errno : 0;
}

/*
 * The next fault, waiting up to FAULT_WAIT: 0 with its page in *addr, or
 * -ETIMEDOUT, or -ECHILD when @done was set first (the call returned).
 */
static int uf_fault(struct uf *u, atomic_int *done, uint64_t *addr, uint64_t *flags)
{
	return t_uffd_fault(u->fd, done, FAULT_WAIT, page, addr, flags);
}

/* ---- the calls ---- */

/* @j into @d; what it answered into @r. */
static void call(const struct job *j, const struct dest *d, struct result *r)
{
	char text[4096];
	uint32_t i;

	memset(r, 0, sizeof(*r));
	switch (j->cp) {
	case CP_READ:
		r->ret = pread(j->fd, d->text, sizeof(text) - 1, 0);
		break;
	case CP_QUERY:
	case CP_QUERY_WP:
		r->ret = ioctl(j->fd, STACKINFO_IOC_QUERY, d->q);
		break;
	default:
		r->ret = ioctl(j->fd, STACKINFO_IOC_QUERY_THREADS, d->a);
		break;
	}
	r->err = r->ret < 0 ? errno : 0;
	switch (j->cp) {
	case CP_READ:
		if (r->ret > 0) {
			memcpy(text, d->text, (size_t)r->ret);
			text[r->ret] = '\0';
			r->parse = si_text_parse(text, &r->ans[0]);
		}
		break;
	case CP_QUERY:
	case CP_QUERY_WP:
		if (!r->ret)
			r->ans[0] = *d->q;
		break;
	default:
		r->count = d->a->count;
		for (i = 0; !r->ret && i < r->count && i < MAX_ENTRIES; i++)
			r->ans[i] = d->arr[i];
		break;
	}
}

static void *caller_main(void *arg)
{
	struct caller *c = arg;

	for (;;) {
		while (sem_wait(&c->go))
			;
		call(c->j, &c->plain, &c->j->ref);
		call(c->j, &c->held, &c->j->held);
		atomic_store(&c->done, 1);
	}
	return NULL;
}

static int caller_start(struct caller *c)
{
	memset(c, 0, sizeof(*c));
	c->plain = (struct dest){ c->text, &c->q, &c->a, c->arr };
	if (sem_init(&c->go, 0, 0))
		return -errno;
	return -pthread_create(&c->th, NULL, caller_main, c);
}

/* The in fields of a batch for @j into @a, its array @arr of @count. */
static void batch_in(const struct job *j, struct stackinfo_threads *a,
		     struct stackinfo_query *arr, uint32_t count)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->pid = (uint32_t)j->pid;
	a->count = count;
	a->entries = (uintptr_t)arr;
	a->entry_size = sizeof(*arr);
}

/*
 * Lay out @j's held destinations in @u (the missing pages dropped, the
 * write-protected one filled and protected) and its ordinary ones in @c:
 * the page its copy will wait on, or NULL (errno set).
 */
static char *prepare(struct uf *u, struct caller *c, struct job *j)
{
	struct dest *d = &c->held;
	uint32_t count = j->cp == CP_ERANGE ? 1 : MAX_ENTRIES;

	c->j = j;
	memset(d, 0, sizeof(*d));
	if (madvise(MISS(u, 0), 2 * page, MADV_DONTNEED) || uf_protect(u, false))
		return NULL;
	t_query_fill(&c->q, j->cp == CP_QUERY ? STACKINFO_QUERY_SIZE_VER0 : sizeof(c->q));
	c->q.tid = (uint32_t)j->tid;
	batch_in(j, &c->a, c->arr, count);
	switch (j->cp) {
	case CP_READ:
		d->text = MISS(u, 0);
		return MISS(u, 0);
	case CP_QUERY:
		/* only the in fields before valid are read: they stay on
		 * the ordinary page, the answer's copy goes on to the next */
		d->q = (void *)(MISS(u, 0) - offsetof(struct stackinfo_query, valid));
		memcpy(d->q, &c->q, offsetof(struct stackinfo_query, valid));
		return MISS(u, 0);
	case CP_QUERY_WP:
		d->q = (void *)u->wp;
		*d->q = c->q;
		return uf_protect(u, true) ? NULL : u->wp;
	case CP_ENTRIES:
		d->a = (void *)PLAIN(u, 0);
		d->arr = (void *)MISS(u, 0);
		batch_in(j, d->a, d->arr, count);
		return MISS(u, 0);
	case CP_COUNT:
		/* the struct on MISS(1), there when read, dropped later */
		d->a = (void *)MISS(u, 1);
		d->arr = (void *)MISS(u, 0);
		memset(u->src, 0, page);
		batch_in(j, (void *)u->src, d->arr, count);
		if (uf_supply(u, MISS(u, 1), false))
			return NULL;
		return MISS(u, 0);
	case CP_ERANGE:
		d->a = (void *)u->wp;
		d->arr = (void *)PLAIN(u, 0);
		batch_in(j, d->a, d->arr, count);
		return uf_protect(u, true) ? NULL : u->wp;
	default:
		errno = EINVAL;
		return NULL;
	}
}

/* Wait up to @secs for @c's call: true when it returned. */
static bool caller_wait(struct caller *c, double secs)
{
	double start = t_now();

	while (!atomic_load(&c->done) && t_now() - start < secs)
		usleep(1000);
	return atomic_load(&c->done);
}

/*
 * A call that does not come back once its page is there waits for more
 * than the page (mmap_lock, the module's own wait): nothing after it can
 * be trusted, and this process's threads may be queued behind it. The
 * process ends at once: its exit kills the stuck call (every wait on a
 * fault's way is killable) and whatever waits behind it.
 */
static void give_up(const char *what)
{
	fprintf(stderr, "FAIL: %s: stuck; giving up\n", what);
	fflush(NULL);
	_exit(1);
}

/* Up to CALL_WAIT for @c's call, or give up. */
static void caller_must_return(struct caller *c, const char *what)
{
	CHECK(caller_wait(c, CALL_WAIT), "%s: the call did not return in %.0f s once its page "
	      "came", what, CALL_WAIT);
	if (!atomic_load(&c->done))
		give_up(what);
}

/*
 * Whatever a failed hold left waiting, given: every missing page and the
 * write protection; and the call waited for.
 */
static void unstick(struct uf *u, struct caller *c, const char *what)
{
	uf_supply(u, MISS(u, 0), true);
	uf_supply(u, MISS(u, 1), true);
	uf_protect(u, false);
	caller_must_return(c, what);
}

/* One fault of @j's call, on @want: 0, or -1 (a CHECK said why). */
static int fault_on(struct uf *u, struct caller *c, const char *want, const char *what)
{
	uint64_t addr = 0, flags = 0;
	int err = uf_fault(u, &c->done, &addr, &flags);

	if (err == -ECHILD) {
		CHECK(0, "%s: the call returned before its copy waited: %ld (%s)", what,
		      c->j->held.ret, strerror(c->j->held.err));
		return -1;
	}
	CHECK(!err, "%s: no fault in %.0f s: %s", what, FAULT_WAIT, strerror(-err));
	if (err)
		return -1;
	CHECK(addr == (uintptr_t)want, "%s: the fault was at %#llx, not on %p", what,
	      (unsigned long long)addr, (void *)want);
	CHECK(flags & UFFD_PAGEFAULT_FLAG_WRITE, "%s: a read fault (%#llx), not the copy out",
	      what, (unsigned long long)flags);
	CHECK(!(flags & UFFD_PAGEFAULT_FLAG_WP) == (want != u->wp),
	      "%s: fault flags %#llx on %s page", what, (unsigned long long)flags,
	      want == u->wp ? "the write-protected" : "a missing");
	return addr == (uintptr_t)want && (flags & UFFD_PAGEFAULT_FLAG_WRITE) &&
	       !(flags & UFFD_PAGEFAULT_FLAG_WP) == (want != u->wp) ? 0 : -1;
}

/*
 * Start @j on @c and wait until its copy waits on its page: 0, or -1 (a
 * CHECK said why; nothing left waiting). The page it waits on in *held.
 */
static int hold(struct uf *u, struct caller *c, struct job *j, const char *what, char **held)
{
	char *p = prepare(u, c, j);

	CHECK(p, "%s: cannot lay out the call: %s", what, strerror(errno));
	if (!p)
		return -1;
	atomic_store(&c->done, 0);
	sem_post(&c->go);
	if (fault_on(u, c, p, what))
		goto fail;
	if (j->cp == CP_COUNT) {
		/* the entries wait; the struct's page goes, then the entries' comes */
		if (madvise(MISS(u, 1), page, MADV_DONTNEED) || uf_supply(u, p, true)) {
			CHECK(0, "%s: %s", what, strerror(errno));
			goto fail;
		}
		p = MISS(u, 1);
		if (fault_on(u, c, p, what))
			goto fail;
	}
	if (atomic_load(&c->done)) {
		CHECK(0, "%s: the call returned while its copy should wait", what);
		goto fail;
	}
	*held = p;
	return 0;
fail:
	unstick(u, c, what);
	return -1;
}

/* Give the page @p that @c's call waits on, and wait for the call. */
static void release(struct uf *u, struct caller *c, char *p, const char *what)
{
	static unsigned int turn;
	int err;

	if (p == u->wp) {
		err = uf_protect(u, false);
		n_unprotect++;
	} else if (c->j->cp == CP_COUNT) {
		/* the struct again, with a count the call must overwrite */
		memset(u->src, 0, page);
		batch_in(c->j, (void *)u->src, (void *)MISS(u, 0), MAX_ENTRIES);
		((struct stackinfo_threads *)u->src)->count = COUNT_SENTINEL;
		err = uf_supply(u, p, false);
		n_copy++;
	} else {
		/* by turns the zero page and a page of 0xa5: no byte of the
		 * answer may be what the page had */
		bool zero = turn++ % 2;

		memset(u->src, 0xa5, page);
		err = uf_supply(u, p, zero);
		zero ? n_zero++ : n_copy++;
	}
	CHECK(!err, "%s: cannot give the page: %s", what, strerror(-err));
	if (err)
		unstick(u, c, what);
	caller_must_return(c, what);
}

/* The held call answered as the same call into ordinary memory did. */
static void check_answer(const struct job *j, const char *what)
{
	const struct result *r = &j->held, *ref = &j->ref;
	bool batch = j->cp >= CP_ENTRIES;
	uint32_t i, n = batch ? ref->count : 1;
	char why[128];

	if (j->cp == CP_ERANGE) {
		CHECK(ref->ret == -1 && ref->err == ERANGE, "%s: ordinary call: %ld (%s)", what,
		      ref->ret, strerror(ref->err));
		n = 0;
	} else {
		CHECK(ref->ret >= 0, "%s: ordinary call: %s", what, strerror(ref->err));
	}
	CHECK(r->ret == ref->ret && r->err == ref->err, "%s: %ld (%s), ordinary %ld (%s)", what,
	      r->ret, strerror(r->err), ref->ret, strerror(ref->err));
	if (batch) {
		CHECK(ref->count == (uint32_t)j->nthreads, "%s: ordinary count %u, threads %d",
		      what, ref->count, j->nthreads);
		CHECK(r->count == ref->count, "%s: count %#x, ordinary %u", what, r->count,
		      ref->count);
	}
	if (j->cp == CP_READ)
		CHECK(!r->parse && !ref->parse, "%s: the text does not parse (%d, ordinary %d)",
		      what, r->parse, ref->parse);
	if (r->ret < 0 || ref->ret < 0 || r->parse || r->count != ref->count)
		return;
	for (i = 0; i < n && i < MAX_ENTRIES; i++) {
		const uint64_t *stack = j->tgid == c_pid ? c_stack : own_stack;

		CHECK(t_query_same(&r->ans[i], &ref->ans[i], j->how, why, sizeof(why)),
		      "%s: entry %u: %s", what, i, why);
		CHECK(r->ans[i].tgid == (uint32_t)j->tgid, "%s: tgid %u, not %d", what,
		      r->ans[i].tgid, (int)j->tgid);
		CHECK(r->ans[i].main_vma_start == stack[0] && r->ans[i].main_vma_end == stack[1],
		      "%s: main stack %#llx-%#llx, maps has %#llx-%#llx", what,
		      (unsigned long long)r->ans[i].main_vma_start,
		      (unsigned long long)r->ans[i].main_vma_end, (unsigned long long)stack[0],
		      (unsigned long long)stack[1]);
		if (!batch && j->cp != CP_READ)
			CHECK(r->ans[i].out_tid == (uint32_t)j->tid, "%s: tid %u, asked %d", what,
			      r->ans[i].out_tid, (int)j->tid);
	}
}

/* ---- the processes ---- */

static void futex_wait(atomic_uint *w, unsigned int val)
{
	struct timespec ts = { 1, 0 };

	syscall(SYS_futex, (unsigned int *)w, FUTEX_WAIT, val, &ts, NULL, 0);
}

static void futex_wake(atomic_uint *w)
{
	syscall(SYS_futex, (unsigned int *)w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void churn_note(struct churn *c, double start)
{
	unsigned int us = (unsigned int)((t_now() - start) * 1e6);
	unsigned int max = atomic_load(&c->max_us);

	while (us > max && !atomic_compare_exchange_weak(&c->max_us, &max, us))
		;
	atomic_fetch_add(&c->ops, 1);
}

/* mmap, write, mprotect and munmap, CHURN_CYCLES times a round */
static void *churner(void *arg)
{
	struct churn *c = arg;
	unsigned int seen = 0, g, i;
	size_t len = 16 * page;

	for (;;) {
		while ((g = atomic_load(&c->go)) == seen)
			futex_wait(&c->go, seen);
		seen = g;
		for (i = 0; i < CHURN_CYCLES; i++) {
			double t = t_now();
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			churn_note(c, t);
			if (p == MAP_FAILED)
				continue;
			t = t_now();
			p[0] = 1;
			mprotect(p, len, PROT_READ);
			churn_note(c, t);
			t = t_now();
			munmap(p, len);
			churn_note(c, t);
		}
		atomic_store(&c->done, seen);
	}
	return NULL;
}

static unsigned int churn_ops, churn_max_us;

/* A round of both churners while a copy waits: false if either stalled. */
static bool churn_round(const char *what)
{
	struct churn *cs[2] = { own_churn, c_churn };
	unsigned int want[2], ops[2];
	double start = t_now();
	int i;

	for (i = 0; i < 2; i++) {
		atomic_store(&cs[i]->max_us, 0);
		ops[i] = atomic_load(&cs[i]->ops);
		want[i] = atomic_fetch_add(&cs[i]->go, 1) + 1;
		futex_wake(&cs[i]->go);
	}
	while ((atomic_load(&cs[0]->done) != want[0] || atomic_load(&cs[1]->done) != want[1]) &&
	       t_now() - start < CHURN_WAIT)
		usleep(1000);
	for (i = 0; i < 2; i++) {
		unsigned int max = atomic_load(&cs[i]->max_us);
		bool done = atomic_load(&cs[i]->done) == want[i];

		CHECK(done, "%s: %s's mmap/mprotect/munmap stopped for %.0f s while the copy "
		      "waited: mmap_lock held across the copy?", what, i ? "C" : "this process",
		      CHURN_WAIT);
		CHECK(max < CHURN_OP_MAX * 1e6, "%s: one of %s's mmap/mprotect/munmap took %.3f s "
		      "while the copy waited", what, i ? "C" : "this process", max / 1e6);
		if (!done)
			return false;
		churn_ops += atomic_load(&cs[i]->ops) - ops[i];
		if (max > churn_max_us)
			churn_max_us = max;
	}
	return true;
}

/* C: sleeping threads and a churner; it dies with us */
static pid_t spawn_c(void)
{
	pid_t tids[C_SLEEPERS + 2];
	pthread_t th;
	pid_t pid;
	double end;
	int i, n;

	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (i = 0; i < C_SLEEPERS; i++)
			if (pthread_create(&th, NULL, t_pause_forever, NULL))
				_exit(1);
		if (pthread_create(&th, NULL, churner, c_churn))
			_exit(1);
		t_pause_forever(NULL);
	}
	if (pid < 0)
		return -1;
	for (end = t_now() + T_WAIT_SECS;
	     t_now() < end && t_task_tids(pid, NULL, 0) != C_SLEEPERS + 2;)
		usleep(1000);
	n = t_task_tids(pid, tids, C_SLEEPERS + 2);
	if (n != C_SLEEPERS + 2 || t_wait_paused(tids[0]) || t_wait_paused(tids[1]))
		return -1;
	c_sleeper = tids[1];	/* the first thread C started */
	c_threads = n;
	return pid;
}

/*
 * @cp on the module's file or the in-tree one, about this process (@c
 * false) or C; its fd opened. Returns false when there is no such case (a
 * read of the module's file answers for the reader only).
 */
static bool job_init(struct job *j, enum copy cp, bool intree, bool about_c)
{
	pid_t pid = about_c ? c_pid : getpid();

	memset(j, 0, sizeof(*j));
	if (cp == CP_READ && !intree && about_c)
		return false;
	j->cp = cp;
	j->intree = intree;
	j->tgid = pid;
	j->nthreads = about_c ? c_threads : OWN_THREADS;
	j->tid = about_c ? c_sleeper : own_sleeper;
	j->pid = intree || !about_c ? 0 : pid;
	j->fd = intree ? t_intree_open(NULL, pid, 0) : open("/proc/stackinfo", O_RDONLY | O_CLOEXEC);
	if (j->fd == -1)
		j->fd = -errno;
	/* SPs that move: the reader, this process's running threads, batches' */
	if (cp >= CP_ENTRIES || (cp == CP_READ && !about_c))
		j->how = T_CMP_NO_SP;
	if (cp == CP_READ)
		j->how |= T_CMP_TEXT;
	return true;
}

static void job_name(const struct job *j, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s about %s", j->intree ? "in-tree" : "module",
		 copy_names[j->cp], j->tgid == c_pid ? "C" : "itself");
}

/* ---- 1. nothing under mmap_lock ---- */

static unsigned int held_lock, planned_lock;

static void lock_case(struct uf *u, struct caller *c, enum copy cp, bool intree, bool about_c)
{
	struct job j;
	char what[96], *p;

	if (!job_init(&j, cp, intree, about_c))
		return;
	job_name(&j, what, sizeof(what));
	planned_lock++;
	CHECK(j.fd >= 0, "%s: open: %s", what, strerror(-j.fd));
	if (j.fd < 0)
		return;
	if (!hold(u, c, &j, what, &p)) {
		bool churned = churn_round(what);

		CHECK(!atomic_load(&c->done), "%s: the call returned before its page came", what);
		release(u, c, p, what);
		if (churned) {
			check_answer(&j, what);
			held_lock++;
		}
	}
	close(j.fd);
}

/* ---- 2. rmmod ---- */

static bool module_loaded(void)
{
	return access("/sys/module/stackinfo", F_OK) == 0;
}

/* delete_module() in a child: its pid; it exits with the errno (0: unloaded) */
static pid_t rmmod_start(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(syscall(SYS_delete_module, "stackinfo", O_NONBLOCK) ? errno : 0);
	return pid;
}

/* Up to @secs for it: its exit code, or -ETIMEDOUT (then left where it is) */
static int rmmod_wait(pid_t pid, double secs)
{
	double start = t_now();
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -EINTR;
		if (r < 0)
			return -errno;
		usleep(2000);
	} while (t_now() - start < secs);
	return -ETIMEDOUT;
}

static bool initstate_is(const char *want)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/module/stackinfo/initstate", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return !strcmp(buf, want);
}

/* The module loaded again (if it is not) and answering. */
static bool reload(const char *what)
{
	struct stackinfo_query q;
	int err = module_loaded() ? 0 : t_module_load(""), fd;

	CHECK(!err, "%s: the module does not load again: %s", what, strerror(-err));
	fd = open("/proc/stackinfo", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "%s: /proc/stackinfo after the load: %s", what, strerror(errno));
	if (fd < 0)
		return false;
	t_query_fill(&q, sizeof(q));
	err = ioctl(fd, STACKINFO_IOC_QUERY, &q) ? errno : 0;
	close(fd);
	CHECK(!err && q.out_tid == (uint32_t)t_gettid(), "%s: the module loaded again does not "
	      "answer: %s", what, strerror(err));
	return !err;
}

/* The fd of an entry gone: ioctl ENOTTY, read EIO. */
static void check_gone_fd(int fd, const char *what, const char *which)
{
	struct stackinfo_query q;
	char buf[64];

	t_query_fill(&q, sizeof(q));
	errno = 0;
	CHECK(ioctl(fd, STACKINFO_IOC_QUERY, &q) == -1 && errno == ENOTTY,
	      "%s: ioctl on %s: %s, not ENOTTY", what, which, strerror(errno));
	errno = 0;
	CHECK(pread(fd, buf, sizeof(buf), 0) == -1 && errno == EIO,
	      "%s: read of %s: %s, not EIO", what, which, strerror(errno));
}

static unsigned int held_rmmod, planned_rmmod;
static double rmmod_held_max;

static void rmmod_case(struct uf *u, struct caller *c, enum copy cp)
{
	double start;
	struct job j;
	char what[96], *p;
	pid_t rm;
	int spare, rc;
	bool ok = true;

	job_init(&j, cp, false, cp != CP_READ);
	job_name(&j, what, sizeof(what));
	strcat(what, ", rmmod");
	planned_rmmod++;
	spare = open("/proc/stackinfo", O_RDONLY | O_CLOEXEC);
	CHECK(j.fd >= 0 && spare >= 0, "%s: open: %s", what,
	      strerror(j.fd < 0 ? -j.fd : errno));
	if (j.fd < 0 || spare < 0 || hold(u, c, &j, what, &p))
		goto out;
	start = t_now();
	rm = rmmod_start();
	CHECK(rm > 0, "%s: fork: %s", what, strerror(errno));
	if (rm <= 0) {
		release(u, c, p, what);
		goto out;
	}
	/* the unload waits in proc_entry_rundown() for the held call */
	while (!strchr("DZ", t_proc_state(rm)) && t_now() - start < RMMOD_WAIT)
		usleep(2000);
	usleep((useconds_t)(HELD_FOR * 1e6));
	rc = rmmod_wait(rm, 0);
	ok = rc == -ETIMEDOUT;
	CHECK(ok, "%s: the unload returned (%s) while a call was in the module's copy", what,
	      rc < 0 ? strerror(-rc) : rc ? strerror(rc) : "0");
	if (ok) {
		char st = t_proc_state(rm);

		CHECK(st == 'D', "%s: the unloading task is '%c', not waiting in D", what, st);
		CHECK(initstate_is("going"), "%s: the module is not \"going\"", what);
		errno = 0;
		CHECK(access("/proc/stackinfo", F_OK) && errno == ENOENT,
		      "%s: /proc/stackinfo still opens during the unload: %s", what,
		      strerror(errno));
		check_gone_fd(spare, what, "another open fd during the unload");
		errno = 0;
		CHECK(syscall(SYS_delete_module, "stackinfo", O_NONBLOCK) == -1 && errno == EBUSY,
		      "%s: a second delete_module: %s, not EBUSY", what, strerror(errno));
		CHECK(!atomic_load(&c->done), "%s: the call returned before its page came", what);
	}
	release(u, c, p, what);
	if (ok) {
		rc = rmmod_wait(rm, RMMOD_WAIT);
		CHECK(!rc, "%s: the unload, once the call returned: %s", what,
		      rc == -ETIMEDOUT ? "still waiting" : strerror(rc < 0 ? -rc : rc));
		if (rc == -ETIMEDOUT)
			give_up(what);
	}
	if (t_now() - start > rmmod_held_max)
		rmmod_held_max = t_now() - start;
	CHECK(!module_loaded(), "%s: the module is still there", what);
	check_answer(&j, what);
	check_gone_fd(j.fd, what, "the held call's fd after the unload");
	if (ok && !rc)
		held_rmmod++;
out:
	if (j.fd >= 0)
		close(j.fd);
	if (spare >= 0)
		close(spare);
	reload(what);
}

/* ---- 3. SIGKILL ---- */

static unsigned int killed, planned_kill;
static double death_max;

/* The child: its own userfaultfd and caller; the call held, then told. */
static void kill_child(struct job *j, const char *what, int report)
{
	struct caller c;
	struct uf u;
	char *p, ok = 0;
	int err;

	err = uf_setup(&u);
	CHECK(!err, "%s: userfaultfd: %s", what, strerror(-err));
	if (!err && !caller_start(&c) && !hold(&u, &c, j, what, &p))
		ok = 1;
	if (write(report, &ok, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void kill_case(enum copy cp, bool intree)
{
	double start;
	struct pollfd pf;
	struct job j;
	char what[96], ok = 0;
	int p[2], status = 0;
	pid_t pid, r = 0;

	job_init(&j, cp, intree, intree || cp != CP_READ);
	job_name(&j, what, sizeof(what));
	strcat(what, ", SIGKILL");
	planned_kill++;
	CHECK(j.fd >= 0, "%s: open: %s", what, strerror(-j.fd));
	if (j.fd < 0)
		return;
	if (pipe2(p, O_CLOEXEC)) {
		CHECK(0, "%s: pipe: %s", what, strerror(errno));
		close(j.fd);
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		kill_child(&j, what, p[1]);
	}
	close(p[1]);
	close(j.fd);
	pf = (struct pollfd){ .fd = p[0], .events = POLLIN };
	if (pid > 0 && poll(&pf, 1, (int)((FAULT_WAIT + CALL_WAIT) * 1000)) == 1 &&
	    read(p[0], &ok, 1) == 1 && ok) {
		start = t_now();
		kill(pid, SIGKILL);
		while ((r = waitpid(pid, &status, WNOHANG)) == 0 && t_now() - start < DEATH_MAX)
			usleep(1000);
		CHECK(r == pid, "%s: not gone %.0f s after SIGKILL (state %c)", what, DEATH_MAX,
		      t_proc_state(pid));
		CHECK(r != pid || (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL),
		      "%s: ended with status %#x, not by SIGKILL", what, status);
		if (r == pid && WIFSIGNALED(status)) {
			killed++;
			if (t_now() - start > death_max)
				death_max = t_now() - start;
		}
	} else {
		CHECK(0, "%s: the child's call was never held (see above)", what);
		t_reap(pid);
	}
	close(p[0]);
}

int main(void)
{
	pid_t tids[OWN_THREADS];
	struct caller caller;
	struct uf u;
	pthread_t th;
	double start, t1, t2;
	bool intree;
	int err, cp, who, n;
	void *shared;
	char buf[16] = "?";
	FILE *f;

	page = (size_t)sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0 || access("/proc/stackinfo", F_OK)) {
		printf("SKIP: needs root and the module loaded\n");
		return T_SKIP;
	}
	if (access(T_MODULE_KO, R_OK)) {
		printf("SKIP: no %s to load again\n", T_MODULE_KO);
		return T_SKIP;
	}
	err = uf_setup(&u);
	if (err == -ENOSYS) {
		printf("SKIP: no userfaultfd (CONFIG_USERFAULTFD)\n");
		return T_SKIP;
	}
	CHECK(!err, "userfaultfd: %s", strerror(-err));
	if (err)
		return t_result();
	f = fopen("/proc/sys/vm/unprivileged_userfaultfd", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	printf("info: vm.unprivileged_userfaultfd %s; root's userfaultfd handles kernel faults\n",
	       buf);
	intree = !t_intree_missing();

	shared = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shared != MAP_FAILED, "mmap: %s", strerror(errno));
	if (shared == MAP_FAILED)
		return t_result();
	own_churn = shared;
	c_churn = own_churn + 1;
	c_pid = spawn_c();
	CHECK(c_pid > 0, "C did not start");
	err = c_pid <= 0 || pthread_create(&th, NULL, t_pause_forever, NULL) ||
	      pthread_create(&th, NULL, churner, own_churn) || caller_start(&caller);
	CHECK(!err, "threads: %s", strerror(errno));
	/* the sleeper is the first thread started after the main one */
	n = t_task_tids(getpid(), tids, OWN_THREADS);
	CHECK(n == OWN_THREADS, "%d threads, not %d", n, OWN_THREADS);
	own_sleeper = n > 1 ? tids[1] : 0;
	CHECK(!t_wait_paused(own_sleeper), "the sleeper does not sleep");
	CHECK(!maps_stack(0, &own_stack[0], &own_stack[1]) &&
	      !maps_stack(c_pid, &c_stack[0], &c_stack[1]), "no [stack] in maps");
	if (t_failures) {
		t_reap(c_pid);
		return t_result();
	}

	start = t_now();
	for (who = 0; who < 2 + 2 * intree; who++)
		for (cp = 0; cp < NCOPIES; cp++)
			lock_case(&u, &caller, cp, who >= 2, who % 2);
	t1 = t_now();
	printf("info: 1. %u of %u copies held while both processes made %u mmap/mprotect/munmap "
	       "calls (the longest %.1f ms), then answered as into ordinary memory; %.1f s\n",
	       held_lock, planned_lock, churn_ops, churn_max_us / 1e3, t1 - start);

	for (cp = 0; cp < NCOPIES; cp++)
		rmmod_case(&u, &caller, cp);
	t2 = t_now();
	printf("info: 2. %u of %u unloads waited behind a held copy (held %.1f s, each unload "
	       "%.1f s at most), returned 0 once it answered, its fd then ENOTTY/EIO, loaded "
	       "again; %.1f s\n", held_rmmod, planned_rmmod, HELD_FOR, rmmod_held_max, t2 - t1);

	for (who = 0; who < 1 + intree; who++)
		for (cp = 0; cp < NCOPIES; cp++)
			kill_case(cp, who);
	{
		pid_t rm = rmmod_start();
		int rc = rm > 0 ? rmmod_wait(rm, RMMOD_WAIT) : -errno;

		CHECK(!rc, "the unload after the killed calls: %s",
		      rc == -ETIMEDOUT ? "still waiting" : strerror(rc < 0 ? -rc : rc));
		if (rc != -ETIMEDOUT)
			reload("after the killed calls");
	}
	printf("info: 3. %u of %u processes killed in a held copy were gone within %.2f s at most; "
	       "the module unloaded and loaded again; %.1f s\n", killed, planned_kill, death_max,
	       t_now() - t2);
	printf("info: pages given: %u UFFDIO_COPY, %u UFFDIO_ZEROPAGE, %u write protections lifted\n",
	       n_copy, n_zero, n_unprotect);

	CHECK(held_lock == planned_lock && planned_lock >= (intree ? 23U : 11U),
	      "1: %u of %u copies held and answered", held_lock, planned_lock);
	CHECK(churn_ops >= planned_lock * 2 * 3 * CHURN_CYCLES, "1: only %u mmap_lock writers",
	      churn_ops);
	CHECK(held_rmmod == planned_rmmod && planned_rmmod == NCOPIES,
	      "2: %u of %u unloads behind a held copy", held_rmmod, planned_rmmod);
	CHECK(killed == planned_kill && planned_kill == NCOPIES * (1U + intree),
	      "3: %u of %u processes killed in a held copy", killed, planned_kill);
	CHECK(n_copy && n_zero && n_unprotect, "not every way of giving a page was used");
	t_reap(c_pid);
	uf_close(&u);
	return t_result();
}
