/*
 * libdci, providers: dciAddInstance, dciRemoveInstance, dciPostData
 * (DCI_STORE: the posted values are copied into the segment) and
 * dciDatumAddress (DCI_ADDRESS: the provider updates the value in the
 * segment itself). A post is checked whole before anything is written:
 * it is applied entirely or not at all.
 */
#include "libdci/provider_internal.h"

#include <stdlib.h>
#include <string.h>

#define METRIC_FIXED_SIZE ((size_t)offsetof(DCIMetricId, data))
#define INSTANCE_FIXED_SIZE ((size_t)offsetof(DCIInstanceId, data))
#define INST_ATTR_FIXED_SIZE ((size_t)offsetof(DCIInstAttr, data))
/* The most entries one dciPostData takes. */
#define POST_ENTRIES_MAX 65536u

_Static_assert(DCI_PROVIDER_CLASS_ARC == DCISTAT_SUPPLIER_CLASS_ARC,
    "<dci.h>'s provider class arc differs from the supplier library's");
_Static_assert(DCI_PROVIDER_CLASS_FIRST == DCISTAT_CLASS_FIRST_GENERIC,
    "<dci.h>'s first provider class differs from the supplier library's");

DCIStatus
libdci_provider_metric(DCIProviderHandle handle, const DCIMetricId *metric,
    size_t bound, struct libdci_provider_class **class, uint32_t *instance_id,
    size_t *instance_words)
{
	const unsigned char *bytes = (const unsigned char *)metric;
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
	size_t id_length;
	DCIInstanceId instance;
	DCIStatus status;

	if (bound < METRIC_FIXED_SIZE || metric->size > bound ||
	    metric->size < METRIC_FIXED_SIZE ||
	    metric->classId.offset > metric->size ||
	    metric->classId.size > metric->size - metric->classId.offset ||
	    metric->instanceId.offset > metric->size ||
	    metric->instanceId.size >
	        metric->size - metric->instanceId.offset ||
	    metric->classId.offset % 4 != 0 ||
	    metric->instanceId.offset % 4 != 0 ||
	    metric->instanceId.size < INSTANCE_FIXED_SIZE)
		return DCI_INVALIDARG;
	status = libdci_provider_class_id(
	    dcimetricclassid(metric), metric->classId.size, id, &id_length);
	if (status != DCI_SUCCESS)
		return status;
	memcpy(
	    &instance, bytes + metric->instanceId.offset, INSTANCE_FIXED_SIZE);
	if (instance.size != metric->instanceId.size || instance.size % 4 != 0)
		return DCI_INVALIDARG;
	*class = libdci_provider_class_find(handle, id, id_length);
	if (*class == NULL)
		return DCI_NOTPRESENT;
	/* A provider names every level: no instance wildcard. */
	if (instance.inputMask != (UINT32_C(1) << (*class)->level_count) - 1 ||
	    dciinstanceidwords(&instance) != (*class)->id_words)
		return DCI_INVALIDARG;
	memcpy(instance_id,
	    bytes + metric->instanceId.offset + INSTANCE_FIXED_SIZE,
	    (*class)->id_words * 4);
	*instance_words = (*class)->id_words;
	return DCI_SUCCESS;
}

static struct libdci_provider_instance *
instance_find(
    const struct libdci_provider_class *class, const uint32_t *id, size_t words)
{
	for (struct libdci_provider_instance *i = class->instances; i != NULL;
	     i = i->next)
		if (i->id_words == words &&
		    memcmp(i->id, id, words * sizeof(*id)) == 0)
			return i;
	return NULL;
}

/* --- values -------------------------------------------------------------- */

/* The text of a string datum's value at `at` (`room` bytes from its offset
 * to the block's end), within its slot and its capacity: false when it is
 * malformed or longer. */
static bool
value_text(const struct libdci_provider_datum *datum, const unsigned char *at,
    size_t room, char *text)
{
	return libdci_provider_text(at, room < datum->room ? room : datum->room,
	    text, datum->text_capacity);
}

/* Checks one datum's value at `at` (`room` bytes from its offset to the
 * block's end): DCI_SUCCESS when it can be stored. */
static DCIStatus
value_check(const struct libdci_provider_datum *datum, const unsigned char *at,
    size_t room)
{
	char text[DCISTAT_SUPPLIER_STRING_MAX];
	UMAUint4 word;

	if (room < datum->fixed_size)
		return DCI_INVALIDARG;
	if (datum->segment_index < 0) {
		/* Segments hold no invalid values: only "every datum is
		 * valid" can be posted. */
		memcpy(&word, at, 4);
		return word == 0 ? DCI_SUCCESS : DCI_NOIMPLEMENTATION;
	}
	if (datum->uma_type == UMA_TEXTSTRING &&
	    !value_text(datum, at, room, text))
		return DCI_INVALIDARG;
	return DCI_SUCCESS;
}

/* Stores one checked value into the instance's segment values. */
static void
value_store(struct libdci_provider_class *class,
    struct libdci_provider_instance *instance, size_t d,
    const unsigned char *at, size_t room)
{
	const struct libdci_provider_datum *datum = &class->datums[d];
	struct dcistat_instance *target = instance->segment_instance;
	uint64_t value = 0;

	switch (datum->uma_type) {
	case UMA_INT4: {
		int32_t signed_value;

		memcpy(&signed_value, at, 4);
		value = (uint64_t)(int64_t)signed_value;
		break;
	}
	case UMA_UINT4:
	case UMA_BOOLEAN: {
		uint32_t word;

		memcpy(&word, at, 4);
		value = datum->uma_type == UMA_BOOLEAN ? word != 0 : word;
		break;
	}
	case UMA_INT8:
	case UMA_UINT8:
		memcpy(&value, at, 8);
		break;
	case UMA_TIMESPEC: {
		UMATimeSpec time;

		/* Whole seconds: a DCI4 ctime has no fraction. */
		memcpy(&time, at, sizeof(time));
		value = time.tv_sec;
		break;
	}
	case UMA_TEXTSTRING: {
		char text[DCISTAT_SUPPLIER_STRING_MAX];

		if (value_text(datum, at, room, text))
			dcistat_value_set_string(
			    target, datum->segment_index, text);
		return;
	}
	default:
		return;
	}
	if (datum->is_counter) {
		/* Counters are only added to: the difference from the last
		 * post, modulo 2^64, so the sum is the posted value. */
		dcistat_value_add(
		    target, datum->segment_index, value - instance->posted[d]);
		instance->posted[d] = value;
	} else {
		dcistat_value_set(target, datum->segment_index, value);
	}
}

/* The datum of `class` with id `datum_id`, or NULL. */
static const struct libdci_provider_datum *
datum_find(const struct libdci_provider_class *class, DCIDatumId datum_id,
    size_t *index)
{
	for (size_t d = 0; d < class->datum_count; d++)
		if (class->datums[d].id == datum_id) {
			*index = d;
			return &class->datums[d];
		}
	return NULL;
}

/* A whole class data block: every datum at its offset. */
static DCIStatus
block_check(const struct libdci_provider_class *class,
    const unsigned char *block, size_t size)
{
	if (block == NULL || size < class->block_size)
		return DCI_INVALIDARG;
	for (size_t d = 0; d < class->datum_count; d++) {
		const struct libdci_provider_datum *datum = &class->datums[d];
		DCIStatus status = value_check(
		    datum, block + datum->offset, size - datum->offset);

		if (status != DCI_SUCCESS)
			return status;
	}
	return DCI_SUCCESS;
}

static void
block_store(struct libdci_provider_class *class,
    struct libdci_provider_instance *instance, const unsigned char *block,
    size_t size)
{
	for (size_t d = 0; d < class->datum_count; d++)
		if (class->datums[d].segment_index >= 0)
			value_store(class, instance, d,
			    block + class->datums[d].offset,
			    size - class->datums[d].offset);
}

/* --- instances ----------------------------------------------------------- */

/* The instance method: none is the class's. */
static DCIStatus
instance_method(
    const DCIMethod *method, DCIMethodType class_method, DCIMethodType *out)
{
	*out = class_method;
	if (method == NULL)
		return DCI_SUCCESS;
	if (method->size < LIBDCI_METHOD_FIXED_SIZE || method->size % 4 != 0)
		return DCI_INVALIDARG;
	return libdci_provider_method_type(method->type, out);
}

static DCIStatus
add_locked(DCIProviderHandle handle, const DCIMetricId *metricId,
    const DCIInstAttr *instAttr, const DCIMethod *method, const void *data,
    UMAUint4 dataSize)
{
	struct libdci_provider_class *class;
	struct libdci_provider_instance *instance;
	uint32_t id[DCI_INSTANCE_ID_MAX_WORDS];
	size_t words;
	char label[DCI_LABEL_MAX + 1];
	DCIMethodType type;
	DCIStatus status;

	status = libdci_provider_metric(
	    handle, metricId, metricId->size, &class, id, &words);
	if (status != DCI_SUCCESS)
		return status;
	if (instAttr->size < INST_ATTR_FIXED_SIZE ||
	    !libdci_provider_label((const unsigned char *)instAttr,
	        instAttr->size, &instAttr->label, label, sizeof(label)) ||
	    label[0] == '\0')
		return DCI_INVALIDARG;
	status = instance_method(method, class->method, &type);
	if (status != DCI_SUCCESS)
		return status;
	if (type == DCI_ADDRESS && class->has_text)
		return DCI_METHODOPUNAVAILABLE;
	/* DCI_STORE: the initial value of every datum comes with it. */
	if (type == DCI_STORE) {
		status = block_check(class, data, dataSize);
		if (status != DCI_SUCCESS)
			return status;
	}
	if (instance_find(class, id, words) != NULL)
		return DCI_INVALIDARG;
	instance = calloc(1, sizeof(*instance));
	if (instance != NULL)
		instance->posted =
		    calloc(class->datum_count, sizeof(*instance->posted));
	if (instance == NULL || instance->posted == NULL) {
		free(instance);
		return DCI_ALLOCATIONFAILURE;
	}
	memcpy(instance->id, id, words * sizeof(*id));
	instance->id_words = words;
	instance->method = type;
	instance->segment_instance =
	    dcistat_instance_add(class->segment_class, id, words, label);
	if (instance->segment_instance == NULL) {
		libdci_provider_instance_free(instance);
		return DCI_ALLOCATIONFAILURE;
	}
	if (type == DCI_STORE)
		block_store(class, instance, data, dataSize);
	instance->next = class->instances;
	class->instances = instance;
	return DCI_SUCCESS;
}

__attribute__((visibility("default"))) DCIStatus
dciAddInstance(DCIProviderHandle handle, const DCIMetricId *metricId,
    const DCIInstAttr *instAttr, const DCIMethod *method, const void *data,
    UMAUint4 dataSize)
{
	DCIStatus status;

	if (handle == NULL || metricId == NULL || instAttr == NULL)
		return DCI_INVALIDARG;
	pthread_mutex_lock(&handle->lock);
	status = add_locked(handle, metricId, instAttr, method, data, dataSize);
	pthread_mutex_unlock(&handle->lock);
	return status;
}

__attribute__((visibility("default"))) DCIStatus
dciRemoveInstance(DCIProviderHandle handle, const DCIMetricId *metricId)
{
	struct libdci_provider_class *class;
	struct libdci_provider_instance **link;
	uint32_t id[DCI_INSTANCE_ID_MAX_WORDS];
	size_t words;
	DCIStatus status;

	if (handle == NULL || metricId == NULL)
		return DCI_INVALIDARG;
	pthread_mutex_lock(&handle->lock);
	status = libdci_provider_metric(
	    handle, metricId, metricId->size, &class, id, &words);
	if (status == DCI_SUCCESS) {
		status = DCI_NOTPRESENT;
		for (link = &class->instances; *link != NULL;
		     link = &(*link)->next) {
			struct libdci_provider_instance *instance = *link;

			if (instance->id_words == words &&
			    memcmp(instance->id, id, words * sizeof(*id)) ==
			        0) {
				*link = instance->next;
				libdci_provider_instance_free(instance);
				status = DCI_SUCCESS;
				break;
			}
		}
	}
	pthread_mutex_unlock(&handle->lock);
	return status;
}

/* --- posted data --------------------------------------------------------- */

/* One entry of a post, resolved. */
struct post_entry {
	struct libdci_provider_class *class;
	struct libdci_provider_instance *instance;
	const unsigned char *data;
	size_t size;
	bool whole_block;
	size_t datum_index;
};

static DCIStatus
post_entry_read(DCIProviderHandle handle, const DCIReturn *post,
    const unsigned char *base, size_t base_size, UMAUint4 i,
    struct post_entry *entry)
{
	const DCIRetval *retval = &post->retval[i];
	const DCIMetricId *metric;
	uint32_t id[DCI_INSTANCE_ID_MAX_WORDS];
	size_t words;
	DCIStatus status;

	if (retval->metricOffset % 4 != 0 ||
	    retval->metricOffset > post->size ||
	    post->size - retval->metricOffset < METRIC_FIXED_SIZE ||
	    retval->dataOffset > base_size ||
	    retval->dataSize > base_size - retval->dataOffset)
		return DCI_INVALIDARG;
	metric = (const DCIMetricId *)((const unsigned char *)post +
	                               retval->metricOffset);
	status = libdci_provider_metric(handle, metric,
	    post->size - retval->metricOffset, &entry->class, id, &words);
	if (status != DCI_SUCCESS)
		return status;
	entry->instance = instance_find(entry->class, id, words);
	if (entry->instance == NULL)
		return DCI_NOTPRESENT;
	if (entry->instance->method != DCI_STORE)
		return DCI_METHODOPUNAVAILABLE; /* DCI_ADDRESS: in place */
	entry->data = base + retval->dataOffset;
	entry->size = retval->dataSize;
	entry->whole_block = metric->datumId == DCI_ALL;
	if (entry->whole_block)
		return block_check(entry->class, entry->data, entry->size);
	if (datum_find(entry->class, metric->datumId, &entry->datum_index) ==
	    NULL)
		return DCI_NOTPRESENT;
	return value_check(&entry->class->datums[entry->datum_index],
	    entry->data, entry->size);
}

__attribute__((visibility("default"))) DCIStatus
dciPostData(DCIProviderHandle handle, UMAUint4 operation, const DCIReturn *post,
    const void *dataBuffer, UMAUint4 dataBufferSize)
{
	const unsigned char *base;
	size_t base_size;
	struct post_entry *entries;
	DCIStatus status = DCI_SUCCESS;

	if (handle == NULL || post == NULL ||
	    post->size < DCI_RETURN_HEADER_SIZE || post->count == 0 ||
	    post->count > POST_ENTRIES_MAX ||
	    (post->size - DCI_RETURN_HEADER_SIZE) / sizeof(DCIRetval) <
	        post->count)
		return DCI_INVALIDARG;
	switch (operation) {
	case DCI_OP_GETDATA:
		break;
	case DCI_OP_CONFIGURE:
	case DCI_OP_LISTINSTANCES:
	case DCI_OP_GETINSTATTR:
	case DCI_OP_SETDATA:
	case DCI_OP_RESERVEDATA:
	case DCI_OP_RELEASEDATA:
		return DCI_METHODOPUNAVAILABLE;
	default:
		return DCI_INVALIDARG;
	}
	/* The data apart, or in the DCIReturn after its entries. */
	base = dataBuffer != NULL ? dataBuffer : (const unsigned char *)post;
	base_size = dataBuffer != NULL ? dataBufferSize : post->size;
	entries = calloc(post->count, sizeof(*entries));
	if (entries == NULL)
		return DCI_ALLOCATIONFAILURE;
	pthread_mutex_lock(&handle->lock);
	for (UMAUint4 i = 0; i < post->count && status == DCI_SUCCESS; i++)
		status = post_entry_read(
		    handle, post, base, base_size, i, &entries[i]);
	if (status == DCI_SUCCESS)
		for (UMAUint4 i = 0; i < post->count; i++) {
			struct post_entry *entry = &entries[i];

			if (entry->whole_block)
				block_store(entry->class, entry->instance,
				    entry->data, entry->size);
			else
				value_store(entry->class, entry->instance,
				    entry->datum_index, entry->data,
				    entry->size);
		}
	pthread_mutex_unlock(&handle->lock);
	free(entries);
	return status;
}

__attribute__((visibility("default"))) DCIStatus
dciDatumAddress(
    DCIProviderHandle handle, const DCIMetricId *metricId, UMAUint8 **address)
{
	struct libdci_provider_class *class;
	struct libdci_provider_instance *instance;
	const struct libdci_provider_datum *datum;
	uint32_t id[DCI_INSTANCE_ID_MAX_WORDS];
	size_t words, index;
	DCIStatus status;

	if (handle == NULL || metricId == NULL || address == NULL)
		return DCI_INVALIDARG;
	*address = NULL;
	pthread_mutex_lock(&handle->lock);
	status = libdci_provider_metric(
	    handle, metricId, metricId->size, &class, id, &words);
	if (status == DCI_SUCCESS) {
		instance = instance_find(class, id, words);
		datum = datum_find(class, metricId->datumId, &index);
		if (instance == NULL || datum == NULL ||
		    datum->segment_index < 0)
			status = DCI_NOTPRESENT;
		else if (instance->method != DCI_ADDRESS)
			status = DCI_METHODOPUNAVAILABLE;
		else
			*address = dcistat_value_address(
			    instance->segment_instance, datum->segment_index);
		if (status == DCI_SUCCESS && *address == NULL)
			status = DCI_SYSERROR;
	}
	pthread_mutex_unlock(&handle->lock);
	return status;
}
