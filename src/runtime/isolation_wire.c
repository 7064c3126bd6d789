#define _GNU_SOURCE
#include "runtime/isolation_wire.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"

static void
append(struct dci_wire_writer *writer, const void *bytes, size_t length)
{
	if (writer->failed || length == 0)
		return;
	if (length > DCI_WIRE_FRAME_MAX ||
	    writer->length - writer->frame_start >
	        DCI_WIRE_FRAME_MAX - length) {
		writer->failed = true;
		return;
	}
	if (writer->length + length > writer->capacity) {
		size_t capacity = writer->capacity ? writer->capacity : 4096;
		unsigned char *grown;
		while (capacity < writer->length + length)
			capacity *= 2;
		grown = realloc(writer->data, capacity);
		if (grown == NULL) {
			writer->failed = true;
			return;
		}
		writer->data = grown;
		writer->capacity = capacity;
	}
	memcpy(writer->data + writer->length, bytes, length);
	writer->length += length;
}

void
dci_wire_frame_begin(struct dci_wire_writer *writer, enum dci_wire_type type)
{
	uint32_t length = 0;
	uint8_t byte = (uint8_t)type;

	writer->frame_start = writer->length;
	append(writer, &length, sizeof(length));
	append(writer, &byte, 1);
}

bool
dci_wire_frame_end(struct dci_wire_writer *writer)
{
	uint32_t length;

	if (writer->failed)
		return false;
	length =
	    (uint32_t)(writer->length - writer->frame_start - sizeof(uint32_t));
	memcpy(writer->data + writer->frame_start, &length, sizeof(length));
	return true;
}

void
dci_wire_u8(struct dci_wire_writer *writer, uint8_t value)
{
	append(writer, &value, sizeof(value));
}

void
dci_wire_u32(struct dci_wire_writer *writer, uint32_t value)
{
	append(writer, &value, sizeof(value));
}

void
dci_wire_u64(struct dci_wire_writer *writer, uint64_t value)
{
	append(writer, &value, sizeof(value));
}

void
dci_wire_string(struct dci_wire_writer *writer, const char *text)
{
	size_t length = text != NULL ? strlen(text) + 1 : 0;

	if (length > UINT32_MAX) {
		writer->failed = true;
		return;
	}
	dci_wire_u32(writer, (uint32_t)length);
	append(writer, text, length);
}

void
dci_wire_bytes(struct dci_wire_writer *writer, const void *bytes, size_t length)
{
	append(writer, bytes, length);
}

int
dci_wire_send(struct dci_wire_writer *writer, int socket)
{
	size_t sent = 0;

	if (writer->failed)
		return -1;
	while (sent < writer->length) {
		ssize_t count = send(socket, writer->data + sent,
		    writer->length - sent, MSG_NOSIGNAL);
		if (count < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		sent += (size_t)count;
	}
	writer->length = 0;
	writer->frame_start = 0;
	return 0;
}

void
dci_wire_writer_free(struct dci_wire_writer *writer)
{
	free(writer->data);
	*writer = (struct dci_wire_writer){0};
}

static const void *
take(struct dci_wire_reader *reader, size_t length)
{
	const void *at;

	if (reader->failed || length > reader->length - reader->position) {
		reader->failed = true;
		return NULL;
	}
	at = reader->data + reader->position;
	reader->position += length;
	return at;
}

/* The next `size` bytes into `value`, which keeps its contents past the
 * end. */
static void
take_copy(struct dci_wire_reader *reader, void *value, size_t size)
{
	const void *at = take(reader, size);

	if (at != NULL)
		memcpy(value, at, size);
}

uint8_t
dci_wire_read_u8(struct dci_wire_reader *reader)
{
	const uint8_t *at = take(reader, 1);

	return at != NULL ? *at : 0;
}

uint32_t
dci_wire_read_u32(struct dci_wire_reader *reader)
{
	uint32_t value = 0;

	take_copy(reader, &value, sizeof(value));
	return value;
}

uint64_t
dci_wire_read_u64(struct dci_wire_reader *reader)
{
	uint64_t value = 0;

	take_copy(reader, &value, sizeof(value));
	return value;
}

const char *
dci_wire_read_string(struct dci_wire_reader *reader)
{
	uint32_t length = dci_wire_read_u32(reader);
	const char *text;

	if (reader->failed || length == 0)
		return NULL;
	text = take(reader, length);
	/* Exactly one NUL, at the end. */
	if (text != NULL && strnlen(text, length) != length - 1) {
		reader->failed = true;
		return NULL;
	}
	return text;
}

const void *
dci_wire_read_bytes(struct dci_wire_reader *reader, size_t length)
{
	return take(reader, length);
}

bool
dci_wire_at_end(const struct dci_wire_reader *reader)
{
	return !reader->failed && reader->position == reader->length;
}

/* Reads exactly `length` bytes before `deadline`: 1, 0 at the end of the
 * stream before any byte, -1 on an error (or an end inside), -2 late, -3
 * when `watched` (if >= 0) became readable while nothing was to be read. */
static int
receive_exactly(
    int socket, int watched, int64_t deadline, void *buffer, size_t length)
{
	size_t received = 0;

	while (received < length) {
		struct pollfd polled[2] = {
		    {socket, POLLIN, 0}, {watched, POLLIN, 0}};
		int64_t now = dci_clock_milliseconds(), wait;
		ssize_t count;
		int ready;

		if (deadline != INT64_MAX && now >= deadline)
			return -2;
		wait = deadline == INT64_MAX ? -1 : deadline - now;
		ready = poll(polled, watched >= 0 ? 2 : 1,
		    wait > INT32_MAX ? INT32_MAX : (int)wait);
		if (ready < 0 && errno != EINTR)
			return -1;
		if (ready <= 0)
			continue;
		/* What was sent before is read first. */
		if (polled[0].revents == 0) {
			if (polled[1].revents != 0)
				return -3;
			continue;
		}
		count = recv(socket, (unsigned char *)buffer + received,
		    length - received, 0);
		if (count < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		if (count == 0)
			return received == 0 ? 0 : -1;
		received += (size_t)count;
	}
	return 1;
}

int
dci_wire_receive(int socket, int watched, int64_t deadline,
    unsigned char **buffer, size_t *buffer_size, enum dci_wire_type *type,
    struct dci_wire_reader *payload, char *why, size_t why_size)
{
	uint32_t length;
	int result =
	    receive_exactly(socket, watched, deadline, &length, sizeof(length));

	if (result != 1) {
		if (result == -1)
			log_reason(why, why_size, "reading a message: %s",
			    errno != 0 ? strerror(errno) : "stream cut short");
		return result;
	}
	if (length < 1 || length > DCI_WIRE_FRAME_MAX) {
		log_reason(why, why_size, "a message of %u bytes", length);
		return -1;
	}
	if (length > *buffer_size) {
		unsigned char *grown = realloc(*buffer, length);
		if (grown == NULL) {
			log_reason(why, why_size, "out of memory");
			return -1;
		}
		*buffer = grown;
		*buffer_size = length;
	}
	result = receive_exactly(socket, watched, deadline, *buffer, length);
	if (result != 1) {
		if (result != -2 && result != -3)
			log_reason(why, why_size, "a message cut short");
		return result < -1 ? result : -1;
	}
	*type = (enum dci_wire_type)(*buffer)[0];
	*payload = (struct dci_wire_reader){*buffer + 1, length - 1, 0, false};
	return 1;
}
