#define _GNU_SOURCE
#include "agent/tables.h"

#include <endian.h>
#include <string.h>

#include <net-snmp/agent/null.h>

#include "snmp/mib_oids.h"
#include "base/clock.h"
#include "base/log.h"
#include "model/snapshot.h"
#include "model/value.h"
#include "snmp/table_index.h"

#define ENTRY_PREFIX_LENGTH SCHEMA_ENTRY_PREFIX_LENGTH /* .1.table.1 */

/* How one table finds its rows (`lookup`; NULL for dciStatTable, whose
 * column decides which rows exist: shape_find), encodes their index, and
 * which columns it has. */
struct table_shape {
	unsigned first_column;
	unsigned last_column;
	schema_index_lookup *lookup;
	size_t (*encode)(const struct schema_index_row *row, uint32_t *index);
	void (*value)(struct agent_tables *tables, unsigned column,
	    const struct schema_index_row *row, netsnmp_variable_list *varbind);
};

/* DisplayString columns: at most 255 octets, as the MIB's SYNTAX says. */
#define DISPLAY_STRING_MAX 255

static void
set_string(netsnmp_variable_list *varbind, const char *text)
{
	snmp_set_var_typed_value(
	    varbind, ASN_OCTET_STR, text, strnlen(text, DISPLAY_STRING_MAX));
}

static void
set_unsigned(netsnmp_variable_list *varbind, u_char type, uint32_t value)
{
	u_long number = value;

	snmp_set_var_typed_value(varbind, type, &number, sizeof(number));
}

static void
set_integer(netsnmp_variable_list *varbind, long value)
{
	snmp_set_var_typed_value(varbind, ASN_INTEGER, &value, sizeof(value));
}

/* --- dciSupplierTable --- */

static size_t
supplier_encode(const struct schema_index_row *row, uint32_t *index)
{
	index[0] = row->supplier->index;
	return 1;
}

/* One cell of a row, as one of the three syntaxes the descriptive tables'
 * columns have: a DisplayString, an INTEGER or a 32-bit unsigned type. */
struct cell {
	u_char type; /* ASN_OCTET_STR, ASN_INTEGER, or an unsigned type */
	const char *text;
	long number;
};

#define CELL_TEXT(text)                                                        \
	{                                                                      \
		ASN_OCTET_STR, (text), 0                                       \
	}
#define CELL_INTEGER(number)                                                   \
	{                                                                      \
		ASN_INTEGER, NULL, (long)(number)                              \
	}
#define CELL_UNSIGNED(type, number)                                            \
	{                                                                      \
		(type), NULL, (long)(uint32_t)(number)                         \
	}

static void
set_cell(netsnmp_variable_list *varbind, const struct cell *cell)
{
	if (cell->type == ASN_OCTET_STR)
		set_string(varbind, cell->text);
	else if (cell->type == ASN_INTEGER)
		set_integer(varbind, cell->number);
	else
		set_unsigned(varbind, cell->type, (uint32_t)cell->number);
}

static void
supplier_value(struct agent_tables *tables, unsigned column,
    const struct schema_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_supplier *supplier = row->supplier;
	const struct cell cells[] = {
	    [SCHEMA_SUPPLIER_MODULE] = CELL_TEXT(supplier->module),
	    [SCHEMA_SUPPLIER_TITLE] = CELL_TEXT(supplier->title),
	    [SCHEMA_SUPPLIER_DESCRIPTION] = CELL_TEXT(supplier->description),
	    [SCHEMA_SUPPLIER_TYPE] =
	        CELL_UNSIGNED(ASN_UNSIGNED, supplier->type),
	    [SCHEMA_SUPPLIER_VERSION] =
	        CELL_UNSIGNED(ASN_UNSIGNED, supplier->version),
	    [SCHEMA_SUPPLIER_STATUS] = CELL_INTEGER(supplier->status),
	    [SCHEMA_SUPPLIER_DISCONTINUITY] = CELL_UNSIGNED(
	        ASN_TIMETICKS, agent_timestamps_of(&tables->timestamps,
	                           supplier->discontinuity_milliseconds)),
	    [SCHEMA_SUPPLIER_LAST_REFRESH] = CELL_UNSIGNED(
	        ASN_TIMETICKS, supplier->last_refresh_milliseconds == 0
	                           ? 0
	                           : agent_timestamps_of(&tables->timestamps,
	                                 supplier->last_refresh_milliseconds)),
	    [SCHEMA_SUPPLIER_FAILURE] = CELL_TEXT(supplier->failure),
	};

	if (column == SCHEMA_SUPPLIER_RESET)
		snmp_set_var_typed_value(varbind, ASN_OCTET_STR,
		    supplier->reset, sizeof(supplier->reset));
	else
		set_cell(varbind, &cells[column]);
}

/* --- dciClassTable --- */

static size_t
class_encode(const struct schema_index_row *row, uint32_t *index)
{
	return schema_index_encode_class(row->class, index);
}

/* dciClassLevelTypes (`types`) or dciClassLevelSizes: 4 octets per level,
 * most significant first. The registry holds at most
 * DCI_INSTANCE_ID_MAX_WORDS levels, so 64 octets, as the MIB's SIZE. */
static void
set_class_levels(
    netsnmp_variable_list *varbind, const struct dci_class *class, bool types)
{
	unsigned char octets[4 * DCI_INSTANCE_ID_MAX_WORDS];
	size_t count = class->level_count < DCI_INSTANCE_ID_MAX_WORDS
	                   ? class->level_count
	                   : DCI_INSTANCE_ID_MAX_WORDS;

	for (size_t i = 0; i < count; i++) {
		uint32_t word =
		    htobe32(types ? (uint32_t) class->levels[i].itype
		                  : class->levels[i].size);
		memcpy(octets + 4 * i, &word, sizeof(word));
	}
	snmp_set_var_typed_value(varbind, ASN_OCTET_STR, octets, 4 * count);
}

static void
class_value(struct agent_tables *tables, unsigned column,
    const struct schema_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_class *class = row->class;

	switch (column) {
	case SCHEMA_CLASS_LABEL:
		set_string(varbind, class->label);
		break;
	case SCHEMA_CLASS_INSTANCE_LEVELS:
		set_unsigned(
		    varbind, ASN_UNSIGNED, (uint32_t) class->level_count);
		break;
	case SCHEMA_CLASS_DATUM_COUNT: {
		/* The rows of dciDatumTable. */
		uint32_t served = 0;
		for (size_t i = 0; i < class->datum_count; i++)
			served +=
			    schema_index_datum_described(&class->datums[i]);
		set_unsigned(varbind, ASN_UNSIGNED, served);
		break;
	}
	case SCHEMA_CLASS_SUPPLIER:
		set_unsigned(varbind, ASN_UNSIGNED, class->supplier->index);
		break;
	case SCHEMA_CLASS_INSTANCE_COUNT:
		set_unsigned(varbind, ASN_GAUGE,
		    class->snapshot ? (uint32_t) class->snapshot->count : 0);
		break;
	case SCHEMA_CLASS_DESCRIPTION:
		set_string(varbind,
		    class->description != NULL ? class->description : "");
		break;
	case SCHEMA_CLASS_LEVEL_TYPES:
	case SCHEMA_CLASS_LEVEL_SIZES:
		set_class_levels(
		    varbind, class, column == SCHEMA_CLASS_LEVEL_TYPES);
		break;
	}
}

/* --- dciDatumTable --- */

static void
datum_value(struct agent_tables *tables, unsigned column,
    const struct schema_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_datum_info *info = &row->datum->info;
	const struct cell cells[] = {
	    [SCHEMA_DATUM_LABEL] = CELL_TEXT(info->label),
	    [SCHEMA_DATUM_TYPE] = CELL_INTEGER(info->type),
	    [SCHEMA_DATUM_FORMAT] = CELL_UNSIGNED(ASN_UNSIGNED, info->format),
	    [SCHEMA_DATUM_PRESENTATION] =
	        CELL_UNSIGNED(ASN_UNSIGNED, info->presentation),
	    [SCHEMA_DATUM_SIZE] = CELL_UNSIGNED(ASN_UNSIGNED, info->size),
	    [SCHEMA_DATUM_VOLATILITY] = CELL_INTEGER(info->volatility),
	    [SCHEMA_DATUM_UNITS] = CELL_TEXT(dci_value_unit_name(info->unit)),
	    [SCHEMA_DATUM_SEMANTICS] = CELL_INTEGER(info->semantics),
	    [SCHEMA_DATUM_DESCRIPTION] = CELL_TEXT(info->description),
	};

	set_cell(varbind, &cells[column]);
}

/* --- dciInstanceTable --- */

/* RowPointer to the parent's dciInstanceLabel, or zeroDotZero. */
static void
set_parent_pointer(
    const struct schema_index_row *row, netsnmp_variable_list *varbind)
{
	static const oid zero_dot_zero[] = {0, 0};
	oid pointer[ENTRY_PREFIX_LENGTH + 1 + SCHEMA_INDEX_MAX];
	uint32_t index[SCHEMA_INDEX_MAX];
	size_t length = schema_index_encode_parent(row, index);

	if (length == 0) {
		snmp_set_var_typed_value(varbind, ASN_OBJECT_ID, zero_dot_zero,
		    sizeof(zero_dot_zero));
		return;
	}
	schema_entry_prefix(SCHEMA_TABLE_INSTANCE, pointer);
	pointer[ENTRY_PREFIX_LENGTH] = SCHEMA_INSTANCE_LABEL;
	for (size_t i = 0; i < length; i++)
		pointer[ENTRY_PREFIX_LENGTH + 1 + i] = index[i];
	snmp_set_var_typed_value(varbind, ASN_OBJECT_ID, pointer,
	    (ENTRY_PREFIX_LENGTH + 1 + length) * sizeof(oid));
}

static void
instance_value(struct agent_tables *tables, unsigned column,
    const struct schema_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_instance_state *state =
	    &row->class->snapshot->instances[row->instance];

	switch (column) {
	case SCHEMA_INSTANCE_LABEL:
		set_string(varbind, state->label);
		break;
	case SCHEMA_INSTANCE_CREATED:
		set_unsigned(varbind, ASN_TIMETICKS,
		    agent_timestamps_of(
		        &tables->timestamps, state->created_milliseconds));
		break;
	case SCHEMA_INSTANCE_DISCONTINUITY:
		set_unsigned(varbind, ASN_TIMETICKS,
		    agent_timestamps_of(&tables->timestamps,
		        state->discontinuity_milliseconds));
		break;
	case SCHEMA_INSTANCE_PARENT:
		set_parent_pointer(row, varbind);
		break;
	}
}

/* --- dciStatTable --- */

static struct schema_index_filter
stat_filter(unsigned column)
{
	static const enum dci_value_kind kind_of_column[] = {
	    [SCHEMA_STAT_COUNTER64] = DCI_KIND_COUNTER64,
	    [SCHEMA_STAT_COUNTER32] = DCI_KIND_COUNTER32,
	    [SCHEMA_STAT_GAUGE32] = DCI_KIND_GAUGE32,
	    [SCHEMA_STAT_INTEGER32] = DCI_KIND_INTEGER32,
	    [SCHEMA_STAT_STRING] = DCI_KIND_STRING,
	    [SCHEMA_STAT_IP_ADDRESS] = DCI_KIND_IPADDRESS,
	    [SCHEMA_STAT_MAC_ADDRESS] = DCI_KIND_MACADDRESS,
	    [SCHEMA_STAT_TIME_TICKS] = DCI_KIND_TIMETICKS,
	    [SCHEMA_STAT_TRUTH_VALUE] = DCI_KIND_TRUTHVALUE,
	    [SCHEMA_STAT_HUNDREDTHS] = DCI_KIND_HUNDREDTHS,
	};
	struct schema_index_filter filter = {SCHEMA_INDEX_ALL_KINDS, false};

	if ((column >= SCHEMA_STAT_COUNTER64 &&
	        column <= SCHEMA_STAT_TRUTH_VALUE) ||
	    column == SCHEMA_STAT_HUNDREDTHS)
		filter.kinds = 1u << kind_of_column[column];
	else if (column == SCHEMA_STAT_DISCONTINUITY)
		filter.counters_only = true;
	return filter;
}

/* ST_TIME values read the clocks once per request, not per varbind. */
static uint32_t
time_ticks(struct agent_tables *tables, const struct dci_datum_info *info,
    const struct dci_value *value)
{
	if (!tables->clocks_read) {
		agent_timestamps_read_clocks(&tables->clocks);
		tables->clocks_read = true;
	}
	return agent_timestamps_of_time(
	    &tables->timestamps, info, value, &tables->clocks);
}

static void
stat_value(struct agent_tables *tables, unsigned column,
    const struct schema_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_class *class = row->class;
	const struct dci_datum_info *info = &row->datum->info;
	const unsigned char *slot = dci_snapshot_slot(
	    class, class->snapshot, row->instance, row->datum);
	struct dci_value value;

	switch (column) {
	case SCHEMA_STAT_LABEL:
		set_string(varbind, info->label);
		return;
	case SCHEMA_STAT_TYPE:
		set_integer(varbind, info->type);
		return;
	case SCHEMA_STAT_TEXT:
		dci_value_render(
		    info, slot, tables->text, sizeof(tables->text));
		set_string(varbind, tables->text);
		return;
	case SCHEMA_STAT_DISCONTINUITY:
		set_unsigned(varbind, ASN_TIMETICKS,
		    agent_timestamps_of(&tables->timestamps,
		        class->snapshot->instances[row->instance]
		            .discontinuity_milliseconds));
		return;
	}

	dci_value_decode_trusted(info, slot, &value);
	switch (column) {
	case SCHEMA_STAT_COUNTER64: {
		struct counter64 number = {.high = value.number >> 32,
		    .low = value.number & 0xffffffffu};
		snmp_set_var_typed_value(
		    varbind, ASN_COUNTER64, &number, sizeof(number));
		break;
	}
	case SCHEMA_STAT_COUNTER32:
		set_unsigned(varbind, ASN_COUNTER, (uint32_t)value.number);
		break;
	case SCHEMA_STAT_GAUGE32:
		set_unsigned(varbind, ASN_GAUGE, (uint32_t)value.number);
		break;
	case SCHEMA_STAT_INTEGER32:
	case SCHEMA_STAT_HUNDREDTHS:
		set_integer(varbind, (long)value.signed_number);
		break;
	case SCHEMA_STAT_STRING:
	case SCHEMA_STAT_IP_ADDRESS:
	case SCHEMA_STAT_MAC_ADDRESS:
		snmp_set_var_typed_value(varbind,
		    column == SCHEMA_STAT_IP_ADDRESS ? ASN_IPADDRESS
		                                    : ASN_OCTET_STR,
		    value.bytes, value.length);
		break;
	case SCHEMA_STAT_TIME_TICKS:
		set_unsigned(
		    varbind, ASN_TIMETICKS, time_ticks(tables, info, &value));
		break;
	case SCHEMA_STAT_TRUTH_VALUE:
		set_integer(varbind, value.truth ? 1 : 2);
		break;
	}
}

static const struct table_shape table_shapes[] = {
    [SCHEMA_TABLE_SUPPLIER] = {SCHEMA_SUPPLIER_MODULE, SCHEMA_SUPPLIER_FAILURE,
        schema_index_supplier, supplier_encode, supplier_value},
    [SCHEMA_TABLE_CLASS] = {SCHEMA_CLASS_LABEL, SCHEMA_CLASS_LEVEL_SIZES,
        schema_index_class, class_encode, class_value},
    [SCHEMA_TABLE_DATUM] = {SCHEMA_DATUM_LABEL, SCHEMA_DATUM_DESCRIPTION,
        schema_index_datum, schema_index_encode_datum, datum_value},
    [SCHEMA_TABLE_INSTANCE] = {SCHEMA_INSTANCE_LABEL, SCHEMA_INSTANCE_PARENT,
        schema_index_instance, schema_index_encode_instance, instance_value},
    [SCHEMA_TABLE_STAT] = {SCHEMA_STAT_LABEL, SCHEMA_STAT_HUNDREDTHS, NULL,
        schema_index_encode_stat, stat_value},
};

static bool
shape_find(struct agent_tables *tables, const struct table_shape *shape,
    unsigned column, const uint64_t *index, size_t length,
    enum schema_index_mode mode, struct schema_index_row *row)
{
	struct schema_index_filter filter;

	if (shape->lookup != NULL)
		return shape->lookup(
		    tables->registry, index, length, mode, row);
	filter = stat_filter(column);
	return schema_index_stat(
	    tables->registry, index, length, mode, &filter, row);
}

static void
answer_row(struct agent_tables *tables, const struct table_shape *shape,
    unsigned table, unsigned column, const struct schema_index_row *row,
    struct schema_row_name *name, netsnmp_variable_list *varbind)
{
	uint32_t index[SCHEMA_INDEX_MAX];
	size_t length = shape->encode(row, index);

	schema_entry_prefix(table, name->subids);
	name->subids[ENTRY_PREFIX_LENGTH] = column;
	for (size_t i = 0; i < length; i++)
		name->subids[ENTRY_PREFIX_LENGTH + 1 + i] = index[i];
	name->length = ENTRY_PREFIX_LENGTH + 1 + length;
	shape->value(tables, column, row, varbind);
}

/* --- dciClassData: one table per class ----------------------------------- */

#define CLASS_DATA_PREFIX_LENGTH (SCHEMA_MIB_ARC_LENGTH + 2) /* .1.6 */

/* A per-class column has the syntax of the datum's dciStatTable value
 * column; a signed 64-bit datum, which has none, is served as its text. */
static unsigned
class_data_stat_column(enum dci_value_kind kind)
{
	static const unsigned column_of_kind[] = {
	    [DCI_KIND_COUNTER64] = SCHEMA_STAT_COUNTER64,
	    [DCI_KIND_COUNTER32] = SCHEMA_STAT_COUNTER32,
	    [DCI_KIND_GAUGE32] = SCHEMA_STAT_GAUGE32,
	    [DCI_KIND_INTEGER32] = SCHEMA_STAT_INTEGER32,
	    [DCI_KIND_STRING] = SCHEMA_STAT_STRING,
	    [DCI_KIND_IPADDRESS] = SCHEMA_STAT_IP_ADDRESS,
	    [DCI_KIND_MACADDRESS] = SCHEMA_STAT_MAC_ADDRESS,
	    [DCI_KIND_TIMETICKS] = SCHEMA_STAT_TIME_TICKS,
	    [DCI_KIND_TRUTHVALUE] = SCHEMA_STAT_TRUTH_VALUE,
	    [DCI_KIND_TEXT_ONLY] = SCHEMA_STAT_TEXT,
	    [DCI_KIND_HUNDREDTHS] = SCHEMA_STAT_HUNDREDTHS,
	};

	return column_of_kind[kind];
}

static enum agent_answer
class_data_answer(struct agent_tables *tables, bool next,
    const struct schema_request_name *request, struct schema_row_name *name,
    netsnmp_variable_list *varbind)
{
	oid prefix[ENTRY_PREFIX_LENGTH]; /* the first CLASS_DATA_PREFIX_LENGTH
	                                  */
	uint32_t encoded[SCHEMA_INDEX_MAX];
	const uint64_t *index = NULL;
	size_t index_length = 0, length;
	struct schema_index_row row;
	int order;

	schema_entry_prefix(SCHEMA_CLASS_DATA, prefix);
	order = schema_request_name_compare_prefix(
	    request, prefix, CLASS_DATA_PREFIX_LENGTH);
	if (order == 0 && request->length > CLASS_DATA_PREFIX_LENGTH) {
		index = request->subids + CLASS_DATA_PREFIX_LENGTH;
		index_length = request->length - CLASS_DATA_PREFIX_LENGTH;
	}
	if (!next) {
		if (order != 0 || index_length == 0)
			return AGENT_NO_SUCH_OBJECT;
		if (request->truncated ||
		    !schema_index_class_data(tables->registry, index,
		        index_length, SCHEMA_INDEX_EXACT, &row))
			return schema_index_class_data_column(
			           tables->registry, index, index_length)
			           ? AGENT_NO_SUCH_INSTANCE
			           : AGENT_NO_SUCH_OBJECT;
	} else {
		if (order > 0)
			return AGENT_END_OF_TABLE;
		if (!schema_index_class_data(tables->registry, index,
		        index_length, SCHEMA_INDEX_NEXT, &row))
			return AGENT_END_OF_TABLE;
	}
	length = schema_index_encode_class_data(&row, encoded);
	memcpy(name->subids, prefix, CLASS_DATA_PREFIX_LENGTH * sizeof(oid));
	for (size_t i = 0; i < length; i++)
		name->subids[CLASS_DATA_PREFIX_LENGTH + i] = encoded[i];
	name->length = CLASS_DATA_PREFIX_LENGTH + length;
	stat_value(
	    tables, class_data_stat_column(row.datum->kind), &row, varbind);
	return AGENT_ANSWERED;
}

enum agent_answer
agent_tables_answer_request(struct agent_tables *tables, unsigned table,
    bool next, const struct schema_request_name *request,
    struct schema_row_name *name, netsnmp_variable_list *varbind)
{
	const struct table_shape *shape;
	oid prefix[ENTRY_PREFIX_LENGTH];
	const uint64_t *index = NULL;
	size_t index_length = 0;
	unsigned column;
	struct schema_index_row row;
	int order;

	if (table == SCHEMA_CLASS_DATA)
		return class_data_answer(tables, next, request, name, varbind);
	if (table < SCHEMA_TABLE_SUPPLIER || table > SCHEMA_TABLE_STAT)
		return next ? AGENT_END_OF_TABLE : AGENT_NO_SUCH_OBJECT;
	shape = &table_shapes[table];
	schema_entry_prefix(table, prefix);
	order = schema_request_name_compare_prefix(
	    request, prefix, ENTRY_PREFIX_LENGTH);

	if (!next) {
		if (order != 0 || request->length <= ENTRY_PREFIX_LENGTH)
			return AGENT_NO_SUCH_OBJECT;
		if (request->subids[ENTRY_PREFIX_LENGTH] <
		        shape->first_column ||
		    request->subids[ENTRY_PREFIX_LENGTH] > shape->last_column)
			return AGENT_NO_SUCH_OBJECT;
		column = (unsigned)request->subids[ENTRY_PREFIX_LENGTH];
		index = request->subids + ENTRY_PREFIX_LENGTH + 1;
		index_length = request->length - ENTRY_PREFIX_LENGTH - 1;
		if (request->truncated ||
		    !shape_find(tables, shape, column, index, index_length,
		        SCHEMA_INDEX_EXACT, &row))
			return AGENT_NO_SUCH_INSTANCE;
		answer_row(tables, shape, table, column, &row, name, varbind);
		return AGENT_ANSWERED;
	}

	/* GETNEXT: start at the requested column and index, or at the first
	 * column's first row when the request sorts before the entry. */
	column = shape->first_column;
	if (order > 0)
		return AGENT_END_OF_TABLE;
	if (order == 0 && request->length > ENTRY_PREFIX_LENGTH) {
		uint64_t requested = request->subids[ENTRY_PREFIX_LENGTH];
		if (requested > shape->last_column)
			return AGENT_END_OF_TABLE;
		if (requested >= shape->first_column) {
			column = (unsigned)requested;
			index = request->subids + ENTRY_PREFIX_LENGTH + 1;
			index_length =
			    request->length - ENTRY_PREFIX_LENGTH - 1;
		}
	}
	for (; column <= shape->last_column; column++) {
		if (shape_find(tables, shape, column, index, index_length,
		        SCHEMA_INDEX_NEXT, &row)) {
			answer_row(
			    tables, shape, table, column, &row, name, varbind);
			return AGENT_ANSWERED;
		}
		/* The next column starts at its first row. */
		index = NULL;
		index_length = 0;
	}
	return AGENT_END_OF_TABLE;
}

enum agent_answer
agent_tables_answer(struct agent_tables *tables, unsigned table, bool next,
    netsnmp_variable_list *varbind)
{
	struct schema_request_name request;
	struct schema_row_name name;
	enum agent_answer answer;

	schema_request_name_decode(
	    varbind->name, varbind->name_length, &request);
	answer = agent_tables_answer_request(
	    tables, table, next, &request, &name, varbind);
	if (answer == AGENT_ANSWERED)
		snmp_set_var_objid(varbind, name.subids, name.length);
	return answer;
}

/* The GETNEXT of `varbind`'s name as one more repetition of a GETBULK:
 * answered only when the row lies before `range_end`, where the agent's
 * registration for the table ends (what the agent checks of a repetition
 * it asks for itself). */
static bool
answer_repetition(struct agent_tables *tables, unsigned table,
    const netsnmp_request_info *request, netsnmp_variable_list *varbind)
{
	struct schema_request_name name_asked;
	struct schema_row_name name;

	schema_request_name_decode(
	    varbind->name, varbind->name_length, &name_asked);
	if (agent_tables_answer_request(tables, table, true, &name_asked, &name,
	        varbind) != AGENT_ANSWERED)
		return false;
	if (request->range_end != NULL &&
	    snmp_oid_compare(name.subids, name.length, request->range_end,
	        request->range_end_len) >= 0) {
		/* The value set above goes; the agent's next pass asks. */
		snmp_set_var_typed_value(varbind, ASN_PRIV_RETRY, NULL, 0);
		return false;
	}
	snmp_set_var_objid(varbind, name.subids, name.length);
	return true;
}

/* The whole table is in the request's VACM view: no repetition answered
 * here needs the view check the agent makes of each of its own. */
static bool
table_in_view(unsigned table, netsnmp_agent_request_info *request_info)
{
	oid root[ENTRY_PREFIX_LENGTH];

	schema_entry_prefix(table, root);
	return netsnmp_acm_check_subtree(request_info->asp->pdu, root,
	           ENTRY_PREFIX_LENGTH - 1) == VACM_SUCCESS;
}

void
agent_tables_answer_bulk(struct agent_tables *tables, unsigned table,
    netsnmp_agent_request_info *request_info, netsnmp_request_info *request)
{
	bool more;

	if (agent_tables_answer(tables, table, true, request->requestvb) !=
	    AGENT_ANSWERED)
		return; /* as it came: the agent asks the next registration */
	/* A view that hides part of the table: one repetition per pass, the
	 * agent checking each. */
	more = table_in_view(table, request_info);
	while (
	    request->repeat > 0 && request->requestvb->next_variable != NULL) {
		netsnmp_variable_list *answered = request->requestvb;
		netsnmp_variable_list *next = answered->next_variable;

		/* What Net-SNMP's bulk_to_next helper leaves for the agent's
		 * next pass: the next repetition named after this answer, to
		 * be retried. */
		request->repeat--;
		snmp_set_var_objid(next, answered->name, answered->name_length);
		snmp_set_var_typed_value(next, ASN_PRIV_RETRY, NULL, 0);
		request->requestvb = next;
		if (!more || !answer_repetition(tables, table, request, next))
			return;
	}
}

void
agent_tables_request_begin(struct agent_tables *tables)
{
	tables->clocks_read = false;
}
