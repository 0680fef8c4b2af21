/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What stackinfo-bench and stackinfo-profile both need: the clock, the
 * median of a round's figures, and one pthread_getattr_np()-shaped call.
 */
#ifndef STACKINFO_BENCHUTIL_H
#define STACKINFO_BENCHUTIL_H

#include <pthread.h>

/* the most figures bench_median() takes */
#define BENCH_MAX_FIGURES 64

typedef int (*bench_getattr_fn)(pthread_t, pthread_attr_t *);

/* CLOCK_MONOTONIC in µs */
double bench_now_us(void);
/* the median of @n (1..BENCH_MAX_FIGURES) figures; @in is left as it was */
double bench_median(const double *in, int n);
/* @fn (glibc's, the library's, an interposer's) on @th, its attr destroyed: @fn's result */
int bench_getattr(bench_getattr_fn fn, pthread_t th);

#endif /* STACKINFO_BENCHUTIL_H */
