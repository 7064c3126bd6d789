/*
 * Rates of counters for `dcistat watch`: how fast a counter went up
 * between two samples of the same instance, per second.
 *
 * A rate is only given when the two samples are known to be one count: a
 * wrap at the counter's full width is undone (the value went forward,
 * modulo 2^width, by less than half the range, the rule the model applies
 * between refreshes, enum dci_semantics), while a discontinuity the model
 * recorded between the samples (the instance's discontinuity time moved:
 * a reset, a supplier restarted, an instance replaced), a decrease that is
 * no wrap, or an interval that is not positive gives no rate: a gap,
 * never a spike.
 */
#ifndef DCISTAT_CLI_RATE_H
#define DCISTAT_CLI_RATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cli_counter_sample {
	uint64_t value;                     /* the counter, as served */
	int64_t taken_milliseconds;         /* when its snapshot was taken */
	int64_t discontinuity_milliseconds; /* the instance's, at that time */
};

/* The increase from `previous` to `current` of a counter `width_bits`
 * wide (1..64). Returns true with *increase, false for a gap. */
bool cli_rate_increase(const struct cli_counter_sample *previous,
    const struct cli_counter_sample *current, unsigned width_bits,
    uint64_t *increase);

/* The increase per second over the samples' interval: true with
 * *per_second, false for a gap (see cli_rate_increase, and an interval
 * that is not positive). */
bool cli_rate_compute(const struct cli_counter_sample *previous,
    const struct cli_counter_sample *current, unsigned width_bits,
    double *per_second);

/* A rate as decimal text: at most three decimals, without trailing zeros
 * ("1250", "0.5", "333.333"). */
void cli_rate_format(double per_second, char *text, size_t text_size);

#endif
