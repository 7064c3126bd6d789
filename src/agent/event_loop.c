/*
 * The daemon's one loop: Net-SNMP's sockets and timers through
 * snmp_select_info2 / snmp_read2 / snmp_timeout / run_alarms, plus a
 * self-pipe for signals. No thread polls anything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/library/large_fd_set.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "core/clock.h"
#include "core/log.h"

static int signal_pipe[2] = {-1, -1};

static void
signal_note(int number)
{
	int saved_errno = errno;
	unsigned char byte = (unsigned char)number;

	/* A full pipe already holds a pending stop. */
	if (write(signal_pipe[1], &byte, 1) < 0) {
	}
	errno = saved_errno;
}

static int
signals_install(void)
{
	struct sigaction action;

	if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		log_warn("agent: pipe");
		return -1;
	}
	memset(&action, 0, sizeof(action));
	sigemptyset(&action.sa_mask);
	action.sa_handler = signal_note;
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGHUP, &action, NULL);
	action.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &action, NULL);
	return 0;
}

static void
signals_remove(void)
{
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	close(signal_pipe[0]);
	close(signal_pipe[1]);
	signal_pipe[0] = signal_pipe[1] = -1;
}

/* Drains the pipe; true when a stop was asked for. */
static bool
signals_take(void)
{
	unsigned char numbers[64];
	ssize_t count;
	bool stop = false;

	while ((count = read(signal_pipe[0], numbers, sizeof(numbers))) > 0) {
		for (ssize_t i = 0; i < count; i++) {
			if (numbers[i] == SIGHUP)
				log_notice("agent: SIGHUP: configuration "
				           "reload is not supported yet; "
				           "restart dcistatd to apply changes");
			else
				stop = true;
		}
	}
	return stop;
}

int
agent_run(struct dci_plugins *plugins)
{
	netsnmp_large_fd_set readable;
	int result = 0;

	if (signals_install() != 0)
		return -1;
	netsnmp_large_fd_set_init(&readable, FD_SETSIZE);
	for (;;) {
		/* snmp_select_info2 only shortens the timeout it is given (to
		 * the next alarm or retransmission); a zero start would make
		 * every select return at once and the loop spin. Start long,
		 * as snmpd does. */
		struct timeval timeout = {3600, 0}, *wait = &timeout;
		int highest = 0, block = 0, count;

		NETSNMP_LARGE_FD_ZERO(&readable);
		snmp_select_info2(&highest, &readable, &timeout, &block);
		if (block)
			wait = NULL; /* no timer pending: sleep until input */
		NETSNMP_LARGE_FD_SET(signal_pipe[0], &readable);
		if (signal_pipe[0] >= highest)
			highest = signal_pipe[0] + 1;

		count = netsnmp_large_fd_set_select(
		    highest, &readable, NULL, NULL, wait);
		if (count < 0) {
			if (errno == EINTR)
				continue;
			log_warn("agent: select");
			result = -1;
			break;
		}
		if (count > 0 &&
		    NETSNMP_LARGE_FD_ISSET(signal_pipe[0], &readable)) {
			NETSNMP_LARGE_FD_CLR(signal_pipe[0], &readable);
			count--;
			if (signals_take()) {
				log_info("agent: stopping on signal");
				break;
			}
		}
		if (count > 0) {
			/* Lazy refresh: only when a request is waiting, and
			 * before it is read, so handlers see whole
			 * snapshots and never read a file. */
			dci_plugins_refresh_due(
			    plugins, dci_clock_milliseconds());
			snmp_read2(&readable);
		} else if (count == 0) {
			snmp_timeout();
		}
		run_alarms();
		netsnmp_check_outstanding_agent_requests();
	}
	netsnmp_large_fd_set_cleanup(&readable);
	signals_remove();
	return result;
}
