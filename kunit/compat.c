// SPDX-License-Identifier: GPL-2.0
/*
 * What kunit/compat.h's bridges of 5.10's KUnit do at run time (on later
 * kernels nothing here is built): the module's init and exit, which run
 * every suite of the module; the runner of a parameterised case; and
 * kunit_skip(). Line numbers are linux-source-5.10's (5.10.223).
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"

#if !defined(STACKINFO_KUNIT_MODULE_INIT) &&    \
	(defined(STACKINFO_KUNIT_OWN_PARAMS) || \
	 defined(STACKINFO_KUNIT_OWN_SKIP))
#error "kunit_skip() and the parameter runner find cases in the suites this file runs"
#endif

#ifdef STACKINFO_KUNIT_MODULE_INIT
/* The module's suites, NULL-terminated, as __kunit_test_suites_init() takes */
static struct kunit_suite **suites;

/* The case whose name is @name (the very pointer), and its suite. */
static struct kunit_case *case_named(const char *name,
				     struct kunit_suite **suite)
{
	struct kunit_case *c;
	unsigned int i;

	for (i = 0; suites[i]; i++) {
		kunit_suite_for_each_test_case(suites[i], c) {
			if (c->name == name) {
				*suite = suites[i];
				return c;
			}
		}
	}
	return NULL;
}

/*
 * Cases whose result line says they were skipped: their name with the
 * KTAP directive, which KUnit prints after the case (lib/kunit/test.c:
 * 348, kunit_print_ok_not_ok() with test_case->name), and the name the
 * case table had, back at exit.
 */
struct skipped_case {
	struct list_head node;
	struct kunit_case *c;
	const char *name;
	char line[];
};

static LIST_HEAD(skipped_cases);
static DEFINE_MUTEX(skipped_lock);

/* Make @test's case say it was skipped, for @why; false if it cannot. */
static bool case_skipped(struct kunit *test, const char *why)
{
	struct kunit_suite *suite;
	struct kunit_case *c = case_named(test->name, &suite);
	struct skipped_case *s;
	size_t len;

	if (!c)
		return false;
	len = strlen(c->name) + strlen(" # SKIP ") + strlen(why) + 1;
	s = kmalloc(struct_size(s, line, len), GFP_KERNEL);
	if (!s)
		return false;
	snprintf(s->line, len, "%s # SKIP %s", c->name, why);
	s->c = c;
	s->name = c->name;
	c->name = s->line;
	mutex_lock(&skipped_lock);
	list_add(&s->node, &skipped_cases);
	mutex_unlock(&skipped_lock);
	return true;
}

static int __init stackinfo_kunit_init(void)
{
	size_t i, n = stackinfo_kunit_suites_end - stackinfo_kunit_suites_start;

	suites = kcalloc(n + 1, sizeof(*suites), GFP_KERNEL);
	if (!suites)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		suites[i] = stackinfo_kunit_suites_start[i];
	return __kunit_test_suites_init(suites);
}
module_init(stackinfo_kunit_init);

static void __exit stackinfo_kunit_exit(void)
{
	struct skipped_case *s, *next;

	__kunit_test_suites_exit(suites);
	list_for_each_entry_safe(s, next, &skipped_cases, node) {
		s->c->name = s->name;
		kfree(s);
	}
	kfree(suites);
}
module_exit(stackinfo_kunit_exit);
#endif /* STACKINFO_KUNIT_MODULE_INIT */

#ifdef STACKINFO_KUNIT_OWN_PARAMS
/* One parameter's run of a parameterised case (compat.h). */
struct param_run {
	struct kunit test;
	struct kunit_suite *suite;
	const struct stackinfo_kunit_param_case *pc;
	char *skipped; /* kunit_skip()'s reason */
};

static void param_try(void *data);

/* The run @test is, if it is one parameter's. */
static struct param_run *param_run_of(struct kunit *test)
{
	if (test->try_catch.try != param_try)
		return NULL;
	return container_of(test, struct param_run, test);
}

/* As lib/kunit/test.c:254-261, kunit_run_case_cleanup(). */
static void param_cleanup(struct param_run *r)
{
	if (r->suite->exit)
		r->suite->exit(&r->test);
	kunit_cleanup(&r->test);
}

/* As lib/kunit/test.c:269-287, kunit_try_run_case(), in a new kthread. */
static void param_try(void *data)
{
	struct param_run *r = data;
	int err = 0;

#if IS_ENABLED(CONFIG_KASAN)
	/* a KASAN report fails the run it is in (mm/kasan/report.c:488) */
	current->kunit_test = &r->test;
#endif
	if (r->suite->init)
		err = r->suite->init(&r->test);
	if (err) {
		kunit_err(&r->test, "failed to initialize: %d\n", err);
		kunit_set_failure(&r->test);
	} else {
		r->pc->run(&r->test);
	}
	param_cleanup(r);
}

/* As kunit_catch_run_case() (lib/kunit/test.c:290-321). */
static void param_catch(void *data)
{
	struct param_run *r = data;
	int err = kunit_try_catch_get_result(&r->test.try_catch);

	if (err) {
		/* timed out or never ran: nothing known to clean up */
		kunit_err(&r->test, "the run did not finish: %d\n", err);
		kunit_set_failure(&r->test);
		return;
	}
	/* ended by an assertion or kunit_skip() */
	param_cleanup(r);
}

void stackinfo_kunit_run_params(struct kunit *test)
{
	const struct stackinfo_kunit_param_case *pc;
	unsigned int n = 0, failed = 0, skipped = 0;
	char desc[KUNIT_PARAM_DESC_SIZE] = "";
	struct kunit_suite *suite;
	struct param_run *r;
	const void *param;
	char *why = NULL;

	/* the case's name is in its record (compat.h) */
	pc = container_of(test->name, struct stackinfo_kunit_param_case,
			  name[0]);
	if (!case_named(test->name, &suite)) {
		KUNIT_FAIL(test, "%s is in no suite of this module", pc->name);
		return;
	}
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	for (param = pc->gen(NULL, desc); param; param = pc->gen(param, desc)) {
		memset(r, 0, sizeof(*r));
		/* a log of its own would be emptied, the case's overrun */
		kunit_init_test(&r->test, test->name, NULL);
		r->test.priv = (void *)param;
		r->test.try_catch.test = &r->test;
		r->test.try_catch.try = param_try;
		r->test.try_catch.catch = param_catch;
		r->suite = suite;
		r->pc = pc;
		kunit_try_catch_run(&r->test.try_catch, r);
#if IS_ENABLED(CONFIG_KASAN)
		/* param_catch()'s kunit_cleanup() ran in this thread */
		current->kunit_test = test;
#endif
		n++;
		if (!r->test.success)
			failed++;
		else if (r->skipped)
			skipped++;
		pr_info("\t# %s: %s %u - %s%s%s\n", pc->name,
			r->test.success ? "ok" : "not ok", n, desc,
			r->test.success && r->skipped ? " # SKIP " : "",
			r->test.success && r->skipped ? r->skipped : "");
		if (!why && r->skipped)
			why = r->skipped;
		else
			kfree(r->skipped);
		desc[0] = '\0';
	}
	if (failed) {
		kunit_err(test, "%u of %u parameters failed\n", failed, n);
		kunit_set_failure(test);
	} else if (skipped == n &&
		   !case_skipped(test, why ?: "no parameters")) {
		kunit_err(test,
			  "every parameter skipped, and it cannot say so\n");
		kunit_set_failure(test);
	}
	kfree(why);
}
#endif /* STACKINFO_KUNIT_OWN_PARAMS */

#ifdef STACKINFO_KUNIT_OWN_SKIP
void stackinfo_kunit_skip(struct kunit *test, const char *fmt, ...)
{
	struct param_run *r = param_run_of(test);
	va_list args;
	char *why;

	va_start(args, fmt);
	why = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	if (why && r) {
		/* one parameter's: the case's runner counts it */
		r->skipped = why;
	} else {
		/* never a pass that did not run: a skip not said fails */
		if (!why || !case_skipped(test, why)) {
			kunit_err(test, "skipped, and cannot say so\n");
			kunit_set_failure(test);
		}
		kfree(why);
	}
}
#endif /* STACKINFO_KUNIT_OWN_SKIP */
