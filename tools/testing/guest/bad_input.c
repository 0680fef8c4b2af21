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

int main(void)
{
	struct stackinfo_query q;
	long pid_max = 4194304;
	FILE *f;
	int err;

	page = sysconf(_SC_PAGESIZE);
	fd = si_open();
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", STACKINFO_PROC_PATH, strerror(-fd));
		return 1;
	}

	t_bad_query(fd, t_gettid());

	/* tids */
	f = fopen("/proc/sys/kernel/pid_max", "re");
	if (f) {
		if (fscanf(f, "%ld", &pid_max) != 1)
			pid_max = 4194304;
		fclose(f);
	}
	t_query_fill(&q, sizeof(q));
	q.tid = (uint32_t)pid_max - 1;	/* not in use in a fresh guest */
	t_ioctl_expect(fd, "tid pid_max-1", STACKINFO_IOC_QUERY, &q, sizeof(q), ESRCH);
	t_query_fill(&q, sizeof(q));
	q.tid = 0x7fffffff;
	t_ioctl_expect(fd, "tid INT_MAX", STACKINFO_IOC_QUERY, &q, sizeof(q), ESRCH);
	t_query_fill(&q, sizeof(q));
	q.tid = UINT32_MAX;
	t_ioctl_expect(fd, "tid -1", STACKINFO_IOC_QUERY, &q, sizeof(q), ESRCH);
	t_query_fill(&q, sizeof(q));
	q.tid = 2;	/* kthreadd: its maps opens for anyone, and is empty */
	t_ioctl_expect(fd, "kernel thread", STACKINFO_IOC_QUERY, &q, sizeof(q), ENOENT);

	/* proof fds */
	t_query_fill(&q, sizeof(q));
	q.query_flags = STACKINFO_QUERY_PROOF_FD;
	q.proof_fd = -1;
	t_ioctl_expect(fd, "proof fd -1", STACKINFO_IOC_QUERY, &q, sizeof(q), EBADF);
	q.proof_fd = 1000;
	t_ioctl_expect(fd, "proof fd not open", STACKINFO_IOC_QUERY, &q, sizeof(q), EBADF);
	q.proof_fd = fd;
	t_ioctl_expect(fd, "proof fd not a proof", STACKINFO_IOC_QUERY, &q, sizeof(q), EINVAL);

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

	close(fd);
	return t_result();
}
