/* The remote source of dcistat (remote_source.h): its refresh, open and
 * close. */
#define _GNU_SOURCE
#include "cli/remote/remote_state.h"

/* .1.3.6.1.2.1.1.3.0, sysUpTime.0: the base of every TimeStamp. */
static const oid uptime_oid[] = {1, 3, 6, 1, 2, 1, 1, 3, 0};

/* --- Refresh and open --------------------------------------------------- */

static int
read_uptime(struct remote_state *state, char *error, size_t error_size)
{
	netsnmp_pdu *request = snmp_pdu_create(SNMP_MSG_GET), *response = NULL;

	snmp_add_null_var(
	    request, uptime_oid, sizeof(uptime_oid) / sizeof(*uptime_oid));
	if (cli_remote_request(state, request, &response, error, error_size) !=
	    0)
		return -1;
	if (response->variables == NULL ||
	    response->variables->type != ASN_TIMETICKS ||
	    response->variables->val.integer == NULL) {
		snmp_free_pdu(response);
		snprintf(error, error_size,
		    "%s: malformed answer: no sysUpTime", state->host);
		return -1;
	}
	state->uptime_ticks = (uint32_t)*response->variables->val.integer;
	snmp_free_pdu(response);
	state->now_milliseconds = dci_clock_milliseconds();
	/* Fixed at the first reading, so that one TimeStamp maps to the same
	 * moment at every refresh: watch takes any change of an instance's
	 * discontinuity time for a discontinuity. An agent that restarted
	 * (its sysUpTime went back) moves it, as every instance's counters
	 * are then discontinuous anyway. */
	state->restarted =
	    state->started && state->uptime_ticks < state->previous_uptime;
	if (!state->started || state->uptime_ticks < state->previous_uptime) {
		state->start_milliseconds =
		    state->now_milliseconds - (int64_t)state->uptime_ticks * 10;
		state->started = true;
	}
	state->previous_uptime = state->uptime_ticks;
	state->now_unix_milliseconds = dci_clock_realtime_milliseconds();
	return 0;
}

static void
discard_builders(struct remote_state *state)
{
	for (size_t c = 0; c < state->class_count; c++) {
		struct remote_class *class = &state->classes[c];
		if (class->builder != NULL)
			dci_snapshot_builder_free(class->builder);
		class->builder = NULL;
	}
}

static bool every_level_size_read(const struct remote_state *state);
static int first_instance_varbind(struct remote_state *state,
    const uint64_t *suffix, size_t length, const netsnmp_variable_list *varbind,
    void *context, char *error, size_t error_size);
static int register_suppliers(
    struct remote_state *state, char *error, size_t error_size);
static int register_classes(
    struct remote_state *state, char *error, size_t error_size);

/* Frees what read_catalogue read: suppliers and classes, with each class's
 * datums and refresh arrays (builders discarded). */
static void
catalogue_free(struct remote_state *state)
{
	discard_builders(state);
	for (size_t c = 0; c < state->class_count; c++) {
		struct remote_class *class = &state->classes[c];
		free(class->datums);
		free(class->instance_ids);
		free(class->instances);
	}
	free(state->classes);
	free(state->suppliers);
	state->classes = NULL;
	state->class_count = state->class_capacity = state->class_cursor = 0;
	state->suppliers = NULL;
	state->supplier_count = state->supplier_capacity = 0;
	state->supplier_cursor = 0;
	state->focus = -1;
}

/* Reads the catalogue, dciSupplierTable, dciClassTable and dciDatumTable
 * (and, from an agent without level sizes, the first column of
 * dciInstanceTable for the instance ids' length), into a new registry
 * that replaces the source's (snapshots come with the next refresh), and
 * finds the focus class again by name. Returns 0, or -1 with the reason
 * in `error` (the source then has the part read). */
static int
read_catalogue(struct cli_source *source, char *error, size_t error_size)
{
	struct remote_state *state = source->state;
	struct dci_registry *registry = dci_registry_new();
	oid root[REMOTE_OID_MAX];
	size_t root_length;

	if (registry == NULL) {
		snprintf(error, error_size, "out of memory");
		return -1;
	}
	catalogue_free(state);
	if (state->registry != NULL)
		dci_registry_free(state->registry);
	state->registry = registry;
	source->registry = registry;
	root_length = cli_remote_table_root(SCHEMA_TABLE_SUPPLIER, root);
	if (cli_remote_walk(state, root, root_length,
	        cli_remote_supplier_varbind, NULL, error, error_size) != 0)
		return -1;
	root_length = cli_remote_table_root(SCHEMA_TABLE_CLASS, root);
	if (cli_remote_walk(state, root, root_length, cli_remote_class_varbind,
	        NULL, error, error_size) != 0)
		return -1;
	root_length = cli_remote_table_root(SCHEMA_TABLE_DATUM, root);
	if (cli_remote_walk(state, root, root_length, cli_remote_datum_varbind,
	        NULL, error, error_size) != 0)
		return -1;
	if (state->supplier_count == 0) {
		snprintf(error, error_size,
		    "%s: the agent serves no DCI-STATS-MIB suppliers",
		    state->host);
		return -1;
	}
	/* The first column of dciInstanceTable: each class's id length,
	 * needed only for an agent that does not serve the level sizes
	 * (before revision 202611251200Z). */
	if (!every_level_size_read(state)) {
		root_length =
		    cli_remote_table_root(SCHEMA_TABLE_INSTANCE, root);
		root[root_length++] = SCHEMA_INSTANCE_LABEL;
		if (cli_remote_walk(state, root, root_length,
		        first_instance_varbind, NULL, error, error_size) != 0)
			return -1;
	}
	for (size_t c = 0; c < state->class_count; c++)
		if (state->classes[c].instance_words == 0)
			state->classes[c].instance_words =
			    state->classes[c].level_count;
	if (register_suppliers(state, error, error_size) != 0 ||
	    register_classes(state, error, error_size) != 0)
		return -1;
	if (state->focus_name != NULL) {
		const struct dci_class *focus =
		    dci_registry_find_class(registry, state->focus_name);
		for (size_t c = 0; focus != NULL && c < state->class_count; c++)
			if (state->classes[c].class == focus)
				state->focus = (long)c;
	}
	state->catalogue_read = true;
	return 0;
}

/* What catalogue_changed compares: how many of the known classes or
 * suppliers the walk met, and whether anything differed. */
struct catalogue_check {
	size_t met;
	bool changed;
};

/* One row of the walk: a known class or supplier as read before (`same`),
 * or a change. */
static void
catalogue_check_meet(struct catalogue_check *check, bool same)
{
	if (same)
		check->met++;
	else
		check->changed = true;
}

/* dciClassDatumCount: a class not known, or with another datum count. */
static int
datum_count_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	struct catalogue_check *check = context;
	struct cli_remote_index index;
	struct remote_class *class;
	uint32_t count;

	if (cli_remote_row_index(state, "dciClassTable", suffix, length,
	        CLI_REMOTE_SHAPE_CLASS, &index, error, error_size) != 0)
		return -1;
	if (cli_remote_read_unsigned(
	        state, varbind, &count, error, error_size) != 0)
		return -1;
	class =
	    cli_remote_find_class(state, index.class_id, index.class_length);
	catalogue_check_meet(
	    check, class != NULL && class->datum_count == count);
	return 0;
}

/* dciSupplierDiscontinuity: a supplier not known, or (re)initialised
 * since, which may have registered its classes again. */
static int
supplier_time_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	struct catalogue_check *check = context;
	struct remote_supplier *supplier;
	uint32_t ticks;

	if (length != 2 || suffix[1] < 1 || suffix[1] > UINT32_MAX)
		return cli_remote_malformed_index(
		    state, "dciSupplierTable", error, error_size);
	if (cli_remote_read_unsigned(
	        state, varbind, &ticks, error, error_size) != 0)
		return -1;
	supplier = cli_remote_find_supplier(state, (uint32_t)suffix[1]);
	catalogue_check_meet(
	    check, supplier != NULL && supplier->discontinuity_ticks == ticks);
	return 0;
}

/* Walks one column of a table's entry, the callback given the column and
 * the index. */
static int
walk_column(struct remote_state *state, unsigned table, unsigned column,
    cli_remote_walk_callback callback, void *context, char *error,
    size_t error_size)
{
	oid root[REMOTE_OID_MAX];
	size_t entry_length = cli_remote_table_root(table, root);

	root[entry_length] = column;
	return cli_remote_walk_from(state, root, entry_length + 1, entry_length,
	    callback, context, error, error_size);
}

/* Whether the agent's catalogue differs from what read_catalogue read: it
 * restarted, a supplier came, went or was reinitialised, or a class came,
 * went or has another number of datums. Two walks of one column each, so
 * a watch of one class does not read every datum at every interval.
 * Returns 1 or 0, or -1 with the reason in `error`. */
static int
catalogue_changed(struct remote_state *state, char *error, size_t error_size)
{
	struct catalogue_check classes = {0, false}, suppliers = {0, false};

	if (state->restarted)
		return 1;
	if (walk_column(state, SCHEMA_TABLE_CLASS, SCHEMA_CLASS_DATUM_COUNT,
	        datum_count_varbind, &classes, error, error_size) != 0 ||
	    walk_column(state, SCHEMA_TABLE_SUPPLIER,
	        SCHEMA_SUPPLIER_DISCONTINUITY, supplier_time_varbind,
	        &suppliers, error, error_size) != 0)
		return -1;
	return classes.changed || classes.met != state->class_count ||
	       suppliers.changed || suppliers.met != state->supplier_count;
}

/* One class's rows only: each column of dciInstanceTable from the
 * class's index prefix (.1.4.1.COLUMN.LENGTH.CLASS...), then its table
 * under dciClassData (.1.6.CLASS...), so that `show CLASS` and `watch
 * CLASS` cost what that class has, whatever the others have. */
static int
read_class_rows(struct remote_state *state, struct remote_class *class,
    char *error, size_t error_size)
{
	static const unsigned columns[] = {SCHEMA_INSTANCE_LABEL,
	    SCHEMA_INSTANCE_CREATED, SCHEMA_INSTANCE_DISCONTINUITY,
	    SCHEMA_INSTANCE_PARENT};
	oid root[REMOTE_OID_MAX];
	size_t entry_length, length;

	for (size_t c = 0; c < sizeof(columns) / sizeof(*columns); c++) {
		entry_length =
		    cli_remote_table_root(SCHEMA_TABLE_INSTANCE, root);
		length = entry_length;
		root[length++] = columns[c];
		root[length++] = class->id_length;
		for (size_t i = 0; i < class->id_length; i++)
			root[length++] = class->id[i];
		if (cli_remote_walk_from(state, root, length, entry_length,
		        cli_remote_instance_varbind, NULL, error,
		        error_size) != 0)
			return -1;
	}
	entry_length = cli_remote_table_root(SCHEMA_CLASS_DATA, root);
	length = entry_length;
	for (size_t i = 0; i < class->id_length; i++)
		root[length++] = class->id[i];
	return cli_remote_walk_from(state, root, length, entry_length,
	    cli_remote_value_varbind, NULL, error, error_size);
}

/* Reads every registered class's instances and values and commits them
 * as the classes' snapshots, with the agent's creation and discontinuity
 * times. */
static int
remote_refresh(struct cli_source *source, char *error, size_t error_size)
{
	struct remote_state *state = source->state;
	oid root[REMOTE_OID_MAX];
	size_t root_length;

	if (read_uptime(state, error, error_size) != 0)
		return -1;
	if (state->catalogue_read) {
		/* Open has just read it; later refreshes read it again when
		 * the agent's changed (watch.c finds its class again by name
		 * after every refresh). */
		state->catalogue_read = false;
	} else {
		int changed = catalogue_changed(state, error, error_size);
		if (changed < 0 || (changed > 0 && read_catalogue(source, error,
		                                       error_size) != 0))
			return -1;
		state->catalogue_read = false;
	}
	for (size_t c = 0; c < state->class_count; c++) {
		struct remote_class *class = &state->classes[c];
		if (class->class == NULL ||
		    (state->focus >= 0 && (size_t)state->focus != c))
			continue;
		class->builder = dci_snapshot_builder_new(class->class);
		if (class->builder == NULL) {
			discard_builders(state);
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		class->instance_count = 0;
		class->cursor = 0;
		class->instance_words = class->class->instance_words;
	}
	state->pending_count = 0;
	if (state->focus >= 0) {
		if (read_class_rows(state, &state->classes[state->focus], error,
		        error_size) != 0)
			goto fail;
	} else {
		root_length =
		    cli_remote_table_root(SCHEMA_TABLE_INSTANCE, root);
		if (cli_remote_walk(state, root, root_length,
		        cli_remote_instance_varbind, NULL, error,
		        error_size) != 0)
			goto fail;
		root_length = cli_remote_table_root(SCHEMA_CLASS_DATA, root);
		if (cli_remote_walk(state, root, root_length,
		        cli_remote_value_varbind, NULL, error, error_size) != 0)
			goto fail;
	}
	if (cli_remote_read_pending_times(state, error, error_size) != 0)
		goto fail;
	for (size_t c = 0; c < state->class_count; c++) {
		struct remote_class *class = &state->classes[c];
		struct dci_snapshot *snapshot;
		char why[256];

		if (class->builder == NULL)
			continue;
		if (dci_snapshot_commit(class->builder, class->class,
		        state->now_milliseconds, why, sizeof(why)) != 0) {
			class->builder = NULL;
			snprintf(error, error_size,
			    "%s: malformed answer: class %s: %s", state->host,
			    class->label, why);
			goto fail;
		}
		class->builder = NULL;
		snapshot = class->class->snapshot;
		for (size_t i = 0; snapshot != NULL && i < snapshot->count;
		     i++) {
			long position = cli_remote_find_instance(
			    class, dci_snapshot_instance_id(
			               class->class, snapshot, i));
			if (position < 0)
				continue;
			snapshot->instances[i].created_milliseconds =
			    cli_remote_moment_of_ticks(state,
			        class->instances[position].created_ticks);
			snapshot->instances[i].discontinuity_milliseconds =
			    cli_remote_moment_of_ticks(state,
			        class->instances[position].discontinuity_ticks);
		}
	}
	return 0;
fail:
	discard_builders(state);
	return -1;
}

/* The registry's supplier for each remote one: a failed supplier as
 * dcistatd shows one (its module may be a path), others registered with
 * their records. */
static int
register_suppliers(struct remote_state *state, char *error, size_t error_size)
{
	for (size_t i = 0; i < state->supplier_count; i++) {
		struct remote_supplier *remote = &state->suppliers[i];
		struct dci_supplier *supplier;
		char why[256];

		if (remote->status == DCI_SUPPLIER_FAILED) {
			supplier =
			    dci_registry_add_failed_supplier(state->registry,
			        remote->module, remote->failure, NULL);
			if (supplier == NULL) {
				snprintf(error, error_size, "out of memory");
				return -1;
			}
		} else {
			struct dci_supplier_info info = {
			    .module = remote->module,
			    .title = remote->title,
			    .description = remote->description,
			    .type = remote->type,
			    .version = remote->version,
			};
			supplier = dci_registry_add_supplier(state->registry,
			    &info, remote->module, why, sizeof(why));
			if (supplier == NULL) {
				snprintf(error, error_size,
				    "%s: supplier %" PRIu32 ": %s", state->host,
				    remote->remote_index, why);
				return -1;
			}
			memcpy(supplier->reset, remote->reset,
			    sizeof(supplier->reset));
		}
		supplier->discontinuity_milliseconds =
		    cli_remote_moment_of_ticks(
		        state, remote->discontinuity_ticks);
		supplier->last_refresh_milliseconds =
		    cli_remote_moment_of_ticks(
		        state, remote->last_refresh_ticks);
		remote->supplier = supplier;
	}
	return 0;
}

/* The levels of a class an agent before revision 202611251200Z serves
 * (no dciClassLevelTypes or dciClassLevelSizes): types unknown, the
 * instance ids' words split into 4-byte levels, the last taking the
 * rest. */
static void
guess_levels(
    const struct remote_class *class, struct dci_instance_level *levels)
{
	size_t words = class->instance_words >= class->level_count
	                   ? class->instance_words - class->level_count + 1
	                   : 1;

	for (uint32_t l = 0; l < class->level_count; l++)
		levels[l] = (struct dci_instance_level){.itype = 0, .size = 4};
	levels[class->level_count - 1].size = (uint32_t)(4 * words);
}

/* Each class with its datums as the agent describes them; a derived
 * datum's format, presentation, size and semantics are the registry's to
 * set, as they are when a provider registers it. */
static int
register_classes(struct remote_state *state, char *error, size_t error_size)
{
	for (size_t c = 0; c < state->class_count; c++) {
		struct remote_class *class = &state->classes[c];
		struct dci_instance_level levels[DCI_INSTANCE_ID_MAX_WORDS];
		struct dci_datum_info *datums;
		struct remote_supplier *supplier =
		    cli_remote_find_supplier(state, class->supplier_index);
		struct dci_class_info info;
		char why[512], label[REMOTE_QUOTED_SIZE];

		if (supplier == NULL || supplier->supplier == NULL ||
		    class->level_count == 0 || class->datum_count == 0) {
			snprintf(error, error_size,
			    "%s: malformed answer: class \"%s\" has no "
			    "supplier, levels or datums",
			    state->host, cli_remote_quote(label, class->label));
			return -1;
		}
		if (class->level_types_read && class->level_sizes_read) {
			if (!cli_remote_decode_levels(class->level_types,
			        class->level_types_length, class->level_sizes,
			        class->level_sizes_length, class->level_count,
			        levels)) {
				snprintf(error, error_size,
				    "%s: malformed answer: the level types or "
				    "sizes of class \"%s\"",
				    state->host,
				    cli_remote_quote(label, class->label));
				return -1;
			}
		} else
			guess_levels(class, levels);
		datums = calloc(class->datum_count, sizeof(*datums));
		if (datums == NULL) {
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		for (size_t d = 0; d < class->datum_count; d++) {
			datums[d] = class->datums[d].info;
			datums[d].label = class->datums[d].label;
			datums[d].description = class->datums[d].description;
			if (datums[d].type == DCI_ST_DERIVED) {
				datums[d].format = 0;
				datums[d].presentation = 0;
				datums[d].size = 0;
				datums[d].semantics = 0;
			}
		}
		info = (struct dci_class_info){
		    .id = class->id,
		    .id_length = class->id_length,
		    .label = class->label,
		    .description = class->description[0] != '\0'
		                       ? class->description
		                       : NULL,
		    .levels = levels,
		    .level_count = class->level_count,
		    .datums = datums,
		    .datum_count = class->datum_count,
		};
		class->class = dci_registry_add_class(state->registry,
		    supplier->supplier, &info, NULL, why, sizeof(why));
		free(datums);
		if (class->class == NULL) {
			snprintf(error, error_size, "%s: %s", state->host, why);
			return -1;
		}
	}
	return 0;
}

/* The instance words of each class, from its first instance: the MIB
 * gives the level count, not the level sizes. */
static int
first_instance_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	struct cli_remote_index index;
	struct remote_class *class;

	(void)varbind;
	(void)context;
	if (!cli_remote_decode_index(
	        suffix, length, CLI_REMOTE_SHAPE_INSTANCE, &index))
		return cli_remote_malformed_index(
		    state, "dciInstanceTable", error, error_size);
	class =
	    cli_remote_find_class(state, index.class_id, index.class_length);
	if (class != NULL && class->instance_words == 0)
		class->instance_words = index.instance_words;
	return 0;
}

static bool
every_level_size_read(const struct remote_state *state)
{
	for (size_t c = 0; c < state->class_count; c++)
		if (!state->classes[c].level_sizes_read)
			return false;
	return true;
}

static void
remote_wait_until(struct cli_source *source, int64_t deadline)
{
	(void)source;
	for (;;) {
		int64_t now = dci_clock_milliseconds();
		struct timespec pause;
		if (now >= deadline)
			return;
		pause.tv_sec = (time_t)((deadline - now) / 1000);
		pause.tv_nsec = (long)((deadline - now) % 1000) * 1000000L;
		nanosleep(&pause, NULL);
	}
}

static void
remote_close(struct cli_source *source)
{
	struct remote_state *state = source->state;

	if (state == NULL)
		return;
	catalogue_free(state);
	free(state->focus_name);
	free(state->pending);
	if (state->registry != NULL)
		dci_registry_free(state->registry);
	if (state->session != NULL)
		snmp_close(state->session);
	free(state);
}

static const struct cli_source_operations remote_operations = {
    .refresh = remote_refresh,
    .wait_until = remote_wait_until,
    .close = remote_close,
};

/* One of a v3 session's two secrets: the authentication's or the
 * privacy's protocol and the key made from its passphrase. */
struct v3_secret {
	const char *protocol_option;   /* "-a", "-x" */
	const char *protocol_kind;     /* "an authentication protocol" */
	const char *passphrase_option; /* "-A", "-X" */
	const char *key_kind;          /* "authentication", "privacy" */
	int (*lookup)(const char *name);
	oid *(*protocol_oid)(int type, size_t *length);
	oid **protocol;
	size_t *protocol_length;
	u_char *key;
	size_t *key_length; /* in: the key's room */
};

/* Sets `secret`'s protocol `name` and its key from `passphrase`, made with
 * the session's authentication protocol (as Net-SNMP's tools do); `level`
 * names the security level in the message for a missing passphrase. -1
 * with the option at fault in `error`. */
static int
session_v3_secret(const netsnmp_session *session,
    const struct v3_secret *secret, const char *name, const char *passphrase,
    const char *level, char *error, size_t error_size)
{
	int type = secret->lookup(name);
	const oid *protocol =
	    type < 0 ? NULL
	             : secret->protocol_oid(type, secret->protocol_length);

	if (protocol == NULL) {
		snprintf(error, error_size, "%s %.64s: not %s",
		    secret->protocol_option, name, secret->protocol_kind);
		return -1;
	}
	*secret->protocol =
	    snmp_duplicate_objid(protocol, *secret->protocol_length);
	if (passphrase == NULL) {
		snprintf(error, error_size, "-l %s needs %s PASSPHRASE", level,
		    secret->passphrase_option);
		return -1;
	}
	if (generate_Ku(session->securityAuthProto,
	        (u_int)session->securityAuthProtoLen,
	        (const u_char *)passphrase, strlen(passphrase), secret->key,
	        secret->key_length) != SNMPERR_SUCCESS) {
		snprintf(error, error_size,
		    "%s: the %s key cannot be made from it (too short?)",
		    secret->passphrase_option, secret->key_kind);
		return -1;
	}
	return 0;
}

/* The v3 part of a session; -1 with the option at fault in `error`. */
static int
session_v3(netsnmp_session *session, const struct cli_remote_options *options,
    char *error, size_t error_size)
{
	const char *level = options->level ? options->level : "noAuthNoPriv";
	const char *auth =
	    options->auth_protocol ? options->auth_protocol : "SHA";
	const char *privacy =
	    options->privacy_protocol ? options->privacy_protocol : "AES";

	if (options->user == NULL) {
		snprintf(error, error_size, "-v 3 needs -u USER");
		return -1;
	}
	session->securityName = strdup(options->user);
	session->securityNameLen = strlen(options->user);
	if (strcmp(level, "noAuthNoPriv") == 0 || strcmp(level, "1") == 0)
		session->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
	else if (strcmp(level, "authNoPriv") == 0 || strcmp(level, "2") == 0)
		session->securityLevel = SNMP_SEC_LEVEL_AUTHNOPRIV;
	else if (strcmp(level, "authPriv") == 0 || strcmp(level, "3") == 0)
		session->securityLevel = SNMP_SEC_LEVEL_AUTHPRIV;
	else {
		snprintf(error, error_size,
		    "-l %.64s: not noAuthNoPriv, authNoPriv or authPriv",
		    level);
		return -1;
	}
	if (session->securityLevel == SNMP_SEC_LEVEL_NOAUTH)
		return 0;
	session->securityAuthKeyLen = USM_AUTH_KU_LEN;
	if (session_v3_secret(session,
	        &(struct v3_secret){"-a", "an authentication protocol", "-A",
	            "authentication", usm_lookup_auth_type, sc_get_auth_oid,
	            &session->securityAuthProto, &session->securityAuthProtoLen,
	            session->securityAuthKey, &session->securityAuthKeyLen},
	        auth, options->auth_passphrase, level, error, error_size) != 0)
		return -1;
	if (session->securityLevel != SNMP_SEC_LEVEL_AUTHPRIV)
		return 0;
	session->securityPrivKeyLen = USM_PRIV_KU_LEN;
	return session_v3_secret(session,
	    &(struct v3_secret){"-x", "a privacy protocol", "-X", "privacy",
	        usm_lookup_priv_type, sc_get_priv_oid,
	        &session->securityPrivProto, &session->securityPrivProtoLen,
	        session->securityPrivKey, &session->securityPrivKeyLen},
	    privacy, options->privacy_passphrase, "authPriv", error,
	    error_size);
}

int
cli_remote_source_open(struct cli_source *source,
    const struct cli_remote_options *options, char *error, size_t error_size)
{
	static const int no_persistence[] = {
	    NETSNMP_DS_LIB_DONT_PERSIST_STATE,
	    NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD,
	    NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE,
	};
	const char *version = options->version ? options->version : "2c";
	struct remote_state *state = calloc(1, sizeof(*state));
	netsnmp_session session;

	if (state == NULL) {
		snprintf(error, error_size, "out of memory");
		return -1;
	}
	snprintf(state->host, sizeof(state->host), "%s", options->host);
	state->focus = -1;
	source->operations = &remote_operations;
	source->state = state;
	source->registry = NULL;

	/* Nothing of Net-SNMP's persistent state is read or written. */
	for (size_t i = 0; i < sizeof(no_persistence) / sizeof(*no_persistence);
	     i++)
		netsnmp_ds_set_boolean(
		    NETSNMP_DS_LIBRARY_ID, no_persistence[i], 1);
	/* No MIB file is read: every OID here is numeric. */
	setenv("MIBS", "", 1);
	/* Net-SNMP's own messages go through our log, escaped as every
	 * message is (base/log.h): they may quote what the agent sent. */
	dci_netsnmp_log_route();
	init_snmp("dcistat");

	snmp_sess_init(&session);
	session.peername = state->host;
	session.timeout =
	    (long)(options->timeout_milliseconds ? options->timeout_milliseconds
	                                         : 1000) *
	    1000L;
	session.retries = (int)options->retries;
	if (strcmp(version, "1") == 0 || strcmp(version, "2c") == 0) {
		const char *community =
		    options->community ? options->community : "public";
		session.version = strcmp(version, "1") == 0 ? SNMP_VERSION_1
		                                            : SNMP_VERSION_2c;
		session.community = (u_char *)strdup(community);
		session.community_len = strlen(community);
		if (session.version == SNMP_VERSION_1) {
			snprintf(error, error_size,
			    "-v 1 has no GETBULK: use -v 2c or -v 3");
			free(session.community);
			cli_source_close(source);
			return -1;
		}
	} else if (strcmp(version, "3") == 0) {
		session.version = SNMP_VERSION_3;
		if (session_v3(&session, options, error, error_size) != 0) {
			free(session.securityName);
			free(session.securityAuthProto);
			free(session.securityPrivProto);
			cli_source_close(source);
			return -1;
		}
	} else {
		snprintf(
		    error, error_size, "-v %.16s: not 1, 2c or 3", version);
		cli_source_close(source);
		return -1;
	}
	state->session = snmp_open(&session);
	/* snmp_open copies what it keeps. */
	free(session.community);
	free(session.securityName);
	free(session.securityAuthProto);
	free(session.securityPrivProto);
	if (state->session == NULL) {
		snprintf(error, error_size, "%s: %s", state->host,
		    snmp_api_errstring(snmp_errno));
		cli_source_close(source);
		return -1;
	}
	state->registry = dci_registry_new();
	if (state->registry == NULL) {
		snprintf(error, error_size, "out of memory");
		cli_source_close(source);
		return -1;
	}
	source->registry = state->registry;
	if (options->focus_class != NULL) {
		state->focus_name = strdup(options->focus_class);
		if (state->focus_name == NULL) {
			snprintf(error, error_size, "out of memory");
			goto fail;
		}
	}
	if (read_uptime(state, error, error_size) != 0 ||
	    read_catalogue(source, error, error_size) != 0)
		goto fail;
	if (remote_refresh(source, error, error_size) == 0)
		return 0;
fail:
	cli_source_close(source);
	return -1;
}
