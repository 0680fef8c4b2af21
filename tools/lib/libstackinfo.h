/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libstackinfo: a thread's stack bounds without reading every mapping.
 *
 * Backends, chosen at the first call and reported by stackinfo_backend():
 * the in-tree /proc/<pid>/stackinfo's ioctl (kernels with
 * CONFIG_PROC_STACKINFO); the stackinfo module's ioctl on /proc/stackinfo;
 * PROCMAP_QUERY on /proc/<pid>/maps (Linux 6.11+); a parse of
 * /proc/<pid>/maps, the first that works in that order. All answer
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

#define LIBSTACKINFO_VERSION	"0.3.0"

enum stackinfo_backend {
	STACKINFO_BACKEND_MODULE = 1,		/* STACKINFO_IOC_QUERY */
	STACKINFO_BACKEND_PROCMAP_QUERY = 2,	/* PROCMAP_QUERY, 6.11+ */
	STACKINFO_BACKEND_MAPS = 3,		/* parse /proc/<pid>/maps */
	STACKINFO_BACKEND_PROC = 4,		/* /proc/<pid>/stackinfo's ioctl */
};

/* The backend in use, choosing it if no call has yet. */
int stackinfo_backend(void);
/* "module", "procmap_query", "maps", "proc", or NULL for an unknown number. */
const char *stackinfo_backend_name(int backend);
/*
 * Use @backend from now on (tests, benchmarks): 0, -EINVAL for an unknown
 * one, -EOPNOTSUPP when this kernel cannot do it.
 */
int stackinfo_set_backend(int backend);

/*
 * The backend that answered a query, in the bits of q->thread_flags the
 * kernel leaves to userspace (STACKINFO_THREAD_USER_MASK).
 */
#define STACKINFO_LIB_BACKEND_SHIFT	24
#define STACKINFO_LIB_BACKEND_FLAGS(b)	((uint32_t)(b) << STACKINFO_LIB_BACKEND_SHIFT)
#define STACKINFO_LIB_ANSWERED_BY(q) \
	((int)(((q)->thread_flags & STACKINFO_THREAD_USER_MASK) >> STACKINFO_LIB_BACKEND_SHIFT))

/*
 * The queries take the size of the caller's struct stackinfo_query: the
 * library fills min(@size, its own struct's size) bytes of it, zeroes the
 * rest up to @size, sets q->size to the bytes it filled and clears the
 * valid bits of fields beyond them; it never touches a byte past @size.
 * @size below STACKINFO_QUERY_SIZE_VER0, above 4096 or not a multiple of
 * 8 is refused (-EINVAL). The calls without _sz pass sizeof(*q), so that a
 * program carries the size of the struct it was built with into every call
 * and a later, larger struct never writes past it (libstackinfo(3), ABI).
 */

/*
 * Describe thread @tid (0: the caller; other numbers, and the ids in @q,
 * in the pid namespace of the /proc mount) into @q. @flags:
 * STACKINFO_QUERY_NO_SP (STACKINFO_QUERY_PROOF_FD is the raw ioctl's:
 * -EINVAL here). The module backend fills every field; the others fill
 * what /proc shows: map_count only by the maps backend, GROWSDOWN and
 * guard_gap never, another thread's SP only where /proc/<tid>/syscall may
 * be read and the thread is blocked. With the module, a thread of another
 * process that the module refuses (EACCES; ESRCH under hidepid) is
 * answered by PROCMAP_QUERY or the maps parse for this call, with the
 * kernel's own checks on /proc/<tid>/maps; no proof fd is opened.
 * STACKINFO_LIB_ANSWERED_BY(q) says which backend answered. On failure
 * *q is left as it was.
 */
int stackinfo_query_thread_sz(pid_t tid, uint64_t flags,
			      struct stackinfo_query *q, size_t size);

static inline int stackinfo_query_thread(pid_t tid, uint64_t flags,
					 struct stackinfo_query *q)
{
	return stackinfo_query_thread_sz(tid, flags, q, sizeof(*q));
}

/*
 * Every thread of process @pid in one call (0: the caller's process; else
 * any of its threads, numbered as stackinfo_query_thread() numbers them):
 * @q[0] to @q[*count - 1] get what stackinfo_query_thread() answers for
 * each thread, q[i].tid its number, in the kernel's order of the threads
 * (that of /proc/<pid>/task). @flags: STACKINFO_QUERY_NO_SP. The module and
 * the in-tree file answer in one STACKINFO_IOC_QUERY_THREADS; the other
 * backends, and the module or the in-tree file refusing another process
 * (EACCES; ESRCH under hidepid), ask each thread /proc/<pid>/task lists in
 * turn, as stackinfo_query_thread() would. A thread that exits meanwhile,
 * or that is refused while another of its process is answered, is left
 * out. Returns 0 with *count the entries written (one at least); -ERANGE
 * when the process has more than @n threads, with *count the number there
 * are and @q untouched (@n 0 and @q NULL ask just that; threads started
 * meanwhile may still need a larger array); on any other failure *count
 * is 0: the refusal of the process (as stackinfo_query_thread() gives it
 * for its threads), -ESRCH for no such process. Bad input changes
 * nothing: -EFAULT for a NULL @count, or a NULL @q with @n > 0; -EINVAL
 * for any other flag (STACKINFO_LIB_ASYNC_SAFE included); -ESRCH for a
 * negative @pid; -EINVAL for a bad @size, or @n entries of @size bytes
 * that no address space holds. The entries are @size bytes apart, each
 * filled as stackinfo_query_thread_sz() fills one.
 */
int stackinfo_query_process_sz(pid_t pid, uint64_t flags, struct stackinfo_query *q,
			       size_t n, size_t *count, size_t size);

static inline int stackinfo_query_process(pid_t pid, uint64_t flags,
					  struct stackinfo_query *q, size_t n,
					  size_t *count)
{
	return stackinfo_query_process_sz(pid, flags, q, n, count, sizeof(*q));
}

/*
 * A handle, for callers that ask often (a tracer, a runtime): the
 * backend's file kept open in an object the caller owns, so that a query
 * is the backend's ioctl alone. stackinfo_handle_open() opens the chosen
 * backend's file (@flags: 0; -EINVAL else) into *@h; the queries answer as
 * stackinfo_query_thread_sz(), stackinfo_classify_addr_sz() and
 * stackinfo_query_process_sz() do, through it (STACKINFO_LIB_ASYNC_SAFE:
 * -EINVAL); stackinfo_handle_close() closes it (NULL: nothing). A handle
 * of the in-tree file, PROCMAP_QUERY or the maps parse keeps a file of the
 * process that opened it: in another (a fork()ed child) its queries fail
 * with -ECHILD; the module's serves any process. One handle may be used
 * by several threads at once. libstackinfo(3), HANDLES.
 */
struct stackinfo_handle;

int stackinfo_handle_open(uint64_t flags, struct stackinfo_handle **h);
void stackinfo_handle_close(struct stackinfo_handle *h);
/* The handle's backend, or -EFAULT for NULL. */
int stackinfo_handle_backend(const struct stackinfo_handle *h);
int stackinfo_handle_query_sz(struct stackinfo_handle *h, pid_t tid, uint64_t flags,
			      struct stackinfo_query *q, size_t size);
int stackinfo_handle_classify_addr_sz(struct stackinfo_handle *h, pid_t tid, uint64_t addr,
				      uint64_t flags, struct stackinfo_query *q, size_t size);
int stackinfo_handle_query_process_sz(struct stackinfo_handle *h, pid_t pid, uint64_t flags,
				      struct stackinfo_query *q, size_t n, size_t *count,
				      size_t size);

static inline int stackinfo_handle_query(struct stackinfo_handle *h, pid_t tid, uint64_t flags,
					 struct stackinfo_query *q)
{
	return stackinfo_handle_query_sz(h, tid, flags, q, sizeof(*q));
}

static inline int stackinfo_handle_classify_addr(struct stackinfo_handle *h, pid_t tid,
						 uint64_t addr, uint64_t flags,
						 struct stackinfo_query *q)
{
	return stackinfo_handle_classify_addr_sz(h, tid, addr, flags, q, sizeof(*q));
}

static inline int stackinfo_handle_query_process(struct stackinfo_handle *h, pid_t pid,
						 uint64_t flags, struct stackinfo_query *q,
						 size_t n, size_t *count)
{
	return stackinfo_handle_query_process_sz(h, pid, flags, q, n, count, sizeof(*q));
}

/*
 * A flag of the library's own, for stackinfo_query_thread() and
 * stackinfo_classify_addr(): answer only in ways that are async-signal-safe
 * (no malloc, no lock, no stdio: open, ioctl, close), so that a signal
 * handler may call them: about the caller (tid 0), through the module's
 * or the in-tree file's ioctl on a file opened for the call; else
 * -EOPNOTSUPP. Call stackinfo_backend() once before, outside the handler.
 * Every call preserves errno. The library keeps no fd between calls.
 */
#define STACKINFO_LIB_ASYNC_SAFE	(1ULL << 61)

/*
 * q->ss_flags holds the kernel's SS_* bits; <linux/signal.h>'s
 * SS_AUTODISARM, which glibc's <signal.h> (2.36) does not define:
 */
#define STACKINFO_SS_AUTODISARM		(1U << 31)

/*
 * Where @addr is for thread @tid (as stackinfo_query_thread() names it):
 * the query with STACKINFO_QUERY_ADDR, q->addr_class and q->addr_vma_*
 * valid with STACKINFO_VALID_ADDR (STACKINFO_VALID_ADDR_VMA). Only the
 * module and the in-tree file classify: the other backends, and kernels
 * from before the classification, answer the rest of the query and leave
 * STACKINFO_VALID_ADDR clear. @flags:
 * STACKINFO_QUERY_NO_SP, STACKINFO_LIB_ASYNC_SAFE. A struct too short to
 * hold addr_vma_flags (@size below STACKINFO_QUERY_SIZE_VER2) gets the rest
 * of the answer without STACKINFO_VALID_ADDR.
 */
int stackinfo_classify_addr_sz(pid_t tid, uint64_t addr, uint64_t flags,
			       struct stackinfo_query *q, size_t size);

static inline int stackinfo_classify_addr(pid_t tid, uint64_t addr, uint64_t flags,
					  struct stackinfo_query *q)
{
	return stackinfo_classify_addr_sz(tid, addr, flags, q, sizeof(*q));
}

/*
 * The main thread's stack as glibc's pthread_getattr_np() reports it,
 * computed from the kernel's raw values: *stackaddr is the lowest address,
 * as pthread_attr_getstack() gives it.
 */
int stackinfo_main_stack(void **stackaddr, size_t *stacksize);

/*
 * A drop-in for pthread_getattr_np(): the main thread's attributes are
 * built from stackinfo_main_stack() and are identical to glibc's (stack
 * address, size and guard size); any other thread goes to glibc. "Main"
 * is glibc's initial thread, as glibc decides it: not the only thread of
 * a child that a worker thread fork()ed (glibc gives it that worker's
 * stack), though the kernel calls it the group leader. Like
 * pthread_getattr_np() it returns 0 or a positive error number. On musl
 * the main thread's stack is glibc's answer (the rlimit's, not the size
 * the stack has now, which musl's own call reports) and the rest musl's.
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

/*
 * LLVM libc's pthread_getstack_np(): thread @th's stack, its lowest
 * address in *stackaddr and its size in *stacksize, async-signal-safe (no
 * lock, no allocation: open, ioctl, close; errno kept), for any live
 * thread of the process. Another thread's stack and the caller's are
 * pthread_getattr_np()'s answer, read from the C library's descriptor of
 * the thread. The initial thread's is glibc's pthread_getattr_np() answer
 * too, on musl as well, where the in-tree file, the module or
 * PROCMAP_QUERY answers; elsewhere LLVM's: *stacksize
 * PTHREAD_STACK_DYNAMIC_NP and *stackaddr the stack's base, the page
 * above its arguments, where glibc's answer ends. Returns 0, or a
 * positive error number: EFAULT for a NULL pointer (nothing written),
 * ENOTSUP where the C library's descriptor cannot be read (a glibc before
 * 2.34, or one whose layout the library does not recognise).
 * pthread_getstack_np(3).
 */
#ifndef PTHREAD_STACK_DYNAMIC_NP
#define PTHREAD_STACK_DYNAMIC_NP	0
#endif
int pthread_getstack_np(pthread_t th, void **__restrict stackaddr,
			size_t *__restrict stacksize);

#ifdef __cplusplus
}
#endif

#endif /* LIBSTACKINFO_H */
