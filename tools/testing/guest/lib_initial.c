// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * "Is this glibc's initial thread?" decided as glibc decides it, on every
 * path into the library. glibc takes a thread's stack from /proc/self/maps
 * only for its initial thread (the one whose struct pthread has no stack
 * block); a child forked by a worker thread is that worker, stack block
 * and all, though the kernel makes it the group leader. For each path the
 * library's answer is compared with glibc's own pthread_getattr_np (taken
 * from libc.so.6 by handle), in the same process, three times (the
 * library answers for itself from its third call on):
 *  - libstackinfo linked in: the main thread; a child forked from it; a
 *    child forked from a worker, and that child's own child;
 *  - the interposer dlopen()ed late: from the main thread; from a worker
 *    (the main thread then learns it is the initial one); in a child
 *    forked from a worker (whose only thread is the group leader);
 *  - the interposer preloaded (this program run again under LD_PRELOAD):
 *    the main thread, children forked from it and from a worker.
 * In a child of a worker, glibc's answer must differ from the main stack,
 * or the case would prove nothing. The initial thread's next call must be
 * the library's own: it opens its files through open()/openat(), which
 * this program stands in front of and counts (glibc's pthread_getattr_np
 * opens /proc/self/maps inside libc, not through them); with no fd to
 * spare it must then fail as glibc's does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

typedef int (*getattr_fn)(pthread_t, pthread_attr_t *);

static getattr_fn glibc;
static char preload[PATH_MAX + 64];

/* opens of the library's files through the open()/openat() symbols */
static int lib_opens;

static void count_open(const char *path)
{
	if (!strcmp(path, "/proc/stackinfo") || !strcmp(path, "/proc/thread-self/stackinfo") ||
	    !strcmp(path, "/proc/self/maps") || !strcmp(path, "/proc/thread-self/status"))
		__atomic_fetch_add(&lib_opens, 1, __ATOMIC_RELAXED);
}

int open(const char *path, int flags, ...)
{
	mode_t m = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		m = va_arg(ap, mode_t);
		va_end(ap);
	}
	return openat(AT_FDCWD, path, flags, m);
}

int openat(int dir, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	mode_t m = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		m = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!real)
		real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	count_open(path);
	return real(dir, path, flags, m);
}
static pthread_t main_thread;

struct st {
	void *addr;
	size_t size, guard;
};

static int get(getattr_fn f, pthread_t th, struct st *o)
{
	pthread_attr_t attr;
	int ret = f(th, &attr);

	if (ret)
		return ret;
	pthread_attr_getstack(&attr, &o->addr, &o->size);
	pthread_attr_getguardsize(&attr, &o->guard);
	pthread_attr_destroy(&attr);
	return 0;
}

/* @f on @th against glibc, three times. */
static void same(const char *what, getattr_fn f, pthread_t th)
{
	struct st g, s;
	int i, rg, rs;

	for (i = 0; i < 3; i++) {
		rg = get(glibc, th, &g);
		rs = get(f, th, &s);
		CHECK(!rg && !rs, "%s, call %d: glibc %d, library %d", what, i + 1, rg, rs);
		if (rg || rs)
			return;
		CHECK(s.addr == g.addr && s.size == g.size && s.guard == g.guard,
		      "%s, call %d: library %p+%#zx guard %zu, glibc %p+%#zx guard %zu",
		      what, i + 1, s.addr, s.size, s.guard, g.addr, g.size, g.guard);
	}
}

/*
 * The library answers the initial thread itself: its call opens the
 * library's files; with no fd to spare it fails as glibc's does.
 */
static void answers_itself(const char *what, getattr_fn f)
{
	int fd, ret, gret, before = __atomic_load_n(&lib_opens, __ATOMIC_RELAXED);
	struct rlimit rl, low;
	struct st s;

	ret = get(f, pthread_self(), &s);
	CHECK(!ret && __atomic_load_n(&lib_opens, __ATOMIC_RELAXED) > before,
	      "%s: %d, the library's files opened %d times (glibc answered?)", what, ret,
	      __atomic_load_n(&lib_opens, __ATOMIC_RELAXED) - before);
	fd = dup(0);
	if (fd >= 0)
		close(fd);
	getrlimit(RLIMIT_NOFILE, &rl);
	low = rl;
	low.rlim_cur = fd;
	setrlimit(RLIMIT_NOFILE, &low);
	ret = get(f, pthread_self(), &s);
	gret = get(glibc, pthread_self(), &s);
	setrlimit(RLIMIT_NOFILE, &rl);
	CHECK(ret == gret && ret == EMFILE, "%s: with no fd to spare: %d, glibc %d", what, ret,
	      gret);
}

/* The child of a worker: glibc's answer is the worker's stack. */
static void not_initial(const char *what)
{
	struct st g;
	void *addr;
	size_t size;

	CHECK(gettid() == getpid(), "%s: not the group leader", what);
	CHECK(!get(glibc, pthread_self(), &g) && !stackinfo_main_stack(&addr, &size) &&
	      g.addr != addr, "%s: glibc's answer is the main stack's (%p)", what, g.addr);
}

static getattr_fn load_late(void)
{
	void *h = dlopen(preload, RTLD_NOW | RTLD_LOCAL);
	getattr_fn f = h ? (getattr_fn)dlsym(h, "pthread_getattr_np") : NULL;

	CHECK(f, "dlopen %s: %s", preload, dlerror());
	return f;
}

/* Run @fn in a child process; CHECK its exit status. */
static void in_child(const char *what, void (*fn)(void))
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		fn();
		fflush(NULL);
		_exit(t_result());
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "%s: child failed", what);
}

static void (*worker_job)(void);

static void *worker(void *arg)
{
	(void)arg;
	worker_job();
	return NULL;
}

static void on_worker(void (*fn)(void))
{
	pthread_t th;

	worker_job = fn;
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
}

/* ---- libstackinfo linked in: its constructor ran on the initial thread */

static void linked_grandchild(void)
{
	not_initial("linked, grandchild of a worker");
	same("linked, grandchild of a worker", stackinfo_pthread_getattr_np, pthread_self());
}

static void linked_worker_child(void)
{
	getattr_fn late;

	not_initial("linked, child of a worker");
	same("linked, child of a worker", stackinfo_pthread_getattr_np, pthread_self());
	in_child("linked, grandchild of a worker", linked_grandchild);
	/* loaded here, its constructor runs on a group leader that is not initial */
	late = load_late();
	if (late)
		same("dlopen in a child of a worker", late, pthread_self());
}

static void fork_from_worker(void)
{
	in_child("linked, child of a worker", linked_worker_child);
}

static void linked_main_child(void)
{
	getattr_fn late;

	same("linked, child of the main thread", stackinfo_pthread_getattr_np, pthread_self());
	answers_itself("linked, child of the main thread", stackinfo_pthread_getattr_np);
	/* dlopen from the initial thread */
	late = load_late();
	if (late) {
		same("dlopen from the main thread", late, pthread_self());
		answers_itself("dlopen from the main thread", late);
	}
}

static void ask_main_from_worker(void)
{
	same("linked, the main thread asked from a worker", stackinfo_pthread_getattr_np,
	     main_thread);
}

/* ---- the interposer dlopen()ed by a worker */

static getattr_fn late_from_worker;

static void late_grandchild(void)
{
	not_initial("dlopen from a worker, its child");
	same("dlopen from a worker, its child", late_from_worker, pthread_self());
}

static void worker_loads(void)
{
	late_from_worker = load_late();
	if (!late_from_worker)
		return;
	same("dlopen from a worker, the worker", late_from_worker, pthread_self());
	same("dlopen from a worker, the main thread asked from it", late_from_worker,
	     main_thread);
	in_child("dlopen from a worker, its child", late_grandchild);
}

static void late_worker_child(void)
{
	on_worker(worker_loads);
	if (!late_from_worker)
		return;
	same("dlopen from a worker, then the main thread", late_from_worker, pthread_self());
	answers_itself("dlopen from a worker, then the main thread", late_from_worker);
}

/* ---- preloaded: pthread_getattr_np is the interposer's */

static void preloaded_worker_child(void)
{
	not_initial("preloaded, child of a worker");
	same("preloaded, child of a worker", pthread_getattr_np, pthread_self());
}

static void preloaded_fork_from_worker(void)
{
	in_child("preloaded, child of a worker", preloaded_worker_child);
}

static void preloaded_main_child(void)
{
	same("preloaded, child of the main thread", pthread_getattr_np, pthread_self());
}

static int preloaded(void)
{
	CHECK(pthread_getattr_np != glibc, "pthread_getattr_np is glibc's: not preloaded?");
	same("preloaded, main thread", pthread_getattr_np, pthread_self());
	answers_itself("preloaded, main thread", pthread_getattr_np);
	in_child("preloaded, child of the main thread", preloaded_main_child);
	on_worker(preloaded_fork_from_worker);
	return t_result();
}

/*
 * The interposer beside libstackinfo.so (build/lib here, /usr/lib in the
 * guest), or, for the static _san build, in ../../lib or /usr/lib.
 */
static int find_preload(const char *exe)
{
	const char *dirs[3] = { NULL, "/usr/lib", NULL };
	char from_exe[PATH_MAX], from_lib[PATH_MAX];
	Dl_info info;
	size_t i;

	if (dladdr((void *)stackinfo_backend, &info) && info.dli_fname &&
	    strcmp(info.dli_fname, exe) && strrchr(info.dli_fname, '/')) {
		snprintf(from_lib, sizeof(from_lib), "%.*s",
			 (int)(strrchr(info.dli_fname, '/') - info.dli_fname), info.dli_fname);
		dirs[0] = from_lib;
	}
	snprintf(from_exe, sizeof(from_exe), "%.*s/../../lib",
		 (int)(strrchr(exe, '/') - exe), exe);
	dirs[dirs[0] ? 2 : 0] = from_exe;
	for (i = 0; i < 3; i++) {
		if (!dirs[i])
			continue;
		snprintf(preload, sizeof(preload), "%s/libstackinfo-preload.so", dirs[i]);
		if (!access(preload, R_OK))
			return 0;
	}
	fprintf(stderr, "libstackinfo-preload.so not found\n");
	return -1;
}

static void run_preloaded(const char *self)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setenv("LD_PRELOAD", preload, 1);
		/* the _san build: ASan need not come first in that list */
		setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 1);
		execl(self, self, "preloaded", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "run again under LD_PRELOAD: failed");
}

int main(int argc, char **argv)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	char exe[PATH_MAX];
	ssize_t n;

	main_thread = pthread_self();
	glibc = libc ? (getattr_fn)dlsym(libc, "pthread_getattr_np") : NULL;
	if (!glibc) {
		fprintf(stderr, "glibc's pthread_getattr_np: %s\n", dlerror());
		return 1;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	if (find_preload(exe))
		return 1;
	if (argc > 1 && !strcmp(argv[1], "preloaded"))
		return preloaded();
	{
		Dl_info info;

		fprintf(stderr, "backend %s, library %s, interposer %s\n",
			stackinfo_backend_name(stackinfo_backend()),
			dladdr((void *)stackinfo_backend, &info) ? info.dli_fname : "?",
			preload);
	}

	same("linked, main thread", stackinfo_pthread_getattr_np, pthread_self());
	answers_itself("linked, main thread", stackinfo_pthread_getattr_np);
	on_worker(ask_main_from_worker);
	in_child("linked, child of the main thread", linked_main_child);
	on_worker(fork_from_worker);
	in_child("dlopen from a worker", late_worker_child);
	run_preloaded(exe);
	return t_result();
}
