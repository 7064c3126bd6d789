/*
 * libdcistat-supplier: devstat(9) device statistics. Each device is an
 * instance of the supplier's devstat class (relative id {2}) with the
 * datums of the devstat model that an application's device has: bytes and
 * operations per kind, busy count, busy time, block size, device type,
 * priority, creation time, durations per kind and the device name.
 *
 * Bytes, operations and durations are kept per thread, under the block's
 * sequence, so a reader sees a transaction's end whole. The busy state is
 * shared (segment.h: outstanding count, busy periods being closed, start
 * of the current period) and changed by compare and swap: the time of a
 * busy period that ends is read after the swap that ends it, so busy time
 * as read never goes back. Two periods that touch within the time of a
 * clock read may overlap by that much.
 *
 * Times are CLOCK_MONOTONIC, read through the vDSO (no system call on
 * Linux): durations in nanoseconds, busy time in microseconds, both
 * served in milliseconds as the built-in provider serves them. Start and
 * end read it as of the kernel's last tick (transaction_clock), as
 * devstat(9) does; the _at variants take the caller's times.
 */
#define _GNU_SOURCE

#include "format/datum_forms.h"
#include "format/devstat_model.h"
#include "supplier/supplier_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void dcistat_devstat_free_all(struct dcistat_supplier *supplier);

/* The model's datums an application's device has, in this order. */
static const uint32_t devstat_served[] = {
    DEVSTAT_DATUM_BYTES_READ,
    DEVSTAT_DATUM_BYTES_WRITTEN,
    DEVSTAT_DATUM_BYTES_FREED,
    DEVSTAT_DATUM_NUM_READS,
    DEVSTAT_DATUM_NUM_WRITES,
    DEVSTAT_DATUM_NUM_FREES,
    DEVSTAT_DATUM_NUM_OTHER,
    DEVSTAT_DATUM_BUSY_COUNT,
    DEVSTAT_DATUM_BUSY_TIME,
    DEVSTAT_DATUM_BLOCK_SIZE,
    DEVSTAT_DATUM_DEVICE_TYPE,
    DEVSTAT_DATUM_PRIORITY,
    DEVSTAT_DATUM_CREATION_TIME,
    DEVSTAT_DATUM_DURATION_READ,
    DEVSTAT_DATUM_DURATION_WRITE,
    DEVSTAT_DATUM_DURATION_FREE,
    DEVSTAT_DATUM_DURATION_OTHER,
    DEVSTAT_DATUM_DEVICE_NAME,
};
#define DEVSTAT_SERVED_COUNT (sizeof devstat_served / sizeof devstat_served[0])

enum devstat_position {
	POSITION_BYTES = 0,      /* + kind - 1: read, write, free */
	POSITION_OPERATIONS = 3, /* + kind - 1; other at + 3 */
	POSITION_BUSY_COUNT = 7,
	POSITION_BUSY_TIME = 8,
	POSITION_BLOCK_SIZE = 9,
	POSITION_DEVICE_TYPE = 10,
	POSITION_PRIORITY = 11,
	POSITION_CREATION_TIME = 12,
	POSITION_DURATION = 13, /* + kind - 1; other at + 3 */
	POSITION_DEVICE_NAME = 17,
};

struct dcistat_devstat {
	struct dcistat_handle handle; /* first: its supplier is the update
	                                 path's */
	uint32_t busy_state;          /* absolute word in the shared region */
	uint32_t bytes[4];            /* by kind; [0] unused */
	uint32_t operations[4];
	uint32_t durations[4];
};

DCISTAT_HANDLE_FIRST(struct dcistat_devstat);

static const uint32_t devstat_relative_id[] = {2};

static struct dcistat_class *
devstat_class(struct dcistat_supplier *supplier)
{
	static const struct dci_instance_level levels[] = {
	    {.itype = DCI_ITYPE_DEVICE, .size = 4},
	};
	struct dci_datum_info datums[DEVSTAT_SERVED_COUNT];
	unsigned char combines[DEVSTAT_SERVED_COUNT];
	uint32_t divisors[DEVSTAT_SERVED_COUNT];
	struct dci_class_info info = CLASS_INFO(devstat_relative_id, 1,
	    "devstat", "Device statistics (devstat(9)) of the application",
	    levels, 1, datums, DEVSTAT_SERVED_COUNT);

	if (supplier->devstat_class != NULL)
		return supplier->devstat_class;
	for (size_t d = 0; d < DEVSTAT_SERVED_COUNT; d++) {
		/* Model ids are 1..DEVSTAT_MODEL_DATUM_COUNT, in order. */
		datums[d] = devstat_model_datums[devstat_served[d] - 1];
		combines[d] = datums[d].type == DCI_ST_STRING
		                  ? DCISTAT_COMBINE_STRING
		              : datums[d].semantics == DCI_SEMANTICS_COUNTER
		                  ? DCISTAT_COMBINE_SUM
		                  : DCISTAT_COMBINE_SHARED;
		divisors[d] = 1;
	}
	datums[POSITION_DEVICE_NAME].description = "Device name and unit";
	datums[POSITION_CREATION_TIME].description =
	    "When the application added the device";
	combines[POSITION_BUSY_COUNT] = DCISTAT_COMBINE_BUSY_COUNT;
	combines[POSITION_BUSY_TIME] = DCISTAT_COMBINE_BUSY_TIME;
	divisors[POSITION_BUSY_TIME] = 1000; /* us to ms */
	for (size_t k = 0; k < 4; k++)
		divisors[POSITION_DURATION + k] = 1000000; /* ns to ms */
	supplier->devstat_class = dcistat_class_add_locked(
	    supplier, devstat_relative_id, 1, &info, combines, divisors);
	return supplier->devstat_class;
}

static inline uint64_t
monotonic_nanoseconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* The coarsest tick a transaction's clock may have: devstat(9) keeps busy
 * time with getmicrouptime(), the kernel's time as of its last tick, and
 * ticks were 10 ms at the traditional hz of 100. */
#define DEVSTAT_CLOCK_TICK_MAX_NANOSECONDS 10000000L

/* The clock of start and end: CLOCK_MONOTONIC_COARSE (the same clock as
 * of the last tick, several times cheaper to read than CLOCK_MONOTONIC on
 * a virtual machine) when its tick is no coarser than devstat(9)'s,
 * CLOCK_MONOTONIC otherwise. Chosen once; every thread
 * chooses the same. */
static clockid_t
transaction_clock(void)
{
	static int chosen = -1;
	int clock = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
#ifdef CLOCK_MONOTONIC_COARSE
	struct timespec tick;
#endif

	if (clock >= 0)
		return (clockid_t)clock;
	clock = CLOCK_MONOTONIC;
#ifdef CLOCK_MONOTONIC_COARSE
	if (clock_getres(CLOCK_MONOTONIC_COARSE, &tick) == 0 &&
	    tick.tv_sec == 0 &&
	    tick.tv_nsec <= DEVSTAT_CLOCK_TICK_MAX_NANOSECONDS)
		clock = CLOCK_MONOTONIC_COARSE;
#endif
	__atomic_store_n(&chosen, clock, __ATOMIC_RELAXED);
	return (clockid_t)clock;
}

static inline uint64_t
transaction_nanoseconds(void)
{
	struct timespec now;

	clock_gettime(transaction_clock(), &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Under the supplier's lock: the device labelled `label` (length bytes),
 * published; NULL, the error set, when it cannot be. */
static struct dcistat_devstat *
devstat_add_locked(struct dcistat_supplier *supplier, const char *label,
    size_t length, uint32_t block_size, uint32_t device_type, uint32_t priority)
{
	struct dcistat_devstat *device =
	    dcistat_handle_new(devstat_class(supplier), sizeof(*device));
	uint64_t *shared = dcistat_shared_region(supplier);
	uint64_t packed[DEVSTAT_MODEL_NAME_SIZE / 8];
	const struct dcistat_handle *handle;

	if (device == NULL)
		return NULL;
	handle = &device->handle;
	__atomic_store_n(
	    &shared[dcistat_handle_word(handle, POSITION_BLOCK_SIZE)],
	    (uint64_t)block_size, __ATOMIC_RELAXED);
	__atomic_store_n(
	    &shared[dcistat_handle_word(handle, POSITION_DEVICE_TYPE)],
	    (uint64_t)device_type, __ATOMIC_RELAXED);
	__atomic_store_n(
	    &shared[dcistat_handle_word(handle, POSITION_PRIORITY)],
	    (uint64_t)priority, __ATOMIC_RELAXED);
	/* STF_MONOTONIC: centiseconds of CLOCK_MONOTONIC. */
	__atomic_store_n(
	    &shared[dcistat_handle_word(handle, POSITION_CREATION_TIME)],
	    monotonic_nanoseconds() / 10000000u, __ATOMIC_RELAXED);
	memset(packed, 0, sizeof(packed));
	memcpy(packed, label, length);
	for (size_t w = 0; w < sizeof(packed) / 8; w++)
		__atomic_store_n(
		    &shared[dcistat_handle_word(handle, POSITION_DEVICE_NAME) +
		            w],
		    packed[w], __ATOMIC_RELAXED);
	device->busy_state = dcistat_handle_word(handle, POSITION_BUSY_TIME);
	for (uint32_t kind = 1; kind <= 3; kind++) {
		device->bytes[kind] =
		    dcistat_handle_word(handle, POSITION_BYTES + kind - 1);
		device->operations[kind] =
		    dcistat_handle_word(handle, POSITION_OPERATIONS + kind - 1);
		device->durations[kind] =
		    dcistat_handle_word(handle, POSITION_DURATION + kind - 1);
	}
	device->operations[0] =
	    dcistat_handle_word(handle, POSITION_OPERATIONS + 3);
	device->durations[0] =
	    dcistat_handle_word(handle, POSITION_DURATION + 3);
	/* The block is unique among the blocks live: the instance's id. */
	if (dcistat_handle_publish(&device->handle, handle->block, label, 0,
	        &supplier->devstat_list, dcistat_devstat_free_all) != 0)
		return NULL;
	return device;
}

__attribute__((visibility("default"))) struct dcistat_devstat *
dcistat_devstat_add(struct dcistat_supplier *supplier, const char *name,
    uint32_t unit_number, uint32_t block_size, uint32_t flags,
    uint32_t device_type, uint32_t priority)
{
	struct dcistat_devstat *device;
	char label[DEVSTAT_MODEL_NAME_SIZE];
	int length;

	(void)flags; /* devstat(9)'s flags say what the device does not
	                count; every kind is counted here */
	if (supplier == NULL || name == NULL || name[0] == '\0') {
		dcistat_fail(EINVAL, "devstat: a device needs a name");
		return NULL;
	}
	length = snprintf(label, sizeof(label), "%s%u", name, unit_number);
	if (length < 0 || (size_t)length >= sizeof(label)) {
		dcistat_fail(EINVAL,
		    "devstat: name \"%s\" longer than %u bytes", name,
		    DEVSTAT_MODEL_NAME_SIZE - 1);
		return NULL;
	}
	pthread_mutex_lock(&supplier->lock);
	device = devstat_add_locked(
	    supplier, label, (size_t)length, block_size, device_type, priority);
	pthread_mutex_unlock(&supplier->lock);
	return device;
}

__attribute__((visibility("default"))) int
dcistat_devstat_remove(struct dcistat_devstat *device)
{
	/* The handle is the first member: NULL stays NULL. */
	return dcistat_handle_discard(
	    (struct dcistat_handle *)device, "devstat: no device", NULL);
}

__attribute__((visibility("default"))) uint64_t
dcistat_devstat_start_transaction_at(
    struct dcistat_devstat *device, uint64_t now)
{
	uint64_t *state =
	    &dcistat_shared_region(device->handle.supplier)[device->busy_state];
	uint64_t current = __atomic_load_n(state, __ATOMIC_RELAXED);
	uint64_t next;

	do {
		uint32_t count = dcistat_segment_busy_count(current);
		if (count == DCISTAT_SEGMENT_BUSY_COUNT_MAX)
			return now; /* saturated: counted busy already */
		if (count == 0)
			next = (now / 1000u)
			           << DCISTAT_SEGMENT_BUSY_START_SHIFT |
			       (current &
			           ((uint64_t)0xfu
			               << DCISTAT_SEGMENT_BUSY_CLOSER_SHIFT)) |
			       1u;
		else
			next = current + 1;
	} while (!__atomic_compare_exchange_n(
	    state, &current, next, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return now;
}

__attribute__((visibility("default"))) uint64_t
dcistat_devstat_start_transaction(struct dcistat_devstat *device)
{
	return dcistat_devstat_start_transaction_at(
	    device, transaction_nanoseconds());
}

/* Ends one outstanding transaction; the last one ends the busy period,
 * whose time is added once the period is closed. */
static void
busy_end(uint64_t *state, uint64_t *busy_microseconds, uint64_t now)
{
	uint64_t current = __atomic_load_n(state, __ATOMIC_RELAXED);
	uint64_t next;
	uint32_t count;

	for (;;) {
		count = dcistat_segment_busy_count(current);
		if (count == 0)
			return; /* an end without a start */
		if (count == 1) {
			if (dcistat_segment_busy_closers(current) ==
			    DCISTAT_SEGMENT_BUSY_CLOSER_MAX) {
				current =
				    __atomic_load_n(state, __ATOMIC_RELAXED);
				continue;
			}
			next =
			    current - 1 +
			    ((uint64_t)1 << DCISTAT_SEGMENT_BUSY_CLOSER_SHIFT);
		} else {
			next = current - 1;
		}
		if (__atomic_compare_exchange_n(state, &current, next, true,
		        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (count == 1) {
		uint64_t mask =
		    (UINT64_C(1) << (64 - DCISTAT_SEGMENT_BUSY_START_SHIFT)) -
		    1;
		uint64_t end = (now / 1000u) & mask;
		uint64_t start = dcistat_segment_busy_start(current);
		/* A time before the period's start (a caller's clock that went
		 * back) adds nothing rather than wrapping. */
		__atomic_fetch_add(busy_microseconds,
		    end >= start ? end - start : 0, __ATOMIC_RELEASE);
		__atomic_fetch_sub(state,
		    (uint64_t)1 << DCISTAT_SEGMENT_BUSY_CLOSER_SHIFT,
		    __ATOMIC_RELEASE);
	}
}

__attribute__((visibility("default"))) void
dcistat_devstat_end_transaction_at(struct dcistat_devstat *device,
    uint64_t bytes, enum dcistat_devstat_kind kind, uint64_t start,
    uint64_t now)
{
	struct dcistat_supplier *supplier = device->handle.supplier;
	uint64_t *shared = dcistat_shared_region(supplier);
	uint64_t *region = dcistat_thread_region(supplier);
	bool own = region != NULL;
	unsigned k =
	    (unsigned)kind <= DCISTAT_DEVSTAT_FREE ? (unsigned)kind : 0;

	if (!own)
		region = shared;
	busy_end(
	    &shared[device->busy_state], &shared[device->busy_state + 1], now);
	dcistat_block_begin(&region[device->handle.block], own);
	if (k != DCISTAT_DEVSTAT_NO_DATA)
		dcistat_add(&region[device->bytes[k]], bytes, own);
	dcistat_add(&region[device->operations[k]], 1, own);
	dcistat_add(
	    &region[device->durations[k]], now > start ? now - start : 0, own);
	dcistat_block_end(&region[device->handle.block], own);
}

__attribute__((visibility("default"))) void
dcistat_devstat_end_transaction(struct dcistat_devstat *device, uint64_t bytes,
    enum dcistat_devstat_kind kind, uint64_t start)
{
	dcistat_devstat_end_transaction_at(
	    device, bytes, kind, start, transaction_nanoseconds());
}

static void
dcistat_devstat_free_all(struct dcistat_supplier *supplier)
{
	dcistat_handles_free(&supplier->devstat_list);
}
