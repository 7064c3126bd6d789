/*
 * An encoded AgentX answer written to the master's socket without letting
 * a master that stops reading hold the daemon's loop.
 *
 * Net-SNMP opens the AgentX socket blocking; the in-place path writes to
 * it with MSG_DONTWAIT and waits for room at most a bounded time in all.
 * An answer not written whole within that time ends the connection: the
 * socket is shut down both ways, so that Net-SNMP sees the connection end
 * and opens a new session. Cut after part of it, the answer would leave
 * the master's stream in the middle of a PDU, whatever came next read as
 * the rest of it. Not taken at all, it shows a master that has not read
 * for the whole wait; keeping that connection would let every answer
 * still to come (up to a full framing buffer of requests) hold the loop
 * for another wait, and Net-SNMP's own next write on the full socket (a
 * ping, an answer it builds) block it until the master reads, while a new
 * session costs one registration.
 */
#ifndef DCISTAT_AGENT_AGENTX_SEND_H
#define DCISTAT_AGENT_AGENTX_SEND_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the `length` bytes to the stream socket `socket`, waiting at most
 * `wait_milliseconds` in all for room; `*written` says how many were.
 * False with errno set when not all of them were (ETIMEDOUT when the wait
 * ran out); the socket is then shut down. */
bool agent_agentx_send(int socket, const unsigned char *bytes, size_t length,
    int wait_milliseconds, size_t *written);

#endif
