// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A batch answers each thread as the kernel answers at the moment that
 * thread is asked: nothing it learnt about one thread holds across a
 * change of the target that the kernel's check reads. The batch is held
 * in the middle: its array starts on a missing page of a userfaultfd
 * region, so the copy of entry 0 (the leader's, asked first) waits; the
 * target changes while it waits; then the page comes and the batch goes
 * on. Entry 0 must be the kernel's answer before the change, every other
 * entry the kernel's answer after it, to the same caller in the same
 * guest:
 *  - dumpable: the target makes itself non-dumpable (Yama 0): the kernel
 *    refuses the caller every thread's maps, and the rest are left out;
 *  - ptracer: the target takes back the PR_SET_PTRACER that let the
 *    caller read its threads' syscall (Yama 1, the caller no ancestor):
 *    the rest come without the SP;
 *  - tracer: the caller's thread that traced every thread of the target
 *    detaches from them (Yama 1, no PR_SET_PTRACER left): without the SP;
 *  - exec: a worker of the target execs (de_thread() ends the others and
 *    gives the worker the leader's number; Yama 0): the batch's count and
 *    entries are one image's, so no thread of the new image follows the
 *    old leader's entry.
 * Each kind runs until STRADDLES batches were held across its change, for
 * race.h's cap at most (t_race_cap(): 120 s, 600 s on a kernel with
 * lockdep, KCSAN or kmemleak; STACKINFO_RACE_CAP=SECONDS sets another),
 * each batch said in the log ("progress: batch KIND N: ...") and the
 * count at the end ("info: KIND: ..."); every wait in a batch (for its copy's fault,
 * for its return, for the new image) is bounded by the time left.
 *
 * Roles: the test (root) is the child subreaper that reaps the targets;
 * C, a uid-1000 process (its userfaultfd made while root, so that it
 * handles the kernel's faults), spawns each target T (uid 1000, a leader
 * and three workers) by a double fork, so that C is no ancestor of T;
 * C's main thread changes T and traces it, its second thread makes the
 * batch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "race.h"
#include "testutil.h"

#define USER_UID 1000
#define WORKERS 3
#define THREADS (WORKERS + 1)
#define EXEC_WORKER 1		/* the worker that execs (not the leader) */
#define STRADDLES 6		/* batches held across the change, per kind */
#define NEW_IMAGE "/usr/bin/thread-sleeper"

/* what comes with the SP: never without it */
#define WITH_SP	(STACKINFO_VALID_SP_VMA | STACKINFO_VALID_SP_PREV | \
		 STACKINFO_VALID_SP_GUARD | STACKINFO_VALID_ALTSTACK | \
		 STACKINFO_VALID_STACK_KIND)

enum kind { K_DUMPABLE, K_PTRACER, K_TRACER, K_EXEC, NKINDS };
static const char *const kind_names[NKINDS] = { "dumpable", "ptracer", "tracer", "exec" };
static const int kind_scope[NKINDS] = { 0, 1, 1, 0 };

static size_t page;

/* A kind's run: its start and its cap, both t_now() seconds. */
struct run {
	double start, cap;
};

static struct run run;

/* A kernel that checks every lock or access: lockdep, KCSAN, kmemleak. */
/* Seconds left of the kind's cap (never below one: a last wait). */
static double time_left(void)
{
	double left = run.start + run.cap - t_now();

	return left > 1.0 ? left : 1.0;
}

/* ---- the target T ---- */

/* T's commands, each answered with an errno: */
struct cmd {
	char op;	/* 'p' PR_SET_PTRACER pid, 'r' take it back, 'd' not dumpable, 'x' exec */
	pid_t pid;
};

struct target {
	pid_t pid;
	pid_t tids[THREADS];	/* ascending: the leader first */
	int cmd, ack;		/* our ends of its pipes */
};

static int exec_pipe[2];

static void *exec_worker(void *arg)
{
	char c;
	int null;

	(void)arg;
	while (read(exec_pipe[0], &c, 1) != 1)
		;
	null = open("/dev/null", O_WRONLY);
	if (null >= 0)
		dup2(null, 1);
	execl(NEW_IMAGE, "thread-sleeper", "1", (char *)NULL);
	fprintf(stderr, "the target's worker: exec %s: %s\n", NEW_IMAGE, strerror(errno));
	_exit(127);
}

static void target_main(int cmd_fd, int ack_fd)
{
	pthread_t th;
	struct cmd c;
	int i, err;

	if (pipe(exec_pipe))
		_exit(1);
	for (i = 0; i < WORKERS; i++)
		if (pthread_create(&th, NULL, i == EXEC_WORKER ? exec_worker : t_pause_forever,
				   NULL))
			_exit(1);
	while (read(cmd_fd, &c, sizeof(c)) == sizeof(c)) {
		switch (c.op) {
		case 'p':
			err = prctl(PR_SET_PTRACER, (unsigned long)c.pid) ? errno : 0;
			break;
		case 'r':
			err = prctl(PR_SET_PTRACER, 0UL) ? errno : 0;
			break;
		case 'd':
			err = prctl(PR_SET_DUMPABLE, 0) ? errno : 0;
			break;
		case 'x':
			/* said first: the exec ends this thread (de_thread()) */
			err = 0;
			break;
		default:
			err = EINVAL;
		}
		if (write(ack_fd, &err, sizeof(err)) != sizeof(err))
			_exit(1);
		if (c.op == 'x' && write(exec_pipe[1], "x", 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/* T by a double fork (its parent then the subreaper, the test): 0 or -errno. */
static int target_spawn(struct target *t, int uffd)
{
	int cmd[2], ack[2], pid_pipe[2], i, status;
	pid_t x;

	if (pipe(cmd) || pipe(ack) || pipe(pid_pipe))
		return -errno;
	fflush(NULL);
	x = fork();
	if (x == 0) {
		pid_t p = fork();

		if (p == 0) {
			close(uffd);
			close(cmd[1]);
			close(ack[0]);
			close(pid_pipe[0]);
			close(pid_pipe[1]);
			target_main(cmd[0], ack[1]);
		}
		_exit(p > 0 && write(pid_pipe[1], &p, sizeof(p)) == sizeof(p) ? 0 : 1);
	}
	close(cmd[0]);
	close(ack[1]);
	close(pid_pipe[1]);
	t->pid = -1;
	if (x < 0 || waitpid(x, &status, 0) != x || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    read(pid_pipe[0], &t->pid, sizeof(t->pid)) != sizeof(t->pid))
		t->pid = -1;
	close(pid_pipe[0]);
	t->cmd = cmd[1];
	t->ack = ack[0];
	for (i = 0; t->pid > 0 && i < 5000 && t_task_tids(t->pid, NULL, 0) != THREADS; i++)
		usleep(1000);
	if (t->pid <= 0 || t_task_tids(t->pid, t->tids, THREADS) != THREADS)
		return -ESRCH;
	return 0;
}

/* T's answer to @op: 0, its -errno, or -EPIPE when T is gone (-errno, -EIO). */
static int target_tell(const struct target *t, char op, pid_t pid)
{
	struct cmd c = { op, pid };
	ssize_t n;
	int err;

	if (write(t->cmd, &c, sizeof(c)) != sizeof(c))
		return -errno;
	n = read(t->ack, &err, sizeof(err));
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EPIPE;
	return n == sizeof(err) ? -err : -EIO;
}

static void target_end(struct target *t)
{
	if (t->pid > 0)
		kill(t->pid, SIGKILL);
	close(t->cmd);
	close(t->ack);
	t->pid = -1;
}

/* Until /proc/<pid>/exe names the new image: 0, or -ETIMEDOUT at the cap. */
static int wait_new_image(pid_t pid)
{
	char path[64], exe[256];
	double start = t_now(), wait = time_left();

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	while (t_now() - start < wait) {
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);

		if (n > 0) {
			exe[n] = '\0';
			if (!strcmp(exe, NEW_IMAGE))
				return 0;
		}
		usleep(5000);
	}
	return -ETIMEDOUT;
}

/* ---- tracing T's threads (C's main thread is the tracer) ---- */

static int seize_all(const struct target *t)
{
	int i;

	for (i = 0; i < THREADS; i++)
		if (ptrace(PTRACE_SEIZE, t->tids[i], 0, 0))
			return -errno;
	return 0;
}

static int detach_all(const struct target *t)
{
	int i, status, err = 0;

	for (i = 0; i < THREADS; i++) {
		if (ptrace(PTRACE_INTERRUPT, t->tids[i], 0, 0) ||
		    waitpid(t->tids[i], &status, __WALL) != t->tids[i] ||
		    ptrace(PTRACE_DETACH, t->tids[i], 0, 0))
			err = err ?: -errno;
	}
	return err;
}

/* ---- the batch, made by C's second thread ---- */

struct batcher {
	pthread_t th;
	sem_t go;
	atomic_int done;
	int fd;
	pid_t pid;
	struct stackinfo_query *arr;	/* the held page */
	uint32_t n;
	int err;
	uint32_t count;
};

static void *batcher_main(void *arg)
{
	struct batcher *b = arg;
	struct stackinfo_threads a;

	for (;;) {
		while (sem_wait(&b->go))
			;
		if (b->pid < 0)
			return NULL;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.pid = (uint32_t)b->pid;
		a.count = b->n;
		a.entries = (uintptr_t)b->arr;
		a.entry_size = sizeof(*b->arr);
		b->err = ioctl(b->fd, STACKINFO_IOC_QUERY_THREADS, &a) ? -errno : 0;
		b->count = a.count;
		atomic_store(&b->done, 1);
	}
}

/* ---- userfaultfd ---- */

struct uf {
	int fd;
	char *page;
};

static int uf_setup(struct uf *u)
{
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	u->fd = t_uffd_open();
	if (u->fd < 0)
		return u->fd;
	u->page = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->page == MAP_FAILED)
		return -ENOMEM;
	reg.range.start = (uintptr_t)u->page;
	reg.range.len = page;
	return ioctl(u->fd, UFFDIO_REGISTER, &reg) ? -errno : 0;
}

/* The page's fault, up to the cap: 0, -ECHILD (the call returned first), -ETIMEDOUT. */
static int uf_fault(const struct uf *u, atomic_int *done)
{
	uint64_t addr, flags;
	int err = t_uffd_fault(u->fd, done, time_left(), page, &addr, &flags);

	if (!err && addr != (uintptr_t)u->page)
		return -EPROTO;
	return err;
}

static int uf_supply(const struct uf *u)
{
	struct uffdio_zeropage z = { { (uintptr_t)u->page, page }, 0, 0 };

	return ioctl(u->fd, UFFDIO_ZEROPAGE, &z) ? -errno : 0;
}

/* ---- one batch held across one change ---- */

/* What the kernel answers this caller about each of T's threads. */
struct kernel_says {
	int maps[THREADS], sys[THREADS];
};

static void kernel_answers(const struct target *t, struct kernel_says *k)
{
	int i;

	for (i = 0; i < THREADS; i++) {
		k->maps[i] = proc_readable(t->tids[i], "maps");
		k->sys[i] = proc_readable(t->tids[i], "syscall");
	}
}

/* T as the kind needs it before the batch (the scope is the test's). */
static int prepare(enum kind kind, const struct target *t)
{
	int err;

	switch (kind) {
	case K_PTRACER:
		return target_tell(t, 'p', getpid());
	case K_TRACER:
		err = target_tell(t, 'p', getpid());
		if (!err)
			err = seize_all(t);
		return err ?: target_tell(t, 'r', 0);
	default:
		return 0;
	}
}

/* The change, made while the batch waits. */
static int change(enum kind kind, const struct target *t)
{
	int err;

	switch (kind) {
	case K_DUMPABLE:
		return target_tell(t, 'd', 0);
	case K_PTRACER:
		return target_tell(t, 'r', 0);
	case K_TRACER:
		return detach_all(t);
	case K_EXEC:
		err = target_tell(t, 'x', 0);
		return err ?: wait_new_image(t->pid);
	default:
		return -EINVAL;
	}
}

static int index_of(const struct target *t, uint32_t tid)
{
	int i;

	for (i = 0; i < THREADS; i++)
		if ((uint32_t)t->tids[i] == tid)
			return i;
	return -1;
}

/* One answer against what the kernel said (@k, at thread @i). */
static void entry_against(const char *what, const struct stackinfo_query *e,
			  const struct kernel_says *k, int i, const char *when)
{
	int sp = !!(e->valid & STACKINFO_VALID_SP);

	CHECK(!k->maps[i], "%s: tid %u answered; %s the change the kernel refuses maps (%s)",
	      what, e->out_tid, when, strerror(-k->maps[i]));
	CHECK(sp == !k->sys[i], "%s: tid %u: SP %s; %s the change the kernel %s /proc/%u/syscall",
	      what, e->out_tid, sp ? "given" : "withheld", when,
	      k->sys[i] ? "refuses" : "gives", e->out_tid);
	CHECK(sp || !(e->valid & WITH_SP), "%s: tid %u: valid %#llx without the SP", what,
	      e->out_tid, (unsigned long long)e->valid);
}

/*
 * One batch of a new T held across @kind's change: 1 when it was held
 * (and checked), 0 when it returned before its copy faulted.
 */
static int one_batch(enum kind kind, int n, struct batcher *b, const struct uf *u)
{
	struct kernel_says before, after;
	struct target t;
	char what[64];
	int err, held = 0, i, want;
	double start, wait;

	snprintf(what, sizeof(what), "batch %s %d", kind_names[kind], n);
	err = target_spawn(&t, u->fd);
	CHECK(!err, "%s: the target: %s", what, strerror(-err));
	if (err)
		goto out;
	err = prepare(kind, &t);
	CHECK(!err, "%s: before the batch: %s", what, strerror(-err));
	if (err)
		goto out;
	kernel_answers(&t, &before);
	for (i = 0; i < THREADS; i++)
		CHECK(!before.maps[i] && !before.sys[i],
		      "%s: before: the kernel refuses tid %d maps %d syscall %d", what,
		      t.tids[i], before.maps[i], before.sys[i]);
	CHECK(!madvise(u->page, page, MADV_DONTNEED), "madvise: %s", strerror(errno));

	atomic_store(&b->done, 0);
	b->pid = t.pid;
	sem_post(&b->go);
	err = uf_fault(u, &b->done);
	if (!err) {
		held = 1;
		err = change(kind, &t);
		CHECK(!err, "%s: the change: %s", what, strerror(-err));
		CHECK(!uf_supply(u), "%s: UFFDIO_ZEROPAGE: %s", what, strerror(errno));
	} else {
		CHECK(err == -ECHILD, "%s: the batch's copy never faulted: %s", what,
		      strerror(-err));
	}
	for (start = t_now(), wait = time_left(); !atomic_load(&b->done) && t_now() - start < wait;)
		usleep(1000);
	CHECK(atomic_load(&b->done), "%s: the batch never returned", what);
	if (!atomic_load(&b->done))
		_exit(t_result());
	if (!held) {
		printf("progress: %s: returned before its copy faulted (%s, %u entries)\n", what,
		       strerror(-b->err), b->count);
		goto out;
	}
	kernel_answers(&t, &after);

	/* entry 0, the leader's, asked before the change; the rest after it */
	CHECK(!b->err, "%s: %s", what, strerror(-b->err));
	if (b->err)
		goto out;
	CHECK(b->count >= 1 && b->arr[0].out_tid == (uint32_t)t.pid,
	      "%s: entry 0 is tid %u, not the leader %d (%u entries)", what,
	      b->count ? b->arr[0].out_tid : 0, (int)t.pid, b->count);
	if (b->count >= 1)
		entry_against(what, &b->arr[0], &before, 0, "before");
	want = 1;
	for (i = 1; kind != K_EXEC && i < THREADS; i++)
		want += !after.maps[i];
	for (i = 1; i < (int)b->count && i < THREADS + 4; i++) {
		const struct stackinfo_query *e = &b->arr[i];
		int k = index_of(&t, e->out_tid);

		CHECK(e->out_tid != b->arr[0].out_tid,
		      "%s: entry %d: tid %u a second time (another image's thread)", what, i,
		      e->out_tid);
		CHECK(e->start_stack == b->arr[0].start_stack,
		      "%s: entry %d (tid %u): start_stack %#llx, entry 0's %#llx: two images",
		      what, i, e->out_tid, (unsigned long long)e->start_stack,
		      (unsigned long long)b->arr[0].start_stack);
		CHECK(k > 0, "%s: entry %d: tid %u", what, i, e->out_tid);
		if (k > 0 && kind != K_EXEC)
			entry_against(what, e, &after, k, "after");
	}
	CHECK(b->count == (uint32_t)want, "%s: %u entries; the kernel's answers after the change want %d",
	      what, b->count, want);
	printf("progress: %s: held across the change, %u entries (%d wanted)\n", what, b->count,
	       want);
out:
	if (t.pid > 0 && kind == K_TRACER && !held)
		detach_all(&t);
	target_end(&t);
	return held;
}

/* C: every batch of @kind. */
static void caller(enum kind kind)
{
	struct stackinfo_query *arr;
	struct batcher b = { 0 };
	struct uf u = { -1, NULL };
	int err, n = 0, straddled = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	err = uf_setup(&u);
	CHECK(!err, "userfaultfd: %s", strerror(-err));
	if (err)
		_exit(t_result());
	t_become_user(USER_UID);
	arr = (struct stackinfo_query *)u.page;
	b.fd = si_open();
	if (b.fd < 0)
		_exit(1);
	b.arr = arr;
	b.n = (uint32_t)(page / sizeof(*arr));
	sem_init(&b.go, 0, 0);
	if (pthread_create(&b.th, NULL, batcher_main, &b))
		_exit(1);
	run.cap = t_race_cap();
	run.start = t_now();
	while (straddled < STRADDLES && t_now() - run.start < run.cap)
		straddled += one_batch(kind, n++, &b, &u);
	printf("info: %s: %d of %d batches held across the change in %.1f s (cap %.0f s)\n",
	       kind_names[kind], straddled, n, t_now() - run.start, run.cap);
	CHECK(straddled >= STRADDLES, "%s: %d batches held across the change (of %d) by the cap, %.0f s",
	      kind_names[kind], straddled, n, run.cap);
	b.pid = -1;
	sem_post(&b.go);
	pthread_join(b.th, NULL);
	fflush(stdout);
	_exit(t_result());
}

int main(void)
{
	int scope, status, k;
	pid_t c, w;

	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	page = (size_t)sysconf(_SC_PAGESIZE);
	scope = t_yama_scope();
	if (scope < 0) {
		printf("SKIP: no Yama: no PR_SET_PTRACER or tracer to change\n");
		return T_SKIP;
	}
	if (access(NEW_IMAGE, X_OK)) {
		printf("SKIP: no %s to exec\n", NEW_IMAGE);
		return T_SKIP;
	}
	/* the targets' parent once their double fork's middle exits */
	CHECK(!prctl(PR_SET_CHILD_SUBREAPER, 1), "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	for (k = 0; k < NKINDS; k++) {
		CHECK(!t_set_yama_scope(kind_scope[k]), "ptrace_scope %d", kind_scope[k]);
		fflush(NULL);
		c = fork();
		if (c == 0)
			caller((enum kind)k);
		CHECK(c > 0, "fork");
		/* reap the targets as they die, until C is done */
		while (c > 0 && (w = waitpid(-1, &status, 0)) > 0) {
			if (w != c)
				continue;
			CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "%s: the caller failed",
			      kind_names[k]);
			break;
		}
	}
	CHECK(!t_set_yama_scope(scope), "restore ptrace_scope %d", scope);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return t_result();
}
