// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The main thread's scheduling attributes, against glibc's own
 * pthread_getattr_np in the same process, under SCHED_OTHER, SCHED_BATCH,
 * SCHED_IDLE, SCHED_RR and SCHED_FIFO set on the kernel's side (as
 * `chrt` does). glibc copies its thread descriptor's policy and priority,
 * which stay 0/0 for the initial thread until the program itself calls
 * pthread_getschedparam() or a setter on it; the library must neither say
 * otherwise nor change what glibc says. For each policy, in a child of
 * its own (a fresh descriptor):
 *  - glibc, the library three times, glibc again: all the same (the
 *    library's presence changes no answer of glibc's);
 *  - a thread created from each attr with PTHREAD_EXPLICIT_SCHED gets the
 *    same policy and priority from the library's attr as from glibc's
 *    (the attr's hidden "policy set" flags show there);
 *  - after the program's own pthread_getschedparam() on the main thread,
 *    the same again; preloaded (this program run again under LD_PRELOAD
 *    of the interposer, which sees that call), also after the kernel's
 *    policy went back to SCHED_OTHER behind glibc's back.
 * RR and FIFO need root; without it they are counted as skipped.
 * Then what glibc's descriptor holds against what the kernel says, each in
 * a child of its own, linked and preloaded:
 *  - the descriptor's policy set by pthread_setschedparam() from another
 *    thread, then the kernel's put back to SCHED_OTHER with
 *    sched_setscheduler() by another thread and by the main thread itself
 *    (glibc keeps its descriptor's; a library that asked the kernel would
 *    say SCHED_OTHER);
 *  - the CPU set narrowed with sched_setaffinity() by the main thread and
 *    by another thread (with two CPUs or more);
 *  - the main thread detached, by itself and by another thread, after the
 *    library answered it, asked by itself and by another thread, first by
 *    another thread;
 *  - a PTHREAD_PRIO_PROTECT mutex locked by the main thread (glibc fills
 *    its descriptor's policy and priority and marks them set, whether the
 *    lock succeeds or not: the attr's hidden flags show it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define PRELOAD	"/usr/lib/libstackinfo-preload.so"

static t_getattr_fn glibc, lib;
static bool preloaded;

/* glibc and the library on the main thread, now. */
static void same_now(const char *what)
{
	struct t_attrs g, s, g2;
	char why[400];
	int i, rg, rs;

	rg = t_getattr(glibc, pthread_self(), &g);
	for (i = 0; i < 3; i++) {
		rs = t_getattr(lib, pthread_self(), &s);
		CHECK(rs == rg, "%s, call %d: library %d, glibc %d", what, i + 1, rs, rg);
		if (!rs && !rg)
			CHECK(t_attrs_same(&s, &g, why, sizeof(why)),
			      "%s, call %d: library %s", what, i + 1, why);
	}
	CHECK(t_getattr(glibc, pthread_self(), &g2) == rg, "%s: glibc's result changed", what);
	CHECK(t_attrs_same(&g2, &g, why, sizeof(why)),
	      "%s: glibc's answer changed by the library: now %s", what, why);
}

static void *report_sched(void *arg)
{
	struct sched_param p;
	int *out = arg;

	out[0] = sched_getscheduler(0);
	out[1] = sched_getparam(0, &p) ? -1 : p.sched_priority;
	return NULL;
}

/* The policy and priority a thread made from @f's attr gets; 0 or -1. */
static int explicit_thread(t_getattr_fn f, int out[2])
{
	pthread_attr_t attr;
	pthread_t th;
	int ret;

	static char stack[1 << 20] __attribute__((aligned(4096)));

	if (f(pthread_self(), &attr))
		return -1;
	/* its own stack: the attr names the main thread's */
	pthread_attr_setstack(&attr, stack, sizeof(stack));
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	ret = pthread_create(&th, &attr, report_sched, out);
	pthread_attr_destroy(&attr);
	if (ret) {
		out[0] = -ret;
		out[1] = 0;
		return 0;
	}
	pthread_join(th, NULL);
	return 0;
}

static void same_explicit(const char *what)
{
	int g[2], s[2];

	CHECK(!explicit_thread(glibc, g) && !explicit_thread(lib, s) &&
	      g[0] == s[0] && g[1] == s[1],
	      "%s: explicit-sched thread from the library's attr: policy %d prio %d; glibc's %d %d",
	      what, s[0], s[1], g[0], g[1]);
}

/* In a child: the kernel's policy @policy for the main thread. */
static int under(int policy, const char *name)
{
	struct sched_param p = { .sched_priority = 0 }, got;
	char what[96];
	int pol;

	if (policy == SCHED_RR || policy == SCHED_FIFO)
		p.sched_priority = sched_get_priority_min(policy);
	if (sched_setscheduler(0, policy, &p)) {
		if (errno == EPERM)
			return T_SKIP;
		fprintf(stderr, "sched_setscheduler %s: %s\n", name, strerror(errno));
		return 1;
	}
	snprintf(what, sizeof(what), "%s%s", name, preloaded ? ", preloaded" : "");
	same_now(what);
	same_explicit(what);

	/* the program asks glibc: its descriptor now holds the kernel's values */
	CHECK(!pthread_getschedparam(pthread_self(), &pol, &got), "pthread_getschedparam");
	snprintf(what, sizeof(what), "%s%s, after pthread_getschedparam", name,
		 preloaded ? ", preloaded" : "");
	same_now(what);
	same_explicit(what);
	if (preloaded && policy != SCHED_OTHER) {
		/* glibc keeps what it cached; only the interposer saw it happen */
		p.sched_priority = 0;
		CHECK(!sched_setscheduler(0, SCHED_OTHER, &p), "back to SCHED_OTHER");
		snprintf(what, sizeof(what), "%s, preloaded, then SCHED_OTHER behind glibc", name);
		same_now(what);
	}
	return t_result();
}

/* A helper thread running @fn(@arg) to its end: its return value. */
static long on_thread(void *(*fn)(void *), void *arg)
{
	pthread_t th;
	void *ret;

	if (pthread_create(&th, NULL, fn, arg) || pthread_join(th, &ret))
		return -1;
	return (long)ret;
}

static pthread_t main_th;

static void *set_batch_glibc(void *arg)
{
	struct sched_param p = { .sched_priority = 0 };

	(void)arg;
	return (void *)(long)pthread_setschedparam(main_th, SCHED_BATCH, &p);
}

static void *kernel_other(void *arg)
{
	struct sched_param p = { .sched_priority = 0 };

	(void)arg;
	return (void *)(long)sched_setscheduler(getpid(), SCHED_OTHER, &p);
}

/* Answered by the library first, so each case is one after its check. */
static void warm(const char *what)
{
	struct t_attrs a;
	int i;

	for (i = 0; i < 3; i++)
		CHECK(!t_getattr(lib, pthread_self(), &a), "%s: warm-up call %d", what, i);
}

static int descriptor_policy(void)
{
	struct sched_param p = { .sched_priority = 0 };
	char what[96];

	warm("descriptor policy");
	CHECK(!on_thread(set_batch_glibc, NULL), "pthread_setschedparam from a thread");
	snprintf(what, sizeof(what), "SCHED_BATCH set through glibc by a thread%s",
		 preloaded ? ", preloaded" : "");
	same_now(what);
	CHECK(!on_thread(kernel_other, NULL), "sched_setscheduler from a thread");
	snprintf(what, sizeof(what), "then SCHED_OTHER behind glibc by a thread%s",
		 preloaded ? ", preloaded" : "");
	same_now(what);
	CHECK(!on_thread(set_batch_glibc, NULL), "pthread_setschedparam again");
	CHECK(!sched_setscheduler(0, SCHED_OTHER, &p), "sched_setscheduler itself");
	snprintf(what, sizeof(what), "then SCHED_OTHER behind glibc by itself%s",
		 preloaded ? ", preloaded" : "");
	same_now(what);
	return t_result();
}

static void *narrow_main(void *arg)
{
	return (void *)(long)sched_setaffinity(getpid(), sizeof(cpu_set_t), arg);
}

static int affinity(void)
{
	cpu_set_t all, one;
	char what[96];
	int cpu;

	if (sched_getaffinity(0, sizeof(all), &all) || CPU_COUNT(&all) < 2)
		return T_SKIP;
	warm("affinity");
	for (cpu = 0; !CPU_ISSET(cpu, &all); cpu++)
		;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(!sched_setaffinity(0, sizeof(one), &one), "sched_setaffinity itself");
	snprintf(what, sizeof(what), "one CPU, set by itself%s", preloaded ? ", preloaded" : "");
	same_now(what);
	CHECK(!sched_setaffinity(0, sizeof(all), &all), "sched_setaffinity back");
	same_now("every CPU again");
	CHECK(!on_thread(narrow_main, &one), "sched_setaffinity from a thread");
	snprintf(what, sizeof(what), "one CPU, set by a thread%s", preloaded ? ", preloaded" : "");
	same_now(what);
	return t_result();
}

static void *detach_main(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_detach(main_th);
}

/* glibc and the library on the main thread, asked from another thread */
static void *ask_main(void *arg)
{
	struct t_attrs g, s;
	char why[400];
	int rg, rs;

	rg = t_getattr(glibc, main_th, &g);
	rs = t_getattr(lib, main_th, &s);
	CHECK(rs == rg, "%s, asked by a thread: library %d, glibc %d", (char *)arg, rs, rg);
	if (!rs && !rg)
		CHECK(t_attrs_same(&s, &g, why, sizeof(why)), "%s, asked by a thread: library %s",
		      (char *)arg, why);
	return NULL;
}

static int detached(bool by_thread)
{
	char what[96];

	warm("detach");
	if (by_thread)
		CHECK(!on_thread(detach_main, NULL), "pthread_detach from a thread");
	else
		CHECK(!pthread_detach(pthread_self()), "pthread_detach itself");
	snprintf(what, sizeof(what), "detached by %s%s", by_thread ? "a thread" : "itself",
		 preloaded ? ", preloaded" : "");
	on_thread(ask_main, what);
	same_now(what);
	on_thread(ask_main, what);
	return t_result();
}

static int prio_protect(void)
{
	pthread_mutexattr_t ma;
	pthread_mutex_t m;
	char what[96];
	int ret;

	warm("PTHREAD_PRIO_PROTECT");
	pthread_mutexattr_init(&ma);
	CHECK(!pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_PROTECT), "setprotocol");
	CHECK(!pthread_mutexattr_setprioceiling(&ma, sched_get_priority_min(SCHED_FIFO)),
	      "setprioceiling");
	CHECK(!pthread_mutex_init(&m, &ma), "mutex_init");
	/* EINVAL under SCHED_OTHER: the ceiling is a real-time priority */
	ret = pthread_mutex_lock(&m);
	snprintf(what, sizeof(what), "PTHREAD_PRIO_PROTECT mutex locked (%d)%s", ret,
		 preloaded ? ", preloaded" : "");
	on_thread(ask_main, what);
	same_now(what);
	if (!ret)
		pthread_mutex_unlock(&m);
	pthread_mutex_destroy(&m);
	return t_result();
}

static int detached_itself(void)
{
	return detached(false);
}

static int detached_by_thread(void)
{
	return detached(true);
}

int main(int argc, char **argv)
{
	static const struct { int (*fn)(void); const char *name; } behind[] = {
		{ descriptor_policy, "descriptor's policy" }, { affinity, "CPU set" },
		{ detached_itself, "detached by itself" },
		{ detached_by_thread, "detached by a thread" },
		{ prio_protect, "PTHREAD_PRIO_PROTECT" },
	};
	static const struct { int policy; const char *name; } cases[] = {
		{ SCHED_OTHER, "SCHED_OTHER" }, { SCHED_BATCH, "SCHED_BATCH" },
		{ SCHED_IDLE, "SCHED_IDLE" }, { SCHED_RR, "SCHED_RR" },
		{ SCHED_FIFO, "SCHED_FIFO" },
	};
	int skipped = 0, status;
	size_t i;
	pid_t pid;

	glibc = t_glibc_getattr();
	if (!glibc) {
		fprintf(stderr, "glibc's pthread_getattr_np not found\n");
		return 1;
	}
	preloaded = argc > 1 && !strcmp(argv[1], "preloaded");
	lib = preloaded ? pthread_getattr_np : stackinfo_pthread_getattr_np;
	if (preloaded)
		CHECK(lib != glibc, "pthread_getattr_np is glibc's: not preloaded?");
	fprintf(stderr, "backend %s%s\n", stackinfo_backend_name(stackinfo_backend()),
		preloaded ? ", preloaded" : "");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			t_failures = 0;
			_exit(under(cases[i].policy, cases[i].name));
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status),
		      "%s: child died", cases[i].name);
		if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == T_SKIP) {
			fprintf(stderr, "%s: skipped (no permission)\n", cases[i].name);
			skipped++;
		} else {
			CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "%s: failed", cases[i].name);
		}
	}
	main_th = pthread_self();
	for (i = 0; i < sizeof(behind) / sizeof(behind[0]); i++) {
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			t_failures = 0;	/* the child's own */
			_exit(behind[i].fn());
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      (!WEXITSTATUS(status) || WEXITSTATUS(status) == T_SKIP),
		      "%s: failed", behind[i].name);
		if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == T_SKIP)
			fprintf(stderr, "%s: skipped (one CPU)\n", behind[i].name);
	}
	if (!preloaded && !access(PRELOAD, R_OK)) {
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			setenv("LD_PRELOAD", PRELOAD, 1);
			setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 1);
			execl("/proc/self/exe", argv[0], "preloaded", (char *)NULL);
			_exit(127);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == T_SKIP),
		      "preloaded run failed");
	}
	if (t_failures)
		return 1;
	return skipped ? T_SKIP : 0;
}
