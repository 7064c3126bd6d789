#define _GNU_SOURCE
#include "agent/options.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

static void
agent_options_usage(FILE *out)
{
	fprintf(out,
	    "usage: dcistatd [-f] [-t] [-c FILE] [-x AGENTX-SOCKET] [-D "
	    "TOKENS]\n"
	    "                [-p PIDFILE] [-L stderr|syslog|FILE]\n"
	    "  -f  stay in the foreground (default: daemonise)\n"
	    "  -t  check the configuration and its providers, then exit 0 or "
	    "1\n"
	    "  -c  configuration file (default %s/dcistat/dcistatd.yaml)\n"
	    "  -x  AgentX master socket, overriding the configuration\n"
	    "  -D  debug tokens, comma-separated: agent, netsnmp, a provider "
	    "name, or all\n"
	    "  -p  write the daemon's pid to PIDFILE\n"
	    "  -L  log to stderr, syslog or a file (default: stderr with -f, "
	    "else syslog)\n",
	    SYSCONFDIR);
}

int
agent_options_parse(int argc, char **argv, struct agent_options *options)
{
	int option;

	*options = (struct agent_options){
	    .config_file = SYSCONFDIR "/dcistat/dcistatd.yaml",
	};
	opterr = 0;
	while ((option = getopt(argc, argv, "ftc:x:D:p:L:hV")) != -1) {
		switch (option) {
		case 'f':
			options->foreground = true;
			break;
		case 't':
			options->check_only = true;
			break;
		case 'c':
			options->config_file = optarg;
			break;
		case 'x':
			options->agentx_socket = optarg;
			break;
		case 'D':
			options->debug_tokens = optarg;
			break;
		case 'p':
			options->pid_file = optarg;
			break;
		case 'L':
			options->log_target = optarg;
			break;
		case 'h':
			agent_options_usage(stdout);
			return 1;
		case 'V':
			printf("dcistatd %s\n", PACKAGE_VERSION);
			return 1;
		default:
			if (optopt != 0 && optopt != '?')
				fprintf(stderr, "dcistatd: option -%c %s\n",
				    optopt,
				    strchr("cxDpL", optopt) ? "needs a value"
				                            : "is not known");
			agent_options_usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dcistatd: unexpected argument '%s'\n",
		    argv[optind]);
		agent_options_usage(stderr);
		return -1;
	}
	return 0;
}
