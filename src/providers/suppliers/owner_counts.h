/*
 * owner_counts: what each user (a file owner's uid) holds in the run
 * directory, so that one user cannot take every segment slot nor fill the
 * refused set: served segments against max-segments-per-uid, refused
 * files remembered against max-refused-per-uid. Users are few (only those
 * who may write the run directory own files in it): a short list.
 */
#ifndef SUPPLIERS_OWNER_COUNTS_H
#define SUPPLIERS_OWNER_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#pragma GCC visibility push(hidden)

struct owner_count {
	uid_t uid;
	size_t served;
	size_t refused;
	/* Said once until the count is under its limit again. */
	bool served_full_logged;
	bool refused_full_logged;
};

struct owner_counts {
	struct owner_count *items;
	size_t count;
};

/* The count of `uid`, added at zero if new; NULL when out of memory. */
struct owner_count *owner_counts_get(struct owner_counts *counts, uid_t uid);
void owner_counts_clear(struct owner_counts *counts);

#pragma GCC visibility pop

#endif
