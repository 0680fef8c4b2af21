// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every call of the library preserves errno (libstackinfo(3)), answered
 * or failed, on each backend the kernel offers: each public function is
 * called with errno set to a value no call of the library returns, about
 * the caller, the main thread from another thread, another process, a
 * thread that does not exist, with a mapping below the main stack (the
 * layout in which PROCMAP_QUERY's search for the VMA below meets holes),
 * and before and after the interposed answer's check against glibc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define SENTINEL	4711

static const int backends[] = {
	STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
	STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS,
};

static const char *name;
static pthread_t main_thread;

#define KEEPS(call)							\
	do {								\
		errno = SENTINEL;					\
		(void)(call);						\
		CHECK(errno == SENTINEL, "%s: %s left errno %d (%s)",	\
		      name, #call, errno, strerror(errno));		\
	} while (0)

static void every_call(pid_t other)
{
	struct stackinfo_query q, arr[64];
	pthread_attr_t attr;
	size_t size, count;
	void *addr;
	int i;

	KEEPS(stackinfo_backend());
	KEEPS(stackinfo_backend_name(stackinfo_backend()));
	KEEPS(stackinfo_query_thread(0, 0, &q));
	KEEPS(stackinfo_query_thread(0, STACKINFO_QUERY_NO_SP, &q));
	KEEPS(stackinfo_query_thread(other, 0, &q));
	KEEPS(stackinfo_query_thread(-1, 0, &q));
	KEEPS(stackinfo_query_thread(0, 1ULL << 40, &q));
	KEEPS(stackinfo_query_thread(0, 0, NULL));
	KEEPS(stackinfo_classify_addr(0, (uintptr_t)&q, 0, &q));
	KEEPS(stackinfo_classify_addr(0, 0, 0, &q));
	KEEPS(stackinfo_query_process(0, 0, arr, 64, &count));
	KEEPS(stackinfo_query_process(0, 0, arr, 0, &count));
	KEEPS(stackinfo_query_process(other, 0, arr, 64, &count));
	KEEPS(stackinfo_main_stack(&addr, &size));
	for (i = 0; i < 3; i++) {
		errno = SENTINEL;
		if (!stackinfo_pthread_getattr_np(main_thread, &attr))
			pthread_attr_destroy(&attr);
		CHECK(errno == SENTINEL, "%s: stackinfo_pthread_getattr_np(%s), call %d: errno %d",
		      name, pthread_equal(main_thread, pthread_self()) ? "self" : "main", i + 1,
		      errno);
	}
}

static void *from_worker(void *arg)
{
	every_call(*(pid_t *)arg);
	return NULL;
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	pid_t other = t_spawn_sleeper(0, 0);
	void *addr, *below;
	pthread_t th;
	size_t size, b;
	int ran = 0;

	main_thread = pthread_self();
	CHECK(other > 0, "spawn");
	for (b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		name = stackinfo_backend_name(backends[b]);
		errno = SENTINEL;
		if (stackinfo_set_backend(backends[b])) {
			CHECK(errno == SENTINEL, "%s: stackinfo_set_backend failing left errno %d",
			      name, errno);
			CHECK(!t_backend_offered(backends[b]), "%s: refused, though the kernel offers it", name);
			printf("info: %s: not offered here\n", name);
			continue;
		}
		CHECK(errno == SENTINEL, "%s: stackinfo_set_backend left errno %d", name, errno);
		ran++;
		every_call(other);
		/* a mapping 1 MiB below the main stack, within RLIMIT_STACK's reach */
		below = NULL;
		if (!stackinfo_main_stack(&addr, &size)) {
			below = mmap((char *)addr + size - (2 << 20), page, PROT_READ,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			CHECK(below != MAP_FAILED, "%s: map below the stack: %s", name,
			      strerror(errno));
		}
		every_call(other);
		CHECK(!pthread_create(&th, NULL, from_worker, &other), "%s: thread", name);
		pthread_join(th, NULL);
		if (below && below != MAP_FAILED)
			munmap(below, page);
	}
	t_reap(other);
	CHECK(ran >= 1, "no backend ran");
	return t_result();
}
