// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library in a program whose constructor, run before the library's,
 * moved the environment: setenv() of enough new names to make the C
 * library copy environ to the heap, then clearenv() (environ NULL), then
 * setenv() again. The library must start (musl's build once found argc by
 * walking down from environ[0] and ran off the heap before main()) and
 * give the main thread's stack as the kernel says it (/proc/self/stat's
 * start_stack, /proc/self/maps, RLIMIT_STACK by glibc's formula), and on
 * glibc as glibc's own call says it: stackinfo_main_stack(),
 * stackinfo_pthread_getattr_np() and pthread_getstack_np(), on the backend
 * chosen first and on every backend the kernel offers. Built for glibc
 * (lib_environ) and musl (lib_musl_environ).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

static int moved = -1;

__attribute__((constructor(101))) static void move_environ(void)
{
	char name[32];
	int i;

	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "STACKINFO_TEST_%d", i);
		if (setenv(name, "x", 1))
			return;
	}
	if (clearenv())
		return;
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "STACKINFO_TEST_AFTER_%d", i);
		if (setenv(name, "y", 1))
			return;
	}
	moved = !getenv("STACKINFO_TEST_0") && getenv("STACKINFO_TEST_AFTER_7");
}

static void main_stack(const char *label)
{
	void *want_addr = NULL, *addr = NULL;
	size_t want_size = 0, size = 0;
	pthread_attr_t a;
	int err;

	err = t_kernel_main_stack(&want_addr, &want_size);
	CHECK(!err, "%s: the kernel's main stack: %s", label, strerror(err));
	if (err)
		return;
#if defined(__GLIBC__) && !defined(T_STATIC)
	{
		t_getattr_fn glibc = t_glibc_getattr();
		void *g;
		size_t gs;

		CHECK(glibc && !glibc(pthread_self(), &a), "%s: glibc's pthread_getattr_np", label);
		if (glibc) {
			pthread_attr_getstack(&a, &g, &gs);
			pthread_attr_destroy(&a);
			CHECK(g == want_addr && gs == want_size,
			      "%s: glibc %p+%#zx, the kernel's %p+%#zx", label, g, gs, want_addr,
			      want_size);
		}
	}
#endif
	err = stackinfo_main_stack(&addr, &size);
	CHECK(!err && addr == want_addr && size == want_size,
	      "%s: stackinfo_main_stack %d, %p+%#zx, want %p+%#zx", label, err, addr, size,
	      want_addr, want_size);
	/* three calls: glibc's (on glibc), the check, the library's */
	for (int i = 0; i < 3; i++) {
		err = stackinfo_pthread_getattr_np(pthread_self(), &a);
		CHECK(!err, "%s: stackinfo_pthread_getattr_np: %s", label, strerror(err));
		if (err)
			return;
		pthread_attr_getstack(&a, &addr, &size);
		pthread_attr_destroy(&a);
		CHECK(addr == want_addr && size == want_size,
		      "%s: stackinfo_pthread_getattr_np %p+%#zx, want %p+%#zx", label, addr, size,
		      want_addr, want_size);
	}
	err = pthread_getstack_np(pthread_self(), &addr, &size);
	CHECK(!err, "%s: pthread_getstack_np: %s", label, strerror(err));
	/* the maps parse gives LLVM's answer: the base glibc's ends at */
	CHECK(err || (size == PTHREAD_STACK_DYNAMIC_NP ?
		      (char *)addr == (char *)want_addr + want_size :
		      addr == want_addr && size == want_size),
	      "%s: pthread_getstack_np %p+%#zx, want %p+%#zx", label, addr, size, want_addr,
	      want_size);
}

int main(void)
{
	static const int backends[] = {
		STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
		STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS,
	};
	size_t i;

	CHECK(moved == 1, "the constructor did not move environ (%d)", moved);
	main_stack("first backend");
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		if (!t_backend_offered(backends[i]))
			continue;
		CHECK(!stackinfo_set_backend(backends[i]), "%s: refused",
		      stackinfo_backend_name(backends[i]));
		main_stack(stackinfo_backend_name(backends[i]));
	}
	return t_result();
}
