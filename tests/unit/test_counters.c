/* Counter semantics at commit (core/snapshot.c): a wrap at a counter's full
 * width is not a discontinuity, a reset is; a declared discontinuity sets
 * the time. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "fixtures.h"

static const uint32_t counters_class_id[] = {7, 1};
static const struct dci_instance_level counters_levels[] = {
    {DCI_ITYPE_DEVICE, 4},
};

enum {
	DATUM_COUNT32 = 1,
	DATUM_COUNT64 = 2,
	DATUM_COUNT8 = 3,
	DATUM_COUNT16 = 4, /* big-endian, to show the byte order is kept */
	DATUM_GAUGE8 = 5,
	DATUM_SIGNED8 = 6,
	DATUM_SUM = DCI_DERIVED_DATUM_ID(3, 4, 0, 7), /* count8 + count16 */
};

/* The class of these tests; with_sum adds DATUM_SUM. */
static struct dci_class *
counters_class_with(struct dci_registry *registry, bool with_sum)
{
	struct dci_datum_info datums[] = {
	    fx_datum(DATUM_COUNT32, "count32", DCI_ST_INTEGER32,
	        DCI_SIF_UNSIGNED, 0, DCI_SEMANTICS_COUNTER),
	    fx_datum(DATUM_COUNT64, "count64", DCI_ST_INTEGER64,
	        DCI_SIF_UNSIGNED, 0, DCI_SEMANTICS_COUNTER),
	    fx_datum(DATUM_COUNT8, "count8", DCI_ST_INTEGER8, DCI_SIF_UNSIGNED,
	        0, DCI_SEMANTICS_COUNTER),
	    fx_datum(DATUM_COUNT16, "count16", DCI_ST_INTEGER16,
	        DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN, 0, DCI_SEMANTICS_COUNTER),
	    fx_datum(DATUM_GAUGE8, "gauge8", DCI_ST_INTEGER8, DCI_SIF_UNSIGNED,
	        0, DCI_SEMANTICS_GAUGE),
	    fx_datum(DATUM_SIGNED8, "signed8", DCI_ST_INTEGER8, 0, 0,
	        DCI_SEMANTICS_COUNTER),
	    {.id = DATUM_SUM,
	        .label = "sum",
	        .type = DCI_ST_DERIVED,
	        .unit = DCI_UNIT_DERIVED_SUM2},
	};
	struct dci_class_info info =
	    fx_class_info(counters_class_id, 2, "counters", counters_levels, 1,
	        datums, COUNT_OF(datums) - (with_sum ? 0 : 1));

	return fx_class(registry, fx_supplier(registry, "counters"), &info);
}

static struct dci_class *
counters_class(struct dci_registry *registry)
{
	return counters_class_with(registry, true);
}

/* The served value of a datum of instance `id`, as the agent reads it. */
static uint64_t
served(const struct dci_class *class, uint32_t id, uint32_t datum_id)
{
	const struct dci_datum *datum = dci_class_find_datum(class, datum_id);
	long row = dci_snapshot_find(class, class->snapshot, &id);
	struct dci_value value;

	ck_assert_ptr_nonnull(datum);
	ck_assert_int_ge(row, 0);
	ck_assert(
	    dci_snapshot_present(class, class->snapshot, (size_t)row, datum));
	dci_value_decode(&datum->info,
	    dci_snapshot_slot(class, class->snapshot, (size_t)row, datum),
	    &value);
	return value.number;
}

static int64_t
discontinuity(const struct dci_class *class, uint32_t id)
{
	long row = dci_snapshot_find(class, class->snapshot, &id);

	ck_assert_int_ge(row, 0);
	return class->snapshot->instances[row].discontinuity_milliseconds;
}

/* Commits one instance per value, instance id i + 1 holding values[i] in
 * datum `datum_id`, at `now`. */
static void
commit_values(struct dci_class *class, uint32_t datum_id,
    const uint64_t *values, size_t count, int64_t now)
{
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);

	for (uint32_t id = 1; id <= count; id++) {
		long row = fx_add(builder, &id, 1, "unit");
		fx_set_unsigned(builder, row, datum_id, values[id - 1]);
	}
	fx_commit(builder, class, now);
}

START_TEST(counter32_wrap_at_full_width_is_no_discontinuity)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = counters_class(registry);
	/* 1: wraps by 15; 2: reset 1000 -> 5; 3: grows; 4 and 5: the half
	 * range boundary, forward by 2^31 - 1 (a wrap) and by 2^31 (not);
	 * 6: 4,000,000,000 -> 5, forward by 294,967,301: a wrap. */
	const uint64_t before[] = {UINT32_MAX - 9, 1000, 1000,
	    (UINT64_C(1) << 31) + 10, (UINT64_C(1) << 31) + 10, 4000000000u};
	const uint64_t after[] = {5, 5, 2000, 9, 10, 5};

	commit_values(class, DATUM_COUNT32, before, COUNT_OF(before), 1000);
	commit_values(class, DATUM_COUNT32, after, COUNT_OF(after), 2000);
	ck_assert_int_eq(discontinuity(class, 1), 1000);
	ck_assert_int_eq(discontinuity(class, 2), 2000);
	ck_assert_int_eq(discontinuity(class, 3), 1000);
	ck_assert_int_eq(discontinuity(class, 4), 1000);
	ck_assert_int_eq(discontinuity(class, 5), 2000);
	ck_assert_int_eq(discontinuity(class, 6), 1000);
	ck_assert_uint_eq(served(class, 1, DATUM_COUNT32), 5);
	dci_registry_free(registry);
}
END_TEST

START_TEST(counter64_wrap_at_full_width_is_no_discontinuity)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = counters_class(registry);
	/* 1: wraps at 2^64; 2: reset; 3: goes back by one; 4: a 32-bit
	 * sized wrap, which a 64-bit counter cannot make: a reset. */
	const uint64_t before[] = {UINT64_MAX - 2, UINT64_C(5000000000),
	    UINT64_C(5000000000), UINT32_MAX - 9};
	const uint64_t after[] = {7, 1000, UINT64_C(4999999999), 5};

	commit_values(class, DATUM_COUNT64, before, COUNT_OF(before), 1000);
	commit_values(class, DATUM_COUNT64, after, COUNT_OF(after), 2000);
	ck_assert_int_eq(discontinuity(class, 1), 1000);
	ck_assert_int_eq(discontinuity(class, 2), 2000);
	ck_assert_int_eq(discontinuity(class, 3), 2000);
	ck_assert_int_eq(discontinuity(class, 4), 2000);
	dci_registry_free(registry);
}
END_TEST

START_TEST(declared_discontinuity_without_a_decrease)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = counters_class(registry);
	struct dci_snapshot_builder *builder;
	const uint64_t values[] = {100, 100};
	char why[512];
	long row;

	commit_values(class, DATUM_COUNT64, values, COUNT_OF(values), 1000);
	builder = dci_snapshot_builder_new(class);
	for (uint32_t id = 1; id <= 2; id++) {
		row = fx_add(builder, &id, 1, "unit");
		fx_set_unsigned(builder, row, DATUM_COUNT64, 200);
	}
	ck_assert_int_eq(dci_snapshot_builder_set_discontinuity(
	                     builder, 1, why, sizeof(why)),
	    0);
	ck_assert_int_eq(dci_snapshot_builder_set_discontinuity(
	                     builder, 2, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(
	    why, "discontinuity of row 2: no such row (2 instances)");
	ck_assert_int_eq(dci_snapshot_builder_set_discontinuity(
	                     builder, -1, why, sizeof(why)),
	    -1);
	fx_commit(builder, class, 2000);
	ck_assert_int_eq(discontinuity(class, 1), 1000);
	ck_assert_int_eq(discontinuity(class, 2), 2000);
	dci_registry_free(registry);
}
END_TEST

START_TEST(declarations_survive_builder_growth)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = counters_class(registry);
	struct dci_snapshot_builder *builder;
	const uint32_t count = 300; /* past the builder's first capacity */

	builder = dci_snapshot_builder_new(class);
	for (uint32_t id = 1; id <= count; id++)
		fx_add(builder, &id, 1, "unit");
	fx_commit(builder, class, 1000);
	builder = dci_snapshot_builder_new(class);
	for (uint32_t id = 1; id <= count; id++) {
		long row = fx_add(builder, &id, 1, "unit");
		/* The first declaration allocates; later rows grow it. */
		if (id % 100 == 1)
			ck_assert_int_eq(dci_snapshot_builder_set_discontinuity(
			                     builder, row, NULL, 0),
			    0);
	}
	fx_commit(builder, class, 2000);
	for (uint32_t id = 1; id <= count; id++)
		ck_assert_int_eq(
		    discontinuity(class, id), id % 100 == 1 ? 2000 : 1000);
	dci_registry_free(registry);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("counters");
	TCase *cases = tcase_create("counters");
	SRunner *runner;
	int failed;

	tcase_add_test(cases, counter32_wrap_at_full_width_is_no_discontinuity);
	tcase_add_test(cases, counter64_wrap_at_full_width_is_no_discontinuity);
	tcase_add_test(cases, declared_discontinuity_without_a_decrease);
	tcase_add_test(cases, declarations_survive_builder_growth);
	suite_add_tcase(suite, cases);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
