/*
 * Unit tests for the YAML configuration reader (src/config/config.c).
 *
 * Error tests compare the complete message, position included: the message
 * is the whole user interface of a configuration mistake.
 */
#define _POSIX_C_SOURCE 200809L

#include "config/config.h"
#include "model/events.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_runner.h"

#define ERROR_SIZE 512

/* Parses `text` as "t.yaml" and requires success. */
static struct dci_config *
parse_valid(const char *text)
{
	struct dci_config *config = NULL;
	char error[ERROR_SIZE];
	int result;

	result = dci_config_parse(
	    text, strlen(text), "t.yaml", &config, error, sizeof error);
	ck_assert_msg(result == 0, "unexpected error: %s", error);
	ck_assert_ptr_nonnull(config);
	ck_assert_str_eq(error, "");
	return config;
}

/* Parses `text` as "t.yaml", requires failure and returns the message. */
static void
parse_invalid(const char *text, char *error, size_t error_size)
{
	struct dci_config *config = (struct dci_config *)&config;
	int result;

	result = dci_config_parse(
	    text, strlen(text), "t.yaml", &config, error, error_size);
	ck_assert_int_eq(result, -1);
	ck_assert_ptr_null(config);
}

#define ASSERT_ERROR(text, expected)                                           \
	do {                                                                   \
		char error_[ERROR_SIZE];                                       \
		parse_invalid((text), error_, sizeof error_);                  \
		ck_assert_str_eq(error_, (expected));                          \
	} while (0)

static void
assert_position(struct dci_config_position position,
    const struct dci_config *config, unsigned line, unsigned column)
{
	ck_assert_ptr_eq(position.file, config->file);
	ck_assert_uint_eq(position.line, line);
	ck_assert_uint_eq(position.column, column);
}

static const char full_config[] = "# dcistatd.yaml\n"
                                  "agent:\n"
                                  "  agentx-socket: tcp:127.0.0.1:705\n"
                                  "  ping-interval: 30\n"
                                  "  log: /var/log/dcistatd.log\n"
                                  "  plugin-dir: /usr/lib/dcistat/providers\n"
                                  "providers:\n"
                                  "  - module: netif\n"
                                  "    refresh: 2.5\n"
                                  "    options:\n"
                                  "      include: [\"eth*\", \"veth*\"]\n"
                                  "      exclude: lo\n"
                                  "  - module: /opt/dcistat/disk.so\n";

START_TEST(test_full_config)
{
	struct dci_config *config = parse_valid(full_config);
	const struct dci_config_provider *netif;
	const struct dci_config_provider *disk;
	const struct dci_config_option *include;
	const struct dci_config_option *exclude;

	ck_assert_str_eq(config->file, "t.yaml");
	ck_assert_str_eq(config->agentx_socket, "tcp:127.0.0.1:705");
	ck_assert_uint_eq(config->ping_interval_seconds, 30);
	ck_assert_str_eq(config->log_target, "/var/log/dcistatd.log");
	ck_assert_str_eq(config->plugin_dir, "/usr/lib/dcistat/providers");
	ck_assert_uint_eq(config->provider_count, 2);

	netif = &config->providers[0];
	ck_assert_str_eq(netif->module, "netif");
	assert_position(netif->position, config, 8, 5);
	assert_position(netif->module_position, config, 8, 13);
	ck_assert_uint_eq(netif->refresh_milliseconds, 2500);
	ck_assert_uint_eq(netif->option_count, 2);

	include = &netif->options[0];
	ck_assert_str_eq(include->key, "include");
	assert_position(include->position, config, 11, 7);
	ck_assert(include->is_sequence);
	ck_assert_uint_eq(include->value_count, 2);
	ck_assert_str_eq(include->values[0], "eth*");
	ck_assert_str_eq(include->values[1], "veth*");
	ck_assert_ptr_null(include->values[2]);

	exclude = &netif->options[1];
	ck_assert_str_eq(exclude->key, "exclude");
	assert_position(exclude->position, config, 12, 7);
	ck_assert(!exclude->is_sequence);
	ck_assert_uint_eq(exclude->value_count, 1);
	ck_assert_str_eq(exclude->values[0], "lo");
	ck_assert_ptr_null(exclude->values[1]);

	ck_assert_ptr_eq(dci_config_provider_option(netif, "include"), include);
	ck_assert_ptr_eq(dci_config_provider_option(netif, "exclude"), exclude);
	ck_assert_ptr_null(dci_config_provider_option(netif, "missing"));

	disk = &config->providers[1];
	ck_assert_str_eq(disk->module, "/opt/dcistat/disk.so");
	assert_position(disk->position, config, 13, 5);
	assert_position(disk->module_position, config, 13, 13);
	ck_assert_uint_eq(disk->refresh_milliseconds, 1000);
	ck_assert_uint_eq(disk->option_count, 0);
	ck_assert_ptr_null(disk->options);
	ck_assert_ptr_null(dci_config_provider_option(disk, "include"));
	dci_config_free(config);
}
END_TEST

START_TEST(test_defaults)
{
	struct dci_config *config =
	    parse_valid("providers:\n  - module: netif\n");

	ck_assert_ptr_null(config->agentx_socket);
	ck_assert_uint_eq(config->ping_interval_seconds, 5);
	ck_assert_ptr_null(config->log_target);
	ck_assert_ptr_null(config->plugin_dir);
	ck_assert_uint_eq(config->provider_count, 1);
	ck_assert_str_eq(config->providers[0].module, "netif");
	ck_assert_uint_eq(config->providers[0].refresh_milliseconds, 1000);
	ck_assert_uint_eq(config->providers[0].option_count, 0);
	ck_assert_ptr_null(config->providers[0].options);
	dci_config_free(config);
}
END_TEST

/* The defaults are written once, as text in the key tables (config.c);
 * what they parse to is what config.h promises. */
START_TEST(test_defaults_match_the_header)
{
	struct dci_config *config =
	    parse_valid("providers:\n  - module: netif\n");
	const struct dci_config_notifications *notifications =
	    &config->notifications;

	ck_assert_uint_eq(config->ping_interval_seconds,
	    DCI_CONFIG_DEFAULT_PING_INTERVAL_SECONDS);
	ck_assert_uint_eq(
	    config->dci_socket_mode, DCI_CONFIG_DEFAULT_DCI_SOCKET_MODE);
	ck_assert_int_eq(config->in_place, DCI_CONFIG_IN_PLACE_AUTO);
	ck_assert_uint_eq(config->providers[0].refresh_milliseconds,
	    DCI_CONFIG_DEFAULT_REFRESH_MILLISECONDS);
	ck_assert_uint_eq(config->providers[0].stale_periods,
	    DCI_CONFIG_DEFAULT_STALE_PERIODS);
	ck_assert(!config->providers[0].isolate);
	ck_assert(notifications->instance_added &&
	          notifications->instance_removed &&
	          notifications->supplier_failed &&
	          notifications->supplier_recovered &&
	          notifications->supplier_restarted);
	ck_assert_uint_eq(
	    notifications->rate_limit, DCI_CONFIG_DEFAULT_NOTIFICATION_LIMIT);
	ck_assert_int_eq(notifications->rate_window_milliseconds,
	    DCI_CONFIG_DEFAULT_NOTIFICATION_WINDOW_MILLISECONDS);
	dci_config_free(config);
}
END_TEST

static void
assert_empty_config(const struct dci_config *config)
{
	ck_assert_str_eq(config->file, "t.yaml");
	ck_assert_ptr_null(config->agentx_socket);
	ck_assert_uint_eq(config->ping_interval_seconds, 5);
	ck_assert_ptr_null(config->log_target);
	ck_assert_ptr_null(config->plugin_dir);
	ck_assert_uint_eq(config->provider_count, 0);
	ck_assert_ptr_null(config->providers);
}

START_TEST(test_empty_document)
{
	static const char *const texts[] = {
	    "",
	    "\n\n",
	    "# only a comment\n  # and another\n",
	    "---\n",
	    "--- # explicit and empty\n...\n",
	};
	size_t index;

	for (index = 0; index < sizeof texts / sizeof texts[0]; index++) {
		struct dci_config *config = parse_valid(texts[index]);

		assert_empty_config(config);
		dci_config_free(config);
	}
}
END_TEST

START_TEST(test_empty_sections)
{
	struct dci_config *config = parse_valid("agent:\n"
	                                        "providers:\n"
	                                        "#  - module: netif\n");

	assert_empty_config(config);
	dci_config_free(config);

	config = parse_valid("agent: {}\nproviders: []\n");
	assert_empty_config(config);
	dci_config_free(config);

	config = parse_valid("providers:\n  - module: netif\n    options:\n");
	ck_assert_uint_eq(config->providers[0].option_count, 0);
	ck_assert_ptr_null(config->providers[0].options);
	dci_config_free(config);
}
END_TEST

START_TEST(test_option_scalar_and_sequence)
{
	struct dci_config *config = parse_valid("providers:\n"
	                                        "  - module: netif\n"
	                                        "    options:\n"
	                                        "      scalar: lo\n"
	                                        "      one: [lo]\n"
	                                        "      block:\n"
	                                        "        - a\n"
	                                        "        - 'b c'\n"
	                                        "      none: []\n"
	                                        "      number: 10\n"
	                                        "      empty:\n");
	const struct dci_config_provider *provider = &config->providers[0];
	const struct dci_config_option *option;

	ck_assert_uint_eq(provider->option_count, 6);

	option = dci_config_provider_option(provider, "scalar");
	ck_assert_ptr_nonnull(option);
	ck_assert(!option->is_sequence);
	ck_assert_uint_eq(option->value_count, 1);
	ck_assert_str_eq(option->values[0], "lo");

	option = dci_config_provider_option(provider, "one");
	ck_assert_ptr_nonnull(option);
	ck_assert(option->is_sequence);
	ck_assert_uint_eq(option->value_count, 1);
	ck_assert_str_eq(option->values[0], "lo");

	option = dci_config_provider_option(provider, "block");
	ck_assert_ptr_nonnull(option);
	ck_assert(option->is_sequence);
	ck_assert_uint_eq(option->value_count, 2);
	ck_assert_str_eq(option->values[0], "a");
	ck_assert_str_eq(option->values[1], "b c");
	ck_assert_ptr_null(option->values[2]);
	assert_position(option->position, config, 6, 7);

	option = dci_config_provider_option(provider, "none");
	ck_assert_ptr_nonnull(option);
	ck_assert(option->is_sequence);
	ck_assert_uint_eq(option->value_count, 0);
	ck_assert_ptr_nonnull(option->values);
	ck_assert_ptr_null(option->values[0]);

	option = dci_config_provider_option(provider, "number");
	ck_assert_ptr_nonnull(option);
	ck_assert_str_eq(option->values[0], "10");

	option = dci_config_provider_option(provider, "empty");
	ck_assert_ptr_nonnull(option);
	ck_assert(!option->is_sequence);
	ck_assert_uint_eq(option->value_count, 1);
	ck_assert_str_eq(option->values[0], "");
	dci_config_free(config);
}
END_TEST

static unsigned
refresh_of(const char *value)
{
	char text[128];
	struct dci_config *config;
	unsigned milliseconds;

	snprintf(text, sizeof text,
	    "providers:\n  - module: netif\n    refresh: %s\n", value);
	config = parse_valid(text);
	milliseconds = config->providers[0].refresh_milliseconds;
	dci_config_free(config);
	return milliseconds;
}

START_TEST(test_refresh_values)
{
	ck_assert_uint_eq(refresh_of("0.5"), 500);
	ck_assert_uint_eq(refresh_of("2"), 2000);
	ck_assert_uint_eq(refresh_of("\"2\""), 2000);
	ck_assert_uint_eq(refresh_of("0.01"), 10);
	ck_assert_uint_eq(refresh_of("86400"), 86400000);
	ck_assert_uint_eq(refresh_of("86400.000"), 86400000);
	ck_assert_uint_eq(refresh_of("1.25"), 1250);
	ck_assert_uint_eq(refresh_of("007"), 7000);
	/* Sub-millisecond digits round to the nearest millisecond. */
	ck_assert_uint_eq(refresh_of("1.0004"), 1000);
	ck_assert_uint_eq(refresh_of("1.0005"), 1001);
}
END_TEST

static void
assert_refresh_refused(const char *value, const char *found)
{
	char text[128];
	char expected[256];
	char error[ERROR_SIZE];

	snprintf(text, sizeof text,
	    "providers:\n  - module: netif\n    refresh: %s\n", value);
	snprintf(expected, sizeof expected,
	    "t.yaml:3:14: expected a number of seconds from 0.01 to 86400 "
	    "for 'refresh', found %s",
	    found);
	parse_invalid(text, error, sizeof error);
	ck_assert_str_eq(error, expected);
}

START_TEST(test_refresh_refused)
{
	assert_refresh_refused("-1", "'-1'");
	assert_refresh_refused("0", "'0'");
	assert_refresh_refused("0.009", "'0.009'");
	assert_refresh_refused("0.0099", "'0.0099'");
	assert_refresh_refused("86400.001", "'86400.001'");
	assert_refresh_refused("86400.0001", "'86400.0001'");
	assert_refresh_refused(
	    "99999999999999999999", "'99999999999999999999'");
	assert_refresh_refused("1e3", "'1e3'");
	assert_refresh_refused(".5", "'.5'");
	assert_refresh_refused("5.", "'5.'");
	assert_refresh_refused("1s", "'1s'");
	assert_refresh_refused("~", "an empty value");
	assert_refresh_refused("[1]", "a sequence");
	/* libyaml places a missing value right after the colon. */
	ASSERT_ERROR("providers:\n  - module: netif\n    refresh:\n",
	    "t.yaml:3:13: expected a number of seconds from 0.01 to 86400 "
	    "for 'refresh', found an empty value");
}
END_TEST

START_TEST(test_isolate)
{
	struct dci_config *config = parse_valid(
	    "providers:\n  - module: netif\n  - module: evcnt\n"
	    "    isolate: true\n  - module: devstat\n    isolate: false\n");

	ck_assert(!config->providers[0].isolate);
	ck_assert(config->providers[1].isolate);
	ck_assert(!config->providers[2].isolate);
	dci_config_free(config);
	ASSERT_ERROR("providers:\n  - module: netif\n    isolate: yes\n",
	    "t.yaml:3:14: expected true or false for 'isolate', found "
	    "'yes'");
	ASSERT_ERROR("providers:\n  - module: netif\n    isolate: {a: 1}\n",
	    "t.yaml:3:14: expected true or false for 'isolate', found a "
	    "mapping");
}
END_TEST

START_TEST(test_in_place_answers)
{
	struct dci_config *config = parse_valid("agent:\n  log: syslog\n");

	ck_assert_int_eq(config->in_place, DCI_CONFIG_IN_PLACE_AUTO);
	dci_config_free(config);
	config = parse_valid("agent:\n  in-place-answers: off\n");
	ck_assert_int_eq(config->in_place, DCI_CONFIG_IN_PLACE_OFF);
	dci_config_free(config);
	config = parse_valid("agent:\n  in-place-answers: on\n");
	ck_assert_int_eq(config->in_place, DCI_CONFIG_IN_PLACE_ON);
	dci_config_free(config);
	config = parse_valid("agent:\n  in-place-answers: auto\n");
	ck_assert_int_eq(config->in_place, DCI_CONFIG_IN_PLACE_AUTO);
	dci_config_free(config);
	/* YAML 1.1's booleans are not taken: the words are the setting's. */
	ASSERT_ERROR("agent:\n  in-place-answers: yes\n",
	    "t.yaml:2:21: expected auto, on or off for 'in-place-answers', "
	    "found 'yes'");
	ASSERT_ERROR("agent:\n  in-place-answers: [on]\n",
	    "t.yaml:2:21: expected auto, on or off for 'in-place-answers', "
	    "found a sequence");
}
END_TEST

START_TEST(test_busy_poll)
{
	struct dci_config *config = parse_valid("agent:\n  log: syslog\n");

	ck_assert_uint_eq(config->busy_poll_microseconds, 0);
	dci_config_free(config);
	config = parse_valid("agent:\n  busy-poll: 50\n");
	ck_assert_uint_eq(config->busy_poll_microseconds, 50);
	dci_config_free(config);
	config = parse_valid("agent:\n  busy-poll: 1000\n");
	ck_assert_uint_eq(config->busy_poll_microseconds, 1000);
	dci_config_free(config);
	ASSERT_ERROR("agent:\n  busy-poll: 1001\n",
	    "t.yaml:2:14: expected an integer from 0 to 1000 (microseconds) "
	    "for 'busy-poll', found '1001'");
	ASSERT_ERROR("agent:\n  busy-poll: -1\n",
	    "t.yaml:2:14: expected an integer from 0 to 1000 (microseconds) "
	    "for 'busy-poll', found '-1'");
}
END_TEST

START_TEST(test_dci_work)
{
	struct dci_config *config = parse_valid("agent:\n  log: syslog\n");

	ck_assert_uint_eq(config->dci_work_milliseconds, 20);
	dci_config_free(config);
	config = parse_valid("agent:\n  dci-work: 1000\n");
	ck_assert_uint_eq(config->dci_work_milliseconds, 1000);
	dci_config_free(config);
	ASSERT_ERROR("agent:\n  dci-work: 0\n",
	    "t.yaml:2:13: expected an integer from 1 to 1000 (milliseconds per "
	    "second) for 'dci-work', found '0'");
}
END_TEST

START_TEST(test_dci_server_keys)
{
	struct dci_config *config = parse_valid("agent:\n  log: syslog\n");

	/* Off unless asked for; 0666 when asked for without a mode. */
	ck_assert_ptr_null(config->dci_socket);
	ck_assert_uint_eq(config->dci_socket_mode, 0666);
	ck_assert_uint_eq(config->dci_access_count, 0);
	dci_config_free(config);
	config =
	    parse_valid("agent:\n"
	                "  dci-socket: /run/dcistat/dci.sock\n"
	                "  dci-socket-mode: \"0660\"\n"
	                "  dci-access:\n"
	                "    \"1.1\": {users: [alice, bob], groups: [staff]}\n"
	                "    \"2\": {}\n"
	                "    \"1.2/7.4294967295\": {users: [carol]}\n");
	ck_assert_str_eq(config->dci_socket, "/run/dcistat/dci.sock");
	ck_assert_uint_eq(config->dci_socket_mode, 0660);
	ck_assert_uint_eq(config->dci_access_count, 3);
	ck_assert_uint_eq(config->dci_access[0].class_id_length, 2);
	ck_assert_uint_eq(config->dci_access[0].instance_words, 0);
	ck_assert_uint_eq(config->dci_access[0].class_id[1], 1);
	ck_assert_uint_eq(config->dci_access[0].user_count, 2);
	ck_assert_str_eq(config->dci_access[0].users[1], "bob");
	ck_assert_uint_eq(config->dci_access[0].group_count, 1);
	ck_assert_str_eq(config->dci_access[0].groups[0], "staff");
	ck_assert_uint_eq(config->dci_access[0].position.line, 5);
	/* An empty entry: nobody but root. */
	ck_assert_uint_eq(config->dci_access[1].class_id[0], 2);
	ck_assert_uint_eq(config->dci_access[1].user_count, 0);
	ck_assert_uint_eq(config->dci_access[1].group_count, 0);
	/* One instance of class 1.2: its words after the '/', any value. */
	ck_assert_uint_eq(config->dci_access[2].class_id_length, 2);
	ck_assert_uint_eq(config->dci_access[2].class_id[1], 2);
	ck_assert_uint_eq(config->dci_access[2].instance_words, 2);
	ck_assert_uint_eq(config->dci_access[2].instance[0], 7);
	ck_assert_uint_eq(config->dci_access[2].instance[1], 4294967295u);
	ck_assert_str_eq(config->dci_access[2].users[0], "carol");
	dci_config_free(config);

	ASSERT_ERROR("agent:\n  dci-socket: run/dci.sock\n",
	    "t.yaml:2:15: expected an absolute path for 'dci-socket', found "
	    "'run/dci.sock'");
	ASSERT_ERROR("agent:\n  dci-socket-mode: \"0888\"\n",
	    "t.yaml:2:20: expected permission bits in octal (0 to 0777) for "
	    "'dci-socket-mode', found '0888'");
	ASSERT_ERROR("agent:\n  dci-socket-mode: \"1777\"\n",
	    "t.yaml:2:20: expected permission bits in octal (0 to 0777) for "
	    "'dci-socket-mode', found '1777'");
	ASSERT_ERROR("agent:\n  dci-access:\n    \"1.x\": {users: [a]}\n",
	    "t.yaml:3:5: expected a class id such as 1.2 (1 to 16 levels, "
	    "each 0..4294967294), or one and an instance id such as 1.1/3 (1 "
	    "to 16 words) for 'dci-access', found '1.x'");
	ASSERT_ERROR("agent:\n  dci-access:\n    \"1.1/\": {users: [a]}\n",
	    "t.yaml:3:5: expected a class id such as 1.2 (1 to 16 levels, "
	    "each 0..4294967294), or one and an instance id such as 1.1/3 (1 "
	    "to 16 words) for 'dci-access', found '1.1/'");
	ASSERT_ERROR("agent:\n  dci-access:\n    \"1.1/4294967296\": {}\n",
	    "t.yaml:3:5: expected a class id such as 1.2 (1 to 16 levels, "
	    "each 0..4294967294), or one and an instance id such as 1.1/3 (1 "
	    "to 16 words) for 'dci-access', found '1.1/4294967296'");
	ASSERT_ERROR("agent:\n  dci-access:\n    \"1\": {people: [a]}\n",
	    "t.yaml:3:11: unknown key 'people' in a dci-access entry: "
	    "expected one of users, groups");
	ASSERT_ERROR("agent:\n  dci-access:\n    \"1\": {users: [\"a b\"]}\n",
	    "t.yaml:3:19: expected a name for 'users', found 'a b'");
	ASSERT_ERROR("agent:\n  dci-access:\n    \"1\": [a]\n",
	    "t.yaml:3:10: expected a mapping with users and groups for '1', "
	    "found a sequence");
}
END_TEST

START_TEST(test_ping_interval)
{
	struct dci_config *config = parse_valid("agent:\n  ping-interval: 1\n");

	ck_assert_uint_eq(config->ping_interval_seconds, 1);
	dci_config_free(config);
	config = parse_valid("agent:\n  ping-interval: 3600\n");
	ck_assert_uint_eq(config->ping_interval_seconds, 3600);
	dci_config_free(config);

	ASSERT_ERROR("agent:\n  ping-interval: abc\n",
	    "t.yaml:2:18: expected an integer from 1 to 3600 for "
	    "'ping-interval', found 'abc'");
	ASSERT_ERROR("agent:\n  ping-interval: 0\n",
	    "t.yaml:2:18: expected an integer from 1 to 3600 for "
	    "'ping-interval', found '0'");
	ASSERT_ERROR("agent:\n  ping-interval: 3601\n",
	    "t.yaml:2:18: expected an integer from 1 to 3600 for "
	    "'ping-interval', found '3601'");
	ASSERT_ERROR("agent:\n  ping-interval: 1.5\n",
	    "t.yaml:2:18: expected an integer from 1 to 3600 for "
	    "'ping-interval', found '1.5'");
	ASSERT_ERROR("agent:\n  ping-interval: {a: 1}\n",
	    "t.yaml:2:18: expected an integer from 1 to 3600 for "
	    "'ping-interval', found a mapping");
}
END_TEST

START_TEST(test_user)
{
	struct dci_config *config = parse_valid("agent:\n  user: dcistat\n");

	ck_assert_str_eq(config->user, "dcistat");
	dci_config_free(config);
	config = parse_valid("agent:\n  ping-interval: 2\n");
	ck_assert_ptr_null(config->user);
	dci_config_free(config);
	ASSERT_ERROR("agent:\n  user: -root\n",
	    "t.yaml:2:9: expected a user name for 'user', found '-root'");
	ASSERT_ERROR("agent:\n  user: da emon\n",
	    "t.yaml:2:9: expected a user name for 'user', found 'da emon'");
	ASSERT_ERROR("agent:\n  user: [a]\n",
	    "t.yaml:2:9: expected a user name for 'user', found a sequence");
}
END_TEST

START_TEST(test_log_target)
{
	struct dci_config *config = parse_valid("agent:\n  log: stderr\n");

	ck_assert_str_eq(config->log_target, "stderr");
	dci_config_free(config);
	config = parse_valid("agent:\n  log: syslog\n");
	ck_assert_str_eq(config->log_target, "syslog");
	dci_config_free(config);

	ASSERT_ERROR("agent:\n  log: dcistatd.log\n",
	    "t.yaml:2:8: expected stderr, syslog or an absolute path for "
	    "'log', found 'dcistatd.log'");
	ASSERT_ERROR("agent:\n  log:\n",
	    "t.yaml:2:7: expected stderr, syslog or an absolute path for "
	    "'log', found an empty value");
}
END_TEST

START_TEST(test_plugin_dir_not_absolute)
{
	ASSERT_ERROR("agent:\n  plugin-dir: lib/providers\n",
	    "t.yaml:2:15: expected an absolute path for 'plugin-dir', found "
	    "'lib/providers'");
}
END_TEST

START_TEST(test_agentx_socket_empty)
{
	ASSERT_ERROR("agent:\n  agentx-socket: \"\"\n",
	    "t.yaml:2:18: expected a non-empty string for 'agentx-socket', "
	    "found an empty value");
	ASSERT_ERROR("agent:\n  agentx-socket: [a]\n",
	    "t.yaml:2:18: expected a non-empty string for 'agentx-socket', "
	    "found a sequence");
}
END_TEST

START_TEST(test_unknown_key_agent)
{
	ASSERT_ERROR("agent:\n  log: syslog\n  ping_interval: 5\n",
	    "t.yaml:3:3: unknown key 'ping_interval' in agent: expected one "
	    "of agentx-socket, ping-interval, log, plugin-dir, "
	    "in-place-answers, busy-poll, user, dci-socket, dci-socket-mode, "
	    "dci-work, dci-access");
}
END_TEST

START_TEST(test_notifications_default)
{
	struct dci_config *config =
	    parse_valid("providers:\n  - module: netif\n");
	const struct dci_config_notifications *notifications =
	    &config->notifications;

	ck_assert(notifications->instance_added);
	ck_assert(notifications->instance_removed);
	ck_assert(notifications->supplier_failed);
	ck_assert(notifications->supplier_recovered);
	ck_assert(notifications->supplier_restarted);
	ck_assert_uint_eq(notifications->rate_limit, 10);
	ck_assert_int_eq(notifications->rate_window_milliseconds, 60000);
	ck_assert_uint_eq(notifications->data_changed_count, 0);
	dci_config_free(config);
}
END_TEST

START_TEST(test_notifications_data_changed)
{
	struct dci_config *config =
	    parse_valid("notifications:\n"
	                "  data-changed:\n"
	                "    netif: [oper_up, mtu, name, address]\n"
	                "    \"1.2\":\n"
	                "      - block_size\n");
	const struct dci_config_notifications *notifications =
	    &config->notifications;

	ck_assert_uint_eq(notifications->data_changed_count, 2);
	ck_assert_str_eq(notifications->data_changed[0].class_name, "netif");
	ck_assert_uint_eq(notifications->data_changed[0].position.line, 3);
	ck_assert_uint_eq(notifications->data_changed[0].position.column, 5);
	ck_assert_uint_eq(notifications->data_changed[0].datum_count, 4);
	ck_assert_str_eq(notifications->data_changed[0].datums[0], "oper_up");
	ck_assert_str_eq(notifications->data_changed[0].datums[3], "address");
	ck_assert_uint_eq(
	    notifications->data_changed[0].datum_positions[1].column, 22);
	ck_assert_str_eq(notifications->data_changed[1].class_name, "1.2");
	ck_assert_uint_eq(notifications->data_changed[1].datum_count, 1);
	ck_assert_str_eq(
	    notifications->data_changed[1].datums[0], "block_size");
	ck_assert_uint_eq(
	    notifications->data_changed[1].datum_positions[0].line, 5);
	dci_config_free(config);
}
END_TEST

START_TEST(test_notifications_set)
{
	struct dci_config *config = parse_valid("notifications:\n"
	                                        "  instance-added: false\n"
	                                        "  instance-removed: true\n"
	                                        "  supplier-failed: false\n"
	                                        "  supplier-recovered: false\n"
	                                        "  supplier-restarted: false\n"
	                                        "  rate-limit: 25 per 5\n");
	const struct dci_config_notifications *notifications =
	    &config->notifications;

	ck_assert(!notifications->instance_added);
	ck_assert(notifications->instance_removed);
	ck_assert(!notifications->supplier_failed);
	ck_assert(!notifications->supplier_recovered);
	ck_assert(!notifications->supplier_restarted);
	ck_assert_uint_eq(notifications->rate_limit, 25);
	ck_assert_int_eq(notifications->rate_window_milliseconds, 5000);
	dci_config_free(config);
}
END_TEST

/* The reader names the rate limit's form in the words of the model's own
 * description of it (written twice: config.c keeps it as a constant). */
START_TEST(test_rate_limit_expectation_is_the_models)
{
	char form[128], expected[256], error[256];

	dci_events_rate_limit_describe(form, sizeof(form));
	snprintf(expected, sizeof(expected),
	    "t.yaml:2:15: expected %s for 'rate-limit', found 'x'", form);
	parse_invalid(
	    "notifications:\n  rate-limit: x\n", error, sizeof(error));
	ck_assert_str_eq(error, expected);
}
END_TEST

START_TEST(test_notifications_errors)
{
	ASSERT_ERROR("notifications:\n  rate-limit: 10 every 60\n",
	    "t.yaml:2:15: expected \"N per SECONDS\" with N in 1..1000000 "
	    "and SECONDS in 1..86400 for 'rate-limit', found '10 every 60'");
	ASSERT_ERROR("notifications:\n  rate-limit: 0 per 60\n",
	    "t.yaml:2:15: expected \"N per SECONDS\" with N in 1..1000000 "
	    "and SECONDS in 1..86400 for 'rate-limit', found '0 per 60'");
	ASSERT_ERROR("notifications:\n  instance-added: yes\n",
	    "t.yaml:2:19: expected true or false for 'instance-added', "
	    "found 'yes'");
	ASSERT_ERROR("notifications:\n  data_changed: []\n",
	    "t.yaml:2:3: unknown key 'data_changed' in notifications: "
	    "expected one of instance-added, instance-removed, "
	    "supplier-failed, supplier-recovered, supplier-restarted, "
	    "data-changed, rate-limit");
	ASSERT_ERROR("notifications:\n  data-changed: []\n",
	    "t.yaml:2:17: expected a mapping of class labels to datum labels "
	    "for 'data-changed', found a sequence");
	ASSERT_ERROR("notifications:\n  data-changed:\n    netif: mtu\n",
	    "t.yaml:3:12: expected a sequence of 1 to 64 datum labels for "
	    "'netif', found 'mtu'");
	ASSERT_ERROR("notifications:\n  data-changed:\n    netif: []\n",
	    "t.yaml:3:12: expected a sequence of 1 to 64 datum labels for "
	    "'netif', found a sequence");
	ASSERT_ERROR("notifications:\n  data-changed:\n"
	             "    netif: [mtu, name, mtu]\n",
	    "t.yaml:3:24: datum 'mtu' listed twice for 'netif' (first at "
	    "3:13)");
	ASSERT_ERROR("notifications:\n  data-changed:\n"
	             "    netif: [mtu]\n    netif: [name]\n",
	    "t.yaml:4:5: duplicate key 'netif' (first at 3:5)");
	ASSERT_ERROR("notifications:\n  data-changed:\n    \"\": [mtu]\n",
	    "t.yaml:3:5: expected a class label or id in 'data-changed', "
	    "found an empty key");
	ASSERT_ERROR(
	    "notifications:\n  data-changed:\n    netif: [mtu, \"\"]\n",
	    "t.yaml:3:18: expected a datum label for 'netif', found an "
	    "empty value");
	{
		char text[2048] =
		    "notifications:\n  data-changed:\n    netif: [";
		size_t used = strlen(text);

		for (int i = 0; i < 65; i++)
			used += (size_t)snprintf(text + used,
			    sizeof(text) - used, "%sd%d", i ? ", " : "", i);
		snprintf(text + used, sizeof(text) - used, "]\n");
		ASSERT_ERROR(text,
		    "t.yaml:3:12: expected a sequence of 1 to 64 datum labels "
		    "for 'netif', found a sequence");
	}
	ASSERT_ERROR("notifications: [1]\n",
	    "t.yaml:1:16: expected a mapping for 'notifications', found a "
	    "sequence");
}
END_TEST

START_TEST(test_unknown_key_top_level)
{
	ASSERT_ERROR("agent: {}\nprovider: []\n",
	    "t.yaml:2:1: unknown key 'provider' at top level: expected one "
	    "of agent, providers, derived, notifications");
}
END_TEST

START_TEST(test_unknown_key_provider)
{
	ASSERT_ERROR("providers:\n  - module: netif\n    interval: 1\n",
	    "t.yaml:3:5: unknown key 'interval' in provider entry: expected "
	    "one of module, refresh, stale-periods, options, isolate");
}
END_TEST

START_TEST(test_non_scalar_key)
{
	ASSERT_ERROR("? [agent]\n: x\n",
	    "t.yaml:1:3: expected a scalar key at top level, found a "
	    "sequence");
}
END_TEST

START_TEST(test_duplicate_key)
{
	ASSERT_ERROR("agent:\n  log: syslog\n  ping-interval: 5\n  log: "
	             "stderr\n",
	    "t.yaml:4:3: duplicate key 'log' (first at 2:3)");
	ASSERT_ERROR("providers: []\nagent: {}\nproviders: []\n",
	    "t.yaml:3:1: duplicate key 'providers' (first at 1:1)");
	ASSERT_ERROR("providers:\n  - module: a\n    module: b\n",
	    "t.yaml:3:5: duplicate key 'module' (first at 2:5)");
}
END_TEST

START_TEST(test_duplicate_option_key)
{
	ASSERT_ERROR("providers:\n"
	             "  - module: netif\n"
	             "    options:\n"
	             "      include: eth0\n"
	             "      exclude: lo\n"
	             "      include: eth1\n",
	    "t.yaml:6:7: duplicate key 'include' (first at 4:7)");
}
END_TEST

START_TEST(test_top_level_not_mapping)
{
	ASSERT_ERROR("- module: netif\n",
	    "t.yaml:1:1: expected a mapping at top level, found a sequence");
	ASSERT_ERROR("netif\n",
	    "t.yaml:1:1: expected a mapping at top level, found 'netif'");
}
END_TEST

START_TEST(test_agent_not_mapping)
{
	ASSERT_ERROR("agent:\n  - log\n",
	    "t.yaml:2:3: expected a mapping for 'agent', found a sequence");
	ASSERT_ERROR("agent: syslog\n",
	    "t.yaml:1:8: expected a mapping for 'agent', found 'syslog'");
}
END_TEST

START_TEST(test_providers_not_sequence)
{
	ASSERT_ERROR("providers:\n  module: netif\n",
	    "t.yaml:2:3: expected a sequence for 'providers', found a "
	    "mapping");
}
END_TEST

START_TEST(test_provider_entry_not_mapping)
{
	ASSERT_ERROR("providers:\n  - module: netif\n  - netif\n",
	    "t.yaml:3:5: expected a mapping for a provider entry, found "
	    "'netif'");
	ASSERT_ERROR("providers:\n  -\n",
	    "t.yaml:2:4: expected a mapping for a provider entry, found an "
	    "empty value");
}
END_TEST

START_TEST(test_missing_module)
{
	ASSERT_ERROR("providers:\n  - refresh: 1\n    options: {a: b}\n",
	    "t.yaml:2:5: missing required key 'module' in provider entry");
}
END_TEST

START_TEST(test_invalid_module)
{
	ASSERT_ERROR("providers:\n  - module: net if\n",
	    "t.yaml:2:13: expected a plug-in name or an absolute path for "
	    "'module', found 'net if'");
	ASSERT_ERROR("providers:\n  - module: lib/netif.so\n",
	    "t.yaml:2:13: expected a plug-in name or an absolute path for "
	    "'module', found 'lib/netif.so'");
	ASSERT_ERROR("providers:\n  - module: ~\n",
	    "t.yaml:2:13: expected a plug-in name or an absolute path for "
	    "'module', found an empty value");
}
END_TEST

START_TEST(test_options_not_mapping)
{
	ASSERT_ERROR("providers:\n  - module: netif\n    options: [a, b]\n",
	    "t.yaml:3:14: expected a mapping for 'options', found a "
	    "sequence");
}
END_TEST

START_TEST(test_option_value_mapping)
{
	ASSERT_ERROR("providers:\n"
	             "  - module: netif\n"
	             "    options:\n"
	             "      include:\n"
	             "        eth: yes\n",
	    "t.yaml:5:9: expected a scalar or a sequence of scalars for "
	    "option 'include'");
}
END_TEST

START_TEST(test_option_value_nested_sequence)
{
	ASSERT_ERROR("providers:\n"
	             "  - module: netif\n"
	             "    options:\n"
	             "      include: [eth0, [eth1, eth2]]\n",
	    "t.yaml:4:23: expected a scalar or a sequence of scalars for "
	    "option 'include'");
}
END_TEST

START_TEST(test_syntax_error)
{
	ASSERT_ERROR("agent:\n"
	             "  log: syslog\n"
	             "providers: []\n"
	             "log: a: b\n",
	    "t.yaml:4:7: YAML syntax error: mapping values are not allowed "
	    "in this context");
	ASSERT_ERROR("agent:\n  log: syslog\n ping-interval: 5\n",
	    "t.yaml:3:2: YAML syntax error: did not find expected key");
}
END_TEST

START_TEST(test_encoding_error)
{
	ASSERT_ERROR("agent:\n  log: \x01\n",
	    "t.yaml:2:8: YAML syntax error: control characters are not "
	    "allowed");
	ASSERT_ERROR("agent:\r\n  log: \xc3\xa9\xff\n",
	    "t.yaml:2:9: YAML syntax error: invalid leading UTF-8 octet");
}
END_TEST

START_TEST(test_nul_in_value)
{
	ASSERT_ERROR("agent:\n  log: \"/var/log\\0x\"\n",
	    "t.yaml:2:8: NUL characters are not allowed");
}
END_TEST

START_TEST(test_alias_resolved)
{
	struct dci_config *config = parse_valid("providers:\n"
	                                        "  - module: netif\n"
	                                        "    options: &shared\n"
	                                        "      exclude: lo\n"
	                                        "  - module: other\n"
	                                        "    options: *shared\n");
	const struct dci_config_option *first;
	const struct dci_config_option *second;

	ck_assert_uint_eq(config->provider_count, 2);
	first = dci_config_provider_option(&config->providers[0], "exclude");
	second = dci_config_provider_option(&config->providers[1], "exclude");
	ck_assert_ptr_nonnull(first);
	ck_assert_ptr_nonnull(second);
	ck_assert_ptr_ne(first, second);
	ck_assert_str_eq(second->values[0], "lo");
	/* A value reached through an alias is placed at its anchor. */
	assert_position(second->position, config, 4, 7);
	dci_config_free(config);
}
END_TEST

START_TEST(test_alias_errors)
{
	ASSERT_ERROR("providers:\n  - module: netif\n    options: *missing\n",
	    "t.yaml:3:14: YAML syntax error: found undefined alias");
	/* A sequence that contains itself must not make the reader loop. */
	ASSERT_ERROR("providers: &loop [*loop]\n",
	    "t.yaml:1:12: expected a mapping for a provider entry, found a "
	    "sequence");
}
END_TEST

/* Parses `length` bytes of `text` as "t.yaml", requires failure and checks
 * the message. */
static void
assert_error_of_length(const char *text, size_t length, const char *expected)
{
	struct dci_config *config = (struct dci_config *)&config;
	char error[ERROR_SIZE];

	ck_assert_int_eq(dci_config_parse(text, length, "t.yaml", &config,
	                     error, sizeof error),
	    -1);
	ck_assert_ptr_null(config);
	ck_assert_str_eq(error, expected);
}

START_TEST(test_nesting_limit)
{
	char text[4096];
	char expected[128];
	size_t used = 0;

	/* Flow collections: refused at the first one past the limit. */
	memset(text, '[', DCI_CONFIG_NESTING_MAX + 1);
	snprintf(expected, sizeof expected,
	    "t.yaml:1:%u: nesting deeper than %u levels",
	    DCI_CONFIG_NESTING_MAX + 1, DCI_CONFIG_NESTING_MAX);
	assert_error_of_length(text, DCI_CONFIG_NESTING_MAX + 1, expected);

	/* Block collections count alike, the top-level mapping included:
	 * "a:" on line N opens the mapping of level N. */
	for (unsigned level = 0; level <= DCI_CONFIG_NESTING_MAX; level++) {
		ck_assert_uint_lt(used + level + 4, sizeof text);
		used += (size_t)snprintf(
		    text + used, sizeof text - used, "%*sa:\n", (int)level, "");
	}
	snprintf(expected, sizeof expected,
	    "t.yaml:%u:%u: nesting deeper than %u levels",
	    DCI_CONFIG_NESTING_MAX + 1, DCI_CONFIG_NESTING_MAX + 1,
	    DCI_CONFIG_NESTING_MAX);
	assert_error_of_length(text, used, expected);

	/* Mixed: an option's value in flow sequences, under four block
	 * levels (top, providers, the entry, options): the 61st '['. */
	ASSERT_ERROR("providers:\n"
	             "  - module: netif\n"
	             "    options:\n"
	             "      exclude: "
	             "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	             "[[[[[[[[[\n",
	    "t.yaml:4:76: nesting deeper than 64 levels");
}
END_TEST

/* Exactly the limit is still read (and then refused by the schema). */
START_TEST(test_nesting_at_limit)
{
	char text[2 * DCI_CONFIG_NESTING_MAX + 16];
	size_t used = 0;

	memcpy(text, "agent: ", 7);
	used = 7;
	memset(text + used, '[', DCI_CONFIG_NESTING_MAX - 1);
	used += DCI_CONFIG_NESTING_MAX - 1;
	memset(text + used, ']', DCI_CONFIG_NESTING_MAX - 1);
	used += DCI_CONFIG_NESTING_MAX - 1;
	assert_error_of_length(text, used,
	    "t.yaml:1:8: expected a mapping for 'agent', found a sequence");
}
END_TEST

/* 16 MiB of '[' (libyaml alone would take hours) is refused at once; the
 * check runs before the document is built. */
START_TEST(test_nesting_huge)
{
	const size_t length = 16u * 1024u * 1024u;
	char *text = malloc(length);
	char expected[128];

	ck_assert_ptr_nonnull(text);
	memset(text, '[', length);
	snprintf(expected, sizeof expected,
	    "t.yaml:1:%u: nesting deeper than %u levels",
	    DCI_CONFIG_NESTING_MAX + 1, DCI_CONFIG_NESTING_MAX);
	assert_error_of_length(text, length, expected);
	memset(text, '{', length);
	assert_error_of_length(text, length, expected);
	free(text);
}
END_TEST

START_TEST(test_second_document)
{
	ASSERT_ERROR("agent: {}\n---\nproviders: []\n",
	    "t.yaml:2:1: only one YAML document is allowed");
	ASSERT_ERROR("agent: {}\n---\nproviders: [\n",
	    "t.yaml:4:1: YAML syntax error: did not find expected node "
	    "content");
}
END_TEST

START_TEST(test_error_truncated)
{
	struct dci_config *config = NULL;
	char error[8];
	static const char text[] = "agent: [x]\n";

	memset(error, 'x', sizeof error);
	ck_assert_int_eq(dci_config_parse(text, strlen(text), "t.yaml", &config,
	                     error, sizeof error),
	    -1);
	ck_assert_ptr_null(config);
	ck_assert_str_eq(error, "t.yaml:");

	ck_assert_int_eq(
	    dci_config_parse(text, strlen(text), "t.yaml", &config, NULL, 0),
	    -1);
	ck_assert_ptr_null(config);
}
END_TEST

START_TEST(test_parse_length_and_name)
{
	struct dci_config *config = NULL;
	char error[ERROR_SIZE];
	/* Only the first line counts; the rest would be a syntax error. */
	static const char text[] = "agent: {log: syslog}\n: : :";

	ck_assert_int_eq(
	    dci_config_parse(text, 21, "memory", &config, error, sizeof error),
	    0);
	ck_assert_str_eq(config->file, "memory");
	ck_assert_str_eq(config->log_target, "syslog");
	dci_config_free(config);
	dci_config_free(NULL);
}
END_TEST

START_TEST(test_load_missing_file)
{
	struct dci_config *config = (struct dci_config *)&config;
	char error[ERROR_SIZE];

	ck_assert_int_eq(dci_config_load("/nonexistent/dcistatd.yaml", &config,
	                     error, sizeof error),
	    -1);
	ck_assert_ptr_null(config);
	ck_assert_str_eq(error, "/nonexistent/dcistatd.yaml: cannot open: No "
	                        "such file or directory");
}
END_TEST

START_TEST(test_load_directory)
{
	struct dci_config *config = (struct dci_config *)&config;
	char error[ERROR_SIZE];

	ck_assert_int_eq(
	    dci_config_load("/", &config, error, sizeof error), -1);
	ck_assert_ptr_null(config);
	ck_assert_str_eq(error, "/: cannot read: Is a directory");
}
END_TEST

/* Writes `text` to a new temporary file and stores its name in `path`. */
static void
write_temporary(char *path, const char *text)
{
	size_t length = strlen(text);
	int descriptor;

	strcpy(path, "/tmp/test_config_XXXXXX");
	descriptor = mkstemp(path);
	ck_assert_int_ge(descriptor, 0);
	ck_assert_int_eq(write(descriptor, text, length), (ssize_t)length);
	ck_assert_int_eq(close(descriptor), 0);
}

START_TEST(test_load_file)
{
	char path[64];
	char expected[256];
	char error[ERROR_SIZE];
	struct dci_config *config = NULL;

	write_temporary(path, full_config);
	ck_assert_int_eq(
	    dci_config_load(path, &config, error, sizeof error), 0);
	ck_assert_str_eq(config->file, path);
	ck_assert_str_eq(config->agentx_socket, "tcp:127.0.0.1:705");
	ck_assert_uint_eq(config->provider_count, 2);
	ck_assert_str_eq(config->providers[1].module, "/opt/dcistat/disk.so");
	assert_position(
	    config->providers[0].options[0].position, config, 11, 7);
	dci_config_free(config);
	unlink(path);

	write_temporary(path, "agent:\n  bogus: 1\n");
	ck_assert_int_eq(
	    dci_config_load(path, &config, error, sizeof error), -1);
	ck_assert_ptr_null(config);
	snprintf(expected, sizeof expected,
	    "%s:2:3: unknown key 'bogus' in agent: expected one of "
	    "agentx-socket, ping-interval, log, plugin-dir, "
	    "in-place-answers, busy-poll, user, dci-socket, dci-socket-mode, "
	    "dci-work, dci-access",
	    path);
	ck_assert_str_eq(error, expected);
	unlink(path);
}
END_TEST

/* A file of DCI_CONFIG_FILE_MAX_BYTES is read; one byte more is refused. */
START_TEST(test_load_size_limit)
{
	char path[64];
	char expected[256];
	char error[ERROR_SIZE];
	struct dci_config *config = NULL;
	size_t length = DCI_CONFIG_FILE_MAX_BYTES;
	char *text = malloc(length + 2);

	ck_assert_ptr_nonnull(text);
	/* A comment as long as the limit allows, then one byte more. */
	memset(text, ' ', length + 1);
	text[0] = '#';
	text[length - 1] = '\n';
	text[length] = '\0';
	write_temporary(path, text);
	ck_assert_int_eq(
	    dci_config_load(path, &config, error, sizeof error), 0);
	dci_config_free(config);
	unlink(path);

	text[length] = '\n';
	text[length + 1] = '\0';
	write_temporary(path, text);
	ck_assert_int_eq(
	    dci_config_load(path, &config, error, sizeof error), -1);
	ck_assert_ptr_null(config);
	snprintf(expected, sizeof expected,
	    "%s: cannot read: larger than %u bytes", path,
	    DCI_CONFIG_FILE_MAX_BYTES);
	ck_assert_str_eq(error, expected);
	unlink(path);
	free(text);
}
END_TEST

/* No provider is a valid configuration (dci_config_load logs a warning). */
START_TEST(test_load_no_provider)
{
	static const char *const texts[] = {
	    "agent:\n  log: syslog\n", "providers: []\n", "providers:\n"};
	char path[64];
	char error[ERROR_SIZE];

	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct dci_config *config = NULL;

		write_temporary(path, texts[i]);
		ck_assert_int_eq(
		    dci_config_load(path, &config, error, sizeof error), 0);
		ck_assert_uint_eq(config->provider_count, 0);
		dci_config_free(config);
		unlink(path);
	}
}
END_TEST

static Suite *
config_suite(void)
{
	Suite *suite = suite_create("config");
	TCase *valid = tcase_create("valid");
	TCase *invalid = tcase_create("invalid");
	TCase *files = tcase_create("files");

	tcase_add_test(valid, test_full_config);
	tcase_add_test(valid, test_defaults);
	tcase_add_test(valid, test_defaults_match_the_header);
	tcase_add_test(valid, test_rate_limit_expectation_is_the_models);
	tcase_add_test(valid, test_empty_document);
	tcase_add_test(valid, test_empty_sections);
	tcase_add_test(valid, test_option_scalar_and_sequence);
	tcase_add_test(valid, test_refresh_values);
	tcase_add_test(valid, test_alias_resolved);
	tcase_add_test(valid, test_parse_length_and_name);
	suite_add_tcase(suite, valid);

	tcase_add_test(invalid, test_refresh_refused);
	tcase_add_test(invalid, test_ping_interval);
	tcase_add_test(invalid, test_in_place_answers);
	tcase_add_test(invalid, test_busy_poll);
	tcase_add_test(invalid, test_dci_work);
	tcase_add_test(invalid, test_dci_server_keys);
	tcase_add_test(invalid, test_isolate);
	tcase_add_test(invalid, test_log_target);
	tcase_add_test(invalid, test_user);
	tcase_add_test(invalid, test_plugin_dir_not_absolute);
	tcase_add_test(invalid, test_agentx_socket_empty);
	tcase_add_test(invalid, test_unknown_key_agent);
	tcase_add_test(invalid, test_unknown_key_top_level);
	tcase_add_test(invalid, test_unknown_key_provider);
	tcase_add_test(invalid, test_non_scalar_key);
	tcase_add_test(invalid, test_duplicate_key);
	tcase_add_test(invalid, test_duplicate_option_key);
	tcase_add_test(invalid, test_top_level_not_mapping);
	tcase_add_test(invalid, test_agent_not_mapping);
	tcase_add_test(invalid, test_providers_not_sequence);
	tcase_add_test(invalid, test_provider_entry_not_mapping);
	tcase_add_test(invalid, test_missing_module);
	tcase_add_test(invalid, test_invalid_module);
	tcase_add_test(invalid, test_options_not_mapping);
	tcase_add_test(invalid, test_option_value_mapping);
	tcase_add_test(invalid, test_option_value_nested_sequence);
	tcase_add_test(invalid, test_syntax_error);
	tcase_add_test(invalid, test_encoding_error);
	tcase_add_test(invalid, test_nul_in_value);
	tcase_add_test(invalid, test_alias_errors);
	tcase_add_test(invalid, test_nesting_limit);
	tcase_add_test(invalid, test_nesting_at_limit);
	tcase_add_test(invalid, test_nesting_huge);
	tcase_add_test(invalid, test_second_document);
	tcase_add_test(invalid, test_error_truncated);
	suite_add_tcase(suite, invalid);

	tcase_add_test(files, test_load_missing_file);
	tcase_add_test(files, test_load_directory);
	tcase_add_test(files, test_load_file);
	tcase_add_test(files, test_notifications_default);
	tcase_add_test(files, test_notifications_set);
	tcase_add_test(files, test_notifications_errors);
	tcase_add_test(files, test_notifications_data_changed);
	tcase_add_test(files, test_load_size_limit);
	tcase_add_test(files, test_load_no_provider);
	suite_add_tcase(suite, files);
	return suite;
}

int
main(void)
{
	return unit_run_suite(config_suite());
}
