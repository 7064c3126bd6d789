/*
 * growable: capacities double from a small first size, so filling an array
 * one element at a time costs amortised constant time, and an array that
 * already holds enough is left alone.
 */
#include "providers/common/growable.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int
provider_reserve(
    void *items_address, size_t *capacity, size_t wanted, size_t size)
{
	void *items, *grown;

	/* Copied as bytes: the variable is a T *, which has the
	 * representation of a void * on every platform dcistat builds on. */
	memcpy(&items, items_address, sizeof items);
	grown = provider_grow(items, capacity, wanted, size);
	if (grown == NULL)
		return -1;
	memcpy(items_address, &grown, sizeof grown);
	return 0;
}

void
provider_swap_spare(void *items_address, size_t *capacity, void *spare_address,
    size_t *spare_capacity)
{
	void *items, *spare;
	size_t items_capacity = *capacity;

	memcpy(&items, items_address, sizeof items);
	memcpy(&spare, spare_address, sizeof spare);
	memcpy(items_address, &spare, sizeof spare);
	memcpy(spare_address, &items, sizeof items);
	*capacity = *spare_capacity;
	*spare_capacity = items_capacity;
}
