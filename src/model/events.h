/*
 * UMA events (DCI_INSTANCEADDED, DCI_INSTANCEREMOVED, DCI_DATACHANGED)
 * computed from two consecutive snapshots of one class, and the rate
 * limit that bounds how many of them become notifications.
 *
 * Core only: no OIDs and no Net-SNMP here. The difference is computed at
 * commit, never on the request path; the limiter is plain state the
 * caller owns, advanced by the caller's clock, so both are testable
 * without a clock or an agent.
 */
#ifndef DCISTAT_MODEL_EVENTS_H
#define DCISTAT_MODEL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dci_class;
struct dci_datum;
struct dci_registry;
struct dci_snapshot;
struct dci_supplier;

enum dci_events_kind {
	DCI_EVENTS_INSTANCE_ADDED,
	DCI_EVENTS_INSTANCE_REMOVED,
	DCI_EVENTS_DATA_CHANGED,
};

/* Called once per instance added or removed: `id` (instance_words words) is the
 * instance's id and `position` its index in the snapshot it belongs to
 * (the next one for an addition, the previous one for a removal), so the
 * receiver can read its label there. */
typedef void (*dci_events_difference_function)(void *context,
    enum dci_events_kind kind, const uint32_t *id, size_t position);

/* Walks two ascending id arrays (snapshot->ids) of `previous_count` and
 * `next_count` ids of `words` words each, at once, and reports every id in
 * `next` only (added) and in `previous` only (removed), in id order.
 * O(previous_count + next_count) comparisons, no allocation. Either array
 * may be NULL when its count is 0. Returns how many differences it
 * reported. */
size_t dci_events_difference(const uint32_t *previous_ids,
    size_t previous_count, const uint32_t *next_ids, size_t next_count,
    size_t words, dci_events_difference_function report, void *context);

/* A fixed-window rate limit: at most `limit` notifications in each window
 * of `window_milliseconds`; a window starts at the first admission after
 * the previous one ended. limit 0 means no limit. */
struct dci_events_rate_limit {
	uint32_t limit;
	int64_t window_milliseconds;
	int64_t window_start_milliseconds;
	uint32_t admitted; /* in the current window */
	bool started;      /* a window has been opened */
};

/* Bounds of the `rate-limit: N per SECONDS` form: what an operator can
 * mean, and small enough that milliseconds never overflow. */
#define DCI_EVENTS_RATE_LIMIT_MAX 1000000u
#define DCI_EVENTS_RATE_WINDOW_MAX_SECONDS 86400u

void dci_events_rate_limit_init(struct dci_events_rate_limit *rate,
    uint32_t limit, int64_t window_milliseconds);

/* Whether one more notification may be sent at `now_milliseconds`; counts
 * it when it may. */
bool dci_events_rate_limit_admit(
    struct dci_events_rate_limit *rate, int64_t now_milliseconds);

/* Whether no window is open at `now_milliseconds` (the last one ended, or
 * none was opened, or there is no limit): the moment to send the
 * summaries of what the ended window held back. */
bool dci_events_rate_limit_window_over(
    const struct dci_events_rate_limit *rate, int64_t now_milliseconds);

/* Writes the form dci_events_rate_limit_parse reads, with its bounds, for
 * error messages: "\"N per SECONDS\" with N in 1..1000000 and ...". */
void dci_events_rate_limit_describe(char *text, size_t size);

/* Parses "N per SECONDS" (ASCII blanks between the three words, N in 1 ..
 * DCI_EVENTS_RATE_LIMIT_MAX, SECONDS in 1 .. DCI_EVENTS_RATE_WINDOW_MAX_
 * SECONDS, decimal). Returns 0, or -1 with the reason in `why`. */
int dci_events_rate_limit_parse(const char *text, uint32_t *limit,
    int64_t *window_milliseconds, char *why, size_t why_size);

/* What a class held back past the limit, sent as one summary. */
struct dci_events_summary {
	uint64_t added;
	uint64_t removed;
	uint64_t changed;
};

/* Counts one held-back event of any kind in `summary`. */
void dci_events_summary_count(
    struct dci_events_summary *summary, enum dci_events_kind kind);

/* Copies `summary` to `taken` and empties it; false (and nothing copied)
 * when it held nothing, so no empty summary is ever sent. */
bool dci_events_summary_take(
    struct dci_events_summary *summary, struct dci_events_summary *taken);

/* One instance that appeared in or left a class between two of its
 * snapshots, or one of its watched datums whose value changed. Every
 * pointer lives only during the sink's call. */
struct dci_events_instance {
	const struct dci_class *class;
	enum dci_events_kind kind;
	const uint32_t *id; /* class->instance_words words */
	const char *label;  /* in the next snapshot, except for a removal */
	/* DCI_EVENTS_DATA_CHANGED only (NULL otherwise): the datum, and its
	 * values before and after in the DCI4 presentation
	 * (dci_value_render), "" for no value. */
	const struct dci_datum *datum;
	const char *old_value;
	const char *new_value;
};

/* The longest presentation of a value a data change carries; longer ones
 * are cut (at a UTF-8 boundary: DCI-STATS-MIB carries them as
 * DisplayString). */
#define DCI_EVENTS_VALUE_TEXT_MAX 255

typedef void (*dci_events_sink_function)(
    void *context, const struct dci_events_instance *event);

/* Registers the one function that receives the instance events of every
 * commit (NULL: none, the default). Main thread only, like every commit
 * (snapshots are installed by the main thread, runtime/loader.h), so the sink
 * needs no lock; the agent registers it, the model knows no OIDs. */
void dci_events_set_sink(dci_events_sink_function sink, void *context);

/* A second receiver of the same events, beside the sink above: the DCI
 * Server's (server/dci_server.h), which hands them to its consumers.
 * NULL: none, the default. Main thread only. */
void dci_events_set_consumer_sink(dci_events_sink_function sink, void *context);

/* The most datums one watch names. */
#define DCI_EVENTS_WATCHED_DATUMS_MAX 64

/* Which datums of a class are watched for changes: the class named by its
 * label or its id (as dci_registry_find_class reads it), the datums by
 * label. Plain settings, so the model knows no configuration file: the
 * configuration reader fills these from `notifications: data-changed`. */
struct dci_events_watch {
	const char *class_name;
	char *const *datums;
	size_t datum_count;
};

/* The datums whose changes are DCI_EVENTS_DATA_CHANGED events: copies
 * `count` watches, in place of the previous ones; count 0 watches nothing
 * (the default). Returns 0, or -1 when out of memory (the previous watches
 * stay). Main thread only. */
int dci_events_set_watches(
    const struct dci_events_watch *watches, size_t count);

/* Whether a datum's changes can be watched: not a counter (its value
 * changes at every refresh; its rate is what a manager watches), and not
 * an unused datum, which never has a value. */
bool dci_events_datum_watchable(const struct dci_datum *datum);

/* Called by dci_snapshot_commit just before `next` replaces `previous`:
 * hands the sink every instance added or removed, then, for the instances
 * in both, every watched datum whose value (or presence) differs, in id
 * order; O(previous + next) id comparisons plus O(watched datums) per
 * instance in both. Nothing when no sink is
 * registered, or when `previous` is NULL: a class's first snapshot (at
 * start, after a reload, or the first refresh of a provider that was
 * down, whose withdrawn snapshot is not `previous`) is a population, not
 * a change. */
void dci_events_commit(const struct dci_class *class,
    const struct dci_snapshot *previous, const struct dci_snapshot *next);

/* A supplier's state changed: it failed (to start or to refresh; its
 * `failure` says why), its refresh works again after failing, or it was
 * initialised again after a failure (a new reset stamp, DCI4). */
enum dci_events_supplier_kind {
	DCI_EVENTS_SUPPLIER_FAILED,
	DCI_EVENTS_SUPPLIER_RECOVERED,
	DCI_EVENTS_SUPPLIER_RESTARTED,
};

typedef void (*dci_events_supplier_sink_function)(void *context,
    const struct dci_supplier *supplier, enum dci_events_supplier_kind kind);

/* Registers the one function that receives supplier state changes (NULL:
 * none). Main thread only: the loader changes supplier states there. */
void dci_events_set_supplier_sink(
    dci_events_supplier_sink_function sink, void *context);

/* Called by the loader at each state change of `supplier`; nothing when
 * no sink is registered. */
void dci_events_supplier(
    const struct dci_supplier *supplier, enum dci_events_supplier_kind kind);

#endif
