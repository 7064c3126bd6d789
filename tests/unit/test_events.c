/*
 * Unit tests for src/model/events.c: the added/removed difference of two
 * snapshots' id arrays, the fixed-window rate limit, its "N per SECONDS"
 * form, the per-class summary of what the limit held back, and the sink
 * dci_snapshot_commit hands instance events to.
 */
#include "model/events.h"
#include "config/config.h"
#include "model/registry.h"
#include "model/snapshot.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#define RECORDED_MAX 16

/* What dci_events_difference reported, in order. */
struct recorded {
	size_t count;
	enum dci_events_kind kinds[RECORDED_MAX];
	uint32_t first_words[RECORDED_MAX];
	size_t positions[RECORDED_MAX];
};

static void
record(void *context, enum dci_events_kind kind, const uint32_t *id,
    size_t position)
{
	struct recorded *recorded = context;

	ck_assert_uint_lt(recorded->count, RECORDED_MAX);
	recorded->kinds[recorded->count] = kind;
	recorded->first_words[recorded->count] = id[0];
	recorded->positions[recorded->count] = position;
	recorded->count++;
}

START_TEST(difference_of_equal_snapshots_is_empty)
{
	static const uint32_t ids[] = {1, 2, 5};
	struct recorded recorded = {0};

	ck_assert_uint_eq(
	    dci_events_difference(ids, 3, ids, 3, 1, record, &recorded), 0);
	ck_assert_uint_eq(recorded.count, 0);
}
END_TEST

START_TEST(difference_reports_added_and_removed_in_id_order)
{
	static const uint32_t previous[] = {1, 2, 5, 9};
	static const uint32_t next[] = {2, 3, 5, 10, 11};
	struct recorded recorded = {0};

	ck_assert_uint_eq(dci_events_difference(previous, COUNT_OF(previous),
	                      next, COUNT_OF(next), 1, record, &recorded),
	    5);
	ck_assert_uint_eq(recorded.count, 5);
	/* 1 removed (previous position 0), 3 added (next position 1), 9
	 * removed (previous 3), 10 and 11 added (next 3 and 4). */
	ck_assert_int_eq(recorded.kinds[0], DCI_EVENTS_INSTANCE_REMOVED);
	ck_assert_uint_eq(recorded.first_words[0], 1);
	ck_assert_uint_eq(recorded.positions[0], 0);
	ck_assert_int_eq(recorded.kinds[1], DCI_EVENTS_INSTANCE_ADDED);
	ck_assert_uint_eq(recorded.first_words[1], 3);
	ck_assert_uint_eq(recorded.positions[1], 1);
	ck_assert_int_eq(recorded.kinds[2], DCI_EVENTS_INSTANCE_REMOVED);
	ck_assert_uint_eq(recorded.first_words[2], 9);
	ck_assert_uint_eq(recorded.positions[2], 3);
	ck_assert_int_eq(recorded.kinds[3], DCI_EVENTS_INSTANCE_ADDED);
	ck_assert_uint_eq(recorded.first_words[3], 10);
	ck_assert_uint_eq(recorded.positions[3], 3);
	ck_assert_int_eq(recorded.kinds[4], DCI_EVENTS_INSTANCE_ADDED);
	ck_assert_uint_eq(recorded.first_words[4], 11);
	ck_assert_uint_eq(recorded.positions[4], 4);
}
END_TEST

START_TEST(difference_from_and_to_nothing)
{
	static const uint32_t ids[] = {4, 7};
	struct recorded recorded = {0};

	ck_assert_uint_eq(
	    dci_events_difference(NULL, 0, ids, 2, 1, record, &recorded), 2);
	ck_assert_int_eq(recorded.kinds[0], DCI_EVENTS_INSTANCE_ADDED);
	ck_assert_int_eq(recorded.kinds[1], DCI_EVENTS_INSTANCE_ADDED);
	memset(&recorded, 0, sizeof(recorded));
	ck_assert_uint_eq(
	    dci_events_difference(ids, 2, NULL, 0, 1, record, &recorded), 2);
	ck_assert_int_eq(recorded.kinds[0], DCI_EVENTS_INSTANCE_REMOVED);
	ck_assert_uint_eq(recorded.first_words[1], 7);
	ck_assert_uint_eq(recorded.positions[1], 1);
}
END_TEST

START_TEST(difference_compares_every_word)
{
	/* Two-word ids sorted lexicographically: (1,2) stays, (1,3) goes,
	 * (2,1) comes. */
	static const uint32_t previous[] = {1, 2, 1, 3};
	static const uint32_t next[] = {1, 2, 2, 1};
	struct recorded recorded = {0};

	ck_assert_uint_eq(
	    dci_events_difference(previous, 2, next, 2, 2, record, &recorded),
	    2);
	ck_assert_int_eq(recorded.kinds[0], DCI_EVENTS_INSTANCE_REMOVED);
	ck_assert_uint_eq(recorded.positions[0], 1);
	ck_assert_int_eq(recorded.kinds[1], DCI_EVENTS_INSTANCE_ADDED);
	ck_assert_uint_eq(recorded.first_words[1], 2);
	ck_assert_uint_eq(recorded.positions[1], 1);
}
END_TEST

START_TEST(rate_limit_admits_limit_per_window)
{
	struct dci_events_rate_limit rate;

	dci_events_rate_limit_init(&rate, 3, 10000);
	ck_assert(dci_events_rate_limit_window_over(&rate, 0));
	ck_assert(dci_events_rate_limit_admit(&rate, 1000));
	ck_assert(dci_events_rate_limit_admit(&rate, 1500));
	ck_assert(dci_events_rate_limit_admit(&rate, 2000));
	ck_assert(!dci_events_rate_limit_admit(&rate, 2001));
	ck_assert(!dci_events_rate_limit_admit(&rate, 10999));
	ck_assert(!dci_events_rate_limit_window_over(&rate, 10999));
	/* The window opened at 1000 ends at 11000. */
	ck_assert(dci_events_rate_limit_window_over(&rate, 11000));
	ck_assert(dci_events_rate_limit_admit(&rate, 11000));
	ck_assert_uint_eq(rate.admitted, 1);
	ck_assert_int_eq(rate.window_start_milliseconds, 11000);
}
END_TEST

START_TEST(rate_limit_zero_is_unlimited)
{
	struct dci_events_rate_limit rate;

	dci_events_rate_limit_init(&rate, 0, 1000);
	for (int i = 0; i < 1000; i++)
		ck_assert(dci_events_rate_limit_admit(&rate, 5));
	ck_assert(dci_events_rate_limit_window_over(&rate, 5));
}
END_TEST

START_TEST(rate_limit_clock_going_back_opens_a_window)
{
	struct dci_events_rate_limit rate;

	dci_events_rate_limit_init(&rate, 1, 60000);
	ck_assert(dci_events_rate_limit_admit(&rate, 100000));
	ck_assert(!dci_events_rate_limit_admit(&rate, 100001));
	ck_assert(dci_events_rate_limit_admit(&rate, 50));
	ck_assert_int_eq(rate.window_start_milliseconds, 50);
}
END_TEST

/* One row of the rate-limit parse table: text, and what it must give
 * (ok false: refused). */
static const struct {
	const char *text;
	bool ok;
	uint32_t limit;
	int64_t window_milliseconds;
} parse_rows[] = {
    {"10 per 60", true, 10, 60000},
    {"  1\tper  1 ", true, 1, 1000},
    {"1000000 per 86400", true, 1000000, 86400000},
    {"0 per 60", false, 0, 0},
    {"1000001 per 60", false, 0, 0},
    {"10 per 86401", false, 0, 0},
    {"10 per 0", false, 0, 0},
    {"10per 60", false, 0, 0},
    {"10 per60", false, 0, 0},
    {"10 every 60", false, 0, 0},
    {"10 per 60 s", false, 0, 0},
    {"-1 per 60", false, 0, 0},
    {"10 per -60", false, 0, 0},
    {"99999999999999999999 per 60", false, 0, 0},
    {"", false, 0, 0},
};

START_TEST(rate_limit_parse_table)
{
	uint32_t limit = 7;
	int64_t window = 7;
	char why[160] = "";
	int result = dci_events_rate_limit_parse(
	    parse_rows[_i].text, &limit, &window, why, sizeof(why));

	if (parse_rows[_i].ok) {
		ck_assert_int_eq(result, 0);
		ck_assert_uint_eq(limit, parse_rows[_i].limit);
		ck_assert_int_eq(window, parse_rows[_i].window_milliseconds);
	} else {
		ck_assert_int_eq(result, -1);
		ck_assert_uint_eq(limit, 7);
		ck_assert_int_eq(window, 7);
		ck_assert_str_eq(why, "expected \"N per SECONDS\" with N in "
		                      "1..1000000 and SECONDS in 1..86400");
	}
}
END_TEST

START_TEST(summary_counts_and_takes_once)
{
	struct dci_events_summary summary = {0}, taken = {99, 99, 99};

	ck_assert(!dci_events_summary_take(&summary, &taken));
	ck_assert_uint_eq(taken.added, 99);
	for (int i = 0; i < 197; i++)
		dci_events_summary_count(&summary, DCI_EVENTS_INSTANCE_ADDED);
	dci_events_summary_count(&summary, DCI_EVENTS_INSTANCE_REMOVED);
	dci_events_summary_count(&summary, DCI_EVENTS_DATA_CHANGED);
	dci_events_summary_count(&summary, DCI_EVENTS_DATA_CHANGED);
	ck_assert(dci_events_summary_take(&summary, &taken));
	ck_assert_uint_eq(taken.added, 197);
	ck_assert_uint_eq(taken.removed, 1);
	ck_assert_uint_eq(taken.changed, 2);
	ck_assert(!dci_events_summary_take(&summary, &taken));
	/* Changes alone make a summary too. */
	dci_events_summary_count(&summary, DCI_EVENTS_DATA_CHANGED);
	ck_assert(dci_events_summary_take(&summary, &taken));
	ck_assert_uint_eq(taken.added, 0);
	ck_assert_uint_eq(taken.changed, 1);
}
END_TEST

/* The burst the integration test is to make, at the unit level: 200
 * instances appear in one commit under "10 per 60"; 10 go out one by one,
 * 190 are held back, and one summary says so when the window ends. */
struct burst {
	struct dci_events_rate_limit rate;
	struct dci_events_summary summary;
	int64_t now;
	size_t sent;
};

static void
burst_report(void *context, enum dci_events_kind kind, const uint32_t *id,
    size_t position)
{
	struct burst *burst = context;

	(void)id;
	(void)position;
	if (dci_events_rate_limit_admit(&burst->rate, burst->now))
		burst->sent++;
	else
		dci_events_summary_count(&burst->summary, kind);
}

START_TEST(burst_is_limited_then_summarised)
{
	uint32_t next[200];
	struct burst burst = {.now = 5000};
	struct dci_events_summary taken;

	for (uint32_t i = 0; i < COUNT_OF(next); i++)
		next[i] = i + 1;
	dci_events_rate_limit_init(&burst.rate, 10, 60000);
	ck_assert_uint_eq(dci_events_difference(NULL, 0, next, COUNT_OF(next),
	                      1, burst_report, &burst),
	    200);
	ck_assert_uint_eq(burst.sent, 10);
	ck_assert(!dci_events_rate_limit_window_over(&burst.rate, 64999));
	ck_assert(dci_events_rate_limit_window_over(&burst.rate, 65000));
	ck_assert(dci_events_summary_take(&burst.summary, &taken));
	ck_assert_uint_eq(taken.added, 190);
	ck_assert_uint_eq(taken.removed, 0);
}
END_TEST

/* What the sink received, labels copied (they live only during the call). */
struct sunk {
	size_t count;
	const struct dci_class *classes[RECORDED_MAX];
	enum dci_events_kind kinds[RECORDED_MAX];
	uint32_t ids[RECORDED_MAX];
	char labels[RECORDED_MAX][16];
};

static void
sink(void *context, const struct dci_events_instance *event)
{
	struct sunk *sunk = context;

	ck_assert_uint_lt(sunk->count, RECORDED_MAX);
	sunk->classes[sunk->count] = event->class;
	sunk->kinds[sunk->count] = event->kind;
	sunk->ids[sunk->count] = event->id[0];
	snprintf(sunk->labels[sunk->count], sizeof(sunk->labels[0]), "%s",
	    event->label);
	sunk->count++;
}

/* Commits instances `ids` labelled "if<id>" to `class`. */
static void
commit_interfaces(struct dci_class *class, const uint32_t *ids, size_t count,
    int64_t now_milliseconds)
{
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);

	ck_assert_ptr_nonnull(builder);
	for (size_t i = 0; i < count; i++) {
		char label[16];
		long row;

		snprintf(label, sizeof(label), "if%u", ids[i]);
		row = fx_add(builder, &ids[i], 1, label);
		fx_set_unsigned(builder, row, 1, 1500);
	}
	fx_commit(builder, class, now_milliseconds);
}

static struct dci_class *
interface_class(struct dci_registry *registry)
{
	static const uint32_t class_id[] = {1, 1};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_INTERFACE, 4},
	};
	struct dci_datum_info datums[] = {
	    fx_datum(1, "mtu", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	};
	struct dci_class_info info = fx_class_info(
	    class_id, 2, "netif", levels, 1, datums, COUNT_OF(datums));

	return fx_class(registry, fx_supplier(registry, "netif"), &info);
}

START_TEST(commit_hands_changes_to_the_sink_not_the_population)
{
	static const uint32_t first[] = {3, 1, 2}, second[] = {2, 4, 3};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class;
	struct sunk sunk = {0};

	ck_assert_ptr_nonnull(registry);
	class = interface_class(registry);
	dci_events_set_sink(sink, &sunk);
	/* The first snapshot is the population: nothing. */
	commit_interfaces(class, first, COUNT_OF(first), 1000);
	ck_assert_uint_eq(sunk.count, 0);
	/* The same instances again: nothing. */
	commit_interfaces(class, first, COUNT_OF(first), 2000);
	ck_assert_uint_eq(sunk.count, 0);
	/* 1 left, 4 came, with their labels. */
	commit_interfaces(class, second, COUNT_OF(second), 3000);
	ck_assert_uint_eq(sunk.count, 2);
	ck_assert_ptr_eq(sunk.classes[0], class);
	ck_assert_int_eq(sunk.kinds[0], DCI_EVENTS_INSTANCE_REMOVED);
	ck_assert_uint_eq(sunk.ids[0], 1);
	ck_assert_str_eq(sunk.labels[0], "if1");
	ck_assert_int_eq(sunk.kinds[1], DCI_EVENTS_INSTANCE_ADDED);
	ck_assert_uint_eq(sunk.ids[1], 4);
	ck_assert_str_eq(sunk.labels[1], "if4");
	/* Without a sink a change goes nowhere. */
	dci_events_set_sink(NULL, NULL);
	commit_interfaces(class, first, COUNT_OF(first), 4000);
	ck_assert_uint_eq(sunk.count, 2);
	dci_registry_free(registry);
}
END_TEST

START_TEST(commit_after_withdrawal_is_no_change)
{
	static const uint32_t first[] = {1, 2}, second[] = {2, 5};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class;
	struct sunk sunk = {0};

	ck_assert_ptr_nonnull(registry);
	class = interface_class(registry);
	dci_events_set_sink(sink, &sunk);
	commit_interfaces(class, first, COUNT_OF(first), 1000);
	/* Withdrawn as stale, as the loader does when a provider is down. */
	class->stale_snapshot = class->snapshot;
	class->snapshot = NULL;
	commit_interfaces(class, second, COUNT_OF(second), 2000);
	ck_assert_uint_eq(sunk.count, 0);
	ck_assert_ptr_null(class->stale_snapshot);
	dci_events_set_sink(NULL, NULL);
	dci_registry_free(registry);
}
END_TEST

/* What the sink got for data changes: "KIND id datum old>new" lines. */
struct changes {
	size_t count;
	char lines[RECORDED_MAX][96];
};

static void
change_sink(void *context, const struct dci_events_instance *event)
{
	struct changes *changes = context;

	ck_assert_uint_lt(changes->count, RECORDED_MAX);
	if (event->kind == DCI_EVENTS_DATA_CHANGED)
		snprintf(changes->lines[changes->count++],
		    sizeof(changes->lines[0]), "changed %u %s %s %s>%s",
		    event->id[0], event->label, event->datum->info.label,
		    event->old_value, event->new_value);
	else
		snprintf(changes->lines[changes->count++],
		    sizeof(changes->lines[0]), "%s %u %s",
		    event->kind == DCI_EVENTS_INSTANCE_ADDED ? "added"
		                                             : "removed",
		    event->id[0], event->label);
}

/* An interface as the data-change tests commit it. */
struct interface {
	uint32_t id;
	const char *name;
	uint64_t mtu; /* 0: no value */
	uint64_t packets;
};

static struct dci_class *
watched_class(struct dci_registry *registry)
{
	static const uint32_t class_id[] = {1, 1};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_INTERFACE, 4},
	};
	struct dci_datum_info datums[] = {
	    fx_datum(1, "mtu", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	    fx_datum(2, "name", DCI_ST_STRING, 0, 16, DCI_SEMANTICS_DISCRETE),
	    fx_datum(3, "packets", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	};
	struct dci_class_info info = fx_class_info(
	    class_id, 2, "netif", levels, 1, datums, COUNT_OF(datums));

	return fx_class(registry, fx_supplier(registry, "netif"), &info);
}

static void
commit_watched(struct dci_class *class, const struct interface *interfaces,
    size_t count, int64_t now_milliseconds)
{
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);

	ck_assert_ptr_nonnull(builder);
	for (size_t i = 0; i < count; i++) {
		long row =
		    fx_add(builder, &interfaces[i].id, 1, interfaces[i].name);

		if (interfaces[i].mtu != 0)
			fx_set_unsigned(builder, row, 1, interfaces[i].mtu);
		fx_set_bytes(builder, row, 2, interfaces[i].name,
		    strlen(interfaces[i].name));
		fx_set_unsigned(builder, row, 3, interfaces[i].packets);
	}
	fx_commit(builder, class, now_milliseconds);
}

START_TEST(commit_hands_watched_data_changes_in_id_order)
{
	static const struct interface first[] = {
	    {1, "lo", 65536, 10},
	    {2, "eth0", 1500, 10},
	    {3, "eth1", 1500, 10},
	    {5, "eth9", 1500, 10},
	};
	/* Every counter grows (no event); 2's MTU and 3's name change, 5's
	 * MTU goes away; 1 is removed and 4 added. */
	static const struct interface second[] = {
	    {2, "eth0", 9000, 20},
	    {3, "wan", 1500, 20},
	    {4, "eth2", 1500, 20},
	    {5, "eth9", 0, 20},
	};
	char *datums[] = {"mtu", "name", "packets"};
	const struct dci_events_watch watch = {
	    .class_name = "netif",
	    .datums = datums,
	    .datum_count = COUNT_OF(datums),
	};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class;
	struct changes changes = {0};

	ck_assert_ptr_nonnull(registry);
	class = watched_class(registry);
	ck_assert_int_eq(dci_events_set_watches(&watch, 1), 0);
	dci_events_set_sink(change_sink, &changes);
	commit_watched(class, first, COUNT_OF(first), 1000);
	ck_assert_uint_eq(changes.count, 0);
	/* Only the counters moved: nothing. */
	{
		struct interface same[COUNT_OF(first)];

		memcpy(same, first, sizeof(same));
		for (size_t i = 0; i < COUNT_OF(same); i++)
			same[i].packets += 5;
		commit_watched(class, same, COUNT_OF(same), 2000);
	}
	ck_assert_uint_eq(changes.count, 0);
	commit_watched(class, second, COUNT_OF(second), 3000);
	ck_assert_uint_eq(changes.count, 5);
	ck_assert_str_eq(changes.lines[0], "removed 1 lo");
	ck_assert_str_eq(changes.lines[1], "changed 2 eth0 mtu 1500>9000");
	ck_assert_str_eq(changes.lines[2], "changed 3 wan name eth1>wan");
	ck_assert_str_eq(changes.lines[3], "added 4 eth2");
	ck_assert_str_eq(changes.lines[4], "changed 5 eth9 mtu 1500>");
	/* The class named by its id, and no watch at all. */
	{
		const struct dci_events_watch by_id = {
		    .class_name = "1.1",
		    .datums = datums,
		    .datum_count = 1,
		};

		ck_assert_int_eq(dci_events_set_watches(&by_id, 1), 0);
		commit_watched(class, first, COUNT_OF(first), 4000);
		/* 1 added, 4 removed, 2 and 5 changed their mtu back. */
		ck_assert_uint_eq(changes.count, 9);
		ck_assert_str_eq(
		    changes.lines[6], "changed 2 eth0 mtu 9000>1500");
		ck_assert_str_eq(changes.lines[8], "changed 5 eth9 mtu >1500");
	}
	ck_assert_int_eq(dci_events_set_watches(NULL, 0), 0);
	commit_watched(class, second, COUNT_OF(second), 5000);
	ck_assert_uint_eq(changes.count, 11);
	dci_events_set_sink(NULL, NULL);
	dci_registry_free(registry);
}
END_TEST

START_TEST(check_watches_refuses_unknown_datums_and_counters)
{
	char *known[] = {"mtu", "name"}, *unknown[] = {"mtu", "mtux"},
	     *counter[] = {"packets"}, *any[] = {"speed"};
	struct dci_config_position positions[2] = {
	    {"dcistatd.yaml", 7, 12}, {"dcistatd.yaml", 7, 17}};
	struct dci_config_watch watches[] = {
	    {{"dcistatd.yaml", 6, 5}, "netif", known, positions, 2},
	    {{"dcistatd.yaml", 8, 5}, "nothing", any, positions, 1},
	};
	struct dci_config config = {.notifications = {
	                                .data_changed = watches,
	                                .data_changed_count = COUNT_OF(watches),
	                            }};
	struct dci_registry *registry = dci_registry_new();
	char error[256] = "";

	ck_assert_ptr_nonnull(registry);
	(void)watched_class(registry);
	/* Known datums; a class not (yet) registered is no error. */
	ck_assert_int_eq(
	    dci_config_check_watches(&config, registry, error, sizeof(error)),
	    0);
	watches[0].datums = unknown;
	ck_assert_int_eq(
	    dci_config_check_watches(&config, registry, error, sizeof(error)),
	    -1);
	ck_assert_str_eq(error, "dcistatd.yaml:7:17: data-changed: class "
	                        "\"netif\" has no datum \"mtux\"");
	watches[0].datums = counter;
	watches[0].datum_count = 1;
	ck_assert_int_eq(
	    dci_config_check_watches(&config, registry, error, sizeof(error)),
	    -1);
	ck_assert_str_eq(error,
	    "dcistatd.yaml:7:12: data-changed: datum \"packets\" of class "
	    "\"netif\" is a counter (its rate is what changes); expected a "
	    "gauge, a text, an address, a time or a boolean");
	dci_registry_free(registry);
}
END_TEST

static Suite *
events_suite(void)
{
	Suite *suite = suite_create("events");
	TCase *difference = tcase_create("difference");
	TCase *rate = tcase_create("rate_limit");
	TCase *commit = tcase_create("commit");

	tcase_add_test(difference, difference_of_equal_snapshots_is_empty);
	tcase_add_test(
	    difference, difference_reports_added_and_removed_in_id_order);
	tcase_add_test(difference, difference_from_and_to_nothing);
	tcase_add_test(difference, difference_compares_every_word);
	suite_add_tcase(suite, difference);
	tcase_add_test(rate, rate_limit_admits_limit_per_window);
	tcase_add_test(rate, rate_limit_zero_is_unlimited);
	tcase_add_test(rate, rate_limit_clock_going_back_opens_a_window);
	tcase_add_loop_test(
	    rate, rate_limit_parse_table, 0, (int)COUNT_OF(parse_rows));
	tcase_add_test(rate, summary_counts_and_takes_once);
	tcase_add_test(rate, burst_is_limited_then_summarised);
	suite_add_tcase(suite, rate);
	tcase_add_test(
	    commit, commit_hands_changes_to_the_sink_not_the_population);
	tcase_add_test(commit, commit_after_withdrawal_is_no_change);
	tcase_add_test(commit, commit_hands_watched_data_changes_in_id_order);
	tcase_add_test(
	    commit, check_watches_refuses_unknown_datums_and_counters);
	suite_add_tcase(suite, commit);
	return suite;
}

int
main(void)
{
	return unit_run_suite(events_suite());
}
