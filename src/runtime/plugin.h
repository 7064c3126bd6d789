/*
 * A provider plug-in as the runtime holds it: what the loader opened and
 * started, what the host side of the ABI (host.h) changes for it, and the
 * queue by which a refresh on its own thread asks the main thread for a
 * change of the registry. Shared by loader.c, host.c and isolation.c, so
 * that none of them needs another's functions to reach the plug-in.
 */
#ifndef DCISTAT_PLUGIN_H
#define DCISTAT_PLUGIN_H

#include <dcistat/provider.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "model/registry.h"

enum dci_plugin_state {
	DCI_PLUGIN_STOPPED, /* not started, or stopped */
	DCI_PLUGIN_RUNNING, /* initialised; refreshed on its schedule */
	DCI_PLUGIN_FAILED,  /* failed to load or to initialise; retried */
};

struct dci_snapshot_builder;
struct dci_plugin_request;

/* A batch committed on a refresh thread, installed by the main thread. */
struct dci_pending_commit {
	struct dci_class *class;
	struct dci_snapshot_builder *builder;
};

struct dci_plugin {
	struct dci_host host; /* first: what the provider is handed */
	char *name;           /* the provider's name, for messages */
	char *module;         /* as configured: a name or a path */
	char *path;           /* the file loaded */
	void *library;
	const struct dci_provider *entry;
	/* Its entry in the configuration it was started from, which outlives
	 * it: options handed to the provider point into it. */
	const struct dci_config_provider *config;
	const struct dci_config *source;
	/* The configuration's top-level `derived` list: added to the classes
	 * this provider registers. A reload that keeps the plug-in hands it
	 * the new list (its registered classes' entries are the same, or it
	 * would be restarted), so that a class registered later, from a
	 * refresh, gets the running configuration's; derived_source is the
	 * configuration the list belongs to, which must outlive it. */
	const struct dci_config_derived *derived;
	size_t derived_count;
	const struct dci_config *derived_source;
	struct dci_registry *registry;
	void *context;
	bool initialised;
	enum dci_plugin_state state;
	/* While it keeps failing in the same way: its own messages and ours
	 * are logged at debug level, so that a retry every minute does not
	 * fill the log; a change of state is always logged. */
	bool quiet;
	char failure[1024]; /* why it failed, "" while running */
	/* Set by a refresh that failed in a way only a new start repairs (an
	 * isolated provider's process died, runtime/isolation.h): the plug-in
	 * is then failed as a failed start is, with this reason. Written on
	 * the refresher before the refresh returns, read after. */
	char restart_reason[1024];
	/* Why the host last refused a supplier it registered (logged
	 * then), for a stand-in that fails the provider for it
	 * (runtime/isolation.c). */
	char supplier_refusal[512];
	/* The process serves (dci_plugins_use_threads ran): a provider's
	 * start (dci_serve_start) runs right after its init. */
	bool serving;
	/* What init asked to run once serving; NULL: nothing. */
	int (*serve_start)(struct dci_host *host, void *context);
	void *serve_start_context;
	bool started; /* serve_start ran and succeeded */
	/* While init or start runs (main thread): the last warning or error
	 * the provider logged, the reason its failure then gives. */
	bool collecting_complaint;
	char complaint[512];
	unsigned refresh_milliseconds;
	/* The longest period the provider's widening tolerates
	 * (dci_refresh_limit); refresh_milliseconds never exceeds it. */
	unsigned refresh_limit_milliseconds; /* 0: none declared */
	unsigned stale_periods;
	/* Running: its next refresh is due when now >= this. Failed: its next
	 * try to load and initialise. */
	int64_t next_refresh_milliseconds;
	/* The `now` of the refresh running, 0 outside one: its snapshots'
	 * time. */
	int64_t refresh_milliseconds_at;
	unsigned consecutive_failures;
	bool slow; /* its last refresh took longer than its period */
	struct dci_supplier **suppliers;
	size_t supplier_count;
	struct dci_batch **open_batches; /* begun and not yet committed */
	size_t open_batch_count;

	/*
	 * Refresh on a thread of its own (notify_fd >= 0), so that a provider
	 * that blocks stalls nothing but itself: the main thread asks for a
	 * refresh, the refresher runs the provider's refresh, which commits
	 * into `pending` (sealed builders, touching nothing shared), writes a
	 * byte to notify_fd, and the main thread installs the snapshots. The
	 * fields under refresher_lock are marked; refresh_in_flight and the
	 * rest belong to the main thread.
	 *
	 * A registration or withdrawal asked for by that refresh changes the
	 * registry, which is the main thread's: the refresher posts it in
	 * `request`, writes a byte to notify_fd and waits on refresher_wake
	 * (the refresher is that condition's only waiter) until the main
	 * thread, at its next dci_plugin_run_due, performed it and set
	 * request->answered. While it waits the refresher touches nothing,
	 * so the main thread may change what it shares with the refresh:
	 * the suppliers, open batches and `pending`. At stop the main thread
	 * refuses the request instead (the provider's registrations are
	 * withdrawn a moment later anyway), and once refresher_stopping is
	 * set no request is posted: each is refused on the refresher.
	 */
	int notify_fd; /* -1: refresh runs on the calling thread */
	pthread_t refresher;
	bool refresher_running;
	pthread_mutex_t refresher_lock;
	pthread_cond_t refresher_wake;
	bool refresh_requested;  /* refresher_lock */
	bool refresh_finished;   /* refresher_lock */
	bool refresher_stopping; /* refresher_lock */
	int refresh_result;      /* refresher_lock, with refresh_finished */
	int64_t refresh_duration_milliseconds; /* likewise */
	bool refresh_in_flight; /* asked for and not yet installed */
	/* Its refresh did not return within DCI_PLUGIN_STOP_WAIT_MILLISECONDS
	 * of a stop: left to its thread (atomic; host.c refuses whatever it
	 * asks from then on). */
	bool abandoned;
	bool on_refresher; /* the refresher is in the provider's refresh */
	struct dci_plugin_request *request; /* refresher_lock; NULL: none */
	struct dci_pending_commit *pending;
	size_t pending_count;
	size_t pending_capacity;
};

/*
 * A change a refresh on the refresher asks the main thread to make. It
 * carries the functions that perform it or refuse it, so the queue knows
 * nothing of what is asked (host.c embeds one in each of its requests).
 */
struct dci_plugin_request {
	/* Main thread: makes the change and fills the asker's results. */
	void (*perform)(
	    struct dci_plugin *plugin, struct dci_plugin_request *request);
	/* Any thread: fills the results of a change not made, saying why. */
	void (*refuse)(struct dci_plugin *plugin,
	    struct dci_plugin_request *request, const char *why);
	/* Set under the plug-in's refresher_lock once the results are final. */
	bool answered;
};

/* Called on the refresher: hands `request` to the main thread (waking its
 * loop through notify_fd) and waits until it was performed, or refuses
 * it at once when the plug-in is being stopped. */
void dci_plugin_request_on_main_thread(
    struct dci_plugin *plugin, struct dci_plugin_request *request);

/* Main thread: answers the request the refresher waits on, if any, by
 * performing it, or by refusing it (`refuse`: at stop). */
void dci_plugin_request_answer(struct dci_plugin *plugin, bool refuse);

/* --- The start step (plugin_start.c) --- */

/* The host's serve_start operation (provider.h's dci_serve_start). */
int dci_plugin_serve_start_ask(struct dci_host *host,
    int (*start)(struct dci_host *host, void *context), void *context);

/* Runs the start a provider asked for in init, once per init, when the
 * plug-in serves; 0, or -1 with why in `reason`. Main thread. */
int dci_plugin_serve_start(
    struct dci_plugin *plugin, char *reason, size_t reason_size);

/* From here until dci_plugin_failure_reason, the last warning the
 * provider logs (dci_plugin_complaint_note: host.c's log and option error,
 * an isolated provider's forwarded lines) is kept as the reason of its
 * failure. */
void dci_plugin_complaint_collect(struct dci_plugin *plugin);
void dci_plugin_complaint_vnote(
    struct dci_plugin *plugin, const char *format, va_list arguments);
void dci_plugin_complaint_note(struct dci_plugin *plugin, const char *format,
    ...) __attribute__((format(printf, 2, 3)));

/* Why `plugin` failed to `what` ("initialise", "start"): the last warning
 * it logged meanwhile, which names the cause wherever the reason is read
 * (a check's or a one-shot read's standard error has no other log, a
 * supplier's failure row no other text); the same words for the same
 * failure, so that a retry failing alike is known as such. Ends the
 * collection. */
void dci_plugin_failure_reason(struct dci_plugin *plugin, const char *what,
    char *reason, size_t reason_size);

#endif
