/*
 * segment_rotation: which segments a refresh of the suppliers provider
 * serves, so that one segment's cost never delays the others by more than
 * their period.
 *
 * Each segment's last refresh cost (work units, segment_budget.h) decides:
 *   - a segment that cost at most its fair share of the refresh budget
 *     (max-refresh-work divided by the segments served) is served at every
 *     refresh, first: together these cost at most the budget, unless one
 *     grew since, so they are served while less than twice the budget is
 *     spent;
 *   - the others (and the new ones, whose cost is unknown) take turns:
 *     the one served longest ago first (round robin: the turn starts
 *     where the last refresh stopped), each served while less than the
 *     budget is spent, and always at least one, so that every segment is
 *     served in its turn. A segment not served keeps its last snapshot,
 *     withdrawn as stale if it waits its provider's stale-periods.
 * A refresh therefore spends less than twice the budget plus one
 * segment's budget (max-segment-work), whatever the segments.
 */
#ifndef SUPPLIERS_SEGMENT_ROTATION_H
#define SUPPLIERS_SEGMENT_ROTATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct segment_turn {
	/* The work its last refresh cost; known once it was served. */
	uint64_t last_work;
	bool known;
	/* Refreshes it was passed over since it was last served, and when
	 * it was last served (a number that grows with each segment served;
	 * 0: never). */
	uint32_t deferred;
	uint64_t served_at;
	/* Set by segment_rotation_order: served first at every refresh. */
	bool cheap;
};

/* Orders `turns` (`count` of them) for a refresh with `refresh_work` to
 * spend: the cheap ones first, then the others, the one served longest
 * ago first. */
void segment_rotation_order(
    struct segment_turn **turns, size_t count, uint64_t refresh_work);

/* Whether the next segment in the order, `turn`, is served when `spent`
 * work was spent already in this refresh and `others_served` of the
 * non-cheap ones were. */
bool segment_rotation_due(const struct segment_turn *turn, uint64_t spent,
    size_t others_served, uint64_t refresh_work);

/* Records a refresh of `turn`: served as number `served_at` (greater
 * than any before), having cost `work`; or passed over. */
void segment_rotation_record(
    struct segment_turn *turn, bool served, uint64_t work, uint64_t served_at);

#pragma GCC visibility pop

#endif
