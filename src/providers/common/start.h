/*
 * start: the life every built-in provider shares: its context, its
 * registration, its fini and its entry symbol.
 *
 * A built-in provider's context begins with a struct provider_context
 * naming the function that frees what the context holds; init makes it
 * with provider_context_new, and the one fini, provider_fini, takes any
 * context apart, after a failed init as after a good one. The provider
 * declares its entry with PROVIDER_ENTRY.
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

/* The first member of every built-in provider's context. */
struct provider_context {
	struct dci_host *host; /* the one init was given */
	/* Frees what the context holds, never the context itself; it may
	 * find any member still zero (init stopped early). Called once, by
	 * provider_fini. */
	void (*release)(void *context);
};

/*
 * A zeroed context of `size` bytes, whose first member is a struct
 * provider_context holding `host` and `release`, handed to the host at
 * once through *context_pointer: the host calls fini after a failed init
 * too, so from here on provider_fini frees whatever init built, through
 * `release`. NULL, logged, when out of memory.
 */
void *provider_context_new(struct dci_host *host, void **context_pointer,
    size_t size, void (*release)(void *context));

/*
 * The fini of every built-in provider (PROVIDER_ENTRY names it): releases
 * a context of provider_context_new and frees it. A NULL context (init
 * failed before it had one) is nothing to do.
 */
void provider_fini(struct dci_host *host, void *context);

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

/*
 * PROVIDER_ENTRY(name, description, option_keys, init, refresh): the
 * plug-in's entry symbol (DCI_PROVIDER_DEFINE) for a built-in provider,
 * whose fini is provider_fini.
 */
#define PROVIDER_ENTRY(                                                        \
    provider_name, text, keys, init_function, refresh_function)                \
	DCI_PROVIDER_DEFINE = {                                                \
	    .abi_version = DCI_PROVIDER_ABI_VERSION,                           \
	    .name = (provider_name),                                           \
	    .description = (text),                                             \
	    .option_keys = (keys),                                             \
	    .init = (init_function),                                           \
	    .refresh = (refresh_function),                                     \
	    .fini = provider_fini,                                             \
	}

#endif
