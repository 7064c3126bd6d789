/* The lifecycle: tolerant and strict loads, failed providers shown and
 * retried with back-off until they start, reload as a difference (kept,
 * added, removed, restarted; a bad file changes nothing), and stale
 * snapshots withdrawn and resumed with a discontinuity. Uses the test
 * plug-ins built next to this test and the example provider. */
#define _GNU_SOURCE
#include <check.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "runtime/lifecycle.h"
#include "model/snapshot.h"
#include "snmp/table_index.h"
#include "check_runner.h"

#ifndef TEST_PROVIDER_DIR
#error "TEST_PROVIDER_DIR must name the directory of the test plug-ins"
#endif
#ifndef TEST_EXAMPLE_PROVIDER
#error "TEST_EXAMPLE_PROVIDER must name the example provider"
#endif

static char error[2048];
static char directory[] = "/tmp/dcistat-lifecycle.XXXXXX";
static char config_path[256], marker_path[256];

static void
setup(void)
{
	strcpy(directory, "/tmp/dcistat-lifecycle.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(directory));
	snprintf(
	    config_path, sizeof(config_path), "%s/dcistatd.yaml", directory);
	snprintf(marker_path, sizeof(marker_path), "%s/marker", directory);
}

static void
teardown(void)
{
	unlink(marker_path);
	unlink(config_path);
	rmdir(directory);
}

/* Writes the configuration: the plug-in directory, then `providers`. */
static void
config_write(const char *providers)
{
	FILE *file = fopen(config_path, "w");

	ck_assert_ptr_nonnull(file);
	fprintf(file, "agent:\n  plugin-dir: %s\nproviders:\n%s",
	    TEST_PROVIDER_DIR, providers);
	ck_assert_int_eq(fclose(file), 0);
}

static void
marker_set(bool present)
{
	if (present) {
		FILE *file = fopen(marker_path, "w");
		ck_assert_ptr_nonnull(file);
		fclose(file);
	} else {
		unlink(marker_path);
	}
}

/* Loads the written configuration as a serving daemon does. */
static void
load_tolerant(struct dci_lifecycle *lifecycle)
{
	ck_assert_msg(dci_lifecycle_load(lifecycle, config_path, "/unused",
	                  DCI_LOAD_TOLERANT, error, sizeof(error)) == 0,
	    "%s", error);
}

static struct dci_class *
class_find(const struct dci_lifecycle *lifecycle, uint32_t first)
{
	for (size_t i = 0; i < lifecycle->registry->class_count; i++)
		if (lifecycle->registry->classes[i]->id[0] == first)
			return lifecycle->registry->classes[i];
	return NULL;
}

/* The supplier row with this module, or NULL (withdrawn rows are none). */
static const struct dci_supplier *
supplier_find(const struct dci_lifecycle *lifecycle, const char *module)
{
	for (size_t i = 0; i < lifecycle->registry->supplier_count; i++) {
		const struct dci_supplier *supplier =
		    lifecycle->registry->suppliers[i];
		if (!supplier->withdrawn &&
		    strcmp(supplier->module, module) == 0)
			return supplier;
	}
	return NULL;
}

START_TEST(tolerant_load_serves_the_others_and_shows_the_failure)
{
	struct dci_lifecycle lifecycle;
	const struct dci_supplier *failed;

	config_write("  - module: nosuch\n  - module: good_provider\n");
	load_tolerant(&lifecycle);
	ck_assert_uint_eq(lifecycle.plugins.count, 2);
	ck_assert_int_eq(lifecycle.plugins.items[0]->state, DCI_PLUGIN_FAILED);
	ck_assert_int_eq(lifecycle.plugins.items[1]->state, DCI_PLUGIN_RUNNING);
	ck_assert_ptr_nonnull(class_find(&lifecycle, 9));
	failed = supplier_find(&lifecycle, "nosuch");
	ck_assert_ptr_nonnull(failed);
	ck_assert_int_eq(failed->status, DCI_SUPPLIER_FAILED);
	ck_assert_uint_eq(failed->index, 1);
	ck_assert_msg(strstr(failed->failure, "dcistatd.yaml:4:13: ") != NULL &&
	                  strstr(failed->failure, "/nosuch.so") != NULL,
	    "failure: %s", failed->failure);
	ck_assert_int_eq(
	    supplier_find(&lifecycle, "good")->status, DCI_SUPPLIER_RUNNING);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

START_TEST(strict_load_refuses_a_failed_provider)
{
	struct dci_lifecycle lifecycle;

	config_write("  - module: good_provider\n  - module: nosuch\n");
	ck_assert_int_eq(dci_lifecycle_load(&lifecycle, config_path, "/unused",
	                     DCI_LOAD_STRICT, error, sizeof(error)),
	    -1);
	ck_assert_msg(strstr(error, "dcistatd.yaml:5:13: ") ==
	                  error + strlen(directory) + 1,
	    "error: %s", error);
	ck_assert_ptr_null(lifecycle.registry);
}
END_TEST

START_TEST(failed_start_is_retried_with_back_off_until_it_works)
{
	struct dci_lifecycle lifecycle;
	struct dci_plugin *plugin;
	const struct dci_supplier *row;
	uint32_t failed_index;
	char first_failure[sizeof(((struct dci_plugin *)0)->failure)];
	int64_t now, expected_delay = DCI_PLUGIN_RETRY_FIRST_MILLISECONDS;
	char providers[512];

	snprintf(providers, sizeof(providers),
	    "  - module: good_provider\n    options:\n      init_needs: %s\n",
	    marker_path);
	config_write(providers);
	load_tolerant(&lifecycle);
	plugin = lifecycle.plugins.items[0];
	ck_assert_int_eq(plugin->state, DCI_PLUGIN_FAILED);
	ck_assert_ptr_null(class_find(&lifecycle, 9));
	row = supplier_find(&lifecycle, "good_provider");
	ck_assert_ptr_nonnull(row);
	failed_index = row->index;
	snprintf(first_failure, sizeof(first_failure), "%s", plugin->failure);
	ck_assert_msg(strstr(row->failure, "failed to initialise") != NULL,
	    "%s", row->failure);

	/* Each failed try doubles the wait, up to the bound. */
	now = plugin->next_refresh_milliseconds;
	for (unsigned tries = 2; tries <= 10; tries++) {
		ck_assert_int_eq(dci_plugins_deadline(&lifecycle.plugins), now);
		ck_assert_uint_eq(
		    dci_plugins_run_due(&lifecycle.plugins, now - 1), 0);
		ck_assert_uint_eq(
		    dci_plugins_run_due(&lifecycle.plugins, now), 1);
		ck_assert_int_eq(plugin->state, DCI_PLUGIN_FAILED);
		ck_assert_uint_eq(plugin->consecutive_failures, tries);
		expected_delay *= 2;
		if (expected_delay > DCI_PLUGIN_BACKOFF_MAX_MILLISECONDS)
			expected_delay = DCI_PLUGIN_BACKOFF_MAX_MILLISECONDS;
		ck_assert_int_eq(
		    plugin->next_refresh_milliseconds, now + expected_delay);
		now = plugin->next_refresh_milliseconds;
		/* One row all along, with the same index; the same failure
		 * in the same words, so it is not logged as news. */
		ck_assert_uint_eq(
		    supplier_find(&lifecycle, "good_provider")->index,
		    failed_index);
		ck_assert_str_eq(plugin->failure, first_failure);
	}
	ck_assert_int_eq(expected_delay, DCI_PLUGIN_BACKOFF_MAX_MILLISECONDS);

	/* The cause goes: the next try starts it and refreshes it. */
	marker_set(true);
	ck_assert_uint_eq(dci_plugins_run_due(&lifecycle.plugins, now), 1);
	ck_assert_int_eq(plugin->state, DCI_PLUGIN_RUNNING);
	ck_assert_str_eq(plugin->failure, "");
	ck_assert_ptr_null(supplier_find(&lifecycle, "good_provider"));
	ck_assert_int_eq(
	    supplier_find(&lifecycle, "good")->status, DCI_SUPPLIER_RUNNING);
	ck_assert_ptr_nonnull(class_find(&lifecycle, 9));
	ck_assert_ptr_nonnull(class_find(&lifecycle, 9)->snapshot);
	ck_assert_uint_eq(class_find(&lifecycle, 9)->snapshot->count, 3);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

START_TEST(stale_snapshot_is_withdrawn_and_resumes_discontinuous)
{
	struct dci_lifecycle lifecycle;
	struct dci_plugin *plugin;
	struct dci_class *class;
	int64_t start, created;
	char providers[512];

	snprintf(providers, sizeof(providers),
	    "  - module: good_provider\n    refresh: 1\n    stale-periods: 3\n"
	    "    options:\n      refresh_fails_while: %s\n",
	    marker_path);
	config_write(providers);
	load_tolerant(&lifecycle);
	plugin = lifecycle.plugins.items[0];
	class = class_find(&lifecycle, 9);
	start = plugin->next_refresh_milliseconds;
	ck_assert_uint_eq(dci_plugins_run_due(&lifecycle.plugins, start), 1);
	ck_assert_ptr_nonnull(class->snapshot);
	created = class->snapshot->instances[0].created_milliseconds;
	ck_assert_int_eq(created, start);
	/* Due again one period later; stale three periods after the last
	 * snapshot. */
	ck_assert_int_eq(
	    dci_plugins_deadline(&lifecycle.plugins), start + 1000);

	marker_set(true);
	ck_assert_uint_eq(
	    dci_plugins_run_due(&lifecycle.plugins, start + 1000), 1);
	ck_assert_int_eq(
	    supplier_find(&lifecycle, "good")->status, DCI_SUPPLIER_FAILED);
	/* Still served while younger than three periods; retried after one
	 * period, then two. */
	ck_assert_ptr_nonnull(class->snapshot);
	ck_assert_int_eq(
	    dci_plugins_deadline(&lifecycle.plugins), start + 2000);
	ck_assert_uint_eq(
	    dci_plugins_run_due(&lifecycle.plugins, start + 2000), 1);
	ck_assert_ptr_nonnull(class->snapshot);
	ck_assert_int_eq(plugin->next_refresh_milliseconds, start + 4000);
	ck_assert_int_eq(
	    dci_plugins_deadline(&lifecycle.plugins), start + 3000);
	ck_assert_uint_eq(
	    dci_plugins_run_due(&lifecycle.plugins, start + 2999), 0);
	ck_assert_ptr_nonnull(class->snapshot);
	ck_assert_uint_eq(
	    dci_plugins_run_due(&lifecycle.plugins, start + 3000), 0);
	ck_assert_ptr_null(class->snapshot);
	ck_assert_ptr_nonnull(class->stale_snapshot);

	/* Back: the rows return, created when first seen, discontinuous
	 * now. */
	marker_set(false);
	ck_assert_uint_eq(dci_plugins_run_due(&lifecycle.plugins,
	                      plugin->next_refresh_milliseconds),
	    1);
	ck_assert_ptr_nonnull(class->snapshot);
	ck_assert_ptr_null(class->stale_snapshot);
	ck_assert_uint_eq(class->snapshot->count, 3);
	ck_assert_int_eq(
	    class->snapshot->instances[0].created_milliseconds, created);
	ck_assert_int_eq(
	    class->snapshot->instances[0].discontinuity_milliseconds,
	    class->snapshot->taken_milliseconds);
	ck_assert_int_gt(class->snapshot->taken_milliseconds, start + 3000);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

START_TEST(reload_applies_the_difference)
{
	struct dci_lifecycle lifecycle;
	struct dci_lifecycle_changes changes;
	struct dci_plugin *good;
	struct dci_class *class;
	const struct dci_snapshot *snapshot;
	uint32_t good_index;
	int64_t created;

	config_write("  - module: good_provider\n  - module: nosuch\n");
	load_tolerant(&lifecycle);
	dci_plugins_refresh_all(&lifecycle.plugins, dci_clock_milliseconds());
	good = lifecycle.plugins.items[0];
	class = class_find(&lifecycle, 9);
	snapshot = class->snapshot;
	created = snapshot->instances[0].created_milliseconds;
	good_index = supplier_find(&lifecycle, "good")->index;

	/* Unchanged good, nosuch removed, the example added. */
	config_write("  - module: good_provider\n"
	             "  - module: " TEST_EXAMPLE_PROVIDER "\n");
	ck_assert_msg(dci_lifecycle_reload(
	                  &lifecycle, &changes, error, sizeof(error)) == 0,
	    "%s", error);
	ck_assert_uint_eq(changes.unchanged, 1);
	ck_assert_uint_eq(changes.added, 1);
	ck_assert_uint_eq(changes.removed, 1);
	ck_assert_uint_eq(changes.restarted, 0);
	ck_assert_uint_eq(lifecycle.plugins.count, 2);
	ck_assert_ptr_eq(lifecycle.plugins.items[0], good);
	ck_assert_ptr_eq(class_find(&lifecycle, 9), class);
	ck_assert_ptr_eq(class->snapshot, snapshot);
	ck_assert_ptr_null(supplier_find(&lifecycle, "nosuch"));
	ck_assert_ptr_nonnull(supplier_find(&lifecycle, "example"));
	/* nosuch's row (index 2) is gone from walks; the example is 3. */
	{
		struct schema_index_row row;
		uint64_t index = 1;
		ck_assert(schema_index_supplier(
		    lifecycle.registry, &index, 1, SCHEMA_INDEX_NEXT, &row));
		ck_assert_uint_eq(row.supplier->index, 3);
		ck_assert_str_eq(row.supplier->module, "example");
		index = 2;
		ck_assert(!schema_index_supplier(
		    lifecycle.registry, &index, 1, SCHEMA_INDEX_EXACT, &row));
		index = 3;
		ck_assert(!schema_index_supplier(
		    lifecycle.registry, &index, 1, SCHEMA_INDEX_NEXT, &row));
	}
	ck_assert_ptr_nonnull(class_find(&lifecycle, 2));
	ck_assert_ptr_nonnull(class_find(&lifecycle, 2)->snapshot);

	/* A bad file changes nothing. */
	config_write("  - module: good_provider\n    refresh: never\n");
	ck_assert_int_eq(
	    dci_lifecycle_reload(&lifecycle, &changes, error, sizeof(error)),
	    -1);
	ck_assert_msg(
	    strstr(error, "dcistatd.yaml:5:14: ") != NULL, "%s", error);
	ck_assert_uint_eq(lifecycle.plugins.count, 2);
	ck_assert_ptr_eq(class->snapshot, snapshot);

	/* Changed options restart the provider: same supplier index, new
	 * instances, the example removed. */
	config_write("  - module: good_provider\n    options:\n"
	             "      instances: 5\n");
	ck_assert_int_eq(
	    dci_lifecycle_reload(&lifecycle, &changes, error, sizeof(error)),
	    0);
	ck_assert_uint_eq(changes.unchanged, 0);
	ck_assert_uint_eq(changes.restarted, 1);
	ck_assert_uint_eq(changes.removed, 1);
	ck_assert_uint_eq(changes.added, 0);
	ck_assert_ptr_null(class_find(&lifecycle, 2));
	ck_assert_ptr_null(supplier_find(&lifecycle, "example"));
	ck_assert_uint_eq(supplier_find(&lifecycle, "good")->index, good_index);
	class = class_find(&lifecycle, 9);
	ck_assert_ptr_nonnull(class->snapshot);
	ck_assert_uint_eq(class->snapshot->count, 5);
	ck_assert_int_ge(
	    class->snapshot->instances[0].created_milliseconds, created);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

START_TEST(reload_of_derived_metrics_restarts_their_class)
{
	struct dci_lifecycle lifecycle;
	struct dci_lifecycle_changes changes;
	struct dci_class *class;

	config_write("  - module: good_provider\n");
	load_tolerant(&lifecycle);
	ck_assert_uint_eq(class_find(&lifecycle, 9)->datum_count, 3);
	config_write("  - module: good_provider\nderived:\n"
	             "  - {class: 9.1, label: twice, id: 7, metric: sum2, "
	             "arguments: [count, count]}\n");
	ck_assert_int_eq(
	    dci_lifecycle_reload(&lifecycle, &changes, error, sizeof(error)),
	    0);
	ck_assert_uint_eq(changes.restarted, 1);
	class = class_find(&lifecycle, 9);
	ck_assert_uint_eq(class->datum_count, 4);
	/* The same again: nothing to do. */
	ck_assert_int_eq(
	    dci_lifecycle_reload(&lifecycle, &changes, error, sizeof(error)),
	    0);
	ck_assert_uint_eq(changes.unchanged, 1);
	ck_assert_ptr_eq(class_find(&lifecycle, 9), class);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

/* Waits (bounded) for a refresh thread to say it finished. */
static void
notification_wait(struct dci_plugins *plugins)
{
	struct pollfd polled = {dci_plugins_notify_fd(plugins), POLLIN, 0};

	ck_assert_int_ge(polled.fd, 0);
	ck_assert_int_eq(poll(&polled, 1, 10000), 1);
	dci_plugins_drain_notifications(plugins);
}

START_TEST(a_blocked_refresh_delays_no_other_provider)
{
	struct dci_lifecycle lifecycle;
	struct dci_plugin *slow, *example;
	struct dci_class *slow_class, *example_class;
	const struct dci_snapshot *first;
	int64_t now;
	char providers[512];

	snprintf(providers, sizeof(providers),
	    "  - module: good_provider\n    options:\n"
	    "      refresh_sleeps_while: %s\n"
	    "  - module: " TEST_EXAMPLE_PROVIDER "\n",
	    marker_path);
	config_write(providers);
	load_tolerant(&lifecycle);
	ck_assert_int_eq(dci_plugins_use_threads(&lifecycle.plugins), 0);
	slow = lifecycle.plugins.items[0];
	example = lifecycle.plugins.items[1];
	ck_assert(slow->refresher_running && example->refresher_running);
	slow_class = class_find(&lifecycle, 9);
	example_class = class_find(&lifecycle, 2);

	/* The slow provider blocks; the example's refresh ends and is
	 * installed meanwhile, and so is its next one. */
	marker_set(true);
	now = dci_clock_milliseconds();
	ck_assert_uint_eq(dci_plugins_run_due(&lifecycle.plugins, now), 2);
	ck_assert(slow->refresh_in_flight && example->refresh_in_flight);
	ck_assert_ptr_null(example_class->snapshot);
	while (example->refresh_in_flight) {
		notification_wait(&lifecycle.plugins);
		dci_plugins_run_due(&lifecycle.plugins, now);
	}
	ck_assert_ptr_nonnull(example_class->snapshot);
	first = example_class->snapshot;
	now += example->refresh_milliseconds;
	ck_assert_uint_eq(dci_plugins_run_due(&lifecycle.plugins, now), 1);
	while (example->refresh_in_flight) {
		notification_wait(&lifecycle.plugins);
		dci_plugins_run_due(&lifecycle.plugins, now);
	}
	ck_assert_ptr_ne(example_class->snapshot, first);
	ck_assert(slow->refresh_in_flight);
	ck_assert_ptr_null(slow_class->snapshot);
	/* While in flight only staleness has a deadline: no busy loop. */
	ck_assert_int_eq(dci_plugin_deadline(slow), INT64_MAX);

	/* Unblocked: its snapshot is installed at the next run. */
	marker_set(false);
	while (slow->refresh_in_flight) {
		notification_wait(&lifecycle.plugins);
		dci_plugins_run_due(&lifecycle.plugins, now);
	}
	ck_assert_ptr_nonnull(slow_class->snapshot);
	ck_assert_uint_eq(slow_class->snapshot->count, 3);
	ck_assert_int_eq(
	    supplier_find(&lifecycle, "good")->status, DCI_SUPPLIER_RUNNING);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

/* Removes the marker after a while, from another thread. */
/* Lines in `path`; 0 when it does not exist. */
static unsigned
lines_in(const char *path)
{
	FILE *file = fopen(path, "r");
	unsigned lines = 0;
	int c;

	if (file == NULL)
		return 0;
	while ((c = fgetc(file)) != EOF)
		lines += c == '\n';
	fclose(file);
	return lines;
}

/* A provider's start (dci_serve_start) runs only once the process serves:
 * never at load nor at a refresh before (a check, a one-shot read, the
 * time before the daemon's fork); a start that fails fails the provider,
 * fini included, and the retry's init runs its start at once; so does a
 * provider a reload adds. */
START_TEST(start_runs_only_in_the_process_that_serves)
{
	struct dci_lifecycle lifecycle;
	struct dci_plugin *plugin;
	char providers[1024], first_log[300], second_log[300];
	int64_t now;

	snprintf(first_log, sizeof(first_log), "%s/first.log", directory);
	snprintf(second_log, sizeof(second_log), "%s/second.log", directory);
	snprintf(providers, sizeof(providers),
	    "  - module: good_provider\n    options:\n"
	    "      start_log: %s\n      start_fails_while: %s\n",
	    first_log, marker_path);
	config_write(providers);
	load_tolerant(&lifecycle);
	plugin = lifecycle.plugins.items[0];
	dci_plugins_refresh_all(&lifecycle.plugins, dci_clock_milliseconds());
	ck_assert_int_eq(plugin->state, DCI_PLUGIN_RUNNING);
	ck_assert_ptr_nonnull(class_find(&lifecycle, 9)->snapshot);
	ck_assert_uint_eq(lines_in(first_log), 0);

	/* Serving, the start fails: failed as a failed init, its reason. */
	marker_set(true);
	ck_assert_int_eq(dci_plugins_use_threads(&lifecycle.plugins), 0);
	ck_assert_int_eq(plugin->state, DCI_PLUGIN_FAILED);
	ck_assert_ptr_null(class_find(&lifecycle, 9));
	ck_assert_msg(strstr(plugin->failure, "provider good failed to start: "
	                                      "start refused: ") != NULL &&
	                  strstr(plugin->failure, marker_path) != NULL,
	    "%s", plugin->failure);
	ck_assert_uint_eq(lines_in(first_log), 0);

	/* The retry: init, then its start at once, then its refresh. */
	marker_set(false);
	now = plugin->next_refresh_milliseconds;
	ck_assert_uint_eq(dci_plugins_run_due(&lifecycle.plugins, now), 1);
	ck_assert_int_eq(plugin->state, DCI_PLUGIN_RUNNING);
	ck_assert_uint_eq(lines_in(first_log), 1);
	ck_assert(plugin->refresher_running);

	/* A provider a reload restarts (or adds) starts at once too. */
	snprintf(providers, sizeof(providers),
	    "  - module: good_provider\n    options:\n"
	    "      start_log: %s\n",
	    second_log);
	config_write(providers);
	ck_assert_int_eq(
	    dci_lifecycle_reload(&lifecycle, NULL, error, sizeof(error)), 0);
	ck_assert_uint_eq(lines_in(second_log), 1);
	ck_assert_uint_eq(lines_in(first_log), 1);
	dci_lifecycle_unload(&lifecycle);
	unlink(first_log);
	unlink(second_log);
}
END_TEST

static void *
marker_remove_later(void *argument)
{
	(void)argument;
	usleep(200000);
	marker_set(false);
	return NULL;
}

START_TEST(stop_waits_for_the_refresh_in_flight)
{
	struct dci_lifecycle lifecycle;
	pthread_t remover;
	char providers[512];

	snprintf(providers, sizeof(providers),
	    "  - module: good_provider\n    options:\n"
	    "      refresh_sleeps_while: %s\n",
	    marker_path);
	config_write(providers);
	load_tolerant(&lifecycle);
	ck_assert_int_eq(dci_plugins_use_threads(&lifecycle.plugins), 0);
	marker_set(true);
	dci_plugins_run_due(&lifecycle.plugins, dci_clock_milliseconds());
	ck_assert(lifecycle.plugins.items[0]->refresh_in_flight);
	/* A refresh asked for and not begun is simply dropped at stop: wait
	 * until the provider is inside it. */
	for (int waited = 0;
	     waited < 500 &&
	     !__atomic_load_n(
	         &lifecycle.plugins.items[0]->on_refresher, __ATOMIC_ACQUIRE);
	     waited++)
		usleep(10000);
	ck_assert(__atomic_load_n(
	    &lifecycle.plugins.items[0]->on_refresher, __ATOMIC_ACQUIRE));
	/* It blocks until the marker goes; the unload (fini, dlclose) must
	 * wait for it rather than run beside it. */
	ck_assert_int_eq(
	    pthread_create(&remover, NULL, marker_remove_later, NULL), 0);
	dci_lifecycle_unload(&lifecycle);
	ck_assert_int_ne(access(marker_path, F_OK), 0);
	pthread_join(remover, NULL);
}
END_TEST

static Suite *
lifecycle_suite(void)
{
	Suite *suite = suite_create("lifecycle");
	TCase *tcase = tcase_create("lifecycle");

	tcase_add_checked_fixture(tcase, setup, teardown);
	tcase_add_test(
	    tcase, tolerant_load_serves_the_others_and_shows_the_failure);
	tcase_add_test(tcase, strict_load_refuses_a_failed_provider);
	tcase_add_test(
	    tcase, failed_start_is_retried_with_back_off_until_it_works);
	tcase_add_test(
	    tcase, stale_snapshot_is_withdrawn_and_resumes_discontinuous);
	tcase_add_test(tcase, reload_applies_the_difference);
	tcase_add_test(tcase, reload_of_derived_metrics_restarts_their_class);
	tcase_add_test(tcase, a_blocked_refresh_delays_no_other_provider);
	tcase_add_test(tcase, stop_waits_for_the_refresh_in_flight);
	tcase_add_test(tcase, start_runs_only_in_the_process_that_serves);
	suite_add_tcase(suite, tcase);
	return suite;
}

int
main(void)
{
	return unit_run_suite(lifecycle_suite());
}
