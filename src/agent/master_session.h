/*
 * The subagent's session with its AgentX master, where Net-SNMP's own
 * handling would wait inside the loop or hide what the master said.
 *
 * Registrations. Net-SNMP registers a subagent's subtrees one synchronous
 * exchange at a time and only logs a refusal: a second dcistatd against
 * the same master served nothing yet ran on, and at its stop unregistered
 * the first one's subtrees (a Net-SNMP master removes a registration by
 * name and priority, whoever made it). Here each table is registered by a
 * Register PDU whose answer is read when it comes. A refusal at start
 * stops dcistatd (agent_master_wait_registered); on a later session it is
 * logged and the table asked for again every ping interval until the
 * master grants it, which is logged too. Each table is registered at the
 * next priority as well, a stand-by that keeps it routed here when another
 * subagent unregisters it at its own priority (an older dcistatd refused at
 * start did, at its stop); the master does not tell, so that is not
 * logged. Nothing is ever unregistered one subtree at a time: the
 * session's close takes its registrations away.
 *
 * Pings. Net-SNMP's ping alarm waits for the answer (the session's timeout
 * and retries), so a master that hangs froze the loop, and the snapshots
 * went stale. Here a Ping is sent once the master has been silent for a
 * ping interval; its answer is taken when it comes. A master that does not
 * answer within a ping interval is logged, once, and waited for: its
 * requests are answered when it resumes (a master that dies closes the
 * connection, and Net-SNMP reconnects). A master that answers that it no
 * longer knows the session is disconnected from, and Net-SNMP reconnects.
 * The one exchange Net-SNMP still waits for, the Open of each new session,
 * is given a short time-out (a master that answers later is tried again at
 * the next ping interval), so that a master hung before dcistatd joins it
 * does not hold the loop either.
 *
 * Sends. Every PDU Net-SNMP sends on the session after its Open (answers
 * it builds, GetBulk's among them, pings, registrations, notifications, the
 * Close) goes through the transport's send function set here, written
 * without blocking, what the socket does not take waiting for the loop to
 * write it, and the connection ended when the master takes none of it for
 * a while (agent/agentx_send.h): Net-SNMP's own blocking send held the
 * loop for as long as a master that stopped reading did not read. At the
 * stop, what waits is written within the stop's wait. A Unix stream
 * session the in-place path does not read is read by a receive function
 * set here too, which, unlike Net-SNMP's, loses no memory when a read
 * fails.
 *
 * The stop. Net-SNMP closes the session from its shutdown callbacks with
 * synchronous Unregister and Close exchanges; a master that disconnects
 * during one of them made Net-SNMP unregister callbacks from the very list
 * being walked (a 100 ms wait and a failed assertion in its callback.c).
 * agent_master_close sends the Close and shuts the connection down before
 * that, outside any callback, so Net-SNMP takes the disconnection through
 * its ordinary path and has nothing left to say to the master.
 *
 * It relies on what agent/agentx_direct.h lists (the ping alarm Net-SNMP
 * keeps in the session's securityModel), on Net-SNMP's re-attachment
 * skipping subtrees marked attached (agent_registration_mark_attached) and
 * on its sending every PDU through the transport's f_send and reading
 * through its f_recv.
 */
#ifndef DCISTAT_AGENT_MASTER_SESSION_H
#define DCISTAT_AGENT_MASTER_SESSION_H

#include <stdbool.h>
#include <stdint.h>

/* Follows the sessions Net-SNMP opens to the master from now on: call
 * before init_snmp. `ping_interval_seconds` is the configuration's. */
void agent_master_setup(unsigned ping_interval_seconds);

/* After init_snmp: when a session to the master is open, waits (bounded)
 * for the answers to its registrations. Returns -1 when the master refused
 * one (each refusal logged with the table, its subtree and the master's
 * reason), else 0, also when no master is there yet. */
int agent_master_wait_registered(void);

/* The AgentX socket of the open session, else -1. */
int agent_master_socket(void);
/* The master sent something (the loop saw its socket readable). */
void agent_master_heard(int64_t now);
/* Sends what is due (a ping, registrations to ask for again); called by the
 * loop at every wake-up. */
void agent_master_run_due(int64_t now);
/* When agent_master_run_due next has something to do (INT64_MAX: never
 * unless woken), on the clock of base/clock.h. */
int64_t agent_master_deadline(void);

/* Closes the session, if open: Close sent, connection shut down, and the
 * disconnection handed to Net-SNMP. Call before the tables are
 * unregistered and before snmp_shutdown. */
void agent_master_close(void);

#endif
