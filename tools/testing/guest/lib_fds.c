// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library keeps no file descriptor between calls and never uses one
 * it did not open for the call at hand: programs close every fd
 * (closefrom(), close_range(), a daemon's start-up), dup2() over numbers,
 * and run out of fds. For each backend the kernel offers (the in-tree
 * file, the module, PROCMAP_QUERY, the maps parse), in a child of its own
 * after the library has answered at least once:
 *  - the process has as many open fds after the calls as before;
 *  - after close_range(3, ~0U), a pipe on the freed numbers still reads in
 *    a fork()ed child;
 *  - after close_range(3, ~0U), a file fopen()ed on the freed number and
 *    written through stdio holds its buffered bytes after exit();
 *  - with another process's /proc/<pid>/maps dup2()ed onto every freed
 *    number, the answers are still this process's: the main thread's
 *    attributes against glibc's pthread_getattr_np, the main stack's VMA
 *    against /proc/self/maps, on the async-signal-safe path too where the
 *    backend has one;
 *  - with RLIMIT_NOFILE exhausted, stackinfo_pthread_getattr_np() fails as
 *    glibc's does, and stackinfo_query_thread() says -EMFILE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define FREED	16	/* numbers from 3 up covered by a foreign fd */

static t_getattr_fn glibc;
static int backend;
static const char *name;

static const int backends[] = {
	STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
	STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS,
};

static bool has_async_safe(void)
{
	return backend == STACKINFO_BACKEND_PROC || backend == STACKINFO_BACKEND_MODULE;
}

/* The main thread's attributes, library against glibc, three calls. */
static void same_as_glibc(const char *what)
{
	struct t_attrs g, s;
	char why[400];
	int i, rg, rs;

	for (i = 0; i < 3; i++) {
		rg = t_getattr(glibc, pthread_self(), &g);
		rs = t_getattr(stackinfo_pthread_getattr_np, pthread_self(), &s);
		CHECK(rg == rs && (rg || t_attrs_same(&s, &g, why, sizeof(why))),
		      "%s, %s, call %d: library %d, glibc %d: %s", name, what, i + 1, rs, rg,
		      rg == rs ? why : "");
	}
}

/* The caller's main stack VMA, by @flags, against /proc/self/maps. */
static void main_vma_true(const char *what, uint64_t flags)
{
	struct stackinfo_query q;
	uint64_t start, end;
	int err;

	err = stackinfo_query_thread(0, flags, &q);
	CHECK(!err, "%s, %s: query %d", name, what, err);
	if (err)
		return;
	CHECK(STACKINFO_LIB_ANSWERED_BY(&q) == backend, "%s, %s: answered by %d", name, what,
	      STACKINFO_LIB_ANSWERED_BY(&q));
	CHECK(!maps_stack(0, &start, &end), "%s, %s: no [stack] in /proc/self/maps", name, what);
	CHECK((q.valid & STACKINFO_VALID_MAIN_VMA) && q.main_vma_start == start &&
	      q.main_vma_end == end, "%s, %s: main VMA %llx-%llx, maps says %llx-%llx", name,
	      what, (unsigned long long)q.main_vma_start, (unsigned long long)q.main_vma_end,
	      (unsigned long long)start, (unsigned long long)end);
}

/* Every call the cases below make, once, so that the library has opened whatever it keeps. */
static void warm(void)
{
	struct stackinfo_query q;

	CHECK(!stackinfo_set_backend(backend), "%s: set_backend", name);
	same_as_glibc("warm-up");
	main_vma_true("warm-up", 0);
	if (has_async_safe())
		CHECK(!stackinfo_query_thread(0, STACKINFO_LIB_ASYNC_SAFE, &q),
		      "%s: async-safe warm-up", name);
}

static void fd_count(void *arg)
{
	int before, after;

	(void)arg;
	before = t_count_fds();
	warm();
	after = t_count_fds();
	CHECK(after == before, "%s: %d fds before the calls, %d after", name, before, after);
}

static int wait_status(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static void fork_pipe(void *arg)
{
	int p[2], status;
	pid_t pid;
	char c;

	(void)arg;
	warm();
	close_range(3, ~0U, 0);
	if (pipe(p) || write(p[1], "x", 1) != 1) {
		CHECK(0, "%s: pipe: %s", name, strerror(errno));
		return;
	}
	fflush(NULL);
	pid = fork();
	if (!pid)
		_exit(read(p[0], &c, 1) == 1 ? 0 : 10 + (errno & 0xff) % 100);
	status = wait_status(pid);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
	      "%s: the pipe's read end (fd %d) in a fork()ed child: status %#x (10+errno)", name,
	      p[0], status);
}

static void exit_flush(void *arg)
{
	const char *path = arg;
	struct stat st;
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (!pid) {
		FILE *f;

		warm();
		close_range(3, ~0U, 0);
		f = fopen(path, "w");
		if (!f || fputs("hello\n", f) == EOF)
			_exit(2);
		exit(t_failures ? 1 : 0);	/* stdio flushes f */
	}
	status = wait_status(pid);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "%s: writer: status %#x", name, status);
	CHECK(!stat(path, &st) && st.st_size == 6,
	      "%s: 6 bytes written through stdio before exit(), %lld in the file", name,
	      (long long)st.st_size);
	unlink(path);
}

/*
 * Another process with a layout of its own: sleep(1) exec'd, its pid once
 * the exec is done (the pipe's O_CLOEXEC write end closed), or -1.
 */
static pid_t spawn_exec_sleeper(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (!pid) {
		execlp("sleep", "sleep", "1000", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 0) {
		t_reap(pid);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void foreign_fd(void *arg)
{
	struct stackinfo_query q, a;
	pid_t other = spawn_exec_sleeper();
	char path[64];
	int fd, i, err;

	(void)arg;
	CHECK(other > 0, "%s: spawn", name);
	if (other <= 0)
		return;
	warm();
	close_range(3, ~0U, 0);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)other);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "%s: open %s: %s", name, path, strerror(errno));
	for (i = 3; fd >= 0 && i < 3 + FREED; i++)
		if (i != fd && dup2(fd, i) != i)
			CHECK(0, "%s: dup2 %d: %s", name, i, strerror(errno));
	same_as_glibc("another process's maps on every freed number");
	main_vma_true("another process's maps on every freed number", 0);
	if (has_async_safe()) {
		err = stackinfo_query_thread(0, STACKINFO_LIB_ASYNC_SAFE, &a);
		CHECK(!err, "%s: async-safe query with foreign fds: %d", name, err);
		if (!err && !stackinfo_query_thread(0, 0, &q))
			CHECK(a.main_vma_start == q.main_vma_start &&
			      a.main_vma_end == q.main_vma_end && a.tgid == q.tgid,
			      "%s: async-safe answer %llx-%llx tgid %u, the query's %llx-%llx tgid %u",
			      name, (unsigned long long)a.main_vma_start,
			      (unsigned long long)a.main_vma_end, a.tgid,
			      (unsigned long long)q.main_vma_start,
			      (unsigned long long)q.main_vma_end, q.tgid);
		main_vma_true("async-safe, another process's maps on every freed number",
			      STACKINFO_LIB_ASYNC_SAFE);
	}
	t_reap(other);
}

static void no_fds_left(void *arg)
{
	struct rlimit rl;
	pthread_attr_t attr;
	struct stackinfo_query q;
	int rg, rs, err, n;

	(void)arg;
	warm();
	n = t_count_fds();
	rl.rlim_cur = rl.rlim_max = n + 8;
	if (n < 0 || setrlimit(RLIMIT_NOFILE, &rl)) {
		CHECK(0, "%s: setrlimit: %s", name, strerror(errno));
		return;
	}
	while (dup(0) >= 0)
		;
	CHECK(errno == EMFILE, "%s: dup until EMFILE: %s", name, strerror(errno));
	rg = glibc(pthread_self(), &attr);
	if (!rg)
		pthread_attr_destroy(&attr);
	rs = stackinfo_pthread_getattr_np(pthread_self(), &attr);
	if (!rs)
		pthread_attr_destroy(&attr);
	CHECK(rs == rg, "%s: no fd left: library %d, glibc %d (%s)", name, rs, rg, strerror(rg));
	err = stackinfo_query_thread(0, STACKINFO_QUERY_NO_SP, &q);
	CHECK(err == -EMFILE, "%s: no fd left: stackinfo_query_thread %d", name, err);
	if (has_async_safe()) {
		err = stackinfo_query_thread(0, STACKINFO_LIB_ASYNC_SAFE, &q);
		CHECK(err == -EMFILE, "%s: no fd left: async-safe query %d", name, err);
	}
}

int main(void)
{
	char path[64];
	size_t i;
	int ran = 0;

	glibc = t_glibc_getattr();
	if (!glibc) {
		fprintf(stderr, "glibc's pthread_getattr_np not found\n");
		return 1;
	}
	snprintf(path, sizeof(path), "/tmp/lib_fds.%d", (int)getpid());
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		backend = backends[i];
		name = stackinfo_backend_name(backend);
		if (stackinfo_set_backend(backend)) {
			CHECK(!t_backend_offered(backend), "%s: refused, though the kernel offers it", name);
			printf("info: %s: not offered here\n", name);
			continue;
		}
		ran++;
		t_in_child_arg(name, fd_count, NULL);
		t_in_child_arg(name, fork_pipe, NULL);
		t_in_child_arg(name, exit_flush, path);
		t_in_child_arg(name, foreign_fd, NULL);
		t_in_child_arg(name, no_fds_left, NULL);
		printf("info: %s: fds kept, fork, exit, foreign fds, EMFILE\n", name);
	}
	CHECK(ran >= 1, "no backend ran");
	return t_result();
}
