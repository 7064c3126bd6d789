/* Counter semantics at commit (model/snapshot.c): a wrap at a counter's full
 * width is not a discontinuity, a reset is; 8- and 16-bit counters are
 * served widened to 32 bits across snapshots; a declared discontinuity
 * sets the time and restarts the widening. */
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
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT32), 5);
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

START_TEST(small_unsigned_counters_registered_as_32_bits)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = counters_class(registry);
	const struct dci_datum *count8 =
	    dci_class_find_datum(class, DATUM_COUNT8);
	const struct dci_datum *count16 =
	    dci_class_find_datum(class, DATUM_COUNT16);
	const struct dci_datum *gauge8 =
	    dci_class_find_datum(class, DATUM_GAUGE8);
	const struct dci_datum *signed8 =
	    dci_class_find_datum(class, DATUM_SIGNED8);

	/* Served: a 32-bit counter; set: the provider's 8 or 16 bits. */
	ck_assert_int_eq(count8->info.type, DCI_ST_INTEGER32);
	ck_assert_uint_eq(count8->info.size, 4);
	ck_assert_int_eq(count8->kind, DCI_KIND_COUNTER32);
	ck_assert_int_eq(count8->provided_type, DCI_ST_INTEGER8);
	ck_assert_uint_eq(count8->provided_size, 1);
	ck_assert_int_eq(count16->info.type, DCI_ST_INTEGER32);
	ck_assert_uint_eq(
	    count16->info.format, DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN);
	ck_assert_uint_eq(count16->provided_size, 2);
	ck_assert_uint_eq(class->widened_count, 2);
	/* A gauge and a signed counter stay as declared. */
	ck_assert_int_eq(gauge8->info.type, DCI_ST_INTEGER8);
	ck_assert_uint_eq(gauge8->provided_size, 0);
	ck_assert_int_eq(signed8->info.type, DCI_ST_INTEGER8);
	ck_assert_uint_eq(signed8->provided_size, 0);
	dci_registry_free(registry);
}
END_TEST

START_TEST(small_counter_values_checked_at_their_own_width)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = counters_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	long row = fx_add(builder, (const uint32_t[]){1}, 1, "unit");
	char why[512];

	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
	                     builder, row, DATUM_COUNT8, 256, why, sizeof(why)),
	    -1);
	ck_assert_int_eq(
	    dci_snapshot_builder_set_bytes(builder, row, DATUM_COUNT16,
	        "\x01\x02\x03\x04", 4, why, sizeof(why)),
	    -1);
	/* 0x0102 big-endian. */
	fx_set_bytes(builder, row, DATUM_COUNT16, "\x01\x02", 2);
	fx_set_unsigned(builder, row, DATUM_COUNT8, 255);
	fx_commit(builder, class, 1000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT16), 0x0102);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 255);
	dci_registry_free(registry);
}
END_TEST

/* Commits instance 1 with count8 and count16 (and a declared discontinuity
 * when asked), at `now`. */
static void
commit_small(struct dci_class *class, uint64_t count8, uint64_t count16,
    bool declared, int64_t now)
{
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	long row = fx_add(builder, (const uint32_t[]){1}, 1, "unit");
	char why[512] = "";

	fx_set_unsigned(builder, row, DATUM_COUNT8, count8);
	fx_set_unsigned(builder, row, DATUM_COUNT16, count16);
	if (declared)
		ck_assert_msg(dci_snapshot_builder_set_discontinuity(
		                  builder, row, why, sizeof(why)) == 0,
		    "%s", why);
	fx_commit(builder, class, now);
}

START_TEST(small_counters_widened_across_commits)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = counters_class(registry);
	const struct dci_datum *count8 =
	    dci_class_find_datum(class, DATUM_COUNT8);
	char text[32];

	/* A new instance starts at the provider's values. */
	commit_small(class, 250, 65530, false, 1000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 250);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT16), 65530);
	/* Both wrap: 250 -> 4 is 10 more, 65530 -> 20 is 26 more. */
	commit_small(class, 4, 20, false, 2000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 260);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT16), 65556);
	/* Grows without a wrap, then wraps again. */
	commit_small(class, 200, 40000, false, 3000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 456);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT16), 105536);
	commit_small(class, 100, 39999, false, 4000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 612);
	ck_assert_uint_eq(
	    fx_served_number(class, 1, DATUM_COUNT16), 105535 + 65536);
	/* None of that was a discontinuity; the sum of the two takes the
	 * widened values; the text is the widened value too. */
	ck_assert_int_eq(discontinuity(class, 1), 1000);
	ck_assert_uint_eq(
	    fx_served_number(class, 1, DATUM_SUM), 612 + 105535 + 65536);
	dci_value_render(&count8->info,
	    dci_snapshot_slot(class, class->snapshot, 0, count8), text,
	    sizeof(text));
	ck_assert_str_eq(text, "612");

	/* Declared discontinuous: the time is set and widening starts
	 * again from the provider's values, then goes on from there. */
	commit_small(class, 7, 3, true, 5000);
	ck_assert_int_eq(discontinuity(class, 1), 5000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 7);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT16), 3);
	commit_small(class, 1, 5, false, 6000);
	ck_assert_int_eq(discontinuity(class, 1), 5000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 257);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT16), 5);
	dci_registry_free(registry);
}
END_TEST

START_TEST(widened_counter_wraps_at_2_to_the_32)
{
	/* Without the sum: a sum of counters that falls by 2^32 when one of
	 * them wraps is a discontinuity of the sum, and so of the instance. */
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = counters_class_with(registry, false);
	const struct dci_datum *count8 =
	    dci_class_find_datum(class, DATUM_COUNT8);
	unsigned char *slot;

	commit_small(class, 250, 0, false, 1000);
	/* Stand for a counter that has grown for long: 2^32 - 6, which is
	 * 250 modulo 2^8, as every served value is to the provider's. */
	slot = (unsigned char *)dci_snapshot_slot(
	    class, class->snapshot, 0, count8);
	ck_assert_int_eq(dci_value_encode_unsigned(
	                     &count8->info, UINT32_MAX - 5, slot, NULL, 0),
	    0);
	commit_small(class, 4, 0, false, 2000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 4);
	ck_assert_int_eq(discontinuity(class, 1), 1000);
	dci_registry_free(registry);
}
END_TEST

START_TEST(widening_starts_at_the_value_when_it_had_none)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = counters_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	long row;

	/* Instance 1 without count8, then with it. */
	row = fx_add(builder, (const uint32_t[]){1}, 1, "unit");
	fx_set_unsigned(builder, row, DATUM_COUNT16, 9);
	fx_commit(builder, class, 1000);
	commit_small(class, 200, 10, false, 2000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 200);
	/* Gone, then back: a new instance, widened from its value again. */
	builder = dci_snapshot_builder_new(class);
	fx_commit(builder, class, 3000);
	commit_small(class, 3, 11, false, 4000);
	ck_assert_uint_eq(fx_served_number(class, 1, DATUM_COUNT8), 3);
	ck_assert_int_eq(discontinuity(class, 1), 4000);
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
	const TTest *tests[] = {
	    counter32_wrap_at_full_width_is_no_discontinuity,
	    counter64_wrap_at_full_width_is_no_discontinuity,
	    small_unsigned_counters_registered_as_32_bits,
	    small_counter_values_checked_at_their_own_width,
	    small_counters_widened_across_commits,
	    widened_counter_wraps_at_2_to_the_32,
	    widening_starts_at_the_value_when_it_had_none,
	    declared_discontinuity_without_a_decrease,
	    declarations_survive_builder_growth,
	};

	return fx_run_tests("counters", tests, COUNT_OF(tests));
}
