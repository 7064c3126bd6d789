/*
 * Reading a committed snapshot (model/snapshot.h builds and commits them):
 * where an instance's id, a datum's slot and its presence bit are, as
 * inline arithmetic over the class's layout. Apart from snapshot.h, so
 * that code the commit calls (model/events.c) reads snapshots without
 * depending on the code that makes them.
 */
#ifndef DCISTAT_MODEL_SNAPSHOT_ACCESS_H
#define DCISTAT_MODEL_SNAPSHOT_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/registry.h"
#include "model/snapshot_data.h"

static inline const uint32_t *
dci_snapshot_instance_id(const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance)
{
	return snapshot->ids + instance * class->instance_words;
}

static inline const unsigned char *
dci_snapshot_slot(const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance,
    const struct dci_datum *datum)
{
	return snapshot->values + instance * class->record_size + datum->offset;
}

static inline bool
dci_snapshot_present(const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance,
    const struct dci_datum *datum)
{
	const unsigned char *bits =
	    snapshot->present + instance * class->present_size;
	return (bits[datum->index / 8] >> (datum->index % 8)) & 1;
}

/* The id of the instance's parent, or NULL when it has none. */
static inline const uint32_t *
dci_snapshot_parent_id(const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance)
{
	if (!snapshot->instances[instance].has_parent)
		return NULL;
	return snapshot->parents + instance * class->instance_words;
}

#endif
