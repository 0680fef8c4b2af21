// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: the small /proc files the fallback backends read.
 * @tid 0 means the calling process, through /proc/self.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void proc_path(char *buf, size_t size, pid_t tid, const char *file)
{
	if (tid)
		snprintf(buf, size, "/proc/%d/%s", (int)tid, file);
	else
		snprintf(buf, size, "/proc/self/%s", file);
}

/* The whole (small) file, NUL-terminated: its length or -errno. */
ssize_t si_read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

/* Field @field (1-based, as proc(5) numbers them) of /proc/<tid>/stat. */
static int stat_field(pid_t tid, int field, uint64_t *v)
{
	char path[64], buf[2048], *p, *end;
	ssize_t n;
	int i;

	proc_path(path, sizeof(path), tid, "stat");
	n = si_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
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

int si_proc_start_stack(pid_t tid, uint64_t *start_stack)
{
	int ret = stat_field(tid, 28, start_stack);

	/* proc shows 0 to callers it would not show the mm to */
	if (!ret && !*start_stack)
		return -EACCES;
	return ret;
}

int si_proc_tgid(pid_t tid, pid_t *tgid)
{
	char path[64], buf[4096], *p;
	ssize_t n;

	proc_path(path, sizeof(path), tid, "status");
	n = si_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -EINVAL;
	*tgid = (pid_t)strtol(p + 6, NULL, 10);
	return *tgid > 0 ? 0 : -EINVAL;
}

/*
 * The user SP of a thread blocked in a system call, from
 * /proc/<tid>/syscall ("nr args... sp pc"); -EAGAIN while it runs.
 */
int si_proc_syscall_sp(pid_t tid, uint64_t *sp)
{
	char path[64], buf[512], *words[10], *save, *w;
	ssize_t n;
	int nw = 0;

	proc_path(path, sizeof(path), tid, "syscall");
	n = si_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
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

int si_open_maps(pid_t tid)
{
	char path[64];
	int fd;

	proc_path(path, sizeof(path), tid, "maps");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return fd;
}
