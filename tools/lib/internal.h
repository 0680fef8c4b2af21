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

/* Internal query flag, never passed to the kernel: skip the search for the
 * VMA below the main stack (costly with PROCMAP_QUERY). */
#define SI_QUERY_NO_MAIN_PREV	(1ULL << 63)

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

/* proc.c: small /proc files; @tid 0 means the calling process ("self") */
ssize_t si_read_file(const char *path, char *buf, size_t size);
int si_proc_start_stack(pid_t tid, uint64_t *start_stack);
int si_proc_tgid(pid_t tid, pid_t *tgid);
int si_proc_syscall_sp(pid_t tid, uint64_t *sp);
int si_open_maps(pid_t tid);

/* backends.c */
int si_module_query(int fd, pid_t tid, uint64_t flags,
		    struct stackinfo_query *q);
/* The same with @proof_fd (/proc/<pid>/mem or auxv) as proof; none if < 0. */
int si_module_query_proof(int fd, pid_t tid, uint64_t flags, int proof_fd,
			  struct stackinfo_query *q);
int si_fallback_query(int backend, int self_maps_fd, pid_t tid,
		      uint64_t flags, struct stackinfo_query *q);
int si_procmap_covering(int fd, uint64_t addr, bool or_next,
			uint64_t *start, uint64_t *end, uint64_t *flags);

/* lib.c: the chosen backend and its fds */
int si_query(pid_t tid, uint64_t flags, struct stackinfo_query *q);
int si_current_backend(void);

/* stackinfo_pthread_getattr_np(), saying who answered (for statistics) */
enum si_answer {
	SI_ANSWER_OTHER,	/* not glibc's initial thread: glibc */
	SI_ANSWER_MAIN_GLIBC,	/* the initial thread, glibc (first calls, fallback) */
	SI_ANSWER_MAIN_LIBRARY,	/* the initial thread, the library */
	SI_ANSWERS
};
int si_pthread_getattr_np(pthread_t thread, pthread_attr_t *attr,
			  enum si_answer *how);

#endif /* LIBSTACKINFO_INTERNAL_H */
