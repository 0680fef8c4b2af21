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

/*
 * The values are read as the kernel writes them (module/abi.c,
 * stackinfo_format()), by hand: digits only, no sign, prefix or space,
 * each line ending right after its value. The keys come in their fixed
 * order, so the text is read straight through, each key compared at its
 * length known at build time: no search, no table of keys. (sscanf() and
 * strtoull() took 12 700 instructions a text, a third of an interposed
 * call's; a loop over a table of keys with strncmp() and one number
 * parser for both bases 2 560 natively, this 2 420.) Each reader moves t->p past
 * what it read and its line's newline, or returns -EINVAL.
 */
struct si_text {
	const char *p, *end;	/* what is left; *end is the text's NUL */
};

/* each hex digit's value, plus 1: 0 for any other character, NUL included */
static const unsigned char si_digit1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* the @len bytes of @key (a key and its space), moved past; @len known at build time */
static inline __attribute__((always_inline)) bool si_key(struct si_text *t, const char *key,
							size_t len)
{
	if ((size_t)(t->end - t->p) < len || memcmp(t->p, key, len))
		return false;
	t->p += len;
	return true;
}
#define SI_KEY(t, key) si_key(t, key " ", sizeof(key))

/* "-" and its newline: a value there is no answer for (true), moved past */
static bool si_absent(struct si_text *t)
{
	if (t->p[0] != '-' || t->p[1] != '\n')
		return false;
	t->p += 2;
	return true;
}

/* the line's end */
static int si_eol(struct si_text *t)
{
	return *t->p++ == '\n' ? 0 : -EINVAL;
}

/*
 * Hex, at least a digit, within 64 bits: 16 digits cannot overflow, so
 * only a longer number (leading zeros, which the kernel never writes
 * beyond 16 digits) is checked digit by digit. (Eight digits at a time in
 * a u64 cost more than this loop: the 12-digit addresses of the text
 * take one whole word and a part of the next.)
 */
static int si_hex(struct si_text *t, __u64 *v)
{
	const unsigned char *p = (const unsigned char *)t->p;
	unsigned int d, i;
	__u64 n = 0;

	for (i = 0; i < 16 && (d = si_digit1[p[i]] - 1U) < 16; i++)
		n = n << 4 | d;
	if (!i)
		return -EINVAL;
	for (; (d = si_digit1[p[i]] - 1U) < 16; i++) {
		if (n >> 60)
			return -EINVAL;
		n = n << 4 | d;
	}
	t->p += i;
	*v = n;
	return 0;
}

/* Decimal, at least a digit, within 64 bits: checked past 19 digits */
static int si_dec(struct si_text *t, __u64 *v)
{
	const unsigned char *p = (const unsigned char *)t->p;
	unsigned int d, i;
	__u64 n = 0;

	for (i = 0; i < 19 && (d = p[i] - '0') < 10; i++)
		n = n * 10 + d;
	if (!i)
		return -EINVAL;
	for (; (d = p[i] - '0') < 10; i++)
		if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, d, &n))
			return -EINVAL;
	t->p += i;
	*v = n;
	return 0;
}

/* a 32-bit decimal line, always answered */
static int si_u32_line(struct si_text *t, __u32 *v)
{
	__u64 n;

	if (si_dec(t, &n) || n > UINT32_MAX)
		return -EINVAL;
	*v = n;
	return si_eol(t);
}

/* a hex line, or "-": @bit in *@valid for a value */
static int si_hex_line(struct si_text *t, __u64 *v, __u64 *valid, __u64 bit)
{
	if (si_absent(t))
		return 0;
	*valid |= bit;
	return si_hex(t, v) ?: si_eol(t);
}

/* a decimal line, or "-"; @rlim: "unlimited" for a limit's infinity */
static int si_dec_line(struct si_text *t, __u64 *v, bool rlim, __u64 *valid, __u64 bit)
{
	if (si_absent(t))
		return 0;
	*valid |= bit;
	if (rlim && si_key(t, "unlimited\n", 10)) {
		*v = STACKINFO_RLIM_INFINITY;
		return 0;
	}
	return si_dec(t, v) ?: si_eol(t);
}

/*
 * A "START-END" line, hex, START below END, or "-": @bit in *@valid for
 * a range; with @flags, then " rwxp" as maps has it.
 */
static int si_range_line(struct si_text *t, __u64 *start, __u64 *end, __u64 *flags,
			 __u64 *valid, __u64 bit)
{
	const char *p;

	if (si_absent(t))
		return 0;
	*valid |= bit;
	if (si_hex(t, start) || *t->p++ != '-' || si_hex(t, end) || *start >= *end)
		return -EINVAL;
	if (flags) {
		p = t->p;
		if (p[0] != ' ' || (p[1] != 'r' && p[1] != '-') || (p[2] != 'w' && p[2] != '-') ||
		    (p[3] != 'x' && p[3] != '-') || (p[4] != 's' && p[4] != 'p'))
			return -EINVAL;
		*flags = (p[1] == 'r' ? STACKINFO_VMA_READ : 0) |
			 (p[2] == 'w' ? STACKINFO_VMA_WRITE : 0) |
			 (p[3] == 'x' ? STACKINFO_VMA_EXEC : 0) |
			 (p[4] == 's' ? STACKINFO_VMA_SHARED : 0);
		t->p += 5;
	}
	return si_eol(t);
}

int si_text_parse(const char *text, struct stackinfo_query *q)
{
	struct si_text t = { text, text + strlen(text) };
	__u32 is_main;
	__u64 unused = 0;

	memset(q, 0, sizeof(*q));
	/* the thread's lines are always answered: no "-" */
	if (!SI_KEY(&t, "tid") || si_u32_line(&t, &q->out_tid) ||
	    !SI_KEY(&t, "tgid") || si_u32_line(&t, &q->tgid) ||
	    !SI_KEY(&t, "main") || si_u32_line(&t, &is_main) || is_main > 1 ||
	    !SI_KEY(&t, "map_count") || si_u32_line(&t, &q->map_count))
		return -EINVAL;
	q->thread_flags = is_main ? STACKINFO_THREAD_MAIN : 0;
	q->valid = STACKINFO_VALID_THREAD;
	if (!SI_KEY(&t, "start_stack") ||
	    si_hex_line(&t, &q->start_stack, &q->valid, STACKINFO_VALID_START_STACK) ||
	    !SI_KEY(&t, "main_vma") ||
	    si_range_line(&t, &q->main_vma_start, &q->main_vma_end, &q->main_vma_flags,
			  &q->valid, STACKINFO_VALID_MAIN_VMA) ||
	    !SI_KEY(&t, "main_prev_end") ||
	    si_hex_line(&t, &q->main_prev_end, &q->valid, STACKINFO_VALID_MAIN_PREV) ||
	    !SI_KEY(&t, "sp") || si_hex_line(&t, &q->sp, &q->valid, STACKINFO_VALID_SP) ||
	    !SI_KEY(&t, "sp_vma") ||
	    si_range_line(&t, &q->sp_vma_start, &q->sp_vma_end, &q->sp_vma_flags, &q->valid,
			  STACKINFO_VALID_SP_VMA) ||
	    !SI_KEY(&t, "sp_prev_end") ||
	    si_hex_line(&t, &q->sp_prev_end, &q->valid, STACKINFO_VALID_SP_PREV) ||
	    /* a guard is PROT_NONE by definition: no permissions */
	    !SI_KEY(&t, "sp_guard") ||
	    si_range_line(&t, &q->sp_guard_start, &q->sp_guard_end, NULL, &q->valid,
			  STACKINFO_VALID_SP_GUARD) ||
	    /* both limits or neither: the valid bit is the current one's */
	    !SI_KEY(&t, "rlim_stack_cur") ||
	    si_dec_line(&t, &q->rlim_stack_cur, true, &q->valid, STACKINFO_VALID_RLIMIT) ||
	    !SI_KEY(&t, "rlim_stack_max") ||
	    si_dec_line(&t, &q->rlim_stack_max, true, &unused, 1) ||
	    !SI_KEY(&t, "guard_gap") ||
	    si_dec_line(&t, &q->guard_gap, false, &q->valid, STACKINFO_VALID_GUARD_GAP))
		return -EINVAL;
	return t.p == t.end ? 0 : -EINVAL;	/* nothing after the last line */
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
