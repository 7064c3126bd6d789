/*
 * What the C benchmarks time with: a monotonic clock in nanoseconds and
 * the median of a set of samples (sorted in place).
 */
#ifndef DCISTAT_BENCH_TIME_H
#define DCISTAT_BENCH_TIME_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

static inline double
bench_now_nanoseconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

static inline int
bench_compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of `count` samples (at least one), which it sorts. */
static inline double
bench_median(double *samples, size_t count)
{
	qsort(samples, count, sizeof(samples[0]), bench_compare_doubles);
	return samples[count / 2];
}

#endif
