// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: the main thread's stack as glibc's pthread_getattr_np()
 * computes it (nptl/pthread_getattr_np.c): from the end of the initial
 * stack's arguments (si_stack_end()), the VMA holding it, the VMA below
 * and RLIMIT_STACK, all of which the kernel gives in one query. The same
 * formula on every C library the library is built for: on musl too, whose
 * own pthread_getattr_np() reports the stack's current size instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "internal.h"

SI_EXPORT void stackinfo_glibc_main_stack(uint64_t stack_end, uint64_t vma_end,
					  uint64_t prev_end, uint64_t rlim_cur,
					  uint64_t pagesize, uint64_t *stackaddr,
					  uint64_t *stacksize)
{
	/* the top: the page above __libc_stack_end */
	uint64_t top = (stack_end & -pagesize) + pagesize;
	/* the limit less what lies above the top, down to whole pages */
	uint64_t size = (rlim_cur - (vma_end - top)) & -pagesize;

	/* and never into the mapping below */
	if (size > top - prev_end)
		size = top - prev_end;
	*stackaddr = top - size;
	*stacksize = size;
}

int si_main_stack_from(const struct stackinfo_query *q, uint64_t lse, uint64_t pagesize,
		       uint64_t *lo, uint64_t *size)
{
	if (!(q->valid & STACKINFO_VALID_MAIN_VMA) ||
	    lse < q->main_vma_start || lse >= q->main_vma_end)
		return -ENOENT;	/* the stack's end is not at start_stack */
	if (!(q->valid & STACKINFO_VALID_RLIMIT))
		return -EIO;
	stackinfo_glibc_main_stack(lse, q->main_vma_end,
				   q->valid & STACKINFO_VALID_MAIN_PREV ?
				   q->main_prev_end : 0,
				   q->rlim_stack_cur, pagesize, lo, size);
	return 0;
}

/*
 * Every field used is the process's, not a thread's: the caller's own
 * query (tid 0) serves whichever thread asks. @quiet: with only the system
 * calls glibc's pthread_getattr_np() makes (openat, read, close,
 * prlimit64), for the interposer (si_quiet_backend()): the in-tree file's
 * or the module's text instead of their ioctl; PROCMAP_QUERY only where
 * /proc/thread-self/status, read just before, says that no seccomp filter
 * can meet its ioctl (si_ioctl_unfiltered()); the maps parse otherwise.
 */
int si_main_stack(bool quiet, uint64_t *lo, uint64_t *size, uint64_t *vma_lo,
		  uint64_t *vma_hi)
{
	const uint64_t flags = STACKINFO_QUERY_NO_SP | SI_QUERY_NO_IDS;
	const uint64_t page = sysconf(_SC_PAGESIZE);
	uint64_t lse = si_stack_end(), s, e, f;
	int fd = -1, b = quiet ? si_quiet_backend(&fd) : si_current_backend();
	bool procmap = b == STACKINFO_BACKEND_PROCMAP_QUERY;
	struct stackinfo_query q;
	int err;

	if (b < 0)
		return b;
	if (quiet && (b == STACKINFO_BACKEND_PROC || b == STACKINFO_BACKEND_MODULE)) {
		err = si_query_text(b, fd, &q);
		if (!err)
			err = si_main_stack_from(&q, lse, page, lo, size);
		goto out;
	}
	if (!procmap) {
		/* quiet: the maps parse, whatever backend is chosen */
		err = quiet ? si_fallback_query(b, 0, flags, &q) : si_query(0, flags, &q);
		if (!err)
			err = si_main_stack_from(&q, lse, page, lo, size);
		goto out;
	}
	/*
	 * PROCMAP_QUERY finds the VMA below only by a search; the size
	 * depends on it only if some VMA lies between where the rlimit would
	 * put the bottom and the stack. Look there first, through one open
	 * of maps for the whole call.
	 */
	fd = si_open_maps(0);
	if (fd < 0)
		return fd;
	err = si_fallback_query_fd(b, 0, flags | SI_QUERY_NO_MAIN_PREV, fd, &q);
	if (!err)
		err = si_main_stack_from(&q, lse, page, lo, size);
	if (!err) {
		err = si_procmap_covering(fd, *lo, true, &s, &e, &f);
		if (err == -ENOENT || (!err && s >= q.main_vma_start)) {
			err = 0;
		} else if (!err) {
			err = si_fallback_query_fd(b, 0, flags, fd, &q);
			if (!err)
				err = si_main_stack_from(&q, lse, page, lo, size);
		}
	}
	close(fd);
out:
	if (err)
		return err;
	*vma_lo = q.main_vma_start;
	*vma_hi = q.main_vma_end;
	return 0;
}

SI_EXPORT int stackinfo_main_stack(void **stackaddr, size_t *stacksize)
{
	uint64_t lo, size, vlo, vhi;
	int saved = errno, err = si_main_stack(false, &lo, &size, &vlo, &vhi);

	errno = saved;
	if (err)
		return err;
	*stackaddr = (void *)(uintptr_t)lo;
	*stacksize = size;
	return 0;
}
