/* The forms of the configuration's scalar values (config_values.h). */
#include "config/config_values.h"

#include <stdlib.h>
#include <string.h>

#include <dcistat/provider.h>

const char *const config_derivation_names[7] = {
    "sum2", "sum3", "difference", "average", "percent", "product", "variance"};

bool
config_is_absolute_path(const char *text)
{
	return text[0] == '/';
}

static bool
config_is_digit(char character)
{
	return character >= '0' && character <= '9';
}

bool
config_is_module_name(const char *text)
{
	if (*text == '\0')
		return false;
	for (const char *cursor = text; *cursor != '\0'; cursor++) {
		char character = *cursor;

		if (!(character >= 'A' && character <= 'Z') &&
		    !(character >= 'a' && character <= 'z') &&
		    !config_is_digit(character) && character != '_' &&
		    character != '-')
			return false;
	}
	return true;
}

/* Letters, digits, '.', '_' and '-', not first, at most 32 characters
 * (with a trailing '$' for Samba's machine accounts left out: no daemon
 * runs as one). */
bool
config_is_user_name(const char *text)
{
	size_t length = strlen(text);

	if (length == 0 || length > 32 || text[0] == '-')
		return false;
	return strspn(text,
	           "abcdefghijklmnopqrstuvwxyz"
	           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == length;
}

bool
config_is_log_target(const char *text)
{
	return strcmp(text, "stderr") == 0 || strcmp(text, "syslog") == 0 ||
	       config_is_absolute_path(text);
}

bool
config_parse_whole_number(
    const char **cursor, unsigned long limit, unsigned long *value)
{
	const char *position = *cursor;
	unsigned long number = 0;

	if (!config_is_digit(*position))
		return false;
	for (; config_is_digit(*position); position++)
		if (number <= limit)
			number = number * 10 + (unsigned long)(*position - '0');
	*value = number <= limit ? number : limit + 1;
	*cursor = position;
	return true;
}

/* A whole number from minimum to maximum and nothing after it. */
static bool
config_parse_range(const char *text, unsigned long minimum,
    unsigned long maximum, unsigned long *value)
{
	return config_parse_whole_number(&text, maximum, value) &&
	       *text == '\0' && *value >= minimum && *value <= maximum;
}

/* 1 to `max_count` dot-separated words, each 0..`max_word`, from *cursor
 * up to the first character that is neither a digit nor a dot followed
 * by one, which *cursor is left at. */
static bool
parse_dotted_words(const char **cursor, unsigned long max_word,
    size_t max_count, uint32_t *words, size_t *count)
{
	size_t parsed = 0;

	for (;;) {
		unsigned long word;

		if (parsed == max_count ||
		    !config_parse_whole_number(cursor, max_word, &word) ||
		    word > max_word)
			return false;
		words[parsed++] = (uint32_t)word;
		if (**cursor != '.')
			break;
		(*cursor)++;
	}
	*count = parsed;
	return true;
}

bool
config_parse_class_id(const char *text, uint32_t *levels, size_t *length)
{
	return parse_dotted_words(&text, 0xfffffffeul, DCI_CLASS_ID_MAX_LEVELS,
	           levels, length) &&
	       *text == '\0';
}

bool
config_parse_access_key(const char *text, uint32_t *levels, size_t *length,
    uint32_t *instance, size_t *words)
{
	if (!parse_dotted_words(
	        &text, 0xfffffffeul, DCI_CLASS_ID_MAX_LEVELS, levels, length))
		return false;
	*words = 0;
	if (*text == '\0')
		return true;
	text++;
	return text[-1] == '/' &&
	       parse_dotted_words(&text, 0xfffffffful,
	           DCI_INSTANCE_ID_MAX_WORDS, instance, words) &&
	       *text == '\0';
}

bool
config_parse_boolean(const char *text, void *field)
{
	if (strcmp(text, "true") == 0)
		*(bool *)field = true;
	else if (strcmp(text, "false") == 0)
		*(bool *)field = false;
	else
		return false;
	return true;
}

/* A whole number in [minimum, maximum] into the unsigned at `field`. */
static bool
parse_unsigned_in(
    const char *text, unsigned long minimum, unsigned long maximum, void *field)
{
	unsigned long value;

	if (!config_parse_range(text, minimum, maximum, &value))
		return false;
	*(unsigned *)field = (unsigned)value;
	return true;
}

bool
config_parse_ping_interval(const char *text, void *field)
{
	return parse_unsigned_in(text, CONFIG_PING_INTERVAL_MIN_SECONDS,
	    CONFIG_PING_INTERVAL_MAX_SECONDS, field);
}

bool
config_parse_busy_poll(const char *text, void *field)
{
	return parse_unsigned_in(
	    text, 0, CONFIG_BUSY_POLL_MAX_MICROSECONDS, field);
}

bool
config_parse_dci_work(const char *text, void *field)
{
	return parse_unsigned_in(
	    text, 1, CONFIG_DCI_WORK_MAX_MILLISECONDS, field);
}

bool
config_parse_refresh(const char *text, void *field)
{
	unsigned long seconds;
	unsigned long fraction = 0;
	unsigned long total;
	unsigned digits = 0;
	bool round_up = false;
	bool inexact = false;

	if (!config_parse_whole_number(
	        &text, CONFIG_REFRESH_MAX_MILLISECONDS / 1000u, &seconds))
		return false;
	if (*text == '.') {
		text++;
		if (!config_is_digit(*text))
			return false;
		for (; config_is_digit(*text); text++, digits++) {
			unsigned digit = (unsigned)(*text - '0');

			if (digits < 3)
				fraction = fraction * 10 + digit;
			else if (digit != 0)
				inexact = true;
			if (digits == 3 && digit >= 5)
				round_up = true;
		}
		for (; digits < 3; digits++)
			fraction *= 10;
	}
	if (*text != '\0')
		return false;
	total = seconds * 1000 + fraction;
	if (total < CONFIG_REFRESH_MIN_MILLISECONDS ||
	    total > CONFIG_REFRESH_MAX_MILLISECONDS ||
	    (total == CONFIG_REFRESH_MAX_MILLISECONDS && inexact))
		return false;
	*(unsigned *)field = (unsigned)(total + (round_up ? 1 : 0));
	return true;
}

bool
config_parse_stale_periods(const char *text, void *field)
{
	return parse_unsigned_in(
	    text, CONFIG_STALE_PERIODS_MIN, CONFIG_STALE_PERIODS_MAX, field);
}

bool
config_parse_socket_mode(const char *text, void *field)
{
	size_t length = strlen(text);
	unsigned long mode;

	if (length > 4 || strspn(text, "01234567") != length)
		return false;
	mode = strtoul(text, NULL, 8);
	if (mode > 0777)
		return false;
	*(unsigned *)field = (unsigned)mode;
	return true;
}

bool
config_parse_derived_id(const char *text, void *field)
{
	unsigned long id;

	if (!config_parse_range(text, 1, 255, &id))
		return false;
	*(uint32_t *)field = (uint32_t)id;
	return true;
}

bool
config_parse_derivation(const char *text, void *field)
{
	for (size_t i = 0; i < 7; i++) {
		if (strcmp(text, config_derivation_names[i]) == 0) {
			*(enum dci_unit *)field =
			    (enum dci_unit)(DCI_UNIT_DERIVED_SUM2 + i);
			return true;
		}
	}
	return false;
}
