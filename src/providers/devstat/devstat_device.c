/*
 * devstat_device: Linux has no devstat(9) registry, so the provider builds
 * the registration data FreeBSD drivers hand to devstat_add_entry() from
 * what Linux does publish: the device's name and major number, and a few
 * sysfs attributes read once when the device appears. The device table
 * then plays devstat's part of knowing when a device came and went, which
 * /proc/diskstats does not say.
 */
#define _GNU_SOURCE

#include "devstat_device.h"
#include "providers/common/file_buffer.h"
#include "providers/common/growable.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The largest SCSI peripheral device type (five bits). */
#define DEVSTAT_SCSI_TYPE_MAX 0x1fu
/* SCSI peripheral types the Linux sd driver takes as disks although their
 * numbers are not DEVSTAT_TYPE_DIRECT: RBC (simplified direct-access,
 * which devstat's numbering calls a floppy) and ZBC (host-managed zoned). */
#define DEVSTAT_SCSI_TYPE_RBC 0x0eu
#define DEVSTAT_SCSI_TYPE_ZBC 0x14u

/*
 * The devstat type and priority of a whole disk, by its name or its block
 * major number (the fixed ones of Documentation/admin-guide/devices.txt).
 * The first rule that matches wins; the last matches everything.
 */
static const struct devstat_rule {
	const char *prefix; /* of the disk's name; NULL: any name */
	uint32_t major;     /* a fixed major; 0: match by name only */
	uint32_t type;      /* DEVSTAT_TYPE_*: peripheral | interface */
	uint32_t priority;
} devstat_rules[] = {
    /* sr, the SCSI CD-ROM driver (major 11), drives CD, DVD and BD
     * drives on any transport the SCSI layer serves (ATAPI, USB, SAS):
     * FreeBSD's cd(4), a CD-ROM on SCSI. */
    {"sr", 11, DEVSTAT_TYPE_CDROM | DEVSTAT_TYPE_IF_SCSI, DEVSTAT_PRIORITY_CD},
    /* sd, the SCSI disk driver, also drives SATA (libata), SAS, USB mass
     * storage, iSCSI and FC disks: all are SCSI to the kernel, as da(4)
     * disks are to FreeBSD. */
    {"sd", 0, DEVSTAT_TYPE_DIRECT | DEVSTAT_TYPE_IF_SCSI,
        DEVSTAT_PRIORITY_DISK},
    /* hd, the legacy IDE driver (removed in Linux 5.14, libata having
     * long made such disks sd): FreeBSD's ad(4), IDE. */
    {"hd", 0, DEVSTAT_TYPE_DIRECT | DEVSTAT_TYPE_IF_IDE, DEVSTAT_PRIORITY_DISK},
    /* fd, the PC floppy controller (major 2): fd(4) registers as a
     * floppy on an interface of its own. */
    {"fd", 2, DEVSTAT_TYPE_FLOPPY | DEVSTAT_TYPE_IF_OTHER, DEVSTAT_PRIORITY_FD},
    /* md software RAID (major 9) and the device mapper (LVM, dm-crypt,
     * multipath) build volumes out of other disks, devstat's storage
     * arrays; their I/O is counted again on the member disks. */
    {"md", 9, DEVSTAT_TYPE_DIRECT | DEVSTAT_TYPE_IF_OTHER,
        DEVSTAT_PRIORITY_ARRAY},
    {"dm-", 0, DEVSTAT_TYPE_DIRECT | DEVSTAT_TYPE_IF_OTHER,
        DEVSTAT_PRIORITY_ARRAY},
    /* Not disks but files (loop, major 7), memory (ram, major 1; zram)
     * or a network server (nbd, major 43) behind a block device: listed
     * after every real disk, as FreeBSD does with md(4) memory disks. */
    {"loop", 7, DEVSTAT_TYPE_DIRECT | DEVSTAT_TYPE_IF_OTHER,
        DEVSTAT_PRIORITY_OTHER},
    {"ram", 1, DEVSTAT_TYPE_DIRECT | DEVSTAT_TYPE_IF_OTHER,
        DEVSTAT_PRIORITY_OTHER},
    {"zram", 0, DEVSTAT_TYPE_DIRECT | DEVSTAT_TYPE_IF_OTHER,
        DEVSTAT_PRIORITY_OTHER},
    {"nbd", 43, DEVSTAT_TYPE_DIRECT | DEVSTAT_TYPE_IF_OTHER,
        DEVSTAT_PRIORITY_OTHER},
    /* Anything else is a disk on an interface that is neither SCSI nor
     * IDE: NVMe (nvme), virtio (vd), Xen (xvd), MMC and SD cards
     * (mmcblk), ... */
    {NULL, 0, DEVSTAT_TYPE_DIRECT | DEVSTAT_TYPE_IF_OTHER,
        DEVSTAT_PRIORITY_DISK},
};

bool
devstat_device_sysfs_name(const char *name, char *sysfs_name, size_t size)
{
	size_t length = strlen(name);

	if (length == 0 || length >= size || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return false;
	for (size_t i = 0; i < length; i++)
		sysfs_name[i] = name[i] == '/' ? '!' : name[i];
	sysfs_name[length] = '\0';
	return true;
}

void
devstat_device_rule(
    const char *disk_name, uint32_t major, uint32_t *type, uint32_t *priority)
{
	const size_t count = sizeof devstat_rules / sizeof devstat_rules[0];
	const struct devstat_rule *rule = &devstat_rules[count - 1];

	for (size_t i = 0; i < count; i++) {
		const struct devstat_rule *candidate = &devstat_rules[i];

		if (candidate->prefix == NULL ||
		    strncmp(disk_name, candidate->prefix,
		        strlen(candidate->prefix)) == 0 ||
		    (candidate->major != 0 && candidate->major == major)) {
			rule = candidate;
			break;
		}
	}
	*type = rule->type;
	*priority = rule->priority;
}

/*
 * Reads a sysfs attribute holding one unsigned decimal number (and a
 * newline). Returns true and sets *value; false when the file is missing,
 * unreadable, or holds anything else.
 */
static bool
devstat_read_number(const char *path, uint64_t *value)
{
	char text[32];
	long length;
	uint64_t result = 0;
	size_t i = 0;

	length = provider_file_read_small(path, text, sizeof text);
	if (length <= 0)
		return false;
	for (; i < (size_t)length && text[i] >= '0' && text[i] <= '9'; i++) {
		unsigned digit = (unsigned)(text[i] - '0');

		if (result > (UINT64_MAX - digit) / 10)
			return false;
		result = result * 10 + digit;
	}
	if (i == 0)
		return false;
	for (; i < (size_t)length; i++)
		if (text[i] != '\n' && text[i] != ' ' && text[i] != '\t')
			return false;
	*value = result;
	return true;
}

/* Reads a 0/1 attribute. */
static bool
devstat_read_flag(const char *path, bool *flag)
{
	uint64_t value;

	if (!devstat_read_number(path, &value) || value > 1)
		return false;
	*flag = value == 1;
	return true;
}

/* Builds DIRECTORY/SUFFIX into path. Returns false when it does not fit. */
static bool
devstat_path(char *path, size_t size, const char *directory, const char *suffix)
{
	int length = snprintf(path, size, "%s/%s", directory, suffix);

	return length > 0 && (size_t)length < size;
}

static bool
devstat_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/*
 * The devstat peripheral type a SCSI peripheral device type stands for.
 * Up to enclosures (0x0d) devstat's numbers are SCSI's; past that they
 * part: RBC and zoned disks are disks, and the rest has no devstat name.
 * Returns false for those, leaving *base alone.
 */
static bool
devstat_scsi_base_type(uint64_t scsi_type, uint32_t *base)
{
	if (scsi_type <= DEVSTAT_TYPE_ENCLOSURE) {
		*base = (uint32_t)scsi_type;
		return true;
	}
	if (scsi_type == DEVSTAT_SCSI_TYPE_RBC ||
	    scsi_type == DEVSTAT_SCSI_TYPE_ZBC) {
		*base = DEVSTAT_TYPE_DIRECT;
		return true;
	}
	return false;
}

void
devstat_device_classify(const char *sysfs_root, const char *name,
    uint32_t major, struct devstat_device_class *class_info)
{
	char sysfs_name[DISKSTATS_NAME_SIZE];
	char device[PATH_MAX];
	char parent[PATH_MAX];
	char path[PATH_MAX];
	const char *disk = device;
	uint64_t value;
	int length;

	memset(class_info, 0, sizeof *class_info);
	/* A partition's name is its disk's and a number (sda1, nvme0n1p1,
	 * md127p1), and its major is its disk's or 259 (blkext), which no
	 * rule names: the rules give it its disk's type and priority. */
	devstat_device_rule(
	    name, major, &class_info->device_type, &class_info->priority);
	if (!devstat_device_sysfs_name(name, sysfs_name, sizeof sysfs_name))
		return;
	length = snprintf(
	    device, sizeof device, "%s/class/block/%s", sysfs_root, sysfs_name);
	if (length < 0 || (size_t)length >= sizeof device ||
	    !devstat_exists(device))
		return;

	class_info->has_partition = true;
	class_info->partition =
	    devstat_path(path, sizeof path, device, "partition") &&
	    devstat_exists(path);
	/* A partition's queue and media are its disk's: the kernel links
	 * class/block/NAME to the partition's directory, which lies in its
	 * disk's, so NAME/.. is the disk. */
	if (class_info->partition) {
		if (!devstat_path(parent, sizeof parent, device, ".."))
			return;
		disk = parent;
	}

	if (devstat_path(path, sizeof path, disk, "queue/logical_block_size") &&
	    devstat_read_number(path, &value) && value <= UINT32_MAX) {
		class_info->block_size = (uint32_t)value;
		class_info->has_block_size = true;
	}
	if (devstat_path(path, sizeof path, disk, "queue/rotational"))
		class_info->has_rotational =
		    devstat_read_flag(path, &class_info->rotational);
	if (devstat_path(path, sizeof path, disk, "removable"))
		class_info->has_removable =
		    devstat_read_flag(path, &class_info->removable);

	/* Only the SCSI layer's devices have a peripheral type; other buses'
	 * device/type files (MMC's "SD") mean something else. */
	if ((class_info->device_type & DEVSTAT_TYPE_IF_MASK) ==
	        DEVSTAT_TYPE_IF_SCSI &&
	    devstat_path(path, sizeof path, disk, "device/type") &&
	    devstat_read_number(path, &value) &&
	    value <= DEVSTAT_SCSI_TYPE_MAX) {
		uint32_t base;

		if (devstat_scsi_base_type(value, &base))
			class_info->device_type =
			    (class_info->device_type & ~DEVSTAT_TYPE_MASK) |
			    base;
	}
}

static int
devstat_compare_key(
    uint32_t major_a, uint32_t minor_a, uint32_t major_b, uint32_t minor_b)
{
	if (major_a != major_b)
		return major_a < major_b ? -1 : 1;
	return (minor_a > minor_b) - (minor_a < minor_b);
}

/* Orders entry pointers by major:minor, then by their place in the text, so
 * the first of two entries with one number comes first. */
static int
devstat_compare_entries(const void *left, const void *right)
{
	const struct diskstats_entry *a =
	    *(const struct diskstats_entry *const *)left;
	const struct diskstats_entry *b =
	    *(const struct diskstats_entry *const *)right;
	int order = devstat_compare_key(a->major, a->minor, b->major, b->minor);

	if (order != 0)
		return order;
	return (a > b) - (a < b);
}

/* Whether one of the 64-bit counters went down: the device was detached
 * and attached again since the last update. */
static bool
devstat_went_back(
    const struct devstat_device *device, const struct diskstats_entry *entry)
{
	uint32_t both = device->present & entry->present;

	for (unsigned field = 0; field < DISKSTATS_FIELD_COUNT; field++) {
		uint32_t bit = DISKSTATS_BIT(field);

		if ((both & bit & DISKSTATS_COUNTER_FIELDS) != 0 &&
		    entry->fields[field] < device->raw[field])
			return true;
	}
	return false;
}

/* Takes the entry's values into device, extending the millisecond fields
 * from the values it had (device->present tells which it had). */
static void
devstat_take_values(
    struct devstat_device *device, const struct diskstats_entry *entry)
{
	for (unsigned field = 0; field < DISKSTATS_FIELD_COUNT; field++) {
		uint32_t bit = DISKSTATS_BIT(field);
		uint64_t raw = entry->fields[field];

		if ((entry->present & bit) == 0) {
			device->values[field] = 0;
			device->raw[field] = 0;
			continue;
		}
		if ((DISKSTATS_MS_FIELDS & bit) != 0 &&
		    (device->present & bit) != 0)
			device->values[field] +=
			    (uint32_t)(raw - device->raw[field]);
		else
			device->values[field] = raw;
		device->raw[field] = raw;
	}
	device->present = entry->present;
}

int
devstat_table_update(struct devstat_table *table,
    const struct diskstats_entry *entries, size_t count, uint64_t now,
    devstat_table_admit admit, void *opaque)
{
	const struct diskstats_entry **order;
	struct devstat_device *fresh;
	size_t fresh_count = 0;
	size_t next_known = 0;

	if (PROVIDER_RESERVE(table->order, table->order_capacity, count) != 0 ||
	    PROVIDER_RESERVE(table->spare, table->spare_capacity, count) != 0)
		return -1;
	order = table->order;
	fresh = table->spare;

	for (size_t i = 0; i < count; i++)
		order[i] = &entries[i];
	if (count > 1)
		qsort(order, count, sizeof *order, devstat_compare_entries);

	for (size_t i = 0; i < count; i++) {
		const struct diskstats_entry *entry = order[i];
		const struct devstat_device *known = NULL;
		struct devstat_device *device;

		if (fresh_count > 0 &&
		    fresh[fresh_count - 1].major == entry->major &&
		    fresh[fresh_count - 1].minor == entry->minor)
			continue; /* a repeat: the first one counts */

		/* Both are sorted by major:minor: walk them together. */
		while (next_known < table->count &&
		       devstat_compare_key(table->items[next_known].major,
		           table->items[next_known].minor, entry->major,
		           entry->minor) < 0)
			next_known++;
		if (next_known < table->count &&
		    table->items[next_known].major == entry->major &&
		    table->items[next_known].minor == entry->minor)
			known = &table->items[next_known];

		device = &fresh[fresh_count++];
		if (known != NULL && strcmp(known->name, entry->name) == 0) {
			*device = *known;
			/* Reset: start again from the kernel's values. */
			device->restarted = devstat_went_back(known, entry);
			if (device->restarted)
				device->present = 0;
		} else {
			memset(device, 0, sizeof *device);
			device->major = entry->major;
			device->minor = entry->minor;
			memcpy(device->name, entry->name, sizeof device->name);
			device->created = now;
			device->served =
			    admit == NULL ? true : admit(opaque, device);
		}
		devstat_take_values(device, entry);
	}

	PROVIDER_SWAP_SPARE(
	    table->items, table->capacity, table->spare, table->spare_capacity);
	table->count = fresh_count;
	return 0;
}

const struct devstat_device *
devstat_table_find(
    const struct devstat_table *table, uint32_t major, uint32_t minor)
{
	size_t low = 0;
	size_t high = table->count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		const struct devstat_device *device = &table->items[middle];
		int order = devstat_compare_key(
		    device->major, device->minor, major, minor);

		if (order == 0)
			return device;
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return NULL;
}

void
devstat_table_free(struct devstat_table *table)
{
	free(table->items);
	free(table->spare);
	free(table->order);
	memset(table, 0, sizeof *table);
}
