// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library's smaller promises, each against the kernel or glibc in the
 * same guest (run as root):
 *  - stackinfo_query_thread() refuses STACKINFO_QUERY_PROOF_FD (EINVAL):
 *    that flag is the raw ABI's, for callers holding a proof of their own;
 *  - every request the library sends the module is one a VER0 module
 *    takes: no PROOF_FD flag, nothing but zeros past VER0's size (this
 *    program's ioctl() stands in front of libc's and looks), also when
 *    asking about other processes, which the module may refuse;
 *  - the maps backend reads a maps line longer than 64 KiB (a file mapped
 *    from a directory tree deeper than that) and still gives glibc's
 *    answer;
 *  - a first call in a mount namespace without /proc does not pin the
 *    maps backend: once /proc is mounted again, the library chooses what
 *    the kernel offers (the in-tree /proc/self/stackinfo, else the
 *    module's file, else a PROCMAP_QUERY that answers, else maps);
 *  - where the kernel has the in-tree file, the default backend is proc;
 *  - in a new pid namespace that still has the outer /proc, thread ids are
 *    those of the /proc mount, as the kernel's /proc/thread-self says, and
 *    tid 1 is the mount's pid 1, not the caller.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "libstackinfo.h"
#include "testutil.h"

/* ---- the requests the library sends ---- */

static int queries, proof_flags, tails;

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (_IOC_TYPE(req) == _IOC_TYPE(STACKINFO_IOC_QUERY) &&
	    _IOC_NR(req) == _IOC_NR(STACKINFO_IOC_QUERY) && arg) {
		const struct stackinfo_query *q = arg;
		const unsigned char *tail = (const unsigned char *)arg +
					    STACKINFO_QUERY_SIZE_VER0;
		size_t i;

		__atomic_fetch_add(&queries, 1, __ATOMIC_RELAXED);
		if (q->query_flags & STACKINFO_QUERY_PROOF_FD)
			__atomic_fetch_add(&proof_flags, 1, __ATOMIC_RELAXED);
		for (i = 0; i + STACKINFO_QUERY_SIZE_VER0 < q->size && i < 4096; i++)
			if (tail[i]) {
				__atomic_fetch_add(&tails, 1, __ATOMIC_RELAXED);
				break;
			}
	}
	return real(fd, req, arg);
}

static void requests_ver0(void)
{
	struct stackinfo_query q;
	pid_t other = fork();

	if (other == 0) {
		pause();
		_exit(0);
	}
	stackinfo_query_thread(0, 0, &q);
	stackinfo_query_thread(1, 0, &q);
	stackinfo_query_thread(other, 0, &q);
	stackinfo_query_thread(other, STACKINFO_QUERY_NO_SP, &q);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	if (stackinfo_backend() == STACKINFO_BACKEND_MODULE ||
	    stackinfo_backend() == STACKINFO_BACKEND_PROC)
		CHECK(queries >= 4, "only %d %s requests seen", queries,
		      stackinfo_backend_name(stackinfo_backend()));
	CHECK(!proof_flags, "%d of %d requests carry STACKINFO_QUERY_PROOF_FD", proof_flags,
	      queries);
	CHECK(!tails, "%d of %d requests have non-zero bytes past VER0", tails, queries);
}

static void proof_flag_refused(void)
{
	struct stackinfo_query q;
	int err = stackinfo_query_thread(0, STACKINFO_QUERY_PROOF_FD, &q);

	CHECK(err == -EINVAL, "STACKINFO_QUERY_PROOF_FD from the caller: %d (%s), want EINVAL",
	      err, strerror(-err));
}

/* ---- a maps line over 64 KiB ---- */

static void long_maps_line(void)
{
	char name[256], base[] = "/tmp/longline.XXXXXX";
	t_getattr_fn glibc = t_glibc_getattr();
	struct t_attrs g, s;
	size_t depth = 0, len;
	int dir, fd, i, ret;
	char why[400] = "";
	void *map;

	if (!mkdtemp(base)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	memset(name, 'd', 250);
	name[250] = '\0';
	dir = open(base, O_RDONLY | O_DIRECTORY);
	len = strlen(base);
	while (dir >= 0 && len < (80 << 10)) {
		int next;

		if (mkdirat(dir, name, 0755))
			break;
		next = openat(dir, name, O_RDONLY | O_DIRECTORY);
		close(dir);
		dir = next;
		len += 251;
		depth++;
	}
	CHECK(dir >= 0 && len >= (80 << 10), "a directory tree %zu deep: %s", depth,
	      strerror(errno));
	if (dir < 0)
		return;
	fd = openat(dir, "file", O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0 && !ftruncate(fd, 4096), "file at depth %zu: %s", depth, strerror(errno));
	map = fd >= 0 ? mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	ret = stackinfo_set_backend(STACKINFO_BACKEND_MAPS);
	CHECK(!ret, "maps backend: %s", strerror(-ret));
	for (i = 0; i < 3 && glibc && !ret; i++) {
		int rg = t_getattr(glibc, pthread_self(), &g);
		int rs = t_getattr(stackinfo_pthread_getattr_np, pthread_self(), &s);
		void *addr;
		size_t size;
		int err = stackinfo_main_stack(&addr, &size);

		CHECK(!err && addr == g.addr && size == g.size,
		      "maps line of %zu bytes: stackinfo_main_stack %d (%s)", len, err,
		      strerror(-err));
		CHECK(rg == rs && (rg || t_attrs_same(&s, &g, why, sizeof(why))),
		      "maps line of %zu bytes, call %d: library %d, glibc %d %s", len, i + 1, rs,
		      rg, why);
	}
	if (map != MAP_FAILED)
		munmap(map, 4096);
	if (fd >= 0)
		close(fd);
	close(dir);
	/* the tree is left on the guest's tmpfs: removing it needs its depth again */
}

/* ---- no /proc at the first call ---- */

/* What the kernel offers, asked without the library. */
static int kernel_backend(void)
{
	struct si_procmap_query pq = { .size = sizeof(pq) };
	int fd, ok;

	if (!access("/proc/self/stackinfo", R_OK))
		return STACKINFO_BACKEND_PROC;
	if (!access(STACKINFO_PROC_PATH, R_OK))
		return STACKINFO_BACKEND_MODULE;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	pq.query_addr = (uintptr_t)&pq;
	ok = fd >= 0 && !ioctl(fd, SI_PROCMAP_QUERY, &pq);
	if (fd >= 0)
		close(fd);
	return ok ? STACKINFO_BACKEND_PROCMAP_QUERY : STACKINFO_BACKEND_MAPS;
}

static int without_proc(void)
{
	void *addr;
	size_t size;
	int b, want;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    umount2("/proc", MNT_DETACH)) {
		fprintf(stderr, "FAIL: a mount namespace without /proc: %s\n", strerror(errno));
		return 1;
	}
	stackinfo_main_stack(&addr, &size);	/* no /proc: fails, as glibc would */
	b = stackinfo_backend();
	if (mount("proc", "/proc", "proc", 0, NULL)) {
		fprintf(stderr, "FAIL: mount /proc: %s\n", strerror(errno));
		return 1;
	}
	want = kernel_backend();
	b = stackinfo_backend();
	if (b != want) {
		fprintf(stderr, "FAIL: backend %s after /proc came back, the kernel offers %s\n",
			stackinfo_backend_name(b), stackinfo_backend_name(want));
		return 1;
	}
	return stackinfo_main_stack(&addr, &size) ? 1 : 0;
}

/* ---- a pid namespace with the outer /proc ---- */

static int outer_ids(void)
{
	struct stackinfo_query q;
	char link[64], status[4096], *p;
	int tgid, tid, err, bad = 0;
	ssize_t n = readlink("/proc/thread-self", link, sizeof(link) - 1);

	if (n <= 0 || sscanf((link[n] = '\0', link), "%d/task/%d", &tgid, &tid) != 2) {
		fprintf(stderr, "FAIL: /proc/thread-self: %s\n", strerror(errno));
		return 1;
	}
	if (getpid() != 1 || tgid == 1) {
		fprintf(stderr, "FAIL: not pid 1 of a new namespace (%d, outer %d)\n",
			(int)getpid(), tgid);
		return 1;
	}
	err = stackinfo_query_thread(0, 0, &q);
	if (err || q.out_tid != (uint32_t)tid || q.tgid != (uint32_t)tgid) {
		fprintf(stderr, "FAIL: itself: %d, tid %u tgid %u; /proc says %d %d\n", err,
			q.out_tid, q.tgid, tid, tgid);
		bad = 1;
	}
	err = stackinfo_query_thread(tid, 0, &q);
	if (err || q.out_tid != (uint32_t)tid || !(q.thread_flags & STACKINFO_THREAD_SELF)) {
		fprintf(stderr, "FAIL: itself by its /proc tid %d: %d, tid %u flags %#x\n", tid,
			err, q.out_tid, q.thread_flags);
		bad = 1;
	}
	/* tid 1 of the mount is the outer init, not us */
	err = stackinfo_query_thread(1, STACKINFO_QUERY_NO_SP, &q);
	if (si_read_file("/proc/1/status", status, sizeof(status)) < 0 ||
	    !(p = strstr(status, "\nTgid:")) || atoi(p + 6) != 1) {
		fprintf(stderr, "FAIL: /proc/1/status\n");
		return 1;
	}
	/* answered as the kernel's own check of its maps allows, or refused as it is */
	if (proc_readable(1, "maps") ? err != proc_readable(1, "maps") :
	    err || q.tgid != 1 || (q.thread_flags & STACKINFO_THREAD_SELF)) {
		fprintf(stderr, "FAIL: tid 1 (the mount's init): %d (%s), tgid %u flags %#x\n",
			err, strerror(-err), q.tgid, q.thread_flags);
		bad = 1;
	}
	return bad;
}

static int new_pid_ns(void)
{
	int status;
	pid_t pid;

	if (unshare(CLONE_NEWPID)) {
		fprintf(stderr, "FAIL: unshare(CLONE_NEWPID): %s\n", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(outer_ids());
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
		       WEXITSTATUS(status) : 1;
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	/* first: no call of the library yet, in this process or the child */
	t_in_child("a first call without /proc", without_proc);
	fprintf(stderr, "backend %s\n", stackinfo_backend_name(stackinfo_backend()));
	/* the in-tree file, where the kernel has it, before the module */
	CHECK(stackinfo_backend() == kernel_backend(), "default backend %s, the kernel offers %s",
	      stackinfo_backend_name(stackinfo_backend()),
	      stackinfo_backend_name(kernel_backend()));
	proof_flag_refused();
	requests_ver0();
	t_in_child("a pid namespace with the outer /proc", new_pid_ns);
	long_maps_line();
	return t_result();
}
