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
 * every glibc from 2.31 to 2.43 nextevent is followed by struct
 * _Unwind_Exception exc, then stackblock, stackblock_size, guardsize. The
 * offsets so derived, with no table of versions, are proven once on the
 * calling thread (the constructor's, or the first caller's): the initial
 * thread's descriptor must hold stackblock NULL and stackblock_size
 * __libc_stack_end (__tls_init_tp() puts it there from 2.34 on, libpthread's
 * __pthread_initialize_minimal() before, which runs before any object
 * that needs libpthread.so.0, as the shared objects do); another thread's,
 * a block holding both the descriptor and the stack pointer. Until
 * proven, si_thread_stack() says -ENOTSUP, and so does it on a C library
 * with other offsets.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include <unwind.h>

#include "internal.h"

extern void *__libc_stack_end;

/*
 * glibc's description of its struct pthread for libthread_db
 * (nptl_db/structs.def): for a field, its size in bits, its count and its
 * offset; for the struct, its size. From 2.34 on GLIBC_PRIVATE data of
 * libc.so.6's dynamic symbols, referenced weakly and without a version
 * (NULL where the C library has none). glibc keeps them in
 * pthread_create.o, which a static program that creates no thread would
 * not link: the reference to pthread_create below brings it along.
 */
extern const uint32_t _thread_db_sizeof_pthread __attribute__((weak));
extern const uint32_t _thread_db_pthread_schedpolicy[3] __attribute__((weak));
extern const uint32_t _thread_db_pthread_schedparam_sched_priority[3] __attribute__((weak));
extern const uint32_t _thread_db_pthread_cancelhandling[3] __attribute__((weak));
extern const uint32_t _thread_db_pthread_nextevent[3] __attribute__((weak));
__attribute__((used)) static int (*const si_keep_create)(pthread_t *,
		const pthread_attr_t *, void *(*)(void *), void *) = pthread_create;

static const char *const si_db_names[SI_DB_NAMES] = {
	[SI_DB_SIZEOF_PTHREAD] = "_thread_db_sizeof_pthread",
	[SI_DB_SCHEDPOLICY] = "_thread_db_pthread_schedpolicy",
	[SI_DB_PRIORITY] = "_thread_db_pthread_schedparam_sched_priority",
	[SI_DB_CANCELHANDLING] = "_thread_db_pthread_cancelhandling",
	[SI_DB_NEXTEVENT] = "_thread_db_pthread_nextevent",
};
/* 0 not looked up; 1 looked up, si_db[] published */
static int si_db_state;
static const uint32_t *si_db[SI_DB_NAMES];

/* the loaded object holding an address, as dl_iterate_phdr() shows it */
struct si_obj {
	uintptr_t addr;
	const struct dl_phdr_info *info;
	struct dl_phdr_info copy;
};

static int si_obj_find(struct dl_phdr_info *info, size_t size, void *data)
{
	struct si_obj *o = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && o->addr >= lo && o->addr - lo < ph->p_memsz) {
			o->copy = *info;
			o->info = &o->copy;
			return 1;
		}
	}
	return 0;
}

/* The file offset of [vaddr, vaddr + len) in a readable loaded segment. */
static bool si_obj_offset(const struct si_obj *o, uint64_t vaddr, uint64_t len, off_t *off)
{
	int i;

	for (i = 0; i < o->info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &o->info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && vaddr >= ph->p_vaddr &&
		    len <= ph->p_filesz && vaddr - ph->p_vaddr <= ph->p_filesz - len) {
			*off = (off_t)(vaddr - ph->p_vaddr + ph->p_offset);
			return true;
		}
	}
	return false;
}

static bool si_pread(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/*
 * Before 2.34 the descriptions are libpthread.so.0's local symbols: in its
 * file's symbol table (.symtab, which Debian's libc6 keeps for
 * libthread_db), not in its dynamic one. Found there by name, in the file
 * the dynamic linker loaded libpthread from (the object holding
 * pthread_create, dl_iterate_phdr()'s name for it), each accepted only
 * where it lies in a readable loaded segment and the file's bytes there
 * are the loaded object's (a file replaced since the load is not
 * believed). Run once, at load: openat, pread64, close.
 */
static void si_db_from_symtab(const uint32_t *found[SI_DB_NAMES])
{
	struct si_obj o = { .addr = (uintptr_t)pthread_create };
	ElfW(Shdr) symtab, strtab;
	ElfW(Ehdr) eh;
	ElfW(Sym) syms[32];
	uint64_t at, end;
	int fd, k;

	if (!dl_iterate_phdr(si_obj_find, &o) || !o.info->dlpi_name || !*o.info->dlpi_name)
		return;
	fd = open(o.info->dlpi_name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	if (!si_pread(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_shentsize != sizeof(ElfW(Shdr)))
		goto out;
	for (k = 0; k < eh.e_shnum; k++) {
		if (!si_pread(fd, &symtab, sizeof(symtab), eh.e_shoff + (uint64_t)k * sizeof(symtab)))
			goto out;
		if (symtab.sh_type == SHT_SYMTAB)
			break;
	}
	if (k == eh.e_shnum || symtab.sh_entsize != sizeof(ElfW(Sym)) ||
	    !si_pread(fd, &strtab, sizeof(strtab),
		      eh.e_shoff + (uint64_t)symtab.sh_link * sizeof(strtab)) ||
	    strtab.sh_type != SHT_STRTAB)
		goto out;
	end = symtab.sh_offset + symtab.sh_size / sizeof(ElfW(Sym)) * sizeof(ElfW(Sym));
	for (at = symtab.sh_offset; at < end; at += sizeof(syms)) {
		size_t n = end - at < sizeof(syms) ? end - at : sizeof(syms), i;

		if (!si_pread(fd, syms, n, at))
			goto out;
		for (i = 0; i < n / sizeof(ElfW(Sym)); i++) {
			const ElfW(Sym) *sym = &syms[i];
			char name[48] = "", bytes[12];
			off_t off;

			if (ELF64_ST_TYPE(sym->st_info) != STT_OBJECT ||
			    (sym->st_size != 4 && sym->st_size != 12) ||
			    sym->st_name >= strtab.sh_size ||
			    pread(fd, name, sizeof(name), (off_t)(strtab.sh_offset + sym->st_name)) <= 0)
				continue;
			name[sizeof(name) - 1] = 0;	/* a longer name is none of ours */
			for (k = 0; k < SI_DB_NAMES; k++) {
				const char *mem = (const char *)(o.info->dlpi_addr + sym->st_value);

				if (strcmp(name, si_db_names[k]) ||
				    sym->st_size != (k == SI_DB_SIZEOF_PTHREAD ? 4 : 12) ||
				    !si_obj_offset(&o, sym->st_value, sym->st_size, &off) ||
				    !si_pread(fd, bytes, sym->st_size, (uint64_t)off) ||
				    memcmp(bytes, mem, sym->st_size))
					continue;
				found[k] = (const uint32_t *)mem;
			}
		}
	}
out:
	close(fd);
}

/* Find glibc's descriptions once: at load (the constructors), else here. */
static void si_db_init(void)
{
	const uint32_t *found[SI_DB_NAMES] = {
		[SI_DB_SIZEOF_PTHREAD] = &_thread_db_sizeof_pthread,
		[SI_DB_SCHEDPOLICY] = _thread_db_pthread_schedpolicy,
		[SI_DB_PRIORITY] = _thread_db_pthread_schedparam_sched_priority,
		[SI_DB_CANCELHANDLING] = _thread_db_pthread_cancelhandling,
		[SI_DB_NEXTEVENT] = _thread_db_pthread_nextevent,
	};
	int k;

	if (__atomic_load_n(&si_db_state, __ATOMIC_ACQUIRE))
		return;
	if (!found[SI_DB_SIZEOF_PTHREAD] && getauxval(AT_BASE) + (uintptr_t)&si_interposing)
		si_db_from_symtab(found);
	/* racing finders find the same */
	for (k = 0; k < SI_DB_NAMES; k++)
		__atomic_store_n(&si_db[k], found[k], __ATOMIC_RELAXED);
	__atomic_store_n(&si_db_state, 1, __ATOMIC_RELEASE);
}

const uint32_t *si_glibc_db(enum si_db_name name)
{
	si_db_init();
	return si_db[name];
}

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
	const uint32_t *d = si_glibc_db(SI_DB_NEXTEVENT);
	const uint32_t *sz = si_glibc_db(SI_DB_SIZEOF_PTHREAD);
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	size_t align = _Alignof(struct _Unwind_Exception), off;
	struct si_block b;

	if (!d || !sz || d[0] != 8 * sizeof(void *) || d[1] != 1)
		return -1;
	off = (d[2] + sizeof(void *) + align - 1) & ~(align - 1);
	off += sizeof(struct _Unwind_Exception);
	if (off + sizeof(struct si_block) > *sz)
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
