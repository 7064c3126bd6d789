/* Decoding what DCI-STATS-MIB serves, without Net-SNMP (remote_source.h). */
#define _GNU_SOURCE
#include "cli/remote/remote_state.h"

/* --- Pure decoding ------------------------------------------------------ */

/* The `count` sub-identifiers from `*at` on as 32-bit words, `*at` moved
 * past them; false when fewer are left or one is wider. */
static bool
take_words(const uint64_t *subids, size_t length, size_t *at, size_t count,
    uint32_t *words)
{
	if (length - *at < count)
		return false;
	for (size_t i = 0; i < count; i++, (*at)++) {
		if (subids[*at] > UINT32_MAX)
			return false;
		words[i] = (uint32_t)subids[*at];
	}
	return true;
}

bool
cli_remote_decode_index(const uint64_t *subids, size_t length,
    enum cli_remote_shape shape, struct cli_remote_index *index)
{
	size_t at = 0;

	memset(index, 0, sizeof(*index));
	if (length < 1 || subids[0] < 1 || subids[0] > DCI_CLASS_ID_MAX_LEVELS)
		return false;
	index->class_length = (size_t)subids[0];
	at = 1;
	if (!take_words(
	        subids, length, &at, index->class_length, index->class_id))
		return false;
	switch (shape) {
	case CLI_REMOTE_SHAPE_CLASS:
		break;
	case CLI_REMOTE_SHAPE_DATUM:
		if (length - at < 1 || subids[at] > UINT32_MAX)
			return false;
		index->datum = (uint32_t)subids[at++];
		break;
	case CLI_REMOTE_SHAPE_INSTANCE:
		if (length - at < 1 || subids[at] < 1 ||
		    subids[at] > DCI_INSTANCE_ID_MAX_WORDS)
			return false;
		index->instance_words = (size_t)subids[at++];
		if (!take_words(subids, length, &at, index->instance_words,
		        index->instance))
			return false;
		break;
	}
	return at == length;
}

static uint32_t
big_endian_word(const unsigned char *octets)
{
	uint32_t word;

	memcpy(&word, octets, sizeof(word));
	return be32toh(word);
}

bool
cli_remote_decode_levels(const unsigned char *types, size_t types_length,
    const unsigned char *sizes, size_t sizes_length, size_t level_count,
    struct dci_instance_level *levels)
{
	uint64_t total = 0;

	if (level_count < 1 || level_count > DCI_INSTANCE_ID_MAX_WORDS ||
	    types_length != 4 * level_count || sizes_length != 4 * level_count)
		return false;
	for (size_t i = 0; i < level_count; i++) {
		uint32_t size = big_endian_word(sizes + 4 * i);
		if (size < 4 || size % 4 != 0)
			return false;
		total += size;
		levels[i].itype =
		    (enum dci_instance_type)big_endian_word(types + 4 * i);
		levels[i].size = size;
	}
	return total <= 4 * DCI_INSTANCE_ID_MAX_WORDS;
}

bool
cli_remote_unit_of_name(const char *name, enum dci_unit *unit)
{
	/* Units are dense runs from 0 (plain units), 0x10000 (time units)
	 * and 0x20000 (derivations); 256 values of each run cover them. */
	static const unsigned runs[] = {0, 0x10000, 0x20000};

	for (size_t r = 0; r < sizeof(runs) / sizeof(*runs); r++) {
		for (unsigned u = runs[r]; u < runs[r] + 256; u++) {
			if (strcmp(dci_value_unit_name((enum dci_unit)u),
			        name) == 0) {
				*unit = (enum dci_unit)u;
				return true;
			}
		}
	}
	return false;
}

bool
cli_remote_parse_text_integer(
    const char *text, uint32_t presentation, int64_t *number)
{
	uint64_t value = 0;
	const char *at = text;
	char *end;

	if (presentation == DCI_SIP_DECIMAL) {
		long long parsed;
		if (!(*at == '-' || (*at >= '0' && *at <= '9')))
			return false;
		errno = 0;
		parsed = strtoll(at, &end, 10);
		if (errno != 0 || *end != '\0')
			return false;
		*number = (int64_t)parsed;
		return true;
	}
	if (presentation == DCI_SIP_HEXADECIMAL) {
		size_t digits = 0;
		if (strncmp(at, "0x", 2) != 0)
			return false;
		for (at += 2; *at != '\0'; at++, digits++) {
			unsigned digit;
			if (*at >= '0' && *at <= '9')
				digit = (unsigned)(*at - '0');
			else if (*at >= 'a' && *at <= 'f')
				digit = (unsigned)(*at - 'a' + 10);
			else
				return false;
			if (digits >= 16)
				return false;
			value = value << 4 | digit;
		}
		if (digits == 0)
			return false;
		*number = (int64_t)value;
		return true;
	}
	if (presentation == DCI_SIP_DOTTED) {
		/* Eight octets, most significant first. */
		for (int octet = 0; octet < 8; octet++) {
			unsigned long part;
			if (*at < '0' || *at > '9')
				return false;
			part = strtoul(at, &end, 10);
			if (part > 255 || end - at > 3)
				return false;
			value = value << 8 | part;
			at = end;
			if (octet < 7 && *at++ != '.')
				return false;
		}
		if (*at != '\0')
			return false;
		*number = (int64_t)value;
		return true;
	}
	return false;
}

/* "YYYY-MM-DD hh:mm:ss" in UTC into seconds since 1970; `end` gets what
 * follows. */
static bool
parse_date(const char *text, int64_t *seconds, const char **end)
{
	struct tm broken_down = {0};
	int year, month, day, hour, minute, second, used = 0;
	time_t moment;

	if (sscanf(text, "%4d-%2d-%2d %2d:%2d:%2d%n", &year, &month, &day,
	        &hour, &minute, &second, &used) != 6 ||
	    used != 19 || month < 1 || month > 12 || day < 1 || day > 31 ||
	    hour > 23 || minute > 59 || second > 60 || year < 0 || hour < 0 ||
	    minute < 0 || second < 0)
		return false;
	broken_down.tm_year = year - 1900;
	broken_down.tm_mon = month - 1;
	broken_down.tm_mday = day;
	broken_down.tm_hour = hour;
	broken_down.tm_min = minute;
	broken_down.tm_sec = second;
	moment = timegm(&broken_down);
	*seconds = (int64_t)moment;
	*end = text + used;
	return true;
}

/* Digits, a dot and two digits: centiseconds. */
static bool
parse_centiseconds(const char *text, uint64_t *centiseconds, const char **end)
{
	uint64_t whole = 0;
	const char *at = text;

	if (*at < '0' || *at > '9')
		return false;
	for (; *at >= '0' && *at <= '9'; at++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return false;
		whole = whole * 10 + (uint64_t)(*at - '0');
	}
	if (at[0] != '.' || at[1] < '0' || at[1] > '9' || at[2] < '0' ||
	    at[2] > '9' || whole > UINT64_MAX / 100 - 1)
		return false;
	*centiseconds = whole * 100 + (uint64_t)(at[1] - '0') * 10 +
	                (uint64_t)(at[2] - '0');
	*end = at + 3;
	return true;
}

#define SECONDS_1900_TO_1970 2208988800LL

bool
cli_remote_parse_time_text(
    const char *text, const struct dci_datum_info *info, int64_t *value)
{
	const char *end;
	int64_t seconds;
	uint64_t centiseconds;

	if (strcmp(text, "none") == 0) {
		*value = 0;
		return true;
	}
	switch (info->format) {
	case DCI_STF_MONOTONIC:
		if (!parse_centiseconds(text, &centiseconds, &end) ||
		    strcmp(end, " seconds after boot") != 0 ||
		    centiseconds > INT64_MAX)
			return false;
		*value = (int64_t)centiseconds;
		return true;
	case DCI_STF_CTIME:
		if (!parse_date(text, &seconds, &end) || *end != '\0')
			return false;
		*value = seconds;
		return true;
	case DCI_STF_5BYTE:
		if (!parse_date(text, &seconds, &end))
			return false;
		centiseconds = 0;
		if (*end == '.') {
			if (end[1] < '0' || end[1] > '9' || end[2] < '0' ||
			    end[2] > '9' || end[3] != '\0')
				return false;
			centiseconds = (uint64_t)(end[1] - '0') * 10 +
			               (uint64_t)(end[2] - '0');
		} else if (*end != '\0')
			return false;
		if (seconds < -SECONDS_1900_TO_1970 ||
		    seconds > (int64_t)(UINT64_C(1) << 40) / 100)
			return false;
		*value = (seconds + SECONDS_1900_TO_1970) * 100 +
		         (int64_t)centiseconds;
		return *value < (int64_t)(UINT64_C(1) << 40);
	}
	return false;
}

enum cli_remote_row
cli_remote_row_find(const void *rows, size_t count, const void *key,
    cli_remote_row_compare compare, size_t *cursor)
{
	size_t low = 0, high = count;
	int order;

	if (count == 0)
		return CLI_REMOTE_ROW_NEW;
	/* The first column of a walk: every row after the last. */
	order = compare(rows, count - 1, key);
	if (order < 0)
		return CLI_REMOTE_ROW_NEW;
	if (order == 0) {
		*cursor = count - 1;
		return CLI_REMOTE_ROW_KNOWN;
	}
	/* A later column: the row after the one found last, or that one
	 * again (several rows of another table under one class). */
	for (size_t probe = *cursor; probe < *cursor + 2 && probe < count;
	     probe++) {
		if (compare(rows, probe, key) == 0) {
			*cursor = probe;
			return CLI_REMOTE_ROW_KNOWN;
		}
	}
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		order = compare(rows, middle, key);
		if (order == 0) {
			*cursor = middle;
			return CLI_REMOTE_ROW_KNOWN;
		}
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return CLI_REMOTE_ROW_MISSED;
}

/* Room for one more of `*count` items of `item_size` bytes in `*items`
 * (`*capacity`, doubled when full): a walk appends row by row, and
 * growing by one each time would copy the table at every row. */
bool
cli_remote_room_for_one(
    void **items, size_t *capacity, size_t count, size_t item_size)
{
	size_t grown_capacity;
	void *grown;

	if (count < *capacity)
		return true;
	grown_capacity = *capacity == 0 ? 16 : *capacity * 2;
	grown = realloc(*items, grown_capacity * item_size);
	if (grown == NULL)
		return false;
	*items = grown;
	*capacity = grown_capacity;
	return true;
}
