// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * guile-embed [--time] [--maps N] ENTRIES
 *
 * A C program that embeds Guile and enters it ENTRIES times from its main
 * thread, each entry as a plugin that cannot know whether Guile is up
 * does it: scm_init_guile() (which asks libgc for the thread's stack
 * base: pthread_getattr_np), then an evaluation. Prints the sum of the
 * results; with --time, µs per entry instead. --maps N first adds N
 * single-page mappings.
 */
#include <libguile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	long entries = 0, maps = 0, i, sum = 0, page = sysconf(_SC_PAGESIZE);
	int a, timed = 0;
	double t0;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--time"))
			timed = 1;
		else if (!strcmp(argv[a], "--maps") && a + 1 < argc)
			maps = atol(argv[++a]);
		else
			entries = atol(argv[a]);
	}
	if (entries < 1) {
		fprintf(stderr, "usage: guile-embed [--time] [--maps N] ENTRIES\n");
		return 2;
	}
	if (maps) {
		char *base = mmap(NULL, maps * page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (base == MAP_FAILED)
			return 1;
		for (i = 1; i < maps; i += 2)
			mprotect(base + i * page, page, PROT_READ);
	}
	scm_init_guile();
	t0 = now_us();
	for (i = 0; i < entries; i++) {
		scm_init_guile();
		sum += scm_to_long(scm_call_1(scm_c_public_ref("guile", "1+"),
					      scm_from_long(i)));
	}
	if (timed)
		printf("%.2f\n", (now_us() - t0) / entries);
	else
		printf("%ld entries, sum %ld\n", entries, sum);
	return 0;
}
