/*
 * UTF-8 decoding of outside bytes, shared by the escaping (escape.c) and
 * the CLI's writers (JSON and OpenMetrics require valid UTF-8): one
 * definition of a well-formed sequence for both.
 */
#ifndef DCISTAT_TEXT_UTF8_H
#define DCISTAT_TEXT_UTF8_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* The length (2..4) of the well-formed multi-byte sequence at `text` of
 * `available` bytes (no overlong form, no surrogate, at most U+10FFFF)
 * with its code point in *code, 1 for an ASCII byte (*code that byte), or
 * 0 when the bytes there are not UTF-8. */
size_t dci_text_utf8_length(
    const unsigned char *text, size_t available, unsigned long *code);

#pragma GCC visibility pop

#endif
