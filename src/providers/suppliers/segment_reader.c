#define _GNU_SOURCE

#include "segment_reader.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/tdigest.h"
#include "text/escape.h"

/* A label the segment holds, in a refusal that is logged: quoted escaped
 * (text/escape.h), cut to a short quote. */
#define SEGMENT_QUOTED_SIZE 96
#define SEGMENT_QUOTE(label)                                                   \
	dci_text_quote(                                                        \
	    (char[SEGMENT_QUOTED_SIZE]){0}, SEGMENT_QUOTED_SIZE, (label))

static int
refuse(char *why, size_t why_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int
refuse(char *why, size_t why_size, const char *format, ...)
{
	va_list arguments;

	va_start(arguments, format);
	vsnprintf(why, why_size, format, arguments);
	va_end(arguments);
	return -1;
}

/* Copies `size` bytes that a writer may change at any time: the copy is
 * what gets checked and used, never the source. */
static void
copy_shared(void *to, const void *from, size_t size)
{
	memcpy(to, from, size);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

static uint32_t
load32(const void *address)
{
	return __atomic_load_n((const uint32_t *)address, __ATOMIC_ACQUIRE);
}

static uint64_t
load64(const void *address)
{
	return __atomic_load_n((const uint64_t *)address, __ATOMIC_RELAXED);
}

/* A text field holds its NUL. */
static bool
text_ok(const char *text, size_t size)
{
	return memchr(text, '\0', size) != NULL;
}

static bool
table_fits(uint64_t offset, uint64_t count, uint64_t record, size_t size)
{
	return offset % 8 == 0 && offset <= size &&
	       count <= (size - offset) / record;
}

int
segment_view_open(const void *base, size_t size, struct segment_view *view,
    char *why, size_t why_size)
{
	struct dcistat_segment_header header;

	memset(view, 0, sizeof(*view));
	if (size < sizeof(header))
		return refuse(why, why_size,
		    "%zu bytes, shorter than a segment header (%zu)", size,
		    sizeof(header));
	copy_shared(&header, base, sizeof(header));
	if (memcmp(header.magic, DCISTAT_SEGMENT_MAGIC, 8) != 0)
		return refuse(why, why_size, "not a dcistat segment (magic)");
	if (header.byte_order_mark != DCISTAT_SEGMENT_BYTE_ORDER_MARK)
		return refuse(why, why_size,
		    "written in another byte order than dcistatd's");
	if (header.version < DCISTAT_SEGMENT_VERSION_OLDEST ||
	    header.version > DCISTAT_SEGMENT_VERSION)
		return refuse(why, why_size,
		    "format version %u, dcistatd reads %u to %u",
		    header.version, DCISTAT_SEGMENT_VERSION_OLDEST,
		    DCISTAT_SEGMENT_VERSION);
	if (header.header_size != sizeof(header))
		return refuse(why, why_size, "header of %u bytes, not %zu",
		    header.header_size, sizeof(header));
	if (header.segment_size != size)
		return refuse(why, why_size,
		    "the file has %zu bytes, the header says %llu", size,
		    (unsigned long long)header.segment_size);
	if (!text_ok(header.module, sizeof(header.module)) ||
	    !text_ok(header.title, sizeof(header.title)) ||
	    !text_ok(header.description, sizeof(header.description)))
		return refuse(
		    why, why_size, "module, title or description has no NUL");
	if (header.module[0] == '\0')
		return refuse(why, why_size, "no module name");
	for (const char *c = header.module; *c != '\0'; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		        (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
			return refuse(why, why_size,
			    "module name has a character other than letters, "
			    "digits, '_' and '-'");
	}
	if (header.number == 0 || header.number == UINT32_MAX)
		return refuse(why, why_size, "supplier number %u",
		    header.number);
	if (header.class_capacity > SEGMENT_READER_CLASSES_MAX ||
	    header.datum_capacity > SEGMENT_READER_DATUMS_MAX ||
	    header.instance_capacity > SEGMENT_READER_INSTANCES_MAX ||
	    header.thread_regions > SEGMENT_READER_THREAD_REGIONS_MAX)
		return refuse(why, why_size,
		    "capacities beyond dcistatd's bounds (%u classes, %u "
		    "datums, %u instances, %u thread regions)",
		    header.class_capacity, header.datum_capacity,
		    header.instance_capacity, header.thread_regions);
	if (!table_fits(header.class_offset, header.class_capacity,
	        sizeof(struct dcistat_segment_class), size) ||
	    !table_fits(header.datum_offset, header.datum_capacity,
	        sizeof(struct dcistat_segment_datum), size) ||
	    !table_fits(header.instance_offset, header.instance_capacity,
	        sizeof(struct dcistat_segment_instance), size) ||
	    header.region_words == 0 ||
	    !table_fits(header.region_offset,
	        (uint64_t)(header.thread_regions + 1) * header.region_words,
	        sizeof(uint64_t), size))
		return refuse(why, why_size,
		    "a table or the value regions lie outside the file");
	view->base = base;
	view->size = size;
	view->pid = header.pid;
	view->process_start = header.process_start;
	view->reset_stamp = header.reset_stamp;
	memcpy(view->module, header.module, sizeof(view->module));
	memcpy(view->title, header.title, sizeof(view->title));
	memcpy(view->description, header.description,
	    sizeof(view->description));
	view->supplier_type = header.supplier_type;
	view->supplier_version = header.supplier_version;
	view->number = header.number;
	view->class_capacity = header.class_capacity;
	view->datum_capacity = header.datum_capacity;
	view->instance_capacity = header.instance_capacity;
	view->class_offset = header.class_offset;
	view->datum_offset = header.datum_offset;
	view->instance_offset = header.instance_offset;
	view->region_offset = header.region_offset;
	view->region_words = header.region_words;
	view->thread_regions = header.thread_regions;
	return 0;
}

static const struct dcistat_segment_header *
header_of(const struct segment_view *view)
{
	return (const struct dcistat_segment_header *)view->base;
}

/* A count the writer keeps in the header, read once and never above the
 * capacity the reader took at open: the writer is not trusted. */
static uint32_t
load_count(const uint32_t *word, uint32_t capacity)
{
	uint32_t count = load32(word);

	return count < capacity ? count : capacity;
}

uint32_t
segment_class_count(const struct segment_view *view)
{
	return load_count(&header_of(view)->class_count, view->class_capacity);
}

uint32_t
segment_instance_high(const struct segment_view *view)
{
	return load_count(
	    &header_of(view)->instance_high, view->instance_capacity);
}

uint32_t
segment_regions_in_use(const struct segment_view *view)
{
	return load_count(
	    &header_of(view)->regions_in_use, view->thread_regions);
}

bool
segment_closed(const struct segment_view *view)
{
	return load32(&header_of(view)->closed) != 0;
}

static bool
combine_fits_type(uint32_t combine, uint32_t type)
{
	switch (combine) {
	case DCISTAT_COMBINE_STRING:
		return type == DCI_ST_STRING;
	case DCISTAT_COMBINE_SUM:
	case DCISTAT_COMBINE_MAX:
	case DCISTAT_COMBINE_MIN:
	case DCISTAT_COMBINE_BUSY_TIME:
	case DCISTAT_COMBINE_BUSY_COUNT:
	case DCISTAT_COMBINE_TDIGEST:
		return type >= DCI_ST_INTEGER8 && type <= DCI_ST_INTEGER64;
	case DCISTAT_COMBINE_SHARED:
		return type != DCI_ST_STRING && type != DCI_ST_DERIVED &&
		       type != DCI_ST_UNUSED && type <= DCI_ST_TIME;
	default:
		return false;
	}
}

static uint32_t
datum_words(const struct dcistat_segment_datum *datum)
{
	switch (datum->combine) {
	case DCISTAT_COMBINE_STRING:
		return (datum->size + 7) / 8;
	case DCISTAT_COMBINE_BUSY_TIME:
	case DCISTAT_COMBINE_BUSY_COUNT:
		return 2;
	case DCISTAT_COMBINE_TDIGEST:
		return (uint32_t)DCISTAT_SEGMENT_TDIGEST_WORDS;
	default:
		return 1;
	}
}

static int
datum_check(const struct dcistat_segment_datum *datum, char *why,
    size_t why_size)
{
	if (!text_ok(datum->label, sizeof(datum->label)) ||
	    !text_ok(datum->description, sizeof(datum->description)))
		return refuse(why, why_size, "datum %u: label or description "
		                             "has no NUL",
		    datum->id);
	if (datum->id < DCI_DATUM_ID_MIN || datum->id > DCI_DATUM_ID_MAX)
		return refuse(why, why_size, "datum id %u", datum->id);
	if (!combine_fits_type(datum->combine, datum->type))
		return refuse(why, why_size,
		    "datum \"%s\": combine %u does not fit type %u",
		    SEGMENT_QUOTE(datum->label), datum->combine, datum->type);
	if (datum->combine == DCISTAT_COMBINE_STRING &&
	    (datum->size == 0 || datum->size > DCISTAT_SEGMENT_STRING_MAX))
		return refuse(why, why_size, "datum \"%s\": string size %u",
		    SEGMENT_QUOTE(datum->label), datum->size);
	if (datum->divisor == 0)
		return refuse(why, why_size, "datum \"%s\": divisor 0",
		    SEGMENT_QUOTE(datum->label));
	if (datum->combine == DCISTAT_COMBINE_TDIGEST &&
	    (datum->id <= DCISTAT_SEGMENT_QUANTILE_BASE ||
	        datum->id >= DCISTAT_SEGMENT_QUANTILE_BASE +
	                         DCISTAT_SEGMENT_QUANTILE_SCALE))
		return refuse(why, why_size,
		    "datum \"%s\": id %u names no quantile",
		    SEGMENT_QUOTE(datum->label), datum->id);
	if (datum->word > SEGMENT_READER_BLOCK_WORDS_MAX)
		return refuse(why, why_size, "datum \"%s\": word %u",
		    SEGMENT_QUOTE(datum->label), datum->word);
	return 0;
}

void
segment_class_clear(struct segment_class *class_copy)
{
	free(class_copy->datums);
	memset(class_copy, 0, sizeof(*class_copy));
}

uint64_t
segment_class_claimed_bytes(const struct segment_view *view, uint32_t index)
{
	const struct dcistat_segment_class *record;
	uint32_t datum_count;

	if (index >= view->class_capacity)
		return 0;
	record = (const struct dcistat_segment_class *)(view->base +
	                                                view->class_offset) +
	         index;
	datum_count = load32(&record->datum_count);
	if (datum_count > SEGMENT_READER_DATUMS_PER_CLASS_MAX)
		datum_count = SEGMENT_READER_DATUMS_PER_CLASS_MAX;
	return segment_budget_class_bytes(datum_count);
}

int
segment_class_read(const struct segment_view *view, uint32_t index,
    struct segment_class *out, char *why, size_t why_size)
{
	bool over;

	return segment_class_read_within(
	    view, index, UINT64_MAX, out, &over, why, why_size);
}

int
segment_class_read_within(const struct segment_view *view, uint32_t index,
    uint64_t bytes_left, struct segment_class *out, bool *over, char *why,
    size_t why_size)
{
	struct dcistat_segment_class record;
	uint32_t datum_count = load32(&header_of(view)->datum_count);
	uint64_t string_bytes = 0;

	memset(out, 0, sizeof(*out));
	*over = false;
	if (index >= view->class_capacity)
		return refuse(why, why_size, "class %u: no such class", index);
	copy_shared(&record,
	    view->base + view->class_offset +
	        (size_t)index * sizeof(struct dcistat_segment_class),
	    sizeof(record));
	if (datum_count > view->datum_capacity)
		datum_count = view->datum_capacity;
	if (!text_ok(record.label, sizeof(record.label)) ||
	    !text_ok(record.description, sizeof(record.description)))
		return refuse(why, why_size,
		    "class %u: label or description has no NUL", index);
	if (record.id_length == 0 ||
	    record.id_length > DCISTAT_SEGMENT_CLASS_ID_WORDS)
		return refuse(why, why_size, "class \"%s\": id of %u words",
		    SEGMENT_QUOTE(record.label), record.id_length);
	if (record.level_count == 0 ||
	    record.level_count > DCISTAT_SEGMENT_LEVELS)
		return refuse(why, why_size, "class \"%s\": %u levels",
		    SEGMENT_QUOTE(record.label), record.level_count);
	if (record.datum_count == 0 ||
	    record.datum_count > SEGMENT_READER_DATUMS_PER_CLASS_MAX ||
	    record.datum_first > datum_count ||
	    record.datum_count > datum_count - record.datum_first)
		return refuse(why, why_size,
		    "class \"%s\": datums [%u, +%u) outside the %u published",
		    SEGMENT_QUOTE(record.label), record.datum_first,
		    record.datum_count, datum_count);
	for (uint32_t l = 0; l < record.level_count; l++) {
		if (record.level_size[l] == 0 || record.level_size[l] % 4 ||
		    record.level_size[l] > 4 * DCISTAT_SEGMENT_ID_WORDS)
			return refuse(why, why_size,
			    "class \"%s\": level %u of %u bytes",
			    SEGMENT_QUOTE(record.label), l + 1,
			    record.level_size[l]);
		out->levels[l].itype =
		    (enum dci_instance_type)record.level_itype[l];
		out->levels[l].size = record.level_size[l];
		out->id_words += record.level_size[l] / 4;
	}
	if (out->id_words > DCISTAT_SEGMENT_ID_WORDS)
		return refuse(why, why_size,
		    "class \"%s\": instance ids of %u words",
		    SEGMENT_QUOTE(record.label), out->id_words);
	out->memory_bytes = segment_budget_class_bytes(record.datum_count);
	if (out->memory_bytes > bytes_left) {
		*over = true;
		return refuse(why, why_size,
		    "class \"%s\" of %u datums: %" PRIu64
		    " bytes, over the %" PRIu64 " left",
		    SEGMENT_QUOTE(record.label), record.datum_count,
		    out->memory_bytes, bytes_left);
	}
	out->datums = calloc(record.datum_count, sizeof(*out->datums));
	if (out->datums == NULL)
		return refuse(why, why_size, "out of memory");
	copy_shared(out->datums,
	    view->base + view->datum_offset +
	        (size_t)record.datum_first *
	            sizeof(struct dcistat_segment_datum),
	    record.datum_count * sizeof(*out->datums));
	for (uint32_t d = 0; d < record.datum_count; d++) {
		uint32_t end;
		if (datum_check(&out->datums[d], why, why_size) != 0) {
			segment_class_clear(out);
			return -1;
		}
		end = out->datums[d].word + datum_words(&out->datums[d]);
		if (end > out->value_words)
			out->value_words = end;
		switch (out->datums[d].combine) {
		case DCISTAT_COMBINE_SUM:
		case DCISTAT_COMBINE_MAX:
		case DCISTAT_COMBINE_MIN:
			out->region_datums++;
			break;
		case DCISTAT_COMBINE_STRING:
			string_bytes += out->datums[d].size;
			break;
		case DCISTAT_COMBINE_TDIGEST:
			out->digest_datums++;
			break;
		default:
			break;
		}
	}
	out->instance_bytes =
	    segment_budget_instance_bytes(record.datum_count, string_bytes);
	out->id_length = record.id_length;
	memcpy(out->id, record.id, sizeof(out->id));
	out->level_count = record.level_count;
	out->datum_count = record.datum_count;
	memcpy(out->label, record.label, sizeof(out->label));
	memcpy(out->description, record.description, sizeof(out->description));
	return 0;
}

int
segment_instance_read(const struct segment_view *view, uint32_t index,
    const struct segment_class *classes, uint32_t class_count,
    struct segment_instance *out, char *why, size_t why_size)
{
	const unsigned char *address =
	    view->base + view->instance_offset +
	    (size_t)index * sizeof(struct dcistat_segment_instance);
	struct dcistat_segment_instance record;
	const struct segment_class *class_copy;

	if (index >= view->instance_capacity)
		return refuse(why, why_size, "instance %u: no such record",
		    index);
	for (unsigned tries = 0;; tries++) {
		uint32_t before = load32(address), after;
		if (!(before & 1u))
			return 0;
		copy_shared(&record, address, sizeof(record));
		after = __atomic_load_n((const uint32_t *)address,
		    __ATOMIC_RELAXED);
		if (before == after)
			break;
		if (tries == SEGMENT_READER_TRIES)
			return 0;
	}
	if (!text_ok(record.label, sizeof(record.label)) ||
	    record.label[0] == '\0')
		return refuse(why, why_size, "instance %u: label", index);
	if (record.class_index >= class_count)
		return refuse(why, why_size, "instance \"%s\": class %u of %u",
		    SEGMENT_QUOTE(record.label), record.class_index,
		    class_count);
	class_copy = &classes[record.class_index];
	if (class_copy->datums == NULL)
		return 0; /* its class was refused */
	if (record.block == 0 || record.block_words == 0 ||
	    record.block_words > SEGMENT_READER_BLOCK_WORDS_MAX ||
	    record.block > view->region_words ||
	    record.block_words > view->region_words - record.block ||
	    record.value_base == 0 || record.value_base > record.block_words ||
	    class_copy->value_words > record.block_words - record.value_base)
		return refuse(why, why_size,
		    "instance \"%s\": block %u of %u words, values at %u, "
		    "outside the regions or its class's %u words",
		    SEGMENT_QUOTE(record.label), record.block,
		    record.block_words, record.value_base,
		    class_copy->value_words);
	if (record.parent > view->instance_capacity)
		record.parent = 0;
	out->class_index = record.class_index;
	out->block = record.block;
	out->block_words = record.block_words;
	out->value_base = record.value_base;
	out->parent = record.parent;
	memcpy(out->id, record.id, sizeof(out->id));
	memcpy(out->label, record.label, sizeof(out->label));
	return 1;
}

void
segment_scratch_clear(struct segment_scratch *scratch)
{
	free(scratch->words);
	memset(scratch, 0, sizeof(*scratch));
}

/* Copies region `region`'s block consistently into `to`; false when a
 * writer kept it changing. */
static bool
block_copy(const struct segment_view *view, uint32_t region, uint32_t block,
    uint32_t words, uint64_t *to, struct segment_scratch *scratch)
{
	const uint64_t *from =
	    (const uint64_t *)(view->base + view->region_offset) +
	    (size_t)region * view->region_words + block;

	for (unsigned tries = 0; tries < SEGMENT_READER_TRIES; tries++) {
		uint64_t before =
		    __atomic_load_n(&from[0], __ATOMIC_ACQUIRE);
		struct dcistat_segment_sequence sequence;

		/* A writer that keeps a block changing costs every try; a
		 * try costs its sequence word and the words. */
		if (scratch->work_limit != 0 &&
		    (scratch->work >= scratch->work_limit ||
		        words >= scratch->work_limit - scratch->work))
			return false;
		scratch->work++;
		memcpy(&sequence, &before, sizeof(sequence));
		if (sequence.begun != sequence.ended)
			continue;
		scratch->work += words;
		for (uint32_t w = 1; w < words; w++)
			to[w] = load64(&from[w]);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&from[0], __ATOMIC_RELAXED) == before) {
			to[0] = before;
			return true;
		}
	}
	return false;
}

static int
scratch_fill(const struct segment_view *view,
    const struct segment_instance *instance, struct segment_scratch *scratch)
{
	uint32_t regions = segment_regions_in_use(view) + 1;
	size_t need = (size_t)regions * instance->block_words;

	if (scratch->valid && scratch->block == instance->block &&
	    scratch->block_words == instance->block_words &&
	    scratch->regions == regions)
		return 0;
	scratch->valid = false;
	if (need > scratch->capacity) {
		uint64_t *grown = realloc(scratch->words, need * sizeof(*grown));
		if (grown == NULL)
			return -1;
		scratch->words = grown;
		scratch->capacity = need;
	}
	for (uint32_t r = 0; r < regions; r++) {
		/* The last copy is the shared region's. */
		uint32_t region = r + 1 < regions ? r : view->thread_regions;
		if (!block_copy(view, region, instance->block,
		        instance->block_words,
		        scratch->words + (size_t)r * instance->block_words,
		        scratch))
			return -1;
	}
	scratch->block = instance->block;
	scratch->block_words = instance->block_words;
	scratch->regions = regions;
	scratch->valid = true;
	return 0;
}

/* The busy time of a devstat busy state at `word` of the shared region:
 * the state and the time of ended periods read so that no period ended
 * between the two reads (segment.h); false when closers kept it moving. */
static bool
busy_time(const struct segment_view *view, uint32_t word,
    uint64_t now_microseconds, uint64_t *busy)
{
	const uint64_t *shared =
	    (const uint64_t *)(view->base + view->region_offset) +
	    (size_t)view->thread_regions * view->region_words + word;
	uint64_t mask = (UINT64_C(1) << (64 - DCISTAT_SEGMENT_BUSY_START_SHIFT)) - 1;

	for (unsigned tries = 0; tries < SEGMENT_READER_TRIES; tries++) {
		uint64_t state = __atomic_load_n(&shared[0], __ATOMIC_ACQUIRE);
		uint64_t ended = __atomic_load_n(&shared[1], __ATOMIC_ACQUIRE);
		if (dcistat_segment_busy_closers(state) != 0 ||
		    __atomic_load_n(&shared[0], __ATOMIC_ACQUIRE) != state)
			continue;
		*busy = ended;
		if (dcistat_segment_busy_count(state) != 0) {
			uint64_t open = (now_microseconds -
			                    dcistat_segment_busy_start(state)) &
			                mask;
			/* A period begun after `now` was read: nothing yet. */
			if (open <= mask / 2)
				*busy += open;
		}
		return true;
	}
	return false;
}

/* Work units to combine an instance's values: a word a region for each
 * datum combined over the regions, one for the others, and a digest's
 * words a region for each quantile (each merges the digests again). */
static uint64_t
segment_combine_work(const struct segment_class *class_copy, uint32_t regions)
{
	return (uint64_t)class_copy->region_datums * regions +
	       (uint64_t)class_copy->digest_datums * regions *
	           DCISTAT_SEGMENT_TDIGEST_WORDS +
	       (class_copy->datum_count - class_copy->region_datums -
	           class_copy->digest_datums);
}

/* The quantile a TDIGEST datum names, of the digests at `word` of every
 * region's copy merged; false with no sample. Each copy is untrusted
 * (dci_tdigest_merge takes only what is sound). */
static bool
digest_quantile(const struct segment_scratch *scratch,
    const struct segment_instance *instance, uint32_t regions, uint32_t word,
    const struct dcistat_segment_datum *datum, uint64_t *value)
{
	struct dci_tdigest merged, *copies;
	const struct dci_tdigest **sources;
	double q = (double)(datum->id - DCISTAT_SEGMENT_QUANTILE_BASE) /
	           DCISTAT_SEGMENT_QUANTILE_SCALE;
	double estimate;
	bool merged_all;

	/* Copied out of the scratch words, which hold 64-bit words. */
	copies = malloc((size_t)regions * sizeof(*copies));
	sources = malloc((size_t)regions * sizeof(*sources));
	if (copies == NULL || sources == NULL) {
		free(copies);
		free(sources);
		return false;
	}
	for (uint32_t r = 0; r < regions; r++) {
		memcpy(&copies[r],
		    scratch->words + (size_t)r * instance->block_words + word,
		    sizeof(copies[r]));
		sources[r] = &copies[r];
	}
	dci_tdigest_init(&merged);
	merged_all = dci_tdigest_merge_all(&merged, sources, regions) == 0;
	free(copies);
	free(sources);
	if (!merged_all || !(dci_tdigest_count(&merged) > 0.0))
		return false;
	estimate = nearbyint(dci_tdigest_quantile(&merged, q));
	if (datum->is_signed) {
		if (!(estimate >= -9223372036854775808.0 &&
		        estimate < 9223372036854775808.0))
			return false;
		*value = (uint64_t)(int64_t)estimate;
	} else {
		if (!(estimate >= 0.0 && estimate < 18446744073709551616.0))
			return false;
		*value = (uint64_t)estimate;
	}
	return true;
}

int
segment_values_read(const struct segment_view *view,
    const struct segment_class *class_copy,
    const struct segment_instance *instance, uint64_t now_microseconds,
    struct segment_scratch *scratch, struct segment_value *values)
{
	uint32_t regions;
	const uint64_t *shared;

	if (scratch_fill(view, instance, scratch) != 0)
		return -1;
	regions = scratch->regions;
	shared = scratch->words + (size_t)(regions - 1) * instance->block_words;
	scratch->work += segment_combine_work(class_copy, regions);
	for (uint32_t d = 0; d < class_copy->datum_count; d++) {
		const struct dcistat_segment_datum *datum = &class_copy->datums[d];
		uint32_t word = instance->value_base + datum->word;
		struct segment_value *value = &values[d];
		uint64_t combined = 0;

		value->present = true;
		value->text_length = 0;
		switch (datum->combine) {
		case DCISTAT_COMBINE_SUM:
			for (uint32_t r = 0; r < regions; r++)
				combined += scratch->words
				    [(size_t)r * instance->block_words + word];
			break;
		case DCISTAT_COMBINE_MAX:
		case DCISTAT_COMBINE_MIN:
			for (uint32_t r = 0; r < regions; r++) {
				uint64_t encoded = scratch->words
				    [(size_t)r * instance->block_words + word];
				if (encoded > combined)
					combined = encoded;
			}
			/* No sample anywhere: no value. */
			value->present = combined != 0;
			combined = dcistat_segment_order_decode(combined,
			    datum->is_signed != 0,
			    datum->combine == DCISTAT_COMBINE_MIN);
			break;
		case DCISTAT_COMBINE_SHARED:
			combined = shared[word];
			break;
		case DCISTAT_COMBINE_BUSY_COUNT:
			combined = dcistat_segment_busy_count(shared[word]);
			break;
		case DCISTAT_COMBINE_BUSY_TIME:
			value->present = busy_time(view,
			    instance->block + word, now_microseconds,
			    &combined);
			break;
		case DCISTAT_COMBINE_TDIGEST:
			value->present = digest_quantile(
			    scratch, instance, regions, word, datum, &combined);
			break;
		case DCISTAT_COMBINE_STRING: {
			const char *text = (const char *)&shared[word];
			value->text_length = strnlen(text, datum->size - 1);
			memcpy(value->text, text, value->text_length);
			value->text[value->text_length] = '\0';
			break;
		}
		default:
			value->present = false;
		}
		/* Most datums have no divisor: no division per value. */
		if (datum->divisor > 1 && datum->is_signed)
			combined = (uint64_t)((int64_t)combined /
			                      (int64_t)datum->divisor);
		else if (datum->divisor > 1)
			combined /= datum->divisor;
		value->number = combined;
	}
	return 0;
}

uint64_t
segment_values_work(const struct segment_view *view,
    const struct segment_class *class_copy,
    const struct segment_instance *instance,
    const struct segment_scratch *scratch)
{
	uint32_t regions = segment_regions_in_use(view) + 1;
	uint64_t work = segment_combine_work(class_copy, regions);

	if (!(scratch->valid && scratch->block == instance->block &&
	        scratch->block_words == instance->block_words &&
	        scratch->regions == regions))
		work += (uint64_t)regions * (1 + instance->block_words);
	return work;
}

uint64_t
segment_values_scratch_bytes(
    const struct segment_view *view, const struct segment_instance *instance)
{
	return ((uint64_t)segment_regions_in_use(view) + 1) *
	       instance->block_words * sizeof(uint64_t);
}
