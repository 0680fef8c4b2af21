// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The access policy (DESIGN.md, module/access.c), run as root in the guest:
 * self and the own thread group always; another process only with
 * CAP_SYS_PTRACE held by the caller and by the fd's opener; a same-uid
 * process without it is refused (stricter than /proc/<pid>/maps); zombies
 * and reaped tasks are -ESRCH; kernel threads -ENOENT; tids are numbers
 * of the caller's pid namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "testutil.h"

#define USER_UID 1000

/* A child that waits to be asked about; dies with its parent. */
static pid_t spawn_sleeper(int nondumpable)
{
	int p[2];
	pid_t pid;
	char c = 0;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (nondumpable)
			prctl(PR_SET_DUMPABLE, 0);
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

static int query_errno(int fd, pid_t tid)
{
	struct stackinfo_query q;

	return si_module_query(fd, tid, 0, &q);
}

/* Run @fn in a child and count its failures as ours. */
static void in_child(const char *what, void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		t_failures = 0;
		fn(arg);
		_exit(t_result());
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "%s: child failed", what);
}

static void drop_to_user(void)
{
	if (setresgid(USER_UID, USER_UID, USER_UID) ||
	    setresuid(USER_UID, USER_UID, USER_UID)) {
		fprintf(stderr, "cannot become uid %d: %s\n", USER_UID,
			strerror(errno));
		_exit(1);
	}
	/* a uid change leaves us non-dumpable; a login shell's children are not */
	prctl(PR_SET_DUMPABLE, 1);
}

struct targets {
	pid_t root_proc, nondumpable;
	int root_fd;
};

struct user_peer {
	pthread_barrier_t b;
	pid_t tid;
};

static void *user_peer(void *arg)
{
	struct user_peer *p = arg;

	p->tid = t_gettid();
	pthread_barrier_wait(&p->b);	/* asked about meanwhile */
	pthread_barrier_wait(&p->b);
	return NULL;
}

static void as_user(void *arg)
{
	const struct targets *t = arg;
	struct stackinfo_query q;
	pid_t sibling;
	int fd, err;
	char path[64];
	FILE *f;

	drop_to_user();
	fd = si_open();
	CHECK(fd >= 0, "user open: %s", strerror(-fd));
	err = si_module_query(fd, 0, 0, &q);
	CHECK(!err && (q.valid & STACKINFO_VALID_SP), "user self: %s", strerror(-err));
	CHECK(!si_text_read(fd, &q), "user /proc/stackinfo text");
	CHECK_EQ(query_errno(fd, 1), -EACCES);
	CHECK_EQ(query_errno(fd, t->root_proc), -EACCES);
	CHECK_EQ(query_errno(fd, t->nondumpable), -EACCES);
	CHECK_EQ(query_errno(fd, 2), -ENOENT);

	/* another thread of its own process: always, SP included */
	{
		struct user_peer p;
		pthread_t th;

		pthread_barrier_init(&p.b, NULL, 2);
		pthread_create(&th, NULL, user_peer, &p);
		pthread_barrier_wait(&p.b);
		err = si_module_query(fd, p.tid, 0, &q);
		CHECK(!err && q.out_tid == (uint32_t)p.tid && (q.valid & STACKINFO_VALID_SP_VMA),
		      "user: its other thread: %s", strerror(-err));
		pthread_barrier_wait(&p.b);
		pthread_join(th, NULL);
	}

	/* same uid: maps would allow it, this module wants CAP_SYS_PTRACE */
	sibling = spawn_sleeper(0);
	CHECK(sibling > 0, "fork");
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)sibling);
	f = fopen(path, "re");
	CHECK(f, "same-uid maps should be readable: %s", strerror(errno));
	if (f)
		fclose(f);
	CHECK_EQ(query_errno(fd, sibling), -EACCES);
	kill(sibling, SIGKILL);
	waitpid(sibling, NULL, 0);

	/* an fd opened by root lends the user nothing */
	CHECK_EQ(query_errno(t->root_fd, t->root_proc), -EACCES);
	close(fd);
}

static int drop_effective_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[cap / 32].effective &= ~(1U << (cap % 32));
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

static void root_without_ptrace_cap(void *arg)
{
	const struct targets *t = arg;
	int fd;

	CHECK(!drop_effective_cap(CAP_SYS_PTRACE), "capset: %s", strerror(errno));
	fd = si_open();
	CHECK_EQ(query_errno(fd, 0), 0);
	CHECK_EQ(query_errno(fd, t->root_proc), -EACCES);
	CHECK_EQ(query_errno(fd, 1), -EACCES);
	/* the fd opened with the capability does not restore it */
	CHECK_EQ(query_errno(t->root_fd, t->root_proc), -EACCES);
	close(fd);
}

static void opened_without_cap(void *arg)
{
	const struct targets *t = arg;
	int fd;

	/* open while euid is the user's (no effective caps), then back */
	CHECK(!setresuid(0, USER_UID, 0), "seteuid: %s", strerror(errno));
	fd = si_open();
	CHECK(!setresuid(0, 0, 0), "seteuid back: %s", strerror(errno));
	CHECK(fd >= 0, "open: %s", strerror(-fd));
	CHECK_EQ(query_errno(fd, 0), 0);
	CHECK_EQ(query_errno(fd, t->root_proc), -EACCES);
	close(fd);
}

/*
 * A child in a new pid namespace sees tids in its own numbering: itself
 * as 1, nothing of the outer namespace (not even kthreadd: -ESRCH); the
 * outer namespace sees it under its outer number.
 */
static void pid_namespace(void *arg)
{
	const struct targets *t = arg;
	struct stackinfo_query q;
	int p[2], status;
	pid_t child;
	char c;

	CHECK(!unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID): %s", strerror(errno));
	CHECK(!pipe(p), "pipe");
	child = fork();
	if (child == 0) {
		int fd = si_open(), bad = 0;

		bad |= si_module_query(fd, 0, 0, &q) || q.out_tid != 1 || q.tgid != 1;
		bad |= si_module_query(fd, 1, 0, &q) || q.out_tid != 1;
		bad |= si_module_query(fd, t->root_proc, 0, &q) != -ESRCH;
		bad |= si_module_query(fd, 2, 0, &q) != -ESRCH;
		c = bad ? 'x' : 'k';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	CHECK(child > 0, "fork into the new namespace");
	CHECK(read(p[0], &c, 1) == 1 && c == 'k', "inside the new pid namespace");
	CHECK(!si_module_query(t->root_fd, child, 0, &q) && q.out_tid == (uint32_t)child &&
	      q.tgid == (uint32_t)child, "the child from outside: tid %u", q.out_tid);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
}

static char zombie_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

int main(void)
{
	struct targets t;
	struct stackinfo_query q;
	pid_t zombie;
	int err, i;

	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	t.root_fd = si_open();
	if (t.root_fd < 0) {
		fprintf(stderr, "%s: %s\n", STACKINFO_PROC_PATH, strerror(-t.root_fd));
		return 1;
	}
	t.root_proc = spawn_sleeper(0);
	t.nondumpable = spawn_sleeper(1);
	CHECK(t.root_proc > 0 && t.nondumpable > 0, "fork");

	/* root with CAP_SYS_PTRACE sees other processes, SP included */
	err = si_module_query(t.root_fd, t.root_proc, 0, &q);
	CHECK(!err, "root -> root process: %s", strerror(-err));
	CHECK_EQ(q.out_tid, t.root_proc);
	CHECK_EQ(q.tgid, t.root_proc);
	CHECK(q.valid & STACKINFO_VALID_SP_VMA, "root -> other: no SP");
	CHECK(q.sp >= q.main_vma_start && q.sp < q.main_vma_end, "other's SP off its stack");
	err = si_module_query(t.root_fd, t.nondumpable, 0, &q);
	CHECK(!err, "root -> non-dumpable: %s", strerror(-err));
	err = si_module_query(t.root_fd, 1, 0, &q);
	CHECK(!err, "root -> init: %s", strerror(-err));

	in_child("uid 1000", as_user, &t);
	in_child("root without CAP_SYS_PTRACE", root_without_ptrace_cap, &t);
	in_child("fd opened without the capability", opened_without_cap, &t);
	in_child("another pid namespace", pid_namespace, &t);

	/* a zombie has no mm; a reaped pid is gone */
	zombie = fork();
	if (zombie == 0)
		_exit(0);
	for (i = 0; i < 1000 && zombie_state(zombie) != 'Z'; i++)
		usleep(1000);
	CHECK_EQ(zombie_state(zombie), 'Z');
	CHECK_EQ(query_errno(t.root_fd, zombie), -ESRCH);
	waitpid(zombie, NULL, 0);
	CHECK_EQ(query_errno(t.root_fd, zombie), -ESRCH);

	kill(t.root_proc, SIGKILL);
	kill(t.nondumpable, SIGKILL);
	waitpid(t.root_proc, NULL, 0);
	waitpid(t.nondumpable, NULL, 0);
	close(t.root_fd);
	return t_result();
}
