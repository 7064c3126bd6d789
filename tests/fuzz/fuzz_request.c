/*
 * libFuzzer target for the request path: any name, range end and request
 * type, through the code the master's requests take (agent_agentx_answer,
 * as the in-place AgentX path calls it, and agent_tables_answer, as the
 * registered handlers do), over the unit tests' standard registry. Besides
 * ASan and UBSan, it checks what an answer must be: a GetNext answer lies
 * after its start (at it, when included) and before its end, or is
 * endOfMibView with the start kept; a Get answer keeps its name; the
 * AgentX Response encoding of the answer is whole 4-byte units and
 * says its own length.
 *
 * Input: one byte of flags, one byte of start length, then 4-byte
 * little-endian sub-identifiers (the start's, then the end's). Flags: bit 0
 * GetNext, bit 1 range includes the start, bit 2 has an end, bit 3
 * sub-identifiers of 2^31 and more sign-extended as Net-SNMP's AgentX code
 * delivers them, bit 4 the start and end begin with dciStatsObjects' arc,
 * bits 5-7 the table asked through the handler path.
 */
#define FIXTURES_WITHOUT_CHECK
#include "agent/agentx_answer.h"
#include "agent/agentx_encode.h"
#include "agent/tables.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/fixtures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME_MAX_LENGTH 300

static struct agent_tables tables;
static struct agent_agentx_buffer encoded;

/* The answer as the in-place path sends it: whole 4-byte units, and the
 * header's payload length what follows the header. */
static void
check_encoding(const netsnmp_variable_list *varbind)
{
	static const struct agent_agentx_ids ids = {1, 2, 3, true};
	size_t length = agent_agentx_encode_response(&encoded, &ids, varbind);

	if (length == 0)
		return;
	if (length < 28 || length % 4 != 0 ||
	    (((size_t)encoded.bytes[16] << 24) |
	        ((size_t)encoded.bytes[17] << 16) |
	        ((size_t)encoded.bytes[18] << 8) | encoded.bytes[19]) !=
	        length - 20)
		abort();
}

static size_t
read_name(const uint8_t **data, size_t *size, size_t count, bool extend,
    bool arc, oid *name)
{
	static const oid objects[] = {SCHEMA_MIB_ARC, SCHEMA_MIB_OBJECTS};
	size_t length = 0;

	if (arc) {
		memcpy(name, objects, sizeof(objects));
		length = sizeof(objects) / sizeof(objects[0]);
	}
	for (size_t i = 0; i < count && *size >= 4 && length < NAME_MAX_LENGTH;
	     i++) {
		uint32_t word =
		    (uint32_t)(*data)[0] | (uint32_t)(*data)[1] << 8 |
		    (uint32_t)(*data)[2] << 16 | (uint32_t)(*data)[3] << 24;
		name[length++] = extend && word >= 0x80000000u
		                     ? (oid)(int64_t)(int32_t)word
		                     : (oid)word;
		*data += 4;
		*size -= 4;
	}
	return length;
}

static int
compare_names(const oid *a, size_t a_length, const oid *b, size_t b_length)
{
	struct schema_request_name request;
	struct schema_row_name row;

	if (a_length > SCHEMA_ROW_NAME_MAX)
		abort(); /* an answer longer than any served name */
	memcpy(row.subids, a, a_length * sizeof(oid));
	row.length = a_length;
	schema_request_name_decode(b, b_length, &request);
	return schema_request_name_compare(&row, &request);
}

static void
check_getnext(const netsnmp_variable_list *varbind, const oid *start,
    size_t start_length, bool include, const oid *end, size_t end_length)
{
	int order;

	if (varbind->type == SNMP_ENDOFMIBVIEW) {
		if (varbind->name_length != start_length ||
		    memcmp(varbind->name, start, start_length * sizeof(oid)))
			abort(); /* endOfMibView must keep the start */
		return;
	}
	order = compare_names(
	    varbind->name, varbind->name_length, start, start_length);
	if (order < 0 || (order == 0 && !include))
		abort(); /* the answer is not after the start */
	if (end_length > 0 && compare_names(varbind->name, varbind->name_length,
	                          end, end_length) >= 0)
		abort(); /* the answer is not before the end */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static oid start[NAME_MAX_LENGTH], end[NAME_MAX_LENGTH];
	size_t start_length, end_length = 0;
	netsnmp_variable_list *list = NULL, *varbind;
	uint8_t flags, count;
	bool next, include, extend, arc;

	if (tables.registry == NULL) {
		netsnmp_ds_set_boolean(
		    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
		tables.registry = fx_standard_registry();
	}
	if (size < 2)
		return 0;
	flags = data[0];
	count = data[1];
	data += 2;
	size -= 2;
	next = flags & 1;
	include = flags & 2;
	extend = flags & 8;
	arc = flags & 16;
	start_length = read_name(&data, &size, count, extend, arc, start);
	if (flags & 4) {
		end_length =
		    read_name(&data, &size, NAME_MAX_LENGTH, extend, arc, end);
		/* 0.0 is "no end"; an empty end is none too. */
		if (end_length == 2 && end[0] == 0 && end[1] == 0)
			end_length = 0;
	}

	/* The in-place path: one varbind, a SearchRange for a GetNext. */
	varbind = snmp_varlist_add_variable(
	    &list, start, start_length, ASN_NULL, NULL, 0);
	if (varbind == NULL)
		return 0;
	if (next) {
		static const oid none[] = {0, 0};
		snmp_set_var_typed_value(varbind,
		    include ? ASN_PRIV_INCL_RANGE : ASN_PRIV_EXCL_RANGE,
		    end_length > 0 ? end : none,
		    (end_length > 0 ? end_length : 2) * sizeof(oid));
	}
	agent_agentx_answer(&tables, next, varbind);
	check_encoding(varbind);
	if (next)
		check_getnext(
		    varbind, start, start_length, include, end, end_length);
	else if (varbind->name_length != start_length ||
	         memcmp(varbind->name, start, start_length * sizeof(oid)))
		abort(); /* a Get's answer keeps its name */
	snmp_free_varbind(list);

	/* A handler's request for one table. */
	list = NULL;
	varbind = snmp_varlist_add_variable(
	    &list, start, start_length, ASN_NULL, NULL, 0);
	if (varbind == NULL)
		return 0;
	agent_tables_request_begin(&tables);
	if (agent_tables_answer(&tables, (unsigned)(flags >> 5), next,
	        varbind) == AGENT_ANSWERED &&
	    next)
		check_getnext(varbind, start, start_length, false, NULL, 0);
	snmp_free_varbind(list);
	return 0;
}
