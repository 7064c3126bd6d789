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

#include "model/derived.h"
#include "model/events.h"
#include "base/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#define PING_INTERVAL_MIN_SECONDS 1u
#define PING_INTERVAL_MAX_SECONDS 3600u
#define REFRESH_MIN_MILLISECONDS 10u
#define REFRESH_MAX_MILLISECONDS 86400000u
#define REFRESH_MAX_SECONDS (REFRESH_MAX_MILLISECONDS / 1000u)

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__GNUC__)
#define PRINTF_LIKE(format_index, first_argument)                              \
	__attribute__((format(printf, format_index, first_argument)))
#else
#define PRINTF_LIKE(format_index, first_argument)
#endif

struct parse_state {
	const char *name; /* for messages; outlives the parse */
	const char *text; /* the raw input, to place reader errors */
	size_t length;
	yaml_document_t *document;
	struct dci_config *config;
	char *error;
	size_t error_size;
};

/* The keys a mapping accepts. */
struct key_set {
	const char *context;     /* names the mapping: "in agent" */
	const char *const *keys; /* NULL: any key is accepted */
	size_t key_count;
};

/* How a node is named after "found": a quoted scalar or a kind. */
struct description {
	const char *quote;
	const char *text;
};

enum top_key { TOP_AGENT, TOP_PROVIDERS, TOP_DERIVED, TOP_NOTIFICATIONS };
static const char *const top_keys[] = {
    "agent", "providers", "derived", "notifications"};
static const struct key_set top_key_set = {
    "at top level", top_keys, COUNT_OF(top_keys)};

enum agent_key {
	AGENT_AGENTX_SOCKET,
	AGENT_PING_INTERVAL,
	AGENT_LOG,
	AGENT_PLUGIN_DIR,
	AGENT_IN_PLACE_ANSWERS,
	AGENT_USER,
	AGENT_DCI_SOCKET,
	AGENT_DCI_SOCKET_MODE,
	AGENT_DCI_ACCESS
};
static const char *const agent_keys[] = {"agentx-socket", "ping-interval",
    "log", "plugin-dir", "in-place-answers", "user", "dci-socket",
    "dci-socket-mode", "dci-access"};
static const struct key_set agent_key_set = {
    "in agent", agent_keys, COUNT_OF(agent_keys)};

enum provider_key {
	PROVIDER_MODULE,
	PROVIDER_REFRESH,
	PROVIDER_STALE_PERIODS,
	PROVIDER_OPTIONS,
	PROVIDER_ISOLATE
};
static const char *const provider_keys[] = {
    "module", "refresh", "stale-periods", "options", "isolate"};
static const struct key_set provider_key_set = {
    "in provider entry", provider_keys, COUNT_OF(provider_keys)};

static const struct key_set option_key_set = {"in options", NULL, 0};

enum notification_key {
	NOTIFICATION_INSTANCE_ADDED,
	NOTIFICATION_INSTANCE_REMOVED,
	NOTIFICATION_SUPPLIER_FAILED,
	NOTIFICATION_SUPPLIER_RECOVERED,
	NOTIFICATION_SUPPLIER_RESTARTED,
	NOTIFICATION_DATA_CHANGED,
	NOTIFICATION_RATE_LIMIT
};
static const char *const notification_keys[] = {"instance-added",
    "instance-removed", "supplier-failed", "supplier-recovered",
    "supplier-restarted", "data-changed", "rate-limit"};
static const struct key_set notification_key_set = {
    "in notifications", notification_keys, COUNT_OF(notification_keys)};

static const struct key_set watch_key_set = {"in data-changed", NULL, 0};

enum derived_key {
	DERIVED_CLASS,
	DERIVED_LABEL,
	DERIVED_ID,
	DERIVED_METRIC,
	DERIVED_ARGUMENTS,
	DERIVED_DESCRIPTION
};
static const char *const derived_keys[] = {
    "class", "label", "id", "metric", "arguments", "description"};
static const struct key_set derived_key_set = {
    "in derived entry", derived_keys, COUNT_OF(derived_keys)};

/* The `metric` names, in the order of DCI_UNIT_DERIVED_SUM2... */
static const char *const derivation_names[] = {
    "sum2", "sum3", "difference", "average", "percent", "product", "variance"};

static int report(struct parse_state *state, const yaml_mark_t *mark,
    const char *format, ...) PRINTF_LIKE(3, 4);

/*
 * Writes "NAME:LINE:COLUMN: message", or "NAME: message" without a mark, and
 * returns -1 so that callers can `return report(...)`.
 */
static int
report(
    struct parse_state *state, const yaml_mark_t *mark, const char *format, ...)
{
	va_list arguments;
	int written;

	if (state->error == NULL || state->error_size == 0)
		return -1;
	if (mark != NULL)
		written = snprintf(state->error, state->error_size,
		    "%s:%zu:%zu: ", state->name, mark->line + 1,
		    mark->column + 1);
	else
		written = snprintf(
		    state->error, state->error_size, "%s: ", state->name);
	if (written < 0) {
		state->error[0] = '\0';
		return -1;
	}
	if ((size_t)written < state->error_size) {
		va_start(arguments, format);
		vsnprintf(state->error + written,
		    state->error_size - (size_t)written, format, arguments);
		va_end(arguments);
	}
	return -1;
}

static int
out_of_memory(struct parse_state *state)
{
	return report(state, NULL, "out of memory");
}

static yaml_node_t *
node_at(struct parse_state *state, yaml_node_item_t index)
{
	return yaml_document_get_node(state->document, index);
}

static struct dci_config_position
position_of(struct parse_state *state, const yaml_node_t *node)
{
	struct dci_config_position position;

	position.file = state->config->file;
	position.line = (unsigned)node->start_mark.line + 1;
	position.column = (unsigned)node->start_mark.column + 1;
	return position;
}

/* The YAML 1.2 core schema's null: an absent value, `~` or `null`. */
static bool
is_null(const yaml_node_t *node)
{
	static const char *const spellings[] = {
	    "", "~", "null", "Null", "NULL"};
	const char *value;
	size_t index;

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	value = (const char *)node->data.scalar.value;
	for (index = 0; index < COUNT_OF(spellings); index++)
		if (strcmp(value, spellings[index]) == 0)
			return true;
	return false;
}

static struct description
describe(const yaml_node_t *node)
{
	struct description description = {"", ""};

	switch (node->type) {
	case YAML_MAPPING_NODE:
		description.text = "a mapping";
		break;
	case YAML_SEQUENCE_NODE:
		description.text = "a sequence";
		break;
	case YAML_SCALAR_NODE:
		if (is_null(node) || node->data.scalar.length == 0) {
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

/* "expected EXPECTATION for 'KEY', found ..." at the value. */
static int
report_expected(struct parse_state *state, const yaml_node_t *node,
    const char *expectation, const char *key)
{
	struct description found = describe(node);

	return report(state, &node->start_mark,
	    "expected %s for '%s', found %s%s%s", expectation, key, found.quote,
	    found.text, found.quote);
}

/*
 * The text of a scalar node, valid while the document lives. A double-quoted
 * "\0" would otherwise cut the C string short and change its meaning.
 */
static int
scalar_text(
    struct parse_state *state, const yaml_node_t *node, const char **text)
{
	const char *value = (const char *)node->data.scalar.value;

	if (strlen(value) != node->data.scalar.length)
		return report(
		    state, &node->start_mark, "NUL characters are not allowed");
	*text = value;
	return 0;
}

/* The text of a non-empty scalar value, or an error naming the expectation. */
static int
value_text(struct parse_state *state, const yaml_node_t *node,
    const char *expectation, const char *key, const char **text)
{
	if (node->type != YAML_SCALAR_NODE || is_null(node) ||
	    node->data.scalar.length == 0)
		return report_expected(state, node, expectation, key);
	return scalar_text(state, node, text);
}

static int
copy_text(struct parse_state *state, const char *text, char **copy)
{
	*copy = strdup(text);
	if (*copy == NULL)
		return out_of_memory(state);
	return 0;
}

static bool
is_absolute_path(const char *text)
{
	return text[0] == '/';
}

static bool
is_digit(char character)
{
	return character >= '0' && character <= '9';
}

static bool
is_module_name(const char *text)
{
	const char *cursor;

	if (*text == '\0')
		return false;
	for (cursor = text; *cursor != '\0'; cursor++) {
		char character = *cursor;

		if (!(character >= 'A' && character <= 'Z') &&
		    !(character >= 'a' && character <= 'z') &&
		    !is_digit(character) && character != '_' &&
		    character != '-')
			return false;
	}
	return true;
}

/* Decimal digits only; anything above `limit` is reported as limit + 1. */
static bool
parse_whole_number(
    const char **cursor, unsigned long limit, unsigned long *value)
{
	const char *position = *cursor;
	unsigned long number = 0;

	if (!is_digit(*position))
		return false;
	for (; is_digit(*position); position++)
		if (number <= limit)
			number = number * 10 + (unsigned long)(*position - '0');
	*value = number <= limit ? number : limit + 1;
	*cursor = position;
	return true;
}

static bool
parse_ping_interval(const char *text, unsigned *seconds)
{
	unsigned long value;

	if (!parse_whole_number(&text, PING_INTERVAL_MAX_SECONDS, &value) ||
	    *text != '\0' || value < PING_INTERVAL_MIN_SECONDS ||
	    value > PING_INTERVAL_MAX_SECONDS)
		return false;
	*seconds = (unsigned)value;
	return true;
}

/*
 * "SECONDS[.FRACTION]" to milliseconds, rounded half up. The range is checked
 * on the exact value, so "86400.0004" is refused although it rounds into it.
 */
static bool
parse_refresh(const char *text, unsigned *milliseconds)
{
	unsigned long seconds;
	unsigned long fraction = 0;
	unsigned long total;
	unsigned digits = 0;
	bool round_up = false;
	bool inexact = false;

	if (!parse_whole_number(&text, REFRESH_MAX_SECONDS, &seconds))
		return false;
	if (*text == '.') {
		text++;
		if (!is_digit(*text))
			return false;
		for (; is_digit(*text); text++, digits++) {
			unsigned digit = (unsigned)(*text - '0');

			if (digits < 3)
				fraction = fraction * 10 + digit;
			else if (digit != 0)
				inexact = true;
			if (digits == 3 && digit >= 5)
				round_up = true;
		}
		for (; digits < 3; digits++)
			fraction *= 10;
	}
	if (*text != '\0')
		return false;
	total = seconds * 1000 + fraction;
	if (total < REFRESH_MIN_MILLISECONDS ||
	    total > REFRESH_MAX_MILLISECONDS ||
	    (total == REFRESH_MAX_MILLISECONDS && inexact))
		return false;
	*milliseconds = (unsigned)(total + (round_up ? 1 : 0));
	return true;
}

static void
list_keys(const struct key_set *set, char *buffer, size_t size)
{
	size_t used = 0;
	size_t index;

	buffer[0] = '\0';
	for (index = 0; index < set->key_count && used < size; index++) {
		int written = snprintf(buffer + used, size - used, "%s%s",
		    index == 0 ? "" : ", ", set->keys[index]);

		if (written < 0)
			break;
		used += (size_t)written;
	}
}

/*
 * Checks the key of `pair` (a scalar, not seen before in `mapping`, one of
 * `set`) and returns its text and its index in set->keys.
 */
static int
check_key(struct parse_state *state, const yaml_node_t *mapping,
    const yaml_node_pair_t *pair, const struct key_set *set, const char **text,
    size_t *index)
{
	const yaml_node_t *key = node_at(state, pair->key);
	const yaml_node_pair_t *earlier;
	char expected[128];

	if (key->type != YAML_SCALAR_NODE) {
		struct description found = describe(key);

		return report(state, &key->start_mark,
		    "expected a scalar key %s, found %s", set->context,
		    found.text);
	}
	if (scalar_text(state, key, text) != 0)
		return -1;
	for (earlier = mapping->data.mapping.pairs.start; earlier < pair;
	     earlier++) {
		const yaml_node_t *other = node_at(state, earlier->key);

		if (other->data.scalar.length == key->data.scalar.length &&
		    strcmp((const char *)other->data.scalar.value, *text) == 0)
			return report(state, &key->start_mark,
			    "duplicate key '%s' (first at %zu:%zu)", *text,
			    other->start_mark.line + 1,
			    other->start_mark.column + 1);
	}
	if (set->keys == NULL)
		return 0;
	for (*index = 0; *index < set->key_count; (*index)++)
		if (strcmp(*text, set->keys[*index]) == 0)
			return 0;
	list_keys(set, expected, sizeof expected);
	return report(state, &key->start_mark,
	    "unknown key '%s' %s: expected one of %s", *text, set->context,
	    expected);
}

static int
read_string(struct parse_state *state, const yaml_node_t *node, const char *key,
    char **target)
{
	const char *text = NULL;

	if (value_text(state, node, "a non-empty string", key, &text) != 0)
		return -1;
	return copy_text(state, text, target);
}

static int
read_ping_interval(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	static const char expectation[] = "an integer from 1 to 3600";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (!parse_ping_interval(text, &state->config->ping_interval_seconds))
		return report_expected(state, node, expectation, key);
	return 0;
}

static int
read_log_target(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	static const char expectation[] = "stderr, syslog or an absolute path";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (strcmp(text, "stderr") != 0 && strcmp(text, "syslog") != 0 &&
	    !is_absolute_path(text))
		return report_expected(state, node, expectation, key);
	return copy_text(state, text, &state->config->log_target);
}

static int
read_plugin_dir(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	static const char expectation[] = "an absolute path";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (!is_absolute_path(text))
		return report_expected(state, node, expectation, key);
	return copy_text(state, text, &state->config->plugin_dir);
}

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

static int
read_in_place(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	static const char expectation[] = "auto, on or off";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (!dci_config_parse_in_place(text, &state->config->in_place))
		return report_expected(state, node, expectation, key);
	return 0;
}

/* A user name as useradd takes it: letters, digits, '.', '_' and '-', not
 * first, at most 32 characters (with a trailing '$' for Samba's machine
 * accounts left out: no daemon runs as one). */
static bool
is_user_name(const char *text)
{
	size_t length = strlen(text);

	if (length == 0 || length > 32 || text[0] == '-')
		return false;
	return strspn(text,
	           "abcdefghijklmnopqrstuvwxyz"
	           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == length;
}

static int
read_user(struct parse_state *state, const yaml_node_t *node, const char *key)
{
	static const char expectation[] = "a user name";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (!is_user_name(text))
		return report_expected(state, node, expectation, key);
	return copy_text(state, text, &state->config->user);
}

static int
read_dci_socket(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	static const char expectation[] = "an absolute path";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (!is_absolute_path(text))
		return report_expected(state, node, expectation, key);
	return copy_text(state, text, &state->config->dci_socket);
}

/* Permission bits in octal, as chmod takes them: "0660", "666". */
static int
read_dci_socket_mode(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	static const char expectation[] =
	    "permission bits in octal (0 to 0777)";
	const char *text = NULL;
	unsigned long mode = 0;
	size_t length;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	length = strlen(text);
	if (length > 4 || strspn(text, "01234567") != length)
		return report_expected(state, node, expectation, key);
	mode = strtoul(text, NULL, 8);
	if (mode > 0777)
		return report_expected(state, node, expectation, key);
	state->config->dci_socket_mode = (unsigned)mode;
	return 0;
}

/* "users" or "groups" of one dci-access entry: a sequence of names. */
static int
read_dci_access_names(struct parse_state *state, const yaml_node_t *node,
    const char *key, char ***names, size_t *count)
{
	static const char expectation[] = "a sequence of user or group names";
	const yaml_node_item_t *item;
	size_t size;

	if (node->type != YAML_SEQUENCE_NODE)
		return report_expected(state, node, expectation, key);
	size = (size_t)(node->data.sequence.items.top -
	                node->data.sequence.items.start);
	*names = calloc(size + 1, sizeof(**names));
	if (*names == NULL)
		return out_of_memory(state);
	for (item = node->data.sequence.items.start;
	     item < node->data.sequence.items.top; item++) {
		const yaml_node_t *element = node_at(state, *item);
		const char *text = NULL;

		if (value_text(state, element, "a name", key, &text) != 0)
			return -1;
		if (!is_user_name(text))
			return report_expected(state, element, "a name", key);
		if (copy_text(state, text, &(*names)[*count]) != 0)
			return -1;
		(*count)++;
	}
	return 0;
}

/* One "CLASS-ID: {users: [...], groups: [...]}" of dci-access. */
static int
read_dci_access_entry(struct parse_state *state, const yaml_node_pair_t *pair,
    const char *name, struct dci_config_dci_access *entry)
{
	static const char id_expectation[] =
	    "a class id such as 1.2 (1 to 16 levels, each 0..4294967294)";
	static const char *const keys[] = {"users", "groups"};
	static const struct key_set set = {
	    "in a dci-access entry", keys, COUNT_OF(keys)};
	const yaml_node_t *key_node = node_at(state, pair->key);
	const yaml_node_t *value = node_at(state, pair->value);
	const yaml_node_pair_t *inner;
	const char *cursor = name;

	entry->position = position_of(state, key_node);
	for (;;) {
		unsigned long level;

		if (entry->class_id_length == DCI_CLASS_ID_MAX_LEVELS ||
		    !parse_whole_number(&cursor, 0xfffffffeul, &level) ||
		    level > 0xfffffffeul)
			return report_expected(
			    state, key_node, id_expectation, "dci-access");
		entry->class_id[entry->class_id_length++] = (uint32_t)level;
		if (*cursor == '\0')
			break;
		if (*cursor++ != '.')
			return report_expected(
			    state, key_node, id_expectation, "dci-access");
	}
	if (value->type != YAML_MAPPING_NODE)
		return report_expected(
		    state, value, "a mapping with users and groups", name);
	for (inner = value->data.mapping.pairs.start;
	     inner < value->data.mapping.pairs.top; inner++) {
		const char *inner_name = NULL;
		size_t index;
		int result;

		if (check_key(state, value, inner, &set, &inner_name, &index) !=
		    0)
			return -1;
		if (index == 0)
			result = read_dci_access_names(state,
			    node_at(state, inner->value), inner_name,
			    &entry->users, &entry->user_count);
		else
			result = read_dci_access_names(state,
			    node_at(state, inner->value), inner_name,
			    &entry->groups, &entry->group_count);
		if (result != 0)
			return -1;
	}
	return 0;
}

/* dci-access: class subtrees and who may read them through the DCI
 * Server. */
static int
read_dci_access(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	static const struct key_set any_key = {"in dci-access", NULL, 0};
	struct dci_config *config = state->config;
	const yaml_node_pair_t *pair;
	size_t count;

	if (is_null(node))
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return report_expected(state, node,
		    "a mapping of class ids to users and groups", key);
	count = (size_t)(node->data.mapping.pairs.top -
	                 node->data.mapping.pairs.start);
	if (count == 0)
		return 0;
	config->dci_access = calloc(count, sizeof(*config->dci_access));
	if (config->dci_access == NULL)
		return out_of_memory(state);
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		const char *name = NULL;
		size_t index;

		if (check_key(state, node, pair, &any_key, &name, &index) != 0)
			return -1;
		if (read_dci_access_entry(state, pair, name,
		        &config->dci_access[config->dci_access_count++]) != 0)
			return -1;
	}
	return 0;
}

static int
read_agent(struct parse_state *state, const yaml_node_t *node, const char *key)
{
	const yaml_node_pair_t *pair;

	if (is_null(node))
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return report_expected(state, node, "a mapping", key);
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		const yaml_node_t *value = node_at(state, pair->value);
		const char *name = NULL;
		size_t index;
		int result = -1;

		if (check_key(
		        state, node, pair, &agent_key_set, &name, &index) != 0)
			return -1;
		switch ((enum agent_key)index) {
		case AGENT_AGENTX_SOCKET:
			result = read_string(
			    state, value, name, &state->config->agentx_socket);
			break;
		case AGENT_PING_INTERVAL:
			result = read_ping_interval(state, value, name);
			break;
		case AGENT_LOG:
			result = read_log_target(state, value, name);
			break;
		case AGENT_PLUGIN_DIR:
			result = read_plugin_dir(state, value, name);
			break;
		case AGENT_IN_PLACE_ANSWERS:
			result = read_in_place(state, value, name);
			break;
		case AGENT_USER:
			result = read_user(state, value, name);
			break;
		case AGENT_DCI_SOCKET:
			result = read_dci_socket(state, value, name);
			break;
		case AGENT_DCI_SOCKET_MODE:
			result = read_dci_socket_mode(state, value, name);
			break;
		case AGENT_DCI_ACCESS:
			result = read_dci_access(state, value, name);
			break;
		}
		if (result != 0)
			return -1;
	}
	return 0;
}

/* A YAML boolean as this file writes them: true or false. */
static int
read_boolean(struct parse_state *state, const yaml_node_t *node,
    const char *key, bool *target)
{
	static const char expectation[] = "true or false";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (strcmp(text, "true") == 0)
		*target = true;
	else if (strcmp(text, "false") == 0)
		*target = false;
	else
		return report_expected(state, node, expectation, key);
	return 0;
}

static int
read_rate_limit(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	struct dci_config_notifications *notifications =
	    &state->config->notifications;
	char expectation[128];
	const char *text = NULL;

	dci_events_rate_limit_describe(expectation, sizeof(expectation));
	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (dci_events_rate_limit_parse(text, &notifications->rate_limit,
	        &notifications->rate_window_milliseconds, NULL, 0) != 0)
		return report_expected(state, node, expectation, key);
	return 0;
}

/* One `CLASS: [DATUM, ...]` of data-changed: unique non-empty labels,
 * at most DCI_CONFIG_WATCHED_DATUMS_MAX of them. */
static int
read_watched_datums(struct parse_state *state, const yaml_node_t *node,
    const char *key, struct dci_config_watch *watch)
{
	static const char expectation[] = "a sequence of 1 to 64 datum labels";
	const yaml_node_item_t *item;
	size_t count;

	_Static_assert(DCI_CONFIG_WATCHED_DATUMS_MAX == 64,
	    "the expectation's text names the limit");
	if (node->type != YAML_SEQUENCE_NODE)
		return report_expected(state, node, expectation, key);
	count = (size_t)(node->data.sequence.items.top -
	                 node->data.sequence.items.start);
	if (count == 0 || count > DCI_CONFIG_WATCHED_DATUMS_MAX)
		return report_expected(state, node, expectation, key);
	watch->datums = calloc(count, sizeof *watch->datums);
	watch->datum_positions = calloc(count, sizeof *watch->datum_positions);
	if (watch->datums == NULL || watch->datum_positions == NULL)
		return out_of_memory(state);
	for (item = node->data.sequence.items.start;
	     item < node->data.sequence.items.top; item++) {
		const yaml_node_t *element = node_at(state, *item);
		const char *text = NULL;

		if (value_text(state, element, "a datum label", key, &text) !=
		    0)
			return -1;
		for (size_t d = 0; d < watch->datum_count; d++)
			if (strcmp(watch->datums[d], text) == 0)
				return report(state, &element->start_mark,
				    "datum '%s' listed twice for '%s' (first "
				    "at %u:%u)",
				    text, key, watch->datum_positions[d].line,
				    watch->datum_positions[d].column);
		if (copy_text(
		        state, text, &watch->datums[watch->datum_count]) != 0)
			return -1;
		watch->datum_positions[watch->datum_count++] =
		    position_of(state, element);
	}
	return 0;
}

/* data-changed: a mapping of class (label or dotted id) to the labels of
 * its datums whose changes are notified. */
static int
read_data_changed(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	struct dci_config_notifications *notifications =
	    &state->config->notifications;
	const yaml_node_pair_t *pair;
	size_t count;

	if (is_null(node))
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return report_expected(state, node,
		    "a mapping of class labels to datum labels", key);
	count = (size_t)(node->data.mapping.pairs.top -
	                 node->data.mapping.pairs.start);
	if (count == 0)
		return 0;
	notifications->data_changed =
	    calloc(count, sizeof *notifications->data_changed);
	if (notifications->data_changed == NULL)
		return out_of_memory(state);
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		struct dci_config_watch *watch =
		    &notifications
		         ->data_changed[notifications->data_changed_count++];
		const char *name = NULL;
		size_t index;

		if (check_key(
		        state, node, pair, &watch_key_set, &name, &index) != 0)
			return -1;
		if (name[0] == '\0')
			return report(state,
			    &node_at(state, pair->key)->start_mark,
			    "expected a class label or id in '%s', found an "
			    "empty key",
			    key);
		watch->position = position_of(state, node_at(state, pair->key));
		if (copy_text(state, name, &watch->class_name) != 0 ||
		    read_watched_datums(
		        state, node_at(state, pair->value), name, watch) != 0)
			return -1;
	}
	return 0;
}

static int
read_notifications(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	struct dci_config_notifications *notifications =
	    &state->config->notifications;
	const yaml_node_pair_t *pair;

	if (is_null(node))
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return report_expected(state, node, "a mapping", key);
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		const yaml_node_t *value = node_at(state, pair->value);
		const char *name = NULL;
		size_t index;
		int result = -1;

		if (check_key(state, node, pair, &notification_key_set, &name,
		        &index) != 0)
			return -1;
		switch ((enum notification_key)index) {
		case NOTIFICATION_INSTANCE_ADDED:
			result = read_boolean(
			    state, value, name, &notifications->instance_added);
			break;
		case NOTIFICATION_INSTANCE_REMOVED:
			result = read_boolean(state, value, name,
			    &notifications->instance_removed);
			break;
		case NOTIFICATION_SUPPLIER_FAILED:
			result = read_boolean(state, value, name,
			    &notifications->supplier_failed);
			break;
		case NOTIFICATION_SUPPLIER_RECOVERED:
			result = read_boolean(state, value, name,
			    &notifications->supplier_recovered);
			break;
		case NOTIFICATION_SUPPLIER_RESTARTED:
			result = read_boolean(state, value, name,
			    &notifications->supplier_restarted);
			break;
		case NOTIFICATION_DATA_CHANGED:
			result = read_data_changed(state, value, name);
			break;
		case NOTIFICATION_RATE_LIMIT:
			result = read_rate_limit(state, value, name);
			break;
		}
		if (result != 0)
			return -1;
	}
	return 0;
}

static int
read_module(struct parse_state *state, const yaml_node_t *node, const char *key,
    struct dci_config_provider *provider)
{
	static const char expectation[] = "a plug-in name or an absolute path";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (!is_module_name(text) && !is_absolute_path(text))
		return report_expected(state, node, expectation, key);
	provider->module_position = position_of(state, node);
	return copy_text(state, text, &provider->module);
}

static int
read_refresh(struct parse_state *state, const yaml_node_t *node,
    const char *key, struct dci_config_provider *provider)
{
	static const char expectation[] =
	    "a number of seconds from 0.01 to 86400";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (!parse_refresh(text, &provider->refresh_milliseconds))
		return report_expected(state, node, expectation, key);
	return 0;
}

static int
read_stale_periods(struct parse_state *state, const yaml_node_t *node,
    const char *key, struct dci_config_provider *provider)
{
	static const char expectation[] =
	    "a whole number of refresh periods from 2 to 1000";
	const char *text = NULL;
	unsigned long periods;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	if (!parse_whole_number(&text, 1000, &periods) || *text != '\0' ||
	    periods < 2 || periods > 1000)
		return report_expected(state, node, expectation, key);
	provider->stale_periods = (unsigned)periods;
	return 0;
}

static int
read_isolate(struct parse_state *state, const yaml_node_t *node,
    const char *key, struct dci_config_provider *provider)
{
	return read_boolean(state, node, key, &provider->isolate);
}

static int
report_option_value(
    struct parse_state *state, const yaml_node_t *node, const char *key)
{
	return report(state, &node->start_mark,
	    "expected a scalar or a sequence of scalars for option '%s'", key);
}

/* Fills option->values; value_count counts the copies made so far. */
static int
read_option_values(struct parse_state *state, const yaml_node_t *node,
    struct dci_config_option *option)
{
	const yaml_node_item_t *item;
	const char *text = NULL;
	size_t count;

	if (node->type == YAML_SCALAR_NODE) {
		option->values = calloc(2, sizeof *option->values);
		if (option->values == NULL)
			return out_of_memory(state);
		if (scalar_text(state, node, &text) != 0 ||
		    copy_text(state, text, &option->values[0]) != 0)
			return -1;
		option->value_count = 1;
		return 0;
	}
	if (node->type != YAML_SEQUENCE_NODE)
		return report_option_value(state, node, option->key);
	option->is_sequence = true;
	count = (size_t)(node->data.sequence.items.top -
	                 node->data.sequence.items.start);
	option->values = calloc(count + 1, sizeof *option->values);
	if (option->values == NULL)
		return out_of_memory(state);
	for (item = node->data.sequence.items.start;
	     item < node->data.sequence.items.top; item++) {
		const yaml_node_t *element = node_at(state, *item);

		if (element->type != YAML_SCALAR_NODE)
			return report_option_value(state, element, option->key);
		if (scalar_text(state, element, &text) != 0 ||
		    copy_text(
		        state, text, &option->values[option->value_count]) != 0)
			return -1;
		option->value_count++;
	}
	return 0;
}

static int
read_options(struct parse_state *state, const yaml_node_t *node,
    const char *key, struct dci_config_provider *provider)
{
	const yaml_node_pair_t *pair;
	size_t count;

	if (is_null(node))
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return report_expected(state, node, "a mapping", key);
	count = (size_t)(node->data.mapping.pairs.top -
	                 node->data.mapping.pairs.start);
	if (count == 0)
		return 0;
	provider->options = calloc(count, sizeof *provider->options);
	if (provider->options == NULL)
		return out_of_memory(state);
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		struct dci_config_option *option;
		const char *name = NULL;
		size_t index;

		if (check_key(
		        state, node, pair, &option_key_set, &name, &index) != 0)
			return -1;
		option = &provider->options[provider->option_count++];
		option->position =
		    position_of(state, node_at(state, pair->key));
		if (copy_text(state, name, &option->key) != 0 ||
		    read_option_values(
		        state, node_at(state, pair->value), option) != 0)
			return -1;
	}
	return 0;
}

/* read_sequence's entry_reader for a providers entry. */
static int
read_provider(struct parse_state *state, const yaml_node_t *node, void *entry)
{
	struct dci_config_provider *provider = entry;
	const yaml_node_pair_t *pair;

	provider->refresh_milliseconds =
	    DCI_CONFIG_DEFAULT_REFRESH_MILLISECONDS;
	provider->stale_periods = DCI_CONFIG_DEFAULT_STALE_PERIODS;
	provider->position = position_of(state, node);
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		const yaml_node_t *value = node_at(state, pair->value);
		const char *name = NULL;
		size_t index;
		int result = -1;

		if (check_key(state, node, pair, &provider_key_set, &name,
		        &index) != 0)
			return -1;
		switch ((enum provider_key)index) {
		case PROVIDER_MODULE:
			result = read_module(state, value, name, provider);
			break;
		case PROVIDER_REFRESH:
			result = read_refresh(state, value, name, provider);
			break;
		case PROVIDER_STALE_PERIODS:
			result =
			    read_stale_periods(state, value, name, provider);
			break;
		case PROVIDER_OPTIONS:
			result = read_options(state, value, name, provider);
			break;
		case PROVIDER_ISOLATE:
			result = read_isolate(state, value, name, provider);
			break;
		}
		if (result != 0)
			return -1;
	}
	if (provider->module == NULL)
		return report(state, &node->start_mark,
		    "missing required key 'module' in provider entry");
	return 0;
}

/* "1.2": 1 to DCI_CLASS_ID_MAX_LEVELS dot-separated levels, each
 * 0..2^32-2 (2^32-1 is the DCI_ALL wildcard). */
static int
read_class_id(struct parse_state *state, const yaml_node_t *node,
    const char *key, struct dci_config_derived *derived)
{
	static const char expectation[] =
	    "a class id such as 1.2 (1 to 16 levels, each 0..4294967294)";
	const char *text = NULL, *cursor;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	cursor = text;
	for (;;) {
		unsigned long level;

		if (derived->class_id_length == DCI_CLASS_ID_MAX_LEVELS ||
		    !parse_whole_number(&cursor, 0xfffffffeul, &level) ||
		    level > 0xfffffffeul)
			return report_expected(state, node, expectation, key);
		derived->class_id[derived->class_id_length++] = (uint32_t)level;
		if (*cursor == '\0')
			return 0;
		if (*cursor++ != '.')
			return report_expected(state, node, expectation, key);
	}
}

static int
read_derived_id(struct parse_state *state, const yaml_node_t *node,
    const char *key, struct dci_config_derived *derived)
{
	static const char expectation[] =
	    "a number from 1 to 255 (the low 8 bits of the datum id)";
	const char *text = NULL, *cursor;
	unsigned long id;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	cursor = text;
	if (!parse_whole_number(&cursor, 255, &id) || *cursor != '\0' ||
	    id < 1 || id > 255)
		return report_expected(state, node, expectation, key);
	derived->id = (uint32_t)id;
	return 0;
}

static int
read_metric(struct parse_state *state, const yaml_node_t *node, const char *key,
    struct dci_config_derived *derived)
{
	static const char expectation[] =
	    "one of sum2, sum3, difference, average, percent, product, "
	    "variance";
	const char *text = NULL;

	if (value_text(state, node, expectation, key, &text) != 0)
		return -1;
	for (size_t i = 0; i < COUNT_OF(derivation_names); i++) {
		if (strcmp(text, derivation_names[i]) == 0) {
			derived->derivation =
			    (enum dci_unit)(DCI_UNIT_DERIVED_SUM2 + i);
			return 0;
		}
	}
	return report_expected(state, node, expectation, key);
}

static int
read_arguments(struct parse_state *state, const yaml_node_t *node,
    const char *key, struct dci_config_derived *derived)
{
	static const char expectation[] = "a sequence of 2 or 3 datum labels";
	const yaml_node_item_t *item;
	size_t count;

	if (node->type != YAML_SEQUENCE_NODE)
		return report_expected(state, node, expectation, key);
	count = (size_t)(node->data.sequence.items.top -
	                 node->data.sequence.items.start);
	if (count < 2 || count > COUNT_OF(derived->arguments))
		return report_expected(state, node, expectation, key);
	for (item = node->data.sequence.items.start;
	     item < node->data.sequence.items.top; item++) {
		const yaml_node_t *element = node_at(state, *item);
		const char *text = NULL;
		size_t a = derived->argument_count;

		if (value_text(state, element, "a datum label", key, &text) !=
		        0 ||
		    copy_text(state, text, &derived->arguments[a]) != 0)
			return -1;
		derived->argument_positions[a] = position_of(state, element);
		derived->argument_count++;
	}
	return 0;
}

/* read_sequence's entry_reader for a derived entry. */
static int
read_derived_entry(
    struct parse_state *state, const yaml_node_t *node, void *entry)
{
	struct dci_config_derived *derived = entry;
	const yaml_node_pair_t *pair;
	const yaml_node_t *arguments = NULL;
	bool seen[COUNT_OF(derived_keys)] = {false};

	derived->position = position_of(state, node);
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		const yaml_node_t *value = node_at(state, pair->value);
		const char *name = NULL;
		size_t index;
		int result = -1;

		if (check_key(state, node, pair, &derived_key_set, &name,
		        &index) != 0)
			return -1;
		seen[index] = true;
		switch ((enum derived_key)index) {
		case DERIVED_CLASS:
			result = read_class_id(state, value, name, derived);
			break;
		case DERIVED_LABEL:
			result =
			    read_string(state, value, name, &derived->label);
			break;
		case DERIVED_ID:
			result = read_derived_id(state, value, name, derived);
			break;
		case DERIVED_METRIC:
			result = read_metric(state, value, name, derived);
			break;
		case DERIVED_ARGUMENTS:
			arguments = value;
			result = read_arguments(state, value, name, derived);
			break;
		case DERIVED_DESCRIPTION:
			result = read_string(
			    state, value, name, &derived->description);
			break;
		}
		if (result != 0)
			return -1;
	}
	for (size_t i = 0; i < COUNT_OF(derived_keys); i++)
		if (!seen[i] && i != DERIVED_DESCRIPTION)
			return report(state, &node->start_mark,
			    "missing required key '%s' in derived entry",
			    derived_keys[i]);
	if (derived->argument_count != dci_derived_arity(derived->derivation))
		return report(state, &arguments->start_mark,
		    "%s takes %zu arguments, found %zu",
		    derivation_names[derived->derivation -
		                     DCI_UNIT_DERIVED_SUM2],
		    dci_derived_arity(derived->derivation),
		    derived->argument_count);
	return 0;
}

/* Fills one zeroed entry of a sequence from its mapping node. */
typedef int (*entry_reader)(
    struct parse_state *state, const yaml_node_t *node, void *entry);

/*
 * Reads the value of key, a sequence of mappings (null or empty: none),
 * into a new array of zeroed entries of size bytes, each filled by
 * read_entry; what, "provider" or "derived", names an entry in messages.
 * *items and *count hold the array and the entries begun so far even on
 * failure, so the configuration's free sees every one.
 */
static int
read_sequence(struct parse_state *state, const yaml_node_t *node,
    const char *key, const char *what, size_t size, entry_reader read_entry,
    void **items, size_t *count)
{
	const yaml_node_item_t *item;
	size_t total;

	if (is_null(node))
		return 0;
	if (node->type != YAML_SEQUENCE_NODE)
		return report_expected(state, node, "a sequence", key);
	total = (size_t)(node->data.sequence.items.top -
	                 node->data.sequence.items.start);
	if (total == 0)
		return 0;
	*items = calloc(total, size);
	if (*items == NULL)
		return out_of_memory(state);
	for (item = node->data.sequence.items.start;
	     item < node->data.sequence.items.top; item++) {
		const yaml_node_t *entry = node_at(state, *item);

		if (entry->type != YAML_MAPPING_NODE) {
			struct description found = describe(entry);

			return report(state, &entry->start_mark,
			    "expected a mapping for a %s entry, found %s%s%s",
			    what, found.quote, found.text, found.quote);
		}
		if (read_entry(
		        state, entry, (char *)*items + (*count)++ * size) != 0)
			return -1;
	}
	return 0;
}

static int
read_root(struct parse_state *state, const yaml_node_t *root)
{
	struct dci_config *config = state->config;
	const yaml_node_pair_t *pair;

	/* An explicit but empty document ("---" alone). */
	if (is_null(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE) {
		struct description found = describe(root);

		return report(state, &root->start_mark,
		    "expected a mapping at top level, found %s%s%s",
		    found.quote, found.text, found.quote);
	}
	for (pair = root->data.mapping.pairs.start;
	     pair < root->data.mapping.pairs.top; pair++) {
		const yaml_node_t *value = node_at(state, pair->value);
		const char *name = NULL;
		void *items = NULL;
		size_t index;
		int result = -1;

		if (check_key(state, root, pair, &top_key_set, &name, &index) !=
		    0)
			return -1;
		switch ((enum top_key)index) {
		case TOP_AGENT:
			result = read_agent(state, value, name);
			break;
		case TOP_PROVIDERS:
			result = read_sequence(state, value, name, "provider",
			    sizeof *config->providers, read_provider, &items,
			    &config->provider_count);
			config->providers = items;
			break;
		case TOP_DERIVED:
			result = read_sequence(state, value, name, "derived",
			    sizeof *config->derived, read_derived_entry, &items,
			    &config->derived_count);
			config->derived = items;
			break;
		case TOP_NOTIFICATIONS:
			result = read_notifications(state, value, name);
			break;
		}
		if (result != 0)
			return -1;
	}
	return 0;
}

/*
 * libyaml's reader reports only a byte offset; count lines and characters up
 * to it the way its scanner would (CR, LF and CRLF end a line).
 */
static yaml_mark_t
mark_of_offset(const struct parse_state *state, size_t offset)
{
	yaml_mark_t mark = {offset, 0, 0};
	size_t index;

	if (offset > state->length)
		offset = state->length;
	for (index = 0; index < offset; index++) {
		unsigned char byte = (unsigned char)state->text[index];

		if (byte == '\n' ||
		    (byte == '\r' && (index + 1 >= state->length ||
		                         state->text[index + 1] != '\n'))) {
			mark.line++;
			mark.column = 0;
		} else if ((byte & 0xc0) != 0x80) {
			mark.column++;
		}
	}
	return mark;
}

static int
report_syntax_error(struct parse_state *state, const yaml_parser_t *parser)
{
	const char *problem =
	    parser->problem != NULL ? parser->problem : "unknown error";
	yaml_mark_t mark;

	switch (parser->error) {
	/* The loader fails some allocations without recording an error. */
	case YAML_NO_ERROR:
	case YAML_MEMORY_ERROR:
		return out_of_memory(state);
	case YAML_READER_ERROR:
		mark = mark_of_offset(state, parser->problem_offset);
		break;
	default:
		mark = parser->problem_mark;
		break;
	}
	return report(state, &mark, "YAML syntax error: %s", problem);
}

/*
 * Parses the whole stream as events, refusing a collection nested deeper than
 * DCI_CONFIG_NESTING_MAX at its start. Aliases add no depth: an alias event
 * is a leaf, and the schema walk never follows one further than the schema.
 * A syntax error is the one yaml_parser_load would report, found first here.
 */
static int
check_nesting(struct parse_state *state)
{
	yaml_parser_t parser;
	unsigned depth = 0;
	int result = 0;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return out_of_memory(state);
	yaml_parser_set_input_string(
	    &parser, (const unsigned char *)state->text, state->length);
	while (!done && result == 0) {
		yaml_event_t event;

		if (!yaml_parser_parse(&parser, &event)) {
			result = report_syntax_error(state, &parser);
			break;
		}
		switch (event.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > DCI_CONFIG_NESTING_MAX)
				result = report(state, &event.start_mark,
				    "nesting deeper than %u levels",
				    DCI_CONFIG_NESTING_MAX);
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
read_stream(struct parse_state *state, yaml_parser_t *parser)
{
	yaml_document_t document;
	yaml_node_t *root;
	int result;

	if (!yaml_parser_load(parser, &document))
		return report_syntax_error(state, parser);
	root = yaml_document_get_root_node(&document);
	if (root == NULL) {
		/* The stream ended: nothing but comments and blanks. */
		yaml_document_delete(&document);
		return 0;
	}
	state->document = &document;
	result = read_root(state, root);
	state->document = NULL;
	yaml_document_delete(&document);
	if (result != 0)
		return -1;

	if (!yaml_parser_load(parser, &document))
		return report_syntax_error(state, parser);
	if (yaml_document_get_root_node(&document) != NULL)
		result = report(state, &document.start_mark,
		    "only one YAML document is allowed");
	yaml_document_delete(&document);
	return result;
}

int
dci_config_parse(const char *text, size_t length, const char *name,
    struct dci_config **config, char *error, size_t error_size)
{
	struct parse_state state;
	yaml_parser_t parser;
	int result;

	*config = NULL;
	if (error != NULL && error_size > 0)
		error[0] = '\0';
	if (text == NULL)
		length = 0;
	memset(&state, 0, sizeof state);
	state.name = name != NULL ? name : "<string>";
	state.text = text != NULL ? text : "";
	state.length = length;
	state.error = error;
	state.error_size = error_size;

	state.config = calloc(1, sizeof *state.config);
	if (state.config == NULL)
		return out_of_memory(&state);
	state.config->ping_interval_seconds =
	    DCI_CONFIG_DEFAULT_PING_INTERVAL_SECONDS;
	state.config->dci_socket_mode = DCI_CONFIG_DEFAULT_DCI_SOCKET_MODE;
	state.config->notifications = (struct dci_config_notifications){
	    .instance_added = true,
	    .instance_removed = true,
	    .supplier_failed = true,
	    .supplier_recovered = true,
	    .supplier_restarted = true,
	    .rate_limit = DCI_CONFIG_DEFAULT_NOTIFICATION_LIMIT,
	    .rate_window_milliseconds =
	        DCI_CONFIG_DEFAULT_NOTIFICATION_WINDOW_MILLISECONDS,
	};
	if (copy_text(&state, state.name, &state.config->file) != 0) {
		dci_config_free(state.config);
		return -1;
	}

	if (check_nesting(&state) != 0) {
		dci_config_free(state.config);
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		dci_config_free(state.config);
		return out_of_memory(&state);
	}
	yaml_parser_set_input_string(
	    &parser, (const unsigned char *)state.text, state.length);
	result = read_stream(&state, &parser);
	yaml_parser_delete(&parser);
	if (result != 0) {
		dci_config_free(state.config);
		return -1;
	}
	*config = state.config;
	return 0;
}

/*
 * Reads the whole file so that reader errors can be placed by offset. A file
 * longer than DCI_CONFIG_FILE_MAX_BYTES is refused once that much and one
 * byte more are read: a configuration is a few kilobytes, and a larger file
 * is a mistake (or a device) that must not exhaust memory.
 */
static int
read_file(struct parse_state *state, FILE *stream, char **text, size_t *length)
{
	const size_t limit = DCI_CONFIG_FILE_MAX_BYTES + 1;
	char *buffer = NULL;
	size_t capacity = 0;
	size_t used = 0;

	for (;;) {
		size_t got;

		if (used == limit) {
			free(buffer);
			return report(state, NULL,
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
				return out_of_memory(state);
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
				return report(state, NULL, "cannot read: %s",
				    strerror(saved));
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
	struct parse_state state;
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
		return report(&state, NULL, "cannot open: %s", strerror(errno));
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
