/*
 * evcnt_event: turn the rows of /proc/interrupts and /proc/softirqs into
 * event counters in the NetBSD evcnt(9) model, each with a group, a name,
 * a type and an optional parent.
 *
 * Every row is one counter line: a total over the CPU columns, whose
 * per-CPU counts are its children (their parent is the total). A line is
 * identified by three 32-bit words, {source, key, cpu slot}:
 *
 *   source 1  numbered interrupt ("24:"); key = the IRQ number
 *   source 2  named interrupt row ("LOC:", "IPI0:"); key = a hash of it
 *   source 3  softirq ("NET_RX:"); key = a hash of it
 *   slot      0 for the total, N + 1 for the count of CPU N
 *
 * The key of a named row is the FNV-1a 32-bit hash of its text, so that it
 * is the same on every refresh and after a restart on the same machine.
 * Keys of one source that hash alike are told apart when first seen: new
 * keys are taken in byte order of their text, and one whose hash is taken
 * gets the next free value up (wrapping at 2^32). A key keeps its value for
 * the life of the key table, whatever rows come and go. After a restart a
 * colliding key gets the same value only if the same keys are seen first;
 * the kernel's keys do not collide (see the unit tests).
 *
 * This part knows nothing of dcistat's provider ABI. Everything here
 * carries the evcnt_ prefix; the plug-in exports none of it.
 */
#ifndef EVCNT_EVENT_H
#define EVCNT_EVENT_H

#include "proc_interrupts.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A group, name or label with its NUL: 255 bytes of printable ASCII at
 * most, as DCI_LABEL_MAX (and evcnt(9)'s one-byte lengths) allow. */
#define EVCNT_STRING_SIZE 256u
/* Words of an instance id: source, key, cpu slot. */
#define EVCNT_ID_WORDS 3u
/* The group of a numbered interrupt whose row has no description, hence
 * no chip to name. */
#define EVCNT_GROUP_UNKNOWN_CHIP "irq"
/* The group of every softirq. */
#define EVCNT_GROUP_SOFTIRQ "softirq"

/* FNV-1a, 32 bits: start from the offset basis; for each byte, xor it in,
 * then multiply by the prime (mod 2^32). */
#define EVCNT_FNV_OFFSET_BASIS 2166136261u
#define EVCNT_FNV_PRIME 16777619u

/* evcnt(9)'s counter types, NetBSD's values. */
enum evcnt_type {
	EVCNT_TYPE_MISC = 0,
	EVCNT_TYPE_INTR = 1,
	EVCNT_TYPE_TRAP = 2,
};

/* The first word of an instance id. */
enum evcnt_source {
	EVCNT_SOURCE_IRQ = 1,
	EVCNT_SOURCE_NAMED = 2,
	EVCNT_SOURCE_SOFTIRQ = 3,
};

/* Which file a table was parsed from. */
enum evcnt_file {
	EVCNT_FILE_INTERRUPTS,
	EVCNT_FILE_SOFTIRQS,
};

/* Hashes a NUL-terminated key text. */
typedef uint32_t (*evcnt_hash)(const char *text);

/* FNV-1a 32-bit of the bytes of text before its NUL. */
uint32_t evcnt_fnv1a(const char *text);

/* --- Keys of named rows ------------------------------------------------ */

struct evcnt_key {
	char *text;
	uint32_t value;
};

/* The keys of one source. Zero it and set hash (or use evcnt_keys_init). */
struct evcnt_keys {
	evcnt_hash hash;
	struct evcnt_key *items; /* sorted by text (strcmp) */
	size_t count;
	size_t capacity;
	uint32_t *values; /* the values in use, sorted */
	size_t value_capacity;
};

/* A key not in the table yet, and the line it was seen on. */
struct evcnt_key_request {
	const char *text;
	unsigned line;
};

/* Starts an empty table; hash NULL means evcnt_fnv1a. */
void evcnt_keys_init(struct evcnt_keys *keys, evcnt_hash hash);

/* Releases the table's memory; it is empty afterwards (hash kept). */
void evcnt_keys_free(struct evcnt_keys *keys);

/* Sets *value to the value of text. Returns false when text has none. */
bool evcnt_keys_find(
    const struct evcnt_keys *keys, const char *text, uint32_t *value);

/*
 * Gives every text of requests that has no value yet one (a text requested
 * twice gets one value). The requests are sorted in place by text and
 * served in that order: a text takes its hash, or, when that value is
 * taken, the next free value up; each such collision is reported through
 * warn (when not NULL) on the text's line, naming both texts. Returns 0,
 * or -1 with errno ENOMEM, the texts assigned until then keeping their
 * values.
 */
int evcnt_keys_add(struct evcnt_keys *keys, struct evcnt_key_request *requests,
    size_t count, proc_interrupts_warn warn, void *opaque);

/* --- Counter lines ----------------------------------------------------- */

/*
 * One row as an event counter: the total, and what its children are made
 * from. counts and cpus point into the parsed table and are valid until
 * its next parse or free.
 */
struct evcnt_line {
	uint32_t id[EVCNT_ID_WORDS]; /* source, key, 0 */
	enum evcnt_type type;
	/* Numbered interrupts: the IRQ number, also id[1]. */
	bool has_irq;
	uint32_t irq;
	/*
	 * Numbered interrupt: group the chip (the description's first word,
	 * EVCNT_GROUP_UNKNOWN_CHIP without one), name "<irq> <the rest of
	 * the description>", or "<irq>". Named interrupt: group the key,
	 * name the description, or the key without one. Softirq: group
	 * EVCNT_GROUP_SOFTIRQ, name the key. Label: "<group> <name>". All
	 * printable ASCII (anything else, a UTF-8 sequence as a whole,
	 * becomes '?'), cut to 255 bytes.
	 */
	char group[EVCNT_STRING_SIZE];
	char name[EVCNT_STRING_SIZE];
	char label[EVCNT_STRING_SIZE];
	uint64_t total; /* the sum of the CPU columns (mod 2^64), or the
	                   global count */
	/* The children's counts and CPU numbers, one per CPU column;
	 * cpu_count is 0 for a global row (ERR, MIS), which has none. */
	const uint64_t *counts;
	const uint32_t *cpus;
	size_t cpu_count;
	unsigned line; /* in its file */
};

/* One per-CPU count of a line, as an event counter. */
struct evcnt_child {
	uint32_t id[EVCNT_ID_WORDS];     /* source, key, cpu + 1 */
	uint32_t parent[EVCNT_ID_WORDS]; /* the line's total: source, key, 0 */
	uint32_t cpu;
	uint64_t count;
	/* "<line label> cpu<N>": the line's label is cut short if need be
	 * so that the whole fits in 255 bytes with its " cpu<N>". */
	char label[EVCNT_STRING_SIZE];
};

/* The child of line for CPU column column (< line->cpu_count). */
void evcnt_line_child(
    const struct evcnt_line *line, size_t column, struct evcnt_child *child);

/* The lines of one refresh, and the key tables that outlive it. */
struct evcnt_events {
	struct evcnt_line *lines; /* file order, /proc/interrupts first */
	size_t count;
	size_t capacity;
	struct evcnt_keys named;    /* source 2 */
	struct evcnt_keys softirqs; /* source 3 */
	/* Scratch memory of evcnt_events_add, kept to be reused. */
	struct evcnt_key_request *requests;
	size_t request_capacity;
	struct evcnt_line_order *order; /* private to evcnt_event.c */
	size_t order_capacity;
};

/* Starts with no lines and empty key tables hashing with hash (NULL:
 * evcnt_fnv1a). */
void evcnt_events_init(struct evcnt_events *events, evcnt_hash hash);

/* Releases everything, key tables included. */
void evcnt_events_free(struct evcnt_events *events);

/* Forgets the lines (for the next refresh), keeping keys and memory. */
void evcnt_events_clear(struct evcnt_events *events);

/*
 * Appends a line for every row of table, parsed from file. Rows of
 * /proc/interrupts whose key is all digits are numbered interrupts (type
 * INTR, source 1), other rows there named ones (INTR, source 2); rows of
 * /proc/softirqs are softirqs (MISC, source 3). Skipped and reported
 * through warn (when not NULL) on their line: an IRQ number above
 * 2^32 - 1, and a row whose id an earlier row of the table already has
 * (a key repeated, "07" after "7"), which would make the instance ids of
 * a snapshot clash. Returns 0, or -1 with errno ENOMEM, having added no
 * line (keys assigned before the failure keep their values).
 */
int evcnt_events_add(struct evcnt_events *events,
    const struct proc_interrupts_table *table, enum evcnt_file file,
    proc_interrupts_warn warn, void *opaque);

#pragma GCC visibility pop

#endif
