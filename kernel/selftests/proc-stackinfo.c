// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/stackinfo and /proc/<pid>/task/<tid>/stackinfo
 * (CONFIG_PROC_STACKINFO): a thread's stack bounds as "key value" lines in a
 * fixed order, and STACKINFO_IOC_QUERY / STACKINFO_IOC_QUERY_THREADS on the
 * open file (include/uapi/linux/stackinfo.h).
 *
 * Checks the text of /proc/self and /proc/thread-self, its keys and their
 * order, start_stack and main_vma against /proc/self/maps, the ioctl for
 * tid 0 against the text, another thread's task file, and the errors:
 * ESRCH for a tid of another process, EINVAL for STACKINFO_QUERY_PROOF_FD,
 * ENOTTY for another command, EFAULT for a bad pointer. Every test skips
 * where the kernel has no such file.
 *
 * Built in tools/testing/selftests/proc/ with the installed uapi headers
 * (CFLAGS += $(KHDR_INCLUDES), i.e. -isystem ../../../../usr/include).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/stackinfo.h>

#include "../kselftest_harness.h"

#define NKEYS 14

static const char *const keys[NKEYS] = {
	"tid", "tgid", "main", "map_count", "start_stack", "main_vma",
	"main_prev_end", "sp", "sp_vma", "sp_prev_end", "sp_guard",
	"rlim_stack_cur", "rlim_stack_max", "guard_gap",
};

enum { K_TID, K_TGID, K_MAIN, K_MAP_COUNT, K_START_STACK, K_MAIN_VMA, K_MAIN_PREV_END, K_SP };

/* The text split into its lines' values, checked for the keys in order. */
struct text {
	char buf[4096];
	const char *val[NKEYS];
};

static pid_t sys_gettid(void)
{
	return syscall(SYS_gettid);
}

/* Read @fd from offset 0 and split it: 0, or -1 (and why in @why). */
static int text_read(int fd, struct text *t, const char **why)
{
	ssize_t n = pread(fd, t->buf, sizeof(t->buf) - 1, 0);
	char *p = t->buf;
	int k;

	*why = "read failed";
	if (n <= 0)
		return -1;
	t->buf[n] = '\0';
	for (k = 0; k < NKEYS; k++) {
		size_t len = strlen(keys[k]);
		char *nl = strchr(p, '\n');

		*why = keys[k];
		if (!nl || strncmp(p, keys[k], len) || p[len] != ' ')
			return -1;
		*nl = '\0';
		t->val[k] = p + len + 1;
		p = nl + 1;
	}
	*why = "text after the last key";
	return *p ? -1 : 0;
}

static unsigned long long num(const struct text *t, int k, int base)
{
	return strtoull(t->val[k], NULL, base);
}

/* "start-end perms": 0, or -1 where the value is "-" or malformed. */
static int range(const struct text *t, int k, unsigned long long *start,
		 unsigned long long *end, char perms[5])
{
	return sscanf(t->val[k], "%llx-%llx %4s", start, end, perms) == 3 ? 0 : -1;
}

static int query(int fd, __u32 tid, __u64 flags, struct stackinfo_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = flags;
	q->tid = tid;
	return ioctl(fd, STACKINFO_IOC_QUERY, q);
}

FIXTURE(stackinfo) {
	int fd;		/* /proc/self/stackinfo */
};

FIXTURE_SETUP(stackinfo)
{
	self->fd = open("/proc/self/stackinfo", O_RDONLY | O_CLOEXEC);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, "no /proc/self/stackinfo: CONFIG_PROC_STACKINFO is not set");
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(stackinfo)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Every key, in order, about this process's main thread (us). */
TEST_F(stackinfo, self_text)
{
	struct text t;
	const char *why;

	ASSERT_EQ(0, text_read(self->fd, &t, &why)) TH_LOG("bad text at %s", why);
	EXPECT_EQ(getpid(), (pid_t)num(&t, K_TID, 10));
	EXPECT_EQ(getpid(), (pid_t)num(&t, K_TGID, 10));
	EXPECT_STREQ("1", t.val[K_MAIN]);
	EXPECT_LT(0ULL, num(&t, K_MAP_COUNT, 10));
	/* we read it ourselves: the SP lines have values */
	EXPECT_STRNE("-", t.val[K_SP]);
}

/* /proc/thread-self/stackinfo is about the reading thread. */
TEST_F(stackinfo, thread_self_text)
{
	struct text t;
	const char *why;
	int fd = open("/proc/thread-self/stackinfo", O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, text_read(fd, &t, &why)) TH_LOG("bad text at %s", why);
	EXPECT_EQ(sys_gettid(), (pid_t)num(&t, K_TID, 10));
	EXPECT_EQ(getpid(), (pid_t)num(&t, K_TGID, 10));
	close(fd);
}

/* start_stack lies in main_vma, which is the [stack] line of maps. */
TEST_F(stackinfo, start_stack_in_maps)
{
	unsigned long long ss, start, end, ms, me, prev_end = 0, pe;
	char perms[5], mperms[5], line[512];
	int found = 0;
	const char *why;
	struct text t;
	FILE *maps;

	ASSERT_EQ(0, text_read(self->fd, &t, &why)) TH_LOG("bad text at %s", why);
	ss = num(&t, K_START_STACK, 16);
	ASSERT_EQ(0, range(&t, K_MAIN_VMA, &start, &end, perms));
	EXPECT_LE(start, ss);
	EXPECT_LT(ss, end);
	pe = num(&t, K_MAIN_PREV_END, 16);

	maps = fopen("/proc/self/maps", "re");
	ASSERT_NE(NULL, maps);
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%llx-%llx %4s", &ms, &me, mperms) != 3)
			continue;
		if (ms <= ss && ss < me) {
			found = 1;
			EXPECT_EQ(start, ms);
			EXPECT_EQ(end, me);
			EXPECT_STREQ(perms, mperms);
			EXPECT_NE(NULL, strstr(line, "[stack]"));
			EXPECT_EQ(prev_end, pe);
			break;
		}
		prev_end = me;
	}
	fclose(maps);
	EXPECT_TRUE(found) TH_LOG("no line of maps holds start_stack %#llx", ss);
}

/* ioctl tid 0: the file's thread, the same answer as the text. */
TEST_F(stackinfo, ioctl_matches_text)
{
	unsigned long long start, end;
	struct stackinfo_query q;
	char perms[5];
	const char *why;
	struct text t;

	ASSERT_EQ(0, text_read(self->fd, &t, &why)) TH_LOG("bad text at %s", why);
	ASSERT_EQ(0, query(self->fd, 0, 0, &q)) TH_LOG("ioctl: %s", strerror(errno));
	EXPECT_EQ(num(&t, K_TID, 10), q.out_tid);
	EXPECT_EQ(num(&t, K_TGID, 10), q.tgid);
	EXPECT_TRUE(q.thread_flags & STACKINFO_THREAD_MAIN);
	EXPECT_EQ(num(&t, K_MAP_COUNT, 10), q.map_count);
	EXPECT_EQ(num(&t, K_START_STACK, 16), q.start_stack);
	ASSERT_EQ(0, range(&t, K_MAIN_VMA, &start, &end, perms));
	EXPECT_EQ(start, q.main_vma_start);
	EXPECT_EQ(end, q.main_vma_end);
	EXPECT_EQ(num(&t, K_MAIN_PREV_END, 16), q.main_prev_end);
	EXPECT_TRUE(q.valid & STACKINFO_VALID_SP_VMA);
	EXPECT_LE(q.sp_vma_start, q.sp);
	EXPECT_LT(q.sp, q.sp_vma_end);

	/* STACKINFO_QUERY_NO_SP: everything but the SP */
	ASSERT_EQ(0, query(self->fd, 0, STACKINFO_QUERY_NO_SP, &q));
	EXPECT_FALSE(q.valid & (STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA));
	EXPECT_TRUE(q.valid & STACKINFO_VALID_MAIN_VMA);
}

struct sleeper {
	int pipe[2];
	pid_t tid;
	void *stack;
	size_t size;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	pthread_attr_t attr;
	char c;

	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &s->stack, &s->size);
	pthread_attr_destroy(&attr);
	__atomic_store_n(&s->tid, sys_gettid(), __ATOMIC_RELEASE);
	while (read(s->pipe[0], &c, 1) > 0)
		;
	return NULL;
}

/* A second thread's task file: about that thread, text and ioctl alike. */
TEST_F(stackinfo, other_thread_task_file)
{
	struct stackinfo_query q, q2;
	struct sleeper s = { 0 };
	unsigned long long sp;
	char path[64];
	const char *why;
	struct text t;
	pthread_t th;
	int fd;

	ASSERT_EQ(0, pipe(s.pipe));
	ASSERT_EQ(0, pthread_create(&th, NULL, sleeper_main, &s));
	while (!__atomic_load_n(&s.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(100000);	/* let it block in read() */

	snprintf(path, sizeof(path), "/proc/self/task/%d/stackinfo", s.tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	ASSERT_EQ(0, text_read(fd, &t, &why)) TH_LOG("bad text at %s", why);
	EXPECT_EQ(s.tid, (pid_t)num(&t, K_TID, 10));
	EXPECT_EQ(getpid(), (pid_t)num(&t, K_TGID, 10));
	EXPECT_STREQ("0", t.val[K_MAIN]);
	sp = num(&t, K_SP, 16);
	EXPECT_LE((uintptr_t)s.stack, sp);
	EXPECT_LT(sp, (uintptr_t)s.stack + s.size);

	ASSERT_EQ(0, query(fd, 0, 0, &q)) TH_LOG("ioctl: %s", strerror(errno));
	EXPECT_EQ(s.tid, (pid_t)q.out_tid);
	EXPECT_FALSE(q.thread_flags & (STACKINFO_THREAD_MAIN | STACKINFO_THREAD_SELF));
	EXPECT_EQ(sp, q.sp);
	/* the same thread by number, on its file and on the process's */
	ASSERT_EQ(0, query(fd, s.tid, 0, &q2));
	EXPECT_EQ(q.sp, q2.sp);
	EXPECT_EQ(q.sp_vma_start, q2.sp_vma_start);
	ASSERT_EQ(0, query(self->fd, s.tid, 0, &q2));
	EXPECT_EQ(s.tid, (pid_t)q2.out_tid);
	EXPECT_EQ(q.sp, q2.sp);
	close(fd);

	close(s.pipe[1]);
	pthread_join(th, NULL);
	close(s.pipe[0]);
}

/* The batch: pid 0 is this process, every thread of it. */
TEST_F(stackinfo, batch_self)
{
	struct stackinfo_query arr[8];
	struct stackinfo_threads a = {
		.size = sizeof(a),
		.count = 8,
		.entries = (uintptr_t)arr,
		.entry_size = sizeof(arr[0]),
	};

	ASSERT_EQ(0, ioctl(self->fd, STACKINFO_IOC_QUERY_THREADS, &a))
		TH_LOG("batch: %s", strerror(errno));
	ASSERT_EQ(1U, a.count);
	EXPECT_EQ(getpid(), (pid_t)arr[0].out_tid);
	EXPECT_EQ(getpid(), (pid_t)arr[0].tgid);
}

/* A tid of another process is no thread of this file's process. */
TEST_F(stackinfo, other_process_esrch)
{
	struct stackinfo_query q, arr[2];
	struct stackinfo_threads a = {
		.size = sizeof(a),
		.count = 2,
		.entries = (uintptr_t)arr,
		.entry_size = sizeof(arr[0]),
	};
	pid_t child = fork();

	ASSERT_LE(0, child);
	if (child == 0) {
		pause();
		_exit(0);
	}
	EXPECT_EQ(-1, query(self->fd, child, 0, &q));
	EXPECT_EQ(ESRCH, errno);
	a.pid = child;
	EXPECT_EQ(-1, ioctl(self->fd, STACKINFO_IOC_QUERY_THREADS, &a));
	EXPECT_EQ(ESRCH, errno);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* The proof fd is the module's: the in-tree file refuses it. */
TEST_F(stackinfo, proof_fd_einval)
{
	struct stackinfo_query q;
	int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, mem);
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = STACKINFO_QUERY_PROOF_FD;
	q.proof_fd = mem;
	EXPECT_EQ(-1, ioctl(self->fd, STACKINFO_IOC_QUERY, &q));
	EXPECT_EQ(EINVAL, errno);
	close(mem);
}

TEST_F(stackinfo, bad_command_enotty)
{
	struct stackinfo_query q;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(STACKINFO_IOC_MAGIC, 0x7f, struct stackinfo_query),
			    &q));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(stackinfo, bad_pointer_efault)
{
	EXPECT_EQ(-1, ioctl(self->fd, STACKINFO_IOC_QUERY, (void *)1));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, STACKINFO_IOC_QUERY, NULL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_HARNESS_MAIN
