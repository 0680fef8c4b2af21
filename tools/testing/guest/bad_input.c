// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every malformed ioctl gets its errno and changes nothing: short and
 * oversized structs, a non-zero tail, reserved bits, unknown flags, bad
 * pointers, tids that do not exist or name a kernel thread, unknown
 * commands, and operations /proc/stackinfo does not have. The module still
 * answers correctly afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"

static int fd;
static long page;

/* The ioctl on @arg must fail with @want and leave @len bytes unchanged. */
static void expect(const char *what, unsigned long cmd, void *arg, size_t len,
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

static void fill(struct stackinfo_query *q, uint64_t size)
{
	memset(q, 0, sizeof(*q));
	q->size = size;
}

int main(void)
{
	struct stackinfo_query q;
	unsigned char *big, *two;
	long pid_max = 4194304;
	FILE *f;
	int err;

	page = sysconf(_SC_PAGESIZE);
	fd = si_open();
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", STACKINFO_PROC_PATH, strerror(-fd));
		return 1;
	}

	/* sizes */
	fill(&q, 0);
	expect("size 0", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	fill(&q, 8);
	expect("size 8", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	fill(&q, STACKINFO_QUERY_SIZE_VER0 - 8);
	expect("size VER0-8", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	fill(&q, STACKINFO_QUERY_SIZE_VER0 - 1);
	expect("size VER0-1", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);

	big = calloc(1, 2 * page);
	memcpy(big, &(uint64_t){ page + 1 }, 8);
	expect("size PAGE_SIZE+1", STACKINFO_IOC_QUERY, big, 2 * page, E2BIG);
	memcpy(big, &(uint64_t){ UINT64_MAX }, 8);
	expect("size ~0", STACKINFO_IOC_QUERY, big, 2 * page, E2BIG);

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
	expect("non-zero tail", STACKINFO_IOC_QUERY, big, 2 * page, E2BIG);

	/* in fields */
	fill(&q, sizeof(q));
	q.reserved = 1;
	expect("reserved", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	fill(&q, sizeof(q));
	q.query_flags = 1ULL << 1;
	expect("flag bit 1", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	fill(&q, sizeof(q));
	q.query_flags = 1ULL << 63;
	expect("flag bit 63", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	fill(&q, sizeof(q));
	q.query_flags = ~0ULL;
	expect("all flags", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);

	/* tids */
	f = fopen("/proc/sys/kernel/pid_max", "re");
	if (f) {
		if (fscanf(f, "%ld", &pid_max) != 1)
			pid_max = 4194304;
		fclose(f);
	}
	fill(&q, sizeof(q));
	q.tid = (uint32_t)pid_max - 1;	/* not in use in a fresh guest */
	expect("tid pid_max-1", STACKINFO_IOC_QUERY, &q, sizeof(q), ESRCH);
	fill(&q, sizeof(q));
	q.tid = 0x7fffffff;
	expect("tid INT_MAX", STACKINFO_IOC_QUERY, &q, sizeof(q), ESRCH);
	fill(&q, sizeof(q));
	q.tid = UINT32_MAX;
	expect("tid -1", STACKINFO_IOC_QUERY, &q, sizeof(q), ESRCH);
	fill(&q, sizeof(q));
	q.tid = 2;	/* kthreadd: its maps opens for anyone, and is empty */
	expect("kernel thread", STACKINFO_IOC_QUERY, &q, sizeof(q), ENOENT);

	/* proof fds */
	fill(&q, sizeof(q));
	q.query_flags = STACKINFO_QUERY_PROOF_FD;
	q.proof_fd = -1;
	expect("proof fd -1", STACKINFO_IOC_QUERY, &q, sizeof(q), EBADF);
	q.proof_fd = 1000;
	expect("proof fd not open", STACKINFO_IOC_QUERY, &q, sizeof(q), EBADF);
	q.proof_fd = fd;
	expect("proof fd not a proof", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	fill(&q, STACKINFO_QUERY_SIZE_VER0);
	q.query_flags = STACKINFO_QUERY_PROOF_FD;
	expect("proof flag in a VER0 struct", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);
	fill(&q, sizeof(q));
	q.reserved1 = 1;
	expect("reserved1", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);

	/* pointers */
	expect("NULL", STACKINFO_IOC_QUERY, NULL, 0, EFAULT);
	expect("pointer 1", STACKINFO_IOC_QUERY, (void *)1, 0, EFAULT);
	expect("kernel pointer", STACKINFO_IOC_QUERY,
	       (void *)0xffff888000000000UL, 0, EFAULT);
	two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(two != MAP_FAILED, "mmap");
	munmap(two + page, page);
	/* size readable, the rest of the struct runs into an unmapped page */
	memset(two + page - 16, 0, 16);
	memcpy(two + page - 16, &(uint64_t){ sizeof(q) }, 8);
	expect("struct across unmapped page", STACKINFO_IOC_QUERY,
	       two + page - 16, 16, EFAULT);
	/* a valid request in read-only memory: the answer cannot be written */
	memset(two, 0, page);
	memcpy(two, &(uint64_t){ sizeof(q) }, 8);
	mprotect(two, page, PROT_READ);
	expect("read-only struct", STACKINFO_IOC_QUERY, two, sizeof(q), EFAULT);
	munmap(two, page);
	expect("unmapped struct", STACKINFO_IOC_QUERY, two, 0, EFAULT);

	/* commands */
	fill(&q, sizeof(q));
	expect("unknown nr", _IOWR(STACKINFO_IOC_MAGIC, 0x7f, struct stackinfo_query),
	       &q, sizeof(q), ENOTTY);
	/*
	 * the size bits are the caller's header's: a command built with any
	 * size reaches the handler, which reads the struct's own size (an
	 * older binary's VER0 command, a newer one's larger struct)
	 */
	{
		static const unsigned long cmds[] = {
			_IOWR(STACKINFO_IOC_MAGIC, 0x01, char[STACKINFO_QUERY_SIZE_VER0]),
			_IOWR(STACKINFO_IOC_MAGIC, 0x01, char[STACKINFO_QUERY_SIZE_VER1 + 64]),
			_IOWR(STACKINFO_IOC_MAGIC, 0x01, uint64_t),
		};
		unsigned int i;

		for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			fill(&q, sizeof(q));
			err = ioctl(fd, cmds[i], &q) ? -errno : 0;
			CHECK(!err && q.out_tid == (uint32_t)t_gettid(),
			      "command %#lx: %s", cmds[i], strerror(-err));
		}
	}
	expect("_IOR", _IOR(STACKINFO_IOC_MAGIC, 0x01, struct stackinfo_query), &q,
	       sizeof(q), ENOTTY);
	expect("other magic", _IOWR('f', 0x01, struct stackinfo_query), &q,
	       sizeof(q), ENOTTY);

	/* what the file does not do */
	errno = 0;
	CHECK(write(fd, "x", 1) == -1 && errno == EBADF, "write on O_RDONLY: %s",
	      strerror(errno));
	{
		int rw = open(STACKINFO_PROC_PATH, O_RDWR | O_CLOEXEC);

		/* root may open the 0444 file for writing; the write still fails */
		if (rw >= 0) {
			errno = 0;
			CHECK(write(rw, "x", 1) == -1 && errno == EIO, "write: %s",
			      strerror(errno));
			close(rw);
		}
	}
	errno = 0;
	CHECK(mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == EIO, "mmap: %s", strerror(errno));
	{
		char buf[4096];
		ssize_t n;

		CHECK(lseek(fd, 1 << 20, SEEK_SET) == -1 || read(fd, buf, sizeof(buf)) == 0,
		      "seek past the end, then read: data");
		CHECK(lseek(fd, 0, SEEK_SET) == 0, "seek to 0: %s", strerror(errno));
		n = read(fd, buf, sizeof(buf) - 1);
		CHECK(n > 0, "read after seek: %s", strerror(errno));
		if (n > 0) {
			buf[n] = '\0';
			CHECK(!si_text_parse(buf, &q), "text after seek does not parse");
		}
	}

	/* still answers, and correctly */
	err = si_module_query(fd, 0, 0, &q);
	CHECK(!err, "valid query after all that: %s", strerror(-err));
	CHECK_EQ(q.out_tid, t_gettid());
	CHECK(q.valid & STACKINFO_VALID_SP_VMA, "no SP VMA");
	CHECK(q.sp >= q.sp_vma_start && q.sp < q.sp_vma_end, "sp outside its VMA");

	free(big);
	close(fd);
	return t_result();
}
