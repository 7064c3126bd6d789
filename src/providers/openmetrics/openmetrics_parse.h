/*
 * openmetrics_parse: the Prometheus text exposition format (0.0.4) and
 * OpenMetrics text (1.0) read into families and samples, with no I/O.
 *
 * The body is untrusted. Parsing is one pass over a buffer the caller owns
 * and lets the parser change: label values are unescaped in place and
 * every value token is NUL-terminated in place, so families, labels and
 * samples point into the body and nothing is allocated per sample (the
 * arrays of a `struct om_scrape` keep their memory from one scrape to the
 * next); every name, label value and value text is NUL-terminated in the
 * body (over a separator already read). Every bound of `struct om_limits` is
 * checked where the input is read; breaking one, or any malformed line, fails
 * the whole parse with a reason and a line number: a target's scrape is taken
 * whole or not at all.
 *
 * What is understood:
 *   # TYPE name type   counter, gauge, histogram, gaugehistogram, summary,
 *                      info, stateset, unknown, untyped (as unknown)
 *   # HELP name text   # UNIT name unit   (kept; HELP unescaped)
 *   # EOF              ends the body (OpenMetrics); anything after it is
 *                      ignored; other comments are skipped
 *   name{l="v",...} value [timestamp] [# exemplar]
 * A sample belongs to the family before it when its name is the family's
 * name with a suffix that family's type has (counter: _total, _created or
 * none; histogram: _bucket, _count, _sum, _created; gaugehistogram:
 * _bucket, _gcount, _gsum; summary: none, _count, _sum, _created; info:
 * _info, or none when the family's name ends in _info; other types: none);
 * any other sample starts a family of type unknown named as the sample.
 * A family may appear only once (its lines are contiguous, as both formats
 * require). A histogram bucket's "le" and a summary quantile's "quantile"
 * label is taken out of the sample's labels into its bound; the rest are
 * sorted by name (a label named twice fails the parse) and give the
 * sample's series id (openmetrics_series.h). Values follow
 * strtod(3) in the C locale (NaN, +Inf, -Inf included); timestamps and
 * exemplars are skipped.
 */
#ifndef OPENMETRICS_PARSE_H
#define OPENMETRICS_PARSE_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

enum om_type {
	OM_TYPE_UNKNOWN = 0,
	OM_TYPE_COUNTER,
	OM_TYPE_GAUGE,
	OM_TYPE_HISTOGRAM,
	OM_TYPE_GAUGEHISTOGRAM,
	OM_TYPE_SUMMARY,
	OM_TYPE_INFO,
	OM_TYPE_STATESET,
};

/* Which part of its family a sample is. */
enum om_suffix {
	OM_SUFFIX_NONE = 0, /* gauge, unknown, stateset, summary quantile */
	OM_SUFFIX_TOTAL,    /* a counter's value (name_total, or name) */
	OM_SUFFIX_CREATED,
	OM_SUFFIX_BUCKET,
	OM_SUFFIX_COUNT, /* _count, and a gaugehistogram's _gcount */
	OM_SUFFIX_SUM,   /* _sum, and a gaugehistogram's _gsum */
	OM_SUFFIX_INFO,
};

/* The longest value token kept: a float's shortest exact text is at
 * most 24 characters ("-1.7976931348623157e+308"). */
#define OM_VALUE_TEXT_MAX 32u

struct om_limits {
	size_t body_bytes; /* the whole body */
	size_t line_bytes; /* one line, without its newline */
	size_t labels_per_series;
	size_t families; /* per scrape */
	size_t series;   /* samples per scrape */
};

struct om_label {
	const char *name;
	const char *value; /* unescaped; any byte but NUL */
	uint32_t name_length;
	uint32_t value_length;
};

struct om_sample {
	uint32_t family;
	enum om_suffix suffix;
	uint32_t label_first; /* in om_scrape.labels */
	uint32_t label_count;
	double value;
	const char *text; /* the value as written, NUL-terminated */
	/* A bucket's le, a quantile's quantile: NULL elsewhere. */
	const char *bound_text;
	double bound;
	/* Its labels' id (openmetrics_series.h), computed once they are
	 * sorted by name. */
	uint64_t series_id;
};

struct om_family {
	const char *name;
	uint32_t name_length;
	enum om_type type;
	const char *help;      /* NULL or unescaped, NUL-terminated */
	const char *unit;      /* NULL or NUL-terminated */
	uint32_t sample_first; /* in om_scrape.samples */
	uint32_t sample_count;
};

/* Zero-initialised is empty; reused from one scrape to the next. */
struct om_scrape {
	struct om_family *families;
	size_t family_count, family_capacity;
	struct om_sample *samples;
	size_t sample_count, sample_capacity;
	struct om_label *labels;
	size_t label_count, label_capacity;
	/* Family lookup by name: indexes + 1, 0 empty. */
	uint32_t *family_index;
	size_t family_index_size;
	/* Why the last parse failed (plain ASCII; outside bytes escaped) and
	 * on which line (1-based; 0 when not about a line). */
	char error[160];
	size_t error_line;
};

/* Parses `length` bytes at `body` (changed in place; body[length] need
 * not be NUL) into `scrape`. Returns 0, or -1 with scrape->error set (also
 * when memory runs out). */
int om_parse(struct om_scrape *scrape, char *body, size_t length,
    const struct om_limits *limits);

void om_scrape_free(struct om_scrape *scrape);

/* The type's name as in # TYPE lines. */
const char *om_type_name(enum om_type type);

#pragma GCC visibility pop

#endif
