// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo's handles: a caller that asks often keeps the backend's
 * file open in an object of its own (liburing's ring, libbpf's objects),
 * so that a query is the backend's ioctl and no open and close around it.
 * The library itself keeps no fd (lib.c); a handle's fd is the caller's,
 * made and closed by its calls, never looked at by number elsewhere.
 *
 * What a handle keeps: the module's /proc/stackinfo (it answers about any
 * thread, whoever asks); the in-tree /proc/self/stackinfo (this process's
 * threads; others' are opened per query, since that open is the kernel's
 * check); /proc/self/maps for PROCMAP_QUERY and the maps parse (this
 * process's threads; others' opened per query). The last two name the
 * process that opened them: a forked child's queries through them would
 * be about its parent, so they fail with ECHILD in any other process
 * than the opener (getpid(): a child made with CLONE_NEWPID that is PID 1
 * of a PID 1 is the case this cannot tell). A module handle serves a
 * child as well.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

struct stackinfo_handle {
	struct si_files files;
	pid_t opener;		/* getpid() at the open */
};

static void si_handle_free(struct stackinfo_handle *h)
{
	if (h->files.module >= 0)
		close(h->files.module);
	if (h->files.proc_self >= 0)
		close(h->files.proc_self);
	if (h->files.maps >= 0)
		close(h->files.maps);
	free(h);
}

SI_EXPORT int stackinfo_handle_open(uint64_t flags, struct stackinfo_handle **hp)
{
	struct stackinfo_handle *h;
	int saved = errno, b, fd;

	if (!hp)
		return -EFAULT;
	if (flags)
		return -EINVAL;
	b = si_current_backend();
	if (b < 0) {
		errno = saved;
		return b;
	}
	h = malloc(sizeof(*h));
	if (!h) {
		errno = saved;
		return -ENOMEM;
	}
	h->files = (struct si_files){ .backend = b, .module = -1, .proc_self = -1, .maps = -1 };
	h->opener = getpid();
	switch (b) {
	case STACKINFO_BACKEND_MODULE:
		fd = h->files.module = si_module_open();
		break;
	case STACKINFO_BACKEND_PROC:
		fd = h->files.proc_self = open("/proc/self/stackinfo", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		break;
	default:
		fd = h->files.maps = si_open_maps(0);
		break;
	}
	if (fd < 0) {
		h->files.module = h->files.proc_self = h->files.maps = -1;
		si_handle_free(h);
		errno = saved;
		return fd;
	}
	*hp = h;
	errno = saved;
	return 0;
}

SI_EXPORT void stackinfo_handle_close(struct stackinfo_handle *h)
{
	int saved = errno;

	if (h)
		si_handle_free(h);
	errno = saved;
}

SI_EXPORT int stackinfo_handle_backend(const struct stackinfo_handle *h)
{
	return h ? h->files.backend : -EFAULT;
}

/* @h's files for a query: NULL where the handle is not to be used here */
static const struct si_files *si_handle_files(const struct stackinfo_handle *h, int *err)
{
	*err = 0;
	if (!h) {
		*err = -EFAULT;
		return NULL;
	}
	if ((h->files.proc_self >= 0 || h->files.maps >= 0) && getpid() != h->opener) {
		*err = -ECHILD;
		return NULL;
	}
	return &h->files;
}

SI_EXPORT int stackinfo_handle_query_sz(struct stackinfo_handle *h, pid_t tid, uint64_t flags,
					struct stackinfo_query *q, size_t size)
{
	int saved = errno, err;
	const struct si_files *f = si_handle_files(h, &err);

	errno = saved;
	if (!f)
		return err;
	return flags & STACKINFO_LIB_ASYNC_SAFE ? -EINVAL : si_answer(f, tid, flags, NULL, q, size);
}

SI_EXPORT int stackinfo_handle_classify_addr_sz(struct stackinfo_handle *h, pid_t tid,
						uint64_t addr, uint64_t flags,
						struct stackinfo_query *q, size_t size)
{
	int saved = errno, err;
	const struct si_files *f = si_handle_files(h, &err);

	errno = saved;
	if (!f)
		return err;
	return flags & STACKINFO_LIB_ASYNC_SAFE ? -EINVAL : si_answer(f, tid, flags, &addr, q, size);
}

SI_EXPORT int stackinfo_handle_query_process_sz(struct stackinfo_handle *h, pid_t pid,
						uint64_t flags, struct stackinfo_query *q,
						size_t n, size_t *count, size_t size)
{
	int saved = errno, err;
	const struct si_files *f = si_handle_files(h, &err);

	errno = saved;
	if (!f) {
		if (count)
			*count = 0;
		return err;
	}
	return si_process_answer(f, pid, flags, q, n, count, size);
}
