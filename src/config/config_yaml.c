/* The configuration reader's walk of a YAML document by key tables
 * (config_yaml.h). */
#define _POSIX_C_SOURCE 200809L

#include "config/config_yaml.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
config_yaml_report(struct config_yaml *reader, const yaml_mark_t *mark,
    const char *format, ...)
{
	va_list arguments;
	int written;

	if (reader->error == NULL || reader->error_size == 0)
		return -1;
	if (mark != NULL)
		written = snprintf(reader->error, reader->error_size,
		    "%s:%zu:%zu: ", reader->name, mark->line + 1,
		    mark->column + 1);
	else
		written = snprintf(
		    reader->error, reader->error_size, "%s: ", reader->name);
	if (written < 0) {
		reader->error[0] = '\0';
		return -1;
	}
	if ((size_t)written < reader->error_size) {
		va_start(arguments, format);
		vsnprintf(reader->error + written,
		    reader->error_size - (size_t)written, format, arguments);
		va_end(arguments);
	}
	return -1;
}

int
config_yaml_out_of_memory(struct config_yaml *reader)
{
	return config_yaml_report(reader, NULL, "out of memory");
}

yaml_node_t *
config_yaml_node(struct config_yaml *reader, yaml_node_item_t index)
{
	return yaml_document_get_node(reader->document, index);
}

struct dci_config_position
config_yaml_position(struct config_yaml *reader, const yaml_node_t *node)
{
	struct dci_config_position position;

	position.file = reader->file;
	position.line = (unsigned)node->start_mark.line + 1;
	position.column = (unsigned)node->start_mark.column + 1;
	return position;
}

bool
config_yaml_is_null(const yaml_node_t *node)
{
	static const char *const spellings[] = {
	    "", "~", "null", "Null", "NULL"};
	const char *value;

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	value = (const char *)node->data.scalar.value;
	for (size_t index = 0; index < CONFIG_YAML_COUNT_OF(spellings); index++)
		if (strcmp(value, spellings[index]) == 0)
			return true;
	return false;
}

struct config_yaml_description
config_yaml_describe(const yaml_node_t *node)
{
	struct config_yaml_description description = {"", ""};

	switch (node->type) {
	case YAML_MAPPING_NODE:
		description.text = "a mapping";
		break;
	case YAML_SEQUENCE_NODE:
		description.text = "a sequence";
		break;
	case YAML_SCALAR_NODE:
		if (config_yaml_is_null(node) ||
		    node->data.scalar.length == 0) {
			description.text = "an empty value";
		} else {
			description.quote = "'";
			description.text =
			    (const char *)node->data.scalar.value;
		}
		break;
	default:
		description.text = "nothing";
		break;
	}
	return description;
}

int
config_yaml_report_expected(struct config_yaml *reader, const yaml_node_t *node,
    const char *expectation, const char *key)
{
	struct config_yaml_description found = config_yaml_describe(node);

	return config_yaml_report(reader, &node->start_mark,
	    "expected %s for '%s', found %s%s%s", expectation, key, found.quote,
	    found.text, found.quote);
}

int
config_yaml_scalar_text(
    struct config_yaml *reader, const yaml_node_t *node, const char **text)
{
	const char *value = (const char *)node->data.scalar.value;

	if (strlen(value) != node->data.scalar.length)
		return config_yaml_report(reader, &node->start_mark,
		    "NUL characters are not allowed");
	*text = value;
	return 0;
}

int
config_yaml_value_text(struct config_yaml *reader, const yaml_node_t *node,
    const char *expectation, const char *key, const char **text)
{
	if (node->type != YAML_SCALAR_NODE || config_yaml_is_null(node) ||
	    node->data.scalar.length == 0)
		return config_yaml_report_expected(
		    reader, node, expectation, key);
	return config_yaml_scalar_text(reader, node, text);
}

int
config_yaml_copy_text(struct config_yaml *reader, const char *text, char **copy)
{
	*copy = strdup(text);
	if (*copy == NULL)
		return config_yaml_out_of_memory(reader);
	return 0;
}

int
config_yaml_copy_checked_text(struct config_yaml *reader,
    const yaml_node_t *node, const char *expectation, const char *key,
    bool (*check)(const char *text), char **copy)
{
	const char *text = NULL;

	if (config_yaml_value_text(reader, node, expectation, key, &text) != 0)
		return -1;
	if (check != NULL && !check(text))
		return config_yaml_report_expected(
		    reader, node, expectation, key);
	return config_yaml_copy_text(reader, text, copy);
}

size_t
config_yaml_sequence_length(const yaml_node_t *node)
{
	return (size_t)(node->data.sequence.items.top -
	                node->data.sequence.items.start);
}

size_t
config_yaml_mapping_length(const yaml_node_t *node)
{
	return (size_t)(node->data.mapping.pairs.top -
	                node->data.mapping.pairs.start);
}

/* "a, b, c": the keys a table accepts, for an unknown key's message. */
static void
config_yaml_list_keys(
    const struct config_yaml_mapping *table, char *buffer, size_t size)
{
	size_t used = 0;

	buffer[0] = '\0';
	for (size_t index = 0; index < table->key_count && used < size;
	     index++) {
		int written = snprintf(buffer + used, size - used, "%s%s",
		    index == 0 ? "" : ", ", table->keys[index].name);

		if (written < 0)
			break;
		used += (size_t)written;
	}
}

int
config_yaml_check_key(struct config_yaml *reader, const yaml_node_t *mapping,
    const yaml_node_pair_t *pair, const struct config_yaml_mapping *table,
    const char **text, size_t *index)
{
	const yaml_node_t *key = config_yaml_node(reader, pair->key);
	char expected[512];

	if (key->type != YAML_SCALAR_NODE) {
		struct config_yaml_description found =
		    config_yaml_describe(key);

		return config_yaml_report(reader, &key->start_mark,
		    "expected a scalar key %s, found %s", table->context,
		    found.text);
	}
	if (config_yaml_scalar_text(reader, key, text) != 0)
		return -1;
	for (const yaml_node_pair_t *earlier =
	         mapping->data.mapping.pairs.start;
	     earlier < pair; earlier++) {
		const yaml_node_t *other =
		    config_yaml_node(reader, earlier->key);

		if (other->data.scalar.length == key->data.scalar.length &&
		    strcmp((const char *)other->data.scalar.value, *text) == 0)
			return config_yaml_report(reader, &key->start_mark,
			    "duplicate key '%s' (first at %zu:%zu)", *text,
			    other->start_mark.line + 1,
			    other->start_mark.column + 1);
	}
	if (table->keys == NULL)
		return 0;
	for (*index = 0; *index < table->key_count; (*index)++)
		if (strcmp(*text, table->keys[*index].name) == 0)
			return 0;
	config_yaml_list_keys(table, expected, sizeof expected);
	return config_yaml_report(reader, &key->start_mark,
	    "unknown key '%s' %s: expected one of %s", *text, table->context,
	    expected);
}

int
config_yaml_apply_defaults(
    const struct config_yaml_mapping *table, void *target)
{
	for (size_t k = 0; k < table->key_count; k++) {
		const struct config_yaml_key *key = &table->keys[k];
		void *field = (char *)target + key->offset;

		if (key->kind == CONFIG_YAML_MAPPING &&
		    config_yaml_apply_defaults(key->mapping, field) != 0)
			return -1;
		if (key->kind == CONFIG_YAML_SCALAR &&
		    key->default_text != NULL &&
		    !key->parse(key->default_text, field))
			return -1;
	}
	return 0;
}

/* A mapping value: null is an empty one. */
static int
config_yaml_read_mapping(struct config_yaml *reader, const yaml_node_t *node,
    const char *key, const struct config_yaml_mapping *table, void *target)
{
	if (config_yaml_is_null(node))
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return config_yaml_report_expected(
		    reader, node, "a mapping", key);
	return config_yaml_read_keys(reader, node, table, target);
}

/* A CONFIG_YAML_SEQUENCE or CONFIG_YAML_PAIRS value (config_yaml_kind):
 * *items gets the array, *count counts the entries begun. */
static int
config_yaml_read_entries(struct config_yaml *reader,
    const struct config_yaml_key *key, const yaml_node_t *node,
    const char *name, void **items, size_t *count)
{
	const struct config_yaml_mapping any_key = {key->what, NULL, 0};
	bool pairs = key->kind == CONFIG_YAML_PAIRS;
	size_t size = key->entry_size, total;

	if (config_yaml_is_null(node))
		return 0;
	if (node->type != (pairs ? YAML_MAPPING_NODE : YAML_SEQUENCE_NODE))
		return config_yaml_report_expected(reader, node,
		    pairs ? key->expectation : "a sequence", name);
	total = pairs ? config_yaml_mapping_length(node)
	              : config_yaml_sequence_length(node);
	if (total == 0)
		return 0;
	*items = calloc(total, size);
	if (*items == NULL)
		return config_yaml_out_of_memory(reader);
	for (size_t i = 0; i < total; i++) {
		void *item = (char *)*items + *count * size;
		const yaml_node_t *entry;
		const char *text = NULL;
		size_t index;

		if (pairs) {
			const yaml_node_pair_t *pair =
			    node->data.mapping.pairs.start + i;

			if (config_yaml_check_key(reader, node, pair, &any_key,
			        &text, &index) != 0)
				return -1;
			(*count)++;
			if (key->read_pair(reader, pair, text, item) != 0)
				return -1;
			continue;
		}
		entry = config_yaml_node(
		    reader, node->data.sequence.items.start[i]);
		if (entry->type != YAML_MAPPING_NODE) {
			struct config_yaml_description found =
			    config_yaml_describe(entry);

			return config_yaml_report(reader, &entry->start_mark,
			    "expected a mapping for a %s entry, found %s%s%s",
			    key->what, found.quote, found.text, found.quote);
		}
		(*count)++;
		if (key->read_entry(reader, entry, item) != 0)
			return -1;
	}
	return 0;
}

/* Reads one value as its key's table entry describes it. */
static int
config_yaml_read_value(struct config_yaml *reader,
    const struct config_yaml_key *key, const yaml_node_t *node,
    const char *name, void *target)
{
	void *field = (char *)target + key->offset;
	size_t *count = (size_t *)((char *)target + key->count_offset);
	const char *text = NULL;
	void *items = NULL;
	int result;

	switch (key->kind) {
	case CONFIG_YAML_TEXT:
		return config_yaml_copy_checked_text(reader, node,
		    key->expectation, name, key->check, (char **)field);
	case CONFIG_YAML_SCALAR:
		if (config_yaml_value_text(
		        reader, node, key->expectation, name, &text) != 0)
			return -1;
		if (!key->parse(text, field))
			return config_yaml_report_expected(
			    reader, node, key->expectation, name);
		return 0;
	case CONFIG_YAML_MAPPING:
		return config_yaml_read_mapping(
		    reader, node, name, key->mapping, field);
	case CONFIG_YAML_SEQUENCE:
	case CONFIG_YAML_PAIRS:
		result = config_yaml_read_entries(
		    reader, key, node, name, &items, count);
		/* The field is a pointer to the entries' type. */
		memcpy(field, &items, sizeof items);
		return result;
	case CONFIG_YAML_CUSTOM:
		return key->read(reader, node, name, field);
	}
	return -1;
}

int
config_yaml_read_keys(struct config_yaml *reader, const yaml_node_t *mapping,
    const struct config_yaml_mapping *table, void *target)
{
	uint64_t seen = 0;

	/* `seen` has a bit a key: a table of more keys is a bug. */
	if (table->key_count > 64)
		return config_yaml_report(reader, NULL,
		    "internal error: more than 64 keys %s", table->context);
	for (const yaml_node_pair_t *pair = mapping->data.mapping.pairs.start;
	     pair < mapping->data.mapping.pairs.top; pair++) {
		const char *name = NULL;
		size_t index = 0;

		if (config_yaml_check_key(
		        reader, mapping, pair, table, &name, &index) != 0)
			return -1;
		if (index < 64)
			seen |= UINT64_C(1) << index;
		if (config_yaml_read_value(reader, &table->keys[index],
		        config_yaml_node(reader, pair->value), name,
		        target) != 0)
			return -1;
	}
	for (size_t index = 0; index < table->key_count && index < 64; index++)
		if (table->keys[index].required &&
		    (seen & (UINT64_C(1) << index)) == 0)
			return config_yaml_report(reader, &mapping->start_mark,
			    "missing required key '%s' %s",
			    table->keys[index].name, table->context);
	return 0;
}

const yaml_node_t *
config_yaml_value_of(
    struct config_yaml *reader, const yaml_node_t *mapping, const char *key)
{
	for (const yaml_node_pair_t *pair = mapping->data.mapping.pairs.start;
	     pair < mapping->data.mapping.pairs.top; pair++) {
		const yaml_node_t *name = config_yaml_node(reader, pair->key);

		if (name->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)name->data.scalar.value, key) == 0)
			return config_yaml_node(reader, pair->value);
	}
	return NULL;
}

/*
 * libyaml's reader reports only a byte offset; count lines and characters up
 * to it the way its scanner would (CR, LF and CRLF end a line).
 */
static yaml_mark_t
config_yaml_mark_of_offset(const struct config_yaml *reader, size_t offset)
{
	yaml_mark_t mark = {offset, 0, 0};

	if (offset > reader->length)
		offset = reader->length;
	for (size_t index = 0; index < offset; index++) {
		unsigned char byte = (unsigned char)reader->text[index];

		if (byte == '\n' ||
		    (byte == '\r' && (index + 1 >= reader->length ||
		                         reader->text[index + 1] != '\n'))) {
			mark.line++;
			mark.column = 0;
		} else if ((byte & 0xc0) != 0x80) {
			mark.column++;
		}
	}
	return mark;
}

static int
config_yaml_report_syntax_error(
    struct config_yaml *reader, const yaml_parser_t *parser)
{
	const char *problem =
	    parser->problem != NULL ? parser->problem : "unknown error";
	yaml_mark_t mark;

	switch (parser->error) {
	/* The loader fails some allocations without recording an error. */
	case YAML_NO_ERROR:
	case YAML_MEMORY_ERROR:
		return config_yaml_out_of_memory(reader);
	case YAML_READER_ERROR:
		mark =
		    config_yaml_mark_of_offset(reader, parser->problem_offset);
		break;
	default:
		mark = parser->problem_mark;
		break;
	}
	return config_yaml_report(
	    reader, &mark, "YAML syntax error: %s", problem);
}

int
config_yaml_check_nesting(struct config_yaml *reader, unsigned nesting_max)
{
	yaml_parser_t parser;
	unsigned depth = 0;
	int result = 0;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return config_yaml_out_of_memory(reader);
	yaml_parser_set_input_string(
	    &parser, (const unsigned char *)reader->text, reader->length);
	while (!done && result == 0) {
		yaml_event_t event;

		if (!yaml_parser_parse(&parser, &event)) {
			result =
			    config_yaml_report_syntax_error(reader, &parser);
			break;
		}
		switch (event.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > nesting_max)
				result = config_yaml_report(reader,
				    &event.start_mark,
				    "nesting deeper than %u levels",
				    nesting_max);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&event);
	}
	yaml_parser_delete(&parser);
	return result;
}

static int
config_yaml_read_stream(struct config_yaml *reader, yaml_parser_t *parser,
    int (*read_root)(
        struct config_yaml *reader, const yaml_node_t *root, void *target),
    void *target)
{
	yaml_document_t document;
	yaml_node_t *root;
	int result;

	if (!yaml_parser_load(parser, &document))
		return config_yaml_report_syntax_error(reader, parser);
	root = yaml_document_get_root_node(&document);
	if (root == NULL) {
		/* The stream ended: nothing but comments and blanks. */
		yaml_document_delete(&document);
		return 0;
	}
	reader->document = &document;
	result = read_root(reader, root, target);
	reader->document = NULL;
	yaml_document_delete(&document);
	if (result != 0)
		return -1;

	if (!yaml_parser_load(parser, &document))
		return config_yaml_report_syntax_error(reader, parser);
	if (yaml_document_get_root_node(&document) != NULL)
		result = config_yaml_report(reader, &document.start_mark,
		    "only one YAML document is allowed");
	yaml_document_delete(&document);
	return result;
}

int
config_yaml_read_document(struct config_yaml *reader,
    int (*read_root)(
        struct config_yaml *reader, const yaml_node_t *root, void *target),
    void *target)
{
	yaml_parser_t parser;
	int result;

	if (!yaml_parser_initialize(&parser))
		return config_yaml_out_of_memory(reader);
	yaml_parser_set_input_string(
	    &parser, (const unsigned char *)reader->text, reader->length);
	result = config_yaml_read_stream(reader, &parser, read_root, target);
	yaml_parser_delete(&parser);
	return result;
}
