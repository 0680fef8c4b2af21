// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: which backend answers, and the query.
 *
 * The library keeps no file descriptor: every call opens what it asks
 * (O_CLOEXEC), asks, and closes it before it returns. A program may close
 * every fd (closefrom(), close_range(), a daemon's start-up), dup2() over
 * any number, fork() by any means, run out of fds or be forbidden to open
 * files: the library never closes, asks or keeps a number it did not open
 * for the call at hand, and fails where an open fails, as glibc's
 * pthread_getattr_np() does. Nothing is keyed on the process either
 * (getpid()): a child made by _Fork(), a raw clone or a PID 1 of a new pid
 * namespace opens its own files. No lock: the backend, once chosen, is
 * published with a compare-and-swap, so no thread ever waits for another
 * and a child forked while another thread was in here finds nothing held.
 * No proof fd (/proc/<pid>/mem, auxv) is ever opened: when the module or
 * the in-tree file refuses a thread of another process, the answer is
 * PROCMAP_QUERY's or the maps parse's, which carry the kernel's own
 * checks, with their errno.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

static int si_backend;		/* 0 until chosen */
static int si_fallback;		/* the backend without the module, 0 until known */

/*
 * glibc's __libc_single_threaded (2.32 on): false from the process's first
 * pthread_create() on, for good. Where it is false a thread may be there,
 * so no ioctl a filter might meet is made and the status text is not read
 * to learn it. Found by the dynamic linker at load (dlsym() takes its lock,
 * which a child forked while another thread held it would find held for
 * good); NULL in a static program (no dynamic linker to ask: AT_BASE 0,
 * unless this is the interposer, which always has one), on musl and before
 * glibc 2.32.
 */
static const char *si_single_threaded;

__attribute__((constructor)) static void si_lib_init(void)
{
	if (getauxval(AT_BASE) || &si_interposing) {
		si_single_threaded = dlsym(RTLD_DEFAULT, "__libc_single_threaded");
		if (!si_single_threaded)
			dlerror();	/* ours, not the program's */
	}
}

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

int si_module_open(void)
{
	int fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * The in-tree file of the calling thread: its tid 0 is the caller in
 * whatever numbers the /proc mount has, so nothing needs a number.
 */
int si_self_proc_open(void)
{
	int fd = open("/proc/thread-self/stackinfo", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* One STACKINFO_IOC_QUERY on the file @fd (closed here) about @tid. */
static int si_ask_close(int fd, pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	int err;

	if (fd < 0)
		return fd;
	err = si_module_query(fd, tid, flags, q);
	close(fd);
	return err;
}

/* One STACKINFO_IOC_QUERY about @tid on @kept if open (>= 0), else on a file @open_fn opens. */
static int si_ask_on(int kept, int (*open_fn)(void), pid_t tid, uint64_t flags,
		     struct stackinfo_query *q)
{
	return kept >= 0 ? si_module_query(kept, tid, flags, q) : si_ask_close(open_fn(), tid, flags, q);
}

/*
 * The in-tree backend: the caller through its own thread's file;
 * another thread through its /proc/<tid>/stackinfo, whose open runs the
 * kernel's check, as maps's does. With a kept /proc/self/stackinfo (@self,
 * >= 0), whose ioctls answer about this process's threads by the /proc
 * mount's numbers: a thread of this process through it, and the caller by
 * the number gettid() gives, taken only where the kernel's answer says it
 * is the caller (STACKINFO_THREAD_SELF: the mount's pid namespace is the
 * caller's, the file this process's); else as without it.
 */
static int si_proc_query(int self, pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	int err;

	if (self >= 0) {
		err = si_module_query(self, tid ? tid : (pid_t)syscall(SYS_gettid), flags, q);
		if (!err && (tid || (q->thread_flags & STACKINFO_THREAD_SELF))) {
			q->tid = (uint32_t)tid;	/* the request as the caller made it */
			return 0;
		}
		if (err && err != -ESRCH)
			return err;
	}
	if (!tid) {
		err = si_ask_close(si_self_proc_open(), 0, flags, q);
		q->tid = 0;	/* the request as the caller made it */
		return err;
	}
	return si_ask_close(si_open_tid_file(tid, "stackinfo"), tid, flags, q);
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
	struct stackinfo_query q;
	int fd, err;

	switch (backend) {
	case STACKINFO_BACKEND_MODULE:
		fd = si_module_open();
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		return access("/proc/self", F_OK) ? -ENOENT : -EOPNOTSUPP;
	case STACKINFO_BACKEND_PROC:
		/* a file that does not answer for the caller is of no use */
		err = si_ask_close(si_self_proc_open(), 0, STACKINFO_QUERY_NO_SP, &q);
		if (!err && (q.thread_flags & STACKINFO_THREAD_SELF))
			return 0;
		return access("/proc/self", F_OK) ? -ENOENT : -EOPNOTSUPP;
	case STACKINFO_BACKEND_PROCMAP_QUERY:
		fd = si_open_maps(0);
		if (fd < 0)
			return -ENOENT;
		err = si_procmap_works(fd);
		close(fd);
		return err ? -EOPNOTSUPP : 0;
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
	int saved = errno, err = si_open_backend(backend);

	if (err == -ENOENT)
		err = -EOPNOTSUPP;
	if (!err)
		__atomic_store_n(&si_backend, backend, __ATOMIC_RELEASE);
	errno = saved;
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

int si_chosen_backend(void)
{
	return __atomic_load_n(&si_backend, __ATOMIC_ACQUIRE);
}

SI_EXPORT int stackinfo_backend(void)
{
	int saved = errno, b = si_current_backend();

	errno = saved;
	return b;
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
static int si_fallback_self(int backend, int maps, uint64_t flags, struct stackinfo_query *q)
{
	int err = si_fallback_query_fd(backend, 0, flags, maps, q);
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
 * module's or the in-tree file's ioctl about the caller, on a file opened
 * and closed for it (memset, open, ioctl, close); nothing is chosen here.
 */
static int si_query_async_safe(pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	int b = __atomic_load_n(&si_backend, __ATOMIC_ACQUIRE), fd;

	flags &= ~(SI_QUERY_INTERNAL | STACKINFO_LIB_ASYNC_SAFE);
	if (tid)
		return -EOPNOTSUPP;
	if (b == STACKINFO_BACKEND_MODULE)
		fd = si_module_open();
	else if (b == STACKINFO_BACKEND_PROC)
		fd = si_self_proc_open();
	else
		return -EOPNOTSUPP;
	return si_answered_by(b, si_ask_close(fd, 0, flags, q), q);
}

int si_query(pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	return si_query_in(NULL, tid, flags, q);
}

static const struct si_files si_no_files = { 0, -1, -1, -1 };

int si_query_in(const struct si_files *f, pid_t tid, uint64_t flags,
		struct stackinfo_query *q)
{
	int b, fb, err;

	if (flags & STACKINFO_LIB_ASYNC_SAFE)
		return si_query_async_safe(tid, flags, q);
	b = f ? f->backend : si_current_backend();
	if (!f)
		f = &si_no_files;
	if (b < 0)
		return b;
	if (b == STACKINFO_BACKEND_PROC)
		err = si_proc_query(f->proc_self, tid, flags & ~SI_QUERY_INTERNAL, q);
	else if (b == STACKINFO_BACKEND_MODULE)
		err = si_ask_on(f->module, si_module_open, tid, flags & ~SI_QUERY_INTERNAL, q);
	else if (!tid)
		return si_fallback_self(b, f->maps, flags, q);
	else
		return si_answered_by(b, si_fallback_query_fd(b, tid, flags, f->maps, q), q);
	/*
	 * Refused (EACCES; ESRCH where hidepid hides the refused target):
	 * /proc answers what the kernel's own checks grant, or says why not.
	 */
	if (!tid || (err != -EACCES && err != -ESRCH))
		return si_answered_by(b, err, q);
	fb = si_fallback_backend();
	return si_answered_by(fb, si_fallback_query_fd(fb, tid, flags, f->maps, q), q);
}

/*
 * The value of the "Key:" line of a /proc status text, or NULL.
 */
static const char *si_status_value(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p = text;

	while ((p = strstr(p, key))) {
		if (p == text || p[-1] == '\n') {
			p += len;
			while (*p == ' ' || *p == '\t')
				p++;
			return p;
		}
		p += len;
	}
	return NULL;
}

/* Does the value at @p, up to its line's end, consist of @digits only? */
static bool si_status_is(const char *p, const char *digits)
{
	if (!p || !strchr(digits, *p))
		return false;
	while (*p && *p != '\n') {
		if (!strchr(digits, *p))
			return false;
		p++;
	}
	return true;
}

/*
 * May a call make an ioctl(2) that glibc's pthread_getattr_np() never
 * makes, with no seccomp filter able to meet it? Only where the calling
 * thread has no filter (or strict mode) now and none can be put on it
 * before the ioctl returns: a filter comes from the thread itself or, by
 * SECCOMP_FILTER_FLAG_TSYNC, from another thread of its process
 * (kernel/seccomp.c, seccomp_set_mode_filter()), so the process must have
 * this one thread (no other runs user code: an exiting thread still
 * counts in Threads) and catch no signal but glibc's own (no handler of
 * the program's can run in this thread between the read and the ioctl). Not where glibc says a thread
 * was ever made (si_single_threaded). Else all three from one read of
 * /proc/thread-self/status (openat, read, close); false where it cannot
 * be read or a line is missing (no CONFIG_SECCOMP: no Seccomp line).
 */
/*
 * glibc's own handlers: SIGCANCEL (32) and SIGSETXID (33), which its
 * sigaction() refuses to give a program (nptl's __is_internal_signal()),
 * and which install no filter. glibc 2.31's libpthread catches both from
 * its start; SigCgt's bit N - 1 is signal N.
 */
#define SI_GLIBC_SIGNALS	((1ULL << 31) | (1ULL << 32))

/* No signal caught but glibc's own: the "SigCgt:" value @p, hex. */
static bool si_no_handler(const char *p)
{
	unsigned long long mask;
	char *end;

	if (!p || !si_status_is(p, "0123456789abcdef"))
		return false;
	errno = 0;
	mask = strtoull(p, &end, 16);
	return !errno && (*end == '\n' || !*end) && !(mask & ~SI_GLIBC_SIGNALS);
}

bool si_ioctl_unfiltered(void)
{
	char buf[4096];

	if (si_single_threaded && !__atomic_load_n(si_single_threaded, __ATOMIC_RELAXED))
		return false;
	if (si_read_file("/proc/thread-self/status", buf, sizeof(buf)) < 0)
		return false;
	return si_status_is(si_status_value(buf, "Seccomp:"), "0") &&
	       si_status_is(si_status_value(buf, "Threads:"), "1") &&
	       si_no_handler(si_status_value(buf, "SigCgt:"));
}

/*
 * The caller's in-tree file, else the module's, opened for a quiet call
 * (openat alone, no probe): the backend, its fd in *@fd; -ENOENT where
 * neither opens.
 */
static int si_quiet_open(int *fd)
{
	*fd = si_self_proc_open();
	if (*fd >= 0)
		return STACKINFO_BACKEND_PROC;
	*fd = si_module_open();
	if (*fd >= 0)
		return STACKINFO_BACKEND_MODULE;
	return -ENOENT;
}

/*
 * The backend for a call that may make only the system calls glibc's
 * pthread_getattr_np() makes (openat, read, close, prlimit64 and, for
 * the CPU set, sched_getaffinity): the in-tree file and the module are
 * read as text (si_query_text(), handed over open in *@fd, or opened
 * there when *@fd is -1), PROCMAP_QUERY only while si_ioctl_unfiltered()
 * says that no filter can meet its ioctl, and the maps parse otherwise.
 * The chosen backend serves if there is one; else the one
 * $STACKINFO_BACKEND names, or the in-tree file or the module if it opens
 * (then chosen for good, as si_current_backend() would choose it), or,
 * while no filter can meet a probe's ioctl, si_current_backend()'s
 * choice; else the maps parse, for this call.
 */
int si_quiet_backend(int *fd)
{
	int b = __atomic_load_n(&si_backend, __ATOMIC_ACQUIRE), none = 0;
	const char *env;

	*fd = -1;
	if (!b) {
		env = secure_getenv("STACKINFO_BACKEND");
		if (env && *env) {
			b = si_backend_by_name(env);
			if (b < 0)
				return b;
		} else {
			b = si_quiet_open(fd);
			if (b > 0)
				__atomic_compare_exchange_n(&si_backend, &none, b, false,
							    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
			else if (si_ioctl_unfiltered())
				return si_current_backend();
			else
				return STACKINFO_BACKEND_MAPS;
		}
	}
	if (b == STACKINFO_BACKEND_PROCMAP_QUERY && !si_ioctl_unfiltered())
		return STACKINFO_BACKEND_MAPS;
	return b;
}

/*
 * The caller's query from the text of the in-tree file or the module's:
 * @fd, which it closes, or one it opens when @fd is -1.
 */
int si_query_text(int backend, int fd, struct stackinfo_query *q)
{
	int err;

	if (fd < 0)
		fd = backend == STACKINFO_BACKEND_PROC ? si_self_proc_open() : si_module_open();
	if (fd < 0)
		return fd;
	err = si_text_query(fd, q);
	close(fd);
	return si_answered_by(backend, err, q);
}

