/*
 * Net-SNMP alarms at a deadline of base/clock.h's milliseconds, for the
 * snmpd module (agent/dlmod.c, agent/embedded_dci.c), whose timers are
 * snmpd's.
 */
#ifndef DCISTAT_AGENT_EMBEDDED_ALARM_H
#define DCISTAT_AGENT_EMBEDDED_ALARM_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <stdint.h>

/* Registers a one-shot alarm calling `callback` at `deadline` (at least a
 * millisecond from now). Returns its number, 0 when snmpd refused it. */
unsigned embedded_alarm_at(
    int64_t deadline, SNMPAlarmCallback *callback, void *argument);

#endif
