/*
 * Shared fixtures for the core and agent unit tests: datum and class
 * builders that assert on refusal, the served number of a datum, a
 * standard registry with committed snapshots covering every value column,
 * an OID-order oracle that enumerates rows independently of
 * agent/table_index.c, the checks of the generators' name functions, and
 * the runner of a test program's suite.
 *
 * Without check (the fuzz targets define FIXTURES_WITHOUT_CHECK), a refusal
 * aborts with its message instead of failing a test; the runner and the
 * name checks, which only check can run, are left out.
 * Header-only; every function is static inline so that a test file which
 * does not use one gets no unused-function warning.
 */
#ifndef DCISTAT_TESTS_UNIT_FIXTURES_H
#define DCISTAT_TESTS_UNIT_FIXTURES_H

#ifdef FIXTURES_WITHOUT_CHECK
#include <stdio.h>
#include <stdlib.h>
#define ck_assert_msg(condition, ...)                                          \
	do {                                                                   \
		if (!(condition)) {                                            \
			fprintf(stderr, __VA_ARGS__);                          \
			abort();                                               \
		}                                                              \
	} while (0)
#define ck_abort_msg(...) ck_assert_msg(0, __VA_ARGS__)
#define ck_assert_int_eq(a, b) ck_assert_msg((a) == (b), "%s", #a " != " #b)
#define ck_assert_uint_le(a, b) ck_assert_msg((a) <= (b), "%s", #a " > " #b)
#define ck_assert_ptr_nonnull(p) ck_assert_msg((p) != NULL, "%s", #p " NULL")
#else
#include <check.h>
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/registry.h"
#include "model/snapshot.h"
#include "model/value.h"
#include "snmp/table_index.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* When the standard registry's snapshots are committed. */
#define FX_COMMIT_MILLISECONDS 5000

#ifndef FIXTURES_WITHOUT_CHECK
#include "check_runner.h"

/* Runs `tests` as one case of a suite named `name`: a test program's exit
 * status. */
static inline int
fx_run_tests(const char *name, const TTest *const *tests, size_t count)
{
	Suite *suite = suite_create(name);
	TCase *cases = tcase_create(name);

	for (size_t i = 0; i < count; i++)
		tcase_add_test(cases, tests[i]);
	suite_add_tcase(suite, cases);
	return unit_run_suite(suite);
}
#endif

#ifndef FIXTURES_WITHOUT_CHECK
/* A name function of the generators (mib/): it writes the name of `text`
 * into `out` as snprintf writes, returning the length the whole name
 * needs. */
typedef size_t fx_name_function(const char *text, char *out, size_t out_size);

/* The name `function` gives `text`; it stays until the next call. */
static inline const char *
fx_name(fx_name_function *function, const char *text)
{
	static char out[300];

	function(text, out, sizeof(out));
	return out;
}

/* A text and the name a name function gives it. */
struct fx_name_case {
	const char *text;
	const char *name;
};

/* `function` gives each text of `cases` its name. */
static inline void
fx_assert_names(
    fx_name_function *function, const struct fx_name_case *cases, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const char *name = fx_name(function, cases[i].text);

		ck_assert_msg(strcmp(name, cases[i].name) == 0,
		    "\"%s\" named \"%s\", not \"%s\"", cases[i].text, name,
		    cases[i].name);
	}
}

/* In `out_size` bytes (a buffer of exactly that size, so that the
 * sanitizers see a write past it), `function` gives `text` the name cut
 * to `truncated`, returning `needed`. */
static inline void
fx_assert_name_truncated(fx_name_function *function, const char *text,
    size_t out_size, size_t needed, const char *truncated)
{
	char *out = malloc(out_size);

	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(function(text, out, out_size), needed);
	ck_assert_str_eq(out, truncated);
	free(out);
}
#endif

/* A datum description with the usual defaults. */
static inline struct dci_datum_info
fx_datum(uint32_t id, const char *label, enum dci_type type, uint32_t format,
    uint32_t size, enum dci_semantics semantics)
{
	struct dci_datum_info datum = {
	    .id = id,
	    .label = label,
	    .type = type,
	    .format = format,
	    .presentation = 0,
	    .size = size,
	    .volatility = DCI_SV_VARIABLE,
	    .unit = DCI_UNIT_NONE,
	    .semantics = semantics,
	    .description = NULL,
	};

	if (type == DCI_ST_INTEGER8 || type == DCI_ST_INTEGER16 ||
	    type == DCI_ST_INTEGER32 || type == DCI_ST_INTEGER64)
		datum.presentation = DCI_SIP_DECIMAL;
	if (type == DCI_ST_TIME)
		datum.presentation = DCI_STP_RELATIVE;
	return datum;
}

static inline struct dci_supplier *
fx_supplier(struct dci_registry *registry, const char *module)
{
	struct dci_supplier_info info = {
	    .module = module,
	    .title = "test supplier",
	    .description = "a supplier for the unit tests",
	    .type = 0,
	    .version = 100,
	};
	char why[512] = "";
	struct dci_supplier *supplier = dci_registry_add_supplier(
	    registry, &info, "test", why, sizeof(why));

	ck_assert_msg(supplier != NULL, "supplier %s refused: %s", module, why);
	return supplier;
}

static inline struct dci_class_info
fx_class_info(const uint32_t *id, size_t id_length, const char *label,
    const struct dci_instance_level *levels, size_t level_count,
    const struct dci_datum_info *datums, size_t datum_count)
{
	struct dci_class_info info = {
	    .id = id,
	    .id_length = id_length,
	    .label = label,
	    .description = NULL,
	    .levels = levels,
	    .level_count = level_count,
	    .datums = datums,
	    .datum_count = datum_count,
	};
	return info;
}

static inline struct dci_class *
fx_class(struct dci_registry *registry, struct dci_supplier *supplier,
    const struct dci_class_info *info)
{
	char why[512] = "";
	struct dci_class *class = dci_registry_add_class(
	    registry, supplier, info, NULL, why, sizeof(why));

	ck_assert_msg(class != NULL, "class %s refused: %s", info->label, why);
	return class;
}

static inline struct dci_class *
fx_find_class(
    const struct dci_registry *registry, const uint32_t *id, size_t id_length)
{
	for (size_t i = 0; i < registry->class_count; i++) {
		const struct dci_class *class = registry->classes[i];
		if (dci_class_id_compare(
		        class->id, class->id_length, id, id_length) == 0)
			return registry->classes[i];
	}
	ck_abort_msg("class not in the registry");
	return NULL;
}

/* Builder wrappers that assert success. */
static inline long
fx_add(struct dci_snapshot_builder *builder, const uint32_t *id, size_t words,
    const char *label)
{
	char why[512] = "";
	long row = dci_snapshot_builder_add(
	    builder, id, words, label, why, sizeof(why));

	ck_assert_msg(row >= 0, "instance %s refused: %s", label, why);
	return row;
}

static inline void
fx_set_unsigned(struct dci_snapshot_builder *builder, long row,
    uint32_t datum_id, uint64_t value)
{
	char why[512] = "";

	ck_assert_msg(dci_snapshot_builder_set_unsigned(
	                  builder, row, datum_id, value, why, sizeof(why)) == 0,
	    "datum %u refused: %s", datum_id, why);
}

static inline void
fx_set_signed(struct dci_snapshot_builder *builder, long row, uint32_t datum_id,
    int64_t value)
{
	char why[512] = "";

	ck_assert_msg(dci_snapshot_builder_set_signed(
	                  builder, row, datum_id, value, why, sizeof(why)) == 0,
	    "datum %u refused: %s", datum_id, why);
}

static inline void
fx_set_bytes(struct dci_snapshot_builder *builder, long row, uint32_t datum_id,
    const void *bytes, size_t length)
{
	char why[512] = "";

	ck_assert_msg(dci_snapshot_builder_set_bytes(builder, row, datum_id,
	                  bytes, length, why, sizeof(why)) == 0,
	    "datum %u refused: %s", datum_id, why);
}

static inline void
fx_commit(struct dci_snapshot_builder *builder, struct dci_class *class,
    int64_t now_milliseconds)
{
	char why[512] = "";

	ck_assert_msg(dci_snapshot_commit(builder, class, now_milliseconds, why,
	                  sizeof(why)) == 0,
	    "commit of %s refused: %s", class->label, why);
}

/* The number datum `datum_id` of instance `id` holds in the class's
 * served snapshot, which has the instance and the value. */
static inline uint64_t
fx_served_number(const struct dci_class *class, uint32_t id, uint32_t datum_id)
{
	const struct dci_datum *datum = dci_class_find_datum(class, datum_id);
	long row = dci_snapshot_find(class, class->snapshot, &id);
	struct dci_value value;

	ck_assert_msg(
	    datum != NULL, "no datum %u in %s", datum_id, class->label);
	ck_assert_msg(row >= 0, "no instance %u in %s", id, class->label);
	ck_assert_msg(
	    dci_snapshot_present(class, class->snapshot, (size_t)row, datum),
	    "datum %u of instance %u absent", datum_id, id);
	dci_value_decode(&datum->info,
	    dci_snapshot_slot(class, class->snapshot, (size_t)row, datum),
	    &value);
	return value.number;
}

/*
 * The standard registry (sorted as the walk sees it):
 *
 *   {2}    "system"  supplier alpha, 1 level (1 word), one instance [0]
 *          1 uptime_delta  ST_INTEGER64 signed gauge   TEXT_ONLY   -42
 *          2 healthy       ST_BOOLEAN                  TRUTHVALUE  1
 *          3 address       ST_ADDRESS SAF_IP           IPADDRESS   192.168.0.1
 *          4 hwaddr        ST_ADDRESS SAF_ETHERNET     MACADDRESS
 *          5 reserved      ST_UNUSED                   never served
 *          6 elapsed       ST_TIME monotonic relative  TIMETICKS   250
 *   {1,1}  "netif"   supplier alpha, 1 level (1 word), instances 10, 20, 30
 *          1 name          ST_STRING (16)              STRING
 *          2 rx_bytes      ST_INTEGER64 unsigned ctr   COUNTER64
 *          5 queue         ST_INTEGER32 unsigned gauge GAUGE32 (unset for 20)
 *   {1,2}  "disk"    supplier beta, 2 levels (1 + 2 words), instances
 *          [1,7,8] sda and [2,0,1] sdb, whose parent is sda
 *          3 reads         ST_INTEGER32 unsigned ctr   COUNTER32
 *          4 temperature   ST_INTEGER32 signed gauge   INTEGER32
 *   {3,1}  "never"   supplier gamma, never committed (snapshot NULL)
 *          1 waiting       ST_INTEGER32 unsigned gauge GAUGE32
 */
#define FX_NETIF_RX_ETH0 UINT64_C(0x123456789a) /* > 2^32 */
#define FX_NETIF_RX_ETH1 UINT64_C(12345)
#define FX_NETIF_RX_LO UINT64_C(0x100000001)
#define FX_DISK_READS_SDB 4000000000u
#define FX_STAT_ROWS 17 /* present (instance, datum) pairs, ST_UNUSED out */

static const unsigned char fx_hwaddr[6] = {0x00, 0x1b, 0x21, 0x3a, 0x4f, 0x5e};

static inline struct dci_registry *
fx_standard_registry(void)
{
	static const uint32_t system_id[] = {2}, netif_id[] = {1, 1},
	                      disk_id[] = {1, 2}, never_id[] = {3, 1};
	static const struct dci_instance_level one_word[] = {
	    {DCI_ITYPE_SINGLEINST, 4},
	};
	static const struct dci_instance_level interface[] = {
	    {DCI_ITYPE_INTERFACE, 4},
	};
	static const struct dci_instance_level disk_levels[] = {
	    {DCI_ITYPE_DISKID, 4},
	    {DCI_ITYPE_DEVICE, 8},
	};
	struct dci_datum_info system_datums[] = {
	    fx_datum(
	        1, "uptime_delta", DCI_ST_INTEGER64, 0, 0, DCI_SEMANTICS_GAUGE),
	    fx_datum(2, "healthy", DCI_ST_BOOLEAN, DCI_SBF_NORMAL, 0,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(3, "address", DCI_ST_ADDRESS, DCI_SAF_IP, 0,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(4, "hwaddr", DCI_ST_ADDRESS, DCI_SAF_ETHERNET, 0,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(6, "elapsed", DCI_ST_TIME, DCI_STF_MONOTONIC, 0,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(
	        5, "reserved", DCI_ST_UNUSED, 0, 0, DCI_SEMANTICS_DISCRETE),
	};
	struct dci_datum_info netif_datums[] = {
	    fx_datum(5, "queue", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	    fx_datum(1, "name", DCI_ST_STRING, DCI_SSF_ZEROTERM, 16,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(2, "rx_bytes", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	};
	struct dci_datum_info disk_datums[] = {
	    fx_datum(3, "reads", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(
	        4, "temperature", DCI_ST_INTEGER32, 0, 0, DCI_SEMANTICS_GAUGE),
	};
	struct dci_datum_info never_datums[] = {
	    fx_datum(1, "waiting", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *alpha, *beta, *gamma;
	struct dci_class_info info;
	struct dci_class *system, *netif, *disk;
	struct dci_snapshot_builder *builder;
	long row;

	ck_assert_ptr_nonnull(registry);
	alpha = fx_supplier(registry, "alpha");
	beta = fx_supplier(registry, "beta");
	gamma = fx_supplier(registry, "gamma");

	/* Registered out of OID order on purpose. */
	info = fx_class_info(disk_id, 2, "disk", disk_levels, 2, disk_datums,
	    COUNT_OF(disk_datums));
	disk = fx_class(registry, beta, &info);
	info = fx_class_info(never_id, 2, "never", one_word, 1, never_datums,
	    COUNT_OF(never_datums));
	fx_class(registry, gamma, &info);
	info = fx_class_info(netif_id, 2, "netif", interface, 1, netif_datums,
	    COUNT_OF(netif_datums));
	netif = fx_class(registry, alpha, &info);
	info = fx_class_info(system_id, 1, "system", one_word, 1, system_datums,
	    COUNT_OF(system_datums));
	system = fx_class(registry, alpha, &info);

	builder = dci_snapshot_builder_new(system);
	row = fx_add(builder, (const uint32_t[]){0}, 1, "system");
	fx_set_signed(builder, row, 1, -42);
	fx_set_unsigned(builder, row, 2, 1);
	fx_set_unsigned(builder, row, 3, 0xC0A80001u);
	fx_set_bytes(builder, row, 4, fx_hwaddr, sizeof(fx_hwaddr));
	fx_set_unsigned(builder, row, 6, 250);
	fx_commit(builder, system, FX_COMMIT_MILLISECONDS);

	/* Added out of id order: commit sorts. */
	builder = dci_snapshot_builder_new(netif);
	row = fx_add(builder, (const uint32_t[]){30}, 1, "lo");
	fx_set_bytes(builder, row, 1, "lo", 2);
	fx_set_unsigned(builder, row, 2, FX_NETIF_RX_LO);
	fx_set_unsigned(builder, row, 5, 0);
	row = fx_add(builder, (const uint32_t[]){10}, 1, "eth0");
	fx_set_bytes(builder, row, 1, "eth0", 4);
	fx_set_unsigned(builder, row, 2, FX_NETIF_RX_ETH0);
	fx_set_unsigned(builder, row, 5, 7);
	row = fx_add(builder, (const uint32_t[]){20}, 1, "eth1");
	fx_set_bytes(builder, row, 1, "eth1", 4);
	fx_set_unsigned(builder, row, 2, FX_NETIF_RX_ETH1);
	/* datum 5 (queue) left unset for eth1 */
	fx_commit(builder, netif, FX_COMMIT_MILLISECONDS);

	builder = dci_snapshot_builder_new(disk);
	row = fx_add(builder, (const uint32_t[]){2, 0, 1}, 3, "sdb");
	fx_set_unsigned(builder, row, 3, FX_DISK_READS_SDB);
	fx_set_signed(builder, row, 4, 40);
	ck_assert_int_eq(dci_snapshot_builder_set_parent(builder, row,
	                     (const uint32_t[]){1, 7, 8}, 3, NULL, 0),
	    0);
	row = fx_add(builder, (const uint32_t[]){1, 7, 8}, 3, "sda");
	fx_set_unsigned(builder, row, 3, 100);
	fx_set_signed(builder, row, 4, -5);
	fx_commit(builder, disk, FX_COMMIT_MILLISECONDS);

	return registry;
}

/* --- OID order ---------------------------------------------------------- */

/* An index as the walk compares it: sub-identifiers may exceed 2^32-1. */
struct fx_index {
	uint64_t subids[SCHEMA_INDEX_MAX + 8];
	size_t length;
};

/* Element-wise, a proper prefix first (snmp_oid_compare's order). */
static inline int
fx_index_compare(const struct fx_index *left, const struct fx_index *right)
{
	size_t shorter =
	    left->length < right->length ? left->length : right->length;

	for (size_t i = 0; i < shorter; i++) {
		if (left->subids[i] != right->subids[i])
			return left->subids[i] < right->subids[i] ? -1 : 1;
	}
	if (left->length != right->length)
		return left->length < right->length ? -1 : 1;
	return 0;
}

static inline int
fx_index_compare_qsort(const void *left, const void *right)
{
	return fx_index_compare(left, right);
}

static inline void
fx_index_from_u32(struct fx_index *index, const uint32_t *subids, size_t length)
{
	ck_assert_uint_le(length, COUNT_OF(index->subids));
	for (size_t i = 0; i < length; i++)
		index->subids[i] = subids[i];
	index->length = length;
}

static inline void
fx_index_push(struct fx_index *index, uint64_t subid)
{
	if (index->length >= COUNT_OF(index->subids))
		ck_abort_msg("index longer than %zu", COUNT_OF(index->subids));
	index->subids[index->length++] = subid;
}

/* "[2.1.1.1.10.2]" for failure messages. */
static inline const char *
fx_index_text(const struct fx_index *index, char *text, size_t text_size)
{
	size_t used = 0;

	text[0] = '\0';
	used += (size_t)snprintf(text, text_size, "[");
	for (size_t i = 0; i < index->length && used < text_size; i++)
		used +=
		    (size_t)snprintf(text + used, text_size - used, "%s%llu",
		        i ? "." : "", (unsigned long long)index->subids[i]);
	if (used < text_size)
		snprintf(text + used, text_size - used, "]");
	return text;
}

/* --- The oracle: every row of a table, built without agent/table_index.c --- */

enum fx_table {
	FX_SUPPLIER,
	FX_CLASS,
	FX_DATUM,
	FX_INSTANCE,
	FX_STAT,
	FX_CLASS_DATA, /* the per-class tables under dciClassData */
};

struct fx_row {
	struct fx_index index;
	const struct dci_supplier *supplier;
	const struct dci_class *class;
	size_t instance;
	const struct dci_datum *datum;
};

struct fx_rows {
	struct fx_row *rows;
	size_t count;
	size_t capacity;
};

static inline void
fx_rows_free(struct fx_rows *rows)
{
	free(rows->rows);
	rows->rows = NULL;
	rows->count = rows->capacity = 0;
}

static inline struct fx_row *
fx_rows_push(struct fx_rows *rows)
{
	if (rows->count == rows->capacity) {
		rows->capacity = rows->capacity ? rows->capacity * 2 : 64;
		rows->rows =
		    realloc(rows->rows, rows->capacity * sizeof(*rows->rows));
		ck_assert_ptr_nonnull(rows->rows);
	}
	memset(&rows->rows[rows->count], 0, sizeof(rows->rows[0]));
	return &rows->rows[rows->count++];
}

static inline void
fx_push_class_segment(struct fx_index *index, const struct dci_class *class)
{
	fx_index_push(index, class->id_length);
	for (size_t i = 0; i < class->id_length; i++)
		fx_index_push(index, class->id[i]);
}

static inline void
fx_push_instance_segment(
    struct fx_index *index, const struct dci_class *class, size_t instance)
{
	const uint32_t *id =
	    class->snapshot->ids + instance * class->instance_words;

	fx_index_push(index, class->instance_words);
	for (size_t i = 0; i < class->instance_words; i++)
		fx_index_push(index, id[i]);
}

static inline bool
fx_datum_in_filter(
    const struct dci_datum *datum, const struct schema_index_filter *filter)
{
	if (datum->kind == DCI_KIND_NONE)
		return false;
	if (filter == NULL)
		return true;
	if ((filter->kinds & (1u << datum->kind)) == 0)
		return false;
	return !filter->counters_only ||
	       datum->info.semantics == DCI_SEMANTICS_COUNTER;
}

static inline bool
fx_present(const struct dci_class *class, size_t instance,
    const struct dci_datum *datum)
{
	const unsigned char *bits =
	    class->snapshot->present + instance * class->present_size;

	return (bits[datum->index / 8] >> (datum->index % 8)) & 1;
}

/* Every row of a table in OID order; filter only for FX_STAT (NULL: all
 * kinds). */
static inline void
fx_oracle(const struct dci_registry *registry, enum fx_table table,
    const struct schema_index_filter *filter, struct fx_rows *rows)
{
	memset(rows, 0, sizeof(*rows));
	if (table == FX_SUPPLIER) {
		for (size_t s = 0; s < registry->supplier_count; s++) {
			struct fx_row *row = fx_rows_push(rows);
			row->supplier = registry->suppliers[s];
			fx_index_push(
			    &row->index, registry->suppliers[s]->index);
		}
	}
	for (size_t c = 0; table != FX_SUPPLIER && c < registry->class_count;
	     c++) {
		const struct dci_class *class = registry->classes[c];
		const struct dci_snapshot *snapshot = class->snapshot;

		if (table == FX_CLASS) {
			struct fx_row *row = fx_rows_push(rows);
			row->class = class;
			fx_push_class_segment(&row->index, class);
			continue;
		}
		if (table == FX_CLASS_DATA) {
			for (size_t d = 0; d < class->datum_count; d++) {
				const struct dci_datum *datum =
				    &class->datums[d];
				for (size_t i = 0;
				     snapshot != NULL && i < snapshot->count;
				     i++) {
					struct fx_row *row;
					const uint32_t *id =
					    snapshot->ids +
					    i * class->instance_words;
					if (datum->kind == DCI_KIND_NONE ||
					    !fx_present(class, i, datum))
						continue;
					row = fx_rows_push(rows);
					row->class = class;
					row->instance = i;
					row->datum = datum;
					for (size_t l = 0; l < class->id_length;
					     l++)
						fx_index_push(
						    &row->index, class->id[l]);
					fx_index_push(&row->index, 1);
					fx_index_push(
					    &row->index, datum->info.id);
					for (size_t w = 0;
					     w < class->instance_words; w++)
						fx_index_push(
						    &row->index, id[w]);
				}
			}
			continue;
		}
		if (table == FX_DATUM) {
			for (size_t d = 0; d < class->datum_count; d++) {
				struct fx_row *row;
				/* ST_UNUSED is described, never valued. */
				if (class->datums[d].kind == DCI_KIND_NONE &&
				    class->datums[d].info.type != DCI_ST_UNUSED)
					continue;
				row = fx_rows_push(rows);
				row->class = class;
				row->datum = &class->datums[d];
				fx_push_class_segment(&row->index, class);
				fx_index_push(
				    &row->index, class->datums[d].info.id);
			}
			continue;
		}
		for (size_t i = 0; snapshot != NULL && i < snapshot->count;
		     i++) {
			if (table == FX_INSTANCE) {
				struct fx_row *row = fx_rows_push(rows);
				row->class = class;
				row->instance = i;
				fx_push_class_segment(&row->index, class);
				fx_push_instance_segment(&row->index, class, i);
				continue;
			}
			for (size_t d = 0; d < class->datum_count; d++) {
				const struct dci_datum *datum =
				    &class->datums[d];
				struct fx_row *row;
				if (!fx_datum_in_filter(datum, filter) ||
				    !fx_present(class, i, datum))
					continue;
				row = fx_rows_push(rows);
				row->class = class;
				row->instance = i;
				row->datum = datum;
				fx_push_class_segment(&row->index, class);
				fx_push_instance_segment(&row->index, class, i);
				fx_index_push(&row->index, datum->info.id);
			}
		}
	}
	qsort(rows->rows, rows->count, sizeof(*rows->rows),
	    fx_index_compare_qsort);
}

/* The first oracle row strictly after `request`, or NULL. */
static inline const struct fx_row *
fx_oracle_next(const struct fx_rows *rows, const struct fx_index *request)
{
	size_t low = 0, high = rows->count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (fx_index_compare(&rows->rows[middle].index, request) <= 0)
			low = middle + 1;
		else
			high = middle;
	}
	return low < rows->count ? &rows->rows[low] : NULL;
}

/* The oracle row equal to `request`, or NULL. */
static inline const struct fx_row *
fx_oracle_exact(const struct fx_rows *rows, const struct fx_index *request)
{
	size_t low = 0, high = rows->count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		int order =
		    fx_index_compare(&rows->rows[middle].index, request);
		if (order == 0)
			return &rows->rows[middle];
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return NULL;
}

/* A small deterministic generator (xorshift64*) for request fuzzing. */
static inline uint64_t
fx_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

/* A request near the rows: a row's index cut, bumped, or extended, or a
 * few arbitrary sub-identifiers including ones above 2^32-1. */
static inline void
fx_random_request(
    const struct fx_rows *rows, uint64_t *state, struct fx_index *request)
{
	static const uint64_t interesting[] = {0, 1, 2, 3, 4, 5, 7, 8, 10, 20,
	    30, 31, UINT32_MAX - 1, UINT32_MAX, UINT64_C(1) << 32,
	    UINT64_C(1) << 40, UINT64_MAX};
	uint64_t pick = fx_random(state);

	request->length = 0;
	if (rows->count > 0 && pick % 4 != 0) {
		const struct fx_row *row =
		    &rows->rows[fx_random(state) % rows->count];
		size_t keep =
		    (size_t)(fx_random(state) % (row->index.length + 1));
		*request = row->index;
		request->length = keep;
		if (keep > 0 && fx_random(state) % 3 == 0) {
			uint64_t *last = &request->subids[keep - 1];
			switch (fx_random(state) % 4) {
			case 0:
				*last += 1;
				break;
			case 1:
				*last = *last ? *last - 1 : 0;
				break;
			default:
				*last = interesting[fx_random(state) %
				                    COUNT_OF(interesting)];
				break;
			}
		}
		if (fx_random(state) % 4 == 0)
			request->length = keep = row->index.length;
		while (fx_random(state) % 3 == 0 && request->length < 40)
			fx_index_push(
			    request, interesting[fx_random(state) %
			                         COUNT_OF(interesting)]);
		return;
	}
	for (size_t n = (size_t)(fx_random(state) % 8); n > 0; n--)
		fx_index_push(request,
		    interesting[fx_random(state) % COUNT_OF(interesting)]);
}

#endif
