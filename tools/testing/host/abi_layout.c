// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The published ABI of include/uapi/linux/stackinfo.h does not move: every
 * field's offset and size in the first layout, the size constant, the
 * ioctl number, and the flag bits. A change that breaks this breaks every
 * binary built against an earlier header.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#define FIELD(name, off, size)						\
	do {								\
		CHECK_EQ(offsetof(struct stackinfo_query, name), off);	\
		CHECK_EQ(sizeof(((struct stackinfo_query *)0)->name), size); \
	} while (0)

int main(void)
{
	FIELD(size, 0, 8);
	FIELD(query_flags, 8, 8);
	FIELD(tid, 16, 4);
	FIELD(reserved, 20, 4);
	FIELD(valid, 24, 8);
	FIELD(out_tid, 32, 4);
	FIELD(tgid, 36, 4);
	FIELD(thread_flags, 40, 4);
	FIELD(map_count, 44, 4);
	FIELD(start_stack, 48, 8);
	FIELD(main_vma_start, 56, 8);
	FIELD(main_vma_end, 64, 8);
	FIELD(main_vma_flags, 72, 8);
	FIELD(main_prev_end, 80, 8);
	FIELD(sp, 88, 8);
	FIELD(sp_vma_start, 96, 8);
	FIELD(sp_vma_end, 104, 8);
	FIELD(sp_vma_flags, 112, 8);
	FIELD(sp_prev_end, 120, 8);
	FIELD(sp_guard_start, 128, 8);
	FIELD(sp_guard_end, 136, 8);
	FIELD(rlim_stack_cur, 144, 8);
	FIELD(rlim_stack_max, 152, 8);
	FIELD(guard_gap, 160, 8);
	FIELD(proof_fd, 168, 4);
	FIELD(reserved1, 172, 4);
	FIELD(ss_sp, 176, 8);
	FIELD(ss_size, 184, 8);
	FIELD(ss_flags, 192, 4);
	FIELD(stack_kind, 196, 4);
	FIELD(addr, 200, 8);
	FIELD(addr_class, 208, 4);
	FIELD(reserved2, 212, 4);
	FIELD(addr_vma_start, 216, 8);
	FIELD(addr_vma_end, 224, 8);
	FIELD(addr_vma_flags, 232, 8);
	CHECK_EQ(sizeof(struct stackinfo_query), STACKINFO_QUERY_SIZE_VER2);
	CHECK_EQ(STACKINFO_QUERY_SIZE_VER0, 168);
	CHECK_EQ(STACKINFO_QUERY_SIZE_VER1, 176);
	CHECK_EQ(STACKINFO_QUERY_SIZE_VER2, 240);
	/* VER1 and VER2 only appended: the fields before them did not move */
	CHECK_EQ(offsetof(struct stackinfo_query, proof_fd), STACKINFO_QUERY_SIZE_VER0);
	CHECK_EQ(offsetof(struct stackinfo_query, ss_sp), STACKINFO_QUERY_SIZE_VER1);
	/* the same layout on every ABI: no padding the compiler could vary */
	CHECK_EQ(_Alignof(struct stackinfo_query), 8);

	CHECK_EQ(offsetof(struct stackinfo_threads, size), 0);
	CHECK_EQ(offsetof(struct stackinfo_threads, query_flags), 8);
	CHECK_EQ(offsetof(struct stackinfo_threads, pid), 16);
	CHECK_EQ(offsetof(struct stackinfo_threads, count), 20);
	CHECK_EQ(offsetof(struct stackinfo_threads, entries), 24);
	CHECK_EQ(offsetof(struct stackinfo_threads, entry_size), 32);
	CHECK_EQ(offsetof(struct stackinfo_threads, proof_fd), 40);
	CHECK_EQ(offsetof(struct stackinfo_threads, reserved1), 44);
	CHECK_EQ(sizeof(struct stackinfo_threads), STACKINFO_THREADS_SIZE_VER1);
	CHECK_EQ(STACKINFO_THREADS_SIZE_VER0, 40);
	CHECK_EQ(STACKINFO_THREADS_SIZE_VER1, 48);

	/*
	 * _IOWR(0xB9, 0x01, 240 bytes), _IOWR(0xB9, 0x02, 48 bytes); the
	 * kernel matches type and number only, so older binaries' commands
	 * (VER0 0xc0a8b901, 0xc028b902; VER1 0xc0b0b901) still reach it
	 */
	CHECK_EQ(STACKINFO_IOC_QUERY, 0xc0f0b901UL);
	CHECK_EQ(STACKINFO_IOC_QUERY_THREADS, 0xc030b902UL);

	CHECK_EQ(STACKINFO_QUERY_NO_SP, 1);
	CHECK_EQ(STACKINFO_QUERY_PROOF_FD, 2);
	CHECK_EQ(STACKINFO_QUERY_ADDR, 4);
	CHECK_EQ(STACKINFO_QUERY_VALID_FLAGS, 7);
	CHECK_EQ(STACKINFO_THREAD_USER_MASK, 0xff000000U);
	CHECK_EQ(STACKINFO_VALID_THREAD, 1 << 0);
	CHECK_EQ(STACKINFO_VALID_START_STACK, 1 << 1);
	CHECK_EQ(STACKINFO_VALID_MAIN_VMA, 1 << 2);
	CHECK_EQ(STACKINFO_VALID_MAIN_PREV, 1 << 3);
	CHECK_EQ(STACKINFO_VALID_SP, 1 << 4);
	CHECK_EQ(STACKINFO_VALID_SP_VMA, 1 << 5);
	CHECK_EQ(STACKINFO_VALID_SP_PREV, 1 << 6);
	CHECK_EQ(STACKINFO_VALID_SP_GUARD, 1 << 7);
	CHECK_EQ(STACKINFO_VALID_RLIMIT, 1 << 8);
	CHECK_EQ(STACKINFO_VALID_GUARD_GAP, 1 << 9);
	CHECK_EQ(STACKINFO_VALID_ALTSTACK, 1 << 10);
	CHECK_EQ(STACKINFO_VALID_STACK_KIND, 1 << 11);
	CHECK_EQ(STACKINFO_STACK_UNKNOWN, 0);
	CHECK_EQ(STACKINFO_STACK_MAIN, 1);
	CHECK_EQ(STACKINFO_STACK_THREAD, 2);
	CHECK_EQ(STACKINFO_STACK_ALTSTACK, 3);
	CHECK_EQ(STACKINFO_VALID_ADDR, 1 << 12);
	CHECK_EQ(STACKINFO_VALID_ADDR_VMA, 1 << 13);
	CHECK_EQ(STACKINFO_ADDR_STACK, 1);
	CHECK_EQ(STACKINFO_ADDR_GUARD, 2);
	CHECK_EQ(STACKINFO_ADDR_GROWTH, 3);
	CHECK_EQ(STACKINFO_ADDR_GUARD_GAP, 4);
	CHECK_EQ(STACKINFO_ADDR_BEYOND_LIMIT, 5);
	CHECK_EQ(STACKINFO_ADDR_ALTSTACK, 6);
	CHECK_EQ(STACKINFO_ADDR_MAPPED, 7);
	CHECK_EQ(STACKINFO_ADDR_UNMAPPED, 8);
	CHECK_EQ(STACKINFO_THREAD_MAIN, 1);
	CHECK_EQ(STACKINFO_THREAD_SELF, 2);
	CHECK_EQ(STACKINFO_THREAD_WORKER, 4);
	CHECK_EQ(STACKINFO_VMA_READ, 1);
	CHECK_EQ(STACKINFO_VMA_WRITE, 2);
	CHECK_EQ(STACKINFO_VMA_EXEC, 4);
	CHECK_EQ(STACKINFO_VMA_SHARED, 8);
	CHECK_EQ(STACKINFO_VMA_GROWSDOWN, 16);
	CHECK_EQ(STACKINFO_RLIM_INFINITY, ~0ULL);
	CHECK(!strcmp(STACKINFO_PROC_PATH, "/proc/stackinfo"), "path");
	return t_result();
}
