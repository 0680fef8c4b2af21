// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo_glibc_main_stack() on synthetic layouts: the values glibc
 * 2.36's pthread_getattr_np() derives for the main thread (worked out by
 * hand for each case) from __libc_stack_end, the end of its mapping, the
 * end of the mapping below, and RLIMIT_STACK.
 */
#include <stdio.h>

#include "testutil.h"

#define PAGE	0x1000ULL
#define LSE	0x7ffffffde123ULL	/* top: 0x7ffffffdf000 */
#define TO	0x7ffffffff000ULL	/* 0x20000 above the top */
#define FAR	0x7f0000000000ULL
#define INF	(~0ULL)

static const struct {
	const char *what;
	uint64_t lse, to, prev, rlim, addr, size;
} cases[] = {
	{ "8 MiB, nothing near", LSE, TO, FAR, 0x800000, 0x7fffff7ff000, 0x7e0000 },
	{ "a mapping 1 MiB below the top", LSE, TO, 0x7ffffffdf000 - 0x100000,
	  0x800000, 0x7fffffedf000, 0x100000 },
	{ "a mapping touching the stack VMA", LSE, TO, 0x7ffffffdd000, 0x800000,
	  0x7ffffffdd000, 0x2000 },
	{ "unlimited, nothing below", LSE, TO, 0, INF, 0, 0x7ffffffdf000 },
	{ "limit below what is above the top", LSE, TO, FAR, 0x1000, FAR,
	  0x7ffffffdf000 - FAR },
	{ "limit not page aligned", LSE, TO, FAR, 0x800123, 0x7fffff7ff000, 0x7e0000 },
	{ "__libc_stack_end page aligned", 0x7ffffffde000, TO, FAR, 0x800000,
	  0x7fffff7ff000, 0x7e0000 },
	{ "top is the VMA's end", 0x7ffffffdeff8, 0x7ffffffdf000, FAR, 0x800000,
	  0x7fffff7df000, 0x800000 },
};

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t addr, size;

		stackinfo_glibc_main_stack(cases[i].lse, cases[i].to, cases[i].prev,
					   cases[i].rlim, PAGE, &addr, &size);
		CHECK(addr == cases[i].addr && size == cases[i].size,
		      "%s: %#llx+%#llx, want %#llx+%#llx", cases[i].what,
		      (unsigned long long)addr, (unsigned long long)size,
		      (unsigned long long)cases[i].addr,
		      (unsigned long long)cases[i].size);
	}
	return t_result();
}
