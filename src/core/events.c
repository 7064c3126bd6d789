/*
 * UMA events from consecutive snapshots, and their rate limit
 * (core/events.h).
 */
#include "core/events.h"

#include "core/registry.h"
#include "core/snapshot_data.h"

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

size_t
dci_events_difference(const uint32_t *previous_ids, size_t previous_count,
    const uint32_t *next_ids, size_t next_count, size_t words,
    dci_events_difference_function report, void *context)
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

void
dci_events_rate_limit_init(struct dci_events_rate_limit *rate, uint32_t limit,
    int64_t window_milliseconds)
{
	memset(rate, 0, sizeof(*rate));
	rate->limit = limit;
	rate->window_milliseconds = window_milliseconds;
}

/* Whether the current window has ended at `now`. A clock that went back
 * (now before the window's start) ends it too, so a stepped clock cannot
 * hold notifications back for longer than one window. */
static bool
events_window_ended(const struct dci_events_rate_limit *rate, int64_t now)
{
	return now < rate->window_start_milliseconds ||
	       now - rate->window_start_milliseconds >=
	           rate->window_milliseconds;
}

bool
dci_events_rate_limit_admit(
    struct dci_events_rate_limit *rate, int64_t now_milliseconds)
{
	if (rate->limit == 0)
		return true;
	if (!rate->started || events_window_ended(rate, now_milliseconds)) {
		rate->started = true;
		rate->window_start_milliseconds = now_milliseconds;
		rate->admitted = 0;
	}
	if (rate->admitted >= rate->limit)
		return false;
	rate->admitted++;
	return true;
}

bool
dci_events_rate_limit_window_over(
    const struct dci_events_rate_limit *rate, int64_t now_milliseconds)
{
	return rate->limit == 0 || !rate->started ||
	       events_window_ended(rate, now_milliseconds);
}

/* Parses one decimal number of `text` at `*cursor` in 1 .. `maximum`,
 * leaving `*cursor` after it. */
static int
events_parse_number(
    const char **cursor, unsigned long maximum, unsigned long *number)
{
	const char *start = *cursor;
	char *end;

	if (*start < '0' || *start > '9')
		return -1;
	errno = 0;
	*number = strtoul(start, &end, 10);
	if (errno != 0 || *number == 0 || *number > maximum)
		return -1;
	*cursor = end;
	return 0;
}

/* Skips blanks; whether there was at least one. */
static bool
events_skip_blanks(const char **cursor)
{
	const char *start = *cursor;

	while (**cursor == ' ' || **cursor == '\t')
		(*cursor)++;
	return *cursor != start;
}

int
dci_events_rate_limit_parse(const char *text, uint32_t *limit,
    int64_t *window_milliseconds, char *why, size_t why_size)
{
	const char *cursor = text;
	unsigned long count, seconds;

	events_skip_blanks(&cursor);
	if (events_parse_number(&cursor, DCI_EVENTS_RATE_LIMIT_MAX, &count) !=
	        0 ||
	    !events_skip_blanks(&cursor) || strncmp(cursor, "per", 3) != 0)
		goto refused;
	cursor += 3;
	if (!events_skip_blanks(&cursor) ||
	    events_parse_number(
	        &cursor, DCI_EVENTS_RATE_WINDOW_MAX_SECONDS, &seconds) != 0)
		goto refused;
	events_skip_blanks(&cursor);
	if (*cursor != '\0')
		goto refused;
	*limit = (uint32_t)count;
	*window_milliseconds = (int64_t)seconds * 1000;
	return 0;

refused:
	if (why_size > 0) {
		char form[128];

		dci_events_rate_limit_describe(form, sizeof(form));
		snprintf(why, why_size, "expected %s", form);
	}
	return -1;
}

void
dci_events_rate_limit_describe(char *text, size_t size)
{
	snprintf(text, size,
	    "\"N per SECONDS\" with N in 1..%u and SECONDS in 1..%u",
	    DCI_EVENTS_RATE_LIMIT_MAX, DCI_EVENTS_RATE_WINDOW_MAX_SECONDS);
}

void
dci_events_summary_count(
    struct dci_events_summary *summary, enum dci_events_kind kind)
{
	if (kind == DCI_EVENTS_INSTANCE_ADDED)
		summary->added++;
	else
		summary->removed++;
}

bool
dci_events_summary_take(
    struct dci_events_summary *summary, struct dci_events_summary *taken)
{
	if (summary->added == 0 && summary->removed == 0)
		return false;
	*taken = *summary;
	summary->added = 0;
	summary->removed = 0;
	return true;
}

/* Main thread only (dci_events_set_sink). */
static dci_events_sink_function events_sink;
static void *events_sink_context;

void
dci_events_set_sink(dci_events_sink_function sink, void *context)
{
	events_sink = sink;
	events_sink_context = context;
}

/* What events_commit_report needs to name an instance. */
struct events_commit {
	const struct dci_class *class;
	const struct dci_snapshot *previous;
	const struct dci_snapshot *next;
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

	events_sink(events_sink_context, &event);
}

void
dci_events_commit(const struct dci_class *class,
    const struct dci_snapshot *previous, const struct dci_snapshot *next)
{
	struct events_commit commit = {class, previous, next};

	if (events_sink == NULL || previous == NULL)
		return;
	(void)dci_events_difference(previous->ids, previous->count, next->ids,
	    next->count, class->instance_words, events_commit_report, &commit);
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
