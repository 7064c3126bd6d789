/*
 * dcistatd YAML configuration, read with libyaml's document API.
 *
 * Every check runs in document order and stops at the first error, so the
 * message always names the earliest problem in the file. The document is
 * walked only along the schema (at most five levels deep), which keeps the
 * walk finite even when an alias makes a node contain itself.
 *
 * Before the document is built, one pass of libyaml's event API checks the
 * syntax of the whole stream and its nesting depth: libyaml's scanner and
 * composer take time quadratic in the depth of flow collections, so a file
 * of nothing but '[' would otherwise keep the reader busy for hours. The
 * pass stops at the first collection past DCI_CONFIG_NESTING_MAX, having
 * scanned little more than that collection's opening.
 */
#define _POSIX_C_SOURCE 200809L

#include "config/config.h"

#include "base/log.h"
#include "config/config_values.h"
#include "config/config_yaml.h"
#include "model/derived.h"
#include "model/events.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#define COUNT_OF CONFIG_YAML_COUNT_OF

static int read_dci_access_entry(struct config_yaml *reader,
    const yaml_node_pair_t *pair, const char *name, void *item);
static int read_data_changed_entry(struct config_yaml *reader,
    const yaml_node_pair_t *pair, const char *name, void *item);
static int read_module(struct config_yaml *reader, const yaml_node_t *node,
    const char *key, void *field);
static int read_option(struct config_yaml *reader, const yaml_node_pair_t *pair,
    const char *name, void *item);
static int read_arguments(struct config_yaml *reader, const yaml_node_t *node,
    const char *key, void *field);
static int read_provider(
    struct config_yaml *reader, const yaml_node_t *node, void *entry);
static int read_derived_entry(
    struct config_yaml *reader, const yaml_node_t *node, void *entry);

/* The forms that fill more than one field of this file's structures. */

static bool
config_parse_in_place(const char *text, void *field)
{
	return dci_config_parse_in_place(text, field);
}

static bool
config_parse_rate_limit(const char *text, void *field)
{
	struct dci_config_notifications *notifications = field;

	return dci_events_rate_limit_parse(text, &notifications->rate_limit,
	           &notifications->rate_window_milliseconds, NULL, 0) == 0;
}

static bool
config_parse_derived_class(const char *text, void *field)
{
	struct dci_config_derived *derived = field;

	return config_parse_class_id(
	    text, derived->class_id, &derived->class_id_length);
}

/* The file's schema, one table per mapping: each key once, with the form
 * of its value (config_values.h), what a wrong value is told it should
 * be, its default and the field it fills. */

#define TEXT(key, expected, checked, structure, member)                        \
	{                                                                      \
		.name = (key), .kind = CONFIG_YAML_TEXT,                       \
		.offset = offsetof(structure, member),                         \
		.expectation = (expected), .check = (checked)                  \
	}
#define SCALAR(key, expected, parser, default_value, structure, member)        \
	{                                                                      \
		.name = (key), .kind = CONFIG_YAML_SCALAR,                     \
		.offset = offsetof(structure, member),                         \
		.expectation = (expected), .parse = (parser),                  \
		.default_text = (default_value)                                \
	}
#define CUSTOM(key, reader_function)                                           \
	{                                                                      \
		.name = (key), .kind = CONFIG_YAML_CUSTOM,                     \
		.read = (reader_function)                                      \
	}

/* A mapping of keys of its own (`table`), its fields from `field_offset`
 * on. */
#define MAPPING(key, table, field_offset)                                      \
	{                                                                      \
		.name = (key), .kind = CONFIG_YAML_MAPPING,                    \
		.offset = (field_offset), .mapping = (table)                   \
	}
/* An array of entries read from a sequence of mappings by `reader`. */
#define SEQUENCE(key, entry_name, reader, structure, member, count_member)     \
	{                                                                      \
		.name = (key), .kind = CONFIG_YAML_SEQUENCE,                   \
		.offset = offsetof(structure, member),                         \
		.count_offset = offsetof(structure, count_member),             \
		.entry_size = sizeof *((structure *)0)->member,                \
		.what = (entry_name), .read_entry = (reader)                   \
	}
/* An array of entries read from a mapping of any keys by `reader`. */
#define PAIRS(key, expected, context, reader, structure, member, count_member) \
	{                                                                      \
		.name = (key), .kind = CONFIG_YAML_PAIRS,                      \
		.offset = offsetof(structure, member),                         \
		.count_offset = offsetof(structure, count_member),             \
		.entry_size = sizeof *((structure *)0)->member,                \
		.expectation = (expected), .what = (context),                  \
		.read_pair = (reader)                                          \
	}

static const char class_id_expectation[] =
    "a class id such as 1.2 (1 to 16 levels, each 0..4294967294)";
static const char access_key_expectation[] =
    "a class id such as 1.2 (1 to 16 levels, each 0..4294967294), or one "
    "and an instance id such as 1.1/3 (1 to 16 words)";
/* The form dci_events_rate_limit_describe writes, with its bounds. */
static const char rate_limit_expectation[] =
    "\"N per SECONDS\" with N in 1..1000000 and SECONDS in 1..86400";
_Static_assert(DCI_EVENTS_RATE_LIMIT_MAX == 1000000u &&
                   DCI_EVENTS_RATE_WINDOW_MAX_SECONDS == 86400u,
    "rate_limit_expectation names the bounds");
_Static_assert(DCI_CLASS_ID_MAX_LEVELS == 16 && DCI_INSTANCE_ID_MAX_WORDS == 16,
    "class_id_expectation and access_key_expectation name the limits");

static const struct config_yaml_key agent_keys[] = {
    TEXT("agentx-socket", "a non-empty string", NULL, struct dci_config,
        agentx_socket),
    SCALAR("ping-interval", "an integer from 1 to 3600",
        config_parse_ping_interval, "5", struct dci_config,
        ping_interval_seconds),
    TEXT("log", "stderr, syslog or an absolute path", config_is_log_target,
        struct dci_config, log_target),
    TEXT("plugin-dir", "an absolute path", config_is_absolute_path,
        struct dci_config, plugin_dir),
    SCALAR("in-place-answers", "auto, on or off", config_parse_in_place, "auto",
        struct dci_config, in_place),
    SCALAR("busy-poll", "an integer from 0 to 1000 (microseconds)",
        config_parse_busy_poll, "0", struct dci_config, busy_poll_microseconds),
    TEXT("user", "a user name", config_is_user_name, struct dci_config, user),
    TEXT("dci-socket", "an absolute path", config_is_absolute_path,
        struct dci_config, dci_socket),
    SCALAR("dci-socket-mode", "permission bits in octal (0 to 0777)",
        config_parse_socket_mode, "0666", struct dci_config, dci_socket_mode),
    SCALAR("dci-work", "an integer from 1 to 1000 (milliseconds per second)",
        config_parse_dci_work, "20", struct dci_config, dci_work_milliseconds),
    PAIRS("dci-access", "a mapping of class ids to users and groups",
        "in dci-access", read_dci_access_entry, struct dci_config, dci_access,
        dci_access_count),
};
static const struct config_yaml_mapping agent_mapping = {
    "in agent", agent_keys, COUNT_OF(agent_keys)};

#define NOTIFY(key, member)                                                    \
	SCALAR(key, "true or false", config_parse_boolean, "true",             \
	    struct dci_config_notifications, member)
static const struct config_yaml_key notification_keys[] = {
    NOTIFY("instance-added", instance_added),
    NOTIFY("instance-removed", instance_removed),
    NOTIFY("supplier-failed", supplier_failed),
    NOTIFY("supplier-recovered", supplier_recovered),
    NOTIFY("supplier-restarted", supplier_restarted),
    PAIRS("data-changed", "a mapping of class labels to datum labels",
        "in data-changed", read_data_changed_entry,
        struct dci_config_notifications, data_changed, data_changed_count),
    {.name = "rate-limit",
        .kind = CONFIG_YAML_SCALAR,
        .offset = 0,
        .expectation = rate_limit_expectation,
        .parse = config_parse_rate_limit,
        .default_text = "10 per 60"},
};
static const struct config_yaml_mapping notification_mapping = {
    "in notifications", notification_keys, COUNT_OF(notification_keys)};

static const struct config_yaml_key top_keys[] = {
    /* The agent's settings are dci_config's own. */
    MAPPING("agent", &agent_mapping, 0),
    SEQUENCE("providers", "provider", read_provider, struct dci_config,
        providers, provider_count),
    SEQUENCE("derived", "derived", read_derived_entry, struct dci_config,
        derived, derived_count),
    MAPPING("notifications", &notification_mapping,
        offsetof(struct dci_config, notifications)),
};
static const struct config_yaml_mapping top_mapping = {
    "at top level", top_keys, COUNT_OF(top_keys)};

static const struct config_yaml_key provider_keys[] = {
    {.name = "module",
        .kind = CONFIG_YAML_CUSTOM,
        .read = read_module,
        .required = true},
    SCALAR("refresh", "a number of seconds from 0.01 to 86400",
        config_parse_refresh, "1", struct dci_config_provider,
        refresh_milliseconds),
    SCALAR("stale-periods", "a whole number of refresh periods from 2 to 1000",
        config_parse_stale_periods, "3", struct dci_config_provider,
        stale_periods),
    PAIRS("options", "a mapping", "in options", read_option,
        struct dci_config_provider, options, option_count),
    SCALAR("isolate", "true or false", config_parse_boolean, "false",
        struct dci_config_provider, isolate),
};
static const struct config_yaml_mapping provider_mapping = {
    "in provider entry", provider_keys, COUNT_OF(provider_keys)};

static const struct config_yaml_key derived_keys[] = {
    {.name = "class",
        .kind = CONFIG_YAML_SCALAR,
        .offset = 0,
        .expectation = class_id_expectation,
        .parse = config_parse_derived_class,
        .required = true},
    {.name = "label",
        .kind = CONFIG_YAML_TEXT,
        .offset = offsetof(struct dci_config_derived, label),
        .expectation = "a non-empty string",
        .required = true},
    {.name = "id",
        .kind = CONFIG_YAML_SCALAR,
        .offset = offsetof(struct dci_config_derived, id),
        .expectation =
            "a number from 1 to 255 (the low 8 bits of the datum id)",
        .parse = config_parse_derived_id,
        .required = true},
    {.name = "metric",
        .kind = CONFIG_YAML_SCALAR,
        .offset = offsetof(struct dci_config_derived, derivation),
        .expectation = "one of sum2, sum3, difference, average, percent, "
                       "product, variance",
        .parse = config_parse_derivation,
        .required = true},
    {.name = "arguments",
        .kind = CONFIG_YAML_CUSTOM,
        .offset = 0,
        .read = read_arguments,
        .required = true},
    TEXT("description", "a non-empty string", NULL, struct dci_config_derived,
        description),
};
static const struct config_yaml_mapping derived_mapping = {
    "in derived entry", derived_keys, COUNT_OF(derived_keys)};

bool
dci_config_parse_in_place(const char *text, enum dci_config_in_place *mode)
{
	static const char *const names[] = {
	    [DCI_CONFIG_IN_PLACE_AUTO] = "auto",
	    [DCI_CONFIG_IN_PLACE_ON] = "on",
	    [DCI_CONFIG_IN_PLACE_OFF] = "off",
	};

	for (size_t i = 0; i < COUNT_OF(names); i++) {
		if (strcmp(text, names[i]) == 0) {
			*mode = (enum dci_config_in_place)i;
			return true;
		}
	}
	return false;
}

/* What each text of a sequence must be: `what` (for the expectation),
 * accepted by `valid` (NULL: any text), and listed once when `unique`. */
struct text_rule {
	const char *what;
	bool (*valid)(const char *text);
	bool unique;
};

/* Copies the texts of a sequence into `texts`, and with `positions` (may
 * be NULL unless rule->unique) their positions (room for each), *count
 * counting those copied. */
static int
read_texts(struct config_yaml *reader, const yaml_node_t *node, const char *key,
    const struct text_rule *rule, char **texts,
    struct dci_config_position *positions, size_t *count)
{
	for (const yaml_node_item_t *item = node->data.sequence.items.start;
	     item < node->data.sequence.items.top; item++) {
		const yaml_node_t *element = config_yaml_node(reader, *item);
		const char *text;

		/* Counted once copied, so that the configuration's release
		 * frees it whatever follows. */
		if (config_yaml_copy_checked_text(reader, element, rule->what,
		        key, rule->valid, &texts[*count]) != 0)
			return -1;
		text = texts[*count];
		if (positions != NULL)
			positions[*count] =
			    config_yaml_position(reader, element);
		(*count)++;
		for (size_t d = 0; rule->unique && d + 1 < *count; d++)
			if (strcmp(texts[d], text) == 0)
				return config_yaml_report(reader,
				    &element->start_mark,
				    "datum '%s' listed twice for '%s' (first "
				    "at %u:%u)",
				    text, key, positions[d].line,
				    positions[d].column);
	}
	return 0;
}

/* Datum labels: a derived metric's arguments (one may repeat), a watch's
 * (each once). */
static const struct text_rule labels = {"a datum label", NULL, false};
static const struct text_rule unique_labels = {"a datum label", NULL, true};
/* The users or groups of dci-access. */
static const struct text_rule user_names = {
    "a name", config_is_user_name, false};

/* "users" or "groups" of one dci-access entry: a sequence of names. */
static int
read_dci_access_names(struct config_yaml *reader, const yaml_node_t *node,
    const char *key, char ***names, size_t *count)
{
	static const char expectation[] = "a sequence of user or group names";

	if (node->type != YAML_SEQUENCE_NODE)
		return config_yaml_report_expected(
		    reader, node, expectation, key);
	*names = calloc(config_yaml_sequence_length(node) + 1, sizeof(**names));
	if (*names == NULL)
		return config_yaml_out_of_memory(reader);
	return read_texts(reader, node, key, &user_names, *names, NULL, count);
}

/* One "CLASS-ID[/INSTANCE-ID]: {users: [...], groups: [...]}" of
 * dci-access, a config_yaml_pair_reader. */
static int
read_dci_access_entry(struct config_yaml *reader, const yaml_node_pair_t *pair,
    const char *name, void *item)
{
	struct dci_config_dci_access *entry = item;
	static const struct config_yaml_key keys[] = {
	    {.name = "users"}, {.name = "groups"}};
	static const struct config_yaml_mapping table = {
	    "in a dci-access entry", keys, COUNT_OF(keys)};
	const yaml_node_t *key_node = config_yaml_node(reader, pair->key);
	const yaml_node_t *value = config_yaml_node(reader, pair->value);

	entry->position = config_yaml_position(reader, key_node);
	if (!config_parse_access_key(name, entry->class_id,
	        &entry->class_id_length, entry->instance,
	        &entry->instance_words))
		return config_yaml_report_expected(
		    reader, key_node, access_key_expectation, "dci-access");
	if (value->type != YAML_MAPPING_NODE)
		return config_yaml_report_expected(
		    reader, value, "a mapping with users and groups", name);
	for (const yaml_node_pair_t *inner = value->data.mapping.pairs.start;
	     inner < value->data.mapping.pairs.top; inner++) {
		const char *inner_name = NULL;
		size_t index;
		int result;

		if (config_yaml_check_key(
		        reader, value, inner, &table, &inner_name, &index) != 0)
			return -1;
		if (index == 0)
			result = read_dci_access_names(reader,
			    config_yaml_node(reader, inner->value), inner_name,
			    &entry->users, &entry->user_count);
		else
			result = read_dci_access_names(reader,
			    config_yaml_node(reader, inner->value), inner_name,
			    &entry->groups, &entry->group_count);
		if (result != 0)
			return -1;
	}
	return 0;
}

/* The length of a sequence of `minimum` to `maximum` datum labels, or -1
 * after telling `expectation`. */
static long
datum_labels_length(struct config_yaml *reader, const yaml_node_t *node,
    const char *key, const char *expectation, size_t minimum, size_t maximum)
{
	size_t count;

	if (node->type != YAML_SEQUENCE_NODE)
		return config_yaml_report_expected(
		    reader, node, expectation, key);
	count = config_yaml_sequence_length(node);
	if (count < minimum || count > maximum)
		return config_yaml_report_expected(
		    reader, node, expectation, key);
	return (long)count;
}

/* One `CLASS: [DATUM, ...]` of data-changed: unique non-empty labels,
 * at most DCI_CONFIG_WATCHED_DATUMS_MAX of them. */
static int
read_watched_datums(struct config_yaml *reader, const yaml_node_t *node,
    const char *key, struct dci_config_watch *watch)
{
	long count;

	_Static_assert(DCI_CONFIG_WATCHED_DATUMS_MAX == 64,
	    "the expectation's text names the limit");
	count = datum_labels_length(reader, node, key,
	    "a sequence of 1 to 64 datum labels", 1,
	    DCI_CONFIG_WATCHED_DATUMS_MAX);
	if (count < 0)
		return -1;
	watch->datums = calloc((size_t)count, sizeof *watch->datums);
	watch->datum_positions =
	    calloc((size_t)count, sizeof *watch->datum_positions);
	if (watch->datums == NULL || watch->datum_positions == NULL)
		return config_yaml_out_of_memory(reader);
	return read_texts(reader, node, key, &unique_labels, watch->datums,
	    watch->datum_positions, &watch->datum_count);
}

/* One `CLASS: [DATUM, ...]` of data-changed, a config_yaml_pair_reader. */
static int
read_data_changed_entry(struct config_yaml *reader,
    const yaml_node_pair_t *pair, const char *name, void *item)
{
	struct dci_config_watch *watch = item;
	const yaml_node_t *key_node = config_yaml_node(reader, pair->key);

	if (name[0] == '\0')
		return config_yaml_report(reader, &key_node->start_mark,
		    "expected a class label or id in '%s', found an empty key",
		    "data-changed");
	watch->position = config_yaml_position(reader, key_node);
	if (config_yaml_copy_text(reader, name, &watch->class_name) != 0)
		return -1;
	return read_watched_datums(
	    reader, config_yaml_node(reader, pair->value), name, watch);
}

/* `field` is the provider entry: the module's position is kept for the
 * loader's messages. */
static int
read_module(struct config_yaml *reader, const yaml_node_t *node,
    const char *key, void *field)
{
	static const char expectation[] = "a plug-in name or an absolute path";
	struct dci_config_provider *provider = field;
	const char *text = NULL;

	if (config_yaml_value_text(reader, node, expectation, key, &text) != 0)
		return -1;
	if (!config_is_module_name(text) && !config_is_absolute_path(text))
		return config_yaml_report_expected(
		    reader, node, expectation, key);
	provider->module_position = config_yaml_position(reader, node);
	return config_yaml_copy_text(reader, text, &provider->module);
}

static int
report_option_value(
    struct config_yaml *reader, const yaml_node_t *node, const char *key)
{
	return config_yaml_report(reader, &node->start_mark,
	    "expected a scalar or a sequence of scalars for option '%s'", key);
}

/* Fills option->values; value_count counts the copies made so far. */
static int
read_option_values(struct config_yaml *reader, const yaml_node_t *node,
    struct dci_config_option *option)
{
	const char *text = NULL;

	if (node->type == YAML_SCALAR_NODE) {
		option->values = calloc(2, sizeof *option->values);
		if (option->values == NULL)
			return config_yaml_out_of_memory(reader);
		if (config_yaml_scalar_text(reader, node, &text) != 0 ||
		    config_yaml_copy_text(reader, text, &option->values[0]) !=
		        0)
			return -1;
		option->value_count = 1;
		return 0;
	}
	if (node->type != YAML_SEQUENCE_NODE)
		return report_option_value(reader, node, option->key);
	option->is_sequence = true;
	option->values = calloc(
	    config_yaml_sequence_length(node) + 1, sizeof *option->values);
	if (option->values == NULL)
		return config_yaml_out_of_memory(reader);
	for (const yaml_node_item_t *item = node->data.sequence.items.start;
	     item < node->data.sequence.items.top; item++) {
		const yaml_node_t *element = config_yaml_node(reader, *item);

		if (element->type != YAML_SCALAR_NODE)
			return report_option_value(
			    reader, element, option->key);
		if (config_yaml_scalar_text(reader, element, &text) != 0 ||
		    config_yaml_copy_text(reader, text,
		        &option->values[option->value_count]) != 0)
			return -1;
		option->value_count++;
	}
	return 0;
}

/* One key of a provider's `options` and its values, a
 * config_yaml_pair_reader. */
static int
read_option(struct config_yaml *reader, const yaml_node_pair_t *pair,
    const char *name, void *item)
{
	struct dci_config_option *option = item;

	option->position =
	    config_yaml_position(reader, config_yaml_node(reader, pair->key));
	if (config_yaml_copy_text(reader, name, &option->key) != 0)
		return -1;
	return read_option_values(
	    reader, config_yaml_node(reader, pair->value), option);
}

/* The entry reader (config_yaml_entry_reader) of a providers entry. */
static int
read_provider(struct config_yaml *reader, const yaml_node_t *node, void *entry)
{
	struct dci_config_provider *provider = entry;

	if (config_yaml_apply_defaults(&provider_mapping, provider) != 0)
		return config_yaml_report(reader, NULL,
		    "internal error: a provider default does not parse");
	provider->position = config_yaml_position(reader, node);
	return config_yaml_read_keys(reader, node, &provider_mapping, provider);
}

/* A derived entry's `arguments`: 2 or 3 datum labels. `field` is the
 * entry. */
static int
read_arguments(struct config_yaml *reader, const yaml_node_t *node,
    const char *key, void *field)
{
	struct dci_config_derived *derived = field;

	if (datum_labels_length(reader, node, key,
	        "a sequence of 2 or 3 datum labels", 2,
	        COUNT_OF(derived->arguments)) < 0)
		return -1;
	return read_texts(reader, node, key, &labels, derived->arguments,
	    derived->argument_positions, &derived->argument_count);
}

/* The entry reader (config_yaml_entry_reader) of a derived entry. */
static int
read_derived_entry(
    struct config_yaml *reader, const yaml_node_t *node, void *entry)
{
	struct dci_config_derived *derived = entry;
	size_t arity;

	derived->position = config_yaml_position(reader, node);
	if (config_yaml_read_keys(reader, node, &derived_mapping, derived) != 0)
		return -1;
	arity = dci_derived_arity(derived->derivation);
	if (derived->argument_count != arity)
		return config_yaml_report(reader,
		    &config_yaml_value_of(reader, node, "arguments")
		         ->start_mark,
		    "%s takes %zu arguments, found %zu",
		    config_derivation_names[derived->derivation -
		                            DCI_UNIT_DERIVED_SUM2],
		    arity, derived->argument_count);
	return 0;
}

static int
read_root(struct config_yaml *reader, const yaml_node_t *root, void *target)
{
	/* An explicit but empty document ("---" alone). */
	if (config_yaml_is_null(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE) {
		struct config_yaml_description found =
		    config_yaml_describe(root);

		return config_yaml_report(reader, &root->start_mark,
		    "expected a mapping at top level, found %s%s%s",
		    found.quote, found.text, found.quote);
	}
	return config_yaml_read_keys(reader, root, &top_mapping, target);
}

int
dci_config_parse(const char *text, size_t length, const char *name,
    struct dci_config **config, char *error, size_t error_size)
{
	struct config_yaml reader;
	struct dci_config *parsed;

	*config = NULL;
	if (error != NULL && error_size > 0)
		error[0] = '\0';
	if (text == NULL)
		length = 0;
	memset(&reader, 0, sizeof reader);
	reader.name = name != NULL ? name : "<string>";
	reader.text = text != NULL ? text : "";
	reader.length = length;
	reader.error = error;
	reader.error_size = error_size;

	parsed = calloc(1, sizeof *parsed);
	if (parsed == NULL)
		return config_yaml_out_of_memory(&reader);
	if (config_yaml_copy_text(&reader, reader.name, &parsed->file) != 0) {
		dci_config_free(parsed);
		return -1;
	}
	reader.file = parsed->file;
	if (config_yaml_apply_defaults(&top_mapping, parsed) != 0) {
		dci_config_free(parsed);
		return config_yaml_report(&reader, NULL,
		    "internal error: a default of the configuration's schema "
		    "does not parse");
	}
	if (config_yaml_check_nesting(&reader, DCI_CONFIG_NESTING_MAX) != 0 ||
	    config_yaml_read_document(&reader, read_root, parsed) != 0) {
		dci_config_free(parsed);
		return -1;
	}
	*config = parsed;
	return 0;
}

/*
 * Reads the whole file so that reader errors can be placed by offset. A file
 * longer than DCI_CONFIG_FILE_MAX_BYTES is refused once that much and one
 * byte more are read: a configuration is a few kilobytes, and a larger file
 * is a mistake (or a device) that must not exhaust memory.
 */
static int
read_file(struct config_yaml *state, FILE *stream, char **text, size_t *length)
{
	const size_t limit = DCI_CONFIG_FILE_MAX_BYTES + 1;
	char *buffer = NULL;
	size_t capacity = 0;
	size_t used = 0;

	for (;;) {
		size_t got;

		if (used == limit) {
			free(buffer);
			return config_yaml_report(state, NULL,
			    "cannot read: larger than %u bytes",
			    DCI_CONFIG_FILE_MAX_BYTES);
		}
		if (used == capacity) {
			size_t grown = capacity == 0 ? 4096 : capacity * 2;
			char *larger;

			if (grown > limit)
				grown = limit;
			larger = realloc(buffer, grown);
			if (larger == NULL) {
				free(buffer);
				return config_yaml_out_of_memory(state);
			}
			buffer = larger;
			capacity = grown;
		}
		got = fread(buffer + used, 1, capacity - used, stream);
		used += got;
		if (got == 0) {
			if (ferror(stream)) {
				int saved = errno;

				free(buffer);
				return config_yaml_report(state, NULL,
				    "cannot read: %s", strerror(saved));
			}
			break;
		}
	}
	*text = buffer;
	*length = used;
	return 0;
}

int
dci_config_load(const char *path, struct dci_config **config, char *error,
    size_t error_size)
{
	struct config_yaml state;
	FILE *stream;
	char *text = NULL;
	size_t length = 0;
	int result;

	*config = NULL;
	if (error != NULL && error_size > 0)
		error[0] = '\0';
	memset(&state, 0, sizeof state);
	state.name = path;
	state.error = error;
	state.error_size = error_size;

	stream = fopen(path, "r");
	if (stream == NULL)
		return config_yaml_report(
		    &state, NULL, "cannot open: %s", strerror(errno));
	result = read_file(&state, stream, &text, &length);
	fclose(stream);
	if (result != 0)
		return -1;
	result =
	    dci_config_parse(text, length, path, config, error, error_size);
	free(text);
	if (result == 0 && (*config)->provider_count == 0)
		log_warnx("%s: no provider is configured: the agent serves "
		          "no statistics",
		    path);
	return result;
}

static void
free_option(struct dci_config_option *option)
{
	size_t index;

	free(option->key);
	for (index = 0; index < option->value_count; index++)
		free(option->values[index]);
	free(option->values);
}

static void
free_provider(struct dci_config_provider *provider)
{
	size_t index;

	free(provider->module);
	for (index = 0; index < provider->option_count; index++)
		free_option(&provider->options[index]);
	free(provider->options);
}

void
dci_config_free(struct dci_config *config)
{
	size_t index;

	if (config == NULL)
		return;
	for (index = 0; index < config->provider_count; index++)
		free_provider(&config->providers[index]);
	free(config->providers);
	for (index = 0; index < config->derived_count; index++) {
		struct dci_config_derived *derived = &config->derived[index];

		free(derived->label);
		free(derived->description);
		for (size_t a = 0; a < derived->argument_count; a++)
			free(derived->arguments[a]);
	}
	free(config->derived);
	for (index = 0; index < config->notifications.data_changed_count;
	     index++) {
		struct dci_config_watch *watch =
		    &config->notifications.data_changed[index];

		free(watch->class_name);
		for (size_t d = 0; d < watch->datum_count; d++)
			free(watch->datums[d]);
		free(watch->datums);
		free(watch->datum_positions);
	}
	free(config->notifications.data_changed);
	for (index = 0; index < config->dci_access_count; index++) {
		struct dci_config_dci_access *entry =
		    &config->dci_access[index];

		for (size_t n = 0; n < entry->user_count; n++)
			free(entry->users[n]);
		for (size_t n = 0; n < entry->group_count; n++)
			free(entry->groups[n]);
		free(entry->users);
		free(entry->groups);
	}
	free(config->dci_access);
	free(config->dci_socket);
	free(config->agentx_socket);
	free(config->log_target);
	free(config->user);
	free(config->plugin_dir);
	free(config->file);
	free(config);
}

const struct dci_config_option *
dci_config_provider_option(
    const struct dci_config_provider *provider, const char *key)
{
	size_t index;

	if (provider == NULL || key == NULL)
		return NULL;
	for (index = 0; index < provider->option_count; index++)
		if (strcmp(provider->options[index].key, key) == 0)
			return &provider->options[index];
	return NULL;
}
