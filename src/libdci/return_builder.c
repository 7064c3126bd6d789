/* The DCIReturn being built and its buffer modes (libdci_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "libdci/libdci_internal.h"

/* A DCIReturn's sizes and offsets are UMAUint4. */
#define LIBDCI_RETURN_MAX UINT32_MAX

void
libdci_builder_init(struct libdci_builder *builder)
{
	memset(builder, 0, sizeof(*builder));
}

void
libdci_builder_free(struct libdci_builder *builder)
{
	free(builder->entries);
	free(builder->metrics);
	free(builder->data);
	libdci_builder_init(builder);
}

/* Makes room for `more` bytes after *length in *bytes; *bytes is a buffer
 * afterwards even when `more` is 0, so a caller may point into it. */
static bool
grow(struct libdci_builder *builder, unsigned char **bytes, size_t *length,
    size_t *capacity, size_t more)
{
	size_t wanted;

	if (builder->failed)
		return false;
	if (more > LIBDCI_RETURN_MAX - *length) {
		builder->failed = true;
		return false;
	}
	wanted = *length + more;
	if (wanted > *capacity || *bytes == NULL) {
		size_t next = *capacity < 256 ? 256 : *capacity;
		unsigned char *grown;

		while (next < wanted)
			next *= 2;
		grown = realloc(*bytes, next);
		if (grown == NULL) {
			builder->failed = true;
			return false;
		}
		*bytes = grown;
		*capacity = next;
	}
	return true;
}

size_t
libdci_builder_metric(
    struct libdci_builder *builder, const void *bytes, size_t length)
{
	size_t offset = builder->metrics_length;

	if (!grow(builder, &builder->metrics, &builder->metrics_length,
	        &builder->metrics_capacity, length))
		return SIZE_MAX;
	memcpy(builder->metrics + offset, bytes, length);
	builder->metrics_length += length;
	return offset;
}

unsigned char *
libdci_builder_data_room(
    struct libdci_builder *builder, size_t length, size_t *offset)
{
	unsigned char *at;

	if (!grow(builder, &builder->data, &builder->data_length,
	        &builder->data_capacity, length))
		return NULL;
	*offset = builder->data_length;
	at = builder->data + builder->data_length;
	memset(at, 0, length);
	builder->data_length += length;
	return at;
}

size_t
libdci_builder_data(
    struct libdci_builder *builder, const void *bytes, size_t length)
{
	size_t offset;
	unsigned char *at = libdci_builder_data_room(builder, length, &offset);

	if (at == NULL)
		return SIZE_MAX;
	if (length > 0)
		memcpy(at, bytes, length);
	return offset;
}

void
libdci_builder_entry(struct libdci_builder *builder, DCIStatus status,
    size_t metric_offset, size_t data_offset, size_t data_size)
{
	if (builder->failed)
		return;
	if (builder->count == builder->capacity) {
		size_t next =
		    builder->capacity == 0 ? 16 : builder->capacity * 2;
		struct libdci_entry *grown;

		if (next > (LIBDCI_RETURN_MAX - DCI_RETURN_HEADER_SIZE) /
		               sizeof(DCIRetval) ||
		    (grown = realloc(
		         builder->entries, next * sizeof(*grown))) == NULL) {
			builder->failed = true;
			return;
		}
		builder->entries = grown;
		builder->capacity = next;
	}
	builder->entries[builder->count++] = (struct libdci_entry){
	    status, metric_offset, data_size == 0 ? 0 : data_offset, data_size};
}

void
libdci_builder_times(
    struct libdci_builder *builder, uint64_t start, uint64_t end)
{
	if (builder->start == 0 || (start != 0 && start < builder->start))
		builder->start = start;
	if (end > builder->end)
		builder->end = end;
}

DCIStatus
libdci_builder_summary(const struct libdci_builder *builder)
{
	DCIStatus summary = DCI_SUCCESS;

	if (builder->summary_set)
		return builder->summary;
	if (builder->count == 0)
		return DCI_NOTPRESENT;
	for (size_t i = 0; i < builder->count; i++) {
		DCIStatus status = builder->entries[i].status;

		if (status == DCI_SUCCESS)
			continue;
		if (status != DCI_INVALIDDATAPRESENT)
			return status;
		summary = status;
	}
	return summary;
}

static UMATimeSpec
timespec_of(uint64_t nanoseconds)
{
	UMATimeSpec time = {(UMAUint4)(nanoseconds / 1000000000u),
	    (UMAUint4)(nanoseconds % 1000000000u)};

	return time;
}

/* Writes a DCIReturn head at `at`. */
static void
head_write(unsigned char *at, UMAUint4 size, UMAUint4 count, DCIStatus summary,
    uint64_t start, uint64_t end)
{
	DCIReturn head;

	head.size = size;
	head.count = count;
	head.sumstatus = summary;
	head.startTime = timespec_of(start);
	head.endTime = timespec_of(end);
	memcpy(at, &head, DCI_RETURN_HEADER_SIZE);
}

/* Where the caller's buffer is, or a new one of `size` bytes. */
static DCIStatus
buffer_take(void **buffer, size_t available, size_t size, bool *allocated)
{
	*allocated = false;
	if (*buffer != NULL)
		return size <= available ? DCI_SUCCESS : DCI_BUFFERTOOSMALL;
	*buffer = malloc(size == 0 ? 4 : size);
	if (*buffer == NULL)
		return DCI_ALLOCATIONFAILURE;
	*allocated = true;
	return DCI_SUCCESS;
}

DCIStatus
libdci_builder_finish(struct libdci_builder *builder, DCIReturn **return_buffer,
    UMAUint4 return_buffer_size, void **data_buffer, UMAUint4 *data_buffer_size)
{
	DCIStatus status = libdci_builder_layout(builder, return_buffer,
	    return_buffer_size, data_buffer, data_buffer_size);

	return status == DCI_SUCCESS ? libdci_builder_summary(builder) : status;
}

DCIStatus
libdci_builder_layout(struct libdci_builder *builder, DCIReturn **return_buffer,
    UMAUint4 return_buffer_size, void **data_buffer, UMAUint4 *data_buffer_size)
{
	bool split = data_buffer != NULL, status_allocated, data_allocated;
	size_t retvals = builder->count * sizeof(DCIRetval);
	size_t status_size =
	    DCI_RETURN_HEADER_SIZE + retvals + builder->metrics_length;
	size_t total = status_size + (split ? 0 : builder->data_length);
	DCIStatus summary = libdci_builder_summary(builder), status;
	unsigned char *out;
	void *status_memory;

	if (return_buffer == NULL || (split && data_buffer_size == NULL))
		return DCI_INVALIDARG;
	if (builder->failed || total > LIBDCI_RETURN_MAX)
		return DCI_ALLOCATIONFAILURE;
	status_memory = *return_buffer;
	status = buffer_take(
	    &status_memory, return_buffer_size, total, &status_allocated);
	if (status == DCI_BUFFERTOOSMALL &&
	    return_buffer_size >= DCI_RETURN_HEADER_SIZE)
		/* What would be needed, for the caller to try again. */
		head_write(status_memory, (UMAUint4)total, 0,
		    DCI_BUFFERTOOSMALL, builder->start, builder->end);
	if (status != DCI_SUCCESS)
		return status;
	if (split) {
		void *data_memory = *data_buffer;

		status = buffer_take(&data_memory, *data_buffer_size,
		    builder->data_length, &data_allocated);
		if (status != DCI_SUCCESS) {
			if (status_allocated)
				free(status_memory);
			return status;
		}
		if (builder->data_length > 0)
			memcpy(
			    data_memory, builder->data, builder->data_length);
		*data_buffer = data_memory;
		*data_buffer_size = (UMAUint4)builder->data_length;
	}
	out = status_memory;
	head_write(out, (UMAUint4)total, (UMAUint4)builder->count, summary,
	    builder->start, builder->end);
	for (size_t i = 0; i < builder->count; i++) {
		const struct libdci_entry *entry = &builder->entries[i];
		size_t data_base = split ? 0
		                         : DCI_RETURN_HEADER_SIZE + retvals +
		                               builder->metrics_length;
		DCIRetval retval = {entry->status,
		    (UMAUint4)(DCI_RETURN_HEADER_SIZE + retvals +
		               entry->metric_offset),
		    entry->data_size == 0
		        ? 0
		        : (UMAUint4)(data_base + entry->data_offset),
		    (UMAUint4)entry->data_size};

		memcpy(out + DCI_RETURN_HEADER_SIZE + i * sizeof(DCIRetval),
		    &retval, sizeof(retval));
	}
	if (builder->metrics_length > 0)
		memcpy(out + DCI_RETURN_HEADER_SIZE + retvals, builder->metrics,
		    builder->metrics_length);
	if (!split && builder->data_length > 0)
		memcpy(out + status_size, builder->data, builder->data_length);
	*return_buffer = status_memory;
	return DCI_SUCCESS;
}

size_t
libdci_put_class_id(
    struct libdci_builder *builder, const uint32_t *levels, size_t level_count)
{
	uint32_t words[1 + DCI_CLASS_ID_MAX_LEVELS];

	words[0] = (uint32_t)(4 + 4 * level_count);
	if (level_count > 0)
		memcpy(words + 1, levels, level_count * sizeof(uint32_t));
	return libdci_builder_metric(builder, words, words[0]);
}

size_t
libdci_put_metric_id(struct libdci_builder *builder, const uint32_t *levels,
    size_t level_count, uint32_t input_mask, uint32_t output_mask,
    const uint32_t *words, size_t word_count, DCIDatumId datum_id)
{
	/* DCIMetricId's fixed part, the DCIClassId, the DCIInstanceId. */
	uint32_t metric[6 + 1 + DCI_CLASS_ID_MAX_LEVELS + 3 +
	                DCI_INSTANCE_ID_MAX_WORDS];
	size_t class_size = 4 + 4 * level_count;
	size_t instance_size = 12 + 4 * word_count, at = 6;

	metric[0] = (uint32_t)(24 + class_size + instance_size);
	metric[1] = 24;
	metric[2] = (uint32_t)class_size;
	metric[3] = (uint32_t)(24 + class_size);
	metric[4] = (uint32_t)instance_size;
	metric[5] = datum_id;
	metric[at++] = (uint32_t)class_size;
	memcpy(metric + at, levels, level_count * sizeof(uint32_t));
	at += level_count;
	metric[at++] = (uint32_t)instance_size;
	metric[at++] = input_mask;
	metric[at++] = output_mask;
	if (word_count > 0)
		memcpy(metric + at, words, word_count * sizeof(uint32_t));
	return libdci_builder_metric(builder, metric, metric[0]);
}
