/*
 * dcistat: the generic display program of DCI4. It loads the providers of
 * a dcistatd configuration in this process (the local source, source.h)
 * and shows their suppliers, classes and values as tables, JSON or
 * OpenMetrics, or watches a class's counters as rates. See dcistat(1).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cli/catalog.h"
#include "cli/document.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/source.h"
#include "cli/remote/remote_source.h"
#include "cli/values.h"
#include "cli/view.h"
#include "cli/watch.h"
#include "config.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/secure_path.h"
#include "config/config.h"
#include "text/escape.h"

#ifndef PROVIDERDIR
#define PROVIDERDIR "/usr/lib/dcistat/providers"
#endif

#define DEFAULT_CONFIG_FILE SYSCONFDIR "/dcistat/dcistatd.yaml"

/* Exit statuses: 1 for a failure at run time (an unknown class, a bad
 * configuration), 2 for a bad command line. */
#define EXIT_RUN_FAILURE 1
#define EXIT_USAGE 2

/* The terminal's width when standard output is one, else 0 (no limit:
 * a file or a pipe gets whole rows). */
static size_t
output_width(void)
{
	struct winsize size;

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
		return size.ws_col;
	return 80;
}

/* Writes an error on stderr, escaped (text/escape.h, terminal mode): it
 * may quote what an agent answered, a provider or a configuration file
 * said, or the command line. */
static void
print_error(const char *message)
{
	size_t length = strlen(message);
	char *escaped = malloc(length * DCI_TEXT_ESCAPE_GROWTH + 1);

	if (escaped == NULL) {
		fputs("dcistat: out of memory\n", stderr);
		return;
	}
	dci_text_escape(escaped, length * DCI_TEXT_ESCAPE_GROWTH + 1, message,
	    length, DCI_TEXT_ESCAPE_TERMINAL);
	fprintf(stderr, "dcistat: %s\n", escaped);
	free(escaped);
}

/* Core's log, as dcistat shows it: warnings and errors (a provider that
 * failed to load, a refused value) on stderr; the notices and information
 * a daemon logs about its providers' life would only hide the output.
 * log.c has escaped the message; print_error leaves it as it is. */
static void
log_to_stderr(int level, const char *message)
{
	if (level <= LOG_WARNING)
		print_error(message);
}

/* The tables of a command other than watch. Returns 0, or -1 with the
 * reason in `error`. */
static int
command_tables(const struct cli_options *options, struct cli_source *source,
    struct cli_document *document, char *error, size_t error_size)
{
	const struct dci_registry *registry = source->registry;
	const struct dci_class *class = NULL;
	struct cli_table *table;
	int result = 0;

	if (options->class_name != NULL) {
		class = dci_registry_find_class(registry, options->class_name);
		if (class == NULL) {
			snprintf(error, error_size,
			    "no class '%.200s' (see dcistat classes)",
			    options->class_name);
			return -1;
		}
	}
	switch (options->command) {
	case CLI_COMMAND_SUPPLIERS:
		result = cli_catalog_suppliers(document, registry,
		    dci_clock_milliseconds(), dci_clock_realtime_milliseconds());
		break;
	case CLI_COMMAND_CLASSES:
		result = cli_catalog_classes(document, registry, NULL);
		break;
	case CLI_COMMAND_DESCRIBE:
		result = cli_catalog_describe(document, class);
		break;
	case CLI_COMMAND_SHOW:
		for (size_t i = 0; i < registry->class_count; i++) {
			const struct dci_class *each = registry->classes[i];

			if (class != NULL && each != class)
				continue;
			table = cli_values_show(each, options->instance,
			    options->selection, error, error_size);
			if (table == NULL ||
			    cli_document_add(document, table) != 0)
				return -1;
		}
		return 0;
	case CLI_COMMAND_WATCH:
		break;
	}
	if (result != 0)
		snprintf(error, error_size, "out of memory");
	return result;
}

/* Colour (bold headers) on a terminal that shows it, unless the user
 * asked otherwise: --color, or NO_COLOR (no-color.org) in the
 * environment. */
static bool
color_wanted(enum cli_color color)
{
	const char *term = getenv("TERM");

	switch (color) {
	case CLI_COLOR_ALWAYS:
		return true;
	case CLI_COLOR_NEVER:
		return false;
	case CLI_COLOR_AUTO:
		break;
	}
	/* NO_COLOR counts when it is set to something (no-color.org). */
	return isatty(STDOUT_FILENO) &&
	       (getenv("NO_COLOR") == NULL || getenv("NO_COLOR")[0] == '\0') &&
	       term != NULL && strcmp(term, "dumb") != 0;
}

/* watch --sort DATUM: the datum is checked before the first wait, so that
 * a typo is said at once (show checks it on its tables). Returns 0, or -1
 * with the reason in `error`; an unknown class is left to the watch. */
static int
watch_sort_check(const struct cli_options *options,
    const struct cli_source *source, char *error, size_t error_size)
{
	const struct dci_class *class;

	if (options->sort == NULL)
		return 0;
	class = dci_registry_find_class(source->registry, options->class_name);
	if (class == NULL ||
	    strcmp(options->sort, CLI_VALUES_INSTANCE_COLUMN) == 0 ||
	    strcmp(options->sort, CLI_VALUES_ID_COLUMN) == 0 ||
	    strcmp(options->sort, CLI_WATCH_INTERVAL_COLUMN) == 0)
		return 0;
	for (size_t i = 0; i < class->datum_count; i++)
		if (strcmp(class->datums[i].info.label, options->sort) == 0)
			return 0;
	snprintf(error, error_size,
	    "--sort %.100s: no such datum in class %.100s (see dcistat "
	    "describe %.100s)",
	    options->sort, class->label, class->label);
	return -1;
}

struct emit_context {
	enum cli_format format;
	struct cli_text_style style;
	const struct cli_view *view;
	unsigned interval_milliseconds;
	bool first;
};

static void
watch_waiting(const struct dci_class *class, void *context)
{
	struct emit_context *emit = context;

	/* People see at once that the command runs; scripts reading JSON or
	 * OpenMetrics get only the samples. */
	if (emit->format != CLI_FORMAT_TEXT)
		return;
	printf("%s: waiting %u.%03u s for the first sample\n", class->label,
	    emit->interval_milliseconds / 1000,
	    emit->interval_milliseconds % 1000);
	fflush(stdout);
}

static int
emit_interval(struct cli_document *document, void *context)
{
	struct emit_context *emit = context;
	char stamp[16], error[256];
	time_t now = time(NULL);
	struct tm local;

	if (cli_view_apply(document, emit->view, error, sizeof(error)) != 0) {
		print_error(error);
		return -1;
	}
	/* The time of the sample before its table, as sar gives it. */
	if (localtime_r(&now, &local) != NULL &&
	    strftime(stamp, sizeof(stamp), "%H:%M:%S", &local) > 0)
		emit->style.stamp = stamp;
	else
		emit->style.stamp = NULL;
	/* A blank line between two intervals' tables. */
	if (emit->format == CLI_FORMAT_TEXT && !emit->first)
		putchar('\n');
	emit->first = false;
	return cli_output_write(stdout, emit->format, document, &emit->style);
}

/*
 * The running dcistatd, through the DCI Server socket the configuration
 * names (agent: dci-socket). Returns 0 (opened), -1 (a daemon answered but
 * could not be read: the error is dcistat's), or 1: use the local source.
 * That is silent when the configuration names no socket (or cannot be
 * read: the local source then says why), and one line on stderr when the
 * socket is named but no daemon answers there.
 */
static int
daemon_source_open(struct cli_source *source, const char *config_file,
    char *error, size_t error_size)
{
	struct dci_config *config = NULL;
	int opened = 1;

	if (dci_config_load(config_file, &config, NULL, 0) != 0 ||
	    config->dci_socket == NULL) {
		dci_config_free(config);
		return 1;
	}
	opened = cli_source_daemon_open(
	    source, config->dci_socket, error, error_size);
	if (opened > 0) {
		char line[2400];

		snprintf(line, sizeof(line),
		    "no dcistatd answers (%s): loading the providers in this "
		    "process, as --standalone does",
		    error);
		print_error(line);
	}
	dci_config_free(config);
	return opened;
}

int
main(int argc, char **argv)
{
	struct cli_options options;
	struct cli_source source = {0};
	struct cli_document document = {0};
	struct cli_text_style style;
	struct cli_view view;
	char error[2048];
	int parsed, opened, status = 0;

	parsed = cli_options_parse(argc, argv, &options, error, sizeof(error));
	if (parsed > 0)
		return 0;
	if (parsed < 0) {
		print_error(error);
		fprintf(stderr, "Try 'dcistat --help'.\n");
		return EXIT_USAGE;
	}
	log_open("stderr", "dcistat");
	log_set_sink(log_to_stderr);
	/* The local source loads code as dcistatd does: from files only
	 * root, or whoever runs it, can change; a development tree is let
	 * off by --insecure-paths or DCISTAT_INSECURE_PATHS=1. */
	if (getenv("DCISTAT_INSECURE_PATHS") != NULL &&
	    strcmp(getenv("DCISTAT_INSECURE_PATHS"), "1") == 0)
		options.insecure_paths = true;
	dci_secure_path_require(!options.insecure_paths, geteuid());
	if (options.host != NULL) {
		struct cli_remote_options remote = {
		    .host = options.host,
		    .version = options.snmp_version,
		    .community = options.community,
		    .user = options.user,
		    .level = options.level,
		    .auth_protocol = options.auth_protocol,
		    .auth_passphrase = options.auth_passphrase,
		    .privacy_protocol = options.privacy_protocol,
		    .privacy_passphrase = options.privacy_passphrase,
		    .timeout_milliseconds = options.timeout_milliseconds,
		    .retries = options.retries,
		    /* show CLASS and watch CLASS read that class's rows
		     * only. */
		    .focus_class = options.command == CLI_COMMAND_SHOW ||
		                           options.command == CLI_COMMAND_WATCH
		                       ? options.class_name
		                       : NULL,
		};
		opened = cli_remote_source_open(
		    &source, &remote, error, sizeof(error));
	} else {
		const char *config_file = options.config_file != NULL
		                              ? options.config_file
		                              : DEFAULT_CONFIG_FILE;

		opened = options.standalone
		             ? 1
		             : daemon_source_open(
		                   &source, config_file, error, sizeof(error));
		if (opened > 0)
			opened = cli_source_local_open(&source, config_file,
			    PROVIDERDIR, options.command == CLI_COMMAND_WATCH,
			    error, sizeof(error));
	}
	if (opened != 0) {
		print_error(error);
		log_close();
		return EXIT_RUN_FAILURE;
	}
	style = (struct cli_text_style){
	    .width = output_width(),
	    .human = !options.raw,
	    .color = color_wanted(options.color),
	};
	view = (struct cli_view){
	    .match = options.match,
	    .sort = options.sort,
	    .top = options.top,
	};
	if (options.command == CLI_COMMAND_WATCH) {
		struct cli_watch_settings settings = {
		    .class_name = options.class_name,
		    .selection = options.selection,
		    .interval_milliseconds = options.interval_milliseconds,
		    .count = options.count,
		    .waiting = watch_waiting,
		};
		struct emit_context emit = {
		    .format = options.format,
		    .style = style,
		    .view = &view,
		    .interval_milliseconds = options.interval_milliseconds,
		    .first = true,
		};

		if (watch_sort_check(&options, &source, error, sizeof(error)) !=
		        0 ||
		    cli_watch_run(&source, &settings, emit_interval, &emit,
		        error, sizeof(error)) != 0) {
			print_error(error);
			status = EXIT_RUN_FAILURE;
		}
	} else if (command_tables(&options, &source, &document, error,
	               sizeof(error)) != 0 ||
	           cli_view_apply(&document, &view, error, sizeof(error)) !=
	               0) {
		print_error(error);
		status = EXIT_RUN_FAILURE;
	} else if (cli_output_write(
	               stdout, options.format, &document, &style) != 0) {
		fprintf(stderr, "dcistat: cannot write the output\n");
		status = EXIT_RUN_FAILURE;
	}
	/* What could be shown was; a one-shot command still says that not
	 * everything it was asked to load could be (each reported above). */
	if (status == 0 && options.command != CLI_COMMAND_WATCH &&
	    source.providers_failed > 0)
		status = EXIT_RUN_FAILURE;
	cli_document_clear(&document);
	cli_source_close(&source);
	log_set_sink(NULL);
	log_close();
	return status;
}
