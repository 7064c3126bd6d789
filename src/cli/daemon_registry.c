/* The registry dcistatd serves, rebuilt from DCI answers
 * (cli/daemon_registry.h). */
#include "cli/daemon_registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/snapshot.h"
#include "protocol/dci_protocol.h"

/* Bounds on what an answer may make this process allocate or register,
 * beyond which the answer is refused as malformed. */
#define DAEMON_SUPPLIERS_MAX 4096u
#define DAEMON_TEXT_MAX 4096u
#define DAEMON_DATUMS_MAX 4096u

/* Reads the answer head; the entry count, or -1 (with `error`) when the
 * head is short or the status is neither SUCCESS nor NOTPRESENT (nothing
 * matched: count 0). */
static long
read_head(struct dci_protocol_reader *reader, const char *what, char *error,
    size_t error_size)
{
	uint32_t status = dci_protocol_get_u32(reader);
	uint32_t count = dci_protocol_get_u32(reader);

	dci_protocol_get_u64(reader);
	dci_protocol_get_u64(reader);
	if (reader->failed) {
		snprintf(error, error_size, "dcistatd: %s: short answer", what);
		return -1;
	}
	if (status == DCI_PROTOCOL_NOTPRESENT)
		return 0;
	if (status != DCI_PROTOCOL_SUCCESS) {
		snprintf(error, error_size, "dcistatd: %s: %s", what,
		    dci_protocol_status_name(status));
		return -1;
	}
	return (long)count;
}

/* A block as a NUL-terminated string in `text` (`size` bytes); false when
 * it does not fit or holds a NUL. */
static bool
read_text(struct dci_protocol_reader *reader, char *text, size_t size)
{
	size_t length;
	const unsigned char *bytes =
	    dci_protocol_get_block(reader, size - 1, &length);

	if (bytes == NULL || memchr(bytes, '\0', length) != NULL) {
		reader->failed = true;
		text[0] = '\0';
		return false;
	}
	memcpy(text, bytes, length);
	text[length] = '\0';
	return true;
}

static bool
read_class_id(struct dci_protocol_reader *reader, uint32_t *id, size_t *levels)
{
	return dci_protocol_get_words(
	    reader, id, 1, DCI_CLASS_ID_MAX_LEVELS, levels);
}

/* An instance id of exactly class->instance_words words. */
static bool
read_instance_id(struct dci_protocol_reader *reader,
    const struct dci_class *class, uint32_t *id)
{
	size_t words;

	return dci_protocol_get_words(
	    reader, id, class->instance_words, class->instance_words, &words);
}

static bool
same_class(const struct dci_class *class, const uint32_t *id, size_t levels)
{
	return levels == class->id_length &&
	       memcmp(id, class->id, levels * sizeof(*id)) == 0;
}

int
cli_daemon_add_suppliers(struct dci_registry *registry,
    const unsigned char *answer, size_t length, char *error, size_t error_size)
{
	struct dci_protocol_reader reader = {answer, length, 0, false};
	long count = read_head(&reader, "suppliers", error, error_size);
	char module[DAEMON_TEXT_MAX], title[DAEMON_TEXT_MAX],
	    description[DAEMON_TEXT_MAX], provider[DAEMON_TEXT_MAX],
	    failure[DAEMON_TEXT_MAX], why[512] = "";

	if (count < 0)
		return -1;
	if (count > (long)DAEMON_SUPPLIERS_MAX)
		goto malformed;
	for (long i = 0; i < count; i++) {
		uint32_t index = dci_protocol_get_u32(&reader);
		uint32_t status = dci_protocol_get_u32(&reader);
		struct dci_supplier_info info = {0};
		struct dci_supplier *supplier;
		const unsigned char *reset;
		size_t reset_length;

		info.type = dci_protocol_get_u32(&reader);
		info.version = dci_protocol_get_u32(&reader);
		reset = dci_protocol_get_block(&reader, 8, &reset_length);
		if (!read_text(&reader, module, sizeof(module)) ||
		    !read_text(&reader, title, sizeof(title)) ||
		    !read_text(&reader, description, sizeof(description)) ||
		    !read_text(&reader, provider, sizeof(provider)) ||
		    !read_text(&reader, failure, sizeof(failure)) ||
		    reset_length != 8 || index > DAEMON_SUPPLIERS_MAX ||
		    index <= registry->supplier_count ||
		    (status != DCI_SUPPLIER_RUNNING &&
		        status != DCI_SUPPLIER_FAILED))
			goto malformed;
		/* Indexes the daemon skips: withdrawn placeholders, so that
		 * every supplier keeps the daemon's index. */
		while (registry->supplier_count + 1 < index) {
			/* Named apart, since a withdrawn supplier of the
			 * same name would be taken over instead. */
			char placeholder[32];
			size_t before = registry->supplier_count;

			snprintf(placeholder, sizeof(placeholder),
			    "(withdrawn %zu)", before + 1);
			supplier = dci_registry_add_failed_supplier(
			    registry, placeholder, "withdrawn", NULL);
			if (supplier == NULL)
				goto out_of_memory;
			supplier->withdrawn = true;
			if (registry->supplier_count != before + 1)
				goto malformed;
		}
		if (status == DCI_SUPPLIER_FAILED) {
			supplier = dci_registry_add_failed_supplier(
			    registry, module, failure, NULL);
			if (supplier == NULL)
				goto out_of_memory;
		} else {
			info.module = module;
			info.title = title;
			info.description = description;
			supplier = dci_registry_add_supplier(
			    registry, &info, provider, why, sizeof(why));
			if (supplier == NULL) {
				snprintf(error, error_size,
				    "dcistatd: supplier %u: %s", index, why);
				return -1;
			}
		}
		if (supplier->index != index)
			goto malformed;
		/* The daemon's monotonic clock is this host's: dcistat
		 * shows these moments as the daemon would. */
		supplier->discontinuity_milliseconds =
		    (int64_t)dci_protocol_get_u64(&reader);
		supplier->last_refresh_milliseconds =
		    (int64_t)dci_protocol_get_u64(&reader);
		supplier->type = info.type;
		supplier->version = info.version;
		memcpy(supplier->reset, reset, sizeof(supplier->reset));
	}
	if (reader.failed || reader.offset != length)
		goto malformed;
	return 0;
malformed:
	snprintf(error, error_size, "dcistatd: suppliers: malformed answer");
	return -1;
out_of_memory:
	snprintf(error, error_size, "out of memory");
	return -1;
}

/* One GET_CLASS_ATTRIBUTES entry, registered. */
static int
add_class(struct dci_registry *registry, struct dci_protocol_reader *reader,
    char *error, size_t error_size)
{
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS], supplier_index, level_count,
	    record_size, present_size, datum_count;
	size_t levels;
	char label[DAEMON_TEXT_MAX], description[DAEMON_TEXT_MAX],
	    why[512] = "";
	struct dci_instance_level instance_levels[DCI_INSTANCE_ID_MAX_WORDS];
	struct dci_datum_info *datums = NULL;
	char *texts = NULL;
	uint32_t *offsets = NULL;
	struct dci_class_info info = {0};
	struct dci_class *class;
	int result = -1;

	if (!read_class_id(reader, id, &levels) ||
	    !read_text(reader, label, sizeof(label)) ||
	    !read_text(reader, description, sizeof(description)))
		goto malformed;
	supplier_index = dci_protocol_get_u32(reader);
	level_count = dci_protocol_get_u32(reader);
	if (level_count == 0 || level_count > DCI_INSTANCE_ID_MAX_WORDS)
		goto malformed;
	for (uint32_t i = 0; i < level_count; i++) {
		instance_levels[i].itype =
		    (enum dci_instance_type)dci_protocol_get_u32(reader);
		instance_levels[i].size = dci_protocol_get_u32(reader);
	}
	record_size = dci_protocol_get_u32(reader);
	present_size = dci_protocol_get_u32(reader);
	datum_count = dci_protocol_get_u32(reader);
	if (reader->failed || datum_count == 0 ||
	    datum_count > DAEMON_DATUMS_MAX || supplier_index == 0 ||
	    supplier_index > registry->supplier_count ||
	    registry->suppliers[supplier_index - 1]->withdrawn)
		goto malformed;
	datums = calloc(datum_count, sizeof(*datums));
	offsets = calloc(datum_count, sizeof(*offsets));
	/* Each datum's label and description, DAEMON_TEXT_MAX apiece. */
	texts = malloc((size_t)datum_count * 2 * DAEMON_TEXT_MAX);
	if (datums == NULL || offsets == NULL || texts == NULL) {
		snprintf(error, error_size, "out of memory");
		goto done;
	}
	for (uint32_t i = 0; i < datum_count; i++) {
		struct dci_datum_info *datum = &datums[i];
		char *datum_label = texts + (size_t)i * 2 * DAEMON_TEXT_MAX;
		char *datum_description = datum_label + DAEMON_TEXT_MAX;

		datum->id = dci_protocol_get_u32(reader);
		datum->type = (enum dci_type)dci_protocol_get_u32(reader);
		datum->format = dci_protocol_get_u32(reader);
		datum->presentation = dci_protocol_get_u32(reader);
		datum->size = dci_protocol_get_u32(reader);
		datum->volatility = dci_protocol_get_u32(reader);
		datum->unit = (enum dci_unit)dci_protocol_get_u32(reader);
		datum->semantics =
		    (enum dci_semantics)dci_protocol_get_u32(reader);
		offsets[i] = dci_protocol_get_u32(reader);
		if (!read_text(reader, datum_label, DAEMON_TEXT_MAX) ||
		    !read_text(reader, datum_description, DAEMON_TEXT_MAX))
			goto malformed;
		datum->label = datum_label;
		datum->description = datum_description;
		/* The registry sets a derived datum's description itself,
		 * from its arguments: it is declared with these at 0. */
		if (datum->type == DCI_ST_DERIVED) {
			datum->format = 0;
			datum->presentation = 0;
			datum->size = 0;
			datum->semantics = 0;
		}
	}
	info = (struct dci_class_info){
	    .id = id,
	    .id_length = levels,
	    .label = label,
	    .description = description,
	    .levels = instance_levels,
	    .level_count = level_count,
	    .datums = datums,
	    .datum_count = datum_count,
	};
	class = dci_registry_add_class(registry,
	    registry->suppliers[supplier_index - 1], &info, NULL, why,
	    sizeof(why));
	if (class == NULL) {
		snprintf(error, error_size, "dcistatd: %s", why);
		goto done;
	}
	/* The records GET_DATA sends are the daemon's: read only when the
	 * same infos gave the same layout here. */
	if (class->record_size != record_size ||
	    class->present_size != present_size ||
	    class->datum_count != datum_count) {
		snprintf(error, error_size,
		    "dcistatd: class %s: record layout differs from the "
		    "daemon's",
		    label);
		goto done;
	}
	for (uint32_t i = 0; i < datum_count; i++)
		if (class->datums[i].offset != offsets[i]) {
			snprintf(error, error_size,
			    "dcistatd: class %s: record layout differs from "
			    "the daemon's",
			    label);
			goto done;
		}
	result = 0;
	goto done;
malformed:
	snprintf(error, error_size, "dcistatd: classes: malformed answer");
done:
	free(datums);
	free(offsets);
	free(texts);
	return result;
}

int
cli_daemon_add_classes(struct dci_registry *registry,
    const unsigned char *answer, size_t length, char *error, size_t error_size)
{
	struct dci_protocol_reader reader = {answer, length, 0, false};
	long count = read_head(&reader, "classes", error, error_size);

	if (count < 0)
		return -1;
	for (long i = 0; i < count; i++)
		if (add_class(registry, &reader, error, error_size) != 0)
			return -1;
	if (reader.failed || reader.offset != length) {
		snprintf(
		    error, error_size, "dcistatd: classes: malformed answer");
		return -1;
	}
	return 0;
}

/* The label as the daemon stored it (escaped, registry.h), back to the
 * bytes it stands for, so that the builder's escaping gives it again.
 * "\~" (a label cut to DCI_LABEL_MAX) is kept as it is written. */
static void
label_unescape(const char *escaped, char *label, size_t size)
{
	size_t used = 0;

	for (size_t i = 0; escaped[i] != '\0' && used + 1 < size; i++) {
		unsigned value;

		if (escaped[i] == '\\' && escaped[i + 1] == '\\') {
			label[used++] = '\\';
			i++;
		} else if (escaped[i] == '\\' && escaped[i + 1] == 'x' &&
		           sscanf(escaped + i + 2, "%2x", &value) == 1 &&
		           escaped[i + 2] != '\0' && escaped[i + 3] != '\0' &&
		           value != 0) {
			label[used++] = (char)value;
			i += 3;
		} else {
			label[used++] = escaped[i];
		}
	}
	label[used] = '\0';
}

/* Sets the datums of `row` from the daemon's record and presence bitmap. */
static int
set_record(struct dci_snapshot_builder *builder, const struct dci_class *class,
    long row, const unsigned char *present, const unsigned char *record,
    char *why, size_t why_size)
{
	for (size_t i = 0; i < class->datum_count; i++) {
		const struct dci_datum *datum = &class->datums[i];
		const unsigned char *slot = record + datum->offset;
		int result = 0;

		if (!(present[i / 8] & (1u << (i % 8))) ||
		    datum->info.type == DCI_ST_DERIVED ||
		    datum->kind == DCI_KIND_NONE)
			continue;
		if (datum->info.type == DCI_ST_BOOLEAN) {
			uint32_t stored =
			    (uint32_t)slot[0] | (uint32_t)slot[1] << 8 |
			    (uint32_t)slot[2] << 16 | (uint32_t)slot[3] << 24;

			result = dci_snapshot_builder_set_unsigned(builder, row,
			    datum->info.id, stored, why, why_size);
		} else if (datum->info.type == DCI_ST_STRING) {
			const unsigned char *end =
			    memchr(slot, '\0', datum->info.size);
			size_t length = end == NULL ? datum->info.size
			                            : (size_t)(end - slot);

			result = dci_snapshot_builder_set_bytes(builder, row,
			    datum->info.id, slot, length, why, why_size);
		} else {
			result = dci_snapshot_builder_set_bytes(builder, row,
			    datum->info.id, slot, datum->info.size, why,
			    why_size);
		}
		if (result != 0)
			return -1;
	}
	return 0;
}

int
cli_daemon_commit_class(struct dci_class *class, const unsigned char *answer,
    size_t length, int64_t now_milliseconds, char *error, size_t error_size)
{
	struct dci_protocol_reader reader = {answer, length, 0, false};
	long count = read_head(&reader, "instances", error, error_size);
	struct dci_snapshot_builder *builder;
	char why[512] = "";

	if (count < 0)
		return -1;
	builder = dci_snapshot_builder_new(class);
	if (builder == NULL) {
		snprintf(error, error_size, "out of memory");
		return -1;
	}
	for (long i = 0; i < count; i++) {
		uint32_t id[DCI_CLASS_ID_MAX_LEVELS],
		    instance[DCI_INSTANCE_ID_MAX_WORDS],
		    parent[DCI_INSTANCE_ID_MAX_WORDS];
		size_t levels, present_length, record_length;
		char escaped[DCI_INSTANCE_LABEL_SIZE],
		    label[DCI_INSTANCE_LABEL_SIZE];
		const unsigned char *present, *record;
		uint32_t parent_words;
		long row;

		if (!read_class_id(&reader, id, &levels) ||
		    !same_class(class, id, levels) ||
		    !read_instance_id(&reader, class, instance) ||
		    !read_text(&reader, escaped, sizeof(escaped)))
			goto malformed;
		/* No words: no parent; else exactly an instance id. */
		parent_words = dci_protocol_get_u32(&reader);
		if (parent_words != 0 && parent_words != class->instance_words)
			goto malformed;
		for (uint32_t w = 0; w < parent_words; w++)
			parent[w] = dci_protocol_get_u32(&reader);
		present = dci_protocol_get_block(
		    &reader, class->present_size, &present_length);
		record = dci_protocol_get_block(
		    &reader, class->record_size, &record_length);
		if (reader.failed || present == NULL || record == NULL ||
		    present_length != class->present_size ||
		    record_length != class->record_size)
			goto malformed;
		label_unescape(escaped, label, sizeof(label));
		row = dci_snapshot_builder_add(builder, instance,
		    class->instance_words, label, why, sizeof(why));
		if (row < 0 ||
		    set_record(builder, class, row, present, record, why,
		        sizeof(why)) != 0 ||
		    (parent_words > 0 &&
		        dci_snapshot_builder_set_parent(builder, row, parent,
		            parent_words, why, sizeof(why)) != 0)) {
			snprintf(error, error_size, "dcistatd: class %s: %s",
			    class->label, why);
			dci_snapshot_builder_free(builder);
			return -1;
		}
	}
	if (reader.failed || reader.offset != length)
		goto malformed;
	if (dci_snapshot_commit(
	        builder, class, now_milliseconds, why, sizeof(why)) != 0) {
		snprintf(error, error_size, "dcistatd: class %s: %s",
		    class->label, why);
		return -1;
	}
	return 0;
malformed:
	dci_snapshot_builder_free(builder);
	snprintf(error, error_size, "dcistatd: class %s: malformed answer",
	    class->label);
	return -1;
}
