/*
 * libFuzzer target for what dcistat's remote source decodes of an agent's
 * answers itself (src/agent/remote_source.h): table indexes from
 * sub-identifiers, instance levels from dciClassLevelTypes and
 * dciClassLevelSizes, signed 64-bit and time datums from their text, and
 * unit names. Net-SNMP parses the packets; everything after it is here.
 * Each decoder must accept or refuse any input without a crash or
 * undefined behaviour (ASan and UBSan), and what it accepts must be within
 * its documented bounds.
 *
 * The first byte picks the decoder and its parameter; the rest is its
 * input. Built by `make fuzz` with clang alone; run by `make fuzz-run`.
 */
#include "cli/remote/remote_source.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The longest OID a request name can hold (MAX_OID_LEN). */
#define FUZZ_SUBIDS_MAX 128

static void
fuzz_index(const uint8_t *data, size_t size, unsigned choice)
{
	uint64_t subids[FUZZ_SUBIDS_MAX];
	size_t count = size / sizeof(subids[0]);
	struct cli_remote_index index;
	static const enum cli_remote_shape shapes[] = {
	    CLI_REMOTE_SHAPE_CLASS, CLI_REMOTE_SHAPE_DATUM,
	    CLI_REMOTE_SHAPE_INSTANCE};

	if (count > FUZZ_SUBIDS_MAX)
		count = FUZZ_SUBIDS_MAX;
	memcpy(subids, data, count * sizeof(subids[0]));
	if (cli_remote_decode_index(subids, count,
	        shapes[choice % (sizeof(shapes) / sizeof(shapes[0]))],
	        &index) &&
	    (index.class_length < 1 ||
	        index.class_length > DCI_CLASS_ID_MAX_LEVELS ||
	        index.instance_words > DCI_INSTANCE_ID_MAX_WORDS))
		abort();
}

static void
fuzz_levels(const uint8_t *data, size_t size, unsigned choice)
{
	struct dci_instance_level levels[DCI_INSTANCE_ID_MAX_WORDS];
	size_t half = size / 2, total = 0, count = choice % 20;

	if (!cli_remote_decode_levels(
	        data, half, data + half, size - half, count, levels))
		return;
	for (size_t l = 0; l < count; l++) {
		if (levels[l].size == 0 || levels[l].size % 4 != 0)
			abort();
		total += levels[l].size;
	}
	if (total > 4 * DCI_INSTANCE_ID_MAX_WORDS)
		abort();
}

static void
fuzz_texts(const uint8_t *data, size_t size, unsigned choice)
{
	char *text = malloc(size + 1);
	struct dci_datum_info info = {
	    .type = DCI_ST_TIME,
	    .format = choice % 4,
	    .presentation = (choice / 4) % 3,
	};
	int64_t number;
	enum dci_unit unit;

	if (text == NULL)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)cli_remote_parse_text_integer(text, choice % 4, &number);
	(void)cli_remote_parse_time_text(text, &info, &number);
	(void)cli_remote_unit_of_name(text, &unit);
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned choice;

	if (size < 1)
		return 0;
	choice = data[0];
	switch (choice % 3) {
	case 0:
		fuzz_index(data + 1, size - 1, choice / 3);
		break;
	case 1:
		fuzz_levels(data + 1, size - 1, choice / 3);
		break;
	default:
		fuzz_texts(data + 1, size - 1, choice / 3);
		break;
	}
	return 0;
}
