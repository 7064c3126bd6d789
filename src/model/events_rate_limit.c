/*
 * The rate limit of the notifications and its "N per SECONDS" form
 * (model/events.h): apart from the events themselves, so that the
 * configuration reader needs nothing else of them.
 */
#include "model/events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
