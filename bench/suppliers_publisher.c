/*
 * For bench/suppliers: one process publishing SEGMENTS supplier segments
 * (module benchN), each with a generic class of INSTANCES instances of
 * DATUMS 64-bit counters, values set once; it prints "ready" and waits to
 * be killed. Usage: suppliers_publisher DIRECTORY SEGMENTS INSTANCES DATUMS
 */
#define _GNU_SOURCE
#include <dcistat/supplier.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	static const uint32_t class_id[] = {16};
	static const struct dci_instance_level levels[] = {
	    {.itype = DCI_ITYPE_DEVICE, .size = 4}};
	struct dci_datum_info *datums;
	struct dcistat_supplier_options options = {
	    .size = sizeof(options)};
	unsigned segments, instances, datum_count;

	if (argc != 5)
		return 2;
	options.directory = argv[1];
	segments = (unsigned)atoi(argv[2]);
	instances = (unsigned)atoi(argv[3]);
	datum_count = (unsigned)atoi(argv[4]);
	options.instances = instances + 16;
	options.datums = datum_count + 16;
	options.region_words = (instances + 1) * (datum_count + 2) + 4096;
	options.thread_regions = 2;
	datums = calloc(datum_count, sizeof(*datums));
	if (datums == NULL)
		return 1;
	for (unsigned d = 0; d < datum_count; d++) {
		char *label;
		if (asprintf(&label, "counter%u", d + 1) < 0)
			return 1;
		datums[d] = (struct dci_datum_info){.id = d + 1,
		    .label = label,
		    .type = DCI_ST_INTEGER64,
		    .format = DCI_SIF_UNSIGNED,
		    .size = 8,
		    .volatility = DCI_SV_VOLATILE,
		    .unit = DCI_UNIT_COUNT,
		    .semantics = DCI_SEMANTICS_COUNTER};
	}
	for (unsigned s = 0; s < segments; s++) {
		char module[32];
		struct dci_supplier_info info = {.module = module,
		    .title = "bench",
		    .description = "bench/suppliers",
		    .version = 100};
		struct dci_class_info class_info = {.id = class_id,
		    .id_length = 1,
		    .label = "bench",
		    .levels = levels,
		    .level_count = 1,
		    .datums = datums,
		    .datum_count = datum_count};
		struct dcistat_supplier *supplier;
		struct dcistat_class *class;

		snprintf(module, sizeof(module), "bench%u", s);
		supplier = dcistat_supplier_open(&info, s + 1, &options);
		class = supplier ? dcistat_class_add(supplier, &class_info)
		                 : NULL;
		if (class == NULL) {
			fprintf(stderr, "segment %u: %s\n", s,
			    dcistat_supplier_error());
			return 1;
		}
		for (uint32_t i = 0; i < instances; i++) {
			struct dcistat_instance *instance =
			    dcistat_instance_add(class, &i, 1, "i");
			if (instance == NULL) {
				fprintf(stderr, "instance: %s\n",
				    dcistat_supplier_error());
				return 1;
			}
			for (unsigned d = 0; d < datum_count; d++)
				dcistat_value_add(instance, (int)d,
				    (uint64_t)s * 1000000 + i * 100 + d);
		}
	}
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}
