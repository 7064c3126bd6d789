/* Routes Net-SNMP's own log messages into ours (base/log.h), or, inside
 * snmpd, ours into Net-SNMP's. */
#ifndef DCISTAT_SNMP_NETSNMP_LOG_H
#define DCISTAT_SNMP_NETSNMP_LOG_H

#include <stdbool.h>

/* Call before init_agent so that start-up messages are routed too. */
void dci_netsnmp_log_route(void);

/* While true, Net-SNMP's notices and information are debug messages
 * (token netsnmp): for what Net-SNMP says about an exchange this side
 * ended on purpose. Warnings and errors are logged as ever. */
void dci_netsnmp_log_quiet(bool quiet);

/* Net-SNMP's "Failed to connect to the agentx master agent" line, which
 * says nothing of the cause, is a debug message and calls `hook` instead
 * (NULL: logged as Net-SNMP wrote it). */
void dci_netsnmp_log_on_connect_failed(void (*hook)(void));

/* The reverse, for the snmpd module (agent/dlmod.c), where snmpd owns the
 * log: one of our messages (level, text without newline) to snmp_log. */
void dci_netsnmp_log_sink(int level, const char *message);

#endif
