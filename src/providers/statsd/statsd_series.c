/*
 * The statsd provider's series table (statsd_series.h): an array of series
 * in the order they appeared, an open-addressing index over it by (kind,
 * id), and a table of what each source (a uid, a UDP address) holds. Both
 * are sized for max_series at creation and never grow, so a sender can
 * make the table allocate only up to its bounds; removing expired series
 * rebuilds the index, and every interval's end rebuilds the sources, so
 * neither needs deletion marks.
 */
#define _GNU_SOURCE

#include "providers/statsd/statsd_series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/siphash.h"

/* The longest malformed line kept for the log. */
#define STATSD_SAMPLE_SIZE 120u
/* A set's member table starts with this many slots. */
#define STATSD_SET_INITIAL 16u

struct statsd_source {
	struct statsd_sender sender;
	uint32_t series;       /* held */
	uint32_t members;      /* added this interval */
	uint32_t members_last; /* added the last finished interval */
	bool used;
	/* Unix senders' alone (UDP's are the table's udp_ counts). */
	uint64_t series_refused, members_refused;
};

/* What a sender is charged against: its own source, and, for UDP, the
 * UDP senders' whole; NULL source when there is no room for one more. */
struct statsd_charge {
	struct statsd_source *source;
	bool udp;
	bool root;
};

struct statsd_table {
	struct statsd_limits limits;
	struct statsd_counts counts;
	struct statsd_series **series;
	size_t series_count;
	size_t timer_count;
	uint32_t *index; /* series number + 1; 0: free */
	size_t index_mask;
	/* Sources in `sources`; `spare` is the same size, for the rebuild at
	 * each interval's end. Each transport may fill a quarter of the
	 * slots, so the table stays half empty and a UDP flood from many
	 * addresses leaves room for every uid. */
	struct statsd_source *sources, *spare;
	size_t source_mask;
	size_t source_count[2]; /* by transport */
	size_t udp_series;
	size_t udp_members, udp_members_last;
	uint64_t udp_series_refused, udp_members_refused;
	size_t member_bytes;
	int64_t now;
	/* A sender can choose keys whose FNV hashes share low bits, and
	 * members with one hash; not what shares them under these keys. */
	struct dci_siphash_key index_key, member_key;
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

static uint64_t
statsd_keyed(const struct dci_siphash_key *key, uint64_t value)
{
	return dci_siphash(key, &value, sizeof value);
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
	size_t slots;

	if (table == NULL)
		return NULL;
	table->limits = *limits;
	slots = statsd_power_of_two(2 * limits->max_series);
	table->series = calloc(limits->max_series, sizeof *table->series);
	table->index = calloc(slots, sizeof *table->index);
	table->index_mask = slots - 1;
	/* Each transport may claim a quarter of these (statsd_source_find):
	 * a source holds at least a series or a member, and a sender past
	 * that many sources is one that makes up addresses. */
	slots = statsd_power_of_two(limits->max_series);
	table->sources = calloc(slots, sizeof *table->sources);
	table->spare = calloc(slots, sizeof *table->spare);
	if (table->series == NULL || table->index == NULL ||
	    table->sources == NULL || table->spare == NULL) {
		statsd_table_destroy(table);
		return NULL;
	}
	table->source_mask = slots - 1;
	dci_siphash_random_key(&table->index_key);
	dci_siphash_random_key(&table->member_key);
	return table;
}

static void
statsd_series_free(struct statsd_series *series)
{
	free(series->key);
	free(series->digest);
	free(series->members);
	free(series);
}

void
statsd_table_destroy(struct statsd_table *table)
{
	if (table == NULL)
		return;
	for (size_t i = 0; i < table->series_count; i++)
		statsd_series_free(table->series[i]);
	free(table->series);
	free(table->index);
	free(table->sources);
	free(table->spare);
	free(table);
}

void
statsd_table_clock(struct statsd_table *table, int64_t now)
{
	table->now = now;
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

static bool
statsd_is_root(const struct statsd_sender *sender)
{
	return sender->transport == STATSD_FROM_UNIX && sender->id == 0;
}

/* The sender's entry, claimed if new and `claim` allows; NULL when it has
 * none, or no room is left for its transport. Each transport claims at
 * most a quarter of the slots, so a free slot ends every probe. */
static struct statsd_source *
statsd_source_find(
    struct statsd_table *table, const struct statsd_sender *sender, bool claim)
{
	size_t slot = statsd_keyed(&table->index_key,
	                  sender->id ^ (uint64_t)sender->transport << 63) &
	              table->source_mask;
	struct statsd_source *entry;

	for (;;) {
		entry = &table->sources[slot];
		if (!entry->used)
			break;
		if (entry->sender.transport == sender->transport &&
		    entry->sender.id == sender->id)
			return entry;
		slot = (slot + 1) & table->source_mask;
	}
	if (!claim || table->source_count[sender->transport] >=
	                  (table->source_mask + 1) / 4)
		return NULL;
	*entry = (struct statsd_source){.sender = *sender, .used = true};
	table->source_count[sender->transport]++;
	table->counts.sources++;
	return entry;
}

/* What all senders but root may take of `bound`: root's share, `share`,
 * is kept back when the bound leaves room for it. */
static size_t
statsd_room(const struct statsd_sender *sender, size_t bound, size_t share)
{
	return statsd_is_root(sender) || bound <= share ? bound : bound - share;
}

/* Counts a refusal against the sender's row in statsd_table_sources:
 * UDP's as one, a uid's claiming its entry if it has none (a uid the
 * kernel vouched for: there are only so many). */
static void
statsd_note_refusal(
    struct statsd_table *table, const struct statsd_sender *sender, bool member)
{
	struct statsd_source *source;

	if (sender->transport == STATSD_FROM_UDP) {
		if (member)
			table->udp_members_refused++;
		else
			table->udp_series_refused++;
		return;
	}
	source = statsd_source_find(table, sender, true);
	if (source == NULL)
		return;
	if (member)
		source->members_refused++;
	else
		source->series_refused++;
}

static size_t
statsd_index_slot(const struct statsd_table *table, uint64_t id)
{
	return statsd_keyed(&table->index_key, id) & table->index_mask;
}

/* Whether `sender` may make one more series of `kind` (counted when not);
 * its source when it may. */
static struct statsd_source *
statsd_admit_series(struct statsd_table *table, enum statsd_kind kind,
    const struct statsd_sender *sender)
{
	const struct statsd_limits *limits = &table->limits;
	struct statsd_source *source;

	if (table->series_count >= statsd_room(sender, limits->max_series,
	                               limits->max_series_per_source)) {
		table->counts.series_refused++;
		return NULL;
	}
	if (kind == STATSD_KIND_TIMER &&
	    table->timer_count >= limits->max_timer_series) {
		table->counts.timer_refused++;
		return NULL;
	}
	if (sender->transport == STATSD_FROM_UDP &&
	    table->udp_series >= limits->max_udp_series) {
		table->counts.udp_refused++;
		return NULL;
	}
	source = statsd_source_find(table, sender, true);
	if (source == NULL || source->series >= limits->max_series_per_source) {
		table->counts.source_refused++;
		return NULL;
	}
	return source;
}

/* Finds the series of `kind` and `key`, or makes it within the bounds;
 * NULL when refused (counted). */
static struct statsd_series *
statsd_find_series(struct statsd_table *table, enum statsd_kind kind,
    const char *key, size_t key_length, const struct statsd_sender *sender)
{
	unsigned char kind_byte = (unsigned char)kind;
	uint64_t id = statsd_fnv1a(UINT64_C(0xcbf29ce484222325), &kind_byte, 1);
	size_t slot;
	struct statsd_series *series;
	struct statsd_source *charged;

	id = statsd_fnv1a(id, key, key_length);
	slot = statsd_index_slot(table, id);
	for (;;) {
		uint32_t entry = table->index[slot];
		if (entry == 0)
			break;
		series = table->series[entry - 1];
		if (series->id == id && series->kind == kind) {
			if (strcmp(series->key, key) == 0)
				return series;
			table->counts.collisions++;
			statsd_note_refusal(table, sender, false);
			return NULL;
		}
		slot = (slot + 1) & table->index_mask;
	}
	charged = statsd_admit_series(table, kind, sender);
	if (charged == NULL) {
		statsd_note_refusal(table, sender, false);
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
		statsd_series_free(series);
		return NULL;
	}
	memcpy(series->key, key, key_length + 1);
	if (series->digest != NULL)
		dci_tdigest_init(series->digest);
	series->kind = kind;
	series->id = id;
	series->owner = *sender;
	charged->series++;
	if (sender->transport == STATSD_FROM_UDP)
		table->udp_series++;
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
 * with a free slot): where it is, or the free slot where it goes. The
 * hash is keyed: its low bits are as good as any. */
static size_t
statsd_member_slot(const uint64_t *members, size_t capacity, uint64_t hash)
{
	size_t slot = hash & (capacity - 1);

	while (members[slot] != 0 && members[slot] != hash)
		slot = (slot + 1) & (capacity - 1);
	return slot;
}

/* Gives a set's member table `capacity` slots (0: none) holding its
 * members; false without memory. */
static bool
statsd_set_resize(
    struct statsd_table *table, struct statsd_series *series, size_t capacity)
{
	uint64_t *members = NULL;

	if (capacity != 0) {
		members = calloc(capacity, sizeof *members);
		if (members == NULL)
			return false;
	}
	for (size_t i = 0; i < series->member_capacity; i++)
		if (series->members[i] != 0)
			members[statsd_member_slot(members, capacity,
			    series->members[i])] = series->members[i];
	free(series->members);
	table->member_bytes -= series->member_capacity * sizeof *members;
	table->member_bytes += capacity * sizeof *members;
	series->members = members;
	series->member_capacity = capacity;
	return true;
}

/* Whether `sender` may add one more member to a set (counted when not);
 * its source when it may. */
static struct statsd_source *
statsd_admit_member(struct statsd_table *table, struct statsd_series *series,
    const struct statsd_sender *sender)
{
	const struct statsd_limits *limits = &table->limits;
	struct statsd_source *source;

	if (series->member_count >= limits->max_set_members) {
		table->counts.members_refused++;
		return NULL;
	}
	if (table->counts.members >= statsd_room(sender,
	                                 limits->max_set_members_total,
	                                 limits->max_set_members_per_source)) {
		table->counts.members_total_refused++;
		return NULL;
	}
	if (sender->transport == STATSD_FROM_UDP &&
	    table->udp_members >= limits->max_udp_set_members) {
		table->counts.members_source_refused++;
		return NULL;
	}
	source = statsd_source_find(table, sender, true);
	if (source == NULL ||
	    source->members >= limits->max_set_members_per_source) {
		table->counts.members_source_refused++;
		return NULL;
	}
	return source;
}

/* Adds a member's hash to a set (kept at most half full), charged to
 * `sender`, within the bounds. */
static void
statsd_set_add(struct statsd_table *table, struct statsd_series *series,
    const struct statsd_sender *sender, const char *member, size_t length)
{
	uint64_t hash = dci_siphash(&table->member_key, member, length);
	struct statsd_source *source;
	size_t slot;

	if (hash == 0)
		hash = 1; /* 0 marks a free slot */
	if (series->member_capacity != 0) {
		slot = statsd_member_slot(
		    series->members, series->member_capacity, hash);
		if (series->members[slot] == hash)
			return;
	}
	source = statsd_admit_member(table, series, sender);
	if (source == NULL) {
		statsd_note_refusal(table, sender, true);
		return;
	}
	if (2 * (series->member_count + 1) > series->member_capacity &&
	    !statsd_set_resize(table, series,
	        series->member_capacity != 0 ? series->member_capacity * 2
	                                     : STATSD_SET_INITIAL)) {
		table->counts.members_refused++;
		statsd_note_refusal(table, sender, true);
		return;
	}
	slot =
	    statsd_member_slot(series->members, series->member_capacity, hash);
	series->members[slot] = hash;
	series->member_count++;
	table->counts.members++;
	source->members++;
	if (sender->transport == STATSD_FROM_UDP)
		table->udp_members++;
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
statsd_apply(struct statsd_table *table, const struct statsd_sender *sender,
    const char *line, size_t length, const struct statsd_metric *metric)
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
	series = statsd_find_series(table, kind, key, key_length, sender);
	if (series == NULL)
		return;
	table->counts.metrics++;
	series->updated = table->now;
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
		statsd_set_add(table, series, sender, metric->member,
		    metric->member_length);
		break;
	case STATSD_KINDS:
		break;
	}
}

void
statsd_table_datagram(struct statsd_table *table,
    const struct statsd_sender *sender, const char *datagram, size_t length)
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
			statsd_apply(table, sender, line, line_length, &metric);
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

/* Removes the series idle for expire_after seconds, gives their slots
 * back to their sources, and rebuilds the index over those left. */
static void
statsd_expire(struct statsd_table *table)
{
	size_t kept = 0;

	if (table->limits.expire_after <= 0)
		return;
	for (size_t i = 0; i < table->series_count; i++) {
		struct statsd_series *series = table->series[i];
		struct statsd_source *source;

		if (table->now - series->updated < table->limits.expire_after) {
			table->series[kept++] = series;
			continue;
		}
		source = statsd_source_find(table, &series->owner, false);
		if (source != NULL && source->series > 0)
			source->series--;
		if (series->owner.transport == STATSD_FROM_UDP)
			table->udp_series--;
		if (series->kind == STATSD_KIND_TIMER)
			table->timer_count--;
		table->member_bytes -=
		    series->member_capacity * sizeof *series->members;
		statsd_series_free(series);
		table->counts.expired++;
	}
	if (kept == table->series_count)
		return;
	table->series_count = kept;
	memset(table->index, 0, (table->index_mask + 1) * sizeof *table->index);
	for (size_t i = 0; i < kept; i++) {
		size_t slot = statsd_index_slot(table, table->series[i]->id);
		while (table->index[slot] != 0)
			slot = (slot + 1) & table->index_mask;
		table->index[slot] = (uint32_t)(i + 1);
	}
}

/* Keeps the sources that hold series, added members in the interval
 * that ended or had anything refused, with their members forgotten. */
static void
statsd_sources_rebuild(struct statsd_table *table)
{
	struct statsd_source *old = table->sources;
	size_t slots = table->source_mask + 1;

	memset(table->spare, 0, slots * sizeof *table->spare);
	table->sources = table->spare;
	table->spare = old;
	table->source_count[STATSD_FROM_UDP] = 0;
	table->source_count[STATSD_FROM_UNIX] = 0;
	table->counts.sources = 0;
	for (size_t i = 0; i < slots; i++) {
		struct statsd_source *kept;
		if (!old[i].used ||
		    (old[i].series == 0 && old[i].members == 0 &&
		        old[i].series_refused == 0 &&
		        old[i].members_refused == 0))
			continue;
		/* As many fit as did before. */
		kept = statsd_source_find(table, &old[i].sender, true);
		if (kept == NULL)
			continue;
		kept->series = old[i].series;
		kept->members_last = old[i].members;
		kept->series_refused = old[i].series_refused;
		kept->members_refused = old[i].members_refused;
	}
}

size_t
statsd_table_end_interval(struct statsd_table *table, int64_t now)
{
	size_t before = table->member_bytes;

	table->now = now;
	for (size_t i = 0; i < table->series_count; i++) {
		struct statsd_series *series = table->series[i];
		size_t needed = 0;

		if (series->kind != STATSD_KIND_SET)
			continue;
		series->distinct_last = series->member_count;
		if (series->member_count != 0)
			needed = statsd_power_of_two(2 * series->member_count);
		series->member_count = 0;
		/* A table sized for a burst goes with the burst. */
		if (needed < series->member_capacity) {
			free(series->members);
			table->member_bytes -=
			    series->member_capacity * sizeof *series->members;
			series->members = NULL;
			series->member_capacity = 0;
			if (needed != 0)
				(void)statsd_set_resize(table, series, needed);
		} else if (series->members != NULL) {
			memset(series->members, 0,
			    series->member_capacity * sizeof *series->members);
		}
	}
	table->counts.members_last = table->counts.members;
	table->counts.members = 0;
	table->udp_members_last = table->udp_members;
	table->udp_members = 0;
	statsd_expire(table);
	statsd_sources_rebuild(table);
	return before > table->member_bytes ? before - table->member_bytes : 0;
}

size_t
statsd_table_member_bytes(const struct statsd_table *table)
{
	return table->member_bytes;
}

size_t
statsd_table_sources(const struct statsd_table *table,
    struct statsd_source_view *views, size_t capacity)
{
	size_t count = 0;

	if (capacity > 0)
		views[0] = (struct statsd_source_view){
		    .sender = {STATSD_FROM_UDP, 0},
		    .series = table->udp_series,
		    .members_last = table->udp_members_last,
		    .series_refused = table->udp_series_refused,
		    .members_refused = table->udp_members_refused,
		};
	count++;
	for (size_t i = 0; i <= table->source_mask; i++) {
		const struct statsd_source *source = &table->sources[i];
		if (!source->used ||
		    source->sender.transport != STATSD_FROM_UNIX)
			continue;
		if (count < capacity)
			views[count] = (struct statsd_source_view){
			    .sender = source->sender,
			    .series = source->series,
			    .members_last = source->members_last,
			    .series_refused = source->series_refused,
			    .members_refused = source->members_refused,
			};
		count++;
	}
	return count;
}
