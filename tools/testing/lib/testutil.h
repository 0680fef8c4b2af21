/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers for stackinfo's test programs: a failure counter, the truth as
 * /proc/<pid>/maps tells it, the raw ioctl, and the /proc/stackinfo text.
 * Test programs exit 0 on pass, 1 on failure, 77 when skipped.
 */
#ifndef STACKINFO_TESTUTIL_H
#define STACKINFO_TESTUTIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/stackinfo.h>

#include "check.h"
#include "internal.h"

/* Exit status for the end of main(). */
int t_result(void);

/* One line of /proc/<pid>/maps. */
struct maps_entry {
	uint64_t start, end;
	char perms[5];
	char name[64];
};

struct maps {
	struct maps_entry *v;
	size_t n, cap;
};

/*
 * Read /proc/<pid>/maps (pid 0: self) into @m, reusing its array so that a
 * read that finds it big enough maps nothing new. 0 or -errno.
 */
int maps_read(struct maps *m, pid_t pid);
/* [stack]'s bounds in /proc/<pid>/maps (pid 0: self). 0 or -errno. */
int maps_stack(pid_t pid, uint64_t *start, uint64_t *end);
/* Parse maps text with libstackinfo's parser. 0 or -EINVAL. */
int maps_parse(struct maps *m, const char *text);
void maps_free(struct maps *m);
/* The entry holding @addr, or NULL; *prev is the entry before it or NULL. */
const struct maps_entry *maps_find(const struct maps *m, uint64_t addr,
				   const struct maps_entry **prev);
/* Number of VMAs: entries without the [vsyscall] gate area. */
size_t maps_vma_count(const struct maps *m);

/* The permission string stackinfo's flags give, "rw-p" style. */
void vma_flags_perms(uint64_t flags, char out[5]);
/*
 * CHECK that the layout @q reports (map_count, the main stack's VMA and
 * the end of the one below it, the SP's VMA, the end of the one below and
 * its guard) is what @m, maps read at a moment the layout did not change,
 * says; @what names the answer in a failure.
 */
void t_layout_against_maps(const char *what, const struct stackinfo_query *q,
			   const struct maps *m);
/*
 * The library's PROCMAP_QUERY backend gives the VMA below the main stack's
 * only where it ends within RLIMIT_STACK's soft limit below that VMA's end
 * (libstackinfo(3)): would it give the one ending at @prev_end below the
 * VMA ending at @vma_end, with @q's rlimit? t_procmap_view(): @q, another
 * backend's answer, as PROCMAP_QUERY gives it (t_layout_against_maps()
 * applies the rule to an answer of PROCMAP_QUERY's itself).
 */
bool t_procmap_prev_in_reach(const struct stackinfo_query *q, uint64_t vma_end,
			     uint64_t prev_end);
void t_procmap_view(struct stackinfo_query *q);

int si_open(void);
/* STACKINFO_IOC_QUERY for @tid is libstackinfo's si_module_query(). */
/* ... with a proof fd: libstackinfo's si_module_query_proof(). */
/* Open /proc/<pid>/<file> read-only: the fd or -errno. */
int proc_open(pid_t pid, const char *file);
/* Can /proc/<pid>/<file> be opened and read? 0 or -errno (the kernel's). */
int proc_readable(pid_t pid, const char *file);
/* The same on the proc mount at @proc (NULL: /proc). */
int proc_open_at(const char *proc, pid_t pid, const char *file);
int proc_readable_at(const char *proc, pid_t pid, const char *file);

/* Read /proc/stackinfo (through @fd with pread at 0) and parse it (si_text_parse()). */
int si_text_read(int fd, struct stackinfo_query *q);

/* Map @n single-page VMAs that cannot merge; returns the base or NULL. */
bool t_kasan_kernel(void);
void *map_many(size_t n);
void unmap_many(void *base, size_t n);

/* The kernel's stack guard gap from /proc/cmdline, as mm/mmap.c reads it. */
uint64_t cmdline_guard_gap(void);

pid_t t_gettid(void);
/* CLOCK_MONOTONIC in seconds. */
double t_now(void);

/* startstack, field 28 of /proc/self/stat (read without allocating); 0 if unreadable. */
uint64_t t_stat_start_stack(void);
/*
 * The main thread's stack as glibc's pthread_getattr_np() gives it, from
 * the kernel alone: /proc/self/stat's start_stack, /proc/self/maps and
 * RLIMIT_STACK by glibc's formula. 0 or a positive errno.
 */
int t_kernel_main_stack(void **addr, size_t *size);

/* Where the guest has the module, to load it again after an unload. */
#define T_MODULE_KO "/stackinfo/stackinfo.ko"
/* finit_module() of T_MODULE_KO with @params ("" for none): 0 or -errno. */
int t_module_load(const char *params);

/* Write @text to the file @path (a /proc or /sys knob): 0 or -errno. */
int t_write_file(const char *path, const char *text);
/*
 * A user and a mount namespace of the caller's own, its uid and gid mapped
 * to 0 there, every mount private: 0, or -errno where unshare() refuses
 * (then nothing changed); a failure after it is a CHECK.
 */
int t_user_mount_ns(void);
/* Yama's ptrace_scope, -1 where the kernel has no Yama; set it: 0 or -errno. */
int t_yama_scope(void);
int t_set_yama_scope(int scope);

/*
 * Does this kernel offer library backend @backend (STACKINFO_BACKEND_*)?
 * Decided from the kernel, not by the library: the module's
 * /proc/stackinfo or the in-tree /proc/self/stackinfo exists; PROCMAP_QUERY
 * answers for an address of this thread's stack; the maps parse always.
 */
bool t_backend_offered(int backend);

/*
 * glibc's own pthread_getattr_np, taken from libc.so.6 by handle so that
 * no interposer stands between (NULL where libc.so.6 is not loaded: a
 * static binary calls pthread_getattr_np itself).
 */
typedef int (*t_getattr_fn)(pthread_t, pthread_attr_t *);
t_getattr_fn t_glibc_getattr(void);

/*
 * What pthread_getattr_np() gives, through the public getters, and the
 * attr's flags word, which no getter shows whole ("policy set", "sched
 * set": pthread_create() heeds them): glibc's struct pthread_attr
 * (sysdeps/nptl/internaltypes.h, glibc 2.36) has it after the
 * sched_param and the policy; 0 for another C library.
 */
struct t_attrs {
	void *addr;
	size_t size, guard;
	int detach, policy, prio, inherit, cpus;
	unsigned int flags;
};
/* @f on @th into @a: @f's return value. */
int t_getattr(t_getattr_fn f, pthread_t th, struct t_attrs *a);
/* Equal in every field; else false and @why says the first that differs. */
bool t_attrs_same(const struct t_attrs *a, const struct t_attrs *b, char *why,
		  size_t size);

/* @fn in a fork()ed child: a failure (named @what) unless it returns 0. */
void t_in_child(const char *what, int (*fn)(void));

/* Open fds of this process, from /proc/self/fd; -errno. */
int t_count_fds(void);
/*
 * What the waits below allow for a condition that comes in milliseconds
 * on an idle machine (a thread to sleep, a child to exit or exec): a slow
 * guest on a busy host is given time, and only a condition that never
 * comes fails.
 */
#define T_WAIT_SECS 30
/* Wait (up to T_WAIT_SECS) until thread @tid (of any process) sleeps: 0 or -ETIMEDOUT. */
int t_wait_sleeping(pid_t tid);
/*
 * Wait (up to T_WAIT_SECS) until thread @tid sleeps in pause() (or ppoll or
 * sigsuspend), by /proc/<tid>/syscall: 0 or -ETIMEDOUT. For threads whose
 * SP is compared: a thread may sleep elsewhere before it gets there.
 */
int t_wait_paused(pid_t tid);

/*
 * The in-tree files (CONFIG_PROC_STACKINFO): open @proc/<pid>/stackinfo
 * (tid 0) or @proc/<pid>/task/<tid>/stackinfo, @proc NULL for /proc: the fd
 * or -errno.
 */
int t_intree_open(const char *proc, pid_t pid, pid_t tid);
/* Is /proc/self/stackinfo missing (the kernel has no in-tree files)? Says so. */
bool t_intree_missing(void);
/*
 * The tids of /proc/<pid>/task, ascending: their number (at most @max) or
 * -errno; @tids NULL: only how many there are.
 */
int t_task_tids(pid_t pid, pid_t *tids, int max);

/* VER2's groups: granted with the SP; none of them is in the text */
#define T_VALID_WITH_SP_VER2	(STACKINFO_VALID_ALTSTACK | STACKINFO_VALID_STACK_KIND)
#define T_VALID_NOT_TEXT	(T_VALID_WITH_SP_VER2 | STACKINFO_VALID_ADDR | \
				 STACKINFO_VALID_ADDR_VMA)
#define T_CMP_TEXT	1	/* @a is text: no GROWSDOWN, no thread flag but MAIN */
#define T_CMP_NO_SP	2	/* not the SP itself: a thread asking about itself moves */
/*
 * The out fields of two answers for one thread (valid bits, ids, flags,
 * counts, addresses): true when the same, else @why names the first that
 * differs.
 */
bool t_query_same(const struct stackinfo_query *a, const struct stackinfo_query *b,
		  unsigned int how, char *why, size_t size);

/* t_query_same() as a CHECK: @who and @what say which answers. */
#define CHECK_SAME(a, b, how, who, what)					\
	do {									\
		char why_[128];							\
		CHECK(t_query_same(a, b, how, why_, sizeof(why_)), "%s: %s: %s",	\
		      who, what, why_);						\
	} while (0)

/* ioctl(@fd, @cmd, @arg) must fail with @want and leave @len bytes of @arg unchanged. */
void t_ioctl_expect(int fd, const char *what, unsigned long cmd, void *arg, size_t len,
		    int want);
/* Zero @q and set its size. */
void t_query_fill(struct stackinfo_query *q, uint64_t size);
/*
 * What STACKINFO_IOC_QUERY on @fd must refuse, whatever file @fd is:
 * sizes, a non-zero tail, reserved fields and unknown flags, bad pointers,
 * unknown commands; and the command with other size bits still answers
 * (tid 0: @tid, the thread @fd's file answers for by default).
 */
void t_bad_query(int fd, pid_t tid);

/* ---- processes and threads to ask about ---- */

/*
 * A child that waits in pause() to be asked about, as @uid (0: stays
 * root), dumpable or not; it dies with its parent. Its pid or -1.
 */
pid_t t_spawn_sleeper(uid_t uid, int nondumpable);
/*
 * A child of @workers threads besides its main one, all in pause(), that
 * dies with its parent; its pid once /proc lists every thread, or -1.
 */
pid_t t_spawn_threaded(int workers);
/* A thread's start routine that sleeps in pause() for ever. */
void *t_pause_forever(void *arg);
/* SIGKILL @pid and reap it (nothing for pid <= 0). */
void t_reap(pid_t pid);
/* A clone(CLONE_VM) child sharing our mm (not a thread), in pause(). */
pid_t t_spawn_clone_vm(void);
/* Run @fn(@arg) in a forked child and count its failures as ours. */
void t_in_child_arg(const char *what, void (*fn)(void *), void *arg);
/* Become @uid (gid too), dumpable again as a login's children are; _exit(1) if not. */
void t_become_user(uid_t uid);
/* Clear capability @cap from the effective set: 0 or -errno. */
int t_drop_effective_cap(int cap);
/* The state letter of /proc/<pid>/stat ('Z', 'S', ...), 0 if unreadable. */
char t_proc_state(pid_t pid);
/* A userfaultfd (O_CLOEXEC | O_NONBLOCK) past UFFDIO_API: the fd or -errno. */
int t_uffd_open(void);
/*
 * The next fault of userfaultfd @fd (O_NONBLOCK), waiting up to @wait
 * seconds: 0 with its page (of @page bytes) in *@addr and its flags in
 * *@flags, -ECHILD when *@done was set first (the call that was to fault
 * returned), -ETIMEDOUT, -EPROTO for another event, or -errno.
 */
int t_uffd_fault(int fd, atomic_int *done, double wait, size_t page, uint64_t *addr,
		 uint64_t *flags);
/* STACKINFO_IOC_QUERY_THREADS on @fd for @pid into @arr of @n: 0 or -errno. */
int t_threads_call(int fd, pid_t pid, struct stackinfo_threads *a,
		   struct stackinfo_query *arr, uint32_t n);
/*
 * The same with the proof fd @proof (-1: none): 0 or -errno, and the count
 * the call left into *@count.
 */
int t_threads_proof(int fd, pid_t pid, int proof, struct stackinfo_query *arr, uint32_t n,
		    uint32_t *count);

/* Processes to ask about, children of the caller that die with it. */
struct t_targets {
	pid_t root_proc;	/* root, dumpable */
	pid_t user_proc;	/* @user, dumpable */
	pid_t user_proc2;	/* another of @user */
	pid_t nondumpable;	/* @user, not dumpable */
	pid_t zombie;		/* exited, not reaped */
	pid_t free_pid;		/* a pid nothing has */
};
/*
 * unshare(CLONE_NEWPID) (the calling process is given up to it: call it
 * in a child of the test) and fork pid 1 of the new namespace, which
 * mounts its own /proc in its own mount namespace and runs @fn(@arg): its
 * CHECKs count as the caller's. Returns that child's pid as the caller
 * sees it, alive (pause()) for questions from outside (t_reap() it), or
 * -1.
 */
pid_t t_in_new_pidns(void (*fn)(void *), void *arg);

/* What a target is, for what the kernel says about it. */
enum t_kind { T_PROC, T_OWN, T_KTHREAD, T_ZOMBIE, T_FREE };
/*
 * @fn(@ctx, name, pid, kind) for each target of an access matrix, in
 * turn: the caller itself, @t's processes, init, kthreadd, a
 * clone(CLONE_VM) child of the caller (spawned for it, reaped after).
 */
void t_each_target(const struct t_targets *t,
		   void (*fn)(void *ctx, const char *tname, pid_t pid, enum t_kind kind),
		   void *ctx);
/* Spawn them (failures are CHECKs); reap them. */
void t_targets_spawn(struct t_targets *t, uid_t user);
void t_targets_reap(struct t_targets *t);
/*
 * Fork a sleeping child and PTRACE_SEIZE it: its pid, or 0 where the
 * kernel refuses (Yama's scope 2), said in a "cell:" line for @caller.
 */
pid_t t_seize_child(const char *caller);
/* A child that execs @prog ("@prog 1": thread-sleeper's usage) when told. */
struct t_execer {
	pid_t pid;
	int go;			/* the pipe's write end */
	const char *prog;
};
/* Fork it: 0 or -errno. */
int t_execer_spawn(struct t_execer *e, const char *prog);
/*
 * Tell it to exec, and wait (up to T_WAIT_SECS) until /proc/<pid>/exe names @prog
 * or is refused to us (a setuid exec): 0 or -ETIMEDOUT.
 */
int t_execer_go(struct t_execer *e);

/*
 * @fn(@arg, label) under Yama's ptrace_scope 0, 1 and 2 in turn (label
 * ", Yama scope N"), the scope restored after; once with "" where the
 * kernel has no Yama. The scope found, -1 without Yama.
 */
int t_each_yama_scope(void (*fn)(void *arg, const char *scope), void *arg);
/*
 * Yama's ptrace_scope 3, which cannot be undone (a guest's last test),
 * then @fn under it: 3, or -1 (and @fn not run) where there is no Yama.
 */
int t_under_yama3(void (*fn)(void *arg, const char *scope), void *arg);

/*
 * A thread parked with its stack pointer at @sp (x86-64, arm64): it blocks
 * all signals, moves its SP and sleeps in a raw futex wait without
 * touching the stack, so the kernel's saved SP is exactly @sp.
 */
struct t_parked {
	uint64_t sp;		/* where to put the SP */
	volatile int word;	/* futex: 0 while it should sleep */
	pid_t tid;
	pthread_t th;
};
/* Start it and wait until it sleeps: 0, -ETIMEDOUT, -ENOSYS (elsewhere). */
int t_park(struct t_parked *p, uint64_t sp);
/* Wake it and join it. */
void t_unpark(struct t_parked *p);

/* An SP to park a thread at, and what it is. */
struct t_edge {
	uint64_t sp;
	const char *what;
};
#define T_EDGES 11
/*
 * Map a page, leave a two-page gap, map a page with a gap above it, and
 * list the SPs on their edges: the last byte of a gap (6.1's
 * vma_find(addr + 1) once answered with the mapping above it), the first
 * and last byte of a mapping, the first byte above one, 0, a kernel
 * address and non-canonical ones. The count, 0 (errno set) if mmap fails.
 */
int t_edge_sps(struct t_edge e[T_EDGES]);

#endif
