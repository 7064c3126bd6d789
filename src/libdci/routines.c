/*
 * The consumer routines of <dci.h> but dciOpen, dciClose and dciWaitEvent
 * (connection.c): each reads its list of ids, sends one request per id
 * to the server, and lays what the answers hold out as a DCIReturn
 * (return_builder.c) in the UMA forms of answer_decode.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "libdci/libdci_internal.h"

/* An entry for an input id that expanded to nothing or failed: its
 * status and a copy of the id. */
static void
input_entry(struct libdci_builder *builder, DCIStatus status, const void *id,
    size_t size)
{
	size_t at = libdci_builder_metric(builder, id, size);

	libdci_builder_entry(builder, status, at, 0, 0);
}

/* --- class attributes kept by the connection ----------------------------- */

static struct libdci_class *
class_cached(DCIHandle handle, const uint32_t *levels, size_t level_count)
{
	for (size_t i = 0; i < handle->class_count; i++) {
		struct libdci_class *class = &handle->classes[i];

		if (class->id_length == level_count &&
		    memcmp(class->id, levels, level_count * 4) == 0)
			return class;
	}
	return NULL;
}

/* Keeps `class` (taken over) in the cache, replacing the same class's;
 * returns where it is kept, or NULL (and frees it). */
static struct libdci_class *
class_keep(DCIHandle handle, struct libdci_class *class)
{
	struct libdci_class *kept =
	    class_cached(handle, class->id, class->id_length);

	if (kept == NULL) {
		struct libdci_class *grown = realloc(handle->classes,
		    (handle->class_count + 1) * sizeof(*grown));

		if (grown == NULL) {
			libdci_class_free(class);
			return NULL;
		}
		handle->classes = grown;
		kept = &handle->classes[handle->class_count++];
	} else
		libdci_class_free(kept);
	*kept = *class;
	return kept;
}

const struct libdci_class *
libdci_class_get(
    DCIHandle handle, const uint32_t *levels, size_t level_count, bool refresh)
{
	struct dci_protocol_request request = {0};
	const struct libdci_class *found = NULL;
	struct libdci_answer_head head;
	struct dci_protocol_reader reader;
	unsigned char *payload = NULL;
	size_t length = 0;

	if (!refresh) {
		found = class_cached(handle, levels, level_count);
		if (found != NULL)
			return found;
	}
	memcpy(request.class_id, levels, level_count * 4);
	request.class_levels = level_count;
	request.datum_id = DCI_ALL;
	if (libdci_call(handle, DCI_PROTOCOL_GET_CLASS_ATTRIBUTES, &request,
	        &payload, &length) != DCI_SUCCESS)
		return NULL;
	reader = (struct dci_protocol_reader){payload, length, 0, false};
	if (libdci_answer_head_read(&reader, &head) &&
	    head.status == DCI_PROTOCOL_SUCCESS && head.count == 1) {
		struct libdci_class class;

		if (libdci_class_read(&reader, &class)) {
			if (class.id_length == level_count &&
			    memcmp(class.id, levels, level_count * 4) == 0)
				found = class_keep(handle, &class);
			else
				libdci_class_free(&class);
		}
	}
	free(payload);
	return found;
}

/* --- the routines -------------------------------------------------------- */

/* What one routine does with one answer's entries. */
enum routine {
	ROUTINE_LIST_CLASSES,
	ROUTINE_CLASS_ATTRIBUTES,
	ROUTINE_LIST_INSTANCES,
	ROUTINE_INSTANCE_ATTRIBUTES,
	ROUTINE_GET_DATA,
	ROUTINE_WRITE,
};

/* A DCIInstAttr with `label` as data. */
static size_t
inst_attr_put(struct libdci_builder *builder, const char *label, size_t *offset)
{
	size_t label_size = libdci_label_size(label, NULL);
	size_t size = 32 + label_size;
	unsigned char *attr = libdci_builder_data_room(builder, size, offset);
	UMAUint4 words[8] = {
	    (UMAUint4)size, 0, 32, 0, 32, 0, 32, (UMAUint4)label_size};

	if (attr == NULL)
		return 0;
	memcpy(attr, words, sizeof(words));
	libdci_label_write(attr + 32, label, NULL);
	return size;
}

/* One GET_DATA entry's data, converted. */
static DCIStatus
data_put(DCIHandle handle, struct libdci_builder *builder,
    const uint32_t *levels, size_t level_count, uint32_t datum_id,
    const unsigned char *present, size_t present_length,
    const unsigned char *record, size_t record_length, size_t *offset,
    size_t *size)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		/* A second time from the server: the class may have been
		 * registered again with another layout. */
		const struct libdci_class *class =
		    libdci_class_get(handle, levels, level_count, attempt > 0);
		const struct libdci_datum *datum;
		DCIStatus status;

		if (class == NULL)
			return DCI_NOTPRESENT;
		if (datum_id == DCI_ALL)
			status = libdci_block_put(builder, class, record,
			    record_length, present, present_length, offset,
			    size);
		else if ((datum = libdci_class_datum(class, datum_id)) == NULL)
			return DCI_NOTPRESENT;
		else
			status = libdci_datum_put(builder, datum, record,
			    record_length, offset, size);
		if (status != DCI_SYSERROR)
			return status;
	}
	return DCI_SYSERROR;
}

/* The metric id of one instance entry, with the levels `output_mask`
 * selects (the DCIInstanceId's outputMask): their words alone, and its
 * inputMask saying which levels they are. Every level when the class's
 * layout cannot be had. Returns its offset in the builder. */
static size_t
instance_metric_put(DCIHandle handle, struct libdci_builder *builder,
    const uint32_t *levels, size_t level_count, uint32_t output_mask,
    const uint32_t *words, size_t word_count, DCIDatumId datum_id)
{
	const struct libdci_class *class =
	    libdci_class_get(handle, levels, level_count, false);
	uint32_t kept[DCI_INSTANCE_ID_MAX_WORDS], mask = 0;
	size_t kept_count = 0, at = 0;

	if (class == NULL || class->instance_words != word_count)
		return libdci_put_metric_id(builder, levels, level_count,
		    UINT32_MAX, output_mask, words, word_count, datum_id);
	for (uint32_t level = 0; level < class->level_count; level++) {
		size_t size = class->level_size[level] / 4;

		if (level < 32 && (output_mask & (1u << level))) {
			memcpy(kept + kept_count, words + at,
			    size * sizeof(uint32_t));
			kept_count += size;
			mask |= 1u << level;
		}
		at += size;
	}
	return libdci_put_metric_id(builder, levels, level_count, mask,
	    output_mask, kept, kept_count, datum_id);
}

/* Reads the entries of one answer into the builder; false when the
 * answer is malformed. */
static bool
entries_read(DCIHandle handle, enum routine routine,
    struct dci_protocol_reader *reader, uint32_t count,
    const struct dci_protocol_request *request, uint32_t output_mask,
    struct libdci_builder *builder)
{
	for (uint32_t i = 0; i < count && !builder->failed; i++) {
		uint32_t levels[DCI_CLASS_ID_MAX_LEVELS],
		    words[DCI_INSTANCE_ID_MAX_WORDS], status = 0, datum_id;
		size_t level_count, word_count = 0, at, offset = 0, size = 0,
		                    length;
		const unsigned char *label;

		if (routine == ROUTINE_CLASS_ATTRIBUTES) {
			struct libdci_class class;
			const struct libdci_class *kept;

			if (!libdci_class_read(reader, &class))
				return false;
			kept = class_keep(handle, &class);
			if (kept == NULL) {
				builder->failed = true;
				return true;
			}
			at = libdci_put_class_id(
			    builder, kept->id, kept->id_length);
			size = libdci_class_attr_put(builder, kept, &offset);
			libdci_builder_entry(
			    builder, DCI_SUCCESS, at, offset, size);
			continue;
		}
		if (routine == ROUTINE_GET_DATA || routine == ROUTINE_WRITE)
			status = dci_protocol_get_u32(reader);
		if (!libdci_read_class_id(reader, levels, &level_count))
			return false;
		if (routine == ROUTINE_LIST_CLASSES) {
			if (dci_protocol_get_block(
			        reader, DCI_LABEL_MAX, &length) == NULL)
				return false;
			(void)dci_protocol_get_u32(reader); /* levels */
			(void)dci_protocol_get_u32(reader); /* instances */
			if (reader->failed)
				return false;
			at = libdci_put_class_id(builder, levels, level_count);
			libdci_builder_entry(builder, DCI_SUCCESS, at, 0, 0);
			continue;
		}
		if (!libdci_read_instance_id(reader, words, &word_count))
			return false;
		if (routine == ROUTINE_LIST_INSTANCES ||
		    routine == ROUTINE_INSTANCE_ATTRIBUTES) {
			char text[DCI_LABEL_MAX + 1];

			label = dci_protocol_get_block(
			    reader, DCI_LABEL_MAX, &length);
			if (label == NULL)
				return false;
			at = instance_metric_put(handle, builder, levels,
			    level_count, output_mask, words, word_count,
			    request->datum_id);
			if (routine == ROUTINE_INSTANCE_ATTRIBUTES) {
				memcpy(text, label, length);
				text[length] = '\0';
				text[strnlen(text, length)] = '\0';
				size = inst_attr_put(builder, text, &offset);
			}
			libdci_builder_entry(
			    builder, DCI_SUCCESS, at, offset, size);
			continue;
		}
		datum_id = dci_protocol_get_u32(reader);
		if (reader->failed)
			return false;
		at = instance_metric_put(handle, builder, levels, level_count,
		    output_mask, words, word_count, datum_id);
		if (routine == ROUTINE_WRITE) {
			libdci_builder_entry(
			    builder, libdci_status(status), at, 0, 0);
			continue;
		}
		{
			size_t present_length, record_length;
			const unsigned char *present = dci_protocol_get_block(
			    reader, DCI_PROTOCOL_RESPONSE_MAX, &present_length);
			const unsigned char *record = dci_protocol_get_block(
			    reader, DCI_PROTOCOL_RESPONSE_MAX, &record_length);
			DCIStatus converted = libdci_status(status);

			if (present == NULL || record == NULL)
				return false;
			if (converted == DCI_SUCCESS)
				converted = data_put(handle, builder, levels,
				    level_count, datum_id, present,
				    present_length, record, record_length,
				    &offset, &size);
			if (converted != DCI_SUCCESS &&
			    converted != DCI_INVALIDDATAPRESENT)
				size = 0;
			libdci_builder_entry(
			    builder, converted, at, offset, size);
		}
	}
	return true;
}

static uint16_t
protocol_type(enum routine routine, UMAUint4 operation)
{
	switch (routine) {
	case ROUTINE_LIST_CLASSES:
		return DCI_PROTOCOL_LIST_CLASSES;
	case ROUTINE_CLASS_ATTRIBUTES:
		return DCI_PROTOCOL_GET_CLASS_ATTRIBUTES;
	case ROUTINE_LIST_INSTANCES:
	case ROUTINE_INSTANCE_ATTRIBUTES:
		return DCI_PROTOCOL_LIST_INSTANCES;
	case ROUTINE_GET_DATA:
		return DCI_PROTOCOL_GET_DATA;
	default:
		switch (operation) {
		case DCI_OP_SETDATA:
			return DCI_PROTOCOL_SET_DATA;
		case DCI_OP_RESERVEDATA:
			return DCI_PROTOCOL_RESERVE_DATA;
		case DCI_OP_RELEASEDATA:
			return DCI_PROTOCOL_RELEASE_DATA;
		default:
			return DCI_PROTOCOL_CONFIGURE;
		}
	}
}

/* Every routine: the list walked, one request per id, the answers laid
 * out. `by_class`: the list holds DCIClassIds, else DCIMetricIds. */
static DCIStatus
routine_run(DCIHandle handle, enum routine routine, UMAUint4 operation,
    const void *list, UMAUint4 count, DCIReturn **returnBuffer,
    UMAUint4 returnBufferSize, void **dataBuffer, UMAUint4 *dataBufferSize)
{
	bool by_class = routine == ROUTINE_LIST_CLASSES ||
	                routine == ROUTINE_CLASS_ATTRIBUTES;
	const unsigned char *id = list;
	struct libdci_builder builder;
	DCIStatus status = DCI_SUCCESS;

	if (handle == NULL || returnBuffer == NULL ||
	    (count > 0 && list == NULL) ||
	    (dataBuffer != NULL && dataBufferSize == NULL))
		return DCI_INVALIDARG;
	libdci_builder_init(&builder);
	for (UMAUint4 i = 0; i < count; i++) {
		struct dci_protocol_request request;
		struct libdci_answer_head head;
		struct dci_protocol_reader reader;
		uint32_t output_mask = UINT32_MAX;
		UMAUint4 size = ((const DCIClassId *)(const void *)id)->size;
		unsigned char *payload = NULL;
		size_t length = 0;

		status =
		    by_class
		        ? libdci_class_pattern(
		              (const DCIClassId *)(const void *)id, &request)
		        : libdci_metric_pattern(
		              (const DCIMetricId *)(const void *)id, &request);
		if (status != DCI_SUCCESS)
			break; /* the next id cannot be found */
		if (!by_class)
			output_mask = dcimetricinstanceid(
			    (const DCIMetricId *)(const void *)id)
			                  ->outputMask;
		status = libdci_call(handle, protocol_type(routine, operation),
		    &request, &payload, &length);
		if (status != DCI_SUCCESS)
			break;
		reader =
		    (struct dci_protocol_reader){payload, length, 0, false};
		if (!libdci_answer_head_read(&reader, &head)) {
			free(payload);
			status = DCI_SYSERROR;
			break;
		}
		libdci_builder_times(&builder, head.start, head.end);
		if (head.count == 0)
			input_entry(&builder,
			    head.status == DCI_PROTOCOL_SUCCESS
			        ? DCI_NOTPRESENT
			        : libdci_status(head.status),
			    id, size);
		else if (!entries_read(handle, routine, &reader, head.count,
		             &request, output_mask, &builder)) {
			free(payload);
			status = DCI_SYSERROR;
			break;
		}
		free(payload);
		id += size;
	}
	if (status == DCI_SUCCESS)
		status = libdci_builder_finish(&builder, returnBuffer,
		    returnBufferSize, dataBuffer, dataBufferSize);
	libdci_builder_free(&builder);
	return status;
}

DCIStatus
dciListClassId(DCIHandle handle, const DCIClassId *classIdList,
    UMAUint4 classIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize)
{
	return routine_run(handle, ROUTINE_LIST_CLASSES, 0, classIdList,
	    classIdCount, returnBuffer, returnBufferSize, NULL, NULL);
}

DCIStatus
dciGetClassAttributes(DCIHandle handle, const DCIClassId *classIdList,
    UMAUint4 classIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize)
{
	return routine_run(handle, ROUTINE_CLASS_ATTRIBUTES, 0, classIdList,
	    classIdCount, returnBuffer, returnBufferSize, NULL, NULL);
}

DCIStatus
dciListInstanceId(DCIHandle handle, const DCIMetricId *metricIdList,
    UMAUint4 metricIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize)
{
	return routine_run(handle, ROUTINE_LIST_INSTANCES, 0, metricIdList,
	    metricIdCount, returnBuffer, returnBufferSize, NULL, NULL);
}

DCIStatus
dciGetInstAttributes(DCIHandle handle, const DCIMetricId *metricIdList,
    UMAUint4 metricIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize)
{
	return routine_run(handle, ROUTINE_INSTANCE_ATTRIBUTES, 0, metricIdList,
	    metricIdCount, returnBuffer, returnBufferSize, NULL, NULL);
}

DCIStatus
dciGetData(DCIHandle handle, const DCIMetricId *metricIdList,
    UMAUint4 metricIdCount, DCIReturn **returnBuffer, UMAUint4 returnBufferSize,
    void **dataBuffer, UMAUint4 *dataBufferSize)
{
	return routine_run(handle, ROUTINE_GET_DATA, 0, metricIdList,
	    metricIdCount, returnBuffer, returnBufferSize, dataBuffer,
	    dataBufferSize);
}

DCIStatus
dciSetData(DCIHandle handle, UMAUint4 operation,
    const DCIMetricId *metricIdList, UMAUint4 metricIdCount, const void *data,
    UMAUint4 dataSize, DCIReturn **returnBuffer, UMAUint4 returnBufferSize)
{
	/* The values are not sent: no provider takes them
	 * (DCI_PROTOCOL_SET_DATA). */
	if ((operation != DCI_OP_SETDATA && operation != DCI_OP_RESERVEDATA &&
	        operation != DCI_OP_RELEASEDATA) ||
	    (operation != DCI_OP_RELEASEDATA &&
	        (data == NULL || dataSize == 0)))
		return DCI_INVALIDARG;
	return routine_run(handle, ROUTINE_WRITE, operation, metricIdList,
	    metricIdCount, returnBuffer, returnBufferSize, NULL, NULL);
}

DCIStatus
dciConfigure(DCIHandle handle, const DCIMetricId *metricIdList,
    UMAUint4 metricIdCount, const void *config, UMAUint4 configSize,
    DCIReturn **returnBuffer, UMAUint4 returnBufferSize)
{
	if (config == NULL || configSize == 0)
		return DCI_INVALIDARG;
	return routine_run(handle, ROUTINE_WRITE, DCI_OP_CONFIGURE,
	    metricIdList, metricIdCount, returnBuffer, returnBufferSize, NULL,
	    NULL);
}

DCIStatus
dciFree(void *buffer)
{
	if (buffer == NULL)
		return DCI_INVALIDARG;
	free(buffer);
	return DCI_SUCCESS;
}
