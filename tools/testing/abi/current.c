// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program built against this tree's header calling every query of it
 * (stackinfo_query_thread(), stackinfo_classify_addr(),
 * stackinfo_query_process()): it needs STACKINFO_0.3, so that the loader
 * refuses it on an older library before it starts, rather than letting it
 * run into a missing symbol at its first call. It says "started" first
 * thing: host test abi_binaries runs it on the releases' stand-ins
 * and on this library.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libstackinfo.h"

int main(void)
{
	struct stackinfo_query q, all[64];
	size_t count = 0;
	int err;

	printf("started\n");
	fflush(stdout);
	err = stackinfo_query_thread(0, 0, &q);
	if (!err)
		err = stackinfo_classify_addr(0, (uintptr_t)&q, 0, &q);
	if (!err)
		err = stackinfo_query_process(0, 0, all, 64, &count);
	if (err || count != 1 || q.size != sizeof(q)) {
		printf("failed: %s, count %zu, size %llu\n", strerror(-err), count,
		       (unsigned long long)q.size);
		return 1;
	}
	printf("answered\n");
	return 0;
}
