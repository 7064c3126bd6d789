/*
 * libFuzzer target for what the in-place AgentX path reads from the master
 * (src/agent/agentx_stream.c and src/agent/agentx_decode.c): any bytes,
 * cut into reads of varying sizes, framed into PDUs; each whole PDU is
 * decoded as a Get or GetNext and either answered (consumed) or handed on
 * as Net-SNMP's reader would get it, in pieces of varying sizes. Besides
 * ASan and UBSan, it checks that the bytes consumed and handed on are the
 * input, in order, none lost or repeated; that the stream never holds more
 * than its bound; and that every Get or GetNext the decoder reads in full
 * Net-SNMP's own parser (agentx_parse) reads too, into the same names,
 * include flags and ends.
 *
 * Input: one byte choosing the read and hand-over sizes, then the bytes
 * the master sends.
 */
#define _GNU_SOURCE
#include "agent/agentx_decode.h"
#include "agent/agentx_stream.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int agentx_parse(
    netsnmp_session *session, netsnmp_pdu *pdu, u_char *data, size_t length);

#define AGENTX_SESSION_VERSION (192 | 1)

static struct agent_agentx_stream stream;
static unsigned char handed[AGENT_AGENTX_PDU_MAX];

/* Whatever the decoder reads in full, Net-SNMP's parser reads the same. */
static void
compare_with_net_snmp(const struct agent_agentx_header *header,
    const unsigned char *bytes, size_t length)
{
	static struct agent_agentx_oid start, end;
	struct agent_agentx_reader reader;
	netsnmp_session session;
	netsnmp_pdu *pdu;
	netsnmp_variable_list *varbind;
	size_t count = 0;
	int read;

	if (header->version != 1 ||
	    (header->type != AGENT_AGENTX_GET &&
	        header->type != AGENT_AGENTX_GETNEXT) ||
	    (header->flags & AGENT_AGENTX_FLAG_NON_DEFAULT_CONTEXT) != 0)
		return;
	agent_agentx_reader_start(&reader, header, bytes, length);
	while ((read = agent_agentx_next_range(&reader, &start, &end)) > 0)
		count++;
	if (read < 0)
		return;
	memset(&session, 0, sizeof(session));
	session.version = AGENTX_SESSION_VERSION;
	pdu = snmp_pdu_create(0);
	if (pdu == NULL)
		return;
	if (agentx_parse(&session, pdu, (u_char *)bytes, length) != 0)
		abort();
	if ((uint32_t)pdu->reqid != header->packet ||
	    (uint32_t)pdu->sessid != header->session ||
	    (uint32_t)pdu->transid != header->transaction)
		abort();
	agent_agentx_reader_start(&reader, header, bytes, length);
	varbind = pdu->variables;
	while (agent_agentx_next_range(&reader, &start, &end) > 0) {
		if (varbind == NULL || varbind->name_length != start.length ||
		    varbind->val_len / sizeof(oid) != end.length ||
		    (varbind->type == ASN_PRIV_INCL_RANGE) != start.include)
			abort();
		for (size_t i = 0; i < start.length; i++)
			if ((uint32_t)varbind->name[i] != start.subids[i])
				abort();
		for (size_t i = 0; i < end.length; i++)
			if ((uint32_t)varbind->val.objid[i] != end.subids[i])
				abort();
		varbind = varbind->next_variable;
		count--;
	}
	if (varbind != NULL || count != 0)
		abort();
	snmp_free_pdu(pdu);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned sizes;
	size_t fed = 0, out = 0, step = 0;

	if (size < 1)
		return 0;
	sizes = data[0];
	data++;
	size--;
	agent_agentx_stream_reset(&stream);
	for (;;) {
		struct agent_agentx_header header;
		const unsigned char *pdu;
		size_t length, room, chunk;
		unsigned char *into;
		enum agent_agentx_front front =
		    agent_agentx_stream_front(&stream, &pdu, &length, &header);

		step++;
		if (front == AGENT_AGENTX_FRONT_PDU &&
		    (header.packet + sizes) % 3 != 0) {
			/* Answered in place. */
			compare_with_net_snmp(&header, pdu, length);
			if (length > size - out ||
			    memcmp(pdu, data + out, length) != 0)
				abort();
			out += length;
			agent_agentx_stream_consume(&stream, length);
			continue;
		}
		if (front != AGENT_AGENTX_FRONT_NONE) {
			/* Handed to Net-SNMP, whose room varies. */
			size_t limit = 1 + (sizes * 7919 + step * 104729) %
			                       AGENT_AGENTX_PDU_MAX;
			size_t count =
			    agent_agentx_stream_hand(&stream, handed, limit);
			if (count > size - out ||
			    memcmp(handed, data + out, count) != 0)
				abort();
			out += count;
			if (count > 0)
				continue;
		}
		if (fed == size)
			break;
		into = agent_agentx_stream_room(&stream, &room);
		if (stream.end > sizeof(stream.bytes))
			abort();
		if (room == 0) {
			/* Full: only a whole PDU too large for the room
			 * Net-SNMP was given can be left; give it all. */
			size_t count = agent_agentx_stream_hand(
			    &stream, handed, sizeof(handed));
			if (count == 0 ||
			    memcmp(handed, data + out, count) != 0)
				abort();
			out += count;
			continue;
		}
		chunk = 1 + (sizes * 31 + step * 17) % 4096;
		if (chunk > room)
			chunk = room;
		if (chunk > size - fed)
			chunk = size - fed;
		memcpy(into, data + fed, chunk);
		agent_agentx_stream_received(&stream, chunk);
		fed += chunk;
	}
	/* Nothing whole is left behind: what remains is a partial PDU. */
	if (out + (stream.end - stream.start) != size)
		abort();
	return 0;
}
