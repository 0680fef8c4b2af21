// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo-demo [MAPPINGS]: a process with MAPPINGS extra mappings
 * (default 5000) shows its stack as /proc/stackinfo reports it, then times
 * glibc's pthread_getattr_np() on the main thread (which parses
 * /proc/self/maps) against one STACKINFO_IOC_QUERY, with getppid() as the
 * floor. `make demo` runs it in a guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/stackinfo.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Calls of @fn until @budget_us has passed (at least @min); µs per call. */
static double time_calls(int (*fn)(void *), void *arg, long min,
			 double budget_us, long *calls)
{
	double start = now_us(), t;
	long n = 0;

	do {
		if (fn(arg)) {
			perror("timed call");
			exit(1);
		}
		n++;
		t = now_us() - start;
	} while (n < min || t < budget_us);
	*calls = n;
	return t / n;
}

static int call_getppid(void *arg)
{
	(void)arg;
	return getppid() > 0 ? 0 : -1;
}

static int call_glibc(void *arg)
{
	pthread_attr_t attr;
	int err = pthread_getattr_np(*(pthread_t *)arg, &attr);

	if (!err)
		pthread_attr_destroy(&attr);
	return err;
}

static int call_ioctl(void *arg)
{
	struct stackinfo_query q = { .size = sizeof(q) };

	return ioctl(*(int *)arg, STACKINFO_IOC_QUERY, &q);
}

static char *map_extra(long n)
{
	long page = sysconf(_SC_PAGESIZE), i;
	char *base = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		return NULL;
	for (i = 1; i < n; i += 2)	/* alternate: neighbours cannot merge */
		mprotect(base + i * page, page, PROT_READ);
	return base;
}

int main(int argc, char **argv)
{
	long extra = argc > 1 ? strtol(argv[1], NULL, 10) : 5000;
	double floor_us, glibc_us, ioctl_us;
	struct stackinfo_query q = { .size = sizeof(q) };
	long n_floor, n_glibc, n_ioctl;
	pthread_t self = pthread_self();
	pthread_attr_t attr;
	char text[4096];
	void *addr;
	size_t size, guard;
	unsigned long long top;
	ssize_t len;
	int fd;

	if (extra < 0 || !map_extra(extra ? extra : 1)) {
		fprintf(stderr, "stackinfo-demo: cannot map %ld pages\n", extra);
		return 1;
	}
	fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "stackinfo-demo: %s: %s (is the module loaded?)\n",
			STACKINFO_PROC_PATH, strerror(errno));
		return 1;
	}
	if (ioctl(fd, STACKINFO_IOC_QUERY, &q)) {
		perror("stackinfo-demo: STACKINFO_IOC_QUERY");
		return 1;
	}
	printf("A process with %u mappings (%ld extra). Its %s:\n\n",
	       q.map_count, extra, STACKINFO_PROC_PATH);
	len = pread(fd, text, sizeof(text) - 1, 0);
	if (len < 0) {
		perror("stackinfo-demo: read");
		return 1;
	}
	text[len] = '\0';
	fputs(text, stdout);

	if (pthread_getattr_np(self, &attr)) {
		fprintf(stderr, "stackinfo-demo: pthread_getattr_np failed\n");
		return 1;
	}
	pthread_attr_getstack(&attr, &addr, &size);
	pthread_attr_getguardsize(&attr, &guard);
	pthread_attr_destroy(&attr);
	printf("\nglibc pthread_getattr_np: stack %p-%p (%zu KiB), guard %zu\n",
	       addr, (char *)addr + size, size >> 10, guard);
	/* glibc's top is the page above __libc_stack_end, the kernel's start_stack */
	top = (q.start_stack | (sysconf(_SC_PAGESIZE) - 1)) + 1;
	printf("glibc's top of stack is the page above start_stack (%#llx): %s\n",
	       top, (uintptr_t)addr + size == top ? "yes" : "NO");

	floor_us = time_calls(call_getppid, NULL, 10000, 300000, &n_floor);
	glibc_us = time_calls(call_glibc, &self, 10, 1000000, &n_glibc);
	ioctl_us = time_calls(call_ioctl, &fd, 10000, 500000, &n_ioctl);

	printf("\nµs per call, main thread, %u mappings (one run; under TCG only ratios mean anything):\n",
	       q.map_count);
	printf("  %-36s %10.2f  (%ld calls)\n", "getppid() (the floor)", floor_us, n_floor);
	printf("  %-36s %10.2f  (%ld calls)\n", "glibc pthread_getattr_np()", glibc_us, n_glibc);
	printf("  %-36s %10.2f  (%ld calls)\n", "STACKINFO_IOC_QUERY", ioctl_us, n_ioctl);
	printf("ioctl: %.1fx the floor; glibc: %.0fx the ioctl\n",
	       ioctl_us / floor_us, glibc_us / ioctl_us);
	close(fd);
	return 0;
}
