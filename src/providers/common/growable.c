/*
 * growable: capacities double from a small first size, so filling an array
 * one element at a time costs amortised constant time, and an array that
 * already holds enough is left alone.
 */
#include "providers/common/growable.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* The capacity of an array's first allocation, in elements. */
#define PROVIDER_GROW_INITIAL 16u

void *
provider_grow(void *items, size_t *capacity, size_t wanted, size_t size)
{
	size_t larger = *capacity == 0 ? PROVIDER_GROW_INITIAL : *capacity;
	void *grown;

	if (wanted == 0)
		wanted = 1;
	if (wanted <= *capacity)
		return items;
	while (larger < wanted) {
		if (larger > SIZE_MAX / 2) {
			errno = ENOMEM;
			return NULL;
		}
		larger *= 2;
	}
	if (larger > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	grown = realloc(items, larger * size);
	if (grown == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	*capacity = larger;
	return grown;
}
