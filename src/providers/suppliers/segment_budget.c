#include "segment_budget.h"

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
