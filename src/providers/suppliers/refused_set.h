/*
 * refused_set: the files of the run directory that the suppliers provider
 * refused, so that a rescan does not read them again until they change.
 * Indexed by device and inode (a rescan of a directory of N files costs N
 * lookups, not N times the set's size). A file is the same while its
 * size and modification time are; a changed one is looked at afresh.
 *
 * Every entry counts against its owner's share (owner_counts.h): the set
 * holds at most max-refused-per-uid files of one user, so junk cannot grow
 * it without bound.
 */
#ifndef SUPPLIERS_REFUSED_SET_H
#define SUPPLIERS_REFUSED_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#pragma GCC visibility push(hidden)

struct refused_file {
	dev_t device;
	ino_t inode;
	off_t size;
	struct timespec modified;
	uid_t uid;
	bool seen;
	/* Refused because its module is served from another file: tried
	 * again when a served segment goes (the other may have), without
	 * logging again. */
	bool collision;
	/* Its header named an owner (pid and start time): once that process
	 * is gone, the file is removed (`name` in the run directory). */
	bool has_owner;
	uint32_t pid;
	uint64_t start;
	char *name;
	/* Its removal failed, and said so once. */
	bool removal_logged;
	/* An event said it was written since it was refused (its name then):
	 * read again once the refresh's events are drained, whatever its size
	 * and time say. */
	char *written_name;
	struct refused_file *next; /* in its bucket */
};

struct refused_set {
	struct refused_file **buckets;
	size_t bucket_count; /* a power of 2, or 0 */
	size_t count;
};

/* The entry of the inode `status` describes, or NULL. */
struct refused_file *refused_set_find(
    const struct refused_set *set, const struct stat *status);
/* Whether `file` is still the version refused: the same size and
 * modification time (a changed file is to be read again). */
bool refused_file_current(
    const struct refused_file *file, const struct stat *status);
/* Adds the file `status` describes (not already in the set); NULL when
 * out of memory. */
struct refused_file *refused_set_add(
    struct refused_set *set, const struct stat *status);
/* Removes and frees `file`. */
void refused_set_remove(struct refused_set *set, struct refused_file *file);
/* Calls `visit` for every entry; an entry `visit` returns true for is
 * removed and freed after it. */
void refused_set_sweep(struct refused_set *set,
    bool (*visit)(struct refused_file *file, void *argument), void *argument);
void refused_set_clear(struct refused_set *set);

#pragma GCC visibility pop

#endif
