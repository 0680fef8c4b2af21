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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"

static int fd;
static long page;

/*
 * Every size the ioctl takes, from the first published layout to a word
 * past the kernel's struct, odd ones too (the kernel reads the in fields
 * one by one where each lies whole within the size, and copies the struct
 * in bytewise otherwise): out fields left as garbage on input change
 * nothing, the answer is the full query's as far as the size reaches
 * (with the valid bits of the fields it holds), and not a byte beyond it
 * is written.
 */
#define END(field) \
	(offsetof(struct stackinfo_query, field) + \
	 sizeof(((struct stackinfo_query *)0)->field))

static void every_size(void)
{
	/* the in fields' bytes; every other byte is an out field's */
	static const struct {
		size_t start, end;
	} in[] = {
		{ 0, END(reserved) },
		{ offsetof(struct stackinfo_query, proof_fd),
		  END(reserved1) },
		{ offsetof(struct stackinfo_query, addr),
		  END(addr) },
		{ offsetof(struct stackinfo_query, reserved2),
		  END(reserved2) },
	};
	static unsigned char buf[sizeof(struct stackinfo_query) + 64];
	const uint64_t alt = STACKINFO_VALID_ALTSTACK | STACKINFO_VALID_STACK_KIND;
	struct stackinfo_query full, *q = (struct stackinfo_query *)buf;
	size_t size, n, i;

	t_query_fill(&full, sizeof(full));
	CHECK(!ioctl(fd, STACKINFO_IOC_QUERY, &full), "full query: %s",
	      strerror(errno));
	for (size = STACKINFO_QUERY_SIZE_VER0; size <= sizeof(full) + 8; size++) {
		n = size < sizeof(full) ? size : sizeof(full);
		memset(buf, 0xa5, sizeof(buf));
		/* in fields zero as far as the size reaches, a tail zero */
		for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
			if (in[i].start < n)
				memset(buf + in[i].start, 0,
				       (in[i].end < n ? in[i].end : n) - in[i].start);
		if (size > sizeof(full))
			memset(buf + sizeof(full), 0, size - sizeof(full));
		q->size = size;
		CHECK(!ioctl(fd, STACKINFO_IOC_QUERY, buf), "size %zu: %s", size,
		      strerror(errno));
		CHECK(buf[n] == (size > sizeof(full) ? 0 : 0xa5) &&
			      buf[sizeof(buf) - 1] == 0xa5,
		      "size %zu: written beyond the size", size);
		CHECK(q->main_vma_start == full.main_vma_start &&
			      q->main_vma_end == full.main_vma_end &&
			      q->rlim_stack_cur == full.rlim_stack_cur &&
			      q->out_tid == full.out_tid,
		      "size %zu: another answer than the full query's", size);
		CHECK((q->valid & ~alt) == (full.valid & ~alt),
		      "size %zu: valid %#llx, the full query's %#llx", size,
		      (unsigned long long)q->valid, (unsigned long long)full.valid);
	}
}

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
	every_size();

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
