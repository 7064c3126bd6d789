/*
 * bench/tdigest: the t-digest's update cost and accuracy (issue 29's
 * targets: <= 40 ns a sample on one thread, pinned; p99 within 1 % of an exact
 * sort on 10^6 log-normal samples). Prints one line per figure:
 *   ns_per_sample N        median over ROUNDS rounds of SAMPLES updates
 *   error pQ RELATIVE      |estimate - exact| / exact, one digest
 *   merged_error pQ REL    the same for 8 digests merged into one
 */
#define _POSIX_C_SOURCE 200809L

#include "format/tdigest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.h"

static uint64_t state = UINT64_C(0x2545f4914f6cdd1d);

static double
uniform(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return (double)((state * UINT64_C(2685821657736338717)) >> 11) /
	       9007199254740992.0;
}

static double
log_normal(void)
{
	double u1 = uniform(), u2 = uniform();
	if (u1 <= 0.0)
		u1 = 1e-300;
	return exp(
	    sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2));
}

static double
exact(const double *sorted, size_t count, double q)
{
	size_t rank = (size_t)(q * (double)count);
	return sorted[rank < count ? rank : count - 1];
}

int
main(int argc, char **argv)
{
	size_t samples = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	size_t rounds = argc > 2 ? strtoul(argv[2], NULL, 10) : 7;
	static const double quantiles[] = {0.5, 0.9, 0.99, 0.999};
	double *values = malloc(samples * sizeof *values);
	double *sorted = malloc(samples * sizeof *sorted);
	double *times = malloc(rounds * sizeof *times);
	struct dci_tdigest *digest = malloc(sizeof *digest);
	struct dci_tdigest *parts = calloc(8, sizeof *parts);
	double sink = 0.0;

	if (values == NULL || sorted == NULL || times == NULL ||
	    digest == NULL || parts == NULL || samples == 0 || rounds == 0)
		return 1;
	for (size_t i = 0; i < samples; i++)
		values[i] = log_normal();
	memcpy(sorted, values, samples * sizeof *sorted);
	qsort(sorted, samples, sizeof *sorted, bench_compare_doubles);
	for (size_t r = 0; r < rounds; r++) {
		dci_tdigest_init(digest);
		double start = bench_now_nanoseconds();
		for (size_t i = 0; i < samples; i++)
			dci_tdigest_add(digest, values[i]);
		times[r] = (bench_now_nanoseconds() - start) / (double)samples;
		sink += digest->count;
	}
	printf("ns_per_sample %.1f\n", bench_median(times, rounds));
	for (size_t k = 0; k < sizeof quantiles / sizeof quantiles[0]; k++) {
		double q = quantiles[k], e = exact(sorted, samples, q);
		printf("error p%g %.5f\n", q * 100,
		    fabs(dci_tdigest_quantile(digest, q) - e) / e);
	}
	for (size_t i = 0; i < samples; i++)
		dci_tdigest_add(&parts[i % 8], values[i]);
	dci_tdigest_init(digest);
	for (size_t p = 0; p < 8; p++)
		dci_tdigest_merge(digest, &parts[p]);
	for (size_t k = 0; k < sizeof quantiles / sizeof quantiles[0]; k++) {
		double q = quantiles[k], e = exact(sorted, samples, q);
		printf("merged_error p%g %.5f\n", q * 100,
		    fabs(dci_tdigest_quantile(digest, q) - e) / e);
	}
	fprintf(stderr, "(%g)\n", sink);
	return 0;
}
