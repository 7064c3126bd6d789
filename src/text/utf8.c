/* UTF-8 decoding (utf8.h). */
#include "text/utf8.h"

size_t
dci_text_utf8_length(
    const unsigned char *text, size_t available, unsigned long *code)
{
	unsigned lead;
	size_t length;

	if (available == 0)
		return 0;
	lead = text[0];
	*code = lead;
	if (lead < 0x80)
		return 1;
	if (lead >= 0xc2 && lead <= 0xdf) {
		length = 2;
		*code = lead & 0x1f;
	} else if (lead >= 0xe0 && lead <= 0xef) {
		length = 3;
		*code = lead & 0x0f;
	} else if (lead >= 0xf0 && lead <= 0xf4) {
		length = 4;
		*code = lead & 0x07;
	} else {
		return 0;
	}
	if (available < length)
		return 0;
	for (size_t i = 1; i < length; i++) {
		if ((text[i] & 0xc0) != 0x80)
			return 0;
		*code = *code << 6 | (text[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((length == 3 && *code < 0x800) ||
	    (length == 4 && *code < 0x10000) ||
	    (*code >= 0xd800 && *code <= 0xdfff) || *code > 0x10ffff)
		return 0;
	return length;
}
