#include "snmp/table_index.h"

#include "model/lower_bound.h"
#include "model/snapshot.h"

/*
 * The search at every level follows one rule. A request (the remaining
 * sub-identifiers) is compared with a row segment S of fixed length:
 *   - a sub-identifier differs: that decides the order;
 *   - the request ends inside S: every row under S sorts after the request;
 *   - S is a prefix of the request: descend with the rest of the request.
 * Within one level segments never prefix each other (class ids are
 * length-prefixed, instance ids have the class's fixed length), so these
 * comparisons are monotonic along a sorted level and binary search works.
 */

enum order { BEFORE = -1, DESCEND = 0, AFTER = 1 };

struct request {
	const uint64_t *subids; /* NULL: no request, take the first row */
	size_t length;
};

static enum order
compare_segment(const uint32_t *segment, size_t segment_length,
    bool length_prefixed, const struct request *request)
{
	size_t position = 0;

	if (length_prefixed) {
		if (request->length == 0)
			return AFTER;
		if (request->subids[0] != segment_length)
			return segment_length < request->subids[0] ? BEFORE
			                                           : AFTER;
		position = 1;
	}
	for (size_t i = 0; i < segment_length; i++, position++) {
		if (position >= request->length)
			return AFTER;
		if (request->subids[position] != segment[i])
			return segment[i] < request->subids[position] ? BEFORE
			                                              : AFTER;
	}
	return DESCEND;
}

static struct request
request_rest(const struct request *request, size_t consumed)
{
	struct request rest = {
	    request->subids + consumed, request->length - consumed};
	return rest;
}

static size_t
segment_consumed(size_t segment_length, bool length_prefixed)
{
	return segment_length + (length_prefixed ? 1 : 0);
}

/* A sorted level searched for a request: classes (by length-prefixed id,
 * or by levels alone), instances (with or without the id's length prefix)
 * or datums (by id). */
struct level_search {
	const struct request *request;
	const struct dci_class *const *classes;
	const struct dci_class *class;
	bool length_prefixed;
};

static bool
class_before(const void *context, size_t position)
{
	const struct level_search *search = context;
	const struct dci_class *class = search->classes[position];

	return compare_segment(class->id, class->id_length,
	           search->length_prefixed, search->request) == BEFORE;
}

static bool
instance_before(const void *context, size_t position)
{
	const struct level_search *search = context;
	const struct dci_class *class = search->class;

	return compare_segment(
	           dci_snapshot_instance_id(class, class->snapshot, position),
	           class->instance_words, search->length_prefixed,
	           search->request) == BEFORE;
}

static bool
datum_before(const void *context, size_t position)
{
	const struct level_search *search = context;

	return search->class->datums[position].info.id <
	       search->request->subids[0];
}

/* First class at or after the request, and whether that class is the one
 * the request descends into: of registry->classes (sorted by id with its
 * length prefix) or, `by_levels`, of classes_by_levels (by levels alone,
 * as the per-class tables are). */
static size_t
class_lower_bound(const struct dci_registry *registry, bool by_levels,
    const struct request *request, bool *descend)
{
	const struct dci_class *const *classes =
	    (const struct dci_class *const *)(by_levels
	                                          ? registry->classes_by_levels
	                                          : registry->classes);
	size_t count = registry->class_count;
	struct level_search search = {
	    .request = request,
	    .classes = classes,
	    .length_prefixed = !by_levels,
	};
	size_t position;

	*descend = false;
	if (request->subids == NULL)
		return 0;
	position = dci_lower_bound(count, class_before, &search);
	if (position < count)
		*descend = compare_segment(classes[position]->id,
		               classes[position]->id_length, !by_levels,
		               request) == DESCEND;
	return position;
}

/* First instance at or after the request, with or without the instance id's
 * length prefix; `descend` (may be NULL) when the request starts with that
 * instance's id. */
static size_t
instance_lower_bound_in(const struct dci_class *class,
    const struct request *request, bool length_prefixed, bool *descend)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	struct level_search search = {
	    .request = request,
	    .class = class,
	    .length_prefixed = length_prefixed,
	};
	size_t position;

	if (descend != NULL)
		*descend = false;
	if (request->subids == NULL)
		return 0;
	position = dci_lower_bound(snapshot->count, instance_before, &search);
	if (position < snapshot->count && descend != NULL)
		*descend = compare_segment(dci_snapshot_instance_id(
		                               class, snapshot, position),
		               class->instance_words, length_prefixed,
		               request) == DESCEND;
	return position;
}

static size_t
instance_lower_bound(
    const struct dci_class *class, const struct request *request, bool *descend)
{
	return instance_lower_bound_in(class, request, true, descend);
}

/* The datum is the last level: a row matches EXACT when its id is the
 * whole remaining request, and is NEXT when it sorts strictly after. */
static size_t
datum_lower_bound(
    const struct dci_class *class, const struct request *request, bool *equal)
{
	struct level_search search = {.request = request, .class = class};
	size_t position;

	*equal = false;
	if (request->subids == NULL || request->length == 0)
		return 0;
	position = dci_lower_bound(class->datum_count, datum_before, &search);
	if (position < class->datum_count &&
	    class->datums[position].info.id == request->subids[0])
		*equal = true;
	return position;
}

/* The position of the first leaf-level entry that sorts after the request,
 * or the exact one; SIZE_MAX for none in EXACT mode. */
static size_t
leaf_start(size_t lower_bound, bool equal, const struct request *request,
    enum schema_index_mode mode)
{
	if (mode == SCHEMA_INDEX_EXACT)
		return equal && request->length == 1 ? lower_bound : SIZE_MAX;
	/* Equal id: the row is the request itself or a prefix of it. */
	return equal ? lower_bound + 1 : lower_bound;
}

bool
schema_index_supplier(const struct dci_registry *registry,
    const uint64_t *index, size_t length, enum schema_index_mode mode,
    struct schema_index_row *row)
{
	uint64_t position; /* 0-based position of the answer */

	if (mode == SCHEMA_INDEX_EXACT) {
		if (length != 1 || index[0] == 0 ||
		    index[0] > registry->supplier_count ||
		    registry->suppliers[index[0] - 1]->withdrawn)
			return false;
		position = index[0] - 1;
	} else {
		/* Suppliers are numbered 1..n; withdrawn ones have no row
		 * (there are few: one per provider unloaded). */
		position = length == 0 ? 0 : index[0];
		while (position < registry->supplier_count &&
		       registry->suppliers[position]->withdrawn)
			position++;
		if (position >= registry->supplier_count)
			return false;
	}
	*row = (struct schema_index_row){
	    .supplier = registry->suppliers[position]};
	return true;
}

/* Where a lookup over registry->classes stands: the request, the
 * position of the class at or after it, and whether the request descends
 * into that class. */
struct class_walk {
	struct request request;
	size_t position;
	bool descend;
};

static struct class_walk
class_walk_start(
    const struct dci_registry *registry, const uint64_t *index, size_t length)
{
	struct class_walk walk = {.request = {index, length}};

	walk.position =
	    class_lower_bound(registry, false, &walk.request, &walk.descend);
	return walk;
}

/* The walk's class when the request descends into it, or NULL. */
static const struct dci_class *
class_walk_descended(
    const struct dci_registry *registry, const struct class_walk *walk)
{
	return walk->descend ? registry->classes[walk->position] : NULL;
}

/* The part of the request below `class` when the request descends into
 * it; none (NULL sub-identifiers) otherwise. */
static struct request
class_walk_rest(const struct class_walk *walk, const struct dci_class *class)
{
	if (!walk->descend)
		return (struct request){NULL, 0};
	return request_rest(
	    &walk->request, segment_consumed(class->id_length, true));
}

bool
schema_index_class(const struct dci_registry *registry, const uint64_t *index,
    size_t length, enum schema_index_mode mode, struct schema_index_row *row)
{
	struct class_walk walk = class_walk_start(registry, index, length);

	if (mode == SCHEMA_INDEX_EXACT) {
		const struct dci_class *class =
		    class_walk_descended(registry, &walk);
		if (class == NULL ||
		    segment_consumed(class->id_length, true) != length)
			return false;
	} else if (walk.descend) {
		walk.position++; /* the class is the request or a prefix of it
		                  */
	}
	if (walk.position >= registry->class_count)
		return false;
	*row = (struct schema_index_row){
	    .class = registry->classes[walk.position]};
	return true;
}

static bool
datum_in_column(
    const struct dci_datum *datum, const struct schema_index_filter *filter)
{
	if (datum->kind == DCI_KIND_NONE)
		return false;
	if (filter == NULL)
		return true;
	if ((filter->kinds & (1u << datum->kind)) == 0)
		return false;
	return !filter->counters_only ||
	       datum->info.semantics == DCI_SEMANTICS_COUNTER;
}

bool
schema_index_datum_described(const struct dci_datum *datum)
{
	return datum->kind != DCI_KIND_NONE ||
	       datum->info.type == DCI_ST_UNUSED;
}

bool
schema_index_datum(const struct dci_registry *registry, const uint64_t *index,
    size_t length, enum schema_index_mode mode, struct schema_index_row *row)
{
	struct class_walk walk = class_walk_start(registry, index, length);

	for (; walk.position < registry->class_count; walk.position++) {
		const struct dci_class *class =
		    registry->classes[walk.position];
		struct request rest = class_walk_rest(&walk, class);
		bool equal;
		size_t start;

		start = datum_lower_bound(class, &rest, &equal);
		if (rest.subids != NULL)
			start = leaf_start(start, equal, &rest, mode);
		else if (mode == SCHEMA_INDEX_EXACT)
			return false;
		for (size_t d = start; d < class->datum_count; d++) {
			if (schema_index_datum_described(&class->datums[d])) {
				*row = (struct schema_index_row){
				    .class = class, .datum = &class->datums[d]};
				return true;
			}
			if (mode == SCHEMA_INDEX_EXACT)
				return false;
		}
		if (mode == SCHEMA_INDEX_EXACT)
			return false;
		walk.descend = false;
	}
	return false;
}

bool
schema_index_instance(const struct dci_registry *registry,
    const uint64_t *index, size_t length, enum schema_index_mode mode,
    struct schema_index_row *row)
{
	struct class_walk walk = class_walk_start(registry, index, length);

	for (; walk.position < registry->class_count; walk.position++) {
		const struct dci_class *class =
		    registry->classes[walk.position];
		const struct dci_snapshot *snapshot = class->snapshot;
		size_t start = 0;
		bool inside = false;

		if (mode == SCHEMA_INDEX_EXACT &&
		    (!walk.descend || snapshot == NULL))
			return false;
		if (snapshot != NULL && walk.descend) {
			struct request rest = class_walk_rest(&walk, class);
			start = instance_lower_bound(class, &rest, &inside);
			if (mode == SCHEMA_INDEX_EXACT &&
			    (!inside || rest.length !=
			                    segment_consumed(
			                        class->instance_words, true)))
				return false;
			/* NEXT: the request is this row or below it. */
			if (mode == SCHEMA_INDEX_NEXT && inside)
				start++;
		}
		if (snapshot != NULL && start < snapshot->count) {
			*row = (struct schema_index_row){
			    .class = class, .instance = start};
			return true;
		}
		walk.descend = false;
	}
	return false;
}

/* First datum at or after `start` with a value for this instance in the
 * column; the class's datum count bounds the scan. */
static const struct dci_datum *
first_present_datum(const struct dci_class *class, size_t instance,
    size_t start, const struct schema_index_filter *filter)
{
	for (size_t d = start; d < class->datum_count; d++) {
		const struct dci_datum *datum = &class->datums[d];
		if (datum_in_column(datum, filter) &&
		    dci_snapshot_present(
		        class, class->snapshot, instance, datum))
			return datum;
	}
	return NULL;
}

/* The first instance at or after `start` with a value for any datum of
 * the column: the nearest of each such datum's next present instance. A
 * datum every instance has ends the search at once. */
static size_t
next_instance_in_column(const struct dci_class *class, size_t start,
    const struct schema_index_filter *filter)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	size_t nearest = snapshot->count;

	for (size_t d = 0; d < class->datum_count && nearest > start; d++) {
		const struct dci_datum *datum = &class->datums[d];
		size_t next;

		if (!datum_in_column(datum, filter))
			continue;
		next = dci_snapshot_next_present(class, snapshot, datum, start);
		if (next < nearest)
			nearest = next;
	}
	return nearest;
}

static bool
class_in_column(
    const struct dci_class *class, const struct schema_index_filter *filter)
{
	if (class->snapshot == NULL || class->snapshot->count == 0)
		return false;
	if ((class->kind_mask & filter->kinds) == 0)
		return false;
	return !filter->counters_only || class->has_counters;
}

static bool
stat_exact(const struct dci_class *class, const struct request *request,
    const struct schema_index_filter *filter, struct schema_index_row *row)
{
	struct request rest;
	bool inside, equal;
	size_t instance, datum;

	instance = instance_lower_bound(class, request, &inside);
	if (!inside)
		return false;
	rest = request_rest(
	    request, segment_consumed(class->instance_words, true));
	datum = datum_lower_bound(class, &rest, &equal);
	datum = leaf_start(datum, equal, &rest, SCHEMA_INDEX_EXACT);
	if (datum == SIZE_MAX ||
	    !datum_in_column(&class->datums[datum], filter) ||
	    !dci_snapshot_present(
	        class, class->snapshot, instance, &class->datums[datum]))
		return false;
	*row = (struct schema_index_row){.class = class,
	    .instance = instance,
	    .datum = &class->datums[datum]};
	return true;
}

bool
schema_index_stat(const struct dci_registry *registry, const uint64_t *index,
    size_t length, enum schema_index_mode mode,
    const struct schema_index_filter *filter, struct schema_index_row *row)
{
	struct class_walk walk = class_walk_start(registry, index, length);

	if (mode == SCHEMA_INDEX_EXACT) {
		const struct dci_class *class =
		    class_walk_descended(registry, &walk);
		if (class == NULL || !class_in_column(class, filter))
			return false;
		walk.request = class_walk_rest(&walk, class);
		return stat_exact(class, &walk.request, filter, row);
	}

	for (; walk.position < registry->class_count; walk.position++) {
		const struct dci_class *class =
		    registry->classes[walk.position];
		const struct dci_snapshot *snapshot = class->snapshot;
		struct request rest = {NULL, 0};
		size_t instance = 0, datum_start = 0;
		bool inside = false;

		if (!class_in_column(class, filter)) {
			walk.descend = false;
			continue;
		}
		if (walk.descend) {
			rest = class_walk_rest(&walk, class);
			instance = instance_lower_bound(class, &rest, &inside);
		}
		for (;;) {
			const struct dci_datum *datum;

			datum_start = 0;
			if (inside) {
				struct request leaf = request_rest(
				    &rest, segment_consumed(
				               class->instance_words, true));
				bool equal;
				datum_start =
				    datum_lower_bound(class, &leaf, &equal);
				datum_start = leaf_start(datum_start, equal,
				    &leaf, SCHEMA_INDEX_NEXT);
				inside = false;
			} else {
				/* Past the instances with nothing in the
				 * column, in O(log n) each. */
				instance = next_instance_in_column(
				    class, instance, filter);
			}
			if (instance >= snapshot->count)
				break;
			datum = first_present_datum(
			    class, instance, datum_start, filter);
			if (datum != NULL) {
				*row = (struct schema_index_row){.class = class,
				    .instance = instance,
				    .datum = datum};
				return true;
			}
			instance++;
		}
		walk.descend = false;
	}
	return false;
}

/* --- The per-class tables ------------------------------------------------ */

/* First instance at or after `start` with a value for `datum`: O(log n),
 * however sparse the column (dci_snapshot_next_present). */
static bool
first_instance_with(const struct dci_class *class,
    const struct dci_datum *datum, size_t start, size_t *instance)
{
	*instance =
	    dci_snapshot_next_present(class, class->snapshot, datum, start);
	return *instance < class->snapshot->count;
}

/* The datum whose column of the class's table `request` (after the class's
 * levels) starts with: [1, datum id, ...]; NULL when that is no column. */
static const struct dci_datum *
class_data_column(const struct dci_class *class, const struct request *request)
{
	const struct dci_datum *datum;

	if (request->length < 2 || request->subids[0] != 1 ||
	    request->subids[1] > UINT32_MAX)
		return NULL;
	datum = dci_class_find_datum(class, (uint32_t)request->subids[1]);
	return datum != NULL && datum_in_column(datum, NULL) ? datum : NULL;
}

static bool
class_data_exact(const struct dci_class *class, const struct request *request,
    struct schema_index_row *row)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	const struct dci_datum *datum;
	struct request rest;
	long instance;

	if (snapshot == NULL || request->length != 2 + class->instance_words)
		return false;
	datum = class_data_column(class, request);
	if (datum == NULL)
		return false;
	rest = request_rest(request, 2);
	instance = (long)instance_lower_bound_in(class, &rest, false, NULL);
	if ((size_t)instance >= snapshot->count ||
	    compare_segment(
	        dci_snapshot_instance_id(class, snapshot, (size_t)instance),
	        class->instance_words, false, &rest) != DESCEND ||
	    !dci_snapshot_present(class, snapshot, (size_t)instance, datum))
		return false;
	*row = (struct schema_index_row){
	    .class = class, .instance = (size_t)instance, .datum = datum};
	return true;
}

/* The class whose levels `request` starts with, and in *rest what follows
 * them; NULL when there is none. */
static const struct dci_class *
class_data_owner(const struct dci_registry *registry,
    const struct request *request, struct request *rest)
{
	bool descend;
	size_t position = class_lower_bound(registry, true, request, &descend);
	const struct dci_class *class;

	if (!descend)
		return NULL;
	class = registry->classes_by_levels[position];
	*rest = request_rest(request, class->id_length);
	return class;
}

bool
schema_index_class_data_column(
    const struct dci_registry *registry, const uint64_t *index, size_t length)
{
	struct request request = {index, length}, rest;
	const struct dci_class *class =
	    class_data_owner(registry, &request, &rest);

	return class != NULL && class_data_column(class, &rest) != NULL;
}

bool
schema_index_class_data(const struct dci_registry *registry,
    const uint64_t *index, size_t length, enum schema_index_mode mode,
    struct schema_index_row *row)
{
	struct request request = {index, length};
	bool descend;
	size_t position;

	if (mode == SCHEMA_INDEX_EXACT) {
		struct request rest;
		const struct dci_class *class =
		    class_data_owner(registry, &request, &rest);
		return class != NULL && class_data_exact(class, &rest, row);
	}
	position = class_lower_bound(registry, true, &request, &descend);
	for (; position < registry->class_count; position++, descend = false) {
		const struct dci_class *class =
		    registry->classes_by_levels[position];
		size_t datum_start = 0, instance_start = 0, instance;

		if (class->snapshot == NULL || class->snapshot->count == 0)
			continue;
		if (descend) {
			/* [1, datum, instance...] after the class's levels. */
			struct request rest =
			    request_rest(&request, class->id_length);
			if (rest.length > 0 && rest.subids[0] > 1)
				continue; /* past the table's entry */
			if (rest.length > 1 && rest.subids[0] == 1) {
				struct request column = request_rest(&rest, 1);
				struct request leaf;
				bool equal;
				datum_start =
				    datum_lower_bound(class, &column, &equal);
				if (equal) {
					leaf = request_rest(&rest, 2);
					instance_start =
					    instance_lower_bound_in(
					        class, &leaf, false, &equal);
					/* The request is this cell or below
					 * it: the next cell follows. */
					if (equal)
						instance_start++;
				}
			}
		}
		for (size_t d = datum_start; d < class->datum_count;
		     d++, instance_start = 0) {
			const struct dci_datum *datum = &class->datums[d];
			if (datum_in_column(datum, NULL) &&
			    first_instance_with(
			        class, datum, instance_start, &instance)) {
				*row = (struct schema_index_row){.class = class,
				    .instance = instance,
				    .datum = datum};
				return true;
			}
		}
	}
	return false;
}

static size_t
encode_class_segment(const struct dci_class *class, uint32_t *index)
{
	index[0] = (uint32_t) class->id_length;
	for (size_t i = 0; i < class->id_length; i++)
		index[1 + i] = class->id[i];
	return 1 + class->id_length;
}

static size_t
encode_id_segment(
    const struct dci_class *class, const uint32_t *id, uint32_t *index)
{
	index[0] = (uint32_t) class->instance_words;
	for (size_t i = 0; i < class->instance_words; i++)
		index[1 + i] = id[i];
	return 1 + class->instance_words;
}

static size_t
encode_instance_segment(const struct schema_index_row *row, uint32_t *index)
{
	const struct dci_class *class = row->class;

	return encode_id_segment(class,
	    dci_snapshot_instance_id(class, class->snapshot, row->instance),
	    index);
}

size_t
schema_index_encode_class(const struct dci_class *class, uint32_t *index)
{
	return encode_class_segment(class, index);
}

size_t
schema_index_encode_datum(const struct schema_index_row *row, uint32_t *index)
{
	size_t length = encode_class_segment(row->class, index);

	index[length] = row->datum->info.id;
	return length + 1;
}

size_t
schema_index_encode_instance(
    const struct schema_index_row *row, uint32_t *index)
{
	size_t length = encode_class_segment(row->class, index);

	return length + encode_instance_segment(row, index + length);
}

size_t
schema_index_encode_parent(const struct schema_index_row *row, uint32_t *index)
{
	const struct dci_class *class = row->class;
	const uint32_t *parent =
	    dci_snapshot_parent_id(class, class->snapshot, row->instance);
	size_t length;

	if (parent == NULL)
		return 0;
	length = encode_class_segment(class, index);
	return length + encode_id_segment(class, parent, index + length);
}

size_t
schema_index_encode_stat(const struct schema_index_row *row, uint32_t *index)
{
	size_t length = schema_index_encode_instance(row, index);

	index[length] = row->datum->info.id;
	return length + 1;
}

size_t
schema_index_encode_class_data(
    const struct schema_index_row *row, uint32_t *index)
{
	const struct dci_class *class = row->class;
	const uint32_t *id =
	    dci_snapshot_instance_id(class, class->snapshot, row->instance);
	size_t length = class->id_length;

	for (size_t i = 0; i < class->id_length; i++)
		index[i] = class->id[i];
	index[length++] = 1;
	index[length++] = row->datum->info.id;
	for (size_t i = 0; i < class->instance_words; i++)
		index[length++] = id[i];
	return length;
}
