/* The tables of a command's output (document.h). */
#define _GNU_SOURCE
#include "cli/document.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char *
copy_or_empty(const char *text)
{
	return strdup(text != NULL ? text : "");
}

struct cli_table *
cli_table_new(const char *name, const char *title)
{
	struct cli_table *table = calloc(1, sizeof(*table));

	if (table == NULL)
		return NULL;
	table->name = copy_or_empty(name);
	table->title = copy_or_empty(title);
	if (table->name == NULL || table->title == NULL) {
		cli_table_free(table);
		return NULL;
	}
	return table;
}

struct cli_table *
cli_table_new_with(const char *name, const char *title,
    const struct cli_column_spec *columns, size_t count)
{
	struct cli_table *table = cli_table_new(name, title);

	for (size_t i = 0; table != NULL && i < count; i++) {
		if (cli_table_add_column(table, columns[i].name,
		        columns[i].role, columns[i].unit,
		        columns[i].help) < 0) {
			cli_table_free(table);
			table = NULL;
		}
	}
	return table;
}

void
cli_table_free(struct cli_table *table)
{
	if (table == NULL)
		return;
	for (size_t i = 0; i < table->row_count * table->column_count; i++) {
		free(table->cells[i].text);
		free(table->cells[i].number);
	}
	free(table->cells);
	for (size_t i = 0; i < table->column_count; i++) {
		free(table->columns[i].name);
		free(table->columns[i].unit);
		free(table->columns[i].help);
	}
	free(table->columns);
	free(table->name);
	free(table->title);
	free(table);
}

static bool
column_name_taken(const struct cli_table *table, const char *name)
{
	for (size_t i = 0; i < table->column_count; i++) {
		if (strcmp(table->columns[i].name, name) == 0)
			return true;
	}
	return false;
}

/* `name`, with '_' appended until no column of the table has it. */
static char *
unique_column_name(const struct cli_table *table, const char *name)
{
	size_t length = strlen(name);
	char *unique = malloc(length + table->column_count + 1);

	if (unique == NULL)
		return NULL;
	memcpy(unique, name, length + 1);
	/* At most column_count names can be taken. */
	while (column_name_taken(table, unique)) {
		unique[length++] = '_';
		unique[length] = '\0';
	}
	return unique;
}

long
cli_table_add_column(struct cli_table *table, const char *name,
    enum cli_column_role role, const char *unit, const char *help)
{
	struct cli_column *columns, *column;

	if (table->row_count > 0)
		return -1;
	columns = realloc(table->columns,
	    (table->column_count + 1) * sizeof(*table->columns));
	if (columns == NULL)
		return -1;
	table->columns = columns;
	column = &columns[table->column_count];
	column->name = unique_column_name(table, name != NULL ? name : "");
	column->unit = copy_or_empty(unit);
	column->help = copy_or_empty(help);
	column->role = role;
	if (column->name == NULL || column->unit == NULL ||
	    column->help == NULL) {
		free(column->name);
		free(column->unit);
		free(column->help);
		return -1;
	}
	return (long)table->column_count++;
}

long
cli_table_add_row(struct cli_table *table)
{
	size_t width = table->column_count;

	if (table->row_count == table->row_capacity) {
		size_t capacity =
		    table->row_capacity == 0 ? 16 : 2 * table->row_capacity;
		struct cli_cell *cells;

		if (width == 0 || capacity > SIZE_MAX / width / sizeof(*cells))
			return -1;
		cells =
		    realloc(table->cells, capacity * width * sizeof(*cells));
		if (cells == NULL)
			return -1;
		table->cells = cells;
		table->row_capacity = capacity;
	}
	memset(&table->cells[table->row_count * width], 0,
	    width * sizeof(*table->cells));
	return (long)table->row_count++;
}

int
cli_table_set(struct cli_table *table, size_t row, size_t column,
    const char *text, const char *number)
{
	struct cli_cell *cell =
	    &table->cells[row * table->column_count + column];
	char *new_text = NULL, *new_number = NULL;

	if (text != NULL && (new_text = strdup(text)) == NULL)
		return -1;
	if (number != NULL && (new_number = strdup(number)) == NULL) {
		free(new_text);
		return -1;
	}
	free(cell->text);
	free(cell->number);
	cell->text = new_text;
	cell->number = new_number;
	return 0;
}

int
cli_document_add(struct cli_document *document, struct cli_table *table)
{
	struct cli_table **tables =
	    realloc(document->tables, (document->count + 1) * sizeof(*tables));

	if (tables == NULL) {
		cli_table_free(table);
		return -1;
	}
	document->tables = tables;
	tables[document->count++] = table;
	return 0;
}

void
cli_document_clear(struct cli_document *document)
{
	for (size_t i = 0; i < document->count; i++)
		cli_table_free(document->tables[i]);
	free(document->tables);
	document->tables = NULL;
	document->count = 0;
}
