// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Another thread's SP parked on the edges of mappings, asked about through
 * the module and compared with /proc/self/maps. The thread blocks all
 * signals, moves its stack pointer and sleeps in a raw futex wait without
 * touching the stack; the kernel saved that SP at entry. Edges: the last
 * byte of a gap (6.1's vma_find(addr + 1) once answered with the mapping
 * above it), the first and last byte of a mapping, the first byte above
 * one, 0, a kernel address and a non-canonical one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#if defined(__x86_64__)

struct parked {
	uint64_t sp;		/* where to put the SP */
	volatile int word;	/* futex: 0 while it should sleep */
	pid_t tid;
};

/* Sleep on p->word with the SP at p->sp; nothing touches the stack. */
static void park(struct parked *p)
{
	long ret;

	__asm__ volatile("xor %%r10d, %%r10d\n\t"	/* no timeout */
			 "mov %%rsp, %%r12\n\t"
			 "mov %[sp], %%rsp\n\t"
			 "syscall\n\t"
			 "mov %%r12, %%rsp"
			 : "=a"(ret)
			 : "a"((long)SYS_futex), "D"(&p->word),
			   "S"((long)FUTEX_WAIT), "d"(0L), [sp] "r"(p->sp)
			 : "rcx", "r11", "r12", "r10", "memory");
	(void)ret;
}

static void *parked_thread(void *arg)
{
	struct parked *p = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	p->tid = t_gettid();
	while (!p->word)
		park(p);
	return NULL;
}

static void check_at(int fd, uint64_t sp, const char *what)
{
	struct parked p = { .sp = sp };
	const struct maps_entry *e, *prev;
	struct stackinfo_query q;
	struct maps m = { 0 };
	pthread_t th;
	int err;

	pthread_create(&th, NULL, parked_thread, &p);
	while (!__atomic_load_n(&p.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	CHECK(!t_wait_sleeping(p.tid), "%s: the thread never slept", what);
	err = si_module_query(fd, p.tid, 0, &q);
	CHECK(!maps_read(&m, 0), "maps");
	e = maps_find(&m, sp, &prev);
	p.word = 1;
	syscall(SYS_futex, &p.word, FUTEX_WAKE, 1, NULL, NULL, 0);
	pthread_join(th, NULL);

	CHECK(!err, "%s: %s", what, strerror(-err));
	CHECK(q.valid & STACKINFO_VALID_SP, "%s: no SP", what);
	CHECK(q.sp == sp, "%s: sp %#llx, parked at %#llx", what, (unsigned long long)q.sp,
	      (unsigned long long)sp);
	if (e) {
		CHECK(q.valid & STACKINFO_VALID_SP_VMA, "%s: no VMA, maps has %#llx-%#llx", what,
		      (unsigned long long)e->start, (unsigned long long)e->end);
		CHECK(q.sp_vma_start == e->start && q.sp_vma_end == e->end,
		      "%s: VMA %#llx-%#llx, maps %#llx-%#llx", what,
		      (unsigned long long)q.sp_vma_start, (unsigned long long)q.sp_vma_end,
		      (unsigned long long)e->start, (unsigned long long)e->end);
		CHECK(!prev || q.sp_prev_end == prev->end, "%s: below ends %#llx, maps %#llx",
		      what, (unsigned long long)q.sp_prev_end,
		      (unsigned long long)(prev ? prev->end : 0));
	} else {
		CHECK(!(q.valid & STACKINFO_VALID_SP_VMA),
		      "%s: VMA %#llx-%#llx where maps has none", what,
		      (unsigned long long)q.sp_vma_start, (unsigned long long)q.sp_vma_end);
	}
	printf("%-28s sp %#18llx  vma %s\n", what, (unsigned long long)sp,
	       (q.valid & STACKINFO_VALID_SP_VMA) ? "found" : "none");
	maps_free(&m);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *base;
	uint64_t a, b;
	int fd = si_open();

	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", STACKINFO_PROC_PATH, strerror(-fd));
		return 1;
	}
	/* [a, a+p) mapped, [a+p, a+3p) a gap, [b, b+p) mapped, then a gap */
	base = mmap(NULL, 6 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(base != MAP_FAILED, "mmap");
	munmap(base, 6 * page);
	a = (uintptr_t)base;
	b = a + 3 * page;
	CHECK(mmap((void *)a, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		   -1, 0) == (void *)a, "mmap a");
	CHECK(mmap((void *)b, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == (void *)b,
	      "mmap b");

	check_at(fd, b - 1, "last byte of a gap");
	check_at(fd, a + page, "first byte of a gap");
	check_at(fd, b, "first byte of a mapping");
	check_at(fd, b + page - 8, "last word of a mapping");
	check_at(fd, b + page - 1, "last byte of a mapping");
	check_at(fd, b + page, "first byte above a mapping");
	check_at(fd, 0, "zero");
	check_at(fd, 0xffff888000000000ULL, "a kernel address");
	check_at(fd, 0x0000800000000000ULL, "the first non-canonical");
	check_at(fd, 0x00ff000000000000ULL, "non-canonical");
	check_at(fd, ~0ULL, "all ones");
	return t_result();
}

#else

int main(void)
{
	fprintf(stderr, "x86-64 only\n");
	return T_SKIP;
}

#endif
