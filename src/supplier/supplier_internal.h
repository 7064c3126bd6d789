/*
 * What the parts of libdcistat-supplier share: the handles behind the
 * opaque types of supplier.h, the segment writer's allocation functions
 * (under the supplier's lock) and the update primitives (no lock).
 */
#ifndef DCISTAT_SUPPLIER_INTERNAL_H
#define DCISTAT_SUPPLIER_INTERNAL_H

#include <dcistat/supplier.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dcistat/segment.h>

/* The installed bound (supplier.h) is the format's. */
_Static_assert(DCISTAT_SUPPLIER_STRING_MAX == DCISTAT_SEGMENT_STRING_MAX,
    "DCISTAT_SUPPLIER_STRING_MAX differs from the segment format's");

#pragma GCC visibility push(hidden)

struct dcistat_class {
	struct dcistat_supplier *supplier;
	uint32_t index; /* in the segment's class table */
	uint32_t datum_first;
	uint32_t datum_count;
	uint32_t value_words; /* of one instance */
	uint32_t id_words;    /* of one instance id */
	/* Per datum, in the order of the class info: its word, combine and
	 * signedness, copied from the segment so the update path reads
	 * nothing the reader could see change. */
	uint32_t *datum_ids;
	uint32_t *datum_words;
	unsigned char *datum_combines;
	struct dcistat_class *next;
};

struct dcistat_instance {
	struct dcistat_class *class_handle;
	uint32_t index;  /* in the segment's instance table */
	uint32_t block;  /* word offset of its block in every region */
	uint32_t values; /* word offset of its values in every region */
	uint32_t block_words;
	bool owns_block; /* false: it shares a block another instance frees */
	/* Generic instances (dcistat_instance_add) are listed, so that
	 * closing the supplier frees those the application did not remove. */
	struct dcistat_instance *listed_next;
	struct dcistat_instance *listed_previous;
};

/* The models that free handles of their own at close (evcnt, devstat,
 * stats). */
#define DCISTAT_CLOSE_FUNCTIONS_MAX 3

struct dcistat_supplier {
	pthread_mutex_t lock;
	char *path;
	int descriptor;
	unsigned char *base;
	size_t size;
	struct dcistat_segment_header *header;
	struct dcistat_segment_class *classes;
	struct dcistat_segment_datum *datums;
	struct dcistat_segment_instance *instances;
	uint64_t *regions;
	uint32_t region_words;
	uint32_t thread_regions;
	uint32_t block_next; /* first word never allocated */
	/* Freed blocks, reused by size; freed instance records. */
	struct dcistat_free_block *free_blocks;
	size_t free_block_count;
	size_t free_block_capacity;
	uint32_t *free_instances;
	size_t free_instance_count;
	struct dcistat_class *class_list;
	struct dcistat_instance *generic_instances;
	struct dcistat_class *evcnt_class;
	struct dcistat_class *devstat_class;
	uint32_t next_evcnt_serial;
	struct dcistat_handle *evcnt_list;   /* struct dcistat_evcnt */
	struct dcistat_handle *devstat_list; /* struct dcistat_devstat */
	struct dcistat_template *template_list;
	/* What the models hold of their own, freed at close
	 * (dcistat_supplier_on_close). */
	void (*close_functions[DCISTAT_CLOSE_FUNCTIONS_MAX])(
	    struct dcistat_supplier *supplier);
	size_t close_function_count;
	struct dcistat_supplier *next_open; /* the process's open suppliers */
};

struct dcistat_free_block {
	uint32_t block;
	uint32_t words;
};

/* Sets this thread's error and errno; returns -1. */
int dcistat_fail(int error_number, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Under the supplier's lock. */
struct dcistat_class *dcistat_class_add_locked(
    struct dcistat_supplier *supplier, const uint32_t *relative_id,
    size_t id_length, const struct dci_class_info *info,
    const unsigned char *combines, const uint32_t *divisors);
/* A block of `words` words (a sequence word included) in every region,
 * zeroed; 0 when the regions are full (block 0 is never allocated: word 0
 * of each region is unused). */
uint32_t dcistat_block_allocate(
    struct dcistat_supplier *supplier, uint32_t words);
void dcistat_block_free(
    struct dcistat_supplier *supplier, uint32_t block, uint32_t words);
/* Publishes an instance of `class_handle` whose values start at word
 * `values` of block `block`; NULL when the instance table is full. */
struct dcistat_instance *dcistat_instance_publish(
    struct dcistat_class *class_handle, uint32_t block, uint32_t block_words,
    uint32_t values, const uint32_t *id, size_t id_words, const char *label,
    uint32_t parent_index_plus_one);
/* dcistat_instance_publish for the instance that owns block `block`: the
 * block is freed with it, or at once when it cannot be published (NULL
 * then). */
struct dcistat_instance *dcistat_instance_publish_owning(
    struct dcistat_class *class_handle, uint32_t block, uint32_t block_words,
    uint32_t values, const uint32_t *id, size_t id_words, const char *label,
    uint32_t parent_index_plus_one);
void dcistat_instance_unpublish(struct dcistat_instance *instance);

/*
 * The first member of every handle an application holds for one instance
 * of a model's class (a devstat device, an evcnt counter): the supplier
 * (the update path's first load), the instance, and the handle's place in
 * the supplier's list of the model's handles.
 */
struct dcistat_handle {
	struct dcistat_supplier *supplier;
	struct dcistat_instance *instance;
	struct dcistat_handle *next;
	struct dcistat_handle **list; /* the supplier's list it is on */
	struct dcistat_class *class_handle;
	uint32_t block; /* its instance's sequence word, the values after it */
	uint32_t block_words;
};

/* Under the supplier's lock: a zeroed handle of `size` bytes (its struct
 * dcistat_handle first) for a new instance of class_handle, with the
 * block of the instance's words (handle->block). NULL, the error set, when
 * memory or the segment's space runs out, or class_handle is NULL (the
 * model's class could not be added). */
void *dcistat_handle_new(struct dcistat_class *class_handle, size_t size);

/* The word, in every region, of the value of the datum at `position` in
 * the handle's class (dcistat_class_add_locked's order). */
static inline uint32_t
dcistat_handle_word(const struct dcistat_handle *handle, size_t position)
{
	return handle->block + 1 + handle->class_handle->datum_words[position];
}

/* Under the supplier's lock: publishes the instance of a handle from
 * dcistat_handle_new (id `serial`, labelled `label`), owning its block,
 * and adds the handle to *list, which `close` frees when the supplier
 * closes (dcistat_supplier_on_close, dcistat_handles_free). -1 when the
 * instance table is full: the handle and its block are freed then. */
int dcistat_handle_publish(struct dcistat_handle *handle, uint32_t serial,
    const char *label, uint32_t parent_index_plus_one,
    struct dcistat_handle **list,
    void (*close)(struct dcistat_supplier *supplier));

/* A model's handle type (devstat, evcnt) keeps its struct dcistat_handle
 * first: the handle functions are given &x->handle and cast it back. */
#define DCISTAT_HANDLE_FIRST(type)                                             \
	_Static_assert(offsetof(type, handle) == 0,                            \
	    #type ": the handle is the first member")

/* A model's public remove (devstat, evcnt): fails with EINVAL and the
 * message `absent` when handle is NULL; else, under the supplier's lock,
 * calls release_locked (when not NULL), which either refuses (-1, the
 * error set, nothing changed) or releases what the handle holds besides
 * its place in the list (0; nothing after it fails), then takes the
 * handle out of its list, withdraws its instance and frees it. */
int dcistat_handle_discard(struct dcistat_handle *handle, const char *absent,
    int (*release_locked)(struct dcistat_handle *handle));

/* At close: frees every handle of *list with its instance. */
void dcistat_handles_free(struct dcistat_handle **list);

/* Under the supplier's lock: `close` frees what a model (evcnt.c,
 * devstat.c, stats.c) linked into the supplier, when it closes. A model
 * names it as it links its first handle (again is no change), so the
 * supplier itself knows no model. */
void dcistat_supplier_on_close(struct dcistat_supplier *supplier,
    void (*close)(struct dcistat_supplier *supplier));

/* Copies at most size - 1 bytes and a NUL. */
void dcistat_copy_text(char *to, size_t size, const char *from);

/* --- The update path: no lock, no system call, no allocation --- */

/* This thread's region number plus one; 0 until its first update.
 * Initial-exec: the update path reads it without a call to
 * __tls_get_addr (the library is linked, not dlopen()ed, by
 * applications). */
extern _Thread_local uint32_t dcistat_thread_number_plus_one
    __attribute__((tls_model("initial-exec")));
/* The slow path of a thread's first update: takes a number, announced to
 * every open supplier before the thread writes into its region. */
uint32_t dcistat_thread_number_take(void);

/* This thread's region in `supplier`, or NULL when it has none (more
 * threads than thread regions): it then updates the shared region with
 * atomic read-modify-writes. Inline: it is on every update path. */
static inline uint64_t *
dcistat_thread_region(struct dcistat_supplier *supplier)
{
	uint32_t number = dcistat_thread_number_plus_one - 1;

	if (__builtin_expect(dcistat_thread_number_plus_one == 0, 0))
		number = dcistat_thread_number_take();
	if (number >= supplier->thread_regions)
		return NULL;
	return supplier->regions + (size_t)number * supplier->region_words;
}

static inline uint64_t *
dcistat_shared_region(const struct dcistat_supplier *supplier)
{
	return supplier->regions +
	       (size_t)supplier->thread_regions * supplier->region_words;
}

/* Opens a multi-word update of `block` in `region` (a thread's own, with
 * plain stores, or the shared one, atomically); close it with
 * dcistat_block_end. */
static inline void
dcistat_block_begin(uint64_t *block_word, bool own_region)
{
	uint32_t *sequence = (uint32_t *)block_word;
	if (own_region) {
		__atomic_store_n(&sequence[0],
		    __atomic_load_n(&sequence[0], __ATOMIC_RELAXED) + 1,
		    __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
	} else {
		__atomic_fetch_add(&sequence[0], 1, __ATOMIC_ACQ_REL);
	}
}

static inline void
dcistat_block_end(uint64_t *block_word, bool own_region)
{
	uint32_t *sequence = (uint32_t *)block_word;
	if (own_region)
		__atomic_store_n(&sequence[1],
		    __atomic_load_n(&sequence[0], __ATOMIC_RELAXED),
		    __ATOMIC_RELEASE);
	else
		__atomic_fetch_add(&sequence[1], 1, __ATOMIC_RELEASE);
}

/* word += amount in a region: plain in a thread's own, atomic in the
 * shared one. */
static inline void
dcistat_add(uint64_t *word, uint64_t amount, bool own_region)
{
	if (own_region)
		__atomic_store_n(word,
		    __atomic_load_n(word, __ATOMIC_RELAXED) + amount,
		    __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(word, amount, __ATOMIC_RELAXED);
}

/* word = max(word, encoded): plain in a thread's own, a compare and swap
 * loop in the shared one. */
static inline void
dcistat_raise(uint64_t *word, uint64_t encoded, bool own_region)
{
	uint64_t current = __atomic_load_n(word, __ATOMIC_RELAXED);
	if (own_region) {
		if (encoded > current)
			__atomic_store_n(word, encoded, __ATOMIC_RELAXED);
		return;
	}
	while (encoded > current &&
	       !__atomic_compare_exchange_n(word, &current, encoded, true,
	           __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

#pragma GCC visibility pop

#endif
