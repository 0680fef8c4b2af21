// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo: reading /proc/<pid>/maps, the slow path every other tool
 * takes. One streaming pass through one buffer, on the heap: callers may
 * be threads with small stacks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static int hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	while (s < end) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			break;
		if (x >> 60)
			return -EINVAL;
		x = x << 4 | d;
		s++;
	}
	if (s == *p)
		return -EINVAL;
	*v = x;
	*p = s;
	return 0;
}

/* Skip one space-separated field and the spaces after it. */
static const char *skip_field(const char *s, const char *end)
{
	while (s < end && *s != ' ')
		s++;
	while (s < end && *s == ' ')
		s++;
	return s;
}

/* "start-end perms offset dev inode [name]" */
int si_maps_parse_line(const char *line, size_t len, struct si_maps_line *out)
{
	const char *s = line, *end = line + len;
	int i;

	if (hex(&s, end, &out->start) || s == end || *s++ != '-' ||
	    hex(&s, end, &out->end) || s == end || *s++ != ' ' ||
	    out->start >= out->end || end - s < 4)
		return -EINVAL;
	for (i = 0; i < 4; i++)
		out->perms[i] = s[i];
	out->perms[4] = '\0';
	if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 's' && s[3] != 'p'))
		return -EINVAL;
	s += 4;
	if (s == end || *s != ' ')
		return -EINVAL;
	s++;
	/* offset, dev and inode: present, not needed */
	for (i = 0; i < 3; i++) {
		if (s == end)
			return -EINVAL;
		s = skip_field(s, end);
	}
	out->name = s;
	out->name_len = end - s;
	return 0;
}

bool si_maps_is_gate(const struct si_maps_line *line)
{
	return line->name_len == 10 && !memcmp(line->name, "[vsyscall]", 10);
}

uint64_t si_perms_flags(const char *perms)
{
	return (perms[0] == 'r' ? STACKINFO_VMA_READ : 0) |
	       (perms[1] == 'w' ? STACKINFO_VMA_WRITE : 0) |
	       (perms[2] == 'x' ? STACKINFO_VMA_EXEC : 0) |
	       (perms[3] == 's' ? STACKINFO_VMA_SHARED : 0);
}

/*
 * A line is usually short, but a file's path has no bound (PATH_MAX limits
 * what one call may name, not how deep a tree is): a line longer than the
 * buffer is parsed from its first SI_MAPS_BUF bytes, which hold every field
 * (the name comes last and is cut), and the rest is skipped.
 */
#define SI_MAPS_BUF	65536

static int maps_scan_buf(int fd, char *buf, si_maps_fn fn, void *ctx)
{
	bool skipping = false;
	size_t have = 0;

	for (;;) {
		ssize_t n = read(fd, buf + have, SI_MAPS_BUF - have);
		char *line = buf, *nl;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)	/* a line without newline is no line of maps */
			return have || skipping ? -EINVAL : 0;
		have += n;
		if (skipping) {
			nl = memchr(buf, '\n', have);
			if (!nl) {
				have = 0;
				continue;
			}
			line = nl + 1;
			skipping = false;
		}
		while ((nl = memchr(line, '\n', buf + have - line))) {
			struct si_maps_line l;
			int ret = si_maps_parse_line(line, nl - line, &l);

			if (ret)
				return ret;
			ret = fn(&l, ctx);
			if (ret)
				return ret < 0 ? ret : 0;
			line = nl + 1;
		}
		have = buf + have - line;
		if (have == SI_MAPS_BUF) {
			struct si_maps_line l;
			int ret = si_maps_parse_line(buf, have, &l);

			if (!ret)
				ret = fn(&l, ctx);
			if (ret)
				return ret < 0 ? ret : 0;
			skipping = true;
			have = 0;
			continue;
		}
		memmove(buf, line, have);
	}
}

int si_maps_scan(int fd, si_maps_fn fn, void *ctx)
{
	char *buf = malloc(SI_MAPS_BUF);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = maps_scan_buf(fd, buf, fn, ctx);
	free(buf);
	return ret;
}
