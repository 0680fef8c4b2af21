// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What binaries linked against libstackinfo 0.1.0 call: the compat symbol
 * stackinfo_query_thread@STACKINFO_0.1, which fills exactly 0.1.0's struct
 * (STACKINFO_QUERY_SIZE_VER0 bytes, valid bits of VER0 only).
 *
 * 0.2.0 wrote its 240-byte struct through this symbol, 72 bytes past a
 * 0.1.0 binary's; 0.2.0 binaries reference the same symbol version with
 * the larger struct, and get the VER0 answer now (libstackinfo(3), ABI:
 * the memory of 0.1.0's binaries comes first). Programs built since call
 * stackinfo_query_thread_sz@@STACKINFO_0.3 through the header's inline
 * stackinfo_query_thread(). Only the shared library has this file: a
 * static link has no symbol versions.
 *
 * The parameter is declared with 0.1.0's struct, so that abidw and abidiff
 * see this symbol's type as 0.1.0 released it (tools/lib/abi/). The
 * struct below is a record of that release, not a second ABI: every field
 * is checked to be where the uapi header has it.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <stddef.h>

/* the uapi struct under another name: this file's struct stackinfo_query is 0.1.0's */
#define stackinfo_query stackinfo_query_uapi
#include "internal.h"
#undef stackinfo_query

/* include/uapi/linux/stackinfo.h's struct as libstackinfo 0.1.0 released it */
struct stackinfo_query {
	__u64 size;
	__u64 query_flags;
	__u32 tid;
	__u32 reserved;
	__u64 valid;
	__u32 out_tid;
	__u32 tgid;
	__u32 thread_flags;
	__u32 map_count;
	__u64 start_stack;
	__u64 main_vma_start;
	__u64 main_vma_end;
	__u64 main_vma_flags;
	__u64 main_prev_end;
	__u64 sp;
	__u64 sp_vma_start;
	__u64 sp_vma_end;
	__u64 sp_vma_flags;
	__u64 sp_prev_end;
	__u64 sp_guard_start;
	__u64 sp_guard_end;
	__u64 rlim_stack_cur;
	__u64 rlim_stack_max;
	__u64 guard_gap;
};

#define SI_SAME(f) \
	static_assert(offsetof(struct stackinfo_query, f) == \
			      offsetof(struct stackinfo_query_uapi, f) && \
		      sizeof(((struct stackinfo_query *)0)->f) == \
			      sizeof(((struct stackinfo_query_uapi *)0)->f), \
		      "0.1.0's " #f " is where the uapi header has it")
SI_SAME(size);
SI_SAME(query_flags);
SI_SAME(tid);
SI_SAME(reserved);
SI_SAME(valid);
SI_SAME(out_tid);
SI_SAME(tgid);
SI_SAME(thread_flags);
SI_SAME(map_count);
SI_SAME(start_stack);
SI_SAME(main_vma_start);
SI_SAME(main_vma_end);
SI_SAME(main_vma_flags);
SI_SAME(main_prev_end);
SI_SAME(sp);
SI_SAME(sp_vma_start);
SI_SAME(sp_vma_end);
SI_SAME(sp_vma_flags);
SI_SAME(sp_prev_end);
SI_SAME(sp_guard_start);
SI_SAME(sp_guard_end);
SI_SAME(rlim_stack_cur);
SI_SAME(rlim_stack_max);
SI_SAME(guard_gap);
static_assert(sizeof(struct stackinfo_query) == STACKINFO_QUERY_SIZE_VER0,
	      "0.1.0's struct is STACKINFO_QUERY_SIZE_VER0 bytes");

/*
 * Default visibility, so that the versioned name below is exported; the
 * map's "local: *" keeps this name itself out of the dynamic table.
 */
SI_EXPORT int si_query_thread_0_1_0(pid_t tid, uint64_t flags, struct stackinfo_query *q);
__asm__(".symver si_query_thread_0_1_0, stackinfo_query_thread@STACKINFO_0.1");

int si_query_thread_0_1_0(pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	return si_query_thread_sized(tid, flags, q, sizeof(*q));
}
