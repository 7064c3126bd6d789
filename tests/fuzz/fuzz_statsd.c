/*
 * libFuzzer target for the statsd provider's parser
 * (src/providers/statsd/statsd_parse.c): any bytes handed over as one
 * datagram are split into lines, each parsed, and each accepted metric's
 * series key built; the results must stay within the parser's bounds
 * (name, member and tag section lengths, tag count, key size), without a
 * crash, a leak or undefined behaviour (ASan and UBSan).
 *
 * Built by `make fuzz` with clang alone; run by `make fuzz-run` and CI.
 */
#include "providers/statsd/statsd_parse.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *datagram = (const char *)data, *line;
	char key[STATSD_KEY_SIZE];
	size_t offset = 0, length;
	struct statsd_metric metric;

	while ((line = statsd_next_line(datagram, size, &offset, &length)) !=
	       NULL) {
		if (line < datagram || line + length > datagram + size)
			abort();
		if (statsd_parse_line(line, length, &metric) != STATSD_PARSE_OK)
			continue;
		if (metric.name_length == 0 ||
		    metric.name_length > STATSD_NAME_MAX ||
		    metric.member_length > STATSD_MEMBER_MAX ||
		    metric.tags_length > STATSD_TAGS_MAX ||
		    metric.tag_count > STATSD_TAG_COUNT_MAX ||
		    !(metric.sample_rate > 0.0 && metric.sample_rate <= 1.0))
			abort();
		if (metric.type != STATSD_SET && !isfinite(metric.value))
			abort();
		size_t key_length = statsd_series_key(&metric, key);
		if (key_length >= STATSD_KEY_SIZE || strlen(key) != key_length)
			abort();
	}
	return 0;
}
