/*
 * Unit tests for the statsd line parser (src/providers/statsd/
 * statsd_parse.c): every type, sample rates, gauge deltas, DogStatsD tags
 * and the series key they make, the bounds, and malformed lines.
 */
#include "providers/statsd/statsd_parse.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_runner.h"

static enum statsd_parse_result
parse(const char *line, struct statsd_metric *metric)
{
	return statsd_parse_line(line, strlen(line), metric);
}

static void
assert_name(const struct statsd_metric *metric, const char *name)
{
	ck_assert_uint_eq(metric->name_length, strlen(name));
	ck_assert(memcmp(metric->name, name, metric->name_length) == 0);
}

START_TEST(test_every_type)
{
	struct statsd_metric m;

	ck_assert_int_eq(parse("hits:3|c", &m), STATSD_PARSE_OK);
	assert_name(&m, "hits");
	ck_assert_int_eq(m.type, STATSD_COUNTER);
	ck_assert(m.value == 3.0 && m.sample_rate == 1.0 && m.tags == NULL);

	ck_assert_int_eq(parse("temp:21.5|g", &m), STATSD_PARSE_OK);
	ck_assert_int_eq(m.type, STATSD_GAUGE);
	ck_assert(m.value == 21.5 && !m.gauge_delta);

	ck_assert_int_eq(parse("temp:-4|g", &m), STATSD_PARSE_OK);
	ck_assert(m.value == -4.0 && m.gauge_delta);
	ck_assert_int_eq(parse("temp:+4|g", &m), STATSD_PARSE_OK);
	ck_assert(m.value == 4.0 && m.gauge_delta);

	ck_assert_int_eq(parse("db.query:320|ms", &m), STATSD_PARSE_OK);
	ck_assert_int_eq(m.type, STATSD_TIMER);
	ck_assert(m.value == 320.0);
	ck_assert_int_eq(parse("size:1.5e3|h", &m), STATSD_PARSE_OK);
	ck_assert_int_eq(m.type, STATSD_HISTOGRAM);
	ck_assert(m.value == 1500.0);
	ck_assert_int_eq(parse("lat:.25|d", &m), STATSD_PARSE_OK);
	ck_assert_int_eq(m.type, STATSD_DISTRIBUTION);
	ck_assert(m.value == 0.25);

	ck_assert_int_eq(parse("users:alice@example|s", &m), STATSD_PARSE_OK);
	ck_assert_int_eq(m.type, STATSD_SET);
	ck_assert_uint_eq(m.member_length, strlen("alice@example"));
	ck_assert(memcmp(m.member, "alice@example", m.member_length) == 0);
}
END_TEST

START_TEST(test_rate_and_tags)
{
	struct statsd_metric m;
	char key[STATSD_KEY_SIZE], other[STATSD_KEY_SIZE];

	ck_assert_int_eq(parse("hits:1|c|@0.1", &m), STATSD_PARSE_OK);
	ck_assert(m.sample_rate == 0.1);
	ck_assert_int_eq(parse("hits:1|c|@0.5|#env:prod,host:a,env:prod", &m),
	    STATSD_PARSE_OK);
	ck_assert(m.sample_rate == 0.5);
	ck_assert_uint_eq(m.tag_count, 3);
	ck_assert_uint_eq(statsd_series_key(&m, key), strlen(key));
	ck_assert_str_eq(key, "hits #env:prod,host:a");

	/* Tag order does not make another series; a container id section
	 * is ignored. */
	ck_assert_int_eq(
	    parse("hits:1|c|#host:a,env:prod|c:abc", &m), STATSD_PARSE_OK);
	statsd_series_key(&m, other);
	ck_assert_str_eq(key, other);

	ck_assert_int_eq(parse("hits:1|c|#solo", &m), STATSD_PARSE_OK);
	statsd_series_key(&m, key);
	ck_assert_str_eq(key, "hits #solo");
	ck_assert_int_eq(parse("hits:1|c", &m), STATSD_PARSE_OK);
	statsd_series_key(&m, key);
	ck_assert_str_eq(key, "hits");
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const malformed[] = {
	    "nocolon|c",
	    ":1|c",
	    "name:1",
	    "name:|c",
	    "name:1|",
	    "name:abc|c",
	    "name:1.|c|",
	    "name:1e|c",
	    "name:--1|c",
	    "name:1|c|@0",
	    "name:1|c|@1.5",
	    "name:1|c|@-0.5",
	    "name:1|c|@x",
	    "name:1|c|#",
	    "name:1|c|#a,,b",
	    "name:1|c|@0.5|@0.5",
	    "name:1|c|#a|#b",
	    "na|me:1|c",
	    "na\x01me:1|c",
	    "name:1|c||",
	    "name:|s",
	    "name:1|9",
	    "name:1e999|g",
	    "name:nan|g",
	    "name:inf|ms",
	};
	struct statsd_metric m;

	for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++)
		ck_assert_msg(parse(malformed[i], &m) == STATSD_PARSE_MALFORMED,
		    "\"%s\" accepted", malformed[i]);
	ck_assert_int_eq(parse("name:1|x", &m), STATSD_PARSE_UNKNOWN_TYPE);
	ck_assert_int_eq(parse("name:1|kv", &m), STATSD_PARSE_UNKNOWN_TYPE);
	ck_assert_int_eq(parse("", &m), STATSD_PARSE_EMPTY);
}
END_TEST

START_TEST(test_bounds)
{
	char line[4096], key[STATSD_KEY_SIZE];
	struct statsd_metric m;
	size_t at;

	/* A name of STATSD_NAME_MAX bytes passes, one more does not. */
	memset(line, 'n', STATSD_NAME_MAX);
	strcpy(line + STATSD_NAME_MAX, ":1|c");
	ck_assert_int_eq(parse(line, &m), STATSD_PARSE_OK);
	memset(line, 'n', STATSD_NAME_MAX + 1);
	strcpy(line + STATSD_NAME_MAX + 1, ":1|c");
	ck_assert_int_eq(parse(line, &m), STATSD_PARSE_MALFORMED);

	/* STATSD_TAG_COUNT_MAX tags pass, one more does not. */
	at = (size_t)sprintf(line, "t:1|c|#");
	for (unsigned i = 0; i < STATSD_TAG_COUNT_MAX; i++)
		at += (size_t)sprintf(line + at, "%sk%u", i ? "," : "", i);
	ck_assert_int_eq(parse(line, &m), STATSD_PARSE_OK);
	ck_assert_uint_eq(m.tag_count, STATSD_TAG_COUNT_MAX);
	sprintf(line + at, ",one_more");
	ck_assert_int_eq(parse(line, &m), STATSD_PARSE_MALFORMED);

	/* The longest tag section the parser takes fits the key. */
	at = (size_t)sprintf(line, "t:1|c|#");
	memset(line + at, 'v', STATSD_TAGS_MAX);
	line[at + STATSD_TAGS_MAX] = '\0';
	ck_assert_int_eq(parse(line, &m), STATSD_PARSE_OK);
	ck_assert_uint_lt(statsd_series_key(&m, key), STATSD_KEY_SIZE);
	line[at + STATSD_TAGS_MAX] = 'v';
	line[at + STATSD_TAGS_MAX + 1] = '\0';
	ck_assert_int_eq(parse(line, &m), STATSD_PARSE_MALFORMED);

	/* A set member is bounded too. */
	at = (size_t)sprintf(line, "s:");
	memset(line + at, 'm', STATSD_MEMBER_MAX + 1);
	strcpy(line + at + STATSD_MEMBER_MAX + 1, "|s");
	ck_assert_int_eq(parse(line, &m), STATSD_PARSE_MALFORMED);
}
END_TEST

START_TEST(test_lines)
{
	static const char datagram[] = "a:1|c\r\n\nb:2|g\nc:3|ms";
	const char *line;
	size_t offset = 0, length, lines = 0;
	struct statsd_metric m;
	int ok = 0, empty = 0;

	while ((line = statsd_next_line(
	            datagram, sizeof datagram - 1, &offset, &length)) != NULL) {
		lines++;
		switch (statsd_parse_line(line, length, &m)) {
		case STATSD_PARSE_OK:
			ok++;
			break;
		case STATSD_PARSE_EMPTY:
			empty++;
			break;
		default:
			ck_abort_msg("line %zu refused", lines);
		}
	}
	ck_assert_uint_eq(lines, 4);
	ck_assert_int_eq(ok, 3);
	ck_assert_int_eq(empty, 1);
	ck_assert(m.value == 3.0 && m.type == STATSD_TIMER);
}
END_TEST

static Suite *
statsd_parse_suite(void)
{
	Suite *suite = suite_create("statsd_parse");
	TCase *tcase = tcase_create("statsd_parse");

	tcase_add_test(tcase, test_every_type);
	tcase_add_test(tcase, test_rate_and_tags);
	tcase_add_test(tcase, test_malformed);
	tcase_add_test(tcase, test_bounds);
	tcase_add_test(tcase, test_lines);
	suite_add_tcase(suite, tcase);
	return suite;
}

int
main(void)
{
	return unit_run_suite(statsd_parse_suite());
}
