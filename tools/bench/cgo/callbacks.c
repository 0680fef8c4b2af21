// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * callbacks [N]: a C program calling Go (nop.go, a c-archive) N times a
 * round on its main thread, then N times on a second thread, in 15
 * alternating rounds; prints the median µs per callback of each and
 * their ratio: "go-callback main M other O ratio R". What a cgo callback
 * on the main thread pays for glibc's pthread_getattr_np() there (a parse
 * of /proc/self/maps) against another thread's.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 15

extern void GoNop(void);

static int n = 300;
static pthread_barrier_t turn;
static uint64_t main_ns[ROUNDS], other_ns[ROUNDS];

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

static uint64_t calls(void)
{
	uint64_t t0 = now_ns();

	for (int i = 0; i < n; i++)
		GoNop();
	return now_ns() - t0;
}

static void *other(void *arg)
{
	(void)arg;
	GoNop();	/* the thread's first callback makes its M */
	for (int r = 0; r < ROUNDS; r++) {
		pthread_barrier_wait(&turn);
		other_ns[r] = calls();
		pthread_barrier_wait(&turn);
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	pthread_t th;
	double m, o;

	if (argc > 1)
		n = atoi(argv[1]);
	if (n <= 0) {
		fprintf(stderr, "usage: callbacks [N]\n");
		return 2;
	}
	pthread_barrier_init(&turn, NULL, 2);
	if (pthread_create(&th, NULL, other, NULL))
		return 1;
	GoNop();
	for (int r = 0; r < ROUNDS; r++) {
		main_ns[r] = calls();
		pthread_barrier_wait(&turn);	/* the other thread's round */
		pthread_barrier_wait(&turn);
	}
	pthread_join(th, NULL);
	qsort(main_ns, ROUNDS, sizeof(main_ns[0]), cmp);
	qsort(other_ns, ROUNDS, sizeof(other_ns[0]), cmp);
	m = main_ns[ROUNDS / 2] / 1e3 / n;
	o = other_ns[ROUNDS / 2] / 1e3 / n;
	printf("go-callback main %.2f other %.2f ratio %.2f\n", m, o, m / o);
	return 0;
}
