/* Loading provider plug-ins: file, symbol and ABI checks, options, init,
 * refresh periods, failure and back-off. Uses the test plug-ins built next
 * to this test (good_provider, bad_abi_provider, no_entry_provider). */
#define _GNU_SOURCE
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "runtime/host.h"
#include "runtime/loader.h"
#include "runtime_fixtures.h"
#include "base/log.h"
#include "model/events.h"
#include "model/registry.h"
#include "model/snapshot.h"

#ifndef TEST_PROVIDER_DIR
#error "TEST_PROVIDER_DIR must name the directory of the test plug-ins"
#endif

static char error[2048];

struct loaded {
	struct dci_config *config;
	struct dci_registry *registry;
	struct dci_plugins plugins;
	int result;
};

/* Parses `providers_yaml` (the providers: section) with the test plug-in
 * directory and loads it. */
static struct loaded
load(const char *providers_yaml)
{
	struct loaded loaded = {0};
	char *text;

	ck_assert_int_ge(
	    asprintf(&text, "agent:\n  plugin-dir: %s\nproviders:\n%s",
	        TEST_PROVIDER_DIR, providers_yaml),
	    0);
	error[0] = '\0';
	ck_assert_msg(dci_config_parse(text, strlen(text), "t.yaml",
	                  &loaded.config, error, sizeof(error)) == 0,
	    "config: %s", error);
	free(text);
	loaded.registry = dci_registry_new();
	loaded.result =
	    dci_plugins_load(loaded.config, "/nonexistent", loaded.registry,
	        DCI_LOAD_STRICT, &loaded.plugins, error, sizeof(error));
	return loaded;
}

static void
unload(struct loaded *loaded)
{
	dci_plugins_close(&loaded->plugins);
	dci_registry_free(loaded->registry);
	dci_config_free(loaded->config);
}

static uint64_t
counter_of(const struct dci_class *class, uint32_t instance_id)
{
	const struct dci_datum *datum = dci_class_find_datum(class, 1);
	long row = dci_snapshot_find(class, class->snapshot, &instance_id);
	struct dci_value value;

	ck_assert_ptr_nonnull(datum);
	ck_assert_int_ge(row, 0);
	dci_value_decode(&datum->info,
	    dci_snapshot_slot(class, class->snapshot, (size_t)row, datum),
	    &value);
	return value.number;
}

START_TEST(missing_file_names_the_path)
{
	struct dci_plugin *plugin =
	    dci_plugin_open("nosuch", TEST_PROVIDER_DIR, error, sizeof(error));

	ck_assert_ptr_null(plugin);
	ck_assert_str_eq(error,
	    TEST_PROVIDER_DIR "/nosuch.so: provider \"nosuch\": No such file "
	                      "or directory");
}
END_TEST

START_TEST(relative_path_refused)
{
	ck_assert_ptr_null(
	    dci_plugin_open("lib/x.so", "/d", error, sizeof(error)));
	ck_assert_str_eq(error,
	    "lib/x.so: provider module must be a name or an absolute path");
}
END_TEST

START_TEST(no_entry_symbol_refused)
{
	ck_assert_ptr_null(dci_plugin_open(
	    "no_entry_provider", TEST_PROVIDER_DIR, error, sizeof(error)));
	ck_assert_str_eq(error,
	    TEST_PROVIDER_DIR "/no_entry_provider.so: not a dcistat provider: "
	                      "no symbol dci_provider_entry");
}
END_TEST

START_TEST(other_abi_version_refused)
{
	ck_assert_ptr_null(
	    dci_plugin_open(TEST_PROVIDER_DIR "/bad_abi_provider.so", "/unused",
	        error, sizeof(error)));
	ck_assert_str_eq(error,
	    TEST_PROVIDER_DIR "/bad_abi_provider.so: provider ABI version 42, "
	                      "this dcistatd supports 1: rebuild the provider "
	                      "against this dcistat");
}
END_TEST

START_TEST(good_provider_registers_and_refreshes)
{
	struct loaded loaded = load(
	    "  - module: good_provider\n    options:\n      instances: 4\n");
	const struct dci_class *class;

	ck_assert_msg(loaded.result == 0, "%s", error);
	ck_assert_uint_eq(loaded.registry->supplier_count, 1);
	ck_assert_str_eq(loaded.registry->suppliers[0]->module, "good");
	ck_assert_str_eq(loaded.registry->suppliers[0]->provider_name, "good");
	ck_assert_uint_eq(loaded.registry->class_count, 1);
	class = loaded.registry->classes[0];
	ck_assert_str_eq(class->label, "good");
	ck_assert_ptr_null(class->snapshot);

	dci_plugins_refresh_all(&loaded.plugins, 1000);
	ck_assert_ptr_nonnull(class->snapshot);
	ck_assert_uint_eq(class->snapshot->count, 4);
	ck_assert_str_eq(class->snapshot->instances[1].label, "unit2");
	ck_assert_uint_eq(counter_of(class, 2), 201);
	ck_assert_uint_eq(counter_of(class, 4), 401);
	ck_assert_int_eq(
	    loaded.registry->suppliers[0]->status, DCI_SUPPLIER_RUNNING);
	unload(&loaded);
}
END_TEST

START_TEST(refresh_runs_only_when_due)
{
	struct loaded loaded =
	    load("  - module: good_provider\n    refresh: 0.5\n");
	const struct dci_class *class;

	ck_assert_msg(loaded.result == 0, "%s", error);
	class = loaded.registry->classes[0];
	dci_plugins_refresh_all(&loaded.plugins, 10000);
	ck_assert_uint_eq(counter_of(class, 1), 101);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 10499), 0);
	ck_assert_uint_eq(counter_of(class, 1), 101);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 10500), 1);
	ck_assert_uint_eq(counter_of(class, 1), 102);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 10999), 0);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 11000), 1);
	ck_assert_uint_eq(counter_of(class, 3), 303);
	unload(&loaded);
}
END_TEST

START_TEST(failed_refresh_keeps_snapshot_and_backs_off)
{
	struct loaded loaded = load("  - module: good_provider\n    options:\n "
	                            "     fail_refresh: yes\n");
	struct dci_plugin *plugin;
	const struct dci_class *class;

	ck_assert_msg(loaded.result == 0, "%s", error);
	plugin = loaded.plugins.items[0];
	class = loaded.registry->classes[0];
	dci_plugins_refresh_all(&loaded.plugins, 5000);
	ck_assert_uint_eq(counter_of(class, 1), 101);

	/* Second refresh fails: previous snapshot served, supplier failed,
	 * retried after one period, then two, four... */
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 6000), 1);
	ck_assert_int_eq(
	    loaded.registry->suppliers[0]->status, DCI_SUPPLIER_FAILED);
	ck_assert_uint_eq(counter_of(class, 1), 101);
	ck_assert_uint_eq(plugin->consecutive_failures, 1);
	ck_assert_int_eq(plugin->next_refresh_milliseconds, 7000);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 7000), 1);
	ck_assert_int_eq(plugin->next_refresh_milliseconds, 9000);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 9000), 1);
	ck_assert_int_eq(plugin->next_refresh_milliseconds, 13000);
	/* The delay doubles up to a minute and stays there. */
	{
		int64_t now = 13000;
		while (plugin->consecutive_failures < 12) {
			now = plugin->next_refresh_milliseconds;
			ck_assert_uint_eq(
			    dci_plugins_run_due(&loaded.plugins, now), 1);
		}
		ck_assert_int_eq(
		    plugin->next_refresh_milliseconds - now, 60000);
	}
	unload(&loaded);
}
END_TEST

START_TEST(unknown_option_names_position)
{
	struct loaded loaded = load(
	    "  - module: good_provider\n    options:\n      colour: red\n");

	ck_assert_int_eq(loaded.result, -1);
	ck_assert_str_eq(error,
	    "t.yaml:6:7: unknown option 'colour' for provider good: expected "
	    "one of instances, fail_refresh, parents, invalid_even, "
	    "refresh_limit, discontinuous, init_needs, refresh_fails_while, "
	    "refresh_sleeps_while, count32_file, dynamic_supplier_file, "
	    "crash_while, supplier_failure_file, row_setter, start_log, "
	    "start_fails_while");
	ck_assert_uint_eq(loaded.registry->class_count, 0);
	unload(&loaded);
}
END_TEST

START_TEST(failed_init_is_an_error)
{
	struct loaded loaded = load(
	    "  - module: good_provider\n    options:\n      instances: lots\n");

	ck_assert_int_eq(loaded.result, -1);
	ck_assert_str_eq(error,
	    "t.yaml:4:13: " TEST_PROVIDER_DIR
	    "/good_provider.so: provider good failed to initialise: "
	    "t.yaml:6:7: option 'instances': expected a number in range");
	ck_assert_uint_eq(loaded.plugins.count, 0);
	unload(&loaded);
}
END_TEST

START_TEST(boolean_option_and_parents_reach_the_snapshot)
{
	static const char *const spellings[] = {"yes", "True", "on"};
	char *yaml;
	struct loaded loaded;
	const struct dci_class *class;

	ck_assert_int_ge(asprintf(&yaml,
	                     "  - module: good_provider\n    options:\n"
	                     "      parents: %s\n",
	                     spellings[_i]),
	    0);
	loaded = load(yaml);
	free(yaml);
	ck_assert_msg(loaded.result == 0, "%s", error);
	class = loaded.registry->classes[0];
	dci_plugins_refresh_all(&loaded.plugins, 1000);
	ck_assert_uint_eq(class->snapshot->count, 3);
	ck_assert_ptr_null(dci_snapshot_parent_id(class, class->snapshot, 0));
	for (size_t i = 1; i < 3; i++) {
		const uint32_t *parent =
		    dci_snapshot_parent_id(class, class->snapshot, i);
		ck_assert_ptr_nonnull(parent);
		ck_assert_uint_eq(parent[0], 1);
	}
	unload(&loaded);
}
END_TEST

START_TEST(boolean_option_false_and_bad_value)
{
	struct loaded loaded = load(
	    "  - module: good_provider\n    options:\n      parents: off\n");
	const struct dci_class *class;

	ck_assert_msg(loaded.result == 0, "%s", error);
	class = loaded.registry->classes[0];
	dci_plugins_refresh_all(&loaded.plugins, 1000);
	ck_assert_ptr_null(dci_snapshot_parent_id(class, class->snapshot, 2));
	ck_assert_ptr_null(class->snapshot->parents);
	unload(&loaded);

	loaded = load(
	    "  - module: good_provider\n    options:\n      parents: maybe\n");
	ck_assert_int_eq(loaded.result, -1);
	ck_assert_uint_eq(loaded.plugins.count, 0);
	unload(&loaded);
}
END_TEST

START_TEST(empty_list_option_is_present)
{
	struct loaded loaded =
	    load("  - module: good_provider\n    options:\n"
	         "      instances: 2\n      fail_refresh: []\n");
	struct dci_host *host;

	ck_assert_msg(loaded.result == 0, "%s", error);
	host = &loaded.plugins.items[0]->host;
	/* Given as an empty list: present, with no item and no string. */
	ck_assert_int_eq(dci_option_present(host, "fail_refresh"), 1);
	ck_assert_uint_eq(dci_option_count(host, "fail_refresh"), 0);
	ck_assert_ptr_null(dci_option_string(host, "fail_refresh"));
	ck_assert_int_eq(dci_option_present(host, "instances"), 1);
	ck_assert_int_eq(dci_option_present(host, "parents"), 0);
	ck_assert_int_eq(dci_option_present(host, "no such key"), 0);
	unload(&loaded);
}
END_TEST

START_TEST(invalid_values_are_absent)
{
	struct loaded loaded =
	    load("  - module: good_provider\n    options:\n"
	         "      instances: 4\n      invalid_even: yes\n");
	const struct dci_class *class;
	const struct dci_datum *count;

	ck_assert_msg(loaded.result == 0, "%s", error);
	class = loaded.registry->classes[0];
	count = dci_class_find_datum(class, 1);
	dci_plugins_refresh_all(&loaded.plugins, 1000);
	ck_assert_uint_eq(class->snapshot->count, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(
		    dci_snapshot_present(class, class->snapshot, i, count),
		    i % 2 == 0); /* instance ids 1..4 at positions 0..3 */
	ck_assert_uint_eq(counter_of(class, 3), 301);
	unload(&loaded);
}
END_TEST

START_TEST(refresh_limit_lowers_the_period)
{
	struct loaded loaded =
	    load("  - module: good_provider\n    refresh: 2\n    options:\n"
	         "      refresh_limit: 750\n");
	struct dci_plugin *plugin;

	ck_assert_msg(loaded.result == 0, "%s", error);
	plugin = loaded.plugins.items[0];
	ck_assert_uint_eq(plugin->refresh_limit_milliseconds, 750);
	ck_assert_uint_eq(plugin->refresh_milliseconds, 750);
	dci_plugins_refresh_all(&loaded.plugins, 10000);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 10749), 0);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 10750), 1);
	/* After init the period is settled: a late limit is refused. */
	ck_assert_int_eq(dci_refresh_limit(&plugin->host, 10), -1);
	ck_assert_uint_eq(plugin->refresh_limit_milliseconds, 750);
	ck_assert_uint_eq(plugin->refresh_milliseconds, 750);
	unload(&loaded);
}
END_TEST

START_TEST(refresh_limit_above_the_period_keeps_it)
{
	struct loaded loaded =
	    load("  - module: good_provider\n    refresh: 0.5\n    options:\n"
	         "      refresh_limit: 60000\n");

	ck_assert_msg(loaded.result == 0, "%s", error);
	ck_assert_uint_eq(
	    loaded.plugins.items[0]->refresh_limit_milliseconds, 60000);
	ck_assert_uint_eq(loaded.plugins.items[0]->refresh_milliseconds, 500);
	unload(&loaded);
}
END_TEST

START_TEST(refresh_limit_of_zero_refused)
{
	/* good_provider fails its init when dci_refresh_limit does. */
	struct loaded loaded = load("  - module: good_provider\n    options:\n "
	                            "     refresh_limit: 0\n");

	ck_assert_int_eq(loaded.result, -1);
	unload(&loaded);
}
END_TEST

START_TEST(declared_discontinuity_sets_the_time)
{
	struct loaded loaded = load("  - module: good_provider\n    options:\n "
	                            "     discontinuous: 2\n");
	const struct dci_class *class;
	const struct dci_instance_state *states;
	int64_t first;

	ck_assert_msg(loaded.result == 0, "%s", error);
	class = loaded.registry->classes[0];
	dci_plugins_refresh_all(&loaded.plugins, 1000);
	states = class->snapshot->instances;
	first = states[1].discontinuity_milliseconds;
	ck_assert_int_eq(first, states[1].created_milliseconds);
	/* The host stamps commits with its clock: let it move. */
	usleep(20000);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 2000), 1);
	states = class->snapshot->instances;
	/* Its counter grew (101 -> 102), yet instance 2 is declared
	 * discontinuous; instances 1 and 3 are not. */
	ck_assert_uint_eq(counter_of(class, 2), 202);
	ck_assert_int_gt(states[1].discontinuity_milliseconds, first);
	ck_assert_int_eq(states[1].created_milliseconds, first);
	ck_assert_int_eq(states[0].discontinuity_milliseconds,
	    states[0].created_milliseconds);
	ck_assert_int_eq(states[2].discontinuity_milliseconds,
	    states[2].created_milliseconds);
	unload(&loaded);
}
END_TEST

static int
stub_batch_set_discontinuity(struct dci_batch *batch, long row)
{
	(void)batch;
	return row == 5 ? 0 : -1;
}

START_TEST(appended_calls_refused_by_an_older_host)
{
	struct dci_host_operations older = dci_host_operations;
	struct dci_host host = {&older};
	struct dci_batch batch = {&older};

	ck_assert_uint_eq(
	    dci_host_operations.size, sizeof(struct dci_host_operations));
	/* A host from before both calls: the wrappers answer -1 without
	 * reading past the table's size. */
	older.size =
	    offsetof(struct dci_host_operations, batch_set_discontinuity);
	older.batch_set_discontinuity = NULL;
	older.refresh_limit = NULL;
	ck_assert_int_eq(dci_batch_set_discontinuity(&batch, 5), -1);
	ck_assert_int_eq(dci_refresh_limit(&host, 1000), -1);
	/* One that has the first only. */
	older.size = offsetof(struct dci_host_operations, refresh_limit);
	older.batch_set_discontinuity = stub_batch_set_discontinuity;
	ck_assert_int_eq(dci_batch_set_discontinuity(&batch, 5), 0);
	ck_assert_int_eq(dci_refresh_limit(&host, 1000), -1);
	/* One from before dci_supplier_state. */
	older.size = offsetof(struct dci_host_operations, supplier_state);
	older.supplier_state = NULL;
	ck_assert_int_eq(dci_supplier_state(&host, NULL, "gone"), -1);
}
END_TEST

START_TEST(unknown_module_in_config_names_position)
{
	struct loaded loaded = load("  - module: nosuch\n");

	ck_assert_int_eq(loaded.result, -1);
	ck_assert_str_eq(error,
	    "t.yaml:4:13: " TEST_PROVIDER_DIR "/nosuch.so: provider "
	    "\"nosuch\": No such file or directory");
	unload(&loaded);
}
END_TEST

/* One refresh of the good provider's class by hand: instances 1 and 3 (when
 * asked) with an empty label, which is refused, and instance 2 with a
 * value for a datum the class lacks; `refuse` false commits a clean batch.
 * Returns how many warnings the commit logged. */
static size_t
refresh_with_refusals(
    struct dci_plugin *plugin, struct dci_class *class, bool refuse, bool third)
{
	const struct dci_host_operations *operations = plugin->host.operations;
	struct dci_batch *batch = operations->batch_begin(&plugin->host, class);
	static const uint32_t ids[] = {1, 2, 3, 4};
	/* Another value each time: a value refusal is known by its datum. */
	static uint64_t value;
	long row;

	ck_assert_ptr_nonnull(batch);
	rx_logged_count = 0;
	if (refuse) {
		ck_assert_int_eq(
		    operations->batch_instance(batch, &ids[0], 1, ""), -1);
		row = operations->batch_instance(batch, &ids[1], 1, "two");
		ck_assert_int_ge(row, 0);
		ck_assert_int_eq(
		    operations->batch_set_unsigned(batch, row, 999, value++),
		    -1);
		if (third)
			ck_assert_int_eq(
			    operations->batch_instance(batch, &ids[2], 1, ""),
			    -1);
	}
	/* A label of any bytes is served, escaped. */
	ck_assert_int_ge(
	    operations->batch_instance(batch, &ids[3], 1, "d\xc3\xa9v\t0"), 0);
	ck_assert_int_eq(operations->batch_commit(batch), 0);
	ck_assert_str_eq(
	    class->snapshot->instances[class->snapshot->count - 1].label,
	    "d\\xc3\\xa9v\\x090");
	return rx_logged_count;
}

/* A refusal is logged in the refresh it first appears, not every refresh. */
START_TEST(refusal_logged_once_per_instance)
{
	struct loaded loaded = load("  - module: good_provider\n");
	struct dci_plugin *plugin;
	struct dci_class *class;

	ck_assert_msg(loaded.result == 0, "%s", error);
	plugin = loaded.plugins.items[0];
	class = loaded.registry->classes[0];
	log_set_sink(rx_log_capture);

	ck_assert_uint_eq(refresh_with_refusals(plugin, class, true, false), 1);
	ck_assert_str_eq(rx_logged[0],
	    "provider good: class \"good\": 2 calls refused in this refresh "
	    "(2 not refused in the last), those rows are absent; first new: "
	    "instance 1 refused: empty label");
	/* The same refusals again: counted, not logged. */
	ck_assert_uint_eq(refresh_with_refusals(plugin, class, true, false), 0);
	ck_assert_uint_eq(refresh_with_refusals(plugin, class, true, false), 0);
	/* A new instance refused: that one is logged. */
	ck_assert_uint_eq(refresh_with_refusals(plugin, class, true, true), 1);
	ck_assert_str_eq(rx_logged[0],
	    "provider good: class \"good\": 3 calls refused in this refresh "
	    "(1 not refused in the last), those rows are absent; first new: "
	    "instance 3 refused: empty label");
	/* Gone, then back: logged again. */
	ck_assert_uint_eq(
	    refresh_with_refusals(plugin, class, false, false), 0);
	ck_assert_uint_eq(refresh_with_refusals(plugin, class, true, false), 1);

	log_set_sink(NULL);
	unload(&loaded);
}
END_TEST

/* Supplier state changes the loader reports (the agent's notifications). */
static enum dci_events_supplier_kind supplier_events[8];
static char
    supplier_event_failures[8][sizeof(((struct dci_supplier *)0)->failure)];
static size_t supplier_event_count;

static void
supplier_events_record(void *context, const struct dci_supplier *supplier,
    enum dci_events_supplier_kind kind)
{
	(void)context;
	if (supplier_event_count == 8)
		return;
	memcpy(supplier_event_failures[supplier_event_count], supplier->failure,
	    sizeof(supplier_event_failures[0]));
	supplier_events[supplier_event_count++] = kind;
}

/* Writes `text` to `path` whole (the test's supplier failure file). */
static void
text_file_write(const char *path, const char *text)
{
	FILE *file = fopen(path, "w");

	ck_assert_ptr_nonnull(file);
	ck_assert_int_ge(fputs(text, file), 0);
	ck_assert_int_eq(fclose(file), 0);
}

/* dci_supplier_state: a working provider's supplier shows the failure its
 * provider reported, recovers when told, a too-long reason is cut to the
 * failure field, a handle that is not a supplier is refused (the provider
 * fails its refresh otherwise), and a failed refresh of the whole provider
 * still shows its own reason. */
START_TEST(supplier_state_marks_one_supplier)
{
	char path[] = "/tmp/dcih29f-failure-XXXXXX";
	char *yaml;
	char long_reason[2048];
	struct loaded loaded;
	struct dci_supplier *supplier;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(path);
	ck_assert_int_ge(asprintf(&yaml,
	                     "  - module: good_provider\n    options:\n"
	                     "      supplier_failure_file: %s\n",
	                     path),
	    0);
	loaded = load(yaml);
	free(yaml);
	ck_assert_msg(loaded.result == 0, "%s", error);
	supplier = loaded.registry->suppliers[0];
	supplier_event_count = 0;
	dci_events_set_supplier_sink(supplier_events_record, NULL);

	dci_plugins_refresh_all(&loaded.plugins, 1000);
	ck_assert_int_eq(supplier->status, DCI_SUPPLIER_RUNNING);
	ck_assert_str_eq(supplier->failure, "");
	ck_assert_uint_eq(loaded.plugins.items[0]->consecutive_failures, 0);

	text_file_write(path, "scrape failed: connection refused\n");
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 2000), 1);
	ck_assert_uint_eq(loaded.plugins.items[0]->consecutive_failures, 0);
	ck_assert_int_eq(supplier->status, DCI_SUPPLIER_FAILED);
	ck_assert_str_eq(
	    supplier->failure, "scrape failed: connection refused");
	ck_assert_uint_eq(supplier_event_count, 1);
	ck_assert_int_eq(supplier_events[0], DCI_EVENTS_SUPPLIER_FAILED);
	ck_assert_str_eq(
	    supplier_event_failures[0], "scrape failed: connection refused");
	/* Kept over the next refresh that succeeds (suppliers_mark). */
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 3000), 1);
	ck_assert_int_eq(supplier->status, DCI_SUPPLIER_FAILED);
	ck_assert_str_eq(
	    supplier->failure, "scrape failed: connection refused");

	memset(long_reason, 'r', sizeof(long_reason) - 2);
	long_reason[sizeof(long_reason) - 2] = '\n';
	long_reason[sizeof(long_reason) - 1] = '\0';
	text_file_write(path, long_reason);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 4000), 1);
	ck_assert_int_eq(supplier->status, DCI_SUPPLIER_FAILED);
	ck_assert_uint_eq(
	    strlen(supplier->failure), sizeof(supplier->failure) - 1);
	ck_assert_int_eq(supplier->failure[0], 'r');

	unlink(path);
	ck_assert_uint_eq(dci_plugins_run_due(&loaded.plugins, 5000), 1);
	ck_assert_int_eq(supplier->status, DCI_SUPPLIER_RUNNING);
	ck_assert_str_eq(supplier->failure, "");
	ck_assert_uint_eq(loaded.plugins.items[0]->consecutive_failures, 0);
	/* One notification per change: failed, then recovered (a changed
	 * reason is no new failure). */
	ck_assert_uint_eq(supplier_event_count, 2);
	ck_assert_int_eq(supplier_events[1], DCI_EVENTS_SUPPLIER_RECOVERED);
	dci_events_set_supplier_sink(NULL, NULL);
	unload(&loaded);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("loader");
	TCase *cases = tcase_create("loader");
	SRunner *runner;
	int failed;

	tcase_add_test(cases, missing_file_names_the_path);
	tcase_add_test(cases, relative_path_refused);
	tcase_add_test(cases, no_entry_symbol_refused);
	tcase_add_test(cases, other_abi_version_refused);
	tcase_add_test(cases, good_provider_registers_and_refreshes);
	tcase_add_test(cases, refresh_runs_only_when_due);
	tcase_add_test(cases, failed_refresh_keeps_snapshot_and_backs_off);
	tcase_add_test(cases, unknown_option_names_position);
	tcase_add_loop_test(
	    cases, boolean_option_and_parents_reach_the_snapshot, 0, 3);
	tcase_add_test(cases, boolean_option_false_and_bad_value);
	tcase_add_test(cases, empty_list_option_is_present);
	tcase_add_test(cases, invalid_values_are_absent);
	tcase_add_test(cases, failed_init_is_an_error);
	tcase_add_test(cases, unknown_module_in_config_names_position);
	tcase_add_test(cases, refresh_limit_lowers_the_period);
	tcase_add_test(cases, refresh_limit_above_the_period_keeps_it);
	tcase_add_test(cases, refresh_limit_of_zero_refused);
	tcase_add_test(cases, declared_discontinuity_sets_the_time);
	tcase_add_test(cases, appended_calls_refused_by_an_older_host);
	tcase_add_test(cases, refusal_logged_once_per_instance);
	tcase_add_test(cases, supplier_state_marks_one_supplier);
	suite_add_tcase(suite, cases);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
