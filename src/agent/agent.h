/*
 * The AgentX subagent: Net-SNMP set up as a subagent of the master at a
 * given AgentX socket, with the DCI-STATS-MIB tables registered, driven by
 * our own poll loop (agent_run, agent/event_loop.c). Net-SNMP appears only
 * here, in src/snmp (the MIB's OIDs and index encoding) and in
 * src/cli/remote.
 *
 * agent_serve is what the subagent shares with the snmpd module
 * (agent/dlmod.c), which runs inside snmpd's own agent and loop.
 */
#ifndef DCISTAT_AGENT_AGENT_H
#define DCISTAT_AGENT_AGENT_H

#include <stdbool.h>

#include "config/config.h"
#include "runtime/loader.h"
#include "model/registry.h"

struct agent_settings {
	const char *agentx_socket;         /* NULL: Net-SNMP's default */
	unsigned ping_interval_seconds;    /* reconnect / keep-alive period */
	enum dci_config_in_place in_place; /* agent/agentx_direct.h */
};

/* Called once per request PDU, before the first of its varbinds that
 * reaches the tables is answered. */
typedef void agent_before_request_function(void);

/* Registers the DCI-STATS-MIB tables over `registry` with the Net-SNMP
 * agent of this process (dcistatd's subagent, or snmpd itself), their
 * TimeStamps counted from its sysUpTime, with `before_request` (NULL:
 * none) in front of them. Touches no Net-SNMP setting. Returns 0, or -1
 * with nothing left registered. */
int agent_serve(struct dci_registry *registry,
    agent_before_request_function *before_request);
/* Unregisters them; nothing when they are not registered. */
void agent_unserve(void);

/* Initialises Net-SNMP as a subagent and registers the tables. A master
 * that is not there yet is not an error: the subagent retries every ping
 * interval and serves as soon as it connects. Returns 0 or -1. */
int agent_start(
    const struct agent_settings *settings, struct dci_registry *registry);

struct dci_server;

/* What the subagent's loop drives besides Net-SNMP. */
struct agent_loop {
	/* The DCI Server's sockets (server/dci_server.h), served after the
	 * refreshes due; NULL: none. */
	struct dci_server *dci_server;
	/* Refreshed, retried and aged on their schedule (loader.h): the loop
	 * wakes at dci_plugins_deadline and before reading each request. */
	struct dci_plugins *plugins;
	/* Called on SIGHUP, between requests. */
	void (*reload)(void *context);
	void *context;
	/* After a request answered in place (agent/agentx_direct.h), the
	 * loop polls the master's socket without sleeping, yielding the CPU
	 * between polls, for up to this long before it waits: the master's
	 * next request of a walk is then read without the wake-up of a
	 * sleeping process. 0: it waits at once. */
	unsigned busy_poll_microseconds;
};

/* Runs until SIGTERM or SIGINT. Returns 0 on a clean stop, -1 if the loop
 * failed. */
int agent_run(const struct agent_loop *loop);

/* Unregisters from the master and shuts Net-SNMP down. */
void agent_stop(void);

#endif
