/*
 * Unit tests for src/agent/tables.c, agentx_answer.c and timestamps.c: GET and GETNEXT on real Net-SNMP
 * varbinds over the standard registry of fixtures.h. Every answer's full
 * OID (.1.3.6.1.4.1.8072.9999.9999.4040.1.TABLE.1.COLUMN.index), type and
 * value is checked; whole-table walks are compared with the row oracle.
 * No agent is started: only the library's varbind helpers are used.
 */
#include "agent/tables.h"
#include "agent/agentx_answer.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snmp/mib_oids.h"
#include "base/clock.h"
#include "fixtures.h"

#define START_MILLISECONDS 1000
/* (FX_COMMIT_MILLISECONDS - START_MILLISECONDS) / 10 */
#define COMMIT_TICKS 400

static struct agent_tables *tables;

static void
setup(void)
{
	netsnmp_ds_set_boolean(
	    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	tables = calloc(1, sizeof(*tables));
	ck_assert_ptr_nonnull(tables);
	tables->registry = fx_standard_registry();
	tables->timestamps.start_milliseconds = START_MILLISECONDS;
}

static void
teardown(void)
{
	dci_registry_free(tables->registry);
	free(tables);
	tables = NULL;
}

/* --- OIDs --------------------------------------------------------------- */

static const oid arc[] = {SCHEMA_MIB_ARC, SCHEMA_MIB_OBJECTS};
#define ARC_LENGTH (SCHEMA_MIB_ARC_LENGTH + 1)
#define ENTRY_LENGTH (ARC_LENGTH + 2)

struct name {
	oid subids[MAX_OID_LEN];
	size_t length;
};

/* .arc.1.table (depth 0), .table.1 (1), .table.1.column (2), then the
 * index. */
static struct name
name_of(unsigned table, int depth, unsigned column, const uint64_t *index,
    size_t index_length)
{
	struct name name;

	memcpy(name.subids, arc, sizeof(arc));
	name.length = ARC_LENGTH;
	name.subids[name.length++] = table;
	if (depth >= 1)
		name.subids[name.length++] = 1;
	if (depth >= 2)
		name.subids[name.length++] = column;
	for (size_t i = 0; i < index_length; i++)
		name.subids[name.length++] = (oid)index[i];
	return name;
}

#define NAME(table, column, ...)                                               \
	name_of((table), 2, (column), (const uint64_t[]){__VA_ARGS__},         \
	    sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))
#define COLUMN(table, column) name_of((table), 2, (column), NULL, 0)
#define ENTRY(table) name_of((table), 1, 0, NULL, 0)
#define TABLE(table) name_of((table), 0, 0, NULL, 0)

static const char *
name_text(const oid *subids, size_t length, char *text, size_t text_size)
{
	size_t used = 0;

	text[0] = '\0';
	for (size_t i = 0; i < length && used < text_size; i++)
		used += (size_t)snprintf(text + used, text_size - used, ".%lu",
		    (unsigned long)subids[i]);
	return text;
}

static netsnmp_variable_list *
varbind_for(const struct name *name)
{
	netsnmp_variable_list *list = NULL;
	netsnmp_variable_list *varbind = snmp_varlist_add_variable(
	    &list, name->subids, name->length, ASN_NULL, NULL, 0);

	ck_assert_ptr_nonnull(varbind);
	ck_assert_ptr_eq(varbind, list);
	return varbind;
}

static void
assert_name(const netsnmp_variable_list *varbind, const struct name *expected)
{
	char got[1024], want[1024];

	ck_assert_msg(snmp_oid_compare(varbind->name, varbind->name_length,
	                  expected->subids, expected->length) == 0,
	    "answer %s, expected %s",
	    name_text(varbind->name, varbind->name_length, got, sizeof(got)),
	    name_text(expected->subids, expected->length, want, sizeof(want)));
}

/* Asks once; returns the answer with the varbind for inspection (the
 * caller frees it). */
static netsnmp_variable_list *
ask(unsigned table, bool next, struct name request, enum agent_answer expected)
{
	netsnmp_variable_list *varbind = varbind_for(&request);
	enum agent_answer answer =
	    agent_tables_answer(tables, table, next, varbind);
	char text[1024];

	ck_assert_msg(answer == expected, "%s %s: answer %d, expected %d",
	    next ? "GETNEXT" : "GET",
	    name_text(request.subids, request.length, text, sizeof(text)),
	    answer, expected);
	if (answer != AGENT_ANSWERED)
		/* Nothing answered: the varbind is left as it came. */
		assert_name(varbind, &request);
	return varbind;
}

static void
assert_string(const netsnmp_variable_list *varbind, const char *expected)
{
	ck_assert_int_eq(varbind->type, ASN_OCTET_STR);
	ck_assert_uint_eq(varbind->val_len, strlen(expected));
	ck_assert_mem_eq(varbind->val.string, expected, varbind->val_len);
}

static void
assert_number(const netsnmp_variable_list *varbind, u_char type, long value)
{
	ck_assert_int_eq(varbind->type, type);
	ck_assert_ptr_nonnull(varbind->val.integer);
	ck_assert_int_eq(*varbind->val.integer, value);
}

static void
assert_counter64(const netsnmp_variable_list *varbind, uint64_t value)
{
	ck_assert_int_eq(varbind->type, ASN_COUNTER64);
	ck_assert_uint_eq(varbind->val_len, sizeof(struct counter64));
	ck_assert_uint_eq(varbind->val.counter64->high, value >> 32);
	ck_assert_uint_eq(varbind->val.counter64->low, value & 0xffffffffu);
}

/* GET `name` in `table`, expect it answered with the same name. */
static netsnmp_variable_list *
get(unsigned table, struct name name)
{
	netsnmp_variable_list *varbind =
	    ask(table, false, name, AGENT_ANSWERED);

	assert_name(varbind, &name);
	return varbind;
}

/* GETNEXT `request`, expect `expected` as the answer's name. */
static netsnmp_variable_list *
get_next(unsigned table, struct name request, struct name expected)
{
	netsnmp_variable_list *varbind =
	    ask(table, true, request, AGENT_ANSWERED);

	assert_name(varbind, &expected);
	return varbind;
}

/* GET `name` in `table`: answered with the same name, a string `expected`. */
static void
assert_get_string(unsigned table, struct name name, const char *expected)
{
	netsnmp_variable_list *varbind = get(table, name);

	assert_string(varbind, expected);
	snmp_free_varbind(varbind);
}

/* GET `name` in `table`: answered with the same name, a number of `type`. */
static void
assert_get_number(unsigned table, struct name name, u_char type, long value)
{
	netsnmp_variable_list *varbind = get(table, name);

	assert_number(varbind, type, value);
	snmp_free_varbind(varbind);
}

/* GET `name` in `table`: answered with the same name, `length` octets
 * `bytes` of `type`. */
static void
assert_get_bytes(unsigned table, struct name name, u_char type,
    const void *bytes, size_t length)
{
	netsnmp_variable_list *varbind = get(table, name);

	ck_assert_int_eq(varbind->type, type);
	ck_assert_uint_eq(varbind->val_len, length);
	ck_assert_mem_eq(varbind->val.string, bytes, length);
	snmp_free_varbind(varbind);
}

/* GETNEXT `request` in `table`: answered by `expected`, a string `text`. */
static void
assert_next_string(
    unsigned table, struct name request, struct name expected, const char *text)
{
	netsnmp_variable_list *varbind = get_next(table, request, expected);

	assert_string(varbind, text);
	snmp_free_varbind(varbind);
}

/* GETNEXT `request` in `table`: answered by `expected`, a number of `type`. */
static void
assert_next_number(unsigned table, struct name request, struct name expected,
    u_char type, long value)
{
	netsnmp_variable_list *varbind = get_next(table, request, expected);

	assert_number(varbind, type, value);
	snmp_free_varbind(varbind);
}

/* --- GETNEXT from outside the rows -------------------------------------- */

START_TEST(getnext_on_table_oid_gives_first_column_first_row)
{
	netsnmp_variable_list *varbind;

	assert_next_string(SCHEMA_TABLE_STAT, TABLE(SCHEMA_TABLE_STAT),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 1, 2, 1, 0, 1),
	    "uptime_delta");
	varbind = get_next(SCHEMA_TABLE_STAT, ENTRY(SCHEMA_TABLE_STAT),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 1, 2, 1, 0, 1));
	snmp_free_varbind(varbind);

	assert_next_string(SCHEMA_TABLE_SUPPLIER, TABLE(SCHEMA_TABLE_SUPPLIER),
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_MODULE, 1), "alpha");

	assert_next_string(SCHEMA_TABLE_CLASS, TABLE(SCHEMA_TABLE_CLASS),
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LABEL, 1, 2), "system");

	assert_next_string(SCHEMA_TABLE_DATUM, TABLE(SCHEMA_TABLE_DATUM),
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_LABEL, 1, 2, 1),
	    "uptime_delta");

	assert_next_string(SCHEMA_TABLE_INSTANCE, TABLE(SCHEMA_TABLE_INSTANCE),
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_LABEL, 1, 2, 1, 0),
	    "system");
}
END_TEST

START_TEST(getnext_before_and_after_the_table)
{
	static const oid before[] = {1, 3, 6, 1};
	struct name request = {.length = COUNT_OF(before)};
	netsnmp_variable_list *varbind;

	/* Anything that sorts before the entry starts at the first row. */
	memcpy(request.subids, before, sizeof(before));
	varbind = get_next(SCHEMA_TABLE_STAT, request,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 1, 2, 1, 0, 1));
	snmp_free_varbind(varbind);
	varbind = get_next(SCHEMA_TABLE_STAT, ENTRY(SCHEMA_TABLE_INSTANCE),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 1, 2, 1, 0, 1));
	snmp_free_varbind(varbind);
	/* Anything after the table is past its end. */
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, true, TABLE(SCHEMA_CLASS_DATA),
	    AGENT_END_OF_TABLE));
	snmp_free_varbind(ask(SCHEMA_TABLE_SUPPLIER, true,
	    ENTRY(SCHEMA_TABLE_CLASS), AGENT_END_OF_TABLE));
	/* Table numbers outside the known tables. */
	snmp_free_varbind(
	    ask(0, true, TABLE(SCHEMA_TABLE_STAT), AGENT_END_OF_TABLE));
	snmp_free_varbind(ask(SCHEMA_CLASS_DATA + 1, false,
	    NAME(SCHEMA_CLASS_DATA + 1, 1, 1), AGENT_NO_SUCH_OBJECT));
	/* In dciClassData, a class's levels alone name no column. */
	snmp_free_varbind(ask(SCHEMA_CLASS_DATA, false,
	    NAME(SCHEMA_CLASS_DATA, 1, 1), AGENT_NO_SUCH_OBJECT));
}
END_TEST

START_TEST(getnext_past_last_column_is_end)
{
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, true,
	    COLUMN(SCHEMA_TABLE_STAT, SCHEMA_STAT_DISCONTINUITY + 1),
	    AGENT_END_OF_TABLE));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, true,
	    NAME(SCHEMA_TABLE_STAT, 99, 1, 2), AGENT_END_OF_TABLE));
	snmp_free_varbind(ask(SCHEMA_TABLE_SUPPLIER, true,
	    COLUMN(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_FAILURE + 1),
	    AGENT_END_OF_TABLE));
	snmp_free_varbind(ask(SCHEMA_TABLE_INSTANCE, true,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_PARENT + 1, 0),
	    AGENT_END_OF_TABLE));
	/* The last row of the last column. */
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, true,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_DISCONTINUITY, 2, 1, 2, 3, 2, 0,
	        1, 3),
	    AGENT_END_OF_TABLE));
	snmp_free_varbind(ask(SCHEMA_TABLE_SUPPLIER, true,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_FAILURE, 3),
	    AGENT_END_OF_TABLE));
}
END_TEST

START_TEST(getnext_on_column_zero_gives_first_column)
{
	netsnmp_variable_list *varbind;

	varbind = get_next(SCHEMA_TABLE_STAT, COLUMN(SCHEMA_TABLE_STAT, 0),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 1, 2, 1, 0, 1));
	snmp_free_varbind(varbind);
	/* Its index does not matter: column 0 sorts before column 1. */
	varbind = get_next(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, 0, 2, 1, 2, 3, 2, 0, 1, 4),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 1, 2, 1, 0, 1));
	snmp_free_varbind(varbind);
	/* dciSupplierTable's first column is 2: column 1 (the index, not
	 * accessible) leads there too. */
	varbind =
	    get_next(SCHEMA_TABLE_SUPPLIER, NAME(SCHEMA_TABLE_SUPPLIER, 1, 3),
	        NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_MODULE, 1));
	snmp_free_varbind(varbind);
}
END_TEST

START_TEST(getnext_moves_to_next_column_after_last_row)
{
	netsnmp_variable_list *varbind;

	/* Last Counter64 row -> first Counter32 row. */
	assert_next_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 2, 1, 1, 1, 30, 2),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER32, 2, 1, 2, 3, 1, 7, 8,
	        3),
	    ASN_COUNTER, 100);
	/* A sub-identifier above 2^32-1 in the index: after every row of the
	 * column. */
	varbind = get_next(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 2, 1, 1, 1,
	        UINT64_C(1) << 40),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER32, 2, 1, 2, 3, 1, 7, 8,
	        3));
	snmp_free_varbind(varbind);
	varbind = get_next(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 2, 1, 1, 1,
	        (UINT64_C(1) << 32) + 10),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER32, 2, 1, 2, 3, 1, 7, 8,
	        3));
	snmp_free_varbind(varbind);
	/* The column's index continues within the column. */
	varbind = get_next(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 2, 1, 1, 1, 10, 2),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 2, 1, 1, 1, 20, 2));
	assert_counter64(varbind, FX_NETIF_RX_ETH1);
	snmp_free_varbind(varbind);
	assert_next_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_GAUGE32, 2, 1, 1, 1, 10, 5),
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_GAUGE32, 2, 1, 1, 1, 30, 5),
	    ASN_GAUGE, 0);
}
END_TEST

/* --- Whole-table walks -------------------------------------------------- */

/* The rows each dciStatTable column holds, as the MIB describes them. */
static bool
column_filter(unsigned column, struct schema_index_filter *filter)
{
	static const struct {
		unsigned column;
		enum dci_value_kind kind;
	} kinds[] = {
	    {SCHEMA_STAT_COUNTER64, DCI_KIND_COUNTER64},
	    {SCHEMA_STAT_COUNTER32, DCI_KIND_COUNTER32},
	    {SCHEMA_STAT_GAUGE32, DCI_KIND_GAUGE32},
	    {SCHEMA_STAT_INTEGER32, DCI_KIND_INTEGER32},
	    {SCHEMA_STAT_STRING, DCI_KIND_STRING},
	    {SCHEMA_STAT_IP_ADDRESS, DCI_KIND_IPADDRESS},
	    {SCHEMA_STAT_MAC_ADDRESS, DCI_KIND_MACADDRESS},
	    {SCHEMA_STAT_TIME_TICKS, DCI_KIND_TIMETICKS},
	    {SCHEMA_STAT_TRUTH_VALUE, DCI_KIND_TRUTHVALUE},
	};

	filter->kinds = SCHEMA_INDEX_ALL_KINDS;
	filter->counters_only = column == SCHEMA_STAT_DISCONTINUITY;
	for (size_t i = 0; i < COUNT_OF(kinds); i++) {
		if (kinds[i].column == column)
			filter->kinds = 1u << kinds[i].kind;
	}
	return column >= SCHEMA_STAT_LABEL && column <= SCHEMA_STAT_DISCONTINUITY;
}

static u_char
column_type(unsigned column)
{
	switch (column) {
	case SCHEMA_STAT_LABEL:
	case SCHEMA_STAT_TEXT:
	case SCHEMA_STAT_STRING:
	case SCHEMA_STAT_MAC_ADDRESS:
		return ASN_OCTET_STR;
	case SCHEMA_STAT_TYPE:
	case SCHEMA_STAT_INTEGER32:
	case SCHEMA_STAT_TRUTH_VALUE:
		return ASN_INTEGER;
	case SCHEMA_STAT_COUNTER64:
		return ASN_COUNTER64;
	case SCHEMA_STAT_COUNTER32:
		return ASN_COUNTER;
	case SCHEMA_STAT_GAUGE32:
		return ASN_GAUGE;
	case SCHEMA_STAT_IP_ADDRESS:
		return ASN_IPADDRESS;
	default:
		return ASN_TIMETICKS;
	}
}

/* Walks a table from its OID, feeding each answer back in. Checks every
 * answer sorts after the one before, lies under the table's entry, and
 * that the walk ends with AGENT_END_OF_TABLE. Calls `check` for each
 * answer with its column and index. Returns the number of answers. */
static size_t
walk_table(unsigned table,
    void (*check)(unsigned column, const struct fx_index *index,
        const netsnmp_variable_list *varbind, void *context),
    void *context)
{
	struct name request = TABLE(table);
	netsnmp_variable_list *varbind = varbind_for(&request);
	oid previous[MAX_OID_LEN];
	size_t previous_length = 0, answers = 0;
	enum agent_answer answer;
	struct name entry = ENTRY(table);

	while ((answer = agent_tables_answer(tables, table, true, varbind)) ==
	       AGENT_ANSWERED) {
		struct fx_index index = {.length = 0};
		char text[1024];

		name_text(
		    varbind->name, varbind->name_length, text, sizeof(text));
		ck_assert_msg(
		    varbind->name_length > ENTRY_LENGTH + 1, "%s", text);
		ck_assert_msg(snmp_oid_compare(varbind->name, ENTRY_LENGTH,
		                  entry.subids, entry.length) == 0,
		    "%s is outside the table", text);
		if (answers > 0)
			ck_assert_msg(
			    snmp_oid_compare(previous, previous_length,
			        varbind->name, varbind->name_length) < 0,
			    "%s does not sort after the answer before", text);
		for (size_t i = ENTRY_LENGTH + 1; i < varbind->name_length; i++)
			fx_index_push(&index, varbind->name[i]);
		check((unsigned)varbind->name[ENTRY_LENGTH], &index, varbind,
		    context);
		memcpy(previous, varbind->name,
		    varbind->name_length * sizeof(oid));
		previous_length = varbind->name_length;
		answers++;
		ck_assert_uint_lt(answers, 10000);
	}
	ck_assert_int_eq(answer, AGENT_END_OF_TABLE);
	snmp_free_varbind(varbind);
	return answers;
}

struct stat_walk {
	unsigned column;
	size_t position; /* in the column's oracle rows */
	struct fx_rows rows;
	size_t per_column[SCHEMA_STAT_DISCONTINUITY + 1];
};

static void
check_stat_answer(unsigned column, const struct fx_index *index,
    const netsnmp_variable_list *varbind, void *context)
{
	struct stat_walk *walk = context;
	struct schema_index_filter filter;
	const struct fx_row *row;
	char text[512], expected[512];

	ck_assert_msg(column_filter(column, &filter), "column %u", column);
	if (column != walk->column) {
		/* Columns come in order, and each only after the one before
		 * gave all its rows. */
		ck_assert_uint_gt(column, walk->column);
		if (walk->column != 0)
			ck_assert_uint_eq(walk->position, walk->rows.count);
		for (unsigned skipped = walk->column + 1; skipped < column;
		     skipped++) {
			struct fx_rows none;
			struct schema_index_filter skipped_filter;
			column_filter(skipped, &skipped_filter);
			fx_oracle(
			    tables->registry, FX_STAT, &skipped_filter, &none);
			ck_assert_msg(none.count == 0,
			    "column %u with %zu rows was skipped", skipped,
			    none.count);
			fx_rows_free(&none);
		}
		fx_rows_free(&walk->rows);
		fx_oracle(tables->registry, FX_STAT, &filter, &walk->rows);
		walk->column = column;
		walk->position = 0;
	}
	ck_assert_msg(walk->position < walk->rows.count,
	    "column %u: extra row %s", column,
	    fx_index_text(index, text, sizeof(text)));
	row = &walk->rows.rows[walk->position++];
	ck_assert_msg(fx_index_compare(index, &row->index) == 0,
	    "column %u: row %s, expected %s", column,
	    fx_index_text(index, text, sizeof(text)),
	    fx_index_text(&row->index, expected, sizeof(expected)));
	ck_assert_int_eq(varbind->type, column_type(column));
	walk->per_column[column]++;

	switch (column) {
	case SCHEMA_STAT_LABEL:
		assert_string(varbind, row->datum->info.label);
		break;
	case SCHEMA_STAT_TYPE:
		assert_number(varbind, ASN_INTEGER, row->datum->info.type);
		break;
	case SCHEMA_STAT_DISCONTINUITY:
		ck_assert_int_eq(
		    row->datum->info.semantics, DCI_SEMANTICS_COUNTER);
		assert_number(varbind, ASN_TIMETICKS, COMMIT_TICKS);
		break;
	default:
		ck_assert_uint_ne(row->datum->kind, DCI_KIND_NONE);
		break;
	}
}

START_TEST(stat_table_walk_visits_columns_in_order)
{
	static const size_t expected[SCHEMA_STAT_DISCONTINUITY + 1] = {
	    [SCHEMA_STAT_LABEL] = FX_STAT_ROWS,
	    [SCHEMA_STAT_TYPE] = FX_STAT_ROWS,
	    [SCHEMA_STAT_TEXT] = FX_STAT_ROWS,
	    [SCHEMA_STAT_COUNTER64] = 3,
	    [SCHEMA_STAT_COUNTER32] = 2,
	    [SCHEMA_STAT_GAUGE32] = 2,
	    [SCHEMA_STAT_INTEGER32] = 2,
	    [SCHEMA_STAT_STRING] = 3,
	    [SCHEMA_STAT_IP_ADDRESS] = 1,
	    [SCHEMA_STAT_MAC_ADDRESS] = 1,
	    [SCHEMA_STAT_TIME_TICKS] = 1,
	    [SCHEMA_STAT_TRUTH_VALUE] = 1,
	    [SCHEMA_STAT_DISCONTINUITY] = 5,
	};
	struct stat_walk walk;
	size_t answers, total = 0;

	memset(&walk, 0, sizeof(walk));
	answers = walk_table(SCHEMA_TABLE_STAT, check_stat_answer, &walk);
	ck_assert_uint_eq(walk.column, SCHEMA_STAT_DISCONTINUITY);
	ck_assert_uint_eq(walk.position, walk.rows.count);
	for (unsigned c = SCHEMA_STAT_LABEL; c <= SCHEMA_STAT_DISCONTINUITY;
	     c++) {
		ck_assert_msg(walk.per_column[c] == expected[c],
		    "column %u: %zu rows, expected %zu", c, walk.per_column[c],
		    expected[c]);
		total += expected[c];
	}
	ck_assert_uint_eq(answers, total);
	ck_assert_uint_eq(answers, 72);
	fx_rows_free(&walk.rows);
}
END_TEST

struct table_walk {
	unsigned first_column;
	unsigned last_column;
	enum fx_table table;
	unsigned column;
	size_t position;
	struct fx_rows rows;
};

static void
check_table_answer(unsigned column, const struct fx_index *index,
    const netsnmp_variable_list *varbind, void *context)
{
	struct table_walk *walk = context;
	char text[512];

	if (column != walk->column) {
		ck_assert_uint_eq(column,
		    walk->column == 0 ? walk->first_column : walk->column + 1);
		if (walk->column != 0)
			ck_assert_uint_eq(walk->position, walk->rows.count);
		walk->column = column;
		walk->position = 0;
	}
	ck_assert_uint_le(column, walk->last_column);
	ck_assert_msg(walk->position < walk->rows.count, "column %u: extra %s",
	    column, fx_index_text(index, text, sizeof(text)));
	ck_assert_msg(fx_index_compare(
	                  index, &walk->rows.rows[walk->position].index) == 0,
	    "column %u: row %s", column,
	    fx_index_text(index, text, sizeof(text)));
	walk->position++;
}

static const struct {
	unsigned table;
	enum fx_table rows;
	unsigned first_column, last_column;
	size_t row_count;
} tables_to_walk[] = {
    {SCHEMA_TABLE_SUPPLIER, FX_SUPPLIER, SCHEMA_SUPPLIER_MODULE,
        SCHEMA_SUPPLIER_FAILURE, 3},
    {SCHEMA_TABLE_CLASS, FX_CLASS, SCHEMA_CLASS_LABEL, SCHEMA_CLASS_LEVEL_SIZES,
        4},
    {SCHEMA_TABLE_DATUM, FX_DATUM, SCHEMA_DATUM_LABEL, SCHEMA_DATUM_DESCRIPTION,
        12},
    {SCHEMA_TABLE_INSTANCE, FX_INSTANCE, SCHEMA_INSTANCE_LABEL,
        SCHEMA_INSTANCE_PARENT, 6},
};

START_TEST(other_table_walks_visit_every_cell)
{
	struct table_walk walk = {
	    .first_column = tables_to_walk[_i].first_column,
	    .last_column = tables_to_walk[_i].last_column,
	    .table = tables_to_walk[_i].rows,
	};
	size_t columns = walk.last_column - walk.first_column + 1;
	size_t answers;

	fx_oracle(tables->registry, walk.table, NULL, &walk.rows);
	ck_assert_uint_eq(walk.rows.count, tables_to_walk[_i].row_count);
	answers =
	    walk_table(tables_to_walk[_i].table, check_table_answer, &walk);
	ck_assert_uint_eq(walk.column, walk.last_column);
	ck_assert_uint_eq(walk.position, walk.rows.count);
	ck_assert_uint_eq(answers, columns * walk.rows.count);
	fx_rows_free(&walk.rows);
}
END_TEST

/* --- dciStatTable values ------------------------------------------------ */

/* --- dciClassData ------------------------------------------------------- */

#define CELL(...)                                                              \
	name_of(SCHEMA_CLASS_DATA, 0, 0, (const uint64_t[]){__VA_ARGS__},       \
	    sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

START_TEST(class_data_cells)
{
	netsnmp_variable_list *varbind;

	/* From dciClassData itself, and from before it: the first cell,
	 * netif (1.1) name of ifIndex 10. */
	varbind = get_next(
	    SCHEMA_CLASS_DATA, TABLE(SCHEMA_CLASS_DATA), CELL(1, 1, 1, 1, 10));
	ck_assert_int_eq(varbind->type, ASN_OCTET_STR);
	snmp_free_varbind(varbind);
	varbind = get_next(SCHEMA_CLASS_DATA,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 9, 9),
	    CELL(1, 1, 1, 1, 10));
	snmp_free_varbind(varbind);
	/* Each column has its datum's syntax. */
	varbind = get(SCHEMA_CLASS_DATA, CELL(1, 1, 1, 2, 10));
	assert_counter64(varbind, FX_NETIF_RX_ETH0);
	snmp_free_varbind(varbind);
	assert_get_number(SCHEMA_CLASS_DATA, CELL(1, 2, 1, 3, 2, 0, 1),
	    ASN_COUNTER, (long)FX_DISK_READS_SDB);
	/* A signed 64-bit datum is served as its text. */
	assert_get_string(SCHEMA_CLASS_DATA, CELL(2, 1, 1, 0), "-42");
	varbind = get(SCHEMA_CLASS_DATA, CELL(2, 1, 3, 0));
	ck_assert_int_eq(varbind->type, ASN_IPADDRESS);
	snmp_free_varbind(varbind);
	/* Absent cells and objects. */
	snmp_free_varbind(ask(SCHEMA_CLASS_DATA, false, CELL(1, 1, 1, 5, 20),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(
	    SCHEMA_CLASS_DATA, false, CELL(1, 1, 1, 2), AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_CLASS_DATA, false, TABLE(SCHEMA_CLASS_DATA),
	    AGENT_NO_SUCH_OBJECT));
	/* A datum the class does not have, or has without a column (datum 5
	 * of class 2 is ST_UNUSED), and a class there is not: no object. */
	snmp_free_varbind(ask(SCHEMA_CLASS_DATA, false, CELL(1, 1, 1, 9, 20),
	    AGENT_NO_SUCH_OBJECT));
	snmp_free_varbind(ask(
	    SCHEMA_CLASS_DATA, false, CELL(2, 1, 5, 0), AGENT_NO_SUCH_OBJECT));
	snmp_free_varbind(ask(
	    SCHEMA_CLASS_DATA, false, CELL(7, 1, 1, 0), AGENT_NO_SUCH_OBJECT));
	/* After the last cell (system elapsed) and after the subtree. */
	snmp_free_varbind(
	    ask(SCHEMA_CLASS_DATA, true, CELL(2, 1, 6, 0), AGENT_END_OF_TABLE));
	snmp_free_varbind(ask(SCHEMA_CLASS_DATA, true,
	    TABLE(SCHEMA_CLASS_DATA + 1), AGENT_END_OF_TABLE));
}
END_TEST

START_TEST(stat_counter64_values_above_2_to_the_32)
{
	netsnmp_variable_list *varbind;

	varbind = get(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 2, 1, 1, 1, 10, 2));
	assert_counter64(varbind, FX_NETIF_RX_ETH0);
	ck_assert_uint_eq(varbind->val.counter64->high, 0x12);
	ck_assert_uint_eq(varbind->val.counter64->low, 0x3456789a);
	snmp_free_varbind(varbind);
	varbind = get(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 2, 1, 1, 1, 30, 2));
	ck_assert_uint_eq(varbind->val.counter64->high, 1);
	ck_assert_uint_eq(varbind->val.counter64->low, 1);
	snmp_free_varbind(varbind);
	varbind = get(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 2, 1, 1, 1, 20, 2));
	assert_counter64(varbind, 12345);
	snmp_free_varbind(varbind);
}
END_TEST

static const struct {
	uint64_t index[8];
	size_t length;
	const char *text;
} texts[] = {
    {{2, 1, 1, 1, 20, 2}, 6, "12345"},
    {{2, 1, 1, 1, 10, 2}, 6, "78187493530"},
    {{2, 1, 1, 1, 10, 1}, 6, "eth0"},
    {{2, 1, 1, 1, 30, 5}, 6, "0"},
    {{2, 1, 2, 3, 1, 7, 8, 4}, 8, "-5"},
    {{2, 1, 2, 3, 2, 0, 1, 3}, 8, "4000000000"},
    {{1, 2, 1, 0, 1}, 5, "-42"},
    {{1, 2, 1, 0, 2}, 5, "on"},
    {{1, 2, 1, 0, 3}, 5, "192.168.0.1"},
    {{1, 2, 1, 0, 4}, 5, "00:1b:21:3a:4f:5e"},
    {{1, 2, 1, 0, 6}, 5, "2.50 seconds"},
};

START_TEST(stat_text_column_renders_values)
{
	netsnmp_variable_list *varbind =
	    get(SCHEMA_TABLE_STAT, name_of(SCHEMA_TABLE_STAT, 2, SCHEMA_STAT_TEXT,
	                              texts[_i].index, texts[_i].length));

	assert_string(varbind, texts[_i].text);
	snmp_free_varbind(varbind);
}
END_TEST

START_TEST(stat_typed_columns_values)
{
	static const unsigned char ip[] = {192, 168, 0, 1};

	assert_get_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_GAUGE32, 2, 1, 1, 1, 10, 5),
	    ASN_GAUGE, 7);
	assert_get_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER32, 2, 1, 2, 3, 2, 0, 1,
	        3),
	    ASN_COUNTER, (long)FX_DISK_READS_SDB);
	assert_get_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_INTEGER32, 2, 1, 2, 3, 1, 7, 8,
	        4),
	    ASN_INTEGER, -5);
	assert_get_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_INTEGER32, 2, 1, 2, 3, 2, 0, 1,
	        4),
	    ASN_INTEGER, 40);
	assert_get_string(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_STRING, 2, 1, 1, 1, 30, 1),
	    "lo");
	assert_get_bytes(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_IP_ADDRESS, 1, 2, 1, 0, 3),
	    ASN_IPADDRESS, ip, 4);
	assert_get_bytes(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_MAC_ADDRESS, 1, 2, 1, 0, 4),
	    ASN_OCTET_STR, fx_hwaddr, 6);
	assert_get_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_TIME_TICKS, 1, 2, 1, 0, 6),
	    ASN_TIMETICKS, 250);
	assert_get_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_TRUTH_VALUE, 1, 2, 1, 0, 2),
	    ASN_INTEGER, 1); /* true */
	assert_get_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_TYPE, 2, 1, 1, 1, 10, 2),
	    ASN_INTEGER, DCI_ST_INTEGER64);
	assert_get_string(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 2, 1, 2, 3, 1, 7, 8, 4),
	    "temperature");
	assert_get_number(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_DISCONTINUITY, 2, 1, 1, 1, 20,
	        2),
	    ASN_TIMETICKS, COMMIT_TICKS);
}
END_TEST

START_TEST(stat_get_missing_rows_and_columns)
{
	/* Unset datum, wrong column for the datum's kind, a non-counter in
	 * the discontinuity column, no such instance, no index. */
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_TEXT, 2, 1, 1, 1, 20, 5),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64, 2, 1, 1, 1, 10, 5),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_GAUGE32, 2, 1, 1, 1, 10, 2),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_DISCONTINUITY, 2, 1, 1, 1, 10, 5),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 2, 1, 1, 1, 15, 1),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 2, 1, 1, 1, 10, 1, 0),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL, 2, 1, 1, 1,
	        (UINT64_C(1) << 32) + 10, 1),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    COLUMN(SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL),
	    AGENT_NO_SUCH_INSTANCE));
	/* Not a column. */
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_STAT, 99, 2, 1, 1, 1, 10, 1),
	    AGENT_NO_SUCH_OBJECT));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_STAT, 0, 2, 1, 1, 1, 10, 1),
	    AGENT_NO_SUCH_OBJECT));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false, ENTRY(SCHEMA_TABLE_STAT),
	    AGENT_NO_SUCH_OBJECT));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false, TABLE(SCHEMA_TABLE_STAT),
	    AGENT_NO_SUCH_OBJECT));
	snmp_free_varbind(ask(SCHEMA_TABLE_STAT, false,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_LABEL, 2, 1, 1, 1, 10),
	    AGENT_NO_SUCH_OBJECT));
	snmp_free_varbind(ask(SCHEMA_TABLE_SUPPLIER, false,
	    NAME(SCHEMA_TABLE_SUPPLIER, 1, 1), AGENT_NO_SUCH_OBJECT));
}
END_TEST

/* --- The other tables' values ------------------------------------------- */

START_TEST(supplier_table_values)
{
	const struct dci_supplier *beta = tables->registry->suppliers[1];

	assert_get_string(SCHEMA_TABLE_SUPPLIER,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_MODULE, 2), "beta");
	assert_get_string(SCHEMA_TABLE_SUPPLIER,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_TITLE, 2),
	    "test supplier");
	assert_get_number(SCHEMA_TABLE_SUPPLIER,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_STATUS, 2), ASN_INTEGER,
	    1);
	assert_get_number(SCHEMA_TABLE_SUPPLIER,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_VERSION, 2),
	    ASN_UNSIGNED, 100);
	assert_get_bytes(SCHEMA_TABLE_SUPPLIER,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_RESET, 2),
	    ASN_OCTET_STR, beta->reset, 8);
	/* Never refreshed: 0. */
	assert_get_number(SCHEMA_TABLE_SUPPLIER,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_LAST_REFRESH, 2),
	    ASN_TIMETICKS, 0);

	/* A failed supplier shows status 2. */
	tables->registry->suppliers[2]->status = DCI_SUPPLIER_FAILED;
	assert_next_number(SCHEMA_TABLE_SUPPLIER,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_STATUS, 2),
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_STATUS, 3), ASN_INTEGER,
	    2);

	snmp_free_varbind(ask(SCHEMA_TABLE_SUPPLIER, false,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_MODULE, 4),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_SUPPLIER, false,
	    NAME(SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_MODULE, 0),
	    AGENT_NO_SUCH_INSTANCE));
}
END_TEST

START_TEST(class_table_indexed_by_length_prefixed_id)
{
	netsnmp_variable_list *varbind;

	assert_next_string(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LABEL, 1, 2),
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LABEL, 2, 1, 1), "netif");
	assert_get_string(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LABEL, 2, 1, 2), "disk");
	assert_get_number(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_INSTANCE_LEVELS, 2, 1, 2),
	    ASN_UNSIGNED, 2);
	assert_get_number(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_DATUM_COUNT, 2, 1, 1),
	    ASN_UNSIGNED, 3);
	assert_get_number(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_SUPPLIER, 2, 1, 2),
	    ASN_UNSIGNED, 2);
	assert_get_number(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_INSTANCE_COUNT, 2, 1, 1),
	    ASN_GAUGE, 3);
	/* Revision 202611251200Z: description, level types and sizes, 4
	 * octets a level, most significant first. */
	assert_get_string(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_DESCRIPTION, 2, 1, 2), "");
	assert_get_bytes(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LEVEL_TYPES, 2, 1, 2),
	    ASN_OCTET_STR, "\0\0\0\3\0\0\0\5", 8); /* DISKID DEVICE */
	varbind = get(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LEVEL_SIZES, 2, 1, 2));
	ck_assert_uint_eq(varbind->val_len, 8);
	ck_assert_mem_eq(varbind->val.string, "\0\0\0\4\0\0\0\10", 8);
	snmp_free_varbind(varbind);
	varbind = get(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LEVEL_TYPES, 2, 1, 1));
	ck_assert_uint_eq(varbind->val_len, 4);
	ck_assert_mem_eq(varbind->val.string, "\0\1\0\0", 4); /* INTERFACE */
	snmp_free_varbind(varbind);
	/* Never committed: a row, with no instances. */
	assert_get_number(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_INSTANCE_COUNT, 2, 3, 1),
	    ASN_GAUGE, 0);
	snmp_free_varbind(ask(SCHEMA_TABLE_CLASS, false,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LABEL, 1, 1),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_CLASS, false,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LABEL, 2, 1, 1, 0),
	    AGENT_NO_SUCH_INSTANCE));
}
END_TEST

START_TEST(datum_table_values)
{
	assert_get_string(SCHEMA_TABLE_DATUM,
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_LABEL, 2, 1, 1, 2),
	    "rx_bytes");
	assert_get_number(SCHEMA_TABLE_DATUM,
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_TYPE, 2, 1, 1, 2),
	    ASN_INTEGER, DCI_ST_INTEGER64);
	assert_get_number(SCHEMA_TABLE_DATUM,
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_SIZE, 2, 1, 1, 1),
	    ASN_UNSIGNED, 16);
	assert_get_number(SCHEMA_TABLE_DATUM,
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_SEMANTICS, 2, 1, 1, 2),
	    ASN_INTEGER, DCI_SEMANTICS_COUNTER);
	assert_get_string(SCHEMA_TABLE_DATUM,
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_DESCRIPTION, 2, 3, 1, 1), "");
	/* ST_UNUSED reserves an id: described (type unused), never valued. */
	assert_get_string(SCHEMA_TABLE_DATUM,
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_LABEL, 1, 2, 5), "reserved");
	assert_get_number(SCHEMA_TABLE_DATUM,
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_TYPE, 1, 2, 5), ASN_INTEGER,
	    DCI_ST_UNUSED);
	assert_next_string(SCHEMA_TABLE_DATUM,
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_LABEL, 1, 2, 4),
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_LABEL, 1, 2, 5), "reserved");
	assert_get_number(SCHEMA_TABLE_CLASS,
	    NAME(SCHEMA_TABLE_CLASS, SCHEMA_CLASS_DATUM_COUNT, 1, 2),
	    ASN_UNSIGNED, 6);
}
END_TEST

START_TEST(instance_table_values)
{
	netsnmp_variable_list *varbind;

	assert_get_string(SCHEMA_TABLE_INSTANCE,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_LABEL, 2, 1, 1, 1, 20),
	    "eth1");
	assert_next_string(SCHEMA_TABLE_INSTANCE,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_LABEL, 2, 1, 1, 1, 30),
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_LABEL, 2, 1, 2, 3, 1, 7,
	        8),
	    "sda");
	assert_get_number(SCHEMA_TABLE_INSTANCE,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_CREATED, 2, 1, 2, 3, 2,
	        0, 1),
	    ASN_TIMETICKS, COMMIT_TICKS);
	assert_get_number(SCHEMA_TABLE_INSTANCE,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_DISCONTINUITY, 1, 2, 1,
	        0),
	    ASN_TIMETICKS, COMMIT_TICKS);
	/* sdb's parent is sda: a RowPointer to sda's dciInstanceLabel. */
	varbind = get(SCHEMA_TABLE_INSTANCE,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_PARENT, 2, 1, 2, 3, 2, 0,
	        1));
	{
		struct name sda = NAME(SCHEMA_TABLE_INSTANCE,
		    SCHEMA_INSTANCE_LABEL, 2, 1, 2, 3, 1, 7, 8);
		ck_assert_int_eq(varbind->type, ASN_OBJECT_ID);
		ck_assert_int_eq(
		    snmp_oid_compare(varbind->val.objid,
		        varbind->val_len / sizeof(oid), sda.subids, sda.length),
		    0);
	}
	snmp_free_varbind(varbind);
	varbind = get(SCHEMA_TABLE_INSTANCE,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_PARENT, 2, 1, 2, 3, 1, 7,
	        8));
	ck_assert_int_eq(varbind->type, ASN_OBJECT_ID);
	ck_assert_uint_eq(varbind->val_len, 2 * sizeof(oid));
	ck_assert_uint_eq(varbind->val.objid[0], 0);
	ck_assert_uint_eq(varbind->val.objid[1], 0);
	snmp_free_varbind(varbind);
	snmp_free_varbind(ask(SCHEMA_TABLE_INSTANCE, false,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_LABEL, 2, 3, 1, 1, 0),
	    AGENT_NO_SUCH_INSTANCE));
	snmp_free_varbind(ask(SCHEMA_TABLE_INSTANCE, false,
	    NAME(SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_LABEL, 2, 1, 1, 1),
	    AGENT_NO_SUCH_INSTANCE));
}
END_TEST

START_TEST(display_strings_clamped_to_255_octets)
{
	static const uint32_t id[] = {4};
	static const struct dci_instance_level level[] = {
	    {DCI_ITYPE_SINGLEINST, 4}};
	char long_text[301];
	struct dci_datum_info datum = fx_datum(1, "motd", DCI_ST_STRING,
	    DCI_SSF_ZEROTERM, 400, DCI_SEMANTICS_DISCRETE);
	struct dci_class_info info;
	struct dci_class *class;
	struct dci_snapshot_builder *builder;
	netsnmp_variable_list *varbind;
	long row;

	memset(long_text, 'x', 300);
	long_text[300] = '\0';
	datum.description = long_text;
	info = fx_class_info(id, 1, "banner", level, 1, &datum, 1);
	info.description = long_text;
	class =
	    fx_class(tables->registry, tables->registry->suppliers[0], &info);
	builder = dci_snapshot_builder_new(class);
	row = fx_add(builder, (const uint32_t[]){0}, 1, "banner");
	fx_set_bytes(builder, row, 1, long_text, 300);
	fx_commit(builder, class, FX_COMMIT_MILLISECONDS);

	/* DisplayString columns: at most 255 octets. */
	assert_get_bytes(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_TEXT, 1, 4, 1, 0, 1),
	    ASN_OCTET_STR, long_text, 255);
	varbind = get(SCHEMA_TABLE_DATUM,
	    NAME(SCHEMA_TABLE_DATUM, SCHEMA_DATUM_DESCRIPTION, 1, 4, 1));
	ck_assert_uint_eq(varbind->val_len, 255);
	snmp_free_varbind(varbind);
	/* dciStatString is an OCTET STRING (SIZE(0..65535)): all of it. */
	assert_get_bytes(SCHEMA_TABLE_STAT,
	    NAME(SCHEMA_TABLE_STAT, SCHEMA_STAT_STRING, 1, 4, 1, 0, 1),
	    ASN_OCTET_STR, long_text, 300);
}
END_TEST

/*
 * Class "events" {5} of the first supplier, of two-word instances whose
 * second word is 2^31 or more: [2, 2172947406] counting 7 and
 * [2, 3324760957] counting 8, committed. *first and *second: the names of
 * their counts in the stat table (a Gauge32 column).
 */
static void
add_events_above_2_to_the_31(struct name *first, struct name *second)
{
	static const uint32_t id[] = {5};
	static const struct dci_instance_level level[] = {{DCI_ITYPE_EVENT, 8}};
	struct dci_datum_info datum = fx_datum(1, "count", DCI_ST_INTEGER32,
	    DCI_SIF_UNSIGNED, 0, DCI_SEMANTICS_GAUGE);
	struct dci_class_info info =
	    fx_class_info(id, 1, "events", level, 1, &datum, 1);
	struct dci_class *class =
	    fx_class(tables->registry, tables->registry->suppliers[0], &info);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	long row;

	row = fx_add(builder, (const uint32_t[]){2, 2172947406u}, 2, "a");
	fx_set_unsigned(builder, row, 1, 7);
	row = fx_add(builder, (const uint32_t[]){2, 3324760957u}, 2, "b");
	fx_set_unsigned(builder, row, 1, 8);
	fx_commit(builder, class, FX_COMMIT_MILLISECONDS);

	*first = NAME(
	    SCHEMA_TABLE_STAT, SCHEMA_STAT_GAUGE32, 1, 5, 2, 2, 2172947406u, 1);
	*second = NAME(
	    SCHEMA_TABLE_STAT, SCHEMA_STAT_GAUGE32, 1, 5, 2, 2, 3324760957u, 1);
}

START_TEST(sign_extended_request_subids_read_as_32_bits)
{
	/* 2172947406 = 0x81848bce; Net-SNMP's AgentX code hands it to the
	 * subagent as 0xffffffff81848bce. */
	const uint64_t extended = UINT64_C(0xffffffff81848bce);
	netsnmp_variable_list *varbind;
	struct name request, first, second;

	add_events_above_2_to_the_31(&first, &second);
	request = first;
	request.subids[request.length - 2] = (oid)extended;
	varbind = ask(SCHEMA_TABLE_STAT, false, request, AGENT_ANSWERED);
	assert_number(varbind, ASN_GAUGE, 7);
	snmp_free_varbind(varbind);
	varbind = ask(SCHEMA_TABLE_STAT, true, request, AGENT_ANSWERED);
	assert_name(varbind, &second);
	assert_number(varbind, ASN_GAUGE, 8);
	snmp_free_varbind(varbind);
}
END_TEST

START_TEST(uptime_jitter_leaves_timestamps_alone)
{
	int64_t start = tables->timestamps.start_milliseconds;
	uint32_t ticks = (uint32_t)((FX_COMMIT_MILLISECONDS - start) / 10);

	/* The same moment seen through a 10 ms grain, and a master's
	 * centiseconds learnt late: nothing moves. */
	ck_assert(!agent_timestamps_follow_uptime(&tables->timestamps, start + 12345, 1234));
	ck_assert(!agent_timestamps_follow_uptime(&tables->timestamps, start + 12349, 1234));
	ck_assert(!agent_timestamps_follow_uptime(&tables->timestamps, start + 12337, 1234));
	ck_assert(!agent_timestamps_follow_uptime(&tables->timestamps, start + 12440, 1234));
	ck_assert(!agent_timestamps_follow_uptime(&tables->timestamps, start + 12240, 1234));
	ck_assert_int_eq(tables->timestamps.start_milliseconds, start);
	ck_assert_uint_eq(
	    agent_timestamps_of(&tables->timestamps, FX_COMMIT_MILLISECONDS), ticks);
	/* The master restarted 60 s later: its sysUpTime is small again. */
	ck_assert(agent_timestamps_follow_uptime(&tables->timestamps, start + 60000, 150));
	ck_assert_int_eq(tables->timestamps.start_milliseconds, start + 58500);
	ck_assert_uint_eq(agent_timestamps_of(&tables->timestamps, start + 61000), 250);
	/* A master that has run longer (a subagent's first sync): earlier. */
	ck_assert(agent_timestamps_follow_uptime(&tables->timestamps, start + 60000, 600000));
	ck_assert_int_eq(tables->timestamps.start_milliseconds, start + 60000 - 6000000);
	tables->timestamps.start_milliseconds = start;
}
END_TEST

/* A TimeStamp of a moment before a sysUpTime reading is never above it; one
 * of a moment the start's precision after it, never below. */
static void
assert_start_agrees_with_uptime(void)
{
	int64_t before, after, start = tables->timestamps.start_milliseconds;
	uint32_t uptime;

	for (int i = 0; i < 1000; i++) {
		before = dci_clock_milliseconds();
		uptime = (uint32_t)netsnmp_get_agent_uptime();
		after = dci_clock_milliseconds_up();
		ck_assert_uint_le(
		    agent_timestamps_of(&tables->timestamps, before), uptime);
		ck_assert_uint_ge(
		    agent_timestamps_of(&tables->timestamps,
		        after + AGENT_START_PRECISION_MILLISECONDS),
		    uptime);
		/* Requests in between change nothing. */
		agent_timestamps_sync(&tables->timestamps);
		ck_assert_int_eq(tables->timestamps.start_milliseconds, start);
	}
}

START_TEST(start_found_within_its_precision)
{
	int64_t saved = tables->timestamps.start_milliseconds;

	agent_timestamps_find_start(&tables->timestamps);
	assert_start_agrees_with_uptime();
	/* Far off (this process's Net-SNMP counts from the clock's zero): the
	 * first request finds the start again. */
	tables->timestamps.start_milliseconds = saved;
	agent_timestamps_sync(&tables->timestamps);
	ck_assert_int_ne(tables->timestamps.start_milliseconds, saved);
	assert_start_agrees_with_uptime();
	tables->timestamps.start_milliseconds = saved;
}
END_TEST

START_TEST(timestamps_before_start_are_zero)
{
	ck_assert_uint_eq(agent_timestamps_of(&tables->timestamps, 0), 0);
	ck_assert_uint_eq(
	    agent_timestamps_of(&tables->timestamps, START_MILLISECONDS), 0);
	ck_assert_uint_eq(
	    agent_timestamps_of(&tables->timestamps, START_MILLISECONDS + 10), 1);
	ck_assert_uint_eq(
	    agent_timestamps_of(&tables->timestamps, FX_COMMIT_MILLISECONDS),
	    COMMIT_TICKS);
}
END_TEST

/* --- AgentX requests answered in place ---------------------------------- */

/* The SearchRange of an AgentX GetNext on `varbind`: up to `end` (NULL:
 * no end), `include` whether the start itself may answer. */
static void
set_range(netsnmp_variable_list *varbind, bool include, const oid *end,
    size_t end_length)
{
	static const oid null_end[] = {0, 0};

	if (end == NULL) {
		end = null_end;
		end_length = 2;
	}
	snmp_set_var_typed_value(varbind,
	    include ? ASN_PRIV_INCL_RANGE : ASN_PRIV_EXCL_RANGE, end,
	    end_length * sizeof(oid));
}

/* An AgentX GetNext SearchRange: start, end (empty: none), include. */
static netsnmp_variable_list *
search_range(const struct name *start, const struct name *end, bool include)
{
	netsnmp_variable_list *varbind = varbind_for(start);

	set_range(varbind, include, end != NULL ? end->subids : NULL,
	    end != NULL ? end->length : 0);
	return varbind;
}

/* The AgentX GetNext of `varbind` (its range set) answered in place: the
 * answer is `expected`. Frees the varbind. */
static void
assert_next_answers(netsnmp_variable_list *varbind, const struct name *expected)
{
	agent_agentx_answer(tables, true, varbind);
	assert_name(varbind, expected);
	snmp_free_varbind(varbind);
}

/* What one table's own GETNEXT (or GET) answers from name: the oracle the
 * in-place answers must agree with. */
static struct name
table_answer(unsigned table, bool next, struct name request)
{
	netsnmp_variable_list *varbind = varbind_for(&request);
	struct name answer;

	ck_assert_int_eq(
	    agent_tables_answer(tables, table, next, varbind), AGENT_ANSWERED);
	memcpy(
	    answer.subids, varbind->name, varbind->name_length * sizeof(oid));
	answer.length = varbind->name_length;
	snmp_free_varbind(varbind);
	return answer;
}

static void
assert_end_of_view(
    const netsnmp_variable_list *varbind, const struct name *start)
{
	assert_name(varbind, start);
	ck_assert_int_eq(varbind->type, SNMP_ENDOFMIBVIEW);
}

/* The AgentX GetNext of `varbind` (named `start`, its range set) answered
 * in place: endOfMibView. Frees the varbind. */
static void
assert_next_ends(netsnmp_variable_list *varbind, const struct name *start)
{
	agent_agentx_answer(tables, true, varbind);
	assert_end_of_view(varbind, start);
	snmp_free_varbind(varbind);
}

/* From before the arc, between tables and past the last column: the next
 * cell across all the tables, as each table's own GETNEXT finds it. */
START_TEST(agentx_getnext_crosses_tables)
{
	struct name arc_only = {.length = ARC_LENGTH - 1};
	struct name past_supplier = COLUMN(SCHEMA_TABLE_SUPPLIER, 99);
	struct name past_all = TABLE(SCHEMA_CLASS_DATA + 1);
	struct name first = table_answer(
	    SCHEMA_TABLE_SUPPLIER, true, TABLE(SCHEMA_TABLE_SUPPLIER));
	struct name first_class =
	    table_answer(SCHEMA_TABLE_CLASS, true, TABLE(SCHEMA_TABLE_CLASS));
	netsnmp_variable_list *varbind;

	memcpy(arc_only.subids, arc, arc_only.length * sizeof(oid));
	varbind = search_range(&arc_only, NULL, false);
	agent_agentx_answer(tables, true, varbind);
	assert_name(varbind, &first);
	ck_assert_int_eq(varbind->type, ASN_OCTET_STR);
	snmp_free_varbind(varbind);

	assert_next_answers(
	    search_range(&past_supplier, NULL, false), &first_class);
	assert_next_ends(search_range(&past_all, NULL, false), &past_all);
}
END_TEST

/* include: the start itself when it is a cell; exclude: the cell after it;
 * an end at or before the answer: endOfMibView with the start. */
START_TEST(agentx_getnext_honours_the_range)
{
	struct name first = table_answer(
	    SCHEMA_TABLE_SUPPLIER, true, TABLE(SCHEMA_TABLE_SUPPLIER));
	struct name second = table_answer(SCHEMA_TABLE_SUPPLIER, true, first);
	struct name end_at_class = TABLE(SCHEMA_TABLE_CLASS);
	struct name past_supplier = COLUMN(SCHEMA_TABLE_SUPPLIER, 99);

	assert_next_answers(search_range(&first, NULL, true), &first);
	assert_next_answers(search_range(&first, NULL, false), &second);
	/* The end is exclusive: an answer equal to it is out of range. */
	assert_next_ends(search_range(&first, &second, false), &first);
	/* Within the range. */
	assert_next_answers(
	    search_range(&first, &end_at_class, false), &second);
	/* An end before the next table keeps the walk out of it. */
	assert_next_ends(
	    search_range(&past_supplier, &end_at_class, false), &past_supplier);
}
END_TEST

/* Several varbinds in one Get: a cell, a missing row, a name under no
 * table, each answered as a registered handler would. */
START_TEST(agentx_get_answers_each_varbind)
{
	struct name cell = table_answer(
	    SCHEMA_TABLE_SUPPLIER, true, TABLE(SCHEMA_TABLE_SUPPLIER));
	struct name missing = NAME(SCHEMA_TABLE_SUPPLIER, 2, 4000);
	struct name outside = TABLE(SCHEMA_CLASS_DATA + 1);
	netsnmp_variable_list *list = NULL;

	ck_assert_ptr_nonnull(snmp_varlist_add_variable(
	    &list, cell.subids, cell.length, ASN_NULL, NULL, 0));
	ck_assert_ptr_nonnull(snmp_varlist_add_variable(
	    &list, missing.subids, missing.length, ASN_NULL, NULL, 0));
	ck_assert_ptr_nonnull(snmp_varlist_add_variable(
	    &list, outside.subids, outside.length, ASN_NULL, NULL, 0));
	agent_agentx_answer(tables, false, list);

	assert_name(list, &cell);
	ck_assert_int_eq(list->type, ASN_OCTET_STR);
	assert_name(list->next_variable, &missing);
	ck_assert_int_eq(list->next_variable->type, SNMP_NOSUCHINSTANCE);
	assert_name(list->next_variable->next_variable, &outside);
	ck_assert_int_eq(
	    list->next_variable->next_variable->type, SNMP_NOSUCHOBJECT);
	snmp_free_varbind(list);
}
END_TEST

/* --- Requests of any length and any sub-identifier ----------------------- */

/* Net-SNMP's AgentX parser accepts names of up to 255 sub-identifiers,
 * twice MAX_OID_LEN. */
#define LONG_NAME_LENGTH 255

/* A varbind named `prefix` followed by zeros up to LONG_NAME_LENGTH. */
static netsnmp_variable_list *
long_varbind(const struct name *prefix)
{
	oid subids[LONG_NAME_LENGTH] = {0};
	netsnmp_variable_list *list = NULL;

	memcpy(subids, prefix->subids, prefix->length * sizeof(oid));
	ck_assert_ptr_nonnull(snmp_varlist_add_variable(
	    &list, subids, LONG_NAME_LENGTH, ASN_NULL, NULL, 0));
	return list;
}

static void
assert_long_name(const netsnmp_variable_list *varbind, const struct name *prefix)
{
	ck_assert_uint_eq(varbind->name_length, LONG_NAME_LENGTH);
	ck_assert_mem_eq(
	    varbind->name, prefix->subids, prefix->length * sizeof(oid));
	for (size_t i = prefix->length; i < LONG_NAME_LENGTH; i++)
		ck_assert_uint_eq(varbind->name[i], 0);
}

/* The regression: a 255-sub-identifier name below a row used to be copied
 * into MAX_OID_LEN arrays. Its GETNEXT is the row after, its GET nothing,
 * through both the in-place answers and a handler's. */
START_TEST(over_long_names_answered_as_their_order_says)
{
	struct name first =
	    table_answer(SCHEMA_TABLE_STAT, true, TABLE(SCHEMA_TABLE_STAT));
	struct name second = table_answer(SCHEMA_TABLE_STAT, true, first);
	struct name past_all = TABLE(SCHEMA_CLASS_DATA + 1);
	netsnmp_variable_list *varbind;

	/* GetNext, excluding and including the start. */
	for (int include = 0; include <= 1; include++) {
		varbind = long_varbind(&first);
		set_range(varbind, include, NULL, 0);
		assert_next_answers(varbind, &second);
	}
	/* A handler's GETNEXT and GET. */
	varbind = long_varbind(&first);
	ck_assert_int_eq(agent_tables_answer(tables, SCHEMA_TABLE_STAT, true,
	                     varbind),
	    AGENT_ANSWERED);
	assert_name(varbind, &second);
	snmp_free_varbind(varbind);
	varbind = long_varbind(&first);
	ck_assert_int_eq(agent_tables_answer(tables, SCHEMA_TABLE_STAT, false,
	                     varbind),
	    AGENT_NO_SUCH_INSTANCE);
	assert_long_name(varbind, &first);
	snmp_free_varbind(varbind);

	/* Get: noSuchInstance in a column, noSuchObject outside the tables;
	 * the name stays the one asked for. */
	varbind = long_varbind(&first);
	agent_agentx_answer(tables, false, varbind);
	ck_assert_int_eq(varbind->type, SNMP_NOSUCHINSTANCE);
	assert_long_name(varbind, &first);
	snmp_free_varbind(varbind);
	varbind = long_varbind(&past_all);
	agent_agentx_answer(tables, false, varbind);
	ck_assert_int_eq(varbind->type, SNMP_NOSUCHOBJECT);
	snmp_free_varbind(varbind);

	/* Past every table: endOfMibView with the whole start. */
	varbind = long_varbind(&past_all);
	set_range(varbind, false, NULL, 0);
	agent_agentx_answer(tables, true, varbind);
	ck_assert_int_eq(varbind->type, SNMP_ENDOFMIBVIEW);
	assert_long_name(varbind, &past_all);
	snmp_free_varbind(varbind);
}
END_TEST

/* An end longer than MAX_OID_LEN bounds the range as the whole end does. */
START_TEST(over_long_range_ends_compare_in_full)
{
	struct name first =
	    table_answer(SCHEMA_TABLE_STAT, true, TABLE(SCHEMA_TABLE_STAT));
	struct name second = table_answer(SCHEMA_TABLE_STAT, true, first);
	oid end[LONG_NAME_LENGTH] = {0};
	netsnmp_variable_list *varbind;

	/* second.0.0...: the answer `second` lies before it. */
	memcpy(end, second.subids, second.length * sizeof(oid));
	varbind = varbind_for(&first);
	set_range(varbind, false, end, LONG_NAME_LENGTH);
	assert_next_answers(varbind, &second);

	/* first.0.0...: `second` is past it. */
	memset(end, 0, sizeof(end));
	memcpy(end, first.subids, first.length * sizeof(oid));
	varbind = varbind_for(&first);
	set_range(varbind, false, end, LONG_NAME_LENGTH);
	assert_next_ends(varbind, &first);
}
END_TEST

/* A range's end with a sub-identifier of 2^31 or more, sign-extended as
 * Net-SNMP's AgentX code delivers it, ends where the manager meant: an
 * answer equal to it is out of range. */
START_TEST(sign_extended_range_end_is_normalised)
{
	struct name first, second, end;

	add_events_above_2_to_the_31(&first, &second);
	end = second;
	end.subids[end.length - 2] = (oid)UINT64_C(0xffffffffc62bd37d);
	assert_next_ends(search_range(&first, &end, false), &first);
}
END_TEST

/* --- Times at their limits ----------------------------------------------- */

START_TEST(timestamps_saturate)
{
	struct agent_timestamps timestamps = {START_MILLISECONDS};

	ck_assert_uint_eq(agent_timestamps_of(&timestamps, INT64_MAX),
	    UINT32_MAX);
	ck_assert_uint_eq(agent_timestamps_of(&timestamps, INT64_MIN), 0);
	ck_assert_uint_eq(agent_timestamps_of(&timestamps,
	                      START_MILLISECONDS + INT64_C(42949672950)),
	    UINT32_MAX);
	ck_assert_uint_eq(agent_timestamps_of(&timestamps,
	                      START_MILLISECONDS + INT64_C(42949672940)),
	    UINT32_MAX - 1);
	timestamps.start_milliseconds = INT64_MIN;
	ck_assert_uint_eq(agent_timestamps_of(&timestamps, INT64_MAX),
	    UINT32_MAX);
	timestamps.start_milliseconds = INT64_MAX;
	ck_assert_uint_eq(agent_timestamps_of(&timestamps, INT64_MIN), 0);
}
END_TEST

static uint32_t
time_ticks(uint32_t format, uint32_t presentation, uint64_t number,
    int64_t signed_number)
{
	static const struct agent_timestamps timestamps = {START_MILLISECONDS};
	/* Unix time 10^12 ms is monotonic START + 5 s. */
	static const struct agent_clock_readings now = {
	    START_MILLISECONDS + 5000, INT64_C(1000000000000)};
	struct dci_datum_info info = {.type = DCI_ST_TIME,
	    .format = format,
	    .presentation = presentation};
	struct dci_value value = {.kind = DCI_KIND_TIMETICKS,
	    .number = number,
	    .signed_number = signed_number};

	return agent_timestamps_of_time(&timestamps, &info, &value, &now);
}

START_TEST(provider_times_saturate)
{
	/* Durations. */
	ck_assert_uint_eq(
	    time_ticks(DCI_STF_MONOTONIC, DCI_STP_RELATIVE, 123, 123), 123);
	ck_assert_uint_eq(time_ticks(DCI_STF_MONOTONIC, DCI_STP_RELATIVE,
	                      UINT64_MAX, -1),
	    UINT32_MAX);
	/* Monotonic centiseconds. */
	ck_assert_uint_eq(time_ticks(DCI_STF_MONOTONIC, DCI_STP_ABSOLUTE,
	                      (START_MILLISECONDS + 4000) / 10, 0),
	    400);
	ck_assert_uint_eq(time_ticks(DCI_STF_MONOTONIC, DCI_STP_ABSOLUTE,
	                      UINT64_MAX, -1),
	    UINT32_MAX);
	ck_assert_uint_eq(time_ticks(DCI_STF_MONOTONIC, DCI_STP_ABSOLUTE,
	                      (uint64_t)INT64_MAX / 10 + 1, 0),
	    UINT32_MAX);
	/* Unix seconds: one second ago, then the limits. */
	ck_assert_uint_eq(time_ticks(DCI_STF_CTIME, DCI_STP_ABSOLUTE, 0,
	                      INT64_C(999999999)),
	    400);
	ck_assert_uint_eq(
	    time_ticks(DCI_STF_CTIME, DCI_STP_ABSOLUTE, 0, INT64_MAX),
	    UINT32_MAX);
	ck_assert_uint_eq(
	    time_ticks(DCI_STF_CTIME, DCI_STP_ABSOLUTE, 0, INT64_MIN), 0);
	ck_assert_uint_eq(time_ticks(DCI_STF_CTIME, DCI_STP_ABSOLUTE, 0, -1), 0);
	/* Centiseconds since 1900: one second ago, then the limits. */
	ck_assert_uint_eq(time_ticks(DCI_STF_5BYTE, DCI_STP_ABSOLUTE,
	                      (UINT64_C(1000000000000) - 1000 +
	                          UINT64_C(2208988800000)) /
	                          10,
	                      0),
	    400);
	ck_assert_uint_eq(time_ticks(DCI_STF_5BYTE, DCI_STP_ABSOLUTE,
	                      (UINT64_C(1) << 40) - 1, 0),
	    UINT32_MAX);
	ck_assert_uint_eq(
	    time_ticks(DCI_STF_5BYTE, DCI_STP_ABSOLUTE, UINT64_MAX, 0),
	    UINT32_MAX);
	ck_assert_uint_eq(time_ticks(DCI_STF_5BYTE, DCI_STP_ABSOLUTE, 1, 0), 0);
}
END_TEST

static Suite *
agent_index_suite(void)
{
	Suite *suite = suite_create("agent index");
	TCase *next = tcase_create("getnext");
	TCase *walks = tcase_create("walks");
	TCase *stat = tcase_create("stat values");
	TCase *others = tcase_create("other tables");

	tcase_add_checked_fixture(next, setup, teardown);
	tcase_add_test(next, getnext_on_table_oid_gives_first_column_first_row);
	tcase_add_test(next, class_data_cells);
	tcase_add_test(next, getnext_before_and_after_the_table);
	tcase_add_test(next, getnext_past_last_column_is_end);
	tcase_add_test(next, sign_extended_request_subids_read_as_32_bits);
	tcase_add_test(next, uptime_jitter_leaves_timestamps_alone);
	tcase_add_test(next, start_found_within_its_precision);
	tcase_add_test(next, getnext_on_column_zero_gives_first_column);
	tcase_add_test(next, getnext_moves_to_next_column_after_last_row);
	tcase_add_test(next, agentx_getnext_crosses_tables);
	tcase_add_test(next, agentx_getnext_honours_the_range);
	tcase_add_test(next, agentx_get_answers_each_varbind);
	tcase_add_test(next, over_long_names_answered_as_their_order_says);
	tcase_add_test(next, over_long_range_ends_compare_in_full);
	tcase_add_test(next, sign_extended_range_end_is_normalised);
	tcase_add_test(next, timestamps_saturate);
	tcase_add_test(next, provider_times_saturate);
	suite_add_tcase(suite, next);

	tcase_add_checked_fixture(walks, setup, teardown);
	tcase_add_test(walks, stat_table_walk_visits_columns_in_order);
	tcase_add_loop_test(walks, other_table_walks_visit_every_cell, 0,
	    (int)COUNT_OF(tables_to_walk));
	suite_add_tcase(suite, walks);

	tcase_add_checked_fixture(stat, setup, teardown);
	tcase_add_test(stat, stat_counter64_values_above_2_to_the_32);
	tcase_add_loop_test(
	    stat, stat_text_column_renders_values, 0, (int)COUNT_OF(texts));
	tcase_add_test(stat, stat_typed_columns_values);
	tcase_add_test(stat, stat_get_missing_rows_and_columns);
	suite_add_tcase(suite, stat);

	tcase_add_checked_fixture(others, setup, teardown);
	tcase_add_test(others, supplier_table_values);
	tcase_add_test(others, class_table_indexed_by_length_prefixed_id);
	tcase_add_test(others, datum_table_values);
	tcase_add_test(others, instance_table_values);
	tcase_add_test(others, display_strings_clamped_to_255_octets);
	tcase_add_test(others, timestamps_before_start_are_zero);
	suite_add_tcase(suite, others);
	return suite;
}

int
main(void)
{
	return unit_run_suite(agent_index_suite());
}
