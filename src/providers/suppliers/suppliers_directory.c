/*
 * The run directory of the suppliers provider: its files examined as
 * inotify names them or a full scan finds them, served within the
 * budgets or refused (and remembered), and retired when their owner goes
 * (suppliers_context.h).
 */
#define _GNU_SOURCE
#include "suppliers_context.h"

/* The names of the refused files to read again (refused_reread_written). */
struct written_names {
	char **items;
	size_t count, capacity;
};

static void refused_reread_written(
    struct suppliers_context *context, int descriptor);

/* --- Segments served --- */

void
suppliers_segment_forget_classes(struct served_segment *segment)
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

void
suppliers_segment_free(
    struct suppliers_context *context, struct served_segment *segment)
{
	if (segment->held) {
		struct owner_count *held =
		    owner_counts_get(&context->held, segment->file.owner);
		if (held != NULL && held->served > 0)
			held->served--;
		if (held != NULL &&
		    held->served < context->max_segments_per_uid)
			held->served_full_logged = false;
	}
	if (segment->supplier != NULL)
		dci_supplier_withdraw(context->base.host, segment->supplier);
	suppliers_segment_forget_classes(segment);
	segment_file_close(&segment->file);
	free(segment->name);
	free(segment);
}

/* Remembers a refused file, counted against its owner's share (the
 * caller checked that the share has room). */
void
suppliers_refuse_file_owned(struct suppliers_context *context,
    const struct stat *status, bool collision,
    const struct refused_owner *owner)
{
	struct owner_count *held =
	    owner_counts_get(&context->held, status->st_uid);
	struct refused_file *refused;

	if (held == NULL || refused_set_find(&context->refused, status) != NULL)
		return;
	refused = refused_set_add(&context->refused, status);
	if (refused == NULL)
		return;
	held->refused++;
	refused->collision = collision;
	if (owner != NULL && (refused->name = strdup(owner->name)) != NULL) {
		refused->has_owner = true;
		refused->pid = owner->pid;
		refused->start = owner->start;
	}
}

static void
refuse_file(struct suppliers_context *context, const struct stat *status,
    bool collision)
{
	suppliers_refuse_file_owned(context, status, collision, NULL);
}

/* A refused file went: its owner holds one refusal less, and when that
 * brings it under max-refused-per-uid, the limit is logged again the next
 * time it holds a file back. */
static void
refused_uncount(
    struct suppliers_context *context, const struct refused_file *refused)
{
	struct owner_count *held =
	    owner_counts_get(&context->held, refused->uid);

	if (held != NULL && held->refused > 0)
		held->refused--;
	if (held != NULL && held->refused < context->max_refused_per_uid)
		held->refused_full_logged = false;
}

/* Forgets a refused file (gone, or changed: to be read again). */
static void
refused_forget(struct suppliers_context *context, struct refused_file *refused)
{
	refused_uncount(context, refused);
	refused_set_remove(&context->refused, refused);
}

/* Whether a refusal or removal may name its file in the log in this
 * refresh; else it is counted for suppliers_files_summarize. */
static bool
file_log_allowed(struct suppliers_context *context)
{
	if (context->files_logged < SUPPLIERS_FILES_LOGGED_PER_REFRESH) {
		context->files_logged++;
		return true;
	}
	context->files_unlogged++;
	return false;
}

/* The line for the refusals and removals a refresh did not name. */
void
suppliers_files_summarize(struct suppliers_context *context)
{
	if (context->files_unlogged > 0)
		dci_log(context->base.host, DCI_LOG_WARNING,
		    "%s: %zu more files refused or removed in this refresh, "
		    "not named (at most %u a refresh are)",
		    context->directory, context->files_unlogged,
		    SUPPLIERS_FILES_LOGGED_PER_REFRESH);
	context->files_logged = 0;
	context->files_unlogged = 0;
}

/* Removes `name`, whose owner is gone (`why`), if it is still the file
 * `device`/`inode` (not one put in its place since). Returns true when
 * the file is gone; false, logged with the reason, when it cannot be
 * removed (dcistatd under -u, in a directory it may not change): the
 * caller remembers the file, so that this is said once. */
static bool
dead_file_remove(struct suppliers_context *context, int directory_descriptor,
    const char *name, dev_t device, ino_t inode, const char *why)
{
	struct stat status;

	if (fstatat(directory_descriptor, name, &status, AT_SYMLINK_NOFOLLOW) !=
	        0 ||
	    status.st_dev != device || status.st_ino != inode) {
		if (file_log_allowed(context))
			dci_log(context->base.host, DCI_LOG_INFO,
			    "%s/%s: %s; already gone", context->directory, name,
			    why);
		return true;
	}
	if (unlinkat(directory_descriptor, name, 0) != 0) {
		if (file_log_allowed(context))
			dci_log(context->base.host, DCI_LOG_WARNING,
			    "%s/%s: %s, but it cannot be removed: %s (it "
			    "stays until its owner or root removes it)",
			    context->directory, name, why, strerror(errno));
		return false;
	}
	if (file_log_allowed(context))
		dci_log(context->base.host, DCI_LOG_INFO, "%s/%s: %s; removed",
		    context->directory, name, why);
	return true;
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
uint64_t
suppliers_segment_memory_limit(const struct suppliers_context *context,
    const struct served_segment *segment, const char **which)
{
	uint64_t others = 0;

	if (context->owner_charges_valid) {
		uint64_t all = segment_budget_owners_bytes(
		    &context->owner_charges, (uint32_t)segment->file.owner);
		others = all > segment->charge_counted
		             ? all - segment->charge_counted
		             : 0;
	} else {
		for (size_t i = 0; i < context->segment_count; i++) {
			const struct served_segment *other =
			    context->segments[i];
			if (other != segment &&
			    other->file.owner == segment->file.owner)
				others = segment_budget_add(others,
				    segment_budget_add(other->classes_bytes,
				        other->instances_bytes));
		}
	}
	return segment_budget_memory_limit(
	    &context->limits, segment->file.size, others, which);
}

/* The refusal of a segment over its memory budget, in `why`. */
void
suppliers_memory_refusal(const struct served_segment *segment, uint64_t bytes,
    uint64_t limit, const char *which, char *why, size_t why_size)
{
	snprintf(why, why_size,
	    "owner uid %lu: serving it would take %" PRIu64
	    " bytes of dcistatd's memory, over %s (%" PRIu64 " bytes)",
	    (unsigned long)segment->file.owner, bytes, which, limit);
}

/* Counts what the classes [from, count) of `segment` claim, before any is
 * read (under the caller's guard); -1 with the refusal in `why` when the
 * segment would go over its memory budget. */
int
suppliers_classes_claim(const struct suppliers_context *context,
    const struct served_segment *segment, uint32_t from, uint32_t count,
    char *why, size_t why_size)
{
	const char *which;
	uint64_t limit =
	    suppliers_segment_memory_limit(context, segment, &which);
	uint64_t bytes = segment_budget_add(
	    segment->classes_bytes, segment->instances_bytes);

	for (uint32_t c = from; c < count; c++)
		bytes = segment_budget_add(
		    bytes, segment_class_claimed_bytes(&segment->view, c));
	if (bytes <= limit)
		return 0;
	suppliers_memory_refusal(segment, bytes, limit, which, why, why_size);
	return -1;
}

/* suppliers_classes_claim of the classes a new segment published, under the
 * guard. */
static int
classes_claim_guarded(const struct suppliers_context *context,
    const struct served_segment *segment, char *why, size_t why_size)
{
	volatile int result = -1;

	segment_guard_armed = 1;
	if (sigsetjmp(segment_guard_jump, 0) == 0) {
		result = suppliers_classes_claim(context, segment, 0,
		    segment_class_count(&segment->view), why, why_size);
		segment_guard_armed = 0;
	} else {
		snprintf(why, why_size, "cut short while it was read");
	}
	return result;
}

/* Whether the segment's owner set its closed flag; a file cut short
 * reads as closed (under the guard). */
static bool
closed_guarded(const struct served_segment *segment)
{
	volatile bool closed = true;

	segment_guard_armed = 1;
	if (sigsetjmp(segment_guard_jump, 0) == 0) {
		closed = segment_closed(&segment->view);
		segment_guard_armed = 0;
	}
	return closed;
}

/* Opens, validates and registers a new segment; logs and remembers a
 * refusal (`retrying`: one already logged, whose module was taken).
 * A segment whose owner is gone is removed instead. Returns true when it
 * is served. */
static bool
segment_add(struct suppliers_context *context, int directory_descriptor,
    const char *name, const struct stat *status, bool retrying)
{
	bool collision = false, header_read = false;
	struct served_segment *segment = calloc(1, sizeof(*segment));
	struct served_segment **grown;
	struct dci_supplier_info info;
	struct owner_count *held;
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
	header_read = true;
	if (!segment_owner_check(segment->view.pid, segment->view.process_start,
	        segment->file.owner, why, sizeof(why))) {
		/* Left behind by a process that died, or naming one that is
		 * not its owner's: removed; remembered when it cannot be, so
		 * that this is said once. */
		if (!dead_file_remove(context, directory_descriptor, name,
		        segment->file.device, segment->file.inode, why))
			refuse_file(context, status, false);
		segment_file_close(&segment->file);
		free(segment->name);
		free(segment);
		return false;
	}
	if (closed_guarded(segment)) {
		snprintf(why, sizeof(why), "its application closed it");
		goto refused;
	}
	if (strcmp(segment->view.module, SUPPLIERS_OWN_NAME) == 0) {
		snprintf(why, sizeof(why),
		    "module \"%s\" is this provider's own name",
		    SUPPLIERS_OWN_NAME);
		goto refused;
	}
	/* Counted before anything is copied: what the classes published
	 * claim, against the budgets. */
	if (classes_claim_guarded(context, segment, why, sizeof(why)) != 0)
		goto refused;
	grown = realloc(
	    context->segments, (context->segment_count + 1) * sizeof(*grown));
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
	held = owner_counts_get(&context->held, segment->file.owner);
	if (held == NULL) {
		snprintf(why, sizeof(why), "out of memory");
		goto refused;
	}
	segment->supplier = dci_supplier_register(context->base.host, &info);
	if (segment->supplier == NULL) {
		/* Another segment's module: tried again when that one goes.
		 * Any other refusal (a configured provider's name, reserved
		 * for it even while it is down) stands. */
		const struct served_segment *other =
		    served_by_module(context, segment->view.module);
		collision = other != NULL;
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
	segment->held = true;
	held->served++;
	context->segments[context->segment_count++] = segment;
	dci_log(context->base.host, DCI_LOG_INFO,
	    "%s/%s: supplier \"%s\" (pid %u) served", context->directory, name,
	    segment->view.module, segment->view.pid);
	return true;

refused:
	if (!retrying) {
		struct refused_owner owner = {.name = name,
		    .pid = segment->view.pid,
		    .start = segment->view.process_start};
		if (file_log_allowed(context))
			dci_log(context->base.host, DCI_LOG_WARNING,
			    "%s/%s refused: %s", context->directory, name, why);
		suppliers_refuse_file_owned(
		    context, status, collision, header_read ? &owner : NULL);
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

/* A limit holds a file back: warns the first time (*logged false) and
 * remembers it did, so that the same limit is not logged at every scan. */
__attribute__((format(printf, 3, 4))) static void
limit_warn_once(
    struct suppliers_context *context, bool *logged, const char *format, ...)
{
	va_list arguments;

	if (!*logged) {
		va_start(arguments, format);
		context->base.host->operations->log(
		    context->base.host, DCI_LOG_WARNING, format, arguments);
		va_end(arguments);
	}
	*logged = true;
}

/* What the directory entry `name` is: a served segment (marked seen), a
 * refused file (tried again, when `retry`, if it was refused for a module
 * another segment serves), or a new file, read within the slots and its
 * owner's shares. `written`: an event said the file was written or its
 * attributes changed, so a refused file whose size and modification time
 * are those refused (a rewrite within one tick of the file system's clock
 * leaves the time as it was) is marked to be read again once all events
 * are drained (refused_reread_written): once a refresh, however many
 * events one user's writes make. `reread`: that read, forgetting the
 * refusal first. */
static void
entry_examine(struct suppliers_context *context, int descriptor,
    const char *name, bool retry, bool written, bool reread)
{
	struct served_segment *segment;
	struct refused_file *refused;
	struct owner_count *held;
	struct stat status;

	if (!segment_name(name) ||
	    fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	refused = refused_set_find(&context->refused, &status);
	if (refused != NULL &&
	    (reread || !refused_file_current(refused, &status))) {
		refused_forget(context, refused);
		refused = NULL;
	}
	if (refused != NULL && written && refused->written_name == NULL)
		refused->written_name = strdup(name); /* NULL: not read again */
	if (refused != NULL) {
		refused->seen = true;
		if (!retry || !refused->collision)
			return;
	} else if ((segment = served_find(context, &status)) != NULL) {
		segment->seen = true;
		return;
	}
	held = owner_counts_get(&context->held, status.st_uid);
	if (held == NULL)
		return;
	if (refused == NULL && held->refused >= context->max_refused_per_uid) {
		limit_warn_once(context, &held->refused_full_logged,
		    "%s: %zu files of uid %u refused; its other files are "
		    "ignored until some go (option max-refused-per-uid)",
		    context->directory, held->refused, (unsigned)status.st_uid);
		return;
	}
	if (context->segment_count >= context->max_segments) {
		limit_warn_once(context, &context->over_limit_logged,
		    "%s: more than %zu segments; the others wait (option "
		    "max-segments)",
		    context->directory, context->max_segments);
		return;
	}
	if (held->served >= context->max_segments_per_uid) {
		limit_warn_once(context, &held->served_full_logged,
		    "%s: uid %u holds %zu segments, its share; its others "
		    "wait (option max-segments-per-uid)",
		    context->directory, (unsigned)status.st_uid, held->served);
		return;
	}
	if (refused == NULL)
		segment_add(context, descriptor, name, &status, false);
	else if (segment_add(context, descriptor, name, &status, true))
		refused_forget(context, refused); /* served now */
}

static bool
refused_unseen(struct refused_file *refused, void *argument)
{
	(void)argument;
	refused->seen = false;
	return false;
}

/* Forgets the refused files a full scan did not see (they went). */
static bool
refused_gone(struct refused_file *refused, void *argument)
{
	struct suppliers_context *context = argument;

	if (refused->seen)
		return false;
	refused_uncount(context, refused);
	return true;
}

/* Reads the whole directory: marks the segments still in it, adds new
 * ones, forgets refused files gone. -1: the directory cannot be read. */
static int
directory_scan(struct suppliers_context *context)
{
	DIR *directory = opendir(context->directory);
	struct dirent *entry;
	int descriptor;

	if (directory == NULL) {
		dci_log(context->base.host, DCI_LOG_ERR, "cannot read %s: %s",
		    context->directory, strerror(errno));
		return -1;
	}
	descriptor = dirfd(directory);
	for (size_t i = 0; i < context->segment_count; i++)
		context->segments[i]->seen = false;
	refused_set_sweep(&context->refused, refused_unseen, NULL);
	while ((entry = readdir(directory)) != NULL)
		entry_examine(
		    context, descriptor, entry->d_name, true, false, false);
	closedir(directory);
	refused_set_sweep(&context->refused, refused_gone, context);
	return 0;
}

static struct served_segment *
served_by_name(struct suppliers_context *context, const char *name)
{
	for (size_t i = 0; i < context->segment_count; i++) {
		if (strcmp(context->segments[i]->name, name) == 0)
			return context->segments[i];
	}
	return NULL;
}

/* Drains the directory's inotify events: a file renamed into it (as the
 * library publishes a segment), written and closed, or whose attributes
 * changed is examined (a file only created, not yet written, waits for
 * its close; one made otherwise, a link, for the next full scan) (unless
 * `full`: a full scan follows), a served segment's name removed or replaced
 * marks it gone. Returns true when a full scan is due: events were lost, or the
 * directory itself went. */
static bool
directory_events(struct suppliers_context *context, bool full)
{
	char events[4096]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	int descriptor = -1;
	ssize_t length;

	while ((length = read(context->watch, events, sizeof(events))) > 0) {
		for (ssize_t at = 0;
		     at + (ssize_t)sizeof(struct inotify_event) <= length;) {
			const struct inotify_event *event =
			    (const struct inotify_event *)(events + at);
			struct served_segment *segment;

			at += (ssize_t)(sizeof(*event) + event->len);
			if (event->mask &
			    (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
				context->watch_lost = true;
			if (event->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF |
			                      IN_MOVE_SELF | IN_IGNORED))
				full = true;
			if (full || event->len == 0 ||
			    !segment_name(event->name))
				continue;
			segment = served_by_name(context, event->name);
			if (event->mask & (IN_DELETE | IN_MOVED_FROM)) {
				if (segment != NULL)
					segment->seen = false;
				continue;
			}
			if (!(event->mask &
			        (IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB)))
				continue;
			if (descriptor < 0)
				descriptor = open(context->directory,
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (descriptor < 0) {
				full = true;
				continue;
			}
			/* Seen again if the name is still its file; else
			 * another was renamed over it, and it went. */
			if (segment != NULL)
				segment->seen = false;
			entry_examine(context, descriptor, event->name, false,
			    (event->mask & (IN_CLOSE_WRITE | IN_ATTRIB)) != 0,
			    false);
		}
	}
	if (descriptor >= 0) {
		refused_reread_written(context, descriptor);
		close(descriptor);
	}
	return full;
}

/* refused_set_sweep's visitor: takes the name of a refused file an event
 * said was written into the list `argument`. */
static bool
refused_take_written(struct refused_file *refused, void *argument)
{
	struct written_names *names = argument;

	if (refused->written_name == NULL)
		return false;
	if (names->count < names->capacity)
		names->items[names->count++] = refused->written_name;
	else
		free(refused->written_name);
	refused->written_name = NULL;
	return false;
}

/* Reads again, once each, the refused files events said were written in
 * this refresh: after the drain, so each is read in its final state. */
static void
refused_reread_written(struct suppliers_context *context, int descriptor)
{
	struct written_names names = {
	    .capacity = context->refused.count,
	};

	if (names.capacity == 0)
		return;
	names.items = calloc(names.capacity, sizeof(*names.items));
	if (names.items == NULL)
		names.capacity =
		    0; /* the names are dropped: read at a rescan */
	refused_set_sweep(&context->refused, refused_take_written, &names);
	for (size_t i = 0; i < names.count; i++) {
		entry_examine(
		    context, descriptor, names.items[i], false, false, true);
		free(names.items[i]);
	}
	free(names.items);
}

/* Watches the run directory's changes that matter: files renamed in or
 * out, written and closed, changed or removed, and the directory itself
 * going. */
int
suppliers_watch_add(struct suppliers_context *context)
{
	/* A directory moved away is still watched: not any more. */
	if (context->watch_descriptor >= 0)
		inotify_rm_watch(context->watch, context->watch_descriptor);
	context->watch_descriptor = inotify_add_watch(context->watch,
	    context->directory,
	    IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_ATTRIB |
	        IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR);
	return context->watch_descriptor < 0 ? -1 : 0;
}

/* Brings the served segments and the refused set up to date with the
 * directory: its events, or a full scan when one is due. */
int
suppliers_directory_update(struct suppliers_context *context, uint64_t now)
{
	bool full = context->watch < 0 ||
	            context->last_scan_microseconds == 0 ||
	            context->rescan_due ||
	            now - context->last_scan_microseconds >=
	                SUPPLIERS_RESCAN_MICROSECONDS;

	for (size_t i = 0; i < context->segment_count; i++)
		context->segments[i]->seen = true;
	if (context->watch >= 0 && directory_events(context, full))
		full = true;
	if (!full)
		return 0;
	if (context->watch_lost) {
		context->watch_lost = false;
		if (suppliers_watch_add(context) != 0) {
			dci_log(context->base.host, DCI_LOG_WARNING,
			    "cannot watch %s again (%s): it is rescanned at "
			    "every refresh",
			    context->directory, strerror(errno));
			close(context->watch);
			context->watch = -1;
		}
	}
	if (directory_scan(context) != 0)
		return -1;
	context->last_scan_microseconds = now;
	context->rescan_due = false;
	return 0;
}

/* Whether the owner of `segment` still runs: the pid alone between full
 * checks; at a full check, the pid, its user and its start time. */
static bool
owner_alive(
    const struct served_segment *segment, bool full, char *why, size_t why_size)
{
	if (!full) {
		snprintf(
		    why, why_size, "its process %u is gone", segment->view.pid);
		return segment_owner_exists(segment->view.pid);
	}
	return segment_owner_check(segment->view.pid,
	    segment->view.process_start, segment->file.owner, why, why_size);
}

/* Withdraws the segments whose file went, whose owner closed them or
 * died; the dead ones' files are removed, closed ones remembered as
 * refused (never served again; removed once their process is gone). */
void
suppliers_segments_retire(struct suppliers_context *context, bool full)
{
	int descriptor = -1;

	for (size_t i = 0; i < context->segment_count;) {
		struct served_segment *segment = context->segments[i];
		const char *reason = NULL;
		bool remove = false, closed = false;
		char why[256];

		if (!segment->seen)
			reason = "its file was removed";
		else if (closed_guarded(segment)) {
			reason = "its application closed it";
			closed = true;
		} else if (!owner_alive(segment, full, why, sizeof(why))) {
			reason = why;
			remove = true;
		}
		if (reason == NULL) {
			i++;
			continue;
		}
		dci_log(context->base.host, DCI_LOG_INFO,
		    "%s/%s: supplier \"%s\" withdrawn: %s", context->directory,
		    segment->name, segment->view.module,
		    remove ? "its process exited" : reason);
		if (remove && descriptor < 0)
			descriptor = open(context->directory,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (remove &&
		    (descriptor < 0 ||
		        !dead_file_remove(context, descriptor, segment->name,
		            segment->file.device, segment->file.inode, reason)))
			closed = true; /* remembered: said once */
		if (closed) {
			struct stat status;
			struct refused_owner owner = {.name = segment->name,
			    .pid = segment->view.pid,
			    .start = segment->view.process_start};
			if (fstat(segment->file.descriptor, &status) == 0)
				suppliers_refuse_file_owned(context, &status,
				    false, remove ? NULL : &owner);
		}
		suppliers_segment_free(context, segment);
		context->segments[i] =
		    context->segments[--context->segment_count];
		context->over_limit_logged = false;
		/* A slot and a module freed: files waiting for either are
		 * tried again. */
		context->rescan_due = true;
	}
	if (descriptor >= 0)
		close(descriptor);
}

/* Removes the refused files whose owner (named by their header) is gone:
 * a crash of an application refused for any reason leaves nothing
 * behind. A removal that fails is logged once. */
bool
suppliers_refused_owner_gone(struct refused_file *refused, void *argument)
{
	struct suppliers_context *context = argument;
	char why[256];
	int descriptor;
	bool removed;

	if (!refused->has_owner ||
	    segment_owner_check(
	        refused->pid, refused->start, refused->uid, why, sizeof(why)))
		return false;
	descriptor =
	    open(context->directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	removed = descriptor >= 0 &&
	          dead_file_remove(context, descriptor, refused->name,
	              refused->device, refused->inode, why);
	if (descriptor >= 0)
		close(descriptor);
	if (!removed) {
		refused->has_owner = false; /* said once */
		return false;
	}
	refused_uncount(context, refused);
	return true;
}
