// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dlopen()/dlclose() cycles of the interposer leave no fd behind: each
 * cycle loads it, has it answer the main thread (so that it opens what its
 * backend keeps: /proc/self/stackinfo, /proc/stackinfo, /proc/self/maps),
 * checks it against glibc, and unloads it. The process's open fds (/proc/self/fd) must be
 * as many after 50 cycles as before the first.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define PRELOAD	"/usr/lib/libstackinfo-preload.so"
#define CYCLES	50

int main(void)
{
	t_getattr_fn glibc = t_glibc_getattr();
	int before, after, i, j, loaded = 0;
	char why[400] = "";

	if (!glibc || access(PRELOAD, R_OK)) {
		fprintf(stderr, "glibc's pthread_getattr_np or %s missing\n", PRELOAD);
		return 1;
	}
	before = t_count_fds();
	for (i = 0; i < CYCLES; i++) {
		void *h = dlopen(PRELOAD, RTLD_NOW | RTLD_LOCAL);
		t_getattr_fn f = h ? (t_getattr_fn)dlsym(h, "pthread_getattr_np") : NULL;
		struct t_attrs g, s;

		CHECK(f, "dlopen %s: %s", PRELOAD, dlerror());
		if (!f)
			break;
		loaded++;
		for (j = 0; j < 3; j++) {
			int rg = t_getattr(glibc, pthread_self(), &g);
			int rs = t_getattr(f, pthread_self(), &s);

			CHECK(rg == rs && (rg || t_attrs_same(&s, &g, why, sizeof(why))),
			      "cycle %d, call %d: %d/%d %s", i, j, rs, rg, why);
		}
		CHECK(!dlclose(h), "dlclose: %s", dlerror());
	}
	after = t_count_fds();
	fprintf(stderr, "%d cycles: fds %d before, %d after\n", loaded, before, after);
	CHECK(loaded == CYCLES, "only %d cycles", loaded);
	CHECK(after == before, "%d fds leaked in %d cycles", after - before, loaded);
	return t_result();
}
