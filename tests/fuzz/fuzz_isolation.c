/*
 * libFuzzer target for what an isolated provider's process sends
 * dcistatd (runtime/isolation_wire.h): any bytes, read as its messages and
 * replayed through a plug-in's host over a registry of its own, as
 * dcistatd replays a refresh. The process runs provider code and is not
 * trusted: every message must be replayed or refused without a crash, an
 * out-of-bounds read, a leak or undefined behaviour (ASan and UBSan).
 */
#include <stdint.h>
#include <stdlib.h>

#include "config/config.h"
#include "runtime/isolation.h"
#include "runtime/loader.h"
#include "base/log.h"
#include "model/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
quiet(int level, const char *message)
{
	(void)level;
	(void)message;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char text[] = "providers:\n"
	                           "  - module: /nonexistent/provider.so\n"
	                           "    isolate: true\n";
	static struct dci_config *config;
	struct dci_registry *registry;
	struct dci_plugin *plugin;
	char error[512];

	if (config == NULL) {
		log_set_sink(quiet);
		if (dci_config_parse(text, sizeof(text) - 1, "fuzz.yaml",
		        &config, error, sizeof(error)) != 0)
			abort();
	}
	registry = dci_registry_new();
	if (registry == NULL)
		return 0;
	plugin = dci_plugin_new(config, 0, "/", registry, -1);
	if (plugin != NULL) {
		struct dci_isolation_replayer *replayer =
		    dci_isolation_replayer_new(plugin);
		if (replayer != NULL)
			dci_isolation_replay(replayer, data, size);
		dci_isolation_replayer_free(replayer);
		dci_plugin_close(plugin);
	}
	dci_registry_free(registry);
	return 0;
}
