// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite stackinfo_main, for module/main.c: the guard gap read from
 * the boot command line.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "../module/module.h"
#include "../module/stackinfo.h"
#include "util.h"

struct gap_case {
	const char *cmdline;
	unsigned long pages;
};

static const struct gap_case gap_cases[] = {
	{ "", 256 },
	{ "console=ttyS0 quiet", 256 },
	{ "stack_guard_gap=512", 512 },
	{ "quiet stack_guard_gap=1 panic=-1", 1 },
	{ "stack_guard_gap=0", 0 },
	{ "stack_guard_gap=", 0 },
	{ "stack_guard_gap=12x", 256 },
	{ "stack_guard_gap=8 stack_guard_gap=16", 16 },
	{ "stack_guard_gap=8 -- stack_guard_gap=16", 8 },
	{ "xstack_guard_gap=8", 256 },
	{ "quiet\tstack_guard_gap=64", 64 },
	{ "stack-guard-gap=32", 32 },
	{ "stack_guard-gap=24", 24 },
	{ "stack_guard_gap=\"48\"", 48 },
	{ "\"stack_guard_gap=40\" quiet", 40 },
	{ "stack_guard_gap", 256 },
	{ "stack_guard_gap=+5", 256 },
	{ "  stack_guard_gap=2  ", 2 },
	{ "stack_guard_gap=18446744073709551617",
	  1 }, /* wraps, as the kernel's */
	{ "init=/bin/sh -- stack_guard_gap=3", 256 },
};

static void gap_desc(const struct gap_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->cmdline);
}

KUNIT_ARRAY_PARAM(gap, gap_cases, gap_desc);

static void guard_gap_cmdline(struct kunit *test)
{
	const struct gap_case *c = test->param_value;
	char *buf = kunit_kzalloc(test, strlen(c->cmdline) + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	strscpy(buf, c->cmdline, strlen(c->cmdline) + 1);
	KUNIT_EXPECT_EQ(test, stackinfo_guard_gap_from_cmdline(buf),
			c->pages << PAGE_SHIFT);
}

static struct kunit_case stackinfo_main_cases[] = {
	KUNIT_CASE_PARAM(guard_gap_cmdline, gap_gen_params),
	{}
};

static struct kunit_suite stackinfo_main_suite = {
	.name = "stackinfo_main",
	.init = stackinfo_case_init,
	.exit = stackinfo_case_exit,
	.test_cases = stackinfo_main_cases,
};

kunit_test_suite(stackinfo_main_suite);
