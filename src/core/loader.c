#define _GNU_SOURCE
#include "core/loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/host.h"
#include "core/log.h"

#define LOADER_BACKOFF_MAX_MILLISECONDS 60000

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

struct dci_plugin *
dci_plugin_open(
    const char *module, const char *plugin_dir, char *error, size_t error_size)
{
	struct dci_plugin *plugin;
	struct stat status;
	void *symbol;

	if (strchr(module, '/') != NULL && module[0] != '/') {
		log_reason(error, error_size,
		    "%s: provider module must be a name or an absolute path",
		    module);
		return NULL;
	}
	plugin = calloc(1, sizeof(*plugin));
	if (plugin == NULL) {
		log_reason(error, error_size, "out of memory");
		return NULL;
	}
	plugin->host.operations = &dci_host_operations;
	plugin->path = plugin_path(module, plugin_dir);
	plugin->name = strdup(module);
	if (plugin->path == NULL || plugin->name == NULL) {
		log_reason(error, error_size, "out of memory");
		goto failed;
	}
	/* dlopen's own message for a missing file is vague; say it plainly. */
	if (stat(plugin->path, &status) != 0) {
		log_reason(error, error_size, "%s: provider \"%s\": %s",
		    plugin->path, module, strerror(errno));
		goto failed;
	}
	if (!S_ISREG(status.st_mode)) {
		log_reason(error, error_size,
		    "%s: provider \"%s\": not a regular file", plugin->path,
		    module);
		goto failed;
	}
	dlerror();
	plugin->library = dlopen(plugin->path, RTLD_NOW | RTLD_LOCAL);
	if (plugin->library == NULL) {
		log_reason(error, error_size, "%s: cannot load provider: %s",
		    plugin->path, dlerror());
		goto failed;
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
	return plugin;

failed:
	plugin->entry = NULL;
	dci_plugin_close(plugin);
	return NULL;
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

int
dci_plugin_start(struct dci_plugin *plugin, struct dci_registry *registry,
    const struct dci_config_provider *config, char *error, size_t error_size)
{
	plugin->registry = registry;
	plugin->config = config;
	plugin->refresh_milliseconds =
	    config != NULL ? config->refresh_milliseconds : 1000;
	if (dci_plugin_check_options(plugin, config, error, error_size) != 0)
		return -1;
	if (plugin->entry->init(&plugin->host, &plugin->context) != 0) {
		dci_host_abort_open_batches(plugin);
		log_reason(error, error_size,
		    "%s: provider %s failed to initialise (see the messages "
		    "above)",
		    plugin->path, plugin->name);
		/* fini is still called: init may have built part of its
		 * context. */
		plugin->initialised = true;
		return -1;
	}
	plugin->initialised = true;
	if (plugin->refresh_limit_milliseconds != 0 &&
	    plugin->refresh_milliseconds > plugin->refresh_limit_milliseconds) {
		log_info("provider %s: refresh every %u ms, not %u: its "
		         "counters' widening tolerates no longer",
		    plugin->name, plugin->refresh_limit_milliseconds,
		    plugin->refresh_milliseconds);
		plugin->refresh_milliseconds =
		    plugin->refresh_limit_milliseconds;
	}
	return 0;
}

static void
suppliers_mark(
    struct dci_plugin *plugin, enum dci_supplier_status status, int64_t now)
{
	for (size_t i = 0; i < plugin->supplier_count; i++) {
		plugin->suppliers[i]->status = status;
		if (status == DCI_SUPPLIER_RUNNING)
			plugin->suppliers[i]->last_refresh_milliseconds = now;
	}
}

static void
plugin_refresh(struct dci_plugin *plugin, int64_t now)
{
	int result;

	result = plugin->entry->refresh(&plugin->host, plugin->context);
	dci_host_abort_open_batches(plugin);
	if (result == 0) {
		if (plugin->consecutive_failures > 0)
			log_notice("provider %s: refresh works again after %u "
			           "failures",
			    plugin->name, plugin->consecutive_failures);
		plugin->consecutive_failures = 0;
		suppliers_mark(plugin, DCI_SUPPLIER_RUNNING, now);
		plugin->next_refresh_milliseconds =
		    now + plugin->refresh_milliseconds;
		return;
	}
	plugin->consecutive_failures++;
	suppliers_mark(plugin, DCI_SUPPLIER_FAILED, now);
	{
		int64_t delay = plugin->refresh_milliseconds;
		for (unsigned i = 1; i < plugin->consecutive_failures &&
		                     delay < LOADER_BACKOFF_MAX_MILLISECONDS;
		     i++)
			delay *= 2;
		if (delay > LOADER_BACKOFF_MAX_MILLISECONDS)
			delay = LOADER_BACKOFF_MAX_MILLISECONDS;
		plugin->next_refresh_milliseconds = now + delay;
		log_warnx("provider %s: refresh failed (%u in a row); serving "
		          "the previous snapshot, next try in %lld ms",
		    plugin->name, plugin->consecutive_failures,
		    (long long)delay);
	}
}

bool
dci_plugin_refresh_if_due(struct dci_plugin *plugin, int64_t now)
{
	if (!plugin->initialised || now < plugin->next_refresh_milliseconds)
		return false;
	plugin_refresh(plugin, now);
	return true;
}

void
dci_plugin_close(struct dci_plugin *plugin)
{
	if (plugin == NULL)
		return;
	if (plugin->initialised && plugin->entry != NULL &&
	    plugin->entry->fini != NULL)
		plugin->entry->fini(&plugin->host, plugin->context);
	if (plugin->entry != NULL)
		dci_host_abort_open_batches(plugin);
	if (plugin->library != NULL)
		dlclose(plugin->library);
	free(plugin->open_batches);
	free(plugin->suppliers);
	free(plugin->path);
	free(plugin->name);
	free(plugin);
}

/* A derived metric declared for a class that no provider registered is a
 * configuration error (a mistyped class id), not something to ignore. */
static int
derived_classes_registered(const struct dci_config *config,
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

int
dci_plugins_load(const struct dci_config *config,
    const char *default_plugin_dir, struct dci_registry *registry,
    struct dci_plugins *plugins, char *error, size_t error_size)
{
	const char *plugin_dir = config->plugin_dir != NULL
	                             ? config->plugin_dir
	                             : default_plugin_dir;
	char reason[1024];

	plugins->items =
	    calloc(config->provider_count ? config->provider_count : 1,
	        sizeof(*plugins->items));
	plugins->count = 0;
	if (plugins->items == NULL) {
		log_reason(error, error_size, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < config->provider_count; i++) {
		const struct dci_config_provider *provider =
		    &config->providers[i];
		struct dci_plugin *plugin = dci_plugin_open(
		    provider->module, plugin_dir, reason, sizeof(reason));

		if (plugin == NULL) {
			log_reason(error, error_size, "%s:%u:%u: %s",
			    provider->module_position.file,
			    provider->module_position.line,
			    provider->module_position.column, reason);
			dci_plugins_close(plugins);
			return -1;
		}
		plugins->items[plugins->count++] = plugin;
		plugin->derived = config->derived;
		plugin->derived_count = config->derived_count;
		if (dci_plugin_start(
		        plugin, registry, provider, error, error_size) != 0) {
			dci_plugins_close(plugins);
			return -1;
		}
	}
	if (derived_classes_registered(config, registry, error, error_size) !=
	    0) {
		dci_plugins_close(plugins);
		return -1;
	}
	return 0;
}

size_t
dci_plugins_refresh_due(struct dci_plugins *plugins, int64_t now)
{
	size_t refreshed = 0;

	for (size_t i = 0; i < plugins->count; i++)
		refreshed += dci_plugin_refresh_if_due(plugins->items[i], now);
	return refreshed;
}

void
dci_plugins_refresh_all(struct dci_plugins *plugins, int64_t now)
{
	for (size_t i = 0; i < plugins->count; i++) {
		plugins->items[i]->next_refresh_milliseconds = now;
		dci_plugin_refresh_if_due(plugins->items[i], now);
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
}
