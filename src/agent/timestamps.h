/*
 * TimeStamps and TimeTicks: monotonic times of events as sysUpTime
 * centiseconds of the master, and the ST_TIME values of providers as
 * TimeTicks. Every conversion saturates: a provider's time, however large,
 * small or far from now, becomes a TimeTicks between 0 and 2^32 - 1, never
 * an overflow.
 *
 * start_milliseconds is the moment the master's sysUpTime was 0, which
 * Net-SNMP's AgentX client tracks as its agent uptime (in snmpd: the moment
 * snmpd started). An uptime reading u, truncated to centiseconds, then a
 * clock reading now rounded up to the millisecond bound that moment from
 * above by now - 10 u, and from below by 10 ms less.
 *
 * agent_timestamps_find_start sets it once, to at most
 * AGENT_START_PRECISION_MILLISECONDS after that moment and never before: a
 * TimeStamp is then never later than a sysUpTime read after its event, and
 * behind it only for an event within that precision after a tick. It waits,
 * spinning, for Net-SNMP's uptime to tick between two close readings (10 ms,
 * 50 at most on a loaded machine).
 *
 * agent_timestamps_follow_uptime then leaves it alone while the bounds stay
 * within AGENT_UPTIME_TOLERANCE_MILLISECONDS of it, so that one TimeStamp
 * never reads differently in two requests as the bounds jitter with the
 * 10 ms grain; past that (a master that restarted, or a subagent's first
 * synchronisation with its master) it takes the bound and returns true, and
 * agent_timestamps_sync, which reads the uptime and then the clock at
 * each request, finds the start again. A subagent's Net-SNMP learns the
 * master's sysUpTime in centiseconds, from the master's answers, which
 * reach it late by their delivery time; so its TimeStamps may read behind
 * the master's sysUpTime by a tick plus that time (tens of milliseconds on
 * a loaded machine), and less than AGENT_UPTIME_TOLERANCE_MILLISECONDS is
 * not corrected; never ahead of it.
 */
#ifndef DCISTAT_AGENT_TIMESTAMPS_H
#define DCISTAT_AGENT_TIMESTAMPS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/registry.h"
#include "model/value.h"

#define AGENT_UPTIME_TOLERANCE_MILLISECONDS 100
#define AGENT_START_PRECISION_MILLISECONDS 2

struct agent_timestamps {
	/* Monotonic time at which the master's sysUpTime was 0. */
	int64_t start_milliseconds;
};

void agent_timestamps_find_start(struct agent_timestamps *timestamps);
bool agent_timestamps_follow_uptime(struct agent_timestamps *timestamps,
    int64_t now_milliseconds_up, uint32_t uptime_centiseconds);
void agent_timestamps_sync(struct agent_timestamps *timestamps);

/* sysUpTime-relative centiseconds of a monotonic millisecond stamp; 0 for
 * stamps before the agent started (a TimeStamp's convention), 2^32 - 1 for
 * stamps beyond what TimeTicks hold. */
uint32_t agent_timestamps_of(
    const struct agent_timestamps *timestamps, int64_t milliseconds);

/* The clocks an ST_TIME conversion reads, passed in for the tests. */
struct agent_clock_readings {
	int64_t monotonic_milliseconds; /* dci_clock_milliseconds() */
	int64_t unix_milliseconds;      /* CLOCK_REALTIME */
};
void agent_timestamps_read_clocks(struct agent_clock_readings *readings);

/* TimeTicks of an ST_TIME value: durations as they are (centiseconds),
 * absolute times as a TimeStamp (sysUpTime at the event; 0 before the
 * agent started or for "no time"). */
uint32_t agent_timestamps_of_time(const struct agent_timestamps *timestamps,
    const struct dci_datum_info *info, const struct dci_value *value,
    const struct agent_clock_readings *now);

#endif
