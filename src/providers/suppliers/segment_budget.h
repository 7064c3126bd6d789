/*
 * segment_budget: what a supplier segment may make dcistatd allocate and
 * spend, counted from the segment's own figures before anything of it is
 * copied.
 *
 * Memory. A segment is charged, in bytes, for what serving it makes
 * dcistatd hold: each class it publishes, each datum of each class (a
 * datum record that several classes point at is charged once per class:
 * each class registers its own copy), each live instance, each value of
 * each instance and the bytes of its string values. The weights below are
 * upper bounds of what dcistatd was measured to hold per item (the class,
 * datum and index records, the two snapshots of a class that exist while
 * a refresh is committed, the agent's indexes), so that the charge bounds
 * the growth. A segment is refused whole when its charge goes over the
 * least of
 *   - the per-segment budget (option max-segment-memory),
 *   - SEGMENT_BUDGET_AMPLIFICATION times its file's size,
 *   - what is left of its owner's budget (option max-user-memory) after
 *     the other segments the same uid owns.
 * SEGMENT_BUDGET_AMPLIFICATION is derived from the weights: a segment the
 * library wrote (every class with datum records of its own) is charged at
 * most this many times the bytes its records take in the file (a class
 * with its one datum: (6144 + 1024) / (424 + 272) < 11; a value: 64 / 8;
 * a string value of 8 bytes: (64 + 4 * 8) / 8 = 12), so the bound refuses
 * only what shares records to amplify itself.
 *
 * CPU. A refresh of a segment costs work units, one per 64-bit word it
 * copies or combines: SEGMENT_BUDGET_INSTANCE_WORK for each live instance
 * and parent (one for each free record), the regions times the block's
 * words when a block is copied, the regions for each summed, largest or
 * least datum and one for any other. A segment whose refresh would cost
 * more than its budget (option max-segment-work) is refused whole; the
 * provider's refresh spends at most its budget (option max-refresh-work)
 * on segments above their fair share, in turn (segment_rotation.h).
 */
#ifndef SUPPLIERS_SEGMENT_BUDGET_H
#define SUPPLIERS_SEGMENT_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Bytes charged per item (see above). */
#define SEGMENT_BUDGET_CLASS_BYTES 6144u
#define SEGMENT_BUDGET_DATUM_BYTES 1024u
#define SEGMENT_BUDGET_INSTANCE_BYTES 1024u
#define SEGMENT_BUDGET_VALUE_BYTES 64u
#define SEGMENT_BUDGET_STRING_BYTE 4u
/* dcistatd's growth for one segment is at most this many times the
 * segment's file size. */
#define SEGMENT_BUDGET_AMPLIFICATION 16

/* Work units charged per live instance (its record copied, its row made
 * in the batch: measured to cost as much as this many words combined) and
 * per parent looked up. */
#define SEGMENT_BUDGET_INSTANCE_WORK 128u

/* Defaults of the options. */
#define SEGMENT_BUDGET_SEGMENT_BYTES_DEFAULT (UINT64_C(128) << 20)
#define SEGMENT_BUDGET_USER_BYTES_DEFAULT (UINT64_C(256) << 20)
#define SEGMENT_BUDGET_SEGMENT_WORK_DEFAULT (UINT64_C(1) << 24)
#define SEGMENT_BUDGET_REFRESH_WORK_DEFAULT (UINT64_C(1) << 25)

struct segment_budget_limits {
	uint64_t segment_bytes; /* max-segment-memory */
	uint64_t user_bytes;    /* max-user-memory */
	uint64_t segment_work;  /* max-segment-work */
	uint64_t refresh_work;  /* max-refresh-work */
};

/* The charge of a class of `datum_count` datums, without its instances. */
uint64_t segment_budget_class_bytes(uint32_t datum_count);

/* The charge of one instance of a class of `datum_count` datums whose
 * string datums have `string_bytes` bytes in all. */
uint64_t segment_budget_instance_bytes(
    uint32_t datum_count, uint64_t string_bytes);

/* What a segment of `file_size` bytes may be charged while the other
 * segments of its owner are charged `owner_other_bytes`; `which` is set
 * to the option or rule that gives the limit, for the refusal's message. */
uint64_t segment_budget_memory_limit(const struct segment_budget_limits *limits,
    uint64_t file_size, uint64_t owner_other_bytes, const char **which);

/* a + b, saturated. */
uint64_t segment_budget_add(uint64_t a, uint64_t b);

/* What the segments of each owner are charged, kept for a refresh so that
 * a segment's limit costs a lookup, not a walk over every segment. An open
 * addressing table on the uid. */
struct segment_budget_owner {
	uint32_t uid;
	bool used;
	uint64_t bytes;
};
struct segment_budget_owners {
	struct segment_budget_owner *slots;
	size_t capacity; /* a power of two, at least twice the owners */
};

/* Empties the table for up to `count` owners; -1 when memory runs out
 * (the table is then empty and unusable: capacity 0). */
int segment_budget_owners_reset(
    struct segment_budget_owners *owners, size_t count);
/* Adds `bytes` to (or, with `subtract`, takes them from) `uid`'s charge. */
void segment_budget_owners_add(struct segment_budget_owners *owners,
    uint32_t uid, uint64_t bytes, bool subtract);
uint64_t segment_budget_owners_bytes(
    const struct segment_budget_owners *owners, uint32_t uid);
void segment_budget_owners_free(struct segment_budget_owners *owners);

#pragma GCC visibility pop

#endif
