/* UTF-8 checking (utf8.h). */
#define _GNU_SOURCE
#include "cli/utf8.h"

#include <string.h>

#include "text/utf8.h"

void
cli_utf8_write(FILE *out, const char *text,
    cli_utf8_character_writer write_character, const void *context)
{
	const unsigned char *bytes = (const unsigned char *)text;
	size_t available = strlen(text), step;
	unsigned long code;

	while (available > 0) {
		step = dci_text_utf8_length(bytes, available, &code);
		if (step == 0) {
			fputs(CLI_UTF8_REPLACEMENT, out);
			step = 1;
		} else {
			write_character(out, bytes, step, context);
		}
		bytes += step;
		available -= step;
	}
}

size_t
cli_utf8_width(const char *text)
{
	const unsigned char *bytes = (const unsigned char *)text;
	size_t available = strlen(text), width = 0, step;
	unsigned long code;

	while (available > 0) {
		step = dci_text_utf8_length(bytes, available, &code);
		if (step == 0)
			step = 1;
		bytes += step;
		available -= step;
		width++;
	}
	return width;
}
