/*
 * The one load sequence (configuration, registry, plug-ins, derived
 * metrics) and its reload, used by dcistatd's start, its SIGHUP, `-t`,
 * `--mib` and the snmpd module, so that each behaves the same.
 *
 * A reload reads and checks the whole file first; a bad one changes
 * nothing. A good one is applied as a difference: providers removed are
 * finished and unloaded (their rows go), providers added are loaded, a
 * provider whose entry changed (module, refresh, stale-periods, options),
 * whose plug-in directory changed or whose classes gain or lose derived
 * metrics is restarted, and the others keep their state: snapshots,
 * creation and discontinuity times, supplier indexes, and whatever the
 * provider keeps across refreshes. It runs between requests, never during
 * one, so no answer mixes two configurations.
 */
#ifndef DCISTAT_RUNTIME_LIFECYCLE_H
#define DCISTAT_RUNTIME_LIFECYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "runtime/loader.h"
#include "model/registry.h"

struct dci_lifecycle {
	char *config_path;
	char *default_plugin_dir;
	struct dci_config *config; /* the running configuration */
	/* Earlier configurations that running plug-ins were started from:
	 * the option strings their providers were handed point into them. */
	struct dci_config **retired;
	size_t retired_count;
	struct dci_registry *registry;
	struct dci_plugins plugins;
};

/* What a reload did, for its log line and the tests. */
struct dci_lifecycle_changes {
	size_t unchanged, added, removed, restarted;
	/* The keys of the agent section that changed and that dcistatd reads
	 * only at its start (agentx-socket, ping-interval, in-place-answers,
	 * busy-poll, user, dci-socket, dci-socket-mode, dci-access), named
	 * comma-separated in the order of dcistatd(8); "": none. */
	char start_keys_changed[160];
};

/*
 * Reads `config_path`, creates the registry and starts every provider
 * (loader.h's modes: strict for -t and --mib, tolerant for serving).
 * Returns 0, or -1 with "FILE:LINE:COLUMN: message" in `error` and
 * nothing left loaded.
 */
int dci_lifecycle_load(struct dci_lifecycle *lifecycle, const char *config_path,
    const char *default_plugin_dir, enum dci_load_mode mode, char *error,
    size_t error_size);

/*
 * Reads the configuration file again and applies the difference (above).
 * Returns 0 with `changes` filled (may be NULL), or -1 with the error in
 * `error` and the running configuration untouched; either way the outcome
 * is logged. Providers started are refreshed at once (inline, or their
 * refresh begun on their threads).
 */
int dci_lifecycle_reload(struct dci_lifecycle *lifecycle,
    struct dci_lifecycle_changes *changes, char *error, size_t error_size);

/* Stops every provider and frees everything; the structure is zeroed. */
void dci_lifecycle_unload(struct dci_lifecycle *lifecycle);

#endif
