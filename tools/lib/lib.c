// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: which backend answers, the fds it keeps, and the query.
 *
 * No lock: the backend and each fd are published with a compare-and-swap
 * (a thread that loses the race closes what it opened), so no thread ever
 * waits for another, none holds anything across a syscall, and a child
 * forked while another thread was in here finds nothing held. Two fds are
 * kept, both O_CLOEXEC: the module's /proc/stackinfo, which names no
 * process and serves a fork's child as well as its parent, and, for
 * PROCMAP_QUERY, this process's /proc/self/maps, kept with the pid that
 * opened it and checked against getpid() on every use, because a child
 * made without fork()'s handlers (_Fork(), a raw clone) inherits it and it
 * would describe the parent. No proof fd (/proc/<pid>/mem, auxv) is ever
 * opened: when the module refuses a thread of another process, the answer
 * is PROCMAP_QUERY's or the maps parse's, which carry the kernel's own
 * checks, with their errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static int si_backend;		/* 0 until chosen */
static int si_fallback;		/* the backend without the module, 0 until known */
static int si_module_fd = -1;
/* this process's /proc/self/maps: pid << 32 | fd, 0 for none */
static uint64_t si_maps_slot;

static const char *const si_names[] = {
	[STACKINFO_BACKEND_MODULE] = "module",
	[STACKINFO_BACKEND_PROCMAP_QUERY] = "procmap_query",
	[STACKINFO_BACKEND_MAPS] = "maps",
};

SI_EXPORT const char *stackinfo_backend_name(int backend)
{
	if (backend < STACKINFO_BACKEND_MODULE || backend > STACKINFO_BACKEND_MAPS)
		return NULL;
	return si_names[backend];
}

static int si_module_fd_get(void)
{
	int fd = __atomic_load_n(&si_module_fd, __ATOMIC_ACQUIRE), none = -1;

	if (fd >= 0)
		return fd;
	fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!__atomic_compare_exchange_n(&si_module_fd, &none, fd, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(fd);
		fd = none;
	}
	return fd;
}

int si_self_maps_fd(void)
{
	uint64_t v = __atomic_load_n(&si_maps_slot, __ATOMIC_ACQUIRE), mine;
	pid_t pid = getpid();
	int fd;

	for (;;) {
		if (v && (pid_t)(v >> 32) == pid)
			return (int)(uint32_t)v;
		fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		mine = (uint64_t)pid << 32 | (uint32_t)fd;
		/*
		 * A stale value is the parent's fd, inherited without
		 * fork()'s handlers: the program may have closed that number
		 * and reused it since, so it is left alone (exec closes it).
		 */
		if (__atomic_compare_exchange_n(&si_maps_slot, &v, mine, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return fd;
		close(fd);	/* another thread won; v is its value */
	}
}

static void si_atfork_child(void)
{
	uint64_t v = __atomic_exchange_n(&si_maps_slot, 0, __ATOMIC_ACQ_REL);

	/* fork()'s child runs this before the program does: the fd is ours */
	if (v)
		close((int)(uint32_t)v);
}

__attribute__((constructor)) static void si_init(void)
{
	pthread_atfork(NULL, NULL, si_atfork_child);
}

/*
 * dlclose() of the library (or of the interposer, which carries a copy)
 * must not leave its fds behind; at exit it closes them too.
 */
__attribute__((destructor)) static void si_fini(void)
{
	uint64_t v = __atomic_exchange_n(&si_maps_slot, 0, __ATOMIC_ACQ_REL);
	int fd = __atomic_exchange_n(&si_module_fd, -1, __ATOMIC_ACQ_REL);

	if (v && (pid_t)(v >> 32) == getpid())
		close((int)(uint32_t)v);
	if (fd >= 0)
		close(fd);
	__atomic_store_n(&si_backend, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&si_fallback, 0, __ATOMIC_RELEASE);
}

/* Our own frame is always mapped: ENOTTY before 6.11. */
static int si_procmap_works(int fd)
{
	uint64_t s, e, f;

	return si_procmap_covering(fd, (uintptr_t)__builtin_frame_address(0), false,
				   &s, &e, &f);
}

/*
 * Open what @backend needs: 0; -EOPNOTSUPP if this kernel lacks it;
 * -ENOENT when /proc itself cannot be opened, which decides nothing about
 * the kernel (a chroot or a mount namespace without /proc, for now).
 */
static int si_open_backend(int backend)
{
	int fd;

	switch (backend) {
	case STACKINFO_BACKEND_MODULE:
		fd = si_module_fd_get();
		if (fd >= 0)
			return 0;
		return access("/proc/self", F_OK) ? -ENOENT : -EOPNOTSUPP;
	case STACKINFO_BACKEND_PROCMAP_QUERY:
		fd = si_self_maps_fd();
		if (fd < 0)
			return -ENOENT;
		return si_procmap_works(fd) ? -EOPNOTSUPP : 0;
	case STACKINFO_BACKEND_MAPS:
		return 0;
	default:
		return -EINVAL;
	}
}

static int si_backend_by_name(const char *name)
{
	int b;

	for (b = STACKINFO_BACKEND_MODULE; b <= STACKINFO_BACKEND_MAPS; b++)
		if (!strcmp(name, si_names[b]))
			return b;
	return -EINVAL;
}

SI_EXPORT int stackinfo_set_backend(int backend)
{
	int err = si_open_backend(backend);

	if (err == -ENOENT)
		err = -EOPNOTSUPP;
	if (!err)
		__atomic_store_n(&si_backend, backend, __ATOMIC_RELEASE);
	return err;
}

/*
 * The first usable of module, PROCMAP_QUERY, maps; or the one named by
 * $STACKINFO_BACKEND. Kept for good once chosen, unless it was chosen
 * without /proc: then maps answers (or fails) for now and the next call
 * chooses again.
 */
int si_current_backend(void)
{
	int b = __atomic_load_n(&si_backend, __ATOMIC_ACQUIRE), err = 0, none = 0;
	const char *env;

	if (b)
		return b;
	env = secure_getenv("STACKINFO_BACKEND");
	if (env && *env) {
		b = si_backend_by_name(env);
		if (b < 0)
			return b;
		err = si_open_backend(b);
		if (err)
			return -EOPNOTSUPP;
	} else {
		for (b = STACKINFO_BACKEND_MODULE; b < STACKINFO_BACKEND_MAPS; b++) {
			err = si_open_backend(b);
			if (!err || err == -ENOENT)
				break;
		}
		if (err == -ENOENT)
			return STACKINFO_BACKEND_MAPS;
		if (err)
			b = STACKINFO_BACKEND_MAPS;
	}
	if (!__atomic_compare_exchange_n(&si_backend, &none, b, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		b = none;
	return b;
}

SI_EXPORT int stackinfo_backend(void)
{
	return si_current_backend();
}

/* The best backend without the module: PROCMAP_QUERY, else the maps parse. */
static int si_fallback_backend(void)
{
	int b = __atomic_load_n(&si_fallback, __ATOMIC_ACQUIRE);
	int err;

	if (b)
		return b;
	err = si_open_backend(STACKINFO_BACKEND_PROCMAP_QUERY);
	b = err ? STACKINFO_BACKEND_MAPS : STACKINFO_BACKEND_PROCMAP_QUERY;
	if (err != -ENOENT)
		__atomic_store_n(&si_fallback, b, __ATOMIC_RELEASE);
	return b;
}

static int si_answered_by(int backend, int err, struct stackinfo_query *q)
{
	if (!err)
		q->thread_flags |= STACKINFO_LIB_BACKEND_FLAGS(backend);
	return err;
}

int si_query(pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	int b = si_current_backend(), fb, fd, err;

	if (b < 0)
		return b;
	if (b != STACKINFO_BACKEND_MODULE)
		return si_answered_by(b, si_fallback_query(b, tid, flags, q), q);
	fd = si_module_fd_get();
	if (fd < 0)
		return fd;
	err = si_module_query(fd, tid, flags & ~SI_QUERY_INTERNAL, q);
	/*
	 * Refused (EACCES; ESRCH where hidepid hides the refused target):
	 * /proc answers what the kernel's own checks grant, or says why not.
	 */
	if (!tid || (err != -EACCES && err != -ESRCH))
		return si_answered_by(b, err, q);
	fb = si_fallback_backend();
	return si_answered_by(fb, si_fallback_query(fb, tid, flags, q), q);
}

SI_EXPORT int stackinfo_query_thread(pid_t tid, uint64_t flags,
				     struct stackinfo_query *q)
{
	if (!q)
		return -EFAULT;
	/* PROOF_FD is the raw ABI's: this call has no proof_fd to pass */
	if (flags & ~(uint64_t)(STACKINFO_QUERY_VALID_FLAGS & ~STACKINFO_QUERY_PROOF_FD))
		return -EINVAL;
	return si_query(tid, flags, q);
}
