// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rmmod while queries are blocked in the module: a child process C holds
 * its own mmap_lock for writing for milliseconds at a time (a writer
 * thread mprotect()s a large populated range back and forth) while its
 * other threads sleep; querier threads of this process ask the module
 * about C's threads, one at a time and in batches, so that most queries
 * sleep on C's mmap_lock inside the module's ioctl. Meanwhile the module
 * is unloaded (delete_module) and loaded again, over and over.
 *
 * procfs waits for the calls in flight before the entry goes (rmmod
 * returns after them), so a query that was in flight when an rmmod began
 * must still end in a full answer about the thread it asked for (its
 * tgid, tid, and main stack as /proc/C/maps has it), and
 * after the removal an ioctl on an old fd gets ENOTTY, procfs's answer for
 * a removed entry; nothing else. KASAN and lockdep watch the module's
 * code and data in flight across its unload. The test counts the queries
 * and batches that were blocked (1 ms or more) across the start of an
 * rmmod and answered, and fails below a minimum of each: a run that never
 * unloaded under a sleeping query proves nothing. It runs until the
 * minimums are met (race.h: the cap, its progress in the log), and
 * leaves the module loaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "race.h"
#include "testutil.h"

#define REGION		(64UL << 20)
#define NSLEEPERS	4
#define NQUERIERS	2
#define MIN_BLOCKED	3	/* single queries answered across an rmmod's start */
#define MIN_BATCHES	2	/* batches answered across an rmmod's start */
#define MIN_UNLOADS	5

static pid_t c_pid;
/* C's main stack, as the kernel's /proc/C/maps has it: every answer's */
static uint64_t c_stack_start, c_stack_end;
static pid_t c_tids[NSLEEPERS + 2];
static int c_ntids;
static atomic_bool stop;
/* rmmods begun; queries read it before and after their ioctl */
static atomic_ulong unloads_begun;
static atomic_ulong answers, gone, bad;
/* the cases (race.h): T_RACE_INC, read with relaxed loads */
static unsigned long blocked_answers, batch_answers;

/*
 * C: sleeping threads, and its main thread holding mmap_lock for writing;
 * a byte on @ready once they are all there (it populates 64 MiB first: on
 * a KCSAN guest beside a CPU hog it still had one thread after 30 s)
 */
static void child(int ready)
{
	char *region, c = 'r';
	pthread_t th;
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (region == MAP_FAILED)
		_exit(1);
	for (i = 0; i < NSLEEPERS; i++)
		if (pthread_create(&th, NULL, t_pause_forever, NULL))
			_exit(1);
	if (write(ready, &c, 1) != 1)
		_exit(1);
	close(ready);
	for (;;) {
		mprotect(region, REGION, PROT_READ);
		mprotect(region, REGION, PROT_READ | PROT_WRITE);
	}
}

/* one query or batch about C on @fd; its result counted; false: reopen */
static bool ask(int fd, bool batch, unsigned int turn)
{
	struct stackinfo_query q[NSLEEPERS + 2];
	struct stackinfo_threads t;
	unsigned long begun = atomic_load(&unloads_begun);
	double start = t_now();
	int ret, err, i;
	bool ok = true;

	if (batch) {
		memset(&t, 0, sizeof(t));
		t.size = sizeof(t);
		t.pid = c_pid;
		t.count = NSLEEPERS + 2;
		t.entries = (uintptr_t)q;
		t.entry_size = sizeof(q[0]);
		t.proof_fd = -1;
		ret = ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &t);
	} else {
		t_query_fill(&q[0], sizeof(q[0]));
		q[0].tid = c_tids[turn % c_ntids];
		ret = ioctl(fd, STACKINFO_IOC_QUERY, &q[0]);
	}
	err = errno;
	if (ret && err == ENOTTY) {	/* the entry is gone: reopen */
		atomic_fetch_add(&gone, 1);
		return false;
	}
	if (ret) {
		fprintf(stderr, "FAIL: %s: errno %d\n", batch ? "batch" : "query", err);
		atomic_fetch_add(&bad, 1);
		return false;
	}
	for (i = 0; i < (batch ? (int)t.count : 1); i++)
		ok = ok && q[i].tgid == (uint32_t)c_pid &&
		     (q[i].valid & STACKINFO_VALID_MAIN_VMA) &&
		     q[i].main_vma_start == c_stack_start &&
		     q[i].main_vma_end == c_stack_end &&
		     (batch || q[i].out_tid == q[0].tid);
	if (!ok || (batch && t.count != (uint32_t)c_ntids)) {
		fprintf(stderr, "FAIL: %s: an answer not about C's threads (count %u)\n",
			batch ? "batch" : "query", batch ? t.count : 1);
		atomic_fetch_add(&bad, 1);
		return true;
	}
	atomic_fetch_add(&answers, 1);
	if (atomic_load(&unloads_begun) != begun && t_now() - start >= 1e-3)
		T_RACE_INC(*(batch ? &batch_answers : &blocked_answers));
	return true;
}

static void *querier(void *arg)
{
	unsigned int turn = 0;
	int fd = -1;

	while (!atomic_load(&stop)) {
		if (fd < 0) {
			fd = open("/proc/stackinfo", O_RDONLY);
			if (fd < 0) {	/* unloaded: until it is back */
				usleep(200);
				continue;
			}
		}
		/* one in four a batch; the first querier asks singly */
		if (!ask(fd, arg && turn % 4 == 0, turn)) {
			close(fd);
			fd = -1;
		}
		turn++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static bool loaded(void)
{
	return access("/proc/stackinfo", F_OK) == 0;
}

int main(void)
{
	pthread_t th[NQUERIERS];
	unsigned long unloads = 0;
	int i, ready[2];
	struct t_race r;
	char c;

	if (geteuid() != 0 || !loaded()) {
		fprintf(stderr, "SKIP: needs root and the module loaded\n");
		return 77;
	}
	if (access(T_MODULE_KO, R_OK)) {
		fprintf(stderr, "SKIP: no %s to load again\n", T_MODULE_KO);
		return 77;
	}
	if (pipe(ready))
		return 1;
	c_pid = fork();
	if (c_pid == 0) {
		close(ready[0]);
		child(ready[1]);
	}
	CHECK(c_pid > 0, "fork: %s", strerror(errno));
	close(ready[1]);
	/* C's threads, once it says they are there: its main thread (the writer) and the sleepers */
	if (c_pid <= 0 || read(ready[0], &c, 1) != 1) {
		CHECK(0, "C did not start");
		t_reap(c_pid);
		return t_result();
	}
	close(ready[0]);
	c_ntids = t_task_tids(c_pid, c_tids, NSLEEPERS + 2);
	CHECK(c_ntids == NSLEEPERS + 1, "C has %d threads", c_ntids);
	if (c_ntids != NSLEEPERS + 1) {
		t_reap(c_pid);
		return t_result();
	}
	CHECK(!maps_stack(c_pid, &c_stack_start, &c_stack_end), "no [stack] in /proc/%d/maps",
	      (int)c_pid);

	for (i = 0; i < NQUERIERS; i++)
		pthread_create(&th[i], NULL, querier, i ? (void *)1 : NULL);
	t_race_begin(&r, "rmmod under blocked queries", 0);
	t_race_case(&r, "unloads", &unloads, MIN_UNLOADS);
	t_race_case(&r, "queries answered across an rmmod's start after blocking",
		    &blocked_answers, MIN_BLOCKED);
	t_race_case(&r, "batches so", &batch_answers, MIN_BATCHES);
	while (!atomic_load(&bad) && t_race_more(&r)) {
		int err;

		usleep(20000 + rand() % 30000);	/* queries pile up on C's lock */
		atomic_fetch_add(&unloads_begun, 1);
		err = syscall(SYS_delete_module, "stackinfo", O_NONBLOCK) ? errno : 0;
		CHECK(!err, "delete_module: %s", strerror(err));
		if (err)
			break;
		unloads++;
		CHECK(!loaded(), "/proc/stackinfo still there after rmmod");
		err = -t_module_load("");
		CHECK(!err, "finit_module: %s", strerror(err));
		if (err)
			break;
	}
	atomic_store(&stop, true);
	for (i = 0; i < NQUERIERS; i++)
		pthread_join(th[i], NULL);
	t_reap(c_pid);
	if (!loaded())
		CHECK(!t_module_load(""), "the module could not be loaded again");

	t_race_end(&r);
	printf("info: %lu answers, %lu ENOTTY after removal, %lu bad\n", atomic_load(&answers),
	       atomic_load(&gone), atomic_load(&bad));
	CHECK(!atomic_load(&bad), "%lu bad answers", atomic_load(&bad));
	return t_result();
}
