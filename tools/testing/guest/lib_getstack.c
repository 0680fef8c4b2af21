// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pthread_getstack_np() (pthread_getstack_np(3)) against glibc's
 * pthread_getattr_np() in the same process; built with musl too
 * (lib_musl_getstack), against the kernel alone there: the main stack from
 * /proc/self/maps, /proc/self/stat's start_stack and RLIMIT_STACK by
 * glibc's formula, other threads from musl's pthread_getattr_np(); and
 * stackinfo_main_stack() and stackinfo_pthread_getattr_np() there give the
 * main thread that stack (musl's own call, its current size), the other
 * attributes musl's.
 *  - Before any backend is chosen: the main thread's real answer where the
 *    kernel has a source (the in-tree file, the module, PROCMAP_QUERY),
 *    else LLVM's (PTHREAD_STACK_DYNAMIC_NP, the base glibc's answer ends
 *    at).
 *  - On each backend the kernel offers, and on the maps parse (no kernel
 *    source): the main thread asked by itself and by a worker, under the
 *    rlimit as it is, a lower one and with a mapping below the stack within
 *    the rlimit's reach; workers with the default stack, a stack of a given
 *    size and guard, and the caller's own (pthread_attr_setstack()), asked
 *    by themselves and by the main thread.
 *  - From a SIGUSR1 handler on the sigaltstack of a thread that loops in
 *    malloc()/free() and in fprintf(), 300 rounds on each backend, signalled
 *    inside each in turn: the same
 *    answers for that thread, the main thread and a sleeping one, errno
 *    kept; a round not answered within 5 s is a deadlock and ends the test;
 *    enough rounds must have landed inside malloc() or free() and inside
 *    fprintf().
 *  - errno is kept; a NULL pointer is EFAULT, nothing written.
 *  - glibc: the interposer's pthread_getstack_np (LD_PRELOAD, found with
 *    dlsym(RTLD_DEFAULT)) gives the same.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libstackinfo.h>

#include "compat.h"
#include "testutil.h"

/* the interposer's run: glibc's dynamic builds (ASan's runtime must come first) */
#if defined(__GLIBC__) && !defined(T_STATIC) && !defined(__SANITIZE_ADDRESS__)
#define T_PRELOAD_RUN 1
#endif

#define ERRNO_MARK	4711
#define ROUNDS		300
#define ALT_SIZE	(64 * 1024)
#define PRELOAD		"/usr/lib/libstackinfo-preload.so"

struct stack {
	void *addr;
	size_t size;
};

static long page;
static pthread_t main_th;
/* does the backend in use (or the first choice) have a kernel source? */
static bool real_main;
static const char *label;

/* ---- what the oracle says ---- */

#ifdef __GLIBC__
/* glibc's pthread_getattr_np, by handle where the program is dynamic */
static int oracle_getattr(pthread_t th, struct stack *s)
{
	t_getattr_fn f = t_glibc_getattr();
	pthread_attr_t a;
	int ret = f ? f(th, &a) : pthread_getattr_np(th, &a);

	if (!ret) {
		pthread_attr_getstack(&a, &s->addr, &s->size);
		pthread_attr_destroy(&a);
	}
	return ret;
}

static int oracle_main(struct stack *s)
{
	return oracle_getattr(main_th, s);
}
#else
/* musl's own call: the stack of a thread of pthread_create() */
static int oracle_getattr(pthread_t th, struct stack *s)
{
	pthread_attr_t a;
	int ret = pthread_getattr_np(th, &a);

	if (!ret) {
		pthread_attr_getstack(&a, &s->addr, &s->size);
		pthread_attr_destroy(&a);
	}
	return ret;
}

/* glibc's formula over the kernel's maps, start_stack and rlimit */
static int oracle_main(struct stack *s)
{
	return t_kernel_main_stack(&s->addr, &s->size);
}
#endif

/* What pthread_getstack_np() must give for the main thread now. */
static int expect_main(struct stack *s)
{
	int ret = oracle_main(s);

	if (!ret && !real_main) {
		s->addr = (char *)s->addr + s->size;
		s->size = PTHREAD_STACK_DYNAMIC_NP;
	}
	return ret;
}

#if defined(__GLIBC__) && !defined(T_STATIC)
/*
 * The environment read while one of this program's pthread_getstack_np()
 * calls runs: never (getenv() is no call for a signal handler; the library
 * reads $STACKINFO_BACKEND once, at load). This secure_getenv() is the one
 * the library's calls reach, counting, then glibc's.
 */
static __thread int in_getstack;
static unsigned int env_reads;

char *secure_getenv(const char *name)
{
	static char *(*libc_secure_getenv)(const char *);

	if (in_getstack)
		__atomic_fetch_add(&env_reads, 1, __ATOMIC_RELAXED);
	if (!libc_secure_getenv)
		libc_secure_getenv = (char *(*)(const char *))dlsym(RTLD_NEXT, "secure_getenv");
	return libc_secure_getenv ? libc_secure_getenv(name) : NULL;
}

static int getstack(pthread_t th, void **addr, size_t *size)
{
	int ret;

	in_getstack = 1;
	ret = pthread_getstack_np(th, addr, size);
	in_getstack = 0;
	return ret;
}
#define T_ENV_READS 1
#else
#define getstack pthread_getstack_np
#endif

static void check_one(const char *who, pthread_t th, const struct stack *want)
{
	struct stack got = { (void *)1, 1 };
	int ret;

	errno = ERRNO_MARK;
	ret = getstack(th, &got.addr, &got.size);
	CHECK(errno == ERRNO_MARK, "%s: %s: errno %d", label, who, errno);
	CHECK(!ret, "%s: %s: %s", label, who, strerror(ret));
	CHECK(got.addr == want->addr && got.size == want->size,
	      "%s: %s: %p+%#zx, want %p+%#zx", label, who, got.addr, got.size, want->addr,
	      want->size);
}

static void check_main(const char *who)
{
	struct stack want;
	int ret = expect_main(&want);

	CHECK(!ret, "%s: %s: the oracle: %s", label, who, strerror(ret));
	if (!ret)
		check_one(who, main_th, &want);
}

/* A thread's stack against its oracle; the caller's also holds its frame. */
static void check_thread(const char *who, pthread_t th)
{
	struct stack want;
	int ret = oracle_getattr(th, &want);
	uintptr_t here = (uintptr_t)&want;

	CHECK(!ret, "%s: %s: the oracle: %s", label, who, strerror(ret));
	if (ret)
		return;
	check_one(who, th, &want);
	if (pthread_equal(th, pthread_self()))
		CHECK(here >= (uintptr_t)want.addr && here < (uintptr_t)want.addr + want.size,
		      "%s: %s: its frame %#lx is not in its stack", label, who,
		      (unsigned long)here);
}

/* ---- threads ---- */

struct worker {
	pthread_t th;
	const char *what;
	sem_t ready, release;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char who[96];

	snprintf(who, sizeof(who), "%s, by itself", w->what);
	check_thread(who, pthread_self());
	snprintf(who, sizeof(who), "the main thread, by %s", w->what);
	check_main(who);
	sem_post(&w->ready);
	while (sem_wait(&w->release) && errno == EINTR)
		;
	return NULL;
}

static void one_worker(const char *what, pthread_attr_t *attr)
{
	struct worker w = { .what = what };
	char who[96];

	sem_init(&w.ready, 0, 0);
	sem_init(&w.release, 0, 0);
	if (pthread_create(&w.th, attr, worker_main, &w)) {
		CHECK(0, "%s: cannot start %s", label, what);
		return;
	}
	while (sem_wait(&w.ready) && errno == EINTR)
		;
	snprintf(who, sizeof(who), "%s, by the main thread", what);
	check_thread(who, w.th);
	sem_post(&w.release);
	pthread_join(w.th, NULL);
}

static void workers(void)
{
	size_t size = 16 * (size_t)page;
	pthread_attr_t a;
	void *own;

	one_worker("a worker", NULL);
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 96 * 1024);
	pthread_attr_setguardsize(&a, 3 * page);
	one_worker("a worker of 96 KiB, 3 guard pages", &a);
	pthread_attr_destroy(&a);
	own = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(own != MAP_FAILED, "mmap");
	if (own == MAP_FAILED)
		return;
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, own, size);
	one_worker("a worker on a stack of its caller's", &a);
	pthread_attr_destroy(&a);
	munmap(own, size);
}

/* The main thread as it is, under a lower rlimit, with a mapping below. */
static void main_layouts(void)
{
	struct rlimit rl, low;
	char *below;

	check_main("the main thread");
	CHECK(!getrlimit(RLIMIT_STACK, &rl), "getrlimit");
	low = rl;
	low.rlim_cur = 1024 * 1024;
	CHECK(!setrlimit(RLIMIT_STACK, &low), "setrlimit");
	check_main("the main thread, RLIMIT_STACK 1 MiB");
	CHECK(!setrlimit(RLIMIT_STACK, &rl), "setrlimit back");
	/* a page the rlimit's bottom lies below: the VMA below decides */
	below = (char *)(((uintptr_t)&rl & -(uintptr_t)page) - 3 * 1024 * 1024);
	below = mmap(below, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		     -1, 0);
	if (below == MAP_FAILED) {
		printf("info: %s: no page 3 MiB below the stack: %s\n", label, strerror(errno));
		return;
	}
	check_main("the main thread, a mapping 3 MiB below");
	munmap(below, page);
}

/* ---- a handler interrupting malloc() and stdio ---- */

enum { IN_NOTHING, IN_MALLOC, IN_STDIO };

static volatile int busy_in, busy_stop;
static volatile unsigned int busy_steps;
/* the handler's count of rounds (and the thread's word that it is ready) */
static volatile unsigned int answered;
static pthread_t idle_th;
static struct stack want_busy, want_main, want_idle;

/* what the handler found, round by round */
static struct {
	int bad, bad_errno, not_alt, in[3];
	struct stack got, want;
	const char *which;
} h;

static void handler_check(const char *which, pthread_t th, const struct stack *want)
{
	struct stack got = { 0 };
	int ret;

	errno = ERRNO_MARK;
	ret = getstack(th, &got.addr, &got.size);
	if (errno != ERRNO_MARK)
		h.bad_errno++;
	if (ret || got.addr != want->addr || got.size != want->size) {
		if (!h.bad++) {
			h.got = got;
			h.want = *want;
			h.which = which;
		}
	}
}

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	stack_t ss;

	(void)sig;
	(void)si;
	(void)uc;
	h.in[busy_in]++;
	if (sigaltstack(NULL, &ss) || !(ss.ss_flags & SS_ONSTACK))
		h.not_alt++;
	handler_check("the interrupted thread", pthread_self(), &want_busy);
	handler_check("the main thread", main_th, &want_main);
	handler_check("a sleeping thread", idle_th, &want_idle);
	__atomic_fetch_add(&answered, 1, __ATOMIC_RELEASE);
	errno = saved;
}

static void *busy_main(void *arg)
{
	FILE *f = fopen("/dev/null", "w");
	static char alt[ALT_SIZE];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
	int runs[3] = { 0, 4, 4 }, lean, k;
	unsigned int i;

	(void)arg;
	if (!f || sigaltstack(&ss, NULL))
		abort();
	__atomic_fetch_add(&answered, 1, __ATOMIC_RELEASE);	/* ready */
	setvbuf(f, NULL, _IOFBF, 512);
	for (i = 0; !busy_stop; i++) {
		/*
		 * Sizes past the per-thread cache (the arena's lock is taken),
		 * then stdio's lock held through a run of writes. Where the
		 * handler lands depends on what each costs here: the runs
		 * lengthen on the side it lands on less.
		 */
		busy_in = IN_MALLOC;
		for (k = 0; k < runs[IN_MALLOC]; k++, busy_steps++)
			free(malloc(1536 + ((i + k) % 13) * 512));
		flockfile(f);
		busy_in = IN_STDIO;
		for (k = 0; k < runs[IN_STDIO]; k++, busy_steps++)
			fprintf(f, "%u %s %x %ld\n", i, "stdio", k, (long)i * k);
		busy_in = IN_NOTHING;
		funlockfile(f);
		lean = h.in[IN_MALLOC] < h.in[IN_STDIO] ? IN_MALLOC :
		       h.in[IN_MALLOC] > h.in[IN_STDIO] ? IN_STDIO : IN_NOTHING;
		if (lean == IN_NOTHING)
			continue;
		if (runs[lean] < 256)
			runs[lean]++;
		else if (runs[3 - lean] > 1)
			runs[3 - lean]--;
	}
	fclose(f);
	/* not left to the thread's end (ASan's would unmap it as its own) */
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	return NULL;
}

static void *idle_main(void *arg)
{
	sem_t *release = arg;

	while (sem_wait(release) && errno == EINTR)
		;
	return NULL;
}

/* ROUNDS signals to a thread in malloc() and stdio; each must be answered. */
static void signal_rounds(int in[3])
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO | SA_ONSTACK };
	sem_t release;
	pthread_t busy;
	int i;

	memset(&h, 0, sizeof(h));
	answered = 0;
	sem_init(&release, 0, 0);
	sigemptyset(&sa.sa_mask);
	CHECK(!sigaction(SIGUSR1, &sa, NULL), "sigaction");
	busy_stop = 0;
	if (pthread_create(&busy, NULL, busy_main, NULL) ||
	    pthread_create(&idle_th, NULL, idle_main, &release)) {
		CHECK(0, "%s: cannot start the threads", label);
		return;
	}
	while (!__atomic_load_n(&answered, __ATOMIC_ACQUIRE))
		sched_yield();
	CHECK(!expect_main(&want_main), "the main thread's oracle");
	CHECK(!oracle_getattr(busy, &want_busy), "the busy thread's oracle");
	CHECK(!oracle_getattr(idle_th, &want_idle), "the idle thread's oracle");
	for (i = 0; i < ROUNDS; i++) {
		unsigned int from = busy_steps, spins;
		int aim = i % 2 ? IN_STDIO : IN_MALLOC;
		double deadline;

		/*
		 * a few steps of the loop first (a signal sent at once would
		 * wait for the handler's return and land where it left), then
		 * the side this round aims at, malloc() and stdio in turn:
		 * where the handler lands is not left to what each side
		 * costs under this kernel and sanitizer
		 */
		for (spins = 0; busy_steps - from < 1 + (unsigned int)i % 5 && spins < 100000; spins++)
			sched_yield();
		for (spins = 0; busy_in != aim && spins < 100000; spins++)
			sched_yield();
		pthread_kill(busy, SIGUSR1);
		/* spinning, not sleeping: a guest's wake-up costs milliseconds */
		deadline = t_now() + 5;
		while (__atomic_load_n(&answered, __ATOMIC_ACQUIRE) != (unsigned int)i + 2) {
			if (t_now() > deadline) {
				printf("FAIL: %s: round %d unanswered after 5 s: the handler is "
				       "stuck (deadlock)\n", label, i);
				fflush(stdout);
				_exit(1);
			}
			sched_yield();
		}
	}
	busy_stop = 1;
	sem_post(&release);
	pthread_join(busy, NULL);
	pthread_join(idle_th, NULL);
	CHECK(!h.bad, "%s: %d of %d rounds answered wrong; first: %s %p+%#zx, want %p+%#zx",
	      label, h.bad, 3 * ROUNDS, h.which, h.got.addr, h.got.size, h.want.addr,
	      h.want.size);
	CHECK(!h.bad_errno, "%s: errno changed in %d calls of the handler", label, h.bad_errno);
	CHECK(!h.not_alt, "%s: %d rounds not on the sigaltstack", label, h.not_alt);
	printf("info: %s: %d rounds: %d in malloc/free, %d in fprintf, %d between\n", label,
	       ROUNDS, h.in[IN_MALLOC], h.in[IN_STDIO], h.in[IN_NOTHING]);
	for (i = 0; i < 3; i++)
		in[i] += h.in[i];
	signal(SIGUSR1, SIG_DFL);
}

/* errno kept; NULL pointers refused with nothing written */
static void bad_input(void)
{
	void *addr = (void *)1;
	size_t size = 1;

	errno = ERRNO_MARK;
	CHECK_EQ(pthread_getstack_np(pthread_self(), NULL, &size), EFAULT);
	CHECK_EQ(pthread_getstack_np(pthread_self(), &addr, NULL), EFAULT);
	CHECK(errno == ERRNO_MARK, "errno %d after EFAULT", errno);
	CHECK(addr == (void *)1 && size == 1, "written on EFAULT");
}

#ifndef __GLIBC__
/*
 * musl: stackinfo_main_stack() and stackinfo_pthread_getattr_np() give
 * the main thread its stack under the rlimit too; the rest of the
 * attributes are musl's own, whose stack is the one it has now.
 */
static void musl_main_calls(void)
{
	pthread_attr_t ours, musl;
	int od = -1, md = -2;
	struct stack want, got, own;
	size_t og = 1, mg = 2;

	CHECK(!oracle_main(&want), "the main thread's oracle");
	CHECK(!stackinfo_main_stack(&got.addr, &got.size), "%s: stackinfo_main_stack", label);
	CHECK(got.addr == want.addr && got.size == want.size,
	      "%s: stackinfo_main_stack %p+%#zx, want %p+%#zx", label, got.addr, got.size,
	      want.addr, want.size);
	if (stackinfo_pthread_getattr_np(main_th, &ours) || pthread_getattr_np(main_th, &musl)) {
		CHECK(0, "%s: pthread_getattr_np, musl's or the library's", label);
		return;
	}
	pthread_attr_getstack(&ours, &got.addr, &got.size);
	pthread_attr_getstack(&musl, &own.addr, &own.size);
	pthread_attr_getdetachstate(&ours, &od);
	pthread_attr_getdetachstate(&musl, &md);
	pthread_attr_getguardsize(&ours, &og);
	pthread_attr_getguardsize(&musl, &mg);
	CHECK(got.addr == want.addr && got.size == want.size,
	      "%s: stackinfo_pthread_getattr_np %p+%#zx, want %p+%#zx", label, got.addr,
	      got.size, want.addr, want.size);
	CHECK(od == md && og == mg, "%s: detach state %d, guard %zu; musl's %d, %zu", label, od,
	      og, md, mg);
	printf("info: %s: the main stack %p+%#zx; musl's own pthread_getattr_np %p+%#zx\n",
	       label, got.addr, got.size, own.addr, own.size);
	pthread_attr_destroy(&ours);
	pthread_attr_destroy(&musl);
}
#endif

#ifdef T_PRELOAD_RUN
/* The interposer's pthread_getstack_np, in a run of this program under it. */
static int preloaded(void)
{
	typedef int (*fn_t)(pthread_t, void **, size_t *);
	fn_t fn = (fn_t)dlsym(RTLD_DEFAULT, "pthread_getstack_np");
	struct stack got, want;
	Dl_info info;

	CHECK(fn && dladdr((void *)fn, &info) && strstr(info.dli_fname, "preload"),
	      "pthread_getstack_np is not the interposer's");
	if (!fn)
		return t_result();
	CHECK(!expect_main(&want), "the main thread's oracle");
	CHECK(!fn(pthread_self(), &got.addr, &got.size), "the interposer's call");
	CHECK(got.addr == want.addr && got.size == want.size,
	      "preloaded: the main thread %p+%#zx, want %p+%#zx", got.addr, got.size, want.addr,
	      want.size);
	return t_result();
}

static void run_preloaded(const char *self)
{
	char *args[] = { (char *)self, "--preloaded", NULL };
	char *env[] = { "LD_PRELOAD=" PRELOAD, NULL };
	int status = -1;
	pid_t pid;

	if (access(PRELOAD, R_OK)) {
		printf("info: no %s: the interposer's call not tried\n", PRELOAD);
		return;
	}
	pid = fork();
	if (!pid) {
		execve(self, args, env);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "preloaded run: status %#x", status);
}
#endif

int main(int argc, char **argv)
{
	static const int backends[] = {
		STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
		STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS,
	};
	int in[3] = { 0 }, tested = 0, offered = 0, err;
	size_t i;

	page = sysconf(_SC_PAGESIZE);
	main_th = pthread_self();
	/* first of all, nothing chosen: the first kernel source there is */
	real_main = t_backend_offered(STACKINFO_BACKEND_PROC) ||
		    t_backend_offered(STACKINFO_BACKEND_MODULE) ||
		    t_backend_offered(STACKINFO_BACKEND_PROCMAP_QUERY);
#ifdef T_PRELOAD_RUN
	if (argc > 1 && !strcmp(argv[1], "--preloaded"))
		return preloaded();
#else
	(void)argc;
	(void)argv;
#endif
	label = "nothing chosen";
	check_main("the main thread, before any backend is chosen");
	bad_input();
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		int b = backends[i];

		label = stackinfo_backend_name(b);
		offered += t_backend_offered(b);
		err = stackinfo_set_backend(b);
		if (err) {
			CHECK(!t_backend_offered(b), "%s: %s, though the kernel has it", label,
			      strerror(-err));
			printf("info: %s: %s\n", label, strerror(-err));
			continue;
		}
		tested++;
		real_main = b != STACKINFO_BACKEND_MAPS;
		main_layouts();
		workers();
		signal_rounds(in);
#ifndef __GLIBC__
		musl_main_calls();
#endif
	}
	/* every backend the kernel offers (the maps parse at least) */
	CHECK(tested >= 1 && tested == offered, "%d backends tested, the kernel offers %d", tested,
	      offered);
	/* interrupted inside malloc() and inside stdio often enough to matter */
	CHECK(in[IN_MALLOC] >= tested * ROUNDS / 10 && in[IN_STDIO] >= tested * ROUNDS / 10,
	      "of %d rounds, %d in malloc/free and %d in fprintf", tested * ROUNDS,
	      in[IN_MALLOC], in[IN_STDIO]);
#ifdef T_ENV_READS
	CHECK(!env_reads, "pthread_getstack_np() read the environment %u times", env_reads);
#endif
#ifdef T_PRELOAD_RUN
	run_preloaded(argv[0]);
#endif
	return t_result();
}
