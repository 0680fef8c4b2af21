// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A ThreadSanitizer program (built with -fsanitize=thread) asks about its
 * main thread through the linked library and, run again with
 * LD_PRELOAD of the interposer, through pthread_getattr_np(): from the
 * main thread itself and from a worker, each answer against glibc's own in
 * the same process. TSan takes any join for a real one (a self-join
 * aborts it: "CHECK failed ... kMaxTid"); the library must read the
 * detach state without one. (TSan aborts the same way on a detach of the
 * main thread, with or without the library: lib_sched covers that state.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define PRELOAD	"/usr/lib/libstackinfo-preload.so"

static t_getattr_fn glibc, lib;
static pthread_t main_thread;
static const char *how;

static void same(const char *what)
{
	struct t_attrs g, s;
	char why[400];
	int i, rg, rs;

	for (i = 0; i < 3; i++) {
		rg = t_getattr(glibc, main_thread, &g);
		rs = t_getattr(lib, main_thread, &s);
		CHECK(rs == rg && (rg || t_attrs_same(&s, &g, why, sizeof(why))),
		      "%s, %s, call %d: library %d, glibc %d %s", how, what, i + 1, rs, rg,
		      rs == rg ? why : "");
	}
}

static void *worker(void *arg)
{
	same(arg);
	return NULL;
}

static void from_worker(const char *what)
{
	pthread_t th;

	CHECK(!pthread_create(&th, NULL, worker, (void *)what), "pthread_create");
	pthread_join(th, NULL);
}

int main(int argc, char **argv)
{
	bool preloaded = argc > 1 && !strcmp(argv[1], "preloaded");

	main_thread = pthread_self();
	glibc = t_glibc_getattr();
	lib = preloaded ? pthread_getattr_np : stackinfo_pthread_getattr_np;
	how = preloaded ? "preloaded" : "linked";
	if (!glibc || (preloaded && lib == glibc)) {
		fprintf(stderr, "glibc's pthread_getattr_np not found, or not preloaded\n");
		return 1;
	}
	same("main thread");
	from_worker("asked by a worker");
	same("main thread again");
	if (!preloaded && !access(PRELOAD, R_OK)) {
		int status;
		pid_t pid;

		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			setenv("LD_PRELOAD", PRELOAD, 1);
			execl("/proc/self/exe", argv[0], "preloaded", (char *)NULL);
			_exit(127);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      !WEXITSTATUS(status), "preloaded run: status %#x", status);
	}
	return t_result();
}
