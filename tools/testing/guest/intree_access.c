// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Who may open and read the in-tree /proc/<pid>/stackinfo
 * (CONFIG_PROC_STACKINFO), against the kernel's own answers in the same
 * guest, cell by cell, as access does for the module. The in-tree file
 * opens as /proc/<pid>/maps does (proc_mem_open(PTRACE_MODE_READ)) and
 * shows the SP lines as /proc/<pid>/syscall is read
 * (PTRACE_MODE_ATTACH_FSCREDS). Every cell (caller, target) must hold:
 *  - open of stackinfo (and of task/<pid>/stackinfo) fails exactly when
 *    open of maps (task/<pid>/maps) does, with the same errno;
 *  - where it opened: a kernel thread's read fails ENOENT, a zombie's
 *    ESRCH; any other's read gives the SP lines a value exactly when the
 *    caller may read syscall, "-" otherwise;
 *  - the ioctl (tid 0) on the fd fails as the read does, or agrees with
 *    the text field for field.
 * Callers: root, root without CAP_SYS_PTRACE, uid 1000, uid 1001, a uid-1000
 * tracer (PTRACE_SEIZE of its child); targets: itself, a root process,
 * uid-1000 processes dumpable and not, init, kthreadd and one of its
 * children, a zombie, a free pid, a clone(CLONE_VM) child; under Yama's
 * ptrace_scope 0, 1 and 2 where the kernel has Yama (--yama3: the matrix
 * under scope 3 alone, which cannot be undone: run-tests runs it last, as
 * intree_access_yama3). Then a thread that
 * exited (ESRCH), a target that exec'd after the open (EACCES), the
 * test itself reading its own file's fd after its own exec (EACCES), a
 * hidepid=invisible mount and a pid namespace with its own /proc mount
 * (visible as maps is, numbers as that namespace's). Every cell is printed
 * ("cell: ..."), then a summary line. SKIP where the kernel has no such
 * files.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "testutil.h"

#define USER_UID	1000
#define OTHER_UID	1001
#define SLEEPER		"/usr/bin/thread-sleeper"

#define SP_BITS (STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA | STACKINFO_VALID_SP_PREV | \
		 STACKINFO_VALID_SP_GUARD | T_VALID_WITH_SP_VER2)

struct targets {
	struct t_targets p;
	pid_t kthread_child;
	const char *caller;
};

/* cells checked, by this process and the children it runs them in */
static int *cells;

static const char *err_name(int err)
{
	return err ? strerror(-err) : "ok";
}

/* One file of one cell: @file is "stackinfo" or "task/<pid>/stackinfo". */
static void cell_file(const char *proc, const char *caller, const char *tname, pid_t t,
		      enum t_kind kind, const char *dir, int sys)
{
	struct stackinfo_query text, q;
	char maps_file[64], si_file[64];
	int maps, fd, rd = 0, io = 0, want_rd;

	snprintf(maps_file, sizeof(maps_file), "%smaps", dir);
	snprintf(si_file, sizeof(si_file), "%sstackinfo", dir);
	maps = proc_open_at(proc, t, maps_file);
	if (maps >= 0) {
		close(maps);
		maps = 0;
	}
	fd = proc_open_at(proc, t, si_file);
	if (fd >= 0) {
		rd = si_text_read(fd, &text);
		io = si_module_query(fd, 0, 0, &q);
		close(fd);
	}
	(*cells)++;
	printf("cell: %-30s %-22s %-10s maps %-26s syscall %-8s | open %-26s read %-10s"
	       " SP %-6s ioctl %s\n",
	       caller, tname, *dir ? "task file" : "", err_name(maps),
	       sys ? "refused" : "yes", fd < 0 ? strerror(-fd) : "ok", fd < 0 ? "" : err_name(rd),
	       fd < 0 || rd ? "" : (text.valid & STACKINFO_VALID_SP) ? "shown" : "-",
	       fd < 0 ? "" : err_name(io));

	CHECK((fd < 0 ? fd : 0) == maps, "%s -> %s %s: open %s, maps' open %s", caller, tname,
	      si_file, err_name(fd < 0 ? fd : 0), err_name(maps));
	if (fd < 0)
		return;
	want_rd = kind == T_KTHREAD ? -ENOENT : kind == T_ZOMBIE ? -ESRCH : 0;
	CHECK(rd == want_rd, "%s -> %s %s: read %s, want %s", caller, tname, si_file,
	      err_name(rd), err_name(want_rd));
	CHECK(io == rd, "%s -> %s %s: ioctl %s, read %s", caller, tname, si_file, err_name(io),
	      err_name(rd));
	if (rd || io)
		return;
	CHECK(!!(text.valid & STACKINFO_VALID_SP) == !sys,
	      "%s -> %s %s: SP lines %s, syscall %s", caller, tname, si_file,
	      (text.valid & STACKINFO_VALID_SP) ? "shown" : "-", err_name(sys));
	if (sys)
		CHECK(!(text.valid & SP_BITS) && !(q.valid & SP_BITS),
		      "%s -> %s: SP fields without the ATTACH right", caller, tname);
	CHECK_EQ(text.out_tid, t);
	/*
	 * a caller asking about itself moves its SP between read and ioctl,
	 * and so may a target woken meanwhile (a tracer's seized child): the
	 * SP's VMA and every valid bit must agree, the SP itself need not
	 */
	CHECK_SAME(&text, &q, T_CMP_TEXT | T_CMP_NO_SP, caller, "text vs ioctl");
}

/* One cell, in the caller's context, on the proc mount at @proc. */
static void cell(const char *proc, const char *caller, const char *tname, pid_t t,
		 enum t_kind kind)
{
	int sys = proc_readable_at(proc, t, "syscall");
	char dir[64];

	cell_file(proc, caller, tname, t, kind, "", sys);
	snprintf(dir, sizeof(dir), "task/%d/", (int)t);
	cell_file(proc, caller, tname, t, kind, dir, sys);
}

static void matrix_cell(void *ctx, const char *tname, pid_t pid, enum t_kind kind)
{
	cell(NULL, ((const struct targets *)ctx)->caller, tname, pid, kind);
}

static void matrix(const struct targets *t)
{
	t_each_target(&t->p, matrix_cell, (void *)t);
	if (t->kthread_child > 0)
		cell(NULL, t->caller, "a kthreadd child", t->kthread_child, T_KTHREAD);
}

static void as_root(void *arg)
{
	matrix(arg);
}

static void as_root_without_cap(void *arg)
{
	CHECK(!t_drop_effective_cap(CAP_SYS_PTRACE), "capset: %s", strerror(errno));
	matrix(arg);
}

static void as_user(void *arg)
{
	t_become_user(USER_UID);
	matrix(arg);
}

static void as_other_user(void *arg)
{
	t_become_user(OTHER_UID);
	matrix(arg);
}

static void tracer_other_child(void *arg)
{
	cell(NULL, "the tracer's other child", "the tracee", *(pid_t *)arg, T_PROC);
}

/* A uid-1000 tracer of its dumpable child, and the tracer's other child. */
static void tracer(void *arg)
{
	const struct targets *t = arg;
	pid_t tracee;

	t_become_user(USER_UID);
	tracee = t_seize_child(t->caller);
	if (!tracee)
		return;
	cell(NULL, t->caller, "its tracee", tracee, T_PROC);
	t_in_child_arg("the tracer's other child", tracer_other_child, &tracee);
	t_reap(tracee);
}

static void run_matrix(void *arg, const char *scope)
{
	struct targets *t = arg;
	static const struct {
		const char *name;
		void (*fn)(void *);
	} callers[] = {
		{ "root", as_root },
		{ "root -CAP_SYS_PTRACE", as_root_without_cap },
		{ "uid 1000", as_user },
		{ "uid 1001", as_other_user },
		{ "uid-1000 tracer", tracer },
	};
	char name[64];
	unsigned int i;

	for (i = 0; i < sizeof(callers) / sizeof(callers[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", callers[i].name, scope);
		t->caller = name;
		t_in_child_arg(name, callers[i].fn, t);
	}
}

/* ---- a thread that exited, an exec after the open ---- */

struct exiting {
	pthread_barrier_t opened;
	pid_t tid;
};

/* Lives until its file is open, then exits. */
static void *exit_when_opened(void *arg)
{
	struct exiting *x = arg;

	__atomic_store_n(&x->tid, t_gettid(), __ATOMIC_RELEASE);
	pthread_barrier_wait(&x->opened);
	return NULL;
}

static void exited_thread(void)
{
	struct stackinfo_query q;
	struct exiting x = { .tid = 0 };
	char path[64];
	pthread_t th;
	double end;
	int fd, err;

	pthread_barrier_init(&x.opened, NULL, 2);
	CHECK(!pthread_create(&th, NULL, exit_when_opened, &x), "pthread_create");
	while (!__atomic_load_n(&x.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	fd = t_intree_open(NULL, getpid(), x.tid);
	CHECK(fd >= 0, "open task/%d/stackinfo: %s", (int)x.tid, strerror(-fd));
	pthread_barrier_wait(&x.opened);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&x.opened);
	if (fd < 0)
		return;
	/*
	 * The join returns once the kernel cleared the thread's tid, in
	 * exit_mm() before the thread is released; until release_task() it
	 * is still there, and answers (seen on debug-7.2-rt, where the exiting
	 * thread can be preempted in between). Exited is when its task
	 * directory is gone: the kernel's own word.
	 */
	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)x.tid);
	for (end = t_now() + T_WAIT_SECS; !access(path, F_OK) && t_now() < end;)
		usleep(1000);
	CHECK(access(path, F_OK), "%s still there %d s after the join", path, T_WAIT_SECS);
	err = si_text_read(fd, &q);
	CHECK_EQ(err, -ESRCH);
	(*cells)++;
	printf("cell: %-30s %-22s read %s, ioctl %s\n", "root", "an exited thread",
	       err_name(err), err_name(si_module_query(fd, 0, 0, &q)));
	close(fd);
}

static void exec_after_open(void)
{
	struct stackinfo_query q;
	struct t_execer ex;
	int fd, err;

	CHECK(!t_execer_spawn(&ex, SLEEPER), "fork");
	fd = t_intree_open(NULL, ex.pid, 0);
	CHECK(fd >= 0, "open before the exec: %s", strerror(-fd));
	CHECK(fd < 0 || !si_text_read(fd, &q), "read before the exec");
	CHECK(!t_execer_go(&ex), "%s never exec'd", SLEEPER);
	usleep(100000);	/* the exe link changes a moment before the exec is done */
	if (fd >= 0) {
		err = si_text_read(fd, &q);
		CHECK_EQ(err, -EACCES);
		(*cells)++;
		printf("cell: %-30s %-22s read %s, ioctl %s\n", "root",
		       "exec'd after the open", err_name(err),
		       err_name(si_module_query(fd, 0, 0, &q)));
		close(fd);
	}
	t_reap(ex.pid);
}

/*
 * The other way round: this process opens its own file, keeps the fd
 * over an exec of itself, and the new image reads it (--read-fd N): the
 * open was for the old image, so EACCES, read and ioctl, as for a target
 * that exec'd. (The module's own-process path checks nothing: the file
 * must.)
 */
static int read_inherited_fd(const char *arg)
{
	struct stackinfo_query q;
	int fd = atoi(arg), rd = si_text_read(fd, &q), io = si_module_query(fd, 0, 0, &q);

	if (rd == -EACCES && io == -EACCES)
		return 0;
	fprintf(stderr, "FAIL: after its own exec: read %s, ioctl %s, want EACCES both\n",
		err_name(rd), err_name(io));
	return 1;
}

static void own_exec_after_open(void)
{
	int status, fd;
	pid_t pid;
	char arg[16];

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		fd = open("/proc/self/stackinfo", O_RDONLY);	/* no O_CLOEXEC */
		snprintf(arg, sizeof(arg), "%d", fd);
		execl("/proc/self/exe", "intree_access", "--read-fd", arg, (char *)NULL);
		_exit(2);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "own file read after its own exec");
	(*cells)++;
	printf("cell: %-30s %-22s read and ioctl EACCES: %s\n", "root", "itself, after exec",
	       pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status) ? "yes" : "no");
}

/* ---- hidepid=invisible, a pid namespace ---- */

/* stackinfo visible exactly as maps is, on the mount at @proc. */
static void visible_as_maps(const char *proc, const char *caller, const char *tname, pid_t t)
{
	int maps = proc_open_at(proc, t, "maps"), fd = t_intree_open(proc, t, 0);

	(*cells)++;
	printf("cell: %-30s %-22s maps %-26s stackinfo %s\n", caller, tname,
	       maps < 0 ? strerror(-maps) : "ok", fd < 0 ? strerror(-fd) : "ok");
	CHECK((fd < 0 ? fd : 0) == (maps < 0 ? maps : 0), "%s -> %s on %s: stackinfo %s, maps %s",
	      caller, tname, proc, err_name(fd < 0 ? fd : 0), err_name(maps < 0 ? maps : 0));
	if (maps >= 0)
		close(maps);
	if (fd >= 0)
		close(fd);
}

/* The tid the text and the ioctl of @proc/<t>/stackinfo give: @want. */
static void numbers(const char *proc, const char *what, pid_t t, pid_t want, pid_t want_tgid)
{
	struct stackinfo_query text, q;
	int fd = t_intree_open(proc, t, 0), err;

	CHECK(fd >= 0, "%s: open %s/%d/stackinfo: %s", what, proc, (int)t, strerror(-fd));
	if (fd < 0)
		return;
	err = si_text_read(fd, &text);
	CHECK(!err && text.out_tid == (uint32_t)want && text.tgid == (uint32_t)want_tgid,
	      "%s: text %s, tid %u tgid %u, want %d %d", what, err_name(err), text.out_tid,
	      text.tgid, (int)want, (int)want_tgid);
	err = si_module_query(fd, 0, 0, &q);
	CHECK(!err && q.out_tid == (uint32_t)want && q.tgid == (uint32_t)want_tgid,
	      "%s: ioctl %s, tid %u tgid %u", what, err_name(err), q.out_tid, q.tgid);
	printf("cell: %-30s %-22s tid %u tgid %u\n", what, "numbers", q.out_tid, q.tgid);
	close(fd);
}

static const char *hp_dir = "/tmp/intree-proc";

static void hidepid_user(void *arg)
{
	const struct targets *t = arg;

	t_become_user(USER_UID);
	visible_as_maps(hp_dir, t->caller, "root process", t->p.root_proc);
	visible_as_maps(hp_dir, t->caller, "init", 1);
	visible_as_maps(hp_dir, t->caller, "uid-1000 process", t->p.user_proc);
	visible_as_maps(hp_dir, t->caller, "itself", getpid());
	numbers(hp_dir, t->caller, t->p.user_proc, t->p.user_proc, t->p.user_proc);
}

static void hidepid(struct targets *t)
{
	mkdir(hp_dir, 0755);
	if (mount("none", hp_dir, "proc", 0, "hidepid=invisible")) {
		CHECK(0, "mount -t proc -o hidepid=invisible: %s", strerror(errno));
		return;
	}
	t->caller = "uid 1000, hidepid=invisible";
	t_in_child_arg(t->caller, hidepid_user, t);
	umount(hp_dir);
	rmdir(hp_dir);
}

/*
 * A new pid namespace with its own /proc: the process is 1 there, its
 * child 2; outside processes are not there, for stackinfo as for maps.
 * From outside, the outer numbers.
 */
static void inside_pid_namespace(void *arg)
{
	const struct targets *t = arg;
	struct stackinfo_query q;
	pid_t grandchild = t_spawn_sleeper(0, 0);
	int fd;

	numbers("/proc", "in a new pid namespace", 1, 1, 1);
	numbers("/proc", "its child there", grandchild, grandchild, grandchild);
	CHECK_EQ(grandchild, 2);
	visible_as_maps("/proc", "in a new pid namespace", "an outside process", t->p.root_proc);
	/* the ioctl's tids are the mount's too */
	fd = t_intree_open("/proc", 1, 0);
	CHECK(fd >= 0, "/proc/1/stackinfo in the namespace: %s", strerror(-fd));
	if (fd >= 0) {
		CHECK(!si_module_query(fd, 1, 0, &q) && q.out_tid == 1, "tid 1 there");
		CHECK_EQ(si_module_query(fd, t->p.root_proc, 0, &q), -ESRCH);
		close(fd);
	}
	t_reap(grandchild);
}

static void pid_namespace(void *arg)
{
	pid_t child = t_in_new_pidns(inside_pid_namespace, arg);

	if (child > 0) {
		numbers(NULL, "the namespace's init from outside", child, child, child);
		t_reap(child);
	}
}

/* A child of kthreadd (a kernel thread other than pid 2), or 0. */
static pid_t kthreadd_child(void)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	pid_t found = 0;

	while (dir && !found && (d = readdir(dir))) {
		char path[300], buf[512], *p;
		int ppid;
		FILE *f;
		size_t n;

		if (d->d_name[0] < '3' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		p = strrchr(buf, ')');
		if (p && sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == 2)
			found = atoi(d->d_name);
	}
	if (dir)
		closedir(dir);
	return found;
}

int main(int argc, char **argv)
{
	int yama3 = argc > 1 && !strcmp(argv[1], "--yama3");
	struct targets t = { 0 };
	int scope;

	if (argc > 2 && !strcmp(argv[1], "--read-fd"))
		return read_inherited_fd(argv[2]);

	if (t_intree_missing())
		return T_SKIP;
	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	cells = mmap(NULL, sizeof(*cells), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (cells == MAP_FAILED)
		return 1;
	t_targets_spawn(&t.p, USER_UID);
	t.kthread_child = kthreadd_child();
	if (yama3) {
		/* the last test of a guest (run-tests): 3 cannot be undone */
		scope = t_under_yama3(run_matrix, &t);
		if (scope < 0)
			return T_SKIP;
	} else {
		scope = t_each_yama_scope(run_matrix, &t);
		exited_thread();
		exec_after_open();
		own_exec_after_open();
		hidepid(&t);
		t_in_child_arg("another pid namespace", pid_namespace, &t);
	}

	t_targets_reap(&t.p);
	printf("intree_access: %d cells, %s; Yama %s\n", *cells,
	       t_failures ? "some NOT as the kernel's maps and syscall say" :
			    "each as the kernel's maps and syscall say",
	       scope < 0 ? "absent" : yama3 ? "scope 3" : "scopes 0-2");
	return t_result();
}
