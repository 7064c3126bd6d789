/*
 * The human format: each table under its title, a header of column names,
 * one line per row, columns padded to their widest cell; numbers right-
 * aligned, text left; a cell without a value is "-". A table wider than
 * the terminal is cut into blocks of columns that fit, each repeating the
 * key columns (instance label and id), so that nothing wraps mid-row.
 * Text is written escaped (text/escape.h, terminal mode: control bytes,
 * C1 controls and bytes that are no UTF-8 as "\xHH"), so a value can
 * never move the cursor or change the terminal's state.
 *
 * For people, a number of a counter or gauge column of 100000 or more
 * (in magnitude) is shown with an SI prefix and three significant digits,
 * as `ip -h` does: 27891952 as 27.9M (k, M, G, T, P, E); the exact number
 * is in --raw, JSON and OpenMetrics. A number shown in another
 * presentation (hexadecimal, dotted) is left as it is. With colour, the
 * titles and headers are bold: the escapes are the writer's own, never
 * taken from data.
 */
#ifndef DCISTAT_CLI_TEXT_TABLE_H
#define DCISTAT_CLI_TEXT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/document.h"

/* The mark of a cell without a value (an absent datum, a rate over a
 * discontinuity). */
#define CLI_TEXT_NO_VALUE "-"

struct cli_text_style {
	size_t width;      /* the terminal's, in characters; 0: no limit (a
	                      file or a pipe) */
	bool human;        /* large numbers with SI prefixes */
	bool color;        /* bold titles and headers */
	const char *stamp; /* written before each title (watch's time of the
	                      sample), NULL for none */
};

/* Writes the number text `number` ("27891952", "-0.52") as shown with an
 * SI prefix into `out` (out_size bytes): unchanged below 100000 in
 * magnitude or when it is no decimal number. */
void cli_text_human_number(const char *number, char *out, size_t out_size);

/* Writes the document in the style given. */
void cli_text_table_write(FILE *out, const struct cli_document *document,
    const struct cli_text_style *style);

#endif
