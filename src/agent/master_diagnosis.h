/*
 * Why the AgentX master cannot be reached, in words an operator can act
 * on. Net-SNMP says only "Failed to connect to the agentx master agent
 * (PATH): " whatever the cause, the same for a master that is not there
 * and for a socket dcistatd may not open. Here the socket is looked at
 * (its file, its directory, a connect of our own) and the cause named
 * with what to do: `master agentx` in snmpd.conf for no socket,
 * `agentXPerms` and the group for a permission refused, a running snmpd
 * for a refused connection. No Net-SNMP here: it is plain POSIX.
 */
#ifndef DCISTAT_AGENT_MASTER_DIAGNOSIS_H
#define DCISTAT_AGENT_MASTER_DIAGNOSIS_H

#include <stddef.h>

/* The socket Net-SNMP's subagent opens when none is configured. */
#define AGENT_MASTER_DEFAULT_SOCKET "/var/agentx/master"

/* Writes into `why` (why_size bytes) one sentence: why the master at
 * `socket` (a path, or a Net-SNMP transport such as "tcp:localhost:705";
 * NULL for the default) cannot be reached now, and what to do about it. */
void agent_master_diagnose(const char *socket, char *why, size_t why_size);

/* Net-SNMP failed to connect to the master: logs the diagnosis, as a
 * warning, the first time and whenever the cause changes (a master that
 * stays away is said once, not at every ping interval). */
void agent_master_connect_failed(const char *socket);

/* A session to the master is open: the next failure is news again. */
void agent_master_connect_succeeded(void);

#endif
