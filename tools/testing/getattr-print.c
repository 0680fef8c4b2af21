// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * getattr-print [--rlimit BYTES|unlimited] [--below BYTES] [--maps N]
 *               [--time CALLS]
 *
 * Prints what pthread_getattr_np() says of the main thread, asked from the
 * main thread and from a second thread, one line each: stack address,
 * size, guard size, detach state, policy, priority, first CPU set word.
 * Run with and without LD_PRELOAD=libstackinfo-preload.so, the outputs
 * must be equal. --rlimit sets RLIMIT_STACK's soft limit first; --below
 * maps a page that far below the stack's VMA (0: touching it); --maps adds
 * N single-page mappings; --time prints µs per call instead;
 * --no-new-fds 1 asks once more with RLIMIT_NOFILE allowing no new fd, a
 * call glibc cannot answer (it opens /proc/self/maps), nor the interposer
 * (it keeps no fd).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static pthread_t main_thread;
static char line[2][256];

static int describe(char *out, size_t size)
{
	pthread_attr_t attr;
	struct sched_param param;
	cpu_set_t set;
	size_t stacksize, guard;
	void *addr;
	int detach, policy, ret;

	ret = pthread_getattr_np(main_thread, &attr);
	if (ret) {
		snprintf(out, size, "error %d", ret);
		return ret;
	}
	pthread_attr_getstack(&attr, &addr, &stacksize);
	pthread_attr_getguardsize(&attr, &guard);
	pthread_attr_getdetachstate(&attr, &detach);
	pthread_attr_getschedpolicy(&attr, &policy);
	pthread_attr_getschedparam(&attr, &param);
	CPU_ZERO(&set);
	pthread_attr_getaffinity_np(&attr, sizeof(set), &set);
	pthread_attr_destroy(&attr);
	snprintf(out, size, "stack %p size %zu guard %zu detach %d policy %d prio %d cpus %d",
		 addr, stacksize, guard, detach, policy, param.sched_priority,
		 CPU_COUNT(&set));
	return 0;
}

static void *second(void *arg)
{
	(void)arg;
	describe(line[1], sizeof(line[1]));
	return NULL;
}

/* The [stack] VMA's start, from /proc/self/maps. */
static uintptr_t stack_vma_start(void)
{
	char buf[512];
	unsigned long start = 0, end;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(buf, sizeof(buf), f))
		if (strstr(buf, "[stack]") && sscanf(buf, "%lx-%lx", &start, &end) == 2)
			break;
	if (f)
		fclose(f);
	return start;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), maps = 0, calls = 0, i;
	char again[256] = "";
	int a, no_new_fds = 0;
	pthread_t th;

	main_thread = pthread_self();
	for (a = 1; a + 1 < argc; a += 2) {
		const char *v = argv[a + 1];

		if (!strcmp(argv[a], "--rlimit")) {
			struct rlimit rl;

			getrlimit(RLIMIT_STACK, &rl);
			rl.rlim_cur = strcmp(v, "unlimited") ? strtoull(v, NULL, 0) : RLIM_INFINITY;
			if (setrlimit(RLIMIT_STACK, &rl)) {
				perror("setrlimit");
				return 1;
			}
		} else if (!strcmp(argv[a], "--below")) {
			uintptr_t at = stack_vma_start() - strtoull(v, NULL, 0) - page;

			if (mmap((void *)at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
				 MAP_FIXED_NOREPLACE, -1, 0) != (void *)at) {
				perror("mmap below the stack");
				return 1;
			}
		} else if (!strcmp(argv[a], "--maps")) {
			maps = strtol(v, NULL, 0);
		} else if (!strcmp(argv[a], "--time")) {
			calls = strtol(v, NULL, 0);
		} else if (!strcmp(argv[a], "--no-new-fds")) {
			no_new_fds = atoi(v);
		} else {
			fprintf(stderr, "getattr-print: unknown option %s\n", argv[a]);
			return 2;
		}
	}
	if (maps) {
		char *base = mmap(NULL, maps * page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (base == MAP_FAILED)
			return 1;
		for (i = 1; i < maps; i += 2)
			mprotect(base + i * page, page, PROT_READ);
	}
	if (calls) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < calls; i++)
			if (describe(line[0], sizeof(line[0])))
				return 1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%.2f\n", ((t1.tv_sec - t0.tv_sec) * 1e6 +
				  (t1.tv_nsec - t0.tv_nsec) / 1e3) / calls);
		return 0;
	}
	describe(line[0], sizeof(line[0]));
	pthread_create(&th, NULL, second, NULL);
	pthread_join(th, NULL);
	if (no_new_fds) {
		struct rlimit rl, low;
		int fd = dup(0);	/* the lowest free fd */

		if (fd >= 0)
			close(fd);
		getrlimit(RLIMIT_NOFILE, &rl);
		low = rl;
		low.rlim_cur = fd;
		setrlimit(RLIMIT_NOFILE, &low);
		describe(again, sizeof(again));
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	printf("main: %s\nother: %s\n", line[0], line[1]);
	if (no_new_fds)
		printf("again: %s\n", again);
	return 0;
}
