// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo-profile: where the own-thread query's time goes, inside a
 * guest (tools/bench/profile-run boots it). Every figure is timed in
 * rotating or alternating rounds of this one process, since TCG's speed
 * drifts by 2x within seconds.
 *
 *   stackinfo-profile [TURNS]
 *
 * 1. The floors (getppid, an ioctl on /dev/null: any device node's, the
 *    procfs ioctl rejected at once), the query's ways, mincore() of a
 *    stack page, glibc's call about another thread: one round of each in
 *    turn, each against getppid of its own turn.
 * 2. With a measurement build of the module (STACKINFO_PROFILE=y: the
 *    parameter "profile" exists), the cycles of each step of the query.
 *    With STACKINFO_PROFILE_BEFORE=PATH (another build's
 *    libstackinfo-preload.so; tools/bench/profile-run --lib-before REV),
 *    that interposer's pthread_getattr_np and this tree's
 *    (STACKINFO_PROFILE_AFTER, default the installed one), each dlopen()ed,
 *    on the main thread, in the same turns: a library change measured
 *    before and after in one process.
 * 3. Under churners: quiet against an mmap/munmap loop in a thread of this
 *    process (it shares the mm: it takes mmap_lock for writing and can
 *    shoot down this mm's TLB entries), in another process (its own mm:
 *    only the CPU and the caches are shared) and a process spinning on
 *    getppid (the CPU alone); with the look-aside counters, the guest's
 *    TLB shootdowns and, with the measurement build, the steps under it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"
#include "libstackinfo.h"

#define PARAM "/sys/module/stackinfo/parameters/"
#define ROUND_MS 25.0
#define MAX_TURNS BENCH_MAX_FIGURES
#define MAX_STEPS 32

static int fd = -1, devnull = -1;
static pthread_t other_th;

static void die(const char *what)
{
	fprintf(stderr, "stackinfo-profile: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- the ways, one call each, 0 on success ---- */

static int m_null(void)
{
	return getppid() > 0 ? 0 : -1;
}

static int m_reject(void)
{
	struct stackinfo_query q = { .size = 0 };

	return ioctl(fd, STACKINFO_IOC_QUERY, &q) == -1 && errno == EINVAL ?
		       0 : -1;
}

/* any device node's ioctl floor (ENOTTY), what a misc device would pay */
static int m_devnull(void)
{
	struct stackinfo_query q = { .size = 0 };

	if (ioctl(devnull, STACKINFO_IOC_QUERY, &q) == -1 && errno == ENOTTY)
		return 0;
	return -1;
}

static int query_flags(uint64_t flags)
{
	struct stackinfo_query q = { .size = sizeof(q), .query_flags = flags };

	return ioctl(fd, STACKINFO_IOC_QUERY, &q);
}

static int m_self(void)
{
	return query_flags(0);
}

static int m_self_no_sp(void)
{
	return query_flags(STACKINFO_QUERY_NO_SP);
}

static int m_lib(void)
{
	void *addr;
	size_t size;

	return stackinfo_main_stack(&addr, &size);
}

/* glibc's call about another thread: no maps parse, the floor to beat */
static int m_glibc_other(void)
{
	return bench_getattr(pthread_getattr_np, other_th);
}

/* what the interposer answers the main thread with */
static int m_lib_getattr_main(void)
{
	return bench_getattr(stackinfo_pthread_getattr_np, pthread_self());
}

/*
 * What glibc's call about another thread does besides copying fields
 * (nptl/pthread_getattr_np.c): an attr, the CPU set read in 32 bytes
 * (sched_getaffinity) and copied into it. The library's call does the
 * same for the main thread, around its query.
 */
static int m_cpuset(void)
{
	uint64_t set[32 / sizeof(uint64_t)];
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);

	if (!err)
		err = pthread_getaffinity_np(pthread_self(), sizeof(set), (cpu_set_t *)set);
	if (!err)
		err = pthread_attr_setaffinity_np(&attr, sizeof(set), (cpu_set_t *)set);
	pthread_attr_destroy(&attr);
	return err;
}

/* two builds of the interposer, dlopen()ed: their pthread_getattr_np */
static bench_getattr_fn preload_before, preload_after;

static int m_preload_before(void)
{
	return bench_getattr(preload_before, pthread_self());
}

static int m_preload_after(void)
{
	return bench_getattr(preload_after, pthread_self());
}

/*
 * The interposer at @path, dlopen()ed from the main thread (its
 * constructor knows the main thread so) and past its first calls (the
 * first is glibc's, the second checks against glibc): NULL if none.
 */
static bench_getattr_fn preload_open(const char *path)
{
	bench_getattr_fn fn;
	void *h;
	int i;

	if (!path || !*path)
		return NULL;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "stackinfo-profile: %s\n", dlerror());
		exit(1);
	}
	fn = (bench_getattr_fn)dlsym(h, "pthread_getattr_np");
	if (!fn)
		die(path);
	for (i = 0; i < 3; i++)
		if (bench_getattr(fn, pthread_self()))
			die(path);
	return fn;
}

/*
 * The kernel's own smallest look at this mm: mincore() of one page of
 * this stack takes mmap_lock for reading, finds the VMA and walks the
 * page table; what a churner sharing the mm does to it, it does to any
 * lookup of the mm, the module's or the kernel's.
 */
static int m_mincore(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char vec;
	char here;

	return mincore((void *)((unsigned long)&here & ~(page - 1)), 1, &vec);
}

struct way {
	const char *name;
	int (*fn)(void);
	int backend; /* library backend to set first, or 0 */
	bench_getattr_fn *needs; /* none of it ("-") while this is NULL */
};

static const struct way ways[] = {
	{ "getppid (floor)", m_null, 0, NULL },
	{ "ioctl on /dev/null", m_devnull, 0, NULL },
	{ "procfs ioctl rejected", m_reject, 0, NULL },
	{ "query, own thread", m_self, 0, NULL },
	{ "query, own thread, NO_SP", m_self_no_sp, 0, NULL },
	{ "lib main stack, module", m_lib, STACKINFO_BACKEND_MODULE, NULL },
	{ "lib main stack, PROCMAP_QUERY", m_lib,
	  STACKINFO_BACKEND_PROCMAP_QUERY, NULL },
	{ "mincore, one stack page", m_mincore, 0, NULL },
	{ "glibc getattr, other thread", m_glibc_other, 0, NULL },
	{ "lib getattr, main thread", m_lib_getattr_main,
	  STACKINFO_BACKEND_MODULE, NULL },
	{ "interposed getattr main, before", m_preload_before, 0,
	  &preload_before },
	{ "interposed getattr main, after", m_preload_after, 0,
	  &preload_after },
	{ "CPU set into an attr (getaffinity)", m_cpuset, 0, NULL },
};

#define NWAYS ((int)(sizeof(ways) / sizeof(ways[0])))

static double round_of(const struct way *w)
{
	double t0, t;
	long n = 0;

	if ((w->backend && stackinfo_set_backend(w->backend)) ||
	    (w->needs && !*w->needs))
		return -1;
	t0 = bench_now_us();
	do {
		if (w->fn())
			die(w->name);
		n++;
		t = bench_now_us() - t0;
	} while (t < ROUND_MS * 1000);
	return t / n;
}

/* ---- the module's parameters and the guest's counters ---- */

static int param_read(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int pfd;

	snprintf(path, sizeof(path), PARAM "%s", name);
	pfd = open(path, O_RDONLY | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	n = read(pfd, buf, len - 1);
	close(pfd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int param_write(const char *name, const char *v)
{
	char path[128];
	int pfd, ok;

	snprintf(path, sizeof(path), PARAM "%s", name);
	pfd = open(path, O_WRONLY | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	ok = write(pfd, v, strlen(v)) == (ssize_t)strlen(v);
	close(pfd);
	return ok ? 0 : -1;
}

static unsigned long param_ulong(const char *name)
{
	char buf[64];

	return param_read(name, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 10);
}

/* TLB shootdown interrupts received, all CPUs (/proc/interrupts "TLB:") */
static unsigned long tlb_shootdowns(void)
{
	char line[1024], *p, *end;
	unsigned long sum = 0;
	FILE *f = fopen("/proc/interrupts", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "TLB:", 4))
			continue;
		for (p += 4;; p = end) {
			unsigned long v = strtoul(p, &end, 10);

			if (end == p)
				break;
			sum += v;
		}
	}
	fclose(f);
	return sum;
}

struct profile {
	int n;
	unsigned long khz;
	char name[MAX_STEPS][24];
	double cycles[MAX_STEPS], count[MAX_STEPS];
};

static int have_profile;

static int profile_read(struct profile *p)
{
	static char buf[8192];
	char *line, *save = NULL;

	memset(p, 0, sizeof(*p));
	if (param_read("profile", buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long c, k;
		char name[24];

		if (sscanf(line, "tsc_khz %lu", &p->khz) == 1)
			continue;
		if (p->n < MAX_STEPS &&
		    sscanf(line, "%23s %llu %llu", name, &c, &k) == 3) {
			strcpy(p->name[p->n], name);
			p->cycles[p->n] = c;
			p->count[p->n] = k;
			p->n++;
		}
	}
	return 0;
}

/*
 * ns per query of each step, less a mark's own cost (the "mark" step,
 * timed right after the chain begins); queries counted by "copy_out",
 * the last mark of a query that succeeded.
 */
static void profile_print(const char *what, const struct profile *p)
{
	double mark = 0, queries = 0, ns[MAX_STEPS], total = 0;
	int i;

	for (i = 0; i < p->n; i++) {
		if (!strcmp(p->name[i], "mark") && p->count[i])
			mark = p->cycles[i] / p->count[i];
		if (!strcmp(p->name[i], "copy_out"))
			queries = p->count[i];
	}
	if (!queries || !p->khz)
		return;
	for (i = 0; i < p->n; i++) {
		double c = p->cycles[i] - mark * p->count[i];

		ns[i] = strcmp(p->name[i], "mark") ?
				c / queries * 1e6 / p->khz : 0;
		if (ns[i] < 0)
			ns[i] = 0;
		total += ns[i];
	}
	printf("\nSteps of the query, %s: %.0f queries, ns per query (a mark's own %.0f ns taken off each)\n",
	       what, queries, mark * 1e6 / p->khz);
	printf("  %-18s %10s %8s %12s\n", "step", "ns", "share", "per query");
	for (i = 0; i < p->n; i++) {
		if (!strcmp(p->name[i], "mark") || !p->count[i])
			continue;
		printf("  %-18s %10.1f %7.1f%% %12.3f\n", p->name[i], ns[i],
		       100 * ns[i] / total, p->count[i] / queries);
		printf("PROF,%s,%s,%.2f,%.4f\n", what, p->name[i], ns[i],
		       ns[i] / total);
	}
	printf("  %-18s %10.1f\n", "in the module", total);
	printf("PROF,%s,total,%.2f,1\n", what, total);
}

static void profile_delta(struct profile *after, const struct profile *before)
{
	int i;

	for (i = 0; i < after->n && i < before->n; i++) {
		after->cycles[i] -= before->cycles[i];
		after->count[i] -= before->count[i];
	}
}

/* ---- 1. the ways in turn ---- */

static void ways_in_turn(int turns)
{
	static double us[NWAYS][MAX_TURNS], x[NWAYS][MAX_TURNS];
	struct profile before, after;
	int r, i;

	if (have_profile)
		profile_read(&before);
	for (r = 0; r < turns; r++)
		for (i = 0; i < NWAYS; i++) {
			/* rotate the order each turn, so drift favours none */
			int k = (i + r) % NWAYS;

			us[k][r] = round_of(&ways[k]);
		}
	printf("\nThe ways, one round of %.0f ms each in turn, medians of %d turns\n",
	       ROUND_MS, turns);
	printf("  %-32s %10s %10s\n", "way", "µs/call", "x getppid");
	for (i = 0; i < NWAYS; i++) {
		if (us[i][0] < 0) {
			printf("  %-32s %10s\n", ways[i].name, "-");
			continue;
		}
		for (r = 0; r < turns; r++)
			x[i][r] = us[i][r] / us[0][r];
		printf("  %-32s %10.2f %10.2f\n", ways[i].name,
		       bench_median(us[i], turns), bench_median(x[i], turns));
		printf("WAY,%s,%.4f,%.4f\n", ways[i].name, bench_median(us[i], turns),
		       bench_median(x[i], turns));
	}
	/* ratios the targets name, each per turn, then the median */
	{
		static const struct {
			const char *name;
			int a, b;
		} pairs[] = {
			{ "query - procfs floor, x getppid", 3, 2 },
			{ "procfs floor - device floor, x getppid", 2, 1 },
			{ "PROCMAP_QUERY way / module way", 6, 5 },
			{ "lib getattr main / glibc other", 9, 8 },
			{ "interposed main, before / glibc other", 10, 8 },
			{ "interposed main, after / glibc other", 11, 8 },
			{ "interposed main, after / before", 11, 10 },
		};
		/* the library's call less its query and less the CPU set */
		double rest[MAX_TURNS];
		double v[MAX_TURNS];
		size_t p;

		for (p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
			if (us[pairs[p].a][0] < 0 || us[pairs[p].b][0] < 0)
				continue;
			for (r = 0; r < turns; r++)
				v[r] = p > 1 ? us[pairs[p].a][r] / us[pairs[p].b][r] :
					       x[pairs[p].a][r] - x[pairs[p].b][r];
			printf("  %-32s %10.2f\n", pairs[p].name,
			       bench_median(v, turns));
			printf("WAYRATIO,%s,%.4f\n", pairs[p].name,
			       bench_median(v, turns));
		}
		for (r = 0; r < turns; r++)
			rest[r] = x[9][r] - x[5][r] - x[12][r];
		printf("  %-32s %10.2f\n", "lib getattr main - lib main stack - CPU set, x getppid",
		       bench_median(rest, turns));
		printf("WAYRATIO,lib getattr main - lib main stack - CPU set x getppid,%.4f\n",
		       bench_median(rest, turns));
	}
	stackinfo_set_backend(STACKINFO_BACKEND_MODULE);
	if (have_profile && !profile_read(&after)) {
		profile_delta(&after, &before);
		profile_print("quiet", &after);
	}
	fflush(stdout);
}

/* ---- 3. churners ---- */

static volatile int churning; /* the thread churner: 0 pause, 1 run, 2 quit */

static void churn_loop(volatile int *run)
{
	long page = sysconf(_SC_PAGESIZE);

	while (*run == 1) {
		void *p = mmap(NULL, page, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, page);
	}
}

static void *churn_thread(void *arg)
{
	(void)arg;
	while (churning != 2) {
		if (churning == 1)
			churn_loop(&churning);
		else
			usleep(200);
	}
	return NULL;
}

enum churner { C_THREAD, C_PROCESS, C_SPIN, C_NR };

static const char *const churner_names[C_NR] = {
	"mmap/munmap, a thread of this process (shares the mm)",
	"mmap/munmap, another process (its own mm)",
	"getppid spin, another process (CPU only)",
};

static pid_t child;

static void churn_start(enum churner c)
{
	static volatile int forever = 1;

	if (c == C_THREAD) {
		churning = 1;
		return;
	}
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		if (c == C_PROCESS)
			churn_loop(&forever);
		for (;;)
			getppid();
	}
}

static void churn_stop(enum churner c)
{
	if (c == C_THREAD) {
		churning = 0;
		usleep(1000);
		return;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

static void churners(int turns)
{
	/* getppid, the query, then (after lockfree=N) mincore, PROCMAP_QUERY */
	static const int which[] = { 0, 3, 3, 7, 6 };
	double q[MAX_TURNS], c[MAX_TURNS], ratio[MAX_TURNS];
	pthread_t th;
	int locked;
	int cc, w, r, lf;
	char lf_buf[8];

	if (param_read("lockfree", lf_buf, sizeof(lf_buf)))
		lf_buf[0] = 'N';
	locked = lf_buf[0] != 'Y';
	if (pthread_create(&th, NULL, churn_thread, NULL))
		die("pthread_create");
	printf("\nQuiet against churners, alternating rounds of %.0f ms, medians of %d pairs; throughput = 1/µs\n",
	       ROUND_MS, turns);
	for (cc = 0; cc < C_NR; cc++) {
		printf(" %s\n", churner_names[cc]);
		printf("  %-30s %9s %9s %12s %10s %10s %9s\n", "way", "quiet µs",
		       "churn µs", "thrpt ratio", "fallbacks", "hits",
		       "TLB ints");
		/* the query lock-free, then (where it can be) under mmap_lock */
		for (lf = 0; lf < 5; lf++) {
			unsigned long fb, hits, tlb;
			struct profile before, after;
			const char *name;

			w = which[lf];
			if (lf == 2 && locked)
				continue;
			if (lf == 2 && param_write("lockfree", "N"))
				continue;
			name = lf == 2 ? "query, lockfree=N" : ways[w].name;
			fb = param_ulong("lockfree_fallbacks");
			hits = param_ulong("lockfree_hits");
			tlb = tlb_shootdowns();
			if (have_profile)
				profile_read(&before);
			for (r = 0; r < turns; r++) {
				if (r & 1) {
					churn_start(cc);
					c[r] = round_of(&ways[w]);
					churn_stop(cc);
					q[r] = round_of(&ways[w]);
				} else {
					q[r] = round_of(&ways[w]);
					churn_start(cc);
					c[r] = round_of(&ways[w]);
					churn_stop(cc);
				}
				ratio[r] = q[r] / c[r];
			}
			fb = param_ulong("lockfree_fallbacks") - fb;
			hits = param_ulong("lockfree_hits") - hits;
			tlb = tlb_shootdowns() - tlb;
			printf("  %-30s %9.2f %9.2f %12.2f %10lu %10lu %9lu\n",
			       name, bench_median(q, turns), bench_median(c, turns),
			       bench_median(ratio, turns), fb, hits, tlb);
			printf("CHURN,%d,%s,%.4f,%.4f,%.4f,%lu,%lu,%lu\n", cc,
			       name, bench_median(q, turns), bench_median(c, turns),
			       bench_median(ratio, turns), fb, hits, tlb);
			if (lf == 2)
				param_write("lockfree", "Y");
			if (have_profile && lf == 1 && !profile_read(&after)) {
				char what[32];

				profile_delta(&after, &before);
				snprintf(what, sizeof(what), "churner %d", cc);
				profile_print(what, &after);
			}
		}
	}
	churning = 2;
	pthread_join(th, NULL);
	fflush(stdout);
}

static void *other_main(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int turns = argc > 1 ? atoi(argv[1]) : 9;
	struct profile p;

	if (turns < 1 || turns > MAX_TURNS) {
		fprintf(stderr, "usage: stackinfo-profile [TURNS 1..%d]\n",
			MAX_TURNS);
		return 2;
	}
	fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(STACKINFO_PROC_PATH);
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0)
		die("/dev/null");
	if (pthread_create(&other_th, NULL, other_main, NULL))
		die("pthread_create");
	preload_before = preload_open(getenv("STACKINFO_PROFILE_BEFORE"));
	if (preload_before) {
		const char *after = getenv("STACKINFO_PROFILE_AFTER");

		preload_after = preload_open(after ? after : "/usr/lib/libstackinfo-preload.so");
	}
	have_profile = !profile_read(&p);
	printf("stackinfo-profile: %s build of the module\n",
	       have_profile ? "measurement (per-step counters)" : "ordinary");
	ways_in_turn(turns);
	churners(turns);
	return 0;
}
