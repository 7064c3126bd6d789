/*
 * Unit tests for the pure decoding of src/agent/remote_source.c, which reads
 * what an agent answers and so must refuse anything malformed: table
 * indexes (length prefixes out of bounds, sub-identifiers above 32 bits,
 * too short, too long), the texts of signed 64-bit and absolute time
 * values, and unit names; and the lookup of a walk's rows, linear.
 */
#include "cli/remote/remote_source.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/value.h"
#include "check_runner.h"

#define COUNT(array) (sizeof(array) / sizeof(*(array)))

START_TEST(class_index_decoded)
{
	const uint64_t subids[] = {2, 1, 1};
	struct cli_remote_index index;

	ck_assert(cli_remote_decode_index(
	    subids, COUNT(subids), CLI_REMOTE_SHAPE_CLASS, &index));
	ck_assert_uint_eq(index.class_length, 2);
	ck_assert_uint_eq(index.class_id[0], 1);
	ck_assert_uint_eq(index.class_id[1], 1);
}
END_TEST

START_TEST(datum_and_instance_indexes_decoded)
{
	const uint64_t datum[] = {2, 2, 1, 4294967294u};
	const uint64_t instance[] = {2, 2, 1, 2, 8, 0};
	struct cli_remote_index index;

	ck_assert(cli_remote_decode_index(
	    datum, COUNT(datum), CLI_REMOTE_SHAPE_DATUM, &index));
	ck_assert_uint_eq(index.datum, 4294967294u);
	ck_assert(cli_remote_decode_index(
	    instance, COUNT(instance), CLI_REMOTE_SHAPE_INSTANCE, &index));
	ck_assert_uint_eq(index.instance_words, 2);
	ck_assert_uint_eq(index.instance[0], 8);
	ck_assert_uint_eq(index.instance[1], 0);
}
END_TEST

START_TEST(malformed_indexes_refused)
{
	struct cli_remote_index index;
	uint64_t long_class[2 + DCI_CLASS_ID_MAX_LEVELS] = {
	    DCI_CLASS_ID_MAX_LEVELS + 1};
	uint64_t long_instance[3 + DCI_INSTANCE_ID_MAX_WORDS] = {
	    1, 1, DCI_INSTANCE_ID_MAX_WORDS + 1};
	const uint64_t zero_length[] = {0};
	const uint64_t short_class[] = {3, 1, 1};
	const uint64_t wide_class[] = {1, UINT64_C(4294967296)};
	const uint64_t trailing[] = {1, 1, 7};
	const uint64_t wide_datum[] = {1, 1, UINT64_C(1) << 40};
	const uint64_t no_datum[] = {1, 1};
	const uint64_t zero_words[] = {1, 1, 0};
	const uint64_t short_instance[] = {1, 1, 2, 5};
	const uint64_t wide_instance[] = {1, 1, 1, UINT64_MAX};
	const uint64_t long_tail[] = {1, 1, 1, 5, 6};

	ck_assert(!cli_remote_decode_index(
	    NULL, 0, CLI_REMOTE_SHAPE_CLASS, &index));
	ck_assert(!cli_remote_decode_index(
	    zero_length, COUNT(zero_length), CLI_REMOTE_SHAPE_CLASS, &index));
	ck_assert(!cli_remote_decode_index(
	    long_class, COUNT(long_class), CLI_REMOTE_SHAPE_CLASS, &index));
	ck_assert(!cli_remote_decode_index(
	    short_class, COUNT(short_class), CLI_REMOTE_SHAPE_CLASS, &index));
	ck_assert(!cli_remote_decode_index(
	    wide_class, COUNT(wide_class), CLI_REMOTE_SHAPE_CLASS, &index));
	ck_assert(!cli_remote_decode_index(
	    trailing, COUNT(trailing), CLI_REMOTE_SHAPE_CLASS, &index));
	ck_assert(!cli_remote_decode_index(
	    wide_datum, COUNT(wide_datum), CLI_REMOTE_SHAPE_DATUM, &index));
	ck_assert(!cli_remote_decode_index(
	    no_datum, COUNT(no_datum), CLI_REMOTE_SHAPE_DATUM, &index));
	ck_assert(!cli_remote_decode_index(zero_words, COUNT(zero_words),
	    CLI_REMOTE_SHAPE_INSTANCE, &index));
	ck_assert(!cli_remote_decode_index(long_instance,
	    COUNT(long_instance), CLI_REMOTE_SHAPE_INSTANCE, &index));
	ck_assert(!cli_remote_decode_index(short_instance,
	    COUNT(short_instance), CLI_REMOTE_SHAPE_INSTANCE, &index));
	ck_assert(!cli_remote_decode_index(wide_instance,
	    COUNT(wide_instance), CLI_REMOTE_SHAPE_INSTANCE, &index));
	ck_assert(!cli_remote_decode_index(
	    long_tail, COUNT(long_tail), CLI_REMOTE_SHAPE_INSTANCE, &index));
}
END_TEST

START_TEST(text_integers_parsed_as_rendered)
{
	int64_t number;

	ck_assert(
	    cli_remote_parse_text_integer("-2", DCI_SIP_DECIMAL, &number));
	ck_assert_int_eq(number, -2);
	ck_assert(cli_remote_parse_text_integer(
	    "0xfffffffffffffffe", DCI_SIP_HEXADECIMAL, &number));
	ck_assert_int_eq(number, -2);
	ck_assert(cli_remote_parse_text_integer(
	    "1.2.3.4.5.6.7.8", DCI_SIP_DOTTED, &number));
	ck_assert_int_eq(number, INT64_C(0x0102030405060708));
	ck_assert(
	    !cli_remote_parse_text_integer("", DCI_SIP_DECIMAL, &number));
	ck_assert(
	    !cli_remote_parse_text_integer(" 2", DCI_SIP_DECIMAL, &number));
	ck_assert(!cli_remote_parse_text_integer(
	    "99999999999999999999", DCI_SIP_DECIMAL, &number));
	ck_assert(!cli_remote_parse_text_integer(
	    "0x", DCI_SIP_HEXADECIMAL, &number));
	ck_assert(!cli_remote_parse_text_integer(
	    "0x10000000000000000", DCI_SIP_HEXADECIMAL, &number));
	ck_assert(!cli_remote_parse_text_integer(
	    "0xFF", DCI_SIP_HEXADECIMAL, &number));
	ck_assert(!cli_remote_parse_text_integer(
	    "1.2.3.4.5.6.7", DCI_SIP_DOTTED, &number));
	ck_assert(!cli_remote_parse_text_integer(
	    "1.2.3.4.5.6.7.256", DCI_SIP_DOTTED, &number));
	ck_assert(!cli_remote_parse_text_integer(
	    "1.2.3.4.5.6.7.8.9", DCI_SIP_DOTTED, &number));
	ck_assert(!cli_remote_parse_text_integer("1", 7, &number));
}
END_TEST

/* Every absolute time the renderer writes reads back as its value. */
START_TEST(times_read_back_as_rendered)
{
	static const struct {
		uint32_t format;
		uint32_t size;
		int64_t value;
	} cases[] = {
	    {DCI_STF_CTIME, 8, INT64_C(1767225600)}, /* 2026-01-01 */
	    {DCI_STF_5BYTE, 8,
	        (INT64_C(1767225600) + INT64_C(2208988800)) * 100},
	    {DCI_STF_5BYTE, 8,
	        (INT64_C(1767225600) + INT64_C(2208988800)) * 100 + 25},
	    {DCI_STF_MONOTONIC, 8, 597405},
	    {DCI_STF_MONOTONIC, 8, 0},
	};

	for (size_t i = 0; i < COUNT(cases); i++) {
		struct dci_datum_info info = {.id = 1,
		    .label = "t",
		    .type = DCI_ST_TIME,
		    .format = cases[i].format,
		    .presentation = DCI_STP_ABSOLUTE,
		    .size = 8,
		    .semantics = DCI_SEMANTICS_DISCRETE};
		unsigned char slot[8];
		char text[128], why[128];
		int64_t value = -1;

		ck_assert_int_eq(dci_value_encode_signed(&info, cases[i].value,
		                     slot, why, sizeof(why)),
		    0);
		dci_value_render(&info, slot, text, sizeof(text));
		ck_assert_msg(cli_remote_parse_time_text(text, &info, &value),
		    "'%s' not read", text);
		ck_assert_int_eq(value, cases[i].value);
	}
}
END_TEST

START_TEST(malformed_times_refused)
{
	struct dci_datum_info info = {.type = DCI_ST_TIME,
	    .format = DCI_STF_CTIME,
	    .presentation = DCI_STP_ABSOLUTE,
	    .size = 8};
	static const char *const bad_dates[] = {"", "2026-01-01",
	    "2026-13-01 00:00:00", "2026-01-01 24:00:00",
	    "2026-01-01 00:00:00x", "2026-01-01 00:00:00.25",
	    "12.34 seconds after boot"};
	int64_t value;

	for (size_t i = 0; i < COUNT(bad_dates); i++)
		ck_assert_msg(
		    !cli_remote_parse_time_text(bad_dates[i], &info, &value),
		    "'%s' read", bad_dates[i]);
	info.format = DCI_STF_5BYTE;
	ck_assert(!cli_remote_parse_time_text(
	    "2026-01-01 00:00:00.2", &info, &value));
	ck_assert(!cli_remote_parse_time_text(
	    "9999-01-01 00:00:00", &info, &value));
	info.format = DCI_STF_MONOTONIC;
	ck_assert(!cli_remote_parse_time_text(
	    "12.3 seconds after boot", &info, &value));
	ck_assert(!cli_remote_parse_time_text(
	    "99999999999999999999.00 seconds after boot", &info, &value));
	ck_assert(
	    !cli_remote_parse_time_text("12.34 seconds", &info, &value));
	info.format = 9;
	ck_assert(!cli_remote_parse_time_text(
	    "2026-01-01 00:00:00", &info, &value));
}
END_TEST

START_TEST(units_found_by_name)
{
	enum dci_unit unit;

	ck_assert(cli_remote_unit_of_name("", &unit));
	ck_assert_int_eq(unit, DCI_UNIT_NONE);
	ck_assert(cli_remote_unit_of_name("bytes", &unit));
	ck_assert_int_eq(unit, DCI_UNIT_BYTES);
	ck_assert(cli_remote_unit_of_name(
	    dci_value_unit_name(DCI_UNIT_CENTISECONDS), &unit));
	ck_assert_int_eq(unit, DCI_UNIT_CENTISECONDS);
	ck_assert(cli_remote_unit_of_name(
	    dci_value_unit_name(DCI_UNIT_DERIVED_SUM2), &unit));
	ck_assert_int_eq(unit, DCI_UNIT_DERIVED_SUM2);
	ck_assert(!cli_remote_unit_of_name("furlongs", &unit));
}
END_TEST

/* decode_levels on copies of exactly `types_length` and `sizes_length`
 * octets (a sanitizer build catches a read past them); the levels after
 * `level_count` must stay untouched. */
static bool
decode_levels_exactly(const unsigned char *types, size_t types_length,
    const unsigned char *sizes, size_t sizes_length, size_t level_count,
    struct dci_instance_level *levels)
{
	unsigned char *types_copy = malloc(types_length + 1);
	unsigned char *sizes_copy = malloc(sizes_length + 1);
	bool decoded;

	ck_assert_ptr_nonnull(types_copy);
	ck_assert_ptr_nonnull(sizes_copy);
	if (types_length > 0)
		memcpy(types_copy, types, types_length);
	if (sizes_length > 0)
		memcpy(sizes_copy, sizes, sizes_length);
	decoded = cli_remote_decode_levels(types_copy, types_length,
	    sizes_copy, sizes_length, level_count, levels);
	free(types_copy);
	free(sizes_copy);
	return decoded;
}

START_TEST(levels_decoded)
{
	/* evcnt's: EVENT (65537) of 8 octets, PROCESSOR of 4. */
	static const unsigned char types[] = {0, 1, 0, 1, 0, 0, 0, 2};
	static const unsigned char sizes[] = {0, 0, 0, 8, 0, 0, 0, 4};
	/* A type this build does not name is kept as its number. */
	static const unsigned char odd_type[] = {0xde, 0xad, 0xbe, 0xef};
	static const unsigned char four[] = {0, 0, 0, 4};
	static const unsigned char sixty_four[] = {0, 0, 0, 64};
	unsigned char many_types[64] = {0}, many_sizes[64] = {0};
	struct dci_instance_level levels[DCI_INSTANCE_ID_MAX_WORDS + 1];

	memset(levels, 0x5a, sizeof(levels));
	ck_assert(decode_levels_exactly(
	    types, sizeof(types), sizes, sizeof(sizes), 2, levels));
	ck_assert_int_eq(levels[0].itype, DCI_ITYPE_EVENT);
	ck_assert_uint_eq(levels[0].size, 8);
	ck_assert_int_eq(levels[1].itype, DCI_ITYPE_PROCESSOR);
	ck_assert_uint_eq(levels[1].size, 4);
	ck_assert_uint_eq(levels[2].size, 0x5a5a5a5au);

	ck_assert(decode_levels_exactly(
	    odd_type, sizeof(odd_type), four, sizeof(four), 1, levels));
	ck_assert_uint_eq((uint32_t)levels[0].itype, 0xdeadbeefu);
	ck_assert(decode_levels_exactly(
	    four, sizeof(four), sixty_four, sizeof(sixty_four), 1, levels));
	ck_assert_uint_eq(levels[0].size, 64);

	/* The most levels: 16 of 4 octets. */
	for (size_t i = 0; i < DCI_INSTANCE_ID_MAX_WORDS; i++) {
		many_types[4 * i + 3] = (unsigned char)(i + 1);
		many_sizes[4 * i + 3] = 4;
	}
	ck_assert(decode_levels_exactly(many_types, sizeof(many_types),
	    many_sizes, sizeof(many_sizes), DCI_INSTANCE_ID_MAX_WORDS, levels));
	ck_assert_uint_eq(levels[15].itype, 16);
	ck_assert_uint_eq(levels[16].size, 0x5a5a5a5au);
}
END_TEST

START_TEST(malformed_levels_refused)
{
	static const unsigned char types[] = {0, 0, 0, 5, 0, 0, 0, 5};
	static const unsigned char sizes[] = {0, 0, 0, 4, 0, 0, 0, 4};
	static const unsigned char zero[] = {0, 0, 0, 4, 0, 0, 0, 0};
	static const unsigned char unaligned[] = {0, 0, 0, 4, 0, 0, 0, 6};
	static const unsigned char huge[] = {
	    0xff, 0xff, 0xff, 0xfc, 0, 0, 0, 4};
	static const unsigned char too_long[] = {0, 0, 0, 64, 0, 0, 0, 4};
	unsigned char many[68] = {0};
	struct dci_instance_level levels[DCI_INSTANCE_ID_MAX_WORDS + 1];

	/* A level count out of bounds, whatever the strings. */
	ck_assert(!decode_levels_exactly(types, 0, sizes, 0, 0, levels));
	for (size_t i = 0; i < 17; i++)
		many[4 * i + 3] = 4;
	ck_assert(!decode_levels_exactly(many, sizeof(many), many, sizeof(many),
	    DCI_INSTANCE_ID_MAX_WORDS + 1, levels));
	ck_assert(!decode_levels_exactly(
	    types, 8, sizes, 8, SIZE_MAX / 4 + 1, levels));
	/* Lengths other than 4 octets a level: empty, short, long, odd. */
	ck_assert(!decode_levels_exactly(types, 0, sizes, 0, 1, levels));
	ck_assert(!decode_levels_exactly(types, 7, sizes, 8, 2, levels));
	ck_assert(!decode_levels_exactly(types, 8, sizes, 7, 2, levels));
	ck_assert(!decode_levels_exactly(types, 8, sizes, 8, 1, levels));
	ck_assert(!decode_levels_exactly(types, 4, sizes, 8, 2, levels));
	ck_assert(!decode_levels_exactly(types, 3, sizes, 3, 1, levels));
	/* Sizes: zero, not a multiple of 4, beyond 64 octets in total. */
	ck_assert(!decode_levels_exactly(types, 8, zero, 8, 2, levels));
	ck_assert(!decode_levels_exactly(types, 8, unaligned, 8, 2, levels));
	ck_assert(!decode_levels_exactly(types, 8, huge, 8, 2, levels));
	ck_assert(!decode_levels_exactly(types, 8, too_long, 8, 2, levels));
	/* And the well-formed pair still decodes. */
	ck_assert(decode_levels_exactly(types, 8, sizes, 8, 2, levels));
}
END_TEST

/* Rows keyed by a number, with the comparisons counted: a walk must cost
 * a bounded number of comparisons per row, whatever the table's size. */
struct counted_rows {
	uint32_t keys[70000];
	size_t count;
	size_t comparisons;
};

static int
compare_counted(const void *rows, size_t position, const void *key)
{
	struct counted_rows *table = (struct counted_rows *)rows;
	uint32_t have = table->keys[position], wanted = *(const uint32_t *)key;

	table->comparisons++;
	return have < wanted ? -1 : have > wanted;
}

/* The rows of a walk of one column after another, as an agent gives them
 * (each column's in ascending order): the first column's rows are each
 * new with one comparison, a later column's rows are found again, both at
 * a bounded cost a row (no scan: the walk is linear). */
START_TEST(walk_rows_found_in_linear_time)
{
	static struct counted_rows table;
	const size_t rows = 65536, columns = 10;
	size_t cursor = 0;

	table.count = table.comparisons = 0;
	for (uint32_t key = 1; key <= rows; key++) {
		ck_assert_int_eq(cli_remote_row_find(&table, table.count,
		                     &key, compare_counted, &cursor),
		    CLI_REMOTE_ROW_NEW);
		table.keys[table.count++] = key;
	}
	ck_assert_uint_eq(table.comparisons, rows - 1);
	for (size_t column = 1; column < columns; column++) {
		for (uint32_t key = 1; key <= rows; key++) {
			ck_assert_int_eq(
			    cli_remote_row_find(&table, table.count, &key,
			        compare_counted, &cursor),
			    CLI_REMOTE_ROW_KNOWN);
			ck_assert_uint_eq(table.keys[cursor], key);
		}
	}
	/* At most 3 comparisons a row of a later column (the last row, the
	 * row found before, the one after it), and one binary search (17
	 * comparisons) for each column's first row. */
	ck_assert_uint_le(
	    table.comparisons, rows + (3 * rows + 17) * (columns - 1));
}
END_TEST

/* A row that sorts before the last one without being one (added while
 * the walk went on) is missed, never a duplicate; one of several rows
 * under one key is found again (the cursor's row). */
START_TEST(walk_rows_out_of_order_missed)
{
	static struct counted_rows table;
	size_t cursor = 0;
	uint32_t key;

	table.count = 0;
	ck_assert_int_eq(cli_remote_row_find(&table, 0, &(uint32_t){5},
	                     compare_counted, &cursor),
	    CLI_REMOTE_ROW_NEW);
	table.keys[table.count++] = 10;
	table.keys[table.count++] = 20;
	table.keys[table.count++] = 30;
	key = 15;
	ck_assert_int_eq(cli_remote_row_find(&table, table.count, &key,
	                     compare_counted, &cursor),
	    CLI_REMOTE_ROW_MISSED);
	key = 5;
	ck_assert_int_eq(cli_remote_row_find(&table, table.count, &key,
	                     compare_counted, &cursor),
	    CLI_REMOTE_ROW_MISSED);
	key = 30;
	ck_assert_int_eq(cli_remote_row_find(&table, table.count, &key,
	                     compare_counted, &cursor),
	    CLI_REMOTE_ROW_KNOWN);
	ck_assert_uint_eq(cursor, 2);
	key = 10;
	ck_assert_int_eq(cli_remote_row_find(&table, table.count, &key,
	                     compare_counted, &cursor),
	    CLI_REMOTE_ROW_KNOWN);
	ck_assert_uint_eq(cursor, 0);
	table.comparisons = 0;
	ck_assert_int_eq(cli_remote_row_find(&table, table.count, &key,
	                     compare_counted, &cursor),
	    CLI_REMOTE_ROW_KNOWN);
	ck_assert_uint_eq(cursor, 0);
	ck_assert_uint_le(table.comparisons, 2);
	key = 31;
	ck_assert_int_eq(cli_remote_row_find(&table, table.count, &key,
	                     compare_counted, &cursor),
	    CLI_REMOTE_ROW_NEW);
}
END_TEST

static Suite *
remote_suite(void)
{
	Suite *suite = suite_create("remote_source");
	TCase *decoding = tcase_create("decoding");

	/* The linear-walk test makes a million checked lookups: under the
	 * sanitizers on a loaded machine that outlasts check's default 4 s. */
	tcase_set_timeout(decoding, 60);

	tcase_add_test(decoding, class_index_decoded);
	tcase_add_test(decoding, datum_and_instance_indexes_decoded);
	tcase_add_test(decoding, malformed_indexes_refused);
	tcase_add_test(decoding, text_integers_parsed_as_rendered);
	tcase_add_test(decoding, times_read_back_as_rendered);
	tcase_add_test(decoding, malformed_times_refused);
	tcase_add_test(decoding, units_found_by_name);
	tcase_add_test(decoding, levels_decoded);
	tcase_add_test(decoding, malformed_levels_refused);
	tcase_add_test(decoding, walk_rows_found_in_linear_time);
	tcase_add_test(decoding, walk_rows_out_of_order_missed);
	suite_add_tcase(suite, decoding);
	return suite;
}

int
main(void)
{
	return unit_run_suite(remote_suite());
}
