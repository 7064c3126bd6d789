/*
 * The --openmetrics format: the OpenMetrics text exposition (the
 * Prometheus text format's successor), for node_exporter's textfile
 * collector or any scraper. Each table gives:
 *   - per numeric column a metric family dcistat_TABLE_COLUMN (the unit
 *     appended when the name does not end with it, as OpenMetrics
 *     requires of a family with a UNIT), with # TYPE (counter or gauge),
 *     # UNIT and # HELP; a counter's samples are FAMILY_total;
 *   - when the table has text columns, an info family dcistat_TABLE whose
 *     samples dcistat_TABLE_info carry them as labels, value 1;
 * every sample labelled with the row's key columns (instance label and
 * id, supplier module). A cell without a value gives no sample. Names are
 * made valid by replacing each other character with '_'; label values
 * and help are escaped (\\, \", \n); other control characters, C1
 * (U+0080..U+009F) included, and bytes that are not UTF-8 become U+FFFD. The exposition ends with "# EOF". A family whose name or
 * sample names (_total, _created, _info) another family already took is
 * left out, as the format allows each name once.
 */
#ifndef DCISTAT_CLI_OPENMETRICS_H
#define DCISTAT_CLI_OPENMETRICS_H

#include <stddef.h>
#include <stdio.h>

#include "cli/document.h"

/* `text` as a metric or label name: [a-zA-Z0-9_] kept, anything else '_',
 * "_" put first when it would start with a digit or be empty; a label
 * name never starts with "__" (reserved): "d" is put first. Truncated to
 * name_size - 1 characters. */
void cli_openmetrics_name(
    const char *text, char *name, size_t name_size, int is_label);

/* Writes `text` escaped for a label value or HELP (without quotes). */
void cli_openmetrics_write_escaped(FILE *out, const char *text);

/* Writes the document as one exposition, "# EOF" last. */
void cli_openmetrics_write(FILE *out, const struct cli_document *document);

#endif
