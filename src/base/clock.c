#define _GNU_SOURCE
#include "base/clock.h"

#include <time.h>

/* `clock` in milliseconds, its nanoseconds plus `round_up` truncated. */
static int64_t
clock_read_milliseconds(clockid_t clock, long round_up)
{
	struct timespec now;

	clock_gettime(clock, &now);
	return (int64_t)now.tv_sec * 1000 + (now.tv_nsec + round_up) / 1000000;
}

int64_t
dci_clock_milliseconds(void)
{
	return clock_read_milliseconds(CLOCK_MONOTONIC, 0);
}

int64_t
dci_clock_milliseconds_up(void)
{
	return clock_read_milliseconds(CLOCK_MONOTONIC, 999999);
}

int64_t
dci_clock_realtime_milliseconds(void)
{
	return clock_read_milliseconds(CLOCK_REALTIME, 0);
}
