/*
 * libdci's connection to dcistatd's DCI Server (server/dci_server.h):
 * dciOpen, dciClose, the request/answer exchange every routine uses, and
 * the events the server sends between answers, which dciWaitEvent hands
 * out. One connection is used by one thread at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "libdci/libdci_internal.h"

/* Waits until fd is readable or `deadline` (dci_clock_milliseconds; -1:
 * none) passes. 1 readable, 0 timed out, -1 error (errno; EINTR returned). */
static int
wait_readable(int fd, int64_t deadline)
{
	struct pollfd polled = {fd, POLLIN, 0};
	int64_t left = deadline < 0 ? -1 : deadline - dci_clock_milliseconds();
	int count;

	if (deadline >= 0 && left < 0)
		left = 0;
	count = poll(&polled, 1, left > INT32_MAX ? INT32_MAX : (int)left);
	if (count < 0)
		return -1;
	return count > 0;
}

/* Reads exactly `length` bytes before `deadline`; a signal does not stop
 * it (a message read halfway cannot be resumed). */
static DCIStatus
read_exactly(int fd, unsigned char *bytes, size_t length, int64_t deadline)
{
	size_t got = 0;

	while (got < length) {
		ssize_t count;
		int ready = wait_readable(fd, deadline);

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return DCI_SYSERROR;
		if (ready == 0) {
			errno = ETIMEDOUT;
			return DCI_SYSERROR;
		}
		count = recv(fd, bytes + got, length - got, MSG_DONTWAIT);
		if (count == 0) {
			errno = ECONNRESET;
			return DCI_NOTINITIALIZED;
		}
		if (count < 0) {
			if (errno == EINTR || errno == EAGAIN ||
			    errno == EWOULDBLOCK)
				continue;
			return DCI_SYSERROR;
		}
		got += (size_t)count;
	}
	return DCI_SUCCESS;
}

/* Reads one message; *payload is malloc'd (NULL for an empty one). */
static DCIStatus
message_read(DCIHandle handle, int64_t deadline,
    struct dci_protocol_header *header, unsigned char **payload)
{
	unsigned char head[DCI_PROTOCOL_HEADER_SIZE];
	DCIStatus status =
	    read_exactly(handle->fd, head, sizeof(head), deadline);

	*payload = NULL;
	if (status != DCI_SUCCESS)
		return status;
	if (dci_protocol_header_read(head,
	        DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_RESPONSE_MAX,
	        header) != DCI_PROTOCOL_SUCCESS) {
		errno = EPROTO;
		return DCI_SYSERROR;
	}
	if (header->length == 0)
		return DCI_SUCCESS;
	*payload = malloc(header->length);
	if (*payload == NULL)
		return DCI_ALLOCATIONFAILURE;
	/* The rest of a message that has begun comes at once. */
	status = read_exactly(handle->fd, *payload, header->length,
	    dci_clock_milliseconds() + LIBDCI_ANSWER_TIMEOUT_MILLISECONDS);
	if (status != DCI_SUCCESS) {
		free(*payload);
		*payload = NULL;
	}
	return status;
}

static DCIStatus
send_all(int fd, const unsigned char *bytes, size_t length)
{
	size_t sent = 0;

	while (sent < length) {
		ssize_t count =
		    send(fd, bytes + sent, length - sent, MSG_NOSIGNAL);

		if (count < 0 && errno == EINTR)
			continue;
		if (count < 0)
			return errno == EPIPE ? DCI_NOTINITIALIZED
			                      : DCI_SYSERROR;
		sent += (size_t)count;
	}
	return DCI_SUCCESS;
}

bool
libdci_events_read(
    DCIHandle handle, const unsigned char *payload, size_t length)
{
	struct dci_protocol_reader reader = {payload, length, 0, false};
	uint32_t lost = dci_protocol_get_u32(&reader);
	uint32_t count = dci_protocol_get_u32(&reader);

	if (reader.failed)
		return false;
	handle->lost += lost;
	for (uint32_t i = 0; i < count; i++) {
		struct dci_protocol_event event;

		if (!dci_protocol_get_event(&reader, &event))
			return false;
		if (handle->event_count == LIBDCI_EVENTS_MAX ||
		    handle->events == NULL) {
			handle->lost++;
			continue;
		}
		handle->events[handle->event_count++] = event;
	}
	return reader.offset == length;
}

/* Takes one message that is not the awaited answer: events are kept,
 * anything else ignored. */
static void
message_aside(DCIHandle handle, const struct dci_protocol_header *header,
    const unsigned char *payload)
{
	if (header->type == DCI_PROTOCOL_EVENTS && payload != NULL)
		(void)libdci_events_read(handle, payload, header->length);
}

DCIStatus
libdci_call(DCIHandle handle, uint16_t type,
    const struct dci_protocol_request *request, unsigned char **payload,
    size_t *length)
{
	unsigned char
	    message[DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_REQUEST_MAX];
	struct dci_protocol_header header = {
	    DCI_PROTOCOL_MAGIC, DCI_PROTOCOL_VERSION, type, 0, 0};
	size_t written = dci_protocol_request_write(request,
	    message + DCI_PROTOCOL_HEADER_SIZE, DCI_PROTOCOL_REQUEST_MAX);
	int64_t deadline;
	DCIStatus status;

	if (written == 0)
		return DCI_INVALIDARG;
	/* Serial 0 is the events'. */
	if (++handle->serial == 0)
		handle->serial = 1;
	header.serial = handle->serial;
	header.length = (uint32_t)written;
	dci_protocol_header_write(message, &header);
	status =
	    send_all(handle->fd, message, DCI_PROTOCOL_HEADER_SIZE + written);
	if (status != DCI_SUCCESS)
		return status;
	deadline =
	    dci_clock_milliseconds() + LIBDCI_ANSWER_TIMEOUT_MILLISECONDS;
	for (;;) {
		struct dci_protocol_header answer;
		unsigned char *bytes;

		status = message_read(handle, deadline, &answer, &bytes);
		if (status != DCI_SUCCESS)
			return status;
		if (answer.type == DCI_PROTOCOL_ERROR) {
			struct dci_protocol_reader reader = {
			    bytes, answer.length, 0, false};
			uint32_t why = dci_protocol_get_u32(&reader);

			free(bytes);
			return reader.failed ? DCI_SYSERROR
			                     : libdci_status(why);
		}
		if (answer.serial == handle->serial &&
		    answer.type == (type | DCI_PROTOCOL_ANSWER)) {
			*payload = bytes;
			*length = answer.length;
			return DCI_SUCCESS;
		}
		message_aside(handle, &answer, bytes);
		free(bytes);
	}
}

/* Reads the messages that have come, waiting for one until `deadline`
 * (-1: for ever) when none has. */
static DCIStatus
events_pump(DCIHandle handle, int64_t deadline)
{
	for (bool waited = false;; waited = true) {
		struct dci_protocol_header header;
		unsigned char *bytes;
		int ready = wait_readable(handle->fd, waited ? 0 : deadline);
		DCIStatus status;

		if (ready < 0)
			return errno == EINTR ? DCI_INTERRUPTED : DCI_SYSERROR;
		if (ready == 0)
			return DCI_SUCCESS;
		status = message_read(
		    handle, deadline < 0 ? -1 : deadline, &header, &bytes);
		if (status != DCI_SUCCESS)
			return status;
		message_aside(handle, &header, bytes);
		free(bytes);
	}
}

DCIStatus
dciOpen(DCIHandle *handle, const DCIMetricId *eventIdList,
    UMAUint4 eventIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	const char *path = secure_getenv("DCISTAT_DCI_SOCKET");
	struct libdci_builder builder;
	const DCIMetricId *metric = eventIdList;
	DCIHandle opened;
	DCIStatus status = DCI_SUCCESS;

	if (handle == NULL || (eventIdCount > 0 && eventIdList == NULL) ||
	    eventIdCount > sizeof(opened->subscriptions) /
	                       sizeof(opened->subscriptions[0]))
		return DCI_INVALIDARG;
	if (path == NULL || path[0] == '\0')
		path = LIBDCI_DEFAULT_SOCKET;
	if (strlen(path) >= sizeof(address.sun_path))
		return DCI_INVALIDARG;
	strcpy(address.sun_path, path);
	opened = calloc(1, sizeof(*opened));
	if (opened == NULL)
		return DCI_ALLOCATIONFAILURE;
	opened->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (opened->fd < 0) {
		free(opened);
		return DCI_SYSERROR;
	}
	if (connect(opened->fd, (struct sockaddr *)&address, sizeof(address)) !=
	    0) {
		int saved = errno;

		close(opened->fd);
		free(opened);
		errno = saved;
		return DCI_NOTINITIALIZED;
	}
	if (eventIdCount > 0 && (opened->events = calloc(LIBDCI_EVENTS_MAX,
	                             sizeof(*opened->events))) == NULL) {
		dciClose(opened);
		return DCI_ALLOCATIONFAILURE;
	}
	libdci_builder_init(&builder);
	for (UMAUint4 i = 0; i < eventIdCount; i++) {
		struct dci_protocol_request request;
		struct libdci_answer_head head = {
		    DCI_PROTOCOL_SUCCESS, 0, 0, 0};
		DCIStatus one = libdci_metric_pattern(metric, &request);
		unsigned char *payload = NULL;
		size_t length = 0, at;

		if (one == DCI_SUCCESS)
			one = libdci_call(opened, DCI_PROTOCOL_SUBSCRIBE,
			    &request, &payload, &length);
		if (one == DCI_SUCCESS) {
			struct dci_protocol_reader reader = {
			    payload, length, 0, false};

			one = libdci_answer_head_read(&reader, &head)
			          ? libdci_status(head.status)
			          : DCI_SYSERROR;
			libdci_builder_times(&builder, head.start, head.end);
		}
		free(payload);
		if (one == DCI_SUCCESS)
			opened->subscriptions[opened->subscription_count++] =
			    (struct libdci_subscription){
			        opened->serial, metric->datumId};
		if (one == DCI_NOTINITIALIZED || one == DCI_SYSERROR) {
			status = one;
			break;
		}
		at = libdci_builder_metric(&builder, metric,
		    one == DCI_INVALIDARG && metric->size % 4 != 0
		        ? 0
		        : metric->size);
		libdci_builder_entry(&builder, one, at, 0, 0);
		if (one == DCI_INVALIDARG)
			break; /* the list's next entry cannot be found */
		metric =
		    (const DCIMetricId *)((const char *)metric + metric->size);
	}
	if (status == DCI_SUCCESS && returnBuffer != NULL)
		status = libdci_builder_finish(
		    &builder, returnBuffer, returnBufferSize, NULL, NULL);
	else if (status == DCI_SUCCESS && eventIdCount > 0)
		status = libdci_builder_summary(&builder);
	libdci_builder_free(&builder);
	if (status != DCI_SUCCESS && status != DCI_INVALIDDATAPRESENT &&
	    opened->subscription_count == 0 &&
	    (status == DCI_NOTINITIALIZED || status == DCI_SYSERROR ||
	        status == DCI_ALLOCATIONFAILURE ||
	        status == DCI_BUFFERTOOSMALL)) {
		dciClose(opened);
		return status;
	}
	*handle = opened;
	return status;
}

DCIStatus
dciClose(DCIHandle handle)
{
	if (handle == NULL)
		return DCI_INVALIDARG;
	close(handle->fd);
	for (size_t i = 0; i < handle->class_count; i++)
		libdci_class_free(&handle->classes[i]);
	free(handle->classes);
	free(handle->events);
	free(handle);
	return DCI_SUCCESS;
}

static const struct libdci_subscription *
subscription_of(DCIHandle handle, uint32_t serial)
{
	for (size_t i = 0; i < handle->subscription_count; i++)
		if (handle->subscriptions[i].serial == serial)
			return &handle->subscriptions[i];
	return NULL;
}

/* One event as a DCIReturn entry: its metric id and its DCIEvent. */
static void
event_put(struct libdci_builder *builder,
    const struct libdci_subscription *subscription,
    const struct dci_protocol_event *event)
{
	DCIDatumId datum = subscription->datum_id;
	UMAUint4 flags = dcieventflags(datum) &
	                 (DCI_EVENTHDRCLASSID | DCI_EVENTHDRINSTANCEID |
	                     DCI_EVENTHDRTIMESTAMP | DCI_EVENTHDRDATA);
	bool with_data =
	    (flags & DCI_EVENTHDRDATA) && event->number == DCI_DATACHANGED;
	size_t size = 4, at, offset;
	unsigned char *bytes;
	uint32_t all_levels = event->instance_words >= 32
	                          ? UINT32_MAX
	                          : (1u << event->instance_words) - 1;
	UMAUint4 word;

	flags |= DCI_EVENTHDR;
	if (!with_data)
		flags &= ~DCI_EVENTHDRDATA;
	if (flags & DCI_EVENTHDRCLASSID)
		size += 4 + 4 * event->class_levels;
	if (flags & DCI_EVENTHDRINSTANCEID)
		size += 12 + 4 * event->instance_words;
	if (flags & DCI_EVENTHDRTIMESTAMP)
		size += sizeof(UMATimeSpec);
	if (with_data)
		size += 4;
	if (size >= 0xff)
		size += 4;
	at = libdci_put_metric_id(builder, event->class_id, event->class_levels,
	    all_levels, UINT32_MAX, event->instance, event->instance_words,
	    datum);
	bytes = libdci_builder_data_room(builder, size, &offset);
	if (bytes == NULL)
		return;
	word = flags | (dcieventid(datum) << 8) |
	       (size >= 0xff ? 0xffu : (UMAUint4)size);
	memcpy(bytes, &word, 4);
	at = at == SIZE_MAX ? 0 : at;
	{
		size_t next = 4;

		if (size >= 0xff) {
			word = (UMAUint4)size;
			memcpy(bytes + next, &word, 4);
			next += 4;
		}
		if (flags & DCI_EVENTHDRCLASSID) {
			word = (UMAUint4)(4 + 4 * event->class_levels);
			memcpy(bytes + next, &word, 4);
			memcpy(bytes + next + 4, event->class_id,
			    4 * event->class_levels);
			next += word;
		}
		if (flags & DCI_EVENTHDRINSTANCEID) {
			UMAUint4 head[3] = {
			    (UMAUint4)(12 + 4 * event->instance_words),
			    all_levels, UINT32_MAX};

			memcpy(bytes + next, head, 12);
			memcpy(bytes + next + 12, event->instance,
			    4 * event->instance_words);
			next += head[0];
		}
		if (flags & DCI_EVENTHDRTIMESTAMP) {
			UMATimeSpec time = {
			    (UMAUint4)(event->time / 1000000000u),
			    (UMAUint4)(event->time % 1000000000u)};

			memcpy(bytes + next, &time, sizeof(time));
			next += sizeof(time);
		}
		if (with_data)
			memcpy(bytes + next, &event->datum_id, 4);
	}
	libdci_builder_entry(builder, DCI_SUCCESS, at, offset, size);
}

DCIStatus
dciWaitEvent(DCIHandle handle, DCIReturn **returnBuffer,
    UMAUint4 returnBufferSize, void **dataBuffer, UMAUint4 *dataBufferSize,
    const UMATimeSpec *timeout)
{
	struct libdci_builder builder;
	int64_t deadline = -1;
	DCIStatus status;
	size_t taken = 0;

	if (handle == NULL || returnBuffer == NULL ||
	    (dataBuffer != NULL && dataBufferSize == NULL) ||
	    (timeout != NULL && timeout->tv_nsec >= 1000000000u))
		return DCI_INVALIDARG;
	if (handle->subscription_count == 0)
		return DCI_NOTPRESENT;
	if (timeout != NULL)
		deadline = dci_clock_milliseconds() +
		           (int64_t)timeout->tv_sec * 1000 +
		           timeout->tv_nsec / 1000000;
	if (handle->event_count == 0 && handle->lost == 0) {
		status = events_pump(handle, deadline);
		if (status != DCI_SUCCESS)
			return status;
		if (handle->event_count == 0 && handle->lost == 0)
			return DCI_TIMEOUT;
	}
	libdci_builder_init(&builder);
	if (handle->lost > 0) {
		UMAUint4 lost = handle->lost > UINT32_MAX
		                    ? UINT32_MAX
		                    : (UMAUint4)handle->lost;
		size_t at = libdci_put_class_id(&builder, NULL, 0);
		size_t offset = libdci_builder_data(&builder, &lost, 4);

		libdci_builder_entry(
		    &builder, DCI_ALLOCATIONFAILURE, at, offset, 4);
	}
	for (; taken < handle->event_count; taken++) {
		const struct dci_protocol_event *event = &handle->events[taken];
		const struct libdci_subscription *subscription =
		    subscription_of(handle, event->serial);

		if (subscription != NULL)
			event_put(&builder, subscription, event);
	}
	status = libdci_builder_layout(&builder, returnBuffer, returnBufferSize,
	    dataBuffer, dataBufferSize);
	if (status == DCI_SUCCESS) {
		/* Handed out: the next call waits for new ones. */
		handle->event_count = 0;
		handle->lost = 0;
		status = libdci_builder_summary(&builder);
	}
	libdci_builder_free(&builder);
	return status;
}
