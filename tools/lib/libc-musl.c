// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo on musl: where the initial stack's arguments begin, and
 * what musl says of a thread's stack, both async-signal-safe.
 *
 * musl has no __libc_stack_end, and its start-up keeps the initial stack
 * pointer nowhere a library can read: __libc_start_main() and its
 * constructors take no arguments there. The kernel keeps it: the address
 * where the ELF loader wrote argc, above it argv[0..argc], a NULL, the
 * environment and the auxiliary vector, is mm->start_stack
 * (fs/binfmt_elf.c, create_elf_tables() and load_elf_binary()), which
 * /proc/self/stat shows (field 28). It is taken as argc's address once
 * it is proven so, by the one word of the program's arguments that musl
 * keeps: argv[0], which its start-up makes program_invocation_name. So
 * nothing is read from environ, which setenv(), putenv() and clearenv()
 * move to the heap or to NULL, and no memory is walked: argv[0], then argc
 * and the NULL after argv only once argv[0] matched, all within the
 * initial stack if the kernel's address is argc's.
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
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* argc's address, once proven; 0 until then */
static uintptr_t si_argc_at;
static pthread_t si_initial;
static bool si_initial_known;

/* Is @p argc's word: argv (@p + 1) starting with argv[0], NULL after it? */
static bool si_argc_proven(const uintptr_t *p)
{
	if (p[1] != (uintptr_t)program_invocation_name)
		return false;
	/* argc 0: argv[0] is the NULL that ends it, and musl's name NULL too */
	return !p[1] ? !p[0] : p[0] < (1UL << 31) && !p[p[0] + 1];
}

/*
 * argc's address, the first call reading /proc/self/stat (openat, read,
 * close: async-signal-safe); 0 where it cannot be read or proven.
 */
uint64_t si_stack_end(void)
{
	uintptr_t at = __atomic_load_n(&si_argc_at, __ATOMIC_ACQUIRE);
	uint64_t start_stack;

	if (at)
		return at;
	if (si_self_start_stack(&start_stack) || !start_stack ||
	    start_stack % sizeof(uintptr_t) ||
	    !si_argc_proven((const uintptr_t *)(uintptr_t)start_stack))
		return 0;
	/* racing callers find the same */
	__atomic_store_n(&si_argc_at, (uintptr_t)start_stack, __ATOMIC_RELEASE);
	return start_stack;
}

__attribute__((constructor)) static void si_musl_init(void)
{
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
