// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library in processes glibc's fork handlers never hear of, against
 * glibc's own pthread_getattr_np in the same process:
 *  - children made by _Fork(), syscall(SYS_fork) and a raw clone(SIGCHLD)
 *    (no atfork handler runs) map a page below their stack, so that
 *    glibc's answer changes, and must get glibc's answer, not the parent's
 *    layout;
 *  - PID 1 of a pid namespace, which the library has answered, makes
 *    another namespace and _Fork()s its PID 1: same getpid(), another
 *    address space; the child must get its own layout (glibc's answer);
 *  - a zombie main thread: main calls pthread_exit(), a worker asks about
 *    it; the library's result (glibc's is ENOENT: /proc/self/maps of a
 *    zombie leader is empty) must be glibc's;
 *  - fork() while another thread is inside the library, FORKS times at
 *    least and on until MIN_INSIDE forks have met the other thread inside
 *    (race.h: the cap, its progress in the log): each child calls the
 *    library under alarm(); none may hang.
 * Run with each backend the guest offers (run-tests runs it with and
 * without the module).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "race.h"
#include "testutil.h"

#define FORKS		300
#define MIN_INSIDE	30	/* forks that must meet the worker inside */
#define HANG_SECS	60	/* a child's calls not done by then: it hangs */

static t_getattr_fn glibc;
static pthread_t main_thread;

/* The library on @th against glibc, three times: 0 or 1 (and a message). */
static int same(const char *what, pthread_t th)
{
	struct t_attrs g, s;
	char why[400];
	int i, rg, rs, bad = 0;

	for (i = 0; i < 3; i++) {
		rg = t_getattr(glibc, th, &g);
		rs = t_getattr(stackinfo_pthread_getattr_np, th, &s);
		if (rg != rs) {
			fprintf(stderr, "FAIL: %s, call %d: library %d, glibc %d\n", what, i + 1,
				rs, rg);
			bad = 1;
		} else if (!rg && !t_attrs_same(&s, &g, why, sizeof(why))) {
			fprintf(stderr, "FAIL: %s, call %d: library %s\n", what, i + 1, why);
			bad = 1;
		}
	}
	return bad;
}

/* In a child: a page mapped below the stack, within glibc's reach. */
static int child_maps_below(const char *what)
{
	struct t_attrs before, after;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t top, at;

	if (t_getattr(glibc, pthread_self(), &before))
		return 1;
	top = (uintptr_t)before.addr + before.size;
	/* halfway down the rlimit's 8 MiB: far below the stack's guard gap */
	at = (top - (4 << 20)) & -(uintptr_t)page;
	if (mmap((void *)at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0) != (void *)at) {
		fprintf(stderr, "FAIL: %s: map at %#lx: %s\n", what, (unsigned long)at,
			strerror(errno));
		return 1;
	}
	if (t_getattr(glibc, pthread_self(), &after) || after.size == before.size) {
		fprintf(stderr, "FAIL: %s: glibc's answer did not change (%#zx)\n", what,
			after.size);
		return 1;
	}
	return same(what, pthread_self());
}

static int wait_child(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, __WALL) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void unforked_children(void)
{
	pid_t pid;

	fflush(NULL);
	pid = _Fork();
	if (pid == 0)
		_exit(child_maps_below("_Fork() child"));
	CHECK(wait_child(pid) == 0, "_Fork() child");

#ifdef SYS_fork
	/* arm64, as every architecture of the generic syscall table, has no
	 * fork syscall: there the raw clone(SIGCHLD) below is the raw fork */
	fflush(NULL);
	pid = syscall(SYS_fork);
	if (pid == 0)
		_exit(child_maps_below("syscall(SYS_fork) child"));
	CHECK(wait_child(pid) == 0, "syscall(SYS_fork) child");
#endif

	/* clone(2) with no new stack: the child runs on a copy of ours */
	fflush(NULL);
	pid = syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0)
		_exit(child_maps_below("raw clone(SIGCHLD) child"));
	CHECK(wait_child(pid) == 0, "raw clone child");
}

/* ---- PID 1 and the PID 1 it _Fork()s into a newer namespace ---- */

static void pid1_forks_pid1(void *arg)
{
	pid_t pid;

	(void)arg;
	/* the library answers for itself in this PID 1 */
	CHECK(!same("PID 1 of a new pid namespace", pthread_self()), "PID 1");
	if (unshare(CLONE_NEWPID)) {
		CHECK(0, "unshare(CLONE_NEWPID) in PID 1: %s", strerror(errno));
		return;
	}
	fflush(NULL);
	pid = _Fork();
	if (pid == 0)
		_exit(getpid() == 1 ? child_maps_below("_Fork()ed PID 1 of PID 1") : 2);
	CHECK(wait_child(pid) == 0, "the _Fork()ed PID 1 of a PID 1");
}

static void pid_namespaces(void *arg)
{
	(void)arg;
	t_reap(t_in_new_pidns(pid1_forks_pid1, NULL));
}

/* ---- a zombie main thread ---- */

static void *ask_zombie(void *arg)
{
	char path[64], buf[512], *p;
	double end = t_now() + T_WAIT_SECS;
	bool zombie = false;

	(void)arg;
	/* until the main thread is a zombie: state Z in its stat */
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)getpid());
	while (!zombie && t_now() < end) {
		zombie = si_read_file(path, buf, sizeof(buf)) > 0 && (p = strrchr(buf, ')')) &&
			 p[2] == 'Z';
		if (!zombie)
			usleep(1000);
	}
	if (!zombie) {
		fprintf(stderr, "FAIL: the main thread was no zombie after %d s\n", T_WAIT_SECS);
		exit(1);
	}
	exit(same("zombie main thread, asked from a worker", main_thread));
}

static void zombie_main(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		pthread_t th;

		/* the library answers for itself from here on */
		if (same("before the main thread exits", pthread_self()))
			_exit(1);
		pthread_create(&th, NULL, ask_zombie, NULL);
		pthread_exit(NULL);
	}
	CHECK(wait_child(pid) == 0, "zombie main thread");
}

/* ---- fork while another thread is in the library ---- */

static int inside, stop;

static void *busy(void *arg)
{
	struct stackinfo_query q;
	pthread_attr_t attr;
	void *addr;
	size_t size;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		__atomic_store_n(&inside, 1, __ATOMIC_SEQ_CST);
		stackinfo_set_backend(stackinfo_backend());
		stackinfo_query_thread(1, 0, &q);	/* another process */
		stackinfo_query_thread(0, 0, &q);
		stackinfo_main_stack(&addr, &size);
		if (!stackinfo_pthread_getattr_np(main_thread, &attr))
			pthread_attr_destroy(&attr);
		__atomic_store_n(&inside, 0, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void __attribute__((unused)) fork_in_flight(void)
{
	unsigned long forks = 0, met = 0;
	int hung = 0, bad = 0;
	struct t_race r;
	pthread_t th;

	pthread_create(&th, NULL, busy, NULL);
	t_race_begin(&r, "fork beside a thread in the library", 0);
	t_race_case(&r, "forks", &forks, FORKS);
	t_race_case(&r, "forks with the other thread inside", &met, MIN_INSIDE);
	while (t_race_more(&r)) {
		int was, rc;
		pid_t pid;

		fflush(NULL);
		was = __atomic_load_n(&inside, __ATOMIC_SEQ_CST);
		pid = fork();
		if (pid == 0) {
			struct stackinfo_query q;

			alarm(HANG_SECS);
			/* what the other thread did: itself, another process */
			if (stackinfo_query_thread(0, 0, &q))
				_exit(2);
			stackinfo_query_thread(getppid(), 0, &q);
			_exit(same("child forked beside a busy thread", pthread_self()));
		}
		met += was;
		forks++;
		rc = wait_child(pid);
		if (rc == 128 + SIGALRM)
			hung++;
		else if (rc)
			bad++;
		if (hung)
			break;	/* one is proof enough */
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	fprintf(stderr, "forks %lu, with the other thread inside %lu, hung %d, failed %d\n",
		forks, met, hung, bad);
	CHECK(!hung, "%d children hung in the library (deadlock)", hung);
	CHECK(!bad, "%d children got another answer than glibc's", bad);
	if (!hung)	/* one is proof enough: the loop stopped there */
		t_race_end(&r);
}

int main(void)
{
	struct rlimit rl;

	main_thread = pthread_self();
	glibc = t_glibc_getattr();
	if (!glibc) {
		fprintf(stderr, "glibc's pthread_getattr_np not found\n");
		return 1;
	}
	/* an 8 MiB stack rlimit, whatever the guest's, for child_maps_below */
	getrlimit(RLIMIT_STACK, &rl);
	rl.rlim_cur = 8 << 20;
	if (rl.rlim_max < rl.rlim_cur)
		rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_STACK, &rl);
	fprintf(stderr, "backend %s\n", stackinfo_backend_name(stackinfo_backend()));

	/* the parent's library has answered (fds open, check passed) */
	CHECK(!same("parent", pthread_self()), "parent");
	unforked_children();
	t_in_child_arg("pid namespaces", pid_namespaces, NULL);
	zombie_main();
#ifdef __SANITIZE_ADDRESS__
	/*
	 * Debian 12's libasan (GCC 12) has no fork() interceptor: its
	 * allocator is not locked across fork(), so a child forked while the
	 * other thread is inside malloc can hang in ASan itself (lib_fork_san
	 * did, at its first fork, on the maps backend, which allocates its
	 * buffer at every call). The plain build runs this part.
	 */
	fprintf(stderr, "fork beside a busy thread: left to the build without ASan\n");
#else
	fork_in_flight();
#endif
	return t_result();
}
