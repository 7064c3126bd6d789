/* The option readers more than one built-in provider needs (options.h). */
#include "providers/common/options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int
provider_option_unsigned(struct dci_host *host, const char *key,
    uint64_t minimum, uint64_t maximum, uint64_t default_value, uint64_t *value)
{
	const char *text = dci_option_string(host, key);
	char message[128];
	unsigned long long parsed;
	char *end;

	*value = default_value;
	if (text == NULL) {
		if (dci_option_present(host, key)) {
			dci_option_error(host, key, "expected a number");
			return -1;
		}
		return 0;
	}
	errno = 0;
	parsed = strtoull(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || errno != 0 || *end != '\0' ||
	    parsed < minimum || parsed > maximum) {
		snprintf(message, sizeof(message),
		    "expected a number from %" PRIu64 " to %" PRIu64, minimum,
		    maximum);
		dci_option_error(host, key, message);
		return -1;
	}
	*value = parsed;
	return 0;
}
