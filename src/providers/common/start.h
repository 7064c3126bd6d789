/*
 * start: the opening every built-in provider's init shares.
 *
 * Part of the helpers every built-in provider compiles in (see
 * src/providers/common/). Everything here carries the provider_ prefix;
 * the plug-ins export none of it.
 */
#ifndef PROVIDER_START_H
#define PROVIDER_START_H

#include <dcistat/provider.h>
#include <stddef.h>

/* Internal to each plug-in: even without the build's export list, only
 * dci_provider_entry leaves the shared object. */
#pragma GCC visibility push(hidden)

/*
 * A zeroed context of `size` bytes, handed to the host at once through
 * *context_pointer: the host calls fini after a failed init too, so from
 * here on fini frees whatever init built. NULL, logged, when out of
 * memory.
 */
void *provider_context_new(
    struct dci_host *host, void **context_pointer, size_t size);

/*
 * Registers the provider's supplier and its one class, and declares the
 * longest refresh period the class's counters tolerate (0: none; a host
 * older than dci_refresh_limit refreshes on its configured period alone).
 * Returns the class, or NULL when the host refused either registration
 * (it logged why).
 */
struct dci_class *provider_register_class(struct dci_host *host,
    const struct dci_supplier_info *supplier_info,
    const struct dci_class_info *class_info,
    unsigned refresh_limit_milliseconds);

#pragma GCC visibility pop

#endif
