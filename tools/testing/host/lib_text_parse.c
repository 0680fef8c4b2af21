// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The test helpers that judge the module, judged on known input: the
 * /proc/<pid>/maps parser and lookup, and the /proc/stackinfo text parser
 * (every key, "-" values, and what it must refuse, a text cut short among it).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char maps_text[] =
	"55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 1234    /usr/bin/cat\n"
	"55d0c0a02000-55d0c0a07000 r-xp 00002000 fe:01 1234    /usr/bin/cat\n"
	"7f0000000000-7f0000001000 ---p 00000000 00:00 0 \n"
	"7f0000001000-7f0000801000 rw-p 00000000 00:00 0 \n"
	"7ffd10000000-7ffd10021000 rw-p 00000000 00:00 0                          [stack]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static const char text_full[] =
	"tid 42\n"
	"tgid 40\n"
	"main 0\n"
	"map_count 5\n"
	"start_stack 7ffd10020a10\n"
	"main_vma 7ffd10000000-7ffd10021000 rw-p\n"
	"main_prev_end 7f0000801000\n"
	"sp 7f00007ffe80\n"
	"sp_vma 7f0000001000-7f0000801000 rw-p\n"
	"sp_prev_end 7f0000001000\n"
	"sp_guard 7f0000000000-7f0000001000\n"
	"rlim_stack_cur 8388608\n"
	"rlim_stack_max unlimited\n"
	"guard_gap 1048576\n";

static void check_maps(void)
{
	const struct maps_entry *e, *prev;
	struct maps m = { 0 };

	CHECK_EQ(maps_parse(&m, maps_text), 0);
	CHECK_EQ(m.n, 6);
	CHECK_EQ(maps_vma_count(&m), 5);
	CHECK(!strcmp(m.v[4].name, "[stack]"), "name %s", m.v[4].name);
	CHECK(!strcmp(m.v[0].name, "/usr/bin/cat"), "name %s", m.v[0].name);
	CHECK(!strcmp(m.v[2].perms, "---p"), "perms %s", m.v[2].perms);

	e = maps_find(&m, 0x7ffd10020a10, &prev);
	CHECK(e == &m.v[4] && prev == &m.v[3], "stack lookup");
	e = maps_find(&m, 0x7f0000001000, &prev);	/* first byte */
	CHECK(e == &m.v[3] && prev == &m.v[2], "first byte");
	e = maps_find(&m, 0x7f0000000fff, &prev);	/* last byte of guard */
	CHECK(e == &m.v[2] && prev == &m.v[1], "last byte");
	e = maps_find(&m, 0x7f0000801000, &prev);	/* in a gap */
	CHECK(!e && prev == &m.v[3], "gap");
	e = maps_find(&m, 0x1000, &prev);		/* below everything */
	CHECK(!e && !prev, "below all");

	CHECK_EQ(maps_parse(&m, "garbage\n"), -EINVAL);
	CHECK_EQ(maps_parse(&m, "2000-1000 rw-p 0 00:00 0\n"), -EINVAL);
	CHECK_EQ(maps_parse(&m, "1000-3000 rw-p 0 00:00 0\n2000-4000 rw-p 0 00:00 0\n"),
		 -EINVAL);
	maps_free(&m);
}

/*
 * The text with @key's value replaced by @val, parsed: si_text_parse()'s
 * return, and the query in @q.
 */
static int with_value(const char *key, const char *val, struct stackinfo_query *q)
{
	char buf[1024], k[32];
	const char *at, *nl;

	snprintf(k, sizeof(k), "\n%s ", key);
	at = strcmp(key, "tid") ? strstr(text_full, k) + 1 : text_full;
	nl = strchr(at, '\n');
	snprintf(buf, sizeof(buf), "%.*s%s %s%s", (int)(at - text_full), text_full, key, val, nl);
	return si_text_parse(buf, q);
}

/* Values as the kernel writes them at their widest, and what it never writes. */
static void check_values(void)
{
	static const struct {
		const char *key, *val;
	} refused[] = {
		/* beyond the field: 33 and 65 bits */
		{ "tid", "4294967296" }, { "map_count", "99999999999" },
		{ "start_stack", "10000000000000000" }, { "guard_gap", "18446744073709551616" },
		{ "sp_guard", "1-10000000000000000" },
		/* what strtoull() and sscanf() took: signs, prefixes, spaces */
		{ "tid", "+42" }, { "tid", " 42" }, { "tid", "42 " }, { "sp", "-1" },
		{ "sp", "0x7f00007ffe80" }, { "sp", "7f00007ffe80 " },
		{ "sp_vma", "7f0000001000 -7f0000801000 rw-p" },
		{ "sp_vma", "7f0000001000-7f0000801000  rw-p" },
		{ "sp_vma", "7f0000001000-7f0000801000 rw-p " },
		{ "sp_vma", "7f0000001000-7f0000801000" }, { "sp_guard", "1000-2000 ---p" },
		{ "sp_guard", "2000-1000" }, { "sp_guard", "1000-1000" },
		{ "rlim_stack_cur", "unlimitedx" }, { "rlim_stack_cur", "" }, { "main", "2" },
		{ "main", "01x" },
	};
	struct stackinfo_query q;
	size_t i;

	CHECK_EQ(with_value("tid", "4294967295", &q), 0);
	CHECK_EQ(q.out_tid, 4294967295u);
	CHECK_EQ(with_value("guard_gap", "18446744073709551615", &q), 0);
	CHECK_EQ(q.guard_gap, UINT64_MAX);
	CHECK_EQ(with_value("start_stack", "ffffffffffffffff", &q), 0);
	CHECK_EQ(q.start_stack, UINT64_MAX);
	/* leading zeros, as "%08llx" pads; capitals, which the kernel never writes */
	CHECK_EQ(with_value("sp", "0000000000001000", &q), 0);
	CHECK_EQ(q.sp, 0x1000);
	CHECK_EQ(with_value("sp", "7F00007FFE80", &q), 0);
	CHECK_EQ(q.sp, 0x7f00007ffe80);
	CHECK_EQ(with_value("sp_guard", "00001000-fffffffffffff000", &q), 0);
	CHECK_EQ(q.sp_guard_end, 0xfffffffffffff000);
	CHECK_EQ(with_value("main_vma", "1000-2000 r-xs", &q), 0);
	CHECK_EQ(q.main_vma_flags, STACKINFO_VMA_READ | STACKINFO_VMA_EXEC | STACKINFO_VMA_SHARED);
	CHECK_EQ(with_value("main", "1", &q), 0);
	CHECK_EQ(q.thread_flags, STACKINFO_THREAD_MAIN);
	/* leading zeros past 16 hex digits and past 20 decimal ones */
	CHECK_EQ(with_value("sp", "00000000000000001000", &q), 0);
	CHECK_EQ(q.sp, 0x1000);
	CHECK_EQ(with_value("guard_gap", "000000000000000000042", &q), 0);
	CHECK_EQ(q.guard_gap, 42);
	CHECK_EQ(with_value("guard_gap", "0018446744073709551615", &q), 0);
	CHECK_EQ(q.guard_gap, UINT64_MAX);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		CHECK(with_value(refused[i].key, refused[i].val, &q) == -EINVAL, "%s \"%s\" taken",
		      refused[i].key, refused[i].val);
	/* the last line's newline, and nothing but the text */
	CHECK_EQ(si_text_parse("tid 42\n", &q), -EINVAL);
	CHECK_EQ(si_text_parse("", &q), -EINVAL);
	{
		char buf[1024];

		snprintf(buf, sizeof(buf), "%s", text_full);
		buf[strlen(buf) - 1] = '\0';
		CHECK_EQ(si_text_parse(buf, &q), -EINVAL);
	}
}

/*
 * Every text cut short, each in a heap block of its own length: refused,
 * and (under ASan) nothing read past its NUL.
 */
static void check_cut(void)
{
	size_t len, full = strlen(text_full);
	struct stackinfo_query q;
	char *cut;

	for (len = 0; len < full; len++) {
		cut = malloc(len + 1);
		CHECK(cut, "malloc");
		if (!cut)
			return;
		memcpy(cut, text_full, len);
		cut[len] = '\0';
		CHECK(si_text_parse(cut, &q) == -EINVAL, "the text cut at %zu taken", len);
		free(cut);
	}
}

static void check_text(void)
{
	struct stackinfo_query q;
	char buf[1024], *p, *next;

	CHECK_EQ(si_text_parse(text_full, &q), 0);
	CHECK_EQ(q.valid, STACKINFO_VALID_THREAD | STACKINFO_VALID_START_STACK |
		 STACKINFO_VALID_MAIN_VMA | STACKINFO_VALID_MAIN_PREV |
		 STACKINFO_VALID_SP | STACKINFO_VALID_SP_VMA |
		 STACKINFO_VALID_SP_PREV | STACKINFO_VALID_SP_GUARD |
		 STACKINFO_VALID_RLIMIT | STACKINFO_VALID_GUARD_GAP);
	CHECK_EQ(q.out_tid, 42);
	CHECK_EQ(q.tgid, 40);
	CHECK_EQ(q.thread_flags, 0);
	CHECK_EQ(q.map_count, 5);
	CHECK_EQ(q.start_stack, 0x7ffd10020a10);
	CHECK_EQ(q.main_vma_start, 0x7ffd10000000);
	CHECK_EQ(q.main_vma_end, 0x7ffd10021000);
	CHECK_EQ(q.main_vma_flags, STACKINFO_VMA_READ | STACKINFO_VMA_WRITE);
	CHECK_EQ(q.main_prev_end, 0x7f0000801000);
	CHECK_EQ(q.sp, 0x7f00007ffe80);
	CHECK_EQ(q.sp_vma_start, 0x7f0000001000);
	CHECK_EQ(q.sp_prev_end, 0x7f0000001000);
	CHECK_EQ(q.sp_guard_start, 0x7f0000000000);
	CHECK_EQ(q.sp_guard_end, 0x7f0000001000);
	CHECK_EQ(q.rlim_stack_cur, 8388608);
	CHECK_EQ(q.rlim_stack_max, STACKINFO_RLIM_INFINITY);
	CHECK_EQ(q.guard_gap, 1048576);

	/* "-" clears the valid bit of that key's group */
	snprintf(buf, sizeof(buf), "%s", text_full);
	p = strstr(buf, "sp_guard ");
	next = strchr(p, '\n') + 1;
	memmove(p + 11, next, strlen(next) + 1);
	memcpy(p, "sp_guard -\n", 11);
	CHECK_EQ(si_text_parse(buf, &q), 0);
	CHECK(!(q.valid & STACKINFO_VALID_SP_GUARD), "guard still valid");

	/* refused: a missing key, keys swapped, junk, a trailing line, bad perms */
	CHECK_EQ(si_text_parse(strchr(text_full, '\n') + 1, &q), -EINVAL);
	CHECK_EQ(si_text_parse("tgid 40\ntid 42\n", &q), -EINVAL);
	snprintf(buf, sizeof(buf), "%sextra 1\n", text_full);
	CHECK_EQ(si_text_parse(buf, &q), -EINVAL);
	snprintf(buf, sizeof(buf), "%s", text_full);
	memcpy(strstr(buf, "rw-p"), "rw-q", 4);
	CHECK_EQ(si_text_parse(buf, &q), -EINVAL);
	snprintf(buf, sizeof(buf), "%s", text_full);
	memcpy(strstr(buf, "tid 42"), "tid 4x", 6);
	CHECK_EQ(si_text_parse(buf, &q), -EINVAL);
	snprintf(buf, sizeof(buf), "%s", text_full);
	memcpy(strstr(buf, "map_count 5"), "map_count -", 11);
	CHECK_EQ(si_text_parse(buf, &q), -EINVAL);
}

int main(void)
{
	check_maps();
	check_text();
	check_values();
	check_cut();
	return t_result();
}
