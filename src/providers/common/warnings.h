/*
 * warnings: log a problem in a /proc file once, not on every refresh.
 *
 * A malformed line stays malformed refresh after refresh; logging it every
 * second would bury everything else. A refresh notes each problem it
 * meets; a problem is to be logged only when the previous refresh did not
 * have it, so it is logged again after it went away and came back.
 *
 * Part of the helpers every built-in provider compiles in (see
 * src/providers/common/).
 */
#ifndef PROVIDER_WARNINGS_H
#define PROVIDER_WARNINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* One problem: where (a provider's own file number and a line) and a hash
 * of what was wrong. */
struct provider_warning {
	uint32_t source;
	unsigned line;
	uint32_t message_hash;
};

/* Zero-initialised is empty. */
struct provider_warnings {
	struct provider_warning *logged; /* the previous refresh's */
	size_t logged_count;
	size_t logged_capacity;
	struct provider_warning *seen; /* this refresh's so far */
	size_t seen_count;
	size_t seen_capacity;
};

/* Starts a refresh: it has seen no problem yet. */
void provider_warnings_begin(struct provider_warnings *warnings);

/* Notes a problem of this refresh. Returns true when the previous refresh
 * did not have it: the caller logs it. Without memory to remember it, it
 * is simply logged again next time. */
bool provider_warnings_note(struct provider_warnings *warnings, uint32_t source,
    unsigned line, const char *message);

/* Ends a refresh: its problems are the ones already logged. */
void provider_warnings_end(struct provider_warnings *warnings);

void provider_warnings_free(struct provider_warnings *warnings);

#pragma GCC visibility pop

#endif
