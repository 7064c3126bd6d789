/*
 * UMA events (core/events.h) sent as DCI-STATS-MIB notifications with
 * Net-SNMP's send_v2trap: in dcistatd an AgentX Notify, which the master
 * sends to its trap2sink / informsink receivers; in the snmpd module,
 * snmpd's own trap machinery.
 *
 * Instance added and removed pass a rate limit (AGENT_NOTIFICATIONS_LIMIT
 * per AGENT_NOTIFICATIONS_WINDOW_SECONDS); past it, each class gets one
 * dciInstancesSummary with the counts held back when the interval ends.
 * Supplier failed, recovered and restarted are not limited: each is a
 * state change, and a repeated failure is no event (core/loader.c).
 * Main thread only, as the events are.
 */
#ifndef DCISTAT_AGENT_NOTIFICATIONS_H
#define DCISTAT_AGENT_NOTIFICATIONS_H

#define AGENT_NOTIFICATIONS_LIMIT 10
#define AGENT_NOTIFICATIONS_WINDOW_SECONDS 60

/* Registers the event sinks: notifications are sent from the next commit
 * on. */
void agent_notifications_start(void);

/* Unregisters them and drops what the rate limit holds back. */
void agent_notifications_stop(void);

#endif
