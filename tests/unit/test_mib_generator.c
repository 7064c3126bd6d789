/*
 * Unit tests for src/mib/mib_generator.c: descriptor mangling, module
 * name rules, clash and length errors, index objects, syntaxes and the
 * whole module for the example provider's class (loaded from the build
 * tree through the loader), compared with tests/unit/expected/.
 */
#define _GNU_SOURCE
#include "mib/mib_generator.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "runtime/loader.h"
#include "fixtures.h"

#ifndef TEST_EXAMPLE_PROVIDER
#error "TEST_EXAMPLE_PROVIDER must name the example provider's plug-in"
#endif
#ifndef TEST_EXPECTED_DIR
#error "TEST_EXPECTED_DIR must name tests/unit/expected"
#endif

static char error[2048];

/* The text with every run of blanks and newlines made one blank, so that
 * a phrase can be found wherever the generator wrapped its lines. */
static char *
squeeze(const char *text)
{
	char *copy = malloc(strlen(text) + 1), *out = copy;
	bool blank = false;

	ck_assert_ptr_nonnull(copy);
	for (const char *cursor = text; *cursor != '\0'; cursor++) {
		if (*cursor == ' ' || *cursor == '\n') {
			blank = true;
			continue;
		}
		if (blank && out != copy)
			*out++ = ' ';
		blank = false;
		*out++ = *cursor;
	}
	*out = '\0';
	return copy;
}

#define ck_assert_has(text, phrase)                                            \
	do {                                                                   \
		char *squeezed_ = squeeze(text);                               \
		ck_assert_msg(strstr(squeezed_, (phrase)) != NULL,             \
		    "module lacks \"%s\"", (phrase));                          \
		free(squeezed_);                                               \
	} while (0)

#define ck_assert_lacks(text, phrase)                                          \
	do {                                                                   \
		char *squeezed_ = squeeze(text);                               \
		ck_assert_msg(strstr(squeezed_, (phrase)) == NULL,             \
		    "module has \"%s\"", (phrase));                            \
		free(squeezed_);                                               \
	} while (0)

START_TEST(camel_case_splits_on_non_alphanumerics)
{
	static const struct fx_name_case names[] = {
	    {"rx_bytes", "RxBytes"},
	    {"int8_decimal", "Int8Decimal"},
	    {"bytes in  use", "BytesInUse"},
	    {"__x__y", "XY"},
	    {"oper-up/down+1", "OperUpDown1"},
	    {"ifInOctets", "IfInOctets"},
	    {"64bit_counter", "64bitCounter"},
	    {"a1b2", "A1b2"},
	    {"___", ""},
	};

	fx_assert_names(mib_generator_camel_case, names, COUNT_OF(names));
	/* Truncated like snprintf, returning the length it needed. */
	fx_assert_name_truncated(
	    mib_generator_camel_case, "rx_bytes", 4, 7, "RxB");
}
END_TEST

START_TEST(descriptor_is_dci_class_label)
{
	char name[AGENT_MIB_DESCRIPTOR_MAX + 1], why[512];

	ck_assert_int_eq(mib_generator_descriptor("netif", "rx_bytes", name,
	                     sizeof(name), why, sizeof(why)),
	    0);
	ck_assert_str_eq(name, "dciNetifRxBytes");
	/* A leading digit is fine after "dci" and the class. */
	ck_assert_int_eq(mib_generator_descriptor("example", "8bit counter", name,
	                     sizeof(name), why, sizeof(why)),
	    0);
	ck_assert_str_eq(name, "dciExample8bitCounter");
	ck_assert_int_eq(mib_generator_descriptor("disk io", "queue_depth_2", name,
	                     sizeof(name), why, sizeof(why)),
	    0);
	ck_assert_str_eq(name, "dciDiskIoQueueDepth2");
	ck_assert_int_eq(mib_generator_descriptor("netif", "table", name,
	                     sizeof(name), why, sizeof(why)),
	    0);
	ck_assert_str_eq(name, "dciNetifTable");
}
END_TEST

START_TEST(descriptor_of_64_characters_and_no_more)
{
	char name[AGENT_MIB_DESCRIPTOR_MAX + 1], why[512], label[128];
	char expected[512];

	/* "dci" + "C" + 60 letters = 64 characters. */
	memset(label, 'a', 60);
	label[60] = '\0';
	ck_assert_int_eq(mib_generator_descriptor(
	                     "c", label, name, sizeof(name), why, sizeof(why)),
	    0);
	ck_assert_uint_eq(strlen(name), 64);
	ck_assert_str_eq(name + 60, "aaaa");
	ck_assert_int_eq(strncmp(name, "dciCAaaa", 8), 0);

	label[60] = 'a';
	label[61] = '\0';
	ck_assert_int_eq(mib_generator_descriptor(
	                     "c", label, name, sizeof(name), why, sizeof(why)),
	    -1);
	/* The message names the datum and shows the first 64 characters. */
	snprintf(expected, sizeof(expected),
	    "class c datum %s: descriptor dciCA%.59s... has 65 characters, "
	    "more than 64",
	    label, label);
	ck_assert_str_eq(why, expected);

	ck_assert_int_eq(mib_generator_descriptor(
	                     "c", "__", name, sizeof(name), why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "class c datum __: label \"__\" has no letter or "
	                      "digit to make a descriptor of");
}
END_TEST

START_TEST(module_names)
{
	char why[512], long_name[80];

	ck_assert(mib_generator_module_name_valid("DCI-NETIF-MIB", why, 512));
	ck_assert(mib_generator_module_name_valid("A", why, sizeof(why)));
	ck_assert(mib_generator_module_name_valid("X1-2B", why, sizeof(why)));
	ck_assert(mib_generator_module_name_valid("Abc-dEF", why, sizeof(why)));

	ck_assert(!mib_generator_module_name_valid("", why, sizeof(why)));
	ck_assert_str_eq(why, "module name is empty");
	ck_assert(!mib_generator_module_name_valid("dci-mib", why, sizeof(why)));
	ck_assert_str_eq(
	    why, "module name dci-mib must start with an upper-case letter");
	ck_assert(!mib_generator_module_name_valid("1MIB", why, sizeof(why)));
	ck_assert_str_eq(
	    why, "module name 1MIB must start with an upper-case letter");
	ck_assert(!mib_generator_module_name_valid("DCI--MIB", why, sizeof(why)));
	ck_assert_str_eq(why, "module name DCI--MIB has two hyphens in a row "
	                      "at 4 (they start an ASN.1 comment)");
	ck_assert(!mib_generator_module_name_valid("DCI-MIB-", why, sizeof(why)));
	ck_assert_str_eq(why, "module name DCI-MIB- ends with a hyphen");
	ck_assert(!mib_generator_module_name_valid("DCI_MIB", why, sizeof(why)));
	ck_assert_str_eq(why, "module name DCI_MIB has character 0x5f at 4: "
	                      "only letters, digits and hyphens are allowed");
	ck_assert(!mib_generator_module_name_valid("DCI MIB", why, sizeof(why)));

	memset(long_name, 'A', 64);
	long_name[64] = '\0';
	ck_assert(mib_generator_module_name_valid(long_name, why, sizeof(why)));
	long_name[64] = 'B';
	long_name[65] = '\0';
	ck_assert(!mib_generator_module_name_valid(long_name, why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "has 65 characters, more than 64"));
}
END_TEST

/* A registry with one class `label`, id {9, id_last}, of the given levels
 * and datums. */
static struct dci_registry *
one_class_registry(const char *label, uint32_t id_last,
    const struct dci_instance_level *levels, size_t level_count,
    const struct dci_datum_info *datums, size_t datum_count)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_supplier *supplier;
	uint32_t id[] = {9, id_last};
	struct dci_class_info info;

	ck_assert_ptr_nonnull(registry);
	supplier = fx_supplier(registry, "test");
	info = fx_class_info(
	    id, 2, label, levels, level_count, datums, datum_count);
	fx_class(registry, supplier, &info);
	return registry;
}

static const struct dci_instance_level one_device[] = {
    {.itype = DCI_ITYPE_DEVICE, .size = 4},
};

/* Generation of a one-class registry that must fail; returns `error`. */
static const char *
generate_error(
    const char *label, const struct dci_datum_info *datums, size_t datum_count)
{
	struct dci_registry *registry =
	    one_class_registry(label, 1, one_device, 1, datums, datum_count);
	char *text;

	error[0] = '\0';
	text = mib_generator_generate(registry, "TEST-MIB", error, sizeof(error));
	ck_assert_ptr_null(text);
	dci_registry_free(registry);
	return error;
}

START_TEST(clash_names_both_datums)
{
	struct dci_datum_info datums[] = {
	    fx_datum(1, "rx_bytes", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(2, "rx bytes", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	};

	ck_assert_str_eq(generate_error("netif", datums, 2),
	    "class netif datum rx_bytes and class netif datum rx bytes both "
	    "give the descriptor dciNetifRxBytes");
}
END_TEST

START_TEST(clash_in_case_only)
{
	struct dci_datum_info datums[] = {
	    fx_datum(1, "rxbytes", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(2, "rx_bytes", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	};

	ck_assert_str_eq(generate_error("netif", datums, 2),
	    "class netif datum rxbytes and class netif datum rx_bytes give "
	    "the descriptors dciNetifRxbytes and dciNetifRxBytes, which "
	    "differ only in case");
}
END_TEST

START_TEST(clash_with_table_index_and_import)
{
	struct dci_datum_info table[] = {
	    fx_datum(1, "table", DCI_ST_INTEGER32, 0, 0, DCI_SEMANTICS_GAUGE),
	};
	struct dci_datum_info device[] = {
	    fx_datum(1, "device", DCI_ST_INTEGER32, 0, 0, DCI_SEMANTICS_GAUGE),
	};
	struct dci_datum_info data[] = {
	    fx_datum(1, "data", DCI_ST_INTEGER32, 0, 0, DCI_SEMANTICS_GAUGE),
	};

	ck_assert_str_eq(generate_error("netif", table, 1),
	    "class netif table and class netif datum table both give the "
	    "descriptor dciNetifTable");
	ck_assert_str_eq(generate_error("netif", device, 1),
	    "class netif datum device and class netif: the index of instance "
	    "level 1 both give the descriptor dciNetifDevice");
	ck_assert_str_eq(generate_error("class", data, 1),
	    "DCI-STATS-MIB's dciClassData and class class datum data both "
	    "give the descriptor dciClassData");
}
END_TEST

START_TEST(long_descriptor_in_a_class_names_the_datum)
{
	struct dci_datum_info datums[] = {
	    fx_datum(1, "short", DCI_ST_INTEGER32, 0, 0, DCI_SEMANTICS_GAUGE),
	    fx_datum(2,
	        "a_very_long_datum_label_that_goes_on_and_on_far_beyond_the_"
	        "limit_of_sixty_four",
	        DCI_ST_INTEGER32, 0, 0, DCI_SEMANTICS_GAUGE),
	};

	ck_assert_str_eq(generate_error("netif", datums, 2),
	    "class netif datum a_very_long_datum_label_that_goes_on_and_on_"
	    "far_beyond_the_limit_of_sixty_four: descriptor "
	    "dciNetifAVeryLongDatumLabelThatGoesOnAndOnFarBeyondTheLimitOfSix"
	    "... has 70 characters, more than 64");
}
END_TEST

START_TEST(bad_module_name_and_empty_registry)
{
	struct dci_registry *registry = dci_registry_new();

	ck_assert_ptr_null(
	    mib_generator_generate(registry, "bad-mib", error, sizeof(error)));
	ck_assert_str_eq(
	    error, "module name bad-mib must start with an upper-case letter");
	ck_assert_ptr_null(
	    mib_generator_generate(registry, "GOOD-MIB", error, sizeof(error)));
	ck_assert_str_eq(error, "no class to describe: the configuration's "
	                        "providers registered none");
	dci_registry_free(registry);
}
END_TEST

START_TEST(class_without_served_datum_is_left_out)
{
	struct dci_datum_info unused[] = {
	    fx_datum(
	        1, "reserved", DCI_ST_UNUSED, 0, 0, DCI_SEMANTICS_DISCRETE),
	};

	ck_assert_str_eq(generate_error("spare", unused, 1),
	    "no class to describe: no registered class has a datum SNMP can "
	    "carry");
}
END_TEST

START_TEST(index_objects_per_word_and_level)
{
	static const struct dci_instance_level disk_levels[] = {
	    {.itype = DCI_ITYPE_DISKID, .size = 4},
	    {.itype = DCI_ITYPE_DISKID, .size = 4},
	    {.itype = DCI_ITYPE_EVENT, .size = 8},
	};
	/* 2147483646 is taken: the index columns skip it. */
	struct dci_datum_info datums[] = {
	    fx_datum(7, "reads", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(2147483646u, "high", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	};
	struct dci_registry *registry =
	    one_class_registry("disk io", 3, disk_levels, 3, datums, 2);
	char *text =
	    mib_generator_generate(registry, "DCI-DISK-MIB", error, sizeof(error));

	ck_assert_msg(text != NULL, "%s", error);
	ck_assert_has(text, "INDEX { dciDiskIoDiskid1, dciDiskIoDiskid2, "
	                    "dciDiskIoEventWord1, dciDiskIoEventWord2 }");
	ck_assert_has(text, "dciDiskIoDiskid1 OBJECT-TYPE SYNTAX Unsigned32 "
	                    "(0..4294967295) MAX-ACCESS not-accessible");
	ck_assert_has(text, "::= { dciDiskIoEntry 2147483643 }");
	ck_assert_has(text, "a disk identifier (UMA_DISKID). An index only");
	ck_assert_has(text, "instance level 3, its word 2 of 2, an event "
	                    "counter.");
	ck_assert_has(text, "dciDiskIoEventWord2 OBJECT-TYPE");
	ck_assert_has(text, "::= { dciDiskIoEntry 2147483647 }");
	ck_assert_has(text, "dciDiskIoHigh OBJECT-TYPE SYNTAX Gauge32");
	ck_assert_has(text, "::= { dciDiskIoEntry 2147483646 }");
	/* Columns in number order, the index words in word order. */
	ck_assert_has(text,
	    "DciDiskIoEntry ::= SEQUENCE { dciDiskIoReads Counter64, "
	    "dciDiskIoDiskid1 Unsigned32, dciDiskIoDiskid2 Unsigned32, "
	    "dciDiskIoEventWord1 Unsigned32, dciDiskIoHigh Gauge32, "
	    "dciDiskIoEventWord2 Unsigned32 }");
	/* Identity, arcs and table OIDs. */
	ck_assert_has(text, "dciDiskMIB MODULE-IDENTITY");
	ck_assert_has(text, "::= { dciClassModules9 3 }");
	ck_assert_has(text,
	    "dciClassModules9 OBJECT IDENTIFIER ::= { dciClassModules 9 }");
	ck_assert_has(
	    text, "dciClassData9 OBJECT IDENTIFIER ::= { dciClassData 9 }");
	ck_assert_has(text, "dciDiskIoTable OBJECT-TYPE SYNTAX SEQUENCE OF "
	                    "DciDiskIoEntry");
	ck_assert_has(text, "dciClassData.9.3.\" ::= { dciClassData9 3 }");
	ck_assert_has(text, "OBJECTS { dciDiskIoReads, dciDiskIoHigh }");
	free(text);
	dci_registry_free(registry);
}
END_TEST

START_TEST(derived_datums_and_syntaxes)
{
	struct dci_datum_info datums[] = {
	    fx_datum(1, "rx_bytes", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(2, "tx_bytes", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(3, "level", DCI_ST_INTEGER16, 0, 0, DCI_SEMANTICS_GAUGE),
	    /* sum2 of 1 and 2; percent of 1 and 2; difference of 3 and 1. */
	    {.id = 0x01020004u,
	        .label = "bytes",
	        .type = DCI_ST_DERIVED,
	        .unit = DCI_UNIT_DERIVED_SUM2},
	    {.id = 0x01020005u,
	        .label = "rx_share",
	        .type = DCI_ST_DERIVED,
	        .unit = DCI_UNIT_DERIVED_PERCENT},
	    {.id = 0x03010006u,
	        .label = "level_less_rx",
	        .type = DCI_ST_DERIVED,
	        .unit = DCI_UNIT_DERIVED_DIFFERENCE},
	};
	struct dci_registry *registry;
	char *text;

	datums[0].unit = DCI_UNIT_BYTES;
	registry = one_class_registry("netif", 1, one_device, 1, datums, 6);
	text = mib_generator_generate(registry, "DCI-X-MIB", error, sizeof(error));
	ck_assert_msg(text != NULL, "%s", error);
	ck_assert_has(text, "dciNetifRxBytes OBJECT-TYPE SYNTAX Counter64 "
	                    "UNITS \"bytes\" MAX-ACCESS read-only");
	ck_assert_has(text, "dciNetifLevel OBJECT-TYPE SYNTAX Integer32 "
	                    "MAX-ACCESS");
	/* A sum of counters is a counter; derived datums get no UNITS. */
	ck_assert_has(text, "dciNetifBytes OBJECT-TYPE SYNTAX Counter64 "
	                    "MAX-ACCESS read-only");
	ck_assert_has(text,
	    "sum2 of rx_bytes and tx_bytes (rx_bytes + tx_bytes). It has no "
	    "value while the result is undefined");
	ck_assert_has(text, "A counter: only the difference between two "
	                    "readings means something, and only when "
	                    "dciInstanceDiscontinuity of DCI-STATS-MIB");
	ck_assert_has(text, "dciNetifRxShare OBJECT-TYPE SYNTAX DciHundredths "
	                    "MAX-ACCESS");
	ck_assert_has(text, "percent of rx_bytes and tx_bytes (100 * rx_bytes "
	                    "/ (rx_bytes + tx_bytes)), in hundredths.");
	ck_assert_has(text, "dciNetifLevelLessRx OBJECT-TYPE SYNTAX Integer32");
	ck_assert_has(text, "difference of level and rx_bytes (level - "
	                    "rx_bytes).");
	ck_assert_has(text, "dciClassData, dciClassModules, DciHundredths "
	                    "FROM DCI-STATS-MIB;");
	ck_assert_lacks(text, "DciGauge64");
	ck_assert_lacks(text, "UNITS \"sum2\"");
	free(text);
	dci_registry_free(registry);
}
END_TEST

/* The first line where `got` and `expected` differ, or 0. */
static int
first_different_line(const char *got, const char *expected)
{
	int line = 1;

	for (; *got != '\0' && *got == *expected; got++, expected++)
		if (*got == '\n')
			line++;
	return *got == *expected ? 0 : line;
}

static char *
read_file(const char *path)
{
	FILE *file = fopen(path, "r");
	char *text = NULL;
	size_t size = 0;

	ck_assert_msg(file != NULL, "cannot open %s", path);
	ck_assert_int_ge(getdelim(&text, &size, '\0', file), 0);
	fclose(file);
	return text;
}

START_TEST(example_module_matches_expected)
{
	const char *yaml =
	    "providers:\n  - module: " TEST_EXAMPLE_PROVIDER "\n";
	struct dci_config *config = NULL;
	struct dci_registry *registry = dci_registry_new();
	struct dci_plugins plugins = {0};
	char *text, *expected;
	int line;

	ck_assert_msg(dci_config_parse(yaml, strlen(yaml), "t.yaml", &config,
	                  error, sizeof(error)) == 0,
	    "config: %s", error);
	ck_assert_msg(dci_plugins_load(config, "/nonexistent", registry,
	                  DCI_LOAD_STRICT, &plugins, error, sizeof(error)) == 0,
	    "load: %s", error);
	ck_assert_uint_eq(registry->class_count, 1);

	text = mib_generator_generate(
	    registry, "DCI-EXAMPLE-MIB", error, sizeof(error));
	ck_assert_msg(text != NULL, "%s", error);
	expected = read_file(TEST_EXPECTED_DIR "/DCI-EXAMPLE-MIB.txt");
	line = first_different_line(text, expected);
	ck_assert_msg(line == 0,
	    "generated module differs from " TEST_EXPECTED_DIR
	    "/DCI-EXAMPLE-MIB.txt at line %d (make mibs regenerates it)",
	    line);
	/* A second run gives the same bytes. */
	free(text);
	text = mib_generator_generate(
	    registry, "DCI-EXAMPLE-MIB", error, sizeof(error));
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, expected);

	/* Spot checks of the rules, whatever the expected file says. */
	ck_assert_has(text, "dciExampleMIB MODULE-IDENTITY LAST-UPDATED "
	                    "\"" AGENT_MIB_REVISION "\"");
	ck_assert_has(text, "::= { dciClassModules2 1 }");
	ck_assert_has(text, "dciExampleTable OBJECT-TYPE SYNTAX SEQUENCE OF "
	                    "DciExampleEntry");
	ck_assert_has(text, "INDEX { dciExampleDevice }");
	ck_assert_has(text, "dciExampleBoolOnOff OBJECT-TYPE SYNTAX "
	                    "TruthValue");
	ck_assert_has(text, "dciExampleText OBJECT-TYPE SYNTAX DisplayString "
	                    "(SIZE (0..31))");
	ck_assert_has(text, "dciExampleEconetAddress OBJECT-TYPE SYNTAX OCTET "
	                    "STRING (SIZE (2))");
	ck_assert_has(text, "dciExampleInt8Decimal OBJECT-TYPE SYNTAX "
	                    "Integer32 UNITS \"count\"");
	ck_assert_has(text, "dciExampleUint8Counter OBJECT-TYPE SYNTAX "
	                    "Counter32 UNITS \"packets\"");
	ck_assert_has(text, "dciExampleUint8Decimal OBJECT-TYPE SYNTAX "
	                    "Gauge32");
	ck_assert_has(text, "dciExampleInt64Decimal OBJECT-TYPE SYNTAX "
	                    "DisplayString");
	ck_assert_has(text, "dciExampleUint64Gauge OBJECT-TYPE SYNTAX "
	                    "DciGauge64");
	ck_assert_has(text, "dciExampleUint64Counter OBJECT-TYPE SYNTAX "
	                    "Counter64");
	ck_assert_has(text, "dciExampleMacAddress OBJECT-TYPE SYNTAX "
	                    "MacAddress");
	ck_assert_has(text, "dciExampleIpAddress OBJECT-TYPE SYNTAX IpAddress");
	ck_assert_has(text, "dciExampleCtimeAbsolute OBJECT-TYPE SYNTAX "
	                    "TimeStamp MAX-ACCESS");
	ck_assert_has(text, "dciExampleCtimeRelative OBJECT-TYPE SYNTAX "
	                    "TimeTicks MAX-ACCESS");
	ck_assert_has(text, "::= { dciExampleEntry 77 }");
	ck_assert_has(text, "::= { dciExampleEntry 2147483647 }");
	/* ST_UNUSED 99 has no column. */
	ck_assert_lacks(text, "dciExampleReserved");
	ck_assert_lacks(text, "::= { dciExampleEntry 99 }");

	free(expected);
	free(text);
	dci_plugins_close(&plugins);
	dci_registry_free(registry);
	dci_config_free(config);
}
END_TEST

int
main(void)
{
	const TTest *tests[] = {
	    camel_case_splits_on_non_alphanumerics,
	    descriptor_is_dci_class_label,
	    descriptor_of_64_characters_and_no_more,
	    module_names,
	    clash_names_both_datums,
	    clash_in_case_only,
	    clash_with_table_index_and_import,
	    long_descriptor_in_a_class_names_the_datum,
	    bad_module_name_and_empty_registry,
	    class_without_served_datum_is_left_out,
	    index_objects_per_word_and_level,
	    derived_datums_and_syntaxes,
	    example_module_matches_expected,
	};

	return fx_run_tests("mib_generator", tests, COUNT_OF(tests));
}
