// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stack-overflow [KIB]: a worker thread with a KIB KiB stack (default 256)
 * and glibc's guard page recurses until it runs into its guard and dies of
 * SIGSEGV. Prints "worker TID" first.
 * stack-overflow main: the main thread recurses until its stack may grow no
 * further (RLIMIT_STACK) and dies of SIGSEGV. A debugger's target (lib_gdb).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* never reached; volatile, so the compiler cannot know that */
static volatile int bottom = -1;

/*
 * No locals: each level is the call's return address and a saved
 * register, so the fault is a push's, with the SP still at the lowest
 * address of its stack (a frame of locals would move the SP into the
 * guard first).
 */
static int depth(int n)
{
	int r;

	if (n == bottom)
		return 0;
	r = depth(n + 1);
	/* not a tail call, nor a loop: each level's frame stays to the fault */
	__asm__ volatile("" : : : "memory");
	return r + 1;
}

static void *worker(void *arg)
{
	(void)arg;
	printf("worker %d\n", (int)gettid());
	fflush(stdout);
	return (void *)(long)depth(0);
}

int main(int argc, char **argv)
{
	long kib = argc > 1 ? atol(argv[1]) : 256;
	pthread_attr_t attr;
	pthread_t th;
	void *ret;

	if (argc > 1 && !strcmp(argv[1], "main"))
		return depth(0);
	if (kib <= 0 || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, (size_t)kib * 1024) ||
	    pthread_create(&th, &attr, worker, NULL)) {
		fprintf(stderr, "stack-overflow: cannot start the worker\n");
		return 2;
	}
	pthread_join(th, &ret);
	return 1;	/* not reached: the worker's SIGSEGV ends the process */
}
