/* Prints every object the agent serves, and every notification and
 * notification object it sends, as "NAME NUMERIC-OID", so that
 * tests/mib/check_mib.sh can compare the compiled-in OIDs with the MIB. */
#include <stdio.h>

#include "snmp/mib_oids.h"

/* Prints NAME and the arc, without a newline. */
static void
print_arc(const char *name)
{
	static const unsigned arc[] = {SCHEMA_MIB_ARC};

	for (size_t j = 0; j < SCHEMA_MIB_ARC_LENGTH; j++)
		printf(
		    "%s%s.%u", j == 0 ? name : "", j == 0 ? " " : "", arc[j]);
}

int
main(void)
{
	for (size_t i = 0; i < schema_mib_object_count; i++) {
		const struct schema_mib_object *object = &schema_mib_objects[i];

		print_arc(object->name);
		printf(".%u.%u", SCHEMA_MIB_OBJECTS, object->table);
		if (object->depth >= 1)
			printf(".1");
		if (object->depth >= 2)
			printf(".%u", object->column);
		printf("\n");
	}
	for (size_t i = 0; i < schema_mib_notification_object_count; i++) {
		print_arc(schema_mib_notification_objects[i].name);
		printf(".%u.%u.%u\n", SCHEMA_MIB_OBJECTS,
		    SCHEMA_MIB_NOTIFICATION_OBJECTS,
		    schema_mib_notification_objects[i].number);
	}
	for (size_t i = 0; i < schema_mib_notification_count; i++) {
		print_arc(schema_mib_notifications[i].name);
		printf(".%u.%u\n", SCHEMA_MIB_NOTIFICATIONS,
		    schema_mib_notifications[i].number);
	}
	return 0;
}
