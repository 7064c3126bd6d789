/*
 * The human format: each table under its title, a header of column names,
 * one line per row, columns padded to their widest cell; numbers right-
 * aligned, text left; a cell without a value is "-". A table wider than
 * the terminal is cut into blocks of columns that fit, each repeating the
 * key columns (instance label and id), so that nothing wraps mid-row.
 * Text is written escaped (text/escape.h, terminal mode: control bytes,
 * C1 controls and bytes that are no UTF-8 as "\xHH"), so a value can
 * never move the cursor or change the terminal's state.
 */
#ifndef DCISTAT_CLI_TEXT_TABLE_H
#define DCISTAT_CLI_TEXT_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "cli/document.h"

/* The mark of a cell without a value (an absent datum, a rate over a
 * discontinuity). */
#define CLI_TEXT_NO_VALUE "-"

/* Writes the document; `width` is the terminal's width in characters, 0
 * for no limit (output to a file or a pipe). */
void cli_text_table_write(
    FILE *out, const struct cli_document *document, size_t width);

#endif
