#define _GNU_SOURCE
#include "runtime/loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "model/events.h"
#include "runtime/host.h"
#include "runtime/isolation.h"
#include "runtime/isolation_process.h"
#include "base/log.h"
#include "base/secure_path.h"
#include "model/snapshot.h"

static char *
plugin_path(const char *module, const char *plugin_dir)
{
	char *path;

	if (strchr(module, '/') != NULL)
		return strdup(module);
	if (asprintf(&path, "%s/%s.so", plugin_dir, module) < 0)
		return NULL;
	return path;
}

/* Opens plugin->path and checks its entry symbol; on failure nothing is
 * left loaded and `error` names the file. */
static int
plugin_library_open(struct dci_plugin *plugin, char *error, size_t error_size)
{
	struct stat status;
	void *symbol;
	bool isolated = plugin->config != NULL && plugin->config->isolate;
	char reason[1024];

	/* Code loaded into (or run beside) dcistatd: only from a file root
	 * alone can change, when the rule is on. */
	if (dci_secure_path_check(plugin->path, reason, sizeof(reason)) != 0) {
		log_reason(error, error_size, "provider \"%s\": %s",
		    plugin->module, reason);
		return -1;
	}
	/* dlopen's own message for a missing file is vague; say it plainly. */
	if (stat(plugin->path, &status) != 0) {
		log_reason(error, error_size, "%s: provider \"%s\": %s",
		    plugin->path, plugin->module, strerror(errno));
		return -1;
	}
	if (!S_ISREG(status.st_mode)) {
		log_reason(error, error_size,
		    "%s: provider \"%s\": not a regular file", plugin->path,
		    plugin->module);
		return -1;
	}
	/* Loaded in its own process; here a stand-in replays its work. */
	if (isolated) {
		plugin->entry = &dci_isolation_provider;
		return 0;
	}
	dlerror();
	plugin->library = dlopen(plugin->path, RTLD_NOW | RTLD_LOCAL);
	if (plugin->library == NULL) {
		log_reason(error, error_size, "%s: cannot load provider: %s",
		    plugin->path, dlerror());
		return -1;
	}
	symbol = dlsym(plugin->library, DCI_PROVIDER_ENTRY_SYMBOL);
	if (symbol == NULL) {
		log_reason(error, error_size,
		    "%s: not a dcistat provider: no symbol %s", plugin->path,
		    DCI_PROVIDER_ENTRY_SYMBOL);
		goto failed;
	}
	plugin->entry = symbol;
	if (plugin->entry->abi_version != DCI_PROVIDER_ABI_VERSION) {
		log_reason(error, error_size,
		    "%s: provider ABI version %u, this dcistatd supports %u: "
		    "rebuild the provider against this dcistat",
		    plugin->path, plugin->entry->abi_version,
		    DCI_PROVIDER_ABI_VERSION);
		goto failed;
	}
	if (plugin->entry->init == NULL || plugin->entry->refresh == NULL) {
		log_reason(error, error_size,
		    "%s: provider entry has no %s callback", plugin->path,
		    plugin->entry->init == NULL ? "init" : "refresh");
		goto failed;
	}
	if (plugin->entry->name != NULL && plugin->entry->name[0] != '\0') {
		char *name = strdup(plugin->entry->name);
		if (name == NULL) {
			log_reason(error, error_size, "out of memory");
			goto failed;
		}
		free(plugin->name);
		plugin->name = name;
	}
	return 0;

failed:
	plugin->entry = NULL;
	dlclose(plugin->library);
	plugin->library = NULL;
	return -1;
}

static struct dci_plugin *
plugin_allocate(const char *module, const char *plugin_dir)
{
	struct dci_plugin *plugin = calloc(1, sizeof(*plugin));

	if (plugin == NULL)
		return NULL;
	plugin->host.operations = &dci_host_operations;
	plugin->notify_fd = -1;
	pthread_mutex_init(&plugin->refresher_lock, NULL);
	pthread_cond_init(&plugin->refresher_wake, NULL);
	plugin->module = strdup(module);
	plugin->name = strdup(module);
	plugin->path = plugin_path(module, plugin_dir);
	if (plugin->module == NULL || plugin->name == NULL ||
	    plugin->path == NULL) {
		dci_plugin_close(plugin);
		return NULL;
	}
	return plugin;
}

struct dci_plugin *
dci_plugin_open(
    const char *module, const char *plugin_dir, char *error, size_t error_size)
{
	struct dci_plugin *plugin;

	if (strchr(module, '/') != NULL && module[0] != '/') {
		log_reason(error, error_size,
		    "%s: provider module must be a name or an absolute path",
		    module);
		return NULL;
	}
	plugin = plugin_allocate(module, plugin_dir);
	if (plugin == NULL) {
		log_reason(error, error_size, "out of memory");
		return NULL;
	}
	if (plugin_library_open(plugin, error, error_size) != 0) {
		dci_plugin_close(plugin);
		return NULL;
	}
	return plugin;
}

static bool
option_key_known(const struct dci_provider *entry, const char *key)
{
	if (entry->option_keys == NULL)
		return false;
	for (size_t i = 0; entry->option_keys[i] != NULL; i++) {
		if (strcmp(entry->option_keys[i], key) == 0)
			return true;
	}
	return false;
}

static void
option_keys_list(const struct dci_provider *entry, char *text, size_t size)
{
	size_t used = 0;

	text[0] = '\0';
	if (entry->option_keys == NULL || entry->option_keys[0] == NULL) {
		snprintf(text, size, "none (this provider takes no options)");
		return;
	}
	for (size_t i = 0; entry->option_keys[i] != NULL && used < size; i++) {
		int n = snprintf(text + used, size - used, "%s%s",
		    i ? ", " : "one of ", entry->option_keys[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

int
dci_plugin_check_options(const struct dci_plugin *plugin,
    const struct dci_config_provider *config, char *error, size_t error_size)
{
	char expected[512];

	for (size_t i = 0; config != NULL && i < config->option_count; i++) {
		const struct dci_config_option *option = &config->options[i];
		if (option_key_known(plugin->entry, option->key))
			continue;
		option_keys_list(plugin->entry, expected, sizeof(expected));
		log_reason(error, error_size,
		    "%s:%u:%u: unknown option '%s' for provider %s: expected "
		    "%s",
		    option->position.file, option->position.line,
		    option->position.column, option->key, plugin->name,
		    expected);
		return -1;
	}
	return 0;
}

/* The refresher: one provider's refreshes, one at a time, when asked. */
static void *
plugin_refresher(void *argument)
{
	struct dci_plugin *plugin = argument;

	log_defer_this_thread();
	pthread_mutex_lock(&plugin->refresher_lock);
	for (;;) {
		int64_t started;
		int result;

		while (
		    !plugin->refresh_requested && !plugin->refresher_stopping)
			pthread_cond_wait(
			    &plugin->refresher_wake, &plugin->refresher_lock);
		if (plugin->refresher_stopping)
			break;
		plugin->refresh_requested = false;
		pthread_mutex_unlock(&plugin->refresher_lock);

		started = dci_clock_milliseconds();
		/* Atomic: the tests read it from the main thread to know
		 * that the provider is inside its refresh. */
		__atomic_store_n(&plugin->on_refresher, true, __ATOMIC_RELEASE);
		result = plugin->entry->refresh(&plugin->host, plugin->context);
		__atomic_store_n(
		    &plugin->on_refresher, false, __ATOMIC_RELEASE);

		pthread_mutex_lock(&plugin->refresher_lock);
		plugin->refresh_result = result;
		plugin->refresh_duration_milliseconds =
		    dci_clock_milliseconds() - started;
		plugin->refresh_finished = true;
		/* A full pipe already holds a wake-up for the loop. */
		if (write(plugin->notify_fd, "r", 1) < 0) {
		}
	}
	pthread_mutex_unlock(&plugin->refresher_lock);
	return NULL;
}

/* Starts the refresher of a plug-in that refreshes on its own thread; with
 * every signal blocked there, so that they reach the main loop. A refresher
 * that cannot be started leaves refreshes inline, said once. */
static void
plugin_refresher_start(struct dci_plugin *plugin)
{
	sigset_t all, previous;
	int error;

	if (plugin->notify_fd < 0 || plugin->refresher_running)
		return;
	plugin->refresh_requested = false;
	plugin->refresh_finished = false;
	plugin->refresher_stopping = false;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &previous);
	error =
	    pthread_create(&plugin->refresher, NULL, plugin_refresher, plugin);
	pthread_sigmask(SIG_SETMASK, &previous, NULL);
	if (error != 0) {
		log_warnx("provider %s: cannot start its refresh thread (%s); "
		          "refreshing it on the main thread",
		    plugin->name, strerror(error));
		return;
	}
	plugin->refresher_running = true;
}

/* Plug-ins abandoned by a stop: kept, so that their refreshes find them
 * if they ever return (and so that they are not leaks). Main thread. */
static struct dci_plugin **abandoned_plugins;
static size_t abandoned_count;

bool
dci_plugins_abandoned_use(const struct dci_config *config)
{
	for (size_t i = 0; i < abandoned_count; i++)
		if (abandoned_plugins[i]->source == config ||
		    abandoned_plugins[i]->derived_source == config)
			return true;
	return false;
}

/* Stops the refresher, waiting for a refresh in flight to return; what it
 * committed is dropped. A refresh waiting for a registration is answered
 * with a refusal, and, refresher_stopping being set under the same lock,
 * no other request follows; so the join cannot wait for the main thread.
 * A refresh that does not return within DCI_PLUGIN_STOP_WAIT_MILLISECONDS
 * is left running: false, the plug-in abandoned. */
static bool
plugin_refresher_stop(struct dci_plugin *plugin)
{
	struct timespec deadline;
	int joined;

	if (!plugin->refresher_running)
		return true;
	pthread_mutex_lock(&plugin->refresher_lock);
	plugin->refresher_stopping = true;
	pthread_cond_signal(&plugin->refresher_wake);
	pthread_mutex_unlock(&plugin->refresher_lock);
	dci_plugin_request_answer(plugin, true);
	/* An isolated provider's refresh waits on its process: ended now,
	 * rather than after its hang limit. */
	if (plugin->refresh_in_flight &&
	    plugin->entry == &dci_isolation_provider)
		dci_isolation_interrupt(plugin->context);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += DCI_PLUGIN_STOP_WAIT_MILLISECONDS / 1000;
	deadline.tv_nsec +=
	    (DCI_PLUGIN_STOP_WAIT_MILLISECONDS % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	joined = pthread_timedjoin_np(plugin->refresher, NULL, &deadline);
	log_flush_deferred();
	plugin->refresher_running = false;
	if (joined == ETIMEDOUT) {
		/* Its wake-up byte, if it ever returns, goes nowhere. */
		pthread_mutex_lock(&plugin->refresher_lock);
		plugin->notify_fd = -1;
		__atomic_store_n(&plugin->abandoned, true, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&plugin->refresher_lock);
		pthread_detach(plugin->refresher);
		log_warnx("provider %s: its refresh did not return within %u "
		          "ms of the stop; abandoned without running its fini",
		    plugin->name, (unsigned)DCI_PLUGIN_STOP_WAIT_MILLISECONDS);
		return false;
	}
	plugin->refresh_in_flight = false;
	plugin->refresh_finished = false;
	for (size_t i = 0; i < plugin->pending_count; i++)
		dci_snapshot_builder_free(plugin->pending[i].builder);
	plugin->pending_count = 0;
	plugin->refresh_milliseconds_at = 0;
	return true;
}

/* The wait before the next try after `failures` failures in a row: `first`,
 * doubled for each further one, at most a minute. */
static int64_t
backoff_milliseconds(int64_t first, unsigned failures)
{
	int64_t delay = first;

	for (unsigned i = 1;
	     i < failures && delay < DCI_PLUGIN_BACKOFF_MAX_MILLISECONDS; i++)
		delay *= 2;
	return delay > DCI_PLUGIN_BACKOFF_MAX_MILLISECONDS
	           ? DCI_PLUGIN_BACKOFF_MAX_MILLISECONDS
	           : delay;
}

/* What a failed start leaves: nothing of the provider loaded or
 * registered, a failed supplier row with the reason, and a retry after a
 * back-off. */
static void
plugin_fail_start(struct dci_plugin *plugin, int64_t now, const char *reason)
{
	int64_t delay = DCI_PLUGIN_RETRY_FIRST_MILLISECONDS;
	bool same = plugin->state == DCI_PLUGIN_FAILED &&
	            strcmp(plugin->failure, reason) == 0;
	struct dci_supplier *failed;

	dci_plugin_stop(plugin);
	plugin->state = DCI_PLUGIN_FAILED;
	snprintf(plugin->failure, sizeof(plugin->failure), "%s", reason);
	plugin->consecutive_failures++;
	delay = backoff_milliseconds(delay, plugin->consecutive_failures);
	plugin->next_refresh_milliseconds = now + delay;
	failed = dci_registry_add_failed_supplier(
	    plugin->registry, plugin->module, reason, plugin);
	if (failed == NULL)
		log_warnx("provider %s: no failed row: out of memory, or a "
		          "running supplier has that name",
		    plugin->module);
	else if (!same)
		/* The same failure again is no news (as in the log below). */
		dci_events_supplier(failed, DCI_EVENTS_SUPPLIER_FAILED);
	/* The first failure is the caller's to report (a strict load
	 * refuses, a tolerant one logs); a retry's only when it is news. */
	if (same)
		log_debug(plugin->module,
		    "provider %s: still failing (%u tries); next try in %lld "
		    "ms",
		    plugin->module, plugin->consecutive_failures,
		    (long long)delay);
	else if (plugin->consecutive_failures > 1)
		log_warnx("%s; next try in %lld ms", reason, (long long)delay);
	/* The same failure again is not news: the provider's own messages
	 * go to debug until something changes. */
	plugin->quiet = true;
}

struct dci_plugin *
dci_plugin_new(const struct dci_config *config, size_t index,
    const char *default_plugin_dir, struct dci_registry *registry,
    int notify_fd)
{
	const struct dci_config_provider *provider = &config->providers[index];
	struct dci_plugin *plugin = plugin_allocate(
	    provider->module, config->plugin_dir != NULL ? config->plugin_dir
	                                                 : default_plugin_dir);

	if (plugin == NULL)
		return NULL;
	plugin->config = provider;
	plugin->source = config;
	plugin->derived = config->derived;
	plugin->derived_count = config->derived_count;
	plugin->derived_source = config;
	plugin->registry = registry;
	plugin->refresh_milliseconds = provider->refresh_milliseconds;
	plugin->stale_periods = provider->stale_periods;
	plugin->state = DCI_PLUGIN_STOPPED;
	plugin->notify_fd = notify_fd;
	return plugin;
}

int
dci_plugin_start(
    struct dci_plugin *plugin, int64_t now, char *error, size_t error_size)
{
	const struct dci_config_provider *config = plugin->config;
	char reason[1024];

	/* A failed row from an earlier try goes; init registers anew and may
	 * declare its refresh limit anew. */
	dci_plugin_stop(plugin);
	if (plugin->abandoned) {
		log_reason(error, error_size,
		    "provider %s: abandoned, its refresh still running",
		    plugin->name);
		return -1;
	}
	plugin->refresh_milliseconds = config->refresh_milliseconds;
	plugin->refresh_limit_milliseconds = 0;
	/* An isolated provider's options are checked in its process, against
	 * its own keys. */
	if (plugin_library_open(plugin, reason, sizeof(reason)) != 0 ||
	    (!config->isolate &&
	        dci_plugin_check_options(
	            plugin, config, reason, sizeof(reason)) != 0))
		goto failed;
	plugin->initialised = true;
	plugin->restart_reason[0] = '\0';
	dci_plugin_complaint_collect(plugin);
	if (plugin->entry->init(&plugin->host, &plugin->context) != 0) {
		dci_host_abort_open_batches(plugin);
		/* The same words every time, so that a retry failing alike
		 * is known as such (plugin_fail_start); a stand-in's own
		 * reason (an isolated provider's supplier refused) when it
		 * gave one. */
		if (plugin->restart_reason[0] != '\0')
			snprintf(reason, sizeof(reason), "%s",
			    plugin->restart_reason);
		else
			dci_plugin_failure_reason(
			    plugin, "initialise", reason, sizeof(reason));
		plugin->restart_reason[0] = '\0';
		goto failed;
	}
	plugin->collecting_complaint = false;
	if (dci_plugin_serve_start(plugin, reason, sizeof(reason)) != 0)
		goto failed;
	if (plugin->state == DCI_PLUGIN_FAILED) {
		log_notice("provider %s: started after %u failed tr%s",
		    plugin->name, plugin->consecutive_failures,
		    plugin->consecutive_failures == 1 ? "y" : "ies");
		/* Initialised again: new reset stamps. A first start is
		 * the population, no change. */
		dci_plugin_announce_restart(plugin);
	}
	plugin->state = DCI_PLUGIN_RUNNING;
	plugin->quiet = false;
	plugin->failure[0] = '\0';
	plugin->restart_reason[0] = '\0';
	/* An isolated provider that keeps dying in its refreshes backs off
	 * until one works. */
	if (!config->isolate)
		plugin->consecutive_failures = 0;
	plugin->slow = false;
	if (plugin->refresh_limit_milliseconds != 0 &&
	    plugin->refresh_milliseconds > plugin->refresh_limit_milliseconds) {
		log_info("provider %s: refresh every %u ms, not %u: its "
		         "counters' widening tolerates no longer",
		    plugin->name, plugin->refresh_limit_milliseconds,
		    plugin->refresh_milliseconds);
		plugin->refresh_milliseconds =
		    plugin->refresh_limit_milliseconds;
	}
	plugin->next_refresh_milliseconds = now;
	plugin_refresher_start(plugin);
	return 0;

failed:
	plugin->collecting_complaint = false;
	/* Positions name the line an operator fixes; an unknown option
	 * already has its own. */
	if (strncmp(reason, config->module_position.file,
	        strlen(config->module_position.file)) == 0)
		log_reason(error, error_size, "%s", reason);
	else
		log_reason(error, error_size, "%s:%u:%u: %s",
		    config->module_position.file, config->module_position.line,
		    config->module_position.column, reason);
	plugin_fail_start(plugin, now, error_size > 0 ? error : reason);
	return -1;
}

static void
suppliers_mark(struct dci_plugin *plugin, enum dci_supplier_status status,
    int64_t now, const char *failure)
{
	for (size_t i = 0; i < plugin->supplier_count; i++) {
		struct dci_supplier *supplier = plugin->suppliers[i];
		enum dci_supplier_status shown = status;
		const char *reason = failure;
		bool changed;

		/* A working provider may still say one supplier failed
		 * (dci_supplier_state): that supplier shows its reason. */
		if (status == DCI_SUPPLIER_RUNNING &&
		    supplier->provider_failure[0] != '\0') {
			shown = DCI_SUPPLIER_FAILED;
			reason = supplier->provider_failure;
		}
		changed = supplier->status != shown;
		supplier->status = shown;
		snprintf(
		    supplier->failure, sizeof(supplier->failure), "%s", reason);
		if (status == DCI_SUPPLIER_RUNNING)
			supplier->last_refresh_milliseconds = now;
		if (changed)
			dci_events_supplier(
			    supplier, shown == DCI_SUPPLIER_FAILED
			                  ? DCI_EVENTS_SUPPLIER_FAILED
			                  : DCI_EVENTS_SUPPLIER_RECOVERED);
	}
}

/* A refresh that takes longer than its period cannot keep its schedule:
 * said once when it starts and once when it stops. */
static void
refresh_duration_check(struct dci_plugin *plugin, int64_t duration)
{
	bool slow = duration > (int64_t)plugin->refresh_milliseconds;

	if (slow && !plugin->slow)
		log_warnx("provider %s: refresh took %lld ms, longer than its "
		          "period of %u ms",
		    plugin->name, (long long)duration,
		    plugin->refresh_milliseconds);
	else if (!slow && plugin->slow)
		log_notice("provider %s: refresh within its period again "
		           "(%lld ms)",
		    plugin->name, (long long)duration);
	plugin->slow = slow;
}

/* What a refresh leaves once it returned, on the main thread: its batches
 * installed (those it committed on its thread), the others aborted, its
 * suppliers' status, and the time of the next refresh. */
static void
plugin_refresh_finish(struct dci_plugin *plugin, int result, int64_t duration)
{
	int64_t now = plugin->refresh_milliseconds_at, delay;
	char why[512];

	for (size_t i = 0; i < plugin->pending_count; i++) {
		struct dci_pending_commit *pending = &plugin->pending[i];
		if (dci_snapshot_commit(pending->builder, pending->class, now,
		        why, sizeof(why)) != 0 ||
		    why[0] != '\0')
			log_warnx("provider %s: %s", plugin->name, why);
	}
	plugin->pending_count = 0;
	plugin->refresh_milliseconds_at = 0;
	dci_host_abort_open_batches(plugin);
	refresh_duration_check(plugin, duration);
	if (result == 0) {
		if (plugin->consecutive_failures > 0)
			log_notice("provider %s: refresh works again after %u "
			           "failures",
			    plugin->name, plugin->consecutive_failures);
		plugin->consecutive_failures = 0;
		plugin->quiet = false;
		suppliers_mark(plugin, DCI_SUPPLIER_RUNNING, now, "");
		plugin->next_refresh_milliseconds =
		    now + plugin->refresh_milliseconds;
		return;
	}
	if (plugin->restart_reason[0] != '\0') {
		/* Rows withdrawn, failed row, another start after a
		 * back-off. */
		char reason[sizeof(plugin->restart_reason)];
		memcpy(reason, plugin->restart_reason, sizeof(reason));
		plugin->restart_reason[0] = '\0';
		/* The back-off counts from now, not from when the refresh
		 * began. */
		plugin_fail_start(plugin, dci_clock_milliseconds(), reason);
		return;
	}
	plugin->consecutive_failures++;
	suppliers_mark(plugin, DCI_SUPPLIER_FAILED, now, "refresh failed");
	delay = backoff_milliseconds(
	    plugin->refresh_milliseconds, plugin->consecutive_failures);
	plugin->next_refresh_milliseconds = now + delay;
	if (plugin->quiet)
		log_debug(plugin->name,
		    "provider %s: refresh failed (%u in a row); next try in "
		    "%lld ms",
		    plugin->name, plugin->consecutive_failures,
		    (long long)delay);
	else
		log_warnx("provider %s: refresh failed; serving the previous "
		          "snapshot until it is stale, next try in %lld ms",
		    plugin->name, (long long)delay);
	plugin->quiet = true;
}

/* Starts a refresh: handed to the refresher, or run here. */
static void
plugin_refresh_begin(struct dci_plugin *plugin, int64_t now)
{
	int64_t started;
	int result;

	plugin->refresh_milliseconds_at = now;
	if (plugin->refresher_running) {
		pthread_mutex_lock(&plugin->refresher_lock);
		plugin->refresh_requested = true;
		pthread_cond_signal(&plugin->refresher_wake);
		pthread_mutex_unlock(&plugin->refresher_lock);
		plugin->refresh_in_flight = true;
		return;
	}
	started = dci_clock_milliseconds();
	result = plugin->entry->refresh(&plugin->host, plugin->context);
	plugin_refresh_finish(
	    plugin, result, dci_clock_milliseconds() - started);
}

/* Answers the request a refresh on the refresher waits for, and installs
 * a refresh that ended there; false while it runs. */
static bool
plugin_refresh_collect(struct dci_plugin *plugin)
{
	bool finished;
	int result = 0;
	int64_t duration = 0;

	if (!plugin->refresh_in_flight)
		return false;
	dci_plugin_request_answer(plugin, false);
	pthread_mutex_lock(&plugin->refresher_lock);
	finished = plugin->refresh_finished;
	if (finished) {
		plugin->refresh_finished = false;
		result = plugin->refresh_result;
		duration = plugin->refresh_duration_milliseconds;
	}
	pthread_mutex_unlock(&plugin->refresher_lock);
	log_flush_deferred();
	if (!finished)
		return false;
	plugin->refresh_in_flight = false;
	plugin_refresh_finish(plugin, result, duration);
	return true;
}

static int64_t
plugin_stale_milliseconds(const struct dci_plugin *plugin)
{
	return (int64_t)plugin->refresh_milliseconds * plugin->stale_periods;
}

/* Withdraws the snapshots of the plug-in's classes that are older than
 * its staleness limit: absent rows rather than frozen numbers. */
static void
plugin_withdraw_stale(struct dci_plugin *plugin, int64_t now)
{
	int64_t limit = plugin_stale_milliseconds(plugin);

	for (size_t i = 0; i < plugin->registry->class_count; i++) {
		struct dci_class *class = plugin->registry->classes[i];
		if (class->owner != plugin || class->snapshot == NULL ||
		    now - class->snapshot->taken_milliseconds < limit)
			continue;
		log_warnx("provider %s: class %s not refreshed for %lld ms; "
		          "its rows are withdrawn until it is",
		    plugin->name, class->label,
		    (long long)(now - class->snapshot->taken_milliseconds));
		dci_class_withdraw_snapshot(class);
	}
}

bool
dci_plugin_run_due(struct dci_plugin *plugin, int64_t now)
{
	bool ran = false;
	char error[1024];

	if (plugin->state == DCI_PLUGIN_FAILED &&
	    now >= plugin->next_refresh_milliseconds) {
		ran = true;
		if (dci_plugin_start(plugin, now, error, sizeof(error)) != 0)
			return true;
	}
	if (plugin->state != DCI_PLUGIN_RUNNING)
		return ran;
	ran = plugin_refresh_collect(plugin) || ran;
	/* A refresh that ended in a failed start (restart_reason). */
	if (plugin->state != DCI_PLUGIN_RUNNING)
		return ran;
	if (!plugin->refresh_in_flight &&
	    now >= plugin->next_refresh_milliseconds) {
		plugin_refresh_begin(plugin, now);
		ran = true;
	}
	plugin_withdraw_stale(plugin, now);
	return ran;
}

int64_t
dci_plugin_deadline(const struct dci_plugin *plugin)
{
	int64_t deadline = plugin->next_refresh_milliseconds;
	int64_t limit = plugin_stale_milliseconds(plugin);

	if (plugin->state == DCI_PLUGIN_STOPPED)
		return INT64_MAX;
	if (plugin->state == DCI_PLUGIN_FAILED)
		return deadline;
	/* A refresh in flight says when it ends, on the notification
	 * pipe; only staleness has a deadline meanwhile. */
	if (plugin->refresh_in_flight)
		deadline = INT64_MAX;
	for (size_t i = 0; i < plugin->registry->class_count; i++) {
		const struct dci_class *class = plugin->registry->classes[i];
		if (class->owner == plugin && class->snapshot != NULL &&
		    class->snapshot->taken_milliseconds + limit < deadline)
			deadline = class->snapshot->taken_milliseconds + limit;
	}
	return deadline;
}

void
dci_plugin_stop(struct dci_plugin *plugin)
{
	/* fini never runs beside a refresh; an abandoned provider's refresh
	 * may still use its batches, pending commits, object and context. */
	if (plugin->abandoned || !plugin_refresher_stop(plugin)) {
		if (plugin->registry != NULL)
			dci_registry_withdraw_owner(plugin->registry, plugin);
		plugin->supplier_count = 0;
		plugin->initialised = false;
		plugin->state = DCI_PLUGIN_STOPPED;
		return;
	}
	if (plugin->initialised && plugin->entry != NULL &&
	    plugin->entry->fini != NULL)
		plugin->entry->fini(&plugin->host, plugin->context);
	plugin->initialised = false;
	plugin->context = NULL;
	plugin->serve_start = NULL;
	plugin->serve_start_context = NULL;
	plugin->started = false;
	if (plugin->entry != NULL)
		dci_host_abort_open_batches(plugin);
	if (plugin->registry != NULL)
		dci_registry_withdraw_owner(plugin->registry, plugin);
	plugin->supplier_count = 0;
	if (plugin->library != NULL)
		dlclose(plugin->library);
	plugin->library = NULL;
	plugin->entry = NULL;
	if (plugin->state == DCI_PLUGIN_RUNNING)
		plugin->state = DCI_PLUGIN_STOPPED;
}

void
dci_plugin_close(struct dci_plugin *plugin)
{
	if (plugin == NULL)
		return;
	dci_plugin_stop(plugin);
	if (plugin->abandoned) {
		struct dci_plugin **grown = realloc(
		    abandoned_plugins, (abandoned_count + 1) * sizeof(*grown));
		/* Out of memory: a leak, never a free under its thread. */
		if (grown != NULL) {
			abandoned_plugins = grown;
			abandoned_plugins[abandoned_count++] = plugin;
		}
		return;
	}
	pthread_mutex_destroy(&plugin->refresher_lock);
	pthread_cond_destroy(&plugin->refresher_wake);
	free(plugin->pending);
	free(plugin->open_batches);
	free(plugin->suppliers);
	free(plugin->path);
	free(plugin->module);
	free(plugin->name);
	free(plugin);
}

/* A derived metric declared for a class that no provider registered is a
 * configuration error (a mistyped class id), not something to ignore. */
int
dci_plugins_check_derived(const struct dci_config *config,
    const struct dci_registry *registry, char *error, size_t error_size)
{
	for (size_t i = 0; i < config->derived_count; i++) {
		const struct dci_config_derived *derived = &config->derived[i];
		bool found = false;
		char id[DCI_CLASS_ID_MAX_LEVELS * 11] = "";
		size_t used = 0;

		for (size_t c = 0; c < registry->class_count && !found; c++) {
			const struct dci_class *class = registry->classes[c];
			found = dci_class_id_compare(class->id,
			            class->id_length, derived->class_id,
			            derived->class_id_length) == 0;
		}
		if (found)
			continue;
		for (size_t l = 0; l < derived->class_id_length; l++)
			used += (size_t)snprintf(id + used, sizeof(id) - used,
			    "%s%u", l ? "." : "", derived->class_id[l]);
		log_reason(error, error_size,
		    "%s:%u:%u: derived metric \"%s\": no provider registered "
		    "class %s",
		    derived->position.file, derived->position.line,
		    derived->position.column, derived->label, id);
		return -1;
	}
	return 0;
}

/* The process is the one that serves: each running provider's start runs
 * (an isolated one starts again, its process a child of this one, told to
 * serve), and a provider started later runs its start after its init. */
static void
plugins_serve(struct dci_plugins *plugins)
{
	int64_t now = dci_clock_milliseconds();
	char reason[1024], positioned[1200];

	plugins->serving = true;
	for (size_t i = 0; i < plugins->count; i++) {
		struct dci_plugin *plugin = plugins->items[i];

		plugin->serving = true;
		if (plugin->state != DCI_PLUGIN_RUNNING)
			continue;
		if (plugin->config->isolate) {
			if (dci_isolation_serving_needs_restart(
			        plugin->context) &&
			    dci_plugin_start(
			        plugin, now, reason, sizeof(reason)) != 0)
				log_warnx("%s; retrying with back-off", reason);
		} else if (dci_plugin_serve_start(
		               plugin, reason, sizeof(reason)) != 0) {
			snprintf(positioned, sizeof(positioned), "%s:%u:%u: %s",
			    plugin->config->module_position.file,
			    plugin->config->module_position.line,
			    plugin->config->module_position.column, reason);
			log_warnx("%s; retrying with back-off", positioned);
			plugin_fail_start(plugin, now, positioned);
		}
	}
}

int
dci_plugins_use_threads(struct dci_plugins *plugins)
{
	if (!plugins->serving)
		plugins_serve(plugins);
	if (plugins->threaded)
		return 0;
	if (pipe2(plugins->notify_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		log_warn("cannot create the refresh notification pipe; "
		         "refreshing every provider on the main thread");
		return -1;
	}
	plugins->threaded = true;
	for (size_t i = 0; i < plugins->count; i++) {
		struct dci_plugin *plugin = plugins->items[i];
		plugin->notify_fd = plugins->notify_pipe[1];
		if (plugin->state == DCI_PLUGIN_RUNNING)
			plugin_refresher_start(plugin);
	}
	return 0;
}

int
dci_plugins_notify_fd(const struct dci_plugins *plugins)
{
	return plugins->threaded ? plugins->notify_pipe[0] : -1;
}

int
dci_plugins_notify_write_fd(const struct dci_plugins *plugins)
{
	return plugins->threaded ? plugins->notify_pipe[1] : -1;
}

void
dci_plugins_drain_notifications(struct dci_plugins *plugins)
{
	char bytes[64];

	if (!plugins->threaded)
		return;
	while (read(plugins->notify_pipe[0], bytes, sizeof(bytes)) > 0) {
	}
}

/* A module's name as a supplier would carry it: the file name without
 * its directory and ".so". */
static char *
module_supplier_name(const char *module)
{
	const char *base = strrchr(module, '/');
	size_t length;

	base = base != NULL ? base + 1 : module;
	length = strlen(base);
	if (length > 3 && strcmp(base + length - 3, ".so") == 0)
		length -= 3;
	return strndup(base, length);
}

int
dci_plugins_reserve_names(
    const struct dci_config *config, struct dci_registry *registry)
{
	const char **holders =
	    calloc(config->provider_count ? config->provider_count : 1,
	        sizeof(*holders));
	int result = 0;

	if (holders == NULL) {
		log_warnx("supplier names not reserved: out of memory");
		return -1;
	}
	for (size_t i = 0; i < config->provider_count; i++)
		holders[i] = config->providers[i].module;
	dci_registry_reservations_retain(
	    registry, holders, config->provider_count);
	free(holders);
	for (size_t i = 0; i < config->provider_count; i++) {
		const char *module = config->providers[i].module;
		char *name = module_supplier_name(module);
		if (name == NULL || dci_registry_reserve_supplier(
		                        registry, name, module, true) != 0) {
			log_warnx("provider %s: supplier name not reserved: "
			          "out of memory",
			    module);
			result = -1;
		}
		free(name);
	}
	return result;
}

/* A strict load ends at its first failure: `reason` becomes the error and
 * the providers started so far are closed. Whether it ended. */
static bool
load_fails(enum dci_load_mode mode, struct dci_plugins *plugins,
    const char *reason, char *error, size_t error_size)
{
	if (mode != DCI_LOAD_STRICT)
		return false;
	log_reason(error, error_size, "%s", reason);
	dci_plugins_close(plugins);
	return true;
}

int
dci_plugins_load(const struct dci_config *config,
    const char *default_plugin_dir, struct dci_registry *registry,
    enum dci_load_mode mode, struct dci_plugins *plugins, char *error,
    size_t error_size)
{
	int64_t now = dci_clock_milliseconds();
	bool failed = false;
	char reason[1024];

	/* Every field set here: the caller's struct may hold anything, and a
	 * threaded flag read from it would start refresh threads writing to
	 * a pipe nobody made. Threads come later (dci_plugins_use_threads). */
	*plugins = (struct dci_plugins){.notify_pipe = {-1, -1}};
	plugins->items =
	    calloc(config->provider_count ? config->provider_count : 1,
	        sizeof(*plugins->items));
	if (plugins->items == NULL ||
	    dci_plugins_reserve_names(config, registry) != 0) {
		free(plugins->items);
		plugins->items = NULL;
		log_reason(error, error_size, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < config->provider_count; i++) {
		struct dci_plugin *plugin =
		    dci_plugin_new(config, i, default_plugin_dir, registry,
		        dci_plugins_notify_write_fd(plugins));

		if (plugin == NULL) {
			log_reason(error, error_size, "out of memory");
			dci_plugins_close(plugins);
			return -1;
		}
		plugins->items[plugins->count++] = plugin;
		if (dci_plugin_start(plugin, now, reason, sizeof(reason)) == 0)
			continue;
		if (load_fails(mode, plugins, reason, error, error_size))
			return -1;
		if (mode == DCI_LOAD_ONCE)
			log_warnx("%s", reason);
		else
			log_warnx("%s; retrying with back-off", reason);
		failed = true;
	}
	if (dci_plugins_check_derived(
	        config, registry, reason, sizeof(reason)) != 0) {
		if (load_fails(mode, plugins, reason, error, error_size))
			return -1;
		/* A failed provider's classes are missing until it starts. */
		if (!failed)
			log_warnx("%s", reason);
	}
	if (dci_config_check_watches(
	        config, registry, reason, sizeof(reason)) != 0) {
		if (load_fails(mode, plugins, reason, error, error_size))
			return -1;
		log_warnx("%s; that datum is not watched", reason);
	}
	return 0;
}

size_t
dci_plugins_run_due(struct dci_plugins *plugins, int64_t now)
{
	size_t ran = 0;

	/* What isolated providers left and dcistatd adopted, once ended
	 * (nothing in the snmpd module; at most every half second). */
	dci_isolation_reap_adopted(false);

	for (size_t i = 0; i < plugins->count; i++)
		ran += dci_plugin_run_due(plugins->items[i], now);
	return ran;
}

int64_t
dci_plugins_deadline(const struct dci_plugins *plugins)
{
	int64_t deadline = INT64_MAX;

	for (size_t i = 0; i < plugins->count; i++) {
		int64_t next = dci_plugin_deadline(plugins->items[i]);
		if (next < deadline)
			deadline = next;
	}
	return deadline;
}

void
dci_plugins_refresh_all(struct dci_plugins *plugins, int64_t now)
{
	for (size_t i = 0; i < plugins->count; i++) {
		struct dci_plugin *plugin = plugins->items[i];
		if (plugin->state != DCI_PLUGIN_RUNNING)
			continue;
		plugin->next_refresh_milliseconds = now;
		dci_plugin_run_due(plugin, now);
	}
}

void
dci_plugin_announce_restart(const struct dci_plugin *plugin)
{
	for (size_t i = 0; i < plugin->supplier_count; i++)
		dci_events_supplier(
		    plugin->suppliers[i], DCI_EVENTS_SUPPLIER_RESTARTED);
}

void
dci_plugins_restart_isolated(struct dci_plugins *plugins, int64_t now)
{
	char error[1024];

	for (size_t i = 0; i < plugins->count; i++) {
		struct dci_plugin *plugin = plugins->items[i];
		if (!plugin->config->isolate ||
		    plugin->state != DCI_PLUGIN_RUNNING)
			continue;
		if (dci_plugin_start(plugin, now, error, sizeof(error)) != 0)
			log_warnx("%s; retrying with back-off", error);
	}
}

void
dci_plugins_close(struct dci_plugins *plugins)
{
	/* Close in reverse order of loading. */
	while (plugins->count > 0)
		dci_plugin_close(plugins->items[--plugins->count]);
	free(plugins->items);
	plugins->items = NULL;
	if (plugins->threaded) {
		close(plugins->notify_pipe[0]);
		close(plugins->notify_pipe[1]);
		plugins->threaded = false;
	}
}
