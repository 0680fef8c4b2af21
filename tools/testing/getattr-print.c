// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * getattr-print [--rlimit BYTES|unlimited] [--below BYTES] [--maps N]
 *               [--time CALLS [--vs-glibc ROUNDS]]
 *
 * Prints what pthread_getattr_np() says of the main thread, asked from the
 * main thread and from a second thread, one line each: stack address,
 * size, guard size, detach state, policy, priority, inherit and scope,
 * the CPU set's count and first word, the attr's flags word (glibc's
 * struct pthread_attr, sysdeps/nptl/internaltypes.h: the int after the
 * sched_param and the policy, on every glibc from 2.31 on) and errno
 * after the call (set to 4242 before it).
 * Run with and without LD_PRELOAD=libstackinfo-preload.so, the outputs
 * must be equal. --getstack 1 adds a "getstack:" line: whether
 * pthread_getstack_np(), where the program finds one (the interposer
 * exports it), gives the second thread the stack glibc's
 * pthread_getattr_np() gives it: "same", the two answers, or "none". --rlimit sets RLIMIT_STACK's soft limit first; --below
 * maps a page that far below the stack's VMA (0: touching it); --maps adds
 * N single-page mappings; --time prints µs per call instead, and with
 * --vs-glibc, ROUNDS rounds of CALLS calls each of pthread_getattr_np() as
 * the program binds it (the interposer's where it is preloaded) and of
 * the C library's own (looked up in the object that defines it: 2.31's
 * libpthread.so.0, later libc.so.6), alternating, warmed up by two calls
 * (the interposer's first is glibc's, its second the check): "interposed
 * X glibc Y" with each side's median µs per call;
 * --detach 1 detaches the main thread after those two calls and asks once
 * more ("detached:"): glibc then says PTHREAD_CREATE_DETACHED, and so must
 * the interposer; --no-new-fds 1 asks once more with RLIMIT_NOFILE allowing no new fd, a
 * call glibc cannot answer (it opens /proc/self/maps), nor the interposer
 * (it keeps no fd).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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
static char line[2][256], getstack[256];
static int want_getstack;

static int describe(char *out, size_t size)
{
	pthread_attr_t attr;
	struct sched_param param;
	cpu_set_t set;
	size_t stacksize, guard;
	void *addr;
	int detach, policy, inherit, scope, ret, err;
	unsigned int flags;

	errno = 4242;
	ret = pthread_getattr_np(main_thread, &attr);
	err = errno;
	if (ret) {
		snprintf(out, size, "error %d", ret);
		return ret;
	}
	pthread_attr_getstack(&attr, &addr, &stacksize);
	pthread_attr_getguardsize(&attr, &guard);
	pthread_attr_getdetachstate(&attr, &detach);
	pthread_attr_getschedpolicy(&attr, &policy);
	pthread_attr_getschedparam(&attr, &param);
	pthread_attr_getinheritsched(&attr, &inherit);
	pthread_attr_getscope(&attr, &scope);
	CPU_ZERO(&set);
	pthread_attr_getaffinity_np(&attr, sizeof(set), &set);
	memcpy(&flags, (const char *)&attr + sizeof(struct sched_param) + sizeof(int),
	       sizeof(flags));
	pthread_attr_destroy(&attr);
	snprintf(out, size,
		 "stack %p size %zu guard %zu detach %d policy %d prio %d inherit %d scope %d cpus %d set %#lx flags %#x errno %d",
		 addr, stacksize, guard, detach, policy, param.sched_priority, inherit, scope,
		 CPU_COUNT(&set), set.__bits[0], flags, err);
	return 0;
}

typedef int (*getattr_fn)(pthread_t, pthread_attr_t *);

/* the C library's own pthread_getattr_np, whoever interposes it */
static getattr_fn libc_getattr(void)
{
	static const char *const objects[] = { "libpthread.so.0", "libc.so.6" };
	size_t i;

	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		void *h = dlopen(objects[i], RTLD_LAZY | RTLD_NOLOAD);
		void *f = h ? dlsym(h, "pthread_getattr_np") : NULL;

		if (f)
			return (getattr_fn)f;
	}
	return NULL;
}

static double usecs(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e6 + (b->tv_nsec - a->tv_nsec) / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* @calls calls of @fn (NULL: as bound) about the main thread: µs per call */
static double round_of(getattr_fn fn, long calls)
{
	struct timespec t0, t1;
	pthread_attr_t attr;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < calls; i++) {
		if ((fn ? fn : pthread_getattr_np)(main_thread, &attr))
			return -1;
		pthread_attr_destroy(&attr);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return usecs(&t0, &t1) / calls;
}

/* interposed (as bound) against the C library's own, alternating */
static int vs_glibc(long calls, long rounds)
{
	getattr_fn glibc = libc_getattr();
	double *t[2];
	long r;
	int k;

	if (!glibc || rounds < 1) {
		fprintf(stderr, "getattr-print: no pthread_getattr_np in the C library\n");
		return 1;
	}
	t[0] = calloc(rounds, sizeof(double));
	t[1] = calloc(rounds, sizeof(double));
	if (!t[0] || !t[1] || round_of(NULL, 2) < 0)
		return 1;
	for (r = 0; r < rounds; r++)
		for (k = 0; k < 2; k++) {
			int way = (int)((r + k) % 2);

			t[way][r] = round_of(way ? glibc : NULL, calls);
			if (t[way][r] < 0)
				return 1;
		}
	for (k = 0; k < 2; k++)
		qsort(t[k], rounds, sizeof(double), cmp_double);
	printf("interposed %.2f glibc %.2f\n", t[0][rounds / 2], t[1][rounds / 2]);
	free(t[0]);
	free(t[1]);
	return 0;
}

/* pthread_getstack_np() about the calling thread against glibc's answer */
static void compare_getstack(void)
{
	int (*fn)(pthread_t, void **, size_t *);
	void *sym = dlsym(RTLD_DEFAULT, "pthread_getstack_np"), *addr = NULL, *ga = NULL;
	size_t size = 0, gs = 0;
	pthread_attr_t attr;
	int ret;

	if (!sym) {
		snprintf(getstack, sizeof(getstack), "none");
		return;
	}
	memcpy(&fn, &sym, sizeof(fn));
	ret = fn(pthread_self(), &addr, &size);
	if (!pthread_getattr_np(pthread_self(), &attr)) {
		pthread_attr_getstack(&attr, &ga, &gs);
		pthread_attr_destroy(&attr);
	}
	if (!ret && addr == ga && size == gs)
		snprintf(getstack, sizeof(getstack), "same");
	else
		snprintf(getstack, sizeof(getstack), "error %d: %p %zu, glibc %p %zu", ret, addr,
			 size, ga, gs);
}

static void *second(void *arg)
{
	(void)arg;
	describe(line[1], sizeof(line[1]));
	if (want_getstack)
		compare_getstack();
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
	long page = sysconf(_SC_PAGESIZE), maps = 0, calls = 0, rounds = 0, i;
	char again[256] = "", detached[256] = "";
	int a, no_new_fds = 0, detach = 0;
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
		} else if (!strcmp(argv[a], "--vs-glibc")) {
			rounds = strtol(v, NULL, 0);
		} else if (!strcmp(argv[a], "--getstack")) {
			want_getstack = atoi(v);
		} else if (!strcmp(argv[a], "--detach")) {
			detach = atoi(v);
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
	if (calls && rounds)
		return vs_glibc(calls, rounds);
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
	if (detach) {
		int ret = pthread_detach(main_thread);

		if (ret)
			snprintf(detached, sizeof(detached), "pthread_detach: error %d", ret);
		else
			describe(detached, sizeof(detached));
	}
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
	if (want_getstack)
		printf("getstack: %s\n", getstack);
	if (detach)
		printf("detached: %s\n", detached);
	if (no_new_fds)
		printf("again: %s\n", again);
	return 0;
}
