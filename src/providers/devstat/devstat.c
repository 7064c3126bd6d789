/*
 * devstat: a dcistat provider for Linux block device I/O statistics, served
 * in the shape of FreeBSD's devstat(9) device statistics.
 *
 * One class, devstat {1, 2}, with one instance per block device, identified
 * by its (major, minor) device number in two levels, which stays the same
 * for as long as the device exists (UCD-DISKIO-MIB's index, by contrast,
 * renumbers rows as devices come and go), and labelled with its name. Each
 * refresh is one read of /proc/diskstats: every device, every counter, a
 * few system calls. sysfs is read only when a device appears, for what
 * devstat_add_entry() would have been told: block size, device type,
 * priority (see devstat_device.c), and whether it is a partition.
 *
 * Datum ids are stable and part of the provider's interface:
 *   1 bytes_read, 2 bytes_written, 3 bytes_freed (discarded), in bytes
 *     (the kernel's 512-byte sectors times 512);
 *   4 num_reads, 5 num_writes, 6 num_frees (discards), 7 num_other
 *     (flushes): completed requests;
 *   8 busy_count: requests in flight now;
 *   9 busy_time: ms with at least one request in flight;
 *   10 block_size (logical), 11 device_type, 12 priority (devstat(9)
 *     values), 13 creation_time (when this provider first saw the device);
 *   14 duration_read, 15 duration_write, 16 duration_free,
 *     17 duration_other: ms spent in requests of each kind, summed;
 *   18 rotational, 19 removable, 20 partition, 21 device_name;
 *   22 num_reads_merged, 23 num_writes_merged, 24 num_frees_merged:
 *     requests merged into adjacent ones before they were issued;
 *   25 busy_time_weighted: ms times requests in flight (iostat's queue size
 *     is its rate).
 * A statistic the kernel does not report (discards before Linux 4.18,
 * flushes before 5.5) has no value, and nor has a sysfs attribute that
 * could not be read.
 *
 * The kernel's millisecond counters are 32 bits wide and wrap every 2^32
 * ms of accumulated time; they are served extended to 64 bits, which is
 * exact as long as no counter grows by 2^32 or more between two refreshes
 * (one that does loses 2^32 per extra wrap). busy_time grows by at most
 * one ms per ms, but the durations and busy_time_weighted add one ms per
 * request in flight per ms, so init declares a refresh limit
 * (dci_refresh_limit) of 2^32 ms divided by DEVSTAT_IN_FLIGHT_MAX, and the
 * host refreshes at least that often. On 32-bit kernels the request and
 * sector counters are 32 bits wide too and their wraps look like resets.
 * When a device's counters go down it was detached and attached again
 * between two refreshes: its values start again from the kernel's and the
 * refresh declares the instance discontinuous
 * (dci_batch_set_discontinuity), which sets its discontinuity time
 * whichever of its counters went down. A device that left
 * /proc/diskstats and came back, or a device number that now has another
 * name, is a new device: a new creation time, sysfs read again.
 *
 * Options (read once in init): include and exclude, each a shell glob or a
 * list of them (fnmatch(3), no flags) matched against the device name. A
 * device is served when include is absent or one of its patterns matches,
 * and no exclude pattern matches. Without either, exclude is loop*, ram*,
 * zram*, which are not disks (as snmpd's diskio_exclude_loop and
 * diskio_exclude_ram leave them out of UCD-DISKIO-MIB); giving
 * either replaces that default (exclude: [] serves every device).
 * partitions (boolean, default no): serve partitions too, not only whole
 * disks (as iostat shows by default). A device is a partition when sysfs
 * says so (/sys/class/block/NAME/partition).
 */
#define _GNU_SOURCE

#include <dcistat/provider.h>

#include "devstat_device.h"
#include "format/datum_forms.h"
#include "format/devstat_model.h"
#include "diskstats.h"
#include "providers/common/start.h"
#include "providers/common/clock.h"
#include "providers/common/file_buffer.h"
#include "providers/common/patterns.h"
#include "providers/common/warnings.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(DISKSTATS_NAME_SIZE == DEVSTAT_MODEL_NAME_SIZE, "name size");

#define DEVSTAT_DISKSTATS_PATH "/proc/diskstats"
#define DEVSTAT_SYSFS_ROOT "/sys"
/* A /proc/diskstats larger than this is refused rather than read on and
 * on: thousands of times the size of a large machine's. */
#define DEVSTAT_DISKSTATS_MAX (64u * 1024u * 1024u)
/* More requests in flight on one device than its durations could count
 * at once: a bound well above the block layer's queue depths (requests
 * per hardware queue times hardware queues) of real devices. The summed
 * millisecond counters grow by at most this much per ms. */
#define DEVSTAT_IN_FLIGHT_MAX 65536u
/* The longest interval between refreshes in which no millisecond counter
 * can grow by 2^32 (see the top of this file). */
#define DEVSTAT_REFRESH_LIMIT_MILLISECONDS                                     \
	((unsigned)((UINT64_C(1) << 32) / DEVSTAT_IN_FLIGHT_MAX))

static const struct dci_supplier_info devstat_supplier = {
    .module = "devstat",
    .title = "Block device statistics",
    .description = "Linux block device I/O statistics in the FreeBSD "
                   "devstat model, from /proc/diskstats and sysfs",
    .type = 0,
    .version = 100,
};

static const uint32_t devstat_class_id[] = {1, 2};

/* (major, minor): the device number, which is stable while the device
 * exists. */
static const struct dci_instance_level devstat_levels[] = {
    {.itype = DCI_ITYPE_DISKID, .size = 4},
    {.itype = DCI_ITYPE_DISKID, .size = 4},
};

/* The counter datums, each one /proc/diskstats field times a scale. */
static const struct {
	uint32_t datum;
	enum diskstats_field field;
	uint64_t scale;
} devstat_counter_fields[] = {
    {DEVSTAT_DATUM_BYTES_READ, DISKSTATS_SECTORS_READ, DISKSTATS_SECTOR_SIZE},
    {DEVSTAT_DATUM_BYTES_WRITTEN, DISKSTATS_SECTORS_WRITTEN,
        DISKSTATS_SECTOR_SIZE},
    {DEVSTAT_DATUM_BYTES_FREED, DISKSTATS_SECTORS_DISCARDED,
        DISKSTATS_SECTOR_SIZE},
    {DEVSTAT_DATUM_NUM_READS, DISKSTATS_READS, 1},
    {DEVSTAT_DATUM_NUM_WRITES, DISKSTATS_WRITES, 1},
    {DEVSTAT_DATUM_NUM_FREES, DISKSTATS_DISCARDS, 1},
    {DEVSTAT_DATUM_NUM_OTHER, DISKSTATS_FLUSHES, 1},
    {DEVSTAT_DATUM_BUSY_TIME, DISKSTATS_IO_MS, 1},
    {DEVSTAT_DATUM_DURATION_READ, DISKSTATS_READ_MS, 1},
    {DEVSTAT_DATUM_DURATION_WRITE, DISKSTATS_WRITE_MS, 1},
    {DEVSTAT_DATUM_DURATION_FREE, DISKSTATS_DISCARD_MS, 1},
    {DEVSTAT_DATUM_DURATION_OTHER, DISKSTATS_FLUSH_MS, 1},
    {DEVSTAT_DATUM_NUM_READS_MERGED, DISKSTATS_READS_MERGED, 1},
    {DEVSTAT_DATUM_NUM_WRITES_MERGED, DISKSTATS_WRITES_MERGED, 1},
    {DEVSTAT_DATUM_NUM_FREES_MERGED, DISKSTATS_DISCARDS_MERGED, 1},
    {DEVSTAT_DATUM_BUSY_TIME_WEIGHTED, DISKSTATS_WEIGHTED_MS, 1},
};

/* The exclude used when neither include nor exclude is given. */
static const char *const devstat_default_exclude[] = {
    "loop*",
    "ram*",
    "zram*",
};

struct devstat_context {
	struct provider_context base; /* first: provider_fini */
	struct dci_class *class_handle;
	/* Patterns point into the host's option strings, valid until fini,
	 * or to devstat_default_exclude. */
	struct provider_patterns patterns;
	bool partitions; /* serve partitions too */
	/* /proc/diskstats as last read, and its entries; kept between
	 * refreshes only to reuse the memory. */
	struct provider_file_buffer text;
	struct diskstats_list entries;
	/* Every device of the last refresh, served or not, so that sysfs is
	 * read once per device. */
	struct devstat_table table;
	/* Malformed lines, each logged once while it stays malformed. */
	struct provider_warnings warnings;
};

/* devstat_table_update's admit: decides whether a new device is served,
 * and classifies it from sysfs only if it may be. */
static bool
devstat_admit(void *opaque, struct devstat_device *device)
{
	struct devstat_context *context = opaque;

	if (!provider_patterns_admit(&context->patterns, device->name))
		return false;
	devstat_device_classify(DEVSTAT_SYSFS_ROOT, device->name, device->major,
	    &device->class_info);
	if (device->class_info.partition && !context->partitions)
		return false;
	dci_log(context->base.host, DCI_LOG_DEBUG,
	    "device %s (%u:%u): type 0x%03x, priority 0x%03x", device->name,
	    device->major, device->minor, device->class_info.device_type,
	    device->class_info.priority);
	return true;
}

/* diskstats_parse's warn: logs a malformed line unless the last parse had
 * already logged it. */
static void
devstat_warn(void *opaque, unsigned line_number, const char *message)
{
	struct devstat_context *context = opaque;

	if (provider_warnings_note(&context->warnings, 0, line_number, message))
		dci_log(context->base.host, DCI_LOG_WARNING,
		    DEVSTAT_DISKSTATS_PATH ":%u: %s", line_number, message);
}

/* The counters of devstat_counter_fields, and the other numbers of a row:
 * busy count, block size, device type, priority, creation time, and the
 * three flags. */
#define DEVSTAT_ROW_NUMBERS                                                    \
	(sizeof devstat_counter_fields / sizeof devstat_counter_fields[0] + 8)

/* Stores every known datum of one row, in two calls (the numbers, then the
 * name). A value the host refuses leaves just its row out; the host says
 * why when the batch is committed. */
static void
devstat_set_row(
    struct dci_batch *batch, long row, const struct devstat_device *device)
{
	const struct devstat_device_class *class_info = &device->class_info;
	const size_t counter_count =
	    sizeof devstat_counter_fields / sizeof devstat_counter_fields[0];
	struct dci_row_value numbers[DEVSTAT_ROW_NUMBERS];
	struct dci_row_bytes name =
	    dci_row_string(DEVSTAT_DATUM_DEVICE_NAME, device->name);
	size_t count = 0;

	for (size_t i = 0; i < counter_count; i++) {
		enum diskstats_field field = devstat_counter_fields[i].field;

		/* Fields this kernel does not print have no row. Bytes wrap
		 * at 2^64 with the sectors they are counted from. */
		if ((device->present & DISKSTATS_BIT(field)) != 0)
			numbers[count++] =
			    dci_row_unsigned(devstat_counter_fields[i].datum,
			        device->values[field] *
			            devstat_counter_fields[i].scale);
	}
	if ((device->present & DISKSTATS_BIT(DISKSTATS_IN_FLIGHT)) != 0 &&
	    device->values[DISKSTATS_IN_FLIGHT] <= UINT32_MAX)
		numbers[count++] = dci_row_unsigned(DEVSTAT_DATUM_BUSY_COUNT,
		    device->values[DISKSTATS_IN_FLIGHT]);
	if (class_info->has_block_size)
		numbers[count++] = dci_row_unsigned(
		    DEVSTAT_DATUM_BLOCK_SIZE, class_info->block_size);
	numbers[count++] = dci_row_unsigned(
	    DEVSTAT_DATUM_DEVICE_TYPE, class_info->device_type);
	numbers[count++] =
	    dci_row_unsigned(DEVSTAT_DATUM_PRIORITY, class_info->priority);
	numbers[count++] =
	    dci_row_unsigned(DEVSTAT_DATUM_CREATION_TIME, device->created);
	if (class_info->has_rotational)
		numbers[count++] = dci_row_unsigned(
		    DEVSTAT_DATUM_ROTATIONAL, class_info->rotational ? 1 : 0);
	if (class_info->has_removable)
		numbers[count++] = dci_row_unsigned(
		    DEVSTAT_DATUM_REMOVABLE, class_info->removable ? 1 : 0);
	if (class_info->has_partition)
		numbers[count++] = dci_row_unsigned(
		    DEVSTAT_DATUM_PARTITION, class_info->partition ? 1 : 0);
	(void)dci_batch_set_row(batch, row, numbers, count);
	(void)dci_batch_set_row_bytes(batch, row, &name, 1);
}

/* Fills and commits a batch from the table's served devices. Returns 0, or
 * -1 after logging why. */
static int
devstat_publish(struct dci_host *host, struct devstat_context *context)
{
	struct dci_batch *batch;

	batch = dci_batch_begin(host, context->class_handle);
	if (batch == NULL) {
		dci_log(host, DCI_LOG_ERR,
		    "cannot begin a batch for class devstat");
		return -1;
	}
	for (size_t i = 0; i < context->table.count; i++) {
		const struct devstat_device *device = &context->table.items[i];
		uint32_t id[2];
		long row;

		if (!device->served)
			continue;
		id[0] = device->major;
		id[1] = device->minor;
		row = dci_batch_instance(batch, id, 2, device->name);
		if (row < 0)
			continue; /* the host logged why; serve the others */
		/* An older host flags the restart only where a counter
		 * went down; nothing more to do then. */
		if (device->restarted)
			(void)dci_batch_set_discontinuity(batch, row);
		devstat_set_row(batch, row, device);
	}
	if (dci_batch_commit(batch) != 0) {
		dci_log(host, DCI_LOG_ERR, "cannot commit class devstat");
		return -1;
	}
	return 0;
}

/* Reads include, exclude and partitions. Returns 0, or -1 after reporting
 * the problem. */
static int
devstat_read_options(struct dci_host *host, struct devstat_context *context)
{
	const size_t default_count =
	    sizeof devstat_default_exclude / sizeof devstat_default_exclude[0];
	int partitions;

	if (provider_patterns_read(host, &context->patterns,
	        devstat_default_exclude, default_count) != 0)
		return -1;

	partitions = dci_option_boolean(host, "partitions", 0);
	if (partitions < 0)
		return -1; /* the host reported the value */
	context->partitions = partitions == 1;
	return 0;
}

/* Frees what the context holds (struct provider_context). */
static void
devstat_release(void *opaque)
{
	struct devstat_context *context = opaque;

	provider_patterns_free(&context->patterns);
	provider_file_buffer_free(&context->text);
	diskstats_list_free(&context->entries);
	devstat_table_free(&context->table);
	provider_warnings_free(&context->warnings);
}

static int
devstat_init(struct dci_host *host, void **context_pointer)
{
	struct devstat_context *context;
	struct dci_class_info class_info;

	context = provider_context_new(
	    host, context_pointer, sizeof *context, devstat_release);
	if (context == NULL)
		return -1;

	if (devstat_read_options(host, context) != 0)
		return -1;

	class_info = (struct dci_class_info)CLASS_INFO(devstat_class_id,
	    FORM_ELEMENTS(devstat_class_id), "devstat",
	    "Block devices (disks, and partitions if asked), one instance per "
	    "device number (major, minor)",
	    devstat_levels, FORM_ELEMENTS(devstat_levels), devstat_model_datums,
	    DEVSTAT_MODEL_DATUM_COUNT);
	context->class_handle = provider_register_class(host, &devstat_supplier,
	    &class_info, DEVSTAT_REFRESH_LIMIT_MILLISECONDS);
	if (context->class_handle == NULL)
		return -1; /* the host has logged why */
	return 0;
}

static int
devstat_refresh(struct dci_host *host, void *opaque)
{
	struct devstat_context *context = opaque;
	int parsed;

	if (provider_file_read(DEVSTAT_DISKSTATS_PATH, &context->text,
	        DEVSTAT_DISKSTATS_MAX) != 0) {
		dci_log(host, DCI_LOG_ERR, "cannot read %s: %s",
		    DEVSTAT_DISKSTATS_PATH, strerror(errno));
		return -1;
	}
	provider_warnings_begin(&context->warnings);
	parsed = diskstats_parse(context->text.bytes, context->text.length,
	    &context->entries, devstat_warn, context);
	provider_warnings_end(&context->warnings);
	if (parsed != 0) {
		dci_log(host, DCI_LOG_ERR, "cannot parse %s: %s",
		    DEVSTAT_DISKSTATS_PATH, strerror(errno));
		return -1;
	}
	if (devstat_table_update(&context->table, context->entries.items,
	        context->entries.count, provider_monotonic_centiseconds(),
	        devstat_admit, context) != 0) {
		dci_log(host, DCI_LOG_ERR, "cannot remember %zu devices: %s",
		    context->entries.count, strerror(errno));
		return -1;
	}
	return devstat_publish(host, context);
}

static const char *const devstat_option_keys[] = {
    "include", "exclude", "partitions", NULL};

PROVIDER_ENTRY("devstat",
    "Linux block device I/O statistics in the FreeBSD "
    "devstat model, from /proc/diskstats and sysfs",
    devstat_option_keys, devstat_init, devstat_refresh);
