/* The escaping of outside text (escape.h). */
#include "text/escape.h"

#include "text/utf8.h"

#include <string.h>

/* The length (2..4) of the well-formed UTF-8 sequence at `text` of
 * `available` bytes that encodes a code point from U+00A0 (no overlong
 * form, no surrogate, at most U+10FFFF), or 0: a C1 control or bytes that
 * are no UTF-8 are escaped byte by byte. */
static size_t
printable_utf8_length(const unsigned char *text, size_t available)
{
	unsigned long code;
	size_t length = dci_text_utf8_length(text, available, &code);

	return length >= 2 && code >= 0xa0 ? length : 0;
}

/* What the bytes at `text` become: `*consumed` input bytes written as the
 * returned number of bytes of `piece` (room for DCI_TEXT_ESCAPE_GROWTH),
 * or, for a UTF-8 sequence kept whole, 0 with `*consumed` its length. */
static size_t
escape_piece(const unsigned char *text, size_t available,
    enum dci_text_escape_mode mode, char *piece, size_t *consumed)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = text[0];

	*consumed = 1;
	if (c == '\\' && mode == DCI_TEXT_ESCAPE_LABEL) {
		piece[0] = piece[1] = '\\';
		return 2;
	}
	if (c >= 0x20 && c <= 0x7e) {
		piece[0] = (char)c;
		return 1;
	}
	if (c >= 0x80 && mode == DCI_TEXT_ESCAPE_TERMINAL) {
		size_t length = printable_utf8_length(text, available);
		if (length > 0) {
			*consumed = length;
			return 0;
		}
	}
	piece[0] = '\\';
	piece[1] = 'x';
	piece[2] = hex[c >> 4];
	piece[3] = hex[c & 0xf];
	return 4;
}

size_t
dci_text_escape(char *out, size_t out_size, const char *text, size_t length,
    enum dci_text_escape_mode mode)
{
	const unsigned char *bytes = (const unsigned char *)text;
	size_t done = 0, used = 0;

	if (out_size == 0)
		return 0;
	while (done < length) {
		char piece[DCI_TEXT_ESCAPE_GROWTH];
		size_t consumed;
		size_t written = escape_piece(
		    bytes + done, length - done, mode, piece, &consumed);
		const char *from = written > 0 ? piece : text + done;
		size_t size = written > 0 ? written : consumed;

		if (used + size > out_size - 1)
			break;
		memcpy(out + used, from, size);
		used += size;
		done += consumed;
	}
	out[used] = '\0';
	return done;
}

const char *
dci_text_quote(char *out, size_t out_size, const char *text)
{
	size_t length;

	if (out_size == 0)
		return out;
	if (text == NULL)
		text = "(null)";
	length = strlen(text);
	if (dci_text_escape(
	        out, out_size, text, length, DCI_TEXT_ESCAPE_LABEL) < length &&
	    out_size > 4) {
		/* Cut: room for the mark, on a whole escape. */
		dci_text_escape(
		    out, out_size - 3, text, length, DCI_TEXT_ESCAPE_LABEL);
		strcat(out, "...");
	}
	return out;
}

bool
dci_text_needs_escape(
    const char *text, size_t length, enum dci_text_escape_mode mode)
{
	const unsigned char *bytes = (const unsigned char *)text;

	for (size_t done = 0; done < length;) {
		char piece[DCI_TEXT_ESCAPE_GROWTH];
		size_t consumed;
		size_t written = escape_piece(
		    bytes + done, length - done, mode, piece, &consumed);

		if (written > 1)
			return true;
		done += consumed;
	}
	return false;
}
