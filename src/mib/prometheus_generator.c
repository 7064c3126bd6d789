/*
 * The snmp_exporter generator configuration: see prometheus_generator.h
 * for what it says. The names come from the MIB generator's plan, so the
 * configuration names only objects the generated module defines; the
 * text is made whole in a memory stream before it is handed out.
 */
#define _GNU_SOURCE
#include "mib/prometheus_generator.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "mib/mib_plan.h"

/* "dci_" + a label of at most DCI_LABEL_MAX characters. */
#define PROMETHEUS_MODULE_NAME_SIZE (DCI_LABEL_MAX + 8)

size_t
prometheus_generator_module_name(
    const char *class_label, char *out, size_t out_size)
{
	static const char prefix[] = "dci_";
	struct mib_name_writer name = {out, out_size, 0};
	bool separator = false;

	for (const char *cursor = prefix; *cursor != '\0'; cursor++)
		mib_name_put(&name, *cursor);
	for (const char *cursor = class_label; *cursor != '\0'; cursor++) {
		char c = *cursor;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
			separator = true;
			continue;
		}
		/* A run of other characters is one "_", and none leads
		 * or trails: "disk io" and "disk-io" give dci_disk_io. */
		if (separator && name.length > sizeof(prefix) - 1)
			mib_name_put(&name, '_');
		separator = false;
		mib_name_put(&name, c);
	}
	return mib_name_end(&name);
}

/* A text datum that becomes a label of its row: text the module declares
 * a DisplayString (mib_generator.c gives ST_STRING that syntax where it
 * fits 255 octets), which snmp_exporter renders as text. */
static bool
column_is_label(const struct mib_column *column)
{
	const struct dci_datum *datum = column->datum;

	return datum != NULL && datum->kind == DCI_KIND_STRING &&
	       datum->info.type == DCI_ST_STRING &&
	       strcmp(column->sequence_syntax, "DisplayString") == 0;
}

/* The override of one column, or nothing when the generator's own
 * reading of the module is right (counters, Gauge32, Integer32,
 * TimeTicks and TimeStamp as gauges, IpAddress). */
static void
put_override(FILE *out, const struct mib_column *column)
{
	const struct dci_datum *datum = column->datum;

	if (datum == NULL || column_is_label(column)) {
		/* An index object (never served) or a text that is a
		 * label of every metric of the row. */
		fprintf(out, "      %s:\n        ignore: true\n",
		    column->descriptor);
		return;
	}
	switch (datum->kind) {
	case DCI_KIND_COUNTER64:
		if (datum->info.semantics != DCI_SEMANTICS_COUNTER)
			fprintf(out, "      %s:\n        type: gauge\n",
			    column->descriptor);
		break;
	case DCI_KIND_TRUTHVALUE:
		/* snmp_exporter 0.21 (Debian 12) applies regex_extracts to
		 * string metrics only, so the TruthValue is read as text
		 * ("1" or "2") and mapped to 1 or 0 from there; read as a
		 * gauge it would stay 1 or 2. The exporter anchors each
		 * regex at both ends. */
		fprintf(out,
		    "      %s:\n"
		    "        type: DisplayString\n"
		    "        regex_extracts:\n"
		    "          '':\n"
		    "            - regex: '1'\n"
		    "              value: '1'\n"
		    "            - regex: '2'\n"
		    "              value: '0'\n",
		    column->descriptor);
		break;
	case DCI_KIND_MACADDRESS:
		fprintf(out, "      %s:\n        type: PhysAddress48\n",
		    column->descriptor);
		break;
	case DCI_KIND_STRING:
		if (datum->info.type == DCI_ST_STRING)
			fprintf(out, "      %s:\n        type: DisplayString\n",
			    column->descriptor);
		break;
	case DCI_KIND_TEXT_ONLY:
		fprintf(out,
		    "      %s:\n"
		    "        regex_extracts:\n"
		    "          '':\n"
		    "            - regex: '(-?[0-9]+)'\n"
		    "              value: '$1'\n",
		    column->descriptor);
		break;
	default:
		break;
	}
}

/* Text in a YAML comment: a byte outside printable ASCII (a newline
 * would end the comment) is written as '?'. */
static void
put_comment_text(FILE *out, const char *text)
{
	for (const char *cursor = text; *cursor != '\0'; cursor++)
		fputc(*cursor >= 0x20 && *cursor <= 0x7e ? *cursor : '?', out);
}

static void
put_module(FILE *out, const struct mib_class *plan, const char *module_name)
{
	const struct dci_class *class = plan->class;
	bool has_label = false;

	fputs("  # class ", out);
	put_comment_text(out, class->label);
	fprintf(out, " (%s)", plan->id_text);
	if (class->supplier != NULL) {
		fputs(", supplier ", out);
		put_comment_text(out, class->supplier->module);
	}
	fprintf(out,
	    ": dciClassData.%s\n"
	    "  %s:\n"
	    "    walk:\n"
	    "      - %s\n"
	    "    version: 2\n"
	    "    auth:\n"
	    "      community: public\n",
	    plan->id_text, module_name, plan->table);
	for (size_t i = 0; i < plan->column_count; i++) {
		if (!column_is_label(&plan->columns[i]))
			continue;
		if (!has_label)
			fputs("    lookups:\n", out);
		has_label = true;
		fputs("      - source_indexes: [", out);
		for (size_t word = 0; word < plan->index_count; word++)
			fprintf(out, "%s%s", word == 0 ? "" : ", ",
			    plan->columns[plan->index[word]].descriptor);
		fprintf(out, "]\n        lookup: %s\n",
		    plan->columns[i].descriptor);
	}
	fputs("    overrides:\n", out);
	for (size_t i = 0; i < plan->column_count; i++)
		put_override(out, &plan->columns[i]);
}

/* The module name of every planned class; -1 with both classes named
 * when two give the same. `names` has class_count slots. */
static int
module_names_make(const struct mib_generator *generator,
    char (*names)[PROMETHEUS_MODULE_NAME_SIZE], char *error, size_t error_size)
{
	for (size_t i = 0; i < generator->class_count; i++) {
		const struct dci_class *class = generator->classes[i].class;

		prometheus_generator_module_name(
		    class->label, names[i], sizeof(names[i]));
		for (size_t other = 0; other < i; other++) {
			if (strcmp(names[other], names[i]) != 0)
				continue;
			log_reason(error, error_size,
			    "class %s and class %s both give the "
			    "snmp_exporter module name %s",
			    generator->classes[other].class->label,
			    class->label, names[i]);
			return -1;
		}
	}
	return 0;
}

/* The names of every class's module and the plan, for a writer. */
typedef void (*prometheus_writer)(FILE *out,
    const struct mib_generator *generator,
    char (*names)[PROMETHEUS_MODULE_NAME_SIZE]);

/* The plan of every class and its module name, then `write`'s text, made
 * whole in memory; NULL with the reason (`what` names the text). */
static char *
prometheus_text(const struct dci_registry *registry, prometheus_writer write,
    const char *what, char *error, size_t error_size)
{
	struct mib_generator generator = {
	    .registry = registry,
	    .error = error,
	    .error_size = error_size,
	};
	char(*names)[PROMETHEUS_MODULE_NAME_SIZE] = NULL;
	char *text = NULL;
	size_t size = 0;
	FILE *out;

	if (mib_plan_make(&generator) != 0)
		goto done;
	names = calloc(generator.class_count, sizeof(*names));
	if (names == NULL) {
		log_reason(error, error_size, "out of memory");
		goto done;
	}
	if (module_names_make(&generator, names, error, error_size) != 0)
		goto done;
	out = open_memstream(&text, &size);
	if (out == NULL) {
		log_reason(error, error_size, "out of memory");
		goto done;
	}
	write(out, &generator, names);
	if (ferror(out) | fclose(out)) {
		free(text);
		text = NULL;
		log_reason(
		    error, error_size, "out of memory writing the %s", what);
	}
done:
	free(names);
	mib_plan_release(&generator);
	return text;
}

static void
write_generator(FILE *out, const struct mib_generator *generator,
    char (*names)[PROMETHEUS_MODULE_NAME_SIZE])
{
	fputs("# snmp_exporter generator configuration for dcistatd's "
	      "per-class tables,\n"
	      "# generated by dcistatd --prometheus-generator from the "
	      "classes its\n"
	      "# configuration's providers register. Do not edit it: "
	      "regenerate it\n"
	      "# (in the dcistat sources: make prometheus), then run\n"
	      "#   MIBDIRS=DIRS prometheus-snmp-generator generate\n"
	      "# with the generated MIB modules, DCI-STATS-MIB, "
	      "NET-SNMP-MIB and the\n"
	      "# IETF base modules in DIRS; it writes snmp.yml for "
	      "snmp_exporter.\n"
	      "# Edit community (or SNMPv3's auth) in snmp.yml, or here "
	      "before generating.\n"
	      "modules:\n",
	    out);
	for (size_t i = 0; i < generator->class_count; i++)
		put_module(out, &generator->classes[i], names[i]);
}

char *
prometheus_generator_generate(
    const struct dci_registry *registry, char *error, size_t error_size)
{
	return prometheus_text(registry, write_generator,
	    "generator configuration", error, error_size);
}

size_t
prometheus_generator_snake_case(const char *name, char *out, size_t out_size)
{
	struct mib_name_writer snake = {out, out_size, 0};

	for (size_t i = 0; name[i] != '\0'; i++) {
		char c = name[i];
		bool upper = c >= 'A' && c <= 'Z';

		if (upper && i > 0) {
			char previous = name[i - 1], next = name[i + 1];
			bool previous_lower =
			    (previous >= 'a' && previous <= 'z') ||
			    (previous >= '0' && previous <= '9');
			bool acronym_ends = previous >= 'A' &&
			                    previous <= 'Z' && next >= 'a' &&
			                    next <= 'z';

			if (previous_lower || acronym_ends)
				mib_name_put(&snake, '_');
		}
		mib_name_put(&snake, upper ? (char)(c - 'A' + 'a') : c);
	}
	return mib_name_end(&snake);
}

/* How snmp_exporter, with the generator.yml above, exposes a column:
 * not at all (index words and text lookups, which are labels), as a
 * counter, as a gauge, or as a metric of value 1 whose text is a label of
 * the metric's own name (addresses, octet strings). */
enum exposed_as {
	EXPOSED_NOT,
	EXPOSED_COUNTER,
	EXPOSED_GAUGE,
	EXPOSED_TEXT_LABEL,
};

static enum exposed_as
exposed_as(const struct mib_column *column)
{
	const struct dci_datum *datum = column->datum;

	if (datum == NULL || column_is_label(column))
		return EXPOSED_NOT;
	switch (datum->kind) {
	case DCI_KIND_COUNTER64:
		return datum->info.semantics == DCI_SEMANTICS_COUNTER
		           ? EXPOSED_COUNTER
		           : EXPOSED_GAUGE;
	case DCI_KIND_COUNTER32:
		return EXPOSED_COUNTER;
	case DCI_KIND_STRING:
	case DCI_KIND_IPADDRESS:
	case DCI_KIND_MACADDRESS:
		return EXPOSED_TEXT_LABEL;
	case DCI_KIND_NONE:
		return EXPOSED_NOT;
	default:
		return EXPOSED_GAUGE;
	}
}

/* A label every metric of the class's rows carries (index words and text
 * lookups), or that a text metric carries. */
static bool
column_is_label_name(const struct mib_column *column)
{
	return column->datum == NULL || column_is_label(column) ||
	       exposed_as(column) == EXPOSED_TEXT_LABEL;
}

/* One job's metric_relabel_configs: each metric renamed to its snake_case
 * name (a counter's with _total), each label copied to its snake_case
 * name and the camelCase one dropped. Exact: one rule a name, no pattern
 * that could catch another. */
static void
put_metric_relabels(FILE *out, const struct mib_class *plan)
{
	char name[2 * MIB_NAME_SIZE + 8];
	bool first;

	fputs("    metric_relabel_configs:\n", out);
	for (size_t i = 0; i < plan->column_count; i++) {
		const struct mib_column *column = &plan->columns[i];
		enum exposed_as exposed = exposed_as(column);

		if (exposed == EXPOSED_NOT)
			continue;
		prometheus_generator_snake_case(
		    column->descriptor, name, sizeof(name));
		fprintf(out,
		    "      - source_labels: [__name__]\n"
		    "        regex: %s\n"
		    "        target_label: __name__\n"
		    "        replacement: %s%s\n",
		    column->descriptor, name,
		    exposed == EXPOSED_COUNTER ? "_total" : "");
	}
	for (size_t i = 0; i < plan->column_count; i++) {
		const struct mib_column *column = &plan->columns[i];

		if (!column_is_label_name(column))
			continue;
		prometheus_generator_snake_case(
		    column->descriptor, name, sizeof(name));
		fprintf(out,
		    "      - action: labelmap\n"
		    "        regex: %s\n"
		    "        replacement: %s\n",
		    column->descriptor, name);
	}
	first = true;
	for (size_t i = 0; i < plan->column_count; i++) {
		const struct mib_column *column = &plan->columns[i];

		if (!column_is_label_name(column))
			continue;
		fprintf(out, "%s%s",
		    first ? "      - action: labeldrop\n        regex: " : "|",
		    column->descriptor);
		first = false;
	}
	if (!first)
		fputc('\n', out);
}

static void
put_job(FILE *out, const struct mib_class *plan, const char *module_name,
    bool first)
{
	fprintf(out,
	    "  - job_name: dcistat_%s\n"
	    "    metrics_path: /snmp\n"
	    "    params:\n"
	    "      module: [%s]\n"
	    "    file_sd_configs:\n"
	    "      - files: [dcistat-targets.yml]\n",
	    module_name + strlen("dci_"), module_name);
	if (first)
		fputs("    relabel_configs: &dcistat_relabel\n"
		      "      - source_labels: [__address__]\n"
		      "        target_label: __param_target\n"
		      "      - source_labels: [__param_target]\n"
		      "        target_label: instance\n"
		      "      - target_label: __address__\n"
		      "        replacement: 127.0.0.1:9116\n",
		    out);
	else
		fputs("    relabel_configs: *dcistat_relabel\n", out);
	put_metric_relabels(out, plan);
}

static void
write_scrape_config(FILE *out, const struct mib_generator *generator,
    char (*names)[PROMETHEUS_MODULE_NAME_SIZE])
{
	fputs("# Prometheus scraping dcistat through snmp_exporter, for a "
	      "fleet: the\n"
	      "# agents (snmpd masters with dcistatd) are listed once, in\n"
	      "# /etc/prometheus/dcistat-targets.yml (file_sd: re-read when "
	      "it changes):\n"
	      "#\n"
	      "#   - targets: [host1.example.net, host2.example.net:1161]\n"
	      "#     labels: {site: paris}\n"
	      "#\n"
	      "# and each job asks snmp_exporter (here on the same machine, "
	      "port 9116) to\n"
	      "# walk one module of /etc/prometheus/snmp.yml (copied from\n"
	      "# /usr/share/dcistat/prometheus/snmp.yml) on each of them: "
	      "the agent's\n"
	      "# address becomes the exporter's `target` parameter and the "
	      "series'\n"
	      "# `instance`. snmp_exporter 0.21 (Debian 12) takes one module "
	      "per request,\n"
	      "# hence one job per class.\n"
	      "#\n"
	      "# The exporter names metrics and labels as the MIB does "
	      "(dciNetifRxBytes,\n"
	      "# dciNetifName); each job's metric_relabel_configs store them "
	      "with\n"
	      "# Prometheus's names instead: snake_case, a counter's with "
	      "_total\n"
	      "# (dci_netif_rx_bytes_total{dci_netif_name=\"eth0\"}), one "
	      "rule a name.\n"
	      "# Generated by dcistatd --prometheus-config from the classes "
	      "of its\n"
	      "# configuration's providers, as snmp.yml is from "
	      "generator.yml: regenerate\n"
	      "# it (in the dcistat sources: make prometheus) rather than "
	      "edit the rules.\n"
	      "global:\n"
	      "  scrape_interval: 60s\n"
	      "  evaluation_interval: 60s\n"
	      "\n"
	      "rule_files:\n"
	      "  - dcistat.rules.yml\n"
	      "\n"
	      "scrape_configs:\n",
	    out);
	for (size_t i = 0; i < generator->class_count; i++)
		put_job(out, &generator->classes[i], names[i], i == 0);
	fputs("  # snmp_exporter's own metrics.\n"
	      "  - job_name: snmp_exporter\n"
	      "    static_configs:\n"
	      "      - targets: [127.0.0.1:9116]\n",
	    out);
}

char *
prometheus_generator_scrape_config(
    const struct dci_registry *registry, char *error, size_t error_size)
{
	return prometheus_text(registry, write_scrape_config,
	    "Prometheus configuration", error, error_size);
}
