/* The queue by which a refresh on its own thread asks the main thread
 * for a change of the registry (plugin.h). */
#include "runtime/plugin.h"

#include <pthread.h>
#include <unistd.h>

#include "base/log.h"

void
dci_plugin_request_on_main_thread(
    struct dci_plugin *plugin, struct dci_plugin_request *request)
{
	pthread_mutex_lock(&plugin->refresher_lock);
	if (plugin->refresher_stopping) {
		pthread_mutex_unlock(&plugin->refresher_lock);
		request->refuse(
		    plugin, request, "the provider is being stopped");
		return;
	}
	request->answered = false;
	plugin->request = request;
	/* A full pipe already holds a wake-up for the loop. */
	if (write(plugin->notify_fd, "q", 1) < 0) {
	}
	while (!request->answered)
		pthread_cond_wait(
		    &plugin->refresher_wake, &plugin->refresher_lock);
	pthread_mutex_unlock(&plugin->refresher_lock);
}

void
dci_plugin_request_answer(struct dci_plugin *plugin, bool refuse)
{
	struct dci_plugin_request *request;

	pthread_mutex_lock(&plugin->refresher_lock);
	request = plugin->request;
	plugin->request = NULL;
	pthread_mutex_unlock(&plugin->refresher_lock);
	if (request == NULL)
		return;
	/* The refresh's messages so far come before the request's. */
	log_flush_deferred();
	if (refuse)
		request->refuse(
		    plugin, request, "the provider is being stopped");
	else
		request->perform(plugin, request);
	pthread_mutex_lock(&plugin->refresher_lock);
	request->answered = true;
	pthread_cond_signal(&plugin->refresher_wake);
	pthread_mutex_unlock(&plugin->refresher_lock);
}
