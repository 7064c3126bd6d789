/*
 * dcistatd: loads the providers named in the YAML configuration and serves
 * their statistics to an AgentX master as DCI-STATS-MIB.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/daemon.h"
#include "agent/notifications.h"
#include "mib/mib_generator.h"
#include "mib/prometheus_generator.h"
#include "agent/options.h"
#include "config.h"
#include "base/clock.h"
#include "config/config.h"
#include "runtime/isolation_process.h"
#include "runtime/lifecycle.h"
#include "base/log.h"
#include "model/events.h"
#include "model/registry.h"
#include "base/secure_path.h"
#include "server/dci_server.h"

#ifndef PROVIDERDIR
#define PROVIDERDIR "/usr/lib/dcistat/providers"
#endif

/* The absolute path of a file that may not exist yet: its directory's real
 * path and its name. */
static char *
realpath_of_new_file(const char *path)
{
	char *copy = strdup(path), *slash, *directory, *absolute = NULL;
	const char *name;

	if (copy == NULL)
		return NULL;
	slash = strrchr(copy, '/');
	if (slash != NULL) {
		*slash = '\0';
		name = slash + 1;
		directory = realpath(copy[0] ? copy : "/", NULL);
	} else {
		name = copy;
		directory = getcwd(NULL, 0);
	}
	if (directory != NULL &&
	    asprintf(&absolute, "%s/%s", directory, name) < 0)
		absolute = NULL;
	free(directory);
	free(copy);
	return absolute;
}

/* What --mib and --prometheus-generator write: text from a registry,
 * NULL with the reason in `error`. */
typedef char *(*generated_text_function)(const struct dci_registry *registry,
    const struct agent_options *options, char *error, size_t error_size);

static char *
mib_text(const struct dci_registry *registry,
    const struct agent_options *options, char *error, size_t error_size)
{
	return mib_generator_generate(
	    registry, options->mib_module, error, error_size);
}

static char *
prometheus_text(const struct dci_registry *registry,
    const struct agent_options *options, char *error, size_t error_size)
{
	(void)options;
	return prometheus_generator_generate(registry, error, error_size);
}

static char *
prometheus_config_text(const struct dci_registry *registry,
    const struct agent_options *options, char *error, size_t error_size)
{
	(void)options;
	return prometheus_generator_scrape_config(registry, error, error_size);
}

/* --mib and --prometheus-generator: loads the providers (their init
 * registers their classes), runs one refresh of each (a provider whose
 * suppliers come and go, such as suppliers, registers its classes there),
 * and writes what `generate` makes of the registry to stdout; no agent.
 * Returns the exit status. The text is made whole before anything is
 * written, so an error leaves stdout empty. */
static int
generated_write(const struct agent_options *options,
    generated_text_function generate, const char *what)
{
	struct dci_lifecycle lifecycle;
	char error[2048], *text;
	int status = 0;

	if (options->mib_module != NULL &&
	    !mib_generator_module_name_valid(
	        options->mib_module, error, sizeof(error)))
		fatalx("%s", error);
	if (dci_lifecycle_load(&lifecycle, options->config_file, PROVIDERDIR,
	        DCI_LOAD_STRICT, error, sizeof(error)) != 0)
		fatalx("%s", error);
	dci_plugins_refresh_all(&lifecycle.plugins, dci_clock_milliseconds());
	text = generate(lifecycle.registry, options, error, sizeof(error));
	if (text == NULL) {
		log_warnx("%s: %s", options->config_file, error);
		status = 1;
	} else if (fputs(text, stdout) == EOF || fflush(stdout) != 0) {
		log_warn("cannot write the %s to standard output", what);
		status = 1;
	}
	free(text);
	dci_lifecycle_unload(&lifecycle);
	return status;
}

static const char *
log_target_choose(
    const struct agent_options *options, const struct dci_config *config)
{
	if (options->log_target != NULL)
		return options->log_target;
	if (config->log_target != NULL)
		return config->log_target;
	return options->foreground ? "stderr" : "syslog";
}

/* What SIGHUP reloads: the lifecycle, and the log reopened (logrotate). */
struct daemon_state {
	const struct agent_options *options;
	struct dci_lifecycle lifecycle;
	struct agent_settings settings;
};

static void
daemon_reload(void *context)
{
	struct daemon_state *state = context;
	struct dci_lifecycle_changes changes;
	const char *target;
	char error[2048];

	agent_daemon_reloading();
	if (dci_lifecycle_reload(
	        &state->lifecycle, &changes, error, sizeof(error)) != 0) {
		agent_daemon_reloaded();
		return;
	}
	agent_daemon_reloaded();
	agent_notifications_configure(&state->lifecycle.config->notifications);
	target = log_target_choose(state->options, state->lifecycle.config);
	if (log_open(target, "dcistatd") != 0) {
		log_open("syslog", "dcistatd");
		log_warn("cannot open log %s; logging to syslog", target);
	}
	if (changes.start_keys_changed[0] != '\0')
		log_notice("reload: %s changed; %s effect at the next start",
		    changes.start_keys_changed,
		    strchr(changes.start_keys_changed, ',') != NULL
		        ? "they take"
		        : "it takes");
}

/* The events sink of the DCI Server (model/events.h). */
static void
main_dci_server_event(void *context, const struct dci_events_instance *event)
{
	dci_server_event(context, event);
}

/* The opening every run of dcistatd shares: its files' mode, the log on
 * standard error, and strict paths. */
static void
main_begin(struct agent_options *options)
{
	/* What dcistatd creates (log and pid files) is no one else's to
	 * write or read. */
	umask(027);
	log_set_debug_tokens(options->debug_tokens);
	log_open("stderr", "dcistatd");
	/* Configuration and providers only from files root (or whoever runs
	 * dcistatd) alone can change; a development tree is let off by
	 * --insecure-paths or DCISTAT_INSECURE_PATHS=1 (the test suite's). */
	if (getenv("DCISTAT_INSECURE_PATHS") != NULL &&
	    strcmp(getenv("DCISTAT_INSECURE_PATHS"), "1") == 0)
		options->insecure_paths = true;
	dci_secure_path_require(!options->insecure_paths, geteuid());
}

/* The pid file, first of all: a second dcistatd with the same pid file is
 * refused before it loads anything, and on stderr, where the caller sees
 * it. The daemon runs in /: a relative pid file is kept where it was
 * meant. Returns the absolute path made of a relative one, to free. */
static char *
main_pid_file(struct agent_options *options, struct agent_daemon *background)
{
	char error[2048], *pid_file = NULL;

	if (options->pid_file == NULL || options->check_only)
		return NULL;
	if (options->pid_file[0] != '/') {
		pid_file = realpath_of_new_file(options->pid_file);
		if (pid_file == NULL)
			fatal("pid file %s", options->pid_file);
		options->pid_file = pid_file;
	}
	if (agent_daemon_pid_file_open(
	        background, options->pid_file, error, sizeof(error)) != 0)
		fatalx("%s", error);
	return pid_file;
}

/* In the process that serves: the providers' starts and threads, a first
 * refresh, then the AgentX session. */
static void
main_serve(struct daemon_state *state, const struct agent_options *options)
{
	const struct dci_config *config = state->lifecycle.config;

	/* After daemon(): the providers' starts (their threads and listening
	 * sockets), isolated providers' processes and the refresh threads,
	 * none of which survives a fork. */
	dci_plugins_use_threads(&state->lifecycle.plugins);
	dci_plugins_refresh_all(
	    &state->lifecycle.plugins, dci_clock_milliseconds());
	state->settings.agentx_socket = options->agentx_socket != NULL
	                                    ? options->agentx_socket
	                                    : config->agentx_socket;
	state->settings.ping_interval_seconds = config->ping_interval_seconds;
	state->settings.in_place =
	    options->in_place_set ? options->in_place : config->in_place;
	agent_notifications_configure(&config->notifications);
	/* Before the first AgentX exchange, not only in the loop: a send on
	 * a connection the master closed (or an answer cut short shut down)
	 * must fail with EPIPE, not end the daemon. */
	signal(SIGPIPE, SIG_IGN);
	if (agent_start(&state->settings, state->lifecycle.registry) != 0)
		fatalx("cannot start the AgentX subagent");
}

/* The DCI Server when the configuration names its socket, else NULL;
 * before the change of user: the socket's directory may be root's. */
static struct dci_server *
main_dci_server_start(struct daemon_state *state)
{
	const struct dci_config *config = state->lifecycle.config;
	struct dci_server_settings server_settings = {
	    .path = config->dci_socket,
	    .mode = config->dci_socket_mode,
	    .access = config->dci_access,
	    .access_count = config->dci_access_count,
	    .work_microseconds = (int64_t)config->dci_work_milliseconds * 1000,
	};
	struct dci_server *dci_server;
	char error[2048];

	if (config->dci_socket == NULL)
		return NULL;
	dci_server = dci_server_start(
	    &server_settings, state->lifecycle.registry, error, sizeof(error));
	if (dci_server == NULL)
		fatalx("%s", error);
	/* Its consumers' events: the same the notifications carry. */
	dci_events_set_consumer_sink(main_dci_server_event, dci_server);
	return dci_server;
}

int
main(int argc, char **argv)
{
	struct agent_options options;
	struct daemon_state state = {0};
	struct agent_loop loop;
	struct agent_daemon background = {.pid_file = -1, .ready_pipe = -1};
	struct agent_daemon_user user;
	struct dci_server *dci_server;
	const char *user_name;
	char error[2048], *pid_file;
	int parsed, result;

	parsed = agent_options_parse(argc, argv, &options);
	if (parsed != 0)
		return parsed > 0 ? 0 : 2;
	main_begin(&options);
	if (options.mib_module != NULL)
		return generated_write(&options, mib_text, "module");
	if (options.prometheus_generator)
		return generated_write(
		    &options, prometheus_text, "generator configuration");
	if (options.prometheus_config)
		return generated_write(&options, prometheus_config_text,
		    "Prometheus configuration");

	/* A daemon keeps none of its caller's descriptors: closed before
	 * any of its own is opened. */
	if (!options.foreground && !options.check_only)
		agent_daemon_close_inherited();
	pid_file = main_pid_file(&options, &background);

	/* What isolated providers' processes leave is dcistatd's to reap
	 * and, at stop, to kill (runtime/isolation_process.h); again after the
	 * fork into the background, which does not inherit it. */
	if (!options.check_only)
		dci_isolation_adopt_orphans();

	/* -t is strict: any provider that would fail fails the check. A
	 * daemon serves what works and retries the rest. */
	if (dci_lifecycle_load(&state.lifecycle, options.config_file,
	        PROVIDERDIR,
	        options.check_only ? DCI_LOAD_STRICT : DCI_LOAD_TOLERANT, error,
	        sizeof(error)) != 0)
		fatalx("%s", error);
	if (options.check_only) {
		size_t count = state.lifecycle.config->provider_count;
		printf("%s: configuration OK (%zu provider%s)\n",
		    options.config_file, count, count == 1 ? "" : "s");
		dci_lifecycle_unload(&state.lifecycle);
		return 0;
	}
	state.options = &options;
	/* -u, else the configuration's agent: user:. */
	user_name =
	    options.user != NULL ? options.user : state.lifecycle.config->user;
	if (user_name != NULL &&
	    agent_daemon_user_find(user_name, &user, error, sizeof(error)) != 0)
		fatalx("%s", error);

	if (log_open(log_target_choose(&options, state.lifecycle.config),
	        "dcistatd") != 0)
		fatal("cannot open log %s",
		    log_target_choose(&options, state.lifecycle.config));
	if (!options.foreground) {
		if (agent_daemon_detach(&background) != 0)
			fatal("cannot daemonise");
		dci_isolation_adopt_orphans();
	}
	main_serve(&state, &options);
	dci_server = main_dci_server_start(&state);
	/* The providers are loaded and the master's socket is open: nothing
	 * further needs root. Isolated providers' processes, started as root,
	 * start again as the user. */
	if (user_name != NULL) {
		if (agent_daemon_user_become(&user, error, sizeof(error)) != 0)
			fatalx("%s", error);
		log_info("running as user %s (uid %ld, gid %ld)", user.name,
		    (long)user.uid, (long)user.gid);
		dci_plugins_restart_isolated(
		    &state.lifecycle.plugins, dci_clock_milliseconds());
	}
	agent_daemon_ready(&background);

	loop = (struct agent_loop){
	    .dci_server = dci_server,
	    .plugins = &state.lifecycle.plugins,
	    .reload = daemon_reload,
	    .context = &state,
	    .busy_poll_microseconds =
	        state.lifecycle.config->busy_poll_microseconds,
	};
	result = agent_run(&loop);
	agent_daemon_stopping();

	dci_events_set_consumer_sink(NULL, NULL);
	dci_server_stop(dci_server);
	agent_stop();
	dci_lifecycle_unload(&state.lifecycle);
	dci_isolation_end_adopted();
	agent_daemon_pid_file_remove(&background);
	log_info("stopped");
	log_close();
	free(pid_file);
	return result == 0 ? 0 : 1;
}
