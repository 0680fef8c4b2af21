// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo-cost: the guest's half of the cost meter. Runs each way of
 * asking for a stack (and getppid, and the procfs floor) a number of times
 * between the region markers of tools/cost/marker.h, which the QEMU plugin
 * (tools/cost/plugin.c, vm-run --cost) counts in guest instructions; then
 * passes the kernel's text symbols (/proc/kallsyms, the module's
 * included) to the host through the plugin's data marker. It prints one
 * line a row, "cost-row TAG NAME CALLS ENTRIES" (ENTRIES: answers a call
 * gives, 1 but for the batch), "cost-skip NAME REASON" for a row this
 * kernel cannot run, and "cost-ksyms BYTES" for the symbols passed;
 * tools/cost/report reads those lines beside the plugin's output. The
 * rows run in one counting session of the plugin (tools/cost/marker.h); the
 * symbols are passed after it.
 *
 *   stackinfo-cost [--check]
 *
 * --check: the rows make check holds against its ceilings (the known loop,
 * getppid, the floor, the self ioctl at 0, 3 000 and 60 000 extra
 * mappings), no other.
 *
 * The measuring thread runs on CPU 0 and every other thread it starts on
 * CPU 1, so that the region it marks is its own vCPU's. Each row is called
 * a few times unmarked first (caches, first faults), then CALLS times
 * marked, one region a call: the plugin takes a row's most frequent count
 * as its cost (an interrupt makes a region's count unique).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "marker.h"

#define BATCH_THREADS 16
#define WARM 4

/* the rows' tags (tools/cost/report names them from the cost-row lines) */
enum {
	T_LOOP = 1, T_GETPPID, T_FLOOR, T_SELF, T_OTHER, T_BATCH, T_INTREE_READ,
	T_INTREE_IOCTL, T_PMQ, T_LIB_MODULE, T_GLIBC_0, T_GLIBC_3000,
	T_GLIBC_60000, T_SELF_3000, T_SELF_60000, T_SELF_CHURN,
	T_GETPPID_CHURN, T_SELF_THREADED, T_TEXT_KEPT, T_TEXT_OPEN, T_LIB_SELF,
	T_LIB_HANDLE, T_INTERPOSED, T_GLIBC_OTHER, T_LIB_SELF_PMQ, T_LIB_HANDLE_PMQ,
	T_INTERPOSED_PMQ, T_INTERPOSED_MAPS, T_BATCH_OTHER,
	T_BATCH_OTHER_NOSP, T_TEXT_OPEN_CLOSE, T_MAPS_OPEN_CLOSE,
};

static int fd = -1, intree_fd = -1;
static pid_t other_tid, other_pid;
static struct stackinfo_query batch_buf[BATCH_THREADS + 8];
static volatile bool churn_stop;

static void die(const char *what)
{
	fprintf(stderr, "stackinfo-cost: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/*
 * A system call by the instruction itself, so that every row's user part
 * between its markers is these few instructions.
 */
static long sys3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

/* ---- the rows: one call each, 0 when it answered as it should ---- */

/*
 * The known loop, markers included in the one asm statement so that the
 * compiler puts nothing between them: 1 + 2 * 1000 instructions (mov,
 * then dec and jnz each round), which the plugin must count exactly.
 */
static void known_loop_row(int calls)
{
	int i;

	for (i = 0; i < calls; i++)
		__asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c0\n\t"
				 "mov $1000, %%ecx\n"
				 "1:\tdec %%ecx\n\t"
				 "jnz 1b\n\t"
				 ".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c1"
				 : : "i"(COST_DISP(COST_OP_BEGIN, T_LOOP)),
				   "i"(COST_DISP(COST_OP_END, T_LOOP))
				 : "ecx", "cc", "memory");
	printf("cost-row %d loop %d 1\n", T_LOOP, calls);
}

static int do_getppid(void)
{
	return sys3(SYS_getppid, 0, 0, 0) > 0 ? 0 : -1;
}

/* An ioctl on /proc/stackinfo rejected at once: size 0 is EINVAL. */
static int floor_ioctl(void)
{
	struct stackinfo_query q = { .size = 0 };

	return sys3(SYS_ioctl, fd, STACKINFO_IOC_QUERY, (long)&q) == -EINVAL ?
		       0 : -1;
}

static int query(int f, pid_t tid)
{
	struct stackinfo_query q = { .size = sizeof(q), .tid = (uint32_t)tid };

	return sys3(SYS_ioctl, f, STACKINFO_IOC_QUERY, (long)&q) ? -1 : 0;
}

static int self_ioctl(void)
{
	return query(fd, 0);
}

static int other_ioctl(void)
{
	return query(fd, other_tid);
}

static int batch(void)
{
	struct stackinfo_threads a = {
		.size = sizeof(a), .count = BATCH_THREADS + 8,
		.entries = (uintptr_t)batch_buf, .entry_size = sizeof(batch_buf[0]),
	};

	if (sys3(SYS_ioctl, fd, STACKINFO_IOC_QUERY_THREADS, (long)&a))
		return -1;
	return a.count == BATCH_THREADS ? 0 : -1;
}

/* Another process's BATCH_THREADS threads: the kernel's check asked. */
static int batch_other_flags(uint64_t flags)
{
	struct stackinfo_threads a = {
		.size = sizeof(a), .query_flags = flags, .pid = (uint32_t)other_pid,
		.count = BATCH_THREADS + 8, .entries = (uintptr_t)batch_buf,
		.entry_size = sizeof(batch_buf[0]),
	};

	if (sys3(SYS_ioctl, fd, STACKINFO_IOC_QUERY_THREADS, (long)&a))
		return -1;
	return a.count == BATCH_THREADS ? 0 : -1;
}

static int batch_other(void)
{
	return batch_other_flags(0);
}

static int batch_other_nosp(void)
{
	return batch_other_flags(STACKINFO_QUERY_NO_SP);
}

static int intree_read(void)
{
	char buf[1024];

	return pread(intree_fd, buf, sizeof(buf), 0) > 0 ? 0 : -1;
}

static int intree_ioctl(void)
{
	return query(intree_fd, 0);
}

static int lib_main_stack(void)
{
	size_t size;
	void *addr;

	return stackinfo_main_stack(&addr, &size) ? -1 : 0;
}

static pthread_t main_thread;

static int glibc_main(void)
{
	pthread_attr_t attr;

	if (pthread_getattr_np(main_thread, &attr))
		return -1;
	pthread_attr_destroy(&attr);
	return 0;
}

/* ---- what users call: the text, the library, the interposer ---- */

static struct stackinfo_handle *handle;
static int (*interposed_getattr)(pthread_t, pthread_attr_t *);
static pthread_t other_thread;

/* the module's text on a kept fd, read again from its start */
static int text_kept(void)
{
	char buf[1024];

	return pread(fd, buf, sizeof(buf), 0) > 0 ? 0 : -1;
}

/* the module's text as a program that wants it once reads it */
static int text_open_read_close(void)
{
	char buf[1024];
	int f = open("/proc/stackinfo", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf));
	close(f);
	return n > 0 ? 0 : -1;
}

/*
 * What an open and a close cost by themselves, whatever the file answers:
 * the floor under any call that opens a file for one read (the text's, and
 * glibc's own main-thread call, which opens /proc/self/maps).
 */
static int open_close(const char *path)
{
	int f = open(path, O_RDONLY | O_CLOEXEC);

	if (f < 0)
		return -1;
	close(f);
	return 0;
}

static int text_open_close(void)
{
	return open_close("/proc/stackinfo");
}

static int maps_open_close(void)
{
	return open_close("/proc/self/maps");
}

static int lib_self(void)
{
	struct stackinfo_query q;

	return stackinfo_query_thread(0, 0, &q);
}

static int lib_handle(void)
{
	struct stackinfo_query q;

	return stackinfo_handle_query(handle, 0, 0, &q);
}

/* pthread_getattr_np() as a program under the interposer calls it */
static int interposed_main(void)
{
	pthread_attr_t attr;

	if (interposed_getattr(main_thread, &attr))
		return -1;
	pthread_attr_destroy(&attr);
	return 0;
}

/* glibc's own call about a thread of pthread_create(): no maps read */
static int glibc_other(void)
{
	pthread_attr_t attr;

	if (pthread_getattr_np(other_thread, &attr))
		return -1;
	pthread_attr_destroy(&attr);
	return 0;
}

/*
 * CALLS marked calls of @fn under @tag, after WARM unmarked ones. The
 * markers hug the call: what lies between them is @fn's own work.
 */
static void row(int tag, const char *name, int (*fn)(void), int calls,
		int entries)
{
	int i;

	for (i = 0; i < WARM; i++)
		if (fn())
			die(name);
	for (i = 0; i < calls; i++) {
		int err;

		/* the tag is an immediate: one marker pair per tag, by case */
		switch (tag) {
#define CASE(t) \
	case t: \
		COST_BEGIN(t); \
		err = fn(); \
		COST_END(t); \
		break
		CASE(T_GETPPID); CASE(T_FLOOR); CASE(T_SELF);
		CASE(T_OTHER); CASE(T_BATCH); CASE(T_INTREE_READ);
		CASE(T_INTREE_IOCTL); CASE(T_PMQ); CASE(T_LIB_MODULE);
		CASE(T_GLIBC_0); CASE(T_GLIBC_3000); CASE(T_GLIBC_60000);
		CASE(T_SELF_3000); CASE(T_SELF_60000); CASE(T_SELF_CHURN);
		CASE(T_GETPPID_CHURN); CASE(T_SELF_THREADED); CASE(T_TEXT_KEPT);
		CASE(T_TEXT_OPEN); CASE(T_LIB_SELF); CASE(T_LIB_HANDLE);
		CASE(T_INTERPOSED); CASE(T_GLIBC_OTHER); CASE(T_LIB_SELF_PMQ);
		CASE(T_LIB_HANDLE_PMQ); CASE(T_INTERPOSED_PMQ); CASE(T_INTERPOSED_MAPS);
		CASE(T_BATCH_OTHER); CASE(T_BATCH_OTHER_NOSP);
		CASE(T_TEXT_OPEN_CLOSE); CASE(T_MAPS_OPEN_CLOSE);
#undef CASE
		default:
			errno = EINVAL;
			die("unknown tag");
		}
		if (err)
			die(name);
	}
	printf("cost-row %d %s %d %d\n", tag, name, calls, entries);
	fflush(stdout);
}

/* ---- the process around the rows ---- */

static pthread_barrier_t threads_done;

static void *sleeper(void *arg)
{
	if (arg)
		*(pid_t *)arg = gettid();
	pthread_barrier_wait(&threads_done);
	return NULL;
}

static void *pauser(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/*
 * A child of BATCH_THREADS threads on CPU 1, asleep until killed: another
 * process for the batch to ask the kernel about. Its pid once /proc lists
 * them all.
 */
static pid_t spawn_other_process(void)
{
	char path[64];
	cpu_set_t set;
	pthread_t th;
	pid_t pid;
	int i;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		CPU_ZERO(&set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (i = 1; i < BATCH_THREADS; i++)
			if (pthread_create(&th, NULL, pauser, NULL))
				_exit(1);
		pauser(NULL);
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (i = 0; i < 5000; i++) {
		struct stackinfo_threads a = {
			.size = sizeof(a), .pid = (uint32_t)pid,
			.entry_size = sizeof(batch_buf[0]),
		};

		/* ERANGE gives the count: all there once it is BATCH_THREADS */
		if (ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) && errno == ERANGE &&
		    a.count == BATCH_THREADS)
			return pid;
		usleep(1000);
	}
	errno = ETIMEDOUT;
	die(path);
	return -1;
}

/* A thread on CPU 1, away from the measuring one's vCPU. */
static void start_on_cpu1(pthread_t *th, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(1, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (pthread_create(th, &attr, fn, arg))
		die("pthread_create");
	pthread_attr_destroy(&attr);
}

static void *churner(void *arg)
{
	(void)arg;
	while (!churn_stop) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("churn mmap");
		*(volatile char *)p = 1;
		munmap(p, 4096);
	}
	return NULL;
}

/*
 * @n more mappings than the process has: one region of @n pages, every
 * other page read-only, so that none merges with its neighbours.
 */
static void add_mappings(long n)
{
	char *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED)
		die("mmap");
	for (i = 1; i < n; i += 2)
		if (mprotect(p + i * 4096, 4096, PROT_READ))
			die("mprotect");
}

static int map_count(void)
{
	struct stackinfo_query q = { .size = sizeof(q) };

	if (ioctl(fd, STACKINFO_IOC_QUERY, &q))
		die("query");
	return (int)q.map_count;
}

/* the mappings the process has now, @want beyond those it started with */
static void mappings_to(int base, long want)
{
	long now = map_count() - base;

	if (want > now)
		add_mappings(want - now);
}

/*
 * The kernel's text symbols, "ADDRESS TYPE NAME [MODULE]" lines as
 * /proc/kallsyms has them, through the plugin's data marker: a byte a
 * load, from this CPU (the plugin keeps one stream).
 */
static void send_ksyms(void)
{
	static unsigned char page[256] __attribute__((aligned(256)));
	char line[512], type;
	unsigned long addr;
	size_t sent = 0, i, len;
	FILE *f = fopen("/proc/kallsyms", "r");
	int fields;

	if (!f)
		die("/proc/kallsyms");
	while (fgets(line, sizeof(line), f)) {
		fields = sscanf(line, "%lx %c", &addr, &type);
		if (fields != 2 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		len = strlen(line);
		for (i = 0; i < len; i++)
			COST_SEND_BYTE(page, (unsigned char)line[i]);
		sent += len;
	}
	fclose(f);
	printf("cost-ksyms %zu\n", sent);
}

/*
 * The module's counts of lock-free answers and of fallbacks to mmap_lock
 * (its parameters), as "cost-lockfree WHEN HITS FALLBACKS".
 */
static void lockfree_counts(const char *when)
{
	static const char *const files[] = {
		"/sys/module/stackinfo/parameters/lockfree_hits",
		"/sys/module/stackinfo/parameters/lockfree_fallbacks",
	};
	unsigned long v[2] = { 0, 0 };
	int i;

	for (i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");

		if (!f)
			return;
		if (fscanf(f, "%lu", &v[i]) != 1)
			v[i] = 0;
		fclose(f);
	}
	printf("cost-lockfree %s %lu %lu\n", when, v[0], v[1]);
}

static void skip(const char *name, const char *why)
{
	printf("cost-skip %s %s\n", name, why);
}

static void *parked(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/*
 * The interposer's main-thread answer on @backend (its third call on: the
 * library's own), in a child that loads it afresh, so that its first call
 * chooses that backend: one row, @tag.
 */
static void interposed_row(int tag, const char *name, const char *backend, int calls)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!pid) {
		void *preload;

		setenv("STACKINFO_BACKEND", backend, 1);
		preload = dlopen("/usr/lib/libstackinfo-preload.so", RTLD_NOW | RTLD_LOCAL);
		interposed_getattr = preload ? dlsym(preload, "pthread_getattr_np") : NULL;
		if (!interposed_getattr)
			die("the interposer");
		main_thread = pthread_self();
		row(tag, name, interposed_main, calls, 1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die(name);
}

/*
 * What users call, on the module: its text on a kept fd and opened for
 * one read, the library's self query without a handle and through one,
 * the interposer's main-thread answer, and glibc's own call about another
 * thread, the interposer's reference. Then, but in --check, an open and a
 * close alone (of the text, and of the maps glibc's call reads), the
 * library's on PROCMAP_QUERY, and the interposer on it and on the maps
 * parse. The process has had other threads by then: the interposer's PROCMAP_QUERY
 * backend reads maps (libstackinfo(3), SYSTEM CALLS).
 */
static void user_rows(bool check)
{
	start_on_cpu1(&other_thread, parked, NULL);
	row(T_TEXT_KEPT, "text_read", text_kept, 32, 1);
	row(T_TEXT_OPEN, "text_open_read_close", text_open_read_close, 32, 1);
	if (stackinfo_set_backend(STACKINFO_BACKEND_MODULE))
		die("the module backend");
	row(T_LIB_SELF, "lib_self", lib_self, 32, 1);
	if (stackinfo_handle_open(0, &handle))
		die("stackinfo_handle_open");
	row(T_LIB_HANDLE, "lib_handle", lib_handle, 32, 1);
	stackinfo_handle_close(handle);
	interposed_row(T_INTERPOSED, "interposed_main", "module", 32);
	row(T_GLIBC_OTHER, "glibc_other", glibc_other, 32, 1);
	if (check)
		return;
	row(T_TEXT_OPEN_CLOSE, "text_open_close", text_open_close, 32, 1);
	row(T_MAPS_OPEN_CLOSE, "maps_open_close", maps_open_close, 32, 1);
	if (!stackinfo_set_backend(STACKINFO_BACKEND_PROCMAP_QUERY)) {
		row(T_LIB_SELF_PMQ, "lib_self_pmq", lib_self, 32, 1);
		if (stackinfo_handle_open(0, &handle))
			die("stackinfo_handle_open");
		row(T_LIB_HANDLE_PMQ, "lib_handle_pmq", lib_handle, 32, 1);
		stackinfo_handle_close(handle);
		interposed_row(T_INTERPOSED_PMQ, "interposed_main_pmq", "procmap_query", 32);
	} else {
		skip("lib_self_pmq", "no PROCMAP_QUERY (6.11+)");
		skip("lib_handle_pmq", "no PROCMAP_QUERY (6.11+)");
		skip("interposed_main_pmq", "no PROCMAP_QUERY (6.11+)");
	}
	interposed_row(T_INTERPOSED_MAPS, "interposed_main_maps", "maps", 8);
	stackinfo_set_backend(STACKINFO_BACKEND_MODULE);
}

int main(int argc, char **argv)
{
	bool check = argc > 1 && !strcmp(argv[1], "--check");
	pthread_t th[BATCH_THREADS], churn;
	int base, i, n;
	FILE *kr;

	if (argc > 2 || (argc == 2 && !check)) {
		fprintf(stderr, "usage: stackinfo-cost [--check]\n");
		return 2;
	}
	/* kallsyms shows root its addresses unless kptr_restrict is 2 */
	kr = fopen("/proc/sys/kernel/kptr_restrict", "w");
	if (kr) {
		fputs("0\n", kr);
		fclose(kr);
	}
	main_thread = pthread_self();
	pin(0);
	fd = open("/proc/stackinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("/proc/stackinfo");
	base = map_count();

	/* count from here; give the plugin's flush a moment to be done */
	COST_START();
	usleep(20000);
	known_loop_row(16);
	row(T_GETPPID, "getppid", do_getppid, 32, 1);
	row(T_FLOOR, "floor", floor_ioctl, 32, 1);
	row(T_SELF, "self_ioctl", self_ioctl, 32, 1);
	if (!check) {
		/* the batch's threads: this one and BATCH_THREADS - 1 sleepers */
		pthread_barrier_init(&threads_done, NULL, BATCH_THREADS);
		for (i = 0; i < BATCH_THREADS - 1; i++)
			start_on_cpu1(&th[i], sleeper, i ? NULL : &other_tid);
		while (!__atomic_load_n(&other_tid, __ATOMIC_SEQ_CST))
			sched_yield();
		row(T_OTHER, "other_ioctl", other_ioctl, 32, 1);
		/* churn's quiet side: a process of more than one thread */
		row(T_SELF_THREADED, "self_ioctl_threaded", self_ioctl, 32, 1);
		row(T_BATCH, "batch", batch, 16, BATCH_THREADS);
		/* the kernel's check: maps once, syscall a thread; maps alone */
		other_pid = spawn_other_process();
		row(T_BATCH_OTHER, "batch_other", batch_other, 16, BATCH_THREADS);
		row(T_BATCH_OTHER_NOSP, "batch_other_nosp", batch_other_nosp, 16,
		    BATCH_THREADS);
		kill(other_pid, SIGKILL);
		waitpid(other_pid, NULL, 0);
		pthread_barrier_wait(&threads_done);
		for (i = 0; i < BATCH_THREADS - 1; i++)
			pthread_join(th[i], NULL);

		intree_fd = open("/proc/self/stackinfo", O_RDONLY | O_CLOEXEC);
		if (intree_fd >= 0) {
			row(T_INTREE_READ, "intree_read", intree_read, 32, 1);
			row(T_INTREE_IOCTL, "intree_ioctl", intree_ioctl, 32, 1);
		} else {
			skip("intree_read", "no /proc/self/stackinfo (the in-tree series)");
			skip("intree_ioctl", "no /proc/self/stackinfo (the in-tree series)");
		}
		if (!stackinfo_set_backend(STACKINFO_BACKEND_PROCMAP_QUERY))
			row(T_PMQ, "pmq_way", lib_main_stack, 32, 1);
		else
			skip("pmq_way", "no PROCMAP_QUERY (6.11+)");
		if (!stackinfo_set_backend(STACKINFO_BACKEND_MODULE))
			row(T_LIB_MODULE, "lib_module", lib_main_stack, 32, 1);
		row(T_GLIBC_0, "glibc_main_0", glibc_main, 8, 1);

		/* the same self query while another thread maps and unmaps */
		start_on_cpu1(&churn, churner, NULL);
		lockfree_counts("before");
		row(T_SELF_CHURN, "self_ioctl_churn", self_ioctl, 256, 1);
		lockfree_counts("after");
		row(T_GETPPID_CHURN, "getppid_churn", do_getppid, 256, 1);
		churn_stop = true;
		pthread_join(churn, NULL);
	}
	/* its parked thread would be one more in the batch's count: after it */
	user_rows(check);
	mappings_to(base, 3000);
	row(T_SELF_3000, "self_ioctl_3000", self_ioctl, 32, 1);
	if (!check)
		row(T_GLIBC_3000, "glibc_main_3000", glibc_main, 3, 1);
	mappings_to(base, 60000);
	row(T_SELF_60000, "self_ioctl_60000", self_ioctl, 32, 1);
	if (!check)
		row(T_GLIBC_60000, "glibc_main_60000", glibc_main, 2, 1);
	COST_STOP();
	n = map_count();
	printf("cost-maps %d %d\n", base, n);
	send_ksyms();
	return 0;
}
