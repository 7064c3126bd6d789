/* DCI-STATS-MIB's tables read into the remote source's state
 * (remote_state.h). */
#define _GNU_SOURCE
#include "cli/remote/remote_state.h"

#include "model/instance_id.h"

#include <stddef.h>

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* A table's rows in the state while its walk goes on, sorted by key. */
struct row_list {
	void **rows;
	size_t *count, *capacity, *cursor;
	size_t row_size;
	size_t limit;     /* more rows are refused: "too many `what`" */
	const char *what; /* "suppliers", "classes", "datums" */
	cli_remote_row_compare compare;
};

/* The row of `key` in the list (cli_remote_row_find), or a new one,
 * zeroed, appended after every row: 1 with *row set; 0 when the key falls
 * between rows without being one (a row added after its first column's
 * walk: the varbind is skipped); -1 with the reason in `error` when
 * `limit` rows are there (in class `class_label` when not NULL) or
 * memory ran out. */
static int
walked_row(const struct remote_state *state, const struct row_list *list,
    const void *key, const char *class_label, void **row, char *error,
    size_t error_size)
{
	unsigned char *rows = *list->rows;
	char quoted[REMOTE_QUOTED_SIZE];

	switch (cli_remote_row_find(
	    rows, *list->count, key, list->compare, list->cursor)) {
	case CLI_REMOTE_ROW_KNOWN:
		*row = rows + *list->cursor * list->row_size;
		return 1;
	case CLI_REMOTE_ROW_MISSED:
		return 0;
	case CLI_REMOTE_ROW_NEW:
		break;
	}
	if (*list->count >= list->limit) {
		if (class_label == NULL)
			snprintf(error, error_size, "%s: too many %s",
			    state->host, list->what);
		else
			snprintf(error, error_size,
			    "%s: too many %s in class \"%s\"", state->host,
			    list->what, cli_remote_quote(quoted, class_label));
		return -1;
	}
	if (!cli_remote_room_for_one(
	        list->rows, list->capacity, *list->count, list->row_size)) {
		snprintf(error, error_size, "out of memory");
		return -1;
	}
	rows = *list->rows;
	*row = rows + (*list->count)++ * list->row_size;
	memset(*row, 0, list->row_size);
	return 1;
}

/* A column a row keeps as the agent serves it: a DisplayString into the
 * char array of `size` bytes at `offset` in the row, or an Unsigned32
 * into the uint32_t there (size 0). */
struct plain_column {
	unsigned column;
	size_t offset;
	size_t size;
};

#define STRING_COLUMN(column, row_type, member)                                \
	{                                                                      \
		(column), offsetof(row_type, member),                          \
		    sizeof(((row_type *)NULL)->member)                         \
	}
#define UNSIGNED_COLUMN(column, row_type, member)                              \
	{                                                                      \
		(column), offsetof(row_type, member), 0                        \
	}

/* Reads the varbind of `column` into `row` when columns[] has it: 0, or
 * -1 with the reason in `error`; 1 when the column is not a plain one
 * (the caller reads it, or skips a column of a later MIB revision). */
static int
read_plain_column(struct remote_state *state,
    const struct plain_column *columns, size_t column_count, uint64_t column,
    void *row, const netsnmp_variable_list *varbind, char *error,
    size_t error_size)
{
	for (size_t i = 0; i < column_count; i++) {
		unsigned char *field;

		if (columns[i].column != column)
			continue;
		field = (unsigned char *)row + columns[i].offset;
		if (columns[i].size == 0)
			return cli_remote_read_unsigned(state, varbind,
			    (uint32_t *)(void *)field, error, error_size);
		return cli_remote_read_string(state, varbind, (char *)field,
		    columns[i].size, error, error_size);
	}
	return 1;
}

/* --- dciSupplierTable ---------------------------------------------------- */

static const struct plain_column supplier_columns[] = {
    STRING_COLUMN(SCHEMA_SUPPLIER_MODULE, struct remote_supplier, module),
    STRING_COLUMN(SCHEMA_SUPPLIER_TITLE, struct remote_supplier, title),
    STRING_COLUMN(
        SCHEMA_SUPPLIER_DESCRIPTION, struct remote_supplier, description),
    UNSIGNED_COLUMN(SCHEMA_SUPPLIER_TYPE, struct remote_supplier, type),
    UNSIGNED_COLUMN(SCHEMA_SUPPLIER_VERSION, struct remote_supplier, version),
    UNSIGNED_COLUMN(SCHEMA_SUPPLIER_STATUS, struct remote_supplier, status),
    UNSIGNED_COLUMN(SCHEMA_SUPPLIER_DISCONTINUITY, struct remote_supplier,
        discontinuity_ticks),
    UNSIGNED_COLUMN(SCHEMA_SUPPLIER_LAST_REFRESH, struct remote_supplier,
        last_refresh_ticks),
    STRING_COLUMN(SCHEMA_SUPPLIER_FAILURE, struct remote_supplier, failure),
};

static int
compare_supplier(const void *rows, size_t position, const void *key)
{
	uint32_t index = ((const struct remote_supplier *)rows)[position]
	                     .remote_index,
	         wanted = *(const uint32_t *)key;

	return index < wanted ? -1 : index > wanted;
}

struct remote_supplier *
cli_remote_find_supplier(struct remote_state *state, uint32_t remote_index)
{
	return cli_remote_row_find(state->suppliers, state->supplier_count,
	           &remote_index, compare_supplier,
	           &state->supplier_cursor) == CLI_REMOTE_ROW_KNOWN
	           ? &state->suppliers[state->supplier_cursor]
	           : NULL;
}

int
cli_remote_supplier_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	uint32_t remote_index;
	void *row;
	struct remote_supplier *supplier;
	int read;

	(void)context;
	if (length != 2 || suffix[1] < 1 || suffix[1] > UINT32_MAX)
		return cli_remote_malformed_index(
		    state, "dciSupplierTable", error, error_size);
	remote_index = (uint32_t)suffix[1];
	read = walked_row(state,
	    &(struct row_list){(void **)&state->suppliers,
	        &state->supplier_count, &state->supplier_capacity,
	        &state->supplier_cursor, sizeof(*state->suppliers),
	        REMOTE_SUPPLIERS_MAX, "suppliers", compare_supplier},
	    &remote_index, NULL, &row, error, error_size);
	if (read != 1)
		return read;
	supplier = row;
	supplier->remote_index = remote_index; /* the row's key */
	read = read_plain_column(state, supplier_columns,
	    COUNT_OF(supplier_columns), suffix[0], supplier, varbind, error,
	    error_size);
	if (read != 1)
		return read;
	if (suffix[0] == SCHEMA_SUPPLIER_RESET) {
		if (varbind->type != ASN_OCTET_STR ||
		    varbind->val_len != sizeof(supplier->reset))
			return cli_remote_wrong_value(
			    state, varbind, error, error_size);
		memcpy(supplier->reset, varbind->val.string,
		    sizeof(supplier->reset));
	}
	return 0; /* or a column of a later MIB revision */
}

/* --- dciClassTable and dciDatumTable ------------------------------------ */

static int
compare_class(const void *rows, size_t position, const void *key)
{
	const struct remote_class *class =
	    &((const struct remote_class *)rows)[position];
	const struct class_key *wanted = key;

	if (class->id_length != wanted->length)
		return class->id_length < wanted->length ? -1 : 1;
	for (size_t i = 0; i < wanted->length; i++)
		if (class->id[i] != wanted->id[i])
			return class->id[i] < wanted->id[i] ? -1 : 1;
	return 0;
}

struct remote_class *
cli_remote_find_class(
    struct remote_state *state, const uint32_t *id, size_t id_length)
{
	struct class_key key = {id, id_length};

	return cli_remote_row_find(state->classes, state->class_count, &key,
	           compare_class, &state->class_cursor) == CLI_REMOTE_ROW_KNOWN
	           ? &state->classes[state->class_cursor]
	           : NULL;
}

int
cli_remote_malformed_index(struct remote_state *state, const char *table,
    char *error, size_t error_size)
{
	snprintf(error, error_size, "%s: malformed answer: a bad %s index",
	    state->host, table);
	return -1;
}

int
cli_remote_row_index(struct remote_state *state, const char *table,
    const uint64_t *suffix, size_t length, enum cli_remote_shape shape,
    struct cli_remote_index *index, char *error, size_t error_size)
{
	if (length < 1 ||
	    !cli_remote_decode_index(suffix + 1, length - 1, shape, index))
		return cli_remote_malformed_index(
		    state, table, error, error_size);
	return 0;
}

/* dciClassLevelTypes or dciClassLevelSizes: its octets (4 a level),
 * their length, and that the column was read. */
static int
read_level_octets(struct remote_state *state,
    const netsnmp_variable_list *varbind,
    unsigned char octets[REMOTE_LEVEL_OCTETS_MAX], size_t *length, bool *read,
    char *error, size_t error_size)
{
	if (cli_remote_read_octets(state, varbind, octets,
	        REMOTE_LEVEL_OCTETS_MAX, length, error, error_size) != 0)
		return -1;
	*read = true;
	return 0;
}

static const struct plain_column class_columns[] = {
    STRING_COLUMN(SCHEMA_CLASS_LABEL, struct remote_class, label),
    UNSIGNED_COLUMN(SCHEMA_CLASS_SUPPLIER, struct remote_class, supplier_index),
    STRING_COLUMN(SCHEMA_CLASS_DESCRIPTION, struct remote_class, description),
};

int
cli_remote_class_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	struct cli_remote_index index;
	struct class_key key;
	void *row;
	struct remote_class *class;
	int read;

	(void)context;
	if (cli_remote_row_index(state, "dciClassTable", suffix, length,
	        CLI_REMOTE_SHAPE_CLASS, &index, error, error_size) != 0)
		return -1;
	key = (struct class_key){index.class_id, index.class_length};
	read = walked_row(state,
	    &(struct row_list){(void **)&state->classes, &state->class_count,
	        &state->class_capacity, &state->class_cursor,
	        sizeof(*state->classes), REMOTE_CLASSES_MAX, "classes",
	        compare_class},
	    &key, NULL, &row, error, error_size);
	if (read != 1)
		return read;
	class = row;
	memcpy(class->id, index.class_id, /* the row's key */
	    index.class_length * sizeof(uint32_t));
	class->id_length = index.class_length;
	read = read_plain_column(state, class_columns, COUNT_OF(class_columns),
	    suffix[0], class, varbind, error, error_size);
	if (read != 1)
		return read;
	switch (suffix[0]) {
	case SCHEMA_CLASS_INSTANCE_LEVELS:
		if (cli_remote_read_unsigned(state, varbind,
		        &class->level_count, error, error_size) != 0)
			return -1;
		if (class->level_count < 1 ||
		    class->level_count > DCI_INSTANCE_ID_MAX_WORDS) {
			snprintf(error, error_size,
			    "%s: malformed answer: %" PRIu32 " instance levels",
			    state->host, class->level_count);
			return -1;
		}
		return 0;
	case SCHEMA_CLASS_LEVEL_TYPES:
		return read_level_octets(state, varbind, class->level_types,
		    &class->level_types_length, &class->level_types_read, error,
		    error_size);
	case SCHEMA_CLASS_LEVEL_SIZES:
		return read_level_octets(state, varbind, class->level_sizes,
		    &class->level_sizes_length, &class->level_sizes_read, error,
		    error_size);
	}
	return 0; /* a column of a later MIB revision */
}

static int
compare_datum(const void *rows, size_t position, const void *key)
{
	uint32_t id = ((const struct remote_datum *)rows)[position].info.id,
	         wanted = *(const uint32_t *)key;

	return id < wanted ? -1 : id > wanted;
}

static const struct plain_column datum_columns[] = {
    STRING_COLUMN(SCHEMA_DATUM_LABEL, struct remote_datum, label),
    STRING_COLUMN(SCHEMA_DATUM_DESCRIPTION, struct remote_datum, description),
};

int
cli_remote_datum_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	struct cli_remote_index index;
	struct remote_class *class;
	struct remote_datum *datum;
	void *row;
	uint32_t number;
	int read;

	(void)context;
	if (cli_remote_row_index(state, "dciDatumTable", suffix, length,
	        CLI_REMOTE_SHAPE_DATUM, &index, error, error_size) != 0)
		return -1;
	class =
	    cli_remote_find_class(state, index.class_id, index.class_length);
	if (class == NULL)
		return 0; /* a class registered since the class table's walk */
	read = walked_row(state,
	    &(struct row_list){(void **)&class->datums, &class->datum_count,
	        &class->datum_capacity, &class->datum_cursor,
	        sizeof(*class->datums), REMOTE_DATUMS_MAX, "datums",
	        compare_datum},
	    &index.datum, class->label, &row, error, error_size);
	if (read != 1)
		return read;
	datum = row;
	datum->info.id = index.datum; /* the row's key */
	read = read_plain_column(state, datum_columns, COUNT_OF(datum_columns),
	    suffix[0], datum, varbind, error, error_size);
	if (read != 1)
		return read;
	switch (suffix[0]) {
	case SCHEMA_DATUM_UNITS: {
		char name[256];
		enum dci_unit unit;
		if (cli_remote_read_string(state, varbind, name, sizeof(name),
		        error, error_size) != 0)
			return -1;
		if (!cli_remote_unit_of_name(name, &unit)) {
			char quoted[REMOTE_QUOTED_SIZE];
			snprintf(error, error_size,
			    "%s: unknown unit \"%s\" of datum %" PRIu32,
			    state->host, cli_remote_quote(quoted, name),
			    datum->info.id);
			return -1;
		}
		datum->info.unit = unit;
		return 0;
	}
	case SCHEMA_DATUM_TYPE:
	case SCHEMA_DATUM_FORMAT:
	case SCHEMA_DATUM_PRESENTATION:
	case SCHEMA_DATUM_SIZE:
	case SCHEMA_DATUM_VOLATILITY:
	case SCHEMA_DATUM_SEMANTICS:
		if (cli_remote_read_unsigned(
		        state, varbind, &number, error, error_size) != 0)
			return -1;
		if (suffix[0] == SCHEMA_DATUM_TYPE)
			datum->info.type = (enum dci_type)number;
		else if (suffix[0] == SCHEMA_DATUM_FORMAT)
			datum->info.format = number;
		else if (suffix[0] == SCHEMA_DATUM_PRESENTATION)
			datum->info.presentation = number;
		else if (suffix[0] == SCHEMA_DATUM_SIZE)
			datum->info.size = number;
		else if (suffix[0] == SCHEMA_DATUM_VOLATILITY)
			datum->info.volatility = number;
		else
			datum->info.semantics = (enum dci_semantics)number;
		return 0;
	}
	return 0;
}

/* --- dciInstanceTable ----------------------------------------------------- */

/* The position of instance `id` in the class's refresh, or -1. Values
 * come in instance order, so the cursor's neighbour is tried first. */
long
cli_remote_find_instance(struct remote_class *class, const uint32_t *id)
{
	size_t words = class->instance_words;
	long found;

	for (size_t probe = class->cursor;
	     probe < class->cursor + 2 && probe < class->instance_count;
	     probe++) {
		if (dci_instance_id_compare(
		        class->instance_ids + probe * words, id, words) == 0) {
			class->cursor = probe;
			return (long)probe;
		}
	}
	found = dci_instance_id_find(
	    class->instance_ids, class->instance_count, words, id);
	if (found >= 0)
		class->cursor = (size_t)found;
	return found;
}

static struct remote_class *
find_registered_class(
    struct remote_state *state, const uint32_t *id, size_t id_length)
{
	struct remote_class *class =
	    cli_remote_find_class(state, id, id_length);

	return class != NULL && class->builder != NULL ? class : NULL;
}

static int
instance_label(struct remote_state *state, struct remote_class *class,
    const struct cli_remote_index *index, const netsnmp_variable_list *varbind,
    char *error, size_t error_size)
{
	char label[DCI_INSTANCE_LABEL_SIZE], why[256];
	size_t words = index->instance_words;
	long row;

	if (cli_remote_read_string(
	        state, varbind, label, sizeof(label), error, error_size) != 0)
		return -1;
	if (class->instance_count == 0 && class->instance_words == 0)
		class->instance_words = words;
	if (words != class->instance_words ||
	    (class->instance_count > 0 &&
	        dci_instance_id_compare(
	            class->instance_ids + (class->instance_count - 1) * words,
	            index->instance, words) >= 0)) {
		snprintf(error, error_size,
		    "%s: malformed answer: instance ids of class %s out of "
		    "order or of different lengths",
		    state->host, class->label);
		return -1;
	}
	if (class->instance_count == class->instance_capacity) {
		size_t capacity = class->instance_capacity == 0
		                      ? 64
		                      : class->instance_capacity * 2;
		uint32_t *ids;
		struct remote_instance *instances;
		if (class->instance_count >= REMOTE_INSTANCES_MAX) {
			snprintf(error, error_size,
			    "%s: too many instances in class %s", state->host,
			    class->label);
			return -1;
		}
		ids = realloc(
		    class->instance_ids, capacity * words * sizeof(*ids));
		if (ids != NULL)
			class->instance_ids = ids;
		instances =
		    realloc(class->instances, capacity * sizeof(*instances));
		if (instances != NULL)
			class->instances = instances;
		if (ids == NULL || instances == NULL) {
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		class->instance_capacity = capacity;
	}
	row = dci_snapshot_builder_add(
	    class->builder, index->instance, words, label, why, sizeof(why));
	if (row < 0) {
		snprintf(error, error_size, "%s: class %s: %s", state->host,
		    class->label, why);
		return -1;
	}
	memcpy(class->instance_ids + class->instance_count * words,
	    index->instance, words * sizeof(uint32_t));
	class->instances[class->instance_count] =
	    (struct remote_instance){.row = row};
	class->instance_count++;
	return 0;
}

/* A RowPointer to the parent's dciInstanceLabel, or zeroDotZero. */
static int
instance_parent(struct remote_state *state, struct remote_class *class,
    long position, const netsnmp_variable_list *varbind, char *error,
    size_t error_size)
{
	oid prefix[SCHEMA_ENTRY_PREFIX_LENGTH];
	size_t prefix_length =
	    cli_remote_table_root(SCHEMA_TABLE_INSTANCE, prefix);
	size_t count = varbind->val_len / sizeof(oid);
	uint64_t subids[REMOTE_OID_MAX];
	struct cli_remote_index parent;
	char why[256];

	if (varbind->type != ASN_OBJECT_ID || varbind->val.objid == NULL)
		return cli_remote_wrong_value(
		    state, varbind, error, error_size);
	if (count == 2 && varbind->val.objid[0] == 0 &&
	    varbind->val.objid[1] == 0)
		return 0;
	if (count <= prefix_length + 1 || count > REMOTE_OID_MAX ||
	    memcmp(varbind->val.objid, prefix, prefix_length * sizeof(oid)) !=
	        0 ||
	    varbind->val.objid[prefix_length] != SCHEMA_INSTANCE_LABEL)
		goto malformed;
	for (size_t i = prefix_length + 1; i < count; i++)
		subids[i - prefix_length - 1] = varbind->val.objid[i];
	if (!cli_remote_decode_index(subids, count - prefix_length - 1,
	        CLI_REMOTE_SHAPE_INSTANCE, &parent) ||
	    parent.class_length != class->id_length ||
	    memcmp(parent.class_id, class->id,
	        class->id_length * sizeof(uint32_t)) != 0 ||
	    parent.instance_words != class->instance_words)
		goto malformed;
	if (dci_snapshot_builder_set_parent(class->builder,
	        class->instances[position].row, parent.instance,
	        parent.instance_words, why, sizeof(why)) != 0) {
		snprintf(error, error_size, "%s: class %s: %s", state->host,
		    class->label, why);
		return -1;
	}
	return 0;
malformed:
	snprintf(error, error_size,
	    "%s: malformed answer: a parent that is no instance of class %s",
	    state->host, class->label);
	return -1;
}

static const struct plain_column instance_columns[] = {
    UNSIGNED_COLUMN(
        SCHEMA_INSTANCE_CREATED, struct remote_instance, created_ticks),
    UNSIGNED_COLUMN(SCHEMA_INSTANCE_DISCONTINUITY, struct remote_instance,
        discontinuity_ticks),
};

int
cli_remote_instance_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	struct cli_remote_index index;
	struct remote_class *class;
	long position;
	int read;

	(void)context;
	if (cli_remote_row_index(state, "dciInstanceTable", suffix, length,
	        CLI_REMOTE_SHAPE_INSTANCE, &index, error, error_size) != 0)
		return -1;
	class =
	    find_registered_class(state, index.class_id, index.class_length);
	if (class == NULL)
		return 0; /* a class registered after this source opened */
	if (suffix[0] == SCHEMA_INSTANCE_LABEL)
		return instance_label(
		    state, class, &index, varbind, error, error_size);
	if (index.instance_words != class->instance_words ||
	    (position = cli_remote_find_instance(class, index.instance)) < 0)
		return 0; /* an instance that came after its label's walk */
	if (suffix[0] == SCHEMA_INSTANCE_PARENT)
		return instance_parent(
		    state, class, position, varbind, error, error_size);
	read = read_plain_column(state, instance_columns,
	    COUNT_OF(instance_columns), suffix[0], &class->instances[position],
	    varbind, error, error_size);
	return read == 1 ? 0 : read;
}

/* --- dciClassData: the values -------------------------------------------- */

/* The stored value of a relative ST_TIME datum (a duration) from its
 * TimeTicks: centiseconds, or seconds for STF_CTIME. Absolute times are
 * read from their text (cli_remote_read_pending_times). */
static uint64_t
duration_of_ticks(const struct dci_datum_info *info, uint32_t ticks)
{
	return info->format == DCI_STF_CTIME ? ticks / 100u : ticks;
}

static int
set_value(struct remote_state *state, struct remote_class *class, long row,
    const struct dci_datum *datum, const netsnmp_variable_list *varbind,
    char *error, size_t error_size)
{
	const struct dci_datum_info *info = &datum->info;
	uint32_t id = info->id;
	char why[256] = "";
	int result = -1;

	/* The registry computes derived datums from their arguments at
	 * commit, as it does for a provider's. */
	if (info->type == DCI_ST_DERIVED)
		return 0;
	switch (datum->kind) {
	case DCI_KIND_COUNTER64:
		if (varbind->type != ASN_COUNTER64 ||
		    varbind->val.counter64 == NULL)
			return cli_remote_wrong_value(
			    state, varbind, error, error_size);
		result =
		    dci_snapshot_builder_set_unsigned(class->builder, row, id,
		        ((uint64_t)varbind->val.counter64->high << 32) |
		            (varbind->val.counter64->low & 0xffffffffu),
		        why, sizeof(why));
		break;
	case DCI_KIND_COUNTER32:
	case DCI_KIND_GAUGE32: {
		uint32_t number;
		if (varbind->type != (datum->kind == DCI_KIND_COUNTER32
		                             ? ASN_COUNTER
		                             : ASN_GAUGE) ||
		    cli_remote_read_unsigned(
		        state, varbind, &number, error, error_size) != 0)
			return cli_remote_wrong_value(
			    state, varbind, error, error_size);
		result = dci_snapshot_builder_set_unsigned(
		    class->builder, row, id, number, why, sizeof(why));
		break;
	}
	case DCI_KIND_INTEGER32:
		if (varbind->type != ASN_INTEGER ||
		    varbind->val.integer == NULL)
			return cli_remote_wrong_value(
			    state, varbind, error, error_size);
		result = dci_snapshot_builder_set_signed(class->builder, row,
		    id, (int64_t)(int32_t)*varbind->val.integer, why,
		    sizeof(why));
		break;
	case DCI_KIND_STRING:
	case DCI_KIND_MACADDRESS:
	case DCI_KIND_IPADDRESS:
		if ((varbind->type != ASN_OCTET_STR &&
		        varbind->type != ASN_IPADDRESS) ||
		    (varbind->val_len > 0 && varbind->val.string == NULL))
			return cli_remote_wrong_value(
			    state, varbind, error, error_size);
		/* The encoder bounds the length by the datum's size. */
		result = dci_snapshot_builder_set_bytes(class->builder, row, id,
		    varbind->val.string, varbind->val_len, why, sizeof(why));
		break;
	case DCI_KIND_TIMETICKS: {
		uint32_t ticks;
		if (varbind->type != ASN_TIMETICKS ||
		    cli_remote_read_unsigned(
		        state, varbind, &ticks, error, error_size) != 0)
			return cli_remote_wrong_value(
			    state, varbind, error, error_size);
		result = dci_snapshot_builder_set_unsigned(class->builder, row,
		    id, duration_of_ticks(info, ticks), why, sizeof(why));
		break;
	}
	case DCI_KIND_TRUTHVALUE: {
		bool truth;
		if (varbind->type != ASN_INTEGER ||
		    varbind->val.integer == NULL ||
		    (*varbind->val.integer != 1 && *varbind->val.integer != 2))
			return cli_remote_wrong_value(
			    state, varbind, error, error_size);
		truth = *varbind->val.integer == 1;
		/* The slot holds the value before SBF_INVERTED. */
		if (info->format & DCI_SBF_INVERTED)
			truth = !truth;
		result = dci_snapshot_builder_set_unsigned(
		    class->builder, row, id, truth ? 1 : 0, why, sizeof(why));
		break;
	}
	case DCI_KIND_TEXT_ONLY: {
		char text[64];
		int64_t number;
		if (cli_remote_read_string(state, varbind, text, sizeof(text),
		        error, error_size) != 0)
			return -1;
		if (!cli_remote_parse_text_integer(
		        text, info->presentation, &number))
			return cli_remote_wrong_value(
			    state, varbind, error, error_size);
		result = dci_snapshot_builder_set_signed(
		    class->builder, row, id, number, why, sizeof(why));
		break;
	}
	default:
		return 0; /* DCI_KIND_NONE: never served */
	}
	if (result != 0) {
		snprintf(error, error_size,
		    "%s: malformed answer: class %s datum %s: %s", state->host,
		    class->label, info->label, why);
		return -1;
	}
	return 0;
}

static int
queue_time(struct remote_state *state, struct remote_class *class,
    size_t position, const struct dci_datum *datum, char *error,
    size_t error_size)
{
	if (state->pending_count == state->pending_capacity) {
		size_t capacity = state->pending_capacity == 0
		                      ? 64
		                      : state->pending_capacity * 2;
		struct remote_pending_time *grown;
		if (capacity > REMOTE_WALK_MAX_VARBINDS)
			return cli_remote_malformed_index(
			    state, "dciClassData", error, error_size);
		grown = realloc(state->pending, capacity * sizeof(*grown));
		if (grown == NULL) {
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		state->pending = grown;
		state->pending_capacity = capacity;
	}
	state->pending[state->pending_count++] =
	    (struct remote_pending_time){class, position, datum};
	return 0;
}

/* The dciStatText OID of a pending time: .1.5.1.3 and the stat index
 * [class_length, class..., instance_words, instance..., datum]. */
static size_t
pending_text_oid(const struct remote_pending_time *pending, oid *name)
{
	const struct remote_class *class = pending->class;
	size_t length = cli_remote_table_root(SCHEMA_TABLE_STAT, name);
	const uint32_t *id =
	    class->instance_ids + pending->position * class->instance_words;

	name[length++] = SCHEMA_STAT_TEXT;
	name[length++] = class->id_length;
	for (size_t i = 0; i < class->id_length; i++)
		name[length++] = class->id[i];
	name[length++] = class->instance_words;
	for (size_t i = 0; i < class->instance_words; i++)
		name[length++] = id[i];
	name[length++] = pending->datum->info.id;
	return length;
}

/* Reads the pending times' texts with GETs of up to REMOTE_REPETITIONS
 * varbinds and sets each value. A value gone meanwhile (no such instance)
 * is left unset, as if the refresh had missed it. */
int
cli_remote_read_pending_times(
    struct remote_state *state, char *error, size_t error_size)
{
	for (size_t first = 0; first < state->pending_count;
	     first += REMOTE_REPETITIONS) {
		size_t count = state->pending_count - first;
		netsnmp_pdu *request = snmp_pdu_create(SNMP_MSG_GET);
		netsnmp_pdu *response = NULL;
		netsnmp_variable_list *varbind;

		if (count > REMOTE_REPETITIONS)
			count = REMOTE_REPETITIONS;
		for (size_t i = 0; i < count; i++) {
			oid name[REMOTE_OID_MAX];
			size_t length =
			    pending_text_oid(&state->pending[first + i], name);
			snmp_add_null_var(request, name, length);
		}
		if (cli_remote_request(
		        state, request, &response, error, error_size) != 0)
			return -1;
		varbind = response->variables;
		for (size_t i = 0; i < count; i++) {
			const struct remote_pending_time *pending =
			    &state->pending[first + i];
			const struct dci_datum_info *info =
			    &pending->datum->info;
			char text[64], why[256];
			int64_t value;

			if (varbind == NULL) {
				snprintf(error, error_size,
				    "%s: malformed answer: %zu varbinds "
				    "asked, fewer answered",
				    state->host, count);
				snmp_free_pdu(response);
				return -1;
			}
			if (varbind->type == SNMP_NOSUCHINSTANCE ||
			    varbind->type == SNMP_NOSUCHOBJECT) {
				varbind = varbind->next_variable;
				continue;
			}
			if (cli_remote_read_string(state, varbind, text,
			        sizeof(text), error, error_size) != 0 ||
			    !cli_remote_parse_time_text(text, info, &value)) {
				char quoted[REMOTE_QUOTED_SIZE];
				if (error[0] == '\0' ||
				    strstr(error, "malformed") == NULL)
					snprintf(error, error_size,
					    "%s: malformed answer: time "
					    "\"%s\" of datum %s",
					    state->host,
					    cli_remote_quote(quoted, text),
					    info->label);
				snmp_free_pdu(response);
				return -1;
			}
			if ((info->format == DCI_STF_CTIME
			            ? dci_snapshot_builder_set_signed(
			                  pending->class->builder,
			                  pending->class
			                      ->instances[pending->position]
			                      .row,
			                  info->id, value, why, sizeof(why))
			            : dci_snapshot_builder_set_unsigned(
			                  pending->class->builder,
			                  pending->class
			                      ->instances[pending->position]
			                      .row,
			                  info->id, (uint64_t)value, why,
			                  sizeof(why))) != 0) {
				snprintf(error, error_size,
				    "%s: malformed answer: datum %s: %s",
				    state->host, info->label, why);
				snmp_free_pdu(response);
				return -1;
			}
			varbind = varbind->next_variable;
		}
		snmp_free_pdu(response);
	}
	return 0;
}

int
cli_remote_value_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	struct remote_class *class = NULL;
	const struct dci_datum *datum;
	uint32_t instance[DCI_INSTANCE_ID_MAX_WORDS];
	size_t at;
	long position;

	(void)context;
	/* [class..., 1, datum, instance...]: no class id is a prefix of
	 * another, so at most one class matches: the class of the value
	 * before (the cursor), or the one of each length there is. */
	if (state->class_count > 0) {
		struct remote_class *last =
		    &state->classes[state->class_cursor];
		bool match = last->builder != NULL && length > last->id_length;
		for (size_t i = 0; match && i < last->id_length; i++)
			match = suffix[i] == last->id[i];
		if (match)
			class = last;
	}
	for (size_t l = 1;
	     l <= DCI_CLASS_ID_MAX_LEVELS && l < length && class == NULL; l++) {
		uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
		bool fits = true;
		for (size_t i = 0; i < l; i++) {
			fits = fits && suffix[i] <= UINT32_MAX;
			id[i] = (uint32_t)suffix[i];
		}
		if (fits)
			class = find_registered_class(state, id, l);
	}
	if (class == NULL)
		return 0; /* a class registered after this source opened */
	at = class->id_length;
	if (length - at < 2 || suffix[at] != 1 || suffix[at + 1] > UINT32_MAX ||
	    length - at - 2 != class->instance_words ||
	    class->instance_words == 0)
		return cli_remote_malformed_index(
		    state, "dciClassData", error, error_size);
	datum = dci_class_find_datum(class->class, (uint32_t)suffix[at + 1]);
	for (size_t i = 0; i < class->instance_words; i++) {
		if (suffix[at + 2 + i] > UINT32_MAX)
			return cli_remote_malformed_index(
			    state, "dciClassData", error, error_size);
		instance[i] = (uint32_t)suffix[at + 2 + i];
	}
	if (datum == NULL ||
	    (position = cli_remote_find_instance(class, instance)) < 0)
		return 0; /* came after the instance table's walk */
	if (datum->kind == DCI_KIND_TIMETICKS &&
	    datum->info.presentation != DCI_STP_RELATIVE)
		return queue_time(
		    state, class, (size_t)position, datum, error, error_size);
	return set_value(state, class, class->instances[position].row, datum,
	    varbind, error, error_size);
}
