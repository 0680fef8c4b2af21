// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo_query_process(): every thread of a process in one call, on
 * each backend the kernel offers (the in-tree file's and the module's one
 * STACKINFO_IOC_QUERY_THREADS; PROCMAP_QUERY's and the maps parse's walk
 * of /proc/<pid>/task), held against the kernel in the same run:
 *  - the entries' tids are those /proc/<pid>/task lists, and each entry
 *    equals stackinfo_query_thread()'s answer for its tid on the same
 *    backend, the SP too for the threads that sleep (the caller's moves);
 *  - each entry's stack VMA, its guard and the main stack's VMA are the
 *    lines of /proc/<pid>/maps holding them;
 *  - for this process (pid 0, getpid(), a worker's tid) and for a child
 *    with four sleeping threads;
 *  - a short array (n 0 and NULL; one entry short): ERANGE, count the
 *    threads there are, the array untouched; bad input (NULL count, NULL
 *    array, any other flag, a negative pid): its errno, count untouched;
 *    no such process: ESRCH; errno is preserved;
 *  - as uid 1000, root's process is refused with stackinfo_query_thread()'s
 *    errno for its thread, count 0 (as root only).
 * A backend whose kernel file exists (/proc/stackinfo, /proc/self/stackinfo)
 * must answer. With --fallbacks only PROCMAP_QUERY and the maps parse are
 * tested (the host test process_fallback runs it so, on the host's kernel).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define WORKERS		3
#define MAX_TIDS	64

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* Wait until every thread of @pid but @except is in pause(): its tids' count. */
static int all_sleeping(pid_t pid, pid_t except, pid_t *tids)
{
	int n = t_task_tids(pid, tids, MAX_TIDS), i;

	for (i = 0; i < n; i++)
		if (tids[i] != except)
			CHECK(!t_wait_paused(tids[i]), "thread %d is not in pause()", (int)tids[i]);
	return n;
}

/* The lines of @pid's maps that hold what @e says. */
static void against_maps(const char *what, const struct stackinfo_query *e,
			 const struct maps *m)
{
	const struct maps_entry *v, *prev;
	char p[5];

	if (e->valid & STACKINFO_VALID_SP_VMA) {
		v = maps_find(m, e->sp, &prev);
		vma_flags_perms(e->sp_vma_flags, p);
		CHECK(v && v->start == e->sp_vma_start && v->end == e->sp_vma_end &&
		      !strcmp(v->perms, p), "%s: tid %u: sp_vma %llx-%llx %s, maps %llx-%llx %s",
		      what, e->out_tid, (unsigned long long)e->sp_vma_start,
		      (unsigned long long)e->sp_vma_end, p, v ? (unsigned long long)v->start : 0,
		      v ? (unsigned long long)v->end : 0, v ? v->perms : "-");
		if (v && (e->valid & STACKINFO_VALID_SP_GUARD))
			CHECK(prev && prev->start == e->sp_guard_start &&
			      prev->end == e->sp_guard_end && !strncmp(prev->perms, "---", 3),
			      "%s: tid %u: guard %llx-%llx", what, e->out_tid,
			      (unsigned long long)e->sp_guard_start,
			      (unsigned long long)e->sp_guard_end);
	}
	if (e->valid & STACKINFO_VALID_MAIN_VMA) {
		v = maps_find(m, e->start_stack, NULL);
		CHECK(v && v->start == e->main_vma_start && v->end == e->main_vma_end,
		      "%s: tid %u: main_vma %llx-%llx", what, e->out_tid,
		      (unsigned long long)e->main_vma_start, (unsigned long long)e->main_vma_end);
	}
}

/*
 * One batch of process @pid (asked as @ask), compared: the tids, each
 * entry with the single query, each with maps (the caller's own thread,
 * whose SP moves, with all but its SP).
 */
static void one_process(const char *bname, const char *what, pid_t pid, pid_t ask)
{
	struct stackinfo_query q[MAX_TIDS], one;
	pid_t tids[MAX_TIDS];
	struct maps m = { 0 };
	size_t count = 0, i;
	int n, err, k;

	n = all_sleeping(pid, gettid(), tids);
	err = stackinfo_query_process(ask, 0, q, MAX_TIDS, &count);
	CHECK(!err, "%s, %s: %s", bname, what, strerror(-err));
	if (err)
		return;
	CHECK(count == (size_t)n, "%s, %s: %zu entries, /proc lists %d threads", bname, what,
	      count, n);
	CHECK(!maps_read(&m, pid), "%s, %s: maps", bname, what);
	for (i = 0; i < count; i++) {
		const struct stackinfo_query *e = &q[i];
		bool self = e->out_tid == (uint32_t)gettid();
		char why[128];

		for (k = 0; k < n && tids[k] != (pid_t)e->out_tid; k++)
			;
		CHECK(k < n, "%s, %s: tid %u is not in /proc's list", bname, what, e->out_tid);
		CHECK(e->tid == e->out_tid && e->tgid == (uint32_t)pid, "%s, %s: tid %u/%u tgid %u",
		      bname, what, e->tid, e->out_tid, e->tgid);
		CHECK(STACKINFO_LIB_ANSWERED_BY(e) == stackinfo_backend(),
		      "%s, %s: tid %u answered by %d", bname, what, e->out_tid,
		      STACKINFO_LIB_ANSWERED_BY(e));
		err = stackinfo_query_thread((pid_t)e->out_tid, 0, &one);
		CHECK(!err, "%s, %s: single query of %u: %s", bname, what, e->out_tid,
		      strerror(-err));
		/*
		 * this process maps and unmaps between two calls (malloc, and
		 * ASan's allocator): its count is the child's to compare
		 */
		if (!err && pid == getpid())
			one.map_count = e->map_count;
		if (!err)
			CHECK(t_query_same(e, &one, self ? T_CMP_NO_SP : 0, why, sizeof(why)),
			      "%s, %s: tid %u: batch vs single: %s", bname, what, e->out_tid, why);
		against_maps(bname, e, &m);
		/* every thread is on a stack the kernel can name and has a guard below */
		CHECK(e->valid & STACKINFO_VALID_SP_VMA, "%s, %s: tid %u: no SP VMA (valid %#llx)",
		      bname, what, e->out_tid, (unsigned long long)e->valid);
	}
	maps_free(&m);
}

/* The short-array and bad-input rules, about process @pid. */
static void bad_input(const char *bname, pid_t pid)
{
	struct stackinfo_query q[MAX_TIDS], pattern;
	pid_t tids[MAX_TIDS];
	size_t count;
	int n = t_task_tids(pid ? pid : getpid(), tids, MAX_TIDS), err, i;
	const uint64_t flags[] = { STACKINFO_LIB_ASYNC_SAFE, STACKINFO_QUERY_PROOF_FD,
				   STACKINFO_QUERY_ADDR, 1ULL << 20 };

	memset(&pattern, 0xa5, sizeof(pattern));
	count = 12345;
	errno = EDOM;
	err = stackinfo_query_process(pid, 0, NULL, 0, &count);
	CHECK(err == -ERANGE && count == (size_t)n && errno == EDOM,
	      "%s: n 0: %d count %zu (%d threads) errno %d", bname, err, count, n, errno);
	for (i = 0; i < n; i++)
		q[i] = pattern;
	count = 12345;
	err = stackinfo_query_process(pid, 0, q, n - 1, &count);
	CHECK(err == -ERANGE && count == (size_t)n, "%s: one short: %d count %zu", bname, err,
	      count);
	for (i = 0; i < n; i++)
		CHECK(!memcmp(&q[i], &pattern, sizeof(pattern)), "%s: one short: entry %d written",
		      bname, i);
	count = 0;
	err = stackinfo_query_process(pid, 0, q, n, &count);
	CHECK(!err && count == (size_t)n, "%s: exactly n: %d count %zu", bname, err, count);

	errno = EDOM;
	CHECK(stackinfo_query_process(pid, 0, q, n, NULL) == -EFAULT && errno == EDOM,
	      "%s: NULL count", bname);
	count = 12345;
	CHECK(stackinfo_query_process(pid, 0, NULL, 1, &count) == -EFAULT && count == 12345,
	      "%s: NULL array", bname);
	for (i = 0; i < (int)(sizeof(flags) / sizeof(flags[0])); i++) {
		count = 12345;
		err = stackinfo_query_process(pid, flags[i], q, n, &count);
		CHECK(err == -EINVAL && count == 12345, "%s: flags %#llx: %d count %zu", bname,
		      (unsigned long long)flags[i], err, count);
	}
	count = 12345;
	err = stackinfo_query_process(-1, 0, q, n, &count);
	CHECK(err == -ESRCH && count == 12345, "%s: pid -1: %d count %zu", bname, err, count);
}

/* A pid nothing has: a child's, reaped. */
static void no_such(const char *bname)
{
	struct stackinfo_query q[4], one;
	pid_t pid = fork();
	size_t count = 12345;
	int err, single;

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	err = stackinfo_query_process(pid, 0, q, 4, &count);
	single = stackinfo_query_thread(pid, 0, &one);
	CHECK(err == -ESRCH && count == 0 && single == err,
	      "%s: no such process %d: %d count %zu, single %d", bname, (int)pid, err, count,
	      single);
}

struct refused {
	const char *bname;
	pid_t pid;
};

/* As uid 1000: root's process, refused as its thread is refused. */
static void refused_child(void *arg)
{
	const struct refused *r = arg;
	struct stackinfo_query q[MAX_TIDS], one;
	size_t count = 12345;
	int err, single;

	t_become_user(1000);
	err = stackinfo_query_process(r->pid, 0, q, MAX_TIDS, &count);
	single = stackinfo_query_thread(r->pid, 0, &one);
	CHECK(err && err != -ERANGE && err == single && count == 0,
	      "%s: root's process as uid 1000: %d (%s) count %zu, single %d (%s)", r->bname,
	      err, strerror(-err), count, single, strerror(-single));
}

int main(int argc, char **argv)
{
	static const int backends[] = {
		STACKINFO_BACKEND_PROC, STACKINFO_BACKEND_MODULE,
		STACKINFO_BACKEND_PROCMAP_QUERY, STACKINFO_BACKEND_MAPS,
	};
	bool fallbacks = argc > 1 && !strcmp(argv[1], "--fallbacks");
	pthread_t th[WORKERS];
	pid_t child, tids[MAX_TIDS], a_worker = 0;
	int i, n, b, err, tested = 0;

	/*
	 * the child first, forked while this process has one thread: its
	 * own threads then start as in any process (ASan's runtime, forked
	 * while other threads hold its locks, may leave them spinning)
	 */
	child = t_spawn_threaded(WORKERS);
	CHECK(child > 0, "fork");
	for (i = 0; i < WORKERS; i++)
		CHECK(!pthread_create(&th[i], NULL, sleeper, NULL), "pthread_create");
	n = t_task_tids(getpid(), tids, MAX_TIDS);
	for (i = 0; i < n; i++)
		if (tids[i] != getpid())
			a_worker = tids[i];
	for (i = 0; i < (int)(sizeof(backends) / sizeof(backends[0])); i++) {
		const char *bname = stackinfo_backend_name(backends[i]);
		bool must = (backends[i] == STACKINFO_BACKEND_MODULE &&
			     !access(STACKINFO_PROC_PATH, F_OK)) ||
			    (backends[i] == STACKINFO_BACKEND_PROC &&
			     !access("/proc/self/stackinfo", F_OK)) ||
			    backends[i] == STACKINFO_BACKEND_MAPS;

		b = backends[i];
		if (fallbacks && b != STACKINFO_BACKEND_PROCMAP_QUERY && b != STACKINFO_BACKEND_MAPS)
			continue;
		err = stackinfo_set_backend(b);
		if (err) {
			CHECK(!must, "%s: %s, though the kernel has it", bname, strerror(-err));
			printf("info: %s: %s\n", bname, strerror(-err));
			continue;
		}
		tested++;
		one_process(bname, "pid 0", getpid(), 0);
		one_process(bname, "getpid()", getpid(), getpid());
		one_process(bname, "a worker's tid", getpid(), a_worker);
		if (child > 0)
			one_process(bname, "a child", child, child);
		bad_input(bname, 0);
		if (child > 0)
			bad_input(bname, child);
		no_such(bname);
		if (!geteuid() && child > 0) {
			struct refused r = { bname, child };

			t_in_child_arg(bname, refused_child, &r);
		}
		printf("info: %s: %d threads here, %d in the child\n", bname, n, WORKERS + 1);
	}
	CHECK(tested, "no backend tested");
	t_reap(child);
	return t_result();
}
