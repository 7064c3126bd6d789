/*
 * <uma.h>: the data types of the UMA Data Capture Interface (The Open
 * Group, 1997) as dcistat's libdci implements them. A consumer includes
 * <dci.h>, which includes this file; both are installed in
 * $(includedir)/dcistat, and `pkg-config --cflags dci` names that
 * directory, so a program written to the specification includes them by
 * their specified names.
 *
 * The specification names these types and gives their sizes but not every
 * layout; where it does not, the layout here is dcistat's, chosen in its
 * conventions and listed in dci(3) under "IMPLEMENTATION CHOICES":
 *   - every structure is made of 4-byte words, so every size and offset
 *     is a multiple of 4;
 *   - a descriptor (UMAVarLenDescr and its kin) holds an offset from the
 *     start of the structure that contains it, then sizes or counts;
 *   - UMAVarLenData is the variable part: a flexible array member, so
 *     sizeof gives the fixed part alone.
 */
#ifndef DCISTAT_UMA_H
#define DCISTAT_UMA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t UMAInt4;
typedef uint32_t UMAUint4;
typedef int64_t UMAInt8;
typedef uint64_t UMAUint8;
/* 4 bytes: 0 is false, anything else true. */
typedef UMAUint4 UMABoolean;

/* Seconds since the Epoch (or an interval) and a fraction under one
 * second: nanoseconds in UMATimeSpec, microseconds in UMATimeVal. */
typedef struct UMATimeSpec {
	UMAUint4 tv_sec;
	UMAUint4 tv_nsec;
} UMATimeSpec;
typedef struct UMATimeVal {
	UMAUint4 tv_sec;
	UMAUint4 tv_usec;
} UMATimeVal;

/* A string: `size` counts the whole structure, the size word included,
 * padded to a multiple of 4. A text string ends with a NUL within it; an
 * octet string's bytes are not NUL-terminated and its padding is zeros. */
typedef struct UMAString {
	UMAUint4 size;
	char string[1];
} UMATextString, UMAOctetString;

/* The variable part of a structure: whatever its descriptors point at. */
typedef UMAUint4 UMAVarLenData[];

/* Variable-length data: `size` bytes at `offset` from the containing
 * structure's start. A missing optional part has size 0 and a valid
 * offset. */
typedef struct UMAVarLenDescr {
	UMAUint4 offset;
	UMAUint4 size;
} UMAVarLenDescr;

/* An element of implementation-defined content, described alike. */
typedef UMAVarLenDescr UMAElementDescr;

/* An array of `count` elements of `elementSize` bytes each at `offset`. */
typedef struct UMAArrayDescr {
	UMAUint4 offset;
	UMAUint4 elementSize;
	UMAUint4 count;
} UMAArrayDescr;

/* An array of `count` variable-length elements at `offset`, `size` bytes
 * in all; each element starts with its own size word (a multiple of 4),
 * and the next one follows it. */
typedef struct UMAVarArrayDescr {
	UMAUint4 offset;
	UMAUint4 count;
	UMAUint4 size;
} UMAVarArrayDescr;

/* What a value is (the specification's "UMADataType Values"). */
typedef UMAUint4 UMADataType;
enum {
	UMA_INT4 = 1,
	UMA_INT8 = 2,
	UMA_UINT4 = 3,
	UMA_UINT8 = 4,
	UMA_BOOLEAN = 5,
	UMA_OCTETSTRING = 6,
	UMA_TEXTSTRING = 7,
	UMA_TIMEVAL = 8,
	UMA_TIMESPEC = 9,
	UMA_DERIVED = 10,
	UMA_CLASSDATA = 11,
};

/* What a value measures; for UMA_DERIVED, how it is derived. The range
 * 0..65535 holds the specification's units, values above it dcistat's
 * own. */
typedef UMAUint4 UMAUnit;
enum {
	UMA_NOUNITS = 0,
	/* size */
	UMA_BYTES = 1,
	UMA_KBYTES,
	UMA_MBYTES,
	UMA_GBYTES,
	UMA_TBYTES,
	/* time */
	UMA_SECS = 0x100,
	UMA_MILLISECS,
	UMA_MICROSECS,
	UMA_NANOSECS,
	UMA_PICOSECS,
	UMA_TICKS,
	/* counts of system abstractions */
	UMA_COUNT = 0x200,
	UMA_EVENT,
	UMA_PAGES,
	UMA_BLOCKS,
	UMA_CHARACTERS,
	UMA_QLENGTH,
	UMA_PROCESSES,
	UMA_TASKS,
	UMA_THREADS,
	UMA_JOBS,
	UMA_USERS,
	UMA_TRANSACTIONS,
	UMA_MESSAGES,
	UMA_SESSIONS,
	UMA_STREAMSMODULES,
	UMA_STREAMSHEADS,
	UMA_STREAMSMSGS,
	UMA_PACKETS,
	UMA_INODES,
	UMA_FILES,
	UMA_FILESYSTEMS,
	/* counts of hardware activity or objects */
	UMA_READS = 0x300,
	UMA_WRITES,
	UMA_SEEKS,
	UMA_IOCTLS,
	UMA_CONNECTIONS,
	UMA_RETRIES,
	UMA_MOUNTS,
	UMA_REWINDS,
	UMA_POSITIONINGS,
	UMA_MARKS,
	UMA_PORTS,
	UMA_PROCESSORS,
	UMA_DISKS,
	UMA_NETS,
	UMA_SLINES,
	UMA_BUSSES,
	UMA_CHANNELS,
	/* derived: arg1, arg2, arg3 are named in the datum id */
	UMA_DERIVED_SUM2 = 0x400, /* arg1 + arg2 */
	UMA_DERIVED_SUM3,         /* arg1 + arg2 + arg3 */
	UMA_DERIVED_DIFFERENCE,   /* arg1 - arg2 */
	UMA_DERIVED_AVERAGE,      /* arg1 / arg2 */
	UMA_DERIVED_PERCENT,      /* arg1 / (arg1 + arg2) */
	UMA_DERIVED_PRODUCT,      /* arg1 * arg2 */
	UMA_DERIVED_VARIANCE,     /* (arg3/arg1) - (arg2)^2/arg1 */
	/* dcistat's units */
	UMA_DCISTAT_INTERRUPTS = 0x10000,
	UMA_DCISTAT_CENTISECS, /* hundredths of a second */
	UMA_DCISTAT_MEGABITS_PER_SECOND,
	UMA_DCISTAT_OCTETS, /* link-layer octets, as IF-MIB counts */
	UMA_DCISTAT_ERRORS,
	UMA_DCISTAT_HUNDREDTHS, /* a fraction times 100 */
};

/* What an instance level stands for (the specification's
 * "UMAInstTagType Enumeration"). */
typedef UMAUint4 UMAInstTagType;
enum {
	UMA_SINGLEINST = 1,
	UMA_WORKINFO,
	UMA_WORKID,
	UMA_MSG_QUEUE,
	UMA_SEMAPHORE,
	UMA_SHR_SEGMENT,
	UMA_PROCESSOR,
	UMA_FSGROUP,
	UMA_MOUNTPOINT,
	UMA_INODE,
	UMA_DISKID,
	UMA_BUCKET_NO,
	UMA_DISKPARTITION,
	UMA_ACCESS_PORT,
	UMA_DEVICE,
	UMA_KERNEL_TABLES,
	UMA_CHANNEL,
	UMA_IOP,
	UMA_PATH,
	UMA_SYSCALL,
	UMA_ENUMERATION,
	UMA_STREAMS,
	UMA_CONTROLLERID,
	UMA_SCHED_CLASS,
	UMA_LOGICALVOL,
	UMA_REMOTE_FSTYPES,
	UMA_IPADDR,
	UMA_FILESERVER_COMMAND,
	UMA_FILECLIENT_COMMAND,
	UMA_SERVER_COMMAND,
	UMA_CLIENT_COMMAND,
	UMA_MEMOBJECT_ID,
	/* dcistat's: a network interface by ifIndex, an event counter */
	UMA_DCISTAT_INTERFACE = 0x10000,
	UMA_DCISTAT_EVENTCOUNTER,
};

#ifdef __cplusplus
}
#endif

#endif
