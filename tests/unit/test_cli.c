/*
 * Unit tests for dcistat(1)'s parts that hold no state of a source: the
 * rate computation (exact rates, wraps undone at the counter's width, a
 * discontinuity, a decrease that is no wrap or an empty interval giving a
 * gap), the JSON and OpenMetrics writers (structure, escaping, invalid
 * UTF-8, names made valid, counters as _total with their unit, absent
 * values left out) and the text table renderer (alignment, widths, the
 * mark of a missing value, blocks that fit a terminal, control
 * characters); then `show` and `watch` over a scripted source, a real
 * core registry whose snapshots a script commits: rendering and numbers
 * of each kind, and rates across refreshes with a wrap, a reset in the
 * middle of the watch and instances that come and go.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/catalog.h"
#include "cli/document.h"
#include "cli/json.h"
#include "cli/openmetrics.h"
#include "cli/rate.h"
#include "cli/text_table.h"
#include "cli/utf8.h"
#include "cli/values.h"
#include "cli/view.h"
#include "cli/watch.h"
#include "model/registry.h"
#include "model/snapshot.h"
#include "check_runner.h"

/* --- rates ------------------------------------------------------------- */

static struct cli_counter_sample
sample(uint64_t value, int64_t taken, int64_t discontinuity)
{
	return (struct cli_counter_sample){value, taken, discontinuity};
}

START_TEST(test_rate_exact)
{
	struct cli_counter_sample before = sample(1000, 5000, 7);
	struct cli_counter_sample after = sample(2000, 7000, 7);
	double rate = -1;
	uint64_t increase = 0;

	ck_assert(cli_rate_compute(&before, &after, 64, &rate));
	ck_assert(rate == 500.0);
	ck_assert(cli_rate_increase(&before, &after, 64, &increase));
	ck_assert_uint_eq(increase, 1000);
	/* 1 over 3 s: the rate as a double, exactly as divided. */
	after = sample(1001, 8000, 7);
	ck_assert(cli_rate_compute(&before, &after, 64, &rate));
	ck_assert(rate == 1.0 / 3.0);
	/* No change is a rate of 0, not a gap. */
	after = sample(1000, 6000, 7);
	ck_assert(cli_rate_compute(&before, &after, 64, &rate));
	ck_assert(rate == 0.0);
}
END_TEST

START_TEST(test_rate_wraps)
{
	struct cli_counter_sample before = sample(0xfffffff0u, 0, 0);
	struct cli_counter_sample after = sample(0x10, 1000, 0);
	uint64_t increase = 0;
	double rate = -1;

	/* A 32-bit counter that wrapped went forward by 0x20. */
	ck_assert(cli_rate_increase(&before, &after, 32, &increase));
	ck_assert_uint_eq(increase, 0x20);
	ck_assert(cli_rate_compute(&before, &after, 32, &rate));
	ck_assert(rate == 32.0);
	/* A 64-bit counter wraps at 2^64. */
	before = sample(UINT64_MAX - 4, 0, 0);
	after = sample(5, 2000, 0);
	ck_assert(cli_rate_compute(&before, &after, 64, &rate));
	ck_assert(rate == 5.0);
	/* The same fall in a 64-bit counter is no wrap: a reset, a gap. */
	before = sample(0xfffffff0u, 0, 0);
	after = sample(0x10, 1000, 0);
	ck_assert(!cli_rate_compute(&before, &after, 64, &rate));
	/* Forward by exactly half the range is the most a wrap can be. */
	before = sample(0x80000000u, 0, 0);
	after = sample(0, 1000, 0);
	ck_assert(!cli_rate_increase(&before, &after, 32, &increase));
	before = sample(0x80000001u, 0, 0);
	ck_assert(cli_rate_increase(&before, &after, 32, &increase));
	ck_assert_uint_eq(increase, 0x7fffffffu);
}
END_TEST

START_TEST(test_rate_gaps)
{
	struct cli_counter_sample before = sample(100, 1000, 0);
	struct cli_counter_sample after = sample(200, 2000, 1500);
	double rate = 12345;

	/* The core saw a discontinuity between the samples (a reset, a
	 * restarted supplier): a gap even though the value grew. */
	ck_assert(!cli_rate_compute(&before, &after, 64, &rate));
	/* A reset to a smaller value without a recorded discontinuity. */
	after = sample(10, 2000, 0);
	ck_assert(!cli_rate_compute(&before, &after, 64, &rate));
	/* No interval, or time going backwards. */
	after = sample(200, 1000, 0);
	ck_assert(!cli_rate_compute(&before, &after, 64, &rate));
	after = sample(200, 500, 0);
	ck_assert(!cli_rate_compute(&before, &after, 64, &rate));
	/* A value wider than the counter, a width out of range. */
	after = sample(UINT64_C(1) << 40, 2000, 0);
	ck_assert(!cli_rate_compute(&before, &after, 32, &rate));
	after = sample(200, 2000, 0);
	ck_assert(!cli_rate_compute(&before, &after, 0, &rate));
	ck_assert(!cli_rate_compute(&before, &after, 65, &rate));
	ck_assert(rate == 12345);
}
END_TEST

START_TEST(test_rate_format)
{
	static const struct {
		double rate;
		const char *text;
	} cases[] = {
	    {500.0, "500"},
	    {0.5, "0.5"},
	    {1.0 / 3.0, "0.333"},
	    {1000.0 / 3.0, "333.333"},
	    {0.0, "0"},
	    {0.0004, "0"},
	    {1.25, "1.25"},
	    {18446744073709551615.0, "18446744073709551616"},
	};
	char text[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		cli_rate_format(cases[i].rate, text, sizeof(text));
		ck_assert_str_eq(text, cases[i].text);
	}
}
END_TEST

/* --- a document to write ------------------------------------------------ */

/* Table "t&1", title "Test \"t\"": keys instance and id, a text column,
 * a counter with unit bytes, a gauge ending in _total; two rows, the
 * second without a counter value. */
static struct cli_document
sample_document(const char *label, const char *text)
{
	struct cli_document document = {0};
	struct cli_table *table = cli_table_new("t&1", "Test \"t\"");

	ck_assert_ptr_nonnull(table);
	ck_assert_int_eq(
	    cli_table_add_column(table, "instance", CLI_COLUMN_KEY, NULL, NULL),
	    0);
	ck_assert_int_eq(
	    cli_table_add_column(table, "id", CLI_COLUMN_KEY, NULL, NULL), 1);
	ck_assert_int_eq(cli_table_add_column(
	                     table, "name", CLI_COLUMN_TEXT, NULL, "a name"),
	    2);
	ck_assert_int_eq(
	    cli_table_add_column(table, "rx_bytes", CLI_COLUMN_COUNTER, "bytes",
	        "Octets\nreceived \\"),
	    3);
	ck_assert_int_eq(cli_table_add_column(table, "queue-length_total",
	                     CLI_COLUMN_GAUGE, "", ""),
	    4);
	ck_assert_int_eq(cli_table_add_row(table), 0);
	ck_assert_int_eq(cli_table_add_row(table), 1);
	ck_assert_int_eq(cli_table_set(table, 0, 0, label, NULL), 0);
	ck_assert_int_eq(cli_table_set(table, 0, 1, "1.2", NULL), 0);
	ck_assert_int_eq(cli_table_set(table, 0, 2, text, NULL), 0);
	ck_assert_int_eq(cli_table_set(table, 0, 3, "18446744073709551615",
	                     "18446744073709551615"),
	    0);
	ck_assert_int_eq(cli_table_set(table, 0, 4, "-2", "-2"), 0);
	ck_assert_int_eq(cli_table_set(table, 1, 0, "b", NULL), 0);
	ck_assert_int_eq(cli_table_set(table, 1, 1, "2", NULL), 0);
	ck_assert_int_eq(cli_table_set(table, 1, 4, "1.29", "1.29"), 0);
	ck_assert_int_eq(cli_document_add(&document, table), 0);
	return document;
}

/* What `write` wrote for `document`, NUL-terminated; freed by the caller. */
static char *
written(void (*write)(FILE *, const struct cli_document *),
    const struct cli_document *document)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	write(out, document);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

static void
openmetrics_write(FILE *out, const struct cli_document *document)
{
	cli_openmetrics_write(out, document, CLI_EXPOSITION_OPENMETRICS);
}

static void
prometheus_write(FILE *out, const struct cli_document *document)
{
	cli_openmetrics_write(out, document, CLI_EXPOSITION_PROMETHEUS);
}

/* The text format with exact numbers and no colour, at `width`. */
static char *
written_text(const struct cli_document *document, size_t width)
{
	struct cli_text_style style = {.width = width};
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	cli_text_table_write(out, document, &style);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

/* --- for people: SI prefixes, colour, the rows chosen ----------------------
 */

START_TEST(test_human_numbers)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"0", "0"},
	    {"99999", "99999"},
	    {"100000", "100k"},
	    {"190181", "190k"},
	    {"999499", "999k"},
	    {"999500", "1.00M"},
	    {"3493299", "3.49M"},
	    {"27891952", "27.9M"},
	    {"18446744073709551615", "18.4E"},
	    {"-2500000", "-2.50M"},
	    {"0.52", "0.52"},
	    {"123456.78", "123k"},
	    /* Not a decimal number: left as it is. */
	    {"0x1f", "0x1f"},
	    {"1.2.3.4", "1.2.3.4"},
	    {"", ""},
	};
	char out[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		cli_text_human_number(cases[i].in, out, sizeof(out));
		ck_assert_msg(strcmp(out, cases[i].out) == 0,
		    "%s: got %s, expected %s", cases[i].in, out, cases[i].out);
	}
}
END_TEST

/* A table of an instance label, a counter, a gauge shown in hexadecimal
 * and a text, for the style and view tests. */
static struct cli_document
people_document(void)
{
	static const char *const rows[][4] = {
	    {"eth0", "27891952", "0x10", "up"},
	    {"lo", "190181", "0x20", "up"},
	    {"eth1", "5", "0x30", "down"},
	    {"wlan0", NULL, "0x40", "up"},
	};
	struct cli_document document = {0};
	struct cli_table *table = cli_table_new("netif", "netif");

	ck_assert_ptr_nonnull(table);
	ck_assert_int_eq(
	    cli_table_add_column(table, "instance", CLI_COLUMN_KEY, NULL, NULL),
	    0);
	ck_assert_int_eq(cli_table_add_column(table, "rx_bytes",
	                     CLI_COLUMN_COUNTER, "bytes", NULL),
	    1);
	ck_assert_int_eq(
	    cli_table_add_column(table, "flags", CLI_COLUMN_GAUGE, NULL, NULL),
	    2);
	ck_assert_int_eq(
	    cli_table_add_column(table, "state", CLI_COLUMN_TEXT, NULL, NULL),
	    3);
	for (size_t r = 0; r < 4; r++) {
		ck_assert_int_eq(cli_table_add_row(table), (long)r);
		ck_assert_int_eq(
		    cli_table_set(table, r, 0, rows[r][0], NULL), 0);
		if (rows[r][1] != NULL)
			ck_assert_int_eq(
			    cli_table_set(table, r, 1, rows[r][1], rows[r][1]),
			    0);
		ck_assert_int_eq(
		    cli_table_set(table, r, 2, rows[r][2], "16"), 0);
		ck_assert_int_eq(
		    cli_table_set(table, r, 3, rows[r][3], NULL), 0);
	}
	ck_assert_int_eq(cli_document_add(&document, table), 0);
	return document;
}

static char *
written_styled(
    const struct cli_document *document, const struct cli_text_style *style)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	cli_text_table_write(out, document, style);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

/* Numbers shown with prefixes, a hexadecimal one as it is; bold around
 * the title and header only, whatever the data holds. */
START_TEST(test_text_human_and_color)
{
	struct cli_document document = people_document();
	struct cli_text_style style = {
	    .human = true, .color = true, .stamp = "17:10:03"};
	char *text = written_styled(&document, &style);

	ck_assert_str_eq(text,
	    "\033[1m17:10:03  netif\033[0m\n"
	    "\033[1minstance  rx_bytes  flags  state\033[0m\n"
	    "eth0         27.9M   0x10  up\n"
	    "lo            190k   0x20  up\n"
	    "eth1             5   0x30  down\n"
	    "wlan0            -   0x40  up\n");
	free(text);
	cli_document_clear(&document);
}
END_TEST

START_TEST(test_view)
{
	static const struct {
		struct cli_view view;
		const char *instances;
	} cases[] = {
	    {{NULL, NULL, 0}, "eth0 lo eth1 wlan0"},
	    {{"eth*", NULL, 0}, "eth0 eth1"},
	    /* Largest first, exactly; a row without a value last. */
	    {{NULL, "rx_bytes", 0}, "eth0 lo eth1 wlan0"},
	    {{NULL, "rx_bytes", 2}, "eth0 lo"},
	    {{"*[01]", "rx_bytes", 0}, "eth0 eth1 wlan0"},
	    /* Text in byte order, ties in the source's order. */
	    {{NULL, "state", 0}, "eth1 eth0 lo wlan0"},
	    {{NULL, "instance", 3}, "eth0 eth1 lo"},
	    {{"nothing", NULL, 0}, ""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct cli_document document = people_document();
		const struct cli_table *table;
		char error[256] = "", shown[128] = "";

		ck_assert_msg(cli_view_apply(&document, &cases[i].view, error,
		                  sizeof(error)) == 0,
		    "case %zu: %s", i, error);
		table = document.tables[0];
		for (size_t row = 0; row < table->row_count; row++) {
			if (row > 0)
				strcat(shown, " ");
			strcat(shown, cli_table_cell(table, row, 0)->text);
		}
		ck_assert_msg(strcmp(shown, cases[i].instances) == 0,
		    "case %zu: got '%s', expected '%s'", i, shown,
		    cases[i].instances);
		cli_document_clear(&document);
	}
	{
		struct cli_document document = people_document();
		struct cli_view view = {.sort = "tx_bytes"};
		char error[256] = "";

		ck_assert_int_eq(
		    cli_view_apply(&document, &view, error, sizeof(error)), -1);
		ck_assert_str_eq(error,
		    "--sort tx_bytes: no such datum in what "
		    "is shown (see dcistat describe CLASS)");
		cli_document_clear(&document);
	}
}
END_TEST

/* Numbers compared as decimals, whatever their length or sign. */
START_TEST(test_view_sort_exact)
{
	static const char *const numbers[] = {"18446744073709551615",
	    "18446744073709551614", "-0.5", "0.52", "0.5", "-3", "007", "0"};
	static const char *const sorted[] = {"18446744073709551615",
	    "18446744073709551614", "007", "0.52", "0.5", "0", "-0.5", "-3"};
	struct cli_document document = {0};
	struct cli_table *table = cli_table_new("n", "n");
	struct cli_view view = {.sort = "v"};
	char error[256] = "";

	ck_assert_int_eq(
	    cli_table_add_column(table, "v", CLI_COLUMN_GAUGE, NULL, NULL), 0);
	for (size_t r = 0; r < 8; r++) {
		ck_assert_int_eq(cli_table_add_row(table), (long)r);
		ck_assert_int_eq(
		    cli_table_set(table, r, 0, numbers[r], numbers[r]), 0);
	}
	ck_assert_int_eq(cli_document_add(&document, table), 0);
	ck_assert_int_eq(
	    cli_view_apply(&document, &view, error, sizeof(error)), 0);
	for (size_t r = 0; r < 8; r++)
		ck_assert_str_eq(
		    cli_table_cell(table, r, 0)->number, sorted[r]);
	cli_document_clear(&document);
}
END_TEST

/* --- JSON --------------------------------------------------------------- */

START_TEST(test_json_document)
{
	struct cli_document document = sample_document("a", "x");
	char *text = written(cli_json_write, &document);

	ck_assert_str_eq(text,
	    "{\"tables\":[{\"name\":\"t&1\",\"title\":\"Test \\\"t\\\"\","
	    "\"columns\":["
	    "{\"name\":\"instance\",\"role\":\"key\",\"unit\":\"\","
	    "\"help\":\"\"},"
	    "{\"name\":\"id\",\"role\":\"key\",\"unit\":\"\",\"help\":\"\"},"
	    "{\"name\":\"name\",\"role\":\"text\",\"unit\":\"\","
	    "\"help\":\"a name\"},"
	    "{\"name\":\"rx_bytes\",\"role\":\"counter\",\"unit\":\"bytes\","
	    "\"help\":\"Octets\\nreceived \\\\\"},"
	    "{\"name\":\"queue-length_total\",\"role\":\"gauge\","
	    "\"unit\":\"\",\"help\":\"\"}],"
	    "\"rows\":["
	    "{\"instance\":\"a\",\"id\":\"1.2\",\"name\":\"x\","
	    "\"rx_bytes\":18446744073709551615,\"queue-length_total\":-2},"
	    "{\"instance\":\"b\",\"id\":\"2\",\"name\":null,"
	    "\"rx_bytes\":null,\"queue-length_total\":1.29}]}]}\n");
	free(text);
	cli_document_clear(&document);
}
END_TEST

START_TEST(test_json_escaping)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"plain", "\"plain\""},
	    {"", "\"\""},
	    {"a\"b\\c", "\"a\\\"b\\\\c\""},
	    {"line\nfeed\ttab\rcr", "\"line\\nfeed\\ttab\\rcr\""},
	    {"\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\""},
	    /* C1 controls (U+009B CSI, U+009D OSC) are escaped too: valid
	     * JSON raw, but a terminal showing the document acts on them. */
	    {"\xc2\x9b"
	     "2J\xc2\x9d\xc2\xa0",
	        "\"\\u009b2J\\u009d\xc2\xa0\""},
	    /* UTF-8 passes; bytes that are not UTF-8 become U+FFFD. */
	    {"d\xc3\xa9v", "\"d\xc3\xa9v\""},
	    {"\xff"
	     "a\xc3",
	        "\"\xef\xbf\xbd"
	        "a\xef\xbf\xbd\""},
	    /* An overlong '/' and a surrogate are not UTF-8. */
	    {"\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\""},
	    {"\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *text = NULL;
		size_t size = 0;
		FILE *out = open_memstream(&text, &size);

		ck_assert_ptr_nonnull(out);
		cli_json_write_string(out, cases[i].in);
		ck_assert_int_eq(fclose(out), 0);
		ck_assert_msg(strcmp(text, cases[i].out) == 0,
		    "case %zu: got %s, expected %s", i, text, cases[i].out);
		free(text);
	}
}
END_TEST

/* --- OpenMetrics --------------------------------------------------------- */

START_TEST(test_openmetrics_document)
{
	struct cli_document document =
	    sample_document("eth0 \"x\"\\", "new\nline");
	char *text = written(openmetrics_write, &document);

	/* The instance label is dci_instance: Prometheus sets "instance"
	 * to the scraped target. */
	ck_assert_str_eq(text,
	    "# TYPE dcistat_t_1 info\n"
	    "# HELP dcistat_t_1 Test \\\"t\\\"\n"
	    "dcistat_t_1_info{dci_instance=\"eth0 \\\"x\\\"\\\\\",id=\"1.2\","
	    "name=\"new\\nline\"} 1\n"
	    "dcistat_t_1_info{dci_instance=\"b\",id=\"2\"} 1\n"
	    "# TYPE dcistat_t_1_rx_bytes counter\n"
	    "# UNIT dcistat_t_1_rx_bytes bytes\n"
	    "# HELP dcistat_t_1_rx_bytes Octets\\nreceived \\\\\n"
	    "dcistat_t_1_rx_bytes_total{dci_instance=\"eth0 \\\"x\\\"\\\\\","
	    "id=\"1.2\"} 18446744073709551615\n"
	    "# TYPE dcistat_t_1_queue_length_total gauge\n"
	    "dcistat_t_1_queue_length_total{dci_instance=\"eth0 "
	    "\\\"x\\\"\\\\\",id=\"1.2\"} -2\n"
	    "dcistat_t_1_queue_length_total{dci_instance=\"b\",id=\"2\"} 1.29\n"
	    "# EOF\n");
	free(text);
	cli_document_clear(&document);
}
END_TEST

/* The Prometheus text format: the metadata of a counter and of an info
 * family name their samples, no UNIT, no EOF. */
START_TEST(test_prometheus_document)
{
	struct cli_document document = sample_document("a", "b");
	char *text = written(prometheus_write, &document);

	ck_assert_str_eq(text,
	    "# TYPE dcistat_t_1_info gauge\n"
	    /* No \" in a HELP: the text format's parser refuses it. */
	    "# HELP dcistat_t_1_info Test \"t\"\n"
	    "dcistat_t_1_info{dci_instance=\"a\",id=\"1.2\",name=\"b\"} 1\n"
	    "dcistat_t_1_info{dci_instance=\"b\",id=\"2\"} 1\n"
	    "# TYPE dcistat_t_1_rx_bytes_total counter\n"
	    "# HELP dcistat_t_1_rx_bytes_total Octets\\nreceived \\\\\n"
	    "dcistat_t_1_rx_bytes_total{dci_instance=\"a\",id=\"1.2\"} "
	    "18446744073709551615\n"
	    "# TYPE dcistat_t_1_queue_length_total gauge\n"
	    "dcistat_t_1_queue_length_total{dci_instance=\"a\",id=\"1.2\"} -2\n"
	    "dcistat_t_1_queue_length_total{dci_instance=\"b\",id=\"2\"} "
	    "1.29\n");
	free(text);
	cli_document_clear(&document);
}
END_TEST

/* Times in base units: the decimal point moved, never a float; octets are
 * bytes; a job column is dci_job. */
START_TEST(test_openmetrics_base_units)
{
	static const struct {
		const char *unit, *number, *family, *value;
	} cases[] = {
	    {"milliseconds", "16092", "busy_time_seconds", "16.092"},
	    {"milliseconds", "5", "busy_time_seconds", "0.005"},
	    {"milliseconds", "-5", "busy_time_seconds", "-0.005"},
	    {"milliseconds", "0", "busy_time_seconds", "0.000"},
	    {"centiseconds", "1234", "busy_time_seconds", "12.34"},
	    {"nanoseconds", "18446744073709551615", "busy_time_seconds",
	        "18446744073.709551615"},
	    {"microseconds", "12.5", "busy_time_seconds", "0.0000125"},
	    {"octets", "1500", "busy_time_bytes", "1500"},
	    {"seconds", "7", "busy_time_seconds", "7"},
	    /* A megabit is 125,000 bytes: whole, however large. */
	    {"megabits per second", "1", "busy_time_bytes_per_second",
	        "125000"},
	    {"megabits per second", "10", "busy_time_bytes_per_second",
	        "1250000"},
	    {"megabits per second", "0", "busy_time_bytes_per_second", "0"},
	    {"megabits per second", "18446744073709551615",
	        "busy_time_bytes_per_second", "2305843009213693951875000"},
	    /* Not whole: still exact, the decimal point moved. */
	    {"megabits per second", "1.5", "busy_time_bytes_per_second",
	        "187500"},
	    {"megabits per second", "0.000001", "busy_time_bytes_per_second",
	        "0.125"},
	    {"megabits per second", "-2.25", "busy_time_bytes_per_second",
	        "-281250"},
	    {"megabits per second", "0.0000000008",
	        "busy_time_bytes_per_second", "0.0001"},
	    /* A count is no unit: no _count suffix (a histogram's). */
	    {"count", "3", "busy_time", "3"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct cli_document document = {0};
		struct cli_table *table = cli_table_new("d", "");
		char expected[256], *text;

		ck_assert_int_eq(cli_table_add_column(
		                     table, "job", CLI_COLUMN_KEY, NULL, NULL),
		    0);
		ck_assert_int_eq(cli_table_add_column(table, "busy_time",
		                     CLI_COLUMN_GAUGE, cases[i].unit, NULL),
		    1);
		ck_assert_int_eq(cli_table_add_row(table), 0);
		ck_assert_int_eq(cli_table_set(table, 0, 0, "j", NULL), 0);
		ck_assert_int_eq(cli_table_set(table, 0, 1, cases[i].number,
		                     cases[i].number),
		    0);
		ck_assert_int_eq(cli_document_add(&document, table), 0);
		text = written(prometheus_write, &document);
		snprintf(expected, sizeof(expected),
		    "# TYPE dcistat_d_%s gauge\n"
		    "dcistat_d_%s{dci_job=\"j\"} %s\n",
		    cases[i].family, cases[i].family, cases[i].value);
		ck_assert_msg(strcmp(text, expected) == 0,
		    "case %zu: got %s, expected %s", i, text, expected);
		free(text);
		cli_document_clear(&document);
	}
}
END_TEST

START_TEST(test_openmetrics_names)
{
	static const struct {
		const char *in;
		int is_label;
		const char *out;
	} cases[] = {
	    {"rx_bytes", 0, "rx_bytes"},
	    {"rx-bytes.v2", 0, "rx_bytes_v2"},
	    {"9lives", 0, "_9lives"},
	    {"", 0, "_"},
	    {"megabits per second", 0, "megabits_per_second"},
	    {"d\xc3\xa9v", 0, "d__v"},
	    /* Label names starting with "__" are reserved. */
	    {"__name__", 1, "d__name__"},
	    {"--x", 1, "d__x"},
	    {"__name__", 0, "__name__"},
	};
	char name[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		cli_openmetrics_name(
		    cases[i].in, name, sizeof(name), cases[i].is_label);
		ck_assert_str_eq(name, cases[i].out);
	}
	/* Cut to the buffer, terminated. */
	cli_openmetrics_name("abcdefgh", name, 4, 0);
	ck_assert_str_eq(name, "abc");
	cli_openmetrics_name("__abcdefgh", name, 5, 1);
	ck_assert_str_eq(name, "d__a");
}
END_TEST

START_TEST(test_openmetrics_escaping)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	cli_openmetrics_write_escaped(out, "a\\b\"c\nd\x01"
	                                   "e\xff"
	                                   "f\xc3\xa9\xc2\x9b\x9d");
	ck_assert_int_eq(fclose(out), 0);
	/* Controls, C1 ones as UTF-8 (U+009B) or raw (0x9d), have no escape
	 * in OpenMetrics: U+FFFD. */
	ck_assert_str_eq(text, "a\\\\b\\\"c\\nd\xef\xbf\xbd"
	                       "e\xef\xbf\xbd"
	                       "f\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
	free(text);
}
END_TEST

/* Two tables whose families would take the same name: the second is left
 * out, since a name may appear once in an exposition. */
START_TEST(test_openmetrics_duplicates)
{
	struct cli_document document = {0};
	char *text;

	for (int t = 0; t < 2; t++) {
		struct cli_table *table =
		    cli_table_new(t == 0 ? "a.b" : "a_b", "");

		ck_assert_int_eq(cli_table_add_column(
		                     table, "v", CLI_COLUMN_GAUGE, NULL, NULL),
		    0);
		ck_assert_int_eq(cli_table_add_row(table), 0);
		ck_assert_int_eq(
		    cli_table_set(table, 0, 0, "1", t == 0 ? "1" : "2"), 0);
		ck_assert_int_eq(cli_document_add(&document, table), 0);
	}
	text = written(openmetrics_write, &document);
	ck_assert_str_eq(text, "# TYPE dcistat_a_b_v gauge\n"
	                       "dcistat_a_b_v{} 1\n"
	                       "# EOF\n");
	free(text);
	cli_document_clear(&document);
}
END_TEST

/* A gauge named "info" beside the text columns would give samples named as
 * the info family's; a counter "x" and a gauge "x_total" likewise. The
 * later family is left out. */
START_TEST(test_openmetrics_sample_clashes)
{
	struct cli_document document = {0};
	struct cli_table *table = cli_table_new("c", "");
	char *text;

	ck_assert_int_eq(
	    cli_table_add_column(table, "s", CLI_COLUMN_TEXT, NULL, NULL), 0);
	ck_assert_int_eq(
	    cli_table_add_column(table, "info", CLI_COLUMN_GAUGE, NULL, NULL),
	    1);
	ck_assert_int_eq(
	    cli_table_add_column(table, "x", CLI_COLUMN_COUNTER, NULL, NULL),
	    2);
	ck_assert_int_eq(cli_table_add_column(
	                     table, "x_total", CLI_COLUMN_GAUGE, NULL, NULL),
	    3);
	ck_assert_int_eq(cli_table_add_row(table), 0);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(
		    cli_table_set(table, 0, i, "1", i ? "1" : NULL), 0);
	ck_assert_int_eq(cli_document_add(&document, table), 0);
	text = written(openmetrics_write, &document);
	ck_assert_str_eq(text, "# TYPE dcistat_c info\n"
	                       "dcistat_c_info{s=\"1\"} 1\n"
	                       "# TYPE dcistat_c_x counter\n"
	                       "dcistat_c_x_total{} 1\n"
	                       "# EOF\n");
	free(text);
	cli_document_clear(&document);
}
END_TEST

/* --- text tables -------------------------------------------------------- */

START_TEST(test_text_table)
{
	/* Control bytes, C1 ones raw (0x9b) or as UTF-8 (U+009D), and bytes
	 * that are no UTF-8 are shown escaped, the columns aligned on what is
	 * shown; other UTF-8 and backslashes are shown as they are. */
	struct cli_document document =
	    sample_document("a\x9b\\", "x\x1b[2J\n\xc2\x9d\xc3\xa9");
	char *text = written_text(&document, 0), expected[512];

	snprintf(expected, sizeof(expected),
	    "Test \"t\"\n"
	    "instance  id   name%31srx_bytes  queue-length_total\n"
	    "a\\x9b\\    1.2  x\\x1b[2J\\x0a\\xc2\\x9d\xc3\xa9  "
	    "18446744073709551615                  -2\n"
	    "b         2    -%41s-                1.29\n",
	    "", "");
	ck_assert_str_eq(text, expected);
	free(text);
	cli_document_clear(&document);
}
END_TEST

/* 40 columns: the keys (15 characters with the gap) and as many columns as
 * fit beside them, each block under the keys again. */
START_TEST(test_text_table_blocks)
{
	struct cli_document document = sample_document("a", "x");
	char *text = written_text(&document, 40);

	ck_assert_str_eq(text, "Test \"t\"\n"
	                       "instance  id   name\n"
	                       "a         1.2  x\n"
	                       "b         2    -\n"
	                       "\n"
	                       "instance  id               rx_bytes\n"
	                       "a         1.2  18446744073709551615\n"
	                       "b         2                       -\n"
	                       "\n"
	                       "instance  id   queue-length_total\n"
	                       "a         1.2                  -2\n"
	                       "b         2                  1.29\n");
	free(text);
	cli_document_clear(&document);
}
END_TEST

START_TEST(test_text_table_empty)
{
	struct cli_document document = {0};
	struct cli_table *table = cli_table_new("e", "empty class");
	char *text;

	ck_assert_int_eq(
	    cli_table_add_column(table, "instance", CLI_COLUMN_KEY, NULL, NULL),
	    0);
	ck_assert_int_eq(cli_document_add(&document, table), 0);
	text = written_text(&document, 0);
	ck_assert_str_eq(text, "empty class\n(none)\n");
	free(text);
	cli_document_clear(&document);
}
END_TEST

START_TEST(test_column_names_unique)
{
	struct cli_table *table = cli_table_new("t", "");

	ck_assert_int_eq(
	    cli_table_add_column(table, "id", CLI_COLUMN_KEY, NULL, NULL), 0);
	ck_assert_int_eq(
	    cli_table_add_column(table, "id_", CLI_COLUMN_TEXT, NULL, NULL), 1);
	ck_assert_int_eq(
	    cli_table_add_column(table, "id", CLI_COLUMN_GAUGE, NULL, NULL), 2);
	ck_assert_int_eq(
	    cli_table_add_column(table, "id", CLI_COLUMN_GAUGE, NULL, NULL), 3);
	ck_assert_str_eq(table->columns[0].name, "id");
	ck_assert_str_eq(table->columns[1].name, "id_");
	ck_assert_str_eq(table->columns[2].name, "id__");
	ck_assert_str_eq(table->columns[3].name, "id___");
	/* No column once a row is there. */
	ck_assert_int_eq(cli_table_add_row(table), 0);
	ck_assert_int_eq(
	    cli_table_add_column(table, "x", CLI_COLUMN_GAUGE, NULL, NULL), -1);
	cli_table_free(table);
}
END_TEST

START_TEST(test_utf8_width)
{
	ck_assert_uint_eq(cli_utf8_width("abc"), 3);
	ck_assert_uint_eq(cli_utf8_width("d\xc3\xa9v"), 3);
	ck_assert_uint_eq(cli_utf8_width("\xff\xfe"), 2);
	ck_assert_uint_eq(cli_utf8_width("\xf0\x9f\x98\x80"), 1);
	ck_assert_uint_eq(cli_utf8_width(""), 0);
}
END_TEST

/* --- show and watch over a scripted source ------------------------------- */

/* Class "disk" (7.1), one level of one word. c: a 64-bit counter; w: a
 * 32-bit counter; g: a 32-bit gauge; h: a 16-bit gauge in hexadecimal;
 * s: a string; long: a longer one. */
static const struct dci_datum_info script_datums[] = {
    {1, "c", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, DCI_SIP_DECIMAL, 8,
        DCI_SV_VOLATILE, DCI_UNIT_BYTES, DCI_SEMANTICS_COUNTER, "bytes"},
    {2, "w", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, DCI_SIP_DECIMAL, 4,
        DCI_SV_VOLATILE, DCI_UNIT_PACKETS, DCI_SEMANTICS_COUNTER, NULL},
    {3, "g", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, DCI_SIP_DECIMAL, 4,
        DCI_SV_VARIABLE, DCI_UNIT_NONE, DCI_SEMANTICS_GAUGE, NULL},
    {4, "h", DCI_ST_INTEGER16, DCI_SIF_UNSIGNED, DCI_SIP_HEXADECIMAL, 2,
        DCI_SV_VARIABLE, DCI_UNIT_NONE, DCI_SEMANTICS_GAUGE, NULL},
    {5, "s", DCI_ST_STRING, DCI_SSF_ZEROTERM, DCI_SSP_LITERAL, 8, DCI_SV_STATIC,
        DCI_UNIT_NONE, DCI_SEMANTICS_DISCRETE, NULL},
    {6, "long", DCI_ST_STRING, DCI_SSF_ZEROTERM, DCI_SSP_LITERAL, 400,
        DCI_SV_STATIC, DCI_UNIT_NONE, DCI_SEMANTICS_DISCRETE, NULL},
};

/* The value of "long": longer than the renderer's first buffer. */
#define LONG_LENGTH 300

/* One instance's values in one step; an id of 0 ends a step. */
struct script_row {
	uint32_t id;
	const char *label;
	uint64_t c, w, g;
};

/* Step 0 is committed at open, each later one by a refresh, 2 s apart:
 *  1: a's c +2000 (1000/s); w wraps at 2^32 (+0x200: 256/s); b steady.
 *  2: a's c falls: a reset (a gap); b +10 (5/s); c is new (a gap).
 *  3: a +400 after its reset (200/s); b is gone; c +2 (1/s). */
static const struct script_row script_steps[][4] = {
    {{1, "a", 1000, 0xffffff00u, 5}, {2, "b", 10, 0, 6}, {0}},
    {{1, "a", 3000, 0x100, 7}, {2, "b", 10, 0, 6}, {0}},
    {{1, "a", 500, 0x100, 8}, {2, "b", 20, 0, 6}, {3, "c", 7, 1, 9}, {0}},
    {{1, "a", 900, 0x100, 9}, {3, "c", 9, 1, 9}, {0}},
};

struct script {
	struct dci_registry *registry;
	struct dci_class *class;
	size_t step;
	int64_t now;
};

static void
script_commit(struct script *script)
{
	struct dci_snapshot_builder *builder =
	    dci_snapshot_builder_new(script->class);
	char why[512] = "", long_value[LONG_LENGTH];

	memset(long_value, 'z', sizeof(long_value));
	ck_assert_ptr_nonnull(builder);
	for (const struct script_row *row = script_steps[script->step];
	     row->id != 0; row++) {
		long at = dci_snapshot_builder_add(
		    builder, &row->id, 1, row->label, why, sizeof(why));

		ck_assert_msg(at >= 0, "%s", why);
		ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
		                     builder, at, 1, row->c, why, sizeof(why)),
		    0);
		ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
		                     builder, at, 2, row->w, why, sizeof(why)),
		    0);
		ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
		                     builder, at, 3, row->g, why, sizeof(why)),
		    0);
		ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
		                     builder, at, 4, 0x1234, why, sizeof(why)),
		    0);
		ck_assert_int_eq(dci_snapshot_builder_set_bytes(builder, at, 5,
		                     "x\"y", 3, why, sizeof(why)),
		    0);
		ck_assert_int_eq(dci_snapshot_builder_set_bytes(builder, at, 6,
		                     long_value, LONG_LENGTH, why, sizeof(why)),
		    0);
	}
	ck_assert_int_eq(dci_snapshot_commit(builder, script->class,
	                     script->now, why, sizeof(why)),
	    0);
}

static int
script_refresh(struct cli_source *source, char *error, size_t error_size)
{
	struct script *script = source->state;

	(void)error;
	(void)error_size;
	if (script->step + 1 < sizeof(script_steps) / sizeof(*script_steps))
		script->step++;
	script->now += 2000;
	script_commit(script);
	return 0;
}

static void
script_wait_until(struct cli_source *source, int64_t deadline)
{
	(void)source;
	(void)deadline;
}

static void
script_close(struct cli_source *source)
{
	struct script *script = source->state;

	dci_registry_free(script->registry);
}

static const struct cli_source_operations script_operations = {
    .refresh = script_refresh,
    .wait_until = script_wait_until,
    .close = script_close,
};

static void
script_open(struct cli_source *source, struct script *script)
{
	static const uint32_t class_id[] = {7, 1};
	static const struct dci_instance_level level = {DCI_ITYPE_DEVICE, 4};
	const struct dci_supplier_info supplier_info = {
	    "disks", "Disks", "scripted", 0, 100};
	const struct dci_class_info class_info = {class_id, 2, "disk", NULL,
	    &level, 1, script_datums,
	    sizeof(script_datums) / sizeof(*script_datums)};
	struct dci_supplier *supplier;
	char why[512] = "";

	memset(script, 0, sizeof(*script));
	script->registry = dci_registry_new();
	ck_assert_ptr_nonnull(script->registry);
	supplier = dci_registry_add_supplier(
	    script->registry, &supplier_info, "test", why, sizeof(why));
	ck_assert_msg(supplier != NULL, "%s", why);
	script->class = dci_registry_add_class(
	    script->registry, supplier, &class_info, script, why, sizeof(why));
	ck_assert_msg(script->class != NULL, "%s", why);
	script->now = 10000;
	script_commit(script);
	*source = (struct cli_source){.operations = &script_operations,
	    .registry = script->registry,
	    .state = script};
}

/* A table as "instance:column=text/number ..." lines, "-" for none. */
static char *
table_summary(const struct cli_table *table)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	for (size_t row = 0; row < table->row_count; row++) {
		fputs(cli_table_cell(table, row, 0)->text, out);
		for (size_t i = 1; i < table->column_count; i++) {
			const struct cli_cell *cell =
			    cli_table_cell(table, row, i);

			fprintf(out, " %s=%s/%s", table->columns[i].name,
			    cell->text != NULL ? cell->text : "-",
			    cell->number != NULL ? cell->number : "-");
		}
		putc('\n', out);
	}
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

START_TEST(test_show_values)
{
	struct cli_source source;
	struct script script;
	struct cli_table *table;
	char error[256] = "", *text;

	script_open(&source, &script);
	table = cli_values_show(
	    script.class, NULL, "c,w,g,h,s", error, sizeof(error));
	ck_assert_msg(table != NULL, "%s", error);
	ck_assert_str_eq(table->title, "disk (class 7.1, 2 instances)");
	ck_assert_int_eq(table->columns[2].role, CLI_COLUMN_COUNTER);
	ck_assert_str_eq(table->columns[2].unit, "bytes");
	ck_assert_int_eq(table->columns[4].role, CLI_COLUMN_GAUGE);
	ck_assert_int_eq(table->columns[6].role, CLI_COLUMN_TEXT);
	text = table_summary(table);
	/* Text by the DCI4 presentation (hexadecimal for h), numbers in
	 * decimal; a string has no number. */
	ck_assert_str_eq(text,
	    "a id=1/- c=1000/1000 w=4294967040/4294967040 g=5/5 "
	    "h=0x1234/4660 s=x\"y/-\n"
	    "b id=2/- c=10/10 w=0/0 g=6/6 h=0x1234/4660 s=x\"y/-\n");
	free(text);
	cli_table_free(table);

	/* Every datum: the long string whole. */
	table = cli_values_show(script.class, NULL, NULL, error, sizeof(error));
	ck_assert_msg(table != NULL, "%s", error);
	ck_assert_uint_eq(table->column_count, 2 + 6);
	ck_assert_str_eq(table->columns[7].name, "long");
	ck_assert_uint_eq(
	    strlen(cli_table_cell(table, 1, 7)->text), LONG_LENGTH);
	ck_assert_uint_eq(
	    strspn(cli_table_cell(table, 1, 7)->text, "z"), LONG_LENGTH);
	ck_assert_ptr_null(cli_table_cell(table, 1, 7)->number);
	cli_table_free(table);

	/* One instance, by label or by id; chosen datums in their order. */
	table = cli_values_show(script.class, "2", "g,1", error, sizeof(error));
	ck_assert_msg(table != NULL, "%s", error);
	text = table_summary(table);
	ck_assert_str_eq(text, "b id=2/- g=6/6 c=10/10\n");
	free(text);
	cli_table_free(table);
	ck_assert_ptr_null(
	    cli_values_show(script.class, "zz", NULL, error, sizeof(error)));
	ck_assert_str_eq(error, "class disk has no instance 'zz'");
	ck_assert_ptr_null(
	    cli_values_show(script.class, NULL, "g,9", error, sizeof(error)));
	ck_assert_str_eq(
	    error, "class disk has no datum '9' (see dcistat describe disk)");
	source.operations->close(&source);
}
END_TEST

START_TEST(test_catalog)
{
	struct cli_source source;
	struct script script;
	struct cli_document document = {0};
	char *text;

	script_open(&source, &script);
	ck_assert_int_eq(cli_catalog_suppliers(
	                     &document, script.registry, 100000, 1767225600000),
	    0);
	ck_assert_int_eq(
	    cli_catalog_classes(&document, script.registry, NULL), 0);
	ck_assert_int_eq(cli_catalog_describe(&document, script.class), 0);
	ck_assert_uint_eq(document.count, 5);
	/* The supplier was registered at some monotonic time; its reset
	 * moment is shown against the wall clock given (2026-01-01). */
	text = table_summary(document.tables[0]);
	ck_assert_msg(strncmp(text,
	                  "disks title=Disks/- version=1.00/- "
	                  "status=running/- reset=",
	                  strlen("disks title=Disks/- version=1.00/- "
	                         "status=running/- reset=")) == 0,
	    "%s", text);
	free(text);
	text = table_summary(document.tables[1]);
	ck_assert_str_eq(text, "disk id=7.1/- supplier=disks/- "
	                       "levels=DEVICE(4)/- datums=6/6 instances=2/2 "
	                       "description=/-\n");
	free(text);
	ck_assert_str_eq(document.tables[2]->name, "classes");
	ck_assert_str_eq(document.tables[3]->name, "disk_levels");
	ck_assert_str_eq(document.tables[4]->name, "disk_datums");
	text = table_summary(document.tables[3]);
	ck_assert_str_eq(text, "1 itype=DEVICE/- size=4/4\n");
	free(text);
	text = table_summary(document.tables[4]);
	ck_assert_str_eq(text,
	    "c id=1/- type=ST_INTEGER64/- format=unsigned little-endian/- "
	    "presentation=decimal/- size=8/- volatility=volatile/- "
	    "unit=bytes/- semantics=counter/- description=bytes/-\n"
	    "w id=2/- type=ST_INTEGER32/- format=unsigned little-endian/- "
	    "presentation=decimal/- size=4/- volatility=volatile/- "
	    "unit=packets/- semantics=counter/- description=/-\n"
	    "g id=3/- type=ST_INTEGER32/- format=unsigned little-endian/- "
	    "presentation=decimal/- size=4/- volatility=variable/- unit=/- "
	    "semantics=gauge/- description=/-\n"
	    "h id=4/- type=ST_INTEGER16/- format=unsigned little-endian/- "
	    "presentation=hexadecimal/- size=2/- volatility=variable/- "
	    "unit=/- semantics=gauge/- description=/-\n"
	    "s id=5/- type=ST_STRING/- format=zero-terminated/- "
	    "presentation=literal/- size=8/- volatility=static/- unit=/- "
	    "semantics=discrete/- description=/-\n"
	    "long id=6/- type=ST_STRING/- format=zero-terminated/- "
	    "presentation=literal/- size=400/- volatility=static/- unit=/- "
	    "semantics=discrete/- description=/-\n");
	free(text);
	cli_document_clear(&document);
	source.operations->close(&source);
}
END_TEST

struct captured {
	char *intervals[8];
	size_t count;
};

static int
capture(struct cli_document *document, void *context)
{
	struct captured *captured = context;

	ck_assert_uint_eq(document->count, 1);
	ck_assert_uint_lt(captured->count, 8);
	captured->intervals[captured->count++] =
	    table_summary(document->tables[0]);
	return 0;
}

START_TEST(test_watch_rates)
{
	struct cli_source source;
	struct script script;
	struct captured captured = {0};
	struct cli_watch_settings settings = {.class_name = "7.1",
	    .selection = "c,w,g",
	    .interval_milliseconds = 2000,
	    .count = 3};
	char error[256] = "";

	script_open(&source, &script);
	ck_assert_int_eq(cli_watch_run(&source, &settings, capture, &captured,
	                     error, sizeof(error)),
	    0);
	ck_assert_uint_eq(captured.count, 3);
	ck_assert_str_eq(captured.intervals[0],
	    "a id=1/- interval=2.000/2.000 c_per_second=1000/1000 "
	    "w_per_second=256/256 g=7/7\n"
	    "b id=2/- interval=2.000/2.000 c_per_second=0/0 "
	    "w_per_second=0/0 g=6/6\n");
	/* a was reset: a gap, not 2^64 - 2500 over 2 s, for each of its
	 * counters (the core marks the instance discontinuous); c is new. */
	ck_assert_str_eq(captured.intervals[1],
	    "a id=1/- interval=2.000/2.000 c_per_second=-/- "
	    "w_per_second=-/- g=8/8\n"
	    "b id=2/- interval=2.000/2.000 c_per_second=5/5 "
	    "w_per_second=0/0 g=6/6\n"
	    "c id=3/- interval=2.000/2.000 c_per_second=-/- "
	    "w_per_second=-/- g=9/9\n");
	/* After the reset a's rate is back; b is gone. */
	ck_assert_str_eq(captured.intervals[2],
	    "a id=1/- interval=2.000/2.000 c_per_second=200/200 "
	    "w_per_second=0/0 g=9/9\n"
	    "c id=3/- interval=2.000/2.000 c_per_second=1/1 "
	    "w_per_second=0/0 g=9/9\n");
	for (size_t i = 0; i < captured.count; i++)
		free(captured.intervals[i]);

	/* An unknown class or datum is refused before the first interval. */
	settings.class_name = "nosuch";
	ck_assert_int_eq(cli_watch_run(&source, &settings, capture, &captured,
	                     error, sizeof(error)),
	    -1);
	ck_assert_str_eq(error, "no class 'nosuch' (see dcistat classes)");
	settings.class_name = "disk";
	settings.selection = "c,,g";
	ck_assert_int_eq(cli_watch_run(&source, &settings, capture, &captured,
	                     error, sizeof(error)),
	    -1);
	ck_assert_str_eq(error, "empty datum name in -d 'c,,g'");
	ck_assert_uint_eq(captured.count, 3);
	source.operations->close(&source);
}
END_TEST

static Suite *
cli_suite(void)
{
	Suite *suite = suite_create("cli");
	TCase *rates = tcase_create("rates");
	TCase *writers = tcase_create("writers");
	TCase *values = tcase_create("values");

	tcase_add_test(rates, test_rate_exact);
	tcase_add_test(rates, test_rate_wraps);
	tcase_add_test(rates, test_rate_gaps);
	tcase_add_test(rates, test_rate_format);
	suite_add_tcase(suite, rates);
	tcase_add_test(writers, test_json_document);
	tcase_add_test(writers, test_json_escaping);
	tcase_add_test(writers, test_human_numbers);
	tcase_add_test(writers, test_text_human_and_color);
	tcase_add_test(writers, test_view);
	tcase_add_test(writers, test_view_sort_exact);
	tcase_add_test(writers, test_openmetrics_document);
	tcase_add_test(writers, test_prometheus_document);
	tcase_add_test(writers, test_openmetrics_base_units);
	tcase_add_test(writers, test_openmetrics_names);
	tcase_add_test(writers, test_openmetrics_escaping);
	tcase_add_test(writers, test_openmetrics_duplicates);
	tcase_add_test(writers, test_openmetrics_sample_clashes);
	tcase_add_test(writers, test_text_table);
	tcase_add_test(writers, test_text_table_blocks);
	tcase_add_test(writers, test_text_table_empty);
	tcase_add_test(writers, test_utf8_width);
	tcase_add_test(writers, test_column_names_unique);
	suite_add_tcase(suite, writers);
	tcase_add_test(values, test_show_values);
	tcase_add_test(values, test_watch_rates);
	tcase_add_test(values, test_catalog);
	suite_add_tcase(suite, values);
	return suite;
}

int
main(void)
{
	return unit_run_suite(cli_suite());
}
