/* `dcistat watch` (watch.h). */
#define _GNU_SOURCE
#include "cli/watch.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/rate.h"
#include "cli/values.h"
#include "base/clock.h"
#include "model/instance_id.h"
#include "model/snapshot.h"

/* What one sample keeps of a class to compute the next sample's rates:
 * per instance its id and discontinuity time, and per selected datum its
 * id and, for each instance, the counter's value if it had one. A copy,
 * since the next refresh frees the snapshot it came from. */
struct sample {
	size_t count; /* instances */
	size_t words; /* per instance id */
	uint32_t *ids;
	int64_t *discontinuities;
	size_t datum_count;
	uint32_t *datum_ids;
	uint64_t *values; /* count * datum_count */
	bool *present;    /* likewise */
	int64_t taken_milliseconds;
};

static void
sample_clear(struct sample *sample)
{
	free(sample->ids);
	free(sample->discontinuities);
	free(sample->datum_ids);
	free(sample->values);
	free(sample->present);
	memset(sample, 0, sizeof(*sample));
}

/* Copies what the rates need of `snapshot`. Returns 0 or -1 (memory). */
static int
sample_take(struct sample *sample, const struct dci_class *class,
    const struct dci_snapshot *snapshot, const struct dci_datum **datums,
    size_t datum_count)
{
	size_t count = snapshot != NULL ? snapshot->count : 0;
	size_t words = class->instance_words;

	memset(sample, 0, sizeof(*sample));
	sample->count = count;
	sample->words = words;
	sample->datum_count = datum_count;
	sample->taken_milliseconds =
	    snapshot != NULL ? snapshot->taken_milliseconds : 0;
	sample->ids = calloc(count * words + 1, sizeof(*sample->ids));
	sample->discontinuities =
	    calloc(count + 1, sizeof(*sample->discontinuities));
	sample->datum_ids = calloc(datum_count + 1, sizeof(*sample->datum_ids));
	sample->values =
	    calloc(count * datum_count + 1, sizeof(*sample->values));
	sample->present =
	    calloc(count * datum_count + 1, sizeof(*sample->present));
	if (sample->ids == NULL || sample->discontinuities == NULL ||
	    sample->datum_ids == NULL || sample->values == NULL ||
	    sample->present == NULL) {
		sample_clear(sample);
		return -1;
	}
	for (size_t d = 0; d < datum_count; d++)
		sample->datum_ids[d] = datums[d]->info.id;
	for (size_t i = 0; i < count; i++) {
		memcpy(sample->ids + i * words,
		    dci_snapshot_instance_id(class, snapshot, i),
		    words * sizeof(*sample->ids));
		sample->discontinuities[i] =
		    snapshot->instances[i].discontinuity_milliseconds;
		for (size_t d = 0; d < datum_count; d++) {
			struct dci_value value;

			if (cli_values_role(datums[d]) != CLI_COLUMN_COUNTER ||
			    !dci_snapshot_present(
			        class, snapshot, i, datums[d]))
				continue;
			dci_value_decode(&datums[d]->info,
			    dci_snapshot_slot(class, snapshot, i, datums[d]),
			    &value);
			sample->values[i * datum_count + d] = value.number;
			sample->present[i * datum_count + d] = true;
		}
	}
	return 0;
}

/* The position of instance `id` in the sample (ids ascending, as the
 * snapshot had them), or -1. */
static long
sample_find(const struct sample *sample, const uint32_t *id)
{
	return dci_instance_id_find(
	    sample->ids, sample->count, sample->words, id);
}

/* The rate cell of counter `d` of instance `i`: left empty (a gap) when
 * the previous sample has no value of the same datum for the instance or
 * cli_rate_compute finds none. */
static int
set_rate(struct cli_table *table, size_t row, size_t column,
    const struct dci_class *class, const struct dci_snapshot *snapshot,
    size_t i, const struct dci_datum *datum, size_t d,
    const struct sample *previous)
{
	struct cli_counter_sample before, now;
	struct dci_value value;
	long p;
	double rate;
	char text[64];

	if (!dci_snapshot_present(class, snapshot, i, datum) ||
	    previous->words != class->instance_words ||
	    d >= previous->datum_count ||
	    previous->datum_ids[d] != datum->info.id)
		return 0;
	p = sample_find(previous, dci_snapshot_instance_id(class, snapshot, i));
	if (p < 0 || !previous->present[(size_t)p * previous->datum_count + d])
		return 0;
	dci_value_decode(
	    &datum->info, dci_snapshot_slot(class, snapshot, i, datum), &value);
	before = (struct cli_counter_sample){
	    .value = previous->values[(size_t)p * previous->datum_count + d],
	    .taken_milliseconds = previous->taken_milliseconds,
	    .discontinuity_milliseconds = previous->discontinuities[p],
	};
	now = (struct cli_counter_sample){
	    .value = value.number,
	    .taken_milliseconds = snapshot->taken_milliseconds,
	    .discontinuity_milliseconds =
	        snapshot->instances[i].discontinuity_milliseconds,
	};
	if (!cli_rate_compute(&before, &now, datum->info.size * 8, &rate))
		return 0;
	cli_rate_format(rate, text, sizeof(text));
	return cli_table_set(table, row, column, text, text);
}

/* The table of one interval, from `previous` to the class's snapshot. */
static struct cli_table *
interval_table(const struct dci_class *class, const struct dci_datum **datums,
    size_t datum_count, const struct sample *previous)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	char title[DCI_LABEL_MAX + 128], name[DCI_LABEL_MAX + 32];
	char id[DCI_CLASS_ID_MAX_LEVELS * 11 + 1], interval[64];
	int64_t elapsed = snapshot != NULL ? snapshot->taken_milliseconds -
	                                         previous->taken_milliseconds
	                                   : 0;
	struct cli_table *table;

	dci_class_id_format(class, id, sizeof(id));
	snprintf(interval, sizeof(interval), "%" PRId64 ".%03" PRId64,
	    elapsed / 1000, elapsed % 1000);
	snprintf(title, sizeof(title),
	    "%s (class %s): counters per second over %s s", class->label, id,
	    interval);
	table = cli_table_new(class->label, title);
	if (table == NULL ||
	    cli_table_add_column(table, CLI_VALUES_INSTANCE_COLUMN,
	        CLI_COLUMN_KEY, NULL, "instance label") < 0 ||
	    cli_table_add_column(table, CLI_VALUES_ID_COLUMN, CLI_COLUMN_KEY,
	        NULL, "instance id") < 0 ||
	    cli_table_add_column(table, CLI_WATCH_INTERVAL_COLUMN,
	        CLI_COLUMN_GAUGE, "seconds",
	        "the interval the rates are over") < 0)
		goto memory;
	for (size_t d = 0; d < datum_count; d++) {
		const struct dci_datum *datum = datums[d];
		bool counter = cli_values_role(datum) == CLI_COLUMN_COUNTER;

		snprintf(name, sizeof(name), "%s%s", datum->info.label,
		    counter ? CLI_WATCH_RATE_SUFFIX : "");
		if (cli_table_add_column(table, name,
		        counter ? CLI_COLUMN_GAUGE : cli_values_role(datum),
		        counter ? "" : cli_values_unit(datum),
		        datum->info.description) < 0)
			goto memory;
	}
	for (size_t i = 0; snapshot != NULL && i < snapshot->count; i++) {
		long row = cli_table_add_row(table);

		if (row < 0 ||
		    cli_values_set_instance(
		        table, (size_t)row, class, snapshot, i) != 0 ||
		    (elapsed > 0 && cli_table_set(table, (size_t)row, 2,
		                        interval, interval) != 0))
			goto memory;
		for (size_t d = 0; d < datum_count; d++) {
			int result =
			    cli_values_role(datums[d]) == CLI_COLUMN_COUNTER
			        ? set_rate(table, (size_t)row, d + 3, class,
			              snapshot, i, datums[d], d, previous)
			        : cli_values_set_value(table, (size_t)row,
			              d + 3, class, snapshot, i, datums[d]);
			if (result != 0)
				goto memory;
		}
	}
	return table;
memory:
	cli_table_free(table);
	return NULL;
}

/* The class and its selected datums as they are now (a provider may
 * register a class again, so neither is kept across refreshes). */
static const struct dci_class *
class_select(struct cli_source *source,
    const struct cli_watch_settings *settings, const struct dci_datum ***datums,
    long *datum_count, char *error, size_t error_size)
{
	const struct dci_class *class =
	    dci_registry_find_class(source->registry, settings->class_name);

	if (class == NULL) {
		snprintf(error, error_size,
		    "no class '%.200s' (see dcistat classes)",
		    settings->class_name);
		return NULL;
	}
	*datum_count = cli_values_select(
	    class, settings->selection, datums, error, error_size);
	return *datum_count < 0 ? NULL : class;
}

int
cli_watch_run(struct cli_source *source,
    const struct cli_watch_settings *settings, cli_watch_emit emit,
    void *context, char *error, size_t error_size)
{
	const struct dci_class *class;
	const struct dci_datum **datums = NULL;
	struct sample previous = {0};
	long datum_count;
	int64_t start;
	int status = -1;

	class = class_select(
	    source, settings, &datums, &datum_count, error, error_size);
	if (class == NULL)
		return -1;
	if (sample_take(&previous, class, class->snapshot, datums,
	        (size_t)datum_count) != 0)
		goto memory;
	if (settings->waiting != NULL)
		settings->waiting(class, context);
	start = dci_clock_milliseconds();
	for (unsigned long n = 1; settings->count == 0 || n <= settings->count;
	     n++) {
		struct cli_document document = {0};
		struct cli_table *table;
		struct sample current;

		source->operations->wait_until(source,
		    start + (int64_t)n * settings->interval_milliseconds);
		if (source->operations->refresh(source, error, error_size) != 0)
			goto done;
		free(datums);
		datums = NULL;
		class = class_select(
		    source, settings, &datums, &datum_count, error, error_size);
		if (class == NULL)
			goto done;
		table = interval_table(
		    class, datums, (size_t)datum_count, &previous);
		if (table == NULL || cli_document_add(&document, table) != 0)
			goto memory;
		if (emit(&document, context) != 0) {
			cli_document_clear(&document);
			snprintf(error, error_size, "cannot write the output");
			goto done;
		}
		cli_document_clear(&document);
		if (sample_take(&current, class, class->snapshot, datums,
		        (size_t)datum_count) != 0)
			goto memory;
		sample_clear(&previous);
		previous = current;
	}
	status = 0;
	goto done;
memory:
	snprintf(error, error_size, "out of memory");
done:
	sample_clear(&previous);
	free(datums);
	return status;
}
