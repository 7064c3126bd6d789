/*
 * Unit test of the openmetrics series grouping's collision rule
 * (src/providers/openmetrics/openmetrics_series.c): the grouping is built
 * here with its ids narrowed to one bit, so that distinct label sets
 * share ids; the series met first keeps the id, every later label set
 * with it is refused (counted and described), none merged.
 */
#define _GNU_SOURCE
#define OM_SERIES_ID_MASK 0x1ull
#include "providers/openmetrics/openmetrics_series.c"

#include <check.h>
#include <stdlib.h>

static const struct om_limits limits = {.body_bytes = 4096,
    .line_bytes = 256,
    .labels_per_series = 4,
    .families = 4,
    .series = 64};

START_TEST(colliding_label_sets_are_refused_not_merged)
{
	static const char text[] = "m{k=\"a\"} 1\nm{k=\"b\"} 2\nm{k=\"c\"} 3\n"
	                           "m{k=\"d\"} 4\nm{k=\"e\"} 5\n";
	char body[sizeof(text)];
	struct om_scrape scrape = {0};
	struct om_series_set set = {0};

	memcpy(body, text, sizeof(text));
	ck_assert_int_eq(om_parse(&scrape, body, sizeof(text) - 1, &limits), 0);
	ck_assert_int_eq(om_series_group(&set, &scrape, 0), 0);
	/* Two ids exist: two series served, three label sets refused. */
	ck_assert_uint_eq(set.count, 2);
	ck_assert_uint_eq(set.collisions, 3);
	ck_assert(set.series[0].id != set.series[1].id);
	for (size_t s = 0; s < set.count; s++) {
		const struct om_sample *value =
		    &scrape.samples[set.series[s].value - 1];
		const struct om_label *label =
		    &scrape.labels[set.series[s].label_first];
		/* Each kept series has its own first sample's value. */
		ck_assert_int_eq((int)value->value, label->value[0] - 'a' + 1);
	}
	ck_assert_msg(strstr(set.collision, "family m: {k=\"") != NULL &&
	                  strstr(set.collision, "has the id of") != NULL,
	    "%s", set.collision);
	om_series_set_free(&set);
	om_scrape_free(&scrape);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("openmetrics_collision");
	TCase *collision = tcase_create("collision");
	SRunner *runner;
	int failed;

	tcase_add_test(collision, colliding_label_sets_are_refused_not_merged);
	suite_add_tcase(suite, collision);
	runner = srunner_create(suite);
	srunner_set_fork_status(runner, CK_NOFORK);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
