// SPDX-License-Identifier: LGPL-2.1-or-later
/* stackinfo-bench's and stackinfo-profile's shared helpers: benchutil.h */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "benchutil.h"

double bench_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

double bench_median(const double *in, int n)
{
	double v[BENCH_MAX_FIGURES];
	int i, j;

	memcpy(v, in, n * sizeof(*v));
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_getattr(bench_getattr_fn fn, pthread_t th)
{
	pthread_attr_t attr;
	int err = fn(th, &attr);

	if (!err)
		pthread_attr_destroy(&attr);
	return err;
}
