// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A binary of libstackinfo 0.2.0 (its headers, its symbol versions:
 * STACKINFO_0.1 and STACKINFO_0.2) against this library:
 *  - stackinfo_classify_addr() fills 0.2.0's struct, 240 bytes, and not a
 *    byte past it, with this library's own answer (asked in the same
 *    process through the _sz call of STACKINFO_0.3 with a larger struct),
 *    valid bits and class included;
 *  - stackinfo_query_process() fills 240-byte entries 240 bytes apart, the
 *    array's neighbours untouched, each entry this library's answer;
 *    ERANGE with a short array writes nothing;
 *  - stackinfo_query_thread(), the symbol 0.1.0's binaries call too
 *    (STACKINFO_0.1), answers 0.1.0's 168 bytes with VER0's valid bits and
 *    leaves the rest of 0.2.0's struct as it was: libstackinfo(3), ABI.
 * On every backend this kernel has, about the caller and a second thread;
 * and each of the three again as a lookup by name alone finds it
 * (dlsym(), ctypes: 0.2.0's Python package), which every name of 0.2.0
 * must resolve by, with the same answers.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "release.h"

_Static_assert(sizeof(struct stackinfo_query) == STACKINFO_QUERY_SIZE_VER2,
	       "built from 0.2.0's headers");

/* the valid bits of VER0: what stackinfo_query_thread@STACKINFO_0.1 gives */
#define VALID_VER0 ((STACKINFO_VALID_GUARD_GAP << 1) - 1)

struct frame {
	unsigned char before[R_BEFORE];
	struct stackinfo_query q;
	unsigned char after[R_AFTER];
};

/* the two threads, and the neighbours of the array */
struct frames {
	unsigned char before[R_BEFORE];
	struct stackinfo_query q[2];
	unsigned char after[R_AFTER];
};

typedef int (*classify_sz_fn)(pid_t, uint64_t, uint64_t, void *, size_t);
typedef int (*process_sz_fn)(pid_t, uint64_t, void *, size_t, size_t *, size_t);
static classify_sz_fn classify_sz;
static process_sz_fn process_sz;

/* 0.2.0's three queries: the symbols linked, or as dlsym() finds the names */
struct calls {
	const char *how;
	int (*classify)(pid_t, uint64_t, uint64_t, struct stackinfo_query *);
	int (*process)(pid_t, uint64_t, struct stackinfo_query *, size_t, size_t *);
	int (*query)(pid_t, uint64_t, struct stackinfo_query *);
};

static struct calls calls[2] = {
	{ "", stackinfo_classify_addr, stackinfo_query_process, stackinfo_query_thread },
	{ "by name: ", NULL, NULL, NULL },
};

static void untouched_around(const void *before, const void *after, const char *what)
{
	char w[160];

	snprintf(w, sizeof(w), "%s: the bytes before", what);
	r_untouched(before, R_BEFORE, R_CANARY, w);
	snprintf(w, sizeof(w), "%s: the bytes after", what);
	r_untouched(after, R_AFTER, R_CANARY, w);
}

/* @q, an answer of 0.2.0's size, against @large's first 240 bytes */
static void same_answer(const char *what, const struct stackinfo_query *q,
			const unsigned char *large)
{
	struct stackinfo_query mine;

	r_large(what, large);
	memcpy(&mine, large, sizeof(mine));
	CHECK(q->size == STACKINFO_QUERY_SIZE_VER2, "%s: size %llu", what,
		(unsigned long long)q->size);
	CHECK(q->valid == mine.valid, "%s: valid %#llx, the library's %#llx", what,
		(unsigned long long)q->valid, (unsigned long long)mine.valid);
	R_SP_IN_VMA(what, *q);
	R_SP_IN_VMA(what, mine);
#define X(field) R_SAME(what, *q, mine, field)
	R_VER0_FIELDS(X)
	X(proof_fd) X(reserved1) X(stack_kind) X(addr) X(addr_class) X(reserved2)
	X(addr_vma_start) X(addr_vma_end) X(addr_vma_flags)
#undef X
	/* the caller's own sigaltstack is its, not the library's, to compare */
	if (q->valid & STACKINFO_VALID_ALTSTACK) {
		R_SAME(what, *q, mine, ss_sp);
		R_SAME(what, *q, mine, ss_size);
		R_SAME(what, *q, mine, ss_flags);
	}
}

static void classify(const struct calls *c, const char *backend, pid_t tid, uint64_t addr)
{
	unsigned char large[R_LARGE];
	struct frame f;
	char what[160];
	int err;

	if (!c->classify)
		return;
	snprintf(what, sizeof(what), "%sclassify %s, tid %d, %#llx", c->how, backend, tid,
		 (unsigned long long)addr);
	memset(&f, R_CANARY, sizeof(f));
	err = c->classify(tid, addr, 0, &f.q);
	CHECK(!err, "%s: %s", what, strerror(-err));
	untouched_around(f.before, f.after, what);
	if (err || !classify_sz)
		return;
	err = classify_sz(tid, addr, 0, large, sizeof(large));
	CHECK(!err, "%s: stackinfo_classify_addr_sz: %s", what, strerror(-err));
	if (!err)
		same_answer(what, &f.q, large);
}

static void process(const struct calls *c, const char *backend, pid_t worker)
{
	unsigned char large[2 * R_LARGE];
	struct frames f;
	size_t count = 99, n = 99, i, j;
	char what[160];
	int err;

	if (!c->process)
		return;
	snprintf(what, sizeof(what), "%sprocess %s", c->how, backend);
	memset(&f, R_CANARY, sizeof(f));
	err = c->process(0, 0, f.q, 1, &count);
	CHECK(err == -ERANGE && count == 2, "%s, one entry for two threads: %d, count %zu",
		what, err, count);
	r_untouched(&f, sizeof(f), R_CANARY, "process, ERANGE: the array and its neighbours");

	err = c->process(0, 0, f.q, 2, &count);
	CHECK(!err && count == 2, "%s: %s, count %zu", what, strerror(-err), count);
	untouched_around(f.before, f.after, what);
	if (err || count != 2 || !process_sz)
		return;
	/* the worker sleeps: its answer is the same in both calls */
	err = process_sz(0, 0, large, 2, &n, R_LARGE);
	CHECK(!err && n == 2, "%s: stackinfo_query_process_sz: %s, count %zu", what,
		strerror(-err), n);
	if (err || n != 2)
		return;
	for (i = 0; i < 2; i++) {
		snprintf(what, sizeof(what), "%sprocess %s, entry %zu (tid %u)", c->how,
			 backend, i, f.q[i].out_tid);
		CHECK(f.q[i].out_tid == (uint32_t)getpid() ||
			f.q[i].out_tid == (uint32_t)worker, "%s: neither thread", what);
		/* the kernel's order in both calls; the caller's SP moves */
		for (j = 0; j < 2; j++)
			if (!memcmp(&f.q[i].out_tid, large + j * R_LARGE +
				    offsetof(struct stackinfo_query, out_tid), sizeof(uint32_t)))
				break;
		CHECK(j == i, "%s: entry %zu in the library's answer", what, j);
		if (j < 2)
			same_answer(what, &f.q[i], large + j * R_LARGE);
	}
}

/*
 * The symbol 0.1.0's binaries call: 0.1.0's answer, which a 0.2.0 binary
 * reads as an answer without the VER1 and VER2 fields.
 */
static void query_thread(const struct calls *c, const char *backend, pid_t tid)
{
	struct frame f;
	char what[160];
	int err;

	if (!c->query)
		return;
	snprintf(what, sizeof(what), "%sstackinfo_query_thread %s, tid %d", c->how,
		 backend, tid);
	memset(&f, R_CANARY, sizeof(f));
	err = c->query(tid, 0, &f.q);
	CHECK(!err, "%s: %s", what, strerror(-err));
	untouched_around(f.before, f.after, what);
	if (err)
		return;
	CHECK(f.q.size == STACKINFO_QUERY_SIZE_VER0, "%s: size %llu, want 0.1.0's %d", what,
		(unsigned long long)f.q.size, STACKINFO_QUERY_SIZE_VER0);
	CHECK(!(f.q.valid & ~(uint64_t)VALID_VER0), "%s: valid %#llx beyond VER0's", what,
		(unsigned long long)f.q.valid);
	r_untouched((const unsigned char *)&f.q + STACKINFO_QUERY_SIZE_VER0,
		    sizeof(f.q) - STACKINFO_QUERY_SIZE_VER0, R_CANARY,
		    "stackinfo_query_thread: 0.2.0's struct past VER0");
}

static void on_backend(const char *backend, pid_t worker)
{
	int local = 0;
	size_t i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		classify(&calls[i], backend, 0, (uintptr_t)&local);
		classify(&calls[i], backend, 0, 4096);
		query_thread(&calls[i], backend, 0);
		if (!worker)
			continue;
		classify(&calls[i], backend, worker, (uintptr_t)&local);
		process(&calls[i], backend, worker);
		query_thread(&calls[i], backend, worker);
	}
}

int main(void)
{
	pid_t worker = r_worker_start();
	int rc;

	classify_sz = (classify_sz_fn)r_sym("stackinfo_classify_addr_sz");
	process_sz = (process_sz_fn)r_sym("stackinfo_query_process_sz");
	r_every_name();
	calls[1].classify = r_by_name("stackinfo_classify_addr");
	calls[1].process = r_by_name("stackinfo_query_process");
	calls[1].query = r_by_name("stackinfo_query_thread");
	rc = r_each_backend(on_backend, worker);
	r_worker_end();
	return rc;
}
