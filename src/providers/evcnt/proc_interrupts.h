/*
 * proc_interrupts: parse the table format of /proc/interrupts and
 * /proc/softirqs.
 *
 * Both files are a header line naming the online CPUs, one column each
 * ("CPU0 CPU2 CPU3" when CPU1 is offline), then one row per counter:
 *
 *            CPU0       CPU1
 *   24:         1          0  IO-APIC   5-edge      ACPI:Ged
 *  LOC:    192747     208128  Local timer interrupts
 *  ERR:         0
 *
 * a key before the first ':', one count per CPU column (or a single count
 * for a counter the kernel keeps globally, as ERR and MIS on x86), then an
 * optional description.
 *
 * This part of the evcnt provider knows nothing of dcistat's provider ABI
 * and does no I/O, so the unit tests can feed it recorded samples. It keeps
 * its memory between parses, so parsing the same machine's files again
 * allocates nothing. Everything here carries the proc_interrupts_ prefix;
 * the plug-in exports none of it.
 */
#ifndef PROC_INTERRUPTS_H
#define PROC_INTERRUPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* The longest key accepted, in bytes. The kernel's are a few characters
 * ("NMI", "IPI0", "IRQ_POLL", an IRQ number); a longer one means the line
 * is not what this parser understands. */
#define PROC_INTERRUPTS_KEY_MAX 64u

/* The highest CPU number accepted in the header, so that a CPU's slot in an
 * instance id (its number + 1) fits in 32 bits. */
#define PROC_INTERRUPTS_CPU_MAX (UINT32_MAX - 1u)

/* One row of the table. The strings and counts belong to the table and
 * stay valid until its next parse or free. */
struct proc_interrupts_row {
	const char *key; /* 1..PROC_INTERRUPTS_KEY_MAX printable characters
	                    without white space or ':' */
	/* The rest of the line after the counts, runs of white space
	 * collapsed to one space, trimmed; "" when there is none. */
	const char *description;
	/* One count per CPU column, in column order (cpu_count of them), or
	 * a single count when global is set. */
	const uint64_t *counts;
	size_t count_count;
	/* A single count on a table with more than one CPU column: a counter
	 * without per-CPU breakdown (ERR, MIS). */
	bool global;
	unsigned line; /* 1-based line number in the file */
};

/*
 * A parsed file. Zero it before the first parse; proc_interrupts_free
 * releases it. Only the members above the line are meant for readers.
 */
struct proc_interrupts_table {
	const uint32_t *cpus; /* the CPU number of each column */
	size_t cpu_count;     /* >= 1 after a successful parse */
	const struct proc_interrupts_row *rows;
	size_t row_count;
	/* ------------------------------------------------------------- */
	uint32_t *cpu_items;
	size_t cpu_capacity;
	struct proc_interrupts_row *row_items;
	size_t row_capacity;
	uint64_t *count_items;
	size_t count_capacity;
	char *text_items; /* keys and descriptions, NUL-terminated */
	size_t text_capacity;
};

/*
 * Told about one line that was skipped: line is its 1-based number,
 * message (valid during the call only) what is wrong with it, naming the
 * line's key when it has one.
 */
typedef void (*proc_interrupts_warn)(
    void *opaque, unsigned line, const char *message);

/*
 * Parses length bytes of text (a whole file; need not be NUL-terminated)
 * into table, replacing what it held.
 *
 * Rows that are malformed are skipped and reported through warn (when not
 * NULL): no ':', an empty key or one too long or with white space or
 * unprintable characters in it, no count, a count that is not a decimal
 * number or does not fit in 64 bits, a number of counts that is neither
 * the number of CPU columns nor 1 (a single count followed by text is
 * malformed too). Lines of white space only are ignored. Duplicate keys
 * are kept: telling them apart is the caller's business.
 *
 * Returns 0, or -1 with errno: EBADMSG when the header (line 1) is missing
 * or is not a list of distinct "CPU<n>" columns, n <= PROC_INTERRUPTS_CPU_MAX
 * (reported through warn too); ENOMEM. After a failure the table holds no
 * rows and no CPUs.
 */
/* Formats a message and hands it to warn (nothing when warn is NULL); for
 * the parser and for the code that maps its rows to events. */
__attribute__((format(printf, 4, 5))) void proc_interrupts_report(
    proc_interrupts_warn warn, void *opaque, unsigned line, const char *format,
    ...);

int proc_interrupts_parse(struct proc_interrupts_table *table, const char *text,
    size_t length, proc_interrupts_warn warn, void *opaque);

/* Releases the table's memory and zeroes it. */
void proc_interrupts_free(struct proc_interrupts_table *table);

#pragma GCC visibility pop

#endif
