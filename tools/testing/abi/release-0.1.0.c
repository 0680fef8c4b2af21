// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A binary of libstackinfo 0.1.0 (its headers, its symbol versions: only
 * STACKINFO_0.1) against this library: stackinfo_query_thread() writes
 * 0.1.0's struct, STACKINFO_QUERY_SIZE_VER0 bytes, and not one byte past
 * it (the bytes around the struct keep what they held), with size 168 and
 * no valid bit 0.1.0 did not define; its fields are this library's own
 * answer, asked in the same process through stackinfo_query_thread_sz()
 * (STACKINFO_0.3) with a larger struct than any release has. On every
 * backend this kernel has, about the caller, the caller by number and a
 * second thread, with and without the SP; bad flags change nothing. And
 * the same of stackinfo_query_thread as a lookup by name alone finds it
 * (dlsym(), ctypes), which every name of 0.1.0 must resolve by.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "release.h"

/* the valid bits 0.1.0 defined */
#define VALID_0_1_0							\
	(STACKINFO_VALID_THREAD | STACKINFO_VALID_START_STACK |		\
	 STACKINFO_VALID_MAIN_VMA | STACKINFO_VALID_MAIN_PREV |		\
	 STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA |			\
	 STACKINFO_VALID_SP_PREV | STACKINFO_VALID_SP_GUARD |		\
	 STACKINFO_VALID_RLIMIT | STACKINFO_VALID_GUARD_GAP)

_Static_assert(sizeof(struct stackinfo_query) == STACKINFO_QUERY_SIZE_VER0,
	       "built from 0.1.0's headers");

struct frame {
	unsigned char before[R_BEFORE];
	struct stackinfo_query q;
	unsigned char after[R_AFTER];
};

typedef int (*query_sz_fn)(pid_t, uint64_t, void *, size_t);
static query_sz_fn query_sz;
typedef int (*query_fn)(pid_t, uint64_t, struct stackinfo_query *);
/* the symbol this binary is linked to, and what dlsym() finds by the name */
static query_fn linked = stackinfo_query_thread, by_name;

static void frame_fill(struct frame *f)
{
	memset(f, R_CANARY, sizeof(*f));
}

static void frame_untouched(const struct frame *f, const char *what)
{
	char w[224];

	snprintf(w, sizeof(w), "%s: the bytes before the struct", what);
	r_untouched(f->before, sizeof(f->before), R_CANARY, w);
	snprintf(w, sizeof(w), "%s: the bytes after the struct", what);
	r_untouched(f->after, sizeof(f->after), R_CANARY, w);
}

static void one(query_fn query, const char *backend, pid_t tid, uint64_t flags)
{
	unsigned char large[R_LARGE];
	struct stackinfo_query mine;
	struct frame f;
	char what[160];
	int err;

	if (!query)
		return;
	snprintf(what, sizeof(what), "%s%s, tid %d, flags %#llx",
		 query == by_name ? "by name: " : "", backend, tid, (unsigned long long)flags);
	frame_fill(&f);
	err = query(tid, flags, &f.q);
	CHECK(!err, "%s: stackinfo_query_thread: %s", what, strerror(-err));
	frame_untouched(&f, what);
	if (err)
		return;
	CHECK(f.q.size == STACKINFO_QUERY_SIZE_VER0, "%s: size %llu", what,
		(unsigned long long)f.q.size);
	CHECK(!(f.q.valid & ~(uint64_t)VALID_0_1_0), "%s: valid %#llx", what,
		(unsigned long long)f.q.valid);
	R_SP_IN_VMA(what, f.q);
	if (!query_sz)
		return;

	memset(large, R_CANARY, sizeof(large));
	err = query_sz(tid, flags, large, sizeof(large));
	CHECK(!err, "%s: stackinfo_query_thread_sz: %s", what, strerror(-err));
	if (err)
		return;
	r_large(what, large);
	memcpy(&mine, large, sizeof(mine));
	CHECK(f.q.valid == (mine.valid & VALID_0_1_0), "%s: valid %#llx, the library's %#llx",
		what, (unsigned long long)f.q.valid, (unsigned long long)mine.valid);
	R_SP_IN_VMA(what, mine);
#define X(field) R_SAME(what, f.q, mine, field)
	R_VER0_FIELDS(X)
#undef X
}

static void bad_flags(query_fn query)
{
	struct frame f;
	int err;

	if (!query)
		return;
	frame_fill(&f);
	err = query(0, 1ULL << 40, &f.q);
	CHECK(err == -EINVAL, "unknown flag%s: %d, want EINVAL",
		query == by_name ? ", by name" : "", err);
	r_untouched(&f, sizeof(f), R_CANARY, "unknown flag: the struct and its neighbours");
}

static void on_backend(const char *backend, pid_t worker)
{
	query_fn fns[] = { linked, by_name };
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		one(fns[i], backend, 0, 0);
		one(fns[i], backend, 0, STACKINFO_QUERY_NO_SP);
		one(fns[i], backend, getpid(), 0);
		if (worker) {
			one(fns[i], backend, worker, 0);
			one(fns[i], backend, worker, STACKINFO_QUERY_NO_SP);
		}
	}
}

int main(void)
{
	pid_t worker = r_worker_start();
	int rc;

	query_sz = (query_sz_fn)r_sym("stackinfo_query_thread_sz");
	r_every_name();
	by_name = (query_fn)r_by_name("stackinfo_query_thread");
	bad_flags(linked);
	bad_flags(by_name);
	rc = r_each_backend(on_backend, worker);
	r_worker_end();
	return rc;
}
