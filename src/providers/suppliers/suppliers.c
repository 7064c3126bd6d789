/*
 * suppliers: a dcistat provider that serves the statistics applications
 * publish through libdcistat-supplier, one supplier per shared-memory
 * segment of the run directory.
 *
 * Each refresh rescans the directory (a few system calls: the directory is
 * small) and then, for each segment served:
 *   - a new file is opened without following links, its owner and size
 *     checked, mapped read-only and its header validated; its supplier is
 *     registered (dci_supplier_register from refresh: suppliers come and
 *     go), so a restarted application is a new supplier, with a new DCI4
 *     reset stamp, and its rows new instances;
 *   - a file gone, closed by its owner, or whose owner died (its pid gone
 *     or reused) has its supplier withdrawn and its rows go; a dead
 *     owner's file is removed (the crash left it behind);
 *   - classes the application added since are registered under
 *     {DCISTAT_SUPPLIER_CLASS_ARC, number, relative id}; a class id
 *     another supplier serves is refused, naming both, and the first keeps
 *     serving;
 *   - every class gets a batch of its live instances, values combined
 *     over the writers' regions (segment_reader.h).
 * Segments are untrusted input: a malformed one is refused with one log
 * line naming the file and what was wrong, and not read again until the
 * file changes; a block a writer left half-updated is skipped (counted and
 * logged once per segment); a file cut short while mapped raises SIGBUS,
 * which the guard (segment_file.h) turns into a refusal of that segment.
 *
 * Options:
 *   directory         the run directory (default
 *                     DCISTAT_SUPPLIER_DIRECTORY); created (mode 01770,
 *                     group dcistat when it exists) if missing
 *   users, groups     besides root and dcistatd's own user, who may own a
 *                     segment (names or numbers); default group dcistat
 *   max-segments      segments served at once (default 1024)
 *   max-segment-size  bytes (default 1 GiB)
 *   max-segment-memory, max-user-memory
 *                     bytes of dcistatd's memory one segment, and all the
 *                     segments of one owner, may be charged
 *                     (segment_budget.h; default 128 and 256 MiB)
 *   max-segment-work, max-refresh-work
 *                     work units one segment's refresh, and one refresh of
 *                     all segments, may spend (segment_budget.h,
 *                     segment_rotation.h)
 */
#define _GNU_SOURCE

#include <dcistat/provider.h>
#include <dcistat/supplier.h>

#include "providers/common/clock.h"
#include "segment_budget.h"
#include "segment_file.h"
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

#define SUPPLIERS_MAX_SEGMENTS_DEFAULT 1024u
#define SUPPLIERS_MAX_SEGMENTS_LIMIT 65536u
#define SUPPLIERS_MAX_SEGMENT_SIZE_DEFAULT (UINT64_C(1) << 30)
#define SUPPLIERS_DEFAULT_GROUP "dcistat"
/* Scratch words kept from one segment's refresh to the next's. */
#define SUPPLIERS_SCRATCH_KEPT_WORDS (1u << 17)
/* The longest time between two full rescans of the directory, which also
 * check that each owner is the process that created its segment (its pid
 * not reused); in between, kill(pid, 0) says whether it exists. */
#define SUPPLIERS_RESCAN_MICROSECONDS (UINT64_C(10) * 1000000u)

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
	bool refused; /* by this refresh: to be freed */
	/* Its file's owner, and what it is charged (segment_budget.h): its
	 * classes, and its instances at its last refresh. */
	uid_t owner;
	uint64_t classes_bytes;
	uint64_t instances_bytes;
	/* What context->owner_charges holds of it. */
	uint64_t charge_counted;
	struct segment_turn turn;
};

/* A file refused, not looked at again until it changes. */
struct refused_file {
	dev_t device;
	ino_t inode;
	off_t size;
	struct timespec modified;
	bool seen;
	/* Refused because its module is served from another file: tried
	 * again at every scan (the other may go), without logging again. */
	bool collision;
};

struct suppliers_context {
	struct dci_host *host;
	char *directory;
	struct segment_owners owners;
	size_t max_segments;
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
	struct refused_file *refused;
	size_t refused_count;
	bool over_limit_logged;
	/* inotify on the directory: a refresh rescans it only when it
	 * changed, and at least every SUPPLIERS_RESCAN_MILLISECONDS (events
	 * can be lost: a full queue, a directory replaced). -1: every
	 * refresh rescans. */
	int watch;
	uint64_t last_scan_microseconds;
	struct segment_scratch scratch;
	struct segment_value *values;
	size_t value_capacity;
};

static uint64_t
monotonic_microseconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/* --- Options --- */

static int
parse_unsigned(struct dci_host *host, const char *key, uint64_t minimum,
    uint64_t maximum, uint64_t default_value, uint64_t *value)
{
	const char *text = dci_option_string(host, key);
	char *end;
	unsigned long long parsed;

	*value = default_value;
	if (text == NULL) {
		if (dci_option_present(host, key)) {
			dci_option_error(host, key, "expected a number");
			return -1;
		}
		return 0;
	}
	errno = 0;
	parsed = strtoull(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || text[0] == '-' ||
	    parsed < minimum || parsed > maximum) {
		char message[128];
		snprintf(message, sizeof(message),
		    "expected a number from %" PRIu64 " to %" PRIu64, minimum,
		    maximum);
		dci_option_error(host, key, message);
		return -1;
	}
	*value = parsed;
	return 0;
}

static bool
id_number(const char *text, unsigned long *number)
{
	char *end;

	errno = 0;
	*number = strtoul(text, &end, 10);
	return errno == 0 && end != text && *end == '\0' && text[0] != '-' &&
	       *number < UINT32_MAX;
}

static int
owners_parse(struct suppliers_context *context)
{
	struct dci_host *host = context->host;
	size_t users = dci_option_count(host, "users");
	size_t groups = dci_option_count(host, "groups");
	bool default_group = !dci_option_present(host, "groups");

	context->owners.uids = calloc(users + 1, sizeof(uid_t));
	context->owners.gids = calloc(groups + 1, sizeof(gid_t));
	if (context->owners.uids == NULL || context->owners.gids == NULL) {
		dci_log(host, DCI_LOG_ERR, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < users; i++) {
		const char *name = dci_option_item(host, "users", i);
		struct passwd *entry = getpwnam(name);
		unsigned long number;
		if (entry != NULL)
			number = entry->pw_uid;
		else if (!id_number(name, &number)) {
			dci_option_error(host, "users", "no such user");
			return -1;
		}
		context->owners.uids[context->owners.uid_count++] =
		    (uid_t)number;
	}
	for (size_t i = 0; i < groups; i++) {
		const char *name = dci_option_item(host, "groups", i);
		struct group *entry = getgrnam(name);
		unsigned long number;
		if (entry != NULL)
			number = entry->gr_gid;
		else if (!id_number(name, &number)) {
			dci_option_error(host, "groups", "no such group");
			return -1;
		}
		context->owners.gids[context->owners.gid_count++] =
		    (gid_t)number;
	}
	if (default_group) {
		struct group *entry = getgrnam(SUPPLIERS_DEFAULT_GROUP);
		if (entry != NULL)
			context->owners.gids[context->owners.gid_count++] =
			    entry->gr_gid;
	}
	return 0;
}

/* The run directory exists after this, or init fails. The sticky bit
 * keeps one supplier from removing another's segment. */
static int
directory_prepare(struct suppliers_context *context)
{
	struct stat status;
	struct group *group;
	char *parent, *slash;

	if (stat(context->directory, &status) == 0) {
		if (!S_ISDIR(status.st_mode)) {
			dci_log(context->host, DCI_LOG_ERR,
			    "%s is not a directory", context->directory);
			return -1;
		}
		return 0;
	}
	parent = strdup(context->directory);
	if (parent == NULL)
		return -1;
	slash = strrchr(parent, '/');
	if (slash != NULL && slash != parent) {
		*slash = '\0';
		if (mkdir(parent, 0755) != 0 && errno != EEXIST) {
			dci_log(context->host, DCI_LOG_ERR,
			    "cannot create %s: %s", parent, strerror(errno));
			free(parent);
			return -1;
		}
	}
	free(parent);
	if (mkdir(context->directory, 0700) != 0 && errno != EEXIST) {
		dci_log(context->host, DCI_LOG_ERR, "cannot create %s: %s",
		    context->directory, strerror(errno));
		return -1;
	}
	group = getgrnam(SUPPLIERS_DEFAULT_GROUP);
	if (group != NULL && chown(context->directory, (uid_t)-1,
	                         group->gr_gid) == 0)
		chmod(context->directory, 01770);
	else
		chmod(context->directory, 01755);
	return 0;
}

/* --- Segments served --- */

static void
segment_forget_classes(struct served_segment *segment)
{
	for (uint32_t c = 0; c < segment->class_count; c++)
		segment_class_clear(&segment->classes[c]);
	free(segment->classes);
	free(segment->handles);
	free(segment->batches);
	segment->classes = NULL;
	segment->handles = NULL;
	segment->batches = NULL;
	segment->class_count = 0;
}

static void
segment_free(struct suppliers_context *context, struct served_segment *segment)
{
	if (segment->supplier != NULL)
		dci_supplier_withdraw(context->host, segment->supplier);
	segment_forget_classes(segment);
	segment_file_close(&segment->file);
	free(segment->name);
	free(segment);
}

static void
refuse_file(struct suppliers_context *context, const struct stat *status,
    bool collision)
{
	struct refused_file *grown = realloc(context->refused,
	    (context->refused_count + 1) * sizeof(*grown));

	if (grown == NULL)
		return;
	context->refused = grown;
	context->refused[context->refused_count++] =
	    (struct refused_file){.device = status->st_dev,
	        .inode = status->st_ino,
	        .size = status->st_size,
	        .modified = status->st_mtim,
	        .seen = true,
	        .collision = collision};
}

static struct refused_file *
refused_find(struct suppliers_context *context, const struct stat *status)
{
	for (size_t i = 0; i < context->refused_count; i++) {
		struct refused_file *refused = &context->refused[i];
		if (refused->device == status->st_dev &&
		    refused->inode == status->st_ino &&
		    refused->size == status->st_size &&
		    refused->modified.tv_sec == status->st_mtim.tv_sec &&
		    refused->modified.tv_nsec == status->st_mtim.tv_nsec)
			return refused;
	}
	return NULL;
}

static struct served_segment *
served_find(struct suppliers_context *context, const struct stat *status)
{
	for (size_t i = 0; i < context->segment_count; i++) {
		struct served_segment *segment = context->segments[i];
		if (segment->file.device == status->st_dev &&
		    segment->file.inode == status->st_ino)
			return segment;
	}
	return NULL;
}

static const struct served_segment *
served_by_module(struct suppliers_context *context, const char *module)
{
	for (size_t i = 0; i < context->segment_count; i++) {
		if (strcmp(context->segments[i]->view.module, module) == 0)
			return context->segments[i];
	}
	return NULL;
}

/* Validates the header of a segment just mapped, under the guard. */
static int
view_open_guarded(struct served_segment *segment, char *why, size_t why_size)
{
	int result = -1;

	segment_guard_armed = 1;
	if (sigsetjmp(segment_guard_jump, 0) == 0) {
		result = segment_view_open(segment->file.base,
		    segment->file.size, &segment->view, why, why_size);
		segment_guard_armed = 0;
	} else {
		snprintf(why, why_size, "cut short while it was read");
	}
	return result;
}

/* What `segment` may be charged now: the least of its own budget, the
 * amplification bound and what the other segments of its owner leave;
 * `which` names the limit. */
static uint64_t
segment_memory_limit(const struct suppliers_context *context,
    const struct served_segment *segment, const char **which)
{
	uint64_t others = 0;

	if (context->owner_charges_valid) {
		uint64_t all = segment_budget_owners_bytes(
		    &context->owner_charges, (uint32_t)segment->owner);
		others = all > segment->charge_counted
		             ? all - segment->charge_counted
		             : 0;
	} else {
		for (size_t i = 0; i < context->segment_count; i++) {
			const struct served_segment *other =
			    context->segments[i];
			if (other != segment && other->owner == segment->owner)
				others = segment_budget_add(others,
				    segment_budget_add(other->classes_bytes,
				        other->instances_bytes));
		}
	}
	return segment_budget_memory_limit(
	    &context->limits, segment->file.size, others, which);
}

/* The refusal of a segment over its memory budget, in `why`. */
static void
memory_refusal(const struct served_segment *segment, uint64_t bytes,
    uint64_t limit, const char *which, char *why, size_t why_size)
{
	snprintf(why, why_size,
	    "owner uid %lu: serving it would take %" PRIu64
	    " bytes of dcistatd's memory, over %s (%" PRIu64 " bytes)",
	    (unsigned long)segment->owner, bytes, which, limit);
}

/* Counts what the classes [from, count) of `segment` claim, before any is
 * read (under the caller's guard); -1 with the refusal in `why` when the
 * segment would go over its memory budget. */
static int
classes_claim(const struct suppliers_context *context,
    const struct served_segment *segment, uint32_t from, uint32_t count,
    char *why, size_t why_size)
{
	const char *which;
	uint64_t limit = segment_memory_limit(context, segment, &which);
	uint64_t bytes = segment_budget_add(
	    segment->classes_bytes, segment->instances_bytes);

	for (uint32_t c = from; c < count; c++)
		bytes = segment_budget_add(
		    bytes, segment_class_claimed_bytes(&segment->view, c));
	if (bytes <= limit)
		return 0;
	memory_refusal(segment, bytes, limit, which, why, why_size);
	return -1;
}

/* classes_claim of the classes a new segment published, under the guard. */
static int
classes_claim_guarded(const struct suppliers_context *context,
    const struct served_segment *segment, char *why, size_t why_size)
{
	volatile int result = -1;

	segment_guard_armed = 1;
	if (sigsetjmp(segment_guard_jump, 0) == 0) {
		result = classes_claim(context, segment, 0,
		    segment_class_count(&segment->view), why, why_size);
		segment_guard_armed = 0;
	} else {
		snprintf(why, why_size, "cut short while it was read");
	}
	return result;
}

/* Opens, validates and registers a new segment; logs and remembers a
 * refusal (`retrying`: one already logged, whose module was taken).
 * Returns true when it is served. */
static bool
segment_add(struct suppliers_context *context, int directory_descriptor,
    const char *name, const struct stat *status, bool retrying)
{
	bool collision = false;

	struct served_segment *segment = calloc(1, sizeof(*segment));
	struct served_segment **grown;
	struct dci_supplier_info info;
	char why[512];

	if (segment == NULL || (segment->name = strdup(name)) == NULL) {
		free(segment);
		return false;
	}
	if (segment_file_open(directory_descriptor, name, &context->owners,
	        sizeof(struct dcistat_segment_header),
	        context->max_segment_size, &segment->file, why,
	        sizeof(why)) != 0)
		goto refused;
	if (view_open_guarded(segment, why, sizeof(why)) != 0)
		goto refused;
	if (!segment_owner_alive(segment->view.pid,
	        segment->view.process_start)) {
		/* Left behind by a process that died: cleaned up. */
		dci_log(context->host, DCI_LOG_INFO,
		    "%s/%s: its process %u is gone; removed", context->directory,
		    name, segment->view.pid);
		unlinkat(directory_descriptor, name, 0);
		segment_file_close(&segment->file);
		free(segment->name);
		free(segment);
		return false;
	}
	{
		struct stat opened;
		if (fstat(segment->file.descriptor, &opened) != 0) {
			snprintf(
			    why, sizeof(why), "fstat: %s", strerror(errno));
			goto refused;
		}
		segment->owner = opened.st_uid;
	}
	/* Counted before anything is copied: what the classes published
	 * claim, against the budgets. */
	if (classes_claim_guarded(context, segment, why, sizeof(why)) != 0)
		goto refused;
	grown = realloc(context->segments,
	    (context->segment_count + 1) * sizeof(*grown));
	if (grown == NULL) {
		snprintf(why, sizeof(why), "out of memory");
		goto refused;
	}
	context->segments = grown;
	info = (struct dci_supplier_info){.module = segment->view.module,
	    .title = segment->view.title,
	    .description = segment->view.description,
	    .type = segment->view.supplier_type,
	    .version = segment->view.supplier_version};
	if (retrying && served_by_module(context, segment->view.module)) {
		segment_file_close(&segment->file);
		free(segment->name);
		free(segment);
		return false;
	}
	segment->supplier = dci_supplier_register(context->host, &info);
	if (segment->supplier == NULL) {
		collision = true;
		const struct served_segment *other =
		    served_by_module(context, segment->view.module);
		if (other != NULL)
			snprintf(why, sizeof(why),
			    "supplier \"%s\" is already served from %s/%s",
			    segment->view.module, context->directory,
			    other->name);
		else
			snprintf(why, sizeof(why),
			    "supplier \"%s\" refused (the reason is above)",
			    segment->view.module);
		goto refused;
	}
	segment->seen = true;
	context->segments[context->segment_count++] = segment;
	dci_log(context->host, DCI_LOG_INFO,
	    "%s/%s: supplier \"%s\" (pid %u) served", context->directory,
	    name, segment->view.module, segment->view.pid);
	return true;

refused:
	if (!retrying) {
		dci_log(context->host, DCI_LOG_WARNING, "%s/%s refused: %s",
		    context->directory, name, why);
		refuse_file(context, status, collision);
	}
	segment_file_close(&segment->file);
	free(segment->name);
	free(segment);
	return false;
}

static bool
segment_name(const char *name)
{
	size_t length = strnlen(name, NAME_MAX + 1);
	size_t suffix = sizeof(DCISTAT_SEGMENT_SUFFIX) - 1;

	return name[0] != '.' && length > suffix && length <= NAME_MAX &&
	       strcmp(name + length - suffix, DCISTAT_SEGMENT_SUFFIX) == 0;
}

/* Marks the segments still in the directory, adds new ones. -1: the
 * directory cannot be read. */
static int
directory_scan(struct suppliers_context *context)
{
	DIR *directory = opendir(context->directory);
	struct dirent *entry;
	int descriptor;

	if (directory == NULL) {
		dci_log(context->host, DCI_LOG_ERR, "cannot read %s: %s",
		    context->directory, strerror(errno));
		return -1;
	}
	descriptor = dirfd(directory);
	for (size_t i = 0; i < context->refused_count; i++)
		context->refused[i].seen = false;
	while ((entry = readdir(directory)) != NULL) {
		struct served_segment *segment;
		struct refused_file *refused;
		struct stat status;

		if (!segment_name(entry->d_name) ||
		    fstatat(descriptor, entry->d_name, &status,
		        AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if ((segment = served_find(context, &status)) != NULL) {
			segment->seen = true;
			continue;
		}
		if ((refused = refused_find(context, &status)) != NULL) {
			refused->seen = true;
			if (refused->collision &&
			    context->segment_count < context->max_segments &&
			    segment_add(context, descriptor, entry->d_name,
			        &status, true))
				refused->seen = false; /* served now */
			continue;
		}
		if (context->segment_count >= context->max_segments) {
			if (!context->over_limit_logged)
				dci_log(context->host, DCI_LOG_WARNING,
				    "%s: more than %zu segments; the others "
				    "wait (option max-segments)",
				    context->directory, context->max_segments);
			context->over_limit_logged = true;
			continue;
		}
		segment_add(context, descriptor, entry->d_name, &status, false);
	}
	closedir(directory);
	/* A refused file that went away is forgotten. */
	for (size_t i = 0; i < context->refused_count;) {
		if (!context->refused[i].seen)
			context->refused[i] =
			    context->refused[--context->refused_count];
		else
			i++;
	}
	return 0;
}

/* Whether the owner of `segment` still runs: the pid alone between full
 * scans, the pid and its start time at a full scan. */
static bool
owner_alive(const struct served_segment *segment, bool full)
{
	if (!full)
		return segment->view.pid != 0 && segment->view.pid <= INT32_MAX &&
		       (kill((pid_t)segment->view.pid, 0) == 0 ||
		           errno == EPERM);
	return segment_owner_alive(
	    segment->view.pid, segment->view.process_start);
}

/* Withdraws the segments whose file went, whose owner closed them or
 * died. */
static void
segments_retire(struct suppliers_context *context, bool full)
{
	for (size_t i = 0; i < context->segment_count;) {
		struct served_segment *segment = context->segments[i];
		const char *reason = NULL;
		bool remove = false;

		if (!segment->seen)
			reason = "its file was removed";
		else if (segment_closed(&segment->view))
			reason = "its application closed it";
		else if (!owner_alive(segment, full)) {
			reason = "its process exited";
			remove = true;
		}
		segment->seen = false;
		if (reason == NULL) {
			i++;
			continue;
		}
		dci_log(context->host, DCI_LOG_INFO,
		    "%s/%s: supplier \"%s\" withdrawn: %s", context->directory,
		    segment->name, segment->view.module, reason);
		if (remove) {
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "%s/%s",
			    context->directory, segment->name);
			unlink(path);
		}
		segment_free(context, segment);
		context->segments[i] =
		    context->segments[--context->segment_count];
		context->over_limit_logged = false;
	}
}

/* --- Classes and values --- */

static int
class_register(struct suppliers_context *context,
    struct served_segment *segment, uint32_t index)
{
	struct segment_class *copy = &segment->classes[index];
	struct dci_datum_info datums[SEGMENT_READER_DATUMS_PER_CLASS_MAX];
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
	struct dci_class_info info;

	id[0] = DCISTAT_SUPPLIER_CLASS_ARC;
	id[1] = segment->view.number;
	memcpy(id + 2, copy->id, copy->id_length * sizeof(uint32_t));
	for (uint32_t d = 0; d < copy->datum_count; d++) {
		const struct dcistat_segment_datum *datum = &copy->datums[d];
		datums[d] = (struct dci_datum_info){.id = datum->id,
		    .label = datum->label,
		    .type = (enum dci_type)datum->type,
		    .format = datum->format,
		    .presentation = datum->presentation,
		    .size = datum->size,
		    .volatility = datum->volatility,
		    .unit = (enum dci_unit)datum->unit,
		    .semantics = (enum dci_semantics)datum->semantics,
		    .description = datum->description[0] != '\0'
		                       ? datum->description
		                       : NULL};
	}
	info = (struct dci_class_info){.id = id,
	    .id_length = copy->id_length + 2,
	    .label = copy->label,
	    .description = copy->description[0] != '\0' ? copy->description
	                                                : NULL,
	    .levels = copy->levels,
	    .level_count = copy->level_count,
	    .datums = datums,
	    .datum_count = copy->datum_count};
	segment->handles[index] =
	    dci_class_register(context->host, segment->supplier, &info);
	if (segment->handles[index] == NULL) {
		dci_log(context->host, DCI_LOG_WARNING,
		    "%s/%s: class \"%s\" of supplier \"%s\" not served (the "
		    "reason is above)",
		    context->directory, segment->name, copy->label,
		    segment->view.module);
		return -1;
	}
	return 0;
}

/* Reads and registers the classes published since the last refresh, once
 * what they claim fits the segment's memory budget. -1 with the refusal in
 * `why` when it does not: the segment is then refused whole. */
static int
classes_update(struct suppliers_context *context,
    struct served_segment *segment, char *why, size_t why_size)
{
	uint32_t count = segment_class_count(&segment->view);
	const char *which;
	uint64_t limit;
	char class_why[512];

	if (count <= segment->class_count)
		return 0;
	if (classes_claim(context, segment, segment->class_count, count, why,
	        why_size) != 0)
		return -1;
	/* Grown to what the writer published, not to its capacity: a
	 * segment's claims cost memory only once they are true. */
	{
		struct segment_class *classes =
		    realloc(segment->classes, count * sizeof(*classes));
		struct dci_class **handles;
		struct dci_batch **batches;

		if (classes == NULL)
			return 0;
		segment->classes = classes;
		handles = realloc(segment->handles, count * sizeof(*handles));
		if (handles == NULL)
			return 0;
		segment->handles = handles;
		batches = realloc(segment->batches, count * sizeof(*batches));
		if (batches == NULL)
			return 0;
		segment->batches = batches;
		for (uint32_t c = segment->class_count; c < count; c++) {
			memset(&classes[c], 0, sizeof(classes[c]));
			handles[c] = NULL;
			batches[c] = NULL;
		}
	}
	/* Counted in before the copies: a read cut short (SIGBUS) leaves
	 * every copy made where segment_forget_classes frees it. */
	uint32_t first = segment->class_count;
	segment->class_count = count;
	limit = segment_memory_limit(context, segment, &which);
	for (uint32_t c = first; c < count; c++) {
		struct segment_class *copy = &segment->classes[c];
		uint64_t charged = segment_budget_add(
		    segment->classes_bytes, segment->instances_bytes);
		bool over;

		/* The records may have changed since they were counted. */
		if (segment_class_read_within(&segment->view, c,
		        charged < limit ? limit - charged : 0, copy, &over,
		        class_why, sizeof(class_why)) != 0) {
			if (over) {
				memory_refusal(segment,
				    segment_budget_add(
				        charged, copy->memory_bytes),
				    limit, which, why, why_size);
				return -1;
			}
			dci_log(context->host, DCI_LOG_WARNING,
			    "%s/%s: class %u refused: %s", context->directory,
			    segment->name, c, class_why);
			continue;
		}
		segment->classes_bytes += copy->memory_bytes;
		if (class_register(context, segment, c) != 0) {
			segment->classes_bytes -= copy->memory_bytes;
			segment_class_clear(copy);
		}
	}
	return 0;
}

static int
values_capacity(struct suppliers_context *context, uint32_t count)
{
	if (count <= context->value_capacity)
		return 0;
	struct segment_value *grown =
	    realloc(context->values, count * sizeof(*grown));
	if (grown == NULL)
		return -1;
	context->values = grown;
	context->value_capacity = count;
	return 0;
}

/* Masks an unsigned value to its datum's width: 32-bit bucket counters
 * and the like wrap as Counter32 does. */
static uint64_t
datum_width_mask(const struct dcistat_segment_datum *datum, uint64_t value)
{
	uint32_t size = datum->size;

	if (size == 0) {
		switch (datum->type) {
		case DCI_ST_INTEGER8:
			size = 1;
			break;
		case DCI_ST_INTEGER16:
			size = 2;
			break;
		case DCI_ST_INTEGER32:
			size = 4;
			break;
		default:
			size = 8;
		}
	}
	return size >= 8 ? value : value & ((UINT64_C(1) << (8 * size)) - 1);
}

static void
instance_values_set(struct dci_batch *batch, long row,
    const struct segment_class *copy, const struct segment_value *values)
{
	for (uint32_t d = 0; d < copy->datum_count; d++) {
		const struct dcistat_segment_datum *datum = &copy->datums[d];
		if (!values[d].present)
			continue;
		if (datum->combine == DCISTAT_COMBINE_STRING)
			dci_batch_set_bytes(batch, row, datum->id,
			    values[d].text, values[d].text_length);
		else if (datum->is_signed)
			dci_batch_set_signed(
			    batch, row, datum->id, (int64_t)values[d].number);
		else
			dci_batch_set_unsigned(batch, row, datum->id,
			    datum->type >= DCI_ST_INTEGER8 &&
			            datum->type <= DCI_ST_INTEGER64 &&
			            datum->semantics == DCI_SEMANTICS_COUNTER
			        ? datum_width_mask(datum, values[d].number)
			        : values[d].number);
	}
}

/* The refusal of a segment whose refresh would go over its work budget,
 * in `why`. */
static void
work_refusal(const struct suppliers_context *context,
    const struct served_segment *segment, uint64_t work, char *why,
    size_t why_size)
{
	snprintf(why, why_size,
	    "owner uid %lu: its refresh would take more than %" PRIu64
	    " work units (%" PRIu64 " counted), over max-segment-work",
	    (unsigned long)segment->owner, context->limits.segment_work, work);
}

/* Serves one segment's instances; under the guard. Each instance is
 * counted against the segment's memory and work budgets before its values
 * are read and its row made (context->scratch.work counts the work).
 * Returns the number of instances skipped (a writer inside an update), or
 * -1 for a malformed record or a budget exceeded (reason in `why`). */
static long
segment_read(struct suppliers_context *context, struct served_segment *segment,
    uint64_t now_microseconds, char *why, size_t why_size)
{
	uint32_t high = segment_instance_high(&segment->view);
	long skipped = 0;
	struct segment_scratch *scratch = &context->scratch;
	uint64_t work_limit = context->limits.segment_work;
	const char *which;
	uint64_t memory_limit = segment_memory_limit(context, segment, &which);
	uint64_t bytes = segment->classes_bytes;

	for (uint32_t c = 0; c < segment->class_count; c++) {
		if (segment->handles[c] != NULL)
			segment->batches[c] =
			    dci_batch_begin(context->host, segment->handles[c]);
	}
	segment_scratch_clear(scratch);
	scratch->work_limit = work_limit;
	for (uint32_t i = 0; i < high; i++) {
		struct segment_instance instance;
		struct segment_class *copy;
		struct dci_batch *batch;
		long row;
		uint64_t work;
		int state;

		if (scratch->work >= work_limit) {
			work_refusal(
			    context, segment, scratch->work, why, why_size);
			return -1;
		}
		scratch->work++;
		state =
		    segment_instance_read(&segment->view, i, segment->classes,
		        segment->class_count, &instance, why, why_size);
		if (state < 0)
			return -1;
		if (state == 0)
			continue;
		scratch->work += SEGMENT_BUDGET_INSTANCE_WORK;
		copy = &segment->classes[instance.class_index];
		batch = segment->batches[instance.class_index];
		if (batch == NULL)
			continue;
		work = segment_values_work(
		    &segment->view, copy, &instance, scratch);
		if (work > work_limit - scratch->work) {
			work_refusal(context, segment,
			    segment_budget_add(scratch->work, work), why,
			    why_size);
			return -1;
		}
		bytes = segment_budget_add(bytes, copy->instance_bytes);
		/* The scratch copy of its block in every region is held
		 * while it is read: charged too. */
		if (segment_budget_add(bytes, segment_values_scratch_bytes(
		                                  &segment->view, &instance)) >
		    memory_limit) {
			memory_refusal(segment,
			    segment_budget_add(
			        bytes, segment_values_scratch_bytes(
			                   &segment->view, &instance)),
			    memory_limit, which, why, why_size);
			return -1;
		}
		if (values_capacity(context, copy->datum_count) != 0 ||
		    segment_values_read(&segment->view, copy, &instance,
		        now_microseconds, scratch, context->values) != 0) {
			/* A copy that gave up at the work limit. */
			if (scratch->work >= work_limit ||
			    work_limit - scratch->work <
			        segment_values_work(
			            &segment->view, copy, &instance, scratch)) {
				work_refusal(context, segment,
				    segment_budget_add(scratch->work, work),
				    why, why_size);
				return -1;
			}
			skipped++;
			continue;
		}
		row = dci_batch_instance(
		    batch, instance.id, copy->id_words, instance.label);
		if (row < 0)
			continue;
		instance_values_set(batch, row, copy, context->values);
		if (instance.parent != 0) {
			struct segment_instance parent;
			scratch->work += SEGMENT_BUDGET_INSTANCE_WORK;
			if (segment_instance_read(&segment->view,
			        instance.parent - 1, segment->classes,
			        segment->class_count, &parent, why,
			        why_size) == 1 &&
			    parent.class_index == instance.class_index)
				dci_batch_instance_parent(
				    batch, row, parent.id, copy->id_words);
		}
	}
	segment->instances_bytes = bytes - segment->classes_bytes;
	return skipped;
}

static void
batches_end(struct suppliers_context *context, struct served_segment *segment,
    bool commit)
{
	for (uint32_t c = 0; c < segment->class_count; c++) {
		if (segment->batches[c] == NULL)
			continue;
		if (commit)
			dci_batch_commit(segment->batches[c]);
		else
			dci_batch_abort(segment->batches[c]);
		segment->batches[c] = NULL;
	}
}

/* Serves a segment, or refuses it (its supplier withdrawn) when it is
 * malformed, cut short or over a budget. Returns false when it was
 * refused. The work it took is in context->scratch.work. */
static bool
segment_serve(struct suppliers_context *context,
    struct served_segment *segment, uint64_t now_microseconds)
{
	char why[512] = "";
	volatile long skipped = 0;

	segment_guard_armed = 1;
	if (sigsetjmp(segment_guard_jump, 0) == 0) {
		if (classes_update(context, segment, why, sizeof(why)) != 0)
			skipped = -1;
		else if (segment->classes != NULL)
			skipped = segment_read(context, segment,
			    now_microseconds, why, sizeof(why));
		segment_guard_armed = 0;
	} else {
		snprintf(why, sizeof(why), "the file was cut short while it "
		                           "was read");
		skipped = -1;
	}
	if (skipped < 0) {
		if (segment->batches != NULL)
			batches_end(context, segment, false);
		dci_log(context->host, DCI_LOG_WARNING,
		    "%s/%s refused: %s; supplier \"%s\" withdrawn",
		    context->directory, segment->name, why,
		    segment->view.module);
		return false;
	}
	if (segment->batches != NULL)
		batches_end(context, segment, true);
	if (skipped > 0 && !segment->skipped_logged)
		dci_log(context->host, DCI_LOG_WARNING,
		    "%s/%s: %ld instance%s skipped: a writer stopped inside an "
		    "update",
		    context->directory, segment->name, (long)skipped,
		    skipped == 1 ? "" : "s");
	segment->skipped_logged = skipped > 0;
	return true;
}

/* --- Provider --- */

static void
context_free(struct suppliers_context *context)
{
	/* At fini the host withdraws everything this provider registered. */
	for (size_t i = 0; i < context->segment_count; i++) {
		context->segments[i]->supplier = NULL;
		segment_free(context, context->segments[i]);
	}
	free(context->segments);
	free(context->turns);
	segment_budget_owners_free(&context->owner_charges);
	free(context->refused);
	if (context->watch >= 0)
		close(context->watch);
	free(context->directory);
	free(context->owners.uids);
	free(context->owners.gids);
	segment_scratch_clear(&context->scratch);
	free(context->values);
	free(context);
}

static int
suppliers_init(struct dci_host *host, void **context_pointer)
{
	struct suppliers_context *context = calloc(1, sizeof(*context));
	const char *directory = dci_option_string(host, "directory");
	uint64_t max_segments, max_size;
	struct segment_budget_limits *limits;

	if (context == NULL) {
		dci_log(host, DCI_LOG_ERR, "out of memory");
		return -1;
	}
	context->host = host;
	context->watch = -1;
	if (parse_unsigned(host, "max-segments", 1,
	        SUPPLIERS_MAX_SEGMENTS_LIMIT, SUPPLIERS_MAX_SEGMENTS_DEFAULT,
	        &max_segments) != 0 ||
	    parse_unsigned(host, "max-segment-size",
	        sizeof(struct dcistat_segment_header), UINT64_C(1) << 40,
	        SUPPLIERS_MAX_SEGMENT_SIZE_DEFAULT, &max_size) != 0 ||
	    owners_parse(context) != 0)
		goto failed;
	limits = &context->limits;
	if (parse_unsigned(host, "max-segment-memory", UINT64_C(1) << 16,
	        UINT64_C(1) << 40, SEGMENT_BUDGET_SEGMENT_BYTES_DEFAULT,
	        &limits->segment_bytes) != 0 ||
	    parse_unsigned(host, "max-user-memory", UINT64_C(1) << 16,
	        UINT64_C(1) << 40, SEGMENT_BUDGET_USER_BYTES_DEFAULT,
	        &limits->user_bytes) != 0 ||
	    parse_unsigned(host, "max-refresh-work", UINT64_C(1) << 16,
	        UINT64_C(1) << 40, SEGMENT_BUDGET_REFRESH_WORK_DEFAULT,
	        &limits->refresh_work) != 0 ||
	    parse_unsigned(host, "max-segment-work", UINT64_C(1) << 12,
	        limits->refresh_work,
	        limits->refresh_work < SEGMENT_BUDGET_SEGMENT_WORK_DEFAULT
	            ? limits->refresh_work
	            : SEGMENT_BUDGET_SEGMENT_WORK_DEFAULT,
	        &limits->segment_work) != 0)
		goto failed;
	if (directory != NULL && directory[0] != '/') {
		dci_option_error(host, "directory", "expected an absolute path");
		goto failed;
	}
	context->directory =
	    strdup(directory != NULL ? directory : DCISTAT_SUPPLIER_DIRECTORY);
	if (context->directory == NULL)
		goto failed;
	context->max_segments = (size_t)max_segments;
	context->max_segment_size = max_size;
	if (directory_prepare(context) != 0)
		goto failed;
	context->watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (context->watch >= 0 &&
	    inotify_add_watch(context->watch, context->directory,
	        IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM |
	            IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF |
	            IN_ONLYDIR) < 0) {
		close(context->watch);
		context->watch = -1;
	}
	if (context->watch < 0)
		dci_log(host, DCI_LOG_INFO,
		    "no inotify on %s (%s): it is rescanned at every refresh",
		    context->directory, strerror(errno));
	if (segment_guard_install() != 0) {
		dci_log(host, DCI_LOG_ERR, "cannot install a SIGBUS handler");
		goto failed;
	}
	*context_pointer = context;
	return 0;

failed:
	context_free(context);
	return -1;
}

/* Serves the segments whose turn it is (segment_rotation.h), marking
 * those refused. */
static void
segments_serve_in_turn(struct suppliers_context *context, uint64_t now)
{
	uint64_t spent = 0;
	size_t others_served = 0;

	if (context->segment_count > context->turn_capacity) {
		struct segment_turn **grown = realloc(
		    context->turns, context->segment_count * sizeof(*grown));
		if (grown == NULL)
			return; /* nothing served: stale, not wrong */
		context->turns = grown;
		context->turn_capacity = context->segment_count;
	}
	for (size_t i = 0; i < context->segment_count; i++)
		context->turns[i] = &context->segments[i]->turn;
	/* Each owner's charge in a table for the refresh, kept as each
	 * segment's changes. */
	context->owner_charges_valid =
	    segment_budget_owners_reset(
	        &context->owner_charges, context->segment_count) == 0;
	for (size_t i = 0; i < context->segment_count; i++) {
		struct served_segment *segment = context->segments[i];
		segment->charge_counted = segment_budget_add(
		    segment->classes_bytes, segment->instances_bytes);
		segment_budget_owners_add(&context->owner_charges,
		    (uint32_t)segment->owner, segment->charge_counted, false);
	}
	segment_rotation_order(context->turns, context->segment_count,
	    context->limits.refresh_work);
	for (size_t i = 0; i < context->segment_count; i++) {
		struct segment_turn *turn = context->turns[i];
		struct served_segment *segment =
		    (struct served_segment *)((char *)turn -
		                              offsetof(
		                                  struct served_segment, turn));

		if (!segment_rotation_due(turn, spent, others_served,
		        context->limits.refresh_work)) {
			segment_rotation_record(turn, false, 0, 0);
			continue;
		}
		if (!turn->cheap)
			others_served++;
		segment->refused = !segment_serve(context, segment, now);
		spent = segment_budget_add(spent, context->scratch.work);
		segment_budget_owners_add(&context->owner_charges,
		    (uint32_t)segment->owner, segment->charge_counted, true);
		segment->charge_counted =
		    segment->refused
		        ? 0
		        : segment_budget_add(
		              segment->classes_bytes, segment->instances_bytes);
		segment_budget_owners_add(&context->owner_charges,
		    (uint32_t)segment->owner, segment->charge_counted, false);
		segment_rotation_record(
		    turn, true, context->scratch.work, ++context->served_count);
		/* A large scratch is not kept for the next segment. */
		if (context->scratch.capacity > SUPPLIERS_SCRATCH_KEPT_WORDS)
			segment_scratch_clear(&context->scratch);
	}
	context->owner_charges_valid = false;
}

/* Drains the directory's inotify events; true when a full scan is due:
 * an event came, the queue overflowed, or the last scan is old. */
static bool
directory_changed(struct suppliers_context *context, uint64_t now)
{
	char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	ssize_t length;

	if (context->watch < 0 || context->last_scan_microseconds == 0 ||
	    now - context->last_scan_microseconds >=
	        SUPPLIERS_RESCAN_MICROSECONDS)
		changed = true;
	while (context->watch >= 0 &&
	       (length = read(context->watch, events, sizeof(events))) > 0)
		changed = true;
	return changed;
}

static int
suppliers_refresh(struct dci_host *host, void *context_pointer)
{
	struct suppliers_context *context = context_pointer;
	uint64_t now_microseconds = monotonic_microseconds();

	(void)host;
	bool full;

	segment_guard_thread();
	full = directory_changed(context, now_microseconds);
	if (full) {
		if (directory_scan(context) != 0)
			return -1;
		context->last_scan_microseconds = now_microseconds;
	} else {
		for (size_t i = 0; i < context->segment_count; i++)
			context->segments[i]->seen = true;
	}
	segments_retire(context, full);
	segments_serve_in_turn(context, now_microseconds);
	for (size_t i = 0; i < context->segment_count;) {
		struct served_segment *segment = context->segments[i];
		struct stat status;

		if (!segment->refused) {
			i++;
			continue;
		}
		if (fstat(segment->file.descriptor, &status) == 0)
			refuse_file(context, &status, false);
		segment_free(context, segment);
		context->segments[i] =
		    context->segments[--context->segment_count];
	}
	return 0;
}

static void
suppliers_fini(struct dci_host *host, void *context_pointer)
{
	(void)host;
	if (context_pointer != NULL)
		context_free(context_pointer);
	segment_guard_uninstall();
}

static const char *const suppliers_option_keys[] = {"directory", "users",
    "groups", "max-segments", "max-segment-size", "max-segment-memory",
    "max-user-memory", "max-segment-work", "max-refresh-work", NULL};

DCI_PROVIDER_DEFINE = {
    .abi_version = DCI_PROVIDER_ABI_VERSION,
    .name = "suppliers",
    .description = "Statistics that applications publish through "
                   "libdcistat-supplier",
    .option_keys = suppliers_option_keys,
    .init = suppliers_init,
    .refresh = suppliers_refresh,
    .fini = suppliers_fini,
};
