/*
 * UTF-8 checking for the writers: text from providers (strings, labels)
 * is bytes, and JSON and OpenMetrics both require valid UTF-8, so each
 * writer passes well-formed sequences through and replaces every other
 * byte with U+FFFD rather than emit an invalid document.
 */
#ifndef DCISTAT_CLI_UTF8_H
#define DCISTAT_CLI_UTF8_H

#include <stddef.h>
#include <stdio.h>

/* The bytes of U+FFFD REPLACEMENT CHARACTER, for a byte that is no UTF-8. */
#define CLI_UTF8_REPLACEMENT "\xef\xbf\xbd"

/* Writes one well-formed character, the `length` bytes at `bytes`, as
 * its format wants it (escaped or as it is). */
typedef void (*cli_utf8_character_writer)(
    FILE *out, const unsigned char *bytes, size_t length, const void *context);

/* Writes the NUL-terminated `text` to `out` character by character
 * through `write_character` (given `context`), each byte that is not
 * UTF-8 (dci_text_utf8_length) as CLI_UTF8_REPLACEMENT. */
void cli_utf8_write(FILE *out, const char *text,
    cli_utf8_character_writer write_character, const void *context);

/* The number of characters (code points) of a NUL-terminated string, an
 * invalid byte counted as one: the width a terminal gives it, near
 * enough for the table layout. */
size_t cli_utf8_width(const char *text);

#endif
