/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The failure counter and CHECK() of stackinfo's test programs, with
 * nothing of the project's headers: the binaries of released versions
 * (tools/testing/abi/) use it with that release's headers. Test programs
 * exit 0 on pass, 1 on failure, 77 when skipped.
 */
#ifndef STACKINFO_CHECK_H
#define STACKINFO_CHECK_H

#include <stdint.h>
#include <stdio.h>

#define T_SKIP 77

extern int t_failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			t_failures++;					\
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__,	\
				__LINE__, #cond);			\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	CHECK((uint64_t)(a) == (uint64_t)(b), "%s = %#llx, %s = %#llx",	\
	      #a, (unsigned long long)(a), #b, (unsigned long long)(b))

#endif
