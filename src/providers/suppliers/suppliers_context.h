/*
 * What the files of the suppliers provider share (internal to it): its
 * limits, a segment served, the provider's context, and the functions
 * by which the provider (suppliers.c) has the run directory's files
 * examined, served, refused and retired (suppliers_directory.c).
 */
#ifndef SUPPLIERS_CONTEXT_H
#define SUPPLIERS_CONTEXT_H

#include <dcistat/provider.h>
#include <dcistat/supplier.h>

#include "owner_counts.h"
#include "providers/common/clock.h"
#include "providers/common/start.h"
#include "refused_set.h"
#include "segment_budget.h"
#include "segment_file.h"
#include "segment_owner.h"
#include "segment_reader.h"
#include "segment_rotation.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#pragma GCC visibility push(hidden)

#define SUPPLIERS_MAX_SEGMENTS_DEFAULT 1024u
#define SUPPLIERS_MAX_SEGMENTS_LIMIT 65536u
#define SUPPLIERS_MAX_SEGMENT_SIZE_DEFAULT (UINT64_C(1) << 30)
#define SUPPLIERS_MAX_REFUSED_PER_UID_DEFAULT 256u
#define SUPPLIERS_DEFAULT_GROUP "dcistat"
/* The supplier name of this provider: refused to a segment, so that no
 * application passes for the provider itself. */
#define SUPPLIERS_OWN_NAME "suppliers"
/* The longest time between two full rescans of the directory while
 * inotify reports its changes (it says when it lost events). */
#define SUPPLIERS_RESCAN_MICROSECONDS (UINT64_C(60) * 1000000u)
/* The refusals and removals one refresh names in the log; the others
 * are counted in one line, so that a user's junk cannot flood the log
 * (nor drop other lines from a refresh thread's bounded queue). */
#define SUPPLIERS_FILES_LOGGED_PER_REFRESH 32u
/* The longest time between two full checks that each owner, served or
 * refused, is the process that created its segment (its pid not reused,
 * its user the file's); in between, kill(pid, 0) says whether it exists. */
#define SUPPLIERS_OWNER_CHECK_MICROSECONDS (UINT64_C(10) * 1000000u)
/* Scratch words kept from one segment's refresh to the next's. */
#define SUPPLIERS_SCRATCH_KEPT_WORDS (1u << 17)

struct served_segment {
	char *name;
	struct segment_file file;
	struct segment_view view;
	struct dci_supplier *supplier;
	/* Classes read so far: copies and handles (NULL: refused). */
	struct segment_class *classes;
	struct dci_class **handles;
	uint32_t class_count;
	struct dci_batch **batches;
	bool seen;
	bool skipped_logged;
	/* Counted in its owner's served segments (owner_counts.h). */
	bool held;
	bool refused; /* by this refresh: to be freed */
	/* What it is charged (segment_budget.h): its classes, and its
	 * instances at its last refresh; and what context->owner_charges
	 * holds of it. */
	uint64_t classes_bytes;
	uint64_t instances_bytes;
	uint64_t charge_counted;
	struct segment_turn turn;
};

struct suppliers_context {
	struct provider_context base; /* first: provider_fini */
	char *directory;
	struct segment_owners owners;
	size_t max_segments;
	size_t max_segments_per_uid;
	size_t max_refused_per_uid;
	uint64_t max_segment_size;
	struct segment_budget_limits limits;
	/* The order of a refresh's segments (segment_rotation.h). */
	struct segment_turn **turns;
	size_t turn_capacity;
	uint64_t served_count; /* segments served since init */
	/* Each owner's charge, while a refresh serves the segments. */
	struct segment_budget_owners owner_charges;
	bool owner_charges_valid;
	struct served_segment **segments;
	size_t segment_count;
	struct refused_set refused;
	/* Served segments and refused files of each user. */
	struct owner_counts held;
	bool over_limit_logged;
	/* inotify on the directory: a refresh looks at the files its events
	 * name, and rescans the whole directory only when events were lost
	 * (a full queue, the directory replaced), when a served segment went
	 * (files waiting for a slot or refused for its module are tried
	 * again), and at least every SUPPLIERS_RESCAN_MICROSECONDS. -1:
	 * every refresh rescans. */
	int watch;
	uint64_t last_scan_microseconds;
	bool rescan_due;
	/* The directory was removed or renamed: watched again (a new one
	 * of that path) before the next full scan. */
	bool watch_lost;
	/* Refusals and removals named in this refresh's log, and those
	 * beyond SUPPLIERS_FILES_LOGGED_PER_REFRESH. */
	unsigned files_logged;
	size_t files_unlogged;
	int watch_descriptor; /* -1: none */
	uint64_t last_owner_check_microseconds;
	struct segment_scratch scratch;
	struct segment_value *values;
	size_t value_capacity;
};

/* The owner a refused segment's header named, when it was read. */
struct refused_owner {
	const char *name;
	uint32_t pid;
	uint64_t start;
};

void suppliers_segment_forget_classes(struct served_segment *segment);

void suppliers_segment_free(
    struct suppliers_context *context, struct served_segment *segment);

/* Remembers a refused file, counted against its owner's share (the
 * caller checked that the share has room). */
void suppliers_refuse_file_owned(struct suppliers_context *context,
    const struct stat *status, bool collision,
    const struct refused_owner *owner);

/* The line for the refusals and removals a refresh did not name. */
void suppliers_files_summarize(struct suppliers_context *context);

/* What `segment` may be charged now: the least of its own budget, the
 * amplification bound and what the other segments of its owner leave;
 * `which` names the limit. */
uint64_t suppliers_segment_memory_limit(const struct suppliers_context *context,
    const struct served_segment *segment, const char **which);

/* The refusal of a segment over its memory budget, in `why`. */
void suppliers_memory_refusal(const struct served_segment *segment,
    uint64_t bytes, uint64_t limit, const char *which, char *why,
    size_t why_size);

/* Counts what the classes [from, count) of `segment` claim, before any is
 * read (under the caller's guard); -1 with the refusal in `why` when the
 * segment would go over its memory budget. */
int suppliers_classes_claim(const struct suppliers_context *context,
    const struct served_segment *segment, uint32_t from, uint32_t count,
    char *why, size_t why_size);

/* Watches the run directory's changes that matter: files renamed in or
 * out, written and closed, changed or removed, and the directory itself
 * going. */
int suppliers_watch_add(struct suppliers_context *context);

/* Brings the served segments and the refused set up to date with the
 * directory: its events, or a full scan when one is due. */
int suppliers_directory_update(struct suppliers_context *context, uint64_t now);

/* Withdraws the segments whose file went, whose owner closed them or
 * died; the dead ones' files are removed, closed ones remembered as
 * refused (never served again; removed once their process is gone). */
void suppliers_segments_retire(struct suppliers_context *context, bool full);

/* Removes the refused files whose owner (named by their header) is gone:
 * a crash of an application refused for any reason leaves nothing
 * behind. A removal that fails is logged once. */
bool suppliers_refused_owner_gone(struct refused_file *refused, void *argument);

#pragma GCC visibility pop

#endif
