/*
 * evcnt_widen: 32-bit kernel counts extended to 64 bits across refreshes
 * (see evcnt_widen.h for the rule).
 */
#include "evcnt_widen.h"

#include "providers/common/growable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int
evcnt_compare_id(const uint32_t *a, const uint32_t *b)
{
	for (size_t i = 0; i < EVCNT_ID_WORDS; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static int
evcnt_compare_widened(const void *left, const void *right)
{
	const struct evcnt_widened *a = left;
	const struct evcnt_widened *b = right;

	return evcnt_compare_id(a->id, b->id);
}

/* The extended value of a count now at raw, last seen as previous. */
static uint64_t
evcnt_extend(const struct evcnt_widened *previous, uint64_t raw)
{
	uint32_t forward;

	if (previous == NULL)
		return raw;
	if (raw >= previous->raw)
		return previous->value + (raw - previous->raw);
	/* Down: a 32-bit wrap when it went forward by less than 2^31 modulo
	 * 2^32; otherwise the kernel started the count over. */
	if (raw > UINT32_MAX || previous->raw > UINT32_MAX)
		return raw;
	forward = (uint32_t)raw - (uint32_t)previous->raw;
	if (forward >= UINT32_C(0x80000000))
		return raw;
	return previous->value + forward;
}

int
evcnt_widen(struct evcnt_widener *widener, struct evcnt_events *events)
{
	struct evcnt_widened *fresh;
	uint64_t *values;
	size_t total = 0, used = 0, next_previous = 0;

	for (size_t i = 0; i < events->count; i++)
		total += events->lines[i].cpu_count > 0
		             ? events->lines[i].cpu_count
		             : 1;
	if (PROVIDER_RESERVE(widener->fresh, widener->fresh_capacity, total) !=
	        0 ||
	    PROVIDER_RESERVE(widener->values, widener->value_capacity, total) !=
	        0)
		return -1;
	fresh = widener->fresh;
	values = widener->values;

	/* Every count, in line order: slot is its place in values. */
	for (size_t i = 0; i < events->count; i++) {
		const struct evcnt_line *line = &events->lines[i];

		if (line->cpu_count == 0) {
			fresh[used] = (struct evcnt_widened){
			    .id = {line->id[0], line->id[1], 0},
			    .raw = line->total,
			    .slot = used,
			};
			used++;
			continue;
		}
		for (size_t column = 0; column < line->cpu_count; column++) {
			fresh[used] = (struct evcnt_widened){
			    .id = {line->id[0], line->id[1],
			        line->cpus[column] + 1},
			    .raw = line->counts[column],
			    .slot = used,
			};
			used++;
		}
	}

	/* By id, to meet the last refresh's counts in one merge walk. */
	qsort(fresh, used, sizeof *fresh, evcnt_compare_widened);
	for (size_t i = 0; i < used; i++) {
		const struct evcnt_widened *previous = NULL;
		int order = 1;

		while (next_previous < widener->count &&
		       (order = evcnt_compare_id(
		            widener->items[next_previous].id, fresh[i].id)) < 0)
			next_previous++;
		if (next_previous < widener->count && order == 0)
			previous = &widener->items[next_previous];
		fresh[i].value = evcnt_extend(previous, fresh[i].raw);
		values[fresh[i].slot] = fresh[i].value;
	}

	/* The lines take the extended counts, in the same order. */
	used = 0;
	for (size_t i = 0; i < events->count; i++) {
		struct evcnt_line *line = &events->lines[i];

		if (line->cpu_count == 0) {
			line->total = values[used++];
			continue;
		}
		line->counts = &values[used];
		line->total = 0;
		for (size_t column = 0; column < line->cpu_count; column++)
			line->total += values[used++];
	}

	PROVIDER_SWAP_SPARE(widener->items, widener->capacity, widener->fresh,
	    widener->fresh_capacity);
	widener->count = used;
	return 0;
}

void
evcnt_widener_free(struct evcnt_widener *widener)
{
	free(widener->items);
	free(widener->fresh);
	free(widener->values);
	memset(widener, 0, sizeof *widener);
}
