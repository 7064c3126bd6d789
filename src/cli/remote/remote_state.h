/*
 * What the files of dcistat's remote source share (not installed, not
 * used outside src/cli/remote): the state of one session with an agent,
 * the rows read from DCI-STATS-MIB's tables, and the functions of one file
 * another calls. remote_decode.c decodes without Net-SNMP;
 * remote_session.c sends requests, walks and reads typed values;
 * remote_tables.c reads each table's varbinds into the state;
 * remote_source.c refreshes, opens and closes the source.
 */
#ifndef DCISTAT_CLI_REMOTE_STATE_H
#define DCISTAT_CLI_REMOTE_STATE_H

#include "cli/remote/remote_source.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "snmp/mib_oids.h"
#include "snmp/request_name.h"
#include "snmp/netsnmp_log.h"
#include "snmp/table_index.h"
#include "base/clock.h"
#include "model/snapshot.h"
#include "model/value.h"
#include "text/escape.h"

/* GETBULK max-repetitions: large enough that a class of 1,000 instances
 * takes few round trips, small enough that an answer fits an ordinary
 * UDP datagram. */
#define REMOTE_REPETITIONS 40
/* The most varbinds one walk accepts: an agent answering without end
 * (or a loop the increasing-OID check missed) cannot exhaust memory. */
#define REMOTE_WALK_MAX_VARBINDS (16u * 1024u * 1024u)
/* Bounds on what the registry is asked to hold. */
#define REMOTE_SUPPLIERS_MAX 65536u
#define REMOTE_CLASSES_MAX 65536u
#define REMOTE_DATUMS_MAX 4096u                   /* per class */
#define REMOTE_INSTANCES_MAX (4u * 1024u * 1024u) /* per class */
#define REMOTE_OID_MAX 128

struct remote_supplier {
	uint32_t remote_index;
	char module[256], title[256], description[256], failure[256];
	uint32_t type, version, status;
	unsigned char reset[8];
	uint32_t discontinuity_ticks, last_refresh_ticks;
	struct dci_supplier *supplier;
};

struct remote_datum {
	struct dci_datum_info info;
	char label[256], description[256];
};

/* dciClassLevelTypes and dciClassLevelSizes: 4 octets a level. */
#define REMOTE_LEVEL_OCTETS_MAX (4u * DCI_INSTANCE_ID_MAX_WORDS)

/* One instance of a class's refresh in progress: its builder row and
 * TimeStamps. */
struct remote_instance {
	long row;
	uint32_t created_ticks, discontinuity_ticks;
};

struct remote_class {
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
	size_t id_length;
	char label[256], description[256];
	uint32_t level_count, supplier_index;
	/* Revision 202611251200Z's columns, as received; an older agent
	 * serves none (the *_read flags stay false). */
	unsigned char level_types[REMOTE_LEVEL_OCTETS_MAX];
	unsigned char level_sizes[REMOTE_LEVEL_OCTETS_MAX];
	size_t level_types_length, level_sizes_length;
	bool level_types_read, level_sizes_read;
	struct remote_datum *datums; /* ascending ids */
	size_t datum_count, datum_capacity;
	size_t datum_cursor;     /* where the last lookup found a datum */
	struct dci_class *class; /* once registered */
	/* The refresh in progress: instances in the order dciInstanceTable
	 * gives them (ascending ids), their builder rows and TimeStamps. */
	struct dci_snapshot_builder *builder;
	uint32_t *instance_ids; /* instance_count * instance_words */
	struct remote_instance *instances;
	size_t instance_count, instance_capacity, instance_words;
	size_t cursor; /* where the last lookup found an instance */
};

struct remote_pending_time {
	struct remote_class *class;
	size_t position; /* of the instance in the class's refresh */
	const struct dci_datum *datum;
};

struct remote_state {
	netsnmp_session *session;
	char host[256];
	struct dci_registry *registry;
	/* In ascending index order, as a walk meets them
	 * (cli_remote_find_supplier, cli_remote_find_class); each cursor is
	 * where the last lookup found one. */
	struct remote_supplier *suppliers;
	size_t supplier_count, supplier_capacity, supplier_cursor;
	struct remote_class *classes;
	size_t class_count, class_capacity, class_cursor;
	/* The one class a refresh reads (cli_remote_options.focus_class,
	 * copied to focus_name), an index into `classes`; -1 for every
	 * class. */
	char *focus_name;
	long focus;
	/* The agent's sysUpTime went back at the last read_uptime. */
	bool restarted;
	/* read_catalogue has just run: the next refresh need not check. */
	bool catalogue_read;
	/* Absolute ST_TIME values of the refresh in progress: the agent
	 * serves them as TimeStamps, 0 for a moment before it started, so
	 * they are read again as the agent renders them (dciStatText). */
	struct remote_pending_time *pending;
	size_t pending_count, pending_capacity;
	/* Our monotonic clock when the agent's sysUpTime was 0, as read at the
	 * first refresh (cli_remote_moment_of_ticks). */
	int64_t start_milliseconds;
	uint32_t previous_uptime;
	bool started;
	uint32_t uptime_ticks;    /* the agent's sysUpTime at the refresh */
	int64_t now_milliseconds; /* our clock at the same moment */
	int64_t now_unix_milliseconds;
};

/* An outside string in a message: quoted escaped (text/escape.h), cut to
 * REMOTE_QUOTED_SIZE with "..." at the end. */
#define REMOTE_QUOTED_SIZE 96

/* A class id as an index orders it: its length first, then its words. */
struct class_key {
	const uint32_t *id;
	size_t length;
};

/* Called for each varbind under the walked root, with the sub-identifiers
 * after the root (bounded by REMOTE_OID_MAX). Returns 0, or -1 with the
 * reason in `error`. */
typedef int (*cli_remote_walk_callback)(struct remote_state *state,
    const uint64_t *suffix, size_t suffix_length,
    const netsnmp_variable_list *varbind, void *context, char *error,
    size_t error_size);

/* Room for one more of `*count` items of `item_size` bytes in `*items`
 * (`*capacity`, doubled when full): a walk appends row by row, and
 * growing by one each time would copy the table at every row. */
bool cli_remote_room_for_one(
    void **items, size_t *capacity, size_t count, size_t item_size);

const char *cli_remote_quote(char quoted[REMOTE_QUOTED_SIZE], const char *text);

/* Sends `request` (freed in every case) and waits for the answer: 0 with
 * it in `*response` for the caller to free, or -1 with why there is none
 * (a timeout, an error status) in `error`. */
int cli_remote_request(struct remote_state *state, netsnmp_pdu *request,
    netsnmp_pdu **response, char *error, size_t error_size);

/* Walks the subtree `root` with GETBULK, in order, calling `callback` for
 * each varbind with the sub-identifiers after the first `suffix_start`
 * (at most root_length) of its name: a walk of one class's rows of a
 * column gives its callback the column and index, as a walk of the whole
 * table does. Every OID must sort after the one before (an agent that
 * goes backwards or repeats would loop) and be at most REMOTE_OID_MAX
 * sub-identifiers. Returns 0, or -1 with the reason in `error`. */
int cli_remote_walk_from(struct remote_state *state, const oid *root,
    size_t root_length, size_t suffix_start, cli_remote_walk_callback callback,
    void *context, char *error, size_t error_size);

/* Walks the subtree `root`, the callback given what follows it. */
int cli_remote_walk(struct remote_state *state, const oid *root,
    size_t root_length, cli_remote_walk_callback callback, void *context,
    char *error, size_t error_size);

/* The root of a table's entry (.1.TABLE.1), as the agent writes it, or of
 * dciClassData (.1.6, the per-class tables have no common entry). `root`
 * has room for SCHEMA_ENTRY_PREFIX_LENGTH sub-identifiers. */
size_t cli_remote_table_root(unsigned table, oid *root);

int cli_remote_wrong_value(struct remote_state *state,
    const netsnmp_variable_list *varbind, char *error, size_t error_size);

int cli_remote_read_unsigned(struct remote_state *state,
    const netsnmp_variable_list *varbind, uint32_t *value, char *error,
    size_t error_size);

/* A DisplayString into `text` (text_size bytes, at most 255 used): an
 * embedded NUL, which no string the agent serves has, is refused. */
int cli_remote_read_string(struct remote_state *state,
    const netsnmp_variable_list *varbind, char *text, size_t text_size,
    char *error, size_t error_size);

/* An OCTET STRING of at most `capacity` octets into `octets`, its length
 * into `*length`; longer is a malformed answer. */
int cli_remote_read_octets(struct remote_state *state,
    const netsnmp_variable_list *varbind, unsigned char *octets,
    size_t capacity, size_t *length, char *error, size_t error_size);

/* Our monotonic clock at a TimeStamp of the agent; 0 stays 0 ("never"). */
int64_t cli_remote_moment_of_ticks(
    const struct remote_state *state, uint32_t ticks);

struct remote_supplier *cli_remote_find_supplier(
    struct remote_state *state, uint32_t remote_index);

int cli_remote_supplier_varbind(struct remote_state *state,
    const uint64_t *suffix, size_t length, const netsnmp_variable_list *varbind,
    void *context, char *error, size_t error_size);

struct remote_class *cli_remote_find_class(
    struct remote_state *state, const uint32_t *id, size_t id_length);

int cli_remote_malformed_index(struct remote_state *state, const char *table,
    char *error, size_t error_size);

/* The index of a row of `table` in a walk's `suffix` (the column, then the
 * index), of `shape`, into `index`: 0, or -1 with "malformed answer" in
 * `error`. */
int cli_remote_row_index(struct remote_state *state, const char *table,
    const uint64_t *suffix, size_t length, enum cli_remote_shape shape,
    struct cli_remote_index *index, char *error, size_t error_size);

int cli_remote_class_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size);

int cli_remote_datum_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size);

/* The position of instance `id` in the class's refresh, or -1. Values
 * come in instance order, so the cursor's neighbour is tried first. */
long cli_remote_find_instance(struct remote_class *class, const uint32_t *id);

int cli_remote_instance_varbind(struct remote_state *state,
    const uint64_t *suffix, size_t length, const netsnmp_variable_list *varbind,
    void *context, char *error, size_t error_size);

/* Reads the pending times' texts with GETs of up to REMOTE_REPETITIONS
 * varbinds and sets each value. A value gone meanwhile (no such instance)
 * is left unset, as if the refresh had missed it. */
int cli_remote_read_pending_times(
    struct remote_state *state, char *error, size_t error_size);

int cli_remote_value_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size);

#endif
