/*
 * libdcistat-supplier: the segment's life (open, close), its allocation of
 * classes, instance records and value blocks, and the threads' regions.
 *
 * A thread gets a region number at its first update in the process (the
 * lowest free), keeps it in thread-local storage and frees it when it exits;
 * the next thread continues adding into that region, whose values are
 * cumulative, so nothing is lost and the reader keeps reading only the
 * regions ever used. The same number serves every supplier of the process;
 * a thread whose number is beyond a supplier's thread_regions updates that
 * supplier's shared region atomically instead.
 */
#define _GNU_SOURCE

#include "supplier/supplier_internal.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SUPPLIER_DEFAULT_THREAD_REGIONS 16u
#define SUPPLIER_DEFAULT_CLASSES 32u
#define SUPPLIER_DEFAULT_DATUMS 512u
#define SUPPLIER_DEFAULT_INSTANCES 4096u
#define SUPPLIER_DEFAULT_REGION_WORDS 65536u
/* Bounds that keep every offset of a segment in 32-bit words and its size
 * reasonable; the reader has its own. */
#define SUPPLIER_THREAD_REGIONS_MAX 1024u
#define SUPPLIER_TABLE_MAX (1u << 20)
#define SUPPLIER_REGION_WORDS_MAX (1u << 26)
/* Region numbers handed to threads; more threads share the shared
 * region. */
#define SUPPLIER_THREAD_NUMBERS_MAX SUPPLIER_THREAD_REGIONS_MAX

static _Thread_local char supplier_error[512];
_Thread_local uint32_t dcistat_thread_number_plus_one
    __attribute__((tls_model("initial-exec")));

static pthread_mutex_t process_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
static unsigned char thread_numbers_used[SUPPLIER_THREAD_NUMBERS_MAX];
static uint32_t thread_numbers_high; /* highest number ever used, plus one */
static struct dcistat_supplier *open_suppliers;

int
dcistat_fail(int error_number, const char *format, ...)
{
	va_list arguments;

	va_start(arguments, format);
	vsnprintf(supplier_error, sizeof(supplier_error), format, arguments);
	va_end(arguments);
	errno = error_number;
	return -1;
}

const char *
dcistat_supplier_error(void)
{
	return supplier_error;
}

const char *
dcistat_supplier_path(const struct dcistat_supplier *supplier)
{
	return supplier->path;
}

void
dcistat_copy_text(char *to, size_t size, const char *from)
{
	size_t length = from != NULL ? strnlen(from, size - 1) : 0;

	memcpy(to, from != NULL ? from : "", length);
	memset(to + length, 0, size - length);
}

/* --- Thread regions --- */

static void
thread_number_release(void *value)
{
	uint32_t number = (uint32_t)(uintptr_t)value - 1;

	pthread_mutex_lock(&process_lock);
	thread_numbers_used[number] = 0;
	pthread_mutex_unlock(&process_lock);
}

static void
thread_key_create(void)
{
	if (pthread_key_create(&thread_key, thread_number_release) != 0)
		abort();
}

static void
regions_in_use_raise(struct dcistat_supplier *supplier, uint32_t high)
{
	uint32_t in_use = high < supplier->thread_regions
	                      ? high
	                      : supplier->thread_regions;

	if (in_use > supplier->header->regions_in_use)
		__atomic_store_n(&supplier->header->regions_in_use, in_use,
		    __ATOMIC_RELEASE);
}

/* The slow path of a thread's first update: a number, announced to every
 * open supplier before the thread writes into its region. */
uint32_t
dcistat_thread_number_take(void)
{
	uint32_t number = SUPPLIER_THREAD_NUMBERS_MAX;

	pthread_once(&thread_key_once, thread_key_create);
	pthread_mutex_lock(&process_lock);
	for (uint32_t i = 0; i < SUPPLIER_THREAD_NUMBERS_MAX; i++) {
		if (!thread_numbers_used[i]) {
			number = i;
			break;
		}
	}
	if (number < SUPPLIER_THREAD_NUMBERS_MAX) {
		thread_numbers_used[number] = 1;
		if (number + 1 > thread_numbers_high)
			thread_numbers_high = number + 1;
		for (struct dcistat_supplier *s = open_suppliers; s != NULL;
		     s = s->next_open)
			regions_in_use_raise(s, thread_numbers_high);
		pthread_setspecific(thread_key, (void *)(uintptr_t)(number + 1));
	}
	pthread_mutex_unlock(&process_lock);
	dcistat_thread_number_plus_one = number + 1;
	return number;
}

/* --- Opening --- */

static uint32_t
option_or(uint32_t value, uint32_t default_value)
{
	return value != 0 ? value : default_value;
}

/* Field 22 of /proc/self/stat: the start time the reader compares with
 * its owner's, to tell a dead owner whose pid was reused. 0: unknown. */
static uint64_t
process_start_time(void)
{
	char text[1024];
	ssize_t length;
	int descriptor = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	const char *field;
	unsigned long long start = 0;

	if (descriptor < 0)
		return 0;
	length = read(descriptor, text, sizeof(text) - 1);
	close(descriptor);
	if (length <= 0)
		return 0;
	text[length] = '\0';
	/* The command name may hold spaces and parentheses: count from the
	 * last ')'. */
	field = strrchr(text, ')');
	if (field == NULL)
		return 0;
	for (int i = 0; i < 20 && field != NULL; i++)
		field = strchr(field + 1, ' ');
	if (field == NULL || sscanf(field + 1, "%llu", &start) != 1)
		return 0;
	return start;
}

static const char *
directory_of(const struct dcistat_supplier_options *options)
{
	const char *directory = NULL;

	if (options != NULL &&
	    options->size >= offsetof(struct dcistat_supplier_options,
	                         directory) + sizeof(options->directory))
		directory = options->directory;
	if (directory == NULL)
		directory = getenv(DCISTAT_SUPPLIER_DIRECTORY_ENVIRONMENT);
	if (directory == NULL || directory[0] == '\0')
		directory = DCISTAT_SUPPLIER_DIRECTORY;
	return directory;
}

static int
check_info(const struct dci_supplier_info *info, uint32_t number)
{
	if (info == NULL || info->module == NULL || info->module[0] == '\0')
		return dcistat_fail(EINVAL, "the supplier has no module name");
	if (strlen(info->module) >= DCISTAT_SEGMENT_LABEL_SIZE)
		return dcistat_fail(EINVAL,
		    "module \"%s\" is longer than %u bytes", info->module,
		    DCISTAT_SEGMENT_LABEL_SIZE - 1);
	for (const char *c = info->module; *c != '\0'; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		        (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
			return dcistat_fail(EINVAL,
			    "module \"%s\": only letters, digits, '_' and "
			    "'-' are allowed",
			    info->module);
	}
	if (number == 0 || number == UINT32_MAX)
		return dcistat_fail(EINVAL,
		    "supplier number %u is outside 1..4294967294", number);
	return 0;
}

static size_t
align_up(size_t value, size_t alignment)
{
	return (value + alignment - 1) / alignment * alignment;
}

static void
header_fill(struct dcistat_supplier *supplier,
    const struct dci_supplier_info *info, uint32_t number,
    uint32_t class_capacity, uint32_t datum_capacity,
    uint32_t instance_capacity)
{
	struct dcistat_segment_header *header = supplier->header;
	struct timespec now;

	memcpy(header->magic, DCISTAT_SEGMENT_MAGIC, sizeof(header->magic));
	header->version = DCISTAT_SEGMENT_VERSION;
	header->byte_order_mark = DCISTAT_SEGMENT_BYTE_ORDER_MARK;
	header->segment_size = supplier->size;
	header->header_size = sizeof(*header);
	header->pid = (uint32_t)getpid();
	header->process_start = process_start_time();
	clock_gettime(CLOCK_REALTIME, &now);
	header->reset_stamp = (uint64_t)now.tv_sec * 1000000000u +
	                      (uint64_t)now.tv_nsec;
	dcistat_copy_text(header->module, sizeof(header->module), info->module);
	dcistat_copy_text(header->title, sizeof(header->title), info->title);
	dcistat_copy_text(header->description, sizeof(header->description),
	    info->description);
	header->supplier_type = info->type;
	header->supplier_version = info->version;
	header->number = number;
	header->class_capacity = class_capacity;
	header->datum_capacity = datum_capacity;
	header->instance_capacity = instance_capacity;
	header->class_offset = (uint64_t)((unsigned char *)supplier->classes -
	                                  supplier->base);
	header->datum_offset = (uint64_t)((unsigned char *)supplier->datums -
	                                  supplier->base);
	header->instance_offset =
	    (uint64_t)((unsigned char *)supplier->instances - supplier->base);
	header->region_offset =
	    (uint64_t)((unsigned char *)supplier->regions - supplier->base);
	header->region_words = supplier->region_words;
	header->thread_regions = supplier->thread_regions;
}

struct dcistat_supplier *
dcistat_supplier_open(const struct dci_supplier_info *info, uint32_t number,
    const struct dcistat_supplier_options *options)
{
	struct dcistat_supplier_options defaults = {.size = sizeof(defaults)};
	struct dcistat_supplier *supplier;
	uint32_t classes, datums, instances;
	size_t class_offset, datum_offset, instance_offset, region_offset;
	const char *directory = directory_of(options);
	char *hidden = NULL;
	int saved;

	if (check_info(info, number) != 0)
		return NULL;
	if (options == NULL || options->size < sizeof(defaults))
		options = &defaults; /* fields this library does not know */
	classes = option_or(options->classes, SUPPLIER_DEFAULT_CLASSES);
	datums = option_or(options->datums, SUPPLIER_DEFAULT_DATUMS);
	instances = option_or(options->instances, SUPPLIER_DEFAULT_INSTANCES);
	supplier = calloc(1, sizeof(*supplier));
	if (supplier == NULL) {
		dcistat_fail(ENOMEM, "out of memory");
		return NULL;
	}
	supplier->descriptor = -1;
	supplier->thread_regions = option_or(
	    options->thread_regions, SUPPLIER_DEFAULT_THREAD_REGIONS);
	supplier->region_words =
	    option_or(options->region_words, SUPPLIER_DEFAULT_REGION_WORDS);
	if (supplier->thread_regions > SUPPLIER_THREAD_REGIONS_MAX ||
	    classes > SUPPLIER_TABLE_MAX || datums > SUPPLIER_TABLE_MAX ||
	    instances > SUPPLIER_TABLE_MAX ||
	    supplier->region_words > SUPPLIER_REGION_WORDS_MAX) {
		dcistat_fail(EINVAL, "segment sizes out of range");
		free(supplier);
		return NULL;
	}
	class_offset = align_up(sizeof(struct dcistat_segment_header), 64);
	datum_offset = align_up(
	    class_offset + classes * sizeof(struct dcistat_segment_class), 64);
	instance_offset = align_up(
	    datum_offset + datums * sizeof(struct dcistat_segment_datum), 64);
	region_offset = align_up(instance_offset +
	                             instances *
	                                 sizeof(struct dcistat_segment_instance),
	    4096);
	supplier->size =
	    region_offset + (size_t)(supplier->thread_regions + 1) *
	                        supplier->region_words * sizeof(uint64_t);
	if (asprintf(&supplier->path, "%s/%s.%ld%s", directory, info->module,
	        (long)getpid(), DCISTAT_SEGMENT_SUFFIX) < 0) {
		dcistat_fail(ENOMEM, "out of memory");
		free(supplier);
		return NULL;
	}
	/* Written under a hidden name and renamed into place, so that the
	 * reader never sees a segment without its header. */
	if (asprintf(&hidden, "%s/.%s.%ld.new", directory, info->module,
	        (long)getpid()) < 0) {
		dcistat_fail(ENOMEM, "out of memory");
		free(supplier->path);
		free(supplier);
		return NULL;
	}
	unlink(hidden); /* left by a process of the same pid that died */
	supplier->descriptor = open(hidden,
	    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (supplier->descriptor < 0) {
		saved = errno;
		dcistat_fail(saved, "%s: %s", hidden, strerror(saved));
		goto failed;
	}
	/* The file is sized at once: the reader refuses a segment whose size
	 * is not the header's, and pages never touched cost nothing. */
	if (ftruncate(supplier->descriptor, (off_t)supplier->size) != 0) {
		saved = errno;
		dcistat_fail(saved, "%s: %s", supplier->path, strerror(saved));
		goto failed_unlink;
	}
	supplier->base = mmap(NULL, supplier->size, PROT_READ | PROT_WRITE,
	    MAP_SHARED, supplier->descriptor, 0);
	if (supplier->base == MAP_FAILED) {
		saved = errno;
		supplier->base = NULL;
		dcistat_fail(saved, "%s: %s", supplier->path, strerror(saved));
		goto failed_unlink;
	}
	supplier->header = (struct dcistat_segment_header *)supplier->base;
	supplier->classes =
	    (struct dcistat_segment_class *)(supplier->base + class_offset);
	supplier->datums =
	    (struct dcistat_segment_datum *)(supplier->base + datum_offset);
	supplier->instances = (struct dcistat_segment_instance *)(supplier->base +
	                                                          instance_offset);
	supplier->regions = (uint64_t *)(supplier->base + region_offset);
	supplier->block_next = 1;
	pthread_mutex_init(&supplier->lock, NULL);
	header_fill(supplier, info, number, classes, datums, instances);
	if (rename(hidden, supplier->path) != 0) {
		saved = errno;
		dcistat_fail(saved, "%s: %s", supplier->path, strerror(saved));
		munmap(supplier->base, supplier->size);
		pthread_mutex_destroy(&supplier->lock);
		goto failed_unlink;
	}
	free(hidden);
	pthread_mutex_lock(&process_lock);
	regions_in_use_raise(supplier, thread_numbers_high);
	supplier->next_open = open_suppliers;
	open_suppliers = supplier;
	pthread_mutex_unlock(&process_lock);
	return supplier;

failed_unlink:
	unlink(hidden);
failed:
	free(hidden);
	if (supplier->descriptor >= 0)
		close(supplier->descriptor);
	free(supplier->path);
	free(supplier);
	errno = saved;
	return NULL;
}

void
dcistat_supplier_on_close(struct dcistat_supplier *supplier,
    void (*close)(struct dcistat_supplier *supplier))
{
	for (size_t f = 0; f < supplier->close_function_count; f++)
		if (supplier->close_functions[f] == close)
			return;
	/* Bounded by the models there are: a new model raises the bound. */
	assert(supplier->close_function_count < DCISTAT_CLOSE_FUNCTIONS_MAX);
	if (supplier->close_function_count < DCISTAT_CLOSE_FUNCTIONS_MAX)
		supplier->close_functions[supplier->close_function_count++] =
		    close;
}

void
dcistat_supplier_close(struct dcistat_supplier *supplier)
{
	struct dcistat_supplier **link;

	if (supplier == NULL)
		return;
	pthread_mutex_lock(&process_lock);
	for (link = &open_suppliers; *link != NULL; link = &(*link)->next_open) {
		if (*link == supplier) {
			*link = supplier->next_open;
			break;
		}
	}
	pthread_mutex_unlock(&process_lock);
	__atomic_store_n(&supplier->header->closed, 1, __ATOMIC_RELEASE);
	unlink(supplier->path);
	munmap(supplier->base, supplier->size);
	close(supplier->descriptor);
	for (size_t f = 0; f < supplier->close_function_count; f++)
		supplier->close_functions[f](supplier);
	while (supplier->generic_instances != NULL) {
		struct dcistat_instance *instance = supplier->generic_instances;
		supplier->generic_instances = instance->listed_next;
		free(instance);
	}
	while (supplier->class_list != NULL) {
		struct dcistat_class *class_handle = supplier->class_list;
		supplier->class_list = class_handle->next;
		free(class_handle->datum_ids);
		free(class_handle->datum_words);
		free(class_handle->datum_combines);
		free(class_handle);
	}
	free(supplier->free_blocks);
	free(supplier->free_instances);
	pthread_mutex_destroy(&supplier->lock);
	free(supplier->path);
	free(supplier);
}

/* --- Allocation (under the supplier's lock) --- */

uint32_t
dcistat_block_allocate(struct dcistat_supplier *supplier, uint32_t words)
{
	uint32_t block = 0;

	for (size_t i = 0; i < supplier->free_block_count; i++) {
		if (supplier->free_blocks[i].words == words) {
			block = supplier->free_blocks[i].block;
			supplier->free_blocks[i] =
			    supplier->free_blocks[--supplier->free_block_count];
			break;
		}
	}
	if (block == 0) {
		if (words > supplier->region_words - supplier->block_next) {
			dcistat_fail(ENOSPC,
			    "%s: the value regions are full (region_words "
			    "%u)",
			    supplier->path, supplier->region_words);
			return 0;
		}
		block = supplier->block_next;
		supplier->block_next += words;
	}
	/* A reused block starts from zero in every region; nobody updates
	 * it (its instance was removed, its handle is dead). */
	for (uint32_t r = 0; r <= supplier->thread_regions; r++) {
		uint64_t *region =
		    supplier->regions + (size_t)r * supplier->region_words;
		for (uint32_t w = 0; w < words; w++)
			__atomic_store_n(
			    &region[block + w], 0, __ATOMIC_RELAXED);
	}
	return block;
}

void
dcistat_block_free(
    struct dcistat_supplier *supplier, uint32_t block, uint32_t words)
{
	if (supplier->free_block_count == supplier->free_block_capacity) {
		size_t capacity = supplier->free_block_capacity
		                      ? 2 * supplier->free_block_capacity
		                      : 16;
		struct dcistat_free_block *grown = realloc(
		    supplier->free_blocks, capacity * sizeof(*grown));
		if (grown == NULL)
			return; /* the block is lost to reuse, nothing else */
		supplier->free_blocks = grown;
		supplier->free_block_capacity = capacity;
	}
	supplier->free_blocks[supplier->free_block_count++] =
	    (struct dcistat_free_block){block, words};
}

static int
instance_index_take(struct dcistat_supplier *supplier, uint32_t *index)
{
	struct dcistat_segment_header *header = supplier->header;

	if (supplier->free_instance_count > 0) {
		*index = supplier->free_instances[--supplier->free_instance_count];
		return 0;
	}
	if (header->instance_high >= header->instance_capacity)
		return dcistat_fail(ENOSPC,
		    "%s: the instance table is full (%u instances)",
		    supplier->path, header->instance_capacity);
	*index = header->instance_high;
	return 0;
}

struct dcistat_instance *
dcistat_instance_publish(struct dcistat_class *class_handle, uint32_t block,
    uint32_t block_words, uint32_t values, const uint32_t *id,
    size_t id_words, const char *label, uint32_t parent_index_plus_one)
{
	struct dcistat_supplier *supplier = class_handle->supplier;
	struct dcistat_instance *instance;
	struct dcistat_segment_instance *record;
	uint32_t index = 0, state;

	if (id_words != class_handle->id_words) {
		dcistat_fail(EINVAL, "instance id has %zu words, the class %u",
		    id_words, class_handle->id_words);
		return NULL;
	}
	if (label == NULL || label[0] == '\0') {
		dcistat_fail(EINVAL, "instance has no label");
		return NULL;
	}
	instance = calloc(1, sizeof(*instance));
	if (instance == NULL) {
		dcistat_fail(ENOMEM, "out of memory");
		return NULL;
	}
	if (instance_index_take(supplier, &index) != 0) {
		free(instance);
		return NULL;
	}
	record = &supplier->instances[index];
	/* Even while it is written: the reader skips it. */
	state = __atomic_load_n(&record->state, __ATOMIC_RELAXED);
	if (state & 1u)
		state++;
	__atomic_store_n(&record->state, state, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	record->class_index = class_handle->index;
	record->block = block;
	record->block_words = block_words;
	record->value_base = values - block;
	record->parent = parent_index_plus_one;
	memset(record->id, 0, sizeof(record->id));
	memcpy(record->id, id, id_words * sizeof(*id));
	dcistat_copy_text(record->label, sizeof(record->label), label);
	__atomic_store_n(&record->state, state + 1, __ATOMIC_RELEASE);
	if (index == supplier->header->instance_high)
		__atomic_store_n(&supplier->header->instance_high, index + 1,
		    __ATOMIC_RELEASE);
	instance->class_handle = class_handle;
	instance->index = index;
	instance->block = block;
	instance->values = values;
	instance->block_words = block_words;
	return instance;
}

struct dcistat_instance *
dcistat_instance_publish_owning(struct dcistat_class *class_handle,
    uint32_t block, uint32_t block_words, uint32_t values, const uint32_t *id,
    size_t id_words, const char *label, uint32_t parent_index_plus_one)
{
	struct dcistat_instance *instance =
	    dcistat_instance_publish(class_handle, block, block_words, values,
	        id, id_words, label, parent_index_plus_one);

	if (instance == NULL) {
		dcistat_block_free(class_handle->supplier, block, block_words);
		return NULL;
	}
	instance->owns_block = true;
	return instance;
}

void
dcistat_instance_unpublish(struct dcistat_instance *instance)
{
	struct dcistat_supplier *supplier = instance->class_handle->supplier;
	struct dcistat_segment_instance *record =
	    &supplier->instances[instance->index];
	uint32_t *grown;

	__atomic_store_n(&record->state,
	    __atomic_load_n(&record->state, __ATOMIC_RELAXED) + 1,
	    __ATOMIC_RELEASE);
	grown = realloc(supplier->free_instances,
	    (supplier->free_instance_count + 1) * sizeof(*grown));
	if (grown != NULL) {
		supplier->free_instances = grown;
		supplier->free_instances[supplier->free_instance_count++] =
		    instance->index;
	}
	if (instance->owns_block)
		dcistat_block_free(
		    supplier, instance->block, instance->block_words);
	free(instance);
}

void *
dcistat_handle_new(struct dcistat_class *class_handle, size_t size)
{
	struct dcistat_supplier *supplier;
	struct dcistat_handle *handle;

	if (class_handle == NULL)
		return NULL;
	supplier = class_handle->supplier;
	handle = calloc(1, size);
	if (handle == NULL) {
		dcistat_fail(ENOMEM, "out of memory");
		return NULL;
	}
	handle->supplier = supplier;
	handle->class_handle = class_handle;
	handle->block_words = 1 + class_handle->value_words;
	handle->block = dcistat_block_allocate(supplier, handle->block_words);
	if (handle->block == 0) {
		free(handle);
		return NULL;
	}
	return handle;
}

int
dcistat_handle_publish(struct dcistat_handle *handle, uint32_t serial,
    const char *label, uint32_t parent_index_plus_one,
    struct dcistat_handle **list,
    void (*close)(struct dcistat_supplier *supplier))
{
	handle->instance = dcistat_instance_publish_owning(handle->class_handle,
	    handle->block, handle->block_words, handle->block + 1, &serial, 1,
	    label, parent_index_plus_one);
	if (handle->instance == NULL) {
		free(handle);
		return -1;
	}
	dcistat_supplier_on_close(handle->supplier, close);
	handle->next = *list;
	handle->list = list;
	*list = handle;
	return 0;
}

int
dcistat_handle_discard(struct dcistat_handle *handle, const char *absent,
    int (*release_locked)(struct dcistat_handle *handle))
{
	struct dcistat_supplier *supplier;

	if (handle == NULL)
		return dcistat_fail(EINVAL, "%s", absent);
	supplier = handle->supplier;
	pthread_mutex_lock(&supplier->lock);
	if (release_locked != NULL && release_locked(handle) != 0) {
		pthread_mutex_unlock(&supplier->lock);
		return -1;
	}
	for (struct dcistat_handle **link = handle->list; *link != NULL;
	     link = &(*link)->next) {
		if (*link == handle) {
			*link = handle->next;
			break;
		}
	}
	dcistat_instance_unpublish(handle->instance);
	pthread_mutex_unlock(&supplier->lock);
	free(handle);
	return 0;
}

void
dcistat_handles_free(struct dcistat_handle **list)
{
	while (*list != NULL) {
		struct dcistat_handle *handle = *list;

		*list = handle->next;
		free(handle->instance);
		free(handle);
	}
}

/* The words a datum takes in a block. */
static uint32_t
datum_words(const struct dci_datum_info *datum, unsigned combine)
{
	if (combine == DCISTAT_COMBINE_STRING)
		return (datum->size + 7) / 8;
	if (combine == DCISTAT_COMBINE_BUSY_TIME)
		return 2;
	if (combine == DCISTAT_COMBINE_BUSY_COUNT ||
	    combine == DCISTAT_COMBINE_TDIGEST)
		return 0; /* placed after the others, below */
	return 1;
}

static unsigned
default_combine(const struct dci_datum_info *datum)
{
	if (datum->type == DCI_ST_STRING)
		return DCISTAT_COMBINE_STRING;
	if (datum->semantics == DCI_SEMANTICS_COUNTER)
		return DCISTAT_COMBINE_SUM;
	return DCISTAT_COMBINE_SHARED;
}

static int
check_class(struct dcistat_supplier *supplier, const uint32_t *relative_id,
    size_t id_length, const struct dci_class_info *info)
{
	const struct dcistat_segment_header *header = supplier->header;

	if (info == NULL || info->label == NULL || info->levels == NULL ||
	    info->level_count == 0 || info->datums == NULL ||
	    info->datum_count == 0)
		return dcistat_fail(EINVAL,
		    "a class needs a label, levels and datums");
	if (id_length == 0 || id_length > DCISTAT_SEGMENT_CLASS_ID_WORDS)
		return dcistat_fail(EINVAL,
		    "class \"%s\": id of %zu words, not 1..%u", info->label,
		    id_length, DCISTAT_SEGMENT_CLASS_ID_WORDS);
	if (info->level_count > DCISTAT_SEGMENT_LEVELS)
		return dcistat_fail(EINVAL, "class \"%s\": too many levels",
		    info->label);
	if (header->class_count >= header->class_capacity)
		return dcistat_fail(ENOSPC,
		    "class \"%s\": the class table is full (%u)", info->label,
		    header->class_capacity);
	if (info->datum_count > header->datum_capacity - header->datum_count)
		return dcistat_fail(ENOSPC,
		    "class \"%s\": the datum table is full (%u)", info->label,
		    header->datum_capacity);
	for (struct dcistat_class *c = supplier->class_list; c != NULL;
	     c = c->next) {
		const struct dcistat_segment_class *other =
		    &supplier->classes[c->index];
		if (other->id_length == id_length &&
		    memcmp(other->id, relative_id,
		        id_length * sizeof(*relative_id)) == 0)
			return dcistat_fail(EEXIST,
			    "class \"%s\": its id is class \"%s\"'s",
			    info->label, other->label);
	}
	for (size_t d = 0; d < info->datum_count; d++) {
		const struct dci_datum_info *datum = &info->datums[d];
		if (datum->label == NULL)
			return dcistat_fail(EINVAL,
			    "class \"%s\": datum %u has no label", info->label,
			    datum->id);
		if (datum->type == DCI_ST_STRING &&
		    (datum->size == 0 ||
		        datum->size > DCISTAT_SEGMENT_STRING_MAX))
			return dcistat_fail(EINVAL,
			    "class \"%s\": string datum \"%s\" needs a size of "
			    "1..%u",
			    info->label, datum->label,
			    DCISTAT_SEGMENT_STRING_MAX);
		if (datum->type == DCI_ST_DERIVED)
			return dcistat_fail(EINVAL,
			    "class \"%s\": datum \"%s\": derived metrics are "
			    "declared in dcistatd's configuration",
			    info->label, datum->label);
	}
	return 0;
}

struct dcistat_class *
dcistat_class_add_locked(struct dcistat_supplier *supplier,
    const uint32_t *relative_id, size_t id_length,
    const struct dci_class_info *info, const unsigned char *combines,
    const uint32_t *divisors)
{
	struct dcistat_segment_header *header = supplier->header;
	struct dcistat_segment_class *record;
	struct dcistat_class *class_handle;
	uint32_t word = 0, id_words = 0;

	if (check_class(supplier, relative_id, id_length, info) != 0)
		return NULL;
	for (size_t l = 0; l < info->level_count; l++) {
		if (info->levels[l].size == 0 || info->levels[l].size % 4 != 0) {
			dcistat_fail(EINVAL,
			    "class \"%s\": level %zu: size %u is not a "
			    "multiple of 4",
			    info->label, l + 1, info->levels[l].size);
			return NULL;
		}
		id_words += info->levels[l].size / 4;
	}
	if (id_words > DCISTAT_SEGMENT_ID_WORDS) {
		dcistat_fail(EINVAL, "class \"%s\": instance ids of %u words",
		    info->label, id_words);
		return NULL;
	}
	class_handle = calloc(1, sizeof(*class_handle));
	if (class_handle != NULL) {
		class_handle->datum_ids =
		    calloc(info->datum_count, sizeof(uint32_t));
		class_handle->datum_words =
		    calloc(info->datum_count, sizeof(uint32_t));
		class_handle->datum_combines = calloc(info->datum_count, 1);
	}
	if (class_handle == NULL || class_handle->datum_ids == NULL ||
	    class_handle->datum_words == NULL ||
	    class_handle->datum_combines == NULL) {
		if (class_handle != NULL) {
			free(class_handle->datum_ids);
			free(class_handle->datum_words);
			free(class_handle->datum_combines);
		}
		free(class_handle);
		dcistat_fail(ENOMEM, "out of memory");
		return NULL;
	}
	class_handle->supplier = supplier;
	class_handle->index = header->class_count;
	class_handle->datum_first = header->datum_count;
	class_handle->datum_count = (uint32_t)info->datum_count;
	class_handle->id_words = id_words;
	for (size_t d = 0; d < info->datum_count; d++) {
		const struct dci_datum_info *datum = &info->datums[d];
		struct dcistat_segment_datum *out =
		    &supplier->datums[header->datum_count + d];
		unsigned combine =
		    combines != NULL ? combines[d] : default_combine(datum);

		memset(out, 0, sizeof(*out));
		out->id = datum->id;
		out->type = (uint32_t)datum->type;
		out->format = datum->format;
		out->presentation = datum->presentation;
		out->size = datum->size;
		out->volatility = datum->volatility;
		out->unit = (uint32_t)datum->unit;
		out->semantics = (uint32_t)datum->semantics;
		out->combine = combine;
		out->word = word;
		out->divisor = divisors != NULL && divisors[d] != 0
		                   ? divisors[d]
		                   : 1;
		out->is_signed =
		    datum->type >= DCI_ST_INTEGER8 &&
		    datum->type <= DCI_ST_INTEGER64 &&
		    !(datum->format & DCI_SIF_UNSIGNED);
		dcistat_copy_text(out->label, sizeof(out->label), datum->label);
		dcistat_copy_text(out->description, sizeof(out->description),
		    datum->description);
		class_handle->datum_ids[d] = datum->id;
		class_handle->datum_words[d] = word;
		class_handle->datum_combines[d] = (unsigned char)combine;
		word += datum_words(datum, combine);
	}
	/* A busy count is read from the busy time's state word. */
	for (size_t d = 0; d < info->datum_count; d++) {
		if (class_handle->datum_combines[d] != DCISTAT_COMBINE_BUSY_COUNT)
			continue;
		for (size_t t = 0; t < info->datum_count; t++) {
			if (class_handle->datum_combines[t] ==
			    DCISTAT_COMBINE_BUSY_TIME) {
				class_handle->datum_words[d] =
				    class_handle->datum_words[t];
				supplier->datums[header->datum_count + d].word =
				    class_handle->datum_words[t];
			}
		}
	}
	/* The quantiles of a class share one digest, after the other
	 * values (segment.h). */
	bool has_digest = false;
	for (size_t d = 0; d < info->datum_count; d++) {
		if (class_handle->datum_combines[d] != DCISTAT_COMBINE_TDIGEST)
			continue;
		class_handle->datum_words[d] = word;
		supplier->datums[header->datum_count + d].word = word;
		has_digest = true;
	}
	if (has_digest)
		word += (uint32_t)DCISTAT_SEGMENT_TDIGEST_WORDS;
	class_handle->value_words = word;
	record = &supplier->classes[header->class_count];
	memset(record, 0, sizeof(*record));
	record->id_length = (uint32_t)id_length;
	memcpy(record->id, relative_id, id_length * sizeof(*relative_id));
	record->level_count = (uint32_t)info->level_count;
	for (size_t l = 0; l < info->level_count; l++) {
		record->level_itype[l] = (uint32_t)info->levels[l].itype;
		record->level_size[l] = info->levels[l].size;
	}
	record->datum_first = class_handle->datum_first;
	record->datum_count = class_handle->datum_count;
	dcistat_copy_text(record->label, sizeof(record->label), info->label);
	dcistat_copy_text(record->description, sizeof(record->description),
	    info->description);
	/* The datums, then the class, are published by their counts. */
	__atomic_store_n(&header->datum_count,
	    header->datum_count + (uint32_t)info->datum_count,
	    __ATOMIC_RELEASE);
	__atomic_store_n(
	    &header->class_count, header->class_count + 1, __ATOMIC_RELEASE);
	class_handle->next = supplier->class_list;
	supplier->class_list = class_handle;
	return class_handle;
}
