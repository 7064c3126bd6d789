/*
 * DCI-STATS-MIB object identifiers as the agent serves them. The arc is
 * written here once; tests/mib/check_mib.sh compares every OID below with
 * what snmptranslate reads from mibs/DCI-STATS-MIB.txt.
 */
#ifndef DCISTAT_SNMP_MIB_OIDS_H
#define DCISTAT_SNMP_MIB_OIDS_H

#include <stddef.h>

/* dciStatsMIB ::= { netSnmpPlaypen 4040 } (1.3.6.1.4.1.8072.9999.9999),
 * Net-SNMP's experimental arc until dcistat has a Private Enterprise Number. */
#define SCHEMA_MIB_ARC 1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 4040
#define SCHEMA_MIB_ARC_LENGTH 10
#define SCHEMA_MIB_OBJECTS 1 /* dciStatsObjects */

enum schema_table_number {
	SCHEMA_TABLE_SUPPLIER = 1,
	SCHEMA_TABLE_CLASS = 2,
	SCHEMA_TABLE_DATUM = 3,
	SCHEMA_TABLE_INSTANCE = 4,
	SCHEMA_TABLE_STAT = 5,
	SCHEMA_CLASS_DATA = 6, /* per-class tables live below it */
};

enum schema_supplier_column {
	SCHEMA_SUPPLIER_MODULE = 2,
	SCHEMA_SUPPLIER_TITLE,
	SCHEMA_SUPPLIER_DESCRIPTION,
	SCHEMA_SUPPLIER_TYPE,
	SCHEMA_SUPPLIER_VERSION,
	SCHEMA_SUPPLIER_RESET,
	SCHEMA_SUPPLIER_STATUS,
	SCHEMA_SUPPLIER_DISCONTINUITY,
	SCHEMA_SUPPLIER_LAST_REFRESH,
	SCHEMA_SUPPLIER_FAILURE,
};

enum schema_class_column {
	SCHEMA_CLASS_LABEL = 2,
	SCHEMA_CLASS_INSTANCE_LEVELS,
	SCHEMA_CLASS_DATUM_COUNT,
	SCHEMA_CLASS_SUPPLIER,
	SCHEMA_CLASS_INSTANCE_COUNT,
	/* Revision 202611251200Z: what an older agent does not serve. */
	SCHEMA_CLASS_DESCRIPTION,
	SCHEMA_CLASS_LEVEL_TYPES,
	SCHEMA_CLASS_LEVEL_SIZES,
};

enum schema_datum_column {
	SCHEMA_DATUM_LABEL = 2,
	SCHEMA_DATUM_TYPE,
	SCHEMA_DATUM_FORMAT,
	SCHEMA_DATUM_PRESENTATION,
	SCHEMA_DATUM_SIZE,
	SCHEMA_DATUM_VOLATILITY,
	SCHEMA_DATUM_UNITS,
	SCHEMA_DATUM_SEMANTICS,
	SCHEMA_DATUM_DESCRIPTION,
};

enum schema_instance_column {
	SCHEMA_INSTANCE_LABEL = 2,
	SCHEMA_INSTANCE_CREATED,
	SCHEMA_INSTANCE_DISCONTINUITY,
	SCHEMA_INSTANCE_PARENT,
};

enum schema_stat_column {
	SCHEMA_STAT_LABEL = 1,
	SCHEMA_STAT_TYPE,
	SCHEMA_STAT_TEXT,
	SCHEMA_STAT_COUNTER64,
	SCHEMA_STAT_COUNTER32,
	SCHEMA_STAT_GAUGE32,
	SCHEMA_STAT_INTEGER32,
	SCHEMA_STAT_STRING,
	SCHEMA_STAT_IP_ADDRESS,
	SCHEMA_STAT_MAC_ADDRESS,
	SCHEMA_STAT_TIME_TICKS,
	SCHEMA_STAT_TRUTH_VALUE,
	SCHEMA_STAT_DISCONTINUITY,
	SCHEMA_STAT_HUNDREDTHS,
};

/* Every object the agent serves, with its MIB descriptor: tables, entries
 * and accessible columns. */
struct schema_mib_object {
	const char *name;
	unsigned table;  /* enum schema_table_number */
	unsigned depth;  /* 0 table, 1 entry, 2 column */
	unsigned column; /* with depth 2 */
};

extern const struct schema_mib_object schema_mib_objects[];
extern const size_t schema_mib_object_count;

/* The MIB descriptor of a table (enum schema_table_number, the table row
 * of schema_mib_objects) or of dciClassData; NULL for another number. */
const char *schema_table_name(unsigned table);

/* dciStatsNotifications ::= { dciStatsMIB 0 }: the notifications, and
 * dciNotificationObjects ::= { dciStatsObjects 7 }: the
 * accessible-for-notify scalars they carry (sent with instance .0). */
#define SCHEMA_MIB_NOTIFICATIONS 0
#define SCHEMA_MIB_NOTIFICATION_OBJECTS 7

enum schema_notification_object {
	SCHEMA_NOTIFY_CLASS_ID = 1,
	SCHEMA_NOTIFY_CLASS_LABEL,
	SCHEMA_NOTIFY_INSTANCE_ID,
	SCHEMA_NOTIFY_INSTANCE_LABEL,
	SCHEMA_NOTIFY_SUPPLIER_MODULE,
	SCHEMA_NOTIFY_REASON,
	SCHEMA_NOTIFY_ADDED_COUNT,
	SCHEMA_NOTIFY_REMOVED_COUNT,
	SCHEMA_NOTIFY_DATUM_ID,
	SCHEMA_NOTIFY_DATUM_LABEL,
	SCHEMA_NOTIFY_OLD_VALUE,
	SCHEMA_NOTIFY_NEW_VALUE,
	SCHEMA_NOTIFY_CHANGED_COUNT,
};

enum schema_notification {
	SCHEMA_NOTIFICATION_INSTANCE_ADDED = 1,
	SCHEMA_NOTIFICATION_INSTANCE_REMOVED,
	SCHEMA_NOTIFICATION_INSTANCES_SUMMARY,
	SCHEMA_NOTIFICATION_SUPPLIER_FAILED,
	SCHEMA_NOTIFICATION_SUPPLIER_RECOVERED,
	SCHEMA_NOTIFICATION_SUPPLIER_RESTARTED,
	SCHEMA_NOTIFICATION_DATA_CHANGED,
};

/* A notification or notification object with its MIB descriptor, for
 * tests/dump_agent_oids. */
struct schema_mib_name {
	const char *name;
	unsigned number;
};

extern const struct schema_mib_name schema_mib_notification_objects[];
extern const size_t schema_mib_notification_object_count;
extern const struct schema_mib_name schema_mib_notifications[];
extern const size_t schema_mib_notification_count;

#endif
