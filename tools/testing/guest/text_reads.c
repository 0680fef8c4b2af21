// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * How the text reads (stackinfo(4)): made anew at each read, for whoever
 * reads, and read from the read's offset; nothing of it kept between
 * reads. For /proc/stackinfo, and for /proc/thread-self/stackinfo where
 * the kernel has the in-tree files:
 *  - in pieces: a byte a read, and every size of pread at 0, give the
 *    text of one whole read (but the SP line, which moves with the caller);
 *  - vectored (readv, preadv) and spliced (splice to a pipe, sendfile to a
 *    file): the same text;
 *  - seeks: SEEK_SET and SEEK_CUR move within it, a read past its end
 *    reads nothing, a negative offset is EINVAL;
 *  - made at each read: RLIMIT_STACK changed between the first bytes and
 *    the rest, the rest says the new limit (a text kept from the first
 *    read would say the old);
 *  - a read of nothing reads nothing, a bad buffer is EFAULT, one whose
 *    tail is unmapped gets the bytes before it.
 * Then who it is about when one open file description of /proc/stackinfo
 * is read by several readers: the text is made for the thread that reads,
 * so no other thread, of the same process or of another one (a shared
 * stdin, an inherited fd), reads on in the first reader's text:
 *  - two threads of one process: the main thread reads the first bytes,
 *    a second thread reads on and gets its own text from there (its own
 *    pread at 0 says what that is); the main thread's pread at 0 is its
 *    own again;
 *  - two processes: root reads one byte, then its child, now uid 1000, to
 *    whom the kernel refuses root's /proc/<pid>/maps and /syscall (checked
 *    here), reads on from the same description: what it gets must be its
 *    own text from that byte on, nothing of root's (tid, tgid, SP).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define USER_UID	1000
#define HEAD		8	/* bytes the first reader takes */

static int fd;
static char rest[4096], fresh[4096];
static pid_t other_tid;

static void *other(void *arg)
{
	ssize_t n;

	(void)arg;
	other_tid = t_gettid();
	n = read(fd, rest, sizeof(rest) - 1);
	rest[n > 0 ? n : 0] = '\0';
	n = pread(fd, fresh, sizeof(fresh) - 1, 0);
	fresh[n > 0 ? n : 0] = '\0';
	return NULL;
}

/* The tid the text names: its first line is "tid N". */
static long text_tid(const char *text)
{
	return strncmp(text, "tid ", 4) ? -1 : strtol(text + 4, NULL, 10);
}

/* How many bytes of @text come before its SP lines (which move between calls). */
static size_t before_sp(const char *text)
{
	const char *sp = strstr(text, "\nsp ");

	return sp ? (size_t)(sp - text) : strlen(text);
}

#define TEXT_MAX	512	/* the text is shorter (stackinfo(4)) */

/* @text without its "sp " line, into @out */
static void drop_sp(const char *text, char *out, size_t size)
{
	const char *sp = strstr(text, "\nsp ");
	const char *eol = sp ? strchr(sp + 1, '\n') : NULL;

	if (!eol)
		snprintf(out, size, "%s", text);
	else
		snprintf(out, size, "%.*s%s", (int)(sp - text), text, eol);
}

/* @got is the text @want is, but for the SP line; says @how otherwise */
static void same_text(const char *path, const char *how, const char *got,
		      const char *want)
{
	char g[TEXT_MAX * 2], w[TEXT_MAX * 2];

	drop_sp(got, g, sizeof(g));
	drop_sp(want, w, sizeof(w));
	CHECK(!strcmp(g, w), "%s, %s: \"%.60s\"... not \"%.60s\"...", path, how, g, w);
}

/* One whole read at 0, NUL-terminated; its length */
static size_t whole(const char *path, int f, char *buf)
{
	ssize_t n = pread(f, buf, TEXT_MAX, 0);

	CHECK(n > 0 && n < TEXT_MAX, "%s: pread at 0: %zd", path, n);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

static void in_pieces(const char *path, int f)
{
	char want[TEXT_MAX + 1], got[TEXT_MAX + 1];
	size_t len = whole(path, f, want), have = 0, size, stable;
	ssize_t n;

	/* a byte a read, from 0 to the end */
	CHECK(lseek(f, 0, SEEK_SET) == 0, "%s: lseek to 0", path);
	while (have < TEXT_MAX && read(f, got + have, 1) == 1)
		have++;
	got[have] = '\0';
	same_text(path, "a byte a read", got, want);
	CHECK(read(f, got, 1) == 0, "%s: a read at the end read something", path);
	/* every size at 0: that many bytes, the text's first */
	stable = before_sp(want);
	for (size = 1; size <= len; size++) {
		n = pread(f, got, size, 0);
		CHECK(n == (ssize_t)size, "%s: pread of %zu at 0: %zd", path, size, n);
		CHECK(n <= 0 || !memcmp(got, want, size < stable ? size : stable),
		      "%s: pread of %zu at 0: \"%.*s\"", path, size, (int)n, got);
	}
}

static void vectored(const char *path, int f)
{
	char want[TEXT_MAX + 1], got[TEXT_MAX + 1], a[3], b[11], c[1];
	char d[TEXT_MAX];
	struct iovec iov[] = {
		{ a, sizeof(a) }, { b, sizeof(b) }, { c, sizeof(c) }, { d, sizeof(d) },
	};
	size_t len = whole(path, f, want);
	ssize_t n;
	int round;

	for (round = 0; round < 2; round++) {
		if (round == 0) {
			n = preadv(f, iov, 4, 0);
		} else {
			CHECK(lseek(f, 0, SEEK_SET) == 0, "%s: lseek to 0", path);
			n = readv(f, iov, 4);
		}
		CHECK(n == (ssize_t)len, "%s: %s of the text: %zd, not %zu", path,
		      round ? "readv" : "preadv", n, len);
		if (n <= (ssize_t)(sizeof(a) + sizeof(b) + sizeof(c)))
			continue;
		snprintf(got, sizeof(got), "%.3s%.11s%.1s%.*s", a, b, c,
			 (int)(n - sizeof(a) - sizeof(b) - sizeof(c)), d);
		same_text(path, round ? "readv" : "preadv", got, want);
	}
}

static void spliced(const char *path, int f)
{
	char want[TEXT_MAX + 1], got[TEXT_MAX + 1];
	size_t len = whole(path, f, want);
	loff_t off = 0;
	int p[2], out;
	ssize_t n;

	CHECK(pipe(p) == 0, "pipe");
	n = splice(f, &off, p[1], NULL, TEXT_MAX, 0);
	CHECK(n == (ssize_t)len, "%s: splice to a pipe: %zd, not %zu (%s)", path, n, len,
	      n < 0 ? strerror(errno) : "");
	n = n > 0 ? read(p[0], got, n) : 0;
	got[n > 0 ? n : 0] = '\0';
	same_text(path, "spliced", got, want);
	close(p[0]);
	close(p[1]);

	out = open("/tmp", O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	CHECK(out >= 0, "a file for sendfile: %s", strerror(errno));
	if (out < 0)
		return;
	off = 0;
	n = sendfile(out, f, &off, TEXT_MAX);
	CHECK(n == (ssize_t)len && off == n, "%s: sendfile: %zd (offset %lld), not %zu (%s)",
	      path, n, (long long)off, len, n < 0 ? strerror(errno) : "");
	n = n > 0 ? pread(out, got, n, 0) : 0;
	got[n > 0 ? n : 0] = '\0';
	same_text(path, "sent", got, want);
	close(out);
}

static void seeks(const char *path, int f)
{
	char want[TEXT_MAX + 1], got[TEXT_MAX + 1];
	size_t len = whole(path, f, want);
	ssize_t n;

	CHECK(lseek(f, 10, SEEK_SET) == 10, "%s: SEEK_SET 10", path);
	CHECK(lseek(f, 5, SEEK_CUR) == 15, "%s: SEEK_CUR 5 from 10", path);
	n = read(f, got + 15, TEXT_MAX - 15);
	CHECK(n == (ssize_t)len - 15, "%s: read at 15: %zd, not %zu", path, n, len - 15);
	memcpy(got, want, 15);
	got[n > 0 ? n + 15 : 15] = '\0';
	same_text(path, "read at 15", got, want);
	CHECK(lseek(f, 0, SEEK_CUR) == (off_t)len, "%s: the offset after the rest", path);
	CHECK(lseek(f, 1 << 20, SEEK_SET) == 1 << 20, "%s: SEEK_SET past the end", path);
	CHECK(read(f, got, TEXT_MAX) == 0, "%s: a read past the end read something", path);
	errno = 0;
	CHECK(lseek(f, -1, SEEK_SET) == -1 && errno == EINVAL, "%s: SEEK_SET -1: %s", path,
	      strerror(errno));
	CHECK(lseek(f, 0, SEEK_CUR) == 1 << 20, "%s: a refused seek moved the offset", path);
}

static void made_per_read(const char *path, int f)
{
	struct stackinfo_query q = { 0 };
	struct rlimit old, lim;
	char got[TEXT_MAX + 1];
	ssize_t n, m;

	CHECK(getrlimit(RLIMIT_STACK, &old) == 0, "getrlimit");
	lim = old;
	lim.rlim_cur = 4 << 20;
	CHECK(setrlimit(RLIMIT_STACK, &lim) == 0, "setrlimit");
	CHECK(lseek(f, 0, SEEK_SET) == 0, "%s: lseek to 0", path);
	n = read(f, got, HEAD);
	CHECK(n == HEAD, "%s: the first bytes: %zd", path, n);
	lim.rlim_cur = 2 << 20;
	CHECK(setrlimit(RLIMIT_STACK, &lim) == 0, "setrlimit");
	m = read(f, got + HEAD, TEXT_MAX - HEAD);
	CHECK(m > 0, "%s: the rest: %zd", path, m);
	got[m > 0 ? HEAD + m : HEAD] = '\0';
	CHECK(!si_text_parse(got, &q), "%s: the first bytes and the rest do not parse: %.60s",
	      path, got);
	CHECK(q.rlim_stack_cur == 2 << 20,
	      "%s: the rest, read after RLIMIT_STACK went from 4 MiB to 2, says %llu", path,
	      (unsigned long long)q.rlim_stack_cur);
	setrlimit(RLIMIT_STACK, &old);
}

static void odd_buffers(const char *path, int f)
{
	char want[TEXT_MAX + 1], got[TEXT_MAX];
	long page = sysconf(_SC_PAGESIZE);
	char *two;
	ssize_t n;

	whole(path, f, want);
	CHECK(pread(f, got, 0, 0) == 0, "%s: a read of 0 bytes", path);
	errno = 0;
	/* the system call itself: glibc's pread() would be told it overflows */
	n = syscall(SYS_pread64, f, (void *)8, TEXT_MAX, 0);
	CHECK(n == -1 && errno == EFAULT, "%s: a read into address 8: %zd (%s)", path, n,
	      strerror(errno));
	two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(two != MAP_FAILED, "mmap");
	if (two == MAP_FAILED)
		return;
	munmap(two + page, page);
	/* the copy may stop short of the fault, never past it */
	CHECK(lseek(f, 0, SEEK_SET) == 0, "%s: lseek to 0", path);
	n = read(f, two + page - 10, TEXT_MAX);
	CHECK(n > 0 && n <= 10 && !memcmp(two + page - 10, want, n),
	      "%s: a read into a buffer 10 bytes from its unmapped end: %zd", path, n);
	CHECK(lseek(f, 0, SEEK_CUR) == (n > 0 ? n : 0), "%s: the offset after a short read",
	      path);
	munmap(two, page);
}

/* Each shape of read of the text at @path. */
static void shapes(const char *path)
{
	int f = open(path, O_RDONLY | O_CLOEXEC);

	CHECK(f >= 0, "%s: %s", path, strerror(errno));
	if (f < 0)
		return;
	in_pieces(path, f);
	vectored(path, f);
	spliced(path, f);
	seeks(path, f);
	made_per_read(path, f);
	odd_buffers(path, f);
	close(f);
}

static void threads_of_one_process(void)
{
	char head[HEAD], whole[8192];
	pthread_t th;
	ssize_t n;

	/* the first bytes, "tid N..." cut short, by the main thread */
	n = read(fd, head, sizeof(head));
	CHECK(n == (ssize_t)sizeof(head), "first read: %zd", n);
	pthread_create(&th, NULL, other, NULL);
	pthread_join(th, NULL);

	/* the second thread read on in a text made for it, not the main thread's */
	CHECK_EQ(text_tid(fresh), other_tid);
	CHECK(strlen(fresh) > HEAD && !strncmp(rest, fresh + HEAD, before_sp(fresh) - HEAD),
	      "another thread read on in the main thread's text: \"%.*s\" + \"%.40s\"",
	      HEAD, head, rest);
	/* a pread at 0 by the main thread: its own again */
	n = pread(fd, whole, sizeof(whole) - 1, 0);
	CHECK(n > HEAD, "pread at 0: %zd", n);
	whole[n > 0 ? n : 0] = '\0';
	CHECK_EQ(text_tid(whole), t_gettid());
	CHECK(!strncmp(whole, head, HEAD), "the main thread's text begins otherwise now");
}

/* The child, uid 1000, reads on where root stopped. */
static int user_reads_on(pid_t root_pid, char first)
{
	struct stackinfo_query q;
	char text[4096];
	ssize_t n;
	int err;

	t_become_user(USER_UID);
	/* the kernel's own answer: root's maps and syscall are refused */
	err = proc_readable(root_pid, "maps");
	CHECK(err == -EACCES, "uid %d and root's maps: %d", USER_UID, err);
	err = proc_readable(root_pid, "syscall");
	CHECK(err == -EACCES, "uid %d and root's syscall: %d", USER_UID, err);

	text[0] = first;
	n = read(fd, text + 1, sizeof(text) - 2);
	CHECK(n > 0, "uid %d reads on: %zd", USER_UID, n);
	text[n > 0 ? n + 1 : 1] = '\0';
	err = si_text_parse(text, &q);
	CHECK(!err, "root's first byte and what uid %d read do not parse: %.60s", USER_UID,
	      text);
	if (!err)
		CHECK(q.out_tid == (uint32_t)getpid() && q.tgid == (uint32_t)getpid(),
		      "uid %d read on in root's text: tid %u, tgid %u, sp %#llx (root is %d)",
		      USER_UID, q.out_tid, q.tgid, (unsigned long long)q.sp, (int)root_pid);
	return t_result();
}

static void two_processes(void)
{
	char first;
	pid_t child;
	int status;

	/* the text made for root, at offset 0, and one byte of it read */
	CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek to 0");
	CHECK(read(fd, &first, 1) == 1, "root's first byte");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		t_failures = 0;	/* its own checks only */
		_exit(user_reads_on(getppid(), first));
	}
	CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "uid %d's side", USER_UID);
}

int main(void)
{
	bool intree = access("/proc/thread-self/stackinfo", F_OK) == 0;

	fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && !intree) {
		perror(STACKINFO_PROC_PATH);
		return T_SKIP;
	}
	if (intree)
		shapes("/proc/thread-self/stackinfo");
	if (fd < 0) {
		printf("text_reads: no module: the in-tree file alone\n");
		return t_result();
	}
	shapes(STACKINFO_PROC_PATH);
	threads_of_one_process();
	if (getuid() == 0)
		two_processes();
	else
		printf("text_reads: not root: the two-process case is not run\n");
	close(fd);
	return t_result();
}
