/* Net-SNMP alarms at a deadline (agent/embedded_alarm.h). */
#include "agent/embedded_alarm.h"

#include "base/clock.h"

unsigned
embedded_alarm_at(int64_t deadline, SNMPAlarmCallback *callback, void *argument)
{
	int64_t wait = deadline - dci_clock_milliseconds();
	struct timeval delay;

	if (wait < 1)
		wait = 1;
	delay.tv_sec = (time_t)(wait / 1000);
	delay.tv_usec = (suseconds_t)(wait % 1000) * 1000;
	return snmp_alarm_register_hr(delay, 0, callback, argument);
}
