/*
 * The catalogue commands' tables: `suppliers` (the DCI4 supplier
 * records), `classes` (a row per class) and `describe` (one class: its
 * row of `classes`, its instance levels and its datums' descriptions).
 * They read only the registry a source filled (source.h).
 */
#ifndef DCISTAT_CLI_CATALOG_H
#define DCISTAT_CLI_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "cli/document.h"
#include "model/registry.h"

/* Adds the suppliers table. `now_milliseconds` is dci_clock_milliseconds
 * and `now_realtime_milliseconds` the wall clock at the same moment, to
 * show the suppliers' monotonic times as dates. Returns 0, or -1 (out of
 * memory). */
int cli_catalog_suppliers(struct cli_document *document,
    const struct dci_registry *registry, int64_t now_milliseconds,
    int64_t now_realtime_milliseconds);

/* Adds the classes table: every class of `registry`, or only `only` when
 * not NULL (registry may then be NULL). */
int cli_catalog_classes(struct cli_document *document,
    const struct dci_registry *registry, const struct dci_class *only);

/* Adds the tables that describe `class`: its classes row, its levels and
 * its datums. */
int cli_catalog_describe(
    struct cli_document *document, const struct dci_class *class);

#endif
