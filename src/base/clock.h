/* Monotonic time in milliseconds: the one clock for refresh periods,
 * back-off, and creation/discontinuity stamps. */
#ifndef DCISTAT_CLOCK_H
#define DCISTAT_CLOCK_H

#include <stdint.h>

int64_t dci_clock_milliseconds(void);

/* The same clock rounded up to the millisecond: a bound from above for the
 * moment it is read. */
int64_t dci_clock_milliseconds_up(void);

/* Milliseconds since 1970 (CLOCK_REALTIME), for what is shown as a date;
 * never for intervals. */
int64_t dci_clock_realtime_milliseconds(void);

#endif
