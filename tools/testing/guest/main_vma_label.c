// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * main_vma is the VMA /proc/<pid>/maps labels [stack]. The kernel's
 * predicate (vma_is_initial_stack() on 6.12 and 7.2, is_stack() on 5.10
 * and 6.1) is vm_start <= start_stack && vm_end >= start_stack: a VMA
 * that ends exactly at start_stack is [stack] too. That happens when
 * start_stack is page-aligned (one exec in 256 with ASLR) and what was
 * above it is unmapped or split off; here it is made deterministic: the
 * test execs itself with ADDR_NO_RANDOMIZE and an environment whose size
 * puts start_stack on a page boundary (measured by a first exec), and the
 * child then
 *  - "unmap": unmaps its stack from start_stack up (argc, argv, envp,
 *    auxv and their strings, which it no longer touches): maps labels
 *    the VMA below, which ends at start_stack, [stack], and main_vma must
 *    be that VMA;
 *  - "split": makes the part from start_stack up read-only: maps labels
 *    both halves [stack], and main_vma must be one of them, the one
 *    holding start_stack (stackinfo(4) says so).
 * Both are compared with /proc/<pid>/maps read in the same state.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define REPORT_FD	3	/* the child's pipe to the test */
#define PAD_MIN		64
#define TRIES		8

/* ---- the child: exec'd with ADDR_NO_RANDOMIZE, REPORT_FD open ---- */

static int child(const char *mode)
{
	uint64_t ss = t_stat_start_stack(), lo, hi;
	long page = sysconf(_SC_PAGESIZE);
	char ok = 1;

	if (!strcmp(mode, "probe")) {
		if (write(REPORT_FD, &ss, sizeof(ss)) != sizeof(ss))
			return 1;
		return 0;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (!ss || ss % page || maps_stack(0, &lo, &hi) || !(lo < ss && ss < hi))
		ok = 0;
	/* from here on nothing reads argv, the environment or the auxv */
	if (ok && !strcmp(mode, "unmap"))
		ok = !munmap((void *)(uintptr_t)ss, hi - ss);
	else if (ok)
		ok = !mprotect((void *)(uintptr_t)ss, hi - ss, PROT_READ);
	if (write(REPORT_FD, &ok, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* ---- the test ---- */

/*
 * Fork and exec this program as "child @mode", ADDR_NO_RANDOMIZE, with
 * PAD=<@pad bytes> its whole environment; *@rd: the read end of its
 * REPORT_FD. Its pid, or -1.
 */
static pid_t spawn(const char *mode, size_t pad, int *rd)
{
	char *env[2] = { NULL, NULL };
	char *argv[] = { "main_vma_label", "child", (char *)mode, NULL };
	int p[2];
	pid_t pid;

	env[0] = malloc(pad + 5);
	if (!env[0] || pipe(p))
		return -1;
	memcpy(env[0], "PAD=", 4);
	memset(env[0] + 4, 'x', pad);
	env[0][pad + 4] = '\0';
	pid = fork();
	if (pid == 0) {
		if (dup2(p[1], REPORT_FD) != REPORT_FD ||
		    personality(ADDR_NO_RANDOMIZE) < 0)
			_exit(1);
		execve("/proc/self/exe", argv, env);
		_exit(1);
	}
	close(p[1]);
	free(env[0]);
	*rd = p[0];
	return pid;
}

/* start_stack of an exec with @pad bytes of environment, 0 if none. */
static uint64_t probe(size_t pad)
{
	uint64_t ss = 0;
	int rd, status;
	pid_t pid = spawn("probe", pad, &rd);

	if (pid < 0)
		return 0;
	if (read(rd, &ss, sizeof(ss)) != sizeof(ss))
		ss = 0;
	close(rd);
	waitpid(pid, &status, 0);
	return ss;
}

/* The pad that puts start_stack on a page boundary, 0 if none was found. */
static size_t aligned_pad(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pad = PAD_MIN;
	uint64_t ss;
	int i;

	for (i = 0; i < TRIES; i++) {
		ss = probe(pad);
		if (!ss)
			return 0;
		if (!(ss % page))
			return pad;
		/* more environment moves start_stack down by as much */
		pad += ss % page;
	}
	return 0;
}

/* The [stack] lines of @pid's maps into @v (at most @max): how many. */
static int stack_lines(pid_t pid, struct maps_entry *v, int max)
{
	struct maps m = { 0 };
	int n = 0;
	size_t i;

	if (maps_read(&m, pid))
		return -1;
	for (i = 0; i < m.n; i++)
		if (!strcmp(m.v[i].name, "[stack]") && n < max)
			v[n++] = m.v[i];
	maps_free(&m);
	return n;
}

static void one_layout(const char *mode, size_t pad, int fd)
{
	struct maps_entry st[4];
	struct stackinfo_query q;
	int rd, n, err, i, named = -1;
	char ok = 0;
	pid_t pid = spawn(mode, pad, &rd);

	CHECK(pid > 0, "%s: spawn", mode);
	if (pid <= 0)
		return;
	CHECK(read(rd, &ok, 1) == 1 && ok, "%s: the child could not make its layout", mode);
	close(rd);
	if (ok) {
		err = si_module_query(fd, pid, STACKINFO_QUERY_NO_SP, &q);
		n = stack_lines(pid, st, 4);
		CHECK(!err, "%s: query: %s", mode, strerror(-err));
		for (i = 0; i < n; i++) {
			printf("info: %s: maps [stack] %#llx-%#llx (start_stack %#llx)\n", mode,
			       (unsigned long long)st[i].start, (unsigned long long)st[i].end,
			       (unsigned long long)q.start_stack);
			if ((q.valid & STACKINFO_VALID_MAIN_VMA) &&
			    q.main_vma_start == st[i].start && q.main_vma_end == st[i].end)
				named = i;
		}
		CHECK(n == (!strcmp(mode, "unmap") ? 1 : 2), "%s: %d [stack] lines", mode, n);
		CHECK(named >= 0, "%s: main_vma %s%#llx-%#llx is no [stack] line of maps", mode,
		      q.valid & STACKINFO_VALID_MAIN_VMA ? "" : "(not valid) ",
		      (unsigned long long)q.main_vma_start, (unsigned long long)q.main_vma_end);
		/* of two, the one holding start_stack */
		if (named >= 0 && n == 2)
			CHECK(st[named].start == q.start_stack, "%s: main_vma does not hold start_stack",
			      mode);
	}
	t_reap(pid);
}

int main(int argc, char **argv)
{
	size_t pad;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(argv[2]);
	fd = si_open();
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", STACKINFO_PROC_PATH, strerror(-fd));
		return T_SKIP;
	}
	pad = aligned_pad();
	CHECK(pad, "no environment size puts start_stack on a page boundary");
	if (pad) {
		printf("info: PAD of %zu bytes puts start_stack on a page\n", pad);
		one_layout("unmap", pad, fd);
		one_layout("split", pad, fd);
	}
	close(fd);
	return t_result();
}
