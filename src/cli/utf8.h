/*
 * UTF-8 checking for the writers: text from providers (strings, labels)
 * is bytes, and JSON and OpenMetrics both require valid UTF-8, so each
 * writer passes well-formed sequences through and replaces every other
 * byte with U+FFFD rather than emit an invalid document.
 */
#ifndef DCISTAT_CLI_UTF8_H
#define DCISTAT_CLI_UTF8_H

#include <stddef.h>

/* The bytes of U+FFFD REPLACEMENT CHARACTER, for a byte that is no UTF-8. */
#define CLI_UTF8_REPLACEMENT "\xef\xbf\xbd"

/* The length (2..4) of the well-formed multi-byte sequence at `text` of
 * `available` bytes (no overlong form, no surrogate, at most U+10FFFF),
 * 1 for an ASCII byte, or 0 when the bytes there are not UTF-8. */
size_t cli_utf8_sequence_length(const unsigned char *text, size_t available);

/* The number of characters (code points) of a NUL-terminated string, an
 * invalid byte counted as one: the width a terminal gives it, near
 * enough for the table layout. */
size_t cli_utf8_width(const char *text);

#endif
