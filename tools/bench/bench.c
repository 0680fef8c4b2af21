// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo-bench: the cost of "where is this thread's stack?", every way,
 * in one run. Under TCG only the ratios within one run mean anything.
 *
 *   stackinfo-bench [--quick] [--rounds N] [--ratios-only [N]] [--scaling-only [N]]
 *                   [--getstack-only [N]]
 *
 * First, for each count of extra mappings, each way x getppid, timed in
 * rotating turns of one round each (N turns, 9 by default): the smallest,
 * median and largest ratio of the turns ("SCALE," lines; make bench draws
 * them). --scaling-only: that alone.
 *
 * Then the ratios the targets are stated in, each timed in alternating
 * rounds of this one process (TCG's speed drifts by 2x within seconds, so
 * only sides timed next to each other compare): every method quiet against
 * under an mmap/munmap churner, and one query thread against two at once
 * (µs per call of each). "RATIO," lines carry them. Where the module has
 * the lock-free path, "ioctl self, mmap_lock" is the same query with the
 * module parameter lockfree=N around its rounds: the locked path of the
 * same module in the same run. Where the kernel has the in-tree
 * /proc/<pid>/stackinfo (CONFIG_PROC_STACKINFO), its queries too, against
 * the module's: own thread, another process, and every thread of a
 * process of 1 000 (task/<tid>/stackinfo against task/<tid>/maps).
 *
 * The last of those ratios: pthread_getstack_np() about the main thread on
 * each backend and about another thread, against getppid and glibc's
 * pthread_getattr_np() about the same thread, at 0 and 3000 extra
 * mappings ("RATIO,getstack" lines; --getstack-only: that alone).
 *
 * --ratios-only: those ratios alone.
 *
 * Last, µs per call as the median of --rounds rounds (5), each way in turn,
 * not alternating, for each of several mapping counts, SysV shm sizes, and
 * with or without a thread churning mmap/munmap: a table per configuration
 * and "CSV," lines (make bench's bench.csv).
 *
 * --quick: one small configuration; checks that every method answers, and
 * answers right, and measures nothing (make check's smoke test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"
#include "libstackinfo.h"

#define PRELOAD "/usr/lib/libstackinfo-preload.so"
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum method {
	M_NULL, M_IOCTL_REJECT, M_GLIBC_MAIN, M_GLIBC_OTHER, M_LIB_MODULE,
	M_LIB_PROCMAP, M_LIB_MAPS, M_IOCTL_SELF, M_IOCTL_OTHER, M_PROC_READ,
	M_TRACER_MAPS, M_INTERPOSED_MAIN, M_INTERPOSED_OTHER, M_IOCTL_DEVNULL,
	M_LIB_SELF, M_LIB_HANDLE,
	M_NR
};

static const char *const names[M_NR] = {
	"getppid (floor)", "ioctl rejected (floor)", "glibc getattr main",
	"glibc getattr other", "lib module", "lib procmap_query", "lib maps",
	"ioctl self", "ioctl other thread", "read /proc/stackinfo",
	"tracer: parse maps", "interposed getattr main",
	"interposed getattr other", "ioctl on /dev/null (floor)",
	"lib query self, module", "lib handle query, module",
};
static const char *const keys[M_NR] = {
	"null", "ioctl_reject", "glibc_main", "glibc_other", "lib_module",
	"lib_procmap", "lib_maps", "ioctl_self", "ioctl_other", "proc_read",
	"tracer_maps", "interposed_main", "interposed_other", "ioctl_devnull",
	"lib_self", "lib_handle",
};

static int fd = -1, devnull = -1, rounds = 5;

static int proc_open_mem(pid_t pid)
{
	char path[64];
	int m;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	m = open(path, O_RDONLY | O_CLOEXEC);
	if (m < 0) {
		perror(path);
		exit(1);
	}
	return m;
}
static pthread_t main_thread;
static pid_t other_tid;
static double result[M_NR];

static void die(const char *what)
{
	fprintf(stderr, "stackinfo-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- the methods: one call each, 0 on success ---- */

static int lib_main_stack(void)
{
	void *addr;
	size_t size;

	return stackinfo_main_stack(&addr, &size);
}

static int ioctl_query(pid_t tid)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = tid };

	return ioctl(fd, STACKINFO_IOC_QUERY, &q);
}

static int ioctl_reject(void)
{
	struct stackinfo_query q = { .size = 0 };

	return ioctl(fd, STACKINFO_IOC_QUERY, &q) == -1 && errno == EINVAL ? 0 : -1;
}

/*
 * The same ioctl on a character device with no ioctl at all (ENOTTY):
 * what any device node's ioctl costs before a driver's code runs, so
 * against ioctl_reject it prices procfs's own part (its in-use count).
 */
static int ioctl_devnull(void)
{
	struct stackinfo_query q = { .size = 0 };

	return ioctl(devnull, STACKINFO_IOC_QUERY, &q) == -1 &&
	       errno == ENOTTY ? 0 : -1;
}

static int proc_read(void)
{
	char buf[1024];

	return pread(fd, buf, sizeof(buf), 0) > 0 ? 0 : -1;
}

/* A tracer's way: read /proc/<pid>/maps, find the VMA holding an address. */
static int tracer_maps(void)
{
	static char buf[1 << 16];
	char path[64];
	ssize_t n;
	int mfd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)getpid());
	mfd = open(path, O_RDONLY | O_CLOEXEC);
	if (mfd < 0)
		return -1;
	while ((n = read(mfd, buf, sizeof(buf))) > 0)
		;
	close(mfd);
	return n < 0 ? -1 : 0;
}

/*
 * stackinfo_query_thread(0), and the same through a handle (opened at the
 * first call, on the module: the backend it is asked on)
 */
static int lib_self(void)
{
	struct stackinfo_query q;

	return stackinfo_query_thread(0, 0, &q);
}

static int lib_handle(void)
{
	static struct stackinfo_handle *h;
	struct stackinfo_query q;

	if (!h && stackinfo_handle_open(0, &h))
		return -1;
	return stackinfo_handle_query(h, 0, 0, &q);
}

static int call(enum method m)
{
	switch (m) {
	case M_NULL:
		return getppid() > 0 ? 0 : -1;
	case M_IOCTL_REJECT:
		return ioctl_reject();
	case M_GLIBC_MAIN:
	case M_INTERPOSED_MAIN:
		return bench_getattr(pthread_getattr_np, main_thread);
	case M_GLIBC_OTHER:
	case M_INTERPOSED_OTHER:
		return bench_getattr(pthread_getattr_np, pthread_self());
	case M_LIB_MODULE:
	case M_LIB_PROCMAP:
	case M_LIB_MAPS:
		return lib_main_stack();
	case M_IOCTL_SELF:
		return ioctl_query(0);
	case M_IOCTL_OTHER:
		return ioctl_query(other_tid);
	case M_PROC_READ:
		return proc_read();
	case M_TRACER_MAPS:
		return tracer_maps();
	case M_IOCTL_DEVNULL:
		return ioctl_devnull();
	case M_LIB_SELF:
		return lib_self();
	case M_LIB_HANDLE:
		return lib_handle();
	default:
		return -1;
	}
}

/* Median over rounds of µs per call; a round lasts >= 20 ms or 2000 calls. */
static double measure(enum method m)
{
	double v[32], t0, t;
	int r, i, j;
	long n;

	for (r = 0; r < rounds; r++) {
		n = 0;
		t0 = bench_now_us();
		do {
			if (call(m))
				die(names[m]);
			n++;
			t = bench_now_us() - t0;
		} while (t < 20000 && n < 2000);
		v[r] = t / n;
	}
	for (i = 1; i < rounds; i++)	/* insertion sort, tiny */
		for (j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[rounds / 2];
}

/* One round of @m on this thread: µs per call over >= @ms ms. */
static double timed_round(enum method m, double ms)
{
	double t0 = bench_now_us(), t;
	long n = 0;

	do {
		if (call(m))
			die(names[m]);
		n++;
		t = bench_now_us() - t0;
	} while (t < ms * 1000);
	return t / n;
}

/* ---- the other thread: parks, and measures what needs to run on it ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int job = -1;	/* method to measure on the other thread; -2 quits */
static double job_round_ms;	/* > 0: one timed_round() of it, not measure() */

static void *other(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	other_tid = gettid();
	pthread_cond_broadcast(&cond);
	for (;;) {
		while (job == -1)
			pthread_cond_wait(&cond, &lock);
		if (job == -2)
			break;
		result[job] = job_round_ms > 0 ? timed_round(job, job_round_ms) :
						 measure(job);
		job = -1;
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void on_other(enum method m)
{
	pthread_mutex_lock(&lock);
	job = m;
	pthread_cond_broadcast(&cond);
	while (job != -1)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

/* ---- the environment ---- */

static volatile int churning;

static void *churn(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)arg;
	while (churning) {
		void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, page);
	}
	return NULL;
}

static char *extra_base;
static long extra_n;

static void set_maps(long n)
{
	long page = sysconf(_SC_PAGESIZE), i;

	if (extra_base)
		munmap(extra_base, extra_n * page);
	extra_base = NULL;
	extra_n = n;
	if (!n)
		return;
	extra_base = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (extra_base == MAP_FAILED)
		die("mmap");
	for (i = 1; i < n; i += 2)	/* alternate: no merging */
		if (mprotect(extra_base + i * page, page, PROT_READ))
			die("mprotect");
}

static int shm_ids[64], shm_n;
static void *shm_at[64];

/* @gib GiB of SysV shm in 1 GiB segments, not reserved, attached. */
static void set_shm(long gib)
{
	while (shm_n > 0) {
		shm_n--;
		shmdt(shm_at[shm_n]);
		shmctl(shm_ids[shm_n], IPC_RMID, NULL);
	}
	for (; shm_n < gib && shm_n < 64; shm_n++) {
		shm_ids[shm_n] = shmget(IPC_PRIVATE, 1UL << 30,
					IPC_CREAT | 0600 | SHM_NORESERVE);
		if (shm_ids[shm_n] < 0)
			die("shmget");
		shm_at[shm_n] = shmat(shm_ids[shm_n], NULL, SHM_RDONLY);
		if (shm_at[shm_n] == (void *)-1)
			die("shmat");
	}
}

/* The interposed calls, measured in a child with LD_PRELOAD. */
static void measure_interposed(const char *self, long maps, long shm, int churn_on)
{
	char cmd[512], out[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "LD_PRELOAD=%s %s --child %ld %ld %d %d",
		 PRELOAD, self, maps, shm, churn_on, rounds);
	p = popen(cmd, "r");
	if (!p || !fgets(out, sizeof(out), p) ||
	    sscanf(out, "%lf %lf", &result[M_INTERPOSED_MAIN],
		   &result[M_INTERPOSED_OTHER]) != 2)
		die("interposed child");
	pclose(p);
}

static void setup(long maps, long shm, int churn_on, pthread_t *churner)
{
	set_maps(maps);
	set_shm(shm);
	churning = churn_on;
	if (churn_on && pthread_create(churner, NULL, churn, NULL))
		die("pthread_create");
}

static void teardown(int churn_on, pthread_t churner)
{
	if (churn_on) {
		churning = 0;
		pthread_join(churner, NULL);
	}
}

static void run_config(const char *self, long maps, long shm, int churn_on)
{
	static const int backend_of[] = {
		[M_LIB_MODULE] = STACKINFO_BACKEND_MODULE,
		[M_LIB_PROCMAP] = STACKINFO_BACKEND_PROCMAP_QUERY,
		[M_LIB_MAPS] = STACKINFO_BACKEND_MAPS,
		[M_LIB_SELF] = STACKINFO_BACKEND_MODULE,
		[M_LIB_HANDLE] = STACKINFO_BACKEND_MODULE,
	};
	pthread_t churner;
	struct stackinfo_query q;
	int m;

	setup(maps, shm, churn_on, &churner);
	for (m = 0; m < M_NR; m++) {
		result[m] = -1;
		switch (m) {
		case M_GLIBC_OTHER:
			on_other(m);
			break;
		case M_LIB_MODULE:
		case M_LIB_PROCMAP:
		case M_LIB_MAPS:
		case M_LIB_SELF:
		case M_LIB_HANDLE:
			if (!stackinfo_set_backend(backend_of[m]))
				result[m] = measure(m);
			break;
		case M_INTERPOSED_MAIN:
		case M_INTERPOSED_OTHER:
			break;
		default:
			result[m] = measure(m);
		}
	}
	teardown(churn_on, churner);
	measure_interposed(self, maps, shm, churn_on);

	stackinfo_set_backend(STACKINFO_BACKEND_MODULE);
	stackinfo_query_thread(0, 0, &q);
	printf("\n%u mappings (%ld extra), %ld GiB SysV shm, %s\n", q.map_count,
	       maps, shm, churn_on ? "mmap/munmap churn" : "quiet");
	printf("  %-26s %12s %10s %10s\n", "method", "µs/call", "x floor", "x glibc");
	for (m = 0; m < M_NR; m++) {
		if (result[m] < 0)
			continue;
		printf("  %-26s %12.2f %10.2f %10.4f\n", names[m], result[m],
		       result[m] / result[M_NULL], result[m] / result[M_GLIBC_MAIN]);
		printf("CSV,%ld,%u,%ld,%d,%s,%.4f,%.4f,%.6f\n", maps, q.map_count,
		       shm, churn_on, keys[m], result[m], result[m] / result[M_NULL],
		       result[m] / result[M_GLIBC_MAIN]);
	}
	fflush(stdout);
}

/*
 * A tracer's sweep of a process of 1 000 threads: one batch ioctl, against
 * reading /proc/<pid>/task/<tid>/maps once per thread (what tracers that
 * want each thread's stack VMA do). µs per sweep.
 */
#define SWEEP_THREADS 1000

static pthread_barrier_t sweep_done;

static void *sweep_peer(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&sweep_done);
	return NULL;
}

static struct stackinfo_query *sweep_buf;
static pid_t *sweep_tids;
static uint32_t sweep_n;	/* the sweepers, main and the measuring thread */

static int sweep_batch(void)
{
	struct stackinfo_threads a = {
		.size = sizeof(a), .count = SWEEP_THREADS + 8,
		.entries = (uintptr_t)sweep_buf, .entry_size = sizeof(*sweep_buf),
	};

	if (ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a))
		return -1;
	if (sweep_n && a.count != sweep_n) {
		errno = EPROTO;
		return -1;
	}
	sweep_n = a.count;
	return 0;
}

/* Open, read to the end and close /proc/@pid/task/<tid>/@file for each tid. */
static int read_task_files(pid_t pid, const pid_t *tids, int n, const char *file)
{
	static char buf[1 << 16];
	char path[80];
	int i, mfd;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
			 (int)tids[i], file);
		mfd = open(path, O_RDONLY | O_CLOEXEC);
		if (mfd < 0)
			return -1;
		while (read(mfd, buf, sizeof(buf)) > 0)
			;
		close(mfd);
	}
	return 0;
}

static int sweep_maps(void)
{
	return read_task_files(getpid(), sweep_tids, (int)sweep_n, "maps");
}

static double time_sweep(int (*fn)(void))
{
	double v[32], t0;
	int r, i, j;

	for (r = 0; r < rounds; r++) {
		t0 = bench_now_us();
		if (fn())
			die("sweep");
		v[r] = bench_now_us() - t0;
	}
	for (i = 1; i < rounds; i++)
		for (j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[rounds / 2];
}

static void run_sweep(long maps)
{
	pthread_t th[SWEEP_THREADS];
	pthread_attr_t attr;
	double batch, parse;
	int i;

	set_maps(maps);
	set_shm(0);
	pthread_barrier_init(&sweep_done, NULL, SWEEP_THREADS + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < SWEEP_THREADS; i++)
		if (pthread_create(&th[i], &attr, sweep_peer, NULL))
			die("pthread_create");
	sweep_buf = calloc(SWEEP_THREADS + 8, sizeof(*sweep_buf));
	sweep_tids = calloc(SWEEP_THREADS + 8, sizeof(*sweep_tids));
	sweep_n = 0;
	if (sweep_batch())
		die("batch ioctl");
	for (i = 0; i < (int)sweep_n; i++)
		sweep_tids[i] = sweep_buf[i].out_tid;
	batch = time_sweep(sweep_batch);
	parse = time_sweep(sweep_maps);
	pthread_barrier_wait(&sweep_done);
	for (i = 0; i < SWEEP_THREADS; i++)
		pthread_join(th[i], NULL);
	free(sweep_buf);
	free(sweep_tids);
	printf("\nEvery thread of a %u-thread process, %ld extra mappings: µs per sweep\n",
	       sweep_n, maps);
	printf("  %-40s %12.1f\n", "STACKINFO_IOC_QUERY_THREADS, one call", batch);
	printf("  %-40s %12.1f  (%.0fx the batch)\n", "parse /proc/<pid>/task/<tid>/maps each",
	       parse, parse / batch);
	printf("CSV,%ld,0,0,0,sweep_batch_%d,%.4f,0,0\n", maps, SWEEP_THREADS, batch);
	printf("CSV,%ld,0,0,0,sweep_maps_%d,%.4f,0,0\n", maps, SWEEP_THREADS, parse);
	fflush(stdout);
}

/* ---- the ratios, each timed in alternating rounds ---- */

#define LOCKFREE_PARAM "/sys/module/stackinfo/parameters/lockfree"
#define ROUND_MS 25.0

static int lockfree_set(const char *v)
{
	int pfd = open(LOCKFREE_PARAM, O_WRONLY | O_CLOEXEC);
	int ok;

	if (pfd < 0)
		return -1;
	ok = write(pfd, v, 1) == 1;
	close(pfd);
	return ok ? 0 : -1;
}

/* Y: the module has the lock-free path on; its rounds compare both paths. */
static int lockfree_on(void)
{
	char c = 0;
	int pfd = open(LOCKFREE_PARAM, O_RDONLY | O_CLOEXEC);

	if (pfd < 0)
		return 0;
	if (read(pfd, &c, 1) != 1)
		c = 0;
	close(pfd);
	return c == 'Y';
}

struct ratio_method {
	enum method m;
	const char *key;	/* the CSV's and the plot's name */
	const char *name;
	int locked;		/* with lockfree=N around its rounds */
};

static const struct ratio_method ratio_methods[] = {
	{ M_NULL, "null", "getppid (floor)", 0 },
	{ M_IOCTL_DEVNULL, "ioctl_devnull", "ioctl on /dev/null (floor)", 0 },
	{ M_IOCTL_REJECT, "ioctl_reject", "ioctl rejected (floor)", 0 },
	{ M_IOCTL_SELF, "ioctl_self", "ioctl self", 0 },
	{ M_IOCTL_SELF, "ioctl_self_locked", "ioctl self, mmap_lock", 1 },
	{ M_IOCTL_OTHER, "ioctl_other", "ioctl other thread", 0 },
	{ M_PROC_READ, "proc_read", "read /proc/stackinfo", 0 },
	{ M_LIB_MODULE, "lib_module", "lib module", 0 },
	{ M_LIB_SELF, "lib_self", "lib query self, module", 0 },
	{ M_LIB_HANDLE, "lib_handle", "lib handle query, module", 0 },
	{ M_LIB_PROCMAP, "lib_procmap", "lib procmap_query", 0 },
	{ M_LIB_MAPS, "lib_maps", "lib maps", 0 },
	{ M_GLIBC_MAIN, "glibc_main", "glibc getattr main", 0 },
	{ M_GLIBC_OTHER, "glibc_other", "glibc getattr other", 0 },
	{ M_TRACER_MAPS, "tracer_maps", "tracer: parse maps", 0 },
};

static int ratio_backend(enum method m)
{
	switch (m) {
	case M_LIB_MODULE:
	case M_LIB_SELF:
	case M_LIB_HANDLE:
		return stackinfo_set_backend(STACKINFO_BACKEND_MODULE);
	case M_LIB_PROCMAP:
		return stackinfo_set_backend(STACKINFO_BACKEND_PROCMAP_QUERY);
	case M_LIB_MAPS:
		return stackinfo_set_backend(STACKINFO_BACKEND_MAPS);
	default:
		return 0;
	}
}

/* The ratio method of @key; NULL for lib_getattr_main (lib_getattr_round()). */
static const struct ratio_method *ratio_method_of(const char *key)
{
	int j;

	for (j = 0; j < NELEM(ratio_methods); j++)
		if (!strcmp(ratio_methods[j].key, key))
			return &ratio_methods[j];
	return NULL;
}

static double ratio_round(const struct ratio_method *r)
{
	double us;

	if (r->locked && lockfree_set("N"))
		die("lockfree=N");
	if (r->m == M_GLIBC_OTHER) {
		job_round_ms = ROUND_MS;
		on_other(r->m);
		job_round_ms = 0;
		us = result[r->m];
	} else {
		us = timed_round(r->m, ROUND_MS);
	}
	if (r->locked && lockfree_set("Y"))
		die("lockfree=Y");
	return us;
}

/* A churner that sleeps between phases, so quiet rounds are quiet. */
static pthread_mutex_t churn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t churn_cond = PTHREAD_COND_INITIALIZER;
static volatile int churn_state;	/* 0 paused, 1 churning, 2 quit */
static volatile long churn_ops;

static void *churn_paced(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&churn_lock);
		while (churn_state == 0)
			pthread_cond_wait(&churn_cond, &churn_lock);
		pthread_mutex_unlock(&churn_lock);
		if (churn_state == 2)
			return NULL;
		while (churn_state == 1) {
			void *p = mmap(NULL, page, PROT_READ,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p != MAP_FAILED)
				munmap(p, page);
			churn_ops++;
		}
	}
}

static void churn_to(int state)
{
	pthread_mutex_lock(&churn_lock);
	churn_state = state;
	pthread_cond_broadcast(&churn_cond);
	pthread_mutex_unlock(&churn_lock);
}

/* Quiet against churn, each method, @n alternating pairs of rounds. */
static void ratios_churn(int n, int have_locked)
{
	double q[64], c[64], ratio[64];
	pthread_t th;
	size_t i;
	int r;

	if (pthread_create(&th, NULL, churn_paced, NULL))
		die("pthread_create");
	printf("\nQuiet against an mmap/munmap churner, alternating rounds of %.0f ms, medians of %d pairs\n",
	       ROUND_MS, n);
	printf("  %-26s %10s %10s %18s %10s\n", "method", "quiet µs", "churn µs",
	       "churn/quiet thrpt", "churn ops");
	for (i = 0; i < sizeof(ratio_methods) / sizeof(ratio_methods[0]); i++) {
		const struct ratio_method *rm = &ratio_methods[i];
		long ops = churn_ops;

		if ((rm->locked && !have_locked) || ratio_backend(rm->m))
			continue;
		for (r = 0; r < n; r++) {
			/* the order alternates too, so drift favours neither */
			if (r & 1) {
				churn_to(1);
				c[r] = ratio_round(rm);
				churn_to(0);
				q[r] = ratio_round(rm);
			} else {
				q[r] = ratio_round(rm);
				churn_to(1);
				c[r] = ratio_round(rm);
				churn_to(0);
			}
			ratio[r] = q[r] / c[r];
		}
		printf("  %-26s %10.2f %10.2f %18.2f %10ld\n", rm->name,
		       bench_median(q, n), bench_median(c, n), bench_median(ratio, n),
		       churn_ops - ops);
		printf("RATIO,churn,%s,%.4f,%.4f,%.4f\n", rm->key, bench_median(q, n),
		       bench_median(c, n), bench_median(ratio, n));
	}
	churn_to(2);
	pthread_join(th, NULL);
	ratio_backend(M_LIB_MODULE);
	fflush(stdout);
}

/* A second query thread: each round, runs with the main one or waits. */
static pthread_barrier_t par_go, par_done;
static const struct ratio_method *par_method;	/* NULL: quit */
static double par_us;

static void *par_peer(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&par_go);
		if (!par_method)
			return NULL;
		par_us = timed_round(par_method->m, ROUND_MS);
		pthread_barrier_wait(&par_done);
	}
}

/* One thread alone against two at once: µs per call of each thread. */
static void ratios_threads(int n, int have_locked)
{
	/* the fifth is the locked ioctl self */
	static const enum method ms[] = { M_NULL, M_IOCTL_DEVNULL,
					  M_IOCTL_REJECT, M_IOCTL_SELF,
					  M_IOCTL_SELF, M_PROC_READ,
					  M_LIB_MODULE };
	double one[64], a[64], b[64], ra[64], rb[64];
	pthread_t th;
	size_t i, j;
	int r;

	pthread_barrier_init(&par_go, NULL, 2);
	pthread_barrier_init(&par_done, NULL, 2);
	if (pthread_create(&th, NULL, par_peer, NULL))
		die("pthread_create");
	printf("\nOne query thread against two at once (%d CPUs), alternating rounds of %.0f ms, medians of %d pairs\n",
	       get_nprocs(), ROUND_MS, n);
	printf("  %-26s %10s %10s %10s %14s\n", "method", "1 thr µs", "2 thr: A",
		"B", "min thrpt 2/1");
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		const struct ratio_method *rm = NULL;

		for (j = 0; j < sizeof(ratio_methods) / sizeof(ratio_methods[0]); j++)
			if (ratio_methods[j].m == ms[i] &&
			    ratio_methods[j].locked == (i == 4))
				rm = &ratio_methods[j];
		if (!rm || (rm->locked && !have_locked) || ratio_backend(rm->m))
			continue;
		for (r = 0; r < n; r++) {
			int k;

			for (k = 0; k < 2; k++) {
				if ((k == 0) == !(r & 1)) {
					one[r] = ratio_round(rm);
					continue;
				}
				if (rm->locked && lockfree_set("N"))
					die("lockfree=N");
				par_method = rm;
				pthread_barrier_wait(&par_go);
				a[r] = timed_round(rm->m, ROUND_MS);
				pthread_barrier_wait(&par_done);
				b[r] = par_us;
				if (rm->locked && lockfree_set("Y"))
					die("lockfree=Y");
			}
			ra[r] = one[r] / a[r];
			rb[r] = one[r] / b[r];
		}
		printf("  %-26s %10.2f %10.2f %10.2f %14.2f\n", rm->name,
		       bench_median(one, n), bench_median(a, n), bench_median(b, n),
		       bench_median(ra, n) < bench_median(rb, n) ? bench_median(ra, n) :
								    bench_median(rb, n));
		printf("RATIO,threads,%s,%.4f,%.4f,%.4f,%.4f,%.4f\n", rm->key,
		       bench_median(one, n), bench_median(a, n), bench_median(b, n),
		       bench_median(ra, n), bench_median(rb, n));
	}
	par_method = NULL;
	pthread_barrier_wait(&par_go);
	pthread_join(th, NULL);
	ratio_backend(M_LIB_MODULE);
	fflush(stdout);
}

/*
 * libstackinfo's pthread_getattr_np on the main thread, what the
 * interposer answers with (the same code), on the module: one round of
 * >= @ms ms, µs per call.
 */
static double lib_getattr_round(double ms)
{
	double t0, t;
	long n = 0;

	if (stackinfo_set_backend(STACKINFO_BACKEND_MODULE))
		die("module backend");
	t0 = bench_now_us();
	do {
		if (bench_getattr(stackinfo_pthread_getattr_np, main_thread))
			die("stackinfo_pthread_getattr_np");
		n++;
		t = bench_now_us() - t0;
	} while (t < ms * 1000);
	return t / n;
}

/*
 * @n turns of one round of each of the @k ways @rm (NULL: the library's
 * pthread_getattr_np, lib_getattr_round()), the order rotated each turn so
 * that drift favours none: µs per call in @us[way][turn]. The library is
 * left on the module backend.
 */
static void rotating_rounds(const struct ratio_method *const *rm, int k, int n,
			    double us[][64])
{
	int r, i;

	for (r = 0; r < n; r++)
		for (i = 0; i < k; i++) {
			int m = (i + r) % k;

			if (rm[m] && ratio_backend(rm[m]->m))
				die(rm[m]->name);
			us[m][r] = rm[m] ? ratio_round(rm[m]) : lib_getattr_round(ROUND_MS);
		}
	ratio_backend(M_LIB_MODULE);
}

/*
 * Where the self query's time goes: the floors and the query, one round
 * each in turn, n times; each against getppid within its own turn. The
 * ioctl on /dev/null is any device node's cost, what a misc device for
 * the ioctl could at best bring the rejected ioctl (procfs's) down to.
 * In the same turns the ways the report's pairs compare: the library's
 * main stack on the module and through PROCMAP_QUERY, glibc's call about
 * another thread and the library's (the interposer's) about the main one.
 */
static void ratios_floors(int n, int have_locked)
{
	static const char *const keys_in_turn[] = {
		"null", "ioctl_devnull", "ioctl_reject", "ioctl_self",
		"ioctl_self_locked", "lib_module", "lib_procmap", "glibc_other",
		"lib_getattr_main",
	};
#define NTURN ((int)(sizeof(keys_in_turn) / sizeof(keys_in_turn[0])))
	const struct ratio_method *rm[NTURN] = { NULL };
	const char *key[NTURN];
	double us[NTURN][64], x[NTURN][64], v[64];
	int i, k = 0, r, procmap = 1, lm = -1, lp = -1, go = -1, lg = -1;

	/* the module answers the rest; PROCMAP_QUERY only from 6.11 */
	if (stackinfo_set_backend(STACKINFO_BACKEND_PROCMAP_QUERY))
		procmap = 0;
	ratio_backend(M_LIB_MODULE);
	for (i = 0; i < 3; i++)	/* past glibc's first call and the check */
		lib_getattr_round(0);
	for (i = 0; i < NTURN; i++) {
		if ((!have_locked && !strcmp(keys_in_turn[i], "ioctl_self_locked")) ||
		    (!procmap && !strcmp(keys_in_turn[i], "lib_procmap")))
			continue;
		key[k] = keys_in_turn[i];
		rm[k] = ratio_method_of(key[k]);
		k++;
	}
	rotating_rounds(rm, k, n, us);
	printf("\nWhere the self query's time goes: one round of each in turn, medians of %d turns\n", n);
	printf("  %-26s %10s %14s\n", "method", "µs/call", "x getppid");
	for (i = 0; i < k; i++) {
		const char *name = rm[i] ? rm[i]->name : "lib getattr main";

		for (r = 0; r < n; r++)
			x[i][r] = us[i][r] / us[0][r];
		printf("  %-26s %10.2f %14.2f\n", name, bench_median(us[i], n),
		       bench_median(x[i], n));
		printf("RATIO,floors,%s,%.4f,%.4f\n", key[i], bench_median(us[i], n),
		       bench_median(x[i], n));
		lm = strcmp(key[i], "lib_module") ? lm : i;
		lp = strcmp(key[i], "lib_procmap") ? lp : i;
		go = strcmp(key[i], "glibc_other") ? go : i;
		lg = strcmp(key[i], "lib_getattr_main") ? lg : i;
	}
	/* two ratios between ways, each per turn, then the median */
	if (lp >= 0) {
		for (r = 0; r < n; r++)
			v[r] = us[lp][r] / us[lm][r];
		printf("  %-40s %10.2f\n", "lib procmap_query / lib module", bench_median(v, n));
		printf("RATIO,pair,procmap_over_module,%.4f\n", bench_median(v, n));
	}
	for (r = 0; r < n; r++)
		v[r] = us[lg][r] / us[go][r];
	printf("  %-40s %10.2f\n", "lib getattr main / glibc getattr other", bench_median(v, n));
	printf("RATIO,pair,getattr_main_over_glibc_other,%.4f\n", bench_median(v, n));
#undef NTURN
	fflush(stdout);
}

/*
 * ---- each way's cost against the mappings, x getppid of its own turn ----
 *
 * For each count of extra mappings, @n turns of one round of each way, the
 * order rotated each turn, each round's µs / getppid's round of the same
 * turn: the host's drift moves both alike. "SCALE," lines carry the
 * smallest, median and largest of those ratios (make bench's picture
 * draws the spread) and the median µs; "SCALE,begin" and "SCALE,end"
 * bracket the sweep (tools/bench/run samples the host's load in between).
 */
static const long map_counts[] = { 0, 1000, 3000, 10000, 30000, 60000 };

static void run_scaling(int n)
{
	static const char *const keys_in_turn[] = {
		"null", "glibc_main", "lib_getattr_main", "glibc_other", "ioctl_self",
		"ioctl_other", "proc_read", "lib_module", "lib_procmap", "lib_maps",
	};
#define NWAY NELEM(keys_in_turn)
	const struct ratio_method *rm[NWAY];
	const char *key[NWAY];
	double us[NWAY][64], x[64];
	int i, k = 0, r, c, procmap = !stackinfo_set_backend(STACKINFO_BACKEND_PROCMAP_QUERY);

	/* PROCMAP_QUERY only from 6.11; past glibc's first call and the check */
	ratio_backend(M_LIB_MODULE);
	for (i = 0; i < 3; i++)
		lib_getattr_round(0);
	for (i = 0; i < NWAY; i++) {
		if (!procmap && !strcmp(keys_in_turn[i], "lib_procmap"))
			continue;
		key[k] = keys_in_turn[i];
		rm[k++] = ratio_method_of(keys_in_turn[i]);
	}
	printf("\nEach way against the mappings: one round of each in turn, x getppid of that turn, %d turns\n", n);
	printf("SCALE,begin\n");
	fflush(stdout);
	for (c = 0; c < NELEM(map_counts); c++) {
		struct stackinfo_query q = { .size = sizeof(q) };

		set_maps(map_counts[c]);
		ioctl(fd, STACKINFO_IOC_QUERY, &q);
		rotating_rounds(rm, k, n, us);
		printf("  %u mappings:\n  %-26s %10s %10s %10s %10s\n", q.map_count, "method",
		       "µs/call", "x min", "x median", "x max");
		for (i = 0; i < k; i++) {
			double lo, hi;

			for (r = 0; r < n; r++)
				x[r] = us[i][r] / us[0][r];
			lo = hi = x[0];
			for (r = 1; r < n; r++) {
				lo = x[r] < lo ? x[r] : lo;
				hi = x[r] > hi ? x[r] : hi;
			}
			printf("  %-26s %10.2f %10.2f %10.2f %10.2f\n",
			       rm[i] ? rm[i]->name : "lib getattr main", bench_median(us[i], n), lo,
			       bench_median(x, n), hi);
			printf("SCALE,%ld,%u,%s,%d,%.4f,%.4f,%.4f,%.4f\n", map_counts[c], q.map_count,
			       key[i], n, lo, bench_median(x, n), hi, bench_median(us[i], n));
		}
		fflush(stdout);
	}
	printf("SCALE,end\n");
	set_maps(0);
	ratio_backend(M_LIB_MODULE);
	fflush(stdout);
#undef NWAY
}

/*
 * ---- another process: what the kernel's own check costs ----
 *
 * For a thread of another process the module opens <tid>/maps (and, for
 * the SP, reads <tid>/syscall) on the caller's /proc as the caller; a
 * proof fd skips maps' open, not syscall's read. A child of this process with FOREIGN_THREADS
 * threads, asked about in rotating turns against the own-thread query.
 */
#define FOREIGN_THREADS 64

static pid_t foreign_pid;
static int foreign_proof = -1;
static struct stackinfo_query foreign_buf[FOREIGN_THREADS + 8];

/* STACKINFO_IOC_QUERY on @f (the module's file or an in-tree one). */
static int query_on(int f, pid_t tid, uint64_t flags, int proof)
{
	struct stackinfo_query q = {
		.size = sizeof(q), .tid = (uint32_t)tid, .query_flags = flags,
	};

	if (proof >= 0) {
		q.query_flags |= STACKINFO_QUERY_PROOF_FD;
		q.proof_fd = proof;
	}
	return ioctl(f, STACKINFO_IOC_QUERY, &q);
}

/* STACKINFO_IOC_QUERY_THREADS on @f into @buf (@cap entries): @want answers. */
static int batch_on(int f, pid_t pid, int proof, struct stackinfo_query *buf,
		    uint32_t cap, uint32_t want)
{
	struct stackinfo_threads a = {
		.size = sizeof(a), .pid = (uint32_t)pid, .count = cap,
		.entries = (uintptr_t)buf, .entry_size = sizeof(*buf),
	};

	if (proof >= 0) {
		a.query_flags = STACKINFO_QUERY_PROOF_FD;
		a.proof_fd = proof;
	}
	if (ioctl(f, STACKINFO_IOC_QUERY_THREADS, &a))
		return -1;
	if (a.count != want) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static int foreign_query(uint64_t flags, int proof)
{
	return query_on(fd, foreign_pid, flags, proof);
}

static int foreign_batch(int proof)
{
	return batch_on(fd, foreign_pid, proof, foreign_buf, FOREIGN_THREADS + 8,
			FOREIGN_THREADS);
}

static int f_self(void) { return ioctl_query(0); }
static int f_plain(void) { return foreign_query(0, -1); }
static int f_no_sp(void) { return foreign_query(STACKINFO_QUERY_NO_SP, -1); }
static int f_proof(void) { return foreign_query(0, foreign_proof); }
static int f_batch(void) { return foreign_batch(-1); }
static int f_batch_proof(void) { return foreign_batch(foreign_proof); }

/* A method timed in rotating turns: fn_round() of it, once a turn. */
struct turn_method {
	int (*fn)(void);
	const char *key, *name;
	int per_thread;	/* one call answers for every thread: µs/thread too */
	int vs;		/* > 0: also x the row of this index, in the same turn */
};

static const struct turn_method foreign_methods[] = {
	{ f_self, "self", "query, own thread", 0, 0 },
	{ f_plain, "other_process", "query, another process (kernel's check)", 0, 0 },
	{ f_no_sp, "other_process_nosp", "  the same, NO_SP (maps' check only)", 0, 0 },
	{ f_proof, "other_process_proof", "  the same, with a mem proof fd", 0, 0 },
	{ f_batch, "batch", "batch of 64 threads (kernel's check)", 1, 0 },
	{ f_batch_proof, "batch_proof", "  the same, with a mem proof fd", 1, 0 },
};

static void *foreign_sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/*
 * A child of @threads threads (main included) that sleep, with @maps extra
 * mappings (set_maps) and, if @stack, threads of that stack size; returns
 * once they all exist.
 */
static pid_t spawn_sleepers(int threads, long maps, size_t stack)
{
	int p[2], i;
	pid_t pid;
	char c;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid == 0) {
		pthread_attr_t attr;
		pthread_t th;

		set_maps(maps);
		pthread_attr_init(&attr);
		if (stack)
			pthread_attr_setstacksize(&attr, stack);
		for (i = 1; i < threads; i++)
			if (pthread_create(&th, &attr, foreign_sleeper, NULL))
				_exit(1);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		foreign_sleeper(NULL);
	}
	if (pid < 0 || read(p[0], &c, 1) != 1)
		die("child process");
	close(p[0]);
	close(p[1]);
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static double fn_round(int (*fn)(void), double ms)
{
	double t0 = bench_now_us(), t;
	long n = 0;

	do {
		if (fn())
			die("foreign");
		n++;
		t = bench_now_us() - t0;
	} while (t < ms * 1000);
	return t / n;
}

/*
 * @n turns of one fn_round() of each of the @k methods @tm, the order
 * rotated each turn; then a line each: µs per call, per thread of
 * @threads for a per_thread method, x row 0 (@base) and, for a row with
 * a vs, x that row, each the median of the turns' ratios; "RATIO,@kind,"
 * lines carry them (the vs column only where the table has one).
 */
static void run_turns(const char *kind, const char *base, const struct turn_method *tm,
		      int k, int n, int threads)
{
	double us[16][64], x[64], v[64];
	int r, i, has_vs = 0;

	for (r = 0; r < n; r++)
		for (i = 0; i < k; i++) {
			int m = (i + r) % k;

			us[m][r] = fn_round(tm[m].fn, ROUND_MS);
		}
	for (i = 0; i < k; i++)
		has_vs |= tm[i].vs > 0;
	printf("  %-42s %10s %12s %14s", "method", "µs/call", "µs/thread", base);
	printf(has_vs ? " %14s\n" : "\n", "x compared");
	for (i = 0; i < k; i++) {
		for (r = 0; r < n; r++) {
			x[r] = us[i][r] / us[0][r];
			v[r] = tm[i].vs > 0 ? us[i][r] / us[tm[i].vs][r] : 0;
		}
		printf("  %-42s %10.2f %12.2f %14.2f", tm[i].name, bench_median(us[i], n),
		       bench_median(us[i], n) / (tm[i].per_thread ? threads : 1), bench_median(x, n));
		if (tm[i].vs > 0)
			printf(" %14.3g  (x %s)", bench_median(v, n), tm[tm[i].vs].key);
		printf("\nRATIO,%s,%s,%.4f,%.4f", kind, tm[i].key, bench_median(us[i], n),
		       bench_median(x, n));
		if (has_vs && tm[i].vs > 0)
			printf(",%.6g", bench_median(v, n));
		printf(has_vs && tm[i].vs <= 0 ? ",\n" : "\n");
	}
	fflush(stdout);
}

static void run_foreign(int n)
{
	foreign_pid = spawn_sleepers(FOREIGN_THREADS, 0, 0);
	foreign_proof = proc_open_mem(foreign_pid);
	printf("\nAnother process (a child, %d threads): one round of each in turn, medians of %d turns\n",
	       FOREIGN_THREADS, n);
	run_turns("foreign", "x own query", foreign_methods, NELEM(foreign_methods), n,
		  FOREIGN_THREADS);
	close(foreign_proof);
	reap(foreign_pid);
}

/*
 * ---- the in-tree file: /proc/<pid>/stackinfo (CONFIG_PROC_STACKINFO) ----
 *
 * Its open is the proof (maps' check, once), so a query through an open
 * one is the ioctl alone, where the module asks the kernel each time (it
 * opens <tid>/maps and reads <tid>/syscall). The SP still goes only to
 * who passes syscall's check at the ioctl, as the file's read does. Each
 * table is rotating turns, every row x getppid of its own turn.
 */
#define INTREE_SWEEP_THREADS 1000
#define INTREE_SWEEP_MAPS 3000	/* extra mappings (set_maps) in that child */

static int intree_fd = -1;	/* /proc/self/stackinfo, or the child's */
static pid_t intree_tid;	/* the thread asked about */
static char intree_path[64];	/* the child's /proc/<pid>/stackinfo */
static struct stackinfo_query *intree_buf;
static pid_t *intree_tids;
static int intree_n;		/* the child's threads */

static int open_stackinfo(pid_t pid)
{
	char path[64];
	int f;

	snprintf(path, sizeof(path), "/proc/%d/stackinfo", (int)pid);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		die(path);
	return f;
}

static int i_null(void) { return call(M_NULL); }
static int i_kept(void) { return query_on(intree_fd, intree_tid, 0, -1); }
static int i_kept0(void) { return query_on(intree_fd, 0, 0, -1); }

/* What a one-shot tool pays: open, ioctl, close. */
static int i_oneshot(void)
{
	int f = open(intree_path, O_RDONLY | O_CLOEXEC), ret;

	if (f < 0)
		return -1;
	ret = query_on(f, intree_tid, 0, -1);
	close(f);
	return ret;
}

static int i_batch(void)
{
	return batch_on(intree_fd, 0, -1, intree_buf, INTREE_SWEEP_THREADS + 8,
			(uint32_t)intree_n);
}

static int i_module_batch(void)
{
	return batch_on(fd, foreign_pid, -1, intree_buf, INTREE_SWEEP_THREADS + 8,
			(uint32_t)intree_n);
}

static int i_files(void)
{
	return read_task_files(foreign_pid, intree_tids, intree_n, "stackinfo");
}

static int i_maps(void)
{
	return read_task_files(foreign_pid, intree_tids, intree_n, "maps");
}

static const struct turn_method intree_self[] = {
	{ i_null, "null", "getppid (floor)", 0, 0 },
	{ i_kept, "intree", "in-tree ioctl, kept fd, tid = gettid()", 0, 3 },
	{ i_kept0, "intree_tid0", "  the same, tid 0 (the file's thread)", 0, 3 },
	{ f_self, "module", "module ioctl, tid 0", 0, 0 },
};

static const struct turn_method intree_other[] = {
	{ i_null, "null", "getppid (floor)", 0, 0 },
	{ i_kept, "intree", "in-tree ioctl, kept fd", 0, 2 },
	{ f_plain, "module", "module ioctl (the kernel's check each time)", 0, 0 },
	{ i_oneshot, "intree_oneshot", "in-tree open + ioctl + close", 0, 2 },
	{ i_batch, "intree_batch", "in-tree batch, kept fd", 1, 5 },
	{ f_batch, "module_batch", "module batch (the kernel's check)", 1, 0 },
};

static const struct turn_method intree_sweep[] = {
	{ i_null, "null", "getppid (floor)", 0, 0 },
	{ i_files, "task_stackinfo", "read task/<tid>/stackinfo each", 1, 2 },
	{ i_maps, "task_maps", "read task/<tid>/maps each", 1, 0 },
	{ i_batch, "intree_batch", "in-tree batch, /proc/<pid>/stackinfo", 1, 2 },
	{ i_module_batch, "module_batch", "module batch (the kernel's check)", 1, 2 },
};

static void run_intree(int n)
{
	enum { CAP = INTREE_SWEEP_THREADS + 8 };
	struct stackinfo_query q = { .size = sizeof(q) };
	int i;

	if (access("/proc/self/stackinfo", F_OK)) {
		printf("\nIn-tree /proc/<pid>/stackinfo: skipped (no /proc/self/stackinfo: not CONFIG_PROC_STACKINFO)\n");
		printf("RATIO,intree,skipped\n");
		fflush(stdout);
		return;
	}
	intree_buf = calloc(CAP, sizeof(*intree_buf));
	intree_tids = calloc(CAP, sizeof(*intree_tids));
	if (!intree_buf || !intree_tids)
		die("calloc");

	intree_fd = open_stackinfo(getpid());
	intree_tid = gettid();
	printf("\nIn-tree file, own thread: one round of each in turn, medians of %d turns\n", n);
	run_turns("intree_self", "x getppid", intree_self, NELEM(intree_self), n, 1);
	close(intree_fd);

	foreign_pid = spawn_sleepers(FOREIGN_THREADS, 0, 0);
	intree_fd = open_stackinfo(foreign_pid);
	intree_tid = foreign_pid;
	intree_n = FOREIGN_THREADS;
	snprintf(intree_path, sizeof(intree_path), "/proc/%d/stackinfo", (int)foreign_pid);
	printf("\nIn-tree file, another process (a child, %d threads, its main thread asked about): medians of %d turns\n",
	       FOREIGN_THREADS, n);
	run_turns("intree_other", "x getppid", intree_other, NELEM(intree_other), n, FOREIGN_THREADS);
	close(intree_fd);
	reap(foreign_pid);

	foreign_pid = spawn_sleepers(INTREE_SWEEP_THREADS, INTREE_SWEEP_MAPS, 64 << 10);
	intree_fd = open_stackinfo(foreign_pid);
	intree_n = INTREE_SWEEP_THREADS;
	if (i_batch())	/* the thread ids, as run_sweep takes them */
		die("in-tree batch");
	for (i = 0; i < intree_n; i++)
		intree_tids[i] = intree_buf[i].out_tid;
	if (ioctl(intree_fd, STACKINFO_IOC_QUERY, &q))
		die("in-tree query");
	printf("\nIn-tree file, every thread of a child of %d threads, %u mappings (%d extra, 64 KiB stacks): µs per sweep, medians of %d turns\n",
	       intree_n, q.map_count, INTREE_SWEEP_MAPS, n);
	printf("RATIO,intree_sweep_shape,%d,%u\n", intree_n, q.map_count);
	run_turns("intree_sweep", "x getppid", intree_sweep, NELEM(intree_sweep), n, intree_n);
	close(intree_fd);
	reap(foreign_pid);
	free(intree_buf);
	free(intree_tids);
}

/* ---- pthread_getstack_np() against glibc's pthread_getattr_np() ---- */

static pthread_t other_thread;
static int gs_backend;	/* the backend the getstack rounds last set */

/* on backend @b (set once a round: the first call of a round switches) */
static int gs_main_on(int b)
{
	void *addr;
	size_t size;

	if (gs_backend != b) {
		if (stackinfo_set_backend(b))
			return -1;
		gs_backend = b;
	}
	return pthread_getstack_np(main_thread, &addr, &size);
}

static int gs_null(void) { return getppid() > 0 ? 0 : -1; }
static int gs_glibc_main(void) { return bench_getattr(pthread_getattr_np, main_thread); }
static int gs_proc(void) { return gs_main_on(STACKINFO_BACKEND_PROC); }
static int gs_module(void) { return gs_main_on(STACKINFO_BACKEND_MODULE); }
static int gs_procmap(void) { return gs_main_on(STACKINFO_BACKEND_PROCMAP_QUERY); }
static int gs_maps(void) { return gs_main_on(STACKINFO_BACKEND_MAPS); }
static int gs_glibc_other(void) { return bench_getattr(pthread_getattr_np, other_thread); }

static int gs_other(void)
{
	void *addr;
	size_t size;

	return pthread_getstack_np(other_thread, &addr, &size);
}

/*
 * pthread_getstack_np() about the main thread on each backend the kernel
 * offers (the maps parse: no kernel source, LLVM's answer), and about
 * another thread, each x getppid and x glibc's pthread_getattr_np() about
 * the same thread, in rotating turns, at @maps extra mappings.
 */
static void run_getstack_at(int n, long maps)
{
	static const struct turn_method all[] = {
		{ gs_null, "null", "getppid (floor)", 0, 0 },
		{ gs_glibc_main, "glibc_main", "glibc pthread_getattr_np main", 0, 0 },
		{ gs_proc, "getstack_proc", "pthread_getstack_np main, in-tree file", 0, 1 },
		{ gs_module, "getstack_module", "pthread_getstack_np main, module", 0, 1 },
		{ gs_procmap, "getstack_procmap", "pthread_getstack_np main, PROCMAP_QUERY", 0, 1 },
		{ gs_maps, "getstack_maps", "pthread_getstack_np main, none (LLVM's)", 0, 1 },
		/* the pair about another thread: last, in this order */
		{ gs_glibc_other, "glibc_other", "glibc pthread_getattr_np other", 0, 0 },
		{ gs_other, "getstack_other", "pthread_getstack_np other", 0, 0 },
	};
	struct turn_method tm[NELEM(all)];
	int i, k = 0;

	set_maps(maps);
	/* getppid and glibc's main first (the vs column's row 1), the pair last */
	for (i = 0; i < NELEM(all) - 2; i++) {
		gs_backend = 0;
		if (all[i].vs && all[i].fn())
			continue;	/* a backend this kernel lacks */
		tm[k++] = all[i];
	}
	tm[k++] = all[NELEM(all) - 2];
	tm[k] = all[NELEM(all) - 1];
	tm[k].vs = k - 1;
	k++;
	printf("\npthread_getstack_np, %ld extra mappings: one round of each in turn, medians of %d turns\n",
	       maps, n);
	run_turns(maps ? "getstack_maps3000" : "getstack", "x getppid", tm, k, n, 1);
	set_maps(0);
}

static void run_getstack(int n)
{
	run_getstack_at(n, 0);
	run_getstack_at(n, 3000);
}

static void run_ratios(int n)
{
	int have_locked = lockfree_on();
	struct stackinfo_query q = { .size = sizeof(q) };

	set_maps(0);
	set_shm(0);
	ioctl(fd, STACKINFO_IOC_QUERY, &q);
	printf("\nlock-free path: %s; %u mappings\n",
	       have_locked ? "on (lockfree=Y)" :
			     "off or not in this module (the ioctl takes mmap_lock)",
	       q.map_count);
	printf("RATIO,lockfree,%d\n", have_locked);
	ratios_floors(n, have_locked);
	ratios_churn(n, have_locked);
	ratios_threads(n, have_locked);
	run_foreign(n);
	run_intree(n);
	run_getstack(n);
}

/* LD_PRELOAD child: the interposed call on the main and another thread. */
static int child(char **argv)
{
	pthread_t churner;
	int churn_on = atoi(argv[2]);

	rounds = atoi(argv[3]);
	setup(atol(argv[0]), atol(argv[1]), churn_on, &churner);
	result[M_INTERPOSED_MAIN] = measure(M_INTERPOSED_MAIN);
	on_other(M_INTERPOSED_OTHER);
	teardown(churn_on, churner);
	printf("%.4f %.4f\n", result[M_INTERPOSED_MAIN], result[M_INTERPOSED_OTHER]);
	return 0;
}

/* The batch ioctl on this process (main and the measuring thread) answers
 * as single queries. */
static int sweep_check(void)
{
	struct stackinfo_query all[4], one;
	struct stackinfo_threads a = {
		.size = sizeof(a), .count = 4, .entries = (uintptr_t)all,
		.entry_size = sizeof(all[0]),
	};
	uint32_t i;

	if (ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) || a.count != 2) {
		printf("FAIL: batch ioctl: %s, count %u\n", strerror(errno), a.count);
		return 1;
	}
	for (i = 0; i < a.count; i++) {
		one = (struct stackinfo_query){ .size = sizeof(one), .tid = all[i].out_tid };
		if (ioctl(fd, STACKINFO_IOC_QUERY, &one) ||
		    one.sp_vma_start != all[i].sp_vma_start) {
			printf("FAIL: batch entry %u differs\n", i);
			return 1;
		}
	}
	return 0;
}

/* --quick: every method answers, and the library agrees with glibc. */
static int quick(const char *self)
{
	static const int bs[] = { STACKINFO_BACKEND_MODULE,
				  STACKINFO_BACKEND_PROCMAP_QUERY,
				  STACKINFO_BACKEND_MAPS };
	pthread_attr_t attr;
	void *ga, *la;
	size_t gs, ls;
	int m, i, bad = 0;

	set_maps(100);
	if (sweep_check())
		bad = 1;
	for (m = 0; m < M_NR; m++) {
		if (m == M_GLIBC_OTHER || m == M_INTERPOSED_OTHER)
			continue;	/* on the other thread: below */
		if (call(m)) {
			printf("FAIL: %s: %s\n", names[m], strerror(errno));
			bad = 1;
		}
	}
	on_other(M_GLIBC_OTHER);
	if (pthread_getattr_np(main_thread, &attr))
		return 1;
	pthread_attr_getstack(&attr, &ga, &gs);
	pthread_attr_destroy(&attr);
	for (i = 0; i < 3; i++) {
		int err = stackinfo_set_backend(bs[i]);

		if (err == -EOPNOTSUPP)
			continue;	/* PROCMAP_QUERY before 6.11 */
		if (err || stackinfo_main_stack(&la, &ls) || la != ga || ls != gs) {
			printf("FAIL: lib %s: %p+%zu, glibc %p+%zu\n",
			       stackinfo_backend_name(bs[i]), la, ls, ga, gs);
			bad = 1;
		}
	}
	rounds = 1;
	measure_interposed(self, 100, 0, 0);	/* dies if the child fails */
	printf("%s: every method answered\n", bad ? "FAIL" : "ok");
	return bad;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int i, ret = 0;

	main_thread = pthread_self();
	fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(STACKINFO_PROC_PATH);
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0)
		die("/dev/null");
	pthread_create(&th, NULL, other, NULL);
	other_thread = th;
	pthread_mutex_lock(&lock);
	while (!other_tid)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);

	if (argc > 5 && !strcmp(argv[1], "--child"))
		ret = child(argv + 2);
	else if (argc > 1 && !strcmp(argv[1], "--quick"))
		ret = quick(argv[0]);
	else if (argc > 1 && !strcmp(argv[1], "--ratios-only"))
		run_ratios(argc > 2 ? atoi(argv[2]) : 9);
	else if (argc > 1 && !strcmp(argv[1], "--getstack-only"))
		run_getstack(argc > 2 && atoi(argv[2]) > 0 && atoi(argv[2]) <= 64 ? atoi(argv[2]) : 9);
	else if (argc > 1 && !strcmp(argv[1], "--scaling-only"))
		run_scaling(argc > 2 && atoi(argv[2]) > 0 && atoi(argv[2]) <= 64 ? atoi(argv[2]) : 9);
	else {
		if (argc > 2 && !strcmp(argv[1], "--rounds"))
			rounds = atoi(argv[2]) < 32 ? atoi(argv[2]) : 31;
		printf("stackinfo-bench: %d rounds, medians\n", rounds);
		static const long shm[] = { 0, 1, 64 };
		size_t s;
		int churn_on;

		/* first: the sweeps leave glibc's cache of thread stacks */
		run_scaling(9);
		run_ratios(9);
		/* every mapping count, shm size, quiet and churned */
		for (churn_on = 0; churn_on < 2; churn_on++)
			for (s = 0; s < sizeof(shm) / sizeof(shm[0]); s++)
				for (i = 0; i < NELEM(map_counts); i++)
					run_config(argv[0], map_counts[i], shm[s], churn_on);
		run_sweep(0);
		run_sweep(3000);
	}
	pthread_mutex_lock(&lock);
	job = -2;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(th, NULL);
	return ret;
}
