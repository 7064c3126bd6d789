/* Prints every object the agent serves as "NAME NUMERIC-OID", so that
 * tests/mib/check_mib.sh can compare the compiled-in OIDs with the MIB. */
#include <stdio.h>

#include "agent/mib_oids.h"

int
main(void)
{
	static const unsigned arc[] = {AGENT_MIB_ARC};

	for (size_t i = 0; i < agent_mib_object_count; i++) {
		const struct agent_mib_object *object = &agent_mib_objects[i];

		for (size_t j = 0; j < AGENT_MIB_ARC_LENGTH; j++)
			printf("%s%s.%u", j == 0 ? object->name : "",
			    j == 0 ? " " : "", arc[j]);
		printf(".%u.%u", AGENT_MIB_OBJECTS, object->table);
		if (object->depth >= 1)
			printf(".1");
		if (object->depth >= 2)
			printf(".%u", object->column);
		printf("\n");
	}
	return 0;
}
