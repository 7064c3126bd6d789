#define _GNU_SOURCE
#include "model/snapshot.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/derived.h"
#include "model/events.h"
#include "model/instance_id.h"
#include "model/large_block.h"
#include "base/log.h"

struct sort_entry;

struct dci_snapshot_builder {
	const struct dci_class *class;
	size_t count;
	size_t capacity;
	uint32_t *ids;
	/* Each row's label, in `label_arena`; commit takes the arena. */
	const char **labels;
	struct dci_label_arena label_arena;
	unsigned char *values;
	unsigned char *present;
	/* ids, values and present are large blocks (model/large_block.h) of
	 * these sizes; commit takes them into the snapshot. */
	size_t ids_bytes, values_bytes, present_bytes;
	/* Allocated on the first parent link: most classes have none. */
	uint32_t *parents;
	bool *has_parent;
	/* Allocated on the first declared discontinuity: rare. */
	bool *discontinuous;
	/* Set by dci_snapshot_builder_seal: the rows in instance id order. */
	struct sort_entry *order;
};

static size_t
ids_bytes(const struct dci_class *class, size_t count)
{
	return count * class->instance_words * sizeof(uint32_t);
}

/* Resizes a large block of `*bytes` bytes to `new_bytes` and records the
 * new size; NULL (and `*bytes` unchanged, the block kept) when out of
 * memory. */
static void *
resize_block(void *block, size_t *bytes, size_t new_bytes)
{
	void *resized = dci_large_block_resize(block, *bytes, new_bytes);

	if (resized != NULL)
		*bytes = new_bytes;
	return resized;
}

struct dci_snapshot_builder *
dci_snapshot_builder_new(const struct dci_class *class)
{
	struct dci_snapshot_builder *builder = calloc(1, sizeof(*builder));

	if (builder != NULL)
		builder->class = class;
	return builder;
}

void
dci_snapshot_builder_free(struct dci_snapshot_builder *builder)
{
	if (builder == NULL)
		return;
	dci_label_arena_free(&builder->label_arena);
	dci_large_block_free(builder->ids, builder->ids_bytes);
	free(builder->labels);
	dci_large_block_free(builder->values, builder->values_bytes);
	dci_large_block_free(builder->present, builder->present_bytes);
	free(builder->parents);
	free(builder->has_parent);
	free(builder->discontinuous);
	free(builder->order);
	free(builder);
}

static int
builder_grow_parents(struct dci_snapshot_builder *builder, size_t capacity)
{
	size_t words = builder->class->instance_words;
	uint32_t *parents;
	bool *has_parent;

	parents =
	    realloc(builder->parents, capacity * words * sizeof(*parents));
	if (parents == NULL)
		return -1;
	builder->parents = parents;
	has_parent =
	    realloc(builder->has_parent, capacity * sizeof(*has_parent));
	if (has_parent == NULL)
		return -1;
	builder->has_parent = has_parent;
	return 0;
}

static int
builder_grow(struct dci_snapshot_builder *builder)
{
	const struct dci_class *class = builder->class;
	/* First as many rows and label bytes as the class has now: a refresh
	 * usually rebuilds the same instances, and then allocates each array
	 * and label chunk once. */
	const struct dci_snapshot *served = class->snapshot;
	size_t served_count = served != NULL ? served->count : 0;
	size_t capacity = builder->capacity
	                      ? builder->capacity * 2
	                      : (served_count > 64 ? served_count : 64);
	uint32_t *ids;
	const char **labels;
	unsigned char *values, *present;

	if (builder->capacity == 0)
		dci_label_arena_init(&builder->label_arena,
		    served != NULL ? served->labels.bytes : 0);
	ids = resize_block(
	    builder->ids, &builder->ids_bytes, ids_bytes(class, capacity));
	if (ids == NULL)
		return -1;
	builder->ids = ids;
	values = resize_block(builder->values, &builder->values_bytes,
	    capacity * class->record_size);
	if (values == NULL)
		return -1;
	builder->values = values;
	present = resize_block(builder->present, &builder->present_bytes,
	    capacity * class->present_size);
	if (present == NULL)
		return -1;
	builder->present = present;
	labels = realloc(builder->labels, capacity * sizeof(*labels));
	if (labels == NULL)
		return -1;
	builder->labels = labels;
	if (builder->parents != NULL &&
	    builder_grow_parents(builder, capacity) != 0)
		return -1;
	if (builder->discontinuous != NULL) {
		bool *discontinuous = realloc(
		    builder->discontinuous, capacity * sizeof(*discontinuous));
		if (discontinuous == NULL)
			return -1;
		builder->discontinuous = discontinuous;
	}
	builder->capacity = capacity;
	return 0;
}

long
dci_snapshot_builder_add(struct dci_snapshot_builder *builder,
    const uint32_t *id, size_t id_words, const char *label, char *why,
    size_t why_size)
{
	const struct dci_class *class = builder->class;
	char label_why[256], *label_escaped;
	size_t row = builder->count;

	if (id == NULL || id_words != class->instance_words) {
		log_reason(why, why_size,
		    "instance id has %zu words, class \"%s\" has %zu (its "
		    "instance levels)",
		    id == NULL ? 0 : id_words, class->label,
		    class->instance_words);
		return -1;
	}
	if (row == builder->capacity && builder_grow(builder) != 0) {
		log_reason(why, why_size, "out of memory");
		return -1;
	}
	/* Escaped in place, into the room of the longest label. */
	label_escaped = dci_label_arena_room(
	    &builder->label_arena, DCI_INSTANCE_LABEL_SIZE);
	if (label_escaped == NULL) {
		log_reason(why, why_size, "out of memory");
		return -1;
	}
	/* Instance labels name real objects ("eth0.100", any bytes an
	 * administrator chose): served escaped rather than left out. */
	if (!dci_registry_instance_label_escape(
	        label, label_escaped, label_why, sizeof(label_why))) {
		log_reason(why, why_size, "%s", label_why);
		return -1;
	}
	dci_label_arena_keep(&builder->label_arena, strlen(label_escaped) + 1);
	builder->labels[row] = label_escaped;
	memcpy(builder->ids + row * class->instance_words, id,
	    id_words * sizeof(*id));
	/* A row is written once: in a mapped block it is still zero. */
	if (!dci_large_block_zeroed(builder->values_bytes))
		memset(builder->values + row * class->record_size, 0,
		    class->record_size);
	if (!dci_large_block_zeroed(builder->present_bytes))
		memset(builder->present + row * class->present_size, 0,
		    class->present_size);
	if (builder->has_parent != NULL)
		builder->has_parent[row] = false;
	if (builder->discontinuous != NULL)
		builder->discontinuous[row] = false;
	builder->count++;
	return (long)row;
}

const uint32_t *
dci_snapshot_builder_row_id(
    const struct dci_snapshot_builder *builder, long row)
{
	if (row < 0 || (size_t)row >= builder->count)
		return NULL;
	return builder->ids + (size_t)row * builder->class->instance_words;
}

/* Whether `row` is one of the builder's; -1 and `why` when not. */
static int
builder_row_check(const struct dci_snapshot_builder *builder, long row,
    char *why, size_t why_size)
{
	if (row >= 0 && (size_t)row < builder->count)
		return 0;
	log_reason(why, why_size, "row %ld does not exist (%zu instances)", row,
	    builder->count);
	return -1;
}

/* Why a setter's datum is refused: `datum` (found by its id, or NULL)
 * is unknown or derived. Returns NULL. */
static const struct dci_datum *
builder_datum_refused(const struct dci_class *class, uint32_t datum_id,
    const struct dci_datum *datum, char *why, size_t why_size)
{
	if (datum == NULL)
		log_reason(why, why_size, "class \"%s\" has no datum %u",
		    class->label, datum_id);
	else
		log_reason(why, why_size,
		    "datum %u (\"%s\") is derived: the host computes it",
		    datum_id, datum->info.label);
	return NULL;
}

/* The datum a setter names, one the provider may set; NULL (and `why`)
 * for an unknown or derived datum. */
static inline const struct dci_datum *
builder_datum(const struct dci_snapshot_builder *builder, uint32_t datum_id,
    char *why, size_t why_size)
{
	const struct dci_class *class = builder->class;
	const struct dci_datum *datum = dci_class_find_datum(class, datum_id);

	if (datum != NULL && datum->info.type != DCI_ST_DERIVED)
		return datum;
	return builder_datum_refused(class, datum_id, datum, why, why_size);
}

/* Finds the slot for a setter; NULL (and `why`) for a bad row or datum. */
static unsigned char *
builder_slot(struct dci_snapshot_builder *builder, long row, uint32_t datum_id,
    const struct dci_datum **datum, char *why, size_t why_size)
{
	if (builder_row_check(builder, row, why, why_size) != 0)
		return NULL;
	*datum = builder_datum(builder, datum_id, why, why_size);
	if (*datum == NULL)
		return NULL;
	return builder->values + (size_t)row * builder->class->record_size +
	       (*datum)->offset;
}

/* Marks the datum of presence bit `index` set in a row's bitmap. */
static inline void
present_mark(unsigned char *bits, size_t index)
{
	bits[index / 8] |= (unsigned char)(1u << (index % 8));
}

/* The datum is named in every refusal so that a provider author can find
 * the call that was wrong. */
static int
refuse(const struct dci_datum *datum, char *why, size_t why_size)
{
	char reason[256];

	snprintf(reason, sizeof(reason), "%s", why);
	log_reason(why, why_size, "datum %u (\"%s\"): %s", datum->info.id,
	    datum->info.label, reason);
	return -1;
}

/* The description a setter encodes with: the provider's, which differs
 * from the served one for a counter the host widens (struct dci_datum's
 * provided_size). The builder holds what the provider gave; commit turns
 * it into what is served. */
static const struct dci_datum_info *
provided_info(const struct dci_datum *datum, struct dci_datum_info *copy)
{
	if (datum->provided_size == 0)
		return &datum->info;
	*copy = datum->info;
	copy->type = datum->provided_type;
	copy->size = datum->provided_size;
	return copy;
}

/* The common case of the row setter: a datum of the class's lookup table
 * that takes a number, given one it holds, stored as the encoder would
 * (dci_value_number_layout) without its dispatch on the type. False when
 * the encoder must decide (store_number): a value out of range, which it
 * refuses with the reason. */
static bool
store_in_place(const struct dci_value_number_layout *layout,
    const struct dci_row_value *value, unsigned char *slot)
{
	uint64_t number;

	if (!value->is_signed || value->signed_number >= 0) {
		number = value->is_signed ? (uint64_t)value->signed_number
		                          : value->number;
		if (number > layout->maximum)
			return false;
	} else {
		if (value->signed_number < layout->minimum)
			return false;
		number = (uint64_t)value->signed_number;
	}
	dci_value_store_unsigned(
	    slot, layout->width, layout->big_endian, number);
	return true;
}

/* Encodes an integer value into its datum's slot by the provider's
 * description (provided_info); a refusal names the datum. */
static int
store_number(const struct dci_datum *datum, const struct dci_row_value *value,
    unsigned char *slot, char *why, size_t why_size)
{
	const struct dci_datum_info *info;
	struct dci_datum_info copy;
	int result;

	info = provided_info(datum, &copy);
	if (value->is_signed)
		result = dci_value_encode_signed_trusted(
		    info, value->signed_number, slot, why, why_size);
	else
		result = dci_value_encode_unsigned_trusted(
		    info, value->number, slot, why, why_size);
	return result == 0 ? 0 : refuse(datum, why, why_size);
}

/* Encodes a byte value into its datum's slot by the provider's
 * description (provided_info); a refusal names the datum. */
static int
store_bytes(const struct dci_datum *datum, const struct dci_row_bytes *value,
    unsigned char *slot, char *why, size_t why_size)
{
	const struct dci_datum_info *info;
	struct dci_datum_info copy;

	if (value->bytes == NULL && value->length > 0) {
		log_reason(
		    why, why_size, "NULL value of %zu bytes", value->length);
		return refuse(datum, why, why_size);
	}
	info = provided_info(datum, &copy);
	if (dci_value_encode_bytes_trusted(
	        info, value->bytes, value->length, slot, why, why_size) != 0)
		return refuse(datum, why, why_size);
	return 0;
}

/* The row setters' one loop, over numbers (dci_snapshot_builder_set_row)
 * or else byte values: the row checked once, a value stored in place by
 * its datum's entry of the lookup table in the common case, and by the
 * encoder, which refuses with the reason, otherwise. Inlined into each
 * setter, where one of the arrays is NULL, so that the choice between them
 * is made once. */
static inline __attribute__((always_inline)) size_t
builder_set_values(struct dci_snapshot_builder *builder, long row,
    const struct dci_row_value *numbers, const struct dci_row_bytes *bytes,
    size_t count, char *why, size_t why_size)
{
	const struct dci_class *class = builder->class;
	unsigned char *record, *bits;

	if (count == 0 || builder_row_check(builder, row, why, why_size) != 0)
		return 0;
	record = builder->values + (size_t)row * class->record_size;
	bits = builder->present + (size_t)row * class->present_size;
	for (size_t i = 0; i < count; i++) {
		uint32_t datum_id =
		    numbers != NULL ? numbers[i].datum_id : bytes[i].datum_id;
		const struct dci_datum_lookup *entry;
		const struct dci_datum *datum;

		if (datum_id < class->datum_lookup_size) {
			entry = &class->datum_lookup[datum_id];
			if (numbers != NULL
			        ? entry->number.width != 0 &&
			              store_in_place(&entry->number,
			                  &numbers[i], record + entry->offset)
			        : dci_value_store_bytes(&entry->bytes,
			              bytes[i].bytes, bytes[i].length,
			              record + entry->offset)) {
				present_mark(bits, entry->index);
				continue;
			}
		}
		datum = builder_datum(builder, datum_id, why, why_size);
		if (datum == NULL ||
		    (numbers != NULL
		            ? store_number(datum, &numbers[i],
		                  record + datum->offset, why, why_size)
		            : store_bytes(datum, &bytes[i],
		                  record + datum->offset, why, why_size)) != 0)
			return i;
		present_mark(bits, datum->index);
	}
	return count;
}

size_t
dci_snapshot_builder_set_row(struct dci_snapshot_builder *builder, long row,
    const struct dci_row_value *values, size_t count, char *why,
    size_t why_size)
{
	return builder_set_values(
	    builder, row, values, NULL, count, why, why_size);
}

/* The one-value setters: a row of one. */
static int
builder_set_one(struct dci_snapshot_builder *builder, long row,
    const struct dci_row_value *value, char *why, size_t why_size)
{
	return dci_snapshot_builder_set_row(
	           builder, row, value, 1, why, why_size) == 1
	           ? 0
	           : -1;
}

int
dci_snapshot_builder_set_unsigned(struct dci_snapshot_builder *builder,
    long row, uint32_t datum_id, uint64_t value, char *why, size_t why_size)
{
	struct dci_row_value one = dci_row_unsigned(datum_id, value);

	return builder_set_one(builder, row, &one, why, why_size);
}

int
dci_snapshot_builder_set_signed(struct dci_snapshot_builder *builder, long row,
    uint32_t datum_id, int64_t value, char *why, size_t why_size)
{
	struct dci_row_value one = dci_row_signed(datum_id, value);

	return builder_set_one(builder, row, &one, why, why_size);
}

size_t
dci_snapshot_builder_set_row_bytes(struct dci_snapshot_builder *builder,
    long row, const struct dci_row_bytes *values, size_t count, char *why,
    size_t why_size)
{
	return builder_set_values(
	    builder, row, NULL, values, count, why, why_size);
}

int
dci_snapshot_builder_set_bytes(struct dci_snapshot_builder *builder, long row,
    uint32_t datum_id, const void *bytes, size_t length, char *why,
    size_t why_size)
{
	struct dci_row_bytes one = dci_row_raw(datum_id, bytes, length);

	return dci_snapshot_builder_set_row_bytes(
	           builder, row, &one, 1, why, why_size) == 1
	           ? 0
	           : -1;
}

int
dci_snapshot_builder_set_invalid(struct dci_snapshot_builder *builder, long row,
    uint32_t datum_id, char *why, size_t why_size)
{
	const struct dci_datum *datum;
	unsigned char *slot =
	    builder_slot(builder, row, datum_id, &datum, why, why_size);
	unsigned char *bits;

	if (slot == NULL)
		return -1;
	/* Zeroed too, so that the slot never holds a stale value. */
	memset(slot, 0, datum->info.size);
	bits = builder->present + (size_t)row * builder->class->present_size;
	bits[datum->index / 8] &= (unsigned char)~(1u << (datum->index % 8));
	return 0;
}

int
dci_snapshot_builder_set_parent(struct dci_snapshot_builder *builder, long row,
    const uint32_t *parent_id, size_t parent_words, char *why, size_t why_size)
{
	const struct dci_class *class = builder->class;
	size_t words = class->instance_words;

	if (row < 0 || (size_t)row >= builder->count) {
		log_reason(why, why_size,
		    "parent of row %ld: no such row (%zu instances)", row,
		    builder->count);
		return -1;
	}
	if (parent_id == NULL || parent_words != words) {
		log_reason(why, why_size,
		    "parent of instance \"%s\": id has %zu words, class "
		    "\"%s\" has %zu",
		    builder->labels[row], parent_id == NULL ? 0 : parent_words,
		    class->label, words);
		return -1;
	}
	if (builder->parents == NULL) {
		if (builder_grow_parents(builder, builder->capacity) != 0) {
			log_reason(why, why_size, "out of memory");
			return -1;
		}
		memset(builder->has_parent, 0,
		    builder->capacity * sizeof(*builder->has_parent));
	}
	memcpy(builder->parents + (size_t)row * words, parent_id,
	    words * sizeof(*parent_id));
	builder->has_parent[row] = true;
	return 0;
}

int
dci_snapshot_builder_set_discontinuity(
    struct dci_snapshot_builder *builder, long row, char *why, size_t why_size)
{
	if (row < 0 || (size_t)row >= builder->count) {
		log_reason(why, why_size,
		    "discontinuity of row %ld: no such row (%zu instances)",
		    row, builder->count);
		return -1;
	}
	if (builder->discontinuous == NULL) {
		builder->discontinuous =
		    calloc(builder->capacity, sizeof(*builder->discontinuous));
		if (builder->discontinuous == NULL) {
			log_reason(why, why_size, "out of memory");
			return -1;
		}
	}
	builder->discontinuous[row] = true;
	return 0;
}

/* Whether two slots or presence bitmaps hold the same bytes: a word
 * compared in place for the sizes of most counters, a loop for other
 * short ones (a call to memcmp costs more than either). */
static inline bool
same_bytes(const unsigned char *left, const unsigned char *right, size_t size)
{
	uint64_t left64, right64;
	uint32_t left32, right32;

	switch (size) {
	case 8:
		memcpy(&left64, left, 8);
		memcpy(&right64, right, 8);
		return left64 == right64;
	case 4:
		memcpy(&left32, left, 4);
		memcpy(&right32, right, 4);
		return left32 == right32;
	default:
		if (size > 16)
			return memcmp(left, right, size) == 0;
		for (size_t i = 0; i < size; i++)
			if (left[i] != right[i])
				return false;
		return true;
	}
}

/* qsort has no context argument in C11; the sort key is the row's id, so
 * sort an array of (id pointer, row) pairs and compare through it. */
struct sort_entry {
	const uint32_t *id;
	size_t row;
	size_t words;
};

static int
compare_sort_entries(const void *left, const void *right)
{
	const struct sort_entry *a = left, *b = right;

	return dci_instance_id_compare(a->id, b->id, a->words);
}

/* A builder's large block of `*bytes` trimmed to `used` bytes, or kept
 * whole when it cannot be trimmed; `*bytes` is its size then. */
static void *
trim_block(void *block, size_t *bytes, size_t used)
{
	void *trimmed = resize_block(block, bytes, used);

	return trimmed != NULL ? trimmed : block;
}

/* Gives `next` the builder's ids, values and presence bits in instance id
 * order. Providers usually add instances in that order already; then the
 * builder's arrays are taken over (trimmed to size) instead of copied, so
 * that a refresh holds two copies of a large class, not three. */
static int
take_or_sort_rows(struct dci_snapshot_builder *builder,
    const struct sort_entry *order, struct dci_snapshot *next)
{
	const struct dci_class *class = builder->class;
	size_t count = builder->count, words = class->instance_words;
	bool in_order = count > 0;

	for (size_t i = 0; i < count && in_order; i++)
		in_order = order[i].row == i;
	if (in_order) {
		next->ids = trim_block(
		    builder->ids, &builder->ids_bytes, ids_bytes(class, count));
		next->values = trim_block(builder->values,
		    &builder->values_bytes, count * class->record_size);
		next->present = trim_block(builder->present,
		    &builder->present_bytes, count * class->present_size);
		next->ids_bytes = builder->ids_bytes;
		next->values_bytes = builder->values_bytes;
		next->present_bytes = builder->present_bytes;
		builder->ids = NULL;
		builder->values = NULL;
		builder->present = NULL;
		builder->ids_bytes = 0;
		builder->values_bytes = 0;
		builder->present_bytes = 0;
		return 0;
	}
	next->ids =
	    resize_block(NULL, &next->ids_bytes, ids_bytes(class, count));
	next->values =
	    resize_block(NULL, &next->values_bytes, count * class->record_size);
	next->present = resize_block(
	    NULL, &next->present_bytes, count * class->present_size);
	if (next->ids == NULL || next->values == NULL || next->present == NULL)
		return -1;
	for (size_t i = 0; i < count; i++) {
		size_t row = order[i].row;

		memcpy(next->ids + i * words, order[i].id,
		    words * sizeof(*next->ids));
		memcpy(next->values + i * class->record_size,
		    builder->values + row * class->record_size,
		    class->record_size);
		memcpy(next->present + i * class->present_size,
		    builder->present + row * class->present_size,
		    class->present_size);
	}
	return 0;
}

/* The datums a commit visits per instance (derived, widened, counters),
 * listed once per commit: a class has few of each among many datums. The
 * derived ones as a plan of their evaluation (model/derived.h). */
struct commit_datums {
	const struct dci_datum **widened, **counters;
	size_t widened_count, counter_count;
	const struct dci_datum **all;     /* the two lists' storage */
	struct dci_derived_plan *derived; /* NULL when the class has none */
};

static int
commit_datums_list(const struct dci_class *class, struct commit_datums *lists)
{
	size_t count = class->datum_count;

	*lists = (struct commit_datums){0};
	lists->all = malloc((2 * count + 1) * sizeof(*lists->all));
	if (lists->all == NULL)
		return -1;
	lists->widened = lists->all;
	lists->counters = lists->all + count;
	for (size_t d = 0; d < count; d++) {
		const struct dci_datum *datum = &class->datums[d];

		if (datum->provided_size != 0)
			lists->widened[lists->widened_count++] = datum;
		if (datum->info.semantics == DCI_SEMANTICS_COUNTER)
			lists->counters[lists->counter_count++] = datum;
	}
	if (class->derived_count > 0) {
		lists->derived = dci_derived_plan_new(class);
		if (lists->derived == NULL)
			return -1;
	}
	return 0;
}

static void
commit_datums_free(struct commit_datums *lists)
{
	free(lists->all);
	dci_derived_plan_free(lists->derived);
}

/* Serves every widened counter of instance `row` of `next` in 32 bits
 * (struct dci_datum's provided_size): its slot holds the provider's 8 or
 * 16 bits and gets the previous snapshot's served value plus how far the
 * provider's count went forward modulo 2^(8 * provided_size), modulo
 * 2^32. A served value is always congruent to the provider's modulo the
 * provider's width, so the previous snapshot is all the state this needs;
 * it is exact while the provider's count wraps at most once between two
 * commits. A value with no previous one (a new instance, a datum absent
 * last time) or of an instance the provider declared discontinuous
 * starts at the provider's value. */
static void
widen_values(const struct dci_class *class, const struct commit_datums *lists,
    const struct dci_snapshot *previous, long previous_row, bool restarted,
    struct dci_snapshot *next, size_t row)
{
	for (size_t d = 0; d < lists->widened_count; d++) {
		const struct dci_datum *datum = lists->widened[d];
		/* Unsigned integers (datum_widened), so their raw bits are
		 * their values: read in place, without a decoder. */
		bool big_endian = (datum->info.format & DCI_SIF_BIGENDIAN) != 0;
		unsigned char *slot;
		uint64_t raw, before, served, mask;

		if (!dci_snapshot_present(class, next, row, datum))
			continue;
		slot = next->values + row * class->record_size + datum->offset;
		raw = dci_value_load_unsigned(
		    slot, datum->provided_size, big_endian);
		served = raw;
		if (previous_row >= 0 && !restarted &&
		    dci_snapshot_present(
		        class, previous, (size_t)previous_row, datum)) {
			before = dci_value_load_unsigned(
			    dci_snapshot_slot(
			        class, previous, (size_t)previous_row, datum),
			    datum->info.size, big_endian);
			mask = (UINT64_C(1) << (8 * datum->provided_size)) - 1;
			served = (uint32_t)(before + ((raw - before) & mask));
		}
		dci_value_store_unsigned(
		    slot, datum->info.size, big_endian, served);
	}
}

/* Whether a counter's step from `before` to `after` between two snapshots
 * is a discontinuity (IF-MIB's ifCounterDiscontinuityTime): the thing it
 * counts was reset or replaced.
 *
 * An unsigned counter of N bits (32 or 64, as served: widened ones are 32)
 * wraps to 0 after 2^N - 1, and a manager reads its growth as the
 * difference modulo 2^N (RFC 2578), so a decrease is not in itself a
 * discontinuity. Whether it is a wrap or a reset cannot be read from two
 * values; the rule is serial number arithmetic (RFC 1982): a wrap when the
 * forward distance, (after - before) modulo 2^N, is less than half the
 * range (2^(N-1)), that is when the value fell by more than half the
 * range; a discontinuity otherwise. A counter read at least twice per
 * wrap, as a manager must read a Counter32 anyway, advances by less than
 * half its range between two readings, so its wraps are never flagged;
 * 1000 -> 5 is a reset. The rule is wrong only for a reset from above half
 * the range to below the old value minus half (3,000,000,000 -> 5 in 32
 * bits): taken as a wrap, the manager sees the same modular difference it
 * would compute without the flag. A 64-bit counter never gets near half
 * its range in practice, so every reset of one is flagged; a sum of 32-bit
 * counters (a derived datum) that falls when one of them wraps is
 * flagged too, since the sum does not wrap at its own width.
 *
 * A signed counter has no defined wrap: any decrease is a discontinuity. */
static bool
counter_step_discontinuous(const struct dci_datum *datum,
    const unsigned char *before_slot, const unsigned char *after_slot)
{
	unsigned bits = 8 * datum->info.size;
	uint64_t before, after, forward;
	int64_t signed_before, signed_after;

	dci_value_number_trusted(
	    &datum->info, before_slot, &before, &signed_before);
	dci_value_number_trusted(
	    &datum->info, after_slot, &after, &signed_after);
	if ((datum->info.format & DCI_SIF_UNSIGNED) == 0)
		return signed_after < signed_before;
	if (after >= before)
		return false;
	if (bits == 0 || bits > 64)
		return true;
	forward = after - before;
	if (bits < 64)
		forward &= (UINT64_C(1) << bits) - 1;
	return forward >= UINT64_C(1) << (bits - 1);
}

/* Whether any counter of the instance took a step that is a discontinuity
 * (counter_step_discontinuous) between two snapshots. */
static bool
counter_went_backwards(const struct dci_class *class,
    const struct commit_datums *lists, const struct dci_snapshot *previous,
    size_t previous_row, const struct dci_snapshot *next, size_t next_row)
{
	for (size_t i = 0; i < lists->counter_count; i++) {
		const struct dci_datum *datum = lists->counters[i];
		const unsigned char *before, *after;

		if (!dci_snapshot_present(
		        class, previous, previous_row, datum) ||
		    !dci_snapshot_present(class, next, next_row, datum))
			continue;
		before =
		    dci_snapshot_slot(class, previous, previous_row, datum);
		after = dci_snapshot_slot(class, next, next_row, datum);
		/* Most counters did not move between two refreshes. */
		if (!same_bytes(before, after, datum->info.size) &&
		    counter_step_discontinuous(datum, before, after))
			return true;
	}
	return false;
}

/* Drops a parent link that cannot be followed: to an instance that is not
 * in the snapshot, to the instance itself, or one that closes a cycle (a
 * manager following dciInstanceParent must reach a root). Colours each
 * instance once (unvisited, on the current path, done), so the check is
 * O(n log n) for the lookups plus O(n) for the walks. */
static int
resolve_parents(const struct dci_class *class, struct dci_snapshot *snapshot,
    char *why, size_t why_size)
{
	enum { UNVISITED, ON_PATH, DONE };
	size_t count = snapshot->count, dropped = 0;
	long *parent_of = malloc((count ? count : 1) * sizeof(*parent_of));
	unsigned char *colour = calloc(count ? count : 1, 1);
	char first[300] = "";

	if (parent_of == NULL || colour == NULL) {
		free(parent_of);
		free(colour);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		const uint32_t *parent =
		    dci_snapshot_parent_id(class, snapshot, i);
		parent_of[i] = -1;
		if (parent == NULL)
			continue;
		parent_of[i] = dci_snapshot_find(class, snapshot, parent);
		if (parent_of[i] < 0 || (size_t)parent_of[i] == i) {
			if (dropped++ == 0)
				snprintf(first, sizeof(first),
				    "instance \"%s\": parent %s",
				    snapshot->instances[i].label,
				    parent_of[i] < 0 ? "not in the snapshot"
				                     : "is itself");
			snapshot->instances[i].has_parent = false;
			parent_of[i] = -1;
		}
	}
	for (size_t start = 0; start < count; start++) {
		long at = (long)start, last = -1;

		while (at >= 0 && colour[at] == UNVISITED) {
			colour[at] = ON_PATH;
			last = at;
			at = parent_of[at];
		}
		if (at >= 0 && colour[at] == ON_PATH) {
			if (dropped++ == 0)
				snprintf(first, sizeof(first),
				    "instance \"%s\": parent closes a cycle",
				    snapshot->instances[last].label);
			snapshot->instances[last].has_parent = false;
			parent_of[last] = -1;
		}
		for (at = (long)start; at >= 0 && colour[at] == ON_PATH;
		     at = parent_of[at])
			colour[at] = DONE;
	}
	if (dropped > 0)
		log_reason(why, why_size,
		    "class \"%s\": %zu parent link%s dropped; first: %s",
		    class->label, dropped, dropped == 1 ? "" : "s", first);
	free(parent_of);
	free(colour);
	return 0;
}

/* Whether the builder's rows are in strictly ascending id order. */
static bool
instances_ascending(const struct dci_snapshot_builder *builder)
{
	size_t words = builder->class->instance_words;

	for (size_t i = 1; i < builder->count; i++)
		if (dci_instance_id_compare(builder->ids + (i - 1) * words,
		        builder->ids + i * words, words) >= 0)
			return false;
	return true;
}

int
dci_snapshot_builder_seal(
    struct dci_snapshot_builder *builder, char *why, size_t why_size)
{
	const struct dci_class *class = builder->class;
	size_t count = builder->count, words = class->instance_words;
	struct sort_entry *order;

	if (builder->order != NULL)
		return 0;
	order = calloc(count ? count : 1, sizeof(*order));
	if (order == NULL) {
		log_reason(why, why_size, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		order[i] =
		    (struct sort_entry){builder->ids + i * words, i, words};
	/* Providers mostly add instances in id order: then there is nothing
	 * to sort, and no id can be there twice. */
	if (instances_ascending(builder)) {
		builder->order = order;
		return 0;
	}
	qsort(order, count, sizeof(*order), compare_sort_entries);
	for (size_t i = 1; i < count; i++) {
		if (dci_instance_id_compare(
		        order[i - 1].id, order[i].id, words) == 0) {
			char id_text[160] = "";
			size_t used = 0;
			for (size_t w = 0; w < words && used < sizeof(id_text);
			     w++)
				used += (size_t)snprintf(id_text + used,
				    sizeof(id_text) - used, "%s%u",
				    w ? "." : "", order[i].id[w]);
			log_reason(why, why_size,
			    "class \"%s\": instance id %s added twice "
			    "(\"%s\" and \"%s\"); snapshot refused",
			    class->label, id_text,
			    builder->labels[order[i - 1].row],
			    builder->labels[order[i].row]);
			free(order);
			return -1;
		}
	}
	builder->order = order;
	return 0;
}

/* The presence index of a finished snapshot (struct dci_snapshot_column).
 * Out of memory leaves snapshot->columns NULL: the walk then reads the
 * presence bits, slower in sparse columns but the same answers. */
static void
build_columns(const struct dci_class *class, struct dci_snapshot *snapshot)
{
	struct dci_snapshot_column *columns;
	size_t datum_count = class->datum_count, same_as_first = 0;
	bool sparse = false;

	if (snapshot->count > UINT32_MAX || datum_count == 0)
		return;
	columns = calloc(datum_count, sizeof(*columns));
	if (columns == NULL)
		return;
	/* Instances of a class mostly have the same datums: those whose
	 * presence bits are the first instance's are counted together, the
	 * others datum by datum. */
	for (size_t i = 0; i < snapshot->count; i++) {
		if (i > 0 && same_bytes(snapshot->present,
		                 snapshot->present + i * class->present_size,
		                 class->present_size)) {
			same_as_first++;
			continue;
		}
		for (size_t d = 0; d < datum_count; d++)
			columns[d].count += dci_snapshot_present(
			    class, snapshot, i, &class->datums[d]);
	}
	for (size_t d = 0; same_as_first > 0 && d < datum_count; d++)
		columns[d].count +=
		    same_as_first *
		    dci_snapshot_present(class, snapshot, 0, &class->datums[d]);
	for (size_t d = 0; d < datum_count; d++) {
		columns[d].complete = columns[d].count == snapshot->count;
		if (columns[d].complete || columns[d].count == 0)
			continue;
		columns[d].positions =
		    malloc(columns[d].count * sizeof(*columns[d].positions));
		if (columns[d].positions == NULL) {
			dci_snapshot_columns_free(columns, datum_count);
			return;
		}
		columns[d].count = 0;
		sparse = true;
	}
	/* Dense columns (the usual case) need no positions. */
	for (size_t i = 0; sparse && i < snapshot->count; i++)
		for (size_t d = 0; d < datum_count; d++)
			if (columns[d].positions != NULL &&
			    dci_snapshot_present(
			        class, snapshot, i, &class->datums[d]))
				columns[d].positions[columns[d].count++] =
				    (uint32_t)i;
	snapshot->columns = columns;
	snapshot->column_count = datum_count;
}

/* The position of `id` in the previous snapshot, or -1. The next
 * snapshot's ids come in ascending order and mostly are the previous
 * one's, so the position after the last one found is tried first;
 * `*expected` keeps it. */
static long
previous_position(const struct dci_class *class,
    const struct dci_snapshot *previous, const uint32_t *id, size_t *expected)
{
	long found;

	if (*expected < previous->count &&
	    dci_instance_id_compare(
	        dci_snapshot_instance_id(class, previous, *expected), id,
	        class->instance_words) == 0)
		found = (long)*expected;
	else
		found = dci_snapshot_find(class, previous, id);
	if (found >= 0)
		*expected = (size_t)found + 1;
	return found;
}

int
dci_snapshot_commit(struct dci_snapshot_builder *builder,
    struct dci_class *class, int64_t now_milliseconds, char *why,
    size_t why_size)
{
	/* After a withdrawal as stale, the withdrawn snapshot is the previous
	 * one: instances keep their creation times, and every one is
	 * discontinuous since its values stopped being served. */
	bool resumed = class->snapshot == NULL && class->stale_snapshot != NULL;
	struct dci_snapshot *next = NULL,
	                    *previous = resumed ? class->stale_snapshot
	                                        : class->snapshot;
	struct sort_entry *order = NULL;
	struct commit_datums lists = {0};
	size_t count = builder->count, words = class->instance_words;
	size_t previous_next = 0;

	if (dci_snapshot_builder_seal(builder, why, why_size) != 0)
		goto refused;
	order = builder->order;
	if (commit_datums_list(class, &lists) != 0)
		goto out_of_memory;
	next = calloc(1, sizeof(*next));
	if (next == NULL)
		goto out_of_memory;
	if (builder->parents != NULL) {
		next->parents = malloc(
		    (count ? count : 1) * words * sizeof(*next->parents));
		if (next->parents == NULL)
			goto out_of_memory;
	}
	next->instances = resize_block(
	    NULL, &next->instances_bytes, count * sizeof(*next->instances));
	if (next->instances == NULL)
		goto out_of_memory;
	if (!dci_large_block_zeroed(next->instances_bytes))
		memset(next->instances, 0, next->instances_bytes);

	if (take_or_sort_rows(builder, order, next) != 0)
		goto out_of_memory;
	for (size_t i = 0; i < count; i++) {
		size_t row = order[i].row;
		struct dci_instance_state *state = &next->instances[i];
		bool restarted = builder->discontinuous != NULL &&
		                 builder->discontinuous[row];
		long before = -1;
		/* The instance in `previous`, when it was there. */
		const unsigned char *before_record = NULL,
		                    *before_present = NULL;

		if (previous != NULL)
			before = previous_position(class, previous,
			    next->ids + i * words, &previous_next);
		if (before >= 0) {
			before_record = previous->values +
			                (size_t)before * class->record_size;
			before_present = previous->present +
			                 (size_t)before * class->present_size;
		}
		/* Widened first: derived datums take served values. */
		if (class->widened_count > 0)
			widen_values(class, &lists, previous, before, restarted,
			    next, i);
		if (lists.derived != NULL)
			dci_derived_plan_apply(lists.derived,
			    next->values + i * class->record_size,
			    next->present + i * class->present_size,
			    before_record, before_present);
		state->label = builder->labels[row];
		if (builder->has_parent != NULL && builder->has_parent[row]) {
			memcpy(next->parents + i * words,
			    builder->parents + row * words,
			    words * sizeof(*next->parents));
			state->has_parent = true;
		}
		state->created_milliseconds = now_milliseconds;
		state->discontinuity_milliseconds = now_milliseconds;
		if (before < 0)
			continue;
		state->created_milliseconds =
		    previous->instances[before].created_milliseconds;
		state->discontinuity_milliseconds =
		    previous->instances[before].discontinuity_milliseconds;
		if (resumed || restarted ||
		    (class->has_counters &&
		        counter_went_backwards(
		            class, &lists, previous, (size_t)before, next, i)))
			state->discontinuity_milliseconds = now_milliseconds;
	}
	/* The labels go with the snapshot their instances point into. */
	next->labels = builder->label_arena;
	dci_label_arena_init(&builder->label_arena, 0);
	next->count = count;
	next->taken_milliseconds = now_milliseconds;
	if (why_size > 0)
		why[0] = '\0';
	if (next->parents != NULL &&
	    resolve_parents(class, next, why, why_size) != 0)
		goto out_of_memory;
	build_columns(class, next);
	/* After a withdrawal the withdrawn snapshot is no change to report:
	 * the supplier's recovery says it (model/events.h). */
	dci_events_commit(class, resumed ? NULL : previous, next);
	class->snapshot = next;
	dci_registry_changed();
	dci_snapshot_free(previous);
	if (resumed)
		class->stale_snapshot = NULL;
	dci_snapshot_builder_free(builder);
	commit_datums_free(&lists);
	return 0;

out_of_memory:
	log_reason(why, why_size, "out of memory");
refused:
	if (next != NULL) {
		next->count = count;
		dci_snapshot_free(next);
	}
	dci_snapshot_builder_free(builder);
	commit_datums_free(&lists);
	return -1;
}
