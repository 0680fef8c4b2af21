/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libstackinfo: a thread's stack bounds without reading every mapping.
 *
 * Backends, chosen at the first call and reported by stackinfo_backend():
 * the stackinfo module's ioctl on /proc/stackinfo; PROCMAP_QUERY on
 * /proc/<pid>/maps (Linux 6.11+); a parse of /proc/<pid>/maps. All answer
 * in the module's struct stackinfo_query, with `valid` saying which fields
 * the backend could fill. Functions return 0 or a negative errno unless
 * said otherwise; all are thread-safe and fork-safe. See libstackinfo(3).
 */
#ifndef LIBSTACKINFO_H
#define LIBSTACKINFO_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/stackinfo.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBSTACKINFO_VERSION	"0.1.0"

enum stackinfo_backend {
	STACKINFO_BACKEND_MODULE = 1,		/* STACKINFO_IOC_QUERY */
	STACKINFO_BACKEND_PROCMAP_QUERY = 2,	/* PROCMAP_QUERY, 6.11+ */
	STACKINFO_BACKEND_MAPS = 3,		/* parse /proc/<pid>/maps */
};

/* The backend in use, choosing it if no call has yet. */
int stackinfo_backend(void);
/* "module", "procmap_query", "maps", or NULL for an unknown number. */
const char *stackinfo_backend_name(int backend);
/*
 * Use @backend from now on (tests, benchmarks): 0, -EINVAL for an unknown
 * one, -EOPNOTSUPP when this kernel cannot do it.
 */
int stackinfo_set_backend(int backend);

/*
 * Describe thread @tid (0: the caller; other numbers in the caller's pid
 * namespace) into @q. @flags: STACKINFO_QUERY_*. The module backend fills
 * every field; the others fill what /proc shows: map_count only by the maps
 * backend, GROWSDOWN and guard_gap never, another thread's SP only where
 * /proc/<tid>/syscall may be read and the thread is blocked.
 */
int stackinfo_query_thread(pid_t tid, uint64_t flags,
			   struct stackinfo_query *q);

/*
 * The main thread's stack as glibc's pthread_getattr_np() reports it,
 * computed from the kernel's raw values: *stackaddr is the lowest address,
 * as pthread_attr_getstack() gives it.
 */
int stackinfo_main_stack(void **stackaddr, size_t *stacksize);

/*
 * A drop-in for pthread_getattr_np(): the main thread's attributes are
 * built from stackinfo_main_stack() and are identical to glibc's (stack
 * address, size and guard size); any other thread goes to glibc. Like
 * pthread_getattr_np() it returns 0 or a positive error number.
 */
int stackinfo_pthread_getattr_np(pthread_t thread, pthread_attr_t *attr);

/*
 * glibc's formula for the main thread's stack (nptl's pthread_getattr_np):
 * @stack_end is __libc_stack_end, @vma_end the end of the mapping holding
 * it, @prev_end the end of the mapping below that (0 for none), @rlim_cur
 * RLIMIT_STACK's soft limit. Sets the lowest address and the size.
 */
void stackinfo_glibc_main_stack(uint64_t stack_end, uint64_t vma_end,
				uint64_t prev_end, uint64_t rlim_cur,
				uint64_t pagesize, uint64_t *stackaddr,
				uint64_t *stacksize);

#ifdef __cplusplus
}
#endif

#endif /* LIBSTACKINFO_H */
