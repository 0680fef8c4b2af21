// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Scale: a process holding 64 GiB of SysV shm
 * (SHM_NORESERVE, 1 GiB segments; SHM_HUGETLB too when huge pages are
 * reserved), POSIX shm mappings, 60 000 extra mappings and 1 000 threads.
 * For every thread the module's answer, asked by the main thread and by
 * the thread itself, equals the truth: the thread's own stack as glibc
 * allocated it and its SP, and /proc/self/maps. Mappings are then removed
 * and added and every answer is checked again: never stale.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include "testutil.h"

#define THREADS		1000	/* at most: see scale() */
#define EXTRA		60000
#define SHM_GIB		64
#define POSIX_SHM	16

struct peer {
	pthread_t th;
	pid_t tid;
	uint64_t lo, hi;	/* its stack as glibc reports it */
	size_t guard;
	int self_ok;
};

static struct peer peers[THREADS];
static int nthreads = THREADS, nextra = EXTRA;
static pthread_barrier_t ready, done;
static int fd;

/* The thread's own view, then wait to be asked about. */
static void *peer_main(void *arg)
{
	struct peer *p = arg;
	struct stackinfo_query q;
	pthread_attr_t attr;
	volatile char local;
	void *addr;
	size_t size;

	p->tid = t_gettid();
	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &addr, &size);
	pthread_attr_getguardsize(&attr, &p->guard);
	pthread_attr_destroy(&attr);
	p->lo = (uintptr_t)addr;
	p->hi = p->lo + size;
	p->self_ok = !si_module_query(fd, 0, 0, &q) &&
		     q.sp <= (uintptr_t)&local && (uintptr_t)&local - q.sp < 65536 &&
		     q.sp_vma_start <= p->lo && p->hi <= q.sp_vma_end &&
		     (q.valid & STACKINFO_VALID_SP_GUARD) &&
		     q.sp_guard_end == q.sp_vma_start &&
		     /* a PROT_NONE neighbour (a malloc arena's reserve) can merge in */
		     q.sp_guard_end - q.sp_guard_start >= p->guard;
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	return NULL;
}

/* The main thread asks about every peer; all must match the truth. */
static void check_all(const char *what, const struct maps *m)
{
	int i, bad = 0;

	for (i = 0; i < nthreads; i++) {
		const struct maps_entry *e, *prev;
		struct stackinfo_query q;
		struct peer *p = &peers[i];
		int err = si_module_query(fd, p->tid, 0, &q);

		e = maps_find(m, p->lo, &prev);
		if (err || !e || q.out_tid != (uint32_t)p->tid || !p->self_ok ||
		    q.sp < p->lo || q.sp >= p->hi ||
		    q.sp_vma_start != e->start || q.sp_vma_end != e->end ||
		    !prev || q.sp_prev_end != prev->end ||
		    q.sp_guard_start != prev->start || q.map_count != maps_vma_count(m)) {
			if (bad++ < 5)
				fprintf(stderr, "%s: thread %d: err %d sp %#llx vma %#llx-%#llx map_count %u (maps: %zu) self %d\n",
					what, (int)p->tid, err, (unsigned long long)q.sp,
					(unsigned long long)q.sp_vma_start,
					(unsigned long long)q.sp_vma_end, q.map_count,
					maps_vma_count(m), p->self_ok);
		}
	}
	CHECK(!bad, "%s: %d of %d threads wrong", what, bad, nthreads);
}

static void attach_shm(void)
{
	int i, id;

	for (i = 0; i < SHM_GIB; i++) {
		id = shmget(IPC_PRIVATE, 1UL << 30, IPC_CREAT | 0600 | SHM_NORESERVE);
		CHECK(id >= 0, "shmget %d: %s", i, strerror(errno));
		if (id < 0)
			return;
		CHECK(shmat(id, NULL, SHM_RDONLY) != (void *)-1, "shmat: %s", strerror(errno));
		shmctl(id, IPC_RMID, NULL);	/* goes with the last detach */
	}
	/* huge pages only where the guest reserved some */
	id = shmget(IPC_PRIVATE, 2UL << 20, IPC_CREAT | 0600 | SHM_HUGETLB);
	if (id >= 0) {
		CHECK(shmat(id, NULL, 0) != (void *)-1, "shmat hugetlb: %s", strerror(errno));
		shmctl(id, IPC_RMID, NULL);
		fprintf(stderr, "SHM_HUGETLB segment attached\n");
	}
}

static void map_posix_shm(void)
{
	char name[32];
	int i, sfd;

	for (i = 0; i < POSIX_SHM; i++) {
		snprintf(name, sizeof(name), "/stackinfo-scale-%d", i);
		sfd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
		CHECK(sfd >= 0, "shm_open: %s", strerror(errno));
		if (sfd < 0)
			return;
		shm_unlink(name);
		CHECK(!ftruncate(sfd, 1 << 20), "ftruncate");
		CHECK(mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0) !=
		      MAP_FAILED, "mmap POSIX shm");
		close(sfd);
	}
}

/* A KASAN kernel: a fifth of the scale. */
static void scale(void)
{
	bool kasan = t_kasan_kernel();

	if (kasan) {
		nthreads = THREADS / 5;
		nextra = EXTRA / 5;
	}
	printf("info: scale: %d extra mappings, %d threads%s\n", nextra, nthreads,
	       kasan ? " (a KASAN kernel: a fifth)" : "");
}

int main(void)
{
	struct maps m = { 0 };
	pthread_attr_t attr;
	struct stackinfo_query q;
	void *extra, *more;
	int i, err;

	fd = si_open();
	if (fd < 0)
		return 1;
	scale();
	attach_shm();
	map_posix_shm();
	extra = map_many(nextra);
	CHECK(extra, "map %d: %s", nextra, strerror(errno));

	pthread_barrier_init(&ready, NULL, nthreads + 1);
	pthread_barrier_init(&done, NULL, nthreads + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	for (i = 0; i < nthreads; i++) {
		err = pthread_create(&peers[i].th, &attr, peer_main, &peers[i]);
		CHECK(!err, "thread %d: %s", i, strerror(err));
		if (err)
			return t_result();
	}
	pthread_barrier_wait(&ready);

	/* twice: the first read may grow (and so map) the array it fills */
	maps_read(&m, 0);
	CHECK(!maps_read(&m, 0), "maps");
	check_all("64 GiB shm, the extra mappings, the threads", &m);
	err = si_module_query(fd, 0, 0, &q);
	CHECK(!err && q.map_count == maps_vma_count(&m), "map_count %u, maps %zu",
	      q.map_count, maps_vma_count(&m));
	fprintf(stderr, "%u mappings, %d threads checked\n", q.map_count, nthreads);

	/* the whole process in one call: the same answers */
	{
		struct stackinfo_query *all = calloc(nthreads + 8, sizeof(*all));
		struct stackinfo_threads a = {
			.size = sizeof(a), .count = nthreads + 8,
			.entries = (uintptr_t)all, .entry_size = sizeof(*all),
		};
		unsigned int i, found = 0;

		CHECK(!ioctl(fd, STACKINFO_IOC_QUERY_THREADS, &a), "batch: %s", strerror(errno));
		CHECK_EQ(a.count, nthreads + 1);
		for (i = 0; i < a.count && i < (unsigned int)nthreads + 8; i++) {
			int j;

			for (j = 0; j < nthreads; j++)
				if (all[i].out_tid == (uint32_t)peers[j].tid) {
					found += all[i].sp >= peers[j].lo && all[i].sp < peers[j].hi &&
						 all[i].sp_vma_start <= peers[j].lo;
					break;
				}
		}
		CHECK_EQ(found, nthreads);
		free(all);
	}

	/* remove half the extra mappings, add others: never stale */
	unmap_many(extra, nextra / 2);
	more = map_many(1001);
	CHECK(more, "map more");
	maps_read(&m, 0);
	CHECK(!maps_read(&m, 0), "maps");
	check_all("after munmap and mmap", &m);

	pthread_barrier_wait(&done);
	for (i = 0; i < nthreads; i++)
		pthread_join(peers[i].th, NULL);
	maps_free(&m);
	return t_result();
}
