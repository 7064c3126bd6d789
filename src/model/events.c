#define _GNU_SOURCE
/*
 * UMA events from consecutive snapshots (model/events.h); their rate limit
 * is in events_rate_limit.c.
 */
#include "model/events.h"

#include "base/log.h"
#include "model/registry.h"
#include "model/snapshot_access.h"
#include "model/snapshot_data.h"
#include "model/value.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lexicographic order of two ids of `words` words: the order snapshot ids
 * are sorted in (snapshot.c's compare_ids). */
static int
events_compare_ids(const uint32_t *left, const uint32_t *right, size_t words)
{
	for (size_t w = 0; w < words; w++) {
		if (left[w] != right[w])
			return left[w] < right[w] ? -1 : 1;
	}
	return 0;
}

/* An instance in both snapshots, at `before` in the previous one and at
 * `after` in the next. */
typedef void (*events_same_function)(
    void *context, size_t before, size_t after);

/* The merge walk of dci_events_difference; also calls `same` (when not
 * NULL) for every id in both arrays. */
static size_t
events_walk(const uint32_t *previous_ids, size_t previous_count,
    const uint32_t *next_ids, size_t next_count, size_t words,
    dci_events_difference_function report, events_same_function same,
    void *context)
{
	size_t before = 0, after = 0, reported = 0;

	while (before < previous_count || after < next_count) {
		int order;

		if (before == previous_count)
			order = 1;
		else if (after == next_count)
			order = -1;
		else
			order =
			    events_compare_ids(previous_ids + before * words,
			        next_ids + after * words, words);
		if (order == 0) {
			if (same != NULL)
				same(context, before, after);
			before++;
			after++;
			continue;
		}
		if (order < 0) {
			report(context, DCI_EVENTS_INSTANCE_REMOVED,
			    previous_ids + before * words, before);
			before++;
		} else {
			report(context, DCI_EVENTS_INSTANCE_ADDED,
			    next_ids + after * words, after);
			after++;
		}
		reported++;
	}
	return reported;
}

size_t
dci_events_difference(const uint32_t *previous_ids, size_t previous_count,
    const uint32_t *next_ids, size_t next_count, size_t words,
    dci_events_difference_function report, void *context)
{
	return events_walk(previous_ids, previous_count, next_ids, next_count,
	    words, report, NULL, context);
}

void
dci_events_summary_count(
    struct dci_events_summary *summary, enum dci_events_kind kind)
{
	switch (kind) {
	case DCI_EVENTS_INSTANCE_ADDED:
		summary->added++;
		break;
	case DCI_EVENTS_INSTANCE_REMOVED:
		summary->removed++;
		break;
	case DCI_EVENTS_DATA_CHANGED:
		summary->changed++;
		break;
	}
}

bool
dci_events_summary_take(
    struct dci_events_summary *summary, struct dci_events_summary *taken)
{
	if (summary->added == 0 && summary->removed == 0 &&
	    summary->changed == 0)
		return false;
	*taken = *summary;
	*summary = (struct dci_events_summary){0};
	return true;
}

/* Main thread only (dci_events_set_sink). */
static dci_events_sink_function events_sink;
static void *events_sink_context;
/* Main thread only (dci_events_set_consumer_sink). */
static dci_events_sink_function events_consumer_sink;
static void *events_consumer_sink_context;

void
dci_events_set_consumer_sink(dci_events_sink_function sink, void *context)
{
	events_consumer_sink = sink;
	events_consumer_sink_context = context;
}

/* Hands `event` to both sinks that are registered. */
static void
events_deliver(const struct dci_events_instance *event)
{
	if (events_sink != NULL)
		events_sink(events_sink_context, event);
	if (events_consumer_sink != NULL)
		events_consumer_sink(events_consumer_sink_context, event);
}

void
dci_events_set_sink(dci_events_sink_function sink, void *context)
{
	events_sink = sink;
	events_sink_context = context;
}

/* A configured watch, owned (dci_events_set_watches). */
struct events_watch {
	char *class_name;
	char **datums;
	size_t datum_count;
};

/* Main thread only (dci_events_set_watches). */
static struct events_watch *events_watches;
static size_t events_watch_count;

static void
events_watches_free(struct events_watch *watches, size_t count)
{
	for (size_t w = 0; w < count; w++) {
		for (size_t d = 0; d < watches[w].datum_count; d++)
			free(watches[w].datums[d]);
		free(watches[w].datums);
		free(watches[w].class_name);
	}
	free(watches);
}

int
dci_events_set_watches(const struct dci_events_watch *watches, size_t count)
{
	struct events_watch *copies = NULL;

	if (count > 0) {
		copies = calloc(count, sizeof(*copies));
		if (copies == NULL)
			return -1;
	}
	for (size_t w = 0; w < count; w++) {
		copies[w].class_name = strdup(watches[w].class_name);
		copies[w].datums =
		    calloc(watches[w].datum_count, sizeof(char *));
		if (copies[w].class_name == NULL || copies[w].datums == NULL) {
			events_watches_free(copies, w + 1);
			return -1;
		}
		for (size_t d = 0; d < watches[w].datum_count; d++) {
			copies[w].datums[d] = strdup(watches[w].datums[d]);
			if (copies[w].datums[d] == NULL) {
				events_watches_free(copies, w + 1);
				return -1;
			}
			copies[w].datum_count++;
		}
	}
	events_watches_free(events_watches, events_watch_count);
	events_watches = copies;
	events_watch_count = count;
	return 0;
}

/* Whether `name` names `class` (its label, or its id as
 * dci_class_id_format writes it), as dci_registry_find_class reads it. */
static bool
events_names_class(const struct dci_class *class, const char *name)
{
	char id[DCI_CLASS_ID_MAX_LEVELS * 11];

	if (strcmp(class->label, name) == 0)
		return true;
	dci_class_id_format(class, id, sizeof(id));
	return strcmp(id, name) == 0;
}

bool
dci_events_datum_watchable(const struct dci_datum *datum)
{
	return datum->info.semantics != DCI_SEMANTICS_COUNTER &&
	       datum->kind != DCI_KIND_NONE;
}

/* What the commit's walk needs to name an instance and compare values. */
struct events_commit {
	const struct dci_class *class;
	const struct dci_snapshot *previous;
	const struct dci_snapshot *next;
	const struct dci_datum *watched[DCI_EVENTS_WATCHED_DATUMS_MAX];
	size_t watched_count;
};

static void
events_commit_report(void *context, enum dci_events_kind kind,
    const uint32_t *id, size_t position)
{
	const struct events_commit *commit = context;
	const struct dci_snapshot *holder =
	    kind == DCI_EVENTS_INSTANCE_ADDED ? commit->next : commit->previous;
	struct dci_events_instance event = {
	    .class = commit->class,
	    .kind = kind,
	    .id = id,
	    .label = holder->instances[position].label,
	};

	events_deliver(&event);
}

/* Whether `datum` has another value (or presence) at `after` in `next`
 * than at `before` in `previous`. */
static bool
events_value_changed(const struct events_commit *commit,
    const struct dci_datum *datum, size_t before, size_t after)
{
	const struct dci_class *class = commit->class;
	bool was = dci_snapshot_present(class, commit->previous, before, datum);
	bool is = dci_snapshot_present(class, commit->next, after, datum);
	struct dci_value old_value, new_value;
	const unsigned char *old_slot, *new_slot;

	if (was != is)
		return true;
	if (!was)
		return false;
	old_slot = dci_snapshot_slot(class, commit->previous, before, datum);
	new_slot = dci_snapshot_slot(class, commit->next, after, datum);
	/* The same bytes are the same value; other bytes may still be (a
	 * string's bytes past its end), which decoding tells. */
	if (memcmp(old_slot, new_slot, datum->info.size) == 0)
		return false;
	dci_value_decode_trusted(&datum->info, old_slot, &old_value);
	dci_value_decode_trusted(&datum->info, new_slot, &new_value);
	return old_value.number != new_value.number ||
	       old_value.signed_number != new_value.signed_number ||
	       old_value.truth != new_value.truth ||
	       old_value.length != new_value.length ||
	       (old_value.length > 0 && memcmp(old_value.bytes, new_value.bytes,
	                                    old_value.length) != 0);
}

/* The presentation of `datum` at `position` of `snapshot`, "" without a
 * value, cut to DCI_EVENTS_VALUE_TEXT_MAX bytes at a UTF-8 boundary. */
static void
events_render(const struct events_commit *commit,
    const struct dci_snapshot *snapshot, size_t position,
    const struct dci_datum *datum, char *text, size_t text_size)
{
	size_t length;

	text[0] = '\0';
	if (!dci_snapshot_present(commit->class, snapshot, position, datum))
		return;
	length = dci_value_render(&datum->info,
	    dci_snapshot_slot(commit->class, snapshot, position, datum), text,
	    text_size);
	if (length < text_size)
		return;
	length = text_size - 1;
	while (length > 0 && ((unsigned char)text[length] & 0xC0) == 0x80)
		length--;
	text[length] = '\0';
}

static void
events_commit_compare(void *context, size_t before, size_t after)
{
	const struct events_commit *commit = context;

	for (size_t w = 0; w < commit->watched_count; w++) {
		const struct dci_datum *datum = commit->watched[w];
		char old_text[DCI_EVENTS_VALUE_TEXT_MAX + 1];
		char new_text[DCI_EVENTS_VALUE_TEXT_MAX + 1];
		struct dci_events_instance event = {
		    .class = commit->class,
		    .kind = DCI_EVENTS_DATA_CHANGED,
		    .id = dci_snapshot_instance_id(
		        commit->class, commit->next, after),
		    .label = commit->next->instances[after].label,
		    .datum = datum,
		    .old_value = old_text,
		    .new_value = new_text,
		};

		if (!events_value_changed(commit, datum, before, after))
			continue;
		events_render(commit, commit->previous, before, datum, old_text,
		    sizeof(old_text));
		events_render(commit, commit->next, after, datum, new_text,
		    sizeof(new_text));
		events_deliver(&event);
	}
}

/* Fills commit->watched with the watchable datums the configuration
 * names for commit->class. */
static void
events_commit_resolve(struct events_commit *commit)
{
	for (size_t w = 0; w < events_watch_count; w++) {
		const struct events_watch *watch = &events_watches[w];

		if (!events_names_class(commit->class, watch->class_name))
			continue;
		for (size_t d = 0;
		     d < watch->datum_count &&
		     commit->watched_count < DCI_EVENTS_WATCHED_DATUMS_MAX;
		     d++) {
			const struct dci_datum *datum =
			    dci_class_find_datum_by_name(
			        commit->class, watch->datums[d]);

			if (datum != NULL && dci_events_datum_watchable(datum))
				commit->watched[commit->watched_count++] =
				    datum;
		}
		return;
	}
}

void
dci_events_commit(const struct dci_class *class,
    const struct dci_snapshot *previous, const struct dci_snapshot *next)
{
	struct events_commit commit = {
	    .class = class, .previous = previous, .next = next};

	if ((events_sink == NULL && events_consumer_sink == NULL) ||
	    previous == NULL)
		return;
	events_commit_resolve(&commit);
	(void)events_walk(previous->ids, previous->count, next->ids,
	    next->count, class->instance_words, events_commit_report,
	    commit.watched_count > 0 ? events_commit_compare : NULL, &commit);
}

/* Main thread only (dci_events_set_supplier_sink). */
static dci_events_supplier_sink_function events_supplier_sink;
static void *events_supplier_sink_context;

void
dci_events_set_supplier_sink(
    dci_events_supplier_sink_function sink, void *context)
{
	events_supplier_sink = sink;
	events_supplier_sink_context = context;
}

void
dci_events_supplier(
    const struct dci_supplier *supplier, enum dci_events_supplier_kind kind)
{
	if (events_supplier_sink != NULL)
		events_supplier_sink(
		    events_supplier_sink_context, supplier, kind);
}
