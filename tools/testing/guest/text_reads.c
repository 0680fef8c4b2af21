// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Who /proc/stackinfo's text is about when one open file description is
 * read by several readers (stackinfo(4)): the text is made for the thread
 * that reads, and continued only for that thread. Any other thread, of
 * the same process or of another one (a shared stdin, an inherited fd),
 * that reads on at a later offset reads its own text from that offset,
 * never the rest of the first reader's:
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
		_exit(user_reads_on(getppid(), first));
	}
	CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "uid %d's side", USER_UID);
}

int main(void)
{
	fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(STACKINFO_PROC_PATH);
		return T_SKIP;
	}
	threads_of_one_process();
	if (getuid() == 0)
		two_processes();
	else
		printf("text_reads: not root: the two-process case is not run\n");
	close(fd);
	return t_result();
}
