/*
 * The one binary search of the model and the agent: the first position of a sorted
 * sequence that does not sort before a key.
 *
 * `before(context, position)` must be true for a (possibly empty) prefix of
 * [0, count) and false after it; the result is the length of that prefix,
 * found in O(log count) calls. Defined inline so that a caller's predicate,
 * a static function, is inlined into its search: the request path calls it
 * at every level of every GETNEXT.
 */
#ifndef DCISTAT_MODEL_LOWER_BOUND_H
#define DCISTAT_MODEL_LOWER_BOUND_H

#include <stdbool.h>
#include <stddef.h>

static inline size_t
dci_lower_bound(size_t count,
    bool (*before)(const void *context, size_t position), const void *context)
{
	size_t low = 0, high = count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (before(context, middle))
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

#endif
