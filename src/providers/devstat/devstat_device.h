/*
 * devstat_device: what the devstat provider knows of each block device
 * besides its counters (its devstat type and priority, block size, whether
 * it is a partition, from sysfs), and the table that follows devices from
 * one read of /proc/diskstats to the next.
 *
 * Like diskstats, this part knows nothing of dcistat's provider ABI: sysfs
 * is read below a root the caller names, and time is a number the caller
 * passes, so the unit tests run it on a fake tree with a fake clock.
 * Everything here carries the devstat_ prefix; the plug-in exports none of
 * it.
 */
#ifndef DEVSTAT_DEVICE_H
#define DEVSTAT_DEVICE_H

#include "diskstats.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* devstat(9) device types: the peripheral type (the low four bits, SCSI's
 * peripheral device type numbers) or'ed with the interface. */
#define DEVSTAT_TYPE_DIRECT 0x000u
#define DEVSTAT_TYPE_SEQUENTIAL 0x001u
#define DEVSTAT_TYPE_PRINTER 0x002u
#define DEVSTAT_TYPE_PROCESSOR 0x003u
#define DEVSTAT_TYPE_WORM 0x004u
#define DEVSTAT_TYPE_CDROM 0x005u
#define DEVSTAT_TYPE_SCANNER 0x006u
#define DEVSTAT_TYPE_OPTICAL 0x007u
#define DEVSTAT_TYPE_CHANGER 0x008u
#define DEVSTAT_TYPE_COMM 0x009u
#define DEVSTAT_TYPE_ASC0 0x00au
#define DEVSTAT_TYPE_ASC1 0x00bu
#define DEVSTAT_TYPE_STORARRAY 0x00cu
#define DEVSTAT_TYPE_ENCLOSURE 0x00du
#define DEVSTAT_TYPE_FLOPPY 0x00eu
#define DEVSTAT_TYPE_MASK 0x00fu
#define DEVSTAT_TYPE_IF_SCSI 0x010u
#define DEVSTAT_TYPE_IF_IDE 0x020u
#define DEVSTAT_TYPE_IF_OTHER 0x030u
#define DEVSTAT_TYPE_IF_MASK 0x0f0u
#define DEVSTAT_TYPE_PASS 0x100u

/* devstat(9) priorities: FreeBSD lists devices by priority, highest first. */
#define DEVSTAT_PRIORITY_MIN 0x000u
#define DEVSTAT_PRIORITY_OTHER 0x020u
#define DEVSTAT_PRIORITY_PASS 0x030u
#define DEVSTAT_PRIORITY_FD 0x040u
#define DEVSTAT_PRIORITY_WFD 0x050u
#define DEVSTAT_PRIORITY_TAPE 0x060u
#define DEVSTAT_PRIORITY_CD 0x090u
#define DEVSTAT_PRIORITY_DISK 0x110u
#define DEVSTAT_PRIORITY_ARRAY 0x120u
#define DEVSTAT_PRIORITY_MAX 0xfffu

/* What sysfs and the device's name say about a device. Each has_ flag says
 * whether the value beside it is known; an unknown value is absent, not 0. */
struct devstat_device_class {
	uint32_t device_type; /* DEVSTAT_TYPE_*, always set */
	uint32_t priority;    /* DEVSTAT_PRIORITY_*, always set */
	uint32_t block_size;  /* queue/logical_block_size, bytes */
	bool has_block_size;
	bool rotational; /* queue/rotational */
	bool has_rotational;
	bool removable; /* removable */
	bool has_removable;
	/* /sys/class/block/NAME/partition exists. has_partition is false when
	 * /sys/class/block/NAME itself is missing; partition is then false. */
	bool partition;
	bool has_partition;
};

/*
 * Writes the name sysfs gives the device called name in /proc/diskstats:
 * the kernel replaces '/' by '!' (cciss/c0d0 is cciss!c0d0). Returns false,
 * writing nothing useful, when the result would not fit size bytes or could
 * not name a directory entry ("", ".", "..").
 */
bool devstat_device_sysfs_name(const char *name, char *sysfs_name, size_t size);

/*
 * Classifies the block device called name (as /proc/diskstats names it)
 * with block major number major, reading sysfs below sysfs_root ("/sys" in
 * production; no trailing slash needed):
 *   ROOT/class/block/NAME/partition            exists: a partition
 *   DISK/queue/logical_block_size              block_size
 *   DISK/queue/rotational, DISK/removable      0 or 1
 *   DISK/device/type                           SCSI peripheral type
 * where DISK is ROOT/class/block/NAME, or for a partition NAME/.. (its
 * disk, through the symbolic link the kernel makes). Missing, unreadable or
 * unparsable files leave their value absent. device_type and priority come
 * from the name and major number by a fixed table (devstat_device_rule),
 * refined by the disk's SCSI peripheral type for SCSI devices.
 */
void devstat_device_classify(const char *sysfs_root, const char *name,
    uint32_t major, struct devstat_device_class *class_info);

/*
 * The devstat type and priority of a whole disk by its name and major
 * number alone: the table devstat_device_classify starts from.
 */
void devstat_device_rule(
    const char *disk_name, uint32_t major, uint32_t *type, uint32_t *priority);

/* One device the table follows. */
struct devstat_device {
	uint32_t major;
	uint32_t minor;
	char name[DISKSTATS_NAME_SIZE];
	uint64_t created; /* the now of the update that first saw it */
	bool served;      /* what admit said */
	struct devstat_device_class class_info; /* filled by admit */
	/* values[f] is valid when present has DISKSTATS_BIT(f): the kernel's
	 * value, except for DISKSTATS_MS_FIELDS, extended to 64 bits. */
	uint64_t values[DISKSTATS_FIELD_COUNT];
	uint32_t present;
	uint64_t raw[DISKSTATS_FIELD_COUNT]; /* as last read */
	/* Its counters went down in the last update: detached and attached
	 * again, its values started again from the kernel's. */
	bool restarted;
};

/* The devices of the last update, sorted by (major, minor). Start zeroed;
 * free with devstat_table_free. */
struct devstat_table {
	struct devstat_device *items;
	size_t count;
	size_t capacity;
	/* Scratch kept between updates only to reuse the memory. */
	struct devstat_device *spare;
	size_t spare_capacity;
	const struct diskstats_entry **order;
	size_t order_capacity;
};

/*
 * Called once for each device new to the table, with major, minor, name
 * and created set, before its counters: fills device->class_info as it
 * sees fit and returns whether the device is served. Its answer stays with
 * the device for as long as the device lasts, so sysfs is read once per
 * device, not once per update.
 */
typedef bool (*devstat_table_admit)(
    void *opaque, struct devstat_device *device);

/*
 * Makes the table hold the devices of entries (in any order). A device is
 * the one of the previous update with its major:minor and name; any other
 * is new: its creation time is now and admit is asked about it. Devices
 * missing from entries are dropped, so one that comes back later is new. A
 * repeated major:minor keeps its first entry. admit may be NULL: every
 * device is served, unclassified.
 *
 * The 32-bit millisecond fields are extended to 64 bits: a device's value
 * starts at the kernel's and grows by (uint32_t)(raw - last raw) on each
 * update, which is right as long as a field wraps at most once between two
 * updates (2^32 ms is 49.7 days, less for the fields that sum the time of
 * concurrent requests). When one of a known device's
 * DISKSTATS_COUNTER_FIELDS went down, the device was detached and attached
 * again between two updates: its values start again from the kernel's, as
 * a new device's, but it keeps its creation time and admit's answer, and
 * restarted is set until the next update.
 *
 * Returns 0, or -1 with errno ENOMEM and the table as it was (admit was
 * not called).
 */
int devstat_table_update(struct devstat_table *table,
    const struct diskstats_entry *entries, size_t count, uint64_t now,
    devstat_table_admit admit, void *opaque);

/* The device with that major:minor, or NULL. O(log n). */
const struct devstat_device *devstat_table_find(
    const struct devstat_table *table, uint32_t major, uint32_t minor);

void devstat_table_free(struct devstat_table *table);

#pragma GCC visibility pop

#endif
