/*
 * The tables registered with the Net-SNMP agent of this process (dcistatd's
 * subagent, or snmpd itself for the module): one handler per table, which
 * decodes each request's name (agent/request_name.h) and answers it from
 * agent/tables.h; and a look at what else this process registered, which
 * decides whether the in-place AgentX path can answer for the agent.
 */
#ifndef DCISTAT_AGENT_REGISTRATION_H
#define DCISTAT_AGENT_REGISTRATION_H

#include <stdbool.h>

#include "agent/tables.h"

/* Registers one handler per table with the agent. Returns 0 or -1 (some may
 * be left registered: agent_registration_remove removes them). */
int agent_registration_add(struct agent_tables *tables);
void agent_registration_remove(void);

/* The tables registered, numbered from 0: false past the last one or when
 * that one is not registered; else the table's name, the root of its
 * subtree and its priority. */
bool agent_registration_root(unsigned number, const char **name,
    const oid **root, size_t *root_length, int *priority);

/* Marks the tables' subtrees in Net-SNMP's registry as attached to the
 * master: Net-SNMP's re-attachment after it opens a session to a master
 * then leaves them out (its registrations wait for each answer and only
 * log a refusal); agent/master_session.h registers them instead. */
void agent_registration_mark_attached(void);

/* True when the default context of this process's Net-SNMP registry holds
 * our table handlers and nothing else, so that every request the master
 * sends can be answered by agent_agentx_answer. */
bool agent_registration_alone(void);

#endif
