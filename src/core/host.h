/* The host side of the provider ABI: the operations table every provider
 * calls through (struct dci_host_operations in provider.h). */
#ifndef DCISTAT_HOST_H
#define DCISTAT_HOST_H

#include <dcistat/provider.h>
#include <stdbool.h>

extern const struct dci_host_operations dci_host_operations;

struct dci_plugin;
/* Aborts every batch the provider left open (a provider bug: logged). */
void dci_host_abort_open_batches(struct dci_plugin *plugin);

/*
 * A change of the registry a provider asks for: a supplier or a class
 * registered, a supplier withdrawn. The registry belongs to the main
 * thread, so a request made by a refresh on its refresher is handed to
 * the main thread, which performs it while the refresher waits
 * (dci_plugin_request_on_main_thread, loader.h); from init, fini or a
 * refresh run on the main thread it is performed at once. Either way by
 * dci_host_request_perform: one code path for each change.
 */
enum dci_host_request_kind {
	DCI_HOST_REQUEST_SUPPLIER_REGISTER,
	DCI_HOST_REQUEST_CLASS_REGISTER,
	DCI_HOST_REQUEST_SUPPLIER_WITHDRAW,
};

struct dci_host_request {
	enum dci_host_request_kind kind;
	/* Arguments: the provider's own, valid while it waits. */
	const struct dci_supplier_info *supplier_info; /* supplier register */
	const struct dci_class_info *class_info;       /* class register */
	/* Class register and withdraw: the supplier handle given; supplier
	 * register: the new supplier, NULL when refused. */
	struct dci_supplier *supplier;
	struct dci_class *class; /* class register: the new class, or NULL */
	int result;              /* withdraw: 0, or -1 when refused */
	/* Set by the main thread under the plug-in's refresher_lock once
	 * the results above are final. */
	bool answered;
};

/* Main thread: performs `request` for `plugin` and fills its results,
 * logging a refusal with the reason. */
void dci_host_request_perform(
    struct dci_plugin *plugin, struct dci_host_request *request);

/* Fills the results of a request that is not performed (the provider is
 * being stopped), logging why; touches neither registry nor plug-in, so
 * any thread may call it. */
void dci_host_request_refuse(struct dci_plugin *plugin,
    struct dci_host_request *request, const char *why);

#endif
