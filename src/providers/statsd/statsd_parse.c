/*
 * The statsd line protocol (statsd_parse.h). Every read is bounded by the
 * line's length; numbers are checked character by character before
 * strtod sees a NUL-terminated copy of them.
 */
#include "providers/statsd/statsd_parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The longest number text: digits, sign, point, exponent. */
#define STATSD_NUMBER_MAX 64u

const char *
statsd_next_line(
    const char *datagram, size_t length, size_t *offset, size_t *line_length)
{
	size_t start = *offset, end;
	const char *newline;

	if (start >= length)
		return NULL;
	newline = memchr(datagram + start, '\n', length - start);
	end = newline != NULL ? (size_t)(newline - datagram) : length;
	*offset = newline != NULL ? end + 1 : length;
	*line_length = end - start;
	if (*line_length > 0 && datagram[end - 1] == '\r')
		(*line_length)--;
	return datagram + start;
}

/* Moves *i past the decimal digits at text[*i] (up to length); returns
 * how many there were. */
static size_t
statsd_skip_digits(const char *text, size_t length, size_t *i)
{
	size_t start = *i;

	while (*i < length && text[*i] >= '0' && text[*i] <= '9')
		(*i)++;
	return *i - start;
}

/* A decimal number: [+-]digits[.digits][(e|E)[+-]digits], or digits
 * after the point alone (".5"). Returns 0 with *value set and finite. */
static int
statsd_parse_number(const char *text, size_t length, double *value)
{
	char copy[STATSD_NUMBER_MAX + 1];
	size_t i = 0, digits = 0;
	char *end;

	if (length == 0 || length > STATSD_NUMBER_MAX)
		return -1;
	if (text[i] == '+' || text[i] == '-')
		i++;
	digits += statsd_skip_digits(text, length, &i);
	if (i < length && text[i] == '.') {
		i++;
		digits += statsd_skip_digits(text, length, &i);
	}
	if (digits == 0)
		return -1;
	if (i < length && (text[i] == 'e' || text[i] == 'E')) {
		i++;
		if (i < length && (text[i] == '+' || text[i] == '-'))
			i++;
		if (statsd_skip_digits(text, length, &i) == 0)
			return -1;
	}
	if (i != length)
		return -1;
	memcpy(copy, text, length);
	copy[length] = '\0';
	*value = strtod(copy, &end);
	if (end != copy + length || !isfinite(*value))
		return -1;
	return 0;
}

static int
statsd_parse_type(const char *text, size_t length, enum statsd_type *type)
{
	if (length == 1 && text[0] == 'c')
		*type = STATSD_COUNTER;
	else if (length == 1 && text[0] == 'g')
		*type = STATSD_GAUGE;
	else if (length == 2 && text[0] == 'm' && text[1] == 's')
		*type = STATSD_TIMER;
	else if (length == 1 && text[0] == 'h')
		*type = STATSD_HISTOGRAM;
	else if (length == 1 && text[0] == 'd')
		*type = STATSD_DISTRIBUTION;
	else if (length == 1 && text[0] == 's')
		*type = STATSD_SET;
	else
		return -1;
	return 0;
}

/* Checks a tag section and counts its tags: no empty tag, no control
 * byte, at most STATSD_TAG_COUNT_MAX tags. */
static int
statsd_check_tags(const char *tags, size_t length, size_t *count)
{
	size_t tag_start = 0;

	*count = 0;
	if (length == 0 || length > STATSD_TAGS_MAX)
		return -1;
	for (size_t i = 0; i <= length; i++) {
		if (i < length && tags[i] != ',') {
			if ((unsigned char)tags[i] < 0x20 || tags[i] == 0x7f)
				return -1;
			continue;
		}
		if (i == tag_start || ++*count > STATSD_TAG_COUNT_MAX)
			return -1;
		tag_start = i + 1;
	}
	return 0;
}

enum statsd_parse_result
statsd_parse_line(const char *line, size_t length, struct statsd_metric *metric)
{
	const char *colon, *bar, *section, *end = line + length;
	size_t value_length;

	memset(metric, 0, sizeof *metric);
	metric->sample_rate = 1.0;
	if (length == 0)
		return STATSD_PARSE_EMPTY;
	colon = memchr(line, ':', length);
	if (colon == NULL || colon == line ||
	    (size_t)(colon - line) > STATSD_NAME_MAX)
		return STATSD_PARSE_MALFORMED;
	metric->name = line;
	metric->name_length = (size_t)(colon - line);
	for (size_t i = 0; i < metric->name_length; i++) {
		unsigned char byte = (unsigned char)line[i];
		if (byte < 0x20 || byte == 0x7f || byte == '|' || byte == '#')
			return STATSD_PARSE_MALFORMED;
	}
	bar = memchr(colon + 1, '|', (size_t)(end - colon - 1));
	if (bar == NULL)
		return STATSD_PARSE_MALFORMED;
	value_length = (size_t)(bar - colon - 1);

	/* The type: up to the next '|' or the end. */
	section = bar + 1;
	bar = memchr(section, '|', (size_t)(end - section));
	if (bar == NULL)
		bar = end;
	if (statsd_parse_type(
	        section, (size_t)(bar - section), &metric->type) != 0) {
		/* Reported apart only when the rest looks like statsd. */
		for (const char *c = section; c < bar; c++)
			if (!(*c >= 'a' && *c <= 'z') &&
			    !(*c >= 'A' && *c <= 'Z'))
				return STATSD_PARSE_MALFORMED;
		return bar > section ? STATSD_PARSE_UNKNOWN_TYPE
		                     : STATSD_PARSE_MALFORMED;
	}
	if (metric->type == STATSD_SET) {
		if (value_length == 0 || value_length > STATSD_MEMBER_MAX)
			return STATSD_PARSE_MALFORMED;
		metric->member = colon + 1;
		metric->member_length = value_length;
	} else {
		if (statsd_parse_number(
		        colon + 1, value_length, &metric->value) != 0)
			return STATSD_PARSE_MALFORMED;
		metric->gauge_delta = metric->type == STATSD_GAUGE &&
		                      (colon[1] == '+' || colon[1] == '-');
	}

	/* The optional sections. */
	bool have_rate = false;
	while (bar < end) {
		section = bar + 1;
		bar = memchr(section, '|', (size_t)(end - section));
		if (bar == NULL)
			bar = end;
		size_t section_length = (size_t)(bar - section);
		if (section_length == 0)
			return STATSD_PARSE_MALFORMED;
		if (section[0] == '@') {
			if (have_rate ||
			    statsd_parse_number(section + 1, section_length - 1,
			        &metric->sample_rate) != 0 ||
			    !(metric->sample_rate > 0.0) ||
			    metric->sample_rate > 1.0)
				return STATSD_PARSE_MALFORMED;
			have_rate = true;
		} else if (section[0] == '#') {
			if (metric->tags != NULL ||
			    statsd_check_tags(section + 1, section_length - 1,
			        &metric->tag_count) != 0)
				return STATSD_PARSE_MALFORMED;
			metric->tags = section + 1;
			metric->tags_length = section_length - 1;
		}
		/* Anything else (container id, timestamp) is ignored. */
	}
	return STATSD_PARSE_OK;
}

/* A tag of the line: start and length. */
struct statsd_tag {
	const char *text;
	size_t length;
};

/* The order of qsort: by bytes, then by length. */
static int
statsd_tag_compare(const void *left, const void *right)
{
	const struct statsd_tag *a = left;
	const struct statsd_tag *b = right;
	size_t shorter = a->length < b->length ? a->length : b->length;
	int order = memcmp(a->text, b->text, shorter);

	if (order != 0)
		return order;
	return (a->length > b->length) - (a->length < b->length);
}

size_t
statsd_series_key(const struct statsd_metric *metric, char *key)
{
	struct statsd_tag tags[STATSD_TAG_COUNT_MAX];
	size_t count = 0, start = 0, length;

	/* The parser bounds both; a caller's metric is trusted no further. */
	length = metric->name_length <= STATSD_NAME_MAX ? metric->name_length
	                                                : STATSD_NAME_MAX;
	memcpy(key, metric->name, length);
	if (metric->tags_length == 0 || metric->tags_length > STATSD_TAGS_MAX) {
		key[length] = '\0';
		return length;
	}
	for (size_t i = 0; i <= metric->tags_length; i++) {
		if (i < metric->tags_length && metric->tags[i] != ',')
			continue;
		if (i > start && count < STATSD_TAG_COUNT_MAX) {
			tags[count].text = metric->tags + start;
			tags[count].length = i - start;
			count++;
		}
		start = i + 1;
	}
	/* Tags that compare equal are the same bytes, so an unstable sort
	 * gives the one key. */
	qsort(tags, count, sizeof *tags, statsd_tag_compare);
	key[length++] = ' ';
	key[length++] = '#';
	for (size_t i = 0; i < count; i++) {
		if (i > 0 && statsd_tag_compare(&tags[i - 1], &tags[i]) == 0)
			continue;
		if (key[length - 1] != '#')
			key[length++] = ',';
		memcpy(key + length, tags[i].text, tags[i].length);
		length += tags[i].length;
	}
	key[length] = '\0';
	return length;
}

const char *
statsd_type_name(enum statsd_type type)
{
	switch (type) {
	case STATSD_COUNTER:
		return "c";
	case STATSD_GAUGE:
		return "g";
	case STATSD_TIMER:
		return "ms";
	case STATSD_HISTOGRAM:
		return "h";
	case STATSD_DISTRIBUTION:
		return "d";
	case STATSD_SET:
		return "s";
	}
	return "?";
}
