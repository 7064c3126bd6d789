/*
 * Unit tests for src/agent/table_index.c: index encodings, and GET (EXACT) and
 * GETNEXT (NEXT) lookups over the standard registry of fixtures.h, checked
 * against literal expectations at table boundaries and against an
 * independent oracle (every row enumerated, sorted as OIDs) for full
 * traversals and for thousands of generated requests.
 */
#include "snmp/table_index.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/registry.h"
#include "model/snapshot.h"
#include "fixtures.h"

#define BIG (UINT64_C(1) << 40)

static struct dci_registry *registry;

static void
setup(void)
{
	registry = fx_standard_registry();
}

static void
teardown(void)
{
	dci_registry_free(registry);
	registry = NULL;
}

/* One lookup in any table, the answer encoded with the walk's encoders. */
static bool
walk(const struct dci_registry *where, enum fx_table table,
    const struct fx_index *request, enum schema_index_mode mode,
    const struct schema_index_filter *filter, struct fx_index *answer,
    struct schema_index_row *row)
{
	uint32_t encoded[SCHEMA_INDEX_MAX];
	size_t length = 0;
	bool found = false;

	memset(row, 0, sizeof(*row));
	switch (table) {
	case FX_SUPPLIER:
		found = schema_index_supplier(
		    where, request->subids, request->length, mode, row);
		if (found) {
			encoded[0] = row->supplier->index;
			length = 1;
		}
		break;
	case FX_CLASS:
		found = schema_index_class(
		    where, request->subids, request->length, mode, row);
		if (found)
			length = schema_index_encode_class(row->class, encoded);
		break;
	case FX_DATUM:
		found = schema_index_datum(
		    where, request->subids, request->length, mode, row);
		if (found)
			length = schema_index_encode_datum(row, encoded);
		break;
	case FX_INSTANCE:
		found = schema_index_instance(
		    where, request->subids, request->length, mode, row);
		if (found)
			length = schema_index_encode_instance(row, encoded);
		break;
	case FX_CLASS_DATA:
		found = schema_index_class_data(
		    where, request->subids, request->length, mode, row);
		if (found)
			length = schema_index_encode_class_data(row, encoded);
		break;
	case FX_STAT: {
		struct schema_index_filter all = {SCHEMA_INDEX_ALL_KINDS, false};
		found = schema_index_stat(where, request->subids, request->length,
		    mode, filter != NULL ? filter : &all, row);
		if (found)
			length = schema_index_encode_stat(row, encoded);
		break;
	}
	}
	if (found) {
		ck_assert_uint_le(length, SCHEMA_INDEX_MAX);
		fx_index_from_u32(answer, encoded, length);
	} else {
		answer->length = 0;
	}
	return found;
}

static struct fx_index
index_of(const uint64_t *subids, size_t length)
{
	struct fx_index index = {.length = 0};

	for (size_t i = 0; i < length; i++)
		fx_index_push(&index, subids[i]);
	return index;
}

#define INDEX(...)                                                             \
	index_of((const uint64_t[]){__VA_ARGS__},                              \
	    sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

static const struct fx_index empty_index = {.length = 0};

/* NEXT from `request` gives `expected` (length 0: nothing). */
static void
assert_next(enum fx_table table, const struct schema_index_filter *filter,
    struct fx_index request, struct fx_index expected)
{
	struct fx_index answer;
	struct schema_index_row row;
	char request_text[256], answer_text[256], expected_text[256];
	bool found = walk(
	    registry, table, &request, SCHEMA_INDEX_NEXT, filter, &answer, &row);

	fx_index_text(&request, request_text, sizeof(request_text));
	fx_index_text(&expected, expected_text, sizeof(expected_text));
	fx_index_text(&answer, answer_text, sizeof(answer_text));
	if (expected.length == 0) {
		ck_assert_msg(!found, "NEXT %s gave %s, expected nothing",
		    request_text, answer_text);
		return;
	}
	ck_assert_msg(found, "NEXT %s gave nothing, expected %s", request_text,
	    expected_text);
	ck_assert_msg(fx_index_compare(&answer, &expected) == 0,
	    "NEXT %s gave %s, expected %s", request_text, answer_text,
	    expected_text);
}

static void
assert_exact(enum fx_table table, const struct schema_index_filter *filter,
    struct fx_index request, bool expected)
{
	struct fx_index answer;
	struct schema_index_row row;
	char request_text[256], answer_text[256];
	bool found = walk(
	    registry, table, &request, SCHEMA_INDEX_EXACT, filter, &answer, &row);

	fx_index_text(&request, request_text, sizeof(request_text));
	fx_index_text(&answer, answer_text, sizeof(answer_text));
	ck_assert_msg(found == expected, "EXACT %s %s (answer %s)",
	    request_text, found ? "found" : "not found", answer_text);
	if (found)
		ck_assert_msg(fx_index_compare(&answer, &request) == 0,
		    "EXACT %s answered %s", request_text, answer_text);
}

/* Feeds every NEXT answer back in from an empty request: the walk must
 * give exactly the oracle's rows, in order, strictly increasing, each also
 * found by EXACT, and then stop. Returns the number of rows visited. */
static size_t
assert_full_traversal(const struct dci_registry *where, enum fx_table table,
    const struct schema_index_filter *filter)
{
	struct fx_rows rows;
	struct fx_index request = empty_index, answer, again;
	struct schema_index_row row, exact_row;
	size_t visited = 0;
	char text[256];

	fx_oracle(where, table, filter, &rows);
	while (walk(
	    where, table, &request, SCHEMA_INDEX_NEXT, filter, &answer, &row)) {
		const struct fx_row *expected;

		ck_assert_msg(visited < rows.count, "extra row %s",
		    fx_index_text(&answer, text, sizeof(text)));
		expected = &rows.rows[visited];
		ck_assert_msg(fx_index_compare(&answer, &expected->index) == 0,
		    "row %zu is %s", visited,
		    fx_index_text(&answer, text, sizeof(text)));
		if (visited > 0)
			ck_assert_int_lt(
			    fx_index_compare(&request, &answer), 0);
		ck_assert_ptr_eq(row.supplier, expected->supplier);
		ck_assert_ptr_eq(row.class, expected->class);
		ck_assert_ptr_eq(row.datum, expected->datum);
		if (table == FX_INSTANCE || table == FX_STAT)
			ck_assert_uint_eq(row.instance, expected->instance);
		ck_assert(walk(where, table, &answer, SCHEMA_INDEX_EXACT, filter,
		    &again, &exact_row));
		ck_assert_int_eq(fx_index_compare(&again, &answer), 0);
		request = answer;
		visited++;
	}
	ck_assert_uint_eq(visited, rows.count);
	fx_rows_free(&rows);
	return visited;
}

/* --- Encodings ---------------------------------------------------------- */

START_TEST(encode_each_row_kind)
{
	static const uint32_t netif_id[] = {1, 1}, disk_id[] = {1, 2},
	                      system_id[] = {2};
	struct dci_class *netif = fx_find_class(registry, netif_id, 2);
	struct dci_class *disk = fx_find_class(registry, disk_id, 2);
	struct dci_class *system = fx_find_class(registry, system_id, 1);
	uint32_t index[SCHEMA_INDEX_MAX];
	struct schema_index_row row;

	ck_assert_uint_eq(schema_index_encode_class(disk, index), 3);
	ck_assert_mem_eq(
	    index, ((const uint32_t[]){2, 1, 2}), 3 * sizeof(uint32_t));
	ck_assert_uint_eq(schema_index_encode_class(system, index), 2);
	ck_assert_mem_eq(
	    index, ((const uint32_t[]){1, 2}), 2 * sizeof(uint32_t));

	row = (struct schema_index_row){
	    .class = disk, .datum = dci_class_find_datum(disk, 4)};
	ck_assert_uint_eq(schema_index_encode_datum(&row, index), 4);
	ck_assert_mem_eq(
	    index, ((const uint32_t[]){2, 1, 2, 4}), 4 * sizeof(uint32_t));

	/* Instance 1 of disk is [2,0,1] (commit sorted sda [1,7,8] first). */
	row = (struct schema_index_row){.class = disk, .instance = 1};
	ck_assert_uint_eq(schema_index_encode_instance(&row, index), 7);
	ck_assert_mem_eq(index, ((const uint32_t[]){2, 1, 2, 3, 2, 0, 1}),
	    7 * sizeof(uint32_t));

	row = (struct schema_index_row){.class = disk,
	    .instance = 0,
	    .datum = dci_class_find_datum(disk, 3)};
	ck_assert_uint_eq(schema_index_encode_stat(&row, index), 8);
	ck_assert_mem_eq(index, ((const uint32_t[]){2, 1, 2, 3, 1, 7, 8, 3}),
	    8 * sizeof(uint32_t));

	row = (struct schema_index_row){.class = netif,
	    .instance = 2,
	    .datum = dci_class_find_datum(netif, 5)};
	ck_assert_uint_eq(schema_index_encode_stat(&row, index), 6);
	ck_assert_mem_eq(index, ((const uint32_t[]){2, 1, 1, 1, 30, 5}),
	    6 * sizeof(uint32_t));

	row = (struct schema_index_row){.class = system,
	    .instance = 0,
	    .datum = dci_class_find_datum(system, 6)};
	ck_assert_uint_eq(schema_index_encode_stat(&row, index), 5);
	ck_assert_mem_eq(
	    index, ((const uint32_t[]){1, 2, 1, 0, 6}), 5 * sizeof(uint32_t));
}
END_TEST

START_TEST(encode_longest_index_fits)
{
	/* 16 class levels and 16 instance words: SCHEMA_INDEX_MAX. */
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS], instance[16];
	struct dci_instance_level levels[] = {{DCI_ITYPE_DEVICE, 64}};
	struct dci_datum_info datums[] = {fx_datum(0xfffffffeu, "last",
	    DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0, DCI_SEMANTICS_GAUGE)};
	struct dci_registry *big = dci_registry_new();
	struct dci_supplier *supplier = fx_supplier(big, "alpha");
	struct dci_class_info info;
	struct dci_class *class;
	struct dci_snapshot_builder *builder;
	uint32_t index[SCHEMA_INDEX_MAX + 1];
	struct schema_index_row row;
	long position;

	for (uint32_t i = 0; i < DCI_CLASS_ID_MAX_LEVELS; i++)
		id[i] = 0xfffffffeu - i;
	for (uint32_t i = 0; i < 16; i++)
		instance[i] = 0xffffffffu - i;
	info = fx_class_info(
	    id, DCI_CLASS_ID_MAX_LEVELS, "deep", levels, 1, datums, 1);
	class = fx_class(big, supplier, &info);
	builder = dci_snapshot_builder_new(class);
	position = fx_add(builder, instance, 16, "x");
	fx_set_unsigned(builder, position, 0xfffffffeu, 1);
	fx_commit(builder, class, 1);

	index[SCHEMA_INDEX_MAX] = 0x5a5a5a5au;
	row = (struct schema_index_row){
	    .class = class, .instance = 0, .datum = &class->datums[0]};
	ck_assert_uint_eq(
	    schema_index_encode_stat(&row, index), SCHEMA_INDEX_MAX);
	ck_assert_uint_eq(index[SCHEMA_INDEX_MAX], 0x5a5a5a5au);
	ck_assert_uint_eq(index[0], 16);
	ck_assert_uint_eq(index[16], 0xfffffffeu - 15);
	ck_assert_uint_eq(index[17], 16);
	ck_assert_uint_eq(index[33], 0xffffffffu - 15);
	ck_assert_uint_eq(index[34], 0xfffffffeu);
	ck_assert_uint_eq(assert_full_traversal(big, FX_STAT, NULL), 1);
	ck_assert_uint_eq(assert_full_traversal(big, FX_INSTANCE, NULL), 1);
	dci_registry_free(big);
}
END_TEST

/* --- dciStatTable order ------------------------------------------------- */

START_TEST(stat_full_traversal_in_order)
{
	ck_assert_uint_eq(
	    assert_full_traversal(registry, FX_STAT, NULL), FX_STAT_ROWS);
}
END_TEST

START_TEST(stat_first_row_from_empty_request)
{
	struct schema_index_filter all = {SCHEMA_INDEX_ALL_KINDS, false};
	struct schema_index_row row;

	assert_next(FX_STAT, NULL, empty_index, INDEX(1, 2, 1, 0, 1));
	/* A NULL index with length 0 is an empty request too. */
	ck_assert(schema_index_stat(registry, NULL, 0, SCHEMA_INDEX_NEXT, &all, &row));
	ck_assert_str_eq(row.class->label, "system");
	ck_assert_uint_eq(row.datum->info.id, 1);
	ck_assert(
	    !schema_index_stat(registry, NULL, 0, SCHEMA_INDEX_EXACT, &all, &row));
}
END_TEST

START_TEST(stat_unset_and_unused_datums_skipped)
{
	struct fx_rows rows;

	/* netif eth1 (20) has no queue (5); system's datum 5 is ST_UNUSED. */
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 1, 1, 20, 2), INDEX(2, 1, 1, 1, 30, 1));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 1, 1, 20, 4), INDEX(2, 1, 1, 1, 30, 1));
	assert_next(FX_STAT, NULL, INDEX(1, 2, 1, 0, 4), INDEX(1, 2, 1, 0, 6));
	assert_exact(FX_STAT, NULL, INDEX(2, 1, 1, 1, 20, 5), false);
	assert_exact(FX_STAT, NULL, INDEX(1, 2, 1, 0, 5), false);
	/* The oracle agrees: 17 rows, none of them these. */
	fx_oracle(registry, FX_STAT, NULL, &rows);
	ck_assert_uint_eq(rows.count, FX_STAT_ROWS);
	for (size_t i = 0; i < rows.count; i++) {
		struct fx_index unset = INDEX(2, 1, 1, 1, 20, 5);
		ck_assert_int_ne(
		    fx_index_compare(&rows.rows[i].index, &unset), 0);
	}
	fx_rows_free(&rows);
}
END_TEST

START_TEST(stat_next_across_class_boundaries)
{
	/* Last row of {2} -> first of {1,1}; last of {1,1} -> first of
	 * {1,2}; last of {1,2} -> nothing ({3,1} was never committed). */
	assert_next(
	    FX_STAT, NULL, INDEX(1, 2, 1, 0, 6), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, 30, 5),
	    INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 2, 3, 2, 0, 1, 4), empty_index);
	/* Between instances, last datum to next instance. */
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 1, 1, 10, 5), INDEX(2, 1, 1, 1, 20, 1));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 2, 3, 1, 7, 8, 4),
	    INDEX(2, 1, 2, 3, 2, 0, 1, 3));
}
END_TEST

START_TEST(stat_next_from_prefixes)
{
	assert_next(FX_STAT, NULL, INDEX(0), INDEX(1, 2, 1, 0, 1));
	assert_next(FX_STAT, NULL, INDEX(1), INDEX(1, 2, 1, 0, 1));
	assert_next(FX_STAT, NULL, INDEX(1, 2), INDEX(1, 2, 1, 0, 1));
	assert_next(FX_STAT, NULL, INDEX(1, 2, 1), INDEX(1, 2, 1, 0, 1));
	assert_next(FX_STAT, NULL, INDEX(1, 2, 1, 0), INDEX(1, 2, 1, 0, 1));
	assert_next(FX_STAT, NULL, INDEX(1, 2, 1, 0, 0), INDEX(1, 2, 1, 0, 1));
	assert_next(FX_STAT, NULL, INDEX(2), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(FX_STAT, NULL, INDEX(2, 1), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 1, 1, 10), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 1, 1, 20), INDEX(2, 1, 1, 1, 20, 1));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 2), INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 2, 3), INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 2, 3, 2), INDEX(2, 1, 2, 3, 2, 0, 1, 3));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 2, 3, 2, 0),
	    INDEX(2, 1, 2, 3, 2, 0, 1, 3));
	/* A prefix of a class that does not exist: the next class. */
	assert_next(FX_STAT, NULL, INDEX(2, 0), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 0), INDEX(2, 1, 1, 1, 10, 1));
	/* Wrong instance length prefix inside a class. */
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 0), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 1, 2), INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 2, 2, 9, 9, 9),
	    INDEX(2, 1, 2, 3, 1, 7, 8, 3));
}
END_TEST

START_TEST(stat_next_between_instances)
{
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 1, 1, 15), INDEX(2, 1, 1, 1, 20, 1));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 1, 1, 15, 99), INDEX(2, 1, 1, 1, 20, 1));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, 9, 0xffffffffu),
	    INDEX(2, 1, 1, 1, 10, 1));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 2, 3, 1, 7, 9),
	    INDEX(2, 1, 2, 3, 2, 0, 1, 3));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 2, 3, 1, 8),
	    INDEX(2, 1, 2, 3, 2, 0, 1, 3));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 2, 3, 1, 7, 7, 99),
	    INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, 31),
	    INDEX(2, 1, 2, 3, 1, 7, 8, 3));
}
END_TEST

START_TEST(stat_next_from_longer_request)
{
	/* A request below a row sorts after that row. */
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, 10, 2, 99, 99),
	    INDEX(2, 1, 1, 1, 10, 5));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, 10, 2, 0),
	    INDEX(2, 1, 1, 1, 10, 5));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, 10, 5, 0),
	    INDEX(2, 1, 1, 1, 20, 1));
	assert_next(FX_STAT, NULL, INDEX(1, 2, 1, 0, 6, 1, 2, 3, 4, 5),
	    INDEX(2, 1, 1, 1, 10, 1));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 2, 3, 2, 0, 1, 4, 0), empty_index);
	/* Below a datum id that has no row. */
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, 10, 3, 1),
	    INDEX(2, 1, 1, 1, 10, 5));
}
END_TEST

START_TEST(stat_next_with_huge_subidentifiers)
{
	/* A sub-identifier beyond 2^32-1 sorts after every row at its
	 * level, at every position. */
	assert_next(FX_STAT, NULL, INDEX(BIG), empty_index);
	assert_next(FX_STAT, NULL, INDEX(1, BIG), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(FX_STAT, NULL, INDEX(1, 2, BIG), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(
	    FX_STAT, NULL, INDEX(1, 2, 1, BIG), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(
	    FX_STAT, NULL, INDEX(1, 2, 1, 0, BIG), INDEX(2, 1, 1, 1, 10, 1));
	assert_next(FX_STAT, NULL, INDEX(2, BIG), empty_index);
	assert_next(FX_STAT, NULL, INDEX(2, 1, BIG), empty_index);
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 1, BIG), INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, BIG),
	    INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, 10, BIG),
	    INDEX(2, 1, 1, 1, 20, 1));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 2, 3, 1, BIG),
	    INDEX(2, 1, 2, 3, 2, 0, 1, 3));
	assert_next(FX_STAT, NULL, INDEX(2, 1, 2, 3, 1, 7, BIG),
	    INDEX(2, 1, 2, 3, 2, 0, 1, 3));
	assert_next(
	    FX_STAT, NULL, INDEX(2, 1, 2, 3, 2, 0, 1, BIG), empty_index);
	/* 2^32 + 10 must not be mistaken for 10 (no truncation). */
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, (UINT64_C(1) << 32) + 10),
	    INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(FX_STAT, NULL,
	    INDEX(2, 1, 1, 1, 10, (UINT64_C(1) << 32) + 1),
	    INDEX(2, 1, 1, 1, 20, 1));
	/* 2^32-1 itself is a valid sub-identifier, still after 30. */
	assert_next(FX_STAT, NULL, INDEX(2, 1, 1, 1, 0xffffffffu),
	    INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(FX_STAT, NULL, INDEX(UINT64_MAX), empty_index);
}
END_TEST

START_TEST(stat_next_beyond_every_class)
{
	assert_next(FX_STAT, NULL, INDEX(9), empty_index);
	assert_next(FX_STAT, NULL, INDEX(3), empty_index);
	assert_next(FX_STAT, NULL, INDEX(3, 0), empty_index);
	/* {3,1} has no snapshot: nothing after {1,2}'s rows. */
	assert_next(FX_STAT, NULL, INDEX(2, 3), empty_index);
	assert_next(FX_STAT, NULL, INDEX(2, 3, 1), empty_index);
	assert_next(FX_STAT, NULL, INDEX(2, 1, 3), empty_index);
}
END_TEST

START_TEST(walks_on_empty_registry_find_nothing)
{
	struct dci_registry *empty = dci_registry_new();
	struct fx_index answer;
	struct schema_index_row row;
	struct fx_index requests[] = {
	    empty_index, INDEX(0), INDEX(1, 2), INDEX(2, 1, 1, 1, 10, 1)};

	for (size_t r = 0; r < COUNT_OF(requests); r++) {
		for (int table = FX_SUPPLIER; table <= FX_STAT; table++) {
			ck_assert(!walk(empty, (enum fx_table)table,
			    &requests[r], SCHEMA_INDEX_NEXT, NULL, &answer, &row));
			ck_assert(!walk(empty, (enum fx_table)table,
			    &requests[r], SCHEMA_INDEX_EXACT, NULL, &answer, &row));
		}
	}
	dci_registry_free(empty);
}
END_TEST

/* --- dciStatTable EXACT ------------------------------------------------- */

START_TEST(stat_exact_rows_and_near_misses)
{
	struct fx_rows rows;

	fx_oracle(registry, FX_STAT, NULL, &rows);
	for (size_t i = 0; i < rows.count; i++) {
		struct fx_index request = rows.rows[i].index;

		assert_exact(FX_STAT, NULL, request, true);
		fx_index_push(&request, 0);
		assert_exact(FX_STAT, NULL, request, false);
		request.length -= 2;
		assert_exact(FX_STAT, NULL, request, false);
		/* The last sub-identifier pushed up by 2^32 must not match. */
		request = rows.rows[i].index;
		request.subids[request.length - 1] += UINT64_C(1) << 32;
		assert_exact(FX_STAT, NULL, request, false);
	}
	fx_rows_free(&rows);
	assert_exact(FX_STAT, NULL, INDEX(2, 1, 1, 1, 20, 5), false);
	assert_exact(FX_STAT, NULL, INDEX(2, 1, 1, 1, 15, 1), false);
	assert_exact(FX_STAT, NULL, INDEX(2, 1, 1, 1, 10, 3), false);
	assert_exact(FX_STAT, NULL, INDEX(2, 1, 1, 2, 10, 0, 1), false);
	assert_exact(FX_STAT, NULL, INDEX(2, 1, 2, 3, 1, 7, 8), false);
	assert_exact(FX_STAT, NULL, INDEX(2, 3, 1, 1, 0, 1), false);
	assert_exact(FX_STAT, NULL, INDEX(2, 1, 1), false);
	assert_exact(FX_STAT, NULL, INDEX(2, 1, 1, 1, 10), false);
	assert_exact(FX_STAT, NULL,
	    INDEX(2, 1, 1 + (UINT64_C(1) << 32), 1, 10, 1), false);
	assert_exact(FX_STAT, NULL, empty_index, false);
}
END_TEST

/* --- Filters ------------------------------------------------------------ */

START_TEST(stat_filter_counter64_only)
{
	struct schema_index_filter filter = {1u << DCI_KIND_COUNTER64, false};

	ck_assert_uint_eq(assert_full_traversal(registry, FX_STAT, &filter), 3);
	assert_next(FX_STAT, &filter, empty_index, INDEX(2, 1, 1, 1, 10, 2));
	assert_next(FX_STAT, &filter, INDEX(2, 1, 1, 1, 10, 2),
	    INDEX(2, 1, 1, 1, 20, 2));
	assert_next(FX_STAT, &filter, INDEX(2, 1, 1, 1, 20, 2),
	    INDEX(2, 1, 1, 1, 30, 2));
	assert_next(FX_STAT, &filter, INDEX(2, 1, 1, 1, 30, 2), empty_index);
	/* {2} has no Counter64 datum: from inside it, the next class. */
	assert_next(
	    FX_STAT, &filter, INDEX(1, 2, 1, 0, 1), INDEX(2, 1, 1, 1, 10, 2));
	assert_exact(FX_STAT, &filter, INDEX(2, 1, 1, 1, 20, 2), true);
	assert_exact(FX_STAT, &filter, INDEX(2, 1, 1, 1, 10, 5), false);
	assert_exact(FX_STAT, &filter, INDEX(2, 1, 1, 1, 10, 1), false);
	assert_exact(FX_STAT, &filter, INDEX(2, 1, 2, 3, 1, 7, 8, 3), false);
}
END_TEST

START_TEST(stat_filter_counters_only)
{
	struct schema_index_filter filter = {SCHEMA_INDEX_ALL_KINDS, true};
	struct schema_index_filter counter32 = {1u << DCI_KIND_COUNTER32, true};

	ck_assert_uint_eq(assert_full_traversal(registry, FX_STAT, &filter), 5);
	assert_next(FX_STAT, &filter, empty_index, INDEX(2, 1, 1, 1, 10, 2));
	assert_next(FX_STAT, &filter, INDEX(2, 1, 1, 1, 30, 2),
	    INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(FX_STAT, &filter, INDEX(2, 1, 2, 3, 1, 7, 8, 3),
	    INDEX(2, 1, 2, 3, 2, 0, 1, 3));
	assert_next(
	    FX_STAT, &filter, INDEX(2, 1, 2, 3, 2, 0, 1, 3), empty_index);
	assert_exact(FX_STAT, &filter, INDEX(2, 1, 1, 1, 10, 5), false);
	assert_exact(FX_STAT, &filter, INDEX(2, 1, 2, 3, 2, 0, 1, 4), false);
	assert_exact(FX_STAT, &filter, INDEX(2, 1, 2, 3, 2, 0, 1, 3), true);
	ck_assert_uint_eq(
	    assert_full_traversal(registry, FX_STAT, &counter32), 2);
}
END_TEST

static const enum dci_value_kind every_kind[] = {DCI_KIND_COUNTER64,
    DCI_KIND_COUNTER32, DCI_KIND_GAUGE32, DCI_KIND_INTEGER32, DCI_KIND_STRING,
    DCI_KIND_IPADDRESS, DCI_KIND_MACADDRESS, DCI_KIND_TIMETICKS,
    DCI_KIND_TRUTHVALUE, DCI_KIND_TEXT_ONLY};
static const size_t rows_of_kind[] = {3, 2, 2, 2, 3, 1, 1, 1, 1, 1};

START_TEST(stat_filter_each_kind)
{
	struct schema_index_filter filter = {1u << every_kind[_i], false};

	ck_assert_uint_eq(assert_full_traversal(registry, FX_STAT, &filter),
	    rows_of_kind[_i]);
}
END_TEST

START_TEST(stat_filter_skips_classes_without_kind)
{
	struct schema_index_filter gauge = {1u << DCI_KIND_GAUGE32, false};
	struct schema_index_filter truth = {1u << DCI_KIND_TRUTHVALUE, false};
	struct schema_index_filter none = {0, false};

	/* {2} has no gauge, {1,2} has none, {3,1} has one but no snapshot. */
	assert_next(FX_STAT, &gauge, empty_index, INDEX(2, 1, 1, 1, 10, 5));
	assert_next(FX_STAT, &gauge, INDEX(2, 1, 1, 1, 10, 5),
	    INDEX(2, 1, 1, 1, 30, 5));
	assert_next(FX_STAT, &gauge, INDEX(2, 1, 1, 1, 30, 5), empty_index);
	assert_next(FX_STAT, &truth, empty_index, INDEX(1, 2, 1, 0, 2));
	assert_next(FX_STAT, &truth, INDEX(1, 2, 1, 0, 2), empty_index);
	assert_next(FX_STAT, &none, empty_index, empty_index);
	assert_exact(FX_STAT, &none, INDEX(1, 2, 1, 0, 2), false);
}
END_TEST

/* --- The other tables --------------------------------------------------- */

START_TEST(instance_walk)
{
	ck_assert_uint_eq(
	    assert_full_traversal(registry, FX_INSTANCE, NULL), 6);
	assert_next(FX_INSTANCE, NULL, empty_index, INDEX(1, 2, 1, 0));
	assert_next(
	    FX_INSTANCE, NULL, INDEX(1, 2, 1, 0), INDEX(2, 1, 1, 1, 10));
	assert_next(FX_INSTANCE, NULL, INDEX(2, 1, 1), INDEX(2, 1, 1, 1, 10));
	assert_next(
	    FX_INSTANCE, NULL, INDEX(2, 1, 1, 1, 10, 5), INDEX(2, 1, 1, 1, 20));
	assert_next(
	    FX_INSTANCE, NULL, INDEX(2, 1, 1, 1, 11), INDEX(2, 1, 1, 1, 20));
	assert_next(FX_INSTANCE, NULL, INDEX(2, 1, 1, 1, BIG),
	    INDEX(2, 1, 2, 3, 1, 7, 8));
	assert_next(FX_INSTANCE, NULL, INDEX(2, 1, 2, 3, 1, 7),
	    INDEX(2, 1, 2, 3, 1, 7, 8));
	/* After the last instance: {3,1} has no snapshot, so nothing. */
	assert_next(FX_INSTANCE, NULL, INDEX(2, 1, 2, 3, 2, 0, 1), empty_index);
	assert_next(FX_INSTANCE, NULL, INDEX(2, 3, 1), empty_index);
	assert_next(FX_INSTANCE, NULL, INDEX(9), empty_index);

	assert_exact(FX_INSTANCE, NULL, INDEX(2, 1, 1, 1, 20), true);
	assert_exact(FX_INSTANCE, NULL, INDEX(2, 1, 2, 3, 2, 0, 1), true);
	assert_exact(FX_INSTANCE, NULL, INDEX(1, 2, 1, 0), true);
	assert_exact(FX_INSTANCE, NULL, INDEX(2, 1, 1, 1, 20, 0), false);
	assert_exact(FX_INSTANCE, NULL, INDEX(2, 1, 1, 1), false);
	assert_exact(FX_INSTANCE, NULL, INDEX(2, 1, 1, 1, 15), false);
	assert_exact(FX_INSTANCE, NULL, INDEX(2, 1, 2, 3, 2, 0), false);
	assert_exact(FX_INSTANCE, NULL, INDEX(2, 3, 1, 1, 0), false);
	assert_exact(FX_INSTANCE, NULL,
	    INDEX(2, 1, 1, 1, 20 + (UINT64_C(1) << 32)), false);
}
END_TEST

START_TEST(datum_walk)
{
	/* system 6 (ST_UNUSED described) + netif 3 + disk 2 + never 1. */
	ck_assert_uint_eq(assert_full_traversal(registry, FX_DATUM, NULL), 12);
	assert_next(FX_DATUM, NULL, empty_index, INDEX(1, 2, 1));
	assert_next(FX_DATUM, NULL, INDEX(1, 2, 4), INDEX(1, 2, 5));
	assert_next(FX_DATUM, NULL, INDEX(1, 2, 5), INDEX(1, 2, 6));
	assert_next(FX_DATUM, NULL, INDEX(1, 2, 6), INDEX(2, 1, 1, 1));
	assert_next(FX_DATUM, NULL, INDEX(2, 1, 1, 2, 7), INDEX(2, 1, 1, 5));
	assert_next(FX_DATUM, NULL, INDEX(2, 1, 1, BIG), INDEX(2, 1, 2, 3));
	assert_next(FX_DATUM, NULL, INDEX(2, 1, 2, 4), INDEX(2, 3, 1, 1));
	assert_next(FX_DATUM, NULL, INDEX(2, 3, 0, 9), INDEX(2, 3, 1, 1));
	assert_next(FX_DATUM, NULL, INDEX(2, 3, 1, 1), empty_index);
	assert_next(FX_DATUM, NULL, INDEX(3), empty_index);

	assert_exact(FX_DATUM, NULL, INDEX(2, 1, 1, 5), true);
	assert_exact(FX_DATUM, NULL, INDEX(2, 3, 1, 1), true);
	assert_exact(FX_DATUM, NULL, INDEX(1, 2, 6), true);
	assert_exact(FX_DATUM, NULL, INDEX(1, 2, 5), true); /* ST_UNUSED */
	assert_exact(FX_DATUM, NULL, INDEX(2, 1, 1, 3), false);
	assert_exact(FX_DATUM, NULL, INDEX(2, 1, 1, 5, 0), false);
	assert_exact(FX_DATUM, NULL, INDEX(2, 1, 1), false);
	assert_exact(
	    FX_DATUM, NULL, INDEX(2, 1, 1, 5 + (UINT64_C(1) << 32)), false);
}
END_TEST

START_TEST(class_walk)
{
	ck_assert_uint_eq(assert_full_traversal(registry, FX_CLASS, NULL), 4);
	assert_next(FX_CLASS, NULL, empty_index, INDEX(1, 2));
	assert_next(FX_CLASS, NULL, INDEX(1, 2), INDEX(2, 1, 1));
	assert_next(FX_CLASS, NULL, INDEX(1, 2, 0), INDEX(2, 1, 1));
	assert_next(FX_CLASS, NULL, INDEX(2, 1), INDEX(2, 1, 1));
	assert_next(FX_CLASS, NULL, INDEX(2, 1, 1), INDEX(2, 1, 2));
	assert_next(FX_CLASS, NULL, INDEX(2, 1, BIG), INDEX(2, 3, 1));
	assert_next(FX_CLASS, NULL, INDEX(2, 3, 1), empty_index);
	assert_next(FX_CLASS, NULL, INDEX(2, BIG), empty_index);

	assert_exact(FX_CLASS, NULL, INDEX(1, 2), true);
	assert_exact(FX_CLASS, NULL, INDEX(2, 3, 1), true); /* no snapshot */
	assert_exact(FX_CLASS, NULL, INDEX(2, 1, 1, 0), false);
	assert_exact(FX_CLASS, NULL, INDEX(2, 1), false);
	assert_exact(FX_CLASS, NULL, INDEX(1, 1), false);
	assert_exact(
	    FX_CLASS, NULL, INDEX(2, 1, 1 + (UINT64_C(1) << 32)), false);
}
END_TEST

START_TEST(supplier_walk)
{
	ck_assert_uint_eq(
	    assert_full_traversal(registry, FX_SUPPLIER, NULL), 3);
	assert_next(FX_SUPPLIER, NULL, empty_index, INDEX(1));
	assert_next(FX_SUPPLIER, NULL, INDEX(0), INDEX(1));
	assert_next(FX_SUPPLIER, NULL, INDEX(0, 7), INDEX(1));
	assert_next(FX_SUPPLIER, NULL, INDEX(1), INDEX(2));
	assert_next(FX_SUPPLIER, NULL, INDEX(1, 5), INDEX(2));
	assert_next(FX_SUPPLIER, NULL, INDEX(2, BIG), INDEX(3));
	assert_next(FX_SUPPLIER, NULL, INDEX(3), empty_index);
	assert_next(FX_SUPPLIER, NULL, INDEX(BIG), empty_index);
	assert_next(FX_SUPPLIER, NULL, INDEX(UINT64_MAX), empty_index);

	assert_exact(FX_SUPPLIER, NULL, INDEX(1), true);
	assert_exact(FX_SUPPLIER, NULL, INDEX(3), true);
	assert_exact(FX_SUPPLIER, NULL, INDEX(0), false);
	assert_exact(FX_SUPPLIER, NULL, INDEX(4), false);
	assert_exact(FX_SUPPLIER, NULL, INDEX(2, 0), false);
	assert_exact(FX_SUPPLIER, NULL, empty_index, false);
	assert_exact(FX_SUPPLIER, NULL, INDEX(2 + (UINT64_C(1) << 32)), false);
}
END_TEST

START_TEST(class_without_snapshot_has_class_and_datum_rows)
{
	static const uint32_t never_id[] = {3, 1};
	struct dci_class *never = fx_find_class(registry, never_id, 2);
	struct fx_index answer;
	struct schema_index_row row;
	struct fx_index request = INDEX(2, 3, 1);
	struct fx_index datum = INDEX(2, 3, 1, 1);

	ck_assert_ptr_null(never->snapshot);
	ck_assert(walk(
	    registry, FX_CLASS, &request, SCHEMA_INDEX_EXACT, NULL, &answer, &row));
	ck_assert_ptr_eq(row.class, never);
	ck_assert(walk(
	    registry, FX_DATUM, &datum, SCHEMA_INDEX_EXACT, NULL, &answer, &row));
	ck_assert_ptr_eq(row.class, never);
	ck_assert_str_eq(row.datum->info.label, "waiting");
	ck_assert(!walk(registry, FX_INSTANCE, &request, SCHEMA_INDEX_NEXT, NULL,
	    &answer, &row));
	assert_exact(FX_INSTANCE, NULL, INDEX(2, 3, 1, 1, 0), false);
	assert_exact(FX_STAT, NULL, INDEX(2, 3, 1, 1, 0, 1), false);
}
END_TEST

START_TEST(empty_snapshot_has_no_instance_or_stat_rows)
{
	static const uint32_t netif_id[] = {1, 1};
	struct dci_class *netif = fx_find_class(registry, netif_id, 2);

	fx_commit(dci_snapshot_builder_new(netif), netif, 9000);
	ck_assert_uint_eq(assert_full_traversal(registry, FX_STAT, NULL), 9);
	ck_assert_uint_eq(
	    assert_full_traversal(registry, FX_INSTANCE, NULL), 3);
	assert_next(
	    FX_STAT, NULL, INDEX(1, 2, 1, 0, 6), INDEX(2, 1, 2, 3, 1, 7, 8, 3));
	assert_next(
	    FX_INSTANCE, NULL, INDEX(1, 2, 1, 0), INDEX(2, 1, 2, 3, 1, 7, 8));
	assert_exact(FX_STAT, NULL, INDEX(2, 1, 1, 1, 10, 1), false);
	assert_exact(FX_INSTANCE, NULL, INDEX(2, 1, 1, 1, 10), false);
}
END_TEST

/* --- Generated requests against the oracle ------------------------------ */

static const struct {
	enum fx_table table;
	bool filtered;
	struct schema_index_filter filter;
} fuzz_cases[] = {
    {FX_STAT, false, {0, false}},
    {FX_STAT, true, {1u << DCI_KIND_COUNTER64, false}},
    {FX_STAT, true, {SCHEMA_INDEX_ALL_KINDS, true}},
    {FX_STAT, true, {1u << DCI_KIND_GAUGE32, false}},
    {FX_STAT, true, {1u << DCI_KIND_TRUTHVALUE, false}},
    {FX_INSTANCE, false, {0, false}},
    {FX_DATUM, false, {0, false}},
    {FX_CLASS, false, {0, false}},
    {FX_SUPPLIER, false, {0, false}},
    {FX_CLASS_DATA, false, {0, false}},
};

START_TEST(generated_requests_match_oracle)
{
	const struct schema_index_filter *filter =
	    fuzz_cases[_i].filtered ? &fuzz_cases[_i].filter : NULL;
	enum fx_table table = fuzz_cases[_i].table;
	struct fx_rows rows, all;
	uint64_t state = UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)_i;

	fx_oracle(registry, table, filter, &rows);
	/* Requests are drawn near every row of the table, not only those in
	 * the filter. */
	fx_oracle(registry, table, NULL, &all);
	for (int n = 0; n < 20000; n++) {
		struct fx_index request, answer;
		struct schema_index_row row;
		const struct fx_row *next, *exact;
		char request_text[512], answer_text[512];
		bool found_next, found_exact, ok;
		struct fx_index exact_answer;

		/* Plain comparisons here: a passing ck_assert costs a message
		 * to the parent process, and this loop is hot. */
		fx_random_request(&all, &state, &request);
		next = fx_oracle_next(&rows, &request);
		found_next = walk(registry, table, &request, SCHEMA_INDEX_NEXT,
		    filter, &answer, &row);
		exact = fx_oracle_exact(&rows, &request);
		found_exact = walk(registry, table, &request, SCHEMA_INDEX_EXACT,
		    filter, &exact_answer, &row);
		ok = found_next == (next != NULL) &&
		     (!found_next ||
		         fx_index_compare(&answer, &next->index) == 0) &&
		     found_exact == (exact != NULL) &&
		     (!found_exact ||
		         fx_index_compare(&exact_answer, &request) == 0);
		if (!ok) {
			char oracle_text[512] = "nothing";
			fx_index_text(
			    &request, request_text, sizeof(request_text));
			fx_index_text(
			    &answer, answer_text, sizeof(answer_text));
			if (next != NULL)
				fx_index_text(&next->index, oracle_text,
				    sizeof(oracle_text));
			ck_abort_msg("request %s: NEXT gave %s, oracle %s; "
			             "EXACT walk %d, oracle %d",
			    request_text, found_next ? answer_text : "nothing",
			    oracle_text, found_exact, exact != NULL);
		}
	}
	fx_rows_free(&rows);
	fx_rows_free(&all);
}
END_TEST

/* --- dciClassData: the per-class tables ---------------------------------- */

START_TEST(class_data_full_traversal_in_order)
{
	/* netif 3 x name + 3 x rx_bytes + 2 x queue, disk 2 x 2, system 5. */
	ck_assert_uint_eq(
	    assert_full_traversal(registry, FX_CLASS_DATA, NULL), 17);
}
END_TEST

START_TEST(class_data_order_and_boundaries)
{
	/* Classes by their levels: {1,1} before {1,2} before {2} before
	 * {3,1}, unlike the length-prefixed order of the other tables. */
	assert_next(FX_CLASS_DATA, NULL, empty_index, INDEX(1, 1, 1, 1, 10));
	/* Column end: after name of 30 comes rx_bytes of 10. */
	assert_next(
	    FX_CLASS_DATA, NULL, INDEX(1, 1, 1, 1, 30), INDEX(1, 1, 1, 2, 10));
	/* queue is unset for 20: 10, then 30. */
	assert_next(
	    FX_CLASS_DATA, NULL, INDEX(1, 1, 1, 5, 10), INDEX(1, 1, 1, 5, 30));
	/* Table end: after queue of 30, the disk class's first cell. */
	assert_next(FX_CLASS_DATA, NULL, INDEX(1, 1, 1, 5, 30),
	    INDEX(1, 2, 1, 3, 1, 7, 8));
	/* Past the entry (1.1.2) and before it (1.1.0). */
	assert_next(
	    FX_CLASS_DATA, NULL, INDEX(1, 1, 2), INDEX(1, 2, 1, 3, 1, 7, 8));
	assert_next(FX_CLASS_DATA, NULL, INDEX(1, 1, 0), INDEX(1, 1, 1, 1, 10));
	/* A column between datums, an instance between instances, a
	 * request longer than a cell. */
	assert_next(
	    FX_CLASS_DATA, NULL, INDEX(1, 1, 1, 3), INDEX(1, 1, 1, 5, 10));
	assert_next(
	    FX_CLASS_DATA, NULL, INDEX(1, 1, 1, 2, 15), INDEX(1, 1, 1, 2, 20));
	assert_next(FX_CLASS_DATA, NULL, INDEX(1, 1, 1, 2, 20, 0),
	    INDEX(1, 1, 1, 2, 30));
	/* Class end into {2}, whose ST_UNUSED datum 5 has no column. */
	assert_next(
	    FX_CLASS_DATA, NULL, INDEX(1, 2, 1, 4, 2, 0, 1), INDEX(2, 1, 1, 0));
	assert_next(FX_CLASS_DATA, NULL, INDEX(2, 1, 4, 0), INDEX(2, 1, 6, 0));
	/* {3,1} has no snapshot: after {2} there is nothing. */
	assert_next(FX_CLASS_DATA, NULL, INDEX(2, 1, 6, 0), empty_index);
	assert_next(FX_CLASS_DATA, NULL, INDEX(3), empty_index);
	assert_next(FX_CLASS_DATA, NULL, INDEX(BIG), empty_index);
	assert_next(FX_CLASS_DATA, NULL, INDEX(1, 1, 1, BIG),
	    INDEX(1, 2, 1, 3, 1, 7, 8));
}
END_TEST

START_TEST(class_data_exact_cells_and_near_misses)
{
	struct fx_index answer;
	struct schema_index_row row;

	ck_assert(walk(registry, FX_CLASS_DATA, &(struct fx_index){0},
	              SCHEMA_INDEX_EXACT, NULL, &answer, &row) == false);
	{
		struct fx_index cell = INDEX(1, 1, 1, 2, 20);
		ck_assert(walk(registry, FX_CLASS_DATA, &cell, SCHEMA_INDEX_EXACT,
		    NULL, &answer, &row));
		ck_assert_str_eq(row.datum->info.label, "rx_bytes");
		ck_assert_uint_eq(row.instance, 1);
	}
	{
		/* Unset value, wrong entry, short, long, unused datum,
		 * unknown datum, another class's datum. */
		struct fx_index misses[] = {INDEX(1, 1, 1, 5, 20),
		    INDEX(1, 1, 2, 2, 20), INDEX(1, 1, 1, 2),
		    INDEX(1, 1, 1, 2, 20, 0), INDEX(2, 1, 5, 0),
		    INDEX(1, 1, 1, 9, 20), INDEX(1, 1, 1, 3, 20),
		    INDEX(1, 2, 1, 3, 1, 7), INDEX(3, 1, 1, 1, 0)};
		/* Which name a column of its class's table: a GET of it
		 * is noSuchInstance, of the others noSuchObject. */
		static const bool column[] = {
		    true, false, true, true, false, false, false, true, true};
		for (size_t i = 0; i < COUNT_OF(misses); i++) {
			ck_assert_msg(!walk(registry, FX_CLASS_DATA, &misses[i],
			                  SCHEMA_INDEX_EXACT, NULL, &answer, &row),
			    "miss %zu found", i);
			ck_assert_msg(schema_index_class_data_column(registry,
			                  misses[i].subids,
			                  misses[i].length) == column[i],
			    "miss %zu: column is %d", i, column[i]);
		}
		ck_assert(!schema_index_class_data_column(registry, NULL, 0));
	}
}
END_TEST

/* --- Scale -------------------------------------------------------------- */

/* A column few instances have: found through the presence index built at
 * commit, and the same without it (the presence bits, one by one). */
START_TEST(sparse_columns_found_by_index_and_by_bits)
{
	enum { INSTANCES = 20000 };
	static const uint32_t id[] = {9};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DEVICE, 4},
	};
	static const uint32_t rare[] = {3, 10000, 19999};
	struct dci_datum_info datums[] = {
	    fx_datum(1, "everywhere", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	    fx_datum(2, "rare", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(3, "nowhere", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	};
	struct dci_registry *sparse = dci_registry_new();
	struct dci_supplier *supplier = fx_supplier(sparse, "alpha");
	struct dci_class_info info = fx_class_info(
	    id, 1, "sparse", levels, 1, datums, COUNT_OF(datums));
	struct dci_class *class = fx_class(sparse, supplier, &info);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	struct schema_index_filter counter64 = {1u << DCI_KIND_COUNTER64, false};
	struct schema_index_filter counters = {SCHEMA_INDEX_ALL_KINDS, true};
	struct dci_snapshot_column *columns;
	size_t failures = 0, next = 0;

	for (uint32_t i = 0; i < INSTANCES; i++) {
		long row = dci_snapshot_builder_add(builder, &i, 1, "s", NULL, 0);
		failures += row < 0 || dci_snapshot_builder_set_unsigned(
		                           builder, row, 1, i, NULL, 0) != 0;
		if (next < COUNT_OF(rare) && rare[next] == i) {
			failures += dci_snapshot_builder_set_unsigned(
			                builder, row, 2, i, NULL, 0) != 0;
			next++;
		}
	}
	ck_assert_uint_eq(failures, 0);
	fx_commit(builder, class, 1);
	columns = class->snapshot->columns;
	ck_assert_ptr_nonnull(columns);
	ck_assert(columns[0].complete);
	ck_assert(!columns[1].complete);
	ck_assert_uint_eq(columns[1].count, COUNT_OF(rare));
	for (size_t i = 0; i < COUNT_OF(rare); i++)
		ck_assert_uint_eq(columns[1].positions[i], rare[i]);
	ck_assert(!columns[2].complete);
	ck_assert_uint_eq(columns[2].count, 0);
	ck_assert_uint_eq(dci_snapshot_next_present(class, class->snapshot,
	                      &class->datums[1], 4),
	    10000);
	ck_assert_uint_eq(dci_snapshot_next_present(class, class->snapshot,
	                      &class->datums[1], 20000),
	    INSTANCES);
	ck_assert_uint_eq(dci_snapshot_next_present(class, class->snapshot,
	                      &class->datums[2], 0),
	    INSTANCES);

	for (int indexed = 1; indexed >= 0; indexed--) {
		if (!indexed) {
			class->snapshot->columns = NULL;
			class->snapshot->column_count = 0;
		}
		ck_assert_uint_eq(
		    assert_full_traversal(sparse, FX_STAT, &counter64),
		    COUNT_OF(rare));
		ck_assert_uint_eq(
		    assert_full_traversal(sparse, FX_STAT, &counters),
		    COUNT_OF(rare));
		ck_assert_uint_eq(
		    assert_full_traversal(sparse, FX_CLASS_DATA, NULL),
		    INSTANCES + COUNT_OF(rare));
	}
	class->snapshot->columns = columns;
	class->snapshot->column_count = COUNT_OF(datums);
	dci_registry_free(sparse);
}
END_TEST

START_TEST(hundred_thousand_instances_full_traversal)
{
	enum { INSTANCES = 100000 };
	static const uint32_t id[] = {7};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DEVICE, 8},
	};
	struct dci_datum_info datums[] = {
	    fx_datum(1, "ops", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(2, "busy", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	    fx_datum(3, "errors", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	};
	struct dci_registry *big = dci_registry_new();
	struct dci_supplier *supplier = fx_supplier(big, "alpha");
	struct dci_class_info info = fx_class_info(
	    id, 1, "devices", levels, 1, datums, COUNT_OF(datums));
	struct dci_class *class = fx_class(big, supplier, &info);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	struct schema_index_filter all = {SCHEMA_INDEX_ALL_KINDS, false};
	struct schema_index_filter counter64 = {1u << DCI_KIND_COUNTER64, false};
	uint64_t request[SCHEMA_INDEX_MAX], previous[SCHEMA_INDEX_MAX];
	uint32_t encoded[SCHEMA_INDEX_MAX];
	size_t length = 0, previous_length = 0, visited = 0, failures = 0;
	struct schema_index_row row;

	/* Instance i is [i / 1000, i % 1000 * 7], added in reverse order. */
	for (uint32_t n = 0; n < INSTANCES; n++) {
		uint32_t i = INSTANCES - 1 - n;
		uint32_t instance[2] = {i / 1000, i % 1000 * 7};
		long position = dci_snapshot_builder_add(
		    builder, instance, 2, "d", NULL, 0);
		/* Plain checks in the hot loops: a passing ck_assert costs a
		 * message to the parent process. */
		if (position != (long)n ||
		    dci_snapshot_builder_set_unsigned(builder, position, 1,
		        (uint64_t)i << 20, NULL, 0) != 0 ||
		    dci_snapshot_builder_set_unsigned(
		        builder, position, 2, i, NULL, 0) != 0 ||
		    dci_snapshot_builder_set_unsigned(
		        builder, position, 3, i / 2, NULL, 0) != 0)
			failures++;
	}
	ck_assert_uint_eq(failures, 0);
	fx_commit(builder, class, 1);
	ck_assert_uint_eq(class->snapshot->count, INSTANCES);

	while (schema_index_stat(big, request, length, SCHEMA_INDEX_NEXT, &all, &row)) {
		size_t instance = visited / COUNT_OF(datums);
		uint32_t datum_id = (uint32_t)(visited % COUNT_OF(datums)) + 1;
		int order = 0;

		length = schema_index_encode_stat(&row, encoded);
		if (row.instance != instance ||
		    row.datum->info.id != datum_id || length != 6 ||
		    encoded[0] != 1 || encoded[1] != 7 || encoded[2] != 2 ||
		    encoded[3] != instance / 1000 ||
		    encoded[4] != instance % 1000 * 7 ||
		    encoded[5] != datum_id) {
			ck_abort_msg("row %zu is instance %zu datum %u",
			    visited, row.instance, row.datum->info.id);
		}
		for (size_t i = 0; i < length; i++)
			request[i] = encoded[i];
		/* Strictly increasing, element-wise. */
		for (size_t i = 0;
		     order == 0 && i < length && i < previous_length; i++)
			order = request[i] < previous[i]   ? -1
			        : request[i] > previous[i] ? 1
			                                   : 0;
		if (visited > 0 && order <= 0)
			ck_abort_msg("row %zu does not sort after row %zu",
			    visited, visited - 1);
		memcpy(previous, request, length * sizeof(*request));
		previous_length = length;
		visited++;
	}
	ck_assert_uint_eq(visited, (size_t)INSTANCES * COUNT_OF(datums));

	/* A filtered walk from the middle: the next Counter64 row. */
	{
		const uint64_t middle[] = {1, 7, 2, 50, 7 * 999, 2};
		ck_assert(schema_index_stat(
		    big, middle, 6, SCHEMA_INDEX_NEXT, &counter64, &row));
		ck_assert_uint_eq(row.instance, 51000);
		ck_assert_uint_eq(row.datum->info.id, 1);
		ck_assert(
		    schema_index_stat(big, middle, 6, SCHEMA_INDEX_EXACT, &all, &row));
		ck_assert_uint_eq(row.instance, 50999);
	}
	dci_registry_free(big);
}
END_TEST

static Suite *
walk_suite(void)
{
	Suite *suite = suite_create("walk");
	TCase *encoding = tcase_create("encoding");
	TCase *stat = tcase_create("stat order");
	TCase *exact = tcase_create("stat exact");
	TCase *filters = tcase_create("filters");
	TCase *tables = tcase_create("other tables");
	TCase *generated = tcase_create("generated requests");
	TCase *scale = tcase_create("scale");

	tcase_add_checked_fixture(encoding, setup, teardown);
	tcase_add_test(encoding, encode_each_row_kind);
	tcase_add_test(encoding, encode_longest_index_fits);
	suite_add_tcase(suite, encoding);

	tcase_add_checked_fixture(stat, setup, teardown);
	tcase_add_test(stat, stat_full_traversal_in_order);
	tcase_add_test(stat, stat_first_row_from_empty_request);
	tcase_add_test(stat, stat_unset_and_unused_datums_skipped);
	tcase_add_test(stat, stat_next_across_class_boundaries);
	tcase_add_test(stat, stat_next_from_prefixes);
	tcase_add_test(stat, stat_next_between_instances);
	tcase_add_test(stat, stat_next_from_longer_request);
	tcase_add_test(stat, stat_next_with_huge_subidentifiers);
	tcase_add_test(stat, stat_next_beyond_every_class);
	tcase_add_test(stat, walks_on_empty_registry_find_nothing);
	suite_add_tcase(suite, stat);

	tcase_add_checked_fixture(exact, setup, teardown);
	tcase_add_test(exact, stat_exact_rows_and_near_misses);
	suite_add_tcase(suite, exact);

	tcase_add_checked_fixture(filters, setup, teardown);
	tcase_add_test(filters, stat_filter_counter64_only);
	tcase_add_test(filters, stat_filter_counters_only);
	tcase_add_loop_test(
	    filters, stat_filter_each_kind, 0, (int)COUNT_OF(every_kind));
	tcase_add_test(filters, stat_filter_skips_classes_without_kind);
	suite_add_tcase(suite, filters);

	tcase_add_checked_fixture(tables, setup, teardown);
	tcase_add_test(tables, instance_walk);
	tcase_add_test(tables, datum_walk);
	tcase_add_test(tables, class_walk);
	tcase_add_test(tables, supplier_walk);
	tcase_add_test(tables, class_without_snapshot_has_class_and_datum_rows);
	tcase_add_test(tables, empty_snapshot_has_no_instance_or_stat_rows);
	tcase_add_test(tables, class_data_full_traversal_in_order);
	tcase_add_test(tables, class_data_order_and_boundaries);
	tcase_add_test(tables, class_data_exact_cells_and_near_misses);
	suite_add_tcase(suite, tables);

	tcase_add_checked_fixture(generated, setup, teardown);
	tcase_set_timeout(generated, 120);
	tcase_add_loop_test(generated, generated_requests_match_oracle, 0,
	    (int)COUNT_OF(fuzz_cases));
	suite_add_tcase(suite, generated);

	tcase_set_timeout(scale, 300);
	tcase_add_test(scale, hundred_thousand_instances_full_traversal);
	tcase_add_test(scale, sparse_columns_found_by_index_and_by_bits);
	suite_add_tcase(suite, scale);
	return suite;
}

int
main(void)
{
	return unit_run_suite(walk_suite());
}
