// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Who /proc/stackinfo's text is about when one open fd is read by two
 * threads (stackinfo(4)): a read at offset 0 makes the text for the thread
 * that reads; a read that continues at a later offset continues that text,
 * whoever reads on; a pread at 0 makes it anew for its reader.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static int fd;
static char rest[4096], fresh[4096];
static pid_t other_tid;

static void *other(void *arg)
{
	ssize_t n;

	(void)arg;
	other_tid = t_gettid();
	n = read(fd, rest, sizeof(rest) - 1);
	rest[n > 0 ? n : 0] = '\0';
	n = pread(fd, fresh, sizeof(fresh) - 1, 0);
	fresh[n > 0 ? n : 0] = '\0';
	return NULL;
}

/* The tid the text names: its first line is "tid N". */
static long text_tid(const char *text)
{
	return strncmp(text, "tid ", 4) ? -1 : strtol(text + 4, NULL, 10);
}

int main(void)
{
	char head[8], whole[8192];
	pthread_t th;
	ssize_t n;

	fd = open(STACKINFO_PROC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(STACKINFO_PROC_PATH);
		return T_SKIP;
	}
	/* the first bytes, "tid N..." cut short, by the main thread */
	n = read(fd, head, sizeof(head));
	CHECK(n == (ssize_t)sizeof(head), "first read: %zd", n);
	pthread_create(&th, NULL, other, NULL);
	pthread_join(th, NULL);

	/* the continuation is the rest of the main thread's text */
	snprintf(whole, sizeof(whole), "%.*s%s", (int)sizeof(head), head, rest);
	CHECK_EQ(text_tid(whole), t_gettid());
	CHECK(strstr(whole, "\ntgid ") && strstr(whole, "\nguard_gap "),
	      "head and continuation are not one text: %.60s", whole);
	/* a pread at 0 by the main thread: its own again */
	n = pread(fd, whole, sizeof(whole) - 1, 0);
	CHECK(n > (ssize_t)sizeof(head), "pread at 0: %zd", n);
	whole[n > 0 ? n : 0] = '\0';
	CHECK_EQ(text_tid(whole), t_gettid());
	/* its pread at 0 made the text anew, about itself */
	CHECK_EQ(text_tid(fresh), other_tid);
	close(fd);
	return t_result();
}
