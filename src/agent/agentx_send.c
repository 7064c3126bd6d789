#define _GNU_SOURCE
#include "agent/agentx_send.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
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

/* The connection ended for want of room while `pdu` was sent, `written`
 * octets of it out: counted in the run, and logged at its 1st, 10th,
 * 100th... */
static void
no_room_log(const unsigned char *pdu, size_t length, size_t written,
    int wait_milliseconds)
{
	int64_t now = dci_clock_milliseconds();
	struct agent_agentx_header header = {0};
	char what[96];

	if (run_count > 0 &&
	    now - run_last > (int64_t)AGENT_AGENTX_RUN_GAP_SECONDS * 1000)
		run_count = 0;
	run_count++;
	run_last = now;
	if (!power_of_ten(run_count))
		return;
	if (!agent_agentx_decode_header(pdu, length, &header))
		snprintf(what, sizeof(what), "a PDU");
	else if (header.type == AGENTX_RESPONSE)
		snprintf(what, sizeof(what),
		    "the answer to its request %" PRIu32, header.packet);
	else if (header.type < sizeof(pdu_names) / sizeof(pdu_names[0]) &&
	         pdu_names[header.type] != NULL)
		snprintf(what, sizeof(what), "dcistatd's %s, packet %" PRIu32,
		    pdu_names[header.type], header.packet);
	else
		snprintf(what, sizeof(what),
		    "dcistatd's PDU of type %u, packet %" PRIu32,
		    (unsigned)header.type, header.packet);
	if (written > 0)
		log_warnx("agent: the AgentX master's socket had no room for "
		          "%d ms: %s (session %" PRIu32 ", transaction %" PRIu32
		          ") was cut after %zu of its %zu octets; the "
		          "connection is shut down and Net-SNMP opens a new "
		          "one (%lu ended so in a row, each within %d s of the "
		          "one before)",
		    wait_milliseconds, what, header.session, header.transaction,
		    written, length, run_count, AGENT_AGENTX_RUN_GAP_SECONDS);
	else
		log_warnx(
		    "agent: the AgentX master's socket had no room for "
		    "%d ms: %s (session %" PRIu32 ", transaction %" PRIu32
		    ", %zu octets) was not sent; the connection is shut "
		    "down and Net-SNMP opens a new one (%lu ended so in a "
		    "row, each within %d s of the one before)",
		    wait_milliseconds, what, header.session, header.transaction,
		    length, run_count, AGENT_AGENTX_RUN_GAP_SECONDS);
}

bool
agent_agentx_send_pdu(
    int socket, const unsigned char *pdu, size_t length, int wait_milliseconds)
{
	size_t written;

	if (agent_agentx_send(socket, pdu, length, wait_milliseconds, &written))
		return true;
	if (errno == ETIMEDOUT) {
		no_room_log(pdu, length, written, wait_milliseconds);
		errno = ETIMEDOUT;
	}
	return false;
}
