/*
 * The DCI Server's work budget per user: how much of the daemon's CPU the
 * requests of one uid may take, as a token bucket of CPU microseconds.
 * Each uid (root included: its own bucket, so that no user spends root's
 * share, nor root theirs) gains `rate` microseconds per second, up to one
 * second's worth; the CPU time the server's thread spends answering and
 * sending to a consumer is charged to the consumer's uid. While a uid's
 * bucket is empty its consumers are not read, so their requests wait in
 * their sockets (none is refused) until it refills; what one uid can
 * overspend is one request per connection. Every uid has the same rate,
 * so users are served alike whatever their number of connections.
 *
 * Buckets are kept for DCI_BUDGET_USERS_MAX uids: a uid whose consumers
 * all left keeps its debt (reconnecting does not refill it) until a full
 * bucket is no different from a new one and its entry is taken again.
 */
#ifndef DCISTAT_SERVER_DCI_BUDGET_H
#define DCISTAT_SERVER_DCI_BUDGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define DCI_BUDGET_USERS_MAX 32u

struct dci_budget_user {
	uid_t uid;
	bool used;
	int64_t tokens;               /* CPU microseconds; below 0: in debt */
	int64_t updated_milliseconds; /* of the last refill */
};

struct dci_budget {
	int64_t rate; /* CPU microseconds per second, for each uid */
	struct dci_budget_user users[DCI_BUDGET_USERS_MAX];
};

/* `rate`: CPU microseconds per second each uid may take (1 to
 * 1000000). */
void dci_budget_init(struct dci_budget *budget, int64_t rate);

/* Whether a request of `uid` may be read at `now` (base/clock.h's
 * milliseconds): its bucket is not empty. */
bool dci_budget_allows(struct dci_budget *budget, uid_t uid, int64_t now);

/* Takes `microseconds` of CPU from the bucket of `uid`. */
void dci_budget_charge(
    struct dci_budget *budget, uid_t uid, int64_t microseconds, int64_t now);

/* When the bucket of `uid` is no longer empty; `now` or earlier when it
 * is not. */
int64_t dci_budget_ready_at(
    const struct dci_budget *budget, uid_t uid, int64_t now);

/* The CPU time this thread has used, in microseconds. */
int64_t dci_budget_thread_microseconds(void);

#endif
