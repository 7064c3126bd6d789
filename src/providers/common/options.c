/* The option readers more than one built-in provider needs (options.h). */
#include "providers/common/options.h"

#include <inttypes.h>
#include <stdio.h>

int
provider_option_unsigned(struct dci_host *host, const char *key,
    uint64_t minimum, uint64_t maximum, uint64_t default_value, uint64_t *value)
{
	const char *text = dci_option_string(host, key);
	char message[160];
	uint64_t number = 0;
	const char *cursor;

	if (text == NULL && !dci_option_present(host, key)) {
		*value = default_value;
		return 0;
	}
	/* Here text is NULL only for a sequence, which is refused too. */
	for (cursor = text; cursor != NULL && *cursor >= '0' && *cursor <= '9';
	     cursor++) {
		/* Past maximum, stop adding digits: no overflow, and the
		 * range check below refuses the value. */
		if (number <= maximum)
			number = number * 10 + (uint64_t)(*cursor - '0');
	}
	if (text == NULL || cursor == text || *cursor != '\0' ||
	    number < minimum || number > maximum) {
		/* The quoted text is the operator's own line; the log
		 * escapes the whole message. */
		if (text == NULL)
			snprintf(message, sizeof message,
			    "expected a number from %" PRIu64 " to %" PRIu64
			    ", not a list",
			    minimum, maximum);
		else
			snprintf(message, sizeof message,
			    "expected a number from %" PRIu64 " to %" PRIu64
			    ", found \"%.40s\"",
			    minimum, maximum, text);
		dci_option_error(host, key, message);
		return -1;
	}
	*value = number;
	return 0;
}
