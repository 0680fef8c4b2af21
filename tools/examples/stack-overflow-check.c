// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stack-overflow-check: tell a stack overflow from any other SIGSEGV, as
 * language runtimes do (Rust prints "thread '...' has overflowed its
 * stack", .NET "Stack overflow"), with pthread_getstack_np() from
 * libstackinfo. Copy what you need.
 *
 *   cc stack-overflow-check.c -o stack-overflow-check -lstackinfo -lpthread
 *   stack-overflow-check main     the main thread recurses without end
 *   stack-overflow-check thread   a second thread does
 *   stack-overflow-check null     the main thread reads through NULL
 *
 * The parts:
 *  - every thread that may overflow gets a sigaltstack: a handler cannot
 *    run on the stack that has no room left;
 *  - the SIGSEGV handler (SA_ONSTACK) asks pthread_getstack_np() about
 *    the faulting thread, which is async-signal-safe, unlike
 *    pthread_getattr_np() (its fopen() of /proc/self/maps can deadlock on
 *    malloc's lock);
 *  - the fault is a stack overflow when si_addr lies in that stack or at
 *    most SLACK below it: the guard pages under a thread's stack, the
 *    kernel's guard gap (the main stack may not grow to within
 *    stack_guard_gap of the mapping below), a frame that jumped past the
 *    guard. Without a kernel source (no stackinfo module, no in-tree
 *    file, no PROCMAP_QUERY: before Linux 6.11) the main thread's size is
 *    PTHREAD_STACK_DYNAMIC_NP and only its base is known: then the fault
 *    counts as an overflow when it lies below the base and near the
 *    interrupted stack pointer, as .NET and bun decide;
 *  - it writes one line with write(2) (printf() is not for a handler),
 *    puts SIGSEGV back to its default and returns: the fault happens again
 *    and ends the process, with its core, as it would have without the
 *    handler.
 * With the module or the in-tree file, stackinfo_classify_addr() with
 * STACKINFO_LIB_ASYNC_SAFE also tells the kernel's reason
 * (STACKINFO_ADDR_GUARD, _GUARD_GAP, _BEYOND_LIMIT): libstackinfo(3).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <libstackinfo.h>

/* how far below its stack a fault still counts as the stack's (bun's 64 KiB) */
#define SLACK		(64 * 1024)
#define ALT_SIZE	(64 * 1024)

static pid_t main_tid;

/* The interrupted stack pointer, where this example knows the machine. */
static uintptr_t interrupted_sp(const void *ctx)
{
	const ucontext_t *uc = ctx;

#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.sp;
#else
	(void)uc;
	return 0;
#endif
}

/* ---- writing numbers without stdio ---- */

struct line {
	char buf[256];
	size_t len;
};

static void put(struct line *l, const char *s)
{
	while (*s && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

static void put_num(struct line *l, uintptr_t v, unsigned int base)
{
	char digits[24];
	int n = 0;

	if (base == 16)
		put(l, "0x");
	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = digits[--n];
}

/* ---- the handler ---- */

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t addr = (uintptr_t)si->si_addr, sp = interrupted_sp(ctx), lo, hi;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct line l = { .len = 0 };
	bool overflow = false;
	size_t size;
	void *base;

	if (!pthread_getstack_np(pthread_self(), &base, &size)) {
		lo = (uintptr_t)base;
		hi = lo + size;
		if (size == PTHREAD_STACK_DYNAMIC_NP) {
			/* the main thread's base alone: judge by the SP */
			lo = sp > SLACK ? sp - SLACK : 0;
			overflow = sp && addr < hi && addr >= lo;
		} else {
			overflow = addr < hi && addr + SLACK >= lo;
		}
		if (overflow) {
			put(&l, "stack overflow of thread ");
			put_num(&l, (uintptr_t)tid, 10);
			put(&l, tid == main_tid ? " (the main thread)" : " (a worker)");
		} else {
			put(&l, "SIGSEGV in thread ");
			put_num(&l, (uintptr_t)tid, 10);
			put(&l, ": not a stack overflow");
		}
		put(&l, ": fault at ");
		put_num(&l, addr, 16);
		put(&l, size == PTHREAD_STACK_DYNAMIC_NP ? ", stack base " : ", stack ");
		if (size != PTHREAD_STACK_DYNAMIC_NP) {
			put_num(&l, (uintptr_t)base, 16);
			put(&l, "-");
		}
		put_num(&l, (uintptr_t)base + size, 16);
	} else {
		put(&l, "SIGSEGV: the thread's stack is not known");
	}
	put(&l, "\n");
	if (write(2, l.buf, l.len) < 0) {
		/* nothing more a handler can do */
	}
	/* the default action for the fault that comes again on return */
	signal(sig, SIG_DFL);
}

/* Each thread's own: the overflowing stack cannot hold the handler. */
static int use_altstack(void)
{
	stack_t ss = { .ss_size = ALT_SIZE };

	ss.ss_sp = malloc(ss.ss_size);
	return ss.ss_sp && !sigaltstack(&ss, NULL) ? 0 : -1;
}

/* ---- the faults ---- */

static volatile unsigned long never = ~0UL;

static unsigned long recurse(unsigned long n)
{
	volatile char frame[512];

	frame[0] = (char)n;
	if (n == never)
		return 0;
	return recurse(n + 1) + frame[0];
}

static void *worker(void *arg)
{
	(void)arg;
	if (use_altstack())
		return NULL;
	return (void *)recurse(0);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_ONSTACK };
	const char *what = argc > 1 ? argv[1] : "";
	pthread_t th;

	main_tid = getpid();
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) || use_altstack()) {
		perror("stack-overflow-check");
		return 1;
	}
	if (!strcmp(what, "main")) {
		recurse(0);
	} else if (!strcmp(what, "thread")) {
		if (pthread_create(&th, NULL, worker, NULL))
			return 1;
		pthread_join(th, NULL);
	} else if (!strcmp(what, "null")) {
		int *volatile null = NULL;

		return *null;
	} else {
		fprintf(stderr, "usage: stack-overflow-check main|thread|null\n");
		return 2;
	}
	return 1;	/* not reached */
}
