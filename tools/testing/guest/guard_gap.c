// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The guard gap the module reports, held against what the kernel does with
 * it (make check boots one guest with a stack_guard_gap= of its own): the
 * main stack may not grow to within the gap of an accessible mapping below
 * it, may grow to exactly the gap, and may grow up to a PROT_NONE mapping
 * whatever the gap (expand_downwards() in 6.1's mm/mmap.c and 7.2's
 * mm/vma.c). Each growth is tried in a child that catches its SIGSEGV on a
 * sigaltstack. Then the module loaded with stack_guard_gap=N reports N
 * pages (it is loaded again as it was after).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static long page;

static void on_segv(int sig)
{
	(void)sig;
	_exit(2);
}

/*
 * In a child: map a page of @prot whose end lies @gap + 2 pages below the
 * main stack's VMA, then touch the stack @below pages under the VMA's
 * start. The child's exit: 0 grown, 2 SIGSEGV, 1 trouble.
 */
static int try_growth(uint64_t gap, int prot, int below)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		static char alt[64 * 1024];
		stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
		struct sigaction sa = { .sa_handler = on_segv, .sa_flags = SA_ONSTACK };
		const struct maps_entry *m;
		struct maps maps = { 0 };
		volatile char *touch;
		uint64_t vs;
		char *prev;
		int here;

		if (sigaltstack(&ss, NULL) || sigaction(SIGSEGV, &sa, NULL) ||
		    maps_read(&maps, 0))
			_exit(1);
		m = maps_find(&maps, (uintptr_t)&here, NULL);
		if (!m)
			_exit(1);
		vs = m->start;
		prev = mmap((void *)(uintptr_t)(vs - gap - 3 * page), page, prot,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (prev != (void *)(uintptr_t)(vs - gap - 3 * page))
			_exit(1);
		touch = (volatile char *)(uintptr_t)(vs - below * page);
		*touch = 1;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void behaviour(uint64_t gap)
{
	int rc;

	/* 3 pages below: gap - 1 page from the mapping's end */
	rc = try_growth(gap, PROT_READ, 3);
	CHECK(rc == 2, "growth to a page within the gap (%llu) of a readable mapping: %s",
	      (unsigned long long)gap, rc == 0 ? "it grew" : "trouble");
	rc = try_growth(gap, PROT_READ, 2);
	CHECK(rc == 0, "growth to exactly the gap (%llu) of a readable mapping: %s",
	      (unsigned long long)gap, rc == 2 ? "SIGSEGV" : "trouble");
	rc = try_growth(gap, PROT_NONE, 3);
	CHECK(rc == 0, "growth to within the gap of a PROT_NONE mapping: %s",
	      rc == 2 ? "SIGSEGV" : "trouble");
}

static int reported_gap(uint64_t *gap)
{
	struct stackinfo_query q;
	int fd = si_open(), err;

	if (fd < 0)
		return fd;
	err = si_module_query(fd, 0, 0, &q);
	close(fd);
	if (err)
		return err;
	if (!(q.valid & STACKINFO_VALID_GUARD_GAP))
		return -ENODATA;
	*gap = q.guard_gap;
	return 0;
}

/* The module parameter: stack_guard_gap=77 reports 77 pages. */
static void parameter(void)
{
	uint64_t gap = 0;
	int err;

	if (syscall(SYS_delete_module, "stackinfo", O_NONBLOCK)) {
		CHECK(0, "rmmod stackinfo: %s", strerror(errno));
		return;
	}
	err = t_module_load("stack_guard_gap=77");
	CHECK(!err, "insmod stack_guard_gap=77: %s", strerror(-err));
	if (!err) {
		err = reported_gap(&gap);
		CHECK(!err, "the query: %s", strerror(-err));
		CHECK_EQ(gap, 77 * (uint64_t)page);
		CHECK(!syscall(SYS_delete_module, "stackinfo", O_NONBLOCK), "rmmod: %s",
		      strerror(errno));
	}
	err = t_module_load("");
	CHECK(!err, "insmod again: %s", strerror(-err));
}

int main(void)
{
	uint64_t gap = 0;
	int err;

	page = sysconf(_SC_PAGESIZE);
	err = reported_gap(&gap);
	CHECK(!err, "the guard gap: %s", strerror(-err));
	if (err)
		return t_result();
	CHECK_EQ(gap, cmdline_guard_gap());
	printf("guard gap %llu bytes (%llu pages)\n", (unsigned long long)gap,
	       (unsigned long long)(gap / page));
	behaviour(gap);
	if (!access("/sys/module/stackinfo", F_OK) && !geteuid())
		parameter();
	return t_result();
}
