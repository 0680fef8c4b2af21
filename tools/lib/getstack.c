// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pthread_getstack_np(): a thread's stack, async-signal-safe, with LLVM
 * libc's signature and semantics (llvm-project's
 * libc/src/pthread/pthread_getstack_np.h, its .cpp and
 * libc/test/integration/src/pthread/pthread_getstack_np_test.cpp: another
 * thread's stack as its attributes say, a stack of pthread_attr_setstack()
 * exactly; the main thread's PTHREAD_STACK_DYNAMIC_NP (0) with a
 * page-aligned base above the caller's frames; NULL pointers crash there;
 * pthread_getstack_np(3)), except that the initial thread gets its real
 * answer where the kernel gives it, and NULL is EFAULT.
 *
 * A thread with a stack of its own: what its C library's descriptor says
 * (si_thread_stack()), which is pthread_getattr_np()'s answer. The initial
 * thread: glibc's formula (mainstack.c) over the kernel's values, asked
 * with open, ioctl and close alone: the in-tree file's or the module's
 * STACKINFO_IOC_QUERY, or PROCMAP_QUERY on /proc/self/maps and
 * RLIMIT_STACK. Where none answers (the maps parse reads with stdio-like
 * buffering and is no answer for a signal handler), LLVM's: the stack's
 * base (the page above its arguments: the top glibc's answer has) and
 * PTHREAD_STACK_DYNAMIC_NP. No lock, no allocation, errno kept.
 *
 * Which kernel source: the backend the library chose or was set to
 * (stackinfo_backend(), stackinfo_set_backend()) or, before it chose, the
 * one $STACKINFO_BACKEND named when the library was loaded, the maps parse
 * meaning none; else the first of the in-tree file, the module and
 * PROCMAP_QUERY that answers, nothing chosen for the library by it (the
 * last that answered is asked first next time).
 *
 * In the interposer, a C library that has a pthread_getstack_np() of its
 * own answers instead (found at load: dlsym() is no call for a handler).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"

typedef int (*si_getstack_fn)(pthread_t, void **, size_t *);
static si_getstack_fn si_libc_getstack;

/* the kernel source that answered last, when nothing is chosen */
static int si_last_source;

/*
 * The backend $STACKINFO_BACKEND names, else 0: read once, at load, so
 * that no call reads the environment (getenv() is not on POSIX's list of
 * async-signal-safe functions, and a handler may interrupt setenv()).
 */
static int si_env_source;

static int si_env_backend(void)
{
	const char *env = secure_getenv("STACKINFO_BACKEND");
	const char *name;
	int b;

	for (b = 1; env && (name = stackinfo_backend_name(b)); b++)
		if (!strcmp(env, name))
			return b;
	return 0;
}

__attribute__((constructor)) static void si_getstack_init(void)
{
	si_env_source = si_env_backend();
	if (!&si_interposing)
		return;
	si_libc_getstack = (si_getstack_fn)dlsym(RTLD_NEXT, "pthread_getstack_np");
	if (!si_libc_getstack)
		dlerror();	/* ours, not the program's */
}

/* The in-tree file's or the module's ioctl about the caller. */
static int si_ioctl_source(int backend, struct stackinfo_query *q)
{
	int fd = backend == STACKINFO_BACKEND_PROC ? si_self_proc_open() : si_module_open();
	int err;

	if (fd < 0)
		return fd;
	err = si_module_query(fd, 0, STACKINFO_QUERY_NO_SP, q);
	close(fd);
	return err;
}

/*
 * PROCMAP_QUERY: the VMA holding @lse, RLIMIT_STACK, and the VMA below
 * only where one lies above where the rlimit would put the bottom (as
 * si_main_stack() does).
 */
static int si_procmap_source(uint64_t lse, uint64_t page, uint64_t *lo, uint64_t *size)
{
	struct stackinfo_query q = { .valid = STACKINFO_VALID_MAIN_VMA | STACKINFO_VALID_RLIMIT };
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), err;
	uint64_t s, e, f, prev;
	struct rlimit rl;

	if (fd < 0)
		return -errno;
	err = si_procmap_covering(fd, lse, false, &s, &e, &f);
	q.main_vma_start = s;
	q.main_vma_end = e;
	if (!err && prlimit(0, RLIMIT_STACK, NULL, &rl))
		err = -errno;
	if (err)
		goto out;
	q.rlim_stack_cur = rl.rlim_cur == RLIM_INFINITY ? STACKINFO_RLIM_INFINITY : rl.rlim_cur;
	err = si_main_stack_from(&q, lse, page, lo, size);
	if (err)
		goto out;
	/* the bottom the rlimit gives, unless a VMA lies between it and the stack */
	err = si_procmap_covering(fd, *lo, true, &s, &e, &f);
	if (err == -ENOENT || (!err && s >= q.main_vma_start)) {
		err = 0;
		goto out;
	}
	if (!err)
		err = si_procmap_prev_end(fd, q.main_vma_start, &prev);
	if (err > 0) {
		q.main_prev_end = prev;
		q.valid |= STACKINFO_VALID_MAIN_PREV;
	}
	if (err >= 0)
		err = si_main_stack_from(&q, lse, page, lo, size);
out:
	close(fd);
	return err;
}

static int si_ask_source(int backend, uint64_t lse, uint64_t page, uint64_t *lo,
			 uint64_t *size)
{
	struct stackinfo_query q;
	int err;

	switch (backend) {
	case STACKINFO_BACKEND_PROC:
	case STACKINFO_BACKEND_MODULE:
		err = si_ioctl_source(backend, &q);
		return err ? err : si_main_stack_from(&q, lse, page, lo, size);
	case STACKINFO_BACKEND_PROCMAP_QUERY:
		return si_procmap_source(lse, page, lo, size);
	default:
		return -EOPNOTSUPP;
	}
}

/* The initial thread's stack: 0, or -ENOTSUP where its end is not known. */
static int si_initial_stack(uint64_t *lo, uint64_t *size)
{
	static const int order[] = {
		STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
		STACKINFO_BACKEND_PROCMAP_QUERY,
	};
	uint64_t lse = si_stack_end(), page = getauxval(AT_PAGESZ);
	int b = si_chosen_backend() ?: si_env_source, last;
	size_t i;

	if (!lse || !page)
		return -ENOTSUP;
	if (b) {
		if (!si_ask_source(b, lse, page, lo, size))
			return 0;
	} else {
		last = __atomic_load_n(&si_last_source, __ATOMIC_RELAXED);
		if (last && !si_ask_source(last, lse, page, lo, size))
			return 0;
		for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
			if (order[i] == last || si_ask_source(order[i], lse, page, lo, size))
				continue;
			__atomic_store_n(&si_last_source, order[i], __ATOMIC_RELAXED);
			return 0;
		}
	}
	/* LLVM's answer: the base, and a size that says the stack grows */
	*lo = (lse & -page) + page;
	*size = PTHREAD_STACK_DYNAMIC_NP;
	return 0;
}

SI_EXPORT int pthread_getstack_np(pthread_t th, void **__restrict stackaddr,
				  size_t *__restrict stacksize)
{
	int saved = errno, ret;
	uint64_t lo, size;

	if (si_libc_getstack)
		return si_libc_getstack(th, stackaddr, stacksize);
	if (!stackaddr || !stacksize)
		return EFAULT;
	ret = si_thread_stack(th, &lo, &size);
	if (!ret)
		ret = si_initial_stack(&lo, &size);
	errno = saved;
	if (ret < 0)
		return -ret;
	*stackaddr = (void *)(uintptr_t)lo;
	*stacksize = size;
	return 0;
}
