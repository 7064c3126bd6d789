/*
 * An application supplier driven by commands, for the integration tests
 * that need instances and values to change when the test says so
 * (agent_notifications.sh). It publishes, through libdcistat-supplier,
 * one generic class "jobs" (relative id 17, one level) with a gauge
 * "state" (datum 1) and a counter "done" (datum 2).
 *
 * Usage: supplier_commands DIRECTORY MODULE NUMBER [CLASS-LABEL]
 * (CLASS-LABEL: another label than "jobs", any bytes, as a hostile
 * application may give: escape_outside_strings.sh)
 * Reads one command per line from stdin and answers each with "ok" or
 * "error: ..." on stdout (flushed), after "ready" once the segment exists:
 *   add ID LABEL    an instance, its state 0
 *   remove ID
 *   set ID VALUE    its state
 *   count ID        its counter plus one
 *   quit            (or the end of input) exits 0, removing its segment
 */
#define _GNU_SOURCE
#include <dcistat/supplier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOBS_MAX 64

struct job {
	uint32_t id;
	struct dcistat_instance *instance;
};

static struct job jobs[JOBS_MAX];

static struct job *
job_find(uint32_t id)
{
	for (size_t i = 0; i < JOBS_MAX; i++)
		if (jobs[i].instance != NULL && jobs[i].id == id)
			return &jobs[i];
	return NULL;
}

int
main(int argc, char **argv)
{
	static const uint32_t class_id[] = {17};
	static const struct dci_instance_level levels[] = {
	    {.itype = DCI_ITYPE_SINGLEINST, .size = 4}};
	static const struct dci_datum_info datums[] = {
	    {.id = 1,
	        .label = "state",
	        .type = DCI_ST_INTEGER32,
	        .format = DCI_SIF_UNSIGNED,
	        .presentation = DCI_SIP_DECIMAL,
	        .volatility = DCI_SV_VOLATILE,
	        .unit = DCI_UNIT_NONE,
	        .semantics = DCI_SEMANTICS_GAUGE,
	        .description = "The job's state"},
	    {.id = 2,
	        .label = "done",
	        .type = DCI_ST_INTEGER64,
	        .format = DCI_SIF_UNSIGNED,
	        .presentation = DCI_SIP_DECIMAL,
	        .volatility = DCI_SV_VOLATILE,
	        .unit = DCI_UNIT_COUNT,
	        .semantics = DCI_SEMANTICS_COUNTER,
	        .description = "Steps done"},
	};
	struct dci_class_info class_info = {.id = class_id,
	    .id_length = 1,
	    .label = "jobs",
	    .description = "The test application's jobs",
	    .levels = levels,
	    .level_count = 1,
	    .datums = datums,
	    .datum_count = 2};
	struct dci_supplier_info info = {.title = "Commanded application",
	    .description = "tests/supplier_commands.c",
	    .version = 1};
	struct dcistat_supplier_options options = {.size = sizeof(options)};
	struct dcistat_supplier *supplier;
	struct dcistat_class *class_handle;
	int state_index, done_index;
	char line[256];

	if (argc != 4 && argc != 5) {
		fprintf(stderr,
		    "usage: %s DIRECTORY MODULE NUMBER [CLASS-LABEL]\n",
		    argv[0]);
		return 2;
	}
	if (argc == 5)
		class_info.label = argv[4];
	options.directory = argv[1];
	info.module = argv[2];
	supplier = dcistat_supplier_open(
	    &info, (uint32_t)strtoul(argv[3], NULL, 10), &options);
	class_handle =
	    supplier != NULL ? dcistat_class_add(supplier, &class_info) : NULL;
	if (class_handle == NULL) {
		fprintf(stderr, "%s: %s\n", argv[0], dcistat_supplier_error());
		return 1;
	}
	state_index = dcistat_datum_index(class_handle, 1);
	done_index = dcistat_datum_index(class_handle, 2);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		char command[16], label[64];
		unsigned long id, value = 0;
		struct job *job = NULL;
		int words = sscanf(line, "%15s %lu %63s", command, &id, label);

		if (words == 1 && strcmp(command, "quit") == 0)
			break;
		if (words >= 2)
			job = job_find((uint32_t)id);
		if (words == 3 && strcmp(command, "add") == 0 && job == NULL) {
			uint32_t word = (uint32_t)id;

			for (size_t i = 0; i < JOBS_MAX && job == NULL; i++)
				if (jobs[i].instance == NULL)
					job = &jobs[i];
			if (job != NULL) {
				job->instance = dcistat_instance_add(
				    class_handle, &word, 1, label);
				job->id = word;
			}
			if (job == NULL || job->instance == NULL) {
				printf("error: %s\n", dcistat_supplier_error());
				fflush(stdout);
				continue;
			}
		} else if (words == 2 && strcmp(command, "remove") == 0 &&
		           job != NULL) {
			dcistat_instance_remove(job->instance);
			job->instance = NULL;
		} else if (words == 3 && strcmp(command, "set") == 0 &&
		           job != NULL) {
			value = strtoul(label, NULL, 10);
			dcistat_value_set(job->instance, state_index, value);
		} else if (words == 2 && strcmp(command, "count") == 0 &&
		           job != NULL) {
			dcistat_value_add(job->instance, done_index, 1);
		} else {
			printf("error: bad command: %s", line);
			fflush(stdout);
			continue;
		}
		printf("ok\n");
		fflush(stdout);
	}
	dcistat_supplier_close(supplier);
	return 0;
}
