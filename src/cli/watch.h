/*
 * `dcistat watch`: a class sampled every interval, iostat-style. Each
 * interval gives one table: counters as rates per second over the
 * interval (rate.h: a wrap is undone, a discontinuity or reset is a gap),
 * every other datum as its value, derived ones included. The first sample
 * is only the baseline: COUNT intervals give COUNT tables.
 */
#ifndef DCISTAT_CLI_WATCH_H
#define DCISTAT_CLI_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "cli/document.h"
#include "cli/source.h"

/* The column of each table that holds the interval, in seconds. */
#define CLI_WATCH_INTERVAL_COLUMN "interval"
/* Appended to a counter's label to name its rate column. */
#define CLI_WATCH_RATE_SUFFIX "_per_second"

struct cli_watch_settings {
	const char *class_name; /* label or id */
	const char *selection;  /* -d LIST, NULL for every datum */
	unsigned interval_milliseconds;
	unsigned long count; /* intervals; 0: until interrupted */
	/* Called once the class is known, before the wait for the first
	 * interval (a "waiting for the first sample" line); may be NULL. */
	void (*waiting)(const struct dci_class *class, void *context);
};

/* Called with each interval's document, which it may change (the rows
 * chosen and ordered); nonzero stops the watch (the output is gone). */
typedef int (*cli_watch_emit)(struct cli_document *document, void *context);

/* Runs the watch. Returns 0, or -1 with the reason in `error` (an unknown
 * class or datum, out of memory, the source failing, `emit` failing). */
int cli_watch_run(struct cli_source *source,
    const struct cli_watch_settings *settings, cli_watch_emit emit,
    void *context, char *error, size_t error_size);

#endif
