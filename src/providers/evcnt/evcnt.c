/*
 * evcnt: a dcistat provider for Linux interrupt and softirq counts, served
 * as event counters in the NetBSD evcnt(9) model: each counter has a group,
 * a name, a type (misc, interrupt) and an optional parent counter.
 *
 * One class, evcnt {1, 3}. Each row of /proc/interrupts and /proc/softirqs
 * is a counter line: an instance for its total over the CPUs, and one per
 * CPU column whose parent (dciInstanceParent) is that total. Instance ids
 * are three words {source, key, cpu slot}, levels {EVENT, 8} {PROCESSOR,
 * 4}: source 1 numbered interrupt (key: its IRQ number), 2 named interrupt
 * row such as LOC or IPI0, 3 softirq (key: the FNV-1a 32-bit hash of the
 * row's key, so ids survive restarts; see evcnt_event.h for collisions);
 * slot 0 the total, N + 1 CPU N. A row with a single count on a machine
 * with more CPUs (ERR, MIS on x86) has a total only. Labels are "<group>
 * <name>" for a total, "<group> <name> cpu<N>" for a per-CPU count.
 *
 * Datum ids are stable and part of the provider's interface:
 *   1 count   the number of events (the sum over the CPU columns for a
 *             total), a 64-bit counter in the unit events for interrupts
 *             and softirqs alike
 *   2 type    evcnt(9)'s type: 0 misc (softirqs), 1 intr (interrupts)
 *   3 group   4 name  evcnt(9)'s; a per-CPU count has its total's
 *   5 cpu     the CPU number, on per-CPU counts only
 *   6 irq     the IRQ number, on numbered interrupts (total and per-CPU)
 *
 * Each refresh reads each file once into a buffer kept between refreshes,
 * parses it and serves everything it shows: CPUs going offline or online
 * and interrupt lines coming and going simply change the instances. The
 * kernel keeps its counts in 32 bits; they are served extended to 64 bits
 * from one refresh to the next (evcnt_widen.h), which misreads a count
 * that moves by 2^31 or more between two refreshes, so init declares a
 * refresh limit (dci_refresh_limit) in which none can at
 * EVCNT_EVENTS_PER_SECOND_MAX. A total is the sum of its extended per-CPU
 * counts. Counts can still go backwards: a total loses the counts of a CPU
 * that goes offline, and a line freed and requested again starts over.
 * The host flags such a decrease of a 64-bit counter as a discontinuity;
 * nothing to do here.
 * A malformed line is skipped and logged once, until a refresh finds it
 * gone.
 *
 * Options (read once in init):
 *   include, exclude  each a shell glob or a list of them (fnmatch(3), no
 *                     flags) matched against a total's label, e.g.
 *                     "IO-APIC 24 5-edge ACPI:Ged", "LOC Local timer
 *                     interrupts", "softirq NET_RX". A line is served when
 *                     include is absent or one of its patterns matches, and
 *                     no exclude pattern matches; its per-CPU counts
 *                     follow it.
 *   per-cpu           yes (default) or no: serve the per-CPU counts.
 *   softirqs          yes (default) or no: serve /proc/softirqs too; when
 *                     yes, a refresh fails if it cannot be read.
 */
#define _GNU_SOURCE

#include <dcistat/provider.h>

#include "evcnt_event.h"
#include "format/datum_forms.h"
#include "format/evcnt_model.h"
#include "evcnt_widen.h"
#include "proc_interrupts.h"
#include "providers/common/start.h"
#include "providers/common/file_buffer.h"
#include "providers/common/patterns.h"
#include "providers/common/warnings.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define EVCNT_FILE_COUNT 2
/* A file larger than this is refused rather than read on and on. */
#define EVCNT_FILE_MAX (64u * 1024u * 1024u)

_Static_assert(EVCNT_STRING_SIZE == DCI_LABEL_MAX + 1, "label size");
_Static_assert(EVCNT_STRING_SIZE == EVCNT_MODEL_STRING_SIZE, "model size");
_Static_assert(EVCNT_ID_WORDS <= DCI_INSTANCE_ID_MAX_WORDS, "id size");

static const char *const evcnt_paths[EVCNT_FILE_COUNT] = {
    [EVCNT_FILE_INTERRUPTS] = "/proc/interrupts",
    [EVCNT_FILE_SOFTIRQS] = "/proc/softirqs",
};

static const struct dci_supplier_info evcnt_supplier = {
    .module = "evcnt",
    .title = "Event counters",
    .description = "Linux interrupt and softirq counts as evcnt(9) event "
                   "counters, from /proc/interrupts and /proc/softirqs",
    .type = 0,
    .version = 100,
};

static const uint32_t evcnt_class_id[] = {1, 3};

static const struct dci_instance_level evcnt_levels[] = {
    {.itype = DCI_ITYPE_EVENT, .size = 8},
    {.itype = DCI_ITYPE_PROCESSOR, .size = 4},
};

_Static_assert(
    sizeof evcnt_levels / sizeof evcnt_levels[0] == 2 && EVCNT_ID_WORDS == 3,
    "instance levels and id words");

/* More events per second than one count (one line on one CPU) can take:
 * the kernel spends well over 200 ns on each interrupt or softirq run, so
 * one CPU cannot reach this rate on one line. */
#define EVCNT_EVENTS_PER_SECOND_MAX (UINT64_C(1) << 22)
/* The longest interval between refreshes in which no count moves by 2^31,
 * the most evcnt_widen tells from a restart. */
#define EVCNT_REFRESH_LIMIT_MILLISECONDS                                       \
	((unsigned)((UINT64_C(1) << 31) * 1000 / EVCNT_EVENTS_PER_SECOND_MAX))

struct evcnt_context {
	struct provider_context base; /* first: provider_fini */
	struct dci_class *class_handle;
	struct provider_patterns patterns;
	bool per_cpu;
	bool softirqs;
	struct provider_file_buffer buffers[EVCNT_FILE_COUNT];
	struct proc_interrupts_table tables[EVCNT_FILE_COUNT];
	struct evcnt_events events;
	struct evcnt_widener widener; /* the counts of the last refresh */
	/* Malformed lines, each logged once while it stays malformed. */
	struct provider_warnings warnings;
	enum evcnt_file parsing; /* the file the warnings are about */
};

/* The warn callback of the parser and of the event mapping: logs a problem
 * the previous refresh did not have. */
static void
evcnt_warn(void *opaque, unsigned line, const char *message)
{
	struct evcnt_context *context = opaque;

	if (provider_warnings_note(
	        &context->warnings, context->parsing, line, message))
		dci_log(context->base.host, DCI_LOG_WARNING, "%s:%u: %s",
		    evcnt_paths[context->parsing], line, message);
}

static int
evcnt_read_options(struct dci_host *host, struct evcnt_context *context)
{
	int per_cpu;
	int softirqs;

	if (provider_patterns_read(host, &context->patterns, NULL, 0) != 0)
		return -1;
	per_cpu = dci_option_boolean(host, "per-cpu", 1);
	softirqs = dci_option_boolean(host, "softirqs", 1);
	if (per_cpu < 0 || softirqs < 0)
		return -1;
	context->per_cpu = per_cpu != 0;
	context->softirqs = softirqs != 0;
	return 0;
}

/* Frees what the context holds (struct provider_context). */
static void
evcnt_release(void *opaque)
{
	struct evcnt_context *context = opaque;

	provider_patterns_free(&context->patterns);
	for (size_t i = 0; i < EVCNT_FILE_COUNT; i++) {
		provider_file_buffer_free(&context->buffers[i]);
		proc_interrupts_free(&context->tables[i]);
	}
	evcnt_events_free(&context->events);
	evcnt_widener_free(&context->widener);
	provider_warnings_free(&context->warnings);
}

static int
evcnt_init(struct dci_host *host, void **context_pointer)
{
	struct evcnt_context *context;
	struct dci_class_info class_info;

	context = provider_context_new(
	    host, context_pointer, sizeof *context, evcnt_release);
	if (context == NULL)
		return -1;
	evcnt_events_init(&context->events, NULL);

	if (evcnt_read_options(host, context) != 0)
		return -1;

	class_info = (struct dci_class_info)CLASS_INFO(evcnt_class_id,
	    FORM_ELEMENTS(evcnt_class_id), "evcnt",
	    "Event counters (evcnt(9)): interrupts and softirqs, a total per "
	    "line and its per-CPU counts",
	    evcnt_levels, FORM_ELEMENTS(evcnt_levels), evcnt_model_datums,
	    EVCNT_MODEL_DATUM_COUNT);
	context->class_handle = provider_register_class(host, &evcnt_supplier,
	    &class_info, EVCNT_REFRESH_LIMIT_MILLISECONDS);
	if (context->class_handle == NULL)
		return -1; /* the host has logged why */
	return 0;
}

/* Reads and parses one file and adds its lines to context->events.
 * Returns 0, or -1 after logging why. */
static int
evcnt_collect_file(struct evcnt_context *context, enum evcnt_file file)
{
	struct provider_file_buffer *buffer = &context->buffers[file];
	struct proc_interrupts_table *table = &context->tables[file];
	const char *path = evcnt_paths[file];

	if (provider_file_read(path, buffer, EVCNT_FILE_MAX) != 0) {
		dci_log(context->base.host, DCI_LOG_ERR, "cannot read %s: %s%s",
		    path, strerror(errno),
		    file == EVCNT_FILE_SOFTIRQS
		        ? " (set the option softirqs: no to do without it)"
		        : "");
		return -1;
	}
	context->parsing = file;
	if (proc_interrupts_parse(table, buffer->bytes, buffer->length,
	        evcnt_warn, context) != 0) {
		if (errno == EBADMSG)
			dci_log(context->base.host, DCI_LOG_ERR,
			    "%s: its first line does not list CPU columns; not "
			    "read",
			    path);
		else
			dci_log(context->base.host, DCI_LOG_ERR,
			    "cannot parse %s: %s", path, strerror(errno));
		return -1;
	}
	if (evcnt_events_add(
	        &context->events, table, file, evcnt_warn, context) != 0) {
		dci_log(context->base.host, DCI_LOG_ERR,
		    "cannot map the counters of %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Stores one row of `line`, in two calls (the numbers, then the names):
 * its count, the CPU of a per-CPU count (`cpu` NULL for the total), and
 * the datums a total and its per-CPU counts share. A value the host
 * refuses leaves just its row out; the host says why when the batch is
 * committed. */
static void
evcnt_set_row(struct dci_batch *batch, long row, const struct evcnt_line *line,
    uint64_t count, const uint32_t *cpu)
{
	struct dci_row_value numbers[4];
	const struct dci_row_bytes names[] = {
	    dci_row_string(EVCNT_DATUM_GROUP, line->group),
	    dci_row_string(EVCNT_DATUM_NAME, line->name),
	};
	size_t number_count = 0;

	numbers[number_count++] = dci_row_unsigned(EVCNT_DATUM_COUNT, count);
	if (cpu != NULL)
		numbers[number_count++] =
		    dci_row_unsigned(EVCNT_DATUM_CPU, *cpu);
	numbers[number_count++] =
	    dci_row_unsigned(EVCNT_DATUM_TYPE, (uint64_t)line->type);
	if (line->has_irq)
		numbers[number_count++] =
		    dci_row_unsigned(EVCNT_DATUM_IRQ, line->irq);
	(void)dci_batch_set_row(batch, row, numbers, number_count);
	(void)dci_batch_set_row_bytes(
	    batch, row, names, sizeof names / sizeof names[0]);
}

/* Adds a served line's total and, if wanted, its per-CPU counts. */
static void
evcnt_add_line(struct evcnt_context *context, struct dci_batch *batch,
    const struct evcnt_line *line)
{
	struct evcnt_child child;
	long row;

	row = dci_batch_instance(batch, line->id, EVCNT_ID_WORDS, line->label);
	if (row < 0)
		return; /* the host says why; serve the others */
	evcnt_set_row(batch, row, line, line->total, NULL);
	if (!context->per_cpu)
		return;
	for (size_t column = 0; column < line->cpu_count; column++) {
		evcnt_line_child(line, column, &child);
		row = dci_batch_instance(
		    batch, child.id, EVCNT_ID_WORDS, child.label);
		if (row < 0)
			continue;
		/* A link the host refuses is logged by it; the count is
		 * still right without. */
		(void)dci_batch_instance_parent(
		    batch, row, child.parent, EVCNT_ID_WORDS);
		evcnt_set_row(batch, row, line, child.count, &child.cpu);
	}
}

/* Fills and commits a batch from context->events. Returns 0, or -1 after
 * logging why. */
static int
evcnt_publish(struct evcnt_context *context)
{
	struct dci_batch *batch;

	batch = dci_batch_begin(context->base.host, context->class_handle);
	if (batch == NULL) {
		dci_log(context->base.host, DCI_LOG_ERR,
		    "cannot begin a batch for class evcnt");
		return -1;
	}
	for (size_t i = 0; i < context->events.count; i++) {
		const struct evcnt_line *line = &context->events.lines[i];

		if (!provider_patterns_admit(&context->patterns, line->label))
			continue;
		evcnt_add_line(context, batch, line);
	}
	if (dci_batch_commit(batch) != 0) {
		dci_log(context->base.host, DCI_LOG_ERR,
		    "cannot commit class evcnt");
		return -1;
	}
	return 0;
}

static int
evcnt_refresh(struct dci_host *host, void *opaque)
{
	struct evcnt_context *context = opaque;
	int result;

	(void)host;
	provider_warnings_begin(&context->warnings);
	evcnt_events_clear(&context->events);
	result = evcnt_collect_file(context, EVCNT_FILE_INTERRUPTS);
	if (result == 0 && context->softirqs)
		result = evcnt_collect_file(context, EVCNT_FILE_SOFTIRQS);
	if (result == 0 &&
	    evcnt_widen(&context->widener, &context->events) != 0) {
		dci_log(context->base.host, DCI_LOG_ERR,
		    "cannot extend the counts to 64 bits: %s", strerror(errno));
		result = -1;
	}
	if (result == 0)
		result = evcnt_publish(context);

	provider_warnings_end(&context->warnings);
	return result;
}

static const char *const evcnt_option_keys[] = {
    "include", "exclude", "per-cpu", "softirqs", NULL};

PROVIDER_ENTRY("evcnt", "Interrupt and softirq event counters (evcnt(9) model)",
    evcnt_option_keys, evcnt_init, evcnt_refresh);
