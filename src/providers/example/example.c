/*
 * example: the documented example provider of dcistat.
 *
 * Read this file to learn how a provider is written. It reads no system
 * state: every value is a fixed number chosen so that a test (and you, with
 * snmpget) can check exactly what dcistatd makes of it. It demonstrates:
 *
 *   - the provider's life: init registers a supplier and one class and reads
 *     the options; refresh fills one batch with every instance and commits
 *     it; fini frees what init allocated (also after a failed init);
 *   - options, checked in init and refused with dci_option_error, which
 *     points the user at the file, line and column of the bad value;
 *   - one datum for every DCI4 type, format and presentation dcistatd
 *     accepts, and how each is stored, rendered as dciStatText and served in
 *     its typed dciStatTable column (see "The datums" below);
 *   - storing a value as a number (dci_batch_set_row for all of a row's
 *     numbers in one call, or dci_batch_set_unsigned, _signed) or as raw
 *     bytes already in the datum's format (dci_batch_set_row_bytes for all
 *     of a row's strings and bytes in one call, or dci_batch_set_bytes,
 *     _string), and why the byte order in the format matters only for the
 *     latter;
 *   - a counter that grows (the one value that changes), a datum that
 *     differs per instance, and an instance that comes and goes;
 *   - a refresh that stays cheap with a million instances: one batch, no
 *     allocation per instance, O(instances x datums) work. The provider's
 *     own share is small (about 0.2 s a refresh for a million instances on
 *     a modest machine); dcistatd's copying and checking of some 58 million
 *     values takes about 2 s, so give such a load a `refresh` period above
 *     that, or every request waits for a refresh.
 *
 * Supplier "example" (module of dciSupplierTable), one class: example,
 * id {2, 1} (classes 1.x are the built-in kernel providers'; applications
 * use 2.x and above), one instance level of one 4-byte word
 * (DCI_ITYPE_DEVICE). In dciStatTable the class is indexed 2.2.1 (length,
 * then the levels) and instance n as 1.n.
 *
 * Options (YAML `options` of the provider entry, read once in init):
 *   instances      1 to 10000000, default 3: instances 1..N, labelled
 *                  "unit1".."unitN".
 *   churn_seconds  0 to 4294967295, default 10: instance N+1, labelled
 *                  "transient", is added at the first refresh, removed at
 *                  the first refresh churn_seconds (CLOCK_MONOTONIC) after
 *                  that, added again churn_seconds later, and so on. 0: no
 *                  transient instance.
 *
 * The datums. Ids are stable and part of the provider's interface; they are
 * grouped by type (1-10 booleans, 11-19 strings, 20-59 integers by width,
 * 60-69 addresses, 70-79 times, 99 unused). Every instance, the transient one
 * included, has the same values except instance_number (49), its instance
 * id, and refreshes (56), the number of refreshes so far (1 after the first,
 * then +1 each refresh; the same in every instance).
 *
 * ST_BOOLEAN (4 bytes). The provider stores 0 or 1; SBF_INVERTED flips the
 * meaning when the value is read, never when it is stored. Served as
 * dciStatTruthValue: true(1) or false(2), after the inversion.
 *   id label                  format    presentation stored text   Truth
 *    1 bool_on_off            normal    on/off       1      on     1
 *    2 bool_yes_no            normal    yes/no       0      no     2
 *    3 bool_true_false        normal    true/false   1      true   1
 *    4 bool_always_never      normal    always/never 0      never  2
 *    5 bool_one_zero          normal    1/0          1      1      1
 *    6 inverted_on_off        inverted  on/off       1      off    2
 *    7 inverted_yes_no        inverted  yes/no       0      yes    1
 *    8 inverted_true_false    inverted  true/false   1      false  2
 *    9 inverted_always_never  inverted  always/never 0      always 1
 *   10 inverted_one_zero      inverted  1/0          1      0      2
 *
 * ST_STRING (size: the longest value plus its NUL). Served as
 * dciStatString, an OCTET STRING without the NUL.
 *   11 text                   size 32   "Hello, world"
 *   12 empty_text             size 8    "" (a value: its rows exist, empty)
 *
 * ST_INTEGER8/16/32/64. Format bits: SIF_UNSIGNED (else signed, two's
 * complement) and SIF_BIGENDIAN (else little-endian). Presentation: hex
 * ("0x" and lowercase digits of the value as an unsigned of its width),
 * decimal, or dotted (each octet in decimal, most significant first).
 * Columns: signed 8/16/32 dciStatInteger32; unsigned 8/16/32 dciStatGauge32,
 * or dciStatCounter32 when the semantics is counter (dcistatd extends an 8-
 * or 16-bit counter to 32 bits across refreshes); unsigned 64
 * dciStatCounter64 (gauges too, as CounterBasedGauge64 does); signed 64 has
 * no SNMP type and is served as dciStatText only.
 * Format: s/u signed/unsigned, le/be byte order; c marks a counter (the
 * others are gauges, but instance_number is discrete). The typed column
 * holds the value as a number: INTEGER -2, Gauge32 250, Counter32 200,
 * Counter64 72623859790382856 and so on.
 *   id label           format pres value               text
 *   20 int8_decimal    s le   dec  -2                  -2
 *   21 int8_hex        s be   hex  -2                  0xfe
 *   22 int8_dotted     s le   dot  -2                  254
 *   23 uint8_decimal   u be   dec  250                 250
 *   24 uint8_hex       u le   hex  250                 0xfa
 *   25 uint8_counter   u le c dec  200                 200
 *   30 int16_decimal   s le   dec  -2                  -2
 *   31 int16_hex       s be   hex  -2                  0xfffe
 *   32 int16_dotted    s le   dot  -2                  255.254
 *   33 uint16_decimal  u be   dec  0x0102              258
 *   34 uint16_hex      u le   hex  0x0102              0x102
 *   35 uint16_dotted   u be   dot  0x0102              1.2
 *   36 uint16_counter  u le c dec  65535               65535
 *   40 int32_decimal   s le   dec  -2                  -2
 *   41 int32_hex       s be   hex  -2                  0xfffffffe
 *   42 int32_dotted    s le   dot  -2                  255.255.255.254
 *   43 uint32_gauge    u le   dec  0x01020304          16909060
 *   44 uint32_hex      u be   hex  0x01020304          0x1020304
 *   45 uint32_dotted   u be   dot  0xc0000201          192.0.2.1
 *   46 uint32_counter  u le c dec  4000000000          4000000000
 *   47 raw32_little    u le   hex  bytes 01 02 03 04   0x4030201 (67305985)
 *   48 raw32_big       u be   hex  bytes 01 02 03 04   0x1020304 (16909060)
 *   49 instance_number u le   dec  the instance's id   2 for unit2
 *   50 int64_decimal   s le   dec  -2                  -2
 *   51 int64_hex       s be   hex  -2                  0xfffffffffffffffe
 *   52 int64_dotted    s le   dot  0x0102030405060708  1.2.3.4.5.6.7.8
 *   53 uint64_gauge    u le   dec  0x0102030405060708  72623859790382856
 *   54 uint64_hex      u be   hex  0x0102030405060708  0x102030405060708
 *   55 uint64_counter  u be c dec  10^19               10000000000000000000
 *   56 refreshes       u le c dec  refreshes so far    1, 2, 3 ...
 *   57 raw64_little    u le   hex  bytes 01 02 .. 08   0x807060504030201
 *   58 raw64_big       u be   hex  bytes 01 02 .. 08   0x102030405060708
 * (57 is 578437695752307201 in decimal, 58 72623859790382856.)
 * A number given to dci_batch_set_unsigned/_signed is encoded by the host
 * in the datum's byte order, so 43 and 44 hold different bytes but the same
 * value. Bytes given to dci_batch_set_bytes are taken as they are, already
 * in the datum's format: the same four bytes are 0x4030201 in the
 * little-endian 47 and 0x1020304 in the big-endian 48.
 *
 * ST_ADDRESS (SAP_NORMAL is the only presentation). SAF_ETHERNET, 6 bytes:
 * dciStatMacAddress (OCTET STRING); SAF_IP, 4 bytes in network order:
 * dciStatIpAddress; SAF_ECONET, 2 bytes (net, station): dciStatString. An
 * all-zero ethernet or IP address means "no address" and reads "none".
 *   60 mac_address       ethernet  02 00 5e 10 00 01   02:00:5e:10:00:01
 *   61 ip_address        IP        0xc0000201 (number) 192.0.2.1
 *   62 ip_address_bytes  IP        c6 33 64 07 (bytes) 198.51.100.7
 *   63 econet_address    econet    01 fe               1.254
 *   64 no_mac_address    ethernet  all zero            none
 *   65 no_ip_address     IP        0                   none
 *
 * ST_TIME (8 bytes). Formats: STF_CTIME seconds since 1970 (signed),
 * STF_5BYTE centiseconds since 1900 (low 5 bytes), STF_MONOTONIC
 * centiseconds of CLOCK_MONOTONIC. STP_ABSOLUTE is a moment, STP_RELATIVE a
 * duration; 0 is "none" in both. Served as dciStatTimeTicks: a duration in
 * centiseconds, a moment as a TimeStamp (sysUpTime at that moment, 0 when
 * it was before the agent started).
 *   70 ctime_absolute     ctime    absolute 1767225600    2026-01-01 00:00:00
 *   71 ctime_relative     ctime    relative 90            90.00 seconds
 *   72 fivebyte_absolute  5-byte   absolute 397621440000  2026-01-01 00:00:00
 *   73 fivebyte_relative  5-byte   relative 12345         123.45 seconds
 *   74 monotonic_absolute monotonic absolute  CLOCK_MONOTONIC at init, e.g.
 *                                  123456  1234.56 seconds after boot
 *   75 monotonic_relative monotonic relative 250          2.50 seconds
 *   76 time_none          ctime    absolute 0             none
 *   77 duration_none      monotonic relative 0            none
 * 70 and 72 are the same moment, 2026-01-01 00:00:00 UTC; as TimeStamps
 * they are 0 (before the agent started); 74 is the TimeStamp of init.
 *
 * Derived metrics (DCI_ST_DERIVED, UMA_DERIVED): declared here, computed by
 * dcistatd from the values above at every refresh. The id is
 * DCI_DERIVED_DATUM_ID(arg1, arg2, arg3, number), shown as number (args);
 * 59 uint32_zero (0, a Gauge32) exists to be divided by.
 *   number (args)  label              derivation  value       column
 *   80 (23 33)     derived_sum2       sum2        508         Counter64
 *   81 (25 36 46)  derived_sum3       sum3        4000065735  Counter64,
 *                                                             a counter
 *   82 (43 33)     derived_difference difference  16908802    Counter64
 *   83 (33 43)     derived_negative   difference  negative: no row
 *   84 (20 23)     derived_signed     difference  -252        Integer32
 *   85 (33 25)     derived_average    average     1.29        Hundredths 129
 *   86 (25 23)     derived_percent    percent     44.44       Hundredths 4444
 *   87 (23 33)     derived_product    product     64500       Counter64
 *   88 (55 53)     derived_overflow   product     above 2^64: no row
 *   89 (25 33 36)  derived_variance   variance    326.01      Hundredths 32601
 *   90 (23 59)     derived_by_zero    average     250 / 0: no row
 * dciStatText shows the same values ("1.29"); dciDatumUnits names the
 * derivation ("average").
 *
 * ST_UNUSED: 99 reserved. Reserves the id (DCI4: a datum number kept for
 * later use); it has no value and no row in any table.
 */
#define _POSIX_C_SOURCE 200809L

#include <dcistat/provider.h>

#include "providers/common/options.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Option limits and defaults, as documented above. */
#define EXAMPLE_INSTANCES_DEFAULT 3u
#define EXAMPLE_INSTANCES_MAX 10000000u
#define EXAMPLE_CHURN_DEFAULT_SECONDS 10u
#define EXAMPLE_CHURN_MAX_SECONDS 4294967295u

/* "unit10000000" and the transient label fit with room to spare. */
#define EXAMPLE_LABEL_SIZE 24

/* The integer formats spelled out: SIF_ bits clear mean signed and
 * little-endian. */
#define EXAMPLE_SIGNED_LE 0u
#define EXAMPLE_SIGNED_BE DCI_SIF_BIGENDIAN
#define EXAMPLE_UNSIGNED_LE DCI_SIF_UNSIGNED
#define EXAMPLE_UNSIGNED_BE (DCI_SIF_UNSIGNED | DCI_SIF_BIGENDIAN)

/* 2026-01-01 00:00:00 UTC in the two calendar formats of ST_TIME:
 * STF_CTIME seconds since 1970, and STF_5BYTE centiseconds since 1900
 * (1970 is 2208988800 seconds after 1900). */
#define EXAMPLE_NEW_YEAR_CTIME INT64_C(1767225600)
#define EXAMPLE_NEW_YEAR_5BYTE                                                 \
	((UINT64_C(1767225600) + UINT64_C(2208988800)) * 100u)

static const struct dci_supplier_info example_supplier = {
    .module = "example",
    .title = "Example provider",
    .description = "Fixed values of every DCI4 type, format and "
                   "presentation, for learning and testing",
    .type = 0, /* DCI4 SPT_GENERAL_SUPPLIER */
    .version = 100,
};

static const uint32_t example_class_id[] = {2, 1};

static const struct dci_instance_level example_levels[] = {
    {.itype = DCI_ITYPE_DEVICE, .size = 4},
};

/* How refresh stores a datum's value. Most values are constants kept in
 * the datum table below; three are computed. */
enum example_setter {
	EXAMPLE_SET_UNSIGNED,  /* dci_row_unsigned(.number) */
	EXAMPLE_SET_SIGNED,    /* dci_row_signed(.signed_number) */
	EXAMPLE_SET_BYTES,     /* dci_row_raw(.bytes, .length) */
	EXAMPLE_SET_STRING,    /* dci_row_string(.text) */
	EXAMPLE_SET_INSTANCE,  /* the instance's id */
	EXAMPLE_SET_REFRESHES, /* refreshes so far */
	EXAMPLE_SET_INIT_TIME, /* CLOCK_MONOTONIC at init, centiseconds */
	EXAMPLE_SET_NOTHING,   /* ST_UNUSED: it never has a value; and a
	                          derived datum, which the host computes */
};

/* A datum's description, as registered, and its value. */
struct example_datum {
	struct dci_datum_info info;
	enum example_setter set;
	uint64_t number;
	int64_t signed_number;
	const char *text;
	const unsigned char *bytes;
	size_t length;
};

/* EXAMPLE_INFO(id, label, type, format, presentation, size, volatility,
 * unit, semantics, description): a struct dci_datum_info, in the order of
 * its fields. Size 0 means the type's natural size; only strings need one.
 * Volatility is DCI4's hint to a reader of how often to look again:
 * SV_STATIC, constant while the provider runs (every fixed value here),
 * SV_VARIABLE, rarely changes, SV_VOLATILE, can change at any refresh. */
#define EXAMPLE_INFO(id_, label_, type_, format_, presentation_, size_,        \
    volatility_, unit_, semantics_, description_)                              \
	{                                                                      \
		.id = (id_), .label = (label_), .type = (type_),               \
		.format = (format_), .presentation = (presentation_),          \
		.size = (size_), .volatility = (volatility_), .unit = (unit_), \
		.semantics = (semantics_), .description = (description_),      \
	}

/* EXAMPLE_DERIVED(arg1, arg2, arg3, number, label, derivation,
 * description): a derived datum (see "Derived metrics" in provider.h). */
#define EXAMPLE_DERIVED(                                                       \
    arg1_, arg2_, arg3_, id_, label_, derivation_, description_)               \
	{                                                                      \
		.id = DCI_DERIVED_DATUM_ID(arg1_, arg2_, arg3_, id_),          \
		.label = (label_), .type = DCI_ST_DERIVED,                     \
		.unit = (derivation_), .description = (description_),          \
	}

/*
 * The rows of the datum table. Most datums are fixed values, static
 * (DCI_SV_STATIC), of the type's natural size (0); for them a row names
 * only what varies, and these macros fill in the rest of EXAMPLE_INFO: the
 * label is written as a word, the DCI_ prefixes of type, format,
 * presentation, unit and semantics are left out, and the value is one of
 *   UNSIGNED(n)        dci_row_unsigned(n)
 *   SIGNED(n)          dci_row_signed(n)
 *   BYTES(array)       dci_row_raw(array, sizeof array)
 *   COMPUTED(setter)   what refresh works out (EXAMPLE_SET_INSTANCE ...)
 * A datum of another kind (a string, a volatile counter, ST_UNUSED) is
 * written out with EXAMPLE_INFO in full.
 */
#define EXAMPLE_VALUE_UNSIGNED(number_)                                        \
	.set = EXAMPLE_SET_UNSIGNED, .number = (number_)
#define EXAMPLE_VALUE_SIGNED(number_)                                          \
	.set = EXAMPLE_SET_SIGNED, .signed_number = (number_)
#define EXAMPLE_VALUE_BYTES(array_)                                            \
	.set = EXAMPLE_SET_BYTES, .bytes = (array_), .length = sizeof(array_)
#define EXAMPLE_VALUE_COMPUTED(setter_) .set = (setter_)

/* EXAMPLE_BOOLEAN(id, label, format, presentation, stored, description):
 * format NORMAL or INVERTED (DCI_SBF_), presentation ON_OFF ... (DCI_SBP_);
 * no unit, discrete. */
#define EXAMPLE_BOOLEAN(                                                       \
    id_, label_, format_, presentation_, stored_, description_)                \
	{                                                                      \
		.info = EXAMPLE_INFO(id_, label_, DCI_ST_BOOLEAN,              \
		    DCI_SBF_##format_, DCI_SBP_##presentation_, 0,             \
		    DCI_SV_STATIC, DCI_UNIT_NONE, DCI_SEMANTICS_DISCRETE,      \
		    description_),                                             \
		EXAMPLE_VALUE_UNSIGNED(stored_)                                \
	}

/* EXAMPLE_INTEGER(id, label, bits, format, presentation, unit, semantics,
 * value, description): type DCI_ST_INTEGER<bits>, format SIGNED_LE ...
 * (the EXAMPLE_ formats above), presentation DECIMAL, HEXADECIMAL or
 * DOTTED (DCI_SIP_). */
#define EXAMPLE_INTEGER(id_, label_, bits_, format_, presentation_, unit_,     \
    semantics_, value_, description_)                                          \
	{                                                                      \
		.info = EXAMPLE_INFO(id_, label_, DCI_ST_INTEGER##bits_,       \
		    EXAMPLE_##format_, DCI_SIP_##presentation_, 0,             \
		    DCI_SV_STATIC, DCI_UNIT_##unit_,                           \
		    DCI_SEMANTICS_##semantics_, description_),                 \
		EXAMPLE_VALUE_##value_                                         \
	}

/* EXAMPLE_ADDRESS(id, label, format, value, description): format
 * ETHERNET, IP or ECONET (DCI_SAF_), presented normally; no unit,
 * discrete. */
#define EXAMPLE_ADDRESS(id_, label_, format_, value_, description_)            \
	{                                                                      \
		.info = EXAMPLE_INFO(id_, label_, DCI_ST_ADDRESS,              \
		    DCI_SAF_##format_, DCI_SAP_NORMAL, 0, DCI_SV_STATIC,       \
		    DCI_UNIT_NONE, DCI_SEMANTICS_DISCRETE, description_),      \
		EXAMPLE_VALUE_##value_                                         \
	}

/* EXAMPLE_TIME(id, label, format, presentation, unit, semantics, value,
 * description): format CTIME, 5BYTE or MONOTONIC (DCI_STF_), presentation
 * ABSOLUTE or RELATIVE (DCI_STP_). */
#define EXAMPLE_TIME(id_, label_, format_, presentation_, unit_, semantics_,   \
    value_, description_)                                                      \
	{                                                                      \
		.info = EXAMPLE_INFO(id_, label_, DCI_ST_TIME,                 \
		    DCI_STF_##format_, DCI_STP_##presentation_, 0,             \
		    DCI_SV_STATIC, DCI_UNIT_##unit_,                           \
		    DCI_SEMANTICS_##semantics_, description_),                 \
		EXAMPLE_VALUE_##value_                                         \
	}

/* Raw values for dci_batch_set_bytes: exactly the datum's size, in the
 * datum's format (byte order included). */
static const unsigned char example_bytes_1234[] = {1, 2, 3, 4};
static const unsigned char example_bytes_12345678[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const unsigned char example_mac[] = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x01};
static const unsigned char example_no_mac[] = {0, 0, 0, 0, 0, 0};
/* 198.51.100.7, already in network order as SAF_IP stores it. */
static const unsigned char example_ip_bytes[] = {198, 51, 100, 7};
/* Econet net 1, station 254. */
static const unsigned char example_econet[] = {1, 254};

static const struct example_datum example_datums[] = {
    /* --- ST_BOOLEAN: every format x every presentation. --------------- */
    EXAMPLE_BOOLEAN(1, "bool_on_off", NORMAL, ON_OFF, 1,
        "Boolean, on/off: stored 1, reads on"),
    EXAMPLE_BOOLEAN(2, "bool_yes_no", NORMAL, YES_NO, 0,
        "Boolean, yes/no: stored 0, reads no"),
    EXAMPLE_BOOLEAN(3, "bool_true_false", NORMAL, TRUE_FALSE, 1,
        "Boolean, true/false: stored 1, reads true"),
    EXAMPLE_BOOLEAN(4, "bool_always_never", NORMAL, ALWAYS_NEVER, 0,
        "Boolean, always/never: stored 0, reads never"),
    EXAMPLE_BOOLEAN(5, "bool_one_zero", NORMAL, ONE_ZERO, 1,
        "Boolean, 1/0: stored 1, reads 1"),
    /* Inverted: stored 1 means false, 0 means true. */
    EXAMPLE_BOOLEAN(6, "inverted_on_off", INVERTED, ON_OFF, 1,
        "Inverted boolean, on/off: stored 1, reads off"),
    EXAMPLE_BOOLEAN(7, "inverted_yes_no", INVERTED, YES_NO, 0,
        "Inverted boolean, yes/no: stored 0, reads yes"),
    EXAMPLE_BOOLEAN(8, "inverted_true_false", INVERTED, TRUE_FALSE, 1,
        "Inverted boolean, true/false: stored 1, reads false"),
    EXAMPLE_BOOLEAN(9, "inverted_always_never", INVERTED, ALWAYS_NEVER, 0,
        "Inverted boolean, always/never: stored 0, reads always"),
    EXAMPLE_BOOLEAN(10, "inverted_one_zero", INVERTED, ONE_ZERO, 1,
        "Inverted boolean, 1/0: stored 1, reads 0"),

    /* --- ST_STRING: the size is the longest value plus its NUL. ------ */
    {.info = EXAMPLE_INFO(11, "text", DCI_ST_STRING, DCI_SSF_ZEROTERM,
         DCI_SSP_LITERAL, 32, DCI_SV_STATIC, DCI_UNIT_NONE,
         DCI_SEMANTICS_DISCRETE, "A string of at most 31 characters"),
        .set = EXAMPLE_SET_STRING,
        .text = "Hello, world"},
    {.info = EXAMPLE_INFO(12, "empty_text", DCI_ST_STRING, DCI_SSF_ZEROTERM,
         DCI_SSP_LITERAL, 8, DCI_SV_STATIC, DCI_UNIT_NONE,
         DCI_SEMANTICS_DISCRETE,
         "An empty string: a value, unlike a datum never set"),
        .set = EXAMPLE_SET_STRING,
        .text = ""},

    /* --- ST_INTEGER8: one byte, so byte order makes no difference. --- */
    EXAMPLE_INTEGER(20, "int8_decimal", 8, SIGNED_LE, DECIMAL, COUNT, GAUGE,
        SIGNED(-2), "Signed 8-bit -2, in decimal"),
    EXAMPLE_INTEGER(21, "int8_hex", 8, SIGNED_BE, HEXADECIMAL, COUNT, GAUGE,
        SIGNED(-2),
        "Signed 8-bit -2, in hexadecimal: its two's complement 0xfe"),
    EXAMPLE_INTEGER(22, "int8_dotted", 8, SIGNED_LE, DOTTED, COUNT, GAUGE,
        SIGNED(-2), "Signed 8-bit -2, dotted: its octet 254"),
    EXAMPLE_INTEGER(23, "uint8_decimal", 8, UNSIGNED_BE, DECIMAL, BYTES, GAUGE,
        UNSIGNED(250), "Unsigned 8-bit gauge 250"),
    EXAMPLE_INTEGER(24, "uint8_hex", 8, UNSIGNED_LE, HEXADECIMAL, BYTES, GAUGE,
        UNSIGNED(250), "Unsigned 8-bit gauge 250, in hexadecimal"),
    EXAMPLE_INTEGER(25, "uint8_counter", 8, UNSIGNED_LE, DECIMAL, PACKETS,
        COUNTER, UNSIGNED(200),
        "Unsigned 8-bit counter 200 (served as Counter32)"),

    /* --- ST_INTEGER16 ------------------------------------------------ */
    EXAMPLE_INTEGER(30, "int16_decimal", 16, SIGNED_LE, DECIMAL, COUNT, GAUGE,
        SIGNED(-2), "Signed 16-bit -2, in decimal"),
    EXAMPLE_INTEGER(31, "int16_hex", 16, SIGNED_BE, HEXADECIMAL, COUNT, GAUGE,
        SIGNED(-2), "Signed 16-bit -2, big-endian, in hexadecimal"),
    EXAMPLE_INTEGER(32, "int16_dotted", 16, SIGNED_LE, DOTTED, COUNT, GAUGE,
        SIGNED(-2), "Signed 16-bit -2, dotted: 255.254"),
    EXAMPLE_INTEGER(33, "uint16_decimal", 16, UNSIGNED_BE, DECIMAL, BYTES,
        GAUGE, UNSIGNED(0x0102),
        "Unsigned 16-bit gauge 0x0102, big-endian, in decimal"),
    EXAMPLE_INTEGER(34, "uint16_hex", 16, UNSIGNED_LE, HEXADECIMAL, BYTES,
        GAUGE, UNSIGNED(0x0102),
        "Unsigned 16-bit gauge 0x0102, little-endian, in hexadecimal"),
    EXAMPLE_INTEGER(35, "uint16_dotted", 16, UNSIGNED_BE, DOTTED, BYTES, GAUGE,
        UNSIGNED(0x0102), "Unsigned 16-bit gauge 0x0102, dotted: 1.2"),
    EXAMPLE_INTEGER(36, "uint16_counter", 16, UNSIGNED_LE, DECIMAL, PACKETS,
        COUNTER, UNSIGNED(65535),
        "Unsigned 16-bit counter at its maximum, 65535"),

    /* --- ST_INTEGER32 ------------------------------------------------ */
    EXAMPLE_INTEGER(40, "int32_decimal", 32, SIGNED_LE, DECIMAL, COUNT, GAUGE,
        SIGNED(-2), "Signed 32-bit -2, in decimal"),
    EXAMPLE_INTEGER(41, "int32_hex", 32, SIGNED_BE, HEXADECIMAL, COUNT, GAUGE,
        SIGNED(-2), "Signed 32-bit -2, big-endian, in hexadecimal"),
    EXAMPLE_INTEGER(42, "int32_dotted", 32, SIGNED_LE, DOTTED, COUNT, GAUGE,
        SIGNED(-2), "Signed 32-bit -2, dotted: 255.255.255.254"),
    EXAMPLE_INTEGER(43, "uint32_gauge", 32, UNSIGNED_LE, DECIMAL, BYTES, GAUGE,
        UNSIGNED(0x01020304),
        "Unsigned 32-bit gauge 0x01020304, little-endian, in decimal"),
    EXAMPLE_INTEGER(44, "uint32_hex", 32, UNSIGNED_BE, HEXADECIMAL, BYTES,
        GAUGE, UNSIGNED(0x01020304),
        "Unsigned 32-bit gauge 0x01020304, big-endian, in hexadecimal"),
    /* Dotted integers are how DCI4 showed addresses before ST_ADDRESS. */
    EXAMPLE_INTEGER(45, "uint32_dotted", 32, UNSIGNED_BE, DOTTED, NONE, GAUGE,
        UNSIGNED(0xc0000201), "Unsigned 32-bit 0xc0000201, dotted: 192.0.2.1"),
    EXAMPLE_INTEGER(46, "uint32_counter", 32, UNSIGNED_LE, DECIMAL, PACKETS,
        COUNTER, UNSIGNED(4000000000u),
        "Unsigned 32-bit counter 4000000000 (above 2^31: not negative)"),
    /* The same four bytes, read in the two byte orders. */
    EXAMPLE_INTEGER(47, "raw32_little", 32, UNSIGNED_LE, HEXADECIMAL, NONE,
        GAUGE, BYTES(example_bytes_1234),
        "Bytes 01 02 03 04 given raw to a little-endian datum: 0x4030201"),
    EXAMPLE_INTEGER(48, "raw32_big", 32, UNSIGNED_BE, HEXADECIMAL, NONE, GAUGE,
        BYTES(example_bytes_1234),
        "Bytes 01 02 03 04 given raw to a big-endian datum: 0x1020304"),
    EXAMPLE_INTEGER(49, "instance_number", 32, UNSIGNED_LE, DECIMAL, NONE,
        DISCRETE, COMPUTED(EXAMPLE_SET_INSTANCE),
        "The instance's id: the one value that differs between instances"),

    /* --- ST_INTEGER64 ------------------------------------------------ */
    EXAMPLE_INTEGER(50, "int64_decimal", 64, SIGNED_LE, DECIMAL, COUNT, GAUGE,
        SIGNED(-2), "Signed 64-bit -2, in decimal (no SNMP type: text only)"),
    EXAMPLE_INTEGER(51, "int64_hex", 64, SIGNED_BE, HEXADECIMAL, COUNT, GAUGE,
        SIGNED(-2), "Signed 64-bit -2, big-endian, in hexadecimal (text only)"),
    EXAMPLE_INTEGER(52, "int64_dotted", 64, SIGNED_LE, DOTTED, COUNT, GAUGE,
        SIGNED(INT64_C(0x0102030405060708)),
        "Signed 64-bit 0x0102030405060708, dotted (text only)"),
    EXAMPLE_INTEGER(53, "uint64_gauge", 64, UNSIGNED_LE, DECIMAL, BYTES, GAUGE,
        UNSIGNED(UINT64_C(0x0102030405060708)),
        "Unsigned 64-bit gauge 0x0102030405060708, in decimal"),
    EXAMPLE_INTEGER(54, "uint64_hex", 64, UNSIGNED_BE, HEXADECIMAL, BYTES,
        GAUGE, UNSIGNED(UINT64_C(0x0102030405060708)),
        "Unsigned 64-bit gauge 0x0102030405060708, big-endian, in "
        "hexadecimal"),
    EXAMPLE_INTEGER(55, "uint64_counter", 64, UNSIGNED_BE, DECIMAL, OCTETS,
        COUNTER, UNSIGNED(UINT64_C(10000000000000000000)),
        "Unsigned 64-bit counter 10^19 (above 2^63: not negative)"),
    /* The one value that changes: a counter must only grow. Were it to go
     * back, dcistatd would set the instance's discontinuity time. */
    {.info = EXAMPLE_INFO(56, "refreshes", DCI_ST_INTEGER64,
         EXAMPLE_UNSIGNED_LE, DCI_SIP_DECIMAL, 0, DCI_SV_VOLATILE,
         DCI_UNIT_EVENTS, DCI_SEMANTICS_COUNTER,
         "Refreshes of this provider so far: grows by 1 each refresh"),
        .set = EXAMPLE_SET_REFRESHES},
    EXAMPLE_INTEGER(57, "raw64_little", 64, UNSIGNED_LE, HEXADECIMAL, NONE,
        GAUGE, BYTES(example_bytes_12345678),
        "Bytes 01..08 given raw to a little-endian datum: "
        "0x807060504030201"),
    EXAMPLE_INTEGER(58, "raw64_big", 64, UNSIGNED_BE, HEXADECIMAL, NONE, GAUGE,
        BYTES(example_bytes_12345678),
        "Bytes 01..08 given raw to a big-endian datum: 0x102030405060708"),

    /* --- ST_ADDRESS -------------------------------------------------- */
    EXAMPLE_ADDRESS(60, "mac_address", ETHERNET, BYTES(example_mac),
        "Ethernet address 02:00:5e:10:00:01 (documentation range)"),
    /* An IP address as a number is in host order; the host stores it in
     * network order. */
    EXAMPLE_ADDRESS(61, "ip_address", IP, UNSIGNED(0xc0000201),
        "IP address 192.0.2.1, set as a number"),
    EXAMPLE_ADDRESS(62, "ip_address_bytes", IP, BYTES(example_ip_bytes),
        "IP address 198.51.100.7, set as bytes in network order"),
    EXAMPLE_ADDRESS(63, "econet_address", ECONET, BYTES(example_econet),
        "Econet address net 1, station 254"),
    EXAMPLE_ADDRESS(64, "no_mac_address", ETHERNET, BYTES(example_no_mac),
        "Ethernet address 0: no address"),
    EXAMPLE_ADDRESS(
        65, "no_ip_address", IP, UNSIGNED(0), "IP address 0: no address"),

    /* --- ST_TIME: every format x every presentation, and 0. ---------- */
    EXAMPLE_TIME(70, "ctime_absolute", CTIME, ABSOLUTE, SECONDS, DISCRETE,
        SIGNED(EXAMPLE_NEW_YEAR_CTIME),
        "2026-01-01 00:00:00 UTC as seconds since 1970"),
    EXAMPLE_TIME(71, "ctime_relative", CTIME, RELATIVE, SECONDS, GAUGE,
        SIGNED(90), "A duration of 90 seconds"),
    EXAMPLE_TIME(72, "fivebyte_absolute", 5BYTE, ABSOLUTE, CENTISECONDS,
        DISCRETE, UNSIGNED(EXAMPLE_NEW_YEAR_5BYTE),
        "2026-01-01 00:00:00 UTC as centiseconds since 1900"),
    EXAMPLE_TIME(73, "fivebyte_relative", 5BYTE, RELATIVE, CENTISECONDS, GAUGE,
        UNSIGNED(12345), "A duration of 12345 centiseconds"),
    EXAMPLE_TIME(74, "monotonic_absolute", MONOTONIC, ABSOLUTE, CENTISECONDS,
        DISCRETE, COMPUTED(EXAMPLE_SET_INIT_TIME),
        "When this provider started (CLOCK_MONOTONIC at init)"),
    EXAMPLE_TIME(75, "monotonic_relative", MONOTONIC, RELATIVE, CENTISECONDS,
        GAUGE, UNSIGNED(250), "A duration of 250 centiseconds"),
    EXAMPLE_TIME(76, "time_none", CTIME, ABSOLUTE, SECONDS, DISCRETE, SIGNED(0),
        "Time 0: no time given"),
    EXAMPLE_TIME(77, "duration_none", MONOTONIC, RELATIVE, CENTISECONDS, GAUGE,
        UNSIGNED(0), "Duration 0: no period given"),

    /* A zero, for the derived metric that would divide by it. */
    EXAMPLE_INTEGER(59, "uint32_zero", 32, UNSIGNED_LE, DECIMAL, COUNT, GAUGE,
        UNSIGNED(0), "Unsigned 32-bit 0"),

    /* --- Derived metrics (UMA_DERIVED): the host computes them from the
     * other datums of the same instance at each commit; the provider
     * declares them and never sets them. The id carries the arguments
     * (DCI_DERIVED_DATUM_ID); the unit says how they combine; format,
     * presentation, size and semantics are left 0 for the host to set. */
    {.info = EXAMPLE_DERIVED(23, 33, 0, 80, "derived_sum2",
         DCI_UNIT_DERIVED_SUM2, "uint8_decimal + uint16_decimal: 508"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(25, 36, 46, 81, "derived_sum3",
         DCI_UNIT_DERIVED_SUM3,
         "uint8_counter + uint16_counter + uint32_counter: 4000065735, "
         "a counter"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(43, 33, 0, 82, "derived_difference",
         DCI_UNIT_DERIVED_DIFFERENCE,
         "uint32_gauge - uint16_decimal: 16908802"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(33, 43, 0, 83, "derived_negative",
         DCI_UNIT_DERIVED_DIFFERENCE,
         "uint16_decimal - uint32_gauge: negative, so no row"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(20, 23, 0, 84, "derived_signed",
         DCI_UNIT_DERIVED_DIFFERENCE,
         "int8_decimal - uint8_decimal: -252, an Integer32"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(33, 25, 0, 85, "derived_average",
         DCI_UNIT_DERIVED_AVERAGE, "uint16_decimal / uint8_counter: 1.29"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(25, 23, 0, 86, "derived_percent",
         DCI_UNIT_DERIVED_PERCENT,
         "uint8_counter / (uint8_counter + uint8_decimal): 44.44%"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(23, 33, 0, 87, "derived_product",
         DCI_UNIT_DERIVED_PRODUCT, "uint8_decimal * uint16_decimal: 64500"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(55, 53, 0, 88, "derived_overflow",
         DCI_UNIT_DERIVED_PRODUCT,
         "uint64_counter * uint64_gauge: above 2^64, so no row"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(25, 33, 36, 89, "derived_variance",
         DCI_UNIT_DERIVED_VARIANCE,
         "count uint8_counter, sum uint16_decimal, sum of squares "
         "uint16_counter: 326.01"),
        .set = EXAMPLE_SET_NOTHING},
    {.info = EXAMPLE_DERIVED(23, 59, 0, 90, "derived_by_zero",
         DCI_UNIT_DERIVED_AVERAGE,
         "uint8_decimal / uint32_zero: a division by zero, so no row"),
        .set = EXAMPLE_SET_NOTHING},

    /* --- ST_UNUSED: size 0; DCI4 says its other fields mean nothing, the
     * host checks only the size, id and label. --------------------------*/
    {.info = EXAMPLE_INFO(99, "reserved", DCI_ST_UNUSED, 0, 0, 0, DCI_SV_STATIC,
         DCI_UNIT_NONE, DCI_SEMANTICS_DISCRETE,
         "Reserved for a later datum: never has a value"),
        .set = EXAMPLE_SET_NOTHING},
};

#define EXAMPLE_DATUM_COUNT (sizeof example_datums / sizeof example_datums[0])

/* What the provider keeps between callbacks (init allocates it, fini frees
 * it; the host hands it back to every callback). */
struct example_context {
	struct dci_class *class_handle; /* owned by the host until fini */
	uint32_t instances;             /* option instances: N */
	int64_t churn_milliseconds;     /* option churn_seconds; 0: off */
	bool transient_present;         /* instance N+1 served now */
	int64_t transient_toggle_at;    /* monotonic ms of the next change */
	uint64_t refreshes;             /* value of datum 56 */
	uint64_t init_centiseconds;     /* value of datum 74 */
};

/* CLOCK_MONOTONIC in milliseconds: the timer of the transient instance.
 * Never the wall clock, which can be set backwards. */
static int64_t
example_monotonic_milliseconds(void)
{
	struct timespec now;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return 0;
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static int
example_init(struct dci_host *host, void **context_pointer)
{
	struct example_context *context;
	struct dci_supplier *supplier;
	struct dci_datum_info infos[EXAMPLE_DATUM_COUNT];
	struct dci_class_info class_info;
	uint64_t instances, churn_seconds;

	context = calloc(1, sizeof *context);
	if (context == NULL) {
		dci_log(host, DCI_LOG_ERR, "cannot allocate context");
		return -1;
	}
	/* Set before anything can fail: fini is called after a failed init
	 * too, and frees it. */
	*context_pointer = context;

	/* Options first: a typo should fail before anything is registered.
	 * Unknown keys never get here; the host refuses them using
	 * option_keys. */
	if (provider_option_unsigned(host, "instances", 1,
	        EXAMPLE_INSTANCES_MAX, EXAMPLE_INSTANCES_DEFAULT,
	        &instances) != 0 ||
	    provider_option_unsigned(host, "churn_seconds", 0,
	        EXAMPLE_CHURN_MAX_SECONDS, EXAMPLE_CHURN_DEFAULT_SECONDS,
	        &churn_seconds) != 0)
		return -1;
	context->instances = (uint32_t)instances;
	context->churn_milliseconds = (int64_t)churn_seconds * 1000;
	/* 0 would read as "no time" (DCI4), so a clock read as 0 becomes
	 * 1 centisecond. */
	context->init_centiseconds =
	    (uint64_t)example_monotonic_milliseconds() / 10;
	if (context->init_centiseconds == 0)
		context->init_centiseconds = 1;

	supplier = dci_supplier_register(host, &example_supplier);
	if (supplier == NULL)
		return -1; /* the host logged why */

	/* The host wants an array of struct dci_datum_info; ours sit in a
	 * larger table with their values. The host copies what it is given,
	 * so a local array is fine. */
	for (size_t i = 0; i < EXAMPLE_DATUM_COUNT; i++)
		infos[i] = example_datums[i].info;
	class_info = (struct dci_class_info){
	    .id = example_class_id,
	    .id_length = sizeof example_class_id / sizeof example_class_id[0],
	    .label = "example",
	    .description = "Every DCI4 type, format and presentation, with "
	                   "fixed values; one instance per unit",
	    .levels = example_levels,
	    .level_count = sizeof example_levels / sizeof example_levels[0],
	    .datums = infos,
	    .datum_count = EXAMPLE_DATUM_COUNT,
	};
	context->class_handle = dci_class_register(host, supplier, &class_info);
	if (context->class_handle == NULL)
		return -1; /* the host logged which datum it refused, and why */

	dci_log(host, DCI_LOG_INFO, "%u instances, transient instance %s",
	    context->instances, churn_seconds > 0 ? "on" : "off");
	return 0;
}

/*
 * The values of one row, prepared once per refresh, in the order of the
 * datum table: every integer value (booleans, times and IP addresses
 * included) as one array for dci_batch_set_row, and every string and raw
 * value as one array for dci_batch_set_row_bytes, so that a row takes two
 * calls however many datums it has; the instance's id is written into its
 * slots per row.
 */
struct example_row {
	struct dci_row_value numbers[EXAMPLE_DATUM_COUNT];
	size_t number_count;
	size_t instance_slots[EXAMPLE_DATUM_COUNT]; /* in numbers */
	size_t instance_slot_count;
	struct dci_row_bytes bytes[EXAMPLE_DATUM_COUNT];
	size_t bytes_count;
};

static void
example_row_prepare(
    struct example_row *values, const struct example_context *context)
{
	values->number_count = 0;
	values->instance_slot_count = 0;
	values->bytes_count = 0;
	for (size_t i = 0; i < EXAMPLE_DATUM_COUNT; i++) {
		const struct example_datum *datum = &example_datums[i];
		struct dci_row_value *next =
		    &values->numbers[values->number_count];
		uint32_t datum_id = datum->info.id;

		switch (datum->set) {
		case EXAMPLE_SET_UNSIGNED:
			*next = dci_row_unsigned(datum_id, datum->number);
			break;
		case EXAMPLE_SET_SIGNED:
			*next = dci_row_signed(datum_id, datum->signed_number);
			break;
		case EXAMPLE_SET_INSTANCE:
			values->instance_slots[values->instance_slot_count++] =
			    values->number_count;
			*next = dci_row_unsigned(datum_id, 0);
			break;
		case EXAMPLE_SET_REFRESHES:
			*next = dci_row_unsigned(datum_id, context->refreshes);
			break;
		case EXAMPLE_SET_INIT_TIME:
			*next = dci_row_unsigned(
			    datum_id, context->init_centiseconds);
			break;
		case EXAMPLE_SET_BYTES:
			values->bytes[values->bytes_count++] =
			    dci_row_raw(datum_id, datum->bytes, datum->length);
			continue;
		case EXAMPLE_SET_STRING:
			values->bytes[values->bytes_count++] =
			    dci_row_string(datum_id, datum->text);
			continue;
		case EXAMPLE_SET_NOTHING:
			/* A datum never set has no value: its rows are
			 * absent, never a made-up zero. */
			continue;
		}
		values->number_count++;
	}
}

/*
 * Stores every datum of instance `id` in row `row`. The setters' results
 * are not checked: a value the host refuses (one that does not fit its
 * datum, say) is left out, that row is absent, and the host logs the first
 * refusal once per batch at commit, naming the datum and the reason. Every
 * value here is fixed, so a refusal would be a bug in this file, and the
 * integration test, which reads every datum, would catch it.
 */
static void
example_set_row(
    struct dci_batch *batch, long row, struct example_row *values, uint32_t id)
{
	for (size_t i = 0; i < values->instance_slot_count; i++)
		values->numbers[values->instance_slots[i]].number = id;
	dci_batch_set_row(batch, row, values->numbers, values->number_count);
	dci_batch_set_row_bytes(batch, row, values->bytes, values->bytes_count);
}

/* Adds instance `id` labelled `label` with all its values. */
static void
example_add_instance(struct dci_batch *batch, struct example_row *values,
    uint32_t id, const char *label)
{
	/* One level of one word: the id is a single uint32_t. The host
	 * copies the label, so a stack buffer will do. */
	long row = dci_batch_instance(batch, &id, 1, label);

	/* -1: the host refused the instance (a bad label) and will log why
	 * at commit; there is no row to fill. */
	if (row >= 0)
		example_set_row(batch, row, values, id);
}

/* Writes "unit<id>" into `label` (EXAMPLE_LABEL_SIZE bytes), the decimal
 * digits by hand: snprintf parses its format at every call, which at a
 * million rows cost more than the host's whole handling of the label. */
static void
example_unit_label(char label[EXAMPLE_LABEL_SIZE], uint32_t id)
{
	char digits[10]; /* UINT32_MAX has 10 */
	size_t count = 0, used = 4;

	memcpy(label, "unit", used);
	do {
		digits[count++] = (char)('0' + id % 10);
		id /= 10;
	} while (id != 0);
	while (count > 0)
		label[used++] = digits[--count];
	label[used] = '\0';
}

/*
 * Publishes the class's next state: every instance that exists now, with
 * all its values, in one batch. A batch is the whole state, so the
 * transient instance is removed simply by not adding it. The work is one
 * pass over instances x datums, and the provider allocates nothing here:
 * labels are formatted into a stack buffer, which the host copies. The
 * host sorts the batch at commit, so instances may come in any order.
 */
static int
example_refresh(struct dci_host *host, void *opaque)
{
	struct example_context *context = opaque;
	int64_t now = example_monotonic_milliseconds();
	char label[EXAMPLE_LABEL_SIZE];
	struct example_row values;
	struct dci_batch *batch;

	context->refreshes++;
	/* The transient instance changes at the first refresh at or after
	 * its time; the first refresh of all adds it. */
	if (context->churn_milliseconds > 0 &&
	    now >= context->transient_toggle_at) {
		context->transient_present = !context->transient_present;
		context->transient_toggle_at =
		    now + context->churn_milliseconds;
	}

	batch = dci_batch_begin(host, context->class_handle);
	if (batch == NULL)
		return -1; /* the host logged why */
	example_row_prepare(&values, context);
	for (uint32_t id = 1; id <= context->instances; id++) {
		example_unit_label(label, id);
		example_add_instance(batch, &values, id, label);
	}
	if (context->transient_present)
		example_add_instance(
		    batch, &values, context->instances + 1, "transient");
	/* The new snapshot replaces the old one at once: a manager sees the
	 * previous refresh or this one, never half of one. On failure (out
	 * of memory) the host keeps the previous snapshot and logs why;
	 * returning -1 makes it retry later. */
	return dci_batch_commit(batch);
}

static void
example_fini(struct dci_host *host, void *opaque)
{
	(void)host;
	/* NULL when init failed before allocating it. */
	free(opaque);
}

/* Every option key the provider reads; any other is a configuration error,
 * reported by the host with its position. */
static const char *const example_option_keys[] = {
    "instances", "churn_seconds", NULL};

DCI_PROVIDER_DEFINE = {
    .abi_version = DCI_PROVIDER_ABI_VERSION,
    .name = "example",
    .description = "Documented example: fixed values of every DCI4 type",
    .option_keys = example_option_keys,
    .init = example_init,
    .refresh = example_refresh,
    .fini = example_fini,
};
