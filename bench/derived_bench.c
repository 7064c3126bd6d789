/*
 * What derived datums cost a commit (src/model/derived.c, issue 31): the
 * commit of one class of INSTANCES instances (default 15,000: a million
 * dciStatTable rows of the example provider) with 40 integer datums, half
 * of them counters, and the example's mix of 12 derived datums (sums,
 * differences, ratios, products, a variance, a division by zero), over
 * snapshots whose arguments are the previous snapshot's ("unchanged") and
 * over snapshots where every argument changed ("changing").
 *
 * Only dci_snapshot_commit is timed; the snapshot is built before. Prints
 * "CASE NANOSECONDS-PER-COMMIT" lines (median of ROUNDS).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.h"

#include "model/registry.h"
#include "model/snapshot.h"

#define BASE_FIRST 20u
#define BASE_COUNT 40u

#define DERIVED(arg1, arg2, arg3, own)                                         \
	((uint32_t)(arg1) << 24 | (uint32_t)(arg2) << 16 |                     \
	    (uint32_t)(arg3) << 8 | (uint32_t)(own))

static char labels[256][8];

static struct dci_datum_info
base_datum(uint32_t id)
{
	snprintf(labels[id], sizeof(labels[id]), "d%u", id);
	return (struct dci_datum_info){.id = id,
	    .label = labels[id],
	    .type = id % 2 ? DCI_ST_INTEGER64 : DCI_ST_INTEGER32,
	    .format = DCI_SIF_UNSIGNED,
	    .presentation = DCI_SIP_DECIMAL,
	    .volatility = DCI_SV_VOLATILE,
	    .semantics = id < BASE_FIRST + BASE_COUNT / 2
	                     ? DCI_SEMANTICS_COUNTER
	                     : DCI_SEMANTICS_GAUGE};
}

static struct dci_datum_info
derived_datum(uint32_t id, enum dci_unit derivation)
{
	snprintf(labels[id & 0xffu], sizeof(labels[0]), "x%u", id & 0xffu);
	return (struct dci_datum_info){.id = id,
	    .label = labels[id & 0xffu],
	    .type = DCI_ST_DERIVED,
	    .unit = derivation};
}

/* Builds and commits one snapshot: every argument grows with `generation`
 * when `changing`. Returns the commit's nanoseconds, or -1. */
static double
commit_one(
    struct dci_class *class, size_t instances, int generation, int changing)
{
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	struct dci_row_value values[BASE_COUNT];
	char why[512];
	double start;

	for (size_t i = 0; i < instances; i++) {
		uint32_t id = (uint32_t)i + 1;
		long row = dci_snapshot_builder_add(
		    builder, &id, 1, "instance", why, sizeof(why));

		for (uint32_t d = 0; d < BASE_COUNT; d++) {
			/* The last one stays 0 (a divisor of 0) unless it
			 * changes. */
			uint64_t value =
			    d == BASE_COUNT - 1 ? 0 : 1000 + 7 * d + i;

			if (changing)
				value += (uint64_t)generation * (d + 1);
			values[d] = dci_row_unsigned(BASE_FIRST + d, value);
		}
		if (row < 0 ||
		    dci_snapshot_builder_set_row(builder, row, values,
		        BASE_COUNT, why, sizeof(why)) != BASE_COUNT) {
			fprintf(stderr, "derived_bench: %s\n", why);
			dci_snapshot_builder_free(builder);
			return -1;
		}
	}
	start = bench_now_nanoseconds();
	if (dci_snapshot_commit(
	        builder, class, 1000 * (int64_t)generation, why, sizeof(why))) {
		fprintf(stderr, "derived_bench: %s\n", why);
		return -1;
	}
	return bench_now_nanoseconds() - start;
}

int
main(int argc, char **argv)
{
	static const uint32_t class_id[] = {2, 1};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DEVICE, 4}};
	struct dci_supplier_info supplier = {.module = "bench",
	    .title = "derived bench",
	    .description = "derived datums at commit",
	    .version = 1};
	size_t instances = argc > 1 ? strtoul(argv[1], NULL, 10) : 15000;
	size_t rounds = argc > 2 ? strtoul(argv[2], NULL, 10) : 25;
	struct dci_datum_info datums[BASE_COUNT + 12];
	size_t count = 0;
	char why[512];
	double *samples;

	if (instances == 0 || rounds == 0)
		return 2;
	for (uint32_t d = 0; d < BASE_COUNT; d++)
		datums[count++] = base_datum(BASE_FIRST + d);
	/* The example provider's derivations (src/providers/example). */
	datums[count++] =
	    derived_datum(DERIVED(23, 33, 0, 80), DCI_UNIT_DERIVED_SUM2);
	datums[count++] =
	    derived_datum(DERIVED(25, 35, 37, 81), DCI_UNIT_DERIVED_SUM3);
	datums[count++] =
	    derived_datum(DERIVED(43, 33, 0, 82), DCI_UNIT_DERIVED_DIFFERENCE);
	datums[count++] =
	    derived_datum(DERIVED(33, 43, 0, 83), DCI_UNIT_DERIVED_DIFFERENCE);
	datums[count++] =
	    derived_datum(DERIVED(20, 23, 0, 84), DCI_UNIT_DERIVED_DIFFERENCE);
	datums[count++] =
	    derived_datum(DERIVED(33, 25, 0, 85), DCI_UNIT_DERIVED_AVERAGE);
	datums[count++] =
	    derived_datum(DERIVED(25, 23, 0, 86), DCI_UNIT_DERIVED_PERCENT);
	datums[count++] =
	    derived_datum(DERIVED(23, 33, 0, 87), DCI_UNIT_DERIVED_PRODUCT);
	datums[count++] =
	    derived_datum(DERIVED(55, 53, 0, 88), DCI_UNIT_DERIVED_PRODUCT);
	datums[count++] =
	    derived_datum(DERIVED(25, 33, 36, 89), DCI_UNIT_DERIVED_VARIANCE);
	datums[count++] =
	    derived_datum(DERIVED(23, 59, 0, 90), DCI_UNIT_DERIVED_AVERAGE);
	datums[count++] =
	    derived_datum(DERIVED(21, 31, 0, 91), DCI_UNIT_DERIVED_SUM2);
	samples = calloc(rounds, sizeof(*samples));
	if (samples == NULL)
		return 1;
	for (int changing = 0; changing < 2; changing++) {
		struct dci_registry *registry = dci_registry_new();
		struct dci_class_info info = {.id = class_id,
		    .id_length = 2,
		    .label = "bench",
		    .levels = levels,
		    .level_count = 1,
		    .datums = datums,
		    .datum_count = count};
		struct dci_class *class = dci_registry_add_class(registry,
		    dci_registry_add_supplier(
		        registry, &supplier, "bench", why, sizeof(why)),
		    &info, NULL, why, sizeof(why));

		if (class == NULL) {
			fprintf(stderr, "derived_bench: %s\n", why);
			return 1;
		}
		/* The first commit has no previous snapshot: not counted. */
		if (commit_one(class, instances, 0, changing) < 0)
			return 1;
		for (size_t r = 0; r < rounds; r++) {
			samples[r] =
			    commit_one(class, instances, (int)r + 1, changing);
			if (samples[r] < 0)
				return 1;
		}
		printf("%s %.0f\n", changing ? "changing" : "unchanged",
		    bench_median(samples, rounds));
		dci_registry_free(registry);
	}
	free(samples);
	return 0;
}
