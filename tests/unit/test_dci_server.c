/*
 * The DCI Server (src/server): the protocol's framing and request layout
 * and their bounds, the answers over the standard registry (class
 * wildcards, instance masks, one datum or all, access refused as absent),
 * and the server itself in this process: a consumer connected to a real
 * socket, driven through dci_server_poll_add / poll /
 * dci_server_poll_handle as the daemon's loop drives it.
 */
#define _GNU_SOURCE
#include <check.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "fixtures.h"
#include "server/dci_access.h"
#include "server/dci_answer.h"
#include "protocol/dci_protocol.h"
#include "server/dci_server.h"

#define ALL DCI_PROTOCOL_ALL

static struct dci_protocol_request
request_of(const uint32_t *class_id, size_t levels, uint32_t mask,
    const uint32_t *words, size_t word_count, uint32_t datum)
{
	struct dci_protocol_request request = {0};

	memcpy(request.class_id, class_id, levels * sizeof(uint32_t));
	request.class_levels = levels;
	request.input_mask = mask;
	if (word_count > 0)
		memcpy(request.instance, words, word_count * sizeof(uint32_t));
	request.instance_words = word_count;
	request.datum_id = datum;
	return request;
}

/* --- protocol ------------------------------------------------------------ */

START_TEST(request_round_trip)
{
	struct dci_protocol_request request = request_of(
	    (const uint32_t[]){1, ALL}, 2, 1, (const uint32_t[]){7}, 1, 12);
	struct dci_protocol_request read;
	unsigned char bytes[DCI_PROTOCOL_REQUEST_MAX];
	size_t length =
	    dci_protocol_request_write(&request, bytes, sizeof(bytes));

	ck_assert_uint_eq(length, 4 * (1 + 2 + 2 + 1 + 1));
	ck_assert_int_eq(dci_protocol_request_read(bytes, length, &read),
	    DCI_PROTOCOL_SUCCESS);
	ck_assert_uint_eq(read.class_levels, 2);
	ck_assert_uint_eq(read.class_id[0], 1);
	ck_assert_uint_eq(read.class_id[1], ALL);
	ck_assert_uint_eq(read.input_mask, 1);
	ck_assert_uint_eq(read.instance_words, 1);
	ck_assert_uint_eq(read.instance[0], 7);
	ck_assert_uint_eq(read.datum_id, 12);
	/* One byte more, one byte less: refused. */
	ck_assert_int_eq(dci_protocol_request_read(bytes, length + 1, &read),
	    DCI_PROTOCOL_INVALIDARG);
	ck_assert_int_eq(dci_protocol_request_read(bytes, length - 1, &read),
	    DCI_PROTOCOL_INVALIDARG);
}
END_TEST

START_TEST(request_bounds_refused)
{
	unsigned char bytes[256] = {0};
	struct dci_protocol_request read;
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){1}, 1, 0, NULL, 0, ALL);
	size_t length;

	/* No class level. */
	ck_assert_int_eq(dci_protocol_request_read(bytes, 16, &read),
	    DCI_PROTOCOL_INVALIDARG);
	/* More class levels than a class id has. */
	bytes[0] = DCI_CLASS_ID_MAX_LEVELS + 1;
	ck_assert_int_eq(dci_protocol_request_read(bytes, sizeof(bytes), &read),
	    DCI_PROTOCOL_INVALIDARG);
	/* More instance words than an instance id has. */
	length = dci_protocol_request_write(&request, bytes, sizeof(bytes));
	bytes[12] = DCI_INSTANCE_ID_MAX_WORDS + 1;
	ck_assert_int_eq(dci_protocol_request_read(bytes, length, &read),
	    DCI_PROTOCOL_INVALIDARG);
	/* Datum 0 is no datum. */
	request.datum_id = 0;
	length = dci_protocol_request_write(&request, bytes, sizeof(bytes));
	ck_assert_int_eq(dci_protocol_request_read(bytes, length, &read),
	    DCI_PROTOCOL_INVALIDARG);
	/* Words with a mask naming no level. */
	request = request_of(
	    (const uint32_t[]){1}, 1, 0, (const uint32_t[]){3}, 1, ALL);
	length = dci_protocol_request_write(&request, bytes, sizeof(bytes));
	ck_assert_int_eq(dci_protocol_request_read(bytes, length, &read),
	    DCI_PROTOCOL_INVALIDARG);
	/* Too small a buffer to write into. */
	ck_assert_uint_eq(dci_protocol_request_write(&request, bytes, 8), 0);
}
END_TEST

START_TEST(header_checked)
{
	struct dci_protocol_header header = {DCI_PROTOCOL_MAGIC,
	    DCI_PROTOCOL_VERSION, DCI_PROTOCOL_GET_DATA, 9, 40};
	struct dci_protocol_header read;
	unsigned char bytes[DCI_PROTOCOL_HEADER_SIZE];

	dci_protocol_header_write(bytes, &header);
	ck_assert_int_eq(
	    dci_protocol_header_read(bytes, 40, &read), DCI_PROTOCOL_SUCCESS);
	ck_assert_uint_eq(read.type, DCI_PROTOCOL_GET_DATA);
	ck_assert_uint_eq(read.serial, 9);
	ck_assert_uint_eq(read.length, 40);
	/* A length beyond the reader's bound. */
	ck_assert_int_eq(dci_protocol_header_read(bytes, 39, &read),
	    DCI_PROTOCOL_INVALIDARG);
	header.version = 2;
	dci_protocol_header_write(bytes, &header);
	ck_assert_int_eq(dci_protocol_header_read(bytes, 40, &read),
	    DCI_PROTOCOL_NOIMPLEMENTATION);
	header.version = DCI_PROTOCOL_VERSION;
	header.magic ^= 1;
	dci_protocol_header_write(bytes, &header);
	ck_assert_int_eq(dci_protocol_header_read(bytes, 40, &read),
	    DCI_PROTOCOL_INVALIDARG);
}
END_TEST

START_TEST(writer_and_reader_bounded)
{
	struct dci_protocol_writer writer;
	struct dci_protocol_reader reader;
	const unsigned char *block;
	size_t length;

	dci_protocol_writer_init(&writer, 12);
	dci_protocol_put_block(&writer, "abc", 3); /* 4 + 4 bytes */
	ck_assert(!writer.overflow);
	dci_protocol_put_u64(&writer, 1); /* 8 more: beyond 12 */
	ck_assert(writer.overflow);
	ck_assert_uint_eq(writer.length, 8);
	ck_assert_mem_eq(writer.data + 4, "abc\0", 4);

	reader =
	    (struct dci_protocol_reader){writer.data, writer.length, 0, false};
	/* A block longer than the caller allows. */
	block = dci_protocol_get_block(&reader, 2, &length);
	ck_assert_ptr_null(block);
	ck_assert(reader.failed);
	reader =
	    (struct dci_protocol_reader){writer.data, writer.length, 0, false};
	block = dci_protocol_get_block(&reader, 3, &length);
	ck_assert_ptr_nonnull(block);
	ck_assert_uint_eq(length, 3);
	ck_assert_uint_eq(dci_protocol_get_u32(&reader), 0);
	ck_assert(reader.failed);
	dci_protocol_writer_free(&writer);

	/* A block whose length says more than there is. */
	unsigned char lying[8] = {0xff, 0xff, 0xff, 0x7f, 'x', 0, 0, 0};
	reader = (struct dci_protocol_reader){lying, sizeof(lying), 0, false};
	ck_assert_ptr_null(dci_protocol_get_block(&reader, SIZE_MAX, &length));
	ck_assert(reader.failed);
}
END_TEST

/* --- answers ------------------------------------------------------------- */

static struct dci_registry *registry;
static struct dci_access no_rules;
static struct dci_access_peer peer = {.uid = 1000, .gid = 1000};

static void
registry_setup(void)
{
	registry = fx_standard_registry();
}

static void
registry_teardown(void)
{
	dci_registry_free(registry);
}

/* Answers `request`; a reader past the answer head, with its status and
 * count. */
struct answer {
	struct dci_protocol_writer payload;
	struct dci_protocol_reader reader;
	uint32_t status;
	uint32_t count;
	uint64_t start;
	uint64_t end;
};

static void
answer_of(struct answer *answer, uint16_t type,
    const struct dci_protocol_request *request, const struct dci_access *access,
    const struct dci_access_peer *who)
{
	dci_protocol_writer_init(&answer->payload, DCI_PROTOCOL_RESPONSE_MAX);
	dci_answer(registry, access, who, type, request, &answer->payload);
	ck_assert(!answer->payload.overflow);
	answer->reader = (struct dci_protocol_reader){
	    answer->payload.data, answer->payload.length, 0, false};
	answer->status = dci_protocol_get_u32(&answer->reader);
	answer->count = dci_protocol_get_u32(&answer->reader);
	answer->start = dci_protocol_get_u64(&answer->reader);
	answer->end = dci_protocol_get_u64(&answer->reader);
	ck_assert(!answer->reader.failed);
}

/* A class id from the answer, as "1.2". */
static void
read_id(struct dci_protocol_reader *reader, char *text, size_t size)
{
	uint32_t levels = dci_protocol_get_u32(reader);
	size_t used = 0;

	ck_assert_uint_le(levels, DCI_CLASS_ID_MAX_LEVELS);
	text[0] = '\0';
	for (uint32_t i = 0; i < levels; i++)
		used += (size_t)snprintf(text + used, size - used, "%s%u",
		    i ? "." : "", dci_protocol_get_u32(reader));
}

START_TEST(class_wildcards)
{
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){ALL}, 1, 0, NULL, 0, ALL);
	struct answer answer;
	char id[64], listed[256] = "";
	size_t length;

	answer_of(
	    &answer, DCI_PROTOCOL_LIST_CLASSES, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_SUCCESS);
	ck_assert_uint_eq(answer.count, registry->class_count);
	ck_assert_uint_le(answer.start, answer.end);
	for (uint32_t i = 0; i < answer.count; i++) {
		read_id(&answer.reader, id, sizeof(id));
		dci_protocol_get_block(&answer.reader, 255, &length);
		dci_protocol_get_u32(&answer.reader);
		dci_protocol_get_u32(&answer.reader);
		strcat(listed, id);
		strcat(listed, " ");
	}
	ck_assert_str_eq(listed, "2 1.1 1.2 3.1 ");
	ck_assert_uint_eq(answer.reader.offset, answer.payload.length);
	dci_protocol_writer_free(&answer.payload);

	/* An inner wildcard is one level exactly: *.1 is 1.1 and 3.1. */
	request = request_of((const uint32_t[]){ALL, 1}, 2, 0, NULL, 0, ALL);
	answer_of(
	    &answer, DCI_PROTOCOL_LIST_CLASSES, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.count, 2);
	dci_protocol_writer_free(&answer.payload);

	/* 1.* is every class below 1; 1 alone is no class. */
	request = request_of((const uint32_t[]){1, ALL}, 2, 0, NULL, 0, ALL);
	answer_of(
	    &answer, DCI_PROTOCOL_LIST_CLASSES, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.count, 2);
	dci_protocol_writer_free(&answer.payload);
	request = request_of((const uint32_t[]){1}, 1, 0, NULL, 0, ALL);
	answer_of(
	    &answer, DCI_PROTOCOL_LIST_CLASSES, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_NOTPRESENT);
	ck_assert_uint_eq(answer.count, 0);
	dci_protocol_writer_free(&answer.payload);
}
END_TEST

START_TEST(one_datum_of_one_instance)
{
	struct dci_protocol_request request = request_of(
	    (const uint32_t[]){1, 1}, 2, 1, (const uint32_t[]){10}, 1, 2);
	struct answer answer;
	const unsigned char *data;
	char id[64];
	size_t length;
	uint64_t value;

	answer_of(&answer, DCI_PROTOCOL_GET_DATA, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_SUCCESS);
	ck_assert_uint_eq(answer.count, 1);
	ck_assert_uint_eq(
	    dci_protocol_get_u32(&answer.reader), DCI_PROTOCOL_SUCCESS);
	read_id(&answer.reader, id, sizeof(id));
	ck_assert_str_eq(id, "1.1");
	read_id(&answer.reader, id, sizeof(id));
	ck_assert_str_eq(id, "10");
	ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader), 2);
	dci_protocol_get_block(&answer.reader, 0, &length);
	ck_assert_uint_eq(length, 0);
	data = dci_protocol_get_block(&answer.reader, 8, &length);
	ck_assert_uint_eq(length, 8);
	/* rx_bytes, unsigned little-endian as its format says. */
	memcpy(&value, data, 8);
	ck_assert_uint_eq(le64toh(value), FX_NETIF_RX_ETH0);
	ck_assert_uint_eq(answer.reader.offset, answer.payload.length);
	dci_protocol_writer_free(&answer.payload);
}
END_TEST

/* LIST_SUPPLIERS gives every supplier with a row, a failed one with its
 * failure, in index order, whatever the pattern. */
START_TEST(suppliers_listed_with_state)
{
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){9}, 1, 0, NULL, 0, ALL);
	struct dci_supplier *failed = dci_registry_add_failed_supplier(
	    registry, "/opt/broken.so", "cannot open shared object", NULL);
	struct answer answer;
	const unsigned char *text;
	size_t length;

	ck_assert_ptr_nonnull(failed);
	answer_of(
	    &answer, DCI_PROTOCOL_LIST_SUPPLIERS, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_SUCCESS);
	ck_assert_uint_eq(answer.count, registry->supplier_count);
	for (uint32_t i = 0; i < answer.count; i++) {
		const struct dci_supplier *supplier = registry->suppliers[i];

		ck_assert_uint_eq(
		    dci_protocol_get_u32(&answer.reader), supplier->index);
		ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader),
		    (uint32_t)supplier->status);
		ck_assert_uint_eq(
		    dci_protocol_get_u32(&answer.reader), supplier->type);
		ck_assert_uint_eq(
		    dci_protocol_get_u32(&answer.reader), supplier->version);
		text = dci_protocol_get_block(&answer.reader, 8, &length);
		ck_assert_uint_eq(length, 8);
		ck_assert_mem_eq(text, supplier->reset, 8);
		text = dci_protocol_get_block(&answer.reader, 4096, &length);
		ck_assert_uint_eq(length, strlen(supplier->module));
		ck_assert_mem_eq(text, supplier->module, length);
		for (int skipped = 0; skipped < 3; skipped++)
			dci_protocol_get_block(&answer.reader, 4096, &length);
		text = dci_protocol_get_block(&answer.reader, 4096, &length);
		if (supplier == failed) {
			ck_assert_uint_eq(
			    supplier->status, DCI_SUPPLIER_FAILED);
			ck_assert_uint_eq(
			    length, strlen("cannot open shared object"));
			ck_assert_mem_eq(
			    text, "cannot open shared object", length);
		} else {
			ck_assert_uint_eq(length, 0);
		}
		ck_assert_int_eq((int64_t)dci_protocol_get_u64(&answer.reader),
		    supplier->discontinuity_milliseconds);
		ck_assert_int_eq((int64_t)dci_protocol_get_u64(&answer.reader),
		    supplier->last_refresh_milliseconds);
	}
	ck_assert(!answer.reader.failed);
	ck_assert_uint_eq(answer.reader.offset, answer.payload.length);
	dci_protocol_writer_free(&answer.payload);
}
END_TEST

/* Every write is refused per instance matched, with the layout
 * dci_answer.c gives; an unmatched one is NOTPRESENT. */
START_TEST(writes_refused_per_instance)
{
	static const uint16_t writes[] = {DCI_PROTOCOL_SET_DATA,
	    DCI_PROTOCOL_RESERVE_DATA, DCI_PROTOCOL_RELEASE_DATA,
	    DCI_PROTOCOL_CONFIGURE};
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){1, 1}, 2, 0, NULL, 0, 5);
	struct dci_protocol_request nothing =
	    request_of((const uint32_t[]){9}, 1, 0, NULL, 0, 5);
	struct answer answer;
	char id[64];

	for (size_t w = 0; w < sizeof(writes) / sizeof(writes[0]); w++) {
		answer_of(&answer, writes[w], &request, &no_rules, &peer);
		ck_assert_uint_eq(
		    answer.status, DCI_PROTOCOL_METHODOPUNAVAILABLE);
		ck_assert_uint_eq(answer.count, 3);
		for (int i = 0; i < 3; i++) {
			ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader),
			    DCI_PROTOCOL_METHODOPUNAVAILABLE);
			read_id(&answer.reader, id, sizeof(id));
			ck_assert_str_eq(id, "1.1");
			read_id(&answer.reader, id, sizeof(id));
			ck_assert_str_eq(id, i == 0   ? "10"
			                     : i == 1 ? "20"
			                              : "30");
			ck_assert_uint_eq(
			    dci_protocol_get_u32(&answer.reader), 5);
		}
		ck_assert_uint_eq(answer.reader.offset, answer.payload.length);
		dci_protocol_writer_free(&answer.payload);
		answer_of(&answer, writes[w], &nothing, &no_rules, &peer);
		ck_assert_uint_eq(answer.status, DCI_PROTOCOL_NOTPRESENT);
		ck_assert_uint_eq(answer.count, 0);
		dci_protocol_writer_free(&answer.payload);
	}
	ck_assert_str_eq(
	    dci_protocol_status_name(DCI_PROTOCOL_METHODOPUNAVAILABLE),
	    "METHODOPUNAVAILABLE");
}
END_TEST

START_TEST(datum_statuses)
{
	/* queue (5) has no value for eth1 (20); datum 9 does not exist. */
	struct dci_protocol_request request = request_of(
	    (const uint32_t[]){1, 1}, 2, 1, (const uint32_t[]){20}, 1, 5);
	struct answer answer;

	answer_of(&answer, DCI_PROTOCOL_GET_DATA, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_INVALIDDATA);
	ck_assert_uint_eq(answer.count, 1);
	ck_assert_uint_eq(
	    dci_protocol_get_u32(&answer.reader), DCI_PROTOCOL_INVALIDDATA);
	dci_protocol_writer_free(&answer.payload);
	request.datum_id = 9;
	answer_of(&answer, DCI_PROTOCOL_GET_DATA, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_NOTPRESENT);
	dci_protocol_writer_free(&answer.payload);
	/* An instance that is not there. */
	request = request_of(
	    (const uint32_t[]){1, 1}, 2, 1, (const uint32_t[]){11}, 1, ALL);
	answer_of(&answer, DCI_PROTOCOL_GET_DATA, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_NOTPRESENT);
	ck_assert_uint_eq(answer.count, 0);
	dci_protocol_writer_free(&answer.payload);
}
END_TEST

START_TEST(instance_masks)
{
	/* disk (1.2): levels of 1 and 2 words; instances 1.7.8 and 2.0.1.
	 * Mask 2 gives level 1 alone (7.8): only sda. */
	struct dci_protocol_request request = request_of(
	    (const uint32_t[]){1, 2}, 2, 2, (const uint32_t[]){7, 8}, 2, ALL);
	struct answer answer;
	char id[64];
	const unsigned char *present;
	size_t length;

	answer_of(&answer, DCI_PROTOCOL_GET_DATA, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.count, 1);
	dci_protocol_get_u32(&answer.reader);
	read_id(&answer.reader, id, sizeof(id));
	read_id(&answer.reader, id, sizeof(id));
	ck_assert_str_eq(id, "1.7.8");
	ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader), ALL);
	present = dci_protocol_get_block(&answer.reader, 16, &length);
	ck_assert_uint_eq(length, 1);
	ck_assert_uint_eq(present[0], 0x3); /* reads and temperature */
	dci_protocol_get_block(&answer.reader, 4096, &length);
	ck_assert_uint_eq(length,
	    fx_find_class(registry, (const uint32_t[]){1, 2}, 2)->record_size);
	ck_assert_uint_eq(answer.reader.offset, answer.payload.length);
	dci_protocol_writer_free(&answer.payload);

	/* Words that do not fit the levels the mask names: nothing. */
	request.instance_words = 1;
	answer_of(
	    &answer, DCI_PROTOCOL_LIST_INSTANCES, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_NOTPRESENT);
	dci_protocol_writer_free(&answer.payload);

	/* Every instance of every class: 3 netif + 2 disk + 1 system. */
	request = request_of((const uint32_t[]){ALL}, 1, 0, NULL, 0, ALL);
	answer_of(
	    &answer, DCI_PROTOCOL_LIST_INSTANCES, &request, &no_rules, &peer);
	ck_assert_uint_eq(answer.count, 6);
	dci_protocol_writer_free(&answer.payload);
}
END_TEST

/* The class rules the access tests start from: class 1 for uid 1001
 * alone, and 1.2 (the longer prefix decides for it) for group 50 alone;
 * and the consumers they ask for: no class rule admits `stranger` (a test
 * may add instance rules that do), `named` is uid 1001, `member` is in
 * group 50 (a supplementary group). */
static uid_t uid_1001[] = {1001};
static gid_t gid_50[] = {50};
static struct dci_access_rule class_rules[] = {
    {.class_id = {1}, .class_id_length = 1, .uids = uid_1001, .uid_count = 1},
    {.class_id = {1, 2}, .class_id_length = 2, .gids = gid_50, .gid_count = 1},
};
static const struct dci_access class_access = {
    .rules = class_rules, .rule_count = 2};
static const struct dci_access_peer stranger = {.uid = 1000, .gid = 1000};
static const struct dci_access_peer named = {.uid = 1001, .gid = 1001};
static const struct dci_access_peer member = {
    .uid = 1002, .gid = 1002, .groups = {7, 50}, .group_count = 2};
static const struct dci_access_peer root = {.uid = 0, .gid = 0};

START_TEST(access_hides_classes)
{
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){ALL}, 1, 0, NULL, 0, ALL);
	struct answer answer;

	ck_assert(!dci_access_may_read(
	    &class_access, &stranger, (const uint32_t[]){1, 1}, 2));
	ck_assert(dci_access_may_read(
	    &class_access, &named, (const uint32_t[]){1, 1}, 2));
	ck_assert(!dci_access_may_read(
	    &class_access, &named, (const uint32_t[]){1, 2}, 2));
	ck_assert(dci_access_may_read(
	    &class_access, &member, (const uint32_t[]){1, 2}, 2));
	ck_assert(dci_access_may_read(
	    &class_access, &root, (const uint32_t[]){1, 2}, 2));
	ck_assert(dci_access_may_read(
	    &class_access, &stranger, (const uint32_t[]){2}, 1));

	/* The stranger lists 2 and 3.1 only. */
	answer_of(&answer, DCI_PROTOCOL_LIST_CLASSES, &request, &class_access,
	    &stranger);
	ck_assert_uint_eq(answer.count, 2);
	dci_protocol_writer_free(&answer.payload);
	/* And reading 1.1 by name is NOTPRESENT, as if it were absent. */
	request = request_of((const uint32_t[]){1, 1}, 2, 0, NULL, 0, ALL);
	answer_of(
	    &answer, DCI_PROTOCOL_GET_DATA, &request, &class_access, &stranger);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_NOTPRESENT);
	ck_assert_uint_eq(answer.count, 0);
	dci_protocol_writer_free(&answer.payload);
	answer_of(
	    &answer, DCI_PROTOCOL_GET_DATA, &request, &class_access, &named);
	ck_assert_uint_eq(answer.count, 3);
	dci_protocol_writer_free(&answer.payload);
}
END_TEST

/* The instance count LIST_CLASSES gives `who` for the class `id` (two
 * levels); UINT32_MAX when it is not listed. */
static uint32_t
listed_instance_count(const struct dci_access *access,
    const struct dci_access_peer *who, const uint32_t *id)
{
	struct dci_protocol_request request =
	    request_of(id, 2, 0, NULL, 0, ALL);
	struct answer answer;
	uint32_t count = UINT32_MAX;
	size_t length;
	char text[64];

	answer_of(&answer, DCI_PROTOCOL_LIST_CLASSES, &request, access, who);
	if (answer.count == 1) {
		read_id(&answer.reader, text, sizeof(text));
		dci_protocol_get_block(&answer.reader, 4096, &length);
		dci_protocol_get_u32(&answer.reader); /* levels */
		count = dci_protocol_get_u32(&answer.reader);
		ck_assert(!answer.reader.failed);
	}
	dci_protocol_writer_free(&answer.payload);
	return count;
}

/* An instance rule decides for its instance instead of the class rule:
 * it opens one instance of a closed class (the class is then listed) or
 * closes one of an open class. */
START_TEST(access_per_instance)
{
	static uid_t named_uid[] = {1001}, stranger_uid[] = {1000};
	struct dci_access_rule rules[] = {
	    {.class_id = {1, 1},
	        .class_id_length = 2,
	        .uids = named_uid,
	        .uid_count = 1},
	    {.class_id = {1, 1},
	        .class_id_length = 2,
	        .instance = {20},
	        .instance_words = 1,
	        .uids = stranger_uid,
	        .uid_count = 1},
	    /* Under class 1: covers 1.1 too, with no one admitted. */
	    {.class_id = {1},
	        .class_id_length = 1,
	        .instance = {30},
	        .instance_words = 1},
	};
	struct dci_access access = {
	    .rules = rules, .rule_count = 3, .per_instance = true};
	struct dci_access_peer other = {.uid = 1002, .gid = 1002};
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){1, 1}, 2, 0, NULL, 0, ALL);
	const uint32_t netif[] = {1, 1};
	struct answer answer;
	char id[64];

	ck_assert(dci_access_may_read(&access, &stranger, netif, 2));
	ck_assert(!dci_access_may_read(&access, &other, netif, 2));
	ck_assert(dci_access_may_read_instance(
	    &access, &stranger, netif, 2, (const uint32_t[]){20}, 1));
	ck_assert(!dci_access_may_read_instance(
	    &access, &stranger, netif, 2, (const uint32_t[]){10}, 1));
	ck_assert(dci_access_may_read_instance(
	    &access, &named, netif, 2, (const uint32_t[]){10}, 1));
	ck_assert(!dci_access_may_read_instance(
	    &access, &named, netif, 2, (const uint32_t[]){30}, 1));
	ck_assert(dci_access_may_read_instance(
	    &access, &root, netif, 2, (const uint32_t[]){30}, 1));

	/* The stranger reads instance 20 alone. */
	answer_of(&answer, DCI_PROTOCOL_GET_DATA, &request, &access, &stranger);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_SUCCESS);
	ck_assert_uint_eq(answer.count, 1);
	ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader), 0);
	read_id(&answer.reader, id, sizeof(id));
	ck_assert_str_eq(id, "1.1");
	read_id(&answer.reader, id, sizeof(id));
	ck_assert_str_eq(id, "20");
	dci_protocol_writer_free(&answer.payload);
	/* Named reads 10 alone: 20's rule and 30's decide for them, and
	 * admit others; the listing alike. */
	ck_assert(!dci_access_may_read_instance(
	    &access, &named, netif, 2, (const uint32_t[]){20}, 1));
	answer_of(&answer, DCI_PROTOCOL_GET_DATA, &request, &access, &named);
	ck_assert_uint_eq(answer.count, 1);
	dci_protocol_writer_free(&answer.payload);
	answer_of(
	    &answer, DCI_PROTOCOL_LIST_INSTANCES, &request, &access, &named);
	ck_assert_uint_eq(answer.count, 1);
	dci_protocol_writer_free(&answer.payload);
	answer_of(&answer, DCI_PROTOCOL_GET_DATA, &request, &access, &other);
	ck_assert_uint_eq(answer.status, DCI_PROTOCOL_NOTPRESENT);
	dci_protocol_writer_free(&answer.payload);
	answer_of(&answer, DCI_PROTOCOL_GET_DATA, &request, &access, &root);
	ck_assert_uint_eq(answer.count, 3);
	dci_protocol_writer_free(&answer.payload);
	/* LIST_CLASSES counts the instances each may read, not all 3. */
	ck_assert_uint_eq(listed_instance_count(&access, &stranger, netif), 1);
	ck_assert_uint_eq(listed_instance_count(&access, &named, netif), 1);
	ck_assert_uint_eq(listed_instance_count(&access, &root, netif), 3);
}
END_TEST

/* The modules a LIST_SUPPLIERS answer names, in order, "a b c". */
static void
suppliers_listed(const struct dci_access *access,
    const struct dci_access_peer *who, char *listed, size_t size)
{
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){ALL}, 1, 0, NULL, 0, ALL);
	struct answer answer;
	size_t used = 0, length;

	answer_of(&answer, DCI_PROTOCOL_LIST_SUPPLIERS, &request, access, who);
	listed[0] = '\0';
	for (uint32_t i = 0; i < answer.count; i++) {
		const unsigned char *module;

		for (int word = 0; word < 4; word++)
			dci_protocol_get_u32(&answer.reader);
		dci_protocol_get_block(&answer.reader, 8, &length);
		module = dci_protocol_get_block(&answer.reader, 4096, &length);
		used += (size_t)snprintf(listed + used, size - used, "%s%.*s",
		    i ? " " : "", (int)length, (const char *)module);
		for (int block = 0; block < 4; block++)
			dci_protocol_get_block(&answer.reader, 4096, &length);
		dci_protocol_get_u64(&answer.reader);
		dci_protocol_get_u64(&answer.reader);
	}
	ck_assert(!answer.reader.failed);
	dci_protocol_writer_free(&answer.payload);
}

/* LIST_SUPPLIERS names a supplier only to a consumer that may read one of
 * its classes; one with no class only to a consumer no rule refuses. */
START_TEST(suppliers_filtered_by_access)
{
	struct dci_access_peer everyone = {.uid = 1003, .gid = 50};
	struct dci_access_rule both[] = {
	    {.class_id = {1},
	        .class_id_length = 1,
	        .gids = gid_50,
	        .gid_count = 1},
	};
	struct dci_access open_to_50 = {.rules = both, .rule_count = 1};
	char listed[256];

	ck_assert_ptr_nonnull(dci_registry_add_failed_supplier(
	    registry, "broken", "cannot open shared object", NULL));
	/* beta's only class, 1.2, is refused; broken has no class and a rule
	 * refuses the stranger something. */
	suppliers_listed(&class_access, &stranger, listed, sizeof(listed));
	ck_assert_str_eq(listed, "alpha gamma");
	suppliers_listed(&class_access, &member, listed, sizeof(listed));
	ck_assert_str_eq(listed, "alpha beta gamma");
	suppliers_listed(&class_access, &root, listed, sizeof(listed));
	ck_assert_str_eq(listed, "alpha beta gamma broken");
	suppliers_listed(&no_rules, &stranger, listed, sizeof(listed));
	ck_assert_str_eq(listed, "alpha beta gamma broken");
	/* A consumer every rule admits knows of the classless one too. */
	suppliers_listed(&open_to_50, &everyone, listed, sizeof(listed));
	ck_assert_str_eq(listed, "alpha beta gamma broken");
	suppliers_listed(&open_to_50, &stranger, listed, sizeof(listed));
	ck_assert_str_eq(listed, "alpha gamma");
	ck_assert(dci_access_may_read_every_class(&open_to_50, &everyone));
	ck_assert(!dci_access_may_read_every_class(&class_access, &member));
	ck_assert(dci_access_may_read_every_class(&class_access, &root));
}
END_TEST

START_TEST(attributes_describe_the_record)
{
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){1, 1}, 2, 0, NULL, 0, ALL);
	struct dci_class *netif =
	    fx_find_class(registry, (const uint32_t[]){1, 1}, 2);
	struct answer answer;
	char id[64];
	size_t length;
	const unsigned char *label;

	answer_of(&answer, DCI_PROTOCOL_GET_CLASS_ATTRIBUTES, &request,
	    &no_rules, &peer);
	ck_assert_uint_eq(answer.count, 1);
	read_id(&answer.reader, id, sizeof(id));
	label = dci_protocol_get_block(&answer.reader, 255, &length);
	ck_assert_uint_eq(length, 5);
	ck_assert_mem_eq(label, "netif", 5);
	dci_protocol_get_block(&answer.reader, 65535, &length);
	ck_assert_uint_eq(
	    dci_protocol_get_u32(&answer.reader), netif->supplier->index);
	ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader), 1);
	ck_assert_uint_eq(
	    dci_protocol_get_u32(&answer.reader), DCI_ITYPE_INTERFACE);
	ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader), 4);
	ck_assert_uint_eq(
	    dci_protocol_get_u32(&answer.reader), netif->record_size);
	ck_assert_uint_eq(
	    dci_protocol_get_u32(&answer.reader), netif->present_size);
	ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader), 3);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader),
		    netif->datums[i].info.id);
		for (int field = 0; field < 7; field++)
			dci_protocol_get_u32(&answer.reader);
		ck_assert_uint_eq(dci_protocol_get_u32(&answer.reader),
		    netif->datums[i].offset);
		dci_protocol_get_block(&answer.reader, 255, &length);
		dci_protocol_get_block(&answer.reader, 65535, &length);
	}
	ck_assert(!answer.reader.failed);
	ck_assert_uint_eq(answer.reader.offset, answer.payload.length);
	dci_protocol_writer_free(&answer.payload);
}
END_TEST

START_TEST(answer_too_big_overflows)
{
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){ALL}, 1, 0, NULL, 0, ALL);
	struct dci_protocol_writer payload;

	dci_protocol_writer_init(&payload, 64);
	dci_answer(registry, &no_rules, &peer, DCI_PROTOCOL_GET_DATA, &request,
	    &payload);
	ck_assert(payload.overflow);
	dci_protocol_writer_free(&payload);
}
END_TEST

/* --- the server in this process ----------------------------------------- */

static char socket_path[108];
static struct dci_server *server;

static void
server_setup(void)
{
	/* Open to every user: places_per_user_and_for_root connects as
	 * another. */
	struct dci_server_settings settings = {.mode = 0666};
	char why[256];

	registry_setup();
	snprintf(socket_path, sizeof(socket_path), "/tmp/dcih28-unit.%ld",
	    (long)getpid());
	settings.path = socket_path;
	server = dci_server_start(&settings, registry, why, sizeof(why));
	ck_assert_msg(server != NULL, "%s", why);
}

static void
server_teardown(void)
{
	dci_server_stop(server);
	ck_assert_int_ne(access(socket_path, F_OK), 0);
	registry_teardown();
}

/* One turn of the daemon's loop over the server alone. */
static void
server_turn(int timeout)
{
	struct pollfd polled[1 + DCI_SERVER_CLIENTS_MAX];
	size_t count = dci_server_poll_add(server, polled);

	ck_assert_uint_le(count, dci_server_poll_max());
	ck_assert_int_ge(poll(polled, count, timeout), 0);
	dci_server_poll_handle(server, polled, count);
}

static int
consumer_connect(void)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(address.sun_path, socket_path);
	ck_assert_int_eq(
	    connect(fd, (struct sockaddr *)&address, sizeof(address)), 0);
	return fd;
}

static size_t
message_of(unsigned char *bytes, uint16_t type,
    const struct dci_protocol_request *request)
{
	size_t length = dci_protocol_request_write(request,
	    bytes + DCI_PROTOCOL_HEADER_SIZE, DCI_PROTOCOL_REQUEST_MAX);
	struct dci_protocol_header header = {DCI_PROTOCOL_MAGIC,
	    DCI_PROTOCOL_VERSION, type, 77, (uint32_t)length};

	dci_protocol_header_write(bytes, &header);
	return DCI_PROTOCOL_HEADER_SIZE + length;
}

START_TEST(served_over_the_socket)
{
	unsigned char
	    bytes[DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_REQUEST_MAX];
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){ALL}, 1, 0, NULL, 0, ALL);
	struct dci_protocol_header header;
	size_t length = message_of(bytes, DCI_PROTOCOL_LIST_CLASSES, &request);
	int fd = consumer_connect();
	ssize_t got = 0;

	server_turn(1000); /* accepts */
	ck_assert_uint_eq(dci_server_client_count(server), 1);
	/* The request in two pieces: the server waits for the rest. */
	ck_assert_int_eq(send(fd, bytes, 5, 0), 5);
	server_turn(1000);
	ck_assert_int_eq(
	    send(fd, bytes + 5, length - 5, 0), (ssize_t)(length - 5));
	server_turn(1000);
	got = recv(fd, bytes, sizeof(bytes), MSG_DONTWAIT);
	ck_assert_int_ge(got, DCI_PROTOCOL_HEADER_SIZE + 24);
	ck_assert_int_eq(
	    dci_protocol_header_read(bytes, DCI_PROTOCOL_RESPONSE_MAX, &header),
	    DCI_PROTOCOL_SUCCESS);
	ck_assert_uint_eq(
	    header.type, DCI_PROTOCOL_LIST_CLASSES | DCI_PROTOCOL_ANSWER);
	ck_assert_uint_eq(header.serial, 77);
	ck_assert_uint_eq(header.length, got - DCI_PROTOCOL_HEADER_SIZE);
	close(fd);
	server_turn(1000); /* sees the hang-up */
	ck_assert_uint_eq(dci_server_client_count(server), 0);
}
END_TEST

START_TEST(garbage_disconnects)
{
	unsigned char bytes[DCI_PROTOCOL_HEADER_SIZE] = "0123456789abcdef";
	struct dci_protocol_header header;
	int fd = consumer_connect();

	server_turn(1000);
	ck_assert_int_eq(send(fd, bytes, sizeof(bytes), 0), sizeof(bytes));
	server_turn(1000);
	ck_assert_int_eq(recv(fd, bytes, sizeof(bytes), MSG_WAITALL),
	    DCI_PROTOCOL_HEADER_SIZE);
	dci_protocol_header_read(bytes, DCI_PROTOCOL_RESPONSE_MAX, &header);
	ck_assert_uint_eq(header.type, DCI_PROTOCOL_ERROR);
	ck_assert_uint_eq(dci_server_client_count(server), 0);
	close(fd);
}
END_TEST

START_TEST(stalled_consumer_bounded)
{
	unsigned char
	    bytes[DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_REQUEST_MAX];
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){ALL}, 1, 0, NULL, 0, ALL);
	size_t length = message_of(bytes, DCI_PROTOCOL_GET_DATA, &request);
	int fd = consumer_connect(), other;
	long sent = 0;
	int turns;

	server_turn(1000);
	/* Requests until the socket takes no more, turning the server
	 * between them; the consumer reads nothing. */
	for (turns = 0; turns < 200000; turns++) {
		if (send(fd, bytes, length, MSG_DONTWAIT) != (ssize_t)length)
			break;
		sent++;
		server_turn(0);
	}
	ck_assert_int_lt(turns, 200000);
	/* The server stopped reading: more turns change nothing and
	 * return at once. */
	for (int i = 0; i < 100; i++)
		server_turn(0);
	ck_assert_uint_eq(dci_server_client_count(server), 1);
	/* Another consumer is served meanwhile. */
	other = consumer_connect();
	server_turn(1000);
	length = message_of(bytes, DCI_PROTOCOL_LIST_CLASSES, &request);
	ck_assert_int_eq(send(other, bytes, length, 0), (ssize_t)length);
	server_turn(1000);
	ck_assert_int_gt(recv(other, bytes, sizeof(bytes), MSG_DONTWAIT), 0);
	close(other);
	close(fd);
	server_turn(1000);
	ck_assert_int_gt(sent, 0);
}
END_TEST

START_TEST(stalled_consumer_dropped)
{
	struct dci_server_settings settings = {
	    .path = socket_path, .mode = 0600, .stall_milliseconds = 50};
	unsigned char
	    bytes[DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_REQUEST_MAX];
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){ALL}, 1, 0, NULL, 0, ALL);
	size_t length = message_of(bytes, DCI_PROTOCOL_GET_DATA, &request);
	char why[256];
	int64_t deadline;
	int fd;

	dci_server_stop(server);
	server = dci_server_start(&settings, registry, why, sizeof(why));
	ck_assert_msg(server != NULL, "%s", why);
	ck_assert_int_eq(dci_server_deadline(server), INT64_MAX);
	fd = consumer_connect();
	server_turn(1000);
	for (int turns = 0; turns < 200000; turns++) {
		if (send(fd, bytes, length, MSG_DONTWAIT) != (ssize_t)length)
			break;
		server_turn(0);
	}
	/* An answer is pending: the deadline is its stall period away. */
	deadline = dci_server_deadline(server);
	ck_assert_int_ne(deadline, INT64_MAX);
	ck_assert_int_le(deadline, dci_clock_milliseconds() + 50);
	dci_server_expire(server, deadline - 1);
	ck_assert_uint_eq(dci_server_client_count(server), 1);
	dci_server_expire(server, deadline);
	ck_assert_uint_eq(dci_server_client_count(server), 0);
	ck_assert_int_eq(dci_server_deadline(server), INT64_MAX);
	close(fd);
}
END_TEST

START_TEST(consumers_beyond_the_limit_closed)
{
	int fds[DCI_SERVER_CLIENTS_MAX + 1];
	char byte;

	for (size_t i = 0; i <= DCI_SERVER_CLIENTS_MAX; i++)
		fds[i] = consumer_connect();
	server_turn(1000);
	ck_assert_uint_eq(
	    dci_server_client_count(server), DCI_SERVER_CLIENTS_MAX);
	/* The last one was closed at once. */
	ck_assert_int_eq(recv(fds[DCI_SERVER_CLIENTS_MAX], &byte, 1, 0), 0);
	for (size_t i = 0; i <= DCI_SERVER_CLIENTS_MAX; i++)
		close(fds[i]);
}
END_TEST

/* Connects `count` consumers as uid 65534 from a child process; returns
 * the child, which keeps them open until its stdin (`hold`) closes. */
static pid_t
consumers_as_nobody(size_t count, int *hold)
{
	int pipe_fds[2];
	pid_t child;

	ck_assert_int_eq(pipe(pipe_fds), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		char byte;

		close(pipe_fds[1]);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(3);
		for (size_t i = 0; i < count; i++)
			consumer_connect();
		/* Until the parent has looked. */
		if (read(pipe_fds[0], &byte, 1) < 0)
			_exit(4);
		_exit(0);
	}
	close(pipe_fds[0]);
	*hold = pipe_fds[1];
	return child;
}

START_TEST(places_per_user_and_for_root)
{
	int hold, status, fds[DCI_SERVER_CLIENTS_MAX];
	size_t rooted = 0;
	pid_t child;

	if (geteuid() != 0)
		return; /* needs to become another user */
	/* One user: DCI_SERVER_CLIENTS_PER_USER_MAX places, no more. */
	child = consumers_as_nobody(DCI_SERVER_CLIENTS_PER_USER_MAX + 2, &hold);
	for (int i = 0; i < 50 && dci_server_client_count(server) <
	                              DCI_SERVER_CLIENTS_PER_USER_MAX;
	     i++)
		server_turn(100);
	server_turn(100);
	ck_assert_uint_eq(
	    dci_server_client_count(server), DCI_SERVER_CLIENTS_PER_USER_MAX);
	/* Root takes every place left, the reserved ones too. */
	while (dci_server_client_count(server) < DCI_SERVER_CLIENTS_MAX) {
		fds[rooted++] = consumer_connect();
		server_turn(1000);
	}
	ck_assert_uint_eq(
	    rooted, DCI_SERVER_CLIENTS_MAX - DCI_SERVER_CLIENTS_PER_USER_MAX);
	close(hold);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int i = 0; i < 20 && dci_server_client_count(server) > rooted; i++)
		server_turn(100);
	ck_assert_uint_eq(dci_server_client_count(server), rooted);
	while (rooted > 0)
		close(fds[--rooted]);
	for (int i = 0; i < 20 && dci_server_client_count(server) > 0; i++)
		server_turn(100);
	ck_assert_uint_eq(dci_server_client_count(server), 0);

	/* With root holding all but one of the places other users may
	 * take, another user gets that one alone: the rest are root's. */
	while (rooted + 1 <
	       DCI_SERVER_CLIENTS_MAX - DCI_SERVER_CLIENTS_ROOT_RESERVED) {
		fds[rooted++] = consumer_connect();
		server_turn(1000);
	}
	child = consumers_as_nobody(DCI_SERVER_CLIENTS_PER_USER_MAX, &hold);
	for (int i = 0; i < 20; i++)
		server_turn(50);
	ck_assert_uint_eq(dci_server_client_count(server),
	    DCI_SERVER_CLIENTS_MAX - DCI_SERVER_CLIENTS_ROOT_RESERVED);
	close(hold);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	while (rooted > 0)
		close(fds[--rooted]);
}
END_TEST

/* Whether an answer's header arrives on `fd` within `milliseconds` (the
 * rest of it is read and dropped). */
static bool
answer_arrives(int fd, int milliseconds)
{
	unsigned char bytes[65536];
	struct pollfd polled = {fd, POLLIN, 0};

	if (poll(&polled, 1, milliseconds) != 1)
		return false;
	while (recv(fd, bytes, sizeof(bytes), MSG_DONTWAIT) > 0)
		;
	return true;
}

/* A user whose share of the server's work is spent waits: its next
 * request is not read, and the server's deadline is when the share has
 * refilled; another user is answered meanwhile. */
START_TEST(spent_budget_waits)
{
	unsigned char
	    bytes[DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_REQUEST_MAX];
	struct dci_protocol_request request =
	    request_of((const uint32_t[]){ALL}, 1, 0, NULL, 0, ALL);
	size_t length = message_of(bytes, DCI_PROTOCOL_GET_DATA, &request);
	/* 1 microsecond of CPU per second: one request is a debt of many
	 * seconds. */
	struct dci_server_settings settings = {
	    .path = socket_path, .mode = 0666, .work_microseconds = 1};
	char why[256];
	int fd, status = -1;
	pid_t child;

	if (geteuid() != 0)
		return; /* needs to become another user */
	dci_server_stop(server);
	server = dci_server_start(&settings, registry, why, sizeof(why));
	ck_assert_msg(server != NULL, "%s", why);
	fd = consumer_connect();
	server_turn(1000);
	ck_assert_int_eq(send(fd, bytes, length, 0), (ssize_t)length);
	server_turn(1000);
	ck_assert(answer_arrives(fd, 1000));
	ck_assert_int_eq(send(fd, bytes, length, 0), (ssize_t)length);
	for (int i = 0; i < 5; i++)
		server_turn(50);
	ck_assert(!answer_arrives(fd, 0));
	ck_assert_int_gt(
	    dci_server_deadline(server), dci_clock_milliseconds() + 500);
	/* Another user has a share of its own. */
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		int other;

		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(3);
		other = consumer_connect();
		if (send(other, bytes, length, 0) != (ssize_t)length)
			_exit(4);
		_exit(answer_arrives(other, 5000) ? 0 : 1);
	}
	for (int i = 0; i < 200 && waitpid(child, &status, WNOHANG) == 0; i++)
		server_turn(25);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Root's request is still unread. */
	ck_assert(!answer_arrives(fd, 0));
	close(fd);
}
END_TEST

static Suite *
dci_server_suite(void)
{
	Suite *suite = suite_create("dci_server");
	TCase *protocol = tcase_create("protocol");
	TCase *answers = tcase_create("answers");
	TCase *socket = tcase_create("socket");

	tcase_add_test(protocol, request_round_trip);
	tcase_add_test(protocol, request_bounds_refused);
	tcase_add_test(protocol, header_checked);
	tcase_add_test(protocol, writer_and_reader_bounded);
	suite_add_tcase(suite, protocol);
	tcase_add_checked_fixture(answers, registry_setup, registry_teardown);
	tcase_add_test(answers, class_wildcards);
	tcase_add_test(answers, one_datum_of_one_instance);
	tcase_add_test(answers, datum_statuses);
	tcase_add_test(answers, writes_refused_per_instance);
	tcase_add_test(answers, suppliers_listed_with_state);
	tcase_add_test(answers, instance_masks);
	tcase_add_test(answers, access_hides_classes);
	tcase_add_test(answers, suppliers_filtered_by_access);
	tcase_add_test(answers, access_per_instance);
	tcase_add_test(answers, attributes_describe_the_record);
	tcase_add_test(answers, answer_too_big_overflows);
	suite_add_tcase(suite, answers);
	tcase_add_checked_fixture(socket, server_setup, server_teardown);
	tcase_set_timeout(socket, 60);
	tcase_add_test(socket, served_over_the_socket);
	tcase_add_test(socket, garbage_disconnects);
	tcase_add_test(socket, stalled_consumer_bounded);
	tcase_add_test(socket, stalled_consumer_dropped);
	tcase_add_test(socket, consumers_beyond_the_limit_closed);
	tcase_add_test(socket, places_per_user_and_for_root);
	tcase_add_test(socket, spent_budget_waits);
	suite_add_tcase(suite, socket);
	return suite;
}

int
main(void)
{
	return unit_run_suite(dci_server_suite());
}
