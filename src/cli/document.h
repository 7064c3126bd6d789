/*
 * The tables every dcistat command produces and every output format
 * writes: a table has named columns and rows of cells. Commands fill
 * tables from a source (source.h); the writers (text_table.h, json.h,
 * openmetrics.h) only read them, so a format never knows which command or
 * which source made its input, and every command has every format.
 *
 * A cell holds the value twice: `text`, as a person reads it (the DCI4
 * presentation, from the model's dci_value_render), and `number`, the exact
 * decimal of a numeric value for machines ("4000000000", "-2", "1.29"),
 * NULL for a column that is not numeric. A cell without a value (an
 * absent datum, a rate across a discontinuity) has neither.
 */
#ifndef DCISTAT_CLI_DOCUMENT_H
#define DCISTAT_CLI_DOCUMENT_H

#include <stdbool.h>
#include <stddef.h>

/* What a column is, which decides how each format writes it. */
enum cli_column_role {
	/* Names the row: the instance label and id, a supplier's module.
	 * OpenMetrics labels every sample of the row with it. */
	CLI_COLUMN_KEY,
	/* Text that is no number: strings, addresses, times, names. */
	CLI_COLUMN_TEXT,
	/* A number that only grows (OpenMetrics counter). */
	CLI_COLUMN_COUNTER,
	/* Any other number, rates included (OpenMetrics gauge). */
	CLI_COLUMN_GAUGE,
};

struct cli_column {
	char *name; /* a datum label, or the command's own name */
	char *unit; /* "bytes", "" for none */
	char *help; /* one line, "" for none */
	enum cli_column_role role;
};

struct cli_cell {
	char *text;   /* NULL: no value */
	char *number; /* NULL: no value, or not a numeric column */
};

struct cli_table {
	char *name;  /* for machines: a class label, "suppliers" */
	char *title; /* for people: the heading of the table */
	struct cli_column *columns;
	size_t column_count;
	struct cli_cell *cells; /* row_count * column_count, row-major */
	size_t row_count;
	size_t row_capacity;
};

/* A table without columns or rows; NULL when out of memory. */
struct cli_table *cli_table_new(const char *name, const char *title);
void cli_table_free(struct cli_table *table);

/* Appends a column (only before the first row). Returns its number, or -1
 * when out of memory. unit and help may be NULL. Column names are unique
 * in a table, so that a JSON row has each key once: a name already taken
 * (a datum labelled "id" beside the instance id) gets '_' appended until
 * it is not. */
long cli_table_add_column(struct cli_table *table, const char *name,
    enum cli_column_role role, const char *unit, const char *help);

/* One column of a table described as data (cli_table_new_with). */
struct cli_column_spec {
	const char *name;
	enum cli_column_role role;
	const char *unit; /* may be NULL */
	const char *help; /* may be NULL */
};

/* A table with the `count` columns of `columns`, in order, and no rows;
 * NULL when out of memory. */
struct cli_table *cli_table_new_with(const char *name, const char *title,
    const struct cli_column_spec *columns, size_t count);

/* Appends a row of empty cells; returns its number or -1 (out of memory). */
long cli_table_add_row(struct cli_table *table);

/* Sets a cell; text or number may be NULL. Returns 0 or -1 (memory). */
int cli_table_set(struct cli_table *table, size_t row, size_t column,
    const char *text, const char *number);

static inline const struct cli_cell *
cli_table_cell(const struct cli_table *table, size_t row, size_t column)
{
	return &table->cells[row * table->column_count + column];
}

/* The tables one command produced, in order. */
struct cli_document {
	struct cli_table **tables;
	size_t count;
};

/* Takes `table` into the document (freed with it); -1 when out of memory,
 * the table then freed. */
int cli_document_add(struct cli_document *document, struct cli_table *table);
void cli_document_clear(struct cli_document *document);

#endif
