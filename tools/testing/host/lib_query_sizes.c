// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The _sz queries with every kind of caller's struct, on every backend
 * the kernel has (here PROCMAP_QUERY and the maps parse; the guests run it
 * too, as lib_query_sizes, with the module's and the in-tree file's
 * answers, which fill every field a size cuts), each struct between bytes
 * that must keep what they held:
 *  - sizes from VER0 (168) up, shorter, equal to or longer than the
 *    library's struct: the first min(size, the library's) bytes hold the
 *    answer the library's own size gets (the caller's SP aside; a field
 *    that differs is named), the rest
 *    up to size is zeros, q->size is what was filled, no valid bit names a
 *    field past it, and nothing past size is written;
 *  - the batch with entries size bytes apart: each entry so, the bytes
 *    past the last untouched, ERANGE writing nothing;
 *  - sizes below VER0, above 4096, not a multiple of 8, and a batch no
 *    address space holds: EINVAL, nothing written, errno kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libstackinfo.h"
#include "testutil.h"

#define CANARY	0x5a
#define PAD	64
#define MAXSZ	4096

/* a caller's struct of any size, PAD bytes either side, 8-aligned */
static union {
	uint64_t align;
	unsigned char b[PAD + 2 * MAXSZ + PAD];
} buf;

static const size_t sizes[] = { STACKINFO_QUERY_SIZE_VER0, STACKINFO_QUERY_SIZE_VER1,
				224, 232, STACKINFO_QUERY_SIZE_VER2, 248, 1024, MAXSZ };

static void untouched(const unsigned char *p, size_t n, unsigned char byte, const char *what,
		      size_t size)
{
	size_t i;

	for (i = 0; i < n && p[i] == byte; i++)
		;
	CHECK(i == n, "size %zu, %s: byte %zu of %zu is %#x", size, what, i, n, p[i]);
}

/* the backend asked, for the failures' words */
static const char *backend = "";

/* every field of the struct, in its order: a difference is named */
#define F(x) { #x, offsetof(struct stackinfo_query, x), sizeof(((struct stackinfo_query *)0)->x) }
static const struct field {
	const char *name;
	size_t off, len;
} fields[] = {
	F(size), F(query_flags), F(tid), F(reserved), F(valid), F(out_tid), F(tgid),
	F(thread_flags), F(map_count), F(start_stack), F(main_vma_start), F(main_vma_end),
	F(main_vma_flags), F(main_prev_end), F(sp), F(sp_vma_start), F(sp_vma_end),
	F(sp_vma_flags), F(sp_prev_end), F(sp_guard_start), F(sp_guard_end), F(rlim_stack_cur),
	F(rlim_stack_max), F(guard_gap), F(proof_fd), F(reserved1), F(ss_sp), F(ss_size),
	F(ss_flags), F(stack_kind), F(addr), F(addr_class), F(reserved2), F(addr_vma_start),
	F(addr_vma_end), F(addr_vma_flags),
};
#undef F

static uint64_t field_value(const void *q, const struct field *fl)
{
	uint64_t v = 0;
	uint32_t w;

	if (fl->len == 4) {
		memcpy(&w, (const char *)q + fl->off, 4);
		v = w;
	} else {
		memcpy(&v, (const char *)q + fl->off, 8);
	}
	return v;
}

/* The fields of @q and @f within @n bytes: each that differs a failure naming it. */
static void diff_fields(size_t size, const struct stackinfo_query *q,
			const struct stackinfo_query *f, size_t n)
{
	size_t i, covered = 0;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *fl = &fields[i];

		if (fl->off + fl->len > n)
			break;
		covered = fl->off + fl->len;
		CHECK(field_value(q, fl) == field_value(f, fl),
		      "%s, size %zu: %s %#llx, the library's own size %#llx", backend, size, fl->name,
		      (unsigned long long)field_value(q, fl), (unsigned long long)field_value(f, fl));
	}
	CHECK(covered == n, "size %zu: the fields end at byte %zu", size, covered);
}

/*
 * @got, a caller's struct of @size bytes, against @full, the answer at the
 * library's own size (the caller's SP moves between two calls).
 */
static void same_as_full(const unsigned char *got, size_t size,
			 const struct stackinfo_query *full, bool self)
{
	size_t n = size < sizeof(*full) ? size : sizeof(*full);
	struct stackinfo_query q, f = *full;

	memset(&q, 0, sizeof(q));
	memcpy(&q, got, n);
	CHECK(q.size == n, "size %zu: q->size %llu, want %zu", size,
	      (unsigned long long)q.size, n);
	untouched(got + n, size - n, 0, "past the library's struct", size);
	/* what each valid bit needs of the struct */
	if (n < offsetof(struct stackinfo_query, ss_flags) + sizeof(q.ss_flags))
		f.valid &= ~STACKINFO_VALID_ALTSTACK;
	if (n < offsetof(struct stackinfo_query, stack_kind) + sizeof(q.stack_kind))
		f.valid &= ~STACKINFO_VALID_STACK_KIND;
	if (n < sizeof(f))
		f.valid &= ~(STACKINFO_VALID_ADDR | STACKINFO_VALID_ADDR_VMA);
	CHECK(q.valid == f.valid, "size %zu: valid %#llx, want %#llx", size,
	      (unsigned long long)q.valid, (unsigned long long)f.valid);
	if (self) {
		CHECK(q.sp >= q.sp_vma_start && q.sp < q.sp_vma_end, "size %zu: sp outside", size);
		q.sp = f.sp;
	}
	q.size = f.size = n;
	q.valid = f.valid;
	diff_fields(size, &q, &f, n);
}

static void one_size(size_t size)
{
	unsigned char *q = buf.b + PAD;
	struct stackinfo_query full;
	int err, e;

	CHECK(!stackinfo_query_thread(0, 0, &full), "the library's own size");
	memset(buf.b, CANARY, sizeof(buf.b));
	errno = 1234;
	err = stackinfo_query_thread_sz(0, 0, (struct stackinfo_query *)q, size);
	e = errno;
	CHECK(!err && e == 1234, "size %zu: %d, errno %d", size, err, e);
	untouched(buf.b, PAD, CANARY, "before", size);
	untouched(q + size, sizeof(buf.b) - PAD - size, CANARY, "after", size);
	if (!err)
		same_as_full(q, size, &full, true);

	/* an address: classified or not (by the backend), never past size */
	memset(buf.b, CANARY, sizeof(buf.b));
	err = stackinfo_classify_addr_sz(0, (uintptr_t)&err, 0, (struct stackinfo_query *)q, size);
	CHECK(!err, "classify, size %zu: %d", size, err);
	untouched(buf.b, PAD, CANARY, "classify: before", size);
	untouched(q + size, sizeof(buf.b) - PAD - size, CANARY, "classify: after", size);
	if (size < STACKINFO_QUERY_SIZE_VER2) {
		struct stackinfo_query c;

		memcpy(&c, q, STACKINFO_QUERY_SIZE_VER0);
		CHECK(!(c.valid & (STACKINFO_VALID_ADDR | STACKINFO_VALID_ADDR_VMA)),
		      "classify, size %zu: valid %#llx names the address's fields", size,
		      (unsigned long long)c.valid);
	}
}

/*
 * A second thread, blocked, so that the batch has two answers that hold
 * still. It says when it runs: its start maps memory of the process after
 * pthread_create() has returned (under ASan, its own signal stack and
 * allocator state: four VMAs), and until it has, two answers a moment
 * apart may count the process's VMAs differently.
 */
static int hold[2], started[2];

static void *sleeper(void *arg)
{
	char c = 's';

	(void)arg;
	if (write(started[1], &c, 1) != 1)
		return NULL;
	while (read(hold[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void batch(size_t size)
{
	unsigned char *q = buf.b + PAD;
	struct stackinfo_query full[2];
	size_t count = 7, n = 0, i;
	int err;

	memset(buf.b, CANARY, sizeof(buf.b));
	err = stackinfo_query_process_sz(0, STACKINFO_QUERY_NO_SP, (struct stackinfo_query *)q,
					 1, &count, size);
	CHECK(err == -ERANGE && count == 2, "batch, size %zu, one entry: %d, count %zu", size,
	      err, count);
	untouched(buf.b, sizeof(buf.b), CANARY, "batch, ERANGE", size);

	CHECK(!stackinfo_query_process(0, STACKINFO_QUERY_NO_SP, full, 2, &n) && n == 2,
	      "batch at the library's own size: count %zu", n);
	err = stackinfo_query_process_sz(0, STACKINFO_QUERY_NO_SP, (struct stackinfo_query *)q,
					 2, &count, size);
	CHECK(!err && count == 2, "batch, size %zu: %d, count %zu", size, err, count);
	untouched(buf.b, PAD, CANARY, "batch: before", size);
	untouched(q + 2 * size, sizeof(buf.b) - PAD - 2 * size, CANARY, "batch: after", size);
	for (i = 0; !err && count == 2 && n == 2 && i < 2; i++)
		same_as_full(q + i * size, size, &full[i], false);
}

/* the batch of @n entries of @size bytes, refused: nothing written, count kept */
static void batch_refused(size_t size, size_t n)
{
	size_t count = 7;
	int err;

	memset(buf.b, CANARY, sizeof(buf.b));
	err = stackinfo_query_process_sz(0, 0, (struct stackinfo_query *)(buf.b + PAD), n, &count,
					 size);
	CHECK(err == -EINVAL && count == 7, "batch, size %zu, n %zu: %d, count %zu", size, n, err,
	      count);
	untouched(buf.b, sizeof(buf.b), CANARY, "batch refused", size);
}

static void refused(size_t size)
{
	int err, e;

	memset(buf.b, CANARY, sizeof(buf.b));
	errno = 4321;
	err = stackinfo_query_thread_sz(0, 0, (struct stackinfo_query *)(buf.b + PAD), size);
	e = errno;
	CHECK(err == -EINVAL && e == 4321, "thread, size %zu: %d, errno %d", size, err, e);
	err = stackinfo_classify_addr_sz(0, 0, 0, (struct stackinfo_query *)(buf.b + PAD), size);
	CHECK(err == -EINVAL, "classify, size %zu: %d", size, err);
	untouched(buf.b, sizeof(buf.b), CANARY, "refused", size);
	batch_refused(size, 1);
}

int main(void)
{
	int b, backends = 0;
	pthread_t th;
	size_t i;
	char c;

	if (pipe(hold) || pipe(started) || pthread_create(&th, NULL, sleeper, NULL) ||
	    read(started[0], &c, 1) != 1)
		return 1;
	for (b = 1; b <= STACKINFO_BACKEND_PROC; b++) {
		if (stackinfo_set_backend(b))
			continue;
		backends++;
		backend = stackinfo_backend_name(b);
		printf("info: backend %s\n", backend);
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			one_size(sizes[i]);
			batch(sizes[i] > MAXSZ ? MAXSZ : sizes[i]);
		}
	}
	CHECK(backends, "no backend");
	refused(0);
	refused(STACKINFO_QUERY_SIZE_VER0 - 8);
	refused(STACKINFO_QUERY_SIZE_VER0 + 4);
	refused(MAXSZ + 8);
	refused(SIZE_MAX & ~(size_t)7);
	batch_refused(STACKINFO_QUERY_SIZE_VER2, SIZE_MAX / STACKINFO_QUERY_SIZE_VER2 + 1);
	if (write(hold[1], "x", 1) == 1)
		pthread_join(th, NULL);
	return t_result();
}
