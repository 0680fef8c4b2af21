// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The main thread's CPU set in stackinfo_pthread_getattr_np() on a kernel
 * with more CPUs than 32 bytes hold. glibc 2.36's pthread_getattr_np()
 * (nptl/pthread_getattr_np.c) tries 32 bytes, doubles while the kernel
 * says EINVAL, gives up past 1 MiB, and copies the set of the size that
 * worked into the attr. This program stands in for that kernel: its own
 * pthread_getaffinity_np(), which the library's static archive binds to
 * (glibc's own call uses glibc's internal one and is not fooled), answers
 * EINVAL below the bytes of 1 000 CPUs and then a set holding CPU 999
 * only. Checked: the sizes the library asks in glibc's order (32, 64,
 * 128), the attr holding that set at 128 bytes, and, with a kernel that
 * says EINVAL at every size, the library's answer being glibc's own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "libstackinfo.h"
#include "testutil.h"

#define FAKE_CPUS	1000
#define MAX_ASKS	32

static int faking;	/* 0: the real set; 1: FAKE_CPUS; 2: EINVAL at every size */
static size_t asked[MAX_ASKS];
static int asks;

int pthread_getaffinity_np(pthread_t th, size_t size, cpu_set_t *set)
{
	(void)th;
	if (!faking)
		return sched_getaffinity(0, size, set) ? errno : 0;
	if (asks < MAX_ASKS)
		asked[asks] = size;
	asks++;
	if (faking == 2 || size < CPU_ALLOC_SIZE(FAKE_CPUS))
		return EINVAL;
	memset(set, 0, size);
	CPU_SET_S(FAKE_CPUS - 1, size, set);
	return 0;
}

/* The library's answer for the main thread, past its first calls. */
static int warm(void)
{
	struct t_attrs a;
	int i;

	for (i = 0; i < 3; i++)
		if (t_getattr(stackinfo_pthread_getattr_np, pthread_self(), &a))
			return -1;
	return 0;
}

static void big_kernel(void)
{
	size_t want[] = { 32, 64, 128 }, size = CPU_ALLOC_SIZE(FAKE_CPUS * 2);
	cpu_set_t *set = CPU_ALLOC(FAKE_CPUS * 2);
	pthread_attr_t attr;
	int i, ret;

	faking = 1;
	asks = 0;
	ret = stackinfo_pthread_getattr_np(pthread_self(), &attr);
	faking = 0;
	CHECK(!ret, "the library's answer: %s", strerror(ret));
	if (ret) {
		CPU_FREE(set);
		return;
	}
	CHECK(asks == 3, "asked %d sizes, glibc asks 3", asks);
	for (i = 0; i < 3 && i < asks; i++)
		CHECK(asked[i] == want[i], "size %d: %zu bytes, glibc's %zu", i + 1, asked[i],
		      want[i]);
	CPU_ZERO_S(size, set);
	CHECK(!pthread_attr_getaffinity_np(&attr, size, set), "the attr's CPU set");
	CHECK(CPU_COUNT_S(size, set) == 1 && CPU_ISSET_S(FAKE_CPUS - 1, size, set),
	      "the attr's set: %d CPUs, CPU %d %s", CPU_COUNT_S(size, set), FAKE_CPUS - 1,
	      CPU_ISSET_S(FAKE_CPUS - 1, size, set) ? "in" : "missing");
	/* a set smaller than the attr's loses CPU 999: glibc refuses it */
	CHECK(pthread_attr_getaffinity_np(&attr, 64, set) == EINVAL,
	      "the attr's set fits in 64 bytes: not 128 bytes' worth");
	pthread_attr_destroy(&attr);
	CPU_FREE(set);
}

static void no_size_works(void)
{
	struct t_attrs g, s;
	char why[400];
	int rs, rg;

	rg = t_getattr(t_glibc_getattr(), pthread_self(), &g);
	faking = 2;
	asks = 0;
	rs = t_getattr(stackinfo_pthread_getattr_np, pthread_self(), &s);
	faking = 0;
	/* 32 bytes up to 1 MiB, doubling: 16 sizes, then glibc's own call */
	CHECK(asks == 16, "asked %d sizes, glibc asks 16", asks);
	CHECK(rs == rg, "library %d, glibc %d", rs, rg);
	if (!rs && !rg)
		CHECK(t_attrs_same(&s, &g, why, sizeof(why)), "library %s", why);
}

int main(void)
{
	if (!t_glibc_getattr()) {
		fprintf(stderr, "glibc's pthread_getattr_np not found\n");
		return 1;
	}
	if (warm()) {
		fprintf(stderr, "the library does not answer the main thread here: skipped\n");
		return T_SKIP;
	}
	fprintf(stderr, "backend %s\n", stackinfo_backend_name(stackinfo_backend()));
	big_kernel();
	no_size_works();
	return t_result();
}
