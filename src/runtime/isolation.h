/*
 * Crash isolation of provider plug-ins. A provider entry with
 * `isolate: true` runs in a process of its own, the program
 * dcistat-isolate, so that a crash or a hang of the provider cannot take
 * dcistatd down.
 *
 * In dcistatd the entry is served by dci_isolation_provider, a built-in
 * provider standing in for the plug-in: its init starts the process,
 * which loads the plug-in with the real loader and host and runs its init;
 * its refresh asks the process for a refresh; each replays what the
 * plug-in registered and committed there (runtime/isolation_wire.h) through
 * dcistatd's own host, so the classes, ids, values, invalid data, parents
 * and discontinuities are the same as in-process. The provider ABI is
 * unchanged: the same .so works isolated or not.
 *
 * A process that dies (a crash: the signal is named), breaks the protocol
 * or does not finish an init or a refresh within its hang limit (killed
 * with SIGKILL) fails the plug-in as a failed start does: its rows are
 * withdrawn at once, dciSupplierTable shows it failed with the reason, and
 * it is started again after a back-off (1 s, doubled up to a minute, back
 * to 1 s after a refresh that worked), while every other provider is
 * served. The process leads a session of its own, and whatever it forks
 * or execs is killed with it, whichever way it ends
 * (runtime/isolation_process.h). A process that ends while something it
 * forked still holds the socket is seen to end at once (a pidfd), and
 * logged with what it ended with, not as a hang. dcistatd's stop or reload
 * closes the socket, which ends the process (SIGKILL a second later if
 * not); the process also ends with dcistatd (PR_SET_PDEATHSIG).
 */
#ifndef DCISTAT_RUNTIME_ISOLATION_H
#define DCISTAT_RUNTIME_ISOLATION_H

#include <dcistat/provider.h>
#include <stdbool.h>

/* The longest an isolated provider's init or refresh may take; a refresh
 * period longer than a third of it lengthens it to three periods. */
#define DCI_ISOLATION_HANG_MILLISECONDS 10000u

/* The program: $DCISTAT_ISOLATE_PROGRAM (for tests of a build tree), else
 * PKGLIBEXECDIR/dcistat-isolate. */
#define DCI_ISOLATION_PROGRAM_ENVIRONMENT "DCISTAT_ISOLATE_PROGRAM"

extern const struct dci_provider dci_isolation_provider;

/* For the fuzz target and the tests: replays messages held in memory
 * (frames as the process sends them) for `plugin` as its init or refresh
 * would, keeping the process's handles from one call to the next. Returns
 * 0, or -1 at the first message that breaks the protocol (a partial frame
 * at the end is one). */
struct dci_plugin;
struct dci_isolation_replayer;
struct dci_isolation_replayer *dci_isolation_replayer_new(
    struct dci_plugin *plugin);
int dci_isolation_replay(struct dci_isolation_replayer *replayer,
    const unsigned char *data, size_t length);
void dci_isolation_replayer_free(struct dci_isolation_replayer *replayer);

/* From the main thread, at a stop (loader.c), with `context` the
 * isolation provider's: a refresh in flight on the refresher returns at
 * once, its process killed (with what it started), instead of waiting out
 * the hang limit; the provider is not restarted for it. */
void dci_isolation_interrupt(void *context);

/* With `context` the isolation provider's, when the process that serves
 * begins to (loader.h's dci_plugins_use_threads): whether its process must
 * be started again, serving: it was started before a fork (and ended with
 * the process that exited), or its provider asked for a start that a
 * process started before serving does not run. */
bool dci_isolation_serving_needs_restart(const void *context);

/* The child's side, the whole of dcistat-isolate: serves dcistatd on
 * `socket` until it closes it. Returns the exit status. */
int dci_isolation_child_main(int socket);

#endif
