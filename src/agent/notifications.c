#define _GNU_SOURCE
/*
 * DCI-STATS-MIB notifications from UMA events (agent/notifications.h).
 */
#include "agent/notifications.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snmp/mib_oids.h"
#include "base/clock.h"
#include "model/events.h"
#include "base/log.h"
#include "model/registry.h"

/* snmpTrapOID.0 (SNMPv2-MIB), the first varbind of every notification. */
static const oid agent_notifications_trap_oid[] = {
    1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0};

/* The classes with events held back at once: more are counted in the
 * last one's summary rather than growing without bound. */
#define AGENT_NOTIFICATIONS_HELD_MAX 256
#define AGENT_NOTIFICATIONS_TEXT_MAX 256

/* What a class held back past the limit. Copies, not pointers: a reload
 * may free the class before the summary goes. */
struct agent_notifications_held {
	uint32_t class_id[DCI_CLASS_ID_MAX_LEVELS];
	size_t class_id_length;
	char class_label[AGENT_NOTIFICATIONS_TEXT_MAX];
	char module[AGENT_NOTIFICATIONS_TEXT_MAX];
	struct dci_events_summary summary;
};

/* The configuration's defaults until agent_notifications_configure. */
static struct dci_config_notifications agent_notifications_settings = {
    .instance_added = true,
    .instance_removed = true,
    .supplier_failed = true,
    .supplier_recovered = true,
    .supplier_restarted = true,
    .rate_limit = DCI_CONFIG_DEFAULT_NOTIFICATION_LIMIT,
    .rate_window_milliseconds =
        DCI_CONFIG_DEFAULT_NOTIFICATION_WINDOW_MILLISECONDS,
};
static struct dci_events_rate_limit agent_notifications_rate;
static struct agent_notifications_held
    agent_notifications_held[AGENT_NOTIFICATIONS_HELD_MAX];
static size_t agent_notifications_held_count;
static unsigned int agent_notifications_alarm; /* 0: none armed */
static bool agent_notifications_started;

/* Appends one varbind of notification object `object` (instance .0). */
static void
agent_notifications_add(netsnmp_variable_list **list,
    enum schema_notification_object object, u_char type, const void *value,
    size_t length)
{
	oid name[] = {SCHEMA_MIB_ARC, SCHEMA_MIB_OBJECTS,
	    SCHEMA_MIB_NOTIFICATION_OBJECTS, (oid)object, 0};

	(void)snmp_varlist_add_variable(
	    list, name, OID_LENGTH(name), type, (const u_char *)value, length);
}

static void
agent_notifications_add_text(netsnmp_variable_list **list,
    enum schema_notification_object object, const char *text)
{
	size_t length = strnlen(text, AGENT_NOTIFICATIONS_TEXT_MAX);

	agent_notifications_add(list, object, ASN_OCTET_STR, text, length);
}

/* Appends a RowPointer to column `column` of table `table`, whose index
 * is the length-prefixed class id, then, when `words` is not NULL, the
 * length-prefixed instance id, then, when `datum` is not NULL, the datum
 * id (as DCI-STATS-MIB indexes its rows). Bounded: the ids are at most
 * DCI_CLASS_ID_MAX_LEVELS and 16 words. */
static void
agent_notifications_add_row(netsnmp_variable_list **list,
    enum schema_notification_object object, unsigned table, unsigned column,
    const uint32_t *class_id, size_t class_id_length, const uint32_t *words,
    size_t count, const uint32_t *datum)
{
	oid value[MAX_OID_LEN] = {SCHEMA_MIB_ARC, SCHEMA_MIB_OBJECTS};
	size_t length = SCHEMA_MIB_ARC_LENGTH + 1;

	value[length++] = table;
	value[length++] = 1; /* the entry */
	value[length++] = column;
	value[length++] = class_id_length;
	for (size_t i = 0; i < class_id_length; i++)
		value[length++] = class_id[i];
	if (words != NULL && length + 1 + count <= MAX_OID_LEN) {
		value[length++] = count;
		for (size_t i = 0; i < count; i++)
			value[length++] = words[i];
		if (datum != NULL && length < MAX_OID_LEN)
			value[length++] = *datum;
	}
	agent_notifications_add(
	    list, object, ASN_OBJECT_ID, value, length * sizeof(oid));
}

/* Sends `list`, led by snmpTrapOID.0 = `notification`, and frees it. */
static void
agent_notifications_send(
    enum schema_notification notification, netsnmp_variable_list *list)
{
	oid trap[] = {
	    SCHEMA_MIB_ARC, SCHEMA_MIB_NOTIFICATIONS, (oid)notification};
	netsnmp_variable_list *head = NULL;

	(void)snmp_varlist_add_variable(&head, agent_notifications_trap_oid,
	    OID_LENGTH(agent_notifications_trap_oid), ASN_OBJECT_ID,
	    (const u_char *)trap, sizeof(trap));
	if (head == NULL) {
		snmp_free_varbind(list);
		return;
	}
	head->next_variable = list;
	send_v2trap(head);
	snmp_free_varbind(head);
}

static void
agent_notifications_send_summary(const struct agent_notifications_held *held,
    const struct dci_events_summary *taken)
{
	netsnmp_variable_list *list = NULL;
	uint32_t added =
	    taken->added > UINT32_MAX ? UINT32_MAX : (uint32_t)taken->added;
	uint32_t removed =
	    taken->removed > UINT32_MAX ? UINT32_MAX : (uint32_t)taken->removed;
	uint32_t changed =
	    taken->changed > UINT32_MAX ? UINT32_MAX : (uint32_t)taken->changed;

	agent_notifications_add_row(&list, SCHEMA_NOTIFY_CLASS_ID,
	    SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LABEL, held->class_id,
	    held->class_id_length, NULL, 0, NULL);
	agent_notifications_add_text(
	    &list, SCHEMA_NOTIFY_CLASS_LABEL, held->class_label);
	agent_notifications_add_text(
	    &list, SCHEMA_NOTIFY_SUPPLIER_MODULE, held->module);
	agent_notifications_add(&list, SCHEMA_NOTIFY_ADDED_COUNT, ASN_UNSIGNED,
	    &(u_long){added}, sizeof(u_long));
	agent_notifications_add(&list, SCHEMA_NOTIFY_REMOVED_COUNT, ASN_UNSIGNED,
	    &(u_long){removed}, sizeof(u_long));
	agent_notifications_add(&list, SCHEMA_NOTIFY_CHANGED_COUNT, ASN_UNSIGNED,
	    &(u_long){changed}, sizeof(u_long));
	log_info("agent: %s: %u added, %u removed and %u changed past the "
	         "notification rate limit",
	    held->class_label, added, removed, changed);
	agent_notifications_send(SCHEMA_NOTIFICATION_INSTANCES_SUMMARY, list);
}

/* Sends the summary of every class that held events back. */
static void
agent_notifications_flush(void)
{
	for (size_t i = 0; i < agent_notifications_held_count; i++) {
		struct dci_events_summary taken;

		if (dci_events_summary_take(
		        &agent_notifications_held[i].summary, &taken))
			agent_notifications_send_summary(
			    &agent_notifications_held[i], &taken);
	}
	agent_notifications_held_count = 0;
}

/* The alarm armed at the first event held back: the window has ended. */
static void
agent_notifications_alarm_fired(unsigned int registration, void *context)
{
	(void)registration;
	(void)context;
	agent_notifications_alarm = 0;
	agent_notifications_flush();
}

static bool
agent_notifications_same_class(
    const struct agent_notifications_held *held, const struct dci_class *class)
{
	return held->class_id_length == class->id_length &&
	       memcmp(held->class_id, class->id,
	           class->id_length * sizeof(class->id[0])) == 0;
}

/* Counts an event past the limit in its class's summary, and arms the
 * alarm that sends the summaries when the window ends. */
static void
agent_notifications_hold(const struct dci_events_instance *event)
{
	const struct dci_class *class = event->class;
	struct agent_notifications_held *held = NULL;

	for (size_t i = 0; i < agent_notifications_held_count; i++) {
		if (agent_notifications_same_class(
		        &agent_notifications_held[i], class)) {
			held = &agent_notifications_held[i];
			break;
		}
	}
	if (held == NULL &&
	    agent_notifications_held_count < AGENT_NOTIFICATIONS_HELD_MAX) {
		held =
		    &agent_notifications_held[agent_notifications_held_count++];
		memset(held, 0, sizeof(*held));
		memcpy(held->class_id, class->id,
		    class->id_length * sizeof(class->id[0]));
		held->class_id_length = class->id_length;
		snprintf(held->class_label, sizeof(held->class_label), "%s",
		    class->label);
		snprintf(held->module, sizeof(held->module), "%s",
		    class->supplier != NULL ? class->supplier->module : "");
	}
	if (held == NULL)
		held =
		    &agent_notifications_held[AGENT_NOTIFICATIONS_HELD_MAX - 1];
	dci_events_summary_count(&held->summary, event->kind);
	if (agent_notifications_alarm == 0) {
		int64_t left =
		    agent_notifications_rate.window_start_milliseconds +
		    agent_notifications_rate.window_milliseconds -
		    dci_clock_milliseconds();
		/* Whole seconds, rounded up, at least one. */
		unsigned int seconds =
		    left <= 0 ? 1 : (unsigned int)((left + 999) / 1000);

		agent_notifications_alarm = snmp_alarm_register(
		    seconds, 0, agent_notifications_alarm_fired, NULL);
	}
}

static enum schema_notification
agent_notifications_number(enum dci_events_kind kind)
{
	switch (kind) {
	case DCI_EVENTS_INSTANCE_ADDED:
		return SCHEMA_NOTIFICATION_INSTANCE_ADDED;
	case DCI_EVENTS_INSTANCE_REMOVED:
		return SCHEMA_NOTIFICATION_INSTANCE_REMOVED;
	case DCI_EVENTS_DATA_CHANGED:
		break;
	}
	return SCHEMA_NOTIFICATION_DATA_CHANGED;
}

/* Every instance event: the instance's row pointers and labels, and for a
 * data change the datum's row pointer, label and both values. */
static void
agent_notifications_instance(
    void *context, const struct dci_events_instance *event)
{
	const struct dci_class *class = event->class;
	int64_t now = dci_clock_milliseconds();
	netsnmp_variable_list *list = NULL;

	(void)context;
	if ((event->kind == DCI_EVENTS_INSTANCE_ADDED &&
	        !agent_notifications_settings.instance_added) ||
	    (event->kind == DCI_EVENTS_INSTANCE_REMOVED &&
	        !agent_notifications_settings.instance_removed))
		return;
	/* A window that ended before its alarm ran: its summaries first. */
	if (agent_notifications_held_count > 0 &&
	    dci_events_rate_limit_window_over(&agent_notifications_rate, now))
		agent_notifications_flush();
	if (!dci_events_rate_limit_admit(&agent_notifications_rate, now)) {
		agent_notifications_hold(event);
		return;
	}
	agent_notifications_add_row(&list, SCHEMA_NOTIFY_CLASS_ID,
	    SCHEMA_TABLE_CLASS, SCHEMA_CLASS_LABEL, class->id, class->id_length,
	    NULL, 0, NULL);
	agent_notifications_add_text(
	    &list, SCHEMA_NOTIFY_CLASS_LABEL, class->label);
	agent_notifications_add_row(&list, SCHEMA_NOTIFY_INSTANCE_ID,
	    SCHEMA_TABLE_INSTANCE, SCHEMA_INSTANCE_LABEL, class->id,
	    class->id_length, event->id, class->instance_words, NULL);
	agent_notifications_add_text(&list, SCHEMA_NOTIFY_INSTANCE_LABEL,
	    event->label != NULL ? event->label : "");
	agent_notifications_add_text(&list, SCHEMA_NOTIFY_SUPPLIER_MODULE,
	    class->supplier != NULL ? class->supplier->module : "");
	if (event->kind == DCI_EVENTS_DATA_CHANGED) {
		agent_notifications_add_row(&list, SCHEMA_NOTIFY_DATUM_ID,
		    SCHEMA_TABLE_STAT, SCHEMA_STAT_TEXT, class->id,
		    class->id_length, event->id, class->instance_words,
		    &event->datum->info.id);
		agent_notifications_add_text(
		    &list, SCHEMA_NOTIFY_DATUM_LABEL, event->datum->info.label);
		agent_notifications_add_text(
		    &list, SCHEMA_NOTIFY_OLD_VALUE, event->old_value);
		agent_notifications_add_text(
		    &list, SCHEMA_NOTIFY_NEW_VALUE, event->new_value);
	}
	agent_notifications_send(agent_notifications_number(event->kind), list);
}

static void
agent_notifications_supplier(void *context, const struct dci_supplier *supplier,
    enum dci_events_supplier_kind kind)
{
	netsnmp_variable_list *list = NULL;
	enum schema_notification notification =
	    SCHEMA_NOTIFICATION_SUPPLIER_FAILED;

	bool wanted = false;

	(void)context;
	switch (kind) {
	case DCI_EVENTS_SUPPLIER_FAILED:
		wanted = agent_notifications_settings.supplier_failed;
		break;
	case DCI_EVENTS_SUPPLIER_RECOVERED:
		notification = SCHEMA_NOTIFICATION_SUPPLIER_RECOVERED;
		wanted = agent_notifications_settings.supplier_recovered;
		break;
	case DCI_EVENTS_SUPPLIER_RESTARTED:
		notification = SCHEMA_NOTIFICATION_SUPPLIER_RESTARTED;
		wanted = agent_notifications_settings.supplier_restarted;
		break;
	}
	if (!wanted)
		return;
	agent_notifications_add_text(
	    &list, SCHEMA_NOTIFY_SUPPLIER_MODULE, supplier->module);
	if (kind == DCI_EVENTS_SUPPLIER_FAILED)
		agent_notifications_add_text(
		    &list, SCHEMA_NOTIFY_REASON, supplier->failure);
	agent_notifications_send(notification, list);
}

void
agent_notifications_announce_failures(const struct dci_registry *registry)
{
	for (size_t i = 0; i < registry->supplier_count; i++) {
		const struct dci_supplier *supplier = registry->suppliers[i];

		if (supplier != NULL && !supplier->withdrawn &&
		    supplier->status == DCI_SUPPLIER_FAILED)
			agent_notifications_supplier(
			    NULL, supplier, DCI_EVENTS_SUPPLIER_FAILED);
	}
}

/* Hands the model the configured data-changed watches as its own plain
 * settings (dci_events_set_watches copies them). */
static int
agent_notifications_watch(const struct dci_config_notifications *settings)
{
	struct dci_events_watch *watches = NULL;
	int result;

	if (settings->data_changed_count > 0) {
		watches =
		    calloc(settings->data_changed_count, sizeof(*watches));
		if (watches == NULL)
			return -1;
	}
	for (size_t w = 0; w < settings->data_changed_count; w++)
		watches[w] = (struct dci_events_watch){
		    .class_name = settings->data_changed[w].class_name,
		    .datums = settings->data_changed[w].datums,
		    .datum_count = settings->data_changed[w].datum_count,
		};
	result = dci_events_set_watches(watches, settings->data_changed_count);
	free(watches);
	return result;
}

void
agent_notifications_configure(const struct dci_config_notifications *settings)
{
	agent_notifications_settings = *settings;
	/* The lists are the model's copies; the settings keep only the flags. */
	agent_notifications_settings.data_changed = NULL;
	agent_notifications_settings.data_changed_count = 0;
	if (agent_notifications_watch(settings) != 0)
		log_warnx("agent: out of memory for the data-changed datums; "
		          "the previous ones stay watched");
	dci_events_rate_limit_init(&agent_notifications_rate,
	    settings->rate_limit, settings->rate_window_milliseconds);
}

void
agent_notifications_start(void)
{
	if (agent_notifications_started)
		return;
	dci_events_rate_limit_init(&agent_notifications_rate,
	    agent_notifications_settings.rate_limit,
	    agent_notifications_settings.rate_window_milliseconds);
	agent_notifications_held_count = 0;
	dci_events_set_sink(agent_notifications_instance, NULL);
	dci_events_set_supplier_sink(agent_notifications_supplier, NULL);
	agent_notifications_started = true;
}

void
agent_notifications_stop(void)
{
	if (!agent_notifications_started)
		return;
	dci_events_set_sink(NULL, NULL);
	dci_events_set_supplier_sink(NULL, NULL);
	(void)dci_events_set_watches(NULL, 0);
	if (agent_notifications_alarm != 0)
		snmp_alarm_unregister(agent_notifications_alarm);
	agent_notifications_alarm = 0;
	agent_notifications_held_count = 0;
	agent_notifications_started = false;
}
