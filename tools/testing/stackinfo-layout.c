// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo-layout: struct stackinfo_query and the constants of the uapi
 * header and libstackinfo.h as the C compiler sees them, one a line:
 * "field NAME OFFSET SIZE", "size SIZE", "const NAME VALUE". The Python
 * bindings' test holds their ctypes declaration against this.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "libstackinfo.h"

#define FIELD(f) \
	printf("field %s %zu %zu\n", #f, offsetof(struct stackinfo_query, f), \
	       sizeof(((struct stackinfo_query *)0)->f))
#define CONST(c) printf("const %s %llu\n", #c, (unsigned long long)(c))

int main(void)
{
	printf("size %zu\n", sizeof(struct stackinfo_query));
	FIELD(size);
	FIELD(query_flags);
	FIELD(tid);
	FIELD(reserved);
	FIELD(valid);
	FIELD(out_tid);
	FIELD(tgid);
	FIELD(thread_flags);
	FIELD(map_count);
	FIELD(start_stack);
	FIELD(main_vma_start);
	FIELD(main_vma_end);
	FIELD(main_vma_flags);
	FIELD(main_prev_end);
	FIELD(sp);
	FIELD(sp_vma_start);
	FIELD(sp_vma_end);
	FIELD(sp_vma_flags);
	FIELD(sp_prev_end);
	FIELD(sp_guard_start);
	FIELD(sp_guard_end);
	FIELD(rlim_stack_cur);
	FIELD(rlim_stack_max);
	FIELD(guard_gap);
	FIELD(proof_fd);
	FIELD(reserved1);
	FIELD(ss_sp);
	FIELD(ss_size);
	FIELD(ss_flags);
	FIELD(stack_kind);
	FIELD(addr);
	FIELD(addr_class);
	FIELD(reserved2);
	FIELD(addr_vma_start);
	FIELD(addr_vma_end);
	FIELD(addr_vma_flags);
	CONST(STACKINFO_QUERY_NO_SP);
	CONST(STACKINFO_VALID_THREAD);
	CONST(STACKINFO_VALID_START_STACK);
	CONST(STACKINFO_VALID_MAIN_VMA);
	CONST(STACKINFO_VALID_MAIN_PREV);
	CONST(STACKINFO_VALID_SP);
	CONST(STACKINFO_VALID_SP_VMA);
	CONST(STACKINFO_VALID_SP_PREV);
	CONST(STACKINFO_VALID_SP_GUARD);
	CONST(STACKINFO_VALID_RLIMIT);
	CONST(STACKINFO_VALID_GUARD_GAP);
	CONST(STACKINFO_VALID_ALTSTACK);
	CONST(STACKINFO_VALID_STACK_KIND);
	CONST(STACKINFO_VALID_ADDR);
	CONST(STACKINFO_VALID_ADDR_VMA);
	CONST(STACKINFO_STACK_UNKNOWN);
	CONST(STACKINFO_STACK_MAIN);
	CONST(STACKINFO_STACK_THREAD);
	CONST(STACKINFO_STACK_ALTSTACK);
	CONST(STACKINFO_ADDR_STACK);
	CONST(STACKINFO_ADDR_GUARD);
	CONST(STACKINFO_ADDR_GROWTH);
	CONST(STACKINFO_ADDR_GUARD_GAP);
	CONST(STACKINFO_ADDR_BEYOND_LIMIT);
	CONST(STACKINFO_ADDR_ALTSTACK);
	CONST(STACKINFO_ADDR_MAPPED);
	CONST(STACKINFO_ADDR_UNMAPPED);
	CONST(STACKINFO_SS_AUTODISARM);
	printf("const SS_ONSTACK %d\nconst SS_DISABLE %d\n", SS_ONSTACK, SS_DISABLE);
	CONST(STACKINFO_THREAD_MAIN);
	CONST(STACKINFO_THREAD_SELF);
	CONST(STACKINFO_THREAD_WORKER);
	CONST(STACKINFO_THREAD_USER_MASK);
	CONST(STACKINFO_VMA_READ);
	CONST(STACKINFO_VMA_WRITE);
	CONST(STACKINFO_VMA_EXEC);
	CONST(STACKINFO_VMA_SHARED);
	CONST(STACKINFO_VMA_GROWSDOWN);
	CONST(STACKINFO_RLIM_INFINITY);
	CONST(STACKINFO_LIB_BACKEND_SHIFT);
	return 0;
}
