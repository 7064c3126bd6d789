/* The --json format (json.h). */
#define _GNU_SOURCE
#include "cli/json.h"

#include <string.h>

#include "cli/utf8.h"

/* A cli_utf8_character_writer: JSON's escapes. */
static void
write_json_character(
    FILE *out, const unsigned char *bytes, size_t length, const void *context)
{
	unsigned char byte = *bytes;

	(void)context;
	if (byte == '"' || byte == '\\') {
		putc('\\', out);
		putc(byte, out);
	} else if (byte == '\n') {
		fputs("\\n", out);
	} else if (byte == '\t') {
		fputs("\\t", out);
	} else if (byte == '\r') {
		fputs("\\r", out);
	} else if (byte < 0x20 || byte == 0x7f) {
		fprintf(out, "\\u%04x", byte);
	} else if (byte == 0xc2 && bytes[1] < 0xa0) {
		/* A C1 control (U+0080..U+009F): valid JSON raw, but CSI or
		 * OSC to a terminal showing the document. */
		fprintf(out, "\\u%04x", bytes[1]);
	} else {
		fwrite(bytes, 1, length, out);
	}
}

void
cli_json_write_string(FILE *out, const char *text)
{
	putc('"', out);
	cli_utf8_write(out, text, write_json_character, NULL);
	putc('"', out);
}

static const char *
role_name(enum cli_column_role role)
{
	switch (role) {
	case CLI_COLUMN_KEY:
		return "key";
	case CLI_COLUMN_TEXT:
		return "text";
	case CLI_COLUMN_COUNTER:
		return "counter";
	case CLI_COLUMN_GAUGE:
		return "gauge";
	}
	return "text";
}

static void
write_cell(
    FILE *out, const struct cli_column *column, const struct cli_cell *cell)
{
	bool numeric = column->role == CLI_COLUMN_COUNTER ||
	               column->role == CLI_COLUMN_GAUGE;

	if (numeric && cell->number != NULL)
		fputs(cell->number, out);
	else if (cell->text != NULL)
		cli_json_write_string(out, cell->text);
	else
		fputs("null", out);
}

static void
write_table(FILE *out, const struct cli_table *table)
{
	fputs("{\"name\":", out);
	cli_json_write_string(out, table->name);
	fputs(",\"title\":", out);
	cli_json_write_string(out, table->title);
	fputs(",\"columns\":[", out);
	for (size_t i = 0; i < table->column_count; i++) {
		const struct cli_column *column = &table->columns[i];

		fputs(i > 0 ? ",{\"name\":" : "{\"name\":", out);
		cli_json_write_string(out, column->name);
		fprintf(
		    out, ",\"role\":\"%s\",\"unit\":", role_name(column->role));
		cli_json_write_string(out, column->unit);
		fputs(",\"help\":", out);
		cli_json_write_string(out, column->help);
		putc('}', out);
	}
	fputs("],\"rows\":[", out);
	for (size_t row = 0; row < table->row_count; row++) {
		putc(row > 0 ? ',' : '{', out);
		if (row > 0)
			putc('{', out);
		for (size_t i = 0; i < table->column_count; i++) {
			if (i > 0)
				putc(',', out);
			cli_json_write_string(out, table->columns[i].name);
			putc(':', out);
			write_cell(out, &table->columns[i],
			    cli_table_cell(table, row, i));
		}
		putc('}', out);
	}
	fputs("]}", out);
}

void
cli_json_write(FILE *out, const struct cli_document *document)
{
	fputs("{\"tables\":[", out);
	for (size_t i = 0; i < document->count; i++) {
		if (i > 0)
			putc(',', out);
		write_table(out, document->tables[i]);
	}
	fputs("]}\n", out);
}
