/*
 * Unit tests of the evcnt provider's pure parts: the /proc/interrupts and
 * /proc/softirqs parser, and the mapping of rows to evcnt(9) counters with
 * their instance ids, labels and parents.
 *
 * Every text is handed to the parser in a heap block of exactly its
 * length, without a NUL, and freed right after the parse: AddressSanitizer
 * catches a read past the text or a row that still points into it.
 */
#define _GNU_SOURCE

#include "providers/evcnt/evcnt_event.h"
#include "providers/evcnt/evcnt_widen.h"
#include "providers/evcnt/proc_interrupts.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_runner.h"

/* Recorded on a 2-CPU x86 virtual machine (a few rows added from other
 * x86 machines: several actions, fasteoi, IR-PCI-MSI, no description). */
static const char evcnt_test_x86[] =
    "           CPU0       CPU1       \n"
    "  0:         46          0   IO-APIC   2-edge      timer\n"
    "  9:          0          3   IO-APIC   9-fasteoi   acpi\n"
    " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
    " 28:          0          0 PCI-MSIX-0000:00:01.0   0-edge      "
    "virtio0-config\n"
    " 36:          0      92442 PCI-MSIX-0000:00:02.0   1-edge      "
    "virtio1-req.0\n"
    " 120:        17         25  IR-PCI-MSI 327680-edge      xhci_hcd, "
    "foo\n"
    " 121:         0          0\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:     192747     208128   Local timer interrupts\n"
    "SPU:          0          0   Spurious interrupts\n"
    "RES:      55168      48122   Rescheduling interrupts\n"
    "CAL:     222260     193397   Function call interrupts\n"
    "TLB:      22000      19359   TLB shootdowns\n"
    "ERR:          0\n"
    "MIS:          3\n"
    "PIN:          0          0   Posted-interrupt notification event\n";

/* An arm64 machine with 4 CPUs: GICv3 and ITS rows, IPIs, a global Err. */
static const char evcnt_test_arm64[] =
    "           CPU0       CPU1       CPU2       CPU3       \n"
    " 11:      12345      11000      10500       9800     GICv3  27 Level  "
    "   arch_timer\n"
    " 13:          0          0          0          0     GICv3  33 Level  "
    "   uart-pl011\n"
    " 47:        190          0          0          0   ITS-MSI 16384 Edge "
    "     nvme0q0\n"
    "IPI0:      1200       1300       1250       1100       Rescheduling "
    "interrupts\n"
    "IPI1:       500        600        550        450       Function call "
    "interrupts\n"
    "IPI2:         0          0          0          0       CPU stop "
    "interrupts\n"
    "IPI3:         0          0          0          0       CPU stop (for "
    "crash dump) interrupts\n"
    "IPI4:        10         12         11          9       Timer broadcast "
    "interrupts\n"
    "IPI5:       300        280        290        310       IRQ work "
    "interrupts\n"
    "IPI6:         0          0          0          0       CPU wake-up "
    "interrupts\n"
    "Err:          0\n";

/* A 4-CPU machine with CPU1 offline. */
static const char evcnt_test_offline[] =
    "           CPU0       CPU2       CPU3       \n"
    " 24:          5          6          7  IO-APIC   5-edge      "
    "ACPI:Ged\n"
    "LOC:        100        200        300   Local timer interrupts\n"
    "ERR:          2\n";

static const char evcnt_test_softirqs[] =
    "                    CPU0       CPU1       \n"
    "          HI:          0          0\n"
    "       TIMER:      48668      54110\n"
    "      NET_TX:       1310       2000\n"
    "      NET_RX:       6146       3611\n"
    "       BLOCK:          0      92455\n"
    "    IRQ_POLL:          0          0\n"
    "     TASKLET:          3          1\n"
    "       SCHED:      84119      82843\n"
    "     HRTIMER:          0          0\n"
    "         RCU:     183748     200966\n";

#define EVCNT_TEST_WARNINGS_MAX 32

/* What the warn callback was told. */
struct evcnt_test_warnings {
	unsigned count;
	unsigned lines[EVCNT_TEST_WARNINGS_MAX];
	char messages[EVCNT_TEST_WARNINGS_MAX][256];
};

static void
evcnt_test_warn(void *opaque, unsigned line, const char *message)
{
	struct evcnt_test_warnings *warnings = opaque;

	ck_assert_uint_lt(warnings->count, EVCNT_TEST_WARNINGS_MAX);
	ck_assert_uint_lt(strlen(message), sizeof warnings->messages[0]);
	warnings->lines[warnings->count] = line;
	strcpy(warnings->messages[warnings->count], message);
	warnings->count++;
}

/* Parses length bytes of text from an exact-size heap copy. */
static int
evcnt_test_parse_length(struct proc_interrupts_table *table, const char *text,
    size_t length, struct evcnt_test_warnings *warnings)
{
	char *copy = malloc(length > 0 ? length : 1);
	int result;

	ck_assert_ptr_ne(copy, NULL);
	memcpy(copy, text, length);
	if (warnings != NULL)
		memset(warnings, 0, sizeof *warnings);
	errno = 0;
	result = proc_interrupts_parse(table, copy, length,
	    warnings != NULL ? evcnt_test_warn : NULL, warnings);
	memset(copy, 'Z', length); /* rows must not point into the text */
	free(copy);
	return result;
}

static int
evcnt_test_parse(struct proc_interrupts_table *table, const char *text,
    struct evcnt_test_warnings *warnings)
{
	return evcnt_test_parse_length(table, text, strlen(text), warnings);
}

static const struct proc_interrupts_row *
evcnt_test_row(const struct proc_interrupts_table *table, const char *key)
{
	for (size_t i = 0; i < table->row_count; i++)
		if (strcmp(table->rows[i].key, key) == 0)
			return &table->rows[i];
	ck_abort_msg("no row %s", key);
	return NULL;
}

static const struct evcnt_line *
evcnt_test_line(const struct evcnt_events *events, const char *label)
{
	for (size_t i = 0; i < events->count; i++)
		if (strcmp(events->lines[i].label, label) == 0)
			return &events->lines[i];
	ck_abort_msg("no line \"%s\"", label);
	return NULL;
}

#define EVCNT_TEST_ID(id, source, key, slot)                                   \
	do {                                                                   \
		ck_assert_uint_eq((id)[0], (source));                          \
		ck_assert_uint_eq((id)[1], (key));                             \
		ck_assert_uint_eq((id)[2], (slot));                            \
	} while (0)

/* FNV-1a 32-bit written out from its definition, to check the provider's. */
static uint32_t
evcnt_test_fnv(const char *text)
{
	uint32_t hash = 2166136261u;

	for (; *text != '\0'; text++) {
		hash ^= (unsigned char)*text;
		hash = (uint32_t)(hash * 16777619u);
	}
	return hash;
}

/* Degenerate hashes: every key collides. */
static uint32_t
evcnt_test_hash_100(const char *text)
{
	(void)text;
	return 100;
}

static uint32_t
evcnt_test_hash_max(const char *text)
{
	(void)text;
	return UINT32_MAX;
}

/* `text` parsed into `table` without a warning. */
static void
evcnt_test_parse_clean(struct proc_interrupts_table *table, const char *text)
{
	struct evcnt_test_warnings warnings;

	ck_assert_int_eq(evcnt_test_parse(table, text, &warnings), 0);
	ck_assert_uint_eq(warnings.count, 0);
}

/* Parses text as file and adds its lines to events; expects no warning. */
static void
evcnt_test_add(struct evcnt_events *events, struct proc_interrupts_table *table,
    const char *text, enum evcnt_file file)
{
	struct evcnt_test_warnings warnings = {0};

	evcnt_test_parse_clean(table, text);
	ck_assert_int_eq(
	    evcnt_events_add(events, table, file, evcnt_test_warn, &warnings),
	    0);
	ck_assert_uint_eq(warnings.count, 0);
}

/*
 * The fixture of both cases: `interrupts` starts empty, `parsed` (events
 * case) empty with the default key hash, to take the rows of `interrupts`;
 * both are freed after each test.
 */
static struct proc_interrupts_table interrupts;
static struct evcnt_events parsed;

static void
evcnt_test_setup_events(void)
{
	evcnt_events_init(&parsed, NULL);
}

static void
evcnt_test_teardown_events(void)
{
	evcnt_events_free(&parsed);
	proc_interrupts_free(&interrupts);
}

static void
evcnt_test_teardown_parse(void)
{
	proc_interrupts_free(&interrupts);
}

/* --- Parser ------------------------------------------------------------ */

START_TEST(test_parse_x86)
{
	const struct proc_interrupts_row *row;

	evcnt_test_parse_clean(&interrupts, evcnt_test_x86);
	ck_assert_uint_eq(interrupts.cpu_count, 2);
	ck_assert_uint_eq(interrupts.cpus[0], 0);
	ck_assert_uint_eq(interrupts.cpus[1], 1);
	ck_assert_uint_eq(interrupts.row_count, 16);

	row = &interrupts.rows[0];
	ck_assert_str_eq(row->key, "0");
	ck_assert_str_eq(row->description, "IO-APIC 2-edge timer");
	ck_assert_uint_eq(row->count_count, 2);
	ck_assert_uint_eq(row->counts[0], 46);
	ck_assert_uint_eq(row->counts[1], 0);
	ck_assert(!row->global);
	ck_assert_uint_eq(row->line, 2);

	row = evcnt_test_row(&interrupts, "28");
	ck_assert_str_eq(
	    row->description, "PCI-MSIX-0000:00:01.0 0-edge virtio0-config");
	ck_assert_uint_eq(row->line, 5);

	row = evcnt_test_row(&interrupts, "36");
	ck_assert_uint_eq(row->counts[1], 92442);

	row = evcnt_test_row(&interrupts, "120");
	ck_assert_str_eq(
	    row->description, "IR-PCI-MSI 327680-edge xhci_hcd, foo");
	ck_assert_uint_eq(row->counts[0], 17);
	ck_assert_uint_eq(row->counts[1], 25);

	row = evcnt_test_row(&interrupts, "121");
	ck_assert_str_eq(row->description, "");
	ck_assert_uint_eq(row->count_count, 2);

	row = evcnt_test_row(&interrupts, "LOC");
	ck_assert_str_eq(row->description, "Local timer interrupts");
	ck_assert_uint_eq(row->counts[0], 192747);
	ck_assert_uint_eq(row->counts[1], 208128);
	ck_assert_uint_eq(row->line, 10);

	row = evcnt_test_row(&interrupts, "ERR");
	ck_assert(row->global);
	ck_assert_uint_eq(row->count_count, 1);
	ck_assert_uint_eq(row->counts[0], 0);
	ck_assert_str_eq(row->description, "");
	row = evcnt_test_row(&interrupts, "MIS");
	ck_assert(row->global);
	ck_assert_uint_eq(row->counts[0], 3);
	ck_assert_uint_eq(row->line, 16);

	row = &interrupts.rows[interrupts.row_count - 1];
	ck_assert_str_eq(row->key, "PIN");
	ck_assert_str_eq(
	    row->description, "Posted-interrupt notification event");
	ck_assert_uint_eq(row->line, 17);
}
END_TEST

START_TEST(test_parse_arm64)
{
	const struct proc_interrupts_row *row;

	evcnt_test_parse_clean(&interrupts, evcnt_test_arm64);
	ck_assert_uint_eq(interrupts.cpu_count, 4);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(interrupts.cpus[i], i);
	ck_assert_uint_eq(interrupts.row_count, 11);

	row = evcnt_test_row(&interrupts, "11");
	ck_assert_str_eq(row->description, "GICv3 27 Level arch_timer");
	ck_assert_uint_eq(row->counts[3], 9800);
	row = evcnt_test_row(&interrupts, "47");
	ck_assert_str_eq(row->description, "ITS-MSI 16384 Edge nvme0q0");
	row = evcnt_test_row(&interrupts, "IPI0");
	ck_assert_str_eq(row->description, "Rescheduling interrupts");
	ck_assert_uint_eq(row->counts[2], 1250);
	row = evcnt_test_row(&interrupts, "IPI3");
	ck_assert_str_eq(
	    row->description, "CPU stop (for crash dump) interrupts");
	row = evcnt_test_row(&interrupts, "IPI6");
	ck_assert_str_eq(row->description, "CPU wake-up interrupts");
	ck_assert_uint_eq(row->line, 11);
	row = evcnt_test_row(&interrupts, "Err");
	ck_assert(row->global);
	ck_assert_uint_eq(row->count_count, 1);
}
END_TEST

/* Columns of offline CPUs are missing: the numbers come from the header. */
START_TEST(test_parse_offline_cpu)
{
	const struct proc_interrupts_row *row;

	evcnt_test_parse_clean(&interrupts, evcnt_test_offline);
	ck_assert_uint_eq(interrupts.cpu_count, 3);
	ck_assert_uint_eq(interrupts.cpus[0], 0);
	ck_assert_uint_eq(interrupts.cpus[1], 2);
	ck_assert_uint_eq(interrupts.cpus[2], 3);
	row = evcnt_test_row(&interrupts, "24");
	ck_assert_uint_eq(row->count_count, 3);
	ck_assert_uint_eq(row->counts[0], 5);
	ck_assert_uint_eq(row->counts[1], 6);
	ck_assert_uint_eq(row->counts[2], 7);
	ck_assert(evcnt_test_row(&interrupts, "ERR")->global);
}
END_TEST

START_TEST(test_parse_softirqs)
{
	const struct proc_interrupts_row *row;

	evcnt_test_parse_clean(&interrupts, evcnt_test_softirqs);
	ck_assert_uint_eq(interrupts.cpu_count, 2);
	ck_assert_uint_eq(interrupts.row_count, 10);
	ck_assert_str_eq(interrupts.rows[0].key, "HI");
	ck_assert_str_eq(interrupts.rows[9].key, "RCU");
	row = evcnt_test_row(&interrupts, "IRQ_POLL");
	ck_assert_str_eq(row->description, "");
	ck_assert_uint_eq(row->line, 7);
	row = evcnt_test_row(&interrupts, "NET_RX");
	ck_assert_uint_eq(row->counts[0], 6146);
	ck_assert_uint_eq(row->counts[1], 3611);
	ck_assert(!row->global);
}
END_TEST

/* Builds a /proc/interrupts text with cpu_count columns, CPU 5 offline. */
static char *
evcnt_test_many(size_t cpu_count)
{
	size_t size = 64 + cpu_count * 64;
	char *text = malloc(size);
	size_t used = 0;

	ck_assert_ptr_ne(text, NULL);
	used += (size_t)snprintf(text + used, size - used, "     ");
	for (size_t i = 0; i < cpu_count; i++)
		used += (size_t)snprintf(
		    text + used, size - used, " CPU%-7zu", i < 5 ? i : i + 1);
	used += (size_t)snprintf(text + used, size - used, "\n 30:");
	for (size_t i = 0; i < cpu_count; i++)
		used += (size_t)snprintf(
		    text + used, size - used, " %10zu", 1000 * i + 7);
	used += (size_t)snprintf(text + used, size - used,
	    "  PCI-MSI 524288-edge      nvme0q1\nLOC:");
	for (size_t i = 0; i < cpu_count; i++)
		used += (size_t)snprintf(text + used, size - used, " %10zu", i);
	used += (size_t)snprintf(
	    text + used, size - used, "   Local timer interrupts\nERR: 9\n");
	ck_assert_uint_lt(used, size);
	return text;
}

START_TEST(test_parse_many_cpus)
{
	const size_t cpu_count = 80;
	const struct proc_interrupts_row *row;
	char *text = evcnt_test_many(cpu_count);

	evcnt_test_parse_clean(&interrupts, text);
	free(text);
	ck_assert_uint_eq(interrupts.cpu_count, cpu_count);
	ck_assert_uint_eq(interrupts.cpus[4], 4);
	ck_assert_uint_eq(interrupts.cpus[5], 6);
	ck_assert_uint_eq(interrupts.cpus[cpu_count - 1], cpu_count);
	ck_assert_uint_eq(interrupts.row_count, 3);
	row = evcnt_test_row(&interrupts, "30");
	ck_assert_uint_eq(row->count_count, cpu_count);
	for (size_t i = 0; i < cpu_count; i++)
		ck_assert_uint_eq(row->counts[i], 1000 * i + 7);
	ck_assert_str_eq(row->description, "PCI-MSI 524288-edge nvme0q1");
	row = evcnt_test_row(&interrupts, "LOC");
	ck_assert_uint_eq(row->counts[cpu_count - 1], cpu_count - 1);
	row = evcnt_test_row(&interrupts, "ERR");
	ck_assert(row->global);
	ck_assert_uint_eq(row->counts[0], 9);
}
END_TEST

START_TEST(test_parse_descriptions)
{
	static const char text[] =
	    "  CPU0 CPU1\n"
	    "  5:  1  2\n"
	    "  6:  1  2   \t \n"
	    "  7:  1  2  IO-APIC \t  7-edge    \t  a, b,   c \r\n"
	    "FOO:  3  4   two   spaces\tand\ta  tab  \n"
	    "BAR:  5  6  7  8 digits after the counts\n"
	    "  8:  1  2  ends without a newline";

	evcnt_test_parse_clean(&interrupts, text);
	ck_assert_uint_eq(interrupts.row_count, 6);
	ck_assert_str_eq(evcnt_test_row(&interrupts, "5")->description, "");
	ck_assert_str_eq(evcnt_test_row(&interrupts, "6")->description, "");
	ck_assert_str_eq(evcnt_test_row(&interrupts, "7")->description,
	    "IO-APIC 7-edge a, b, c");
	ck_assert_str_eq(evcnt_test_row(&interrupts, "FOO")->description,
	    "two spaces and a tab");
	ck_assert_str_eq(evcnt_test_row(&interrupts, "BAR")->description,
	    "7 8 digits after the counts");
	ck_assert_str_eq(evcnt_test_row(&interrupts, "8")->description,
	    "ends without a newline");
	ck_assert_uint_eq(evcnt_test_row(&interrupts, "8")->line, 7);
}
END_TEST

START_TEST(test_parse_malformed)
{
	static const char text[] =
	    "           CPU0       CPU1\n"     /* 1 */
	    " 10:  1  2  IO-APIC 10-edge ok\n" /* 2 */
	    "this line has no colon\n"         /* 3 */
	    "  : 1 2\n"                        /* 4 */
	    "KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK"
	    ": 1 2\n"                             /* 5 */
	    "NOC:   abc def\n"                    /* 6 */
	    "BAD:  12 3x4 desc\n"                 /* 7 */
	    "BIG:  18446744073709551616 1 big\n"  /* 8 */
	    "MAX:  18446744073709551615 0 max\n"  /* 9 */
	    "ONE:  5 trailing\n"                  /* 10 */
	    "   \n"                               /* 11 */
	    "K Y: 1 2\n"                          /* 12 */
	    "ERR:  3\n"                           /* 13 */
	    "K\001: 1 2\n"                        /* 14 */
	    "NUM: 1 2x\n"                         /* 15 */
	    "LOC:  4  5  Local timer interrupts"; /* 16 */
	struct proc_interrupts_table table = {0};
	struct evcnt_test_warnings warnings;
	const struct proc_interrupts_row *row;

	ck_assert_int_eq(evcnt_test_parse(&table, text, &warnings), 0);
	ck_assert_uint_eq(warnings.count, 10);
	ck_assert_uint_eq(warnings.lines[0], 3);
	ck_assert_str_eq(warnings.messages[0], "no ':' after a key");
	ck_assert_uint_eq(warnings.lines[1], 4);
	ck_assert_str_eq(warnings.messages[1], "empty key");
	ck_assert_uint_eq(warnings.lines[2], 5);
	ck_assert_str_eq(warnings.messages[2], "key longer than 64 bytes");
	ck_assert_uint_eq(warnings.lines[3], 6);
	ck_assert_str_eq(warnings.messages[3], "NOC: no count");
	ck_assert_uint_eq(warnings.lines[4], 7);
	ck_assert_str_eq(warnings.messages[4], "BAD: count 2 is not a number");
	ck_assert_uint_eq(warnings.lines[5], 8);
	ck_assert_str_eq(warnings.messages[5], "BIG: count 1 exceeds 64 bits");
	ck_assert_uint_eq(warnings.lines[6], 10);
	ck_assert_str_eq(warnings.messages[6],
	    "ONE: \"trailing\" where count 2 of 2 must be");
	ck_assert_uint_eq(warnings.lines[7], 12);
	ck_assert_str_eq(warnings.messages[7],
	    "key with white space or unprintable characters");
	ck_assert_uint_eq(warnings.lines[8], 14);
	ck_assert_str_eq(warnings.messages[8],
	    "key with white space or unprintable characters");
	ck_assert_uint_eq(warnings.lines[9], 15);
	ck_assert_str_eq(warnings.messages[9], "NUM: count 2 is not a number");

	ck_assert_uint_eq(table.row_count, 4);
	row = &table.rows[0];
	ck_assert_str_eq(row->key, "10");
	ck_assert_uint_eq(row->line, 2);
	row = &table.rows[1];
	ck_assert_str_eq(row->key, "MAX");
	ck_assert_uint_eq(row->counts[0], UINT64_MAX);
	ck_assert_uint_eq(row->line, 9);
	row = &table.rows[2];
	ck_assert_str_eq(row->key, "ERR");
	ck_assert(row->global);
	ck_assert_uint_eq(row->counts[0], 3);
	row = &table.rows[3];
	ck_assert_str_eq(row->key, "LOC");
	ck_assert_uint_eq(row->counts[1], 5);
	ck_assert_uint_eq(row->line, 16);

	/* Neither 1 nor as many counts as CPU columns. */
	ck_assert_int_eq(evcnt_test_parse(&table,
	                     "CPU0 CPU1 CPU2\n"
	                     "A: 1 2 3\n"
	                     "B: 1 2\n"
	                     "C: 1\n"
	                     "D: 1 2 x\n",
	                     &warnings),
	    0);
	ck_assert_uint_eq(warnings.count, 2);
	ck_assert_uint_eq(warnings.lines[0], 3);
	ck_assert_str_eq(warnings.messages[0], "B: 2 counts for 3 CPU columns");
	ck_assert_uint_eq(warnings.lines[1], 5);
	ck_assert_str_eq(
	    warnings.messages[1], "D: \"x\" where count 3 of 3 must be");
	ck_assert_uint_eq(table.row_count, 2);
	ck_assert_str_eq(table.rows[0].key, "A");
	ck_assert_str_eq(table.rows[1].key, "C");
	ck_assert(table.rows[1].global);

	/* With a single CPU column, a single count is that CPU's. */
	ck_assert_int_eq(
	    evcnt_test_parse(&table, "CPU0\nERR: 4\n", &warnings), 0);
	ck_assert_uint_eq(warnings.count, 0);
	ck_assert_uint_eq(table.row_count, 1);
	ck_assert(!table.rows[0].global);
	proc_interrupts_free(&table);
}
END_TEST

START_TEST(test_parse_bad_header)
{
	static const struct {
		const char *text;
		const char *message;
	} cases[] = {
	    {"", "header: no CPU column"},
	    {"   \n 1: 2 3\n", "header: no CPU column"},
	    {"  CPU0 CPUX\n", "header: \"CPUX\" is not a CPU column"},
	    {"  CPU0 CPU\n", "header: \"CPU\" is not a CPU column"},
	    {" 24: 1 2 IO-APIC\n", "header: \"24:\" is not a CPU column"},
	    {"CPU1 CPU0\n", "header: CPU0 after CPU1"},
	    {"CPU0 CPU0\n", "header: CPU0 after CPU0"},
	    {"CPU4294967295\n",
	        "header: \"CPU4294967295\" is not a CPU column"},
	};
	struct proc_interrupts_table table = {0};
	struct evcnt_test_warnings warnings;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		/* A good parse first: a failed one must leave nothing. */
		ck_assert_int_eq(
		    evcnt_test_parse(&table, evcnt_test_x86, NULL), 0);
		ck_assert_int_eq(
		    evcnt_test_parse(&table, cases[i].text, &warnings), -1);
		ck_assert_int_eq(errno, EBADMSG);
		ck_assert_uint_eq(warnings.count, 1);
		ck_assert_uint_eq(warnings.lines[0], 1);
		ck_assert_str_eq(warnings.messages[0], cases[i].message);
		ck_assert_uint_eq(table.cpu_count, 0);
		ck_assert_uint_eq(table.row_count, 0);
	}

	/* The highest CPU number accepted; a header and no rows. */
	ck_assert_int_eq(
	    evcnt_test_parse(&table, "  CPU4294967294\n", &warnings), 0);
	ck_assert_uint_eq(warnings.count, 0);
	ck_assert_uint_eq(table.cpu_count, 1);
	ck_assert_uint_eq(table.cpus[0], 4294967294u);
	ck_assert_uint_eq(table.row_count, 0);
	proc_interrupts_free(&table);
}
END_TEST

/* One table parsed again and again, larger then smaller: nothing stale. */
START_TEST(test_parse_reuse)
{
	struct proc_interrupts_table table = {0};
	char *many = evcnt_test_many(70);

	ck_assert_int_eq(evcnt_test_parse(&table, evcnt_test_x86, NULL), 0);
	ck_assert_uint_eq(table.row_count, 16);
	ck_assert_int_eq(evcnt_test_parse(&table, many, NULL), 0);
	ck_assert_uint_eq(table.cpu_count, 70);
	ck_assert_uint_eq(table.row_count, 3);
	ck_assert_int_eq(evcnt_test_parse(&table, evcnt_test_offline, NULL), 0);
	ck_assert_uint_eq(table.cpu_count, 3);
	ck_assert_uint_eq(table.row_count, 3);
	ck_assert_str_eq(table.rows[1].key, "LOC");
	ck_assert_uint_eq(table.rows[1].counts[2], 300);
	free(many);
	proc_interrupts_free(&table);
	ck_assert_ptr_eq(table.rows, NULL);
	ck_assert_uint_eq(table.row_capacity, 0);
}
END_TEST

/* Reads a whole file with stdio; NULL when it cannot be read. */
static char *
evcnt_test_read(const char *path, size_t *length)
{
	FILE *file = fopen(path, "r");
	size_t capacity = 4096;
	char *text;

	if (file == NULL)
		return NULL;
	text = malloc(capacity);
	ck_assert_ptr_ne(text, NULL);
	*length = 0;
	for (;;) {
		size_t got = fread(text + *length, 1, capacity - *length, file);

		*length += got;
		if (got == 0)
			break;
		if (*length == capacity) {
			capacity *= 2;
			text = realloc(text, capacity);
			ck_assert_ptr_ne(text, NULL);
		}
	}
	fclose(file);
	return text;
}

/* This machine's files parse without a warning into unique ids. */
START_TEST(test_parse_this_machine)
{
	static const char *const paths[] = {
	    "/proc/interrupts", "/proc/softirqs"};
	struct proc_interrupts_table tables[2] = {{0}, {0}};
	struct evcnt_test_warnings warnings;
	struct evcnt_events events;

	evcnt_events_init(&events, NULL);
	for (size_t f = 0; f < 2; f++) {
		size_t length;
		char *text = evcnt_test_read(paths[f], &length);

		ck_assert_msg(text != NULL, "cannot read %s", paths[f]);
		ck_assert_int_eq(evcnt_test_parse_length(
		                     &tables[f], text, length, &warnings),
		    0);
		free(text);
		ck_assert_msg(warnings.count == 0, "%s:%u: %s", paths[f],
		    warnings.lines[0], warnings.messages[0]);
		ck_assert_uint_ge(tables[f].cpu_count, 1);
		ck_assert_uint_ge(tables[f].row_count, 1);
		ck_assert_int_eq(
		    evcnt_events_add(&events, &tables[f], (enum evcnt_file)f,
		        evcnt_test_warn, &warnings),
		    0);
		ck_assert_uint_eq(warnings.count, 0);
	}
	for (size_t i = 0; i < events.count; i++) {
		ck_assert_uint_ge(strlen(events.lines[i].label), 3);
		for (size_t j = 0; j < i; j++)
			ck_assert(
			    events.lines[i].id[0] != events.lines[j].id[0] ||
			    events.lines[i].id[1] != events.lines[j].id[1]);
	}
	evcnt_events_free(&events);
	proc_interrupts_free(&tables[0]);
	proc_interrupts_free(&tables[1]);
}
END_TEST

/* --- Events ------------------------------------------------------------ */

START_TEST(test_fnv1a)
{
	/* The published FNV-1a 32-bit test vectors. */
	ck_assert_uint_eq(evcnt_fnv1a(""), 0x811c9dc5u);
	ck_assert_uint_eq(evcnt_fnv1a("a"), 0xe40c292cu);
	ck_assert_uint_eq(evcnt_fnv1a("foobar"), 0xbf9cf968u);
	ck_assert_uint_eq(EVCNT_FNV_OFFSET_BASIS, 2166136261u);
	ck_assert_uint_eq(EVCNT_FNV_PRIME, 16777619u);
	/* Keys the provider meets, against the definition. */
	ck_assert_uint_eq(evcnt_fnv1a("LOC"), evcnt_test_fnv("LOC"));
	ck_assert_uint_eq(evcnt_fnv1a("NET_RX"), evcnt_test_fnv("NET_RX"));
	ck_assert_uint_eq(evcnt_fnv1a("IPI0"), evcnt_test_fnv("IPI0"));
	/* Bytes are taken unsigned. */
	ck_assert_uint_eq(evcnt_fnv1a("\xff"), evcnt_test_fnv("\xff"));
	ck_assert_uint_eq(
	    evcnt_fnv1a("\xff"), (0x811c9dc5u ^ 0xffu) * 16777619u);
}
END_TEST

/* The kernel's named keys do not collide, so their ids never depend on
 * which were seen first. */
START_TEST(test_fnv1a_kernel_keys)
{
	static const char *const keys[] = {"NMI", "LOC", "SPU", "PMI", "IWI",
	    "RTR", "RES", "CAL", "TLB", "TRM", "THR", "DFR", "MCE", "MCP",
	    "HYP", "HRE", "HVS", "ERR", "MIS", "PIN", "NPI", "PIW", "PMN",
	    "IPI0", "IPI1", "IPI2", "IPI3", "IPI4", "IPI5", "IPI6", "IPI7",
	    "Err", "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
	    "TASKLET", "SCHED", "HRTIMER", "RCU"};
	const size_t count = sizeof keys / sizeof keys[0];

	for (size_t i = 0; i < count; i++)
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(
			    evcnt_fnv1a(keys[i]) != evcnt_fnv1a(keys[j]),
			    "%s and %s collide", keys[i], keys[j]);
}
END_TEST

START_TEST(test_event_numbered)
{
	const struct evcnt_line *line;
	struct evcnt_child child;

	evcnt_test_add(
	    &parsed, &interrupts, evcnt_test_x86, EVCNT_FILE_INTERRUPTS);
	ck_assert_uint_eq(parsed.count, 16);

	line = &parsed.lines[2];
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_IRQ, 24, 0);
	ck_assert_int_eq(line->type, EVCNT_TYPE_INTR);
	ck_assert_int_eq(EVCNT_TYPE_INTR, 1);
	ck_assert(line->has_irq);
	ck_assert_uint_eq(line->irq, 24);
	ck_assert_str_eq(line->group, "IO-APIC");
	ck_assert_str_eq(line->name, "24 5-edge ACPI:Ged");
	ck_assert_str_eq(line->label, "IO-APIC 24 5-edge ACPI:Ged");
	ck_assert_uint_eq(line->total, 1);
	ck_assert_uint_eq(line->cpu_count, 2);
	ck_assert_uint_eq(line->line, 4);

	evcnt_line_child(line, 0, &child);
	EVCNT_TEST_ID(child.id, EVCNT_SOURCE_IRQ, 24, 1);
	EVCNT_TEST_ID(child.parent, EVCNT_SOURCE_IRQ, 24, 0);
	ck_assert_uint_eq(child.cpu, 0);
	ck_assert_uint_eq(child.count, 1);
	ck_assert_str_eq(child.label, "IO-APIC 24 5-edge ACPI:Ged cpu0");
	evcnt_line_child(line, 1, &child);
	EVCNT_TEST_ID(child.id, EVCNT_SOURCE_IRQ, 24, 2);
	EVCNT_TEST_ID(child.parent, EVCNT_SOURCE_IRQ, 24, 0);
	ck_assert_uint_eq(child.cpu, 1);
	ck_assert_uint_eq(child.count, 0);
	ck_assert_str_eq(child.label, "IO-APIC 24 5-edge ACPI:Ged cpu1");

	line = evcnt_test_line(
	    &parsed, "PCI-MSIX-0000:00:02.0 36 1-edge virtio1-req.0");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_IRQ, 36, 0);
	ck_assert_str_eq(line->group, "PCI-MSIX-0000:00:02.0");
	ck_assert_str_eq(line->name, "36 1-edge virtio1-req.0");
	ck_assert_uint_eq(line->total, 92442);

	line = evcnt_test_line(
	    &parsed, "IR-PCI-MSI 120 327680-edge xhci_hcd, foo");
	ck_assert_uint_eq(line->total, 42);
	ck_assert_uint_eq(line->irq, 120);

	/* No description: no chip to name the group after. */
	line = evcnt_test_line(&parsed, "irq 121");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_IRQ, 121, 0);
	ck_assert_str_eq(line->group, EVCNT_GROUP_UNKNOWN_CHIP);
	ck_assert_str_eq(line->name, "121");
	ck_assert_uint_eq(line->cpu_count, 2);
	evcnt_line_child(line, 1, &child);
	ck_assert_str_eq(child.label, "irq 121 cpu1");
}
END_TEST

START_TEST(test_event_named)
{
	const struct evcnt_line *line;
	struct evcnt_child child;

	evcnt_test_add(
	    &parsed, &interrupts, evcnt_test_x86, EVCNT_FILE_INTERRUPTS);

	line = evcnt_test_line(&parsed, "LOC Local timer interrupts");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("LOC"), 0);
	ck_assert_int_eq(line->type, EVCNT_TYPE_INTR);
	ck_assert(!line->has_irq);
	ck_assert_str_eq(line->group, "LOC");
	ck_assert_str_eq(line->name, "Local timer interrupts");
	ck_assert_uint_eq(line->total, 192747u + 208128u);
	ck_assert_uint_eq(line->cpu_count, 2);
	evcnt_line_child(line, 1, &child);
	EVCNT_TEST_ID(child.id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("LOC"), 2);
	EVCNT_TEST_ID(
	    child.parent, EVCNT_SOURCE_NAMED, evcnt_test_fnv("LOC"), 0);
	ck_assert_uint_eq(child.cpu, 1);
	ck_assert_uint_eq(child.count, 208128);
	ck_assert_str_eq(child.label, "LOC Local timer interrupts cpu1");

	/* Global counters: a total only, named after the key. */
	line = evcnt_test_line(&parsed, "ERR ERR");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("ERR"), 0);
	ck_assert_str_eq(line->group, "ERR");
	ck_assert_str_eq(line->name, "ERR");
	ck_assert_uint_eq(line->total, 0);
	ck_assert_uint_eq(line->cpu_count, 0);
	line = evcnt_test_line(&parsed, "MIS MIS");
	ck_assert_uint_eq(line->total, 3);
	ck_assert_uint_eq(line->cpu_count, 0);
	ck_assert_uint_eq(line->line, 16);
}
END_TEST

START_TEST(test_event_arm64)
{
	const struct evcnt_line *line;
	struct evcnt_child child;

	evcnt_test_add(
	    &parsed, &interrupts, evcnt_test_arm64, EVCNT_FILE_INTERRUPTS);
	ck_assert_uint_eq(parsed.count, 11);

	line = evcnt_test_line(&parsed, "GICv3 11 27 Level arch_timer");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_IRQ, 11, 0);
	ck_assert_str_eq(line->name, "11 27 Level arch_timer");
	ck_assert_uint_eq(line->total, 12345u + 11000u + 10500u + 9800u);
	evcnt_line_child(line, 3, &child);
	EVCNT_TEST_ID(child.id, EVCNT_SOURCE_IRQ, 11, 4);
	ck_assert_uint_eq(child.count, 9800);

	line = evcnt_test_line(
	    &parsed, "IPI3 CPU stop (for crash dump) interrupts");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("IPI3"), 0);
	ck_assert_str_eq(line->group, "IPI3");
	ck_assert_str_eq(line->name, "CPU stop (for crash dump) interrupts");
	line = evcnt_test_line(&parsed, "IPI5 IRQ work interrupts");
	ck_assert_uint_eq(line->total, 1180);
	line = evcnt_test_line(&parsed, "Err Err");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("Err"), 0);
	ck_assert_uint_eq(line->cpu_count, 0);
}
END_TEST

START_TEST(test_event_softirqs)
{
	struct proc_interrupts_table softirqs = {0};
	const struct evcnt_line *line;
	struct evcnt_child child;

	evcnt_test_add(
	    &parsed, &interrupts, evcnt_test_x86, EVCNT_FILE_INTERRUPTS);
	evcnt_test_add(
	    &parsed, &softirqs, evcnt_test_softirqs, EVCNT_FILE_SOFTIRQS);
	ck_assert_uint_eq(parsed.count, 26);
	ck_assert_str_eq(parsed.lines[16].label, "softirq HI");

	line = evcnt_test_line(&parsed, "softirq NET_RX");
	EVCNT_TEST_ID(
	    line->id, EVCNT_SOURCE_SOFTIRQ, evcnt_test_fnv("NET_RX"), 0);
	ck_assert_int_eq(line->type, EVCNT_TYPE_MISC);
	ck_assert_int_eq(EVCNT_TYPE_MISC, 0);
	ck_assert_str_eq(line->group, "softirq");
	ck_assert_str_eq(line->name, "NET_RX");
	ck_assert(!line->has_irq);
	ck_assert_uint_eq(line->total, 6146u + 3611u);
	evcnt_line_child(line, 0, &child);
	EVCNT_TEST_ID(
	    child.id, EVCNT_SOURCE_SOFTIRQ, evcnt_test_fnv("NET_RX"), 1);
	EVCNT_TEST_ID(
	    child.parent, EVCNT_SOURCE_SOFTIRQ, evcnt_test_fnv("NET_RX"), 0);
	ck_assert_str_eq(child.label, "softirq NET_RX cpu0");
	ck_assert_uint_eq(child.count, 6146);

	/* A clear starts the next refresh; the key tables stay. */
	evcnt_events_clear(&parsed);
	ck_assert_uint_eq(parsed.count, 0);
	ck_assert_uint_eq(parsed.named.count, 9);
	ck_assert_uint_eq(parsed.softirqs.count, 10);

	proc_interrupts_free(&softirqs);
}
END_TEST

/* Per-CPU children carry the header's CPU numbers: 0, 2, 3 in slots 1, 3,
 * 4 when CPU1 is offline. */
START_TEST(test_event_offline_cpu)
{
	static const uint32_t cpus[] = {0, 2, 3};
	static const uint64_t counts[] = {5, 6, 7};
	const struct evcnt_line *line;
	struct evcnt_child child;

	evcnt_test_add(
	    &parsed, &interrupts, evcnt_test_offline, EVCNT_FILE_INTERRUPTS);
	ck_assert_uint_eq(parsed.count, 3);
	line = &parsed.lines[0];
	ck_assert_uint_eq(line->total, 18);
	ck_assert_uint_eq(line->cpu_count, 3);
	for (size_t i = 0; i < 3; i++) {
		char label[64];

		evcnt_line_child(line, i, &child);
		EVCNT_TEST_ID(child.id, EVCNT_SOURCE_IRQ, 24, cpus[i] + 1);
		EVCNT_TEST_ID(child.parent, EVCNT_SOURCE_IRQ, 24, 0);
		ck_assert_uint_eq(child.cpu, cpus[i]);
		ck_assert_uint_eq(child.count, counts[i]);
		snprintf(label, sizeof label,
		    "IO-APIC 24 5-edge ACPI:Ged cpu%u", (unsigned)cpus[i]);
		ck_assert_str_eq(child.label, label);
	}
	evcnt_line_child(&parsed.lines[1], 2, &child);
	EVCNT_TEST_ID(child.id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("LOC"), 4);
	ck_assert_uint_eq(child.count, 300);
}
END_TEST

START_TEST(test_event_many_cpus)
{
	const size_t cpu_count = 72;
	const struct evcnt_line *line;
	struct evcnt_child child;
	char *text = evcnt_test_many(cpu_count);
	uint64_t total = 0;

	evcnt_test_add(&parsed, &interrupts, text, EVCNT_FILE_INTERRUPTS);
	free(text);
	line = evcnt_test_line(&parsed, "PCI-MSI 30 524288-edge nvme0q1");
	ck_assert_uint_eq(line->cpu_count, cpu_count);
	for (size_t i = 0; i < cpu_count; i++) {
		uint32_t cpu = (uint32_t)(i < 5 ? i : i + 1);
		char label[64];

		evcnt_line_child(line, i, &child);
		EVCNT_TEST_ID(child.id, EVCNT_SOURCE_IRQ, 30, cpu + 1);
		ck_assert_uint_eq(child.cpu, cpu);
		ck_assert_uint_eq(child.count, 1000 * i + 7);
		snprintf(label, sizeof label,
		    "PCI-MSI 30 524288-edge nvme0q1 cpu%u", (unsigned)cpu);
		ck_assert_str_eq(child.label, label);
		total += 1000 * i + 7;
	}
	ck_assert_uint_eq(line->total, total);
}
END_TEST

/* Labels and names: printable ASCII, at most 255 bytes; a child keeps its
 * " cpu<N>". */
START_TEST(test_event_labels)
{
	char text[1024];
	char long_text[301];
	char expected[256];
	const struct evcnt_line *line;
	struct evcnt_child child;

	memset(long_text, 'x', 300);
	long_text[300] = '\0';
	snprintf(text, sizeof text,
	    "CPU0 CPU1000\n"
	    "FOO: 1 2 %s\n"
	    "  5: 1 2 CHIP %s\n"
	    "BAD: 1 2 caf\xc3\xa9 \001x\x80y \xe2\x82\xac!\n"
	    "  6: 1 2 %s\n",
	    long_text, long_text, long_text);
	evcnt_test_add(&parsed, &interrupts, text, EVCNT_FILE_INTERRUPTS);
	ck_assert_uint_eq(parsed.count, 4);

	line = &parsed.lines[0];
	ck_assert_str_eq(line->group, "FOO");
	ck_assert_uint_eq(strlen(line->name), 255);
	ck_assert_int_eq(memcmp(line->name, long_text, 255), 0);
	ck_assert_uint_eq(strlen(line->label), 255);
	memset(expected, 'x', 255);
	memcpy(expected, "FOO ", 4);
	expected[255] = '\0';
	ck_assert_str_eq(line->label, expected);
	evcnt_line_child(line, 1, &child);
	ck_assert_uint_eq(strlen(child.label), 255);
	ck_assert_int_eq(memcmp(child.label, expected, 255 - 8), 0);
	ck_assert_str_eq(child.label + 255 - 8, " cpu1000");
	evcnt_line_child(line, 0, &child);
	ck_assert_uint_eq(strlen(child.label), 255);
	ck_assert_str_eq(child.label + 255 - 5, " cpu0");

	line = &parsed.lines[1];
	ck_assert_str_eq(line->group, "CHIP");
	ck_assert_uint_eq(strlen(line->name), 255);
	ck_assert_int_eq(memcmp(line->name, "5 xxx", 5), 0);
	memcpy(expected, "CHIP 5 ", 7);
	ck_assert_str_eq(line->label, expected);

	/* A UTF-8 sequence is one '?', any other odd byte one each. */
	line = &parsed.lines[2];
	ck_assert_str_eq(line->name, "caf? ?x?y ?!");
	ck_assert_str_eq(line->label, "BAD caf? ?x?y ?!");

	/* A chip name too long for a group. */
	line = &parsed.lines[3];
	ck_assert_uint_eq(strlen(line->group), 255);
	ck_assert_str_eq(line->name, "6");
	ck_assert_uint_eq(strlen(line->label), 255);
}
END_TEST

/* Ids stay put from one refresh to the next while rows come and go. */
START_TEST(test_event_key_stability)
{
	const struct evcnt_line *line;

	evcnt_test_add(&parsed, &interrupts,
	    "CPU0 CPU1\n"
	    " 24: 1 2 IO-APIC 5-edge ACPI:Ged\n"
	    "NMI: 0 0 Non-maskable interrupts\n"
	    "LOC: 5 6 Local timer interrupts\n",
	    EVCNT_FILE_INTERRUPTS);
	ck_assert_uint_eq(parsed.count, 3);
	line = evcnt_test_line(&parsed, "NMI Non-maskable interrupts");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("NMI"), 0);

	/* Next refresh: LOC and 24 gone, RES and 25 new, NMI moved. */
	evcnt_events_clear(&parsed);
	evcnt_test_add(&parsed, &interrupts,
	    "CPU0 CPU1\n"
	    "RES: 7 8 Rescheduling interrupts\n"
	    " 25: 1 2 IO-APIC 6-edge ACPI:Ged\n"
	    "NMI: 1 0 Non-maskable interrupts\n",
	    EVCNT_FILE_INTERRUPTS);
	ck_assert_uint_eq(parsed.count, 3);
	line = evcnt_test_line(&parsed, "NMI Non-maskable interrupts");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("NMI"), 0);
	ck_assert_uint_eq(line->total, 1);
	line = evcnt_test_line(&parsed, "RES Rescheduling interrupts");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("RES"), 0);
	line = evcnt_test_line(&parsed, "IO-APIC 25 6-edge ACPI:Ged");
	EVCNT_TEST_ID(line->id, EVCNT_SOURCE_IRQ, 25, 0);
	ck_assert_uint_eq(parsed.named.count, 3); /* LOC remembered */

	/* LOC back: its old id. */
	evcnt_events_clear(&parsed);
	evcnt_test_add(&parsed, &interrupts,
	    "CPU0\nLOC: 9 Local timer interrupts\n", EVCNT_FILE_INTERRUPTS);
	EVCNT_TEST_ID(
	    parsed.lines[0].id, EVCNT_SOURCE_NAMED, evcnt_test_fnv("LOC"), 0);
	ck_assert_uint_eq(parsed.lines[0].cpu_count, 1);
}
END_TEST

/* Adds text, expecting count collision warnings; returns them. */
static void
evcnt_test_add_colliding(struct evcnt_events *events,
    struct proc_interrupts_table *table, const char *text, enum evcnt_file file,
    struct evcnt_test_warnings *warnings, unsigned count)
{
	ck_assert_int_eq(evcnt_test_parse(table, text, warnings), 0);
	ck_assert_uint_eq(warnings->count, 0);
	ck_assert_int_eq(
	    evcnt_events_add(events, table, file, evcnt_test_warn, warnings),
	    0);
	ck_assert_uint_eq(warnings->count, count);
}

static uint32_t
evcnt_test_key(const struct evcnt_events *events, const char *group)
{
	for (size_t i = 0; i < events->count; i++)
		if (strcmp(events->lines[i].group, group) == 0)
			return events->lines[i].id[1];
	ck_abort_msg("no group %s", group);
	return 0;
}

START_TEST(test_event_collisions)
{
	struct proc_interrupts_table table = {0};
	struct evcnt_test_warnings warnings;
	struct evcnt_events events;

	evcnt_events_init(&events, evcnt_test_hash_100);
	evcnt_test_add_colliding(&events, &table, "CPU0\nMMM: 1\n",
	    EVCNT_FILE_INTERRUPTS, &warnings, 0);
	ck_assert_uint_eq(evcnt_test_key(&events, "MMM"), 100);

	/* New keys, taken in sorted order; MMM keeps its value. */
	evcnt_events_clear(&events);
	evcnt_test_add_colliding(&events, &table,
	    "CPU0\nZZZ: 1\nMMM: 2\nAAA: 3\n", EVCNT_FILE_INTERRUPTS, &warnings,
	    2);
	ck_assert_uint_eq(evcnt_test_key(&events, "MMM"), 100);
	ck_assert_uint_eq(evcnt_test_key(&events, "AAA"), 101);
	ck_assert_uint_eq(evcnt_test_key(&events, "ZZZ"), 102);
	ck_assert_uint_eq(warnings.lines[0], 4);
	ck_assert_str_eq(warnings.messages[0],
	    "key \"AAA\" hashes to 0x00000064, the id of key \"MMM\"; "
	    "\"AAA\" takes 0x00000065");
	ck_assert_uint_eq(warnings.lines[1], 2);
	ck_assert_str_eq(warnings.messages[1],
	    "key \"ZZZ\" hashes to 0x00000064, the id of key \"MMM\"; "
	    "\"ZZZ\" takes 0x00000066");

	/* Once assigned, for good: nothing reported again. */
	evcnt_events_clear(&events);
	evcnt_test_add_colliding(&events, &table, "CPU0\nZZZ: 1\nAAA: 3\n",
	    EVCNT_FILE_INTERRUPTS, &warnings, 0);
	ck_assert_uint_eq(evcnt_test_key(&events, "AAA"), 101);
	ck_assert_uint_eq(evcnt_test_key(&events, "ZZZ"), 102);

	/* Softirqs have their own keys: no collision with the named rows. */
	evcnt_test_add_colliding(&events, &table, "CPU0\nAAA: 3\n",
	    EVCNT_FILE_SOFTIRQS, &warnings, 0);
	ck_assert_uint_eq(
	    events.lines[events.count - 1].id[0], EVCNT_SOURCE_SOFTIRQ);
	ck_assert_uint_eq(events.lines[events.count - 1].id[1], 100);
	evcnt_events_free(&events);

	/* The same keys first seen in any order get the same values. */
	for (int order = 0; order < 2; order++) {
		evcnt_events_init(&events, evcnt_test_hash_100);
		evcnt_test_add_colliding(&events, &table,
		    order == 0 ? "CPU0\nZZZ: 1\nAAA: 2\nMMM: 3\n"
		               : "CPU0\nMMM: 1\nZZZ: 2\nAAA: 3\n",
		    EVCNT_FILE_INTERRUPTS, &warnings, 2);
		ck_assert_uint_eq(evcnt_test_key(&events, "AAA"), 100);
		ck_assert_uint_eq(evcnt_test_key(&events, "MMM"), 101);
		ck_assert_uint_eq(evcnt_test_key(&events, "ZZZ"), 102);
		ck_assert_str_eq(warnings.messages[1],
		    "key \"ZZZ\" hashes to 0x00000064, the id of key \"AAA\"; "
		    "\"ZZZ\" takes 0x00000066");
		evcnt_events_free(&events);
	}

	/* Probing wraps at 2^32. */
	evcnt_events_init(&events, evcnt_test_hash_max);
	evcnt_test_add_colliding(&events, &table, "CPU0\nB: 1\nA: 2\n",
	    EVCNT_FILE_SOFTIRQS, &warnings, 1);
	ck_assert_uint_eq(events.lines[0].id[1], 0);          /* B */
	ck_assert_uint_eq(events.lines[1].id[1], UINT32_MAX); /* A */
	evcnt_events_free(&events);
	proc_interrupts_free(&table);
}
END_TEST

/* Two real keys FNV-1a maps to one value (found by a search over
 * five-letter strings): "LQNQX" and "ZAORB", 0x671dc101. */
START_TEST(test_event_fnv_collision)
{
	struct proc_interrupts_table table = {0};
	struct evcnt_test_warnings warnings;
	struct evcnt_events events;

	ck_assert_uint_eq(evcnt_fnv1a("LQNQX"), 0x671dc101u);
	ck_assert_uint_eq(evcnt_fnv1a("ZAORB"), 0x671dc101u);

	/* Both new at once: sorted order decides. */
	evcnt_events_init(&events, NULL);
	evcnt_test_add_colliding(&events, &table,
	    "CPU0 CPU1\nZAORB: 1 2 z\nLQNQX: 3 4 l\n", EVCNT_FILE_INTERRUPTS,
	    &warnings, 1);
	ck_assert_uint_eq(evcnt_test_key(&events, "LQNQX"), 0x671dc101u);
	ck_assert_uint_eq(evcnt_test_key(&events, "ZAORB"), 0x671dc102u);
	ck_assert_uint_eq(warnings.lines[0], 2);
	ck_assert_str_eq(warnings.messages[0],
	    "key \"ZAORB\" hashes to 0x671dc101, the id of key \"LQNQX\"; "
	    "\"ZAORB\" takes 0x671dc102");
	evcnt_events_free(&events);

	/* One first, the other later: the first keeps the hash. */
	evcnt_events_init(&events, NULL);
	evcnt_test_add_colliding(&events, &table, "CPU0\nZAORB: 1\n",
	    EVCNT_FILE_SOFTIRQS, &warnings, 0);
	evcnt_events_clear(&events);
	evcnt_test_add_colliding(&events, &table, "CPU0\nLQNQX: 1\nZAORB: 1\n",
	    EVCNT_FILE_SOFTIRQS, &warnings, 1);
	ck_assert_uint_eq(events.lines[0].id[1], 0x671dc102u); /* LQNQX */
	ck_assert_uint_eq(events.lines[1].id[1], 0x671dc101u); /* ZAORB */
	evcnt_events_free(&events);
	proc_interrupts_free(&table);
}
END_TEST

START_TEST(test_keys_direct)
{
	struct evcnt_keys keys;
	struct evcnt_key_request requests[] = {
	    {"b", 4}, {"a", 3}, {"b", 2}, {"c", 5}};
	uint32_t value;

	evcnt_keys_init(&keys, evcnt_test_hash_100);
	ck_assert(!evcnt_keys_find(&keys, "a", &value));
	ck_assert_int_eq(evcnt_keys_add(&keys, requests, 4, NULL, NULL), 0);
	ck_assert_uint_eq(keys.count, 3);
	ck_assert(evcnt_keys_find(&keys, "a", &value));
	ck_assert_uint_eq(value, 100);
	ck_assert(evcnt_keys_find(&keys, "b", &value));
	ck_assert_uint_eq(value, 101);
	ck_assert(evcnt_keys_find(&keys, "c", &value));
	ck_assert_uint_eq(value, 102);
	ck_assert(!evcnt_keys_find(&keys, "d", &value));
	/* Known keys requested again change nothing. */
	ck_assert_int_eq(evcnt_keys_add(&keys, requests, 4, NULL, NULL), 0);
	ck_assert_uint_eq(keys.count, 3);
	evcnt_keys_free(&keys);
	ck_assert_uint_eq(keys.count, 0);
	ck_assert(keys.hash == evcnt_test_hash_100);

	evcnt_keys_init(&keys, NULL);
	ck_assert(keys.hash == evcnt_fnv1a);
	evcnt_keys_free(&keys);
}
END_TEST

/* Rows with one id in a table: the first stays, the others are reported. */
START_TEST(test_event_repeats)
{
	struct evcnt_test_warnings warnings;

	ck_assert_int_eq(evcnt_test_parse(&interrupts,
	                     "CPU0 CPU1\n"
	                     "  7: 1 2 X a\n"
	                     "LOC: 1 2 Local timer interrupts\n"
	                     " 07: 3 4 X b\n"
	                     "LOC: 5 6 again\n"
	                     "007: 3 4 X c\n"
	                     "4294967296: 1 1 X too large\n"
	                     "4294967295: 1 1 X largest\n",
	                     &warnings),
	    0);
	ck_assert_uint_eq(warnings.count, 0);
	ck_assert_int_eq(evcnt_events_add(&parsed, &interrupts,
	                     EVCNT_FILE_INTERRUPTS, evcnt_test_warn, &warnings),
	    0);
	ck_assert_uint_eq(warnings.count, 4);
	ck_assert_uint_eq(warnings.lines[0], 7);
	ck_assert_str_eq(warnings.messages[0],
	    "4294967296: IRQ number above 4294967295; skipped");
	ck_assert_uint_eq(warnings.lines[1], 4);
	ck_assert_str_eq(
	    warnings.messages[1], "\"X 7 b\" has the id of line 2; skipped");
	ck_assert_uint_eq(warnings.lines[2], 6);
	ck_assert_str_eq(
	    warnings.messages[2], "\"X 7 c\" has the id of line 2; skipped");
	ck_assert_uint_eq(warnings.lines[3], 5);
	ck_assert_str_eq(warnings.messages[3],
	    "\"LOC again\" has the id of line 3; skipped");

	ck_assert_uint_eq(parsed.count, 3);
	ck_assert_str_eq(parsed.lines[0].label, "X 7 a");
	ck_assert_str_eq(parsed.lines[1].label, "LOC Local timer interrupts");
	ck_assert_str_eq(parsed.lines[2].label, "X 4294967295 largest");
	EVCNT_TEST_ID(parsed.lines[2].id, EVCNT_SOURCE_IRQ, UINT32_MAX, 0);

	/* In /proc/softirqs a number is a name like any other. */
	evcnt_events_clear(&parsed);
	ck_assert_int_eq(
	    evcnt_test_parse(&interrupts, "CPU0\n12: 1\n", NULL), 0);
	ck_assert_int_eq(evcnt_events_add(&parsed, &interrupts,
	                     EVCNT_FILE_SOFTIRQS, NULL, NULL),
	    0);
	EVCNT_TEST_ID(
	    parsed.lines[0].id, EVCNT_SOURCE_SOFTIRQ, evcnt_test_fnv("12"), 0);
	ck_assert_str_eq(parsed.lines[0].label, "softirq 12");
}
END_TEST

/* --- 32-bit counts extended to 64 bits -------------------------------- */

/* One refresh: text as /proc/interrupts, then the counts extended. */
static void
evcnt_test_refresh(struct evcnt_events *events,
    struct proc_interrupts_table *table, struct evcnt_widener *widener,
    const char *text)
{
	evcnt_events_clear(events);
	evcnt_test_add(events, table, text, EVCNT_FILE_INTERRUPTS);
	ck_assert_int_eq(evcnt_widen(widener, events), 0);
}

/* The served count of a line's column, as its child carries it. */
static uint64_t
evcnt_test_child_count(
    const struct evcnt_events *events, const char *label, size_t column)
{
	const struct evcnt_line *line = evcnt_test_line(events, label);
	struct evcnt_child child;

	ck_assert_uint_lt(column, line->cpu_count);
	evcnt_line_child(line, column, &child);
	return child.count;
}

#define EVCNT_TEST_ACPI "IO-APIC 24 5-edge ACPI:Ged"
#define EVCNT_TEST_TIMER "IO-APIC 30 2-edge timer"
#define EVCNT_TEST_LOC "LOC Local timer interrupts"

/* Wraps are extended, a restart is not, new and returning counts start at
 * the kernel's value, totals add the extended counts. */
START_TEST(test_widen_refreshes)
{
	static const uint64_t two32 = UINT64_C(1) << 32;
	struct evcnt_widener widener = {0};

	evcnt_test_refresh(&parsed, &interrupts, &widener,
	    "           CPU0       CPU1\n"
	    " 24: 4294967290        100  IO-APIC 5-edge ACPI:Ged\n"
	    " 30:         50         60  IO-APIC 2-edge timer\n"
	    "LOC: 2147483000          7  Local timer interrupts\n"
	    "ERR: 4294967295\n");
	ck_assert_uint_eq(
	    evcnt_test_child_count(&parsed, EVCNT_TEST_ACPI, 0), 4294967290u);
	ck_assert_uint_eq(
	    evcnt_test_line(&parsed, EVCNT_TEST_ACPI)->total, 4294967390u);
	ck_assert_uint_eq(
	    evcnt_test_line(&parsed, "ERR ERR")->total, 4294967295u);

	/* 24 CPU0 wrapped (forward 11); LOC CPU0 fell by 2147482000, less
	 * than 2^31: it started over; ERR wrapped (forward 4); 30 is gone. */
	evcnt_test_refresh(&parsed, &interrupts, &widener,
	    "           CPU0       CPU1\n"
	    " 24:          5        150  IO-APIC 5-edge ACPI:Ged\n"
	    "LOC:       1000          8  Local timer interrupts\n"
	    "ERR:          3\n");
	ck_assert_uint_eq(parsed.count, 3);
	ck_assert_uint_eq(
	    evcnt_test_child_count(&parsed, EVCNT_TEST_ACPI, 0), two32 + 5);
	ck_assert_uint_eq(
	    evcnt_test_child_count(&parsed, EVCNT_TEST_ACPI, 1), 150);
	ck_assert_uint_eq(
	    evcnt_test_line(&parsed, EVCNT_TEST_ACPI)->total, two32 + 155);
	ck_assert_uint_eq(
	    evcnt_test_child_count(&parsed, EVCNT_TEST_LOC, 0), 1000);
	ck_assert_uint_eq(
	    evcnt_test_line(&parsed, EVCNT_TEST_LOC)->total, 1008);
	ck_assert_uint_eq(
	    evcnt_test_line(&parsed, "ERR ERR")->total, two32 + 3);

	/* CPU2 comes online; 30 is back: both start at the kernel's value. */
	evcnt_test_refresh(&parsed, &interrupts, &widener,
	    "           CPU0       CPU1       CPU2\n"
	    " 24:         10        150          7  IO-APIC 5-edge ACPI:Ged\n"
	    " 30:          1          2          3  IO-APIC 2-edge timer\n"
	    "LOC:       1001          9          4  Local timer interrupts\n"
	    "ERR:          3\n");
	ck_assert_uint_eq(
	    evcnt_test_child_count(&parsed, EVCNT_TEST_ACPI, 0), two32 + 10);
	ck_assert_uint_eq(
	    evcnt_test_child_count(&parsed, EVCNT_TEST_ACPI, 2), 7);
	ck_assert_uint_eq(
	    evcnt_test_line(&parsed, EVCNT_TEST_ACPI)->total, two32 + 167);
	ck_assert_uint_eq(
	    evcnt_test_child_count(&parsed, EVCNT_TEST_TIMER, 1), 2);
	ck_assert_uint_eq(evcnt_test_line(&parsed, EVCNT_TEST_TIMER)->total, 6);
	ck_assert_uint_eq(
	    evcnt_test_line(&parsed, EVCNT_TEST_LOC)->total, 1014);

	/* Up by almost 2^32 in one step, then a second wrap. */
	evcnt_test_refresh(&parsed, &interrupts, &widener,
	    "           CPU0       CPU1       CPU2\n"
	    " 24: 4294967000        150          7  IO-APIC 5-edge ACPI:Ged\n"
	    "ERR:          3\n");
	ck_assert_uint_eq(evcnt_test_child_count(&parsed, EVCNT_TEST_ACPI, 0),
	    two32 + 4294967000u);
	evcnt_test_refresh(&parsed, &interrupts, &widener,
	    "           CPU0       CPU1       CPU2\n"
	    " 24:        100        150          7  IO-APIC 5-edge ACPI:Ged\n"
	    "ERR:          3\n");
	ck_assert_uint_eq(evcnt_test_child_count(&parsed, EVCNT_TEST_ACPI, 0),
	    2 * two32 + 100);
	ck_assert_uint_eq(
	    evcnt_test_line(&parsed, EVCNT_TEST_ACPI)->total, 2 * two32 + 257);

	evcnt_widener_free(&widener);
}
END_TEST

/* A count wider than 32 bits (a kernel that some day keeps 64) is taken
 * as it is: up by the difference, and any decrease is a restart. */
START_TEST(test_widen_wide_counts)
{
	struct evcnt_widener widener = {0};

	evcnt_test_refresh(&parsed, &interrupts, &widener,
	    "           CPU0\n"
	    "LOC: 10000000000  Local timer interrupts\n");
	evcnt_test_refresh(&parsed, &interrupts, &widener,
	    "           CPU0\n"
	    "LOC: 10000000500  Local timer interrupts\n");
	ck_assert_uint_eq(evcnt_test_child_count(&parsed, EVCNT_TEST_LOC, 0),
	    UINT64_C(10000000500));
	evcnt_test_refresh(&parsed, &interrupts, &widener,
	    "           CPU0\n"
	    "LOC:         20  Local timer interrupts\n");
	ck_assert_uint_eq(
	    evcnt_test_child_count(&parsed, EVCNT_TEST_LOC, 0), 20);

	evcnt_widener_free(&widener);
}
END_TEST

static Suite *
evcnt_test_suite(void)
{
	Suite *suite = suite_create("evcnt");
	TCase *parse = tcase_create("parse");
	TCase *events = tcase_create("events");

	tcase_add_checked_fixture(parse, NULL, evcnt_test_teardown_parse);
	tcase_add_test(parse, test_parse_x86);
	tcase_add_test(parse, test_parse_arm64);
	tcase_add_test(parse, test_parse_offline_cpu);
	tcase_add_test(parse, test_parse_softirqs);
	tcase_add_test(parse, test_parse_many_cpus);
	tcase_add_test(parse, test_parse_descriptions);
	tcase_add_test(parse, test_parse_malformed);
	tcase_add_test(parse, test_parse_bad_header);
	tcase_add_test(parse, test_parse_reuse);
	tcase_add_test(parse, test_parse_this_machine);
	suite_add_tcase(suite, parse);

	tcase_add_checked_fixture(
	    events, evcnt_test_setup_events, evcnt_test_teardown_events);
	tcase_add_test(events, test_fnv1a);
	tcase_add_test(events, test_fnv1a_kernel_keys);
	tcase_add_test(events, test_event_numbered);
	tcase_add_test(events, test_event_named);
	tcase_add_test(events, test_event_arm64);
	tcase_add_test(events, test_event_softirqs);
	tcase_add_test(events, test_event_offline_cpu);
	tcase_add_test(events, test_event_many_cpus);
	tcase_add_test(events, test_event_labels);
	tcase_add_test(events, test_event_key_stability);
	tcase_add_test(events, test_event_collisions);
	tcase_add_test(events, test_event_fnv_collision);
	tcase_add_test(events, test_keys_direct);
	tcase_add_test(events, test_event_repeats);
	tcase_add_test(events, test_widen_refreshes);
	tcase_add_test(events, test_widen_wide_counts);
	suite_add_tcase(suite, events);
	return suite;
}

int
main(void)
{
	return unit_run_suite(evcnt_test_suite());
}
