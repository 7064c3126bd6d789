/* The human format (text_table.h). */
#define _GNU_SOURCE
#include "cli/text_table.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/utf8.h"
#include "text/escape.h"

/* Between two columns. */
#define GAP 2

/* Room for a number as shown: "-999E" at most, or an exact number cut. */
#define HUMAN_NUMBER_SIZE 32

/* Bold and back, around titles and headers only. */
#define BOLD "\033[1m"
#define PLAIN "\033[0m"

static bool
right_aligned(const struct cli_column *column)
{
	return column->role == CLI_COLUMN_COUNTER ||
	       column->role == CLI_COLUMN_GAUGE;
}

void
cli_text_human_number(const char *number, char *out, size_t out_size)
{
	static const char prefixes[] = "kMGTPE";
	const char *digits = number[0] == '-' ? number + 1 : number;
	char *end;
	double value;
	size_t prefix = 0;

	value = strtod(digits, &end);
	if (digits[0] < '0' || digits[0] > '9' || *end != '\0' ||
	    value < 100000.0) {
		snprintf(out, out_size, "%s", number);
		return;
	}
	value /= 1000.0;
	while (value >= 999.5 && prefix + 1 < sizeof(prefixes) - 1) {
		value /= 1000.0;
		prefix++;
	}
	/* Three significant digits: 100k..999k, 1.00M..9.99M, 10.0M... */
	snprintf(out, out_size, "%s%.*f%c", number[0] == '-' ? "-" : "",
	    value >= 99.95   ? 0
	    : value >= 9.995 ? 1
	                     : 2,
	    value, prefixes[prefix]);
}

/* The cell as shown: "-" without a value; a number of a numeric column
 * with an SI prefix in the human style, when its text is that number (a
 * hexadecimal or dotted presentation is left as the provider shows it).
 * `buffer` holds the shorter form. */
static const char *
cell_text(const struct cli_table *table, size_t row, size_t column,
    const struct cli_text_style *style, char *buffer, size_t buffer_size)
{
	const struct cli_cell *cell = cli_table_cell(table, row, column);

	if (cell->text == NULL)
		return CLI_TEXT_NO_VALUE;
	/* Most numbers are short: under 100000 they are shown as they are. */
	if (style->human && cell->number != NULL &&
	    strcspn(cell->number + (cell->number[0] == '-'), ".") > 5 &&
	    right_aligned(&table->columns[column]) &&
	    strcmp(cell->text, cell->number) == 0) {
		cli_text_human_number(cell->number, buffer, buffer_size);
		return buffer;
	}
	return cell->text;
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

/* Printable ASCII only: shown as it is, one column a byte. Nearly every
 * cell is, so it needs no escaped copy. */
static bool
plain_ascii(const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c != '\0';
	     c++)
		if (*c < 0x20 || *c >= 0x7f)
			return false;
	return true;
}

/* The width the text takes as shown. */
static size_t
shown_width(const char *text)
{
	char *shown;

	if (plain_ascii(text))
		return strlen(text);
	shown = shown_text(text);
	size_t width = shown != NULL ? cli_utf8_width(shown) : 0;

	free(shown);
	return width;
}

/* Writes the text as shown; nothing without memory. */
static void
write_shown(FILE *out, const char *text)
{
	char *shown;

	if (plain_ascii(text)) {
		fputs(text, out);
		return;
	}
	shown = shown_text(text);

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
    const bool *chosen, const struct cli_text_style *style)
{
	char buffer[HUMAN_NUMBER_SIZE];
	size_t last = 0;

	for (size_t i = 0; i < table->column_count; i++)
		if (chosen[i])
			last = i;
	for (long row = -1; row < (long)table->row_count; row++) {
		bool first = true;

		if (row < 0 && style->color)
			fputs(BOLD, out);
		for (size_t i = 0; i < table->column_count; i++) {
			const struct cli_column *column = &table->columns[i];
			const char *text;

			if (!chosen[i])
				continue;
			if (!first)
				write_padding(out, GAP);
			first = false;
			text = row < 0 ? column->name
			               : cell_text(table, (size_t)row, i, style,
			                     buffer, sizeof(buffer));
			/* The last column is not padded on the right. */
			write_padded(out, text,
			    i == last && !right_aligned(column) ? 0 : widths[i],
			    right_aligned(column));
		}
		if (row < 0 && style->color)
			fputs(PLAIN, out);
		putc('\n', out);
	}
}

static void
write_table(FILE *out, const struct cli_table *table,
    const struct cli_text_style *style)
{
	size_t *widths = calloc(table->column_count + 1, sizeof(*widths));
	bool *chosen = calloc(table->column_count + 1, sizeof(*chosen));
	size_t keys_width = 0, next = 0, width = style->width;
	char buffer[HUMAN_NUMBER_SIZE];

	if (style->color)
		fputs(BOLD, out);
	if (style->stamp != NULL)
		fprintf(out, "%s  ", style->stamp);
	write_shown(out, table->title);
	if (style->color)
		fputs(PLAIN, out);
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
			size_t cell = shown_width(cell_text(
			    table, row, i, style, buffer, sizeof(buffer)));
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
		write_block(out, table, widths, chosen, style);
	}
	free(widths);
	free(chosen);
}

void
cli_text_table_write(FILE *out, const struct cli_document *document,
    const struct cli_text_style *style)
{
	for (size_t i = 0; i < document->count; i++) {
		if (i > 0)
			putc('\n', out);
		write_table(out, document->tables[i], style);
	}
}
