/*
 * The rows of show and watch as asked for: those whose instance label
 * matches a shell pattern (--match, fnmatch(3)), ordered by one column
 * (--sort: numbers largest first, exactly by their decimal text, then
 * text in byte order; a row without a value last; ties in the source's
 * order), the first N kept (--top). Applies to every output format.
 */
#ifndef DCISTAT_CLI_VIEW_H
#define DCISTAT_CLI_VIEW_H

#include <stddef.h>

#include "cli/document.h"

struct cli_view {
	const char *match; /* NULL: every row */
	const char *sort;  /* a column name (a datum label), NULL: as is */
	size_t top;        /* 0: every row */
};

/* Applies the view to every table of the document (a table without the
 * --sort column keeps its order). Returns 0, or -1 with the reason in
 * `error`: a --sort column that no table has, out of memory. */
int cli_view_apply(struct cli_document *document, const struct cli_view *view,
    char *error, size_t error_size);

#endif
