/*
 * An AgentX Response PDU (RFC 2741, 6.2.16) encoded from the answered
 * varbinds of a Get or GetNext, for the in-place path
 * (agent/agentx_direct.h) to send without building a Net-SNMP PDU: no
 * response PDU allocated, no packet buffer allocated per answer, and no
 * pass through Net-SNMP's generic AgentX builder.
 *
 * The encoding is in the byte order of the request answered (RFC 2741 lets
 * each PDU choose its own by the NETWORK_BYTE_ORDER flag; a subagent
 * answers in the order it was asked in, as Net-SNMP's builder does),
 * sysUpTime 0,
 * no error, names compressed with the 1.3.6.1 prefix and the null OID for
 * 0.0, as Net-SNMP's builder does. Integer32, Counter32, Gauge32,
 * TimeTicks, Counter64, Octet String, IpAddress, Opaque, OID, Null and
 * the three exceptions are encoded; any other type makes the encoding
 * fail, and the caller answers through Net-SNMP instead.
 */
#ifndef DCISTAT_AGENT_AGENTX_ENCODE_H
#define DCISTAT_AGENT_AGENTX_ENCODE_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A buffer kept from one answer to the next; grown as needed. */
struct agent_agentx_buffer {
	unsigned char *bytes;
	size_t size;
};

/* What a response repeats from its request: its identifiers and its byte
 * order (its header's NETWORK_BYTE_ORDER flag). */
struct agent_agentx_ids {
	uint32_t session;
	uint32_t transaction;
	uint32_t packet;
	bool network_byte_order;
};

/* Encodes the response to the request `ids` carrying `varbinds` into
 * `buffer`; returns its length in bytes, or 0 (nothing usable) when a
 * varbind has a type or size the encoding does not take or memory runs
 * out. */
size_t agent_agentx_encode_response(struct agent_agentx_buffer *buffer,
    const struct agent_agentx_ids *ids, const netsnmp_variable_list *varbinds);

void agent_agentx_buffer_free(struct agent_agentx_buffer *buffer);

#endif
