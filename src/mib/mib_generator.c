/*
 * The MIB generator: see mib_generator.h for what the module says.
 *
 * The second pass: the plan (mib_plan.c) has named and checked every
 * object, so this file only writes the text into a memory stream, in the
 * registry's order, so equal registries give equal text.
 */
#define _GNU_SOURCE
#include "mib/mib_generator.h"
#include "mib/mib_plan.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))
#include "model/derived.h"
#include "model/value.h"

/* Text lines of the module stay within this width. */
#define MIB_LINE_WIDTH 72

/* What an instance level identifies, for the index object's
 * DESCRIPTION. */
static const char *
itype_phrase(enum dci_instance_type itype)
{
	switch (itype) {
	case DCI_ITYPE_SINGLEINST:
		return "the single instance of the class (UMA_SINGLEINST)";
	case DCI_ITYPE_PROCESSOR:
		return "a processor number (UMA_PROCESSOR)";
	case DCI_ITYPE_DISKID:
		return "a disk identifier (UMA_DISKID)";
	case DCI_ITYPE_BUCKET_NO:
		return "a bucket number (UMA_BUCKET_NO)";
	case DCI_ITYPE_DEVICE:
		return "a device number (UMA_DEVICE)";
	case DCI_ITYPE_CHANNEL:
		return "a channel number (UMA_CHANNEL)";
	case DCI_ITYPE_CONTROLLERID:
		return "a controller identifier (UMA_CONTROLLERID)";
	case DCI_ITYPE_IPADDR:
		return "an IP address (UMA_IPADDR)";
	case DCI_ITYPE_INTERFACE:
		return "a network interface, by its ifIndex: the value of "
		       "ifIndex in IF-MIB's ifTable for the same interface";
	case DCI_ITYPE_EVENT:
		return "an event counter";
	}
	return "an instance level of a type this dcistatd does not name";
}

/* --- Writing -------------------------------------------------------
 */

/* Writes `text` with what a quoted SMI string cannot hold replaced: '"'
 * by '\'', other non-printing or non-ASCII characters by a blank. */
static void
put_clean(FILE *out, const char *text)
{
	for (const char *cursor = text; *cursor != '\0'; cursor++) {
		unsigned char c = (unsigned char)*cursor;

		if (c == '"')
			c = '\'';
		else if (c < 0x20 || c > 0x7e)
			c = ' ';
		fputc(c, out);
	}
}

/* put_clean, then a full stop unless the text ends a sentence. */
static void
put_sentence(FILE *out, const char *text)
{
	size_t length = strlen(text);

	while (length > 0 && text[length - 1] == ' ')
		length--;
	for (size_t i = 0; i < length; i++) {
		char one[2] = {text[i], '\0'};
		put_clean(out, one);
	}
	if (length == 0 || strchr(".!?", text[length - 1]) == NULL)
		fputc('.', out);
}

/* The description a provider gave (put_sentence), or `fallback` and the
 * label, as "The datum rx_bytes.", without one. */
static void
put_given_description(
    FILE *out, const char *description, const char *fallback, const char *label)
{
	if (description != NULL && description[0] != '\0') {
		put_sentence(out, description);
		return;
	}
	fputs(fallback, out);
	put_clean(out, label);
	fputs(".", out);
}

/* Writes a quoted string (a DESCRIPTION's) at eight blanks, filled to
 * MIB_LINE_WIDTH. A newline in `text` separates paragraphs (an empty line
 * in the string); runs of blanks become one. */
static void
put_quoted(FILE *out, const char *text)
{
	size_t column = 0;
	bool line_empty = true;
	const char *cursor = text;

	fputs("        \"", out);
	column = 9;
	while (*cursor != '\0') {
		size_t length;

		if (*cursor == '\n') {
			fputs("\n\n         ", out);
			column = 9;
			line_empty = true;
			cursor++;
			continue;
		}
		if (*cursor == ' ') {
			cursor++;
			continue;
		}
		length = strcspn(cursor, " \n");
		if (!line_empty && column + 1 + length + 1 > MIB_LINE_WIDTH) {
			fputs("\n         ", out);
			column = 9;
			line_empty = true;
		}
		if (!line_empty) {
			fputc(' ', out);
			column++;
		}
		fwrite(cursor, 1, length, out);
		column += length;
		line_empty = false;
		cursor += length;
	}
	fputs("\"\n", out);
}

/* A comma-separated list of names, wrapped at `indent` blanks. */
static void
put_list(FILE *out, const char *const *names, size_t count, size_t indent)
{
	size_t column = 0;

	for (size_t i = 0; i < count; i++) {
		size_t length = strlen(names[i]) + (i + 1 < count ? 1 : 0);

		if (column == 0 || column + 1 + length > MIB_LINE_WIDTH) {
			if (column != 0)
				fputc('\n', out);
			fprintf(out, "%*s", (int)indent, "");
			column = indent;
		} else {
			fputc(' ', out);
			column++;
		}
		fprintf(out, "%s%s", names[i], i + 1 < count ? "," : "");
		column += length;
	}
	fputc('\n', out);
}

/* One name of an IMPORTS clause: imported when the MIB uses `flag`
 * (enum mib_import), always for 0. */
struct mib_import_name {
	unsigned flag;
	const char *name;
};

static const struct mib_import_name smi_names[] = {
    {0, "MODULE-IDENTITY"},
    {0, "OBJECT-TYPE"},
    {MIB_IMPORT_INTEGER32, "Integer32"},
    {0, "Unsigned32"}, /* every index */
    {MIB_IMPORT_GAUGE32, "Gauge32"},
    {MIB_IMPORT_COUNTER32, "Counter32"},
    {MIB_IMPORT_COUNTER64, "Counter64"},
    {MIB_IMPORT_IPADDRESS, "IpAddress"},
    {MIB_IMPORT_TIMETICKS, "TimeTicks"},
};

static const struct mib_import_name tc_names[] = {
    {MIB_IMPORT_DISPLAYSTRING, "DisplayString"},
    {MIB_IMPORT_MACADDRESS, "MacAddress"},
    {MIB_IMPORT_TRUTHVALUE, "TruthValue"},
    {MIB_IMPORT_TIMESTAMP, "TimeStamp"},
};

static const struct mib_import_name conf_names[] = {
    {0, "MODULE-COMPLIANCE"},
    {0, "OBJECT-GROUP"},
};

static const struct mib_import_name dci_names[] = {
    {0, "dciClassData"},
    {0, "dciClassModules"},
    {MIB_IMPORT_GAUGE64, "DciGauge64"},
    {MIB_IMPORT_HUNDREDTHS, "DciHundredths"},
};

/* The names of `candidates` that `imports` needs, then "FROM module";
 * nothing when it needs none. */
static void
put_import_from(FILE *out, unsigned imports,
    const struct mib_import_name *candidates, size_t candidate_count,
    const char *module)
{
	const char *names[16];
	size_t count = 0;

	for (size_t i = 0; i < candidate_count && count < 16; i++)
		if (candidates[i].flag == 0 || (imports & candidates[i].flag))
			names[count++] = candidates[i].name;
	if (count == 0)
		return;
	put_list(out, names, count, 4);
	fprintf(out, "        FROM %s\n", module);
}

static void
put_imports(FILE *out, unsigned imports)
{
	fputs("IMPORTS\n", out);
	put_import_from(
	    out, imports, smi_names, COUNT_OF(smi_names), "SNMPv2-SMI");
	put_import_from(
	    out, imports, tc_names, COUNT_OF(tc_names), "SNMPv2-TC");
	put_import_from(
	    out, imports, conf_names, COUNT_OF(conf_names), "SNMPv2-CONF");
	put_import_from(
	    out, imports, dci_names, COUNT_OF(dci_names), "DCI-STATS-MIB;");
	fputs("\n", out);
}

/* What a description function gets: any of these may be NULL when it
 * does not need them. */
struct mib_context {
	bool *failed; /* set when a description could not be made */
	const struct mib_generator *generator;
	const struct mib_class *plan;
	const struct mib_column *column;
};

/* Writes a DESCRIPTION's text, composed by `describe` into a memory
 * stream, as a quoted string. */
static void
put_description(FILE *out, void (*describe)(FILE *, const struct mib_context *),
    const struct mib_context *context)
{
	char *text = NULL;
	size_t size = 0;
	FILE *stream = open_memstream(&text, &size);

	if (stream != NULL) {
		describe(stream, context);
		if (fclose(stream) == 0) {
			put_quoted(out, text);
			free(text);
			return;
		}
	}
	free(text);
	/* Out of memory: the stream `out` cannot tell, so say it. */
	*context->failed = true;
}

static void
describe_module(FILE *stream, const struct mib_context *context)
{
	const struct mib_generator *generator = context->generator;

	fprintf(stream,
	    "The per-class tables that dcistatd serves under dciClassData of "
	    "DCI-STATS-MIB for the class%s ",
	    generator->class_count > 1 ? "es" : "");
	for (size_t i = 0; i < generator->class_count; i++) {
		const struct mib_class *plan = &generator->classes[i];

		fputs(i == 0                            ? ""
		      : i + 1 == generator->class_count ? " and "
		                                        : ", ",
		    stream);
		put_clean(stream, plan->class->label);
		fprintf(stream, " (%s)", plan->id_text);
	}
	fputs(": one table per class, one row per instance, one column per "
	      "datum. The values are those of dciStatTable, typed by "
	      "column.\n",
	    stream);
	if (generator->skipped_count > 0) {
		fputs("Classes without a datum SNMP can carry have no table: ",
		    stream);
		for (size_t i = 0; i < generator->skipped_count; i++) {
			char id[DCI_CLASS_ID_MAX_LEVELS * 11 + 1];

			dci_class_id_format(
			    generator->skipped[i], id, sizeof(id));
			fputs(i == 0 ? "" : ", ", stream);
			put_clean(stream, generator->skipped[i]->label);
			fprintf(stream, " (%s)", id);
		}
		fputs(".\n", stream);
	}
	fprintf(stream,
	    "Generated by dcistatd's MIB generator from the classes the "
	    "providers of its configuration registered; regenerate it rather "
	    "than edit it. The module identity is dciClassModules followed by "
	    "the class id of the first class (%s).",
	    generator->classes[0].id_text);
}

static void
put_identity(FILE *out, struct mib_generator *generator)
{
	struct mib_context context = {
	    .failed = &generator->write_failed,
	    .generator = generator,
	};

	fprintf(out,
	    "%s MODULE-IDENTITY\n"
	    "    LAST-UPDATED \"%s\"\n"
	    "    ORGANIZATION \"dcistat project\"\n"
	    "    CONTACT-INFO\n",
	    generator->identity, AGENT_MIB_REVISION);
	put_quoted(out,
	    "The dcistat project. This module is generated by dcistatd from "
	    "what its providers register: report a problem with it to the "
	    "maintainers of the provider, or of dcistat.");
	fputs("    DESCRIPTION\n", out);
	put_description(out, describe_module, &context);
	fprintf(out,
	    "    REVISION     \"%s\"\n"
	    "    DESCRIPTION\n",
	    AGENT_MIB_REVISION);
	put_quoted(out, "Generated by dcistatd.");
	fprintf(out, "    ::= { %s %" PRIu32 " }\n\n",
	    generator->identity_parent, generator->identity_number);
}

static void
put_arcs(FILE *out, const struct mib_generator *generator)
{
	for (size_t i = 0; i < generator->arc_count; i++) {
		const struct mib_arc *arc = &generator->arcs[i];

		fprintf(out, "%s OBJECT IDENTIFIER ::= { %s %" PRIu32 " }\n",
		    arc->descriptor, arc->parent, arc->number);
	}
	fprintf(out,
	    "%s OBJECT IDENTIFIER ::= { %s 1 }\n"
	    "%s OBJECT IDENTIFIER ::= { %s 1 }\n"
	    "%s OBJECT IDENTIFIER ::= { %s 2 }\n\n",
	    generator->conformance, generator->identity, generator->compliances,
	    generator->conformance, generator->groups, generator->conformance);
}

/* The label of the datum an argument byte of a derived datum names. */
static const char *
derived_argument_label(const struct dci_class *class, uint32_t byte)
{
	for (size_t i = 0; i < class->datum_count; i++) {
		const struct dci_datum *datum = &class->datums[i];

		if (datum->info.type != DCI_ST_DERIVED &&
		    (datum->info.id & 0xffu) == byte)
			return datum->info.label;
	}
	return "(no such datum)";
}

static void
put_derivation(
    FILE *stream, const struct dci_class *class, const struct dci_datum *datum)
{
	enum dci_unit derivation = datum->info.unit;
	size_t arity = dci_derived_arity(derivation);
	const char *names[DCI_DERIVED_ARGUMENTS_MAX] = {"", "", ""};
	const char *formula = NULL;

	for (size_t i = 0; i < arity && i < DCI_DERIVED_ARGUMENTS_MAX; i++)
		names[i] = derived_argument_label(
		    class, dci_derived_argument_byte(datum->info.id, i));
	fputs("Derived by dcistatd from other datums of the same instance "
	      "at every refresh: ",
	    stream);
	put_clean(stream, dci_value_unit_name(derivation));
	fputs(" of ", stream);
	for (size_t i = 0; i < arity; i++) {
		fputs(i == 0 ? "" : i + 1 == arity ? " and " : ", ", stream);
		put_clean(stream, names[i]);
	}
	/* A, B and C stand for the arguments. */
	switch (derivation) {
	case DCI_UNIT_DERIVED_SUM2:
		formula = "A + B";
		break;
	case DCI_UNIT_DERIVED_SUM3:
		formula = "A + B + C";
		break;
	case DCI_UNIT_DERIVED_DIFFERENCE:
		formula = "A - B";
		break;
	case DCI_UNIT_DERIVED_AVERAGE:
		formula = "A / B";
		break;
	case DCI_UNIT_DERIVED_PERCENT:
		formula = "100 * A / (A + B)";
		break;
	case DCI_UNIT_DERIVED_PRODUCT:
		formula = "A * B";
		break;
	case DCI_UNIT_DERIVED_VARIANCE:
		formula = "C / A - (B / A)^2";
		break;
	default:
		break;
	}
	if (formula != NULL) {
		fputs(" (", stream);
		for (const char *cursor = formula; *cursor != '\0'; cursor++) {
			if (*cursor >= 'A' && *cursor <= 'C')
				put_clean(stream, names[*cursor - 'A']);
			else
				fputc(*cursor, stream);
		}
		fputs(")", stream);
	}
	fputs(datum->kind == DCI_KIND_HUNDREDTHS ? ", in hundredths" : "",
	    stream);
	fputs(". It has no value while the result is undefined or out of "
	      "range: a division by zero, an overflow, an argument without "
	      "a value. ",
	    stream);
}

static void
describe_datum(FILE *stream, const struct mib_context *context)
{
	const struct mib_class *plan = context->plan;
	const struct dci_datum *datum = context->column->datum;
	const struct dci_datum_info *info = &datum->info;
	const char *unit = dci_value_unit_name(info->unit);

	put_given_description(
	    stream, info->description, "The datum ", info->label);
	fputs("\nDatum ", stream);
	put_clean(stream, info->label);
	fprintf(stream, " (dciDatumId %" PRIu32 ") of class ", info->id);
	put_clean(stream, plan->class->label);
	if (info->type != DCI_ST_DERIVED && unit[0] != '\0' &&
	    datum->kind != DCI_KIND_TIMETICKS) {
		fputs("; units: ", stream);
		put_clean(stream, unit);
	}
	fputs(". ", stream);
	if (info->type == DCI_ST_DERIVED)
		put_derivation(stream, plan->class, datum);
	switch (datum->kind) {
	case DCI_KIND_TIMETICKS:
		if (info->type == DCI_ST_TIME &&
		    info->presentation == DCI_STP_ABSOLUTE)
			fputs("A moment, served as the value of sysUpTime at "
			      "that moment: 0 when it was before dcistatd "
			      "started, or when the datum gives no time. ",
			    stream);
		else
			fputs("A period, in hundredths of a second. ", stream);
		break;
	case DCI_KIND_TEXT_ONLY:
		fputs("A signed 64-bit integer, which SNMP has no type for: "
		      "served as text, as the datum's presentation renders "
		      "it. ",
		    stream);
		break;
	case DCI_KIND_STRING:
		if (info->type == DCI_ST_ADDRESS)
			fputs("An Econet address: the network number, then "
			      "the station number. ",
			    stream);
		break;
	case DCI_KIND_COUNTER32:
		/* The registry serves these as 32-bit counters. */
		if (datum->provided_size != 0)
			fprintf(stream,
			    "The provider counts in %u bits; dcistatd extends "
			    "the count to 32 bits from one refresh to the "
			    "next, so it wraps after 4294967295 as a "
			    "Counter32 does. ",
			    8 * datum->provided_size);
		break;
	default:
		break;
	}
	switch (info->semantics) {
	case DCI_SEMANTICS_COUNTER:
		fputs("A counter: only the difference between two readings "
		      "means something, and only when dciInstanceDiscontinuity "
		      "of DCI-STATS-MIB for the instance did not change "
		      "between them.",
		    stream);
		break;
	case DCI_SEMANTICS_GAUGE:
		fputs("A gauge: each reading means something on its own.",
		    stream);
		break;
	default:
		fputs("A discrete value (a state, a name, an address or a "
		      "time): each reading means something on its own.",
		    stream);
		break;
	}
}

static void
describe_index(FILE *stream, const struct mib_context *context)
{
	const struct mib_column *column = context->column;
	const struct dci_class *class = context->plan->class;
	const struct dci_instance_level *level = &class->levels[column->level];

	fprintf(stream,
	    "Word %zu of the instance identifier of an instance of "
	    "class ",
	    column->word + 1);
	put_clean(stream, class->label);
	fprintf(stream, ": instance level %zu, ", column->level + 1);
	if (level->size > 4)
		fprintf(stream, "its word %zu of %" PRIu32 ", ",
		    column->level_word + 1, level->size / 4);
	fprintf(stream, "%s.\n", itype_phrase(level->itype));
	fprintf(stream,
	    "An index only, never served. Its column number is one of the "
	    "largest below 2^31 that no datum of the class has; it may "
	    "change when the class gains datums, which changes no object "
	    "served.");
}

static void
describe_table(FILE *stream, const struct mib_context *context)
{
	const struct mib_class *plan = context->plan;
	const struct dci_class *class = plan->class;

	put_given_description(stream, class->description,
	    "The statistics of class ", class->label);
	fputs("\nOne row per instance of class ", stream);
	put_clean(stream, class->label);
	fprintf(stream, " (class id %s", plan->id_text);
	if (class->supplier != NULL) {
		fputs(", supplier ", stream);
		put_clean(stream, class->supplier->module);
	}
	fprintf(stream,
	    "), as dciInstanceTable of DCI-STATS-MIB lists them, and one "
	    "column per datum, numbered by its dciDatumId. A column exists in "
	    "a row only while the supplier gives that datum a value for that "
	    "instance. Served by dcistatd at dciClassData.%s.",
	    plan->id_text);
}

static void
describe_entry(FILE *stream, const struct mib_context *context)
{
	fputs("One instance of class ", stream);
	put_clean(stream, context->plan->class->label);
	fputs(". Its index is the instance identifier, one sub-identifier "
	      "per 4-octet word: the dciInstanceId of the instance without "
	      "its length prefix.",
	    stream);
}

/* INDEX { a, b, c }, wrapped under the first name. */
static void
put_index_clause(FILE *out, const struct mib_class *plan)
{
	size_t column = 18;

	fputs("    INDEX       { ", out);
	for (size_t i = 0; i < plan->index_count; i++) {
		const char *name = plan->columns[plan->index[i]].descriptor;
		size_t length = strlen(name) + 2; /* "," or " }" */

		if (i > 0 && column + 1 + length > MIB_LINE_WIDTH) {
			fputs("\n                  ", out);
			column = 18;
		} else if (i > 0) {
			fputc(' ', out);
			column++;
		}
		fprintf(
		    out, "%s%s", name, i + 1 < plan->index_count ? "," : "");
		column += length - 1;
	}
	fputs(" }\n", out);
}

/* The head of a table's or entry's OBJECT-TYPE, up to its DESCRIPTION:
 * `name`, of SYNTAX `syntax_prefix` and `type`, not accessible. */
static void
put_not_accessible_head(
    FILE *out, const char *name, const char *syntax_prefix, const char *type)
{
	fprintf(out,
	    "%s OBJECT-TYPE\n"
	    "    SYNTAX      %s%s\n"
	    "    MAX-ACCESS  not-accessible\n"
	    "    STATUS      current\n"
	    "    DESCRIPTION\n",
	    name, syntax_prefix, type);
}

static void
put_class(
    FILE *out, struct mib_generator *generator, const struct mib_class *plan)
{
	const struct dci_class *class = plan->class;
	struct mib_context context = {
	    .failed = &generator->write_failed,
	    .generator = generator,
	    .plan = plan,
	};
	size_t width = 0;

	put_not_accessible_head(out, plan->table, "SEQUENCE OF ", plan->type);
	put_description(out, describe_table, &context);
	fprintf(out, "    ::= { %s %" PRIu32 " }\n\n", plan->table_parent,
	    class->id[class->id_length - 1]);

	put_not_accessible_head(out, plan->entry, "", plan->type);
	put_description(out, describe_entry, &context);
	put_index_clause(out, plan);
	fprintf(out, "    ::= { %s 1 }\n\n", plan->table);

	for (size_t i = 0; i < plan->column_count; i++) {
		size_t length = strlen(plan->columns[i].descriptor);
		if (length > width)
			width = length;
	}
	fprintf(out, "%s ::= SEQUENCE {\n", plan->type);
	for (size_t i = 0; i < plan->column_count; i++)
		fprintf(out, "    %-*s  %s%s\n", (int)width,
		    plan->columns[i].descriptor,
		    plan->columns[i].sequence_syntax,
		    i + 1 < plan->column_count ? "," : "");
	fputs("}\n\n", out);

	for (size_t i = 0; i < plan->column_count; i++) {
		const struct mib_column *column = &plan->columns[i];
		const struct dci_datum *datum = column->datum;
		const char *unit =
		    datum != NULL ? dci_value_unit_name(datum->info.unit) : "";

		fprintf(out, "%s OBJECT-TYPE\n    SYNTAX      %s\n",
		    column->descriptor, column->syntax);
		if (datum != NULL && datum->info.type != DCI_ST_DERIVED &&
		    datum->kind != DCI_KIND_TIMETICKS && unit[0] != '\0')
			fprintf(out, "    UNITS       \"%s\"\n", unit);
		fprintf(out,
		    "    MAX-ACCESS  %s\n"
		    "    STATUS      current\n"
		    "    DESCRIPTION\n",
		    datum != NULL ? "read-only" : "not-accessible");
		context.column = column;
		put_description(out,
		    datum != NULL ? describe_datum : describe_index, &context);
		fprintf(out, "    ::= { %s %" PRIu32 " }\n\n", plan->entry,
		    column->number);
	}
}

static void
describe_group(FILE *stream, const struct mib_context *context)
{
	fprintf(stream, "The columns of %s: the datums of class ",
	    context->plan->table);
	put_clean(stream, context->plan->class->label);
	fputs(".", stream);
}

static void
put_conformance(FILE *out, struct mib_generator *generator)
{
	struct mib_context context = {
	    .failed = &generator->write_failed,
	    .generator = generator,
	};
	const char **names;

	fprintf(out,
	    "%s MODULE-COMPLIANCE\n"
	    "    STATUS      current\n"
	    "    DESCRIPTION\n",
	    generator->compliance);
	put_quoted(out,
	    "The compliance statement for dcistatd serving the tables of "
	    "this module. Every object is read-only; a column has a value "
	    "only in the rows of the instances its supplier gives one.");
	fputs("    MODULE      -- this module\n"
	      "        MANDATORY-GROUPS {\n",
	    out);
	names = calloc(generator->class_count, sizeof(*names));
	if (names == NULL) {
		generator->write_failed = true;
		return;
	}
	for (size_t i = 0; i < generator->class_count; i++)
		names[i] = generator->classes[i].group;
	put_list(out, names, generator->class_count, 12);
	free(names);
	fprintf(out, "        }\n    ::= { %s 1 }\n\n", generator->compliances);

	for (size_t i = 0; i < generator->class_count; i++) {
		const struct mib_class *plan = &generator->classes[i];
		size_t count = 0;

		names = calloc(plan->column_count, sizeof(*names));
		if (names == NULL) {
			generator->write_failed = true;
			return;
		}
		for (size_t c = 0; c < plan->column_count; c++)
			if (plan->columns[c].datum != NULL)
				names[count++] = plan->columns[c].descriptor;
		fprintf(
		    out, "%s OBJECT-GROUP\n    OBJECTS     {\n", plan->group);
		put_list(out, names, count, 8);
		free(names);
		fputs("    }\n"
		      "    STATUS      current\n"
		      "    DESCRIPTION\n",
		    out);
		context.plan = plan;
		put_description(out, describe_group, &context);
		fprintf(
		    out, "    ::= { %s %zu }\n\n", generator->groups, i + 1);
	}
}

static int
write_module(struct mib_generator *generator, char **text)
{
	size_t size = 0;
	FILE *out = open_memstream(text, &size);

	if (out == NULL)
		return -1;
	fprintf(out,
	    "%s DEFINITIONS ::= BEGIN\n\n"
	    "-- Generated by dcistatd's MIB generator from the classes the\n"
	    "-- providers of its configuration registered. Do not edit it:\n"
	    "-- regenerate it (in the dcistat sources: make mibs).\n\n",
	    generator->module_name);
	put_imports(out, generator->imports);
	put_identity(out, generator);
	put_arcs(out, generator);
	for (size_t i = 0; i < generator->class_count; i++)
		put_class(out, generator, &generator->classes[i]);
	put_conformance(out, generator);
	fputs("END\n", out);
	if (ferror(out) || generator->write_failed) {
		fclose(out);
		return -1;
	}
	return fclose(out) == 0 ? 0 : -1;
}

char *
mib_generator_generate(const struct dci_registry *registry,
    const char *module_name, char *error, size_t error_size)
{
	struct mib_generator generator = {
	    .registry = registry,
	    .module_name = module_name,
	    .error = error,
	    .error_size = error_size,
	};
	char *text = NULL;

	if (module_name == NULL) {
		log_reason(error, error_size, "module name is empty");
		return NULL;
	}
	if (mib_plan_make(&generator) == 0 &&
	    write_module(&generator, &text) != 0) {
		free(text);
		text = NULL;
		log_reason(
		    error, error_size, "out of memory writing the module");
	}
	mib_plan_release(&generator);
	return text;
}
