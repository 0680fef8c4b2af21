// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stack overflows as a crash handler meets them. A child overflows its
 * main stack under a small RLIMIT_STACK, a thread overflows its glibc
 * stack; each catches SIGSEGV on a sigaltstack and, from the handler,
 * classifies si_addr with the library's async-signal-safe path
 * (STACKINFO_LIB_ASYNC_SAFE, errno preserved). Back out of the handler
 * (siglongjmp), the answer is held against /proc/self/maps and the
 * rlimit: the main stack's fault lies below its VMA, in no mapping, beyond
 * what RLIMIT_STACK lets it grow to; the thread's lies in the PROT_NONE
 * guard right below its stack. The handler's own view: on its sigaltstack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libstackinfo.h>

#include "testutil.h"

#define ALT_SIZE (64 * 1024)
#define ERRNO_MARK 4711

/* What the handler saw; written there, read after siglongjmp. */
struct caught {
	sigjmp_buf back;
	uint64_t fault;		/* si_addr */
	struct stackinfo_query q;	/* the classification of si_addr */
	struct stackinfo_query self;	/* the handler about itself */
	int err, self_err, errno_after;
};

static __thread struct caught *caught;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	struct caught *c = caught;

	(void)sig;
	(void)uc;
	c->fault = (uintptr_t)si->si_addr;
	errno = ERRNO_MARK;
	c->err = stackinfo_classify_addr(0, c->fault, STACKINFO_LIB_ASYNC_SAFE, &c->q);
	c->self_err = stackinfo_query_thread(0, STACKINFO_LIB_ASYNC_SAFE, &c->self);
	c->errno_after = errno;
	siglongjmp(c->back, 1);
}

static void catch_on_altstack(void *alt)
{
	stack_t ss = { .ss_sp = alt, .ss_size = ALT_SIZE };
	struct sigaction sa = { .sa_sigaction = on_segv,
				.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER };

	sigemptyset(&sa.sa_mask);
	CHECK(!sigaltstack(&ss, NULL), "sigaltstack: %s", strerror(errno));
	CHECK(!sigaction(SIGSEGV, &sa, NULL), "sigaction: %s", strerror(errno));
}

/* never reached: the compiler cannot know, so the recursion stays a recursion */
static volatile unsigned long depth_limit = ~0UL;

/* Deeper than any stack here: each frame keeps a KiB alive. */
static unsigned long recurse(unsigned long n)
{
	volatile char frame[1024];

	if (n == depth_limit)
		return 0;
	frame[0] = (char)n;
	frame[sizeof(frame) - 1] = (char)n;
	return recurse(n + 1) + frame[0] + frame[sizeof(frame) - 1];
}

static void overflow(struct caught *c)
{
	caught = c;
	if (!sigsetjmp(c->back, 1))
		recurse(0);
}

static void check_handler(const struct caught *c, const char *what)
{
	CHECK(!c->err, "%s: classify in the handler: %s", what, strerror(-c->err));
	CHECK(!c->self_err, "%s: self query in the handler: %s", what, strerror(-c->self_err));
	CHECK(c->errno_after == ERRNO_MARK, "%s: errno %d after the calls", what,
	      c->errno_after);
	CHECK(c->q.valid & STACKINFO_VALID_ADDR, "%s: no class", what);
	CHECK(c->self.valid & STACKINFO_VALID_STACK_KIND, "%s: no stack kind", what);
	CHECK_EQ(c->self.stack_kind, STACKINFO_STACK_ALTSTACK);
	CHECK(c->self.ss_flags & SS_ONSTACK, "%s: not SS_ONSTACK in the handler", what);
}

/* ---- the main stack, in a child with a small RLIMIT_STACK ---- */

#define SMALL_STACK (512 * 1024)

static int main_overflow(void)
{
	static char alt[ALT_SIZE];
	static struct caught c;
	const struct maps_entry *e, *prev;
	struct rlimit rl = { SMALL_STACK, SMALL_STACK };
	struct maps m = { 0 };
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), at;

	CHECK(stackinfo_backend() > 0, "no backend");
	catch_on_altstack(alt);
	CHECK(!setrlimit(RLIMIT_STACK, &rl), "setrlimit: %s", strerror(errno));
	overflow(&c);
	check_handler(&c, "main");
	CHECK_EQ(c.q.addr_class, STACKINFO_ADDR_BEYOND_LIMIT);

	/* the kernel's picture: in no mapping, the stack right above it */
	CHECK(!maps_read(&m, 0), "maps");
	e = maps_find(&m, c.fault, &prev);
	CHECK(!e, "main: si_addr %#llx is mapped", (unsigned long long)c.fault);
	e = maps_find(&m, c.q.main_vma_start, &prev);
	CHECK(e && e->start == c.q.main_vma_start && c.fault < e->start &&
		      (!prev || prev->end <= c.fault),
	      "main: si_addr %#llx is not right below the stack", (unsigned long long)c.fault);
	CHECK(c.q.valid & STACKINFO_VALID_ADDR_VMA, "main: no stack VMA");
	CHECK_EQ(c.q.addr_vma_start, c.q.main_vma_start);
	/* growing down to it would pass the rlimit, and that was why */
	at = c.fault & ~(page - 1);
	CHECK(c.q.main_vma_end - at > SMALL_STACK, "main: %#llx is within RLIMIT_STACK",
	      (unsigned long long)c.fault);
	CHECK(!prev || at - prev->end >= c.q.guard_gap, "main: fault in the guard gap");
	printf("main: si_addr %#llx, stack %#llx-%#llx: class %u (beyond RLIMIT_STACK %d)\n",
	       (unsigned long long)c.fault, (unsigned long long)c.q.main_vma_start,
	       (unsigned long long)c.q.main_vma_end, c.q.addr_class, SMALL_STACK);
	maps_free(&m);
	return t_result();
}

/* ---- a thread's stack, glibc's, with its guard page ---- */

static void *thread_overflow(void *arg)
{
	static char alt[ALT_SIZE];
	struct caught *c = arg;

	catch_on_altstack(alt);
	overflow(c);
	return NULL;
}

static void thread_case(void)
{
	static struct caught c;
	const struct maps_entry *e, *prev, *above;
	struct maps m = { 0 };
	pthread_attr_t attr;
	pthread_t th;

	CHECK(stackinfo_backend() > 0, "no backend");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	CHECK(!pthread_create(&th, &attr, thread_overflow, &c), "pthread_create");
	pthread_join(th, NULL);
	pthread_attr_destroy(&attr);
	check_handler(&c, "thread");
	CHECK_EQ(c.q.addr_class, STACKINFO_ADDR_GUARD);

	/* the kernel's picture: a ---p mapping with the thread's stack right above */
	CHECK(!maps_read(&m, 0), "maps");
	e = maps_find(&m, c.fault, &prev);
	above = maps_find(&m, e ? e->end : 0, &prev);
	CHECK(e && !strcmp(e->perms, "---p"), "thread: si_addr %#llx not in a PROT_NONE mapping",
	      (unsigned long long)c.fault);
	CHECK(e && above && above->start == e->end && above->perms[0] == 'r',
	      "thread: no stack right above the guard");
	CHECK(e && c.q.addr_vma_start == e->start && c.q.addr_vma_end == e->end,
	      "thread: guard %#llx-%#llx", (unsigned long long)c.q.addr_vma_start,
	      (unsigned long long)c.q.addr_vma_end);
	printf("thread: si_addr %#llx in guard %#llx-%#llx: class %u\n",
	       (unsigned long long)c.fault, (unsigned long long)c.q.addr_vma_start,
	       (unsigned long long)c.q.addr_vma_end, c.q.addr_class);
	maps_free(&m);
}

int main(void)
{
	pid_t pid;
	int status = 0;	/* read below even when the wait failed */

	setvbuf(stdout, NULL, _IONBF, 0);
	pid = fork();
	if (!pid)
		_exit(main_overflow());
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "main stack child: status %#x",
	      status);
	thread_case();
	return t_result();
}
