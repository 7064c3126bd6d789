/*
 * What a snapshot holds (model/snapshot.h builds and reads it): plain data,
 * freed without its class, so that the registry, which owns the classes'
 * snapshots, depends on this and not on the code that builds them.
 */
#ifndef DCISTAT_MODEL_SNAPSHOT_DATA_H
#define DCISTAT_MODEL_SNAPSHOT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/label_arena.h"

struct dci_instance_state {
	const char *label;            /* in its snapshot's `labels` */
	int64_t created_milliseconds; /* when first seen */
	/* Creation, a counter that went back other than by a wrap, or one
	 * the provider declared. */
	int64_t discontinuity_milliseconds;
	bool has_parent; /* its parent's id is in snapshot->parents */
};

/* Which instances have a value for one datum: every one (complete), or
 * those at `positions` (ascending, `count` of them). */
struct dci_snapshot_column {
	bool complete;
	size_t count;
	uint32_t *positions; /* NULL when complete or when none has a value */
};

struct dci_snapshot {
	size_t count;
	uint32_t *ids; /* count * class->instance_words, ascending */
	struct dci_instance_state *instances;
	unsigned char *values;  /* count * class->record_size */
	unsigned char *present; /* count * class->present_size */
	uint32_t *parents; /* count * instance_words, or NULL: no parents */
	/* Per datum (by datum->index), built at commit, so that the next
	 * instance with a value in a sparse column is a binary search away;
	 * NULL when the index could not be built (then the presence bits are
	 * read one instance after another). */
	struct dci_snapshot_column *columns;
	size_t column_count;
	/* Every instance's label, freed with the snapshot. */
	struct dci_label_arena labels;
	int64_t taken_milliseconds;
	/* Bytes of ids, instances, values and present as allocated
	 * (model/large_block.h: large ones are mappings of their own). */
	size_t ids_bytes, instances_bytes, values_bytes, present_bytes;
};

void dci_snapshot_free(struct dci_snapshot *snapshot);
/* Frees a presence index of `count` columns. */
void dci_snapshot_columns_free(
    struct dci_snapshot_column *columns, size_t count);

#endif
