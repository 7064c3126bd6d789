/* dcistatd's command line. */
#ifndef DCISTAT_AGENT_OPTIONS_H
#define DCISTAT_AGENT_OPTIONS_H

#include <stdbool.h>

#include "config/config.h"

struct agent_options {
	bool foreground; /* -f */
	bool check_only; /* -t */
	const char
	    *config_file; /* -c, default SYSCONFDIR/dcistat/dcistatd.yaml */
	const char *agentx_socket; /* -x, overrides the YAML */
	const char *debug_tokens;  /* -D */
	const char *pid_file;      /* -p */
	const char *user; /* -u: the user to run as once started, or NULL */
	bool insecure_paths; /* --insecure-paths: no strict paths rule */
	const char *log_target;    /* -L, overrides the YAML */
	const char *mib_module;    /* --mib NAME: write the MIB module, exit */
	/* --prometheus-generator: write snmp_exporter's generator.yml, exit */
	bool prometheus_generator;
	/* --prometheus-config: write Prometheus's prometheus.yml, exit */
	bool prometheus_config;
	bool in_place_set;         /* --in-place, overrides the YAML */
	enum dci_config_in_place in_place;
};

/* Parses argv; on a usage error prints the usage and returns -1; on -h or
 * -V prints and returns 1 (exit 0); otherwise returns 0. --mib takes a
 * module name (checked later, with the generator's rules);
 * --prometheus-generator takes none; each excludes -t and the other. */
int agent_options_parse(int argc, char **argv, struct agent_options *options);

#endif
