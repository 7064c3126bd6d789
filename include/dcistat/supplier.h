/*
 * libdcistat-supplier: an application publishes its own statistics to
 * dcistatd, and through it to SNMP managers, by writing them into a
 * shared-memory segment that dcistatd's `suppliers` provider reads.
 *
 * The application needs write access to the run directory and nothing else:
 * no socket, no daemon running, no root. dcistatd may start before or after
 * it; when the application exits its rows go, and when it starts again it is
 * a new supplier (a new DCI4 reset stamp).
 *
 * The model is the one of provider.h (types, formats, presentations,
 * units, semantics; struct dci_supplier_info and struct dci_class_info),
 * with four ways to publish:
 *   - generic classes: dcistat_class_add, then instances added and removed
 *     at any time, values set and added;
 *   - evcnt(9) event counters: dcistat_evcnt_attach, _increment, _add,
 *     _detach;
 *   - devstat(9) device statistics: dcistat_devstat_add, then
 *     dcistat_devstat_start_transaction and _end_transaction around each
 *     I/O;
 *   - stats(3) variables of interest: templates of VOIs with SUM, MAX, MIN,
 *     a histogram and a t-digest, blobs of a template, absolute and
 *     relative updates.
 *
 * Class ids. An application chooses a number (1..2^32-2, unique among the
 * applications of a host, as a private enterprise number is among
 * organisations) and its classes are served under
 * {DCISTAT_SUPPLIER_CLASS_ARC, number}: evcnt as {.., 1}, devstat as
 * {.., 2}, VOI V of template T as {.., 3, T, V, 1}, its histogram as
 * {.., 3, T, V, 2} and its quantiles as {.., 3, T, V, 3}; generic classes
 * choose their own relative id, whose first word is at least
 * DCISTAT_CLASS_FIRST_GENERIC.
 *
 * Names. The module name is the application's own: dcistatd refuses one
 * that a provider of its configuration has (running or not) and
 * "suppliers"; a second live process with a module already served waits
 * until the first goes. A segment counts only while the process it was
 * opened by runs, as the file's owner: it is not to be handed to another
 * process or user.
 *
 * Threads. Every function may be called from any thread. The update
 * functions (dcistat_value_add, _set, dcistat_evcnt_increment, _add,
 * dcistat_devstat_*_transaction, dcistat_voi_update_*) take no lock, make
 * no system call, allocate nothing and lose no update when threads update
 * the same value at once: each thread adds into a region of its own that
 * the reader sums. The others (open, close, add, remove, attach, detach)
 * take a lock of the supplier's. A handle must not be used after it was
 * removed, detached or its supplier closed.
 *
 * Errors. Functions that can fail return NULL or -1 and set errno;
 * dcistat_supplier_error() gives the reason as a sentence for this thread.
 */
#ifndef DCISTAT_SUPPLIER_H
#define DCISTAT_SUPPLIER_H

#include <dcistat/provider.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where segments are created, unless the environment or the options say. */
#define DCISTAT_SUPPLIER_DIRECTORY "/run/dcistat/suppliers"
#define DCISTAT_SUPPLIER_DIRECTORY_ENVIRONMENT "DCISTAT_SUPPLIER_DIRECTORY"
/* The class id arc of application suppliers. */
#define DCISTAT_SUPPLIER_CLASS_ARC 3u
/* Relative class ids below this are the models' (evcnt, devstat, VOIs). */
#define DCISTAT_CLASS_FIRST_GENERIC 16u
/* The largest size of a string datum, its NUL included: a string holds at
 * most DCISTAT_SUPPLIER_STRING_MAX - 1 bytes. */
#define DCISTAT_SUPPLIER_STRING_MAX 256u

struct dcistat_supplier;
struct dcistat_class;
struct dcistat_instance;
struct dcistat_evcnt;
struct dcistat_devstat;
struct dcistat_template;
struct dcistat_blob;

/* Sizes of the segment. Zero fields take the defaults; `size` is
 * sizeof(struct dcistat_supplier_options), so that later fields can be
 * appended. */
struct dcistat_supplier_options {
	size_t size;
	const char *directory; /* NULL: $DCISTAT_SUPPLIER_DIRECTORY, else
	                          DCISTAT_SUPPLIER_DIRECTORY */
	uint32_t thread_regions; /* threads with a region of their own;
	                            default 16 */
	uint32_t classes;        /* default 32 */
	uint32_t datums;         /* over all classes; default 512 */
	uint32_t instances;      /* default 4096 */
	uint32_t region_words;   /* 64-bit words of values per region;
	                            default 65536 */
};

/* Creates the supplier's segment, MODULE.PID.dciseg in the run directory,
 * readable by its group (mode 0640; the daemon checks its owner). `info`
 * is the DCI4 supplier record (module: a label, unique on the host);
 * `number` the application's class arc. NULL: see errno. */
struct dcistat_supplier *dcistat_supplier_open(
    const struct dci_supplier_info *info, uint32_t number,
    const struct dcistat_supplier_options *options);

/* Removes the segment (its rows go) and frees every handle of it. */
void dcistat_supplier_close(struct dcistat_supplier *supplier);

/* The last failure of this thread, as a sentence. */
const char *dcistat_supplier_error(void);

/* The segment's path, for messages. */
const char *dcistat_supplier_path(const struct dcistat_supplier *supplier);

/* --- Generic classes --- */

/* Adds a class as a provider registers one (provider.h), with a relative
 * id (info->id, first word >= DCISTAT_CLASS_FIRST_GENERIC). Counters are
 * kept per thread and summed (add only, any thread); gauges and discrete
 * datums are kept once (set, or add atomically). A string datum's size is
 * 1 to DCISTAT_SUPPLIER_STRING_MAX, its NUL included: a string has no
 * natural size, so size 0 (which provider.h reads as the type's natural
 * size) is refused (EINVAL). */
struct dcistat_class *dcistat_class_add(
    struct dcistat_supplier *supplier, const struct dci_class_info *info);

/* The position of datum `datum_id` in the class, for the update functions;
 * -1 if the class has none. */
int dcistat_datum_index(const struct dcistat_class *class_handle,
    uint32_t datum_id);

/* Adds an instance: its id (as many words as the class's levels), its
 * label. Its values start at 0 (a string empty). */
struct dcistat_instance *dcistat_instance_add(
    struct dcistat_class *class_handle, const uint32_t *id, size_t id_words,
    const char *label);
int dcistat_instance_remove(struct dcistat_instance *instance);

/* Adds to an integer datum (a counter or a gauge; negative through
 * two's complement for a signed one). */
void dcistat_value_add(
    struct dcistat_instance *instance, int datum_index, uint64_t amount);
/* Sets a gauge, discrete, boolean, time or address datum (an address in
 * its first bytes, network order). Refused (-1) for a counter. */
int dcistat_value_set(
    struct dcistat_instance *instance, int datum_index, uint64_t value);
int dcistat_value_set_string(
    struct dcistat_instance *instance, int datum_index, const char *text);
/* The 64-bit word that holds an integer, boolean, time or address datum's
 * value for the reader, for a caller that updates it in place (libdci's
 * DCI_ADDRESS method) rather than through dcistat_value_add or _set. The
 * word is shared by every thread: one thread stores into it, or all use
 * atomic operations; a counter's value is this word plus what the update
 * functions added per thread. NULL for a string datum (it changes under
 * a sequence) or an index out of range. */
uint64_t *dcistat_value_address(
    struct dcistat_instance *instance, int datum_index);

/* --- evcnt(9) --- */

enum dcistat_evcnt_type {
	DCISTAT_EVCNT_TYPE_MISC = 0,
	DCISTAT_EVCNT_TYPE_INTR = 1,
	DCISTAT_EVCNT_TYPE_TRAP = 2,
};

/* Attaches a counter (group and name as evcnt(9): at most 63 bytes each)
 * under `parent` (NULL, or a counter of the same supplier still
 * attached). */
struct dcistat_evcnt *dcistat_evcnt_attach(struct dcistat_supplier *supplier,
    enum dcistat_evcnt_type type, struct dcistat_evcnt *parent,
    const char *group, const char *name);
/* Refused (-1, EBUSY) while a child is attached. */
int dcistat_evcnt_detach(struct dcistat_evcnt *counter);
void dcistat_evcnt_increment(struct dcistat_evcnt *counter);
void dcistat_evcnt_add(struct dcistat_evcnt *counter, uint64_t amount);

/* --- devstat(9) --- */

/* The kind of a transaction (devstat_trans_flags). */
enum dcistat_devstat_kind {
	DCISTAT_DEVSTAT_NO_DATA = 0,
	DCISTAT_DEVSTAT_READ = 1,
	DCISTAT_DEVSTAT_WRITE = 2,
	DCISTAT_DEVSTAT_FREE = 3,
};

/* devstat_add_entry: the device's name and unit number (served as
 * "NAMEUNIT"), block size, flags, device type and priority as devstat(9)
 * defines them. */
struct dcistat_devstat *dcistat_devstat_add(struct dcistat_supplier *supplier,
    const char *name, uint32_t unit_number, uint32_t block_size,
    uint32_t flags, uint32_t device_type, uint32_t priority);
int dcistat_devstat_remove(struct dcistat_devstat *device);
/* Counts a transaction as outstanding from now; returns its start time
 * (nanoseconds of CLOCK_MONOTONIC), for _end_transaction. Start and end
 * read the clock as of the kernel's last tick (CLOCK_MONOTONIC_COARSE, a
 * fraction of a full read's cost) when that tick is 10 ms or
 * finer, as devstat(9) keeps busy time with getmicrouptime(); otherwise
 * CLOCK_MONOTONIC itself. Each time is then up to a tick early: a single
 * short transaction may count 0 or a tick, sums over many are right on
 * average. A caller that needs finer times passes its own to the _at
 * variants. */
uint64_t dcistat_devstat_start_transaction(struct dcistat_devstat *device);
/* Ends a transaction begun at `start` (devstat_end_transaction's `then`):
 * counts its bytes and one operation of its kind, its duration, and the
 * device's busy time (time with at least one transaction outstanding). */
void dcistat_devstat_end_transaction(struct dcistat_devstat *device,
    uint64_t bytes, enum dcistat_devstat_kind kind, uint64_t start);
/* The same with the time given (nanoseconds of CLOCK_MONOTONIC), as
 * devstat(9)'s _bio_t0 and _bio_bt variants take one: for a caller that
 * already read the clock for its own I/O, and saves reading it again. A
 * time must not be earlier than one given before for the device; an end
 * time before its busy period began adds no busy time. The end time is
 * read once, as FreeBSD's devstat_end_transaction reads it, and closes the
 * busy period too. */
uint64_t dcistat_devstat_start_transaction_at(
    struct dcistat_devstat *device, uint64_t now);
void dcistat_devstat_end_transaction_at(struct dcistat_devstat *device,
    uint64_t bytes, enum dcistat_devstat_kind kind, uint64_t start,
    uint64_t now);

/* --- stats(3) variables of interest --- */

enum dcistat_voi_statistic {
	DCISTAT_VOI_SUM = 1u << 0,
	DCISTAT_VOI_MAX = 1u << 1,
	DCISTAT_VOI_MIN = 1u << 2,
	DCISTAT_VOI_HISTOGRAM = 1u << 3,
	/* stats(3)'s VOI_TDGST: a t-digest of the samples, served as the
	 * class {.., 3, T, V, 3}, one instance per blob, with the datums p50
	 * (id 15000), p90 (19000) and p99 (19900), of the VOI's signedness
	 * and unit, rounded to integers. Each thread keeps a digest of its
	 * own (2053 words, some 16 KiB, of every region a blob); dcistatd
	 * merges them.
	 * Accuracy: within 1 % of the exact p50, p90 and p99 on 10^6
	 * log-normal samples (bench/tdigest measures it and the update
	 * cost). Needs a
	 * dcistatd that reads segment format version 2. */
	DCISTAT_VOI_TDIGEST = 1u << 4,
};

enum dcistat_histogram_kind {
	DCISTAT_HISTOGRAM_NONE = 0,
	/* Continuous range: bucket i counts lower[i] <= v < lower[i + 1],
	 * the last up to `upper` (exclusive). */
	DCISTAT_HISTOGRAM_CONTINUOUS = 1,
	/* Discrete range: bucket i counts lower[i] <= v <= upper[i]. */
	DCISTAT_HISTOGRAM_DISCRETE_RANGE = 2,
	/* Discrete value: bucket i counts v == value[i]. */
	DCISTAT_HISTOGRAM_DISCRETE_VALUE = 3,
};

/* How a continuous range's buckets are laid out (stats(3)'s
 * STATS_VSS_CRHIST*_LIN, _EXP, _LINEXP and user buckets). */
enum dcistat_histogram_layout {
	DCISTAT_LAYOUT_USER = 0,        /* bounds given */
	DCISTAT_LAYOUT_LINEAR = 1,      /* from low to high by step */
	DCISTAT_LAYOUT_EXPONENTIAL = 2, /* low, low*base, ... up to high */
	/* Each power of `base` from low to high split into `step` linear
	 * buckets. */
	DCISTAT_LAYOUT_LINEAR_EXPONENTIAL = 3,
};

#define DCISTAT_HISTOGRAM_BUCKETS_MAX 256u

struct dcistat_histogram {
	enum dcistat_histogram_kind kind;
	enum dcistat_histogram_layout layout;
	int64_t low, high; /* continuous: [low, high) */
	int64_t step;      /* linear: bucket width; linear-exponential:
	                      buckets per power */
	int64_t base;      /* exponential: ratio, >= 2 */
	/* User buckets and discrete kinds: `count` lower bounds (continuous
	 * user: ascending, the last bucket ending at `high`), ranges
	 * (lower, upper), or values. */
	const int64_t *lower;
	const int64_t *upper;
	size_t count;
	int wide; /* 64-bit bucket counters; else 32-bit (they wrap) */
};

struct dcistat_voi_info {
	uint32_t id; /* 1..2^32-2, unique in its template */
	const char *name;
	int is_signed;   /* values are int64_t; else uint64_t */
	unsigned statistics; /* enum dcistat_voi_statistic bits */
	enum dci_unit unit;
	const struct dcistat_histogram *histogram; /* with _HISTOGRAM */
};

/* A template (stats_tpl_alloc, stats_tpl_add_voistats): number 1..2^32-2
 * in the supplier, its VOIs. */
struct dcistat_template *dcistat_template_add(struct dcistat_supplier *supplier,
    uint32_t number, const char *name, const struct dcistat_voi_info *vois,
    size_t voi_count);

/* A blob of a template (stats_blob_alloc): one set of its VOIs, e.g. per
 * connection; `blob_id` unique in the template. */
struct dcistat_blob *dcistat_blob_add(struct dcistat_template *template_handle,
    uint32_t blob_id, const char *label);
int dcistat_blob_remove(struct dcistat_blob *blob);

/* The position of a VOI in its template, for the updates; -1: none. */
int dcistat_voi_index(const struct dcistat_template *template_handle,
    uint32_t voi_id);

/* stats_voi_update_abs_*: `value` is the VOI's new value, added to SUM,
 * compared with MAX and MIN, counted in the histogram (or out of band). */
void dcistat_voi_update_absolute(
    struct dcistat_blob *blob, int voi_index, int64_t value);
/* stats_voi_update_rel_*: the VOI's value changes by `delta` and the new
 * value is the sample; the first relative update starts from 0. */
void dcistat_voi_update_relative(
    struct dcistat_blob *blob, int voi_index, int64_t delta);

#ifdef __cplusplus
}
#endif

#endif
