/*
 * Snapshots: the complete state of one class (its instances and their
 * values) as one refresh left it. A provider fills a builder; commit sorts
 * it by instance id and swaps it in whole, so the request path only ever
 * sees complete snapshots (DCI4's ping-pong idea without the locks: one
 * thread, one pointer swap).
 *
 * Layout: instance ids in one array (instance_words each), values in one
 * block of fixed-size records (one slot per datum, at the datum's offset),
 * and a presence bitmap per instance: an unset datum has no row.
 */
#ifndef DCISTAT_SNAPSHOT_H
#define DCISTAT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/registry.h"
#include "model/snapshot_access.h"
#include "model/snapshot_data.h"

struct dci_snapshot_builder;

struct dci_snapshot_builder *dci_snapshot_builder_new(
    const struct dci_class *class);
void dci_snapshot_builder_free(struct dci_snapshot_builder *builder);

/* Returns the row number, or -1 with the reason in `why`. */
long dci_snapshot_builder_add(struct dci_snapshot_builder *builder,
    const uint32_t *id, size_t id_words, const char *label, char *why,
    size_t why_size);

/* The instance id of `row`, or NULL when the builder has no such row. */
const uint32_t *dci_snapshot_builder_row_id(
    const struct dci_snapshot_builder *builder, long row);

int dci_snapshot_builder_set_unsigned(struct dci_snapshot_builder *builder,
    long row, uint32_t datum_id, uint64_t value, char *why, size_t why_size);
int dci_snapshot_builder_set_signed(struct dci_snapshot_builder *builder,
    long row, uint32_t datum_id, int64_t value, char *why, size_t why_size);
/* Stores values[0..count) in `row`, each as set_unsigned (is_signed 0) or
 * set_signed would, the row checked once; stops at the first value it
 * refuses and returns its position, with the reason in `why` (0 for a row
 * that does not exist). Returns `count` when every value was stored. */
size_t dci_snapshot_builder_set_row(struct dci_snapshot_builder *builder,
    long row, const struct dci_row_value *values, size_t count, char *why,
    size_t why_size);
int dci_snapshot_builder_set_bytes(struct dci_snapshot_builder *builder,
    long row, uint32_t datum_id, const void *bytes, size_t length, char *why,
    size_t why_size);
/* Stores values[0..count) in `row`, each as set_bytes would, the row
 * checked once; returns as set_row does. */
size_t dci_snapshot_builder_set_row_bytes(struct dci_snapshot_builder *builder,
    long row, const struct dci_row_bytes *values, size_t count, char *why,
    size_t why_size);

/* Marks a datum of `row` invalid: no value, its rows absent. */
int dci_snapshot_builder_set_invalid(struct dci_snapshot_builder *builder,
    long row, uint32_t datum_id, char *why, size_t why_size);

/* Names the parent of `row` by the parent's instance id (evcnt's ev_parent).
 * Checked at commit, when every instance of the batch is known. */
int dci_snapshot_builder_set_parent(struct dci_snapshot_builder *builder,
    long row, const uint32_t *parent_id, size_t parent_words, char *why,
    size_t why_size);

/* Declares that the counters of `row` are discontinuous (the provider's
 * dci_batch_set_discontinuity): at commit its discontinuity time becomes
 * the commit's and its widened counters start again from the provider's
 * values. */
int dci_snapshot_builder_set_discontinuity(
    struct dci_snapshot_builder *builder, long row, char *why, size_t why_size);

/* Sorts the builder's rows by instance id and checks that no id is there
 * twice; -1 with the two labels in `why` otherwise. Touches nothing but
 * the builder, so a refresh thread may call it; dci_snapshot_commit seals
 * a builder not yet sealed. */
int dci_snapshot_builder_seal(
    struct dci_snapshot_builder *builder, char *why, size_t why_size);

/* Sorts the builder into a snapshot and swaps it in as class->snapshot,
 * carrying creation times over from the previous snapshot, widening 8- and
 * 16-bit counters to 32 bits (struct dci_datum's provided_size) and
 * marking a discontinuity where the provider declared one or a counter went
 * backwards other than by a wrap at its full width (see snapshot.c's
 * counter_step_discontinuous for the rule). A parent link to an instance
 * missing from the batch, to the instance itself, or closing a cycle is
 * dropped: the commit succeeds and `why` says what was dropped (it is
 * empty otherwise). Frees the builder in every case. Returns 0, or -1
 * (duplicate instance id) with the previous snapshot kept. */
int dci_snapshot_commit(struct dci_snapshot_builder *builder,
    struct dci_class *class, int64_t now_milliseconds, char *why,
    size_t why_size);

/* The first instance at or after `start` with a value for `datum`, or
 * snapshot->count when there is none. O(log n). */
size_t dci_snapshot_next_present(const struct dci_class *class,
    const struct dci_snapshot *snapshot, const struct dci_datum *datum,
    size_t start);

/* Finds an instance by id (binary search); returns its position or -1. */
long dci_snapshot_find(const struct dci_class *class,
    const struct dci_snapshot *snapshot, const uint32_t *id);

#endif
