// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo on glibc: what glibc's thread descriptor (struct pthread,
 * nptl/descr.h) says of a thread's stack, read without glibc's lock, as
 * pthread_getattr_np() would read it under the lock: stackblock (NULL
 * for the initial thread, whose stack the kernel grows), stackblock_size
 * and guardsize, written when the thread is created and never after, so a
 * plain read of a live thread's descriptor is exact and async-signal-safe.
 *
 * Their offsets are not published, but their place is: nptl_db publishes
 * the offset of nextevent (nptl_db/structs.def), and in nptl/descr.h of
 * every glibc with __tls_init_tp() (2.34 on) nextevent is followed by
 * struct _Unwind_Exception exc, then stackblock, stackblock_size,
 * guardsize. The offsets so derived are proven once on the calling thread
 * (the constructor's, or the first caller's): the initial thread's
 * descriptor must hold stackblock NULL and stackblock_size
 * __libc_stack_end (__tls_init_tp() puts it there); another thread's, a
 * block holding both the descriptor and the stack pointer. Until proven,
 * si_thread_stack() says -ENOTSUP, and so does it on a C library with
 * other offsets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <stdint.h>
#include <unwind.h>

#include "internal.h"

extern void *__libc_stack_end;

/*
 * GLIBC_PRIVATE data, referenced weakly and without a version (NULL where
 * the C library has none). glibc keeps them in pthread_create.o, which a
 * static program that creates no thread would not link: the reference to
 * pthread_create below brings it along.
 */
extern const uint32_t _thread_db_sizeof_pthread __attribute__((weak));
extern const uint32_t _thread_db_pthread_nextevent[3] __attribute__((weak));
__attribute__((used)) static int (*const si_keep_create)(pthread_t *,
		const pthread_attr_t *, void *(*)(void *), void *) = pthread_create;

/* the descriptor's words at stackblock's offset */
struct si_block {
	uintptr_t block;
	size_t size, guard;
};

/* stackblock's offset: 0 not yet known, -1 not to be read */
static long si_block_off;

uint64_t si_stack_end(void)
{
	return (uintptr_t)__libc_stack_end;
}

static void si_block_read(pthread_t th, long off, struct si_block *b)
{
	const char *p = (const char *)th + off;

	b->block = *(const uintptr_t *)p;
	b->size = *(const size_t *)(p + sizeof(uintptr_t));
	b->guard = *(const size_t *)(p + sizeof(uintptr_t) + sizeof(size_t));
}

/* glibc 2.34 or later, read by hand: nothing here may allocate */
static bool si_glibc_2_34(void)
{
	const char *v = gnu_get_libc_version();
	unsigned int minor = 0;

	if (v[0] != '2' || v[1] != '.')
		return false;
	for (v += 2; *v >= '0' && *v <= '9'; v++)
		minor = minor * 10 + (unsigned int)(*v - '0');
	return minor >= 34;
}

/* Does @b describe a thread with the descriptor @th and a frame at @sp? */
static bool si_block_holds(const struct si_block *b, pthread_t th, uintptr_t sp)
{
	uintptr_t self = (uintptr_t)th;

	return b->block && b->guard < b->size && b->size <= UINTPTR_MAX - b->block &&
	       self >= b->block && self < b->block + b->size &&
	       sp >= b->block + b->guard && sp < b->block + b->size;
}

/* Derive the offset and prove it on the calling thread: it, or -1. */
static long si_block_prove(void)
{
	const uint32_t *d = _thread_db_pthread_nextevent;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	size_t align = _Alignof(struct _Unwind_Exception), off;
	struct si_block b;

	if (!d || !&_thread_db_sizeof_pthread || !si_glibc_2_34() ||
	    d[0] != 8 * sizeof(void *) || d[1] != 1)
		return -1;
	off = (d[2] + sizeof(void *) + align - 1) & ~(align - 1);
	off += sizeof(struct _Unwind_Exception);
	if (off + sizeof(struct si_block) > _thread_db_sizeof_pthread)
		return -1;
	si_block_read(pthread_self(), (long)off, &b);
	if (!b.block && b.size == (uintptr_t)__libc_stack_end)
		return (long)off;	/* the initial thread */
	return si_block_holds(&b, pthread_self(), sp) ? (long)off : -1;
}

static long si_block_offset(void)
{
	long off = __atomic_load_n(&si_block_off, __ATOMIC_RELAXED);

	if (!off) {
		/* racing provers find the same */
		off = si_block_prove();
		__atomic_store_n(&si_block_off, off, __ATOMIC_RELAXED);
	}
	return off;
}

__attribute__((constructor)) static void si_glibc_init(void)
{
	si_block_offset();
}

int si_thread_stack(pthread_t th, uint64_t *lo, uint64_t *size)
{
	long off = si_block_offset();
	struct si_block b;

	if (off < 0)
		return -ENOTSUP;
	si_block_read(th, off, &b);
	if (!b.block)
		return 0;
	/* glibc's descriptor lies in its block, the user's stack's too */
	if (b.guard >= b.size || b.size > UINTPTR_MAX - b.block ||
	    (uintptr_t)th < b.block || (uintptr_t)th >= b.block + b.size)
		return -ENOTSUP;
	/* pthread_getattr_np()'s answer: the block less its guard */
	*lo = b.block + b.guard;
	*size = b.size - b.guard;
	return 1;
}
