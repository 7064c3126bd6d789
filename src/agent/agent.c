#define _GNU_SOURCE
#include "agent/agent.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <stdlib.h>

#include "agent/snmp_log.h"
#include "agent/tables.h"
#include "core/clock.h"
#include "core/log.h"

#define AGENT_APPLICATION "dcistatd"

static struct agent_tables agent_tables;
static bool agent_serving;
static bool agent_started;

int
agent_serve(struct dci_registry *registry,
    agent_before_request_function *before_request)
{
	int64_t now = dci_clock_milliseconds();

	if (agent_serving)
		return 0;
	agent_tables.registry = registry;
	/* Where sysUpTime was 0: a subagent has just started, snmpd may have
	 * run for long; agent_tables_follow_uptime keeps it right. */
	agent_tables.start_milliseconds =
	    now - (int64_t)netsnmp_get_agent_uptime() * 10;
	agent_tables.before_request = before_request;
	if (agent_tables_register(&agent_tables) != 0) {
		agent_tables_unregister();
		return -1;
	}
	agent_serving = true;
	return 0;
}

void
agent_unserve(void)
{
	if (!agent_serving)
		return;
	agent_tables_unregister();
	agent_serving = false;
}

int
agent_start(
    const struct agent_settings *settings, struct dci_registry *registry)
{
	/* The daemon needs no MIB files: every OID it serves is compiled in. */
	setenv("MIBS", "", 1);
	agent_snmp_log_route();

	netsnmp_ds_set_boolean(
	    NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	if (settings->agentx_socket != NULL)
		netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID,
		    NETSNMP_DS_AGENT_X_SOCKET, settings->agentx_socket);
	/* Alarms run from our loop (run_alarms), not from SIGALRM. */
	netsnmp_ds_set_boolean(
	    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_ALARM_DONT_USE_SIG, 1);
	/* Our configuration is the YAML file; read no snmp.conf files and
	 * write no persistent state. */
	netsnmp_ds_set_boolean(
	    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(
	    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	netsnmp_ds_set_boolean(
	    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(
	    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);

	if (init_agent(AGENT_APPLICATION) != 0) {
		log_warnx("agent: Net-SNMP agent initialisation failed");
		return -1;
	}
	/* After init_agent, which resets the agent's defaults, and before
	 * init_snmp, which opens the master session and arms the reconnect
	 * alarm with this period. */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID,
	    NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL,
	    (int)settings->ping_interval_seconds);

	/* agent_run refreshes before it reads a request. */
	if (agent_serve(registry, NULL) != 0) {
		snmp_shutdown(AGENT_APPLICATION);
		return -1;
	}
	init_snmp(AGENT_APPLICATION);
	agent_started = true;
	log_info("agent: AgentX subagent started (master socket %s, ping "
	         "every %u s)",
	    settings->agentx_socket ? settings->agentx_socket
	                            : "Net-SNMP default",
	    settings->ping_interval_seconds);
	return 0;
}

void
agent_stop(void)
{
	if (!agent_started)
		return;
	agent_unserve();
	/* Closes the AgentX session, which unregisters our subtrees. */
	snmp_shutdown(AGENT_APPLICATION);
	agent_started = false;
}
