/*
 * The request path's searches in a committed snapshot (model/snapshot.h):
 * an instance by its id, and the next instance with a value for a datum
 * (through the presence index commit builds, or the presence bits when
 * there is none). Binary searches; nothing is allocated.
 */
#include "model/snapshot.h"

#include "model/instance_id.h"
#include "model/lower_bound.h"

struct id_search {
	const struct dci_class *class;
	const struct dci_snapshot *snapshot;
	const uint32_t *id;
};

static bool
instance_before_id(const void *context, size_t position)
{
	const struct id_search *search = context;

	return dci_instance_id_compare(dci_snapshot_instance_id(search->class,
	                                   search->snapshot, position),
	           search->id, search->class->instance_words) < 0;
}

long
dci_snapshot_find(const struct dci_class *class,
    const struct dci_snapshot *snapshot, const uint32_t *id)
{
	struct id_search search = {class, snapshot, id};
	size_t position =
	    dci_lower_bound(snapshot->count, instance_before_id, &search);

	if (position < snapshot->count &&
	    dci_instance_id_compare(
	        dci_snapshot_instance_id(class, snapshot, position), id,
	        class->instance_words) == 0)
		return (long)position;
	return -1;
}

struct position_search {
	const struct dci_snapshot_column *column;
	size_t start;
};

static bool
position_before(const void *context, size_t position)
{
	const struct position_search *search = context;

	return search->column->positions[position] < search->start;
}

size_t
dci_snapshot_next_present(const struct dci_class *class,
    const struct dci_snapshot *snapshot, const struct dci_datum *datum,
    size_t start)
{
	const struct dci_snapshot_column *column;
	struct position_search search;
	size_t found;

	if (snapshot->columns == NULL ||
	    datum->index >= snapshot->column_count) {
		while (start < snapshot->count &&
		       !dci_snapshot_present(class, snapshot, start, datum))
			start++;
		return start < snapshot->count ? start : snapshot->count;
	}
	column = &snapshot->columns[datum->index];
	if (column->complete)
		return start < snapshot->count ? start : snapshot->count;
	search = (struct position_search){column, start};
	found = dci_lower_bound(column->count, position_before, &search);
	return found < column->count ? column->positions[found]
	                             : snapshot->count;
}
