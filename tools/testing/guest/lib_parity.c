// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo against glibc and against itself, in one process:
 *  - for 66 layouts and rlimits (a readable or a PROT_NONE mapping below
 *    the stack at five distances, or none; six RLIMIT_STACK values), and
 *    after the stack grew by 1 MiB, and in a process exec'd with an
 *    unlimited RLIMIT_STACK (the kernel then lays out mmap bottom-up),
 *    every backend's
 *    stackinfo_main_stack() and stackinfo_pthread_getattr_np() give
 *    glibc's pthread_getattr_np() stack address, size and guard size,
 *    bit for bit, and the same detach state, policy and CPU set;
 *  - every backend describes the main thread and a second thread, each
 *    asking about itself and about the other, as the others do;
 *  - without the module (the guest's run-tests unloads it for a second
 *    pass) the library picks PROCMAP_QUERY on 6.11+ and still agrees;
 *  - where the kernel has the in-tree /proc/<pid>/stackinfo
 *    (CONFIG_PROC_STACKINFO) its backend is tested first, as the reference
 *    the others are compared with; where it has none, that is said and
 *    the proc backend must be refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

static int backends[4], n_backends;
static struct maps maps;

static void find_backends(void)
{
	static const int order[] = { STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
				     STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS };
	int module = !access(STACKINFO_PROC_PATH, F_OK), b, err;
	int intree = !access("/proc/self/stackinfo", F_OK);
	struct utsname u;
	int major = 0, minor = 0;
	size_t i;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		b = order[i];
		err = stackinfo_set_backend(b);
		if (!err)
			backends[n_backends++] = b;
		else if (b == STACKINFO_BACKEND_PROC)
			CHECK(!intree && err == -EOPNOTSUPP, "proc backend: %s", strerror(-err));
		else if (b == STACKINFO_BACKEND_MODULE)
			CHECK(!module && err == -EOPNOTSUPP, "module backend: %s", strerror(-err));
		else if (b == STACKINFO_BACKEND_PROCMAP_QUERY)
			CHECK(major < 6 || (major == 6 && minor < 11),
			      "PROCMAP_QUERY refused on %s: %s", u.release, strerror(-err));
		else
			CHECK(0, "maps backend refused: %s", strerror(-err));
	}
	if (!intree)
		fprintf(stderr, "proc backend not tested: no /proc/self/stackinfo (a kernel without CONFIG_PROC_STACKINFO)\n");
	fprintf(stderr, "module %s; backends:", module ? "loaded" : "absent");
	for (b = 0; b < n_backends; b++)
		fprintf(stderr, " %s", stackinfo_backend_name(backends[b]));
	fputc('\n', stderr);
}

struct attrs {
	void *addr;
	size_t size, guard;
	int detach, policy, prio, cpus;
};

static int read_attr(pthread_attr_t *attr, struct attrs *a)
{
	struct sched_param p;
	cpu_set_t set;

	pthread_attr_getstack(attr, &a->addr, &a->size);
	pthread_attr_getguardsize(attr, &a->guard);
	pthread_attr_getdetachstate(attr, &a->detach);
	pthread_attr_getschedpolicy(attr, &a->policy);
	pthread_attr_getschedparam(attr, &p);
	a->prio = p.sched_priority;
	CPU_ZERO(&set);
	pthread_attr_getaffinity_np(attr, sizeof(set), &set);
	a->cpus = CPU_COUNT(&set);
	return pthread_attr_destroy(attr);
}

/* glibc and every backend on the main thread's stack, as things stand. */
static void check_getattr(const char *what)
{
	struct attrs g, s;
	pthread_attr_t attr;
	int i, ret;

	ret = pthread_getattr_np(pthread_self(), &attr);	/* glibc's */
	CHECK(!ret, "%s: glibc: %d", what, ret);
	if (ret)
		return;
	read_attr(&attr, &g);
	for (i = 0; i < n_backends; i++) {
		const char *b = stackinfo_backend_name(backends[i]);
		void *addr;
		size_t size;
		int err;

		stackinfo_set_backend(backends[i]);
		err = stackinfo_main_stack(&addr, &size);
		CHECK(!err && addr == g.addr && size == g.size,
		      "%s [%s]: main_stack %d %p+%#zx, glibc %p+%#zx", what, b,
		      err, addr, size, g.addr, g.size);
		ret = stackinfo_pthread_getattr_np(pthread_self(), &attr);
		CHECK(!ret, "%s [%s]: getattr %d", what, b, ret);
		if (ret)
			continue;
		read_attr(&attr, &s);
		CHECK(s.addr == g.addr && s.size == g.size && s.guard == g.guard,
		      "%s [%s]: getattr %p+%#zx guard %zu, glibc %p+%#zx guard %zu",
		      what, b, s.addr, s.size, s.guard, g.addr, g.size, g.guard);
		CHECK(s.detach == g.detach && s.policy == g.policy &&
		      s.prio == g.prio && s.cpus == g.cpus,
		      "%s [%s]: detach %d/%d policy %d/%d prio %d/%d cpus %d/%d",
		      what, b, s.detach, g.detach, s.policy, g.policy, s.prio,
		      g.prio, s.cpus, g.cpus);
	}
}

static uintptr_t stack_vma_start(void)
{
	size_t i;

	maps_read(&maps, 0);
	for (i = 0; i < maps.n; i++)
		if (!strcmp(maps.v[i].name, "[stack]"))
			return maps.v[i].start;
	return 0;
}

static void check_layouts(void)
{
	static const long below[] = { -1, 0, 16 << 10, 512 << 10, 4 << 20, 32 << 20 };
	static const rlim_t limits[] = { 8 << 20, 20 << 10, 64 << 10, (1 << 20) + 123,
					 100 << 20, RLIM_INFINITY };
	long page = sysconf(_SC_PAGESIZE);
	struct rlimit saved, rl;
	size_t b, l;
	char what[96];

	getrlimit(RLIMIT_STACK, &saved);
	for (b = 0; b < 2 * sizeof(below) / sizeof(below[0]); b++) {
		long gap = below[b % (sizeof(below) / sizeof(below[0]))];
		int prot = b < sizeof(below) / sizeof(below[0]) ? PROT_READ : PROT_NONE;
		void *at = NULL;

		if (gap < 0 && prot == PROT_NONE)
			continue;	/* "none" once */
		if (gap >= 0) {
			at = (void *)(stack_vma_start() - gap - page);
			CHECK(mmap(at, page, prot, MAP_PRIVATE | MAP_ANONYMOUS |
				   MAP_FIXED_NOREPLACE, -1, 0) == at,
			      "map %ld below the stack: %s", gap, strerror(errno));
		}
		for (l = 0; l < sizeof(limits) / sizeof(limits[0]); l++) {
			rl = saved;
			rl.rlim_cur = limits[l];
			if (rl.rlim_cur > rl.rlim_max)
				continue;
			CHECK(!setrlimit(RLIMIT_STACK, &rl), "setrlimit: %s", strerror(errno));
			snprintf(what, sizeof(what), "%s below %ld, rlimit %llu",
				 prot == PROT_NONE ? "PROT_NONE" : "readable", gap,
				 (unsigned long long)limits[l]);
			check_getattr(what);
			setrlimit(RLIMIT_STACK, &saved);
		}
		if (at)
			munmap(at, page);
	}
}

/* the main stack grown by @depth more KiB, then glibc against every backend */
static __attribute__((noinline)) void check_grown(int depth)
{
	volatile char frame[1024];

	frame[0] = (char)depth;
	if (depth > 0)
		check_grown(depth - 1);
	else
		check_getattr("after the stack grew by 1 MiB");
	frame[1] = frame[0];
}

/*
 * An unlimited RLIMIT_STACK at exec: the kernel lays the mappings out
 * bottom-up (mmap_is_legacy()), and glibc's and the library's answers
 * must still agree there: this program again, exec'd so, in a child.
 */
static void check_exec_unlimited(const char *self)
{
	struct rlimit rl;
	pid_t pid;
	int status;

	getrlimit(RLIMIT_STACK, &rl);
	if (rl.rlim_max != RLIM_INFINITY) {
		printf("info: no unlimited RLIMIT_STACK to exec with (max %llu)\n",
		       (unsigned long long)rl.rlim_max);
		return;
	}
	pid = fork();
	if (pid == 0) {
		rl.rlim_cur = RLIM_INFINITY;
		setrlimit(RLIMIT_STACK, &rl);
		execl(self, self, "--exec-unlimited", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0,
	      "exec'd with an unlimited RLIMIT_STACK: status %#x", status);
}

/* ---- stackinfo_query_thread(): every backend tells the same ---- */

static void same_query(const char *what, const char *b,
		       const struct stackinfo_query *ref, const struct stackinfo_query *got)
{
	struct stackinfo_query rv = *ref, qv = *got;
	const struct stackinfo_query *r = &rv, *q = &qv;
	const uint64_t vma_mask = ~(uint64_t)STACKINFO_VMA_GROWSDOWN;
	const uint64_t groups = STACKINFO_VALID_THREAD | STACKINFO_VALID_START_STACK |
		STACKINFO_VALID_MAIN_VMA | STACKINFO_VALID_MAIN_PREV |
		STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA |
		STACKINFO_VALID_SP_PREV | STACKINFO_VALID_SP_GUARD |
		STACKINFO_VALID_RLIMIT;

	/* PROCMAP_QUERY's rule for the VMA below the main stack, on the other side */
	if (STACKINFO_LIB_ANSWERED_BY(q) == STACKINFO_BACKEND_PROCMAP_QUERY &&
	    STACKINFO_LIB_ANSWERED_BY(r) != STACKINFO_BACKEND_PROCMAP_QUERY)
		t_procmap_view(&rv);
	if (STACKINFO_LIB_ANSWERED_BY(r) == STACKINFO_BACKEND_PROCMAP_QUERY &&
	    STACKINFO_LIB_ANSWERED_BY(q) != STACKINFO_BACKEND_PROCMAP_QUERY)
		t_procmap_view(&qv);
	CHECK((q->valid & groups) == (r->valid & groups), "%s [%s]: valid %#llx, want %#llx",
	      what, b, (unsigned long long)q->valid, (unsigned long long)r->valid);
	CHECK(q->out_tid == r->out_tid && q->tgid == r->tgid &&
	      ((q->thread_flags ^ r->thread_flags) & ~STACKINFO_THREAD_USER_MASK) == 0,
	      "%s [%s]: thread", what, b);
	CHECK(q->start_stack == r->start_stack && q->main_vma_start == r->main_vma_start &&
	      q->main_vma_end == r->main_vma_end &&
	      (q->main_vma_flags & vma_mask) == (r->main_vma_flags & vma_mask) &&
	      q->main_prev_end == r->main_prev_end, "%s [%s]: main stack", what, b);
	CHECK(q->sp_vma_start == r->sp_vma_start && q->sp_vma_end == r->sp_vma_end &&
	      (q->sp_vma_flags & vma_mask) == (r->sp_vma_flags & vma_mask) &&
	      q->sp_prev_end == r->sp_prev_end, "%s [%s]: SP VMA %#llx-%#llx, want %#llx-%#llx",
	      what, b, (unsigned long long)q->sp_vma_start, (unsigned long long)q->sp_vma_end,
	      (unsigned long long)r->sp_vma_start, (unsigned long long)r->sp_vma_end);
	CHECK(q->sp_guard_start == r->sp_guard_start && q->sp_guard_end == r->sp_guard_end,
	      "%s [%s]: guard", what, b);
	CHECK(q->rlim_stack_cur == r->rlim_stack_cur &&
	      q->rlim_stack_max == r->rlim_stack_max, "%s [%s]: rlimit", what, b);
	if ((backends[0] == STACKINFO_BACKEND_MODULE || backends[0] == STACKINFO_BACKEND_PROC) &&
	    ref == got)
		CHECK(q->valid & STACKINFO_VALID_GUARD_GAP, "%s: %s: no guard gap", what, b);
}

/* Thread @tid (0: self) through every backend, against the first. */
static void check_backends(const char *what, pid_t tid)
{
	struct stackinfo_query r, q;
	int i, err;

	for (i = 0; i < n_backends; i++) {
		const char *b = stackinfo_backend_name(backends[i]);

		stackinfo_set_backend(backends[i]);
		err = stackinfo_query_thread(tid, 0, i ? &q : &r);
		CHECK(!err, "%s [%s]: %s", what, b, strerror(-err));
		if (err)
			return;
		same_query(what, b, &r, i ? &q : &r);
	}
	CHECK(r.valid & STACKINFO_VALID_SP_VMA, "%s: no SP VMA", what);
}

static pthread_barrier_t ready, done;
static pid_t peer_tid;

static void *peer(void *arg)
{
	(void)arg;
	peer_tid = t_gettid();
	check_backends("second thread, itself", 0);
	/* the main thread waits at the barrier; see that it sleeps */
	CHECK(!t_wait_sleeping(getpid()), "main thread never slept");
	check_backends("second thread, the main one", getpid());
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	void *extra;

	find_backends();
	if (!n_backends)
		return t_result();
	CHECK(stackinfo_backend() == backends[n_backends - 1], "set_backend did not stick");
	if (argc > 1 && !strcmp(argv[1], "--exec-unlimited")) {
		struct rlimit rl;

		getrlimit(RLIMIT_STACK, &rl);
		CHECK(rl.rlim_cur == RLIM_INFINITY, "exec'd with RLIMIT_STACK %llu",
		      (unsigned long long)rl.rlim_cur);
		check_getattr("exec'd with an unlimited RLIMIT_STACK");
		check_grown(1024);
		return t_result();
	}

	check_layouts();
	check_grown(1024);
	check_exec_unlimited(argv[0]);

	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&th, NULL, peer, NULL);
	pthread_barrier_wait(&ready);
	check_backends("main thread, itself", 0);
	/* /proc/<tid>/syscall shows the SP of a sleeping thread only */
	CHECK(!t_wait_sleeping(peer_tid), "second thread never slept");
	check_backends("main thread, the second", peer_tid);
	pthread_barrier_wait(&done);
	pthread_join(th, NULL);

	extra = map_many(3000);
	CHECK(extra, "map_many");
	check_backends("3000 mappings, main thread", 0);
	check_getattr("3000 mappings");
	unmap_many(extra, 3000);
	maps_free(&maps);
	return t_result();
}
