#define _GNU_SOURCE
#include "agent/agentx_direct.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>
#include <net-snmp/library/snmpUnixDomain.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "agent/agentx_answer.h"
#include "agent/agentx_decode.h"
#include "agent/agentx_encode.h"
#include "agent/agentx_send.h"
#include "agent/agentx_stream.h"
#include "agent/registration.h"
#include "base/log.h"

/* The Net-SNMP versions whose internals (above) this file was tested
 * with; CI runs every integration test with it on and off. */
static const char *const tested_versions[] = {"5.9.3"};

/* RFC 2741's header: PDU types and flags. */
#define AGENTX_VERSION 1
#define AGENTX_GET AGENT_AGENTX_GET
#define AGENTX_GETNEXT AGENT_AGENTX_GETNEXT
#define AGENTX_RESPONSE 18
#define AGENTX_FLAGS 0x1f
#define AGENTX_FLAG_NON_DEFAULT_CONTEXT AGENT_AGENTX_FLAG_NON_DEFAULT_CONTEXT

/* The most SearchRanges of a request read in place: the varbinds they are
 * read into are kept from one request to the next (a name buffer of
 * MAX_OID_LEN each), so their number is bounded; a longer request is
 * Net-SNMP's to parse. */
#define DIRECT_RANGES_MAX 256

/* A SearchRange read in place, beside the varbind named by its start. */
struct direct_range {
	oid end[AGENT_AGENTX_OID_MAX];
	size_t end_length;
	bool include;
};

static struct agent_tables *direct_tables;
static snmp_callback net_snmp_callback;
/* The session to the master while its requests are answered in place,
 * else NULL. */
static netsnmp_session *direct_session;
/* Its socket, else -1. */
static int direct_socket = -1;
/* What was read from the master's socket and not yet answered or handed
 * to Net-SNMP. */
static struct agent_agentx_stream direct_stream;
/* The varbinds and ranges of the request read in place, kept. */
static netsnmp_variable_list **direct_varbinds;
static struct direct_range *direct_ranges;
static size_t direct_ranges_size;
/* Net-SNMP's agent has been handed a request since the loop last saw its
 * callback pipes idle. */
static bool indirect_pending;
/* Answers whose send failed since the last one logged. */
static unsigned long send_failures;
/* The encoded answer, kept for the next. */
static struct agent_agentx_buffer answer_buffer;

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

/* A failed send loses the answer: the master times the request out (and a
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

/* Sends the encoded answer on the session's own socket, bounded
 * (agentx_send.h, which logs a connection it ends for want of room); a
 * failure loses this answer and the connection, which Net-SNMP then opens
 * again. Other failures, such as those on the connection it ended, are
 * counted with send_failed. */
static void
send_answer(int socket, size_t length)
{
	if (agent_agentx_send_pdu(socket, answer_buffer.bytes, length,
	        AGENT_AGENTX_SEND_WAIT_MILLISECONDS))
		return;
	if (errno == ENOBUFS)
		send_failures++;
	else
		send_failed(strerror(errno));
}

static int
direct_callback(int operation, netsnmp_session *session, int reqid,
    netsnmp_pdu *pdu, void *magic)
{
	struct agent_agentx_ids ids;
	netsnmp_transport *transport;
	size_t length;

	if (operation != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu == NULL ||
	    (pdu->command != AGENTX_GET && pdu->command != AGENTX_GETNEXT) ||
	    (pdu->flags & AGENTX_FLAG_NON_DEFAULT_CONTEXT) != 0) {
		if (operation == NETSNMP_CALLBACK_OP_DISCONNECT &&
		    session == direct_session) {
			direct_session = NULL;
			direct_socket = -1;
			agent_agentx_stream_reset(&direct_stream);
		}
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
	    (uint32_t)pdu->transid, (uint32_t)pdu->reqid,
	    (pdu->flags & AGENT_AGENTX_FLAG_NETWORK_BYTE_ORDER) != 0};
	transport = snmp_sess_transport(snmp_sess_pointer(session));
	length = transport != NULL && transport->sock >= 0
	             ? agent_agentx_encode_response(
	                   &answer_buffer, &ids, pdu->variables)
	             : 0;
	if (length == 0)
		send_through_net_snmp(session, pdu);
	else
		send_answer(transport->sock, length);
	return 1;
}

/* The kept varbind for the `index`th SearchRange of a request, emptied of
 * the last request's answer; NULL beyond DIRECT_RANGES_MAX or out of
 * memory. */
static netsnmp_variable_list *
range_varbind(size_t index)
{
	netsnmp_variable_list *varbind;

	if (index >= direct_ranges_size) {
		size_t size =
		    direct_ranges_size == 0 ? 32 : 2 * direct_ranges_size;
		netsnmp_variable_list **varbinds;
		struct direct_range *ranges;

		if (index >= DIRECT_RANGES_MAX)
			return NULL;
		if (size > DIRECT_RANGES_MAX)
			size = DIRECT_RANGES_MAX;
		varbinds = realloc(direct_varbinds, size * sizeof(*varbinds));
		if (varbinds == NULL)
			return NULL;
		direct_varbinds = varbinds;
		ranges = realloc(direct_ranges, size * sizeof(*ranges));
		if (ranges == NULL)
			return NULL;
		direct_ranges = ranges;
		for (size_t i = direct_ranges_size; i < size; i++) {
			direct_varbinds[i] =
			    calloc(1, sizeof(**direct_varbinds));
			if (direct_varbinds[i] == NULL) {
				direct_ranges_size = i;
				return NULL;
			}
			direct_varbinds[i]->name = direct_varbinds[i]->name_loc;
			direct_varbinds[i]->val.string =
			    direct_varbinds[i]->buf;
		}
		direct_ranges_size = size;
	}
	varbind = direct_varbinds[index];
	/* A long value (past the varbind's own buffer) is freed. */
	snmp_set_var_typed_value(varbind, ASN_NULL, NULL, 0);
	varbind->next_variable = NULL;
	if (index > 0)
		direct_varbinds[index - 1]->next_variable = varbind;
	return varbind;
}

/* Reads the SearchRanges of a Get or GetNext into the kept varbinds (each
 * named by its start) and ranges; their count, or -1 when the PDU is not
 * one to answer in place. */
static long
read_ranges(const struct agent_agentx_header *header, const unsigned char *pdu,
    size_t length)
{
	struct agent_agentx_reader reader;
	struct agent_agentx_oid start, end;
	size_t count = 0;
	int read;

	agent_agentx_reader_start(&reader, header, pdu, length);
	while ((read = agent_agentx_next_range(&reader, &start, &end)) > 0) {
		netsnmp_variable_list *varbind = range_varbind(count);
		struct direct_range *range;

		if (varbind == NULL)
			return -1;
		/* The answer's name is set with snmp_set_var_objid, which
		 * keeps names of up to MAX_OID_LEN in name_loc. */
		if (varbind->name != varbind->name_loc)
			free(varbind->name);
		varbind->name = varbind->name_loc;
		for (size_t i = 0; i < start.length; i++)
			varbind->name[i] = start.subids[i];
		varbind->name_length = start.length;
		range = &direct_ranges[count++];
		for (size_t i = 0; i < end.length; i++)
			range->end[i] = end.subids[i];
		range->end_length = end.length;
		range->include = start.include;
	}
	return read < 0 ? -1 : (long)count;
}

/* Answers a whole PDU read from the master if it is a Get or GetNext of
 * the default context that decodes and encodes in full; false when it is
 * Net-SNMP's (nothing was sent). */
static bool
answer_in_place(int socket, const struct agent_agentx_header *header,
    const unsigned char *pdu, size_t length)
{
	bool next = header->type == AGENTX_GETNEXT;
	struct agent_agentx_ids ids = {header->session, header->transaction,
	    header->packet,
	    (header->flags & AGENT_AGENTX_FLAG_NETWORK_BYTE_ORDER) != 0};
	long count;
	size_t encoded;

	if (header->version != AGENTX_VERSION ||
	    (header->type != AGENTX_GET && header->type != AGENTX_GETNEXT) ||
	    (header->flags & AGENTX_FLAG_NON_DEFAULT_CONTEXT) != 0 ||
	    direct_session == NULL)
		return false;
	count = read_ranges(header, pdu, length);
	if (count < 0)
		return false;
	/* The master is alive: no ping is due (as Net-SNMP's handler). */
	if (direct_session->securityModel != SNMP_DEFAULT_SECMODEL)
		snmp_alarm_reset(direct_session->securityModel);
	agent_agentx_answer_begin(direct_tables);
	for (long i = 0; i < count; i++)
		agent_agentx_answer_range(direct_tables, next,
		    direct_varbinds[i], direct_ranges[i].include,
		    direct_ranges[i].end, direct_ranges[i].end_length);
	encoded = agent_agentx_encode_response(
	    &answer_buffer, &ids, count > 0 ? direct_varbinds[0] : NULL);
	/* What the encoding does not take, Net-SNMP parses and answers. */
	if (encoded == 0)
		return false;
	send_answer(socket, encoded);
	return true;
}

/* Net-SNMP reads a stream into a buffer of at least this size, so every
 * whole PDU the stream holds can be handed to it. */
_Static_assert(AGENT_AGENTX_PDU_MAX <= SNMP_MAX_RCV_MSG_SIZE,
    "a framed PDU must fit Net-SNMP's receive buffer");

/*
 * The AgentX socket's receive function while requests are answered in
 * place: what the master sends is read into direct_stream, the Get and
 * GetNext PDUs there are answered at once, and what is not (and what
 * follows it in the same read) is handed to Net-SNMP's reader, whole PDUs
 * in the order they came. A read that leaves Net-SNMP nothing returns 0
 * with NETSNMP_TRANSPORT_FLAG_EMPTY_PKT (not the end of the connection).
 * Also, unlike Net-SNMP's Unix-socket receive, it asks for no socket
 * address (getsockname and a malloc) at every read.
 */
static int
direct_receive(netsnmp_transport *transport, void *buffer, int size,
    void **opaque, int *opaque_length)
{
	struct agent_agentx_header header;
	const unsigned char *pdu;
	size_t length, handed = 0;
	enum agent_agentx_front front;

	*opaque = NULL;
	*opaque_length = 0;
	/* Held bytes go first; the socket is read when none are. */
	if (agent_agentx_stream_front(&direct_stream, &pdu, &length, &header) ==
	    AGENT_AGENTX_FRONT_NONE) {
		size_t room;
		unsigned char *into =
		    agent_agentx_stream_room(&direct_stream, &room);
		ssize_t count;

		do
			count = recv(transport->sock, into, room, MSG_DONTWAIT);
		while (count < 0 && errno == EINTR);
		if (count == 0 ||
		    (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
			/* The end of the connection, for Net-SNMP to see. */
			agent_agentx_stream_reset(&direct_stream);
			return (int)count;
		}
		if (count > 0)
			agent_agentx_stream_received(
			    &direct_stream, (size_t)count);
	}
	while ((front = agent_agentx_stream_front(&direct_stream, &pdu, &length,
	            &header)) != AGENT_AGENTX_FRONT_NONE) {
		if (front == AGENT_AGENTX_FRONT_PDU &&
		    answer_in_place(transport->sock, &header, pdu, length)) {
			agent_agentx_stream_consume(&direct_stream, length);
			continue;
		}
		handed = agent_agentx_stream_hand(
		    &direct_stream, buffer, size > 0 ? (size_t)size : 0);
		/* A whole PDU larger than Net-SNMP's buffer (which no version
		 * tested gives: see the assertion above) would stay held and
		 * the loop poll for it forever: Net-SNMP frames the rest of
		 * the connection instead. */
		if (handed == 0 && front == AGENT_AGENTX_FRONT_PDU) {
			agent_agentx_stream_pass_through(&direct_stream);
			handed = agent_agentx_stream_hand(&direct_stream,
			    buffer, size > 0 ? (size_t)size : 0);
		}
		break;
	}
	if (handed == 0) {
		transport->flags |= NETSNMP_TRANSPORT_FLAG_EMPTY_PKT;
		return 0;
	}
	return (int)handed;
}

bool
agent_direct_reads(void)
{
	netsnmp_transport *transport =
	    direct_session != NULL
	        ? snmp_sess_transport(snmp_sess_pointer(direct_session))
	        : NULL;

	return transport != NULL && transport->f_recv == direct_receive;
}

bool
agent_direct_held(void)
{
	struct agent_agentx_header header;
	const unsigned char *pdu;
	size_t length;

	return direct_socket >= 0 &&
	       agent_agentx_stream_front(&direct_stream, &pdu, &length,
	           &header) != AGENT_AGENTX_FRONT_NONE;
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
	agent_agentx_stream_reset(&direct_stream);
	direct_session = session;
	direct_socket = transport != NULL ? transport->sock : -1;
	/* Read in place from a Unix stream socket, whose receive function
	 * this replaces; over any other transport, requests are answered
	 * from the PDUs Net-SNMP parses. */
	if (transport != NULL && transport->domain == netsnmp_UnixDomain &&
	    (transport->flags & NETSNMP_TRANSPORT_FLAG_STREAM) != 0)
		transport->f_recv = direct_receive;
	log_debug("agent", "AgentX requests answered in place");
	return 0;
}

/* SNMPD_CALLBACK_INDEX_STOP: the session to the master is closing. */
static int
direct_session_closed(
    int major, int minor, void *server_argument, void *client_argument)
{
	if (server_argument != NULL && server_argument == direct_session) {
		direct_session = NULL;
		direct_socket = -1;
		agent_agentx_stream_reset(&direct_stream);
	}
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
	if (enabled) {
		snmp_register_callback(SNMP_CALLBACK_APPLICATION,
		    SNMPD_CALLBACK_INDEX_START, direct_session_opened, NULL);
		snmp_register_callback(SNMP_CALLBACK_APPLICATION,
		    SNMPD_CALLBACK_INDEX_STOP, direct_session_closed, NULL);
	}
}
