// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: which backend answers, the fds it keeps, and the query.
 *
 * No lock: the backend and each fd are published with a compare-and-swap
 * (a thread that loses the race closes what it opened), so no thread ever
 * waits for another, none holds anything across a syscall, and a child
 * forked while another thread was in here finds nothing held. Three fds
 * are kept, all O_CLOEXEC: the module's /proc/stackinfo, which names no
 * process and serves a fork's child as well as its parent, and this
 * process's /proc/self/stackinfo (the in-tree file, CONFIG_PROC_STACKINFO)
 * and, for PROCMAP_QUERY, /proc/self/maps, each kept with the pid that
 * opened it and checked against getpid() on every use, because a child
 * made without fork()'s handlers (_Fork(), a raw clone) inherits them and
 * they would describe the parent. No proof fd (/proc/<pid>/mem, auxv) is
 * ever opened: when the module or the in-tree file refuses a thread of
 * another process, the answer is PROCMAP_QUERY's or the maps parse's,
 * which carry the kernel's own checks, with their errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static int si_backend;		/* 0 until chosen */
static int si_fallback;		/* the backend without the module, 0 until known */
static int si_module_fd = -1;
/*
 * This process's /proc/self/maps and /proc/self/stackinfo: pid << 32 |
 * fd (with SI_SLOT_OWN_NS for the latter, see si_proc_check()), 0 for none.
 */
static uint64_t si_maps_slot, si_proc_slot;
#define SI_SLOT_OWN_NS	(1 << 30)	/* fds are below nr_open's ceiling, 2^30 */
#define SI_SLOT_FD(v)	((int)((uint32_t)(v) & ~(uint32_t)SI_SLOT_OWN_NS))

static const char *const si_names[] = {
	[STACKINFO_BACKEND_MODULE] = "module",
	[STACKINFO_BACKEND_PROCMAP_QUERY] = "procmap_query",
	[STACKINFO_BACKEND_MAPS] = "maps",
	[STACKINFO_BACKEND_PROC] = "proc",
};
#define SI_NBACKENDS	((int)(sizeof(si_names) / sizeof(si_names[0])))

/* The default order: the first that opens answers. */
static const int si_order[] = {
	STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
	STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS,
};

SI_EXPORT const char *stackinfo_backend_name(int backend)
{
	if (backend < 1 || backend >= SI_NBACKENDS)
		return NULL;
	return si_names[backend];
}

int si_module_fd_get(void)
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

/*
 * @path of this process (/proc/self/...), opened once per process and
 * published in @slot; @check, if any, vets the new fd first and gives the
 * flags kept with it (0 or SI_SLOT_OWN_NS) or -errno. Returns the slot's
 * low word (the fd and its flags) or -errno.
 */
static int64_t si_self_fd(uint64_t *slot, const char *path, int (*check)(int fd))
{
	uint64_t v = __atomic_load_n(slot, __ATOMIC_ACQUIRE), mine;
	pid_t pid = getpid();
	int fd, flags;

	for (;;) {
		if (v && (pid_t)(v >> 32) == pid)
			return (uint32_t)v;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		flags = check ? check(fd) : 0;
		if (flags < 0) {
			close(fd);
			return flags;
		}
		mine = (uint64_t)pid << 32 | (uint32_t)fd | (uint32_t)flags;
		/*
		 * A stale value is the parent's fd, inherited without
		 * fork()'s handlers: the program may have closed that number
		 * and reused it since, so it is left alone (exec closes it).
		 */
		if (__atomic_compare_exchange_n(slot, &v, mine, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return (uint32_t)mine;
		close(fd);	/* another thread won; v is its value */
	}
}

int si_self_maps_fd(void)
{
	int64_t v = si_self_fd(&si_maps_slot, "/proc/self/maps", NULL);

	return v < 0 ? (int)v : SI_SLOT_FD(v);
}

/*
 * The in-tree file answers tid 0 for ITS thread (the group leader here),
 * so the caller is asked about by number: gettid() where it names the
 * caller in the numbers of the fd's /proc mount (SI_SLOT_OWN_NS), else the
 * mount's own number for it (/proc/thread-self: a pid namespace of its
 * own under the outer /proc). The file must answer for the caller either
 * way, or it is of no use here.
 */
static int si_proc_ask_self(int fd, bool own_ns, uint64_t flags,
			    struct stackinfo_query *q)
{
	pid_t tid = gettid(), tgid;
	int err;

	if (!own_ns) {
		err = si_proc_self_ids(&tid, &tgid);
		if (err)
			return err;
	}
	err = si_module_query(fd, tid, flags, q);
	/* a number that named another thread: never its answer for ours */
	if (!err && !(q->thread_flags & STACKINFO_THREAD_SELF))
		err = -ESRCH;
	return err;
}

static int si_proc_check(int fd)
{
	struct stackinfo_query q;
	int err;

	if (!si_proc_ask_self(fd, true, STACKINFO_QUERY_NO_SP, &q) &&
	    q.tgid == (uint32_t)getpid())
		return SI_SLOT_OWN_NS;
	err = si_proc_ask_self(fd, false, STACKINFO_QUERY_NO_SP, &q);
	return err ? -EOPNOTSUPP : 0;
}

static int64_t si_self_proc(void)
{
	return si_self_fd(&si_proc_slot, "/proc/self/stackinfo", si_proc_check);
}

int si_self_proc_fd(void)
{
	int64_t v = si_self_proc();

	return v < 0 ? (int)v : SI_SLOT_FD(v);
}

/*
 * The in-tree backend: this process's threads through the kept fd, by
 * number; another process's through its own /proc/<tid>/stackinfo,
 * opened for the call (the open runs the kernel's check, as maps's does).
 */
static int si_proc_query(pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	int64_t v = si_self_proc();
	int fd, err;

	if (v < 0)
		return (int)v;
	fd = SI_SLOT_FD(v);
	if (!tid) {
		err = si_proc_ask_self(fd, v & SI_SLOT_OWN_NS, flags, q);
		q->tid = 0;	/* the request as the caller made it */
		return err;
	}
	err = si_module_query(fd, tid, flags, q);
	if (err != -ESRCH)
		return err;	/* a thread of this process, or refused */
	fd = si_open_tid_file(tid, "stackinfo");
	if (fd < 0)
		return fd;
	err = si_module_query(fd, tid, flags, q);
	close(fd);
	return err;
}

/* Empty @slot; close its fd if this process opened it (any, with !@check). */
static void si_slot_close(uint64_t *slot, bool check)
{
	uint64_t v = __atomic_exchange_n(slot, 0, __ATOMIC_ACQ_REL);

	if (v && (!check || (pid_t)(v >> 32) == getpid()))
		close(SI_SLOT_FD(v));
}

static void si_atfork_child(void)
{
	/* fork()'s child runs this before the program does: the fds are ours */
	si_slot_close(&si_maps_slot, false);
	si_slot_close(&si_proc_slot, false);
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
	int fd = __atomic_exchange_n(&si_module_fd, -1, __ATOMIC_ACQ_REL);

	si_slot_close(&si_maps_slot, true);
	si_slot_close(&si_proc_slot, true);
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
	case STACKINFO_BACKEND_PROC:
		if ((backend == STACKINFO_BACKEND_PROC ? si_self_proc() :
							 si_module_fd_get()) >= 0)
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

	for (b = 1; b < SI_NBACKENDS; b++)
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
 * The first usable of in-tree, module, PROCMAP_QUERY, maps; or the one named by
 * $STACKINFO_BACKEND. Kept for good once chosen, unless it was chosen
 * without /proc: then maps answers (or fails) for now and the next call
 * chooses again.
 */
int si_current_backend(void)
{
	int b = __atomic_load_n(&si_backend, __ATOMIC_ACQUIRE), err = 0, none = 0;
	const char *env;
	size_t i;

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
		for (i = 0; i < sizeof(si_order) / sizeof(si_order[0]); i++) {
			b = si_order[i];
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

/*
 * The best backend without the module or the in-tree file: PROCMAP_QUERY,
 * else the maps parse.
 */
int si_fallback_backend(void)
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

/*
 * A fallback's answer about the caller: its sigaltstack is the one thing
 * the kernel tells every thread about itself (sigaltstack(2)).
 */
static int si_fallback_self(int backend, uint64_t flags, struct stackinfo_query *q)
{
	int err = si_fallback_query(backend, 0, flags, q);
	stack_t ss;

	if (!err && !(flags & STACKINFO_QUERY_NO_SP) && !sigaltstack(NULL, &ss)) {
		q->ss_sp = (uintptr_t)ss.ss_sp;
		q->ss_size = ss.ss_size;
		q->ss_flags = (uint32_t)ss.ss_flags;
		q->valid |= STACKINFO_VALID_ALTSTACK;
	}
	return si_answered_by(backend, err, q);
}

/*
 * With STACKINFO_LIB_ASYNC_SAFE only what is safe in a signal handler: the
 * module's or the in-tree file's ioctl on an fd opened before, about the
 * caller (memset and ioctl); nothing is chosen or opened here.
 */
static int si_query_async_safe(pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	int b = __atomic_load_n(&si_backend, __ATOMIC_ACQUIRE), fd;
	int64_t v;

	flags &= ~(SI_QUERY_INTERNAL | STACKINFO_LIB_ASYNC_SAFE);
	if (tid)
		return -EOPNOTSUPP;
	if (b == STACKINFO_BACKEND_MODULE) {
		fd = __atomic_load_n(&si_module_fd, __ATOMIC_ACQUIRE);
		if (fd < 0)
			return -EOPNOTSUPP;
		return si_answered_by(b, si_module_query(fd, 0, flags, q), q);
	}
	v = (int64_t)__atomic_load_n(&si_proc_slot, __ATOMIC_ACQUIRE);
	/* our own fd, numbers of our namespace: no /proc/thread-self parse */
	if (b != STACKINFO_BACKEND_PROC || !v || (pid_t)(v >> 32) != getpid() ||
	    !(v & SI_SLOT_OWN_NS))
		return -EOPNOTSUPP;
	return si_answered_by(b, si_proc_ask_self(SI_SLOT_FD(v), true, flags, q), q);
}

int si_query(pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	int b, fb, fd, err;

	if (flags & STACKINFO_LIB_ASYNC_SAFE)
		return si_query_async_safe(tid, flags, q);
	b = si_current_backend();
	if (b < 0)
		return b;
	if (b == STACKINFO_BACKEND_PROC) {
		err = si_proc_query(tid, flags & ~SI_QUERY_INTERNAL, q);
	} else if (b == STACKINFO_BACKEND_MODULE) {
		fd = si_module_fd_get();
		if (fd < 0)
			return fd;
		err = si_module_query(fd, tid, flags & ~SI_QUERY_INTERNAL, q);
	} else if (!tid) {
		return si_fallback_self(b, flags, q);
	} else {
		return si_answered_by(b, si_fallback_query(b, tid, flags, q), q);
	}
	/*
	 * Refused (EACCES; ESRCH where hidepid hides the refused target):
	 * /proc answers what the kernel's own checks grant, or says why not.
	 */
	if (!tid || (err != -EACCES && err != -ESRCH))
		return si_answered_by(b, err, q);
	fb = si_fallback_backend();
	return si_answered_by(fb, si_fallback_query(fb, tid, flags, q), q);
}
