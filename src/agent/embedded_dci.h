/*
 * The DCI Server (server/dci_server.h) of the snmpd module (agent/dlmod.c),
 * served from snmpd's own loop.
 *
 * dcistatd polls the server's descriptors in its loop (agent/event_loop.c);
 * inside snmpd the loop is Net-SNMP's, so the descriptors the server asks
 * for are registered with it (register_readfd, register_writefd) and
 * registered again after every turn of the server, when that set changes;
 * the stall period is a Net-SNMP alarm at the server's deadline; the
 * instance events of every commit are queued by the server and sent on
 * the next turn, which an alarm due at once runs. Every socket is
 * non-blocking, as in dcistatd: a consumer that stops reading costs snmpd
 * a fixed amount of memory and no wait.
 *
 * snmpd's main thread only, as everything the module does.
 */
#ifndef DCISTAT_AGENT_EMBEDDED_DCI_H
#define DCISTAT_AGENT_EMBEDDED_DCI_H

#include "config/config.h"
#include "model/registry.h"

/* Serves `config`'s dci-socket (with its mode and dci-access rules) over
 * `registry`, in place of what a previous call served: its consumers are
 * disconnected and its socket closed first. No dci-socket in `config`:
 * only that. Returns 0, or -1 when the socket cannot be served (logged
 * with the reason; the module serves SNMP all the same). */
int embedded_dci_start(
    const struct dci_config *config, const struct dci_registry *registry);

/* Disconnects every consumer, unregisters the descriptors and alarms from
 * snmpd's loop, closes the socket and removes its file. Nothing served:
 * nothing done. */
void embedded_dci_stop(void);

#endif
