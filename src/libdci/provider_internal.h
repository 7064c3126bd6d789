/*
 * libdci's provider side (src/libdci/provider_*.c): a DCIProviderHandle is
 * one libdcistat-supplier segment, its registered classes and the
 * instances added to them. provider_classes.c reads the DCIClassAttr a
 * provider gives and maps it to a supplier class; provider_instances.c
 * adds, removes and updates instances; provider_requests.c answers what
 * is refused (dciPostEvent, dciWaitRequest). Nothing here is exported.
 *
 * Every structure a provider passes is variable-length: each size, count
 * and offset is checked against the structure that holds it before use.
 */
#ifndef DCISTAT_LIBDCI_PROVIDER_INTERNAL_H
#define DCISTAT_LIBDCI_PROVIDER_INTERNAL_H

#include <dci.h>
#include <dcistat/supplier.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A datum as the provider declared it, and where it went. */
struct libdci_provider_datum {
	DCIDatumId id;
	UMADataType uma_type;
	UMAUint4 offset;     /* in the provider's class data block */
	UMAUint4 fixed_size; /* bytes at `offset` a block must hold */
	/* The bytes its value may take from `offset`: fixed_size, or a text
	 * string's slot up to the next datum (provider_classes.c's
	 * layout_keep). */
	UMAUint4 room;
	/* A text string's longest value, its NUL included. */
	UMAUint4 text_capacity;
	bool is_counter;
	/* The supplier class's datum index; -1 for the DCI_INVALIDDATUMID
	 * word, which is read (it must be 0) and not stored. */
	int segment_index;
};

struct libdci_provider_instance {
	uint32_t id[DCI_INSTANCE_ID_MAX_WORDS];
	size_t id_words;
	DCIMethodType method; /* DCI_STORE or DCI_ADDRESS */
	struct dcistat_instance *segment_instance;
	/* Per datum: the last value posted to a counter, which the supplier
	 * library only adds to. */
	uint64_t *posted;
	struct libdci_provider_instance *next;
};

struct libdci_provider_class {
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
	size_t id_length;
	size_t level_count;
	size_t id_words; /* of one instance id */
	DCIMethodType method;
	struct libdci_provider_datum *datums;
	size_t datum_count;
	bool has_text;       /* a UMA_TEXTSTRING datum: not for DCI_ADDRESS */
	UMAUint4 block_size; /* the least a posted class data block holds */
	struct dcistat_class *segment_class;
	bool registered; /* false after dciUnregister of this class */
	struct libdci_provider_instance *instances;
	struct libdci_provider_class *next;
};

struct DCIProvider {
	pthread_mutex_t lock;
	struct dcistat_supplier *supplier;
	uint32_t number; /* the class arc's second level */
	struct libdci_provider_class *classes;
};

/* A DCIClassId a provider names: no wildcard, under its arc. Fills `id`
 * (DCI_CLASS_ID_MAX_LEVELS words) and its length; DCI_INVALIDARG
 * otherwise. `bound`: the bytes the id may take. */
DCIStatus libdci_provider_class_id(
    const DCIClassId *class_id, size_t bound, uint32_t *id, size_t *id_length);

/* The registered class with that id, or NULL. */
struct libdci_provider_class *libdci_provider_class_find(
    DCIProviderHandle handle, const uint32_t *id, size_t id_length);

/* The class and instance a DCIMetricId names: a registered class
 * (DCI_NOTPRESENT otherwise) and a full instance id (every level's bit in
 * inputMask, the class's word count; DCI_INVALIDARG otherwise). `bound`:
 * the bytes the metric id may take. */
DCIStatus libdci_provider_metric(DCIProviderHandle handle,
    const DCIMetricId *metric, size_t bound,
    struct libdci_provider_class **class, uint32_t *instance_id,
    size_t *instance_words);

/* Removes one instance from the segment and frees it. */
void libdci_provider_instance_free(struct libdci_provider_instance *instance);

/* A UMATextString at `at` within `bound` bytes: its text (at most
 * `capacity` - 1 bytes, NUL-terminated into `text`). false when it does
 * not fit or is longer. */
bool libdci_provider_text(
    const unsigned char *at, size_t bound, char *text, size_t capacity);

/* The ascii text of the DCILabel `descriptor` points at in `owner` (of
 * `owner_size` bytes). */
bool libdci_provider_label(const unsigned char *owner, size_t owner_size,
    const UMAVarLenDescr *descriptor, char *text, size_t capacity);

/* The bytes of a DCIMethod before its data. */
#define LIBDCI_METHOD_FIXED_SIZE ((size_t)offsetof(DCIMethod, data))

/* A DCIMethod's type as a provider may declare it: DCI_STORE and
 * DCI_ADDRESS are taken (into *method), DCI_WAIT and DCI_CALLBACK are
 * DCI_METHODOPUNAVAILABLE, anything else DCI_INVALIDARG. */
DCIStatus libdci_provider_method_type(
    DCIMethodType type, DCIMethodType *method);

#pragma GCC visibility pop

#endif
