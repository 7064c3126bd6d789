/*
 * clock: CLOCK_MONOTONIC cannot jump with the wall clock, so stamps taken
 * with it order events and measure intervals correctly.
 */
#define _GNU_SOURCE

#include "providers/common/clock.h"

#include <time.h>

uint64_t
provider_monotonic_centiseconds(void)
{
	struct timespec now;
	uint64_t value;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return 0;
	value = (uint64_t)now.tv_sec * 100u + (uint64_t)now.tv_nsec / 10000000u;
	return value == 0 ? 1 : value;
}

uint64_t
provider_monotonic_microseconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}
