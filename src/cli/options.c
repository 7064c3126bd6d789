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
#include <sys/stat.h>

#include "base/option_store.h"
#include "config.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

void
cli_options_usage(FILE *out)
{
	fputs(
	    "usage: dcistat [-c FILE] [--json | --openmetrics | --prometheus] "
	    "COMMAND "
	    "[ARGUMENT...]\n"
	    "       dcistat -H HOST[:PORT] [-v 2c -c COMMUNITY | -v 3 -u USER "
	    "[-l LEVEL -a PROTO -A PASS -x PROTO -X PASS]]\n"
	    "               [-t SECONDS] [-r RETRIES] [--json | "
	    "--openmetrics | --prometheus] COMMAND [ARGUMENT...]\n"
	    "commands:\n"
	    "  suppliers                      the suppliers and their "
	    "state\n"
	    "  classes                        the classes and their "
	    "instance counts\n"
	    "  describe CLASS                 a class's levels and "
	    "datums\n"
	    "  show [-d LIST] [CLASS [INSTANCE]]\n"
	    "                                 values, a table per class\n"
	    "  watch [-d LIST] CLASS [SECONDS [COUNT]]\n"
	    "                                 counters as rates per "
	    "second, as sar 1 5\n"
	    "options:\n"
	    "  -c, --config FILE   the dcistatd configuration to load "
	    "(default " SYSCONFDIR "/dcistat/dcistatd.yaml)\n"
	    "      --insecure-paths\n"
	    "                      load it and its providers from files "
	    "others than root\n"
	    "                      and you can change (a development "
	    "tree)\n"
	    "      --standalone    load the providers in this process "
	    "instead of reading\n"
	    "                      the running dcistatd through the "
	    "configuration's\n"
	    "                      agent: dci-socket\n"
	    "  -H, --host HOST     read DCI-STATS-MIB from the SNMP agent at "
	    "HOST[:PORT]\n"
	    "  -v 2c|3             SNMP version with -H (default 2c)\n"
	    "  -c, --community COMMUNITY\n"
	    "                      with -H: the v2c community (default "
	    "public); -c\n"
	    "                      with a path or a .yaml name is refused "
	    "there\n"
	    "  -u, -l, -a, -A, -x, -X\n"
	    "                      with -H -v 3: user, level, "
	    "authentication and privacy\n"
	    "                      protocols and passphrases, as in "
	    "snmpwalk(1)\n"
	    "  -t SECONDS          with -H: timeout of a request (default "
	    "1)\n"
	    "  -r RETRIES          with -H: retries of a request (default "
	    "2)\n"
	    "  -d, --datums LIST   datums by label or id, separated by "
	    "commas\n"
	    "  -i, --interval S    seconds between samples (default 1)\n"
	    "  -n, --count N       intervals to show (default: until "
	    "interrupted)\n"
	    "      --match GLOB    show and watch: the instances whose "
	    "label matches\n"
	    "      --sort DATUM    show and watch: largest first by that "
	    "datum (or rate)\n"
	    "      --top N         show and watch: the first N instances\n"
	    "      --raw           exact numbers in text (default: 27.9M "
	    "for 27891952)\n"
	    "      --color WHEN    bold headers: auto (on a terminal), "
	    "always, never\n"
	    "      --json          JSON output\n"
	    "      --openmetrics   OpenMetrics text output\n"
	    "      --prometheus    Prometheus text format output "
	    "(node_exporter's textfile\n"
	    "                      collector, promtool check metrics)\n"
	    "  -h, --help          this text\n"
	    "  -V, --version       the version\n",
	    out);
}

/* The value of `option` (-i, -t), seconds with fractions allowed, into
 * milliseconds within the bounds; absent (NULL): *milliseconds kept.
 * Returns 0, or -1 with the message in `error`. */
static int
read_seconds(const char *option, const char *text, unsigned *milliseconds,
    char *error, size_t error_size)
{
	char *end;
	double seconds;

	if (text == NULL)
		return 0;
	errno = 0;
	seconds = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !isfinite(seconds) ||
	    seconds * 1000.0 < CLI_WATCH_MIN_MILLISECONDS ||
	    seconds * 1000.0 > CLI_WATCH_MAX_MILLISECONDS) {
		snprintf(error, error_size,
		    "%s %.100s: not a number of seconds from 0.1 to 86400",
		    option, text);
		return -1;
	}
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

/* -r: 0..100 retries of an SNMP request. */
static int
parse_retries(const char *text, unsigned *retries)
{
	char *end;
	unsigned long value;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	value = strtoul(text, &end, 10);
	if (errno != 0 || *end != '\0' || value > 100)
		return -1;
	*retries = (unsigned)value;
	return 0;
}

/* A value of -c given with -H that is surely a configuration file meant
 * for the local source rather than a community: a path (a slash), a YAML
 * file name, or the name of a file that exists. */
static bool
value_looks_like_file(const char *value)
{
	size_t length = strlen(value);
	struct stat status;

	if (strchr(value, '/') != NULL)
		return true;
	if ((length > 5 && strcmp(value + length - 5, ".yaml") == 0) ||
	    (length > 4 && strcmp(value + length - 4, ".yml") == 0))
		return true;
	return stat(value, &status) == 0 && S_ISREG(status.st_mode);
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
    {"watch", CLI_COMMAND_WATCH, 1, 3},
};

/* What the command line gave before it is checked against the source and
 * the command: the values that end in struct cli_options only after that. */
struct cli_given {
	const char *interval, *count, *c_value;
	const char *timeout, *retries, *community;
	const char *top, *color;
	bool config, format;
};

/* The options, by getopt: 0, 1 when --help or --version was answered, -1
 * with the reason in error. Leaves optind at the command. */
static int
options_read(int argc, char **argv, struct cli_options *options,
    struct cli_given *given, char *error, size_t error_size)
{
	enum {
		OPTION_JSON = 256,
		OPTION_OPENMETRICS,
		OPTION_PROMETHEUS,
		OPTION_CONFIG,
		OPTION_COMMUNITY,
		OPTION_INSECURE_PATHS,
		OPTION_STANDALONE,
		OPTION_MATCH,
		OPTION_SORT,
		OPTION_TOP,
		OPTION_RAW,
		OPTION_COLOR,
	};
	static const struct option long_options[] = {
	    {"config", required_argument, NULL, OPTION_CONFIG},
	    {"community", required_argument, NULL, OPTION_COMMUNITY},
	    {"insecure-paths", no_argument, NULL, OPTION_INSECURE_PATHS},
	    {"standalone", no_argument, NULL, OPTION_STANDALONE},
	    {"host", required_argument, NULL, 'H'},
	    {"datums", required_argument, NULL, 'd'},
	    {"interval", required_argument, NULL, 'i'},
	    {"count", required_argument, NULL, 'n'},
	    {"json", no_argument, NULL, OPTION_JSON},
	    {"openmetrics", no_argument, NULL, OPTION_OPENMETRICS},
	    {"prometheus", no_argument, NULL, OPTION_PROMETHEUS},
	    {"match", required_argument, NULL, OPTION_MATCH},
	    {"sort", required_argument, NULL, OPTION_SORT},
	    {"top", required_argument, NULL, OPTION_TOP},
	    {"raw", no_argument, NULL, OPTION_RAW},
	    {"color", required_argument, NULL, OPTION_COLOR},
	    {"colour", required_argument, NULL, OPTION_COLOR},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const struct option_store stored[] = {
	    /* The configuration, or with -H the community. */
	    {'c', &given->c_value, NULL},
	    {OPTION_COMMUNITY, &given->community, NULL},
	    {'H', &options->host, NULL},
	    {'v', &options->snmp_version, NULL},
	    {'u', &options->user, NULL},
	    {'l', &options->level, NULL},
	    {'a', &options->auth_protocol, NULL},
	    {'A', &options->auth_passphrase, NULL},
	    {'x', &options->privacy_protocol, NULL},
	    {'X', &options->privacy_passphrase, NULL},
	    {'t', &given->timeout, NULL},
	    {'r', &given->retries, NULL},
	    {'d', &options->selection, NULL},
	    {'i', &given->interval, NULL},
	    {'n', &given->count, NULL},
	    {OPTION_INSECURE_PATHS, NULL, &options->insecure_paths},
	    {OPTION_STANDALONE, NULL, &options->standalone},
	    {OPTION_MATCH, &options->match, NULL},
	    {OPTION_SORT, &options->sort, NULL},
	    {OPTION_TOP, &given->top, NULL},
	    {OPTION_RAW, NULL, &options->raw},
	    {OPTION_COLOR, &given->color, NULL},
	};
	int option;

	opterr = 0;
	optind = 1;
	while ((option = getopt_long(argc, argv,
	            ":c:d:i:n:hVH:v:u:l:a:A:x:X:t:r:", long_options, NULL)) !=
	       -1) {
		if (option_store_apply(
		        stored, COUNT_OF(stored), option, optarg))
			continue;
		switch (option) {
		case OPTION_CONFIG:
			options->config_file = optarg;
			given->config = true;
			break;
		case OPTION_JSON:
		case OPTION_OPENMETRICS:
		case OPTION_PROMETHEUS:
			if (given->format) {
				snprintf(error, error_size,
				    "--json, --openmetrics and --prometheus "
				    "exclude each other");
				return -1;
			}
			given->format = true;
			options->format = option == OPTION_JSON
			                      ? CLI_FORMAT_JSON
			                  : option == OPTION_OPENMETRICS
			                      ? CLI_FORMAT_OPENMETRICS
			                      : CLI_FORMAT_PROMETHEUS;
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
	return 0;
}

/* -H's options (community, version, security, timeout, retries). */
static int
options_check_remote(struct cli_options *options, const struct cli_given *given,
    char *error, size_t error_size)
{
	if (given->config || options->standalone) {
		snprintf(error, error_size,
		    "%s is for the local source, not with -H",
		    given->config ? "--config" : "--standalone");
		return -1;
	}
	if (given->community != NULL && given->c_value != NULL) {
		snprintf(error, error_size,
		    "-c and --community both give the community");
		return -1;
	}
	if (given->c_value != NULL && value_looks_like_file(given->c_value)) {
		snprintf(error, error_size,
		    "with -H, -c is the SNMP community (as in "
		    "Net-SNMP's tools), but '%.100s' looks like a "
		    "configuration file: the configuration is read "
		    "only without -H (--config FILE); give a "
		    "community that looks like a path with "
		    "--community",
		    given->c_value);
		return -1;
	}
	options->community =
	    given->community != NULL ? given->community : given->c_value;
	options->timeout_milliseconds = 1000;
	options->retries = 2;
	if (read_seconds("-t", given->timeout, &options->timeout_milliseconds,
	        error, error_size) != 0)
		return -1;
	if (given->retries != NULL &&
	    parse_retries(given->retries, &options->retries) != 0) {
		snprintf(error, error_size,
		    "-r %.100s: not a count of retries from 0 to 100",
		    given->retries);
		return -1;
	}
	return 0;
}

/* Without -H: none of the remote source's options; -c is the
 * configuration. */
static int
options_check_local(struct cli_options *options, const struct cli_given *given,
    char *error, size_t error_size)
{
	if (options->snmp_version != NULL || options->user != NULL ||
	    options->level != NULL || options->auth_protocol != NULL ||
	    options->auth_passphrase != NULL ||
	    options->privacy_protocol != NULL ||
	    options->privacy_passphrase != NULL || given->timeout != NULL ||
	    given->retries != NULL) {
		snprintf(error, error_size,
		    "-v, -u, -l, -a, -A, -x, -X, -t and -r are for the "
		    "remote source: give -H HOST");
		return -1;
	}
	if (given->community != NULL) {
		snprintf(error, error_size,
		    "--community is for the remote source: give -H "
		    "HOST");
		return -1;
	}
	if (given->c_value != NULL && given->config) {
		snprintf(error, error_size,
		    "-c and --config both give the configuration");
		return -1;
	}
	if (given->c_value != NULL)
		options->config_file = given->c_value;
	return 0;
}

/* The command at argv[first] and its arguments: CLASS, then INSTANCE for
 * show, SECONDS and COUNT for watch (as sar 1 5). */
static int
options_take_command(int argc, char **argv, int first,
    struct cli_options *options, struct cli_given *given, char *error,
    size_t error_size)
{
	int arguments;
	size_t c;

	if (first >= argc) {
		snprintf(error, error_size, "no command given");
		return -1;
	}
	for (c = 0; c < COUNT_OF(commands); c++) {
		if (strcmp(argv[first], commands[c].name) == 0)
			break;
	}
	if (c == COUNT_OF(commands)) {
		snprintf(
		    error, error_size, "unknown command '%.100s'", argv[first]);
		return -1;
	}
	options->command = commands[c].command;
	arguments = argc - first - 1;
	if (arguments < commands[c].min_arguments ||
	    arguments > commands[c].max_arguments) {
		if (commands[c].min_arguments == commands[c].max_arguments)
			snprintf(error, error_size,
			    "%s takes %d argument%s, %d given",
			    commands[c].name, commands[c].max_arguments,
			    commands[c].max_arguments == 1 ? "" : "s",
			    arguments);
		else if (commands[c].min_arguments == 0)
			snprintf(error, error_size,
			    "%s takes at most %d arguments, %d given",
			    commands[c].name, commands[c].max_arguments,
			    arguments);
		else
			snprintf(error, error_size,
			    "%s takes %d to %d arguments, %d given",
			    commands[c].name, commands[c].min_arguments,
			    commands[c].max_arguments, arguments);
		return -1;
	}
	if (arguments >= 1)
		options->class_name = argv[first + 1];
	if (options->command != CLI_COMMAND_WATCH) {
		if (arguments >= 2)
			options->instance = argv[first + 2];
		return 0;
	}
	if (arguments >= 2 && given->interval != NULL) {
		snprintf(error, error_size,
		    "the interval is given twice (-i and after the class)");
		return -1;
	}
	if (arguments >= 3 && given->count != NULL) {
		snprintf(error, error_size,
		    "the count is given twice (-n and after the interval)");
		return -1;
	}
	if (arguments >= 2)
		given->interval = argv[first + 2];
	if (arguments >= 3)
		given->count = argv[first + 3];
	return 0;
}

/* The options that belong to some commands only, and their values. */
static int
options_check_for_command(struct cli_options *options,
    const struct cli_given *given, char *error, size_t error_size)
{
	bool show_or_watch = options->command == CLI_COMMAND_SHOW ||
	                     options->command == CLI_COMMAND_WATCH;

	if (options->selection != NULL && !show_or_watch) {
		snprintf(error, error_size, "-d is for show and watch only");
		return -1;
	}
	if ((given->interval != NULL || given->count != NULL) &&
	    options->command != CLI_COMMAND_WATCH) {
		snprintf(error, error_size, "-i and -n are for watch only");
		return -1;
	}
	if (options->command == CLI_COMMAND_WATCH &&
	    options->format == CLI_FORMAT_PROMETHEUS) {
		snprintf(error, error_size,
		    "watch writes an exposition per interval, which the "
		    "Prometheus text format cannot tell apart: use "
		    "--openmetrics (each ends with # EOF)");
		return -1;
	}
	if ((options->match != NULL || options->sort != NULL ||
	        given->top != NULL) &&
	    !show_or_watch) {
		snprintf(error, error_size,
		    "--match, --sort and --top are for show and watch only");
		return -1;
	}
	if (given->top != NULL) {
		unsigned long rows;

		if (parse_count(given->top, &rows) != 0) {
			snprintf(error, error_size,
			    "--top %.100s: not a number of rows from 1",
			    given->top);
			return -1;
		}
		options->top = rows;
	}
	if (given->color != NULL) {
		if (strcmp(given->color, "auto") == 0)
			options->color = CLI_COLOR_AUTO;
		else if (strcmp(given->color, "always") == 0)
			options->color = CLI_COLOR_ALWAYS;
		else if (strcmp(given->color, "never") == 0)
			options->color = CLI_COLOR_NEVER;
		else {
			snprintf(error, error_size,
			    "--color takes auto, always or never, not "
			    "'%.100s'",
			    given->color);
			return -1;
		}
	}
	if (read_seconds("-i", given->interval, &options->interval_milliseconds,
	        error, error_size) != 0)
		return -1;
	if (given->count != NULL &&
	    parse_count(given->count, &options->count) != 0) {
		snprintf(error, error_size,
		    "-n %.100s: not a count of intervals from 1", given->count);
		return -1;
	}
	return 0;
}

int
cli_options_parse(int argc, char **argv, struct cli_options *options,
    char *error, size_t error_size)
{
	struct cli_given given = {0};
	int result;

	memset(options, 0, sizeof(*options));
	options->format = CLI_FORMAT_TEXT;
	options->interval_milliseconds = CLI_WATCH_DEFAULT_MILLISECONDS;
	result = options_read(argc, argv, options, &given, error, error_size);
	if (result != 0)
		return result;
	if ((options->host != NULL
	            ? options_check_remote(options, &given, error, error_size)
	            : options_check_local(
	                  options, &given, error, error_size)) != 0)
		return -1;
	if (options_take_command(
	        argc, argv, optind, options, &given, error, error_size) != 0)
		return -1;
	return options_check_for_command(options, &given, error, error_size);
}
