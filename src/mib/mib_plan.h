/*
 * The plan of the per-class tables, shared by the writers of
 * src/mib: the SMIv2 module (mib_generator.c) and snmp_exporter's
 * generator.yml (prometheus_generator.c). Internal to src/mib.
 *
 * mib_plan_make names every table, entry, column and index object of
 * every class of a registry exactly as the module describes them, and
 * checks the names (length, clashes); a writer then walks
 * generator->classes. Both writers take their names from here, so a
 * generator.yml names only objects the module defines.
 */
#ifndef DCISTAT_MIB_PLAN_H
#define DCISTAT_MIB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/registry.h"
#include "mib/mib_generator.h"

#define MIB_NAME_SIZE (AGENT_MIB_DESCRIPTOR_MAX + 1)

/* A name written the way snprintf writes: every character counted, as
 * many as fit in the out_size bytes at out stored, NUL-terminated when
 * out_size > 0; the name transforms (CamelCase, snake_case, module names)
 * return the full length so that a caller can tell a name cut short. */
struct mib_name_writer {
	char *out;
	size_t out_size;
	size_t length;
};

static inline void
mib_name_put(struct mib_name_writer *writer, char c)
{
	if (writer->length + 1 < writer->out_size)
		writer->out[writer->length] = c;
	writer->length++;
}

/* Terminates the name; returns its full length. */
static inline size_t
mib_name_end(struct mib_name_writer *writer)
{
	if (writer->out_size > 0)
		writer->out[writer->length < writer->out_size
		                ? writer->length
		                : writer->out_size - 1] = '\0';
	return writer->length;
}

/* What the module imports, beyond what every module imports. */
enum mib_import {
	MIB_IMPORT_INTEGER32 = 1u << 0,
	MIB_IMPORT_UNSIGNED32 = 1u << 1,
	MIB_IMPORT_GAUGE32 = 1u << 2,
	MIB_IMPORT_COUNTER32 = 1u << 3,
	MIB_IMPORT_COUNTER64 = 1u << 4,
	MIB_IMPORT_IPADDRESS = 1u << 5,
	MIB_IMPORT_TIMETICKS = 1u << 6,
	MIB_IMPORT_DISPLAYSTRING = 1u << 7,
	MIB_IMPORT_MACADDRESS = 1u << 8,
	MIB_IMPORT_TRUTHVALUE = 1u << 9,
	MIB_IMPORT_TIMESTAMP = 1u << 10,
	MIB_IMPORT_HUNDREDTHS = 1u << 11,
	MIB_IMPORT_GAUGE64 = 1u << 12,
};

/* One descriptor of the module and what it names, for clash messages. */
struct mib_name {
	char descriptor[MIB_NAME_SIZE];
	char *owner; /* "class netif datum rx_bytes" */
};

struct mib_column {
	uint32_t number;
	const struct dci_datum *datum; /* NULL: an index column */
	size_t word;                   /* index column: word of the id, 0.. */
	size_t level;                  /* index column: its instance level */
	size_t level_word;             /* index column: word in the level */
	const char *syntax;            /* in the OBJECT-TYPE */
	const char *sequence_syntax;   /* in the SEQUENCE */
	char descriptor[MIB_NAME_SIZE];
};

struct mib_class {
	const struct dci_class *class;
	char id_text[DCI_CLASS_ID_MAX_LEVELS * 11 + 1]; /* "1.1" */
	char camel[MIB_NAME_SIZE];
	char table[MIB_NAME_SIZE];
	char entry[MIB_NAME_SIZE];
	char type[MIB_NAME_SIZE + 8]; /* "Dci...Entry" */
	char group[MIB_NAME_SIZE];
	char table_parent[MIB_NAME_SIZE];
	struct mib_column *columns; /* datums and index words, by number */
	size_t column_count;
	size_t *index; /* positions in columns, in word order */
	size_t index_count;
};

/* An OBJECT IDENTIFIER node between dciClassData (or dciClassModules) and
 * a table (or the module identity). */
struct mib_arc {
	char descriptor[MIB_NAME_SIZE];
	char parent[MIB_NAME_SIZE];
	uint32_t number;
};

struct mib_generator {
	const struct dci_registry *registry;
	const char *module_name;
	char identity[MIB_NAME_SIZE];
	char identity_parent[MIB_NAME_SIZE];
	uint32_t identity_number;
	char conformance[MIB_NAME_SIZE];
	char compliances[MIB_NAME_SIZE];
	char groups[MIB_NAME_SIZE];
	char compliance[MIB_NAME_SIZE];
	struct mib_class *classes; /* the classes described */
	size_t class_count;
	const struct dci_class **skipped; /* classes with no served datum */
	size_t skipped_count;
	struct mib_arc *arcs;
	size_t arc_count;
	struct mib_name *names;
	size_t name_count;
	unsigned imports;
	bool write_failed; /* out of memory while writing */
	char *error;
	size_t error_size;
};

/* Plans every class of generator->registry (set with error and
 * error_size, the rest zero). With a module_name, also names the module
 * identity and conformance nodes, checking the name first; with none
 * (a generator.yml needs no module of its own), the classes only.
 * Returns 0, or -1 with the reason in generator->error. Either way
 * mib_plan_release frees what it allocated. */
int mib_plan_make(struct mib_generator *generator);

/* Frees what mib_plan_make allocated. */
void mib_plan_release(struct mib_generator *generator);

#endif
