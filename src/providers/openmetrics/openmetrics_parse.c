/*
 * openmetrics_parse: see openmetrics_parse.h.
 */
#define _GNU_SOURCE

#include "openmetrics_parse.h"
#include "openmetrics_series.h"

#include "providers/common/growable.h"
#include "text/escape.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	struct om_scrape *scrape;
	const struct om_limits *limits;
	size_t line_number;
	/* The family the last line belonged to, or UINT32_MAX. */
	uint32_t current;
};

static int fail(struct parser *parser, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(struct parser *parser, const char *format, ...)
{
	va_list arguments;

	va_start(arguments, format);
	vsnprintf(parser->scrape->error, sizeof(parser->scrape->error), format,
	    arguments);
	va_end(arguments);
	parser->scrape->error_line = parser->line_number;
	return -1;
}

/*
 * Makes room for one element after the `count` held in an array of the
 * scrape (items_address, capacity and size as for provider_reserve),
 * refusing the count-plus-first past `limit`: "more than <limit> <what>".
 * Returns 0, or -1 after fail.
 */
static int
scrape_reserve_one(struct parser *parser, void *items_address, size_t *capacity,
    size_t count, size_t size, size_t limit, const char *what)
{
	if (count >= limit)
		return fail(parser, "more than %zu %s", limit, what);
	if (provider_reserve(items_address, capacity, count + 1, size) != 0)
		return fail(parser, "out of memory");
	return 0;
}

/* An outside name quoted in an error: escaped, cut. */
static const char *
quote(char *out, size_t out_size, const char *text, size_t length)
{
	size_t written =
	    dci_text_escape(out, out_size, text, length, DCI_TEXT_ESCAPE_LABEL);
	if (written < length && out_size > 4)
		memcpy(out + out_size - 4, "...", 4);
	return out;
}

const char *
om_type_name(enum om_type type)
{
	switch (type) {
	case OM_TYPE_COUNTER:
		return "counter";
	case OM_TYPE_GAUGE:
		return "gauge";
	case OM_TYPE_HISTOGRAM:
		return "histogram";
	case OM_TYPE_GAUGEHISTOGRAM:
		return "gaugehistogram";
	case OM_TYPE_SUMMARY:
		return "summary";
	case OM_TYPE_INFO:
		return "info";
	case OM_TYPE_STATESET:
		return "stateset";
	case OM_TYPE_UNKNOWN:
		break;
	}
	return "unknown";
}

static bool
type_from_name(const char *name, size_t length, enum om_type *type)
{
	static const struct {
		const char *name;
		enum om_type type;
	} types[] = {
	    {"counter", OM_TYPE_COUNTER},
	    {"gauge", OM_TYPE_GAUGE},
	    {"histogram", OM_TYPE_HISTOGRAM},
	    {"gaugehistogram", OM_TYPE_GAUGEHISTOGRAM},
	    {"summary", OM_TYPE_SUMMARY},
	    {"info", OM_TYPE_INFO},
	    {"stateset", OM_TYPE_STATESET},
	    {"unknown", OM_TYPE_UNKNOWN},
	    {"untyped", OM_TYPE_UNKNOWN},
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].name) == length &&
		    memcmp(types[i].name, name, length) == 0) {
			*type = types[i].type;
			return true;
		}
	return false;
}

static bool
name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':';
}

static bool
name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* The length of the metric name at `text` (0 if none). */
static size_t
name_length(const char *text, const char *end)
{
	const char *cursor = text;
	if (cursor == end || !name_start(*cursor))
		return 0;
	while (cursor < end && name_char(*cursor))
		cursor++;
	return (size_t)(cursor - text);
}

/* The family named so, or UINT32_MAX; *slot is where it is or goes. */
static uint32_t
family_find(const struct om_scrape *scrape, const char *name, size_t length,
    size_t *slot)
{
	size_t mask = scrape->family_index_size - 1;
	size_t at = om_fnv1a32(name, length) & mask;
	for (;;) {
		uint32_t entry = scrape->family_index[at];
		if (entry == 0) {
			*slot = at;
			return UINT32_MAX;
		}
		const struct om_family *family = &scrape->families[entry - 1];
		if (family->name_length == length &&
		    memcmp(family->name, name, length) == 0) {
			*slot = at;
			return entry - 1;
		}
		at = (at + 1) & mask;
	}
}

/* Starts a family; fails on a second family of one name or on too many. */
static int
family_add(
    struct parser *parser, const char *name, size_t length, enum om_type type)
{
	struct om_scrape *scrape = parser->scrape;
	char quoted[96];
	size_t slot;

	if (family_find(scrape, name, length, &slot) != UINT32_MAX)
		return fail(parser, "family %s appears twice",
		    quote(quoted, sizeof(quoted), name, length));
	if (scrape_reserve_one(parser, &scrape->families,
	        &scrape->family_capacity, scrape->family_count,
	        sizeof *scrape->families, parser->limits->families,
	        "families") != 0)
		return -1;
	scrape->families[scrape->family_count] = (struct om_family){
	    .name = name,
	    .name_length = (uint32_t)length,
	    .type = type,
	    .sample_first = (uint32_t)scrape->sample_count,
	};
	scrape->family_index[slot] = (uint32_t)scrape->family_count + 1;
	parser->current = (uint32_t)scrape->family_count++;
	return 0;
}

static bool
has_suffix(const char *name, size_t length, const char *family,
    size_t family_length, const char *suffix)
{
	size_t suffix_length = strlen(suffix);
	return length == family_length + suffix_length &&
	       memcmp(name, family, family_length) == 0 &&
	       memcmp(name + family_length, suffix, suffix_length) == 0;
}

/* Whether sample `name` is part of `family`, and as what. */
static bool
family_member(const struct om_family *family, const char *name, size_t length,
    enum om_suffix *suffix)
{
	const char *f = family->name;
	size_t fl = family->name_length;
	bool exact = length == fl && memcmp(name, f, fl) == 0;

	switch (family->type) {
	case OM_TYPE_COUNTER:
		*suffix = has_suffix(name, length, f, fl, "_created")
		              ? OM_SUFFIX_CREATED
		              : OM_SUFFIX_TOTAL;
		return exact || has_suffix(name, length, f, fl, "_total") ||
		       *suffix == OM_SUFFIX_CREATED;
	case OM_TYPE_HISTOGRAM:
	case OM_TYPE_SUMMARY:
	case OM_TYPE_GAUGEHISTOGRAM: {
		bool gauge = family->type == OM_TYPE_GAUGEHISTOGRAM;
		if (family->type != OM_TYPE_SUMMARY &&
		    has_suffix(name, length, f, fl, "_bucket"))
			*suffix = OM_SUFFIX_BUCKET;
		else if (has_suffix(
		             name, length, f, fl, gauge ? "_gcount" : "_count"))
			*suffix = OM_SUFFIX_COUNT;
		else if (has_suffix(
		             name, length, f, fl, gauge ? "_gsum" : "_sum"))
			*suffix = OM_SUFFIX_SUM;
		else if (!gauge && has_suffix(name, length, f, fl, "_created"))
			*suffix = OM_SUFFIX_CREATED;
		else if (family->type == OM_TYPE_SUMMARY && exact)
			*suffix = OM_SUFFIX_NONE;
		else
			return false;
		return true;
	}
	case OM_TYPE_INFO:
		*suffix = OM_SUFFIX_INFO;
		return has_suffix(name, length, f, fl, "_info") ||
		       (exact && fl >= 5 &&
		           memcmp(f + fl - 5, "_info", 5) == 0);
	case OM_TYPE_GAUGE:
	case OM_TYPE_STATESET:
	case OM_TYPE_UNKNOWN:
		break;
	}
	*suffix = OM_SUFFIX_NONE;
	return exact;
}

/* Unescapes a quoted label value in place (\\, \", \n); `cursor` is after
 * the opening quote. Returns the position after the closing quote, or
 * NULL. */
static char *
quoted_value(char *cursor, char *end, uint32_t *length)
{
	char *out = cursor, *start = cursor;
	while (cursor < end && *cursor != '"') {
		if (*cursor == '\\') {
			if (cursor + 1 == end)
				return NULL;
			cursor++;
			if (*cursor == 'n')
				*out++ = '\n';
			else if (*cursor == '\\' || *cursor == '"')
				*out++ = *cursor;
			else
				return NULL;
			cursor++;
		} else
			*out++ = *cursor++;
	}
	if (cursor == end)
		return NULL;
	*length = (uint32_t)(out - start);
	*out = '\0'; /* over the closing quote or what was unescaped */
	return cursor + 1;
}

static char *
skip_blanks(char *cursor, char *end)
{
	while (cursor < end && (*cursor == ' ' || *cursor == '\t'))
		cursor++;
	return cursor;
}

/* Reads {name="value",...} at `cursor` (after the brace). Returns the
 * position after the closing brace or NULL (after fail). */
static char *
labels_read(struct parser *parser, char *cursor, char *end, uint32_t *count)
{
	struct om_scrape *scrape = parser->scrape;
	*count = 0;
	for (;;) {
		cursor = skip_blanks(cursor, end);
		if (cursor < end && *cursor == '}')
			return cursor + 1;
		size_t length = name_length(cursor, end);
		if (length == 0) {
			fail(parser, "bad label name");
			return NULL;
		}
		char *name = cursor;
		cursor = skip_blanks(cursor + length, end);
		if (cursor + 1 >= end || *cursor != '=') {
			fail(parser, "label without '='");
			return NULL;
		}
		name[length] = '\0'; /* over a blank or the '=' */
		cursor = skip_blanks(cursor + 1, end);
		if (cursor == end || *cursor != '"') {
			fail(parser, "label value not quoted");
			return NULL;
		}
		uint32_t value_length;
		char *value = cursor + 1;
		cursor = quoted_value(value, end, &value_length);
		if (cursor == NULL) {
			fail(parser, "bad label value");
			return NULL;
		}
		if (*count >= parser->limits->labels_per_series) {
			fail(parser, "more than %zu labels",
			    parser->limits->labels_per_series);
			return NULL;
		}
		if (PROVIDER_RESERVE(scrape->labels, scrape->label_capacity,
		        scrape->label_count + 1) != 0) {
			fail(parser, "out of memory");
			return NULL;
		}
		scrape->labels[scrape->label_count++] = (struct om_label){
		    .name = name,
		    .value = value,
		    .name_length = (uint32_t)length,
		    .value_length = value_length,
		};
		(*count)++;
		cursor = skip_blanks(cursor, end);
		if (cursor < end && *cursor == ',')
			cursor++;
		else if (cursor < end && *cursor == '}')
			return cursor + 1;
		else {
			fail(parser, "expected ',' or '}' after a label");
			return NULL;
		}
	}
}

/* Reads a value token at `cursor` into *value, NUL-terminating it. */
static char *
value_read(struct parser *parser, char *cursor, char *end, double *value,
    const char **text)
{
	char *start = cursor;
	while (cursor < end && *cursor != ' ' && *cursor != '\t')
		cursor++;
	size_t length = (size_t)(cursor - start);
	if (length == 0 || length > OM_VALUE_TEXT_MAX) {
		fail(parser,
		    length == 0 ? "sample without a value"
		                : "value longer than %u characters",
		    OM_VALUE_TEXT_MAX);
		return NULL;
	}
	/* The line's end is a newline or the body's end: the caller keeps a
	 * byte there to write over. */
	*cursor = '\0';
	char *parsed_end;
	errno = 0;
	*value = strtod(start, &parsed_end);
	if (parsed_end != cursor) {
		char quoted[96];
		fail(parser, "bad value %s",
		    quote(quoted, sizeof(quoted), start, length));
		return NULL;
	}
	*text = start;
	return cursor == end ? end : cursor + 1;
}

/* Takes the label named `name` out of the sample's labels (the last ones
 * added) into its bound. */
static int
bound_take(struct parser *parser, struct om_sample *sample, const char *name)
{
	struct om_scrape *scrape = parser->scrape;
	struct om_label *labels = scrape->labels + sample->label_first;
	for (uint32_t i = 0; i < sample->label_count; i++) {
		if (strcmp(labels[i].name, name) != 0)
			continue;
		char *parsed_end;
		sample->bound = strtod(labels[i].value, &parsed_end);
		if (labels[i].value_length == 0 ||
		    labels[i].value_length > OM_VALUE_TEXT_MAX ||
		    parsed_end != labels[i].value + labels[i].value_length)
			return fail(parser, "bad %s label", name);
		sample->bound_text = labels[i].value;
		memmove(&labels[i], &labels[i + 1],
		    (sample->label_count - i - 1) * sizeof(labels[0]));
		sample->label_count--;
		scrape->label_count--;
		return 0;
	}
	return fail(parser, "%s without its %s label",
	    sample->suffix == OM_SUFFIX_BUCKET ? "bucket" : "quantile", name);
}

static int
sample_line(struct parser *parser, char *cursor, char *end)
{
	struct om_scrape *scrape = parser->scrape;
	size_t length = name_length(cursor, end);
	enum om_suffix suffix = OM_SUFFIX_NONE;
	char quoted[96];

	if (length == 0)
		return fail(parser, "bad metric name");
	char *name = cursor;
	cursor += length;
	if (parser->current == UINT32_MAX ||
	    !family_member(
	        &scrape->families[parser->current], name, length, &suffix)) {
		enum om_type type = OM_TYPE_UNKNOWN;
		if (family_add(parser, name, length, type) != 0)
			return -1;
		suffix = OM_SUFFIX_NONE;
	}
	struct om_family *family = &scrape->families[parser->current];
	if (family->type == OM_TYPE_COUNTER && suffix == OM_SUFFIX_NONE)
		suffix = OM_SUFFIX_TOTAL;
	if (scrape_reserve_one(parser, &scrape->samples,
	        &scrape->sample_capacity, scrape->sample_count,
	        sizeof *scrape->samples, parser->limits->series, "series") != 0)
		return -1;
	struct om_sample *sample = &scrape->samples[scrape->sample_count];
	*sample = (struct om_sample){.family = parser->current,
	    .suffix = suffix,
	    .label_first = (uint32_t)scrape->label_count};

	if (cursor < end && *cursor == '{') {
		*cursor = '\0';
		cursor =
		    labels_read(parser, cursor + 1, end, &sample->label_count);
		if (cursor == NULL)
			return -1;
	}
	if (cursor == end || (*cursor != ' ' && *cursor != '\t'))
		return fail(parser, "no blank after %s",
		    quote(quoted, sizeof(quoted), name, length));
	*cursor = '\0'; /* ends the name when there were no labels */
	cursor = skip_blanks(cursor + 1, end);
	cursor = value_read(parser, cursor, end, &sample->value, &sample->text);
	if (cursor == NULL)
		return -1;
	/* A timestamp and an exemplar may follow: not served. */
	if (suffix == OM_SUFFIX_BUCKET && bound_take(parser, sample, "le") != 0)
		return -1;
	if (family->type == OM_TYPE_SUMMARY && suffix == OM_SUFFIX_NONE &&
	    bound_take(parser, sample, "quantile") != 0)
		return -1;
	if (om_series_prepare(scrape->labels + sample->label_first,
	        sample->label_count, &sample->series_id) != 0)
		return fail(parser, "a label named twice");
	family->sample_count++;
	scrape->sample_count++;
	return 0;
}

/* # TYPE, # HELP, # UNIT, # EOF; other comments are skipped. Returns 1 at
 * # EOF. */
static int
comment_line(struct parser *parser, char *cursor, char *end)
{
	struct om_scrape *scrape = parser->scrape;
	char *keyword;
	size_t keyword_length;

	cursor = skip_blanks(cursor + 1, end);
	keyword = cursor;
	while (cursor < end && *cursor != ' ' && *cursor != '\t')
		cursor++;
	keyword_length = (size_t)(cursor - keyword);
	if (keyword_length == 3 && memcmp(keyword, "EOF", 3) == 0)
		return 1;
	bool is_type = keyword_length == 4 && memcmp(keyword, "TYPE", 4) == 0;
	bool is_help = keyword_length == 4 && memcmp(keyword, "HELP", 4) == 0;
	bool is_unit = keyword_length == 4 && memcmp(keyword, "UNIT", 4) == 0;
	if (!is_type && !is_help && !is_unit)
		return 0;
	cursor = skip_blanks(cursor, end);
	size_t length = name_length(cursor, end);
	if (length == 0)
		return fail(parser, "bad family name in # %.4s", keyword);
	char *name = cursor;
	cursor += length;
	if (cursor < end && *cursor != ' ' && *cursor != '\t')
		return fail(parser, "bad family name in # %.4s", keyword);
	char *rest = skip_blanks(cursor, end);
	size_t rest_length = (size_t)(end - rest);
	*cursor = '\0'; /* the newline or a blank */

	struct om_family *family = NULL;
	if (parser->current != UINT32_MAX) {
		family = &scrape->families[parser->current];
		if (family->name_length != length ||
		    memcmp(family->name, name, length) != 0)
			family = NULL;
	}
	if (family == NULL) {
		if (family_add(parser, name, length, OM_TYPE_UNKNOWN) != 0)
			return -1;
		family = &scrape->families[parser->current];
	}
	if (is_type) {
		enum om_type type;
		while (rest_length > 0 && (rest[rest_length - 1] == ' ' ||
		                              rest[rest_length - 1] == '\t'))
			rest_length--;
		if (!type_from_name(rest, rest_length, &type)) {
			char quoted[96];
			return fail(parser, "unknown type %s",
			    quote(quoted, sizeof(quoted), rest, rest_length));
		}
		if (family->sample_count > 0)
			return fail(parser, "# TYPE after samples");
		family->type = type;
	} else if (is_unit) {
		rest[rest_length] = '\0';
		family->unit = rest;
	} else {
		/* HELP escapes: \\ and \n. */
		char *out = rest;
		for (size_t i = 0; i < rest_length; i++) {
			if (rest[i] == '\\' && i + 1 < rest_length &&
			    (rest[i + 1] == '\\' || rest[i + 1] == 'n')) {
				*out++ = rest[i + 1] == 'n' ? '\n' : '\\';
				i++;
			} else
				*out++ = rest[i];
		}
		*out = '\0';
		family->help = rest;
	}
	return 0;
}

static int
index_prepare(struct parser *parser)
{
	struct om_scrape *scrape = parser->scrape;
	size_t wanted = 16;
	while (wanted < 2 * parser->limits->families && wanted < (1u << 30))
		wanted *= 2;
	if (scrape->family_index_size != wanted) {
		uint32_t *index = calloc(wanted, sizeof(*index));
		if (index == NULL)
			return fail(parser, "out of memory");
		free(scrape->family_index);
		scrape->family_index = index;
		scrape->family_index_size = wanted;
	} else
		memset(scrape->family_index, 0,
		    wanted * sizeof(*scrape->family_index));
	return 0;
}

int
om_parse(struct om_scrape *scrape, char *body, size_t length,
    const struct om_limits *limits)
{
	struct parser parser = {
	    .scrape = scrape, .limits = limits, .current = UINT32_MAX};
	char *cursor = body, *end = body + length;

	scrape->family_count = 0;
	scrape->sample_count = 0;
	scrape->label_count = 0;
	scrape->error[0] = '\0';
	scrape->error_line = 0;
	if (length > limits->body_bytes)
		return fail(
		    &parser, "body of more than %zu bytes", limits->body_bytes);
	if (index_prepare(&parser) != 0)
		return -1;
	/* Never NULL from here: a sample without labels takes its (empty)
	 * labels at an offset into the array, and NULL + 0 is undefined. */
	if (PROVIDER_RESERVE(scrape->labels, scrape->label_capacity, 1) != 0)
		return fail(&parser, "out of memory");
	while (cursor < end) {
		char *line_end = memchr(cursor, '\n', (size_t)(end - cursor));
		int status;

		parser.line_number++;
		if (line_end == NULL) {
			/* The last line has no newline: its end is the
			 * body's end, which the parser must be able to
			 * write over; a body without a final newline is
			 * short by one byte, and only the fetcher's buffer
			 * keeps one. Require the newline instead. */
			return fail(&parser, "last line without a newline");
		}
		if ((size_t)(line_end - cursor) > limits->line_bytes)
			return fail(&parser, "line longer than %zu bytes",
			    limits->line_bytes);
		if (memchr(cursor, '\0', (size_t)(line_end - cursor)) != NULL)
			return fail(&parser, "NUL byte");
		if (line_end > cursor && line_end[-1] == '\r')
			return fail(&parser, "carriage return");
		if (cursor == line_end)
			status = 0;
		else if (*cursor == '#')
			status = comment_line(&parser, cursor, line_end);
		else
			status = sample_line(&parser, cursor, line_end);
		if (status < 0)
			return -1;
		if (status == 1)
			break;
		cursor = line_end + 1;
	}
	return 0;
}

void
om_scrape_free(struct om_scrape *scrape)
{
	free(scrape->families);
	free(scrape->samples);
	free(scrape->labels);
	free(scrape->family_index);
	*scrape = (struct om_scrape){0};
}
