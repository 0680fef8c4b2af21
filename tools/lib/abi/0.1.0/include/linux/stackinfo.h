/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * stackinfo: a thread's stack bounds from the kernel's own task data.
 *
 * /proc/stackinfo reads as "key value" lines for the reading thread; an
 * ioctl on an open fd of it answers for any thread the caller may inspect.
 * See stackinfo(4) and README.md.
 */
#ifndef _UAPI_LINUX_STACKINFO_H
#define _UAPI_LINUX_STACKINFO_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define STACKINFO_PROC_PATH		"/proc/stackinfo"

/* Free in Documentation/userspace-api/ioctl/ioctl-number.rst (6.12). */
#define STACKINFO_IOC_MAGIC		0xB9

/* stackinfo_query.query_flags (in) */
/* Do not read the thread's SP nor look up the VMA holding it. */
#define STACKINFO_QUERY_NO_SP		(1ULL << 0)
#define STACKINFO_QUERY_VALID_FLAGS	(STACKINFO_QUERY_NO_SP)

/* stackinfo_query.valid (out): which groups of out fields hold an answer */
#define STACKINFO_VALID_THREAD		(1ULL << 0) /* out_tid tgid thread_flags map_count */
#define STACKINFO_VALID_START_STACK	(1ULL << 1) /* start_stack */
#define STACKINFO_VALID_MAIN_VMA	(1ULL << 2) /* main_vma_{start,end,flags} */
#define STACKINFO_VALID_MAIN_PREV	(1ULL << 3) /* main_prev_end */
#define STACKINFO_VALID_SP		(1ULL << 4) /* sp */
#define STACKINFO_VALID_SP_VMA		(1ULL << 5) /* sp_vma_{start,end,flags} */
#define STACKINFO_VALID_SP_PREV		(1ULL << 6) /* sp_prev_end */
#define STACKINFO_VALID_SP_GUARD	(1ULL << 7) /* sp_guard_{start,end} */
#define STACKINFO_VALID_RLIMIT		(1ULL << 8) /* rlim_stack_{cur,max} */
#define STACKINFO_VALID_GUARD_GAP	(1ULL << 9) /* guard_gap */

/* stackinfo_query.thread_flags (out) */
#define STACKINFO_THREAD_MAIN		(1U << 0) /* the thread group leader */
#define STACKINFO_THREAD_SELF		(1U << 1) /* the calling thread */
#define STACKINFO_THREAD_WORKER		(1U << 2) /* kernel worker on a user mm: no user SP */

/* *_vma_flags (out), as the permission column of /proc/<pid>/maps */
#define STACKINFO_VMA_READ		(1ULL << 0)
#define STACKINFO_VMA_WRITE		(1ULL << 1)
#define STACKINFO_VMA_EXEC		(1ULL << 2)
#define STACKINFO_VMA_SHARED		(1ULL << 3)
#define STACKINFO_VMA_GROWSDOWN		(1ULL << 4)

/* RLIM_INFINITY as the rlim_stack_* fields report it */
#define STACKINFO_RLIM_INFINITY		(~0ULL)

/*
 * Extensible, PROCMAP_QUERY style: the caller sets size to the size of
 * the struct it knows; the kernel accepts any size from
 * STACKINFO_QUERY_SIZE_VER0 to PAGE_SIZE (a larger struct must have a
 * zeroed tail) and copies back min(size, its own size) bytes.
 * Addresses are user virtual addresses; tids are numbers in the caller's
 * pid namespace.
 */
struct stackinfo_query {
	__u64 size;		/* in: sizeof(struct stackinfo_query) */
	__u64 query_flags;	/* in: STACKINFO_QUERY_* */
	__u32 tid;		/* in: thread to ask about, 0 = the caller */
	__u32 reserved;		/* in: must be zero */
	__u64 valid;		/* out: STACKINFO_VALID_* */

	__u32 out_tid;		/* out: the thread's tid */
	__u32 tgid;		/* out: its thread group (process) id */
	__u32 thread_flags;	/* out: STACKINFO_THREAD_* */
	__u32 map_count;	/* out: number of VMAs in its mm */

	/* The main thread's stack: where the kernel put argv/envp at exec. */
	__u64 start_stack;	/* out: mm->start_stack */
	__u64 main_vma_start;	/* out: the VMA holding start_stack */
	__u64 main_vma_end;	/* out */
	__u64 main_vma_flags;	/* out: STACKINFO_VMA_* */
	__u64 main_prev_end;	/* out: end of the VMA below main_vma_start */

	/*
	 * The thread's user stack pointer as saved at its last kernel entry
	 * (exact for the calling thread), and the VMA holding it.
	 */
	__u64 sp;		/* out */
	__u64 sp_vma_start;	/* out */
	__u64 sp_vma_end;	/* out */
	__u64 sp_vma_flags;	/* out: STACKINFO_VMA_* */
	__u64 sp_prev_end;	/* out: end of the VMA below sp_vma_start */
	__u64 sp_guard_start;	/* out: PROT_NONE VMA ending at sp_vma_start */
	__u64 sp_guard_end;	/* out */

	__u64 rlim_stack_cur;	/* out: RLIMIT_STACK soft limit, bytes */
	__u64 rlim_stack_max;	/* out: RLIMIT_STACK hard limit, bytes */
	__u64 guard_gap;	/* out: the kernel's stack_guard_gap, bytes */
};

#define STACKINFO_QUERY_SIZE_VER0	168	/* first published layout */

#define STACKINFO_IOC_QUERY	_IOWR(STACKINFO_IOC_MAGIC, 0x01, struct stackinfo_query)

#endif /* _UAPI_LINUX_STACKINFO_H */
