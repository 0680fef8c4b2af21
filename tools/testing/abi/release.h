/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the binaries of released versions (lib_abi_<version>) share: each
 * is built from that release's recorded headers (tools/lib/abi/<version>/
 * include) and linked against a stand-in made from its recorded map, so
 * that it needs exactly the symbol versions a binary of that release
 * needs; it runs against this tree's library. Nothing here may come from
 * this tree's headers: the struct is the release's.
 */
#ifndef STACKINFO_ABI_RELEASE_H
#define STACKINFO_ABI_RELEASE_H

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* the release's, through -Itools/lib/abi/<version>/include */
#include <libstackinfo.h>

#include "check.h"

/* check.h's counter: these binaries have no testutil.c */
int t_failures;

/* the bytes around a caller's struct, and what it holds before a call */
#define R_CANARY	0xa5
#define R_BEFORE	64
#define R_AFTER		256

/* CHECK that @n bytes at @p all still hold @byte; @what names them */
static void r_untouched(const void *p, size_t n, unsigned char byte, const char *what)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n && b[i] == byte; i++)
		;
	CHECK(i == n, "%s: byte %zu of %zu is %#x, was %#x", what, i, n,
		i < n ? b[i] : 0, byte);
}

/*
 * The fields of STACKINFO_QUERY_SIZE_VER0 (0.1.0's whole struct) an answer
 * and the library's own answer must agree on: all but size and valid
 * (compared on their own) and sp (the caller's moves between two calls).
 */
#define R_VER0_FIELDS(X)						\
	X(query_flags) X(tid) X(reserved) X(out_tid) X(tgid)		\
	X(thread_flags) X(map_count) X(start_stack) X(main_vma_start)	\
	X(main_vma_end) X(main_vma_flags) X(main_prev_end)		\
	X(sp_vma_start) X(sp_vma_end) X(sp_vma_flags) X(sp_prev_end)	\
	X(sp_guard_start) X(sp_guard_end) X(rlim_stack_cur)		\
	X(rlim_stack_max) X(guard_gap)

/* CHECK field f of answers a and b equal; @what names the pair */
#define R_SAME(what, a, b, f)						\
	CHECK((a).f == (b).f, "%s: " #f " %#llx, the library's %#llx", what, \
		(unsigned long long)(a).f, (unsigned long long)(b).f);

/* sp of an answer that has it lies in the VMA that answer gives for it */
#define R_SP_IN_VMA(what, q)						\
	CHECK(!((q).valid & STACKINFO_VALID_SP) ||			\
		((q).sp >= (q).sp_vma_start && (q).sp < (q).sp_vma_end), \
		"%s: sp %#llx outside [%#llx, %#llx)", what,		\
		(unsigned long long)(q).sp, (unsigned long long)(q).sp_vma_start, \
		(unsigned long long)(q).sp_vma_end)

/*
 * This library's call of STACKINFO_0.3 by name and version: the release's
 * headers do not declare it. NULL where the library has no such version.
 */
static void *r_sym(const char *name)
{
	void *f = dlvsym(RTLD_DEFAULT, name, "STACKINFO_0.3");

	CHECK(f, "%s@STACKINFO_0.3: %s", name, dlerror());
	return f;
}

/*
 * @name as a lookup without a version finds it, the way dlsym() and
 * Python's ctypes (dlopen() by soname, then dlsym()) find it: NULL where
 * nothing is found. The release's names are this binary's R_NAMES
 * (build/abi/<version>/names.h, from the release's recorded symbols).
 */
static void *r_by_name(const char *name)
{
	static void *lib;
	void *f;

	if (!lib)
		lib = dlopen("libstackinfo.so.0", RTLD_NOW | RTLD_LOCAL);
	CHECK(lib, "dlopen(libstackinfo.so.0): %s", dlerror());
	if (!lib)
		return NULL;
	f = dlsym(lib, name);
	CHECK(f, "dlsym(%s), a name of this release, without a version: %s", name,
		dlerror());
	return f;
}

/* every name of the release resolves without a version */
#define R_NAME(name) name,
static const char *const r_names[] = {
#include "names.h"
};
#undef R_NAME

static void r_every_name(void)
{
	size_t i;

	for (i = 0; i < sizeof(r_names) / sizeof(r_names[0]); i++)
		r_by_name(r_names[i]);
	CHECK(i, "no names recorded for this release");
}

/*
 * The library's own answer, for a caller of a struct larger than any it
 * knows: what it fills and, after that, zeros; r_large() checks those.
 */
#define R_LARGE		1024

/* CHECK an answer of R_LARGE bytes: size what the library filled, zeros after it */
static void r_large(const char *what, const unsigned char *buf)
{
	uint64_t size;

	memcpy(&size, buf, sizeof(size));
	CHECK(size >= STACKINFO_QUERY_SIZE_VER0 && size < R_LARGE && !(size % 8),
		"%s: size %llu", what, (unsigned long long)size);
	if (size >= STACKINFO_QUERY_SIZE_VER0 && size < R_LARGE)
		r_untouched(buf + size, R_LARGE - size, 0, what);
}

/* a second thread, blocked in read() until r_worker_end() */
static int r_pipe[2];
static volatile pid_t r_worker_tid;
static pthread_t r_worker_thread;

static void *r_worker(void *arg)
{
	char c;

	(void)arg;
	r_worker_tid = (pid_t)syscall(SYS_gettid);
	while (read(r_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/*
 * Start the worker and wait until it sleeps in read(): a running thread's
 * SP is not answered by every backend, and would differ between two calls.
 * Its tid, or 0.
 */
static pid_t r_worker_start(void)
{
	char path[64], stat[256];
	int i;

	if (pipe(r_pipe) || pthread_create(&r_worker_thread, NULL, r_worker, NULL))
		return 0;
	for (i = 0; i < 10000; i++) {
		FILE *f;
		char *p = NULL;

		if (r_worker_tid) {
			snprintf(path, sizeof(path), "/proc/self/task/%d/stat", r_worker_tid);
			f = fopen(path, "r");
			if (f && fgets(stat, sizeof(stat), f))
				p = strrchr(stat, ')');
			if (f)
				fclose(f);
			if (p && p[1] == ' ' && p[2] == 'S')
				return r_worker_tid;
		}
		usleep(1000);
	}
	CHECK(0, "the worker thread never slept");
	return 0;
}

static void r_worker_end(void)
{
	if (write(r_pipe[1], "x", 1) == 1)
		pthread_join(r_worker_thread, NULL);
}

/*
 * @fn on every backend this kernel has, the backend numbers up to the
 * newest (4, the in-tree file: 0.2.0's; the release's headers may not name
 * it), each set in turn; @worker, a sleeping second thread's tid or 0. The
 * exit status: a failure, or no backend, fails.
 */
static int r_each_backend(void (*fn)(const char *backend, pid_t worker), pid_t worker)
{
	int b, err, asked = 0;

	for (b = 1; b <= 4; b++) {
		const char *name;

		err = stackinfo_set_backend(b);
		if (err == -EOPNOTSUPP || err == -EINVAL)
			continue;
		CHECK(!err, "backend %d: %s", b, strerror(-err));
		name = stackinfo_backend_name(b);
		printf("info: backend %s\n", name ? name : "?");
		fflush(stdout);
		fn(name ? name : "?", worker);
		asked++;
	}
	CHECK(worker, "no second thread");
	CHECK(asked, "no backend answered");
	return t_failures ? 1 : 0;
}

#endif
