/*
 * A requested OID as the tables read it: bounded and normalised once, where
 * it is read from the request, so that no later comparison sees a raw
 * sub-identifier or an unbounded length.
 *
 * Bound: every name the agent serves is shorter than SCHEMA_REQUEST_NAME_MAX
 * sub-identifiers, so a longer request is kept to its first
 * SCHEMA_REQUEST_NAME_MAX, which sorts against every served name exactly as
 * the whole request does (they differ before the cut, or the served name is
 * a prefix of both). A GET of a truncated name finds nothing, as it must;
 * the GETNEXT after it is the GETNEXT after the request.
 *
 * Normalisation: Net-SNMP's AgentX subagent code sign-extends
 * sub-identifiers of 2^31 and above into its 64-bit oid (2172947406
 * arrives as 0xffffffff81848bce); such a value is the 32-bit number the
 * manager sent. Anything else is taken as it is, so that a sub-identifier
 * above 2^32 - 1 (only possible inside snmpd) still sorts after every row.
 */
#ifndef DCISTAT_SNMP_REQUEST_NAME_H
#define DCISTAT_SNMP_REQUEST_NAME_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snmp/mib_oids.h"
#include "snmp/table_index.h"

/* .arc.1.table.1.column: the entry of a table and a column. */
#define SCHEMA_ENTRY_PREFIX_LENGTH (SCHEMA_MIB_ARC_LENGTH + 3)
/* The longest name the agent serves: an entry, a column and an index. */
#define SCHEMA_ROW_NAME_MAX (SCHEMA_ENTRY_PREFIX_LENGTH + 1 + SCHEMA_INDEX_MAX)
/* Longer than any served name (see above), and no more than Net-SNMP's own
 * limit for the names it builds. */
#define SCHEMA_REQUEST_NAME_MAX MAX_OID_LEN

struct schema_request_name {
	uint64_t subids[SCHEMA_REQUEST_NAME_MAX];
	size_t length;
	bool
	    truncated; /* the request was longer than SCHEMA_REQUEST_NAME_MAX */
};

/* A name the tables answer with. */
struct schema_row_name {
	oid subids[SCHEMA_ROW_NAME_MAX];
	size_t length;
};

/* Reads `length` sub-identifiers of `name` into `request`; `name` may be
 * NULL when `length` is 0. */
void schema_request_name_decode(
    const oid *name, size_t length, struct schema_request_name *request);

/* -1, 0 or 1 as `row` sorts before, equal to or after `request`, in OID
 * order. A truncated request is longer than every row. */
int schema_request_name_compare(const struct schema_row_name *row,
    const struct schema_request_name *request);

/* The order of the request against a prefix of the agent's own, over the
 * sub-identifiers both have: 0 when the request starts with the prefix or
 * is a prefix of it. */
int schema_request_name_compare_prefix(
    const struct schema_request_name *request, const oid *prefix,
    size_t length);

/* Writes the SCHEMA_ENTRY_PREFIX_LENGTH sub-identifiers of a table's entry
 * (.arc.1.table.1) to `name`. */
void schema_entry_prefix(unsigned table, oid *name);

#endif
