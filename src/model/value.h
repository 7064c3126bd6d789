/*
 * Datum values: encoding into snapshot slots, decoding, the SNMP column a
 * datum maps to, datum description checks, and the DCI4 text presentation.
 *
 * A value lives in a slot of exactly datum->size bytes inside a snapshot
 * block. The slot holds the DCI4 representation: integers in the byte order
 * of their format (SIF_BIGENDIAN), booleans as 4-byte little-endian 0/1
 * (SBF_INVERTED is applied when reading, never when storing), IP addresses
 * in network order, times as 8 bytes little-endian, strings NUL-terminated
 * and zero-padded. ST_DERIVED (computed by the host) is 8 bytes
 * little-endian, unsigned when the format has SIF_UNSIGNED, else signed and
 * within Integer32 (ratios in hundredths); it renders in decimal, ratios
 * with two decimals ("12.34"). Byte order is always taken from the format,
 * never from the host.
 *
 * Every function taking a datum first checks it with
 * dci_value_check_datum(): encoders refuse an invalid datum with the
 * check's reason, the decoder yields DCI_KIND_NONE and the renderer "".
 * No function reads or writes outside the datum->size bytes of its slot.
 * Nothing here allocates, keeps state or depends on Net-SNMP.
 */
#ifndef DCISTAT_VALUE_H
#define DCISTAT_VALUE_H

#include <dcistat/provider.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The raw bits of a slot of `width` bytes (1..8) in the given byte order,
 * and their store: the widths of integers and times are one machine word
 * loaded or stored, swapped when the order is not the host's (every value
 * of a refresh and a commit goes through them, hence inline); other widths
 * go byte by byte. */
#if !defined(__BYTE_ORDER__) || !defined(__ORDER_BIG_ENDIAN__)
#error "the compiler must say the byte order (__BYTE_ORDER__)"
#endif
static inline bool
dci_value_order_swapped(bool big_endian)
{
	return big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

static inline uint64_t
dci_value_load_unsigned(
    const unsigned char *slot, size_t width, bool big_endian)
{
	bool swap = dci_value_order_swapped(big_endian);
	uint64_t value = 0, word64;
	uint32_t word32;
	uint16_t word16;

	switch (width) {
	case 8:
		memcpy(&word64, slot, sizeof(word64));
		return swap ? __builtin_bswap64(word64) : word64;
	case 4:
		memcpy(&word32, slot, sizeof(word32));
		return swap ? __builtin_bswap32(word32) : word32;
	case 2:
		memcpy(&word16, slot, sizeof(word16));
		return swap ? __builtin_bswap16(word16) : word16;
	case 1:
		return slot[0];
	default:
		break;
	}
	for (size_t index = 0; index < width; index++) {
		size_t position = big_endian ? index : width - 1 - index;
		value = (value << 8) | slot[position];
	}
	return value;
}

static inline void
dci_value_store_unsigned(
    unsigned char *slot, size_t width, bool big_endian, uint64_t value)
{
	bool swap = dci_value_order_swapped(big_endian);
	uint64_t word64;
	uint32_t word32;
	uint16_t word16;

	switch (width) {
	case 8:
		word64 = swap ? __builtin_bswap64(value) : value;
		memcpy(slot, &word64, sizeof(word64));
		return;
	case 4:
		word32 =
		    swap ? __builtin_bswap32((uint32_t)value) : (uint32_t)value;
		memcpy(slot, &word32, sizeof(word32));
		return;
	case 2:
		word16 =
		    swap ? __builtin_bswap16((uint16_t)value) : (uint16_t)value;
		memcpy(slot, &word16, sizeof(word16));
		return;
	default:
		break;
	}
	for (size_t index = 0; index < width; index++) {
		size_t position = big_endian ? width - 1 - index : index;
		slot[position] = (unsigned char)(value & 0xff);
		value >>= 8;
	}
}

/* Which dciStatTable value column a datum's values go to (ARCHITECTURE.md
 * "Types"). */
enum dci_value_kind {
	DCI_KIND_NONE = 0,  /* ST_UNUSED (or an invalid datum): never served */
	DCI_KIND_COUNTER64, /* ST_INTEGER64 unsigned (counter or gauge) */
	DCI_KIND_COUNTER32, /* ST_INTEGER8/16/32 unsigned, counter semantics */
	DCI_KIND_GAUGE32,   /* ST_INTEGER8/16/32 unsigned otherwise */
	DCI_KIND_INTEGER32, /* ST_INTEGER8/16/32 signed */
	DCI_KIND_STRING, /* ST_STRING, and ST_ADDRESS SAF_ECONET (2 octets) */
	DCI_KIND_IPADDRESS,  /* ST_ADDRESS SAF_IP */
	DCI_KIND_MACADDRESS, /* ST_ADDRESS SAF_ETHERNET */
	DCI_KIND_TIMETICKS,  /* ST_TIME (relative, monotonic, or absolute as a
	                        timestamp) */
	DCI_KIND_TRUTHVALUE, /* ST_BOOLEAN */
	DCI_KIND_TEXT_ONLY,  /* ST_INTEGER64 signed: only dciStatText */
	DCI_KIND_HUNDREDTHS, /* ST_DERIVED ratio (average, percent, variance):
	                        Integer32 in hundredths (DciHundredths); other
	                        ST_DERIVED are COUNTER64 when unsigned, else
	                        INTEGER32 */
	DCI_KIND_COUNT
};

/*
 * A decoded slot. Fields a type does not use are zero (bytes NULL).
 *   ST_BOOLEAN   truth (SBF_INVERTED applied); number = truth ? 1 : 0.
 *   ST_STRING    bytes/length: the string without its NUL, in the slot.
 *   ST_INTEGERn  number = the raw bits as an unsigned of the datum's width
 *                (for an unsigned datum, its value); signed datums also get
 *                signed_number, sign-extended.
 *   ST_ADDRESS   bytes/length: the address as stored (6, 4 or 2 octets);
 *                SAF_IP also number = the address in host order
 *                (0xC0A80001 for 192.168.0.1).
 *   ST_TIME      STF_MONOTONIC: number = centiseconds as stored.
 *                STF_5BYTE: number = centiseconds since 1900 (low 5 bytes).
 *                STF_CTIME: signed_number = seconds since 1970; when
 *                relative also number = seconds * 100 (0 when negative,
 *                UINT64_MAX when it overflows).
 *                For STP_RELATIVE the number is a duration in centiseconds;
 *                the agent turns absolute times into TimeStamps itself.
 */
struct dci_value {
	enum dci_value_kind kind;
	uint64_t number;
	int64_t signed_number;
	bool truth;
	const unsigned char *bytes; /* points into the slot */
	size_t length;
};

/* "ST_INTEGER32" etc., or "ST_UNKNOWN" for a value outside the enum. */
const char *dci_value_type_name(enum dci_type type);

/* The unit's name as dciDatumUnits shows it ("bytes", "" for none). */
const char *dci_value_unit_name(enum dci_unit unit);

/* Writes a number of hundredths with two decimals ("-0.52"), as
 * snprintf does (the length it needed). */
int dci_value_format_hundredths(
    char *text, size_t text_size, bool negative, uint64_t magnitude);

/* The names dcistat(1) shows for a datum's format ("unsigned big-endian",
 * "inverted", "ip", "monotonic") and presentation ("hexadecimal", "yes/no",
 * "relative"), read by its type as DCI4 defines them; "unknown" for a value
 * the type does not define, "" for ST_UNUSED. */
const char *dci_value_format_name(const struct dci_datum_info *datum);
const char *dci_value_presentation_name(const struct dci_datum_info *datum);

/* "counter", "gauge", "discrete"; "static", "variable", "volatile";
 * "unknown" for a value outside those. */
const char *dci_value_semantics_name(enum dci_semantics semantics);
const char *dci_value_volatility_name(uint32_t volatility);

/* "COUNTER64" etc., or "UNKNOWN". For messages and tests. */
const char *dci_value_kind_name(enum dci_value_kind kind);

/* The slot size of a type/format, or 0 for ST_STRING (provider-chosen) and
 * unknown types. Integers 1/2/4/8, boolean 4, address ethernet 6 / IP 4 /
 * econet 2 (0 for an unknown address format), time 8 for every format,
 * unused 0. */
uint32_t dci_value_natural_size(enum dci_type type, uint32_t format);

/* An integer datum whose format says unsigned. */
bool dci_value_is_unsigned(const struct dci_datum_info *datum);
/* A derivation whose value is a ratio in hundredths (average, percent,
 * variance); the others are integers. */
bool dci_value_is_derived_ratio(enum dci_unit unit);

/* Checks a datum description: known type; format and presentation valid for
 * the type (integer format: a bit set of SIF_UNSIGNED|SIF_BIGENDIAN only;
 * boolean format 0..1, presentation 0..4; string 0/0; address format 0..2,
 * presentation 0; time format 0..2, presentation 0..1; integer presentation
 * 0..2); size == natural size (the caller substitutes the natural size for
 * 0 before calling) except strings: 2..DCI_STRING_MAX; semantics 1..3;
 * counter semantics only for integer types; volatility 0..2. ST_UNUSED
 * reserves an id: only its size (0) is checked, as DCI4 says its other
 * fields are not valid.
 * Returns 0, or -1 with a one-line reason in `why` (truncated to why_size;
 * why may be NULL), e.g. "format 0x4 is not valid for ST_INTEGER32". */
int dci_value_check_datum(
    const struct dci_datum_info *datum, char *why, size_t why_size);

/* The column of a datum; DCI_KIND_NONE for ST_UNUSED and invalid datums. */
enum dci_value_kind dci_value_kind(const struct dci_datum_info *datum);

/* Encode a number into slot (datum->size bytes). Returns 0, or -1 with `why`
 * and the slot untouched when the value does not fit: an unsigned value
 * beyond a signed datum's maximum, a value wider than the size, a negative
 * value into an unsigned datum. Booleans take 0/1, stored as 4-byte
 * little-endian 0/1 and NOT inverted (the provider passes the stored value).
 * ST_ADDRESS SAF_IP takes the address as a host-order uint32 (0xC0A80001 =
 * 192.168.0.1) and stores it in network order. ST_TIME stores 8 bytes
 * little-endian: STF_5BYTE up to 2^40 - 1, STF_CTIME signed, STF_MONOTONIC
 * unsigned. Strings, ethernet and econet addresses are refused here. */
typedef int dci_value_unsigned_encoder(const struct dci_datum_info *datum,
    uint64_t value, unsigned char *slot, char *why, size_t why_size);
typedef int dci_value_signed_encoder(const struct dci_datum_info *datum,
    int64_t value, unsigned char *slot, char *why, size_t why_size);
dci_value_unsigned_encoder dci_value_encode_unsigned;
dci_value_signed_encoder dci_value_encode_signed;

/* How dci_value_encode_unsigned_trusted and _signed_trusted store a number
 * in a datum that takes one (a boolean, an integer, a time, an IPv4
 * address; not ST_DERIVED, which only the host sets): a value from
 * `minimum` (0: no negative value) to `maximum` is stored as the low
 * `width` bytes of its two's complement in the given byte order, and
 * anything else is refused. Returns false, `layout` all zero (width 0), for
 * a datum that takes no number. For a caller that stores many
 * values of one datum without the encoders' dispatch per value; a refusal
 * is still the encoders' to word. */
struct dci_value_number_layout {
	size_t width;
	bool big_endian;
	uint64_t maximum;
	int64_t minimum;
};
bool dci_value_number_layout(
    const struct dci_datum_info *datum, struct dci_value_number_layout *layout);

/* How dci_value_encode_bytes_trusted stores bytes in a datum that takes
 * them: a string (`string`) takes at most size - 1 bytes without a NUL,
 * stored zero padded to `size`; any other type exactly `size` bytes, stored
 * as given. Returns false, `layout` all zero, for a datum that takes none
 * (a boolean, ST_DERIVED, ST_UNUSED). As the number layout: for a caller
 * that stores many values without the encoder's dispatch per value. */
struct dci_value_bytes_layout {
	uint32_t size;
	bool string;
};
bool dci_value_bytes_layout(
    const struct dci_datum_info *datum, struct dci_value_bytes_layout *layout);

/* Stores `length` bytes in `slot` as `layout` says; false, the slot
 * untouched, for bytes it does not take, which
 * dci_value_encode_bytes_trusted refuses with the reason. */
static inline bool
dci_value_store_bytes(const struct dci_value_bytes_layout *layout,
    const void *bytes, size_t length, unsigned char *slot)
{
	if (layout->size == 0 || (length > 0 && bytes == NULL))
		return false;
	if (!layout->string) {
		if (length != layout->size)
			return false;
		memcpy(slot, bytes, length);
		return true;
	}
	if (length >= layout->size ||
	    (length > 0 && memchr(bytes, '\0', length) != NULL))
		return false;
	if (length > 0)
		memcpy(slot, bytes, length);
	/* NUL and zero padding, so equal strings give equal slots. */
	memset(slot + length, 0, layout->size - length);
	return true;
}

/* Encode raw bytes: strings (length <= size - 1; the slot gets the bytes,
 * then NUL, the rest zeroed; an embedded NUL is refused), addresses
 * (length == size), integers and times (length == size, already in the
 * datum's byte order). Booleans are refused (they take a number). bytes may
 * be NULL when length is 0. Returns 0, or -1 with `why`, slot untouched. */
typedef int dci_value_bytes_encoder(const struct dci_datum_info *datum,
    const void *bytes, size_t length, unsigned char *slot, char *why,
    size_t why_size);
dci_value_bytes_encoder dci_value_encode_bytes;

/* Decode a slot of datum->size bytes (see struct dci_value). */
typedef void dci_value_decoder(const struct dci_datum_info *datum,
    const unsigned char *slot, struct dci_value *value);
dci_value_decoder dci_value_decode;

/* The same as dci_value_encode_unsigned, _signed, _bytes and
 * dci_value_decode for a datum description dci_value_check_datum already
 * accepted (every datum of a registered class, and its provided-width
 * copy): no second check of the description, for the refresh and commit
 * paths, which handle every value. Anything else must use the checked
 * functions. */
dci_value_unsigned_encoder dci_value_encode_unsigned_trusted;
dci_value_signed_encoder dci_value_encode_signed_trusted;
dci_value_bytes_encoder dci_value_encode_bytes_trusted;
dci_value_decoder dci_value_decode_trusted;
/* Of those, only .number and .signed_number, for an integer or derived
 * datum (every counter is one): the commit path compares every counter
 * with its previous value. */
void dci_value_number_trusted(const struct dci_datum_info *datum,
    const unsigned char *slot, uint64_t *number, int64_t *signed_number);

/* The DCI4 presentation of a slot, NUL-terminated, truncated to text_size
 * (text may be NULL when text_size is 0); returns the length it needed, as
 * snprintf does. Rules:
 *  boolean: on/off, yes/no, true/false, always/never, 1/0 (after
 *    SBF_INVERTED)
 *  string: as stored
 *  integers: SIP_DECIMAL signed/unsigned decimal; SIP_HEXADECIMAL "0x" +
 *    lowercase hex without leading zeros ("0x0" for 0) of the value as an
 *    unsigned of its width (-1 in ST_INTEGER16 is "0xffff"); SIP_DOTTED
 *    each octet in decimal separated by '.', most significant first
 *    ("192.168.0.1" for 0xC0A80001 in a 4-byte integer)
 *  address: ethernet "00:1b:21:3a:4f:5e"; IP "192.168.0.1"; econet
 *    "net.station", e.g. "0.254"; an all-zero ethernet or IP address is
 *    "none" (DCI4: 0 means no address)
 *  time: 0 is "none" (absolute or relative). STP_RELATIVE: a duration
 *    "2.50 seconds" (monotonic/5-byte centiseconds; ctime seconds, so 90 is
 *    "90.00 seconds"). STP_ABSOLUTE STF_CTIME and STF_5BYTE: UTC
 *    "2026-11-21 22:17:53", 5-byte with ".25" appended only when its
 *    centiseconds are nonzero. STP_ABSOLUTE STF_MONOTONIC:
 *    "12.34 seconds after boot".
 *  unused and invalid datums: "" */
size_t dci_value_render(const struct dci_datum_info *datum,
    const unsigned char *slot, char *text, size_t text_size);

#endif
