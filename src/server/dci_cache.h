/*
 * Answers the DCI Server gave, kept to be given again: the same request
 * (type, class pattern, instance pattern, datum id) from a consumer with
 * the same admission (server/dci_access.h: the answer depends on nothing
 * else of the consumer) while the registry's generation
 * (model/registry.h) is the same is answered with the same bytes, instead
 * of being read from the snapshots again. Only the answer's start and end
 * times are written anew. A change of generation drops every entry.
 *
 * Bounded: at most DCI_CACHE_ENTRIES_MAX answers and DCI_CACHE_BYTES_MAX
 * bytes, the least recently given going first; answers shorter than
 * DCI_CACHE_ANSWER_MIN_BYTES are cheaper to answer again than to keep.
 */
#ifndef DCISTAT_SERVER_DCI_CACHE_H
#define DCISTAT_SERVER_DCI_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/dci_protocol.h"

#define DCI_CACHE_ENTRIES_MAX 16u
#define DCI_CACHE_BYTES_MAX (16u * 1024u * 1024u)
#define DCI_CACHE_ANSWER_MIN_BYTES 4096u

struct dci_cache_entry {
	uint16_t type;
	struct dci_protocol_request request;
	unsigned char *admission;
	size_t admission_size;
	unsigned char *payload; /* the answer's, from its summary status */
	size_t length;
	uint64_t used; /* the cache's clock when last given */
};

struct dci_cache {
	uint64_t generation;
	struct dci_cache_entry entries[DCI_CACHE_ENTRIES_MAX];
	size_t count;
	size_t bytes;
	uint64_t clock;
};

/* Whether answers of `type` may be kept: those read from the classes and
 * their snapshots alone. */
bool dci_cache_keeps(uint16_t type);

/* The payload kept for this request, or NULL. */
const struct dci_cache_entry *dci_cache_find(struct dci_cache *cache,
    uint64_t generation, uint16_t type,
    const struct dci_protocol_request *request, const unsigned char *admission,
    size_t admission_size);

/* Keeps a copy of `payload` (`length` bytes) as this request's answer;
 * nothing when it is too short or too long, or memory is short. */
void dci_cache_store(struct dci_cache *cache, uint64_t generation,
    uint16_t type, const struct dci_protocol_request *request,
    const unsigned char *admission, size_t admission_size,
    const unsigned char *payload, size_t length);

void dci_cache_free(struct dci_cache *cache);

#endif
