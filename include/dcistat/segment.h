/*
 * The supplier segment: the shared-memory file through which an application
 * (libdcistat-supplier) publishes statistics and dcistatd's `suppliers`
 * provider reads them. This header is the format, shared by the writer and
 * the reader; neither side keeps a copy of it. It is installed, so that
 * another reader or writer can follow it; DCISTAT_SEGMENT_VERSION changes
 * with any change of layout, and a reader refuses a version it does not
 * know.
 *
 * The reader treats every byte as untrusted (any user allowed to write the
 * run directory can write anything): each offset, count, length and id is
 * checked against the file's size before use, and nothing in a segment is a
 * pointer. The writer is trusted by nobody but itself.
 *
 * Layout, all integers in the writer's byte order (the magic tells a
 * foreign one), every table at an offset the header gives:
 *
 *   header     the DCI4 supplier record, the owner's pid and start time,
 *              the tables' offsets and capacities
 *   classes    class_capacity class descriptors; the first class_count
 *              are published (release store of class_count)
 *   datums     datum_capacity datum descriptors; a class's are
 *              [datum_first, datum_first + datum_count)
 *   instances  instance_capacity records; a record is live while its
 *              state is odd, and is read only if its state is the same
 *              before and after the copy
 *   regions    region_count regions of region_words 64-bit words: one per
 *              writing thread (thread_regions of them) and the shared one,
 *              last. Every region has the same layout: an instance's values
 *              are in a block at the same word offset in each.
 *
 * Values. A datum's words are combined over the regions as its `combine`
 * says: SUM adds the word of every thread region and of the shared region
 * (modulo 2^64, so a signed datum adds in two's complement); MAX and MIN
 * keep the largest of the regions' words, which hold an order-preserving
 * encoding (0: no sample yet); SHARED, STRING and BUSY are in the shared
 * region only; TDIGEST datums are t-digests merged over every region
 * (below). A thread updates only its own region, with plain stores;
 * threads beyond thread_regions update the shared region with atomic
 * read-modify-writes, so no update is ever lost.
 *
 * T-digests (version 2). A TDIGEST datum's words are a struct
 * dcistat_segment_tdigest in every region: a thread's own digest, and in
 * the shared region one that threads beyond thread_regions update holding
 * the lock word just before it (0 free, 1 held; taken with an atomic
 * compare-and-swap). The reader merges the digests of every region in use
 * and serves the quantile (id - 10000) / 10000 of the datum's id (15000
 * p50, 19900 p99), rounded to an integer; with no sample, no value. Every
 * TDIGEST datum of a class shares one digest, at the word of the first.
 * Versions: 1 had no TDIGEST; a reader of version 2 reads both.
 *
 * Consistency. Word 0 of a block in each region is a pair of 32-bit
 * sequence numbers, begun and ended. A writer that changes more than one
 * word at once increments begun, writes, then increments ended; a reader
 * copies a region's block and keeps the copy when ended, read before the
 * copy, equals begun, read after it. A writer that died between the two
 * leaves them different: the reader gives up after a bounded number of
 * tries and the block has no value in that refresh.
 */
#ifndef DCISTAT_SEGMENT_H
#define DCISTAT_SEGMENT_H

#include <stdint.h>

/* "DCISEG" then the format version; the writer's byte order is told by
 * byte_order_mark. */
#define DCISTAT_SEGMENT_MAGIC "DCISEG\0"
#define DCISTAT_SEGMENT_VERSION 2u
/* The oldest version this header's reader still reads. */
#define DCISTAT_SEGMENT_VERSION_OLDEST 1u
#define DCISTAT_SEGMENT_BYTE_ORDER_MARK 0x01020304u
/* Segment files are named MODULE.PID.dciseg in the run directory. */
#define DCISTAT_SEGMENT_SUFFIX ".dciseg"

#define DCISTAT_SEGMENT_LABEL_SIZE 64u
#define DCISTAT_SEGMENT_DESCRIPTION_SIZE 160u
#define DCISTAT_SEGMENT_INSTANCE_LABEL_SIZE 128u
#define DCISTAT_SEGMENT_ID_WORDS 16u
/* A class id in a segment is relative: the reader serves it under
 * {DCISTAT_SUPPLIER_CLASS_ARC, supplier number}, so it has at most this
 * many words. */
#define DCISTAT_SEGMENT_CLASS_ID_WORDS 14u
#define DCISTAT_SEGMENT_LEVELS 16u
/* The longest string datum, NUL included. */
#define DCISTAT_SEGMENT_STRING_MAX 256u

enum dcistat_segment_combine {
	DCISTAT_COMBINE_SUM = 1,
	DCISTAT_COMBINE_MAX = 2,
	DCISTAT_COMBINE_MIN = 3,
	DCISTAT_COMBINE_SHARED = 4,
	DCISTAT_COMBINE_STRING = 5,
	/* devstat busy time: two shared words, the busy state (see
	 * dcistat_segment_busy_*) and the microseconds of the busy periods
	 * that ended; served as the time busy until the read, in units of
	 * `divisor` microseconds. */
	DCISTAT_COMBINE_BUSY_TIME = 6,
	/* devstat busy count: the count in the busy state word. */
	DCISTAT_COMBINE_BUSY_COUNT = 7,
	/* A quantile of the t-digests of every region (version 2). */
	DCISTAT_COMBINE_TDIGEST = 8,
};

/* A TDIGEST datum's quantile: q = (id - BASE) / SCALE, 0 < q < 1. */
#define DCISTAT_SEGMENT_QUANTILE_BASE 10000u
#define DCISTAT_SEGMENT_QUANTILE_SCALE 10000u

/* The t-digest of one region (Dunning's merging digest with the k1 scale
 * function, compression 400): centroids sorted by mean, then samples not
 * yet merged. Doubles are IEEE 754 binary64 in the writer's byte order.
 * A reader trusts no field: counts past the arrays are cut, centroids
 * whose weight is not finite and positive are skipped. */
#define DCISTAT_SEGMENT_TDIGEST_CENTROIDS 512u
#define DCISTAT_SEGMENT_TDIGEST_BUFFER 1024u
struct dcistat_segment_tdigest {
	uint64_t centroid_count;
	uint64_t buffered;
	double count; /* samples in all */
	double minimum;
	double maximum;
	double mean[DCISTAT_SEGMENT_TDIGEST_CENTROIDS];
	double weight[DCISTAT_SEGMENT_TDIGEST_CENTROIDS];
	double buffer[DCISTAT_SEGMENT_TDIGEST_BUFFER];
};
#define DCISTAT_SEGMENT_TDIGEST_WORDS                                          \
	(sizeof(struct dcistat_segment_tdigest) / sizeof(uint64_t))

struct dcistat_segment_header {
	char magic[8];
	uint32_t version;
	uint32_t byte_order_mark;
	uint64_t segment_size; /* bytes: the file's size as created */
	uint32_t header_size;
	uint32_t pid;
	/* The owner's start time (/proc/PID/stat field 22, clock ticks since
	 * boot): with pid, tells the owner from a process that reused its
	 * pid. */
	uint64_t process_start;
	uint64_t reset_stamp; /* DCI4: unique per opening */
	/* DCI4 supplier record. */
	char module[DCISTAT_SEGMENT_LABEL_SIZE];
	char title[DCISTAT_SEGMENT_LABEL_SIZE];
	char description[DCISTAT_SEGMENT_DESCRIPTION_SIZE];
	uint32_t supplier_type;
	uint32_t supplier_version;
	/* The application's number: its classes are served under
	 * {DCISTAT_SUPPLIER_CLASS_ARC, number}. */
	uint32_t number;
	uint32_t class_capacity;
	uint32_t datum_capacity;
	uint32_t instance_capacity;
	uint64_t class_offset;
	uint64_t datum_offset;
	uint64_t instance_offset;
	uint64_t region_offset;
	uint32_t region_words;
	uint32_t thread_regions; /* the shared region is number thread_regions */
	/* Written by the writer, read with acquire loads. */
	uint32_t class_count;
	uint32_t datum_count;
	uint32_t instance_high; /* records [0, instance_high) may be live */
	/* Thread regions [0, regions_in_use) have been written; the others
	 * are all zero and need not be read. */
	uint32_t regions_in_use;
	/* Set when the owner closed the segment (it is being removed). */
	uint32_t closed;
	uint32_t reserved[7];
};

struct dcistat_segment_class {
	uint32_t id_length; /* 1..DCISTAT_SEGMENT_CLASS_ID_WORDS */
	uint32_t id[DCISTAT_SEGMENT_CLASS_ID_WORDS];
	uint32_t level_count; /* 1..DCISTAT_SEGMENT_LEVELS */
	uint32_t level_itype[DCISTAT_SEGMENT_LEVELS];
	uint32_t level_size[DCISTAT_SEGMENT_LEVELS]; /* bytes, multiple of 4 */
	uint32_t datum_first;
	uint32_t datum_count;
	char label[DCISTAT_SEGMENT_LABEL_SIZE];
	char description[DCISTAT_SEGMENT_DESCRIPTION_SIZE];
};

struct dcistat_segment_datum {
	/* As struct dci_datum_info (provider.h). */
	uint32_t id;
	uint32_t type;
	uint32_t format;
	uint32_t presentation;
	uint32_t size;
	uint32_t volatility;
	uint32_t unit;
	uint32_t semantics;
	uint32_t combine; /* enum dcistat_segment_combine */
	/* First word, relative to an instance's value base; strings take
	 * (size + 7) / 8 words. */
	uint32_t word;
	/* The value served is the combined value divided by this (>= 1):
	 * nanoseconds kept, milliseconds served. */
	uint32_t divisor;
	/* Signed: SUM adds in two's complement, MAX and MIN compare signed. */
	uint32_t is_signed;
	char label[DCISTAT_SEGMENT_LABEL_SIZE];
	char description[DCISTAT_SEGMENT_DESCRIPTION_SIZE];
};

struct dcistat_segment_instance {
	/* Odd: live. Every change of the record first makes it even. */
	uint32_t state;
	uint32_t class_index;
	uint32_t block;       /* word offset of its block in every region */
	uint32_t block_words; /* including the sequence word */
	uint32_t value_base;  /* word offset of its values in the block */
	uint32_t parent;      /* instance index + 1 of its parent; 0: none */
	uint32_t id[DCISTAT_SEGMENT_ID_WORDS];
	char label[DCISTAT_SEGMENT_INSTANCE_LABEL_SIZE];
};

/* The sequence word of a block: two 32-bit counters, begun first and
 * ended second in memory, so that one 64-bit load reads both. */
struct dcistat_segment_sequence {
	uint32_t begun;
	uint32_t ended;
};

/*
 * The devstat busy state, one 64-bit word: transactions outstanding in the
 * low 12 bits, the number of busy periods being closed (their time not yet
 * added to the busy time) in the next 4, and the start of the current busy
 * period, in microseconds of CLOCK_MONOTONIC, in the top 48 (which wrap
 * after 8.9 years of uptime). A reader that sees closers retries.
 */
#define DCISTAT_SEGMENT_BUSY_COUNT_BITS 12u
#define DCISTAT_SEGMENT_BUSY_COUNT_MAX ((1u << DCISTAT_SEGMENT_BUSY_COUNT_BITS) - 1)
#define DCISTAT_SEGMENT_BUSY_CLOSER_SHIFT DCISTAT_SEGMENT_BUSY_COUNT_BITS
#define DCISTAT_SEGMENT_BUSY_CLOSER_MAX 15u
#define DCISTAT_SEGMENT_BUSY_START_SHIFT 16u

static inline uint32_t
dcistat_segment_busy_count(uint64_t state)
{
	return (uint32_t)(state & DCISTAT_SEGMENT_BUSY_COUNT_MAX);
}

static inline uint32_t
dcistat_segment_busy_closers(uint64_t state)
{
	return (uint32_t)(state >> DCISTAT_SEGMENT_BUSY_CLOSER_SHIFT) & 0xfu;
}

static inline uint64_t
dcistat_segment_busy_start(uint64_t state)
{
	return state >> DCISTAT_SEGMENT_BUSY_START_SHIFT;
}

/* The order-preserving encodings of MAX and MIN words, whose identity is
 * 0 so that a zeroed region adds nothing: the largest encoding over the
 * regions is the combined one. A region never written and one that saw the
 * type's extreme look alike; the sample count beside them tells "no
 * sample". */
static inline uint64_t
dcistat_segment_order_encode(uint64_t value, int is_signed, int minimum)
{
	uint64_t ordered = is_signed ? value ^ (UINT64_C(1) << 63) : value;
	return minimum ? ~ordered : ordered;
}

static inline uint64_t
dcistat_segment_order_decode(uint64_t encoded, int is_signed, int minimum)
{
	uint64_t ordered = minimum ? ~encoded : encoded;
	return is_signed ? ordered ^ (UINT64_C(1) << 63) : ordered;
}

#endif
