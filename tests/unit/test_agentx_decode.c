/*
 * Unit tests for what the in-place AgentX path reads from the master and
 * how it writes back: src/agent/agentx_decode.c (the header and the
 * SearchRanges of a Get or GetNext, in both byte orders, with and without
 * the 1.3.6.1 prefix, the include flag and the null OID), each PDU read
 * back against Net-SNMP's own AgentX parser (agentx_parse, what the
 * subagent ran before); src/agent/agentx_stream.c (several PDUs in one
 * read, a PDU split across reads, an over-long payload length, what goes
 * on to Net-SNMP whole and in order); src/agent/agentx_send.c (a peer
 * that does not read: the wait is bounded, a cut answer shuts the socket
 * down; what the socket does not take waits and goes out whole and in
 * order, or ends the connection when nothing of it is taken for the wait
 * or too much waits).
 */
#define _GNU_SOURCE
#include "agent/agentx_decode.h"
#include "agent/agentx_send.h"
#include "agent/agentx_stream.h"

#include <check.h>
#include <errno.h>
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check_runner.h"

/* libnetsnmpagent's AgentX parser; its header (agentx/protocol.h) is not
 * installed. */
int agentx_parse(
    netsnmp_session *session, netsnmp_pdu *pdu, u_char *data, size_t length);

/* What an AgentX session's version is in Net-SNMP: AGENTX_VERSION_BASE |
 * 1. */
#define AGENTX_SESSION_VERSION (192 | 1)
#define AGENTX_SET 8

/* A PDU being built by hand, in one byte order. */
struct pdu_builder {
	unsigned char bytes[4096];
	size_t length;
	bool network;
};

static void
put_u32(struct pdu_builder *pdu, uint32_t value)
{
	unsigned char *at = pdu->bytes + pdu->length;

	for (int i = 0; i < 4; i++)
		at[i] = (unsigned char)(value >>
		                        (pdu->network ? 24 - 8 * i : 8 * i));
	pdu->length += 4;
}

static void
begin_pdu(struct pdu_builder *pdu, uint8_t type, bool network, uint32_t packet)
{
	pdu->length = 0;
	pdu->network = network;
	pdu->bytes[pdu->length++] = 1;
	pdu->bytes[pdu->length++] = type;
	pdu->bytes[pdu->length++] =
	    network ? AGENT_AGENTX_FLAG_NETWORK_BYTE_ORDER : 0;
	pdu->bytes[pdu->length++] = 0;
	put_u32(pdu, 0x01020304); /* session */
	put_u32(pdu, 0x0a0b0c0d); /* transaction */
	put_u32(pdu, packet);
	put_u32(pdu, 0); /* payload length, set by end_pdu */
}

/* An OID in AgentX form: `prefix` non-zero stands for 1.3.6.1.<prefix>. */
static void
put_oid(struct pdu_builder *pdu, uint8_t prefix, bool include,
    const uint32_t *subids, size_t count)
{
	pdu->bytes[pdu->length++] = (unsigned char)count;
	pdu->bytes[pdu->length++] = prefix;
	pdu->bytes[pdu->length++] = include ? 1 : 0;
	pdu->bytes[pdu->length++] = 0;
	for (size_t i = 0; i < count; i++)
		put_u32(pdu, subids[i]);
}

static size_t
end_pdu(struct pdu_builder *pdu)
{
	size_t length = pdu->length;

	pdu->length = 16;
	put_u32(pdu, (uint32_t)(length - AGENT_AGENTX_HEADER_SIZE));
	pdu->length = length;
	return length;
}

/* A GetNext of three SearchRanges: one under 1.3.6.1.4 with the include
 * flag and an end, one not under 1.3.6.1 (a sub-identifier of 2^31 and
 * more) with the null OID as its end, one with the null OID as its
 * start. */
static const uint32_t first_start[] = {1, 8072, 9999, 9999, 4040, 1, 5};
static const uint32_t first_end[] = {1, 8072, 9999, 9999, 4040, 2};
static const uint32_t second_start[] = {2, 5, 2172947406u};

static size_t
build_getnext(struct pdu_builder *pdu, bool network)
{
	begin_pdu(pdu, AGENT_AGENTX_GETNEXT, network, 77);
	put_oid(pdu, 4, true, first_start, 7);
	put_oid(pdu, 4, false, first_end, 6);
	put_oid(pdu, 0, false, second_start, 3);
	put_oid(pdu, 0, false, NULL, 0);
	put_oid(pdu, 0, false, NULL, 0);
	put_oid(pdu, 0, false, NULL, 0);
	return end_pdu(pdu);
}

static void
assert_oid(const struct agent_agentx_oid *name, const uint32_t *subids,
    size_t count, uint8_t prefix)
{
	size_t at = 0;

	ck_assert_uint_eq(name->length, count + (prefix != 0 ? 5 : 0));
	if (prefix != 0) {
		ck_assert_uint_eq(name->subids[0], 1);
		ck_assert_uint_eq(name->subids[1], 3);
		ck_assert_uint_eq(name->subids[2], 6);
		ck_assert_uint_eq(name->subids[3], 1);
		ck_assert_uint_eq(name->subids[4], prefix);
		at = 5;
	}
	for (size_t i = 0; i < count; i++)
		ck_assert_uint_eq(name->subids[at + i], subids[i]);
}

/* Net-SNMP's parser reads the same PDU into the same names, include flags
 * and ends (its 64-bit sub-identifiers sign-extended from 32 bits). */
static void
assert_as_net_snmp(const unsigned char *bytes, size_t length)
{
	netsnmp_session session;
	netsnmp_pdu *pdu = snmp_pdu_create(0);
	struct agent_agentx_header header;
	struct agent_agentx_reader reader;
	struct agent_agentx_oid start, end;
	netsnmp_variable_list *varbind;
	int read;

	memset(&session, 0, sizeof(session));
	session.version = AGENTX_SESSION_VERSION;
	ck_assert_ptr_nonnull(pdu);
	ck_assert_int_eq(
	    agentx_parse(&session, pdu, (u_char *)bytes, length), 0);
	ck_assert(agent_agentx_decode_header(bytes, length, &header));
	ck_assert_int_eq(pdu->command, header.type);
	ck_assert_uint_eq((uint32_t)pdu->sessid, header.session);
	ck_assert_uint_eq((uint32_t)pdu->transid, header.transaction);
	ck_assert_uint_eq((uint32_t)pdu->reqid, header.packet);
	agent_agentx_reader_start(&reader, &header, bytes, length);
	varbind = pdu->variables;
	while ((read = agent_agentx_next_range(&reader, &start, &end)) > 0) {
		ck_assert_ptr_nonnull(varbind);
		ck_assert_uint_eq(varbind->name_length, start.length);
		for (size_t i = 0; i < start.length; i++)
			ck_assert_uint_eq(
			    (uint32_t)varbind->name[i], start.subids[i]);
		ck_assert_int_eq(varbind->type,
		    start.include ? ASN_PRIV_INCL_RANGE : ASN_PRIV_EXCL_RANGE);
		ck_assert_uint_eq(varbind->val_len / sizeof(oid), end.length);
		for (size_t i = 0; i < end.length; i++)
			ck_assert_uint_eq(
			    (uint32_t)varbind->val.objid[i], end.subids[i]);
		varbind = varbind->next_variable;
	}
	ck_assert_int_eq(read, 0);
	ck_assert_ptr_null(varbind);
	snmp_free_pdu(pdu);
}

START_TEST(getnext_both_byte_orders)
{
	for (int network = 0; network <= 1; network++) {
		struct pdu_builder pdu;
		size_t length = build_getnext(&pdu, network);
		struct agent_agentx_header header;
		struct agent_agentx_reader reader;
		struct agent_agentx_oid start, end;

		ck_assert(
		    agent_agentx_decode_header(pdu.bytes, length, &header));
		ck_assert_uint_eq(header.version, 1);
		ck_assert_uint_eq(header.type, AGENT_AGENTX_GETNEXT);
		ck_assert_uint_eq(header.session, 0x01020304);
		ck_assert_uint_eq(header.transaction, 0x0a0b0c0d);
		ck_assert_uint_eq(header.packet, 77);
		ck_assert_uint_eq(agent_agentx_pdu_length(&header), length);
		agent_agentx_reader_start(&reader, &header, pdu.bytes, length);

		ck_assert_int_eq(
		    agent_agentx_next_range(&reader, &start, &end), 1);
		assert_oid(&start, first_start, 7, 4);
		ck_assert(start.include);
		assert_oid(&end, first_end, 6, 4);

		ck_assert_int_eq(
		    agent_agentx_next_range(&reader, &start, &end), 1);
		assert_oid(&start, second_start, 3, 0);
		ck_assert(!start.include);
		ck_assert_uint_eq(end.length, 2); /* the null OID: 0.0 */
		ck_assert_uint_eq(end.subids[0], 0);
		ck_assert_uint_eq(end.subids[1], 0);

		ck_assert_int_eq(
		    agent_agentx_next_range(&reader, &start, &end), 1);
		ck_assert_uint_eq(start.length, 2);
		ck_assert_uint_eq(start.subids[0], 0);
		ck_assert_uint_eq(start.subids[1], 0);
		ck_assert_int_eq(
		    agent_agentx_next_range(&reader, &start, &end), 0);

		assert_as_net_snmp(pdu.bytes, length);
	}
}
END_TEST

/* Ends `pdu`, checks that its header reads, and starts `reader` on it:
 * what reading its first SearchRange into `start` and `end` returns. */
static int
first_range(struct pdu_builder *pdu, struct agent_agentx_reader *reader,
    struct agent_agentx_oid *start, struct agent_agentx_oid *end)
{
	struct agent_agentx_header header;
	size_t length = end_pdu(pdu);

	ck_assert(agent_agentx_decode_header(pdu->bytes, length, &header));
	agent_agentx_reader_start(reader, &header, pdu->bytes, length);
	return agent_agentx_next_range(reader, start, end);
}

START_TEST(get_and_empty_payload)
{
	struct pdu_builder pdu;
	struct agent_agentx_reader reader;
	struct agent_agentx_oid start, end;
	size_t length;

	begin_pdu(&pdu, AGENT_AGENTX_GET, false, 5);
	put_oid(&pdu, 4, false, first_start, 7);
	put_oid(&pdu, 0, false, NULL, 0);
	length = end_pdu(&pdu);
	assert_as_net_snmp(pdu.bytes, length);

	/* No SearchRange at all: a Get of nothing. */
	begin_pdu(&pdu, AGENT_AGENTX_GET, true, 6);
	ck_assert_int_eq(first_range(&pdu, &reader, &start, &end), 0);
	assert_as_net_snmp(pdu.bytes, pdu.length);
}
END_TEST

/* A payload that is not exactly SearchRanges is refused: the caller hands
 * the PDU to Net-SNMP. */
START_TEST(refuses_what_is_not_a_search_range_list)
{
	static const uint32_t long_name[AGENT_AGENTX_OID_MAX + 1];
	struct pdu_builder pdu;
	struct agent_agentx_header header;
	struct agent_agentx_reader reader;
	struct agent_agentx_oid start, end;

	/* An end missing. */
	begin_pdu(&pdu, AGENT_AGENTX_GETNEXT, true, 1);
	put_oid(&pdu, 4, false, first_start, 7);
	ck_assert_int_eq(first_range(&pdu, &reader, &start, &end), -1);

	/* n_subid larger than what follows. */
	begin_pdu(&pdu, AGENT_AGENTX_GETNEXT, true, 2);
	put_oid(&pdu, 4, false, first_start, 7);
	put_oid(&pdu, 0, false, NULL, 0);
	pdu.bytes[AGENT_AGENTX_HEADER_SIZE] = 8;
	ck_assert_int_eq(first_range(&pdu, &reader, &start, &end), -1);

	/* Two bytes after the last range. */
	begin_pdu(&pdu, AGENT_AGENTX_GETNEXT, false, 3);
	put_oid(&pdu, 4, false, first_start, 7);
	put_oid(&pdu, 0, false, NULL, 0);
	pdu.bytes[pdu.length++] = 0;
	pdu.bytes[pdu.length++] = 0;
	ck_assert_int_eq(first_range(&pdu, &reader, &start, &end), 1);
	ck_assert_int_eq(agent_agentx_next_range(&reader, &start, &end), -1);

	/* A name longer than a varbind's own buffer (with the prefix). */
	begin_pdu(&pdu, AGENT_AGENTX_GETNEXT, true, 4);
	put_oid(&pdu, 4, false, long_name, AGENT_AGENTX_OID_MAX - 4);
	put_oid(&pdu, 0, false, NULL, 0);
	ck_assert_int_eq(first_range(&pdu, &reader, &start, &end), -1);
	/* ... and one that just fits. */
	begin_pdu(&pdu, AGENT_AGENTX_GETNEXT, true, 5);
	put_oid(&pdu, 4, false, long_name, AGENT_AGENTX_OID_MAX - 5);
	put_oid(&pdu, 0, false, NULL, 0);
	ck_assert_int_eq(first_range(&pdu, &reader, &start, &end), 1);
	ck_assert_uint_eq(start.length, AGENT_AGENTX_OID_MAX);

	/* A header cut short. */
	ck_assert(!agent_agentx_decode_header(
	    pdu.bytes, AGENT_AGENTX_HEADER_SIZE - 1, &header));
}
END_TEST

static void
stream_put(struct agent_agentx_stream *stream, const unsigned char *bytes,
    size_t length)
{
	size_t room;
	unsigned char *into = agent_agentx_stream_room(stream, &room);

	ck_assert_uint_ge(room, length);
	memcpy(into, bytes, length);
	agent_agentx_stream_received(stream, length);
}

/* The packet id of the PDU first in the stream, or 0 when none is
 * whole. */
static uint32_t
stream_take(struct agent_agentx_stream *stream)
{
	struct agent_agentx_header header;
	const unsigned char *pdu;
	size_t length;

	if (agent_agentx_stream_front(stream, &pdu, &length, &header) !=
	    AGENT_AGENTX_FRONT_PDU)
		return 0;
	ck_assert_uint_eq(length, agent_agentx_pdu_length(&header));
	agent_agentx_stream_consume(stream, length);
	return header.packet;
}

START_TEST(stream_several_pdus_in_one_read)
{
	static struct agent_agentx_stream stream;
	unsigned char read[3 * 4096];
	struct pdu_builder pdu;
	size_t length = 0;

	agent_agentx_stream_reset(&stream);
	for (uint32_t packet = 1; packet <= 3; packet++) {
		begin_pdu(&pdu, AGENT_AGENTX_GETNEXT, packet != 2, packet);
		put_oid(&pdu, 4, false, first_start, 7);
		put_oid(&pdu, 0, false, NULL, 0);
		memcpy(read + length, pdu.bytes, end_pdu(&pdu));
		length += pdu.length;
	}
	stream_put(&stream, read, length);
	ck_assert_uint_eq(stream_take(&stream), 1);
	ck_assert_uint_eq(stream_take(&stream), 2);
	ck_assert_uint_eq(stream_take(&stream), 3);
	ck_assert_uint_eq(stream_take(&stream), 0);
}
END_TEST

START_TEST(stream_pdu_split_across_reads)
{
	static struct agent_agentx_stream stream;
	struct pdu_builder pdu;
	size_t length;

	agent_agentx_stream_reset(&stream);
	begin_pdu(&pdu, AGENT_AGENTX_GET, true, 9);
	put_oid(&pdu, 4, false, first_start, 7);
	put_oid(&pdu, 0, false, NULL, 0);
	length = end_pdu(&pdu);
	/* One byte a read: whole only at the last. */
	for (size_t i = 0; i < length; i++) {
		ck_assert_uint_eq(stream_take(&stream), 0);
		stream_put(&stream, pdu.bytes + i, 1);
	}
	ck_assert_uint_eq(stream_take(&stream), 9);

	/* The end of one and the start of the next in one read, after a
	 * whole one. */
	stream_put(&stream, pdu.bytes, length);
	stream_put(&stream, pdu.bytes, 10);
	ck_assert_uint_eq(stream_take(&stream), 9);
	ck_assert_uint_eq(stream_take(&stream), 0);
	stream_put(&stream, pdu.bytes + 10, length - 10);
	ck_assert_uint_eq(stream_take(&stream), 9);
	ck_assert_uint_eq(stream_take(&stream), 0);
}
END_TEST

/* What goes on to Net-SNMP: whole PDUs, in order, while they fit. */
START_TEST(stream_hands_whole_pdus_in_order)
{
	static struct agent_agentx_stream stream;
	unsigned char out[4096];
	struct pdu_builder set, get;
	size_t set_length, get_length;

	agent_agentx_stream_reset(&stream);
	begin_pdu(&set, AGENTX_SET, true, 20);
	put_oid(&set, 4, false, first_start, 7);
	set_length = end_pdu(&set);
	begin_pdu(&get, AGENT_AGENTX_GET, true, 21);
	put_oid(&get, 4, false, first_start, 7);
	put_oid(&get, 0, false, NULL, 0);
	get_length = end_pdu(&get);
	stream_put(&stream, set.bytes, set_length);
	stream_put(&stream, get.bytes, get_length);
	stream_put(&stream, set.bytes, 7);

	/* Room for one only: the first alone. */
	ck_assert_uint_eq(
	    agent_agentx_stream_hand(&stream, out, set_length + 4), set_length);
	ck_assert_mem_eq(out, set.bytes, set_length);
	/* Then the Get, not the partial PDU after it. */
	ck_assert_uint_eq(
	    agent_agentx_stream_hand(&stream, out, sizeof(out)), get_length);
	ck_assert_mem_eq(out, get.bytes, get_length);
	ck_assert_uint_eq(
	    agent_agentx_stream_hand(&stream, out, sizeof(out)), 0);
	stream_put(&stream, set.bytes + 7, set_length - 7);
	ck_assert_uint_eq(
	    agent_agentx_stream_hand(&stream, out, sizeof(out)), set_length);
	ck_assert_mem_eq(out, set.bytes, set_length);
}
END_TEST

/* A payload length beyond what Net-SNMP parses: everything from it on is
 * passed through raw, in order, and the stream never holds more than its
 * bound. */
START_TEST(stream_over_long_pdu_passes_through)
{
	static struct agent_agentx_stream stream;
	static unsigned char out[AGENT_AGENTX_PDU_MAX];
	struct pdu_builder pdu, get;
	size_t get_length, room;

	agent_agentx_stream_reset(&stream);
	begin_pdu(&get, AGENT_AGENTX_GET, false, 30);
	put_oid(&get, 4, false, first_start, 7);
	put_oid(&get, 0, false, NULL, 0);
	get_length = end_pdu(&get);
	stream_put(&stream, get.bytes, get_length);
	begin_pdu(&pdu, AGENT_AGENTX_GET, true, 31);
	pdu.length = 16;
	put_u32(&pdu, AGENT_AGENTX_PDU_MAX - AGENT_AGENTX_HEADER_SIZE + 1);
	stream_put(&stream, pdu.bytes, pdu.length);
	/* The Get before it is framed as usual. */
	ck_assert_uint_eq(stream_take(&stream), 30);
	ck_assert_uint_eq(stream_take(&stream), 0);
	ck_assert_uint_eq(agent_agentx_stream_hand(&stream, out, 8), 8);
	ck_assert_mem_eq(out, pdu.bytes, 8);
	ck_assert_uint_eq(
	    agent_agentx_stream_hand(&stream, out, sizeof(out)), 12);
	ck_assert_mem_eq(out, pdu.bytes + 8, 12);
	/* A whole Get after it is raw too. */
	stream_put(&stream, get.bytes, get_length);
	ck_assert_uint_eq(stream_take(&stream), 0);
	ck_assert_uint_eq(
	    agent_agentx_stream_hand(&stream, out, sizeof(out)), get_length);
	agent_agentx_stream_room(&stream, &room);
	ck_assert_uint_eq(room, AGENT_AGENTX_PDU_MAX);

	/* A new connection frames again. */
	agent_agentx_stream_reset(&stream);
	stream_put(&stream, get.bytes, get_length);
	ck_assert_uint_eq(stream_take(&stream), 30);
}
END_TEST

/* A reader whose buffer cannot take the whole PDU held (what the in-place
 * receive does then): once passed through, the bytes go raw, in order, a
 * piece at a time, and nothing stays held. */
START_TEST(stream_passes_through_to_a_small_reader)
{
	static struct agent_agentx_stream stream;
	unsigned char out[16];
	struct pdu_builder get;
	size_t get_length, taken = 0, piece;
	unsigned char copy[sizeof(get.bytes)];

	agent_agentx_stream_reset(&stream);
	begin_pdu(&get, AGENT_AGENTX_GET, true, 40);
	put_oid(&get, 4, false, first_start, 7);
	put_oid(&get, 0, false, NULL, 0);
	get_length = end_pdu(&get);
	stream_put(&stream, get.bytes, get_length);
	ck_assert_uint_gt(get_length, sizeof(out));
	ck_assert_uint_eq(
	    agent_agentx_stream_hand(&stream, out, sizeof(out)), 0);
	agent_agentx_stream_pass_through(&stream);
	while (
	    (piece = agent_agentx_stream_hand(&stream, out, sizeof(out))) > 0) {
		ck_assert_uint_le(taken + piece, get_length);
		memcpy(copy + taken, out, piece);
		taken += piece;
	}
	ck_assert_uint_eq(taken, get_length);
	ck_assert_mem_eq(copy, get.bytes, get_length);
	ck_assert_uint_eq(stream_take(&stream), 0);
}
END_TEST

/* A full-size PDU fits once the partial one before it is taken. */
START_TEST(stream_largest_pdu_fits)
{
	static struct agent_agentx_stream stream;
	static unsigned char large[AGENT_AGENTX_PDU_MAX];
	struct pdu_builder get;
	size_t get_length;

	agent_agentx_stream_reset(&stream);
	begin_pdu(&get, AGENT_AGENTX_GET, true, 40);
	get_length = end_pdu(&get);
	memcpy(large, get.bytes, AGENT_AGENTX_HEADER_SIZE);
	large[16] = 0;
	large[17] = 0;
	large[18] = (AGENT_AGENTX_PDU_MAX - AGENT_AGENTX_HEADER_SIZE) >> 8;
	large[19] = (AGENT_AGENTX_PDU_MAX - AGENT_AGENTX_HEADER_SIZE) & 0xff;
	stream_put(&stream, get.bytes, get_length);
	stream_put(&stream, large, 100);
	ck_assert_uint_eq(stream_take(&stream), 40);
	stream_put(&stream, large + 100, sizeof(large) - 100);
	ck_assert_uint_eq(stream_take(&stream), 40);
}
END_TEST

static int64_t
now_milliseconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Fills the socket's send buffer (and the peer's receive buffer). */
static void
fill(int socket)
{
	static const unsigned char chunk[4096];

	while (send(socket, chunk, sizeof(chunk), MSG_DONTWAIT) > 0)
		;
	ck_assert(errno == EAGAIN || errno == EWOULDBLOCK);
}

START_TEST(send_to_a_peer_that_does_not_read)
{
	static unsigned char answer[1 << 20];
	int pair[2];
	int64_t start;
	int buffer = 4096;
	size_t written;

	/* Blocking, as Net-SNMP opens the AgentX socket. */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
	setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof(buffer));

	/* Room for all of it. */
	ck_assert(agent_agentx_send(pair[0], answer, 100, 200, &written));
	ck_assert_uint_eq(written, 100);
	ck_assert_int_eq(recv(pair[1], answer, 100, 0), 100);

	/* No room at all: dropped after the wait, and the socket shut down,
	 * so that the answers still to come do not each wait again: the
	 * peer reads what was there before, then the end; a second answer
	 * fails at once. */
	fill(pair[0]);
	start = now_milliseconds();
	ck_assert(!agent_agentx_send(pair[0], answer, 100, 200, &written));
	ck_assert_int_eq(errno, ETIMEDOUT);
	ck_assert_uint_eq(written, 0);
	ck_assert_int_ge(now_milliseconds() - start, 190);
	ck_assert_int_lt(now_milliseconds() - start, 2000);
	ck_assert(!agent_agentx_send(pair[0], answer, 100, 200, &written));
	ck_assert_int_eq(errno, EPIPE);
	ck_assert_uint_eq(written, 0);
	{
		ssize_t count;
		while ((count = recv(pair[1], answer, 4096, 0)) > 0)
			;
		ck_assert_int_eq(count, 0);
	}
	close(pair[0]);
	close(pair[1]);

	/* Room for part: cut within the wait, the socket shut down so that
	 * the peer sees the end after what was written. */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
	setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof(buffer));
	start = now_milliseconds();
	ck_assert(
	    !agent_agentx_send(pair[0], answer, sizeof(answer), 200, &written));
	ck_assert_int_eq(errno, ETIMEDOUT);
	ck_assert_int_lt(now_milliseconds() - start, 2000);
	{
		ssize_t count, total = 0;
		while ((count = recv(pair[1], answer, 4096, 0)) > 0)
			total += count;
		ck_assert_int_eq(count, 0);
		ck_assert_int_gt(total, 0);
		ck_assert_int_eq(total, (ssize_t)written);
		ck_assert_int_lt(total, (ssize_t)sizeof(answer));
	}
	close(pair[0]);
	close(pair[1]);
}
END_TEST

/* A Response PDU of `length` octets (header included), packet `packet`. */
static void
build_response(struct pdu_builder *pdu, size_t length, uint32_t packet)
{
	begin_pdu(pdu, 18, true, packet);
	memset(pdu->bytes + pdu->length, (int)(packet & 0x7f) + 1,
	    length - pdu->length);
	pdu->length = length;
	end_pdu(pdu);
}

/* What the socket does not take waits, the PDUs sent meanwhile behind it,
 * and goes out as the peer reads: every octet, in order, each PDU whole. */
START_TEST(waiting_pdus_go_out_whole_in_order)
{
	static unsigned char sent[1 << 20], received[1 << 20];
	struct pdu_builder pdu;
	size_t sent_length = 0, received_length = 0;
	int pair[2], buffer = 4096;
	uint32_t packet = 1;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
	setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof(buffer));
	while (agent_agentx_waiting_socket() < 0) {
		ck_assert_uint_lt(packet, 1000);
		build_response(&pdu, 1000, packet++);
		ck_assert(agent_agentx_send_pdu(pair[0], pdu.bytes, 1000, 200));
		memcpy(sent + sent_length, pdu.bytes, 1000);
		sent_length += 1000;
	}
	ck_assert_int_eq(agent_agentx_waiting_socket(), pair[0]);
	ck_assert_int_lt(agent_agentx_waiting_deadline(), INT64_MAX);
	for (int i = 0; i < 3; i++) {
		build_response(&pdu, 300, packet++);
		ck_assert(agent_agentx_send_pdu(pair[0], pdu.bytes, 300, 200));
		memcpy(sent + sent_length, pdu.bytes, 300);
		sent_length += 300;
	}
	for (int round = 0; received_length < sent_length; round++) {
		ssize_t count = recv(pair[1], received + received_length,
		    sizeof(received) - received_length, MSG_DONTWAIT);

		ck_assert_int_lt(round, 100000);
		if (count > 0)
			received_length += (size_t)count;
		agent_agentx_waiting_run(now_milliseconds(), true);
	}
	ck_assert_int_eq(agent_agentx_waiting_socket(), -1);
	ck_assert_int_eq(agent_agentx_waiting_deadline(), INT64_MAX);
	ck_assert_uint_eq(received_length, sent_length);
	ck_assert_mem_eq(received, sent, sent_length);
	close(pair[0]);
	close(pair[1]);
}
END_TEST

/* A socket that takes nothing of what waits for the wait ends the
 * connection, none of the PDU written; a socket that takes some moves the
 * deadline; more than AGENT_AGENTX_WAITING_MAX waiting ends it at once. */
START_TEST(waiting_ends_the_connection)
{
	static unsigned char large[1 << 20];
	unsigned char chunk[4096];
	struct pdu_builder pdu;
	int pair[2], buffer = 4096;
	int64_t deadline;
	ssize_t count;
	int pdus;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
	setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof(buffer));
	fill(pair[0]);
	build_response(&pdu, 100, 7);
	ck_assert(agent_agentx_send_pdu(pair[0], pdu.bytes, 100, 200));
	ck_assert_int_eq(agent_agentx_waiting_socket(), pair[0]);
	deadline = agent_agentx_waiting_deadline();
	agent_agentx_waiting_run(deadline - 1, true);
	ck_assert_int_eq(agent_agentx_waiting_socket(), pair[0]);
	agent_agentx_waiting_run(deadline, false);
	ck_assert_int_eq(agent_agentx_waiting_socket(), -1);
	/* Shut down: what the peer reads is what filled it, then the end. */
	while ((count = recv(pair[1], chunk, sizeof(chunk), 0)) > 0)
		ck_assert_ptr_null(memchr(chunk, 1, (size_t)count));
	ck_assert_int_eq(count, 0);
	ck_assert(!agent_agentx_send_pdu(pair[0], pdu.bytes, 100, 200));
	ck_assert_int_eq(errno, EPIPE);
	close(pair[0]);
	close(pair[1]);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
	setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof(buffer));
	fill(pair[0]);
	memcpy(large, pdu.bytes, AGENT_AGENTX_HEADER_SIZE);
	large[16] = (unsigned char)((sizeof(large) - 20) >> 24);
	large[17] = (unsigned char)((sizeof(large) - 20) >> 16);
	large[18] = (unsigned char)((sizeof(large) - 20) >> 8);
	large[19] = (unsigned char)(sizeof(large) - 20);
	for (pdus = 0;
	     agent_agentx_send_pdu(pair[0], large, sizeof(large), 200); pdus++)
		ck_assert_int_lt(pdus, AGENT_AGENTX_WAITING_MAX / 4096);
	ck_assert_int_eq(errno, ENOBUFS);
	ck_assert_int_eq(pdus, AGENT_AGENTX_WAITING_MAX / (int)sizeof(large));
	ck_assert_int_eq(agent_agentx_waiting_socket(), -1);
	while ((count = recv(pair[1], chunk, sizeof(chunk), 0)) > 0)
		ck_assert_ptr_null(memchr(chunk, 1, (size_t)count));
	ck_assert_int_eq(count, 0);
	close(pair[0]);
	close(pair[1]);
}
END_TEST

static Suite *
agentx_decode_suite(void)
{
	Suite *suite = suite_create("agentx decode");
	TCase *decode = tcase_create("decode");
	TCase *stream = tcase_create("stream");
	TCase *send = tcase_create("send");

	tcase_add_test(decode, getnext_both_byte_orders);
	tcase_add_test(decode, get_and_empty_payload);
	tcase_add_test(decode, refuses_what_is_not_a_search_range_list);
	tcase_add_test(stream, stream_several_pdus_in_one_read);
	tcase_add_test(stream, stream_pdu_split_across_reads);
	tcase_add_test(stream, stream_hands_whole_pdus_in_order);
	tcase_add_test(stream, stream_over_long_pdu_passes_through);
	tcase_add_test(stream, stream_largest_pdu_fits);
	tcase_add_test(stream, stream_passes_through_to_a_small_reader);
	tcase_add_test(send, send_to_a_peer_that_does_not_read);
	tcase_add_test(send, waiting_pdus_go_out_whole_in_order);
	tcase_add_test(send, waiting_ends_the_connection);
	suite_add_tcase(suite, decode);
	suite_add_tcase(suite, stream);
	suite_add_tcase(suite, send);
	return suite;
}

int
main(void)
{
	return unit_run_suite(agentx_decode_suite());
}
