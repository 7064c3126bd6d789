/*
 * The DCI-STATS-MIB tables: one Net-SNMP handler per table that answers GET
 * and GETNEXT from the registry's sorted classes, instances and datums
 * (agent/table_index.h), never from a cache of OIDs and never by reading a file.
 * The master turns each GETBULK repetition into one AgentX GetNext, so the
 * cost of one GETNEXT is what a walk costs per varbind: O(log n).
 */
#ifndef DCISTAT_AGENT_TABLES_H
#define DCISTAT_AGENT_TABLES_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/registry.h"

struct agent_tables {
	struct dci_registry *registry;
	/* Monotonic time at which the master's sysUpTime was 0, followed at
	 * each request (agent_tables_follow_uptime). */
	int64_t start_milliseconds;
	/* Called once per request PDU, before the first of its varbinds that
	 * reaches a table is answered (inside snmpd, where there is no loop of
	 * our own to refresh from); NULL: nothing. */
	void (*before_request)(void);
	char text[DCI_STRING_MAX + 64];
};

enum agent_answer {
	AGENT_ANSWERED,
	AGENT_NO_SUCH_OBJECT,   /* GET: not a column of this table */
	AGENT_NO_SUCH_INSTANCE, /* GET: no such row in the column */
	AGENT_END_OF_TABLE,     /* GETNEXT: nothing after it in the table */
};

/* Answers one GET (exact) or GETNEXT varbind for the table numbered
 * `table` (enum agent_table_number): on AGENT_ANSWERED the varbind's name
 * and value are set. Used by the handlers and by the unit tests. */
enum agent_answer agent_tables_answer(struct agent_tables *tables,
    unsigned table, bool next, netsnmp_variable_list *varbind);

/* Answers the varbinds of one AgentX Get (next false) or GetNext PDU in
 * place, as the registered handlers would through Net-SNMP's agent: GET
 * exceptions noSuchObject / noSuchInstance; a GetNext varbind is a
 * SearchRange (start name, end in the value, ASN_PRIV_INCL_RANGE or
 * ASN_PRIV_EXCL_RANGE) and becomes the next name and value across all
 * the tables, or the start with endOfMibView. */
void agent_tables_answer_agentx(
    struct agent_tables *tables, bool next, netsnmp_variable_list *varbinds);

/* True when the default context of this process's Net-SNMP registry holds
 * our table handlers and nothing else, so that every request the master
 * sends can be answered by agent_tables_answer_agentx. */
bool agent_tables_alone(void);

/* Registers one handler per table with the agent. Returns 0 or -1. */
int agent_tables_register(struct agent_tables *tables);
void agent_tables_unregister(void);

/* start_milliseconds is the moment the master's sysUpTime was 0, which
 * Net-SNMP's AgentX client tracks as its agent uptime (in snmpd: the moment
 * snmpd started). An uptime reading u, truncated to centiseconds, then a
 * clock reading now rounded up to the millisecond bound that moment from
 * above by now - 10 u, and from below by 10 ms less.
 *
 * agent_tables_find_start sets it once, to at most
 * AGENT_START_PRECISION_MILLISECONDS after that moment and never before: a
 * TimeStamp is then never later than a sysUpTime read after its event, and
 * behind it only for an event within that precision after a tick. It waits,
 * spinning, for Net-SNMP's uptime to tick between two close readings (10 ms,
 * 50 at most on a loaded machine).
 *
 * agent_tables_follow_uptime then leaves it alone while the bounds stay
 * within AGENT_UPTIME_TOLERANCE_MILLISECONDS of it, so that one TimeStamp
 * never reads differently in two requests as the bounds jitter with the
 * 10 ms grain; past that (a master that restarted, or a subagent's first
 * synchronisation with its master) it takes the bound and returns true, and
 * agent_tables_sync_uptime, which reads the uptime and then the clock at
 * each request, finds the start again. A subagent's Net-SNMP learns the
 * master's sysUpTime in centiseconds, so its TimeStamps may read one tick
 * behind the master's sysUpTime; never ahead of it. */
#define AGENT_UPTIME_TOLERANCE_MILLISECONDS 100
#define AGENT_START_PRECISION_MILLISECONDS 2
void agent_tables_find_start(struct agent_tables *tables);
bool agent_tables_follow_uptime(struct agent_tables *tables,
    int64_t now_milliseconds_up, uint32_t uptime_centiseconds);
void agent_tables_sync_uptime(struct agent_tables *tables);

/* sysUpTime-relative centiseconds of a monotonic millisecond stamp; 0 for
 * stamps before the agent started (a TimeStamp's convention). */
uint32_t agent_tables_timestamp(
    const struct agent_tables *tables, int64_t milliseconds);

#endif
