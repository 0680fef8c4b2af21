// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An unprivileged parent asks about its non-dumpable child while root
 * attaches to and detaches from that child in a loop (PTRACE_SEIZE, then
 * PTRACE_DETACH or the tracer's exit). ptrace_attach() sets
 * ->ptrace before it links the tracer as ->parent, and __ptrace_unlink()
 * puts ->parent back to the real parent before it clears ->ptrace: a
 * lockless look at "who traces it" sees the real parent as its tracer in
 * both windows. The kernel refuses this parent the child's maps and
 * syscall throughout; so must the module, every time. Under Yama 0 (the
 * scope where root attaches freely), restored afterwards.
 *
 * Fails on any answer, and when too few attaches or queries ran for the
 * windows to have been crossed (the review saw 21 483 answers in 20
 * million queries during 73 535 attaches; the module before the fix
 * answered 1 987 of 1.3 million, one in 650: 3 000 queries would have
 * caught it with odds of 99 %). A query about another process opens
 * and reads two /proc files, 15 ms each on a KASAN kernel under TCG on
 * a loaded host: the parent queries for RUN_SECS at least, then until
 * both minimums are met (race.h: the cap, its progress in the log), root
 * counting its attaches in memory the two share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "race.h"
#include "testutil.h"

#define USER_UID	1000
#define RUN_SECS	8
#define MIN_ATTACHES	300
#define MIN_QUERIES	3000

/* root's attach/detach cycles, which the parent's loop waits for */
static unsigned long *attaches;

/* The parent's side: uid 1000, its non-dumpable child, the queries. */
static int parent_side(int to_root, int from_root)
{
	unsigned long queries = 0, answers = 0, other = 0;
	struct stackinfo_query q;
	int fd, err, maps, sys;
	struct t_race r;
	pid_t child;
	char c;

	if (setresgid(USER_UID, USER_UID, USER_UID) || setresuid(USER_UID, USER_UID, USER_UID))
		return 1;
	prctl(PR_SET_DUMPABLE, 1);
	child = fork();
	if (child == 0) {
		prctl(PR_SET_DUMPABLE, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	usleep(100000);
	fd = si_open();
	maps = proc_readable(child, "maps");
	sys = proc_readable(child, "syscall");
	CHECK(maps == -EACCES && sys == -EACCES, "the kernel gives the parent maps %d syscall %d",
	      maps, sys);
	if (write(to_root, &child, sizeof(child)) != sizeof(child))
		return 1;
	if (read(from_root, &c, 1) != 1)	/* the attach loop runs */
		return 1;
	t_race_begin(&r, "queries of a non-dumpable child being attached to", RUN_SECS);
	t_race_case(&r, "queries by the parent", &queries, MIN_QUERIES);
	t_race_case(&r, "attach/detach cycles by root", attaches, MIN_ATTACHES);
	while (t_race_more(&r)) {
		err = si_module_query(fd, child, 0, &q);
		queries++;
		if (!err)
			answers++;
		else if (err != -EACCES)
			other++;
	}
	c = 's';
	if (write(to_root, &c, 1) != 1)
		return 1;
	t_race_end(&r);
	printf("tracer_race: %lu queries by the parent, %lu answered, %lu other errors\n",
	       queries, answers, other);
	CHECK(answers == 0, "the parent was answered %lu times about its non-dumpable child",
	      answers);
	CHECK(other == 0, "%lu errors other than EACCES", other);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return t_result();
}

int main(void)
{
	int up[2], down[2], status, scope, flags;
	unsigned long refused = 0, rounds = 0;
	pid_t parent, child, t;
	char c = 'g';

	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	attaches = mmap(NULL, sizeof(*attaches), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (attaches == MAP_FAILED)
		return 1;
	scope = t_yama_scope();
	if (scope > 0)
		CHECK(!t_set_yama_scope(0), "ptrace_scope 0");
	if (pipe(up) || pipe(down))
		return 1;
	fflush(stdout);
	parent = fork();
	if (parent == 0) {
		close(up[0]);
		close(down[1]);
		_exit(parent_side(up[1], down[0]));
	}
	close(up[1]);
	close(down[0]);
	CHECK(read(up[0], &child, sizeof(child)) == sizeof(child), "the child's pid");
	CHECK(write(down[1], &c, 1) == 1, "go");
	flags = fcntl(up[0], F_GETFL);
	fcntl(up[0], F_SETFL, flags | O_NONBLOCK);
	/*
	 * root, until the parent is done: attach, stop, detach (every eighth
	 * round the tracer is a child that exits instead, which detaches too)
	 */
	while (read(up[0], &c, 1) != 1) {
		if (++rounds % 8 == 0) {
			t = fork();
			if (t == 0)
				_exit(ptrace(PTRACE_SEIZE, child, 0, 0) ? 1 : 0);
			if (t < 0 || waitpid(t, &status, 0) != t)
				break;
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				T_RACE_INC(*attaches);
			else
				refused++;
			continue;
		}
		if (ptrace(PTRACE_SEIZE, child, 0, 0)) {
			refused++;
			continue;
		}
		status = 0;
		if (ptrace(PTRACE_INTERRUPT, child, 0, 0) ||
		    waitpid(child, &status, __WALL) != child ||
		    ptrace(PTRACE_DETACH, child, 0, 0)) {
			int err = errno;
			char state = t_proc_state(child);

			/* the parent is done and has killed it meanwhile */
			if (!state || state == 'Z' || state == 'X' ||
			    (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
				break;
			CHECK(0, "interrupt/wait/detach: %s (state %c)", strerror(err),
			      state);
			break;
		}
		T_RACE_INC(*attaches);
	}
	CHECK(waitpid(parent, &status, 0) == parent && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "the parent's side failed");
	printf("tracer_race: %lu attach/detach cycles by root, %lu refused\n", *attaches, refused);
	if (scope > 0)
		t_set_yama_scope(scope);
	return t_result();
}
