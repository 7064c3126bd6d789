/*
 * libFuzzer target for the openmetrics provider's text parser and series
 * grouping: any bytes are a scrape's body. The parser must take it whole
 * or refuse it with a reason, within the bounds given (small here, so that
 * inputs reach them); on success every family's samples and labels lie
 * within the scrape's arrays, every name is NUL-terminated where its
 * length says, and every family groups into series (or is refused) and
 * gives a label, without a crash, a leak or undefined behaviour (ASan and
 * UBSan).
 *
 * Built by `make fuzz` with clang alone; run by `make fuzz-run` and CI.
 */
#include "providers/openmetrics/openmetrics_parse.h"
#include "providers/openmetrics/openmetrics_series.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct om_limits fuzz_limits = {.body_bytes = 1u << 16,
    .line_bytes = 512,
    .labels_per_series = 6,
    .families = 32,
    .series = 256};

static void
fuzz_check_scrape(const struct om_scrape *scrape, const char *body, size_t size)
{
	const char *end = body + size + 1;
	if (scrape->family_count > fuzz_limits.families ||
	    scrape->sample_count > fuzz_limits.series)
		abort();
	for (size_t f = 0; f < scrape->family_count; f++) {
		const struct om_family *family = &scrape->families[f];
		if (family->name < body || family->name >= end ||
		    family->name[family->name_length] != '\0' ||
		    (size_t)family->sample_first + family->sample_count >
		        scrape->sample_count)
			abort();
	}
	for (size_t s = 0; s < scrape->sample_count; s++) {
		const struct om_sample *sample = &scrape->samples[s];
		if (sample->family >= scrape->family_count ||
		    sample->label_count > fuzz_limits.labels_per_series ||
		    (size_t)sample->label_first + sample->label_count >
		        scrape->label_count ||
		    strlen(sample->text) > OM_VALUE_TEXT_MAX)
			abort();
		for (uint32_t l = 0; l < sample->label_count; l++) {
			const struct om_label *label =
			    &scrape->labels[sample->label_first + l];
			if (label->name_length == 0 ||
			    label->name[label->name_length] != '\0' ||
			    label->value[label->value_length] != '\0')
				abort();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct om_scrape scrape;
	static struct om_series_set set;
	char label[256];
	/* The fetcher's body: one byte more, a NUL. */
	char *body = malloc(size + 1);

	if (body == NULL)
		return 0;
	memcpy(body, data, size);
	body[size] = '\0';
	if (om_parse(&scrape, body, size, &fuzz_limits) == 0) {
		fuzz_check_scrape(&scrape, body, size);
		for (uint32_t f = 0; f < scrape.family_count; f++) {
			if (om_series_group(&set, &scrape, f) != 0) {
				if (set.error[0] == '\0')
					abort();
				continue;
			}
			for (size_t s = 0; s < set.count; s++) {
				const struct om_series *series = &set.series[s];
				if ((size_t)series->part_first +
				        series->part_count >
				    scrape.families[f].sample_count)
					abort();
				om_series_label(
				    &scrape, series, "x", label, sizeof(label));
				if (strlen(label) >= sizeof(label))
					abort();
			}
		}
	} else if (scrape.error[0] == '\0') {
		abort();
	}
	free(body);
	return 0;
}
