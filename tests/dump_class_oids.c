/*
 * dump_class_oids CONFIG: loads the providers of CONFIG as `dcistatd --mib`
 * does and prints, as "NAME NUMERIC-OID" lines, the table, entry and
 * datum columns of every class's per-class table at the OID the agent
 * serves it: SCHEMA_MIB_ARC . SCHEMA_MIB_OBJECTS . SCHEMA_CLASS_DATA . class
 * id levels . 1 . datum id (src/agent/mib_oids.h). Names are the
 * generator's (mib_generator_descriptor); the OIDs are computed here from the
 * registry, not taken from the module, so tests/mib/check_generated_mibs.sh
 * can check the module's OIDs against them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mib/mib_generator.h"
#include "snmp/mib_oids.h"
#include "config/config.h"
#include "runtime/lifecycle.h"
#include "model/registry.h"

static void
print_oid(
    const char *name, const struct dci_class *class, int depth, uint32_t column)
{
	static const unsigned arc[] = {SCHEMA_MIB_ARC};

	printf("%s ", name);
	for (size_t i = 0; i < SCHEMA_MIB_ARC_LENGTH; i++)
		printf(".%u", arc[i]);
	printf(".%u.%u", SCHEMA_MIB_OBJECTS, (unsigned)SCHEMA_CLASS_DATA);
	for (size_t i = 0; i < class->id_length; i++)
		printf(".%u", (unsigned)class->id[i]);
	if (depth >= 1)
		printf(".1");
	if (depth >= 2)
		printf(".%u", (unsigned)column);
	printf("\n");
}

/* Prints a descriptor's line; 0, or -1 after reporting why it has no
 * descriptor. */
static int
print_object(const struct dci_class *class, const char *label, int depth,
    uint32_t column)
{
	char name[AGENT_MIB_DESCRIPTOR_MAX + 1], why[512];

	if (mib_generator_descriptor(class->label, label, name, sizeof(name), why,
	        sizeof(why)) != 0) {
		fprintf(stderr, "dump_class_oids: %s\n", why);
		return -1;
	}
	print_oid(name, class, depth, column);
	return 0;
}

int
main(int argc, char **argv)
{
	struct dci_lifecycle lifecycle;
	const struct dci_registry *registry;
	char error[2048];
	int status = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: dump_class_oids CONFIG\n");
		return 2;
	}
	if (dci_lifecycle_load(&lifecycle, argv[1], "/nonexistent",
	        DCI_LOAD_STRICT, error, sizeof(error)) != 0) {
		fprintf(stderr, "dump_class_oids: %s\n", error);
		return 1;
	}
	registry = lifecycle.registry;
	for (size_t c = 0; c < registry->class_count && status == 0; c++) {
		const struct dci_class *class = registry->classes[c];
		size_t served = 0;

		for (size_t d = 0; d < class->datum_count; d++)
			if (class->datums[d].kind != DCI_KIND_NONE)
				served++;
		if (served == 0)
			continue; /* no table: the generator leaves it out */
		if (print_object(class, "table", 0, 0) != 0 ||
		    print_object(class, "entry", 1, 0) != 0)
			status = 1;
		for (size_t d = 0; d < class->datum_count && status == 0; d++) {
			const struct dci_datum *datum = &class->datums[d];

			if (datum->kind != DCI_KIND_NONE &&
			    print_object(class, datum->info.label, 2,
			        datum->info.id) != 0)
				status = 1;
		}
	}
	dci_lifecycle_unload(&lifecycle);
	return status;
}
