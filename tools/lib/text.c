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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Keys of /proc/stackinfo, in their fixed order. */
enum si_key {
	K_TID, K_TGID, K_MAIN, K_MAP_COUNT, K_START_STACK, K_MAIN_VMA,
	K_MAIN_PREV_END, K_SP, K_SP_VMA, K_SP_PREV_END, K_SP_GUARD,
	K_RLIM_CUR, K_RLIM_MAX, K_GUARD_GAP, K_NR
};

static const char *const si_keys[K_NR] = {
	"tid", "tgid", "main", "map_count", "start_stack", "main_vma",
	"main_prev_end", "sp", "sp_vma", "sp_prev_end", "sp_guard",
	"rlim_stack_cur", "rlim_stack_max", "guard_gap",
};

static int parse_u64(const char *s, int base, __u64 *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || end == s || *end ? -EINVAL : 0;
}

static int parse_range(const char *s, bool want_perms, __u64 *start,
		       __u64 *end, __u64 *flags)
{
	unsigned long long a, b;
	char perms[5] = "", rest;
	int n = sscanf(s, "%llx-%llx %4s%c", &a, &b, perms, &rest);

	if (n != (want_perms ? 3 : 2) || a >= b)
		return -EINVAL;
	*start = a;
	*end = b;
	if (!want_perms)
		return 0;
	if (strlen(perms) != 4 || !strchr("r-", perms[0]) ||
	    !strchr("w-", perms[1]) || !strchr("x-", perms[2]) ||
	    !strchr("sp", perms[3]))
		return -EINVAL;
	*flags = (perms[0] == 'r' ? STACKINFO_VMA_READ : 0) |
		 (perms[1] == 'w' ? STACKINFO_VMA_WRITE : 0) |
		 (perms[2] == 'x' ? STACKINFO_VMA_EXEC : 0) |
		 (perms[3] == 's' ? STACKINFO_VMA_SHARED : 0);
	return 0;
}

static int parse_rlim(const char *s, __u64 *v)
{
	if (!strcmp(s, "unlimited")) {
		*v = STACKINFO_RLIM_INFINITY;
		return 0;
	}
	return parse_u64(s, 10, v);
}

int si_text_parse(const char *text, struct stackinfo_query *q)
{
	char line[256];
	const char *p = text;
	int k;

	memset(q, 0, sizeof(*q));
	for (k = 0; k < K_NR; k++) {
		const char *nl = strchr(p, '\n');
		size_t klen = strlen(si_keys[k]);
		const char *val;
		__u64 v = 0;
		int err = 0;

		if (!nl || (size_t)(nl - p) >= sizeof(line))
			return -EINVAL;
		memcpy(line, p, nl - p);
		line[nl - p] = '\0';
		p = nl + 1;
		if (strncmp(line, si_keys[k], klen) || line[klen] != ' ')
			return -EINVAL;
		val = line + klen + 1;
		if (!strcmp(val, "-")) {
			if (k <= K_MAP_COUNT)
				return -EINVAL;	/* always answered */
			continue;
		}
		switch (k) {
		case K_TID:
		case K_TGID:
		case K_MAIN:
		case K_MAP_COUNT:
			err = parse_u64(val, 10, &v);
			if (!err && v > UINT32_MAX)
				err = -EINVAL;
			if (k == K_TID)
				q->out_tid = v;
			else if (k == K_TGID)
				q->tgid = v;
			else if (k == K_MAIN)
				q->thread_flags |= v == 1 ? STACKINFO_THREAD_MAIN : 0;
			else
				q->map_count = v;
			if (k == K_MAIN && v > 1)
				err = -EINVAL;
			q->valid |= STACKINFO_VALID_THREAD;
			break;
		case K_START_STACK:
			err = parse_u64(val, 16, &q->start_stack);
			q->valid |= STACKINFO_VALID_START_STACK;
			break;
		case K_MAIN_VMA:
			err = parse_range(val, true, &q->main_vma_start,
					  &q->main_vma_end, &q->main_vma_flags);
			q->valid |= STACKINFO_VALID_MAIN_VMA;
			break;
		case K_MAIN_PREV_END:
			err = parse_u64(val, 16, &q->main_prev_end);
			q->valid |= STACKINFO_VALID_MAIN_PREV;
			break;
		case K_SP:
			err = parse_u64(val, 16, &q->sp);
			q->valid |= STACKINFO_VALID_SP;
			break;
		case K_SP_VMA:
			err = parse_range(val, true, &q->sp_vma_start,
					  &q->sp_vma_end, &q->sp_vma_flags);
			q->valid |= STACKINFO_VALID_SP_VMA;
			break;
		case K_SP_PREV_END:
			err = parse_u64(val, 16, &q->sp_prev_end);
			q->valid |= STACKINFO_VALID_SP_PREV;
			break;
		case K_SP_GUARD:
			err = parse_range(val, false, &q->sp_guard_start,
					  &q->sp_guard_end, NULL);
			q->valid |= STACKINFO_VALID_SP_GUARD;
			break;
		case K_RLIM_CUR:
			err = parse_rlim(val, &q->rlim_stack_cur);
			q->valid |= STACKINFO_VALID_RLIMIT;
			break;
		case K_RLIM_MAX:
			err = parse_rlim(val, &q->rlim_stack_max);
			break;
		case K_GUARD_GAP:
			err = parse_u64(val, 10, &q->guard_gap);
			q->valid |= STACKINFO_VALID_GUARD_GAP;
			break;
		}
		if (err)
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
