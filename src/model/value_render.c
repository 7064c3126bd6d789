/*
 * Datum values rendered as text, by their DCI4 presentation (value.h:
 * dci_value_render and the names of units).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include "model/value.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Seconds from 1900-01-01 to 1970-01-01 (70 years, 17 of them leap). */
#define SECONDS_1900_TO_1970 INT64_C(2208988800)

/* Longest text of any non-string value (a 64-bit dotted integer is 31
 * characters, a far-future ctime date about 30). */
#define RENDER_SCRATCH_SIZE 64u

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* Boolean words by presentation: [presentation][truth]. */
static const char *const boolean_words[][2] = {
    [DCI_SBP_ON_OFF] = {"off", "on"},
    [DCI_SBP_YES_NO] = {"no", "yes"},
    [DCI_SBP_TRUE_FALSE] = {"false", "true"},
    [DCI_SBP_ALWAYS_NEVER] = {"never", "always"},
    [DCI_SBP_ONE_ZERO] = {"0", "1"},
};

/* --- Rendering -------------------------------------------------------- */

/* Copies `length` bytes of `source` into text, truncated and terminated as
 * snprintf would; returns length. */
static size_t
copy_text(char *text, size_t text_size, const void *source, size_t length)
{
	size_t copied;

	if (text == NULL || text_size == 0)
		return length;
	copied = length < text_size - 1 ? length : text_size - 1;
	if (copied > 0)
		memcpy(text, source, copied);
	text[copied] = '\0';
	return length;
}

/* Appends the decimal octets of the `width` low bytes of `number`, most
 * significant first, separated by '.'. */
static int
render_dotted(char *scratch, size_t scratch_size, uint64_t number, size_t width)
{
	size_t used = 0;
	size_t index;

	scratch[0] = '\0';
	for (index = width; index > 0; index--) {
		unsigned octet =
		    (unsigned)((number >> ((index - 1) * 8)) & 0xff);
		int written = snprintf(scratch + used, scratch_size - used,
		    index == width ? "%u" : ".%u", octet);
		if (written < 0 || (size_t)written >= scratch_size - used)
			return -1;
		used += (size_t)written;
	}
	return (int)used;
}

/* UTC "YYYY-MM-DD hh:mm:ss" of `seconds` since 1970, with ".cc" when
 * `centiseconds` is nonzero. A time gmtime_r cannot represent is shown as
 * its seconds rather than as a wrong date. */
static int
render_date(
    char *scratch, size_t scratch_size, int64_t seconds, unsigned centiseconds)
{
	struct tm broken_down;
	time_t moment = (time_t)seconds;
	size_t used;
	int written;

	if ((int64_t)moment != seconds ||
	    gmtime_r(&moment, &broken_down) == NULL)
		return snprintf(scratch, scratch_size,
		    "%" PRId64 " seconds since 1970", seconds);
	written =
	    snprintf(scratch, scratch_size, "%04lld-%02d-%02d %02d:%02d:%02d",
	        (long long)broken_down.tm_year + 1900, broken_down.tm_mon + 1,
	        broken_down.tm_mday, broken_down.tm_hour, broken_down.tm_min,
	        broken_down.tm_sec);
	if (centiseconds == 0 || written < 0 || (size_t)written >= scratch_size)
		return written;
	used = (size_t)written;
	written = snprintf(
	    scratch + used, scratch_size - used, ".%02u", centiseconds);
	return written < 0 ? written : (int)used + written;
}

/* Centiseconds as "s.cc", followed by `suffix`. */
static int
render_centiseconds(
    char *scratch, size_t scratch_size, uint64_t number, const char *suffix)
{
	return snprintf(scratch, scratch_size, "%" PRIu64 ".%02u%s",
	    number / 100, (unsigned)(number % 100), suffix);
}

static int
render_time(const struct dci_datum_info *datum, const struct dci_value *value,
    char *scratch, size_t scratch_size)
{
	bool relative = datum->presentation == DCI_STP_RELATIVE;
	int64_t seconds;

	if (datum->format == DCI_STF_CTIME) {
		if (value->signed_number == 0)
			return snprintf(scratch, scratch_size, "none");
		if (relative)
			return snprintf(scratch, scratch_size,
			    "%" PRId64 ".00 seconds", value->signed_number);
		return render_date(
		    scratch, scratch_size, value->signed_number, 0);
	}
	if (value->number == 0)
		return snprintf(scratch, scratch_size, "none");
	if (relative)
		return render_centiseconds(
		    scratch, scratch_size, value->number, " seconds");
	if (datum->format == DCI_STF_MONOTONIC)
		return render_centiseconds(scratch, scratch_size, value->number,
		    " seconds after boot");
	/* 5-byte: at most 2^40 centiseconds, so no overflow here. */
	seconds = (int64_t)(value->number / 100) - SECONDS_1900_TO_1970;
	return render_date(
	    scratch, scratch_size, seconds, (unsigned)(value->number % 100));
}

static int
render_address(const struct dci_datum_info *datum,
    const struct dci_value *value, char *scratch, size_t scratch_size)
{
	const unsigned char *octets = value->bytes;
	size_t index;
	bool all_zero = true;

	for (index = 0; index < value->length; index++)
		if (octets[index] != 0)
			all_zero = false;
	switch (datum->format) {
	case DCI_SAF_ETHERNET:
		if (all_zero)
			return snprintf(scratch, scratch_size, "none");
		return snprintf(scratch, scratch_size,
		    "%02x:%02x:%02x:%02x:%02x:%02x", octets[0], octets[1],
		    octets[2], octets[3], octets[4], octets[5]);
	case DCI_SAF_IP:
		if (all_zero)
			return snprintf(scratch, scratch_size, "none");
		return render_dotted(scratch, scratch_size, value->number, 4);
	default:
		/* Econet has no "no address" value in DCI4. */
		return snprintf(
		    scratch, scratch_size, "%u.%u", octets[0], octets[1]);
	}
}

int
dci_value_format_hundredths(
    char *text, size_t text_size, bool negative, uint64_t magnitude)
{
	return snprintf(text, text_size, "%s%" PRIu64 ".%02" PRIu64,
	    negative ? "-" : "", magnitude / 100, magnitude % 100);
}

/* The magnitude of a signed number as unsigned, so that INT64_MIN has
 * one. */
static uint64_t
magnitude_of(int64_t number)
{
	return number < 0 ? 0 - (uint64_t)number : (uint64_t)number;
}

static int
render_integer(const struct dci_datum_info *datum,
    const struct dci_value *value, char *scratch, size_t scratch_size)
{
	switch (datum->presentation) {
	case DCI_SIP_DECIMAL:
		if (datum->unit == DCI_UNIT_HUNDREDTHS)
			return dci_value_is_unsigned(datum)
			           ? dci_value_format_hundredths(scratch,
			                 scratch_size, false, value->number)
			           : dci_value_format_hundredths(scratch,
			                 scratch_size, value->signed_number < 0,
			                 magnitude_of(value->signed_number));
		if (dci_value_is_unsigned(datum))
			return snprintf(
			    scratch, scratch_size, "%" PRIu64, value->number);
		return snprintf(
		    scratch, scratch_size, "%" PRId64, value->signed_number);
	case DCI_SIP_DOTTED:
		return render_dotted(
		    scratch, scratch_size, value->number, datum->size);
	default:
		/* number holds the raw bits of the width: two's complement
		 * for negative signed values. */
		return snprintf(
		    scratch, scratch_size, "0x%" PRIx64, value->number);
	}
}

/* Integers in decimal; ratios as hundredths with two decimals. */
static int
render_derived(const struct dci_datum_info *datum,
    const struct dci_value *value, char *scratch, size_t scratch_size)
{
	if (dci_value_is_unsigned(datum))
		return snprintf(
		    scratch, scratch_size, "%" PRIu64, value->number);
	if (!dci_value_is_derived_ratio(datum->unit))
		return snprintf(
		    scratch, scratch_size, "%" PRId64, value->signed_number);
	return dci_value_format_hundredths(scratch, scratch_size,
	    value->signed_number < 0, magnitude_of(value->signed_number));
}

size_t
dci_value_render(const struct dci_datum_info *datum, const unsigned char *slot,
    char *text, size_t text_size)
{
	struct dci_value value;
	char scratch[RENDER_SCRATCH_SIZE];
	const char *word;
	int written;

	dci_value_decode(datum, slot, &value);
	switch (value.kind == DCI_KIND_NONE ? DCI_ST_UNUSED : datum->type) {
	case DCI_ST_BOOLEAN:
		word = boolean_words[datum->presentation][value.truth ? 1 : 0];
		return copy_text(text, text_size, word, strlen(word));
	case DCI_ST_STRING:
		return copy_text(text, text_size, value.bytes, value.length);
	case DCI_ST_INTEGER8:
	case DCI_ST_INTEGER16:
	case DCI_ST_INTEGER32:
	case DCI_ST_INTEGER64:
		written =
		    render_integer(datum, &value, scratch, sizeof(scratch));
		break;
	case DCI_ST_ADDRESS:
		written =
		    render_address(datum, &value, scratch, sizeof(scratch));
		break;
	case DCI_ST_TIME:
		written = render_time(datum, &value, scratch, sizeof(scratch));
		break;
	case DCI_ST_DERIVED:
		written =
		    render_derived(datum, &value, scratch, sizeof(scratch));
		break;
	default:
		written = 0;
		scratch[0] = '\0';
		break;
	}
	/* The scratch is sized for every rendering; a failure (never
	 * expected) shows as empty text rather than garbage. */
	if (written < 0 || (size_t)written >= sizeof(scratch))
		written = 0;
	return copy_text(text, text_size, scratch, (size_t)written);
}

const char *
dci_value_unit_name(enum dci_unit unit)
{
	switch (unit) {
	case DCI_UNIT_NONE:
		return "";
	case DCI_UNIT_BYTES:
		return "bytes";
	case DCI_UNIT_KBYTES:
		return "kilobytes";
	case DCI_UNIT_MBYTES:
		return "megabytes";
	case DCI_UNIT_GBYTES:
		return "gigabytes";
	case DCI_UNIT_TBYTES:
		return "terabytes";
	case DCI_UNIT_SECONDS:
		return "seconds";
	case DCI_UNIT_MILLISECONDS:
		return "milliseconds";
	case DCI_UNIT_MICROSECONDS:
		return "microseconds";
	case DCI_UNIT_NANOSECONDS:
		return "nanoseconds";
	case DCI_UNIT_PICOSECONDS:
		return "picoseconds";
	case DCI_UNIT_TICKS:
		return "clock ticks";
	case DCI_UNIT_COUNT:
		return "count";
	case DCI_UNIT_EVENTS:
		return "events";
	case DCI_UNIT_PAGES:
		return "pages";
	case DCI_UNIT_BLOCKS:
		return "blocks";
	case DCI_UNIT_CHARACTERS:
		return "characters";
	case DCI_UNIT_PACKETS:
		return "packets";
	case DCI_UNIT_MESSAGES:
		return "messages";
	case DCI_UNIT_TRANSACTIONS:
		return "transactions";
	case DCI_UNIT_READS:
		return "reads";
	case DCI_UNIT_WRITES:
		return "writes";
	case DCI_UNIT_CONNECTIONS:
		return "connections";
	case DCI_UNIT_RETRIES:
		return "retries";
	case DCI_UNIT_PROCESSORS:
		return "processors";
	case DCI_UNIT_DISKS:
		return "disks";
	case DCI_UNIT_INTERRUPTS:
		return "interrupts";
	case DCI_UNIT_CENTISECONDS:
		return "centiseconds";
	case DCI_UNIT_MEGABITS_PER_SECOND:
		return "megabits per second";
	case DCI_UNIT_OCTETS:
		return "octets";
	case DCI_UNIT_ERRORS:
		return "errors";
	case DCI_UNIT_HUNDREDTHS:
		return "hundredths";
	case DCI_UNIT_DERIVED_SUM2:
		return "sum2";
	case DCI_UNIT_DERIVED_SUM3:
		return "sum3";
	case DCI_UNIT_DERIVED_DIFFERENCE:
		return "difference";
	case DCI_UNIT_DERIVED_AVERAGE:
		return "average";
	case DCI_UNIT_DERIVED_PERCENT:
		return "percent";
	case DCI_UNIT_DERIVED_PRODUCT:
		return "product";
	case DCI_UNIT_DERIVED_VARIANCE:
		return "variance";
	}
	return "unknown";
}
