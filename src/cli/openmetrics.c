/* The --openmetrics format (openmetrics.h). */
#define _GNU_SOURCE
#include "cli/openmetrics.h"

#include <errno.h>
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
	cli_openmetrics_write_text(out, text, true);
}

/* A cli_utf8_character_writer: OpenMetrics' escapes; `context` is a bool,
 * whether a quote is escaped. */
static void
write_openmetrics_character(
    FILE *out, const unsigned char *bytes, size_t length, const void *context)
{
	const bool *escape_quote = context;
	unsigned char byte = *bytes;

	if (byte == '\\') {
		fputs("\\\\", out);
	} else if (byte == '"' && *escape_quote) {
		fputs("\\\"", out);
	} else if (byte == '\n') {
		fputs("\\n", out);
	} else if (byte < 0x20 || byte == 0x7f ||
	           (byte == 0xc2 && bytes[1] < 0xa0)) {
		/* Controls, C1 (U+0080..U+009F) included, have no escape in
		 * OpenMetrics. */
		fputs(CLI_UTF8_REPLACEMENT, out);
	} else {
		fwrite(bytes, 1, length, out);
	}
}

void
cli_openmetrics_write_text(FILE *out, const char *text, bool escape_quote)
{
	cli_utf8_write(out, text, write_openmetrics_character, &escape_quote);
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

/* The label name of a column: its name made valid, and the labels
 * Prometheus gives every series of a target (instance, job) prefixed
 * with dci_, so that the instance label is not overwritten (or renamed
 * exported_instance) by the scrape that collects it. */
static void
label_name(const char *column, char *label, size_t label_size)
{
	static const char *const reserved[] = {"instance", "job"};

	cli_openmetrics_name(column, label, label_size, 1);
	for (size_t i = 0; i < sizeof(reserved) / sizeof(*reserved); i++) {
		if (strcmp(label, reserved[i]) == 0) {
			snprintf(label, label_size, "dci_%s", reserved[i]);
			return;
		}
	}
}

/* Writes one label, preceded by ',' unless it is the first. */
static void
write_label(FILE *out, bool *first, const char *name, const char *value)
{
	char label[NAME_SIZE];

	label_name(name, label, sizeof(label));
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

	label_name(table->columns[column].name, name, sizeof(name));
	for (size_t i = 0; i < table->column_count; i++) {
		if (table->columns[i].role != CLI_COLUMN_KEY)
			continue;
		label_name(table->columns[i].name, key, sizeof(key));
		if (strcmp(name, key) == 0)
			return true;
	}
	return false;
}

/* A HELP text: the Prometheus text format escapes only the backslash and
 * the newline there (a \" is an error to its parser); OpenMetrics the
 * quote too. */
static void
write_help(FILE *out, const char *help, enum cli_exposition exposition)
{
	cli_openmetrics_write_text(
	    out, help, exposition == CLI_EXPOSITION_OPENMETRICS);
}

/* The name of the metadata lines (# TYPE, # HELP) of a family whose
 * samples are FAMILY + `suffix`: in OpenMetrics the family's, in the
 * Prometheus text format the samples'. */
static void
metadata_name(char *name, size_t name_size, const char *family,
    const char *suffix, enum cli_exposition exposition)
{
	size_t family_length = strlen(family), suffix_length;

	if (exposition != CLI_EXPOSITION_PROMETHEUS)
		suffix = "";
	suffix_length = strlen(suffix);
	if (name_size == 0)
		return;
	if (family_length >= name_size)
		family_length = name_size - 1;
	if (family_length + suffix_length >= name_size)
		suffix_length = name_size - 1 - family_length;
	memcpy(name, family, family_length);
	memcpy(name + family_length, suffix, suffix_length);
	name[family_length + suffix_length] = '\0';
}

/* The units written in Prometheus's base units: a time in seconds, octets
 * as bytes, a plain count as no unit (a _count suffix is a histogram's or
 * a summary's). `shift` is the power of ten the value is divided by, which
 * moves its decimal point and so keeps it exact. */
static const struct {
	const char *unit, *base_unit;
	unsigned shift;
	bool megabits; /* megabits to bytes: times 125,000 */
} base_units[] = {
    {"octets", "bytes", 0, false},
    {"count", "", 0, false},
    {"megabits_per_second", "bytes_per_second", 0, true},
    {"centiseconds", "seconds", 2, false},
    {"milliseconds", "seconds", 3, false},
    {"microseconds", "seconds", 6, false},
    {"nanoseconds", "seconds", 9, false},
    {"picoseconds", "seconds", 12, false},
};

/* The longest decimal number write_megabits_as_bytes converts; a longer
 * one (no datum renders one) is written NaN, never in the wrong unit. */
#define MEGABITS_DIGITS_MAX 96

/* Writes a decimal number of megabits ("-12", "1.5") as bytes, exactly:
 * times 125 digit by digit, then its decimal point moved 3 places right
 * (10^6 / 8 = 125 * 10^3), so no value is rounded or overflows. */
static void
write_megabits_as_bytes(FILE *out, const char *number)
{
	/* 3 leading zeros for the carries of * 125, the digits, 3 zeros for
	 * * 10^3. */
	unsigned char digits[3 + MEGABITS_DIGITS_MAX + 3];
	size_t count = 0, fraction = 0, first = 0, end;
	const char *cursor = number;
	bool negative = false, point = false, nonzero = false;
	unsigned carry = 0;

	if (*cursor == '-') {
		negative = true;
		cursor++;
	}
	/* Three leading zeros make room for the carries of * 125. */
	for (; count < 3; count++)
		digits[count] = 0;
	for (; *cursor != '\0'; cursor++) {
		if (*cursor == '.' && !point) {
			point = true;
			continue;
		}
		/* Not a decimal number (none is rendered): no value in
		 * bytes can be written for it. */
		if (*cursor < '0' || *cursor > '9' ||
		    count == MEGABITS_DIGITS_MAX + 3) {
			fputs("NaN", out);
			return;
		}
		digits[count++] = (unsigned char)(*cursor - '0');
		fraction += point ? 1 : 0;
	}
	if (count == 3) {
		fputs("NaN", out);
		return;
	}
	for (size_t i = count; i-- > 0;) {
		unsigned product = digits[i] * 125u + carry;

		digits[i] = (unsigned char)(product % 10);
		carry = product / 10;
	}
	/* Times 10^3: three fraction digits become whole ones. */
	end = count;
	if (fraction >= 3) {
		fraction -= 3;
	} else {
		for (; fraction < 3; fraction++)
			digits[end++] = 0;
		fraction = 0;
	}
	/* Trailing fraction zeros and leading whole zeros say nothing. */
	while (fraction > 0 && digits[end - 1] == 0) {
		end--;
		fraction--;
	}
	while (first + 1 < end - fraction && digits[first] == 0)
		first++;
	for (size_t i = first; i < end; i++)
		nonzero = nonzero || digits[i] != 0;
	if (negative && nonzero)
		putc('-', out);
	for (size_t i = first; i < end; i++) {
		if (i == end - fraction)
			putc('.', out);
		putc('0' + digits[i], out);
	}
}

/* Writes the decimal number `number` ("-12", "12.5") divided by
 * 10^shift, exactly: its decimal point moved `shift` places left. */
static void
write_shifted(FILE *out, const char *number, unsigned shift)
{
	const char *digits = number, *point;
	size_t integer_length;

	if (shift == 0 || number[0] == '\0') {
		fputs(number, out);
		return;
	}
	if (*digits == '-') {
		putc('-', out);
		digits++;
	}
	point = strchr(digits, '.');
	integer_length =
	    point != NULL ? (size_t)(point - digits) : strlen(digits);
	if (integer_length > shift) {
		fwrite(digits, 1, integer_length - shift, out);
		putc('.', out);
		fwrite(digits + integer_length - shift, 1, shift, out);
	} else {
		fputs("0.", out);
		for (size_t i = integer_length; i < shift; i++)
			putc('0', out);
		fwrite(digits, 1, integer_length, out);
	}
	if (point != NULL)
		fputs(point + 1, out);
}

static void
write_info_family(FILE *out, const struct cli_table *table, const char *prefix,
    struct names *names, enum cli_exposition exposition)
{
	static const char *const samples[] = {"_info", NULL};
	char name[NAME_SIZE + 32];
	bool any = false;

	for (size_t i = 0; i < table->column_count; i++)
		any = any || table->columns[i].role == CLI_COLUMN_TEXT;

	if (!any || !names_claim(names, prefix, samples))
		return;
	metadata_name(name, sizeof(name), prefix, "_info", exposition);
	fprintf(out, "# TYPE %s %s\n", name,
	    exposition == CLI_EXPOSITION_PROMETHEUS ? "gauge" : "info");
	if (table->title[0] != '\0') {
		fprintf(out, "# HELP %s ", name);
		write_help(out, table->title, exposition);
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
    const char *prefix, struct names *names, enum cli_exposition exposition)
{
	static const char *const counter_samples[] = {
	    "_total", "_created", NULL};
	static const char *const gauge_samples[] = {NULL};
	const struct cli_column *info = &table->columns[column];
	bool counter = info->role == CLI_COLUMN_COUNTER;
	char part[NAME_SIZE], unit[NAME_SIZE], family[3 * NAME_SIZE];
	char suffix[NAME_SIZE + 1], name[3 * NAME_SIZE + 16];
	unsigned shift = 0;
	bool megabits = false;

	cli_openmetrics_name(info->name, part, sizeof(part), 0);
	snprintf(family, sizeof(family), "%s_%s", prefix, part);
	/* A counter's family has no _total of its own: its samples do. */
	if (counter && ends_with(family, "_total"))
		family[strlen(family) - strlen("_total")] = '\0';
	unit[0] = '\0';
	if (info->unit[0] != '\0') {
		cli_openmetrics_name(info->unit, unit, sizeof(unit), 0);
		/* In base units, so that rx_bytes is not named
		 * rx_bytes_octets nor a time counted in milliseconds. */
		for (size_t u = 0; u < sizeof(base_units) / sizeof(*base_units);
		     u++) {
			if (strcmp(unit, base_units[u].unit) == 0) {
				snprintf(unit, sizeof(unit), "%s",
				    base_units[u].base_unit);
				shift = base_units[u].shift;
				megabits = base_units[u].megabits;
				break;
			}
		}
		snprintf(suffix, sizeof(suffix), "_%s", unit);
		if (unit[0] != '\0' && !ends_with(family, suffix) &&
		    strlen(family) + strlen(suffix) < sizeof(family))
			strcat(family, suffix);
	}
	if (!names_claim(
	        names, family, counter ? counter_samples : gauge_samples))
		return;
	metadata_name(
	    name, sizeof(name), family, counter ? "_total" : "", exposition);
	fprintf(out, "# TYPE %s %s\n", name, counter ? "counter" : "gauge");
	if (unit[0] != '\0' && exposition == CLI_EXPOSITION_OPENMETRICS)
		fprintf(out, "# UNIT %s %s\n", family, unit);
	if (info->help[0] != '\0') {
		fprintf(out, "# HELP %s ", name);
		write_help(out, info->help, exposition);
		/* The description names the unit the provider counts in. */
		if (shift != 0 || megabits)
			fprintf(out, " (written in %s)", unit);
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
		fputs("} ", out);
		if (megabits)
			write_megabits_as_bytes(out, cell->number);
		else
			write_shifted(out, cell->number, shift);
		putc('\n', out);
	}
}

void
cli_openmetrics_write(FILE *out, const struct cli_document *document,
    enum cli_exposition exposition)
{
	struct names names = {0};
	char part[NAME_SIZE], prefix[NAME_SIZE + 16];

	for (size_t t = 0; t < document->count; t++) {
		const struct cli_table *table = document->tables[t];

		cli_openmetrics_name(table->name, part, sizeof(part), 0);
		snprintf(prefix, sizeof(prefix), "dcistat_%s", part);
		write_info_family(out, table, prefix, &names, exposition);
		for (size_t i = 0; i < table->column_count; i++) {
			enum cli_column_role role = table->columns[i].role;

			if (role == CLI_COLUMN_COUNTER ||
			    role == CLI_COLUMN_GAUGE)
				write_numeric_family(
				    out, table, i, prefix, &names, exposition);
		}
	}
	if (exposition == CLI_EXPOSITION_OPENMETRICS)
		fputs("# EOF\n", out);
	names_free(&names);
}
