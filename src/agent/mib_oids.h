/*
 * DCI-STATS-MIB object identifiers as the agent serves them. The arc is
 * written here once; tests/mib/check_mib.sh compares every OID below with
 * what snmptranslate reads from mibs/DCI-STATS-MIB.txt.
 */
#ifndef DCISTAT_AGENT_MIB_OIDS_H
#define DCISTAT_AGENT_MIB_OIDS_H

#include <stddef.h>

/* dciStatsMIB ::= { netSnmpPlaypen 4040 } (1.3.6.1.4.1.8072.9999.9999),
 * Net-SNMP's experimental arc until dcistat has a Private Enterprise Number. */
#define AGENT_MIB_ARC 1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 4040
#define AGENT_MIB_ARC_LENGTH 10
#define AGENT_MIB_OBJECTS 1 /* dciStatsObjects */

enum agent_table_number {
	AGENT_TABLE_SUPPLIER = 1,
	AGENT_TABLE_CLASS = 2,
	AGENT_TABLE_DATUM = 3,
	AGENT_TABLE_INSTANCE = 4,
	AGENT_TABLE_STAT = 5,
	AGENT_CLASS_DATA = 6, /* per-class tables live below it */
};

enum agent_supplier_column {
	AGENT_SUPPLIER_MODULE = 2,
	AGENT_SUPPLIER_TITLE,
	AGENT_SUPPLIER_DESCRIPTION,
	AGENT_SUPPLIER_TYPE,
	AGENT_SUPPLIER_VERSION,
	AGENT_SUPPLIER_RESET,
	AGENT_SUPPLIER_STATUS,
	AGENT_SUPPLIER_DISCONTINUITY,
	AGENT_SUPPLIER_LAST_REFRESH,
	AGENT_SUPPLIER_FAILURE,
};

enum agent_class_column {
	AGENT_CLASS_LABEL = 2,
	AGENT_CLASS_INSTANCE_LEVELS,
	AGENT_CLASS_DATUM_COUNT,
	AGENT_CLASS_SUPPLIER,
	AGENT_CLASS_INSTANCE_COUNT,
	/* Revision 202611251200Z: what an older agent does not serve. */
	AGENT_CLASS_DESCRIPTION,
	AGENT_CLASS_LEVEL_TYPES,
	AGENT_CLASS_LEVEL_SIZES,
};

enum agent_datum_column {
	AGENT_DATUM_LABEL = 2,
	AGENT_DATUM_TYPE,
	AGENT_DATUM_FORMAT,
	AGENT_DATUM_PRESENTATION,
	AGENT_DATUM_SIZE,
	AGENT_DATUM_VOLATILITY,
	AGENT_DATUM_UNITS,
	AGENT_DATUM_SEMANTICS,
	AGENT_DATUM_DESCRIPTION,
};

enum agent_instance_column {
	AGENT_INSTANCE_LABEL = 2,
	AGENT_INSTANCE_CREATED,
	AGENT_INSTANCE_DISCONTINUITY,
	AGENT_INSTANCE_PARENT,
};

enum agent_stat_column {
	AGENT_STAT_LABEL = 1,
	AGENT_STAT_TYPE,
	AGENT_STAT_TEXT,
	AGENT_STAT_COUNTER64,
	AGENT_STAT_COUNTER32,
	AGENT_STAT_GAUGE32,
	AGENT_STAT_INTEGER32,
	AGENT_STAT_STRING,
	AGENT_STAT_IP_ADDRESS,
	AGENT_STAT_MAC_ADDRESS,
	AGENT_STAT_TIME_TICKS,
	AGENT_STAT_TRUTH_VALUE,
	AGENT_STAT_DISCONTINUITY,
	AGENT_STAT_HUNDREDTHS,
};

/* Every object the agent serves, with its MIB descriptor: tables, entries
 * and accessible columns. */
struct agent_mib_object {
	const char *name;
	unsigned table;  /* enum agent_table_number */
	unsigned depth;  /* 0 table, 1 entry, 2 column */
	unsigned column; /* with depth 2 */
};

extern const struct agent_mib_object agent_mib_objects[];
extern const size_t agent_mib_object_count;

/* dciStatsNotifications ::= { dciStatsMIB 0 }: the notifications, and
 * dciNotificationObjects ::= { dciStatsObjects 7 }: the
 * accessible-for-notify scalars they carry (sent with instance .0). */
#define AGENT_MIB_NOTIFICATIONS 0
#define AGENT_MIB_NOTIFICATION_OBJECTS 7

enum agent_notification_object {
	AGENT_NOTIFY_CLASS_ID = 1,
	AGENT_NOTIFY_CLASS_LABEL,
	AGENT_NOTIFY_INSTANCE_ID,
	AGENT_NOTIFY_INSTANCE_LABEL,
	AGENT_NOTIFY_SUPPLIER_MODULE,
	AGENT_NOTIFY_REASON,
	AGENT_NOTIFY_ADDED_COUNT,
	AGENT_NOTIFY_REMOVED_COUNT,
	AGENT_NOTIFY_DATUM_ID,
	AGENT_NOTIFY_DATUM_LABEL,
	AGENT_NOTIFY_OLD_VALUE,
	AGENT_NOTIFY_NEW_VALUE,
	AGENT_NOTIFY_CHANGED_COUNT,
};

enum agent_notification {
	AGENT_NOTIFICATION_INSTANCE_ADDED = 1,
	AGENT_NOTIFICATION_INSTANCE_REMOVED,
	AGENT_NOTIFICATION_INSTANCES_SUMMARY,
	AGENT_NOTIFICATION_SUPPLIER_FAILED,
	AGENT_NOTIFICATION_SUPPLIER_RECOVERED,
	AGENT_NOTIFICATION_SUPPLIER_RESTARTED,
	AGENT_NOTIFICATION_DATA_CHANGED,
};

/* A notification or notification object with its MIB descriptor, for
 * tests/dump_agent_oids. */
struct agent_mib_name {
	const char *name;
	unsigned number;
};

extern const struct agent_mib_name agent_mib_notification_objects[];
extern const size_t agent_mib_notification_object_count;
extern const struct agent_mib_name agent_mib_notifications[];
extern const size_t agent_mib_notification_count;

#endif
