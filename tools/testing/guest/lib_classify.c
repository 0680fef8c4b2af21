// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo_classify_addr() about the caller, against /proc/self/maps and
 * getrlimit(): its own stack, a PROT_NONE page right below a mapping (a
 * guard), another mapping, a hole, room below the main stack, the guard
 * gap above the mapping below it, beyond RLIMIT_STACK, the sigaltstack.
 * Where only a fallback answers (no module, no in-tree file: the nomod-
 * run), the rest of the query is answered, STACKINFO_VALID_ADDR is clear,
 * and STACKINFO_LIB_ASYNC_SAFE is refused with EOPNOTSUPP. errno is kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <libstackinfo.h>

#include "testutil.h"

static bool classifies;

static void expect(uint64_t addr, uint32_t want, const char *what)
{
	struct stackinfo_query q;
	int err;

	errno = 4711;
	err = stackinfo_classify_addr(0, addr, 0, &q);
	CHECK(errno == 4711, "%s: errno %d", what, errno);
	CHECK(!err, "%s: %s", what, strerror(-err));
	CHECK(q.valid & STACKINFO_VALID_THREAD, "%s: no answer", what);
	CHECK_EQ(q.addr, addr);
	if (!classifies) {
		CHECK(!(q.valid & STACKINFO_VALID_ADDR), "%s: a fallback classified", what);
		return;
	}
	CHECK(q.valid & STACKINFO_VALID_ADDR, "%s: no class", what);
	CHECK(q.addr_class == want, "%s: %#llx class %u, want %u", what,
	      (unsigned long long)addr, q.addr_class, want);
	printf("%-28s %#14llx class %u\n", what, (unsigned long long)addr, q.addr_class);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	const struct maps_entry *st = NULL, *below = NULL;
	struct maps m = { 0 };
	volatile char local = 0;
	struct stackinfo_query q;
	struct rlimit rl;
	char *area, *alt;
	stack_t ss;
	size_t i;
	int b = stackinfo_backend(), err;

	CHECK(b > 0, "no backend");
	classifies = b == STACKINFO_BACKEND_MODULE || b == STACKINFO_BACKEND_PROC;
	err = stackinfo_classify_addr(0, 0, STACKINFO_LIB_ASYNC_SAFE, &q);
	CHECK(classifies ? !err : err == -EOPNOTSUPP, "async-safe on %s: %s",
	      stackinfo_backend_name(b), strerror(-err));
	CHECK_EQ(stackinfo_classify_addr(0, 0, 1ULL << 40, &q), -EINVAL);

	/* [guard][area][hole][tail]: a guarded mapping, then a hole */
	area = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(area != MAP_FAILED, "mmap");
	CHECK(!mprotect(area, page, PROT_NONE), "mprotect");
	CHECK(!munmap(area + 2 * page, page), "munmap");
	alt = malloc(64 * 1024);
	ss = (stack_t){ .ss_sp = alt, .ss_size = 64 * 1024 };
	CHECK(alt && !sigaltstack(&ss, NULL), "sigaltstack");

	CHECK(!maps_read(&m, 0), "maps");
	for (i = 0; i < m.n; i++)
		if (!strcmp(m.v[i].name, "[stack]")) {
			st = &m.v[i];
			below = i ? &m.v[i - 1] : NULL;
		}
	CHECK(st && below, "no [stack] in maps");
	CHECK(!getrlimit(RLIMIT_STACK, &rl), "getrlimit");
	if (!st || !below)
		return t_result();

	expect((uintptr_t)&local, STACKINFO_ADDR_STACK, "a local");
	expect((uintptr_t)area + 8, STACKINFO_ADDR_GUARD, "guard below a mapping");
	expect((uintptr_t)area + page, STACKINFO_ADDR_MAPPED, "the mapping");
	expect((uintptr_t)area + 2 * page, STACKINFO_ADDR_UNMAPPED, "a hole");
	expect((uintptr_t)alt + 100, STACKINFO_ADDR_ALTSTACK, "the sigaltstack");
	expect(st->start - 1, STACKINFO_ADDR_GROWTH, "just below the stack");
	expect(below->end, STACKINFO_ADDR_GUARD_GAP, "just above the one below");
	if (rl.rlim_cur != RLIM_INFINITY &&
	    st->end - rl.rlim_cur - 2 * page > below->end + cmdline_guard_gap())
		expect(st->end - rl.rlim_cur - 2 * page, STACKINFO_ADDR_BEYOND_LIMIT,
		       "beyond RLIMIT_STACK");
	else
		printf("beyond RLIMIT_STACK not tested: rlimit %llu, room %#llx\n",
		       (unsigned long long)rl.rlim_cur,
		       (unsigned long long)(st->start - below->end));
	maps_free(&m);
	return t_result();
}
