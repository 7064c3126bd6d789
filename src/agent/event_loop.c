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
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agentx_direct.h"
#include "agent/agentx_send.h"
#include "agent/master_session.h"
#include "base/clock.h"
#include "base/log.h"
#include "server/dci_server.h"

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

/* Drains the pipe; true when a stop was asked for. Several SIGHUPs
 * pending are one reload. */
static bool
signals_take(const struct agent_loop *loop)
{
	unsigned char numbers[64];
	ssize_t count;
	bool stop = false, reload = false;

	while ((count = read(signal_pipe[0], numbers, sizeof(numbers))) > 0) {
		for (ssize_t i = 0; i < count; i++) {
			if (numbers[i] == SIGHUP)
				reload = true;
			else
				stop = true;
		}
	}
	if (reload && !stop && loop->reload != NULL) {
		log_info("agent: SIGHUP: reloading the configuration");
		loop->reload(loop->context);
	}
	return stop;
}

/* poll without a timeout over `polled` until something is ready or
 * `microseconds` (below a second) have passed, the CPU yielded between
 * polls (to the master, when both run on one CPU). Returns poll's count. */
static int
busy_poll(struct pollfd *polled, nfds_t used, unsigned microseconds)
{
	struct timespec end, now;
	int count;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += (long)microseconds * 1000;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while ((count = poll(polled, used, 0)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		sched_yield();
	}
	return count;
}

/* poll's timeout for snmp_select_info2's, rounded up to a millisecond. */
static int
timeout_milliseconds(const struct timeval *timeout)
{
	long long milliseconds =
	    (long long)timeout->tv_sec * 1000 + (timeout->tv_usec + 999) / 1000;

	if (milliseconds < 0)
		return 0;
	return milliseconds > INT_MAX ? INT_MAX : (int)milliseconds;
}

/* The poll timeout: Net-SNMP's (block: none), the plug-ins', the master
 * session's, the output waiting for the master's or the DCI Server's next
 * deadline, whichever is sooner; -1 waits for input alone. */
static int
wait_milliseconds(const struct agent_loop *loop, int block,
    const struct timeval *timeout, int64_t now)
{
	int64_t deadline = dci_plugins_deadline(loop->plugins);
	int64_t master = agent_master_deadline();
	int64_t waiting = agent_agentx_waiting_deadline();
	int64_t server = loop->dci_server != NULL
	                     ? dci_server_deadline(loop->dci_server)
	                     : INT64_MAX;
	int wait = block ? -1 : timeout_milliseconds(timeout);

	if (master < deadline)
		deadline = master;
	if (waiting < deadline)
		deadline = waiting;
	if (server < deadline)
		deadline = server;
	if (deadline == INT64_MAX)
		return wait;
	if (deadline <= now)
		return 0;
	if (wait < 0 || deadline - now < wait)
		return deadline - now > INT_MAX ? INT_MAX
		                                : (int)(deadline - now);
	return wait;
}

/* When output waits for the master's socket `master`, asks poll for room
 * in it (`*waiting` the socket, else -1): on its entry among the `used`
 * read ones, else on one of its own after them (room for it is counted in
 * the set's size). Output waiting for another socket is dropped: its
 * session is gone, and its descriptor may be another's by now. */
static nfds_t
poll_for_room(
    struct pollfd *polled, nfds_t first, nfds_t used, int master, int *waiting)
{
	int socket = agent_agentx_waiting_socket();

	*waiting = -1;
	if (socket < 0)
		return used;
	if (socket != master) {
		agent_agentx_waiting_drop();
		return used;
	}
	*waiting = socket;
	for (nfds_t i = first; i < used; i++) {
		if (polled[i].fd == socket) {
			polled[i].events |= POLLOUT;
			return used;
		}
	}
	polled[used] = (struct pollfd){socket, POLLOUT, 0};
	return used + 1;
}

/* The sockets whose readiness the loop tells apart: the in-place path's,
 * the master's, the one whose output waits; whether the wait was on the
 * in-place socket alone (quiet) and whether it holds bytes (held). */
struct ready_sockets {
	int direct, master, waiting;
	bool quiet, held;
};

/* What one poll found among Net-SNMP's descriptors. */
struct ready {
	int ready;     /* set in `readable` for snmp_read2 */
	int others;    /* of them, not the in-place socket */
	bool answered; /* the in-place socket read after a quiet wait */
	bool writable; /* room in the socket whose output waits */
};

/* Sets in `readable` Net-SNMP's descriptors (polled[first] to
 * polled[used - 1]) that have input, hang-ups and errors included
 * (Net-SNMP's read sees the closed connection and reconnects), and the
 * in-place socket when it holds bytes. */
static struct ready
ready_take(const struct pollfd *polled, nfds_t first, nfds_t used,
    netsnmp_large_fd_set *readable, struct ready_sockets sockets, int64_t now)
{
	struct ready found = {0, 0, false, false};

	NETSNMP_LARGE_FD_ZERO(readable);
	for (nfds_t i = first; i < used; i++) {
		if ((polled[i].revents & POLLOUT) != 0 &&
		    polled[i].fd == sockets.waiting)
			found.writable = true;
		if ((polled[i].revents & ~POLLOUT) == 0 ||
		    (polled[i].events & POLLIN) == 0)
			continue;
		NETSNMP_LARGE_FD_SET(polled[i].fd, readable);
		found.ready++;
		found.others += polled[i].fd != sockets.direct;
		found.answered |=
		    sockets.quiet && polled[i].fd == sockets.direct;
		if (polled[i].fd == sockets.master)
			agent_master_heard(now);
	}
	if (sockets.held) {
		/* Asked again: the session may have been reopened since
		 * `direct` was read. */
		int socket = agent_direct_socket();
		if (socket >= 0 && !NETSNMP_LARGE_FD_ISSET(socket, readable)) {
			NETSNMP_LARGE_FD_SET(socket, readable);
			found.ready++;
		}
	}
	return found;
}

/*
 * One poll per wake-up. Net-SNMP says which descriptors it reads through
 * snmp_select_info2's fd_set; poll waits on those and the signal pipe (a
 * select over the whole set costs the kernel more per call, and a walk
 * through the master is one wake-up per varbind), and snmp_read2 is given
 * a set holding only the descriptors that are ready.
 */
int
agent_run(const struct agent_loop *loop)
{
	netsnmp_large_fd_set readable;
	struct pollfd *polled = NULL;
	size_t polled_size = 0;
	int result = 0;
	/* The last wake-up read a request of the master's answered in place. */
	bool answered = false;

	if (signals_install() != 0)
		return -1;
	netsnmp_large_fd_set_init(&readable, FD_SETSIZE);
	for (;;) {
		/* snmp_select_info2 only shortens the timeout it is given (to
		 * the next alarm or retransmission); a zero start would make
		 * every poll return at once and the loop spin. Start long,
		 * as snmpd does. */
		struct timeval timeout = {3600, 0};
		int highest = 0, block = 0, count;
		struct ready found;
		int direct = agent_direct_socket();
		int notify = dci_plugins_notify_fd(loop->plugins);
		int master, waiting;
		bool quiet, held;
		nfds_t used = 0, first_other, server_first = 0,
		       server_count = 0;
		size_t server_room =
		    loop->dci_server != NULL ? dci_server_poll_max() : 0;
		int64_t now;

		/* A ping or a registration due goes out before the wait
		 * (its answer is read like any input). */
		agent_master_run_due(dci_clock_milliseconds());
		master = agent_master_socket();
		NETSNMP_LARGE_FD_ZERO(&readable);
		snmp_select_info2(&highest, &readable, &timeout, &block);
		/* Each of Net-SNMP's descriptors, the signal pipe and the
		 * refresh notifications. */
		if ((size_t)highest + 3 + server_room > polled_size) {
			struct pollfd *grown = realloc(
			    polled, ((size_t)highest + 3 + server_room) *
			                sizeof(*polled));
			if (grown == NULL) {
				log_warn("agent: poll set");
				result = -1;
				break;
			}
			polled = grown;
			polled_size = (size_t)highest + 3 + server_room;
		}
		polled[used++] = (struct pollfd){signal_pipe[0], POLLIN, 0};
		/* Refresh threads say here that a refresh ended. */
		if (notify >= 0)
			polled[used++] = (struct pollfd){notify, POLLIN, 0};
		/* The DCI Server's listener and consumers, less those whose
		 * answer went unread for too long. */
		if (loop->dci_server != NULL) {
			dci_server_expire(
			    loop->dci_server, dci_clock_milliseconds());
			server_first = used;
			server_count = dci_server_poll_add(
			    loop->dci_server, polled + used);
			used += server_count;
		}
		/* While the master's requests are answered in place and
		 * Net-SNMP's callback pipes are idle, wait on the AgentX
		 * socket alone: each idle descriptor costs poll a wait-queue
		 * entry per call. */
		quiet = direct >= 0 && direct < highest &&
		        !agent_direct_pending() &&
		        NETSNMP_LARGE_FD_ISSET(direct, &readable);
		if (quiet) {
			polled[used++] = (struct pollfd){direct, POLLIN, 0};
		} else {
			for (int fd = 0; fd < highest; fd++)
				if (fd != signal_pipe[0] && fd != notify &&
				    NETSNMP_LARGE_FD_ISSET(fd, &readable))
					polled[used++] =
					    (struct pollfd){fd, POLLIN, 0};
		}
		/* Output waiting for the master's socket to take it. */
		used = poll_for_room(polled, server_first + server_count, used,
		    master, &waiting);

		/* Woken by input, Net-SNMP's next timer or the plug-ins'
		 * next refresh, retry or staleness deadline; after an answer
		 * in place, the master's next request is polled for first. */
		count =
		    quiet && answered && loop->busy_poll_microseconds > 0
		        ? busy_poll(polled, used, loop->busy_poll_microseconds)
		        : 0;
		/* Held requests of the master's are read without a wait. */
		held = agent_direct_held();
		if (count == 0)
			count = poll(polled, used,
			    held ? 0
			         : wait_milliseconds(loop, block, &timeout,
			               dci_clock_milliseconds()));
		answered = false;
		if (count < 0) {
			if (errno == EINTR)
				continue;
			log_warn("agent: poll");
			result = -1;
			break;
		}
		if (polled[0].revents != 0 && signals_take(loop)) {
			log_info("agent: stopping on signal");
			break;
		}
		first_other = 1;
		if (notify >= 0) {
			if (polled[1].revents != 0)
				dci_plugins_drain_notifications(loop->plugins);
			first_other = 2;
		}
		first_other += server_count;
		now = dci_clock_milliseconds();
		found = ready_take(polled, first_other, used, &readable,
		    (struct ready_sockets){
		        direct, master, waiting, quiet, held},
		    now);
		answered = found.answered;
		if (!quiet && found.others == 0)
			agent_direct_idle();
		/* On schedule, and before a request is read: handlers see
		 * whole snapshots, never older than their period, and never
		 * read a file. */
		dci_plugins_run_due(loop->plugins, now);
		/* Before the master's requests are read: their answers go
		 * behind what waits. */
		agent_agentx_waiting_run(now, found.writable);
		if (server_count > 0)
			dci_server_poll_handle(loop->dci_server,
			    polled + server_first, server_count);
		if (found.ready > 0)
			snmp_read2(&readable);
		else if (count == 0)
			snmp_timeout();
		run_alarms();
		netsnmp_check_outstanding_agent_requests();
	}
	free(polled);
	netsnmp_large_fd_set_cleanup(&readable);
	signals_remove();
	return result;
}
