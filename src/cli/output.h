/* The output formats of every command, chosen once on the command line. */
#ifndef DCISTAT_CLI_OUTPUT_H
#define DCISTAT_CLI_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "cli/document.h"
#include "cli/text_table.h"

enum cli_format {
	CLI_FORMAT_TEXT,        /* tables for people (text_table.h) */
	CLI_FORMAT_JSON,        /* json.h */
	CLI_FORMAT_OPENMETRICS, /* openmetrics.h */
	CLI_FORMAT_PROMETHEUS,  /* openmetrics.h, the older text format */
};

/* Writes the document in `format`; `style` is used by the text format
 * only. Returns 0, or -1 when the output failed (a closed pipe, a full
 * disk). */
int cli_output_write(FILE *out, enum cli_format format,
    const struct cli_document *document, const struct cli_text_style *style);

#endif
