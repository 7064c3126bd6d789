#include "agent/agentx_stream.h"

#include <string.h>

void
agent_agentx_stream_reset(struct agent_agentx_stream *stream)
{
	stream->start = stream->end = 0;
	stream->passthrough = false;
}

unsigned char *
agent_agentx_stream_room(struct agent_agentx_stream *stream, size_t *room)
{
	/* A partial PDU moves to the front: it then has room to complete. */
	if (stream->start > 0) {
		memmove(stream->bytes, stream->bytes + stream->start,
		    stream->end - stream->start);
		stream->end -= stream->start;
		stream->start = 0;
	}
	*room = sizeof(stream->bytes) - stream->end;
	return stream->bytes + stream->end;
}

void
agent_agentx_stream_received(struct agent_agentx_stream *stream, size_t count)
{
	stream->end += count;
}

enum agent_agentx_front
agent_agentx_stream_front(struct agent_agentx_stream *stream,
    const unsigned char **pdu, size_t *length,
    struct agent_agentx_header *header)
{
	size_t held = stream->end - stream->start;
	uint64_t whole;

	if (held == 0)
		return AGENT_AGENTX_FRONT_NONE;
	if (stream->passthrough)
		return AGENT_AGENTX_FRONT_RAW;
	if (!agent_agentx_decode_header(
	        stream->bytes + stream->start, held, header))
		return AGENT_AGENTX_FRONT_NONE;
	whole = agent_agentx_pdu_length(header);
	if (whole > AGENT_AGENTX_PDU_MAX) {
		stream->passthrough = true;
		return AGENT_AGENTX_FRONT_RAW;
	}
	if (whole > held)
		return AGENT_AGENTX_FRONT_NONE;
	*pdu = stream->bytes + stream->start;
	*length = (size_t)whole;
	return AGENT_AGENTX_FRONT_PDU;
}

void
agent_agentx_stream_consume(struct agent_agentx_stream *stream, size_t length)
{
	stream->start += length;
	if (stream->start == stream->end)
		stream->start = stream->end = 0;
}

void
agent_agentx_stream_pass_through(struct agent_agentx_stream *stream)
{
	stream->passthrough = true;
}

size_t
agent_agentx_stream_hand(
    struct agent_agentx_stream *stream, unsigned char *out, size_t size)
{
	size_t handed = 0;

	for (;;) {
		struct agent_agentx_header header;
		const unsigned char *pdu;
		size_t length;
		enum agent_agentx_front front =
		    agent_agentx_stream_front(stream, &pdu, &length, &header);

		if (front == AGENT_AGENTX_FRONT_RAW) {
			length = stream->end - stream->start;
			if (length > size - handed)
				length = size - handed;
			pdu = stream->bytes + stream->start;
		} else if (front == AGENT_AGENTX_FRONT_NONE ||
		           length > size - handed) {
			return handed;
		}
		memcpy(out + handed, pdu, length);
		handed += length;
		agent_agentx_stream_consume(stream, length);
		if (front == AGENT_AGENTX_FRONT_RAW)
			return handed;
	}
}
