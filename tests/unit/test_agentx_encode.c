/*
 * Unit tests for src/agent/agentx_encode.c: the Response PDUs the in-place
 * AgentX path sends. Each encoding is read back by Net-SNMP's own AgentX
 * parser (agentx_parse, what the master runs), and every varbind's name,
 * type and value must come back as given; the header's fields and byte
 * layout are checked against RFC 2741 by hand.
 */
#include "agent/agentx_encode.h"

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check_runner.h"

/* libnetsnmpagent's AgentX parser; its header (agentx/protocol.h) is not
 * installed. */
int agentx_parse(
    netsnmp_session *session, netsnmp_pdu *pdu, u_char *data, size_t length);

#define AGENTX_RESPONSE 18
/* What an AgentX session's version is in Net-SNMP (agentx/protocol.h):
 * AGENTX_VERSION_BASE | 1. */
#define AGENTX_SESSION_VERSION (192 | 1)

static const oid counter_name[] = {
    1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 4040, 1, 5, 1, 4, 2, 1, 1, 1, 7, 12};
static const oid text_name[] = {
    1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 4040, 1, 1, 1, 2, 1};
/* Not under 1.3.6.1: no prefix compression. (Net-SNMP's parser
 * sign-extends sub-identifiers of 2^31 and more.) */
static const oid odd_name[] = {2, 5, 2147483647};
static const oid zero_dot_zero[] = {0, 0};
static const oid pointer[] = {1, 3, 6, 1, 2, 1, 2, 2, 1, 10, 7};

static netsnmp_variable_list *
add(netsnmp_variable_list **list, const oid *name, size_t length, u_char type,
    const void *value, size_t size)
{
	netsnmp_variable_list *varbind =
	    snmp_varlist_add_variable(list, name, length, type, value, size);
	ck_assert_ptr_nonnull(varbind);
	return varbind;
}

/* Every varbind of `parsed` equals the one of `given` at the same place. */
static void
assert_same_varbinds(
    const netsnmp_variable_list *given, const netsnmp_variable_list *parsed)
{
	for (; given != NULL;
	     given = given->next_variable, parsed = parsed->next_variable) {
		ck_assert_ptr_nonnull(parsed);
		ck_assert_int_eq(
		    snmp_oid_compare(given->name, given->name_length,
		        parsed->name, parsed->name_length),
		    0);
		ck_assert_int_eq(given->type, parsed->type);
		switch (given->type) {
		case ASN_INTEGER:
		case ASN_COUNTER:
		case ASN_GAUGE:
		case ASN_TIMETICKS:
			ck_assert_int_eq(
			    *given->val.integer, *parsed->val.integer);
			break;
		case ASN_COUNTER64:
			/* Net-SNMP's parser sign-extends each half. */
			ck_assert_uint_eq((uint32_t)given->val.counter64->high,
			    (uint32_t)parsed->val.counter64->high);
			ck_assert_uint_eq((uint32_t)given->val.counter64->low,
			    (uint32_t)parsed->val.counter64->low);
			break;
		case ASN_OCTET_STR:
		case ASN_IPADDRESS:
		case ASN_OPAQUE:
			ck_assert_uint_eq(given->val_len, parsed->val_len);
			ck_assert_mem_eq(given->val.string, parsed->val.string,
			    given->val_len);
			break;
		case ASN_OBJECT_ID:
			ck_assert_int_eq(
			    snmp_oid_compare(given->val.objid,
			        given->val_len / sizeof(oid), parsed->val.objid,
			        parsed->val_len / sizeof(oid)),
			    0);
			break;
		default:
			break;
		}
	}
	ck_assert_ptr_null(parsed);
}

/* Encodes `varbinds` as the answer to a request in network byte order or
 * not, parses the result as the master would, and checks the identifiers
 * and every varbind. */
static void
assert_round_trip_in(const netsnmp_variable_list *varbinds, bool network)
{
	struct agent_agentx_buffer buffer = {NULL, 0};
	struct agent_agentx_ids ids = {0x01020304, 0x0a0b0c0d, 77, network};
	netsnmp_session session;
	netsnmp_pdu *pdu = snmp_pdu_create(0);
	size_t length = agent_agentx_encode_response(&buffer, &ids, varbinds);
	const unsigned char *payload_length = buffer.bytes + 16;

	ck_assert_uint_ge(length, 28);
	/* RFC 2741 6.1: version 1, Response, the request's byte order, and
	 * the payload length after the 20-byte header in that order. */
	ck_assert_int_eq(buffer.bytes[0], 1);
	ck_assert_int_eq(buffer.bytes[1], AGENTX_RESPONSE);
	ck_assert_int_eq(buffer.bytes[2], network ? 0x10 : 0);
	if (network)
		ck_assert_uint_eq(((uint32_t)payload_length[0] << 24) |
		                      ((uint32_t)payload_length[1] << 16) |
		                      ((uint32_t)payload_length[2] << 8) |
		                      payload_length[3],
		    length - 20);
	else
		ck_assert_uint_eq(((uint32_t)payload_length[3] << 24) |
		                      ((uint32_t)payload_length[2] << 16) |
		                      ((uint32_t)payload_length[1] << 8) |
		                      payload_length[0],
		    length - 20);
	ck_assert_uint_eq(length % 4, 0);

	memset(&session, 0, sizeof(session));
	session.version = AGENTX_SESSION_VERSION;
	ck_assert_ptr_nonnull(pdu);
	ck_assert_int_eq(agentx_parse(&session, pdu, buffer.bytes, length), 0);
	ck_assert_int_eq(pdu->command, AGENTX_RESPONSE);
	ck_assert_uint_eq((uint32_t)pdu->sessid, ids.session);
	ck_assert_uint_eq((uint32_t)pdu->transid, ids.transaction);
	ck_assert_uint_eq((uint32_t)pdu->reqid, ids.packet);
	ck_assert_int_eq(pdu->errstat, 0);
	ck_assert_int_eq(pdu->errindex, 0);
	assert_same_varbinds(varbinds, pdu->variables);
	snmp_free_pdu(pdu);
	agent_agentx_buffer_free(&buffer);
}

/* Both byte orders: RFC 2741 lets a master ask in either, and its parser
 * reads an answer by the answer's own flag. */
static void
assert_round_trip(const netsnmp_variable_list *varbinds)
{
	assert_round_trip_in(varbinds, true);
	assert_round_trip_in(varbinds, false);
}

START_TEST(every_type_reads_back)
{
	netsnmp_variable_list *list = NULL;
	struct counter64 big = {0xfedcba98, 0x76543210};
	long integer = -5, counter = 4000000000L, gauge = 17, ticks = 123456;
	const u_char address[] = {192, 0, 2, 1};
	const char *text = "eth0";
	/* Not the BER of an opaque float or double, which Net-SNMP decodes. */
	const u_char opaque[] = {0x04, 0x02, 0x68, 0x69, 0x00};

	add(&list, counter_name, OID_LENGTH(counter_name), ASN_COUNTER64, &big,
	    sizeof(big));
	add(&list, text_name, OID_LENGTH(text_name), ASN_OCTET_STR, text,
	    strlen(text));
	add(&list, text_name, OID_LENGTH(text_name), ASN_OCTET_STR, "", 0);
	add(&list, counter_name, OID_LENGTH(counter_name), ASN_INTEGER,
	    &integer, sizeof(integer));
	add(&list, counter_name, OID_LENGTH(counter_name), ASN_COUNTER,
	    &counter, sizeof(counter));
	add(&list, counter_name, OID_LENGTH(counter_name), ASN_GAUGE, &gauge,
	    sizeof(gauge));
	add(&list, counter_name, OID_LENGTH(counter_name), ASN_TIMETICKS,
	    &ticks, sizeof(ticks));
	add(&list, odd_name, OID_LENGTH(odd_name), ASN_IPADDRESS, address,
	    sizeof(address));
	add(&list, text_name, OID_LENGTH(text_name), ASN_OPAQUE, opaque,
	    sizeof(opaque));
	add(&list, text_name, OID_LENGTH(text_name), ASN_OBJECT_ID, pointer,
	    sizeof(pointer));
	add(&list, text_name, OID_LENGTH(text_name), ASN_OBJECT_ID,
	    zero_dot_zero, sizeof(zero_dot_zero));
	assert_round_trip(list);
	snmp_free_varbind(list);
}
END_TEST

START_TEST(exceptions_read_back)
{
	netsnmp_variable_list *list = NULL;

	add(&list, text_name, OID_LENGTH(text_name), SNMP_NOSUCHOBJECT, NULL,
	    0);
	add(&list, text_name, OID_LENGTH(text_name), SNMP_NOSUCHINSTANCE, NULL,
	    0);
	add(&list, counter_name, OID_LENGTH(counter_name), SNMP_ENDOFMIBVIEW,
	    NULL, 0);
	add(&list, odd_name, OID_LENGTH(odd_name), ASN_NULL, NULL, 0);
	assert_round_trip(list);
	snmp_free_varbind(list);
}
END_TEST

/* The layout of one varbind, byte by byte (RFC 2741 5.1, 5.4): a name
 * under 1.3.6.1.4 is sent with prefix 4 and without its first five
 * sub-identifiers. */
START_TEST(prefix_compressed_layout)
{
	static const oid name[] = {1, 3, 6, 1, 4, 1, 258};
	static const unsigned char expected[] = {/* header */
	    1, 18, 0x10, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 28,
	    /* sysUpTime, error, index */
	    0, 0, 0, 0, 0, 0, 0, 0,
	    /* Gauge32, reserved; name: 2 sub-identifiers, prefix 4 */
	    0, 66, 0, 0, 2, 4, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2,
	    /* value */
	    0, 0, 0, 9};
	netsnmp_variable_list *list = NULL;
	struct agent_agentx_buffer buffer = {NULL, 0};
	struct agent_agentx_ids ids = {1, 2, 3, true};
	long gauge = 9;
	size_t length;

	add(&list, name, OID_LENGTH(name), ASN_GAUGE, &gauge, sizeof(gauge));
	length = agent_agentx_encode_response(&buffer, &ids, list);
	ck_assert_uint_eq(length, sizeof(expected));
	ck_assert_mem_eq(buffer.bytes, expected, sizeof(expected));
	/* The buffer is kept and reused for the next answer. */
	ck_assert_uint_eq(
	    agent_agentx_encode_response(&buffer, &ids, list), length);
	snmp_free_varbind(list);
	agent_agentx_buffer_free(&buffer);
}
END_TEST

/* The same varbind answering a request in little-endian order: every
 * number of the PDU least significant byte first, the flag clear (RFC 2741
 * 5.1, 6.1). */
START_TEST(little_endian_layout)
{
	static const oid name[] = {1, 3, 6, 1, 4, 1, 258};
	static const unsigned char expected[] = {/* header */
	    1, 18, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 28, 0, 0, 0,
	    /* sysUpTime, error, index */
	    0, 0, 0, 0, 0, 0, 0, 0,
	    /* Gauge32, reserved; name: 2 sub-identifiers, prefix 4 */
	    66, 0, 0, 0, 2, 4, 0, 0, 1, 0, 0, 0, 2, 1, 0, 0,
	    /* value */
	    9, 0, 0, 0};
	struct counter64 big = {0x01020304, 0x05060708};
	static const unsigned char big_value[] = {8, 7, 6, 5, 4, 3, 2, 1};
	netsnmp_variable_list *list = NULL;
	struct agent_agentx_buffer buffer = {NULL, 0};
	struct agent_agentx_ids ids = {1, 2, 3, false};
	long gauge = 9;
	size_t length;

	add(&list, name, OID_LENGTH(name), ASN_GAUGE, &gauge, sizeof(gauge));
	length = agent_agentx_encode_response(&buffer, &ids, list);
	ck_assert_uint_eq(length, sizeof(expected));
	ck_assert_mem_eq(buffer.bytes, expected, sizeof(expected));
	snmp_free_varbind(list);

	/* A Counter64 is one 64-bit number: its low half first. */
	list = NULL;
	add(&list, name, OID_LENGTH(name), ASN_COUNTER64, &big, sizeof(big));
	length = agent_agentx_encode_response(&buffer, &ids, list);
	ck_assert_uint_eq(length, sizeof(expected) + 4);
	ck_assert_mem_eq(buffer.bytes + length - sizeof(big_value), big_value,
	    sizeof(big_value));
	snmp_free_varbind(list);
	agent_agentx_buffer_free(&buffer);
}
END_TEST

/* What the encoding does not take makes it fail (the caller then answers
 * through Net-SNMP): a type it does not know, and a name of more
 * sub-identifiers than a byte counts. */
START_TEST(refuses_what_it_cannot_encode)
{
	netsnmp_variable_list *list = NULL;
	struct agent_agentx_buffer buffer = {NULL, 0};
	struct agent_agentx_ids ids = {1, 2, 3, true};
	oid long_name[300];
	const u_char bits[] = {0x80};

	/* AgentX has no BIT STRING. */
	add(&list, text_name, OID_LENGTH(text_name), ASN_BIT_STR, bits,
	    sizeof(bits));
	ck_assert_uint_eq(agent_agentx_encode_response(&buffer, &ids, list), 0);
	snmp_free_varbind(list);

	list = NULL;
	for (size_t i = 0; i < OID_LENGTH(long_name); i++)
		long_name[i] = 2;
	add(&list, text_name, OID_LENGTH(text_name), ASN_NULL, NULL, 0);
	ck_assert_int_eq(
	    snmp_set_var_objid(list, long_name, OID_LENGTH(long_name)), 0);
	ck_assert_uint_eq(agent_agentx_encode_response(&buffer, &ids, list), 0);
	snmp_free_varbind(list);

	/* An IpAddress is four octets. */
	list = NULL;
	add(&list, text_name, OID_LENGTH(text_name), ASN_IPADDRESS, bits,
	    sizeof(bits));
	ck_assert_uint_eq(agent_agentx_encode_response(&buffer, &ids, list), 0);
	snmp_free_varbind(list);

	/* A sub-identifier AgentX cannot carry (32 bits). */
	if (sizeof(oid) > 4) {
		oid wide_name[] = {1, 3, 6, 1, 4, 1, (oid)UINT32_MAX + 1};

		list = NULL;
		add(&list, wide_name, OID_LENGTH(wide_name), ASN_NULL, NULL, 0);
		ck_assert_uint_eq(
		    agent_agentx_encode_response(&buffer, &ids, list), 0);
		snmp_free_varbind(list);
	}
	agent_agentx_buffer_free(&buffer);
}
END_TEST

static Suite *
agentx_encode_suite(void)
{
	Suite *suite = suite_create("agentx encode");
	TCase *tcase = tcase_create("response");

	tcase_add_test(tcase, every_type_reads_back);
	tcase_add_test(tcase, exceptions_read_back);
	tcase_add_test(tcase, prefix_compressed_layout);
	tcase_add_test(tcase, little_endian_layout);
	tcase_add_test(tcase, refuses_what_it_cannot_encode);
	suite_add_tcase(suite, tcase);
	return suite;
}

int
main(void)
{
	return unit_run_suite(agentx_encode_suite());
}
