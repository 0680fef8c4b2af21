// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library's proc backend (STACKINFO_BACKEND_PROC) against a stand-in
 * for the in-tree /proc/<pid>/stackinfo, on a host whose kernel has none:
 * this program's open() and ioctl() stand in front of libc's and answer
 * for "/proc/self/stackinfo" and "/proc/<tid>/stackinfo" as the patched
 * kernel does (tid 0 is the FILE's thread, the group leader; any other tid
 * must be a thread of the file's process, else ESRCH; the file describes
 * the process that opened it, even in a child that inherited it). Its
 * answers for this process are the maps parse's plus a guard gap (which
 * no /proc backend gives), so an answer that did not come from the file
 * shows. Each case runs in a child of its own, forked before any call of
 * the library, so that each chooses its backend afresh:
 *  - no file: STACKINFO_BACKEND_PROC is refused (EOPNOTSUPP), forced by
 *    STACKINFO_BACKEND=proc fails, and the default is another backend;
 *  - the file: it is the default; the caller, main thread or worker, is
 *    asked about by its own tid (never 0: that would be the leader) and
 *    answered; a worker asks about the main thread by tid; the file is
 *    opened once for every thread; stackinfo_main_stack() and
 *    stackinfo_pthread_getattr_np() give glibc's answer;
 *  - another process: answered through its own file, opened for the call
 *    and closed; a refused open (EACCES) is answered by the /proc
 *    fallbacks, as the module's refusals are;
 *  - fork() and _Fork() children open the file again (the parent's
 *    describes the parent);
 *  - a file that does not answer for the caller is not used.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define FAKE_GUARD_GAP	(256 * 4096ULL)
#define OTHER_TID	424242	/* a thread of a process that is not ours */
#define OTHER_TGID	424240

/* ---- the stand-in kernel ---- */

enum fake_mode { FAKE_ABSENT, FAKE_PRESENT, FAKE_DEAF };
static enum fake_mode mode;
static pid_t denied_tid;	/* its file refuses the open (EACCES) */

struct fake_file {
	int fd;
	pid_t tgid;		/* the process the file describes */
};
static struct fake_file files[64];
static int self_opens, other_opens, tid0_asked, asked;

static int (*real_open)(const char *, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);

static struct fake_file *fake_of(int fd)
{
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i].fd == fd && files[i].tgid)
			return &files[i];
	return NULL;
}

static int fake_open(pid_t tgid)
{
	int fd = real_open("/dev/null", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd < 0)
		return fd;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct fake_file *f = &files[i];

		/* a number closed since is reused: forget what it was */
		if (f->fd == fd || !f->tgid) {
			f->fd = fd;
			f->tgid = tgid;
			return fd;
		}
	}
	close(fd);
	errno = EMFILE;
	return -1;
}

int open(const char *path, int flags, ...)
{
	mode_t m = 0;
	int tid, n = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		m = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!real_open)
		real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (!strcmp(path, "/proc/self/stackinfo")) {
		if (mode == FAKE_ABSENT) {
			errno = ENOENT;
			return -1;
		}
		CHECK(flags == (O_RDONLY | O_CLOEXEC), "flags %#x", flags);
		__atomic_fetch_add(&self_opens, 1, __ATOMIC_RELAXED);
		return fake_open(getpid());
	}
	if (sscanf(path, "/proc/%d/stackinfo%n", &tid, &n) == 1 && !path[n]) {
		if (mode == FAKE_ABSENT || (tid != OTHER_TID && tid != denied_tid)) {
			errno = ENOENT;
			return -1;
		}
		if (tid == denied_tid) {
			errno = EACCES;
			return -1;
		}
		__atomic_fetch_add(&other_opens, 1, __ATOMIC_RELAXED);
		return fake_open(OTHER_TGID);
	}
	return real_open(path, flags, m);
}

/* Is @tid a thread of this process? */
static bool own_thread(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return tid > 0 && !access(path, F_OK);
}

static int fake_query(const struct fake_file *f, struct stackinfo_query *q)
{
	pid_t tid = q->tid ? (pid_t)q->tid : f->tgid;
	uint64_t flags = q->query_flags;
	int err;

	__atomic_fetch_add(&asked, 1, __ATOMIC_RELAXED);
	if (!q->tid)
		__atomic_fetch_add(&tid0_asked, 1, __ATOMIC_RELAXED);
	if (q->size < STACKINFO_QUERY_SIZE_VER0 || (flags & ~STACKINFO_QUERY_VALID_FLAGS))
		return -EINVAL;
	if (flags & STACKINFO_QUERY_PROOF_FD)
		return -EINVAL;	/* the open stands in for a proof */
	if (mode == FAKE_DEAF)
		return -ESRCH;
	if (f->tgid == OTHER_TGID) {
		if (tid != OTHER_TID)
			return -ESRCH;
		memset(q, 0, sizeof(*q));
		q->size = sizeof(*q);
		q->tid = q->out_tid = OTHER_TID;
		q->tgid = OTHER_TGID;
		q->valid = STACKINFO_VALID_THREAD | STACKINFO_VALID_GUARD_GAP;
		q->guard_gap = FAKE_GUARD_GAP;
		return 0;
	}
	/* the file names the process that opened it, whoever holds it */
	if (f->tgid != getpid() || !own_thread(tid))
		return -ESRCH;
	err = si_fallback_query(STACKINFO_BACKEND_MAPS, tid, flags, q);
	if (err)
		return err;
	q->tid = (uint32_t)tid;
	q->valid |= STACKINFO_VALID_GUARD_GAP;
	q->guard_gap = FAKE_GUARD_GAP;
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	struct fake_file *f;
	va_list ap;
	void *arg;
	int err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	f = fake_of(fd);
	if (!f || req != STACKINFO_IOC_QUERY)
		return real_ioctl(fd, req, arg);
	err = fake_query(f, arg);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

/* ---- the cases, each in a fresh child ---- */

static bool by_proc(const struct stackinfo_query *q)
{
	return STACKINFO_LIB_ANSWERED_BY(q) == STACKINFO_BACKEND_PROC &&
	       (q->valid & STACKINFO_VALID_GUARD_GAP) && q->guard_gap == FAKE_GUARD_GAP;
}

static int names(void)
{
	CHECK(STACKINFO_BACKEND_MODULE == 1 && STACKINFO_BACKEND_PROCMAP_QUERY == 2 &&
	      STACKINFO_BACKEND_MAPS == 3 && STACKINFO_BACKEND_PROC == 4, "ABI numbers");
	CHECK(!strcmp(stackinfo_backend_name(STACKINFO_BACKEND_PROC), "proc"), "name");
	CHECK(!strcmp(stackinfo_backend_name(STACKINFO_BACKEND_MAPS), "maps"), "name");
	CHECK(!stackinfo_backend_name(0) && !stackinfo_backend_name(5) &&
	      !stackinfo_backend_name(-1), "names past the table");
	return t_result();
}

static int absent(void)
{
	int b;

	mode = FAKE_ABSENT;
	b = stackinfo_backend();
	CHECK(b > 0 && b != STACKINFO_BACKEND_PROC, "default %d without the file", b);
	CHECK_EQ(stackinfo_set_backend(STACKINFO_BACKEND_PROC), -EOPNOTSUPP);
	CHECK_EQ(self_opens, 0);
	return t_result();
}

static int absent_forced(void)
{
	mode = FAKE_ABSENT;
	setenv("STACKINFO_BACKEND", "proc", 1);
	CHECK_EQ(stackinfo_backend(), -EOPNOTSUPP);
	return t_result();
}

static int present_forced(void)
{
	mode = FAKE_PRESENT;
	setenv("STACKINFO_BACKEND", "proc", 1);
	CHECK_EQ(stackinfo_backend(), STACKINFO_BACKEND_PROC);
	return t_result();
}

static pid_t main_tid;

static void *worker(void *arg)
{
	struct stackinfo_query q;
	int err;

	(void)arg;
	err = stackinfo_query_thread(0, 0, &q);
	CHECK(!err && by_proc(&q), "worker, itself: %d", err);
	CHECK(q.out_tid == (uint32_t)gettid() && (q.thread_flags & STACKINFO_THREAD_SELF) &&
	      !(q.thread_flags & STACKINFO_THREAD_MAIN) && q.tid == 0,
	      "worker, itself: tid %u (want %d) flags %#x", q.out_tid, (int)gettid(),
	      q.thread_flags);
	err = stackinfo_query_thread(main_tid, STACKINFO_QUERY_NO_SP, &q);
	CHECK(!err && by_proc(&q) && q.out_tid == (uint32_t)main_tid &&
	      (q.thread_flags & STACKINFO_THREAD_MAIN) &&
	      !(q.thread_flags & STACKINFO_THREAD_SELF), "worker, the main thread: %d", err);
	return NULL;
}

static int present(void)
{
	struct t_attrs ours, glibc;
	struct stackinfo_query q, m;
	t_getattr_fn g = t_glibc_getattr();
	pthread_t th;
	char why[200];
	size_t size;
	void *addr;
	int err, i;

	mode = FAKE_PRESENT;
	main_tid = gettid();
	CHECK_EQ(stackinfo_backend(), STACKINFO_BACKEND_PROC);
	err = stackinfo_query_thread(0, 0, &q);
	CHECK(!err && by_proc(&q), "main, itself: %d", err);
	CHECK(q.out_tid == (uint32_t)main_tid && q.tgid == (uint32_t)getpid() &&
	      (q.thread_flags & STACKINFO_THREAD_SELF) && (q.valid & STACKINFO_VALID_SP_VMA),
	      "main, itself: tid %u flags %#x valid %#llx", q.out_tid, q.thread_flags,
	      (unsigned long long)q.valid);
	/* the same fields as the maps parse, the file's guard gap aside */
	err = si_fallback_query(STACKINFO_BACKEND_MAPS, 0, 0, &m);
	CHECK(!err && m.main_vma_start == q.main_vma_start && m.main_vma_end == q.main_vma_end &&
	      m.main_prev_end == q.main_prev_end && m.rlim_stack_cur == q.rlim_stack_cur,
	      "main stack differs from the maps parse's");
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	CHECK(!tid0_asked, "%d of %d requests asked the file about tid 0", tid0_asked, asked);
	CHECK(self_opens == 1, "/proc/self/stackinfo opened %d times", self_opens);

	err = stackinfo_main_stack(&addr, &size);
	CHECK(!err, "stackinfo_main_stack: %d", err);
	CHECK(!t_getattr(g, pthread_self(), &glibc), "glibc's pthread_getattr_np");
	CHECK(addr == glibc.addr && size == glibc.size, "main stack %p+%zx, glibc %p+%zx",
	      addr, size, glibc.addr, glibc.size);
	/* the first call is glibc's, the second checked, the third the library's */
	for (i = 0; i < 3; i++) {
		CHECK(!t_getattr(stackinfo_pthread_getattr_np, pthread_self(), &ours),
		      "stackinfo_pthread_getattr_np");
		CHECK(t_attrs_same(&ours, &glibc, why, sizeof(why)), "call %d: %s", i, why);
	}
	CHECK(!tid0_asked, "%d of %d requests asked the file about tid 0", tid0_asked, asked);
	CHECK(self_opens == 1, "/proc/self/stackinfo opened %d times", self_opens);
	return t_result();
}

static int other_process(void)
{
	struct stackinfo_query q;
	int fds, err;

	mode = FAKE_PRESENT;
	denied_tid = getppid();
	CHECK_EQ(stackinfo_backend(), STACKINFO_BACKEND_PROC);
	fds = t_count_fds();
	err = stackinfo_query_thread(OTHER_TID, 0, &q);
	CHECK(!err && by_proc(&q) && q.out_tid == OTHER_TID && q.tgid == OTHER_TGID,
	      "another process: %d, tid %u tgid %u", err, q.out_tid, q.tgid);
	CHECK_EQ(other_opens, 1);
	CHECK(t_count_fds() == fds, "its file left open: %d fds, were %d", t_count_fds(), fds);
	/* a refused open: answered by /proc, as the kernel's checks of maps allow */
	err = stackinfo_query_thread(denied_tid, STACKINFO_QUERY_NO_SP, &q);
	CHECK(!err && q.tgid == (uint32_t)denied_tid, "refused, then /proc: %d", err);
	CHECK(STACKINFO_LIB_ANSWERED_BY(&q) == STACKINFO_BACKEND_PROCMAP_QUERY ||
	      STACKINFO_LIB_ANSWERED_BY(&q) == STACKINFO_BACKEND_MAPS,
	      "refused, then answered by %d", STACKINFO_LIB_ANSWERED_BY(&q));
	/* no such thread anywhere */
	CHECK_EQ(stackinfo_query_thread(999999999, 0, &q), -ESRCH);
	CHECK_EQ(stackinfo_query_thread(0, STACKINFO_QUERY_PROOF_FD, &q), -EINVAL);
	return t_result();
}

/* A child asks about itself: through a file it opened, not its parent's. */
static int child_asks(void)
{
	struct stackinfo_query q;
	int opens = self_opens, err = stackinfo_query_thread(0, 0, &q);

	CHECK(!err && by_proc(&q) && q.tgid == (uint32_t)getpid(), "child: %d, tgid %u", err,
	      q.tgid);
	CHECK(self_opens == opens + 1, "child opened the file %d times", self_opens - opens);
	return t_result();
}

static int forks(void)
{
	struct stackinfo_query q;
	int status, i;
	pid_t pid;

	mode = FAKE_PRESENT;
	CHECK(!stackinfo_query_thread(0, 0, &q) && by_proc(&q), "parent");
	for (i = 0; i < 2; i++) {
		fflush(NULL);
		pid = i ? _Fork() : fork();
		if (pid == 0)
			_exit(child_asks());
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      !WEXITSTATUS(status), "%s child", i ? "_Fork()" : "fork()");
	}
	CHECK(!stackinfo_query_thread(0, 0, &q) && by_proc(&q), "parent, after");
	CHECK_EQ(self_opens, 1);
	return t_result();
}

static int deaf(void)
{
	int b;

	mode = FAKE_DEAF;
	b = stackinfo_backend();
	CHECK(b > 0 && b != STACKINFO_BACKEND_PROC, "default %d with a file that never answers",
	      b);
	CHECK_EQ(stackinfo_set_backend(STACKINFO_BACKEND_PROC), -EOPNOTSUPP);
	return t_result();
}

int main(void)
{
	/* the library's choice must not come from the environment here */
	unsetenv("STACKINFO_BACKEND");
	t_in_child("names", names);
	t_in_child("no file", absent);
	t_in_child("no file, STACKINFO_BACKEND=proc", absent_forced);
	t_in_child("the file, STACKINFO_BACKEND=proc", present_forced);
	t_in_child("the file", present);
	t_in_child("another process", other_process);
	t_in_child("fork() and _Fork()", forks);
	t_in_child("a file that does not answer for the caller", deaf);
	return t_result();
}
