// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo's queries as a program calls them: into a struct of the
 * size the program was built with. The backends always answer in this
 * library's whole struct stackinfo_query; the answer is then copied into
 * the caller's, min(its size, ours) bytes, the rest of the caller's struct
 * zeroed, no byte past its size touched. A binary built against an older
 * header (a shorter struct) or a newer one (a longer struct) gets what its
 * struct holds, and never more: libstackinfo(3), ABI.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SI_END(field) \
	(offsetof(struct stackinfo_query, field) + sizeof(((struct stackinfo_query *)0)->field))

/*
 * The largest struct a caller may pass: the kernel's own bound on the
 * ioctl's size (PAGE_SIZE), so that a size is never a number read from
 * garbage.
 */
#define SI_QUERY_SIZE_MAX	4096

/*
 * The valid bits whose fields lie past STACKINFO_QUERY_SIZE_VER0, with the
 * end of the last field each covers, as the module's stackinfo_fit() has
 * them: a struct shorter than that end does not get the bit. Every bit of
 * VER0 covers fields inside VER0's 168 bytes.
 */
static const struct {
	uint64_t bit;
	size_t end;
} si_valid_ends[] = {
	{ STACKINFO_VALID_ALTSTACK, SI_END(ss_flags) },
	{ STACKINFO_VALID_STACK_KIND, SI_END(stack_kind) },
	{ STACKINFO_VALID_ADDR, SI_END(addr_vma_flags) },
	{ STACKINFO_VALID_ADDR_VMA, SI_END(addr_vma_flags) },
};

/*
 * A struct that grows gains valid bits for its new fields: each needs its
 * line above, or a caller of the old size would be told that a field it
 * does not have holds an answer.
 */
_Static_assert(sizeof(struct stackinfo_query) == STACKINFO_QUERY_SIZE_VER2,
	       "struct stackinfo_query grew: give its new valid bits their end in si_valid_ends");
_Static_assert(SI_END(guard_gap) == STACKINFO_QUERY_SIZE_VER0,
	       "VER0's valid bits cover fields within VER0");

/* The flags a caller may give; PROOF_FD is the raw ABI's (no proof_fd here). */
#define SI_CALLER_FLAGS (STACKINFO_QUERY_NO_SP | STACKINFO_LIB_ASYNC_SAFE)

static bool si_size_ok(size_t size)
{
	return size >= STACKINFO_QUERY_SIZE_VER0 && size <= SI_QUERY_SIZE_MAX &&
	       !(size % sizeof(uint64_t));
}

/*
 * The answer @a into the caller's struct @q of @size bytes: as much as it
 * holds, zeros after that, its size and valid bits saying what it got.
 * Only memcpy and memset: async-signal-safe.
 */
static void si_copy_out(void *q, size_t size, struct stackinfo_query *a)
{
	size_t n = size < sizeof(*a) ? size : sizeof(*a), i;

	for (i = 0; i < sizeof(si_valid_ends) / sizeof(si_valid_ends[0]); i++)
		if (n < si_valid_ends[i].end)
			a->valid &= ~si_valid_ends[i].bit;
	a->size = n;
	memcpy(q, a, n);
	memset((char *)q + n, 0, size - n);
}

/*
 * One thread's answer into the caller's struct; with @addr, classifying
 * *@addr. Bad input and failures leave *@q as it was.
 */
int si_answer(const struct si_files *f, pid_t tid, uint64_t flags, const uint64_t *addr,
	      void *q, size_t size)
{
	struct stackinfo_query a;
	int saved = errno, err;

	if (!q)
		return -EFAULT;
	if ((flags & ~(uint64_t)SI_CALLER_FLAGS) || !si_size_ok(size))
		return -EINVAL;
	if (!addr) {
		err = si_query_in(f, tid, flags, &a);
	} else {
		a.addr = *addr;
		err = si_query_in(f, tid, flags | STACKINFO_QUERY_ADDR, &a);
		/*
		 * A kernel from before the address flag refuses it (EINVAL), or
		 * the address as a non-zero tail of its shorter struct (E2BIG):
		 * the rest of the answer, without STACKINFO_VALID_ADDR.
		 */
		if (err == -EINVAL || err == -E2BIG) {
			err = si_query_in(f, tid, flags, &a);
			a.addr = *addr;
		}
	}
	if (!err)
		si_copy_out(q, size, &a);
	errno = saved;
	return err;
}

int si_query_thread_sized(pid_t tid, uint64_t flags, void *q, size_t size)
{
	return si_answer(NULL, tid, flags, NULL, q, size);
}

int si_classify_addr_sized(pid_t tid, uint64_t addr, uint64_t flags, void *q,
			   size_t size)
{
	return si_answer(NULL, tid, flags, &addr, q, size);
}

/*
 * Callers of this library's own size get the entries in place; any other
 * size, through an array of whole structs (allocated for @n entries, at
 * most as many as a process can have threads, which touches only the
 * pages the answer fills).
 */
int si_query_process_sized(pid_t pid, uint64_t flags, void *q, size_t n,
			   size_t *count, size_t size)
{
	return si_process_answer(NULL, pid, flags, q, n, count, size);
}

int si_process_answer(const struct si_files *f, pid_t pid, uint64_t flags, void *q,
		      size_t n, size_t *count, size_t size)
{
	struct stackinfo_query *a = q;
	int saved = errno, err;
	size_t i, cap = n < SI_MAX_THREADS ? n : SI_MAX_THREADS;

	if (!count || (!q && n))
		return -EFAULT;
	if ((flags & ~(uint64_t)STACKINFO_QUERY_NO_SP) || !si_size_ok(size) ||
	    n > SIZE_MAX / size)
		return -EINVAL;
	if (pid < 0)
		return -ESRCH;
	if (size != sizeof(*a) && n) {
		a = malloc(cap * sizeof(*a));
		if (!a) {
			errno = saved;
			return -ENOMEM;
		}
	}
	err = si_query_process(f, pid, flags, a, cap, count);
	for (i = 0; !err && i < *count; i++) {
		if (a == q)
			a[i].size = sizeof(*a);
		else
			si_copy_out((char *)q + i * size, size, &a[i]);
	}
	if (a != q)
		free(a);
	errno = saved;
	return err;
}

SI_EXPORT int stackinfo_query_thread_sz(pid_t tid, uint64_t flags,
					struct stackinfo_query *q, size_t size)
{
	return si_query_thread_sized(tid, flags, q, size);
}

SI_EXPORT int stackinfo_classify_addr_sz(pid_t tid, uint64_t addr, uint64_t flags,
					 struct stackinfo_query *q, size_t size)
{
	return si_classify_addr_sized(tid, addr, flags, q, size);
}

SI_EXPORT int stackinfo_query_process_sz(pid_t pid, uint64_t flags,
					 struct stackinfo_query *q, size_t n,
					 size_t *count, size_t size)
{
	return si_query_process_sized(pid, flags, q, n, count, size);
}
