/*
 * dcistat provider ABI: the only header a statistics provider includes.
 *
 * A provider is a shared object loaded by dcistatd with dlopen(RTLD_NOW). It
 * exports exactly one symbol, `dci_provider_entry` (DCI_PROVIDER_ENTRY_SYMBOL),
 * a `struct dci_provider` whose abi_version must equal DCI_PROVIDER_ABI_VERSION
 * or the loader refuses the file.
 *
 * Model (UMA Data Capture Interface, DCI4 statistic descriptions):
 *   supplier  a source of statistics (DCI4 spctl): module, title, version.
 *   class     a hierarchical id (1..DCI_CLASS_ID_MAX_LEVELS 32-bit words), a
 *             label, the shape of its instance ids, and its datums.
 *   instance  one object the class counts for (a NIC, a disk), identified by
 *             instance levels of 4-byte words; a label such as "eth0".
 *   datum     one statistic of a class (id 1..2^32-2) with a DCI4 type,
 *             format, presentation, size, volatility, a unit and semantics.
 *
 * Threads and call order. A provider's callbacks never run concurrently
 * with each other. init and fini run on the host's main thread; refresh
 * runs on a thread the host keeps for this provider alone (dcistatd and
 * the snmpd module; -t, --mib and tests call it on the main thread), so a
 * refresh that blocks delays no other provider and no request. The host
 * functions below may be called only from inside those callbacks, on the
 * thread that runs them; state a provider shares between init, refresh and
 * fini needs no lock, but nothing it starts may call the host on its own.
 *
 * - init: once, after the plug-in is loaded and its options are checked.
 *   Registers suppliers and classes; may read options and declare a
 *   refresh limit; returns 0 or -1 (the provider is then shown failed and
 *   init is tried again later, with back-off, after fini). init starts no
 *   thread and opens no listening socket: it may run in a process that
 *   forks afterwards (dcistatd and snmpd daemonise after loading their
 *   providers, and a thread does not survive a fork), or in one that only
 *   checks the configuration or reads once beside a running daemon (-t,
 *   --mib, `dcistat --standalone`), whose addresses and socket paths that
 *   daemon holds. It checks what it would listen on (a clear message and
 *   -1 for a bad address) and asks for a start (dci_serve_start).
 *
 * - start: the callback given to dci_serve_start, at most once per init,
 *   on the main thread of the process that serves: after any fork, before
 *   refresh runs on its thread. There the provider binds its sockets and
 *   starts its threads; it may log and read options. Returns 0 or -1 (the
 *   provider is then failed as after a failed init: fini, and init tried
 *   again with back-off). A check or a one-shot read never runs it, so
 *   refresh may run without it and serves what it has (nothing yet).
 *
 * - refresh: every refresh period (YAML `refresh`, default 1 s), whether
 *   or not requests arrive. For each of its classes it opens a batch, adds
 *   every current instance with its values, and commits; the snapshots
 *   become visible together when refresh returns. Returns 0, or -1 to keep
 *   the previous snapshot (the failure is logged and retried with
 *   back-off; a class not refreshed for `stale-periods` periods has its
 *   rows withdrawn). A provider whose suppliers come and go (one that
 *   serves other processes) may register and withdraw suppliers and
 *   classes from refresh too (dci_supplier_withdraw): a host older than
 *   that call refuses registration there.
 *
 * - fini: once before the plug-in is unloaded (after a reload that removes
 *   or changes it, at stop), also after a failed init or start; never
 *   while a refresh runs. It stops what start started, whether or not
 *   start ran.
 *
 * Memory. Every structure and string passed to the host is copied before the
 * call returns; the provider keeps ownership of what it passes. Handles the
 * host returns (struct dci_supplier, struct dci_class, struct dci_batch) are
 * owned by the host and valid until fini returns (a batch: until commit or
 * abort). Strings the host returns (options) stay valid until fini returns.
 */
#ifndef DCISTAT_PROVIDER_H
#define DCISTAT_PROVIDER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCI_PROVIDER_ABI_VERSION 1u
#define DCI_PROVIDER_ENTRY_SYMBOL "dci_provider_entry"

#define DCI_CLASS_ID_MAX_LEVELS 16u
#define DCI_INSTANCE_ID_MAX_WORDS 16u
#define DCI_DATUM_ID_MIN 1u
#define DCI_DATUM_ID_MAX 0xfffffffeu
#define DCI_LABEL_MAX 255u
#define DCI_STRING_MAX 65535u

/* DCI4 statistic types (ST_). */
enum dci_type {
	DCI_ST_UNUSED = 0,
	DCI_ST_BOOLEAN = 1,
	DCI_ST_STRING = 2,
	DCI_ST_INTEGER8 = 3,
	DCI_ST_INTEGER16 = 4,
	DCI_ST_INTEGER32 = 5,
	DCI_ST_INTEGER64 = 6,
	DCI_ST_ADDRESS = 7,
	DCI_ST_TIME = 8,
	/* UMA_DERIVED: no value of its own. The host computes it from other
	 * datums of the same instance at every commit (see "Derived
	 * metrics" below); a provider never sets it. */
	DCI_ST_DERIVED = 9,
};

/* Boolean formats (enumeration) and presentations. */
#define DCI_SBF_NORMAL 0u
#define DCI_SBF_INVERTED 1u
#define DCI_SBP_ON_OFF 0u
#define DCI_SBP_YES_NO 1u
#define DCI_SBP_TRUE_FALSE 2u
#define DCI_SBP_ALWAYS_NEVER 3u
#define DCI_SBP_ONE_ZERO 4u

/* String format and presentation. */
#define DCI_SSF_ZEROTERM 0u
#define DCI_SSP_LITERAL 0u

/* Integer formats (bit set) and presentations. */
#define DCI_SIF_UNSIGNED 0x01u
#define DCI_SIF_BIGENDIAN 0x02u
#define DCI_SIP_HEXADECIMAL 0u
#define DCI_SIP_DECIMAL 1u
#define DCI_SIP_DOTTED 2u

/* Address formats and presentation. */
#define DCI_SAF_ETHERNET 0u /* 6 bytes */
#define DCI_SAF_IP 1u       /* 4 bytes, network order */
#define DCI_SAF_ECONET 2u   /* 2 bytes: net, station */
#define DCI_SAP_NORMAL 0u

/* Time formats and presentations. Stored as 8 bytes, little-endian:
 * STF_5BYTE centiseconds since 1900-01-01 (top 3 bytes ignored), STF_CTIME
 * seconds since 1970-01-01 (signed), STF_MONOTONIC centiseconds of Linux's
 * CLOCK_MONOTONIC (since boot), the clock dcistatd uses for TimeStamps. */
#define DCI_STF_5BYTE 0u
#define DCI_STF_CTIME 1u
#define DCI_STF_MONOTONIC 2u
#define DCI_STP_ABSOLUTE 0u
#define DCI_STP_RELATIVE 1u

/* Volatility (SV_). */
#define DCI_SV_STATIC 0u
#define DCI_SV_VARIABLE 1u
#define DCI_SV_VOLATILE 2u

/* What a value means over time; decides Counter vs Gauge in SNMP and whether
 * a decrease is a discontinuity.
 *
 * Counters. An unsigned counter wraps at its full width, as SNMP's
 * Counter32 and Counter64 do, and the host tells a wrap from a reset: a
 * decrease is a wrap when the value went forward, modulo 2^bits, by less
 * than half the range (it fell by more than half), and a reset otherwise,
 * which sets the instance's discontinuity time (dciStatDiscontinuity, as
 * IF-MIB's ifCounterDiscontinuityTime). A signed counter's every decrease
 * is a reset. An unsigned 8- or 16-bit counter is served as a 32-bit one
 * (ST_INTEGER32, size 4 in dciDatumTable): the provider sets its 8 or 16
 * bits and the host extends them across refreshes, adding how far each
 * value went forward modulo 2^8 or 2^16, which is right while it wraps at
 * most once between two refreshes. A provider that knows a count started
 * over (a device replaced under the same id) says so with
 * dci_batch_set_discontinuity; one that widens counters itself declares
 * how long it can go between refreshes with dci_refresh_limit. */
enum dci_semantics {
	DCI_SEMANTICS_COUNTER = 1,  /* only grows, wrapping at its width */
	DCI_SEMANTICS_GAUGE = 2,    /* goes up and down */
	DCI_SEMANTICS_DISCRETE = 3, /* a state, name, address or time */
};

/* Units (UMA size, time and count units, plus dcistat extensions above 2^16).
 */
enum dci_unit {
	DCI_UNIT_NONE = 0,
	DCI_UNIT_BYTES,
	DCI_UNIT_KBYTES,
	DCI_UNIT_MBYTES,
	DCI_UNIT_GBYTES,
	DCI_UNIT_TBYTES,
	DCI_UNIT_SECONDS,
	DCI_UNIT_MILLISECONDS,
	DCI_UNIT_MICROSECONDS,
	DCI_UNIT_NANOSECONDS,
	DCI_UNIT_PICOSECONDS,
	DCI_UNIT_TICKS,
	DCI_UNIT_COUNT,
	DCI_UNIT_EVENTS,
	DCI_UNIT_PAGES,
	DCI_UNIT_BLOCKS,
	DCI_UNIT_CHARACTERS,
	DCI_UNIT_PACKETS,
	DCI_UNIT_MESSAGES,
	DCI_UNIT_TRANSACTIONS,
	DCI_UNIT_READS,
	DCI_UNIT_WRITES,
	DCI_UNIT_CONNECTIONS,
	DCI_UNIT_RETRIES,
	DCI_UNIT_PROCESSORS,
	DCI_UNIT_DISKS,
	DCI_UNIT_INTERRUPTS,
	DCI_UNIT_CENTISECONDS = 0x10000,
	DCI_UNIT_MEGABITS_PER_SECOND,
	DCI_UNIT_OCTETS, /* link-layer octets, as IF-MIB counts them */
	DCI_UNIT_ERRORS,
	/* A fraction carried as an integer number of hundredths (a load
	 * average of 0.52 is 52), since SNMP has no fractions: served as that
	 * integer, shown by dcistat and dciStatText as 0.52. Gauges of
	 * ST_INTEGER8..32 or unsigned ST_INTEGER64, decimal presentation. */
	DCI_UNIT_HUNDREDTHS,
	/* UMA derived data units: for a DCI_ST_DERIVED datum the unit says how
	 * it is derived from the arguments named in its id
	 * (DCI_DERIVED_DATUM_ID). A ratio is served in hundredths. */
	DCI_UNIT_DERIVED_SUM2 = 0x20001, /* arg1 + arg2 */
	DCI_UNIT_DERIVED_SUM3,           /* arg1 + arg2 + arg3 */
	DCI_UNIT_DERIVED_DIFFERENCE,     /* arg1 - arg2 */
	DCI_UNIT_DERIVED_AVERAGE,        /* arg1 / arg2 */
	DCI_UNIT_DERIVED_PERCENT,        /* 100 * arg1 / (arg1 + arg2) */
	DCI_UNIT_DERIVED_PRODUCT,        /* arg1 * arg2 */
	DCI_UNIT_DERIVED_VARIANCE,       /* count, sum, sum of squares:
	                                    arg3/arg1 - (arg2/arg1)^2 */
};

/*
 * Derived metrics (UMA_DERIVED). A datum of type DCI_ST_DERIVED names its
 * arguments in its id, DCI_DERIVED_DATUM_ID(arg1, arg2, arg3, number): each
 * argument is the low 8 bits of the id of another datum of the class, which
 * must be an integer (ST_INTEGER8..64) and the only datum of the class with
 * those low 8 bits; an argument a derivation does not use is 0; `number`
 * (1..255) is the derived datum's own. Its unit is the derivation
 * (DCI_UNIT_DERIVED_*). Leave format, presentation, size and semantics 0:
 * the host sets them. At every commit the host computes the value of each
 * instance from that instance's argument values:
 *   - sums, difference, product: unsigned 64-bit (dciStatCounter64) when
 *     every argument is unsigned, else Integer32; a sum of counters is a
 *     counter and wraps modulo 2^64, anything else is a gauge;
 *   - average, percent (100 * arg1 / (arg1 + arg2)), variance (arg1 a
 *     count, arg2 a sum, arg3 a sum of squares: arg3/arg1 - (arg2/arg1)^2):
 *     hundredths, rounded half away from zero (dciStatHundredths);
 *     averages and percents exactly, the variance in long double.
 * An instance whose argument has no value, a division by zero, an overflow,
 * a negative unsigned difference or a result outside the column's range has
 * no value: its rows are absent. The configuration file can declare
 * derived metrics for any class too (`derived`, dcistatd(8)).
 */
#define DCI_DERIVED_DATUM_ID(arg1, arg2, arg3, number)                         \
	((uint32_t)(arg1) << 24 | (uint32_t)(arg2) << 16 |                     \
	    (uint32_t)(arg3) << 8 | (uint32_t)(number))

/* UMA instance level types (itype). */
enum dci_instance_type {
	DCI_ITYPE_SINGLEINST = 1,
	DCI_ITYPE_PROCESSOR,
	DCI_ITYPE_DISKID,
	DCI_ITYPE_BUCKET_NO,
	DCI_ITYPE_DEVICE,
	DCI_ITYPE_CHANNEL,
	DCI_ITYPE_CONTROLLERID,
	DCI_ITYPE_IPADDR,
	DCI_ITYPE_INTERFACE =
	    0x10000,     /* dcistat: network interface, by ifIndex */
	DCI_ITYPE_EVENT, /* dcistat: event counter */
};

/* Log levels, as syslog's. */
enum dci_log_level {
	DCI_LOG_ERR = 3,
	DCI_LOG_WARNING = 4,
	DCI_LOG_NOTICE = 5,
	DCI_LOG_INFO = 6,
	DCI_LOG_DEBUG = 7,
};

struct dci_supplier_info {
	const char *module;      /* short name, e.g. "netif" */
	const char *title;       /* short human title */
	const char *description; /* one line */
	uint32_t type;           /* DCI4 SPT_ value, 0 = general */
	uint32_t version;        /* supplier version, e.g. 100 for 1.00 */
};

struct dci_datum_info {
	uint32_t id;       /* 1..2^32-2, unique in its class */
	const char *label; /* e.g. "rx_bytes"; no UMA-reserved characters */
	enum dci_type type;
	uint32_t format; /* per type: DCI_SBF_, DCI_SIF_, DCI_SAF_, DCI_STF_ */
	uint32_t presentation; /* per type: DCI_SBP_, DCI_SIP_, DCI_STP_ ... */
	uint32_t size;         /* bytes; 0 = the type's natural size. Strings:
	                          the longest value including its NUL */
	uint32_t volatility;   /* DCI_SV_ */
	enum dci_unit unit;
	enum dci_semantics semantics;
	const char *description; /* may be NULL */
};

struct dci_instance_level {
	enum dci_instance_type itype;
	uint32_t size; /* bytes, a multiple of 4 */
};

struct dci_class_info {
	const uint32_t *id; /* class id levels */
	size_t id_length;   /* 1..DCI_CLASS_ID_MAX_LEVELS */
	const char *label;
	const char *description; /* may be NULL */
	const struct dci_instance_level *levels;
	size_t level_count; /* >= 1 */
	const struct dci_datum_info *datums;
	size_t datum_count; /* >= 1 */
};

/* One integer value of a row for dci_batch_set_row: datum `datum_id`
 * takes `number` when is_signed is 0, `signed_number` otherwise, exactly as
 * dci_batch_set_unsigned and dci_batch_set_signed would store it. */
struct dci_row_value {
	uint32_t datum_id;
	uint32_t is_signed;
	uint64_t number;
	int64_t signed_number;
};

/* The two kinds of struct dci_row_value. */
static inline struct dci_row_value
dci_row_unsigned(uint32_t datum_id, uint64_t number)
{
	struct dci_row_value value = {datum_id, 0, number, 0};
	return value;
}

static inline struct dci_row_value
dci_row_signed(uint32_t datum_id, int64_t signed_number)
{
	struct dci_row_value value = {datum_id, 1, 0, signed_number};
	return value;
}

/* One byte value of a row for dci_batch_set_row_bytes: datum `datum_id`
 * takes the `length` bytes at `bytes`, exactly as dci_batch_set_bytes would
 * store them. A struct of its own, not a third kind of struct dci_row_value:
 * that structure's layout is fixed, and a host that has dci_batch_set_row
 * reads any is_signed other than 0 as signed, so it would store a new kind
 * as a number without a word. */
struct dci_row_bytes {
	uint32_t datum_id;
	const void *bytes;
	size_t length;
};

/* The two kinds of struct dci_row_bytes: raw bytes, and a string without
 * its NUL (as dci_batch_set_string). */
static inline struct dci_row_bytes
dci_row_raw(uint32_t datum_id, const void *bytes, size_t length)
{
	struct dci_row_bytes value = {datum_id, bytes, length};
	return value;
}

static inline struct dci_row_bytes
dci_row_string(uint32_t datum_id, const char *text)
{
	size_t length = 0;

	while (text[length] != '\0')
		length++;
	return dci_row_raw(datum_id, text, length);
}

struct dci_host;     /* one per loaded provider; handed to every callback */
struct dci_supplier; /* handle of a registered supplier */
struct dci_class;    /* handle of a registered class */

/* The host's functions. Call them through the inline wrappers below. Every
 * function that can fail logs the reason, naming the provider, class and
 * datum, and returns NULL or -1; nothing a provider passes can make the host
 * read outside the buffers it was given with their lengths. */
struct dci_host_operations {
	uint32_t abi_version;
	size_t size; /* sizeof this structure: later ABIs only append */
	struct dci_supplier *(*supplier_register)(
	    struct dci_host *host, const struct dci_supplier_info *info);
	struct dci_class *(*class_register)(struct dci_host *host,
	    struct dci_supplier *supplier, const struct dci_class_info *info);
	struct dci_batch *(*batch_begin)(
	    struct dci_host *host, struct dci_class *class_handle);
	long (*batch_instance)(struct dci_batch *batch, const uint32_t *id,
	    size_t id_words, const char *label);
	int (*batch_set_unsigned)(struct dci_batch *batch, long row,
	    uint32_t datum_id, uint64_t value);
	int (*batch_set_signed)(struct dci_batch *batch, long row,
	    uint32_t datum_id, int64_t value);
	int (*batch_set_bytes)(struct dci_batch *batch, long row,
	    uint32_t datum_id, const void *bytes, size_t length);
	int (*batch_commit)(struct dci_batch *batch);
	void (*batch_abort)(struct dci_batch *batch);
	const char *(*option_string)(struct dci_host *host, const char *key);
	size_t (*option_count)(struct dci_host *host, const char *key);
	const char *(*option_item)(
	    struct dci_host *host, const char *key, size_t index);
	void (*option_error)(
	    struct dci_host *host, const char *key, const char *message);
	void (*log)(struct dci_host *host, enum dci_log_level level,
	    const char *format, va_list arguments);
	/* Appended after the first release of ABI 1; check `size`. */
	int (*batch_instance_parent)(struct dci_batch *batch, long row,
	    const uint32_t *parent_id, size_t parent_words);
	int (*option_boolean)(
	    struct dci_host *host, const char *key, int default_value);
	int (*batch_set_invalid)(
	    struct dci_batch *batch, long row, uint32_t datum_id);
	int (*option_present)(struct dci_host *host, const char *key);
	int (*batch_set_discontinuity)(struct dci_batch *batch, long row);
	int (*refresh_limit)(struct dci_host *host, unsigned milliseconds);
	int (*supplier_withdraw)(
	    struct dci_host *host, struct dci_supplier *supplier);
	int (*supplier_state)(struct dci_host *host,
	    struct dci_supplier *supplier, const char *failure);
	int (*batch_set_row)(struct dci_batch *batch, long row,
	    const struct dci_row_value *values, size_t count);
	int (*batch_set_row_bytes)(struct dci_batch *batch, long row,
	    const struct dci_row_bytes *values, size_t count);
	unsigned (*refresh_period)(struct dci_host *host);
	int (*serve_start)(struct dci_host *host,
	    int (*start)(struct dci_host *host, void *context), void *context);
};

/* Handed to every callback; the host's own state follows this member. */
struct dci_host {
	const struct dci_host_operations *operations;
};

/* A snapshot of one class being filled; it becomes visible on commit. The
 * host's own state follows this member. */
struct dci_batch {
	const struct dci_host_operations *operations;
};

struct dci_provider {
	uint32_t abi_version; /* DCI_PROVIDER_ABI_VERSION */
	const char *name;     /* short name, used in messages */
	const char *description;
	/* Option keys this provider accepts (NULL-terminated); any other key in
	 * its YAML `options` is a configuration error reported by the host. */
	const char *const *option_keys;
	int (*init)(struct dci_host *host, void **context);
	int (*refresh)(struct dci_host *host, void *context);
	void (*fini)(struct dci_host *host, void *context);
};

/* Define the entry symbol: `DCI_PROVIDER_DEFINE = { ... };` */
#define DCI_PROVIDER_DEFINE                                                    \
	extern const struct dci_provider dci_provider_entry;                   \
	__attribute__((visibility("default")))                                 \
	const struct dci_provider dci_provider_entry

/* --- Registration (from init; from refresh too, see "Suppliers that come
 * and go" below) --- */

static inline struct dci_supplier *
dci_supplier_register(
    struct dci_host *host, const struct dci_supplier_info *info)
{
	return host->operations->supplier_register(host, info);
}

static inline struct dci_class *
dci_class_register(struct dci_host *host, struct dci_supplier *supplier,
    const struct dci_class_info *info)
{
	return host->operations->class_register(host, supplier, info);
}

/* --- Snapshots (from refresh) ---
 * A batch holds the complete next state of one class: every instance that
 * exists now, in any order, and its values. Instances not added are gone
 * after commit; a datum not set for an instance has no value (its rows are
 * absent, not zero). Commit swaps the batch in whole; abort discards it. */

static inline struct dci_batch *
dci_batch_begin(struct dci_host *host, struct dci_class *class_handle)
{
	return host->operations->batch_begin(host, class_handle);
}

/* Adds an instance; returns its row number for the setters, or -1 (wrong
 * id length for the class, or an empty label). The label may hold any
 * bytes, as the names of real objects do ("eth0.100", UTF-8, control
 * characters): it is served escaped as printable ASCII of at most
 * DCI_LABEL_MAX characters (a backslash doubled, any byte outside
 * 0x20..0x7e as a backslash, 'x' and two hex digits, a longer label cut
 * with a hash to stay distinct). A refused instance or value is left out
 * and logged in the refresh it first appears; the batch stays usable and
 * commits the rest. Two instances with one id refuse the commit. */
static inline long
dci_batch_instance(struct dci_batch *batch, const uint32_t *id, size_t id_words,
    const char *label)
{
	return batch->operations->batch_instance(batch, id, id_words, label);
}

/* Names the parent of instance `row` (evcnt(9)'s ev_parent): another
 * instance of the same class, identified by its id, that this instance's
 * counts are a part of, e.g. an interrupt line's total for its per-CPU
 * counts. The parent must be added to the same batch; a parent that is
 * missing at commit, the instance itself, or a cycle drops the link (logged)
 * and keeps the instance. Served as dciInstanceParent. Returns 0 or -1. */
static inline int
dci_batch_instance_parent(struct dci_batch *batch, long row,
    const uint32_t *parent_id, size_t parent_words)
{
	if (batch->operations->size <=
	    offsetof(struct dci_host_operations, batch_instance_parent))
		return -1;
	return batch->operations->batch_instance_parent(
	    batch, row, parent_id, parent_words);
}

/* Stores an integer, boolean, time or IP address datum, encoded as the datum's
 * type, size and format say (byte order included). Refused when the value
 * does not fit the datum's size or signedness. */
static inline int
dci_batch_set_unsigned(
    struct dci_batch *batch, long row, uint32_t datum_id, uint64_t value)
{
	return batch->operations->batch_set_unsigned(
	    batch, row, datum_id, value);
}

static inline int
dci_batch_set_signed(
    struct dci_batch *batch, long row, uint32_t datum_id, int64_t value)
{
	return batch->operations->batch_set_signed(batch, row, datum_id, value);
}

/* Stores `count` integer, boolean, time or IP address values of instance
 * `row` in one call: each as dci_batch_set_unsigned (is_signed 0) or
 * dci_batch_set_signed would, with the same checks and refusals (an
 * unknown or derived datum, a value that does not fit, a row that does not
 * exist: that value is left out and logged, the others are stored). The
 * host checks the batch and the row once per call, not once per value, and
 * finds a datum of a small id in one load, in any order, so a provider
 * that sets many values per instance
 * (counters, above all) spends less per value than with one call each. A
 * datum given twice takes the last value. Returns 0 when every value was
 * stored, -1 when any was refused. A host older than this call gets one
 * call per value, with the same result. */
static inline int
dci_batch_set_row(struct dci_batch *batch, long row,
    const struct dci_row_value *values, size_t count)
{
	int result = 0;

	if (batch->operations->size >
	    offsetof(struct dci_host_operations, batch_set_row))
		return batch->operations->batch_set_row(
		    batch, row, values, count);
	if (values == NULL)
		return count > 0 ? -1 : 0; /* as the host refuses it */
	for (size_t i = 0; i < count; i++) {
		const struct dci_row_value *value = &values[i];

		if ((value->is_signed
		            ? dci_batch_set_signed(batch, row, value->datum_id,
		                  value->signed_number)
		            : dci_batch_set_unsigned(batch, row,
		                  value->datum_id, value->number)) != 0)
			result = -1;
	}
	return result;
}

/* Stores raw bytes: a string (without its NUL, at most size - 1 bytes), an
 * address (exactly its size), or an integer already in the datum's format. */
static inline int
dci_batch_set_bytes(struct dci_batch *batch, long row, uint32_t datum_id,
    const void *bytes, size_t length)
{
	return batch->operations->batch_set_bytes(
	    batch, row, datum_id, bytes, length);
}

static inline int
dci_batch_set_string(
    struct dci_batch *batch, long row, uint32_t datum_id, const char *text)
{
	struct dci_row_bytes value = dci_row_string(datum_id, text);

	return dci_batch_set_bytes(
	    batch, row, datum_id, value.bytes, value.length);
}

/* Stores `count` byte values of instance `row` in one call (strings,
 * addresses, integers already in their datum's format): each as
 * dci_batch_set_bytes would, with the same checks and refusals (an unknown
 * or derived datum, a length the datum does not take, a string with a NUL,
 * a row that does not exist: that value is left out and logged, the others
 * are stored), the batch and the row checked once per call. A datum given
 * twice takes the last value. Returns 0 when every value was stored, -1
 * when any was refused. A host older than this call gets one
 * dci_batch_set_bytes per value, with the same result. */
static inline int
dci_batch_set_row_bytes(struct dci_batch *batch, long row,
    const struct dci_row_bytes *values, size_t count)
{
	int result = 0;

	if (batch->operations->size >
	    offsetof(struct dci_host_operations, batch_set_row_bytes))
		return batch->operations->batch_set_row_bytes(
		    batch, row, values, count);
	if (values == NULL)
		return count > 0 ? -1 : 0; /* as the host refuses it */
	for (size_t i = 0; i < count; i++)
		if (dci_batch_set_bytes(batch, row, values[i].datum_id,
		        values[i].bytes, values[i].length) != 0)
			result = -1;
	return result;
}

/* Marks datum `datum_id` of instance `row` invalid for this snapshot (UMA's
 * DCI_POSSIBLEINVALIDDATA: bytes written of a read-only device, the size
 * of an unmounted partition): its rows are absent, as if never set, even
 * if a value was set before. Returns 0, or -1 for an unknown row or datum.
 * A datum a provider does not set is absent too; this call states it, and
 * undoes a value already set in this batch. */
static inline int
dci_batch_set_invalid(struct dci_batch *batch, long row, uint32_t datum_id)
{
	if (batch->operations->size <=
	    offsetof(struct dci_host_operations, batch_set_invalid))
		return -1;
	return batch->operations->batch_set_invalid(batch, row, datum_id);
}

/* Declares that the counters of instance `row` are discontinuous since the
 * last refresh although its id is the same: a disk replaced under the same
 * major:minor, a CPU taken offline and back, a count the provider knows
 * was started over. At commit the instance's discontinuity time becomes
 * now (as when a counter goes back, see enum dci_semantics) and the host's
 * widening of its 8- and 16-bit counters starts again from the values set
 * in this batch. Returns 0, or -1 for an unknown row or a host older than
 * this call (which sets the time only when a counter goes back). */
static inline int
dci_batch_set_discontinuity(struct dci_batch *batch, long row)
{
	if (batch->operations->size <=
	    offsetof(struct dci_host_operations, batch_set_discontinuity))
		return -1;
	return batch->operations->batch_set_discontinuity(batch, row);
}

/* Validates, sorts and swaps the batch in; the batch is gone afterwards
 * whatever the result. Returns 0 or -1. */
static inline int
dci_batch_commit(struct dci_batch *batch)
{
	return batch->operations->batch_commit(batch);
}

static inline void
dci_batch_abort(struct dci_batch *batch)
{
	batch->operations->batch_abort(batch);
}

/* --- Suppliers that come and go (from init or refresh) --- */

/* Withdraws a supplier this provider registered, with every class
 * registered under it: their rows go at once, batches of those classes
 * committed earlier in this refresh are discarded, and the handles are
 * invalid when the call returns. The supplier's index stays reserved for
 * the next supplier of the same module, which gets a new reset stamp
 * (DCI4: a new initialisation), so a gatherer sees a restart, not a
 * continuation. Registration from refresh (dci_supplier_register,
 * dci_class_register) is accepted by the hosts that have this call, so a
 * provider serving other processes registers a supplier when one appears
 * and withdraws it when it goes. From refresh, the host performs both on
 * its main thread while refresh waits: they cost a thread round trip, not
 * a per-refresh price. Returns 0, or -1 for a handle this provider does
 * not own or a host older than this call. */
static inline int
dci_supplier_withdraw(struct dci_host *host, struct dci_supplier *supplier)
{
	if (host->operations->size <=
	    offsetof(struct dci_host_operations, supplier_withdraw))
		return -1;
	return host->operations->supplier_withdraw(host, supplier);
}

/* Says whether one supplier of this provider works: `failure` NULL or ""
 * means it works, any other text that it failed and why. A provider with
 * one supplier per source (a target, a process) uses it so that one dead
 * source shows as failed while the others run: the host marks all of a
 * provider's suppliers running after a refresh that succeeded, and this
 * is how a refresh says "except that one". The supplier's row then shows
 * failed with the text as its failure (dciSupplierStatus,
 * dciSupplierFailure), and the supplier failed / recovered notifications
 * fire on each change, as for a whole provider. The state holds until
 * the next call for that supplier; a failed refresh of the whole provider
 * shows its own failure meanwhile. The text is copied, cut to what a
 * supplier's failure holds, and escaped where it is logged. Callable from
 * init and refresh; from refresh the host performs it on its main thread
 * while refresh waits, so a provider calls it when the state changes, not
 * on every refresh. Returns
 * 0, or -1 for a handle this provider does not own or a host older than
 * this call. */
static inline int
dci_supplier_state(
    struct dci_host *host, struct dci_supplier *supplier, const char *failure)
{
	if (host->operations->size <=
	    offsetof(struct dci_host_operations, supplier_state))
		return -1;
	return host->operations->supplier_state(host, supplier, failure);
}

/* --- Refresh period (from init) --- */

/* Declares the longest interval between two refreshes this provider
 * tolerates, in milliseconds (> 0): a provider that extends 32-bit kernel
 * counters to 64 bits across refreshes misreads a count that wraps more
 * than once between two of them, so it states the interval in which its
 * fastest counter cannot. The host never lets the refresh period exceed
 * it: a longer configured `refresh` is lowered to it (and logged). Called
 * more than once, the smallest limit holds. Returns 0, or -1 for 0, for a
 * call outside init, or on a host older than this call. */
static inline int
dci_refresh_limit(struct dci_host *host, unsigned milliseconds)
{
	if (host->operations->size <=
	    offsetof(struct dci_host_operations, refresh_limit))
		return -1;
	return host->operations->refresh_limit(host, milliseconds);
}

/* The provider's refresh period in milliseconds, as the host keeps it
 * (the configured `refresh`, lowered by dci_refresh_limit): for a
 * provider that bounds the work of one refresh by it. Constant from the
 * end of init until fini. Returns 0 on a host older than this call. */
static inline unsigned
dci_refresh_period(struct dci_host *host)
{
	if (host->operations->size <=
	    offsetof(struct dci_host_operations, refresh_period))
		return 0;
	return host->operations->refresh_period(host);
}

/* --- Start (from init) --- */

/* Asks the host to call `start` with `context` (the provider's context,
 * the one init hands back) once the process is the one that serves: see
 * "Threads and call order" above. A provider that listens on a socket or
 * runs a thread of its own does that in `start`, never in init, so that
 * it works when the daemon forks after init and so that a check beside a
 * running daemon neither needs nor takes its addresses. Called again, the
 * last callback holds. Returns 0, or -1 for a call outside init. A host
 * older than this call has no start step: `start` runs at once, inside
 * init, and its result is returned. */
static inline int
dci_serve_start(struct dci_host *host,
    int (*start)(struct dci_host *host, void *context), void *context)
{
	if (host->operations->size <=
	    offsetof(struct dci_host_operations, serve_start))
		return start(host, context);
	return host->operations->serve_start(host, start, context);
}

/* --- Options (any callback) ---
 * The provider's YAML `options` mapping. A value is a scalar or a sequence of
 * scalars; option_string returns a scalar (NULL if absent or a sequence),
 * option_count/option_item read either form as a list. */

static inline const char *
dci_option_string(struct dci_host *host, const char *key)
{
	return host->operations->option_string(host, key);
}

static inline size_t
dci_option_count(struct dci_host *host, const char *key)
{
	return host->operations->option_count(host, key);
}

static inline const char *
dci_option_item(struct dci_host *host, const char *key, size_t index)
{
	return host->operations->option_item(host, key, index);
}

/* 1 when the key is in the provider's `options`, even with an empty list
 * (`exclude: []`), which dci_option_count cannot tell from an absent key; 0
 * when it is not. A host older than this call answers whether the key has
 * an item. */
static inline int
dci_option_present(struct dci_host *host, const char *key)
{
	if (host->operations->size <=
	    offsetof(struct dci_host_operations, option_present))
		return host->operations->option_count(host, key) > 0;
	return host->operations->option_present(host, key);
}

/* A yes/no option: YAML's true/false, yes/no or on/off (any case). Returns
 * 1 or 0, `default_value` when the key is absent, or -1 after reporting a
 * value that is none of those with its file, line and column. */
static inline int
dci_option_boolean(struct dci_host *host, const char *key, int default_value)
{
	if (host->operations->size <=
	    offsetof(struct dci_host_operations, option_boolean))
		return -1;
	return host->operations->option_boolean(host, key, default_value);
}

/* Reports a bad option value with the file, line and column of the option. */
static inline void
dci_option_error(struct dci_host *host, const char *key, const char *message)
{
	host->operations->option_error(host, key, message);
}

/* --- Logging (any callback); the host prefixes the provider's name. --- */

__attribute__((format(printf, 3, 4))) static inline void
dci_log(
    struct dci_host *host, enum dci_log_level level, const char *format, ...)
{
	va_list arguments;
	va_start(arguments, format);
	host->operations->log(host, level, format, arguments);
	va_end(arguments);
}

#ifdef __cplusplus
}
#endif

#endif
