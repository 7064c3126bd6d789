/* What a supplier segment is charged before it is copied
 * (providers/suppliers/segment_budget.h): classes and datums counted per
 * class when classes share their datum records, the charge's bounds, a
 * class refused before its datums are copied, the work a refresh of an
 * instance costs and its limit; and the rotation of segments over a
 * refresh's work (segment_rotation.h). */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "providers/suppliers/segment_budget.h"
#include "providers/suppliers/segment_reader.h"
#include "providers/suppliers/segment_rotation.h"

/* A segment in memory: `classes` classes all over the same `datums`
 * datum records (summed 64-bit counters), `instances` instances of class
 * 0, each a block of its own of datums + 1 words, `thread_regions`
 * regions in use. */
struct built {
	uint64_t *words;
	size_t size;
	struct segment_view view;
};

static void
build(struct built *built, uint32_t classes, uint32_t datums,
    uint32_t instances, uint32_t thread_regions)
{
	struct dcistat_segment_header *header;
	size_t class_offset = sizeof(*header);
	size_t datum_offset =
	    class_offset + classes * sizeof(struct dcistat_segment_class);
	size_t instance_offset =
	    datum_offset + datums * sizeof(struct dcistat_segment_datum);
	size_t region_offset =
	    instance_offset + (instances ? instances : 1) *
	                          sizeof(struct dcistat_segment_instance);
	uint32_t block_words = datums + 1;
	uint32_t region_words = 1 + (instances ? instances : 1) * block_words;
	unsigned char *base;
	char why[256];

	region_offset = (region_offset + 7) / 8 * 8;
	built->size =
	    region_offset + (size_t)(thread_regions + 1) * region_words * 8;
	built->words = calloc(built->size / 8 + 1, 8);
	ck_assert_ptr_nonnull(built->words);
	base = (unsigned char *)built->words;
	header = (struct dcistat_segment_header *)base;
	memcpy(header->magic, DCISTAT_SEGMENT_MAGIC, 8);
	header->version = DCISTAT_SEGMENT_VERSION;
	header->byte_order_mark = DCISTAT_SEGMENT_BYTE_ORDER_MARK;
	header->segment_size = built->size;
	header->header_size = sizeof(*header);
	strcpy(header->module, "budget");
	header->number = 9;
	header->class_capacity = classes;
	header->datum_capacity = datums;
	header->instance_capacity = instances ? instances : 1;
	header->class_offset = class_offset;
	header->datum_offset = datum_offset;
	header->instance_offset = instance_offset;
	header->region_offset = region_offset;
	header->region_words = region_words;
	header->thread_regions = thread_regions;
	header->class_count = classes;
	header->datum_count = datums;
	header->instance_high = instances;
	header->regions_in_use = thread_regions;
	for (uint32_t c = 0; c < classes; c++) {
		struct dcistat_segment_class *record =
		    (struct dcistat_segment_class *)(base + class_offset) + c;
		record->id_length = 2;
		record->id[0] = 17;
		record->id[1] = c + 1;
		record->level_count = 1;
		record->level_itype[0] = DCI_ITYPE_SINGLEINST;
		record->level_size[0] = 4;
		record->datum_first = 0; /* all share the same records */
		record->datum_count = datums;
		strcpy(record->label, "shared");
	}
	for (uint32_t d = 0; d < datums; d++) {
		struct dcistat_segment_datum *record =
		    (struct dcistat_segment_datum *)(base + datum_offset) + d;
		record->id = d + 1;
		record->type = DCI_ST_INTEGER64;
		record->format = DCI_SIF_UNSIGNED;
		record->size = 8;
		record->semantics = DCI_SEMANTICS_COUNTER;
		record->combine = DCISTAT_COMBINE_SUM;
		record->word = d;
		record->divisor = 1;
		strcpy(record->label, "counter");
	}
	for (uint32_t i = 0; i < instances; i++) {
		struct dcistat_segment_instance *record =
		    (struct dcistat_segment_instance *)(base +
		                                        instance_offset) +
		    i;
		record->state = 1;
		record->block = 1 + i * block_words;
		record->block_words = block_words;
		record->value_base = 1;
		record->id[0] = i + 1;
		strcpy(record->label, "instance");
	}
	ck_assert_msg(segment_view_open(base, built->size, &built->view, why,
	                  sizeof(why)) == 0,
	    "%s", why);
}

START_TEST(test_weights)
{
	ck_assert_uint_eq(
	    segment_budget_class_bytes(0), SEGMENT_BUDGET_CLASS_BYTES);
	ck_assert_uint_eq(segment_budget_class_bytes(1024),
	    SEGMENT_BUDGET_CLASS_BYTES + 1024u * SEGMENT_BUDGET_DATUM_BYTES);
	ck_assert_uint_eq(segment_budget_instance_bytes(10, 0),
	    SEGMENT_BUDGET_INSTANCE_BYTES + 10u * SEGMENT_BUDGET_VALUE_BYTES);
	ck_assert_uint_eq(segment_budget_instance_bytes(2, 256),
	    SEGMENT_BUDGET_INSTANCE_BYTES + 2u * SEGMENT_BUDGET_VALUE_BYTES +
	        256u * SEGMENT_BUDGET_STRING_BYTE);
	ck_assert_uint_eq(segment_budget_add(UINT64_MAX - 1, 5), UINT64_MAX);
	/* What the library writes stays under the amplification bound: a
	 * class with its one datum, a value of one word, a string value of
	 * one word. */
	ck_assert_uint_le(segment_budget_class_bytes(1),
	    SEGMENT_BUDGET_AMPLIFICATION *
	        (sizeof(struct dcistat_segment_class) +
	            sizeof(struct dcistat_segment_datum)));
	ck_assert_uint_le(SEGMENT_BUDGET_VALUE_BYTES,
	    SEGMENT_BUDGET_AMPLIFICATION * sizeof(uint64_t));
	ck_assert_uint_le(
	    SEGMENT_BUDGET_VALUE_BYTES + 8 * SEGMENT_BUDGET_STRING_BYTE,
	    SEGMENT_BUDGET_AMPLIFICATION * sizeof(uint64_t));
	ck_assert_uint_le(SEGMENT_BUDGET_INSTANCE_BYTES,
	    SEGMENT_BUDGET_AMPLIFICATION *
	        (sizeof(struct dcistat_segment_instance) +
	            2 * sizeof(uint64_t)));
}
END_TEST

START_TEST(test_memory_limit)
{
	struct segment_budget_limits limits = {
	    .segment_bytes = 1000000, .user_bytes = 3000000};
	const char *which = NULL;

	ck_assert_uint_eq(
	    segment_budget_memory_limit(&limits, 1 << 20, 0, &which), 1000000);
	ck_assert_str_eq(which, "max-segment-memory");
	ck_assert_uint_eq(segment_budget_memory_limit(&limits, 1000, 0, &which),
	    1000u * SEGMENT_BUDGET_AMPLIFICATION);
	ck_assert_str_eq(which, "16 times the file's size");
	ck_assert_uint_eq(
	    segment_budget_memory_limit(&limits, 1 << 20, 2500000, &which),
	    500000);
	ck_assert_str_eq(which, "what is left of max-user-memory");
	ck_assert_uint_eq(
	    segment_budget_memory_limit(&limits, 1 << 20, 4000000, &which), 0);
	ck_assert_uint_eq(
	    segment_budget_memory_limit(&limits, UINT64_MAX / 2, 0, &which),
	    1000000);
}
END_TEST

/* Each owner's charge, in the refresh's table: 300 owners, added to and
 * taken from. */
START_TEST(test_owner_charges)
{
	struct segment_budget_owners owners = {0};

	ck_assert_int_eq(segment_budget_owners_reset(&owners, 300), 0);
	ck_assert_uint_ge(owners.capacity, 600);
	for (uint32_t uid = 0; uid < 300; uid++) {
		segment_budget_owners_add(&owners, uid * 1000, uid + 1, false);
		segment_budget_owners_add(&owners, uid * 1000, 10, false);
	}
	for (uint32_t uid = 0; uid < 300; uid++)
		ck_assert_uint_eq(
		    segment_budget_owners_bytes(&owners, uid * 1000), uid + 11);
	ck_assert_uint_eq(segment_budget_owners_bytes(&owners, 7), 0);
	segment_budget_owners_add(&owners, 5000, 100, true);
	ck_assert_uint_eq(segment_budget_owners_bytes(&owners, 5000), 0);
	segment_budget_owners_add(&owners, 6000, 7, true);
	ck_assert_uint_eq(segment_budget_owners_bytes(&owners, 6000), 10);
	ck_assert_int_eq(segment_budget_owners_reset(&owners, 2), 0);
	ck_assert_uint_eq(segment_budget_owners_bytes(&owners, 6000), 0);
	segment_budget_owners_free(&owners);
	ck_assert_uint_eq(owners.capacity, 0);
	segment_budget_owners_add(&owners, 1, 1, false); /* no table: nothing */
	ck_assert_uint_eq(segment_budget_owners_bytes(&owners, 1), 0);
}
END_TEST

/* 64 classes over the same 256 datum records: each class is charged its
 * own 256 datums, as each registers its own copy. */
START_TEST(test_shared_datums_counted_per_class)
{
	struct built built;
	struct segment_class copy;
	uint64_t claimed = 0;
	bool over;
	char why[256];

	build(&built, 64, 256, 0, 1);
	for (uint32_t c = 0; c < 64; c++)
		claimed += segment_class_claimed_bytes(&built.view, c);
	ck_assert_uint_eq(claimed, 64 * segment_budget_class_bytes(256));
	ck_assert_uint_eq(segment_class_claimed_bytes(&built.view, 64), 0);

	/* Over what is left: refused before its datums are copied. */
	ck_assert_int_eq(segment_class_read_within(&built.view, 3,
	                     segment_budget_class_bytes(256) - 1, &copy, &over,
	                     why, sizeof(why)),
	    -1);
	ck_assert(over);
	ck_assert_ptr_null(copy.datums);
	ck_assert_ptr_nonnull(strstr(why, "over the"));
	segment_class_clear(&copy);

	ck_assert_int_eq(segment_class_read_within(&built.view, 3,
	                     segment_budget_class_bytes(256), &copy, &over, why,
	                     sizeof(why)),
	    0);
	ck_assert(!over);
	ck_assert_uint_eq(copy.memory_bytes, segment_budget_class_bytes(256));
	ck_assert_uint_eq(
	    copy.instance_bytes, segment_budget_instance_bytes(256, 0));
	ck_assert_uint_eq(copy.region_datums, 256);
	segment_class_clear(&copy);
	free(built.words);
}
END_TEST

/* A record claiming more datums than a class may have is charged the
 * most a class may have (it is refused when read). */
START_TEST(test_claimed_bounded)
{
	struct built built;
	struct dcistat_segment_class *record;
	struct segment_class copy;
	char why[256];

	build(&built, 2, 4, 0, 1);
	record = (struct dcistat_segment_class *)((unsigned char *)built.words +
	                                          built.view.class_offset);
	record->datum_count = UINT32_MAX;
	ck_assert_uint_eq(segment_class_claimed_bytes(&built.view, 0),
	    segment_budget_class_bytes(SEGMENT_READER_DATUMS_PER_CLASS_MAX));
	ck_assert_int_eq(
	    segment_class_read(&built.view, 0, &copy, why, sizeof(why)), -1);
	segment_class_clear(&copy);
	free(built.words);
}
END_TEST

/* The work of reading an instance's values: the copy of its block in
 * every region (none when the scratch holds it), its datums combined over
 * the regions; counted as spent, and stopped at the limit. */
START_TEST(test_values_work)
{
	struct built built;
	struct segment_class copy;
	struct segment_instance first, second;
	struct segment_scratch scratch = {0};
	struct segment_value values[16];
	uint64_t expected, combine;
	char why[256];

	build(&built, 1, 16, 2, 7); /* 8 regions */
	ck_assert_int_eq(
	    segment_class_read(&built.view, 0, &copy, why, sizeof(why)), 0);
	ck_assert_int_eq(segment_instance_read(&built.view, 0, &copy, 1, &first,
	                     why, sizeof(why)),
	    1);
	ck_assert_int_eq(segment_instance_read(&built.view, 1, &copy, 1,
	                     &second, why, sizeof(why)),
	    1);
	combine = 16u * 8u;
	expected = 8u * (1u + 17u) + combine;
	ck_assert_uint_eq(
	    segment_values_work(&built.view, &copy, &first, &scratch),
	    expected);
	ck_assert_uint_eq(segment_values_scratch_bytes(&built.view, &first),
	    8u * 17u * sizeof(uint64_t));
	ck_assert_int_eq(segment_values_read(
	                     &built.view, &copy, &first, 0, &scratch, values),
	    0);
	ck_assert_uint_eq(scratch.work, expected);
	/* The same block again: combined only. */
	ck_assert_uint_eq(
	    segment_values_work(&built.view, &copy, &first, &scratch), combine);
	/* Another block: copied. */
	ck_assert_uint_eq(
	    segment_values_work(&built.view, &copy, &second, &scratch),
	    expected);

	/* A limit below the copy: given up, nothing over the limit spent. */
	segment_scratch_clear(&scratch);
	scratch.work_limit = 40;
	ck_assert_int_eq(segment_values_read(
	                     &built.view, &copy, &second, 0, &scratch, values),
	    -1);
	ck_assert_uint_le(scratch.work, 40);
	segment_scratch_clear(&scratch);
	ck_assert_uint_eq(scratch.work, 0);
	segment_class_clear(&copy);
	free(built.words);
}
END_TEST

/* Cheap segments first and always; the others in turn, the one served
 * longest ago first, at least one a refresh. */
START_TEST(test_rotation)
{
	struct segment_turn cheap = {.last_work = 10, .known = true};
	struct segment_turn heavy[3] = {
	    {.last_work = 600, .known = true},
	    {.last_work = 600, .known = true},
	    {.last_work = 600, .known = true},
	};
	struct segment_turn fresh = {0};
	unsigned served[3] = {0};
	const uint64_t budget = 1000;
	uint64_t serves = 0;

	for (int refresh = 0; refresh < 6; refresh++) {
		struct segment_turn *order[4] = {
		    &heavy[0], &heavy[1], &cheap, &heavy[2]};
		uint64_t spent = 0;
		size_t others = 0;

		segment_rotation_order(order, 4, budget);
		ck_assert_ptr_eq(order[0], &cheap);
		ck_assert(cheap.cheap);
		for (size_t i = 0; i < 4; i++) {
			bool due = segment_rotation_due(
			    order[i], spent, others, budget);
			if (i == 0)
				ck_assert(due); /* the cheap one, always */
			if (due) {
				spent += order[i]->last_work;
				if (!order[i]->cheap)
					others++;
				for (int h = 0; h < 3; h++)
					served[h] += order[i] == &heavy[h];
			}
			segment_rotation_record(order[i], due,
			    order[i]->last_work, due ? ++serves : 0);
		}
		/* 10 + 600 + 600 spent, then the budget is gone. */
		ck_assert_uint_eq(others, 2);
		ck_assert_uint_eq(spent, 1210);
	}
	/* In turn: each heavy one served 4 of 6 times, none waits twice. */
	for (int h = 0; h < 3; h++) {
		ck_assert_uint_eq(served[h], 4);
		ck_assert_uint_le(heavy[h].deferred, 1);
	}

	/* A new one (cost unknown) is not cheap, but is served first when
	 * no other is. */
	{
		struct segment_turn *order[1] = {&fresh};
		segment_rotation_order(order, 1, budget);
		ck_assert(!fresh.cheap);
		ck_assert(segment_rotation_due(&fresh, 5 * budget, 0, budget));
		ck_assert(!segment_rotation_due(&fresh, budget, 1, budget));
	}
	/* Cheap ones stop at twice the budget. */
	ck_assert(segment_rotation_due(&cheap, 2 * budget - 1, 0, budget));
	ck_assert(!segment_rotation_due(&cheap, 2 * budget, 0, budget));
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("segment_budget");
	TCase *budget = tcase_create("budget");
	SRunner *runner;
	int failed;

	tcase_add_test(budget, test_weights);
	tcase_add_test(budget, test_memory_limit);
	tcase_add_test(budget, test_owner_charges);
	tcase_add_test(budget, test_shared_datums_counted_per_class);
	tcase_add_test(budget, test_claimed_bounded);
	tcase_add_test(budget, test_values_work);
	tcase_add_test(budget, test_rotation);
	suite_add_tcase(suite, budget);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
