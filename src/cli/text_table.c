/* The human format (text_table.h). */
#define _GNU_SOURCE
#include "cli/text_table.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/utf8.h"
#include "text/escape.h"

/* Between two columns. */
#define GAP 2

static const char *
cell_text(const struct cli_cell *cell)
{
	return cell->text != NULL ? cell->text : CLI_TEXT_NO_VALUE;
}

static bool
right_aligned(const struct cli_column *column)
{
	return column->role == CLI_COLUMN_COUNTER ||
	       column->role == CLI_COLUMN_GAUGE;
}

/* The text as shown, escaped (text/escape.h, terminal mode): a value,
 * label or description an agent or a provider gave can then neither move
 * the cursor nor change the terminal's state. NULL: out of memory. */
static char *
shown_text(const char *text)
{
	size_t length = strlen(text);
	char *shown = malloc(length * DCI_TEXT_ESCAPE_GROWTH + 1);

	if (shown != NULL)
		dci_text_escape(shown, length * DCI_TEXT_ESCAPE_GROWTH + 1,
		    text, length, DCI_TEXT_ESCAPE_TERMINAL);
	return shown;
}

/* The width the text takes as shown. */
static size_t
shown_width(const char *text)
{
	char *shown = shown_text(text);
	size_t width = shown != NULL ? cli_utf8_width(shown) : 0;

	free(shown);
	return width;
}

/* Writes the text as shown; nothing without memory. */
static void
write_shown(FILE *out, const char *text)
{
	char *shown = shown_text(text);

	if (shown != NULL)
		fputs(shown, out);
	free(shown);
}

static void
write_padding(FILE *out, size_t count)
{
	static const char spaces[] = "                                ";

	while (count > 0) {
		size_t step =
		    count < sizeof(spaces) - 1 ? count : sizeof(spaces) - 1;

		fwrite(spaces, 1, step, out);
		count -= step;
	}
}

static void
write_padded(FILE *out, const char *text, size_t width, bool right)
{
	size_t used = shown_width(text);
	size_t padding = used < width ? width - used : 0;

	if (right)
		write_padding(out, padding);
	write_shown(out, text);
	if (!right)
		write_padding(out, padding);
}

/* Writes the columns marked in `chosen`, header then rows. */
static void
write_block(FILE *out, const struct cli_table *table, const size_t *widths,
    const bool *chosen)
{
	size_t last = 0;

	for (size_t i = 0; i < table->column_count; i++)
		if (chosen[i])
			last = i;
	for (long row = -1; row < (long)table->row_count; row++) {
		bool first = true;

		for (size_t i = 0; i < table->column_count; i++) {
			const struct cli_column *column = &table->columns[i];
			const char *text;

			if (!chosen[i])
				continue;
			if (!first)
				write_padding(out, GAP);
			first = false;
			text = row < 0 ? column->name
			               : cell_text(cli_table_cell(
			                     table, (size_t)row, i));
			/* The last column is not padded on the right. */
			write_padded(out, text,
			    i == last && !right_aligned(column) ? 0 : widths[i],
			    right_aligned(column));
		}
		putc('\n', out);
	}
}

static void
write_table(FILE *out, const struct cli_table *table, size_t width)
{
	size_t *widths = calloc(table->column_count + 1, sizeof(*widths));
	bool *chosen = calloc(table->column_count + 1, sizeof(*chosen));
	size_t keys_width = 0, next = 0;

	write_shown(out, table->title);
	putc('\n', out);
	if (widths == NULL || chosen == NULL || table->row_count == 0) {
		if (table->row_count == 0)
			fputs("(none)\n", out);
		free(widths);
		free(chosen);
		return;
	}
	for (size_t i = 0; i < table->column_count; i++) {
		widths[i] = shown_width(table->columns[i].name);
		for (size_t row = 0; row < table->row_count; row++) {
			size_t cell = shown_width(
			    cell_text(cli_table_cell(table, row, i)));
			if (cell > widths[i])
				widths[i] = cell;
		}
		if (table->columns[i].role == CLI_COLUMN_KEY)
			keys_width += widths[i] + GAP;
	}
	/* Blocks of the non-key columns that fit beside the keys; at least
	 * one column a block, however narrow the terminal. A table of keys
	 * alone is one block. */
	for (bool first_block = true;; first_block = false) {
		size_t used = keys_width, taken = 0;

		while (next < table->column_count &&
		       table->columns[next].role == CLI_COLUMN_KEY)
			next++;
		if (next >= table->column_count && !first_block)
			break;
		for (size_t i = 0; i < table->column_count; i++)
			chosen[i] = table->columns[i].role == CLI_COLUMN_KEY;
		for (; next < table->column_count; next++) {
			if (table->columns[next].role == CLI_COLUMN_KEY)
				continue;
			if (width > 0 && taken > 0 &&
			    used + widths[next] > width)
				break;
			chosen[next] = true;
			used += widths[next] + GAP;
			taken++;
		}
		if (!first_block)
			putc('\n', out);
		write_block(out, table, widths, chosen);
	}
	free(widths);
	free(chosen);
}

void
cli_text_table_write(
    FILE *out, const struct cli_document *document, size_t width)
{
	for (size_t i = 0; i < document->count; i++) {
		if (i > 0)
			putc('\n', out);
		write_table(out, document->tables[i], width);
	}
}
