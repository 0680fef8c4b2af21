// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: the text of /proc/stackinfo and of the in-tree
 * /proc/<pid>/stackinfo ("key value" lines in a fixed order, stackinfo(4)),
 * read back into a struct stackinfo_query. stackinfo_pthread_getattr_np()
 * reads it instead of asking the ioctl, so as to make only the system
 * calls glibc's own function makes (openat, read, close); the project's
 * tests judge the module's text with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Keys of /proc/stackinfo, in their fixed order. */
enum si_key {
	K_TID, K_TGID, K_MAIN, K_MAP_COUNT, K_START_STACK, K_MAIN_VMA,
	K_MAIN_PREV_END, K_SP, K_SP_VMA, K_SP_PREV_END, K_SP_GUARD,
	K_RLIM_CUR, K_RLIM_MAX, K_GUARD_GAP, K_NR
};

/* each with its length */
#define SI_KEY(k) { k, sizeof(k) - 1 }
static const struct {
	const char *name;
	size_t len;
} si_keys[K_NR] = {
	SI_KEY("tid"), SI_KEY("tgid"), SI_KEY("main"), SI_KEY("map_count"),
	SI_KEY("start_stack"), SI_KEY("main_vma"), SI_KEY("main_prev_end"),
	SI_KEY("sp"), SI_KEY("sp_vma"), SI_KEY("sp_prev_end"), SI_KEY("sp_guard"),
	SI_KEY("rlim_stack_cur"), SI_KEY("rlim_stack_max"), SI_KEY("guard_gap"),
};

/*
 * The values are read as the kernel writes them (module/abi.c,
 * stackinfo_format()), by hand: digits only, no sign, prefix or space;
 * the key's line ends right after its value. (sscanf() and strtoull()
 * took 12 700 instructions a text, a third of an interposed call's.)
 * Each parser moves *@s past what it read, or returns -EINVAL.
 */

/* each hex digit's value, plus 1: 0 for any other character */
static const unsigned char si_digit1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* A number in @base (10 or 16): at least a digit, within 64 bits */
static int si_parse_num(const char **s, unsigned int base, __u64 *v)
{
	const char *p = *s;
	unsigned int d;
	__u64 n = 0;

	/* (d: the digit's value; a character that is none wraps to UINT_MAX) */
	for (; (d = si_digit1[(unsigned char)*p] - 1U) < base; p++) {
		if (base == 16 && n >> 60)
			return -EINVAL;
		if (base == 16)
			n = n << 4 | d;
		else if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, d, &n))
			return -EINVAL;
	}
	if (p == *s)
		return -EINVAL;
	*s = p;
	*v = n;
	return 0;
}

/* "START-END", hex, START below END; with @flags, then " rwxp" as maps has it */
static int si_parse_range(const char **s, __u64 *start, __u64 *end, __u64 *flags)
{
	const char *p = *s;

	if (si_parse_num(&p, 16, start) || *p++ != '-' || si_parse_num(&p, 16, end) ||
	    *start >= *end)
		return -EINVAL;
	if (flags) {
		if (p[0] != ' ' || (p[1] != 'r' && p[1] != '-') || (p[2] != 'w' && p[2] != '-') ||
		    (p[3] != 'x' && p[3] != '-') || (p[4] != 's' && p[4] != 'p'))
			return -EINVAL;
		*flags = (p[1] == 'r' ? STACKINFO_VMA_READ : 0) |
			 (p[2] == 'w' ? STACKINFO_VMA_WRITE : 0) |
			 (p[3] == 'x' ? STACKINFO_VMA_EXEC : 0) |
			 (p[4] == 's' ? STACKINFO_VMA_SHARED : 0);
		p += 5;
	}
	*s = p;
	return 0;
}

/* A limit: decimal, or "unlimited" */
static int si_parse_rlim(const char **s, __u64 *v)
{
	if (!strncmp(*s, "unlimited", 9)) {
		*s += 9;
		*v = STACKINFO_RLIM_INFINITY;
		return 0;
	}
	return si_parse_num(s, 10, v);
}

/* A 32-bit decimal */
static int si_parse_u32(const char **s, __u32 *v)
{
	__u64 n;

	if (si_parse_num(s, 10, &n) || n > UINT32_MAX)
		return -EINVAL;
	*v = n;
	return 0;
}

int si_text_parse(const char *text, struct stackinfo_query *q)
{
	const char *p = text;
	__u32 is_main = 0;
	int k;

	memset(q, 0, sizeof(*q));
	for (k = 0; k < K_NR; k++) {
		size_t klen = si_keys[k].len;
		int err = 0;

		if (strncmp(p, si_keys[k].name, klen) || p[klen] != ' ')
			return -EINVAL;
		p += klen + 1;
		if (p[0] == '-' && p[1] == '\n') {
			if (k <= K_MAP_COUNT)
				return -EINVAL;	/* always answered */
			p += 2;
			continue;
		}
		switch (k) {
		case K_TID:
			err = si_parse_u32(&p, &q->out_tid);
			break;
		case K_TGID:
			err = si_parse_u32(&p, &q->tgid);
			break;
		case K_MAIN:
			err = si_parse_u32(&p, &is_main);
			if (is_main > 1)
				err = -EINVAL;
			q->thread_flags |= is_main ? STACKINFO_THREAD_MAIN : 0;
			break;
		case K_MAP_COUNT:
			err = si_parse_u32(&p, &q->map_count);
			q->valid |= STACKINFO_VALID_THREAD;
			break;
		case K_START_STACK:
			err = si_parse_num(&p, 16, &q->start_stack);
			q->valid |= STACKINFO_VALID_START_STACK;
			break;
		case K_MAIN_VMA:
			err = si_parse_range(&p, &q->main_vma_start, &q->main_vma_end,
					     &q->main_vma_flags);
			q->valid |= STACKINFO_VALID_MAIN_VMA;
			break;
		case K_MAIN_PREV_END:
			err = si_parse_num(&p, 16, &q->main_prev_end);
			q->valid |= STACKINFO_VALID_MAIN_PREV;
			break;
		case K_SP:
			err = si_parse_num(&p, 16, &q->sp);
			q->valid |= STACKINFO_VALID_SP;
			break;
		case K_SP_VMA:
			err = si_parse_range(&p, &q->sp_vma_start, &q->sp_vma_end,
					     &q->sp_vma_flags);
			q->valid |= STACKINFO_VALID_SP_VMA;
			break;
		case K_SP_PREV_END:
			err = si_parse_num(&p, 16, &q->sp_prev_end);
			q->valid |= STACKINFO_VALID_SP_PREV;
			break;
		case K_SP_GUARD:
			err = si_parse_range(&p, &q->sp_guard_start, &q->sp_guard_end, NULL);
			q->valid |= STACKINFO_VALID_SP_GUARD;
			break;
		case K_RLIM_CUR:
			err = si_parse_rlim(&p, &q->rlim_stack_cur);
			q->valid |= STACKINFO_VALID_RLIMIT;
			break;
		case K_RLIM_MAX:
			err = si_parse_rlim(&p, &q->rlim_stack_max);
			break;
		case K_GUARD_GAP:
			err = si_parse_num(&p, 10, &q->guard_gap);
			q->valid |= STACKINFO_VALID_GUARD_GAP;
			break;
		}
		if (err || *p++ != '\n')
			return -EINVAL;
	}
	return *p ? -EINVAL : 0;	/* nothing after the last key */
}

/*
 * The text of the file @fd, read from where it is (a fresh open: its
 * start) with read() alone, parsed into @q: 0 or -errno. One read() gives
 * the whole text (the file makes it at once, far shorter than the
 * buffer): once that parses as a whole text, the read that would say the
 * end of the file is not made; a text cut short is read on to its end.
 */
int si_text_query(int fd, struct stackinfo_query *q)
{
	char buf[2048];
	ssize_t n, more;

	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && !si_text_parse(buf, q))
		return 0;
	more = n ? si_read_fd(fd, buf + n, sizeof(buf) - n) : 0;
	if (more < 0)
		return more;
	n += more;
	if ((size_t)n == sizeof(buf) - 1)
		return -E2BIG;	/* longer than any text of the ABI */
	return si_text_parse(buf, q);
}
