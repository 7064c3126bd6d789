/* The --openmetrics format (openmetrics.h). */
#define _GNU_SOURCE
#include "cli/openmetrics.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/utf8.h"

/* Longest family name written; longer ones are cut (a class label is at
 * most DCI_LABEL_MAX, so two of them and a unit fit). */
#define NAME_SIZE 600

void
cli_openmetrics_name(
    const char *text, char *name, size_t name_size, int is_label)
{
	size_t used = 0;

	if (name_size == 0)
		return;
	if (text[0] == '\0' || (text[0] >= '0' && text[0] <= '9')) {
		if (used + 1 < name_size)
			name[used++] = '_';
	}
	for (const char *c = text; *c != '\0' && used + 1 < name_size; c++) {
		bool valid = (*c >= 'a' && *c <= 'z') ||
		             (*c >= 'A' && *c <= 'Z') ||
		             (*c >= '0' && *c <= '9') || *c == '_';
		name[used++] = valid ? *c : '_';
	}
	name[used] = '\0';
	if (is_label && name[0] == '_' && name[1] == '_' && name_size > 2) {
		memmove(name + 1, name, strnlen(name, name_size - 2) + 1);
		name[0] = 'd';
		name[name_size - 1] = '\0';
	}
}

void
cli_openmetrics_write_escaped(FILE *out, const char *text)
{
	const unsigned char *bytes = (const unsigned char *)text;
	size_t available = strlen(text), step;

	while (available > 0) {
		unsigned char byte = *bytes;

		step = cli_utf8_sequence_length(bytes, available);
		if (step == 0) {
			fputs(CLI_UTF8_REPLACEMENT, out);
			step = 1;
		} else if (byte == '\\') {
			fputs("\\\\", out);
		} else if (byte == '"') {
			fputs("\\\"", out);
		} else if (byte == '\n') {
			fputs("\\n", out);
		} else if (byte < 0x20 || byte == 0x7f ||
		           (byte == 0xc2 && bytes[1] < 0xa0)) {
			/* Controls, C1 (U+0080..U+009F) included, have no
			 * escape in OpenMetrics. */
			fputs(CLI_UTF8_REPLACEMENT, out);
		} else {
			fwrite(bytes, 1, step, out);
		}
		bytes += step;
		available -= step;
	}
}

/* The names taken so far, families' and their samples', so that no name
 * is written for two families (OpenMetrics allows each once). */
struct names {
	char **items;
	size_t count;
};

static bool
names_taken(const struct names *names, const char *name)
{
	for (size_t i = 0; i < names->count; i++) {
		if (strcmp(names->items[i], name) == 0)
			return true;
	}
	return false;
}

/* True (and the names remembered) when neither the family `name` nor any
 * of its samples' names (`name` followed by each of `suffixes`, a list
 * ended by NULL) is taken. */
static bool
names_claim(struct names *names, const char *name, const char *const *suffixes)
{
	char sample[3 * NAME_SIZE + 16];
	size_t count = 1;
	char **items;

	if (names_taken(names, name))
		return false;
	for (const char *const *suffix = suffixes; *suffix != NULL; suffix++) {
		snprintf(sample, sizeof(sample), "%s%s", name, *suffix);
		if (names_taken(names, sample))
			return false;
		count++;
	}
	items = realloc(names->items, (names->count + count) * sizeof(*items));
	if (items == NULL)
		return false;
	names->items = items;
	for (size_t i = 0; i < count; i++) {
		snprintf(sample, sizeof(sample), "%s%s", name,
		    i == 0 ? "" : suffixes[i - 1]);
		if ((items[names->count] = strdup(sample)) == NULL)
			return false;
		names->count++;
	}
	return true;
}

static void
names_free(struct names *names)
{
	for (size_t i = 0; i < names->count; i++)
		free(names->items[i]);
	free(names->items);
}

static bool
ends_with(const char *text, const char *suffix)
{
	size_t length = strlen(text), suffix_length = strlen(suffix);

	return length >= suffix_length &&
	       strcmp(text + length - suffix_length, suffix) == 0;
}

/* Writes one label, preceded by ',' unless it is the first. */
static void
write_label(FILE *out, bool *first, const char *name, const char *value)
{
	char label[NAME_SIZE];

	cli_openmetrics_name(name, label, sizeof(label), 1);
	fprintf(out, "%s%s=\"", *first ? "" : ",", label);
	cli_openmetrics_write_escaped(out, value);
	putc('"', out);
	*first = false;
}

/* Writes the row's key labels, without braces; *first tells whether one
 * was written. */
static void
write_key_labels(
    FILE *out, const struct cli_table *table, size_t row, bool *first)
{
	for (size_t i = 0; i < table->column_count; i++) {
		const struct cli_cell *cell = cli_table_cell(table, row, i);

		if (table->columns[i].role == CLI_COLUMN_KEY &&
		    cell->text != NULL)
			write_label(
			    out, first, table->columns[i].name, cell->text);
	}
}

/* Whether a text column's label name is one of the key columns' (then
 * it is left out of the info sample, where a label appears once). */
static bool
clashes_with_key(const struct cli_table *table, size_t column)
{
	char name[NAME_SIZE], key[NAME_SIZE];

	cli_openmetrics_name(
	    table->columns[column].name, name, sizeof(name), 1);
	for (size_t i = 0; i < table->column_count; i++) {
		if (table->columns[i].role != CLI_COLUMN_KEY)
			continue;
		cli_openmetrics_name(
		    table->columns[i].name, key, sizeof(key), 1);
		if (strcmp(name, key) == 0)
			return true;
	}
	return false;
}

static void
write_info_family(FILE *out, const struct cli_table *table, const char *prefix,
    struct names *names)
{
	static const char *const samples[] = {"_info", NULL};
	bool any = false;

	for (size_t i = 0; i < table->column_count; i++)
		any = any || table->columns[i].role == CLI_COLUMN_TEXT;

	if (!any || !names_claim(names, prefix, samples))
		return;
	fprintf(out, "# TYPE %s info\n", prefix);
	if (table->title[0] != '\0') {
		fprintf(out, "# HELP %s ", prefix);
		cli_openmetrics_write_escaped(out, table->title);
		putc('\n', out);
	}
	for (size_t row = 0; row < table->row_count; row++) {
		bool first = true;

		fprintf(out, "%s_info{", prefix);
		write_key_labels(out, table, row, &first);
		for (size_t i = 0; i < table->column_count; i++) {
			const struct cli_cell *cell =
			    cli_table_cell(table, row, i);

			if (table->columns[i].role != CLI_COLUMN_TEXT ||
			    cell->text == NULL || clashes_with_key(table, i))
				continue;
			write_label(
			    out, &first, table->columns[i].name, cell->text);
		}
		fputs("} 1\n", out);
	}
}

static void
write_numeric_family(FILE *out, const struct cli_table *table, size_t column,
    const char *prefix, struct names *names)
{
	static const char *const counter_samples[] = {
	    "_total", "_created", NULL};
	static const char *const gauge_samples[] = {NULL};
	const struct cli_column *info = &table->columns[column];
	bool counter = info->role == CLI_COLUMN_COUNTER;
	char part[NAME_SIZE], unit[NAME_SIZE], family[3 * NAME_SIZE];
	char suffix[NAME_SIZE + 1];

	cli_openmetrics_name(info->name, part, sizeof(part), 0);
	snprintf(family, sizeof(family), "%s_%s", prefix, part);
	/* A counter's family has no _total of its own: its samples do. */
	if (counter && ends_with(family, "_total"))
		family[strlen(family) - strlen("_total")] = '\0';
	unit[0] = '\0';
	if (info->unit[0] != '\0') {
		cli_openmetrics_name(info->unit, unit, sizeof(unit), 0);
		snprintf(suffix, sizeof(suffix), "_%s", unit);
		if (!ends_with(family, suffix) &&
		    strlen(family) + strlen(suffix) < sizeof(family))
			strcat(family, suffix);
	}
	if (!names_claim(
	        names, family, counter ? counter_samples : gauge_samples))
		return;
	fprintf(out, "# TYPE %s %s\n", family, counter ? "counter" : "gauge");
	if (unit[0] != '\0')
		fprintf(out, "# UNIT %s %s\n", family, unit);
	if (info->help[0] != '\0') {
		fprintf(out, "# HELP %s ", family);
		cli_openmetrics_write_escaped(out, info->help);
		putc('\n', out);
	}
	for (size_t row = 0; row < table->row_count; row++) {
		const struct cli_cell *cell =
		    cli_table_cell(table, row, column);
		bool first = true;

		if (cell->number == NULL)
			continue;
		fprintf(out, "%s%s{", family, counter ? "_total" : "");
		write_key_labels(out, table, row, &first);
		fprintf(out, "} %s\n", cell->number);
	}
}

void
cli_openmetrics_write(FILE *out, const struct cli_document *document)
{
	struct names names = {0};
	char part[NAME_SIZE], prefix[NAME_SIZE + 16];

	for (size_t t = 0; t < document->count; t++) {
		const struct cli_table *table = document->tables[t];

		cli_openmetrics_name(table->name, part, sizeof(part), 0);
		snprintf(prefix, sizeof(prefix), "dcistat_%s", part);
		write_info_family(out, table, prefix, &names);
		for (size_t i = 0; i < table->column_count; i++) {
			enum cli_column_role role = table->columns[i].role;

			if (role == CLI_COLUMN_COUNTER ||
			    role == CLI_COLUMN_GAUGE)
				write_numeric_family(
				    out, table, i, prefix, &names);
		}
	}
	fputs("# EOF\n", out);
	names_free(&names);
}
