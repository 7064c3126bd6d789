#include "agent/mib_oids.h"

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

const struct agent_mib_object agent_mib_objects[] = {
    TABLE("dciSupplierTable", AGENT_TABLE_SUPPLIER),
    ENTRY("dciSupplierEntry", AGENT_TABLE_SUPPLIER),
    COLUMN("dciSupplierModule", AGENT_TABLE_SUPPLIER, AGENT_SUPPLIER_MODULE),
    COLUMN("dciSupplierTitle", AGENT_TABLE_SUPPLIER, AGENT_SUPPLIER_TITLE),
    COLUMN("dciSupplierDescription", AGENT_TABLE_SUPPLIER,
        AGENT_SUPPLIER_DESCRIPTION),
    COLUMN("dciSupplierType", AGENT_TABLE_SUPPLIER, AGENT_SUPPLIER_TYPE),
    COLUMN("dciSupplierVersion", AGENT_TABLE_SUPPLIER, AGENT_SUPPLIER_VERSION),
    COLUMN("dciSupplierReset", AGENT_TABLE_SUPPLIER, AGENT_SUPPLIER_RESET),
    COLUMN("dciSupplierStatus", AGENT_TABLE_SUPPLIER, AGENT_SUPPLIER_STATUS),
    COLUMN("dciSupplierDiscontinuity", AGENT_TABLE_SUPPLIER,
        AGENT_SUPPLIER_DISCONTINUITY),
    COLUMN("dciSupplierLastRefresh", AGENT_TABLE_SUPPLIER,
        AGENT_SUPPLIER_LAST_REFRESH),
    COLUMN("dciSupplierFailure", AGENT_TABLE_SUPPLIER, AGENT_SUPPLIER_FAILURE),
    TABLE("dciClassTable", AGENT_TABLE_CLASS),
    ENTRY("dciClassEntry", AGENT_TABLE_CLASS),
    COLUMN("dciClassLabel", AGENT_TABLE_CLASS, AGENT_CLASS_LABEL),
    COLUMN("dciClassInstanceLevels", AGENT_TABLE_CLASS,
        AGENT_CLASS_INSTANCE_LEVELS),
    COLUMN("dciClassDatumCount", AGENT_TABLE_CLASS, AGENT_CLASS_DATUM_COUNT),
    COLUMN("dciClassSupplier", AGENT_TABLE_CLASS, AGENT_CLASS_SUPPLIER),
    COLUMN(
        "dciClassInstanceCount", AGENT_TABLE_CLASS, AGENT_CLASS_INSTANCE_COUNT),
    COLUMN("dciClassDescription", AGENT_TABLE_CLASS, AGENT_CLASS_DESCRIPTION),
    COLUMN("dciClassLevelTypes", AGENT_TABLE_CLASS, AGENT_CLASS_LEVEL_TYPES),
    COLUMN("dciClassLevelSizes", AGENT_TABLE_CLASS, AGENT_CLASS_LEVEL_SIZES),
    TABLE("dciDatumTable", AGENT_TABLE_DATUM),
    ENTRY("dciDatumEntry", AGENT_TABLE_DATUM),
    COLUMN("dciDatumLabel", AGENT_TABLE_DATUM, AGENT_DATUM_LABEL),
    COLUMN("dciDatumType", AGENT_TABLE_DATUM, AGENT_DATUM_TYPE),
    COLUMN("dciDatumFormat", AGENT_TABLE_DATUM, AGENT_DATUM_FORMAT),
    COLUMN("dciDatumPresentation", AGENT_TABLE_DATUM, AGENT_DATUM_PRESENTATION),
    COLUMN("dciDatumSize", AGENT_TABLE_DATUM, AGENT_DATUM_SIZE),
    COLUMN("dciDatumVolatility", AGENT_TABLE_DATUM, AGENT_DATUM_VOLATILITY),
    COLUMN("dciDatumUnits", AGENT_TABLE_DATUM, AGENT_DATUM_UNITS),
    COLUMN("dciDatumSemantics", AGENT_TABLE_DATUM, AGENT_DATUM_SEMANTICS),
    COLUMN("dciDatumDescription", AGENT_TABLE_DATUM, AGENT_DATUM_DESCRIPTION),
    TABLE("dciInstanceTable", AGENT_TABLE_INSTANCE),
    ENTRY("dciInstanceEntry", AGENT_TABLE_INSTANCE),
    COLUMN("dciInstanceLabel", AGENT_TABLE_INSTANCE, AGENT_INSTANCE_LABEL),
    COLUMN("dciInstanceCreated", AGENT_TABLE_INSTANCE, AGENT_INSTANCE_CREATED),
    COLUMN("dciInstanceDiscontinuity", AGENT_TABLE_INSTANCE,
        AGENT_INSTANCE_DISCONTINUITY),
    COLUMN("dciInstanceParent", AGENT_TABLE_INSTANCE, AGENT_INSTANCE_PARENT),
    TABLE("dciStatTable", AGENT_TABLE_STAT),
    ENTRY("dciStatEntry", AGENT_TABLE_STAT),
    COLUMN("dciStatLabel", AGENT_TABLE_STAT, AGENT_STAT_LABEL),
    COLUMN("dciStatType", AGENT_TABLE_STAT, AGENT_STAT_TYPE),
    COLUMN("dciStatText", AGENT_TABLE_STAT, AGENT_STAT_TEXT),
    COLUMN("dciStatCounter64", AGENT_TABLE_STAT, AGENT_STAT_COUNTER64),
    COLUMN("dciStatCounter32", AGENT_TABLE_STAT, AGENT_STAT_COUNTER32),
    COLUMN("dciStatGauge32", AGENT_TABLE_STAT, AGENT_STAT_GAUGE32),
    COLUMN("dciStatInteger32", AGENT_TABLE_STAT, AGENT_STAT_INTEGER32),
    COLUMN("dciStatString", AGENT_TABLE_STAT, AGENT_STAT_STRING),
    COLUMN("dciStatIpAddress", AGENT_TABLE_STAT, AGENT_STAT_IP_ADDRESS),
    COLUMN("dciStatMacAddress", AGENT_TABLE_STAT, AGENT_STAT_MAC_ADDRESS),
    COLUMN("dciStatTimeTicks", AGENT_TABLE_STAT, AGENT_STAT_TIME_TICKS),
    COLUMN("dciStatTruthValue", AGENT_TABLE_STAT, AGENT_STAT_TRUTH_VALUE),
    COLUMN("dciStatDiscontinuity", AGENT_TABLE_STAT, AGENT_STAT_DISCONTINUITY),
    COLUMN("dciStatHundredths", AGENT_TABLE_STAT, AGENT_STAT_HUNDREDTHS),
};

const size_t agent_mib_object_count =
    sizeof(agent_mib_objects) / sizeof(agent_mib_objects[0]);

const struct agent_mib_name agent_mib_notification_objects[] = {
    {"dciNotifyClassId", AGENT_NOTIFY_CLASS_ID},
    {"dciNotifyClassLabel", AGENT_NOTIFY_CLASS_LABEL},
    {"dciNotifyInstanceId", AGENT_NOTIFY_INSTANCE_ID},
    {"dciNotifyInstanceLabel", AGENT_NOTIFY_INSTANCE_LABEL},
    {"dciNotifySupplierModule", AGENT_NOTIFY_SUPPLIER_MODULE},
    {"dciNotifyReason", AGENT_NOTIFY_REASON},
    {"dciNotifyAddedCount", AGENT_NOTIFY_ADDED_COUNT},
    {"dciNotifyRemovedCount", AGENT_NOTIFY_REMOVED_COUNT},
    {"dciNotifyDatumId", AGENT_NOTIFY_DATUM_ID},
    {"dciNotifyDatumLabel", AGENT_NOTIFY_DATUM_LABEL},
    {"dciNotifyOldValue", AGENT_NOTIFY_OLD_VALUE},
    {"dciNotifyNewValue", AGENT_NOTIFY_NEW_VALUE},
    {"dciNotifyChangedCount", AGENT_NOTIFY_CHANGED_COUNT},
};
const size_t agent_mib_notification_object_count =
    sizeof(agent_mib_notification_objects) /
    sizeof(agent_mib_notification_objects[0]);

const struct agent_mib_name agent_mib_notifications[] = {
    {"dciInstanceAdded", AGENT_NOTIFICATION_INSTANCE_ADDED},
    {"dciInstanceRemoved", AGENT_NOTIFICATION_INSTANCE_REMOVED},
    {"dciInstancesSummary", AGENT_NOTIFICATION_INSTANCES_SUMMARY},
    {"dciSupplierFailed", AGENT_NOTIFICATION_SUPPLIER_FAILED},
    {"dciSupplierRecovered", AGENT_NOTIFICATION_SUPPLIER_RECOVERED},
    {"dciSupplierRestarted", AGENT_NOTIFICATION_SUPPLIER_RESTARTED},
    {"dciDataChanged", AGENT_NOTIFICATION_DATA_CHANGED},
};
const size_t agent_mib_notification_count =
    sizeof(agent_mib_notifications) / sizeof(agent_mib_notifications[0]);
