/*
 * The cost of one GETNEXT in a sparse column, with the presence index built
 * at commit (src/model/snapshot.c, dci_snapshot_next_present) and without it
 * (the presence bits read one instance after another, as before the index),
 * in one run, over the real lookups of src/agent/table_index.c.
 *
 * One class of INSTANCES instances (default 100,000): datum 1 (Gauge32)
 * in every instance, datum 2 (Counter64) in 1 of them, in the middle.
 * Measured, each as nanoseconds per GETNEXT (median of ROUNDS):
 *   sparse_stat   dciStatTable's Counter64 column, walked from its start
 *                 to past its one row (2 GETNEXTs);
 *   sparse_class  the per-class table's column of datum 2, likewise;
 *   dense_stat    dciStatTable's Gauge32 column, every row (the common
 *                 case, which the index must not slow down).
 * Prints "NAME indexed|bits NANOSECONDS" lines.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"

#include "snmp/table_index.h"
#include "model/registry.h"
#include "model/snapshot.h"

/* Walks a column from its start to its end; returns the GETNEXTs made. */
static size_t
walk(const struct dci_registry *registry, bool class_data,
    const struct schema_index_filter *filter, const uint64_t *start,
    size_t start_length)
{
	uint64_t request[SCHEMA_INDEX_MAX];
	uint32_t encoded[SCHEMA_INDEX_MAX];
	size_t length = start_length, count = 0;
	struct schema_index_row row;

	memcpy(request, start, start_length * sizeof(*request));
	for (;;) {
		bool found = class_data
		                 ? schema_index_class_data(registry, request,
		                       length, SCHEMA_INDEX_NEXT, &row)
		                 : schema_index_stat(registry, request, length,
		                       SCHEMA_INDEX_NEXT, filter, &row);
		count++;
		if (!found)
			break;
		length = class_data
		             ? schema_index_encode_class_data(&row, encoded)
		             : schema_index_encode_stat(&row, encoded);
		/* Leaving the column (the class data's next column). */
		if (class_data && encoded[2] != start[2])
			break;
		for (size_t i = 0; i < length; i++)
			request[i] = encoded[i];
	}
	return count;
}

static double
measure(const struct dci_registry *registry, bool class_data,
    const struct schema_index_filter *filter, const uint64_t *start,
    size_t start_length, unsigned rounds, unsigned repetitions)
{
	double samples[64];

	if (rounds > 64)
		rounds = 64;
	for (unsigned r = 0; r < rounds; r++) {
		size_t count = 0;
		double began = bench_now_nanoseconds();
		for (unsigned i = 0; i < repetitions; i++)
			count += walk(
			    registry, class_data, filter, start, start_length);
		samples[r] = (bench_now_nanoseconds() - began) / (double)count;
	}
	return bench_median(samples, rounds);
}

int
main(int argc, char **argv)
{
	size_t instances = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 7;
	static const uint32_t id[] = {9};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DEVICE, 4}};
	struct dci_datum_info datums[2] = {
	    {.id = 1,
	        .label = "everywhere",
	        .type = DCI_ST_INTEGER32,
	        .format = DCI_SIF_UNSIGNED,
	        .size = 4,
	        .volatility = DCI_SV_VOLATILE,
	        .semantics = DCI_SEMANTICS_GAUGE},
	    {.id = 2,
	        .label = "rare",
	        .type = DCI_ST_INTEGER64,
	        .format = DCI_SIF_UNSIGNED,
	        .size = 8,
	        .volatility = DCI_SV_VOLATILE,
	        .semantics = DCI_SEMANTICS_COUNTER},
	};
	struct dci_supplier_info supplier_info = {.module = "bench",
	    .title = "sparse column",
	    .description = "",
	    .version = 1};
	struct dci_class_info info = {.id = id,
	    .id_length = 1,
	    .label = "sparse",
	    .levels = levels,
	    .level_count = 1,
	    .datums = datums,
	    .datum_count = 2};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *supplier;
	struct dci_class *class;
	struct dci_snapshot_builder *builder;
	struct schema_index_filter counter64 = {1u << DCI_KIND_COUNTER64, false};
	struct schema_index_filter gauge32 = {1u << DCI_KIND_GAUGE32, false};
	struct dci_snapshot_column *columns;
	size_t column_count;
	char why[512];
	/* dciStatTable from the class's start; dciClassData.9.1.2. */
	static const uint64_t stat_start[] = {1, 9};
	static const uint64_t class_start[] = {9, 1, 2};

	supplier = dci_registry_add_supplier(
	    registry, &supplier_info, "bench", why, sizeof(why));
	class = supplier == NULL ? NULL
	                         : dci_registry_add_class(registry, supplier,
	                               &info, NULL, why, sizeof(why));
	if (class == NULL) {
		fprintf(stderr, "sparse_bench: %s\n", why);
		return 1;
	}
	builder = dci_snapshot_builder_new(class);
	for (uint32_t i = 0; i < instances; i++) {
		long row =
		    dci_snapshot_builder_add(builder, &i, 1, "i", NULL, 0);
		if (row < 0 ||
		    dci_snapshot_builder_set_unsigned(
		        builder, row, 1, i, NULL, 0) != 0 ||
		    (i == instances / 2 &&
		        dci_snapshot_builder_set_unsigned(
		            builder, row, 2, i, NULL, 0) != 0)) {
			fprintf(
			    stderr, "sparse_bench: instance %u refused\n", i);
			return 1;
		}
	}
	if (dci_snapshot_commit(builder, class, 1, why, sizeof(why)) != 0) {
		fprintf(stderr, "sparse_bench: %s\n", why);
		return 1;
	}
	columns = class->snapshot->columns;
	column_count = class->snapshot->column_count;
	for (int indexed = 1; indexed >= 0; indexed--) {
		const char *mode = indexed ? "indexed" : "bits";
		class->snapshot->columns = indexed ? columns : NULL;
		class->snapshot->column_count = indexed ? column_count : 0;
		printf("sparse_stat %s %.1f\n", mode,
		    measure(registry, false, &counter64, stat_start, 2, rounds,
		        indexed ? 20000 : 20));
		printf("sparse_class %s %.1f\n", mode,
		    measure(registry, true, NULL, class_start, 3, rounds,
		        indexed ? 20000 : 20));
		printf("dense_stat %s %.1f\n", mode,
		    measure(
		        registry, false, &gauge32, stat_start, 2, rounds, 3));
	}
	class->snapshot->columns = columns;
	class->snapshot->column_count = column_count;
	dci_registry_free(registry);
	return 0;
}
