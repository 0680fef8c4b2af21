// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hostile input: 100 000 random ioctls on /proc/stackinfo (random command
 * numbers, or ours with sizes from 0 to past PAGE_SIZE, random flags,
 * reserved bits and tids, in writable, read-only, unmapped and kernel
 * memory, or straddling into an unmapped page), 20 000 random batch ioctls
 * (the struct's fields and its array anywhere as above: count, entry size,
 * pid, proof fd at random), plus writes, seeks and mmaps. Each call fails
 * with an errno the ABI allows or succeeds where it may; bad input leaves
 * the batch's count as it was; read-only memory is never written; the
 * module then still answers, correctly. Deterministic: a fixed seed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"

#define CALLS	100000

static uint64_t rng = 0x5eed0fdecafbadULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define BATCH_CALLS	20000

/* query flags: mostly none, else one bit or any bits */
static uint64_t fuzz_flags(void)
{
	if (rnd() % 4)
		return 0;
	return rnd() % 3 == 0 ? rnd() : 1ULL << (rnd() % 64);
}

/* a thread or process number: 0, any, small (live, dead, kernel
 * threads), or the caller's */
static uint32_t fuzz_id(void)
{
	switch (rnd() % 4) {
	case 0:
		return 0;
	case 1:
		return rnd();
	case 2:
		return rnd() % 200;
	default:
		return getpid();
	}
}

/* somewhere for a pointer to point: NULL, unmapped, kernel, read-only,
 * straddling into the hole, or @rw's writable pages (kept in @room) */
static void *fuzz_place(unsigned char *rw, unsigned char *ro, unsigned char *hole,
			long page, size_t *room)
{
	unsigned char *p;

	*room = 0;
	switch (rnd() % 8) {
	case 0:
		return NULL;
	case 1:
		return hole + rnd() % page;
	case 2:
		return (void *)(0xffff800000000000UL | (rnd() & 0xffffffffff8UL));
	case 3:
		return ro + (rnd() % page & ~7UL);
	case 4:
		return hole - 8 - (rnd() % 400 & ~7UL);
	default:
		p = rw + (rnd() % page & ~7UL);
		*room = hole - p;
		return p;
	}
}

/*
 * STACKINFO_IOC_QUERY_THREADS with everything at random. The struct is in
 * its own buffer or anywhere fuzz_place() puts it; the array anywhere.
 */
static void fuzz_batch(int fd, unsigned char *rw, unsigned char *ro,
		       unsigned char *hole, long page)
{
	unsigned long counts[4] = { 0 };	/* ok, bad input, EFAULT, other */
	struct stackinfo_threads *own = malloc(page);
	int i;

	for (i = 0; i < BATCH_CALLS && own; i++) {
		struct stackinfo_threads *t = own;
		size_t room;
		uint32_t count = 0;
		int ret, err, ours = 0;

		if (rnd() % 4 == 0) {
			t = fuzz_place(rw, ro, hole, page, &room);
			if (room < 2 * sizeof(*t))
				t = NULL;
			if (!t)
				t = fuzz_place(rw, ro, hole, page, &room);
		}
		if (t == own || (t && (unsigned char *)t >= rw &&
				 (unsigned char *)t + 2 * sizeof(*t) <= hole)) {
			ours = 1;
			memset(t, 0, 2 * sizeof(*t));
			switch (rnd() % 5) {
			case 0:
				t->size = rnd() % 96;
				break;
			case 1:
				t->size = rnd() % 3 ? rnd() % (2 * page) : rnd();
				break;
			default:
				t->size = rnd() % 2 ? STACKINFO_THREADS_SIZE_VER1 :
						      STACKINFO_THREADS_SIZE_VER0;
				break;
			}
			t->query_flags = fuzz_flags();
			t->pid = fuzz_id();
			t->count = rnd() % 4 == 0 ? rnd() : rnd() % 4;
			t->entries = (uintptr_t)fuzz_place(rw, ro, hole, page, &room);
			switch (rnd() % 4) {
			case 0:
				t->entry_size = rnd() % (2 * page);
				break;
			case 1:
				t->entry_size = rnd();
				break;
			default:
				t->entry_size = STACKINFO_QUERY_SIZE_VER0 + rnd() % 96;
				break;
			}
			t->proof_fd = rnd() % 4 ? -1 : (int32_t)rnd() % 8;
			if (rnd() % 8 == 0)
				t->reserved1 = rnd();
			count = t->count;
		}
		errno = 0;
		ret = ioctl(fd, STACKINFO_IOC_QUERY_THREADS, t);
		err = errno;
		if (!ret) {
			CHECK(ours, "batch succeeded on a struct it cannot have read");
			if (ours)
				CHECK(t->count <= count, "batch: count %u above the array's %u",
				      t->count, count);
			counts[0]++;
			continue;
		}
		CHECK(err == EINVAL || err == E2BIG || err == EFAULT || err == ESRCH ||
		      err == ENOENT || err == EACCES || err == ERANGE || err == EBADF ||
		      err == EOPNOTSUPP || err == ENOMEM,
		      "batch: errno %d", err);
		if (ours && (err == EINVAL || err == E2BIG || err == EBADF))
			CHECK(t->count == count, "batch: bad input (errno %d) changed count %u to %u",
			      err, count, t->count);
		if (ours && err == ERANGE)
			CHECK(t->count > count, "batch: ERANGE with count %u, the array's %u",
			      t->count, count);
		counts[err == EFAULT ? 2 : err == EINVAL || err == E2BIG ? 1 : 3]++;
		if (t_failures > 20)
			break;
	}
	fprintf(stderr, "%d batch calls: %lu answered, %lu EINVAL/E2BIG, %lu EFAULT, %lu other errnos\n",
		BATCH_CALLS, counts[0], counts[1], counts[2], counts[3]);
	CHECK(counts[0] && counts[1] && counts[2], "the batch fuzz missed a class of outcome");
	free(own);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *rw, *ro, *hole, *ro_copy;
	unsigned long counts[4] = { 0 };	/* ok, einval/e2big, efault, other */
	int fd = si_open(), i;
	struct stackinfo_query q;

	if (fd < 0)
		return 1;
	/* rw: 2 pages, then an unmapped page; ro: 2 read-only pages */
	rw = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rw == MAP_FAILED || ro == MAP_FAILED)
		return 1;
	hole = rw + 2 * page;
	munmap(hole, page);
	for (i = 0; i < 2 * page; i++)
		ro[i] = rnd();
	memcpy(ro, &(uint64_t){ sizeof(q) }, 8);	/* a valid size, mostly */
	mprotect(ro, 2 * page, PROT_READ);
	ro_copy = malloc(2 * page);
	memcpy(ro_copy, ro, 2 * page);

	for (i = 0; i < CALLS; i++) {
		uint64_t r = rnd(), size;
		unsigned long cmd = STACKINFO_IOC_QUERY;
		void *arg;
		size_t room;
		int ret, err, ours;

		/* a quarter of the calls with a random command */
		if ((r & 3) == 0)
			cmd = (unsigned long)(uint32_t)rnd();
		ours = cmd == STACKINFO_IOC_QUERY;
		arg = fuzz_place(rw, ro, hole, page, &room);
		if (arg >= (void *)rw && arg < (void *)hole - 32) {
			struct stackinfo_query *p = arg;

			memset(arg, 0, room < 2 * sizeof(q) ? room : 2 * sizeof(q));
			switch (rnd() % 6) {
			case 0:
				size = rnd() % (2 * page);
				break;
			case 1:
				size = rnd();
				break;
			default:
				size = sizeof(q);
				break;
			}
			p->size = size;
			p->query_flags = fuzz_flags();
			if (rnd() % 8 == 0)
				p->reserved = rnd();
			p->tid = fuzz_id();
		}
		errno = 0;
		ret = ioctl(fd, cmd, arg);
		err = errno;
		if (!ret) {
			CHECK(ours, "command %#lx succeeded", cmd);
			counts[0]++;
		} else if (!ours) {
			CHECK(err == ENOTTY || err == EFAULT || err == EINVAL ||
			      err == EOPNOTSUPP || err == EBADF || err == EPERM ||
			      err == EACCES || err == ENODEV || err == EIO,
			      "command %#lx: errno %d", cmd, err);
			counts[3]++;
		} else {
			/* EBADF, EOPNOTSUPP: PROOF_FD with fd 0 or a bad one */
			CHECK(err == EINVAL || err == E2BIG || err == EFAULT ||
			      err == ESRCH || err == ENOENT || err == EACCES ||
			      err == EBADF || err == EOPNOTSUPP,
			      "errno %d", err);
			counts[err == EFAULT ? 2 : 1]++;
		}
		if (t_failures > 20)
			break;
	}
	CHECK(!memcmp(ro, ro_copy, 2 * page), "read-only memory changed");
	fuzz_batch(fd, rw, ro, hole, page);
	CHECK(!memcmp(ro, ro_copy, 2 * page), "read-only memory changed by the batch");

	/* what the file does not do, at random too */
	for (i = 0; i < 1000; i++) {
		char buf[64];

		CHECK(write(fd, buf, rnd() % sizeof(buf) + 1) < 0, "write succeeded");
		lseek(fd, (off_t)(rnd() % (1 << 20)), SEEK_SET);
		CHECK(mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED,
		      "mmap succeeded");
	}

	/* still answers, and right */
	CHECK(!si_module_query(fd, 0, 0, &q), "query after fuzzing");
	CHECK_EQ(q.out_tid, t_gettid());
	CHECK(q.valid & STACKINFO_VALID_SP_VMA, "no SP VMA");
	CHECK(q.sp >= q.sp_vma_start && q.sp < q.sp_vma_end, "SP outside its VMA");
	fprintf(stderr, "%d calls: %lu answered, %lu EINVAL/E2BIG/ESRCH/ENOENT/EACCES, %lu EFAULT, %lu other commands refused\n",
		CALLS, counts[0], counts[1], counts[2], counts[3]);
	return t_result();
}
