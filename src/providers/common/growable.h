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

#pragma GCC visibility pop

#endif
