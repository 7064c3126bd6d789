/*
 * Plug-ins: loading provider shared objects, starting them with their YAML
 * options, refreshing their snapshots on their schedule, retrying those
 * that failed, and withdrawing snapshots that went stale.
 *
 * A module named in the configuration is either a plain name, looked up as
 * PLUGIN_DIR/NAME.so, or an absolute path. The file is opened with
 * dlopen(RTLD_NOW | RTLD_LOCAL) so that an unresolved symbol fails at load
 * time, not at the first refresh; its entry symbol's ABI version must equal
 * DCI_PROVIDER_ABI_VERSION.
 *
 * Times are dci_clock_milliseconds() values, passed in so that the rules
 * can be tested without waiting.
 */
#ifndef DCISTAT_LOADER_H
#define DCISTAT_LOADER_H

#include <dcistat/provider.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "runtime/plugin.h"
#include "model/registry.h"

/* The longest wait between two tries of a provider that fails. */
#define DCI_PLUGIN_BACKOFF_MAX_MILLISECONDS 60000
/* The first wait after a provider failed to load or to initialise. */
#define DCI_PLUGIN_RETRY_FIRST_MILLISECONDS 1000
/* The longest a stop (dcistatd's, or a reload's of a provider removed or
 * restarted) waits for a provider's refresh in flight to return; then the
 * provider is abandoned (dci_plugin_stop). */
#define DCI_PLUGIN_STOP_WAIT_MILLISECONDS 5000

struct dci_plugins {
	struct dci_plugin **items;
	size_t count;
	/* After dci_plugins_use_threads: each running plug-in refreshes on a
	 * thread of its own and writes a byte to notify_pipe[1] when a
	 * refresh ends. */
	bool threaded;
	int notify_pipe[2];
	/* After dci_plugins_use_threads: this process serves, and runs the
	 * start of every provider that asks for one (provider.h). */
	bool serving;
};

enum dci_load_mode {
	/* Any provider that fails to load or to initialise, and any derived
	 * metric of a class nobody registered, fails the whole load (`-t`,
	 * --mib). */
	DCI_LOAD_STRICT,
	/* Those are logged, shown failed and retried; the rest is served
	 * (the daemon and the snmpd module). */
	DCI_LOAD_TOLERANT,
	/* Those are logged and shown failed, without the promise of a retry,
	 * and the rest is loaded: a one-shot command (dcistat show) that
	 * shows what it can, then exits non-zero. */
	DCI_LOAD_ONCE,
};

/* Resolves and opens one plug-in file and checks its entry symbol. Returns
 * NULL with a message naming the file in `error`. */
struct dci_plugin *dci_plugin_open(
    const char *module, const char *plugin_dir, char *error, size_t error_size);

/* Checks the configured option keys against the provider's option_keys;
 * -1 with "FILE:LINE:COLUMN: unknown option ..." in `error`. */
int dci_plugin_check_options(const struct dci_plugin *plugin,
    const struct dci_config_provider *config, char *error, size_t error_size);

/* A plug-in for entry `index` of `config`'s providers, not yet started,
 * refreshing on a thread of its own once started if notify_fd >= 0 (the
 * write end of dci_plugins' pipe); NULL: out of memory. */
struct dci_plugin *dci_plugin_new(const struct dci_config *config, size_t index,
    const char *default_plugin_dir, struct dci_registry *registry,
    int notify_fd);

/* Loads the file, checks the options and calls init, then, when the
 * plug-in serves (dci_plugins_use_threads ran), the start init asked for.
 * Returns 0 (running, due for a refresh at once), or -1 with
 * "FILE:LINE:COLUMN: reason" in `error`, the reason naming the provider's
 * last warning: the plug-in is then failed, unloaded, shown as a failed
 * supplier and due for another try after a back-off. */
int dci_plugin_start(
    struct dci_plugin *plugin, int64_t now, char *error, size_t error_size);

/* Hands every supplier of a running `plugin` to the event sink as
 * restarted (new reset stamps, model/events.h): after a start that follows
 * a failure, and after a reload replaced its provider. */
void dci_plugin_announce_restart(const struct dci_plugin *plugin);

/* Waits for a refresh in flight to return (refusing the registration or
 * withdrawal it may be waiting for, so that it can), calls fini (if init
 * ran), unloads, and removes what the provider registered from the
 * registry. A refresh that does not return within
 * DCI_PLUGIN_STOP_WAIT_MILLISECONDS is not waited for longer: the
 * provider is abandoned, as the log says, its registrations removed but
 * neither its fini run nor its object unloaded nor anything its refresh
 * may still touch freed (its thread runs on; what it asks is refused). */
void dci_plugin_stop(struct dci_plugin *plugin);

/* Stops and frees (an abandoned plugin is kept, never freed). */
void dci_plugin_close(struct dci_plugin *plugin);

/* Whether an abandoned plugin was started from `config`, which must then
 * outlive it: its refresh may read its options. */
bool dci_plugins_abandoned_use(const struct dci_config *config);

/* Does what is due at `now`: the registration or withdrawal a refresh on
 * its thread waits for, the installation of a refresh that ended there,
 * the refresh of a running plug-in whose period has passed
 * (started on its thread, or run here; a failure is logged, marks its
 * suppliers failed, keeps the snapshots and doubles the wait up to a
 * minute), another try of a failed one, and the withdrawal of its
 * snapshots older than stale_periods refresh periods. Returns true if a
 * refresh or a start ran or ended. */
bool dci_plugin_run_due(struct dci_plugin *plugin, int64_t now);

/* When dci_plugin_run_due next has something to do; INT64_MAX: never. */
int64_t dci_plugin_deadline(const struct dci_plugin *plugin);

/*
 * From now on the process serves: each running provider's start runs
 * (dci_serve_start, provider.h; a start that fails fails its provider,
 * retried with back-off as a failed init is), each isolated provider
 * starts again in a process of its own that serves, a provider started
 * later (a retry, a reload) runs its start right after its init; and each
 * plug-in refreshes on a thread of its own, so that one that blocks delays
 * no other and no request (the daemon and the snmpd module):
 * dci_plugins_notify_fd becomes readable when a refresh ends, and
 * dci_plugins_run_due installs its snapshots. Call it once the process is
 * what it stays (after daemon(), after snmpd forked): threads do not
 * survive a fork. Without it no start runs and refreshes run on the
 * thread that calls dci_plugins_run_due (tests, -t, --mib, dcistat
 * --standalone). Returns 0, or -1 (refreshes stay inline, the starts ran;
 * logged).
 */
int dci_plugins_use_threads(struct dci_plugins *plugins);
/* The descriptor that becomes readable when a refresh thread finishes, or
 * -1 when refreshes run inline. */
int dci_plugins_notify_fd(const struct dci_plugins *plugins);
/* Its write end, for dci_plugin_new; -1 likewise. */
int dci_plugins_notify_write_fd(const struct dci_plugins *plugins);
/* Empties the notifications read so far (before dci_plugins_run_due). */
void dci_plugins_drain_notifications(struct dci_plugins *plugins);

/*
 * Initialises *plugins (not threaded) and creates and starts a plug-in for
 * every provider of the configuration, in order, then checks that every class the configuration derives metrics
 * for was registered. Strict: on the first error returns -1 with the
 * message in `error`, nothing left loaded. Tolerant: failures are logged
 * with their position and the plug-ins kept, failed; returns 0 (-1 only
 * when out of memory).
 */
int dci_plugins_load(const struct dci_config *config,
    const char *default_plugin_dir, struct dci_registry *registry,
    enum dci_load_mode mode, struct dci_plugins *plugins, char *error,
    size_t error_size);

/* Reserves, before any of them starts, the supplier name of each provider
 * of `config` (its module's name: "netif" for both `netif` and
 * /path/netif.so) for that provider, and drops the reservations of
 * providers no longer configured (dci_registry_reserve_supplier). Returns
 * 0, or -1 out of memory (logged). */
int dci_plugins_reserve_names(
    const struct dci_config *config, struct dci_registry *registry);

/* Checks that every class `config` derives metrics for is registered;
 * -1 with "FILE:LINE:COLUMN: ..." otherwise. */
int dci_plugins_check_derived(const struct dci_config *config,
    const struct dci_registry *registry, char *error, size_t error_size);

/* dci_plugin_run_due for every plug-in; returns how many refreshed or
 * started. */
size_t dci_plugins_run_due(struct dci_plugins *plugins, int64_t now);
/* The earliest dci_plugin_deadline; INT64_MAX: none. */
int64_t dci_plugins_deadline(const struct dci_plugins *plugins);
/* Refreshes every running plug-in now (start-up, reload). */
void dci_plugins_refresh_all(struct dci_plugins *plugins, int64_t now);
/* After the daemon's fork: the processes of isolated providers were
 * children of the process that exited (and ended with it), so each running
 * isolated provider is started again, a child of this one. */
void dci_plugins_restart_isolated(struct dci_plugins *plugins, int64_t now);
/* Closes every plug-in, in reverse order of loading, and the notification
 * pipe. */
void dci_plugins_close(struct dci_plugins *plugins);

#endif
