/* Command-line options that only store what they are given: a table of
 * getopt_long values and where each one's argument goes, or the flag it
 * sets, instead of a switch case per option. Shared by dcistatd's and
 * dcistat's option readers. */
#ifndef DCISTAT_OPTION_STORE_H
#define DCISTAT_OPTION_STORE_H

#include <stdbool.h>
#include <stddef.h>

struct option_store {
	int option;        /* getopt_long's value for the option */
	const char **text; /* set to its argument, or (NULL) ... */
	bool *flag;        /* ... set to true */
};

/* Applies the entry of `entries` for `option`, storing `argument`
 * (getopt's optarg) or setting its flag. True, or false when `option` has
 * no entry (the caller handles it). */
bool option_store_apply(const struct option_store *entries, size_t count,
    int option, const char *argument);

#endif
