/*
 * suppliers: a dcistat provider that serves the statistics applications
 * publish through libdcistat-supplier, one supplier per shared-memory
 * segment of the run directory.
 *
 * Each refresh looks at what changed in the directory (inotify names the
 * files created, renamed into it, written, changed or removed; a full
 * rescan when the kernel lost events, when a slot freed, and at least
 * every SUPPLIERS_RESCAN_MICROSECONDS; every refresh without inotify) and
 * then, for each segment served:
 *   - a new file is opened without following links, its owner and size
 *     checked, mapped read-only and its header validated; its supplier is
 *     registered (dci_supplier_register from refresh: suppliers come and
 *     go), so a restarted application is a new supplier, with a new DCI4
 *     reset stamp, and its rows new instances;
 *   - a file gone, closed by its owner, or whose owner died (its pid gone
 *     or reused) has its supplier withdrawn and its rows go; a dead
 *     owner's file is removed (the crash left it behind), a refused one
 *     too, and a removal that fails is logged once with the reason;
 *   - an owner counts only as the process the segment names, running as
 *     the file's owner and started at the recorded time (segment_owner.h);
 *   - a module name is the application's own: the names of configured
 *     providers are reserved for them (the host refuses them, running or
 *     not), and "suppliers" is refused here;
 *   - classes the application added since are registered under
 *     {DCISTAT_SUPPLIER_CLASS_ARC, number, relative id}; a class id
 *     another supplier serves is refused, naming both, and the first keeps
 *     serving;
 *   - every class gets a batch of its live instances, values combined
 *     over the writers' regions (segment_reader.h).
 * Segments are untrusted input: a malformed one is refused with one log
 * line naming the file and what was wrong, and not read again until the
 * file changes (refused_set.h, at most max-refused-per-uid of one user:
 * that user's further files are ignored, said once); a block a writer left
 * half-updated is skipped (counted and logged once per segment); a file cut
 * short while mapped raises SIGBUS, which the guard (segment_file.h) turns into
 * a refusal of that segment.
 *
 * Options:
 *   directory         the run directory (default
 *                     DCISTAT_SUPPLIER_DIRECTORY); created if missing,
 *                     mode 03770 and group the first of `groups` (default
 *                     dcistat) when that group exists, else 01755 root's
 *                     own; setgid, so that a file created in it has its
 *                     group, whatever the creator's primary group
 *   users, groups     besides root and dcistatd's own user, who may own a
 *                     segment (names or numbers): the file's owner is one
 *                     of `users`, or the file's group or one of its
 *                     owner's groups (supplementary ones included) is one
 *                     of `groups`; default group dcistat
 *   max-segments      segments served at once (default 1024)
 *   max-segments-per-uid  of those, held by one user at most (default a
 *                     quarter of max-segments)
 *   max-refused-per-uid   refused files of one user remembered (default
 *                     256); that user's further files are ignored until
 *                     some go
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

#include "format/datum_forms.h"
#include "providers/common/options.h"
#include "suppliers_context.h"

/* --- Options --- */

static bool
id_number(const char *text, unsigned long *number)
{
	char *end;

	errno = 0;
	*number = strtoul(text, &end, 10);
	return errno == 0 && end != text && *end == '\0' && text[0] != '-' &&
	       *number < UINT32_MAX;
}

/* The id that item `index` of option `key` ("users" or "groups") names,
 * a user or group name or a number. -1 after dci_option_error. */
static int
owner_id(
    struct dci_host *host, const char *key, size_t index, unsigned long *number)
{
	bool group = strcmp(key, "groups") == 0;
	const char *name = dci_option_item(host, key, index);

	if (group) {
		const struct group *entry = getgrnam(name);
		if (entry != NULL) {
			*number = entry->gr_gid;
			return 0;
		}
	} else {
		const struct passwd *entry = getpwnam(name);
		if (entry != NULL) {
			*number = entry->pw_uid;
			return 0;
		}
	}
	if (!id_number(name, number)) {
		dci_option_error(
		    host, key, group ? "no such group" : "no such user");
		return -1;
	}
	return 0;
}

static int
owners_parse(struct suppliers_context *context)
{
	struct dci_host *host = context->base.host;
	size_t users = dci_option_count(host, "users");
	size_t groups = dci_option_count(host, "groups");
	bool default_group = !dci_option_present(host, "groups");
	unsigned long number;

	context->owners.uids = calloc(users + 1, sizeof(uid_t));
	context->owners.gids = calloc(groups + 1, sizeof(gid_t));
	if (context->owners.uids == NULL || context->owners.gids == NULL) {
		dci_log(host, DCI_LOG_ERR, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < users; i++) {
		if (owner_id(host, "users", i, &number) != 0)
			return -1;
		context->owners.uids[context->owners.uid_count++] =
		    (uid_t)number;
	}
	for (size_t i = 0; i < groups; i++) {
		if (owner_id(host, "groups", i, &number) != 0)
			return -1;
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
 * keeps one supplier from removing another's segment; the setgid bit
 * gives every file created in it the directory's group, the first of
 * `groups`, so that a user added to that group (usermod -a -G) supplies
 * whatever its primary group. An existing directory is the operator's and
 * left as it is. */
static int
directory_prepare(struct suppliers_context *context)
{
	struct stat status;
	char *parent, *slash;

	if (stat(context->directory, &status) == 0) {
		if (!S_ISDIR(status.st_mode)) {
			dci_log(context->base.host, DCI_LOG_ERR,
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
			dci_log(context->base.host, DCI_LOG_ERR,
			    "cannot create %s: %s", parent, strerror(errno));
			free(parent);
			return -1;
		}
	}
	free(parent);
	if (mkdir(context->directory, 0700) != 0 && errno != EEXIST) {
		dci_log(context->base.host, DCI_LOG_ERR, "cannot create %s: %s",
		    context->directory, strerror(errno));
		return -1;
	}
	if (context->owners.gid_count > 0 &&
	    chown(context->directory, (uid_t)-1, context->owners.gids[0]) ==
	        0) {
		if (chmod(context->directory, 03770) != 0)
			dci_log(context->base.host, DCI_LOG_WARNING,
			    "cannot set the mode of %s: %s", context->directory,
			    strerror(errno));
	} else {
		/* No group (none configured, no group dcistat): only root
		 * and dcistatd's own user may create segments. */
		if (context->owners.gid_count > 0)
			dci_log(context->base.host, DCI_LOG_WARNING,
			    "cannot give %s the group %u: %s",
			    context->directory,
			    (unsigned)context->owners.gids[0], strerror(errno));
		chmod(context->directory, 01755);
	}
	return 0;
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
		datums[d] = (struct dci_datum_info)DATUM_INFO(datum->id,
		    datum->label, (enum dci_type)datum->type, datum->format,
		    datum->presentation, datum->size, datum->volatility,
		    (enum dci_unit)datum->unit,
		    (enum dci_semantics)datum->semantics,
		    datum->description[0] != '\0' ? datum->description : NULL);
	}
	info = (struct dci_class_info)CLASS_INFO(id, copy->id_length + 2,
	    copy->label,
	    copy->description[0] != '\0' ? copy->description : NULL,
	    copy->levels, copy->level_count, datums, copy->datum_count);
	segment->handles[index] =
	    dci_class_register(context->base.host, segment->supplier, &info);
	if (segment->handles[index] == NULL) {
		dci_log(context->base.host, DCI_LOG_WARNING,
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
	if (suppliers_classes_claim(context, segment, segment->class_count,
	        count, why, why_size) != 0)
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
	 * every copy made where suppliers_segment_forget_classes frees it. */
	uint32_t first = segment->class_count;
	segment->class_count = count;
	limit = suppliers_segment_memory_limit(context, segment, &which);
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
				suppliers_memory_refusal(segment,
				    segment_budget_add(
				        charged, copy->memory_bytes),
				    limit, which, why, why_size);
				return -1;
			}
			dci_log(context->base.host, DCI_LOG_WARNING,
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

/* How many numbers instance_values_set hands the host per call. */
#define SUPPLIERS_ROW_CHUNK 64

/* Hands the host an instance's values: its numbers with dci_batch_set_row,
 * up to SUPPLIERS_ROW_CHUNK per call (a class may have thousands), its
 * strings one call each. */
static void
instance_values_set(struct dci_batch *batch, long row,
    const struct segment_class *copy, const struct segment_value *values)
{
	struct dci_row_value numbers[SUPPLIERS_ROW_CHUNK];
	size_t count = 0;

	for (uint32_t d = 0; d < copy->datum_count; d++) {
		const struct dcistat_segment_datum *datum = &copy->datums[d];
		uint64_t number = values[d].number;

		if (!values[d].present)
			continue;
		if (datum->combine == DCISTAT_COMBINE_STRING) {
			dci_batch_set_bytes(batch, row, datum->id,
			    values[d].text, values[d].text_length);
			continue;
		}
		if (datum->is_signed)
			numbers[count++] =
			    dci_row_signed(datum->id, (int64_t)number);
		else
			numbers[count++] = dci_row_unsigned(datum->id,
			    datum->type >= DCI_ST_INTEGER8 &&
			            datum->type <= DCI_ST_INTEGER64 &&
			            datum->semantics == DCI_SEMANTICS_COUNTER
			        ? datum_width_mask(datum, number)
			        : number);
		if (count == SUPPLIERS_ROW_CHUNK) {
			dci_batch_set_row(batch, row, numbers, count);
			count = 0;
		}
	}
	if (count > 0)
		dci_batch_set_row(batch, row, numbers, count);
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
	    (unsigned long)segment->file.owner, context->limits.segment_work,
	    work);
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
	uint64_t memory_limit =
	    suppliers_segment_memory_limit(context, segment, &which);
	uint64_t bytes = segment->classes_bytes;

	for (uint32_t c = 0; c < segment->class_count; c++) {
		if (segment->handles[c] != NULL)
			segment->batches[c] = dci_batch_begin(
			    context->base.host, segment->handles[c]);
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
			suppliers_memory_refusal(segment,
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
		dci_log(context->base.host, DCI_LOG_WARNING,
		    "%s/%s refused: %s; supplier \"%s\" withdrawn",
		    context->directory, segment->name, why,
		    segment->view.module);
		return false;
	}
	if (segment->batches != NULL)
		batches_end(context, segment, true);
	if (skipped > 0 && !segment->skipped_logged)
		dci_log(context->base.host, DCI_LOG_WARNING,
		    "%s/%s: %ld instance%s skipped: a writer stopped inside an "
		    "update",
		    context->directory, segment->name, (long)skipped,
		    skipped == 1 ? "" : "s");
	segment->skipped_logged = skipped > 0;
	return true;
}

/* --- Provider --- */

/* Frees what the context holds (struct provider_context). */
static void
suppliers_release(void *opaque)
{
	struct suppliers_context *context = opaque;

	/* At fini the host withdraws everything this provider registered. */
	for (size_t i = 0; i < context->segment_count; i++) {
		context->segments[i]->supplier = NULL;
		suppliers_segment_free(context, context->segments[i]);
	}
	free(context->segments);
	free(context->turns);
	segment_budget_owners_free(&context->owner_charges);
	refused_set_clear(&context->refused);
	owner_counts_clear(&context->held);
	if (context->watch >= 0)
		close(context->watch);
	free(context->directory);
	free(context->owners.uids);
	free(context->owners.gids);
	segment_scratch_clear(&context->scratch);
	free(context->values);
	segment_guard_uninstall();
}

static int
suppliers_init(struct dci_host *host, void **context_pointer)
{
	struct suppliers_context *context;
	const char *directory = dci_option_string(host, "directory");
	uint64_t max_segments, max_size, per_uid, refused_per_uid;
	struct segment_budget_limits *limits;

	context = provider_context_new(
	    host, context_pointer, sizeof *context, suppliers_release);
	if (context == NULL)
		return -1;
	context->watch = -1;
	context->watch_descriptor = -1;
	if (provider_option_unsigned(host, "max-segments", 1,
	        SUPPLIERS_MAX_SEGMENTS_LIMIT, SUPPLIERS_MAX_SEGMENTS_DEFAULT,
	        &max_segments) != 0 ||
	    provider_option_unsigned(host, "max-segments-per-uid", 1, max_segments,
	        max_segments / 4 > 0 ? max_segments / 4 : 1, &per_uid) != 0 ||
	    provider_option_unsigned(host, "max-refused-per-uid", 1,
	        SUPPLIERS_MAX_SEGMENTS_LIMIT,
	        SUPPLIERS_MAX_REFUSED_PER_UID_DEFAULT, &refused_per_uid) != 0 ||
	    provider_option_unsigned(host, "max-segment-size",
	        sizeof(struct dcistat_segment_header), UINT64_C(1) << 40,
	        SUPPLIERS_MAX_SEGMENT_SIZE_DEFAULT, &max_size) != 0 ||
	    owners_parse(context) != 0)
		return -1;
	limits = &context->limits;
	if (provider_option_unsigned(host, "max-segment-memory", UINT64_C(1) << 16,
	        UINT64_C(1) << 40, SEGMENT_BUDGET_SEGMENT_BYTES_DEFAULT,
	        &limits->segment_bytes) != 0 ||
	    provider_option_unsigned(host, "max-user-memory", UINT64_C(1) << 16,
	        UINT64_C(1) << 40, SEGMENT_BUDGET_USER_BYTES_DEFAULT,
	        &limits->user_bytes) != 0 ||
	    provider_option_unsigned(host, "max-refresh-work", UINT64_C(1) << 16,
	        UINT64_C(1) << 40, SEGMENT_BUDGET_REFRESH_WORK_DEFAULT,
	        &limits->refresh_work) != 0 ||
	    provider_option_unsigned(host, "max-segment-work", UINT64_C(1) << 12,
	        limits->refresh_work,
	        limits->refresh_work < SEGMENT_BUDGET_SEGMENT_WORK_DEFAULT
	            ? limits->refresh_work
	            : SEGMENT_BUDGET_SEGMENT_WORK_DEFAULT,
	        &limits->segment_work) != 0)
		return -1;
	if (directory != NULL && directory[0] != '/') {
		dci_option_error(host, "directory", "expected an absolute path");
		return -1;
	}
	context->directory =
	    strdup(directory != NULL ? directory : DCISTAT_SUPPLIER_DIRECTORY);
	if (context->directory == NULL)
		return -1;
	context->max_segments = (size_t)max_segments;
	context->max_segments_per_uid = (size_t)per_uid;
	context->max_refused_per_uid = (size_t)refused_per_uid;
	context->max_segment_size = max_size;
	if (directory_prepare(context) != 0)
		return -1;
	context->watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (context->watch >= 0 && suppliers_watch_add(context) != 0) {
		close(context->watch);
		context->watch = -1;
	}
	if (context->watch < 0)
		dci_log(host, DCI_LOG_INFO,
		    "no inotify on %s (%s): it is rescanned at every refresh",
		    context->directory, strerror(errno));
	if (segment_guard_install() != 0) {
		dci_log(host, DCI_LOG_ERR, "cannot install a SIGBUS handler");
		return -1;
	}
	return 0;
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
		    (uint32_t)segment->file.owner, segment->charge_counted,
		    false);
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
		    (uint32_t)segment->file.owner, segment->charge_counted,
		    true);
		segment->charge_counted =
		    segment->refused
		        ? 0
		        : segment_budget_add(
		              segment->classes_bytes, segment->instances_bytes);
		segment_budget_owners_add(&context->owner_charges,
		    (uint32_t)segment->file.owner, segment->charge_counted,
		    false);
		segment_rotation_record(
		    turn, true, context->scratch.work, ++context->served_count);
		/* A large scratch is not kept for the next segment. */
		if (context->scratch.capacity > SUPPLIERS_SCRATCH_KEPT_WORDS)
			segment_scratch_clear(&context->scratch);
	}
	context->owner_charges_valid = false;
}

static int
suppliers_refresh(struct dci_host *host, void *context_pointer)
{
	struct suppliers_context *context = context_pointer;
	uint64_t now_microseconds = provider_monotonic_microseconds();

	(void)host;
	bool owner_check;

	segment_guard_thread();
	if (suppliers_directory_update(context, now_microseconds) != 0)
		return -1;
	owner_check =
	    context->last_owner_check_microseconds == 0 ||
	    now_microseconds - context->last_owner_check_microseconds >=
	        SUPPLIERS_OWNER_CHECK_MICROSECONDS;
	suppliers_segments_retire(context, owner_check);
	if (owner_check) {
		refused_set_sweep(
		    &context->refused, suppliers_refused_owner_gone, context);
		context->last_owner_check_microseconds = now_microseconds;
	}
	suppliers_files_summarize(context);
	segments_serve_in_turn(context, now_microseconds);
	for (size_t i = 0; i < context->segment_count;) {
		struct served_segment *segment = context->segments[i];
		struct stat status;

		if (!segment->refused) {
			i++;
			continue;
		}
		if (fstat(segment->file.descriptor, &status) == 0)
			suppliers_refuse_file_owned(context, &status, false,
			    &(struct refused_owner){.name = segment->name,
			        .pid = segment->view.pid,
			        .start = segment->view.process_start});
		suppliers_segment_free(context, segment);
		context->segments[i] =
		    context->segments[--context->segment_count];
	}
	return 0;
}

static const char *const suppliers_option_keys[] = {"directory", "users",
    "groups", "max-segments", "max-segments-per-uid", "max-refused-per-uid",
    "max-segment-size", "max-segment-memory", "max-user-memory",
    "max-segment-work", "max-refresh-work", NULL};

PROVIDER_ENTRY("suppliers",
    "Statistics that applications publish through libdcistat-supplier",
    suppliers_option_keys, suppliers_init, suppliers_refresh);
