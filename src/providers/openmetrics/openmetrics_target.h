/*
 * openmetrics_target: one scrape target as the options give it, checked
 * against the address policy, and its scrape over HTTP with libcurl.
 *
 * A `targets` item is a URL (at most OM_TARGET_URL_MAX characters) followed by
 * blank-separated key=value words: name=NAME     the target's supplier module
 * and the first part of its class labels (letters, digits, '_' and '-', at most
 *                 OM_TARGET_NAME_MAX characters); default "om_" and the
 *                 URL's host and port with every other character made
 *                 '_' (om_127_0_0_1_9100)
 *   timeout=T     the whole scrape's limit (ms, s: "500ms", "5s");
 *                 default the provider's `timeout`
 *   interval=T    scrape no more often than that (the values of the last
 *                 scrape are served in between); default every refresh
 *   unix=PATH     connect to this unix stream socket (absolute path)
 *                 instead of the URL's host and port
 * Policy: the scheme is http, and the host a loopback address (127.0.0.0/8
 * written as four decimal numbers, [::1], or localhost, which libcurl
 * resolves to loopback without asking DNS) unless unix= is given; with
 * `allow-remote` any host and https too. Redirects are not followed, no
 * compression is asked for, and the body is cut off (the scrape failing)
 * past the body bound.
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

/* A body read by om_fetch; kept between scrapes. One byte more than
 * `length` is always there (a NUL) for the parser to write over. */
struct om_body {
	char *bytes;
	size_t length;
	size_t capacity;
};

struct om_fetcher; /* one libcurl handle, reused */

struct om_fetcher *om_fetcher_new(void);
void om_fetcher_free(struct om_fetcher *fetcher);

/* Scrapes `config` into `body` (at most `max_bytes`). Returns 0 on an HTTP
 * 200 answer, or -1 with a reason in `why` (escaped, one line). */
int om_fetch(struct om_fetcher *fetcher, const struct om_target_config *config,
    struct om_body *body, size_t max_bytes, char *why, size_t why_size);

/* libcurl's global state: once per process, from the main thread. */
int om_fetch_global_init(void);
void om_fetch_global_cleanup(void);

#pragma GCC visibility pop

#endif
