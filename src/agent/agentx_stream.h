/*
 * The AgentX socket's bytes as whole PDUs, for the in-place path
 * (agent/agentx_direct.h): what it reads from the master is framed here,
 * it answers the Get and GetNext PDUs it takes, and everything else goes
 * on to Net-SNMP's reader, in the order it arrived.
 *
 * The buffer is bounded (AGENT_AGENTX_PDU_MAX, the longest PDU Net-SNMP
 * parses): a PDU split across reads waits here until it is whole; several
 * in one read are framed one after the other. A header saying the PDU is
 * longer than the bound makes the stream pass everything from it on to
 * Net-SNMP untouched, so that Net-SNMP frames it as it would have
 * (closing the session, or waiting for bytes that never come). Only whole
 * PDUs are handed over otherwise, so Net-SNMP never holds half of one
 * that the stream frames too.
 */
#ifndef DCISTAT_AGENT_AGENTX_STREAM_H
#define DCISTAT_AGENT_AGENTX_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/agentx_decode.h"

struct agent_agentx_stream {
	unsigned char bytes[AGENT_AGENTX_PDU_MAX];
	/* What is held: bytes[start] up to bytes[end]. */
	size_t start, end;
	/* An over-long PDU was framed: the rest of the connection is
	 * Net-SNMP's. */
	bool passthrough;
};

enum agent_agentx_front {
	AGENT_AGENTX_FRONT_NONE, /* no whole PDU held */
	AGENT_AGENTX_FRONT_PDU,  /* a whole PDU first */
	AGENT_AGENTX_FRONT_RAW,  /* bytes to pass on as they are */
};

/* Empties the stream, for a new connection. */
void agent_agentx_stream_reset(struct agent_agentx_stream *stream);

/* Where the next read goes and how much room there is (never 0 unless a
 * whole PDU or raw bytes are held, which are to be taken first). */
unsigned char *agent_agentx_stream_room(
    struct agent_agentx_stream *stream, size_t *room);
/* `count` bytes were read into the room. */
void agent_agentx_stream_received(
    struct agent_agentx_stream *stream, size_t count);

/* What is first: on AGENT_AGENTX_FRONT_PDU the PDU in `pdu` and
 * `length` and its header in `header`. */
enum agent_agentx_front agent_agentx_stream_front(
    struct agent_agentx_stream *stream, const unsigned char **pdu,
    size_t *length, struct agent_agentx_header *header);

/* Drops the first PDU, `length` bytes, once answered. */
void agent_agentx_stream_consume(
    struct agent_agentx_stream *stream, size_t length);

/* From now on everything held and read is passed on raw: for a reader
 * whose buffer cannot take a whole PDU held here. */
void agent_agentx_stream_pass_through(struct agent_agentx_stream *stream);

/* Copies to `out` (at most `size` bytes) and drops what goes on to
 * Net-SNMP from the front: whole PDUs while they fit (raw bytes once
 * passing through). Returns the count, 0 when nothing fitted. */
size_t agent_agentx_stream_hand(
    struct agent_agentx_stream *stream, unsigned char *out, size_t size);

#endif
