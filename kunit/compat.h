/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: the differences of KUnit's API between our debug kernels
 * (5.10, 6.1, 6.12, 7.2) that the suites meet, bridged here as
 * module/compat/compat.h bridges the module's (util.h includes this, after
 * <kunit/test.h>). A macro a kernel lacks is tested with #ifndef; what no
 * macro tells is probed by Kbuild in the kernel's include/kunit/
 * (STACKINFO_KUNIT_*). Not here: util.c's own way to an mm before
 * kunit_vm_mmap().
 *
 * 5.10's KUnit (include/kunit/test.h of linux-source-5.10) runs what the
 * suites ask of it, less three things, which kunit/compat.c does there:
 * one kunit_test_suites() a module, no parameterised cases and no skip.
 * Line numbers below are 5.10.223's.
 */
#ifndef _STACKINFO_KUNIT_COMPAT_H
#define _STACKINFO_KUNIT_COMPAT_H

#include <kunit/test.h>
#include <linux/compiler.h>
#include <linux/kernel.h>

/* The resource API has a header of its own since; 5.10's is in test.h. */
#ifndef STACKINFO_KUNIT_NO_RESOURCE_H
#include <kunit/resource.h>
#endif

/* KUnit helpers 6.1 lacks. */
#ifndef KUNIT_CASE_SLOW
#define KUNIT_CASE_SLOW(name) KUNIT_CASE(name)
#endif
#ifndef KUNIT_EXPECT_MEMEQ
#define KUNIT_EXPECT_MEMEQ(test, left, right, size) \
	KUNIT_EXPECT_EQ(test, memcmp(left, right, size), 0)
#endif

/* 5.10 has no NULL assertions (include/kunit/test.h: none). */
#ifndef KUNIT_ASSERT_NOT_NULL
#define KUNIT_ASSERT_NOT_NULL(test, ptr) KUNIT_ASSERT_TRUE(test, (ptr) != NULL)
#endif
#ifndef KUNIT_EXPECT_NULL
#define KUNIT_EXPECT_NULL(test, ptr) KUNIT_EXPECT_TRUE(test, (ptr) == NULL)
#endif
#ifndef KUNIT_EXPECT_NOT_NULL
#define KUNIT_EXPECT_NOT_NULL(test, ptr) KUNIT_EXPECT_TRUE(test, (ptr) != NULL)
#endif

#ifdef STACKINFO_KUNIT_TYPECHECK
/*
 * 5.10's binary assertions insist on one type on both sides
 * (include/kunit/test.h:748, __typecheck(__left, __right), a warning when
 * they differ); 6.1's compare in the two types as C does (its
 * include/kunit/test.h:567-597), which the suites rely on: a u64 field
 * against an unsigned long address. The same assertion, without the type
 * check (Kbuild: STACKINFO_KUNIT_TYPECHECK where test.h has it).
 */
#undef KUNIT_BASE_BINARY_ASSERTION
#define KUNIT_BASE_BINARY_ASSERTION(test, assert_class, ASSERT_CLASS_INIT,  \
				    assert_type, left, op, right, fmt, ...) \
	do {                                                                \
		struct kunit *__test = (test);                              \
		typeof(left) __left = (left);                               \
		typeof(right) __right = (right);                            \
		KUNIT_ASSERTION(__test, __left op __right, assert_class,    \
				ASSERT_CLASS_INIT(__test, assert_type, #op, \
						  #left, __left, #right,    \
						  __right),                 \
				fmt, ##__VA_ARGS__);                        \
	} while (0)
#endif

#ifdef STACKINFO_KUNIT_MODULE_INIT
/*
 * 5.10's kunit_test_suites() is the module's module_init() and
 * module_exit() (include/kunit/test.h:271-291), so a module has one, and
 * ours has a suite a file. There a file's kunit_test_suite() puts its
 * suite in a section of the module's own (kunit/compat.lds, Kbuild), as
 * 5.10 does for built-in suites, and kunit/compat.c's init runs them all.
 */
extern struct kunit_suite *const stackinfo_kunit_suites_start[];
extern struct kunit_suite *const stackinfo_kunit_suites_end[];

#undef kunit_test_suite
#define kunit_test_suite(suite)                                 \
	static struct kunit_suite *const __UNIQUE_ID(stackinfo) \
		__used __section(".stackinfo_kunit_suites") = &(suite)
#endif

#ifndef KUNIT_CASE_PARAM
/*
 * 5.10 has no parameterised cases: no KUNIT_CASE_PARAM(), no
 * KUNIT_ARRAY_PARAM(), no param_value in struct kunit (include/kunit/
 * test.h:141-148, 204-226). Here a parameterised case's entry runs
 * stackinfo_kunit_run_params() (kunit/compat.c), which finds the case
 * function and its generator around the case's name, which KUnit hands
 * on as test->name (lib/kunit/test.c:334, kunit_init_test()), and runs
 * the case once a parameter, each in a kthread of its own with the
 * suite's init and exit, as later KUnit does (6.1's lib/kunit/test.c:
 * 552-574): a failed assertion ends
 * that parameter's run, not the others'. The case is ok when no
 * parameter failed, skipped when all skipped. The parameter is in the
 * run's test->priv, which 5.10's struct kunit leaves to the test.
 */
#define STACKINFO_KUNIT_OWN_PARAMS
#define KUNIT_PARAM_DESC_SIZE 128
#define param_value priv

struct stackinfo_kunit_param_case {
	void (*run)(struct kunit *test);
	const void *(*gen)(const void *prev, char *desc);
	char name[KUNIT_PARAM_DESC_SIZE];
};

void stackinfo_kunit_run_params(struct kunit *test);

/* A record of the case, static (C11 6.5.2.5p5): its name is the case's. */
#define STACKINFO_KUNIT_PARAM_CASE(test_name, gen_params) \
	((const struct stackinfo_kunit_param_case[]){     \
		{ .run = test_name, .gen = gen_params, .name = #test_name } })

#define KUNIT_CASE_PARAM(test_name, gen_params)                                 \
	{                                                                       \
		.run_case = stackinfo_kunit_run_params,                         \
		.name = STACKINFO_KUNIT_PARAM_CASE(test_name, gen_params)->name \
	}

/* NAME_gen_params(): each element of ARRAY in turn, DESC its description */
#define KUNIT_ARRAY_PARAM(name, array, desc)                                \
	static const void *name##_gen_params(const void *prev, char *text)  \
	{                                                                   \
		const char *first = (const char *)(array);                  \
		const char *next =                                          \
			prev ? (const char *)prev + sizeof((array)[0]) :    \
			       first;                                       \
		if (next >= first + sizeof(array) + __must_be_array(array)) \
			return NULL;                                        \
		desc((const void *)next, text);                             \
		return next;                                                \
	}
#endif

#ifndef kunit_skip
/*
 * 5.10 has no skip: a case is "ok" or "not ok" (lib/kunit/test.c:64-90,
 * kunit_print_ok_not_ok()). Here kunit_skip() makes the case's result
 * line say "ok N - NAME # SKIP REASON", KTAP's skip (kunit/compat.c), and
 * ends the case as a failed assertion does, kunit_try_catch_throw()
 * (which objtool knows does not return, tools/objtool/check.c:181). The
 * case is reported skipped, with its reason, never passed.
 */
#define STACKINFO_KUNIT_OWN_SKIP
__printf(2, 3) void stackinfo_kunit_skip(struct kunit *test, const char *fmt,
					 ...);
#define kunit_skip(test, fmt, ...)                                \
	do {                                                      \
		struct kunit *__test = (test);                    \
		stackinfo_kunit_skip(__test, fmt, ##__VA_ARGS__); \
		kunit_try_catch_throw(&__test->try_catch);        \
	} while (0)
#endif

#endif /* _STACKINFO_KUNIT_COMPAT_H */
