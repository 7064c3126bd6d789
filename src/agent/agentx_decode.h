/*
 * The master's AgentX requests read where they arrive (RFC 2741), for the
 * in-place path (agent/agentx_direct.h) to answer Get and GetNext without
 * Net-SNMP parsing them into a PDU.
 *
 * A PDU is framed by its 20-byte header: version, type, flags (the
 * NETWORK_BYTE_ORDER flag chooses the byte order of every multi-byte number
 * of that PDU), session, transaction and packet ids, payload length. A Get
 * or GetNext payload is a list of SearchRanges, each a start OID (whose
 * include byte says whether the start itself may be the answer) and an end
 * OID; an OID is n_subid, prefix (non-zero: the name starts with
 * 1.3.6.1.<prefix>), include, a reserved byte and n_subid 4-byte
 * sub-identifiers. n_subid 0 with prefix 0 is the null OID, read as 0.0
 * as Net-SNMP reads it.
 *
 * Everything here reads bytes from the master, which is outside input:
 * every length is checked against what was received before it is used, and
 * a PDU that does not decode exactly (short, long, a name beyond
 * AGENT_AGENTX_OID_MAX) is refused whole so that the caller can hand it to
 * Net-SNMP, which then does with it what it does with any bad PDU.
 */
#ifndef DCISTAT_AGENT_AGENTX_DECODE_H
#define DCISTAT_AGENT_AGENTX_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGENT_AGENTX_HEADER_SIZE 20
/* Net-SNMP's AgentX parser refuses a PDU longer than this (header
 * included); the in-place path frames no longer one. */
#define AGENT_AGENTX_PDU_MAX 65536
/* The longest name taken: Net-SNMP's MAX_OID_LEN, the size of a varbind's
 * own name buffer. A longer one (AgentX allows 255 + 5) is Net-SNMP's. */
#define AGENT_AGENTX_OID_MAX 128

#define AGENT_AGENTX_GET 5
#define AGENT_AGENTX_GETNEXT 6
#define AGENT_AGENTX_FLAG_NON_DEFAULT_CONTEXT 0x08
#define AGENT_AGENTX_FLAG_NETWORK_BYTE_ORDER 0x10

struct agent_agentx_header {
	uint8_t version;
	uint8_t type;
	uint8_t flags;
	uint32_t session;
	uint32_t transaction;
	uint32_t packet;
	uint32_t payload_length;
};

struct agent_agentx_oid {
	uint32_t subids[AGENT_AGENTX_OID_MAX];
	size_t length;
	bool include;
};

/* The SearchRanges of a Get or GetNext payload, read one at a time. */
struct agent_agentx_reader {
	const unsigned char *at;
	size_t left;
	bool network_byte_order;
};

/* Reads the header at the start of `bytes`; false when fewer than
 * AGENT_AGENTX_HEADER_SIZE bytes were given. */
bool agent_agentx_decode_header(const unsigned char *bytes, size_t length,
    struct agent_agentx_header *header);

/* The whole PDU's length, header included, as the header says (up to
 * 2^32 + 19). */
uint64_t agent_agentx_pdu_length(const struct agent_agentx_header *header);

/* Starts reading the SearchRanges of the whole PDU `pdu` (`length` bytes,
 * its header's AGENT_AGENTX_HEADER_SIZE + payload_length) without a
 * context. */
void agent_agentx_reader_start(struct agent_agentx_reader *reader,
    const struct agent_agentx_header *header, const unsigned char *pdu,
    size_t length);

/* The next SearchRange: 1 when read into `start` and `end`, 0 at the end
 * of the payload, -1 when what is left is not a SearchRange of at most
 * AGENT_AGENTX_OID_MAX sub-identifiers a name. */
int agent_agentx_next_range(struct agent_agentx_reader *reader,
    struct agent_agentx_oid *start, struct agent_agentx_oid *end);

#endif
