#define _GNU_SOURCE
#include "agent/agentx_direct.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>
#include <net-snmp/library/snmpUnixDomain.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "agent/agentx_answer.h"
#include "agent/agentx_encode.h"
#include "agent/registration.h"
#include "base/log.h"

/* The Net-SNMP versions whose internals (above) this file was tested
 * with; CI runs every integration test with it on and off. */
static const char *const tested_versions[] = {"5.9.3"};

/* RFC 2741's header: PDU types and flags. */
#define AGENTX_GET 5
#define AGENTX_GETNEXT 6
#define AGENTX_RESPONSE 18
#define AGENTX_FLAGS 0x1f
#define AGENTX_FLAG_NON_DEFAULT_CONTEXT 0x08

static struct agent_tables *direct_tables;
static snmp_callback net_snmp_callback;
/* The AgentX socket while answers are sent on it, else -1. */
static int direct_socket = -1;
/* Net-SNMP's agent has been handed a request since the loop last saw its
 * callback pipes idle. */
static bool indirect_pending;
/* Answers whose send failed since the last one logged. */
static unsigned long send_failures;
/* The encoded answer, kept for the next. */
static struct agent_agentx_buffer answer_buffer;
/* How long a full socket may hold up an answer's send. */
#define SEND_WAIT_MILLISECONDS 1000

int
agent_direct_socket(void)
{
	return direct_socket;
}

bool
agent_direct_pending(void)
{
	return indirect_pending;
}

void
agent_direct_idle(void)
{
	indirect_pending = false;
}

/* Net-SNMP's Unix-socket receive asks for the socket's own address
 * (getsockname and a malloc) at every read, for nothing a subagent uses. */
static int
direct_receive(netsnmp_transport *transport, void *buffer, int size,
    void **opaque, int *opaque_length)
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

/* A failed send loses one answer: the master times the request out (and a
 * manager retries); the session itself is Net-SNMP's to repair. Logged at
 * the first failure and then every 1000th, so a broken socket cannot fill
 * the log. */
static void
send_failed(const char *reason)
{
	if (send_failures++ % 1000 == 0)
		log_warnx("agent: cannot send an AgentX answer to the master "
		          "(%s); %lu lost so far",
		    reason, send_failures);
}

/* Writes all of an encoded answer on the AgentX socket, waiting at most
 * SEND_WAIT_MILLISECONDS each time the socket is full. False with errno
 * set when it could not. */
static bool
send_all(int socket, const unsigned char *bytes, size_t length)
{
	while (length > 0) {
		ssize_t sent = send(socket, bytes, length, MSG_NOSIGNAL);
		if (sent > 0) {
			bytes += sent;
			length -= (size_t)sent;
		} else if (sent < 0 && errno == EINTR) {
			continue;
		} else if (sent < 0 &&
		           (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd writable = {socket, POLLOUT, 0};
			int ready = poll(&writable, 1, SEND_WAIT_MILLISECONDS);
			if (ready == 0)
				errno = ETIMEDOUT;
			if (ready <= 0 && errno != EINTR)
				return false;
		} else {
			return false;
		}
	}
	return true;
}

/* The answer built by Net-SNMP's AgentX code, for what
 * agent_agentx_encode_response does not take. */
static void
send_through_net_snmp(netsnmp_session *session, netsnmp_pdu *request)
{
	netsnmp_pdu *response = snmp_pdu_create(AGENTX_RESPONSE);

	if (response == NULL) {
		send_failed("out of memory");
		return;
	}
	response->version = session->version;
	response->flags =
	    request->flags & AGENTX_FLAGS & ~AGENTX_FLAG_NON_DEFAULT_CONTEXT;
	response->sessid = request->sessid;
	response->transid = request->transid;
	response->reqid = request->reqid;
	response->errstat = 0;
	response->errindex = 0;
	/* The request's varbinds move to the response; the caller frees the
	 * request without them. */
	response->variables = request->variables;
	request->variables = NULL;
	if (snmp_send(session, response) == 0) {
		send_failed(snmp_api_errstring(session->s_snmp_errno));
		snmp_free_pdu(response);
	}
}

static int
direct_callback(int operation, netsnmp_session *session, int reqid,
    netsnmp_pdu *pdu, void *magic)
{
	struct agent_agentx_ids ids;
	size_t length;

	if (operation != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu == NULL ||
	    (pdu->command != AGENTX_GET && pdu->command != AGENTX_GETNEXT) ||
	    (pdu->flags & AGENTX_FLAG_NON_DEFAULT_CONTEXT) != 0) {
		if (operation == NETSNMP_CALLBACK_OP_DISCONNECT)
			direct_socket = -1;
		indirect_pending = true;
		return net_snmp_callback(operation, session, reqid, pdu, magic);
	}
	/* The master is alive: no ping is due (as Net-SNMP's handler). */
	if (session->securityModel != SNMP_DEFAULT_SECMODEL)
		snmp_alarm_reset(session->securityModel);
	/* The request's varbinds become the answers, encoded straight from
	 * them (the caller frees the request); Net-SNMP builds only what the
	 * encoding does not take. */
	agent_agentx_answer(
	    direct_tables, pdu->command == AGENTX_GETNEXT, pdu->variables);
	ids = (struct agent_agentx_ids){(uint32_t)pdu->sessid,
	    (uint32_t)pdu->transid, (uint32_t)pdu->reqid};
	length = direct_socket >= 0 ? agent_agentx_encode_response(
	                                  &answer_buffer, &ids, pdu->variables)
	                            : 0;
	if (length == 0)
		send_through_net_snmp(session, pdu);
	else if (!send_all(direct_socket, answer_buffer.bytes, length))
		send_failed(strerror(errno));
	return 1;
}

/* SNMPD_CALLBACK_INDEX_START: Net-SNMP has opened (or reopened) the
 * session to the master; take over its requests. */
static int
direct_session_opened(
    int major, int minor, void *server_argument, void *client_argument)
{
	netsnmp_session *session = server_argument;
	netsnmp_transport *transport;

	/* Only our tables registered: every Get and GetNext of the master can
	 * be answered without Net-SNMP's agent. */
	if (session == NULL || session->callback == direct_callback)
		return 0;
	if (!agent_registration_alone()) {
		log_info("agent: other MIB modules are registered in this "
		         "process: requests go through Net-SNMP's agent");
		return 0;
	}
	net_snmp_callback = session->callback;
	session->callback = direct_callback;
	transport = snmp_sess_transport(snmp_sess_pointer(session));
	if (transport != NULL && transport->domain == netsnmp_UnixDomain &&
	    (transport->flags & NETSNMP_TRANSPORT_FLAG_STREAM) != 0)
		transport->f_recv = direct_receive;
	direct_socket = transport != NULL ? transport->sock : -1;
	log_debug("agent", "AgentX requests answered in place");
	return 0;
}

static bool
version_tested(const char *version)
{
	for (size_t i = 0;
	     i < sizeof(tested_versions) / sizeof(tested_versions[0]); i++)
		if (strcmp(version, tested_versions[i]) == 0)
			return true;
	return false;
}

void
agent_direct_setup(struct agent_tables *tables, enum dci_config_in_place mode)
{
	const char *version = netsnmp_get_version();
	bool tested = version_tested(version), enabled = false;

	direct_tables = tables;
	switch (mode) {
	case DCI_CONFIG_IN_PLACE_OFF:
		enabled = false;
		log_info("agent: in-place answers off: requests go through "
		         "Net-SNMP's agent");
		break;
	case DCI_CONFIG_IN_PLACE_ON:
		enabled = true;
		if (!tested)
			log_warnx("agent: in-place answers forced on with "
			          "Net-SNMP %s, on which they were not tested",
			    version);
		break;
	case DCI_CONFIG_IN_PLACE_AUTO:
		enabled = tested;
		if (!tested)
			log_info("agent: in-place answers off: they rely on "
			         "Net-SNMP internals and were not tested with "
			         "Net-SNMP %s",
			    version);
		break;
	}
	if (enabled)
		snmp_register_callback(SNMP_CALLBACK_APPLICATION,
		    SNMPD_CALLBACK_INDEX_START, direct_session_opened, NULL);
}
