/* Rates of counters (rate.h). */
#define _GNU_SOURCE
#include "cli/rate.h"

#include <stdio.h>
#include <string.h>

bool
cli_rate_increase(const struct cli_counter_sample *previous,
    const struct cli_counter_sample *current, unsigned width_bits,
    uint64_t *increase)
{
	uint64_t mask, forward;

	if (width_bits == 0 || width_bits > 64)
		return false;
	if (current->discontinuity_milliseconds !=
	    previous->discontinuity_milliseconds)
		return false;
	mask = width_bits == 64 ? UINT64_MAX : (UINT64_C(1) << width_bits) - 1;
	if (current->value > mask || previous->value > mask)
		return false;
	forward = (current->value - previous->value) & mask;
	/* Backwards: a wrap only when it went forward by less than half the
	 * range (it fell by more than half); anything else is a reset. */
	if (current->value < previous->value && forward > mask / 2)
		return false;
	*increase = forward;
	return true;
}

bool
cli_rate_compute(const struct cli_counter_sample *previous,
    const struct cli_counter_sample *current, unsigned width_bits,
    double *per_second)
{
	int64_t interval =
	    current->taken_milliseconds - previous->taken_milliseconds;
	uint64_t increase;

	if (interval <= 0 ||
	    !cli_rate_increase(previous, current, width_bits, &increase))
		return false;
	*per_second = (double)increase * 1000.0 / (double)interval;
	return true;
}

void
cli_rate_format(double per_second, char *text, size_t text_size)
{
	size_t length;

	if (text_size == 0)
		return;
	snprintf(text, text_size, "%.3f", per_second);
	length = strlen(text);
	if (strchr(text, '.') == NULL)
		return;
	while (length > 0 && text[length - 1] == '0')
		text[--length] = '\0';
	if (length > 0 && text[length - 1] == '.')
		text[--length] = '\0';
	if (strcmp(text, "-0") == 0)
		strcpy(text, "0");
}
