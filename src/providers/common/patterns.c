/*
 * patterns: the lists keep pointers to the host's option strings, which
 * stay valid until fini, so nothing is copied but the pointers.
 */
#define _GNU_SOURCE

#include "providers/common/patterns.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Reads the patterns of the option key into *list. Returns 0, or -1 after
 * reporting the problem. *list is set before any check, for the caller to
 * free. */
static int
provider_patterns_read_key(
    struct dci_host *host, const char *key, const char ***list, size_t *count)
{
	size_t total = dci_option_count(host, key);
	const char **items;

	*count = 0;
	if (total == 0)
		return 0;
	items = calloc(total, sizeof *items);
	if (items == NULL) {
		dci_log(host, DCI_LOG_ERR, "cannot read option %s: %s", key,
		    strerror(errno));
		return -1;
	}
	*list = items;
	for (size_t i = 0; i < total; i++) {
		items[i] = dci_option_item(host, key, i);
		if (items[i] == NULL || items[i][0] == '\0') {
			dci_option_error(host, key,
			    "expected a non-empty shell pattern or a list of "
			    "them");
			return -1;
		}
	}
	*count = total;
	return 0;
}

int
provider_patterns_read(struct dci_host *host,
    struct provider_patterns *patterns, const char *const *default_exclude,
    size_t default_count)
{
	if (provider_patterns_read_key(host, "include", &patterns->include,
	        &patterns->include_count) != 0 ||
	    provider_patterns_read_key(host, "exclude", &patterns->exclude,
	        &patterns->exclude_count) != 0)
		return -1;
	/* Either key, even an empty list, says what to serve. */
	if (dci_option_present(host, "include") ||
	    dci_option_present(host, "exclude") || default_count == 0)
		return 0;
	patterns->exclude = calloc(default_count, sizeof *patterns->exclude);
	if (patterns->exclude == NULL) {
		dci_log(host, DCI_LOG_ERR, "cannot set the default exclude: %s",
		    strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < default_count; i++)
		patterns->exclude[i] = default_exclude[i];
	patterns->exclude_count = default_count;
	return 0;
}

bool
provider_patterns_match(const char *const *list, size_t count, const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (fnmatch(list[i], name, 0) == 0)
			return true;
	return false;
}

bool
provider_patterns_admit(
    const struct provider_patterns *patterns, const char *name)
{
	if (patterns->include_count > 0 &&
	    !provider_patterns_match(
	        patterns->include, patterns->include_count, name))
		return false;
	return !provider_patterns_match(
	    patterns->exclude, patterns->exclude_count, name);
}

void
provider_patterns_free(struct provider_patterns *patterns)
{
	free(patterns->include);
	free(patterns->exclude);
	memset(patterns, 0, sizeof *patterns);
}
