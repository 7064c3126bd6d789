/*
 * The processes of isolated providers (runtime/isolation.h) and whatever they
 * start.
 *
 * Each isolated provider's process leads a session of its own (setsid),
 * which every process it forks joins unless it makes one of its own.
 * Ending a provider kills, with SIGKILL, its process, every process of its
 * session (the whole session, also the groups a shell-like provider makes
 * inside it) and every process still below its process in the tree (those
 * that made a session of their own), so that a provider that forks or
 * execs leaves nothing behind, crashed, hung or stopped.
 *
 * What escapes that (a process that made a session of its own and whose
 * parent ended first: a daemon's double fork, or the provider's process
 * itself when it crashed) would become init's. dcistatd
 * (dci_isolation_adopt_orphans, not the snmpd module) is therefore a child
 * subreaper (PR_SET_CHILD_SUBREAPER): such a process becomes dcistatd's
 * child, is reaped when it ends (dci_isolation_reap_adopted) and is killed
 * when dcistatd stops (dci_isolation_end_adopted). Only children in a
 * session other than dcistatd's are reaped while dcistatd runs: those are
 * the only ones an isolated provider can leave, and an in-process
 * provider's own children (popen, system), which it waits for itself, are
 * in dcistatd's session and never taken from it. (The price: an orphan an
 * in-process provider's child leaves in dcistatd's session is adopted and
 * reaped only at stop.)
 *
 * The same kill runs from an exit handler for the processes still running
 * when the process exits (snmpd keeps the module and its providers to the
 * end). Only a dcistatd or snmpd killed outright leaves what its
 * providers' processes started (those end by PR_SET_PDEATHSIG) to init.
 *
 * snmpd is not made a subreaper by the module: the orphans of snmpd's own
 * children (the extend, exec and pass scripts' background processes)
 * would become snmpd's, and snmpd waits only for the processes it started,
 * while the module cannot tell an orphan from a child snmpd is about to
 * wait for. In snmpd an escaped process is therefore left to init, as
 * every other orphan of snmpd's; sessions and the tree are killed as in
 * dcistatd.
 */
#ifndef DCISTAT_RUNTIME_ISOLATION_PROCESS_H
#define DCISTAT_RUNTIME_ISOLATION_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Starts `program` as an isolated provider's process: the leader of a new
 * session, ended with SIGKILL when this process ends (PR_SET_PDEATHSIG),
 * `socket` as its descriptor 3, /dev/null as standard input, no other
 * descriptor above 2, no signal blocked. Returns its pid with, in
 * *watch, a descriptor that becomes readable when it ends (a pidfd; -1
 * where the kernel has none), or -1 with the reason in `why`. */
pid_t dci_isolation_process_start(
    const char *program, int socket, int *watch, char *why, size_t why_size);

/* Ends the process `pid` started above and everything of it (above):
 * waits up to `grace_milliseconds` for it to end by itself, then kills its
 * session and tree, and reaps it. `status` receives what it ended with
 * ("killed by signal 9 (Killed)", "exited with status 0"). */
void dci_isolation_process_end(
    pid_t pid, unsigned grace_milliseconds, char *status, size_t status_size);

/* In the provider's process, at its orderly end (the provider's fini
 * done): kills what it started, as dci_isolation_process_end would, but
 * with its own rights, which dcistatd may have given up since (-u): a
 * process started before dcistatd dropped root ends at the change of user
 * this way. Returns how many it killed. */
size_t dci_isolation_process_kill_own(void);

/* dcistatd only: makes this process the child subreaper (above), after
 * any fork into the background (the attribute is not inherited). Returns
 * 0, or -1 (logged; orphans go to init as before). */
int dci_isolation_adopt_orphans(void);

/* Reaps adopted processes that ended (no more often than every half
 * second unless `now`); nothing unless dci_isolation_adopt_orphans ran.
 * Called from isolated providers' refreshes and ends. */
void dci_isolation_reap_adopted(bool now);

/* At stop, once every provider is closed: kills and reaps every child left
 * (adopted ones), saying how many in the log. Nothing unless
 * dci_isolation_adopt_orphans ran. */
void dci_isolation_end_adopted(void);

#endif
