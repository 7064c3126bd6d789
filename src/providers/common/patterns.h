/*
 * patterns: the include and exclude options of a provider, lists of shell
 * globs that choose which objects (interfaces, devices, counters) it
 * serves by name.
 *
 * Part of the helpers every built-in provider compiles in (see
 * src/providers/common/). Everything here carries the provider_ prefix;
 * the plug-ins export none of it.
 */
#ifndef PROVIDER_PATTERNS_H
#define PROVIDER_PATTERNS_H

#include <dcistat/provider.h>

#include <stdbool.h>
#include <stddef.h>

/* Internal to each plug-in: even without the build's export list, only
 * dci_provider_entry leaves the shared object. */
#pragma GCC visibility push(hidden)

/*
 * The patterns of include and exclude, fnmatch(3) globs without flags. The
 * strings are the host's option strings (valid until fini) or the
 * caller's defaults; the lists belong to the structure. Start zeroed; free
 * with provider_patterns_free.
 */
struct provider_patterns {
	const char **include;
	size_t include_count; /* 0: include everything */
	const char **exclude;
	size_t exclude_count;
};

/*
 * Reads the options include and exclude, each a non-empty shell pattern or
 * a list of them, into patterns (zeroed). When neither key is given,
 * exclude is the default_count patterns of default_exclude, which must
 * outlive patterns (NULL and 0: exclude nothing); giving either replaces
 * that default, even as an empty list (`exclude: []` serves everything).
 *
 * Returns 0, or -1 after reporting the problem through the host: an empty
 * or missing pattern with dci_option_error ("expected a non-empty shell
 * pattern or a list of them"), a lack of memory with dci_log. Either way
 * provider_patterns_free releases what was read.
 */
int provider_patterns_read(struct dci_host *host,
    struct provider_patterns *patterns, const char *const *default_exclude,
    size_t default_count);

/*
 * Whether one of the count patterns of list matches name.
 */
bool provider_patterns_match(
    const char *const *list, size_t count, const char *name);

/*
 * Whether name is served: include is empty or one of its patterns matches
 * name, and no pattern of exclude does.
 */
bool provider_patterns_admit(
    const struct provider_patterns *patterns, const char *name);

/* Releases the lists and zeroes patterns. */
void provider_patterns_free(struct provider_patterns *patterns);

#pragma GCC visibility pop

#endif
