// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Another thread's SP parked on the edges of mappings, asked about through
 * the module and compared with /proc/self/maps. The thread blocks all
 * signals, moves its stack pointer and sleeps in a raw futex wait without
 * touching the stack; the kernel saved that SP at entry. Edges: the last
 * byte of a gap (6.1's vma_find(addr + 1) once answered with the mapping
 * above it), the first and last byte of a mapping, the first byte above
 * one, 0, a kernel address and a non-canonical one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#if defined(__x86_64__) || defined(__aarch64__)

static void check_at(int fd, uint64_t sp, const char *what)
{
	const struct maps_entry *e, *prev;
	struct stackinfo_query q;
	struct maps m = { 0 };
	struct t_parked p;
	int err;

	CHECK(!t_park(&p, sp), "%s: the thread never slept", what);
	err = si_module_query(fd, p.tid, 0, &q);
	CHECK(!maps_read(&m, 0), "maps");
	e = maps_find(&m, sp, &prev);
	t_unpark(&p);

	CHECK(!err, "%s: %s", what, strerror(-err));
	CHECK(q.valid & STACKINFO_VALID_SP, "%s: no SP", what);
	CHECK(q.sp == sp, "%s: sp %#llx, parked at %#llx", what, (unsigned long long)q.sp,
	      (unsigned long long)sp);
	if (e) {
		CHECK(q.valid & STACKINFO_VALID_SP_VMA, "%s: no VMA, maps has %#llx-%#llx", what,
		      (unsigned long long)e->start, (unsigned long long)e->end);
		CHECK(q.sp_vma_start == e->start && q.sp_vma_end == e->end,
		      "%s: VMA %#llx-%#llx, maps %#llx-%#llx", what,
		      (unsigned long long)q.sp_vma_start, (unsigned long long)q.sp_vma_end,
		      (unsigned long long)e->start, (unsigned long long)e->end);
		CHECK(!prev || q.sp_prev_end == prev->end, "%s: below ends %#llx, maps %#llx",
		      what, (unsigned long long)q.sp_prev_end,
		      (unsigned long long)(prev ? prev->end : 0));
	} else {
		CHECK(!(q.valid & STACKINFO_VALID_SP_VMA),
		      "%s: VMA %#llx-%#llx where maps has none", what,
		      (unsigned long long)q.sp_vma_start, (unsigned long long)q.sp_vma_end);
	}
	printf("%-28s sp %#18llx  vma %s\n", what, (unsigned long long)sp,
	       (q.valid & STACKINFO_VALID_SP_VMA) ? "found" : "none");
	maps_free(&m);
}

int main(void)
{
	struct t_edge edges[T_EDGES];
	int fd = si_open(), i, n;

	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", STACKINFO_PROC_PATH, strerror(-fd));
		return 1;
	}
	n = t_edge_sps(edges);
	CHECK(n > 0, "mmap the edges: %s", strerror(errno));
	for (i = 0; i < n; i++)
		check_at(fd, edges[i].sp, edges[i].what);
	return t_result();
}

#else

int main(void)
{
	fprintf(stderr, "x86-64 and arm64 only\n");
	return T_SKIP;
}

#endif
