#define _GNU_SOURCE
#include "agent/timestamps.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <time.h>

#include "base/clock.h"

/* From 1900-01-01 (the 5-byte time's epoch) to 1970-01-01. */
#define EPOCH_1900_TO_1970_MILLISECONDS INT64_C(2208988800000)

static int64_t
saturating_add(int64_t a, int64_t b)
{
	int64_t sum;

	if (__builtin_add_overflow(a, b, &sum))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return sum;
}

static int64_t
saturating_subtract(int64_t a, int64_t b)
{
	int64_t difference;

	if (__builtin_sub_overflow(a, b, &difference))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return difference;
}

static int64_t
saturating_multiply(int64_t a, int64_t factor)
{
	int64_t product;

	if (__builtin_mul_overflow(a, factor, &product))
		return (a < 0) != (factor < 0) ? INT64_MIN : INT64_MAX;
	return product;
}

/* An unsigned count of `factor`-millisecond units in milliseconds. */
static int64_t
unsigned_milliseconds(uint64_t count, int64_t factor)
{
	if (count > (uint64_t)INT64_MAX)
		return INT64_MAX;
	return saturating_multiply((int64_t)count, factor);
}

bool
agent_timestamps_follow_uptime(struct agent_timestamps *timestamps,
    int64_t now_milliseconds_up, uint32_t uptime_centiseconds)
{
	int64_t bound = now_milliseconds_up - (int64_t)uptime_centiseconds * 10;
	int64_t offset = bound - timestamps->start_milliseconds;

	if (offset <= AGENT_UPTIME_TOLERANCE_MILLISECONDS &&
	    offset >= -AGENT_UPTIME_TOLERANCE_MILLISECONDS)
		return false;
	timestamps->start_milliseconds = bound;
	return true;
}

void
agent_timestamps_sync(struct agent_timestamps *timestamps)
{
	uint32_t uptime = (uint32_t)netsnmp_get_agent_uptime();

	if (agent_timestamps_follow_uptime(
	        timestamps, dci_clock_milliseconds_up(), uptime))
		agent_timestamps_find_start(timestamps);
}

void
agent_timestamps_find_start(struct agent_timestamps *timestamps)
{
	int64_t before = dci_clock_milliseconds();
	/* No close pair by then (a loaded machine, or a clock that does not
	 * move as Net-SNMP's does): the last bound is still one. */
	int64_t give_up = before + 50;
	uint32_t uptime = (uint32_t)netsnmp_get_agent_uptime();
	int64_t after = dci_clock_milliseconds_up();

	for (;;) {
		int64_t previous_before = before;
		uint32_t previous = uptime;

		before = dci_clock_milliseconds();
		uptime = (uint32_t)netsnmp_get_agent_uptime();
		after = dci_clock_milliseconds_up();
		/* The tick fell between the two readings: when they are close
		 * (not split by preemption), the bound is within that gap. */
		if (uptime != previous &&
		    after - previous_before <=
		        AGENT_START_PRECISION_MILLISECONDS)
			break;
		if (after >= give_up)
			break;
	}
	timestamps->start_milliseconds = after - (int64_t)uptime * 10;
}

uint32_t
agent_timestamps_of(
    const struct agent_timestamps *timestamps, int64_t milliseconds)
{
	int64_t centiseconds =
	    saturating_subtract(milliseconds, timestamps->start_milliseconds) /
	    10;

	if (centiseconds <= 0)
		return 0;
	return centiseconds > UINT32_MAX ? UINT32_MAX : (uint32_t)centiseconds;
}

void
agent_timestamps_read_clocks(struct agent_clock_readings *readings)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	readings->unix_milliseconds =
	    (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	readings->monotonic_milliseconds = dci_clock_milliseconds();
}

uint32_t
agent_timestamps_of_time(const struct agent_timestamps *timestamps,
    const struct dci_datum_info *info, const struct dci_value *value,
    const struct agent_clock_readings *now)
{
	int64_t event_milliseconds, event_unix_milliseconds;

	if (info->presentation == DCI_STP_RELATIVE)
		return value->number > UINT32_MAX ? UINT32_MAX
		                                  : (uint32_t)value->number;
	switch (info->format) {
	case DCI_STF_MONOTONIC:
		if (value->number == 0)
			return 0;
		event_milliseconds = unsigned_milliseconds(value->number, 10);
		break;
	case DCI_STF_CTIME:
	case DCI_STF_5BYTE:
		if (info->format == DCI_STF_CTIME) {
			if (value->signed_number == 0)
				return 0;
			event_unix_milliseconds =
			    saturating_multiply(value->signed_number, 1000);
		} else {
			if (value->number == 0)
				return 0;
			event_unix_milliseconds = saturating_add(
			    unsigned_milliseconds(value->number, 10),
			    -EPOCH_1900_TO_1970_MILLISECONDS);
		}
		/* How long ago it was, on the monotonic clock. */
		event_milliseconds =
		    saturating_subtract(now->monotonic_milliseconds,
		        saturating_subtract(
		            now->unix_milliseconds, event_unix_milliseconds));
		break;
	default:
		return 0;
	}
	return agent_timestamps_of(timestamps, event_milliseconds);
}
