/*
 * The daemon's source (source.h): what the running dcistatd serves, read
 * through its DCI Server socket (server/dci_server.h) and rebuilt into a
 * registry (cli/daemon_registry.h), so that dcistat shows isolated
 * providers, failed suppliers and refused application segments as dcistatd
 * does. A small blocking client: one request at a time, each answer
 * bounded by DCI_PROTOCOL_RESPONSE_MAX and awaited at most
 * DAEMON_ANSWER_TIMEOUT_MILLISECONDS; the first at most
 * DAEMON_FIRST_ANSWER_TIMEOUT_MILLISECONDS, so that a socket nothing
 * serves (a daemon stopped, or a listener that never answers) costs the
 * fallback to the local source a bounded, short wait.
 */
#define _GNU_SOURCE
#include "cli/source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/daemon_registry.h"
#include "protocol/dci_protocol.h"

#define DAEMON_ANSWER_TIMEOUT_MILLISECONDS 10000
/* A running dcistatd lists its suppliers at once; no answer by then is
 * no daemon. */
#define DAEMON_FIRST_ANSWER_TIMEOUT_MILLISECONDS 500

struct daemon_state {
	int fd;
	uint32_t serial;
	int64_t answer_timeout_milliseconds;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* Reads exactly `length` bytes before `deadline` (dci_clock_milliseconds).
 * 0, or -1 with `error`. */
static int
read_exactly(struct daemon_state *state, unsigned char *bytes, size_t length,
    int64_t deadline, char *error, size_t error_size)
{
	size_t got = 0;

	while (got < length) {
		struct pollfd polled = {state->fd, POLLIN, 0};
		int64_t left = deadline - dci_clock_milliseconds();
		ssize_t count;
		int ready;

		if (left <= 0) {
			snprintf(error, error_size,
			    "%s: dcistatd did not answer in time", state->path);
			return -1;
		}
		ready = poll(&polled, 1, (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			continue;
		count = recv(state->fd, bytes + got, length - got, 0);
		if (count < 0 && errno == EINTR)
			continue;
		if (count <= 0) {
			snprintf(error, error_size,
			    "%s: dcistatd closed the connection", state->path);
			return -1;
		}
		got += (size_t)count;
	}
	return 0;
}

/* One request of `type` for `class_id` (every instance, every datum); the
 * answer's payload in *payload (freed by the caller). 0; 1 when no answer
 * came (none in time, the connection closed or refused the request); -1
 * when one came that could not be read. */
static int
daemon_call(struct daemon_state *state, uint16_t type, const uint32_t *class_id,
    size_t levels, unsigned char **payload, size_t *length, char *error,
    size_t error_size)
{
	unsigned char
	    message[DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_REQUEST_MAX];
	struct dci_protocol_request request = {.datum_id = DCI_PROTOCOL_ALL};
	struct dci_protocol_header header = {
	    DCI_PROTOCOL_MAGIC, DCI_PROTOCOL_VERSION, type, 0, 0};
	size_t written, sent = 0;
	int64_t deadline;

	memcpy(request.class_id, class_id, levels * sizeof(*class_id));
	request.class_levels = levels;
	written = dci_protocol_request_write(&request,
	    message + DCI_PROTOCOL_HEADER_SIZE, DCI_PROTOCOL_REQUEST_MAX);
	if (++state->serial == 0)
		state->serial = 1; /* serial 0 is the events' */
	header.serial = state->serial;
	header.length = (uint32_t)written;
	dci_protocol_header_write(message, &header);
	while (sent < DCI_PROTOCOL_HEADER_SIZE + written) {
		ssize_t count = send(state->fd, message + sent,
		    DCI_PROTOCOL_HEADER_SIZE + written - sent, MSG_NOSIGNAL);

		if (count < 0 && errno == EINTR)
			continue;
		if (count < 0) {
			snprintf(error, error_size, "%s: %s", state->path,
			    strerror(errno));
			return 1;
		}
		sent += (size_t)count;
	}
	deadline =
	    dci_clock_milliseconds() + state->answer_timeout_milliseconds;
	for (;;) {
		unsigned char head[DCI_PROTOCOL_HEADER_SIZE];
		struct dci_protocol_header answer;
		enum dci_protocol_status status;
		unsigned char *bytes;

		if (read_exactly(state, head, sizeof(head), deadline, error,
		        error_size) != 0)
			return 1;
		status = dci_protocol_header_read(
		    head, DCI_PROTOCOL_RESPONSE_MAX, &answer);
		if (status != DCI_PROTOCOL_SUCCESS) {
			snprintf(error, error_size, "%s: not a DCI answer (%s)",
			    state->path, dci_protocol_status_name(status));
			return -1;
		}
		bytes = malloc(answer.length > 0 ? answer.length : 1);
		if (bytes == NULL) {
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		if (read_exactly(state, bytes, answer.length, deadline, error,
		        error_size) != 0) {
			free(bytes);
			return -1;
		}
		if (answer.type == DCI_PROTOCOL_ERROR ||
		    (answer.serial == state->serial &&
		        answer.type != (type | DCI_PROTOCOL_ANSWER))) {
			struct dci_protocol_reader reader = {
			    bytes, answer.length, 0, false};

			snprintf(error, error_size, "%s: dcistatd refused: %s",
			    state->path,
			    dci_protocol_status_name(
			        dci_protocol_get_u32(&reader)));
			free(bytes);
			return -1;
		}
		if (answer.serial == state->serial) {
			*payload = bytes;
			*length = answer.length;
			return 0;
		}
		/* Anything else (events: none is asked for) is skipped. */
		free(bytes);
	}
}

static int
daemon_refresh(struct cli_source *source, char *error, size_t error_size)
{
	struct daemon_state *state = source->state;
	struct dci_registry *registry = source->registry;

	for (size_t i = 0; i < registry->class_count; i++) {
		struct dci_class *class = registry->classes[i];
		unsigned char *answer = NULL;
		size_t length = 0;
		int result = -1;

		/* One request: the instances and their data of one
		 * snapshot. */
		if (daemon_call(state, DCI_PROTOCOL_GET_INSTANCE_DATA,
		        class->id, class->id_length, &answer, &length, error,
		        error_size) == 0)
			result = cli_daemon_commit_class(class, answer, length,
			    dci_clock_milliseconds(), error, error_size);
		free(answer);
		if (result != 0)
			return -1;
	}
	return 0;
}

static void
daemon_wait_until(struct cli_source *source, int64_t deadline)
{
	(void)source;
	for (;;) {
		int64_t left = deadline - dci_clock_milliseconds();
		struct timespec pause;

		if (left <= 0)
			return;
		pause.tv_sec = (time_t)(left / 1000);
		pause.tv_nsec = (long)(left % 1000) * 1000000L;
		nanosleep(&pause, NULL);
	}
}

static void
daemon_close(struct cli_source *source)
{
	struct daemon_state *state = source->state;

	if (state != NULL) {
		if (state->fd >= 0)
			close(state->fd);
		free(state);
	}
	if (source->registry != NULL)
		dci_registry_free(source->registry);
	source->state = NULL;
	source->registry = NULL;
}

static const struct cli_source_operations daemon_operations = {
    .refresh = daemon_refresh,
    .wait_until = daemon_wait_until,
    .close = daemon_close,
};

int
cli_source_daemon_open(struct cli_source *source, const char *socket_path,
    char *error, size_t error_size)
{
	static const uint32_t every[] = {DCI_PROTOCOL_ALL};
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	struct daemon_state *state;
	unsigned char *answer = NULL;
	size_t length = 0;
	int result, flags;

	if (strlen(socket_path) >= sizeof(address.sun_path)) {
		snprintf(error, error_size, "%.200s: socket path too long",
		    socket_path);
		return 1;
	}
	state = calloc(1, sizeof(*state));
	if (state == NULL) {
		snprintf(error, error_size, "out of memory");
		return -1;
	}
	strcpy(state->path, socket_path);
	strcpy(address.sun_path, socket_path);
	/* Non-blocking, so that a listener whose backlog is full (one that
	 * never accepts) refuses at once (EAGAIN) instead of holding the
	 * connect; the exchange that follows waits in poll. */
	state->fd =
	    socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (state->fd < 0 || connect(state->fd, (struct sockaddr *)&address,
	                         sizeof(address)) != 0) {
		snprintf(
		    error, error_size, "%s: %s", state->path, strerror(errno));
		if (state->fd >= 0)
			close(state->fd);
		free(state);
		return 1;
	}
	flags = fcntl(state->fd, F_GETFL);
	if (flags < 0 || fcntl(state->fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		snprintf(
		    error, error_size, "%s: %s", state->path, strerror(errno));
		close(state->fd);
		free(state);
		return -1;
	}
	*source = (struct cli_source){
	    .operations = &daemon_operations,
	    .registry = dci_registry_new(),
	    .state = state,
	};
	if (source->registry == NULL) {
		snprintf(error, error_size, "out of memory");
		daemon_close(source);
		return -1;
	}
	/* The first answer tells whether a daemon serves the socket: none
	 * in time is the caller's to fall back from. */
	state->answer_timeout_milliseconds =
	    DAEMON_FIRST_ANSWER_TIMEOUT_MILLISECONDS;
	result = daemon_call(state, DCI_PROTOCOL_LIST_SUPPLIERS, every, 1,
	    &answer, &length, error, error_size);
	if (result > 0) {
		daemon_close(source);
		return 1;
	}
	state->answer_timeout_milliseconds = DAEMON_ANSWER_TIMEOUT_MILLISECONDS;
	if (result == 0)
		result = cli_daemon_add_suppliers(
		    source->registry, answer, length, error, error_size);
	free(answer);
	answer = NULL;
	if (result == 0)
		result = daemon_call(state, DCI_PROTOCOL_GET_CLASS_ATTRIBUTES,
		    every, 1, &answer, &length, error, error_size);
	if (result == 0)
		result = cli_daemon_add_classes(
		    source->registry, answer, length, error, error_size);
	free(answer);
	if (result == 0)
		result = daemon_refresh(source, error, error_size);
	if (result != 0) {
		daemon_close(source);
		return -1;
	}
	for (size_t i = 0; i < source->registry->supplier_count; i++) {
		const struct dci_supplier *supplier =
		    source->registry->suppliers[i];

		if (!supplier->withdrawn &&
		    supplier->status == DCI_SUPPLIER_FAILED)
			source->providers_failed++;
	}
	return 0;
}
