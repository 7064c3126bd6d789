#define _GNU_SOURCE
#include "agent/tables.h"

#include <string.h>

#include <net-snmp/agent/null.h>

#include "agent/mib_oids.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/snapshot.h"
#include "core/value.h"
#include "agent/table_index.h"

#define ENTRY_PREFIX_LENGTH (AGENT_MIB_ARC_LENGTH + 3) /* .1.table.1 */

/* How one table finds its rows, encodes their index, and which columns it
 * has. For dciStatTable the column decides which rows exist. */
struct table_shape {
	unsigned first_column;
	unsigned last_column;
	bool (*find)(struct agent_tables *tables, unsigned column,
	    const uint64_t *index, size_t length, enum agent_index_mode mode,
	    struct agent_index_row *row);
	size_t (*encode)(const struct agent_index_row *row, uint32_t *index);
	void (*value)(struct agent_tables *tables, unsigned column,
	    const struct agent_index_row *row, netsnmp_variable_list *varbind);
};

bool
agent_tables_follow_uptime(struct agent_tables *tables,
    int64_t now_milliseconds_up, uint32_t uptime_centiseconds)
{
	int64_t bound = now_milliseconds_up - (int64_t)uptime_centiseconds * 10;
	int64_t offset = bound - tables->start_milliseconds;

	if (offset <= AGENT_UPTIME_TOLERANCE_MILLISECONDS &&
	    offset >= -AGENT_UPTIME_TOLERANCE_MILLISECONDS)
		return false;
	tables->start_milliseconds = bound;
	return true;
}

void
agent_tables_sync_uptime(struct agent_tables *tables)
{
	uint32_t uptime = (uint32_t)netsnmp_get_agent_uptime();

	if (agent_tables_follow_uptime(
	        tables, dci_clock_milliseconds_up(), uptime))
		agent_tables_find_start(tables);
}

void
agent_tables_find_start(struct agent_tables *tables)
{
	int64_t before = dci_clock_milliseconds();
	/* No close pair by then (a loaded machine, or a clock that does not
	 * move as Net-SNMP's does): the last bound is still one. */
	int64_t give_up = before + 50;
	uint32_t uptime = (uint32_t)netsnmp_get_agent_uptime();
	int64_t after = dci_clock_milliseconds_up();

	for (;;) {
		int64_t previous_before = before;
		uint32_t previous = uptime;

		before = dci_clock_milliseconds();
		uptime = (uint32_t)netsnmp_get_agent_uptime();
		after = dci_clock_milliseconds_up();
		/* The tick fell between the two readings: when they are close
		 * (not split by preemption), the bound is within that gap. */
		if (uptime != previous &&
		    after - previous_before <=
		        AGENT_START_PRECISION_MILLISECONDS)
			break;
		if (after >= give_up)
			break;
	}
	tables->start_milliseconds = after - (int64_t)uptime * 10;
}

uint32_t
agent_tables_timestamp(const struct agent_tables *tables, int64_t milliseconds)
{
	int64_t centiseconds = (milliseconds - tables->start_milliseconds) / 10;

	if (centiseconds <= 0)
		return 0;
	return (uint32_t)centiseconds;
}

static void
entry_prefix(unsigned table, oid *name)
{
	static const oid arc[] = {AGENT_MIB_ARC};

	memcpy(name, arc, sizeof(arc));
	name[AGENT_MIB_ARC_LENGTH] = AGENT_MIB_OBJECTS;
	name[AGENT_MIB_ARC_LENGTH + 1] = table;
	name[AGENT_MIB_ARC_LENGTH + 2] = 1;
}

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

static bool
supplier_find(struct agent_tables *tables, unsigned column,
    const uint64_t *index, size_t length, enum agent_index_mode mode,
    struct agent_index_row *row)
{
	return agent_index_supplier(tables->registry, index, length, mode, row);
}

static size_t
supplier_encode(const struct agent_index_row *row, uint32_t *index)
{
	index[0] = row->supplier->index;
	return 1;
}

static void
supplier_value(struct agent_tables *tables, unsigned column,
    const struct agent_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_supplier *supplier = row->supplier;

	switch (column) {
	case AGENT_SUPPLIER_MODULE:
		set_string(varbind, supplier->module);
		break;
	case AGENT_SUPPLIER_TITLE:
		set_string(varbind, supplier->title);
		break;
	case AGENT_SUPPLIER_DESCRIPTION:
		set_string(varbind, supplier->description);
		break;
	case AGENT_SUPPLIER_TYPE:
		set_unsigned(varbind, ASN_UNSIGNED, supplier->type);
		break;
	case AGENT_SUPPLIER_VERSION:
		set_unsigned(varbind, ASN_UNSIGNED, supplier->version);
		break;
	case AGENT_SUPPLIER_RESET:
		snmp_set_var_typed_value(varbind, ASN_OCTET_STR,
		    supplier->reset, sizeof(supplier->reset));
		break;
	case AGENT_SUPPLIER_STATUS:
		set_integer(varbind, supplier->status);
		break;
	case AGENT_SUPPLIER_DISCONTINUITY:
		set_unsigned(varbind, ASN_TIMETICKS,
		    agent_tables_timestamp(
		        tables, supplier->discontinuity_milliseconds));
		break;
	case AGENT_SUPPLIER_LAST_REFRESH:
		set_unsigned(varbind, ASN_TIMETICKS,
		    supplier->last_refresh_milliseconds == 0
		        ? 0
		        : agent_tables_timestamp(
		              tables, supplier->last_refresh_milliseconds));
		break;
	case AGENT_SUPPLIER_FAILURE:
		set_string(varbind, supplier->failure);
		break;
	}
}

/* --- dciClassTable --- */

static bool
class_find(struct agent_tables *tables, unsigned column, const uint64_t *index,
    size_t length, enum agent_index_mode mode, struct agent_index_row *row)
{
	return agent_index_class(tables->registry, index, length, mode, row);
}

static size_t
class_encode(const struct agent_index_row *row, uint32_t *index)
{
	return agent_index_encode_class(row->class, index);
}

static void
class_value(struct agent_tables *tables, unsigned column,
    const struct agent_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_class *class = row->class;

	switch (column) {
	case AGENT_CLASS_LABEL:
		set_string(varbind, class->label);
		break;
	case AGENT_CLASS_INSTANCE_LEVELS:
		set_unsigned(
		    varbind, ASN_UNSIGNED, (uint32_t) class->level_count);
		break;
	case AGENT_CLASS_DATUM_COUNT: {
		/* The rows of dciDatumTable: ST_UNUSED only reserves an id. */
		uint32_t served = 0;
		for (size_t i = 0; i < class->datum_count; i++)
			served += class->datums[i].kind != DCI_KIND_NONE;
		set_unsigned(varbind, ASN_UNSIGNED, served);
		break;
	}
	case AGENT_CLASS_SUPPLIER:
		set_unsigned(varbind, ASN_UNSIGNED, class->supplier->index);
		break;
	case AGENT_CLASS_INSTANCE_COUNT:
		set_unsigned(varbind, ASN_GAUGE,
		    class->snapshot ? (uint32_t) class->snapshot->count : 0);
		break;
	}
}

/* --- dciDatumTable --- */

static bool
datum_find(struct agent_tables *tables, unsigned column, const uint64_t *index,
    size_t length, enum agent_index_mode mode, struct agent_index_row *row)
{
	return agent_index_datum(tables->registry, index, length, mode, row);
}

static void
datum_value(struct agent_tables *tables, unsigned column,
    const struct agent_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_datum_info *info = &row->datum->info;

	switch (column) {
	case AGENT_DATUM_LABEL:
		set_string(varbind, info->label);
		break;
	case AGENT_DATUM_TYPE:
		set_integer(varbind, info->type);
		break;
	case AGENT_DATUM_FORMAT:
		set_unsigned(varbind, ASN_UNSIGNED, info->format);
		break;
	case AGENT_DATUM_PRESENTATION:
		set_unsigned(varbind, ASN_UNSIGNED, info->presentation);
		break;
	case AGENT_DATUM_SIZE:
		set_unsigned(varbind, ASN_UNSIGNED, info->size);
		break;
	case AGENT_DATUM_VOLATILITY:
		set_integer(varbind, (long)info->volatility);
		break;
	case AGENT_DATUM_UNITS:
		set_string(varbind, dci_value_unit_name(info->unit));
		break;
	case AGENT_DATUM_SEMANTICS:
		set_integer(varbind, info->semantics);
		break;
	case AGENT_DATUM_DESCRIPTION:
		set_string(varbind, info->description);
		break;
	}
}

/* --- dciInstanceTable --- */

static bool
instance_find(struct agent_tables *tables, unsigned column,
    const uint64_t *index, size_t length, enum agent_index_mode mode,
    struct agent_index_row *row)
{
	return agent_index_instance(tables->registry, index, length, mode, row);
}

/* RowPointer to the parent's dciInstanceLabel, or zeroDotZero. */
static void
set_parent_pointer(
    const struct agent_index_row *row, netsnmp_variable_list *varbind)
{
	static const oid zero_dot_zero[] = {0, 0};
	oid pointer[ENTRY_PREFIX_LENGTH + 1 + AGENT_INDEX_INDEX_MAX];
	uint32_t index[AGENT_INDEX_INDEX_MAX];
	size_t length = agent_index_encode_parent(row, index);

	if (length == 0) {
		snmp_set_var_typed_value(varbind, ASN_OBJECT_ID, zero_dot_zero,
		    sizeof(zero_dot_zero));
		return;
	}
	entry_prefix(AGENT_TABLE_INSTANCE, pointer);
	pointer[ENTRY_PREFIX_LENGTH] = AGENT_INSTANCE_LABEL;
	for (size_t i = 0; i < length; i++)
		pointer[ENTRY_PREFIX_LENGTH + 1 + i] = index[i];
	snmp_set_var_typed_value(varbind, ASN_OBJECT_ID, pointer,
	    (ENTRY_PREFIX_LENGTH + 1 + length) * sizeof(oid));
}

static void
instance_value(struct agent_tables *tables, unsigned column,
    const struct agent_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_instance_state *state =
	    &row->class->snapshot->instances[row->instance];

	switch (column) {
	case AGENT_INSTANCE_LABEL:
		set_string(varbind, state->label);
		break;
	case AGENT_INSTANCE_CREATED:
		set_unsigned(varbind, ASN_TIMETICKS,
		    agent_tables_timestamp(
		        tables, state->created_milliseconds));
		break;
	case AGENT_INSTANCE_DISCONTINUITY:
		set_unsigned(varbind, ASN_TIMETICKS,
		    agent_tables_timestamp(
		        tables, state->discontinuity_milliseconds));
		break;
	case AGENT_INSTANCE_PARENT:
		set_parent_pointer(row, varbind);
		break;
	}
}

/* --- dciStatTable --- */

static struct agent_index_filter
stat_filter(unsigned column)
{
	static const enum dci_value_kind kind_of_column[] = {
	    [AGENT_STAT_COUNTER64] = DCI_KIND_COUNTER64,
	    [AGENT_STAT_COUNTER32] = DCI_KIND_COUNTER32,
	    [AGENT_STAT_GAUGE32] = DCI_KIND_GAUGE32,
	    [AGENT_STAT_INTEGER32] = DCI_KIND_INTEGER32,
	    [AGENT_STAT_STRING] = DCI_KIND_STRING,
	    [AGENT_STAT_IP_ADDRESS] = DCI_KIND_IPADDRESS,
	    [AGENT_STAT_MAC_ADDRESS] = DCI_KIND_MACADDRESS,
	    [AGENT_STAT_TIME_TICKS] = DCI_KIND_TIMETICKS,
	    [AGENT_STAT_TRUTH_VALUE] = DCI_KIND_TRUTHVALUE,
	    [AGENT_STAT_HUNDREDTHS] = DCI_KIND_HUNDREDTHS,
	};
	struct agent_index_filter filter = {AGENT_INDEX_ALL_KINDS, false};

	if ((column >= AGENT_STAT_COUNTER64 &&
	        column <= AGENT_STAT_TRUTH_VALUE) ||
	    column == AGENT_STAT_HUNDREDTHS)
		filter.kinds = 1u << kind_of_column[column];
	else if (column == AGENT_STAT_DISCONTINUITY)
		filter.counters_only = true;
	return filter;
}

static bool
stat_find(struct agent_tables *tables, unsigned column, const uint64_t *index,
    size_t length, enum agent_index_mode mode, struct agent_index_row *row)
{
	struct agent_index_filter filter = stat_filter(column);

	return agent_index_stat(
	    tables->registry, index, length, mode, &filter, row);
}

/* TimeTicks of an ST_TIME value: durations as they are, absolute times as a
 * TimeStamp (sysUpTime at the event, 0 before the agent started or for
 * "no time"). */
static uint32_t
stat_time_ticks(struct agent_tables *tables, const struct dci_datum_info *info,
    const struct dci_value *value)
{
	int64_t event_milliseconds;

	if (info->presentation == DCI_STP_RELATIVE)
		return value->number > UINT32_MAX ? UINT32_MAX
		                                  : (uint32_t)value->number;
	switch (info->format) {
	case DCI_STF_MONOTONIC:
		if (value->number == 0)
			return 0;
		event_milliseconds = (int64_t)value->number * 10;
		break;
	case DCI_STF_CTIME:
	case DCI_STF_5BYTE: {
		struct timespec now;
		int64_t event_unix_milliseconds;
		if (info->format == DCI_STF_CTIME) {
			if (value->signed_number == 0)
				return 0;
			event_unix_milliseconds = value->signed_number * 1000;
		} else {
			if (value->number == 0)
				return 0;
			event_unix_milliseconds =
			    (int64_t)value->number * 10 - 2208988800000LL;
		}
		clock_gettime(CLOCK_REALTIME, &now);
		event_milliseconds =
		    dci_clock_milliseconds() -
		    ((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 -
		        event_unix_milliseconds);
		break;
	}
	default:
		return 0;
	}
	return agent_tables_timestamp(tables, event_milliseconds);
}

static void
stat_value(struct agent_tables *tables, unsigned column,
    const struct agent_index_row *row, netsnmp_variable_list *varbind)
{
	const struct dci_class *class = row->class;
	const struct dci_datum_info *info = &row->datum->info;
	const unsigned char *slot = dci_snapshot_slot(
	    class, class->snapshot, row->instance, row->datum);
	struct dci_value value;

	switch (column) {
	case AGENT_STAT_LABEL:
		set_string(varbind, info->label);
		return;
	case AGENT_STAT_TYPE:
		set_integer(varbind, info->type);
		return;
	case AGENT_STAT_TEXT:
		dci_value_render(
		    info, slot, tables->text, sizeof(tables->text));
		set_string(varbind, tables->text);
		return;
	case AGENT_STAT_DISCONTINUITY:
		set_unsigned(varbind, ASN_TIMETICKS,
		    agent_tables_timestamp(
		        tables, class->snapshot->instances[row->instance]
		                    .discontinuity_milliseconds));
		return;
	}

	dci_value_decode(info, slot, &value);
	switch (column) {
	case AGENT_STAT_COUNTER64: {
		struct counter64 number = {.high = value.number >> 32,
		    .low = value.number & 0xffffffffu};
		snmp_set_var_typed_value(
		    varbind, ASN_COUNTER64, &number, sizeof(number));
		break;
	}
	case AGENT_STAT_COUNTER32:
		set_unsigned(varbind, ASN_COUNTER, (uint32_t)value.number);
		break;
	case AGENT_STAT_GAUGE32:
		set_unsigned(varbind, ASN_GAUGE, (uint32_t)value.number);
		break;
	case AGENT_STAT_INTEGER32:
	case AGENT_STAT_HUNDREDTHS:
		set_integer(varbind, (long)value.signed_number);
		break;
	case AGENT_STAT_STRING:
	case AGENT_STAT_IP_ADDRESS:
	case AGENT_STAT_MAC_ADDRESS:
		snmp_set_var_typed_value(varbind,
		    column == AGENT_STAT_IP_ADDRESS ? ASN_IPADDRESS
		                                    : ASN_OCTET_STR,
		    value.bytes, value.length);
		break;
	case AGENT_STAT_TIME_TICKS:
		set_unsigned(varbind, ASN_TIMETICKS,
		    stat_time_ticks(tables, info, &value));
		break;
	case AGENT_STAT_TRUTH_VALUE:
		set_integer(varbind, value.truth ? 1 : 2);
		break;
	}
}

static const struct table_shape table_shapes[] = {
    [AGENT_TABLE_SUPPLIER] = {AGENT_SUPPLIER_MODULE, AGENT_SUPPLIER_FAILURE,
        supplier_find, supplier_encode, supplier_value},
    [AGENT_TABLE_CLASS] = {AGENT_CLASS_LABEL, AGENT_CLASS_INSTANCE_COUNT,
        class_find, class_encode, class_value},
    [AGENT_TABLE_DATUM] = {AGENT_DATUM_LABEL, AGENT_DATUM_DESCRIPTION,
        datum_find, agent_index_encode_datum, datum_value},
    [AGENT_TABLE_INSTANCE] = {AGENT_INSTANCE_LABEL, AGENT_INSTANCE_PARENT,
        instance_find, agent_index_encode_instance, instance_value},
    [AGENT_TABLE_STAT] = {AGENT_STAT_LABEL, AGENT_STAT_HUNDREDTHS, stat_find,
        agent_index_encode_stat, stat_value},
};

static void
answer_row(struct agent_tables *tables, const struct table_shape *shape,
    unsigned table, unsigned column, const struct agent_index_row *row,
    netsnmp_variable_list *varbind)
{
	oid name[ENTRY_PREFIX_LENGTH + 1 + AGENT_INDEX_INDEX_MAX];
	uint32_t index[AGENT_INDEX_INDEX_MAX];
	size_t length = shape->encode(row, index);

	entry_prefix(table, name);
	name[ENTRY_PREFIX_LENGTH] = column;
	for (size_t i = 0; i < length; i++)
		name[ENTRY_PREFIX_LENGTH + 1 + i] = index[i];
	snmp_set_var_objid(varbind, name, ENTRY_PREFIX_LENGTH + 1 + length);
	shape->value(tables, column, row, varbind);
}

/*
 * A sub-identifier of a request as a number. Net-SNMP's AgentX subagent
 * code sign-extends sub-identifiers of 2^31 and above into its 64-bit oid
 * (2172947406 arrives as 0xffffffff81848bce); such a value is the 32-bit
 * number the manager sent. Anything else is taken as it is, so that a
 * sub-identifier above 2^32 - 1 still sorts after every row.
 */
static uint64_t
request_subid(oid subid)
{
	uint64_t value = subid;

	if (value >= UINT64_C(0xffffffff80000000))
		return (uint32_t)value;
	return value;
}

/* --- dciClassData: one table per class ----------------------------------- */

#define CLASS_DATA_PREFIX_LENGTH (AGENT_MIB_ARC_LENGTH + 2) /* .1.6 */

/* A per-class column has the syntax of the datum's dciStatTable value
 * column; a signed 64-bit datum, which has none, is served as its text. */
static unsigned
class_data_stat_column(enum dci_value_kind kind)
{
	static const unsigned column_of_kind[] = {
	    [DCI_KIND_COUNTER64] = AGENT_STAT_COUNTER64,
	    [DCI_KIND_COUNTER32] = AGENT_STAT_COUNTER32,
	    [DCI_KIND_GAUGE32] = AGENT_STAT_GAUGE32,
	    [DCI_KIND_INTEGER32] = AGENT_STAT_INTEGER32,
	    [DCI_KIND_STRING] = AGENT_STAT_STRING,
	    [DCI_KIND_IPADDRESS] = AGENT_STAT_IP_ADDRESS,
	    [DCI_KIND_MACADDRESS] = AGENT_STAT_MAC_ADDRESS,
	    [DCI_KIND_TIMETICKS] = AGENT_STAT_TIME_TICKS,
	    [DCI_KIND_TRUTHVALUE] = AGENT_STAT_TRUTH_VALUE,
	    [DCI_KIND_TEXT_ONLY] = AGENT_STAT_TEXT,
	    [DCI_KIND_HUNDREDTHS] = AGENT_STAT_HUNDREDTHS,
	};

	return column_of_kind[kind];
}

static enum agent_answer
class_data_answer(
    struct agent_tables *tables, bool next, netsnmp_variable_list *varbind)
{
	oid prefix[ENTRY_PREFIX_LENGTH]; /* the first CLASS_DATA_PREFIX_LENGTH
	                                  */
	oid name[CLASS_DATA_PREFIX_LENGTH + AGENT_INDEX_INDEX_MAX];
	uint64_t index[MAX_OID_LEN];
	uint32_t encoded[AGENT_INDEX_INDEX_MAX];
	size_t index_length = 0, compared, length;
	struct agent_index_row row;
	int order;

	entry_prefix(AGENT_CLASS_DATA, prefix);
	compared = varbind->name_length < CLASS_DATA_PREFIX_LENGTH
	               ? varbind->name_length
	               : CLASS_DATA_PREFIX_LENGTH;
	order = snmp_oid_compare(varbind->name, compared, prefix, compared);
	if (order == 0 && varbind->name_length > CLASS_DATA_PREFIX_LENGTH) {
		index_length = varbind->name_length - CLASS_DATA_PREFIX_LENGTH;
		for (size_t i = 0; i < index_length; i++)
			index[i] = request_subid(
			    varbind->name[CLASS_DATA_PREFIX_LENGTH + i]);
	}
	if (!next) {
		if (order != 0 || index_length == 0)
			return AGENT_NO_SUCH_OBJECT;
		if (!agent_index_class_data(tables->registry, index, index_length,
		        AGENT_INDEX_EXACT, &row))
			return agent_index_class_data_column(
			           tables->registry, index, index_length)
			           ? AGENT_NO_SUCH_INSTANCE
			           : AGENT_NO_SUCH_OBJECT;
	} else {
		if (order > 0)
			return AGENT_END_OF_TABLE;
		if (!agent_index_class_data(tables->registry, index, index_length,
		        AGENT_INDEX_NEXT, &row))
			return AGENT_END_OF_TABLE;
	}
	length = agent_index_encode_class_data(&row, encoded);
	memcpy(name, prefix, CLASS_DATA_PREFIX_LENGTH * sizeof(oid));
	for (size_t i = 0; i < length; i++)
		name[CLASS_DATA_PREFIX_LENGTH + i] = encoded[i];
	snmp_set_var_objid(varbind, name, CLASS_DATA_PREFIX_LENGTH + length);
	stat_value(
	    tables, class_data_stat_column(row.datum->kind), &row, varbind);
	return AGENT_ANSWERED;
}

enum agent_answer
agent_tables_answer(struct agent_tables *tables, unsigned table, bool next,
    netsnmp_variable_list *varbind)
{
	const struct table_shape *shape;
	oid prefix[ENTRY_PREFIX_LENGTH];
	uint64_t index[MAX_OID_LEN];
	size_t index_length = 0, compared;
	unsigned column;
	struct agent_index_row row;
	int order;

	if (table == AGENT_CLASS_DATA)
		return class_data_answer(tables, next, varbind);
	if (table < AGENT_TABLE_SUPPLIER || table > AGENT_TABLE_STAT)
		return next ? AGENT_END_OF_TABLE : AGENT_NO_SUCH_OBJECT;
	shape = &table_shapes[table];
	entry_prefix(table, prefix);
	compared = varbind->name_length < ENTRY_PREFIX_LENGTH
	               ? varbind->name_length
	               : ENTRY_PREFIX_LENGTH;
	order = snmp_oid_compare(varbind->name, compared, prefix, compared);

	if (!next) {
		if (order != 0 || varbind->name_length <= ENTRY_PREFIX_LENGTH)
			return AGENT_NO_SUCH_OBJECT;
		column = (unsigned)varbind->name[ENTRY_PREFIX_LENGTH];
		if (column < shape->first_column || column > shape->last_column)
			return AGENT_NO_SUCH_OBJECT;
		index_length = varbind->name_length - ENTRY_PREFIX_LENGTH - 1;
		for (size_t i = 0; i < index_length; i++)
			index[i] = request_subid(
			    varbind->name[ENTRY_PREFIX_LENGTH + 1 + i]);
		if (!shape->find(tables, column, index, index_length,
		        AGENT_INDEX_EXACT, &row))
			return AGENT_NO_SUCH_INSTANCE;
		answer_row(tables, shape, table, column, &row, varbind);
		return AGENT_ANSWERED;
	}

	/* GETNEXT: start at the requested column and index, or at the first
	 * column's first row when the request sorts before the entry. */
	column = shape->first_column;
	if (order > 0)
		return AGENT_END_OF_TABLE;
	if (order == 0 && varbind->name_length > ENTRY_PREFIX_LENGTH) {
		oid requested = varbind->name[ENTRY_PREFIX_LENGTH];
		if (requested > shape->last_column)
			return AGENT_END_OF_TABLE;
		if (requested >= shape->first_column) {
			column = (unsigned)requested;
			index_length =
			    varbind->name_length - ENTRY_PREFIX_LENGTH - 1;
			for (size_t i = 0; i < index_length; i++)
				index[i] = request_subid(
				    varbind->name[ENTRY_PREFIX_LENGTH + 1 + i]);
		}
	}
	for (; column <= shape->last_column; column++) {
		if (shape->find(tables, column, index, index_length,
		        AGENT_INDEX_NEXT, &row)) {
			answer_row(tables, shape, table, column, &row, varbind);
			return AGENT_ANSWERED;
		}
		index_length = 0; /* the next column starts at its first row */
	}
	return AGENT_END_OF_TABLE;
}

/* --- AgentX requests answered in place ----------------------------------- */

/* The tables in OID order: dciSupplierTable .. dciStatTable, then
 * dciClassData. */
#define FIRST_TABLE AGENT_TABLE_SUPPLIER
#define LAST_TABLE AGENT_CLASS_DATA
#define TABLE_SUBID (AGENT_MIB_ARC_LENGTH + 1) /* .1.<table> */

/* The table a name lies under, or 0. */
static unsigned
table_of(const oid *name, size_t length)
{
	oid prefix[ENTRY_PREFIX_LENGTH];

	if (length <= TABLE_SUBID)
		return 0;
	entry_prefix(FIRST_TABLE, prefix);
	if (snmp_oid_compare(name, TABLE_SUBID, prefix, TABLE_SUBID) != 0 ||
	    name[TABLE_SUBID] < FIRST_TABLE || name[TABLE_SUBID] > LAST_TABLE)
		return 0;
	return (unsigned)name[TABLE_SUBID];
}

/* The first table a GETNEXT from `name` can find anything in; past
 * LAST_TABLE when there is none. */
static unsigned
first_table_after(const oid *name, size_t length)
{
	oid prefix[ENTRY_PREFIX_LENGTH];
	size_t compared = length < TABLE_SUBID ? length : TABLE_SUBID;
	int order;

	entry_prefix(FIRST_TABLE, prefix);
	order = snmp_oid_compare(name, compared, prefix, compared);
	if (order < 0 || length <= TABLE_SUBID)
		return order > 0 ? LAST_TABLE + 1 : FIRST_TABLE;
	if (name[TABLE_SUBID] < FIRST_TABLE)
		return FIRST_TABLE;
	return name[TABLE_SUBID] > LAST_TABLE ? LAST_TABLE + 1
	                                      : (unsigned)name[TABLE_SUBID];
}

static void
answer_get(struct agent_tables *tables, netsnmp_variable_list *varbind)
{
	unsigned table = table_of(varbind->name, varbind->name_length);
	enum agent_answer answer =
	    table == 0 ? AGENT_NO_SUCH_OBJECT
	               : agent_tables_answer(tables, table, false, varbind);

	if (answer == AGENT_NO_SUCH_OBJECT)
		snmp_set_var_typed_value(varbind, SNMP_NOSUCHOBJECT, NULL, 0);
	else if (answer == AGENT_NO_SUCH_INSTANCE)
		snmp_set_var_typed_value(varbind, SNMP_NOSUCHINSTANCE, NULL, 0);
}

/* An AgentX GetNext SearchRange: the varbind's name is the start, its
 * value the end (0.0: none), its type says whether the start itself is
 * included (RFC 2741, 5.2). The answer must lie before the end; else the
 * varbind is the start with endOfMibView, as Net-SNMP's subagent does. */
static void
answer_getnext(struct agent_tables *tables, netsnmp_variable_list *varbind)
{
	static const oid null_oid[] = {0, 0};
	oid start[MAX_OID_LEN], end[MAX_OID_LEN];
	size_t start_length = varbind->name_length, end_length = 0;
	bool inclusive = varbind->type == ASN_PRIV_INCL_RANGE;
	bool found = false;

	memcpy(start, varbind->name, start_length * sizeof(oid));
	if ((varbind->type == ASN_PRIV_INCL_RANGE ||
	        varbind->type == ASN_PRIV_EXCL_RANGE) &&
	    varbind->val.objid != NULL) {
		end_length = varbind->val_len / sizeof(oid);
		if (end_length > MAX_OID_LEN)
			end_length = MAX_OID_LEN;
		memcpy(end, varbind->val.objid, end_length * sizeof(oid));
		if (snmp_oid_compare(end, end_length, null_oid, 2) == 0)
			end_length = 0;
	}
	if (inclusive) {
		unsigned table = table_of(start, start_length);
		found = table != 0 && agent_tables_answer(tables, table, false,
		                          varbind) == AGENT_ANSWERED;
	}
	for (unsigned table = first_table_after(start, start_length);
	     !found && table <= LAST_TABLE; table++)
		found = agent_tables_answer(tables, table, true, varbind) ==
		        AGENT_ANSWERED;
	if (found && end_length > 0 &&
	    snmp_oid_compare(
	        varbind->name, varbind->name_length, end, end_length) >= 0)
		found = false;
	if (!found) {
		snmp_set_var_objid(varbind, start, start_length);
		snmp_set_var_typed_value(varbind, SNMP_ENDOFMIBVIEW, NULL, 0);
	}
}

void
agent_tables_answer_agentx(
    struct agent_tables *tables, bool next, netsnmp_variable_list *varbinds)
{
	if (tables->before_request != NULL)
		tables->before_request();
	agent_tables_sync_uptime(tables);
	for (netsnmp_variable_list *varbind = varbinds; varbind != NULL;
	     varbind = varbind->next_variable) {
		if (next)
			answer_getnext(tables, varbind);
		else
			answer_get(tables, varbind);
	}
}

#define BEFORE_REQUEST_MARK "dcistatBeforeRequest"

/* Runs tables->before_request at the first table varbind of a PDU: a mark
 * in the PDU's request info, freed with it, says it ran. */
static void
before_request_once(
    struct agent_tables *tables, netsnmp_agent_request_info *request_info)
{
	netsnmp_data_list *mark;

	if (tables->before_request == NULL ||
	    netsnmp_agent_get_list_data(request_info, BEFORE_REQUEST_MARK) !=
	        NULL)
		return;
	mark = netsnmp_create_data_list(BEFORE_REQUEST_MARK, tables, NULL);
	if (mark != NULL)
		netsnmp_agent_add_list_data(request_info, mark);
	tables->before_request();
}

static int
agent_tables_handle(netsnmp_mib_handler *handler,
    netsnmp_handler_registration *registration,
    netsnmp_agent_request_info *request_info, netsnmp_request_info *requests)
{
	struct agent_tables *tables = handler->myvoid;
	unsigned table =
	    (unsigned)registration->rootoid[registration->rootoid_len - 1];

	before_request_once(tables, request_info);
	agent_tables_sync_uptime(tables);

	for (netsnmp_request_info *request = requests; request != NULL;
	     request = request->next) {
		enum agent_answer answer;

		if (request->processed)
			continue;
		switch (request_info->mode) {
		case MODE_GET:
			answer = agent_tables_answer(
			    tables, table, false, request->requestvb);
			if (answer == AGENT_NO_SUCH_OBJECT)
				netsnmp_set_request_error(
				    request_info, request, SNMP_NOSUCHOBJECT);
			else if (answer == AGENT_NO_SUCH_INSTANCE)
				netsnmp_set_request_error(
				    request_info, request, SNMP_NOSUCHINSTANCE);
			break;
		case MODE_GETNEXT:
			/* At the end of the table the varbind is left as it
			 * came: the agent then asks the next registration. */
			agent_tables_answer(
			    tables, table, true, request->requestvb);
			break;
		default:
			netsnmp_set_request_error(
			    request_info, request, SNMP_ERR_NOTWRITABLE);
			break;
		}
	}
	return SNMP_ERR_NOERROR;
}

static netsnmp_handler_registration *registrations[AGENT_CLASS_DATA + 1];

int
agent_tables_register(struct agent_tables *tables)
{
	static const char *const names[] = {
	    [AGENT_TABLE_SUPPLIER] = "dciSupplierTable",
	    [AGENT_TABLE_CLASS] = "dciClassTable",
	    [AGENT_TABLE_DATUM] = "dciDatumTable",
	    [AGENT_TABLE_INSTANCE] = "dciInstanceTable",
	    [AGENT_TABLE_STAT] = "dciStatTable",
	    [AGENT_CLASS_DATA] = "dciClassData",
	};

	for (unsigned table = AGENT_TABLE_SUPPLIER; table <= AGENT_CLASS_DATA;
	     table++) {
		oid root[ENTRY_PREFIX_LENGTH];
		netsnmp_mib_handler *handler;

		entry_prefix(table, root);
		handler =
		    netsnmp_create_handler(names[table], agent_tables_handle);
		if (handler == NULL)
			return -1;
		handler->myvoid = tables;
		registrations[table] =
		    netsnmp_handler_registration_create(names[table], handler,
		        root, ENTRY_PREFIX_LENGTH - 1, HANDLER_CAN_RONLY);
		if (registrations[table] == NULL ||
		    netsnmp_register_handler(registrations[table]) !=
		        MIB_REGISTERED_OK) {
			log_warnx("agent: cannot register %s", names[table]);
			return -1;
		}
		log_debug("agent", "registered %s", names[table]);
	}
	return 0;
}

/* A registration's handler chain ends in ours, or is Net-SNMP's null
 * handler (the placeholders of the roots 0, 1 and 2, which answer nothing
 * in any case). */
static bool
registration_ours(const netsnmp_handler_registration *registration, bool *null)
{
	const netsnmp_mib_handler *handler =
	    registration != NULL ? registration->handler : NULL;

	if (handler == NULL)
		return false;
	if (handler->access_method == netsnmp_null_handler &&
	    handler->next == NULL) {
		*null = true;
		return true;
	}
	while (handler->next != NULL)
		handler = handler->next;
	*null = false;
	return handler->access_method == agent_tables_handle;
}

bool
agent_tables_alone(void)
{
	unsigned ours = 0;

	for (netsnmp_subtree *subtree = netsnmp_subtree_find_first("");
	     subtree != NULL; subtree = subtree->next) {
		for (netsnmp_subtree *child = subtree; child != NULL;
		     child = child->children) {
			bool null;

			if (!registration_ours(child->reginfo, &null))
				return false;
			ours += !null;
		}
	}
	return ours > 0;
}

void
agent_tables_unregister(void)
{
	for (unsigned table = AGENT_TABLE_SUPPLIER; table <= AGENT_CLASS_DATA;
	     table++) {
		if (registrations[table] != NULL)
			netsnmp_unregister_handler(registrations[table]);
		registrations[table] = NULL;
	}
}
