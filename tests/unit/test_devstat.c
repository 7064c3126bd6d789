/*
 * Unit tests of the devstat provider's host-independent parts: parsing of
 * recorded /proc/diskstats samples (diskstats.c), the device table that
 * follows devices across refreshes, and the classification of devices from
 * a fake sysfs tree built in a temporary directory (devstat_device.c), and
 * the helpers the providers share (src/providers/common/), which devstat
 * uses all of: growable arrays, include/exclude patterns read through a
 * fake host, whole-file reads, the monotonic clock.
 *
 * Every sample is handed to the parser in a heap block of exactly its
 * length, without a NUL, so AddressSanitizer catches any read past it.
 */
#define _GNU_SOURCE

#include "providers/devstat/devstat_device.h"
#include "providers/devstat/diskstats.h"
#include "providers/common/clock.h"
#include "providers/common/file_buffer.h"
#include "providers/common/growable.h"
#include "providers/common/patterns.h"
#include "providers/common/warnings.h"

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_runner.h"

#define ALL_FIELDS ((UINT32_C(1) << DISKSTATS_FIELD_COUNT) - 1)
#define FIRST_FIELDS(count) ((UINT32_C(1) << (count)) - 1)

/* Linux 6.x on a virtual machine: 17 fields. */
static const char sample_modern[] =
    " 252       0 vda 172286 14186 9391882 329134 32075 13802 2127168 8230 "
    "0 16424 339313 14738 72 1473504 1706 6184 241\n"
    " 252       1 vda1 171900 14186 9380100 328990 31990 13802 2127100 "
    "8200 0 16300 337190 14738 72 1473504 1706 0 0\n"
    " 259       0 nvme0n1 5123456 1024 412345678 1234567 9876543 54321 "
    "987654321 7654321 3 2345678 8901234 120 0 98765432 4321 234567 89012\n"
    " 259       1 nvme0n1p1 5120000 1024 412300000 1234000 9876000 54321 "
    "987650000 7654000 0 2345000 8900000 120 0 98765432 4321 0 0\n"
    "  11       0 sr0 12 0 2058 31 0 0 0 0 0 44 31 0 0 0 0 0 0\n"
    "   7       0 loop0 57 0 2210 13 0 0 0 0 0 40 13 0 0 0 0 0 0\n"
    " 253       0 dm-0 160200 0 9100000 400100 45800 0 2120000 19800 0 "
    "16500 419900 14800 0 1473504 1800 0 0\n";

/* Linux 4.x before 4.18: 11 fields. */
static const char sample_11[] =
    "   8       0 sda 2651470 59893 159240014 2170388 3498716 3117010 "
    "127430592 11836252 0 2958784 14004988\n"
    "   8       1 sda1 1256 0 10032 512 2 0 2 0 0 508 512\n";

/* Linux 4.18 to 5.4: 15 fields. */
static const char sample_15[] =
    " 259       0 nvme0n1 208345 27 13094442 43562 517342 254617 23145968 "
    "381247 0 219516 424809 1024 5 2097152 960\n";

/* Linux 2.6 before 2.6.25: partitions have only four fields. */
static const char sample_ancient[] =
    "   3    0 hda 446216 784926 9550688 4382310 424847 312726 5922052 "
    "19310380 0 3376340 23705160\n"
    "   3    1 hda1 35486 38030 29 232\n";

/* A kernel later than 6.x with two more fields. */
static const char sample_future[] =
    "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n"
    "   8      16 sdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 "
    "not-even-a-number\n";

/* Good lines around malformed ones (lines 2, 3, 4, 6, 7, 8, 9, 10, 11). */
static const char sample_malformed[] =
    "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
    "   8       1 sda1 1 2 3 4 5 6 7\n"
    "   8       2 sda2 1 2 abc 4 5 6 7 8 9 10 11\n"
    "   8       3 a123456789b123456789c123456789d123456789e123456789"
    "f123456789xyzw 1 2 3 4 5 6 7 8 9 10 11\n"
    "   8      16 sdb 21 22 23 24 25 26 27 28 29 30 31\n"
    "   8      17\n"
    "   x      18 sdb2 1 2 3 4 5 6 7 8 9 10 11\n"
    "   8      19 sdb3 1 2 3 -4 5 6 7 8 9 10 11\n"
    "   8      20 sdb4 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
    "   8      21 sdb5\n"
    "   8 4294967296 sdb6 1 2 3 4 5 6 7 8 9 10 11\n"
    "   8      32 sdc 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57\n"
    "   9\n";

/* What the warn callback was told. */
struct test_warnings {
	unsigned lines[16];
	char messages[16][128];
	size_t count;
};

static void
test_record_warning(void *opaque, unsigned line_number, const char *message)
{
	struct test_warnings *warnings = opaque;

	if (warnings->count < 16) {
		warnings->lines[warnings->count] = line_number;
		snprintf(warnings->messages[warnings->count],
		    sizeof warnings->messages[0], "%s", message);
	}
	warnings->count++;
}

/* Parses length bytes of text from an exact-size heap copy, without NUL. */
static int
test_parse_bytes(const char *text, size_t length, struct diskstats_list *list,
    struct test_warnings *warnings)
{
	char *copy = malloc(length == 0 ? 1 : length);
	int result;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, text, length);
	result = diskstats_parse(copy, length, list,
	    warnings != NULL ? test_record_warning : NULL, warnings);
	free(copy);
	return result;
}

static int
test_parse(const char *text, struct diskstats_list *list,
    struct test_warnings *warnings)
{
	return test_parse_bytes(text, strlen(text), list, warnings);
}

static void
test_assert_fields(
    const struct diskstats_entry *entry, const uint64_t *expected, size_t count)
{
	for (size_t i = 0; i < count; i++)
		ck_assert_msg(entry->fields[i] == expected[i],
		    "%s field %zu: %llu, expected %llu", entry->name, i + 1,
		    (unsigned long long)entry->fields[i],
		    (unsigned long long)expected[i]);
}

START_TEST(test_parse_modern)
{
	static const uint64_t vda[DISKSTATS_FIELD_COUNT] = {172286, 14186,
	    9391882, 329134, 32075, 13802, 2127168, 8230, 0, 16424, 339313,
	    14738, 72, 1473504, 1706, 6184, 241};
	static const uint64_t nvme[DISKSTATS_FIELD_COUNT] = {5123456, 1024,
	    412345678, 1234567, 9876543, 54321, 987654321, 7654321, 3, 2345678,
	    8901234, 120, 0, 98765432, 4321, 234567, 89012};
	static const struct {
		uint32_t major;
		uint32_t minor;
		const char *name;
	} expected[] = {{252, 0, "vda"}, {252, 1, "vda1"}, {259, 0, "nvme0n1"},
	    {259, 1, "nvme0n1p1"}, {11, 0, "sr0"}, {7, 0, "loop0"},
	    {253, 0, "dm-0"}};
	struct diskstats_list list = {0};
	struct test_warnings warnings = {.count = 0};

	ck_assert_int_eq(test_parse(sample_modern, &list, &warnings), 0);
	ck_assert_uint_eq(warnings.count, 0);
	ck_assert_uint_eq(list.count, 7);
	for (size_t i = 0; i < 7; i++) {
		ck_assert_uint_eq(list.items[i].major, expected[i].major);
		ck_assert_uint_eq(list.items[i].minor, expected[i].minor);
		ck_assert_str_eq(list.items[i].name, expected[i].name);
		ck_assert_uint_eq(list.items[i].present, ALL_FIELDS);
		ck_assert_uint_eq(list.items[i].line_number, i + 1);
	}
	test_assert_fields(&list.items[0], vda, DISKSTATS_FIELD_COUNT);
	test_assert_fields(&list.items[2], nvme, DISKSTATS_FIELD_COUNT);
	ck_assert_uint_eq(list.items[4].fields[DISKSTATS_SECTORS_READ], 2058);
	ck_assert_uint_eq(list.items[6].fields[DISKSTATS_WEIGHTED_MS], 419900);
	ck_assert_uint_eq(list.items[6].fields[DISKSTATS_FLUSH_MS], 0);
	diskstats_list_free(&list);
	ck_assert_ptr_null(list.items);
}
END_TEST

START_TEST(test_parse_eleven_fields)
{
	static const uint64_t sda[11] = {2651470, 59893, 159240014, 2170388,
	    3498716, 3117010, 127430592, 11836252, 0, 2958784, 14004988};
	struct diskstats_list list = {0};
	struct test_warnings warnings = {.count = 0};

	ck_assert_int_eq(test_parse(sample_11, &list, &warnings), 0);
	ck_assert_uint_eq(warnings.count, 0);
	ck_assert_uint_eq(list.count, 2);
	ck_assert_str_eq(list.items[0].name, "sda");
	ck_assert_uint_eq(list.items[0].major, 8);
	ck_assert_uint_eq(list.items[0].minor, 0);
	/* Discards and flushes are absent, not zero. */
	ck_assert_uint_eq(list.items[0].present, FIRST_FIELDS(11));
	ck_assert_uint_eq(list.items[1].present, FIRST_FIELDS(11));
	test_assert_fields(&list.items[0], sda, 11);
	ck_assert_uint_eq(list.items[0].fields[DISKSTATS_DISCARDS], 0);
	ck_assert_str_eq(list.items[1].name, "sda1");
	ck_assert_uint_eq(list.items[1].fields[DISKSTATS_SECTORS_READ], 10032);
	ck_assert_uint_eq(list.items[1].fields[DISKSTATS_WEIGHTED_MS], 512);
	diskstats_list_free(&list);
}
END_TEST

START_TEST(test_parse_fifteen_fields)
{
	static const uint64_t nvme[15] = {208345, 27, 13094442, 43562, 517342,
	    254617, 23145968, 381247, 0, 219516, 424809, 1024, 5, 2097152, 960};
	struct diskstats_list list = {0};

	ck_assert_int_eq(test_parse(sample_15, &list, NULL), 0);
	ck_assert_uint_eq(list.count, 1);
	ck_assert_str_eq(list.items[0].name, "nvme0n1");
	ck_assert_uint_eq(list.items[0].present, FIRST_FIELDS(15));
	ck_assert(
	    (list.items[0].present & DISKSTATS_BIT(DISKSTATS_FLUSHES)) == 0);
	test_assert_fields(&list.items[0], nvme, 15);
	diskstats_list_free(&list);
}
END_TEST

START_TEST(test_parse_ancient_partition)
{
	struct diskstats_list list = {0};
	struct test_warnings warnings = {.count = 0};
	const struct diskstats_entry *partition;

	ck_assert_int_eq(test_parse(sample_ancient, &list, &warnings), 0);
	ck_assert_uint_eq(warnings.count, 0);
	ck_assert_uint_eq(list.count, 2);
	ck_assert_uint_eq(list.items[0].present, FIRST_FIELDS(11));
	ck_assert_uint_eq(
	    list.items[0].fields[DISKSTATS_WEIGHTED_MS], 23705160);

	/* reads, sectors read, writes, sectors written: fields 1, 3, 5, 7. */
	partition = &list.items[1];
	ck_assert_str_eq(partition->name, "hda1");
	ck_assert_uint_eq(partition->major, 3);
	ck_assert_uint_eq(partition->minor, 1);
	ck_assert_uint_eq(
	    partition->present, DISKSTATS_BIT(DISKSTATS_READS) |
	                            DISKSTATS_BIT(DISKSTATS_SECTORS_READ) |
	                            DISKSTATS_BIT(DISKSTATS_WRITES) |
	                            DISKSTATS_BIT(DISKSTATS_SECTORS_WRITTEN));
	ck_assert_uint_eq(partition->fields[DISKSTATS_READS], 35486);
	ck_assert_uint_eq(partition->fields[DISKSTATS_SECTORS_READ], 38030);
	ck_assert_uint_eq(partition->fields[DISKSTATS_WRITES], 29);
	ck_assert_uint_eq(partition->fields[DISKSTATS_SECTORS_WRITTEN], 232);
	ck_assert_uint_eq(partition->fields[DISKSTATS_READS_MERGED], 0);
	diskstats_list_free(&list);
}
END_TEST

START_TEST(test_parse_future_fields)
{
	struct diskstats_list list = {0};
	struct test_warnings warnings = {.count = 0};

	ck_assert_int_eq(test_parse(sample_future, &list, &warnings), 0);
	ck_assert_uint_eq(warnings.count, 0);
	ck_assert_uint_eq(list.count, 2);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_uint_eq(list.items[i].present, ALL_FIELDS);
		for (size_t field = 0; field < DISKSTATS_FIELD_COUNT; field++)
			ck_assert_uint_eq(
			    list.items[i].fields[field], field + 1);
	}
	ck_assert_str_eq(list.items[1].name, "sdb");
	diskstats_list_free(&list);
}
END_TEST

START_TEST(test_parse_malformed_lines)
{
	static const struct {
		unsigned line;
		const char *says;
	} expected[] = {
	    {2, "7 statistics"},
	    {3, "statistic 3 is not a decimal number"},
	    {4, "longer than 63"},
	    {6, "no device name"},
	    {7, "major number is not"},
	    {8, "statistic 4 is not a decimal number"},
	    {9, "16 statistics"},
	    {10, "no statistics"},
	    {11, "minor number exceeds"},
	    {13, "no minor number"},
	};
	const size_t expected_count = sizeof expected / sizeof expected[0];
	struct diskstats_list list = {0};
	struct test_warnings warnings = {.count = 0};

	ck_assert_int_eq(test_parse(sample_malformed, &list, &warnings), 0);
	ck_assert_uint_eq(warnings.count, expected_count);
	for (size_t i = 0; i < expected_count; i++) {
		ck_assert_uint_eq(warnings.lines[i], expected[i].line);
		ck_assert_msg(
		    strstr(warnings.messages[i], expected[i].says) != NULL,
		    "line %u: \"%s\" lacks \"%s\"", expected[i].line,
		    warnings.messages[i], expected[i].says);
	}

	/* The good lines are kept, with exact values. */
	ck_assert_uint_eq(list.count, 3);
	ck_assert_str_eq(list.items[0].name, "sda");
	ck_assert_uint_eq(list.items[0].line_number, 1);
	ck_assert_uint_eq(list.items[0].fields[DISKSTATS_FLUSH_MS], 17);
	ck_assert_str_eq(list.items[1].name, "sdb");
	ck_assert_uint_eq(list.items[1].line_number, 5);
	ck_assert_uint_eq(list.items[1].minor, 16);
	ck_assert_uint_eq(list.items[1].present, FIRST_FIELDS(11));
	for (size_t field = 0; field < 11; field++)
		ck_assert_uint_eq(list.items[1].fields[field], 21 + field);
	ck_assert_str_eq(list.items[2].name, "sdc");
	ck_assert_uint_eq(list.items[2].line_number, 12);
	for (size_t field = 0; field < DISKSTATS_FIELD_COUNT; field++)
		ck_assert_uint_eq(list.items[2].fields[field], 41 + field);
	diskstats_list_free(&list);
}
END_TEST

START_TEST(test_parse_large_values)
{
	static const char text[] =
	    "8 0 sda 4294967295 4294967296 18446744073709551615 4294967295 "
	    "00000000000000000000000042 0 9007199254740993 0 0 0 0\n"
	    "8 1 sda1 18446744073709551616 0 0 0 0 0 0 0 0 0 0\n"
	    "8 2 sda2 99999999999999999999 0 0 0 0 0 0 0 0 0 0\n"
	    "4294967295 4294967295 big 1 2 3 4\n";
	struct diskstats_list list = {0};
	struct test_warnings warnings = {.count = 0};
	const struct diskstats_entry *entry;

	ck_assert_int_eq(test_parse(text, &list, &warnings), 0);
	ck_assert_uint_eq(list.count, 2);
	entry = &list.items[0];
	ck_assert_uint_eq(entry->fields[DISKSTATS_READS], UINT64_C(4294967295));
	ck_assert_uint_eq(
	    entry->fields[DISKSTATS_READS_MERGED], UINT64_C(4294967296));
	ck_assert_uint_eq(entry->fields[DISKSTATS_SECTORS_READ], UINT64_MAX);
	ck_assert_uint_eq(entry->fields[DISKSTATS_READ_MS], UINT32_MAX);
	ck_assert_uint_eq(entry->fields[DISKSTATS_WRITES], 42);
	/* Above 2^53: no detour through a double. */
	ck_assert_uint_eq(entry->fields[DISKSTATS_SECTORS_WRITTEN],
	    UINT64_C(9007199254740993));
	ck_assert_uint_eq(list.items[1].major, UINT32_MAX);
	ck_assert_uint_eq(list.items[1].minor, UINT32_MAX);
	ck_assert_uint_eq(list.items[1].fields[DISKSTATS_SECTORS_WRITTEN], 4);

	/* 2^64 and beyond do not fit. */
	ck_assert_uint_eq(warnings.count, 2);
	ck_assert_uint_eq(warnings.lines[0], 2);
	ck_assert_str_eq(warnings.messages[0], "statistic 1 exceeds 2^64-1");
	ck_assert_uint_eq(warnings.lines[1], 3);
	ck_assert_str_eq(warnings.messages[1], "statistic 1 exceeds 2^64-1");
	diskstats_list_free(&list);
}
END_TEST

START_TEST(test_parse_names)
{
	/* 63 bytes fit, 64 do not; non-printing bytes do not. */
	static const char text[] =
	    "8 0 "
	    "a123456789b123456789c123456789d123456789e123456789f123456789xyz"
	    " 1 2 3 4\n"
	    "8 1 "
	    "a123456789b123456789c123456789d123456789e123456789f123456789xyzw"
	    " 1 2 3 4\n"
	    "8 2 bad\x80name 1 2 3 4\n"
	    "8 3 cciss/c0d0 1 2 3 4 5 6 7 8 9 10 11\n";
	struct diskstats_list list = {0};
	struct test_warnings warnings = {.count = 0};

	ck_assert_int_eq(test_parse(text, &list, &warnings), 0);
	ck_assert_uint_eq(list.count, 2);
	ck_assert_uint_eq(strlen(list.items[0].name), 63);
	ck_assert_str_eq(list.items[1].name, "cciss/c0d0");
	ck_assert_uint_eq(warnings.count, 2);
	ck_assert_uint_eq(warnings.lines[0], 2);
	ck_assert_str_eq(
	    warnings.messages[0], "device name longer than 63 bytes");
	ck_assert_uint_eq(warnings.lines[1], 3);
	ck_assert_str_eq(
	    warnings.messages[1], "device name has non-printing byte 0x80");
	diskstats_list_free(&list);
}
END_TEST

/* Blank lines, tabs, CRLF, no final newline, an empty text, and a list
 * reused for a second parse. */
START_TEST(test_parse_layout)
{
	static const char text[] = "\n"
	                           "  \t \n"
	                           "8\t0\tsda\t1 2 3 4\r\n"
	                           "8 16 sdb 5 6 7 8";
	struct diskstats_list list = {0};
	struct test_warnings warnings = {.count = 0};

	ck_assert_int_eq(test_parse(text, &list, &warnings), 0);
	ck_assert_uint_eq(warnings.count, 0);
	ck_assert_uint_eq(list.count, 2);
	ck_assert_str_eq(list.items[0].name, "sda");
	ck_assert_uint_eq(list.items[0].line_number, 3);
	ck_assert_uint_eq(list.items[0].fields[DISKSTATS_SECTORS_WRITTEN], 4);
	ck_assert_str_eq(list.items[1].name, "sdb");
	ck_assert_uint_eq(list.items[1].line_number, 4);
	ck_assert_uint_eq(list.items[1].fields[DISKSTATS_SECTORS_WRITTEN], 8);

	/* Only the given length is read: the rest of the text is not. */
	ck_assert_int_eq(test_parse_bytes(text, 14, &list, &warnings), 0);
	ck_assert_uint_eq(list.count, 0);
	ck_assert_uint_eq(warnings.count, 1); /* "8\t0\tsda\t1 2" */
	ck_assert_uint_eq(warnings.lines[0], 3);

	ck_assert_int_eq(test_parse_bytes("", 0, &list, NULL), 0);
	ck_assert_uint_eq(list.count, 0);
	diskstats_list_free(&list);
}
END_TEST

/* More lines than the list's first allocation. */
START_TEST(test_parse_many)
{
	size_t size = 300 * 64;
	char *text = malloc(size);
	size_t length = 0;
	struct diskstats_list list = {0};

	ck_assert_ptr_nonnull(text);
	for (unsigned i = 0; i < 300; i++)
		length += (size_t)snprintf(text + length, size - length,
		    "7 %u loop%u %u 1 %u 2\n", i, i, i, i * 2);
	ck_assert_int_eq(test_parse_bytes(text, length, &list, NULL), 0);
	ck_assert_uint_eq(list.count, 300);
	ck_assert_uint_eq(list.items[299].minor, 299);
	ck_assert_str_eq(list.items[299].name, "loop299");
	ck_assert_uint_eq(list.items[299].fields[DISKSTATS_READS], 299);
	ck_assert_uint_eq(list.items[299].fields[DISKSTATS_SECTORS_READ], 1);
	ck_assert_uint_eq(list.items[299].fields[DISKSTATS_WRITES], 598);
	ck_assert_uint_eq(list.items[299].fields[DISKSTATS_SECTORS_WRITTEN], 2);
	free(text);
	diskstats_list_free(&list);
}
END_TEST

START_TEST(test_field_masks)
{
	ck_assert_uint_eq(DISKSTATS_MS_FIELDS,
	    DISKSTATS_BIT(3) | DISKSTATS_BIT(7) | DISKSTATS_BIT(9) |
	        DISKSTATS_BIT(10) | DISKSTATS_BIT(14) | DISKSTATS_BIT(16));
	ck_assert_uint_eq(DISKSTATS_COUNTER_FIELDS,
	    DISKSTATS_BIT(0) | DISKSTATS_BIT(1) | DISKSTATS_BIT(2) |
	        DISKSTATS_BIT(4) | DISKSTATS_BIT(5) | DISKSTATS_BIT(6) |
	        DISKSTATS_BIT(11) | DISKSTATS_BIT(12) | DISKSTATS_BIT(13) |
	        DISKSTATS_BIT(15));
	ck_assert_uint_eq(
	    DISKSTATS_COUNTER_FIELDS | DISKSTATS_32BIT_FIELDS, ALL_FIELDS);
}
END_TEST

/* --- the device table ---------------------------------------------------- */

/* Records admit's calls; serves all but the names in refuse. */
struct test_admit {
	unsigned calls;
	char last[DISKSTATS_NAME_SIZE];
	const char *refuse;
};

static bool
test_admit(void *opaque, struct devstat_device *device)
{
	struct test_admit *admit = opaque;

	admit->calls++;
	snprintf(admit->last, sizeof admit->last, "%s", device->name);
	/* Counters are taken after admit. */
	ck_assert_uint_eq(device->present, 0);
	device->class_info.priority = DEVSTAT_PRIORITY_DISK;
	return admit->refuse == NULL ||
	       strcmp(admit->refuse, device->name) != 0;
}

/* An entry with every field present and set to base + field. */
static struct diskstats_entry
test_entry(uint32_t major, uint32_t minor, const char *name, uint64_t base)
{
	struct diskstats_entry entry;

	memset(&entry, 0, sizeof entry);
	entry.major = major;
	entry.minor = minor;
	snprintf(entry.name, sizeof entry.name, "%s", name);
	for (unsigned field = 0; field < DISKSTATS_FIELD_COUNT; field++)
		entry.fields[field] = base + field;
	entry.present = ALL_FIELDS;
	return entry;
}

static const struct devstat_device *
test_find(const struct devstat_table *table, uint32_t major, uint32_t minor)
{
	const struct devstat_device *device =
	    devstat_table_find(table, major, minor);

	ck_assert_msg(device != NULL, "%u:%u not in the table", major, minor);
	return device;
}

START_TEST(test_table_wrap)
{
	struct devstat_table table = {0};
	struct test_admit admit = {0};
	struct diskstats_entry entry = test_entry(8, 0, "sda", 1000);
	const struct devstat_device *device;

	entry.fields[DISKSTATS_READ_MS] = UINT64_C(4294967000);
	entry.fields[DISKSTATS_IO_MS] = UINT64_C(4294967295);
	entry.fields[DISKSTATS_IN_FLIGHT] = 4;
	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 500, test_admit, &admit),
	    0);
	device = test_find(&table, 8, 0);
	ck_assert_uint_eq(device->values[DISKSTATS_READ_MS], 4294967000u);
	ck_assert_uint_eq(device->created, 500);

	/* 4294967000 -> 200 is +496 across the wrap. */
	entry.fields[DISKSTATS_READ_MS] = 200;
	entry.fields[DISKSTATS_IO_MS] = 0;
	entry.fields[DISKSTATS_WRITE_MS] += 10;
	entry.fields[DISKSTATS_IN_FLIGHT] = 1;
	entry.fields[DISKSTATS_READS] += 5;
	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 600, test_admit, &admit),
	    0);
	device = test_find(&table, 8, 0);
	ck_assert_uint_eq(
	    device->values[DISKSTATS_READ_MS], UINT64_C(4294967000) + 496);
	ck_assert_uint_eq(
	    device->values[DISKSTATS_IO_MS], UINT64_C(4294967296));
	ck_assert_uint_eq(device->values[DISKSTATS_WRITE_MS], 1000 + 7 + 10);
	/* The in-flight count is a gauge, the 64-bit counters are the
	 * kernel's. */
	ck_assert_uint_eq(device->values[DISKSTATS_IN_FLIGHT], 1);
	ck_assert_uint_eq(device->values[DISKSTATS_READS], 1005);
	ck_assert_uint_eq(device->raw[DISKSTATS_READ_MS], 200);
	ck_assert_uint_eq(device->created, 500);
	ck_assert_uint_eq(admit.calls, 1);
	devstat_table_free(&table);
}
END_TEST

START_TEST(test_table_wrap_twice)
{
	struct devstat_table table = {0};
	struct diskstats_entry entry = test_entry(8, 0, "sda", 0);
	static const uint64_t raw[] = {4000000000u, 100, 4294967295u, 5, 5};
	static const uint64_t extended[] = {4000000000u, UINT64_C(4294967396),
	    UINT64_C(8589934591), UINT64_C(8589934597), UINT64_C(8589934597)};

	for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
		entry.fields[DISKSTATS_WEIGHTED_MS] = raw[i];
		ck_assert_int_eq(
		    devstat_table_update(&table, &entry, 1, i, NULL, NULL), 0);
		ck_assert_uint_eq(
		    test_find(&table, 8, 0)->values[DISKSTATS_WEIGHTED_MS],
		    extended[i]);
	}
	ck_assert(test_find(&table, 8, 0)->served);
	devstat_table_free(&table);
}
END_TEST

START_TEST(test_table_vanish_and_return)
{
	struct devstat_table table = {0};
	struct test_admit admit = {0};
	struct diskstats_entry entries[2] = {
	    test_entry(8, 0, "sda", 100), test_entry(8, 16, "sdb", 200)};
	const struct devstat_device *device;

	ck_assert_int_eq(
	    devstat_table_update(&table, entries, 2, 10, test_admit, &admit),
	    0);
	ck_assert_uint_eq(table.count, 2);
	/* sdb's flush time wraps once while it is known. */
	entries[1].fields[DISKSTATS_FLUSH_MS] = UINT64_C(4294967290);
	ck_assert_int_eq(
	    devstat_table_update(&table, entries, 2, 20, test_admit, &admit),
	    0);
	entries[1].fields[DISKSTATS_FLUSH_MS] = 10;
	ck_assert_int_eq(
	    devstat_table_update(&table, entries, 2, 30, test_admit, &admit),
	    0);
	ck_assert_uint_eq(test_find(&table, 8, 16)->values[DISKSTATS_FLUSH_MS],
	    UINT64_C(4294967306));

	/* sdb goes... */
	ck_assert_int_eq(
	    devstat_table_update(&table, entries, 1, 40, test_admit, &admit),
	    0);
	ck_assert_uint_eq(table.count, 1);
	ck_assert_ptr_null(devstat_table_find(&table, 8, 16));
	ck_assert_uint_eq(test_find(&table, 8, 0)->created, 10);

	/* ...and comes back: a new device, whatever its counters say. */
	entries[1].fields[DISKSTATS_FLUSH_MS] = 20;
	ck_assert_int_eq(
	    devstat_table_update(&table, entries, 2, 50, test_admit, &admit),
	    0);
	device = test_find(&table, 8, 16);
	ck_assert_uint_eq(device->created, 50);
	ck_assert_uint_eq(device->values[DISKSTATS_FLUSH_MS], 20);
	ck_assert_uint_eq(device->values[DISKSTATS_READS], 200);
	ck_assert_uint_eq(admit.calls, 3);
	ck_assert_str_eq(admit.last, "sdb");
	ck_assert_uint_eq(test_find(&table, 8, 0)->created, 10);

	/* Everything goes. */
	ck_assert_int_eq(
	    devstat_table_update(&table, NULL, 0, 60, test_admit, &admit), 0);
	ck_assert_uint_eq(table.count, 0);
	ck_assert_ptr_null(devstat_table_find(&table, 8, 0));
	devstat_table_free(&table);
}
END_TEST

START_TEST(test_table_reset)
{
	struct devstat_table table = {0};
	struct test_admit admit = {0};
	struct diskstats_entry entry = test_entry(7, 200, "loop200", 0);
	const struct devstat_device *device;

	entry.fields[DISKSTATS_SECTORS_WRITTEN] = 1536;
	entry.fields[DISKSTATS_WRITE_MS] = UINT64_C(4294967000);
	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 10, test_admit, &admit), 0);
	entry.fields[DISKSTATS_WRITE_MS] = 100; /* wrapped: +396 */
	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 20, test_admit, &admit), 0);
	ck_assert_uint_eq(test_find(&table, 7, 200)->values[DISKSTATS_WRITE_MS],
	    UINT64_C(4294967396));

	/* Detached and attached again between two updates: fewer sectors
	 * written than before. The values restart from the kernel's. */
	entry.fields[DISKSTATS_SECTORS_WRITTEN] = 256;
	entry.fields[DISKSTATS_WRITE_MS] = 3;
	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 30, test_admit, &admit), 0);
	device = test_find(&table, 7, 200);
	ck_assert_uint_eq(device->values[DISKSTATS_SECTORS_WRITTEN], 256);
	ck_assert_uint_eq(device->values[DISKSTATS_WRITE_MS], 3);
	ck_assert_uint_eq(device->raw[DISKSTATS_WRITE_MS], 3);
	ck_assert_uint_eq(device->created, 10);
	ck_assert(device->restarted);
	ck_assert_uint_eq(admit.calls, 1);

	/* And go on from there. */
	entry.fields[DISKSTATS_WRITE_MS] = 13;
	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 40, test_admit, &admit), 0);
	ck_assert_uint_eq(
	    test_find(&table, 7, 200)->values[DISKSTATS_WRITE_MS], 13);
	ck_assert(!test_find(&table, 7, 200)->restarted);

	/* A 32-bit millisecond field going down is a wrap, not a reset. */
	entry.fields[DISKSTATS_WRITE_MS] = 12;
	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 50, test_admit, &admit), 0);
	ck_assert_uint_eq(test_find(&table, 7, 200)->values[DISKSTATS_WRITE_MS],
	    UINT64_C(4294967308));
	ck_assert(!test_find(&table, 7, 200)->restarted);
	devstat_table_free(&table);
}
END_TEST

START_TEST(test_table_renamed)
{
	struct devstat_table table = {0};
	struct test_admit admit = {0};
	struct diskstats_entry entry = test_entry(259, 3, "nvme0n1", 1000);
	const struct devstat_device *device;

	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 10, test_admit, &admit), 0);
	entry.fields[DISKSTATS_READ_MS] = 1;
	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 20, test_admit, &admit), 0);
	ck_assert_uint_eq(test_find(&table, 259, 3)->values[DISKSTATS_READ_MS],
	    UINT64_C(1003) + (UINT64_C(4294967296) - 1002));

	/* The number now names another device, counters higher or not. */
	snprintf(entry.name, sizeof entry.name, "nvme1n1p1");
	entry.fields[DISKSTATS_READS] += 100;
	entry.fields[DISKSTATS_READ_MS] = 7;
	ck_assert_int_eq(
	    devstat_table_update(&table, &entry, 1, 30, test_admit, &admit), 0);
	device = test_find(&table, 259, 3);
	ck_assert_str_eq(device->name, "nvme1n1p1");
	ck_assert_uint_eq(device->created, 30);
	ck_assert_uint_eq(device->values[DISKSTATS_READ_MS], 7);
	ck_assert_uint_eq(admit.calls, 2);
	ck_assert_str_eq(admit.last, "nvme1n1p1");
	devstat_table_free(&table);
}
END_TEST

/* Entries in the kernel's order (not sorted), with a repeat; admit's
 * answer is kept and it is asked once per device. */
START_TEST(test_table_order_and_admit)
{
	struct devstat_table table = {0};
	struct test_admit admit = {.refuse = "loop0"};
	struct diskstats_entry entries[6] = {
	    test_entry(7, 1, "loop1", 0),
	    test_entry(254, 0, "vda", 10),
	    test_entry(253, 0, "zram0", 20),
	    test_entry(7, 0, "loop0", 30),
	    test_entry(254, 0, "vda-again", 40),
	    test_entry(8, 0, "sda", 50),
	};
	static const struct {
		uint32_t major;
		uint32_t minor;
		const char *name;
		bool served;
	} expected[] = {{7, 0, "loop0", false}, {7, 1, "loop1", true},
	    {8, 0, "sda", true}, {253, 0, "zram0", true},
	    {254, 0, "vda", true}};

	for (unsigned round = 0; round < 3; round++) {
		ck_assert_int_eq(devstat_table_update(&table, entries, 6, round,
		                     test_admit, &admit),
		    0);
		ck_assert_uint_eq(table.count, 5);
		for (size_t i = 0; i < 5; i++) {
			const struct devstat_device *device = &table.items[i];

			ck_assert_uint_eq(device->major, expected[i].major);
			ck_assert_uint_eq(device->minor, expected[i].minor);
			ck_assert_str_eq(device->name, expected[i].name);
			ck_assert(device->served == expected[i].served);
			ck_assert_uint_eq(device->created, 0);
			ck_assert_uint_eq(
			    device->class_info.priority, DEVSTAT_PRIORITY_DISK);
		}
		ck_assert_uint_eq(test_find(&table, 254, 0)->values[0], 10);
		ck_assert_uint_eq(admit.calls, 5);
	}
	ck_assert_ptr_null(devstat_table_find(&table, 7, 2));
	ck_assert_ptr_null(devstat_table_find(&table, 0, 0));
	ck_assert_ptr_null(devstat_table_find(&table, 255, 0));
	devstat_table_free(&table);
}
END_TEST

/* Fields the kernel does not print stay absent. */
START_TEST(test_table_absent_fields)
{
	struct devstat_table table = {0};
	struct diskstats_list list = {0};
	const struct devstat_device *device;

	ck_assert_int_eq(test_parse(sample_ancient, &list, NULL), 0);
	ck_assert_int_eq(
	    devstat_table_update(&table, list.items, list.count, 1, NULL, NULL),
	    0);
	ck_assert_int_eq(test_parse(sample_ancient, &list, NULL), 0);
	ck_assert_int_eq(
	    devstat_table_update(&table, list.items, list.count, 2, NULL, NULL),
	    0);
	device = test_find(&table, 3, 1);
	ck_assert_uint_eq(device->present, list.items[1].present);
	ck_assert((device->present & DISKSTATS_BIT(DISKSTATS_WRITE_MS)) == 0);
	ck_assert_uint_eq(device->values[DISKSTATS_SECTORS_WRITTEN], 232);
	device = test_find(&table, 3, 0);
	ck_assert_uint_eq(device->present, FIRST_FIELDS(11));
	ck_assert_uint_eq(device->values[DISKSTATS_WEIGHTED_MS], 23705160);
	diskstats_list_free(&list);
	devstat_table_free(&table);
}
END_TEST

/* --- classification ---------------------------------------------------------
 */

/* The fake sysfs tree, built once in the parent process. */
static char test_root[256];

#define SCSI_HOST0 "devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0"
#define SCSI_HOST1 "devices/pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0"
#define SDA SCSI_HOST0 "/0:0:0:0/block/sda"
#define SR0 SCSI_HOST1 "/1:0:0:0/block/sr0"
#define NVME "devices/pci0000:00/0000:00:04.0/nvme/nvme0"
#define VIRTIO "devices/pci0000:00/0000:00:05.0/virtio2/block"
#define VIRTUAL "devices/virtual/block"

static void
test_make_directories(const char *relative)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", test_root, relative);
	for (char *slash = path + strlen(test_root) + 1; *slash != '\0';
	     slash++) {
		if (*slash != '/')
			continue;
		*slash = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			ck_abort_msg("mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		ck_abort_msg("mkdir %s: %s", path, strerror(errno));
}

/* Writes text to ROOT/relative, making its directories. */
static void
test_write(const char *relative, const char *text)
{
	char path[512];
	char directory[512];
	FILE *file;

	snprintf(directory, sizeof directory, "%s", relative);
	*strrchr(directory, '/') = '\0';
	test_make_directories(directory);
	snprintf(path, sizeof path, "%s/%s", test_root, relative);
	file = fopen(path, "w");
	if (file == NULL)
		ck_abort_msg("fopen %s: %s", path, strerror(errno));
	fputs(text, file);
	fclose(file);
}

/* Makes ROOT/relative a symbolic link to target. */
static void
test_link(const char *relative, const char *target)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", test_root, relative);
	if (symlink(target, path) != 0)
		ck_abort_msg("symlink %s: %s", path, strerror(errno));
}

/* A disk's attributes and its class/block link, as the kernel lays out. */
static void
test_disk(const char *directory, const char *name, const char *block_size,
    const char *rotational, const char *removable)
{
	char relative[512];
	char target[512];

	test_make_directories(directory);
	snprintf(relative, sizeof relative, "%s/queue/logical_block_size",
	    directory);
	if (block_size != NULL)
		test_write(relative, block_size);
	snprintf(relative, sizeof relative, "%s/queue/rotational", directory);
	if (rotational != NULL)
		test_write(relative, rotational);
	snprintf(relative, sizeof relative, "%s/removable", directory);
	if (removable != NULL)
		test_write(relative, removable);
	snprintf(relative, sizeof relative, "class/block/%s", name);
	snprintf(target, sizeof target, "../../%s", directory);
	test_link(relative, target);
}

/* A partition: a directory in its disk's, with a partition file. */
static void
test_partition(const char *disk_directory, const char *name, const char *number)
{
	char relative[512];
	char target[512];

	snprintf(
	    relative, sizeof relative, "%s/%s/partition", disk_directory, name);
	test_write(relative, number);
	snprintf(relative, sizeof relative, "class/block/%s", name);
	snprintf(target, sizeof target, "../../%s/%s", disk_directory, name);
	test_link(relative, target);
}

static void
test_sysfs_setup(void)
{
	const char *temporary = getenv("TMPDIR");

	if (temporary == NULL || temporary[0] == '\0')
		temporary = "/tmp";
	snprintf(
	    test_root, sizeof test_root, "%s/test_devstat.XXXXXX", temporary);
	ck_assert_ptr_nonnull(mkdtemp(test_root));
	test_make_directories("class/block");

	/* A SATA disk (SCSI type 0) with a partition. */
	test_write(SCSI_HOST0 "/0:0:0:0/type", "0\n");
	test_disk(SDA, "sda", "512\n", "1\n", "0\n");
	test_link(SDA "/device", "../../../0:0:0:0");
	test_partition(SDA, "sda1", "1\n");

	/* A DVD drive: SCSI type 5, 2048-byte blocks. */
	test_write(SCSI_HOST1 "/1:0:0:0/type", "5\n");
	test_disk(SR0, "sr0", "2048\n", "1\n", "1\n");
	test_link(SR0 "/device", "../../../1:0:0:0");

	/* Other SCSI peripheral types. */
	test_write(SCSI_HOST0 "/0:0:1:0/type", "14\n"); /* RBC */
	test_disk(
	    SCSI_HOST0 "/0:0:1:0/block/sdb", "sdb", "512\n", "0\n", "1\n");
	test_link(SCSI_HOST0 "/0:0:1:0/block/sdb/device", "../../../0:0:1:0");
	test_write(SCSI_HOST0 "/0:0:2:0/type", "7\n"); /* optical */
	test_disk(
	    SCSI_HOST0 "/0:0:2:0/block/sdc", "sdc", "2048\n", "1\n", "1\n");
	test_link(SCSI_HOST0 "/0:0:2:0/block/sdc/device", "../../../0:0:2:0");
	test_write(SCSI_HOST0 "/0:0:3:0/type", "20\n"); /* zoned */
	test_disk(
	    SCSI_HOST0 "/0:0:3:0/block/sdd", "sdd", "4096\n", "1\n", "0\n");
	test_link(SCSI_HOST0 "/0:0:3:0/block/sdd/device", "../../../0:0:3:0");
	test_write(SCSI_HOST0 "/0:0:4:0/type", "31\n"); /* no device */
	test_disk(
	    SCSI_HOST0 "/0:0:4:0/block/sde", "sde", "512\n", "1\n", "0\n");
	test_link(SCSI_HOST0 "/0:0:4:0/block/sde/device", "../../../0:0:4:0");

	/* NVMe: the controller has no peripheral type. */
	test_make_directories(NVME);
	test_disk(NVME "/nvme0n1", "nvme0n1", "4096\n", "0\n", "0\n");
	test_link(NVME "/nvme0n1/device", "../../nvme0");
	test_partition(NVME "/nvme0n1", "nvme0n1p1", "1\n");

	/* Virtual devices. */
	test_disk(VIRTUAL "/loop0", "loop0", "512\n", "1\n", "0\n");
	test_disk(VIRTUAL "/dm-0", "dm-0", "512\n", "0\n", "0\n");
	test_disk(VIRTUAL "/md127", "md127", "512\n", "1\n", "0\n");
	test_partition(VIRTUAL "/md127", "md127p1", "1\n");

	/* Missing and unparsable attributes. */
	test_disk(VIRTIO "/vda", "vda", NULL, "maybe\n", "2\n");
	test_partition(VIRTIO "/vda", "vda1", "1\n");

	/* An SD card: its device/type is MMC's, not a SCSI number. */
	test_make_directories("devices/platform/mmc0/mmc0:0001");
	test_write("devices/platform/mmc0/mmc0:0001/type", "SD\n");
	test_disk("devices/platform/mmc0/mmc0:0001/block/mmcblk0", "mmcblk0",
	    "512\n", "0\n", "0\n");
	test_link("devices/platform/mmc0/mmc0:0001/block/mmcblk0/device",
	    "../../../mmc0:0001");

	/* A name with a slash in /proc/diskstats, '!' in sysfs. */
	test_disk("devices/pci0000:00/0000:00:06.0/cciss0/cciss!c0d0",
	    "cciss!c0d0", "1024\n", "1\n", "0\n");
}

static int
test_remove_entry(
    const char *path, const struct stat *status, int flag, struct FTW *walk)
{
	(void)status;
	(void)flag;
	(void)walk;
	return remove(path);
}

static void
test_sysfs_teardown(void)
{
	if (test_root[0] != '\0')
		nftw(test_root, test_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The expected classification of one device. */
struct test_class {
	const char *name;
	uint32_t major;
	uint32_t device_type;
	uint32_t priority;
	int block_size; /* -1: absent */
	int rotational; /* -1: absent */
	int removable;  /* -1: absent */
	int partition;  /* -1: absent (no sysfs directory) */
};

static void
test_check_class(const struct test_class *expected)
{
	struct devstat_device_class class_info;

	memset(&class_info, 0xa5, sizeof class_info);
	devstat_device_classify(
	    test_root, expected->name, expected->major, &class_info);
	ck_assert_msg(class_info.device_type == expected->device_type,
	    "%s: device_type 0x%03x, expected 0x%03x", expected->name,
	    class_info.device_type, expected->device_type);
	ck_assert_msg(class_info.priority == expected->priority,
	    "%s: priority 0x%03x, expected 0x%03x", expected->name,
	    class_info.priority, expected->priority);
	ck_assert_msg(class_info.has_block_size == (expected->block_size >= 0),
	    "%s: has_block_size", expected->name);
	if (expected->block_size >= 0)
		ck_assert_uint_eq(
		    class_info.block_size, (uint32_t)expected->block_size);
	ck_assert_msg(class_info.has_rotational == (expected->rotational >= 0),
	    "%s: has_rotational", expected->name);
	if (expected->rotational >= 0)
		ck_assert(class_info.rotational == (expected->rotational == 1));
	ck_assert_msg(class_info.has_removable == (expected->removable >= 0),
	    "%s: has_removable", expected->name);
	if (expected->removable >= 0)
		ck_assert(class_info.removable == (expected->removable == 1));
	ck_assert_msg(class_info.has_partition == (expected->partition >= 0),
	    "%s: has_partition", expected->name);
	ck_assert_msg(class_info.partition == (expected->partition == 1),
	    "%s: partition", expected->name);
}

START_TEST(test_classify_disks)
{
	static const struct test_class expected[] = {
	    /* name, major, type, priority, bs, rot, rem, partition */
	    {"sda", 8, 0x010, 0x110, 512, 1, 0, 0},
	    {"sr0", 11, 0x015, 0x090, 2048, 1, 1, 0},
	    {"sdb", 8, 0x010, 0x110, 512, 0, 1, 0},  /* RBC: a disk */
	    {"sdc", 8, 0x017, 0x110, 2048, 1, 1, 0}, /* optical */
	    {"sdd", 8, 0x010, 0x110, 4096, 1, 0, 0}, /* zoned: a disk */
	    {"sde", 8, 0x010, 0x110, 512, 1, 0, 0},  /* type 31: the rule's */
	    {"nvme0n1", 259, 0x030, 0x110, 4096, 0, 0, 0},
	    {"loop0", 7, 0x030, 0x020, 512, 1, 0, 0},
	    {"dm-0", 253, 0x030, 0x120, 512, 0, 0, 0},
	    {"md127", 9, 0x030, 0x120, 512, 1, 0, 0},
	    {"vda", 254, 0x030, 0x110, -1, -1, -1, 0},
	    {"mmcblk0", 179, 0x030, 0x110, 512, 0, 0, 0},
	    {"cciss/c0d0", 104, 0x030, 0x110, 1024, 1, 0, 0},
	    /* Not in sysfs at all: by name, a whole disk, nothing else. */
	    {"ghost0", 240, 0x030, 0x110, -1, -1, -1, -1},
	    {"sr1", 11, 0x015, 0x090, -1, -1, -1, -1},
	};

	for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
		test_check_class(&expected[i]);
}
END_TEST

/* A partition has its disk's queue, media, type and priority. */
START_TEST(test_classify_partitions)
{
	static const struct test_class expected[] = {
	    {"sda1", 8, 0x010, 0x110, 512, 1, 0, 1},
	    {"nvme0n1p1", 259, 0x030, 0x110, 4096, 0, 0, 1},
	    /* An extended partition number (major 259, blkext): the name
	     * decides. */
	    {"md127p1", 259, 0x030, 0x120, 512, 1, 0, 1},
	    {"vda1", 254, 0x030, 0x110, -1, -1, -1, 1},
	};

	for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
		test_check_class(&expected[i]);
}
END_TEST

START_TEST(test_classify_through_table)
{
	static const char text[] =
	    "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	    "   8       1 sda1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	    "  11       0 sr0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n";
	struct diskstats_list list = {0};
	struct devstat_table table = {0};
	const struct devstat_device *device;

	ck_assert_int_eq(test_parse(text, &list, NULL), 0);
	ck_assert_int_eq(
	    devstat_table_update(&table, list.items, list.count, 7, NULL, NULL),
	    0);
	for (size_t i = 0; i < table.count; i++)
		devstat_device_classify(test_root, table.items[i].name,
		    table.items[i].major, &table.items[i].class_info);
	device = test_find(&table, 8, 1);
	ck_assert(device->class_info.partition);
	ck_assert_uint_eq(device->class_info.block_size, 512);
	device = test_find(&table, 11, 0);
	ck_assert_uint_eq(device->class_info.device_type, 0x015);
	ck_assert_uint_eq(device->class_info.block_size, 2048);
	diskstats_list_free(&list);
	devstat_table_free(&table);
}
END_TEST

START_TEST(test_rules)
{
	static const struct {
		const char *name;
		uint32_t major;
		uint32_t type;
		uint32_t priority;
	} cases[] = {
	    {"sda", 8, 0x010, 0x110},
	    {"sdaa", 65, 0x010, 0x110},
	    {"sr0", 11, 0x015, 0x090},
	    {"cdrom", 11, 0x015, 0x090}, /* by major */
	    {"hda", 3, 0x020, 0x110},
	    {"fd0", 2, 0x03e, 0x040},
	    {"md0", 9, 0x030, 0x120},
	    {"dm-3", 253, 0x030, 0x120},
	    {"loop7", 7, 0x030, 0x020},
	    {"ram0", 1, 0x030, 0x020},
	    {"zram0", 252, 0x030, 0x020},
	    {"nbd0", 43, 0x030, 0x020},
	    {"nvme0n1", 259, 0x030, 0x110},
	    {"vda", 254, 0x030, 0x110},
	    {"xvda", 202, 0x030, 0x110},
	    {"mmcblk0", 179, 0x030, 0x110},
	    {"rbd0", 251, 0x030, 0x110},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint32_t type = 0xdead;
		uint32_t priority = 0xdead;

		devstat_device_rule(
		    cases[i].name, cases[i].major, &type, &priority);
		ck_assert_msg(
		    type == cases[i].type && priority == cases[i].priority,
		    "%s: 0x%03x 0x%03x, expected 0x%03x 0x%03x", cases[i].name,
		    type, priority, cases[i].type, cases[i].priority);
	}
}
END_TEST

START_TEST(test_sysfs_name)
{
	char name[DISKSTATS_NAME_SIZE];

	ck_assert(devstat_device_sysfs_name("cciss/c0d0", name, sizeof name));
	ck_assert_str_eq(name, "cciss!c0d0");
	ck_assert(devstat_device_sysfs_name("a/b/c", name, sizeof name));
	ck_assert_str_eq(name, "a!b!c");
	ck_assert(devstat_device_sysfs_name("sda", name, 4));
	ck_assert_str_eq(name, "sda");
	ck_assert(!devstat_device_sysfs_name("sda", name, 3));
	ck_assert(!devstat_device_sysfs_name("", name, sizeof name));
	ck_assert(!devstat_device_sysfs_name(".", name, sizeof name));
	ck_assert(!devstat_device_sysfs_name("..", name, sizeof name));
}
END_TEST

/* --- Shared helpers (src/providers/common/) ---------------------------- */

START_TEST(test_common_grow)
{
	size_t capacity = 0;
	size_t kept;
	int *items = NULL;
	int *grown;

	/* Never fewer than one element, even when none is wanted. */
	items = provider_grow(items, &capacity, 0, sizeof *items);
	ck_assert_ptr_nonnull(items);
	ck_assert_uint_ge(capacity, 1);
	for (size_t wanted = 1; wanted <= 1000; wanted++) {
		grown = provider_grow(items, &capacity, wanted, sizeof *items);
		ck_assert_ptr_nonnull(grown);
		ck_assert_uint_ge(capacity, wanted);
		items = grown;
		items[wanted - 1] = (int)wanted;
	}
	for (size_t i = 0; i < 1000; i++)
		ck_assert_int_eq(items[i], (int)i + 1);
	/* Enough room: the same block, untouched. */
	kept = capacity;
	ck_assert_ptr_eq(
	    provider_grow(items, &capacity, 10, sizeof *items), items);
	ck_assert_uint_eq(capacity, kept);
	/* Sizes that overflow fail with ENOMEM, leaving all as it was. */
	errno = 0;
	ck_assert_ptr_null(
	    provider_grow(items, &capacity, SIZE_MAX, sizeof *items));
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert_ptr_null(provider_grow(
	    items, &capacity, SIZE_MAX / sizeof *items, 2 * sizeof *items));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_uint_eq(capacity, kept);
	ck_assert_int_eq(items[999], 1000);
	free(items);
}
END_TEST

/* A host that holds only options (each a list of strings) and counts the
 * reports made to it. */
struct test_host {
	struct dci_host host; /* first: the provider sees this */
	const char *const *include;
	size_t include_count;
	const char *const *exclude;
	size_t exclude_count;
	/* Given with no item: `exclude: []`. */
	bool include_empty;
	bool exclude_empty;
	unsigned option_errors;
	char error_key[32];
	char error_message[128];
	unsigned logs;
};

static struct test_host *
test_host_of(struct dci_host *host)
{
	return (struct test_host *)(void *)host;
}

static size_t
test_host_option_count(struct dci_host *host, const char *key)
{
	struct test_host *test = test_host_of(host);

	if (strcmp(key, "include") == 0)
		return test->include_count;
	if (strcmp(key, "exclude") == 0)
		return test->exclude_count;
	return 0;
}

static int
test_host_option_present(struct dci_host *host, const char *key)
{
	struct test_host *test = test_host_of(host);

	if (strcmp(key, "include") == 0 && test->include_empty)
		return 1;
	if (strcmp(key, "exclude") == 0 && test->exclude_empty)
		return 1;
	return test_host_option_count(host, key) > 0;
}

static const char *
test_host_option_item(struct dci_host *host, const char *key, size_t index)
{
	struct test_host *test = test_host_of(host);

	if (strcmp(key, "include") == 0 && index < test->include_count)
		return test->include[index];
	if (strcmp(key, "exclude") == 0 && index < test->exclude_count)
		return test->exclude[index];
	return NULL;
}

static void
test_host_option_error(
    struct dci_host *host, const char *key, const char *message)
{
	struct test_host *test = test_host_of(host);

	test->option_errors++;
	snprintf(test->error_key, sizeof test->error_key, "%s", key);
	snprintf(
	    test->error_message, sizeof test->error_message, "%s", message);
}

static void
test_host_log(struct dci_host *host, enum dci_log_level level,
    const char *format, va_list arguments)
{
	(void)level;
	(void)format;
	(void)arguments;
	test_host_of(host)->logs++;
}

static const struct dci_host_operations test_host_operations = {
    .abi_version = DCI_PROVIDER_ABI_VERSION,
    .size = sizeof(struct dci_host_operations),
    .option_count = test_host_option_count,
    .option_item = test_host_option_item,
    .option_error = test_host_option_error,
    .log = test_host_log,
    .option_present = test_host_option_present,
};

/* A host of ABI 1 before option_present was appended. */
static const struct dci_host_operations test_older_host_operations = {
    .abi_version = DCI_PROVIDER_ABI_VERSION,
    .size = offsetof(struct dci_host_operations, option_present),
    .option_count = test_host_option_count,
    .option_item = test_host_option_item,
    .option_error = test_host_option_error,
    .log = test_host_log,
};

static void
test_host_init(struct test_host *test)
{
	memset(test, 0, sizeof *test);
	test->host.operations = &test_host_operations;
}

static const char *const test_default_exclude[] = {"loop*", "ram*", "zram*"};
#define TEST_DEFAULT_COUNT                                                     \
	(sizeof test_default_exclude / sizeof test_default_exclude[0])

START_TEST(test_common_patterns_default)
{
	struct test_host test;
	struct provider_patterns patterns = {0};

	/* Neither key: the default exclusions apply. */
	test_host_init(&test);
	ck_assert_int_eq(provider_patterns_read(&test.host, &patterns,
	                     test_default_exclude, TEST_DEFAULT_COUNT),
	    0);
	ck_assert_uint_eq(patterns.include_count, 0);
	ck_assert_uint_eq(patterns.exclude_count, TEST_DEFAULT_COUNT);
	ck_assert(provider_patterns_admit(&patterns, "sda"));
	ck_assert(provider_patterns_admit(&patterns, "nvme0n1"));
	ck_assert(!provider_patterns_admit(&patterns, "loop0"));
	ck_assert(!provider_patterns_admit(&patterns, "ram15"));
	ck_assert(!provider_patterns_admit(&patterns, "zram0"));
	provider_patterns_free(&patterns);
	ck_assert_ptr_null(patterns.exclude);
	ck_assert_uint_eq(patterns.exclude_count, 0);

	/* No defaults: everything is served. */
	ck_assert_int_eq(
	    provider_patterns_read(&test.host, &patterns, NULL, 0), 0);
	ck_assert_uint_eq(patterns.include_count, 0);
	ck_assert_uint_eq(patterns.exclude_count, 0);
	ck_assert(provider_patterns_admit(&patterns, "loop0"));
	ck_assert(provider_patterns_admit(&patterns, ""));
	provider_patterns_free(&patterns);
	ck_assert_uint_eq(test.option_errors + test.logs, 0);
}
END_TEST

START_TEST(test_common_patterns_given)
{
	static const char *const include[] = {"sd*", "loop[0-3]"};
	static const char *const exclude[] = {"sdb", "nvme*p*"};
	struct test_host test;
	struct provider_patterns patterns = {0};

	/* include alone replaces the default: loop1 is served. */
	test_host_init(&test);
	test.include = include;
	test.include_count = 2;
	ck_assert_int_eq(provider_patterns_read(&test.host, &patterns,
	                     test_default_exclude, TEST_DEFAULT_COUNT),
	    0);
	ck_assert_uint_eq(patterns.include_count, 2);
	ck_assert_uint_eq(patterns.exclude_count, 0);
	ck_assert(provider_patterns_admit(&patterns, "sda"));
	ck_assert(provider_patterns_admit(&patterns, "loop1"));
	ck_assert(!provider_patterns_admit(&patterns, "loop4"));
	ck_assert(!provider_patterns_admit(&patterns, "nvme0n1"));
	provider_patterns_free(&patterns);

	/* Both: included and not excluded. */
	test.exclude = exclude;
	test.exclude_count = 2;
	ck_assert_int_eq(provider_patterns_read(&test.host, &patterns,
	                     test_default_exclude, TEST_DEFAULT_COUNT),
	    0);
	ck_assert(provider_patterns_admit(&patterns, "sda"));
	ck_assert(!provider_patterns_admit(&patterns, "sdb"));
	ck_assert(provider_patterns_admit(&patterns, "sda1"));
	ck_assert(provider_patterns_admit(&patterns, "loop0"));
	ck_assert(!provider_patterns_admit(&patterns, "loop5"));
	provider_patterns_free(&patterns);

	/* exclude alone replaces the default too. */
	test.include_count = 0;
	ck_assert_int_eq(provider_patterns_read(&test.host, &patterns,
	                     test_default_exclude, TEST_DEFAULT_COUNT),
	    0);
	ck_assert_uint_eq(patterns.exclude_count, 2);
	ck_assert(provider_patterns_admit(&patterns, "loop0"));
	ck_assert(provider_patterns_admit(&patterns, "nvme0n1"));
	ck_assert(!provider_patterns_admit(&patterns, "nvme0n1p1"));
	ck_assert(provider_patterns_match(exclude, 2, "sdb"));
	ck_assert(!provider_patterns_match(exclude, 0, "sdb"));
	provider_patterns_free(&patterns);
	ck_assert_uint_eq(test.option_errors + test.logs, 0);
}
END_TEST

START_TEST(test_common_patterns_empty_lists)
{
	struct test_host test;
	struct provider_patterns patterns = {0};

	/* exclude: [] replaces the default with nothing: loop0 is served. */
	test_host_init(&test);
	test.exclude_empty = true;
	ck_assert_int_eq(provider_patterns_read(&test.host, &patterns,
	                     test_default_exclude, TEST_DEFAULT_COUNT),
	    0);
	ck_assert_uint_eq(patterns.include_count, 0);
	ck_assert_uint_eq(patterns.exclude_count, 0);
	ck_assert(provider_patterns_admit(&patterns, "loop0"));
	ck_assert(provider_patterns_admit(&patterns, "zram0"));
	provider_patterns_free(&patterns);

	/* include: [] replaces the default too, and, empty, admits every
	 * name as an absent include does. */
	test.exclude_empty = false;
	test.include_empty = true;
	ck_assert_int_eq(provider_patterns_read(&test.host, &patterns,
	                     test_default_exclude, TEST_DEFAULT_COUNT),
	    0);
	ck_assert_uint_eq(patterns.exclude_count, 0);
	ck_assert(provider_patterns_admit(&patterns, "ram15"));
	ck_assert(provider_patterns_admit(&patterns, "sda"));
	provider_patterns_free(&patterns);

	/* A host that predates dci_option_present cannot tell an empty
	 * list from no key: the default applies. */
	test.include_empty = false;
	test.exclude_empty = true;
	test.host.operations = &test_older_host_operations;
	ck_assert_int_eq(provider_patterns_read(&test.host, &patterns,
	                     test_default_exclude, TEST_DEFAULT_COUNT),
	    0);
	ck_assert_uint_eq(patterns.exclude_count, TEST_DEFAULT_COUNT);
	ck_assert(!provider_patterns_admit(&patterns, "loop0"));
	provider_patterns_free(&patterns);
	ck_assert_uint_eq(test.option_errors + test.logs, 0);
}
END_TEST

START_TEST(test_common_patterns_bad)
{
	static const char *const empty[] = {"sd*", ""};
	static const char *const missing[] = {NULL};
	static const char *const good[] = {"eth*"};
	struct test_host test;
	struct provider_patterns patterns = {0};

	test_host_init(&test);
	test.include = good;
	test.include_count = 1;
	test.exclude = empty;
	test.exclude_count = 2;
	ck_assert_int_eq(
	    provider_patterns_read(&test.host, &patterns, NULL, 0), -1);
	ck_assert_uint_eq(test.option_errors, 1);
	ck_assert_str_eq(test.error_key, "exclude");
	ck_assert_str_eq(test.error_message,
	    "expected a non-empty shell pattern or a list of them");
	provider_patterns_free(&patterns);
	ck_assert_ptr_null(patterns.include);
	ck_assert_ptr_null(patterns.exclude);

	/* An item the host cannot give (a mapping in the YAML). */
	test_host_init(&test);
	test.include = missing;
	test.include_count = 1;
	ck_assert_int_eq(provider_patterns_read(&test.host, &patterns,
	                     test_default_exclude, TEST_DEFAULT_COUNT),
	    -1);
	ck_assert_uint_eq(test.option_errors, 1);
	ck_assert_str_eq(test.error_key, "include");
	provider_patterns_free(&patterns);
	ck_assert_uint_eq(test.logs, 0);
}
END_TEST

/* The byte at offset of the files test_write_file writes. */
static char
test_file_byte(size_t offset)
{
	return (char)('a' + offset % 26);
}

/* Writes length bytes (test_file_byte) to a new temporary file, whose path
 * replaces the mkstemp template in path. */
static void
test_write_file(char *path, size_t length)
{
	int descriptor = mkstemp(path);
	char block[4096];
	size_t written = 0;

	ck_assert_int_ge(descriptor, 0);
	while (written < length) {
		size_t chunk = length - written < sizeof block
		                   ? length - written
		                   : sizeof block;

		for (size_t i = 0; i < chunk; i++)
			block[i] = test_file_byte(written + i);
		ck_assert_int_eq(
		    write(descriptor, block, chunk), (ssize_t)chunk);
		written += chunk;
	}
	ck_assert_int_eq(close(descriptor), 0);
}

static void
test_check_content(const struct provider_file_buffer *buffer, size_t length)
{
	ck_assert_uint_eq(buffer->length, length);
	ck_assert_uint_ge(buffer->capacity, length);
	for (size_t i = 0; i < length; i++)
		ck_assert_int_eq(buffer->bytes[i], test_file_byte(i));
}

START_TEST(test_common_file_read)
{
	char large[] = "/tmp/dcistat-file-XXXXXX";
	char empty[] = "/tmp/dcistat-file-XXXXXX";
	const size_t length = 100000; /* several doublings of the buffer */
	struct provider_file_buffer buffer = {0};
	char *block;

	test_write_file(large, length);
	test_write_file(empty, 0);

	ck_assert_int_eq(provider_file_read(large, &buffer, length), 0);
	test_check_content(&buffer, length);
	/* Read again into the same memory. */
	block = buffer.bytes;
	ck_assert_int_eq(provider_file_read(large, &buffer, SIZE_MAX - 1), 0);
	test_check_content(&buffer, length);
	ck_assert_ptr_eq(buffer.bytes, block);

	ck_assert_int_eq(provider_file_read(empty, &buffer, length), 0);
	ck_assert_uint_eq(buffer.length, 0);
	ck_assert_int_eq(provider_file_read(empty, &buffer, 0), 0);

	/* One byte over the limit is too large, and says so. */
	errno = 0;
	ck_assert_int_eq(provider_file_read(large, &buffer, length - 1), -1);
	ck_assert_int_eq(errno, EFBIG);
	ck_assert_uint_eq(buffer.length, 0);
	errno = 0;
	ck_assert_int_eq(provider_file_read(large, &buffer, 0), -1);
	ck_assert_int_eq(errno, EFBIG);

	/* A file that cannot be opened keeps open's reason. */
	errno = 0;
	ck_assert_int_eq(
	    provider_file_read("/nonexistent/file", &buffer, length), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_uint_eq(buffer.length, 0);
	errno = 0;
	ck_assert_int_eq(provider_file_read("/tmp", &buffer, length), -1);
	ck_assert_int_eq(errno, EISDIR);

	/* A file of /proc, whose size stat does not know. */
	if (access("/proc/diskstats", R_OK) == 0) {
		ck_assert_int_eq(provider_file_read(
		                     "/proc/diskstats", &buffer, SIZE_MAX - 1),
		    0);
		ck_assert(buffer.length == 0 ||
		          buffer.bytes[buffer.length - 1] == '\n');
	}

	provider_file_buffer_free(&buffer);
	ck_assert_ptr_null(buffer.bytes);
	ck_assert_uint_eq(buffer.capacity, 0);
	unlink(large);
	unlink(empty);
}
END_TEST

/* A problem is to be logged when the previous refresh did not have it:
 * once while it lasts, again after it went away and came back. */
START_TEST(test_common_warnings_once)
{
	struct provider_warnings warnings = {0};

	provider_warnings_begin(&warnings);
	ck_assert(provider_warnings_note(&warnings, 0, 3, "bad field"));
	ck_assert(provider_warnings_note(&warnings, 1, 3, "bad field"));
	provider_warnings_end(&warnings);

	/* Same problems: quiet. Another message on line 3: logged. */
	provider_warnings_begin(&warnings);
	ck_assert(!provider_warnings_note(&warnings, 0, 3, "bad field"));
	ck_assert(provider_warnings_note(&warnings, 0, 3, "too long"));
	provider_warnings_end(&warnings);

	/* Source 1's problem went away for one refresh... */
	provider_warnings_begin(&warnings);
	ck_assert(!provider_warnings_note(&warnings, 0, 3, "too long"));
	provider_warnings_end(&warnings);
	/* ...so it is logged again when it comes back. */
	provider_warnings_begin(&warnings);
	ck_assert(provider_warnings_note(&warnings, 1, 3, "bad field"));
	ck_assert(!provider_warnings_note(&warnings, 0, 3, "too long"));
	provider_warnings_end(&warnings);
	ck_assert_uint_eq(warnings.logged_count, 2);
	provider_warnings_free(&warnings);
	ck_assert_ptr_null(warnings.logged);
}
END_TEST

START_TEST(test_common_clock)
{
	uint64_t first = provider_monotonic_centiseconds();
	uint64_t second;
	struct timespec now;

	ck_assert_uint_ne(first, 0);
	usleep(30000);
	second = provider_monotonic_centiseconds();
	ck_assert_uint_ge(second, first + 2);
	ck_assert_int_eq(clock_gettime(CLOCK_MONOTONIC, &now), 0);
	ck_assert_uint_le(second,
	    (uint64_t)now.tv_sec * 100u + (uint64_t)now.tv_nsec / 10000000u);
}
END_TEST

static Suite *
devstat_test_suite(void)
{
	Suite *suite = suite_create("devstat");
	TCase *parse = tcase_create("parse");
	TCase *table = tcase_create("table");
	TCase *classify = tcase_create("classify");
	TCase *common = tcase_create("common");

	tcase_add_test(parse, test_parse_modern);
	tcase_add_test(parse, test_parse_eleven_fields);
	tcase_add_test(parse, test_parse_fifteen_fields);
	tcase_add_test(parse, test_parse_ancient_partition);
	tcase_add_test(parse, test_parse_future_fields);
	tcase_add_test(parse, test_parse_malformed_lines);
	tcase_add_test(parse, test_parse_large_values);
	tcase_add_test(parse, test_parse_names);
	tcase_add_test(parse, test_parse_layout);
	tcase_add_test(parse, test_parse_many);
	tcase_add_test(parse, test_field_masks);
	suite_add_tcase(suite, parse);

	tcase_add_test(table, test_table_wrap);
	tcase_add_test(table, test_table_wrap_twice);
	tcase_add_test(table, test_table_vanish_and_return);
	tcase_add_test(table, test_table_reset);
	tcase_add_test(table, test_table_renamed);
	tcase_add_test(table, test_table_order_and_admit);
	tcase_add_test(table, test_table_absent_fields);
	suite_add_tcase(suite, table);

	/* The tree is built and removed by the parent process, so a failed
	 * test (run in a child) cannot leave it behind. */
	tcase_add_unchecked_fixture(
	    classify, test_sysfs_setup, test_sysfs_teardown);
	tcase_add_test(classify, test_classify_disks);
	tcase_add_test(classify, test_classify_partitions);
	tcase_add_test(classify, test_classify_through_table);
	tcase_add_test(classify, test_rules);
	tcase_add_test(classify, test_sysfs_name);
	suite_add_tcase(suite, classify);

	tcase_add_test(common, test_common_grow);
	tcase_add_test(common, test_common_patterns_default);
	tcase_add_test(common, test_common_patterns_given);
	tcase_add_test(common, test_common_patterns_empty_lists);
	tcase_add_test(common, test_common_patterns_bad);
	tcase_add_test(common, test_common_file_read);
	tcase_add_test(common, test_common_clock);
	tcase_add_test(common, test_common_warnings_once);
	suite_add_tcase(suite, common);
	return suite;
}

int
main(void)
{
	return unit_run_suite(devstat_test_suite());
}
