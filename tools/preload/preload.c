// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo-preload.so: LD_PRELOAD it and pthread_getattr_np() on the
 * main thread is answered by libstackinfo (one ioctl with the module,
 * PROCMAP_QUERY or a maps parse without it); every other call, and any
 * case the library does not recognise, goes to glibc's own.
 *
 * STACKINFO_PRELOAD_STATS=1 prints, when each process exits, the C
 * library's version and how many calls asked about the main thread
 * (answered by the library, by glibc) and about other threads, and, where
 * the library leaves every main-thread call to glibc, why ("library off:
 * REASON"), on stderr; =/PATH appends that line to PATH
 * instead (never through a symlink). Unset, the calls count nothing. In a
 * setuid or otherwise AT_SECURE program (the interposer may be in
 * /etc/ld.so.preload) the variable is ignored: nothing is written.
 *
 * Nothing else is interposed; pthread_getstack_np() is exported as well,
 * for programs that call it, where the C library has none (see below).
 * The answer of pthread_getattr_np() for the main thread makes only
 * the system calls glibc's own makes (openat, read, close, prlimit64,
 * sched_getaffinity; PROCMAP_QUERY's ioctl only where no seccomp filter
 * can meet it: lib.c, si_ioctl_unfiltered()), and it keeps no file open
 * between calls (libstackinfo(3), SYSTEM CALLS).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "internal.h"

/* this copy of the library runs inside the interposer: see internal.h */
const int si_interposing = 1;

/*
 * pthread_getstack_np() for programs that call it where the C library has
 * none (glibc 2.36 has none): the library's, exported from here too
 * (preload.map); a C library that has one answers instead (getstack.c).
 */
__attribute__((used)) static int (*const keep_getstack)(pthread_t, void **__restrict,
		size_t *__restrict) = pthread_getstack_np;

static const char *stats_to;	/* NULL: no statistics */
static unsigned long counts[SI_ANSWERS];

static void stats_child(void)
{
	/* each process reports its own calls */
	memset(counts, 0, sizeof(counts));
}

__attribute__((constructor)) static void stats_init(void)
{
	const char *env = secure_getenv("STACKINFO_PRELOAD_STATS");

	if (getauxval(AT_SECURE) || !env || !*env || !strcmp(env, "0"))
		return;
	stats_to = env;
	pthread_atfork(NULL, NULL, stats_child);
}

__attribute__((destructor)) static void stats_report(void)
{
	const char *off = si_getattr_off();
	unsigned long lib, glibc, other;
	char line[300];
	int fd = 2, len;

	if (!stats_to)
		return;
	lib = __atomic_load_n(&counts[SI_ANSWER_MAIN_LIBRARY], __ATOMIC_RELAXED);
	glibc = __atomic_load_n(&counts[SI_ANSWER_MAIN_GLIBC], __ATOMIC_RELAXED);
	other = __atomic_load_n(&counts[SI_ANSWER_OTHER], __ATOMIC_RELAXED);
	len = snprintf(line, sizeof(line),
		       "stackinfo-preload: pid %d: glibc %s: pthread_getattr_np main %lu (library %lu, glibc %lu) other %lu%s%s\n",
		       (int)getpid(), gnu_get_libc_version(), lib + glibc, lib, glibc, other,
		       off ? "; library off: " : "", off ? off : "");
	if (len < 0)
		return;
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;	/* cut, its newline too */
	if (*stats_to == '/')
		fd = open(stats_to, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY |
			  O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, len) != len) {
		/* nothing to be done at exit */
	}
	if (fd != 2)
		close(fd);
}

__attribute__((visibility("default")))
int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
	enum si_answer how;
	int ret = si_pthread_getattr_np(thread, attr, &how);

	if (stats_to)
		__atomic_fetch_add(&counts[how], 1, __ATOMIC_RELAXED);
	return ret;
}
