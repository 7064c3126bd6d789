/* The snmpd module's DCI Server on snmpd's loop (agent/embedded_dci.h). */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "agent/embedded_dci.h"
#include "agent/embedded_alarm.h"
#include "base/clock.h"
#include "base/log.h"
#include "model/events.h"
#include "server/dci_server.h"

#define EMBEDDED_DCI_POLLED_MAX (1 + DCI_SERVER_CLIENTS_MAX)

static struct {
	struct dci_server *server;
	/* What dci_server_poll_add wrote last; registered with snmpd as
	 * its events say (POLLIN: a read descriptor, POLLOUT: a write
	 * descriptor). */
	struct pollfd polled[EMBEDDED_DCI_POLLED_MAX];
	size_t polled_count;
	unsigned expiry_alarm; /* at the server's deadline; 0: none */
	unsigned turn_alarm;   /* events queued: a turn at once; 0: none */
} embedded_dci;

static void embedded_dci_turn(void);

static void
embedded_dci_unregister(void)
{
	for (size_t i = 0; i < embedded_dci.polled_count; i++) {
		const struct pollfd *entry = &embedded_dci.polled[i];

		if (entry->events & POLLOUT)
			unregister_writefd(entry->fd);
		else if (entry->events & POLLIN)
			unregister_readfd(entry->fd);
	}
	embedded_dci.polled_count = 0;
}

/* A descriptor snmpd's select found ready: the server is handed what poll
 * would have said, then takes its turn. */
static void
embedded_dci_ready(int fd, short revents)
{
	for (size_t i = 0; i < embedded_dci.polled_count; i++)
		if (embedded_dci.polled[i].fd == fd &&
		    (embedded_dci.polled[i].events & revents) != 0)
			embedded_dci.polled[i].revents = revents;
	dci_server_poll_handle(embedded_dci.server, embedded_dci.polled,
	    embedded_dci.polled_count);
	for (size_t i = 0; i < embedded_dci.polled_count; i++)
		embedded_dci.polled[i].revents = 0;
	embedded_dci_turn();
}

static void
embedded_dci_readable(int fd, void *argument)
{
	(void)argument;
	embedded_dci_ready(fd, POLLIN);
}

static void
embedded_dci_writable(int fd, void *argument)
{
	(void)argument;
	embedded_dci_ready(fd, POLLOUT);
}

static void
embedded_dci_expiry_alarm(unsigned int number, void *argument)
{
	(void)number;
	(void)argument;
	embedded_dci.expiry_alarm = 0;
	dci_server_expire(embedded_dci.server, dci_clock_milliseconds());
	embedded_dci_turn();
}

static void
embedded_dci_turn_alarm(unsigned int number, void *argument)
{
	(void)number;
	(void)argument;
	embedded_dci.turn_alarm = 0;
	embedded_dci_turn();
}

/* Sets the expiry alarm at the server's deadline, or none. */
static void
embedded_dci_schedule(void)
{
	int64_t deadline = dci_server_deadline(embedded_dci.server);

	if (embedded_dci.expiry_alarm != 0)
		snmp_alarm_unregister(embedded_dci.expiry_alarm);
	embedded_dci.expiry_alarm = 0;
	if (deadline != INT64_MAX)
		embedded_dci.expiry_alarm = embedded_alarm_at(
		    deadline, embedded_dci_expiry_alarm, NULL);
}

/* One turn of the server: what it waits on now (queued events become a
 * message there) is registered with snmpd in place of what it waited on,
 * unless that is the same. */
static void
embedded_dci_turn(void)
{
	struct pollfd polled[EMBEDDED_DCI_POLLED_MAX];
	size_t count = dci_server_poll_add(embedded_dci.server, polled);
	bool same = count == embedded_dci.polled_count;

	for (size_t i = 0; same && i < count; i++)
		same = polled[i].fd == embedded_dci.polled[i].fd &&
		       polled[i].events == embedded_dci.polled[i].events;
	if (!same) {
		embedded_dci_unregister();
		for (size_t i = 0; i < count; i++) {
			int registered = polled[i].events & POLLOUT
			                     ? register_writefd(polled[i].fd,
			                           embedded_dci_writable, NULL)
			                     : register_readfd(polled[i].fd,
			                           embedded_dci_readable, NULL);

			/* snmpd's table of descriptors is full: this one
			 * is not waited on; the entry keeps its place, as
			 * dci_server_poll_handle counts by position, and
			 * the next turn tries again. */
			if (registered != 0) {
				log_warnx("dci-socket: snmpd cannot watch "
				          "one more descriptor");
				polled[i].events = 0;
			}
		}
	}
	memcpy(embedded_dci.polled, polled, count * sizeof(*polled));
	embedded_dci.polled_count = count;
	embedded_dci_schedule();
}

/* The consumer events sink (model/events.h): queued now, sent on the turn
 * an alarm runs at once, so that one commit's events go out together. */
static void
embedded_dci_event(void *context, const struct dci_events_instance *event)
{
	struct timeval now = {0, 0};

	(void)context;
	dci_server_event(embedded_dci.server, event);
	if (embedded_dci.turn_alarm == 0)
		embedded_dci.turn_alarm = snmp_alarm_register_hr(
		    now, 0, embedded_dci_turn_alarm, NULL);
}

int
embedded_dci_start(
    const struct dci_config *config, const struct dci_registry *registry)
{
	struct dci_server_settings settings;
	char why[1024];

	embedded_dci_stop();
	if (config->dci_socket == NULL)
		return 0;
	settings = (struct dci_server_settings){
	    .path = config->dci_socket,
	    .mode = config->dci_socket_mode,
	    .access = config->dci_access,
	    .access_count = config->dci_access_count,
	    .work_microseconds = (int64_t)config->dci_work_milliseconds * 1000,
	};
	embedded_dci.server =
	    dci_server_start(&settings, registry, why, sizeof(why));
	if (embedded_dci.server == NULL) {
		log_warnx("%s; not serving DCI consumers", why);
		return -1;
	}
	dci_events_set_consumer_sink(embedded_dci_event, NULL);
	embedded_dci_turn();
	return 0;
}

void
embedded_dci_stop(void)
{
	if (embedded_dci.server == NULL)
		return;
	dci_events_set_consumer_sink(NULL, NULL);
	embedded_dci_unregister();
	if (embedded_dci.expiry_alarm != 0)
		snmp_alarm_unregister(embedded_dci.expiry_alarm);
	if (embedded_dci.turn_alarm != 0)
		snmp_alarm_unregister(embedded_dci.turn_alarm);
	embedded_dci.expiry_alarm = embedded_dci.turn_alarm = 0;
	dci_server_stop(embedded_dci.server);
	embedded_dci.server = NULL;
}
