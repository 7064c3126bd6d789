/*
 * What the UMA events cost a commit (src/model/events.c, issue 15): the
 * commit of one class of INSTANCES instances (default 100,000) without a
 * sink (notifications off, as in `dcistat`), with the instance sink
 * (added/removed: one merge walk of the ids), and with the sink and four
 * watched datums (data-changed: the values of the instances in both
 * snapshots compared), each over snapshots where nothing but the counters
 * changed, and where 1% of the instances changed a watched value.
 *
 * Only dci_snapshot_commit is timed; the snapshot is built before. Prints
 * "CASE NANOSECONDS-PER-COMMIT" lines (median of ROUNDS).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"

#include "config/config.h"
#include "model/events.h"
#include "model/registry.h"
#include "model/snapshot.h"

#define COUNTERS 10

static size_t events_seen;

static void
count_event(void *context, const struct dci_events_instance *event)
{
	(void)context;
	(void)event;
	events_seen++;
}

/* Builds and commits snapshot `generation`: counters grow every time;
 * when `changing`, 1 instance in 100 has another MTU than the previous
 * generation. Returns the commit's nanoseconds, or -1. */
static double
commit_generation(struct dci_class *class, size_t instances,
    unsigned generation, bool changing)
{
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	char why[512], name[16];
	double began;

	if (builder == NULL)
		return -1;
	for (uint32_t i = 0; i < instances; i++) {
		long row =
		    dci_snapshot_builder_add(builder, &i, 1, "if", NULL, 0);
		uint64_t mtu = 1500;

		if (changing && i % 100 == 0 && generation % 2 == 1)
			mtu = 9000;
		snprintf(name, sizeof(name), "if%u", i);
		if (row < 0 ||
		    dci_snapshot_builder_set_unsigned(
		        builder, row, 1, mtu, NULL, 0) != 0 ||
		    dci_snapshot_builder_set_unsigned(
		        builder, row, 2, 1, NULL, 0) != 0 ||
		    dci_snapshot_builder_set_unsigned(
		        builder, row, 3, 10000000, NULL, 0) != 0 ||
		    dci_snapshot_builder_set_bytes(
		        builder, row, 4, name, strlen(name), NULL, 0) != 0) {
			dci_snapshot_builder_free(builder);
			return -1;
		}
		for (uint32_t c = 0; c < COUNTERS; c++)
			if (dci_snapshot_builder_set_unsigned(builder, row,
			        10 + c, (uint64_t)generation * 1000 + i, NULL,
			        0) != 0) {
				dci_snapshot_builder_free(builder);
				return -1;
			}
	}
	began = bench_now_nanoseconds();
	if (dci_snapshot_commit(builder, class, 1000 * (int64_t)generation, why,
	        sizeof(why)) != 0) {
		fprintf(stderr, "events_bench: %s\n", why);
		return -1;
	}
	return bench_now_nanoseconds() - began;
}

static double
measure(struct dci_class *class, size_t instances, unsigned rounds,
    bool changing, unsigned *generation)
{
	double samples[64];

	if (rounds > 64)
		rounds = 64;
	for (unsigned r = 0; r < rounds; r++) {
		samples[r] = commit_generation(
		    class, instances, ++*generation, changing);
		if (samples[r] < 0)
			exit(1);
	}
	return bench_median(samples, rounds);
}

int
main(int argc, char **argv)
{
	size_t instances = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 7;
	static const uint32_t id[] = {1, 1};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_INTERFACE, 4}};
	struct dci_datum_info datums[4 + COUNTERS] = {
	    {.id = 1,
	        .label = "mtu",
	        .type = DCI_ST_INTEGER32,
	        .format = DCI_SIF_UNSIGNED,
	        .presentation = DCI_SIP_DECIMAL,
	        .size = 4,
	        .volatility = DCI_SV_VARIABLE,
	        .semantics = DCI_SEMANTICS_GAUGE},
	    {.id = 2,
	        .label = "oper_up",
	        .type = DCI_ST_BOOLEAN,
	        .format = DCI_SBF_NORMAL,
	        .presentation = DCI_SBP_TRUE_FALSE,
	        .volatility = DCI_SV_VOLATILE,
	        .semantics = DCI_SEMANTICS_DISCRETE},
	    {.id = 3,
	        .label = "speed",
	        .type = DCI_ST_INTEGER64,
	        .format = DCI_SIF_UNSIGNED,
	        .presentation = DCI_SIP_DECIMAL,
	        .size = 8,
	        .volatility = DCI_SV_VARIABLE,
	        .semantics = DCI_SEMANTICS_GAUGE},
	    {.id = 4,
	        .label = "name",
	        .type = DCI_ST_STRING,
	        .format = DCI_SSF_ZEROTERM,
	        .presentation = DCI_SSP_LITERAL,
	        .size = 16,
	        .volatility = DCI_SV_VARIABLE,
	        .semantics = DCI_SEMANTICS_DISCRETE},
	};
	static char counter_labels[COUNTERS][16];
	char *watched[] = {"mtu", "oper_up", "speed", "name"};
	struct dci_events_watch watch = {
	    .class_name = "netif", .datums = watched, .datum_count = 4};
	struct dci_supplier_info supplier_info = {.module = "bench",
	    .title = "events",
	    .description = "",
	    .version = 1};
	struct dci_class_info info = {.id = id,
	    .id_length = 2,
	    .label = "netif",
	    .levels = levels,
	    .level_count = 1,
	    .datums = datums,
	    .datum_count = 4 + COUNTERS};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *supplier;
	struct dci_class *class;
	unsigned generation = 0;
	char why[512];
	static const struct {
		const char *name;
		bool sink, watches, changing;
	} cases[] = {
	    {"off", false, false, false},
	    {"instances", true, false, false},
	    {"watched", true, true, false},
	    {"off_1%", false, false, true},
	    {"watched_1%", true, true, true},
	};

	for (uint32_t c = 0; c < COUNTERS; c++) {
		snprintf(counter_labels[c], sizeof(counter_labels[c]),
		    "counter%u", c);
		datums[4 + c] = (struct dci_datum_info){.id = 10 + c,
		    .label = counter_labels[c],
		    .type = DCI_ST_INTEGER64,
		    .format = DCI_SIF_UNSIGNED,
		    .presentation = DCI_SIP_DECIMAL,
		    .size = 8,
		    .volatility = DCI_SV_VOLATILE,
		    .semantics = DCI_SEMANTICS_COUNTER};
	}
	supplier = dci_registry_add_supplier(
	    registry, &supplier_info, "bench", why, sizeof(why));
	class = supplier == NULL ? NULL
	                         : dci_registry_add_class(registry, supplier,
	                               &info, NULL, why, sizeof(why));
	if (class == NULL) {
		fprintf(stderr, "events_bench: %s\n", why);
		return 1;
	}
	/* The population, then a warm-up the figures leave out. */
	if (commit_generation(class, instances, ++generation, false) < 0)
		return 1;
	(void)measure(class, instances, rounds, false, &generation);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t seen_before = events_seen;

		dci_events_set_sink(cases[i].sink ? count_event : NULL, NULL);
		if (dci_events_set_watches(&watch, cases[i].watches ? 1 : 0) !=
		    0)
			return 1;
		printf("%s %.0f", cases[i].name,
		    measure(class, instances, rounds, cases[i].changing,
		        &generation));
		printf(" %zu\n", (events_seen - seen_before) / rounds);
	}
	dci_events_set_sink(NULL, NULL);
	(void)dci_events_set_watches(NULL, 0);
	dci_registry_free(registry);
	return 0;
}
