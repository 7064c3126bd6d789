/*
 * openmetrics_fetch: the targets' scrapes over HTTP, all at once, with
 * libcurl's multi interface on the caller's thread (no thread of its own).
 *
 * A fetch set has one slot per target. A slot's transfer is started, then
 * the set is driven until a refresh's deadline: every running transfer
 * moves together, so a slow target delays no other. A transfer still
 * running at the deadline is not aborted: it stays in the set and goes on
 * when the set is driven again (the next refresh), bounded by its target's
 * own `timeout` (from its start, whatever the refreshes in between) and
 * the body bound. A slot holds at most one transfer. Redirects are not
 * followed, no compression is asked for (an answer is read as sent, so no
 * decompression can grow it), and a body past the bound ends the transfer.
 */
#ifndef OPENMETRICS_FETCH_H
#define OPENMETRICS_FETCH_H

#include "openmetrics_target.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A body read by a transfer; kept between scrapes. One byte more than
 * `length` is always there (a NUL) for the parser to write over. */
struct om_body {
	char *bytes;
	size_t length;
	size_t capacity;
};

struct om_fetch_set;

/* A set of `slots` idle slots; NULL without memory. */
struct om_fetch_set *om_fetch_set_new(size_t slots);

/* Ends every transfer still running and frees the set. */
void om_fetch_set_free(struct om_fetch_set *set);

/* Starts slot `slot`'s transfer of `config` into `body` (emptied; at most
 * `max_bytes`), which both must outlive it. The slot must be idle. Returns
 * 0, or -1 with a reason in `why`. */
int om_fetch_start(struct om_fetch_set *set, size_t slot,
    const struct om_target_config *config, struct om_body *body,
    size_t max_bytes, char *why, size_t why_size);

/* Whether slot `slot` has a transfer running (started, not yet taken by
 * om_fetch_next). */
bool om_fetch_running(const struct om_fetch_set *set, size_t slot);

/* Drives the running transfers until one ends, then returns its slot with
 * its result: *status 0 for an HTTP 200 answer, -1 with a reason in `why`
 * (escaped, one line); the slot is idle again. Returns -1 when no transfer
 * ended before `deadline_us` (provider_monotonic_microseconds) or none is
 * running. */
long om_fetch_next(struct om_fetch_set *set, uint64_t deadline_us, int *status,
    char *why, size_t why_size);

/* libcurl's global state: once per process, from the main thread. */
int om_fetch_global_init(void);
void om_fetch_global_cleanup(void);

#pragma GCC visibility pop

#endif
