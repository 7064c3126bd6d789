/* Tables of a class's values (values.h). */
#define _GNU_SOURCE
#include "cli/values.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest instance id as text: 16 words of up to 10 digits and a dot. */
#define INSTANCE_ID_TEXT_SIZE (DCI_INSTANCE_ID_MAX_WORDS * 11 + 1)

long
cli_values_select(const struct dci_class *class, const char *selection,
    const struct dci_datum ***datums, char *error, size_t error_size)
{
	char *copy = NULL, *name, *rest;
	size_t count = 0, capacity;

	/* Every datum, or at most one per name given (names are separated
	 * by commas, so there are at most length / 2 + 1 of them). */
	capacity = selection == NULL ? class->datum_count + 1
	                             : strlen(selection) / 2 + 2;
	*datums = calloc(capacity, sizeof(**datums));
	if (*datums == NULL ||
	    (selection != NULL && (copy = strdup(selection)) == NULL)) {
		free(*datums);
		*datums = NULL;
		snprintf(error, error_size, "out of memory");
		return -1;
	}
	if (selection == NULL) {
		for (size_t i = 0; i < class->datum_count; i++) {
			if (class->datums[i].kind != DCI_KIND_NONE)
				(*datums)[count++] = &class->datums[i];
		}
		return (long)count;
	}
	rest = copy;
	while (rest != NULL && count < capacity) {
		const struct dci_datum *datum;

		name = rest;
		rest = strchr(rest, ',');
		if (rest != NULL)
			*rest++ = '\0';
		datum = name[0] == '\0'
		            ? NULL
		            : dci_class_find_datum_by_name(class, name);
		if (datum == NULL || datum->kind == DCI_KIND_NONE) {
			if (name[0] == '\0')
				snprintf(error, error_size,
				    "empty datum name in -d '%.200s'",
				    selection);
			else if (datum == NULL)
				snprintf(error, error_size,
				    "class %s has no datum '%.200s' (see "
				    "dcistat describe %s)",
				    class->label, name, class->label);
			else
				snprintf(error, error_size,
				    "datum '%.200s' of class %s has no "
				    "values (ST_UNUSED)",
				    name, class->label);
			free(copy);
			free(*datums);
			*datums = NULL;
			return -1;
		}
		(*datums)[count++] = datum;
	}
	free(copy);
	return (long)count;
}

enum cli_column_role
cli_values_role(const struct dci_datum *datum)
{
	switch (datum->kind) {
	case DCI_KIND_COUNTER64:
	case DCI_KIND_COUNTER32:
		return datum->info.semantics == DCI_SEMANTICS_COUNTER
		           ? CLI_COLUMN_COUNTER
		           : CLI_COLUMN_GAUGE;
	case DCI_KIND_GAUGE32:
	case DCI_KIND_INTEGER32:
	case DCI_KIND_TEXT_ONLY:
	case DCI_KIND_HUNDREDTHS:
	case DCI_KIND_TRUTHVALUE:
		return CLI_COLUMN_GAUGE;
	default:
		return CLI_COLUMN_TEXT;
	}
}

/* An integer shown with two decimals: a derived ratio, or a datum that
 * counts hundredths of a unit-less fraction (DCI_UNIT_HUNDREDTHS). */
static bool
shown_in_hundredths(const struct dci_datum *datum)
{
	return datum->kind == DCI_KIND_HUNDREDTHS ||
	       (datum->info.unit == DCI_UNIT_HUNDREDTHS &&
	           datum->info.presentation == DCI_SIP_DECIMAL &&
	           (datum->kind == DCI_KIND_COUNTER64 ||
	               datum->kind == DCI_KIND_COUNTER32 ||
	               datum->kind == DCI_KIND_GAUGE32 ||
	               datum->kind == DCI_KIND_INTEGER32 ||
	               datum->kind == DCI_KIND_TEXT_ONLY));
}

const char *
cli_values_unit(const struct dci_datum *datum)
{
	/* What is shown in hundredths is shown as the fraction it is. */
	if (datum->info.type == DCI_ST_DERIVED || shown_in_hundredths(datum))
		return "";
	return dci_value_unit_name(datum->info.unit);
}

bool
cli_values_number(const struct dci_datum *datum, const struct dci_value *value,
    char *text, size_t text_size)
{
	if (shown_in_hundredths(datum)) {
		bool is_signed = datum->kind == DCI_KIND_HUNDREDTHS ||
		                 datum->kind == DCI_KIND_INTEGER32 ||
		                 datum->kind == DCI_KIND_TEXT_ONLY;
		int64_t number = value->signed_number;

		if (is_signed)
			dci_value_format_hundredths(text, text_size, number < 0,
			    number < 0 ? 0 - (uint64_t)number
			               : (uint64_t)number);
		else
			dci_value_format_hundredths(
			    text, text_size, false, value->number);
		return true;
	}
	switch (datum->kind) {
	case DCI_KIND_COUNTER64:
	case DCI_KIND_COUNTER32:
	case DCI_KIND_GAUGE32:
	case DCI_KIND_TRUTHVALUE:
		snprintf(text, text_size, "%" PRIu64, value->number);
		return true;
	case DCI_KIND_INTEGER32:
	case DCI_KIND_TEXT_ONLY:
		snprintf(text, text_size, "%" PRId64, value->signed_number);
		return true;
	default:
		return false;
	}
}

int
cli_values_set_instance(struct cli_table *table, size_t row,
    const struct dci_class *class, const struct dci_snapshot *snapshot,
    size_t instance)
{
	char id[INSTANCE_ID_TEXT_SIZE];

	dci_instance_id_format(class,
	    dci_snapshot_instance_id(class, snapshot, instance), id,
	    sizeof(id));
	if (cli_table_set(table, row, 0, snapshot->instances[instance].label,
	        NULL) != 0 ||
	    cli_table_set(table, row, 1, id, NULL) != 0)
		return -1;
	return 0;
}

int
cli_values_set_value(struct cli_table *table, size_t row, size_t column,
    const struct dci_class *class, const struct dci_snapshot *snapshot,
    size_t instance, const struct dci_datum *datum)
{
	const unsigned char *slot;
	struct dci_value value;
	char number[64], small[256], *text = small;
	size_t needed;
	int result;

	if (!dci_snapshot_present(class, snapshot, instance, datum))
		return 0;
	slot = dci_snapshot_slot(class, snapshot, instance, datum);
	/* Nearly every rendering fits `small`; a long string (at most
	 * DCI_STRING_MAX) is rendered again into a buffer of its size. */
	needed = dci_value_render(&datum->info, slot, small, sizeof(small));
	if (needed >= sizeof(small)) {
		text = malloc(needed + 1);
		if (text == NULL)
			return -1;
		dci_value_render(&datum->info, slot, text, needed + 1);
	}
	dci_value_decode(&datum->info, slot, &value);
	result = cli_table_set(table, row, column, text,
	    cli_values_number(datum, &value, number, sizeof(number)) ? number
	                                                             : NULL);
	if (text != small)
		free(text);
	return result;
}

long
cli_values_find_instance(const struct dci_class *class,
    const struct dci_snapshot *snapshot, const char *name)
{
	char id[INSTANCE_ID_TEXT_SIZE];

	for (size_t i = 0; i < snapshot->count; i++) {
		if (strcmp(snapshot->instances[i].label, name) == 0)
			return (long)i;
	}
	for (size_t i = 0; i < snapshot->count; i++) {
		dci_instance_id_format(class,
		    dci_snapshot_instance_id(class, snapshot, i), id,
		    sizeof(id));
		if (strcmp(id, name) == 0)
			return (long)i;
	}
	return -1;
}

/* The parent cell of `row`: the parent's id, none for a root. */
static int
set_parent(struct cli_table *table, size_t row, const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance)
{
	const uint32_t *parent =
	    dci_snapshot_parent_id(class, snapshot, instance);
	char id[INSTANCE_ID_TEXT_SIZE];

	if (parent == NULL)
		return 0;
	dci_instance_id_format(class, parent, id, sizeof(id));
	return cli_table_set(table, row, 2, id, NULL);
}

/* The title of a class's table: "netif (class 1.1, 3 instances)". */
static void
class_title(const struct dci_class *class, const struct dci_snapshot *snapshot,
    char *title, size_t title_size)
{
	char id[DCI_CLASS_ID_MAX_LEVELS * 11 + 1];
	size_t count = snapshot != NULL ? snapshot->count : 0;

	dci_class_id_format(class, id, sizeof(id));
	snprintf(title, title_size, "%s (class %s, %zu instance%s)",
	    class->label, id, count, count == 1 ? "" : "s");
}

struct cli_table *
cli_values_show(const struct dci_class *class, const char *instance,
    const char *selection, char *error, size_t error_size)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	const struct dci_datum **datums;
	struct cli_table *table;
	char title[DCI_LABEL_MAX + 128];
	long count, only = -1;
	size_t first, last, datum_column;
	bool parents = snapshot != NULL && snapshot->parents != NULL;

	if (instance != NULL) {
		only = snapshot != NULL
		           ? cli_values_find_instance(class, snapshot, instance)
		           : -1;
		if (only < 0) {
			snprintf(error, error_size,
			    "class %s has no instance '%.200s'", class->label,
			    instance);
			return NULL;
		}
	}
	count = cli_values_select(class, selection, &datums, error, error_size);
	if (count < 0)
		return NULL;
	class_title(class, snapshot, title, sizeof(title));
	table = cli_table_new(class->label, title);
	if (table == NULL ||
	    cli_table_add_column(table, CLI_VALUES_INSTANCE_COLUMN,
	        CLI_COLUMN_KEY, NULL, "instance label") < 0 ||
	    cli_table_add_column(table, CLI_VALUES_ID_COLUMN, CLI_COLUMN_KEY,
	        NULL, "instance id") < 0)
		goto memory;
	/* A class whose instances form a tree (evcnt's parents) shows each
	 * one's parent, by id. */
	if (parents &&
	    cli_table_add_column(table, CLI_VALUES_PARENT_COLUMN,
	        CLI_COLUMN_TEXT, NULL, "the parent instance's id") < 0)
		goto memory;
	datum_column = parents ? 3 : 2;
	for (long i = 0; i < count; i++) {
		const struct dci_datum *datum = datums[i];

		if (cli_table_add_column(table, datum->info.label,
		        cli_values_role(datum), cli_values_unit(datum),
		        datum->info.description) < 0)
			goto memory;
	}
	first = only >= 0 ? (size_t)only : 0;
	last = only >= 0 ? (size_t)only + 1
	                 : (snapshot != NULL ? snapshot->count : 0);
	for (size_t instance_index = first; instance_index < last;
	     instance_index++) {
		long row = cli_table_add_row(table);

		if (row < 0 || cli_values_set_instance(table, (size_t)row,
		                   class, snapshot, instance_index) != 0)
			goto memory;
		if (parents && set_parent(table, (size_t)row, class, snapshot,
		                   instance_index) != 0)
			goto memory;
		for (long i = 0; i < count; i++) {
			if (cli_values_set_value(table, (size_t)row,
			        (size_t)i + datum_column, class, snapshot,
			        instance_index, datums[i]) != 0)
				goto memory;
		}
	}
	free(datums);
	return table;
memory:
	snprintf(error, error_size, "out of memory");
	cli_table_free(table);
	free(datums);
	return NULL;
}
