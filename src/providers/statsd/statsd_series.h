/*
 * The statsd provider's series: what the received metrics add up to, one
 * series per type and key (name and sorted tags, statsd_parse.h), with
 * the bounds that keep what senders can make the daemon hold in check.
 * No sockets and no host calls: the receiver thread feeds datagrams in,
 * refresh reads the series out, both under the caller's lock.
 *
 * What a series keeps:
 *   counter  the exact sum of value / sample_rate since it appeared (a
 *            fraction is carried, so ten "1|c|@0.1" lines add 100);
 *            negative increments are refused (an SNMP counter only grows)
 *   gauge    the last value; a signed value is a delta of it
 *   timer    ms, h and d: sample count (scaled by the sample rate, as
 *            counters), sum, minimum, maximum and a t-digest of the
 *            samples since it appeared; negative samples are refused
 *   set      the distinct members since the last interval's end, and how
 *            many the interval before had (statsd_table_end_interval)
 *
 * Instance ids. A series' id is the 64-bit FNV-1a hash of its type and
 * key: the same series has the same id in every run. Two keys of one type
 * with the same hash: the later one is refused (counted), never merged.
 */
#ifndef DCISTAT_PROVIDERS_STATSD_SERIES_H
#define DCISTAT_PROVIDERS_STATSD_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/tdigest.h"
#include "providers/statsd/statsd_parse.h"

#pragma GCC visibility push(hidden)

/* The classes series fall in: timers take ms, h and d. */
enum statsd_kind {
	STATSD_KIND_COUNTER,
	STATSD_KIND_GAUGE,
	STATSD_KIND_TIMER,
	STATSD_KIND_SET,
	STATSD_KINDS,
};

struct statsd_limits {
	size_t max_series;            /* in all */
	size_t max_timer_series;      /* of those, timers (a digest each) */
	size_t max_series_per_source; /* series one source address made */
	size_t max_set_members;       /* distinct members a set keeps an
	                                 interval */
	size_t max_metrics_per_packet;
};

/* What the table has met, for the receiver class and the log. Only grows. */
struct statsd_counts {
	uint64_t packets;
	uint64_t lines;
	uint64_t metrics;           /* lines applied to a series */
	uint64_t malformed;         /* lines statsd_parse_line refused */
	uint64_t unknown_type;      /* lines of a type it does not know */
	uint64_t refused_values;    /* negative counter or timer values */
	uint64_t over_packet_limit; /* lines past max_metrics_per_packet */
	uint64_t series_refused;    /* past max_series or max_timer_series,
	                               or a hash collision */
	uint64_t source_refused;    /* past max_series_per_source */
	uint64_t members_refused;   /* set members past max_set_members */
	uint64_t oversize_packets;  /* datagrams past the packet bound */
};

struct statsd_series {
	enum statsd_kind kind;
	uint64_t id; /* the instance id */
	char *key;   /* NUL-terminated */
	/* counter */
	uint64_t total;
	double fraction;
	/* gauge */
	double gauge;
	/* timer */
	uint64_t samples;
	double sample_fraction;
	double sum;
	struct dci_tdigest *digest;
	/* set: member hashes, open addressing (0 marks a free slot) */
	uint64_t *members;
	size_t member_count;
	size_t member_capacity;
	uint64_t distinct_last; /* the last finished interval's count */
};

struct statsd_table;

/* NULL without memory. */
struct statsd_table *statsd_table_create(const struct statsd_limits *limits);
void statsd_table_destroy(struct statsd_table *table);

/* Applies every line of one datagram from `source` (any number naming the
 * sender's address; equal for one address). */
void statsd_table_datagram(struct statsd_table *table, uint64_t source,
    const char *datagram, size_t length);

/* Counts a datagram refused whole (longer than the packet bound). */
void statsd_table_oversize(struct statsd_table *table);

const struct statsd_counts *statsd_table_counts(
    const struct statsd_table *table);

/* The first malformed line met since the last call, cut to `size` - 1
 * bytes and NUL-terminated into `line` (raw bytes: escape before logging);
 * false when none. */
bool statsd_table_take_sample(
    struct statsd_table *table, char *line, size_t size);

size_t statsd_table_series_count(const struct statsd_table *table);
/* Series 0..count-1, in the order they appeared. */
struct statsd_series *statsd_table_series(
    struct statsd_table *table, size_t index);

/* Ends a refresh interval: each set's distinct count becomes its
 * distinct_last and its members are forgotten. */
void statsd_table_end_interval(struct statsd_table *table);

#pragma GCC visibility pop

#endif
