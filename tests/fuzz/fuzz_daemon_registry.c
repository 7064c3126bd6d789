/*
 * libFuzzer target for what dcistat reads of dcistatd's DCI answers
 * (cli/daemon_registry.h): a LIST_SUPPLIERS, a GET_CLASS_ATTRIBUTES, then
 * a GET_INSTANCE_DATA answer for the first class, rebuilt
 * into a registry as the daemon's source does. ASan and UBSan check that
 * nothing is read past an answer and nothing leaks.
 *
 * Input: three parts, each but the last a u16 little-endian length then
 * its bytes; the last is the rest. Built by `make fuzz` with clang alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/daemon_registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next part of the input; the rest when `last`. */
static const uint8_t *
part(const uint8_t **data, size_t *size, bool last, size_t *length)
{
	const uint8_t *bytes;

	if (last) {
		*length = *size;
	} else {
		if (*size < 2)
			return NULL;
		*length = (size_t)(*data)[0] | (size_t)(*data)[1] << 8;
		*data += 2;
		*size -= 2;
		if (*length > *size)
			*length = *size;
	}
	bytes = *data;
	*data += *length;
	*size -= *length;
	return bytes;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *answers[3];
	size_t lengths[3];
	struct dci_registry *registry;
	char error[512];

	for (int i = 0; i < 3; i++) {
		answers[i] = part(&data, &size, i == 2, &lengths[i]);
		if (answers[i] == NULL)
			return 0;
	}
	registry = dci_registry_new();
	if (registry == NULL)
		return 0;
	if (cli_daemon_add_suppliers(
	        registry, answers[0], lengths[0], error, sizeof(error)) == 0 &&
	    cli_daemon_add_classes(
	        registry, answers[1], lengths[1], error, sizeof(error)) == 0 &&
	    registry->class_count > 0)
		(void)cli_daemon_commit_class(registry->classes[0], answers[2],
		    lengths[2], 0, error, sizeof(error));
	dci_registry_free(registry);
	return 0;
}
