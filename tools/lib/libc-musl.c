// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo on musl: where the initial stack's arguments begin, and
 * what musl says of a thread's stack, both async-signal-safe.
 *
 * musl has no __libc_stack_end. The kernel puts argc at the initial stack
 * pointer (mm->start_stack), then argv[0..argc], a NULL, and the
 * environment, whose array musl's start-up makes environ before any
 * constructor runs: the word argc + 2 words below environ[0] holds argc,
 * and the first k from 0 up whose word k + 2 below holds k is argc (no
 * argv pointer below that is as small as a count). The constructor finds
 * it once, before the program can change environ.
 *
 * musl's pthread_getattr_np() (src/thread/pthread_getattr_np.c, musl
 * 1.2.3) reads a thread's stack, stack_size, guard_size and detach_state
 * from its descriptor without a lock or an allocation: for a thread of
 * pthread_create() it is async-signal-safe as written, and is what
 * si_thread_stack() asks. For the initial thread (no stack of its own) it
 * probes pages with mremap() and gives the size the stack has now, not the
 * one RLIMIT_STACK lets it reach; the library answers that thread itself.
 * The initial thread is the one the constructor runs on when the library
 * comes with the program (as the kernel's group leader); a library
 * dlopen()ed from another thread does not know it, and musl's answer is
 * given for every thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* the largest argc looked for: the kernel takes at most MAX_ARG_STRINGS */
#define SI_ARGC_MAX	0x7fffffffUL

static uintptr_t si_argc_at;
static pthread_t si_initial;
static bool si_initial_known;

uint64_t si_stack_end(void)
{
	return si_argc_at;
}

__attribute__((constructor)) static void si_musl_init(void)
{
	uintptr_t *env = (uintptr_t *)environ;
	unsigned long k;

	for (k = 0; env && k < SI_ARGC_MAX; k++) {
		if (*(env - 2 - k) == k) {
			si_argc_at = (uintptr_t)(env - 2 - k);
			break;
		}
	}
	if (syscall(SYS_gettid) == getpid()) {
		si_initial = pthread_self();
		__atomic_store_n(&si_initial_known, true, __ATOMIC_RELEASE);
	}
}

int si_thread_stack(pthread_t th, uint64_t *lo, uint64_t *size)
{
	pthread_attr_t a;
	size_t s;
	void *p;

	if (__atomic_load_n(&si_initial_known, __ATOMIC_ACQUIRE) && pthread_equal(th, si_initial))
		return 0;
	if (pthread_getattr_np(th, &a))
		return -ENOTSUP;
	pthread_attr_getstack(&a, &p, &s);
	pthread_attr_destroy(&a);
	*lo = (uintptr_t)p;
	*size = s;
	return 1;
}
