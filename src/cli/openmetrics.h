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
 * (U+0080..U+009F) included, and bytes that are not UTF-8 become U+FFFD. The
 * exposition ends with "# EOF". A family whose name or sample names (_total,
 * _created, _info) another family already took is left out, as the format
 * allows each name once. Labels named instance or job (the labels Prometheus
 * gives every series of a target) are written dci_instance and dci_job; a unit
 * in octets is written as bytes.
 *
 * The --prometheus format is the same in the Prometheus text format
 * (0.0.4), which node_exporter's textfile collector and `promtool check
 * metrics` read: a counter's family is named FAMILY_total, an info family
 * is a gauge named dcistat_TABLE_info, and there is no # UNIT and no
 * "# EOF".
 */
#ifndef DCISTAT_CLI_OPENMETRICS_H
#define DCISTAT_CLI_OPENMETRICS_H

#include <stdbool.h>
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

/* The same, the double quote escaped only when `escape_quote` (a HELP of
 * the Prometheus text format leaves it as it is). */
void cli_openmetrics_write_text(FILE *out, const char *text, bool escape_quote);

enum cli_exposition {
	CLI_EXPOSITION_OPENMETRICS, /* OpenMetrics 1.0 */
	CLI_EXPOSITION_PROMETHEUS,  /* the Prometheus text format 0.0.4 */
};

/* Writes the document as one exposition ("# EOF" last in OpenMetrics). */
void cli_openmetrics_write(FILE *out, const struct cli_document *document,
    enum cli_exposition exposition);

#endif
