/* Suppliers that come and go: a provider registering and withdrawing a
 * supplier and its class from refresh (dci_supplier_withdraw), on the main
 * thread and through the refresher's round trip to it; the supplier index
 * kept for a returning module with a new reset stamp; batches of a
 * withdrawn class discarded; a stop while a refresh waits for its
 * registration; and the refusal of a handle the provider does not own.
 * Uses good_provider's `dynamic_supplier_file` option. */
#define _GNU_SOURCE
#include <check.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "model/events.h"
#include "runtime/lifecycle.h"
#include "model/snapshot.h"
#include "snmp/table_index.h"
#include "check_runner.h"

#ifndef TEST_PROVIDER_DIR
#error "TEST_PROVIDER_DIR must name the directory of the test plug-ins"
#endif

static char error[2048];
static char directory[] = "/tmp/dcistat-dynamic.XXXXXX";
static char config_path[256], dynamic_path[256], marker_path[256];

static void
setup(void)
{
	strcpy(directory, "/tmp/dcistat-dynamic.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(directory));
	snprintf(
	    config_path, sizeof(config_path), "%s/dcistatd.yaml", directory);
	snprintf(dynamic_path, sizeof(dynamic_path), "%s/dynamic", directory);
	snprintf(marker_path, sizeof(marker_path), "%s/marker", directory);
}

static void
teardown(void)
{
	unlink(dynamic_path);
	unlink(marker_path);
	unlink(config_path);
	rmdir(directory);
}

/* Writes a configuration of good_provider with the dynamic supplier's
 * file and, when `more_options` is not NULL, those lines of options too;
 * `tail` follows the providers (a `derived` list, or ""). */
static void
config_write(const char *more_options, const char *tail)
{
	FILE *file = fopen(config_path, "w");

	ck_assert_ptr_nonnull(file);
	fprintf(file,
	    "agent:\n  plugin-dir: %s\nproviders:\n"
	    "  - module: good_provider\n    options:\n"
	    "      dynamic_supplier_file: %s\n%s%s",
	    TEST_PROVIDER_DIR, dynamic_path,
	    more_options != NULL ? more_options : "", tail);
	ck_assert_int_eq(fclose(file), 0);
}

/* Makes the provider's next refresh see `content` ("N" or "N gone") in
 * the dynamic supplier's file, or no file (NULL). */
static void
dynamic_set(const char *content)
{
	char temporary[300];
	FILE *file;

	if (content == NULL) {
		unlink(dynamic_path);
		return;
	}
	snprintf(temporary, sizeof(temporary), "%s.new", dynamic_path);
	file = fopen(temporary, "w");
	ck_assert_ptr_nonnull(file);
	fprintf(file, "%s\n", content);
	ck_assert_int_eq(fclose(file), 0);
	ck_assert_int_eq(rename(temporary, dynamic_path), 0);
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

static void
load_tolerant(struct dci_lifecycle *lifecycle)
{
	ck_assert_msg(dci_lifecycle_load(lifecycle, config_path, "/unused",
	                  DCI_LOAD_TOLERANT, error, sizeof(error)) == 0,
	    "%s", error);
}

/* The class {9, second}, or NULL. */
static struct dci_class *
class_find(const struct dci_lifecycle *lifecycle, uint32_t second)
{
	for (size_t i = 0; i < lifecycle->registry->class_count; i++) {
		struct dci_class *class = lifecycle->registry->classes[i];
		if (class->id_length == 2 && class->id[0] == 9 &&
		    class->id[1] == second)
			return class;
	}
	return NULL;
}

/* The supplier entry of this module, withdrawn or not, or NULL. */
static struct dci_supplier *
supplier_entry(const struct dci_lifecycle *lifecycle, const char *module)
{
	for (size_t i = 0; i < lifecycle->registry->supplier_count; i++) {
		struct dci_supplier *supplier =
		    lifecycle->registry->suppliers[i];
		if (strcmp(supplier->module, module) == 0)
			return supplier;
	}
	return NULL;
}

/* Whether dciSupplierTable has a row at this index. */
static bool
supplier_row_served(const struct dci_lifecycle *lifecycle, uint32_t index)
{
	struct schema_index_row row;
	uint64_t subid = index;

	return schema_index_supplier(
	    lifecycle->registry, &subid, 1, SCHEMA_INDEX_EXACT, &row);
}

/* Waits (bounded) for a refresh thread to write to the notification
 * pipe: a refresh ended, or a request waits for the main thread. */
static void
notification_wait(struct dci_plugins *plugins)
{
	struct pollfd polled = {dci_plugins_notify_fd(plugins), POLLIN, 0};

	ck_assert_int_ge(polled.fd, 0);
	ck_assert_int_eq(poll(&polled, 1, 10000), 1);
	dci_plugins_drain_notifications(plugins);
}

/* One whole refresh at `now`: run inline, or begun on its thread and
 * driven as the daemon's loop does (each notification: run what is due)
 * until it is installed. The provider checks the host's answers itself
 * and fails its refresh when one is wrong. */
static void
refresh_at(struct dci_lifecycle *lifecycle, int64_t now)
{
	struct dci_plugin *plugin = lifecycle->plugins.items[0];

	ck_assert_int_le(plugin->next_refresh_milliseconds, now);
	ck_assert_uint_eq(dci_plugins_run_due(&lifecycle->plugins, now), 1);
	while (plugin->refresh_in_flight) {
		notification_wait(&lifecycle->plugins);
		dci_plugins_run_due(&lifecycle->plugins, now);
	}
	ck_assert_uint_eq(plugin->consecutive_failures, 0);
}

/* The dynamic supplier comes, goes, comes back and goes within one
 * refresh: the same sequence on the main thread and on the refresher. */
static void
supplier_comes_and_goes(struct dci_lifecycle *lifecycle)
{
	struct dci_plugin *plugin = lifecycle->plugins.items[0];
	struct dci_supplier *dynamic;
	struct dci_class *good = class_find(lifecycle, 1);
	unsigned char first_reset[8];
	uint32_t index;
	int64_t now = dci_clock_milliseconds();

	/* Registered from refresh, with rows after it. */
	dynamic_set("2");
	refresh_at(lifecycle, now);
	ck_assert_uint_eq(plugin->supplier_count, 2);
	dynamic = supplier_entry(lifecycle, "dynamic");
	ck_assert_ptr_nonnull(dynamic);
	ck_assert(!dynamic->withdrawn);
	ck_assert_ptr_eq(dynamic->owner, plugin);
	ck_assert_int_eq(dynamic->status, DCI_SUPPLIER_RUNNING);
	ck_assert_int_eq(dynamic->last_refresh_milliseconds, now);
	index = dynamic->index;
	ck_assert(supplier_row_served(lifecycle, index));
	memcpy(first_reset, dynamic->reset, sizeof(first_reset));
	ck_assert_ptr_nonnull(class_find(lifecycle, 2));
	ck_assert_ptr_eq(class_find(lifecycle, 2)->supplier, dynamic);
	ck_assert_ptr_nonnull(class_find(lifecycle, 2)->snapshot);
	ck_assert_uint_eq(class_find(lifecycle, 2)->snapshot->count, 2);
	ck_assert_int_eq(
	    class_find(lifecycle, 2)->snapshot->taken_milliseconds, now);

	/* A failed refresh marks it failed with the provider's others. */
	marker_set(true);
	now = plugin->next_refresh_milliseconds;
	ck_assert_uint_eq(dci_plugins_run_due(&lifecycle->plugins, now), 1);
	while (plugin->refresh_in_flight) {
		notification_wait(&lifecycle->plugins);
		dci_plugins_run_due(&lifecycle->plugins, now);
	}
	ck_assert_int_eq(dynamic->status, DCI_SUPPLIER_FAILED);
	ck_assert_int_eq(
	    supplier_entry(lifecycle, "good")->status, DCI_SUPPLIER_FAILED);
	marker_set(false);
	refresh_at(lifecycle, plugin->next_refresh_milliseconds);
	ck_assert_int_eq(dynamic->status, DCI_SUPPLIER_RUNNING);

	/* Withdrawn: its class and rows gone, its row gone, its index
	 * kept; the provider's other class untouched. */
	dynamic_set(NULL);
	now = plugin->next_refresh_milliseconds;
	refresh_at(lifecycle, now);
	ck_assert_ptr_null(class_find(lifecycle, 2));
	ck_assert_ptr_eq(supplier_entry(lifecycle, "dynamic"), dynamic);
	ck_assert(dynamic->withdrawn);
	ck_assert_ptr_null(dynamic->owner);
	ck_assert(!supplier_row_served(lifecycle, index));
	ck_assert_uint_eq(plugin->supplier_count, 1);
	ck_assert_ptr_eq(class_find(lifecycle, 1), good);
	ck_assert_int_eq(good->snapshot->taken_milliseconds, now);
	ck_assert_int_eq(
	    supplier_entry(lifecycle, "good")->last_refresh_milliseconds, now);

	/* Back: the same index, a new reset stamp (a new initialisation). */
	dynamic_set("3");
	refresh_at(lifecycle, plugin->next_refresh_milliseconds);
	ck_assert_ptr_eq(supplier_entry(lifecycle, "dynamic"), dynamic);
	ck_assert(!dynamic->withdrawn);
	ck_assert_uint_eq(dynamic->index, index);
	ck_assert(supplier_row_served(lifecycle, index));
	ck_assert_mem_ne(dynamic->reset, first_reset, sizeof(first_reset));
	ck_assert_ptr_nonnull(class_find(lifecycle, 2));
	ck_assert_uint_eq(class_find(lifecycle, 2)->snapshot->count, 3);
	ck_assert_uint_eq(lifecycle->registry->supplier_count, 2);

	/* Committed, then withdrawn in the same refresh: the commit is
	 * discarded with its class (on the refresher it was queued for the
	 * main thread), the other class's is installed. */
	dynamic_set("4 gone");
	now = plugin->next_refresh_milliseconds;
	refresh_at(lifecycle, now);
	ck_assert_ptr_null(class_find(lifecycle, 2));
	ck_assert(dynamic->withdrawn);
	ck_assert_int_eq(good->snapshot->taken_milliseconds, now);
	ck_assert_uint_eq(plugin->supplier_count, 1);
}

START_TEST(inline_refresh_registers_and_withdraws)
{
	struct dci_lifecycle lifecycle;
	char options[512];

	snprintf(options, sizeof(options), "      refresh_fails_while: %s\n",
	    marker_path);
	config_write(options, "");
	load_tolerant(&lifecycle);
	ck_assert(!lifecycle.plugins.items[0]->refresher_running);
	supplier_comes_and_goes(&lifecycle);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

START_TEST(threaded_refresh_registers_and_withdraws_through_the_main_thread)
{
	struct dci_lifecycle lifecycle;
	char options[512];

	snprintf(options, sizeof(options), "      refresh_fails_while: %s\n",
	    marker_path);
	config_write(options, "");
	load_tolerant(&lifecycle);
	ck_assert_int_eq(dci_plugins_use_threads(&lifecycle.plugins), 0);
	ck_assert(lifecycle.plugins.items[0]->refresher_running);
	supplier_comes_and_goes(&lifecycle);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

/* What the supplier sink received: module and failure copied. */
struct supplier_events {
	size_t count;
	enum dci_events_supplier_kind kinds[8];
	char modules[8][32];
	char failures[8][sizeof(((struct dci_supplier *)0)->failure)];
};

static void
supplier_events_record(void *context, const struct dci_supplier *supplier,
    enum dci_events_supplier_kind kind)
{
	struct supplier_events *events = context;

	ck_assert_uint_lt(events->count, 8);
	events->kinds[events->count] = kind;
	snprintf(events->modules[events->count], sizeof(events->modules[0]),
	    "%s", supplier->module);
	snprintf(events->failures[events->count], sizeof(events->failures[0]),
	    "%s", supplier->failure);
	events->count++;
}

/* A refresh that fails is one "failed" event with the reason, the next
 * failure none (no news), the refresh that works again one "recovered";
 * the start and the refreshes that work, none. */
START_TEST(refresh_failure_and_recovery_are_supplier_events)
{
	struct dci_lifecycle lifecycle;
	struct supplier_events events = {0};
	struct dci_plugin *plugin;
	char options[512];
	int64_t now;

	snprintf(options, sizeof(options), "      refresh_fails_while: %s\n",
	    marker_path);
	config_write(options, "");
	dci_events_set_supplier_sink(supplier_events_record, &events);
	load_tolerant(&lifecycle);
	plugin = lifecycle.plugins.items[0];
	refresh_at(&lifecycle, dci_clock_milliseconds());
	ck_assert_uint_eq(events.count, 0);

	marker_set(true);
	for (int failure = 0; failure < 2; failure++) {
		now = plugin->next_refresh_milliseconds;
		ck_assert_uint_eq(
		    dci_plugins_run_due(&lifecycle.plugins, now), 1);
		ck_assert_uint_eq(plugin->consecutive_failures, failure + 1);
	}
	ck_assert_uint_eq(events.count, 1);
	ck_assert_int_eq(events.kinds[0], DCI_EVENTS_SUPPLIER_FAILED);
	ck_assert_str_eq(events.modules[0], "good");
	ck_assert_str_eq(events.failures[0], "refresh failed");

	marker_set(false);
	refresh_at(&lifecycle, plugin->next_refresh_milliseconds);
	ck_assert_uint_eq(events.count, 2);
	ck_assert_int_eq(events.kinds[1], DCI_EVENTS_SUPPLIER_RECOVERED);
	ck_assert_str_eq(events.modules[1], "good");
	ck_assert_str_eq(events.failures[1], "");
	dci_events_set_supplier_sink(NULL, NULL);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

/* Registered through the round trip, a class gets the configured derived
 * metrics as one registered in init does; and after a reload that keeps
 * the provider, those of the new configuration. */
START_TEST(class_registered_from_refresh_gets_configured_derived_metrics)
{
	struct dci_lifecycle lifecycle;
	struct dci_lifecycle_changes changes;
	struct dci_plugin *plugin;

	config_write(NULL, "derived:\n"
	                   "  - {class: 9.2, label: twice, id: 7, metric: "
	                   "sum2, arguments: [count, count]}\n");
	load_tolerant(&lifecycle);
	plugin = lifecycle.plugins.items[0];
	ck_assert_int_eq(dci_plugins_use_threads(&lifecycle.plugins), 0);
	dynamic_set("2");
	refresh_at(&lifecycle, dci_clock_milliseconds());
	ck_assert_uint_eq(class_find(&lifecycle, 2)->datum_count, 2);

	/* Gone, and a reload adds a second derived metric: the provider is
	 * kept (none of its classes now has derived metrics that changed),
	 * and the class, when it comes back, has both. */
	dynamic_set(NULL);
	refresh_at(&lifecycle, plugin->next_refresh_milliseconds);
	ck_assert_ptr_null(class_find(&lifecycle, 2));
	config_write(NULL, "derived:\n"
	                   "  - {class: 9.2, label: twice, id: 7, metric: "
	                   "sum2, arguments: [count, count]}\n"
	                   "  - {class: 9.2, label: squared, id: 8, metric: "
	                   "product, arguments: [count, count]}\n");
	ck_assert_msg(dci_lifecycle_reload(
	                  &lifecycle, &changes, error, sizeof(error)) == 0,
	    "%s", error);
	ck_assert_uint_eq(changes.unchanged, 1);
	ck_assert_ptr_eq(lifecycle.plugins.items[0], plugin);
	/* The reload's own run found nothing due. */
	dynamic_set("2");
	refresh_at(&lifecycle, plugin->next_refresh_milliseconds);
	ck_assert_uint_eq(class_find(&lifecycle, 2)->datum_count, 3);
	ck_assert_uint_eq(class_find(&lifecycle, 2)->snapshot->count, 2);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

/* Whether the refresher has posted a request and waits for its answer. */
static bool
request_waiting(struct dci_plugin *plugin)
{
	bool waiting;

	pthread_mutex_lock(&plugin->refresher_lock);
	waiting = plugin->request != NULL;
	pthread_mutex_unlock(&plugin->refresher_lock);
	return waiting;
}

/* The main thread stops the provider instead of answering: the stop
 * refuses the request, so the refresh returns and the join ends (a
 * deadlock would fail the test on check's timeout). */
START_TEST(stop_while_a_refresh_waits_for_its_registration)
{
	struct dci_lifecycle lifecycle;
	struct dci_plugin *plugin;
	const struct dci_supplier *dynamic;

	config_write(NULL, "");
	load_tolerant(&lifecycle);
	plugin = lifecycle.plugins.items[0];
	ck_assert_int_eq(dci_plugins_use_threads(&lifecycle.plugins), 0);
	dynamic_set("2");
	ck_assert_uint_eq(
	    dci_plugins_run_due(&lifecycle.plugins, dci_clock_milliseconds()),
	    1);
	for (int waited = 0; waited < 500 && !request_waiting(plugin); waited++)
		usleep(10000);
	ck_assert(request_waiting(plugin));

	dci_plugin_stop(plugin);
	ck_assert(!plugin->refresher_running);
	ck_assert(!plugin->refresh_in_flight);
	ck_assert_ptr_null(plugin->request);
	ck_assert_uint_eq(plugin->pending_count, 0);
	/* Nothing of the provider is left: not what it registered in init,
	 * not what it asked for in the refresh. */
	dynamic = supplier_entry(&lifecycle, "dynamic");
	ck_assert(dynamic == NULL || dynamic->withdrawn);
	ck_assert(supplier_entry(&lifecycle, "good")->withdrawn);
	ck_assert_uint_eq(lifecycle.registry->class_count, 0);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

/* The same through the whole unload, as at the daemon's exit. */
START_TEST(unload_while_a_refresh_waits_for_its_registration)
{
	struct dci_lifecycle lifecycle;
	struct dci_plugin *plugin;

	config_write(NULL, "");
	load_tolerant(&lifecycle);
	plugin = lifecycle.plugins.items[0];
	ck_assert_int_eq(dci_plugins_use_threads(&lifecycle.plugins), 0);
	dynamic_set("2");
	dci_plugins_run_due(&lifecycle.plugins, dci_clock_milliseconds());
	for (int waited = 0; waited < 500 && !request_waiting(plugin); waited++)
		usleep(10000);
	ck_assert(request_waiting(plugin));
	dci_lifecycle_unload(&lifecycle);
	ck_assert_ptr_null(lifecycle.registry);
}
END_TEST

/* Only a supplier the provider registered, and only once. Called here on
 * the main thread, as from init. */
START_TEST(withdrawal_of_a_handle_not_owned_is_refused)
{
	static const struct dci_supplier_info foreign_info = {
	    .module = "foreign",
	    .title = "Someone else's",
	};
	struct dci_lifecycle lifecycle;
	struct dci_plugin *plugin;
	struct dci_supplier *foreign, *good;
	char why[256];

	config_write(NULL, "");
	load_tolerant(&lifecycle);
	plugin = lifecycle.plugins.items[0];
	foreign = dci_registry_add_supplier(
	    lifecycle.registry, &foreign_info, "test", why, sizeof(why));
	ck_assert_msg(foreign != NULL, "%s", why);

	ck_assert_int_eq(dci_supplier_withdraw(&plugin->host, foreign), -1);
	ck_assert(!foreign->withdrawn);
	ck_assert_int_eq(dci_supplier_withdraw(&plugin->host, NULL), -1);
	ck_assert_ptr_null(dci_class_register(&plugin->host, foreign,
	    &(struct dci_class_info){.id = (const uint32_t[]){9, 3},
	        .id_length = 2,
	        .label = "foreign"}));

	/* Its own: withdrawn once, with its class; then no longer its. */
	good = supplier_entry(&lifecycle, "good");
	ck_assert_int_eq(dci_supplier_withdraw(&plugin->host, good), 0);
	ck_assert(good->withdrawn);
	ck_assert_ptr_null(class_find(&lifecycle, 1));
	ck_assert_uint_eq(plugin->supplier_count, 0);
	ck_assert_int_eq(dci_supplier_withdraw(&plugin->host, good), -1);
	ck_assert(!foreign->withdrawn);
	dci_lifecycle_unload(&lifecycle);
}
END_TEST

static Suite *
dynamic_suite(void)
{
	Suite *suite = suite_create("dynamic");
	TCase *tcase = tcase_create("dynamic");

	tcase_add_checked_fixture(tcase, setup, teardown);
	tcase_set_timeout(tcase, 20);
	tcase_add_test(tcase, inline_refresh_registers_and_withdraws);
	tcase_add_test(tcase, refresh_failure_and_recovery_are_supplier_events);
	tcase_add_test(tcase,
	    threaded_refresh_registers_and_withdraws_through_the_main_thread);
	tcase_add_test(tcase,
	    class_registered_from_refresh_gets_configured_derived_metrics);
	tcase_add_test(tcase, stop_while_a_refresh_waits_for_its_registration);
	tcase_add_test(
	    tcase, unload_while_a_refresh_waits_for_its_registration);
	tcase_add_test(tcase, withdrawal_of_a_handle_not_owned_is_refused);
	suite_add_tcase(suite, tcase);
	return suite;
}

int
main(void)
{
	return unit_run_suite(dynamic_suite());
}
