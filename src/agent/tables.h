/*
 * The DCI-STATS-MIB tables: answers GET and GETNEXT for one table from the
 * registry's sorted classes, instances and datums (agent/table_index.h),
 * never from a cache of OIDs and never by reading a file. The master turns
 * each GETBULK repetition into one AgentX GetNext, so the cost of one
 * GETNEXT is what a walk costs per varbind: O(log n).
 *
 * Requests reach the tables through Net-SNMP's handlers
 * (agent/registration.h) or the in-place AgentX path
 * (agent/agentx_direct.h); both decode the requested name with
 * agent/request_name.h first.
 */
#ifndef DCISTAT_AGENT_TABLES_H
#define DCISTAT_AGENT_TABLES_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <stdbool.h>
#include <stdint.h>

#include "snmp/request_name.h"
#include "agent/timestamps.h"
#include "model/registry.h"

struct agent_tables {
	struct dci_registry *registry;
	/* Where the master's sysUpTime was 0, followed at each request. */
	struct agent_timestamps timestamps;
	/* Called once per request PDU, before the first of its varbinds that
	 * reaches a table is answered (inside snmpd, where there is no loop of
	 * our own to refresh from); NULL: nothing. */
	void (*before_request)(void);
	/* The clocks ST_TIME values are converted with, read at the first
	 * such value of a request (agent_tables_request_begin). */
	struct agent_clock_readings clocks;
	bool clocks_read;
	char text[DCI_STRING_MAX + 64];
};

enum agent_answer {
	AGENT_ANSWERED,
	AGENT_NO_SUCH_OBJECT,   /* GET: not a column of this table */
	AGENT_NO_SUCH_INSTANCE, /* GET: no such row in the column */
	AGENT_END_OF_TABLE,     /* GETNEXT: nothing after it in the table */
};

/* Starts a request: what the tables read once per request is read again. */
void agent_tables_request_begin(struct agent_tables *tables);

/* Answers one GET (exact) or GETNEXT of `request` in the table numbered
 * `table` (enum schema_table_number): on AGENT_ANSWERED the row's name is
 * in `name` and its value set on `varbind`, whose name is left alone. */
enum agent_answer agent_tables_answer_request(struct agent_tables *tables,
    unsigned table, bool next, const struct schema_request_name *request,
    struct schema_row_name *name, netsnmp_variable_list *varbind);

/* The same for a varbind's own name, which on AGENT_ANSWERED becomes the
 * row's. */
enum agent_answer agent_tables_answer(struct agent_tables *tables,
    unsigned table, bool next, netsnmp_variable_list *varbind);

/* One request of a GETBULK handed to a handler that registered with
 * HANDLER_CAN_GETBULK: answers its GETNEXT and, when the request's VACM
 * view holds the whole table, as many of its remaining repetitions
 * (request->repeat, in the varbinds the agent chained after it) as lie in
 * the table before the request's range end, in one call instead of one
 * pass of the agent per repetition. What is left is in the state Net-SNMP's
 * bulk_to_next helper leaves it in, for the agent's next pass. */
void agent_tables_answer_bulk(struct agent_tables *tables, unsigned table,
    netsnmp_agent_request_info *request_info, netsnmp_request_info *request);

#endif
