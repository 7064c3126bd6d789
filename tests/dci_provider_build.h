/*
 * Builders of the variable-length structures a UMA DCI provider passes
 * (DCIClassId, DCIClassAttr, DCIMetricId, DCIInstAttr, DCIMethod and a
 * posted DCIReturn), written against <dci.h> alone, for
 * tests/dci_provider.c and tests/unit/test_libdci_provider.c. Each returns
 * a malloc()ed structure (free it), and exits on a failed allocation.
 */
#ifndef DCISTAT_TESTS_DCI_PROVIDER_BUILD_H
#define DCISTAT_TESTS_DCI_PROVIDER_BUILD_H

#include <dci.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct build_buffer {
	unsigned char *bytes;
	size_t size;
};

/* Appends `length` bytes (zeros when `from` is NULL), padded to 4;
 * returns where they start. */
static inline size_t
build_put(struct build_buffer *buffer, const void *from, size_t length)
{
	size_t at = buffer->size;
	size_t padded = (length + 3) & ~(size_t)3;

	buffer->bytes = realloc(buffer->bytes, at + padded + 4);
	if (buffer->bytes == NULL) {
		perror("realloc");
		exit(2);
	}
	memset(buffer->bytes + at, 0, padded);
	if (from != NULL)
		memcpy(buffer->bytes + at, from, length);
	buffer->size = at + padded;
	return at;
}

static inline void
build_word(struct build_buffer *buffer, size_t at, UMAUint4 value)
{
	memcpy(buffer->bytes + at, &value, 4);
}

/* A UMATextString; returns its size. */
static inline size_t
build_text(struct build_buffer *buffer, const char *text)
{
	size_t length = strlen(text);
	size_t at = build_put(buffer, NULL, 4 + length + 1);
	size_t size = buffer->size - at;

	build_word(buffer, at, (UMAUint4)size);
	memcpy(buffer->bytes + at + 4, text, length);
	return size;
}

/* A DCILabel with only its ascii text; returns its size. */
static inline size_t
build_label(struct build_buffer *buffer, const char *text)
{
	size_t at = build_put(buffer, NULL, offsetof(DCILabel, data));
	size_t text_size = build_text(buffer, text);

	build_word(buffer, at, (UMAUint4)(buffer->size - at));
	build_word(buffer, at + 4, (UMAUint4)offsetof(DCILabel, data));
	build_word(buffer, at + 8, (UMAUint4)text_size);
	return buffer->size - at;
}

static inline DCIClassId *
build_class_id(const UMAUint4 *levels, size_t count)
{
	DCIClassId *id = malloc(4 + 4 * count);

	if (id == NULL)
		exit(2);
	id->size = (UMAUint4)(4 + 4 * count);
	memcpy(id->data, levels, 4 * count);
	return id;
}

/* A class id, a full instance id (every level's bit in inputMask) and a
 * datum id. */
static inline DCIMetricId *
build_metric(const UMAUint4 *class_levels, size_t class_count,
    UMAUint4 input_mask, const UMAUint4 *instance, size_t instance_words,
    DCIDatumId datum_id)
{
	struct build_buffer buffer = {NULL, 0};
	size_t class_at, instance_at;
	DCIMetricId *metric;

	build_put(&buffer, NULL, offsetof(DCIMetricId, data));
	class_at = build_put(&buffer, NULL, 4 + 4 * class_count);
	build_word(&buffer, class_at, (UMAUint4)(4 + 4 * class_count));
	memcpy(buffer.bytes + class_at + 4, class_levels, 4 * class_count);
	instance_at = build_put(&buffer, NULL, 12 + 4 * instance_words);
	build_word(&buffer, instance_at, (UMAUint4)(12 + 4 * instance_words));
	build_word(&buffer, instance_at + 4, input_mask);
	build_word(&buffer, instance_at + 8, input_mask);
	if (instance_words != 0)
		memcpy(buffer.bytes + instance_at + 12, instance,
		    4 * instance_words);
	metric = (DCIMetricId *)buffer.bytes;
	metric->size = (UMAUint4)buffer.size;
	metric->classId.offset = (UMAUint4)class_at;
	metric->classId.size = (UMAUint4)(4 + 4 * class_count);
	metric->instanceId.offset = (UMAUint4)instance_at;
	metric->instanceId.size = (UMAUint4)(12 + 4 * instance_words);
	metric->datumId = datum_id;
	return metric;
}

static inline DCIInstAttr *
build_inst_attr(const char *label)
{
	struct build_buffer buffer = {NULL, 0};
	DCIInstAttr *attr;
	size_t label_size;

	build_put(&buffer, NULL, offsetof(DCIInstAttr, data));
	label_size = build_label(&buffer, label);
	attr = (DCIInstAttr *)buffer.bytes;
	attr->size = (UMAUint4)buffer.size;
	attr->label.offset = (UMAUint4)offsetof(DCIInstAttr, data);
	attr->label.size = (UMAUint4)label_size;
	return attr;
}

static inline DCIMethod *
build_method(DCIMethodType type)
{
	DCIMethod *method = calloc(1, offsetof(DCIMethod, data));

	if (method == NULL)
		exit(2);
	method->size = (UMAUint4)offsetof(DCIMethod, data);
	method->type = type;
	return method;
}

/* One polled datum of a class. */
struct build_datum {
	DCIDatumId id;
	UMADataType type;
	UMAUnit units;
	UMAUint4 flags;
	UMAUint4 offset; /* in the class data block */
	const char *label;
};

/* A DCIClassAttr: `method` 0 for none (the class method is then
 * DCI_STORE), `event_count` empty DCIEventAttr count claimed. */
static inline DCIClassAttr *
build_class_attr(const char *label, UMAUint4 flags, DCIMethodType method,
    const DCIInstLevel *levels, size_t level_count,
    const struct build_datum *datums, size_t datum_count)
{
	struct build_buffer buffer = {NULL, 0};
	DCIClassAttr *attr;
	size_t label_at, label_size, method_at = 0, levels_at, data_at;

	build_put(&buffer, NULL, offsetof(DCIClassAttr, data));
	label_at = buffer.size;
	label_size = build_label(&buffer, label);
	if (method != 0) {
		method_at = build_put(&buffer, NULL, offsetof(DCIMethod, data));
		build_word(
		    &buffer, method_at, (UMAUint4)offsetof(DCIMethod, data));
		build_word(&buffer, method_at + 4, method);
	}
	levels_at = build_put(&buffer, levels, level_count * sizeof(*levels));
	data_at = buffer.size;
	for (size_t d = 0; d < datum_count; d++) {
		size_t at =
		    build_put(&buffer, NULL, offsetof(DCIDataAttr, data));
		size_t size = build_label(&buffer, datums[d].label);

		build_word(&buffer, at, (UMAUint4)(buffer.size - at));
		build_word(&buffer, at + 4, datums[d].id);
		build_word(&buffer, at + 8, datums[d].type);
		build_word(&buffer, at + 12, datums[d].units);
		build_word(&buffer, at + 16, datums[d].flags);
		build_word(&buffer, at + 20, datums[d].offset);
		build_word(
		    &buffer, at + 24, (UMAUint4)offsetof(DCIDataAttr, data));
		build_word(&buffer, at + 28, (UMAUint4)size);
	}
	attr = (DCIClassAttr *)buffer.bytes;
	attr->size = (UMAUint4)buffer.size;
	attr->flags = flags | DCI_ENABLED;
	attr->label.offset = (UMAUint4)label_at;
	attr->label.size = (UMAUint4)label_size;
	if (method != 0) {
		attr->method.offset = (UMAUint4)method_at;
		attr->method.size = (UMAUint4)offsetof(DCIMethod, data);
	}
	attr->instLevel.offset = (UMAUint4)levels_at;
	attr->instLevel.elementSize = (UMAUint4)sizeof(DCIInstLevel);
	attr->instLevel.count = (UMAUint4)level_count;
	attr->dataAttr.offset = (UMAUint4)data_at;
	attr->dataAttr.count = (UMAUint4)datum_count;
	attr->dataAttr.size = (UMAUint4)(buffer.size - data_at);
	return attr;
}

/* A posted DCIReturn: `count` metric ids, each with `sizes[i]` bytes of
 * data from `data[i]`, all in the one structure (offsets from its
 * start). */
static inline DCIReturn *
build_post(DCIMetricId *const *metrics, const void *const *data,
    const UMAUint4 *sizes, UMAUint4 count)
{
	struct build_buffer buffer = {NULL, 0};
	DCIReturn *post;

	build_put(&buffer, NULL,
	    DCI_RETURN_HEADER_SIZE + (size_t)count * sizeof(DCIRetval));
	for (UMAUint4 i = 0; i < count; i++) {
		size_t metric_at =
		    build_put(&buffer, metrics[i], metrics[i]->size);
		size_t data_at = build_put(&buffer, data[i], sizes[i]);
		size_t entry = DCI_RETURN_HEADER_SIZE + i * sizeof(DCIRetval);

		build_word(&buffer, entry + 4, (UMAUint4)metric_at);
		build_word(&buffer, entry + 8, (UMAUint4)data_at);
		build_word(&buffer, entry + 12, sizes[i]);
	}
	post = (DCIReturn *)buffer.bytes;
	post->size = (UMAUint4)buffer.size;
	post->count = count;
	return post;
}

#endif
