/*
 * evcnt_event: the mapping from table rows to evcnt(9) counters, and the
 * key tables that keep named rows' ids stable.
 */
#define _GNU_SOURCE

#include "evcnt_event.h"
#include "providers/common/growable.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest message handed to warn: two keys and some words. */

/* What evcnt_events_add sorts to find rows with one id. */
struct evcnt_line_order {
	uint32_t source;
	uint32_t key;
	size_t index; /* in events->lines, so file order */
};

uint32_t
evcnt_fnv1a(const char *text)
{
	uint32_t hash = EVCNT_FNV_OFFSET_BASIS;

	for (const unsigned char *p = (const unsigned char *)text; *p != '\0';
	     p++) {
		hash ^= *p;
		hash *= EVCNT_FNV_PRIME;
	}
	return hash;
}

/* --- Keys -------------------------------------------------------------- */

void
evcnt_keys_init(struct evcnt_keys *keys, evcnt_hash hash)
{
	memset(keys, 0, sizeof *keys);
	keys->hash = hash != NULL ? hash : evcnt_fnv1a;
}

void
evcnt_keys_free(struct evcnt_keys *keys)
{
	evcnt_hash hash = keys->hash;

	for (size_t i = 0; i < keys->count; i++)
		free(keys->items[i].text);
	free(keys->items);
	free(keys->values);
	evcnt_keys_init(keys, hash);
}

/* The first position p of keys (0 to keys->count) where below(keys, p,
 * key) is false: a binary search, below being true for every position
 * before it and false from there on. */
static size_t
evcnt_keys_search(const struct evcnt_keys *keys,
    bool (*below)(
        const struct evcnt_keys *keys, size_t position, const void *key),
    const void *key)
{
	size_t low = 0;
	size_t high = keys->count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;

		if (below(keys, middle, key))
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

static bool
evcnt_keys_item_below(
    const struct evcnt_keys *keys, size_t position, const void *text)
{
	return strcmp(keys->items[position].text, text) < 0;
}

static bool
evcnt_keys_value_below(
    const struct evcnt_keys *keys, size_t position, const void *value)
{
	return keys->values[position] < *(const uint32_t *)value;
}

/* The position of the first item whose text is not below text. */
static size_t
evcnt_keys_position(const struct evcnt_keys *keys, const char *text)
{
	return evcnt_keys_search(keys, evcnt_keys_item_below, text);
}

/* The position of the first used value not below value. */
static size_t
evcnt_keys_value_position(const struct evcnt_keys *keys, uint32_t value)
{
	return evcnt_keys_search(keys, evcnt_keys_value_below, &value);
}

static bool
evcnt_keys_value_used(const struct evcnt_keys *keys, uint32_t value)
{
	size_t position = evcnt_keys_value_position(keys, value);

	return position < keys->count && keys->values[position] == value;
}

/* The text holding value, which is used. */
static const char *
evcnt_keys_holder(const struct evcnt_keys *keys, uint32_t value)
{
	for (size_t i = 0; i < keys->count; i++)
		if (keys->items[i].value == value)
			return keys->items[i].text;
	return "";
}

bool
evcnt_keys_find(
    const struct evcnt_keys *keys, const char *text, uint32_t *value)
{
	size_t position = evcnt_keys_position(keys, text);

	if (position == keys->count ||
	    strcmp(keys->items[position].text, text) != 0)
		return false;
	*value = keys->items[position].value;
	return true;
}

static int
evcnt_compare_request(const void *left, const void *right)
{
	const struct evcnt_key_request *a = left;
	const struct evcnt_key_request *b = right;
	int order = strcmp(a->text, b->text);

	if (order != 0)
		return order;
	return (a->line > b->line) - (a->line < b->line);
}

/* Gives text, which has no value yet, one. Returns 0, or -1 with errno. */
static int
evcnt_keys_insert(struct evcnt_keys *keys, const char *text, unsigned line,
    proc_interrupts_warn warn, void *opaque)
{
	struct evcnt_key *items;
	uint32_t *values;
	uint32_t hash;
	uint32_t value;
	size_t position;
	char *copy;

	/* Every 32-bit value taken: cannot happen before memory runs out. */
	if (keys->count > UINT32_MAX) {
		errno = ENOMEM;
		return -1;
	}
	if (PROVIDER_RESERVE(keys->items, keys->capacity, keys->count + 1) !=
	        0 ||
	    PROVIDER_RESERVE(
	        keys->values, keys->value_capacity, keys->count + 1) != 0)
		return -1;
	items = keys->items;
	values = keys->values;
	copy = strdup(text);
	if (copy == NULL)
		return -1;

	hash = keys->hash(text);
	value = hash;
	while (evcnt_keys_value_used(keys, value))
		value++; /* wraps at 2^32, as documented */
	if (value != hash)
		proc_interrupts_report(warn, opaque, line,
		    "key \"%s\" hashes to 0x%08" PRIx32
		    ", the id of key \"%s\"; \"%s\" takes 0x%08" PRIx32,
		    text, hash, evcnt_keys_holder(keys, hash), text, value);

	position = evcnt_keys_position(keys, text);
	memmove(&items[position + 1], &items[position],
	    (keys->count - position) * sizeof *items);
	items[position].text = copy;
	items[position].value = value;
	position = evcnt_keys_value_position(keys, value);
	memmove(&values[position + 1], &values[position],
	    (keys->count - position) * sizeof *values);
	values[position] = value;
	keys->count++;
	return 0;
}

int
evcnt_keys_add(struct evcnt_keys *keys, struct evcnt_key_request *requests,
    size_t count, proc_interrupts_warn warn, void *opaque)
{
	uint32_t value;

	if (count == 0)
		return 0;
	qsort(requests, count, sizeof *requests, evcnt_compare_request);
	for (size_t i = 0; i < count; i++) {
		if (i > 0 &&
		    strcmp(requests[i].text, requests[i - 1].text) == 0)
			continue;
		if (evcnt_keys_find(keys, requests[i].text, &value))
			continue;
		if (evcnt_keys_insert(keys, requests[i].text, requests[i].line,
		        warn, opaque) != 0)
			return -1;
	}
	return 0;
}

/* --- Lines ------------------------------------------------------------- */

/*
 * Appends length bytes of text to out, which holds *used bytes, as
 * printable ASCII: any other byte becomes '?', and so does a UTF-8
 * sequence as a whole. Stops when out holds EVCNT_STRING_SIZE - 1 bytes;
 * out is NUL-terminated.
 */
static void
evcnt_append(char *out, size_t *used, const char *text, size_t length)
{
	const unsigned char *p = (const unsigned char *)text;
	const unsigned char *end = p + length;

	while (p < end && *used < EVCNT_STRING_SIZE - 1) {
		unsigned char c = *p++;
		size_t more;

		if (c >= 0x20 && c < 0x7f) {
			out[(*used)++] = (char)c;
			continue;
		}
		/* Continuation bytes a UTF-8 lead byte announces. */
		if (c >= 0xc2 && c <= 0xdf)
			more = 1;
		else if (c >= 0xe0 && c <= 0xef)
			more = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			more = 3;
		else
			more = 0;
		while (more > 0 && p < end && (*p & 0xc0) == 0x80) {
			p++;
			more--;
		}
		out[(*used)++] = '?';
	}
	out[*used] = '\0';
}

static void
evcnt_set(char *out, const char *text)
{
	size_t used = 0;

	evcnt_append(out, &used, text, strlen(text));
}

/* True when text is 1 or more decimal digits and nothing else. */
static bool
evcnt_all_digits(const char *text)
{
	if (*text == '\0')
		return false;
	for (; *text != '\0'; text++)
		if (*text < '0' || *text > '9')
			return false;
	return true;
}

/* The IRQ number of an all-digits key. Returns false above 2^32 - 1. */
static bool
evcnt_irq_number(const char *text, uint32_t *number)
{
	uint64_t value = 0;

	for (; *text != '\0'; text++) {
		value = value * 10 + (uint64_t)(*text - '0');
		if (value > UINT32_MAX)
			return false;
	}
	*number = (uint32_t)value;
	return true;
}

/* Group and name of a numbered interrupt: description "CHIP REST". */
static void
evcnt_name_irq(struct evcnt_line *line, const char *description)
{
	const char *space = strchr(description, ' ');
	char number[16];
	size_t used = 0;

	snprintf(number, sizeof number, "%" PRIu32, line->irq);
	evcnt_append(line->name, &used, number, strlen(number));
	if (description[0] == '\0') {
		evcnt_set(line->group, EVCNT_GROUP_UNKNOWN_CHIP);
		return;
	}
	if (space == NULL) {
		evcnt_set(line->group, description);
		return;
	}
	used = 0;
	evcnt_append(
	    line->group, &used, description, (size_t)(space - description));
	used = strlen(line->name);
	evcnt_append(line->name, &used, space, strlen(space));
}

static void
evcnt_set_label(struct evcnt_line *line)
{
	size_t used = 0;

	evcnt_append(line->label, &used, line->group, strlen(line->group));
	evcnt_append(line->label, &used, " ", 1);
	evcnt_append(line->label, &used, line->name, strlen(line->name));
}

void
evcnt_line_child(
    const struct evcnt_line *line, size_t column, struct evcnt_child *child)
{
	char suffix[16];
	size_t suffix_length;
	size_t keep = strlen(line->label);

	child->cpu = line->cpus[column];
	child->count = line->counts[column];
	child->id[0] = line->id[0];
	child->id[1] = line->id[1];
	child->id[2] = child->cpu + 1;
	memcpy(child->parent, line->id, sizeof child->parent);

	suffix_length =
	    (size_t)snprintf(suffix, sizeof suffix, " cpu%" PRIu32, child->cpu);
	if (keep > EVCNT_STRING_SIZE - 1 - suffix_length)
		keep = EVCNT_STRING_SIZE - 1 - suffix_length;
	memcpy(child->label, line->label, keep);
	memcpy(child->label + keep, suffix, suffix_length + 1);
}

void
evcnt_events_init(struct evcnt_events *events, evcnt_hash hash)
{
	memset(events, 0, sizeof *events);
	evcnt_keys_init(&events->named, hash);
	evcnt_keys_init(&events->softirqs, hash);
}

void
evcnt_events_free(struct evcnt_events *events)
{
	evcnt_keys_free(&events->named);
	evcnt_keys_free(&events->softirqs);
	free(events->lines);
	free(events->requests);
	free(events->order);
	memset(events, 0, sizeof *events);
}

void
evcnt_events_clear(struct evcnt_events *events)
{
	events->count = 0;
}

static int
evcnt_compare_order(const void *left, const void *right)
{
	const struct evcnt_line_order *a = left;
	const struct evcnt_line_order *b = right;

	if (a->source != b->source)
		return a->source < b->source ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

/* Fills line from row, whose key has its id word (key) already. */
static void
evcnt_fill_line(struct evcnt_line *line,
    const struct proc_interrupts_table *table,
    const struct proc_interrupts_row *row, enum evcnt_source source,
    uint32_t key)
{
	memset(line, 0, sizeof *line);
	line->id[0] = source;
	line->id[1] = key;
	line->id[2] = 0;
	line->line = row->line;
	switch (source) {
	case EVCNT_SOURCE_IRQ:
		line->type = EVCNT_TYPE_INTR;
		line->has_irq = true;
		line->irq = key;
		evcnt_name_irq(line, row->description);
		break;
	case EVCNT_SOURCE_NAMED:
		line->type = EVCNT_TYPE_INTR;
		evcnt_set(line->group, row->key);
		evcnt_set(line->name,
		    row->description[0] != '\0' ? row->description : row->key);
		break;
	case EVCNT_SOURCE_SOFTIRQ:
		line->type = EVCNT_TYPE_MISC;
		evcnt_set(line->group, EVCNT_GROUP_SOFTIRQ);
		evcnt_set(line->name, row->key);
		break;
	}
	evcnt_set_label(line);

	if (row->global) {
		line->total = row->counts[0];
		return;
	}
	line->counts = row->counts;
	line->cpus = table->cpus;
	line->cpu_count = row->count_count;
	for (size_t i = 0; i < row->count_count; i++)
		line->total += row->counts[i];
}

/* Drops the lines from first on whose id an earlier one has. */
static int
evcnt_drop_repeats(struct evcnt_events *events, size_t first,
    proc_interrupts_warn warn, void *opaque)
{
	size_t count = events->count - first;
	struct evcnt_line_order *order;
	size_t kept = first;

	if (count < 2)
		return 0;
	if (PROVIDER_RESERVE(events->order, events->order_capacity, count) != 0)
		return -1;
	order = events->order;
	for (size_t i = 0; i < count; i++)
		order[i] = (struct evcnt_line_order){
		    .source = events->lines[first + i].id[0],
		    .key = events->lines[first + i].id[1],
		    .index = first + i,
		};
	qsort(order, count, sizeof *order, evcnt_compare_order);
	/* Within a run of one id, the first in file order stays. */
	for (size_t i = 1, head = 0; i < count; i++) {
		struct evcnt_line *earlier = &events->lines[order[head].index];
		struct evcnt_line *line = &events->lines[order[i].index];

		if (order[i].source != order[head].source ||
		    order[i].key != order[head].key) {
			head = i;
			continue;
		}
		proc_interrupts_report(warn, opaque, line->line,
		    "\"%.64s\" has the id of line %u; skipped", line->label,
		    earlier->line);
		line->id[0] = 0; /* no source: dropped below */
	}
	for (size_t i = first; i < events->count; i++) {
		if (events->lines[i].id[0] == 0)
			continue;
		if (kept != i)
			events->lines[kept] = events->lines[i];
		kept++;
	}
	events->count = kept;
	return 0;
}

int
evcnt_events_add(struct evcnt_events *events,
    const struct proc_interrupts_table *table, enum evcnt_file file,
    proc_interrupts_warn warn, void *opaque)
{
	bool interrupts = file == EVCNT_FILE_INTERRUPTS;
	struct evcnt_keys *keys =
	    interrupts ? &events->named : &events->softirqs;
	enum evcnt_source named =
	    interrupts ? EVCNT_SOURCE_NAMED : EVCNT_SOURCE_SOFTIRQ;
	size_t first = events->count;
	size_t requested = 0;

	/* Keys first seen now get their values, all at once, in order. */
	if (PROVIDER_RESERVE(events->requests, events->request_capacity,
	        table->row_count) != 0)
		return -1;
	for (size_t i = 0; i < table->row_count; i++) {
		const struct proc_interrupts_row *row = &table->rows[i];
		uint32_t value;

		if (interrupts && evcnt_all_digits(row->key))
			continue;
		if (!evcnt_keys_find(keys, row->key, &value))
			events->requests[requested++] =
			    (struct evcnt_key_request){row->key, row->line};
	}
	if (evcnt_keys_add(keys, events->requests, requested, warn, opaque) !=
	    0)
		return -1;

	if (table->row_count > SIZE_MAX - first) {
		errno = ENOMEM;
		return -1;
	}
	if (PROVIDER_RESERVE(
	        events->lines, events->capacity, first + table->row_count) != 0)
		return -1;
	for (size_t i = 0; i < table->row_count; i++) {
		const struct proc_interrupts_row *row = &table->rows[i];
		enum evcnt_source source = named;
		uint32_t key;

		if (interrupts && evcnt_all_digits(row->key)) {
			source = EVCNT_SOURCE_IRQ;
			if (!evcnt_irq_number(row->key, &key)) {
				proc_interrupts_report(warn, opaque, row->line,
				    "%s: IRQ number above %" PRIu32 "; skipped",
				    row->key, UINT32_MAX);
				continue;
			}
		} else if (!evcnt_keys_find(keys, row->key, &key)) {
			continue; /* not reached: added above */
		}
		evcnt_fill_line(
		    &events->lines[events->count++], table, row, source, key);
	}
	if (evcnt_drop_repeats(events, first, warn, opaque) != 0) {
		events->count = first;
		return -1;
	}
	return 0;
}
