/*
 * Unit tests for the statsd provider's series table
 * (src/providers/statsd/statsd_series.c): what each type adds up to (exact
 * counter sums with sample rates, gauge deltas, timer samples, set
 * members per interval), and every bound: series in all and per source,
 * set members, lines per packet, refused values.
 */
#include "providers/statsd/statsd_series.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_runner.h"

static const struct statsd_limits default_limits = {
    .max_series = 100,
    .max_timer_series = 100,
    .max_series_per_source = 50,
    .max_set_members = 1000,
    .max_metrics_per_packet = 1000,
};

static void
feed(struct statsd_table *table, uint64_t source, const char *text)
{
	statsd_table_datagram(table, source, text, strlen(text));
}

static struct statsd_series *
find(struct statsd_table *table, enum statsd_kind kind, const char *key)
{
	for (size_t i = 0; i < statsd_table_series_count(table); i++) {
		struct statsd_series *series = statsd_table_series(table, i);
		if (series->kind == kind && strcmp(series->key, key) == 0)
			return series;
	}
	return NULL;
}

START_TEST(test_values)
{
	struct statsd_table *table = statsd_table_create(&default_limits);
	struct statsd_series *series;

	ck_assert_ptr_nonnull(table);
	for (int i = 0; i < 10; i++)
		feed(table, 1, "hits:1|c|@0.1\nhits:2|c");
	series = find(table, STATSD_KIND_COUNTER, "hits");
	ck_assert_ptr_nonnull(series);
	ck_assert_uint_eq(series->total, 10 * 10 + 10 * 2);

	feed(table, 1, "temp:10|g\ntemp:+5|g\ntemp:-3|g\ntemp:-7.25|g");
	series = find(table, STATSD_KIND_GAUGE, "temp");
	ck_assert(series->gauge == 4.75);
	feed(table, 1, "temp:3|g");
	ck_assert(series->gauge == 3.0);

	feed(table, 1, "lat:10|ms\nlat:20|h\nlat:30|d|@0.5");
	series = find(table, STATSD_KIND_TIMER, "lat");
	ck_assert_uint_eq(series->samples, 4); /* 1 + 1 + 1/0.5 */
	ck_assert(series->sum == 60.0);
	ck_assert(dci_tdigest_count(series->digest) == 3.0);
	ck_assert(dci_tdigest_quantile(series->digest, 1.0) == 30.0);

	/* One name, two types: two series. */
	feed(table, 1, "hits:4|g");
	ck_assert_ptr_nonnull(find(table, STATSD_KIND_GAUGE, "hits"));
	ck_assert_uint_eq(find(table, STATSD_KIND_COUNTER, "hits")->total, 120);

	feed(table, 1, "users:a|s\nusers:b|s\nusers:a|s");
	series = find(table, STATSD_KIND_SET, "users");
	statsd_table_end_interval(table);
	ck_assert_uint_eq(series->distinct_last, 2);
	feed(table, 1, "users:c|s");
	statsd_table_end_interval(table);
	ck_assert_uint_eq(series->distinct_last, 1);
	statsd_table_end_interval(table);
	ck_assert_uint_eq(series->distinct_last, 0);

	/* Negative counter increments and timer samples are refused. */
	feed(table, 1, "hits:-1|c\nlat:-5|ms");
	ck_assert_uint_eq(statsd_table_counts(table)->refused_values, 2);
	ck_assert_uint_eq(find(table, STATSD_KIND_COUNTER, "hits")->total, 120);
	statsd_table_destroy(table);
}
END_TEST

START_TEST(test_series_bounds)
{
	struct statsd_limits limits = default_limits;
	struct statsd_table *table;
	char line[64];

	limits.max_series = 10;
	limits.max_series_per_source = 4;
	table = statsd_table_create(&limits);
	/* Source 1 makes 4 series, the fifth is refused. */
	for (int i = 0; i < 5; i++) {
		snprintf(line, sizeof line, "one.%d:1|c", i);
		feed(table, 1, line);
	}
	ck_assert_uint_eq(statsd_table_series_count(table), 4);
	ck_assert_uint_eq(statsd_table_counts(table)->source_refused, 1);
	/* An existing series takes updates from any source. */
	feed(table, 2, "one.0:1|c");
	ck_assert_uint_eq(find(table, STATSD_KIND_COUNTER, "one.0")->total, 2);
	/* Sources 2 and 3 fill the table to 10; then nobody gets more. */
	for (int i = 0; i < 4; i++) {
		snprintf(line, sizeof line, "two.%d:1|c", i);
		feed(table, 2, line);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(line, sizeof line, "three.%d:1|c", i);
		feed(table, 3, line);
	}
	ck_assert_uint_eq(statsd_table_series_count(table), 10);
	ck_assert_uint_eq(statsd_table_counts(table)->series_refused, 1);
	feed(table, 4, "four:1|g");
	ck_assert_uint_eq(statsd_table_series_count(table), 10);
	ck_assert_uint_eq(statsd_table_counts(table)->series_refused, 2);
	statsd_table_destroy(table);

	/* Timers, which hold a digest each, have a bound of their own. */
	limits = default_limits;
	limits.max_timer_series = 2;
	table = statsd_table_create(&limits);
	feed(table, 1, "t1:1|ms\nt2:1|h\nt3:1|d\nt1:2|ms\ng:1|g");
	ck_assert_uint_eq(statsd_table_series_count(table), 3);
	ck_assert_uint_eq(statsd_table_counts(table)->series_refused, 1);
	ck_assert_uint_eq(find(table, STATSD_KIND_TIMER, "t1")->samples, 2);
	statsd_table_destroy(table);
}
END_TEST

START_TEST(test_packet_and_set_bounds)
{
	struct statsd_limits limits = default_limits;
	struct statsd_table *table;
	char datagram[4096], sample[64];
	size_t at = 0;

	limits.max_metrics_per_packet = 5;
	limits.max_set_members = 3;
	table = statsd_table_create(&limits);
	for (int i = 0; i < 8; i++)
		at += (size_t)snprintf(
		    datagram + at, sizeof datagram - at, "n:1|c\n");
	feed(table, 1, datagram);
	ck_assert_uint_eq(find(table, STATSD_KIND_COUNTER, "n")->total, 5);
	ck_assert_uint_eq(statsd_table_counts(table)->over_packet_limit, 3);

	feed(table, 1, "s:a|s\ns:b|s\ns:c|s\ns:d|s\ns:a|s");
	statsd_table_end_interval(table);
	ck_assert_uint_eq(find(table, STATSD_KIND_SET, "s")->distinct_last, 3);
	ck_assert_uint_eq(statsd_table_counts(table)->members_refused, 1);

	/* Malformed lines and unknown types are counted, the first kept. */
	ck_assert(!statsd_table_take_sample(table, sample, sizeof sample));
	feed(table, 1, "bad\nx:1|zz\nok:1|c");
	ck_assert_uint_eq(statsd_table_counts(table)->malformed, 1);
	ck_assert_uint_eq(statsd_table_counts(table)->unknown_type, 1);
	ck_assert(statsd_table_take_sample(table, sample, sizeof sample));
	ck_assert_str_eq(sample, "bad");
	ck_assert(!statsd_table_take_sample(table, sample, sizeof sample));
	statsd_table_oversize(table);
	ck_assert_uint_eq(statsd_table_counts(table)->oversize_packets, 1);
	statsd_table_destroy(table);
}
END_TEST

/* A series' id depends on its type and key alone, so it is the same in
 * every run (tests/integration/statsd.sh computes it too). */
START_TEST(test_stable_ids)
{
	struct statsd_table *first = statsd_table_create(&default_limits);
	struct statsd_table *second = statsd_table_create(&default_limits);

	feed(first, 1, "a:1|c|#y,x");
	feed(second, 9, "b:1|c\na:1|c|#x,y");
	ck_assert_uint_eq(find(first, STATSD_KIND_COUNTER, "a #x,y")->id,
	    find(second, STATSD_KIND_COUNTER, "a #x,y")->id);
	ck_assert_uint_ne(find(second, STATSD_KIND_COUNTER, "a #x,y")->id,
	    find(second, STATSD_KIND_COUNTER, "b")->id);
	statsd_table_destroy(first);
	statsd_table_destroy(second);
}
END_TEST

static Suite *
statsd_series_suite(void)
{
	Suite *suite = suite_create("statsd_series");
	TCase *tcase = tcase_create("statsd_series");

	tcase_add_test(tcase, test_values);
	tcase_add_test(tcase, test_series_bounds);
	tcase_add_test(tcase, test_packet_and_set_bounds);
	tcase_add_test(tcase, test_stable_ids);
	suite_add_tcase(suite, tcase);
	return suite;
}

int
main(void)
{
	return unit_run_suite(statsd_series_suite());
}
