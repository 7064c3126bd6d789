/*
 * diskstats: parse the text of Linux's /proc/diskstats.
 *
 * This part of the devstat provider knows nothing of dcistat's provider ABI
 * nor of the host it runs on: it turns text into entries, so the unit tests
 * can feed it recorded samples. Everything here carries the diskstats_
 * prefix; the plug-in exports none of it.
 */
#ifndef DISKSTATS_H
#define DISKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Internal to the plug-in: even without the build's export list, only
 * dci_provider_entry leaves the shared object. */
#pragma GCC visibility push(hidden)

/* The longest device name kept, including its NUL; a longer name makes its
 * line malformed. The kernel's names (DISK_NAME_LEN 32, plus a partition
 * suffix) are far shorter. */
#define DISKSTATS_NAME_SIZE 64u

/* The kernel's sectors are 512 bytes whatever the device's block size. */
#define DISKSTATS_SECTOR_SIZE 512u

/*
 * The statistics of one line, in the kernel's order (the fields after the
 * name; Documentation/admin-guide/iostats.rst numbers them 1 to 17).
 */
enum diskstats_field {
	DISKSTATS_READS,             /* 1 reads completed */
	DISKSTATS_READS_MERGED,      /* 2 adjacent reads merged */
	DISKSTATS_SECTORS_READ,      /* 3 */
	DISKSTATS_READ_MS,           /* 4 ms spent reading (32-bit) */
	DISKSTATS_WRITES,            /* 5 writes completed */
	DISKSTATS_WRITES_MERGED,     /* 6 */
	DISKSTATS_SECTORS_WRITTEN,   /* 7 */
	DISKSTATS_WRITE_MS,          /* 8 ms spent writing (32-bit) */
	DISKSTATS_IN_FLIGHT,         /* 9 I/Os in progress now (32-bit) */
	DISKSTATS_IO_MS,             /* 10 ms with I/O in progress (32-bit) */
	DISKSTATS_WEIGHTED_MS,       /* 11 ms times I/Os in progress (32-bit) */
	DISKSTATS_DISCARDS,          /* 12 discards completed (4.18) */
	DISKSTATS_DISCARDS_MERGED,   /* 13 */
	DISKSTATS_SECTORS_DISCARDED, /* 14 */
	DISKSTATS_DISCARD_MS,        /* 15 ms spent discarding (32-bit) */
	DISKSTATS_FLUSHES,           /* 16 flush requests completed (5.5) */
	DISKSTATS_FLUSH_MS,          /* 17 ms spent flushing (32-bit) */
	DISKSTATS_FIELD_COUNT
};

#define DISKSTATS_BIT(field) (UINT32_C(1) << (field))

/* The fields the kernel prints with %u: they wrap at 2^32. */
#define DISKSTATS_32BIT_FIELDS                                                 \
	(DISKSTATS_BIT(DISKSTATS_READ_MS) |                                    \
	    DISKSTATS_BIT(DISKSTATS_WRITE_MS) |                                \
	    DISKSTATS_BIT(DISKSTATS_IN_FLIGHT) |                               \
	    DISKSTATS_BIT(DISKSTATS_IO_MS) |                                   \
	    DISKSTATS_BIT(DISKSTATS_WEIGHTED_MS) |                             \
	    DISKSTATS_BIT(DISKSTATS_DISCARD_MS) |                              \
	    DISKSTATS_BIT(DISKSTATS_FLUSH_MS))

/* The 32-bit fields that count (milliseconds); the in-flight count is a
 * gauge. */
#define DISKSTATS_MS_FIELDS                                                    \
	(DISKSTATS_32BIT_FIELDS & ~DISKSTATS_BIT(DISKSTATS_IN_FLIGHT))

/* The fields the kernel prints with %lu: counters that only grow while the
 * device exists (64 bits on 64-bit kernels). */
#define DISKSTATS_COUNTER_FIELDS                                               \
	(((UINT32_C(1) << DISKSTATS_FIELD_COUNT) - 1) & ~DISKSTATS_32BIT_FIELDS)

/* One line of /proc/diskstats. */
struct diskstats_entry {
	uint32_t major;
	uint32_t minor;
	char name[DISKSTATS_NAME_SIZE]; /* printable ASCII, NUL-terminated */
	/* fields[f] is valid when present has DISKSTATS_BIT(f): a field the
	 * kernel did not print is absent, not zero. */
	uint64_t fields[DISKSTATS_FIELD_COUNT];
	uint32_t present;
	unsigned line_number; /* 1-based, in the text parsed */
};

/* The entries of one parse, in the order of the text. Start zeroed; reuse
 * across parses; free with diskstats_list_free. */
struct diskstats_list {
	struct diskstats_entry *items;
	size_t count;
	size_t capacity;
};

/* Told about each malformed line, which is skipped. message is valid only
 * during the call. */
typedef void (*diskstats_warn_fn)(
    void *opaque, unsigned line_number, const char *message);

/*
 * Parses length bytes of /proc/diskstats text (no NUL needed; a last line
 * without its newline counts) into list, replacing what it held.
 *
 * A line is: major, minor, name, then 4 (partitions on kernels before
 * 2.6.25: reads, sectors read, writes, sectors written), 11, 15, 17 or more
 * decimal fields, separated by blanks; fields past the 17th (later kernels)
 * are ignored. Any other line is malformed: too few fields, a field count
 * of 5 to 10, 12 to 14 or 16, a field that is not a decimal number or
 * exceeds 2^64 - 1, a major or minor beyond 2^32 - 1, a name longer than
 * DISKSTATS_NAME_SIZE - 1 bytes or with a byte that is not printable ASCII.
 * warn (when not NULL) is called for each and the line is left out. Blank
 * lines are skipped silently.
 *
 * Returns 0, or -1 with errno ENOMEM when the list could not grow (its
 * content is then unspecified, but it may be reused or freed).
 */
int diskstats_parse(const char *text, size_t length,
    struct diskstats_list *list, diskstats_warn_fn warn, void *opaque);

void diskstats_list_free(struct diskstats_list *list);

#pragma GCC visibility pop

#endif
