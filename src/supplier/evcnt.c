/*
 * libdcistat-supplier: evcnt(9) event counters. Each counter is an
 * instance of the supplier's evcnt class (relative id {1}), identified by
 * the serial number of its attachment, labelled "GROUP NAME", with the
 * datums of the evcnt model (count, type, group, name) and its parent as
 * dciInstanceParent. The count is kept per thread and summed by the
 * reader, so increments from any number of threads are exact.
 */
#define _GNU_SOURCE

#include "format/datum_forms.h"
#include "format/evcnt_model.h"
#include "supplier/supplier_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dcistat_evcnt_free_all(struct dcistat_supplier *supplier);

/* An application's group or name; shorter than the kernel's, since each
 * string takes its words in every region of the segment. */
#define SUPPLIER_EVCNT_STRING_SIZE 64u

struct dcistat_evcnt {
	struct dcistat_handle handle; /* first: its supplier is the update
	                                 path's */
	struct dcistat_evcnt *parent;
	unsigned children;
	uint32_t count_word; /* absolute word of its count in a region */
};

DCISTAT_HANDLE_FIRST(struct dcistat_evcnt);

static const uint32_t evcnt_relative_id[] = {1};

static struct dcistat_class *
evcnt_class(struct dcistat_supplier *supplier)
{
	static const struct dci_instance_level levels[] = {
	    {.itype = DCI_ITYPE_EVENT, .size = 4},
	};
	struct dci_datum_info datums[4];
	unsigned char combines[4] = {DCISTAT_COMBINE_SUM,
	    DCISTAT_COMBINE_SHARED, DCISTAT_COMBINE_STRING,
	    DCISTAT_COMBINE_STRING};
	struct dci_class_info info = CLASS_INFO(evcnt_relative_id, 1, "evcnt",
	    "Event counters (evcnt(9)) of the application", levels, 1, datums,
	    4);

	if (supplier->evcnt_class != NULL)
		return supplier->evcnt_class;
	/* count, type, group, name: the model's first four. */
	memcpy(datums, evcnt_model_datums, sizeof(datums));
	datums[0].description = "Events counted";
	datums[1].description = "evcnt(9) counter type: 0 miscellaneous, "
	                        "1 interrupt, 2 trap";
	datums[2].size = SUPPLIER_EVCNT_STRING_SIZE;
	datums[3].size = SUPPLIER_EVCNT_STRING_SIZE;
	supplier->evcnt_class = dcistat_class_add_locked(
	    supplier, evcnt_relative_id, 1, &info, combines, NULL);
	return supplier->evcnt_class;
}

static void
shared_string(uint64_t *shared, uint32_t word, const char *text)
{
	uint64_t packed[SUPPLIER_EVCNT_STRING_SIZE / 8];

	memset(packed, 0, sizeof(packed));
	dcistat_copy_text((char *)packed, sizeof(packed), text);
	for (size_t w = 0; w < sizeof(packed) / 8; w++)
		__atomic_store_n(
		    &shared[word + w], packed[w], __ATOMIC_RELAXED);
}

static bool
attached(struct dcistat_supplier *supplier, struct dcistat_evcnt *counter)
{
	for (struct dcistat_handle *h = supplier->evcnt_list; h != NULL;
	     h = h->next) {
		if (h == &counter->handle)
			return true;
	}
	return false;
}

/* Under the supplier's lock: the counter GROUP NAME of `type` under
 * `parent`, published; NULL, the error set, when it cannot be. */
static struct dcistat_evcnt *
evcnt_attach_locked(struct dcistat_supplier *supplier,
    enum dcistat_evcnt_type type, struct dcistat_evcnt *parent,
    const char *group, const char *name)
{
	struct dcistat_evcnt *counter =
	    dcistat_handle_new(evcnt_class(supplier), sizeof(*counter));
	uint64_t *shared = dcistat_shared_region(supplier);
	char label[DCISTAT_SEGMENT_INSTANCE_LABEL_SIZE];

	if (counter == NULL)
		return NULL;
	/* count, type, group, name: evcnt_class's datums. */
	counter->count_word = dcistat_handle_word(&counter->handle, 0);
	__atomic_store_n(&shared[dcistat_handle_word(&counter->handle, 1)],
	    (uint64_t)type, __ATOMIC_RELAXED);
	shared_string(shared, dcistat_handle_word(&counter->handle, 2), group);
	shared_string(shared, dcistat_handle_word(&counter->handle, 3), name);
	snprintf(label, sizeof(label), "%s %s", group, name);
	if (dcistat_handle_publish(&counter->handle,
	        ++supplier->next_evcnt_serial, label,
	        parent != NULL ? parent->handle.instance->index + 1 : 0,
	        &supplier->evcnt_list, dcistat_evcnt_free_all) != 0)
		return NULL;
	counter->parent = parent;
	if (parent != NULL)
		parent->children++;
	return counter;
}

__attribute__((visibility("default"))) struct dcistat_evcnt *
dcistat_evcnt_attach(struct dcistat_supplier *supplier,
    enum dcistat_evcnt_type type, struct dcistat_evcnt *parent,
    const char *group, const char *name)
{
	struct dcistat_evcnt *counter = NULL;

	if (supplier == NULL || group == NULL || name == NULL ||
	    group[0] == '\0' || name[0] == '\0') {
		dcistat_fail(
		    EINVAL, "evcnt: a counter needs a group and a name");
		return NULL;
	}
	if (strlen(group) >= SUPPLIER_EVCNT_STRING_SIZE ||
	    strlen(name) >= SUPPLIER_EVCNT_STRING_SIZE) {
		dcistat_fail(EINVAL,
		    "evcnt \"%s %s\": group and name take at "
		    "most %u bytes each",
		    group, name, SUPPLIER_EVCNT_STRING_SIZE - 1);
		return NULL;
	}
	if ((unsigned)type > DCISTAT_EVCNT_TYPE_TRAP) {
		dcistat_fail(EINVAL, "evcnt \"%s %s\": type %u", group, name,
		    (unsigned)type);
		return NULL;
	}
	pthread_mutex_lock(&supplier->lock);
	if (parent != NULL && !attached(supplier, parent))
		dcistat_fail(EINVAL,
		    "evcnt \"%s %s\": its parent is not attached", group, name);
	else
		counter =
		    evcnt_attach_locked(supplier, type, parent, group, name);
	pthread_mutex_unlock(&supplier->lock);
	return counter;
}

/* Under the supplier's lock: a counter goes once no counter is attached
 * under it, and leaves its parent then. */
static int
evcnt_release_locked(struct dcistat_handle *handle)
{
	struct dcistat_evcnt *counter = (struct dcistat_evcnt *)handle;

	if (counter->children > 0)
		return dcistat_fail(EBUSY,
		    "evcnt: %u counters attached under this one are to be "
		    "detached first",
		    counter->children);
	if (counter->parent != NULL)
		counter->parent->children--;
	return 0;
}

__attribute__((visibility("default"))) int
dcistat_evcnt_detach(struct dcistat_evcnt *counter)
{
	/* The handle is the first member: NULL stays NULL. */
	return dcistat_handle_discard((struct dcistat_handle *)counter,
	    "evcnt: no counter", evcnt_release_locked);
}

static inline void
evcnt_add(struct dcistat_evcnt *counter, uint64_t amount)
{
	struct dcistat_supplier *supplier = counter->handle.supplier;
	uint64_t *region = dcistat_thread_region(supplier);

	if (__builtin_expect(region != NULL, 1))
		dcistat_add(&region[counter->count_word], amount, true);
	else
		dcistat_add(
		    &dcistat_shared_region(supplier)[counter->count_word],
		    amount, false);
}

__attribute__((visibility("default"))) void
dcistat_evcnt_add(struct dcistat_evcnt *counter, uint64_t amount)
{
	evcnt_add(counter, amount);
}

/* Not a call of dcistat_evcnt_add: an exported function is called through
 * the PLT even from its own library. */
__attribute__((visibility("default"))) void
dcistat_evcnt_increment(struct dcistat_evcnt *counter)
{
	evcnt_add(counter, 1);
}

static void
dcistat_evcnt_free_all(struct dcistat_supplier *supplier)
{
	dcistat_handles_free(&supplier->evcnt_list);
}
