/*
 * The statsd provider's series table (statsd_series.h): an array of series
 * in the order they appeared, an open-addressing index over it by (kind,
 * id), and a small table of how many series each source address made.
 * Both indexes are sized for max_series at creation and never grow, so a
 * sender can make the table allocate only up to its bounds.
 */
#define _POSIX_C_SOURCE 200809L

#include "providers/statsd/statsd_series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The longest malformed line kept for the log. */
#define STATSD_SAMPLE_SIZE 120u
/* A set's member table starts with this many slots. */
#define STATSD_SET_INITIAL 16u

struct statsd_source {
	uint64_t source;
	uint32_t series; /* 0: free slot */
};

struct statsd_table {
	struct statsd_limits limits;
	struct statsd_counts counts;
	struct statsd_series **series;
	size_t series_count;
	size_t timer_count;
	uint32_t *index; /* series number + 1; 0: free */
	size_t index_mask;
	struct statsd_source *sources;
	size_t source_mask;
	/* Scatters ids over the index: a sender can choose keys whose FNV
	 * hashes share low bits, not ones that share them after this. */
	uint64_t seed;
	char sample[STATSD_SAMPLE_SIZE];
	bool has_sample;
};

static uint64_t
statsd_fnv1a(uint64_t hash, const void *bytes, size_t length)
{
	const unsigned char *byte = bytes;

	for (size_t i = 0; i < length; i++) {
		hash ^= byte[i];
		hash *= UINT64_C(0x100000001b3);
	}
	return hash;
}

/* splitmix64's finaliser: a good scatter of a 64-bit value. */
static uint64_t
statsd_mix(uint64_t value)
{
	value ^= value >> 30;
	value *= UINT64_C(0xbf58476d1ce4e5b9);
	value ^= value >> 27;
	value *= UINT64_C(0x94d049bb133111eb);
	return value ^ (value >> 31);
}

static size_t
statsd_power_of_two(size_t at_least)
{
	size_t size = 16;
	while (size < at_least)
		size *= 2;
	return size;
}

struct statsd_table *
statsd_table_create(const struct statsd_limits *limits)
{
	struct statsd_table *table = calloc(1, sizeof *table);
	struct timespec now;
	size_t slots;

	if (table == NULL)
		return NULL;
	table->limits = *limits;
	slots = statsd_power_of_two(2 * limits->max_series);
	table->series = calloc(limits->max_series, sizeof *table->series);
	table->index = calloc(slots, sizeof *table->index);
	table->sources = calloc(slots, sizeof *table->sources);
	if (table->series == NULL || table->index == NULL ||
	    table->sources == NULL) {
		statsd_table_destroy(table);
		return NULL;
	}
	table->index_mask = slots - 1;
	table->source_mask = slots - 1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	table->seed =
	    statsd_mix((uint64_t)now.tv_nsec ^ (uint64_t)now.tv_sec << 32 ^
	               (uint64_t)(uintptr_t)table);
	return table;
}

void
statsd_table_destroy(struct statsd_table *table)
{
	if (table == NULL)
		return;
	for (size_t i = 0; i < table->series_count; i++) {
		free(table->series[i]->key);
		free(table->series[i]->digest);
		free(table->series[i]->members);
		free(table->series[i]);
	}
	free(table->series);
	free(table->index);
	free(table->sources);
	free(table);
}

static enum statsd_kind
statsd_kind_of(enum statsd_type type)
{
	switch (type) {
	case STATSD_COUNTER:
		return STATSD_KIND_COUNTER;
	case STATSD_GAUGE:
		return STATSD_KIND_GAUGE;
	case STATSD_SET:
		return STATSD_KIND_SET;
	case STATSD_TIMER:
	case STATSD_HISTOGRAM:
	case STATSD_DISTRIBUTION:
		break;
	}
	return STATSD_KIND_TIMER;
}

/* The source's slot, claimed if new; NULL when the table is full (it
 * cannot be: a source has a slot only once it made a series). */
static struct statsd_source *
statsd_source_slot(struct statsd_table *table, uint64_t source)
{
	size_t slot = statsd_mix(source ^ table->seed) & table->source_mask;

	for (size_t probe = 0; probe <= table->source_mask; probe++) {
		struct statsd_source *entry = &table->sources[slot];
		if (entry->series == 0 || entry->source == source) {
			entry->source = source;
			return entry;
		}
		slot = (slot + 1) & table->source_mask;
	}
	return NULL;
}

/* Finds the series of `kind` and `key`, or makes it within the bounds;
 * NULL when refused (counted). */
static struct statsd_series *
statsd_find_series(struct statsd_table *table, enum statsd_kind kind,
    const char *key, size_t key_length, uint64_t source)
{
	unsigned char kind_byte = (unsigned char)kind;
	uint64_t id = statsd_fnv1a(UINT64_C(0xcbf29ce484222325), &kind_byte, 1);
	size_t slot;
	struct statsd_series *series;
	struct statsd_source *charged;

	id = statsd_fnv1a(id, key, key_length);
	slot = statsd_mix(id ^ table->seed) & table->index_mask;
	for (;;) {
		uint32_t entry = table->index[slot];
		if (entry == 0)
			break;
		series = table->series[entry - 1];
		if (series->id == id && series->kind == kind) {
			if (strcmp(series->key, key) == 0)
				return series;
			table->counts.series_refused++; /* a collision */
			return NULL;
		}
		slot = (slot + 1) & table->index_mask;
	}
	if (table->series_count >= table->limits.max_series ||
	    (kind == STATSD_KIND_TIMER &&
	        table->timer_count >= table->limits.max_timer_series)) {
		table->counts.series_refused++;
		return NULL;
	}
	charged = statsd_source_slot(table, source);
	if (charged == NULL ||
	    charged->series >= table->limits.max_series_per_source) {
		table->counts.source_refused++;
		return NULL;
	}
	series = calloc(1, sizeof *series);
	if (series == NULL)
		return NULL;
	series->key = malloc(key_length + 1);
	if (kind == STATSD_KIND_TIMER)
		series->digest = malloc(sizeof *series->digest);
	if (series->key == NULL ||
	    (kind == STATSD_KIND_TIMER && series->digest == NULL)) {
		free(series->key);
		free(series->digest);
		free(series);
		return NULL;
	}
	memcpy(series->key, key, key_length + 1);
	if (series->digest != NULL)
		dci_tdigest_init(series->digest);
	series->kind = kind;
	series->id = id;
	charged->series++;
	if (kind == STATSD_KIND_TIMER)
		table->timer_count++;
	table->series[table->series_count++] = series;
	table->index[slot] = (uint32_t)table->series_count;
	return series;
}

/* Adds value / rate to a count kept as a whole number and a fraction, so
 * that whole increments stay exact. */
static void
statsd_add_scaled(uint64_t *total, double *fraction, double value, double rate)
{
	double step = value / rate + *fraction;
	double whole = floor(step);

	if (!(whole < 18446744073709551616.0))
		whole = 0.0; /* beyond 2^64: nothing sane to add */
	*total += (uint64_t)whole;
	*fraction = step - whole;
}

/* The slot of `hash` in a member table of `capacity` (a power of two
 * with a free slot): where it is, or the free slot where it goes. */
static size_t
statsd_member_slot(const uint64_t *members, size_t capacity, uint64_t hash)
{
	size_t slot = statsd_mix(hash) & (capacity - 1);

	while (members[slot] != 0 && members[slot] != hash)
		slot = (slot + 1) & (capacity - 1);
	return slot;
}

/* Doubles a set's member table; false without memory. */
static bool
statsd_set_grow(struct statsd_series *series)
{
	size_t capacity = series->member_capacity != 0
	                      ? series->member_capacity * 2
	                      : STATSD_SET_INITIAL;
	uint64_t *members = calloc(capacity, sizeof *members);

	if (members == NULL)
		return false;
	for (size_t i = 0; i < series->member_capacity; i++)
		if (series->members[i] != 0)
			members[statsd_member_slot(members, capacity,
			    series->members[i])] = series->members[i];
	free(series->members);
	series->members = members;
	series->member_capacity = capacity;
	return true;
}

/* Adds a member's hash to a set (kept at most half full); a new member
 * past max_set_members is refused. */
static void
statsd_set_add(struct statsd_table *table, struct statsd_series *series,
    const char *member, size_t length)
{
	uint64_t hash =
	    statsd_fnv1a(UINT64_C(0xcbf29ce484222325), member, length);
	size_t slot;

	if (hash == 0)
		hash = 1; /* 0 marks a free slot */
	if (series->member_capacity != 0) {
		slot = statsd_member_slot(
		    series->members, series->member_capacity, hash);
		if (series->members[slot] == hash)
			return;
	}
	if (series->member_count >= table->limits.max_set_members ||
	    (2 * (series->member_count + 1) > series->member_capacity &&
	        !statsd_set_grow(series))) {
		table->counts.members_refused++;
		return;
	}
	slot =
	    statsd_member_slot(series->members, series->member_capacity, hash);
	series->members[slot] = hash;
	series->member_count++;
}

static void
statsd_keep_sample(struct statsd_table *table, const char *line, size_t length)
{
	if (table->has_sample)
		return;
	if (length > STATSD_SAMPLE_SIZE - 1)
		length = STATSD_SAMPLE_SIZE - 1;
	memcpy(table->sample, line, length);
	table->sample[length] = '\0';
	table->has_sample = true;
}

static void
statsd_apply(struct statsd_table *table, uint64_t source, const char *line,
    size_t length, const struct statsd_metric *metric)
{
	enum statsd_kind kind = statsd_kind_of(metric->type);
	char key[STATSD_KEY_SIZE];
	size_t key_length;
	struct statsd_series *series;

	if ((kind == STATSD_KIND_COUNTER || kind == STATSD_KIND_TIMER) &&
	    metric->value < 0.0) {
		table->counts.refused_values++;
		statsd_keep_sample(table, line, length);
		return;
	}
	key_length = statsd_series_key(metric, key);
	series = statsd_find_series(table, kind, key, key_length, source);
	if (series == NULL)
		return;
	table->counts.metrics++;
	switch (kind) {
	case STATSD_KIND_COUNTER:
		statsd_add_scaled(&series->total, &series->fraction,
		    metric->value, metric->sample_rate);
		break;
	case STATSD_KIND_GAUGE:
		series->gauge = metric->gauge_delta
		                    ? series->gauge + metric->value
		                    : metric->value;
		if (!isfinite(series->gauge))
			series->gauge = metric->value;
		break;
	case STATSD_KIND_TIMER:
		statsd_add_scaled(&series->samples, &series->sample_fraction,
		    1.0, metric->sample_rate);
		series->sum += metric->value;
		dci_tdigest_add(series->digest, metric->value);
		break;
	case STATSD_KIND_SET:
		statsd_set_add(
		    table, series, metric->member, metric->member_length);
		break;
	case STATSD_KINDS:
		break;
	}
}

void
statsd_table_datagram(struct statsd_table *table, uint64_t source,
    const char *datagram, size_t length)
{
	size_t offset = 0, line_length, metrics = 0;
	const char *line;
	struct statsd_metric metric;

	table->counts.packets++;
	while ((line = statsd_next_line(
	            datagram, length, &offset, &line_length)) != NULL) {
		enum statsd_parse_result result =
		    statsd_parse_line(line, line_length, &metric);

		if (result == STATSD_PARSE_EMPTY)
			continue;
		table->counts.lines++;
		if (++metrics > table->limits.max_metrics_per_packet) {
			table->counts.over_packet_limit++;
			continue;
		}
		switch (result) {
		case STATSD_PARSE_OK:
			statsd_apply(table, source, line, line_length, &metric);
			break;
		case STATSD_PARSE_UNKNOWN_TYPE:
			table->counts.unknown_type++;
			statsd_keep_sample(table, line, line_length);
			break;
		case STATSD_PARSE_MALFORMED:
		case STATSD_PARSE_EMPTY:
			table->counts.malformed++;
			statsd_keep_sample(table, line, line_length);
			break;
		}
	}
}

void
statsd_table_oversize(struct statsd_table *table)
{
	table->counts.packets++;
	table->counts.oversize_packets++;
}

const struct statsd_counts *
statsd_table_counts(const struct statsd_table *table)
{
	return &table->counts;
}

bool
statsd_table_take_sample(struct statsd_table *table, char *line, size_t size)
{
	if (!table->has_sample || size == 0)
		return false;
	strncpy(line, table->sample, size - 1);
	line[size - 1] = '\0';
	table->has_sample = false;
	return true;
}

size_t
statsd_table_series_count(const struct statsd_table *table)
{
	return table->series_count;
}

struct statsd_series *
statsd_table_series(struct statsd_table *table, size_t index)
{
	return index < table->series_count ? table->series[index] : NULL;
}

void
statsd_table_end_interval(struct statsd_table *table)
{
	for (size_t i = 0; i < table->series_count; i++) {
		struct statsd_series *series = table->series[i];
		if (series->kind != STATSD_KIND_SET)
			continue;
		series->distinct_last = series->member_count;
		series->member_count = 0;
		if (series->members != NULL)
			memset(series->members, 0,
			    series->member_capacity * sizeof *series->members);
	}
}
