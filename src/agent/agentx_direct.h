/*
 * AgentX Get and GetNext answered where they are read.
 *
 * Net-SNMP's subagent (handle_agentx_packet) passes every request from the
 * master to its own agent through a "callback" session: the request PDU is
 * cloned, queued and announced by a byte written to a pipe; the loop
 * selects, reads the byte and runs the agent, whose response takes the
 * same way back through a second pipe before it is cloned again and sent
 * to the master. That is six system calls and three PDU copies per request
 * on top of the receive and the send, and the master sends one request per
 * varbind of a walk.
 *
 * When our tables are all this process registered
 * (agent_registration_alone), the AgentX socket's receive function reads
 * what the master sends into a bounded framing buffer
 * (agent/agentx_stream.h), decodes each Get and GetNext of the default
 * context itself (agent/agentx_decode.h) into varbinds kept from one
 * request to the next, answers them with agent_agentx_answer_range and
 * sends the response at once, encoded by agent_agentx_encode_response
 * (agent/agentx_encode.h) into a buffer kept likewise: no PDU is parsed,
 * allocated or built by Net-SNMP. Everything else (sets, GetBulk, a
 * non-default context, pings and responses, a PDU that does not decode in
 * full, and whatever follows it in the same read) is handed to Net-SNMP's
 * reader as it came, in order; the session's callback still answers a Get
 * or GetNext that reaches it that way. Answers are written without
 * blocking (agent/agentx_send.h).
 *
 * It relies on Net-SNMP internals no header promises: the AgentX PDU types
 * and flags (from a header Net-SNMP does not install), the ping alarm the
 * subagent keeps in the session's securityModel, the session's callback
 * and its transport's receive function. So it runs only where it was
 * tested: `auto` enables it on the Net-SNMP versions listed in
 * agentx_direct.c and otherwise logs why the standard path is used; `on`
 * forces it (with a warning on other versions); `off` never uses it.
 */
#ifndef DCISTAT_AGENT_AGENTX_DIRECT_H
#define DCISTAT_AGENT_AGENTX_DIRECT_H

#include <stdbool.h>

#include "agent/tables.h"
#include "config/config.h"

/* Decides from `mode` and the running Net-SNMP's version whether to answer
 * in place (logged), and if so takes over each AgentX session to the
 * master as it opens. Call before init_snmp. */
void agent_direct_setup(
    struct agent_tables *tables, enum dci_config_in_place mode);

/* The AgentX socket while its Get and GetNext requests are answered in
 * place, else -1. */
int agent_direct_socket(void);
/* Whether that socket is read by the in-place path's own receive function
 * (a Unix stream socket), which replaces Net-SNMP's. */
bool agent_direct_reads(void);
/* Bytes the master sent are held, read and not yet answered or handed to
 * Net-SNMP (a whole PDU, or more than Net-SNMP's reader took at once): the
 * loop must read the AgentX socket again without waiting. */
bool agent_direct_held(void);
/* A request has been handed to Net-SNMP's agent (whose callback pipes
 * then carry it and its response) since the last agent_direct_idle: the
 * loop must wait on all of Net-SNMP's descriptors. */
bool agent_direct_pending(void);
/* The loop waited on all descriptors and none but the AgentX socket was
 * ready: Net-SNMP's callback pipes are idle. */
void agent_direct_idle(void);

#endif
