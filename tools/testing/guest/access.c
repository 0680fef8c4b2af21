// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The access policy (module/access.c) against the kernel's own answers.
 * For every cell (caller, target) the caller asks the module plainly and
 * with the proof fd it can open itself (/proc/<pid>/mem, else auxv), and
 * asks the kernel for /proc/<pid>/maps and /proc/<pid>/syscall. The cell
 * must hold, plainly and with the proof alike:
 *  - the own thread group: everything;
 *  - anyone else: the SP exactly when the kernel gives syscall, the stack
 *    VMAs exactly when it gives maps; where it refuses maps, EACCES, or
 *    ESRCH where it says there is no such pid (ENOENT: hidepid);
 *  - where the kernel gives maps but there is no user stack: ENOENT for a
 *    kernel thread, ESRCH for a zombie; a free pid: ESRCH.
 * Targets include a tracee of the caller (a tracer gets what the kernel's
 * check gives it, no more) and a clone(CLONE_VM) child (maps' open lets a
 * sharer of the mm in without the ptrace check; syscall does not).
 * On Yama kernels the matrix runs under ptrace_scope 0, 1 and 2 (3 cannot
 * be undone: access_yama3 runs it last), each time with the module's
 * allow_cap_sys_ptrace off and on. On, a caller with CAP_SYS_PTRACE in the
 * initial user namespace, now and when it opened /proc/stackinfo, is owed
 * everything of a live process whatever the kernel says (Yama 3 refuses
 * syscall to root: the bypass shows there); any other caller, the
 * kernel's answer (the capability dropped before or after the open, an fd
 * opened by uid 1000 in root's hands, root's fd in uid 1000's). Then: a proof fd passed over a
 * unix socket, a proof of one process used for another, an exec of a
 * setuid program after the proof was opened, hidepid=invisible, noaccess
 * and ptraceable, pid namespaces, the batch ioctl refused.
 * Every cell is printed ("cell: ...") for docs/design.md's table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "testutil.h"

#define USER_UID 1000
#define SUID_SLEEPER "/tmp/access-suid-sleeper"
#define CAP_PARAM "/sys/module/stackinfo/parameters/allow_cap_sys_ptrace"

/* allow_cap_sys_ptrace in this round of the matrix */
static int cap_param;
/* the caller is one the parameter grants everything (cap_param set) */
static int owed_all;

enum answer { A_ERR, A_VMAS, A_ALL };

static const char *const answer_name[] = { "refused", "VMAs", "VMAs+SP" };

static enum answer answer_of(int err, const struct stackinfo_query *q)
{
	if (err)
		return A_ERR;
	return (q->valid & STACKINFO_VALID_SP) ? A_ALL : A_VMAS;
}

/* What the kernel's own answers for maps and syscall say the module owes. */
static int kernel_says(enum t_kind kind, int maps, int sys, enum answer *a)
{
	*a = A_ERR;
	if (kind == T_OWN) {
		*a = A_ALL;
		return 0;
	}
	if (maps)
		return maps == -ENOENT || maps == -ESRCH ? -ESRCH : -EACCES;
	if (kind == T_KTHREAD)
		return -ENOENT;
	if (kind == T_ZOMBIE || kind == T_FREE)
		return -ESRCH;
	*a = sys ? A_VMAS : A_ALL;
	return 0;
}

/*
 * The batch of @t's process, plainly or with @proof: the single query's
 * errno (@want), and each thread's entry the SP exactly when the kernel
 * gives this caller that thread's /proc/<tid>/syscall (everything to the
 * own process, and where the capability parameter owes it).
 */
static void batch_cell(int fd, const char *caller, const char *tname, pid_t t,
		       enum t_kind kind, int proof, const char *how, int want)
{
	struct stackinfo_query arr[16];
	int err, sys, sp, n;
	uint32_t i, count;

	err = t_threads_proof(fd, t, proof, arr, 16, &count);
	CHECK(err == want, "%s -> %s: batch (%s) %s, the kernel says %s", caller, tname, how,
	      strerror(-err), strerror(-want));
	if (err) {
		CHECK(count == 0, "%s -> %s: batch (%s) refused, count %u", caller, tname, how,
		      count);
		return;
	}
	n = t_task_tids(t, NULL, 0);
	CHECK(n < 0 || count == (uint32_t)n, "%s -> %s: batch (%s) %u entries, %d threads",
	      caller, tname, how, count, n);
	for (i = 0; i < count && i < 16; i++) {
		sys = proc_readable((pid_t)arr[i].out_tid, "syscall");
		sp = !!(arr[i].valid & STACKINFO_VALID_SP);
		printf("cell: %-28s %-22s batch %-4s tid %-6u syscall %-8s | %s\n", caller, tname,
		       how, arr[i].out_tid, sys ? "refused" : "yes", sp ? "VMAs+SP" : "VMAs");
		CHECK(sp == (kind == T_OWN || (owed_all && kind == T_PROC) || !sys),
		      "%s -> %s: batch (%s) entry of tid %u: SP %s, the kernel %s its syscall",
		      caller, tname, how, arr[i].out_tid, sp ? "given" : "withheld",
		      sys ? "refuses" : "gives");
	}
}

/* One cell, in the caller's context, on the caller's /proc. */
static void cell(int fd, const char *caller, const char *tname, pid_t t, enum t_kind kind)
{
	struct stackinfo_query q;
	enum answer plain_a, proof_a, want_a;
	int maps, sys, proof, plain, proofed, want;
	const char *proof_kind = "none";

	maps = proc_readable(t, "maps");
	sys = proc_readable(t, "syscall");
	proof = proc_open(t, "mem");
	if (proof >= 0) {
		proof_kind = "mem";
	} else {
		proof = proc_open(t, "auxv");
		if (proof >= 0)
			proof_kind = "auxv";
	}
	plain = si_module_query_proof(fd, t, 0, -1, &q);
	plain_a = answer_of(plain, &q);
	if (!plain)
		CHECK(q.out_tid == (uint32_t)t, "%s -> %s: answer for tid %u", caller, tname,
		      q.out_tid);
	proofed = si_module_query_proof(fd, t, 0, proof, &q);
	proof_a = answer_of(proofed, &q);
	want = kernel_says(kind, maps, sys, &want_a);
	/* the parameter bypasses the kernel's check, not the lookup */
	if (owed_all && kind == T_PROC) {
		want = 0;
		want_a = A_ALL;
	}

	printf("cell: %-28s %-22s maps %-8s syscall %-8s | plain %-8s | %s proof %s\n",
	       caller, tname, maps ? "refused" : "yes", sys ? "refused" : "yes",
	       plain ? strerror(-plain) : answer_name[plain_a], proof_kind,
	       proofed ? strerror(-proofed) : answer_name[proof_a]);
	CHECK(plain == want && plain_a == want_a, "%s -> %s: plain %s/%s, the kernel says %s/%s",
	      caller, tname, strerror(-plain), answer_name[plain_a], strerror(-want),
	      answer_name[want_a]);
	CHECK(proofed == want && proof_a == want_a,
	      "%s -> %s: with its %s proof %s/%s, the kernel says %s/%s", caller, tname,
	      proof_kind, strerror(-proofed), answer_name[proof_a], strerror(-want),
	      answer_name[want_a]);
	batch_cell(fd, caller, tname, t, kind, -1, "plain", want);
	if (proof >= 0) {
		batch_cell(fd, caller, tname, t, kind, proof, proof_kind, want);
		close(proof);
	}
}

struct targets {
	struct t_targets p;
	const char *caller;
	const char *proc_dir;	/* where the caller opens stackinfo */
	int hide;
};

struct matrix_ctx {
	int fd;
	const char *caller;
};

static void matrix_cell(void *ctx, const char *tname, pid_t pid, enum t_kind kind)
{
	const struct matrix_ctx *m = ctx;

	cell(m->fd, m->caller, tname, pid, kind);
}

static void matrix(const struct targets *t, int fd)
{
	struct matrix_ctx m = { fd, t->caller };

	t_each_target(&t->p, matrix_cell, &m);
}

static int open_stackinfo(const struct targets *t)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/stackinfo", t->proc_dir ? t->proc_dir : "/proc");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		_exit(1);
	}
	return fd;
}

static void as_root(void *arg)
{
	const struct targets *t = arg;
	int fd = open_stackinfo(t);

	owed_all = cap_param;
	matrix(t, fd);
	close(fd);
}

/* the capability when it opened, not now */
static void as_root_cap_dropped_after_open(void *arg)
{
	const struct targets *t = arg;
	int fd = open_stackinfo(t);

	CHECK(!t_drop_effective_cap(CAP_SYS_PTRACE), "capset: %s", strerror(errno));
	matrix(t, fd);
	close(fd);
}

/* the capability now, not when it opened: uid 1000's fd in root's hands */
static void as_root_with_users_fd(void *arg)
{
	const struct targets *t = arg;
	int fd;

	/* a saved uid 0 gives the effective set back at seteuid(0) */
	CHECK(!seteuid(USER_UID), "seteuid(%d): %s", USER_UID, strerror(errno));
	fd = open_stackinfo(t);
	CHECK(!seteuid(0), "seteuid(0): %s", strerror(errno));
	matrix(t, fd);
	close(fd);
}

/* root's fd in uid 1000's hands */
static void as_user_with_roots_fd(void *arg)
{
	const struct targets *t = arg;
	int fd = open_stackinfo(t);

	t_become_user(USER_UID);
	matrix(t, fd);
	close(fd);
}

static void as_root_without_cap(void *arg)
{
	const struct targets *t = arg;
	int fd;

	CHECK(!t_drop_effective_cap(CAP_SYS_PTRACE), "capset: %s", strerror(errno));
	fd = open_stackinfo(t);
	matrix(t, fd);
	close(fd);
}

static void as_user(void *arg)
{
	const struct targets *t = arg;
	int fd;

	t_become_user(USER_UID);
	fd = open_stackinfo(t);
	matrix(t, fd);
	close(fd);
}

struct other_child {
	int fd;
	pid_t tracee;
};

static void tracer_other_child(void *arg)
{
	const struct other_child *o = arg;

	cell(o->fd, "the tracer's other child", "the tracee", o->tracee, T_PROC);
}

/*
 * A process of a leader and two workers (their tids into @tids) whose
 * second worker the caller traces, and whose ancestor it is not: a child
 * of the caller's child, seized while it was the caller's descendant,
 * orphaned then (its parent exits), so that Yama's relational scope sees
 * no ancestry and only the tracing of that one thread
 * (ptracer_exception_found()). Its pid, or 0 after a CHECK failure.
 */
static pid_t orphaned_threaded(pid_t tids[3])
{
	int up[2], down[2], status, seized, i;
	pid_t middle, p = 0;
	char c;

	CHECK(!pipe(up) && !pipe(down), "pipe: %s", strerror(errno));
	fflush(NULL);
	middle = fork();
	if (middle == 0) {
		close(up[0]);
		close(down[1]);
		p = fork();
		if (p == 0) {
			pthread_t th;

			close(up[1]);
			close(down[0]);
			for (i = 0; i < 2; i++)
				if (pthread_create(&th, NULL, t_pause_forever, NULL))
					_exit(1);
			t_pause_forever(NULL);
		}
		/* its pid up, then exit once the caller has seized its worker */
		if (p < 0 || write(up[1], &p, sizeof(p)) != sizeof(p))
			_exit(1);
		_exit(read(down[0], &c, 1) == 1 ? 0 : 1);
	}
	close(up[1]);
	close(down[0]);
	if (middle < 0 || read(up[0], &p, sizeof(p)) != sizeof(p))
		p = 0;
	close(up[0]);
	for (i = 0; p > 0 && i < 5000 && t_task_tids(p, NULL, 0) != 3; i++)
		usleep(1000);
	seized = p > 0 && t_task_tids(p, tids, 3) == 3 && !ptrace(PTRACE_SEIZE, tids[2], 0, 0);
	CHECK(seized, "the orphan %d, its worker seized: %s", (int)p, strerror(errno));
	/* the middle's exit reparents the orphan before the middle is reaped */
	CHECK(middle > 0 && write(down[1], "x", 1) == 1 && waitpid(middle, &status, 0) == middle &&
	      WIFEXITED(status) && !WEXITSTATUS(status), "the orphan's parent");
	close(down[1]);
	if (!seized && p > 0)
		kill(p, SIGKILL);
	return seized ? p : 0;
}

/*
 * A tracer (uid 1000) and its tracee (its own child): the tracer gets what
 * the kernel's check gives it, as the tracer's other child, same uid, does;
 * attaching proves nothing by itself. Then a threaded process of which it
 * traces one worker and is no ancestor (orphaned_threaded()): each
 * thread's entry in the batch as the kernel's syscall of that thread,
 * which under Yama 1 it gives for the traced worker alone.
 */
static void tracer(void *arg)
{
	const struct targets *t = arg;
	struct other_child o;
	pid_t tracee, threaded, tids[3];
	int fd, status;

	t_become_user(USER_UID);
	tracee = t_seize_child(t->caller);
	if (!tracee)
		return;
	fd = open_stackinfo(t);
	cell(fd, t->caller, "its tracee", tracee, T_PROC);
	o.fd = fd;
	o.tracee = tracee;
	t_in_child_arg("the tracer's other child", tracer_other_child, &o);
	t_reap(tracee);

	threaded = orphaned_threaded(tids);
	if (threaded > 0) {
		cell(fd, t->caller, "an orphan, a worker traced", threaded, T_PROC);
		/* a traced thread that exits waits for its tracer's wait */
		CHECK(!ptrace(PTRACE_INTERRUPT, tids[2], 0, 0) &&
		      waitpid(tids[2], &status, __WALL) == tids[2] &&
		      !ptrace(PTRACE_DETACH, tids[2], 0, 0), "detach %d: %s", tids[2],
		      strerror(errno));
		/* its parent now is the pid namespace's reaper, which reaps it */
		kill(threaded, SIGKILL);
	}
	close(fd);
}

static void run_caller(struct targets *t, const char *who, const char *scope,
		       void (*fn)(void *))
{
	char name[96];

	snprintf(name, sizeof(name), "%s%s%s", who, scope,
		 cap_param ? ", allow_cap_sys_ptrace" : "");
	t->caller = name;
	t_in_child_arg(name, fn, t);
}

static void run_matrix(void *arg, const char *scope)
{
	struct targets *t = arg;

	for (cap_param = 0; cap_param <= 1; cap_param++) {
		CHECK(!t_write_file(CAP_PARAM, cap_param ? "1" : "0"), "%s: %s", CAP_PARAM,
		      strerror(errno));
		run_caller(t, "root", scope, as_root);
		run_caller(t, "root -CAP_SYS_PTRACE", scope, as_root_without_cap);
		run_caller(t, "uid 1000", scope, as_user);
		run_caller(t, "uid-1000 tracer", scope, tracer);
		if (!cap_param)
			continue;
		run_caller(t, "root -CAP_SYS_PTRACE after open", scope,
			   as_root_cap_dropped_after_open);
		run_caller(t, "root with uid 1000's fd", scope, as_root_with_users_fd);
		run_caller(t, "uid 1000 with root's fd", scope, as_user_with_roots_fd);
	}
	cap_param = 0;
	CHECK(!t_write_file(CAP_PARAM, "0"), "%s: %s", CAP_PARAM, strerror(errno));
}

/* ---- proof fds: passed on, misused, outlived by an exec ---- */

static int send_fd(int sock, int fd)
{
	char c = 'f', buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char c, buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -errno;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * root opens /proc/<root process>/mem and passes it to a uid-1000 process:
 * the fd works for it as /proc/<pid>/mem itself does (a capability), while
 * the kernel refuses that process the files themselves: the VMAs, which
 * maps' open would have shown the fd's opener, and not the SP, which the
 * kernel shows only to a reader of syscall it checks then (the file does
 * not say whether its opener was checked or shared the mm). Over a unix socket
 * (SCM_RIGHTS); where the kernel has no AF_UNIX (our tinyconfig debug
 * kernels), inherited across fork() and a drop to uid 1000 instead.
 */
static void passed_proof(const struct targets *t)
{
	struct stackinfo_query q;
	int sv[2] = { -1, -1 }, status, mem, err, sock;
	const char *how = "over a unix socket";
	pid_t child;

	mem = proc_open(t->p.root_proc, "mem");
	CHECK(mem >= 0, "root opens mem: %s", strerror(-mem));
	sock = !socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	if (!sock)
		how = "inherited (no AF_UNIX)";
	fflush(stdout);
	child = fork();
	if (child == 0) {
		int fd, proof = mem;

		t_failures = 0;
		if (sock) {
			close(mem);
			close(sv[0]);
		}
		t_become_user(USER_UID);
		fd = open_stackinfo(t);
		if (sock)
			proof = recv_fd(sv[1]);
		CHECK(proof >= 0, "recv_fd: %s", strerror(-proof));
		err = si_module_query_proof(fd, t->p.root_proc, 0, proof, &q);
		printf("cell: %-28s %-22s maps %-8s syscall %-8s | plain %-8s | mem proof passed %s: %s\n",
		       "uid 1000 + root's mem fd", "root process",
		       proc_readable(t->p.root_proc, "maps") ? "refused" : "yes",
		       proc_readable(t->p.root_proc, "syscall") ? "refused" : "yes",
		       strerror(-si_module_query_proof(fd, t->p.root_proc, 0, -1, &q)), how,
		       err ? strerror(-err) : (q.valid & STACKINFO_VALID_SP) ? "VMAs+SP" : "VMAs");
		err = si_module_query_proof(fd, t->p.root_proc, 0, proof, &q);
		CHECK(!err && (q.valid & STACKINFO_VALID_MAIN_VMA), "a passed mem fd: %s",
		      strerror(-err));
		CHECK(!(q.valid & STACKINFO_VALID_SP), "a passed mem fd gives the SP");
		batch_cell(fd, "uid 1000 + root's mem fd", "root process", t->p.root_proc, T_PROC,
			   proof, "passed mem fd", 0);
		CHECK(proc_readable(t->p.root_proc, "syscall") == -EACCES,
		      "the kernel should refuse uid 1000 root's syscall");
		CHECK(proc_readable(t->p.root_proc, "maps") == -EACCES,
		      "the kernel should refuse uid 1000 root's maps");
		/* and it names that process only */
		CHECK_EQ(si_module_query_proof(fd, 1, 0, proof, &q), -EACCES);
		fflush(stdout);
		_exit(t_result());
	}
	if (sock) {
		close(sv[1]);
		CHECK(!send_fd(sv[0], mem), "send_fd");
		close(sv[0]);
	}
	close(mem);
	CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "the fd passed to uid 1000");
}

/*
 * uid 1000: a proof of one process does not open another, and a proof
 * opened before its process exec'd a setuid program names an mm that
 * process no longer has.
 */
static void stale_and_foreign_proofs(void *arg)
{
	const struct targets *t = arg;
	struct stackinfo_query q, q2;
	struct t_execer ex;
	int fd, mem, auxv, err;
	pid_t execer;

	t_become_user(USER_UID);
	fd = open_stackinfo(t);
	mem = proc_open(t->p.user_proc, "mem");
	CHECK(mem >= 0, "mem of a same-uid process: %s", strerror(-mem));
	CHECK(!si_module_query_proof(fd, t->p.user_proc, 0, mem, &q), "with its own proof");
	/* another process's proof adds nothing to what the kernel grants */
	err = si_module_query_proof(fd, t->p.user_proc2, 0, mem, &q);
	CHECK(err == si_module_query_proof(fd, t->p.user_proc2, 0, -1, &q2) &&
	      (err || q.valid == q2.valid), "a foreign proof: %s, plainly %s", strerror(-err),
	      strerror(-si_module_query_proof(fd, t->p.user_proc2, 0, -1, &q2)));
	close(mem);
	/* the kernel's check of root's process, then a proof of it: refused */
	mem = proc_open(1, "mem");
	CHECK(mem == -EACCES, "uid 1000 opens init's mem: %s", strerror(-mem));
	CHECK_EQ(si_module_query_proof(fd, 1, 0, -1, &q), -EACCES);

	CHECK(!t_execer_spawn(&ex, SUID_SLEEPER), "fork");
	execer = ex.pid;
	mem = proc_open(execer, "mem");
	auxv = proc_open(execer, "auxv");
	CHECK(mem >= 0 && auxv >= 0, "proofs of the process before its exec");
	CHECK(!si_module_query_proof(fd, execer, 0, mem, &q), "proof before the exec");
	CHECK(!t_execer_go(&ex), "%s never exec'd", SUID_SLEEPER);
	usleep(100000);
	err = si_module_query_proof(fd, execer, 0, mem, &q);
	CHECK_EQ(err, -EACCES);
	CHECK_EQ(si_module_query_proof(fd, execer, 0, auxv, &q), -EACCES);
	printf("cell: %-28s %-22s maps %-8s | mem proof opened before the exec %s\n",
	       "uid 1000", "after a setuid exec",
	       proc_readable(execer, "maps") ? "refused" : "yes", strerror(-err));
	CHECK(proc_readable(execer, "maps") == -EACCES, "the kernel refuses it too");
	close(mem);
	close(auxv);
	kill(execer, SIGKILL);
	waitpid(execer, NULL, 0);
	close(fd);
}

/* ---- hidepid, pid namespaces, the batch ioctl ---- */

/*
 * A hidden process and a free pid: the same answer, single and batch, and
 * the batch's count set to the entries written (none), not left as given.
 */
static void hidden_like_free(int fd, pid_t hidden, pid_t free_pid, int want)
{
	struct stackinfo_threads a1, a2;
	struct stackinfo_query q1, q2, arr[4];
	int e1, e2;

	e1 = si_module_query_proof(fd, hidden, 0, -1, &q1);
	e2 = si_module_query_proof(fd, free_pid, 0, -1, &q2);
	CHECK(e1 == want && e2 == -ESRCH, "hidden %d, free %d, want %d", e1, e2, want);
	e1 = t_threads_call(fd, hidden, &a1, arr, 4);
	e2 = t_threads_call(fd, free_pid, &a2, arr, 4);
	CHECK(e1 == want && e2 == -ESRCH, "batch: hidden %d, free %d", e1, e2);
	CHECK(a1.count == 0 && a2.count == 0, "batch counts %u %u", a1.count, a2.count);
}

/* What a /proc mount's hidepid shows uid 1000, and what the module says. */
static void hidepid_user(void *arg)
{
	const struct targets *t = arg;
	struct stackinfo_query q;
	char path[64];
	struct stat st;
	int fd, err, visible;

	t_become_user(USER_UID);
	fd = open_stackinfo(t);
	snprintf(path, sizeof(path), "%s/%d", t->proc_dir, (int)t->p.root_proc);
	visible = !stat(path, &st);
	CHECK(visible == !t->hide, "%s: visible %d under %s", path, visible, t->caller);
	hidden_like_free(fd, t->p.root_proc, t->p.free_pid, t->hide ? -ESRCH : -EACCES);
	hidden_like_free(fd, 1, t->p.free_pid, t->hide ? -ESRCH : -EACCES);
	/* itself, and a same-uid process that /proc shows it: plainly */
	CHECK(!si_module_query_proof(fd, 0, 0, -1, &q), "itself");
	snprintf(path, sizeof(path), "%s/%d", t->proc_dir, (int)t->p.user_proc);
	CHECK(!stat(path, &st), "%s should be visible under %s", path, t->caller);
	err = si_module_query_proof(fd, t->p.user_proc, 0, -1, &q);
	CHECK(!err && (q.valid & STACKINFO_VALID_MAIN_VMA), "same uid, plainly: %s",
	      strerror(-err));
	printf("cell: %-28s %-22s hidden: %s, free pid: %s, same uid: %s\n", t->caller,
	       "root process", strerror(-si_module_query_proof(fd, t->p.root_proc, 0, -1, &q)),
	       strerror(-si_module_query_proof(fd, t->p.free_pid, 0, -1, &q)), strerror(-err));
	close(fd);
}

static void hidepid(struct targets *t)
{
	static const struct {
		const char *opt, *caller;
		int hide;
	} mounts[] = {
		{ "hidepid=invisible", "uid 1000, hidepid=invisible", 1 },
		{ "hidepid=noaccess", "uid 1000, hidepid=noaccess", 0 },
		{ "hidepid=ptraceable", "uid 1000, hidepid=ptraceable", 1 },
	};
	const char *dir = "/tmp/access-proc";
	unsigned int i;

	mkdir(dir, 0755);
	for (i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		if (mount("proc", dir, "proc", 0, mounts[i].opt)) {
			CHECK(0, "mount proc -o %s: %s", mounts[i].opt, strerror(errno));
			continue;
		}
		t->proc_dir = dir;
		t->hide = mounts[i].hide;
		t->caller = mounts[i].caller;
		t_in_child_arg(mounts[i].caller, hidepid_user, t);
		umount(dir);
	}
	t->proc_dir = NULL;
	t->hide = 0;
	rmdir(dir);
}

/*
 * The /proc mount the fd came from decides the pid namespace: a process in
 * a new pid namespace with its own /proc mount is tid 1 there and sees
 * nothing outside; through an fd of the outer /proc it has its outer
 * number.
 */
struct in_ns {
	const struct targets *t;
	int outer;	/* stackinfo on the outer /proc */
};

static void inside_pid_namespace(void *arg)
{
	const struct in_ns *ns = arg;
	struct stackinfo_query q;
	int fd = si_open();

	CHECK(!si_module_query(fd, 0, 0, &q) && q.out_tid == 1 && q.tgid == 1, "itself: 1");
	CHECK(!si_module_query(fd, 1, 0, &q) && q.out_tid == 1, "tid 1");
	CHECK_EQ(si_module_query(fd, ns->t->p.root_proc, 0, &q), -ESRCH);
	CHECK_EQ(si_module_query(fd, 2, 0, &q), -ESRCH);
	/* through the outer mount: its outer number */
	CHECK(!si_module_query(ns->outer, 0, 0, &q) && q.out_tid != 1, "outer number %u",
	      q.out_tid);
}

static void pid_namespace(void *arg)
{
	struct in_ns ns = { .t = arg };
	struct stackinfo_query q;
	int outer_dir, proof;
	pid_t child;
	char name[32];

	ns.outer = si_open();
	outer_dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(ns.outer >= 0 && outer_dir >= 0, "open the outer /proc");
	child = t_in_new_pidns(inside_pid_namespace, &ns);
	if (child < 0)
		return;
	/* from outside, another process: a proof from the outer /proc */
	snprintf(name, sizeof(name), "%d/mem", (int)child);
	proof = openat(outer_dir, name, O_RDONLY | O_CLOEXEC);
	CHECK(proof >= 0, "%s: %s", name, strerror(errno));
	CHECK(!si_module_query_proof(ns.outer, child, 0, proof, &q) && q.out_tid == (uint32_t)child,
	      "the child from outside: tid %u", q.out_tid);
	/* root, plainly: what the outer /proc's maps and syscall give it */
	CHECK(!si_module_query_proof(ns.outer, child, 0, -1, &q) &&
	      !!(q.valid & STACKINFO_VALID_SP) == !proc_readable(child, "syscall"),
	      "the child from outside, plainly: valid %llx", (unsigned long long)q.valid);
	close(proof);
	t_reap(child);
	close(ns.outer);
	close(outer_dir);
}

/* A setuid-root copy of thread-sleeper, for the exec case. */
static int make_suid_sleeper(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cp /usr/bin/thread-sleeper %s && chmod 4755 %s",
		 SUID_SLEEPER, SUID_SLEEPER);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct targets t = { 0 };
	int yama3 = argc > 1 && !strcmp(argv[1], "--yama3");

	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_targets_spawn(&t.p, USER_UID);

	if (yama3) {
		/* the last test of a guest: 3 cannot be undone */
		if (t_under_yama3(run_matrix, &t) < 0)
			return T_SKIP;
	} else {
		t_each_yama_scope(run_matrix, &t);
	}
	if (!yama3) {
		CHECK(!make_suid_sleeper(), "setuid copy of thread-sleeper");
		passed_proof(&t);
		t_in_child_arg("stale and foreign proofs", stale_and_foreign_proofs, &t);
		hidepid(&t);
		t_in_child_arg("another pid namespace", pid_namespace, &t);
		unlink(SUID_SLEEPER);
	}

	t_targets_reap(&t.p);
	return t_result();
}
