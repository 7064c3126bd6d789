/*
 * The devstat(9) model: the datums of a devstat class, shared by the
 * built-in devstat provider (Linux block devices) and libdcistat-supplier
 * (an application's devices), so both serve the same names, types and
 * units. Datum ids are stable and part of both interfaces.
 */
#ifndef DCISTAT_MODELS_DEVSTAT_MODEL_H
#define DCISTAT_MODELS_DEVSTAT_MODEL_H

#include <dcistat/provider.h>

#pragma GCC visibility push(hidden)

enum devstat_datum_id {
	DEVSTAT_DATUM_BYTES_READ = 1,
	DEVSTAT_DATUM_BYTES_WRITTEN = 2,
	DEVSTAT_DATUM_BYTES_FREED = 3,
	DEVSTAT_DATUM_NUM_READS = 4,
	DEVSTAT_DATUM_NUM_WRITES = 5,
	DEVSTAT_DATUM_NUM_FREES = 6,
	DEVSTAT_DATUM_NUM_OTHER = 7,
	DEVSTAT_DATUM_BUSY_COUNT = 8,
	DEVSTAT_DATUM_BUSY_TIME = 9,
	DEVSTAT_DATUM_BLOCK_SIZE = 10,
	DEVSTAT_DATUM_DEVICE_TYPE = 11,
	DEVSTAT_DATUM_PRIORITY = 12,
	DEVSTAT_DATUM_CREATION_TIME = 13,
	DEVSTAT_DATUM_DURATION_READ = 14,
	DEVSTAT_DATUM_DURATION_WRITE = 15,
	DEVSTAT_DATUM_DURATION_FREE = 16,
	DEVSTAT_DATUM_DURATION_OTHER = 17,
	DEVSTAT_DATUM_ROTATIONAL = 18,
	DEVSTAT_DATUM_REMOVABLE = 19,
	DEVSTAT_DATUM_PARTITION = 20,
	DEVSTAT_DATUM_DEVICE_NAME = 21,
	DEVSTAT_DATUM_NUM_READS_MERGED = 22,
	DEVSTAT_DATUM_NUM_WRITES_MERGED = 23,
	DEVSTAT_DATUM_NUM_FREES_MERGED = 24,
	DEVSTAT_DATUM_BUSY_TIME_WEIGHTED = 25,
};

/* The longest device name, NUL included. */
#define DEVSTAT_MODEL_NAME_SIZE 64u
#define DEVSTAT_MODEL_DATUM_COUNT 25u

extern const struct dci_datum_info
    devstat_model_datums[DEVSTAT_MODEL_DATUM_COUNT];

#pragma GCC visibility pop

#endif
