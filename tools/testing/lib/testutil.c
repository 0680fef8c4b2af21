// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Helpers for stackinfo's test programs; see testutil.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <linux/userfaultfd.h>

#include "internal.h"
#include "compat.h"
#include "testutil.h"

int t_failures;

int t_result(void)
{
	return t_failures ? 1 : 0;
}

pid_t t_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

double t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* startstack, field 28 of /proc/self/stat; read without allocating. */
uint64_t t_stat_start_stack(void)
{
	char buf[4096], *p;
	unsigned long long v = 0;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int field;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold spaces */
	if (!p)
		return 0;
	/* field 3 follows ") " */
	for (field = 3, p += 2; p && field < 28; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		sscanf(p, "%llu", &v);
	return v;
}

int t_kernel_main_stack(void **addr, size_t *size)
{
	const uint64_t page = sysconf(_SC_PAGESIZE);
	const struct maps_entry *e, *prev;
	uint64_t ss = t_stat_start_stack(), top, sz, cur;
	struct maps m = { 0 };
	struct rlimit rl;
	int err;

	if (!ss)
		return EACCES;
	err = maps_read(&m, 0);
	if (err)
		return -err;
	if (getrlimit(RLIMIT_STACK, &rl)) {
		err = errno;
		maps_free(&m);
		return err;
	}
	e = maps_find(&m, ss, &prev);
	if (!e) {
		maps_free(&m);
		return ENOENT;
	}
	top = (ss & -page) + page;
	cur = rl.rlim_cur == RLIM_INFINITY ? ~0ULL : rl.rlim_cur;
	sz = (cur - (e->end - top)) & -page;
	if (prev && sz > top - prev->end)
		sz = top - prev->end;
	*addr = (void *)(uintptr_t)(top - sz);
	*size = sz;
	maps_free(&m);
	return 0;
}

int t_module_load(const char *params)
{
	int fd = open(T_MODULE_KO, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return err;
}

int t_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : n == (ssize_t)strlen(text) ? 0 : -EIO;
}

#define T_YAMA_SCOPE "/proc/sys/kernel/yama/ptrace_scope"

int t_user_mount_ns(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -errno;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)uid);
	CHECK(!t_write_file("/proc/self/setgroups", "deny"), "setgroups");
	CHECK(!t_write_file("/proc/self/uid_map", map), "uid_map");
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)gid);
	CHECK(!t_write_file("/proc/self/gid_map", map), "gid_map");
	CHECK(!mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), "MS_PRIVATE: %s",
	      strerror(errno));
	return 0;
}

int t_yama_scope(void)
{
	FILE *f = fopen(T_YAMA_SCOPE, "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

int t_set_yama_scope(int scope)
{
	char text[16];

	snprintf(text, sizeof(text), "%d\n", scope);
	return t_write_file(T_YAMA_SCOPE, text);
}

t_getattr_fn t_glibc_getattr(void)
{
#ifdef T_STATIC
	/* no libc.so.6 to open, and the linker warns of dlopen() */
	return NULL;
#else
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

	return libc ? (t_getattr_fn)dlsym(libc, "pthread_getattr_np") : NULL;
#endif
}

int t_getattr(t_getattr_fn f, pthread_t th, struct t_attrs *a)
{
	struct sched_param p = { 0 };
	pthread_attr_t attr;
	int ret = f(th, &attr);

	memset(a, 0, sizeof(*a));
	if (ret)
		return ret;
	pthread_attr_getstack(&attr, &a->addr, &a->size);
	pthread_attr_getguardsize(&attr, &a->guard);
	pthread_attr_getdetachstate(&attr, &a->detach);
	pthread_attr_getschedpolicy(&attr, &a->policy);
	pthread_attr_getschedparam(&attr, &p);
	pthread_attr_getinheritsched(&attr, &a->inherit);
	a->prio = p.sched_priority;
#ifdef __GLIBC__
	/* musl's attr has neither a CPU set nor a flags word */
	cpu_set_t set;

	CPU_ZERO(&set);
	pthread_attr_getaffinity_np(&attr, sizeof(set), &set);
	a->cpus = CPU_COUNT(&set);
	memcpy(&a->flags, (char *)&attr + sizeof(struct sched_param) + sizeof(int),
	       sizeof(a->flags));
#endif
	pthread_attr_destroy(&attr);
	return 0;
}

bool t_attrs_same(const struct t_attrs *a, const struct t_attrs *b, char *why,
		  size_t size)
{
	snprintf(why, size, "%p+%#zx guard %zu detach %d policy %d prio %d inherit %d cpus %d"
		 " flags %#x against %p+%#zx guard %zu detach %d policy %d prio %d inherit %d"
		 " cpus %d flags %#x",
		 a->addr, a->size, a->guard, a->detach, a->policy, a->prio, a->inherit,
		 a->cpus, a->flags, b->addr, b->size, b->guard, b->detach, b->policy, b->prio,
		 b->inherit, b->cpus, b->flags);
	return a->addr == b->addr && a->size == b->size && a->guard == b->guard &&
	       a->detach == b->detach && a->policy == b->policy && a->prio == b->prio &&
	       a->inherit == b->inherit && a->cpus == b->cpus && a->flags == b->flags;
}

static int (*in_child_fn)(void);

static void in_child_exit_code(void *arg)
{
	(void)arg;
	if (in_child_fn())
		t_failures++;
}

void t_in_child(const char *what, int (*fn)(void))
{
	in_child_fn = fn;
	t_in_child_arg(what, in_child_exit_code, NULL);
}

int t_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

/* /proc/<tid>: a thread of this process or of another one */
static bool sleeps(pid_t tid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	return si_read_file(path, buf, sizeof(buf)) > 0 && (p = strrchr(buf, ')')) &&
	       (p[2] == 'S' || p[2] == 'D');
}

int t_wait_sleeping(pid_t tid)
{
	double end = t_now() + T_WAIT_SECS;

	while (t_now() < end) {
		if (sleeps(tid))
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/* glibc's pause(): pause where the kernel has it, else ppoll (or sigsuspend) */
static bool is_pause_nr(long nr)
{
#ifdef SYS_pause
	if (nr == SYS_pause)
		return true;
#endif
	return nr == SYS_ppoll || nr == SYS_rt_sigsuspend;
}

int t_wait_paused(pid_t tid)
{
	double end = t_now() + T_WAIT_SECS;
	char path[64], buf[512];

	/*
	 * Sleeping is not enough: a thread just started may sleep first
	 * elsewhere (ASan's runtime takes its locks there), its SP deeper
	 * than pause()'s. /proc/<tid>/syscall names the syscall it sleeps in.
	 */
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	while (t_now() < end) {
		if (sleeps(tid) && si_read_file(path, buf, sizeof(buf)) > 0 &&
		    buf[0] >= '0' && buf[0] <= '9' && is_pause_nr(strtol(buf, NULL, 10)))
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

static int maps_push(struct maps *m, const struct maps_entry *e)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		struct maps_entry *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = *e;
	return 0;
}

static int maps_add(const struct si_maps_line *l, void *ctx)
{
	struct maps *m = ctx;
	struct maps_entry e = { .start = l->start, .end = l->end };
	size_t len = l->name_len < sizeof(e.name) ? l->name_len : sizeof(e.name) - 1;

	memcpy(e.perms, l->perms, sizeof(e.perms));
	memcpy(e.name, l->name, len);
	if (m->n && m->v[m->n - 1].end > e.start)
		return -EINVAL;	/* overlapping or unsorted */
	return maps_push(m, &e);
}

/* The library's own line parser: the one its maps backend uses. */
int maps_parse(struct maps *m, const char *text)
{
	const char *line = text;

	m->n = 0;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct si_maps_line l;
		int err = si_maps_parse_line(line, len, &l);

		if (!err)
			err = maps_add(&l, m);
		if (err)
			return err;
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}

int maps_read(struct maps *m, pid_t pid)
{
	int tries = 100, err;

	/*
	 * A read of several read()s while the process splits and merges a
	 * mapping may show a VMA twice (the seq_file resumes at an address a
	 * merged VMA now covers): never a layout, so maps_add() refuses it
	 * and the text is read again (rmmod_blocked saw one on debug-7.2-rt)
	 */
	do {
		int fd = si_open_maps(pid);

		if (fd < 0)
			return fd;
		m->n = 0;
		err = si_maps_scan(fd, maps_add, m);
		close(fd);
	} while (err == -EINVAL && --tries);
	return err;
}

int maps_stack(pid_t pid, uint64_t *start, uint64_t *end)
{
	struct maps m = { 0 };
	size_t i;
	int err = maps_read(&m, pid);

	for (i = 0; !err && i < m.n; i++)
		if (!strcmp(m.v[i].name, "[stack]")) {
			*start = m.v[i].start;
			*end = m.v[i].end;
			break;
		}
	if (!err && i == m.n)
		err = -ENOENT;
	maps_free(&m);
	return err;
}

void maps_free(struct maps *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

const struct maps_entry *maps_find(const struct maps *m, uint64_t addr,
				   const struct maps_entry **prev)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (prev)
		*prev = lo ? &m->v[lo - 1] : NULL;
	if (lo < m->n && m->v[lo].start <= addr)
		return &m->v[lo];
	return NULL;
}

size_t maps_vma_count(const struct maps *m)
{
	size_t i, n = 0;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->v[i].name, "[vsyscall]"))
			n++;
	return n;
}

void vma_flags_perms(uint64_t flags, char out[5])
{
	out[0] = flags & STACKINFO_VMA_READ ? 'r' : '-';
	out[1] = flags & STACKINFO_VMA_WRITE ? 'w' : '-';
	out[2] = flags & STACKINFO_VMA_EXEC ? 'x' : '-';
	out[3] = flags & STACKINFO_VMA_SHARED ? 's' : 'p';
	out[4] = '\0';
}

bool t_procmap_prev_in_reach(const struct stackinfo_query *q, uint64_t vma_end,
			     uint64_t prev_end)
{
	uint64_t cur = q->rlim_stack_cur;

	if (!(q->valid & STACKINFO_VALID_RLIMIT) || !cur || cur == STACKINFO_RLIM_INFINITY ||
	    cur >= vma_end)
		return true;
	return prev_end > vma_end - cur;
}

void t_procmap_view(struct stackinfo_query *q)
{
	bool sp_on_main = (q->valid & STACKINFO_VALID_SP_VMA) &&
			  (q->valid & STACKINFO_VALID_MAIN_VMA) &&
			  q->sp_vma_start == q->main_vma_start;

	if (!(q->valid & STACKINFO_VALID_MAIN_PREV) ||
	    t_procmap_prev_in_reach(q, q->main_vma_end, q->main_prev_end))
		return;
	q->valid &= ~STACKINFO_VALID_MAIN_PREV;
	q->main_prev_end = 0;
	if (sp_on_main && (q->valid & STACKINFO_VALID_SP_PREV) &&
	    !(q->valid & STACKINFO_VALID_SP_GUARD)) {
		q->valid &= ~STACKINFO_VALID_SP_PREV;
		q->sp_prev_end = 0;
	}
}

void t_layout_against_maps(const char *what, const struct stackinfo_query *q,
			   const struct maps *m)
{
	bool pmq = STACKINFO_LIB_ANSWERED_BY(q) == STACKINFO_BACKEND_PROCMAP_QUERY;
	const struct maps_entry *e, *prev;
	char perms[5];
	int guard;

	/* PROCMAP_QUERY counts no mappings, and looks below the main stack only within reach */
	CHECK(q->map_count == (pmq ? 0 : maps_vma_count(m)), "%s: map_count %u, maps %zu", what,
	      q->map_count, maps_vma_count(m));
	e = maps_find(m, q->start_stack, &prev);
	CHECK(e && (q->valid & STACKINFO_VALID_MAIN_VMA), "%s: start_stack %#llx: no VMA", what,
	      (unsigned long long)q->start_stack);
	if (e && (q->valid & STACKINFO_VALID_MAIN_VMA)) {
		vma_flags_perms(q->main_vma_flags, perms);
		CHECK(q->main_vma_start == e->start && q->main_vma_end == e->end &&
		      !strcmp(perms, e->perms), "%s: main %#llx-%#llx %s, maps %#llx-%#llx %s", what,
		      (unsigned long long)q->main_vma_start, (unsigned long long)q->main_vma_end,
		      perms, (unsigned long long)e->start, (unsigned long long)e->end, e->perms);
		if (pmq && prev && !t_procmap_prev_in_reach(q, e->end, prev->end))
			prev = NULL;
		CHECK(!!prev == !!(q->valid & STACKINFO_VALID_MAIN_PREV) &&
		      (!prev || q->main_prev_end == prev->end), "%s: main_prev_end %#llx, maps %#llx",
		      what, (unsigned long long)q->main_prev_end,
		      prev ? (unsigned long long)prev->end : 0ULL);
	}
	if (!(q->valid & STACKINFO_VALID_SP))
		return;
	e = maps_find(m, q->sp, &prev);
	CHECK(!!e == !!(q->valid & STACKINFO_VALID_SP_VMA), "%s: sp %#llx: VMA %s in maps, %s in the answer",
	      what, (unsigned long long)q->sp, e ? "one" : "none",
	      q->valid & STACKINFO_VALID_SP_VMA ? "one" : "none");
	if (!e || !(q->valid & STACKINFO_VALID_SP_VMA))
		return;
	vma_flags_perms(q->sp_vma_flags, perms);
	CHECK(q->sp_vma_start == e->start && q->sp_vma_end == e->end && !strcmp(perms, e->perms),
	      "%s: sp_vma %#llx-%#llx %s, maps %#llx-%#llx %s", what,
	      (unsigned long long)q->sp_vma_start, (unsigned long long)q->sp_vma_end, perms,
	      (unsigned long long)e->start, (unsigned long long)e->end, e->perms);
	guard = prev && prev->end == e->start && !strncmp(prev->perms, "---", 3);
	if (pmq && prev && !guard && e->start == q->main_vma_start &&
	    !t_procmap_prev_in_reach(q, e->end, prev->end))
		prev = NULL;	/* the SP on the main stack: its VMA's rule */
	CHECK(!!prev == !!(q->valid & STACKINFO_VALID_SP_PREV) &&
	      (!prev || q->sp_prev_end == prev->end), "%s: sp_prev_end %#llx, maps %#llx", what,
	      (unsigned long long)q->sp_prev_end, prev ? (unsigned long long)prev->end : 0ULL);
	guard = prev && prev->end == e->start && !strncmp(prev->perms, "---", 3);
	CHECK(guard == !!(q->valid & STACKINFO_VALID_SP_GUARD) &&
	      (!guard || (q->sp_guard_start == prev->start && q->sp_guard_end == prev->end)),
	      "%s: guard %#llx-%#llx (valid %d), maps %#llx-%#llx %s", what,
	      (unsigned long long)q->sp_guard_start, (unsigned long long)q->sp_guard_end,
	      !!(q->valid & STACKINFO_VALID_SP_GUARD), prev ? (unsigned long long)prev->start : 0ULL,
	      prev ? (unsigned long long)prev->end : 0ULL, prev ? prev->perms : "-");
}

int si_open(void)
{
	int fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int proc_open_at(const char *proc, pid_t pid, const char *file)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/%s", proc ? proc : "/proc", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int proc_open(pid_t pid, const char *file)
{
	return proc_open_at(NULL, pid, file);
}

int proc_readable_at(const char *proc, pid_t pid, const char *file)
{
	char buf[256];
	int fd = proc_open_at(proc, pid, file), err = 0;

	if (fd < 0)
		return fd;
	if (read(fd, buf, sizeof(buf)) < 0)
		err = -errno;
	close(fd);
	return err;
}

int proc_readable(pid_t pid, const char *file)
{
	return proc_readable_at(NULL, pid, file);
}

int si_text_read(int fd, struct stackinfo_query *q)
{
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return si_text_parse(buf, q);
}

/* a KASAN kernel: its report function is in kallsyms */
bool t_kasan_kernel(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256];
	bool kasan = false;

	while (f && !kasan && fgets(line, sizeof(line), f))
		kasan = strstr(line, " kasan_report\n") != NULL;
	if (f)
		fclose(f);
	return kasan;
}

void *map_many(size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *base;
	size_t i;

	base = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	/* Alternate protections so that no two neighbours merge. */
	for (i = 1; i < n; i += 2) {
		if (mprotect(base + i * page, page, PROT_READ)) {
			unmap_many(base, n);
			return NULL;
		}
	}
	return base;
}

/*
 * A few hundred mappings a munmap(): the kernel detaches and frees every
 * VMA of one munmap() without rescheduling (6.12's
 * vms_complete_munmap_vmas()), and 60 000 at once on a debug kernel
 * without preemption held a CPU past the soft-lockup watchdog's 20 s.
 */
#define UNMAP_CHUNK	512

void unmap_many(void *base, size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i, len;

	if (!base)
		return;
	for (i = 0; i < n; i += len) {
		len = n - i < UNMAP_CHUNK ? n - i : UNMAP_CHUNK;
		munmap((char *)base + i * page, len * page);
	}
}

/*
 * One boot parameter of @p as the kernel splits them (lib/cmdline.c's
 * next_arg()): up to a blank outside quotes, the quotes dropped; NULL at
 * the end. @p is modified; *@rest is where the next one starts.
 */
static char *cmdline_param(char *p, char **rest)
{
	char *out;
	int quoted = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!*p)
		return NULL;
	for (out = p, *rest = p; **rest; (*rest)++) {
		char c = **rest;

		if (!quoted && (c == ' ' || c == '\t' || c == '\n'))
			break;
		if (c == '"')
			quoted = !quoted;
		else
			*out++ = c;
	}
	if (**rest)
		(*rest)++;
	*out = '\0';
	return p;
}

/* Whether boot parameter @param is @name: '-' and '_' are the same. */
static int cmdline_name_is(const char *param, const char *name)
{
	for (; *param && *name; param++, name++)
		if ((*param == '-' ? '_' : *param) != (*name == '-' ? '_' : *name))
			return 0;
	return !*param && !*name;
}

uint64_t cmdline_guard_gap(void)
{
	uint64_t gap = 256 * (uint64_t)sysconf(_SC_PAGESIZE);
	char buf[4096], *tok, *rest = buf, *val;
	FILE *f = fopen("/proc/cmdline", "re");
	size_t n;

	if (!f)
		return gap;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while ((tok = cmdline_param(rest, &rest))) {
		__u64 pages;

		if (!strcmp(tok, "--"))
			break;
		val = strchr(tok + 1, '=');
		if (!val)
			continue;
		*val++ = '\0';
		if (!cmdline_name_is(tok, "stack_guard_gap"))
			continue;
		if (!*val) {
			gap = 0;
		} else {
			char *end;

			errno = 0;
			pages = strtoull(val, &end, 10);
			if (!errno && !*end)
				gap = pages * sysconf(_SC_PAGESIZE);
		}
	}
	return gap;
}

pid_t t_spawn_sleeper(uid_t uid, int nondumpable)
{
	int p[2];
	pid_t pid;
	char c = 0;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			_exit(1);
		prctl(PR_SET_DUMPABLE, nondumpable ? 0 : 1);
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

void *t_pause_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

pid_t t_spawn_threaded(int workers)
{
	pid_t pid = fork();
	double end = t_now() + T_WAIT_SECS;
	bool started = false;
	pthread_t th;
	int i;

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (i = 0; i < workers; i++)
			if (pthread_create(&th, NULL, t_pause_forever, NULL))
				_exit(1);
		t_pause_forever(NULL);
	}
	/* started when /proc lists them all */
	while (pid > 0 && !(started = t_task_tids(pid, NULL, 0) == workers + 1) &&
	       t_now() < end)
		usleep(1000);
	return pid > 0 && started ? pid : -1;
}

void t_reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static int clone_vm_child(void *arg)
{
	(void)arg;
	/* ppoll on no fds, not pause: arm64 (like every architecture of the
	 * generic syscall table) has no pause syscall */
	for (;;)
		syscall(SYS_ppoll, NULL, 0, NULL, NULL, 0);
	return 0;
}

pid_t t_spawn_clone_vm(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));

	return clone(clone_vm_child, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
}

void t_in_child_arg(const char *what, void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		t_failures = 0;
		fn(arg);
		fflush(stdout);
		_exit(t_result());
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "%s: child failed", what);
}

void t_become_user(uid_t uid)
{
	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		fprintf(stderr, "cannot become uid %d: %s\n", (int)uid, strerror(errno));
		_exit(1);
	}
	/* a uid change leaves us non-dumpable; a login shell's children are not */
	prctl(PR_SET_DUMPABLE, 1);
}

int t_drop_effective_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[cap / 32].effective &= ~(1U << (cap % 32));
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

char t_proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

int t_threads_call(int fd, pid_t pid, struct stackinfo_threads *a,
		   struct stackinfo_query *arr, uint32_t n)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->pid = (uint32_t)pid;
	a->count = n;
	a->entries = (uint64_t)(uintptr_t)arr;
	a->entry_size = sizeof(*arr);
	return ioctl(fd, STACKINFO_IOC_QUERY_THREADS, a) ? -errno : 0;
}

int t_uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK), err;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UFFDIO_API, &api)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int t_uffd_fault(int fd, atomic_int *done, double wait, size_t page, uint64_t *addr,
		 uint64_t *flags)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	double start = t_now();
	struct uffd_msg m;

	while (t_now() - start < wait) {
		int n = poll(&p, 1, 20);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0) {
			if (read(fd, &m, sizeof(m)) != sizeof(m))
				return errno == EAGAIN ? -EAGAIN : -EIO;
			if (m.event != UFFD_EVENT_PAGEFAULT)
				return -EPROTO;
			*addr = m.arg.pagefault.address & ~(uint64_t)(page - 1);
			*flags = m.arg.pagefault.flags;
			return 0;
		}
		if (atomic_load(done))
			return -ECHILD;
	}
	return -ETIMEDOUT;
}

int t_threads_proof(int fd, pid_t pid, int proof, struct stackinfo_query *arr, uint32_t n,
		    uint32_t *count)
{
	struct stackinfo_threads a = {
		.size = sizeof(a), .pid = (uint32_t)pid, .count = n,
		.entries = (uint64_t)(uintptr_t)arr, .entry_size = sizeof(*arr),
	};
	int err;

	if (proof >= 0) {
		a.query_flags = STACKINFO_QUERY_PROOF_FD;
		a.proof_fd = proof;
	}
	err = ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) ? -errno : 0;
	*count = a.count;
	return err;
}

#if defined(__x86_64__)
/* Sleep on p->word with the SP at p->sp; nothing touches the stack. */
static void park(struct t_parked *p)
{
	long ret;

	__asm__ volatile("xor %%r10d, %%r10d\n\t"	/* no timeout */
			 "mov %%rsp, %%r12\n\t"
			 "mov %[sp], %%rsp\n\t"
			 "syscall\n\t"
			 "mov %%r12, %%rsp"
			 : "=a"(ret)
			 : "a"((long)SYS_futex), "D"(&p->word),
			   "S"((long)FUTEX_WAIT), "d"(0L), [sp] "r"(p->sp)
			 : "rcx", "r11", "r12", "r10", "memory");
	(void)ret;
}
#define T_CAN_PARK
#elif defined(__aarch64__)
/*
 * The same on arm64: x8 the number, x0-x3 the arguments, svc; the kernel
 * keeps every register but x0. An SP off the 16-byte alignment faults
 * only when used for a load or store, which nothing here does.
 */
static void park(struct t_parked *p)
{
	register long x8 __asm__("x8") = SYS_futex;
	register long x0 __asm__("x0") = (long)&p->word;
	register long x1 __asm__("x1") = FUTEX_WAIT;
	register long x2 __asm__("x2") = 0;
	register long x3 __asm__("x3") = 0;	/* no timeout */

	__asm__ volatile("mov x9, sp\n\t"
			 "mov sp, %[sp]\n\t"
			 "svc #0\n\t"
			 "mov sp, x9"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), [sp] "r"(p->sp)
			 : "x9", "memory");
}
#define T_CAN_PARK
#endif

#ifdef T_CAN_PARK

static void *parked_thread(void *arg)
{
	struct t_parked *p = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	__atomic_store_n(&p->tid, t_gettid(), __ATOMIC_RELEASE);
	while (!p->word)
		park(p);
	return NULL;
}

int t_park(struct t_parked *p, uint64_t sp)
{
	memset(p, 0, sizeof(*p));
	p->sp = sp;
	if (pthread_create(&p->th, NULL, parked_thread, p))
		return -EAGAIN;
	while (!__atomic_load_n(&p->tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	return t_wait_sleeping(p->tid);
}

void t_unpark(struct t_parked *p)
{
	p->word = 1;
	syscall(SYS_futex, &p->word, FUTEX_WAKE, 1, NULL, NULL, 0);
	pthread_join(p->th, NULL);
}
#else
int t_park(struct t_parked *p, uint64_t sp)
{
	memset(p, 0, sizeof(*p));
	p->sp = sp;
	return -ENOSYS;
}

void t_unpark(struct t_parked *p)
{
	(void)p;
}
#endif

int t_edge_sps(struct t_edge e[T_EDGES])
{
	long page = sysconf(_SC_PAGESIZE);
	char *base;
	uint64_t a, b;
	int n = 0;

	/* [a, a+p) mapped, [a+p, a+3p) a gap, [b, b+p) mapped, then a gap */
	base = mmap(NULL, 6 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return 0;
	munmap(base, 6 * page);
	a = (uintptr_t)base;
	b = a + 3 * page;
	if (mmap((void *)a, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0) != (void *)a ||
	    mmap((void *)b, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != (void *)b)
		return 0;
	e[n++] = (struct t_edge){ b - 1, "last byte of a gap" };
	e[n++] = (struct t_edge){ a + page, "first byte of a gap" };
	e[n++] = (struct t_edge){ b, "first byte of a mapping" };
	e[n++] = (struct t_edge){ b + page - 8, "last word of a mapping" };
	e[n++] = (struct t_edge){ b + page - 1, "last byte of a mapping" };
	e[n++] = (struct t_edge){ b + page, "first byte above a mapping" };
	e[n++] = (struct t_edge){ 0, "zero" };
	e[n++] = (struct t_edge){ 0xffff888000000000ULL, "a kernel address" };
#if defined(__aarch64__)
	/* arm64's user space ends at 1 << VA_BITS (48, or 52 with LPA2 and a
	 * hint above 48 bits; TASK_SIZE_64) */
	e[n++] = (struct t_edge){ 0x0001000000000000ULL, "the first above 48-bit VAs" };
#else
	e[n++] = (struct t_edge){ 0x0000800000000000ULL, "the first non-canonical" };
#endif
	e[n++] = (struct t_edge){ 0x00ff000000000000ULL, "non-canonical" };
	e[n++] = (struct t_edge){ ~0ULL, "all ones" };
	return n;
}

void t_ioctl_expect(int fd, const char *what, unsigned long cmd, void *arg, size_t len,
		    int want)
{
	unsigned char *before = NULL;
	int ret, err;

	if (len) {
		before = malloc(len);
		memcpy(before, arg, len);
	}
	errno = 0;
	ret = ioctl(fd, cmd, arg);
	err = errno;
	CHECK(ret == -1 && err == want, "%s: ret %d errno %d (%s), want %d (%s)",
	      what, ret, err, strerror(err), want, strerror(want));
	if (len)
		CHECK(!memcmp(before, arg, len), "%s: argument changed", what);
	free(before);
}

void t_query_fill(struct stackinfo_query *q, uint64_t size)
{
	memset(q, 0, sizeof(*q));
	q->size = size;
}

void t_bad_query(int fd, pid_t tid)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stackinfo_query q;
	unsigned char *big, *two;
	int err;

	/* sizes */
	t_query_fill(&q, 0);
	t_ioctl_expect(fd, "size 0", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	t_query_fill(&q, 8);
	t_ioctl_expect(fd, "size 8", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	t_query_fill(&q, STACKINFO_QUERY_SIZE_VER0 - 8);
	t_ioctl_expect(fd, "size VER0-8", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	t_query_fill(&q, STACKINFO_QUERY_SIZE_VER0 - 1);
	t_ioctl_expect(fd, "size VER0-1", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);

	big = calloc(1, 2 * page);
	memcpy(big, &(uint64_t){ page + 1 }, 8);
	t_ioctl_expect(fd, "size PAGE_SIZE+1", STACKINFO_IOC_QUERY, big, 2 * page, E2BIG);
	memcpy(big, &(uint64_t){ UINT64_MAX }, 8);
	t_ioctl_expect(fd, "size ~0", STACKINFO_IOC_QUERY, big, 2 * page, E2BIG);

	/* a larger struct: zero tail accepted, non-zero tail refused */
	memset(big, 0, 2 * page);
	memcpy(big, &(uint64_t){ page }, 8);
	CHECK(!ioctl(fd, STACKINFO_IOC_QUERY, big), "size PAGE_SIZE zero tail: %s",
	      strerror(errno));
	memcpy(&q, big, sizeof(q));
	CHECK(q.valid & STACKINFO_VALID_SP_VMA, "size PAGE_SIZE: no answer");
	CHECK(big[sizeof(q)] == 0 && big[page - 1] == 0, "tail written");
	memset(big, 0, 2 * page);
	memcpy(big, &(uint64_t){ sizeof(q) + 8 }, 8);
	big[sizeof(q) + 7] = 1;
	t_ioctl_expect(fd, "non-zero tail", STACKINFO_IOC_QUERY, big, 2 * page, E2BIG);

	/* in fields */
	t_query_fill(&q, sizeof(q));
	q.reserved = 1;
	t_ioctl_expect(fd, "reserved", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	t_query_fill(&q, sizeof(q));
	q.query_flags = 1ULL << 1;
	t_ioctl_expect(fd, "flag bit 1", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	t_query_fill(&q, sizeof(q));
	q.query_flags = 1ULL << 63;
	t_ioctl_expect(fd, "flag bit 63", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	t_query_fill(&q, sizeof(q));
	q.query_flags = ~0ULL;
	t_ioctl_expect(fd, "all flags", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);

	t_query_fill(&q, STACKINFO_QUERY_SIZE_VER0);
	q.query_flags = STACKINFO_QUERY_PROOF_FD;
	t_ioctl_expect(fd, "proof flag in a VER0 struct", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	t_query_fill(&q, sizeof(q));
	q.reserved1 = 1;
	t_ioctl_expect(fd, "reserved1", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	t_query_fill(&q, sizeof(q));
	q.reserved2 = 1;
	t_ioctl_expect(fd, "reserved2", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	t_query_fill(&q, STACKINFO_QUERY_SIZE_VER1);
	q.query_flags = STACKINFO_QUERY_ADDR;
	t_ioctl_expect(fd, "address flag in a VER1 struct", STACKINFO_IOC_QUERY, &q, sizeof(q),
		       EINVAL);

	/* pointers */
	t_ioctl_expect(fd, "NULL", STACKINFO_IOC_QUERY, NULL, 0, EFAULT);
	t_ioctl_expect(fd, "pointer 1", STACKINFO_IOC_QUERY, (void *)1, 0, EFAULT);
	t_ioctl_expect(fd, "kernel pointer", STACKINFO_IOC_QUERY,
	       (void *)0xffff888000000000UL, 0, EFAULT);
	two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(two != MAP_FAILED, "mmap");
	munmap(two + page, page);
	/* size readable, the rest of the struct runs into an unmapped page */
	memset(two + page - 16, 0, 16);
	memcpy(two + page - 16, &(uint64_t){ sizeof(q) }, 8);
	t_ioctl_expect(fd, "struct across unmapped page", STACKINFO_IOC_QUERY,
	       two + page - 16, 16, EFAULT);
	/* a valid request in read-only memory: the answer cannot be written */
	memset(two, 0, page);
	memcpy(two, &(uint64_t){ sizeof(q) }, 8);
	mprotect(two, page, PROT_READ);
	t_ioctl_expect(fd, "read-only struct", STACKINFO_IOC_QUERY, two, sizeof(q), EFAULT);
	munmap(two, page);
	t_ioctl_expect(fd, "unmapped struct", STACKINFO_IOC_QUERY, two, 0, EFAULT);

	/* commands */
	t_query_fill(&q, sizeof(q));
	t_ioctl_expect(fd, "unknown nr", _IOWR(STACKINFO_IOC_MAGIC, 0x7f, struct stackinfo_query),
	       &q, sizeof(q), ENOTTY);
	/*
	 * the size bits are the caller's header's: a command built with any
	 * size reaches the handler, which reads the struct's own size (an
	 * older binary's VER0 command, a newer one's larger struct)
	 */
	{
		static const unsigned long cmds[] = {
			_IOWR(STACKINFO_IOC_MAGIC, 0x01, char[STACKINFO_QUERY_SIZE_VER0]),
			_IOWR(STACKINFO_IOC_MAGIC, 0x01, char[STACKINFO_QUERY_SIZE_VER1]),
			_IOWR(STACKINFO_IOC_MAGIC, 0x01, char[STACKINFO_QUERY_SIZE_VER2 + 64]),
			_IOWR(STACKINFO_IOC_MAGIC, 0x01, uint64_t),
		};
		unsigned int i;

		for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			t_query_fill(&q, sizeof(q));
			err = ioctl(fd, cmds[i], &q) ? -errno : 0;
			CHECK(!err && q.out_tid == (uint32_t)tid,
			      "command %#lx: %s", cmds[i], strerror(-err));
		}
	}
	/*
	 * an older layout gets exactly the older answer: nothing written past
	 * its size, no valid bit for a field it does not have
	 */
	{
		static const uint64_t sizes[] = { STACKINFO_QUERY_SIZE_VER0,
						  STACKINFO_QUERY_SIZE_VER1 };
		const uint64_t later = STACKINFO_VALID_ALTSTACK | STACKINFO_VALID_STACK_KIND;
		unsigned int i, j;

		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			unsigned char *b = (unsigned char *)&q;

			memset(&q, 0x5a, sizeof(q));
			t_query_fill(&q, sizes[i]);
			memset(b + sizes[i], 0x5a, sizeof(q) - sizes[i]);
			err = ioctl(fd, STACKINFO_IOC_QUERY, &q) ? -errno : 0;
			CHECK(!err && q.out_tid == (uint32_t)tid, "size %llu: %s",
			      (unsigned long long)sizes[i], strerror(-err));
			CHECK(!(q.valid & later), "size %llu: valid %#llx has a later layout's bits",
			      (unsigned long long)sizes[i], (unsigned long long)q.valid);
			for (j = sizes[i]; j < sizeof(q); j++)
				if (b[j] != 0x5a)
					break;
			CHECK(j == sizeof(q), "size %llu: byte %u written",
			      (unsigned long long)sizes[i], j);
		}
	}
	t_ioctl_expect(fd, "_IOR", _IOR(STACKINFO_IOC_MAGIC, 0x01, struct stackinfo_query), &q,
	       sizeof(q), ENOTTY);
	t_ioctl_expect(fd, "other magic", _IOWR('f', 0x01, struct stackinfo_query), &q,
	       sizeof(q), ENOTTY);
	free(big);
}

int t_intree_open(const char *proc, pid_t pid, pid_t tid)
{
	char file[64];

	if (!tid)
		return proc_open_at(proc, pid, "stackinfo");
	snprintf(file, sizeof(file), "task/%d/stackinfo", (int)tid);
	return proc_open_at(proc, pid, file);
}

bool t_intree_missing(void)
{
	if (!access("/proc/self/stackinfo", F_OK))
		return false;
	printf("no /proc/self/stackinfo: the kernel has no in-tree stackinfo "
	       "(CONFIG_PROC_STACKINFO)\n");
	return true;
}

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

int t_task_tids(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) && (!tids || n < max)) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		if (tids)
			tids[n] = atoi(d->d_name);
		n++;
	}
	closedir(dir);
	if (tids)
		qsort(tids, n, sizeof(*tids), cmp_pid);
	return n;
}

bool t_query_same(const struct stackinfo_query *a, const struct stackinfo_query *b,
		  unsigned int how, char *why, size_t size)
{
	uint64_t vmask = (how & T_CMP_TEXT) ? ~(uint64_t)STACKINFO_VMA_GROWSDOWN : ~0ULL;
	uint32_t fmask = (how & T_CMP_TEXT) ? STACKINFO_THREAD_MAIN : ~0U;
	const struct {
		const char *name;
		uint64_t a, b;
	} f[] = {
#define T_F(x, m) { #x, a->x & (m), b->x & (m) }
		T_F(valid, (how & T_CMP_TEXT) ? ~(uint64_t)T_VALID_NOT_TEXT : ~0ULL),
		T_F(out_tid, ~0ULL),
		T_F(tgid, ~0ULL),
		T_F(thread_flags, fmask),
		T_F(map_count, ~0ULL),
		T_F(start_stack, ~0ULL),
		T_F(main_vma_start, ~0ULL),
		T_F(main_vma_end, ~0ULL),
		T_F(main_vma_flags, vmask),
		T_F(main_prev_end, ~0ULL),
		T_F(sp, (how & T_CMP_NO_SP) ? 0 : ~0ULL),
		T_F(sp_vma_start, ~0ULL),
		T_F(sp_vma_end, ~0ULL),
		T_F(sp_vma_flags, vmask),
		T_F(sp_prev_end, ~0ULL),
		T_F(sp_guard_start, ~0ULL),
		T_F(sp_guard_end, ~0ULL),
		T_F(rlim_stack_cur, ~0ULL),
		T_F(rlim_stack_max, ~0ULL),
		T_F(guard_gap, ~0ULL),
#undef T_F
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].a != f[i].b) {
			snprintf(why, size, "%s %#llx vs %#llx", f[i].name,
				 (unsigned long long)f[i].a, (unsigned long long)f[i].b);
			return false;
		}
	}
	return true;
}

void t_targets_spawn(struct t_targets *t, uid_t user)
{
	double end;

	t->root_proc = t_spawn_sleeper(0, 0);
	t->user_proc = t_spawn_sleeper(user, 0);
	t->user_proc2 = t_spawn_sleeper(user, 0);
	t->nondumpable = t_spawn_sleeper(user, 1);
	t->zombie = fork();
	if (t->zombie == 0)
		_exit(0);
	CHECK(t->root_proc > 0 && t->user_proc > 0 && t->user_proc2 > 0 && t->nondumpable > 0 &&
	      t->zombie > 0, "fork");
	end = t_now() + T_WAIT_SECS;
	while (t_proc_state(t->zombie) != 'Z' && t_now() < end)
		usleep(1000);
	CHECK_EQ(t_proc_state(t->zombie), 'Z');
	/* a pid nothing has: just below the zombie's, searched downwards */
	for (t->free_pid = t->zombie + 1000; t->free_pid > 300; t->free_pid--)
		if (kill(t->free_pid, 0) && errno == ESRCH)
			break;
}

void t_targets_reap(struct t_targets *t)
{
	t_reap(t->root_proc);
	t_reap(t->user_proc);
	t_reap(t->user_proc2);
	t_reap(t->nondumpable);
	if (t->zombie > 0)
		waitpid(t->zombie, NULL, 0);
}

pid_t t_seize_child(const char *caller)
{
	pid_t tracee = t_spawn_sleeper(0, 0);

	CHECK(tracee > 0, "fork tracee");
	if (tracee <= 0)
		return 0;
	if (ptrace(PTRACE_SEIZE, tracee, 0, 0)) {
		/* Yama's scope 2 refuses it: then there is no tracer to test */
		printf("cell: %-28s %-22s PTRACE_SEIZE refused by the kernel: %s\n", caller,
		       "its child", strerror(errno));
		t_reap(tracee);
		return 0;
	}
	return tracee;
}

int t_each_yama_scope(void (*fn)(void *arg, const char *scope), void *arg)
{
	int scope = t_yama_scope(), i;
	char name[32];

	if (scope < 0) {
		fn(arg, "");
		return scope;
	}
	for (i = 0; i <= 2; i++) {
		CHECK(!t_set_yama_scope(i), "ptrace_scope %d", i);
		snprintf(name, sizeof(name), ", Yama scope %d", i);
		fn(arg, name);
	}
	CHECK(!t_set_yama_scope(scope), "restore ptrace_scope %d", scope);
	return scope;
}

int t_under_yama3(void (*fn)(void *arg, const char *scope), void *arg)
{
	if (t_yama_scope() < 0) {
		fprintf(stderr, "no Yama in this kernel\n");
		return -1;
	}
	CHECK(!t_set_yama_scope(3), "ptrace_scope 3");
	fn(arg, ", Yama scope 3");
	return 3;
}

int t_execer_spawn(struct t_execer *e, const char *prog)
{
	int p[2];
	char c;

	e->prog = prog;
	if (pipe(p))
		return -errno;
	e->pid = fork();
	if (e->pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		execl(prog, prog, "1", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if (e->pid < 0) {
		close(p[1]);
		return -errno;
	}
	e->go = p[1];
	return 0;
}

int t_execer_go(struct t_execer *e)
{
	char c = 0, exe[256], path[64];
	double end;
	int ok;

	ok = write(e->go, &c, 1) == 1;
	close(e->go);
	end = t_now() + T_WAIT_SECS;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)e->pid);
	while (ok && t_now() < end) {
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);

		if (n < 0 && errno == EACCES)
			return 0; /* a setuid exec: we may no longer look */
		if (n > 0) {
			exe[n] = '\0';
			if (!strcmp(exe, e->prog))
				return 0;
		}
		usleep(10000);
	}
	return -ETIMEDOUT;
}

void t_each_target(const struct t_targets *t,
		   void (*fn)(void *ctx, const char *tname, pid_t pid, enum t_kind kind),
		   void *ctx)
{
	pid_t sharer = t_spawn_clone_vm();

	fn(ctx, "itself", getpid(), T_OWN);
	fn(ctx, "root process", t->root_proc, T_PROC);
	fn(ctx, "uid-1000 process", t->user_proc, T_PROC);
	fn(ctx, "uid-1000 non-dumpable", t->nondumpable, T_PROC);
	fn(ctx, "init", 1, T_PROC);
	fn(ctx, "kthreadd", 2, T_KTHREAD);
	fn(ctx, "zombie", t->zombie, T_ZOMBIE);
	fn(ctx, "free pid", t->free_pid, T_FREE);
	CHECK(sharer > 0, "clone(CLONE_VM): %s", strerror(errno));
	if (sharer > 0) {
		fn(ctx, "its CLONE_VM child", sharer, T_PROC);
		t_reap(sharer);
	}
}

pid_t t_in_new_pidns(void (*fn)(void *), void *arg)
{
	pid_t child;
	int p[2];
	char c;

	CHECK(!unshare(CLONE_NEWPID), "unshare: %s", strerror(errno));
	if (pipe(p))
		return -1;
	fflush(stdout);
	child = fork();
	if (child == 0) {
		close(p[0]);
		t_failures = 0;
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("proc", "/proc", "proc", 0, NULL))
			_exit(2);
		fn(arg);
		fflush(stdout);
		c = t_failures ? 'x' : 'k';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	CHECK(child > 0, "fork into the new namespace");
	CHECK(child > 0 && read(p[0], &c, 1) == 1 && c == 'k', "inside the new pid namespace");
	close(p[0]);
	return child;
}

bool t_backend_offered(int backend)
{
	struct si_procmap_query pq = { .size = sizeof(pq) };
	bool ok;
	int fd;

	switch (backend) {
	case STACKINFO_BACKEND_MODULE:
		return !access(STACKINFO_PROC_PATH, F_OK);
	case STACKINFO_BACKEND_PROC:
		return !access("/proc/self/stackinfo", F_OK);
	case STACKINFO_BACKEND_PROCMAP_QUERY:
		fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		pq.query_addr = (uintptr_t)&pq;
		ok = !ioctl(fd, SI_PROCMAP_QUERY, &pq) && pq.vma_start <= pq.query_addr &&
		     pq.query_addr < pq.vma_end;
		close(fd);
		return ok;
	case STACKINFO_BACKEND_MAPS:
		return true;
	}
	return false;
}
