// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ABI from a 32-bit process (built -m32 -static: the guest has no
 * 32-bit libc), through the module's compat_ioctl: the structs have one
 * layout for both (the sizes and offsets are asserted at build time), the
 * answers for the caller and another thread equal /proc/self/maps and the
 * thread's own stack address, the batch lists both threads, and bad input
 * gets its errno. Run by compat_abi.sh, which skips where the kernel runs
 * no 32-bit programs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/stackinfo.h>

_Static_assert(sizeof(void *) == 4, "built -m32");
_Static_assert(sizeof(struct stackinfo_query) % 8 == 0 &&
		       sizeof(struct stackinfo_query) >= STACKINFO_QUERY_SIZE_VER1,
	       "the query's size as on 64-bit");
_Static_assert(offsetof(struct stackinfo_query, sp) == 88, "sp where 64-bit has it");
_Static_assert(offsetof(struct stackinfo_query, proof_fd) == 168, "VER1 at 168");
_Static_assert(offsetof(struct stackinfo_threads, entries) == 24, "entries at 24");
_Static_assert(sizeof(struct stackinfo_threads) == STACKINFO_THREADS_SIZE_VER1,
	       "the batch's size as on 64-bit");

static int failures;

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			failures++;                                         \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, \
				#cond);                                     \
			fprintf(stderr, __VA_ARGS__);                       \
			fputc('\n', stderr);                                \
		}                                                           \
	} while (0)

/* The /proc/self/maps line holding @addr: 0, or -1 if none. */
static int maps_line(uint64_t addr, uint64_t *start, uint64_t *end, char *name,
		     size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		int off = 0;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s%n", &s, &e, &off) < 2)
			continue;
		if (addr < s || addr >= e)
			continue;
		*start = s;
		*end = e;
		snprintf(name, len, "%s", line + off + strspn(line + off, " "));
		name[strcspn(name, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

static int query(int fd, pid_t tid, struct stackinfo_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->tid = tid;
	return ioctl(fd, STACKINFO_IOC_QUERY, q) ? -errno : 0;
}

/* @q's SP VMA is the mapping holding @addr, and its SP lies in it */
static void check_sp_vma(const char *who, const struct stackinfo_query *q,
			 uint64_t addr)
{
	uint64_t start = 0, end = 0;
	char name[256];

	CHECK(!maps_line(addr, &start, &end, name, sizeof(name)), "%s: maps", who);
	CHECK((q->valid & STACKINFO_VALID_SP_VMA) && q->sp_vma_start == start &&
		      q->sp_vma_end == end,
	      "%s: SP VMA %llx-%llx, maps %llx-%llx", who,
	      (unsigned long long)q->sp_vma_start, (unsigned long long)q->sp_vma_end,
	      (unsigned long long)start, (unsigned long long)end);
	CHECK((q->valid & STACKINFO_VALID_SP) && q->sp >= start && q->sp < end,
	      "%s: SP %llx", who, (unsigned long long)q->sp);
}

static volatile uintptr_t peer_local;
static volatile pid_t peer_tid;
static int peer_pipe[2];

static void *peer(void *arg)
{
	char c = 0;

	(void)arg;
	peer_local = (uintptr_t)&c;
	peer_tid = syscall(SYS_gettid);
	if (read(peer_pipe[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

int main(void)
{
	struct stackinfo_query q, arr[4];
	struct stackinfo_threads a;
	uint64_t start = 0, end = 0;
	char name[256], stat[64];
	pthread_t th;
	int fd, local;
	uint32_t i;

	fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("no %s: %s\n", STACKINFO_PROC_PATH, strerror(errno));
		return 1;
	}
	/* the caller: its main stack is [stack], its SP on it */
	CHECK(!query(fd, 0, &q), "self: %s", strerror(errno));
	CHECK(!maps_line((uintptr_t)&local, &start, &end, name, sizeof(name)) &&
		      !strcmp(name, "[stack]"),
	      "the main thread's stack is [stack]: %s", name);
	CHECK(q.main_vma_start == start && q.main_vma_end == end,
	      "main VMA %llx-%llx, maps %llx-%llx", (unsigned long long)q.main_vma_start,
	      (unsigned long long)q.main_vma_end, (unsigned long long)start,
	      (unsigned long long)end);
	check_sp_vma("self", &q, (uintptr_t)&local);
	CHECK(q.out_tid == (uint32_t)getpid() &&
		      (q.thread_flags & STACKINFO_THREAD_SELF) &&
		      (q.thread_flags & STACKINFO_THREAD_MAIN),
	      "self: tid %u flags %#x", q.out_tid, q.thread_flags);

	/* another thread, asleep in read() */
	CHECK(!pipe(peer_pipe), "pipe");
	CHECK(!pthread_create(&th, NULL, peer, NULL), "thread");
	while (!peer_tid)
		usleep(1000);
	for (i = 0; i < 5000; i++) {	/* until it sleeps */
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)peer_tid);
		f = fopen(path, "re");
		if (f && fgets(stat, sizeof(stat), f) && strstr(stat, ") S ")) {
			fclose(f);
			break;
		}
		if (f)
			fclose(f);
		usleep(1000);
	}
	CHECK(!query(fd, peer_tid, &q), "peer: %s", strerror(errno));
	check_sp_vma("peer", &q, peer_local);
	CHECK(q.out_tid == (uint32_t)peer_tid && !(q.thread_flags & STACKINFO_THREAD_MAIN),
	      "peer: tid %u flags %#x", q.out_tid, q.thread_flags);

	/* the batch: a user pointer of 32 bits in a __u64 */
	memset(&a, 0, sizeof(a));
	memset(arr, 0xa5, sizeof(arr));
	a.size = sizeof(a);
	a.count = 4;
	a.entries = (uintptr_t)arr;
	a.entry_size = sizeof(arr[0]);
	CHECK(!ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a), "batch: %s", strerror(errno));
	CHECK(a.count == 2, "batch: %u entries", a.count);
	for (i = 0; i < a.count && i < 4; i++)
		CHECK(arr[i].tgid == (uint32_t)getpid() &&
			      (arr[i].out_tid == (uint32_t)getpid() ||
			       arr[i].out_tid == (uint32_t)peer_tid),
		      "batch entry %u: tid %u tgid %u", i, arr[i].out_tid, arr[i].tgid);
	CHECK(arr[2].size == 0xa5a5a5a5a5a5a5a5ULL, "batch: written past its count");

	/* bad input */
	memset(&q, 0, sizeof(q));
	q.size = 8;
	CHECK(ioctl(fd, STACKINFO_IOC_QUERY, &q) == -1 && errno == EINVAL,
	      "size 8: %s", strerror(errno));
	q.size = sizeof(q);
	q.query_flags = 1ULL << 40;
	CHECK(ioctl(fd, STACKINFO_IOC_QUERY, &q) == -1 && errno == EINVAL,
	      "unknown flag: %s", strerror(errno));
	CHECK(ioctl(fd, STACKINFO_IOC_QUERY, (void *)16) == -1 && errno == EFAULT,
	      "a bad pointer: %s", strerror(errno));
	a.entries = 16;
	a.count = 4;
	CHECK(ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a) == -1 && errno == EFAULT,
	      "a bad entries pointer: %s", strerror(errno));
	CHECK(ioctl(fd, _IO(STACKINFO_IOC_MAGIC, 0x7f), 0) == -1 && errno == ENOTTY,
	      "another command: %s", strerror(errno));

	close(peer_pipe[1]);
	pthread_join(th, NULL);
	close(fd);
	printf("compat_abi: %d failures\n", failures);
	return failures ? 1 : 0;
}
