/*
 * The MIB generator's first pass (mib_plan.h): names everything
 * (descriptors, index columns and their numbers, arcs) and checks the
 * names, so that an error leaves no half-written module; the writers
 * (mib_generator.c, prometheus_generator.c) then walk the plan. Everything
 * is taken in the registry's order (classes by id, datums by id), so equal
 * registries give equal names.
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

#include "model/derived.h"
#include "base/log.h"
#include "model/value.h"

/* Index columns take the largest numbers below 2^31 that no datum has:
 * Net-SNMP's MIB parser reads sub-identifiers of 2^31 and above as
 * negative numbers. */
#define MIB_INDEX_COLUMN_TOP 2147483647u

/* --- Small helpers ---------------------------------------------------------
 * ASCII only, on purpose: the output must not depend on the locale. */

static bool
ascii_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool
ascii_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool
ascii_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
ascii_alnum(char c)
{
	return ascii_upper(c) || ascii_lower(c) || ascii_digit(c);
}

static char
ascii_to_upper(char c)
{
	return ascii_lower(c) ? (char)(c - 'a' + 'A') : c;
}

static char
ascii_to_lower(char c)
{
	return ascii_upper(c) ? (char)(c - 'A' + 'a') : c;
}

static bool
ascii_equal_ignoring_case(const char *left, const char *right)
{
	for (; *left != '\0' && *right != '\0'; left++, right++)
		if (ascii_to_lower(*left) != ascii_to_lower(*right))
			return false;
	return *left == *right;
}

/* Formats a descriptor into `out` (MIB_NAME_SIZE bytes). Returns 0, or -1
 * with "<owner>: descriptor ... has N characters, more than 64". */
__attribute__((format(printf, 5, 6))) static int
name_format(char *out, const char *owner, char *why, size_t why_size,
    const char *format, ...)
{
	char text[1024];
	va_list arguments;
	int length;

	va_start(arguments, format);
	length = vsnprintf(text, sizeof(text), format, arguments);
	va_end(arguments);
	if (length < 0 || (size_t)length > AGENT_MIB_DESCRIPTOR_MAX) {
		log_reason(why, why_size,
		    "%s: descriptor %.*s... has %d characters, more than %u",
		    owner, AGENT_MIB_DESCRIPTOR_MAX, text, length,
		    AGENT_MIB_DESCRIPTOR_MAX);
		return -1;
	}
	memcpy(out, text, (size_t)length + 1);
	return 0;
}

/* --- Public name functions ----------------------------------------------- */

bool
mib_generator_module_name_valid(const char *name, char *why, size_t why_size)
{
	size_t length;

	if (name == NULL || name[0] == '\0') {
		log_reason(why, why_size, "module name is empty");
		return false;
	}
	length = strlen(name);
	if (length > AGENT_MIB_MODULE_NAME_MAX) {
		log_reason(why, why_size,
		    "module name %.*s... has %zu characters, more than %u",
		    AGENT_MIB_MODULE_NAME_MAX, name, length,
		    AGENT_MIB_MODULE_NAME_MAX);
		return false;
	}
	if (!ascii_upper(name[0])) {
		log_reason(why, why_size,
		    "module name %s must start with an upper-case letter",
		    name);
		return false;
	}
	for (size_t i = 0; i < length; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '-' && name[i + 1] == '-') {
			log_reason(why, why_size,
			    "module name %s has two hyphens in a row at %zu "
			    "(they start an ASN.1 comment)",
			    name, i + 1);
			return false;
		}
		if (c != '-' && !ascii_alnum((char)c)) {
			log_reason(why, why_size,
			    "module name %s has character 0x%02x at %zu: only "
			    "letters, digits and hyphens are allowed",
			    name, c, i + 1);
			return false;
		}
	}
	if (name[length - 1] == '-') {
		log_reason(
		    why, why_size, "module name %s ends with a hyphen", name);
		return false;
	}
	return true;
}

size_t
mib_generator_camel_case(const char *label, char *out, size_t out_size)
{
	struct mib_name_writer name = {out, out_size, 0};
	bool word_start = true;

	for (const char *cursor = label; *cursor != '\0'; cursor++) {
		char c = *cursor;

		if (!ascii_alnum(c)) {
			word_start = true;
			continue;
		}
		mib_name_put(&name, word_start ? ascii_to_upper(c) : c);
		word_start = false;
	}
	return mib_name_end(&name);
}

/* CamelCase of a label that must give at least one character. */
static int
camel_required(const char *label, char *out, size_t out_size, const char *owner,
    char *why, size_t why_size)
{
	if (mib_generator_camel_case(label, out, out_size) == 0) {
		log_reason(why, why_size,
		    "%s: label \"%s\" has no letter or digit to make a "
		    "descriptor of",
		    owner, label);
		return -1;
	}
	return 0;
}

int
mib_generator_descriptor(const char *class_label, const char *label,
    char *descriptor, size_t descriptor_size, char *why, size_t why_size)
{
	char class_camel[DCI_LABEL_MAX + 1], label_camel[DCI_LABEL_MAX + 1];
	char owner[2 * DCI_LABEL_MAX + 32], name[MIB_NAME_SIZE];

	snprintf(owner, sizeof(owner), "class %s datum %s", class_label, label);
	if (camel_required(class_label, class_camel, sizeof(class_camel), owner,
	        why, why_size) != 0 ||
	    camel_required(label, label_camel, sizeof(label_camel), owner, why,
	        why_size) != 0 ||
	    name_format(name, owner, why, why_size, "dci%s%s", class_camel,
	        label_camel) != 0)
		return -1;
	snprintf(descriptor, descriptor_size, "%s", name);
	return 0;
}

/* --- Pass 1: naming --------------------------------------------------------
 */

/* Records a descriptor; -1 with both owners named when it equals, or
 * differs only in case from, one recorded before. */
__attribute__((format(printf, 3, 4))) static int
name_add(struct mib_generator *generator, const char *descriptor,
    const char *owner_format, ...)
{
	struct mib_name *grown;
	char *owner;
	va_list arguments;
	int length;

	va_start(arguments, owner_format);
	length = vasprintf(&owner, owner_format, arguments);
	va_end(arguments);
	if (length < 0) {
		log_reason(
		    generator->error, generator->error_size, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < generator->name_count; i++) {
		const struct mib_name *other = &generator->names[i];

		if (!ascii_equal_ignoring_case(other->descriptor, descriptor))
			continue;
		if (strcmp(other->descriptor, descriptor) == 0)
			log_reason(generator->error, generator->error_size,
			    "%s and %s both give the descriptor %s",
			    other->owner, owner, descriptor);
		else
			log_reason(generator->error, generator->error_size,
			    "%s and %s give the descriptors %s and %s, which "
			    "differ only in case",
			    other->owner, owner, other->descriptor, descriptor);
		free(owner);
		return -1;
	}
	grown = realloc(generator->names,
	    (generator->name_count + 1) * sizeof(*generator->names));
	if (grown == NULL) {
		free(owner);
		log_reason(
		    generator->error, generator->error_size, "out of memory");
		return -1;
	}
	generator->names = grown;
	snprintf(generator->names[generator->name_count].descriptor,
	    MIB_NAME_SIZE, "%s", descriptor);
	generator->names[generator->name_count++].owner = owner;
	return 0;
}

/* The identity descriptor of a module name: the first word in lower case,
 * the others capitalised, a last word "MIB" kept as it is and "MIB"
 * appended when there is none: DCI-NETIF-MIB gives dciNetifMIB, ACME-STATS
 * acmeStatsMIB. */
static int
identity_name(struct mib_generator *generator)
{
	char text[2 * AGENT_MIB_MODULE_NAME_MAX + 4];
	const char *name = generator->module_name;
	const char *last_word = strrchr(name, '-');
	size_t length = 0;
	bool word_start = true;

	last_word = last_word != NULL ? last_word + 1 : NULL;
	for (const char *cursor = name; *cursor != '\0'; cursor++) {
		if (*cursor == '-') {
			word_start = true;
			continue;
		}
		if (cursor == last_word && strcmp(last_word, "MIB") == 0)
			break;
		text[length++] = cursor == name ? ascii_to_lower(*cursor)
		                 : word_start   ? ascii_to_upper(*cursor)
		                                : ascii_to_lower(*cursor);
		word_start = false;
	}
	memcpy(text + length, "MIB", 4);
	return name_format(generator->identity, "the module identity",
	    generator->error, generator->error_size, "%s", text);
}

/* The descriptor word of an instance level type; NULL for a type this
 * version does not know (the index is then named by its level number). */
static const char *
itype_word(enum dci_instance_type itype)
{
	switch (itype) {
	case DCI_ITYPE_SINGLEINST:
		return "Singleinst";
	case DCI_ITYPE_PROCESSOR:
		return "Processor";
	case DCI_ITYPE_DISKID:
		return "Diskid";
	case DCI_ITYPE_BUCKET_NO:
		return "BucketNo";
	case DCI_ITYPE_DEVICE:
		return "Device";
	case DCI_ITYPE_CHANNEL:
		return "Channel";
	case DCI_ITYPE_CONTROLLERID:
		return "Controllerid";
	case DCI_ITYPE_IPADDR:
		return "Ipaddr";
	case DCI_ITYPE_INTERFACE:
		return "IfIndex";
	case DCI_ITYPE_EVENT:
		return "Event";
	}
	return NULL;
}

static int
column_compare(const void *left, const void *right)
{
	const struct mib_column *a = left, *b = right;

	return a->number < b->number ? -1 : a->number > b->number;
}

/* The SYNTAX of a datum's column, noting what it imports. NULL for a kind
 * with no column. */
static const char *
datum_syntax(struct mib_generator *generator, const struct dci_datum *datum,
    char *text, size_t text_size, const char **sequence_syntax)
{
	const struct dci_datum_info *info = &datum->info;
	const char *syntax = NULL;
	unsigned import = 0;

	switch (datum->kind) {
	case DCI_KIND_COUNTER64:
		if (info->semantics == DCI_SEMANTICS_COUNTER) {
			syntax = "Counter64";
			import = MIB_IMPORT_COUNTER64;
		} else {
			syntax = "DciGauge64";
			import = MIB_IMPORT_GAUGE64;
		}
		break;
	case DCI_KIND_COUNTER32:
		syntax = "Counter32";
		import = MIB_IMPORT_COUNTER32;
		break;
	case DCI_KIND_GAUGE32:
		syntax = "Gauge32";
		import = MIB_IMPORT_GAUGE32;
		break;
	case DCI_KIND_INTEGER32:
		syntax = "Integer32";
		import = MIB_IMPORT_INTEGER32;
		break;
	case DCI_KIND_STRING:
		/* Text a manager shows as text (a Prometheus label, not hex):
		 * DisplayString, where it fits its 255 octets. */
		if (info->type == DCI_ST_STRING && info->size > 0 &&
		    info->size - 1 <= 255) {
			generator->imports |= MIB_IMPORT_DISPLAYSTRING;
			*sequence_syntax = "DisplayString";
			snprintf(text, text_size,
			    "DisplayString (SIZE (0..%" PRIu32 "))",
			    info->size - 1);
			return text;
		}
		*sequence_syntax = "OCTET STRING";
		if (info->type == DCI_ST_ADDRESS)
			snprintf(text, text_size, "OCTET STRING (SIZE (2))");
		else
			snprintf(text, text_size,
			    "OCTET STRING (SIZE (0..%" PRIu32 "))",
			    info->size > 0 ? info->size - 1 : 0);
		return text;
	case DCI_KIND_IPADDRESS:
		syntax = "IpAddress";
		import = MIB_IMPORT_IPADDRESS;
		break;
	case DCI_KIND_MACADDRESS:
		syntax = "MacAddress";
		import = MIB_IMPORT_MACADDRESS;
		break;
	case DCI_KIND_TIMETICKS:
		if (info->type == DCI_ST_TIME &&
		    info->presentation == DCI_STP_ABSOLUTE) {
			syntax = "TimeStamp";
			import = MIB_IMPORT_TIMESTAMP;
		} else {
			syntax = "TimeTicks";
			import = MIB_IMPORT_TIMETICKS;
		}
		break;
	case DCI_KIND_TRUTHVALUE:
		syntax = "TruthValue";
		import = MIB_IMPORT_TRUTHVALUE;
		break;
	case DCI_KIND_TEXT_ONLY:
		syntax = "DisplayString";
		import = MIB_IMPORT_DISPLAYSTRING;
		break;
	case DCI_KIND_HUNDREDTHS:
		syntax = "DciHundredths";
		import = MIB_IMPORT_HUNDREDTHS;
		break;
	case DCI_KIND_NONE:
	case DCI_KIND_COUNT:
		return NULL;
	}
	if (syntax == NULL)
		return NULL;
	generator->imports |= import;
	*sequence_syntax = syntax;
	return syntax;
}

/* Names an OBJECT IDENTIFIER node for each proper prefix of `id`, below
 * `root` ("dciClassData" or "dciClassModules"), reusing one named before;
 * the node of the longest prefix (or `root`) goes into `parent`. */
static int
arcs_add(struct mib_generator *generator, const char *root, const uint32_t *id,
    size_t id_length, const char *class_label, char *parent)
{
	char descriptor[MIB_NAME_SIZE], owner[DCI_LABEL_MAX + 64];
	char text[1024];
	size_t text_length;

	snprintf(parent, MIB_NAME_SIZE, "%s", root);
	text_length = (size_t)snprintf(text, sizeof(text), "%s", root);
	for (size_t level = 0; level + 1 < id_length; level++) {
		struct mib_arc *grown, *arc = NULL;

		text_length += (size_t)snprintf(text + text_length,
		    sizeof(text) - text_length, "%s%" PRIu32,
		    level == 0 ? "" : "x", id[level]);
		snprintf(owner, sizeof(owner), "class %s: the arc %s",
		    class_label, root);
		if (name_format(descriptor, owner, generator->error,
		        generator->error_size, "%s", text) != 0)
			return -1;
		for (size_t i = 0; i < generator->arc_count; i++)
			if (strcmp(generator->arcs[i].descriptor, descriptor) ==
			    0)
				arc = &generator->arcs[i];
		if (arc == NULL) {
			grown = realloc(generator->arcs,
			    (generator->arc_count + 1) * sizeof(*grown));
			if (grown == NULL) {
				log_reason(generator->error,
				    generator->error_size, "out of memory");
				return -1;
			}
			generator->arcs = grown;
			arc = &generator->arcs[generator->arc_count++];
			memcpy(arc->descriptor, descriptor, MIB_NAME_SIZE);
			memcpy(arc->parent, parent, MIB_NAME_SIZE);
			arc->number = id[level];
			if (name_add(generator, arc->descriptor,
			        "the arc %s below %s (class %s)",
			        arc->descriptor, arc->parent, class_label) != 0)
				return -1;
		}
		memcpy(parent, arc->descriptor, MIB_NAME_SIZE);
	}
	return 0;
}

/* Names the index columns of a class and picks their numbers. */
static int
index_columns_plan(struct mib_generator *generator, struct mib_class *plan,
    struct mib_column *columns, size_t *count)
{
	const struct dci_class *class = plan->class;
	size_t word = 0, first = *count;
	uint32_t candidate = MIB_INDEX_COLUMN_TOP;
	uint32_t numbers[DCI_INSTANCE_ID_MAX_WORDS];
	size_t number_count = 0;

	/* The largest free numbers, then given to the words in ascending
	 * order so that the SEQUENCE lists the words in order. */
	while (number_count < class->instance_words && candidate > 0) {
		if (dci_class_find_datum(class, candidate) == NULL)
			numbers[number_count++] = candidate;
		candidate--;
	}
	if (number_count < class->instance_words) {
		log_reason(generator->error, generator->error_size,
		    "class %s: no free column number for its index",
		    class->label);
		return -1;
	}
	for (size_t level = 0; level < class->level_count; level++) {
		enum dci_instance_type itype = class->levels[level].itype;
		size_t words = class->levels[level].size / 4;
		size_t same = 0, occurrence = 0;
		const char *base = itype_word(itype);
		char stem[32], suffix[32], owner[DCI_LABEL_MAX + 64];

		for (size_t other = 0; other < class->level_count; other++) {
			if (class->levels[other].itype != itype)
				continue;
			same++;
			if (other <= level)
				occurrence = same;
		}
		if (base == NULL)
			snprintf(stem, sizeof(stem), "Level%zu", level + 1);
		else if (same > 1)
			snprintf(stem, sizeof(stem), "%s%zu", base, occurrence);
		else
			snprintf(stem, sizeof(stem), "%s", base);
		for (size_t level_word = 0; level_word < words; level_word++) {
			struct mib_column *column = &columns[(*count)++];

			plan->column_count = *count;
			*column = (struct mib_column){
			    .number = numbers[number_count - 1 - word],
			    .datum = NULL,
			    .word = word,
			    .level = level,
			    .level_word = level_word,
			    .syntax = "Unsigned32 (0..4294967295)",
			    .sequence_syntax = "Unsigned32",
			};
			if (words > 1) {
				snprintf(owner, sizeof(owner),
				    "class %s: the index of word %zu of "
				    "instance level %zu",
				    class->label, level_word + 1, level + 1);
				snprintf(suffix, sizeof(suffix), "Word%zu",
				    level_word + 1);
			} else {
				snprintf(owner, sizeof(owner),
				    "class %s: the index of instance level %zu",
				    class->label, level + 1);
				suffix[0] = '\0';
			}
			if (name_format(column->descriptor, owner,
			        generator->error, generator->error_size,
			        "dci%s%s%s", plan->camel, stem, suffix) != 0 ||
			    name_add(generator, column->descriptor, "%s",
			        owner) != 0)
				return -1;
			word++;
		}
	}
	plan->index_count = *count - first;
	return 0;
}

/* Plans one class: names, columns, index. Returns 0, 1 when the class has
 * no datum to serve (left out), or -1. */
static int
class_plan(struct mib_generator *generator, const struct dci_class *class,
    struct mib_class *plan)
{
	char owner[DCI_LABEL_MAX + 64], why[512];
	size_t served = 0, count = 0;
	struct mib_column *columns;

	for (size_t i = 0; i < class->datum_count; i++)
		if (class->datums[i].kind != DCI_KIND_NONE)
			served++;
	if (served == 0)
		return 1;
	if (class->id[class->id_length - 1] == 0) {
		log_reason(generator->error, generator->error_size,
		    "class %s: its id ends in 0, and SMIv2 gives no table a "
		    "last sub-identifier of 0",
		    class->label);
		return -1;
	}
	*plan = (struct mib_class){.class = class};
	dci_class_id_format(class, plan->id_text, sizeof(plan->id_text));
	snprintf(owner, sizeof(owner), "class %s", class->label);
	if (camel_required(class->label, plan->camel, sizeof(plan->camel),
	        owner, generator->error, generator->error_size) != 0 ||
	    name_format(plan->table, owner, generator->error,
	        generator->error_size, "dci%sTable", plan->camel) != 0 ||
	    name_format(plan->entry, owner, generator->error,
	        generator->error_size, "dci%sEntry", plan->camel) != 0 ||
	    name_format(plan->group, owner, generator->error,
	        generator->error_size, "dci%sTableGroup", plan->camel) != 0)
		return -1;
	snprintf(plan->type, sizeof(plan->type), "Dci%sEntry", plan->camel);
	if (name_add(generator, plan->table, "class %s table", class->label) !=
	        0 ||
	    name_add(generator, plan->entry, "class %s entry", class->label) !=
	        0 ||
	    arcs_add(generator, "dciClassData", class->id, class->id_length,
	        class->label, plan->table_parent) != 0)
		return -1;

	columns = calloc(served + class->instance_words, sizeof(*columns));
	plan->index = calloc(class->instance_words, sizeof(*plan->index));
	plan->columns = columns;
	if (columns == NULL || plan->index == NULL) {
		log_reason(
		    generator->error, generator->error_size, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < class->datum_count; i++) {
		const struct dci_datum *datum = &class->datums[i];
		struct mib_column *column;
		char syntax[64];
		const char *sequence_syntax = NULL, *object_syntax;

		if (datum->kind == DCI_KIND_NONE)
			continue;
		column = &columns[count++];
		plan->column_count = count;
		object_syntax = datum_syntax(
		    generator, datum, syntax, sizeof(syntax), &sequence_syntax);
		if (object_syntax == NULL) {
			log_reason(generator->error, generator->error_size,
			    "class %s datum %s: its kind %s has no SNMP syntax",
			    class->label, datum->info.label,
			    dci_value_kind_name(datum->kind));
			return -1;
		}
		/* The syntax text lives as long as the column: copy the
		 * one made here. */
		column->syntax =
		    object_syntax == syntax ? strdup(syntax) : object_syntax;
		column->sequence_syntax = sequence_syntax;
		column->number = datum->info.id;
		column->datum = datum;
		if (column->syntax == NULL) {
			log_reason(generator->error, generator->error_size,
			    "out of memory");
			return -1;
		}
		if (mib_generator_descriptor(class->label, datum->info.label,
		        column->descriptor, sizeof(column->descriptor), why,
		        sizeof(why)) != 0) {
			log_reason(
			    generator->error, generator->error_size, "%s", why);
			return -1;
		}
		if (name_add(generator, column->descriptor, "class %s datum %s",
		        class->label, datum->info.label) != 0)
			return -1;
	}
	if (index_columns_plan(generator, plan, columns, &count) != 0)
		return -1;
	if (name_add(generator, plan->group, "class %s object group",
	        class->label) != 0)
		return -1;
	qsort(columns, count, sizeof(*columns), column_compare);
	for (size_t i = 0; i < count; i++)
		if (columns[i].datum == NULL)
			plan->index[columns[i].word] = i;
	return 0;
}

static void
class_plan_free(struct mib_class *plan)
{
	for (size_t i = 0; i < plan->column_count; i++)
		if (plan->columns[i].datum != NULL &&
		    plan->columns[i].datum->kind == DCI_KIND_STRING)
			free((char *)plan->columns[i].syntax);
	free(plan->columns);
	free(plan->index);
}

void
mib_plan_release(struct mib_generator *generator)
{
	for (size_t i = 0; i < generator->class_count; i++)
		class_plan_free(&generator->classes[i]);
	for (size_t i = 0; i < generator->name_count; i++)
		free(generator->names[i].owner);
	free(generator->names);
	free(generator->classes);
	free(generator->skipped);
	free(generator->arcs);
	*generator = (struct mib_generator){0};
}

int
mib_plan_make(struct mib_generator *generator)
{
	const struct dci_registry *registry = generator->registry;
	char why[512];

	if (generator->module_name != NULL &&
	    !mib_generator_module_name_valid(
	        generator->module_name, why, sizeof(why))) {
		log_reason(generator->error, generator->error_size, "%s", why);
		return -1;
	}
	if (registry->class_count == 0) {
		log_reason(generator->error, generator->error_size,
		    "no class to describe: the configuration's providers "
		    "registered none");
		return -1;
	}
	generator->classes =
	    calloc(registry->class_count, sizeof(*generator->classes));
	generator->skipped =
	    calloc(registry->class_count, sizeof(*generator->skipped));
	if (generator->classes == NULL || generator->skipped == NULL) {
		log_reason(
		    generator->error, generator->error_size, "out of memory");
		return -1;
	}
	/* Imported descriptors first: a class must not redefine them. */
	if (name_add(generator, "dciClassData",
	        "DCI-STATS-MIB's dciClassData") != 0 ||
	    name_add(generator, "dciClassModules",
	        "DCI-STATS-MIB's dciClassModules") != 0)
		return -1;
	for (size_t i = 0; i < registry->class_count; i++) {
		struct mib_class *class_plan_slot =
		    &generator->classes[generator->class_count];
		int result = class_plan(
		    generator, registry->classes[i], class_plan_slot);

		if (result < 0) {
			/* Counted, so that its allocations are freed. */
			generator->class_count++;
			return -1;
		}
		if (result > 0)
			generator->skipped[generator->skipped_count++] =
			    registry->classes[i];
		else
			generator->class_count++;
	}
	if (generator->class_count == 0) {
		log_reason(generator->error, generator->error_size,
		    "no class to describe: no registered class has a datum "
		    "SNMP can carry");
		return -1;
	}
	if (generator->module_name == NULL)
		return 0;
	if (identity_name(generator) != 0 ||
	    name_format(generator->conformance, "the module's conformance",
	        generator->error, generator->error_size, "%sConformance",
	        generator->identity) != 0 ||
	    name_format(generator->compliances, "the module's compliances",
	        generator->error, generator->error_size, "%sCompliances",
	        generator->identity) != 0 ||
	    name_format(generator->groups, "the module's groups",
	        generator->error, generator->error_size, "%sGroups",
	        generator->identity) != 0 ||
	    name_format(generator->compliance, "the module's compliance",
	        generator->error, generator->error_size, "%sCompliance",
	        generator->identity) != 0)
		return -1;
	if (name_add(generator, generator->identity,
	        "the module identity of %s", generator->module_name) != 0 ||
	    name_add(generator, generator->conformance,
	        "the conformance node of %s", generator->module_name) != 0 ||
	    name_add(generator, generator->compliances,
	        "the compliances node of %s", generator->module_name) != 0 ||
	    name_add(generator, generator->groups, "the groups node of %s",
	        generator->module_name) != 0 ||
	    name_add(generator, generator->compliance,
	        "the compliance statement of %s", generator->module_name) != 0)
		return -1;
	{
		const struct dci_class *first = generator->classes[0].class;

		if (arcs_add(generator, "dciClassModules", first->id,
		        first->id_length, first->label,
		        generator->identity_parent) != 0)
			return -1;
		generator->identity_number = first->id[first->id_length - 1];
	}
	return 0;
}
