// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A privileged tracer that forks an unprivileged worker must not hand it
 * an fd of another process's memory. As root: ask the library about
 * another process (pid 1 and a child of ours), check the answer against
 * that process's /proc/<pid>/maps, then fork; the child drops to uid 1000
 * and lists /proc/self/fd: no fd of any /proc/<pid>/mem or auxv may be
 * there (nor in the parent: the library opens no proof at all), nor of
 * another process's in-tree /proc/<pid>/stackinfo (the proc backend opens
 * that for one call; an fd of it kept would answer for that process).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

/* Does /proc/<pid>/...stackinfo name another process than this one? */
static bool others_stackinfo(const char *target)
{
	size_t len = strlen(target);

	/* /proc/<pid>/[task/<tid>/]stackinfo, not the module's /proc/stackinfo */
	return len > 10 && !strcmp(target + len - 10, "/stackinfo") &&
	       target[6] >= '0' && target[6] <= '9' && atoi(target + 6) != getpid();
}

/* fds of this process naming a /proc/<pid>/mem, auxv or another's stackinfo: how many */
static int proof_fds(const char *who)
{
	char path[300], target[300];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (!strncmp(target, "/proc/", 6) &&
		    (strstr(target, "/mem") || strstr(target, "/auxv") ||
		     others_stackinfo(target))) {
			fprintf(stderr, "%s: fd %s -> %s\n", who, e->d_name, target);
			n++;
		}
	}
	closedir(d);
	return n;
}

static void ask(pid_t pid)
{
	struct stackinfo_query q;
	struct maps m = { 0 };
	const struct maps_entry *e;
	int err = stackinfo_query_thread(pid, STACKINFO_QUERY_NO_SP, &q);

	CHECK(!err, "process %d: %s", (int)pid, strerror(-err));
	if (err)
		return;
	CHECK(!maps_read(&m, pid), "process %d: maps", (int)pid);
	e = maps_find(&m, q.start_stack, NULL);
	CHECK(e && (q.valid & STACKINFO_VALID_MAIN_VMA) && e->start == q.main_vma_start &&
	      e->end == q.main_vma_end, "process %d: main VMA %#llx-%#llx, maps %#llx-%#llx",
	      (int)pid, (unsigned long long)q.main_vma_start,
	      (unsigned long long)q.main_vma_end, e ? (unsigned long long)e->start : 0ULL,
	      e ? (unsigned long long)e->end : 0ULL);
	maps_free(&m);
}

int main(void)
{
	pid_t target, child;
	int status;

	if (geteuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	target = fork();
	if (target == 0) {
		pause();
		_exit(0);
	}
	fprintf(stderr, "backend %s\n", stackinfo_backend_name(stackinfo_backend()));
	ask(1);
	ask(target);
	CHECK(proof_fds("root, after asking") == 0, "the library keeps a proof fd");

	fflush(NULL);
	child = fork();
	if (child == 0) {
		if (setgid(1000) || setuid(1000))
			_exit(2);
		_exit(proof_fds("child, uid 1000") ? 1 : 0);
	}
	CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "the unprivileged child holds a proof fd (status %#x)",
	      status);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	return t_result();
}
