// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * /proc/stackinfo read by an io_uring request forced onto an io-wq worker
 * (IOSQE_ASYNC): the reader is then a kernel worker of this process, a
 * thread with no user stack pointer of its own (its saved SP is 0). The
 * text must describe the worker without an SP ("sp -"), not a valid 0.
 * Raw io_uring system calls: no liburing needed in the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

static int uring_read(int fd, char *buf, unsigned int len)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned int *sq_tail, *sq_array, *cq_head, *cq_tail;
	size_t sq_size, cq_size;
	char *sq, *cq;
	int ring, ret;

	ring = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0)
		return -errno;
	sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		close(ring);
		return -ENOMEM;
	}
	sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	sq_array = (unsigned int *)(sq + p.sq_off.array);
	cq_head = (unsigned int *)(cq + p.cq_off.head);
	cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);

	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_READ;
	sqes[0].flags = IOSQE_ASYNC;	/* on an io-wq worker */
	sqes[0].fd = fd;
	sqes[0].addr = (uintptr_t)buf;
	sqes[0].len = len;
	sqes[0].off = 0;
	sq_array[0] = 0;
	__atomic_store_n(sq_tail, 1, __ATOMIC_RELEASE);
	ret = (int)syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	if (ret < 0) {
		ret = -errno;
	} else if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head) {
		ret = -EIO;
	} else {
		ret = cqes[*cq_head & (p.cq_entries - 1)].res;
		__atomic_store_n(cq_head, *cq_head + 1, __ATOMIC_RELEASE);
	}
	munmap(sqes, p.sq_entries * sizeof(*sqes));
	munmap(cq, cq_size);
	munmap(sq, sq_size);
	close(ring);
	return ret;
}

int main(void)
{
	struct stackinfo_query q;
	char buf[4096];
	int fd, n, err;

	fd = si_open();
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", STACKINFO_PROC_PATH, strerror(-fd));
		return 1;
	}
	n = uring_read(fd, buf, sizeof(buf) - 1);
	if (n == -ENOSYS || n == -EPERM) {
		fprintf(stderr, "io_uring not available: %s\n", strerror(-n));
		return T_SKIP;
	}
	CHECK(n > 0, "io_uring read of /proc/stackinfo: %s", strerror(-n));
	if (n <= 0)
		return t_result();
	buf[n] = '\0';
	printf("%s", buf);
	err = si_text_parse(buf, &q);
	CHECK(!err, "parse: %s", strerror(-err));
	CHECK_EQ(q.tgid, getpid());
	/* the worker read it, not this thread */
	CHECK(q.out_tid != (uint32_t)t_gettid(), "read by the submitter itself (tid %u)",
	      q.out_tid);
	CHECK(!(q.valid & STACKINFO_VALID_SP), "a worker with a user SP: %#llx",
	      (unsigned long long)q.sp);
	CHECK(!(q.valid & STACKINFO_VALID_SP_VMA), "a worker with an SP VMA");
	CHECK(q.valid & STACKINFO_VALID_MAIN_VMA, "the process's main stack is still known");
	return t_result();
}
