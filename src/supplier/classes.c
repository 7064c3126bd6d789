/*
 * libdcistat-supplier: generic classes, registered as a provider registers
 * them, their instances, and the updates of their values.
 */
#define _GNU_SOURCE

#include "supplier/supplier_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

__attribute__((visibility("default"))) struct dcistat_class *
dcistat_class_add(
    struct dcistat_supplier *supplier, const struct dci_class_info *info)
{
	struct dcistat_class *class_handle;

	if (supplier == NULL || info == NULL || info->id == NULL) {
		dcistat_fail(EINVAL, "no supplier, class or class id");
		return NULL;
	}
	if (info->id_length > 0 && info->id[0] < DCISTAT_CLASS_FIRST_GENERIC) {
		dcistat_fail(EINVAL,
		    "class \"%s\": relative ids below %u are the models'",
		    info->label != NULL ? info->label : "",
		    DCISTAT_CLASS_FIRST_GENERIC);
		return NULL;
	}
	pthread_mutex_lock(&supplier->lock);
	class_handle = dcistat_class_add_locked(
	    supplier, info->id, info->id_length, info, NULL, NULL);
	pthread_mutex_unlock(&supplier->lock);
	return class_handle;
}

__attribute__((visibility("default"))) int
dcistat_datum_index(const struct dcistat_class *class_handle, uint32_t datum_id)
{
	for (uint32_t d = 0; d < class_handle->datum_count; d++) {
		if (class_handle->datum_ids[d] == datum_id)
			return (int)d;
	}
	return -1;
}

__attribute__((visibility("default"))) struct dcistat_instance *
dcistat_instance_add(struct dcistat_class *class_handle, const uint32_t *id,
    size_t id_words, const char *label)
{
	struct dcistat_supplier *supplier = class_handle->supplier;
	struct dcistat_instance *instance = NULL;
	uint32_t words = 1 + class_handle->value_words;
	uint32_t block;

	pthread_mutex_lock(&supplier->lock);
	block = dcistat_block_allocate(supplier, words);
	if (block != 0) {
		instance = dcistat_instance_publish_owning(class_handle, block,
		    words, block + 1, id, id_words, label, 0);
		if (instance != NULL) {
			instance->listed_next = supplier->generic_instances;
			if (supplier->generic_instances != NULL)
				supplier->generic_instances->listed_previous =
				    instance;
			supplier->generic_instances = instance;
		}
	}
	pthread_mutex_unlock(&supplier->lock);
	return instance;
}

__attribute__((visibility("default"))) int
dcistat_instance_remove(struct dcistat_instance *instance)
{
	struct dcistat_supplier *supplier;

	if (instance == NULL)
		return dcistat_fail(EINVAL, "no instance");
	supplier = instance->class_handle->supplier;
	pthread_mutex_lock(&supplier->lock);
	if (instance->listed_previous != NULL)
		instance->listed_previous->listed_next = instance->listed_next;
	else
		supplier->generic_instances = instance->listed_next;
	if (instance->listed_next != NULL)
		instance->listed_next->listed_previous =
		    instance->listed_previous;
	dcistat_instance_unpublish(instance);
	pthread_mutex_unlock(&supplier->lock);
	return 0;
}

__attribute__((visibility("default"))) void
dcistat_value_add(
    struct dcistat_instance *instance, int datum_index, uint64_t amount)
{
	const struct dcistat_class *class_handle = instance->class_handle;
	struct dcistat_supplier *supplier = class_handle->supplier;
	uint32_t word = instance->values +
	                class_handle->datum_words[(unsigned)datum_index];
	uint64_t *region;

	if (class_handle->datum_combines[(unsigned)datum_index] !=
	    DCISTAT_COMBINE_SUM) {
		/* A gauge is one word that threads share. */
		__atomic_fetch_add(&dcistat_shared_region(supplier)[word],
		    amount, __ATOMIC_RELAXED);
		return;
	}
	region = dcistat_thread_region(supplier);
	if (region != NULL)
		dcistat_add(&region[word], amount, true);
	else
		dcistat_add(&dcistat_shared_region(supplier)[word], amount,
		    false);
}

__attribute__((visibility("default"))) int
dcistat_value_set(
    struct dcistat_instance *instance, int datum_index, uint64_t value)
{
	const struct dcistat_class *class_handle = instance->class_handle;
	uint64_t *shared = dcistat_shared_region(class_handle->supplier);

	if (datum_index < 0 ||
	    (uint32_t)datum_index >= class_handle->datum_count ||
	    class_handle->datum_combines[datum_index] !=
	        DCISTAT_COMBINE_SHARED)
		return dcistat_fail(EINVAL,
		    "datum %d is not one that can be set (a counter is only "
		    "added to)",
		    datum_index);
	__atomic_store_n(
	    &shared[instance->values + class_handle->datum_words[datum_index]],
	    value, __ATOMIC_RELAXED);
	return 0;
}

__attribute__((visibility("default"))) uint64_t *
dcistat_value_address(struct dcistat_instance *instance, int datum_index)
{
	const struct dcistat_class *class_handle;
	uint32_t word;

	if (instance == NULL) {
		dcistat_fail(EINVAL, "no instance");
		return NULL;
	}
	class_handle = instance->class_handle;
	if (datum_index < 0 ||
	    (uint32_t)datum_index >= class_handle->datum_count ||
	    (class_handle->datum_combines[datum_index] !=
	            DCISTAT_COMBINE_SHARED &&
	        class_handle->datum_combines[datum_index] !=
	            DCISTAT_COMBINE_SUM)) {
		dcistat_fail(
		    EINVAL, "datum %d has no single word", datum_index);
		return NULL;
	}
	word = instance->values + class_handle->datum_words[datum_index];
	return &dcistat_shared_region(class_handle->supplier)[word];
}

/* Strings change under the block's sequence in the shared region, so a
 * reader never sees half of one. */
__attribute__((visibility("default"))) int
dcistat_value_set_string(
    struct dcistat_instance *instance, int datum_index, const char *text)
{
	const struct dcistat_class *class_handle = instance->class_handle;
	struct dcistat_supplier *supplier = class_handle->supplier;
	uint64_t *shared = dcistat_shared_region(supplier);
	const struct dcistat_segment_datum *datum;
	uint64_t packed[DCISTAT_SEGMENT_STRING_MAX / 8];
	uint32_t words, word;

	if (datum_index < 0 ||
	    (uint32_t)datum_index >= class_handle->datum_count ||
	    class_handle->datum_combines[datum_index] !=
	        DCISTAT_COMBINE_STRING)
		return dcistat_fail(
		    EINVAL, "datum %d is not a string", datum_index);
	datum = &supplier->datums[class_handle->datum_first + datum_index];
	if (datum->size == 0 || datum->size > DCISTAT_SEGMENT_STRING_MAX)
		return dcistat_fail(EINVAL, "datum %d: bad size", datum_index);
	words = (datum->size + 7) / 8;
	memset(packed, 0, sizeof(packed));
	dcistat_copy_text((char *)packed, datum->size, text);
	word = instance->values + class_handle->datum_words[datum_index];
	dcistat_block_begin(&shared[instance->block], false);
	for (uint32_t w = 0; w < words; w++)
		__atomic_store_n(&shared[word + w], packed[w], __ATOMIC_RELAXED);
	dcistat_block_end(&shared[instance->block], false);
	return 0;
}
