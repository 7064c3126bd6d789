#include "segment_budget.h"

#include <stdlib.h>
#include <string.h>

#define SEGMENT_BUDGET_TEXT(x) #x
#define SEGMENT_BUDGET_NUMBER(x) SEGMENT_BUDGET_TEXT(x)

uint64_t
segment_budget_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t
segment_budget_class_bytes(uint32_t datum_count)
{
	return SEGMENT_BUDGET_CLASS_BYTES +
	       (uint64_t)datum_count * SEGMENT_BUDGET_DATUM_BYTES;
}

uint64_t
segment_budget_instance_bytes(uint32_t datum_count, uint64_t string_bytes)
{
	/* string_bytes is at most the datums' count times the longest
	 * string: no overflow. */
	return SEGMENT_BUDGET_INSTANCE_BYTES +
	       (uint64_t)datum_count * SEGMENT_BUDGET_VALUE_BYTES +
	       string_bytes * SEGMENT_BUDGET_STRING_BYTE;
}

uint64_t
segment_budget_memory_limit(const struct segment_budget_limits *limits,
    uint64_t file_size, uint64_t owner_other_bytes, const char **which)
{
	uint64_t limit = limits->segment_bytes;
	uint64_t amplified =
	    file_size > UINT64_MAX / SEGMENT_BUDGET_AMPLIFICATION
	        ? UINT64_MAX
	        : file_size * SEGMENT_BUDGET_AMPLIFICATION;
	uint64_t user_left = owner_other_bytes >= limits->user_bytes
	                         ? 0
	                         : limits->user_bytes - owner_other_bytes;

	*which = "max-segment-memory";
	if (amplified < limit) {
		limit = amplified;
		*which = SEGMENT_BUDGET_NUMBER(
		    SEGMENT_BUDGET_AMPLIFICATION) " times the file's size";
	}
	if (user_left < limit) {
		limit = user_left;
		*which = "what is left of max-user-memory";
	}
	return limit;
}

int
segment_budget_owners_reset(struct segment_budget_owners *owners, size_t count)
{
	size_t capacity = 16;

	while (capacity < 2 * count)
		capacity *= 2;
	if (capacity > owners->capacity) {
		struct segment_budget_owner *grown =
		    realloc(owners->slots, capacity * sizeof(*grown));
		if (grown == NULL) {
			segment_budget_owners_free(owners);
			return -1;
		}
		owners->slots = grown;
		owners->capacity = capacity;
	}
	memset(owners->slots, 0, owners->capacity * sizeof(*owners->slots));
	return 0;
}

static struct segment_budget_owner *
owner_slot(const struct segment_budget_owners *owners, uint32_t uid)
{
	size_t mask = owners->capacity - 1;
	size_t at = (uid * UINT32_C(2654435761)) & mask;

	while (owners->slots[at].used && owners->slots[at].uid != uid)
		at = (at + 1) & mask;
	return &owners->slots[at];
}

void
segment_budget_owners_add(struct segment_budget_owners *owners, uint32_t uid,
    uint64_t bytes, bool subtract)
{
	struct segment_budget_owner *slot;

	if (owners->capacity == 0)
		return;
	slot = owner_slot(owners, uid);
	slot->used = true;
	slot->uid = uid;
	if (subtract)
		slot->bytes = slot->bytes > bytes ? slot->bytes - bytes : 0;
	else
		slot->bytes = segment_budget_add(slot->bytes, bytes);
}

uint64_t
segment_budget_owners_bytes(
    const struct segment_budget_owners *owners, uint32_t uid)
{
	const struct segment_budget_owner *slot;

	if (owners->capacity == 0)
		return 0;
	slot = owner_slot(owners, uid);
	return slot->used ? slot->bytes : 0;
}

void
segment_budget_owners_free(struct segment_budget_owners *owners)
{
	free(owners->slots);
	owners->slots = NULL;
	owners->capacity = 0;
}
