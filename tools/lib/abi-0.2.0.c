// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What binaries linked against libstackinfo 0.2.0 call besides 0.1.0's
 * symbols: the compat symbols stackinfo_classify_addr@STACKINFO_0.1 and
 * stackinfo_query_process@STACKINFO_0.2, which fill 0.2.0's struct
 * (STACKINFO_QUERY_SIZE_VER2 bytes; the batch's entries that far apart)
 * whatever size the header's struct grows to. No binary of 0.1.0 names
 * them: 0.2.0 added classify_addr to the released node STACKINFO_0.1,
 * which is why a binary calling it passed the loader's version check on
 * 0.1.0 and failed at the call; programs built since call the _sz
 * functions of STACKINFO_0.3. Only the shared library has this file.
 */
#define _GNU_SOURCE
#include "internal.h"

/* default visibility for the versioned names; "local: *" hides these */
SI_EXPORT int si_classify_addr_0_2_0(pid_t tid, uint64_t addr, uint64_t flags,
				     struct stackinfo_query *q);
SI_EXPORT int si_query_process_0_2_0(pid_t pid, uint64_t flags, struct stackinfo_query *q,
				     size_t n, size_t *count);
__asm__(".symver si_classify_addr_0_2_0, stackinfo_classify_addr@STACKINFO_0.1");
__asm__(".symver si_query_process_0_2_0, stackinfo_query_process@STACKINFO_0.2");

int si_classify_addr_0_2_0(pid_t tid, uint64_t addr, uint64_t flags,
			   struct stackinfo_query *q)
{
	return si_classify_addr_sized(tid, addr, flags, q, STACKINFO_QUERY_SIZE_VER2);
}

int si_query_process_0_2_0(pid_t pid, uint64_t flags, struct stackinfo_query *q,
			   size_t n, size_t *count)
{
	return si_query_process_sized(pid, flags, q, n, count, STACKINFO_QUERY_SIZE_VER2);
}
