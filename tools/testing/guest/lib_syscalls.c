// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every system call the library and the interposer make, recorded by
 * ptrace, against two references:
 *  - glibc's own pthread_getattr_np() about the main thread, recorded in
 *    the same process: the interposed call and
 *    stackinfo_pthread_getattr_np() may make no system call it does not
 *    make (what malloc() makes aside: brk, mmap, munmap), so that a
 *    seccomp allow-list of what glibc's call needs never kills them. The
 *    one exception is the PROCMAP_QUERY ioctl where no filter can meet it
 *    (the process has one thread, catches no signal and has no filter:
 *    lib.c, si_ioctl_unfiltered()), and there the ioctl must be made;
 *  - the table of libstackinfo(3), SYSTEM CALLS: every call recorded on a
 *    path of the library must be listed there for that path and backend.
 * Each case is a fresh process (this program again, with --child), its
 * backend set by STACKINFO_BACKEND, on every backend the kernel offers,
 * plain and after pthread_getschedparam() on the main thread (glibc's
 * descriptor then has its "sched set" flags, which the library copies,
 * as glibc does, without sched_get_priority_min/max); on PROCMAP_QUERY,
 * whose ioctl they decide, also with a second thread, with a signal
 * handler, and under a seccomp filter that allows everything. The interposer's statistics must show that the
 * library itself answered the calls recorded as its own.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"
#include "libstackinfo.h"
#include "testutil.h"

/* the marker: getcpu(NULL, NULL, MARK | step << 1 | end), a call neither side makes */
#define MARK		0x5ca1ab1e0000ULL
#define MARK_MASK	0xffffffff0000ULL
#define NSYS		1024

/*
 * The system calls the table and the messages name; those this
 * architecture lacks (arm64 has no open, access, readlink, stat) as
 * NO_SYS, which a row may name and nothing records.
 */
#define NO_SYS	(-2)
static const struct {
	const char *name;
	int nr;
} sys_names[] = {
#define S(n) { #n, SYS_##n },
#ifdef SYS_open
	S(open) S(access) S(readlink) S(stat) S(fstat) S(lstat)
#else
	{ "open", NO_SYS }, { "access", NO_SYS }, { "readlink", NO_SYS },
	{ "stat", NO_SYS }, { "fstat", NO_SYS }, { "lstat", NO_SYS },
#endif
	S(newfstatat) S(openat) S(read) S(close) S(ioctl) S(prlimit64) S(sched_getaffinity)
	S(brk) S(mmap) S(munmap) S(mremap) S(mprotect) S(madvise) S(readlinkat)
	S(sigaltstack) S(faccessat) S(getpid) S(gettid) S(lseek) S(pread64)
	S(futex) S(rt_sigprocmask) S(getrandom) S(sched_get_priority_min)
	S(sched_get_priority_max) S(sched_getparam) S(sched_getscheduler)
	S(getdents64) S(statx) S(fcntl) S(write) S(getcpu) S(uname)
#undef S
};

static const char *sys_name(int nr)
{
	static char other[16];
	size_t i;

	for (i = 0; i < sizeof(sys_names) / sizeof(sys_names[0]); i++)
		if (sys_names[i].nr == nr)
			return sys_names[i].name;
	snprintf(other, sizeof(other), "#%d", nr);
	return other;
}

static int sys_number(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sys_names) / sizeof(sys_names[0]); i++)
		if (!strcmp(sys_names[i].name, name))
			return sys_names[i].nr;
	return -1;
}

typedef struct {
	unsigned char on[NSYS];
} sysset;

static void set_add_name(sysset *s, const char *name)
{
	int nr = sys_number(name);

	if (nr >= 0 && nr < NSYS)
		s->on[nr] = 1;	/* NO_SYS: nothing to record */
}

/* what malloc() makes, on either side */
static void set_add_malloc(sysset *s)
{
	set_add_name(s, "brk");
	set_add_name(s, "mmap");
	set_add_name(s, "munmap");
}

/* the calls of @a that @b lacks, as names, into @out; false if there are none */
static bool set_beyond(const sysset *a, const sysset *b, char *out, size_t size)
{
	size_t len = 0;
	bool any = false;
	int nr;

	out[0] = '\0';
	for (nr = 0; nr < NSYS; nr++) {
		if (!a->on[nr] || b->on[nr])
			continue;
		any = true;
		len += snprintf(out + len, len < size ? size - len : 0, " %s", sys_name(nr));
	}
	return any;
}

/* ---- the steps a child takes, each recorded on its own ---- */

enum step {
	ST_GLIBC1, ST_GLIBC2, ST_GLIBC3,
	ST_INTERPOSED1, ST_INTERPOSED2, ST_INTERPOSED3, ST_INTERPOSED4,
	ST_LIB_FIRST, ST_LIB_GETATTR1, ST_LIB_GETATTR2, ST_LIB_GETATTR3,
	ST_QUERY_SELF, ST_QUERY_OTHER, ST_QUERY_PROCESS, ST_MAIN_STACK,
	ST_GETSTACK_MAIN, ST_GETSTACK_OTHER,
	ST_NR
};

/*
 * The step's path, as the first column of libstackinfo(3)'s table names
 * it; NULL for glibc's own steps. ST_LIB_FIRST is the library's first
 * call, which chooses the backend.
 */
static const char *const step_path[ST_NR] = {
	[ST_INTERPOSED1] = "pthread_getattr_np, main thread, first call",
	[ST_INTERPOSED2] = "pthread_getattr_np, main thread, second call",
	[ST_INTERPOSED3] = "pthread_getattr_np, main thread",
	[ST_INTERPOSED4] = "pthread_getattr_np, main thread",
	[ST_LIB_FIRST] = "choosing the backend",
	[ST_LIB_GETATTR1] = "pthread_getattr_np, main thread, first call",
	[ST_LIB_GETATTR2] = "pthread_getattr_np, main thread, second call",
	[ST_LIB_GETATTR3] = "pthread_getattr_np, main thread",
	[ST_QUERY_SELF] = "stackinfo_query_thread, the caller",
	[ST_QUERY_OTHER] = "stackinfo_query_thread, another thread",
	[ST_QUERY_PROCESS] = "stackinfo_query_process, the caller's process",
	[ST_MAIN_STACK] = "stackinfo_main_stack",
	[ST_GETSTACK_MAIN] = "pthread_getstack_np, main thread",
	[ST_GETSTACK_OTHER] = "pthread_getstack_np, another thread",
};

/* the steps held against glibc's own call (and the ioctl rule) */
static bool step_is_getattr(int s)
{
	return (s >= ST_INTERPOSED1 && s <= ST_INTERPOSED4) ||
	       (s >= ST_LIB_GETATTR1 && s <= ST_LIB_GETATTR3);
}

/* the steps where the library answers itself, as it does from the third call */
static bool step_answers_itself(int s)
{
	return s == ST_INTERPOSED3 || s == ST_INTERPOSED4 || s == ST_LIB_GETATTR3;
}

enum state { PLAIN, SCHED, THREADED, HANDLER, FILTERED, NSTATES };
static const char *const state_names[NSTATES] = {
	"plain", "after pthread_getschedparam()", "with a second thread",
	"with a signal handler", "under an allow-all seccomp filter",
};

static void mark(int step, int end)
{
	syscall(SYS_getcpu, NULL, NULL, (void *)(uintptr_t)(MARK | (unsigned)step << 1 | end));
}

static volatile pid_t parked_tid;

static void *parked(void *arg)
{
	(void)arg;
	parked_tid = t_gettid();
	for (;;)
		pause();
	return NULL;
}

static int start_parked(pthread_t *th)
{
	int i;

	if (pthread_create(th, NULL, parked, NULL))
		return -1;
	for (i = 0; i < 5000 && !parked_tid; i++)
		usleep(1000);
	return parked_tid && !t_wait_sleeping(parked_tid) ? 0 : -1;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void one_getattr(t_getattr_fn fn)
{
	pthread_attr_t a;

	if (!fn(pthread_self(), &a))
		pthread_attr_destroy(&a);
}

/*
 * The traced process: its state set up, then every step between two
 * markers, on the main thread. The second thread the last steps ask about
 * is started only after the pthread_getattr_np() steps, but in THREADED.
 */
static int child(enum state state)
{
	t_getattr_fn glibc = t_glibc_getattr(), interposed, lib = stackinfo_pthread_getattr_np;
	struct stackinfo_query q, many[8];
	struct sched_param sp;
	char path[PATH_MAX];
	size_t count, size;
	pthread_t other;
	int policy, i;
	void *h, *addr;

	t_preload_path(path, sizeof(path));
	h = dlopen(path, RTLD_NOW);
	if (!h || !glibc) {
		fprintf(stderr, "child: %s: %s\n", path, dlerror());
		return 3;
	}
	interposed = (t_getattr_fn)dlsym(h, "pthread_getattr_np");
	if ((state == THREADED && start_parked(&other)) ||
	    (state == SCHED && pthread_getschedparam(pthread_self(), &policy, &sp)) ||
	    (state == HANDLER && signal(SIGUSR1, on_usr1) == SIG_ERR) ||
	    (state == FILTERED && t_filter(-1, SECCOMP_RET_ALLOW, 0)))
		return 3;

	if (ptrace(PTRACE_TRACEME, 0, 0, 0) || raise(SIGSTOP))
		return 3;
	for (i = ST_GLIBC1; i <= ST_GLIBC3; i++) {
		mark(i, 0);
		one_getattr(glibc);
		mark(i, 1);
	}
	for (i = ST_INTERPOSED1; i <= ST_INTERPOSED4; i++) {
		mark(i, 0);
		one_getattr(interposed);
		mark(i, 1);
	}
	mark(ST_LIB_FIRST, 0);
	stackinfo_backend();
	mark(ST_LIB_FIRST, 1);
	for (i = ST_LIB_GETATTR1; i <= ST_LIB_GETATTR3; i++) {
		mark(i, 0);
		one_getattr(lib);
		mark(i, 1);
	}
	if (state != THREADED && start_parked(&other))
		return 3;
	mark(ST_QUERY_SELF, 0);
	stackinfo_query_thread(0, 0, &q);
	mark(ST_QUERY_SELF, 1);
	mark(ST_QUERY_OTHER, 0);
	stackinfo_query_thread(parked_tid, 0, &q);
	mark(ST_QUERY_OTHER, 1);
	mark(ST_QUERY_PROCESS, 0);
	stackinfo_query_process(0, 0, many, 8, &count);
	mark(ST_QUERY_PROCESS, 1);
	mark(ST_MAIN_STACK, 0);
	stackinfo_main_stack(&addr, &size);
	mark(ST_MAIN_STACK, 1);
	mark(ST_GETSTACK_MAIN, 0);
	pthread_getstack_np(pthread_self(), &addr, &size);
	mark(ST_GETSTACK_MAIN, 1);
	mark(ST_GETSTACK_OTHER, 0);
	pthread_getstack_np(other, &addr, &size);
	mark(ST_GETSTACK_OTHER, 1);
	return 0;
}

/* ---- libstackinfo(3)'s table ---- */

struct row {
	char path[96];
	char backends[96];
	sysset calls;
};

static struct row rows[64];
static int nrows;

/*
 * The rows of SYSTEM CALLS: a path as a ".TP" tag (".B PATH"), then one
 * line for each group of backends, "backend, backend: calls", the calls
 * system call names, "malloc" for what malloc() makes, "none" for none.
 */
static int read_table(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512], path[96] = "";
	bool section = false;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && nrows < (int)(sizeof(rows) / sizeof(rows[0]))) {
		char *calls, *tok, *save;
		struct row *r = &rows[nrows];

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, ".SH ", 4)) {
			section = !strcmp(line, ".SH SYSTEM CALLS");
			continue;
		}
		if (!section)
			continue;
		if (!strncmp(line, ".B ", 3)) {
			if (strlen(line + 3) >= sizeof(path))
				CHECK(0, "libstackinfo(3): a path too long: %s", line + 3);
			else
				strcpy(path, line + 3);
			continue;
		}
		if (!strcmp(line, ".PP"))
			path[0] = '\0';
		calls = strstr(line, ": ");
		if (!path[0] || line[0] == '.' || !calls)
			continue;
		*calls = '\0';
		calls += 2;
		if (strlen(line) + 3 > sizeof(r->backends)) {
			CHECK(0, "libstackinfo(3): %s: backends too long", path);
			continue;
		}
		strcpy(r->path, path);
		sprintf(r->backends, " %s ", line);
		for (tok = r->backends; *tok; tok++)
			if (*tok == ',')
				*tok = ' ';
		memset(&r->calls, 0, sizeof(r->calls));
		for (tok = strtok_r(calls, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			if (!strcmp(tok, "malloc"))
				set_add_malloc(&r->calls);
			else if (!strcmp(tok, "none"))
				continue;
			else if (sys_number(tok) == -1)
				CHECK(0, "libstackinfo(3): %s: unknown system call %s", path, tok);
			else
				set_add_name(&r->calls, tok);
		}
		nrows++;
	}
	fclose(f);
	return nrows ? 0 : -ENOENT;
}

/* the row for @path on @backend (or "any"), NULL for none */
static const struct row *row_for(const char *path, const char *backend)
{
	char b[40];
	int i;

	snprintf(b, sizeof(b), " %s ", backend);
	for (i = 0; i < nrows; i++)
		if (!strcmp(rows[i].path, path) &&
		    (strstr(rows[i].backends, b) || strstr(rows[i].backends, " any ")))
			return &rows[i];
	return NULL;
}

/* ---- the tracer ---- */

struct record {
	sysset step[ST_NR];
	bool seen[ST_NR];
};

/*
 * Run the child for @state on @backend under ptrace, recording the system
 * calls between each step's markers. 0, or -1 where it did not run to its end.
 */
static int trace(const char *self, const char *backend, enum state state,
		 const char *stats, struct record *r)
{
	char arg[8];
	int status, step = -1;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	snprintf(arg, sizeof(arg), "%d", state);
	fflush(NULL);
	pid = fork();
	if (!pid) {
		setenv("STACKINFO_BACKEND", backend, 1);
		setenv("STACKINFO_PRELOAD_STATS", stats, 1);
		execl(self, self, "--child", arg, (char *)NULL);
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		CHECK(0, "%s, %s: the child did not stop for its tracer", backend,
		      state_names[state]);
		return -1;
	}
	for (int sig = 0;;) {
		struct __ptrace_syscall_info info;

		if (ptrace(PTRACE_SYSCALL, pid, 0, sig) || waitpid(pid, &status, 0) != pid)
			break;
		sig = 0;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(status);
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info) <= 0 ||
		    info.op != PTRACE_SYSCALL_INFO_ENTRY)
			continue;
		if (info.entry.nr == SYS_getcpu &&
		    (info.entry.args[2] & MARK_MASK) == MARK) {
			int s = (int)((info.entry.args[2] & 0xffff) >> 1);

			step = (info.entry.args[2] & 1) || s >= ST_NR ? -1 : s;
			if (step >= 0)
				r->seen[step] = true;
			continue;
		}
		if (step >= 0 && info.entry.nr < NSYS)
			r->step[step].on[info.entry.nr] = 1;
	}
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "%s, %s: the child's status %#x",
	      backend, state_names[state], status);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* "library N" of the interposer's statistics line in @file; -1 for none */
static long stats_library(const char *file)
{
	char buf[512], *p;
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "(library ");
	return p ? strtol(p + strlen("(library "), NULL, 10) : -1;
}

static const struct {
	int backend;
	const char *name;
} backends[] = {
	{ STACKINFO_BACKEND_PROC, "proc" },
	{ STACKINFO_BACKEND_MODULE, "module" },
	{ STACKINFO_BACKEND_PROCMAP_QUERY, "procmap_query" },
	{ STACKINFO_BACKEND_MAPS, "maps" },
};

/* --print: every step's calls, to write libstackinfo(3)'s table from */
static bool print_steps;

static void hold(const char *backend, enum state state, const struct record *r,
		 long library)
{
	bool unfiltered = !strcmp(backend, "procmap_query") &&
			  (state == PLAIN || state == SCHED);
	sysset glibc = { 0 }, allowed;
	char extra[256], what[200];
	int s, i;

	for (s = ST_GLIBC1; s <= ST_GLIBC3; s++)
		for (i = 0; i < NSYS; i++)
			glibc.on[i] |= r->step[s].on[i];
	CHECK(!glibc.on[SYS_ioctl], "%s, %s: glibc's own call made an ioctl", backend,
	      state_names[state]);
	set_add_malloc(&glibc);
	for (s = 0; s < ST_NR; s++) {
		const struct row *row;

		snprintf(what, sizeof(what), "%s, %s, step %d (%s)", backend, state_names[state],
			 s, step_path[s] ? step_path[s] : "glibc's own call");
		CHECK(r->seen[s], "%s: never reached", what);
		if (print_steps) {
			sysset none = { 0 };

			set_beyond(&r->step[s], &none, extra, sizeof(extra));
			printf("info: %s:%s\n", what, extra);
		}
		if (!step_path[s])
			continue;
		if (step_is_getattr(s)) {
			allowed = glibc;
			if (unfiltered)
				set_add_name(&allowed, "ioctl");
			CHECK(!set_beyond(&r->step[s], &allowed, extra, sizeof(extra)),
			      "%s: system calls glibc's own call does not make:%s", what, extra);
			/* where no filter can meet it, the library asks PROCMAP_QUERY */
			if (unfiltered && step_answers_itself(s))
				CHECK(r->step[s].on[SYS_ioctl],
				      "%s: no PROCMAP_QUERY where no filter can meet it", what);
		}
		row = row_for(step_path[s], backend);
		CHECK(row, "%s: libstackinfo(3) lists no system calls for it", what);
		if (row)
			CHECK(!set_beyond(&r->step[s], &row->calls, extra, sizeof(extra)),
			      "%s: system calls libstackinfo(3) does not list:%s", what, extra);
	}
	/* the interposer's third and fourth calls are the library's own */
	snprintf(what, sizeof(what), "%s, %s", backend, state_names[state]);
	CHECK(library >= 2, "%s: the interposer answered %ld calls itself, not 2", what, library);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], table[PATH_MAX + 32], stats[64];
	ssize_t n;
	size_t b;
	int state, ran = 0;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child(atoi(argv[2]));
	print_steps = argc == 2 && !strcmp(argv[1], "--print");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	/* the man page beside the tests: /usr/lib/stackinfo in the guest, build/guest here */
	snprintf(table, sizeof(table), "%s/../libstackinfo.3", dirname(strdupa(self)));
	CHECK(!read_table(table), "%s: no SYSTEM CALLS rows", table);
	snprintf(stats, sizeof(stats), "/tmp/lib_syscalls.%d", (int)getpid());
	for (b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		if (!t_backend_offered(backends[b].backend))
			continue;
		for (state = 0; state < NSTATES; state++) {
			struct record r;

			/*
			 * Threads, handlers and filters decide only whether
			 * PROCMAP_QUERY's ioctl is made; elsewhere the plain
			 * state and glibc's sched flags cover every path
			 */
			if (backends[b].backend != STACKINFO_BACKEND_PROCMAP_QUERY &&
			    state != PLAIN && state != SCHED)
				continue;
			unlink(stats);
			if (trace(self, backends[b].name, state, stats, &r))
				continue;
			hold(backends[b].name, state, &r, stats_library(stats));
			ran++;
		}
		printf("info: %s: recorded\n", backends[b].name);
	}
	unlink(stats);
	CHECK(ran, "no backend recorded");
	return t_result();
}
