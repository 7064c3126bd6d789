/*
 * segment_reader: reads a supplier segment (include/dcistat/segment.h) that
 * any local user allowed to write the run directory may have written.
 *
 * Nothing read from the segment is used before it is copied out of it and
 * checked: offsets, counts and lengths against the file's size and the
 * bounds below, strings for their NUL, ids and types against the model. A
 * segment that fails is refused with a sentence saying what was wrong; a
 * record that changes while it is copied is read again, a bounded number of
 * times. Nothing here knows the provider ABI or the file system: the
 * caller maps the file and gives its bytes, so the fuzzer and the unit
 * tests run it on any buffer.
 */
#ifndef SUPPLIERS_SEGMENT_READER_H
#define SUPPLIERS_SEGMENT_READER_H

#include <dcistat/provider.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "segment_budget.h"
#include <dcistat/segment.h>

#pragma GCC visibility push(hidden)

/* What the reader accepts, whatever the header says. These bound each
 * record and table; what a whole segment may cost, in memory and in work
 * per refresh, is bounded by the budgets of segment_budget.h, which the
 * caller checks with the charges and work counts below. */
#define SEGMENT_READER_CLASSES_MAX 1024u
#define SEGMENT_READER_DATUMS_MAX 16384u
#define SEGMENT_READER_DATUMS_PER_CLASS_MAX 1024u
#define SEGMENT_READER_INSTANCES_MAX (1u << 20)
#define SEGMENT_READER_THREAD_REGIONS_MAX 1024u
#define SEGMENT_READER_BLOCK_WORDS_MAX 8192u
/* Tries to copy a record or block that a writer is changing. */
#define SEGMENT_READER_TRIES 64u

/* The header, copied and checked. */
struct segment_view {
	const unsigned char *base;
	size_t size;
	uint32_t pid;
	uint64_t process_start;
	uint64_t reset_stamp;
	char module[DCISTAT_SEGMENT_LABEL_SIZE];
	char title[DCISTAT_SEGMENT_LABEL_SIZE];
	char description[DCISTAT_SEGMENT_DESCRIPTION_SIZE];
	uint32_t supplier_type;
	uint32_t supplier_version;
	uint32_t number;
	uint32_t class_capacity;
	uint32_t datum_capacity;
	uint32_t instance_capacity;
	uint64_t class_offset;
	uint64_t datum_offset;
	uint64_t instance_offset;
	uint64_t region_offset;
	uint32_t region_words;
	uint32_t thread_regions;
};

/* A class, copied and checked, with its datums. */
struct segment_class {
	uint32_t id_length;
	uint32_t id[DCISTAT_SEGMENT_CLASS_ID_WORDS];
	uint32_t level_count;
	struct dci_instance_level levels[DCISTAT_SEGMENT_LEVELS];
	uint32_t id_words; /* of an instance */
	uint32_t datum_count;
	struct dcistat_segment_datum *datums; /* datum_count, owned */
	uint32_t value_words; /* the words its datums take */
	/* Datums combined over every region (sum, largest, least). */
	uint32_t region_datums;
	/* Quantiles of t-digests merged over every region. */
	uint32_t digest_datums;
	/* What it is charged (segment_budget.h): the class with its datums,
	 * and each of its instances with its values. */
	uint64_t memory_bytes;
	uint64_t instance_bytes;
	char label[DCISTAT_SEGMENT_LABEL_SIZE];
	char description[DCISTAT_SEGMENT_DESCRIPTION_SIZE];
};

struct segment_instance {
	uint32_t class_index;
	uint32_t block;
	uint32_t block_words;
	uint32_t value_base;
	uint32_t parent; /* index + 1, 0: none */
	uint32_t id[DCISTAT_SEGMENT_ID_WORDS];
	char label[DCISTAT_SEGMENT_INSTANCE_LABEL_SIZE];
};

/* One datum's value as read. */
struct segment_value {
	bool present;
	uint64_t number;
	char text[DCISTAT_SEGMENT_STRING_MAX];
	size_t text_length;
};

/* Checks the header of the `size` bytes at `base` into `view`; -1 with the
 * reason in `why`. */
int segment_view_open(const void *base, size_t size, struct segment_view *view,
    char *why, size_t why_size);

/* The counts the writer published, bounded by the capacities. */
uint32_t segment_class_count(const struct segment_view *view);
uint32_t segment_instance_high(const struct segment_view *view);
/* Thread regions that may hold values. */
uint32_t segment_regions_in_use(const struct segment_view *view);
bool segment_closed(const struct segment_view *view);

/* Copies and checks class `index`; -1 with the reason (the class is then
 * to be refused). Free with segment_class_clear. */
int segment_class_read(const struct segment_view *view, uint32_t index,
    struct segment_class *out, char *why, size_t why_size);
/* The same, refused before anything is copied when the class would be
 * charged more than `bytes_left` (segment_budget.h); `*over` then says so
 * (false for any other refusal). */
int segment_class_read_within(const struct segment_view *view, uint32_t index,
    uint64_t bytes_left, struct segment_class *out, bool *over, char *why,
    size_t why_size);
/* The charge of class `index` as its record claims now, before it is
 * read: its datum count bounded by SEGMENT_READER_DATUMS_PER_CLASS_MAX
 * (a record beyond the bounds is refused when read). */
uint64_t segment_class_claimed_bytes(
    const struct segment_view *view, uint32_t index);
void segment_class_clear(struct segment_class *class_copy);

/* Copies instance record `index`. Returns 1 when it is live and checked
 * against `classes` (`class_count` of them, read before), 0 when it is
 * free or changing, -1 when it is malformed (reason in `why`). */
int segment_instance_read(const struct segment_view *view, uint32_t index,
    const struct segment_class *classes, uint32_t class_count,
    struct segment_instance *out, char *why, size_t why_size);

/* Scratch memory for segment_values_read, kept between calls. */
struct segment_scratch {
	uint64_t *words;
	size_t capacity;
	/* The block last read, whose copies are still in `words`. */
	uint32_t block;
	uint32_t block_words;
	uint32_t regions;
	bool valid;
	/* Work units (segment_budget.h) spent copying and combining, every
	 * try counted; a copy gives up (the instance skipped) rather than go
	 * over `work_limit`. The caller sets and resets both. */
	uint64_t work;
	uint64_t work_limit;
};

/* Frees the words; `work` and `work_limit` go back to 0. */
void segment_scratch_clear(struct segment_scratch *scratch);

/* Reads the values of an instance of `class_copy`, combined over the
 * regions as each datum says, into values[0 .. datum_count). Returns 0,
 * or -1 when a block stayed inconsistent over SEGMENT_READER_TRIES copies
 * (a writer stopped inside an update) or memory ran out; the instance is
 * then to be skipped this time. `now_microseconds` is CLOCK_MONOTONIC's,
 * for busy time. */
int segment_values_read(const struct segment_view *view,
    const struct segment_class *class_copy,
    const struct segment_instance *instance, uint64_t now_microseconds,
    struct segment_scratch *scratch, struct segment_value *values);

/* The bytes of scratch segment_values_read of this instance needs: its
 * block in every region in use and the shared one. */
uint64_t segment_values_scratch_bytes(
    const struct segment_view *view, const struct segment_instance *instance);

/* The work units (segment_budget.h) that segment_values_read of this
 * instance will spend with this scratch: the copy of its block in every
 * region unless the scratch holds it, and its datums combined. */
uint64_t segment_values_work(const struct segment_view *view,
    const struct segment_class *class_copy,
    const struct segment_instance *instance,
    const struct segment_scratch *scratch);

#pragma GCC visibility pop

#endif
