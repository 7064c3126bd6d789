/*
 * The one escaping of text from outside the process (labels, segment and
 * configuration strings, provider messages, what an SNMP agent answers)
 * before it reaches a log line or a terminal, so that it can neither
 * forge a line nor drive the terminal (ESC, CSI, OSC and their C1 forms).
 *
 * Escaped bytes are written "\xHH" (two lowercase hex digits). Two modes:
 *   DCI_TEXT_ESCAPE_LABEL     printable ASCII (0x20..0x7e) stands for
 *       itself except the backslash, which becomes "\\"; every other byte
 *       is escaped. Reversible and ASCII: instance labels as served, and
 *       an outside string quoted inside a message.
 *   DCI_TEXT_ESCAPE_TERMINAL  only what a terminal or a log reader acts
 *       on is escaped: C0 controls (newline and tab included), DEL, the
 *       C1 controls U+0080..U+009F (as the bytes of their UTF-8 form) and
 *       every byte that is not part of well-formed UTF-8 (a lone 0x9b is
 *       CSI to an 8-bit terminal). Backslashes and other UTF-8 stay: the
 *       last line of defence of the log sink and of the text tables,
 *       whose text may already hold escapes made in the label mode.
 *
 * Neither libdcistat nor the CLI owns it: libdcistat, the CLI and the
 * providers that log what segments hold compile it in.
 */
#ifndef DCISTAT_TEXT_ESCAPE_H
#define DCISTAT_TEXT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

enum dci_text_escape_mode {
	DCI_TEXT_ESCAPE_LABEL,
	DCI_TEXT_ESCAPE_TERMINAL,
};

/* The most bytes one input byte becomes ("\xHH"). */
#define DCI_TEXT_ESCAPE_GROWTH 4

/* Escapes the `length` bytes at `text` (NUL bytes included, escaped)
 * into `out` (`out_size` bytes, always NUL-terminated when out_size > 0),
 * as many whole characters and escapes as fit. Returns the number of
 * input bytes written out: `length` when all of it fit. */
size_t dci_text_escape(char *out, size_t out_size, const char *text,
    size_t length, enum dci_text_escape_mode mode);

/* A NUL-terminated string (NULL is written "(null)") in the label mode,
 * cut to fit, with "..." at its end when cut: for a message that quotes
 * an outside string. Returns `out`. */
const char *dci_text_quote(char *out, size_t out_size, const char *text);

/* Whether escaping the `length` bytes at `text` in `mode` would change
 * them. */
bool dci_text_needs_escape(
    const char *text, size_t length, enum dci_text_escape_mode mode);

#pragma GCC visibility pop

#endif
