#include "format/devstat_model.h"

/* A 64-bit counter datum. */
#define DEVSTAT_COUNTER(datum_id, datum_label, datum_unit, text)               \
	{                                                                      \
		.id = (datum_id), .label = (datum_label),                      \
		.type = DCI_ST_INTEGER64, .format = DCI_SIF_UNSIGNED,          \
		.presentation = DCI_SIP_DECIMAL, .size = 0,                    \
		.volatility = DCI_SV_VOLATILE, .unit = (datum_unit),           \
		.semantics = DCI_SEMANTICS_COUNTER, .description = (text),     \
	}

/* A 32-bit value fixed for the device's life, shown in hexadecimal. */
#define DEVSTAT_FLAGS(datum_id, datum_label, text)                             \
	{                                                                      \
		.id = (datum_id), .label = (datum_label),                      \
		.type = DCI_ST_INTEGER32, .format = DCI_SIF_UNSIGNED,          \
		.presentation = DCI_SIP_HEXADECIMAL, .size = 0,                \
		.volatility = DCI_SV_STATIC, .unit = DCI_UNIT_NONE,            \
		.semantics = DCI_SEMANTICS_DISCRETE, .description = (text),    \
	}

/* A yes/no attribute fixed for the device's life. */
#define DEVSTAT_BOOLEAN(datum_id, datum_label, text)                           \
	{                                                                      \
		.id = (datum_id), .label = (datum_label),                      \
		.type = DCI_ST_BOOLEAN, .format = DCI_SBF_NORMAL,              \
		.presentation = DCI_SBP_YES_NO, .size = 0,                     \
		.volatility = DCI_SV_STATIC, .unit = DCI_UNIT_NONE,            \
		.semantics = DCI_SEMANTICS_DISCRETE, .description = (text),    \
	}

const struct dci_datum_info devstat_model_datums[] = {
    DEVSTAT_COUNTER(DEVSTAT_DATUM_BYTES_READ, "bytes_read", DCI_UNIT_BYTES,
        "Bytes read from the device"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_BYTES_WRITTEN, "bytes_written",
        DCI_UNIT_BYTES, "Bytes written to the device"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_BYTES_FREED, "bytes_freed", DCI_UNIT_BYTES,
        "Bytes discarded (freed, trimmed) on the device"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_NUM_READS, "num_reads", DCI_UNIT_READS,
        "Read requests completed"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_NUM_WRITES, "num_writes", DCI_UNIT_WRITES,
        "Write requests completed"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_NUM_FREES, "num_frees", DCI_UNIT_TRANSACTIONS,
        "Discard requests completed"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_NUM_OTHER, "num_other", DCI_UNIT_TRANSACTIONS,
        "Requests that move no data (cache flushes) completed"),
    {
        .id = DEVSTAT_DATUM_BUSY_COUNT,
        .label = "busy_count",
        .type = DCI_ST_INTEGER32,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .size = 0,
        .volatility = DCI_SV_VOLATILE,
        .unit = DCI_UNIT_TRANSACTIONS,
        .semantics = DCI_SEMANTICS_GAUGE,
        .description = "Requests issued to the device and not completed",
    },
    DEVSTAT_COUNTER(DEVSTAT_DATUM_BUSY_TIME, "busy_time", DCI_UNIT_MILLISECONDS,
        "Time with at least one request in flight, in ms"),
    {
        .id = DEVSTAT_DATUM_BLOCK_SIZE,
        .label = "block_size",
        .type = DCI_ST_INTEGER32,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .size = 0,
        .volatility = DCI_SV_STATIC,
        .unit = DCI_UNIT_BYTES,
        .semantics = DCI_SEMANTICS_DISCRETE,
        .description = "Logical block size: the smallest unit the device "
                       "addresses, in bytes",
    },
    DEVSTAT_FLAGS(DEVSTAT_DATUM_DEVICE_TYPE, "device_type",
        "devstat(9) device type: peripheral type | interface"),
    DEVSTAT_FLAGS(DEVSTAT_DATUM_PRIORITY, "priority",
        "devstat(9) priority: the kind of device, for ordering lists"),
    {
        .id = DEVSTAT_DATUM_CREATION_TIME,
        .label = "creation_time",
        .type = DCI_ST_TIME,
        .format = DCI_STF_MONOTONIC,
        .presentation = DCI_STP_ABSOLUTE,
        .size = 0,
        .volatility = DCI_SV_STATIC,
        .unit = DCI_UNIT_CENTISECONDS,
        .semantics = DCI_SEMANTICS_DISCRETE,
        .description = "When this provider first saw the device",
    },
    DEVSTAT_COUNTER(DEVSTAT_DATUM_DURATION_READ, "duration_read",
        DCI_UNIT_MILLISECONDS, "Time spent in read requests, summed, in ms"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_DURATION_WRITE, "duration_write",
        DCI_UNIT_MILLISECONDS, "Time spent in write requests, summed, in ms"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_DURATION_FREE, "duration_free",
        DCI_UNIT_MILLISECONDS, "Time spent in discard requests, summed, in ms"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_DURATION_OTHER, "duration_other",
        DCI_UNIT_MILLISECONDS, "Time spent in flush requests, summed, in ms"),
    DEVSTAT_BOOLEAN(DEVSTAT_DATUM_ROTATIONAL, "rotational",
        "Rotating media (a spinning disk, not flash or memory)"),
    DEVSTAT_BOOLEAN(DEVSTAT_DATUM_REMOVABLE, "removable",
        "Removable media (CD, floppy, card reader)"),
    DEVSTAT_BOOLEAN(DEVSTAT_DATUM_PARTITION, "partition",
        "A partition of a disk rather than a whole disk"),
    {
        .id = DEVSTAT_DATUM_DEVICE_NAME,
        .label = "device_name",
        .type = DCI_ST_STRING,
        .format = DCI_SSF_ZEROTERM,
        .presentation = DCI_SSP_LITERAL,
        .size = DEVSTAT_MODEL_NAME_SIZE,
        .volatility = DCI_SV_STATIC,
        .unit = DCI_UNIT_NONE,
        .semantics = DCI_SEMANTICS_DISCRETE,
        .description = "Device name, as in /proc/diskstats and /dev",
    },
    DEVSTAT_COUNTER(DEVSTAT_DATUM_NUM_READS_MERGED, "num_reads_merged",
        DCI_UNIT_READS, "Read requests merged into adjacent ones"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_NUM_WRITES_MERGED, "num_writes_merged",
        DCI_UNIT_WRITES, "Write requests merged into adjacent ones"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_NUM_FREES_MERGED, "num_frees_merged",
        DCI_UNIT_TRANSACTIONS, "Discard requests merged into adjacent ones"),
    DEVSTAT_COUNTER(DEVSTAT_DATUM_BUSY_TIME_WEIGHTED, "busy_time_weighted",
        DCI_UNIT_MILLISECONDS,
        "Time with requests in flight times their number, in ms"),
};

_Static_assert(sizeof devstat_model_datums / sizeof devstat_model_datums[0] ==
        DEVSTAT_MODEL_DATUM_COUNT,
    "the datum count");
