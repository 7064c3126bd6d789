/*
 * Ordered lookups over the registry for the SNMP tables: given the index
 * part of a requested OID (sub-identifiers after the column), find the row
 * with exactly that index (GET) or the first row whose index sorts after it
 * (GETNEXT). Rows are never materialised: classes, instances and datums are
 * each kept sorted, so a lookup is a binary search per level, O(log n).
 *
 * Index encodings (ARCHITECTURE.md), every segment length-prefixed except
 * the datum id and the supplier index:
 *   supplier  [index]
 *   class     [class_length, class...]
 *   datum     [class_length, class..., datum]
 *   instance  [class_length, class..., instance_words, instance...]
 *   stat      [class_length, class..., instance_words, instance..., datum]
 *   class data [class..., 1, datum, instance...]  (the per-class tables
 *             under dciClassData: the class's levels name its table, 1 its
 *             entry, the datum id its column; no length prefixes, since no
 *             class id is a prefix of another and a class's instance ids
 *             all have its instance_words words)
 * Sub-identifiers are taken as uint64_t so that a request carrying values
 * above 2^32-1 still orders correctly.
 */
#ifndef DCISTAT_SNMP_TABLE_INDEX_H
#define DCISTAT_SNMP_TABLE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/registry.h"

#define SCHEMA_INDEX_MAX                                                       \
	(1 + DCI_CLASS_ID_MAX_LEVELS + 1 + DCI_INSTANCE_ID_MAX_WORDS + 1)

enum schema_index_mode {
	SCHEMA_INDEX_EXACT, /* GET: the row with exactly this index */
	SCHEMA_INDEX_NEXT,  /* GETNEXT: the first row whose index sorts after */
};

/* Which stat rows a column holds: rows whose datum's kind is in `kinds`
 * (a mask of 1 << enum dci_value_kind) and, with counters_only, whose
 * semantics is counter. Rows without a value (unset datum) never exist. */
struct schema_index_filter {
	uint32_t kinds;
	bool counters_only;
};

#define SCHEMA_INDEX_ALL_KINDS (((1u << DCI_KIND_COUNT) - 1u) & ~1u)

struct schema_index_row {
	const struct dci_supplier *supplier; /* supplier rows */
	const struct dci_class *class;
	size_t instance; /* position in class->snapshot */
	const struct dci_datum *datum;
};

/* The lookup of one table's row for `index` (`length` sub-identifiers) in
 * `mode`: true with the row in `row`, false when there is none. */
typedef bool schema_index_lookup(const struct dci_registry *registry,
    const uint64_t *index, size_t length, enum schema_index_mode mode,
    struct schema_index_row *row);

schema_index_lookup schema_index_supplier;
schema_index_lookup schema_index_class;
/* Whether `datum` has a row of dciDatumTable: every datum with a value
 * column, and ST_UNUSED, which reserves its id (revision 202611251200Z:
 * described, so that a manager lists every datum the class defines),
 * though it has no value anywhere. */
bool schema_index_datum_described(const struct dci_datum *datum);
schema_index_lookup schema_index_datum;
schema_index_lookup schema_index_instance;
bool schema_index_stat(const struct dci_registry *registry,
    const uint64_t *index, size_t length, enum schema_index_mode mode,
    const struct schema_index_filter *filter, struct schema_index_row *row);

/* The per-class tables: a cell of class `row->class`, instance, datum,
 * ordered class (by levels), column (datum id), instance. A column holds
 * the instances with a value for its datum, as dciStatTable's value
 * columns do. */
schema_index_lookup schema_index_class_data;

/* True when `index` starts with a column of a class's table (the class's
 * levels, 1, the datum id), whether or not an instance follows: a GET that
 * names no cell is then noSuchInstance, not noSuchObject. */
bool schema_index_class_data_column(
    const struct dci_registry *registry, const uint64_t *index, size_t length);

/* Writes a row's index (encoding above) into `index`, which has room for
 * SCHEMA_INDEX_MAX sub-identifiers; returns the count. */
size_t schema_index_encode_class(
    const struct dci_class *class, uint32_t *index);
typedef size_t schema_index_encoder(
    const struct schema_index_row *row, uint32_t *index);

schema_index_encoder schema_index_encode_datum;
schema_index_encoder schema_index_encode_instance;
schema_index_encoder schema_index_encode_stat;
schema_index_encoder schema_index_encode_class_data;
/* The dciInstanceTable index of an instance row's parent, or 0 when the
 * instance has no parent. */
schema_index_encoder schema_index_encode_parent;

#endif
