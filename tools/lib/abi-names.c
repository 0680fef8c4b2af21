// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The released names as a lookup without a version finds them. dlsym()
 * and every binding that resolves a symbol by name alone (Python's
 * ctypes, Go's purego, Rust's libloading, LuaJIT's FFI, JNA) take a
 * name's default version (symbol@@NODE) and never a compat one
 * (symbol@NODE: glibc's dl-lookup.c skips hidden versions unless one is
 * asked for), so each name a release exported has a default version here,
 * in the open node, with the answer that is safe for every release's
 * callers of that name:
 *  - stackinfo_query_thread, called by 0.1.0's bindings with its 168-byte
 *    struct and by 0.2.0's with its 240-byte one: 0.1.0's answer
 *    (STACKINFO_QUERY_SIZE_VER0 bytes), which overruns neither;
 *  - stackinfo_classify_addr and stackinfo_query_process, which only
 *    0.2.0 had: 0.2.0's struct (STACKINFO_QUERY_SIZE_VER2 bytes, the
 *    batch's entries that far apart).
 * A binary linked against them would need STACKINFO_0.3, so the loader
 * refuses it on a library that lacks them; binaries of released versions
 * keep their own versions (abi-0.1.0.c, abi-0.2.0.c); programs built with
 * this header call the _sz functions. Only the shared library has this
 * file. docs/abi.md: What a lookup by name finds.
 */
#define _GNU_SOURCE
#include "internal.h"

/* default visibility for the versioned names; "local: *" hides these */
SI_EXPORT int si_query_thread_by_name(pid_t tid, uint64_t flags, struct stackinfo_query *q);
SI_EXPORT int si_classify_addr_by_name(pid_t tid, uint64_t addr, uint64_t flags,
				       struct stackinfo_query *q);
SI_EXPORT int si_query_process_by_name(pid_t pid, uint64_t flags, struct stackinfo_query *q,
				       size_t n, size_t *count);
__asm__(".symver si_query_thread_by_name, stackinfo_query_thread@@STACKINFO_0.3");
__asm__(".symver si_classify_addr_by_name, stackinfo_classify_addr@@STACKINFO_0.3");
__asm__(".symver si_query_process_by_name, stackinfo_query_process@@STACKINFO_0.3");

int si_query_thread_by_name(pid_t tid, uint64_t flags, struct stackinfo_query *q)
{
	return si_query_thread_sized(tid, flags, q, STACKINFO_QUERY_SIZE_VER0);
}

int si_classify_addr_by_name(pid_t tid, uint64_t addr, uint64_t flags,
			     struct stackinfo_query *q)
{
	return si_classify_addr_sized(tid, addr, flags, q, STACKINFO_QUERY_SIZE_VER2);
}

int si_query_process_by_name(pid_t pid, uint64_t flags, struct stackinfo_query *q,
			     size_t n, size_t *count)
{
	return si_query_process_sized(pid, flags, q, n, count, STACKINFO_QUERY_SIZE_VER2);
}
