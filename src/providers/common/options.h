/*
 * options: the option readers more than one built-in provider needs.
 *
 * Part of the helpers every built-in provider compiles in (see
 * src/providers/common/). Everything here carries the provider_ prefix;
 * the plug-ins export none of it.
 */
#ifndef PROVIDER_OPTIONS_H
#define PROVIDER_OPTIONS_H

#include <dcistat/provider.h>
#include <stdint.h>

/* Internal to each plug-in: even without the build's export list, only
 * dci_provider_entry leaves the shared object. */
#pragma GCC visibility push(hidden)

/*
 * Reads option `key` as a decimal number from minimum to maximum into
 * *value: default_value when the option is absent. A value that is not
 * such a number (no sign, no space, nothing after the digits), or a list,
 * is reported with dci_option_error ("expected a number from minimum to
 * maximum, found ..." or ", not a list"), and -1 returned, *value
 * untouched.
 */
int provider_option_unsigned(struct dci_host *host, const char *key,
    uint64_t minimum, uint64_t maximum, uint64_t default_value,
    uint64_t *value);

#pragma GCC visibility pop

#endif
