#include "agent/agentx_answer.h"

#include <string.h>

#include "snmp/mib_oids.h"

/* The tables in OID order: dciSupplierTable .. dciStatTable, then
 * dciClassData. */
#define FIRST_TABLE SCHEMA_TABLE_SUPPLIER
#define LAST_TABLE SCHEMA_CLASS_DATA
#define TABLE_SUBID (SCHEMA_MIB_ARC_LENGTH + 1) /* .1.<table> */

static const oid objects_prefix[] = {SCHEMA_MIB_ARC, SCHEMA_MIB_OBJECTS};

/* The table a name lies under, or 0. */
static unsigned
table_of(const struct schema_request_name *request)
{
	if (request->length <= TABLE_SUBID ||
	    schema_request_name_compare_prefix(
	        request, objects_prefix, TABLE_SUBID) != 0 ||
	    request->subids[TABLE_SUBID] < FIRST_TABLE ||
	    request->subids[TABLE_SUBID] > LAST_TABLE)
		return 0;
	return (unsigned)request->subids[TABLE_SUBID];
}

/* The first table a GETNEXT from `request` can find anything in; past
 * LAST_TABLE when there is none. */
static unsigned
first_table_after(const struct schema_request_name *request)
{
	int order = schema_request_name_compare_prefix(
	    request, objects_prefix, TABLE_SUBID);

	if (order < 0 || request->length <= TABLE_SUBID)
		return order > 0 ? LAST_TABLE + 1 : FIRST_TABLE;
	if (request->subids[TABLE_SUBID] < FIRST_TABLE)
		return FIRST_TABLE;
	return request->subids[TABLE_SUBID] > LAST_TABLE
	           ? LAST_TABLE + 1
	           : (unsigned)request->subids[TABLE_SUBID];
}

static void
answer_get(struct agent_tables *tables, netsnmp_variable_list *varbind)
{
	struct schema_request_name request;
	struct schema_row_name name;
	unsigned table;
	enum agent_answer answer;

	schema_request_name_decode(
	    varbind->name, varbind->name_length, &request);
	table = table_of(&request);
	answer = table == 0 ? AGENT_NO_SUCH_OBJECT
	                    : agent_tables_answer_request(tables, table, false,
	                          &request, &name, varbind);
	/* A GET's answer has the requested name: nothing to set. */
	if (answer == AGENT_NO_SUCH_OBJECT)
		snmp_set_var_typed_value(varbind, SNMP_NOSUCHOBJECT, NULL, 0);
	else if (answer == AGENT_NO_SUCH_INSTANCE)
		snmp_set_var_typed_value(varbind, SNMP_NOSUCHINSTANCE, NULL, 0);
}

/* The end of a SearchRange: `end_name` when it is an OID other than 0.0
 * (RFC 2741 5.2: the null OID, read as 0.0, means no end). False when
 * there is none. */
static bool
search_range_end(
    const oid *end_name, size_t length, struct schema_request_name *end)
{
	static const oid null_oid[] = {0, 0};

	if (end_name == NULL || length == 0 ||
	    (length == 2 && memcmp(end_name, null_oid, sizeof(null_oid)) == 0))
		return false;
	schema_request_name_decode(end_name, length, end);
	return true;
}

static void
answer_getnext(struct agent_tables *tables, netsnmp_variable_list *varbind,
    bool include, const oid *end_name, size_t end_length)
{
	struct schema_request_name start, end;
	struct schema_row_name name;
	bool has_end = search_range_end(end_name, end_length, &end);
	bool found = false;

	schema_request_name_decode(varbind->name, varbind->name_length, &start);
	if (include) {
		unsigned table = table_of(&start);
		found = table != 0 &&
		        agent_tables_answer_request(tables, table, false,
		            &start, &name, varbind) == AGENT_ANSWERED;
	}
	for (unsigned table = first_table_after(&start);
	     !found && table <= LAST_TABLE; table++)
		found = agent_tables_answer_request(tables, table, true, &start,
		            &name, varbind) == AGENT_ANSWERED;
	/* The end is exclusive. */
	if (found && has_end && schema_request_name_compare(&name, &end) >= 0)
		found = false;
	if (found)
		snmp_set_var_objid(varbind, name.subids, name.length);
	else
		snmp_set_var_typed_value(varbind, SNMP_ENDOFMIBVIEW, NULL, 0);
}

void
agent_agentx_answer_begin(struct agent_tables *tables)
{
	if (tables->before_request != NULL)
		tables->before_request();
	agent_timestamps_sync(&tables->timestamps);
	agent_tables_request_begin(tables);
}

void
agent_agentx_answer_range(struct agent_tables *tables, bool next,
    netsnmp_variable_list *varbind, bool include, const oid *end,
    size_t end_length)
{
	if (next)
		answer_getnext(tables, varbind, include, end, end_length);
	else
		answer_get(tables, varbind);
}

void
agent_agentx_answer(
    struct agent_tables *tables, bool next, netsnmp_variable_list *varbinds)
{
	agent_agentx_answer_begin(tables);
	for (netsnmp_variable_list *varbind = varbinds; varbind != NULL;
	     varbind = varbind->next_variable) {
		bool range = varbind->type == ASN_PRIV_INCL_RANGE ||
		             varbind->type == ASN_PRIV_EXCL_RANGE;
		agent_agentx_answer_range(tables, next, varbind,
		    varbind->type == ASN_PRIV_INCL_RANGE,
		    range ? varbind->val.objid : NULL,
		    range ? varbind->val_len / sizeof(oid) : 0);
	}
}
