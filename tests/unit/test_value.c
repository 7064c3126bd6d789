/*
 * Unit tests for src/model/value.c: encoding, decoding, kind mapping, datum
 * checks and DCI4 rendering. Table-driven; table rows run as loop tests so
 * a failure names its row (_i).
 */
#include "model/value.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_runner.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* Every slot in these tests lives in a buffer this large, pre-filled so
 * that bytes an encoder should not touch are visible. */
#define SLOT_BUFFER_SIZE 64
#define FILL_BYTE 0x5a

/* A checked datum as the host would build it: size 0 becomes the natural
 * size before any value function sees it. */
static struct dci_datum_info
make_datum(enum dci_type type, uint32_t format, uint32_t presentation,
    uint32_t size, enum dci_semantics semantics)
{
	struct dci_datum_info datum = {
	    .id = 1,
	    .label = "test",
	    .type = type,
	    .format = format,
	    .presentation = presentation,
	    .size = size != 0 ? size : dci_value_natural_size(type, format),
	    .volatility = DCI_SV_VARIABLE,
	    .unit = DCI_UNIT_NONE,
	    .semantics = semantics,
	    .description = NULL,
	};
	return datum;
}

static void
fill_slot(unsigned char *slot)
{
	memset(slot, FILL_BYTE, SLOT_BUFFER_SIZE);
}

/* Renders into a generous buffer and checks the returned length too. */
static void
assert_render(const struct dci_datum_info *datum, const unsigned char *slot,
    const char *expected)
{
	char text[128];
	size_t length;

	memset(text, 'X', sizeof(text));
	length = dci_value_render(datum, slot, text, sizeof(text));
	ck_assert_str_eq(text, expected);
	ck_assert_uint_eq(length, strlen(expected));
}

/* --- Natural sizes ---------------------------------------------------- */

static const struct {
	enum dci_type type;
	uint32_t format;
	uint32_t size;
} natural_sizes[] = {
    {DCI_ST_UNUSED, 0, 0},
    {DCI_ST_BOOLEAN, DCI_SBF_NORMAL, 4},
    {DCI_ST_BOOLEAN, DCI_SBF_INVERTED, 4},
    {DCI_ST_STRING, DCI_SSF_ZEROTERM, 0},
    {DCI_ST_INTEGER8, 0, 1},
    {DCI_ST_INTEGER16, DCI_SIF_UNSIGNED, 2},
    {DCI_ST_INTEGER32, DCI_SIF_BIGENDIAN, 4},
    {DCI_ST_INTEGER64, DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN, 8},
    {DCI_ST_ADDRESS, DCI_SAF_ETHERNET, 6},
    {DCI_ST_ADDRESS, DCI_SAF_IP, 4},
    {DCI_ST_ADDRESS, DCI_SAF_ECONET, 2},
    {DCI_ST_ADDRESS, 3, 0},
    {DCI_ST_TIME, DCI_STF_5BYTE, 8},
    {DCI_ST_TIME, DCI_STF_CTIME, 8},
    {DCI_ST_TIME, DCI_STF_MONOTONIC, 8},
    {DCI_ST_DERIVED, 0, 8},
    {DCI_ST_DERIVED, DCI_SIF_UNSIGNED, 8},
    {(enum dci_type)10, 0, 0},
};

START_TEST(test_natural_size)
{
	ck_assert_uint_eq(dci_value_natural_size(
	                      natural_sizes[_i].type, natural_sizes[_i].format),
	    natural_sizes[_i].size);
}
END_TEST

/* --- Integers: every type x format x presentation --------------------- */

enum encoding { ENCODE_UNSIGNED, ENCODE_SIGNED };

static const struct {
	enum dci_type type;
	uint32_t format;
	enum encoding encoding;
	uint64_t unsigned_value;
	int64_t signed_value;
	unsigned char slot[8];   /* expected slot bytes, size of the type */
	uint64_t number;         /* expected decode: raw bits of the width */
	int64_t signed_number;   /* expected decode for signed datums */
	const char *hexadecimal; /* SIP_HEXADECIMAL */
	const char *decimal;     /* SIP_DECIMAL */
	const char *dotted;      /* SIP_DOTTED */
} integer_rows[] = {
    {DCI_ST_INTEGER8, 0, ENCODE_SIGNED, 0, -1, {0xff}, 0xff, -1, "0xff", "-1",
        "255"},
    {DCI_ST_INTEGER8, DCI_SIF_BIGENDIAN, ENCODE_SIGNED, 0, -128, {0x80}, 0x80,
        -128, "0x80", "-128", "128"},
    {DCI_ST_INTEGER8, DCI_SIF_UNSIGNED, ENCODE_UNSIGNED, 200, 0, {0xc8}, 200, 0,
        "0xc8", "200", "200"},
    {DCI_ST_INTEGER8, DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN, ENCODE_UNSIGNED, 0,
        0, {0x00}, 0, 0, "0x0", "0", "0"},
    {DCI_ST_INTEGER8, 0, ENCODE_UNSIGNED, 127, 0, {0x7f}, 127, 127, "0x7f",
        "127", "127"},
    {DCI_ST_INTEGER16, 0, ENCODE_SIGNED, 0, -1, {0xff, 0xff}, 0xffff, -1,
        "0xffff", "-1", "255.255"},
    {DCI_ST_INTEGER16, DCI_SIF_BIGENDIAN, ENCODE_SIGNED, 0, -300, {0xfe, 0xd4},
        0xfed4, -300, "0xfed4", "-300", "254.212"},
    {DCI_ST_INTEGER16, DCI_SIF_UNSIGNED, ENCODE_UNSIGNED, 65535, 0,
        {0xff, 0xff}, 65535, 0, "0xffff", "65535", "255.255"},
    {DCI_ST_INTEGER16, DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN, ENCODE_UNSIGNED,
        0x1234, 0, {0x12, 0x34}, 0x1234, 0, "0x1234", "4660", "18.52"},
    {DCI_ST_INTEGER16, DCI_SIF_UNSIGNED, ENCODE_UNSIGNED, 0x1234, 0,
        {0x34, 0x12}, 0x1234, 0, "0x1234", "4660", "18.52"},
    {DCI_ST_INTEGER32, 0, ENCODE_SIGNED, 0, INT32_MIN, {0x00, 0x00, 0x00, 0x80},
        0x80000000u, INT32_MIN, "0x80000000", "-2147483648", "128.0.0.0"},
    {DCI_ST_INTEGER32, DCI_SIF_BIGENDIAN, ENCODE_SIGNED, 0, 123456,
        {0x00, 0x01, 0xe2, 0x40}, 123456, 123456, "0x1e240", "123456",
        "0.1.226.64"},
    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, ENCODE_UNSIGNED, 0xc0a80001u, 0,
        {0x01, 0x00, 0xa8, 0xc0}, 0xc0a80001u, 0, "0xc0a80001", "3232235521",
        "192.168.0.1"},
    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN, ENCODE_UNSIGNED,
        UINT32_MAX, 0, {0xff, 0xff, 0xff, 0xff}, UINT32_MAX, 0, "0xffffffff",
        "4294967295", "255.255.255.255"},
    {DCI_ST_INTEGER32, 0, ENCODE_SIGNED, 0, -2, {0xfe, 0xff, 0xff, 0xff},
        0xfffffffeu, -2, "0xfffffffe", "-2", "255.255.255.254"},
    {DCI_ST_INTEGER64, 0, ENCODE_SIGNED, 0, INT64_MIN,
        {0, 0, 0, 0, 0, 0, 0, 0x80}, UINT64_C(0x8000000000000000), INT64_MIN,
        "0x8000000000000000", "-9223372036854775808", "128.0.0.0.0.0.0.0"},
    {DCI_ST_INTEGER64, DCI_SIF_BIGENDIAN, ENCODE_SIGNED, 0, -1,
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, UINT64_MAX, -1,
        "0xffffffffffffffff", "-1", "255.255.255.255.255.255.255.255"},
    {DCI_ST_INTEGER64, DCI_SIF_BIGENDIAN, ENCODE_UNSIGNED, (uint64_t)INT64_MAX,
        0, {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
        (uint64_t)INT64_MAX, INT64_MAX, "0x7fffffffffffffff",
        "9223372036854775807", "127.255.255.255.255.255.255.255"},
    {DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, ENCODE_UNSIGNED, UINT64_MAX, 0,
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, UINT64_MAX, 0,
        "0xffffffffffffffff", "18446744073709551615",
        "255.255.255.255.255.255.255.255"},
    {DCI_ST_INTEGER64, DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN, ENCODE_UNSIGNED,
        UINT64_C(0x0102030405060708), 0, {1, 2, 3, 4, 5, 6, 7, 8},
        UINT64_C(0x0102030405060708), 0, "0x102030405060708",
        "72623859790382856", "1.2.3.4.5.6.7.8"},
    {DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, ENCODE_UNSIGNED,
        UINT64_C(0x0102030405060708), 0, {8, 7, 6, 5, 4, 3, 2, 1},
        UINT64_C(0x0102030405060708), 0, "0x102030405060708",
        "72623859790382856", "1.2.3.4.5.6.7.8"},
};

START_TEST(test_integer_presentations)
{
	const uint32_t presentations[] = {
	    DCI_SIP_HEXADECIMAL, DCI_SIP_DECIMAL, DCI_SIP_DOTTED};
	const char *const expected[] = {integer_rows[_i].hexadecimal,
	    integer_rows[_i].decimal, integer_rows[_i].dotted};
	unsigned char slot[SLOT_BUFFER_SIZE];
	unsigned char raw_slot[SLOT_BUFFER_SIZE];
	char why[128] = "";
	struct dci_value value;
	size_t index;

	for (index = 0; index < COUNT_OF(presentations); index++) {
		struct dci_datum_info datum =
		    make_datum(integer_rows[_i].type, integer_rows[_i].format,
		        presentations[index], 0, DCI_SEMANTICS_GAUGE);
		bool is_signed = (datum.format & DCI_SIF_UNSIGNED) == 0;
		int result;

		fill_slot(slot);
		if (integer_rows[_i].encoding == ENCODE_SIGNED)
			result = dci_value_encode_signed(&datum,
			    integer_rows[_i].signed_value, slot, why,
			    sizeof(why));
		else
			result = dci_value_encode_unsigned(&datum,
			    integer_rows[_i].unsigned_value, slot, why,
			    sizeof(why));
		ck_assert_msg(result == 0, "encode refused: %s", why);
		ck_assert_mem_eq(slot, integer_rows[_i].slot, datum.size);
		/* Nothing past the slot is written. */
		ck_assert_uint_eq(slot[datum.size], FILL_BYTE);

		dci_value_decode(&datum, slot, &value);
		ck_assert_uint_eq(value.number, integer_rows[_i].number);
		ck_assert_int_eq(value.signed_number,
		    is_signed ? integer_rows[_i].signed_number : 0);
		ck_assert_ptr_null(value.bytes);
		ck_assert_uint_eq(value.length, 0);
		assert_render(&datum, slot, expected[index]);

		/* The same bytes given raw decode and render the same. */
		fill_slot(raw_slot);
		ck_assert_int_eq(
		    dci_value_encode_bytes(&datum, integer_rows[_i].slot,
		        datum.size, raw_slot, why, sizeof(why)),
		    0);
		ck_assert_mem_eq(raw_slot, slot, datum.size);
		assert_render(&datum, raw_slot, expected[index]);
	}
}
END_TEST

/* DCI_UNIT_HUNDREDTHS: an integer of hundredths rendered as the fraction,
 * signed and unsigned, at the limits of each width. */
START_TEST(test_hundredths)
{
	static const struct {
		enum dci_type type;
		uint32_t format;
		bool is_signed;
		int64_t signed_value;
		uint64_t unsigned_value;
		const char *text;
	} cases[] = {
	    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, false, 0, 52, "0.52"},
	    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, false, 0, 107, "1.07"},
	    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, false, 0, 0, "0.00"},
	    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, false, 0, 4294967295u,
	        "42949672.95"},
	    {DCI_ST_INTEGER16, 0, true, -5, 0, "-0.05"},
	    {DCI_ST_INTEGER32, 0, true, INT32_MIN, 0, "-21474836.48"},
	    {DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, false, 0, UINT64_MAX,
	        "184467440737095516.15"},
	};
	unsigned char slot[SLOT_BUFFER_SIZE];
	char why[128] = "";

	for (size_t i = 0; i < COUNT_OF(cases); i++) {
		struct dci_datum_info datum = make_datum(cases[i].type,
		    cases[i].format, DCI_SIP_DECIMAL, 0, DCI_SEMANTICS_GAUGE);

		datum.unit = DCI_UNIT_HUNDREDTHS;
		ck_assert_str_eq(dci_value_unit_name(datum.unit), "hundredths");
		fill_slot(slot);
		ck_assert_int_eq(
		    cases[i].is_signed
		        ? dci_value_encode_signed(&datum, cases[i].signed_value,
		              slot, why, sizeof(why))
		        : dci_value_encode_unsigned(&datum,
		              cases[i].unsigned_value, slot, why, sizeof(why)),
		    0);
		assert_render(&datum, slot, cases[i].text);
		ck_assert_int_eq(dci_value_check_datum(&datum, NULL, 0), 0);
	}
	/* Not a counter, not signed 64-bit, not hexadecimal, not a string. */
	{
		static const struct {
			enum dci_type type;
			uint32_t format, presentation;
			enum dci_semantics semantics;
		} refused[] = {
		    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, DCI_SIP_DECIMAL,
		        DCI_SEMANTICS_COUNTER},
		    {DCI_ST_INTEGER64, 0, DCI_SIP_DECIMAL, DCI_SEMANTICS_GAUGE},
		    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, DCI_SIP_HEXADECIMAL,
		        DCI_SEMANTICS_GAUGE},
		    {DCI_ST_STRING, DCI_SSF_ZEROTERM, DCI_SSP_LITERAL,
		        DCI_SEMANTICS_DISCRETE},
		};
		char refusal[160] = "";

		for (size_t i = 0; i < COUNT_OF(refused); i++) {
			struct dci_datum_info datum =
			    make_datum(refused[i].type, refused[i].format,
			        refused[i].presentation,
			        refused[i].type == DCI_ST_STRING ? 8 : 0,
			        refused[i].semantics);

			datum.unit = DCI_UNIT_HUNDREDTHS;
			ck_assert_int_eq(dci_value_check_datum(
			                     &datum, refusal, sizeof(refusal)),
			    -1);
			ck_assert_msg(
			    strstr(refusal, "DCI_UNIT_HUNDREDTHS") != NULL,
			    "case %zu: %s", i, refusal);
		}
	}
}
END_TEST

/* Byte order comes from the format, never from the host. */
START_TEST(test_endianness)
{
	const unsigned char bytes[4] = {0x01, 0x02, 0x03, 0x04};
	struct dci_datum_info little = make_datum(DCI_ST_INTEGER32,
	    DCI_SIF_UNSIGNED, DCI_SIP_HEXADECIMAL, 0, DCI_SEMANTICS_GAUGE);
	struct dci_datum_info big =
	    make_datum(DCI_ST_INTEGER32, DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN,
	        DCI_SIP_HEXADECIMAL, 0, DCI_SEMANTICS_GAUGE);
	struct dci_datum_info big_signed = make_datum(DCI_ST_INTEGER16,
	    DCI_SIF_BIGENDIAN, DCI_SIP_DECIMAL, 0, DCI_SEMANTICS_GAUGE);
	struct dci_value value;
	unsigned char slot[SLOT_BUFFER_SIZE];

	dci_value_decode(&little, bytes, &value);
	ck_assert_uint_eq(value.number, 0x04030201u);
	assert_render(&little, bytes, "0x4030201");
	dci_value_decode(&big, bytes, &value);
	ck_assert_uint_eq(value.number, 0x01020304u);
	assert_render(&big, bytes, "0x1020304");

	fill_slot(slot);
	ck_assert_int_eq(
	    dci_value_encode_unsigned(&big, 0x0a0b0c0du, slot, NULL, 0), 0);
	ck_assert_uint_eq(slot[0], 0x0a);
	ck_assert_uint_eq(slot[1], 0x0b);
	ck_assert_uint_eq(slot[2], 0x0c);
	ck_assert_uint_eq(slot[3], 0x0d);
	fill_slot(slot);
	ck_assert_int_eq(
	    dci_value_encode_unsigned(&little, 0x0a0b0c0du, slot, NULL, 0), 0);
	ck_assert_uint_eq(slot[0], 0x0d);
	ck_assert_uint_eq(slot[3], 0x0a);

	/* Big-endian signed: the sign is in the first byte. */
	fill_slot(slot);
	ck_assert_int_eq(
	    dci_value_encode_signed(&big_signed, -2, slot, NULL, 0), 0);
	ck_assert_uint_eq(slot[0], 0xff);
	ck_assert_uint_eq(slot[1], 0xfe);
	dci_value_decode(&big_signed, slot, &value);
	ck_assert_int_eq(value.signed_number, -2);
	assert_render(&big_signed, slot, "-2");
}
END_TEST

/* Limits of each signed width are accepted at both ends. */
static const struct {
	enum dci_type type;
	int64_t minimum;
	int64_t maximum;
} signed_limits[] = {
    {DCI_ST_INTEGER8, INT8_MIN, INT8_MAX},
    {DCI_ST_INTEGER16, INT16_MIN, INT16_MAX},
    {DCI_ST_INTEGER32, INT32_MIN, INT32_MAX},
    {DCI_ST_INTEGER64, INT64_MIN, INT64_MAX},
};

START_TEST(test_signed_limits)
{
	struct dci_datum_info datum = make_datum(
	    signed_limits[_i].type, 0, DCI_SIP_DECIMAL, 0, DCI_SEMANTICS_GAUGE);
	enum dci_value_kind expected_kind = DCI_KIND_INTEGER32;
	int64_t minimum = signed_limits[_i].minimum;
	int64_t maximum = signed_limits[_i].maximum;
	unsigned char slot[SLOT_BUFFER_SIZE];
	struct dci_value value;
	int result;

	if (datum.type == DCI_ST_INTEGER64)
		expected_kind = DCI_KIND_TEXT_ONLY;

	fill_slot(slot);
	result = dci_value_encode_signed(&datum, minimum, slot, NULL, 0);
	ck_assert_int_eq(result, 0);
	dci_value_decode(&datum, slot, &value);
	ck_assert_int_eq(value.signed_number, minimum);
	ck_assert_int_eq(value.kind, expected_kind);

	fill_slot(slot);
	result = dci_value_encode_signed(&datum, maximum, slot, NULL, 0);
	ck_assert_int_eq(result, 0);
	dci_value_decode(&datum, slot, &value);
	ck_assert_int_eq(value.signed_number, maximum);

	/* The same maximum through the unsigned entry point. */
	fill_slot(slot);
	result =
	    dci_value_encode_unsigned(&datum, (uint64_t)maximum, slot, NULL, 0);
	ck_assert_int_eq(result, 0);
	dci_value_decode(&datum, slot, &value);
	ck_assert_int_eq(value.signed_number, maximum);
}
END_TEST

/* --- Booleans: 2 formats x 5 presentations x 2 values ------------------ */

static const char *const boolean_words[5][2] = {
    {"off", "on"},
    {"no", "yes"},
    {"false", "true"},
    {"never", "always"},
    {"0", "1"},
};

START_TEST(test_boolean)
{
	uint32_t format = (uint32_t)(_i / 10);
	uint32_t presentation = (uint32_t)((_i / 2) % 5);
	uint64_t stored = (uint64_t)(_i % 2);
	bool truth = (stored != 0) != (format == DCI_SBF_INVERTED);
	struct dci_datum_info datum = make_datum(
	    DCI_ST_BOOLEAN, format, presentation, 0, DCI_SEMANTICS_DISCRETE);
	const unsigned char expected_slot[4] = {(unsigned char)stored, 0, 0, 0};
	unsigned char slot[SLOT_BUFFER_SIZE];
	struct dci_value value;

	fill_slot(slot);
	ck_assert_int_eq(
	    dci_value_encode_unsigned(&datum, stored, slot, NULL, 0), 0);
	/* Stored as given, 4 bytes little-endian, not inverted. */
	ck_assert_mem_eq(slot, expected_slot, 4);
	ck_assert_uint_eq(slot[4], FILL_BYTE);

	dci_value_decode(&datum, slot, &value);
	ck_assert_int_eq(value.kind, DCI_KIND_TRUTHVALUE);
	ck_assert(value.truth == truth);
	ck_assert_uint_eq(value.number, truth ? 1 : 0);
	assert_render(&datum, slot, boolean_words[presentation][truth]);

	/* The signed entry point accepts 0/1 alike. */
	fill_slot(slot);
	ck_assert_int_eq(
	    dci_value_encode_signed(&datum, (int64_t)stored, slot, NULL, 0), 0);
	ck_assert_mem_eq(slot, expected_slot, 4);
}
END_TEST

/* DCI4: only the least significant bit of a boolean is defined. */
START_TEST(test_boolean_least_significant_bit)
{
	struct dci_datum_info datum = make_datum(DCI_ST_BOOLEAN, DCI_SBF_NORMAL,
	    DCI_SBP_TRUE_FALSE, 0, DCI_SEMANTICS_DISCRETE);
	const unsigned char two[4] = {2, 0, 0, 0};
	const unsigned char three[4] = {3, 0, 0, 0};
	const unsigned char high[4] = {0, 0, 0, 0x80};
	struct dci_value value;

	dci_value_decode(&datum, two, &value);
	ck_assert(!value.truth);
	assert_render(&datum, two, "false");
	dci_value_decode(&datum, three, &value);
	ck_assert(value.truth);
	assert_render(&datum, three, "true");
	dci_value_decode(&datum, high, &value);
	ck_assert(!value.truth);
}
END_TEST

/* --- Strings ----------------------------------------------------------- */

START_TEST(test_string)
{
	struct dci_datum_info datum = make_datum(DCI_ST_STRING,
	    DCI_SSF_ZEROTERM, DCI_SSP_LITERAL, 8, DCI_SEMANTICS_DISCRETE);
	const unsigned char expected_slot[8] = {'e', 't', 'h', '0', 0, 0, 0, 0};
	unsigned char slot[SLOT_BUFFER_SIZE];
	struct dci_value value;
	char why[128] = "";

	fill_slot(slot);
	ck_assert_int_eq(
	    dci_value_encode_bytes(&datum, "eth0", 4, slot, why, sizeof(why)),
	    0);
	ck_assert_mem_eq(slot, expected_slot, 8);
	ck_assert_uint_eq(slot[8], FILL_BYTE);
	dci_value_decode(&datum, slot, &value);
	ck_assert_int_eq(value.kind, DCI_KIND_STRING);
	ck_assert_ptr_eq(value.bytes, slot);
	ck_assert_uint_eq(value.length, 4);
	assert_render(&datum, slot, "eth0");

	/* The longest string: size - 1 bytes, then the NUL. */
	fill_slot(slot);
	ck_assert_int_eq(dci_value_encode_bytes(
	                     &datum, "abcdefg", 7, slot, why, sizeof(why)),
	    0);
	ck_assert_uint_eq(slot[7], 0);
	dci_value_decode(&datum, slot, &value);
	ck_assert_uint_eq(value.length, 7);
	assert_render(&datum, slot, "abcdefg");

	/* The empty string, with no bytes at all. */
	fill_slot(slot);
	ck_assert_int_eq(
	    dci_value_encode_bytes(&datum, NULL, 0, slot, why, sizeof(why)), 0);
	ck_assert_mem_eq(slot, "\0\0\0\0\0\0\0\0", 8);
	dci_value_decode(&datum, slot, &value);
	ck_assert_uint_eq(value.length, 0);
	assert_render(&datum, slot, "");

	/* A slot without a NUL (raw copy gone wrong) stays bounded. */
	memset(slot, 'z', 8);
	dci_value_decode(&datum, slot, &value);
	ck_assert_uint_eq(value.length, 8);
	assert_render(&datum, slot, "zzzzzzzz");
}
END_TEST

/* --- Addresses ---------------------------------------------------------- */

static const struct {
	uint32_t format;
	bool from_number;       /* encode_unsigned, else encode_bytes */
	uint64_t number;        /* input for from_number, and decode result */
	unsigned char bytes[6]; /* input for bytes, and expected slot */
	enum dci_value_kind kind;
	const char *text;
} address_rows[] = {
    {DCI_SAF_ETHERNET, false, 0, {0x00, 0x1b, 0x21, 0x3a, 0x4f, 0x5e},
        DCI_KIND_MACADDRESS, "00:1b:21:3a:4f:5e"},
    {DCI_SAF_ETHERNET, false, 0, {0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff},
        DCI_KIND_MACADDRESS, "aa:bb:cc:dd:ee:ff"},
    {DCI_SAF_ETHERNET, false, 0, {0, 0, 0, 0, 0, 0}, DCI_KIND_MACADDRESS,
        "none"},
    {DCI_SAF_IP, true, 0xc0a80001u, {192, 168, 0, 1}, DCI_KIND_IPADDRESS,
        "192.168.0.1"},
    {DCI_SAF_IP, false, 0x0a000001u, {10, 0, 0, 1}, DCI_KIND_IPADDRESS,
        "10.0.0.1"},
    {DCI_SAF_IP, true, 0xffffffffu, {255, 255, 255, 255}, DCI_KIND_IPADDRESS,
        "255.255.255.255"},
    {DCI_SAF_IP, true, 0, {0, 0, 0, 0}, DCI_KIND_IPADDRESS, "none"},
    {DCI_SAF_ECONET, false, 0, {0, 254}, DCI_KIND_STRING, "0.254"},
    {DCI_SAF_ECONET, false, 0, {128, 1}, DCI_KIND_STRING, "128.1"},
    {DCI_SAF_ECONET, false, 0, {0, 0}, DCI_KIND_STRING, "0.0"},
};

START_TEST(test_address)
{
	struct dci_datum_info datum = make_datum(DCI_ST_ADDRESS,
	    address_rows[_i].format, DCI_SAP_NORMAL, 0, DCI_SEMANTICS_DISCRETE);
	unsigned char slot[SLOT_BUFFER_SIZE];
	struct dci_value value;
	char why[128] = "";
	int result;

	fill_slot(slot);
	if (address_rows[_i].from_number)
		result = dci_value_encode_unsigned(
		    &datum, address_rows[_i].number, slot, why, sizeof(why));
	else
		result = dci_value_encode_bytes(&datum, address_rows[_i].bytes,
		    datum.size, slot, why, sizeof(why));
	ck_assert_msg(result == 0, "encode refused: %s", why);
	ck_assert_mem_eq(slot, address_rows[_i].bytes, datum.size);
	ck_assert_uint_eq(slot[datum.size], FILL_BYTE);

	dci_value_decode(&datum, slot, &value);
	ck_assert_int_eq(value.kind, address_rows[_i].kind);
	ck_assert_ptr_eq(value.bytes, slot);
	ck_assert_uint_eq(value.length, datum.size);
	ck_assert_uint_eq(value.number, address_rows[_i].number);
	assert_render(&datum, slot, address_rows[_i].text);
}
END_TEST

/* --- Times ---------------------------------------------------------------
 * 2026-11-21 22:17:53 UTC is 1795299473 s since 1970, and
 * (1795299473 + 2208988800) * 100 = 400428827300 cs since 1900. */

#define KNOWN_CTIME INT64_C(1795299473)
#define KNOWN_5BYTE UINT64_C(400428827300)

static const struct {
	uint32_t format;
	uint32_t presentation;
	enum encoding encoding;
	uint64_t unsigned_value;
	int64_t signed_value;
	unsigned char slot[8]; /* expected, little-endian */
	uint64_t number;       /* expected decode */
	int64_t signed_number; /* expected decode */
	const char *text;
} time_rows[] = {
    {DCI_STF_5BYTE, DCI_STP_ABSOLUTE, ENCODE_UNSIGNED, KNOWN_5BYTE, 0,
        {0xa4, 0x02, 0x6b, 0x3b, 0x5d, 0, 0, 0}, KNOWN_5BYTE, 0,
        "2026-11-21 22:17:53"},
    {DCI_STF_5BYTE, DCI_STP_ABSOLUTE, ENCODE_UNSIGNED, KNOWN_5BYTE + 25, 0,
        {0xbd, 0x02, 0x6b, 0x3b, 0x5d, 0, 0, 0}, KNOWN_5BYTE + 25, 0,
        "2026-11-21 22:17:53.25"},
    {DCI_STF_5BYTE, DCI_STP_ABSOLUTE, ENCODE_UNSIGNED, 1, 0,
        {1, 0, 0, 0, 0, 0, 0, 0}, 1, 0, "1900-01-01 00:00:00.01"},
    {DCI_STF_5BYTE, DCI_STP_ABSOLUTE, ENCODE_SIGNED, 0, INT64_C(220898880000),
        {0x00, 0x6a, 0x99, 0x6e, 0x33, 0, 0, 0}, UINT64_C(220898880000), 0,
        "1970-01-01 00:00:00"},
    {DCI_STF_5BYTE, DCI_STP_ABSOLUTE, ENCODE_UNSIGNED, 0, 0, {0}, 0, 0, "none"},
    {DCI_STF_5BYTE, DCI_STP_RELATIVE, ENCODE_UNSIGNED, 250, 0, {250}, 250, 0,
        "2.50 seconds"},
    {DCI_STF_5BYTE, DCI_STP_RELATIVE, ENCODE_UNSIGNED, 0, 0, {0}, 0, 0, "none"},
    {DCI_STF_CTIME, DCI_STP_ABSOLUTE, ENCODE_SIGNED, 0, KNOWN_CTIME,
        {0x91, 0x18, 0x02, 0x6b, 0, 0, 0, 0}, 0, KNOWN_CTIME,
        "2026-11-21 22:17:53"},
    {DCI_STF_CTIME, DCI_STP_ABSOLUTE, ENCODE_UNSIGNED, (uint64_t)KNOWN_CTIME, 0,
        {0x91, 0x18, 0x02, 0x6b, 0, 0, 0, 0}, 0, KNOWN_CTIME,
        "2026-11-21 22:17:53"},
    {DCI_STF_CTIME, DCI_STP_ABSOLUTE, ENCODE_SIGNED, 0, -1,
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0, -1,
        "1969-12-31 23:59:59"},
    {DCI_STF_CTIME, DCI_STP_ABSOLUTE, ENCODE_SIGNED, 0, 0, {0}, 0, 0, "none"},
    {DCI_STF_CTIME, DCI_STP_RELATIVE, ENCODE_SIGNED, 0, 90, {90}, 9000, 90,
        "90.00 seconds"},
    {DCI_STF_CTIME, DCI_STP_RELATIVE, ENCODE_SIGNED, 0, -90,
        {0xa6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0, -90,
        "-90.00 seconds"},
    {DCI_STF_CTIME, DCI_STP_RELATIVE, ENCODE_SIGNED, 0, 0, {0}, 0, 0, "none"},
    {DCI_STF_MONOTONIC, DCI_STP_RELATIVE, ENCODE_UNSIGNED, 250, 0, {250}, 250,
        0, "2.50 seconds"},
    {DCI_STF_MONOTONIC, DCI_STP_RELATIVE, ENCODE_UNSIGNED, 5, 0, {5}, 5, 0,
        "0.05 seconds"},
    {DCI_STF_MONOTONIC, DCI_STP_RELATIVE, ENCODE_UNSIGNED, 0, 0, {0}, 0, 0,
        "none"},
    {DCI_STF_MONOTONIC, DCI_STP_ABSOLUTE, ENCODE_UNSIGNED, 1234, 0,
        {0xd2, 0x04}, 1234, 0, "12.34 seconds after boot"},
    {DCI_STF_MONOTONIC, DCI_STP_ABSOLUTE, ENCODE_UNSIGNED, UINT64_MAX, 0,
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, UINT64_MAX, 0,
        "184467440737095516.15 seconds after boot"},
    {DCI_STF_MONOTONIC, DCI_STP_ABSOLUTE, ENCODE_UNSIGNED, 0, 0, {0}, 0, 0,
        "none"},
};

START_TEST(test_time)
{
	struct dci_datum_info datum =
	    make_datum(DCI_ST_TIME, time_rows[_i].format,
	        time_rows[_i].presentation, 0, DCI_SEMANTICS_DISCRETE);
	unsigned char slot[SLOT_BUFFER_SIZE];
	struct dci_value value;
	char why[128] = "";
	int result;

	fill_slot(slot);
	if (time_rows[_i].encoding == ENCODE_SIGNED)
		result = dci_value_encode_signed(
		    &datum, time_rows[_i].signed_value, slot, why, sizeof(why));
	else
		result = dci_value_encode_unsigned(&datum,
		    time_rows[_i].unsigned_value, slot, why, sizeof(why));
	ck_assert_msg(result == 0, "encode refused: %s", why);
	ck_assert_mem_eq(slot, time_rows[_i].slot, 8);
	ck_assert_uint_eq(slot[8], FILL_BYTE);

	dci_value_decode(&datum, slot, &value);
	ck_assert_int_eq(value.kind, DCI_KIND_TIMETICKS);
	ck_assert_uint_eq(value.number, time_rows[_i].number);
	ck_assert_int_eq(value.signed_number, time_rows[_i].signed_number);
	assert_render(&datum, slot, time_rows[_i].text);
}
END_TEST

/* STF_5BYTE ignores the top 3 of its 8 bytes. */
START_TEST(test_time_5byte_top_bytes_ignored)
{
	struct dci_datum_info datum = make_datum(DCI_ST_TIME, DCI_STF_5BYTE,
	    DCI_STP_ABSOLUTE, 0, DCI_SEMANTICS_DISCRETE);
	const unsigned char raw[8] = {
	    0xa4, 0x02, 0x6b, 0x3b, 0x5d, 0xef, 0xcd, 0xab};
	unsigned char slot[SLOT_BUFFER_SIZE];
	struct dci_value value;

	fill_slot(slot);
	ck_assert_int_eq(
	    dci_value_encode_bytes(&datum, raw, 8, slot, NULL, 0), 0);
	ck_assert_mem_eq(slot, raw, 8);
	dci_value_decode(&datum, slot, &value);
	ck_assert_uint_eq(value.number, KNOWN_5BYTE);
	assert_render(&datum, slot, "2026-11-21 22:17:53");

	/* A value whose low 5 bytes are 0 is "none" whatever the top. */
	{
		const unsigned char top_only[8] = {0, 0, 0, 0, 0, 1, 2, 3};
		assert_render(&datum, top_only, "none");
	}
}
END_TEST

/* --- Kind mapping ------------------------------------------------------- */

static const struct {
	enum dci_type type;
	uint32_t format;
	uint32_t presentation;
	uint32_t size;
	enum dci_semantics semantics;
	enum dci_value_kind kind;
} kind_rows[] = {
    {DCI_ST_UNUSED, 0, 0, 0, DCI_SEMANTICS_DISCRETE, DCI_KIND_NONE},
    {DCI_ST_BOOLEAN, DCI_SBF_NORMAL, 0, 0, DCI_SEMANTICS_DISCRETE,
        DCI_KIND_TRUTHVALUE},
    {DCI_ST_BOOLEAN, DCI_SBF_INVERTED, 0, 0, DCI_SEMANTICS_DISCRETE,
        DCI_KIND_TRUTHVALUE},
    {DCI_ST_STRING, 0, 0, 16, DCI_SEMANTICS_DISCRETE, DCI_KIND_STRING},
    {DCI_ST_INTEGER8, 0, 1, 0, DCI_SEMANTICS_GAUGE, DCI_KIND_INTEGER32},
    {DCI_ST_INTEGER8, DCI_SIF_UNSIGNED, 1, 0, DCI_SEMANTICS_COUNTER,
        DCI_KIND_COUNTER32},
    {DCI_ST_INTEGER8, DCI_SIF_UNSIGNED, 1, 0, DCI_SEMANTICS_GAUGE,
        DCI_KIND_GAUGE32},
    {DCI_ST_INTEGER16, DCI_SIF_BIGENDIAN, 1, 0, DCI_SEMANTICS_COUNTER,
        DCI_KIND_INTEGER32},
    {DCI_ST_INTEGER16, DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN, 1, 0,
        DCI_SEMANTICS_COUNTER, DCI_KIND_COUNTER32},
    {DCI_ST_INTEGER16, DCI_SIF_UNSIGNED, 1, 0, DCI_SEMANTICS_DISCRETE,
        DCI_KIND_GAUGE32},
    {DCI_ST_INTEGER32, 0, 1, 0, DCI_SEMANTICS_GAUGE, DCI_KIND_INTEGER32},
    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 1, 0, DCI_SEMANTICS_COUNTER,
        DCI_KIND_COUNTER32},
    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 1, 0, DCI_SEMANTICS_GAUGE,
        DCI_KIND_GAUGE32},
    {DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 1, 0, DCI_SEMANTICS_COUNTER,
        DCI_KIND_COUNTER64},
    {DCI_ST_INTEGER64, DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN, 1, 0,
        DCI_SEMANTICS_GAUGE, DCI_KIND_COUNTER64},
    {DCI_ST_INTEGER64, 0, 1, 0, DCI_SEMANTICS_COUNTER, DCI_KIND_TEXT_ONLY},
    {DCI_ST_INTEGER64, DCI_SIF_BIGENDIAN, 1, 0, DCI_SEMANTICS_GAUGE,
        DCI_KIND_TEXT_ONLY},
    {DCI_ST_ADDRESS, DCI_SAF_ETHERNET, 0, 0, DCI_SEMANTICS_DISCRETE,
        DCI_KIND_MACADDRESS},
    {DCI_ST_ADDRESS, DCI_SAF_IP, 0, 0, DCI_SEMANTICS_DISCRETE,
        DCI_KIND_IPADDRESS},
    {DCI_ST_ADDRESS, DCI_SAF_ECONET, 0, 0, DCI_SEMANTICS_DISCRETE,
        DCI_KIND_STRING},
    {DCI_ST_TIME, DCI_STF_5BYTE, DCI_STP_ABSOLUTE, 0, DCI_SEMANTICS_DISCRETE,
        DCI_KIND_TIMETICKS},
    {DCI_ST_TIME, DCI_STF_CTIME, DCI_STP_RELATIVE, 0, DCI_SEMANTICS_GAUGE,
        DCI_KIND_TIMETICKS},
    {DCI_ST_TIME, DCI_STF_MONOTONIC, DCI_STP_ABSOLUTE, 0,
        DCI_SEMANTICS_DISCRETE, DCI_KIND_TIMETICKS},
    /* Invalid descriptions map to nothing. */
    {DCI_ST_INTEGER32, 0x4, 1, 4, DCI_SEMANTICS_GAUGE, DCI_KIND_NONE},
    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 1, 8, DCI_SEMANTICS_GAUGE,
        DCI_KIND_NONE},
    {(enum dci_type)9, 0, 0, 4, DCI_SEMANTICS_GAUGE, DCI_KIND_NONE},
};

START_TEST(test_kind)
{
	struct dci_datum_info datum = make_datum(kind_rows[_i].type,
	    kind_rows[_i].format, kind_rows[_i].presentation,
	    kind_rows[_i].size, kind_rows[_i].semantics);

	ck_assert_str_eq(dci_value_kind_name(dci_value_kind(&datum)),
	    dci_value_kind_name(kind_rows[_i].kind));
	ck_assert_int_eq(dci_value_kind(&datum), kind_rows[_i].kind);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(dci_value_type_name(DCI_ST_UNUSED), "ST_UNUSED");
	ck_assert_str_eq(dci_value_type_name(DCI_ST_INTEGER16), "ST_INTEGER16");
	ck_assert_str_eq(dci_value_type_name(DCI_ST_TIME), "ST_TIME");
	ck_assert_str_eq(dci_value_type_name((enum dci_type)42), "ST_UNKNOWN");
	ck_assert_str_eq(dci_value_kind_name(DCI_KIND_COUNTER64), "COUNTER64");
	ck_assert_str_eq(dci_value_kind_name(DCI_KIND_TEXT_ONLY), "TEXT_ONLY");
	ck_assert_str_eq(dci_value_kind_name(DCI_KIND_COUNT), "UNKNOWN");
}
END_TEST

/* --- Datum checks ----------------------------------------------------- */

/* Every type x format 0..4 x presentation 0..5 at its natural size: the
 * check accepts exactly the combinations DCI4 defines. */
START_TEST(test_check_datum_format_presentation)
{
	static const struct {
		enum dci_type type;
		uint32_t maximum_presentation;
	} types[] = {
	    {DCI_ST_BOOLEAN, 4},
	    {DCI_ST_STRING, 0},
	    {DCI_ST_INTEGER8, 2},
	    {DCI_ST_INTEGER16, 2},
	    {DCI_ST_INTEGER32, 2},
	    {DCI_ST_INTEGER64, 2},
	    {DCI_ST_ADDRESS, 0},
	    {DCI_ST_TIME, 1},
	};
	size_t type_index;
	uint32_t format;
	uint32_t presentation;
	int accepted = 0;

	for (type_index = 0; type_index < COUNT_OF(types); type_index++) {
		enum dci_type type = types[type_index].type;
		for (format = 0; format <= 4; format++) {
			for (presentation = 0; presentation <= 5;
			     presentation++) {
				struct dci_datum_info datum;
				bool format_ok;
				bool expected;
				char why[128] = "";
				int result;

				switch (type) {
				case DCI_ST_BOOLEAN:
					format_ok = format <= 1;
					break;
				case DCI_ST_STRING:
					format_ok = format == 0;
					break;
				case DCI_ST_ADDRESS:
				case DCI_ST_TIME:
					format_ok = format <= 2;
					break;
				default: /* integers: bits 0x1 and 0x2 */
					format_ok = format <= 3;
					break;
				}
				expected =
				    format_ok &&
				    presentation <=
				        types[type_index].maximum_presentation;
				datum = make_datum(type, format, presentation,
				    type == DCI_ST_STRING ? 32 : 0,
				    DCI_SEMANTICS_DISCRETE);
				if (datum.size ==
				    0) /* unknown address format */
					datum.size = 6;
				result = dci_value_check_datum(
				    &datum, why, sizeof(why));
				ck_assert_msg(result == (expected ? 0 : -1),
				    "%s format %u presentation %u: got %d (%s)",
				    dci_value_type_name(type), format,
				    presentation, result, why);
				if (!expected)
					ck_assert_str_ne(why, "");
				accepted += expected;
			}
		}
	}
	/* boolean 2x5, string 1, integers 4 x 4x3, address 3, time 3x2 */
	ck_assert_int_eq(accepted, 10 + 1 + 48 + 3 + 6);
}
END_TEST

static const struct {
	enum dci_type type;
	uint32_t format;
	uint32_t presentation;
	uint32_t size; /* as given: no natural-size substitution */
	uint32_t volatility;
	int semantics;
	const char *why;
} bad_datums[] = {
    {(enum dci_type)10, 0, 0, 4, 0, 2, "type 10 is not a DCI4 type"},
    {DCI_ST_INTEGER32, 0x4, 1, 4, 0, 2,
        "format 0x4 is not valid for ST_INTEGER32"},
    {DCI_ST_INTEGER8, 0x81, 1, 1, 0, 2,
        "format 0x81 is not valid for ST_INTEGER8"},
    {DCI_ST_BOOLEAN, 2, 0, 4, 0, 3, "format 0x2 is not valid for ST_BOOLEAN"},
    {DCI_ST_STRING, 1, 0, 16, 0, 3, "format 0x1 is not valid for ST_STRING"},
    {DCI_ST_ADDRESS, 3, 0, 4, 0, 3, "format 0x3 is not valid for ST_ADDRESS"},
    {DCI_ST_TIME, 3, 0, 8, 0, 3, "format 0x3 is not valid for ST_TIME"},
    {DCI_ST_BOOLEAN, 0, 5, 4, 0, 3,
        "presentation 5 is not valid for ST_BOOLEAN"},
    {DCI_ST_STRING, 0, 1, 16, 0, 3,
        "presentation 1 is not valid for ST_STRING"},
    {DCI_ST_INTEGER64, 1, 3, 8, 0, 1,
        "presentation 3 is not valid for ST_INTEGER64"},
    {DCI_ST_ADDRESS, 1, 1, 4, 0, 3,
        "presentation 1 is not valid for ST_ADDRESS"},
    {DCI_ST_TIME, 2, 2, 8, 0, 3, "presentation 2 is not valid for ST_TIME"},
    {DCI_ST_INTEGER32, 1, 1, 8, 0, 2,
        "size 8 is not valid for ST_INTEGER32 (must be 4)"},
    {DCI_ST_INTEGER8, 1, 1, 4, 0, 2,
        "size 4 is not valid for ST_INTEGER8 (must be 1)"},
    {DCI_ST_BOOLEAN, 0, 0, 1, 0, 3,
        "size 1 is not valid for ST_BOOLEAN (must be 4)"},
    {DCI_ST_ADDRESS, 0, 0, 4, 0, 3,
        "size 4 is not valid for ST_ADDRESS (must be 6)"},
    {DCI_ST_ADDRESS, 2, 0, 4, 0, 3,
        "size 4 is not valid for ST_ADDRESS (must be 2)"},
    {DCI_ST_TIME, 1, 0, 4, 0, 3, "size 4 is not valid for ST_TIME (must be 8)"},
    {DCI_ST_STRING, 0, 0, 1, 0, 3,
        "size 1 is not valid for ST_STRING (must be 2..65535)"},
    {DCI_ST_STRING, 0, 0, 65536, 0, 3,
        "size 65536 is not valid for ST_STRING (must be 2..65535)"},
    {DCI_ST_UNUSED, 0, 0, 4, 0, 0,
        "size 4 is not valid for ST_UNUSED (must be 0)"},
    {DCI_ST_INTEGER32, 1, 1, 4, 0, 0,
        "semantics 0 is not valid (must be 1..3)"},
    {DCI_ST_INTEGER32, 1, 1, 4, 0, 4,
        "semantics 4 is not valid (must be 1..3)"},
    {DCI_ST_BOOLEAN, 0, 0, 4, 0, 1,
        "counter semantics is not valid for ST_BOOLEAN"},
    {DCI_ST_STRING, 0, 0, 16, 0, 1,
        "counter semantics is not valid for ST_STRING"},
    {DCI_ST_ADDRESS, 1, 0, 4, 0, 1,
        "counter semantics is not valid for ST_ADDRESS"},
    {DCI_ST_TIME, 2, 1, 8, 0, 1, "counter semantics is not valid for ST_TIME"},
    {DCI_ST_INTEGER32, 1, 1, 4, 3, 1,
        "volatility 3 is not valid (must be 0..2)"},
};

START_TEST(test_check_datum_refusals)
{
	struct dci_datum_info datum = {
	    .id = 7,
	    .label = "bad",
	    .type = bad_datums[_i].type,
	    .format = bad_datums[_i].format,
	    .presentation = bad_datums[_i].presentation,
	    .size = bad_datums[_i].size,
	    .volatility = bad_datums[_i].volatility,
	    .unit = DCI_UNIT_NONE,
	    .semantics = (enum dci_semantics)bad_datums[_i].semantics,
	};
	unsigned char slot[SLOT_BUFFER_SIZE];
	char why[128] = "";
	char encode_why[128] = "";

	ck_assert_int_eq(dci_value_check_datum(&datum, why, sizeof(why)), -1);
	ck_assert_str_eq(why, bad_datums[_i].why);
	/* Refused without a reason buffer, too. */
	ck_assert_int_eq(dci_value_check_datum(&datum, NULL, 0), -1);

	/* Encoders refuse an invalid datum with the same reason and leave
	 * the slot alone; decode and render give nothing. */
	fill_slot(slot);
	ck_assert_int_eq(dci_value_encode_unsigned(
	                     &datum, 0, slot, encode_why, sizeof(encode_why)),
	    -1);
	ck_assert_str_eq(encode_why, bad_datums[_i].why);
	ck_assert_uint_eq(slot[0], FILL_BYTE);
	ck_assert_int_eq(dci_value_kind(&datum), DCI_KIND_NONE);
	assert_render(&datum, slot, "");
}
END_TEST

START_TEST(test_check_datum_valid)
{
	struct dci_datum_info unused =
	    make_datum(DCI_ST_UNUSED, 7, 9, 0, (enum dci_semantics)0);
	struct dci_datum_info longest = make_datum(
	    DCI_ST_STRING, 0, 0, DCI_STRING_MAX, DCI_SEMANTICS_DISCRETE);
	struct dci_datum_info shortest =
	    make_datum(DCI_ST_STRING, 0, 0, 2, DCI_SEMANTICS_DISCRETE);
	struct dci_datum_info counter = make_datum(DCI_ST_INTEGER64,
	    DCI_SIF_UNSIGNED, DCI_SIP_DECIMAL, 0, DCI_SEMANTICS_COUNTER);
	char why[128] = "untouched";

	/* ST_UNUSED: only the size counts (DCI4: other fields invalid). */
	unused.volatility = 99;
	ck_assert_int_eq(dci_value_check_datum(&unused, why, sizeof(why)), 0);
	ck_assert_int_eq(dci_value_check_datum(&longest, why, sizeof(why)), 0);
	ck_assert_int_eq(dci_value_check_datum(&shortest, why, sizeof(why)), 0);
	counter.volatility = DCI_SV_VOLATILE;
	ck_assert_int_eq(dci_value_check_datum(&counter, why, sizeof(why)), 0);
	counter.volatility = DCI_SV_STATIC;
	ck_assert_int_eq(dci_value_check_datum(&counter, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "untouched");

	ck_assert_int_eq(dci_value_check_datum(NULL, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "no datum description");

	/* A reason longer than its buffer is cut and terminated. */
	counter.semantics = (enum dci_semantics)0;
	ck_assert_int_eq(dci_value_check_datum(&counter, why, 10), -1);
	ck_assert_str_eq(why, "semantics");
}
END_TEST

/* --- Encode refusals ------------------------------------------------------ */

enum refusal_call { CALL_UNSIGNED, CALL_SIGNED, CALL_BYTES };

static const struct {
	enum dci_type type;
	uint32_t format;
	uint32_t presentation;
	uint32_t size; /* 0: natural */
	enum refusal_call call;
	uint64_t unsigned_value;
	int64_t signed_value;
	const char *bytes;
	size_t length;
	const char *why;
} refusals[] = {
    {DCI_ST_INTEGER8, DCI_SIF_UNSIGNED, 1, 0, CALL_UNSIGNED, 300, 0, NULL, 0,
        "value 300 does not fit ST_INTEGER8 unsigned (maximum 255)"},
    {DCI_ST_INTEGER8, DCI_SIF_UNSIGNED, 1, 0, CALL_SIGNED, 0, 256, NULL, 0,
        "value 256 does not fit ST_INTEGER8 unsigned (maximum 255)"},
    {DCI_ST_INTEGER8, 0, 1, 0, CALL_UNSIGNED, 128, 0, NULL, 0,
        "value 128 does not fit ST_INTEGER8 signed (maximum 127)"},
    {DCI_ST_INTEGER8, 0, 1, 0, CALL_SIGNED, 0, -129, NULL, 0,
        "value -129 does not fit ST_INTEGER8 signed (minimum -128)"},
    {DCI_ST_INTEGER16, DCI_SIF_BIGENDIAN, 1, 0, CALL_SIGNED, 0, 40000, NULL, 0,
        "value 40000 does not fit ST_INTEGER16 signed (maximum 32767)"},
    {DCI_ST_INTEGER16, DCI_SIF_UNSIGNED, 1, 0, CALL_UNSIGNED, 65536, 0, NULL, 0,
        "value 65536 does not fit ST_INTEGER16 unsigned (maximum 65535)"},
    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 1, 0, CALL_UNSIGNED,
        UINT64_C(0x100000000), 0, NULL, 0,
        "value 4294967296 does not fit ST_INTEGER32 unsigned "
        "(maximum 4294967295)"},
    {DCI_ST_INTEGER32, 0, 1, 0, CALL_SIGNED, 0, INT64_C(-2147483649), NULL, 0,
        "value -2147483649 does not fit ST_INTEGER32 signed "
        "(minimum -2147483648)"},
    {DCI_ST_INTEGER64, 0, 1, 0, CALL_UNSIGNED, UINT64_MAX, 0, NULL, 0,
        "value 18446744073709551615 does not fit ST_INTEGER64 signed "
        "(maximum 9223372036854775807)"},
    {DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 1, 0, CALL_SIGNED, 0, -1, NULL, 0,
        "negative value -1 for ST_INTEGER32 unsigned"},
    {DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 1, 0, CALL_SIGNED, 0, INT64_MIN, NULL,
        0, "negative value -9223372036854775808 for ST_INTEGER64 unsigned"},
    {DCI_ST_INTEGER32, 0, 1, 0, CALL_BYTES, 0, 0, "abc", 3,
        "3 bytes given for ST_INTEGER32 signed, which takes 4"},
    {DCI_ST_INTEGER8, 1, 1, 0, CALL_BYTES, 0, 0, NULL, 0,
        "0 bytes given for ST_INTEGER8 unsigned, which takes 1"},
    {DCI_ST_BOOLEAN, 0, 0, 0, CALL_UNSIGNED, 2, 0, NULL, 0,
        "value 2 is not valid for ST_BOOLEAN (must be 0 or 1)"},
    {DCI_ST_BOOLEAN, 1, 0, 0, CALL_SIGNED, 0, -1, NULL, 0,
        "negative value -1 for ST_BOOLEAN"},
    {DCI_ST_BOOLEAN, 0, 0, 0, CALL_BYTES, 0, 0, "\1\0\0\0", 4,
        "ST_BOOLEAN takes a number, not bytes"},
    {DCI_ST_STRING, 0, 0, 5, CALL_BYTES, 0, 0, "hello", 5,
        "string of 5 bytes is longer than 4 (size 5 less its NUL)"},
    {DCI_ST_STRING, 0, 0, 8, CALL_BYTES, 0, 0, "ab\0c", 4,
        "string has a NUL at byte 2"},
    {DCI_ST_STRING, 0, 0, 8, CALL_BYTES, 0, 0, NULL, 3,
        "no bytes given for ST_STRING"},
    {DCI_ST_STRING, 0, 0, 8, CALL_UNSIGNED, 1, 0, NULL, 0,
        "ST_STRING takes bytes, not a number"},
    {DCI_ST_STRING, 0, 0, 8, CALL_SIGNED, 0, -5, NULL, 0,
        "ST_STRING takes bytes, not a number"},
    {DCI_ST_ADDRESS, DCI_SAF_ETHERNET, 0, 0, CALL_UNSIGNED, 1, 0, NULL, 0,
        "ST_ADDRESS ethernet takes bytes, not a number"},
    {DCI_ST_ADDRESS, DCI_SAF_ECONET, 0, 0, CALL_SIGNED, 0, 1, NULL, 0,
        "ST_ADDRESS econet takes bytes, not a number"},
    {DCI_ST_ADDRESS, DCI_SAF_ETHERNET, 0, 0, CALL_BYTES, 0, 0, "\1\2\3\4", 4,
        "4 bytes given for ST_ADDRESS ethernet, which takes 6"},
    {DCI_ST_ADDRESS, DCI_SAF_IP, 0, 0, CALL_UNSIGNED, UINT64_C(0x100000000), 0,
        NULL, 0, "value 0x100000000 is not an IPv4 address"},
    {DCI_ST_ADDRESS, DCI_SAF_IP, 0, 0, CALL_SIGNED, 0, -1, NULL, 0,
        "negative value -1 for ST_ADDRESS IP"},
    {DCI_ST_TIME, DCI_STF_5BYTE, 0, 0, CALL_UNSIGNED, UINT64_C(1) << 40, 0,
        NULL, 0,
        "value 1099511627776 does not fit ST_TIME 5-byte "
        "(maximum 1099511627775)"},
    {DCI_ST_TIME, DCI_STF_CTIME, 0, 0, CALL_UNSIGNED, UINT64_C(1) << 63, 0,
        NULL, 0,
        "value 9223372036854775808 does not fit ST_TIME ctime "
        "(maximum 9223372036854775807)"},
    {DCI_ST_TIME, DCI_STF_MONOTONIC, 1, 0, CALL_SIGNED, 0, -1, NULL, 0,
        "negative value -1 for ST_TIME monotonic"},
    {DCI_ST_TIME, DCI_STF_5BYTE, 1, 0, CALL_SIGNED, 0, -250, NULL, 0,
        "negative value -250 for ST_TIME 5-byte"},
    {DCI_ST_TIME, DCI_STF_CTIME, 0, 0, CALL_BYTES, 0, 0, "1234", 4,
        "4 bytes given for ST_TIME ctime, which takes 8"},
    {DCI_ST_UNUSED, 0, 0, 0, CALL_UNSIGNED, 0, 0, NULL, 0,
        "ST_UNUSED takes no value"},
    {DCI_ST_UNUSED, 0, 0, 0, CALL_SIGNED, 0, -1, NULL, 0,
        "ST_UNUSED takes no value"},
    {DCI_ST_UNUSED, 0, 0, 0, CALL_BYTES, 0, 0, NULL, 0,
        "ST_UNUSED takes no value"},
};

START_TEST(test_encode_refusals)
{
	struct dci_datum_info datum = make_datum(refusals[_i].type,
	    refusals[_i].format, refusals[_i].presentation, refusals[_i].size,
	    DCI_SEMANTICS_GAUGE); /* gauge is valid for every type */
	unsigned char slot[SLOT_BUFFER_SIZE];
	unsigned char untouched[SLOT_BUFFER_SIZE];
	char why[160] = "";
	int result = 0;

	ck_assert_int_eq(dci_value_check_datum(&datum, why, sizeof(why)), 0);
	fill_slot(slot);
	fill_slot(untouched);
	switch (refusals[_i].call) {
	case CALL_UNSIGNED:
		result = dci_value_encode_unsigned(&datum,
		    refusals[_i].unsigned_value, slot, why, sizeof(why));
		break;
	case CALL_SIGNED:
		result = dci_value_encode_signed(
		    &datum, refusals[_i].signed_value, slot, why, sizeof(why));
		break;
	case CALL_BYTES:
		result = dci_value_encode_bytes(&datum, refusals[_i].bytes,
		    refusals[_i].length, slot, why, sizeof(why));
		break;
	}
	ck_assert_int_eq(result, -1);
	ck_assert_str_eq(why, refusals[_i].why);
	ck_assert_mem_eq(slot, untouched, SLOT_BUFFER_SIZE);
}
END_TEST

/* --- Rendering edges ------------------------------------------------------ */

/* Truncated like snprintf: always terminated, returns the full length. */
START_TEST(test_render_truncation)
{
	struct dci_datum_info ip = make_datum(DCI_ST_ADDRESS, DCI_SAF_IP,
	    DCI_SAP_NORMAL, 0, DCI_SEMANTICS_DISCRETE);
	struct dci_datum_info string =
	    make_datum(DCI_ST_STRING, 0, 0, 16, DCI_SEMANTICS_DISCRETE);
	struct dci_datum_info boolean = make_datum(
	    DCI_ST_BOOLEAN, 0, DCI_SBP_ALWAYS_NEVER, 0, DCI_SEMANTICS_DISCRETE);
	const unsigned char address[4] = {192, 168, 0, 1};
	const unsigned char yes[4] = {1, 0, 0, 0};
	unsigned char slot[SLOT_BUFFER_SIZE];
	char text[8];

	memset(text, 'X', sizeof(text));
	ck_assert_uint_eq(dci_value_render(&ip, address, text, 5), 11);
	ck_assert_str_eq(text, "192.");
	ck_assert_uint_eq((unsigned char)text[5], 'X');
	ck_assert_uint_eq(dci_value_render(&ip, address, NULL, 0), 11);
	ck_assert_uint_eq(dci_value_render(&ip, address, text, 1), 11);
	ck_assert_str_eq(text, "");

	fill_slot(slot);
	ck_assert_int_eq(
	    dci_value_encode_bytes(&string, "interface0", 10, slot, NULL, 0),
	    0);
	ck_assert_uint_eq(
	    dci_value_render(&string, slot, text, sizeof(text)), 10);
	ck_assert_str_eq(text, "interfa");

	ck_assert_uint_eq(dci_value_render(&boolean, yes, text, 4), 6);
	ck_assert_str_eq(text, "alw");
}
END_TEST

START_TEST(test_unused)
{
	struct dci_datum_info datum =
	    make_datum(DCI_ST_UNUSED, 0, 0, 0, DCI_SEMANTICS_DISCRETE);
	const unsigned char slot[1] = {0xff};
	struct dci_value value;
	char text[8] = "XXXXXXX";

	ck_assert_int_eq(dci_value_check_datum(&datum, NULL, 0), 0);
	ck_assert_int_eq(dci_value_kind(&datum), DCI_KIND_NONE);
	dci_value_decode(&datum, slot, &value);
	ck_assert_int_eq(value.kind, DCI_KIND_NONE);
	ck_assert_uint_eq(value.number, 0);
	ck_assert_ptr_null(value.bytes);
	ck_assert_uint_eq(
	    dci_value_render(&datum, slot, text, sizeof(text)), 0);
	ck_assert_str_eq(text, "");
}
END_TEST

static Suite *
value_suite(void)
{
	Suite *suite = suite_create("value");
	TCase *sizes = tcase_create("sizes");
	TCase *integers = tcase_create("integers");
	TCase *booleans = tcase_create("booleans");
	TCase *strings = tcase_create("strings");
	TCase *addresses = tcase_create("addresses");
	TCase *times = tcase_create("times");
	TCase *kinds = tcase_create("kinds");
	TCase *checks = tcase_create("checks");
	TCase *refusing = tcase_create("refusals");
	TCase *rendering = tcase_create("rendering");

	tcase_add_loop_test(
	    sizes, test_natural_size, 0, (int)COUNT_OF(natural_sizes));
	suite_add_tcase(suite, sizes);

	tcase_add_loop_test(integers, test_integer_presentations, 0,
	    (int)COUNT_OF(integer_rows));
	tcase_add_test(integers, test_endianness);
	tcase_add_test(integers, test_hundredths);
	tcase_add_loop_test(
	    integers, test_signed_limits, 0, (int)COUNT_OF(signed_limits));
	suite_add_tcase(suite, integers);

	tcase_add_loop_test(booleans, test_boolean, 0, 2 * 5 * 2);
	tcase_add_test(booleans, test_boolean_least_significant_bit);
	suite_add_tcase(suite, booleans);

	tcase_add_test(strings, test_string);
	suite_add_tcase(suite, strings);

	tcase_add_loop_test(
	    addresses, test_address, 0, (int)COUNT_OF(address_rows));
	suite_add_tcase(suite, addresses);

	tcase_add_loop_test(times, test_time, 0, (int)COUNT_OF(time_rows));
	tcase_add_test(times, test_time_5byte_top_bytes_ignored);
	suite_add_tcase(suite, times);

	tcase_add_loop_test(kinds, test_kind, 0, (int)COUNT_OF(kind_rows));
	tcase_add_test(kinds, test_names);
	suite_add_tcase(suite, kinds);

	tcase_add_test(checks, test_check_datum_format_presentation);
	tcase_add_loop_test(
	    checks, test_check_datum_refusals, 0, (int)COUNT_OF(bad_datums));
	tcase_add_test(checks, test_check_datum_valid);
	suite_add_tcase(suite, checks);

	tcase_add_loop_test(
	    refusing, test_encode_refusals, 0, (int)COUNT_OF(refusals));
	suite_add_tcase(suite, refusing);

	tcase_add_test(rendering, test_render_truncation);
	tcase_add_test(rendering, test_unused);
	suite_add_tcase(suite, rendering);

	return suite;
}

int
main(void)
{
	return unit_run_suite(value_suite());
}
