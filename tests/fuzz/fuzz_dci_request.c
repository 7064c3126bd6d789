/*
 * libFuzzer target for the DCI Server's protocol reader and answers: any
 * bytes, read as one message the way the server reads one (header bounded
 * by DCI_PROTOCOL_REQUEST_MAX, then the request's payload), and when it is
 * a request, answered over the unit tests' standard registry for a peer
 * whose uid the first byte picks, with one access rule closing class 1 to
 * all but uid 1 and one closing its instance 5 to all but root. Besides ASan and UBSan it checks what an answer must be:
 * at least the answer head, within DCI_PROTOCOL_RESPONSE_MAX, with a count
 * of entries that is 0 exactly when the summary is not SUCCESS for a
 * listing.
 *
 * Input: one byte (the peer's uid), then a message. Built by `make fuzz`
 * with clang alone; run by `make fuzz-run` and CI.
 */
#define FIXTURES_WITHOUT_CHECK
#include "server/dci_access.h"
#include "server/dci_answer.h"
#include "protocol/dci_protocol.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/fixtures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dci_registry *registry;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uid_t allowed[] = {1};
	/* A class rule and an instance rule, so that both paths run. */
	static struct dci_access_rule rules[] = {
	    {.class_id = {1}, .class_id_length = 1, .uids = allowed,
	        .uid_count = 1},
	    {.class_id = {1}, .class_id_length = 1, .instance = {5},
	        .instance_words = 1},
	};
	static const struct dci_access access = {
	    .rules = rules, .rule_count = 2, .per_instance = true};
	struct dci_access_peer peer = {0};
	struct dci_protocol_header header;
	struct dci_protocol_request request;
	struct dci_protocol_writer payload;
	struct dci_protocol_reader reader;
	uint32_t status, count;

	if (registry == NULL)
		registry = fx_standard_registry();
	if (size < 1 + DCI_PROTOCOL_HEADER_SIZE)
		return 0;
	peer.uid = data[0];
	data++;
	size--;
	if (dci_protocol_header_read(data, DCI_PROTOCOL_REQUEST_MAX, &header) !=
	        DCI_PROTOCOL_SUCCESS ||
	    header.length != size - DCI_PROTOCOL_HEADER_SIZE)
		return 0;
	if (dci_protocol_request_read(data + DCI_PROTOCOL_HEADER_SIZE,
	        header.length, &request) != DCI_PROTOCOL_SUCCESS)
		return 0;
	dci_protocol_writer_init(&payload, DCI_PROTOCOL_RESPONSE_MAX);
	dci_answer(registry, &access, &peer, header.type, &request, &payload);
	if (payload.overflow) {
		dci_protocol_writer_free(&payload);
		return 0;
	}
	reader = (struct dci_protocol_reader){
	    payload.data, payload.length, 0, false};
	status = dci_protocol_get_u32(&reader);
	count = dci_protocol_get_u32(&reader);
	dci_protocol_get_u64(&reader);
	dci_protocol_get_u64(&reader);
	if (reader.failed)
		abort();
	if (header.type == DCI_PROTOCOL_LIST_CLASSES &&
	    (count == 0) != (status != DCI_PROTOCOL_SUCCESS))
		abort();
	if (count == 0 && payload.length != reader.offset)
		abort();
	dci_protocol_writer_free(&payload);
	return 0;
}
