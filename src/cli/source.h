/*
 * Where dcistat's statistics come from. A source fills a model registry
 * (suppliers, classes, datums and each class's snapshot of instances and
 * values) and keeps it current; every command reads only that registry,
 * through the model's functions, and every output format only the tables the
 * commands make (document.h). So a second source, such as one reading
 * DCI-STATS-MIB from an agent over SNMP, is one more implementation of
 * these operations that fills a registry from what it reads, and the
 * output stays the same for the same data.
 */
#ifndef DCISTAT_CLI_SOURCE_H
#define DCISTAT_CLI_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/registry.h"

struct cli_source;

struct cli_source_operations {
	/* Brings every class up to date now. Returns 0, or -1 with the
	 * reason in `error`. */
	int (*refresh)(
	    struct cli_source *source, char *error, size_t error_size);
	/* Returns at `deadline` (dci_clock_milliseconds), doing meanwhile
	 * what the source's own schedule needs (the local source refreshes
	 * its providers when due, as dcistatd does, so that the counters the
	 * host widens never miss a wrap). */
	void (*wait_until)(struct cli_source *source, int64_t deadline);
	/* Frees everything; the registry goes with it. Called through
	 * cli_source_close. */
	void (*close)(struct cli_source *source);
};

struct cli_source {
	const struct cli_source_operations *operations;
	struct dci_registry *registry;
	void *state;
	/* Providers the local source could not load, initialise or refresh
	 * once (each reported on stderr): a one-shot command then exits
	 * non-zero. */
	size_t providers_failed;
};

/* Closes the source (its operations' close) and forgets its state and
 * registry, which went with it. */
static inline void
cli_source_close(struct cli_source *source)
{
	source->operations->close(source);
	source->state = NULL;
	source->registry = NULL;
}

/*
 * The local source: loads the providers of the dcistatd configuration at
 * `config_path` in this process, with the same model, loader and lifecycle
 * as dcistatd (providers named by name are looked up in `plugin_dir`
 * unless the file says otherwise), and refreshes each once. A provider
 * that fails to load, or whose first refresh fails, is reported on stderr,
 * counted in `providers_failed` and shown as a failed supplier, as
 * dcistatd shows it;
 * `retry` (watch, which runs on) retries it as dcistatd does, otherwise
 * the report promises no retry. Returns 0, or -1 with
 * "FILE:LINE:COLUMN: reason" in `error`.
 */
int cli_source_local_open(struct cli_source *source, const char *config_path,
    const char *plugin_dir, bool retry, char *error, size_t error_size);

/*
 * The daemon's source: what the running dcistatd serves through its DCI
 * Server at `socket_path` (agent: dci-socket), rebuilt into a registry
 * (cli/daemon_registry.h) and refreshed by asking again. A failed
 * supplier the daemon shows is counted in `providers_failed`. Returns 0;
 * 1 when no daemon answers there (no such socket, connection refused or
 * not permitted, or no answer to the first request within half a second:
 * the caller may fall back to the local source); -1 when
 * one answered but its answers could not be read. The reason is in
 * `error` either way.
 */
int cli_source_daemon_open(struct cli_source *source, const char *socket_path,
    char *error, size_t error_size);

#endif
