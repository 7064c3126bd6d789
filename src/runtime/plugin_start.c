/* A provider's start step (provider.h's dci_serve_start): asked for by its
 * init, run by the loader in the process that serves; and the reason a
 * failed init or start gives (plugin.h). */
#define _GNU_SOURCE
#include "runtime/plugin.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/log.h"

/* Only from init: the loader runs the start when init returned, in the
 * process that serves (loader.h, dci_plugins_use_threads). */
int
dci_plugin_serve_start_ask(struct dci_host *host,
    int (*start)(struct dci_host *host, void *context), void *context)
{
	/* The host handed to a provider is its plug-in's first member. */
	struct dci_plugin *plugin = (struct dci_plugin *)host;

	if (plugin->state == DCI_PLUGIN_RUNNING || start == NULL) {
		log_warnx("provider %s: start refused: %s", plugin->name,
		    start == NULL ? "no callback" : "asked for after init");
		return -1;
	}
	plugin->serve_start = start;
	plugin->serve_start_context = context;
	return 0;
}

void
dci_plugin_complaint_collect(struct dci_plugin *plugin)
{
	plugin->complaint[0] = '\0';
	plugin->collecting_complaint = true;
}

void
dci_plugin_complaint_vnote(
    struct dci_plugin *plugin, const char *format, va_list arguments)
{
	va_list copy;

	if (!plugin->collecting_complaint)
		return;
	va_copy(copy, arguments);
	vsnprintf(plugin->complaint, sizeof(plugin->complaint), format, copy);
	va_end(copy);
}

void
dci_plugin_complaint_note(struct dci_plugin *plugin, const char *format, ...)
{
	va_list arguments;

	va_start(arguments, format);
	dci_plugin_complaint_vnote(plugin, format, arguments);
	va_end(arguments);
}

void
dci_plugin_failure_reason(struct dci_plugin *plugin, const char *what,
    char *reason, size_t reason_size)
{
	plugin->collecting_complaint = false;
	if (plugin->complaint[0] != '\0')
		snprintf(reason, reason_size,
		    "%s: provider %s failed to %s: %s", plugin->path,
		    plugin->name, what, plugin->complaint);
	else
		snprintf(reason, reason_size,
		    "%s: provider %s failed to %s and said no more",
		    plugin->path, plugin->name, what);
}

int
dci_plugin_serve_start(
    struct dci_plugin *plugin, char *reason, size_t reason_size)
{
	int result;

	if (!plugin->serving || plugin->serve_start == NULL || plugin->started)
		return 0;
	dci_plugin_complaint_collect(plugin);
	result =
	    plugin->serve_start(&plugin->host, plugin->serve_start_context);
	if (result != 0) {
		dci_plugin_failure_reason(plugin, "start", reason, reason_size);
		return -1;
	}
	plugin->collecting_complaint = false;
	plugin->started = true;
	return 0;
}
