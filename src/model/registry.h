/*
 * The registry: every supplier, class and datum the loaded providers have
 * registered, with the current snapshot of each class's instances. It
 * validates registrations (UMA rules: class id levels, datum ids, instance
 * level sizes, reserved label characters, class id collisions, no class
 * below an instantiated class) and keeps classes sorted by their OID index
 * so that the agent can walk them in order.
 *
 * Single-threaded: everything runs on the daemon's main thread.
 */
#ifndef DCISTAT_REGISTRY_H
#define DCISTAT_REGISTRY_H

#include <dcistat/provider.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/value.h"

enum dci_supplier_status {
	DCI_SUPPLIER_RUNNING = 1,
	DCI_SUPPLIER_FAILED = 2,
};

struct dci_supplier {
	uint32_t index; /* 1-based, stable while the daemon runs */
	char *module;
	char *title;
	char *description;
	uint32_t type;
	uint32_t version;
	unsigned char reset[8]; /* DCI4: unique for each initialisation */
	enum dci_supplier_status status;
	int64_t
	    discontinuity_milliseconds;    /* monotonic, when (re)initialised */
	int64_t last_refresh_milliseconds; /* 0: never */
	char *provider_name;
	/* Why the supplier is failed (status DCI_SUPPLIER_FAILED), else "". */
	char failure[512];
	/* The failure its provider reported for it (dci_supplier_state),
	 * else "": a refresh of the provider that succeeded leaves the
	 * supplier failed with this reason instead of running. */
	char provider_failure[512];
	/* The plug-in that registered it; NULL once it is withdrawn. */
	void *owner;
	/* Its provider was unloaded or is being restarted: the supplier has
	 * no row. It keeps its index for a supplier of the same module that
	 * registers later, as DCI-STATS-MIB's dciSupplierIndex promises. */
	bool withdrawn;
};

struct dci_datum {
	struct dci_datum_info info; /* label and description owned */
	enum dci_value_kind kind;
	uint32_t offset; /* of its slot in an instance's value record */
	uint32_t index;  /* position in the class's datum array */
	/* A derived datum (DCI_ST_DERIVED): the positions of its arguments
	 * in the class's datum array, and whether it is a sum of counters,
	 * which wraps modulo 2^64 as a counter does. */
	uint32_t arguments[3];
	bool wraps;
	/* What the provider sets, when it differs from what is served: an
	 * unsigned 8- or 16-bit counter is served as a 32-bit one (info says
	 * ST_INTEGER32, 4 bytes) that the host widens across snapshots, so
	 * that it wraps at 2^32 as a Counter32 must (RFC 2578), not at 2^8
	 * or 2^16. provided_size is 0 for every other datum. */
	enum dci_type provided_type;
	uint32_t provided_size;
};

struct dci_snapshot;

/* An entry of a class's datum lookup table (struct dci_class). */
struct dci_datum_lookup {
	uint32_t index;  /* in the class's datums; UINT32_MAX: no such datum */
	uint32_t offset; /* of its slot, as struct dci_datum's */
	/* How a number the provider sets is stored (width 0: the datum
	 * takes none): the provider's description's layout, which for a
	 * counter the host widens is the provided width. */
	struct dci_value_number_layout number;
	/* How bytes the provider sets are stored (size 0: it takes none),
	 * by the provider's description as `number`. */
	struct dci_value_bytes_layout bytes;
};

struct dci_class {
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
	size_t id_length;
	char *label;
	char *description;
	struct dci_supplier *supplier;
	struct dci_instance_level *levels;
	size_t level_count;
	size_t instance_words;    /* sum of level sizes / 4 */
	struct dci_datum *datums; /* sorted by id */
	size_t datum_count;
	/* The datums by id, for ids below datum_lookup_size, so that the
	 * setters of a refresh, which name a datum per value, find it and
	 * how to store an integer in it in one load; NULL when out of
	 * memory. Larger ids (derived ones) are searched. */
	struct dci_datum_lookup *datum_lookup;
	size_t datum_lookup_size;
	size_t record_size;  /* bytes of one instance's values */
	size_t present_size; /* bytes of one instance's presence bitmap */
	uint32_t kind_mask;  /* 1 << kind for every kind among its datums */
	bool has_counters;
	/* Datums with a provided_size: counters the host widens. */
	size_t widened_count;
	size_t derived_count; /* datums of type DCI_ST_DERIVED */
	struct dci_snapshot *snapshot; /* NULL until the first commit */
	/* The last snapshot while it is withdrawn as stale (snapshot is then
	 * NULL): the next commit carries its creation times over and marks
	 * every instance discontinuous. */
	struct dci_snapshot *stale_snapshot;
	/* Hashes of the calls refused in the batch last committed, sorted:
	 * the host logs a refusal in the refresh it first appears (host.c).
	 * Touched only by the thread that refreshes the class. */
	uint64_t *refusal_hashes;
	size_t refusal_hash_count;
	void *owner; /* the plug-in that registered it */
};

struct dci_registry {
	struct dci_supplier **suppliers; /* by index - 1 */
	size_t supplier_count;
	struct dci_class **classes; /* sorted by (id_length, id) */
	/* The same classes sorted by their levels alone, as the per-class
	 * tables under dciClassData order them (no length prefix; no class id
	 * is a prefix of another, so this order is total). */
	struct dci_class **classes_by_levels;
	size_t class_count;
	/* Supplier names reserved for a configured provider (its `holder`,
	 * the module as configured): see dci_registry_reserve_supplier. */
	struct dci_supplier_reservation *reservations;
	size_t reservation_count;
};

struct dci_supplier_reservation {
	char *name;
	char *holder;
};

struct dci_registry *dci_registry_new(void);
void dci_registry_free(struct dci_registry *registry);

/* Returns the new supplier, or NULL with the broken rule in `why`. A
 * withdrawn supplier of the same module is taken over with its index, a new
 * reset stamp and status running. */
struct dci_supplier *dci_registry_add_supplier(struct dci_registry *registry,
    const struct dci_supplier_info *info, const char *provider_name, char *why,
    size_t why_size);

/*
 * Supplier names a configured provider owns, whether it runs, failed or
 * is being restarted, so that no other provider (nor an application
 * supplier, which the suppliers provider registers) takes one while it is
 * down. A name is reserved for its holder, the provider's module as
 * configured: the configuration's own names (dci_plugins_reserve_names,
 * before any provider starts; `replace`: they win over an earlier
 * registration) and every supplier a provider registered (kept while that
 * module stays configured). Returns 0, or -1 out of memory.
 */
int dci_registry_reserve_supplier(struct dci_registry *registry,
    const char *name, const char *holder, bool replace);
/* The holder of `name`, or NULL when no provider reserved it. */
const char *dci_registry_supplier_holder(
    const struct dci_registry *registry, const char *name);
/* Drops the reservations whose holder is not one of `holders` (the
 * modules of a new configuration). */
void dci_registry_reservations_retain(struct dci_registry *registry,
    const char *const *holders, size_t holder_count);

/* The row of a provider that failed to load or to initialise: a supplier
 * named after the provider as configured (`module` need not be a valid
 * label: it may be a path), status failed, `reason` as its failure, owned
 * by `owner`. Reuses a withdrawn supplier of that name. NULL: out of
 * memory. */
struct dci_supplier *dci_registry_add_failed_supplier(
    struct dci_registry *registry, const char *module, const char *reason,
    void *owner);

/* Removes every class `owner` registered (their rows go with them) and
 * withdraws its suppliers. */
void dci_registry_withdraw_owner(struct dci_registry *registry, void *owner);

/* Removes every class registered under `supplier` (their rows go with
 * them; the handles are freed) and withdraws the supplier: its row goes,
 * and its index waits for the next supplier of its module, which
 * dci_registry_add_supplier gives a new reset stamp. For a provider whose
 * suppliers come and go; the caller checks that it owns `supplier`. */
void dci_registry_withdraw_supplier(
    struct dci_registry *registry, struct dci_supplier *supplier);

/* A number that changes whenever what a reader of any registry's classes
 * could see changes: a class added or removed, a snapshot committed or
 * withdrawn. Process-wide (one counter for every registry, so a change in
 * one only makes the others look changed too): what a cache of answers
 * (server/dci_cache.h) is keyed by. */
uint64_t dci_registry_generation(void);
void dci_registry_changed(void);

/* Puts the class's snapshot aside as stale: its rows are absent until the
 * next commit. */
void dci_class_withdraw_snapshot(struct dci_class *class);

/* Validates and adds a class; returns it, or NULL with the broken rule in
 * `why` (the message names the class and, where one is at fault, the
 * datum).
 *
 * A derived datum (DCI_ST_DERIVED, UMA_DERIVED) gives its derivation as
 * its unit and its arguments in its id (dci_derived_argument_byte); each
 * argument byte must be the low 8 bits of exactly one other, integer,
 * datum of the class, and the bytes a derivation does not use must be 0.
 * Its format, presentation, size and semantics must be 0: the registry
 * sets them (unsigned 64-bit when every argument of a sum, difference or
 * product is unsigned, else signed; counter semantics for a sum of
 * counters, gauge otherwise). */
struct dci_class *dci_registry_add_class(struct dci_registry *registry,
    struct dci_supplier *supplier, const struct dci_class_info *info,
    void *owner, char *why, size_t why_size);

/*
 * An instance label as served: printable ASCII of 1..DCI_LABEL_MAX
 * characters. Instance labels name real objects (an interface named by its
 * administrator: "eth0.100", UTF-8, control characters), so any non-empty
 * string is accepted and escaped by one rule (written here as served):
 *   - bytes 0x20..0x7e stand for themselves, UMA's reserved characters
 *     included, except the backslash, which becomes "\\";
 *   - every other byte becomes "\xHH" (two lowercase hex digits), so the
 *     UTF-8 "d\xc3\xa9v0" stands for "dév0", byte by byte;
 *   - when the result would be longer than DCI_LABEL_MAX, it keeps as many
 *     whole characters and escapes as leave room for "\~HHHHHHHH": the
 *     marker and 8 hex digits of a 32-bit FNV-1a hash of the whole label.
 * The rule is reversible up to the cut, and "\~" arises from nothing else,
 * so distinct labels stay distinct (cut ones unless their hashes collide).
 * Writes the label into `escaped` (DCI_INSTANCE_LABEL_SIZE bytes) and
 * returns true, or false with the reason in `why` for NULL or "".
 */
#define DCI_INSTANCE_LABEL_SIZE (DCI_LABEL_MAX + 1)
bool dci_registry_instance_label_escape(const char *label,
    char escaped[DCI_INSTANCE_LABEL_SIZE], char *why, size_t why_size);

/* Checks a class, datum or supplier label against UMA's reserved
 * characters. */
bool dci_registry_label_valid(const char *label, char *why, size_t why_size);

/* The datums of ids above the class's lookup table, by binary search;
 * dci_class_find_datum's slow path. */
const struct dci_datum *dci_class_search_datum(
    const struct dci_class *class, uint32_t datum_id);

/* The datum of `class` with id `datum_id`, or NULL: one load for an id
 * of the lookup table (struct dci_class's datum_lookup), else a search. */
static inline const struct dci_datum *
dci_class_find_datum(const struct dci_class *class, uint32_t datum_id)
{
	if (datum_id < class->datum_lookup_size)
		return class->datum_lookup[datum_id].index == UINT32_MAX
		           ? NULL
		           : &class->datums[class->datum_lookup[datum_id].index];
	return dci_class_search_datum(class, datum_id);
}

/* "1.1" into text. */
void dci_class_id_format(
    const struct dci_class *class, char *text, size_t text_size);

/* An instance id as its words in decimal, separated by dots: "1", "8.0".
 * Truncated to text_size, always terminated. */
void dci_instance_id_format(const struct dci_class *class, const uint32_t *id,
    char *text, size_t text_size);

/* "INTERFACE" etc. (UMA's itype without its prefix), "UNKNOWN" otherwise. */
const char *dci_instance_type_name(enum dci_instance_type itype);

/* The class whose label is `name`, else the class whose id written as
 * dci_class_id_format writes it is `name` (labels first: a label cannot
 * contain a dot, so the two never compete); NULL when none. O(classes). */
struct dci_class *dci_registry_find_class(
    const struct dci_registry *registry, const char *name);

/* Likewise for a datum of `class`: its label, else its id in decimal. */
const struct dci_datum *dci_class_find_datum_by_name(
    const struct dci_class *class, const char *name);

/* Orders class ids as their length-prefixed OID encodings sort. */
int dci_class_id_compare(const uint32_t *left, size_t left_length,
    const uint32_t *right, size_t right_length);

#endif
