/*
 * Unit tests for the openmetrics provider's pure parts: the text parser
 * (src/providers/openmetrics/openmetrics_parse.c: families, suffixes,
 * labels, values, every bound, malformed input), the series grouping
 * (openmetrics_series.c: stable ids, buckets in order, duplicates and
 * collisions refused) and the target syntax and address policy
 * (openmetrics_target.c, no scrape).
 */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/openmetrics/openmetrics_parse.h"
#include "providers/openmetrics/openmetrics_series.h"
#include "providers/openmetrics/openmetrics_target.h"

/* The id of {a="1", b="2"}: instance ids must never change. */
#define SERIES_A1_B2_ID 0xf0e3a3581401d25bull

static const struct om_limits default_limits = {.body_bytes = 1u << 20,
    .line_bytes = 4096,
    .labels_per_series = 8,
    .families = 100,
    .series = 1000};

/* A writable copy of a text (the parser writes into its body). */
static char *
body_of(const char *text)
{
	size_t length = strlen(text);
	char *body = malloc(length + 1);
	ck_assert_ptr_nonnull(body);
	memcpy(body, text, length + 1);
	return body;
}

static int
parse_text(struct om_scrape *scrape, const char *text,
    const struct om_limits *limits, char **body)
{
	*body = body_of(text);
	return om_parse(scrape, *body, strlen(text), limits);
}

static const struct om_family *
family_named(const struct om_scrape *scrape, const char *name)
{
	for (size_t i = 0; i < scrape->family_count; i++)
		if (strcmp(scrape->families[i].name, name) == 0)
			return &scrape->families[i];
	return NULL;
}

static const char prometheus_text[] =
    "# HELP http_requests_total Requests \\\\ served\\nso far.\n"
    "# TYPE http_requests_total counter\n"
    "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n"
    "http_requests_total{code=\"400\",method=\"post\"} 3\n"
    "\n"
    "# A comment\n"
    "# TYPE temperature gauge\n"
    "temperature{room=\"a \\\"b\\\" \\\\ c\\nd\"} -12.5\n"
    "# TYPE latency histogram\n"
    "latency_bucket{le=\"0.5\"} 4\n"
    "latency_bucket{le=\"+Inf\"} 9\n"
    "latency_bucket{le=\"0.1\"} 1\n"
    "latency_sum 17.25\n"
    "latency_count 9\n"
    "# TYPE rpc summary\n"
    "rpc{quantile=\"0.99\"} 0.25\n"
    "rpc{quantile=\"0.5\"} 0.0125\n"
    "rpc_sum 1.5e3\n"
    "rpc_count 12\n"
    "untyped_thing NaN\n"
    "inf_thing{ a = \"x\" , } +Inf\n";

START_TEST(parse_prometheus_text_families_values_and_labels)
{
	struct om_scrape scrape = {0};
	char *body;
	const struct om_family *family;
	const struct om_sample *sample;
	const struct om_label *label;

	ck_assert_int_eq(
	    parse_text(&scrape, prometheus_text, &default_limits, &body), 0);
	ck_assert_uint_eq(scrape.family_count, 6);
	ck_assert_uint_eq(scrape.sample_count, 14);

	family = family_named(&scrape, "http_requests_total");
	ck_assert_ptr_nonnull(family);
	ck_assert_int_eq(family->type, OM_TYPE_COUNTER);
	ck_assert_str_eq(family->help, "Requests \\ served\nso far.");
	ck_assert_uint_eq(family->sample_count, 2);
	sample = &scrape.samples[family->sample_first];
	ck_assert_int_eq(sample->suffix, OM_SUFFIX_TOTAL);
	ck_assert(sample->value == 1027.0);
	ck_assert_str_eq(sample->text, "1027");
	ck_assert_uint_eq(sample->label_count, 2);
	label = &scrape.labels[sample->label_first];
	/* Sorted by name. */
	ck_assert_str_eq(label[0].name, "code");
	ck_assert_str_eq(label[0].value, "200");
	ck_assert_str_eq(label[1].name, "method");
	ck_assert_str_eq(label[1].value, "post");

	family = family_named(&scrape, "temperature");
	ck_assert_int_eq(family->type, OM_TYPE_GAUGE);
	sample = &scrape.samples[family->sample_first];
	ck_assert(sample->value == -12.5);
	label = &scrape.labels[sample->label_first];
	ck_assert_str_eq(label[0].value, "a \"b\" \\ c\nd");
	ck_assert_uint_eq(label[0].value_length, 11);

	family = family_named(&scrape, "latency");
	ck_assert_int_eq(family->type, OM_TYPE_HISTOGRAM);
	ck_assert_uint_eq(family->sample_count, 5);
	sample = &scrape.samples[family->sample_first];
	ck_assert_int_eq(sample->suffix, OM_SUFFIX_BUCKET);
	ck_assert_uint_eq(sample->label_count, 0); /* le taken out */
	ck_assert_str_eq(sample->bound_text, "0.5");
	ck_assert(sample->bound == 0.5);
	ck_assert(isinf(scrape.samples[family->sample_first + 1].bound));
	ck_assert_int_eq(
	    scrape.samples[family->sample_first + 3].suffix, OM_SUFFIX_SUM);
	ck_assert_int_eq(
	    scrape.samples[family->sample_first + 4].suffix, OM_SUFFIX_COUNT);

	family = family_named(&scrape, "rpc");
	ck_assert_int_eq(family->type, OM_TYPE_SUMMARY);
	sample = &scrape.samples[family->sample_first];
	ck_assert_int_eq(sample->suffix, OM_SUFFIX_NONE);
	ck_assert(sample->bound == 0.99);
	ck_assert(sample->value == 0.25);
	ck_assert(scrape.samples[family->sample_first + 2].value == 1500.0);

	family = family_named(&scrape, "untyped_thing");
	ck_assert_int_eq(family->type, OM_TYPE_UNKNOWN);
	ck_assert(isnan(scrape.samples[family->sample_first].value));
	family = family_named(&scrape, "inf_thing");
	sample = &scrape.samples[family->sample_first];
	ck_assert(isinf(sample->value) && sample->value > 0);
	ck_assert_str_eq(scrape.labels[sample->label_first].name, "a");
	ck_assert_str_eq(scrape.labels[sample->label_first].value, "x");
	om_scrape_free(&scrape);
	free(body);
}
END_TEST

static const char openmetrics_text[] =
    "# TYPE acme_http_router_request_seconds summary\n"
    "# UNIT acme_http_router_request_seconds seconds\n"
    "acme_http_router_request_seconds_sum{path=\"/api/v1\",method=\"GET\"} "
    "9036.32\n"
    "acme_http_router_request_seconds_count{path=\"/api/v1\",method=\"GET\"} "
    "807283.0\n"
    "acme_http_router_request_seconds_created{path=\"/api/v1\",method=\"GET\"} "
    "1605281325.0\n"
    "# TYPE go_goroutines gauge\n"
    "go_goroutines 69\n"
    "# TYPE process_cpu_seconds counter\n"
    "process_cpu_seconds_total 4.20072246e+06\n"
    "process_cpu_seconds_created 1.6e9\n"
    "# TYPE build info\n"
    "build_info{version=\"1.2\",revision=\"abc\"} 1\n"
    "# TYPE door stateset\n"
    "door{door=\"open\"} 1\n"
    "door{door=\"closed\"} 0\n"
    "# EOF\n"
    "this is not parsed {{{\n";

/* A body whose only sample has no labels: the labels array is still an
 * array (a parse once added 0 to a NULL one, which UBSan reports). */
START_TEST(parse_sample_without_labels)
{
	struct om_scrape scrape = {0};
	char *body;
	const struct om_family *family;
	const struct om_sample *sample;

	ck_assert_int_eq(
	    parse_text(&scrape, "up 1\n", &default_limits, &body), 0);
	ck_assert_uint_eq(scrape.family_count, 1);
	ck_assert_uint_eq(scrape.sample_count, 1);
	family = family_named(&scrape, "up");
	ck_assert_ptr_nonnull(family);
	ck_assert_uint_eq(family->sample_count, 1);
	sample = &scrape.samples[family->sample_first];
	ck_assert(sample->value == 1.0);
	ck_assert_str_eq(sample->text, "1");
	ck_assert_uint_eq(sample->label_count, 0);
	om_scrape_free(&scrape);
	free(body);
}
END_TEST

START_TEST(parse_openmetrics_suffixes_units_and_eof)
{
	struct om_scrape scrape = {0};
	char *body;
	const struct om_family *family;

	ck_assert_int_eq(
	    parse_text(&scrape, openmetrics_text, &default_limits, &body), 0);
	ck_assert_uint_eq(scrape.family_count, 5);
	family = family_named(&scrape, "acme_http_router_request_seconds");
	ck_assert_str_eq(family->unit, "seconds");
	ck_assert_uint_eq(family->sample_count, 3);
	ck_assert_int_eq(
	    scrape.samples[family->sample_first + 2].suffix, OM_SUFFIX_CREATED);
	family = family_named(&scrape, "process_cpu_seconds");
	ck_assert_int_eq(family->type, OM_TYPE_COUNTER);
	ck_assert_uint_eq(family->sample_count, 2);
	ck_assert_int_eq(
	    scrape.samples[family->sample_first].suffix, OM_SUFFIX_TOTAL);
	ck_assert(scrape.samples[family->sample_first].value == 4200722.46);
	ck_assert_int_eq(
	    scrape.samples[family->sample_first + 1].suffix, OM_SUFFIX_CREATED);
	family = family_named(&scrape, "build");
	ck_assert_int_eq(family->type, OM_TYPE_INFO);
	ck_assert_int_eq(
	    scrape.samples[family->sample_first].suffix, OM_SUFFIX_INFO);
	family = family_named(&scrape, "door");
	ck_assert_int_eq(family->type, OM_TYPE_STATESET);
	ck_assert_uint_eq(family->sample_count, 2);
	om_scrape_free(&scrape);
	free(body);
}
END_TEST

/* Parses `text` expecting failure with `reason` in the error. */
static void
refused(const char *text, const struct om_limits *limits, const char *reason,
    size_t line)
{
	struct om_scrape scrape = {0};
	char *body;
	ck_assert_int_eq(parse_text(&scrape, text, limits, &body), -1);
	ck_assert_msg(strstr(scrape.error, reason) != NULL,
	    "error \"%s\" lacks \"%s\"", scrape.error, reason);
	ck_assert_uint_eq(scrape.error_line, line);
	om_scrape_free(&scrape);
	free(body);
}

START_TEST(parse_every_bound_refuses_the_body)
{
	struct om_limits limits = default_limits;
	static const char two_families[] = "a 1\nb{x=\"1\",y=\"2\"} 2\n";
	struct om_scrape scrape = {0};
	char *body;

	/* Within the bounds, exactly. */
	limits.body_bytes = strlen(two_families);
	limits.line_bytes = strlen("b{x=\"1\",y=\"2\"} 2");
	limits.labels_per_series = 2;
	limits.families = 2;
	limits.series = 2;
	ck_assert_int_eq(parse_text(&scrape, two_families, &limits, &body), 0);
	free(body);
	om_scrape_free(&scrape);

	struct om_limits tight = limits;
	tight.body_bytes--;
	refused(two_families, &tight, "body of more than 20 bytes", 0);
	tight = limits;
	tight.line_bytes--;
	refused(two_families, &tight, "line longer than 15 bytes", 2);
	tight = limits;
	tight.labels_per_series = 1;
	refused(two_families, &tight, "more than 1 labels", 2);
	tight = limits;
	tight.families = 1;
	refused(two_families, &tight, "more than 1 families", 2);
	tight = limits;
	tight.series = 1;
	refused(two_families, &tight, "more than 1 series", 2);
}
END_TEST

START_TEST(parse_malformed_input_is_refused_with_its_line)
{
	refused(
	    "a 1\nb 2\na 3\n", &default_limits, "family a appears twice", 3);
	refused("a x1\n", &default_limits, "bad value x1", 1);
	refused("a\n", &default_limits, "no blank after a", 1);
	refused("a{b=\"1\"\n", &default_limits, "expected ',' or '}'", 1);
	refused("a{b=\"1\n", &default_limits, "bad label value", 1);
	refused("a{b=1} 2\n", &default_limits, "label value not quoted", 1);
	refused("a{b=\"\\q\"} 2\n", &default_limits, "bad label value", 1);
	refused("# TYPE h histogram\nh_bucket 1\n", &default_limits,
	    "bucket without its le label", 2);
	refused("# TYPE h histogram\nh_bucket{le=\"x\"} 1\n", &default_limits,
	    "bad le label", 2);
	refused(
	    "# TYPE h "
	    "histogram\nh_bucket{le=\"1.000000000000000000000000000000000\"}"
	    " 1\n",
	    &default_limits, "bad le label", 2);
	refused("# TYPE s summary\ns 1\n", &default_limits,
	    "quantile without its quantile label", 2);
	refused("a 1\n# TYPE a gauge\n", &default_limits,
	    "# TYPE after samples", 2);
	refused(
	    "# TYPE a sometype\n", &default_limits, "unknown type sometype", 1);
	refused("a 1", &default_limits, "last line without a newline", 1);
	refused("a 1\r\n", &default_limits, "carriage return", 1);
	refused("1a 1\n", &default_limits, "bad metric name", 1);
	refused("a 1\na{x=\"1\",y=\"\",x=\"2\"} 1\n", &default_limits,
	    "a label named twice", 2);
	refused("a{\x1b[31m=\"1\"} 2\n", &default_limits, "bad label name", 1);
	refused("a 1.00000000000000000000000000000000"
	        "0000000000000000000\n",
	    &default_limits, "value longer than 32 characters", 1);
	/* An outside byte in an error is escaped. */
	refused("a \x1b[31m\n", &default_limits, "bad value \\x1b[31m", 1);

	/* A NUL byte in a line. */
	struct om_scrape scrape = {0};
	char body[] = "a 1\nb\0 2\n";
	ck_assert_int_eq(
	    om_parse(&scrape, body, sizeof(body) - 1, &default_limits), -1);
	ck_assert_str_eq(scrape.error, "NUL byte");
	om_scrape_free(&scrape);
}
END_TEST

START_TEST(series_ids_are_stable_and_parts_sorted)
{
	struct om_scrape scrape = {0};
	struct om_series_set set = {0};
	char *body;
	static const char text[] = "# TYPE h histogram\n"
	                           "h_bucket{b=\"2\",a=\"1\",le=\"10\"} 7\n"
	                           "h_bucket{a=\"1\",b=\"2\",le=\"+Inf\"} 9\n"
	                           "h_bucket{a=\"1\",le=\"1\",b=\"2\"} 3\n"
	                           "h_count{a=\"1\",b=\"2\"} 9\n"
	                           "h_sum{b=\"2\",a=\"1\"} 42\n"
	                           "h_count{a=\"other\"} 0\n";
	struct om_label sorted[] = {
	    {.name = "a", .value = "1", .name_length = 1, .value_length = 1},
	    {.name = "b", .value = "2", .name_length = 1, .value_length = 1},
	};
	char label[128];

	ck_assert_int_eq(parse_text(&scrape, text, &default_limits, &body), 0);
	ck_assert_int_eq(om_series_group(&set, &scrape, 0), 0);
	ck_assert_uint_eq(set.count, 2);
	ck_assert_uint_eq(set.collisions, 0);
	const struct om_series *series = &set.series[0];
	ck_assert(series->id == om_series_id(sorted, 2));
	/* FNV-1a 64 of the pairs, length-prefixed: fixed for ever. */
	ck_assert_msg(series->id == SERIES_A1_B2_ID, "id %016llx",
	    (unsigned long long)series->id);
	ck_assert_uint_eq(series->part_count, 3);
	ck_assert_str_eq(
	    scrape.samples[set.parts[series->part_first]].bound_text, "1");
	ck_assert_str_eq(
	    scrape.samples[set.parts[series->part_first + 1]].bound_text, "10");
	ck_assert_str_eq(
	    scrape.samples[set.parts[series->part_first + 2]].bound_text,
	    "+Inf");
	ck_assert(scrape.samples[series->count - 1].value == 9.0);
	ck_assert(scrape.samples[series->sum - 1].value == 42.0);
	om_series_label(&scrape, series, "h", label, sizeof(label));
	ck_assert_str_eq(label, "a=\"1\",b=\"2\"");
	ck_assert(set.series[1].id != series->id);
	ck_assert_uint_eq(set.series[1].part_count, 0);
	om_series_label(&scrape, &set.series[1], "h", label, 8);
	ck_assert_str_eq(label, "a=\"othe");

	/* The same label set in another scrape, in another order: same id. */
	uint64_t id = series->id;
	free(body);
	ck_assert_int_eq(parse_text(&scrape, "g{b=\"2\",a=\"1\"} 1\nf 2\n",
	                     &default_limits, &body),
	    0);
	ck_assert_int_eq(om_series_group(&set, &scrape, 0), 0);
	ck_assert(set.series[0].id == id);
	ck_assert_int_eq(om_series_group(&set, &scrape, 1), 0);
	om_series_label(&scrape, &set.series[0], "f", label, sizeof(label));
	ck_assert_str_eq(label, "f");
	free(body);
	om_series_set_free(&set);
	om_scrape_free(&scrape);
}
END_TEST

/* A small family grouped after a large one: the large one's slots must not
 * show through (they once made distinct label sets "a sample given
 * twice"). */
START_TEST(series_small_family_after_large_one)
{
	struct om_scrape scrape = {0};
	struct om_series_set set = {0};
	char text[4096], *body;
	size_t used = 0;

	for (int i = 0; i < 100; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
		    "big{i=\"%d\"} %d\n", i, i);
	snprintf(text + used, sizeof(text) - used,
	    "small{device=\"vda\"} 1\nsmall{device=\"zram0\"} 2\n");
	ck_assert_int_eq(parse_text(&scrape, text, &default_limits, &body), 0);
	ck_assert_int_eq(om_series_group(&set, &scrape, 0), 0);
	ck_assert_uint_eq(set.count, 100);
	for (int round = 0; round < 2; round++) {
		ck_assert_int_eq(om_series_group(&set, &scrape, 1), 0);
		ck_assert_uint_eq(set.count, 2);
		ck_assert(set.series[0].id != set.series[1].id);
	}
	free(body);
	om_series_set_free(&set);
	om_scrape_free(&scrape);
}
END_TEST

static void
group_refused(const char *text, const char *reason)
{
	struct om_scrape scrape = {0};
	struct om_series_set set = {0};
	char *body;
	ck_assert_int_eq(parse_text(&scrape, text, &default_limits, &body), 0);
	ck_assert_int_eq(om_series_group(&set, &scrape, 0), -1);
	ck_assert_msg(
	    strstr(set.error, reason) != NULL, "error \"%s\"", set.error);
	free(body);
	om_series_set_free(&set);
	om_scrape_free(&scrape);
}

START_TEST(series_duplicates_are_refused)
{
	group_refused("a{x=\"1\"} 1\na{x=\"1\"} 2\n", "a sample given twice");
	group_refused("# TYPE h histogram\nh_bucket{le=\"1\"} 1\n"
	              "h_bucket{le=\"1.0\"} 2\n",
	    "a bound given twice");
	group_refused("# TYPE s summary\ns{quantile=\"NaN\"} 1\n"
	              "s{quantile=\"0.5\"} 2\n",
	    "a bound given twice or NaN");
}
END_TEST

START_TEST(target_syntax_and_address_policy)
{
	struct om_target_config config;
	char why[160];

	ck_assert_int_eq(om_target_config_parse("http://127.0.0.1:9100/metrics",
	                     5000, false, &config, why, sizeof(why)),
	    0);
	ck_assert_str_eq(config.name, "om_127_0_0_1_9100");
	ck_assert_uint_eq(config.timeout_ms, 5000);
	ck_assert_ptr_null(config.unix_path);
	om_target_config_free(&config);

	ck_assert_int_eq(
	    om_target_config_parse("  http://[::1]:9090/metrics name=prom "
	                           "timeout=250ms",
	        5000, false, &config, why, sizeof(why)),
	    0);
	ck_assert_str_eq(config.name, "prom");
	ck_assert_str_eq(config.url, "http://[::1]:9090/metrics");
	ck_assert_uint_eq(config.timeout_ms, 250);
	om_target_config_free(&config);

	ck_assert_int_eq(om_target_config_parse("http://localhost/m timeout=2s",
	                     5000, false, &config, why, sizeof(why)),
	    0);
	ck_assert_str_eq(config.name, "om_localhost_80");
	ck_assert_uint_eq(config.timeout_ms, 2000);
	ck_assert_uint_eq(config.interval_ms, 0);
	om_target_config_free(&config);

	ck_assert_int_eq(
	    om_target_config_parse("http://127.0.0.2/m interval=15s name=x",
	        5000, false, &config, why, sizeof(why)),
	    0);
	ck_assert_uint_eq(config.interval_ms, 15000);
	om_target_config_free(&config);

	ck_assert_int_eq(
	    om_target_config_parse("http://app/metrics unix=/run/app.sock",
	        5000, false, &config, why, sizeof(why)),
	    0);
	ck_assert_str_eq(config.unix_path, "/run/app.sock");
	om_target_config_free(&config);

	static const struct {
		const char *item;
		bool allow_remote;
		const char *reason;
	} bad[] = {
	    {"http://10.0.0.1:9100/metrics", false, "host is not loopback"},
	    {"http://127.0.0.1.example.com/", false, "host is not loopback"},
	    {"http://128.0.0.1/", false, "host is not loopback"},
	    {"https://127.0.0.1/", false, "scheme https: only http"},
	    {"ftp://127.0.0.1/", true, "scheme ftp"},
	    {"file:///etc/passwd", true, "scheme file"},
	    {"http://127.0.0.1/ name=a.b", false, "name:"},
	    {"http://127.0.0.1/ name=abcdefghijklmnopqrstuvwxy", false,
	        "name:"},
	    {"http://127.0.0.1/ timeout=0", false, "timeout:"},
	    {"http://127.0.0.1/ timeout=2h", false, "timeout:"},
	    {"http://127.0.0.1/ interval=0s", false, "interval:"},
	    {"http://127.0.0.1/ interval=soon", false, "interval:"},
	    {"http://127.0.0.1/ unix=run/x", false, "unix: an absolute path"},
	    {"http://127.0.0.1/ colour=red", false, "unknown key"},
	    {"http://127.0.0.1/ bare", false, "expected key=value"},
	    {"", false, "no URL"},
	    {"http://127.0.0.1/"
	     "0123456789012345678901234567890123456789012345678901234567890123"
	     "0123456789012345678901234567890123456789012345678901234567890123"
	     "0123456789012345678901234567890123456789012345678901234567890123"
	     "0123456789012345678901234567890123456789012345678901234567890123",
	        false, "URL longer than 255 characters"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(
		    om_target_config_parse(bad[i].item, 5000,
		        bad[i].allow_remote, &config, why, sizeof(why)) == -1,
		    "%s accepted", bad[i].item);
		ck_assert_msg(strstr(why, bad[i].reason) != NULL,
		    "%s: \"%s\" lacks \"%s\"", bad[i].item, why, bad[i].reason);
	}
	/* allow-remote opens any host and https. */
	ck_assert_int_eq(om_target_config_parse("https://10.0.0.1:9100/metrics",
	                     5000, true, &config, why, sizeof(why)),
	    0);
	om_target_config_free(&config);
	ck_assert_uint_eq(om_duration_ms("1500ms"), 1500);
	ck_assert_uint_eq(om_duration_ms("3"), 3000);
	ck_assert_uint_eq(om_duration_ms("3600s"), 3600000);
	ck_assert_uint_eq(om_duration_ms("3601s"), 0);
	ck_assert_uint_eq(om_duration_ms("10m"), 600000);
	ck_assert_uint_eq(om_duration_ms("1h"), 3600000);
	ck_assert_uint_eq(om_duration_ms("61m"), 0);
	ck_assert_uint_eq(om_duration_ms("1d"), 0);
	ck_assert_uint_eq(om_duration_ms("-1s"), 0);
}
END_TEST

static Suite *
openmetrics_suite(void)
{
	Suite *suite = suite_create("openmetrics");
	TCase *parse = tcase_create("parse");
	TCase *series = tcase_create("series");
	TCase *target = tcase_create("target");

	tcase_add_test(parse, parse_prometheus_text_families_values_and_labels);
	tcase_add_test(parse, parse_sample_without_labels);
	tcase_add_test(parse, parse_openmetrics_suffixes_units_and_eof);
	tcase_add_test(parse, parse_every_bound_refuses_the_body);
	tcase_add_test(parse, parse_malformed_input_is_refused_with_its_line);
	suite_add_tcase(suite, parse);
	tcase_add_test(series, series_ids_are_stable_and_parts_sorted);
	tcase_add_test(series, series_duplicates_are_refused);
	tcase_add_test(series, series_small_family_after_large_one);
	suite_add_tcase(suite, series);
	tcase_add_test(target, target_syntax_and_address_policy);
	suite_add_tcase(suite, target);
	return suite;
}

int
main(void)
{
	SRunner *runner = srunner_create(openmetrics_suite());
	int failed;

	srunner_set_fork_status(runner, CK_NOFORK);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
