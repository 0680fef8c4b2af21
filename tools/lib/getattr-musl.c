// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo on musl: stackinfo_pthread_getattr_np(). musl's own
 * pthread_getattr_np() gives the initial thread the stack's current size
 * (it probes the pages below the top with mremap()), not the size
 * RLIMIT_STACK lets it grow to; runtimes that size a guard or a recursion
 * limit from it (Rust's std, Ruby, PHP) each work around that. Here the
 * initial thread's stack is glibc's answer (mainstack.c: the rlimit, less
 * what lies above the arguments, never into the mapping below); every
 * other attribute, and every other thread, is musl's own answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include "internal.h"

SI_EXPORT int stackinfo_pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
	uint64_t lo, size, vlo, vhi;
	int saved = errno, ret;

	ret = pthread_getattr_np(thread, attr);
	if (ret || si_thread_stack(thread, &lo, &size) ||
	    si_main_stack(false, &lo, &size, &vlo, &vhi)) {
		errno = saved;
		return ret;
	}
	ret = pthread_attr_setstack(attr, (void *)(uintptr_t)lo, size);
	if (ret)
		pthread_attr_destroy(attr);
	errno = saved;
	return ret;
}
