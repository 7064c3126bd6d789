/* The DCI protocol's framing and words (protocol/dci_protocol.h). */
#include "protocol/dci_protocol.h"

#include <stdlib.h>
#include <string.h>

static uint32_t
load_u32(const unsigned char *bytes)
{
	return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 |
	       (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

static void
store_u32(unsigned char *bytes, uint32_t value)
{
	bytes[0] = (unsigned char)value;
	bytes[1] = (unsigned char)(value >> 8);
	bytes[2] = (unsigned char)(value >> 16);
	bytes[3] = (unsigned char)(value >> 24);
}

enum dci_protocol_status
dci_protocol_header_read(const unsigned char *bytes, uint32_t length_max,
    struct dci_protocol_header *header)
{
	header->magic = load_u32(bytes);
	header->version = (uint16_t)(bytes[4] | bytes[5] << 8);
	header->type = (uint16_t)(bytes[6] | bytes[7] << 8);
	header->serial = load_u32(bytes + 8);
	header->length = load_u32(bytes + 12);
	if (header->magic != DCI_PROTOCOL_MAGIC)
		return DCI_PROTOCOL_INVALIDARG;
	if (header->version != DCI_PROTOCOL_VERSION)
		return DCI_PROTOCOL_NOIMPLEMENTATION;
	if (header->length > length_max)
		return DCI_PROTOCOL_INVALIDARG;
	return DCI_PROTOCOL_SUCCESS;
}

void
dci_protocol_header_write(
    unsigned char *bytes, const struct dci_protocol_header *header)
{
	store_u32(bytes, header->magic);
	bytes[4] = (unsigned char)header->version;
	bytes[5] = (unsigned char)(header->version >> 8);
	bytes[6] = (unsigned char)header->type;
	bytes[7] = (unsigned char)(header->type >> 8);
	store_u32(bytes + 8, header->serial);
	store_u32(bytes + 12, header->length);
}

enum dci_protocol_status
dci_protocol_request_read(const unsigned char *payload, size_t length,
    struct dci_protocol_request *request)
{
	struct dci_protocol_reader reader = {payload, length, 0, false};
	uint32_t count;

	memset(request, 0, sizeof(*request));
	count = dci_protocol_get_u32(&reader);
	if (count == 0 || count > DCI_CLASS_ID_MAX_LEVELS)
		return DCI_PROTOCOL_INVALIDARG;
	request->class_levels = count;
	for (uint32_t i = 0; i < count; i++)
		request->class_id[i] = dci_protocol_get_u32(&reader);
	request->input_mask = dci_protocol_get_u32(&reader);
	count = dci_protocol_get_u32(&reader);
	if (count > DCI_INSTANCE_ID_MAX_WORDS)
		return DCI_PROTOCOL_INVALIDARG;
	request->instance_words = count;
	for (uint32_t i = 0; i < count; i++)
		request->instance[i] = dci_protocol_get_u32(&reader);
	request->datum_id = dci_protocol_get_u32(&reader);
	if (reader.failed || reader.offset != length || request->datum_id == 0)
		return DCI_PROTOCOL_INVALIDARG;
	/* A mask naming no level cannot come with words. */
	if (request->input_mask == 0 && request->instance_words != 0)
		return DCI_PROTOCOL_INVALIDARG;
	return DCI_PROTOCOL_SUCCESS;
}

size_t
dci_protocol_request_write(const struct dci_protocol_request *request,
    unsigned char *payload, size_t size)
{
	size_t needed, offset = 0;

	if (request->class_levels == 0 ||
	    request->class_levels > DCI_CLASS_ID_MAX_LEVELS ||
	    request->instance_words > DCI_INSTANCE_ID_MAX_WORDS)
		return 0;
	needed = 4 * (request->class_levels + request->instance_words + 4);
	if (needed > size)
		return 0;
	store_u32(payload + offset, (uint32_t)request->class_levels);
	offset += 4;
	for (size_t i = 0; i < request->class_levels; i++, offset += 4)
		store_u32(payload + offset, request->class_id[i]);
	store_u32(payload + offset, request->input_mask);
	offset += 4;
	store_u32(payload + offset, (uint32_t)request->instance_words);
	offset += 4;
	for (size_t i = 0; i < request->instance_words; i++, offset += 4)
		store_u32(payload + offset, request->instance[i]);
	store_u32(payload + offset, request->datum_id);
	return offset + 4;
}

void
dci_protocol_writer_init(struct dci_protocol_writer *writer, size_t limit)
{
	*writer = (struct dci_protocol_writer){.limit = limit};
}

void
dci_protocol_writer_free(struct dci_protocol_writer *writer)
{
	free(writer->data);
	*writer = (struct dci_protocol_writer){0};
}

/* Room for `length` more bytes; false (and overflow) when the limit or
 * memory says no. */
static bool
writer_reserve(struct dci_protocol_writer *writer, size_t length)
{
	size_t capacity;
	unsigned char *grown;

	if (writer->overflow)
		return false;
	if (length > writer->limit - writer->length) {
		writer->overflow = true;
		return false;
	}
	if (writer->length + length <= writer->capacity)
		return true;
	capacity = writer->capacity == 0 ? 4096 : writer->capacity;
	while (capacity < writer->length + length)
		capacity *= 2;
	if (capacity > writer->limit)
		capacity = writer->limit;
	grown = realloc(writer->data, capacity);
	if (grown == NULL) {
		writer->overflow = true;
		return false;
	}
	writer->data = grown;
	writer->capacity = capacity;
	return true;
}

void
dci_protocol_put_u32(struct dci_protocol_writer *writer, uint32_t value)
{
	if (!writer_reserve(writer, 4))
		return;
	store_u32(writer->data + writer->length, value);
	writer->length += 4;
}

void
dci_protocol_put_u64(struct dci_protocol_writer *writer, uint64_t value)
{
	/* Both halves or neither. */
	if (!writer_reserve(writer, 8))
		return;
	dci_protocol_put_u32(writer, (uint32_t)value);
	dci_protocol_put_u32(writer, (uint32_t)(value >> 32));
}

void
dci_protocol_put_block(
    struct dci_protocol_writer *writer, const void *bytes, size_t length)
{
	size_t padded = (length + 3) & ~(size_t)3;

	if (length > UINT32_MAX - 3 || !writer_reserve(writer, 4 + padded))
		return;
	store_u32(writer->data + writer->length, (uint32_t)length);
	if (length > 0)
		memcpy(writer->data + writer->length + 4, bytes, length);
	memset(writer->data + writer->length + 4 + length, 0, padded - length);
	writer->length += 4 + padded;
}

void
dci_protocol_put_bytes(
    struct dci_protocol_writer *writer, const void *bytes, size_t length)
{
	if (length == 0 || !writer_reserve(writer, length))
		return;
	memcpy(writer->data + writer->length, bytes, length);
	writer->length += length;
}

void
dci_protocol_patch_u32(
    struct dci_protocol_writer *writer, size_t offset, uint32_t value)
{
	if (!writer->overflow && offset <= writer->length &&
	    writer->length - offset >= 4)
		store_u32(writer->data + offset, value);
}

uint32_t
dci_protocol_get_u32(struct dci_protocol_reader *reader)
{
	uint32_t value;

	if (reader->failed || reader->length - reader->offset < 4) {
		reader->failed = true;
		return 0;
	}
	value = load_u32(reader->data + reader->offset);
	reader->offset += 4;
	return value;
}

uint64_t
dci_protocol_get_u64(struct dci_protocol_reader *reader)
{
	uint64_t low = dci_protocol_get_u32(reader);

	return low | (uint64_t)dci_protocol_get_u32(reader) << 32;
}

const unsigned char *
dci_protocol_get_block(
    struct dci_protocol_reader *reader, size_t length_max, size_t *length)
{
	uint32_t count = dci_protocol_get_u32(reader);
	size_t padded = ((size_t)count + 3) & ~(size_t)3;
	const unsigned char *bytes;

	*length = 0;
	if (reader->failed || count > length_max ||
	    padded > reader->length - reader->offset) {
		reader->failed = true;
		return NULL;
	}
	bytes = reader->data + reader->offset;
	reader->offset += padded;
	*length = count;
	return bytes;
}

void
dci_protocol_put_event(
    struct dci_protocol_writer *writer, const struct dci_protocol_event *event)
{
	dci_protocol_put_u32(writer, event->serial);
	dci_protocol_put_u32(writer, event->number);
	dci_protocol_put_u64(writer, event->time);
	dci_protocol_put_u32(writer, (uint32_t)event->class_levels);
	for (size_t l = 0; l < event->class_levels; l++)
		dci_protocol_put_u32(writer, event->class_id[l]);
	dci_protocol_put_u32(writer, (uint32_t)event->instance_words);
	for (size_t w = 0; w < event->instance_words; w++)
		dci_protocol_put_u32(writer, event->instance[w]);
	dci_protocol_put_u32(writer, event->datum_id);
}

bool
dci_protocol_get_words(struct dci_protocol_reader *reader, uint32_t *words,
    size_t min, size_t max, size_t *count)
{
	uint32_t length = dci_protocol_get_u32(reader);

	if (length < min || length > max) {
		reader->failed = true;
		return false;
	}
	for (uint32_t i = 0; i < length; i++)
		words[i] = dci_protocol_get_u32(reader);
	*count = length;
	return !reader->failed;
}

bool
dci_protocol_get_event(
    struct dci_protocol_reader *reader, struct dci_protocol_event *event)
{
	event->serial = dci_protocol_get_u32(reader);
	event->number = dci_protocol_get_u32(reader);
	event->time = dci_protocol_get_u64(reader);
	if (!dci_protocol_get_words(reader, event->class_id, 1,
	        DCI_CLASS_ID_MAX_LEVELS, &event->class_levels) ||
	    !dci_protocol_get_words(reader, event->instance, 0,
	        DCI_INSTANCE_ID_MAX_WORDS, &event->instance_words))
		return false;
	event->datum_id = dci_protocol_get_u32(reader);
	return !reader->failed;
}

const char *
dci_protocol_status_name(uint32_t status)
{
	static const char *const names[] = {
	    [DCI_PROTOCOL_SUCCESS] = "SUCCESS",
	    [DCI_PROTOCOL_NOTPRESENT] = "NOTPRESENT",
	    [DCI_PROTOCOL_INVALIDARG] = "INVALIDARG",
	    [DCI_PROTOCOL_INVALIDDATA] = "INVALIDDATA",
	    [DCI_PROTOCOL_ALLOCATIONFAILURE] = "ALLOCATIONFAILURE",
	    [DCI_PROTOCOL_NOTIMPLEMENTED] = "NOTIMPLEMENTED",
	    [DCI_PROTOCOL_NOIMPLEMENTATION] = "NOIMPLEMENTATION",
	    [DCI_PROTOCOL_SYSERROR] = "SYSERROR",
	    [DCI_PROTOCOL_METHODOPUNAVAILABLE] = "METHODOPUNAVAILABLE",
	};

	if (status < sizeof(names) / sizeof(names[0]))
		return names[status];
	return "UNKNOWN";
}
