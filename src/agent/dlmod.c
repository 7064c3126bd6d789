/*
 * Embedded mode: dcistat loaded into snmpd itself as a dlmod module,
 *
 *     dlmod dcistat /usr/lib/dcistat/dcistat.so
 *     dcistatConfig /etc/dcistat/dcistatd.yaml
 *
 * serving the same tables (agent_serve, shared with dcistatd) over the
 * providers of the same YAML file. Net-SNMP calls init_dcistat when it
 * reads the dlmod line and deinit_dcistat when it unloads the module; a
 * SIGHUP to snmpd rereads its configuration, which unloads and loads it
 * again.
 *
 * init_dcistat registers the configuration tokens, read after it returns
 * (so they must follow the dlmod line), and loads nothing: the providers
 * are loaded once snmpd has read all of its configuration
 * (SNMP_CALLBACK_POST_READ_CONFIG). A configuration that cannot be read or
 * a provider that cannot be loaded is logged and leaves the tables
 * unregistered; snmpd carries on.
 *
 * snmpd owns the process: its Net-SNMP settings, its logging (ours goes to
 * snmp_log) and its loop. With no loop of its own to refresh in, the module
 * refreshes the providers that are due once per request PDU, before the
 * PDU's first varbind of ours is answered (agent_serve's before_request):
 * every value in one PDU, GETBULK repetitions included, comes from the same
 * snapshots, a value is never older than its provider's refresh period, and
 * an idle snmpd does no work for dcistat.
 */
#define _GNU_SOURCE
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/snmp_log.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/loader.h"
#include "core/log.h"
#include "core/registry.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif
#ifndef PROVIDERDIR
#define PROVIDERDIR "/usr/lib/dcistat/providers"
#endif

#define DLMOD_CONFIG_TOKEN "dcistatConfig"
#define DLMOD_DEBUG_TOKEN "dcistatDebug"
#define DLMOD_DEFAULT_CONFIG SYSCONFDIR "/dcistat/dcistatd.yaml"

/* Found by Net-SNMP's dlmod as init_NAME and deinit_NAME. */
void init_dcistat(void);
void deinit_dcistat(void);

static struct {
	char *config_path; /* from dcistatConfig; NULL: the default */
	struct dci_config *config;
	struct dci_registry *registry;
	struct dci_plugins plugins;
} embedded;

static void
config_path_parse(const char *token, char *line)
{
	char path[4096];

	copy_nword(line, path, sizeof(path));
	if (path[0] != '/') {
		config_perror(
		    DLMOD_CONFIG_TOKEN " needs an absolute file path");
		return;
	}
	free(embedded.config_path);
	embedded.config_path = strdup(path);
}

static void
config_path_free(void)
{
	free(embedded.config_path);
	embedded.config_path = NULL;
}

static void
debug_parse(const char *token, char *line)
{
	char tokens[256];

	copy_nword(line, tokens, sizeof(tokens));
	log_set_debug_tokens(tokens);
}

static void
debug_free(void)
{
	log_set_debug_tokens(NULL);
}

/* Before each request PDU (agent_serve): refresh what is due. */
static void
embedded_refresh(void)
{
	dci_plugins_refresh_due(&embedded.plugins, dci_clock_milliseconds());
}

static void
embedded_unload(void)
{
	agent_unserve();
	dci_plugins_close(&embedded.plugins);
	dci_registry_free(embedded.registry);
	embedded.registry = NULL;
	dci_config_free(embedded.config);
	embedded.config = NULL;
}

/* SNMP_CALLBACK_POST_READ_CONFIG: snmpd has read snmpd.conf. */
static int
embedded_load(
    int major, int minor, void *server_argument, void *client_argument)
{
	const char *path = embedded.config_path != NULL ? embedded.config_path
	                                                : DLMOD_DEFAULT_CONFIG;
	char error[2048];

	embedded_unload(); /* from an earlier reading, if any */
	if (dci_config_load(path, &embedded.config, error, sizeof(error)) !=
	    0) {
		log_message(LOG_ERR, "%s; not serving DCI-STATS-MIB", error);
		return 0;
	}
	embedded.registry = dci_registry_new();
	if (embedded.registry == NULL) {
		log_message(
		    LOG_ERR, "out of memory; not serving DCI-STATS-MIB");
		embedded_unload();
		return 0;
	}
	if (dci_plugins_load(embedded.config, PROVIDERDIR, embedded.registry,
	        &embedded.plugins, error, sizeof(error)) != 0) {
		log_message(LOG_ERR, "%s; not serving DCI-STATS-MIB", error);
		embedded_unload();
		return 0;
	}
	dci_plugins_refresh_all(&embedded.plugins, dci_clock_milliseconds());
	if (agent_serve(embedded.registry, embedded_refresh) != 0) {
		log_message(
		    LOG_ERR, "cannot register the DCI-STATS-MIB tables");
		embedded_unload();
		return 0;
	}
	log_info("serving DCI-STATS-MIB from %s (%zu provider%s)", path,
	    embedded.plugins.count, embedded.plugins.count == 1 ? "" : "s");
	return 0;
}

void
init_dcistat(void)
{
	log_set_sink(agent_snmp_log_sink);
	register_app_config_handler(DLMOD_CONFIG_TOKEN, config_path_parse,
	    config_path_free, "FILE (default " DLMOD_DEFAULT_CONFIG ")");
	register_app_config_handler(
	    DLMOD_DEBUG_TOKEN, debug_parse, debug_free, "TOKEN[,TOKEN...]");
	snmp_register_callback(SNMP_CALLBACK_LIBRARY,
	    SNMP_CALLBACK_POST_READ_CONFIG, embedded_load, NULL);
}

void
deinit_dcistat(void)
{
	if (embedded.registry != NULL)
		log_info("stopped serving DCI-STATS-MIB");
	embedded_unload();
	snmp_unregister_callback(SNMP_CALLBACK_LIBRARY,
	    SNMP_CALLBACK_POST_READ_CONFIG, embedded_load, NULL, 1);
	unregister_app_config_handler(DLMOD_CONFIG_TOKEN);
	unregister_app_config_handler(DLMOD_DEBUG_TOKEN);
	config_path_free();
	debug_free();
	log_set_sink(NULL);
}
