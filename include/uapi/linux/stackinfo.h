/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * stackinfo: a thread's stack bounds from the kernel's own task data.
 *
 * /proc/stackinfo reads as "key value" lines for the reading thread; an
 * ioctl on an open fd of it answers for any thread the caller may inspect.
 * A kernel with CONFIG_PROC_STACKINFO has /proc/<pid>/stackinfo and
 * /proc/<pid>/task/<tid>/stackinfo: the same text about the file's thread,
 * and the same ioctls about the threads of the file's process, where 0
 * names the file's thread (process) rather than the caller's. See
 * stackinfo(4) and Documentation/filesystems/proc.rst.
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
/*
 * proof_fd holds an fd of /proc/<pid>/mem (grants everything) or of
 * /proc/<pid>/auxv (grants all but the SP) of the thread's process: the
 * kernel ran its full ptrace check when that fd was opened, perhaps for
 * someone else than the caller. Without it the kernel checks the caller
 * itself, as /proc/<pid>/maps and /proc/<pid>/syscall would. Needs a struct
 * of at least STACKINFO_QUERY_SIZE_VER1 (STACKINFO_THREADS_SIZE_VER1).
 */
#define STACKINFO_QUERY_PROOF_FD	(1ULL << 1)
/*
 * Classify addr (in) for the thread: addr_class and addr_vma_* (out). Needs
 * a struct of at least STACKINFO_QUERY_SIZE_VER2; not for the batch ioctl.
 */
#define STACKINFO_QUERY_ADDR		(1ULL << 2)
#define STACKINFO_QUERY_VALID_FLAGS \
	(STACKINFO_QUERY_NO_SP | STACKINFO_QUERY_PROOF_FD | STACKINFO_QUERY_ADDR)

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
/* VER2: granted with the SP (always about the caller's own thread) */
#define STACKINFO_VALID_ALTSTACK	(1ULL << 10) /* ss_sp ss_size ss_flags */
#define STACKINFO_VALID_STACK_KIND	(1ULL << 11) /* stack_kind */
/* VER2, with STACKINFO_QUERY_ADDR */
#define STACKINFO_VALID_ADDR		(1ULL << 12) /* addr_class */
#define STACKINFO_VALID_ADDR_VMA	(1ULL << 13) /* addr_vma_{start,end,flags} */

/* stackinfo_query.thread_flags (out) */
#define STACKINFO_THREAD_MAIN		(1U << 0) /* the thread group leader */
#define STACKINFO_THREAD_SELF		(1U << 1) /* the calling thread */
#define STACKINFO_THREAD_WORKER		(1U << 2) /* kernel worker on a user mm: no user SP */
/* Bits 24-31 are never set by the kernel: userspace libraries' own. */
#define STACKINFO_THREAD_USER_MASK	0xff000000U

/* *_vma_flags (out), as the permission column of /proc/<pid>/maps */
#define STACKINFO_VMA_READ		(1ULL << 0)
#define STACKINFO_VMA_WRITE		(1ULL << 1)
#define STACKINFO_VMA_EXEC		(1ULL << 2)
#define STACKINFO_VMA_SHARED		(1ULL << 3)
#define STACKINFO_VMA_GROWSDOWN		(1ULL << 4)

/*
 * stackinfo_query.stack_kind (out): what the stack the thread's SP is on
 * is, first match wins: its sigaltstack (the SP as on_sig_stack() would
 * test it, whatever SS_AUTODISARM says), main_vma, a
 * VMA with a PROT_NONE VMA right below it (a guarded thread stack, as glibc
 * and most runtimes allocate them), or something the kernel cannot name
 * (a fiber's stack, an SS_AUTODISARM handler's sigaltstack, which the
 * kernel forgets while the handler runs).
 */
#define STACKINFO_STACK_UNKNOWN		0
#define STACKINFO_STACK_MAIN		1
#define STACKINFO_STACK_THREAD		2
#define STACKINFO_STACK_ALTSTACK	3

/*
 * stackinfo_query.addr_class (out): where addr is for the thread, first
 * match wins. What the SP and the sigaltstack decide is decided only when
 * they are granted (not with STACKINFO_QUERY_NO_SP). For an address in no
 * mapping, the rules are those the kernel's page fault applies to it
 * (lock_mm_and_find_vma(), expand_downwards(), acct_stack_growth()): the
 * VMA above it must be VM_GROWSDOWN; the mapping below that VMA, unless it
 * grows down too or is PROT_NONE, must stay stack_guard_gap away; the grown
 * stack must fit RLIMIT_STACK. RLIMIT_AS, mlock limits and overcommit are
 * not judged (stackinfo(4)).
 */
#define STACKINFO_ADDR_STACK		1 /* in the VMA holding sp or start_stack */
#define STACKINFO_ADDR_GUARD		2 /* in a PROT_NONE VMA right below an accessible one */
#define STACKINFO_ADDR_GROWTH		3 /* unmapped; a fault grows the stack above over it */
#define STACKINFO_ADDR_GUARD_GAP	4 /* unmapped; refused: too near the mapping below */
#define STACKINFO_ADDR_BEYOND_LIMIT	5 /* unmapped; refused: beyond RLIMIT_STACK */
#define STACKINFO_ADDR_ALTSTACK		6 /* on the thread's sigaltstack */
#define STACKINFO_ADDR_MAPPED		7 /* in another mapping */
#define STACKINFO_ADDR_UNMAPPED		8 /* in no mapping, and no stack grows over it */

/* RLIM_INFINITY as the rlim_stack_* fields report it */
#define STACKINFO_RLIM_INFINITY		(~0ULL)

/*
 * Extensible, PROCMAP_QUERY style: the caller sets size to the size of
 * the struct it knows; the kernel accepts any size from
 * STACKINFO_QUERY_SIZE_VER0 to PAGE_SIZE (a larger struct must have a
 * zeroed tail) and copies back min(size, its own size) bytes.
 * Addresses are user virtual addresses; tids are numbers in the pid
 * namespace of the /proc mount the fd was opened on.
 */
struct stackinfo_query {
	__u64 size;		/* in: sizeof(struct stackinfo_query) */
	__u64 query_flags;	/* in: STACKINFO_QUERY_* */
	__u32 tid;		/* in: thread to ask about, 0 = the caller (the file's) */
	__u32 reserved;		/* in: must be zero */
	__u64 valid;		/* out: STACKINFO_VALID_* */

	__u32 out_tid;		/* out: the thread's tid */
	__u32 tgid;		/* out: its thread group (process) id */
	__u32 thread_flags;	/* out: STACKINFO_THREAD_* */
	__u32 map_count;	/* out: number of VMAs in its mm */

	/*
	 * The main thread's stack: where the kernel put argv/envp at exec,
	 * and main_vma, the VMA /proc/<pid>/maps labels [stack]: the one
	 * holding start_stack, else the one ending exactly there.
	 */
	__u64 start_stack;	/* out: mm->start_stack */
	__u64 main_vma_start;	/* out */
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

	/* VER1 */
	__s32 proof_fd;		/* in: see STACKINFO_QUERY_PROOF_FD */
	__u32 reserved1;	/* in: must be zero */

	/*
	 * VER2: the thread's sigaltstack as the kernel keeps it (ss_flags:
	 * SS_ONSTACK, SS_DISABLE, SS_AUTODISARM of <linux/signal.h>, as
	 * sigaltstack(NULL, &old) would give the thread at sp), and which
	 * stack sp is on. About another thread: a snapshot of values that
	 * thread may be changing (stackinfo(4)).
	 */
	__u64 ss_sp;		/* out: task->sas_ss_sp */
	__u64 ss_size;		/* out: task->sas_ss_size */
	__u32 ss_flags;		/* out */
	__u32 stack_kind;	/* out: STACKINFO_STACK_* */

	/*
	 * VER2, with STACKINFO_QUERY_ADDR: the VMA holding addr; for
	 * GROWTH, GUARD_GAP and BEYOND_LIMIT the stack VMA that would grow.
	 */
	__u64 addr;		/* in: the address to classify */
	__u32 addr_class;	/* out: STACKINFO_ADDR_* */
	__u32 reserved2;	/* in: must be zero */
	__u64 addr_vma_start;	/* out */
	__u64 addr_vma_end;	/* out */
	__u64 addr_vma_flags;	/* out: STACKINFO_VMA_* */
};

#define STACKINFO_QUERY_SIZE_VER0	168	/* first published layout */
#define STACKINFO_QUERY_SIZE_VER1	176	/* + proof_fd */
#define STACKINFO_QUERY_SIZE_VER2	240	/* + sigaltstack, stack_kind, addr */

/*
 * Every thread of a process in one call, for tracers. The kernel writes one
 * struct stackinfo_query per thread, entry_size bytes apart (the size of
 * the struct the caller knows; the kernel fills min(entry_size, its own),
 * says so in the entry's size, and zeroes the rest of each entry) and sets
 * count to the number written. When the array is too short it fails with
 * ERANGE and sets count to the threads there are. Threads that exit
 * meanwhile, or that the access check refuses while it allows their
 * process, are left out. Bad input fails with count untouched; any other
 * failure sets count to the entries written before it (0 for a refused or
 * missing process).
 */
struct stackinfo_threads {
	__u64 size;		/* in: sizeof(struct stackinfo_threads) */
	__u64 query_flags;	/* in: STACKINFO_QUERY_*, for every thread */
	__u32 pid;		/* in: any thread of the process, 0 = the caller's (the file's) */
	__u32 count;		/* in: entries the array holds; out: see above */
	__u64 entries;		/* in: user address of the array */
	__u64 entry_size;	/* in: >= STACKINFO_QUERY_SIZE_VER0, <= PAGE_SIZE */

	/* VER1 */
	__s32 proof_fd;		/* in: see STACKINFO_QUERY_PROOF_FD */
	__u32 reserved1;	/* in: must be zero */
};

#define STACKINFO_THREADS_SIZE_VER0	40	/* first published layout */
#define STACKINFO_THREADS_SIZE_VER1	48	/* + proof_fd */

/*
 * The kernel matches these on type and number only: the size bits follow
 * the struct a caller was built with, and the struct's own size field is
 * what the kernel reads.
 */
#define STACKINFO_IOC_QUERY	_IOWR(STACKINFO_IOC_MAGIC, 0x01, struct stackinfo_query)
#define STACKINFO_IOC_QUERY_THREADS \
	_IOWR(STACKINFO_IOC_MAGIC, 0x02, struct stackinfo_threads)

#endif /* _UAPI_LINUX_STACKINFO_H */
