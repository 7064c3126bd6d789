/*
 * Answers of the DCI Server (server/dci_answer.h). Entries, in u32 words
 * (a "block" is a length then bytes padded to 4; a class id is its level
 * count then its levels; an instance id its word count then its words):
 *
 * LIST_CLASSES         class id, label block, instance level count,
 *                      count of the current snapshot's instances the
 *                      consumer may read
 * LIST_INSTANCES       class id, instance id, label block
 * GET_CLASS_ATTRIBUTES class id, label block, description block, supplier
 *                      index, level count, (itype, size in bytes) per
 *                      level, record size, presence size, datum count,
 *                      then per datum in id order: id, type, format,
 *                      presentation, size, volatility, unit, semantics,
 *                      offset in the record, label block, description
 *                      block
 * GET_DATA             status, class id, instance id, datum id as asked,
 *                      presence block, data block. For every datum
 *                      (DCI_PROTOCOL_ALL): the instance's whole record, each
 *                      datum at its offset, and a bitmap with bit i
 *                      (bit i % 8 of byte i / 8) set when the i-th datum in
 *                      id order has a value; a datum without one holds
 *                      zeros. For one datum: its slot alone (size bytes,
 *                      in its format's byte order), no bitmap; INVALIDDATA
 *                      and no bytes when it has no value.
 * LIST_SUPPLIERS       index, status (1 running, 2 failed), type, version,
 *                      reset block (8 bytes), module block, title block,
 *                      description block, provider block, failure block
 *                      (empty unless failed), u64 discontinuity and u64
 *                      last refresh (CLOCK_MONOTONIC milliseconds of the
 *                      host, as dci_clock_milliseconds gives them; 0:
 *                      never refreshed). The suppliers that have a row
 *                      (not withdrawn), as dciSupplierTable shows them,
 *                      that the consumer may know of: one with a class
 *                      it may read, or, with no class at all (failed
 *                      before it registered one, say), when no access
 *                      rule refuses the consumer anything, since the
 *                      classes it would have are unknown. A consumer
 *                      refused every class of a supplier does not learn
 *                      its module, state or failure.
 * LIST_INSTANCE_PARENTS
 *                      class id, instance id, label block, the parent's
 *                      instance id (word count 0: no parent)
 * GET_INSTANCE_DATA   class id, instance id, label block, the parent's
 *                      instance id (as LIST_INSTANCE_PARENTS), presence
 *                      block, data block (as GET_DATA for every datum)
 * SET_DATA, RESERVE_DATA, RELEASE_DATA, CONFIGURE
 *                      status (METHODOPUNAVAILABLE: no provider declares
 *                      a write), class id, instance id, datum id as asked
 *
 * The summary status is SUCCESS when every entry is, NOTPRESENT when
 * nothing matched, else the first entry's status that is not SUCCESS.
 */
#define _GNU_SOURCE
#include "server/dci_answer.h"

#include <string.h>
#include <time.h>

#include "model/snapshot.h"

static uint64_t
now_nanoseconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static bool
class_matches(
    const struct dci_protocol_request *request, const struct dci_class *class)
{
	for (size_t i = 0; i < request->class_levels; i++) {
		uint32_t level = request->class_id[i];

		/* A trailing wildcard stands for one level or more. */
		if (level == DCI_PROTOCOL_ALL && i + 1 == request->class_levels)
			return class->id_length >= request->class_levels;
		if (i >= class->id_length)
			return false;
		if (level != DCI_PROTOCOL_ALL && level != class->id[i])
			return false;
	}
	return class->id_length == request->class_levels;
}

/* Whether the request's instance pattern can name instances of `class`:
 * its mask names only levels the class has, and gives exactly their
 * words. */
static bool
instance_pattern_fits(
    const struct dci_protocol_request *request, const struct dci_class *class)
{
	size_t words = 0;

	if (class->level_count < 32 &&
	    (request->input_mask >> class->level_count) != 0)
		return false;
	for (size_t level = 0; level < class->level_count && level < 32;
	     level++)
		if (request->input_mask & (1u << level))
			words += class->levels[level].size / 4;
	return words == request->instance_words;
}

static bool
instance_matches(const struct dci_protocol_request *request,
    const struct dci_class *class, const uint32_t *id)
{
	size_t given = 0, at = 0;

	for (size_t level = 0; level < class->level_count; level++) {
		size_t words = class->levels[level].size / 4;

		if (level < 32 && (request->input_mask & (1u << level))) {
			if (memcmp(request->instance + given, id + at,
			        words * sizeof(uint32_t)) != 0)
				return false;
			given += words;
		}
		at += words;
	}
	return true;
}

static void
put_class_id(struct dci_protocol_writer *payload, const struct dci_class *class)
{
	dci_protocol_put_u32(payload, (uint32_t) class->id_length);
	for (size_t i = 0; i < class->id_length; i++)
		dci_protocol_put_u32(payload, class->id[i]);
}

static void
put_instance_id(struct dci_protocol_writer *payload,
    const struct dci_class *class, const uint32_t *id)
{
	dci_protocol_put_u32(payload, (uint32_t) class->instance_words);
	for (size_t i = 0; i < class->instance_words; i++)
		dci_protocol_put_u32(payload, id[i]);
}

static void
put_text(struct dci_protocol_writer *payload, const char *text)
{
	dci_protocol_put_block(payload, text, text == NULL ? 0 : strlen(text));
}

static void
put_class_attributes(
    struct dci_protocol_writer *payload, const struct dci_class *class)
{
	put_class_id(payload, class);
	put_text(payload, class->label);
	put_text(payload, class->description);
	dci_protocol_put_u32(payload, class->supplier->index);
	dci_protocol_put_u32(payload, (uint32_t) class->level_count);
	for (size_t i = 0; i < class->level_count; i++) {
		dci_protocol_put_u32(
		    payload, (uint32_t) class->levels[i].itype);
		dci_protocol_put_u32(payload, class->levels[i].size);
	}
	dci_protocol_put_u32(payload, (uint32_t) class->record_size);
	dci_protocol_put_u32(payload, (uint32_t) class->present_size);
	dci_protocol_put_u32(payload, (uint32_t) class->datum_count);
	for (size_t i = 0; i < class->datum_count; i++) {
		const struct dci_datum *datum = &class->datums[i];
		const struct dci_datum_info *info = &datum->info;

		dci_protocol_put_u32(payload, info->id);
		dci_protocol_put_u32(payload, (uint32_t)info->type);
		dci_protocol_put_u32(payload, info->format);
		dci_protocol_put_u32(payload, info->presentation);
		dci_protocol_put_u32(payload, info->size);
		dci_protocol_put_u32(payload, info->volatility);
		dci_protocol_put_u32(payload, (uint32_t)info->unit);
		dci_protocol_put_u32(payload, (uint32_t)info->semantics);
		dci_protocol_put_u32(payload, datum->offset);
		put_text(payload, info->label);
		put_text(payload, info->description);
	}
}

/* The instance's parent id; no words when it has none. */
static void
put_parent_id(struct dci_protocol_writer *payload,
    const struct dci_class *class, const struct dci_snapshot *snapshot,
    size_t instance)
{
	const uint32_t *parent =
	    dci_snapshot_parent_id(class, snapshot, instance);

	if (parent == NULL)
		dci_protocol_put_u32(payload, 0);
	else
		put_instance_id(payload, class, parent);
}

/* The instance's presence bitmap and whole record, as blocks. */
static void
put_record(struct dci_protocol_writer *payload, const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance)
{
	dci_protocol_put_block(payload,
	    snapshot->present + instance * class->present_size,
	    class->present_size);
	dci_protocol_put_block(payload,
	    snapshot->values + instance * class->record_size,
	    class->record_size);
}

/* One GET_DATA entry; returns its status. */
static uint32_t
put_data(struct dci_protocol_writer *payload, const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance, uint32_t datum_id)
{
	const uint32_t *id =
	    dci_snapshot_instance_id(class, snapshot, instance);
	const struct dci_datum *datum = NULL;
	uint32_t status = DCI_PROTOCOL_SUCCESS;
	size_t status_offset = payload->length;

	dci_protocol_put_u32(payload, status);
	put_class_id(payload, class);
	put_instance_id(payload, class, id);
	dci_protocol_put_u32(payload, datum_id);
	if (datum_id == DCI_PROTOCOL_ALL) {
		put_record(payload, class, snapshot, instance);
		return status;
	}
	datum = dci_class_find_datum(class, datum_id);
	dci_protocol_put_block(payload, NULL, 0);
	if (datum == NULL)
		status = DCI_PROTOCOL_NOTPRESENT;
	else if (!dci_snapshot_present(class, snapshot, instance, datum))
		status = DCI_PROTOCOL_INVALIDDATA;
	if (status != DCI_PROTOCOL_SUCCESS) {
		dci_protocol_put_block(payload, NULL, 0);
		dci_protocol_patch_u32(payload, status_offset, status);
		return status;
	}
	dci_protocol_put_block(payload,
	    dci_snapshot_slot(class, snapshot, instance, datum),
	    datum->info.size);
	return status;
}

/* One entry of an answer read instance by instance: instance `instance`
 * of the snapshot; returns the entry's status. */
typedef uint32_t answer_instance_entry(struct dci_protocol_writer *payload,
    const struct dci_protocol_request *request, const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance);

/* LIST_INSTANCES. */
static uint32_t
entry_instance_listed(struct dci_protocol_writer *payload,
    const struct dci_protocol_request *request, const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance)
{
	(void)request;
	put_class_id(payload, class);
	put_instance_id(payload, class,
	    dci_snapshot_instance_id(class, snapshot, instance));
	put_text(payload, snapshot->instances[instance].label);
	return DCI_PROTOCOL_SUCCESS;
}

/* LIST_INSTANCE_PARENTS. */
static uint32_t
entry_instance_parent(struct dci_protocol_writer *payload,
    const struct dci_protocol_request *request, const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance)
{
	entry_instance_listed(payload, request, class, snapshot, instance);
	put_parent_id(payload, class, snapshot, instance);
	return DCI_PROTOCOL_SUCCESS;
}

/* GET_INSTANCE_DATA. */
static uint32_t
entry_instance_data(struct dci_protocol_writer *payload,
    const struct dci_protocol_request *request, const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance)
{
	entry_instance_parent(payload, request, class, snapshot, instance);
	put_record(payload, class, snapshot, instance);
	return DCI_PROTOCOL_SUCCESS;
}

/* GET_DATA. */
static uint32_t
entry_data(struct dci_protocol_writer *payload,
    const struct dci_protocol_request *request, const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance)
{
	return put_data(payload, class, snapshot, instance, request->datum_id);
}

/* A write: refused, as no provider offers one. */
static uint32_t
entry_write_refused(struct dci_protocol_writer *payload,
    const struct dci_protocol_request *request, const struct dci_class *class,
    const struct dci_snapshot *snapshot, size_t instance)
{
	dci_protocol_put_u32(payload, DCI_PROTOCOL_METHODOPUNAVAILABLE);
	put_class_id(payload, class);
	put_instance_id(payload, class,
	    dci_snapshot_instance_id(class, snapshot, instance));
	dci_protocol_put_u32(payload, request->datum_id);
	return DCI_PROTOCOL_METHODOPUNAVAILABLE;
}

/* The entries of the instances of `class` the request names and `peer`
 * may read; returns the first status that is not SUCCESS, else
 * SUCCESS. */
static uint32_t
answer_instances(struct dci_protocol_writer *payload,
    answer_instance_entry *entry, const struct dci_protocol_request *request,
    const struct dci_class *class, const struct dci_access *access,
    const struct dci_access_peer *peer, uint32_t *count)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	uint32_t summary = DCI_PROTOCOL_SUCCESS;
	size_t first = 0, end;

	if (snapshot == NULL || !instance_pattern_fits(request, class))
		return summary;
	end = snapshot->count;
	/* Every level given: one binary search. */
	if (request->instance_words == class->instance_words &&
	    request->input_mask != 0) {
		long found =
		    dci_snapshot_find(class, snapshot, request->instance);
		if (found < 0)
			return summary;
		first = (size_t)found;
		end = first + 1;
	}
	for (size_t i = first; i < end; i++) {
		const uint32_t *id =
		    dci_snapshot_instance_id(class, snapshot, i);
		uint32_t status;

		/* Without instance rules, the class's admitted every
		 * instance already (dci_answer). */
		if (!instance_matches(request, class, id) ||
		    (access->per_instance &&
		        !dci_access_may_read_instance(access, peer, class->id,
		            class->id_length, id, class->instance_words)))
			continue;
		(*count)++;
		status = entry(payload, request, class, snapshot, i);
		if (status != DCI_PROTOCOL_SUCCESS &&
		    summary == DCI_PROTOCOL_SUCCESS)
			summary = status;
	}
	return summary;
}

/* The instances of the class's current snapshot `peer` may read: a
 * consumer does not learn how many there are that it may not see. */
static uint32_t
readable_instance_count(const struct dci_class *class,
    const struct dci_access *access, const struct dci_access_peer *peer)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	uint32_t count = 0;

	if (snapshot == NULL)
		return 0;
	if (!access->per_instance)
		return (uint32_t)snapshot->count;
	for (size_t i = 0; i < snapshot->count; i++)
		count += dci_access_may_read_instance(access, peer, class->id,
		    class->id_length,
		    dci_snapshot_instance_id(class, snapshot, i),
		    class->instance_words);
	return count;
}

bool
dci_answer_matches(const struct dci_protocol_request *request,
    const struct dci_class *class, const uint32_t *id)
{
	return class_matches(request, class) &&
	       instance_pattern_fits(request, class) &&
	       instance_matches(request, class, id);
}

void
dci_answer_status(struct dci_protocol_writer *payload, uint32_t status)
{
	uint64_t now = now_nanoseconds();

	dci_protocol_put_u32(payload, status);
	dci_protocol_put_u32(payload, 0);
	dci_protocol_put_u64(payload, now);
	dci_protocol_put_u64(payload, now);
}

static void
put_supplier(
    struct dci_protocol_writer *payload, const struct dci_supplier *supplier)
{
	dci_protocol_put_u32(payload, supplier->index);
	dci_protocol_put_u32(payload, (uint32_t)supplier->status);
	dci_protocol_put_u32(payload, supplier->type);
	dci_protocol_put_u32(payload, supplier->version);
	dci_protocol_put_block(
	    payload, supplier->reset, sizeof(supplier->reset));
	put_text(payload, supplier->module);
	put_text(payload, supplier->title);
	put_text(payload, supplier->description);
	put_text(payload, supplier->provider_name);
	put_text(payload,
	    supplier->status == DCI_SUPPLIER_FAILED ? supplier->failure : "");
	dci_protocol_put_u64(
	    payload, (uint64_t)supplier->discontinuity_milliseconds);
	dci_protocol_put_u64(
	    payload, (uint64_t)supplier->last_refresh_milliseconds);
}

/* Whether `peer` may know of `supplier` (LIST_SUPPLIERS above). */
static bool
supplier_visible(const struct dci_registry *registry,
    const struct dci_access *access, const struct dci_access_peer *peer,
    const struct dci_supplier *supplier)
{
	bool has_class = false;

	for (size_t i = 0; i < registry->class_count; i++) {
		const struct dci_class *class = registry->classes[i];

		if (class->supplier != supplier)
			continue;
		if (dci_access_may_read(
		        access, peer, class->id, class->id_length))
			return true;
		has_class = true;
	}
	return !has_class && dci_access_may_read_every_class(access, peer);
}

/* LIST_SUPPLIERS: no pattern; the suppliers `peer` may know of. */
static void
answer_suppliers(const struct dci_registry *registry,
    const struct dci_access *access, const struct dci_access_peer *peer,
    struct dci_protocol_writer *payload)
{
	uint64_t start = now_nanoseconds(), end;
	uint32_t count = 0;
	size_t base = payload->length;

	dci_protocol_put_u32(payload, DCI_PROTOCOL_SUCCESS);
	dci_protocol_put_u32(payload, 0);
	dci_protocol_put_u64(payload, start);
	dci_protocol_put_u64(payload, start);
	for (size_t i = 0; i < registry->supplier_count; i++) {
		const struct dci_supplier *supplier = registry->suppliers[i];

		if (supplier == NULL || supplier->withdrawn ||
		    !supplier_visible(registry, access, peer, supplier))
			continue;
		put_supplier(payload, supplier);
		count++;
	}
	end = now_nanoseconds();
	dci_protocol_patch_u32(payload, base,
	    count == 0 ? DCI_PROTOCOL_NOTPRESENT : DCI_PROTOCOL_SUCCESS);
	dci_protocol_patch_u32(payload, base + 4, count);
	dci_protocol_patch_u32(payload, base + 16, (uint32_t)end);
	dci_protocol_patch_u32(payload, base + 20, (uint32_t)(end >> 32));
}

/* One entry of an answer read class by class. */
typedef void answer_class_entry(struct dci_protocol_writer *payload,
    const struct dci_class *class, const struct dci_access *access,
    const struct dci_access_peer *peer);

/* LIST_CLASSES. */
static void
entry_class_listed(struct dci_protocol_writer *payload,
    const struct dci_class *class, const struct dci_access *access,
    const struct dci_access_peer *peer)
{
	put_class_id(payload, class);
	put_text(payload, class->label);
	dci_protocol_put_u32(payload, (uint32_t) class->level_count);
	dci_protocol_put_u32(
	    payload, readable_instance_count(class, access, peer));
}

/* GET_CLASS_ATTRIBUTES. */
static void
entry_class_attributes(struct dci_protocol_writer *payload,
    const struct dci_class *class, const struct dci_access *access,
    const struct dci_access_peer *peer)
{
	(void)access;
	(void)peer;
	put_class_attributes(payload, class);
}

/* How each request type is answered: whole (its own walk), or class by
 * class with one entry per class or one per instance. A type not here is
 * answered NOTIMPLEMENTED. */
struct answer_kind {
	uint16_t type;
	void (*whole)(const struct dci_registry *registry,
	    const struct dci_access *access, const struct dci_access_peer *peer,
	    struct dci_protocol_writer *payload);
	answer_class_entry *per_class;
	answer_instance_entry *per_instance;
};

static const struct answer_kind answer_kinds[] = {
    {DCI_PROTOCOL_LIST_CLASSES, NULL, entry_class_listed, NULL},
    {DCI_PROTOCOL_LIST_INSTANCES, NULL, NULL, entry_instance_listed},
    {DCI_PROTOCOL_GET_CLASS_ATTRIBUTES, NULL, entry_class_attributes, NULL},
    {DCI_PROTOCOL_GET_DATA, NULL, NULL, entry_data},
    {DCI_PROTOCOL_SET_DATA, NULL, NULL, entry_write_refused},
    {DCI_PROTOCOL_RESERVE_DATA, NULL, NULL, entry_write_refused},
    {DCI_PROTOCOL_RELEASE_DATA, NULL, NULL, entry_write_refused},
    {DCI_PROTOCOL_CONFIGURE, NULL, NULL, entry_write_refused},
    {DCI_PROTOCOL_LIST_SUPPLIERS, answer_suppliers, NULL, NULL},
    {DCI_PROTOCOL_LIST_INSTANCE_PARENTS, NULL, NULL, entry_instance_parent},
    {DCI_PROTOCOL_GET_INSTANCE_DATA, NULL, NULL, entry_instance_data},
};

static const struct answer_kind *
answer_kind_of(uint16_t type)
{
	for (size_t i = 0; i < sizeof(answer_kinds) / sizeof(answer_kinds[0]);
	     i++)
		if (answer_kinds[i].type == type)
			return &answer_kinds[i];
	return NULL;
}

void
dci_answer(const struct dci_registry *registry, const struct dci_access *access,
    const struct dci_access_peer *peer, uint16_t type,
    const struct dci_protocol_request *request,
    struct dci_protocol_writer *payload)
{
	const struct answer_kind *kind = answer_kind_of(type);
	uint64_t start = now_nanoseconds(), end;
	uint32_t summary = DCI_PROTOCOL_SUCCESS, count = 0;
	size_t base = payload->length;

	if (kind == NULL) {
		dci_answer_status(payload, DCI_PROTOCOL_NOTIMPLEMENTED);
		return;
	}
	if (kind->whole != NULL) {
		kind->whole(registry, access, peer, payload);
		return;
	}
	dci_protocol_put_u32(payload, summary);
	dci_protocol_put_u32(payload, count);
	dci_protocol_put_u64(payload, start);
	dci_protocol_put_u64(payload, start);
	for (size_t i = 0; i < registry->class_count; i++) {
		const struct dci_class *class = registry->classes[i];
		uint32_t status;

		if (!class_matches(request, class) ||
		    !dci_access_may_read(
		        access, peer, class->id, class->id_length))
			continue;
		if (kind->per_class != NULL) {
			count++;
			kind->per_class(payload, class, access, peer);
			continue;
		}
		status = answer_instances(payload, kind->per_instance, request,
		    class, access, peer, &count);
		if (status != DCI_PROTOCOL_SUCCESS &&
		    summary == DCI_PROTOCOL_SUCCESS)
			summary = status;
	}
	if (count == 0)
		summary = DCI_PROTOCOL_NOTPRESENT;
	end = now_nanoseconds();
	dci_protocol_patch_u32(payload, base, summary);
	dci_protocol_patch_u32(payload, base + 4, count);
	dci_protocol_patch_u32(payload, base + 16, (uint32_t)end);
	dci_protocol_patch_u32(payload, base + 20, (uint32_t)(end >> 32));
}
