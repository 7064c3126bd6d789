/* The DCI Server's socket and connections (server/dci_server.h). */
#define _GNU_SOURCE
#include "server/dci_server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "server/dci_access.h"
#include "server/dci_answer.h"
#include "server/dci_budget.h"
#include "server/dci_cache.h"
#include "protocol/dci_protocol.h"

/* Output buffer a consumer keeps between answers. */
#define DCI_SERVER_KEPT_OUTPUT_BYTES (64u * 1024u)

/* What a consumer asked events for. */
struct dci_server_subscription {
	struct dci_protocol_request pattern;
	uint32_t serial; /* of the SUBSCRIBE request */
};

struct dci_server_client {
	int fd;
	struct dci_access_peer peer;
	/* What its answers depend on of the access rules (dci_access.h),
	 * dci_server's admission_size bytes. */
	unsigned char *admission;
	/* The message being read: header, then payload. */
	unsigned char
	    input[DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_REQUEST_MAX];
	size_t input_length;
	/* The answer being sent: output.data[sent..length). */
	struct dci_protocol_writer output;
	size_t sent;
	/* When the answer was queued or last taken in part by the socket. */
	int64_t progress_milliseconds;
	bool close_when_sent; /* it sent what the server cannot read */
	/* Left out of the last poll: its user's budget was spent. */
	bool throttled;
	struct dci_server_subscription
	    subscriptions[DCI_SERVER_SUBSCRIPTIONS_MAX];
	size_t subscription_count;
	/* Allocated at the first subscription, DCI_SERVER_EVENTS_QUEUED_MAX
	 * entries. */
	struct dci_protocol_event *queue;
	size_t queued;
	uint32_t lost; /* events not queued since the last message */
};

struct dci_server {
	int listener;
	char *path;
	const struct dci_registry *registry;
	struct dci_access access;
	size_t admission_size;
	int64_t stall_milliseconds;
	struct dci_budget budget;
	struct dci_cache cache;
	struct dci_server_client *clients[DCI_SERVER_CLIENTS_MAX];
	size_t client_count;
	/* What dci_server_poll_add wrote after the listener: clients by
	 * position. */
	struct dci_server_client *polled[DCI_SERVER_CLIENTS_MAX];
	size_t polled_count;
	bool full_logged;
};

/* Frees what dci_server_start allocated; the listener is closed when
 * open, and its file removed when `bound`. */
static void
server_free(struct dci_server *server, bool bound)
{
	if (server->listener >= 0)
		close(server->listener);
	/* After a change of user it may no longer be ours to remove: the
	 * next start replaces it. */
	if (bound)
		unlink(server->path);
	dci_cache_free(&server->cache);
	dci_access_free(&server->access);
	free(server->path);
	free(server);
}

struct dci_server *
dci_server_start(const struct dci_server_settings *settings,
    const struct dci_registry *registry, char *why, size_t why_size)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	struct dci_server *server;
	struct stat status;

	if (strlen(settings->path) >= sizeof(address.sun_path)) {
		snprintf(why, why_size, "dci-socket %s: longer than %zu bytes",
		    settings->path, sizeof(address.sun_path) - 1);
		return NULL;
	}
	strcpy(address.sun_path, settings->path);
	server = calloc(1, sizeof(*server));
	if (server != NULL)
		server->listener = -1;
	if (server == NULL || (server->path = strdup(settings->path)) == NULL ||
	    dci_access_build(&server->access, settings->access,
	        settings->access_count) != 0) {
		snprintf(why, why_size, "dci-socket: out of memory");
		if (server != NULL)
			server_free(server, false);
		return NULL;
	}
	server->registry = registry;
	server->admission_size = dci_access_admission_size(&server->access);
	dci_budget_init(
	    &server->budget, settings->work_microseconds > 0
	                         ? settings->work_microseconds
	                         : DCI_SERVER_DEFAULT_WORK_MICROSECONDS);
	server->stall_milliseconds =
	    settings->stall_milliseconds > 0
	        ? settings->stall_milliseconds
	        : DCI_SERVER_DEFAULT_STALL_MILLISECONDS;
	/* A socket left by a daemon that did not stop cleanly; never
	 * anything else. */
	if (lstat(settings->path, &status) == 0 && S_ISSOCK(status.st_mode))
		unlink(settings->path);
	server->listener =
	    socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (server->listener < 0 ||
	    bind(server->listener, (struct sockaddr *)&address,
	        sizeof(address)) != 0 ||
	    chmod(settings->path, settings->mode & 07777) != 0 ||
	    listen(server->listener, 64) != 0) {
		snprintf(why, why_size, "dci-socket %s: %s", settings->path,
		    strerror(errno));
		server_free(server, false);
		return NULL;
	}
	log_info("dci-socket %s: serving DCI consumers", settings->path);
	return server;
}

static void
client_drop(struct dci_server *server, size_t position, const char *why)
{
	struct dci_server_client *client = server->clients[position];

	log_debug("dci", "consumer pid %ld uid %ld: disconnected: %s",
	    (long)client->peer.pid, (long)client->peer.uid, why);
	close(client->fd);
	dci_protocol_writer_free(&client->output);
	free(client->queue);
	free(client->admission);
	free(client);
	server->clients[position] = server->clients[--server->client_count];
	server->clients[server->client_count] = NULL;
}

void
dci_server_stop(struct dci_server *server)
{
	if (server == NULL)
		return;
	while (server->client_count > 0)
		client_drop(server, server->client_count - 1, "stopping");
	server_free(server, true);
}

void
dci_server_expire(struct dci_server *server, int64_t now)
{
	for (size_t i = server->client_count; i-- > 0;) {
		const struct dci_server_client *client = server->clients[i];

		if (client->sent < client->output.length &&
		    now - client->progress_milliseconds >=
		        server->stall_milliseconds)
			client_drop(server, i, "its answer stalled unread");
	}
}

int64_t
dci_server_deadline(const struct dci_server *server)
{
	int64_t deadline = INT64_MAX;

	int64_t now = dci_clock_milliseconds();

	for (size_t i = 0; i < server->client_count; i++) {
		const struct dci_server_client *client = server->clients[i];
		int64_t due;

		/* A consumer waiting for its user's budget: when it
		 * refills. */
		if (client->sent >= client->output.length)
			due = client->throttled
			          ? dci_budget_ready_at(
			                &server->budget, client->peer.uid, now)
			          : INT64_MAX;
		else
			due = client->progress_milliseconds +
			      server->stall_milliseconds;
		if (due < deadline)
			deadline = due;
	}
	return deadline;
}

size_t
dci_server_poll_max(void)
{
	return 1 + DCI_SERVER_CLIENTS_MAX;
}

static void answer_begin(struct dci_server_client *client);
static void answer_end(
    struct dci_server_client *client, uint16_t type, uint32_t serial);

/* Puts the queued events in the client's (empty) output. */
static void
events_send(struct dci_server_client *client)
{
	answer_begin(client);
	dci_protocol_put_u32(&client->output, client->lost);
	dci_protocol_put_u32(&client->output, (uint32_t)client->queued);
	for (size_t i = 0; i < client->queued; i++)
		dci_protocol_put_event(&client->output, &client->queue[i]);
	client->queued = 0;
	client->lost = 0;
	answer_end(client, DCI_PROTOCOL_EVENTS, 0);
}

static uint32_t
event_number(enum dci_events_kind kind)
{
	switch (kind) {
	case DCI_EVENTS_INSTANCE_ADDED:
		return DCI_PROTOCOL_EVENT_INSTANCE_ADDED;
	case DCI_EVENTS_INSTANCE_REMOVED:
		return DCI_PROTOCOL_EVENT_INSTANCE_REMOVED;
	default:
		return DCI_PROTOCOL_EVENT_DATA_CHANGED;
	}
}

void
dci_server_event(
    struct dci_server *server, const struct dci_events_instance *event)
{
	const struct dci_class *class = event->class;
	uint32_t number = event_number(event->kind);
	struct timespec now;

	if (server == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	for (size_t i = 0; i < server->client_count; i++) {
		struct dci_server_client *client = server->clients[i];

		for (size_t s = 0; s < client->subscription_count; s++) {
			const struct dci_server_subscription *subscription =
			    &client->subscriptions[s];
			struct dci_protocol_event *queued;

			if ((subscription->pattern.datum_id & 0xffu) !=
			        number ||
			    !dci_answer_matches(
			        &subscription->pattern, class, event->id) ||
			    !dci_access_may_read_instance(&server->access,
			        &client->peer, class->id, class->id_length,
			        event->id, class->instance_words))
				continue;
			if (client->queued == DCI_SERVER_EVENTS_QUEUED_MAX) {
				if (client->lost < UINT32_MAX)
					client->lost++;
				break;
			}
			queued = &client->queue[client->queued++];
			*queued = (struct dci_protocol_event){
			    .serial = subscription->serial,
			    .number = number,
			    .datum_id = event->datum != NULL
			                    ? event->datum->info.id
			                    : 0,
			    .time = (uint64_t)now.tv_sec * 1000000000u +
			            (uint64_t)now.tv_nsec,
			    .class_levels = class->id_length,
			    .instance_words = class->instance_words,
			};
			memcpy(queued->class_id, class->id,
			    class->id_length * sizeof(uint32_t));
			memcpy(queued->instance, event->id,
			    class->instance_words * sizeof(uint32_t));
			/* One event per consumer, whichever patterns
			 * match it. */
			break;
		}
	}
}

size_t
dci_server_poll_add(struct dci_server *server, struct pollfd *polled)
{
	size_t used = 0;

	int64_t now = dci_clock_milliseconds();

	polled[used++] = (struct pollfd){server->listener, POLLIN, 0};
	server->polled_count = 0;
	for (size_t i = 0; i < server->client_count; i++) {
		struct dci_server_client *client = server->clients[i];
		bool sending;

		if (client->sent >= client->output.length &&
		    (client->queued > 0 || client->lost > 0))
			events_send(client);
		sending = client->sent < client->output.length;
		/* Its next request waits in the socket until its user's
		 * budget refills (dci_budget.h). */
		client->throttled =
		    !sending &&
		    !dci_budget_allows(&server->budget, client->peer.uid, now);
		if (client->throttled)
			continue;

		polled[used++] = (struct pollfd){
		    client->fd, (short)(sending ? POLLOUT : POLLIN), 0};
		server->polled[server->polled_count++] = client;
	}
	return used;
}

size_t
dci_server_client_count(const struct dci_server *server)
{
	return server->client_count;
}

/* Whether a consumer with these credentials may take a place now (see
 * dci_server.h); a refusal is logged under the debug token "dci", since
 * any local user can cause one at will. */
static bool
place_for(const struct dci_server *server, const struct dci_access_peer *peer)
{
	size_t same_user = 0;

	if (peer->uid == 0)
		return true;
	if (server->client_count >=
	    DCI_SERVER_CLIENTS_MAX - DCI_SERVER_CLIENTS_ROOT_RESERVED) {
		log_debug("dci",
		    "consumer uid %ld refused: the places left "
		    "are root's",
		    (long)peer->uid);
		return false;
	}
	for (size_t i = 0; i < server->client_count; i++)
		same_user += server->clients[i]->peer.uid == peer->uid;
	if (same_user >= DCI_SERVER_CLIENTS_PER_USER_MAX) {
		log_debug("dci",
		    "consumer uid %ld refused: %u connected as "
		    "that user already",
		    (long)peer->uid, DCI_SERVER_CLIENTS_PER_USER_MAX);
		return false;
	}
	return true;
}

static void
accept_consumers(struct dci_server *server)
{
	for (;;) {
		struct dci_server_client *client;
		int fd = accept4(
		    server->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				log_warn("dci-socket: accept");
			return;
		}
		if (server->client_count == DCI_SERVER_CLIENTS_MAX) {
			if (!server->full_logged)
				log_warnx("dci-socket: %u consumers connected: "
				          "refusing more until one leaves",
				    DCI_SERVER_CLIENTS_MAX);
			server->full_logged = true;
			close(fd);
			continue;
		}
		server->full_logged = false;
		client = calloc(1, sizeof(*client));
		if (client == NULL) {
			close(fd);
			continue;
		}
		client->fd = fd;
		dci_protocol_writer_init(&client->output,
		    DCI_PROTOCOL_HEADER_SIZE + DCI_PROTOCOL_RESPONSE_MAX);
		client->admission = malloc(server->admission_size);
		if (client->admission == NULL)
			;
		else if (dci_access_peer_read(fd, &client->peer) != 0)
			log_warn("dci-socket: peer credentials");
		else if (place_for(server, &client->peer)) {
			dci_access_admission(
			    &server->access, &client->peer, client->admission);
			server->clients[server->client_count++] = client;
			continue;
		}
		close(fd);
		dci_protocol_writer_free(&client->output);
		free(client->admission);
		free(client);
	}
}

/* Starts the client's output with room for the answer's header. */
static void
answer_begin(struct dci_server_client *client)
{
	client->output.length = 0;
	client->output.overflow = false;
	client->sent = 0;
	for (unsigned i = 0; i < DCI_PROTOCOL_HEADER_SIZE / 4; i++)
		dci_protocol_put_u32(&client->output, 0);
}

/* Writes the header in front of the payload appended since
 * answer_begin. */
static void
answer_end(struct dci_server_client *client, uint16_t type, uint32_t serial)
{
	struct dci_protocol_header header = {
	    DCI_PROTOCOL_MAGIC, DCI_PROTOCOL_VERSION, type, serial, 0};

	if (client->output.overflow) {
		answer_begin(client);
		dci_answer_status(
		    &client->output, DCI_PROTOCOL_ALLOCATIONFAILURE);
	}
	header.length =
	    (uint32_t)(client->output.length - DCI_PROTOCOL_HEADER_SIZE);
	dci_protocol_header_write(client->output.data, &header);
	client->progress_milliseconds = dci_clock_milliseconds();
}

/* Keeps `request` as one of the client's subscriptions; answers SUCCESS
 * with the count of classes it names now that the client may read,
 * INVALIDARG for a datum that is no event, ALLOCATIONFAILURE beyond
 * DCI_SERVER_SUBSCRIPTIONS_MAX. A pattern that names no class yet is kept
 * too (the specification's consumers start before its providers): events
 * are matched against it as they come (dci_server_event), each checked
 * against the access rules then, so a count of 0 tells no more than a
 * class the client may not read. */
static void
subscribe(struct dci_server *server, struct dci_server_client *client,
    uint32_t serial, const struct dci_protocol_request *request)
{
	uint32_t number = request->datum_id & 0xffu, classes = 0;
	struct dci_protocol_request classes_only = *request;
	uint32_t status = DCI_PROTOCOL_SUCCESS;
	uint64_t now;
	struct timespec clock;

	classes_only.input_mask = 0;
	classes_only.instance_words = 0;
	for (size_t i = 0; i < server->registry->class_count; i++) {
		const struct dci_class *class = server->registry->classes[i];

		/* Any instance: the class pattern alone decides here. */
		if (dci_answer_matches(&classes_only, class, NULL) &&
		    dci_access_may_read(&server->access, &client->peer,
		        class->id, class->id_length))
			classes++;
	}
	if (number != DCI_PROTOCOL_EVENT_INSTANCE_ADDED &&
	    number != DCI_PROTOCOL_EVENT_INSTANCE_REMOVED &&
	    number != DCI_PROTOCOL_EVENT_DATA_CHANGED)
		status = DCI_PROTOCOL_INVALIDARG;
	else if (client->subscription_count == DCI_SERVER_SUBSCRIPTIONS_MAX)
		status = DCI_PROTOCOL_ALLOCATIONFAILURE;
	else if (client->queue == NULL &&
	         (client->queue = calloc(DCI_SERVER_EVENTS_QUEUED_MAX,
	              sizeof(*client->queue))) == NULL)
		status = DCI_PROTOCOL_ALLOCATIONFAILURE;
	if (status == DCI_PROTOCOL_SUCCESS)
		client->subscriptions[client->subscription_count++] =
		    (struct dci_server_subscription){*request, serial};
	clock_gettime(CLOCK_REALTIME, &clock);
	now = (uint64_t)clock.tv_sec * 1000000000u + (uint64_t)clock.tv_nsec;
	dci_protocol_put_u32(&client->output, status);
	dci_protocol_put_u32(&client->output, classes);
	dci_protocol_put_u64(&client->output, now);
	dci_protocol_put_u64(&client->output, now);
}

/* Appends the answer to `request` to the client's output: the one kept
 * for it when there is one (dci_cache.h), its times made now; else the
 * one dci_answer gives, then kept. */
static void
answer_kept(struct dci_server *server, struct dci_server_client *client,
    uint16_t type, const struct dci_protocol_request *request)
{
	uint64_t generation = dci_registry_generation();
	const struct dci_cache_entry *kept = NULL;
	size_t base = client->output.length;

	if (!dci_cache_keeps(type)) {
		dci_answer(server->registry, &server->access, &client->peer,
		    type, request, &client->output);
		return;
	}
	kept = dci_cache_find(&server->cache, generation, type, request,
	    client->admission, server->admission_size);
	if (kept != NULL) {
		struct timespec clock;
		uint64_t now;

		clock_gettime(CLOCK_REALTIME, &clock);
		now = (uint64_t)clock.tv_sec * 1000000000u +
		      (uint64_t)clock.tv_nsec;
		dci_protocol_put_bytes(
		    &client->output, kept->payload, kept->length);
		for (size_t at = 8; at < 24; at += 8) {
			dci_protocol_patch_u32(
			    &client->output, base + at, (uint32_t)now);
			dci_protocol_patch_u32(&client->output, base + at + 4,
			    (uint32_t)(now >> 32));
		}
		return;
	}
	dci_answer(server->registry, &server->access, &client->peer, type,
	    request, &client->output);
	if (!client->output.overflow)
		dci_cache_store(&server->cache, generation, type, request,
		    client->admission, server->admission_size,
		    client->output.data + base, client->output.length - base);
}

/* Answers the complete message in the client's input. */
static void
request_serve(struct dci_server *server, struct dci_server_client *client)
{
	struct dci_protocol_header header;
	struct dci_protocol_request request;
	enum dci_protocol_status status;

	dci_protocol_header_read(
	    client->input, DCI_PROTOCOL_REQUEST_MAX, &header);
	status = dci_protocol_request_read(
	    client->input + DCI_PROTOCOL_HEADER_SIZE, header.length, &request);
	answer_begin(client);
	if (status != DCI_PROTOCOL_SUCCESS)
		dci_answer_status(&client->output, status);
	else if (header.type == DCI_PROTOCOL_SUBSCRIBE)
		subscribe(server, client, header.serial, &request);
	else
		answer_kept(server, client, header.type, &request);
	answer_end(client, (uint16_t)(header.type | DCI_PROTOCOL_ANSWER),
	    header.serial);
	client->input_length = 0;
}

/* Reads what has come; at most one whole request is answered. Returns
 * false when the client is to be dropped. */
static bool
client_read(struct dci_server *server, struct dci_server_client *client)
{
	for (;;) {
		struct dci_protocol_header header;
		size_t wanted = DCI_PROTOCOL_HEADER_SIZE;
		enum dci_protocol_status status;
		ssize_t count;

		if (client->input_length >= DCI_PROTOCOL_HEADER_SIZE) {
			status = dci_protocol_header_read(
			    client->input, DCI_PROTOCOL_REQUEST_MAX, &header);
			if (status != DCI_PROTOCOL_SUCCESS) {
				answer_begin(client);
				dci_answer_status(&client->output, status);
				answer_end(
				    client, DCI_PROTOCOL_ERROR, header.serial);
				client->close_when_sent = true;
				return true;
			}
			wanted += header.length;
			if (client->input_length == wanted) {
				request_serve(server, client);
				return true;
			}
		}
		count = recv(client->fd, client->input + client->input_length,
		    wanted - client->input_length, MSG_DONTWAIT);
		if (count == 0)
			return false;
		if (count < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ||
			       errno == EINTR;
		client->input_length += (size_t)count;
	}
}

/* Sends what the socket takes now; false when the client is to be
 * dropped. */
static bool
client_write(struct dci_server_client *client)
{
	while (client->sent < client->output.length) {
		ssize_t count =
		    send(client->fd, client->output.data + client->sent,
		        client->output.length - client->sent,
		        MSG_DONTWAIT | MSG_NOSIGNAL);

		if (count < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ||
			       errno == EINTR;
		client->sent += (size_t)count;
		client->progress_milliseconds = dci_clock_milliseconds();
	}
	client->output.length = client->sent = 0;
	/* A large answer's buffer is not kept while the consumer idles. */
	if (client->output.capacity > DCI_SERVER_KEPT_OUTPUT_BYTES) {
		size_t limit = client->output.limit;

		dci_protocol_writer_free(&client->output);
		dci_protocol_writer_init(&client->output, limit);
	}
	return !client->close_when_sent;
}

/* Reads or writes what poll said the client may, charging the thread's
 * CPU time to its user (dci_budget.h); a client whose user's budget was
 * spent since the poll (by another of its connections) is not read.
 * False when the client is to be dropped. */
static bool
client_serve(struct dci_server *server, struct dci_server_client *client)
{
	int64_t started = dci_budget_thread_microseconds(), now;
	bool keep = true;

	if (client->sent < client->output.length)
		keep = client_write(client);
	else if (dci_budget_allows(&server->budget, client->peer.uid,
	             dci_clock_milliseconds())) {
		keep = client_read(server, client);
		/* The answer goes out at once when the socket takes it. */
		if (keep && client->output.length > 0)
			keep = client_write(client);
	}
	now = dci_clock_milliseconds();
	dci_budget_charge(&server->budget, client->peer.uid,
	    dci_budget_thread_microseconds() - started, now);
	return keep;
}

static size_t
client_position(
    const struct dci_server *server, const struct dci_server_client *client)
{
	for (size_t i = 0; i < server->client_count; i++)
		if (server->clients[i] == client)
			return i;
	return SIZE_MAX;
}

void
dci_server_poll_handle(
    struct dci_server *server, const struct pollfd *polled, size_t count)
{
	if (count == 0)
		return;
	for (size_t i = 1; i < count && i - 1 < server->polled_count; i++) {
		struct dci_server_client *client = server->polled[i - 1];
		size_t position;
		bool keep = true;

		if (polled[i].revents == 0)
			continue;
		position = client_position(server, client);
		if (position == SIZE_MAX)
			continue;
		if (polled[i].revents & (POLLERR | POLLNVAL))
			keep = false;
		else
			keep = client_serve(server, client);
		if (!keep)
			client_drop(server, position, "closed or unreadable");
	}
	if (polled[0].revents != 0)
		accept_consumers(server);
}
