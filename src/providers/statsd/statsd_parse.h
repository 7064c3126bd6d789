/*
 * The statsd line protocol, parsed: pure functions over a received
 * datagram (no allocation, no global state, no I/O), so that the libFuzzer
 * target fuzz_statsd and the unit tests drive exactly what the provider
 * runs.
 *
 * A datagram holds lines separated by '\n' (a '\r' before it is dropped;
 * empty lines are skipped). A line is
 *
 *     name:value|type[|@sample_rate][|#tag[,tag...]]
 *
 * with type c (counter), g (gauge; a value with an explicit '+' or '-'
 * is a delta of the current value), ms (timer), h (histogram), d
 * (DogStatsD distribution) or s (set: the value is a member, any bytes but
 * '|'). A sample rate is in (0, 1]; a tag is "key:value" or "key". Other
 * '|' sections (DogStatsD's container id "c:", timestamps "T") are
 * ignored. Everything read is bounded by the limits below; a line that
 * breaks one is malformed, never cut.
 */
#ifndef DCISTAT_PROVIDERS_STATSD_PARSE_H
#define DCISTAT_PROVIDERS_STATSD_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* The longest metric name, set member and tag section (bytes). */
#define STATSD_NAME_MAX 200u
#define STATSD_MEMBER_MAX 200u
#define STATSD_TAGS_MAX 1000u
/* The most tags a line may carry. */
#define STATSD_TAG_COUNT_MAX 32u
/* A series key: name, the separator, the sorted tags, a NUL. */
#define STATSD_KEY_SIZE (STATSD_NAME_MAX + 2u + STATSD_TAGS_MAX + 1u)

enum statsd_type {
	STATSD_COUNTER,
	STATSD_GAUGE,
	STATSD_TIMER,        /* ms */
	STATSD_HISTOGRAM,    /* h */
	STATSD_DISTRIBUTION, /* d */
	STATSD_SET,
};

enum statsd_parse_result {
	STATSD_PARSE_OK,
	STATSD_PARSE_EMPTY,        /* an empty line: nothing to count */
	STATSD_PARSE_MALFORMED,    /* syntax, a number, a bound */
	STATSD_PARSE_UNKNOWN_TYPE, /* well formed but the type is unknown */
};

/* One metric of a line. The pointers point into the datagram. */
struct statsd_metric {
	const char *name;
	size_t name_length;
	enum statsd_type type;
	double value;       /* all types but sets */
	bool gauge_delta;   /* a gauge value with an explicit sign */
	const char *member; /* sets */
	size_t member_length;
	double sample_rate; /* 1 when absent */
	const char *tags;   /* after '#', tags separated by ',' */
	size_t tags_length; /* 0: no tags */
	size_t tag_count;
};

/* Parses the `length` bytes of one line (no '\n' in it). */
enum statsd_parse_result statsd_parse_line(
    const char *line, size_t length, struct statsd_metric *metric);

/* Splits a datagram into lines: returns the next line's start and sets
 * *line_length, advancing *offset past it and its '\n'; NULL at the end. */
const char *statsd_next_line(
    const char *datagram, size_t length, size_t *offset, size_t *line_length);

/* Writes the series key of `metric` into `key` (STATSD_KEY_SIZE bytes):
 * the name, then, when it has tags, " #" and its tags sorted bytewise and
 * without duplicates, joined by ','. Two lines name one series exactly
 * when their keys are equal, whatever the order of their tags. Returns the
 * key's length. */
size_t statsd_series_key(const struct statsd_metric *metric, char *key);

/* The type's name as on the wire ("c", "ms" ...). */
const char *statsd_type_name(enum statsd_type type);

#pragma GCC visibility pop

#endif
