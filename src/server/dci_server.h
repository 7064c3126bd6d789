/*
 * The DCI Server inside dcistatd: a local stream socket on which consumers
 * send requests of the DCI protocol (protocol/dci_protocol.h) and get answers
 * from the registry's current snapshots (server/dci_answer.h), as the
 * user the kernel says they are (server/dci_access.h).
 *
 * It never blocks and owns no thread: the daemon's poll loop asks for its
 * descriptors (dci_server_poll_add) and hands back what poll said
 * (dci_server_poll_handle). Every socket is non-blocking. Each wake-up
 * reads at most one request per consumer; a consumer's next request is
 * not read until its answer has been sent, so the answers a consumer that
 * stops reading can hold are one, at most DCI_PROTOCOL_RESPONSE_MAX bytes;
 * and a consumer whose answer makes no progress for the stall period is
 * disconnected, so that it does not keep its place. At most
 * DCI_SERVER_CLIENTS_MAX consumers are connected at a time, at most
 * DCI_SERVER_CLIENTS_PER_USER_MAX of them as one user other than root,
 * and the last DCI_SERVER_CLIENTS_ROOT_RESERVED places are root's: a
 * connection beyond is closed at once, so that no user can take every
 * place from the others or from root. A consumer that sends a
 * message the server cannot read gets DCI_PROTOCOL_ERROR and is disconnected.
 *
 * Work. The CPU time spent reading, answering and writing for a consumer
 * is charged to its uid's budget (server/dci_budget.h); while it is spent,
 * that uid's consumers are not polled for requests. Answers read from the
 * snapshots are kept and given again to the same request from a consumer
 * of the same admission until the registry changes (server/dci_cache.h).
 *
 * Events. A consumer that subscribes (DCI_PROTOCOL_SUBSCRIBE, at most
 * DCI_SERVER_SUBSCRIPTIONS_MAX patterns) is sent the instance events of
 * the classes it may read that its patterns name, in DCI_PROTOCOL_EVENTS
 * messages, whenever it has no answer in flight. Its events wait in a
 * queue of at most DCI_SERVER_EVENTS_QUEUED_MAX; beyond, they are only
 * counted, and the count goes out with the next message, so a consumer
 * that does not read costs a fixed amount of memory, and is disconnected
 * after the stall period like any other once a message to it stalls.
 */
#ifndef DCISTAT_SERVER_DCI_SERVER_H
#define DCISTAT_SERVER_DCI_SERVER_H

#include <poll.h>
#include <stddef.h>

#include "config/config.h"
#include "model/events.h"
#include "model/registry.h"

#define DCI_SERVER_CLIENTS_MAX 16u
#define DCI_SERVER_CLIENTS_PER_USER_MAX 4u
#define DCI_SERVER_CLIENTS_ROOT_RESERVED 2u
#define DCI_SERVER_DEFAULT_STALL_MILLISECONDS 10000
#define DCI_SERVER_SUBSCRIPTIONS_MAX 16u
#define DCI_SERVER_EVENTS_QUEUED_MAX 256u
/* Each user's share of the daemon's CPU for its DCI requests, in CPU
 * microseconds per second (server/dci_budget.h). */
#define DCI_SERVER_DEFAULT_WORK_MICROSECONDS 20000

struct dci_server;

struct dci_server_settings {
	const char *path; /* absolute; its directory must exist */
	unsigned mode;    /* permission bits of the socket file */
	const struct dci_config_dci_access *access;
	size_t access_count;
	/* How long an answer may wait for its consumer to read any of it;
	 * 0: DCI_SERVER_DEFAULT_STALL_MILLISECONDS. */
	int64_t stall_milliseconds;
	/* CPU microseconds per second each uid's requests may take; 0:
	 * DCI_SERVER_DEFAULT_WORK_MICROSECONDS. */
	int64_t work_microseconds;
};

/* Binds and listens at settings->path, replacing a socket file left there
 * (not any other kind of file). Returns the server, or NULL with the
 * reason in `why`. */
struct dci_server *dci_server_start(const struct dci_server_settings *settings,
    const struct dci_registry *registry, char *why, size_t why_size);

/* Disconnects every consumer, closes the socket and removes its file.
 * NULL is allowed. */
void dci_server_stop(struct dci_server *server);

/* Disconnects the consumers whose answer has made no progress for the
 * stall period by `now` (base/clock.h's milliseconds). */
void dci_server_expire(struct dci_server *server, int64_t now);

/* When dci_server_expire next has something to do; INT64_MAX: never. */
int64_t dci_server_deadline(const struct dci_server *server);

/* The most entries dci_server_poll_add writes. */
size_t dci_server_poll_max(void);

/* Writes the descriptors to wait on at `polled` (room for
 * dci_server_poll_max entries) and returns how many. */
size_t dci_server_poll_add(struct dci_server *server, struct pollfd *polled);

/* Serves what poll reported for the `count` entries dci_server_poll_add
 * wrote last. */
void dci_server_poll_handle(
    struct dci_server *server, const struct pollfd *polled, size_t count);

/* Queues `event` (model/events.h) for every consumer subscribed to it; it
 * goes out with the next poll turn. Main thread, as every commit. NULL
 * server: nothing. */
void dci_server_event(
    struct dci_server *server, const struct dci_events_instance *event);

/* Connected consumers now; for tests and the log. */
size_t dci_server_client_count(const struct dci_server *server);

#endif
