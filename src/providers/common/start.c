/* The life every built-in provider shares (start.h). */
#include "providers/common/start.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void *
provider_context_new(struct dci_host *host, void **context_pointer, size_t size,
    void (*release)(void *context))
{
	struct provider_context *context = calloc(1, size);

	if (context == NULL) {
		dci_log(host, DCI_LOG_ERR, "cannot allocate context: %s",
		    strerror(errno));
		return NULL;
	}
	context->host = host;
	context->release = release;
	*context_pointer = context;
	return context;
}

void
provider_fini(struct dci_host *host, void *opaque)
{
	struct provider_context *context = opaque;

	(void)host;
	if (context == NULL)
		return;
	context->release(context);
	free(context);
}

struct dci_class *
provider_register_class(struct dci_host *host,
    const struct dci_supplier_info *supplier_info,
    const struct dci_class_info *class_info,
    unsigned refresh_limit_milliseconds)
{
	struct dci_supplier *supplier =
	    dci_supplier_register(host, supplier_info);
	struct dci_class *class_handle;

	if (supplier == NULL)
		return NULL;
	class_handle = dci_class_register(host, supplier, class_info);
	if (class_handle != NULL && refresh_limit_milliseconds > 0)
		(void)dci_refresh_limit(host, refresh_limit_milliseconds);
	return class_handle;
}
