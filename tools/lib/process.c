// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: every thread of a process in one call. The module and the
 * in-tree file answer it with one STACKINFO_IOC_QUERY_THREADS; without
 * them, and when they refuse another process, each thread that
 * /proc/<pid>/task lists is asked as stackinfo_query_thread() asks it, so
 * that every entry is that call's answer for its thread, with its errno.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

static void si_mark(int backend, struct stackinfo_query *q, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		q[i].thread_flags |= STACKINFO_LIB_BACKEND_FLAGS(backend);
}

/*
 * One STACKINFO_IOC_QUERY_THREADS on @fd. The kernel leaves count as it
 * was on input it refuses and sets it on the other failures: only its
 * answer and -ERANGE's number are passed on.
 */
static int si_batch(int fd, pid_t pid, uint64_t flags, struct stackinfo_query *q,
		    size_t n, size_t *count)
{
	struct stackinfo_threads a = {
		.size = sizeof(a),
		.query_flags = flags,
		.pid = (uint32_t)pid,
		.count = n < SI_MAX_THREADS ? (uint32_t)n : SI_MAX_THREADS,
		.entries = (uintptr_t)q,
		.entry_size = sizeof(*q),
	};
	int err = ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) ? -errno : 0;

	*count = err && err != -ERANGE ? 0 : a.count;
	return err;
}

/* One batch on the file @fd (closed here), about pid @pid of its numbers. */
static int si_batch_close(int fd, pid_t pid, uint64_t flags, struct stackinfo_query *q,
			  size_t n, size_t *count)
{
	int err;

	if (fd < 0)
		return fd;
	err = si_batch(fd, pid, flags, q, n, count);
	close(fd);
	return err;
}

/*
 * The in-tree file answers about its own process only, pid 0 naming it:
 * this process's through the calling thread's file, another's through
 * its own /proc/<pid>/stackinfo (the open runs the kernel's check, as
 * maps's does).
 */
static int si_proc_batch(int self, pid_t pid, uint64_t flags, struct stackinfo_query *q,
			 size_t n, size_t *count)
{
	int fd;

	/* a kept /proc/self/stackinfo: this process's file, pid 0 naming it */
	if (!pid && self >= 0)
		return si_batch(self, 0, flags, q, n, count);
	fd = pid ? si_open_tid_file(pid, "stackinfo") : si_self_proc_open();
	return si_batch_close(fd, 0, flags, q, n, count);
}

/* The tids <dir>/task lists, into a new array: 0 or -errno. */
static int si_task_tids(int dir, pid_t **tidsp, size_t *nr)
{
	size_t cap = 0, n = 0;
	pid_t *tids = NULL, *more;
	struct dirent *d;
	int fd, err = 0;
	DIR *task;

	fd = openat(dir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	task = fdopendir(fd);
	if (!task) {
		err = -errno;
		close(fd);
		return err;
	}
	for (errno = 0; (d = readdir(task)); errno = 0) {
		char *end;
		long v = strtol(d->d_name, &end, 10);

		if (*end || v <= 0)
			continue;	/* "." and ".." */
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			more = realloc(tids, cap * sizeof(*tids));
			if (!more) {
				err = -ENOMEM;
				break;
			}
			tids = more;
		}
		tids[n++] = (pid_t)v;
	}
	if (!err && errno)
		err = -errno;
	closedir(task);
	if (err) {
		free(tids);
		return err;
	}
	*tidsp = tids;
	*nr = n;
	return 0;
}

/*
 * Without the kernel's batch: each listed thread as backend @b answers it.
 * One that has exited since the listing, or whose number now names a
 * thread of another process, is left out, and so is one refused while
 * another thread is answered (the kernel's batch leaves those out too);
 * a refusal of them all is the process's.
 */
static int si_fallback_batch(int b, int maps, pid_t pid, uint64_t flags,
			     struct stackinfo_query *q, size_t n, size_t *count)
{
	size_t nr = 0, i, written = 0;
	int dir, err, refused = 0;
	pid_t *tids = NULL, tid, tgid;

	*count = 0;
	dir = pid ? si_proc_open_tid(pid) : open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return pid ? dir : -errno;
	/* the process the listing is of, in the mount's numbers */
	err = si_proc_ids(dir, &tid, &tgid);
	if (!err)
		err = si_task_tids(dir, &tids, &nr);
	close(dir);
	if (err)
		return err;
	if (nr > n) {
		free(tids);
		*count = nr;
		return -ERANGE;
	}
	for (i = 0; i < nr; i++) {
		err = si_fallback_query_fd(b, tids[i], flags, maps, &q[written]);
		if (!err && q[written].tgid != (uint32_t)tgid)
			err = -ESRCH;
		if (!err) {
			si_mark(b, &q[written++], 1);
			continue;
		}
		if (err == -EACCES || err == -EPERM) {
			refused = refused ? refused : err;
			continue;
		}
		if (err != -ESRCH)
			break;
	}
	free(tids);
	if (i < nr)
		return err;
	if (!written)
		return refused ? refused : -ESRCH;
	*count = written;
	return 0;
}

int si_query_process(const struct si_files *f, pid_t pid, uint64_t flags,
		     struct stackinfo_query *q, size_t n, size_t *count)
{
	int b = f ? f->backend : si_current_backend(), err;
	int module = f ? f->module : -1, self = f ? f->proc_self : -1, maps = f ? f->maps : -1;

	*count = 0;
	if (b < 0)
		return b;
	if (b == STACKINFO_BACKEND_PROC) {
		err = si_proc_batch(self, pid, flags, q, n, count);
	} else if (b == STACKINFO_BACKEND_MODULE) {
		err = module >= 0 ? si_batch(module, pid, flags, q, n, count) :
				    si_batch_close(si_module_open(), pid, flags, q, n, count);
	} else {
		return si_fallback_batch(b, maps, pid, flags, q, n, count);
	}
	if (!err) {
		si_mark(b, q, *count);
		return 0;
	}
	/* refused (EACCES; ESRCH under hidepid): what /proc grants, as si_query() */
	if (!pid || (err != -EACCES && err != -ESRCH))
		return err;
	return si_fallback_batch(si_fallback_backend(), maps, pid, flags, q, n, count);
}
