/*
 * openmetrics_fetch: see openmetrics_fetch.h.
 */
#define _GNU_SOURCE

#include "openmetrics_fetch.h"

#include "providers/common/clock.h"
#include "text/escape.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest one wait for the transfers' sockets lasts, so that a
 * deadline is met even if libcurl asked for no timer. */
#define OM_FETCH_WAIT_MAX_MS 1000u

/* One slot: its easy handle (made at its first transfer, reused, so that
 * its connection can be), and what its running transfer writes. */
struct om_transfer {
	CURL *easy;
	struct om_body *body;
	size_t max_bytes;
	bool too_large;
	bool running;
	char error[CURL_ERROR_SIZE];
};

struct om_fetch_set {
	CURLM *multi;
	struct curl_slist *headers;
	size_t running;
	size_t slot_count;
	struct om_transfer slots[];
};

int
om_fetch_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void
om_fetch_global_cleanup(void)
{
	curl_global_cleanup();
}

struct om_fetch_set *
om_fetch_set_new(size_t slots)
{
	struct om_fetch_set *set =
	    calloc(1, sizeof(*set) + slots * sizeof(set->slots[0]));

	if (set == NULL)
		return NULL;
	set->slot_count = slots;
	set->multi = curl_multi_init();
	set->headers = curl_slist_append(NULL,
	    "Accept: application/openmetrics-text;version=1.0.0,"
	    "text/plain;version=0.0.4;q=0.5");
	if (set->multi == NULL || set->headers == NULL) {
		om_fetch_set_free(set);
		return NULL;
	}
	return set;
}

void
om_fetch_set_free(struct om_fetch_set *set)
{
	if (set == NULL)
		return;
	for (size_t s = 0; s < set->slot_count; s++) {
		struct om_transfer *transfer = &set->slots[s];
		if (transfer->running)
			curl_multi_remove_handle(set->multi, transfer->easy);
		if (transfer->easy != NULL)
			curl_easy_cleanup(transfer->easy);
	}
	if (set->multi != NULL)
		curl_multi_cleanup(set->multi);
	curl_slist_free_all(set->headers);
	free(set);
}

static size_t
body_write(char *data, size_t size, size_t count, void *opaque)
{
	struct om_transfer *transfer = opaque;
	struct om_body *body = transfer->body;
	size_t length = size * count;

	if (length > transfer->max_bytes - body->length) {
		transfer->too_large = true;
		return 0; /* libcurl then fails the transfer */
	}
	if (body->length + length + 1 > body->capacity) {
		size_t capacity = body->capacity ? body->capacity : 65536;
		while (capacity < body->length + length + 1)
			capacity *= 2;
		char *grown = realloc(body->bytes, capacity);
		if (grown == NULL)
			return 0;
		body->bytes = grown;
		body->capacity = capacity;
	}
	memcpy(body->bytes + body->length, data, length);
	body->length += length;
	body->bytes[body->length] = '\0';
	return length;
}

static void
transfer_options(CURL *easy, const struct om_target_config *config,
    size_t max_bytes, const struct curl_slist *headers)
{
	curl_easy_setopt(easy, CURLOPT_URL, config->url);
	if (config->unix_path != NULL)
		curl_easy_setopt(
		    easy, CURLOPT_UNIX_SOCKET_PATH, config->unix_path);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(
	    easy, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	/* From the transfer's start: it bounds a transfer that goes on
	 * over several refreshes too. */
	curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)config->timeout_ms);
	curl_easy_setopt(
	    easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(easy, CURLOPT_USERAGENT, "dcistatd-openmetrics");
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, body_write);
}

int
om_fetch_start(struct om_fetch_set *set, size_t slot,
    const struct om_target_config *config, struct om_body *body,
    size_t max_bytes, char *why, size_t why_size)
{
	struct om_transfer *transfer = &set->slots[slot];

	if (transfer->easy == NULL)
		transfer->easy = curl_easy_init();
	else
		curl_easy_reset(transfer->easy);
	if (transfer->easy == NULL) {
		snprintf(why, why_size, "out of memory");
		return -1;
	}
	body->length = 0;
	if (body->bytes != NULL)
		body->bytes[0] = '\0';
	transfer->body = body;
	transfer->max_bytes = max_bytes;
	transfer->too_large = false;
	transfer->error[0] = '\0';
	transfer_options(transfer->easy, config, max_bytes, set->headers);
	curl_easy_setopt(transfer->easy, CURLOPT_WRITEDATA, transfer);
	curl_easy_setopt(transfer->easy, CURLOPT_ERRORBUFFER, transfer->error);
	curl_easy_setopt(transfer->easy, CURLOPT_PRIVATE, transfer);
	CURLMcode added = curl_multi_add_handle(set->multi, transfer->easy);
	if (added != CURLM_OK) {
		snprintf(why, why_size, "%s", curl_multi_strerror(added));
		return -1;
	}
	transfer->running = true;
	set->running++;
	return 0;
}

bool
om_fetch_running(const struct om_fetch_set *set, size_t slot)
{
	return set->slots[slot].running;
}

/* What an ended transfer came to: 0 for an HTTP 200 answer, or -1 with
 * the reason. */
static int
transfer_result(
    struct om_transfer *transfer, CURLcode result, char *why, size_t why_size)
{
	struct om_body *body = transfer->body;
	long code = 0;

	if (transfer->too_large || result == CURLE_FILESIZE_EXCEEDED) {
		snprintf(why, why_size, "body of more than %zu bytes",
		    transfer->max_bytes);
		return -1;
	}
	if (result != CURLE_OK) {
		char escaped[CURL_ERROR_SIZE * DCI_TEXT_ESCAPE_GROWTH];
		const char *text = transfer->error[0] != '\0'
		                       ? transfer->error
		                       : curl_easy_strerror(result);
		dci_text_escape(escaped, sizeof(escaped), text, strlen(text),
		    DCI_TEXT_ESCAPE_LABEL);
		snprintf(why, why_size, "%s", escaped);
		return -1;
	}
	curl_easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		snprintf(why, why_size, "HTTP status %ld", code);
		return -1;
	}
	if (body->bytes == NULL) {
		/* An empty answer: give the parser its byte. */
		body->bytes = malloc(1);
		if (body->bytes == NULL) {
			snprintf(why, why_size, "out of memory");
			return -1;
		}
		body->capacity = 1;
		body->bytes[0] = '\0';
	}
	return 0;
}

/* The slot of a transfer that ended, taken out of the multi handle, or
 * -1. */
static long
transfer_ended(
    struct om_fetch_set *set, int *status, char *why, size_t why_size)
{
	CURLMsg *message;
	int queued;

	while ((message = curl_multi_info_read(set->multi, &queued)) != NULL) {
		struct om_transfer *transfer = NULL;
		if (message->msg != CURLMSG_DONE)
			continue;
		CURLcode result = message->data.result;
		curl_easy_getinfo(
		    message->easy_handle, CURLINFO_PRIVATE, (char **)&transfer);
		if (transfer == NULL || !transfer->running)
			continue;
		curl_multi_remove_handle(set->multi, transfer->easy);
		transfer->running = false;
		set->running--;
		*status = transfer_result(transfer, result, why, why_size);
		return (long)(transfer - set->slots);
	}
	return -1;
}

long
om_fetch_next(struct om_fetch_set *set, uint64_t deadline_us, int *status,
    char *why, size_t why_size)
{
	for (;;) {
		int still_running = 0;
		CURLMcode driven =
		    curl_multi_perform(set->multi, &still_running);
		long slot = transfer_ended(set, status, why, why_size);
		if (slot >= 0)
			return slot;
		if (set->running == 0 || driven != CURLM_OK)
			return -1;
		uint64_t now = provider_monotonic_microseconds();
		if (now >= deadline_us)
			return -1;
		uint64_t wait_ms = (deadline_us - now + 999) / 1000;
		if (wait_ms > OM_FETCH_WAIT_MAX_MS)
			wait_ms = OM_FETCH_WAIT_MAX_MS;
		if (curl_multi_poll(set->multi, NULL, 0, (int)wait_ms, NULL) !=
		    CURLM_OK)
			return -1;
	}
}
