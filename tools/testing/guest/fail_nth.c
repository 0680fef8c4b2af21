// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fault injection, walked as syzkaller walks it: each entry point of the
 * module (and of the in-tree files, where the kernel has them) runs with
 * the 1st, 2nd, 3rd ... fault point of the calling thread failing
 * (CONFIG_FAULT_INJECTION's /proc/thread-self/fail-nth: slab and page
 * allocations, sleeping ones too, and user copies), until a run reaches no
 * fault point. Each run that had a fault injected must end in an errno of
 * stackinfo(4)'s ERRORS with the caller's memory untouched (a batch: as
 * documented), or answer exactly as a run without faults; and the next
 * plain call must answer so. Prints "info: ENTRY: N fault points" each.
 *
 * With --insmod PATH: the module's own load (rmmod'ed first), each fault
 * point of finit_module() in turn; a load that fails must fail with an
 * errno and leave no module and no /proc/stackinfo behind, and the next
 * plain load must work; a load that succeeds must give a module that
 * works in full (it answers about another process with its SP and the
 * guard gap, and logged no "cannot"/"not as expected" warning).
 * The module is loaded again at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define MAX_POINTS 20000
#define POISON 0xa5
#define BUF_MAX 8192
#define PEERS 3

/* ---- the knobs: every fault kind failable, none of them logged ---- */

struct knob {
	const char *path;
	const char *value;
	char saved[32];
	bool set;
};

static struct knob knobs[] = {
	{ .path = "/sys/kernel/debug/failslab/ignore-gfp-wait", .value = "N" },
	{ .path = "/sys/kernel/debug/failslab/verbose", .value = "0" },
	{ .path = "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", .value = "N" },
	{ .path = "/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", .value = "N" },
	{ .path = "/sys/kernel/debug/fail_page_alloc/min-order", .value = "0" },
	{ .path = "/sys/kernel/debug/fail_page_alloc/verbose", .value = "0" },
	{ .path = "/sys/kernel/debug/fail_usercopy/verbose", .value = "0" },
};

static void knobs_restore(void)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (knobs[i].set && t_write_file(knobs[i].path, knobs[i].saved))
			fprintf(stderr, "cannot restore %s\n", knobs[i].path);
}

static int knob_set(struct knob *k, const char *value)
{
	FILE *f = fopen(k->path, "re");

	if (!f)
		return -errno;
	if (!k->set) {
		if (!fgets(k->saved, sizeof(k->saved), f))
			k->saved[0] = '\0';
		k->saved[strcspn(k->saved, "\n")] = '\0';
	}
	fclose(f);
	if (t_write_file(k->path, value))
		return -EIO;
	k->set = true;
	return 0;
}

static int knobs_set(void)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		int err = knob_set(&knobs[i], knobs[i].value);

		if (err) {
			fprintf(stderr, "%s: %s\n", knobs[i].path, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* ---- fail-nth of the calling thread ---- */

static __thread int nth_fd = -1;

static int nth_open(void)
{
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	return nth_fd < 0 ? -errno : 0;
}

/* The @n-th fault point from here fails. */
static void nth_arm(unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	if (pwrite(nth_fd, b, len, 0) != len) {
		perror("fail-nth");
		exit(1);
	}
}

/*
 * Disarm; true if the armed fault was injected (fail-nth reads 0). The
 * read's and the write's own user copies are fault points too: a read
 * that fails met the last one (so nothing had been injected before), and
 * a write that fails met it and is done again.
 */
static bool nth_injected(void)
{
	char b[16] = "";
	bool injected;

	injected = pread(nth_fd, b, sizeof(b) - 1, 0) > 0 && b[0] == '0';
	while (pwrite(nth_fd, "0", 1, 0) != 1)
		if (errno != EFAULT) {
			perror("fail-nth");
			exit(1);
		}
	return injected;
}

/* ---- the walk ---- */

/*
 * One entry point: @prep writes the call's memory as it is before the
 * call (poison, then its input) into @buf; @call makes the call on @buf
 * (0 or -errno); @same says whether @buf is the reference answer @ref
 * (why not, in @why); @partial whether a failed call's @buf is as
 * documented when it differs from @before (NULL: it must not).
 */
struct entry {
	const char *name;
	size_t len;
	void (*prep)(const struct entry *e, void *buf);
	int (*call)(const struct entry *e, void *buf);
	bool (*same)(const struct entry *e, const void *buf, const void *ref,
		     char *why, size_t n);
	bool (*partial)(const struct entry *e, const void *buf, const void *before,
			int err);
	void *ctx;
	int errs[4];	/* the errnos a fault may give, beside the reference's */
};

static bool errno_ok(const struct entry *e, int err)
{
	for (size_t i = 0; i < sizeof(e->errs) / sizeof(e->errs[0]); i++)
		if (e->errs[i] && e->errs[i] == err)
			return true;
	return err == ENOMEM || err == EFAULT;
}

/* Walk @e's fault points: their number, -1 on a failure (said). */
static int walk(const struct entry *e)
{
	static unsigned char ref[BUF_MAX], buf[BUF_MAX], before[BUF_MAX];
	int ref_rc, rc, points = 0;
	char why[160];

	e->prep(e, ref);
	ref_rc = e->call(e, ref);
	for (unsigned int n = 1; n <= MAX_POINTS; n++) {
		bool injected;

		e->prep(e, buf);
		memcpy(before, buf, e->len);
		nth_arm(n);
		rc = e->call(e, buf);
		injected = nth_injected();
		if (!injected) {
			CHECK(rc == ref_rc && e->same(e, buf, ref, why, sizeof(why)),
			      "%s: no fault: %d, not %d as before: %s", e->name, rc,
			      ref_rc, rc == ref_rc ? why : "");
			printf("info: %s: %d fault points\n", e->name, points);
			return points;
		}
		points++;
		if (rc == ref_rc && e->same(e, buf, ref, why, sizeof(why))) {
			/* the fault was absorbed: the same answer */
		} else if (rc < 0 && rc != ref_rc) {
			CHECK(errno_ok(e, -rc), "%s: fault point %u: %s, not in stackinfo(4)",
			      e->name, n, strerror(-rc));
			CHECK(!memcmp(buf, before, e->len) ||
				      (e->partial && e->partial(e, buf, before, -rc)),
			      "%s: fault point %u: %s, and the caller's memory changed",
			      e->name, n, strerror(-rc));
		} else {
			CHECK(0, "%s: fault point %u: %d (reference %d), not the answer: %s",
			      e->name, n, rc, ref_rc, rc == ref_rc ? why : "");
		}
		/* and the next plain call answers */
		e->prep(e, buf);
		rc = e->call(e, buf);
		CHECK(rc == ref_rc && e->same(e, buf, ref, why, sizeof(why)),
		      "%s: the call after fault point %u: %d, not %d: %s", e->name,
		      n, rc, ref_rc, rc == ref_rc ? why : "");
		if (t_failures > 20)
			break;
	}
	CHECK(t_failures, "%s: still failing after %d fault points", e->name, points);
	return -1;
}

/* ---- the entry points ---- */

static int stackinfo_fd;		/* /proc/stackinfo */

/* /proc/stackinfo's text (and the in-tree files'): read at offset 0 */
struct text_ctx {
	int fd;
	unsigned int cmp;	/* T_CMP_* */
};

static void text_prep(const struct entry *e, void *buf)
{
	memset(buf, POISON, e->len);
}

static int text_call(const struct entry *e, void *buf)
{
	const struct text_ctx *c = e->ctx;
	ssize_t n = pread(c->fd, buf, e->len - 1, 0);

	if (n < 0)
		return -errno;
	((char *)buf)[n] = '\0';
	return 0;
}

static bool text_same(const struct entry *e, const void *buf, const void *ref,
		      char *why, size_t n)
{
	const struct text_ctx *c = e->ctx;
	struct stackinfo_query a, b;

	if (si_text_parse(buf, &a) || si_text_parse(ref, &b)) {
		snprintf(why, n, "the text does not parse");
		return false;
	}
	return t_query_same(&a, &b, c->cmp, why, n);
}

/* STACKINFO_IOC_QUERY on an fd, for a tid, maybe with a proof fd */
struct query_ctx {
	int fd;
	pid_t tid;
	int proof;		/* -1: none */
	unsigned int cmp;
};

static void query_prep(const struct entry *e, void *buf)
{
	const struct query_ctx *c = e->ctx;
	struct stackinfo_query *q = buf;

	memset(buf, POISON, e->len);
	t_query_fill(q, sizeof(*q));
	q->tid = c->tid;
	q->proof_fd = -1;
	if (c->proof >= 0) {
		q->query_flags = STACKINFO_QUERY_PROOF_FD;
		q->proof_fd = c->proof;
	}
}

static int query_call(const struct entry *e, void *buf)
{
	const struct query_ctx *c = e->ctx;

	return ioctl(c->fd, STACKINFO_IOC_QUERY, buf) ? -errno : 0;
}

static bool query_same(const struct entry *e, const void *buf, const void *ref,
		       char *why, size_t n)
{
	const struct query_ctx *c = e->ctx;

	return t_query_same(buf, ref, c->cmp, why, n);
}

/* STACKINFO_IOC_QUERY_THREADS: the args, then an array of @count entries */
struct batch_ctx {
	int fd;
	pid_t pid;
	uint32_t count;
	uint64_t entry_size;
	unsigned int cmp;
};

static void batch_prep(const struct entry *e, void *buf)
{
	const struct batch_ctx *c = e->ctx;
	struct stackinfo_threads *a = buf;

	memset(buf, POISON, e->len);
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->pid = c->pid;
	a->count = c->count;
	a->entries = (uintptr_t)((char *)buf + sizeof(*a));
	a->entry_size = c->entry_size;
	a->proof_fd = -1;
}

static int batch_call(const struct entry *e, void *buf)
{
	const struct batch_ctx *c = e->ctx;

	return ioctl(c->fd, STACKINFO_IOC_QUERY_THREADS, buf) ? -errno : 0;
}

static const struct stackinfo_query *batch_entry(const struct entry *e,
						 const void *buf, uint32_t i)
{
	const struct batch_ctx *c = e->ctx;

	return (const void *)((const char *)buf + sizeof(struct stackinfo_threads) +
			      i * c->entry_size);
}

static bool batch_same(const struct entry *e, const void *buf, const void *ref,
		       char *why, size_t n)
{
	const struct stackinfo_threads *a = buf, *b = ref;
	const struct batch_ctx *c = e->ctx;

	if (a->count != b->count) {
		snprintf(why, n, "count %u, not %u", a->count, b->count);
		return false;
	}
	/* with ERANGE nothing is written: the array is compared whole */
	if (b->count > c->count)
		return !memcmp(batch_entry(e, buf, 0), batch_entry(e, ref, 0),
			       c->count * c->entry_size) ||
		       (snprintf(why, n, "the array changed"), false);
	for (uint32_t i = 0; i < a->count; i++)
		if (!t_query_same(batch_entry(e, buf, i), batch_entry(e, ref, i),
				  c->cmp, why, n))
			return false;
	return true;
}

/*
 * stackinfo(4): a failure other than bad input sets count to the entries
 * written before it, each a whole entry (its size says how much of it the
 * kernel filled); what lies beyond is untouched.
 * A fault on the write of count itself leaves it as it was.
 */
static bool batch_partial(const struct entry *e, const void *buf, const void *before,
			  int err)
{
	const struct stackinfo_threads *a = buf, *b = before;
	const struct batch_ctx *c = e->ctx;
	uint32_t done = a->count;

	if (done == b->count && err == EFAULT)
		done = 0;
	if (done > c->count || memcmp(a, b, offsetof(struct stackinfo_threads, count)) ||
	    memcmp(&a->entries, &b->entries,
		   sizeof(*a) - offsetof(struct stackinfo_threads, entries)))
		return false;
	for (uint32_t i = 0; i < done; i++)
		if (batch_entry(e, buf, i)->size !=
		    (c->entry_size < sizeof(struct stackinfo_query) ? c->entry_size :
		     sizeof(struct stackinfo_query)))
			return false;
	return !memcmp(batch_entry(e, buf, done), batch_entry(e, before, done),
		       (c->count - done) * c->entry_size);
}

/* open(2) of an in-tree file, then its text (text_same() reads .text) */
struct open_ctx {
	struct text_ctx text;
	char path[64];
};

static int open_call(const struct entry *e, void *buf)
{
	const struct open_ctx *c = e->ctx;
	ssize_t n;
	int fd;

	fd = open(c->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, e->len - 1, 0);
	close(fd);
	if (n < 0)
		return -errno;
	((char *)buf)[n] = '\0';
	return 0;
}

/* ---- the processes and threads asked about ---- */

static int peer_pipe[2];
static pid_t peer_tids[PEERS];

static void *peer(void *arg)
{
	char c;

	__atomic_store_n(&peer_tids[(long)arg], t_gettid(), __ATOMIC_RELEASE);
	if (read(peer_pipe[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void walk_query(const char *name, int fd, pid_t tid, int proof, unsigned int cmp)
{
	struct query_ctx c = { .fd = fd, .tid = tid, .proof = proof, .cmp = cmp };
	struct entry e = {
		.name = name, .len = sizeof(struct stackinfo_query), .prep = query_prep,
		.call = query_call, .same = query_same, .ctx = &c,
	};

	walk(&e);
}

static void walk_text(const char *name, int fd, unsigned int cmp)
{
	struct text_ctx c = { .fd = fd, .cmp = cmp };
	struct entry e = {
		.name = name, .len = 4096, .prep = text_prep, .call = text_call,
		.same = text_same, .ctx = &c,
	};

	walk(&e);
}

static void walk_batch(const char *name, int fd, pid_t pid, uint32_t count,
		       uint64_t entry_size, unsigned int cmp)
{
	struct batch_ctx c = {
		.fd = fd, .pid = pid, .count = count, .entry_size = entry_size, .cmp = cmp,
	};
	struct entry e = {
		.name = name, .len = sizeof(struct stackinfo_threads) + count * entry_size,
		.prep = batch_prep, .call = batch_call, .same = batch_same,
		.partial = batch_partial, .ctx = &c, .errs = { ERANGE },
	};

	if (e.len > BUF_MAX) {
		CHECK(0, "%s: %zu bytes", name, e.len);
		return;
	}
	walk(&e);
}

/* as a user, about a process of its own (the kernel's check) and with proof fds */
static void as_user(void *arg)
{
	pid_t other;
	char path[64];
	int mem, auxv;

	(void)arg;
	t_become_user(65534);
	if (nth_open()) {
		CHECK(0, "fail-nth as a user: %s", strerror(errno));
		return;
	}
	other = t_spawn_sleeper(0, 0);
	CHECK(other > 0 && !t_wait_sleeping(other), "a sleeper");
	if (other <= 0)
		return;
	walk_query("query a process of the same user", stackinfo_fd, other, -1, 0);
	snprintf(path, sizeof(path), "/proc/%d/mem", other);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/auxv", other);
	auxv = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(mem >= 0 && auxv >= 0, "proof fds: %s", strerror(errno));
	if (mem >= 0 && auxv >= 0) {
		walk_query("query with a mem proof fd", stackinfo_fd, other, mem, 0);
		walk_query("query with an auxv proof fd", stackinfo_fd, other, auxv, 0);
	}
	walk_batch("batch, a process of the same user", stackinfo_fd, other, 4,
		   sizeof(struct stackinfo_query), 0);
	t_reap(other);
}

static void intree(pid_t other)
{
	struct open_ctx oc = { .text.cmp = T_CMP_TEXT };
	struct entry e = {
		.name = "open and read /proc/<pid>/stackinfo", .len = 4096,
		.prep = text_prep, .call = open_call, .same = text_same, .ctx = &oc,
	};
	int fd;

	if (t_intree_missing())
		return;
	snprintf(oc.path, sizeof(oc.path), "/proc/%d/stackinfo", other);
	walk(&e);
	fd = t_intree_open(NULL, other, 0);
	CHECK(fd >= 0, "/proc/%d/stackinfo: %s", other, strerror(-fd));
	if (fd < 0)
		return;
	walk_text("read /proc/<pid>/stackinfo", fd, T_CMP_TEXT);
	walk_query("ioctl on /proc/<pid>/stackinfo", fd, 0, -1, 0);
	walk_batch("batch on /proc/<pid>/stackinfo", fd, 0, 4,
		   sizeof(struct stackinfo_query), 0);
	close(fd);
	fd = t_intree_open(NULL, other, other);
	CHECK(fd >= 0, "/proc/%d/task/%d/stackinfo: %s", other, other, strerror(-fd));
	if (fd >= 0) {
		walk_text("read /proc/<pid>/task/<tid>/stackinfo", fd, T_CMP_TEXT);
		close(fd);
	}
}

static void walk_all(void)
{
	pthread_t th[PEERS];
	pid_t other, self = t_gettid();
	int fd;

	CHECK(!pipe(peer_pipe), "pipe");
	for (long i = 0; i < PEERS; i++)
		CHECK(!pthread_create(&th[i], NULL, peer, (void *)i), "a thread");
	for (int i = 0; i < PEERS; i++) {
		while (!__atomic_load_n(&peer_tids[i], __ATOMIC_ACQUIRE))
			usleep(1000);
		CHECK(!t_wait_sleeping(peer_tids[i]), "thread %d sleeps", i);
	}
	other = t_spawn_sleeper(0, 0);
	CHECK(other > 0 && !t_wait_sleeping(other), "a sleeper");

	walk_text("read /proc/stackinfo", stackinfo_fd, T_CMP_TEXT | T_CMP_NO_SP);
	walk_query("query the caller (tid 0)", stackinfo_fd, 0, -1, T_CMP_NO_SP);
	walk_query("query the caller by its tid", stackinfo_fd, self, -1, T_CMP_NO_SP);
	walk_query("query another thread", stackinfo_fd, peer_tids[0], -1, 0);
	walk_query("query another process as root", stackinfo_fd, other, -1, 0);
	/* its own process: the caller's entry moves, so no SP compared */
	walk_batch("batch, own process, array too short", stackinfo_fd, 0, 2,
		   sizeof(struct stackinfo_query), T_CMP_NO_SP);
	walk_batch("batch, own process, array exact", stackinfo_fd, 0, PEERS + 1,
		   sizeof(struct stackinfo_query), T_CMP_NO_SP);
	walk_batch("batch, own process, array large", stackinfo_fd, 0, 24,
		   sizeof(struct stackinfo_query), T_CMP_NO_SP);
	walk_batch("batch, another process, entry size 168", stackinfo_fd, other, 2,
		   STACKINFO_QUERY_SIZE_VER0, 0);
	fd = open("/sys/module/stackinfo/parameters/allow_cap_sys_ptrace",
		  O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && write(fd, "1", 1) == 1) {
		walk_query("query another process by CAP_SYS_PTRACE", stackinfo_fd, other,
			   -1, 0);
		CHECK(write(fd, "0", 1) == 1, "allow_cap_sys_ptrace back to 0");
	} else {
		CHECK(0, "allow_cap_sys_ptrace: %s", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	t_in_child_arg("as a user", as_user, NULL);
	intree(other);

	t_reap(other);
	close(peer_pipe[1]);
	for (int i = 0; i < PEERS; i++)
		pthread_join(th[i], NULL);
}

/* ---- the module's load ---- */

static int mod_loaded(void)
{
	FILE *f = fopen("/proc/modules", "re");
	char line[256];
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "stackinfo ", 10))
			found = 1;
	fclose(f);
	return found;
}

static int mod_unload(void)
{
	return syscall(SYS_delete_module, "stackinfo", O_NONBLOCK) ? -errno : 0;
}

/*
 * A loaded module that works in full: root's query about another process
 * has the SP and the guard gap (the checks init learnt), an auxv proof fd
 * works.
 */
static bool mod_works(const char *when)
{
	struct stackinfo_query q;
	pid_t other = t_spawn_sleeper(0, 0);
	char path[64];
	int fd, auxv, rc;
	bool ok;

	fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);
	t_query_fill(&q, sizeof(q));
	q.tid = other;
	rc = fd < 0 ? -errno : ioctl(fd, STACKINFO_IOC_QUERY, &q) ? -errno : 0;
	ok = !rc && (q.valid & STACKINFO_VALID_SP) && (q.valid & STACKINFO_VALID_GUARD_GAP);
	CHECK(ok, "%s: the query about another process: %s, valid %#llx", when,
	      strerror(-rc), (unsigned long long)q.valid);
	snprintf(path, sizeof(path), "/proc/%d/auxv", other);
	auxv = open(path, O_RDONLY | O_CLOEXEC);
	t_query_fill(&q, sizeof(q));
	q.tid = other;
	q.query_flags = STACKINFO_QUERY_PROOF_FD;
	q.proof_fd = auxv;
	rc = fd < 0 ? -EBADF : ioctl(fd, STACKINFO_IOC_QUERY, &q) ? -errno : 0;
	CHECK(!rc, "%s: a query with an auxv proof fd: %s", when, strerror(-rc));
	ok = ok && !rc;
	if (auxv >= 0)
		close(auxv);
	if (fd >= 0)
		close(fd);
	t_reap(other);
	return ok;
}

static void walk_insmod(const char *path)
{
	int mod, rc, points = 0, failed_loads = 0;
	bool injected;

	if (mod_loaded() == 1)
		CHECK(!mod_unload(), "rmmod stackinfo: %s", strerror(errno));
	mod = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(mod >= 0, "%s: %s", path, strerror(errno));
	if (mod < 0)
		return;
	for (unsigned int n = 1; n <= MAX_POINTS && t_failures < 20; n++) {
		char when[48];

		snprintf(when, sizeof(when), "the load at fault point %u", n);
		nth_arm(n);
		rc = syscall(SYS_finit_module, mod, "", 0) ? -errno : 0;
		injected = nth_injected();
		if (!injected) {
			CHECK(!rc, "the load without a fault: %s", strerror(-rc));
			if (!rc)
				mod_works("the load without a fault");
			printf("info: insmod: %d fault points, %d of them failed the load\n",
			       points, failed_loads);
			close(mod);
			return;
		}
		points++;
		if (!rc) {
			/* absorbed (or not ours): then the module works in full */
			mod_works(when);
		} else {
			failed_loads++;
			CHECK(mod_loaded() == 0 && access(STACKINFO_PROC_PATH, F_OK),
			      "%s failed (%s) and left the module or its file behind",
			      when, strerror(-rc));
			rc = syscall(SYS_finit_module, mod, "", 0) ? -errno : 0;
			CHECK(!rc, "the plain load after %s: %s", when, strerror(-rc));
			if (!rc)
				mod_works(when);
		}
		if (mod_loaded() == 1)
			CHECK(!mod_unload(), "rmmod after %s: %s", when, strerror(errno));
	}
	CHECK(t_failures, "the load still fails after %d fault points", points);
	close(mod);
}

int main(int argc, char **argv)
{
	bool insmod = argc == 3 && !strcmp(argv[1], "--insmod");

	if (access("/proc/thread-self/fail-nth", F_OK)) {
		printf("SKIP: the kernel has no fault injection (CONFIG_FAULT_INJECTION)\n");
		return T_SKIP;
	}
	if (argc != 1 && !insmod) {
		fprintf(stderr, "usage: fail_nth [--insmod MODULE.ko]\n");
		return 2;
	}
	if (knobs_set() || nth_open()) {
		knobs_restore();
		CHECK(0, "cannot set up fault injection: %s", strerror(errno));
		return t_result();
	}
	if (insmod) {
		/* the module's file read into memory, in pages, fails too */
		walk_insmod(argv[2]);
		if (mod_loaded() != 1)
			CHECK(!syscall(SYS_finit_module, open(argv[2], O_RDONLY), "", 0),
			      "the module loaded again at the end: %s", strerror(errno));
	} else {
		stackinfo_fd = si_open();
		CHECK(stackinfo_fd >= 0, "/proc/stackinfo: %s", strerror(-stackinfo_fd));
		if (stackinfo_fd >= 0)
			walk_all();
	}
	knobs_restore();
	return t_result();
}
