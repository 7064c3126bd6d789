/* Routes Net-SNMP's own log messages into ours (core/log.h). */
#ifndef DCISTAT_AGENT_SNMP_LOG_H
#define DCISTAT_AGENT_SNMP_LOG_H

/* Call before init_agent so that start-up messages are routed too. */
void agent_snmp_log_route(void);

#endif
