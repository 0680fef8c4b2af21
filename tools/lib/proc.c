// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: the small /proc files the fallback backends read. Another
 * thread's files are all read through one fd of its /proc/<tid> directory:
 * that fd keeps naming the thread it was opened on, so a pid reused after
 * the thread exited can never mix two processes into one answer (reads of
 * a dead thread's files fail with ESRCH instead). Numbers are the /proc
 * mount's: its pid namespace need not be the caller's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* A gone thread's files: ENOENT at open, ESRCH at read. */
static int proc_errno(int err)
{
	return err == -ENOENT ? -ESRCH : err;
}

ssize_t si_read_fd(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	return len;
}

/* The whole (small) file, NUL-terminated: its length or -errno. */
ssize_t si_read_file(const char *path, char *buf, size_t size)
{
	return si_read_at(AT_FDCWD, path, buf, size);
}

ssize_t si_read_at(int dir, const char *file, char *buf, size_t size)
{
	int fd = openat(dir, file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = si_read_fd(fd, buf, size);
	close(fd);
	return n;
}

int si_proc_open_tid(pid_t tid)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? proc_errno(-errno) : fd;
}

/* Field @field (1-based, as proc(5) numbers them) of @dir's @stat file. */
static int stat_field(int dir, const char *stat, int field, uint64_t *v)
{
	char buf[2048], *p, *end;
	ssize_t n;
	int i;

	n = si_read_at(dir, stat, buf, sizeof(buf));
	if (n < 0)
		return proc_errno(n);
	p = strrchr(buf, ')');	/* comm may hold anything but not end in ')' */
	if (!p || p[1] != ' ')
		return -EINVAL;
	p += 2;			/* field 3 */
	for (i = 3; i < field; i++) {
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		p++;
	}
	errno = 0;
	*v = strtoull(p, &end, 10);
	if (errno || end == p)
		return -EINVAL;
	return 0;
}

static int start_stack_at(int dir, const char *stat, uint64_t *start_stack)
{
	int ret = stat_field(dir, stat, 28, start_stack);

	/* proc shows 0 to callers it would not show the mm to */
	if (!ret && !*start_stack)
		return -EACCES;
	return ret;
}

int si_proc_start_stack(int dir, uint64_t *start_stack)
{
	return start_stack_at(dir, "stat", start_stack);
}

/*
 * This process's start_stack: set by the exec that made this image and
 * fixed until the next one, which takes this memory with it, so read once
 * and kept, whatever process runs the image now (a fork()'s or _Fork()'s
 * child, a clone, a PID 1 of a new namespace: all have the same). One
 * openat, read and close the first time; async-signal-safe.
 */
int si_self_start_stack(uint64_t *start_stack)
{
	static bool known;
	static uint64_t cached;
	int err;

	if (__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
		*start_stack = __atomic_load_n(&cached, __ATOMIC_RELAXED);
		return 0;
	}
	err = start_stack_at(AT_FDCWD, "/proc/self/stat", start_stack);
	if (!err) {
		__atomic_store_n(&cached, *start_stack, __ATOMIC_RELAXED);
		__atomic_store_n(&known, true, __ATOMIC_RELEASE);
	}
	return err;
}

int si_proc_ids(int dir, pid_t *tid, pid_t *tgid)
{
	char buf[4096], *p, *t;
	ssize_t n;

	n = si_read_at(dir, "status", buf, sizeof(buf));
	if (n < 0)
		return proc_errno(n);
	p = strstr(buf, "\nTgid:");
	t = strstr(buf, "\nPid:");
	if (!p || !t)
		return -EINVAL;
	*tgid = (pid_t)strtol(p + 6, NULL, 10);
	*tid = (pid_t)strtol(t + 5, NULL, 10);
	return *tgid > 0 && *tid > 0 ? 0 : -EINVAL;
}

int si_proc_self_ids(pid_t *tid, pid_t *tgid)
{
	char link[64];
	ssize_t n = readlink("/proc/thread-self", link, sizeof(link) - 1);
	int a, b;

	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	link[n] = '\0';
	if (sscanf(link, "%d/task/%d", &a, &b) != 2)
		return -EINVAL;
	*tgid = a;
	*tid = b;
	return 0;
}

/*
 * The user SP of a thread blocked in a system call, from <dir>/syscall
 * ("nr args... sp pc"); -EAGAIN while it runs.
 */
int si_proc_syscall_sp(int dir, uint64_t *sp)
{
	char buf[512], *words[10], *save, *w;
	ssize_t n;
	int nw = 0;

	n = si_read_at(dir, "syscall", buf, sizeof(buf));
	if (n < 0)
		return proc_errno(n);
	if (!strncmp(buf, "running", 7))
		return -EAGAIN;
	for (w = strtok_r(buf, " \n", &save); w && nw < 10;
	     w = strtok_r(NULL, " \n", &save))
		words[nw++] = w;
	if (nw == 9) {		/* nr, six args, sp, pc */
		*sp = strtoull(words[7], NULL, 16);
		return 0;
	}
	if (nw == 3) {		/* -1 sp pc: blocked, not in a syscall */
		*sp = strtoull(words[1], NULL, 16);
		return 0;
	}
	return -EINVAL;
}

/* "Max stack size  8388608  unlimited  bytes" of <dir>/limits */
int si_proc_stack_limit(int dir, uint64_t *cur, uint64_t *max)
{
	char buf[4096], *p, *end;
	uint64_t v[2];
	ssize_t n;
	int i;

	n = si_read_at(dir, "limits", buf, sizeof(buf));
	if (n < 0)
		return proc_errno(n);
	p = strstr(buf, "\nMax stack size");
	if (!p)
		return -EINVAL;
	p += strlen("\nMax stack size");
	for (i = 0; i < 2; i++) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, "unlimited", 9)) {
			v[i] = STACKINFO_RLIM_INFINITY;
			p += 9;
			continue;
		}
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (errno || end == p)
			return -EINVAL;
		p = end;
	}
	*cur = v[0];
	*max = v[1];
	return 0;
}

int si_open_tid_file(pid_t tid, const char *file)
{
	char path[64];
	int fd;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, file);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? proc_errno(-errno) : fd;
}

int si_open_maps(pid_t tid)
{
	return si_open_tid_file(tid, "maps");
}

int si_open_maps_at(int dir)
{
	int fd = openat(dir, "maps", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? proc_errno(-errno) : fd;
}
