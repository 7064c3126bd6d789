/*
 * Plug-ins: loading provider shared objects, starting them with their YAML
 * options, and refreshing their snapshots when due.
 *
 * A module named in the configuration is either a plain name, looked up as
 * PLUGIN_DIR/NAME.so, or an absolute path. The file is opened with
 * dlopen(RTLD_NOW | RTLD_LOCAL) so that an unresolved symbol fails at load
 * time, not at the first refresh; its entry symbol's ABI version must equal
 * DCI_PROVIDER_ABI_VERSION.
 */
#ifndef DCISTAT_LOADER_H
#define DCISTAT_LOADER_H

#include <dcistat/provider.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/registry.h"

struct dci_plugin {
	struct dci_host host; /* first: what the provider is handed */
	char *name;           /* the provider's name, for messages */
	char *path;           /* the file loaded */
	void *library;
	const struct dci_provider *entry;
	const struct dci_config_provider *config;
	/* The configuration's top-level `derived` list: added to the classes
	 * this provider registers. */
	const struct dci_config_derived *derived;
	size_t derived_count;
	struct dci_registry *registry;
	void *context;
	bool initialised;
	unsigned refresh_milliseconds;
	/* The longest period the provider's widening tolerates
	 * (dci_refresh_limit); refresh_milliseconds never exceeds it. */
	unsigned refresh_limit_milliseconds; /* 0: none declared */
	int64_t next_refresh_milliseconds;   /* due when now >= this */
	unsigned consecutive_failures;
	struct dci_supplier **suppliers;
	size_t supplier_count;
	struct dci_batch **open_batches; /* begun and not yet committed */
	size_t open_batch_count;
};

struct dci_plugins {
	struct dci_plugin **items;
	size_t count;
};

/* Resolves and opens one plug-in file and checks its entry symbol. Returns
 * NULL with a message naming the file in `error`. */
struct dci_plugin *dci_plugin_open(
    const char *module, const char *plugin_dir, char *error, size_t error_size);

/* Checks the configured option keys against the provider's option_keys;
 * -1 with "FILE:LINE:COLUMN: unknown option ..." in `error`. */
int dci_plugin_check_options(const struct dci_plugin *plugin,
    const struct dci_config_provider *config, char *error, size_t error_size);

/* Checks the configured options against the provider's option keys and
 * calls its init. Returns 0, or -1 with the reason (file:line:column for an
 * unknown option) in `error`; the provider's own messages are logged. */
int dci_plugin_start(struct dci_plugin *plugin, struct dci_registry *registry,
    const struct dci_config_provider *config, char *error, size_t error_size);

/* Calls the provider's refresh if its snapshot is older than its refresh
 * period (or it is in back-off and the back-off has passed). A failure is
 * logged, marks its suppliers failed, keeps the previous snapshots and
 * doubles the retry delay up to a minute. Returns true if refresh ran. */
bool dci_plugin_refresh_if_due(struct dci_plugin *plugin, int64_t now);

/* Calls fini (if init ran) and unloads. */
void dci_plugin_close(struct dci_plugin *plugin);

/* Opens and starts (init) every provider of the configuration, in order,
 * then checks that every class the configuration derives metrics for was
 * registered. On error returns -1 with the message in `error`, nothing left
 * loaded. */
int dci_plugins_load(const struct dci_config *config,
    const char *default_plugin_dir, struct dci_registry *registry,
    struct dci_plugins *plugins, char *error, size_t error_size);
/* Refreshes every plug-in that is due; returns how many ran. */
size_t dci_plugins_refresh_due(struct dci_plugins *plugins, int64_t now);
/* Forces a refresh of every plug-in now (start-up). */
void dci_plugins_refresh_all(struct dci_plugins *plugins, int64_t now);
void dci_plugins_close(struct dci_plugins *plugins);

#endif
