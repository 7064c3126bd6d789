/* The rows of show and watch as asked for (view.h). */
#define _GNU_SOURCE
#include "cli/view.h"

#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/values.h"
#include "cli/watch.h"

/* The column named `name`, or its rate in a watch table; -1 if none. */
static long
column_find(const struct cli_table *table, const char *name)
{
	size_t length = strlen(name);

	for (size_t i = 0; i < table->column_count; i++)
		if (strcmp(table->columns[i].name, name) == 0)
			return (long)i;
	for (size_t i = 0; i < table->column_count; i++) {
		const char *column = table->columns[i].name;

		if (strncmp(column, name, length) == 0 &&
		    strcmp(column + length, CLI_WATCH_RATE_SUFFIX) == 0)
			return (long)i;
	}
	return -1;
}

/* The magnitude of a decimal text ("-12.50"): its integer digits without
 * leading zeros and its fraction digits. */
struct decimal {
	bool negative;
	const char *integer, *fraction;
	size_t integer_length, fraction_length;
};

static struct decimal
decimal_of(const char *text)
{
	struct decimal number = {.negative = text[0] == '-'};
	const char *point;

	if (number.negative)
		text++;
	while (text[0] == '0' && text[1] >= '0' && text[1] <= '9')
		text++;
	point = strchr(text, '.');
	number.integer = text;
	number.integer_length =
	    point != NULL ? (size_t)(point - text) : strlen(text);
	number.fraction = point != NULL ? point + 1 : "";
	number.fraction_length = strlen(number.fraction);
	return number;
}

/* Compares two magnitudes digit by digit: exact for any length. */
static int
magnitude_compare(const struct decimal *a, const struct decimal *b)
{
	size_t longest;
	int order;

	if (a->integer_length != b->integer_length)
		return a->integer_length < b->integer_length ? -1 : 1;
	order = memcmp(a->integer, b->integer, a->integer_length);
	if (order != 0)
		return order < 0 ? -1 : 1;
	longest = a->fraction_length > b->fraction_length ? a->fraction_length
	                                                  : b->fraction_length;
	for (size_t i = 0; i < longest; i++) {
		char x = i < a->fraction_length ? a->fraction[i] : '0';
		char y = i < b->fraction_length ? b->fraction[i] : '0';

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static bool
is_zero(const struct decimal *number)
{
	for (size_t i = 0; i < number->integer_length; i++)
		if (number->integer[i] != '0')
			return false;
	for (size_t i = 0; i < number->fraction_length; i++)
		if (number->fraction[i] != '0')
			return false;
	return true;
}

/* Orders two decimal texts as numbers: <0, 0, >0. */
static int
decimal_compare(const char *left, const char *right)
{
	struct decimal a = decimal_of(left), b = decimal_of(right);
	bool a_negative = a.negative && !is_zero(&a);
	bool b_negative = b.negative && !is_zero(&b);

	if (a_negative != b_negative)
		return a_negative ? -1 : 1;
	return a_negative ? -magnitude_compare(&a, &b)
	                  : magnitude_compare(&a, &b);
}

struct sort_context {
	const struct cli_table *table;
	size_t column;
};

/* Rows with a value first: numbers largest first, text in byte order;
 * ties keep the source's order (the row numbers). */
static int
row_compare(const void *left, const void *right, void *context_pointer)
{
	const struct sort_context *context = context_pointer;
	size_t a = *(const size_t *)left, b = *(const size_t *)right;
	const struct cli_cell *x = cli_table_cell(
	                          context->table, a, context->column),
	                      *y = cli_table_cell(
	                          context->table, b, context->column);
	int order = 0;

	if ((x->text == NULL) != (y->text == NULL))
		return x->text == NULL ? 1 : -1;
	if (x->number != NULL && y->number != NULL)
		order = -decimal_compare(x->number, y->number);
	else if (x->text != NULL && y->text != NULL)
		order = strcmp(x->text, y->text);
	if (order != 0)
		return order;
	return a < b ? -1 : a > b;
}

/* Keeps the rows listed in `rows` (count of them), in that order; the
 * others' cells are freed. */
static int
rows_keep(struct cli_table *table, const size_t *rows, size_t count)
{
	size_t columns = table->column_count;
	struct cli_cell *cells;
	bool *kept;

	cells = calloc(count * columns + 1, sizeof(*cells));
	kept = calloc(table->row_count + 1, sizeof(*kept));
	if (cells == NULL || kept == NULL) {
		free(cells);
		free(kept);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		memcpy(&cells[i * columns], cli_table_cell(table, rows[i], 0),
		    columns * sizeof(*cells));
		kept[rows[i]] = true;
	}
	for (size_t row = 0; row < table->row_count; row++) {
		if (kept[row])
			continue;
		for (size_t i = 0; i < columns; i++) {
			struct cli_cell *cell =
			    &table->cells[row * columns + i];

			free(cell->text);
			free(cell->number);
		}
	}
	free(kept);
	free(table->cells);
	table->cells = cells;
	table->row_count = count;
	table->row_capacity = count;
	return 0;
}

static int
table_view(struct cli_table *table, const struct cli_view *view, char *error,
    size_t error_size)
{
	long instance = column_find(table, CLI_VALUES_INSTANCE_COLUMN);
	long sort = -1;
	size_t *rows, count = 0;
	int result;

	/* A table without the column (show of every class) keeps its
	 * order; cli_view_apply refuses a column no table has. */
	if (view->sort != NULL)
		sort = column_find(table, view->sort);
	rows = calloc(table->row_count + 1, sizeof(*rows));
	if (rows == NULL) {
		snprintf(error, error_size, "out of memory");
		return -1;
	}
	for (size_t row = 0; row < table->row_count; row++) {
		const struct cli_cell *label =
		    instance >= 0 ? cli_table_cell(table, row, (size_t)instance)
		                  : NULL;

		if (view->match != NULL &&
		    (label == NULL || label->text == NULL ||
		        fnmatch(view->match, label->text, 0) != 0))
			continue;
		rows[count++] = row;
	}
	if (sort >= 0) {
		struct sort_context context = {table, (size_t)sort};

		qsort_r(rows, count, sizeof(*rows), row_compare, &context);
	}
	if (view->top > 0 && count > view->top)
		count = view->top;
	result = rows_keep(table, rows, count);
	free(rows);
	if (result != 0)
		snprintf(error, error_size, "out of memory");
	return result;
}

int
cli_view_apply(struct cli_document *document, const struct cli_view *view,
    char *error, size_t error_size)
{
	bool sortable = view->sort == NULL;

	if (view->match == NULL && view->sort == NULL && view->top == 0)
		return 0;
	for (size_t i = 0; i < document->count && !sortable; i++)
		sortable = column_find(document->tables[i], view->sort) >= 0;
	if (!sortable) {
		snprintf(error, error_size,
		    "--sort %.100s: no such datum in what is shown (see "
		    "dcistat describe CLASS)",
		    view->sort);
		return -1;
	}
	for (size_t i = 0; i < document->count; i++)
		if (table_view(document->tables[i], view, error, error_size) !=
		    0)
			return -1;
	return 0;
}
