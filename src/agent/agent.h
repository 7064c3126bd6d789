/*
 * The AgentX subagent: Net-SNMP set up as a subagent of the master at a
 * given AgentX socket, with the DCI-STATS-MIB tables registered, driven by
 * our own poll loop (agent/event_loop.h). Everything Net-SNMP is confined
 * to src/agent.
 */
#ifndef DCISTAT_AGENT_AGENT_H
#define DCISTAT_AGENT_AGENT_H

#include "core/loader.h"
#include "core/registry.h"

struct agent_settings {
	const char *agentx_socket;      /* NULL: Net-SNMP's default */
	unsigned ping_interval_seconds; /* reconnect / keep-alive period */
};

/* Initialises Net-SNMP as a subagent and registers the tables. A master
 * that is not there yet is not an error: the subagent retries every ping
 * interval and serves as soon as it connects. Returns 0 or -1. */
int agent_start(
    const struct agent_settings *settings, struct dci_registry *registry);

/* Runs until SIGTERM or SIGINT; before each request is read, providers
 * whose snapshot is older than their refresh period are refreshed. Returns
 * 0 on a clean stop, -1 if the loop failed. */
int agent_run(struct dci_plugins *plugins);

/* Unregisters from the master and shuts Net-SNMP down. */
void agent_stop(void);

#endif
