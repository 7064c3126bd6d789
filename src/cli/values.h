/*
 * Tables of a class's values, for `show` and `watch`: a row per instance
 * (its label and id as keys), a column per datum. Text is the model's DCI4
 * presentation (dci_value_render); numbers are the decoded values
 * (dci_value_decode), so no rule of presentation or decoding is repeated
 * here.
 */
#ifndef DCISTAT_CLI_VALUES_H
#define DCISTAT_CLI_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/document.h"
#include "model/registry.h"
#include "model/snapshot.h"
#include "model/value.h"

/* The names of the key columns of every value table. */
#define CLI_VALUES_INSTANCE_COLUMN "instance"
#define CLI_VALUES_ID_COLUMN "id"
/* Beside them, for a class whose instances have parents (evcnt). */
#define CLI_VALUES_PARENT_COLUMN "parent"

/* The datums a table shows: `selection` NULL for every datum that has
 * values (ST_UNUSED has none), else a comma-separated list of datum labels
 * or ids, in the order given. Returns the count with *datums allocated
 * (the caller frees it), or -1 with the reason in `error` (an unknown or
 * unused datum, an empty name, out of memory). */
long cli_values_select(const struct dci_class *class, const char *selection,
    const struct dci_datum ***datums, char *error, size_t error_size);

/* How a datum's values are written: counters (unsigned, counter
 * semantics), other numbers (integers, booleans, ratios), or text
 * (strings, addresses, times). */
enum cli_column_role cli_values_role(const struct dci_datum *datum);

/* The unit of a datum's values ("bytes", "" for none); a derived datum's
 * unit names its derivation, not a unit, so it has none. */
const char *cli_values_unit(const struct dci_datum *datum);

/* The exact decimal of a decoded value of a numeric datum ("4000000000",
 * "-2", ratios in hundredths as "1.29", booleans 1 or 0); false for a
 * datum whose values are not numbers. */
bool cli_values_number(const struct dci_datum *datum,
    const struct dci_value *value, char *text, size_t text_size);

/* Sets the key cells (label, id) of `row` to those of `instance`. */
int cli_values_set_instance(struct cli_table *table, size_t row,
    const struct dci_class *class, const struct dci_snapshot *snapshot,
    size_t instance);

/* Sets the cell of `datum` for `instance`: its rendering and number, or
 * nothing when the instance has no value for it. */
int cli_values_set_value(struct cli_table *table, size_t row, size_t column,
    const struct dci_class *class, const struct dci_snapshot *snapshot,
    size_t instance, const struct dci_datum *datum);

/* The index of the instance named `name` (its label, else its id as
 * dci_instance_id_format writes it) in the snapshot, or -1. */
long cli_values_find_instance(const struct dci_class *class,
    const struct dci_snapshot *snapshot, const char *name);

/* The `show` table of `class`: every instance, or only the one named
 * `instance` (NULL: all), the datums of `selection` (cli_values_select);
 * a column of each instance's parent when the class has parents.
 * Returns the table, or NULL with the reason in `error`. */
struct cli_table *cli_values_show(const struct dci_class *class,
    const char *instance, const char *selection, char *error,
    size_t error_size);

#endif
