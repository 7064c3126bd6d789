#include "snmp/mib_oids.h"

#define TABLE(name, number)                                                    \
	{                                                                      \
		name, number, 0, 0                                             \
	}
#define ENTRY(name, number)                                                    \
	{                                                                      \
		name, number, 1, 0                                             \
	}
#define COLUMN(name, number, column)                                           \
	{                                                                      \
		name, number, 2, column                                        \
	}

const struct schema_mib_object schema_mib_objects[] = {
    TABLE("dciSupplierTable", SCHEMA_TABLE_SUPPLIER),
    ENTRY("dciSupplierEntry", SCHEMA_TABLE_SUPPLIER),
    COLUMN("dciSupplierModule", SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_MODULE),
    COLUMN("dciSupplierTitle", SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_TITLE),
    COLUMN("dciSupplierDescription", SCHEMA_TABLE_SUPPLIER,
        SCHEMA_SUPPLIER_DESCRIPTION),
    COLUMN("dciSupplierType", SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_TYPE),
    COLUMN(
        "dciSupplierVersion", SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_VERSION),
    COLUMN("dciSupplierReset", SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_RESET),
    COLUMN("dciSupplierStatus", SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_STATUS),
    COLUMN("dciSupplierDiscontinuity", SCHEMA_TABLE_SUPPLIER,
        SCHEMA_SUPPLIER_DISCONTINUITY),
    COLUMN("dciSupplierLastRefresh", SCHEMA_TABLE_SUPPLIER,
        SCHEMA_SUPPLIER_LAST_REFRESH),
    COLUMN(
        "dciSupplierFailure", SCHEMA_TABLE_SUPPLIER, SCHEMA_SUPPLIER_FAILURE),
    TABLE("dciClassTable", SCHEMA_TABLE_CLASS),
    ENTRY("dciClassEntry", SCHEMA_TABLE_CLASS),
    COLUMN("dciClassLabel", SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LABEL),
    COLUMN("dciClassInstanceLevels", SCHEMA_TABLE_CLASS,
        SCHEMA_CLASS_INSTANCE_LEVELS),
    COLUMN("dciClassDatumCount", SCHEMA_TABLE_CLASS, SCHEMA_CLASS_DATUM_COUNT),
    COLUMN("dciClassSupplier", SCHEMA_TABLE_CLASS, SCHEMA_CLASS_SUPPLIER),
    COLUMN("dciClassInstanceCount", SCHEMA_TABLE_CLASS,
        SCHEMA_CLASS_INSTANCE_COUNT),
    COLUMN("dciClassDescription", SCHEMA_TABLE_CLASS, SCHEMA_CLASS_DESCRIPTION),
    COLUMN("dciClassLevelTypes", SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LEVEL_TYPES),
    COLUMN("dciClassLevelSizes", SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LEVEL_SIZES),
    TABLE("dciDatumTable", SCHEMA_TABLE_DATUM),
    ENTRY("dciDatumEntry", SCHEMA_TABLE_DATUM),
    COLUMN("dciDatumLabel", SCHEMA_TABLE_DATUM, SCHEMA_DATUM_LABEL),
    COLUMN("dciDatumType", SCHEMA_TABLE_DATUM, SCHEMA_DATUM_TYPE),
    COLUMN("dciDatumFormat", SCHEMA_TABLE_DATUM, SCHEMA_DATUM_FORMAT),
    COLUMN(
        "dciDatumPresentation", SCHEMA_TABLE_DATUM, SCHEMA_DATUM_PRESENTATION),
    COLUMN("dciDatumSize", SCHEMA_TABLE_DATUM, SCHEMA_DATUM_SIZE),
    COLUMN("dciDatumVolatility", SCHEMA_TABLE_DATUM, SCHEMA_DATUM_VOLATILITY),
    COLUMN("dciDatumUnits", SCHEMA_TABLE_DATUM, SCHEMA_DATUM_UNITS),
    COLUMN("dciDatumSemantics", SCHEMA_TABLE_DATUM, SCHEMA_DATUM_SEMANTICS),
    COLUMN("dciDatumDescription", SCHEMA_TABLE_DATUM, SCHEMA_DATUM_DESCRIPTION),
    TABLE("dciInstanceTable", SCHEMA_TABLE_INSTANCE),
    ENTRY("dciInstanceEntry", SCHEMA_TABLE_INSTANCE),
    COLUMN("dciInstanceLabel", SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_LABEL),
    COLUMN(
        "dciInstanceCreated", SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_CREATED),
    COLUMN("dciInstanceDiscontinuity", SCHEMA_TABLE_INSTANCE,
        SCHEMA_INSTANCE_DISCONTINUITY),
    COLUMN("dciInstanceParent", SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_PARENT),
    TABLE("dciStatTable", SCHEMA_TABLE_STAT),
    ENTRY("dciStatEntry", SCHEMA_TABLE_STAT),
    COLUMN("dciStatLabel", SCHEMA_TABLE_STAT, SCHEMA_STAT_LABEL),
    COLUMN("dciStatType", SCHEMA_TABLE_STAT, SCHEMA_STAT_TYPE),
    COLUMN("dciStatText", SCHEMA_TABLE_STAT, SCHEMA_STAT_TEXT),
    COLUMN("dciStatCounter64", SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER64),
    COLUMN("dciStatCounter32", SCHEMA_TABLE_STAT, SCHEMA_STAT_COUNTER32),
    COLUMN("dciStatGauge32", SCHEMA_TABLE_STAT, SCHEMA_STAT_GAUGE32),
    COLUMN("dciStatInteger32", SCHEMA_TABLE_STAT, SCHEMA_STAT_INTEGER32),
    COLUMN("dciStatString", SCHEMA_TABLE_STAT, SCHEMA_STAT_STRING),
    COLUMN("dciStatIpAddress", SCHEMA_TABLE_STAT, SCHEMA_STAT_IP_ADDRESS),
    COLUMN("dciStatMacAddress", SCHEMA_TABLE_STAT, SCHEMA_STAT_MAC_ADDRESS),
    COLUMN("dciStatTimeTicks", SCHEMA_TABLE_STAT, SCHEMA_STAT_TIME_TICKS),
    COLUMN("dciStatTruthValue", SCHEMA_TABLE_STAT, SCHEMA_STAT_TRUTH_VALUE),
    COLUMN(
        "dciStatDiscontinuity", SCHEMA_TABLE_STAT, SCHEMA_STAT_DISCONTINUITY),
    COLUMN("dciStatHundredths", SCHEMA_TABLE_STAT, SCHEMA_STAT_HUNDREDTHS),
};

const size_t schema_mib_object_count =
    sizeof(schema_mib_objects) / sizeof(schema_mib_objects[0]);

const char *
schema_table_name(unsigned table)
{
	if (table == SCHEMA_CLASS_DATA)
		return "dciClassData";
	for (size_t i = 0; i < schema_mib_object_count; i++)
		if (schema_mib_objects[i].depth == 0 &&
		    schema_mib_objects[i].table == table)
			return schema_mib_objects[i].name;
	return NULL;
}

const struct schema_mib_name schema_mib_notification_objects[] = {
    {"dciNotifyClassId", SCHEMA_NOTIFY_CLASS_ID},
    {"dciNotifyClassLabel", SCHEMA_NOTIFY_CLASS_LABEL},
    {"dciNotifyInstanceId", SCHEMA_NOTIFY_INSTANCE_ID},
    {"dciNotifyInstanceLabel", SCHEMA_NOTIFY_INSTANCE_LABEL},
    {"dciNotifySupplierModule", SCHEMA_NOTIFY_SUPPLIER_MODULE},
    {"dciNotifyReason", SCHEMA_NOTIFY_REASON},
    {"dciNotifyAddedCount", SCHEMA_NOTIFY_ADDED_COUNT},
    {"dciNotifyRemovedCount", SCHEMA_NOTIFY_REMOVED_COUNT},
    {"dciNotifyDatumId", SCHEMA_NOTIFY_DATUM_ID},
    {"dciNotifyDatumLabel", SCHEMA_NOTIFY_DATUM_LABEL},
    {"dciNotifyOldValue", SCHEMA_NOTIFY_OLD_VALUE},
    {"dciNotifyNewValue", SCHEMA_NOTIFY_NEW_VALUE},
    {"dciNotifyChangedCount", SCHEMA_NOTIFY_CHANGED_COUNT},
};
const size_t schema_mib_notification_object_count =
    sizeof(schema_mib_notification_objects) /
    sizeof(schema_mib_notification_objects[0]);

const struct schema_mib_name schema_mib_notifications[] = {
    {"dciInstanceAdded", SCHEMA_NOTIFICATION_INSTANCE_ADDED},
    {"dciInstanceRemoved", SCHEMA_NOTIFICATION_INSTANCE_REMOVED},
    {"dciInstancesSummary", SCHEMA_NOTIFICATION_INSTANCES_SUMMARY},
    {"dciSupplierFailed", SCHEMA_NOTIFICATION_SUPPLIER_FAILED},
    {"dciSupplierRecovered", SCHEMA_NOTIFICATION_SUPPLIER_RECOVERED},
    {"dciSupplierRestarted", SCHEMA_NOTIFICATION_SUPPLIER_RESTARTED},
    {"dciDataChanged", SCHEMA_NOTIFICATION_DATA_CHANGED},
};
const size_t schema_mib_notification_count =
    sizeof(schema_mib_notifications) / sizeof(schema_mib_notifications[0]);
