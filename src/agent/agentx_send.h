/*
 * An encoded AgentX PDU written to the master's socket without letting a
 * master that stops reading hold the daemon's loop: the in-place path's
 * answers, and everything Net-SNMP sends on the session (the answers it
 * builds, GetBulk's among them, pings, registrations, notifications, the
 * Close), whose transport sends through here (agent/master_session.h).
 *
 * Net-SNMP opens the AgentX socket blocking; a PDU is written to it with
 * MSG_DONTWAIT, waiting for room at most a bounded time in all. A PDU not
 * written whole within that time ends the connection: the socket is shut
 * down both ways, so that Net-SNMP sees the connection end and opens a new
 * session. Cut after part of it, the PDU would leave the master's stream
 * in the middle of a PDU, whatever came next read as the rest of it. Not
 * taken at all, it shows a master that has not read for the whole wait;
 * keeping that connection would let every PDU still to come (up to a full
 * framing buffer of answers) hold the loop for another wait, while a new
 * session costs one registration.
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

/* How long a full socket may hold up one PDU's send. */
#define AGENT_AGENTX_SEND_WAIT_MILLISECONDS 1000
/* Connections ended for want of room further apart than this start a new
 * run (logged again from its first). */
#define AGENT_AGENTX_RUN_GAP_SECONDS 60

/* Writes the `length` bytes to the stream socket `socket`, waiting at most
 * `wait_milliseconds` in all for room; `*written` says how many were.
 * False with errno set when not all of them were (ETIMEDOUT when the wait
 * ran out); the socket is then shut down. */
bool agent_agentx_send(int socket, const unsigned char *bytes, size_t length,
    int wait_milliseconds, size_t *written);

/* agent_agentx_send of the whole AgentX PDU `pdu`; a connection it ends
 * for want of room (ETIMEDOUT) is logged as above. False with errno set
 * when the PDU was not written whole. */
bool agent_agentx_send_pdu(
    int socket, const unsigned char *pdu, size_t length, int wait_milliseconds);

#endif
