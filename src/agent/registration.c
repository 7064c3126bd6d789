#include "agent/registration.h"

#include <string.h>

#include <net-snmp/agent/null.h>

#include "snmp/mib_oids.h"
#include "base/log.h"

#define BEFORE_REQUEST_MARK "dcistatBeforeRequest"

/* Runs tables->before_request at the first table varbind of a PDU: a mark
 * in the PDU's request info, freed with it, says it ran. */
static void
before_request_once(
    struct agent_tables *tables, netsnmp_agent_request_info *request_info)
{
	netsnmp_data_list *mark;

	if (tables->before_request == NULL ||
	    netsnmp_agent_get_list_data(request_info, BEFORE_REQUEST_MARK) !=
	        NULL)
		return;
	mark = netsnmp_create_data_list(BEFORE_REQUEST_MARK, tables, NULL);
	if (mark != NULL)
		netsnmp_agent_add_list_data(request_info, mark);
	tables->before_request();
}

static int
registration_handle(netsnmp_mib_handler *handler,
    netsnmp_handler_registration *registration,
    netsnmp_agent_request_info *request_info, netsnmp_request_info *requests)
{
	struct agent_tables *tables = handler->myvoid;
	unsigned table =
	    (unsigned)registration->rootoid[registration->rootoid_len - 1];

	before_request_once(tables, request_info);
	agent_timestamps_sync(&tables->timestamps);
	agent_tables_request_begin(tables);

	for (netsnmp_request_info *request = requests; request != NULL;
	     request = request->next) {
		enum agent_answer answer;

		if (request->processed)
			continue;
		switch (request_info->mode) {
		case MODE_GET:
			answer = agent_tables_answer(
			    tables, table, false, request->requestvb);
			if (answer == AGENT_NO_SUCH_OBJECT)
				netsnmp_set_request_error(
				    request_info, request, SNMP_NOSUCHOBJECT);
			else if (answer == AGENT_NO_SUCH_INSTANCE)
				netsnmp_set_request_error(
				    request_info, request, SNMP_NOSUCHINSTANCE);
			break;
		case MODE_GETNEXT:
			/* At the end of the table the varbind is left as it
			 * came: the agent then asks the next registration. */
			agent_tables_answer(
			    tables, table, true, request->requestvb);
			break;
		case MODE_GETBULK:
			agent_tables_answer_bulk(
			    tables, table, request_info, request);
			break;
		default:
			netsnmp_set_request_error(
			    request_info, request, SNMP_ERR_NOTWRITABLE);
			break;
		}
	}
	return SNMP_ERR_NOERROR;
}

static netsnmp_handler_registration *registrations[SCHEMA_CLASS_DATA + 1];

int
agent_registration_add(struct agent_tables *tables)
{
	for (unsigned table = SCHEMA_TABLE_SUPPLIER; table <= SCHEMA_CLASS_DATA;
	     table++) {
		oid root[SCHEMA_ENTRY_PREFIX_LENGTH];
		const char *name = schema_table_name(table);
		netsnmp_mib_handler *handler;

		schema_entry_prefix(table, root);
		handler = netsnmp_create_handler(name, registration_handle);
		if (handler == NULL)
			return -1;
		handler->myvoid = tables;
		registrations[table] = netsnmp_handler_registration_create(name,
		    handler, root, SCHEMA_ENTRY_PREFIX_LENGTH - 1,
		    HANDLER_CAN_RONLY | HANDLER_CAN_GETBULK);
		if (registrations[table] == NULL ||
		    netsnmp_register_handler(registrations[table]) !=
		        MIB_REGISTERED_OK) {
			log_warnx("agent: cannot register %s", name);
			return -1;
		}
		log_debug("agent", "registered %s", name);
	}
	return 0;
}

/* A registration's handler chain ends in ours, or is Net-SNMP's null
 * handler (the placeholders of the roots 0, 1 and 2, which answer nothing
 * in any case). */
static bool
registration_ours(const netsnmp_handler_registration *registration, bool *null)
{
	const netsnmp_mib_handler *handler =
	    registration != NULL ? registration->handler : NULL;

	if (handler == NULL)
		return false;
	if (handler->access_method == netsnmp_null_handler &&
	    handler->next == NULL) {
		*null = true;
		return true;
	}
	while (handler->next != NULL)
		handler = handler->next;
	*null = false;
	return handler->access_method == registration_handle;
}

bool
agent_registration_alone(void)
{
	unsigned ours = 0;

	for (netsnmp_subtree *subtree = netsnmp_subtree_find_first("");
	     subtree != NULL; subtree = subtree->next) {
		for (netsnmp_subtree *child = subtree; child != NULL;
		     child = child->children) {
			bool null;

			if (!registration_ours(child->reginfo, &null))
				return false;
			ours += !null;
		}
	}
	return ours > 0;
}

bool
agent_registration_root(unsigned number, const char **name, const oid **root,
    size_t *root_length, int *priority)
{
	const netsnmp_handler_registration *registration;

	if (number > SCHEMA_CLASS_DATA - SCHEMA_TABLE_SUPPLIER)
		return false;
	registration = registrations[SCHEMA_TABLE_SUPPLIER + number];
	if (registration == NULL)
		return false;
	*name = registration->handlerName;
	*root = registration->rootoid;
	*root_length = registration->rootoid_len;
	*priority = registration->priority;
	return true;
}

void
agent_registration_mark_attached(void)
{
	for (netsnmp_subtree *subtree = netsnmp_subtree_find_first("");
	     subtree != NULL; subtree = subtree->next) {
		for (netsnmp_subtree *child = subtree; child != NULL;
		     child = child->children) {
			bool null;

			if (registration_ours(child->reginfo, &null) && !null)
				child->flags |= SUBTREE_ATTACHED;
		}
	}
}

void
agent_registration_remove(void)
{
	for (unsigned table = SCHEMA_TABLE_SUPPLIER; table <= SCHEMA_CLASS_DATA;
	     table++) {
		if (registrations[table] != NULL)
			netsnmp_unregister_handler(registrations[table]);
		registrations[table] = NULL;
	}
}
