/*
 * Unit tests for src/model/registry.c and src/model/snapshot.c: every
 * registration rule the registry enforces (each refusal asserted with its
 * message), the order it keeps classes and datums in, the value record
 * layout, and snapshot building, sorting and swapping.
 */
#include "model/registry.h"
#include "model/snapshot.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"

#define WHY_SIZE 1024

static const struct dci_instance_level one_level[] = {
    {DCI_ITYPE_INTERFACE, 4},
};

static const uint32_t netif_id[] = {1, 1};

/* Fails unless `haystack` contains `needle`, printing both. */
#define assert_contains(haystack, needle)                                      \
	ck_assert_msg(strstr((haystack), (needle)) != NULL,                    \
	    "message \"%s\" does not contain \"%s\"", (haystack), (needle))

static struct dci_datum_info
gauge(uint32_t id, const char *label)
{
	return fx_datum(id, label, DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	    DCI_SEMANTICS_GAUGE);
}

static struct dci_datum_info
counter(uint32_t id, const char *label)
{
	return fx_datum(id, label, DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	    DCI_SEMANTICS_COUNTER);
}

/* Tries a class on a registry that holds `registry`'s classes; asserts it
 * is refused with exactly `expected` as the reason, and that the registry
 * did not change. */
static void
assert_class_refused(struct dci_registry *registry,
    struct dci_supplier *supplier, const struct dci_class_info *info,
    const char *expected)
{
	char why[WHY_SIZE];
	size_t before = registry->class_count;

	memset(why, 0, sizeof(why));
	ck_assert_ptr_null(dci_registry_add_class(
	    registry, supplier, info, NULL, why, sizeof(why)));
	ck_assert_str_eq(why, expected);
	ck_assert_uint_eq(registry->class_count, before);
}

/* Registers one class with the given pieces in a fresh registry and
 * expects the refusal `expected`. */
static void
assert_refused_alone(const uint32_t *id, size_t id_length, const char *label,
    const struct dci_instance_level *levels, size_t level_count,
    const struct dci_datum_info *datums, size_t datum_count,
    const char *expected)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *supplier = fx_supplier(registry, "alpha");
	struct dci_class_info info = fx_class_info(
	    id, id_length, label, levels, level_count, datums, datum_count);

	assert_class_refused(registry, supplier, &info, expected);
	ck_assert_uint_eq(registry->class_count, 0);
	dci_registry_free(registry);
}

/* Same, for a message only partly fixed (e.g. an unstable sort order). */
static const char *
refusal_alone(const uint32_t *id, size_t id_length, const char *label,
    const struct dci_datum_info *datums, size_t datum_count, char *why,
    size_t why_size)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *supplier = fx_supplier(registry, "alpha");
	struct dci_class_info info = fx_class_info(
	    id, id_length, label, one_level, 1, datums, datum_count);

	memset(why, 0, why_size);
	ck_assert_ptr_null(dci_registry_add_class(
	    registry, supplier, &info, NULL, why, why_size));
	ck_assert_uint_eq(registry->class_count, 0);
	dci_registry_free(registry);
	return why;
}

static struct dci_class *
accepted_alone(struct dci_registry *registry, const uint32_t *id,
    size_t id_length, const char *label,
    const struct dci_instance_level *levels, size_t level_count,
    const struct dci_datum_info *datums, size_t datum_count)
{
	struct dci_supplier *supplier = fx_supplier(registry, "alpha");
	struct dci_class_info info = fx_class_info(
	    id, id_length, label, levels, level_count, datums, datum_count);

	return fx_class(registry, supplier, &info);
}

/* --- Class ids ---------------------------------------------------------- */

START_TEST(class_id_without_levels_refused)
{
	struct dci_datum_info datums[] = {gauge(1, "queue")};

	assert_refused_alone(netif_id, 0, "netif", one_level, 1, datums, 1,
	    "class \"netif\": class id must have 1 to 16 levels, has 0");
	assert_refused_alone(NULL, 2, "netif", one_level, 1, datums, 1,
	    "class \"netif\": class id must have 1 to 16 levels, has 2");
}
END_TEST

START_TEST(class_id_of_17_levels_refused)
{
	static const uint32_t id[17] = {
	    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
	struct dci_datum_info datums[] = {gauge(1, "queue")};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class;

	assert_refused_alone(id, 17, "deep", one_level, 1, datums, 1,
	    "class \"deep\": class id must have 1 to 16 levels, has 17");
	/* 16 levels is the maximum, and accepted. */
	class =
	    accepted_alone(registry, id, 16, "deep", one_level, 1, datums, 1);
	ck_assert_uint_eq(class->id_length, 16);
	ck_assert_uint_eq(class->id[15], 16);
	dci_registry_free(registry);
}
END_TEST

START_TEST(class_id_level_all_wildcard_refused)
{
	static const uint32_t id[] = {1, 0xffffffffu, 3};
	static const uint32_t last[] = {0xffffffffu};
	struct dci_datum_info datums[] = {gauge(1, "queue")};

	assert_refused_alone(id, 3, "wild", one_level, 1, datums, 1,
	    "class 1.4294967295.3: level 2 is 2^32-1, the DCI_ALL wildcard");
	assert_refused_alone(last, 1, "wild", one_level, 1, datums, 1,
	    "class 4294967295: level 1 is 2^32-1, the DCI_ALL wildcard");
}
END_TEST

START_TEST(class_id_collision_refused)
{
	struct dci_datum_info datums[] = {gauge(1, "queue")};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *alpha = fx_supplier(registry, "alpha");
	struct dci_supplier *beta = fx_supplier(registry, "beta");
	struct dci_class_info first =
	    fx_class_info(netif_id, 2, "netif", one_level, 1, datums, 1);
	struct dci_class_info second =
	    fx_class_info(netif_id, 2, "other", one_level, 1, datums, 1);

	fx_class(registry, alpha, &first);
	assert_class_refused(registry, beta, &second,
	    "class 1.1: id collides with class 1.1 (\"netif\") of supplier "
	    "\"alpha\"");
	/* The same supplier registering it twice is refused too. */
	assert_class_refused(registry, alpha, &first,
	    "class 1.1: id collides with class 1.1 (\"netif\") of supplier "
	    "\"alpha\"");
	dci_registry_free(registry);
}
END_TEST

/* Class "netif" {1,1} and class "queues" {1,1,5} below it, both of
 * supplier alpha: with the one (`upper_first`: netif) registered, the
 * other is refused with `expected`. */
static void
assert_nested_class_refused(bool upper_first, const char *expected)
{
	static const uint32_t below[] = {1, 1, 5};
	struct dci_datum_info datums[] = {gauge(1, "queue")};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *alpha = fx_supplier(registry, "alpha");
	struct dci_class_info upper =
	    fx_class_info(netif_id, 2, "netif", one_level, 1, datums, 1);
	struct dci_class_info lower =
	    fx_class_info(below, 3, "queues", one_level, 1, datums, 1);

	fx_class(registry, alpha, upper_first ? &upper : &lower);
	assert_class_refused(
	    registry, alpha, upper_first ? &lower : &upper, expected);
	dci_registry_free(registry);
}

START_TEST(subclass_under_instantiated_class_refused)
{
	assert_nested_class_refused(true,
	    "class 1.1.5: subclass of instantiated class 1.1 (\"netif\"); UMA "
	    "forbids classes below an instantiated class");
}
END_TEST

START_TEST(instantiated_class_above_registered_refused)
{
	assert_nested_class_refused(false,
	    "class 1.1: instantiated class above registered class 1.1.5 "
	    "(\"queues\"); UMA forbids classes below an instantiated class");
}
END_TEST

START_TEST(sibling_and_unrelated_classes_accepted)
{
	/* {1,1} and {1,2} share a prefix but neither is below the other;
	 * {1} would be above both and is refused. */
	static const uint32_t sibling[] = {1, 2}, parent[] = {1};
	struct dci_datum_info datums[] = {gauge(1, "queue")};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *alpha = fx_supplier(registry, "alpha");
	struct dci_class_info a =
	    fx_class_info(netif_id, 2, "netif", one_level, 1, datums, 1);
	struct dci_class_info b =
	    fx_class_info(sibling, 2, "disk", one_level, 1, datums, 1);
	struct dci_class_info c =
	    fx_class_info(parent, 1, "top", one_level, 1, datums, 1);

	fx_class(registry, alpha, &a);
	fx_class(registry, alpha, &b);
	ck_assert_uint_eq(registry->class_count, 2);
	assert_class_refused(registry, alpha, &c,
	    "class 1: instantiated class above registered class 1.1 "
	    "(\"netif\"); UMA forbids classes below an instantiated class");
	dci_registry_free(registry);
}
END_TEST

/* --- Instance levels ---------------------------------------------------- */

START_TEST(no_instance_levels_refused)
{
	struct dci_datum_info datums[] = {gauge(1, "queue")};

	assert_refused_alone(netif_id, 2, "netif", one_level, 0, datums, 1,
	    "class 1.1: no instance levels (use one level of type "
	    "DCI_ITYPE_SINGLEINST for a single instance)");
	assert_refused_alone(netif_id, 2, "netif", NULL, 1, datums, 1,
	    "class 1.1: no instance levels (use one level of type "
	    "DCI_ITYPE_SINGLEINST for a single instance)");
}
END_TEST

static const uint32_t bad_level_sizes[] = {0, 1, 2, 3, 5, 6, 7, 10};

START_TEST(instance_level_size_not_multiple_of_4_refused)
{
	uint32_t size = bad_level_sizes[_i];
	struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DISKID, 4},
	    {DCI_ITYPE_DEVICE, size},
	};
	struct dci_datum_info datums[] = {gauge(1, "queue")};
	char expected[256];

	snprintf(expected, sizeof(expected),
	    "class 1.1: instance level 2 has size %u, not a positive multiple "
	    "of 4 bytes",
	    size);
	assert_refused_alone(
	    netif_id, 2, "disk", levels, 2, datums, 1, expected);
}
END_TEST

START_TEST(instance_id_longer_than_16_words_refused)
{
	struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DISKID, 64},
	    {DCI_ITYPE_DEVICE, 4},
	};
	struct dci_datum_info datums[] = {gauge(1, "queue")};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class;

	assert_refused_alone(netif_id, 2, "disk", levels, 2, datums, 1,
	    "class 1.1: instance id of 17 words is longer than 16");
	/* 16 words (60 + 4 bytes) is the maximum, and accepted. */
	levels[0].size = 60;
	class =
	    accepted_alone(registry, netif_id, 2, "disk", levels, 2, datums, 1);
	ck_assert_uint_eq(class->instance_words, 16);
	ck_assert_uint_eq(class->level_count, 2);
	ck_assert_uint_eq(class->levels[0].size, 60);
	ck_assert_int_eq(class->levels[1].itype, DCI_ITYPE_DEVICE);
	dci_registry_free(registry);
}
END_TEST

/* --- Datums ------------------------------------------------------------- */

START_TEST(datum_id_zero_refused)
{
	struct dci_datum_info datums[] = {gauge(1, "queue"), gauge(0, "zero")};

	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 2,
	    "class 1.1: datum 2 (\"zero\") has id 0, outside 1..2^32-2");
}
END_TEST

START_TEST(datum_id_all_ones_refused)
{
	struct dci_datum_info datums[] = {gauge(0xffffffffu, "all")};
	struct dci_datum_info highest[] = {gauge(0xfffffffeu, "highest")};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class;

	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 1,
	    "class 1.1: datum 1 (\"all\") has id 4294967295, outside "
	    "1..2^32-2");
	class = accepted_alone(
	    registry, netif_id, 2, "netif", one_level, 1, highest, 1);
	ck_assert_uint_eq(class->datums[0].info.id, 0xfffffffeu);
	dci_registry_free(registry);
}
END_TEST

START_TEST(no_datums_refused)
{
	struct dci_datum_info datums[] = {gauge(1, "queue")};

	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 0,
	    "class 1.1: no datums");
	assert_refused_alone(netif_id, 2, "netif", one_level, 1, NULL, 1,
	    "class 1.1: no datums");
}
END_TEST

START_TEST(duplicate_datum_ids_refused)
{
	struct dci_datum_info datums[] = {
	    gauge(3, "other"), gauge(7, "first"), counter(7, "second")};
	char why[WHY_SIZE];

	refusal_alone(netif_id, 2, "netif", datums, 3, why, sizeof(why));
	/* Which of the two is named first depends on qsort; both are named. */
	ck_assert_msg(
	    strcmp(why, "class 1.1: datum id 7 used by both \"first\" and "
	                "\"second\"") == 0 ||
	        strcmp(why, "class 1.1: datum id 7 used by both \"second\" and "
	                    "\"first\"") == 0,
	    "unexpected message \"%s\"", why);
}
END_TEST

START_TEST(duplicate_datum_labels_refused)
{
	struct dci_datum_info datums[] = {
	    gauge(9, "rx"), gauge(1, "tx"), counter(3, "rx")};

	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 3,
	    "class 1.1: datum label \"rx\" used by datums 3 and 9");
}
END_TEST

START_TEST(datum_refused_by_value_module)
{
	struct dci_datum_info bad_format = gauge(7, "bad");
	struct dci_datum_info bad_size = gauge(8, "wide");
	struct dci_datum_info bad_semantics = fx_datum(4, "name", DCI_ST_STRING,
	    DCI_SSF_ZEROTERM, 16, DCI_SEMANTICS_COUNTER);
	struct dci_datum_info datums[2];

	bad_format.size = 8;
	bad_format.format = 0x4;
	datums[0] = gauge(1, "queue");
	datums[1] = bad_format;
	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 2,
	    "class 1.1: datum 7 (\"bad\"): format 0x4 is not valid for "
	    "ST_INTEGER32");
	bad_size.size = 8;
	datums[1] = bad_size;
	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 2,
	    "class 1.1: datum 8 (\"wide\"): size 8 is not valid for "
	    "ST_INTEGER32 (must be 4)");
	datums[1] = bad_semantics;
	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 2,
	    "class 1.1: datum 4 (\"name\"): counter semantics is not valid "
	    "for ST_STRING");
}
END_TEST

/* --- Labels ------------------------------------------------------------- */

static const char reserved[] = "!@#$%^&*()[]{}|,.'\"`:;";

/* "ab?c" with the character at position 3. */
static void
label_with(char *label, char c)
{
	label[0] = 'a';
	label[1] = 'b';
	label[2] = c;
	label[3] = 'c';
	label[4] = '\0';
}

START_TEST(reserved_character_in_class_label_refused)
{
	char label[5], expected[256];
	struct dci_datum_info datums[] = {gauge(1, "queue")};

	label_with(label, reserved[_i]);
	snprintf(expected, sizeof(expected),
	    "class 1.1: label \"%s\" has reserved character '%c' at 3 (UMA "
	    "reserves %s)",
	    label, reserved[_i], reserved);
	assert_refused_alone(
	    netif_id, 2, label, one_level, 1, datums, 1, expected);
}
END_TEST

START_TEST(reserved_character_in_datum_label_refused)
{
	char label[5], expected[256];
	struct dci_datum_info datums[2];

	label_with(label, reserved[_i]);
	datums[0] = gauge(1, "queue");
	datums[1] = gauge(6, label);
	snprintf(expected, sizeof(expected),
	    "class 1.1: datum 6: label \"%s\" has reserved character '%c' at "
	    "3 (UMA reserves %s)",
	    label, reserved[_i], reserved);
	assert_refused_alone(
	    netif_id, 2, "netif", one_level, 1, datums, 2, expected);
}
END_TEST

START_TEST(reserved_character_in_supplier_module_refused)
{
	char label[5], expected[256], why[WHY_SIZE] = "";
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier_info info = {.module = label, .title = "t"};

	label_with(label, reserved[_i]);
	snprintf(expected, sizeof(expected),
	    "supplier module: label \"%s\" has reserved character '%c' at 3 "
	    "(UMA reserves %s)",
	    label, reserved[_i], reserved);
	ck_assert_ptr_null(dci_registry_add_supplier(
	    registry, &info, "test", why, sizeof(why)));
	ck_assert_str_eq(why, expected);
	ck_assert_uint_eq(registry->supplier_count, 0);
	dci_registry_free(registry);
}
END_TEST

static const unsigned char non_printing[] = {
    '\t', '\n', 0x01, 0x1f, 0x7f, 0x80, 0xff};

/* The refusal quotes the label escaped (text/escape.h): it goes to a log
 * line. */
START_TEST(non_printing_character_in_labels_refused)
{
	char label[5], expected[256], why[WHY_SIZE] = "";
	unsigned char c = non_printing[_i];
	struct dci_datum_info datums[2];
	struct dci_registry *registry;
	struct dci_supplier_info info = {.module = label, .title = "t"};

	label_with(label, (char)c);
	snprintf(expected, sizeof(expected),
	    "class 1.1: label \"ab\\x%02xc\" has non-printing character "
	    "0x%02x at 3 (UMA reserves it)",
	    c, c);
	datums[0] = gauge(1, "queue");
	assert_refused_alone(
	    netif_id, 2, label, one_level, 1, datums, 1, expected);

	datums[1] = gauge(6, label);
	snprintf(expected, sizeof(expected),
	    "class 1.1: datum 6: label \"ab\\x%02xc\" has non-printing "
	    "character 0x%02x at 3 (UMA reserves it)",
	    c, c);
	assert_refused_alone(
	    netif_id, 2, "netif", one_level, 1, datums, 2, expected);

	registry = dci_registry_new();
	snprintf(expected, sizeof(expected),
	    "supplier module: label \"ab\\x%02xc\" has non-printing "
	    "character 0x%02x at 3 (UMA reserves it)",
	    c, c);
	ck_assert_ptr_null(dci_registry_add_supplier(
	    registry, &info, "test", why, sizeof(why)));
	ck_assert_str_eq(why, expected);
	dci_registry_free(registry);
}
END_TEST

START_TEST(blank_inside_label_accepted)
{
	struct dci_datum_info datums[] = {gauge(1, "rx queue")};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier_info info = {.module = "net if", .title = "t"};
	char why[WHY_SIZE] = "";
	struct dci_supplier *supplier;
	struct dci_class_info class_info;
	struct dci_class *class;

	supplier = dci_registry_add_supplier(
	    registry, &info, "test", why, sizeof(why));
	ck_assert_msg(supplier != NULL, "refused: %s", why);
	ck_assert_str_eq(supplier->module, "net if");
	class_info = fx_class_info(
	    netif_id, 2, "network interfaces", one_level, 1, datums, 1);
	class = fx_class(registry, supplier, &class_info);
	ck_assert_str_eq(class->label, "network interfaces");
	ck_assert_str_eq(class->datums[0].info.label, "rx queue");
	ck_assert(dci_registry_label_valid("a b", NULL, 0));
	ck_assert(dci_registry_label_valid(" ", NULL, 0));
	ck_assert(dci_registry_label_valid("~-_+=<>?/\\", NULL, 0));
	dci_registry_free(registry);
}
END_TEST

START_TEST(empty_label_refused)
{
	struct dci_datum_info datums[2];
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier_info info = {.module = "", .title = "t"};
	char why[WHY_SIZE] = "";

	datums[0] = gauge(1, "queue");
	assert_refused_alone(
	    netif_id, 2, "", one_level, 1, datums, 1, "class 1.1: empty label");
	assert_refused_alone(netif_id, 2, NULL, one_level, 1, datums, 1,
	    "class 1.1: empty label");
	datums[1] = gauge(6, "");
	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 2,
	    "class 1.1: datum 6: empty label");
	datums[1] = gauge(6, NULL);
	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 2,
	    "class 1.1: datum 6: empty label");

	ck_assert_ptr_null(dci_registry_add_supplier(
	    registry, &info, "test", why, sizeof(why)));
	ck_assert_str_eq(why, "supplier module: empty label");
	info.module = NULL;
	ck_assert_ptr_null(dci_registry_add_supplier(
	    registry, &info, "test", why, sizeof(why)));
	ck_assert_str_eq(why, "supplier has no module name");
	ck_assert_uint_eq(registry->supplier_count, 0);
	dci_registry_free(registry);
}
END_TEST

START_TEST(label_longer_than_255_refused)
{
	char longest[DCI_LABEL_MAX + 1], too_long[DCI_LABEL_MAX + 2];
	struct dci_datum_info datums[2];
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier_info info = {.module = too_long, .title = "t"};
	char why[WHY_SIZE] = "";
	struct dci_class *class;

	memset(longest, 'a', DCI_LABEL_MAX);
	longest[DCI_LABEL_MAX] = '\0';
	memset(too_long, 'b', DCI_LABEL_MAX + 1);
	too_long[DCI_LABEL_MAX + 1] = '\0';
	datums[0] = gauge(1, "queue");
	assert_refused_alone(netif_id, 2, too_long, one_level, 1, datums, 1,
	    "class 1.1: label longer than 255 characters");
	datums[1] = gauge(6, too_long);
	assert_refused_alone(netif_id, 2, "netif", one_level, 1, datums, 2,
	    "class 1.1: datum 6: label longer than 255 characters");
	ck_assert_ptr_null(dci_registry_add_supplier(
	    registry, &info, "test", why, sizeof(why)));
	ck_assert_str_eq(
	    why, "supplier module: label longer than 255 characters");

	/* 255 characters is the maximum, and accepted everywhere. */
	datums[1] = gauge(6, longest);
	class = accepted_alone(
	    registry, netif_id, 2, longest, one_level, 1, datums, 2);
	ck_assert_uint_eq(strlen(class->label), DCI_LABEL_MAX);
	ck_assert_str_eq(dci_class_find_datum(class, 6)->info.label, longest);
	dci_registry_free(registry);
}
END_TEST

START_TEST(duplicate_supplier_refused)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier_info info = {.module = "alpha", .title = "t"};
	char why[WHY_SIZE] = "";

	fx_supplier(registry, "alpha");
	ck_assert_ptr_null(dci_registry_add_supplier(
	    registry, &info, "other", why, sizeof(why)));
	ck_assert_str_eq(why, "supplier \"alpha\" already registered");
	ck_assert_uint_eq(registry->supplier_count, 1);
	dci_registry_free(registry);
}
END_TEST

/* --- Accepted registrations --------------------------------------------- */

START_TEST(valid_class_accepted)
{
	char label[] = "netif", datum_label[] = "rx_bytes";
	struct dci_datum_info datums[] = {counter(2, datum_label),
	    gauge(5, "queue"),
	    fx_datum(1, "name", DCI_ST_STRING, 0, 16, DCI_SEMANTICS_DISCRETE)};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *supplier = fx_supplier(registry, "alpha");
	struct dci_class_info info =
	    fx_class_info(netif_id, 2, label, one_level, 1, datums, 3);
	char why[WHY_SIZE] = "", text[64];
	int owner;
	struct dci_class *class;

	info.description = "network interfaces";
	class = dci_registry_add_class(
	    registry, supplier, &info, &owner, why, sizeof(why));
	ck_assert_msg(class != NULL, "refused: %s", why);
	/* Everything is copied: the caller's strings may change. */
	label[0] = 'X';
	datum_label[0] = 'X';
	ck_assert_str_eq(class->label, "netif");
	ck_assert_str_eq(class->description, "network interfaces");
	ck_assert_str_eq(
	    dci_class_find_datum(class, 2)->info.label, "rx_bytes");
	ck_assert_str_eq(dci_class_find_datum(class, 2)->info.description, "");
	ck_assert_uint_eq(class->id_length, 2);
	ck_assert_uint_eq(class->id[0], 1);
	ck_assert_uint_eq(class->id[1], 1);
	ck_assert_ptr_eq(class->supplier, supplier);
	ck_assert_ptr_eq(class->owner, &owner);
	ck_assert_ptr_null(class->snapshot);
	ck_assert_uint_eq(class->level_count, 1);
	ck_assert_uint_eq(class->instance_words, 1);
	ck_assert_uint_eq(class->datum_count, 3);
	ck_assert_uint_eq(class->present_size, 1);
	ck_assert(class->has_counters);
	ck_assert_uint_eq(class->kind_mask, (1u << DCI_KIND_COUNTER64) |
	                                        (1u << DCI_KIND_GAUGE32) |
	                                        (1u << DCI_KIND_STRING));
	ck_assert_int_eq(
	    dci_class_find_datum(class, 2)->kind, DCI_KIND_COUNTER64);
	ck_assert_int_eq(
	    dci_class_find_datum(class, 5)->kind, DCI_KIND_GAUGE32);
	ck_assert_int_eq(dci_class_find_datum(class, 1)->kind, DCI_KIND_STRING);
	/* Size 0 became the natural size. */
	ck_assert_uint_eq(dci_class_find_datum(class, 2)->info.size, 8);
	ck_assert_uint_eq(dci_class_find_datum(class, 5)->info.size, 4);
	ck_assert_uint_eq(dci_class_find_datum(class, 1)->info.size, 16);
	ck_assert_uint_eq(registry->class_count, 1);
	ck_assert_ptr_eq(registry->classes[0], class);
	dci_class_id_format(class, text, sizeof(text));
	ck_assert_str_eq(text, "1.1");
	dci_registry_free(registry);
}
END_TEST

START_TEST(classes_sorted_by_length_then_id)
{
	static const uint32_t ids[][3] = {{2, 1, 1}, {1, 2}, {3}, {1, 1}};
	static const size_t lengths[] = {3, 2, 1, 2};
	static const char *const labels[] = {"c211", "c12", "c3", "c11"};
	static const char *const expected[] = {"c3", "c11", "c12", "c211"};
	struct dci_datum_info datums[] = {gauge(1, "queue")};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *supplier = fx_supplier(registry, "alpha");

	for (size_t i = 0; i < COUNT_OF(ids); i++) {
		struct dci_class_info info = fx_class_info(
		    ids[i], lengths[i], labels[i], one_level, 1, datums, 1);
		fx_class(registry, supplier, &info);
	}
	ck_assert_uint_eq(registry->class_count, 4);
	for (size_t i = 0; i < COUNT_OF(expected); i++)
		ck_assert_str_eq(registry->classes[i]->label, expected[i]);
	for (size_t i = 1; i < registry->class_count; i++) {
		const struct dci_class *a = registry->classes[i - 1],
		                       *b = registry->classes[i];
		ck_assert_int_lt(dci_class_id_compare(
		                     a->id, a->id_length, b->id, b->id_length),
		    0);
		ck_assert_int_gt(dci_class_id_compare(
		                     b->id, b->id_length, a->id, a->id_length),
		    0);
	}
	ck_assert_int_eq(dci_class_id_compare(ids[3], 2, ids[3], 2), 0);
	dci_registry_free(registry);
}
END_TEST

START_TEST(datums_sorted_and_found)
{
	static const uint32_t order[] = {40, 3, 1000000, 7, 1, 0xfffffffeu};
	static const uint32_t sorted[] = {1, 3, 7, 40, 1000000, 0xfffffffeu};
	static const char *const labels[] = {
	    "d40", "d3", "dmillion", "d7", "d1", "dmax"};
	struct dci_datum_info datums[COUNT_OF(order)];
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class;

	for (size_t i = 0; i < COUNT_OF(order); i++)
		datums[i] = gauge(order[i], labels[i]);
	class = accepted_alone(registry, netif_id, 2, "netif", one_level, 1,
	    datums, COUNT_OF(datums));
	for (size_t i = 0; i < COUNT_OF(sorted); i++) {
		const struct dci_datum *datum;
		char label[32];

		ck_assert_uint_eq(class->datums[i].info.id, sorted[i]);
		ck_assert_uint_eq(class->datums[i].index, i);
		datum = dci_class_find_datum(class, sorted[i]);
		ck_assert_ptr_eq(datum, &class->datums[i]);
		if (sorted[i] == 1000000)
			snprintf(label, sizeof(label), "dmillion");
		else if (sorted[i] == 0xfffffffeu)
			snprintf(label, sizeof(label), "dmax");
		else
			snprintf(label, sizeof(label), "d%u", sorted[i]);
		ck_assert_str_eq(datum->info.label, label);
	}
	ck_assert_ptr_null(dci_class_find_datum(class, 0));
	ck_assert_ptr_null(dci_class_find_datum(class, 2));
	ck_assert_ptr_null(dci_class_find_datum(class, 8));
	ck_assert_ptr_null(dci_class_find_datum(class, 41));
	ck_assert_ptr_null(dci_class_find_datum(class, 0xffffffffu));
	dci_registry_free(registry);
}
END_TEST

START_TEST(record_offsets_aligned_and_disjoint)
{
	struct dci_datum_info datums[] = {
	    fx_datum(1, "flag8", DCI_ST_INTEGER8, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	    fx_datum(2, "name", DCI_ST_STRING, 0, 13, DCI_SEMANTICS_DISCRETE),
	    counter(3, "bytes"),
	    fx_datum(4, "short", DCI_ST_INTEGER16, 0, 0, DCI_SEMANTICS_GAUGE),
	    fx_datum(5, "mac", DCI_ST_ADDRESS, DCI_SAF_ETHERNET, 0,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(6, "econet", DCI_ST_ADDRESS, DCI_SAF_ECONET, 0,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(7, "when", DCI_ST_TIME, DCI_STF_CTIME, 0,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(8, "up", DCI_ST_BOOLEAN, 0, 0, DCI_SEMANTICS_DISCRETE),
	    fx_datum(9, "spare", DCI_ST_UNUSED, 0, 0, DCI_SEMANTICS_DISCRETE),
	    fx_datum(10, "long", DCI_ST_STRING, 0, 300, DCI_SEMANTICS_DISCRETE),
	};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = accepted_alone(registry, netif_id, 2, "netif",
	    one_level, 1, datums, COUNT_OF(datums));
	size_t end = 0;

	ck_assert_uint_eq(class->datum_count, COUNT_OF(datums));
	ck_assert_uint_eq(class->present_size, 2); /* 10 datums: 2 bytes */
	for (size_t i = 0; i < class->datum_count; i++) {
		const struct dci_datum *datum = &class->datums[i];

		ck_assert_uint_eq(datum->offset % 8, 0);
		/* In id order, each slot starts at or after the last ends. */
		ck_assert_uint_ge(datum->offset, end);
		end = datum->offset + datum->info.size;
		ck_assert_uint_le(end, class->record_size);
	}
	ck_assert_uint_eq(class->record_size % 8, 0);
	/* 8 (int8) + 16 (string 13) + 8 + 8 (int16) + 8 (mac) + 8 (econet)
	 * + 8 (time) + 8 (bool) + 0 (unused) + 304 (string 300) */
	ck_assert_uint_eq(class->record_size, 376);
	ck_assert_uint_eq(dci_class_find_datum(class, 10)->offset, 72);
	ck_assert_int_eq(dci_class_find_datum(class, 9)->kind, DCI_KIND_NONE);
	ck_assert_uint_eq(class->kind_mask & 1u, 0);
	dci_registry_free(registry);
}
END_TEST

START_TEST(supplier_indexes_in_registration_order)
{
	static const char *const modules[] = {"zeta", "alpha", "mid"};
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier_info info = {
	    .title = "Title",
	    .description = "Description",
	    .type = 3,
	    .version = 123,
	};
	char why[WHY_SIZE] = "";

	for (size_t i = 0; i < COUNT_OF(modules); i++) {
		struct dci_supplier *supplier;
		info.module = modules[i];
		supplier = dci_registry_add_supplier(
		    registry, &info, "prov", why, sizeof(why));
		ck_assert_msg(supplier != NULL, "refused: %s", why);
		ck_assert_uint_eq(supplier->index, i + 1);
	}
	ck_assert_uint_eq(registry->supplier_count, 3);
	for (size_t i = 0; i < COUNT_OF(modules); i++) {
		const struct dci_supplier *supplier = registry->suppliers[i];
		ck_assert_uint_eq(supplier->index, i + 1);
		ck_assert_str_eq(supplier->module, modules[i]);
		ck_assert_str_eq(supplier->title, "Title");
		ck_assert_str_eq(supplier->description, "Description");
		ck_assert_str_eq(supplier->provider_name, "prov");
		ck_assert_uint_eq(supplier->type, 3);
		ck_assert_uint_eq(supplier->version, 123);
		ck_assert_int_eq(supplier->status, DCI_SUPPLIER_RUNNING);
	}
	dci_registry_free(registry);
}
END_TEST

/* --- Snapshots ---------------------------------------------------------- */

/* netif {1,1}: 1 word; datums 1 name (string 16), 2 rx_bytes (counter64),
 * 5 queue (gauge32), 6 drops (counter32). */
static struct dci_class *
snapshot_class(struct dci_registry *registry)
{
	struct dci_datum_info datums[] = {
	    fx_datum(1, "name", DCI_ST_STRING, 0, 16, DCI_SEMANTICS_DISCRETE),
	    counter(2, "rx_bytes"),
	    gauge(5, "queue"),
	    fx_datum(6, "drops", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	};

	return accepted_alone(registry, netif_id, 2, "netif", one_level, 1,
	    datums, COUNT_OF(datums));
}

static uint64_t
read_number(const struct dci_class *class, size_t instance, uint32_t datum_id)
{
	const struct dci_datum *datum = dci_class_find_datum(class, datum_id);
	struct dci_value value;

	ck_assert_ptr_nonnull(datum);
	ck_assert(
	    dci_snapshot_present(class, class->snapshot, instance, datum));
	dci_value_decode(&datum->info,
	    dci_snapshot_slot(class, class->snapshot, instance, datum), &value);
	return value.number;
}

/* Adds instances 1..count (labels "i1".."iN") with the given parents
 * (parents[i] = 0 for none) and commits; returns what commit said. */
static void
commit_with_parents(struct dci_class *class, const uint32_t *parents,
    uint32_t count, char *why, size_t why_size)
{
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);

	for (uint32_t id = count; id >= 1; id--) {
		char label[16];
		long row;

		snprintf(label, sizeof(label), "i%u", id);
		row = fx_add(builder, &id, 1, label);
		if (parents[id - 1] != 0)
			ck_assert_int_eq(
			    dci_snapshot_builder_set_parent(
			        builder, row, &parents[id - 1], 1, NULL, 0),
			    0);
	}
	ck_assert_int_eq(
	    dci_snapshot_commit(builder, class, 1000, why, why_size), 0);
}

static uint32_t
parent_of(const struct dci_class *class, size_t instance)
{
	const uint32_t *parent =
	    dci_snapshot_parent_id(class, class->snapshot, instance);

	return parent == NULL ? 0 : parent[0];
}

START_TEST(parent_links_kept_in_sorted_snapshot)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	/* 1 <- 2, 1 <- 3, 3 <- 4: a two-level tree. */
	const uint32_t parents[] = {0, 1, 1, 3};
	char why[256] = "x";

	commit_with_parents(class, parents, 4, why, sizeof(why));
	ck_assert_str_eq(why, "");
	ck_assert_uint_eq(class->snapshot->count, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_uint_eq(parent_of(class, i), parents[i]);
	dci_registry_free(registry);
}
END_TEST

START_TEST(parent_missing_or_self_is_dropped)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	/* 2's parent 9 is not in the batch; 3 names itself. */
	const uint32_t parents[] = {0, 9, 3, 1};
	char why[256] = "";

	commit_with_parents(class, parents, 4, why, sizeof(why));
	ck_assert_uint_eq(class->snapshot->count, 4);
	ck_assert_uint_eq(parent_of(class, 0), 0);
	ck_assert_uint_eq(parent_of(class, 1), 0);
	ck_assert_uint_eq(parent_of(class, 2), 0);
	ck_assert_uint_eq(parent_of(class, 3), 1);
	ck_assert_str_eq(why, "class \"netif\": 2 parent links dropped; "
	                      "first: instance \"i2\": parent not in the "
	                      "snapshot");
	dci_registry_free(registry);
}
END_TEST

START_TEST(parent_cycle_is_broken_once)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	/* 1 -> 2 -> 3 -> 1 is a cycle; 4 -> 1 hangs off it. */
	const uint32_t parents[] = {2, 3, 1, 1};
	char why[256] = "";
	size_t roots = 0;

	commit_with_parents(class, parents, 4, why, sizeof(why));
	ck_assert_ptr_nonnull(strstr(why, "1 parent link dropped"));
	ck_assert_ptr_nonnull(strstr(why, "closes a cycle"));
	/* Exactly one link went; following parents from any instance now
	 * reaches a root within 4 steps. */
	for (size_t i = 0; i < 4; i++) {
		uint32_t at = (uint32_t)i + 1;
		int steps = 0;
		if (parent_of(class, i) == 0)
			roots++;
		while (parent_of(class, at - 1) != 0 && steps < 5) {
			at = parent_of(class, at - 1);
			steps++;
		}
		ck_assert_int_lt(steps, 4);
	}
	ck_assert_uint_eq(roots, 1);
	ck_assert_uint_eq(parent_of(class, 3), 1);
	dci_registry_free(registry);
}
END_TEST

START_TEST(parent_refused_for_bad_row_or_id_length)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	const uint32_t two_words[] = {1, 2}, one = 1;
	char why[256];
	long row = fx_add(builder, &one, 1, "a");

	ck_assert_int_eq(dci_snapshot_builder_set_parent(
	                     builder, row + 1, &one, 1, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "parent of row 1: no such row (1 instances)");
	ck_assert_int_eq(dci_snapshot_builder_set_parent(
	                     builder, row, two_words, 2, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "parent of instance \"a\": id has 2 words, "
	                      "class \"netif\" has 1");
	ck_assert_int_eq(dci_snapshot_builder_set_parent(
	                     builder, row, NULL, 1, why, sizeof(why)),
	    -1);
	dci_snapshot_builder_free(builder);
	dci_registry_free(registry);
}
END_TEST

START_TEST(parents_survive_builder_growth)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	uint32_t parents[500];
	char why[256] = "x";

	/* Links are set from the first row on, so the parent arrays are
	 * allocated early and must grow with the builder (64, 128, ...). */
	for (uint32_t i = 0; i < 500; i++)
		parents[i] = i == 0 ? 0 : i; /* i+1's parent is i */
	commit_with_parents(class, parents, 500, why, sizeof(why));
	ck_assert_str_eq(why, "");
	for (size_t i = 0; i < 500; i++)
		ck_assert_uint_eq(parent_of(class, i), parents[i]);
	dci_registry_free(registry);
}
END_TEST

START_TEST(invalid_mark_removes_a_value)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	const struct dci_datum *rx = dci_class_find_datum(class, 2);
	const struct dci_datum *queue = dci_class_find_datum(class, 5);
	uint32_t one = 1, two = 2;
	char why[256];
	long first, second;

	first = fx_add(builder, &one, 1, "a");
	second = fx_add(builder, &two, 1, "b");
	fx_set_unsigned(builder, first, 2, 1000);
	fx_set_unsigned(builder, first, 5, 7);
	fx_set_unsigned(builder, second, 2, 2000);
	/* Set, then found invalid: gone. Never set, marked invalid: gone. */
	ck_assert_int_eq(dci_snapshot_builder_set_invalid(
	                     builder, first, 2, why, sizeof(why)),
	    0);
	ck_assert_int_eq(dci_snapshot_builder_set_invalid(
	                     builder, second, 5, why, sizeof(why)),
	    0);
	ck_assert_int_eq(dci_snapshot_builder_set_invalid(
	                     builder, second, 3, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "class \"netif\" has no datum 3");
	ck_assert_int_eq(
	    dci_snapshot_builder_set_invalid(builder, 2, 2, why, sizeof(why)),
	    -1);
	fx_commit(builder, class, 1000);

	ck_assert(!dci_snapshot_present(class, class->snapshot, 0, rx));
	ck_assert(dci_snapshot_present(class, class->snapshot, 0, queue));
	ck_assert_uint_eq(read_number(class, 0, 5), 7);
	ck_assert(dci_snapshot_present(class, class->snapshot, 1, rx));
	ck_assert_uint_eq(read_number(class, 1, 2), 2000);
	ck_assert(!dci_snapshot_present(class, class->snapshot, 1, queue));
	dci_registry_free(registry);
}
END_TEST

START_TEST(builder_add_refuses_bad_id_and_label)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	static const uint32_t id[] = {1, 2};
	char why[WHY_SIZE] = "";

	ck_assert_int_eq(
	    dci_snapshot_builder_add(builder, id, 2, "eth0", why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why,
	    "instance id has 2 words, class \"netif\" has 1 (its instance "
	    "levels)");
	ck_assert_int_eq(
	    dci_snapshot_builder_add(builder, id, 0, "eth0", why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why,
	    "instance id has 0 words, class \"netif\" has 1 (its instance "
	    "levels)");
	/* Instance labels must be non-empty; any other bytes are escaped. */
	ck_assert_int_eq(
	    dci_snapshot_builder_add(builder, id, 1, "", why, sizeof(why)), -1);
	ck_assert_str_eq(why, "empty label");
	ck_assert_int_eq(
	    dci_snapshot_builder_add(builder, id, 1, NULL, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "empty label");
	/* The refusals took no row: the first good instance is row 0. */
	ck_assert_int_eq(dci_snapshot_builder_add(
	                     builder, id, 1, "eth0.100", why, sizeof(why)),
	    0);
	ck_assert_int_eq(dci_snapshot_builder_add(
	                     builder, id + 1, 1, "eth1:x", why, sizeof(why)),
	    1);
	fx_commit(builder, class, 100);
	ck_assert_uint_eq(class->snapshot->count, 2);
	ck_assert_str_eq(class->snapshot->instances[0].label, "eth0.100");
	ck_assert_str_eq(class->snapshot->instances[1].label, "eth1:x");
	dci_registry_free(registry);
}

/* The escape rule of registry.h, one case per kind of byte. */
static const struct {
	const char *label;
	const char *served;
} escape_cases[] = {
    {"eth0", "eth0"},
    {"d\xc3\xa9v0", "d\\xc3\\xa9v0"}, /* UTF-8 "dév0" */
    {"eth\t0", "eth\\x090"},
    {"new\nline", "new\\x0aline"},
    {"back\\slash", "back\\\\slash"},
    {"\\x41", "\\\\x41"}, /* not the escape of "A" */
    {"\x01\x7f\xff", "\\x01\\x7f\\xff"},
};

START_TEST(instance_label_escaped)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	char escaped[DCI_INSTANCE_LABEL_SIZE], why[WHY_SIZE] = "";
	uint32_t id = 1;

	ck_assert(dci_registry_instance_label_escape(
	    escape_cases[_i].label, escaped, why, sizeof(why)));
	ck_assert_str_eq(escaped, escape_cases[_i].served);
	/* The builder serves the escaped label. */
	ck_assert_int_eq(dci_snapshot_builder_add(builder, &id, 1,
	                     escape_cases[_i].label, why, sizeof(why)),
	    0);
	fx_commit(builder, class, 100);
	ck_assert_str_eq(
	    class->snapshot->instances[0].label, escape_cases[_i].served);
	dci_registry_free(registry);
}
END_TEST

/* Checks the form of a label cut to fit: printable, at most DCI_LABEL_MAX,
 * ending in "\~" and 8 hex digits, no escape split. */
static void
assert_cut_label(const char *escaped)
{
	size_t length = strlen(escaped);

	ck_assert_uint_le(length, DCI_LABEL_MAX);
	ck_assert_uint_ge(length, 10);
	for (size_t i = 0; i < length; i++)
		ck_assert(escaped[i] >= 0x20 && escaped[i] <= 0x7e);
	ck_assert(escaped[length - 10] == '\\' && escaped[length - 9] == '~');
	for (size_t i = length - 8; i < length; i++)
		ck_assert(strchr("0123456789abcdef", escaped[i]) != NULL);
	/* Every backslash before the mark starts a whole escape. */
	for (size_t i = 0; i < length - 10; i++) {
		if (escaped[i] != '\\')
			continue;
		ck_assert(escaped[i + 1] == '\\' || escaped[i + 1] == 'x');
		ck_assert_uint_le(
		    i + (escaped[i + 1] == '\\' ? 2 : 4), length - 10);
		i += escaped[i + 1] == '\\' ? 1 : 3;
	}
}

START_TEST(instance_label_cut_to_fit)
{
	char label[DCI_LABEL_MAX + 64];
	char escaped[DCI_INSTANCE_LABEL_SIZE], other[DCI_INSTANCE_LABEL_SIZE];

	/* DCI_LABEL_MAX printable bytes fit as they are; one more is cut. */
	memset(label, 'a', DCI_LABEL_MAX);
	label[DCI_LABEL_MAX] = '\0';
	ck_assert(dci_registry_instance_label_escape(label, escaped, NULL, 0));
	ck_assert_str_eq(escaped, label);
	label[DCI_LABEL_MAX] = 'a';
	label[DCI_LABEL_MAX + 1] = '\0';
	ck_assert(dci_registry_instance_label_escape(label, escaped, NULL, 0));
	assert_cut_label(escaped);
	ck_assert_uint_eq(strlen(escaped), DCI_LABEL_MAX);
	ck_assert(strncmp(escaped, label, DCI_LABEL_MAX - 10) == 0);

	/* Labels that differ only after the cut stay distinct. */
	label[DCI_LABEL_MAX] = 'b';
	ck_assert(dci_registry_instance_label_escape(label, other, NULL, 0));
	assert_cut_label(other);
	ck_assert_str_ne(escaped, other);

	/* Escapes are never split: 63 UTF-8 "é" are 504 characters escaped. */
	for (size_t i = 0; i < 126; i += 2) {
		label[i] = (char)0xc3;
		label[i + 1] = (char)0xa9;
	}
	label[126] = '\0';
	ck_assert(dci_registry_instance_label_escape(label, escaped, NULL, 0));
	assert_cut_label(escaped);
	ck_assert_uint_eq(strlen(escaped), 244 + 10);

	/* Backslashes (2 characters each), misaligned by one 'a'. */
	label[0] = 'a';
	memset(label + 1, '\\', DCI_LABEL_MAX);
	label[DCI_LABEL_MAX + 1] = '\0';
	ck_assert(dci_registry_instance_label_escape(label, escaped, NULL, 0));
	assert_cut_label(escaped);
	ck_assert_uint_eq(strlen(escaped), 245 + 10);
}
END_TEST

static const char instance_label_characters[] = "!@#$%^&*()[]{}|,.'\"`:; ~";

START_TEST(instance_label_may_hold_reserved_characters)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	char label[5], why[WHY_SIZE] = "";
	char escaped[DCI_INSTANCE_LABEL_SIZE];
	uint32_t id = 1;

	label_with(label, instance_label_characters[_i]);
	ck_assert_msg(dci_snapshot_builder_add(
	                  builder, &id, 1, label, why, sizeof(why)) == 0,
	    "instance label \"%s\" refused: %s", label, why);
	ck_assert(dci_registry_instance_label_escape(label, escaped, NULL, 0));
	ck_assert_str_eq(escaped, label);
	ck_assert(!dci_registry_label_valid(label, NULL, 0) ||
	          instance_label_characters[_i] == ' ' ||
	          instance_label_characters[_i] == '~');
	fx_commit(builder, class, 100);
	ck_assert_str_eq(class->snapshot->instances[0].label, label);
	dci_registry_free(registry);
}
END_TEST
END_TEST

START_TEST(builder_setters_refuse_unknown_datum_and_bad_row)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	char why[WHY_SIZE] = "";
	long row = fx_add(builder, (const uint32_t[]){4}, 1, "eth0");

	ck_assert_int_eq(row, 0);
	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
	                     builder, row, 9, 1, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "class \"netif\" has no datum 9");
	ck_assert_int_eq(dci_snapshot_builder_set_signed(
	                     builder, row, 3, 1, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "class \"netif\" has no datum 3");
	ck_assert_int_eq(dci_snapshot_builder_set_bytes(
	                     builder, row, 0, "x", 1, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "class \"netif\" has no datum 0");

	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(
	                     builder, 1, 2, 1, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "row 1 does not exist (1 instances)");
	ck_assert_int_eq(dci_snapshot_builder_set_signed(
	                     builder, -1, 2, 1, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "row -1 does not exist (1 instances)");
	ck_assert_int_eq(dci_snapshot_builder_set_bytes(
	                     builder, 7, 1, "x", 1, why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "row 7 does not exist (1 instances)");

	/* A value the datum cannot hold: the message names the datum. */
	ck_assert_int_eq(dci_snapshot_builder_set_signed(
	                     builder, row, 5, -1, why, sizeof(why)),
	    -1);
	assert_contains(why, "datum 5 (\"queue\"): ");
	ck_assert_int_eq(dci_snapshot_builder_set_unsigned(builder, row, 6,
	                     UINT64_C(1) << 32, why, sizeof(why)),
	    -1);
	assert_contains(why, "datum 6 (\"drops\"): ");
	ck_assert_int_eq(dci_snapshot_builder_set_bytes(builder, row, 1,
	                     "0123456789abcdef", 16, why, sizeof(why)),
	    -1);
	assert_contains(why, "datum 1 (\"name\"): ");

	/* None of the refused sets made a value present. */
	fx_commit(builder, class, 100);
	for (size_t d = 0; d < class->datum_count; d++)
		ck_assert(!dci_snapshot_present(
		    class, class->snapshot, 0, &class->datums[d]));
	dci_registry_free(registry);
}
END_TEST

START_TEST(commit_sorts_instances_by_id)
{
	static const uint32_t ids[] = {5, 1, 3};
	static const char *const labels[] = {"five", "one", "three"};
	static const uint32_t sorted[] = {1, 3, 5};
	static const char *const sorted_labels[] = {"one", "three", "five"};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	const struct dci_snapshot *snapshot;

	for (size_t i = 0; i < COUNT_OF(ids); i++) {
		long row = fx_add(builder, &ids[i], 1, labels[i]);
		ck_assert_int_eq(row, (long)i);
		fx_set_unsigned(builder, row, 2, UINT64_C(1000) * ids[i]);
		fx_set_unsigned(builder, row, 5, ids[i] + 100);
		fx_set_bytes(builder, row, 1, labels[i], strlen(labels[i]));
	}
	fx_commit(builder, class, 1234);
	snapshot = class->snapshot;
	ck_assert_ptr_nonnull(snapshot);
	ck_assert_uint_eq(snapshot->count, 3);
	ck_assert_int_eq(snapshot->taken_milliseconds, 1234);
	for (size_t i = 0; i < COUNT_OF(sorted); i++) {
		const struct dci_datum *name = dci_class_find_datum(class, 1);
		struct dci_value value;

		ck_assert_uint_eq(
		    dci_snapshot_instance_id(class, snapshot, i)[0], sorted[i]);
		ck_assert_str_eq(
		    snapshot->instances[i].label, sorted_labels[i]);
		ck_assert_uint_eq(
		    read_number(class, i, 2), UINT64_C(1000) * sorted[i]);
		ck_assert_uint_eq(read_number(class, i, 5), sorted[i] + 100);
		dci_value_decode(&name->info,
		    dci_snapshot_slot(class, snapshot, i, name), &value);
		ck_assert_uint_eq(value.length, strlen(sorted_labels[i]));
		ck_assert_mem_eq(value.bytes, sorted_labels[i], value.length);
		ck_assert_int_eq(
		    dci_snapshot_find(class, snapshot, &sorted[i]), (long)i);
		ck_assert_int_eq(
		    snapshot->instances[i].created_milliseconds, 1234);
	}
	ck_assert_int_eq(
	    dci_snapshot_find(class, snapshot, (const uint32_t[]){2}), -1);
	ck_assert_int_eq(
	    dci_snapshot_find(class, snapshot, (const uint32_t[]){0}), -1);
	ck_assert_int_eq(
	    dci_snapshot_find(class, snapshot, (const uint32_t[]){6}), -1);
	dci_registry_free(registry);
}
END_TEST

START_TEST(commit_sorts_multiword_ids_word_by_word)
{
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DISKID, 4},
	    {DCI_ITYPE_DEVICE, 8},
	};
	static const uint32_t ids[][3] = {
	    {2, 0, 1}, {1, 7, 8}, {1, 0xffffffffu, 0}, {1, 7, 2}, {0, 9, 9}};
	static const uint32_t sorted[][3] = {
	    {0, 9, 9}, {1, 7, 2}, {1, 7, 8}, {1, 0xffffffffu, 0}, {2, 0, 1}};
	struct dci_datum_info datums[] = {gauge(1, "queue")};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class =
	    accepted_alone(registry, netif_id, 2, "disk", levels, 2, datums, 1);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);

	ck_assert_uint_eq(class->instance_words, 3);
	for (size_t i = 0; i < COUNT_OF(ids); i++) {
		char label[16];
		long row;
		snprintf(label, sizeof(label), "d%zu", i);
		row = fx_add(builder, ids[i], 3, label);
		fx_set_unsigned(builder, row, 1, ids[i][0] * 100 + ids[i][2]);
	}
	fx_commit(builder, class, 1);
	ck_assert_uint_eq(class->snapshot->count, COUNT_OF(sorted));
	for (size_t i = 0; i < COUNT_OF(sorted); i++) {
		ck_assert_mem_eq(
		    dci_snapshot_instance_id(class, class->snapshot, i),
		    sorted[i], sizeof(sorted[i]));
		ck_assert_uint_eq(read_number(class, i, 1),
		    sorted[i][0] * 100 + sorted[i][2]);
		ck_assert_int_eq(
		    dci_snapshot_find(class, class->snapshot, sorted[i]),
		    (long)i);
	}
	dci_registry_free(registry);
}
END_TEST

START_TEST(duplicate_instance_refuses_commit_and_keeps_previous)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	const struct dci_snapshot *kept;
	char why[WHY_SIZE] = "";
	long row;

	row = fx_add(builder, (const uint32_t[]){1}, 1, "eth0");
	fx_set_unsigned(builder, row, 2, 111);
	row = fx_add(builder, (const uint32_t[]){2}, 1, "eth1");
	fx_set_unsigned(builder, row, 2, 222);
	fx_commit(builder, class, 1000);
	kept = class->snapshot;

	builder = dci_snapshot_builder_new(class);
	row = fx_add(builder, (const uint32_t[]){3}, 1, "first");
	fx_set_unsigned(builder, row, 2, 999);
	row = fx_add(builder, (const uint32_t[]){1}, 1, "eth0");
	fx_set_unsigned(builder, row, 2, 999);
	row = fx_add(builder, (const uint32_t[]){3}, 1, "second");
	fx_set_unsigned(builder, row, 2, 999);
	ck_assert_int_eq(
	    dci_snapshot_commit(builder, class, 2000, why, sizeof(why)), -1);
	/* Which label is named first depends on qsort; both are named. */
	ck_assert_msg(
	    strcmp(why, "class \"netif\": instance id 3 added twice "
	                "(\"first\" and \"second\"); snapshot refused") == 0 ||
	        strcmp(why,
	            "class \"netif\": instance id 3 added twice "
	            "(\"second\" and \"first\"); snapshot refused") == 0,
	    "unexpected message \"%s\"", why);

	ck_assert_ptr_eq(class->snapshot, kept);
	ck_assert_uint_eq(class->snapshot->count, 2);
	ck_assert_int_eq(class->snapshot->taken_milliseconds, 1000);
	ck_assert_str_eq(class->snapshot->instances[0].label, "eth0");
	ck_assert_str_eq(class->snapshot->instances[1].label, "eth1");
	ck_assert_uint_eq(read_number(class, 0, 2), 111);
	ck_assert_uint_eq(read_number(class, 1, 2), 222);
	dci_registry_free(registry);
}
END_TEST

START_TEST(instance_keeps_creation_time_across_commits)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	const struct dci_snapshot *snapshot;

	fx_add(builder, (const uint32_t[]){1}, 1, "eth0");
	fx_add(builder, (const uint32_t[]){2}, 1, "eth1");
	fx_commit(builder, class, 1000);

	/* eth1 gone, eth2 new, eth0 stays (renamed). */
	builder = dci_snapshot_builder_new(class);
	fx_add(builder, (const uint32_t[]){3}, 1, "eth2");
	fx_add(builder, (const uint32_t[]){1}, 1, "wan0");
	fx_commit(builder, class, 2000);
	snapshot = class->snapshot;
	ck_assert_uint_eq(snapshot->count, 2);
	ck_assert_uint_eq(dci_snapshot_instance_id(class, snapshot, 0)[0], 1);
	ck_assert_str_eq(snapshot->instances[0].label, "wan0");
	ck_assert_int_eq(snapshot->instances[0].created_milliseconds, 1000);
	ck_assert_int_eq(
	    snapshot->instances[0].discontinuity_milliseconds, 1000);
	ck_assert_uint_eq(dci_snapshot_instance_id(class, snapshot, 1)[0], 3);
	ck_assert_int_eq(snapshot->instances[1].created_milliseconds, 2000);
	ck_assert_int_eq(
	    snapshot->instances[1].discontinuity_milliseconds, 2000);

	/* eth1 comes back: it is a new instance, created now. */
	builder = dci_snapshot_builder_new(class);
	fx_add(builder, (const uint32_t[]){2}, 1, "eth1");
	fx_add(builder, (const uint32_t[]){1}, 1, "wan0");
	fx_add(builder, (const uint32_t[]){3}, 1, "eth2");
	fx_commit(builder, class, 3000);
	snapshot = class->snapshot;
	ck_assert_uint_eq(snapshot->count, 3);
	ck_assert_int_eq(snapshot->instances[0].created_milliseconds, 1000);
	ck_assert_int_eq(snapshot->instances[1].created_milliseconds, 3000);
	ck_assert_int_eq(snapshot->instances[2].created_milliseconds, 2000);
	ck_assert_int_eq(snapshot->taken_milliseconds, 3000);
	dci_registry_free(registry);
}
END_TEST

/* The first `count` instances of the class's snapshot (in id order) had
 * their last discontinuity at `expected`. */
static void
assert_discontinuities(
    const struct dci_class *class, const int64_t *expected, size_t count)
{
	for (size_t i = 0; i < count; i++)
		ck_assert_msg(
		    class->snapshot->instances[i].discontinuity_milliseconds ==
		        expected[i],
		    "instance %zu: discontinuity at %lld ms, not %lld", i,
		    (long long)class->snapshot->instances[i]
		        .discontinuity_milliseconds,
		    (long long)expected[i]);
}

START_TEST(counter_going_backwards_marks_discontinuity)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	const struct dci_snapshot *snapshot;
	long row;

	/* 1: counter64 grows; 2: counter64 goes back; 3: counter32 goes back
	 * by less than half its range (a reset, not a wrap: see
	 * test_counters); 4: only the gauge goes down; 5: counter unset
	 * before, set now. */
	for (uint32_t id = 1; id <= 5; id++) {
		row = fx_add(builder, &id, 1, "x");
		if (id != 5)
			fx_set_unsigned(builder, row, 2, UINT64_C(5000000000));
		fx_set_unsigned(builder, row, 5, 50);
		fx_set_unsigned(builder, row, 6, 4000000000u);
	}
	fx_commit(builder, class, 1000);

	builder = dci_snapshot_builder_new(class);
	for (uint32_t id = 1; id <= 5; id++) {
		row = fx_add(builder, &id, 1, "x");
		fx_set_unsigned(builder, row, 2,
		    id == 2 ? UINT64_C(4999999999) : UINT64_C(5000000001));
		fx_set_unsigned(builder, row, 5, id == 4 ? 1 : 50);
		fx_set_unsigned(
		    builder, row, 6, id == 3 ? 3000000000u : 4000000000u);
	}
	fx_commit(builder, class, 2000);
	snapshot = class->snapshot;
	assert_discontinuities(
	    class, (const int64_t[]){1000, 2000, 2000, 1000, 1000}, 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_int_eq(
		    snapshot->instances[i].created_milliseconds, 1000);

	/* The discontinuity time carries over while counters grow again. */
	builder = dci_snapshot_builder_new(class);
	for (uint32_t id = 1; id <= 5; id++) {
		row = fx_add(builder, &id, 1, "x");
		fx_set_unsigned(builder, row, 2, UINT64_C(6000000000));
		fx_set_unsigned(builder, row, 6, 4000000001u);
	}
	fx_commit(builder, class, 3000);
	assert_discontinuities(class, (const int64_t[]){1000, 2000, 2000}, 3);
	dci_registry_free(registry);
}
END_TEST

START_TEST(signed_counter_growing_through_zero_is_continuous)
{
	/* A signed counter that grows from -1 to 5 did not go backwards. */
	struct dci_datum_info datums[] = {fx_datum(
	    1, "balance", DCI_ST_INTEGER32, 0, 0, DCI_SEMANTICS_COUNTER)};
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = accepted_alone(
	    registry, netif_id, 2, "acct", one_level, 1, datums, 1);
	struct dci_snapshot_builder *builder;
	long row;

	builder = dci_snapshot_builder_new(class);
	row = fx_add(builder, (const uint32_t[]){1}, 1, "grows");
	fx_set_signed(builder, row, 1, -1);
	row = fx_add(builder, (const uint32_t[]){2}, 1, "falls");
	fx_set_signed(builder, row, 1, 5);
	fx_commit(builder, class, 1000);
	builder = dci_snapshot_builder_new(class);
	row = fx_add(builder, (const uint32_t[]){1}, 1, "grows");
	fx_set_signed(builder, row, 1, 5);
	row = fx_add(builder, (const uint32_t[]){2}, 1, "falls");
	fx_set_signed(builder, row, 1, -1);
	fx_commit(builder, class, 2000);
	/* "grows" (-1 -> 5) keeps 1000; "falls" (5 -> -1) is marked 2000.
	 * Both are reported in one message: the comparison must be signed
	 * for a signed datum. */
	ck_assert_msg(
	    class->snapshot->instances[0].discontinuity_milliseconds == 1000 &&
	        class->snapshot->instances[1].discontinuity_milliseconds ==
	            2000,
	    "signed counter: -1 -> 5 gave discontinuity %lld (want 1000), "
	    "5 -> -1 gave %lld (want 2000)",
	    (long long)class->snapshot->instances[0].discontinuity_milliseconds,
	    (long long)class->snapshot->instances[1]
	        .discontinuity_milliseconds);
	dci_registry_free(registry);
}
END_TEST

START_TEST(unset_datum_not_present)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	long row;

	row = fx_add(builder, (const uint32_t[]){1}, 1, "eth0");
	fx_set_unsigned(builder, row, 5, 0); /* zero is a value */
	row = fx_add(builder, (const uint32_t[]){2}, 1, "eth1");
	fx_set_unsigned(builder, row, 2, 42);
	fx_commit(builder, class, 10);
	ck_assert(!dci_snapshot_present(
	    class, class->snapshot, 0, dci_class_find_datum(class, 2)));
	ck_assert(dci_snapshot_present(
	    class, class->snapshot, 0, dci_class_find_datum(class, 5)));
	ck_assert_uint_eq(read_number(class, 0, 5), 0);
	ck_assert(!dci_snapshot_present(
	    class, class->snapshot, 0, dci_class_find_datum(class, 1)));
	ck_assert(!dci_snapshot_present(
	    class, class->snapshot, 0, dci_class_find_datum(class, 6)));
	ck_assert(dci_snapshot_present(
	    class, class->snapshot, 1, dci_class_find_datum(class, 2)));
	ck_assert_uint_eq(read_number(class, 1, 2), 42);
	ck_assert(!dci_snapshot_present(
	    class, class->snapshot, 1, dci_class_find_datum(class, 5)));
	dci_registry_free(registry);
}
END_TEST

START_TEST(empty_commit_replaces_snapshot)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);

	fx_add(builder, (const uint32_t[]){1}, 1, "eth0");
	fx_commit(builder, class, 10);
	ck_assert_uint_eq(class->snapshot->count, 1);
	fx_commit(dci_snapshot_builder_new(class), class, 20);
	ck_assert_ptr_nonnull(class->snapshot);
	ck_assert_uint_eq(class->snapshot->count, 0);
	ck_assert_int_eq(class->snapshot->taken_milliseconds, 20);
	ck_assert_int_eq(
	    dci_snapshot_find(class, class->snapshot, (const uint32_t[]){1}),
	    -1);
	dci_registry_free(registry);
}
END_TEST

START_TEST(builder_grows_past_initial_capacity)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = snapshot_class(registry);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);
	const uint32_t count = 1000;

	for (uint32_t i = 0; i < count; i++) {
		uint32_t id = count - i; /* descending */
		long row = fx_add(builder, &id, 1, "x");
		ck_assert_int_eq(row, (long)i);
		fx_set_unsigned(builder, row, 2, (uint64_t)id * 3);
	}
	fx_commit(builder, class, 10);
	ck_assert_uint_eq(class->snapshot->count, count);
	for (uint32_t i = 0; i < count; i++) {
		ck_assert_uint_eq(
		    dci_snapshot_instance_id(class, class->snapshot, i)[0],
		    i + 1);
		ck_assert_uint_eq(
		    read_number(class, i, 2), (uint64_t)(i + 1) * 3);
	}
	dci_registry_free(registry);
}
END_TEST

/* Supplier names reserved for configured providers: a configured name
 * wins over an earlier registration's reservation; a registration's does
 * not replace another holder's; retaining a configuration drops the
 * reservations of providers no longer in it. */
START_TEST(supplier_reservations_held_replaced_and_dropped)
{
	struct dci_registry *registry = dci_registry_new();
	static const char *const kept[] = {"/lib/example.so"};

	ck_assert_ptr_null(dci_registry_supplier_holder(registry, "example"));
	ck_assert_int_eq(dci_registry_reserve_supplier(
	                     registry, "example", "suppliers", false),
	    0);
	ck_assert_str_eq(
	    dci_registry_supplier_holder(registry, "example"), "suppliers");
	/* The configuration's own name wins. */
	ck_assert_int_eq(dci_registry_reserve_supplier(
	                     registry, "example", "/lib/example.so", true),
	    0);
	ck_assert_str_eq(dci_registry_supplier_holder(registry, "example"),
	    "/lib/example.so");
	/* A registration does not take it over. */
	ck_assert_int_eq(dci_registry_reserve_supplier(
	                     registry, "example", "suppliers", false),
	    0);
	ck_assert_str_eq(dci_registry_supplier_holder(registry, "example"),
	    "/lib/example.so");
	ck_assert_int_eq(
	    dci_registry_reserve_supplier(registry, "app", "suppliers", false),
	    0);
	ck_assert_uint_eq(registry->reservation_count, 2);
	/* A new configuration without the suppliers provider. */
	dci_registry_reservations_retain(registry, kept, 1);
	ck_assert_uint_eq(registry->reservation_count, 1);
	ck_assert_ptr_null(dci_registry_supplier_holder(registry, "app"));
	ck_assert_str_eq(dci_registry_supplier_holder(registry, "example"),
	    "/lib/example.so");
	dci_registry_reservations_retain(registry, NULL, 0);
	ck_assert_uint_eq(registry->reservation_count, 0);
	dci_registry_free(registry);
}
END_TEST

static Suite *
registry_suite(void)
{
	Suite *suite = suite_create("registry");
	TCase *ids = tcase_create("class ids");
	TCase *levels = tcase_create("instance levels");
	TCase *datums = tcase_create("datums");
	TCase *labels = tcase_create("labels");
	TCase *accepted = tcase_create("accepted");
	TCase *snapshots = tcase_create("snapshots");

	tcase_add_test(ids, class_id_without_levels_refused);
	tcase_add_test(ids, class_id_of_17_levels_refused);
	tcase_add_test(ids, class_id_level_all_wildcard_refused);
	tcase_add_test(ids, class_id_collision_refused);
	tcase_add_test(ids, subclass_under_instantiated_class_refused);
	tcase_add_test(ids, instantiated_class_above_registered_refused);
	tcase_add_test(ids, sibling_and_unrelated_classes_accepted);
	suite_add_tcase(suite, ids);

	tcase_add_test(levels, no_instance_levels_refused);
	tcase_add_loop_test(levels,
	    instance_level_size_not_multiple_of_4_refused, 0,
	    (int)COUNT_OF(bad_level_sizes));
	tcase_add_test(levels, instance_id_longer_than_16_words_refused);
	suite_add_tcase(suite, levels);

	tcase_add_test(datums, datum_id_zero_refused);
	tcase_add_test(datums, datum_id_all_ones_refused);
	tcase_add_test(datums, no_datums_refused);
	tcase_add_test(datums, duplicate_datum_ids_refused);
	tcase_add_test(datums, duplicate_datum_labels_refused);
	tcase_add_test(datums, datum_refused_by_value_module);
	suite_add_tcase(suite, datums);

	tcase_add_loop_test(labels, reserved_character_in_class_label_refused,
	    0, (int)strlen(reserved));
	tcase_add_loop_test(labels, reserved_character_in_datum_label_refused,
	    0, (int)strlen(reserved));
	tcase_add_loop_test(labels,
	    reserved_character_in_supplier_module_refused, 0,
	    (int)strlen(reserved));
	tcase_add_loop_test(labels, non_printing_character_in_labels_refused, 0,
	    (int)COUNT_OF(non_printing));
	tcase_add_test(labels, blank_inside_label_accepted);
	tcase_add_test(labels, empty_label_refused);
	tcase_add_test(labels, label_longer_than_255_refused);
	tcase_add_test(labels, duplicate_supplier_refused);
	tcase_add_test(labels, supplier_reservations_held_replaced_and_dropped);
	suite_add_tcase(suite, labels);

	tcase_add_test(accepted, valid_class_accepted);
	tcase_add_test(accepted, classes_sorted_by_length_then_id);
	tcase_add_test(accepted, datums_sorted_and_found);
	tcase_add_test(accepted, record_offsets_aligned_and_disjoint);
	tcase_add_test(accepted, supplier_indexes_in_registration_order);
	suite_add_tcase(suite, accepted);

	tcase_add_test(snapshots, builder_add_refuses_bad_id_and_label);
	tcase_add_loop_test(snapshots, instance_label_escaped, 0,
	    (int)(sizeof(escape_cases) / sizeof(escape_cases[0])));
	tcase_add_test(snapshots, instance_label_cut_to_fit);
	tcase_add_loop_test(snapshots,
	    instance_label_may_hold_reserved_characters, 0,
	    (int)strlen(instance_label_characters));
	tcase_add_test(
	    snapshots, builder_setters_refuse_unknown_datum_and_bad_row);
	tcase_add_test(snapshots, commit_sorts_instances_by_id);
	tcase_add_test(snapshots, commit_sorts_multiword_ids_word_by_word);
	tcase_add_test(
	    snapshots, duplicate_instance_refuses_commit_and_keeps_previous);
	tcase_add_test(snapshots, instance_keeps_creation_time_across_commits);
	tcase_add_test(snapshots, counter_going_backwards_marks_discontinuity);
	tcase_add_test(
	    snapshots, signed_counter_growing_through_zero_is_continuous);
	tcase_add_test(snapshots, unset_datum_not_present);
	tcase_add_test(snapshots, empty_commit_replaces_snapshot);
	tcase_add_test(snapshots, builder_grows_past_initial_capacity);
	tcase_add_test(snapshots, invalid_mark_removes_a_value);
	tcase_add_test(snapshots, parent_links_kept_in_sorted_snapshot);
	tcase_add_test(snapshots, parent_missing_or_self_is_dropped);
	tcase_add_test(snapshots, parent_cycle_is_broken_once);
	tcase_add_test(snapshots, parent_refused_for_bad_row_or_id_length);
	tcase_add_test(snapshots, parents_survive_builder_growth);
	suite_add_tcase(suite, snapshots);
	return suite;
}

int
main(void)
{
	return unit_run_suite(registry_suite());
}
