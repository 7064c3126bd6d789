#include "snmp/netsnmp_log.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <string.h>

#include "base/log.h"

/* Net-SNMP's line for every failed connection to the master, whatever
 * the cause: handed to the hook, which names the cause. */
#define CONNECT_FAILED "Failed to connect to the agentx master agent ("

static void (*connect_failed_hook)(void);

void
dci_netsnmp_log_on_connect_failed(void (*hook)(void))
{
	connect_failed_hook = hook;
}

/* Net-SNMP sometimes logs one line in several calls; keep the pieces until
 * the newline so that each of our messages is one whole line. */
static char pending[1024];
static size_t pending_length;
static bool quiet;

void
dci_netsnmp_log_quiet(bool on)
{
	quiet = on;
}

static int
agent_snmp_log_callback(
    int major, int minor, void *server_argument, void *client_argument)
{
	const struct snmp_log_message *message = server_argument;
	const char *text = message->msg;
	size_t length = strlen(text);
	int priority = message->priority;

	(void)major;
	(void)minor;
	(void)client_argument;
	if (length >= sizeof(pending) - pending_length)
		length = sizeof(pending) - pending_length - 1;
	memcpy(pending + pending_length, text, length);
	pending_length += length;
	pending[pending_length] = '\0';
	if (pending_length == 0 || (pending[pending_length - 1] != '\n' &&
	                               pending_length < sizeof(pending) - 1))
		return 0;
	while (pending_length > 0 && pending[pending_length - 1] == '\n')
		pending[--pending_length] = '\0';
	if (connect_failed_hook != NULL &&
	    strstr(pending, CONNECT_FAILED) != NULL) {
		log_debug("netsnmp", "%s", pending);
		connect_failed_hook();
	} else if (priority >= LOG_DEBUG || (quiet && priority >= LOG_NOTICE))
		log_debug("netsnmp", "%s", pending);
	else
		log_message(priority < LOG_ERR ? LOG_ERR : priority,
		    "net-snmp: %s", pending);
	pending_length = 0;
	return 0;
}

void
dci_netsnmp_log_route(void)
{
	netsnmp_log_handler *handler;

	snmp_disable_log();
	handler =
	    netsnmp_register_loghandler(NETSNMP_LOGHANDLER_CALLBACK, LOG_DEBUG);
	if (handler != NULL)
		snmp_register_callback(SNMP_CALLBACK_LIBRARY,
		    SNMP_CALLBACK_LOGGING, agent_snmp_log_callback, NULL);
	if (log_debug_enabled("netsnmp")) {
		snmp_set_do_debugging(1);
		debug_register_tokens("agentx");
	}
}

void
dci_netsnmp_log_sink(int level, const char *message)
{
	snmp_log(level, "dcistat: %s\n", message);
}
