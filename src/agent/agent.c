#define _GNU_SOURCE
#include "agent/agent.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>
#include <stdlib.h>

#include "agent/agentx_direct.h"
#include "agent/master_diagnosis.h"
#include "agent/master_session.h"
#include "agent/notifications.h"
#include "agent/registration.h"
#include "snmp/netsnmp_log.h"
#include "agent/tables.h"
#include "base/clock.h"
#include "base/log.h"

#define AGENT_APPLICATION "dcistatd"

static struct agent_tables agent_tables;
static bool agent_serving;
static bool agent_started;
/* The master's socket as configured, and the ping interval, for what is
 * logged when the master comes. */
static const char *agent_master_name;
static unsigned agent_ping_interval;
/* The first session is not open yet: its opening is news. */
static bool agent_waiting;

int
agent_serve(struct dci_registry *registry,
    agent_before_request_function *before_request)
{
	if (agent_serving)
		return 0;
	agent_tables.registry = registry;
	/* Where sysUpTime was 0: a subagent has just started, snmpd may have
	 * run for long; a subagent's master tells its own later, and
	 * agent_timestamps_sync follows. */
	agent_timestamps_find_start(&agent_tables.timestamps);
	agent_tables.before_request = before_request;
	if (agent_registration_add(&agent_tables) != 0) {
		agent_registration_remove();
		return -1;
	}
	agent_serving = true;
	/* From here on commits are changes to notify; the first snapshots
	 * (model/events.h) are not. */
	agent_notifications_start();
	return 0;
}

void
agent_unserve(void)
{
	if (!agent_serving)
		return;
	agent_notifications_stop();
	agent_registration_remove();
	agent_serving = false;
}

/* Net-SNMP could not connect to the master: why, said once a cause. */
static void
agent_master_unreachable(void)
{
	agent_master_connect_failed(agent_master_name);
}

/* SNMPD_CALLBACK_INDEX_START: the session to the master is open. The
 * first one is the first moment a notification reaches a receiver: the
 * providers that failed to start are announced then. */
static int
agentx_session_opened(
    int major, int minor, void *server_argument, void *client_argument)
{
	static bool announced;

	if (!announced && agent_serving) {
		announced = true;
		agent_notifications_announce_failures(agent_tables.registry);
	}
	agent_master_connect_succeeded();
	if (agent_waiting) {
		agent_waiting = false;
		log_info("agent: AgentX subagent started: the master at %s "
		         "answered",
		    agent_master_name);
	}
	return 0;
}

int
agent_start(
    const struct agent_settings *settings, struct dci_registry *registry)
{
	/* Alarms run from our loop (run_alarms), not from SIGALRM. Our
	 * configuration is the YAML file: no snmp.conf file is read and no
	 * persistent state read or written. */
	static const int library_settings_on[] = {
	    NETSNMP_DS_LIB_ALARM_DONT_USE_SIG,
	    NETSNMP_DS_LIB_DONT_READ_CONFIGS,
	    NETSNMP_DS_LIB_DONT_PERSIST_STATE,
	    NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD,
	    NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE,
	};

	/* The daemon needs no MIB files: every OID it serves is compiled in. */
	setenv("MIBS", "", 1);
	agent_master_name = settings->agentx_socket != NULL
	                        ? settings->agentx_socket
	                        : AGENT_MASTER_DEFAULT_SOCKET;
	agent_ping_interval = settings->ping_interval_seconds;
	dci_netsnmp_log_on_connect_failed(agent_master_unreachable);
	dci_netsnmp_log_route();

	netsnmp_ds_set_boolean(
	    NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	if (settings->agentx_socket != NULL)
		netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID,
		    NETSNMP_DS_AGENT_X_SOCKET, settings->agentx_socket);
	for (size_t i = 0;
	     i < sizeof(library_settings_on) / sizeof(*library_settings_on);
	     i++)
		netsnmp_ds_set_boolean(
		    NETSNMP_DS_LIBRARY_ID, library_settings_on[i], 1);

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
	snmp_register_callback(SNMP_CALLBACK_APPLICATION,
	    SNMPD_CALLBACK_INDEX_START, agentx_session_opened, NULL);
	agent_direct_setup(&agent_tables, settings->in_place);
	agent_master_setup(settings->ping_interval_seconds);
	init_snmp(AGENT_APPLICATION);
	agent_started = true;
	/* A master that refuses a table serves it from another subagent:
	 * this one would answer nothing there. */
	if (agent_master_wait_registered() != 0) {
		log_warnx("agent: the AgentX master refused DCI-STATS-MIB "
		          "tables (above); not starting a second agent for "
		          "them");
		agent_stop();
		return -1;
	}
	/* "Started" only with a session: before it, nothing is served. */
	if (agent_master_socket() >= 0)
		log_info("agent: AgentX subagent started (master socket %s, "
		         "ping every %u s)",
		    agent_master_name, agent_ping_interval);
	else {
		agent_waiting = true;
		log_info("agent: AgentX subagent waiting for the master at %s "
		         "(tried again every %u s)",
		    agent_master_name, agent_ping_interval);
	}
	return 0;
}

void
agent_stop(void)
{
	if (!agent_started)
		return;
	/* First: the master drops the session's registrations with it, and
	 * Net-SNMP then has no Unregister to send (which would remove another
	 * subagent's registration of the same subtree, and waits inside
	 * Net-SNMP's callbacks). */
	agent_master_close();
	agent_unserve();
	snmp_shutdown(AGENT_APPLICATION);
	agent_started = false;
}
