// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library's handles (stackinfo_handle_open() and its queries), on every
 * backend this kernel offers:
 *  - each answer through a handle is the library's own without one, for
 *    the caller, a sleeping thread of this process, a child's thread (and
 *    an unmapped address classified), and every thread in one batch, of
 *    this process and of the child; the main stack it gives by glibc's
 *    formula is glibc's own pthread_getattr_np()'s (glibc's build), and
 *    its layout is /proc/self/maps's;
 *  - on the module, the handle's answer is the raw ioctl's on a file of
 *    the test's own;
 *  - a handle is one fd, opened by stackinfo_handle_open() and closed by
 *    stackinfo_handle_close(); many threads may ask through one;
 *  - in a fork()ed child a handle that keeps this process's file
 *    (in-tree, PROCMAP_QUERY, maps) says ECHILD, a module handle answers
 *    the child;
 *  - bad input changes nothing: NULL handle or pointers EFAULT, flags,
 *    STACKINFO_LIB_ASYNC_SAFE and bad sizes EINVAL, errno kept.
 * Built with ASan and UBSan too (lib_handle_san).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

extern void *__libc_stack_end;

static const int backends[] = {
	STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
	STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS,
};

static volatile pid_t worker_tid;

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = t_gettid();
	for (;;)
		pause();
	return NULL;
}

/* the answer through @h and without it, for @tid (@addr: classified) */
static void same(struct stackinfo_handle *h, const char *b, const char *who, pid_t tid,
		 const uint64_t *addr)
{
	struct stackinfo_query with, without;
	/* the caller's own SP moves between two calls */
	unsigned int how = tid && tid != t_gettid() ? 0 : T_CMP_NO_SP;
	int e1, e2;

	if (addr) {
		e1 = stackinfo_handle_classify_addr(h, tid, *addr, 0, &with);
		e2 = stackinfo_classify_addr(tid, *addr, 0, &without);
	} else {
		e1 = stackinfo_handle_query(h, tid, 0, &with);
		e2 = stackinfo_query_thread(tid, 0, &without);
	}
	CHECK(e1 == e2, "%s, %s: through the handle %d, without %d", b, who, e1, e2);
	if (!e1 && !e2)
		CHECK_SAME(&with, &without, how, b, who);
	if (!e1 && addr)
		CHECK(with.addr == *addr && (with.valid & STACKINFO_VALID_ADDR) ==
		      (without.valid & STACKINFO_VALID_ADDR) && with.addr_class == without.addr_class,
		      "%s, %s: the class %u, without the handle %u", b, who, with.addr_class,
		      without.addr_class);
}

static void same_batch(struct stackinfo_handle *h, const char *b, const char *who, pid_t pid)
{
	struct stackinfo_query with[16], without[16];
	size_t n1 = 0, n2 = 0, i;
	int e1 = stackinfo_handle_query_process(h, pid, 0, with, 16, &n1);
	int e2 = stackinfo_query_process(pid, 0, without, 16, &n2);

	CHECK(e1 == e2 && n1 == n2, "%s, %s: the batch %d (%zu), without the handle %d (%zu)",
	      b, who, e1, n1, e2, n2);
	for (i = 0; !e1 && !e2 && i < n1 && i < n2; i++)
		CHECK_SAME(&with[i], &without[i],
			   with[i].thread_flags & STACKINFO_THREAD_SELF ? T_CMP_NO_SP : 0, b, who);
}

/* the main stack glibc's formula gives from @q, against glibc's own call */
static void against_glibc(const struct stackinfo_query *q, const char *b)
{
#if defined(__GLIBC__) && !defined(T_STATIC)
	t_getattr_fn glibc = t_glibc_getattr();
	uint64_t lo, size;
	pthread_attr_t a;
	size_t gs;
	void *ga;

	if (!glibc || !(q->valid & STACKINFO_VALID_MAIN_VMA) || !(q->valid & STACKINFO_VALID_RLIMIT))
		return;
	stackinfo_glibc_main_stack((uintptr_t)__libc_stack_end, q->main_vma_end,
				   q->valid & STACKINFO_VALID_MAIN_PREV ? q->main_prev_end : 0,
				   q->rlim_stack_cur, sysconf(_SC_PAGESIZE), &lo, &size);
	CHECK(!glibc(pthread_self(), &a), "%s: glibc's pthread_getattr_np", b);
	pthread_attr_getstack(&a, &ga, &gs);
	pthread_attr_destroy(&a);
	CHECK((uintptr_t)ga == lo && gs == size, "%s: the handle's main stack %#llx+%#llx, glibc's %p+%#zx",
	      b, (unsigned long long)lo, (unsigned long long)size, ga, gs);
#else
	(void)q;
	(void)b;
#endif
}

static void *ask_many(void *arg)
{
	struct stackinfo_handle *h = arg;
	struct stackinfo_query q;
	int i, bad = 0;

	for (i = 0; i < 200; i++)
		if (stackinfo_handle_query(h, 0, 0, &q) || q.out_tid != (uint32_t)t_gettid())
			bad++;
	return (void *)(intptr_t)bad;
}

static void in_child(struct stackinfo_handle *h, int backend, const char *b)
{
	struct stackinfo_query q;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!pid) {
		int err = stackinfo_handle_query(h, 0, 0, &q);

		if (backend == STACKINFO_BACKEND_MODULE)
			_exit(!err && q.tgid == (uint32_t)getpid() ? 0 : 1);
		_exit(err == -ECHILD ? 0 : 2);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "%s: a fork()ed child's query through the handle: status %#x",
	      b, status);
}

static void on_backend(int backend, pid_t child, pid_t child_worker)
{
	const char *b = stackinfo_backend_name(backend);
	struct stackinfo_handle *h = NULL;
	struct stackinfo_query q, raw;
	int fds = t_count_fds(), err, i;
	uint64_t unmapped = 4096, local = (uintptr_t)&err;
	pthread_t th[4];
	struct maps m = { 0 };

	err = stackinfo_handle_open(0, &h);
	CHECK(!err && h, "%s: stackinfo_handle_open: %s", b, strerror(-err));
	if (err)
		return;
	CHECK(stackinfo_handle_backend(h) == backend, "%s: the handle's backend %d", b,
	      stackinfo_handle_backend(h));
	CHECK(t_count_fds() == fds + 1, "%s: the handle keeps %d fds, not one", b,
	      t_count_fds() - fds);
	same(h, b, "the caller", 0, NULL);
	same(h, b, "the caller by number", t_gettid(), NULL);
	same(h, b, "a sleeping thread", worker_tid, NULL);
	same(h, b, "the caller, its own frame classified", 0, &local);
	same(h, b, "a page never mapped, classified", 0, &unmapped);
	if (child > 0) {
		same(h, b, "a child", child, NULL);
		same(h, b, "a child's thread", child_worker, NULL);
		same_batch(h, b, "the child's threads", child);
	}
	same_batch(h, b, "this process's threads", 0);

	/* against the kernel: maps, the raw ioctl, glibc */
	err = stackinfo_handle_query(h, 0, STACKINFO_QUERY_NO_SP, &q);
	CHECK(!err, "%s: no SP: %s", b, strerror(-err));
	if (!err && !maps_read(&m, 0)) {
		t_layout_against_maps(b, &q, &m);
		maps_free(&m);
	}
	if (!err)
		against_glibc(&q, b);
	if (backend == STACKINFO_BACKEND_MODULE) {
		int fd = si_open();

		memset(&raw, 0, sizeof(raw));
		raw.size = sizeof(raw);
		raw.tid = (uint32_t)worker_tid;
		CHECK(fd >= 0 && !ioctl(fd, STACKINFO_IOC_QUERY, &raw), "the raw ioctl");
		err = stackinfo_handle_query(h, worker_tid, 0, &q);
		raw.thread_flags |= STACKINFO_LIB_BACKEND_FLAGS(backend);
		CHECK(!err, "%s: the worker: %s", b, strerror(-err));
		if (!err)
			CHECK_SAME(&q, &raw, 0, b, "the handle against the raw ioctl");
		if (fd >= 0)
			close(fd);
	}

	/* many threads through one handle, each about itself */
	for (i = 0; i < 4; i++)
		CHECK(!pthread_create(&th[i], NULL, ask_many, h), "a thread");
	for (i = 0; i < 4; i++) {
		void *bad;

		pthread_join(th[i], &bad);
		CHECK(!bad, "%s: %ld of 200 queries through a shared handle wrong", b,
		      (long)(intptr_t)bad);
	}
	in_child(h, backend, b);

	/* bad input */
	errno = 4242;
	memset(&q, 0xa5, sizeof(q));
	memcpy(&raw, &q, sizeof(q));
	CHECK(stackinfo_handle_query(h, 0, 1ULL << 40, &q) == -EINVAL, "%s: an unknown flag", b);
	CHECK(stackinfo_handle_query(h, 0, STACKINFO_LIB_ASYNC_SAFE, &q) == -EINVAL,
	      "%s: STACKINFO_LIB_ASYNC_SAFE", b);
	CHECK(stackinfo_handle_query_sz(h, 0, 0, &q, 100) == -EINVAL, "%s: a short struct", b);
	CHECK(stackinfo_handle_query_sz(h, 0, 0, &q, 172) == -EINVAL, "%s: an odd size", b);
	CHECK(stackinfo_handle_query(h, 0, 0, NULL) == -EFAULT, "%s: a NULL struct", b);
	CHECK(stackinfo_handle_query(h, -1, 0, &q) == -ESRCH, "%s: tid -1", b);
	CHECK(!memcmp(&q, &raw, sizeof(q)), "%s: bad input wrote to the struct", b);
	CHECK(errno == 4242, "%s: errno %d after the calls", b, errno);
	stackinfo_handle_close(h);
	CHECK(t_count_fds() == fds, "%s: %d fds after the close, %d before", b, t_count_fds(),
	      fds);
}

int main(void)
{
	struct stackinfo_handle *h = (void *)1;
	struct stackinfo_query q;
	pthread_t w;
	pid_t child, child_worker = 0;
	size_t count = 7, i;
	pid_t tids[8];

	CHECK(stackinfo_handle_open(1, &h) == -EINVAL && h == (void *)1, "open: a flag");
	CHECK(stackinfo_handle_open(0, NULL) == -EFAULT, "open: NULL");
	CHECK(stackinfo_handle_query(NULL, 0, 0, &q) == -EFAULT, "query: NULL handle");
	CHECK(stackinfo_handle_query_process(NULL, 0, 0, &q, 1, &count) == -EFAULT && !count,
	      "batch: NULL handle");
	CHECK(stackinfo_handle_backend(NULL) == -EFAULT, "backend: NULL handle");
	stackinfo_handle_close(NULL);

	if (pthread_create(&w, NULL, worker, NULL))
		return 1;
	while (!worker_tid)
		usleep(1000);
	t_wait_sleeping(worker_tid);
	child = t_spawn_threaded(2);
	if (child > 0 && t_task_tids(child, tids, 8) == 3) {
		child_worker = tids[0] == child ? tids[1] : tids[0];
		/* each blocked, so that its SP stays between two answers */
		for (i = 0; i < 3; i++)
			t_wait_sleeping(tids[i]);
	}
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		if (!t_backend_offered(backends[i]))
			continue;
		CHECK(!stackinfo_set_backend(backends[i]), "%s: refused",
		      stackinfo_backend_name(backends[i]));
		on_backend(backends[i], child, child_worker);
	}
	if (child > 0)
		t_reap(child);
	return t_result();
}
