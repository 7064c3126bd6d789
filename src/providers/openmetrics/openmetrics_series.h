/*
 * openmetrics_series: the samples of one parsed family grouped into
 * series (one per label set), each with a stable id, with no I/O.
 *
 * A series is the set of a family's samples whose labels are equal once
 * sorted by name (a bucket's "le" and a quantile's "quantile" were taken
 * out by the parser). Its id is the 64-bit FNV-1a hash of its sorted label
 * pairs, each hashed as name length (4 bytes, little-endian), name, value
 * length, value: the same label set gives the same id in every scrape, on
 * every host, in any order of its labels. Two label sets of one family
 * with one id are a collision: the series met first keeps the id and the
 * other is refused (counted, the first one described), never merged. A
 * second sample for the same part of a series (two _sum lines, two
 * buckets with one le) fails the whole family: they are malformed input,
 * refused with the scrape (a label named twice already fails the parse:
 * om_series_prepare).
 */
#ifndef OPENMETRICS_SERIES_H
#define OPENMETRICS_SERIES_H

#include "openmetrics_parse.h"

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Sample indexes (in om_scrape.samples) are stored plus one: 0 is none. */
struct om_series {
	uint64_t id;
	uint32_t label_first; /* sorted, in om_scrape.labels */
	uint32_t label_count;
	uint32_t total, created, count, sum, value;
	/* Buckets or quantiles: om_series_set.parts[part_first ..], sample
	 * indexes (not plus one) in ascending order of bound. */
	uint32_t part_first, part_count;
};

/* Zero-initialised is empty; reused from one family to the next. */
struct om_series_set {
	struct om_series *series;
	size_t count, capacity;
	uint32_t *parts;
	size_t part_capacity;
	/* Series of each sample of the family (UINT32_MAX: refused). */
	uint32_t *sample_series;
	size_t sample_series_capacity;
	uint32_t *slots; /* open addressing by id: series index + 1 */
	size_t slot_capacity;
	size_t slot_mask;    /* this family's table: slot_mask + 1 slots */
	size_t collisions;   /* label sets refused in this family */
	char collision[160]; /* the first one, escaped */
	char error[160];     /* why om_series_group failed */
};

/* Groups the samples of family `family` of `scrape` (sorting each
 * sample's labels in place). Returns 0, or -1 with set->error. */
int om_series_group(
    struct om_series_set *set, struct om_scrape *scrape, uint32_t family);

/* FNV-1a hashes of names: a target's word, a family's class id. */
uint32_t om_fnv1a32(const char *text, size_t length);
uint64_t om_fnv1a64(const char *text, size_t length);

/* The id of a label set (sorted by name). */
uint64_t om_series_id(const struct om_label *labels, size_t count);

/* Sorts a sample's labels by name and gives their id (the parser calls it
 * for every sample). Returns 0, or -1 when a name is there twice. */
int om_series_prepare(struct om_label *labels, uint32_t count, uint64_t *id);

/* Writes the series' labels joined, name="value",... (values as they are;
 * the host escapes labels), or `fallback` for a series without labels,
 * cut to `size` - 1 bytes. */
void om_series_label(const struct om_scrape *scrape,
    const struct om_series *series, const char *fallback, char *out,
    size_t size);

void om_series_set_free(struct om_series_set *set);

#pragma GCC visibility pop

#endif
