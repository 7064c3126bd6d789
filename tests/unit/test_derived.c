/*
 * Unit tests for derived metrics (UMA_DERIVED): the formulas of
 * src/model/derived.c with their edge cases (division by zero, overflow,
 * negative unsigned differences, rounding, an inconsistent variance), the
 * registry's checks of a derived declaration (each refusal with its
 * message), the types it gives a derived datum, the snapshot commit that
 * computes the values (absent when an argument is), their rendering, and
 * the `derived` section of the YAML configuration.
 */
#include "model/derived.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "model/registry.h"
#include "model/snapshot.h"
#include "model/value.h"
#include "fixtures.h"

#define WHY_SIZE 1024

#define assert_contains(haystack, needle)                                      \
	ck_assert_msg(strstr((haystack), (needle)) != NULL,                    \
	    "message \"%s\" does not contain \"%s\"", (haystack), (needle))

/* --- Formulas ---------------------------------------------------------- */

#define U(value)                                                               \
	{                                                                      \
		.number = (value)                                              \
	}
#define S(value)                                                               \
	{                                                                      \
		.is_signed = true, .signed_number = (value)                    \
	}

static const struct {
	const char *name;
	enum dci_unit derivation;
	struct dci_derived_argument arguments[3];
	bool wraps;
	bool defined;
	bool is_signed;
	uint64_t number;       /* unsigned results */
	int64_t signed_number; /* signed results and hundredths */
} formulas[] = {
    {"sum2", DCI_UNIT_DERIVED_SUM2, {U(250), U(258)}, false, true, false, 508,
        0},
    {"sum2 at 2^64-1", DCI_UNIT_DERIVED_SUM2, {U(UINT64_MAX - 1), U(1)}, false,
        true, false, UINT64_MAX, 0},
    {"sum2 overflow of gauges", DCI_UNIT_DERIVED_SUM2, {U(UINT64_MAX), U(1)},
        false, false, false, 0, 0},
    {"sum2 of counters wraps", DCI_UNIT_DERIVED_SUM2, {U(UINT64_MAX), U(5)},
        true, true, false, 4, 0},
    {"sum3", DCI_UNIT_DERIVED_SUM3, {U(200), U(65535), U(4000000000u)}, false,
        true, false, 4000065735u, 0},
    {"sum3 overflow at the last", DCI_UNIT_DERIVED_SUM3,
        {U(1), U(UINT64_MAX - 1), U(1)}, false, false, false, 0, 0},
    {"sum2 signed", DCI_UNIT_DERIVED_SUM2, {S(-2), U(250)}, false, true, true,
        0, 248},
    {"sum2 signed, unsigned above INT64_MAX", DCI_UNIT_DERIVED_SUM2,
        {S(-2), U(UINT64_MAX)}, false, false, true, 0, 0},
    {"sum2 signed overflow", DCI_UNIT_DERIVED_SUM2, {S(INT64_MAX), S(1)}, false,
        false, true, 0, 0},
    {"difference", DCI_UNIT_DERIVED_DIFFERENCE, {U(16909060), U(258)}, false,
        true, false, 16908802, 0},
    {"difference zero", DCI_UNIT_DERIVED_DIFFERENCE, {U(7), U(7)}, false, true,
        false, 0, 0},
    {"difference negative unsigned", DCI_UNIT_DERIVED_DIFFERENCE,
        {U(258), U(16909060)}, false, false, false, 0, 0},
    {"difference signed", DCI_UNIT_DERIVED_DIFFERENCE, {S(-2), U(250)}, false,
        true, true, 0, -252},
    {"difference signed overflow", DCI_UNIT_DERIVED_DIFFERENCE,
        {S(INT64_MIN), S(1)}, false, false, true, 0, 0},
    {"product", DCI_UNIT_DERIVED_PRODUCT, {U(250), U(258)}, false, true, false,
        64500, 0},
    {"product by zero", DCI_UNIT_DERIVED_PRODUCT, {U(UINT64_MAX), U(0)}, false,
        true, false, 0, 0},
    {"product overflow", DCI_UNIT_DERIVED_PRODUCT,
        {U(UINT64_C(10000000000000000000)), U(2)}, false, false, false, 0, 0},
    {"product signed", DCI_UNIT_DERIVED_PRODUCT, {S(-3), S(-4)}, false, true,
        true, 0, 12},
    {"average", DCI_UNIT_DERIVED_AVERAGE, {U(258), U(200)}, false, true, true,
        0, 129},
    {"average rounds half away from zero", DCI_UNIT_DERIVED_AVERAGE,
        {U(1), U(8)}, false, true, true, 0, 13},
    {"average negative rounds away from zero", DCI_UNIT_DERIVED_AVERAGE,
        {S(-1), U(8)}, false, true, true, 0, -13},
    /* 0.525 is not a binary fraction: rounded as the exact value, not as
     * its nearest long double (52). */
    {"average of an exact half hundredth", DCI_UNIT_DERIVED_AVERAGE,
        {U(21), U(40)}, false, true, true, 0, 53},
    {"average of a negative exact half hundredth", DCI_UNIT_DERIVED_AVERAGE,
        {U(21), S(-40)}, false, true, true, 0, -53},
    {"percent of an exact half hundredth", DCI_UNIT_DERIVED_PERCENT,
        {U(1), U(19999)}, false, true, true, 0, 1},
    {"average of 2^60 by 2^10, exact", DCI_UNIT_DERIVED_AVERAGE,
        {U(UINT64_C(1) << 60), U(1 << 10)}, false, true, true, 0,
        (INT64_C(1) << 50) * 100},
    /* Exact over the whole 64-bit range, not below 2^56 alone. */
    {"average of an exact half hundredth times 2^52", DCI_UNIT_DERIVED_AVERAGE,
        {U(UINT64_C(21) << 52), U(UINT64_C(40) << 52)}, false, true, true, 0,
        53},
    {"percent of an exact half hundredth of large counters",
        DCI_UNIT_DERIVED_PERCENT,
        {U(UINT64_C(1) << 42), U((UINT64_C(1) << 42) * 19999)}, false, true,
        true, 0, 1},
    {"percent of two counters whose sum passes 2^64", DCI_UNIT_DERIVED_PERCENT,
        {U(UINT64_MAX), U(UINT64_MAX)}, false, true, true, 0, 5000},
    {"average beyond the served range", DCI_UNIT_DERIVED_AVERAGE,
        {U(UINT64_MAX), U(1)}, false, false, true, 0, 0},
    {"average by zero", DCI_UNIT_DERIVED_AVERAGE, {U(5), U(0)}, false, false,
        true, 0, 0},
    {"average of zero", DCI_UNIT_DERIVED_AVERAGE, {U(0), U(5)}, false, true,
        true, 0, 0},
    {"percent", DCI_UNIT_DERIVED_PERCENT, {U(200), U(250)}, false, true, true,
        0, 4444},
    {"percent whole", DCI_UNIT_DERIVED_PERCENT, {U(3), U(0)}, false, true, true,
        0, 10000},
    {"percent of nothing", DCI_UNIT_DERIVED_PERCENT, {U(0), U(0)}, false, false,
        true, 0, 0},
    {"percent with a zero sum of signed", DCI_UNIT_DERIVED_PERCENT,
        {S(5), S(-5)}, false, false, true, 0, 0},
    {"variance", DCI_UNIT_DERIVED_VARIANCE, {U(200), U(258), U(65535)}, false,
        true, true, 0, 32601},
    {"variance of a constant sample", DCI_UNIT_DERIVED_VARIANCE,
        {U(4), U(12), U(36)}, false, true, true, 0, 0},
    {"variance of 2, 4, 4, 4, 5, 5, 7, 9", DCI_UNIT_DERIVED_VARIANCE,
        {U(8), U(40), U(232)}, false, true, true, 0, 400},
    {"variance of no sample", DCI_UNIT_DERIVED_VARIANCE, {U(0), U(0), U(0)},
        false, false, true, 0, 0},
    {"variance, sum of squares too small", DCI_UNIT_DERIVED_VARIANCE,
        {U(2), U(10), U(1)}, false, false, true, 0, 0},
    {"variance, negative count", DCI_UNIT_DERIVED_VARIANCE, {S(-2), S(4), S(8)},
        false, false, true, 0, 0},
};

START_TEST(test_formula)
{
	struct dci_derived_result result;
	bool defined = dci_derived_compute(formulas[_i].derivation,
	    formulas[_i].arguments, formulas[_i].wraps, &result);

	ck_assert_msg(defined == formulas[_i].defined, "%s: defined %d",
	    formulas[_i].name, defined);
	if (!defined)
		return;
	ck_assert_msg(result.is_signed == formulas[_i].is_signed,
	    "%s: is_signed %d", formulas[_i].name, result.is_signed);
	if (result.is_signed)
		ck_assert_msg(
		    result.signed_number == formulas[_i].signed_number,
		    "%s: %lld, expected %lld", formulas[_i].name,
		    (long long)result.signed_number,
		    (long long)formulas[_i].signed_number);
	else
		ck_assert_msg(result.number == formulas[_i].number,
		    "%s: %llu, expected %llu", formulas[_i].name,
		    (unsigned long long)result.number,
		    (unsigned long long)formulas[_i].number);
}
END_TEST

START_TEST(test_arity)
{
	ck_assert_uint_eq(dci_derived_arity(DCI_UNIT_DERIVED_SUM2), 2);
	ck_assert_uint_eq(dci_derived_arity(DCI_UNIT_DERIVED_SUM3), 3);
	ck_assert_uint_eq(dci_derived_arity(DCI_UNIT_DERIVED_DIFFERENCE), 2);
	ck_assert_uint_eq(dci_derived_arity(DCI_UNIT_DERIVED_AVERAGE), 2);
	ck_assert_uint_eq(dci_derived_arity(DCI_UNIT_DERIVED_PERCENT), 2);
	ck_assert_uint_eq(dci_derived_arity(DCI_UNIT_DERIVED_PRODUCT), 2);
	ck_assert_uint_eq(dci_derived_arity(DCI_UNIT_DERIVED_VARIANCE), 3);
	ck_assert_uint_eq(dci_derived_arity(DCI_UNIT_BYTES), 0);
	ck_assert_uint_eq(dci_derived_argument_byte(0x17213c50u, 0), 0x17);
	ck_assert_uint_eq(dci_derived_argument_byte(0x17213c50u, 1), 0x21);
	ck_assert_uint_eq(dci_derived_argument_byte(0x17213c50u, 2), 0x3c);
}
END_TEST

/* --- Registration ---------------------------------------------------- */

static const struct dci_instance_level one_level[] = {
    {DCI_ITYPE_DEVICE, 4},
};
static const uint32_t class_id[] = {2, 9};

#define ID(a1, a2, a3, own)                                                    \
	((uint32_t)(a1) << 24 | (uint32_t)(a2) << 16 | (uint32_t)(a3) << 8 |   \
	    (uint32_t)(own))

static struct dci_datum_info
derived(uint32_t id, const char *label, enum dci_unit derivation)
{
	return (struct dci_datum_info){.id = id,
	    .label = label,
	    .type = DCI_ST_DERIVED,
	    .unit = derivation};
}

/* The base datums: 1 reads (counter u64), 2 writes (counter u32), 3 level
 * (signed i32 gauge), 4 name (string), 5 bytes (u64 gauge, volatile),
 * 0x105 other (low byte 5 again, to make byte 5 ambiguous when present). */
static size_t
base_datums(struct dci_datum_info *datums)
{
	datums[0] = fx_datum(1, "reads", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	    DCI_SEMANTICS_COUNTER);
	datums[1] = fx_datum(2, "writes", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	    DCI_SEMANTICS_COUNTER);
	datums[2] =
	    fx_datum(3, "level", DCI_ST_INTEGER32, 0, 0, DCI_SEMANTICS_GAUGE);
	datums[3] =
	    fx_datum(4, "name", DCI_ST_STRING, 0, 16, DCI_SEMANTICS_DISCRETE);
	datums[4] = fx_datum(5, "bytes", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	    DCI_SEMANTICS_GAUGE);
	datums[4].volatility = DCI_SV_VOLATILE;
	return 5;
}

static struct dci_class *
register_with(struct dci_registry *registry, const struct dci_datum_info *extra,
    size_t extra_count, char *why)
{
	struct dci_datum_info datums[16];
	size_t count = base_datums(datums);
	struct dci_class_info info;

	for (size_t i = 0; i < extra_count; i++)
		datums[count++] = extra[i];
	info =
	    fx_class_info(class_id, 2, "things", one_level, 1, datums, count);
	why[0] = '\0';
	return dci_registry_add_class(registry, fx_supplier(registry, "things"),
	    &info, NULL, why, WHY_SIZE);
}

static const struct {
	const char *name;
	struct dci_datum_info datum;
	const char *why;
} refused[] = {
    {"no derivation",
        {.id = ID(1, 2, 0, 9),
            .label = "x",
            .type = DCI_ST_DERIVED,
            .unit = DCI_UNIT_BYTES},
        "datum 16908297 (\"x\"): unit 1 is not a derivation"},
    {"format set",
        {.id = ID(1, 2, 0, 9),
            .label = "x",
            .type = DCI_ST_DERIVED,
            .format = 1,
            .unit = DCI_UNIT_DERIVED_SUM2},
        "format, presentation, size and semantics of a derived datum must "
        "be 0"},
    {"semantics set",
        {.id = ID(1, 2, 0, 9),
            .label = "x",
            .type = DCI_ST_DERIVED,
            .unit = DCI_UNIT_DERIVED_SUM2,
            .semantics = DCI_SEMANTICS_GAUGE},
        "must be 0 (the host sets them)"},
    {"own number 0",
        {.id = ID(1, 2, 0, 0),
            .label = "x",
            .type = DCI_ST_DERIVED,
            .unit = DCI_UNIT_DERIVED_SUM2},
        "the low 8 bits of a derived datum's id (its own number) must not "
        "be 0"},
    {"missing argument",
        {.id = ID(1, 7, 0, 9),
            .label = "x",
            .type = DCI_ST_DERIVED,
            .unit = DCI_UNIT_DERIVED_SUM2},
        "derived datum 17235977 (\"x\"): argument 2 (0x07) names no datum"},
    {"argument 0",
        {.id = ID(1, 0, 0, 9),
            .label = "x",
            .type = DCI_ST_DERIVED,
            .unit = DCI_UNIT_DERIVED_SUM2},
        "argument 2 (0x00) names no datum"},
    {"third argument of a two-argument derivation",
        {.id = ID(1, 2, 3, 9),
            .label = "x",
            .type = DCI_ST_DERIVED,
            .unit = DCI_UNIT_DERIVED_SUM2},
        "sum2 takes 2 arguments, but argument 3 is 0x03 (must be 0)"},
    {"string argument",
        {.id = ID(1, 4, 0, 9),
            .label = "x",
            .type = DCI_ST_DERIVED,
            .unit = DCI_UNIT_DERIVED_SUM2},
        "argument 2 is datum 4 (\"name\"), a ST_STRING, not an integer"},
    {"derived argument",
        {.id = ID(1, 9, 0, 10),
            .label = "y",
            .type = DCI_ST_DERIVED,
            .unit = DCI_UNIT_DERIVED_SUM2},
        "argument 2 (0x09) names no datum"},
};

START_TEST(test_refused)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_datum_info extra[2] = {refused[_i].datum,
	    derived(ID(1, 2, 0, 9), "sum", DCI_UNIT_DERIVED_SUM2)};
	char why[WHY_SIZE];
	/* "derived argument" needs the derived datum 9 it names. */
	size_t count =
	    strcmp(refused[_i].name, "derived argument") == 0 ? 2 : 1;

	ck_assert_ptr_null(register_with(registry, extra, count, why));
	assert_contains(why, refused[_i].why);
	assert_contains(why, "class 2.9");
	dci_registry_free(registry);
}
END_TEST

START_TEST(test_refused_ambiguous_argument)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_datum_info extra[2] = {
	    fx_datum(0x105, "other_bytes", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED,
	        0, DCI_SEMANTICS_GAUGE),
	    derived(ID(5, 1, 0, 9), "x", DCI_UNIT_DERIVED_SUM2)};
	char why[WHY_SIZE];

	ck_assert_ptr_null(register_with(registry, extra, 2, why));
	assert_contains(why, "argument 1 (0x05) names both datum 5 (\"bytes\") "
	                     "and datum 261 (\"other_bytes\")");
	dci_registry_free(registry);
}
END_TEST

START_TEST(test_types_set_by_registry)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_datum_info extra[] = {
	    derived(ID(1, 2, 0, 10), "total", DCI_UNIT_DERIVED_SUM2),
	    derived(ID(1, 5, 0, 11), "mixed", DCI_UNIT_DERIVED_SUM2),
	    derived(ID(3, 1, 0, 12), "offset", DCI_UNIT_DERIVED_DIFFERENCE),
	    derived(ID(5, 1, 0, 13), "per_read", DCI_UNIT_DERIVED_AVERAGE),
	    derived(ID(1, 2, 0, 14), "diff", DCI_UNIT_DERIVED_DIFFERENCE),
	};
	char why[WHY_SIZE];
	struct dci_class *class =
	    register_with(registry, extra, COUNT_OF(extra), why);
	const struct dci_datum *total, *mixed, *offset, *per_read, *diff;

	ck_assert_msg(class != NULL, "refused: %s", why);
	ck_assert_uint_eq(class->derived_count, 5);
	total = dci_class_find_datum(class, ID(1, 2, 0, 10));
	mixed = dci_class_find_datum(class, ID(1, 5, 0, 11));
	offset = dci_class_find_datum(class, ID(3, 1, 0, 12));
	per_read = dci_class_find_datum(class, ID(5, 1, 0, 13));
	diff = dci_class_find_datum(class, ID(1, 2, 0, 14));
	/* A sum of counters: a wrapping unsigned counter. */
	ck_assert_int_eq(total->kind, DCI_KIND_COUNTER64);
	ck_assert_int_eq(total->info.semantics, DCI_SEMANTICS_COUNTER);
	ck_assert(total->wraps);
	ck_assert_uint_eq(total->info.size, 8);
	ck_assert_uint_eq(total->info.volatility, DCI_SV_VARIABLE);
	/* A sum with a gauge: a gauge, volatile as its volatile argument. */
	ck_assert_int_eq(mixed->kind, DCI_KIND_COUNTER64);
	ck_assert_int_eq(mixed->info.semantics, DCI_SEMANTICS_GAUGE);
	ck_assert(!mixed->wraps);
	ck_assert_uint_eq(mixed->info.volatility, DCI_SV_VOLATILE);
	/* A signed argument: Integer32. */
	ck_assert_int_eq(offset->kind, DCI_KIND_INTEGER32);
	ck_assert_uint_eq(offset->info.format, 0);
	/* A ratio: hundredths. */
	ck_assert_int_eq(per_read->kind, DCI_KIND_HUNDREDTHS);
	ck_assert_int_eq(per_read->info.semantics, DCI_SEMANTICS_GAUGE);
	/* A difference of counters is not a counter. */
	ck_assert_int_eq(diff->info.semantics, DCI_SEMANTICS_GAUGE);
	ck_assert_uint_eq(
	    diff->arguments[0], dci_class_find_datum(class, 1)->index);
	ck_assert_uint_eq(
	    diff->arguments[1], dci_class_find_datum(class, 2)->index);
	ck_assert_str_eq(dci_value_unit_name(per_read->info.unit), "average");
	dci_registry_free(registry);
}
END_TEST

/* --- Values at commit -------------------------------------------------- */

START_TEST(test_commit_computes)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_datum_info extra[] = {
	    derived(ID(1, 2, 0, 10), "total", DCI_UNIT_DERIVED_SUM2),
	    derived(ID(5, 1, 0, 13), "per_read", DCI_UNIT_DERIVED_AVERAGE),
	    derived(ID(3, 1, 0, 12), "offset", DCI_UNIT_DERIVED_DIFFERENCE),
	};
	char why[WHY_SIZE], text[64];
	struct dci_class *class =
	    register_with(registry, extra, COUNT_OF(extra), why);
	struct dci_snapshot_builder *builder;
	const struct dci_datum *total, *per_read, *offset;
	const struct dci_snapshot *snapshot;
	uint32_t first = 1, second = 2;
	long row;

	ck_assert_msg(class != NULL, "refused: %s", why);
	total = dci_class_find_datum(class, ID(1, 2, 0, 10));
	per_read = dci_class_find_datum(class, ID(5, 1, 0, 13));
	offset = dci_class_find_datum(class, ID(3, 1, 0, 12));
	builder = dci_snapshot_builder_new(class);
	/* Instance 1: every argument set. */
	row =
	    dci_snapshot_builder_add(builder, &first, 1, "one", why, WHY_SIZE);
	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
	                     builder, row, 1, 8, why, WHY_SIZE),
	    0);
	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
	                     builder, row, 2, 5, why, WHY_SIZE),
	    0);
	ck_assert_int_eq(dci_snapshot_builder_set_signed(
	                     builder, row, 3, -100, why, WHY_SIZE),
	    0);
	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
	                     builder, row, 5, 1000, why, WHY_SIZE),
	    0);
	/* A provider cannot set a derived datum. */
	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
	                     builder, row, ID(1, 2, 0, 10), 1, why, WHY_SIZE),
	    -1);
	assert_contains(why, "is derived: the host computes it");
	/* Instance 2: reads invalid, so nothing that needs it. */
	row =
	    dci_snapshot_builder_add(builder, &second, 1, "two", why, WHY_SIZE);
	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
	                     builder, row, 2, 5, why, WHY_SIZE),
	    0);
	ck_assert_int_eq(
	    dci_snapshot_builder_set_invalid(builder, row, 1, why, WHY_SIZE),
	    0);
	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
	                     builder, row, 5, 1000, why, WHY_SIZE),
	    0);
	ck_assert_int_eq(
	    dci_snapshot_commit(builder, class, 1000, why, WHY_SIZE), 0);
	snapshot = class->snapshot;

	ck_assert(dci_snapshot_present(class, snapshot, 0, total));
	dci_value_render(&total->info,
	    dci_snapshot_slot(class, snapshot, 0, total), text, sizeof(text));
	ck_assert_str_eq(text, "13");
	ck_assert(dci_snapshot_present(class, snapshot, 0, per_read));
	dci_value_render(&per_read->info,
	    dci_snapshot_slot(class, snapshot, 0, per_read), text,
	    sizeof(text));
	ck_assert_str_eq(text, "125.00");
	ck_assert(dci_snapshot_present(class, snapshot, 0, offset));
	dci_value_render(&offset->info,
	    dci_snapshot_slot(class, snapshot, 0, offset), text, sizeof(text));
	ck_assert_str_eq(text, "-108");

	ck_assert(!dci_snapshot_present(class, snapshot, 1, total));
	ck_assert(!dci_snapshot_present(class, snapshot, 1, per_read));
	ck_assert(!dci_snapshot_present(class, snapshot, 1, offset));
	dci_registry_free(registry);
}
END_TEST

START_TEST(test_render)
{
	struct dci_datum_info ratio = derived(9, "r", DCI_UNIT_DERIVED_PERCENT);
	struct dci_datum_info integer = derived(9, "i", DCI_UNIT_DERIVED_SUM2);
	unsigned char slot[8];
	char text[64];

	ratio.size = integer.size = 8;
	ratio.semantics = integer.semantics = DCI_SEMANTICS_GAUGE;
	ck_assert_int_eq(
	    dci_value_encode_signed(&ratio, -5, slot, text, sizeof(text)), 0);
	dci_value_render(&ratio, slot, text, sizeof(text));
	ck_assert_str_eq(text, "-0.05");
	ck_assert_int_eq(
	    dci_value_encode_signed(&ratio, 10000, slot, text, sizeof(text)),
	    0);
	dci_value_render(&ratio, slot, text, sizeof(text));
	ck_assert_str_eq(text, "100.00");
	/* Beyond Integer32: refused, so the commit leaves no row. */
	ck_assert_int_eq(dci_value_encode_signed(&ratio, INT64_C(2147483648),
	                     slot, text, sizeof(text)),
	    -1);
	ck_assert_int_eq(dci_value_encode_signed(&ratio, INT64_C(-2147483649),
	                     slot, text, sizeof(text)),
	    -1);
	integer.format = DCI_SIF_UNSIGNED;
	ck_assert_int_eq(dci_value_encode_unsigned(
	                     &integer, UINT64_MAX, slot, text, sizeof(text)),
	    0);
	dci_value_render(&integer, slot, text, sizeof(text));
	ck_assert_str_eq(text, "18446744073709551615");
	ck_assert_int_eq(dci_value_kind(&integer), DCI_KIND_COUNTER64);
	ck_assert_int_eq(dci_value_kind(&ratio), DCI_KIND_HUNDREDTHS);
	/* Bytes are never a derived value. */
	ck_assert_int_eq(
	    dci_value_encode_bytes(&integer, slot, 8, slot, text, sizeof(text)),
	    -1);
	ck_assert_str_eq(text, "ST_DERIVED takes a number, not bytes");
}
END_TEST

/* --- Values across commits --------------------------------------------- */

/* One refresh's arguments of an instance; SEQUENCE_ABSENT: not set. */
#define SEQUENCE_ABSENT INT64_MIN
struct sequence_step {
	int64_t reads, writes, level, bytes, ticks;
};

/* Each step changes what the one before had, so that the commit of a
 * derived datum whose arguments did not change (taken from the previous
 * snapshot, with or without a value) and of one whose arguments did
 * (evaluated) both meet every edge: a zero divisor, an argument that
 * becomes absent while its bytes stay 0 (step 3 to 4), a sum of counters that
 * wraps, a product that overflows, a widened 8-bit counter that wraps (250 to
 * 3), a signed result beyond Integer32. */
static const struct sequence_step sequence[] = {
    {30, 4, -100, 10, 250},
    {30, 4, -100, 10, 250},
    {0, 4, -100, 10, 250},
    {0, 4, -100, 10, 250},
    {SEQUENCE_ABSENT, 4, -100, 10, 250},
    {-1 /* UINT64_MAX */, 4, -100, 10, 250},
    {30, 4, -100, 10, 3},
    {30, 4, -100, 10, 3},
    {30, 4, -100, SEQUENCE_ABSENT, 3},
    {30, 4, INT32_MIN, 10, 250},
};

static void
sequence_row(struct dci_snapshot_builder *builder, uint32_t id,
    const struct sequence_step *step)
{
	const int64_t values[] = {
	    step->reads, step->writes, step->level, step->bytes, step->ticks};
	const uint32_t ids[] = {1, 2, 3, 5, 6};
	char why[WHY_SIZE];
	long row =
	    dci_snapshot_builder_add(builder, &id, 1, "i", why, WHY_SIZE);

	ck_assert_msg(row >= 0, "add: %s", why);
	for (size_t v = 0; v < COUNT_OF(values); v++) {
		int set;

		if (values[v] == SEQUENCE_ABSENT)
			set = dci_snapshot_builder_set_invalid(
			    builder, row, ids[v], why, WHY_SIZE);
		else if (ids[v] == 3)
			set = dci_snapshot_builder_set_signed(
			    builder, row, ids[v], values[v], why, WHY_SIZE);
		else
			set = dci_snapshot_builder_set_unsigned(builder, row,
			    ids[v], (uint64_t)values[v], why, WHY_SIZE);
		ck_assert_msg(set == 0, "datum %u: %s", ids[v], why);
	}
}

/* The derived datum's presentation at `instance`, "-" without a value. */
static const char *
sequence_text(const struct dci_class *class, size_t instance, uint32_t id,
    char *text, size_t size)
{
	const struct dci_datum *datum = dci_class_find_datum(class, id);

	if (!dci_snapshot_present(class, class->snapshot, instance, datum))
		return "-";
	dci_value_render(&datum->info,
	    dci_snapshot_slot(class, class->snapshot, instance, datum), text,
	    size);
	return text;
}

/* Every instance's record and presence bits as committed equal those an
 * evaluation of every derived datum without a previous snapshot writes
 * into the same arguments (the derived slots zeroed, their bits clear),
 * and reading them twice gives the same bytes. */
static void
assert_as_evaluated(const struct dci_class *class,
    struct dci_derived_plan *plan, unsigned char *record,
    unsigned char *present, size_t step)
{
	const struct dci_snapshot *snapshot = class->snapshot;

	for (size_t i = 0; i < snapshot->count; i++) {
		memcpy(record, snapshot->values + i * class->record_size,
		    class->record_size);
		memcpy(present, snapshot->present + i * class->present_size,
		    class->present_size);
		for (size_t d = 0; d < class->datum_count; d++) {
			const struct dci_datum *datum = &class->datums[d];

			if (datum->info.type != DCI_ST_DERIVED)
				continue;
			memset(record + datum->offset, 0, datum->info.size);
			present[datum->index / 8] &=
			    (unsigned char)~(1u << (datum->index % 8));
		}
		dci_derived_plan_apply(plan, record, present, NULL, NULL);
		ck_assert_msg(
		    memcmp(record, snapshot->values + i * class->record_size,
		        class->record_size) == 0,
		    "step %zu, instance %zu: values differ from an evaluation",
		    step, i);
		ck_assert_msg(
		    memcmp(present, snapshot->present + i * class->present_size,
		        class->present_size) == 0,
		    "step %zu, instance %zu: presence differs from an "
		    "evaluation",
		    step, i);
	}
}

START_TEST(test_commits_take_unchanged_results)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_datum_info extra[] = {
	    fx_datum(6, "ticks", DCI_ST_INTEGER8, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    derived(ID(6, 2, 0, 10), "sum_ticks", DCI_UNIT_DERIVED_SUM2),
	    derived(ID(1, 2, 0, 11), "total", DCI_UNIT_DERIVED_SUM2),
	    derived(ID(1, 2, 5, 12), "sum3", DCI_UNIT_DERIVED_SUM3),
	    derived(ID(1, 5, 0, 13), "difference", DCI_UNIT_DERIVED_DIFFERENCE),
	    derived(ID(3, 2, 0, 14), "signed", DCI_UNIT_DERIVED_DIFFERENCE),
	    derived(ID(5, 1, 0, 15), "average", DCI_UNIT_DERIVED_AVERAGE),
	    derived(ID(2, 5, 0, 16), "percent", DCI_UNIT_DERIVED_PERCENT),
	    derived(ID(5, 1, 0, 17), "product", DCI_UNIT_DERIVED_PRODUCT),
	    derived(ID(2, 5, 1, 18), "variance", DCI_UNIT_DERIVED_VARIANCE),
	};
	/* Per step, instance 1 (in every snapshot): total (reads + writes,
	 * counters: wraps), average (bytes / reads), sum_ticks (the served
	 * 32-bit ticks + writes), variance (count writes, sum bytes, sum of
	 * squares reads), signed (level - writes); "-" no value. */
	static const char *const expected[][5] = {
	    {"34", "0.33", "254", "1.25", "-104"},
	    {"34", "0.33", "254", "1.25", "-104"},
	    {"4", "-", "254", "-", "-104"},
	    {"4", "-", "254", "-", "-104"},
	    {"-", "-", "254", "-", "-104"},
	    {"3", "0.00", "254", "-", "-104"},
	    {"34", "0.33", "263", "1.25", "-104"},
	    {"34", "0.33", "263", "1.25", "-104"},
	    {"34", "-", "263", "-", "-104"},
	    {"34", "0.33", "510", "1.25", "-"},
	};
	const uint32_t shown[] = {ID(1, 2, 0, 11), ID(5, 1, 0, 15),
	    ID(6, 2, 0, 10), ID(2, 5, 1, 18), ID(3, 2, 0, 14)};
	char why[WHY_SIZE], text[64], again[64];
	struct dci_class *class =
	    register_with(registry, extra, COUNT_OF(extra), why);
	struct dci_derived_plan *plan;
	unsigned char *record, *present;

	ck_assert_msg(class != NULL, "refused: %s", why);
	plan = dci_derived_plan_new(class);
	record = malloc(class->record_size);
	present = malloc(class->present_size);
	ck_assert(plan != NULL && record != NULL && present != NULL);
	for (size_t step = 0; step < COUNT_OF(sequence); step++) {
		struct dci_snapshot_builder *builder =
		    dci_snapshot_builder_new(class);

		sequence_row(builder, 1, &sequence[step]);
		/* Instance 2 comes and goes: never in the previous
		 * snapshot when it is in the next. */
		if (step % 2 == 0)
			sequence_row(builder, 2, &sequence[step]);
		/* Many instances whose arguments change at every step
		 * (every tenth one's never), so that the comparison with
		 * the previous snapshot turns to samples: every value is
		 * still the evaluation's. */
		for (uint32_t id = 10; id < 80; id++) {
			struct sequence_step busy = sequence[0];

			if (id % 10 != 0) {
				busy.reads += (int64_t)(step * id);
				busy.writes += (int64_t)step;
				busy.ticks = (busy.ticks + (int64_t)step) % 256;
			}
			sequence_row(builder, id, &busy);
		}
		ck_assert_int_eq(dci_snapshot_commit(builder, class,
		                     1000 * (int64_t)step, why, WHY_SIZE),
		    0);
		assert_as_evaluated(class, plan, record, present, step);
		for (size_t s = 0; s < COUNT_OF(shown); s++) {
			const char *value = sequence_text(
			    class, 0, shown[s], text, sizeof(text));

			ck_assert_msg(strcmp(value, expected[step][s]) == 0,
			    "step %zu, datum %zu: \"%s\", expected \"%s\"",
			    step, s, value, expected[step][s]);
			ck_assert_str_eq(
			    value, sequence_text(class, 0, shown[s], again,
			               sizeof(again)));
		}
	}
	free(record);
	free(present);
	dci_derived_plan_free(plan);
	dci_registry_free(registry);
}
END_TEST

/* --- Configuration ----------------------------------------------------- */

static const char good_config[] = "derived:\n"
                                  "  - class: 1.2\n"
                                  "    label: io_bytes\n"
                                  "    id: 40\n"
                                  "    metric: sum2\n"
                                  "    arguments: [bytes_read, bytes_written]\n"
                                  "  - class: 4294967294.0.7\n"
                                  "    label: spread\n"
                                  "    id: 255\n"
                                  "    metric: variance\n"
                                  "    arguments: [n, sum, squares]\n"
                                  "    description: the spread\n";

START_TEST(test_config_good)
{
	struct dci_config *config = NULL;
	char error[512] = "";

	ck_assert_msg(dci_config_parse(good_config, sizeof(good_config) - 1,
	                  "good.yaml", &config, error, sizeof(error)) == 0,
	    "%s", error);
	ck_assert_uint_eq(config->derived_count, 2);
	ck_assert_uint_eq(config->derived[0].class_id_length, 2);
	ck_assert_uint_eq(config->derived[0].class_id[1], 2);
	ck_assert_str_eq(config->derived[0].label, "io_bytes");
	ck_assert_uint_eq(config->derived[0].id, 40);
	ck_assert_int_eq(config->derived[0].derivation, DCI_UNIT_DERIVED_SUM2);
	ck_assert_uint_eq(config->derived[0].argument_count, 2);
	ck_assert_str_eq(config->derived[0].arguments[1], "bytes_written");
	ck_assert_uint_eq(config->derived[0].argument_positions[1].line, 6);
	ck_assert_uint_eq(config->derived[0].argument_positions[1].column, 29);
	ck_assert_ptr_null(config->derived[0].description);
	ck_assert_uint_eq(config->derived[1].class_id_length, 3);
	ck_assert_uint_eq(config->derived[1].class_id[0], 4294967294u);
	ck_assert_int_eq(
	    config->derived[1].derivation, DCI_UNIT_DERIVED_VARIANCE);
	ck_assert_str_eq(config->derived[1].description, "the spread");
	dci_config_free(config);
}
END_TEST

static const struct {
	const char *text;
	const char *error;
} bad_configs[] = {
    {"derived: 3\n", "bad.yaml:1:10: expected a sequence for 'derived'"},
    {"derived:\n  - [1.2, a]\n",
        "bad.yaml:2:5: expected a mapping for a derived entry, found a "
        "sequence"},
    {"derived:\n  - class: 1.x\n    label: a\n    id: 1\n    metric: sum2\n"
     "    arguments: [b, c]\n",
        "bad.yaml:2:12: expected a class id such as 1.2"},
    {"derived:\n  - class: 4294967295\n    label: a\n    id: 1\n"
     "    metric: sum2\n    arguments: [b, c]\n",
        "bad.yaml:2:12: expected a class id"},
    {"derived:\n  - class: 1.2\n    label: a\n    id: 256\n"
     "    metric: sum2\n    arguments: [b, c]\n",
        "bad.yaml:4:9: expected a number from 1 to 255"},
    {"derived:\n  - class: 1.2\n    label: a\n    id: 0\n"
     "    metric: sum2\n    arguments: [b, c]\n",
        "bad.yaml:4:9: expected a number from 1 to 255"},
    {"derived:\n  - class: 1.2\n    label: a\n    id: 1\n"
     "    metric: mean\n    arguments: [b, c]\n",
        "bad.yaml:5:13: expected one of sum2, sum3, difference, average, "
        "percent, product, variance for 'metric', found 'mean'"},
    {"derived:\n  - class: 1.2\n    label: a\n    id: 1\n"
     "    metric: sum3\n    arguments: [b, c]\n",
        "bad.yaml:6:16: sum3 takes 3 arguments, found 2"},
    {"derived:\n  - class: 1.2\n    label: a\n    id: 1\n"
     "    metric: sum2\n    arguments: b\n",
        "bad.yaml:6:16: expected a sequence of 2 or 3 datum labels"},
    {"derived:\n  - class: 1.2\n    label: a\n    metric: sum2\n"
     "    arguments: [b, c]\n",
        "bad.yaml:2:5: missing required key 'id' in derived entry"},
    {"derived:\n  - class: 1.2\n    label: a\n    id: 1\n"
     "    metric: sum2\n    arguments: [b, c]\n    unit: x\n",
        "bad.yaml:7:5: unknown key 'unit' in derived entry"},
};

START_TEST(test_config_bad)
{
	struct dci_config *config = NULL;
	char error[512] = "";

	ck_assert_int_eq(
	    dci_config_parse(bad_configs[_i].text, strlen(bad_configs[_i].text),
	        "bad.yaml", &config, error, sizeof(error)),
	    -1);
	ck_assert_ptr_null(config);
	assert_contains(error, bad_configs[_i].error);
}
END_TEST

static Suite *
derived_suite(void)
{
	Suite *suite = suite_create("derived");
	TCase *formulas_case = tcase_create("formulas");
	TCase *registration = tcase_create("registration");
	TCase *values = tcase_create("values");
	TCase *configuration = tcase_create("configuration");

	tcase_add_loop_test(
	    formulas_case, test_formula, 0, (int)COUNT_OF(formulas));
	tcase_add_test(formulas_case, test_arity);
	suite_add_tcase(suite, formulas_case);
	tcase_add_loop_test(
	    registration, test_refused, 0, (int)COUNT_OF(refused));
	tcase_add_test(registration, test_refused_ambiguous_argument);
	tcase_add_test(registration, test_types_set_by_registry);
	suite_add_tcase(suite, registration);
	tcase_add_test(values, test_commit_computes);
	tcase_add_test(values, test_render);
	tcase_add_test(values, test_commits_take_unchanged_results);
	suite_add_tcase(suite, values);
	tcase_add_test(configuration, test_config_good);
	tcase_add_loop_test(
	    configuration, test_config_bad, 0, (int)COUNT_OF(bad_configs));
	suite_add_tcase(suite, configuration);
	return suite;
}

int
main(void)
{
	return unit_run_suite(derived_suite());
}
