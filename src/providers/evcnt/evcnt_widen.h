/*
 * evcnt_widen: the kernel keeps every count of /proc/interrupts and
 * /proc/softirqs in 32 bits (unsigned int per CPU, an atomic_t for ERR and
 * MIS), so a busy CPU's NET_RX or local timer count wraps within days. This
 * carries each count's last value from one refresh to the next and extends
 * it to 64 bits, so a served count only goes down when the kernel really
 * started it over.
 *
 * A count is one (line, CPU column) of a refresh, or a global row's single
 * count, named by the instance id it is served under. Between two
 * refreshes a count that went down by more than 2^31 (mod 2^32: went
 * forward by less than 2^31) wrapped and is extended; one that went down
 * by less started over (an interrupt line freed and requested again) and
 * is served as the kernel shows it, which the host reports as a
 * discontinuity. A count with no previous value (new, or back after its CPU
 * or line was gone) starts at the kernel's value. The rule misreads a wrap
 * only when a count moves by 2^31 or more between two refreshes.
 *
 * This part knows nothing of dcistat's provider ABI. Everything here
 * carries the evcnt_ prefix; the plug-in exports none of it.
 */
#ifndef EVCNT_WIDEN_H
#define EVCNT_WIDEN_H

#include "evcnt_event.h"

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* One count as the last refresh saw it. */
struct evcnt_widened {
	uint32_t id[EVCNT_ID_WORDS]; /* source, key, cpu slot (0: global) */
	uint64_t raw;                /* the kernel's value */
	uint64_t value;              /* extended */
	size_t slot;                 /* private to evcnt_widen.c */
};

/* The counts of the last refresh, and the memory of the next. Zero it
 * before the first use; evcnt_widener_free releases it. */
struct evcnt_widener {
	struct evcnt_widened *items; /* sorted by id */
	size_t count;
	size_t capacity;
	struct evcnt_widened *fresh; /* scratch, swapped with items */
	size_t fresh_capacity;
	uint64_t *values; /* the extended counts the lines point to */
	size_t value_capacity;
};

/*
 * Extends every count of events' lines, all files added: each line's
 * counts then point into the widener (valid until its next call or free)
 * and its total is the sum of its extended counts, or its extended global
 * count. Returns 0, or -1 with errno ENOMEM, events untouched and the
 * widener as before.
 */
int evcnt_widen(struct evcnt_widener *widener, struct evcnt_events *events);

/* Releases the widener's memory and zeroes it. */
void evcnt_widener_free(struct evcnt_widener *widener);

#pragma GCC visibility pop

#endif
