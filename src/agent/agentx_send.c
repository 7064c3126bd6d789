#define _GNU_SOURCE
#include "agent/agentx_send.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "agent/agentx_decode.h"
#include "base/clock.h"
#include "base/log.h"

/* RFC 2741's PDU types, by number, for the log. */
static const char *const pdu_names[] = {NULL, "Open", "Close", "Register",
    "Unregister", "Get", "GetNext", "GetBulk", "TestSet", "CommitSet",
    "UndoSet", "CleanupSet", "Notify", "Ping", "IndexAllocate",
    "IndexDeallocate", "AddAgentCaps", "RemoveAgentCaps", "Response"};
#define AGENTX_RESPONSE 18

/* The current run of connections ended for want of room: how many, and
 * when the last one was. */
static unsigned long run_count;
static int64_t run_last;

/* Waits for room until `deadline`; false with errno set when there is
 * none by then. */
static bool
wait_writable(int socket, int64_t deadline)
{
	for (;;) {
		struct pollfd writable = {socket, POLLOUT, 0};
		int64_t left = deadline - dci_clock_milliseconds();
		int ready;

		if (left <= 0) {
			errno = ETIMEDOUT;
			return false;
		}
		ready = poll(
		    &writable, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (ready > 0)
			return true;
		if (ready < 0 && errno != EINTR)
			return false;
	}
}

bool
agent_agentx_send(int socket, const unsigned char *bytes, size_t length,
    int wait_milliseconds, size_t *written_out)
{
	size_t written = 0;
	int64_t deadline = -1;

	while (written < length) {
		ssize_t sent = send(socket, bytes + written, length - written,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent > 0) {
			written += (size_t)sent;
			continue;
		}
		if (sent == 0)
			errno = EIO;
		else if (errno == EINTR)
			continue;
		if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (deadline < 0)
				deadline = dci_clock_milliseconds() +
				           wait_milliseconds;
			if (wait_writable(socket, deadline))
				continue;
		}
		/* Cut short, or not taken at all within the wait: either way
		 * the connection goes (see agentx_send.h). */
		{
			int saved = errno;
			shutdown(socket, SHUT_RDWR);
			errno = saved;
		}
		*written_out = written;
		return false;
	}
	*written_out = written;
	return true;
}

/* Whether `count` is 1, 10, 100 and so on. */
static bool
power_of_ten(unsigned long count)
{
	while (count >= 10 && count % 10 == 0)
		count /= 10;
	return count == 1;
}

/* The connection ended for want of room while the PDU of `header` (NULL:
 * unknown) was sent, `written` of its `length` octets out: counted in the
 * run, and logged at its 1st, 10th, 100th... */
static void
no_room_log(const struct agent_agentx_header *header, size_t length,
    size_t written, int wait_milliseconds, bool overflow)
{
	static const struct agent_agentx_header unknown = {0};
	int64_t now = dci_clock_milliseconds();
	char what[96], how_long[64];

	if (run_count > 0 &&
	    now - run_last > (int64_t)AGENT_AGENTX_RUN_GAP_SECONDS * 1000)
		run_count = 0;
	run_count++;
	run_last = now;
	if (!power_of_ten(run_count))
		return;
	if (overflow)
		snprintf(how_long, sizeof(how_long),
		    "for more than the %d octets that may wait",
		    AGENT_AGENTX_WAITING_MAX);
	else
		snprintf(
		    how_long, sizeof(how_long), "for %d ms", wait_milliseconds);
	if (header == NULL) {
		header = &unknown;
		snprintf(what, sizeof(what), "a PDU");
	} else if (header->type == AGENTX_RESPONSE) {
		snprintf(what, sizeof(what),
		    "the answer to its request %" PRIu32, header->packet);
	} else if (header->type < sizeof(pdu_names) / sizeof(pdu_names[0]) &&
	           pdu_names[header->type] != NULL) {
		snprintf(what, sizeof(what), "dcistatd's %s, packet %" PRIu32,
		    pdu_names[header->type], header->packet);
	} else {
		snprintf(what, sizeof(what),
		    "dcistatd's PDU of type %u, packet %" PRIu32,
		    (unsigned)header->type, header->packet);
	}
	if (written > 0)
		log_warnx("agent: the AgentX master's socket had no room "
		          "%s: %s (session %" PRIu32 ", transaction %" PRIu32
		          ") was cut after %zu of its %zu octets; the "
		          "connection is shut down and Net-SNMP opens a new "
		          "one (%lu ended so in a row, each within %d s of the "
		          "one before)",
		    how_long, what, header->session, header->transaction,
		    written, length, run_count, AGENT_AGENTX_RUN_GAP_SECONDS);
	else
		log_warnx(
		    "agent: the AgentX master's socket had no room "
		    "%s: %s (session %" PRIu32 ", transaction %" PRIu32
		    ", %zu octets) was not sent; the connection is shut "
		    "down and Net-SNMP opens a new one (%lu ended so in a "
		    "row, each within %d s of the one before)",
		    how_long, what, header->session, header->transaction,
		    length, run_count, AGENT_AGENTX_RUN_GAP_SECONDS);
}

/* The waiting buffer kept between two waits. */
#define WAITING_KEPT 65536

/*
 * What the master's socket did not take yet: whole PDUs, the first of them
 * perhaps begun. `front` is the first not written whole, which began at
 * `front_begin` (before `start` when it was begun) and ends at
 * `front_end`, offsets in `bytes`.
 */
static struct {
	int socket; /* -1: nothing waits */
	unsigned char *bytes;
	size_t size, start, end;
	struct agent_agentx_header front;
	bool front_known;
	int64_t front_begin, front_end;
	int64_t deadline; /* room by then, or the connection ends */
	int wait;
} waiting = {.socket = -1};

/* Nothing waits any more; a buffer of the usual size is kept. */
static void
waiting_clear(void)
{
	waiting.socket = -1;
	waiting.start = waiting.end = 0;
	if (waiting.size > WAITING_KEPT) {
		free(waiting.bytes);
		waiting.bytes = NULL;
		waiting.size = 0;
	}
}

/* The PDU at offset `at` of the waiting bytes becomes the front. */
static void
front_set(int64_t at)
{
	waiting.front_begin = at;
	waiting.front_known =
	    agent_agentx_decode_header(waiting.bytes + (size_t)at,
	        waiting.end - (size_t)at, &waiting.front);
	waiting.front_end =
	    at + (waiting.front_known
	                 ? (int64_t)agent_agentx_pdu_length(&waiting.front)
	                 : (int64_t)(waiting.end - (size_t)at));
}

/* Ends the connection for want of room (`overflow`: too much waiting):
 * logged with the front PDU. */
static void
waiting_end(bool overflow)
{
	int64_t length = waiting.front_end - waiting.front_begin;
	int64_t written = (int64_t)waiting.start - waiting.front_begin;

	no_room_log(waiting.front_known ? &waiting.front : NULL, (size_t)length,
	    written > 0 ? (size_t)written : 0, waiting.wait, overflow);
	shutdown(waiting.socket, SHUT_RDWR);
	waiting_clear();
}

/* Appends `length` bytes; false when that would hold more than
 * AGENT_AGENTX_WAITING_MAX or memory runs out. */
static bool
waiting_append(const unsigned char *bytes, size_t length)
{
	size_t held = waiting.end - waiting.start;

	if (length > AGENT_AGENTX_WAITING_MAX - held)
		return false;
	if (waiting.end + length > waiting.size) {
		if (waiting.start > 0) {
			memmove(
			    waiting.bytes, waiting.bytes + waiting.start, held);
			waiting.front_begin -= (int64_t)waiting.start;
			waiting.front_end -= (int64_t)waiting.start;
			waiting.start = 0;
			waiting.end = held;
		}
		if (held + length > waiting.size) {
			size_t size =
			    waiting.size == 0 ? WAITING_KEPT : waiting.size;
			unsigned char *grown;

			while (size < held + length)
				size *= 2;
			if (size > AGENT_AGENTX_WAITING_MAX)
				size = AGENT_AGENTX_WAITING_MAX;
			grown = realloc(waiting.bytes, size);
			if (grown == NULL)
				return false;
			waiting.bytes = grown;
			waiting.size = size;
		}
	}
	memcpy(waiting.bytes + waiting.end, bytes, length);
	waiting.end += length;
	return true;
}

/* Writes what waits without blocking; false with errno set when the
 * socket failed (not for want of room). Moves the front and, when
 * anything went out, the deadline. */
static bool
waiting_write(int64_t now)
{
	bool progress = false;

	while (waiting.start < waiting.end) {
		ssize_t sent = send(waiting.socket,
		    waiting.bytes + waiting.start, waiting.end - waiting.start,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent > 0) {
			waiting.start += (size_t)sent;
			progress = true;
			continue;
		}
		if (sent < 0 && errno == EINTR)
			continue;
		if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (sent == 0)
			errno = EIO;
		return false;
	}
	if (waiting.start == waiting.end) {
		waiting_clear();
		return true;
	}
	while ((int64_t)waiting.start >= waiting.front_end)
		front_set(waiting.front_end);
	if (progress)
		waiting.deadline = now + waiting.wait;
	return true;
}

bool
agent_agentx_send_pdu(
    int socket, const unsigned char *pdu, size_t length, int wait_milliseconds)
{
	ssize_t sent = 0;

	if (waiting.socket >= 0 && waiting.socket != socket)
		waiting_clear();
	if (waiting.socket == socket) {
		/* Behind what waits, whole: never between two parts of a
		 * PDU. */
		if (!waiting_append(pdu, length)) {
			waiting_end(true);
			errno = ENOBUFS;
			return false;
		}
		return true;
	}
	for (;;) {
		sent = send(socket, pdu, length, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent >= 0 || errno != EINTR)
			break;
	}
	if (sent == (ssize_t)length)
		return true;
	if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		int saved = errno;
		shutdown(socket, SHUT_RDWR);
		errno = saved;
		return false;
	}
	if (sent < 0)
		sent = 0;
	/* The rest waits for room, the loop polling for it. */
	waiting.socket = socket;
	waiting.start = waiting.end = 0;
	waiting.wait = wait_milliseconds;
	waiting.deadline = dci_clock_milliseconds() + wait_milliseconds;
	if (!waiting_append(pdu + sent, length - (size_t)sent)) {
		waiting.front_known =
		    agent_agentx_decode_header(pdu, length, &waiting.front);
		waiting.front_begin = -(int64_t)sent;
		waiting.front_end = (int64_t)(length - (size_t)sent);
		waiting.start = 0;
		waiting_end(true);
		errno = ENOBUFS;
		return false;
	}
	waiting.front_known =
	    agent_agentx_decode_header(pdu, length, &waiting.front);
	waiting.front_begin = -(int64_t)sent;
	waiting.front_end = (int64_t)(length - (size_t)sent);
	return true;
}

int
agent_agentx_waiting_socket(void)
{
	return waiting.socket;
}

int64_t
agent_agentx_waiting_deadline(void)
{
	return waiting.socket >= 0 ? waiting.deadline : INT64_MAX;
}

void
agent_agentx_waiting_run(int64_t now, bool writable)
{
	if (waiting.socket < 0)
		return;
	if (writable && !waiting_write(now)) {
		int saved = errno;
		shutdown(waiting.socket, SHUT_RDWR);
		waiting_clear();
		errno = saved;
		return;
	}
	if (waiting.socket >= 0 && now >= waiting.deadline)
		waiting_end(false);
}

void
agent_agentx_waiting_flush(int wait_milliseconds)
{
	size_t written;

	if (waiting.socket < 0)
		return;
	waiting.wait = wait_milliseconds;
	if (agent_agentx_send(waiting.socket, waiting.bytes + waiting.start,
	        waiting.end - waiting.start, wait_milliseconds, &written)) {
		waiting_clear();
		return;
	}
	if (errno == ETIMEDOUT) {
		waiting.start += written;
		while ((int64_t)waiting.start >= waiting.front_end &&
		       waiting.start < waiting.end)
			front_set(waiting.front_end);
		no_room_log(waiting.front_known ? &waiting.front : NULL,
		    (size_t)(waiting.front_end - waiting.front_begin),
		    (size_t)((int64_t)waiting.start - waiting.front_begin),
		    wait_milliseconds, false);
	}
	waiting_clear();
}

void
agent_agentx_waiting_drop(void)
{
	waiting_clear();
}
