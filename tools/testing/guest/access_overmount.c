// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The module asks the kernel by opening <tid>/maps and <tid>/syscall on
 * the caller's /proc mount. A user with a user namespace of its own may
 * mount in its mount namespace, also over those very files and over
 * /proc/<pid> itself: what it mounted there must prove nothing. uid 1000,
 * in a new user and mount namespace, mounts its own file over root's
 * process's maps and syscall, and a tmpfs over init's /proc directory, and
 * asks about both: EACCES, as the real files answer uid 1000 (checked on
 * the original /proc, through an fd opened before the mounts).
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

#define USER_UID 1000

/* The real answer for uid 1000, from the /proc it saw before the mounts. */
static int real_readable(int proc_dir, pid_t pid, const char *file)
{
	char path[64], buf[64];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%d/%s", (int)pid, file);
	fd = openat(proc_dir, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (read(fd, buf, sizeof(buf)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int user_side(pid_t victim)
{
	char path[64], fake[] = "/tmp/access-overmount-fake";
	struct stackinfo_query q;
	int proc_dir, fd, err, mounted = 0;

	proc_dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(proc_dir >= 0, "open /proc");
	CHECK(real_readable(proc_dir, victim, "maps") == -EACCES,
	      "uid 1000 reads root's maps on the real /proc");
	fd = open(fake, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(fd >= 0 && write(fd, "00400000-00401000 r--p 0 0:0 0\n", 31) == 31,
	      "the fake file");
	close(fd);
	err = t_user_mount_ns();
	if (err) {
		printf("access_overmount: no user namespace for uid 1000: %s\n", strerror(-err));
		return T_SKIP;
	}

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)victim);
	mounted += !mount(fake, path, NULL, MS_BIND, NULL);
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)victim);
	mounted += !mount(fake, path, NULL, MS_BIND, NULL);
	mounted += !mount("tmpfs", "/proc/1", "tmpfs", 0, NULL);
	CHECK(mounted == 3, "%d of 3 mounts: %s", mounted, strerror(errno));
	if (!mounted)
		return T_SKIP;
	CHECK(proc_readable(victim, "maps") == 0, "the fake maps reads: %d",
	      proc_readable(victim, "maps"));

	fd = si_open();
	CHECK(fd >= 0, "open /proc/stackinfo in the new mount namespace");
	err = si_module_query(fd, victim, 0, &q);
	printf("cell: %-28s %-22s maps (fake) yes, real refused | module %s\n",
	       "uid 1000, own mount over", "root process", err ? strerror(-err) : "answered");
	CHECK(err == -EACCES, "a file mounted over maps and syscall: %s",
	      err ? strerror(-err) : "answered");
	err = si_module_query(fd, victim, STACKINFO_QUERY_NO_SP, &q);
	CHECK(err == -EACCES, "the same without the SP: %s", err ? strerror(-err) : "answered");
	err = si_module_query(fd, 1, 0, &q);
	printf("cell: %-28s %-22s tmpfs over /proc/1 | module %s\n", "uid 1000, own mount over",
	       "init", err ? strerror(-err) : "answered");
	CHECK(err == -EACCES || err == -ESRCH, "a tmpfs over /proc/1: %s",
	      err ? strerror(-err) : "answered");
	close(fd);
	close(proc_dir);
	return t_result();
}

int main(void)
{
	pid_t victim, user;
	int status = 0;	/* read below even when the wait failed */

	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	victim = fork();
	if (victim == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	CHECK(victim > 0, "fork the victim");
	fflush(stdout);
	user = fork();
	if (user == 0) {
		if (setresgid(USER_UID, USER_UID, USER_UID) ||
		    setresuid(USER_UID, USER_UID, USER_UID))
			_exit(1);
		prctl(PR_SET_DUMPABLE, 1);
		_exit(user_side(victim));
	}
	CHECK(user > 0 && waitpid(user, &status, 0) == user && WIFEXITED(status),
	      "the user's side");
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	unlink("/tmp/access-overmount-fake");
	if (WIFEXITED(status) && WEXITSTATUS(status) == T_SKIP && !t_failures)
		return T_SKIP;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the user's side failed");
	return t_result();
}
