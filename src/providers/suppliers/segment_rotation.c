#include "segment_rotation.h"

#include <stdlib.h>

static int
turn_compare(const void *left_pointer, const void *right_pointer)
{
	const struct segment_turn *left =
	    *(const struct segment_turn *const *)left_pointer;
	const struct segment_turn *right =
	    *(const struct segment_turn *const *)right_pointer;

	if (left->cheap != right->cheap)
		return left->cheap ? -1 : 1;
	if (left->served_at != right->served_at)
		return left->served_at < right->served_at ? -1 : 1;
	/* Served together: the cheaper first, so that more are served. */
	if (left->last_work != right->last_work)
		return left->last_work < right->last_work ? -1 : 1;
	return 0;
}

void
segment_rotation_order(
    struct segment_turn **turns, size_t count, uint64_t refresh_work)
{
	uint64_t share;

	if (count == 0)
		return;
	share = refresh_work / count;
	for (size_t i = 0; i < count; i++)
		turns[i]->cheap =
		    turns[i]->known && turns[i]->last_work <= share;
	qsort(turns, count, sizeof(*turns), turn_compare);
}

bool
segment_rotation_due(const struct segment_turn *turn, uint64_t spent,
    size_t others_served, uint64_t refresh_work)
{
	if (turn->cheap)
		return spent / 2 < refresh_work;
	return spent < refresh_work || others_served == 0;
}

void
segment_rotation_record(
    struct segment_turn *turn, bool served, uint64_t work, uint64_t served_at)
{
	if (!served) {
		if (turn->deferred < UINT32_MAX)
			turn->deferred++;
		return;
	}
	turn->deferred = 0;
	turn->served_at = served_at;
	turn->last_work = work;
	turn->known = true;
}
