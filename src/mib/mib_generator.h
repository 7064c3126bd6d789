/*
 * The MIB generator (dcistatd --mib NAME): an SMIv2 module describing the
 * per-class tables the agent serves under dciClassData for every class in
 * a registry.
 *
 * What the module says, and why:
 *  - Class C with id L1...Ln has the table dciClassData.L1...Ln, entry
 *    table.1, one column per datum whose kind is not DCI_KIND_NONE (column
 *    number = datum id), indexed by the instance id words, one
 *    sub-identifier per 4-octet word, no length prefix.
 *  - Descriptors: "dci" + CamelCase(class label) + CamelCase(datum label),
 *    where every character that is not an ASCII letter or digit separates
 *    words and each word's first character is upper-cased (the rest kept):
 *    rx_bytes of netif is dciNetifRxBytes; the table dciNetifTable, entry
 *    dciNetifEntry, SEQUENCE type DciNetifEntry, object group
 *    dciNetifTableGroup. A descriptor longer than 64 characters, or two
 *    that are equal or differ only in case, are errors naming the datums.
 *  - Index objects: one per instance word, named from the level's itype
 *    (dciDevstatDiskid1, dciDevstatDiskid2; a level of several words adds
 *    "Word<n>": dciEvcntEventWord1). They are not-accessible columns of the
 *    entry, as smilint requires of INDEX objects, numbered with the largest
 *    numbers below 2^31 that no datum of the class has: they are never
 *    instantiated, so their numbers matter only inside the module (no
 *    number is free for ever: datum ids reach 2^32-2; Net-SNMP's MIB parser
 *    mis-reads sub-identifiers of 2^31 and above). IF-MIB is not among the
 *    base modules every system has (Debian ships none), so an interface
 *    level is not INDEX { ifIndex } but an own object that says it is the
 *    ifIndex.
 *  - SYNTAX by kind as DCI-STATS-MIB's dciStatTable columns; a 64-bit
 *    gauge is DciGauge64, a TEXTUAL-CONVENTION of Counter64 that
 *    DCI-STATS-MIB defines and the module imports (HCNUM-TC's
 *    CounterBasedGauge64 is not among the base modules either, and
 *    snmp_exporter's generator reads either as a counter:
 *    prometheus_generator.h overrides it).
 *  - MODULE-IDENTITY at dciClassModules.L1...Ln of the first class (the
 *    registry's order): deterministic, and one per class set, since no
 *    class id is a prefix of another. Intermediate arcs are named
 *    dciClassModules<L1>x<L2>... and dciClassData<L1>x<L2>...
 *  - LAST-UPDATED is AGENT_MIB_REVISION: the output depends on the registry
 *    and the module name only, so a test can compare it byte for byte.
 *
 * No Net-SNMP here: the generator writes text.
 */
#ifndef DCISTAT_MIB_GENERATOR_H
#define DCISTAT_MIB_GENERATOR_H

#include <stdbool.h>
#include <stddef.h>

#include "model/registry.h"

/* RFC 2578: descriptors of at most 64 characters. */
#define AGENT_MIB_DESCRIPTOR_MAX 64
/* Module names: the same limit. */
#define AGENT_MIB_MODULE_NAME_MAX 64
/* The revision of the generated text (LAST-UPDATED and REVISION): change
 * it whenever the generator's output changes, and regenerate the
 * committed modules (make mibs). */
#define AGENT_MIB_REVISION "202611210000Z"

/* Checks a module name: an upper-case ASCII letter first, then letters,
 * digits and hyphens, no two hyphens in a row, no hyphen last, at most
 * AGENT_MIB_MODULE_NAME_MAX characters. Returns true, or false with the
 * reason in `why` (why may be NULL). */
bool mib_generator_module_name_valid(const char *name, char *why, size_t why_size);

/* CamelCase of a label into `out` (NUL-terminated, truncated to
 * out_size): every character that is not an ASCII letter or digit
 * separates words and is dropped; each word's first character is
 * upper-cased, the others kept. "rx_bytes" -> "RxBytes", "64bit x" ->
 * "64bitX". Returns the length it needed, as snprintf does. */
size_t mib_generator_camel_case(const char *label, char *out, size_t out_size);

/* "dci" + CamelCase(class_label) + CamelCase(label): a column's descriptor
 * with the datum's label, the table's with "table", the entry's with
 * "entry". Returns 0, or -1 with the reason in `why` naming the class and
 * the label: a label with no letter or digit, or a descriptor longer than
 * AGENT_MIB_DESCRIPTOR_MAX. */
int mib_generator_descriptor(const char *class_label, const char *label,
    char *descriptor, size_t descriptor_size, char *why, size_t why_size);

/* The module for every class of `registry` with at least one served
 * datum, as a malloc'd NUL-terminated text; NULL with the reason in
 * `error` (a bad module name, no class to describe, a descriptor too long
 * or clashing, a class id whose last level is 0, out of memory). */
char *mib_generator_generate(const struct dci_registry *registry,
    const char *module_name, char *error, size_t error_size);

#endif
