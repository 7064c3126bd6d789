/*
 * diskstats: /proc/diskstats holds one line per block device and partition
 * with all its counters, so a refresh reads one file however many devices
 * there are. Parsing is strict about each line and lenient about the file:
 * a line that does not parse is reported and skipped, the others are kept.
 */
#define _GNU_SOURCE

#include "diskstats.h"
#include "providers/common/growable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a warning: the longest is a few dozen characters. */
#define DISKSTATS_MESSAGE_SIZE 96u

/* How many fields the partition lines of kernels before 2.6.25 have. */
#define DISKSTATS_OLD_PARTITION_FIELDS 4u

/* The fields of the four-field partition lines of kernels before 2.6.25,
 * in the order printed. */
static const enum diskstats_field diskstats_old_partition_layout[] = {
    DISKSTATS_READS,
    DISKSTATS_SECTORS_READ,
    DISKSTATS_WRITES,
    DISKSTATS_SECTORS_WRITTEN,
};

_Static_assert(sizeof diskstats_old_partition_layout /
                       sizeof diskstats_old_partition_layout[0] ==
                   DISKSTATS_OLD_PARTITION_FIELDS,
    "old partition layout");

enum diskstats_number_result {
	DISKSTATS_NUMBER_OK,
	DISKSTATS_NUMBER_INVALID,  /* not a decimal number */
	DISKSTATS_NUMBER_OVERFLOW, /* larger than the maximum */
};

/* One blank-separated word of a line. */
struct diskstats_token {
	const char *start;
	size_t length;
};

static bool
diskstats_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Reads the next token from *cursor (not past end) into *token. Returns
 * false when only blanks remain. */
static bool
diskstats_next_token(
    const char **cursor, const char *end, struct diskstats_token *token)
{
	const char *at = *cursor;

	while (at < end && diskstats_is_blank(*at))
		at++;
	if (at == end) {
		*cursor = at;
		return false;
	}
	token->start = at;
	while (at < end && !diskstats_is_blank(*at))
		at++;
	token->length = (size_t)(at - token->start);
	*cursor = at;
	return true;
}

/* An unsigned decimal number no larger than maximum: digits only, no sign,
 * leading zeros allowed. */
static enum diskstats_number_result
diskstats_number(
    const struct diskstats_token *token, uint64_t maximum, uint64_t *value)
{
	uint64_t result = 0;

	if (token->length == 0)
		return DISKSTATS_NUMBER_INVALID;
	for (size_t i = 0; i < token->length; i++)
		if (token->start[i] < '0' || token->start[i] > '9')
			return DISKSTATS_NUMBER_INVALID;
	for (size_t i = 0; i < token->length; i++) {
		unsigned digit = (unsigned)(token->start[i] - '0');

		if (result > (maximum - digit) / 10)
			return DISKSTATS_NUMBER_OVERFLOW;
		result = result * 10 + digit;
	}
	*value = result;
	return DISKSTATS_NUMBER_OK;
}

/* Describes a bad number for a warning about what. */
static void
diskstats_number_problem(char *message, size_t size,
    enum diskstats_number_result result, const char *what, unsigned position,
    const char *limit)
{
	if (result == DISKSTATS_NUMBER_OVERFLOW)
		snprintf(
		    message, size, "%s %u exceeds %s", what, position, limit);
	else
		snprintf(message, size, "%s %u is not a decimal number", what,
		    position);
}

/* diskstats_next_token for a token the line must have: false, with "no
 * `what`" in message, when it is missing. */
static bool
diskstats_expect_token(const char **cursor, const char *end,
    struct diskstats_token *token, const char *what, char *message,
    size_t message_size)
{
	if (diskstats_next_token(cursor, end, token))
		return true;
	snprintf(message, message_size, "no %s", what);
	return false;
}

/* Reads the `what` ("major", "minor") number of a device into *value.
 * Returns 0, or -1 with the reason in message. */
static int
diskstats_device_number(const struct diskstats_token *token, const char *what,
    uint32_t *value, char *message, size_t message_size)
{
	uint64_t number;
	enum diskstats_number_result result =
	    diskstats_number(token, UINT32_MAX, &number);

	if (result != DISKSTATS_NUMBER_OK) {
		snprintf(message, message_size, "%s number %s", what,
		    result == DISKSTATS_NUMBER_OVERFLOW
		        ? "exceeds 2^32-1"
		        : "is not a decimal number");
		return -1;
	}
	*value = (uint32_t)number;
	return 0;
}

/* Whether a count of fields is one some kernel prints. */
static bool
diskstats_field_count_known(size_t count)
{
	return count == DISKSTATS_OLD_PARTITION_FIELDS || count == 11 ||
	       count == 15 || count >= DISKSTATS_FIELD_COUNT;
}

/*
 * Parses one line (without its newline) into *entry. Returns 1 for an
 * entry, 0 for a blank line, -1 for a malformed one with the reason in
 * message.
 */
static int
diskstats_parse_line(const char *start, const char *end,
    struct diskstats_entry *entry, char *message, size_t message_size)
{
	struct diskstats_token token;
	struct diskstats_token fields[DISKSTATS_FIELD_COUNT];
	enum diskstats_number_result result;
	const char *cursor = start;
	uint64_t number;
	size_t count = 0;

	memset(entry, 0, sizeof *entry);
	if (!diskstats_next_token(&cursor, end, &token))
		return 0;

	if (diskstats_device_number(
	        &token, "major", &entry->major, message, message_size) != 0 ||
	    !diskstats_expect_token(
	        &cursor, end, &token, "minor number", message, message_size) ||
	    diskstats_device_number(
	        &token, "minor", &entry->minor, message, message_size) != 0 ||
	    !diskstats_expect_token(
	        &cursor, end, &token, "device name", message, message_size))
		return -1;
	if (token.length >= DISKSTATS_NAME_SIZE) {
		snprintf(message, message_size,
		    "device name longer than %u bytes",
		    DISKSTATS_NAME_SIZE - 1);
		return -1;
	}
	/* Blanks cannot occur: they end the token. */
	for (size_t i = 0; i < token.length; i++) {
		unsigned char c = (unsigned char)token.start[i];

		if (c < 0x21 || c > 0x7e) {
			snprintf(message, message_size,
			    "device name has non-printing byte 0x%02x", c);
			return -1;
		}
	}
	memcpy(entry->name, token.start, token.length);
	entry->name[token.length] = '\0';

	/* Fields past the 17th (a later kernel's) are counted, not read. */
	while (diskstats_next_token(&cursor, end, &token)) {
		if (count < DISKSTATS_FIELD_COUNT)
			fields[count] = token;
		count++;
	}
	if (count == 0) {
		snprintf(message, message_size, "no statistics after the name");
		return -1;
	}
	if (!diskstats_field_count_known(count)) {
		snprintf(message, message_size,
		    "%zu statistics, expected 4, 11, 15 or at least 17", count);
		return -1;
	}
	if (count > DISKSTATS_FIELD_COUNT)
		count = DISKSTATS_FIELD_COUNT;

	for (size_t i = 0; i < count; i++) {
		enum diskstats_field field = (enum diskstats_field)i;

		if (count == DISKSTATS_OLD_PARTITION_FIELDS)
			field = diskstats_old_partition_layout[i];
		/* The %u fields are read as 64 bits too: should a kernel
		 * widen them, nothing here needs to change. */
		result = diskstats_number(&fields[i], UINT64_MAX, &number);
		if (result != DISKSTATS_NUMBER_OK) {
			diskstats_number_problem(message, message_size, result,
			    "statistic", (unsigned)i + 1, "2^64-1");
			return -1;
		}
		entry->fields[field] = number;
		entry->present |= DISKSTATS_BIT(field);
	}
	return 1;
}

/* Makes room for one more entry. Returns 0, or -1 with errno ENOMEM. */
static int
diskstats_reserve(struct diskstats_list *list)
{
	return PROVIDER_RESERVE(list->items, list->capacity, list->count + 1);
}

int
diskstats_parse(const char *text, size_t length, struct diskstats_list *list,
    diskstats_warn_fn warn, void *opaque)
{
	const char *cursor = text;
	const char *end = text + length;
	unsigned line_number = 0;

	list->count = 0;
	while (cursor < end) {
		const char *newline =
		    memchr(cursor, '\n', (size_t)(end - cursor));
		const char *line_end = newline != NULL ? newline : end;
		char message[DISKSTATS_MESSAGE_SIZE];
		int result;

		line_number++;
		/* Parsed in place: the slot is only kept when it is good. */
		if (diskstats_reserve(list) != 0)
			return -1;
		message[0] = '\0';
		result = diskstats_parse_line(cursor, line_end,
		    &list->items[list->count], message, sizeof message);
		if (result > 0) {
			list->items[list->count].line_number = line_number;
			list->count++;
		} else if (result < 0 && warn != NULL) {
			warn(opaque, line_number, message);
		}
		cursor = newline != NULL ? newline + 1 : end;
	}
	return 0;
}

void
diskstats_list_free(struct diskstats_list *list)
{
	free(list->items);
	list->items = NULL;
	list->count = 0;
	list->capacity = 0;
}
