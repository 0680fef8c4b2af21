// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The sigaltstack fields (VER2) against the kernel's own answer: what each
 * thread reports about itself with sigaltstack(NULL, &old) in the same
 * guest. The caller about itself (tid 0) and another thread, blocked,
 * asked by its tid: without a sigaltstack, with one, with SS_AUTODISARM,
 * after SS_DISABLE, and from inside a handler running on it, with and
 * without SS_AUTODISARM (which makes the kernel forget the sigaltstack
 * while the handler runs). The stack kind: main, a glibc thread's guarded
 * stack, the sigaltstack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#ifndef SS_AUTODISARM
#define SS_AUTODISARM ((int)STACKINFO_SS_AUTODISARM)
#endif

#define ALT_SIZE (64 * 1024)

static int fd;

/* What one thread saw of itself, in a handler or not. */
struct seen {
	stack_t self;		/* sigaltstack(NULL, &old) */
	struct stackinfo_query q; /* the module about tid 0, just after */
	int err;
	pid_t tid;
};

static void look_at_self(struct seen *s)
{
	s->tid = t_gettid();
	sigaltstack(NULL, &s->self);
	s->err = si_module_query(fd, 0, 0, &s->q);
}

static void check_same(const struct stackinfo_query *q, const stack_t *k, const char *what)
{
	CHECK(q->valid & STACKINFO_VALID_ALTSTACK, "%s: no sigaltstack in the answer", what);
	CHECK(q->ss_sp == (uint64_t)(uintptr_t)k->ss_sp && q->ss_size == k->ss_size &&
		      q->ss_flags == (uint32_t)k->ss_flags,
	      "%s: sp %#llx size %llu flags %#x, the kernel says sp %p size %zu flags %#x", what,
	      (unsigned long long)q->ss_sp, (unsigned long long)q->ss_size, q->ss_flags,
	      k->ss_sp, k->ss_size, (unsigned int)k->ss_flags);
}

static void check_kind(const struct stackinfo_query *q, uint32_t kind, const char *what)
{
	CHECK(q->valid & STACKINFO_VALID_STACK_KIND, "%s: no stack kind", what);
	CHECK(q->stack_kind == kind, "%s: stack kind %u, want %u", what, q->stack_kind, kind);
}

static void set_altstack(void *sp, size_t size, int flags)
{
	stack_t ss = { .ss_sp = sp, .ss_size = size, .ss_flags = flags };

	CHECK(!sigaltstack(&ss, NULL), "sigaltstack(%p, %zu, %#x): %s", sp, size, flags,
	      strerror(errno));
}

/* ---- the caller about itself ---- */

static struct seen in_handler;

static void on_usr1(int sig)
{
	(void)sig;
	look_at_self(&in_handler);
}

static void handle_on_altstack(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_ONSTACK };

	sigemptyset(&sa.sa_mask);
	CHECK(!sigaction(SIGUSR1, &sa, NULL), "sigaction: %s", strerror(errno));
}

static void self_case(const char *what, uint32_t kind)
{
	struct seen s;

	look_at_self(&s);
	CHECK(!s.err, "%s: %s", what, strerror(-s.err));
	check_same(&s.q, &s.self, what);
	check_kind(&s.q, kind, what);
}

static void self_cases(void *alt)
{
	char what[64];

	self_case("main, none", STACKINFO_STACK_MAIN);
	set_altstack(alt, ALT_SIZE, 0);
	self_case("main, set", STACKINFO_STACK_MAIN);

	memset(&in_handler, 0, sizeof(in_handler));
	raise(SIGUSR1);
	CHECK(!in_handler.err, "main handler: %s", strerror(-in_handler.err));
	CHECK(in_handler.self.ss_flags & SS_ONSTACK, "main handler: not on the sigaltstack");
	check_same(&in_handler.q, &in_handler.self, "main handler");
	check_kind(&in_handler.q, STACKINFO_STACK_ALTSTACK, "main handler");

	set_altstack(alt, ALT_SIZE, SS_AUTODISARM);
	self_case("main, autodisarm", STACKINFO_STACK_MAIN);
	memset(&in_handler, 0, sizeof(in_handler));
	raise(SIGUSR1);
	snprintf(what, sizeof(what), "main autodisarm handler");
	CHECK(!in_handler.err, "%s: %s", what, strerror(-in_handler.err));
	/* the kernel forgot the sigaltstack while the handler runs */
	CHECK(in_handler.self.ss_flags & SS_DISABLE, "%s: not disarmed", what);
	check_same(&in_handler.q, &in_handler.self, what);
	CHECK(in_handler.q.stack_kind != STACKINFO_STACK_ALTSTACK &&
		      in_handler.q.stack_kind != STACKINFO_STACK_MAIN,
	      "%s: kind %u", what, in_handler.q.stack_kind);
	/* and restored it at sigreturn */
	self_case("main, after the handler", STACKINFO_STACK_MAIN);

	set_altstack(NULL, 0, SS_DISABLE);
	self_case("main, disabled", STACKINFO_STACK_MAIN);
}

/* ---- another thread, blocked ---- */

struct other {
	pthread_t th;
	int go[2], done[2];
	void *alt;		/* its sigaltstack, or NULL */
	int alt_flags;
	int in_handler;		/* look and block from a handler */
	struct seen s;
};

static __thread struct other *me;

static void block(struct other *o)
{
	char c;

	if (write(o->done[1], "x", 1) != 1)
		_exit(2);
	while (read(o->go[0], &c, 1) < 0 && errno == EINTR)
		;
}

static void on_usr2(int sig)
{
	(void)sig;
	look_at_self(&me->s);
	block(me);
}

static void *other_main(void *arg)
{
	struct other *o = arg;

	me = o;
	if (o->alt)
		set_altstack(o->alt, ALT_SIZE, o->alt_flags);
	if (o->in_handler) {
		pthread_kill(pthread_self(), SIGUSR2);
		return NULL;
	}
	look_at_self(&o->s);
	block(o);
	return NULL;
}

static void other_case(const char *what, void *alt, int alt_flags, int in_handler,
		       uint32_t kind)
{
	struct stackinfo_query q;
	struct other o = { .alt = alt, .alt_flags = alt_flags, .in_handler = in_handler };
	char c;
	int err;

	CHECK(!pipe(o.go) && !pipe(o.done), "pipe");
	CHECK(!pthread_create(&o.th, NULL, other_main, &o), "%s: pthread_create", what);
	CHECK(read(o.done[0], &c, 1) == 1, "%s: the thread never got there", what);
	CHECK(!t_wait_sleeping(o.s.tid), "%s: the thread never slept", what);
	err = si_module_query(fd, o.s.tid, 0, &q);
	if (write(o.go[1], "x", 1) != 1)
		abort();
	pthread_join(o.th, NULL);

	CHECK(!o.s.err, "%s, itself: %s", what, strerror(-o.s.err));
	check_same(&o.s.q, &o.s.self, what);
	CHECK(!err, "%s, by tid: %s", what, strerror(-err));
	check_same(&q, &o.s.self, what);
	check_kind(&q, kind, what);
	check_kind(&o.s.q, kind, what);
	close(o.go[0]);
	close(o.go[1]);
	close(o.done[0]);
	close(o.done[1]);
}

static void other_cases(void *alt)
{
	struct sigaction sa = { .sa_handler = on_usr2, .sa_flags = SA_ONSTACK };

	sigemptyset(&sa.sa_mask);
	CHECK(!sigaction(SIGUSR2, &sa, NULL), "sigaction: %s", strerror(errno));
	other_case("thread, none", NULL, 0, 0, STACKINFO_STACK_THREAD);
	other_case("thread, set", alt, 0, 0, STACKINFO_STACK_THREAD);
	other_case("thread, autodisarm", alt, SS_AUTODISARM, 0, STACKINFO_STACK_THREAD);
	other_case("thread handler", alt, 0, 1, STACKINFO_STACK_ALTSTACK);
}

int main(void)
{
	void *alt = malloc(ALT_SIZE), *alt2 = malloc(ALT_SIZE);

	fd = si_open();
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", STACKINFO_PROC_PATH, strerror(-fd));
		return 1;
	}
	CHECK(alt && alt2, "malloc");
	handle_on_altstack();
	self_cases(alt);
	other_cases(alt2);
	return t_result();
}
