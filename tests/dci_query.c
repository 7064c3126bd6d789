/*
 * A consumer of dcistatd's DCI Server for the integration tests
 * (dci_server.sh), speaking the protocol of src/protocol/dci_protocol.h
 * directly: libdci does not exist yet. Everything the server says is
 * read through the protocol's bounded reader, and every string from it
 * is escaped before it is printed.
 *
 * Usage: dci_query SOCKET COMMAND [ARGUMENTS]
 *   classes PATTERN           one line per class: "ID LABEL LEVELS COUNT"
 *   instances CLASS           one line per instance: "CLASS INSTANCE LABEL"
 *   get CLASS INSTANCE DATUM  one line per value: "INSTANCE ID LABEL TEXT"
 *                             (TEXT as dciStatText renders it), or
 *                             "INSTANCE LABEL !STATUS"; DATUM a label,
 *                             an id, or * for every datum
 *   stall COUNT               sends up to COUNT requests for every value
 *                             of every class, as many as the socket
 *                             takes, reads nothing, prints "sent N" and
 *                             sleeps until killed
 *   garbage                   sends a header with a bad magic; prints the
 *                             answer's type and status, then "closed"
 *                             when the server closes the connection
 * PATTERN and CLASS are dotted class ids, "*" standing for DCI_ALL;
 * INSTANCE is dotted words of every level, or * for every instance.
 * The first line of every answer is "status NAME count N". Exit status:
 * 0 when the summary status is SUCCESS, 1 otherwise, 2 on a usage or
 * connection error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "model/value.h"
#include "protocol/dci_protocol.h"
#include "text/escape.h"

static void
fail(const char *message)
{
	fprintf(stderr, "dci_query: %s\n", message);
	exit(2);
}

static int
connect_to(const char *path)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(path) >= sizeof(address.sun_path))
		fail("socket path too long");
	strcpy(address.sun_path, path);
	if (fd < 0 ||
	    connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
		fprintf(stderr, "dci_query: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

static void
write_all(int fd, const unsigned char *bytes, size_t length)
{
	while (length > 0) {
		ssize_t count = send(fd, bytes, length, MSG_NOSIGNAL);

		if (count <= 0)
			fail("send failed");
		bytes += count;
		length -= (size_t)count;
	}
}

/* Reads exactly `length` bytes; false at the end of the stream. */
static bool
read_all(int fd, unsigned char *bytes, size_t length)
{
	while (length > 0) {
		ssize_t count = recv(fd, bytes, length, 0);

		if (count <= 0)
			return false;
		bytes += count;
		length -= (size_t)count;
	}
	return true;
}

/* Parses "1.2.*" into a request's class pattern. */
static void
class_parse(const char *text, struct dci_protocol_request *request)
{
	const char *cursor = text;

	request->class_levels = 0;
	for (;;) {
		char *end;
		unsigned long level;

		if (request->class_levels == DCI_CLASS_ID_MAX_LEVELS)
			fail("class id too long");
		if (*cursor == '*') {
			level = DCI_PROTOCOL_ALL;
			end = (char *)cursor + 1;
		} else {
			errno = 0;
			level = strtoul(cursor, &end, 10);
			if (end == cursor || errno != 0 || level > UINT32_MAX)
				fail("bad class id");
		}
		request->class_id[request->class_levels++] = (uint32_t)level;
		if (*end == '\0')
			return;
		if (*end != '.')
			fail("bad class id");
		cursor = end + 1;
	}
}

static void
instance_parse(
    const char *text, size_t levels, struct dci_protocol_request *request)
{
	const char *cursor = text;

	request->input_mask = 0;
	request->instance_words = 0;
	if (strcmp(text, "*") == 0)
		return;
	request->input_mask = levels >= 32 ? UINT32_MAX : (1u << levels) - 1;
	for (;;) {
		char *end;
		unsigned long word;

		if (request->instance_words == DCI_INSTANCE_ID_MAX_WORDS)
			fail("instance id too long");
		errno = 0;
		word = strtoul(cursor, &end, 10);
		if (end == cursor || errno != 0 || word > UINT32_MAX)
			fail("bad instance id");
		request->instance[request->instance_words++] = (uint32_t)word;
		if (*end == '\0')
			return;
		if (*end != '.')
			fail("bad instance id");
		cursor = end + 1;
	}
}

static uint32_t serial;

static void
request_send(int fd, uint16_t type, const struct dci_protocol_request *request)
{
	unsigned char
	    message[DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_REQUEST_MAX];
	size_t length = dci_protocol_request_write(request,
	    message + DCI_PROTOCOL_HEADER_SIZE, DCI_PROTOCOL_REQUEST_MAX);
	struct dci_protocol_header header = {DCI_PROTOCOL_MAGIC,
	    DCI_PROTOCOL_VERSION, type, ++serial, (uint32_t)length};

	if (length == 0)
		fail("request does not fit");
	dci_protocol_header_write(message, &header);
	write_all(fd, message, DCI_PROTOCOL_HEADER_SIZE + length);
}

/* Sends a request unless the socket would block; false then, or when it
 * took only a part. */
static bool
request_try(int fd, const struct dci_protocol_request *request)
{
	unsigned char
	    message[DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_REQUEST_MAX];
	size_t length = dci_protocol_request_write(request,
	    message + DCI_PROTOCOL_HEADER_SIZE, DCI_PROTOCOL_REQUEST_MAX);
	struct dci_protocol_header header = {DCI_PROTOCOL_MAGIC,
	    DCI_PROTOCOL_VERSION, DCI_PROTOCOL_GET_DATA, ++serial,
	    (uint32_t)length};
	ssize_t count;

	dci_protocol_header_write(message, &header);
	count = send(fd, message, DCI_PROTOCOL_HEADER_SIZE + length,
	    MSG_DONTWAIT | MSG_NOSIGNAL);
	/* A part taken: the server waits for the rest, as stalled as the
	 * test wants it. */
	return count > 0 && (size_t)count == DCI_PROTOCOL_HEADER_SIZE + length;
}

/* Reads one answer; its payload (malloc'ed) into *payload. */
static struct dci_protocol_header
answer_receive(int fd, unsigned char **payload)
{
	unsigned char bytes[DCI_PROTOCOL_HEADER_SIZE];
	struct dci_protocol_header header;

	if (!read_all(fd, bytes, sizeof(bytes)))
		fail("the server closed the connection");
	if (dci_protocol_header_read(bytes, DCI_PROTOCOL_RESPONSE_MAX,
	        &header) != DCI_PROTOCOL_SUCCESS)
		fail("bad answer header");
	*payload = malloc(header.length + 1);
	if (*payload == NULL || !read_all(fd, *payload, header.length))
		fail("short answer");
	return header;
}

/* The common head of an answer; returns the count of entries. */
static uint32_t
answer_head(struct dci_protocol_reader *reader, uint32_t *status)
{
	uint32_t count;

	*status = dci_protocol_get_u32(reader);
	count = dci_protocol_get_u32(reader);
	dci_protocol_get_u64(reader);
	dci_protocol_get_u64(reader);
	if (reader->failed)
		fail("short answer head");
	printf(
	    "status %s count %u\n", dci_protocol_status_name(*status), count);
	return count;
}

/* A class or instance id: "1.2"; false when it does not fit. */
static bool
words_read(struct dci_protocol_reader *reader, size_t max, char *text,
    size_t text_size, uint32_t *words, size_t *count)
{
	uint32_t length = dci_protocol_get_u32(reader);
	size_t used = 0;

	if (length > max)
		return false;
	text[0] = '\0';
	for (uint32_t i = 0; i < length; i++) {
		uint32_t word = dci_protocol_get_u32(reader);

		if (words != NULL)
			words[i] = word;
		used += (size_t)snprintf(text + used,
		    used < text_size ? text_size - used : 0, "%s%u",
		    i == 0 ? "" : ".", word);
	}
	if (count != NULL)
		*count = length;
	return !reader->failed && used < text_size;
}

/* A string from the server, escaped. */
static void
text_read(struct dci_protocol_reader *reader, char *out, size_t out_size)
{
	size_t length;
	const unsigned char *bytes =
	    dci_protocol_get_block(reader, DCI_STRING_MAX, &length);

	dci_text_escape(out, out_size, (const char *)bytes, bytes ? length : 0,
	    DCI_TEXT_ESCAPE_LABEL);
}

/* The attributes of one class, as get needs them. */
struct class_shape {
	size_t levels;
	size_t record_size;
	size_t present_size;
	size_t datum_count;
	struct dci_datum_info *datums;
	uint32_t *offsets;
	char (*labels)[DCI_LABEL_MAX * 4 + 1];
};

static void
shape_fetch(
    int fd, struct dci_protocol_request *request, struct class_shape *shape)
{
	unsigned char *payload;
	struct dci_protocol_header header;
	struct dci_protocol_reader reader;
	char text[1024];
	uint32_t status;

	request_send(fd, DCI_PROTOCOL_GET_CLASS_ATTRIBUTES, request);
	header = answer_receive(fd, &payload);
	reader = (struct dci_protocol_reader){payload, header.length, 0, false};
	status = dci_protocol_get_u32(&reader);
	if (status != DCI_PROTOCOL_SUCCESS ||
	    dci_protocol_get_u32(&reader) != 1) {
		printf("status %s count 0\n", dci_protocol_status_name(status));
		free(payload);
		exit(1);
	}
	dci_protocol_get_u64(&reader);
	dci_protocol_get_u64(&reader);
	if (!words_read(&reader, DCI_CLASS_ID_MAX_LEVELS, text, sizeof(text),
	        NULL, NULL))
		fail("bad class id");
	text_read(&reader, text, sizeof(text));
	text_read(&reader, text, sizeof(text));
	dci_protocol_get_u32(&reader); /* supplier */
	shape->levels = dci_protocol_get_u32(&reader);
	if (shape->levels > DCI_INSTANCE_ID_MAX_WORDS)
		fail("too many levels");
	for (size_t i = 0; i < shape->levels; i++) {
		dci_protocol_get_u32(&reader);
		dci_protocol_get_u32(&reader);
	}
	shape->record_size = dci_protocol_get_u32(&reader);
	shape->present_size = dci_protocol_get_u32(&reader);
	shape->datum_count = dci_protocol_get_u32(&reader);
	if (reader.failed || shape->datum_count > header.length / 36)
		fail("bad attributes");
	shape->datums = calloc(shape->datum_count + 1, sizeof(*shape->datums));
	shape->offsets = calloc(shape->datum_count + 1, sizeof(uint32_t));
	shape->labels = calloc(shape->datum_count + 1, sizeof(*shape->labels));
	if (shape->datums == NULL || shape->offsets == NULL ||
	    shape->labels == NULL)
		fail("out of memory");
	for (size_t i = 0; i < shape->datum_count; i++) {
		struct dci_datum_info *datum = &shape->datums[i];

		datum->id = dci_protocol_get_u32(&reader);
		datum->type = (enum dci_type)dci_protocol_get_u32(&reader);
		datum->format = dci_protocol_get_u32(&reader);
		datum->presentation = dci_protocol_get_u32(&reader);
		datum->size = dci_protocol_get_u32(&reader);
		datum->volatility = dci_protocol_get_u32(&reader);
		datum->unit = (enum dci_unit)dci_protocol_get_u32(&reader);
		datum->semantics =
		    (enum dci_semantics)dci_protocol_get_u32(&reader);
		shape->offsets[i] = dci_protocol_get_u32(&reader);
		text_read(&reader, shape->labels[i], sizeof(shape->labels[i]));
		datum->label = shape->labels[i];
		text_read(&reader, text, sizeof(text));
		/* Nothing outside the record, whatever the server says. */
		if (shape->offsets[i] > shape->record_size ||
		    datum->size > shape->record_size - shape->offsets[i])
			fail("datum outside the record");
	}
	if (reader.failed)
		fail("short attributes");
	free(payload);
}

static void
value_print(const char *instance, const struct dci_datum_info *datum,
    const char *label, const unsigned char *slot)
{
	char text[DCI_STRING_MAX + 1], escaped[sizeof(text) * 4];

	dci_value_render(datum, slot, text, sizeof(text));
	dci_text_escape(escaped, sizeof(escaped), text, strlen(text),
	    DCI_TEXT_ESCAPE_TERMINAL);
	printf("%s %u %s %s\n", instance, datum->id, label, escaped);
}

static int
command_get(int fd, char **arguments)
{
	struct dci_protocol_request request = {0};
	struct class_shape shape = {0};
	struct dci_protocol_header header;
	struct dci_protocol_reader reader;
	unsigned char *payload;
	uint32_t status, count;
	long wanted = -1;

	class_parse(arguments[0], &request);
	request.datum_id = DCI_PROTOCOL_ALL;
	shape_fetch(fd, &request, &shape);
	instance_parse(arguments[1], shape.levels, &request);
	if (strcmp(arguments[2], "*") != 0) {
		for (size_t i = 0; i < shape.datum_count; i++)
			if (strcmp(shape.labels[i], arguments[2]) == 0 ||
			    strtoul(arguments[2], NULL, 10) ==
			        shape.datums[i].id)
				wanted = (long)i;
		if (wanted < 0)
			request.datum_id =
			    (uint32_t)strtoul(arguments[2], NULL, 10);
		else
			request.datum_id = shape.datums[wanted].id;
	}
	request_send(fd, DCI_PROTOCOL_GET_DATA, &request);
	header = answer_receive(fd, &payload);
	reader = (struct dci_protocol_reader){payload, header.length, 0, false};
	count = answer_head(&reader, &status);
	for (uint32_t e = 0; e < count && !reader.failed; e++) {
		char class_text[256], instance[256];
		uint32_t entry_status = dci_protocol_get_u32(&reader), datum_id;
		const unsigned char *present, *data;
		size_t present_length, data_length;

		if (!words_read(&reader, DCI_CLASS_ID_MAX_LEVELS, class_text,
		        sizeof(class_text), NULL, NULL) ||
		    !words_read(&reader, DCI_INSTANCE_ID_MAX_WORDS, instance,
		        sizeof(instance), NULL, NULL))
			fail("bad entry id");
		datum_id = dci_protocol_get_u32(&reader);
		present = dci_protocol_get_block(
		    &reader, shape.present_size, &present_length);
		data = dci_protocol_get_block(
		    &reader, shape.record_size, &data_length);
		if (reader.failed)
			fail("bad entry");
		if (entry_status != DCI_PROTOCOL_SUCCESS) {
			printf("%s %s !%s\n", instance,
			    wanted >= 0 ? shape.labels[wanted] : "-",
			    dci_protocol_status_name(entry_status));
			continue;
		}
		if (datum_id != DCI_PROTOCOL_ALL) {
			if (wanted < 0 ||
			    data_length != shape.datums[wanted].size)
				fail("value of the wrong size");
			value_print(instance, &shape.datums[wanted],
			    shape.labels[wanted], data);
			continue;
		}
		if (data_length != shape.record_size ||
		    present_length != shape.present_size)
			fail("record of the wrong size");
		for (size_t i = 0; i < shape.datum_count; i++) {
			if (!(present[i / 8] >> (i % 8) & 1))
				continue;
			value_print(instance, &shape.datums[i], shape.labels[i],
			    data + shape.offsets[i]);
		}
	}
	if (reader.failed)
		fail("short answer");
	free(payload);
	free(shape.datums);
	free(shape.offsets);
	free(shape.labels);
	return status == DCI_PROTOCOL_SUCCESS ? 0 : 1;
}

static int
command_list(int fd, uint16_t type, const char *pattern)
{
	struct dci_protocol_request request = {0};
	struct dci_protocol_header header;
	struct dci_protocol_reader reader;
	unsigned char *payload;
	uint32_t status, count;

	class_parse(pattern, &request);
	request.datum_id = DCI_PROTOCOL_ALL;
	request_send(fd, type, &request);
	header = answer_receive(fd, &payload);
	reader = (struct dci_protocol_reader){payload, header.length, 0, false};
	count = answer_head(&reader, &status);
	for (uint32_t e = 0; e < count && !reader.failed; e++) {
		char id[256], instance[256], label[DCI_LABEL_MAX * 4 + 1];

		if (!words_read(&reader, DCI_CLASS_ID_MAX_LEVELS, id,
		        sizeof(id), NULL, NULL))
			fail("bad class id");
		if (type == DCI_PROTOCOL_LIST_CLASSES) {
			uint32_t levels, instances;

			text_read(&reader, label, sizeof(label));
			levels = dci_protocol_get_u32(&reader);
			instances = dci_protocol_get_u32(&reader);
			printf("%s %s %u %u\n", id, label, levels, instances);
		} else {
			if (!words_read(&reader, DCI_INSTANCE_ID_MAX_WORDS,
			        instance, sizeof(instance), NULL, NULL))
				fail("bad instance id");
			text_read(&reader, label, sizeof(label));
			printf("%s %s %s\n", id, instance, label);
		}
	}
	if (reader.failed)
		fail("short answer");
	free(payload);
	return status == DCI_PROTOCOL_SUCCESS ? 0 : 1;
}

_Noreturn static void
command_stall(int fd, const char *count_text)
{
	struct dci_protocol_request request = {.class_levels = 1,
	    .class_id = {DCI_PROTOCOL_ALL},
	    .datum_id = DCI_PROTOCOL_ALL};
	long count = strtol(count_text, NULL, 10), sent = 0;

	/* Until the server stops reading (the socket is full) or COUNT. */
	while (sent < count && request_try(fd, &request))
		sent++;
	printf("sent %ld\n", sent);
	fflush(stdout);
	for (;;)
		pause();
}

static int
command_garbage(int fd)
{
	unsigned char bytes[DCI_PROTOCOL_HEADER_SIZE] = "not a DCI header";
	unsigned char *payload, extra;
	struct dci_protocol_header header;
	struct dci_protocol_reader reader;

	write_all(fd, bytes, sizeof(bytes));
	header = answer_receive(fd, &payload);
	reader = (struct dci_protocol_reader){payload, header.length, 0, false};
	printf("type %#x status %s\n", header.type,
	    dci_protocol_status_name(dci_protocol_get_u32(&reader)));
	if (recv(fd, &extra, 1, 0) == 0)
		printf("closed\n");
	free(payload);
	return 0;
}

int
main(int argc, char **argv)
{
	int fd;

	if (argc < 3)
		fail("usage: dci_query SOCKET COMMAND [ARGUMENTS]");
	fd = connect_to(argv[1]);
	if (strcmp(argv[2], "classes") == 0 && argc == 4)
		return command_list(fd, DCI_PROTOCOL_LIST_CLASSES, argv[3]);
	if (strcmp(argv[2], "instances") == 0 && argc == 4)
		return command_list(fd, DCI_PROTOCOL_LIST_INSTANCES, argv[3]);
	if (strcmp(argv[2], "get") == 0 && argc == 6)
		return command_get(fd, argv + 3);
	if (strcmp(argv[2], "stall") == 0 && argc == 4)
		command_stall(fd, argv[3]);
	if (strcmp(argv[2], "garbage") == 0 && argc == 3)
		return command_garbage(fd);
	fail("usage: dci_query SOCKET COMMAND [ARGUMENTS]");
	return 2;
}
