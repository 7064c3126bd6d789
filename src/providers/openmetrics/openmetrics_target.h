/*
 * openmetrics_target: one scrape target as the options give it, checked
 * against the address policy (libcurl parses the URL).
 *
 * A `targets` item is a URL (at most OM_TARGET_URL_MAX characters) followed by
 * blank-separated key=value words: name=NAME     the target's supplier module
 * and the first part of its class labels (letters, digits, '_' and '-', at most
 *                 OM_TARGET_NAME_MAX characters); default "om_" and the
 *                 URL's host and port with every other character made
 *                 '_' (om_127_0_0_1_9100)
 *   timeout=T     the whole scrape's limit, from its start, over
 *                 refreshes too (ms, s: "500ms", "5s"); default the
 *                 provider's `timeout`
 *   interval=T    scrape no more often than that (the values of the last
 *                 scrape are served in between); default every refresh
 *   unix=PATH     connect to this unix stream socket (absolute path)
 *                 instead of the URL's host and port
 * Policy: the scheme is http, and the host a loopback address (127.0.0.0/8
 * written as four decimal numbers, [::1], or localhost, which libcurl
 * resolves to loopback without asking DNS) unless unix= is given; with
 * `allow-remote` any host and https too. The scrape itself:
 * openmetrics_fetch.h.
 */
#ifndef OPENMETRICS_TARGET_H
#define OPENMETRICS_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

#define OM_TARGET_NAME_MAX 24u
#define OM_TARGET_URL_MAX 255u

struct om_target_config {
	char *url;
	char *unix_path; /* NULL: the URL's host and port */
	char name[OM_TARGET_NAME_MAX + 1];
	unsigned timeout_ms;
	unsigned interval_ms; /* 0: at every refresh */
};

/* Parses a `targets` item. Returns 0, or -1 with a reason in `why`. */
int om_target_config_parse(const char *item, unsigned default_timeout_ms,
    bool allow_remote, struct om_target_config *config, char *why,
    size_t why_size);

void om_target_config_free(struct om_target_config *config);

/* "500ms", "5s", "2" (seconds), "10m", "1h": milliseconds in
 * 1..3600000, or 0. */
unsigned om_duration_ms(const char *text);

#pragma GCC visibility pop

#endif
