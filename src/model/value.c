/*
 * Datum values: see value.h for the slot layout and the contracts.
 *
 * Integers are loaded and stored in the byte order the datum's format
 * names, whatever the host's (value.h's dci_value_load_unsigned and
 * dci_value_store_unsigned).
 */
#define _POSIX_C_SOURCE 200809L

#include "model/value.h"

#include "base/log.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* STF_5BYTE uses the low 5 bytes of its 8; the top 3 are ignored. */
#define FIVE_BYTE_MASK UINT64_C(0xffffffffff)

#define BOOLEAN_SIZE 4u
#define TIME_SIZE 8u

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* Each type's name, and the formats and presentations it defines: a
 * format is valid when, its flag bits cleared, it is at most format_max; a
 * presentation when it is at most presentation_max (ST_UNUSED defines
 * none). */
static const struct type_codes {
	const char *name;
	uint32_t format_flags;
	uint32_t format_max;
	uint32_t presentation_max;
} type_codes[] = {
    [DCI_ST_UNUSED] = {"ST_UNUSED", 0, 0, 0},
    [DCI_ST_BOOLEAN] = {"ST_BOOLEAN", 0, DCI_SBF_INVERTED, DCI_SBP_ONE_ZERO},
    [DCI_ST_STRING] = {"ST_STRING", 0, DCI_SSF_ZEROTERM, DCI_SSP_LITERAL},
    [DCI_ST_INTEGER8] = {"ST_INTEGER8", DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN, 0,
        DCI_SIP_DOTTED},
    [DCI_ST_INTEGER16] = {"ST_INTEGER16", DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN,
        0, DCI_SIP_DOTTED},
    [DCI_ST_INTEGER32] = {"ST_INTEGER32", DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN,
        0, DCI_SIP_DOTTED},
    [DCI_ST_INTEGER64] = {"ST_INTEGER64", DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN,
        0, DCI_SIP_DOTTED},
    [DCI_ST_ADDRESS] = {"ST_ADDRESS", 0, DCI_SAF_ECONET, DCI_SAP_NORMAL},
    [DCI_ST_TIME] = {"ST_TIME", 0, DCI_STF_MONOTONIC, DCI_STP_RELATIVE},
    /* Set by the registry: signed or unsigned, little-endian. */
    [DCI_ST_DERIVED] = {"ST_DERIVED", DCI_SIF_UNSIGNED, 0, 0},
};

static const char *const kind_names[] = {
    [DCI_KIND_NONE] = "NONE",
    [DCI_KIND_COUNTER64] = "COUNTER64",
    [DCI_KIND_COUNTER32] = "COUNTER32",
    [DCI_KIND_GAUGE32] = "GAUGE32",
    [DCI_KIND_INTEGER32] = "INTEGER32",
    [DCI_KIND_STRING] = "STRING",
    [DCI_KIND_IPADDRESS] = "IPADDRESS",
    [DCI_KIND_MACADDRESS] = "MACADDRESS",
    [DCI_KIND_TIMETICKS] = "TIMETICKS",
    [DCI_KIND_TRUTHVALUE] = "TRUTHVALUE",
    [DCI_KIND_TEXT_ONLY] = "TEXT_ONLY",
    [DCI_KIND_HUNDREDTHS] = "HUNDREDTHS",
};

const char *
dci_value_type_name(enum dci_type type)
{
	if ((unsigned)type < COUNT_OF(type_codes))
		return type_codes[type].name;
	return "ST_UNKNOWN";
}

const char *
dci_value_format_name(const struct dci_datum_info *datum)
{
	static const char *const integer_formats[] = {
	    "signed little-endian",
	    "unsigned little-endian",
	    "signed big-endian",
	    "unsigned big-endian",
	};

	switch (datum->type) {
	case DCI_ST_BOOLEAN:
		return datum->format == DCI_SBF_INVERTED ? "inverted"
		                                         : "normal";
	case DCI_ST_STRING:
		return "zero-terminated";
	case DCI_ST_INTEGER8:
	case DCI_ST_INTEGER16:
	case DCI_ST_INTEGER32:
	case DCI_ST_INTEGER64:
		return datum->format < COUNT_OF(integer_formats)
		           ? integer_formats[datum->format]
		           : "unknown";
	case DCI_ST_DERIVED:
		return (datum->format & DCI_SIF_UNSIGNED) ? "unsigned"
		                                          : "signed";
	case DCI_ST_ADDRESS:
		switch (datum->format) {
		case DCI_SAF_ETHERNET:
			return "ethernet";
		case DCI_SAF_IP:
			return "ip";
		case DCI_SAF_ECONET:
			return "econet";
		}
		return "unknown";
	case DCI_ST_TIME:
		switch (datum->format) {
		case DCI_STF_5BYTE:
			return "5-byte";
		case DCI_STF_CTIME:
			return "ctime";
		case DCI_STF_MONOTONIC:
			return "monotonic";
		}
		return "unknown";
	case DCI_ST_UNUSED:
		return "";
	}
	return "unknown";
}

const char *
dci_value_presentation_name(const struct dci_datum_info *datum)
{
	switch (datum->type) {
	case DCI_ST_BOOLEAN:
		switch (datum->presentation) {
		case DCI_SBP_ON_OFF:
			return "on/off";
		case DCI_SBP_YES_NO:
			return "yes/no";
		case DCI_SBP_TRUE_FALSE:
			return "true/false";
		case DCI_SBP_ALWAYS_NEVER:
			return "always/never";
		case DCI_SBP_ONE_ZERO:
			return "1/0";
		}
		return "unknown";
	case DCI_ST_STRING:
		return "literal";
	case DCI_ST_INTEGER8:
	case DCI_ST_INTEGER16:
	case DCI_ST_INTEGER32:
	case DCI_ST_INTEGER64:
		switch (datum->presentation) {
		case DCI_SIP_HEXADECIMAL:
			return "hexadecimal";
		case DCI_SIP_DECIMAL:
			return "decimal";
		case DCI_SIP_DOTTED:
			return "dotted";
		}
		return "unknown";
	case DCI_ST_DERIVED:
		return dci_value_is_derived_ratio(datum->unit) ? "hundredths"
		                                               : "decimal";
	case DCI_ST_ADDRESS:
		return "normal";
	case DCI_ST_TIME:
		return datum->presentation == DCI_STP_RELATIVE ? "relative"
		                                               : "absolute";
	case DCI_ST_UNUSED:
		return "";
	}
	return "unknown";
}

const char *
dci_value_semantics_name(enum dci_semantics semantics)
{
	switch (semantics) {
	case DCI_SEMANTICS_COUNTER:
		return "counter";
	case DCI_SEMANTICS_GAUGE:
		return "gauge";
	case DCI_SEMANTICS_DISCRETE:
		return "discrete";
	}
	return "unknown";
}

const char *
dci_value_volatility_name(uint32_t volatility)
{
	switch (volatility) {
	case DCI_SV_STATIC:
		return "static";
	case DCI_SV_VARIABLE:
		return "variable";
	case DCI_SV_VOLATILE:
		return "volatile";
	}
	return "unknown";
}

const char *
dci_value_kind_name(enum dci_value_kind kind)
{
	if ((unsigned)kind < COUNT_OF(kind_names))
		return kind_names[kind];
	return "UNKNOWN";
}

static bool
is_integer_type(enum dci_type type)
{
	return type == DCI_ST_INTEGER8 || type == DCI_ST_INTEGER16 ||
	       type == DCI_ST_INTEGER32 || type == DCI_ST_INTEGER64;
}

/* A derived datum whose value is a ratio in hundredths (the others are
 * integers). */
bool
dci_value_is_derived_ratio(enum dci_unit unit)
{
	return unit == DCI_UNIT_DERIVED_AVERAGE ||
	       unit == DCI_UNIT_DERIVED_PERCENT ||
	       unit == DCI_UNIT_DERIVED_VARIANCE;
}

static bool
is_derivation(enum dci_unit unit)
{
	return unit >= DCI_UNIT_DERIVED_SUM2 &&
	       unit <= DCI_UNIT_DERIVED_VARIANCE;
}

bool
dci_value_is_unsigned(const struct dci_datum_info *datum)
{
	return (datum->format & DCI_SIF_UNSIGNED) != 0;
}

static bool
is_big_endian_integer(const struct dci_datum_info *datum)
{
	return (datum->format & DCI_SIF_BIGENDIAN) != 0;
}

/* Format words for refusal messages, by address and time format. */
static const char *const address_qualifiers[] = {
    [DCI_SAF_ETHERNET] = " ethernet",
    [DCI_SAF_IP] = " IP",
    [DCI_SAF_ECONET] = " econet",
};

static const char *const time_qualifiers[] = {
    [DCI_STF_5BYTE] = " 5-byte",
    [DCI_STF_CTIME] = " ctime",
    [DCI_STF_MONOTONIC] = " monotonic",
};

/* The words after the type name in refusal messages, e.g. " unsigned" in
 * "ST_INTEGER8 unsigned". The datum has been checked. */
static const char *
type_qualifier(const struct dci_datum_info *datum)
{
	switch (datum->type) {
	case DCI_ST_INTEGER8:
	case DCI_ST_INTEGER16:
	case DCI_ST_INTEGER32:
	case DCI_ST_INTEGER64:
	case DCI_ST_DERIVED:
		return dci_value_is_unsigned(datum) ? " unsigned" : " signed";
	case DCI_ST_ADDRESS:
		if (datum->format < COUNT_OF(address_qualifiers))
			return address_qualifiers[datum->format];
		return "";
	case DCI_ST_TIME:
		if (datum->format < COUNT_OF(time_qualifiers))
			return time_qualifiers[datum->format];
		return "";
	default:
		return "";
	}
}

uint32_t
dci_value_natural_size(enum dci_type type, uint32_t format)
{
	switch (type) {
	case DCI_ST_UNUSED:
		return 0;
	case DCI_ST_BOOLEAN:
		return BOOLEAN_SIZE;
	case DCI_ST_STRING:
		return 0;
	case DCI_ST_INTEGER8:
		return 1;
	case DCI_ST_INTEGER16:
		return 2;
	case DCI_ST_INTEGER32:
		return 4;
	case DCI_ST_INTEGER64:
		return 8;
	case DCI_ST_ADDRESS:
		switch (format) {
		case DCI_SAF_ETHERNET:
			return 6;
		case DCI_SAF_IP:
			return 4;
		case DCI_SAF_ECONET:
			return 2;
		default:
			return 0;
		}
	case DCI_ST_TIME:
	case DCI_ST_DERIVED:
		return TIME_SIZE;
	}
	return 0;
}

/* Whether `format` and `presentation` are defined for `type` (a known,
 * used type). */
static bool
format_valid(enum dci_type type, uint32_t format)
{
	return (format & ~type_codes[type].format_flags) <=
	       type_codes[type].format_max;
}

static bool
presentation_valid(enum dci_type type, uint32_t presentation)
{
	return presentation <= type_codes[type].presentation_max;
}

int
dci_value_check_datum(
    const struct dci_datum_info *datum, char *why, size_t why_size)
{
	const char *name;
	uint32_t natural;

	if (datum == NULL) {
		log_reason(why, why_size, "no datum description");
		return -1;
	}
	if ((unsigned)datum->type >= COUNT_OF(type_codes)) {
		log_reason(why, why_size, "type %u is not a DCI4 type",
		    (unsigned)datum->type);
		return -1;
	}
	name = dci_value_type_name(datum->type);
	if (datum->type == DCI_ST_UNUSED) {
		if (datum->size != 0) {
			log_reason(why, why_size,
			    "size %" PRIu32 " is not valid for ST_UNUSED "
			    "(must be 0)",
			    datum->size);
			return -1;
		}
		return 0;
	}
	if (!format_valid(datum->type, datum->format)) {
		log_reason(why, why_size,
		    "format 0x%" PRIx32 " is not valid for %s", datum->format,
		    name);
		return -1;
	}
	if (!presentation_valid(datum->type, datum->presentation)) {
		log_reason(why, why_size,
		    "presentation %" PRIu32 " is not valid for %s",
		    datum->presentation, name);
		return -1;
	}
	if (datum->type == DCI_ST_DERIVED && !is_derivation(datum->unit)) {
		log_reason(why, why_size,
		    "unit %u is not a derivation (DCI_UNIT_DERIVED_*) for "
		    "ST_DERIVED",
		    (unsigned)datum->unit);
		return -1;
	}
	/* Hundredths are a gauge's fraction served as an integer column: not
	 * a signed 64-bit datum (text only over SNMP, where "0.52" would be
	 * no integer), not a counter (whose rate dcistat computes from the
	 * raw number). */
	if (datum->unit == DCI_UNIT_HUNDREDTHS &&
	    (!is_integer_type(datum->type) ||
	        datum->presentation != DCI_SIP_DECIMAL ||
	        datum->semantics != DCI_SEMANTICS_GAUGE ||
	        (datum->type == DCI_ST_INTEGER64 &&
	            (datum->format & DCI_SIF_UNSIGNED) == 0))) {
		log_reason(why, why_size,
		    "unit DCI_UNIT_HUNDREDTHS is for integer gauges in decimal "
		    "presentation, not signed 64-bit, not %s",
		    name);
		return -1;
	}
	if (datum->type == DCI_ST_STRING) {
		if (datum->size < 2 || datum->size > DCI_STRING_MAX) {
			log_reason(why, why_size,
			    "size %" PRIu32 " is not valid for ST_STRING "
			    "(must be 2..%u)",
			    datum->size, DCI_STRING_MAX);
			return -1;
		}
	} else {
		natural = dci_value_natural_size(datum->type, datum->format);
		if (datum->size != natural) {
			log_reason(why, why_size,
			    "size %" PRIu32 " is not valid for %s (must be "
			    "%" PRIu32 ")",
			    datum->size, name, natural);
			return -1;
		}
	}
	if (datum->semantics < DCI_SEMANTICS_COUNTER ||
	    datum->semantics > DCI_SEMANTICS_DISCRETE) {
		log_reason(why, why_size,
		    "semantics %d is not valid (must be 1..3)",
		    (int)datum->semantics);
		return -1;
	}
	if (datum->semantics == DCI_SEMANTICS_COUNTER &&
	    !is_integer_type(datum->type) &&
	    !(datum->type == DCI_ST_DERIVED &&
	        !dci_value_is_derived_ratio(datum->unit))) {
		log_reason(why, why_size,
		    "counter semantics is not valid for %s", name);
		return -1;
	}
	if (datum->volatility > DCI_SV_VOLATILE) {
		log_reason(why, why_size,
		    "volatility %" PRIu32 " is not valid (must be 0..2)",
		    datum->volatility);
		return -1;
	}
	return 0;
}

/* The column of a datum dci_value_check_datum accepted. */
static enum dci_value_kind
kind_of_valid(const struct dci_datum_info *datum)
{
	switch (datum->type) {
	case DCI_ST_UNUSED:
		return DCI_KIND_NONE;
	case DCI_ST_BOOLEAN:
		return DCI_KIND_TRUTHVALUE;
	case DCI_ST_STRING:
		return DCI_KIND_STRING;
	case DCI_ST_INTEGER8:
	case DCI_ST_INTEGER16:
	case DCI_ST_INTEGER32:
		if (!dci_value_is_unsigned(datum))
			return DCI_KIND_INTEGER32;
		if (datum->semantics == DCI_SEMANTICS_COUNTER)
			return DCI_KIND_COUNTER32;
		return DCI_KIND_GAUGE32;
	case DCI_ST_INTEGER64:
		/* SNMP has no signed 64-bit type; a 64-bit gauge shares the
		 * Counter64 column, as CounterBasedGauge64 does. */
		if (dci_value_is_unsigned(datum))
			return DCI_KIND_COUNTER64;
		return DCI_KIND_TEXT_ONLY;
	case DCI_ST_ADDRESS:
		switch (datum->format) {
		case DCI_SAF_IP:
			return DCI_KIND_IPADDRESS;
		case DCI_SAF_ETHERNET:
			return DCI_KIND_MACADDRESS;
		default:
			return DCI_KIND_STRING;
		}
	case DCI_ST_TIME:
		return DCI_KIND_TIMETICKS;
	case DCI_ST_DERIVED:
		if (dci_value_is_derived_ratio(datum->unit))
			return DCI_KIND_HUNDREDTHS;
		return dci_value_is_unsigned(datum) ? DCI_KIND_COUNTER64
		                                    : DCI_KIND_INTEGER32;
	}
	return DCI_KIND_NONE;
}

enum dci_value_kind
dci_value_kind(const struct dci_datum_info *datum)
{
	if (dci_value_check_datum(datum, NULL, 0) != 0)
		return DCI_KIND_NONE;
	return kind_of_valid(datum);
}

/* --- Byte order ------------------------------------------------------- */

/* All ones in the low `width` bytes (width 1..8). */
static uint64_t
width_mask(size_t width)
{
	return width >= 8 ? UINT64_MAX : (UINT64_C(1) << (width * 8)) - 1;
}

/* The raw low `width` bytes of `raw` read as two's complement. Computed
 * without converting an out-of-range unsigned to a signed type. */
static int64_t
sign_extend(uint64_t raw, size_t width)
{
	uint64_t sign_bit = UINT64_C(1) << (width * 8 - 1);

	raw &= width_mask(width);
	if ((raw & sign_bit) == 0)
		return (int64_t)raw;
	return -(int64_t)(~raw & width_mask(width)) - 1;
}

/* --- Encoding --------------------------------------------------------- */

/* The refusal of a number by a datum that takes none (or, for an address
 * other than IP, bytes). */
static int
refuse_number(const struct dci_datum_info *datum, char *why, size_t why_size)
{
	if (datum->type == DCI_ST_UNUSED)
		log_reason(why, why_size, "ST_UNUSED takes no value");
	else
		log_reason(why, why_size, "%s%s takes bytes, not a number",
		    type_codes[datum->type].name, type_qualifier(datum));
	return -1;
}

int
dci_value_encode_unsigned_trusted(const struct dci_datum_info *datum,
    uint64_t value, unsigned char *slot, char *why, size_t why_size)
{
	uint64_t maximum;
	size_t width = TIME_SIZE;
	bool big_endian = false;

	switch (datum->type) {
	case DCI_ST_BOOLEAN:
		if (value > 1) {
			log_reason(why, why_size,
			    "value %" PRIu64 " is not valid for ST_BOOLEAN "
			    "(must be 0 or 1)",
			    value);
			return -1;
		}
		dci_value_store_unsigned(slot, BOOLEAN_SIZE, false, value);
		return 0;
	case DCI_ST_INTEGER8:
	case DCI_ST_INTEGER16:
	case DCI_ST_INTEGER32:
	case DCI_ST_INTEGER64:
		maximum = width_mask(datum->size);
		if (!dci_value_is_unsigned(datum))
			maximum >>= 1;
		width = datum->size;
		big_endian = is_big_endian_integer(datum);
		break;
	case DCI_ST_ADDRESS:
		if (datum->format != DCI_SAF_IP)
			return refuse_number(datum, why, why_size);
		if (value > UINT32_MAX) {
			log_reason(why, why_size,
			    "value 0x%" PRIx64 " is not an IPv4 address",
			    value);
			return -1;
		}
		dci_value_store_unsigned(slot, 4, true, value);
		return 0;
	case DCI_ST_TIME:
		if (datum->format == DCI_STF_5BYTE)
			maximum = FIVE_BYTE_MASK;
		else if (datum->format == DCI_STF_CTIME)
			maximum = (uint64_t)INT64_MAX;
		else
			maximum = UINT64_MAX;
		break;
	case DCI_ST_DERIVED:
		maximum = dci_value_is_unsigned(datum) ? UINT64_MAX
		                                       : (uint64_t)INT32_MAX;
		break;
	default:
		return refuse_number(datum, why, why_size);
	}
	/* An integer, time or derived datum: a number up to `maximum`. */
	if (value > maximum) {
		log_reason(why, why_size,
		    "value %" PRIu64 " does not fit %s%s "
		    "(maximum %" PRIu64 ")",
		    value, type_codes[datum->type].name, type_qualifier(datum),
		    maximum);
		return -1;
	}
	dci_value_store_unsigned(slot, width, big_endian, value);
	return 0;
}

bool
dci_value_number_layout(
    const struct dci_datum_info *datum, struct dci_value_number_layout *layout)
{
	uint64_t mask;

	*layout = (struct dci_value_number_layout){.width = TIME_SIZE};
	switch (datum->type) {
	case DCI_ST_BOOLEAN:
		layout->width = BOOLEAN_SIZE;
		layout->maximum = 1;
		return true;
	case DCI_ST_INTEGER8:
	case DCI_ST_INTEGER16:
	case DCI_ST_INTEGER32:
	case DCI_ST_INTEGER64:
		mask = width_mask(datum->size);
		layout->width = datum->size;
		layout->big_endian = is_big_endian_integer(datum);
		layout->maximum =
		    dci_value_is_unsigned(datum) ? mask : mask >> 1;
		layout->minimum = dci_value_is_unsigned(datum)
		                      ? 0
		                      : -(int64_t)(mask >> 1) - 1;
		return true;
	case DCI_ST_ADDRESS:
		if (datum->format != DCI_SAF_IP)
			break;
		layout->width = 4;
		layout->big_endian = true;
		layout->maximum = UINT32_MAX;
		return true;
	case DCI_ST_TIME:
		if (datum->format == DCI_STF_5BYTE)
			layout->maximum = FIVE_BYTE_MASK;
		else if (datum->format == DCI_STF_CTIME) {
			layout->maximum = (uint64_t)INT64_MAX;
			layout->minimum = INT64_MIN;
		} else
			layout->maximum = UINT64_MAX;
		return true;
	default:
		break;
	}
	*layout = (struct dci_value_number_layout){0};
	return false;
}

int
dci_value_encode_unsigned(const struct dci_datum_info *datum, uint64_t value,
    unsigned char *slot, char *why, size_t why_size)
{
	if (dci_value_check_datum(datum, why, why_size) != 0)
		return -1;
	return dci_value_encode_unsigned_trusted(
	    datum, value, slot, why, why_size);
}

int
dci_value_encode_signed(const struct dci_datum_info *datum, int64_t value,
    unsigned char *slot, char *why, size_t why_size)
{
	/* A non-negative value follows the unsigned rules exactly. */
	if (value >= 0)
		return dci_value_encode_unsigned(
		    datum, (uint64_t)value, slot, why, why_size);
	if (dci_value_check_datum(datum, why, why_size) != 0)
		return -1;
	return dci_value_encode_signed_trusted(
	    datum, value, slot, why, why_size);
}

int
dci_value_encode_signed_trusted(const struct dci_datum_info *datum,
    int64_t value, unsigned char *slot, char *why, size_t why_size)
{
	int64_t minimum;

	/* A non-negative value follows the unsigned rules exactly. */
	if (value >= 0)
		return dci_value_encode_unsigned_trusted(
		    datum, (uint64_t)value, slot, why, why_size);
	if (is_integer_type(datum->type) && !dci_value_is_unsigned(datum)) {
		minimum = -(int64_t)(width_mask(datum->size) >> 1) - 1;
		if (value < minimum) {
			log_reason(why, why_size,
			    "value %" PRId64 " does not fit %s signed "
			    "(minimum %" PRId64 ")",
			    value, dci_value_type_name(datum->type), minimum);
			return -1;
		}
		dci_value_store_unsigned(slot, datum->size,
		    is_big_endian_integer(datum), (uint64_t)value);
		return 0;
	}
	if (datum->type == DCI_ST_TIME && datum->format == DCI_STF_CTIME) {
		dci_value_store_unsigned(
		    slot, TIME_SIZE, false, (uint64_t)value);
		return 0;
	}
	if (datum->type == DCI_ST_DERIVED && !dci_value_is_unsigned(datum)) {
		if (value < INT32_MIN) {
			log_reason(why, why_size,
			    "value %" PRId64 " does not fit ST_DERIVED signed "
			    "(minimum %" PRId32 ")",
			    value, INT32_MIN);
			return -1;
		}
		dci_value_store_unsigned(
		    slot, TIME_SIZE, false, (uint64_t)value);
		return 0;
	}
	if (datum->type == DCI_ST_STRING || datum->type == DCI_ST_UNUSED ||
	    (datum->type == DCI_ST_ADDRESS && datum->format != DCI_SAF_IP)) {
		/* Same refusal as for any number. */
		return dci_value_encode_unsigned_trusted(
		    datum, 0, slot, why, why_size);
	}
	log_reason(why, why_size, "negative value %" PRId64 " for %s%s", value,
	    dci_value_type_name(datum->type), type_qualifier(datum));
	return -1;
}

int
dci_value_encode_bytes(const struct dci_datum_info *datum, const void *bytes,
    size_t length, unsigned char *slot, char *why, size_t why_size)
{
	if (dci_value_check_datum(datum, why, why_size) != 0)
		return -1;
	return dci_value_encode_bytes_trusted(
	    datum, bytes, length, slot, why, why_size);
}

bool
dci_value_bytes_layout(
    const struct dci_datum_info *datum, struct dci_value_bytes_layout *layout)
{
	*layout = (struct dci_value_bytes_layout){0};
	switch (datum->type) {
	case DCI_ST_UNUSED:
	case DCI_ST_BOOLEAN:
	case DCI_ST_DERIVED:
		return false;
	case DCI_ST_STRING:
		layout->string = true;
		break;
	default:
		break;
	}
	layout->size = datum->size;
	return layout->size > 0;
}

int
dci_value_encode_bytes_trusted(const struct dci_datum_info *datum,
    const void *bytes, size_t length, unsigned char *slot, char *why,
    size_t why_size)
{
	const unsigned char *source = bytes;
	const char *name = type_codes[datum->type].name;
	struct dci_value_bytes_layout layout;
	const unsigned char *nul;

	if (dci_value_bytes_layout(datum, &layout) &&
	    dci_value_store_bytes(&layout, bytes, length, slot))
		return 0;
	/* Refused: say by which rule. */
	if (length > 0 && source == NULL) {
		log_reason(why, why_size, "no bytes given for %s", name);
		return -1;
	}
	switch (datum->type) {
	case DCI_ST_UNUSED:
		log_reason(why, why_size, "ST_UNUSED takes no value");
		return -1;
	case DCI_ST_BOOLEAN:
	case DCI_ST_DERIVED:
		log_reason(why, why_size, "%s takes a number, not bytes", name);
		return -1;
	case DCI_ST_STRING:
		if (length > datum->size - 1) {
			log_reason(why, why_size,
			    "string of %zu bytes is longer than %" PRIu32
			    " (size %" PRIu32 " less its NUL)",
			    length, datum->size - 1, datum->size);
			return -1;
		}
		/* Not too long, so it holds a NUL. */
		nul = memchr(source, '\0', length);
		log_reason(why, why_size, "string has a NUL at byte %zu",
		    (size_t)(nul - source));
		return -1;
	default:
		/* Integers, addresses and times: exactly the slot, raw. */
		log_reason(why, why_size,
		    "%zu bytes given for %s%s, which takes %" PRIu32, length,
		    name, type_qualifier(datum), datum->size);
		return -1;
	}
}

/* --- Decoding --------------------------------------------------------- */

void
dci_value_decode(const struct dci_datum_info *datum, const unsigned char *slot,
    struct dci_value *value)
{
	if (dci_value_check_datum(datum, NULL, 0) != 0) {
		memset(value, 0, sizeof(*value));
		value->bytes = NULL;
		value->kind = DCI_KIND_NONE;
		return;
	}
	dci_value_decode_trusted(datum, slot, value);
}

void
dci_value_decode_trusted(const struct dci_datum_info *datum,
    const unsigned char *slot, struct dci_value *value)
{
	uint64_t raw;
	bool relative;

	memset(value, 0, sizeof(*value));
	value->bytes = NULL; /* a null pointer need not be all-bits-zero */
	value->kind = kind_of_valid(datum);
	if (value->kind == DCI_KIND_NONE)
		return;
	switch (datum->type) {
	case DCI_ST_BOOLEAN:
		/* DCI4: only the least significant bit is defined. */
		value->truth = (slot[0] & 1) != 0;
		if (datum->format == DCI_SBF_INVERTED)
			value->truth = !value->truth;
		value->number = value->truth ? 1 : 0;
		break;
	case DCI_ST_STRING:
		/* Bounded by the slot even if a raw copy lost its NUL. */
		value->bytes = slot;
		value->length = strnlen((const char *)slot, datum->size);
		break;
	case DCI_ST_INTEGER8:
	case DCI_ST_INTEGER16:
	case DCI_ST_INTEGER32:
	case DCI_ST_INTEGER64:
		dci_value_number_trusted(
		    datum, slot, &value->number, &value->signed_number);
		break;
	case DCI_ST_ADDRESS:
		value->bytes = slot;
		value->length = datum->size;
		if (datum->format == DCI_SAF_IP)
			value->number = dci_value_load_unsigned(slot, 4, true);
		break;
	case DCI_ST_TIME:
		raw = dci_value_load_unsigned(slot, TIME_SIZE, false);
		relative = datum->presentation == DCI_STP_RELATIVE;
		switch (datum->format) {
		case DCI_STF_5BYTE:
			value->number = raw & FIVE_BYTE_MASK;
			break;
		case DCI_STF_CTIME:
			value->signed_number = sign_extend(raw, TIME_SIZE);
			if (!relative || value->signed_number <= 0)
				break;
			if ((uint64_t)value->signed_number > UINT64_MAX / 100)
				value->number = UINT64_MAX;
			else
				value->number =
				    (uint64_t)value->signed_number * 100;
			break;
		default:
			value->number = raw;
			break;
		}
		break;
	case DCI_ST_DERIVED:
		dci_value_number_trusted(
		    datum, slot, &value->number, &value->signed_number);
		break;
	default:
		break;
	}
}

void
dci_value_number_trusted(const struct dci_datum_info *datum,
    const unsigned char *slot, uint64_t *number, int64_t *signed_number)
{
	bool derived = datum->type == DCI_ST_DERIVED;
	size_t width = derived ? TIME_SIZE : datum->size;

	*number = dci_value_load_unsigned(
	    slot, width, !derived && is_big_endian_integer(datum));
	*signed_number =
	    dci_value_is_unsigned(datum) ? 0 : sign_extend(*number, width);
}
