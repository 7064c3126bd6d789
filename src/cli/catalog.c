/* The catalogue commands' tables (catalog.h). */
#define _GNU_SOURCE
#include "cli/catalog.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "model/snapshot.h"
#include "model/value.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))
#define CLASS_ID_TEXT_SIZE (DCI_CLASS_ID_MAX_LEVELS * 11 + 1)

/* A monotonic time as a date: `text` "2026-11-24 18:02:11 UTC" and
 * `number` seconds since 1970 with milliseconds. */
static void
format_moment(int64_t milliseconds, int64_t now_milliseconds,
    int64_t now_realtime_milliseconds, char *text, size_t text_size,
    char *number, size_t number_size)
{
	int64_t realtime =
	    now_realtime_milliseconds - (now_milliseconds - milliseconds);
	time_t seconds = (time_t)(realtime / 1000);
	struct tm broken;

	if (gmtime_r(&seconds, &broken) == NULL ||
	    strftime(text, text_size, "%Y-%m-%d %H:%M:%S UTC", &broken) == 0)
		snprintf(text, text_size, "?");
	snprintf(number, number_size, "%" PRId64 ".%03" PRId64, realtime / 1000,
	    realtime % 1000);
}

/* Cell `column` of `row`: the moment `milliseconds` (format_moment), left
 * empty for 0 (never). Returns 0, or -1 out of memory. */
static int
set_moment(struct cli_table *table, size_t row, size_t column,
    int64_t milliseconds, int64_t now_milliseconds,
    int64_t now_realtime_milliseconds)
{
	char text[64], number[64];

	if (milliseconds == 0)
		return 0;
	format_moment(milliseconds, now_milliseconds, now_realtime_milliseconds,
	    text, sizeof(text), number, sizeof(number));
	return cli_table_set(table, row, column, text, number);
}

/* A table left half-filled when memory ran out: freed. Returns -1. */
static int
table_dropped(struct cli_table *table)
{
	cli_table_free(table);
	return -1;
}

int
cli_catalog_suppliers(struct cli_document *document,
    const struct dci_registry *registry, int64_t now_milliseconds,
    int64_t now_realtime_milliseconds)
{
	enum { MODULE, TITLE, VERSION, STATUS, RESET, STAMP, REFRESH, FAILURE };
	static const struct cli_column_spec columns[] = {
	    [MODULE] = {"module", CLI_COLUMN_KEY, NULL, "supplier module"},
	    [TITLE] = {"title", CLI_COLUMN_TEXT, NULL, NULL},
	    [VERSION] = {"version", CLI_COLUMN_TEXT, NULL, NULL},
	    [STATUS] = {"status", CLI_COLUMN_TEXT, NULL, NULL},
	    [RESET] = {"reset", CLI_COLUMN_GAUGE, "seconds",
	        "when the supplier was (re)initialised, seconds since 1970"},
	    [STAMP] = {"reset_stamp", CLI_COLUMN_TEXT, NULL, NULL},
	    [REFRESH] = {"last_refresh", CLI_COLUMN_GAUGE, "seconds",
	        "when the supplier was last refreshed, seconds since 1970"},
	    [FAILURE] = {"failure", CLI_COLUMN_TEXT, NULL, NULL},
	};
	struct cli_table *table = cli_table_new_with(
	    "suppliers", "suppliers", columns, COUNT_OF(columns));

	if (table == NULL)
		return -1;
	for (size_t i = 0; i < registry->supplier_count; i++) {
		const struct dci_supplier *supplier = registry->suppliers[i];
		char text[64], stamp[17];
		long row;

		if (supplier == NULL || supplier->withdrawn)
			continue;
		row = cli_table_add_row(table);
		if (row < 0)
			return table_dropped(table);
		snprintf(text, sizeof(text), "%" PRIu32 ".%02" PRIu32,
		    supplier->version / 100, supplier->version % 100);
		for (size_t b = 0; b < sizeof(supplier->reset); b++)
			snprintf(stamp + 2 * b, 3, "%02x", supplier->reset[b]);
		if (cli_table_set(table, (size_t)row, MODULE, supplier->module,
		        NULL) != 0 ||
		    cli_table_set(table, (size_t)row, TITLE,
		        supplier->title != NULL ? supplier->title : "",
		        NULL) != 0 ||
		    cli_table_set(table, (size_t)row, VERSION, text, NULL) !=
		        0 ||
		    cli_table_set(table, (size_t)row, STATUS,
		        supplier->status == DCI_SUPPLIER_RUNNING ? "running"
		                                                 : "failed",
		        NULL) != 0 ||
		    cli_table_set(table, (size_t)row, STAMP, stamp, NULL) !=
		        0 ||
		    (supplier->failure[0] != '\0' &&
		        cli_table_set(table, (size_t)row, FAILURE,
		            supplier->failure, NULL) != 0))
			return table_dropped(table);
		/* A reset time of 0: never initialised (a provider that
		 * failed to load). */
		if (set_moment(table, (size_t)row, RESET,
		        supplier->discontinuity_milliseconds, now_milliseconds,
		        now_realtime_milliseconds) != 0 ||
		    set_moment(table, (size_t)row, REFRESH,
		        supplier->last_refresh_milliseconds, now_milliseconds,
		        now_realtime_milliseconds) != 0)
			return table_dropped(table);
	}
	return cli_document_add(document, table);
}

/* "INTERFACE(4)" for each level, separated by spaces. */
static void
format_levels(const struct dci_class *class, char *text, size_t text_size)
{
	size_t used = 0;

	text[0] = '\0';
	for (size_t i = 0; i < class->level_count && used < text_size; i++) {
		int n = snprintf(text + used, text_size - used,
		    "%s%s(%" PRIu32 ")", i > 0 ? " " : "",
		    dci_instance_type_name(class->levels[i].itype),
		    class->levels[i].size);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

int
cli_catalog_classes(struct cli_document *document,
    const struct dci_registry *registry, const struct dci_class *only)
{
	enum { LABEL, ID, SUPPLIER, LEVELS, DATUMS, INSTANCES, DESCRIPTION };
	static const struct cli_column_spec columns[] = {
	    [LABEL] = {"class", CLI_COLUMN_KEY, NULL, NULL},
	    [ID] = {"id", CLI_COLUMN_KEY, NULL, NULL},
	    [SUPPLIER] = {"supplier", CLI_COLUMN_TEXT, NULL, NULL},
	    [LEVELS] = {"levels", CLI_COLUMN_TEXT, NULL,
	        "instance levels: type(bytes)"},
	    [DATUMS] = {"datums", CLI_COLUMN_GAUGE, NULL,
	        "datums of the class"},
	    [INSTANCES] = {"instances", CLI_COLUMN_GAUGE, NULL,
	        "instances in the class's snapshot"},
	    [DESCRIPTION] = {"description", CLI_COLUMN_TEXT, NULL, NULL},
	};
	struct cli_table *table = cli_table_new_with(
	    "classes", "classes", columns, COUNT_OF(columns));

	if (table == NULL)
		return -1;
	/* Without a registry, the one class `only`. */
	size_t count = registry != NULL ? registry->class_count : 1;

	for (size_t i = 0; i < count; i++) {
		const struct dci_class *class =
		    registry != NULL ? registry->classes[i] : only;
		char id[CLASS_ID_TEXT_SIZE], levels[512], datums[32],
		    instances[32];
		long row;

		if (only != NULL && class != only)
			continue;
		row = cli_table_add_row(table);
		if (row < 0)
			return table_dropped(table);
		dci_class_id_format(class, id, sizeof(id));
		format_levels(class, levels, sizeof(levels));
		snprintf(datums, sizeof(datums), "%zu", class->datum_count);
		snprintf(instances, sizeof(instances), "%zu",
		    class->snapshot != NULL ? class->snapshot->count : 0);
		if (cli_table_set(
		        table, (size_t)row, LABEL, class->label, NULL) != 0 ||
		    cli_table_set(table, (size_t)row, ID, id, NULL) != 0 ||
		    cli_table_set(table, (size_t)row, SUPPLIER,
		        class->supplier != NULL ? class->supplier->module : "",
		        NULL) != 0 ||
		    cli_table_set(table, (size_t)row, LEVELS, levels, NULL) !=
		        0 ||
		    cli_table_set(table, (size_t)row, DATUMS, datums, datums) !=
		        0 ||
		    cli_table_set(table, (size_t)row, INSTANCES, instances,
		        instances) != 0 ||
		    cli_table_set(table, (size_t)row, DESCRIPTION,
		        class->description != NULL ? class->description : "",
		        NULL) != 0)
			return table_dropped(table);
	}
	return cli_document_add(document, table);
}

/* The table "LABEL_WHAT" titled "LABEL: TITLE" of a class's description;
 * NULL when out of memory. */
static struct cli_table *
class_table(const struct dci_class *class, const char *what,
    const char *title_text, const struct cli_column_spec *columns, size_t count)
{
	char name[DCI_LABEL_MAX + 16], title[DCI_LABEL_MAX + 64];

	snprintf(name, sizeof(name), "%s_%s", class->label, what);
	snprintf(title, sizeof(title), "%s: %s", class->label, title_text);
	return cli_table_new_with(name, title, columns, count);
}

static int
describe_levels(struct cli_document *document, const struct dci_class *class)
{
	static const struct cli_column_spec columns[] = {
	    {"level", CLI_COLUMN_KEY, NULL, NULL},
	    {"itype", CLI_COLUMN_TEXT, NULL, NULL},
	    {"size", CLI_COLUMN_GAUGE, "bytes",
	        "bytes of the level in an instance id"},
	};
	struct cli_table *table = class_table(
	    class, "levels", "instance levels", columns, COUNT_OF(columns));

	if (table == NULL)
		return -1;
	for (size_t i = 0; i < class->level_count; i++) {
		char level[24], size[16];
		long row = cli_table_add_row(table);

		snprintf(level, sizeof(level), "%zu", i + 1);
		snprintf(size, sizeof(size), "%" PRIu32, class->levels[i].size);
		if (row < 0 ||
		    cli_table_set(table, (size_t)row, 0, level, NULL) != 0 ||
		    cli_table_set(table, (size_t)row, 1,
		        dci_instance_type_name(class->levels[i].itype),
		        NULL) != 0 ||
		    cli_table_set(table, (size_t)row, 2, size, size) != 0)
			return table_dropped(table);
	}
	return cli_document_add(document, table);
}

static int
describe_datums(struct cli_document *document, const struct dci_class *class)
{
	static const struct cli_column_spec columns[] = {
	    {"datum", CLI_COLUMN_KEY, NULL, NULL},
	    {"id", CLI_COLUMN_KEY, NULL, NULL},
	    {"type", CLI_COLUMN_TEXT, NULL, NULL},
	    {"format", CLI_COLUMN_TEXT, NULL, NULL},
	    {"presentation", CLI_COLUMN_TEXT, NULL, NULL},
	    {"size", CLI_COLUMN_TEXT, NULL, NULL},
	    {"volatility", CLI_COLUMN_TEXT, NULL, NULL},
	    {"unit", CLI_COLUMN_TEXT, NULL, NULL},
	    {"semantics", CLI_COLUMN_TEXT, NULL, NULL},
	    {"description", CLI_COLUMN_TEXT, NULL, NULL},
	};
	struct cli_table *table =
	    class_table(class, "datums", "datums", columns, COUNT_OF(columns));

	if (table == NULL)
		return -1;
	for (size_t i = 0; i < class->datum_count; i++) {
		const struct dci_datum *datum = &class->datums[i];
		const struct dci_datum_info *info = &datum->info;
		char id[16], size[16], derivation[64];
		const char *unit = dci_value_unit_name(info->unit);
		const char *cells[8];
		long row = cli_table_add_row(table);

		if (row < 0)
			return table_dropped(table);
		snprintf(id, sizeof(id), "%" PRIu32, info->id);
		snprintf(size, sizeof(size), "%" PRIu32, info->size);
		cells[0] = dci_value_type_name(info->type);
		cells[1] = dci_value_format_name(info);
		cells[2] = dci_value_presentation_name(info);
		cells[3] = size;
		cells[4] = dci_value_volatility_name(info->volatility);
		/* A derived datum's unit names its derivation. */
		if (info->type == DCI_ST_DERIVED)
			snprintf(
			    derivation, sizeof(derivation), "derived %s", unit);
		cells[5] = info->type == DCI_ST_DERIVED ? derivation : unit;
		cells[6] = info->type == DCI_ST_UNUSED
		               ? ""
		               : dci_value_semantics_name(info->semantics);
		cells[7] = info->description != NULL ? info->description : "";
		if (cli_table_set(table, (size_t)row, 0, info->label, NULL) !=
		        0 ||
		    cli_table_set(table, (size_t)row, 1, id, NULL) != 0)
			return table_dropped(table);
		for (size_t c = 0; c < 8; c++) {
			if (cli_table_set(
			        table, (size_t)row, c + 2, cells[c], NULL) != 0)
				return table_dropped(table);
		}
	}
	return cli_document_add(document, table);
}

int
cli_catalog_describe(
    struct cli_document *document, const struct dci_class *class)
{
	return cli_catalog_classes(document, NULL, class) != 0 ||
	               describe_levels(document, class) != 0 ||
	               describe_datums(document, class) != 0
	           ? -1
	           : 0;
}
