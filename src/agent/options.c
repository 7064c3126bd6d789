#define _GNU_SOURCE
#include "agent/options.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/option_store.h"
#include "config.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

static void
agent_options_usage(FILE *out)
{
	fprintf(out,
	    "usage: dcistatd [-f] [-t] [-c FILE] [-x AGENTX-SOCKET] [-D "
	    "TOKENS]\n"
	    "                [-p PIDFILE] [-u USER] [-L stderr|syslog|FILE] "
	    "[--in-place auto|on|off]\n"
	    "                [--insecure-paths]\n"
	    "       dcistatd --mib MODULE-NAME [-c FILE]\n"
	    "       dcistatd --prometheus-generator [-c FILE]\n"
	    "       dcistatd --prometheus-config [-c FILE]\n"
	    "       dcistatd -h|--help | -V|--version\n"
	    "  -f  stay in the foreground (default: daemonise)\n"
	    "  -t  check the configuration and its providers, then exit 0 or "
	    "1\n"
	    "  -c  configuration file (default %s/dcistat/dcistatd.yaml)\n"
	    "  -x  AgentX master socket, overriding the configuration\n"
	    "  -D  debug tokens, comma-separated: agent, netsnmp, a provider "
	    "name, or all\n"
	    "  -p  write the daemon's pid to PIDFILE\n"
	    "  -u  once started, run as USER and its groups (no privilege "
	    "kept)\n"
	    "  -L  log to stderr, syslog or a file (default: stderr with -f, "
	    "else syslog)\n"
	    "  --in-place auto|on|off  answer the master's Get and GetNext "
	    "without\n"
	    "         Net-SNMP's agent (default auto: on the Net-SNMP versions "
	    "tested),\n"
	    "         overriding the configuration\n"
	    "  --insecure-paths  load configuration and providers from files "
	    "others\n"
	    "         may change (development trees; see dcistatd(8))\n"
	    "  --mib  write an SMIv2 module MODULE-NAME describing the "
	    "per-class tables\n"
	    "         of the providers of FILE to standard output, then "
	    "exit\n"
	    "  --prometheus-generator  write snmp_exporter's generator.yml "
	    "for the\n"
	    "         per-class tables of the providers of FILE to standard "
	    "output,\n"
	    "         then exit\n"
	    "  --prometheus-config  write Prometheus's prometheus.yml: a "
	    "job per class\n"
	    "         through snmp_exporter, series renamed to Prometheus's "
	    "names, then exit\n"
	    "  -h, --help  print this help, then exit\n"
	    "  -V, --version  print the version, then exit\n",
	    SYSCONFDIR);
}

/* getopt_long's value for --mib: no short option has it. */
#define AGENT_OPTION_MIB 256
#define AGENT_OPTION_IN_PLACE 257
#define AGENT_OPTION_INSECURE_PATHS 258
#define AGENT_OPTION_PROMETHEUS_GENERATOR 259
#define AGENT_OPTION_PROMETHEUS_CONFIG 260

int
agent_options_parse(int argc, char **argv, struct agent_options *options)
{
	static const struct option long_options[] = {
	    {"mib", required_argument, NULL, AGENT_OPTION_MIB},
	    {"in-place", required_argument, NULL, AGENT_OPTION_IN_PLACE},
	    {"insecure-paths", no_argument, NULL, AGENT_OPTION_INSECURE_PATHS},
	    {"prometheus-generator", no_argument, NULL,
	        AGENT_OPTION_PROMETHEUS_GENERATOR},
	    {"prometheus-config", no_argument, NULL,
	        AGENT_OPTION_PROMETHEUS_CONFIG},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const struct option_store stored[] = {
	    {AGENT_OPTION_MIB, &options->mib_module, NULL},
	    {AGENT_OPTION_INSECURE_PATHS, NULL, &options->insecure_paths},
	    {AGENT_OPTION_PROMETHEUS_GENERATOR, NULL,
	        &options->prometheus_generator},
	    {AGENT_OPTION_PROMETHEUS_CONFIG, NULL, &options->prometheus_config},
	    {'f', NULL, &options->foreground},
	    {'t', NULL, &options->check_only},
	    {'c', &options->config_file, NULL},
	    {'x', &options->agentx_socket, NULL},
	    {'D', &options->debug_tokens, NULL},
	    {'p', &options->pid_file, NULL},
	    {'L', &options->log_target, NULL},
	    {'u', &options->user, NULL},
	};
	int option;

	*options = (struct agent_options){
	    .config_file = SYSCONFDIR "/dcistat/dcistatd.yaml",
	};
	opterr = 0;
	while ((option = getopt_long(argc, argv, "ftc:x:D:p:L:u:hV",
	            long_options, NULL)) != -1) {
		if (option_store_apply(
		        stored, COUNT_OF(stored), option, optarg))
			continue;
		switch (option) {
		case AGENT_OPTION_IN_PLACE:
			if (!dci_config_parse_in_place(
			        optarg, &options->in_place)) {
				fprintf(stderr,
				    "dcistatd: --in-place takes auto, on or "
				    "off, not '%s'\n",
				    optarg);
				agent_options_usage(stderr);
				return -1;
			}
			options->in_place_set = true;
			break;
		case 'h':
			agent_options_usage(stdout);
			return 1;
		case 'V':
			printf("dcistatd %s\n", PACKAGE_VERSION);
			return 1;
		default:
			if (optopt == AGENT_OPTION_MIB ||
			    optopt == AGENT_OPTION_IN_PLACE)
				fprintf(stderr,
				    "dcistatd: option %s needs a value\n",
				    optopt == AGENT_OPTION_MIB ? "--mib"
				                               : "--in-place");
			else if (optopt == 0)
				fprintf(stderr,
				    "dcistatd: option %s is not known\n",
				    argv[optind - 1]);
			else if (optopt != '?')
				fprintf(stderr, "dcistatd: option -%c %s\n",
				    optopt,
				    strchr("cxDpLu", optopt) ? "needs a value"
				                             : "is not known");
			agent_options_usage(stderr);
			return -1;
		}
	}
	if (options->mib_module != NULL && options->check_only) {
		fprintf(stderr, "dcistatd: --mib and -t exclude each other\n");
		agent_options_usage(stderr);
		return -1;
	}
	if (options->prometheus_generator &&
	    (options->check_only || options->mib_module != NULL ||
	        options->prometheus_config)) {
		fprintf(stderr,
		    "dcistatd: --prometheus-generator excludes %s\n",
		    options->check_only           ? "-t"
		    : options->mib_module != NULL ? "--mib"
		                                  : "--prometheus-config");
		agent_options_usage(stderr);
		return -1;
	}
	if (options->prometheus_config &&
	    (options->check_only || options->mib_module != NULL)) {
		fprintf(stderr, "dcistatd: --prometheus-config excludes %s\n",
		    options->check_only ? "-t" : "--mib");
		agent_options_usage(stderr);
		return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "dcistatd: unexpected argument '%s'\n",
		    argv[optind]);
		agent_options_usage(stderr);
		return -1;
	}
	return 0;
}
