/*
 * libFuzzer target for the configuration reader: any bytes given to
 * dci_config_parse must end in a configuration or in one error message,
 * without a crash, a leak or undefined behaviour (built with ASan and
 * UBSan), and in bounded time (libFuzzer's -timeout).
 *
 * Built by `make fuzz` with clang alone; run by `make fuzz-run` and CI.
 */
#include "config/config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dci_config *config = NULL;
	char error[512];
	int result;

	result = dci_config_parse((const char *)data, size, "fuzz.yaml",
	    &config, error, sizeof error);
	/* The contract of config.h: a configuration, or NULL and a message
	 * naming the input. */
	if (result == 0) {
		if (config == NULL || error[0] != '\0')
			abort();
		for (size_t i = 0; i < config->provider_count; i++)
			if (config->providers[i].module == NULL)
				abort();
	} else if (result != -1 || config != NULL ||
	           strncmp(error, "fuzz.yaml:", 10) != 0) {
		abort();
	}
	dci_config_free(config);
	return 0;
}
