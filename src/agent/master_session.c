#define _GNU_SOURCE
#include "agent/master_session.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>
#include <net-snmp/library/large_fd_set.h>
#include <net-snmp/library/snmpUnixDomain.h>
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

#include "agent/agentx_direct.h"
#include "agent/agentx_send.h"
#include "agent/registration.h"
#include "snmp/netsnmp_log.h"
#include "base/clock.h"
#include "base/log.h"

/* RFC 2741's PDU types, error codes and close reasons (from a header
 * Net-SNMP does not install). */
#define AGENTX_CLOSE 2
#define AGENTX_REGISTER 3
#define AGENTX_PING 13
#define AGENTX_CLOSE_SHUTDOWN 5
#define AGENTX_ERROR_DUPLICATE_REGISTRATION 263

/* AgentX version 1 in a Net-SNMP session. */
#define AGENTX_SESSION_VERSION (192 | 1)

/* How long dcistatd's start waits for the master's answers to its
 * registrations, its stop for the master to take the Close (for room to
 * send it, then for the end of the connection), and a
 * connection for the answer to its Open: the one exchange Net-SNMP still
 * waits for inside the loop (a master that answers later is tried again at
 * the next ping interval). */
#define MASTER_START_WAIT_MILLISECONDS 5000
#define MASTER_STOP_WAIT_MILLISECONDS 100
#define MASTER_OPEN_WAIT_MILLISECONDS 200
/* The registrations: each table (registration.h, at most this many) at
 * its priority and, as a stand-by, at the next one. */
#define MASTER_TABLES_MAX 8
#define MASTER_REGISTRATIONS_MAX (2 * MASTER_TABLES_MAX)

enum registration_state {
	REGISTRATION_UNASKED, /* to be sent (again) */
	REGISTRATION_PENDING, /* sent, no answer yet */
	REGISTRATION_GRANTED,
	REGISTRATION_REFUSED, /* asked for again every ping interval */
};

struct master_registration {
	enum registration_state state;
	long refusal;      /* the master's error code */
	bool refused_once; /* in this session: logged, and its grant too */
};

/* The open session (SNMPD_CALLBACK_INDEX_START until INDEX_STOP) or NULL;
 * `generation` counts sessions, so that an answer for an earlier one (or
 * Net-SNMP's time-out of its requests when it frees it) changes nothing. */
static netsnmp_session *master;
static unsigned generation;
static struct master_registration registrations[MASTER_REGISTRATIONS_MAX];
/* The first session's refusals stop dcistatd (agent_master_wait_registered)
 * and are logged there; later ones are logged as they come. */
static bool starting = true;
static int64_t ping_interval;
static int64_t heard;     /* the master's last word */
static bool ping_pending; /* a Ping without its answer yet */
static int64_t ping_sent;
static bool ping_late;             /* logged as unanswered */
static int64_t registration_retry; /* INT64_MAX: none to ask for */
/* How long one PDU's send may wait for room in the master's socket; the
 * stop's wait once dcistatd stops. */
static int send_wait = AGENT_AGENTX_SEND_WAIT_MILLISECONDS;

/* An answer's context: the session generation (what a pointer holds of
 * it) and a registration number (or the ping) in one pointer-sized
 * number. */
#define MAGIC_PING 0xffu
static void *
magic_make(unsigned what)
{
	return (void *)(((uintptr_t)generation << 8) | what);
}
static bool
magic_current(void *magic, unsigned *what)
{
	uintptr_t value = (uintptr_t)magic;

	*what = (unsigned)(value & 0xff);
	return master != NULL &&
	       (value >> 8) == ((uintptr_t)generation << 8) >> 8;
}

/* The RFC 2741 name of an AgentX error. */
static const char *
agentx_error_name(long error)
{
	static const char *const names[] = {"openFailed", "notOpen",
	    "indexWrongType", "indexAlreadyAllocated", "indexNoneAvailable",
	    "indexNotAllocated", "unsupportedContext", "duplicateRegistration",
	    "unknownRegistration", "unknownAgentCaps", "parseError",
	    "requestDenied", "processingError"};

	if (error >= 256 &&
	    error < 256 + (long)(sizeof(names) / sizeof(names[0])))
		return names[error - 256];
	return "unknown error";
}

/* The table's subtree as dotted numbers. */
static void
root_text(const oid *root, size_t length, char *text, size_t size)
{
	size_t used = 0;

	text[0] = '\0';
	for (size_t i = 0; i < length && used < size; i++) {
		int written = snprintf(
		    text + used, size - used, ".%lu", (unsigned long)root[i]);
		if (written < 0)
			break;
		used += (size_t)written;
	}
}

/*
 * Registration `number`: table number / 2 at its priority (even), or at
 * the next priority (odd). A master that lets another subagent unregister
 * a subtree by name and priority (Net-SNMP's does) then still routes it
 * here, by the stand-by; a second dcistatd is refused both.
 */
static bool
registration_find(unsigned number, const char **name, const oid **root,
    size_t *root_length, int *priority)
{
	if (!agent_registration_root(
	        number / 2, name, root, root_length, priority))
		return false;
	*priority += (int)(number % 2);
	return true;
}

/* A stand-by whose table was refused at its own priority too: one line
 * says it of both. */
static bool
stand_by_of_refused(unsigned number)
{
	return number % 2 == 1 &&
	       registrations[number - 1].state == REGISTRATION_REFUSED;
}

static void
refusal_log(unsigned number, long error, bool fatal)
{
	const char *name;
	const oid *root;
	size_t length;
	int priority;
	char text[MAX_OID_LEN * 11 + 1];

	if (!registration_find(number, &name, &root, &length, &priority))
		return;
	root_text(root, length, text, sizeof(text));
	if (error == AGENTX_ERROR_DUPLICATE_REGISTRATION)
		log_warnx("agent: the AgentX master refused %s (%s, priority "
		          "%d): %s (%ld): another subagent, another dcistatd "
		          "maybe, already serves it (the master does not say "
		          "which; its log does)%s",
		    name, text, priority, agentx_error_name(error), error,
		    fatal ? "" : "; asked for again every ping interval");
	else
		log_warnx("agent: the AgentX master refused %s (%s, priority "
		          "%d): %s (%ld)%s",
		    name, text, priority, agentx_error_name(error), error,
		    fatal ? "" : "; asked for again every ping interval");
}

static int
registration_answered(int operation, netsnmp_session *session, int request,
    netsnmp_pdu *pdu, void *magic)
{
	unsigned number;
	struct master_registration *registration;

	(void)session;
	(void)request;
	if (!magic_current(magic, &number) ||
	    number >= MASTER_REGISTRATIONS_MAX)
		return 1;
	registration = &registrations[number];
	if (operation != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu == NULL) {
		/* No answer: asked for again at the next ping interval. */
		registration->state = REGISTRATION_UNASKED;
		if (registration_retry == INT64_MAX)
			registration_retry =
			    dci_clock_milliseconds() + ping_interval;
		return 1;
	}
	heard = dci_clock_milliseconds();
	if (pdu->errstat == SNMP_ERR_NOERROR) {
		const char *name;
		const oid *root;
		size_t length;
		int priority;

		registration->state = REGISTRATION_GRANTED;
		/* Said of the table, at its own priority. */
		if (registration->refused_once && number % 2 == 0 &&
		    registration_find(number, &name, &root, &length, &priority))
			log_notice("agent: the AgentX master now routes %s "
			           "(priority %d) to dcistatd",
			    name, priority);
		registration->refused_once = false;
		return 1;
	}
	registration->state = REGISTRATION_REFUSED;
	registration->refusal = pdu->errstat;
	if (!starting && !registration->refused_once &&
	    !stand_by_of_refused(number))
		refusal_log(number, pdu->errstat, false);
	registration->refused_once = true;
	if (registration_retry == INT64_MAX)
		registration_retry = dci_clock_milliseconds() + ping_interval;
	return 1;
}

/* Sends a Register PDU for each registration neither granted nor waiting. */
static void
registrations_send(void)
{
	const char *name;
	const oid *root;
	size_t length;
	int priority;

	registration_retry = INT64_MAX;
	for (unsigned number = 0;
	     number < MASTER_REGISTRATIONS_MAX &&
	     registration_find(number, &name, &root, &length, &priority);
	     number++) {
		netsnmp_pdu *pdu;

		if (registrations[number].state != REGISTRATION_UNASKED &&
		    registrations[number].state != REGISTRATION_REFUSED)
			continue;
		pdu = snmp_pdu_create(AGENTX_REGISTER);
		if (pdu == NULL) {
			registration_retry =
			    dci_clock_milliseconds() + ping_interval;
			continue;
		}
		pdu->sessid = master->sessid;
		pdu->priority = priority;
		pdu->time = 0;
		pdu->range_subid = 0;
		snmp_add_null_var(pdu, root, length);
		if (snmp_async_send(master, pdu, registration_answered,
		        magic_make(number)) == 0) {
			snmp_free_pdu(pdu);
			registration_retry =
			    dci_clock_milliseconds() + ping_interval;
			continue;
		}
		registrations[number].state = REGISTRATION_PENDING;
		log_debug("agent", "asked the master for %s", name);
	}
}

/* Ends the session from this side: Net-SNMP sees the end of the connection
 * at its next read and takes its ordinary disconnection path (reconnecting
 * every ping interval unless dcistatd stops). */
static void
master_shut_down(void)
{
	netsnmp_transport *transport =
	    master != NULL ? snmp_sess_transport(snmp_sess_pointer(master))
	                   : NULL;

	if (transport != NULL && transport->sock >= 0)
		shutdown(transport->sock, SHUT_RDWR);
}

static int
ping_answered(int operation, netsnmp_session *session, int request,
    netsnmp_pdu *pdu, void *magic)
{
	unsigned what;
	int64_t now = dci_clock_milliseconds();

	(void)session;
	(void)request;
	if (!magic_current(magic, &what) || what != MAGIC_PING)
		return 1;
	ping_pending = false;
	/* Not sent (Net-SNMP calls back from inside the send, before
	 * ping_send knows of it): the connection is broken, and ends at
	 * Net-SNMP's next read. The master was asked nothing. */
	if (operation == NETSNMP_CALLBACK_OP_SEND_FAILED)
		return 1;
	if (operation != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu == NULL) {
		/* Net-SNMP gave up on it: another goes at once, the master
		 * being silent for longer than a ping interval. */
		if (!ping_late)
			log_warnx("agent: the AgentX master has not answered "
			          "a ping for %lld ms; dcistatd waits for it "
			          "and serves as soon as it answers",
			    (long long)(now - ping_sent));
		ping_late = true;
		return 1;
	}
	heard = now;
	if (ping_late)
		log_notice("agent: the AgentX master answers again");
	ping_late = false;
	if (pdu->errstat != SNMP_ERR_NOERROR) {
		/* notOpen, as a master that lost the session says. */
		log_warnx("agent: the AgentX master answered a ping with %s "
		          "(%ld): it does not take the session; reconnecting",
		    agentx_error_name(pdu->errstat), pdu->errstat);
		master_shut_down();
	}
	return 1;
}

static void
ping_send(int64_t now)
{
	netsnmp_pdu *pdu = snmp_pdu_create(AGENTX_PING);

	if (pdu == NULL)
		return;
	pdu->sessid = master->sessid;
	pdu->time = 0;
	if (snmp_async_send(
	        master, pdu, ping_answered, magic_make(MAGIC_PING)) == 0) {
		snmp_free_pdu(pdu);
		return;
	}
	ping_pending = true;
	ping_sent = now;
}

/* Net-SNMP arms its own (synchronous) ping after it opened the session and
 * keeps the alarm in the session's securityModel: taken away, pings are
 * this file's. */
static void
net_snmp_ping_disarm(void)
{
	if (master != NULL && master->securityModel != SNMP_DEFAULT_SECMODEL) {
		snmp_alarm_unregister((unsigned)master->securityModel);
		master->securityModel = SNMP_DEFAULT_SECMODEL;
	}
}

/* SNMP_CALLBACK_SESSION_INIT: Net-SNMP made a session. One to the master
 * is about to send its Open and wait for the answer: not long, and not
 * again (its own default is a second, five times over). */
static int
session_made(int major, int minor, void *server_argument, void *client_argument)
{
	netsnmp_session *session = server_argument;

	(void)major;
	(void)minor;
	(void)client_argument;
	if (session != NULL && session->version == AGENTX_SESSION_VERSION) {
		session->timeout = MASTER_OPEN_WAIT_MILLISECONDS * 1000L;
		session->retries = 0;
	}
	return 0;
}

/* The session's transport's send function: every PDU Net-SNMP sends to
 * the master, without blocking (agent/agentx_send.h). Net-SNMP's own
 * (sendto on the blocking socket) waited until a master that stopped
 * reading read again, the loop held with it, and took a PDU written in
 * part for a whole one. */
static int
master_send(netsnmp_transport *transport, const void *bytes, int length,
    void **opaque, int *opaque_length)
{
	(void)opaque;
	(void)opaque_length;
	if (length < 0 || transport->sock < 0) {
		errno = EINVAL;
		return -1;
	}
	return agent_agentx_send_pdu(
	           transport->sock, bytes, (size_t)length, send_wait)
	           ? length
	           : -1;
}

/* The receive function of a Unix stream session the in-place path does not
 * read. Net-SNMP's (5.9.3) allocates the socket's own address at every
 * read and loses it when the read fails, as it does once per connection
 * with a master that closed it leaving answers unread (ECONNRESET): a
 * master that does so at every reconnection grew the daemon without end.
 * This reads the same bytes and gives no address, which no send to the
 * master uses. */
static int
master_receive(netsnmp_transport *transport, void *buffer, int size,
    void **opaque, int *opaque_length)
{
	ssize_t count;

	*opaque = NULL;
	*opaque_length = 0;
	if (size < 0 || transport->sock < 0) {
		errno = EINVAL;
		return -1;
	}
	do
		count =
		    recv(transport->sock, buffer, (size_t)size, MSG_DONTWAIT);
	while (count < 0 && errno == EINTR);
	return (int)count;
}

/* SNMPD_CALLBACK_INDEX_START: Net-SNMP opened a session to the master and
 * is about to re-attach the subtrees; ours are registered here.
 * SNMPD_CALLBACK_INDEX_STOP: the session is gone, and with it, at the
 * master, its registrations. */
static int
master_session_changed(
    int major, int minor, void *server_argument, void *client_argument)
{
	netsnmp_transport *transport;

	(void)major;
	(void)client_argument;
	master = minor == SNMPD_CALLBACK_INDEX_START ? server_argument : NULL;
	generation++;
	ping_pending = false;
	/* Output still waiting was the last connection's. */
	agent_agentx_waiting_drop();
	if (master == NULL) {
		registration_retry = INT64_MAX;
		return 0;
	}
	/* Only the Open went out before, on the new connection's empty
	 * socket. */
	transport = snmp_sess_transport(snmp_sess_pointer(master));
	if (transport != NULL &&
	    (transport->flags & NETSNMP_TRANSPORT_FLAG_STREAM) != 0) {
		transport->f_send = master_send;
		if (transport->domain == netsnmp_UnixDomain &&
		    !agent_direct_reads())
			transport->f_recv = master_receive;
	}
	/* The answers to what this file sends are waited for in the loop:
	 * a ping interval each, and nothing is sent twice. */
	if (ping_interval > 0)
		master->timeout = (long)ping_interval * 1000;
	master->retries = 0;
	heard = dci_clock_milliseconds();
	ping_late = false;
	for (unsigned i = 0; i < MASTER_REGISTRATIONS_MAX; i++)
		registrations[i] = (struct master_registration){
		    REGISTRATION_UNASKED, 0, false};
	agent_registration_mark_attached();
	registrations_send();
	return 0;
}

void
agent_master_setup(unsigned ping_interval_seconds)
{
	ping_interval = (int64_t)ping_interval_seconds * 1000;
	registration_retry = INT64_MAX;
	snmp_register_callback(SNMP_CALLBACK_LIBRARY,
	    SNMP_CALLBACK_SESSION_INIT, session_made, NULL);
	snmp_register_callback(SNMP_CALLBACK_APPLICATION,
	    SNMPD_CALLBACK_INDEX_START, master_session_changed, NULL);
	snmp_register_callback(SNMP_CALLBACK_APPLICATION,
	    SNMPD_CALLBACK_INDEX_STOP, master_session_changed, NULL);
}

/* One wait of at most `milliseconds` on Net-SNMP's descriptors, then what
 * is ready is read (or its timers run). */
static void
master_pump(int64_t milliseconds)
{
	netsnmp_large_fd_set readable;
	struct timeval timeout = {(time_t)(milliseconds / 1000),
	    (suseconds_t)(milliseconds % 1000) * 1000};
	int highest = 0, block = 0, count;

	netsnmp_large_fd_set_init(&readable, FD_SETSIZE);
	NETSNMP_LARGE_FD_ZERO(&readable);
	snmp_select_info2(&highest, &readable, &timeout, &block);
	count = netsnmp_large_fd_set_select(
	    highest, &readable, NULL, NULL, &timeout);
	if (count > 0)
		snmp_read2(&readable);
	else if (count == 0)
		snmp_timeout();
	netsnmp_large_fd_set_cleanup(&readable);
}

static bool
registrations_pending(void)
{
	for (unsigned i = 0; i < MASTER_REGISTRATIONS_MAX; i++)
		if (registrations[i].state == REGISTRATION_PENDING)
			return true;
	return false;
}

int
agent_master_wait_registered(void)
{
	int64_t deadline =
	    dci_clock_milliseconds() + MASTER_START_WAIT_MILLISECONDS;
	int64_t now;
	int result = 0;

	net_snmp_ping_disarm();
	while (master != NULL && registrations_pending() &&
	       (now = dci_clock_milliseconds()) < deadline)
		master_pump(deadline - now);
	starting = false;
	if (master == NULL)
		return 0;
	for (unsigned i = 0; i < MASTER_REGISTRATIONS_MAX; i++) {
		if (registrations[i].state == REGISTRATION_REFUSED) {
			if (!stand_by_of_refused(i))
				refusal_log(i, registrations[i].refusal, true);
			result = -1;
		} else if (registrations[i].state == REGISTRATION_PENDING) {
			const char *name;
			const oid *root;
			size_t length;
			int priority;

			if (registration_find(
			        i, &name, &root, &length, &priority))
				log_warnx("agent: the AgentX master has not "
				          "answered the registration of %s "
				          "within %d ms; serving when it does",
				    name, MASTER_START_WAIT_MILLISECONDS);
		}
	}
	return result;
}

int
agent_master_socket(void)
{
	netsnmp_transport *transport =
	    master != NULL ? snmp_sess_transport(snmp_sess_pointer(master))
	                   : NULL;

	return transport != NULL ? transport->sock : -1;
}

void
agent_master_heard(int64_t now)
{
	heard = now;
}

void
agent_master_run_due(int64_t now)
{
	if (master == NULL)
		return;
	net_snmp_ping_disarm();
	if (now >= registration_retry)
		registrations_send();
	if (ping_interval <= 0)
		return;
	if (ping_pending) {
		if (!ping_late && now - ping_sent >= ping_interval) {
			log_warnx("agent: the AgentX master has not answered "
			          "a ping for %lld ms; dcistatd waits for it "
			          "and serves as soon as it answers",
			    (long long)(now - ping_sent));
			ping_late = true;
		}
		return;
	}
	if (now - heard >= ping_interval)
		ping_send(now);
}

int64_t
agent_master_deadline(void)
{
	int64_t deadline = registration_retry;

	if (master == NULL || ping_interval <= 0)
		return master == NULL ? INT64_MAX : deadline;
	if (!ping_pending) {
		if (heard + ping_interval < deadline)
			deadline = heard + ping_interval;
	} else if (!ping_late && ping_sent + ping_interval < deadline) {
		deadline = ping_sent + ping_interval;
	}
	return deadline;
}

void
agent_master_close(void)
{
	netsnmp_session *session = master;
	netsnmp_pdu *pdu;
	int64_t deadline, now;

	if (session == NULL)
		return;
	/* Whatever Net-SNMP still exchanges with the master from here on
	 * waits no longer than this, for an answer or for room. */
	session->timeout = MASTER_STOP_WAIT_MILLISECONDS * 1000L;
	session->retries = 0;
	send_wait = MASTER_STOP_WAIT_MILLISECONDS;
	/* Net-SNMP would reconnect after the disconnection. */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID,
	    NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, 0);
	pdu = snmp_pdu_create(AGENTX_CLOSE);
	if (pdu != NULL) {
		pdu->sessid = session->sessid;
		pdu->errstat = AGENTX_CLOSE_SHUTDOWN;
		pdu->time = 0;
		if (snmp_send(session, pdu) == 0)
			snmp_free_pdu(pdu);
	}
	/* What waits for room, the Close last. */
	agent_agentx_waiting_flush(send_wait);
	log_debug("agent", "closing the session with the AgentX master");
	master_shut_down();
	/* Net-SNMP's disconnection path (its session callbacks unregistered,
	 * INDEX_STOP) runs here, outside any callback: it says "master
	 * disconnected us", which is this side's doing. */
	dci_netsnmp_log_quiet(true);
	deadline = dci_clock_milliseconds() + MASTER_STOP_WAIT_MILLISECONDS;
	while (master == session && (now = dci_clock_milliseconds()) < deadline)
		master_pump(deadline - now);
	dci_netsnmp_log_quiet(false);
}
