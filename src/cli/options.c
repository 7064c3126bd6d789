/* dcistat's command line (options.h). */
#define _GNU_SOURCE
#include "cli/options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

void
cli_options_usage(FILE *out)
{
	fputs("usage: dcistat [-c FILE] [--json | --openmetrics] COMMAND "
	      "[ARGUMENT...]\n"
	      "commands:\n"
	      "  suppliers                      the suppliers and their "
	      "state\n"
	      "  classes                        the classes and their "
	      "instance counts\n"
	      "  describe CLASS                 a class's levels and "
	      "datums\n"
	      "  show [-d LIST] [CLASS [INSTANCE]]\n"
	      "                                 values, a table per class\n"
	      "  watch [-d LIST] [-i SECONDS] [-n COUNT] CLASS\n"
	      "                                 counters as rates per "
	      "second\n"
	      "options:\n"
	      "  -c, --config FILE   the dcistatd configuration to load "
	      "(default " SYSCONFDIR "/dcistat/dcistatd.yaml)\n"
	      "  -d, --datums LIST   datums by label or id, separated by "
	      "commas\n"
	      "  -i, --interval S    seconds between samples (default 1)\n"
	      "  -n, --count N       intervals to show (default: until "
	      "interrupted)\n"
	      "      --json          JSON output\n"
	      "      --openmetrics   OpenMetrics text output\n"
	      "  -h, --help          this text\n"
	      "  -V, --version       the version\n",
	    out);
}

/* Seconds (fractions allowed) into milliseconds within the bounds. */
static int
parse_interval(const char *text, unsigned *milliseconds)
{
	char *end;
	double seconds;

	errno = 0;
	seconds = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !isfinite(seconds) ||
	    seconds * 1000.0 < CLI_WATCH_MIN_MILLISECONDS ||
	    seconds * 1000.0 > CLI_WATCH_MAX_MILLISECONDS)
		return -1;
	*milliseconds = (unsigned)(seconds * 1000.0 + 0.5);
	return 0;
}

static int
parse_count(const char *text, unsigned long *count)
{
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	*count = strtoul(text, &end, 10);
	return errno != 0 || *end != '\0' || *count == 0 ? -1 : 0;
}

static const struct {
	const char *name;
	enum cli_command command;
	int min_arguments, max_arguments;
} commands[] = {
    {"suppliers", CLI_COMMAND_SUPPLIERS, 0, 0},
    {"classes", CLI_COMMAND_CLASSES, 0, 0},
    {"describe", CLI_COMMAND_DESCRIBE, 1, 1},
    {"show", CLI_COMMAND_SHOW, 0, 2},
    {"watch", CLI_COMMAND_WATCH, 1, 1},
};

int
cli_options_parse(int argc, char **argv, struct cli_options *options,
    char *error, size_t error_size)
{
	enum { OPTION_JSON = 256, OPTION_OPENMETRICS };
	static const struct option long_options[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"datums", required_argument, NULL, 'd'},
	    {"interval", required_argument, NULL, 'i'},
	    {"count", required_argument, NULL, 'n'},
	    {"json", no_argument, NULL, OPTION_JSON},
	    {"openmetrics", no_argument, NULL, OPTION_OPENMETRICS},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *interval = NULL, *count = NULL;
	bool format_given = false;
	int option, arguments;
	size_t c;

	memset(options, 0, sizeof(*options));
	options->format = CLI_FORMAT_TEXT;
	options->interval_milliseconds = CLI_WATCH_DEFAULT_MILLISECONDS;
	opterr = 0;
	optind = 1;
	while ((option = getopt_long(
	            argc, argv, ":c:d:i:n:hV", long_options, NULL)) != -1) {
		switch (option) {
		case 'c':
			options->config_file = optarg;
			break;
		case 'd':
			options->selection = optarg;
			break;
		case 'i':
			interval = optarg;
			break;
		case 'n':
			count = optarg;
			break;
		case OPTION_JSON:
		case OPTION_OPENMETRICS:
			if (format_given) {
				snprintf(error, error_size,
				    "--json and --openmetrics exclude each "
				    "other");
				return -1;
			}
			format_given = true;
			options->format = option == OPTION_JSON
			                      ? CLI_FORMAT_JSON
			                      : CLI_FORMAT_OPENMETRICS;
			break;
		case 'h':
			cli_options_usage(stdout);
			return 1;
		case 'V':
			printf("dcistat %s\n", PACKAGE_VERSION);
			return 1;
		case ':':
			snprintf(error, error_size, "option %s needs a value",
			    argv[optind - 1]);
			return -1;
		default:
			snprintf(error, error_size, "unknown option %s",
			    argv[optind - 1]);
			return -1;
		}
	}
	if (optind >= argc) {
		snprintf(error, error_size, "no command given");
		return -1;
	}
	for (c = 0; c < sizeof(commands) / sizeof(*commands); c++) {
		if (strcmp(argv[optind], commands[c].name) == 0)
			break;
	}
	if (c == sizeof(commands) / sizeof(*commands)) {
		snprintf(error, error_size, "unknown command '%.100s'",
		    argv[optind]);
		return -1;
	}
	options->command = commands[c].command;
	arguments = argc - optind - 1;
	if (arguments < commands[c].min_arguments ||
	    arguments > commands[c].max_arguments) {
		snprintf(error, error_size,
		    "%s takes %s%d argument%s, %d given", commands[c].name,
		    commands[c].min_arguments == commands[c].max_arguments
		        ? ""
		        : "at most ",
		    commands[c].max_arguments,
		    commands[c].max_arguments == 1 ? "" : "s", arguments);
		return -1;
	}
	if (arguments >= 1)
		options->class_name = argv[optind + 1];
	if (arguments >= 2)
		options->instance = argv[optind + 2];
	if (options->selection != NULL &&
	    options->command != CLI_COMMAND_SHOW &&
	    options->command != CLI_COMMAND_WATCH) {
		snprintf(error, error_size, "-d is for show and watch only");
		return -1;
	}
	if ((interval != NULL || count != NULL) &&
	    options->command != CLI_COMMAND_WATCH) {
		snprintf(error, error_size, "-i and -n are for watch only");
		return -1;
	}
	if (interval != NULL &&
	    parse_interval(interval, &options->interval_milliseconds) != 0) {
		snprintf(error, error_size,
		    "-i %.100s: not a number of seconds from 0.1 to 86400",
		    interval);
		return -1;
	}
	if (count != NULL && parse_count(count, &options->count) != 0) {
		snprintf(error, error_size,
		    "-n %.100s: not a count of intervals from 1", count);
		return -1;
	}
	return 0;
}
