/*
 * An encoded AgentX PDU written to the master's socket without letting a
 * master that stops reading hold the daemon's loop: the in-place path's
 * answers, and everything Net-SNMP sends on the session (the answers it
 * builds, GetBulk's among them, pings, registrations, notifications, the
 * Close), whose transport sends through here (agent/master_session.h).
 *
 * Net-SNMP opens the AgentX socket blocking; a PDU is written to it with
 * MSG_DONTWAIT. What the socket does not take waits in a buffer (at most
 * AGENT_AGENTX_WAITING_MAX), the PDUs sent meanwhile behind it, whole and
 * in order, and the loop polls the socket for room and writes it
 * (agent_agentx_waiting_run): the loop never waits for the master. When
 * the socket takes nothing of it for the wait, or the buffer would
 * overflow, the connection ends: the socket is shut down both ways, what
 * waits is dropped, and Net-SNMP sees the connection end and opens a new
 * session. Keeping it would leave the master's stream in the middle of a
 * PDU (whatever came next read as the rest of it) or, for a master that
 * has not read for the whole wait, the buffer growing, while a new session
 * costs one registration.
 *
 * Such an end is logged with the PDU (its type and identifiers, and how
 * much of it went out): the first of a run of connections so ended, then
 * the 10th, the 100th and so on, so that a master that never reads cannot
 * fill the log one reconnection at a time. A run lasts while each
 * connection so ended comes within AGENT_AGENTX_RUN_GAP_SECONDS of the one
 * before; what was written whole in between does not end it, as a master
 * that reads the Open and the registrations of every new session and then
 * stops reading writes them all.
 */
#ifndef DCISTAT_AGENT_AGENTX_SEND_H
#define DCISTAT_AGENT_AGENTX_SEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How long the master's socket may take nothing of what waits. */
#define AGENT_AGENTX_SEND_WAIT_MILLISECONDS 1000
/* The most octets waiting for the master to read: several of the longest
 * answers the in-place path encodes. */
#define AGENT_AGENTX_WAITING_MAX (4 * 1024 * 1024)
/* Connections ended for want of room further apart than this start a new
 * run (logged again from its first). */
#define AGENT_AGENTX_RUN_GAP_SECONDS 60

/* Writes the `length` bytes to the stream socket `socket`, waiting at most
 * `wait_milliseconds` in all for room; `*written` says how many were.
 * False with errno set when not all of them were (ETIMEDOUT when the wait
 * ran out); the socket is then shut down. */
bool agent_agentx_send(int socket, const unsigned char *bytes, size_t length,
    int wait_milliseconds, size_t *written);

/* Sends the whole AgentX PDU `pdu` on `socket`, or what the socket does
 * not take after what already waits (the wait `wait_milliseconds` from
 * now, if nothing waited). False with errno set when the connection ended
 * instead: ENOBUFS for want of room (logged as above), else the send's
 * error. */
bool agent_agentx_send_pdu(
    int socket, const unsigned char *pdu, size_t length, int wait_milliseconds);

/* The socket whose output waits for room (for the loop to poll for
 * POLLOUT), else -1; and by when it must take some (INT64_MAX: nothing
 * waits), on the clock of base/clock.h. */
int agent_agentx_waiting_socket(void);
int64_t agent_agentx_waiting_deadline(void);
/* Called by the loop at each wake-up: writes what waits when the socket
 * was seen `writable`, and ends the connection when the deadline passed. */
void agent_agentx_waiting_run(int64_t now, bool writable);
/* At the stop: writes what waits, waiting at most `wait_milliseconds` for
 * room (the connection ended otherwise). */
void agent_agentx_waiting_flush(int wait_milliseconds);
/* The connection is gone (or a new one opened): what waited is dropped. */
void agent_agentx_waiting_drop(void);

#endif
