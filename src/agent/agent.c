#define _GNU_SOURCE
#include "agent/agent.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>
#include <net-snmp/library/snmpUnixDomain.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

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
	if (agent_serving)
		return 0;
	agent_tables.registry = registry;
	/* Where sysUpTime was 0: a subagent has just started, snmpd may have
	 * run for long; a subagent's master tells its own later, and
	 * agent_tables_sync_uptime follows. */
	agent_tables_find_start(&agent_tables);
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

/*
 * AgentX Get and GetNext answered where they are read.
 *
 * Net-SNMP's subagent (handle_agentx_packet) passes every request from the
 * master to its own agent through a "callback" session: the request PDU is
 * cloned, queued and announced by a byte written to a pipe; the loop
 * selects, reads the byte and runs the agent, whose response takes the
 * same way back through a second pipe before it is cloned again and sent
 * to the master. That is six system calls (two writes, two reads, two
 * selects) and three PDU copies per request on top of the receive and the
 * send, and the master sends one request per varbind of a walk.
 *
 * When our tables are all this process registered (agent_tables_alone),
 * the AgentX session's callback answers Get and GetNext itself with
 * agent_tables_answer_agentx and sends the response at once. Everything
 * else (sets, GetBulk, a non-default context, pings and responses, a
 * disconnection) still goes to Net-SNMP's handler.
 */

/* RFC 2741's header: PDU types and flags (Net-SNMP keeps its definitions
 * in a header it does not install). */
#define AGENTX_GET 5
#define AGENTX_GETNEXT 6
#define AGENTX_RESPONSE 18
#define AGENTX_FLAGS 0x1f
#define AGENTX_FLAG_NON_DEFAULT_CONTEXT 0x08

/* The open session to the master (SNMPD_CALLBACK_INDEX_START until
 * SNMPD_CALLBACK_INDEX_STOP), or NULL. */
static netsnmp_session *agentx_session;
/* How long agent_stop waits for each answer of the master to the
 * unregistrations and the close: a master that stopped answering must not
 * hold a SIGTERM for the session's full timeouts and retries. */
#define AGENT_STOP_TIMEOUT_MICROSECONDS 100000

static snmp_callback agentx_net_snmp_callback;
/* The AgentX socket while agentx_direct answers on it, else -1. */
static int agentx_direct_socket = -1;
/* Net-SNMP's agent has been handed a request since the loop last saw its
 * callback pipes idle. */
static bool agentx_indirect_pending;

int
agent_direct_socket(void)
{
	return agentx_direct_socket;
}

bool
agent_indirect_pending(void)
{
	return agentx_indirect_pending;
}

void
agent_indirect_idle(void)
{
	agentx_indirect_pending = false;
}

static int
agentx_recv(netsnmp_transport *transport, void *buffer, int size, void **opaque,
    int *opaque_length)
{
	ssize_t count;

	*opaque = NULL;
	*opaque_length = 0;
	do
		count =
		    recv(transport->sock, buffer, (size_t)size, MSG_DONTWAIT);
	while (count < 0 && errno == EINTR);
	return (int)count;
}

static int
agentx_direct(int operation, netsnmp_session *session, int reqid,
    netsnmp_pdu *pdu, void *magic)
{
	netsnmp_pdu *response;

	if (operation != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu == NULL ||
	    (pdu->command != AGENTX_GET && pdu->command != AGENTX_GETNEXT) ||
	    (pdu->flags & AGENTX_FLAG_NON_DEFAULT_CONTEXT) != 0 ||
	    (response = snmp_pdu_create(AGENTX_RESPONSE)) == NULL) {
		if (operation == NETSNMP_CALLBACK_OP_DISCONNECT)
			agentx_direct_socket = -1;
		agentx_indirect_pending = true;
		return agentx_net_snmp_callback(
		    operation, session, reqid, pdu, magic);
	}
	/* The master is alive: no ping is due (as Net-SNMP's handler). */
	if (session->securityModel != SNMP_DEFAULT_SECMODEL)
		snmp_alarm_reset(session->securityModel);
	response->version = session->version;
	response->flags =
	    pdu->flags & AGENTX_FLAGS & ~AGENTX_FLAG_NON_DEFAULT_CONTEXT;
	response->sessid = pdu->sessid;
	response->transid = pdu->transid;
	response->reqid = pdu->reqid;
	response->errstat = 0;
	response->errindex = 0;
	/* The request's varbinds become the answers; the caller frees the
	 * request without them. */
	response->variables = pdu->variables;
	pdu->variables = NULL;
	agent_tables_answer_agentx(
	    &agent_tables, pdu->command == AGENTX_GETNEXT, response->variables);
	if (snmp_send(session, response) == 0)
		snmp_free_pdu(response);
	return 1;
}

/* SNMPD_CALLBACK_INDEX_START: Net-SNMP has opened (or reopened) the
 * session to the master; take over its requests. */
static int
agentx_session_opened(
    int major, int minor, void *server_argument, void *client_argument)
{
	netsnmp_session *session = server_argument;
	netsnmp_transport *transport;

	agentx_session = session;
	/* Only our tables registered: every Get and GetNext of the master can
	 * be answered without Net-SNMP's agent. */
	if (session == NULL || session->callback == agentx_direct ||
	    !agent_tables_alone())
		return 0;
	agentx_net_snmp_callback = session->callback;
	session->callback = agentx_direct;
	/* Net-SNMP's Unix-socket receive asks for the socket's own address
	 * (getsockname and a malloc) at every read, for nothing a subagent
	 * uses. */
	transport = snmp_sess_transport(snmp_sess_pointer(session));
	if (transport != NULL && transport->domain == netsnmp_UnixDomain &&
	    (transport->flags & NETSNMP_TRANSPORT_FLAG_STREAM) != 0)
		transport->f_recv = agentx_recv;
	agentx_direct_socket = transport != NULL ? transport->sock : -1;
	log_debug("agent", "AgentX requests answered in place");
	return 0;
}

/* SNMPD_CALLBACK_INDEX_STOP: the session to the master is closed. */
static int
agentx_session_closed(
    int major, int minor, void *server_argument, void *client_argument)
{
	agentx_session = NULL;
	return 0;
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
	snmp_register_callback(SNMP_CALLBACK_APPLICATION,
	    SNMPD_CALLBACK_INDEX_START, agentx_session_opened, NULL);
	snmp_register_callback(SNMP_CALLBACK_APPLICATION,
	    SNMPD_CALLBACK_INDEX_STOP, agentx_session_closed, NULL);
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
	if (agentx_session != NULL) {
		agentx_session->timeout = AGENT_STOP_TIMEOUT_MICROSECONDS;
		agentx_session->retries = 0;
	}
	agent_unserve();
	/* Closes the AgentX session, which unregisters our subtrees. */
	snmp_shutdown(AGENT_APPLICATION);
	agent_started = false;
}
