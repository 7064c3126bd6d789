/*
 * libFuzzer target for the supplier segment reader: any bytes, read as a
 * segment the way the suppliers provider reads one (header, classes,
 * instances, values combined over the regions), must be served or refused
 * with a reason, without a crash, an out-of-bounds read, a leak or
 * undefined behaviour (built with ASan and UBSan).
 *
 * The header's size field is set to the input's length first, so that the
 * fuzzer reaches past the first check; every other field stays the
 * fuzzer's. Built by `make fuzz` with clang alone; run by `make fuzz-run`
 * and CI.
 */
#include "providers/suppliers/segment_reader.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The provider maps segments, which are page-aligned; the reader
	 * relies on the alignment of the offsets it checks. */
	uint64_t *segment = malloc(size + 8);
	struct segment_view view;
	struct segment_class classes[16];
	struct segment_scratch scratch = {0};
	struct segment_value *values = NULL;
	uint32_t class_count, high;
	char why[512];

	if (segment == NULL)
		return 0;
	memcpy(segment, data, size);
	if (size >= sizeof(struct dcistat_segment_header))
		((struct dcistat_segment_header *)segment)->segment_size = size;
	if (segment_view_open(segment, size, &view, why, sizeof(why)) != 0) {
		if (why[0] == '\0')
			abort(); /* a refusal says why */
		free(segment);
		return 0;
	}
	class_count = segment_class_count(&view);
	if (class_count > 16)
		class_count = 16;
	memset(classes, 0, sizeof(classes));
	for (uint32_t c = 0; c < class_count; c++) {
		if (segment_class_read(&view, c, &classes[c], why, sizeof(why)) !=
		        0 &&
		    why[0] == '\0')
			abort();
	}
	values = calloc(SEGMENT_READER_DATUMS_PER_CLASS_MAX, sizeof(*values));
	high = segment_instance_high(&view);
	for (uint32_t i = 0; values != NULL && i < high && i < 4096; i++) {
		struct segment_instance instance;
		if (segment_instance_read(&view, i, classes, class_count,
		        &instance, why, sizeof(why)) != 1)
			continue;
		segment_values_read(&view, &classes[instance.class_index],
		    &instance, 1000000, &scratch, values);
	}
	for (uint32_t c = 0; c < class_count; c++)
		segment_class_clear(&classes[c]);
	segment_scratch_clear(&scratch);
	free(values);
	free(segment);
	return 0;
}
