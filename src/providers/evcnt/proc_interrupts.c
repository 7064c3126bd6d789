/*
 * proc_interrupts: the text is scanned once for line ends, to size the
 * blocks the rows go into, then parsed line by line without copying lines.
 * Keys and descriptions are copied into one block sized from the text's
 * length (each row's strings take no more bytes than its line), counts
 * into one block sized from the number of lines and CPU columns, so row
 * pointers never move while a parse is under way.
 */
#include "proc_interrupts.h"
#include "providers/common/growable.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest message handed to warn. */
/* How much of an unexpected word a message quotes. */
#define PROC_INTERRUPTS_QUOTE_MAX 24

/* White space between fields. A NUL byte, which the kernel never writes,
 * separates words too, so it cannot cut a description short. */
static bool
proc_interrupts_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' ||
	       c == '\0';
}

static bool
proc_interrupts_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Printable ASCII other than the space. */
static bool
proc_interrupts_is_graphic(char c)
{
	return c > ' ' && c < 0x7f;
}

static const char *
proc_interrupts_skip_space(const char *p, const char *end)
{
	while (p < end && proc_interrupts_is_space(*p))
		p++;
	return p;
}

static const char *
proc_interrupts_word_end(const char *p, const char *end)
{
	while (p < end && !proc_interrupts_is_space(*p))
		p++;
	return p;
}

void
proc_interrupts_report(proc_interrupts_warn warn, void *opaque, unsigned line,
    const char *format, ...)
{
	/* Room for two keys quoted in one message. */
	char message[2u * PROC_INTERRUPTS_KEY_MAX + 96u];
	va_list arguments;

	if (warn == NULL)
		return;
	va_start(arguments, format);
	vsnprintf(message, sizeof message, format, arguments);
	va_end(arguments);
	warn(opaque, line, message);
}

/* Parses a decimal number of 1..n digits spanning [p, end) exactly.
 * Returns 0, or -1 when it has anything but digits or exceeds maximum. */
static int
proc_interrupts_number(
    const char *p, const char *end, uint64_t maximum, uint64_t *value)
{
	uint64_t result = 0;

	if (p == end)
		return -1;
	for (; p < end; p++) {
		unsigned digit;

		if (!proc_interrupts_is_digit(*p))
			return -1;
		digit = (unsigned)(*p - '0');
		if (result > (maximum - digit) / 10)
			return -1;
		result = result * 10 + digit;
	}
	*value = result;
	return 0;
}

/* Reads the header's "CPU<n>" columns into the table. Returns 0, or -1
 * with errno (EBADMSG after reporting, ENOMEM). */
static int
proc_interrupts_header(struct proc_interrupts_table *table, const char *p,
    const char *end, proc_interrupts_warn warn, void *opaque)
{
	size_t count = 0;

	for (p = proc_interrupts_skip_space(p, end); p < end;
	     p = proc_interrupts_skip_space(p, end)) {
		const char *word = p;
		const char *word_end = proc_interrupts_word_end(p, end);
		uint64_t number;

		p = word_end;
		if (word_end - word < 4 || memcmp(word, "CPU", 3) != 0 ||
		    proc_interrupts_number(word + 3, word_end,
		        PROC_INTERRUPTS_CPU_MAX, &number) != 0) {
			proc_interrupts_report(warn, opaque, 1,
			    "header: \"%.*s\" is not a CPU column",
			    (int)(word_end - word > PROC_INTERRUPTS_QUOTE_MAX
			              ? PROC_INTERRUPTS_QUOTE_MAX
			              : word_end - word),
			    word);
			errno = EBADMSG;
			return -1;
		}
		/* The kernel lists online CPUs in increasing order; this also
		 * rules out a column named twice. */
		if (count > 0 && number <= table->cpu_items[count - 1]) {
			proc_interrupts_report(warn, opaque, 1,
			    "header: CPU%" PRIu64 " after CPU%" PRIu32, number,
			    table->cpu_items[count - 1]);
			errno = EBADMSG;
			return -1;
		}
		if (PROVIDER_RESERVE(
		        table->cpu_items, table->cpu_capacity, count + 1) != 0)
			return -1;
		table->cpu_items[count++] = (uint32_t)number;
	}
	if (count == 0) {
		proc_interrupts_report(
		    warn, opaque, 1, "header: no CPU column");
		errno = EBADMSG;
		return -1;
	}
	table->cpu_count = count;
	return 0;
}

/* The parse under way: where the next key, description and counts go. */
struct proc_interrupts_cursor {
	size_t text_used;
	size_t count_used;
};

/*
 * Parses the line [p, end) numbered line into a new row, or reports why it
 * is skipped. Storage has been reserved: the strings of a line fit in the
 * bytes of the line, and the counts in cpu_count per line. Returns 0, or
 * -1 with errno ENOMEM.
 */
static int
proc_interrupts_row(struct proc_interrupts_table *table,
    struct proc_interrupts_cursor *cursor, const char *p, const char *end,
    unsigned line, proc_interrupts_warn warn, void *opaque)
{
	const char *key;
	const char *colon;
	size_t key_length;
	uint64_t *counts = table->count_items + cursor->count_used;
	size_t count = 0;
	char *text = table->text_items + cursor->text_used;
	struct proc_interrupts_row *row;

	p = proc_interrupts_skip_space(p, end);
	if (p == end)
		return 0; /* white space only */
	colon = memchr(p, ':', (size_t)(end - p));
	if (colon == NULL) {
		proc_interrupts_report(
		    warn, opaque, line, "no ':' after a key");
		return 0;
	}
	key = p;
	key_length = (size_t)(colon - p);
	if (key_length == 0) {
		proc_interrupts_report(warn, opaque, line, "empty key");
		return 0;
	}
	if (key_length > PROC_INTERRUPTS_KEY_MAX) {
		proc_interrupts_report(warn, opaque, line,
		    "key longer than %u bytes", PROC_INTERRUPTS_KEY_MAX);
		return 0;
	}
	for (size_t i = 0; i < key_length; i++) {
		if (!proc_interrupts_is_graphic(key[i])) {
			proc_interrupts_report(warn, opaque, line,
			    "key with white space or unprintable characters");
			return 0;
		}
	}

	/* The counts: decimal words, as many as there are CPU columns. */
	p = colon + 1;
	while (count < table->cpu_count) {
		const char *word_end;

		p = proc_interrupts_skip_space(p, end);
		if (p == end || !proc_interrupts_is_digit(*p))
			break;
		word_end = proc_interrupts_word_end(p, end);
		if (proc_interrupts_number(
		        p, word_end, UINT64_MAX, &counts[count]) != 0) {
			bool digits = true;

			for (const char *c = p; c < word_end && digits; c++)
				digits = proc_interrupts_is_digit(*c);
			proc_interrupts_report(warn, opaque, line,
			    digits ? "%.*s: count %zu exceeds 64 bits"
			           : "%.*s: count %zu is not a number",
			    (int)key_length, key, count + 1);
			return 0;
		}
		count++;
		p = word_end;
	}
	p = proc_interrupts_skip_space(p, end);
	if (count == 0) {
		proc_interrupts_report(
		    warn, opaque, line, "%.*s: no count", (int)key_length, key);
		return 0;
	}
	if (count < table->cpu_count && (count != 1 || p < end)) {
		if (p < end)
			proc_interrupts_report(warn, opaque, line,
			    "%.*s: \"%.*s\" where count %zu of %zu must be",
			    (int)key_length, key,
			    (int)(proc_interrupts_word_end(p, end) - p >
			                  PROC_INTERRUPTS_QUOTE_MAX
			              ? PROC_INTERRUPTS_QUOTE_MAX
			              : proc_interrupts_word_end(p, end) - p),
			    p, count + 1, table->cpu_count);
		else
			proc_interrupts_report(warn, opaque, line,
			    "%.*s: %zu counts for %zu CPU columns",
			    (int)key_length, key, count, table->cpu_count);
		return 0;
	}

	if (PROVIDER_RESERVE(table->row_items, table->row_capacity,
	        table->row_count + 1) != 0)
		return -1;
	row = &table->row_items[table->row_count++];

	memcpy(text, key, key_length);
	text[key_length] = '\0';
	row->key = text;
	text += key_length + 1; /* the ':' paid for the NUL */

	/* The description, words joined by single spaces. It follows white
	 * space, which pays for its NUL. */
	if (p < end) {
		size_t used = 0;

		row->description = text;
		while (p < end) {
			const char *word_end = proc_interrupts_word_end(p, end);

			if (used > 0)
				text[used++] = ' ';
			memcpy(text + used, p, (size_t)(word_end - p));
			used += (size_t)(word_end - p);
			p = proc_interrupts_skip_space(word_end, end);
		}
		text[used] = '\0';
		text += used + 1;
	} else {
		row->description = "";
	}
	cursor->text_used = (size_t)(text - table->text_items);

	row->counts = counts;
	row->count_count = count;
	row->global = count < table->cpu_count;
	row->line = line;
	cursor->count_used += count;
	return 0;
}

int
proc_interrupts_parse(struct proc_interrupts_table *table, const char *text,
    size_t length, proc_interrupts_warn warn, void *opaque)
{
	const char *end;
	const char *p = text;
	const char *line_end;
	struct proc_interrupts_cursor cursor = {0, 0};
	size_t lines = 1;
	size_t wanted;
	unsigned line = 1;

	table->cpus = NULL;
	table->cpu_count = 0;
	table->rows = NULL;
	table->row_count = 0;

	if (length == 0) {
		proc_interrupts_report(
		    warn, opaque, 1, "header: no CPU column");
		errno = EBADMSG;
		goto failed;
	}
	end = text + length;
	line_end = memchr(p, '\n', length);
	if (line_end == NULL)
		line_end = end;
	if (proc_interrupts_header(table, p, line_end, warn, opaque) != 0)
		goto failed;

	/* Reserve for the worst case, so nothing moves during the parse. */
	for (const char *c = text; c < end; c++) {
		c = memchr(c, '\n', (size_t)(end - c));
		if (c == NULL)
			break;
		lines++;
	}
	wanted = lines > SIZE_MAX / table->cpu_count ? SIZE_MAX
	                                             : lines * table->cpu_count;
	if (PROVIDER_RESERVE(
	        table->count_items, table->count_capacity, wanted) != 0)
		goto failed;
	if (length == SIZE_MAX) {
		errno = ENOMEM;
		goto failed;
	}
	if (PROVIDER_RESERVE(
	        table->text_items, table->text_capacity, length + 1) != 0)
		goto failed;

	while (line_end < end) {
		p = line_end + 1;
		line_end = memchr(p, '\n', (size_t)(end - p));
		if (line_end == NULL)
			line_end = end;
		if (line < UINT_MAX)
			line++;
		if (proc_interrupts_row(
		        table, &cursor, p, line_end, line, warn, opaque) != 0)
			goto failed;
	}

	table->cpus = table->cpu_items;
	table->rows = table->row_items;
	return 0;

failed:
	table->cpu_count = 0;
	table->row_count = 0;
	return -1;
}

void
proc_interrupts_free(struct proc_interrupts_table *table)
{
	free(table->cpu_items);
	free(table->row_items);
	free(table->count_items);
	free(table->text_items);
	memset(table, 0, sizeof *table);
}
