/*
 * The generic half of the configuration reader: a YAML document walked
 * against tables that describe each mapping's keys once (name, kind of
 * value, what a wrong value is told, default, where the value goes), with
 * every error written as "FILE:LINE:COLUMN: message". The schema itself
 * (which keys, which tables) is config.c's.
 */
#ifndef DCISTAT_CONFIG_YAML_H
#define DCISTAT_CONFIG_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "config/config.h"

#define CONFIG_YAML_COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__GNUC__)
#define CONFIG_YAML_PRINTF_LIKE(format_index, first_argument)                  \
	__attribute__((format(printf, format_index, first_argument)))
#else
#define CONFIG_YAML_PRINTF_LIKE(format_index, first_argument)
#endif

/* One read of one document (or one file, before it is parsed). */
struct config_yaml {
	const char *name; /* for messages; outlives the parse */
	const char *text; /* the raw input, to place reader errors */
	size_t length;
	yaml_document_t *document;
	const char *file; /* the configuration's copy of name, for positions */
	char *error;
	size_t error_size;
};

struct config_yaml_mapping;

/* Reads a value the other kinds do not describe into `field`. */
typedef int (*config_yaml_read_function)(struct config_yaml *reader,
    const yaml_node_t *node, const char *key, void *field);

/* Fills one zeroed entry of a sequence from its mapping node. */
typedef int (*config_yaml_entry_reader)(
    struct config_yaml *reader, const yaml_node_t *node, void *entry);

/* Fills one zeroed entry of a mapping of any keys from one of its pairs,
 * whose key (checked: a scalar, not seen before) has the text `name`. */
typedef int (*config_yaml_pair_reader)(struct config_yaml *reader,
    const yaml_node_pair_t *pair, const char *name, void *entry);

enum config_yaml_kind {
	/* A non-empty scalar, accepted by `check` (NULL: any), copied into
	 * the field, a char *. */
	CONFIG_YAML_TEXT,
	/* A non-empty scalar that `parse` accepts and stores in the field. */
	CONFIG_YAML_SCALAR,
	/* A mapping (null: nothing) read with `mapping` into the field. */
	CONFIG_YAML_MAPPING,
	/* A sequence of mappings (null or empty: none) read into a new array
	 * of zeroed entries, each filled by `read_entry`; `what` names an
	 * entry in messages ("provider"). */
	CONFIG_YAML_SEQUENCE,
	/* A mapping of any keys (null or empty: none) read into a new array
	 * of zeroed entries, one for each pair, filled by `read_pair`; a
	 * value that is no mapping is told `expectation`, and `what` names
	 * the mapping in messages ("in options"). */
	CONFIG_YAML_PAIRS,
	/* Read by `read`. */
	CONFIG_YAML_CUSTOM,
};

/* One key of a mapping. */
struct config_yaml_key {
	const char *name;
	enum config_yaml_kind kind;
	size_t offset; /* of the field in the mapping's target */
	/* TEXT and SCALAR: "expected EXPECTATION for 'KEY', found ..." */
	const char *expectation;
	bool (*check)(const char *text);              /* TEXT */
	bool (*parse)(const char *text, void *field); /* SCALAR */
	const struct config_yaml_mapping *mapping;    /* MAPPING */
	config_yaml_read_function read;               /* CUSTOM */
	/* SEQUENCE and PAIRS: the field points to the array, of entries of
	 * entry_size bytes, and the size_t at count_offset counts the
	 * entries begun, even on failure, so that the configuration's free
	 * sees every one. */
	size_t count_offset;
	size_t entry_size;
	const char *what;
	config_yaml_entry_reader read_entry; /* SEQUENCE */
	config_yaml_pair_reader read_pair;   /* PAIRS */
	/* SCALAR: stored by `parse` before the mapping is read, so that an
	 * absent key has it; NULL: the field stays zero. */
	const char *default_text;
	bool required; /* "missing required key 'KEY' CONTEXT" when absent */
};

/* The keys a mapping accepts. */
struct config_yaml_mapping {
	const char *context; /* names the mapping in messages: "in agent" */
	const struct config_yaml_key *keys; /* NULL: any key is accepted */
	size_t key_count;
};

/* Writes "NAME:LINE:COLUMN: message", or "NAME: message" without a mark,
 * and returns -1 so that callers can `return config_yaml_report(...)`. */
int config_yaml_report(struct config_yaml *reader, const yaml_mark_t *mark,
    const char *format, ...) CONFIG_YAML_PRINTF_LIKE(3, 4);

int config_yaml_out_of_memory(struct config_yaml *reader);

yaml_node_t *config_yaml_node(
    struct config_yaml *reader, yaml_node_item_t index);

struct dci_config_position config_yaml_position(
    struct config_yaml *reader, const yaml_node_t *node);

/* The YAML 1.2 core schema's null: an absent value, `~` or `null`. */
bool config_yaml_is_null(const yaml_node_t *node);

/* How a node is named after "found": a quoted scalar or a kind. */
struct config_yaml_description {
	const char *quote;
	const char *text;
};

struct config_yaml_description config_yaml_describe(const yaml_node_t *node);

/* "expected EXPECTATION for 'KEY', found ..." at the value. */
int config_yaml_report_expected(struct config_yaml *reader,
    const yaml_node_t *node, const char *expectation, const char *key);

/* The text of a scalar node, valid while the document lives; a NUL in it
 * (a double-quoted "\0") is refused. */
int config_yaml_scalar_text(
    struct config_yaml *reader, const yaml_node_t *node, const char **text);

/* The text of a non-empty scalar value, or an error naming the
 * expectation. */
int config_yaml_value_text(struct config_yaml *reader, const yaml_node_t *node,
    const char *expectation, const char *key, const char **text);

int config_yaml_copy_text(
    struct config_yaml *reader, const char *text, char **copy);

/* config_yaml_value_text, refused unless `check` (NULL: any text) accepts
 * it, then copied into `*copy`. */
int config_yaml_copy_checked_text(struct config_yaml *reader,
    const yaml_node_t *node, const char *expectation, const char *key,
    bool (*check)(const char *text), char **copy);

/* The number of items of a sequence node, of pairs of a mapping node. */
size_t config_yaml_sequence_length(const yaml_node_t *node);
size_t config_yaml_mapping_length(const yaml_node_t *node);

/* Checks the key of `pair` (a scalar, not seen before in `mapping`, one of
 * `table`'s) and returns its text and its index in table->keys. */
int config_yaml_check_key(struct config_yaml *reader,
    const yaml_node_t *mapping, const yaml_node_pair_t *pair,
    const struct config_yaml_mapping *table, const char **text, size_t *index);

/* Stores the defaults of `table`'s keys (and of the mappings it holds) in
 * `target`. Returns 0, or -1 if a default does not parse (a bug). */
int config_yaml_apply_defaults(
    const struct config_yaml_mapping *table, void *target);

/* Reads the pairs of a mapping node into `target` by `table`, then checks
 * its required keys. */
int config_yaml_read_keys(struct config_yaml *reader,
    const yaml_node_t *mapping, const struct config_yaml_mapping *table,
    void *target);

/* The value of `key` in a mapping node, or NULL. */
const yaml_node_t *config_yaml_value_of(
    struct config_yaml *reader, const yaml_node_t *mapping, const char *key);

/*
 * Parses the whole text as events, refusing a collection nested deeper
 * than `nesting_max` at its start. Aliases add no depth: an alias event is
 * a leaf, and the schema walk never follows one further than the schema. A
 * syntax error is the one yaml_parser_load would report, found first here.
 */
int config_yaml_check_nesting(struct config_yaml *reader, unsigned nesting_max);

/* The one document of the text, its root handed to `read_root` while the
 * document lives; a second document is refused. Nothing but comments and
 * blanks is no document: read_root is not called. */
int config_yaml_read_document(struct config_yaml *reader,
    int (*read_root)(
        struct config_yaml *reader, const yaml_node_t *root, void *target),
    void *target);

#endif
