/* The local source (source.h): the providers loaded in this process. */
#define _GNU_SOURCE
#include "cli/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/clock.h"
#include "runtime/lifecycle.h"
#include "base/log.h"

static int
local_refresh(struct cli_source *source, char *error, size_t error_size)
{
	struct dci_lifecycle *lifecycle = source->state;

	(void)error;
	(void)error_size;
	dci_plugins_refresh_all(&lifecycle->plugins, dci_clock_milliseconds());
	return 0;
}

static void
local_wait_until(struct cli_source *source, int64_t deadline)
{
	struct dci_lifecycle *lifecycle = source->state;

	for (;;) {
		int64_t now = dci_clock_milliseconds(), next;
		struct timespec pause;

		if (now >= deadline)
			return;
		next = dci_plugins_deadline(&lifecycle->plugins);
		if (next > deadline)
			next = deadline;
		if (next > now) {
			pause.tv_sec = (time_t)((next - now) / 1000);
			pause.tv_nsec = (long)((next - now) % 1000) * 1000000L;
			while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
				;
		}
		dci_plugins_run_due(
		    &lifecycle->plugins, dci_clock_milliseconds());
	}
}

static void
local_close(struct cli_source *source)
{
	struct dci_lifecycle *lifecycle = source->state;

	if (lifecycle != NULL) {
		dci_lifecycle_unload(lifecycle);
		free(lifecycle);
	}
}

static const struct cli_source_operations local_operations = {
    .refresh = local_refresh,
    .wait_until = local_wait_until,
    .close = local_close,
};

int
cli_source_local_open(struct cli_source *source, const char *config_path,
    const char *plugin_dir, bool retry, char *error, size_t error_size)
{
	struct dci_lifecycle *lifecycle = calloc(1, sizeof(*lifecycle));

	if (lifecycle == NULL) {
		snprintf(error, error_size, "out of memory");
		return -1;
	}
	if (dci_lifecycle_load(lifecycle, config_path, plugin_dir,
	        retry ? DCI_LOAD_TOLERANT : DCI_LOAD_ONCE, error,
	        error_size) != 0) {
		free(lifecycle);
		return -1;
	}
	source->operations = &local_operations;
	source->state = lifecycle;
	source->registry = lifecycle->registry;
	if (local_refresh(source, error, error_size) != 0)
		return -1;
	/* Counted after the first refresh: a provider that loads but cannot
	 * refresh has nothing to show either. */
	source->providers_failed = 0;
	for (size_t i = 0; i < lifecycle->plugins.count; i++) {
		const struct dci_plugin *plugin = lifecycle->plugins.items[i];

		if (plugin->state == DCI_PLUGIN_FAILED ||
		    plugin->consecutive_failures > 0)
			source->providers_failed++;
	}
	return 0;
}
