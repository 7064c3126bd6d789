/*
 * UMA events (model/events.h) sent as DCI-STATS-MIB notifications with
 * Net-SNMP's send_v2trap: in dcistatd an AgentX Notify, which the master
 * sends to its trap2sink / informsink receivers; in the snmpd module,
 * snmpd's own trap machinery.
 *
 * Which kinds are sent and the rate limit come from the configuration's
 * `notifications:` section (config/config.h; all on, 10 per 60 s by
 * default). Instance added and removed pass the rate limit; past it, each
 * class gets one dciInstancesSummary with the counts held back when the
 * interval ends.
 * Supplier failed, recovered and restarted are not limited: each is a
 * state change, and a repeated failure is no event (runtime/loader.c).
 * Main thread only, as the events are.
 */
#ifndef DCISTAT_AGENT_NOTIFICATIONS_H
#define DCISTAT_AGENT_NOTIFICATIONS_H

#include "config/config.h"

/* Takes the kinds and the rate limit of `settings` (copied: a reload
 * retires the configuration); the limit's interval starts afresh. Call
 * after each load or reload, before or while serving. */
void agent_notifications_configure(
    const struct dci_config_notifications *settings);

/* Registers the event sinks: notifications are sent from the next commit
 * on. */
void agent_notifications_start(void);

struct dci_registry;

/* Sends a dciSupplierFailed (when that kind is on) for every supplier
 * failed now: the providers that could not start. A failure found while
 * loading happens before any receiver can be reached, so the caller
 * announces it once, when one can: dcistatd at its first session with the
 * master, the snmpd module after its first load (snmpd has read its trap
 * sinks then). Their retries failing alike are no news; a start that
 * works sends dciSupplierRestarted. */
void agent_notifications_announce_failures(const struct dci_registry *registry);

/* Unregisters them and drops what the rate limit holds back. */
void agent_notifications_stop(void);

#endif
