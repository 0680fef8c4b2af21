// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A static binary linked with libstackinfo.a (built with -static by the
 * Makefile): glibc's pthread_getattr_np is then the one linked in, and
 * there is no dynamic linker to find it by name. The library must answer
 * as glibc does, for the main thread and for another thread, three times
 * each (the library answers for itself from the second call on), never
 * ENOSYS; also after the main thread locked a PTHREAD_PRIO_PROTECT mutex
 * (glibc's descriptor then holds its policy and marks it set), and after
 * the main thread detached itself. And it leaves no dlerror() message the
 * program never caused.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "libstackinfo.h"
#include "testutil.h"

static void same(const char *what, pthread_t th)
{
	struct t_attrs g, s;
	char why[400];
	int i, rg, rs;

	for (i = 0; i < 3; i++) {
		rg = t_getattr(pthread_getattr_np, th, &g);
		rs = t_getattr(stackinfo_pthread_getattr_np, th, &s);
		CHECK(rs == rg, "%s, call %d: library %d (%s), glibc %d", what, i + 1, rs,
		      strerror(rs), rg);
		if (!rs && !rg)
			CHECK(t_attrs_same(&s, &g, why, sizeof(why)), "%s, call %d: library %s",
			      what, i + 1, why);
	}
}

static pthread_t main_thread;

static void *worker(void *arg)
{
	(void)arg;
	same("static, a worker itself", pthread_self());
	same("static, the main thread from a worker", main_thread);
	return NULL;
}

int main(void)
{
	const char *dl = dlerror();
	pthread_mutexattr_t ma;
	pthread_mutex_t m;
	void *addr;
	size_t size;
	pthread_t th;
	int err;

	CHECK(!dl, "a dlerror() message at start: %s", dl);
	main_thread = pthread_self();
	fprintf(stderr, "backend %s\n", stackinfo_backend_name(stackinfo_backend()));
	err = stackinfo_main_stack(&addr, &size);
	CHECK(!err, "stackinfo_main_stack: %s", strerror(-err));
	same("static, main thread", pthread_self());
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	/* EINVAL under SCHED_OTHER, the ceiling being real-time: glibc marks the policy set */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_PROTECT);
	pthread_mutexattr_setprioceiling(&ma, sched_get_priority_min(SCHED_FIFO));
	pthread_mutex_init(&m, &ma);
	if (!pthread_mutex_lock(&m))
		pthread_mutex_unlock(&m);
	same("static, main thread after a PTHREAD_PRIO_PROTECT lock", pthread_self());
	CHECK(!pthread_detach(pthread_self()), "pthread_detach itself");
	same("static, main thread detached", pthread_self());
	return t_result();
}
