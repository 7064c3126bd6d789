/*
 * openmetrics_target: see openmetrics_target.h.
 */
#define _GNU_SOURCE

#include "openmetrics_target.h"

#include <curl/curl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OM_DURATION_MAX_MS 3600000u

unsigned
om_duration_ms(const char *text)
{
	char *end;
	unsigned long long value;

	if (text == NULL || text[0] < '0' || text[0] > '9')
		return 0;
	value = strtoull(text, &end, 10);
	if (value > OM_DURATION_MAX_MS)
		return 0;
	if (strcmp(end, "ms") == 0)
		;
	else if (strcmp(end, "s") == 0 || *end == '\0')
		value *= 1000;
	else if (strcmp(end, "m") == 0)
		value *= 60000;
	else if (strcmp(end, "h") == 0)
		value *= 3600000;
	else
		return 0;
	if (value == 0 || value > OM_DURATION_MAX_MS)
		return 0;
	return (unsigned)value;
}

static bool
name_valid(const char *name, size_t length)
{
	if (length == 0 || length > OM_TARGET_NAME_MAX)
		return false;
	for (size_t i = 0; i < length; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		        (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* 127.0.0.0/8 as four decimal numbers. */
static bool
ipv4_loopback(const char *host)
{
	unsigned parts[4];
	char tail;
	if (sscanf(host, "%3u.%3u.%3u.%3u%c", &parts[0], &parts[1], &parts[2],
	        &parts[3], &tail) != 4)
		return false;
	for (int i = 0; i < 4; i++)
		if (parts[i] > 255)
			return false;
	for (const char *c = host; *c != '\0'; c++)
		if (!((*c >= '0' && *c <= '9') || *c == '.'))
			return false;
	return parts[0] == 127;
}

static int
url_check(struct om_target_config *config, bool allow_remote, char *why,
    size_t why_size)
{
	CURLU *url = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL;
	int status = -1;

	if (url == NULL) {
		snprintf(why, why_size, "out of memory");
		return -1;
	}
	if (curl_url_set(url, CURLUPART_URL, config->url, 0) != CURLUE_OK ||
	    curl_url_get(url, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK) {
		snprintf(why, why_size, "not a URL");
		goto out;
	}
	if (curl_url_get(url, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) !=
	    CURLUE_OK)
		port = NULL;
	if (strcmp(scheme, "http") != 0 &&
	    !(allow_remote && strcmp(scheme, "https") == 0)) {
		snprintf(why, why_size, "scheme %.16s: only http%s", scheme,
		    allow_remote ? " and https" : " (https with allow-remote)");
		goto out;
	}
	if (curl_url_get(url, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		snprintf(why, why_size, "no host");
		goto out;
	}
	if (!allow_remote && config->unix_path == NULL &&
	    !ipv4_loopback(host) && strcmp(host, "[::1]") != 0 &&
	    strcmp(host, "localhost") != 0) {
		snprintf(why, why_size,
		    "host is not loopback (allow-remote, or unix=PATH)");
		goto out;
	}
	if (config->name[0] == '\0') {
		int written = snprintf(config->name, sizeof(config->name),
		    "om_%s_%s", host, port != NULL ? port : "");
		(void)written;
		for (char *c = config->name; *c != '\0'; c++)
			if (!name_valid(c, 1))
				*c = '_';
		size_t length = strlen(config->name);
		while (length > 0 && config->name[length - 1] == '_')
			config->name[--length] = '\0';
	}
	status = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(url);
	return status;
}

int
om_target_config_parse(const char *item, unsigned default_timeout_ms,
    bool allow_remote, struct om_target_config *config, char *why,
    size_t why_size)
{
	const char *cursor = item;
	*config = (struct om_target_config){.timeout_ms = default_timeout_ms};

	while (*cursor == ' ')
		cursor++;
	size_t length = strcspn(cursor, " \t");
	if (length == 0 || length > OM_TARGET_URL_MAX) {
		snprintf(why, why_size,
		    length == 0 ? "no URL" : "URL longer than %u characters",
		    OM_TARGET_URL_MAX);
		return -1;
	}
	config->url = strndup(cursor, length);
	if (config->url == NULL) {
		snprintf(why, why_size, "out of memory");
		return -1;
	}
	cursor += length;
	for (;;) {
		while (*cursor == ' ' || *cursor == '\t')
			cursor++;
		if (*cursor == '\0')
			break;
		length = strcspn(cursor, " \t");
		const char *equals = memchr(cursor, '=', length);
		if (equals == NULL) {
			snprintf(
			    why, why_size, "expected key=value after the URL");
			goto fail;
		}
		size_t key_length = (size_t)(equals - cursor);
		const char *value = equals + 1;
		size_t value_length = length - key_length - 1;
		char value_copy[256];
		if (value_length >= sizeof(value_copy)) {
			snprintf(why, why_size, "value too long");
			goto fail;
		}
		memcpy(value_copy, value, value_length);
		value_copy[value_length] = '\0';
		if (key_length == 4 && memcmp(cursor, "name", 4) == 0) {
			if (!name_valid(value_copy, value_length)) {
				snprintf(why, why_size,
				    "name: 1 to %u letters, digits, '_' or '-'",
				    OM_TARGET_NAME_MAX);
				goto fail;
			}
			memcpy(config->name, value_copy, value_length + 1);
		} else if (key_length == 7 &&
		           memcmp(cursor, "timeout", 7) == 0) {
			config->timeout_ms = om_duration_ms(value_copy);
			if (config->timeout_ms == 0) {
				snprintf(why, why_size,
				    "timeout: e.g. 500ms or 5s, at most an "
				    "hour");
				goto fail;
			}
		} else if (key_length == 8 &&
		           memcmp(cursor, "interval", 8) == 0) {
			config->interval_ms = om_duration_ms(value_copy);
			if (config->interval_ms == 0) {
				snprintf(why, why_size,
				    "interval: e.g. 15s, at most an hour");
				goto fail;
			}
		} else if (key_length == 4 && memcmp(cursor, "unix", 4) == 0) {
			if (value_copy[0] != '/') {
				snprintf(
				    why, why_size, "unix: an absolute path");
				goto fail;
			}
			free(config->unix_path);
			config->unix_path = strdup(value_copy);
			if (config->unix_path == NULL) {
				snprintf(why, why_size, "out of memory");
				goto fail;
			}
		} else {
			snprintf(why, why_size,
			    "unknown key (name, timeout, interval, unix)");
			goto fail;
		}
		cursor += length;
	}
	if (url_check(config, allow_remote, why, why_size) == 0)
		return 0;
fail:
	om_target_config_free(config);
	return -1;
}

void
om_target_config_free(struct om_target_config *config)
{
	free(config->url);
	free(config->unix_path);
	config->url = NULL;
	config->unix_path = NULL;
}
