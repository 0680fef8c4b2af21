// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LD_PRELOAD=libstackinfo-preload.so against glibc alone: getattr-print
 * (pthread_getattr_np of the main thread, asked from it and from a second
 * thread) prints the same with and without the interposer for 24 layouts,
 * rlimits and backends, also when no file can be opened (both fail with
 * EMFILE: the interposer keeps no fd); and the interposer did the work:
 * its count (STACKINFO_PRELOAD_STATS) has the library answering the main
 * thread, wherever its stack is one pthread_attr_setstack() takes. Both
 * runs of a pair have ASLR off and environments of the same size, so
 * their layouts are the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define PRELOAD	"/usr/lib/libstackinfo-preload.so"
#define NOTHING	"/usr/lib/libstackinfo-preload.sX"	/* same length, absent */
#define HELPER	"/usr/bin/getattr-print"
#define STATS	"/tmp/lib_preload.stats"

/* Run the helper; its stdout in @out. 0 or -1. */
static int run(const char *preload, const char *backend, char *const args[],
	       char *out, size_t size)
{
	int p[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		char pre[64], be[64], st[64];
		char *env[] = { pre, be, st, NULL };

		snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", preload);
		/* the same length with and without: the same layout */
		snprintf(st, sizeof(st), "%s=%s",
			 strcmp(preload, PRELOAD) ? "STACKINFO_PRELOAD_STATX" :
						    "STACKINFO_PRELOAD_STATS", STATS);
		/* both runs of a pair have the same environment */
		snprintf(be, sizeof(be), "STACKINFO_BACKEND%s=%s", *backend ? "" : "_UNSET",
			 backend);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		personality(ADDR_NO_RANDOMIZE);
		execve(HELPER, args, env);
		_exit(127);
	}
	close(p[1]);
	while (len < size - 1 && (n = read(p[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

/* the size in getattr-print's "main: stack ADDR size N ..." line */
static size_t main_stack_size(const char *main_line)
{
	const char *p = strstr(main_line, " size ");

	return p ? strtoull(p + 6, NULL, 10) : 0;
}

/* The interposer's count of main-thread answers by the library: -1 if none. */
static long library_answers(void)
{
	char buf[256], *p;
	ssize_t n = si_read_file(STATS, buf, sizeof(buf));

	unlink(STATS);
	p = n > 0 ? strstr(buf, "(library ") : NULL;
	return p ? strtol(p + 9, NULL, 10) : -1;
}

int main(void)
{
	static const char *const below[] = { NULL, "0", "65536", "4194304" };
	static const char *const rlimit[] = { "8388608", "unlimited", "65536" };
	static const char *const backend[] = { "", "maps" };
	size_t b, r, k;

	if (access(PRELOAD, R_OK) || access(HELPER, X_OK)) {
		fprintf(stderr, "%s or %s missing\n", PRELOAD, HELPER);
		return 1;
	}
	for (b = 0; b < 4; b++)
		for (r = 0; r < 3; r++)
			for (k = 0; k < 2; k++) {
				char with[1024], without[1024];
				char *args[12] = { HELPER, "--rlimit", (char *)rlimit[r],
						   "--no-new-fds", "1" };
				int n = 5;
				char *main_line;
				long lib;

				if (below[b]) {
					args[n++] = "--below";
					args[n++] = (char *)below[b];
				}
				args[n] = NULL;
				unlink(STATS);
				CHECK(!run(PRELOAD, backend[k], args, with, sizeof(with)),
				      "with the interposer: below %s rlimit %s backend '%s'",
				      below[b], rlimit[r], backend[k]);
				lib = library_answers();
				CHECK(!run(NOTHING, backend[k], args, without, sizeof(without)),
				      "without: below %s rlimit %s backend '%s'",
				      below[b], rlimit[r], backend[k]);
				CHECK(!strcmp(with, without),
				      "below %s rlimit %s backend '%s':\n--- glibc\n%s--- interposed\n%s",
				      below[b], rlimit[r], backend[k], without, with);
				CHECK(strstr(without, "again: error 24"), "glibc without fds: %s", without);
				main_line = strstr(with, "main: ");
				/*
				 * a stack below PTHREAD_STACK_MIN (glibc's 16 KiB on
				 * x86-64, 128 KiB on arm64), which
				 * pthread_attr_setstack() refuses, is glibc's to
				 * describe (getattr.c)
				 */
				if (main_line &&
				    main_stack_size(main_line) >= (size_t)PTHREAD_STACK_MIN)
					CHECK(lib >= 1,
					      "below %s rlimit %s backend '%s': the library answered %ld of the main thread's calls",
					      below[b], rlimit[r], backend[k], lib);
			}
	return t_result();
}
