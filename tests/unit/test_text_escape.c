/*
 * Unit tests for the one escaping of outside text (src/text/escape.c) and
 * for the log that applies it to every message (src/base/log.c): newline,
 * ESC, CSI, OSC 52, DEL and the C1 controls, as raw bytes (0x9b, 0x9d) and
 * as UTF-8 (U+009B, U+009D), never reach a log line or a terminal as they
 * are.
 */
#include "text/escape.h"
#include "text/utf8.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "base/log.h"
#include "model/registry.h"
#include "check_runner.h"

/* A forged line, clear screen, a title (OSC 0) and the clipboard (OSC 52),
 * raw C1 CSI and OSC, C1 as UTF-8, and DEL. */
static const char hostile[] =
    "x\nwarning: agent: FORGED LINE\x1b[2J\x1b]0;title\x07"
    "\x1b]52;c;ZXZpbA==\x07\x9b"
    "31m\x9d"
    "0;t\x07\xc2\x9b"
    "1m\xc2\x9d"
    "0;u\x07\x7f"
    "end";

/* No byte a terminal or a log reader acts on: no C0 control, no DEL, no
 * C1 byte, and (in the terminal mode's output) no C1 as UTF-8. */
static void
assert_inert(const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		ck_assert_msg(*c >= 0x20 && *c != 0x7f,
		    "byte 0x%02x at %zu of \"%s\"", *c,
		    (size_t)(c - (const unsigned char *)text), text);
		ck_assert_msg(
		    !(*c >= 0x80 && *c <= 0x9f) ||
		        (c > (const unsigned char *)text && c[-1] >= 0xc3),
		    "C1 byte 0x%02x at %zu", *c,
		    (size_t)(c - (const unsigned char *)text));
	}
}

/* The one decoder the escaping and the CLI's writers share: each length
 * and code point, and each malformed sequence refused. */
START_TEST(utf8_decoder_lengths_and_refusals)
{
	static const struct {
		const char *bytes;
		size_t length; /* 0: refused */
		unsigned long code;
	} cases[] = {
	    {"A", 1, 0x41},
	    {"\xc2\x85", 2, 0x85},            /* C1 NEL: UTF-8 all the same */
	    {"\xc3\xa9", 2, 0xe9},            /* e acute */
	    {"\xe2\x82\xac", 3, 0x20ac},      /* euro sign */
	    {"\xf0\x9f\x98\x80", 4, 0x1f600}, /* emoji */
	    {"\xc0\xaf", 0, 0},               /* overlong '/' */
	    {"\xe0\x80\xaf", 0, 0},           /* overlong, 3 bytes */
	    {"\xed\xa0\x80", 0, 0},           /* surrogate U+D800 */
	    {"\xf4\x90\x80\x80", 0, 0},       /* beyond U+10FFFF */
	    {"\xe2\x82", 0, 0},               /* cut short */
	    {"\x80", 0, 0},                   /* lone continuation */
	    {"\xc3\x41", 0, 0},               /* no continuation ('A') */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long code = 0;
		size_t length =
		    dci_text_utf8_length((const unsigned char *)cases[i].bytes,
		        strlen(cases[i].bytes), &code);

		ck_assert_uint_eq(length, cases[i].length);
		if (length > 0)
			ck_assert_uint_eq(code, cases[i].code);
	}
	ck_assert_uint_eq(dci_text_utf8_length((const unsigned char *)"", 0,
	                      &(unsigned long){0}),
	    0);
}
END_TEST

START_TEST(label_mode_escapes_every_other_byte)
{
	char out[512];
	size_t done = dci_text_escape(
	    out, sizeof(out), hostile, strlen(hostile), DCI_TEXT_ESCAPE_LABEL);

	ck_assert_uint_eq(done, strlen(hostile));
	ck_assert_str_eq(out,
	    "x\\x0awarning: agent: FORGED LINE\\x1b[2J\\x1b]0;title\\x07"
	    "\\x1b]52;c;ZXZpbA==\\x07\\x9b31m\\x9d0;t\\x07\\xc2\\x9b1m"
	    "\\xc2\\x9d0;u\\x07\\x7fend");
	assert_inert(out);
	dci_text_escape(
	    out, sizeof(out), "a\\b d\xc3\xa9v", 8, DCI_TEXT_ESCAPE_LABEL);
	ck_assert_str_eq(out, "a\\\\b d\\xc3\\xa9v");
}
END_TEST

START_TEST(terminal_mode_keeps_utf8_and_backslashes)
{
	char out[512];

	dci_text_escape(out, sizeof(out), hostile, strlen(hostile),
	    DCI_TEXT_ESCAPE_TERMINAL);
	ck_assert_str_eq(out,
	    "x\\x0awarning: agent: FORGED LINE\\x1b[2J\\x1b]0;title\\x07"
	    "\\x1b]52;c;ZXZpbA==\\x07\\x9b31m\\x9d0;t\\x07\\xc2\\x9b1m"
	    "\\xc2\\x9d0;u\\x07\\x7fend");
	assert_inert(out);
	/* UTF-8 from U+00A0 stays (é, U+00A0, €, U+1F600); a backslash
	 * stays (the text may hold escapes already); a tab, a lone
	 * continuation byte, an overlong form and a cut sequence do not. */
	dci_text_escape(out, sizeof(out),
	    "d\xc3\xa9v\xc2\xa0\xe2\x82\xac\xf0\x9f\x98\x80\\x\t\x80\xc0\xaf"
	    "\xe2\x82",
	    21, DCI_TEXT_ESCAPE_TERMINAL);
	ck_assert_str_eq(out,
	    "d\xc3\xa9v\xc2\xa0\xe2\x82\xac\xf0\x9f\x98\x80\\x\\x09\\x80"
	    "\\xc0\\xaf\\xe2\\x82");
	ck_assert(dci_text_needs_escape("a\x1b", 2, DCI_TEXT_ESCAPE_TERMINAL));
	ck_assert(!dci_text_needs_escape(
	    "d\xc3\xa9v\\", 5, DCI_TEXT_ESCAPE_TERMINAL));
	ck_assert(dci_text_needs_escape("a\\", 2, DCI_TEXT_ESCAPE_LABEL));
}
END_TEST

/* Cut to the room there is, on a whole character or escape; a quote says
 * it was cut. */
START_TEST(cut_on_whole_escapes)
{
	char out[8];

	ck_assert_uint_eq(dci_text_escape(out, sizeof(out), "ab\ncd", 5,
	                      DCI_TEXT_ESCAPE_LABEL),
	    4);
	ck_assert_str_eq(out, "ab\\x0ac");
	ck_assert_uint_eq(
	    dci_text_escape(out, 5, "ab\ncd", 5, DCI_TEXT_ESCAPE_LABEL), 2);
	ck_assert_str_eq(out, "ab");
	ck_assert_uint_eq(dci_text_escape(out, 4, "\xc3\xa9\xc3\xa9", 4,
	                      DCI_TEXT_ESCAPE_TERMINAL),
	    2);
	ck_assert_str_eq(out, "\xc3\xa9");
	ck_assert_str_eq(dci_text_quote(out, sizeof(out), "abc\n"), "abc\\x0a");
	ck_assert_str_eq(dci_text_quote(out, sizeof(out), "abcd\n"), "abcd...");
	ck_assert_str_eq(dci_text_quote(out, sizeof(out), "a\"b"), "a\"b");
	ck_assert_str_eq(dci_text_quote(out, sizeof(out), NULL), "(null)");
}
END_TEST

/* The instance labels as served keep their rule (registry.h). */
START_TEST(instance_labels_escaped_by_the_same_rule)
{
	char escaped[DCI_INSTANCE_LABEL_SIZE], label[400];

	ck_assert(dci_registry_instance_label_escape(
	    "eth0\n\x9b\\", escaped, NULL, 0));
	ck_assert_str_eq(escaped, "eth0\\x0a\\x9b\\\\");
	memset(label, '\n', sizeof(label) - 1);
	label[sizeof(label) - 1] = '\0';
	ck_assert(dci_registry_instance_label_escape(label, escaped, NULL, 0));
	ck_assert_uint_le(strlen(escaped), DCI_LABEL_MAX);
	ck_assert_int_eq(
	    strncmp(escaped + strlen(escaped) - 10 - 4, "\\x0a\\~", 6), 0);
	assert_inert(escaped);
}
END_TEST

/* A label that stands for itself is copied whole (the fast path) exactly
 * when the escaper would leave it as it is: printable ASCII without a
 * backslash of at most DCI_LABEL_MAX characters; one character more, a
 * backslash or a byte outside 0x20..0x7e at its end takes the escaper. */
START_TEST(plain_labels_stand_for_themselves_up_to_the_limit)
{
	char escaped[DCI_INSTANCE_LABEL_SIZE], label[DCI_LABEL_MAX + 2];
	char expected[DCI_INSTANCE_LABEL_SIZE];

	memset(label, 'a', sizeof(label) - 1);
	label[sizeof(label) - 1] = '\0';
	label[0] = ' ';
	label[DCI_LABEL_MAX - 1] = '~';
	label[DCI_LABEL_MAX] = '\0';
	ck_assert(dci_registry_instance_label_escape(label, escaped, NULL, 0));
	ck_assert_str_eq(escaped, label);
	/* One more character: cut, with the hash mark. */
	label[DCI_LABEL_MAX] = 'a';
	ck_assert(dci_registry_instance_label_escape(label, escaped, NULL, 0));
	ck_assert_uint_eq(strlen(escaped), DCI_LABEL_MAX);
	ck_assert_int_eq(strncmp(escaped, label, DCI_LABEL_MAX - 10), 0);
	ck_assert_int_eq(strncmp(escaped + DCI_LABEL_MAX - 10, "\\~", 2), 0);
	/* The last byte of a short label escaped: 0x7f, 0x1f, a backslash. */
	static const char *const edges[][2] = {{"unit7\x7f", "unit7\\x7f"},
	    {"unit7\x1f", "unit7\\x1f"}, {"unit7\\", "unit7\\\\"}, {"u", "u"}};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		ck_assert(dci_registry_instance_label_escape(
		    edges[i][0], escaped, NULL, 0));
		snprintf(expected, sizeof(expected), "%s", edges[i][1]);
		ck_assert_str_eq(escaped, expected);
	}
}
END_TEST

static char logged[8192];
static int logged_count;

static void
capture(int level, const char *message)
{
	(void)level;
	snprintf(logged, sizeof(logged), "%s", message);
	logged_count++;
}

/* Whatever a caller passes, the sink gets one line: every control byte,
 * C1 byte and C1 character escaped; a newline ending the message is the
 * line's end, not escaped. */
START_TEST(log_messages_reach_the_sink_escaped)
{
	log_set_sink(capture);
	logged_count = 0;
	log_warnx("provider %s: class refused", hostile);
	ck_assert_int_eq(logged_count, 1);
	ck_assert_str_eq(logged,
	    "provider x\\x0awarning: agent: FORGED LINE\\x1b[2J\\x1b]0;title"
	    "\\x07\\x1b]52;c;ZXZpbA==\\x07\\x9b31m\\x9d0;t\\x07\\xc2\\x9b1m"
	    "\\xc2\\x9d0;u\\x07\\x7fend: class refused");
	assert_inert(logged);
	log_message(LOG_ERR, "net-snmp: %s\n", "line");
	ck_assert_str_eq(logged, "net-snmp: line");
	log_info("d\xc3\xa9v0 \\x0a kept");
	ck_assert_str_eq(logged, "d\xc3\xa9v0 \\x0a kept");
	log_set_debug_tokens("all");
	log_debug("test", "%s", "\x1b[2J");
	ck_assert_str_eq(logged, "[test] \\x1b[2J");
	log_set_debug_tokens(NULL);
	log_set_sink(NULL);
}
END_TEST

/* A refresh thread's messages are escaped before they wait in the
 * queue. */
START_TEST(deferred_messages_escaped)
{
	log_set_sink(capture);
	log_defer_this_thread();
	log_warnx("%s", "a\nb");
	logged[0] = '\0';
	log_flush_deferred();
	ck_assert_str_eq(logged, "a\\x0ab");
	log_set_sink(NULL);
}
END_TEST

/* The registry's refusal of a label quotes it escaped. */
START_TEST(refused_labels_quoted_escaped)
{
	char why[512];

	ck_assert(!dci_registry_label_valid(hostile, why, sizeof(why)));
	assert_inert(why);
	ck_assert_ptr_nonnull(strstr(why, "label \"x\\x0awarning"));
}
END_TEST

static Suite *
escape_suite(void)
{
	Suite *suite = suite_create("text_escape");
	TCase *escaping = tcase_create("escaping");

	tcase_add_test(escaping, utf8_decoder_lengths_and_refusals);
	tcase_add_test(escaping, label_mode_escapes_every_other_byte);
	tcase_add_test(escaping, terminal_mode_keeps_utf8_and_backslashes);
	tcase_add_test(escaping, cut_on_whole_escapes);
	tcase_add_test(escaping, instance_labels_escaped_by_the_same_rule);
	tcase_add_test(
	    escaping, plain_labels_stand_for_themselves_up_to_the_limit);
	tcase_add_test(escaping, log_messages_reach_the_sink_escaped);
	tcase_add_test(escaping, deferred_messages_escaped);
	tcase_add_test(escaping, refused_labels_quoted_escaped);
	suite_add_tcase(suite, escaping);
	return suite;
}

int
main(void)
{
	return unit_run_suite(escape_suite());
}
