#include "agent/agentx_encode.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* RFC 2741: the header's fields, the Response type and the flag saying
 * every multi-byte number of this PDU is in network byte order. */
#define AGENTX_VERSION 1
#define AGENTX_RESPONSE 18
#define AGENTX_FLAG_NETWORK_BYTE_ORDER 0x10
#define AGENTX_HEADER_SIZE 20
/* res.sysUpTime, res.error, res.index */
#define RESPONSE_FIELDS_SIZE 8
/* n_subid is one byte. */
#define OID_MAX_SUBIDS 255
/* Beyond this the answer goes through Net-SNMP's builder, which takes any
 * size; no answer of ours comes near it. */
#define ENCODED_MAX (1024 * 1024)

/* The internet prefix of RFC 2741 5.1: 1.3.6.1.<prefix>. */
static bool
internet_prefix(const oid *name, size_t length)
{
	return length >= 5 && name[0] == 1 && name[1] == 3 && name[2] == 6 &&
	       name[3] == 1 && name[4] > 0 && name[4] < 256;
}

static bool
null_oid(const oid *name, size_t length)
{
	return length == 0 || (length == 2 && name[0] == 0 && name[1] == 0);
}

/* The encoded size of an OID, or 0 when it cannot be encoded (too long,
 * or a sub-identifier beyond AgentX's 32 bits, which Net-SNMP's builder
 * would cut short). */
static size_t
oid_size(const oid *name, size_t length)
{
	if (null_oid(name, length))
		return 4;
	for (size_t i = 0; i < length; i++)
		if (name[i] > UINT32_MAX)
			return 0;
	if (internet_prefix(name, length))
		length -= 5;
	return length <= OID_MAX_SUBIDS ? 4 + 4 * length : 0;
}

static size_t
padded(size_t length)
{
	return (length + 3) & ~(size_t)3;
}

/* The encoded size of a varbind's value, or SIZE_MAX when its type is not
 * one the encoding takes. */
static size_t
value_size(const netsnmp_variable_list *varbind)
{
	switch (varbind->type) {
	case ASN_INTEGER:
	case ASN_COUNTER:
	case ASN_GAUGE:
	case ASN_TIMETICKS:
		return varbind->val.integer != NULL ? 4 : SIZE_MAX;
	case ASN_COUNTER64:
		return varbind->val.counter64 != NULL ? 8 : SIZE_MAX;
	case ASN_IPADDRESS:
		/* Four octets (RFC 2741 5.4); anything else is Net-SNMP's. */
		if (varbind->val_len != 4 || varbind->val.string == NULL)
			return SIZE_MAX;
		return 4 + 4;
	case ASN_OCTET_STR:
	case ASN_OPAQUE:
		if (varbind->val_len > ENCODED_MAX ||
		    (varbind->val_len > 0 && varbind->val.string == NULL))
			return SIZE_MAX;
		return 4 + padded(varbind->val_len);
	case ASN_OBJECT_ID: {
		size_t size;
		if (varbind->val.objid == NULL)
			return SIZE_MAX;
		size = oid_size(
		    varbind->val.objid, varbind->val_len / sizeof(oid));
		return size == 0 ? SIZE_MAX : size;
	}
	case ASN_NULL:
	case SNMP_NOSUCHOBJECT:
	case SNMP_NOSUCHINSTANCE:
	case SNMP_ENDOFMIBVIEW:
		return 0;
	default:
		return SIZE_MAX;
	}
}

/* Numbers are written in the byte order of the request answered
 * (`network`: most significant byte first). */
static unsigned char *
put_u16(unsigned char *at, uint16_t value, bool network)
{
	at[network ? 0 : 1] = (unsigned char)(value >> 8);
	at[network ? 1 : 0] = (unsigned char)value;
	return at + 2;
}

static unsigned char *
put_u32(unsigned char *at, uint32_t value, bool network)
{
	for (unsigned i = 0; i < 4; i++)
		at[network ? 3 - i : i] = (unsigned char)(value >> (8 * i));
	return at + 4;
}

static unsigned char *
put_oid(unsigned char *at, const oid *name, size_t length, bool network)
{
	unsigned char prefix = 0;

	if (null_oid(name, length)) {
		memset(at, 0, 4);
		return at + 4;
	}
	if (internet_prefix(name, length)) {
		prefix = (unsigned char)name[4];
		name += 5;
		length -= 5;
	}
	at[0] = (unsigned char)length;
	at[1] = prefix;
	at[2] = 0; /* include: only meaningful in a SearchRange */
	at[3] = 0;
	at += 4;
	for (size_t i = 0; i < length; i++)
		at = put_u32(at, (uint32_t)name[i], network);
	return at;
}

static unsigned char *
put_octets(unsigned char *at, const u_char *octets, size_t length, bool network)
{
	at = put_u32(at, (uint32_t)length, network);
	if (length > 0)
		memcpy(at, octets, length);
	memset(at + length, 0, padded(length) - length);
	return at + padded(length);
}

static unsigned char *
put_value(unsigned char *at, const netsnmp_variable_list *varbind, bool network)
{
	switch (varbind->type) {
	case ASN_INTEGER:
	case ASN_COUNTER:
	case ASN_GAUGE:
	case ASN_TIMETICKS:
		return put_u32(at, (uint32_t)*varbind->val.integer, network);
	case ASN_COUNTER64: {
		/* One 64-bit number: its high half first in network byte
		 * order, its low half first otherwise. */
		uint32_t high = (uint32_t)varbind->val.counter64->high;
		uint32_t low = (uint32_t)varbind->val.counter64->low;
		at = put_u32(at, network ? high : low, network);
		return put_u32(at, network ? low : high, network);
	}
	case ASN_OCTET_STR:
	case ASN_IPADDRESS:
	case ASN_OPAQUE:
		return put_octets(
		    at, varbind->val.string, varbind->val_len, network);
	case ASN_OBJECT_ID:
		return put_oid(at, varbind->val.objid,
		    varbind->val_len / sizeof(oid), network);
	default:
		return at;
	}
}

static bool
buffer_reserve(struct agent_agentx_buffer *buffer, size_t size)
{
	unsigned char *grown;

	if (size <= buffer->size)
		return true;
	grown = realloc(buffer->bytes, size);
	if (grown == NULL)
		return false;
	buffer->bytes = grown;
	buffer->size = size;
	return true;
}

size_t
agent_agentx_encode_response(struct agent_agentx_buffer *buffer,
    const struct agent_agentx_ids *ids, const netsnmp_variable_list *varbinds)
{
	size_t payload = RESPONSE_FIELDS_SIZE;
	bool network = ids->network_byte_order;
	unsigned char *at;

	for (const netsnmp_variable_list *varbind = varbinds; varbind != NULL;
	     varbind = varbind->next_variable) {
		size_t name = oid_size(varbind->name, varbind->name_length);
		size_t value = value_size(varbind);

		if (name == 0 || value == SIZE_MAX)
			return 0;
		payload += 4 + name + value;
		if (payload > ENCODED_MAX)
			return 0;
	}
	if (!buffer_reserve(buffer, AGENTX_HEADER_SIZE + payload))
		return 0;

	at = buffer->bytes;
	*at++ = AGENTX_VERSION;
	*at++ = AGENTX_RESPONSE;
	*at++ = network ? AGENTX_FLAG_NETWORK_BYTE_ORDER : 0;
	*at++ = 0;
	at = put_u32(at, ids->session, network);
	at = put_u32(at, ids->transaction, network);
	at = put_u32(at, ids->packet, network);
	at = put_u32(at, (uint32_t)payload, network);
	at = put_u32(at, 0, network); /* sysUpTime */
	at = put_u16(at, 0, network); /* error */
	at = put_u16(at, 0, network); /* index */
	for (const netsnmp_variable_list *varbind = varbinds; varbind != NULL;
	     varbind = varbind->next_variable) {
		at = put_u16(at, varbind->type, network);
		at = put_u16(at, 0, network);
		at = put_oid(at, varbind->name, varbind->name_length, network);
		at = put_value(at, varbind, network);
	}
	return (size_t)(at - buffer->bytes);
}

void
agent_agentx_buffer_free(struct agent_agentx_buffer *buffer)
{
	free(buffer->bytes);
	buffer->bytes = NULL;
	buffer->size = 0;
}
