// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library's proc backend (STACKINFO_BACKEND_PROC) against a stand-in
 * for the in-tree /proc/<pid>/stackinfo, on a host whose kernel has none:
 * this program's open(), read(), ioctl() and close() stand in front of
 * libc's and answer for "/proc/thread-self/stackinfo" and
 * "/proc/<tid>/stackinfo" as the patched kernel does (tid 0 is the FILE's
 * thread: the thread that opened /proc/thread-self; any other tid must be
 * a thread of the file's process, else ESRCH; its text describes the
 * file's thread). Its answers for this process are the maps parse's plus
 * a guard gap (which no /proc backend gives), so an answer that did not
 * come from the file shows. Each case runs in a child of its own, forked
 * before any call of the library, so that each chooses its backend afresh:
 *  - no file: STACKINFO_BACKEND_PROC is refused (EOPNOTSUPP), forced by
 *    STACKINFO_BACKEND=proc fails, and the default is another backend;
 *  - the file: it is the default; the caller, main thread or worker, is
 *    answered through its own thread's file; a worker asks about the main
 *    thread through that thread's file; every file opened is closed before
 *    the call returns; stackinfo_main_stack() and
 *    stackinfo_pthread_getattr_np() (which reads the text) give glibc's
 *    answer;
 *  - another process: answered through its own file; a refused open
 *    (EACCES) is answered by the /proc fallbacks, as the module's refusals
 *    are;
 *  - fork() and _Fork() children are answered through files they open;
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
	pid_t tgid, tid;	/* the process and the thread the file describes */
	size_t pos;		/* where a read of its text is */
};
static struct fake_file files[64];
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static int self_opens, other_opens, closes, asked;

static int (*real_open)(const char *, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_close)(int);

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* the fake file open on @fd, copied into @out: false for a real file */
static bool fake_of(int fd, struct fake_file *out)
{
	bool found = false;
	size_t i;

	pthread_mutex_lock(&files_lock);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i].tgid && files[i].fd == fd) {
			*out = files[i];
			found = true;
		}
	pthread_mutex_unlock(&files_lock);
	return found;
}

static void fake_seek(int fd, size_t pos)
{
	size_t i;

	pthread_mutex_lock(&files_lock);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i].tgid && files[i].fd == fd)
			files[i].pos = pos;
	pthread_mutex_unlock(&files_lock);
}

static int fake_open(pid_t tgid, pid_t tid)
{
	int fd = real_open("/dev/null", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd < 0)
		return fd;
	pthread_mutex_lock(&files_lock);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct fake_file *f = &files[i];

		if (!f->tgid) {
			f->fd = fd;
			f->tgid = tgid;
			f->tid = tid;
			f->pos = 0;
			pthread_mutex_unlock(&files_lock);
			return fd;
		}
	}
	pthread_mutex_unlock(&files_lock);
	real_close(fd);
	errno = EMFILE;
	return -1;
}

/* Is @tid a thread of this process? */
static bool own_thread(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return tid > 0 && !access(path, F_OK);
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
	if (!real_open) {
		real_open = next("open");
		real_close = next("close");
	}
	if (!strcmp(path, "/proc/thread-self/stackinfo")) {
		if (mode == FAKE_ABSENT) {
			errno = ENOENT;
			return -1;
		}
		CHECK(flags == (O_RDONLY | O_CLOEXEC), "flags %#x", flags);
		__atomic_fetch_add(&self_opens, 1, __ATOMIC_RELAXED);
		return fake_open(getpid(), gettid());
	}
	if (sscanf(path, "/proc/%d/stackinfo%n", &tid, &n) == 1 && !path[n]) {
		if (mode == FAKE_ABSENT ||
		    (tid != OTHER_TID && tid != denied_tid && !own_thread(tid))) {
			errno = ENOENT;
			return -1;
		}
		if (tid == denied_tid) {
			errno = EACCES;
			return -1;
		}
		__atomic_fetch_add(&other_opens, 1, __ATOMIC_RELAXED);
		return tid == OTHER_TID ? fake_open(OTHER_TGID, OTHER_TID) :
					  fake_open(getpid(), tid);
	}
	return real_open(path, flags, m);
}

int close(int fd)
{
	size_t i;

	if (!real_close)
		real_close = next("close");
	pthread_mutex_lock(&files_lock);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i].tgid && files[i].fd == fd) {
			files[i].tgid = 0;
			__atomic_fetch_add(&closes, 1, __ATOMIC_RELAXED);
		}
	pthread_mutex_unlock(&files_lock);
	return real_close(fd);
}

static int fake_query(const struct fake_file *f, struct stackinfo_query *q)
{
	pid_t tid = q->tid ? (pid_t)q->tid : f->tid;
	uint64_t flags = q->query_flags;
	int err;

	__atomic_fetch_add(&asked, 1, __ATOMIC_RELAXED);
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
	err = si_fallback_query(STACKINFO_BACKEND_MAPS, tid == gettid() ? 0 : tid, flags, q);
	if (err)
		return err;
	q->tid = (uint32_t)tid;
	/* the caller's own answer, whatever number the caller used */
	if (tid == gettid()) {
		q->out_tid = tid;
		q->tgid = getpid();
		q->thread_flags = STACKINFO_THREAD_SELF | (tid == getpid() ? STACKINFO_THREAD_MAIN : 0);
	}
	q->valid |= STACKINFO_VALID_GUARD_GAP;
	q->guard_gap = FAKE_GUARD_GAP;
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	struct fake_file f;
	va_list ap;
	void *arg;
	int err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = next("ioctl");
	if (!fake_of(fd, &f) || req != STACKINFO_IOC_QUERY)
		return real_ioctl(fd, req, arg);
	err = fake_query(&f, arg);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

static int text_vma(char *p, size_t n, const char *key, bool valid, __u64 start, __u64 end,
		    __u64 flags)
{
	if (!valid)
		return snprintf(p, n, "%s -\n", key);
	return snprintf(p, n, "%s %08llx-%08llx %c%c%c%c\n", key, (unsigned long long)start,
			(unsigned long long)end, flags & STACKINFO_VMA_READ ? 'r' : '-',
			flags & STACKINFO_VMA_WRITE ? 'w' : '-',
			flags & STACKINFO_VMA_EXEC ? 'x' : '-',
			flags & STACKINFO_VMA_SHARED ? 's' : 'p');
}

static int text_addr(char *p, size_t n, const char *key, bool valid, __u64 v)
{
	return valid ? snprintf(p, n, "%s %08llx\n", key, (unsigned long long)v) :
		       snprintf(p, n, "%s -\n", key);
}

static int text_rlim(char *p, size_t n, const char *key, __u64 v)
{
	return v == STACKINFO_RLIM_INFINITY ? snprintf(p, n, "%s unlimited\n", key) :
					      snprintf(p, n, "%s %llu\n", key, (unsigned long long)v);
}

/* The file's text (stackinfo(4)): its thread's answer as the kernel prints it. */
static int fake_text(const struct fake_file *f, char *buf, size_t size)
{
	struct stackinfo_query q = { .size = sizeof(q) };
	char *p = buf, *end = buf + size;
	__u64 v;
	int err = fake_query(f, &q);

	if (err)
		return err;
	v = q.valid;
	p += snprintf(p, end - p, "tid %u\ntgid %u\nmain %u\nmap_count %u\n", q.out_tid,
		      q.tgid, !!(q.thread_flags & STACKINFO_THREAD_MAIN), q.map_count);
	p += text_addr(p, end - p, "start_stack", v & STACKINFO_VALID_START_STACK, q.start_stack);
	p += text_vma(p, end - p, "main_vma", v & STACKINFO_VALID_MAIN_VMA, q.main_vma_start,
		      q.main_vma_end, q.main_vma_flags);
	p += text_addr(p, end - p, "main_prev_end", v & STACKINFO_VALID_MAIN_PREV,
		       q.main_prev_end);
	p += text_addr(p, end - p, "sp", v & STACKINFO_VALID_SP, q.sp);
	p += text_vma(p, end - p, "sp_vma", v & STACKINFO_VALID_SP_VMA, q.sp_vma_start,
		      q.sp_vma_end, q.sp_vma_flags);
	p += text_addr(p, end - p, "sp_prev_end", v & STACKINFO_VALID_SP_PREV, q.sp_prev_end);
	if (v & STACKINFO_VALID_SP_GUARD)
		p += snprintf(p, end - p, "sp_guard %08llx-%08llx\n",
			      (unsigned long long)q.sp_guard_start,
			      (unsigned long long)q.sp_guard_end);
	else
		p += snprintf(p, end - p, "sp_guard -\n");
	p += text_rlim(p, end - p, "rlim_stack_cur", q.rlim_stack_cur);
	p += text_rlim(p, end - p, "rlim_stack_max", q.rlim_stack_max);
	p += snprintf(p, end - p, "guard_gap %llu\n", (unsigned long long)q.guard_gap);
	return p - buf;
}

ssize_t read(int fd, void *buf, size_t n)
{
	struct fake_file f;
	char text[2048];
	int len;

	if (!real_read)
		real_read = next("read");
	if (!fake_of(fd, &f))
		return real_read(fd, buf, n);
	len = fake_text(&f, text, sizeof(text));
	if (len < 0) {
		errno = -len;
		return -1;
	}
	if (f.pos >= (size_t)len)
		return 0;
	if (n > len - f.pos)
		n = len - f.pos;
	memcpy(buf, text + f.pos, n);
	fake_seek(fd, f.pos + n);
	return n;
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

/* every file the library opened is closed again */
static void all_closed(const char *what, int fds)
{
	int opens = self_opens + other_opens;

	CHECK(closes == opens, "%s: %d files opened, %d closed", what, opens, closes);
	CHECK(t_count_fds() == fds, "%s: %d fds, %d before", what, t_count_fds(), fds);
}

static int present(void)
{
	struct t_attrs ours, glibc;
	struct stackinfo_query q, m;
	t_getattr_fn g = t_glibc_getattr();
	int err, i, fds = t_count_fds();
	pthread_t th;
	char why[400];
	size_t size;
	void *addr;

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
	all_closed("queries", fds);

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
	all_closed("the main thread's attributes", fds);
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
	all_closed("another process", fds);
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
