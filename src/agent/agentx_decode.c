#include "agent/agentx_decode.h"

/* 1.3.6.1, before an OID's non-zero prefix. */
#define INTERNET_LENGTH 4
#define OID_HEADER_SIZE 4

static uint32_t
read_u32(const unsigned char *at, bool network_byte_order)
{
	if (network_byte_order)
		return (uint32_t)at[0] << 24 | (uint32_t)at[1] << 16 |
		       (uint32_t)at[2] << 8 | (uint32_t)at[3];
	return (uint32_t)at[3] << 24 | (uint32_t)at[2] << 16 |
	       (uint32_t)at[1] << 8 | (uint32_t)at[0];
}

bool
agent_agentx_decode_header(const unsigned char *bytes, size_t length,
    struct agent_agentx_header *header)
{
	bool network;

	if (length < AGENT_AGENTX_HEADER_SIZE)
		return false;
	header->version = bytes[0];
	header->type = bytes[1];
	header->flags = bytes[2];
	network = (header->flags & AGENT_AGENTX_FLAG_NETWORK_BYTE_ORDER) != 0;
	header->session = read_u32(bytes + 4, network);
	header->transaction = read_u32(bytes + 8, network);
	header->packet = read_u32(bytes + 12, network);
	header->payload_length = read_u32(bytes + 16, network);
	return true;
}

uint64_t
agent_agentx_pdu_length(const struct agent_agentx_header *header)
{
	return (uint64_t)AGENT_AGENTX_HEADER_SIZE + header->payload_length;
}

void
agent_agentx_reader_start(struct agent_agentx_reader *reader,
    const struct agent_agentx_header *header, const unsigned char *pdu,
    size_t length)
{
	reader->at = pdu + AGENT_AGENTX_HEADER_SIZE;
	reader->left = length - AGENT_AGENTX_HEADER_SIZE;
	reader->network_byte_order =
	    (header->flags & AGENT_AGENTX_FLAG_NETWORK_BYTE_ORDER) != 0;
}

/* One OID; false when it is cut short or too long. */
static bool
read_oid(struct agent_agentx_reader *reader, struct agent_agentx_oid *name)
{
	size_t count, prefix;

	if (reader->left < OID_HEADER_SIZE)
		return false;
	count = reader->at[0];
	prefix = reader->at[1];
	name->include = reader->at[2] != 0;
	reader->at += OID_HEADER_SIZE;
	reader->left -= OID_HEADER_SIZE;
	if (count == 0 && prefix == 0) {
		name->subids[0] = 0;
		name->subids[1] = 0;
		name->length = 2;
		return true;
	}
	name->length = 0;
	if (prefix != 0) {
		static const uint32_t internet[INTERNET_LENGTH] = {1, 3, 6, 1};
		for (size_t i = 0; i < INTERNET_LENGTH; i++)
			name->subids[i] = internet[i];
		name->subids[INTERNET_LENGTH] = (uint32_t)prefix;
		name->length = INTERNET_LENGTH + 1;
	}
	if (count > AGENT_AGENTX_OID_MAX - name->length ||
	    reader->left / 4 < count)
		return false;
	for (size_t i = 0; i < count; i++)
		name->subids[name->length++] =
		    read_u32(reader->at + 4 * i, reader->network_byte_order);
	reader->at += 4 * count;
	reader->left -= 4 * count;
	return true;
}

int
agent_agentx_next_range(struct agent_agentx_reader *reader,
    struct agent_agentx_oid *start, struct agent_agentx_oid *end)
{
	if (reader->left == 0)
		return 0;
	if (!read_oid(reader, start) || !read_oid(reader, end))
		return -1;
	end->include = false;
	return 1;
}
