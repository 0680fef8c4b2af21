// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The batch decides each thread's SP on its own, as /proc/<tid>/syscall
 * does. Under Yama's ptrace_scope 1 the kernel's ATTACH check is a
 * thread's: ptracer_exception_found() looks at ptrace_parent() of the
 * thread asked about. A uid-1000 process C that is no ancestor of P,
 * another uid-1000 process, traces one thread of P (P names C with
 * PR_SET_PTRACER for the attach and takes that back): the kernel lets C
 * read that thread's syscall and refuses it every other thread's. C's
 * batch of P must give the SP, and what comes with it (the SP's VMA, its
 * guard, the sigaltstack, the stack kind), for exactly the threads whose
 * syscall C may read, each entry as C's single query of that thread; the
 * traced thread is the leader (the first the batch asks) and then a
 * worker (a thread refused first must not withhold a later one's SP).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define USER_UID 1000
#define WORKERS 3
#define THREADS (WORKERS + 1)

/* what comes with the SP: never without it */
#define WITH_SP	(STACKINFO_VALID_SP_VMA | STACKINFO_VALID_SP_PREV | \
		 STACKINFO_VALID_SP_GUARD | STACKINFO_VALID_ALTSTACK | \
		 STACKINFO_VALID_STACK_KIND)

/* P's commands: 'p' PR_SET_PTRACER the pid given, 'r' take it back */
struct cmd {
	char op;
	pid_t pid;
};

static void target(int cmd_fd, int ack_fd)
{
	pthread_t th;
	struct cmd c;
	int i, err;

	t_become_user(USER_UID);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (i = 0; i < WORKERS; i++)
		if (pthread_create(&th, NULL, t_pause_forever, NULL))
			_exit(1);
	while (read(cmd_fd, &c, sizeof(c)) == sizeof(c)) {
		err = prctl(PR_SET_PTRACER, c.op == 'p' ? (unsigned long)c.pid : 0UL) ?
			      errno : 0;
		if (write(ack_fd, &err, sizeof(err)) != sizeof(err))
			_exit(1);
	}
	_exit(0);
}

static int tell(int cmd_fd, int ack_fd, char op, pid_t pid)
{
	struct cmd c = { op, pid };
	int err;

	if (write(cmd_fd, &c, sizeof(c)) != sizeof(c) ||
	    read(ack_fd, &err, sizeof(err)) != sizeof(err))
		return -EPIPE;
	return -err;
}

static int detach(pid_t tid)
{
	int status;

	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0))
		return -errno;
	if (waitpid(tid, &status, __WALL) != tid)
		return -errno;
	return ptrace(PTRACE_DETACH, tid, 0, 0) ? -errno : 0;
}

static int index_of(const pid_t *tids, int n, uint32_t tid)
{
	int i;

	for (i = 0; i < n; i++)
		if ((uint32_t)tids[i] == tid)
			return i;
	return -1;
}

/* C traces thread @traced of @p; its batch against the kernel's syscall. */
static void one_case(int fd, pid_t p, const pid_t *tids, int traced, int cmd_fd, int ack_fd)
{
	struct stackinfo_query arr[THREADS + 4], q;
	struct stackinfo_threads a;
	int sys[THREADS], i, err, per_thread = 1;
	const char *what = traced ? "a worker traced" : "the leader traced";

	CHECK_EQ(tell(cmd_fd, ack_fd, 'p', getpid()), 0);
	err = ptrace(PTRACE_SEIZE, tids[traced], 0, 0) ? -errno : 0;
	CHECK(!err, "%s: PTRACE_SEIZE %d: %s", what, tids[traced], strerror(-err));
	CHECK_EQ(tell(cmd_fd, ack_fd, 'r', 0), 0);
	if (err)
		return;

	/* the kernel's answer, thread by thread, to this caller */
	for (i = 0; i < THREADS; i++) {
		sys[i] = proc_readable(tids[i], "syscall");
		CHECK(!proc_readable(tids[i], "maps"), "%s: maps of %d refused", what, tids[i]);
		if (!sys[i] != (i == traced))
			per_thread = 0;
	}
	CHECK(per_thread, "%s: the kernel's syscall is not the traced thread's alone", what);

	err = t_threads_call(fd, p, &a, arr, THREADS + 4);
	CHECK(!err, "%s: batch: %s", what, strerror(-err));
	if (err)
		goto out;
	CHECK(a.count == THREADS, "%s: %u entries, %d threads", what, a.count, THREADS);
	for (i = 0; i < (int)a.count && i < THREADS + 4; i++) {
		const struct stackinfo_query *e = &arr[i];
		int k = index_of(tids, THREADS, e->out_tid);
		int sp = !!(e->valid & STACKINFO_VALID_SP);

		CHECK(k >= 0, "%s: entry %d: tid %u is none of P's", what, i, e->out_tid);
		if (k < 0)
			continue;
		printf("cell: %-22s tid %-6u %-8s syscall %-8s | batch %s\n", what, e->out_tid,
		       k == traced ? "traced" : "", sys[k] ? "refused" : "yes",
		       sp ? "VMAs+SP" : "VMAs");
		CHECK(sp == !sys[k], "%s: batch entry for tid %u: SP %s, the kernel %s it /proc/%u/syscall",
		      what, e->out_tid, sp ? "given" : "withheld", sys[k] ? "refuses" : "gives",
		      e->out_tid);
		CHECK(sp || !(e->valid & WITH_SP), "%s: tid %u: valid %#llx without the SP", what,
		      e->out_tid, (unsigned long long)e->valid);
		CHECK(e->valid & STACKINFO_VALID_MAIN_VMA, "%s: tid %u: no VMAs", what, e->out_tid);
		/* the single query of the same thread, asked alone */
		err = si_module_query(fd, e->out_tid, 0, &q);
		CHECK(!err, "%s: query of %u: %s", what, e->out_tid, strerror(-err));
		CHECK(err || q.valid == e->valid, "%s: tid %u: batch valid %#llx, single %#llx",
		      what, e->out_tid, (unsigned long long)e->valid, (unsigned long long)q.valid);
	}
out:
	err = detach(tids[traced]);
	CHECK(!err, "%s: detach: %s", what, strerror(-err));
}

static void tracer(pid_t p, int cmd_fd, int ack_fd)
{
	pid_t tids[THREADS];
	int fd, n;

	t_become_user(USER_UID);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = si_open();
	if (fd < 0)
		_exit(1);
	n = t_task_tids(p, tids, THREADS);
	CHECK(n == THREADS, "P has %d threads, not %d", n, THREADS);
	if (n == THREADS) {
		one_case(fd, p, tids, 0, cmd_fd, ack_fd);
		one_case(fd, p, tids, 2, cmd_fd, ack_fd);
	}
	close(fd);
	fflush(stdout);
	_exit(t_result());
}

int main(void)
{
	int cmd[2], ack[2], status, scope;
	pid_t p, c;

	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	scope = t_yama_scope();
	if (scope < 0) {
		printf("SKIP: no Yama: no ATTACH check decided per thread\n");
		return T_SKIP;
	}
	CHECK(!t_set_yama_scope(1), "ptrace_scope 1: %s", strerror(errno));
	CHECK(!pipe(cmd) && !pipe(ack), "pipe");
	/* P and C: siblings, neither the other's ancestor */
	p = fork();
	if (p == 0) {
		close(cmd[1]);
		close(ack[0]);
		target(cmd[0], ack[1]);
	}
	CHECK(p > 0, "fork P");
	close(cmd[0]);
	close(ack[1]);
	/* started when /proc lists them all */
	for (int i = 0; p > 0 && i < 5000 && t_task_tids(p, NULL, 0) != THREADS; i++)
		usleep(1000);
	fflush(NULL);
	c = fork();
	if (c == 0)
		tracer(p, cmd[1], ack[0]);
	CHECK(c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "the tracer's cases");
	close(cmd[1]);
	close(ack[0]);
	t_reap(p);
	CHECK(!t_set_yama_scope(scope), "restore ptrace_scope %d", scope);
	return t_result();
}
