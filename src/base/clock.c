#define _GNU_SOURCE
#include "base/clock.h"

#include <time.h>

int64_t
dci_clock_milliseconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int64_t
dci_clock_milliseconds_up(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + (now.tv_nsec + 999999) / 1000000;
}
