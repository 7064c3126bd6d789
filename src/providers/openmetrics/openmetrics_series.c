/*
 * openmetrics_series: see openmetrics_series.h.
 */
#define _GNU_SOURCE

#include "openmetrics_series.h"

#include "providers/common/growable.h"
#include "text/escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tests narrow ids to make collisions (tests/unit/test_openmetrics.c). */
#ifndef OM_SERIES_ID_MASK
#define OM_SERIES_ID_MASK UINT64_MAX
#endif

#define FNV64_OFFSET 14695981039346656037ull
#define FNV64_PRIME 1099511628211ull

static uint64_t
fnv_bytes(uint64_t hash, const void *bytes, size_t length)
{
	const unsigned char *cursor = bytes;
	for (size_t i = 0; i < length; i++) {
		hash ^= cursor[i];
		hash *= FNV64_PRIME;
	}
	return hash;
}

static uint64_t
fnv_length(uint64_t hash, uint32_t length)
{
	unsigned char bytes[4] = {(unsigned char)length,
	    (unsigned char)(length >> 8), (unsigned char)(length >> 16),
	    (unsigned char)(length >> 24)};
	return fnv_bytes(hash, bytes, sizeof(bytes));
}

uint32_t
om_fnv1a32(const char *text, size_t length)
{
	uint32_t hash = 2166136261u;
	for (size_t i = 0; i < length; i++) {
		hash ^= (unsigned char)text[i];
		hash *= 16777619u;
	}
	return hash;
}

uint64_t
om_fnv1a64(const char *text, size_t length)
{
	return fnv_bytes(FNV64_OFFSET, text, length);
}

uint64_t
om_series_id(const struct om_label *labels, size_t count)
{
	uint64_t hash = FNV64_OFFSET;
	for (size_t i = 0; i < count; i++) {
		hash = fnv_length(hash, labels[i].name_length);
		hash = fnv_bytes(hash, labels[i].name, labels[i].name_length);
		hash = fnv_length(hash, labels[i].value_length);
		hash = fnv_bytes(hash, labels[i].value, labels[i].value_length);
	}
	return hash & OM_SERIES_ID_MASK;
}

/* The order of qsort: by name bytes, then by name length. */
static int
name_compare(const void *left, const void *right)
{
	const struct om_label *a = left;
	const struct om_label *b = right;
	uint32_t shorter =
	    a->name_length < b->name_length ? a->name_length : b->name_length;
	int order = memcmp(a->name, b->name, shorter);
	if (order != 0)
		return order;
	return a->name_length < b->name_length   ? -1
	       : a->name_length > b->name_length ? 1
	                                         : 0;
}

static bool
labels_equal(const struct om_label *a, const struct om_label *b, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (a[i].name_length != b[i].name_length ||
		    a[i].value_length != b[i].value_length ||
		    memcmp(a[i].name, b[i].name, a[i].name_length) != 0 ||
		    memcmp(a[i].value, b[i].value, a[i].value_length) != 0)
			return false;
	return true;
}

int
om_series_prepare(struct om_label *labels, uint32_t count, uint64_t *id)
{
	/* Labels of one name make the set refused below, so the order among
	 * them does not matter. */
	if (count > 1)
		qsort(labels, count, sizeof *labels, name_compare);
	for (uint32_t i = 1; i < count; i++)
		if (name_compare(&labels[i - 1], &labels[i]) == 0)
			return -1;
	*id = om_series_id(labels, count);
	return 0;
}

static int
fail(
    struct om_series_set *set, const char *what, const struct om_family *family)
{
	char quoted[96];
	dci_text_escape(quoted, sizeof(quoted), family->name,
	    family->name_length, DCI_TEXT_ESCAPE_LABEL);
	snprintf(set->error, sizeof(set->error), "family %s: %s", quoted, what);
	return -1;
}

static int
prepare(struct om_series_set *set, size_t samples)
{
	size_t wanted = 16;
	while (wanted < 2 * samples)
		wanted *= 2;
	if (set->slot_capacity < wanted) {
		uint32_t *slots = calloc(wanted, sizeof(*slots));
		if (slots == NULL)
			return -1;
		free(set->slots);
		set->slots = slots;
		set->slot_capacity = wanted;
	} else
		memset(set->slots, 0, wanted * sizeof(*set->slots));
	set->slot_mask = wanted - 1;
	/* A series, a part and a sample_series entry for every sample at most.
	 */
	if (PROVIDER_RESERVE(set->sample_series, set->sample_series_capacity,
	        samples) != 0 ||
	    PROVIDER_RESERVE(set->parts, set->part_capacity, samples) != 0 ||
	    PROVIDER_RESERVE(set->series, set->capacity, samples) != 0)
		return -1;
	set->count = 0;
	set->collisions = 0;
	set->collision[0] = '\0';
	set->error[0] = '\0';
	return 0;
}

/* The slot of a sample in its series, or NULL for a part. */
static uint32_t *
series_slot(struct om_series *series, const struct om_family *family,
    enum om_suffix suffix)
{
	switch (suffix) {
	case OM_SUFFIX_TOTAL:
		return &series->total;
	case OM_SUFFIX_CREATED:
		return &series->created;
	case OM_SUFFIX_COUNT:
		return &series->count;
	case OM_SUFFIX_SUM:
		return &series->sum;
	case OM_SUFFIX_BUCKET:
		return NULL;
	case OM_SUFFIX_NONE:
		if (family->type == OM_TYPE_SUMMARY)
			return NULL;
		return &series->value;
	case OM_SUFFIX_INFO:
		return &series->value;
	}
	return &series->value;
}

static void
collision_note(struct om_series_set *set, const struct om_scrape *scrape,
    const struct om_family *family, const struct om_series *kept,
    const struct om_sample *sample)
{
	char first[128], second[128], quoted[64];
	if (set->collisions++ > 0)
		return;
	om_series_label(scrape, kept, "", first, sizeof(first));
	struct om_series refused = {.label_first = sample->label_first,
	    .label_count = sample->label_count};
	om_series_label(scrape, &refused, "", second, sizeof(second));
	char first_escaped[160], second_escaped[160];
	dci_text_escape(first_escaped, sizeof(first_escaped), first,
	    strlen(first), DCI_TEXT_ESCAPE_LABEL);
	dci_text_escape(second_escaped, sizeof(second_escaped), second,
	    strlen(second), DCI_TEXT_ESCAPE_LABEL);
	dci_text_escape(quoted, sizeof(quoted), family->name,
	    family->name_length, DCI_TEXT_ESCAPE_LABEL);
	if (snprintf(set->collision, sizeof(set->collision),
	        "family %s: {%.60s} has the id of {%.60s}", quoted,
	        second_escaped, first_escaped) < 0)
		set->collision[0] = '\0';
}

int
om_series_group(
    struct om_series_set *set, struct om_scrape *scrape, uint32_t family_index)
{
	const struct om_family *family = &scrape->families[family_index];
	size_t first = family->sample_first, count = family->sample_count;

	if (prepare(set, count) != 0) {
		snprintf(set->error, sizeof(set->error), "out of memory");
		return -1;
	}
	size_t mask = set->slot_mask;
	for (size_t s = 0; s < count; s++) {
		struct om_sample *sample = &scrape->samples[first + s];
		struct om_label *labels = scrape->labels + sample->label_first;

		uint64_t id = sample->series_id;
		size_t at = (size_t)(id ^ (id >> 32)) & mask;
		uint32_t found = UINT32_MAX;
		while (set->slots[at] != 0) {
			struct om_series *candidate =
			    &set->series[set->slots[at] - 1];
			if (candidate->id == id) {
				found = set->slots[at] - 1;
				break;
			}
			at = (at + 1) & mask;
		}
		if (found == UINT32_MAX) {
			found = (uint32_t)set->count++;
			set->series[found] = (struct om_series){.id = id,
			    .label_first = sample->label_first,
			    .label_count = sample->label_count};
			set->slots[at] = found + 1;
		} else {
			struct om_series *kept = &set->series[found];
			if (kept->label_count != sample->label_count ||
			    !labels_equal(scrape->labels + kept->label_first,
			        labels, sample->label_count)) {
				collision_note(
				    set, scrape, family, kept, sample);
				set->sample_series[s] = UINT32_MAX;
				continue;
			}
		}
		set->sample_series[s] = found;
		uint32_t *slot =
		    series_slot(&set->series[found], family, sample->suffix);
		if (slot == NULL)
			set->series[found].part_count++;
		else if (*slot != 0)
			return fail(set, "a sample given twice", family);
		else
			*slot = (uint32_t)(first + s) + 1;
	}
	/* Parts: each series' run of set->parts, then sorted by bound. */
	uint32_t offset = 0;
	for (size_t i = 0; i < set->count; i++) {
		set->series[i].part_first = offset;
		offset += set->series[i].part_count;
		set->series[i].part_count = 0;
	}
	for (size_t s = 0; s < count; s++) {
		const struct om_sample *sample = &scrape->samples[first + s];
		if (set->sample_series[s] == UINT32_MAX ||
		    sample->bound_text == NULL)
			continue;
		struct om_series *series = &set->series[set->sample_series[s]];
		uint32_t *run = set->parts + series->part_first;
		uint32_t j = series->part_count++;
		while (j > 0 &&
		       scrape->samples[run[j - 1]].bound > sample->bound) {
			run[j] = run[j - 1];
			j--;
		}
		if (j > 0 &&
		    !(scrape->samples[run[j - 1]].bound < sample->bound))
			return fail(set, "a bound given twice or NaN", family);
		run[j] = (uint32_t)(first + s);
	}
	return 0;
}

/* Appends `length` bytes to out[*used], keeping one byte for the NUL. */
static void
append(char *out, size_t size, size_t *used, const char *text, size_t length)
{
	if (*used + 1 >= size)
		return;
	if (length > size - 1 - *used)
		length = size - 1 - *used;
	memcpy(out + *used, text, length);
	*used += length;
}

void
om_series_label(const struct om_scrape *scrape, const struct om_series *series,
    const char *fallback, char *out, size_t size)
{
	size_t used = 0;
	if (size == 0)
		return;
	if (series->label_count == 0)
		append(out, size, &used, fallback, strlen(fallback));
	for (uint32_t i = 0; i < series->label_count; i++) {
		const struct om_label *label =
		    &scrape->labels[series->label_first + i];
		if (i > 0)
			append(out, size, &used, ",", 1);
		append(out, size, &used, label->name, label->name_length);
		append(out, size, &used, "=\"", 2);
		append(out, size, &used, label->value, label->value_length);
		append(out, size, &used, "\"", 1);
	}
	out[used] = '\0';
}

void
om_series_set_free(struct om_series_set *set)
{
	free(set->series);
	free(set->parts);
	free(set->sample_series);
	free(set->slots);
	*set = (struct om_series_set){0};
}
