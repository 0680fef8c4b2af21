/* SPDX-License-Identifier: GPL-2.0 */
/* What the stackinfo KUnit suites share (util.c). */
#ifndef _STACKINFO_KUNIT_UTIL_H
#define _STACKINFO_KUNIT_UTIL_H

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/mman.h>

/* KUnit's differences between the kernels (kunit_alloc_resource() too) */
#include "compat.h"

/* Where the cases lay out their VMAs: far from anything the mm starts with. */
#define BASE BIT(32)
#define SZ PAGE_SIZE
#define MAP_TEST (MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE)

/*
 * Map [addr, addr + len) in the case's own mm, which the first call gives
 * the case's kthread; the case fails unless it lands at addr.
 */
void map_at(struct kunit *test, unsigned long addr, unsigned long len,
	    unsigned long prot, unsigned long flags);

struct cred;
struct stackinfo_query;

/* The text an answered query reads as (abi.c's), NUL-terminated. */
const char *stackinfo_text(struct kunit *test, const struct stackinfo_query *q);

/*
 * Credentials of this kthread's as uid @uid (every id) with no capability
 * at all, for override_creds(); the caller puts them.
 */
struct cred *stackinfo_uid_creds(struct kunit *test, uid_t uid);

struct mm_struct;
struct task_struct;

/*
 * init (pid 1), referenced, and its mm into *@mm (mmget()): the case
 * fails unless it has both. The caller puts both.
 */
struct task_struct *stackinfo_get_init(struct kunit *test,
				       struct mm_struct **mm);

/* Every suite's init and exit: the root shortcut on while a case runs. */
int stackinfo_case_init(struct kunit *test);
void stackinfo_case_exit(struct kunit *test);

#endif /* _STACKINFO_KUNIT_UTIL_H */
