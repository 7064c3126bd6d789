/*
 * growable: arrays that grow as a provider fills them and keep their memory
 * from one refresh to the next.
 *
 * Part of the helpers every built-in provider compiles in (see
 * src/providers/common/); knows nothing of dcistat's provider ABI.
 * Everything here carries the provider_ prefix; the plug-ins export none of
 * it.
 */
#ifndef PROVIDER_GROWABLE_H
#define PROVIDER_GROWABLE_H

#include <stddef.h>

/* Internal to each plug-in: even without the build's export list, only
 * dci_provider_entry leaves the shared object. */
#pragma GCC visibility push(hidden)

/*
 * Returns items (NULL or from malloc/realloc, holding *capacity elements of
 * size bytes, size > 0), reallocated if need be to hold at least wanted
 * elements (and never fewer than one), updating *capacity; the first elements
 * keep their values. Returns NULL with errno ENOMEM only when memory runs out
 * or the size would overflow, items and *capacity being left as they were.
 */
void *provider_grow(void *items, size_t *capacity, size_t wanted, size_t size);

/*
 * provider_grow for an array kept in a pointer variable: items_address is
 * the address of that variable (a T ** for elements of type T, size being
 * sizeof(T)), which is updated in place. Returns 0, or -1 with errno ENOMEM
 * when memory runs out, the variable and *capacity being left as they were.
 * PROVIDER_RESERVE names the variable and its capacity once.
 */
int provider_reserve(
    void *items_address, size_t *capacity, size_t wanted, size_t size);

/* The unevaluated assignment makes the compiler refuse anything but a
 * pointer variable (an array member, say) where `items` stands. */
#define PROVIDER_RESERVE(items, capacity, wanted)                              \
	provider_reserve(((void)sizeof((items) = NULL), &(items)),             \
	    &(capacity), (wanted), sizeof *(items))

/*
 * For an array rebuilt at every refresh into a spare one of the same type
 * (both kept in pointer variables, as for provider_reserve): the spare,
 * just filled, becomes the array and the array becomes the spare, each
 * with its capacity, so neither is allocated again at the next refresh.
 */
void provider_swap_spare(void *items_address, size_t *capacity,
    void *spare_address, size_t *spare_capacity);

/* provider_swap_spare for two pointer variables of one type, which the
 * unevaluated assignment checks. */
#define PROVIDER_SWAP_SPARE(items, capacity, spare, spare_capacity)            \
	provider_swap_spare(((void)sizeof((items) = (spare)), &(items)),       \
	    &(capacity), &(spare), &(spare_capacity))

#pragma GCC visibility pop

#endif
