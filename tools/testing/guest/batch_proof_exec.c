// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A proof fd grants no more than its opener was checked for. A vfork
 * child runs on its parent's mm, so its opens of the parent's
 * /proc/<pid>/mem and auxv pass mm_access() without the ptrace check (the
 * opener shares the mm). After the child's exec the fds are still open
 * and their holder shares nothing; under Yama's ptrace_scope 1 the kernel
 * refuses it every thread's /proc/<tid>/syscall of the parent (a child is
 * no ancestor) and opens it their maps (the same uid). Its queries with
 * either proof, single and batch, must give each of the parent's threads
 * its VMAs and no SP, as the kernel answers it, and the same as without a
 * proof.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define USER_UID 1000
#define WORKERS 2
#define THREADS (WORKERS + 1)
/* where the vfork child puts its fds for the program it execs */
#define MEM_FD 100
#define AUXV_FD 101

/* what comes with the SP: never without it */
#define WITH_SP	(STACKINFO_VALID_SP_VMA | STACKINFO_VALID_SP_PREV | \
		 STACKINFO_VALID_SP_GUARD | STACKINFO_VALID_ALTSTACK | \
		 STACKINFO_VALID_STACK_KIND)

/* One answer about thread @tid against the kernel's syscall to this caller. */
static void against_kernel(const char *how, const struct stackinfo_query *q, pid_t tid,
			   int sys)
{
	int sp = !!(q->valid & STACKINFO_VALID_SP);

	printf("cell: %-26s tid %-6d syscall %-8s | %s\n", how, (int)tid,
	       sys ? "refused" : "yes", sp ? "VMAs+SP" : "VMAs");
	CHECK(sp == !sys, "%s: tid %d: SP %s, the kernel %s this caller /proc/%d/syscall",
	      how, (int)tid, sp ? "given" : "withheld", sys ? "refuses" : "gives", (int)tid);
	CHECK(sp || !(q->valid & WITH_SP), "%s: tid %d: valid %#llx without the SP", how,
	      (int)tid, (unsigned long long)q->valid);
	CHECK(q->valid & STACKINFO_VALID_MAIN_VMA, "%s: tid %d: no VMAs", how, (int)tid);
}

/* The exec'd vfork child: what its proofs of @p grant it. */
static int holder(pid_t p)
{
	static const struct {
		int fd;
		const char *how;
	} proofs[] = {
		{ -1, "no proof" },
		{ MEM_FD, "vfork child's mem fd" },
		{ AUXV_FD, "vfork child's auxv fd" },
	};
	struct stackinfo_query q, arr[THREADS + 4];
	pid_t tids[THREADS];
	int sys[THREADS], refused = 1, fd, n, i, k, err;
	char how[64];
	uint32_t count;

	fd = si_open();
	if (fd < 0)
		return 1;
	n = t_task_tids(p, tids, THREADS);
	CHECK(n == THREADS, "the parent has %d threads, not %d", n, THREADS);
	if (n != THREADS)
		return t_result();
	for (i = 0; i < THREADS; i++) {
		sys[i] = proc_readable(tids[i], "syscall");
		refused &= !!sys[i];
		CHECK(!proc_readable(tids[i], "maps"), "maps of %d refused", tids[i]);
	}
	CHECK(refused, "the kernel gives the exec'd vfork child its parent's syscall");
	for (k = 0; k < 3; k++) {
		for (i = 0; i < THREADS; i++) {
			snprintf(how, sizeof(how), "%s, single", proofs[k].how);
			err = si_module_query_proof(fd, tids[i], 0, proofs[k].fd, &q);
			CHECK(!err, "%s: tid %d: %s", how, tids[i], strerror(-err));
			if (!err)
				against_kernel(how, &q, tids[i], sys[i]);
		}
		snprintf(how, sizeof(how), "%s, batch", proofs[k].how);
		err = t_threads_proof(fd, p, proofs[k].fd, arr, THREADS + 4, &count);
		CHECK(!err, "%s: %s", how, strerror(-err));
		CHECK(err || count == THREADS, "%s: %u entries, %d threads", how, count, THREADS);
		for (i = 0; !err && i < (int)count && i < THREADS + 4; i++) {
			int j;

			for (j = 0; j < THREADS && (uint32_t)tids[j] != arr[i].out_tid; j++)
				;
			CHECK(j < THREADS, "%s: entry %d: tid %u", how, i, arr[i].out_tid);
			if (j < THREADS)
				against_kernel(how, &arr[i], tids[j], sys[j]);
		}
	}
	close(fd);
	return t_result();
}

/* P: threads, then a vfork child that opens P's mem and auxv and execs. */
static void parent(void)
{
	char pid_arg[16], mem[32], auxv[32];
	pthread_t th;
	int i, status;
	pid_t p = getpid(), v;

	t_become_user(USER_UID);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (i = 0; i < WORKERS; i++)
		if (pthread_create(&th, NULL, t_pause_forever, NULL))
			_exit(1);
	for (i = 0; i < 5000 && t_task_tids(p, NULL, 0) != THREADS; i++)
		usleep(1000);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)p);
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)p);
	snprintf(auxv, sizeof(auxv), "/proc/%d/auxv", (int)p);
	fflush(NULL);
	v = vfork();
	if (v == 0) {
		/* on P's mm: mm_access() asks no ptrace question */
		int m = open(mem, O_RDONLY), x = open(auxv, O_RDONLY);

		if (m < 0 || x < 0 || dup2(m, MEM_FD) != MEM_FD || dup2(x, AUXV_FD) != AUXV_FD)
			_exit(126);
		execl("/proc/self/exe", "batch_proof_exec", "--holder", pid_arg, (char *)NULL);
		_exit(127);
	}
	if (v < 0 || waitpid(v, &status, 0) != v || !WIFEXITED(status))
		_exit(1);
	if (WEXITSTATUS(status) == 126)
		fprintf(stderr, "the vfork child could not open its parent's mem and auxv\n");
	_exit(WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
	int scope, status;
	pid_t p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--holder"))
		return holder((pid_t)atoi(argv[2]));
	if (getuid() != 0) {
		fprintf(stderr, "needs root\n");
		return T_SKIP;
	}
	scope = t_yama_scope();
	if (scope < 0) {
		printf("SKIP: no Yama: the kernel gives a child its parent's syscall\n");
		return T_SKIP;
	}
	CHECK(!t_set_yama_scope(1), "ptrace_scope 1: %s", strerror(errno));
	fflush(NULL);
	p = fork();
	if (p == 0)
		parent();
	CHECK(p > 0 && waitpid(p, &status, 0) == p && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "the exec'd vfork child's queries");
	CHECK(!t_set_yama_scope(scope), "restore ptrace_scope %d", scope);
	return t_result();
}
