/* Prints every object the agent serves, and every notification and
 * notification object it sends, as "NAME NUMERIC-OID", so that
 * tests/mib/check_mib.sh can compare the compiled-in OIDs with the MIB. */
#include <stdio.h>

#include "agent/mib_oids.h"

/* Prints NAME and the arc, without a newline. */
static void
print_arc(const char *name)
{
	static const unsigned arc[] = {AGENT_MIB_ARC};

	for (size_t j = 0; j < AGENT_MIB_ARC_LENGTH; j++)
		printf(
		    "%s%s.%u", j == 0 ? name : "", j == 0 ? " " : "", arc[j]);
}

int
main(void)
{
	for (size_t i = 0; i < agent_mib_object_count; i++) {
		const struct agent_mib_object *object = &agent_mib_objects[i];

		print_arc(object->name);
		printf(".%u.%u", AGENT_MIB_OBJECTS, object->table);
		if (object->depth >= 1)
			printf(".1");
		if (object->depth >= 2)
			printf(".%u", object->column);
		printf("\n");
	}
	for (size_t i = 0; i < agent_mib_notification_object_count; i++) {
		print_arc(agent_mib_notification_objects[i].name);
		printf(".%u.%u.%u\n", AGENT_MIB_OBJECTS,
		    AGENT_MIB_NOTIFICATION_OBJECTS,
		    agent_mib_notification_objects[i].number);
	}
	for (size_t i = 0; i < agent_mib_notification_count; i++) {
		print_arc(agent_mib_notifications[i].name);
		printf(".%u.%u\n", AGENT_MIB_NOTIFICATIONS,
		    agent_mib_notifications[i].number);
	}
	return 0;
}
