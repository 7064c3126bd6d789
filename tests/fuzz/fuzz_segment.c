/*
 * libFuzzer target for the supplier segment reader: any bytes, read as a
 * segment the way the suppliers provider reads one (header, classes
 * counted against the memory budget before they are copied, instances,
 * values combined over the regions with their work counted), must be
 * served or refused with a reason, without a crash, an out-of-bounds
 * read, a leak or undefined behaviour (built with ASan and UBSan), and
 * what is charged must bound what is copied and spent:
 *   - the classes' claimed charge covers what reading them charges (a
 *     class is never over the charge claimed for it);
 *   - reading an instance's values spends exactly the work
 *     segment_values_work said (nothing writes the buffer, so a read that
 *     succeeds does at the first try of each block), and a work limit is never
 * passed by more than one instance's combination.
 *
 * Two modes, chosen by the first byte:
 *   'S'  structured: the bytes after it are the choices of a valid segment
 *        built here (segment_build): many classes over shared and
 *        overlapping datum ranges, up to 1,024 thread regions, instances
 *        sharing blocks or not, every combination, strings, parents, the
 *        values and sequence words; so that the fuzzer spends its time
 *        past the header's checks, where the costs are;
 *   else raw: the bytes are the segment, the header's size field set to
 *        the input's length first, every other field the fuzzer's.
 * Built by `make fuzz` with clang alone; run by `make fuzz-run` and CI.
 */
#include "providers/suppliers/segment_reader.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bounds of what the structured mode builds, so that one input stays
 * small and fast: classes, datum records, instances, words of all the
 * regions together. */
#define BUILD_CLASSES_MAX 48u
#define BUILD_DATUMS_MAX 96u
#define BUILD_INSTANCES_MAX 256u
#define BUILD_REGION_WORDS_TOTAL (1u << 16)
/* The classes and instances the reading below looks at. */
#define READ_CLASSES_MAX 64u
#define READ_INSTANCES_MAX 4096u

/* The choices, taken from the fuzz bytes; 0 once they run out. */
struct choices {
	const uint8_t *data;
	size_t size;
	size_t at;
};

static uint32_t
take(struct choices *choices, unsigned bytes)
{
	uint32_t value = 0;

	for (unsigned b = 0; b < bytes; b++) {
		value <<= 8;
		if (choices->at < choices->size)
			value |= choices->data[choices->at++];
	}
	return value;
}

static size_t
align8(size_t value)
{
	return (value + 7) / 8 * 8;
}

/* A datum whose type fits its combination. */
static void
datum_choose(struct choices *choices, struct dcistat_segment_datum *datum,
    uint32_t id, uint32_t *word)
{
	datum->id = id;
	datum->combine = 1 + take(choices, 1) % 7;
	datum->divisor = 1 + take(choices, 1) % 3;
	datum->is_signed = take(choices, 1) & 1;
	datum->format = datum->is_signed ? 0 : DCI_SIF_UNSIGNED;
	datum->presentation = DCI_SIP_DECIMAL;
	datum->semantics = DCI_SEMANTICS_COUNTER;
	switch (datum->combine) {
	case DCISTAT_COMBINE_STRING:
		datum->type = DCI_ST_STRING;
		datum->size = 1 + take(choices, 1) % DCISTAT_SEGMENT_STRING_MAX;
		datum->semantics = DCI_SEMANTICS_DISCRETE;
		break;
	case DCISTAT_COMBINE_SHARED:
		datum->type = DCI_ST_INTEGER64;
		datum->size = 8;
		datum->semantics = DCI_SEMANTICS_GAUGE;
		break;
	default:
		datum->type =
		    take(choices, 1) & 1 ? DCI_ST_INTEGER32 : DCI_ST_INTEGER64;
		datum->size = datum->type == DCI_ST_INTEGER32 ? 4 : 8;
	}
	/* Words overlap another datum's at times. */
	if (take(choices, 1) % 8 == 0 && *word > 0)
		datum->word = take(choices, 1) % *word;
	else {
		datum->word = *word;
		*word += datum->combine == DCISTAT_COMBINE_STRING
		             ? (datum->size + 7) / 8
		         : datum->combine == DCISTAT_COMBINE_BUSY_TIME ||
		                 datum->combine == DCISTAT_COMBINE_BUSY_COUNT
		             ? 2
		             : 1;
	}
	memcpy(datum->label, "datum", 6);
}

/* Builds a valid segment from the choices; NULL when memory runs out. */
static uint64_t *
segment_build(struct choices *choices, size_t *built_size)
{
	uint32_t classes = 1 + take(choices, 1) % BUILD_CLASSES_MAX;
	uint32_t datums = 1 + take(choices, 1) % BUILD_DATUMS_MAX;
	bool shared = take(choices, 1) & 1;
	uint32_t instances = take(choices, 2) % (BUILD_INSTANCES_MAX + 1);
	uint32_t thread_regions =
	    take(choices, 2) % (SEGMENT_READER_THREAD_REGIONS_MAX + 1);
	bool shared_blocks = take(choices, 1) % 4 == 0;
	struct dcistat_segment_datum datum_records[BUILD_DATUMS_MAX];
	struct dcistat_segment_class class_records[BUILD_CLASSES_MAX];
	uint32_t class_words[BUILD_CLASSES_MAX];
	uint32_t word = 0, region_words = 1, block_words_max = 2;
	size_t class_offset, datum_offset, instance_offset, region_offset;
	size_t size;
	struct dcistat_segment_header *header;
	struct dcistat_segment_instance *instance_records;
	uint64_t *segment;

	memset(datum_records, 0, sizeof(datum_records));
	memset(class_records, 0, sizeof(class_records));
	for (uint32_t d = 0; d < datums; d++)
		datum_choose(choices, &datum_records[d], 1 + d % 40, &word);
	for (uint32_t c = 0; c < classes; c++) {
		struct dcistat_segment_class *record = &class_records[c];
		uint32_t levels = 1 + take(choices, 1) % 3;
		uint32_t end = 0;

		record->id_length = 2;
		record->id[0] = 17;
		record->id[1] = c + 1;
		record->level_count = levels;
		for (uint32_t l = 0; l < levels; l++) {
			record->level_itype[l] = DCI_ITYPE_SINGLEINST;
			record->level_size[l] = 4;
		}
		if (shared) {
			record->datum_first = 0;
			record->datum_count = datums;
		} else {
			record->datum_first = take(choices, 1) % datums;
			record->datum_count =
			    1 +
			    take(choices, 1) % (datums - record->datum_first);
		}
		for (uint32_t d = 0; d < record->datum_count; d++) {
			const struct dcistat_segment_datum *datum =
			    &datum_records[record->datum_first + d];
			uint32_t words =
			    datum->combine == DCISTAT_COMBINE_STRING
			        ? (datum->size + 7) / 8
			        : 2;
			if (datum->word + words > end)
				end = datum->word + words;
		}
		class_words[c] = end;
		if (end + 1 > block_words_max)
			block_words_max = end + 1;
		memcpy(record->label, "class", 6);
	}
	/* Blocks: one each, or all instances in the first. */
	region_words +=
	    shared_blocks ? block_words_max + 1
	                  : (instances ? instances : 1) * (block_words_max + 1);
	if ((uint64_t)(thread_regions + 1) * region_words >
	    BUILD_REGION_WORDS_TOTAL)
		thread_regions =
		    BUILD_REGION_WORDS_TOTAL / region_words > 0
		        ? BUILD_REGION_WORDS_TOTAL / region_words - 1
		        : 0;
	if ((uint64_t)(thread_regions + 1) * region_words >
	    BUILD_REGION_WORDS_TOTAL)
		instances = 0, region_words = block_words_max + 2;

	class_offset = align8(sizeof(*header));
	datum_offset =
	    align8(class_offset + classes * sizeof(class_records[0]));
	instance_offset =
	    align8(datum_offset + datums * sizeof(datum_records[0]));
	region_offset = align8(
	    instance_offset + (instances ? instances : 1) *
	                          sizeof(struct dcistat_segment_instance));
	size = region_offset + (size_t)(thread_regions + 1) * region_words * 8;
	segment = calloc(size / 8, 8);
	if (segment == NULL)
		return NULL;
	header = (struct dcistat_segment_header *)segment;
	memcpy(header->magic, DCISTAT_SEGMENT_MAGIC, 8);
	header->version = DCISTAT_SEGMENT_VERSION;
	header->byte_order_mark = DCISTAT_SEGMENT_BYTE_ORDER_MARK;
	header->segment_size = size;
	header->header_size = sizeof(*header);
	memcpy(header->module, "fuzzed", 7);
	header->number = 1 + take(choices, 1);
	header->class_capacity = classes;
	header->datum_capacity = datums;
	header->instance_capacity = instances ? instances : 1;
	header->class_offset = class_offset;
	header->datum_offset = datum_offset;
	header->instance_offset = instance_offset;
	header->region_offset = region_offset;
	header->region_words = region_words;
	header->thread_regions = thread_regions;
	header->class_count = classes;
	header->datum_count = datums;
	header->instance_high = instances;
	header->regions_in_use =
	    thread_regions ? take(choices, 2) % (thread_regions + 1) : 0;
	memcpy((unsigned char *)segment + class_offset, class_records,
	    classes * sizeof(class_records[0]));
	memcpy((unsigned char *)segment + datum_offset, datum_records,
	    datums * sizeof(datum_records[0]));
	instance_records =
	    (struct dcistat_segment_instance *)((unsigned char *)segment +
	                                        instance_offset);
	for (uint32_t i = 0; i < instances; i++) {
		struct dcistat_segment_instance *record = &instance_records[i];
		uint32_t class_index = take(choices, 1) % classes;

		record->state = take(choices, 1) % 8 ? 1 : 2;
		record->class_index = class_index;
		record->block =
		    1 + (shared_blocks ? 0 : i * (block_words_max + 1));
		record->block_words = block_words_max + 1;
		record->value_base = 1;
		record->parent = take(choices, 1) % (instances + 1);
		record->id[0] = i;
		memcpy(record->label, "instance", 9);
	}
	/* The values, sequence words included, from what the choices have
	 * left, repeated: a sequence word left unequal is a writer stopped
	 * inside an update. */
	if (choices->at < choices->size) {
		const uint8_t *values = choices->data + choices->at;
		size_t length = choices->size - choices->at;
		unsigned char *regions =
		    (unsigned char *)segment + region_offset;
		size_t bytes = (size_t)(thread_regions + 1) * region_words * 8;

		for (size_t b = 0; b < bytes; b += length)
			memcpy(regions + b, values,
			    bytes - b < length ? bytes - b : length);
	}
	*built_size = size;
	return segment;
}

/* Reads the segment at `segment` as the provider does, checking what the
 * budget says of it. */
static void
segment_read_all(const void *segment, size_t size, uint64_t work_limit)
{
	struct segment_view view;
	struct segment_class *classes;
	struct segment_scratch scratch = {0};
	struct segment_value *values;
	uint32_t class_count, high;
	uint64_t claimed = 0, charged = 0;
	char why[512];

	if (segment_view_open(segment, size, &view, why, sizeof(why)) != 0) {
		if (why[0] == '\0')
			abort(); /* a refusal says why */
		return;
	}
	class_count = segment_class_count(&view);
	if (class_count > READ_CLASSES_MAX)
		class_count = READ_CLASSES_MAX;
	classes = calloc(READ_CLASSES_MAX, sizeof(*classes));
	values = calloc(SEGMENT_READER_DATUMS_PER_CLASS_MAX, sizeof(*values));
	if (classes == NULL || values == NULL) {
		free(classes);
		free(values);
		return;
	}
	for (uint32_t c = 0; c < class_count; c++)
		claimed += segment_class_claimed_bytes(&view, c);
	for (uint32_t c = 0; c < class_count; c++) {
		bool over;
		if (segment_class_read_within(&view, c, claimed - charged,
		        &classes[c], &over, why, sizeof(why)) != 0) {
			if (why[0] == '\0' || over)
				abort(); /* the claim did not cover the read */
			continue;
		}
		charged += classes[c].memory_bytes;
	}
	high = segment_instance_high(&view);
	scratch.work_limit = work_limit;
	for (uint32_t i = 0; i < high && i < READ_INSTANCES_MAX; i++) {
		struct segment_instance instance;
		uint64_t expected, before;
		uint64_t combine;
		const struct segment_class *copy;

		if (segment_instance_read(&view, i, classes, class_count,
		        &instance, why, sizeof(why)) != 1)
			continue;
		copy = &classes[instance.class_index];
		expected =
		    segment_values_work(&view, copy, &instance, &scratch);
		combine = (uint64_t)copy->region_datums *
		              (segment_regions_in_use(&view) + 1) +
		          (copy->datum_count - copy->region_datums);
		before = scratch.work;
		/* Nothing writes here: a read that succeeds does so at the
		 * first try of each block, which is what was foretold. */
		if (segment_values_read(&view, copy, &instance, 1000000,
		        &scratch, values) == 0 &&
		    scratch.work - before != expected)
			abort();
		if (work_limit != 0 && scratch.work > work_limit + combine)
			abort(); /* past the limit */
		if (work_limit != 0 && scratch.work >= work_limit)
			break;
	}
	for (uint32_t c = 0; c < class_count; c++)
		segment_class_clear(&classes[c]);
	segment_scratch_clear(&scratch);
	free(classes);
	free(values);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t *segment;

	if (size > 0 && data[0] == 'S') {
		struct choices choices = {.data = data + 1, .size = size - 1};
		uint64_t work_limit =
		    take(&choices, 1) % 2 ? take(&choices, 3) : 0;
		size_t built_size = 0;

		segment = segment_build(&choices, &built_size);
		if (segment != NULL) {
			struct segment_view view;
			char why[512];
			/* What is built is a valid segment. */
			if (segment_view_open(segment, built_size, &view, why,
			        sizeof(why)) != 0)
				abort();
			segment_read_all(segment, built_size, work_limit);
		}
		free(segment);
		return 0;
	}
	/* The provider maps segments, which are page-aligned; the reader
	 * relies on the alignment of the offsets it checks. */
	segment = malloc(size + 8);
	if (segment == NULL)
		return 0;
	memcpy(segment, data, size);
	if (size >= sizeof(struct dcistat_segment_header))
		((struct dcistat_segment_header *)segment)->segment_size = size;
	segment_read_all(segment, size, 0);
	free(segment);
	return 0;
}
