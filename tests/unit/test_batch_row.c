/*
 * Unit tests of dci_batch_set_row and dci_batch_set_row_bytes
 * (include/dcistat/provider.h) through the real host and builder: what
 * they store is what the one-value setters store, for every integer type
 * and every kind of byte value; they refuse what those refuse and log it
 * as they do; the wrappers fall back to them on a host without the call;
 * and an isolated provider's process forwards both (good_provider's
 * row_setter option, run in a real dcistat-isolate process).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "runtime/host.h"
#include "runtime/isolation.h"
#include "runtime/loader.h"
#include "runtime_fixtures.h"
#include "base/log.h"
#include "model/registry.h"
#include "model/snapshot.h"

#ifndef TEST_PROVIDER_DIR
#error "TEST_PROVIDER_DIR must name the directory of the test plug-ins"
#endif
#ifndef TEST_ISOLATE_PROGRAM
#error "TEST_ISOLATE_PROGRAM must name the built dcistat-isolate"
#endif

/* A derived datum: datum 1 + datum 3 (u8 + u16). */
#define SUM_ID DCI_DERIVED_DATUM_ID(1, 3, 0, 32)

static const struct dci_datum_info row_datums[] = {
    {.id = 1,
        .label = "u8",
        .type = DCI_ST_INTEGER8,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .semantics = DCI_SEMANTICS_GAUGE},
    {.id = 2,
        .label = "s8",
        .type = DCI_ST_INTEGER8,
        .presentation = DCI_SIP_DECIMAL,
        .semantics = DCI_SEMANTICS_GAUGE},
    {.id = 3,
        .label = "u16",
        .type = DCI_ST_INTEGER16,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .semantics = DCI_SEMANTICS_GAUGE},
    {.id = 4,
        .label = "s16",
        .type = DCI_ST_INTEGER16,
        .presentation = DCI_SIP_DECIMAL,
        .semantics = DCI_SEMANTICS_GAUGE},
    {.id = 5,
        .label = "u32",
        .type = DCI_ST_INTEGER32,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .semantics = DCI_SEMANTICS_COUNTER},
    {.id = 6,
        .label = "s32",
        .type = DCI_ST_INTEGER32,
        .presentation = DCI_SIP_DECIMAL,
        .semantics = DCI_SEMANTICS_GAUGE},
    {.id = 7,
        .label = "u64",
        .type = DCI_ST_INTEGER64,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .semantics = DCI_SEMANTICS_COUNTER},
    {.id = 8,
        .label = "s64",
        .type = DCI_ST_INTEGER64,
        .presentation = DCI_SIP_DECIMAL,
        .semantics = DCI_SEMANTICS_GAUGE},
    {.id = 9,
        .label = "u32_big",
        .type = DCI_ST_INTEGER32,
        .format = DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN,
        .presentation = DCI_SIP_HEXADECIMAL,
        .semantics = DCI_SEMANTICS_GAUGE},
    {.id = 10,
        .label = "flag",
        .type = DCI_ST_BOOLEAN,
        .semantics = DCI_SEMANTICS_DISCRETE},
    {.id = 11,
        .label = "when",
        .type = DCI_ST_TIME,
        .format = DCI_STF_CTIME,
        .semantics = DCI_SEMANTICS_DISCRETE},
    {.id = 12,
        .label = "address",
        .type = DCI_ST_ADDRESS,
        .format = DCI_SAF_IP,
        .semantics = DCI_SEMANTICS_DISCRETE},
    /* An unsigned 8-bit counter: the host widens it to 32 bits. */
    {.id = 13,
        .label = "u8_counter",
        .type = DCI_ST_INTEGER8,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .semantics = DCI_SEMANTICS_COUNTER},
    {.id = 15,
        .label = "stamp",
        .type = DCI_ST_TIME,
        .format = DCI_STF_5BYTE,
        .semantics = DCI_SEMANTICS_DISCRETE},
    {.id = 16,
        .label = "uptime",
        .type = DCI_ST_TIME,
        .format = DCI_STF_MONOTONIC,
        .semantics = DCI_SEMANTICS_DISCRETE},
    {.id = 14,
        .label = "name",
        .type = DCI_ST_STRING,
        .size = 8,
        .semantics = DCI_SEMANTICS_DISCRETE},
    {.id = SUM_ID,
        .label = "sum",
        .type = DCI_ST_DERIVED,
        .unit = DCI_UNIT_DERIVED_SUM2},
};
#define ROW_DATUM_COUNT (sizeof(row_datums) / sizeof(row_datums[0]))

/* Every integer kind at its edges, in datum id order. */
static const struct dci_row_value edge_values[] = {
    {1, 0, 255, 0},
    {2, 1, 0, -128},
    {3, 0, 65535, 0},
    {4, 1, 0, -32768},
    {5, 0, UINT32_MAX, 0},
    {6, 1, 0, INT32_MIN},
    {7, 0, UINT64_MAX, 0},
    {8, 1, 0, INT64_MIN},
    {9, 0, 0x01020304u, 0},
    {10, 0, 1, 0},
    {11, 1, 0, -86400},
    {12, 0, 0xC0A80001u, 0},
    {13, 0, 200, 0},
};
#define EDGE_COUNT (sizeof(edge_values) / sizeof(edge_values[0]))

/* What each path refuses: a value too wide, an unknown datum, a derived
 * one, a number for a string, a negative value too small, and one good
 * value among them. */
static const struct dci_row_value bad_values[] = {
    {1, 0, 256, 0},
    {999, 0, 1, 0},
    {SUM_ID, 0, 1, 0},
    {14, 0, 1, 0},
    {2, 1, 0, -129},
    {5, 0, 7, 0},
};
#define BAD_COUNT (sizeof(bad_values) / sizeof(bad_values[0]))

/* Every kind of byte value at its edges, in datum id order: integers in
 * their format (the big-endian one, the counter the host widens), an
 * address, a time, the longest string and an empty one. */
static const struct dci_row_bytes edge_bytes[] = {
    {3, "\x01\x02", 2},
    {7, "\xff\xff\xff\xff\xff\xff\xff\xff", 8},
    {9, "\x01\x02\x03\x04", 4},
    {12, "\xc0\xa8\x00\x01", 4},
    {13, "\xc8", 1},
    {14, "seven c", 7},
    {16, "\x10\x00\x00\x00\x00\x00\x00\x00", 8},
};
#define EDGE_BYTES_COUNT (sizeof(edge_bytes) / sizeof(edge_bytes[0]))

/* What each path refuses of bytes: a string too long, a string with a NUL,
 * an unknown datum, a derived one, bytes for a boolean, a length the datum
 * does not take, no bytes, and one good value among them. */
static const struct dci_row_bytes bad_bytes[] = {
    {14, "eight ch", 8},
    {14, "a\0b", 3},
    {999, "x", 1},
    {SUM_ID, "\x01\x00", 2},
    {10, "\x01", 1},
    {3, "\x01", 1},
    {12, NULL, 4},
    {5, "\x07\x00\x00\x00", 4},
};
#define BAD_BYTES_COUNT (sizeof(bad_bytes) / sizeof(bad_bytes[0]))

static struct dci_config *config;
static struct dci_registry *registry;
static struct dci_plugin *plugin;
static struct dci_class *class;
static void
setup(void)
{
	static const char text[] = "providers:\n"
	                           "  - module: /nowhere/rows.so\n";
	static const uint32_t class_id[] = {9, 40};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DEVICE, 4}};
	static const struct dci_supplier_info supplier_info = {
	    .module = "rows", .title = "Row setter test", .version = 1};
	const struct dci_class_info class_info = {
	    .id = class_id,
	    .id_length = 2,
	    .label = "rows",
	    .levels = levels,
	    .level_count = 1,
	    .datums = row_datums,
	    .datum_count = ROW_DATUM_COUNT,
	};
	struct dci_supplier *supplier;

	plugin = rx_plugin_new(text, &config, &registry);
	supplier = dci_supplier_register(&plugin->host, &supplier_info);
	ck_assert_ptr_nonnull(supplier);
	class = dci_class_register(&plugin->host, supplier, &class_info);
	ck_assert_ptr_nonnull(class);
	rx_logged_count = 0;
}

static void
teardown(void)
{
	log_set_sink(NULL);
	dci_plugin_close(plugin);
	dci_registry_free(registry);
	dci_config_free(config);
}

/* The one-value setters, as a provider without dci_batch_set_row calls
 * them; returns how many were refused. */
static size_t
set_one_by_one(struct dci_batch *batch, long row,
    const struct dci_row_value *values, size_t count)
{
	size_t refused = 0;

	for (size_t i = 0; i < count; i++)
		refused +=
		    (values[i].is_signed
		            ? dci_batch_set_signed(batch, row,
		                  values[i].datum_id, values[i].signed_number)
		            : dci_batch_set_unsigned(batch, row,
		                  values[i].datum_id, values[i].number)) != 0;
	return refused;
}

/* dci_batch_set_bytes once per value, as a provider without
 * dci_batch_set_row_bytes calls it; returns how many were refused. */
static size_t
set_bytes_one_by_one(struct dci_batch *batch, long row,
    const struct dci_row_bytes *values, size_t count)
{
	size_t refused = 0;

	for (size_t i = 0; i < count; i++)
		refused += dci_batch_set_bytes(batch, row, values[i].datum_id,
		               values[i].bytes, values[i].length) != 0;
	return refused;
}

/* A batch of the test class, begun. */
static struct dci_batch *
begin_batch(void)
{
	struct dci_batch *batch = dci_batch_begin(&plugin->host, class);

	ck_assert_ptr_nonnull(batch);
	return batch;
}

/* Commits `batch` with the log captured: it logs one warning, returned. */
static const char *
commit_logging_one(struct dci_batch *batch)
{
	rx_logged_count = 0;
	log_set_sink(rx_log_capture);
	ck_assert_int_eq(dci_batch_commit(batch), 0);
	log_set_sink(NULL);
	ck_assert_uint_eq(rx_logged_count, 1);
	return rx_logged[0];
}

static long
add_instance(struct dci_batch *batch, uint32_t id)
{
	char label[16];
	long row;

	snprintf(label, sizeof(label), "unit%u", (unsigned)id);
	row = dci_batch_instance(batch, &id, 1, label);
	ck_assert_int_ge(row, 0);
	return row;
}

/* Instance `left` and `right` of the snapshot have the same presence and
 * the same bytes in every slot, derived and widened ones included. */
static void
assert_same_rows(uint32_t left_id, uint32_t right_id)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	long left = dci_snapshot_find(class, snapshot, &left_id);
	long right = dci_snapshot_find(class, snapshot, &right_id);

	ck_assert_int_ge(left, 0);
	ck_assert_int_ge(right, 0);
	for (size_t d = 0; d < class->datum_count; d++) {
		const struct dci_datum *datum = &class->datums[d];
		bool present =
		    dci_snapshot_present(class, snapshot, (size_t)left, datum);

		ck_assert_msg(present == dci_snapshot_present(class, snapshot,
		                             (size_t)right, datum),
		    "datum %u: presence differs", datum->info.id);
		ck_assert_msg(memcmp(dci_snapshot_slot(
		                         class, snapshot, (size_t)left, datum),
		                  dci_snapshot_slot(
		                      class, snapshot, (size_t)right, datum),
		                  datum->info.size) == 0,
		    "datum %u: values differ", datum->info.id);
	}
}

static uint64_t
number_of(uint32_t instance_id, uint32_t datum_id, bool *present)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	const struct dci_datum *datum = dci_class_find_datum(class, datum_id);
	long row = dci_snapshot_find(class, snapshot, &instance_id);
	struct dci_value value;

	ck_assert_ptr_nonnull(datum);
	ck_assert_int_ge(row, 0);
	*present = dci_snapshot_present(class, snapshot, (size_t)row, datum);
	dci_value_decode(&datum->info,
	    dci_snapshot_slot(class, snapshot, (size_t)row, datum), &value);
	return value.number;
}

/* The string datum `datum_id` of instance `instance_id` as stored. */
static const char *
text_of(uint32_t instance_id, uint32_t datum_id, bool *present)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	const struct dci_datum *datum = dci_class_find_datum(class, datum_id);
	long row = dci_snapshot_find(class, snapshot, &instance_id);

	ck_assert_ptr_nonnull(datum);
	ck_assert_int_ge(row, 0);
	*present = dci_snapshot_present(class, snapshot, (size_t)row, datum);
	return (const char *)dci_snapshot_slot(
	    class, snapshot, (size_t)row, datum);
}

/* Instance 2 holds the edge values of the numbers and of the bytes: the
 * largest u64, the widened counter carried across its wrap, the
 * big-endian u32. */
static void
assert_edges_of_instance_2(void)
{
	bool present;

	ck_assert_uint_eq(number_of(2, 7, &present), UINT64_MAX);
	ck_assert(present);
	ck_assert_uint_eq(number_of(2, 13, &present), 266); /* 200 + 66 */
	ck_assert_uint_eq(number_of(2, 9, &present), 0x01020304u);
}

START_TEST(row_stores_what_one_value_calls_store)
{
	struct dci_batch *batch;
	bool present;

	/* Two refreshes, so that the widened counter's second value is
	 * carried across a wrap (200 -> 10) the same way. */
	for (int refresh = 0; refresh < 2; refresh++) {
		struct dci_row_value values[EDGE_COUNT];

		memcpy(values, edge_values, sizeof(values));
		values[12].number = refresh == 0 ? 200 : 10;
		batch = begin_batch();
		ck_assert_uint_eq(set_one_by_one(batch, add_instance(batch, 1),
		                      values, EDGE_COUNT),
		    0);
		ck_assert_int_eq(
		    dci_batch_set_row(
		        batch, add_instance(batch, 2), values, EDGE_COUNT),
		    0);
		/* Out of datum order: the same values. */
		long row = add_instance(batch, 3);
		for (size_t i = EDGE_COUNT; i-- > 0;)
			ck_assert_int_eq(
			    dci_batch_set_row(batch, row, &values[i], 1), 0);
		ck_assert_int_eq(dci_batch_commit(batch), 0);
		assert_same_rows(1, 2);
		assert_same_rows(1, 3);
	}
	assert_edges_of_instance_2();
	ck_assert_uint_eq(number_of(2, SUM_ID, &present), 255 + 65535);
	ck_assert(present);
	ck_assert_uint_eq(rx_logged_count, 0);
}
END_TEST

START_TEST(row_bytes_store_what_one_value_calls_store)
{
	struct dci_batch *batch;
	bool present;
	long row;

	/* Two refreshes, so that the widened counter's second value is
	 * carried across a wrap (200 -> 10) the same way. */
	for (int refresh = 0; refresh < 2; refresh++) {
		struct dci_row_bytes values[EDGE_BYTES_COUNT];

		memcpy(values, edge_bytes, sizeof(values));
		values[4].bytes = refresh == 0 ? "\xc8" : "\x0a";
		batch = begin_batch();
		ck_assert_uint_eq(
		    set_bytes_one_by_one(batch, add_instance(batch, 1), values,
		        EDGE_BYTES_COUNT),
		    0);
		ck_assert_int_eq(
		    dci_batch_set_row_bytes(batch, add_instance(batch, 2),
		        values, EDGE_BYTES_COUNT),
		    0);
		/* Out of datum order, one at a time: the same values. */
		row = add_instance(batch, 3);
		for (size_t i = EDGE_BYTES_COUNT; i-- > 0;)
			ck_assert_int_eq(
			    dci_batch_set_row_bytes(batch, row, &values[i], 1),
			    0);
		/* A string given twice takes the last; the empty one is a
		 * value. */
		row = add_instance(batch, 4);
		ck_assert_int_eq(dci_batch_set_row_bytes(batch, row,
		                     (const struct dci_row_bytes[]){
		                         dci_row_string(14, "other"),
		                         dci_row_string(14, "")},
		                     2),
		    0);
		ck_assert_int_eq(dci_batch_commit(batch), 0);
		assert_same_rows(1, 2);
		assert_same_rows(1, 3);
	}
	assert_edges_of_instance_2();
	ck_assert_uint_eq(number_of(2, 3, &present), 0x0201u);
	ck_assert_str_eq(text_of(2, 14, &present), "seven c");
	ck_assert(present);
	ck_assert_str_eq(text_of(4, 14, &present), "");
	ck_assert(present);
	ck_assert_uint_eq(rx_logged_count, 0);
}
END_TEST

/* How a refresh of the bad values sets them. */
enum bad_setter {
	BAD_NUMBERS_ONE_BY_ONE,
	BAD_NUMBERS_ROW,
	BAD_BYTES_ONE_BY_ONE,
	BAD_BYTES_ROW,
};

/* The batch of one refresh with the bad values (or bytes) set by
 * `setter`, and in a row that does not exist; the warning its commit
 * logged. */
static const char *
refresh_with_bad_values(enum bad_setter setter)
{
	struct dci_batch *batch = begin_batch();
	long row = add_instance(batch, 1);
	const char *logged;

	switch (setter) {
	case BAD_NUMBERS_ROW:
		ck_assert_int_eq(
		    dci_batch_set_row(batch, row, bad_values, BAD_COUNT), -1);
		/* A row that does not exist: every value refused. */
		ck_assert_int_eq(
		    dci_batch_set_row(batch, 5, edge_values, 2), -1);
		ck_assert_int_eq(dci_batch_set_row(batch, row, NULL, 0), 0);
		break;
	case BAD_NUMBERS_ONE_BY_ONE:
		ck_assert_uint_eq(
		    set_one_by_one(batch, row, bad_values, BAD_COUNT),
		    BAD_COUNT - 1);
		ck_assert_uint_eq(set_one_by_one(batch, 5, edge_values, 2), 2);
		break;
	case BAD_BYTES_ROW:
		ck_assert_int_eq(dci_batch_set_row_bytes(
		                     batch, row, bad_bytes, BAD_BYTES_COUNT),
		    -1);
		ck_assert_int_eq(
		    dci_batch_set_row_bytes(batch, 5, edge_bytes, 2), -1);
		ck_assert_int_eq(
		    dci_batch_set_row_bytes(batch, row, NULL, 0), 0);
		break;
	case BAD_BYTES_ONE_BY_ONE:
		ck_assert_uint_eq(set_bytes_one_by_one(
		                      batch, row, bad_bytes, BAD_BYTES_COUNT),
		    BAD_BYTES_COUNT - 1);
		ck_assert_uint_eq(
		    set_bytes_one_by_one(batch, 5, edge_bytes, 2), 2);
		break;
	}
	logged = commit_logging_one(batch);
	/* Forget the refusals: the next batch logs its own as new. */
	free(class->refusal_hashes);
	class->refusal_hashes = NULL;
	class->refusal_hash_count = 0;
	return logged;
}

/* The bad values set one by one (`one_by_one_setter`) and in a row
 * (`row_setter`) log the same warning, `expected`; the good value among
 * them (datum 5) is stored, the datums `absent` are not. */
static void
assert_row_refuses_as_one_by_one(enum bad_setter one_by_one_setter,
    enum bad_setter row_setter, const char *expected, const uint32_t *absent,
    size_t absent_count)
{
	char one_by_one[1024];
	bool present;

	snprintf(one_by_one, sizeof(one_by_one), "%s",
	    refresh_with_bad_values(one_by_one_setter));
	ck_assert_str_eq(refresh_with_bad_values(row_setter), one_by_one);
	ck_assert_str_eq(one_by_one, expected);
	/* The good value among the bad ones is stored, the others not. */
	ck_assert_uint_eq(number_of(1, 5, &present), 7);
	ck_assert(present);
	for (size_t i = 0; i < absent_count; i++) {
		number_of(1, absent[i], &present);
		ck_assert_msg(!present, "datum %u stored", absent[i]);
	}
}

/* Every datum that takes a number, given values at and past the edges of
 * its range: the row setter (whose common case stores in place, without
 * the encoder) accepts exactly what the encoder accepts, and stores the
 * same bytes. */
START_TEST(row_stores_what_the_encoder_stores)
{
	static const uint32_t ids[] = {
	    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16};
	static const uint64_t numbers[] = {0, 1, 2, 127, 128, 255, 256, 32767,
	    32768, 65535, 65536, INT32_MAX, UINT32_MAX, UINT64_C(0xffffffffff),
	    UINT64_C(0x10000000000), INT64_MAX, (uint64_t)INT64_MAX + 1,
	    UINT64_MAX};
	static const int64_t negatives[] = {-1, -128, -129, -32768, -32769,
	    INT32_MIN, (int64_t)INT32_MIN - 1, INT64_MIN};

	for (size_t d = 0; d < sizeof(ids) / sizeof(ids[0]); d++) {
		const struct dci_datum *datum =
		    dci_class_find_datum(class, ids[d]);
		struct dci_datum_info provided;

		ck_assert_ptr_nonnull(datum);
		provided = datum->info;

		if (datum->provided_size != 0) {
			provided.type = datum->provided_type;
			provided.size = datum->provided_size;
		}
		for (size_t v = 0; v < 18 + 8; v++) {
			struct dci_row_value value =
			    v < 18 ? dci_row_unsigned(ids[d], numbers[v])
			           : dci_row_signed(ids[d], negatives[v - 18]);
			unsigned char expected[8] = {0};
			int encoded =
			    value.is_signed
			        ? dci_value_encode_signed_trusted(&provided,
			              value.signed_number, expected, NULL, 0)
			        : dci_value_encode_unsigned_trusted(&provided,
			              value.number, expected, NULL, 0);
			struct dci_batch *batch =
			    dci_batch_begin(&plugin->host, class);
			long row = add_instance(batch, 1);
			int stored = dci_batch_set_row(batch, row, &value, 1);

			ck_assert_msg(stored == encoded,
			    "datum %u, value %zu: row setter %d, encoder %d",
			    ids[d], v, stored, encoded);
			ck_assert_int_eq(dci_batch_commit(batch), 0);
			if (stored != 0)
				continue;
			/* A widened counter's first value is served as
			 * stored, in 32 bits. */
			ck_assert_msg(memcmp(dci_snapshot_slot(class,
			                         class->snapshot, 0, datum),
			                  expected, provided.size) == 0,
			    "datum %u, value %zu: other bytes", ids[d], v);
		}
	}
}
END_TEST

START_TEST(row_refuses_what_one_value_calls_refuse)
{
	static const uint32_t absent[] = {1, 2, 14, SUM_ID};

	assert_row_refuses_as_one_by_one(BAD_NUMBERS_ONE_BY_ONE,
	    BAD_NUMBERS_ROW,
	    "provider /nowhere/rows.so: class \"rows\": 7 calls refused in "
	    "this refresh "
	    "(7 not refused in the last), those rows are absent; first new: "
	    "value of instance 1 refused: datum 1 (\"u8\"): value 256 does "
	    "not fit ST_INTEGER8 unsigned (maximum 255)",
	    absent, sizeof(absent) / sizeof(absent[0]));
}
END_TEST

START_TEST(row_bytes_refuse_what_one_value_calls_refuse)
{
	static const uint32_t absent[] = {14, 10, 3, 12, SUM_ID};

	assert_row_refuses_as_one_by_one(BAD_BYTES_ONE_BY_ONE, BAD_BYTES_ROW,
	    "provider /nowhere/rows.so: class \"rows\": 9 calls refused in "
	    "this refresh "
	    "(9 not refused in the last), those rows are absent; first new: "
	    "value of instance 1 refused: datum 14 (\"name\"): string of 8 "
	    "bytes is longer than 7 (size 8 less its NUL)",
	    absent, sizeof(absent) / sizeof(absent[0]));
}
END_TEST

/* An older host's operations: its one-value setters counted, then made
 * by the real host on the real operations (whose own one-value setters
 * are rows of one). */
static struct dci_host_operations older;
static size_t older_calls;

/* A call of the older host's, counted, handed to the real host. */
static struct dci_batch *
older_call(struct dci_batch *batch)
{
	older_calls++;
	batch->operations = &dci_host_operations;
	return batch;
}

/* The real host's `result` of that call, back on the older host. */
static int
older_done(struct dci_batch *batch, int result)
{
	batch->operations = &older;
	return result;
}

static int
older_set_unsigned(
    struct dci_batch *batch, long row, uint32_t datum_id, uint64_t value)
{
	return older_done(batch,
	    dci_batch_set_unsigned(older_call(batch), row, datum_id, value));
}

static int
older_set_signed(
    struct dci_batch *batch, long row, uint32_t datum_id, int64_t value)
{
	return older_done(batch,
	    dci_batch_set_signed(older_call(batch), row, datum_id, value));
}

static int
older_set_row(struct dci_batch *batch, long row,
    const struct dci_row_value *values, size_t count)
{
	ck_abort_msg("an older host's batch_set_row was called");
	return -1;
}

static int
older_set_bytes(struct dci_batch *batch, long row, uint32_t datum_id,
    const void *bytes, size_t length)
{
	return older_done(batch, dci_batch_set_bytes(older_call(batch), row,
	                             datum_id, bytes, length));
}

static int
older_set_row_bytes(struct dci_batch *batch, long row,
    const struct dci_row_bytes *values, size_t count)
{
	ck_abort_msg("an older host's batch_set_row_bytes was called");
	return -1;
}

/*
 * A batch whose instance 1 has the edge values (`bytes`: the edge bytes)
 * set one by one, and instance 2, *row, to be set through the older host,
 * which the batch now has: one whose operations end before batch_set_row
 * (`bytes`: before batch_set_row_bytes), its calls not counted yet.
 */
static struct dci_batch *
older_host_batch(bool bytes, long *row)
{
	struct dci_batch *batch = begin_batch();
	long first = add_instance(batch, 1);

	older = dci_host_operations;
	older_calls = 0;
	if (bytes) {
		older.size =
		    offsetof(struct dci_host_operations, batch_set_row_bytes);
		older.batch_set_row_bytes = older_set_row_bytes;
		older.batch_set_bytes = older_set_bytes;
	} else {
		older.size =
		    offsetof(struct dci_host_operations, batch_set_row);
		older.batch_set_row = older_set_row;
		older.batch_set_unsigned = older_set_unsigned;
		older.batch_set_signed = older_set_signed;
	}
	ck_assert_uint_eq(
	    bytes ? set_bytes_one_by_one(
	                batch, first, edge_bytes, EDGE_BYTES_COUNT)
	          : set_one_by_one(batch, first, edge_values, EDGE_COUNT),
	    0);
	*row = add_instance(batch, 2);
	batch->operations = &older;
	return batch;
}

/* Back on the real host, `batch` commits instance 2 the same as
 * instance 1. */
static void
commit_same_as_one_by_one(struct dci_batch *batch)
{
	batch->operations = &dci_host_operations;
	ck_assert_int_eq(dci_batch_commit(batch), 0);
	assert_same_rows(1, 2);
}

static int
set_bad_values_row(struct dci_batch *batch, long row)
{
	return dci_batch_set_row(batch, row, bad_values, BAD_COUNT);
}

static int
set_bad_bytes_row(struct dci_batch *batch, long row)
{
	return dci_batch_set_row_bytes(batch, row, bad_bytes, BAD_BYTES_COUNT);
}

/* The bad values (or bytes) that `set_bad_row` sets in a row, through the
 * older host: it refuses the row, the wrapper has made `calls` calls in
 * the test so far, the commit logs `refused`, the good value (datum 5) is
 * stored. */
static void
assert_older_host_refuses(int (*set_bad_row)(struct dci_batch *, long),
    size_t calls, const char *refused)
{
	struct dci_batch *batch = begin_batch();
	long row = add_instance(batch, 1);
	bool present;

	batch->operations = &older;
	ck_assert_int_eq(set_bad_row(batch, row), -1);
	ck_assert_uint_eq(older_calls, calls);
	batch->operations = &dci_host_operations;
	ck_assert_ptr_nonnull(strstr(commit_logging_one(batch), refused));
	ck_assert_uint_eq(number_of(1, 5, &present), 7);
	ck_assert(present);
}

/* A host whose operations end before batch_set_row: the wrapper makes one
 * call per value, with the same values stored and refused. */
START_TEST(older_host_gets_one_call_per_value)
{
	bool present;
	long row;
	struct dci_batch *batch = older_host_batch(false, &row);

	ck_assert_int_eq(
	    dci_batch_set_row(batch, row, edge_values, EDGE_COUNT), 0);
	ck_assert_uint_eq(older_calls, EDGE_COUNT);
	commit_same_as_one_by_one(batch);
	ck_assert_uint_eq(number_of(2, 7, &present), UINT64_MAX);
	ck_assert(present);

	/* The bad values: refused one by one, the good one stored. */
	assert_older_host_refuses(
	    set_bad_values_row, EDGE_COUNT + BAD_COUNT, ": 5 calls refused");
}
END_TEST

/* A host whose operations end before batch_set_row_bytes: the wrapper
 * makes one dci_batch_set_bytes per value, with the same values stored
 * and refused. */
START_TEST(older_host_gets_one_bytes_call_per_value)
{
	bool present;
	long row;
	struct dci_batch *batch = older_host_batch(true, &row);

	ck_assert_int_eq(
	    dci_batch_set_row_bytes(batch, row, edge_bytes, EDGE_BYTES_COUNT),
	    0);
	ck_assert_uint_eq(older_calls, EDGE_BYTES_COUNT);
	ck_assert_int_eq(dci_batch_set_row_bytes(batch, row, NULL, 1), -1);
	ck_assert_uint_eq(older_calls, EDGE_BYTES_COUNT);
	commit_same_as_one_by_one(batch);
	ck_assert_str_eq(text_of(2, 14, &present), "seven c");
	ck_assert(present);

	/* The bad bytes: refused one by one, the good one stored. */
	assert_older_host_refuses(set_bad_bytes_row,
	    EDGE_BYTES_COUNT + BAD_BYTES_COUNT, ": 7 calls refused");
}
END_TEST

START_TEST(isolated_provider_forwards_rows)
{
	struct dci_config *loaded_config;
	struct dci_registry *loaded_registry = dci_registry_new();
	struct dci_plugins plugins;
	const struct dci_class *good;
	char *text, error[2048] = "";
	uint64_t counts[3];

	ck_assert_int_eq(
	    setenv(DCI_ISOLATION_PROGRAM_ENVIRONMENT, TEST_ISOLATE_PROGRAM, 1),
	    0);
	ck_assert_int_ge(asprintf(&text,
	                     "agent:\n  plugin-dir: %s\nproviders:\n"
	                     "  - module: good_provider\n    isolate: true\n"
	                     "    options:\n      row_setter: true\n",
	                     TEST_PROVIDER_DIR),
	    0);
	ck_assert_msg(dci_config_parse(text, strlen(text), "t.yaml",
	                  &loaded_config, error, sizeof(error)) == 0,
	    "config: %s", error);
	free(text);
	ck_assert_msg(
	    dci_plugins_load(loaded_config, "/nonexistent", loaded_registry,
	        DCI_LOAD_STRICT, &plugins, error, sizeof(error)) == 0,
	    "%s", error);
	dci_plugins_refresh_all(&plugins, 1000);
	ck_assert_uint_eq(loaded_registry->class_count, 1);
	good = loaded_registry->classes[0];
	ck_assert_ptr_nonnull(good->snapshot);
	ck_assert_uint_eq(good->snapshot->count, 3);
	for (uint32_t id = 1; id <= 3; id++) {
		const struct dci_datum *count = dci_class_find_datum(good, 1);
		const struct dci_datum *name = dci_class_find_datum(good, 2);
		char expected_name[16];
		long row = dci_snapshot_find(good, good->snapshot, &id);
		struct dci_value value;

		ck_assert_int_ge(row, 0);
		ck_assert(dci_snapshot_present(
		    good, good->snapshot, (size_t)row, count));
		dci_value_decode(&count->info,
		    dci_snapshot_slot(good, good->snapshot, (size_t)row, count),
		    &value);
		counts[id - 1] = value.number;
		/* The name, set by dci_batch_set_row_bytes beside a datum
		 * the class lacks. */
		ck_assert(dci_snapshot_present(
		    good, good->snapshot, (size_t)row, name));
		snprintf(expected_name, sizeof(expected_name), "unit%u",
		    (unsigned)id);
		ck_assert_str_eq((const char *)dci_snapshot_slot(
		                     good, good->snapshot, (size_t)row, name),
		    expected_name);
	}
	/* 100 * id + the refresh number, as without the option. */
	ck_assert_uint_eq(counts[0], 101);
	ck_assert_uint_eq(counts[1], 201);
	ck_assert_uint_eq(counts[2], 301);
	ck_assert_int_eq(plugins.items[0]->consecutive_failures, 0);
	dci_plugins_close(&plugins);
	dci_registry_free(loaded_registry);
	dci_config_free(loaded_config);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("batch_row");
	TCase *cases = tcase_create("batch_row");
	TCase *isolated = tcase_create("isolated");
	SRunner *runner;
	int failed;

	tcase_add_checked_fixture(cases, setup, teardown);
	tcase_add_test(cases, row_stores_what_one_value_calls_store);
	tcase_add_test(cases, row_stores_what_the_encoder_stores);
	tcase_add_test(cases, row_refuses_what_one_value_calls_refuse);
	tcase_add_test(cases, older_host_gets_one_call_per_value);
	tcase_add_test(cases, row_bytes_store_what_one_value_calls_store);
	tcase_add_test(cases, row_bytes_refuse_what_one_value_calls_refuse);
	tcase_add_test(cases, older_host_gets_one_bytes_call_per_value);
	tcase_add_test(isolated, isolated_provider_forwards_rows);
	tcase_set_timeout(isolated, 30);
	suite_add_tcase(suite, cases);
	suite_add_tcase(suite, isolated);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
