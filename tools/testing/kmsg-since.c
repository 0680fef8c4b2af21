// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kmsg-since [SEQ]: the kernel log by sequence number, as /dev/kmsg gives
 * it, for the guest's splat scan: a record's number never changes, so a
 * ring buffer that wrapped cannot shift what "since" means, and records
 * lost to the wrap are said.
 *   kmsg-since       print the number the next record will get
 *   kmsg-since SEQ   print the message of each record numbered SEQ or
 *                    later, one a line; and "kmsg-since: N records lost"
 *                    (exit 1) when records from SEQ on are gone
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long since = 0, seq, next = 0, lost = 0;
	bool print = argc == 2;
	static char rec[8192];
	char *msg, *end;
	ssize_t n;
	int fd;

	if (argc > 2 || (print && (since = strtoull(argv[1], &end, 10), *end))) {
		fprintf(stderr, "usage: kmsg-since [SEQ]\n");
		return 2;
	}
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		perror("kmsg-since: /dev/kmsg");
		return 2;
	}
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten under us: the gap shows in SEQ */
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			perror("kmsg-since: read");
			return 2;
		}
		rec[n] = '\0';
		/* "PRI,SEQ,USEC,FLAGS[,...];MESSAGE\n[ KEY=VALUE\n]..." */
		if (sscanf(rec, "%*u,%llu,", &seq) != 1 || !(msg = strchr(rec, ';')))
			continue;
		/* records from SEQ on that are not there: the ring wrapped */
		if (print && seq > (next > since ? next : since))
			lost += seq - (next > since ? next : since);
		next = seq + 1;
		if (!print || seq < since)
			continue;
		msg[strcspn(msg, "\n")] = '\0';
		puts(msg + 1);
	}
	close(fd);
	if (!print) {
		printf("%llu\n", next);
		return 0;
	}
	if (lost) {
		printf("kmsg-since: %llu records lost\n", lost);
		return 1;
	}
	return 0;
}
