// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A fd of /proc/stackinfo bind-mounted alone, off a /proc mount with
 * hidepid=invisible: the file has no <tid> directories beside it, so the
 * kernel cannot be asked about another process through it, and the
 * module's lookup of a tid (in the mount's pid namespace, where hidepid
 * does not apply) must not tell what hidepid hides. uid 1000, in a user
 * and mount namespace of its own, binds the hidepid mount's stackinfo
 * onto a file of its own and asks through it about a root process the
 * mount hides from it and about a free pid: every answer, single and
 * batch, with and without the SP, with and without a proof fd (its own
 * auxv), must be the same for both. The kernel says the same of both:
 * stat() of either /proc/<pid> is ENOENT on that mount. The caller's own
 * threads are still answered through the bind mount.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define USER_UID	1000
#define HPROC		"/tmp/access-bind-hproc"

struct who {
	pid_t hidden, free_pid;
	char target[64];
};

static int single(int fd, pid_t tid, uint64_t flags, int proof)
{
	struct stackinfo_query q;

	return si_module_query_proof(fd, tid, flags, proof, &q);
}

static int batch(int fd, pid_t pid, int proof, uint32_t *count)
{
	struct stackinfo_query arr[4];

	return t_threads_proof(fd, pid, proof, arr, 4, count);
}

/* Hidden and free: one answer, a refusal, for each way of asking. */
static void same_answer(int fd, const struct who *w, int proof, const char *how)
{
	static const uint64_t flags[] = { 0, STACKINFO_QUERY_NO_SP };
	uint32_t c1, c2;
	int e1, e2;
	size_t i;

	for (i = 0; i < 2; i++) {
		e1 = single(fd, w->hidden, flags[i], proof);
		e2 = single(fd, w->free_pid, flags[i], proof);
		printf("cell: %-30s %-8s hidden %-24s free %s\n", how, i ? "no SP" : "SP",
		       strerror(-e1), strerror(-e2));
		CHECK(e1 == e2 && e1 == -EACCES, "%s, %s: hidden pid %s, free pid %s", how,
		      i ? "no SP" : "SP", strerror(-e1), strerror(-e2));
	}
	e1 = batch(fd, w->hidden, proof, &c1);
	e2 = batch(fd, w->free_pid, proof, &c2);
	printf("cell: %-30s %-8s hidden %-24s free %s\n", how, "batch", strerror(-e1),
	       strerror(-e2));
	CHECK(e1 == e2 && e1 == -EACCES, "%s, batch: hidden pid %s, free pid %s", how,
	      strerror(-e1), strerror(-e2));
	CHECK(c1 == 0 && c2 == 0, "%s, batch counts %u %u", how, c1, c2);
}

static int user_side(const struct who *w)
{
	struct stackinfo_query q;
	char path[64];
	struct stat st;
	int fd, proof, err;

	/* the kernel: both pids are absent from the hidepid mount */
	snprintf(path, sizeof(path), HPROC "/%d", (int)w->hidden);
	CHECK(stat(path, &st) && errno == ENOENT, "stat %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), HPROC "/%d", (int)w->free_pid);
	CHECK(stat(path, &st) && errno == ENOENT, "stat %s: %s", path, strerror(errno));

	fd = open(w->target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(fd >= 0, "create %s: %s", w->target, strerror(errno));
	close(fd);
	err = t_user_mount_ns();
	if (err) {
		printf("access_bind_mount: no user namespace for uid 1000: %s\n", strerror(-err));
		return T_SKIP;
	}
	if (mount(HPROC "/stackinfo", w->target, NULL, MS_BIND, NULL)) {
		CHECK(0, "bind %s/stackinfo: %s", HPROC, strerror(errno));
		return t_result();
	}
	fd = open(w->target, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "open the bind mount: %s", strerror(errno));
	if (fd < 0)
		return t_result();

	/* its own threads: answered there as anywhere */
	CHECK(!single(fd, 0, 0, -1), "itself (tid 0)");
	CHECK(!single(fd, getpid(), 0, -1), "its own pid");
	CHECK(!si_module_query_proof(fd, getpid(), 0, -1, &q) && q.out_tid == (uint32_t)getpid(),
	      "its own pid's answer");

	same_answer(fd, w, -1, "uid 1000, bind of stackinfo");
	proof = open("/proc/self/auxv", O_RDONLY | O_CLOEXEC);
	CHECK(proof >= 0, "its own auxv: %s", strerror(errno));
	if (proof >= 0) {
		same_answer(fd, w, proof, "uid 1000, bind, own auxv");
		close(proof);
	}
	close(fd);
	return t_result();
}

int main(void)
{
	struct who w;
	pid_t user;
	int status = 0;	/* read below even when the wait failed */

	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	w.hidden = t_spawn_sleeper(0, 0);
	CHECK(w.hidden > 0, "the root process");
	/* a pid nothing has: searched downwards from above the newest */
	for (w.free_pid = w.hidden + 1000; w.free_pid > 300; w.free_pid--)
		if (kill(w.free_pid, 0) && errno == ESRCH)
			break;
	snprintf(w.target, sizeof(w.target), "/tmp/access-bind-%d", (int)getpid());

	/* a /proc of its own with hidepid=invisible, in a mount namespace of its own */
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (mkdir(HPROC, 0755) && errno != EEXIST) ||
	    mount("proc", HPROC, "proc", 0, "hidepid=invisible")) {
		CHECK(0, "a hidepid=invisible /proc at %s: %s", HPROC, strerror(errno));
		t_reap(w.hidden);
		return t_result();
	}
	fflush(stdout);
	user = fork();
	if (user == 0) {
		t_become_user(USER_UID);
		_exit(user_side(&w));
	}
	CHECK(user > 0 && waitpid(user, &status, 0) == user && WIFEXITED(status),
	      "the user's side");
	t_reap(w.hidden);
	umount(HPROC);
	rmdir(HPROC);
	unlink(w.target);
	if (WIFEXITED(status) && WEXITSTATUS(status) == T_SKIP && !t_failures)
		return T_SKIP;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the user's side failed");
	return t_result();
}
