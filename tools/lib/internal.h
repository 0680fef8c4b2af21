/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libstackinfo's internals, shared by its files and, through the static
 * archive, by the project's tests. Nothing here is exported from the .so.
 */
#ifndef LIBSTACKINFO_INTERNAL_H
#define LIBSTACKINFO_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libstackinfo.h"

#define SI_EXPORT __attribute__((visibility("default")))

/* Internal query flags, never passed to the kernel */
/* skip the search for the VMA below the main stack (costly with PROCMAP_QUERY) */
#define SI_QUERY_NO_MAIN_PREV	(1ULL << 63)
/* the caller needs no ids (tid, tgid) of a tid 0 answer: no /proc read for them */
#define SI_QUERY_NO_IDS		(1ULL << 62)
#define SI_QUERY_INTERNAL	(SI_QUERY_NO_MAIN_PREV | SI_QUERY_NO_IDS)

/*
 * Defined (to 1) by the interposer only: there, pthread_getattr_np is the
 * interposer's own, and glibc's is found by dlsym(RTLD_NEXT) alone.
 */
extern const int si_interposing __attribute__((weak));

/* maps.c: one line of /proc/<pid>/maps, and a streaming reader */
struct si_maps_line {
	uint64_t start, end;
	char perms[5];
	const char *name;	/* points into the line; not NUL-terminated */
	size_t name_len;
};

/* Parse one line (without its newline): 0 or -EINVAL. */
int si_maps_parse_line(const char *line, size_t len, struct si_maps_line *out);
/*
 * Call @fn for every line of the maps file open on @fd, in order. @fn
 * returns 0 to go on, 1 to stop, or a negative errno to stop and fail.
 * Returns 0 or a negative errno.
 */
typedef int (*si_maps_fn)(const struct si_maps_line *line, void *ctx);
int si_maps_scan(int fd, si_maps_fn fn, void *ctx);
/* "rw-p" to STACKINFO_VMA_* */
uint64_t si_perms_flags(const char *perms);
bool si_maps_is_gate(const struct si_maps_line *line);

/*
 * proc.c: small /proc files. @dir is an fd of a /proc/<tid> directory
 * (si_proc_open_tid()); every read of one answer goes through it.
 */
/* read() @fd to its end, up to @size - 1 bytes, NUL-terminated: the length or -errno */
ssize_t si_read_fd(int fd, char *buf, size_t size);
ssize_t si_read_file(const char *path, char *buf, size_t size);
ssize_t si_read_at(int dir, const char *file, char *buf, size_t size);
int si_proc_open_tid(pid_t tid);
int si_proc_start_stack(int dir, uint64_t *start_stack);
/* this process's, read once (/proc/self/stat) and kept */
int si_self_start_stack(uint64_t *start_stack);
/* Pid: and Tgid: of <dir>/status, in the mount's pid namespace */
int si_proc_ids(int dir, pid_t *tid, pid_t *tgid);
/* the calling thread's ids in the mount's namespace (/proc/thread-self) */
int si_proc_self_ids(pid_t *tid, pid_t *tgid);
int si_proc_syscall_sp(int dir, uint64_t *sp);
int si_proc_stack_limit(int dir, uint64_t *cur, uint64_t *max);
/* /proc/<tid>/<file>, /proc/self/<file> for 0: fd or -errno (ESRCH for gone) */
int si_open_tid_file(pid_t tid, const char *file);
/* /proc/<tid>/maps, /proc/self/maps for 0 */
int si_open_maps(pid_t tid);
int si_open_maps_at(int dir);

/*
 * text.c: the text of /proc/stackinfo (and of the in-tree file) parsed
 * back into a query's out fields (valid bits set for the keys that had
 * values); -EINVAL on any unexpected line, unknown key, or key out of
 * order. si_text_query() reads it from @fd with read() alone.
 */
int si_text_parse(const char *text, struct stackinfo_query *q);
int si_text_query(int fd, struct stackinfo_query *q);

/* backends.c */
int si_module_query(int fd, pid_t tid, uint64_t flags,
		    struct stackinfo_query *q);
/* The same with @proof_fd as proof (none if < 0): the raw ABI, for tests. */
int si_module_query_proof(int fd, pid_t tid, uint64_t flags, int proof_fd,
			  struct stackinfo_query *q);
int si_fallback_query(int backend, pid_t tid, uint64_t flags,
		      struct stackinfo_query *q);
/* The same with @maps_fd, if >= 0: the caller's own maps, for its own threads. */
int si_fallback_query_fd(int backend, pid_t tid, uint64_t flags, int maps_fd,
			 struct stackinfo_query *q);
int si_procmap_covering(int fd, uint64_t addr, bool or_next,
			uint64_t *start, uint64_t *end, uint64_t *flags);

/*
 * Files a caller keeps open for its queries (a struct stackinfo_handle's,
 * handle.c), each -1 where the query opens its own: the module's
 * /proc/stackinfo, the in-tree /proc/self/stackinfo, /proc/self/maps.
 * NULL for none. The maps fd serves the caller's own process only.
 */
struct si_files {
	int backend;		/* the backend the files are for */
	int module, proc_self, maps;
};

/* lib.c: the chosen backend, and the query (through @f's files, if any) */
int si_query(pid_t tid, uint64_t flags, struct stackinfo_query *q);
int si_query_in(const struct si_files *f, pid_t tid, uint64_t flags,
		struct stackinfo_query *q);
int si_current_backend(void);
/* PROCMAP_QUERY, else the maps parse: what answers without the kernel's files */
int si_fallback_backend(void);
/* the module's /proc/stackinfo, opened for the caller to close: fd or -errno */
int si_module_open(void);
/*
 * The calling thread's in-tree file, /proc/thread-self/stackinfo, whose
 * tid 0 is the caller: fd (the caller closes it) or -errno.
 */
int si_self_proc_open(void);
/*
 * For stackinfo_pthread_getattr_np(), which makes only the system calls
 * glibc's own function makes: may an ioctl be made now, with no seccomp
 * filter able to meet it (/proc/thread-self/status: no filter, one
 * thread, no signal caught); the backend for such a call (the maps parse
 * where an ioctl may not be made); the caller's query from the in-tree
 * file's or the module's text.
 */
bool si_ioctl_unfiltered(void);
int si_quiet_backend(int *fd);
int si_query_text(int backend, int fd, struct stackinfo_query *q);

/* PID_MAX_LIMIT: no process has more threads, so no larger count is asked */
#define SI_MAX_THREADS	(1U << 22)

/* process.c: every thread of @pid into @q[0..n), each entry a whole struct */
int si_query_process(const struct si_files *f, pid_t pid, uint64_t flags,
		     struct stackinfo_query *q, size_t n, size_t *count);

/*
 * query.c: the public queries into a caller's struct of @size bytes (void *:
 * the compat files name 0.1.0's struct stackinfo_query), errno preserved.
 */
int si_query_thread_sized(pid_t tid, uint64_t flags, void *q, size_t size);
int si_classify_addr_sized(pid_t tid, uint64_t addr, uint64_t flags, void *q,
			   size_t size);
int si_query_process_sized(pid_t pid, uint64_t flags, void *q, size_t n,
			   size_t *count, size_t size);
/* the same through @f's files (NULL: none) */
int si_answer(const struct si_files *f, pid_t tid, uint64_t flags, const uint64_t *addr,
	      void *q, size_t size);
int si_process_answer(const struct si_files *f, pid_t pid, uint64_t flags, void *q,
		      size_t n, size_t *count, size_t size);

/*
 * mainstack.c: glibc's formula for the main stack from a query (@lse the
 * initial stack's end, si_stack_end()): 0, -ENOENT (@lse not in the
 * query's main VMA), -EIO (no rlimit); and the main stack as glibc
 * computes it with the VMA holding it, through the chosen backend
 * (@quiet: as si_quiet_backend() allows).
 */
int si_main_stack_from(const struct stackinfo_query *q, uint64_t lse, uint64_t pagesize,
		       uint64_t *lo, uint64_t *size);
int si_main_stack(bool quiet, uint64_t *lo, uint64_t *size, uint64_t *vma_lo,
		  uint64_t *vma_hi);

/*
 * What the C library knows of its threads, read without its locks, so
 * async-signal-safe (libc-glibc.c, libc-musl.c: one of them is built in).
 * si_stack_end(): where the initial stack's arguments begin (glibc's
 * __libc_stack_end; on musl, argc's address). si_thread_stack(): thread
 * @th's stack as its C library reports it, [*lo, *lo + *size): 1 for a
 * thread with a stack of its own (pthread_create()'s, the user's), 0 for
 * the initial thread (its stack is the kernel's, grown on demand), -ENOTSUP
 * where the library cannot read the C library's description of @th.
 */
uint64_t si_stack_end(void);
int si_thread_stack(pthread_t th, uint64_t *lo, uint64_t *size);

/* backends.c: the end of the highest VMA below @below: 1, 0 for none, -errno */
int si_procmap_prev_end(int fd, uint64_t below, uint64_t *prev_end);
/* lib.c: the backend chosen so far, 0 for none (nothing is chosen here) */
int si_chosen_backend(void);

/* getattr.c: stackinfo_pthread_getattr_np(), saying who answered */
enum si_answer {
	SI_ANSWER_OTHER,	/* not glibc's initial thread: glibc */
	SI_ANSWER_MAIN_GLIBC,	/* the initial thread, glibc (first calls, fallback) */
	SI_ANSWER_MAIN_LIBRARY,	/* the initial thread, the library */
	SI_ANSWERS
};
int si_pthread_getattr_np(pthread_t thread, pthread_attr_t *attr,
			  enum si_answer *how);
/* glibc's descriptions of its struct pthread for libthread_db (libc-glibc.c) */
enum si_db_name {
	SI_DB_SIZEOF_PTHREAD,	/* a uint32_t: the struct's size */
	SI_DB_SCHEDPOLICY,	/* the rest: { bits, count, offset } of a field */
	SI_DB_PRIORITY,
	SI_DB_CANCELHANDLING,
	SI_DB_NEXTEVENT,
	SI_DB_NAMES
};
const uint32_t *si_glibc_db(enum si_db_name name);
/* why the main thread's calls all go to glibc, or NULL (getattr.c) */
const char *si_getattr_off(void);

#endif /* LIBSTACKINFO_INTERNAL_H */
