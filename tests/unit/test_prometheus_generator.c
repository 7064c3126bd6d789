/*
 * Unit tests for src/mib/prometheus_generator.c: module names, one
 * module per class walking its table, text datums as lookups keyed by
 * every index object, the overrides by kind (64-bit gauge, TruthValue,
 * Ethernet address, long text, signed 64-bit), and the errors (no class,
 * two classes with one module name). The shipped generator.yml of the
 * built-in providers is checked against dcistatd by
 * tests/integration/prometheus_exporter.sh.
 */
#define _GNU_SOURCE
#include "mib/prometheus_generator.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"

static char error[2048];

START_TEST(module_names_are_lower_case_words)
{
	static const struct fx_name_case names[] = {
	    {"netif", "dci_netif"},
	    {"Disk IO", "dci_disk_io"},
	    {"disk--io", "dci_disk_io"},
	    {" queue 7 ", "dci_queue_7"},
	    {"a.b/c", "dci_a_b_c"},
	};

	fx_assert_names(
	    prometheus_generator_module_name, names, COUNT_OF(names));
	/* Truncated as snprintf truncates, with the length it needed. */
	fx_assert_name_truncated(
	    prometheus_generator_module_name, "netif", 6, 9, "dci_n");
}
END_TEST

START_TEST(snake_case_names)
{
	static const struct fx_name_case names[] = {
	    {"dciNetifRxBytes", "dci_netif_rx_bytes"},
	    {"dciNetifIfIndex", "dci_netif_if_index"},
	    {"dciDevstatDiskid1", "dci_devstat_diskid1"},
	    {"dciEvcntEventWord2", "dci_evcnt_event_word2"},
	    {"dciCPUTime", "dci_cpu_time"},
	    {"dciQueue7Depth", "dci_queue7_depth"},
	    {"dciTCP", "dci_tcp"},
	};

	fx_assert_names(
	    prometheus_generator_snake_case, names, COUNT_OF(names));
	fx_assert_name_truncated(prometheus_generator_snake_case,
	    "dciNetifRxBytes", 8, 18, "dci_net");
}
END_TEST

static const struct dci_instance_level two_levels[] = {
    {.itype = DCI_ITYPE_DISKID, .size = 4},
    {.itype = DCI_ITYPE_EVENT, .size = 8},
};

/* A registry with class `label` {9, id_last} of the given datums and
 * two_levels, added to `registry` (a new one when NULL). */
static struct dci_registry *
add_class(struct dci_registry *registry, const char *label, uint32_t id_last,
    const struct dci_datum_info *datums, size_t datum_count)
{
	struct dci_supplier *supplier;
	uint32_t id[] = {9, id_last};
	struct dci_class_info info;

	if (registry == NULL) {
		registry = dci_registry_new();
		ck_assert_ptr_nonnull(registry);
	}
	supplier = fx_supplier(registry, label);
	info = fx_class_info(id, 2, label, two_levels, 2, datums, datum_count);
	fx_class(registry, supplier, &info);
	return registry;
}

START_TEST(one_module_per_class_with_lookups_and_overrides)
{
	struct dci_datum_info queue[] = {
	    fx_datum(1, "name", DCI_ST_STRING, DCI_SSF_ZEROTERM, 16,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(2, "in_flight", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	    fx_datum(3, "served", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(4, "healthy", DCI_ST_BOOLEAN, DCI_SBF_NORMAL, 0,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(5, "hwaddr", DCI_ST_ADDRESS, DCI_SAF_ETHERNET, 0,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(6, "balance", DCI_ST_INTEGER64, 0, 0, DCI_SEMANTICS_GAUGE),
	    fx_datum(7, "notes", DCI_ST_STRING, DCI_SSF_ZEROTERM, 1024,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(8, "owner", DCI_ST_STRING, DCI_SSF_ZEROTERM, 32,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(9, "depth", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	};
	struct dci_datum_info spare[] = {
	    fx_datum(1, "waiting", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	};
	struct dci_registry *registry = add_class(
	    add_class(NULL, "work queue", 4, queue, 9), "spare", 5, spare, 1);
	char *text =
	    prometheus_generator_generate(registry, error, sizeof(error));
	const char *spare_module;

	ck_assert_msg(text != NULL, "%s", error);
	ck_assert_ptr_nonnull(strstr(text, "\nmodules:\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "  # class work queue (9.4), supplier work queue: "
	                 "dciClassData.9.4\n"
	                 "  dci_work_queue:\n"
	                 "    walk:\n"
	                 "      - dciWorkQueueTable\n"
	                 "    version: 2\n"
	                 "    auth:\n"
	                 "      community: public\n"
	                 "    lookups:\n"
	                 "      - source_indexes: [dciWorkQueueDiskid, "
	                 "dciWorkQueueEventWord1, dciWorkQueueEventWord2]\n"
	                 "        lookup: dciWorkQueueName\n"
	                 "      - source_indexes: [dciWorkQueueDiskid, "
	                 "dciWorkQueueEventWord1, dciWorkQueueEventWord2]\n"
	                 "        lookup: dciWorkQueueOwner\n"
	                 "    overrides:\n"
	                 "      dciWorkQueueName:\n"
	                 "        ignore: true\n"
	                 "      dciWorkQueueInFlight:\n"
	                 "        type: gauge\n"
	                 "      dciWorkQueueHealthy:\n"
	                 "        type: DisplayString\n"
	                 "        regex_extracts:\n"
	                 "          '':\n"
	                 "            - regex: '1'\n"
	                 "              value: '1'\n"
	                 "            - regex: '2'\n"
	                 "              value: '0'\n"
	                 "      dciWorkQueueHwaddr:\n"
	                 "        type: PhysAddress48\n"
	                 "      dciWorkQueueBalance:\n"
	                 "        regex_extracts:\n"
	                 "          '':\n"
	                 "            - regex: '(-?[0-9]+)'\n"
	                 "              value: '$1'\n"
	                 "      dciWorkQueueNotes:\n"
	                 "        type: DisplayString\n"
	                 "      dciWorkQueueOwner:\n"
	                 "        ignore: true\n"
	                 "      dciWorkQueueDiskid:\n"
	                 "        ignore: true\n"));
	/* A counter and a Gauge32 are right as the module says. */
	ck_assert_ptr_null(strstr(text, "dciWorkQueueServed"));
	ck_assert_ptr_null(strstr(text, "dciWorkQueueDepth"));
	/* The second class: its own module, no lookups. */
	spare_module = strstr(text, "  dci_spare:\n");
	ck_assert_ptr_nonnull(spare_module);
	ck_assert_ptr_null(strstr(spare_module, "lookups:"));
	ck_assert_ptr_nonnull(strstr(spare_module, "      - dciSpareTable\n"
	                                           "    version: 2\n"));
	free(text);
	dci_registry_free(registry);
}
END_TEST

/* prometheus.yml: a job per class; each metric renamed (a counter with
 * _total, a gauge without), each label mapped and the camelCase one
 * dropped; the first job's target relabelling shared by the others. */
START_TEST(scrape_config_renames_every_name)
{
	struct dci_datum_info queue[] = {
	    fx_datum(1, "name", DCI_ST_STRING, DCI_SSF_ZEROTERM, 16,
	        DCI_SEMANTICS_DISCRETE),
	    fx_datum(2, "in_flight", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	    fx_datum(3, "served", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	    fx_datum(4, "hwaddr", DCI_ST_ADDRESS, DCI_SAF_ETHERNET, 0,
	        DCI_SEMANTICS_DISCRETE),
	};
	struct dci_datum_info spare[] = {
	    fx_datum(1, "waiting", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_COUNTER),
	};
	struct dci_registry *registry = add_class(
	    add_class(NULL, "work queue", 4, queue, 4), "spare", 5, spare, 1);
	char *text =
	    prometheus_generator_scrape_config(registry, error, sizeof(error));

	ck_assert_msg(text != NULL, "%s", error);
	ck_assert_ptr_nonnull(
	    strstr(text, "  - job_name: dcistat_work_queue\n"
	                 "    metrics_path: /snmp\n"
	                 "    params:\n"
	                 "      module: [dci_work_queue]\n"
	                 "    file_sd_configs:\n"
	                 "      - files: [dcistat-targets.yml]\n"
	                 "    relabel_configs: &dcistat_relabel\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "    metric_relabel_configs:\n"
	                 "      - source_labels: [__name__]\n"
	                 "        regex: dciWorkQueueInFlight\n"
	                 "        target_label: __name__\n"
	                 "        replacement: dci_work_queue_in_flight\n"
	                 "      - source_labels: [__name__]\n"
	                 "        regex: dciWorkQueueServed\n"
	                 "        target_label: __name__\n"
	                 "        replacement: dci_work_queue_served_total\n"
	                 "      - source_labels: [__name__]\n"
	                 "        regex: dciWorkQueueHwaddr\n"
	                 "        target_label: __name__\n"
	                 "        replacement: dci_work_queue_hwaddr\n"
	                 "      - action: labelmap\n"
	                 "        regex: dciWorkQueueName\n"
	                 "        replacement: dci_work_queue_name\n"
	                 "      - action: labelmap\n"
	                 "        regex: dciWorkQueueHwaddr\n"
	                 "        replacement: dci_work_queue_hwaddr\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "      - action: labeldrop\n"
	                 "        regex: dciWorkQueueName|dciWorkQueueHwaddr|"
	                 "dciWorkQueueDiskid|dciWorkQueueEventWord1|"
	                 "dciWorkQueueEventWord2\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "  - job_name: dcistat_spare\n"
	                 "    metrics_path: /snmp\n"
	                 "    params:\n"
	                 "      module: [dci_spare]\n"
	                 "    file_sd_configs:\n"
	                 "      - files: [dcistat-targets.yml]\n"
	                 "    relabel_configs: *dcistat_relabel\n"
	                 "    metric_relabel_configs:\n"
	                 "      - source_labels: [__name__]\n"
	                 "        regex: dciSpareWaiting\n"
	                 "        target_label: __name__\n"
	                 "        replacement: dci_spare_waiting_total\n"));
	free(text);
	dci_registry_free(registry);
}
END_TEST

START_TEST(errors)
{
	struct dci_datum_info datums[] = {
	    fx_datum(1, "waiting", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	};
	struct dci_registry *registry = dci_registry_new();

	ck_assert_ptr_null(
	    prometheus_generator_generate(registry, error, sizeof(error)));
	ck_assert_str_eq(error, "no class to describe: the configuration's "
	                        "providers registered none");
	dci_registry_free(registry);

	/* Labels equal but for punctuation give one module name, and
	 * descriptors equal or equal but for case: the MIB generator's
	 * refusal, naming both classes, comes first. */
	registry = add_class(
	    add_class(NULL, "disk io", 4, datums, 1), "disk-io", 5, datums, 1);
	ck_assert_ptr_null(
	    prometheus_generator_generate(registry, error, sizeof(error)));
	ck_assert_str_eq(error, "class disk io table and class disk-io table "
	                        "both give the descriptor dciDiskIoTable");
	dci_registry_free(registry);
}
END_TEST

int
main(void)
{
	const TTest *tests[] = {
	    module_names_are_lower_case_words,
	    snake_case_names,
	    scrape_config_renames_every_name,
	    one_module_per_class_with_lookups_and_overrides,
	    errors,
	};

	return fx_run_tests("prometheus_generator", tests, COUNT_OF(tests));
}
