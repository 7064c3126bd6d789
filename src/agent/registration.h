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

/* True when the default context of this process's Net-SNMP registry holds
 * our table handlers and nothing else, so that every request the master
 * sends can be answered by agent_agentx_answer. */
bool agent_registration_alone(void);

#endif
