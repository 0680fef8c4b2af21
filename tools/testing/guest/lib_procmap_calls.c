// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * How many PROCMAP_QUERY ioctls the library makes for one answer, at 0
 * and at 60 000 extra mappings: stackinfo_query_thread() about the
 * caller, the same through a handle, and stackinfo_main_stack(), at most
 * MAX_CALLS each, the same count at both sizes (nothing walks the
 * mappings); with the answers' layout /proc/self/maps's. This program's
 * own ioctl() counts the requests the library makes through it (it is
 * found before libc's), and passes them on. A SKIP without PROCMAP_QUERY.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat.h"
#include "libstackinfo.h"
#include "testutil.h"

#define MAX_CALLS	4
#define EXTRA		60000

static unsigned long pmq_calls;

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	long ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == SI_PROCMAP_QUERY)
		__atomic_fetch_add(&pmq_calls, 1, __ATOMIC_RELAXED);
	ret = syscall(SYS_ioctl, fd, request, arg);
	return ret < 0 ? -1 : (int)ret;
}

static unsigned long counted(const char *what, int (*fn)(void *), void *arg)
{
	unsigned long before = pmq_calls;
	int err = fn(arg);

	CHECK(!err, "%s: %s", what, strerror(-err));
	return pmq_calls - before;
}

static int self_query(void *arg)
{
	struct stackinfo_query *q = arg;

	return stackinfo_query_thread(0, STACKINFO_QUERY_NO_SP, q);
}

static int self_query_sp(void *arg)
{
	struct stackinfo_query q;

	(void)arg;
	return stackinfo_query_thread(0, 0, &q);
}

static int handle_query(void *arg)
{
	struct stackinfo_query q;

	return stackinfo_handle_query(arg, 0, 0, &q);
}

static int main_stack(void *arg)
{
	size_t size;
	void *addr;

	(void)arg;
	return stackinfo_main_stack(&addr, &size);
}

/* the counts of one size, into @n[3]; the layout against maps */
static void round_of(const char *label, unsigned long n[3])
{
	struct stackinfo_handle *h = NULL;
	struct stackinfo_query q;
	struct maps m = { 0 };
	char what[96];

	n[0] = counted("stackinfo_query_thread(0)", self_query_sp, NULL);
	CHECK(!stackinfo_handle_open(0, &h), "stackinfo_handle_open");
	n[1] = h ? counted("a handle's query", handle_query, h) : 0;
	stackinfo_handle_close(h);
	n[2] = counted("stackinfo_main_stack()", main_stack, NULL);
	printf("info: %s: PROCMAP_QUERY ioctls: query %lu, through a handle %lu, "
	       "main stack %lu\n", label, n[0], n[1], n[2]);
	snprintf(what, sizeof(what), "%s: the caller's answer", label);
	if (!self_query(&q) && !maps_read(&m, 0)) {
		t_layout_against_maps(what, &q, &m);
		maps_free(&m);
	}
	CHECK(n[0] <= MAX_CALLS && n[1] <= MAX_CALLS && n[2] <= MAX_CALLS,
	      "%s: more than %d PROCMAP_QUERY ioctls for one answer", label, MAX_CALLS);
}

int main(void)
{
	unsigned long at0[3], far[3];
	void *extra;
	int i;

	if (!t_backend_offered(STACKINFO_BACKEND_PROCMAP_QUERY)) {
		printf("no PROCMAP_QUERY on this kernel (6.11+)\n");
		return 77;
	}
	CHECK(!stackinfo_set_backend(STACKINFO_BACKEND_PROCMAP_QUERY), "set_backend");
	round_of("0 extra mappings", at0);
	extra = map_many(EXTRA);
	CHECK(extra, "%d extra mappings", EXTRA);
	round_of("60 000 extra mappings", far);
	for (i = 0; i < 3; i++)
		CHECK(at0[i] == far[i], "call %d: %lu ioctls at 0 extra mappings, %lu at 60 000",
		      i, at0[i], far[i]);
	if (extra)
		unmap_many(extra, EXTRA);
	return t_result();
}
