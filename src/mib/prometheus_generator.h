/*
 * The snmp_exporter generator configuration (dcistatd
 * --prometheus-generator): a generator.yml that Prometheus's
 * snmp_exporter generator (Debian: prometheus-snmp-generator) turns into
 * the exporter's snmp.yml, for the per-class tables of every class in a
 * registry, with the names the generated MIB modules give them
 * (mib_plan.h).
 *
 * What it says, and why:
 *  - One module per class, named "dci_" + the class label in lower case
 *    with every run of characters other than ASCII letters and digits
 *    made one "_" (netif: dci_netif), walking the class's table
 *    (dciNetifTable) with SNMPv2c GETBULK (version 2: Counter64 needs
 *    SNMPv2c or SNMPv3) and community public, the lines a user edits.
 *    The per-class tables, not dciStatTable: the exporter reads an
 *    OBJECT IDENTIFIER index as octets (class 1.1 becomes 0x0101) and
 *    cannot tell instances apart by it.
 *  - Every text datum of the class (ST_STRING, DisplayString in the
 *    module: netif's name, devstat's device_name, evcnt's group and name)
 *    is a lookup: each metric of the row gets it as a label, keyed by all
 *    the index objects, which stay labels too (they are what makes a row
 *    unique and joins netif with IF-MIB's ifIndex). The text datum is no
 *    metric of its own.
 *  - Overrides: a 64-bit gauge (DciGauge64, a Counter64 underneath) is a
 *    gauge, not a counter; a TruthValue is 1 for true and 0 for false
 *    (the wire says 1 and 2); an Ethernet address is PhysAddress48; a
 *    text datum too long for a DisplayString is still text; a signed
 *    64-bit datum, served as its text, is a gauge of that text where it
 *    is a decimal number; the index objects, never served, are no
 *    metrics.
 *
 * Equal registries give equal text (classes and datums in registry
 * order). No Net-SNMP here: the generator writes text.
 */
#ifndef DCISTAT_PROMETHEUS_GENERATOR_H
#define DCISTAT_PROMETHEUS_GENERATOR_H

#include <stddef.h>

#include "model/registry.h"

/* The module name of a class label into `out` (out_size bytes,
 * NUL-terminated, truncated): "dci_" + the label as described above.
 * Returns the length it needed, as snprintf does. */
size_t prometheus_generator_module_name(
    const char *class_label, char *out, size_t out_size);

/* The generator.yml for every class of `registry` with at least one
 * served datum, as a malloc'd NUL-terminated text; NULL with the reason
 * in `error`: what the MIB generator refuses (no class, a descriptor too
 * long or clashing), two classes giving the same module name, out of
 * memory. */
char *prometheus_generator_generate(
    const struct dci_registry *registry, char *error, size_t error_size);

/* A descriptor in snake_case into `out` (out_size bytes, NUL-terminated,
 * truncated): "_" before a capital that follows a small letter or a
 * digit, or that starts a word after an acronym, then all in small
 * letters (dciNetifRxBytes: dci_netif_rx_bytes; dciCPUTime:
 * dci_cpu_time). Returns the length it needed, as snprintf does. */
size_t prometheus_generator_snake_case(
    const char *name, char *out, size_t out_size);

/*
 * Prometheus's configuration (dcistatd --prometheus-config): a
 * prometheus.yml with one job per class, each asking snmp_exporter (on
 * 127.0.0.1:9116) for the class's module of the snmp.yml made from the
 * generator.yml above, for the agents of dcistat-targets.yml, and giving
 * the series Prometheus's names through metric_relabel_configs: every
 * metric the module exposes stored under its descriptor in snake_case, a
 * counter's (Counter32, or Counter64 with counter semantics) followed by
 * _total, and every label (index objects, text lookups, addresses)
 * likewise in snake_case, the camelCase label dropped. One rule per name,
 * so a rule catches that name and no other. A malloc'd text, or NULL as
 * prometheus_generator_generate.
 */
char *prometheus_generator_scrape_config(
    const struct dci_registry *registry, char *error, size_t error_size);

#endif
