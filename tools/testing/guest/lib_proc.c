// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library's proc backend on a kernel with the in-tree
 * /proc/<pid>/stackinfo (CONFIG_PROC_STACKINFO: debug-6.12, debug-7.2); a
 * SKIP that says so on a kernel without. As root, the module loaded or not:
 *  - the default backend is proc, and every answer below is the proc
 *    backend's (STACKINFO_LIB_ANSWERED_BY);
 *  - what the library relies on, asked raw: the file's tid 0 is the
 *    file's thread (a worker asking /proc/self/stackinfo about tid 0 gets
 *    the group leader), another process's tid on it is ESRCH, and
 *    STACKINFO_QUERY_PROOF_FD is EINVAL;
 *  - the library's answer for the caller (the main thread and a worker),
 *    for a sleeping thread of its own process and for a sleeping thread of
 *    another process equals the raw ioctl's on that thread's own file
 *    (/proc/<pid>/task/<tid>/stackinfo, tid 0), SP included where stable;
 *  - a child of fork() and one of _Fork() are answered about themselves;
 *  - a uid-1000 child is answered about itself, and refused root's
 *    process (EACCES, as the kernel refuses it root's maps).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define SELF_FILE "/proc/self/stackinfo"

/* The raw ioctl on @pid's task file of @tid, asked about tid 0 (its thread). */
static int raw_task(pid_t pid, pid_t tid, struct stackinfo_query *q)
{
	char path[64];
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stackinfo", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = si_module_query(fd, 0, 0, q);
	close(fd);
	return err;
}

/* The library's answer for @tid (0: self), which must be the proc backend's. */
static int lib(const char *what, pid_t tid, struct stackinfo_query *q)
{
	int err = stackinfo_query_thread(tid, 0, q);

	CHECK(!err, "%s: %s", what, strerror(-err));
	CHECK(err || STACKINFO_LIB_ANSWERED_BY(q) == STACKINFO_BACKEND_PROC,
	      "%s: answered by %s", what, stackinfo_backend_name(STACKINFO_LIB_ANSWERED_BY(q)));
	return err;
}

/* Equal answers; @sp: the SP and its VMA too (a thread that sleeps). */
static void same(const char *what, const struct stackinfo_query *a,
		 const struct stackinfo_query *b, bool sp)
{
	const uint32_t kernel_flags = ~STACKINFO_THREAD_USER_MASK;
	uint64_t groups = ~(uint64_t)0;

	if (!sp)
		groups &= ~(uint64_t)(STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA |
				      STACKINFO_VALID_SP_PREV | STACKINFO_VALID_SP_GUARD |
				      T_VALID_WITH_SP_VER2);
	CHECK((a->valid & groups) == (b->valid & groups), "%s: valid %#llx, raw %#llx", what,
	      (unsigned long long)a->valid, (unsigned long long)b->valid);
	CHECK(a->out_tid == b->out_tid && a->tgid == b->tgid &&
	      (a->thread_flags & kernel_flags) == (b->thread_flags & kernel_flags),
	      "%s: tid %u/%u tgid %u/%u flags %#x/%#x", what, a->out_tid, b->out_tid, a->tgid,
	      b->tgid, a->thread_flags, b->thread_flags);
	CHECK(a->start_stack == b->start_stack && a->main_vma_start == b->main_vma_start &&
	      a->main_vma_end == b->main_vma_end && a->main_vma_flags == b->main_vma_flags &&
	      a->main_prev_end == b->main_prev_end, "%s: main stack", what);
	CHECK(a->rlim_stack_cur == b->rlim_stack_cur && a->rlim_stack_max == b->rlim_stack_max &&
	      a->guard_gap == b->guard_gap, "%s: rlimit, guard gap", what);
	if (sp)
		CHECK(a->sp == b->sp && a->sp_vma_start == b->sp_vma_start &&
		      a->sp_vma_end == b->sp_vma_end && a->sp_guard_start == b->sp_guard_start &&
		      a->sp_guard_end == b->sp_guard_end, "%s: SP %#llx, raw %#llx", what,
		      (unsigned long long)a->sp, (unsigned long long)b->sp);
}

/* ---- the caller, a worker, and the raw file's tid 0 ---- */

static pthread_barrier_t ready, done;
static pid_t worker_tid;

static void *worker(void *arg)
{
	struct stackinfo_query q, r;
	int fd, err;

	(void)arg;
	worker_tid = gettid();
	/* raw: tid 0 of /proc/self/stackinfo is the leader, not this worker */
	fd = open(SELF_FILE, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, SELF_FILE ": %s", strerror(errno));
	err = fd < 0 ? -EBADF : si_module_query(fd, 0, STACKINFO_QUERY_NO_SP, &r);
	CHECK(!err && r.out_tid == (uint32_t)getpid() && !(r.thread_flags & STACKINFO_THREAD_SELF),
	      "raw tid 0 from a worker: %d, tid %u (leader %d)", err, r.out_tid, (int)getpid());
	if (fd >= 0)
		close(fd);
	if (!lib("worker, itself", 0, &q)) {
		CHECK(q.out_tid == (uint32_t)worker_tid && (q.thread_flags & STACKINFO_THREAD_SELF),
		      "worker, itself: tid %u, want %d", q.out_tid, (int)worker_tid);
		if (!raw_task(getpid(), worker_tid, &r))
			same("worker, itself", &q, &r, false);
	}
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	return NULL;
}

static void own_process(void)
{
	struct stackinfo_query q, r;
	pthread_t th;

	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&th, NULL, worker, NULL);
	pthread_barrier_wait(&ready);
	if (!lib("main, itself", 0, &q)) {
		CHECK(q.out_tid == (uint32_t)getpid() && (q.thread_flags & STACKINFO_THREAD_SELF) &&
		      (q.thread_flags & STACKINFO_THREAD_MAIN), "main, itself: tid %u flags %#x",
		      q.out_tid, q.thread_flags);
		CHECK(!raw_task(getpid(), getpid(), &r), "raw, main");
		same("main, itself", &q, &r, false);
	}
	CHECK(!t_wait_sleeping(worker_tid), "worker never slept");
	if (!lib("main, the worker", worker_tid, &q) && !raw_task(getpid(), worker_tid, &r))
		same("main, the worker", &q, &r, true);
	pthread_barrier_wait(&done);
	pthread_join(th, NULL);
}

/* ---- another process ---- */

static void other_process(void)
{
	struct stackinfo_query q, r;
	int fd, p[2], err;
	pid_t child;
	char c;

	CHECK(!pipe(p), "pipe");
	child = fork();
	if (child == 0) {
		close(p[0]);
		close(p[1]);	/* its EOF says: ready, asleep next */
		pause();
		_exit(0);
	}
	close(p[1]);
	CHECK(read(p[0], &c, 1) == 0, "child's pipe");
	close(p[0]);
	CHECK(!t_wait_sleeping(child), "child never slept");
	/* raw: not a thread of /proc/self/stackinfo's process */
	fd = open(SELF_FILE, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : si_module_query(fd, child, 0, &r);
	CHECK(err == -ESRCH, "raw: another process's tid on " SELF_FILE ": %d", err);
	if (fd >= 0) {
		err = si_module_query_proof(fd, getpid(), 0, fd, &r);
		CHECK(err == -EINVAL, "raw: PROOF_FD: %d", err);
		close(fd);
	}
	if (!lib("another process", child, &q) && !raw_task(child, child, &r)) {
		CHECK(q.tgid == (uint32_t)child, "another process: tgid %u", q.tgid);
		same("another process", &q, &r, true);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* ---- children, and an ordinary user ---- */

static int child_self(void)
{
	struct stackinfo_query q;

	if (!lib("child, itself", 0, &q))
		CHECK(q.tgid == (uint32_t)getpid() && q.out_tid == (uint32_t)gettid() &&
		      (q.thread_flags & STACKINFO_THREAD_SELF), "child, itself: tid %u tgid %u",
		      q.out_tid, q.tgid);
	return t_result();
}

static int as_user(void)
{
	struct stackinfo_query q;
	pid_t root = getppid();
	int err;

	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000)) {
		fprintf(stderr, "FAIL: uid 1000: %s\n", strerror(errno));
		return 1;
	}
	prctl(PR_SET_DUMPABLE, 1);
	child_self();
	err = stackinfo_query_thread(root, STACKINFO_QUERY_NO_SP, &q);
	CHECK(err == -EACCES, "uid 1000 about root's process: %d (%s)", err, strerror(-err));
	return t_result();
}

static void children(void)
{
	int status;
	pid_t pid;

	t_in_child("a fork() child", child_self);
	fflush(NULL);
	pid = _Fork();
	if (pid == 0) {
		t_failures = 0;	/* the parent's are not the child's */
		_exit(child_self());
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "a _Fork() child: failed");
	t_in_child("uid 1000", as_user);
}

int main(void)
{
	int b;

	if (access(SELF_FILE, F_OK)) {
		fprintf(stderr, "no %s: a kernel without CONFIG_PROC_STACKINFO\n", SELF_FILE);
		return T_SKIP;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	b = stackinfo_backend();
	fprintf(stderr, "backend %s, module %s\n", stackinfo_backend_name(b),
		access(STACKINFO_PROC_PATH, F_OK) ? "absent" : "loaded");
	CHECK(b == STACKINFO_BACKEND_PROC, "default backend %s with %s",
	      stackinfo_backend_name(b), SELF_FILE);
	if (b != STACKINFO_BACKEND_PROC)
		return t_result();
	own_process();
	other_process();
	children();
	return t_result();
}
