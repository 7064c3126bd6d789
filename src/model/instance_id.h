/*
 * Instance ids (arrays of `words` 32-bit words) in the order the model
 * sorts them, word by word: one comparison for the snapshots and the
 * CLI's samples and refreshes, one search of a contiguous ascending
 * array of them.
 */
#ifndef DCISTAT_MODEL_INSTANCE_ID_H
#define DCISTAT_MODEL_INSTANCE_ID_H

#include <stddef.h>
#include <stdint.h>

#include "model/lower_bound.h"

/* <0, 0 or >0 as `left` sorts before, equal to or after `right`. */
static inline int
dci_instance_id_compare(
    const uint32_t *left, const uint32_t *right, size_t words)
{
	for (size_t i = 0; i < words; i++) {
		if (left[i] != right[i])
			return left[i] < right[i] ? -1 : 1;
	}
	return 0;
}

struct dci_instance_id_search {
	const uint32_t *ids;
	size_t words;
	const uint32_t *id;
};

static inline bool
dci_instance_id_before(const void *context, size_t position)
{
	const struct dci_instance_id_search *search = context;

	return dci_instance_id_compare(search->ids + position * search->words,
	           search->id, search->words) < 0;
}

/* The position of `id` among the `count` ids of `words` words each that
 * `ids` holds one after another in ascending order, or -1: O(log count). */
static inline long
dci_instance_id_find(
    const uint32_t *ids, size_t count, size_t words, const uint32_t *id)
{
	struct dci_instance_id_search search = {ids, words, id};
	size_t position =
	    dci_lower_bound(count, dci_instance_id_before, &search);

	if (position < count &&
	    dci_instance_id_compare(ids + position * words, id, words) == 0)
		return (long)position;
	return -1;
}

#endif
