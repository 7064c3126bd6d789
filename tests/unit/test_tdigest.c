/*
 * Unit tests for the t-digest (src/format/tdigest.c): the accuracy its
 * header states against an exact sort, for one digest and for digests
 * merged as the suppliers provider merges thread regions; exact extremes;
 * and a digest from an untrusted writer (NaN, negative weights, counts past
 * the arrays) merged without harm.
 */
#include "format/tdigest.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_runner.h"

#define SAMPLES 1000000u

/* A fixed generator (xorshift64*), so that a failure repeats. */
static uint64_t generator_state = UINT64_C(0x9e3779b97f4a7c15);

static double
uniform(void)
{
	generator_state ^= generator_state >> 12;
	generator_state ^= generator_state << 25;
	generator_state ^= generator_state >> 27;
	return (double)((generator_state * UINT64_C(2685821657736338717)) >>
	                11) /
	       9007199254740992.0;
}

/* Log-normal, mu 0, sigma 1 (Box-Muller). */
static double
log_normal(void)
{
	double u1 = uniform(), u2 = uniform();
	if (u1 <= 0.0)
		u1 = 1e-300;
	return exp(
	    sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2));
}

static int
compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The exact quantile as the digest defines it: the sample at rank q*n. */
static double
exact_quantile(const double *sorted, size_t count, double q)
{
	size_t rank = (size_t)(q * (double)count);
	if (rank >= count)
		rank = count - 1;
	return sorted[rank];
}

static void
assert_within(double estimate, double exact, double relative, const char *what)
{
	double error = fabs(estimate - exact) / fabs(exact);
	ck_assert_msg(error <= relative, "%s: estimate %g, exact %g, error %g",
	    what, estimate, exact, error);
}

static double *
log_normal_samples(size_t count)
{
	double *samples = malloc(count * sizeof *samples);
	ck_assert_ptr_nonnull(samples);
	for (size_t i = 0; i < count; i++)
		samples[i] = log_normal();
	return samples;
}

START_TEST(test_accuracy_one_digest)
{
	double *samples = log_normal_samples(SAMPLES);
	struct dci_tdigest *digest = malloc(sizeof *digest);
	double low = INFINITY, high = -INFINITY;

	dci_tdigest_init(digest);
	for (size_t i = 0; i < SAMPLES; i++) {
		dci_tdigest_add(digest, samples[i]);
		low = fmin(low, samples[i]);
		high = fmax(high, samples[i]);
	}
	qsort(samples, SAMPLES, sizeof *samples, compare_doubles);
	ck_assert(dci_tdigest_count(digest) == (double)SAMPLES);
	assert_within(dci_tdigest_quantile(digest, 0.5),
	    exact_quantile(samples, SAMPLES, 0.5), 0.01, "p50");
	assert_within(dci_tdigest_quantile(digest, 0.9),
	    exact_quantile(samples, SAMPLES, 0.9), 0.01, "p90");
	assert_within(dci_tdigest_quantile(digest, 0.99),
	    exact_quantile(samples, SAMPLES, 0.99), 0.01, "p99");
	assert_within(dci_tdigest_quantile(digest, 0.999),
	    exact_quantile(samples, SAMPLES, 0.999), 0.05, "p99.9");
	/* The extremes are exact. */
	ck_assert(dci_tdigest_quantile(digest, 0.0) == low);
	ck_assert(dci_tdigest_quantile(digest, 1.0) == high);
	ck_assert(digest->centroid_count <= DCI_TDIGEST_CENTROIDS);
	free(digest);
	free(samples);
}
END_TEST

/* Eight writers, as eight thread regions, each with its share of the
 * samples (different shares: the first writer sees the small values),
 * merged by a reader into an empty digest. */
START_TEST(test_accuracy_merged)
{
	enum { WRITERS = 8 };
	double *samples = log_normal_samples(SAMPLES);
	struct dci_tdigest *writers = calloc(WRITERS, sizeof *writers);
	struct dci_tdigest *reader = malloc(sizeof *reader);
	double *sorted = malloc(SAMPLES * sizeof *sorted);

	memcpy(sorted, samples, SAMPLES * sizeof *sorted);
	qsort(sorted, SAMPLES, sizeof *sorted, compare_doubles);
	/* Writer w gets the samples at ranks w/8 .. (w+1)/8 in a shuffled
	 * order: skewed shares are the hard case for a merge. */
	for (size_t i = 0; i < SAMPLES; i++) {
		size_t writer = (size_t)(samples[i] >=
		                         exact_quantile(sorted, SAMPLES, 0.5)) *
		                    4 +
		                i % 4;
		dci_tdigest_add(&writers[writer], samples[i]);
	}
	dci_tdigest_init(reader);
	for (size_t w = 0; w < WRITERS; w++)
		dci_tdigest_merge(reader, &writers[w]);
	ck_assert(dci_tdigest_count(reader) == (double)SAMPLES);
	assert_within(dci_tdigest_quantile(reader, 0.5),
	    exact_quantile(sorted, SAMPLES, 0.5), 0.01, "merged p50");
	assert_within(dci_tdigest_quantile(reader, 0.9),
	    exact_quantile(sorted, SAMPLES, 0.9), 0.01, "merged p90");
	assert_within(dci_tdigest_quantile(reader, 0.99),
	    exact_quantile(sorted, SAMPLES, 0.99), 0.01, "merged p99");
	ck_assert(dci_tdigest_quantile(reader, 0.0) == sorted[0]);
	ck_assert(dci_tdigest_quantile(reader, 1.0) == sorted[SAMPLES - 1]);
	free(sorted);
	free(reader);
	free(writers);
	free(samples);
}
END_TEST

/* Few samples: every quantile is one of them, and the order is kept. */
START_TEST(test_small_counts)
{
	struct dci_tdigest digest;

	dci_tdigest_init(&digest);
	ck_assert(isnan(dci_tdigest_quantile(&digest, 0.5)));
	dci_tdigest_add(&digest, 7.0);
	ck_assert(dci_tdigest_quantile(&digest, 0.5) == 7.0);
	dci_tdigest_add(&digest, NAN);
	dci_tdigest_add(&digest, INFINITY);
	ck_assert(dci_tdigest_count(&digest) == 1.0);
	for (int i = 1; i <= 100; i++)
		dci_tdigest_add(&digest, (double)i);
	ck_assert(dci_tdigest_quantile(&digest, 0.0) == 1.0);
	ck_assert(dci_tdigest_quantile(&digest, 1.0) == 100.0);
	double p50 = dci_tdigest_quantile(&digest, 0.5);
	ck_assert_msg(p50 >= 49.0 && p50 <= 52.0, "p50 %g", p50);
	ck_assert(dci_tdigest_quantile(&digest, 0.9) >=
	          dci_tdigest_quantile(&digest, 0.5));
}
END_TEST

/* A digest as a hostile segment writer could leave it. */
START_TEST(test_untrusted_source)
{
	struct dci_tdigest *digest = malloc(sizeof *digest);
	struct dci_tdigest *hostile = malloc(sizeof *hostile);

	dci_tdigest_init(digest);
	for (int i = 1; i <= 1000; i++)
		dci_tdigest_add(digest, (double)i);
	memset(hostile, 0xff, sizeof *hostile); /* NaN everywhere */
	hostile->centroid_count = UINT64_MAX;
	hostile->buffered = UINT64_MAX;
	dci_tdigest_merge(digest, hostile);
	ck_assert(dci_tdigest_count(digest) == 1000.0);

	dci_tdigest_init(hostile);
	hostile->centroid_count = 3;
	hostile->mean[0] = 5.0;
	hostile->weight[0] = -4.0;
	hostile->mean[1] = INFINITY;
	hostile->weight[1] = 1.0;
	hostile->mean[2] = 500.0;
	hostile->weight[2] = 2.0;
	hostile->minimum = NAN;
	dci_tdigest_merge(digest, hostile);
	ck_assert(dci_tdigest_count(digest) == 1002.0);
	ck_assert(dci_tdigest_quantile(digest, 0.0) == 1.0);
	ck_assert(dci_tdigest_quantile(digest, 1.0) == 1000.0);
	double p50 = dci_tdigest_quantile(digest, 0.5);
	ck_assert_msg(p50 > 480.0 && p50 < 520.0, "p50 %g", p50);
	free(hostile);
	free(digest);
}
END_TEST

static Suite *
tdigest_suite(void)
{
	Suite *suite = suite_create("tdigest");
	TCase *tcase = tcase_create("tdigest");

	tcase_set_timeout(tcase, 60);
	tcase_add_test(tcase, test_accuracy_one_digest);
	tcase_add_test(tcase, test_accuracy_merged);
	tcase_add_test(tcase, test_small_counts);
	tcase_add_test(tcase, test_untrusted_source);
	suite_add_tcase(suite, tcase);
	return suite;
}

int
main(void)
{
	return unit_run_suite(tdigest_suite());
}
