/*
 * The --json format: one JSON text per document, on one line, so that a
 * watch gives one line per interval (JSON Lines) and `show` one text:
 *
 *   {"tables":[{"name":"netif","title":"...","columns":[{"name":"mtu",
 *    "role":"gauge","unit":"bytes"},...],"rows":[{"instance":"lo",
 *    "id":"1","mtu":65536,...},...]}]}
 *
 * A numeric column's value is a JSON number (the exact decimal), any other
 * a string; a cell without a value is null. Strings are escaped as RFC
 * 8259 requires, the C1 controls (U+0080..U+009F, which a terminal showing
 * the document would act on) as \u0080..\u009f too, and bytes that are
 * not UTF-8 become U+FFFD.
 */
#ifndef DCISTAT_CLI_JSON_H
#define DCISTAT_CLI_JSON_H

#include <stdio.h>

#include "cli/document.h"

/* Writes `text` as a JSON string, quotes included. */
void cli_json_write_string(FILE *out, const char *text);

/* Writes the document and a newline. */
void cli_json_write(FILE *out, const struct cli_document *document);

#endif
