/*
 * dcistat's command line:
 *
 *   dcistat [-c FILE] [--json | --openmetrics | --prometheus] COMMAND [ARG...]
 *   dcistat -H HOST[:PORT] [SNMP OPTIONS] [--json | ...] COMMAND [ARG...]
 *
 * -H reads the statistics from an SNMP agent (the remote source), and the
 * SNMP options take Net-SNMP's spelling: -v 2c|3, -c COMMUNITY (with -H,
 * -c is the community, as in snmpwalk), -u USER, -l LEVEL, -a/-A, -x/-X,
 * -t SECONDS, -r RETRIES. The commands are suppliers, classes, describe
 * CLASS, show [-d LIST] [CLASS [INSTANCE]] and watch [-d LIST] [-i SECONDS]
 * [-n COUNT] CLASS [SECONDS [COUNT]] (the last two as sar(1) takes them).
 * The rows of show and watch may be chosen and ordered: --match GLOB
 * (instance labels), --sort DATUM (largest first), --top N. Text output
 * shows large numbers with SI prefixes (27.9M) unless --raw, and its
 * headers in bold on a terminal (--color auto|always|never). Options may
 * come before or after the command. Every value is checked here, so that
 * the commands get only what they can use.
 */
#ifndef DCISTAT_CLI_OPTIONS_H
#define DCISTAT_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/output.h"

enum cli_command {
	CLI_COMMAND_SUPPLIERS,
	CLI_COMMAND_CLASSES,
	CLI_COMMAND_DESCRIBE,
	CLI_COMMAND_SHOW,
	CLI_COMMAND_WATCH,
};

/* The default interval of watch, and the bounds of -i. */
#define CLI_WATCH_DEFAULT_MILLISECONDS 1000u
#define CLI_WATCH_MIN_MILLISECONDS 100u
#define CLI_WATCH_MAX_MILLISECONDS 86400000u

struct cli_options {
	enum cli_command command;
	const char *config_file; /* NULL: the installed configuration */
	/* --insecure-paths: the local source skips the strict paths rule
	 * (base/secure_path.h). */
	bool insecure_paths;
	/* --standalone: the providers in this process, even when dcistatd
	 * answers on the configuration's dci-socket. */
	bool standalone;
	enum cli_format format;
	const char *class_name; /* NULL: every class (show) */
	const char *instance;   /* NULL: every instance */
	const char *selection;  /* -d, NULL: every datum */
	unsigned interval_milliseconds;
	unsigned long count; /* -n; 0: until interrupted */
	const char *match;   /* --match GLOB on instance labels, NULL: all */
	const char *sort;    /* --sort DATUM, NULL: the source's order */
	size_t top;          /* --top N; 0: every row */
	bool raw;            /* --raw: exact numbers in text output */
	enum cli_color {
		CLI_COLOR_AUTO, /* on a terminal, unless NO_COLOR or TERM=dumb
		                 */
		CLI_COLOR_ALWAYS,
		CLI_COLOR_NEVER,
	} color;
	/* The remote source: host is NULL for the local one. */
	const char *host;
	const char *snmp_version, *community, *user, *level;
	const char *auth_protocol, *auth_passphrase;
	const char *privacy_protocol, *privacy_passphrase;
	unsigned timeout_milliseconds; /* -t */
	unsigned retries;              /* -r */
};

/* Fills `options`. Returns 0 to run, 1 when help or the version was
 * printed (exit 0), or -1 with a one-line message in `error` (exit 2). */
int cli_options_parse(int argc, char **argv, struct cli_options *options,
    char *error, size_t error_size);

/* The usage text, for --help and after an error. */
void cli_options_usage(FILE *out);

#endif
