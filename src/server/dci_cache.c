/* Answers kept to be given again (server/dci_cache.h). */
#include "server/dci_cache.h"

#include <stdlib.h>
#include <string.h>

bool
dci_cache_keeps(uint16_t type)
{
	switch (type) {
	case DCI_PROTOCOL_LIST_CLASSES:
	case DCI_PROTOCOL_LIST_INSTANCES:
	case DCI_PROTOCOL_GET_CLASS_ATTRIBUTES:
	case DCI_PROTOCOL_GET_DATA:
	case DCI_PROTOCOL_LIST_INSTANCE_PARENTS:
	case DCI_PROTOCOL_GET_INSTANCE_DATA:
		return true;
	default:
		/* LIST_SUPPLIERS shows supplier states, which change with
		 * no new generation; writes and subscriptions are not
		 * read from the snapshots. */
		return false;
	}
}

/* The same request, field by field (the structure has padding). */
static bool
same_request(const struct dci_protocol_request *left,
    const struct dci_protocol_request *right)
{
	return left->class_levels == right->class_levels &&
	       memcmp(left->class_id, right->class_id,
	           left->class_levels * sizeof(uint32_t)) == 0 &&
	       left->input_mask == right->input_mask &&
	       left->instance_words == right->instance_words &&
	       memcmp(left->instance, right->instance,
	           left->instance_words * sizeof(uint32_t)) == 0 &&
	       left->datum_id == right->datum_id;
}

static void
entry_free(struct dci_cache *cache, size_t position)
{
	struct dci_cache_entry *entry = &cache->entries[position];

	cache->bytes -= entry->length;
	free(entry->admission);
	free(entry->payload);
	cache->entries[position] = cache->entries[--cache->count];
	cache->entries[cache->count] = (struct dci_cache_entry){0};
}

void
dci_cache_free(struct dci_cache *cache)
{
	while (cache->count > 0)
		entry_free(cache, cache->count - 1);
}

/* Drops every entry of another generation than `generation`. */
static void
cache_age(struct dci_cache *cache, uint64_t generation)
{
	if (cache->generation == generation)
		return;
	dci_cache_free(cache);
	cache->generation = generation;
}

const struct dci_cache_entry *
dci_cache_find(struct dci_cache *cache, uint64_t generation, uint16_t type,
    const struct dci_protocol_request *request, const unsigned char *admission,
    size_t admission_size)
{
	cache_age(cache, generation);
	for (size_t i = 0; i < cache->count; i++) {
		struct dci_cache_entry *entry = &cache->entries[i];

		if (entry->type == type &&
		    entry->admission_size == admission_size &&
		    memcmp(entry->admission, admission, admission_size) == 0 &&
		    same_request(&entry->request, request)) {
			entry->used = ++cache->clock;
			return entry;
		}
	}
	return NULL;
}

/* The position of the entry given least recently. */
static size_t
least_recent(const struct dci_cache *cache)
{
	size_t oldest = 0;

	for (size_t i = 1; i < cache->count; i++)
		if (cache->entries[i].used < cache->entries[oldest].used)
			oldest = i;
	return oldest;
}

void
dci_cache_store(struct dci_cache *cache, uint64_t generation, uint16_t type,
    const struct dci_protocol_request *request, const unsigned char *admission,
    size_t admission_size, const unsigned char *payload, size_t length)
{
	struct dci_cache_entry entry = {
	    .type = type, .request = *request, .length = length};

	cache_age(cache, generation);
	if (length < DCI_CACHE_ANSWER_MIN_BYTES || length > DCI_CACHE_BYTES_MAX)
		return;
	while (cache->count > 0 &&
	       (cache->count == DCI_CACHE_ENTRIES_MAX ||
	           cache->bytes + length > DCI_CACHE_BYTES_MAX))
		entry_free(cache, least_recent(cache));
	entry.admission = malloc(admission_size);
	entry.payload = malloc(length);
	if (entry.admission == NULL || entry.payload == NULL) {
		free(entry.admission);
		free(entry.payload);
		return;
	}
	memcpy(entry.admission, admission, admission_size);
	entry.admission_size = admission_size;
	memcpy(entry.payload, payload, length);
	entry.used = ++cache->clock;
	cache->entries[cache->count++] = entry;
	cache->bytes += length;
}
