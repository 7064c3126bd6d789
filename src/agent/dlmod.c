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
 * (SNMP_CALLBACK_POST_READ_CONFIG), by the same lifecycle as dcistatd's. A
 * configuration that cannot be read is logged and leaves the tables
 * unregistered; a provider that fails to load is shown failed and retried,
 * and the others are served; snmpd carries on.
 *
 * Reload. The module pins itself in memory (RTLD_NODELETE), so that the
 * unload and load of a SIGHUP keep its state: the configuration is then
 * reloaded as dcistatd's SIGHUP does (runtime/lifecycle.h), a bad file keeps
 * the running one, and unchanged providers keep their snapshots and
 * times. A reading of snmpd.conf without our dlmod line unloads the
 * providers.
 *
 * snmpd owns the process: its Net-SNMP settings, its logging (ours goes to
 * snmp_log) and its loop. The DCI Server of the configuration's
 * dci-socket runs on that loop (agent/embedded_dci.h), started again at
 * each reading of the configuration and stopped at unload. Providers are
 * refreshed on their schedule from a Net-SNMP alarm set to the next deadline,
 * and also once per request PDU when due, before the PDU's first varbind of
 * ours is answered (agent_serve's before_request): every value in one PDU,
 * GETBULK repetitions included, comes from the same snapshots.
 */
#define _GNU_SOURCE
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/embedded_alarm.h"
#include "agent/embedded_dci.h"
#include "agent/notifications.h"
#include "snmp/netsnmp_log.h"
#include "base/clock.h"
#include "config/config.h"
#include "runtime/lifecycle.h"
#include "base/log.h"
#include "model/registry.h"
#include "base/secure_path.h"

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
	bool loaded;       /* lifecycle holds a configuration */
	struct dci_lifecycle lifecycle;
	unsigned alarm; /* the refresh alarm, 0: none */
	/* The module stays mapped across snmpd's unload and load. */
	bool pinned;
	/* init_dcistat ran since snmpd last finished reading its
	 * configuration: the dlmod line is still there. */
	bool initialised;
	bool callback_registered;
	int notify_fd; /* registered with snmpd's loop, or -1 */
	/* A fresh load's failed providers are still to be announced
	 * (agent_notifications_announce_failures). */
	bool announce;
} embedded = {.notify_fd = -1};

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

static void embedded_schedule(void);

/* A refresh thread finished: install its snapshots, set the alarm. */
static void
embedded_notified(int fd, void *argument)
{
	dci_plugins_drain_notifications(&embedded.lifecycle.plugins);
	dci_plugins_run_due(
	    &embedded.lifecycle.plugins, dci_clock_milliseconds());
	embedded_schedule();
}

/* Providers' starts and refresh threads run from snmpd's loop, never at
 * its reading of the configuration: snmpd may fork after that, and
 * threads do not survive a fork; nor do isolated providers' processes,
 * which dci_plugins_use_threads starts again. */
static void
embedded_use_threads(void)
{
	int fd;

	if (!embedded.loaded || embedded.notify_fd >= 0 ||
	    dci_plugins_use_threads(&embedded.lifecycle.plugins) != 0)
		return;
	fd = dci_plugins_notify_fd(&embedded.lifecycle.plugins);
	if (register_readfd(fd, embedded_notified, NULL) != 0) {
		log_warnx("cannot watch the refresh notifications; refreshes "
		          "are installed on the next alarm or request");
		return;
	}
	embedded.notify_fd = fd;
}

/* The refresh alarm: what is due runs, then the alarm is set again for
 * the next deadline. */
static void
embedded_alarm(unsigned int number, void *argument)
{
	embedded.alarm = 0;
	embedded_use_threads();
	dci_plugins_run_due(
	    &embedded.lifecycle.plugins, dci_clock_milliseconds());
	embedded_schedule();
}

static void
embedded_schedule(void)
{
	int64_t deadline;

	if (embedded.alarm != 0)
		snmp_alarm_unregister(embedded.alarm);
	embedded.alarm = 0;
	if (!embedded.loaded)
		return;
	deadline = dci_plugins_deadline(&embedded.lifecycle.plugins);
	if (deadline == INT64_MAX)
		return;
	embedded.alarm = embedded_alarm_at(deadline, embedded_alarm, NULL);
	if (embedded.alarm == 0)
		log_warnx("cannot set the refresh alarm; refreshing on "
		          "requests only");
}

/* Before each request PDU (agent_serve): refresh what is due. */
static void
embedded_refresh(void)
{
	embedded_use_threads();
	if (dci_plugins_run_due(
	        &embedded.lifecycle.plugins, dci_clock_milliseconds()) > 0)
		embedded_schedule();
}

/* Nothing is answered, refreshed on schedule or served to DCI consumers
 * any more; what is loaded stays. */
static void
embedded_stop_serving(void)
{
	embedded_dci_stop();
	agent_unserve();
	if (embedded.alarm != 0)
		snmp_alarm_unregister(embedded.alarm);
	embedded.alarm = 0;
}

static void
embedded_unload(void)
{
	embedded_stop_serving();
	if (embedded.notify_fd >= 0)
		unregister_readfd(embedded.notify_fd);
	embedded.notify_fd = -1;
	if (embedded.loaded)
		dci_lifecycle_unload(&embedded.lifecycle);
	embedded.loaded = false;
}

/* Loads the configuration, or reloads it when one from the same file is
 * running. False: nothing to serve. */
static bool
embedded_load_configuration(const char *path)
{
	char error[2048];

	/* Refused or applied, the reload logs its outcome; either way the
	 * module serves. */
	if (embedded.loaded &&
	    strcmp(embedded.lifecycle.config_path, path) == 0) {
		if (dci_lifecycle_reload(
		        &embedded.lifecycle, NULL, error, sizeof(error)) == 0)
			agent_notifications_configure(
			    &embedded.lifecycle.config->notifications);
		return true;
	}
	embedded_unload();
	if (dci_lifecycle_load(&embedded.lifecycle, path, PROVIDERDIR,
	        DCI_LOAD_TOLERANT, error, sizeof(error)) != 0) {
		log_message(LOG_ERR, "%s; not serving DCI-STATS-MIB", error);
		return false;
	}
	embedded.loaded = true;
	embedded.announce = true;
	agent_notifications_configure(
	    &embedded.lifecycle.config->notifications);
	dci_plugins_refresh_all(
	    &embedded.lifecycle.plugins, dci_clock_milliseconds());
	log_info("serving DCI-STATS-MIB from %s (%zu provider%s)", path,
	    embedded.lifecycle.plugins.count,
	    embedded.lifecycle.plugins.count == 1 ? "" : "s");
	return true;
}

/* SNMP_CALLBACK_POST_READ_CONFIG: snmpd has read snmpd.conf. Registered
 * once and kept while the module is pinned, so that it also sees a
 * reading that no longer loads the module. */
static int
embedded_load(
    int major, int minor, void *server_argument, void *client_argument)
{
	const char *path = embedded.config_path != NULL ? embedded.config_path
	                                                : DLMOD_DEFAULT_CONFIG;

	if (!embedded.initialised) {
		/* The dlmod line is gone: stop the providers. */
		if (embedded.loaded)
			log_info("stopped serving DCI-STATS-MIB");
		embedded_unload();
		return 0;
	}
	embedded.initialised = false;
	agent_unserve();
	/* A reload keeps the registry: what it changes (a provider
	 * restarted, say) is news, as in dcistatd. */
	if (embedded.loaded)
		agent_notifications_start();
	if (!embedded_load_configuration(path)) {
		embedded_unload();
		return 0;
	}
	if (agent_serve(embedded.lifecycle.registry, embedded_refresh) != 0) {
		log_message(
		    LOG_ERR, "cannot register the DCI-STATS-MIB tables");
		embedded_unload();
		return 0;
	}
	if (embedded.announce) {
		embedded.announce = false;
		agent_notifications_announce_failures(
		    embedded.lifecycle.registry);
	}
	/* Started anew at every reading, with the configuration's socket
	 * and rules; a socket that cannot be served leaves SNMP served. */
	embedded_dci_start(
	    embedded.lifecycle.config, embedded.lifecycle.registry);
	embedded_schedule();
	return 0;
}

/* Keeps this module mapped after snmpd's dlclose, so that its state
 * survives the unload and load of a SIGHUP. */
static void
embedded_pin(void)
{
	Dl_info information;

	if (embedded.pinned)
		return;
	if (dladdr((void *)init_dcistat, &information) != 0 &&
	    information.dli_fname != NULL &&
	    dlopen(information.dli_fname,
	        RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != NULL)
		embedded.pinned = true;
	else
		log_warnx("cannot keep the module loaded across SIGHUP (%s); "
		          "a reload starts every provider anew",
		    dlerror());
}

void
init_dcistat(void)
{
	const char *insecure = getenv("DCISTAT_INSECURE_PATHS");

	log_set_sink(dci_netsnmp_log_sink);
	/* snmpd runs as root: the configuration and the providers only from
	 * files root alone can change, as dcistatd reads them (strict paths,
	 * base/secure_path.h); DCISTAT_INSECURE_PATHS=1 in snmpd's
	 * environment lets a development tree off. */
	dci_secure_path_require(
	    insecure == NULL || strcmp(insecure, "1") != 0, geteuid());
	embedded_pin();
	embedded.initialised = true;
	register_app_config_handler(DLMOD_CONFIG_TOKEN, config_path_parse,
	    config_path_free, "FILE (default " DLMOD_DEFAULT_CONFIG ")");
	register_app_config_handler(
	    DLMOD_DEBUG_TOKEN, debug_parse, debug_free, "TOKEN[,TOKEN...]");
	if (!embedded.callback_registered)
		snmp_register_callback(SNMP_CALLBACK_LIBRARY,
		    SNMP_CALLBACK_POST_READ_CONFIG, embedded_load, NULL);
	embedded.callback_registered = true;
}

void
deinit_dcistat(void)
{
	/* Nothing is answered until the next reading of the configuration,
	 * which reloads (pinned) or loads anew; DCI consumers are
	 * disconnected and the socket file removed. */
	embedded_stop_serving();
	if (!embedded.pinned) {
		if (embedded.loaded)
			log_info("stopped serving DCI-STATS-MIB");
		embedded_unload();
		snmp_unregister_callback(SNMP_CALLBACK_LIBRARY,
		    SNMP_CALLBACK_POST_READ_CONFIG, embedded_load, NULL, 1);
		embedded.callback_registered = false;
	}
	unregister_app_config_handler(DLMOD_CONFIG_TOKEN);
	unregister_app_config_handler(DLMOD_DEBUG_TOKEN);
	config_path_free();
	debug_free();
	if (!embedded.pinned)
		log_set_sink(NULL);
}
