#define _GNU_SOURCE
#include "runtime/lifecycle.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "model/events.h"
#include "base/log.h"
#include "base/secure_path.h"

static bool
texts_equal(const char *left, const char *right)
{
	if (left == NULL || right == NULL)
		return left == right;
	return strcmp(left, right) == 0;
}

/* The first `count` strings of two lists are the same. */
static bool
strings_equal(char *const *left, char *const *right, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(left[i], right[i]) != 0)
			return false;
	return true;
}

static bool
access_equal(const struct dci_config *before, const struct dci_config *after)
{
	if (before->dci_access_count != after->dci_access_count)
		return false;
	for (size_t i = 0; i < before->dci_access_count; i++) {
		const struct dci_config_dci_access *left =
		    &before->dci_access[i];
		const struct dci_config_dci_access *right =
		    &after->dci_access[i];

		if (left->class_id_length != right->class_id_length ||
		    left->instance_words != right->instance_words ||
		    left->user_count != right->user_count ||
		    left->group_count != right->group_count ||
		    memcmp(left->class_id, right->class_id,
		        left->class_id_length * sizeof(left->class_id[0])) !=
		        0 ||
		    memcmp(left->instance, right->instance,
		        left->instance_words * sizeof(left->instance[0])) !=
		        0 ||
		    !strings_equal(
		        left->users, right->users, left->user_count) ||
		    !strings_equal(
		        left->groups, right->groups, left->group_count))
			return false;
	}
	return true;
}

/* Names, comma-separated in `names`, the keys of the agent section that
 * differ between the two configurations and that dcistatd reads only at
 * its start (src/agent/main.c); the log and the notifications are applied
 * at the reload itself, the providers' keys by the reload. */
static void
start_keys_changed(const struct dci_config *before,
    const struct dci_config *after, char *names, size_t size)
{
	const struct {
		const char *key;
		bool changed;
	} keys[] = {
	    {"agentx-socket",
	        !texts_equal(before->agentx_socket, after->agentx_socket)},
	    {"ping-interval",
	        before->ping_interval_seconds != after->ping_interval_seconds},
	    {"in-place-answers", before->in_place != after->in_place},
	    {"busy-poll", before->busy_poll_microseconds !=
	                      after->busy_poll_microseconds},
	    {"user", !texts_equal(before->user, after->user)},
	    {"dci-socket", !texts_equal(before->dci_socket, after->dci_socket)},
	    {"dci-socket-mode",
	        before->dci_socket_mode != after->dci_socket_mode},
	    {"dci-access", !access_equal(before, after)},
	    {"dci-work",
	        before->dci_work_milliseconds != after->dci_work_milliseconds},
	};
	size_t used = 0;

	names[0] = '\0';
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int written;

		if (!keys[i].changed || used >= size)
			continue;
		written = snprintf(names + used, size - used, "%s%s",
		    used > 0 ? ", " : "", keys[i].key);
		if (written > 0)
			used += (size_t)written;
	}
}

static bool
options_equal(
    const struct dci_config_option *left, const struct dci_config_option *right)
{
	if (strcmp(left->key, right->key) != 0 ||
	    left->is_sequence != right->is_sequence ||
	    left->value_count != right->value_count ||
	    !strings_equal(left->values, right->values, left->value_count))
		return false;
	return true;
}

/* Two provider entries that start the same provider the same way. */
static bool
providers_equal(const struct dci_config_provider *left,
    const struct dci_config_provider *right)
{
	if (strcmp(left->module, right->module) != 0 ||
	    left->refresh_milliseconds != right->refresh_milliseconds ||
	    left->stale_periods != right->stale_periods ||
	    left->isolate != right->isolate ||
	    left->option_count != right->option_count)
		return false;
	for (size_t i = 0; i < left->option_count; i++)
		if (!options_equal(&left->options[i], &right->options[i]))
			return false;
	return true;
}

static bool
derived_equal(const struct dci_config_derived *left,
    const struct dci_config_derived *right)
{
	if (dci_class_id_compare(left->class_id, left->class_id_length,
	        right->class_id, right->class_id_length) != 0 ||
	    strcmp(left->label, right->label) != 0 ||
	    !texts_equal(left->description, right->description) ||
	    left->id != right->id || left->derivation != right->derivation ||
	    left->argument_count != right->argument_count ||
	    !strings_equal(
	        left->arguments, right->arguments, left->argument_count))
		return false;
	return true;
}

/* The next derived metric of `config` for `class` from position `*at`
 * on, or NULL; *at moves past it. */
static const struct dci_config_derived *
derived_next(
    const struct dci_config *config, const struct dci_class *class, size_t *at)
{
	for (; *at < config->derived_count; (*at)++) {
		const struct dci_config_derived *derived =
		    &config->derived[*at];
		if (dci_class_id_compare(class->id, class->id_length,
		        derived->class_id, derived->class_id_length) == 0) {
			(*at)++;
			return derived;
		}
	}
	return NULL;
}

/* Whether `class` gains, loses or changes a derived metric between the
 * two configurations: its entries, in order, differ. */
static bool
class_derived_changed(const struct dci_class *class,
    const struct dci_config *before, const struct dci_config *after)
{
	size_t at_before = 0, at_after = 0;

	for (;;) {
		const struct dci_config_derived *old =
		    derived_next(before, class, &at_before);
		const struct dci_config_derived *new =
		    derived_next(after, class, &at_after);
		if (old == NULL || new == NULL)
			return old != new;
		if (!derived_equal(old, new))
			return true;
	}
}

static const char *
plugin_dir_of(const struct dci_config *config, const char *default_dir)
{
	return config->plugin_dir != NULL ? config->plugin_dir : default_dir;
}

/* Whether a running plug-in can carry on under the new configuration's
 * entry `entry`: same entry, same file, same derived metrics. */
static bool
plugin_kept(const struct dci_plugin *plugin,
    const struct dci_config_provider *entry, const struct dci_config *after,
    const char *default_dir)
{
	const struct dci_registry *registry = plugin->registry;

	if (plugin->state != DCI_PLUGIN_RUNNING ||
	    !providers_equal(plugin->config, entry))
		return false;
	if (strchr(entry->module, '/') == NULL &&
	    strcmp(plugin_dir_of(plugin->source, default_dir),
	        plugin_dir_of(after, default_dir)) != 0)
		return false;
	for (size_t i = 0; i < registry->class_count; i++) {
		const struct dci_class *class = registry->classes[i];
		if (class->owner == plugin &&
		    class_derived_changed(class, plugin->source, after))
			return false;
	}
	return true;
}

static bool
config_referenced(
    const struct dci_lifecycle *lifecycle, const struct dci_config *config)
{
	for (size_t i = 0; i < lifecycle->plugins.count; i++)
		if (lifecycle->plugins.items[i]->source == config ||
		    lifecycle->plugins.items[i]->derived_source == config)
			return true;
	/* An abandoned provider's refresh may read its options yet. */
	return dci_plugins_abandoned_use(config);
}

/* Frees the retired configurations no plug-in refers to any more. */
static void
retired_collect(struct dci_lifecycle *lifecycle)
{
	size_t kept = 0;

	for (size_t i = 0; i < lifecycle->retired_count; i++) {
		struct dci_config *config = lifecycle->retired[i];
		if (config_referenced(lifecycle, config))
			lifecycle->retired[kept++] = config;
		else
			dci_config_free(config);
	}
	lifecycle->retired_count = kept;
}

/* The configuration, read only from a file that passes the strict paths
 * rule (base/secure_path.h). */
static int
config_read(const char *path, struct dci_config **config, char *error,
    size_t error_size)
{
	if (dci_secure_path_check(path, error, error_size) != 0)
		return -1;
	return dci_config_load(path, config, error, error_size);
}

int
dci_lifecycle_load(struct dci_lifecycle *lifecycle, const char *config_path,
    const char *default_plugin_dir, enum dci_load_mode mode, char *error,
    size_t error_size)
{
	memset(lifecycle, 0, sizeof(*lifecycle));
	lifecycle->config_path = strdup(config_path);
	lifecycle->default_plugin_dir = strdup(default_plugin_dir);
	lifecycle->registry = dci_registry_new();
	if (lifecycle->config_path == NULL ||
	    lifecycle->default_plugin_dir == NULL ||
	    lifecycle->registry == NULL) {
		log_reason(error, error_size, "out of memory");
		goto failed;
	}
	if (config_read(config_path, &lifecycle->config, error, error_size) !=
	    0)
		goto failed;
	if (dci_plugins_load(lifecycle->config, default_plugin_dir,
	        lifecycle->registry, mode, &lifecycle->plugins, error,
	        error_size) != 0)
		goto failed;
	return 0;

failed:
	dci_lifecycle_unload(lifecycle);
	return -1;
}

int
dci_lifecycle_reload(struct dci_lifecycle *lifecycle,
    struct dci_lifecycle_changes *changes, char *error, size_t error_size)
{
	struct dci_lifecycle_changes counted = {0};
	struct dci_config *after = NULL, *before = lifecycle->config;
	int64_t started = dci_clock_milliseconds();
	struct dci_plugins *plugins = &lifecycle->plugins;
	struct dci_plugin **next;
	struct dci_config **retired_grown;
	bool *taken, *claimed;
	int64_t now;
	char reason[1024];

	if (config_read(lifecycle->config_path, &after, error, error_size) !=
	    0) {
		log_warnx("reload refused, the running configuration is kept: "
		          "%s",
		    error_size > 0 ? error : "");
		return -1;
	}
	next = calloc(
	    after->provider_count ? after->provider_count : 1, sizeof(*next));
	taken = calloc(plugins->count ? plugins->count : 1, sizeof(*taken));
	claimed = calloc(after->provider_count ? after->provider_count : 1,
	    sizeof(*claimed));
	retired_grown = realloc(lifecycle->retired,
	    (lifecycle->retired_count + 1) * sizeof(*retired_grown));
	if (retired_grown != NULL)
		lifecycle->retired = retired_grown;
	if (next == NULL || taken == NULL || claimed == NULL ||
	    retired_grown == NULL) {
		log_reason(error, error_size, "%s: out of memory",
		    lifecycle->config_path);
		free(next);
		free(taken);
		free(claimed);
		dci_config_free(after);
		return -1;
	}

	/* Entries that keep their plug-in, matched in order so that a
	 * module named twice keeps each of its plug-ins. */
	for (size_t i = 0; i < after->provider_count; i++) {
		for (size_t p = 0; p < plugins->count && next[i] == NULL; p++) {
			if (taken[p] || !plugin_kept(plugins->items[p],
			                    &after->providers[i], after,
			                    lifecycle->default_plugin_dir))
				continue;
			taken[p] = true;
			next[i] = plugins->items[p];
			counted.unchanged++;
		}
	}
	/* A kept plug-in's classes have the same derived metrics in both
	 * configurations (plugin_kept); a class it registers from now on,
	 * from a refresh, gets the new configuration's. */
	for (size_t i = 0; i < after->provider_count; i++) {
		if (next[i] == NULL)
			continue;
		next[i]->derived = after->derived;
		next[i]->derived_count = after->derived_count;
		next[i]->derived_source = after;
	}
	/* The others stop first, so that a class moving from one provider
	 * to another finds its id free. */
	for (size_t p = 0; p < plugins->count; p++) {
		bool restarted = false;
		if (taken[p])
			continue;
		/* Counted as restarted when an entry of the same module
		 * takes its place. */
		for (size_t i = 0; i < after->provider_count && !restarted;
		     i++) {
			restarted = next[i] == NULL && !claimed[i] &&
			            strcmp(after->providers[i].module,
			                plugins->items[p]->module) == 0;
			claimed[i] = claimed[i] || restarted;
		}
		if (restarted)
			counted.restarted++;
		else
			counted.removed++;
		dci_plugin_close(plugins->items[p]);
	}
	/* The new configuration's names are reserved before its providers
	 * start; those of providers removed are free. */
	dci_plugins_reserve_names(after, lifecycle->registry);
	now = dci_clock_milliseconds();
	for (size_t i = 0; i < after->provider_count; i++) {
		if (next[i] != NULL)
			continue;
		next[i] = dci_plugin_new(after, i,
		    lifecycle->default_plugin_dir, lifecycle->registry,
		    dci_plugins_notify_write_fd(plugins));
		if (next[i] == NULL) {
			log_warnx("%s: provider %s: out of memory",
			    lifecycle->config_path, after->providers[i].module);
			continue;
		}
		next[i]->serving = plugins->serving;
		if (dci_plugin_start(next[i], now, reason, sizeof(reason)) != 0)
			log_warnx("%s; retrying with back-off", reason);
		else if (claimed[i])
			/* In the place of a provider of the same module: its
			 * suppliers' reset stamps are new. */
			dci_plugin_announce_restart(next[i]);
	}
	/* Entries that could not even be allocated are dropped. */
	{
		size_t kept = 0;
		for (size_t i = 0; i < after->provider_count; i++)
			if (next[i] != NULL)
				next[kept++] = next[i];
		free(plugins->items);
		plugins->items = next;
		plugins->count = kept;
	}
	counted.added =
	    after->provider_count - counted.unchanged - counted.restarted;
	free(taken);
	free(claimed);

	start_keys_changed(before, after, counted.start_keys_changed,
	    sizeof(counted.start_keys_changed));
	lifecycle->retired[lifecycle->retired_count++] = before;
	lifecycle->config = after;
	retired_collect(lifecycle);
	if (dci_plugins_check_derived(
	        after, lifecycle->registry, reason, sizeof(reason)) != 0)
		log_warnx("%s", reason);
	if (dci_config_check_watches(
	        after, lifecycle->registry, reason, sizeof(reason)) != 0)
		log_warnx("%s; that datum is not watched", reason);
	dci_plugins_run_due(plugins, dci_clock_milliseconds());
	log_info("reloaded %s in %lld ms: %zu provider%s unchanged, %zu added, "
	         "%zu removed, %zu restarted",
	    lifecycle->config_path,
	    (long long)(dci_clock_milliseconds() - started), counted.unchanged,
	    counted.unchanged == 1 ? "" : "s", counted.added, counted.removed,
	    counted.restarted);
	if (changes != NULL)
		*changes = counted;
	return 0;
}

void
dci_lifecycle_unload(struct dci_lifecycle *lifecycle)
{
	dci_plugins_close(&lifecycle->plugins);
	dci_registry_free(lifecycle->registry);
	/* What an abandoned provider was started from stays: its refresh
	 * may read its options until the process ends. */
	if (!dci_plugins_abandoned_use(lifecycle->config))
		dci_config_free(lifecycle->config);
	for (size_t i = 0; i < lifecycle->retired_count; i++)
		if (!dci_plugins_abandoned_use(lifecycle->retired[i]))
			dci_config_free(lifecycle->retired[i]);
	free(lifecycle->retired);
	free(lifecycle->config_path);
	free(lifecycle->default_plugin_dir);
	memset(lifecycle, 0, sizeof(*lifecycle));
}
