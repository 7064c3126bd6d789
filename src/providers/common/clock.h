/*
 * clock: the time now, as providers stamp events with it.
 *
 * Part of the helpers every built-in provider compiles in (see
 * src/providers/common/). Everything here carries the provider_ prefix;
 * the plug-ins export none of it.
 */
#ifndef PROVIDER_CLOCK_H
#define PROVIDER_CLOCK_H

#include <stdint.h>

/* Internal to each plug-in: even without the build's export list, only
 * dci_provider_entry leaves the shared object. */
#pragma GCC visibility push(hidden)

/*
 * The time now as a DCI_STF_MONOTONIC value: centiseconds of Linux's
 * CLOCK_MONOTONIC (since boot), the clock dcistatd's TimeStamps use. 0, which
 * the DCI model reads as "no time", only when the clock cannot be read: the
 * first centisecond after boot is 1.
 */
uint64_t provider_monotonic_centiseconds(void);

/* Microseconds of CLOCK_MONOTONIC, for measuring how long work takes. */
uint64_t provider_monotonic_microseconds(void);

#pragma GCC visibility pop

#endif
