// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pthread_getattr_np() called on a sigaltstack answers what it answers off
 * it: glibc reports the thread's normal stack there (the main thread's from
 * __libc_stack_end and /proc/self/maps, another's from its descriptor), and
 * stackinfo_pthread_getattr_np() and the interposer (dlopen()ed, its
 * pthread_getattr_np by handle) must give glibc's answer, in the handler as
 * outside it, for the main thread and for another thread, each running a
 * SIGUSR1 handler on its own sigaltstack.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libstackinfo.h>

#include "testutil.h"

#define PRELOAD "/usr/lib/libstackinfo-preload.so"
#define ALT_SIZE (64 * 1024)

enum { GLIBC, LIBRARY, INTERPOSER, NFN };
static const char *const fn_names[NFN] = { "glibc", "library", "interposer" };
static t_getattr_fn fns[NFN];

struct views {
	struct t_attrs a[NFN];
	int err[NFN];
	int onstack;		/* the handler ran on the sigaltstack */
};

static __thread struct views *in_handler;

static void look(struct views *v)
{
	int i;

	for (i = 0; i < NFN; i++)
		v->err[i] = fns[i] ? t_getattr(fns[i], pthread_self(), &v->a[i]) : 0;
}

/* raise()d: the handler runs at a known point of this thread */
static void on_usr1(int sig)
{
	stack_t ss;

	(void)sig;
	in_handler->onstack = !sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK);
	look(in_handler);
}

static void compare(const char *who)
{
	static char alt[2][ALT_SIZE];
	static int n;
	stack_t ss = { .ss_sp = alt[n++ & 1], .ss_size = ALT_SIZE };
	struct views off, on;
	char why[128];
	int i;

	CHECK(!sigaltstack(&ss, NULL), "%s: sigaltstack: %s", who, strerror(errno));
	look(&off);
	memset(&on, 0, sizeof(on));
	in_handler = &on;
	raise(SIGUSR1);
	CHECK(on.onstack, "%s: the handler was not on the sigaltstack", who);
	for (i = 0; i < NFN; i++) {
		if (!fns[i])
			continue;
		CHECK(!off.err[i] && !on.err[i], "%s: %s: %d, in the handler %d", who,
		      fn_names[i], off.err[i], on.err[i]);
		CHECK(t_attrs_same(&on.a[i], &off.a[i], why, sizeof(why)),
		      "%s: %s in the handler differs: %s", who, fn_names[i], why);
		CHECK(t_attrs_same(&on.a[i], &on.a[GLIBC], why, sizeof(why)),
		      "%s: %s differs from glibc in the handler: %s", who, fn_names[i], why);
	}
	printf("%s: stack %p + %zu, guard %zu, the same on and off the sigaltstack\n", who,
	       off.a[GLIBC].addr, off.a[GLIBC].size, off.a[GLIBC].guard);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
}

static void *other(void *arg)
{
	(void)arg;
	compare("thread");
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_ONSTACK };
	void *pre = dlopen(PRELOAD, RTLD_NOW | RTLD_LOCAL);
	pthread_t th;

	fns[GLIBC] = t_glibc_getattr();
	fns[LIBRARY] = stackinfo_pthread_getattr_np;
	if (pre)
		fns[INTERPOSER] = (t_getattr_fn)dlsym(pre, "pthread_getattr_np");
	CHECK(fns[GLIBC], "no glibc pthread_getattr_np");
	CHECK(fns[INTERPOSER], "%s: %s", PRELOAD, dlerror());
	if (!fns[GLIBC])
		return t_result();
	sigemptyset(&sa.sa_mask);
	CHECK(!sigaction(SIGUSR1, &sa, NULL), "sigaction: %s", strerror(errno));
	compare("main");
	CHECK(!pthread_create(&th, NULL, other, NULL), "pthread_create");
	pthread_join(th, NULL);
	return t_result();
}
