#define _GNU_SOURCE
#include "runtime/host.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "base/clock.h"
#include "runtime/plugin.h"
#include "base/log.h"
#include "model/events.h"
#include "model/snapshot.h"

/*
 * A change of the registry a provider asks for: a supplier or a class
 * registered, a supplier withdrawn. The registry belongs to the main
 * thread, so a request made by a refresh on its refresher is handed to
 * the main thread, which performs it while the refresher waits
 * (dci_plugin_request_on_main_thread, plugin.h); from init, fini or a
 * refresh run on the main thread it is performed at once. Either way by
 * host_request_perform: one code path for each change.
 */
enum dci_host_request_kind {
	DCI_HOST_REQUEST_SUPPLIER_REGISTER,
	DCI_HOST_REQUEST_CLASS_REGISTER,
	DCI_HOST_REQUEST_SUPPLIER_WITHDRAW,
	DCI_HOST_REQUEST_SUPPLIER_STATE,
};

struct dci_host_request {
	struct dci_plugin_request queued; /* first: what the queue holds */
	enum dci_host_request_kind kind;
	/* Arguments: the provider's own, valid while it waits. */
	const struct dci_supplier_info *supplier_info; /* supplier register */
	const struct dci_class_info *class_info;       /* class register */
	/* Class register and withdraw: the supplier handle given; supplier
	 * register: the new supplier, NULL when refused. */
	struct dci_supplier *supplier;
	struct dci_class *class; /* class register: the new class, or NULL */
	const char *failure;     /* supplier state: NULL or "" = works */
	int result; /* withdraw, supplier state: 0, or -1 when refused */
};

/* A batch as the host sees it: the public part first (the provider calls
 * through its operations pointer), then the builder it fills. */
struct host_batch {
	struct dci_batch public;
	struct dci_plugin *plugin;
	struct dci_class *class;
	struct dci_snapshot_builder *builder;
	unsigned refusals;     /* calls refused in this batch */
	unsigned new_refusals; /* of those, not refused in the last commit */
	char first_new_refusal[1024];
	/* Hashes of this batch's refusals, the class's set after commit. */
	uint64_t *refusal_hashes;
	size_t refusal_hash_count;
	size_t refusal_hash_capacity;
};

static struct dci_plugin *
plugin_of(struct dci_host *host)
{
	/* struct dci_host is the first member of struct dci_plugin. */
	return (struct dci_plugin *)host;
}

static struct host_batch *
batch_of(struct dci_batch *batch)
{
	return (struct host_batch *)batch;
}

/* A provider abandoned at stop because its refresh did not return
 * (loader.h) may return later: what it then asks is refused without a
 * look at its classes or batches, which may be gone. */
static bool
plugin_abandoned(const struct dci_plugin *plugin)
{
	return __atomic_load_n(&plugin->abandoned, __ATOMIC_ACQUIRE);
}

static bool
batch_abandoned(struct dci_batch *public)
{
	return plugin_abandoned(batch_of(public)->plugin);
}

/* False for a batch of a class withdrawn since it was begun (batch_orphan):
 * the call is refused without a word, the commit says why. */
static bool
batch_usable(const struct host_batch *batch)
{
	return batch->class != NULL;
}

/* The array grows first, so that a supplier the registry accepted is
 * always the plug-in's to mark, withdraw and stop. */
static struct dci_supplier *
supplier_register_perform(
    struct dci_plugin *plugin, const struct dci_supplier_info *info)
{
	struct dci_supplier *supplier, **grown;
	const char *holder;
	char why[512];

	grown = realloc(
	    plugin->suppliers, (plugin->supplier_count + 1) * sizeof(*grown));
	if (grown == NULL) {
		log_warnx("provider %s: supplier refused: out of memory",
		    plugin->name);
		return NULL;
	}
	plugin->suppliers = grown;
	holder = dci_registry_supplier_holder(
	    plugin->registry, info != NULL ? info->module : NULL);
	if (holder != NULL && strcmp(holder, plugin->module) != 0) {
		/* Reserved for a configured provider, running or not: no
		 * other takes its name while it is down or restarting. */
		snprintf(why, sizeof(why),
		    "supplier \"%s\" is reserved for configured provider %s",
		    info->module, holder);
		supplier = NULL;
	} else
		supplier = dci_registry_add_supplier(
		    plugin->registry, info, plugin->name, why, sizeof(why));
	if (supplier == NULL) {
		/* A provider retried after the same failure is quiet. */
		if (plugin->quiet)
			log_debug(plugin->name,
			    "provider %s: supplier refused: %s", plugin->name,
			    why);
		else
			log_warnx("provider %s: supplier refused: %s",
			    plugin->name, why);
		snprintf(plugin->supplier_refusal,
		    sizeof(plugin->supplier_refusal), "%s", why);
		return NULL;
	}
	if (dci_registry_reserve_supplier(
	        plugin->registry, info->module, plugin->module, false) != 0)
		log_warnx("provider %s: supplier \"%s\" not reserved: out of "
		          "memory",
		    plugin->name, info->module);
	supplier->discontinuity_milliseconds = dci_clock_milliseconds();
	supplier->owner = plugin;
	plugin->suppliers[plugin->supplier_count++] = supplier;
	return supplier;
}

static bool
supplier_owned(
    const struct dci_plugin *plugin, const struct dci_supplier *supplier)
{
	for (size_t i = 0; i < plugin->supplier_count; i++) {
		if (plugin->suppliers[i] == supplier)
			return true;
	}
	return false;
}

static bool
configured_for_class(
    const struct dci_config_derived *derived, const struct dci_class_info *info)
{
	return derived->class_id_length == info->id_length &&
	       memcmp(derived->class_id, info->id,
	           info->id_length * sizeof(*info->id)) == 0;
}

/* The datum a configured derived metric declares: its arguments, named by
 * label, become the argument bytes of its id. */
static int
configured_datum(const struct dci_config_derived *derived,
    const struct dci_class_info *info, struct dci_datum_info *datum, char *why,
    size_t why_size)
{
	uint32_t id = derived->id;

	for (size_t a = 0; a < derived->argument_count; a++) {
		const struct dci_datum_info *argument = NULL;
		const struct dci_config_position *at =
		    &derived->argument_positions[a];

		for (size_t d = 0; d < info->datum_count; d++) {
			if (info->datums[d].label != NULL &&
			    strcmp(info->datums[d].label,
			        derived->arguments[a]) == 0)
				argument = &info->datums[d];
		}
		if (argument == NULL || argument->type == DCI_ST_DERIVED) {
			log_reason(why, why_size,
			    "%s:%u:%u: derived metric \"%s\": class \"%s\" "
			    "has no %sdatum \"%s\"",
			    at->file, at->line, at->column, derived->label,
			    info->label, argument == NULL ? "" : "underived ",
			    derived->arguments[a]);
			return -1;
		}
		id |= (argument->id & 0xffu) << (24 - 8 * a);
	}
	*datum = (struct dci_datum_info){.id = id,
	    .label = derived->label,
	    .type = DCI_ST_DERIVED,
	    .unit = derived->derivation,
	    .description = derived->description};
	return 0;
}

/* `info` plus the derived metrics the configuration declares for its class
 * (none: *extended is info itself). The datums are in *datums, which the
 * caller frees. */
static int
class_with_configured_derived(const struct dci_plugin *plugin,
    const struct dci_class_info *info, struct dci_class_info *extended,
    struct dci_datum_info **datums, char *why, size_t why_size)
{
	size_t count = 0;

	*extended = *info;
	*datums = NULL;
	if (info->id == NULL || info->id_length == 0 ||
	    info->id_length > DCI_CLASS_ID_MAX_LEVELS || info->datums == NULL ||
	    info->datum_count == 0)
		return 0; /* the registry says what is wrong */
	for (size_t i = 0; i < plugin->derived_count; i++)
		count += configured_for_class(&plugin->derived[i], info);
	if (count == 0)
		return 0;
	*datums = calloc(info->datum_count + count, sizeof(**datums));
	if (*datums == NULL) {
		log_reason(why, why_size, "out of memory");
		return -1;
	}
	memcpy(*datums, info->datums, info->datum_count * sizeof(**datums));
	count = info->datum_count;
	for (size_t i = 0; i < plugin->derived_count; i++) {
		if (!configured_for_class(&plugin->derived[i], info))
			continue;
		if (configured_datum(&plugin->derived[i], info,
		        &(*datums)[count++], why, why_size) != 0)
			return -1;
	}
	extended->datums = *datums;
	extended->datum_count = count;
	return 0;
}

static struct dci_class *
class_register_perform(struct dci_plugin *plugin, struct dci_supplier *supplier,
    const struct dci_class_info *info)
{
	struct dci_class *class = NULL;
	struct dci_class_info extended;
	struct dci_datum_info *datums = NULL;
	char why[512];

	if (supplier == NULL || !supplier_owned(plugin, supplier)) {
		log_warnx("provider %s: class refused: supplier handle is not "
		          "one this provider registered",
		    plugin->name);
		return NULL;
	}
	if (info != NULL && class_with_configured_derived(plugin, info,
	                        &extended, &datums, why, sizeof(why)) != 0) {
		log_warnx("provider %s: class refused: %s", plugin->name, why);
		free(datums);
		return NULL;
	}
	class = dci_registry_add_class(plugin->registry, supplier,
	    info != NULL ? &extended : NULL, plugin, why, sizeof(why));
	free(datums);
	if (class == NULL) {
		log_warnx("provider %s: class refused: %s", plugin->name, why);
		return NULL;
	}
	return class;
}

/* Batches of `supplier`'s classes committed earlier in this refresh on the
 * refresher and not yet installed: discarded with their classes, whose
 * rows are to go at once, not come back when the refresh returns. */
static void
pending_commits_drop(
    struct dci_plugin *plugin, const struct dci_supplier *supplier)
{
	size_t kept = 0;

	for (size_t i = 0; i < plugin->pending_count; i++) {
		struct dci_pending_commit *pending = &plugin->pending[i];
		if (pending->class->supplier == supplier)
			dci_snapshot_builder_free(pending->builder);
		else
			plugin->pending[kept++] = *pending;
	}
	plugin->pending_count = kept;
}

/* A batch whose class was withdrawn while it was open: its builder goes
 * with the class, and every later call on it is refused (batch_usable)
 * until the provider commits or aborts it, which frees it. */
static void
batch_orphan(struct host_batch *batch)
{
	dci_snapshot_builder_free(batch->builder);
	batch->builder = NULL;
	batch->class = NULL;
}

/* Open batches of `supplier`'s classes lose their class; the provider
 * still owns the handles until it commits or aborts them (provider.h). */
static void
open_batches_orphan(
    struct dci_plugin *plugin, const struct dci_supplier *supplier)
{
	for (size_t i = 0; i < plugin->open_batch_count; i++) {
		struct host_batch *batch =
		    (struct host_batch *)plugin->open_batches[i];
		if (batch->class != NULL && batch->class->supplier == supplier)
			batch_orphan(batch);
	}
}

/* Withdraws a supplier of the plug-in with its classes: what refers to
 * those classes goes first (queued commits, open batches), while the
 * class pointers are still valid, then the registry frees them. */
static int
supplier_withdraw_perform(
    struct dci_plugin *plugin, struct dci_supplier *supplier)
{
	size_t position = 0;

	while (position < plugin->supplier_count &&
	       plugin->suppliers[position] != supplier)
		position++;
	if (supplier == NULL || position == plugin->supplier_count) {
		log_warnx("provider %s: withdrawal refused: supplier handle "
		          "is not one this provider registered (or it was "
		          "withdrawn already)",
		    plugin->name);
		return -1;
	}
	pending_commits_drop(plugin, supplier);
	open_batches_orphan(plugin, supplier);
	log_debug(plugin->name, "provider %s: supplier %s (index %u) withdrawn",
	    plugin->name, supplier->module, (unsigned)supplier->index);
	dci_registry_withdraw_supplier(plugin->registry, supplier);
	/* Kept in the order of registration. */
	memmove(&plugin->suppliers[position], &plugin->suppliers[position + 1],
	    (plugin->supplier_count - position - 1) *
	        sizeof(*plugin->suppliers));
	plugin->supplier_count--;
	return 0;
}

/* Keeps the provider's word on one of its suppliers (provider.h,
 * dci_supplier_state). A supplier that shows running fails at once, and
 * one that shows this provider-reported failure recovers at once; a
 * supplier failed for its whole provider keeps that failure, and the
 * loader's next marking (suppliers_mark) applies the kept one. */
static int
supplier_state_perform(struct dci_plugin *plugin, struct dci_supplier *supplier,
    const char *failure)
{
	size_t position = 0;
	bool shows_provider_failure;

	while (position < plugin->supplier_count &&
	       plugin->suppliers[position] != supplier)
		position++;
	if (supplier == NULL || position == plugin->supplier_count) {
		log_warnx("provider %s: supplier state refused: supplier "
		          "handle is not one this provider registered (or it "
		          "was withdrawn)",
		    plugin->name);
		return -1;
	}
	if (failure == NULL)
		failure = "";
	shows_provider_failure =
	    supplier->status == DCI_SUPPLIER_FAILED &&
	    supplier->provider_failure[0] != '\0' &&
	    strcmp(supplier->failure, supplier->provider_failure) == 0;
	/* Cut to what the field holds; the log sink escapes it. */
	snprintf(supplier->provider_failure, sizeof(supplier->provider_failure),
	    "%s", failure);
	if (failure[0] != '\0') {
		if (supplier->status == DCI_SUPPLIER_RUNNING ||
		    shows_provider_failure) {
			bool changed = supplier->status != DCI_SUPPLIER_FAILED;

			supplier->status = DCI_SUPPLIER_FAILED;
			memcpy(supplier->failure, supplier->provider_failure,
			    sizeof(supplier->failure));
			if (changed) {
				log_notice(
				    "provider %s: supplier %s failed: %s",
				    plugin->name, supplier->module,
				    supplier->failure);
				dci_events_supplier(
				    supplier, DCI_EVENTS_SUPPLIER_FAILED);
			}
		}
	} else if (shows_provider_failure) {
		supplier->status = DCI_SUPPLIER_RUNNING;
		supplier->failure[0] = '\0';
		log_notice("provider %s: supplier %s works again", plugin->name,
		    supplier->module);
		dci_events_supplier(supplier, DCI_EVENTS_SUPPLIER_RECOVERED);
	}
	return 0;
}

_Static_assert(offsetof(struct dci_host_request, queued) == 0,
    "the queue's request is the host request's first member");

/* Main thread: performs `queued` for `plugin` and fills its results. */
static void
host_request_perform(
    struct dci_plugin *plugin, struct dci_plugin_request *queued)
{
	struct dci_host_request *request = (struct dci_host_request *)queued;

	switch (request->kind) {
	case DCI_HOST_REQUEST_SUPPLIER_REGISTER:
		request->supplier =
		    supplier_register_perform(plugin, request->supplier_info);
		break;
	case DCI_HOST_REQUEST_CLASS_REGISTER:
		request->class = class_register_perform(
		    plugin, request->supplier, request->class_info);
		break;
	case DCI_HOST_REQUEST_SUPPLIER_WITHDRAW:
		request->result =
		    supplier_withdraw_perform(plugin, request->supplier);
		break;
	case DCI_HOST_REQUEST_SUPPLIER_STATE:
		request->result = supplier_state_perform(
		    plugin, request->supplier, request->failure);
		break;
	}
}

/* Fills the results of a request that is not performed (the provider is
 * being stopped), logging why; touches neither registry nor plug-in, so
 * any thread may call it. */
static void
host_request_refuse(struct dci_plugin *plugin,
    struct dci_plugin_request *queued, const char *why)
{
	struct dci_host_request *request = (struct dci_host_request *)queued;
	static const char *const what[] = {
	    [DCI_HOST_REQUEST_SUPPLIER_REGISTER] = "supplier",
	    [DCI_HOST_REQUEST_CLASS_REGISTER] = "class",
	    [DCI_HOST_REQUEST_SUPPLIER_WITHDRAW] = "withdrawal",
	};

	log_warnx("provider %s: %s refused: %s", plugin->name,
	    what[request->kind], why);
	if (request->kind == DCI_HOST_REQUEST_SUPPLIER_REGISTER)
		request->supplier = NULL;
	request->class = NULL;
	request->result = -1;
}

/* Where a request is performed: a refresh on its refresher hands it to
 * the main thread and waits; init, fini and a refresh on the main thread
 * perform it here. */
static void
host_request(struct dci_plugin *plugin, struct dci_host_request *request)
{
	request->queued.perform = host_request_perform;
	request->queued.refuse = host_request_refuse;
	if (plugin->on_refresher)
		dci_plugin_request_on_main_thread(plugin, &request->queued);
	else
		host_request_perform(plugin, &request->queued);
}

static struct dci_supplier *
host_supplier_register(
    struct dci_host *host, const struct dci_supplier_info *info)
{
	struct dci_host_request request = {
	    .kind = DCI_HOST_REQUEST_SUPPLIER_REGISTER,
	    .supplier_info = info,
	};

	host_request(plugin_of(host), &request);
	return request.supplier;
}

static struct dci_class *
host_class_register(struct dci_host *host, struct dci_supplier *supplier,
    const struct dci_class_info *info)
{
	struct dci_host_request request = {
	    .kind = DCI_HOST_REQUEST_CLASS_REGISTER,
	    .supplier = supplier,
	    .class_info = info,
	};

	host_request(plugin_of(host), &request);
	return request.class;
}

static int
host_supplier_withdraw(struct dci_host *host, struct dci_supplier *supplier)
{
	struct dci_host_request request = {
	    .kind = DCI_HOST_REQUEST_SUPPLIER_WITHDRAW,
	    .supplier = supplier,
	};

	host_request(plugin_of(host), &request);
	return request.result;
}

static int
host_supplier_state(
    struct dci_host *host, struct dci_supplier *supplier, const char *failure)
{
	struct dci_host_request request = {
	    .kind = DCI_HOST_REQUEST_SUPPLIER_STATE,
	    .supplier = supplier,
	    .failure = failure,
	};

	host_request(plugin_of(host), &request);
	return request.result;
}

static bool
class_owned(const struct dci_plugin *plugin, const struct dci_class *class)
{
	return class != NULL && class->owner == plugin;
}

static struct dci_batch *
host_batch_begin(struct dci_host *host, struct dci_class *class)
{
	struct dci_plugin *plugin = plugin_of(host);
	struct host_batch *batch;
	struct dci_batch **grown;

	if (plugin_abandoned(plugin))
		return NULL;
	if (!class_owned(plugin, class)) {
		log_warnx("provider %s: batch refused: class handle is not one "
		          "this provider registered",
		    plugin->name);
		return NULL;
	}
	batch = calloc(1, sizeof(*batch));
	grown = realloc(plugin->open_batches,
	    (plugin->open_batch_count + 1) * sizeof(*grown));
	if (batch == NULL || grown == NULL) {
		free(batch);
		log_warnx("provider %s: out of memory", plugin->name);
		return NULL;
	}
	plugin->open_batches = grown;
	batch->public.operations = &dci_host_operations;
	batch->plugin = plugin;
	batch->class = class;
	batch->builder = dci_snapshot_builder_new(class);
	if (batch->builder == NULL) {
		free(batch);
		log_warnx("provider %s: out of memory", plugin->name);
		return NULL;
	}
	plugin->open_batches[plugin->open_batch_count++] = &batch->public;
	return &batch->public;
}

static void
batch_forget(struct host_batch *batch)
{
	struct dci_plugin *plugin = batch->plugin;

	for (size_t i = 0; i < plugin->open_batch_count; i++) {
		if (plugin->open_batches[i] == &batch->public) {
			plugin->open_batches[i] =
			    plugin->open_batches[--plugin->open_batch_count];
			break;
		}
	}
	free(batch->refusal_hashes);
	free(batch);
}

/* 64-bit FNV-1a of a refusal's key: what recognises it again. */
static uint64_t
refusal_hash(const char *key)
{
	uint64_t hash = 14695981039346656037u;

	for (; *key != '\0'; key++) {
		hash ^= (unsigned char)*key;
		hash *= 1099511628211u;
	}
	return hash;
}

static int
hash_compare(const void *left, const void *right)
{
	uint64_t a = *(const uint64_t *)left, b = *(const uint64_t *)right;

	return (a > b) - (a < b);
}

/* "instance 1.2", or "instance" for an id not of the class's length:
 * providers call with any id. */
static void
describe_instance(const struct dci_class *class, const uint32_t *id,
    size_t id_words, char *text, size_t size)
{
	size_t used = (size_t)snprintf(text, size, "instance");

	if (id == NULL || id_words != class->instance_words)
		return;
	for (size_t i = 0; i < id_words && used < size; i++)
		used += (size_t)snprintf(text + used, size - used, "%c%u",
		    i == 0 ? ' ' : '.', (unsigned)id[i]);
}

/*
 * A refused instance or value leaves just that row out: the rest of the
 * snapshot is still right, and an absent row is never a wrong one. A
 * refusal names its instance and is logged, at commit, in the refresh it
 * first appears: one refused again in the next refresh is only counted, so
 * a persistent fault is logged once rather than every refresh, and again
 * once it has gone and come back. A value refusal is known again by its
 * instance and datum (datum_id, not 0), whatever the value; any other by its
 * instance and reason.
 */
static void
batch_refused(struct host_batch *batch, const char *what, const char *subject,
    uint32_t datum_id, const char *why)
{
	const struct dci_class *class = batch->class;
	char message[sizeof(batch->first_new_refusal)];
	uint64_t hash;

	if (datum_id != 0)
		snprintf(message, sizeof(message), "%s%s datum %u", what,
		    subject, (unsigned)datum_id);
	else
		snprintf(
		    message, sizeof(message), "%s%s: %s", what, subject, why);
	hash = refusal_hash(message);
	snprintf(
	    message, sizeof(message), "%s%s refused: %s", what, subject, why);
	batch->refusals++;
	if (class->refusal_hash_count == 0 ||
	    bsearch(&hash, class->refusal_hashes, class->refusal_hash_count,
	        sizeof(hash), hash_compare) == NULL) {
		if (batch->new_refusals++ == 0)
			snprintf(batch->first_new_refusal,
			    sizeof(batch->first_new_refusal), "%s", message);
	}
	if (batch->refusal_hash_count == batch->refusal_hash_capacity) {
		size_t capacity = batch->refusal_hash_capacity
		                      ? batch->refusal_hash_capacity * 2
		                      : 16;
		uint64_t *grown =
		    realloc(batch->refusal_hashes, capacity * sizeof(*grown));

		/* Out of memory: this refusal is logged again next time. */
		if (grown == NULL)
			return;
		batch->refusal_hashes = grown;
		batch->refusal_hash_capacity = capacity;
	}
	batch->refusal_hashes[batch->refusal_hash_count++] = hash;
}

/* Makes the batch's refusals the class's: sorted, each once. */
static void
batch_keep_refusals(struct host_batch *batch)
{
	struct dci_class *class = batch->class;
	size_t kept = 0;

	if (batch->refusal_hash_count > 0)
		qsort(batch->refusal_hashes, batch->refusal_hash_count,
		    sizeof(*batch->refusal_hashes), hash_compare);
	for (size_t i = 0; i < batch->refusal_hash_count; i++)
		if (kept == 0 ||
		    batch->refusal_hashes[kept - 1] != batch->refusal_hashes[i])
			batch->refusal_hashes[kept++] =
			    batch->refusal_hashes[i];
	free(class->refusal_hashes);
	class->refusal_hashes = batch->refusal_hashes;
	class->refusal_hash_count = kept;
	batch->refusal_hashes = NULL;
	batch->refusal_hash_count = batch->refusal_hash_capacity = 0;
}

static long
host_batch_instance(struct dci_batch *public, const uint32_t *id,
    size_t id_words, const char *label)
{
	if (batch_abandoned(public))
		return -1;
	struct host_batch *batch = batch_of(public);
	char why[512];
	long row;

	if (!batch_usable(batch))
		return -1;
	row = dci_snapshot_builder_add(
	    batch->builder, id, id_words, label, why, sizeof(why));
	if (row < 0) {
		char subject[192];

		describe_instance(
		    batch->class, id, id_words, subject, sizeof(subject));
		batch_refused(batch, "", subject, 0, why);
	}
	return row;
}

/* A setter's refusal, naming the row's instance; datum_id 0: none. */
static void
batch_refused_row(struct host_batch *batch, const char *what, long row,
    uint32_t datum_id, const char *why)
{
	const uint32_t *id = dci_snapshot_builder_row_id(batch->builder, row);
	char subject[192];

	if (id != NULL)
		describe_instance(batch->class, id,
		    batch->class->instance_words, subject, sizeof(subject));
	else
		snprintf(subject, sizeof(subject), "row %ld", row);
	batch_refused(batch, what, subject, datum_id, why);
}

/* What one of the batch's setters stores in a row. */
enum host_setting_kind {
	HOST_SET_INVALID,
	HOST_SET_PARENT,
	HOST_SET_DISCONTINUITY,
};

struct host_setting {
	enum host_setting_kind kind;
	const char *what;  /* the refusal's "invalid mark of " */
	uint32_t datum_id; /* 0 for a parent and a discontinuity */
	const void *bytes; /* the parent's id */
	size_t length;     /* the parent id's words */
};

/* The one path of every setter: a call on an abandoned or unusable batch
 * is refused quietly, a refusal of the builder is logged naming the row's
 * instance (batch_refused_row). */
static int
host_batch_set(
    struct dci_batch *public, long row, const struct host_setting *setting)
{
	if (batch_abandoned(public))
		return -1;
	struct host_batch *batch = batch_of(public);
	struct dci_snapshot_builder *builder = batch->builder;
	uint32_t datum_id = setting->datum_id;
	char why[512];
	int result = -1;

	if (!batch_usable(batch))
		return -1;
	switch (setting->kind) {
	case HOST_SET_INVALID:
		result = dci_snapshot_builder_set_invalid(
		    builder, row, datum_id, why, sizeof(why));
		break;
	case HOST_SET_PARENT:
		result = dci_snapshot_builder_set_parent(builder, row,
		    setting->bytes, setting->length, why, sizeof(why));
		break;
	case HOST_SET_DISCONTINUITY:
		result = dci_snapshot_builder_set_discontinuity(
		    builder, row, why, sizeof(why));
		break;
	}
	if (result == 0)
		return 0;
	batch_refused_row(batch, setting->what, row, datum_id, why);
	return -1;
}

/* The values of one call of a row setter: numbers (dci_batch_set_row) or
 * byte values (dci_batch_set_row_bytes). */
struct host_row {
	const struct dci_row_value *numbers;
	const struct dci_row_bytes *bytes;
	size_t count;
};

/* Stores a row's values from `from` on; as dci_snapshot_builder_set_row,
 * returns how many it stored before the first it refused. */
static size_t
host_row_store(struct dci_snapshot_builder *builder, long row,
    const struct host_row *values, size_t from, char *why, size_t why_size)
{
	if (values->numbers != NULL)
		return dci_snapshot_builder_set_row(builder, row,
		    values->numbers + from, values->count - from, why,
		    why_size);
	return dci_snapshot_builder_set_row_bytes(builder, row,
	    values->bytes + from, values->count - from, why, why_size);
}

/* The row setters' one path: the batch and the row checked once, a
 * refused value logged as a one-value call's would be and the rest
 * stored. */
static int
host_batch_set_values(
    struct dci_batch *public, long row, const struct host_row *values)
{
	if (batch_abandoned(public))
		return -1;
	struct host_batch *batch = batch_of(public);
	char why[512];
	size_t done = 0, count = values->count;
	int result = 0;

	if (!batch_usable(batch))
		return -1;
	if (values->numbers == NULL && values->bytes == NULL && count > 0) {
		batch_refused_row(
		    batch, "values of ", row, 0, "no values given");
		return -1;
	}
	while (done < count) {
		done += host_row_store(
		    batch->builder, row, values, done, why, sizeof(why));
		if (done == count)
			break;
		batch_refused_row(batch, "value of ", row,
		    values->numbers != NULL ? values->numbers[done].datum_id
		                            : values->bytes[done].datum_id,
		    why);
		result = -1;
		done++;
	}
	return result;
}

static int
host_batch_set_row(struct dci_batch *public, long row,
    const struct dci_row_value *values, size_t count)
{
	return host_batch_set_values(
	    public, row, &(struct host_row){.numbers = values, .count = count});
}

static int
host_batch_set_row_bytes(struct dci_batch *public, long row,
    const struct dci_row_bytes *values, size_t count)
{
	return host_batch_set_values(
	    public, row, &(struct host_row){.bytes = values, .count = count});
}

/* The one-value integer setters are rows of one, through the batch's own
 * operations: an isolated provider's process, whose batches record what
 * they store (isolation_child.c), then records these too. */
static int
host_batch_set_unsigned(
    struct dci_batch *public, long row, uint32_t datum_id, uint64_t value)
{
	struct dci_row_value one = dci_row_unsigned(datum_id, value);

	return public->operations->batch_set_row(public, row, &one, 1);
}

static int
host_batch_set_signed(
    struct dci_batch *public, long row, uint32_t datum_id, int64_t value)
{
	struct dci_row_value one = dci_row_signed(datum_id, value);

	return public->operations->batch_set_row(public, row, &one, 1);
}

/* A row of one, through the batch's own operations as the integers'. */
static int
host_batch_set_bytes(struct dci_batch *public, long row, uint32_t datum_id,
    const void *bytes, size_t length)
{
	struct dci_row_bytes one = dci_row_raw(datum_id, bytes, length);

	return public->operations->batch_set_row_bytes(public, row, &one, 1);
}

static int
host_batch_set_invalid(struct dci_batch *public, long row, uint32_t datum_id)
{
	return host_batch_set(public, row,
	    &(struct host_setting){.kind = HOST_SET_INVALID,
	        .what = "invalid mark of ",
	        .datum_id = datum_id});
}

static int
host_batch_instance_parent(struct dci_batch *public, long row,
    const uint32_t *parent_id, size_t parent_words)
{
	return host_batch_set(public, row,
	    &(struct host_setting){.kind = HOST_SET_PARENT,
	        .what = "parent of ",
	        .bytes = parent_id,
	        .length = parent_words});
}

static int
host_batch_set_discontinuity(struct dci_batch *public, long row)
{
	return host_batch_set(public, row,
	    &(struct host_setting){
	        .kind = HOST_SET_DISCONTINUITY, .what = "discontinuity of "});
}

/* On a refresh thread: the batch is sealed there (its duplicate ids
 * refused at once) and queued for the main thread, which installs it
 * when the refresh returns (loader.h). */
static int
batch_queue(struct host_batch *batch)
{
	struct dci_plugin *plugin = batch->plugin;
	char why[512];

	if (dci_snapshot_builder_seal(batch->builder, why, sizeof(why)) != 0) {
		log_warnx("provider %s: %s", plugin->name, why);
		return -1;
	}
	if (plugin->pending_count == plugin->pending_capacity) {
		size_t capacity =
		    plugin->pending_capacity ? 2 * plugin->pending_capacity : 4;
		struct dci_pending_commit *grown =
		    realloc(plugin->pending, capacity * sizeof(*grown));
		if (grown == NULL) {
			log_warnx("provider %s: class \"%s\": out of memory",
			    plugin->name, batch->class->label);
			return -1;
		}
		plugin->pending = grown;
		plugin->pending_capacity = capacity;
	}
	plugin->pending[plugin->pending_count++] =
	    (struct dci_pending_commit){batch->class, batch->builder};
	batch->builder = NULL;
	return 0;
}

static int
host_batch_commit(struct dci_batch *public)
{
	if (batch_abandoned(public))
		return -1;
	struct host_batch *batch = batch_of(public);
	char why[512];
	int result;

	if (!batch_usable(batch)) {
		log_warnx("provider %s: batch refused: its class was withdrawn "
		          "while it was open",
		    batch->plugin->name);
		batch_forget(batch);
		return -1;
	}
	if (batch->new_refusals > 0)
		log_warnx("provider %s: class \"%s\": %u call%s refused in "
		          "this refresh (%u not refused in the last), those "
		          "rows are absent; first new: %s",
		    batch->plugin->name, batch->class->label, batch->refusals,
		    batch->refusals == 1 ? "" : "s", batch->new_refusals,
		    batch->first_new_refusal);
	batch_keep_refusals(batch);
	if (batch->plugin->on_refresher) {
		result = batch_queue(batch);
		dci_snapshot_builder_free(batch->builder);
		batch_forget(batch);
		return result;
	}
	/* Taken at the time the refresh was due to run, the time the
	 * schedule and the staleness limit count from. */
	result = dci_snapshot_commit(batch->builder, batch->class,
	    batch->plugin->refresh_milliseconds_at != 0
	        ? batch->plugin->refresh_milliseconds_at
	        : dci_clock_milliseconds(),
	    why, sizeof(why));
	if (result != 0 || why[0] != '\0')
		log_warnx("provider %s: %s", batch->plugin->name, why);
	batch_forget(batch);
	return result;
}

static void
host_batch_abort(struct dci_batch *public)
{
	if (batch_abandoned(public))
		return;
	struct host_batch *batch = batch_of(public);

	dci_snapshot_builder_free(batch->builder);
	batch_forget(batch);
}

void
dci_host_abort_open_batches(struct dci_plugin *plugin)
{
	while (plugin->open_batch_count > 0) {
		log_warnx("provider %s: a batch was neither committed nor "
		          "aborted; discarded",
		    plugin->name);
		host_batch_abort(plugin->open_batches[0]);
	}
}

static const struct dci_config_option *
option_find(struct dci_host *host, const char *key)
{
	struct dci_plugin *plugin = plugin_of(host);

	if (plugin->config == NULL || key == NULL)
		return NULL;
	return dci_config_provider_option(plugin->config, key);
}

static const char *
host_option_string(struct dci_host *host, const char *key)
{
	const struct dci_config_option *option = option_find(host, key);

	if (option == NULL || option->is_sequence || option->value_count != 1)
		return NULL;
	return option->values[0];
}

static size_t
host_option_count(struct dci_host *host, const char *key)
{
	const struct dci_config_option *option = option_find(host, key);

	return option == NULL ? 0 : option->value_count;
}

static const char *
host_option_item(struct dci_host *host, const char *key, size_t index)
{
	const struct dci_config_option *option = option_find(host, key);

	if (option == NULL || index >= option->value_count)
		return NULL;
	return option->values[index];
}

static void
host_option_error(struct dci_host *host, const char *key, const char *message)
{
	struct dci_plugin *plugin = plugin_of(host);
	const struct dci_config_option *option = option_find(host, key);
	char where[512] = "";

	if (option != NULL)
		snprintf(where, sizeof(where),
		    "%s:%u:%u: ", option->position.file, option->position.line,
		    option->position.column);
	log_warnx("%sprovider %s: option '%s': %s", where, plugin->name,
	    key ? key : "", message ? message : "");
	dci_plugin_complaint_note(plugin, "%soption '%s': %s", where,
	    key ? key : "", message ? message : "");
}

static int
host_option_present(struct dci_host *host, const char *key)
{
	return option_find(host, key) != NULL;
}

/* Only from init: the loader applies the limit to the refresh period when
 * init returns, and a limit that arrived later would be a promise the
 * period already broke. */
static int
host_refresh_limit(struct dci_host *host, unsigned milliseconds)
{
	struct dci_plugin *plugin = plugin_of(host);

	if (plugin->state == DCI_PLUGIN_RUNNING) {
		log_warnx("provider %s: refresh limit refused: declared after "
		          "init",
		    plugin->name);
		return -1;
	}
	if (milliseconds == 0) {
		log_warnx(
		    "provider %s: refresh limit refused: 0 ms", plugin->name);
		return -1;
	}
	if (plugin->refresh_limit_milliseconds == 0 ||
	    milliseconds < plugin->refresh_limit_milliseconds)
		plugin->refresh_limit_milliseconds = milliseconds;
	return 0;
}

static unsigned
host_refresh_period(struct dci_host *host)
{
	return plugin_of(host)->refresh_milliseconds;
}

/* YAML 1.1's spellings of a boolean, which is what people write. */
static int
host_option_boolean(struct dci_host *host, const char *key, int default_value)
{
	static const char *const truths[] = {"true", "yes", "on"};
	static const char *const falsehoods[] = {"false", "no", "off"};
	const struct dci_config_option *option = option_find(host, key);

	if (option == NULL)
		return default_value;
	if (!option->is_sequence && option->value_count == 1) {
		for (size_t i = 0; i < sizeof(truths) / sizeof(truths[0]);
		     i++) {
			if (strcasecmp(option->values[0], truths[i]) == 0)
				return 1;
			if (strcasecmp(option->values[0], falsehoods[i]) == 0)
				return 0;
		}
	}
	host_option_error(host, key, "expected true or false (yes/no, on/off)");
	return -1;
}

static void
host_log(struct dci_host *host, enum dci_log_level level, const char *format,
    va_list arguments)
{
	struct dci_plugin *plugin = plugin_of(host);
	char message[1536];
	int priority = (int)level;

	/* A failed init's or start's reason, even when logged at debug. */
	if (level <= DCI_LOG_WARNING)
		dci_plugin_complaint_vnote(plugin, format, arguments);
	/* A provider failing again as it did before repeats itself: its
	 * messages are then debug messages (loader.h, quiet). */
	if ((level == DCI_LOG_DEBUG || plugin->quiet) &&
	    !log_debug_enabled(plugin->name))
		return;
	if (priority < LOG_ERR || priority > LOG_DEBUG)
		priority = LOG_ERR;
	vsnprintf(message, sizeof(message), format, arguments);
	log_message(priority, "provider %s: %s", plugin->name, message);
}

const struct dci_host_operations dci_host_operations = {
    .abi_version = DCI_PROVIDER_ABI_VERSION,
    .size = sizeof(struct dci_host_operations),
    .supplier_register = host_supplier_register,
    .class_register = host_class_register,
    .batch_begin = host_batch_begin,
    .batch_instance = host_batch_instance,
    .batch_set_unsigned = host_batch_set_unsigned,
    .batch_set_signed = host_batch_set_signed,
    .batch_set_bytes = host_batch_set_bytes,
    .batch_commit = host_batch_commit,
    .batch_abort = host_batch_abort,
    .option_string = host_option_string,
    .option_count = host_option_count,
    .option_item = host_option_item,
    .option_error = host_option_error,
    .log = host_log,
    .batch_instance_parent = host_batch_instance_parent,
    .option_boolean = host_option_boolean,
    .batch_set_invalid = host_batch_set_invalid,
    .option_present = host_option_present,
    .batch_set_discontinuity = host_batch_set_discontinuity,
    .refresh_limit = host_refresh_limit,
    .supplier_withdraw = host_supplier_withdraw,
    .supplier_state = host_supplier_state,
    .batch_set_row = host_batch_set_row,
    .batch_set_row_bytes = host_batch_set_row_bytes,
    .refresh_period = host_refresh_period,
    .serve_start = dci_plugin_serve_start_ask,
};
