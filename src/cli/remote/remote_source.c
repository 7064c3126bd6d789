/* The remote source of dcistat (remote_source.h). */
#define _GNU_SOURCE
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

/* .1.3.6.1.2.1.1.3.0, sysUpTime.0: the base of every TimeStamp. */
static const oid uptime_oid[] = {1, 3, 6, 1, 2, 1, 1, 3, 0};

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
	long *rows;
	uint32_t *created_ticks, *discontinuity_ticks;
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
	/* In ascending index order, as a walk meets them (find_supplier,
	 * find_class); each cursor is where the last lookup found one. */
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
	 * first refresh (moment_of_ticks). */
	int64_t start_milliseconds;
	uint32_t previous_uptime;
	bool started;
	uint32_t uptime_ticks;    /* the agent's sysUpTime at the refresh */
	int64_t now_milliseconds; /* our clock at the same moment */
	int64_t now_unix_milliseconds;
};

/* --- Pure decoding ------------------------------------------------------ */

bool
cli_remote_decode_index(const uint64_t *subids, size_t length,
    enum cli_remote_shape shape, struct cli_remote_index *index)
{
	size_t at = 0;

	memset(index, 0, sizeof(*index));
	if (length < 1 || subids[0] < 1 || subids[0] > DCI_CLASS_ID_MAX_LEVELS)
		return false;
	index->class_length = (size_t)subids[0];
	at = 1;
	if (length - at < index->class_length)
		return false;
	for (size_t i = 0; i < index->class_length; i++, at++) {
		if (subids[at] > UINT32_MAX)
			return false;
		index->class_id[i] = (uint32_t)subids[at];
	}
	switch (shape) {
	case CLI_REMOTE_SHAPE_CLASS:
		break;
	case CLI_REMOTE_SHAPE_DATUM:
		if (length - at < 1 || subids[at] > UINT32_MAX)
			return false;
		index->datum = (uint32_t)subids[at++];
		break;
	case CLI_REMOTE_SHAPE_INSTANCE:
		if (length - at < 1 || subids[at] < 1 ||
		    subids[at] > DCI_INSTANCE_ID_MAX_WORDS)
			return false;
		index->instance_words = (size_t)subids[at++];
		if (length - at < index->instance_words)
			return false;
		for (size_t i = 0; i < index->instance_words; i++, at++) {
			if (subids[at] > UINT32_MAX)
				return false;
			index->instance[i] = (uint32_t)subids[at];
		}
		break;
	}
	return at == length;
}

static uint32_t
big_endian_word(const unsigned char *octets)
{
	uint32_t word;

	memcpy(&word, octets, sizeof(word));
	return be32toh(word);
}

bool
cli_remote_decode_levels(const unsigned char *types, size_t types_length,
    const unsigned char *sizes, size_t sizes_length, size_t level_count,
    struct dci_instance_level *levels)
{
	uint64_t total = 0;

	if (level_count < 1 || level_count > DCI_INSTANCE_ID_MAX_WORDS ||
	    types_length != 4 * level_count || sizes_length != 4 * level_count)
		return false;
	for (size_t i = 0; i < level_count; i++) {
		uint32_t size = big_endian_word(sizes + 4 * i);
		if (size < 4 || size % 4 != 0)
			return false;
		total += size;
		levels[i].itype =
		    (enum dci_instance_type)big_endian_word(types + 4 * i);
		levels[i].size = size;
	}
	return total <= 4 * DCI_INSTANCE_ID_MAX_WORDS;
}

bool
cli_remote_unit_of_name(const char *name, enum dci_unit *unit)
{
	/* Units are dense runs from 0 (plain units), 0x10000 (time units)
	 * and 0x20000 (derivations); 256 values of each run cover them. */
	static const unsigned runs[] = {0, 0x10000, 0x20000};

	for (size_t r = 0; r < sizeof(runs) / sizeof(*runs); r++) {
		for (unsigned u = runs[r]; u < runs[r] + 256; u++) {
			if (strcmp(dci_value_unit_name((enum dci_unit)u),
			        name) == 0) {
				*unit = (enum dci_unit)u;
				return true;
			}
		}
	}
	return false;
}

bool
cli_remote_parse_text_integer(
    const char *text, uint32_t presentation, int64_t *number)
{
	uint64_t value = 0;
	const char *at = text;
	char *end;

	if (presentation == DCI_SIP_DECIMAL) {
		long long parsed;
		if (!(*at == '-' || (*at >= '0' && *at <= '9')))
			return false;
		errno = 0;
		parsed = strtoll(at, &end, 10);
		if (errno != 0 || *end != '\0')
			return false;
		*number = (int64_t)parsed;
		return true;
	}
	if (presentation == DCI_SIP_HEXADECIMAL) {
		size_t digits = 0;
		if (strncmp(at, "0x", 2) != 0)
			return false;
		for (at += 2; *at != '\0'; at++, digits++) {
			unsigned digit;
			if (*at >= '0' && *at <= '9')
				digit = (unsigned)(*at - '0');
			else if (*at >= 'a' && *at <= 'f')
				digit = (unsigned)(*at - 'a' + 10);
			else
				return false;
			if (digits >= 16)
				return false;
			value = value << 4 | digit;
		}
		if (digits == 0)
			return false;
		*number = (int64_t)value;
		return true;
	}
	if (presentation == DCI_SIP_DOTTED) {
		/* Eight octets, most significant first. */
		for (int octet = 0; octet < 8; octet++) {
			unsigned long part;
			if (*at < '0' || *at > '9')
				return false;
			part = strtoul(at, &end, 10);
			if (part > 255 || end - at > 3)
				return false;
			value = value << 8 | part;
			at = end;
			if (octet < 7 && *at++ != '.')
				return false;
		}
		if (*at != '\0')
			return false;
		*number = (int64_t)value;
		return true;
	}
	return false;
}

/* "YYYY-MM-DD hh:mm:ss" in UTC into seconds since 1970; `end` gets what
 * follows. */
static bool
parse_date(const char *text, int64_t *seconds, const char **end)
{
	struct tm broken_down = {0};
	int year, month, day, hour, minute, second, used = 0;
	time_t moment;

	if (sscanf(text, "%4d-%2d-%2d %2d:%2d:%2d%n", &year, &month, &day,
	        &hour, &minute, &second, &used) != 6 ||
	    used != 19 || month < 1 || month > 12 || day < 1 || day > 31 ||
	    hour > 23 || minute > 59 || second > 60 || year < 0 || hour < 0 ||
	    minute < 0 || second < 0)
		return false;
	broken_down.tm_year = year - 1900;
	broken_down.tm_mon = month - 1;
	broken_down.tm_mday = day;
	broken_down.tm_hour = hour;
	broken_down.tm_min = minute;
	broken_down.tm_sec = second;
	moment = timegm(&broken_down);
	*seconds = (int64_t)moment;
	*end = text + used;
	return true;
}

/* Digits, a dot and two digits: centiseconds. */
static bool
parse_centiseconds(const char *text, uint64_t *centiseconds, const char **end)
{
	uint64_t whole = 0;
	const char *at = text;

	if (*at < '0' || *at > '9')
		return false;
	for (; *at >= '0' && *at <= '9'; at++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return false;
		whole = whole * 10 + (uint64_t)(*at - '0');
	}
	if (at[0] != '.' || at[1] < '0' || at[1] > '9' || at[2] < '0' ||
	    at[2] > '9' || whole > UINT64_MAX / 100 - 1)
		return false;
	*centiseconds = whole * 100 + (uint64_t)(at[1] - '0') * 10 +
	                (uint64_t)(at[2] - '0');
	*end = at + 3;
	return true;
}

#define SECONDS_1900_TO_1970 2208988800LL

bool
cli_remote_parse_time_text(
    const char *text, const struct dci_datum_info *info, int64_t *value)
{
	const char *end;
	int64_t seconds;
	uint64_t centiseconds;

	if (strcmp(text, "none") == 0) {
		*value = 0;
		return true;
	}
	switch (info->format) {
	case DCI_STF_MONOTONIC:
		if (!parse_centiseconds(text, &centiseconds, &end) ||
		    strcmp(end, " seconds after boot") != 0 ||
		    centiseconds > INT64_MAX)
			return false;
		*value = (int64_t)centiseconds;
		return true;
	case DCI_STF_CTIME:
		if (!parse_date(text, &seconds, &end) || *end != '\0')
			return false;
		*value = seconds;
		return true;
	case DCI_STF_5BYTE:
		if (!parse_date(text, &seconds, &end))
			return false;
		centiseconds = 0;
		if (*end == '.') {
			if (end[1] < '0' || end[1] > '9' || end[2] < '0' ||
			    end[2] > '9' || end[3] != '\0')
				return false;
			centiseconds = (uint64_t)(end[1] - '0') * 10 +
			               (uint64_t)(end[2] - '0');
		} else if (*end != '\0')
			return false;
		if (seconds < -SECONDS_1900_TO_1970 ||
		    seconds > (int64_t)(UINT64_C(1) << 40) / 100)
			return false;
		*value = (seconds + SECONDS_1900_TO_1970) * 100 +
		         (int64_t)centiseconds;
		return *value < (int64_t)(UINT64_C(1) << 40);
	}
	return false;
}

enum cli_remote_row
cli_remote_row_find(const void *rows, size_t count, const void *key,
    cli_remote_row_compare compare, size_t *cursor)
{
	size_t low = 0, high = count;
	int order;

	if (count == 0)
		return CLI_REMOTE_ROW_NEW;
	/* The first column of a walk: every row after the last. */
	order = compare(rows, count - 1, key);
	if (order < 0)
		return CLI_REMOTE_ROW_NEW;
	if (order == 0) {
		*cursor = count - 1;
		return CLI_REMOTE_ROW_KNOWN;
	}
	/* A later column: the row after the one found last, or that one
	 * again (several rows of another table under one class). */
	for (size_t probe = *cursor; probe < *cursor + 2 && probe < count;
	     probe++) {
		if (compare(rows, probe, key) == 0) {
			*cursor = probe;
			return CLI_REMOTE_ROW_KNOWN;
		}
	}
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		order = compare(rows, middle, key);
		if (order == 0) {
			*cursor = middle;
			return CLI_REMOTE_ROW_KNOWN;
		}
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return CLI_REMOTE_ROW_MISSED;
}

/* Room for one more of `*count` items of `item_size` bytes in `*items`
 * (`*capacity`, doubled when full): a walk appends row by row, and
 * growing by one each time would copy the table at every row. */
static bool
room_for_one(void **items, size_t *capacity, size_t count, size_t item_size)
{
	size_t grown_capacity;
	void *grown;

	if (count < *capacity)
		return true;
	grown_capacity = *capacity == 0 ? 16 : *capacity * 2;
	grown = realloc(*items, grown_capacity * item_size);
	if (grown == NULL)
		return false;
	*items = grown;
	*capacity = grown_capacity;
	return true;
}

/* --- The session and the walk ------------------------------------------ */

/* An outside string in a message: quoted escaped (text/escape.h), cut to
 * REMOTE_QUOTED_SIZE with "..." at the end. */
#define REMOTE_QUOTED_SIZE 96

static const char *
remote_quote(char quoted[REMOTE_QUOTED_SIZE], const char *text)
{
	return dci_text_quote(quoted, REMOTE_QUOTED_SIZE, text);
}

static void
format_oid(const oid *name, size_t length, char *text, size_t text_size)
{
	size_t used = 0;

	text[0] = '\0';
	for (size_t i = 0; i < length && used < text_size; i++) {
		int n = snprintf(text + used, text_size - used, ".%" PRIu64,
		    (uint64_t)name[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* Why a request failed, as one line. */
static void
request_failure(struct remote_state *state, int status, netsnmp_pdu *response,
    char *error, size_t error_size)
{
	if (status == STAT_TIMEOUT)
		snprintf(error, error_size,
		    "%s: no answer (timeout; an answer Net-SNMP cannot "
		    "parse is dropped too): is an agent listening there, and "
		    "are the community or user and their keys right?",
		    state->host);
	else if (status == STAT_SUCCESS && response != NULL)
		snprintf(error, error_size, "%s: the agent answered %s",
		    state->host, snmp_errstring((int)response->errstat));
	else
		snprintf(error, error_size, "%s: %s", state->host,
		    snmp_api_errstring(snmp_errno));
}

/* Sends `request` (freed in every case) and waits for the answer: 0 with
 * it in `*response` for the caller to free, or -1 with why there is none
 * (a timeout, an error status) in `error`. */
static int
remote_request(struct remote_state *state, netsnmp_pdu *request,
    netsnmp_pdu **response, char *error, size_t error_size)
{
	int status = snmp_synch_response(state->session, request, response);

	if (status == STAT_SUCCESS && *response != NULL &&
	    (*response)->errstat == SNMP_ERR_NOERROR)
		return 0;
	request_failure(state, status, *response, error, error_size);
	if (*response != NULL)
		snmp_free_pdu(*response);
	*response = NULL;
	return -1;
}

/* Called for each varbind under the walked root, with the sub-identifiers
 * after the root (bounded by REMOTE_OID_MAX). Returns 0, or -1 with the
 * reason in `error`. */
typedef int (*walk_callback)(struct remote_state *state, const uint64_t *suffix,
    size_t suffix_length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size);

/* Walks the subtree `root` with GETBULK, in order, calling `callback` for
 * each varbind with the sub-identifiers after the first `suffix_start`
 * (at most root_length) of its name: a walk of one class's rows of a
 * column gives its callback the column and index, as a walk of the whole
 * table does. Every OID must sort after the one before (an agent that
 * goes backwards or repeats would loop) and be at most REMOTE_OID_MAX
 * sub-identifiers. Returns 0, or -1 with the reason in `error`. */
static int
remote_walk_from(struct remote_state *state, const oid *root,
    size_t root_length, size_t suffix_start, walk_callback callback,
    void *context, char *error, size_t error_size)
{
	oid last[REMOTE_OID_MAX];
	size_t last_length = root_length;
	uint64_t suffix[REMOTE_OID_MAX];
	size_t total = 0;

	memcpy(last, root, root_length * sizeof(oid));
	for (;;) {
		netsnmp_pdu *request = snmp_pdu_create(SNMP_MSG_GETBULK);
		netsnmp_pdu *response = NULL;
		bool done = false;

		request->non_repeaters = 0;
		request->max_repetitions = REMOTE_REPETITIONS;
		snmp_add_null_var(request, last, last_length);
		if (remote_request(
		        state, request, &response, error, error_size) != 0)
			return -1;
		if (response->variables == NULL) {
			snmp_free_pdu(response);
			snprintf(error, error_size,
			    "%s: malformed answer: no varbind", state->host);
			return -1;
		}
		for (netsnmp_variable_list *varbind = response->variables;
		     varbind != NULL; varbind = varbind->next_variable) {
			char text[REMOTE_OID_MAX * 12];

			if (varbind->type == SNMP_ENDOFMIBVIEW ||
			    varbind->type == SNMP_NOSUCHOBJECT ||
			    varbind->type == SNMP_NOSUCHINSTANCE ||
			    varbind->name_length < root_length ||
			    memcmp(varbind->name, root,
			        root_length * sizeof(oid)) != 0) {
				done = true;
				break;
			}
			if (varbind->name_length > REMOTE_OID_MAX ||
			    snmp_oid_compare(varbind->name,
			        varbind->name_length, last, last_length) <= 0) {
				format_oid(varbind->name,
				    varbind->name_length < REMOTE_OID_MAX
				        ? varbind->name_length
				        : REMOTE_OID_MAX,
				    text, sizeof(text));
				snprintf(error, error_size,
				    "%s: malformed answer: %s%s %s",
				    state->host, text,
				    varbind->name_length > REMOTE_OID_MAX
				        ? "..."
				        : "",
				    varbind->name_length > REMOTE_OID_MAX
				        ? "is too long"
				        : "does not follow the OID asked for");
				snmp_free_pdu(response);
				return -1;
			}
			if (++total > REMOTE_WALK_MAX_VARBINDS) {
				snprintf(error, error_size,
				    "%s: more than %u objects under one table",
				    state->host, REMOTE_WALK_MAX_VARBINDS);
				snmp_free_pdu(response);
				return -1;
			}
			for (size_t i = suffix_start; i < varbind->name_length;
			     i++)
				suffix[i - suffix_start] = varbind->name[i];
			if (callback(state, suffix,
			        varbind->name_length - suffix_start, varbind,
			        context, error, error_size) != 0) {
				size_t used = strlen(error);
				/* The OID at fault, formatted only now: a walk
				 * of 30,000 cells should not print each. */
				format_oid(varbind->name, varbind->name_length,
				    text, sizeof(text));
				if (used + 1 < error_size)
					snprintf(error + used,
					    error_size - used, " (at %s)",
					    text);
				snmp_free_pdu(response);
				return -1;
			}
			memcpy(last, varbind->name,
			    varbind->name_length * sizeof(oid));
			last_length = varbind->name_length;
		}
		snmp_free_pdu(response);
		if (done)
			return 0;
	}
}

/* Walks the subtree `root`, the callback given what follows it. */
static int
remote_walk(struct remote_state *state, const oid *root, size_t root_length,
    walk_callback callback, void *context, char *error, size_t error_size)
{
	return remote_walk_from(state, root, root_length, root_length, callback,
	    context, error, error_size);
}

/* The root of a table's entry (.1.TABLE.1), as the agent writes it, or of
 * dciClassData (.1.6, the per-class tables have no common entry). `root`
 * has room for SCHEMA_ENTRY_PREFIX_LENGTH sub-identifiers. */
static size_t
table_root(unsigned table, oid *root)
{
	schema_entry_prefix(table, root);
	return table == SCHEMA_CLASS_DATA ? SCHEMA_ENTRY_PREFIX_LENGTH - 1
	                                  : SCHEMA_ENTRY_PREFIX_LENGTH;
}

/* --- Reading typed values ------------------------------------------------ */

static int
wrong_value(struct remote_state *state, const netsnmp_variable_list *varbind,
    char *error, size_t error_size)
{
	snprintf(error, error_size,
	    "%s: malformed answer: a value of the wrong type or form (ASN.1 "
	    "type 0x%02x)",
	    state->host, (unsigned)varbind->type);
	return -1;
}

static int
read_unsigned(struct remote_state *state, const netsnmp_variable_list *varbind,
    uint32_t *value, char *error, size_t error_size)
{
	if ((varbind->type != ASN_UNSIGNED && varbind->type != ASN_GAUGE &&
	        varbind->type != ASN_COUNTER &&
	        varbind->type != ASN_TIMETICKS &&
	        varbind->type != ASN_INTEGER) ||
	    varbind->val.integer == NULL)
		return wrong_value(state, varbind, error, error_size);
	*value = (uint32_t)*varbind->val.integer;
	return 0;
}

/* A DisplayString into `text` (text_size bytes, at most 255 used): an
 * embedded NUL, which no string the agent serves has, is refused. */
static int
read_string(struct remote_state *state, const netsnmp_variable_list *varbind,
    char *text, size_t text_size, char *error, size_t error_size)
{
	if (varbind->type != ASN_OCTET_STR ||
	    (varbind->val_len > 0 && varbind->val.string == NULL))
		return wrong_value(state, varbind, error, error_size);
	if (varbind->val_len >= text_size ||
	    memchr(varbind->val.string, '\0', varbind->val_len) != NULL) {
		snprintf(error, error_size,
		    "%s: malformed answer: a string too long or with a NUL",
		    state->host);
		return -1;
	}
	memcpy(text, varbind->val.string, varbind->val_len);
	text[varbind->val_len] = '\0';
	return 0;
}

/* An OCTET STRING of at most `capacity` octets into `octets`, its length
 * into `*length`; longer is a malformed answer. */
static int
read_octets(struct remote_state *state, const netsnmp_variable_list *varbind,
    unsigned char *octets, size_t capacity, size_t *length, char *error,
    size_t error_size)
{
	if (varbind->type != ASN_OCTET_STR ||
	    (varbind->val_len > 0 && varbind->val.string == NULL) ||
	    varbind->val_len > capacity)
		return wrong_value(state, varbind, error, error_size);
	memcpy(octets, varbind->val.string, varbind->val_len);
	*length = varbind->val_len;
	return 0;
}

/* Our monotonic clock at a TimeStamp of the agent; 0 stays 0 ("never"). */
static int64_t
moment_of_ticks(const struct remote_state *state, uint32_t ticks)
{
	if (ticks == 0)
		return 0;
	return state->start_milliseconds + (int64_t)ticks * 10;
}

/* --- dciSupplierTable ---------------------------------------------------- */

static int
compare_supplier(const void *rows, size_t position, const void *key)
{
	uint32_t index = ((const struct remote_supplier *)rows)[position]
	                     .remote_index,
	         wanted = *(const uint32_t *)key;

	return index < wanted ? -1 : index > wanted;
}

/* The supplier of `remote_index`, or NULL; `*place` (when not NULL) says
 * whether a new one is to be appended. */
static struct remote_supplier *
find_supplier_placed(struct remote_state *state, uint32_t remote_index,
    enum cli_remote_row *place)
{
	enum cli_remote_row found =
	    cli_remote_row_find(state->suppliers, state->supplier_count,
	        &remote_index, compare_supplier, &state->supplier_cursor);

	if (place != NULL)
		*place = found;
	return found == CLI_REMOTE_ROW_KNOWN
	           ? &state->suppliers[state->supplier_cursor]
	           : NULL;
}

static struct remote_supplier *
find_supplier(struct remote_state *state, uint32_t remote_index)
{
	return find_supplier_placed(state, remote_index, NULL);
}

static int
supplier_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	struct remote_supplier *supplier;
	enum cli_remote_row place;

	(void)context;
	if (length != 2 || suffix[1] < 1 || suffix[1] > UINT32_MAX) {
		snprintf(error, error_size,
		    "%s: malformed answer: a bad dciSupplierTable index",
		    state->host);
		return -1;
	}
	supplier = find_supplier_placed(state, (uint32_t)suffix[1], &place);
	if (place == CLI_REMOTE_ROW_MISSED)
		return 0; /* a row added after its first column's walk */
	if (supplier == NULL) {
		if (state->supplier_count >= REMOTE_SUPPLIERS_MAX) {
			snprintf(error, error_size, "%s: too many suppliers",
			    state->host);
			return -1;
		}
		if (!room_for_one((void **)&state->suppliers,
		        &state->supplier_capacity, state->supplier_count,
		        sizeof(*state->suppliers))) {
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		supplier = &state->suppliers[state->supplier_count++];
		memset(supplier, 0, sizeof(*supplier));
		supplier->remote_index = (uint32_t)suffix[1];
	}
	switch (suffix[0]) {
	case SCHEMA_SUPPLIER_MODULE:
		return read_string(state, varbind, supplier->module,
		    sizeof(supplier->module), error, error_size);
	case SCHEMA_SUPPLIER_TITLE:
		return read_string(state, varbind, supplier->title,
		    sizeof(supplier->title), error, error_size);
	case SCHEMA_SUPPLIER_DESCRIPTION:
		return read_string(state, varbind, supplier->description,
		    sizeof(supplier->description), error, error_size);
	case SCHEMA_SUPPLIER_TYPE:
		return read_unsigned(
		    state, varbind, &supplier->type, error, error_size);
	case SCHEMA_SUPPLIER_VERSION:
		return read_unsigned(
		    state, varbind, &supplier->version, error, error_size);
	case SCHEMA_SUPPLIER_RESET:
		if (varbind->type != ASN_OCTET_STR ||
		    varbind->val_len != sizeof(supplier->reset))
			return wrong_value(state, varbind, error, error_size);
		memcpy(supplier->reset, varbind->val.string,
		    sizeof(supplier->reset));
		return 0;
	case SCHEMA_SUPPLIER_STATUS:
		return read_unsigned(
		    state, varbind, &supplier->status, error, error_size);
	case SCHEMA_SUPPLIER_DISCONTINUITY:
		return read_unsigned(state, varbind,
		    &supplier->discontinuity_ticks, error, error_size);
	case SCHEMA_SUPPLIER_LAST_REFRESH:
		return read_unsigned(state, varbind,
		    &supplier->last_refresh_ticks, error, error_size);
	case SCHEMA_SUPPLIER_FAILURE:
		return read_string(state, varbind, supplier->failure,
		    sizeof(supplier->failure), error, error_size);
	}
	return 0; /* a column of a later MIB revision */
}

/* --- dciClassTable and dciDatumTable ------------------------------------ */

/* A class id as an index orders it: its length first, then its words. */
struct class_key {
	const uint32_t *id;
	size_t length;
};

static int
compare_class(const void *rows, size_t position, const void *key)
{
	const struct remote_class *class =
	    &((const struct remote_class *)rows)[position];
	const struct class_key *wanted = key;

	if (class->id_length != wanted->length)
		return class->id_length < wanted->length ? -1 : 1;
	for (size_t i = 0; i < wanted->length; i++)
		if (class->id[i] != wanted->id[i])
			return class->id[i] < wanted->id[i] ? -1 : 1;
	return 0;
}

static struct remote_class *
find_class_placed(struct remote_state *state, const uint32_t *id,
    size_t id_length, enum cli_remote_row *place)
{
	struct class_key key = {id, id_length};
	enum cli_remote_row found = cli_remote_row_find(state->classes,
	    state->class_count, &key, compare_class, &state->class_cursor);

	if (place != NULL)
		*place = found;
	return found == CLI_REMOTE_ROW_KNOWN
	           ? &state->classes[state->class_cursor]
	           : NULL;
}

static struct remote_class *
find_class(struct remote_state *state, const uint32_t *id, size_t id_length)
{
	return find_class_placed(state, id, id_length, NULL);
}

static int
malformed_index(struct remote_state *state, const char *table, char *error,
    size_t error_size)
{
	snprintf(error, error_size, "%s: malformed answer: a bad %s index",
	    state->host, table);
	return -1;
}

static int
class_varbind(struct remote_state *state, const uint64_t *suffix, size_t length,
    const netsnmp_variable_list *varbind, void *context, char *error,
    size_t error_size)
{
	struct cli_remote_index index;
	struct remote_class *class;
	enum cli_remote_row place;

	(void)context;
	if (length < 1 || !cli_remote_decode_index(suffix + 1, length - 1,
	                      CLI_REMOTE_SHAPE_CLASS, &index))
		return malformed_index(
		    state, "dciClassTable", error, error_size);
	class = find_class_placed(
	    state, index.class_id, index.class_length, &place);
	if (place == CLI_REMOTE_ROW_MISSED)
		return 0; /* a row added after its first column's walk */
	if (class == NULL) {
		if (state->class_count >= REMOTE_CLASSES_MAX) {
			snprintf(error, error_size, "%s: too many classes",
			    state->host);
			return -1;
		}
		if (!room_for_one((void **)&state->classes,
		        &state->class_capacity, state->class_count,
		        sizeof(*state->classes))) {
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		class = &state->classes[state->class_count++];
		memset(class, 0, sizeof(*class));
		memcpy(class->id, index.class_id,
		    index.class_length * sizeof(uint32_t));
		class->id_length = index.class_length;
	}
	switch (suffix[0]) {
	case SCHEMA_CLASS_LABEL:
		return read_string(state, varbind, class->label,
		    sizeof(class->label), error, error_size);
	case SCHEMA_CLASS_INSTANCE_LEVELS:
		if (read_unsigned(state, varbind, &class->level_count, error,
		        error_size) != 0)
			return -1;
		if (class->level_count < 1 ||
		    class->level_count > DCI_INSTANCE_ID_MAX_WORDS) {
			snprintf(error, error_size,
			    "%s: malformed answer: %" PRIu32 " instance levels",
			    state->host, class->level_count);
			return -1;
		}
		return 0;
	case SCHEMA_CLASS_SUPPLIER:
		return read_unsigned(
		    state, varbind, &class->supplier_index, error, error_size);
	case SCHEMA_CLASS_DESCRIPTION:
		return read_string(state, varbind, class->description,
		    sizeof(class->description), error, error_size);
	case SCHEMA_CLASS_LEVEL_TYPES:
		if (read_octets(state, varbind, class->level_types,
		        sizeof(class->level_types), &class->level_types_length,
		        error, error_size) != 0)
			return -1;
		class->level_types_read = true;
		return 0;
	case SCHEMA_CLASS_LEVEL_SIZES:
		if (read_octets(state, varbind, class->level_sizes,
		        sizeof(class->level_sizes), &class->level_sizes_length,
		        error, error_size) != 0)
			return -1;
		class->level_sizes_read = true;
		return 0;
	}
	return 0; /* a column of a later MIB revision */
}

static int
compare_datum(const void *rows, size_t position, const void *key)
{
	uint32_t id = ((const struct remote_datum *)rows)[position].info.id,
	         wanted = *(const uint32_t *)key;

	return id < wanted ? -1 : id > wanted;
}

static int
datum_varbind(struct remote_state *state, const uint64_t *suffix, size_t length,
    const netsnmp_variable_list *varbind, void *context, char *error,
    size_t error_size)
{
	struct cli_remote_index index;
	struct remote_class *class;
	struct remote_datum *datum = NULL;
	enum cli_remote_row place;
	uint32_t number;

	(void)context;
	if (length < 1 || !cli_remote_decode_index(suffix + 1, length - 1,
	                      CLI_REMOTE_SHAPE_DATUM, &index))
		return malformed_index(
		    state, "dciDatumTable", error, error_size);
	class = find_class(state, index.class_id, index.class_length);
	if (class == NULL)
		return 0; /* a class registered since the class table's walk */
	place = cli_remote_row_find(class->datums, class->datum_count,
	    &index.datum, compare_datum, &class->datum_cursor);
	if (place == CLI_REMOTE_ROW_MISSED)
		return 0; /* a row added after its first column's walk */
	if (place == CLI_REMOTE_ROW_KNOWN)
		datum = &class->datums[class->datum_cursor];
	if (datum == NULL) {
		if (class->datum_count >= REMOTE_DATUMS_MAX) {
			char label[REMOTE_QUOTED_SIZE];
			snprintf(error, error_size,
			    "%s: too many datums in class \"%s\"", state->host,
			    remote_quote(label, class->label));
			return -1;
		}
		if (!room_for_one((void **)&class->datums,
		        &class->datum_capacity, class->datum_count,
		        sizeof(*class->datums))) {
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		datum = &class->datums[class->datum_count++];
		memset(datum, 0, sizeof(*datum));
		datum->info.id = index.datum;
	}
	switch (suffix[0]) {
	case SCHEMA_DATUM_LABEL:
		return read_string(state, varbind, datum->label,
		    sizeof(datum->label), error, error_size);
	case SCHEMA_DATUM_DESCRIPTION:
		return read_string(state, varbind, datum->description,
		    sizeof(datum->description), error, error_size);
	case SCHEMA_DATUM_UNITS: {
		char name[256];
		enum dci_unit unit;
		if (read_string(state, varbind, name, sizeof(name), error,
		        error_size) != 0)
			return -1;
		if (!cli_remote_unit_of_name(name, &unit)) {
			char quoted[REMOTE_QUOTED_SIZE];
			snprintf(error, error_size,
			    "%s: unknown unit \"%s\" of datum %" PRIu32,
			    state->host, remote_quote(quoted, name),
			    datum->info.id);
			return -1;
		}
		datum->info.unit = unit;
		return 0;
	}
	case SCHEMA_DATUM_TYPE:
	case SCHEMA_DATUM_FORMAT:
	case SCHEMA_DATUM_PRESENTATION:
	case SCHEMA_DATUM_SIZE:
	case SCHEMA_DATUM_VOLATILITY:
	case SCHEMA_DATUM_SEMANTICS:
		if (read_unsigned(state, varbind, &number, error, error_size) !=
		    0)
			return -1;
		if (suffix[0] == SCHEMA_DATUM_TYPE)
			datum->info.type = (enum dci_type)number;
		else if (suffix[0] == SCHEMA_DATUM_FORMAT)
			datum->info.format = number;
		else if (suffix[0] == SCHEMA_DATUM_PRESENTATION)
			datum->info.presentation = number;
		else if (suffix[0] == SCHEMA_DATUM_SIZE)
			datum->info.size = number;
		else if (suffix[0] == SCHEMA_DATUM_VOLATILITY)
			datum->info.volatility = number;
		else
			datum->info.semantics = (enum dci_semantics)number;
		return 0;
	}
	return 0;
}

/* --- dciInstanceTable ----------------------------------------------------- */

static int
compare_ids(const uint32_t *left, const uint32_t *right, size_t words)
{
	for (size_t i = 0; i < words; i++)
		if (left[i] != right[i])
			return left[i] < right[i] ? -1 : 1;
	return 0;
}

/* The position of instance `id` in the class's refresh, or -1. Values
 * come in instance order, so the cursor's neighbour is tried first. */
static long
find_instance(struct remote_class *class, const uint32_t *id)
{
	size_t low = 0, high = class->instance_count,
	       words = class->instance_words;

	for (size_t probe = class->cursor;
	     probe < class->cursor + 2 && probe < class->instance_count;
	     probe++) {
		if (compare_ids(
		        class->instance_ids + probe * words, id, words) == 0) {
			class->cursor = probe;
			return (long)probe;
		}
	}
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		int order = compare_ids(
		    class->instance_ids + middle * words, id, words);
		if (order == 0) {
			class->cursor = middle;
			return (long)middle;
		}
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return -1;
}

static struct remote_class *
find_registered_class(
    struct remote_state *state, const uint32_t *id, size_t id_length)
{
	struct remote_class *class = find_class(state, id, id_length);

	return class != NULL && class->builder != NULL ? class : NULL;
}

static int
instance_label(struct remote_state *state, struct remote_class *class,
    const struct cli_remote_index *index, const netsnmp_variable_list *varbind,
    char *error, size_t error_size)
{
	char label[DCI_INSTANCE_LABEL_SIZE], why[256];
	size_t words = index->instance_words;
	long row;

	if (read_string(
	        state, varbind, label, sizeof(label), error, error_size) != 0)
		return -1;
	if (class->instance_count == 0 && class->instance_words == 0)
		class->instance_words = words;
	if (words != class->instance_words ||
	    (class->instance_count > 0 &&
	        compare_ids(
	            class->instance_ids + (class->instance_count - 1) * words,
	            index->instance, words) >= 0)) {
		snprintf(error, error_size,
		    "%s: malformed answer: instance ids of class %s out of "
		    "order or of different lengths",
		    state->host, class->label);
		return -1;
	}
	if (class->instance_count == class->instance_capacity) {
		size_t capacity = class->instance_capacity == 0
		                      ? 64
		                      : class->instance_capacity * 2;
		uint32_t *ids, *created, *discontinuity;
		long *rows;
		if (class->instance_count >= REMOTE_INSTANCES_MAX) {
			snprintf(error, error_size,
			    "%s: too many instances in class %s", state->host,
			    class->label);
			return -1;
		}
		ids = realloc(
		    class->instance_ids, capacity * words * sizeof(*ids));
		if (ids != NULL)
			class->instance_ids = ids;
		rows = realloc(class->rows, capacity * sizeof(*rows));
		if (rows != NULL)
			class->rows = rows;
		created =
		    realloc(class->created_ticks, capacity * sizeof(*created));
		if (created != NULL)
			class->created_ticks = created;
		discontinuity = realloc(class->discontinuity_ticks,
		    capacity * sizeof(*discontinuity));
		if (discontinuity != NULL)
			class->discontinuity_ticks = discontinuity;
		if (ids == NULL || rows == NULL || created == NULL ||
		    discontinuity == NULL) {
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		class->instance_capacity = capacity;
	}
	row = dci_snapshot_builder_add(
	    class->builder, index->instance, words, label, why, sizeof(why));
	if (row < 0) {
		snprintf(error, error_size, "%s: class %s: %s", state->host,
		    class->label, why);
		return -1;
	}
	memcpy(class->instance_ids + class->instance_count * words,
	    index->instance, words * sizeof(uint32_t));
	class->rows[class->instance_count] = row;
	class->created_ticks[class->instance_count] = 0;
	class->discontinuity_ticks[class->instance_count] = 0;
	class->instance_count++;
	return 0;
}

/* A RowPointer to the parent's dciInstanceLabel, or zeroDotZero. */
static int
instance_parent(struct remote_state *state, struct remote_class *class,
    long position, const netsnmp_variable_list *varbind, char *error,
    size_t error_size)
{
	oid prefix[SCHEMA_ENTRY_PREFIX_LENGTH];
	size_t prefix_length = table_root(SCHEMA_TABLE_INSTANCE, prefix);
	size_t count = varbind->val_len / sizeof(oid);
	uint64_t subids[REMOTE_OID_MAX];
	struct cli_remote_index parent;
	char why[256];

	if (varbind->type != ASN_OBJECT_ID || varbind->val.objid == NULL)
		return wrong_value(state, varbind, error, error_size);
	if (count == 2 && varbind->val.objid[0] == 0 &&
	    varbind->val.objid[1] == 0)
		return 0;
	if (count <= prefix_length + 1 || count > REMOTE_OID_MAX ||
	    memcmp(varbind->val.objid, prefix, prefix_length * sizeof(oid)) !=
	        0 ||
	    varbind->val.objid[prefix_length] != SCHEMA_INSTANCE_LABEL)
		goto malformed;
	for (size_t i = prefix_length + 1; i < count; i++)
		subids[i - prefix_length - 1] = varbind->val.objid[i];
	if (!cli_remote_decode_index(subids, count - prefix_length - 1,
	        CLI_REMOTE_SHAPE_INSTANCE, &parent) ||
	    parent.class_length != class->id_length ||
	    memcmp(parent.class_id, class->id,
	        class->id_length * sizeof(uint32_t)) != 0 ||
	    parent.instance_words != class->instance_words)
		goto malformed;
	if (dci_snapshot_builder_set_parent(class->builder,
	        class->rows[position], parent.instance, parent.instance_words,
	        why, sizeof(why)) != 0) {
		snprintf(error, error_size, "%s: class %s: %s", state->host,
		    class->label, why);
		return -1;
	}
	return 0;
malformed:
	snprintf(error, error_size,
	    "%s: malformed answer: a parent that is no instance of class %s",
	    state->host, class->label);
	return -1;
}

static int
instance_varbind(struct remote_state *state, const uint64_t *suffix,
    size_t length, const netsnmp_variable_list *varbind, void *context,
    char *error, size_t error_size)
{
	struct cli_remote_index index;
	struct remote_class *class;
	long position;

	(void)context;
	if (length < 1 || !cli_remote_decode_index(suffix + 1, length - 1,
	                      CLI_REMOTE_SHAPE_INSTANCE, &index))
		return malformed_index(
		    state, "dciInstanceTable", error, error_size);
	class =
	    find_registered_class(state, index.class_id, index.class_length);
	if (class == NULL)
		return 0; /* a class registered after this source opened */
	if (suffix[0] == SCHEMA_INSTANCE_LABEL)
		return instance_label(
		    state, class, &index, varbind, error, error_size);
	if (index.instance_words != class->instance_words ||
	    (position = find_instance(class, index.instance)) < 0)
		return 0; /* an instance that came after its label's walk */
	switch (suffix[0]) {
	case SCHEMA_INSTANCE_CREATED:
		return read_unsigned(state, varbind,
		    &class->created_ticks[position], error, error_size);
	case SCHEMA_INSTANCE_DISCONTINUITY:
		return read_unsigned(state, varbind,
		    &class->discontinuity_ticks[position], error, error_size);
	case SCHEMA_INSTANCE_PARENT:
		return instance_parent(
		    state, class, position, varbind, error, error_size);
	}
	return 0;
}

/* --- dciClassData: the values -------------------------------------------- */

/* The stored value of a relative ST_TIME datum (a duration) from its
 * TimeTicks: centiseconds, or seconds for STF_CTIME. Absolute times are
 * read from their text (read_pending_times). */
static uint64_t
duration_of_ticks(const struct dci_datum_info *info, uint32_t ticks)
{
	return info->format == DCI_STF_CTIME ? ticks / 100u : ticks;
}

static int
set_value(struct remote_state *state, struct remote_class *class, long row,
    const struct dci_datum *datum, const netsnmp_variable_list *varbind,
    char *error, size_t error_size)
{
	const struct dci_datum_info *info = &datum->info;
	uint32_t id = info->id;
	char why[256] = "";
	int result = -1;

	/* The registry computes derived datums from their arguments at
	 * commit, as it does for a provider's. */
	if (info->type == DCI_ST_DERIVED)
		return 0;
	switch (datum->kind) {
	case DCI_KIND_COUNTER64:
		if (varbind->type != ASN_COUNTER64 ||
		    varbind->val.counter64 == NULL)
			return wrong_value(state, varbind, error, error_size);
		result =
		    dci_snapshot_builder_set_unsigned(class->builder, row, id,
		        ((uint64_t)varbind->val.counter64->high << 32) |
		            (varbind->val.counter64->low & 0xffffffffu),
		        why, sizeof(why));
		break;
	case DCI_KIND_COUNTER32:
	case DCI_KIND_GAUGE32: {
		uint32_t number;
		if (varbind->type != (datum->kind == DCI_KIND_COUNTER32
		                             ? ASN_COUNTER
		                             : ASN_GAUGE) ||
		    read_unsigned(state, varbind, &number, error, error_size) !=
		        0)
			return wrong_value(state, varbind, error, error_size);
		result = dci_snapshot_builder_set_unsigned(
		    class->builder, row, id, number, why, sizeof(why));
		break;
	}
	case DCI_KIND_INTEGER32:
		if (varbind->type != ASN_INTEGER ||
		    varbind->val.integer == NULL)
			return wrong_value(state, varbind, error, error_size);
		result = dci_snapshot_builder_set_signed(class->builder, row,
		    id, (int64_t)(int32_t)*varbind->val.integer, why,
		    sizeof(why));
		break;
	case DCI_KIND_STRING:
	case DCI_KIND_MACADDRESS:
	case DCI_KIND_IPADDRESS:
		if ((varbind->type != ASN_OCTET_STR &&
		        varbind->type != ASN_IPADDRESS) ||
		    (varbind->val_len > 0 && varbind->val.string == NULL))
			return wrong_value(state, varbind, error, error_size);
		/* The encoder bounds the length by the datum's size. */
		result = dci_snapshot_builder_set_bytes(class->builder, row, id,
		    varbind->val.string, varbind->val_len, why, sizeof(why));
		break;
	case DCI_KIND_TIMETICKS: {
		uint32_t ticks;
		if (varbind->type != ASN_TIMETICKS ||
		    read_unsigned(state, varbind, &ticks, error, error_size) !=
		        0)
			return wrong_value(state, varbind, error, error_size);
		result = dci_snapshot_builder_set_unsigned(class->builder, row,
		    id, duration_of_ticks(info, ticks), why, sizeof(why));
		break;
	}
	case DCI_KIND_TRUTHVALUE: {
		bool truth;
		if (varbind->type != ASN_INTEGER ||
		    varbind->val.integer == NULL ||
		    (*varbind->val.integer != 1 && *varbind->val.integer != 2))
			return wrong_value(state, varbind, error, error_size);
		truth = *varbind->val.integer == 1;
		/* The slot holds the value before SBF_INVERTED. */
		if (info->format & DCI_SBF_INVERTED)
			truth = !truth;
		result = dci_snapshot_builder_set_unsigned(
		    class->builder, row, id, truth ? 1 : 0, why, sizeof(why));
		break;
	}
	case DCI_KIND_TEXT_ONLY: {
		char text[64];
		int64_t number;
		if (read_string(state, varbind, text, sizeof(text), error,
		        error_size) != 0)
			return -1;
		if (!cli_remote_parse_text_integer(
		        text, info->presentation, &number))
			return wrong_value(state, varbind, error, error_size);
		result = dci_snapshot_builder_set_signed(
		    class->builder, row, id, number, why, sizeof(why));
		break;
	}
	default:
		return 0; /* DCI_KIND_NONE: never served */
	}
	if (result != 0) {
		snprintf(error, error_size,
		    "%s: malformed answer: class %s datum %s: %s", state->host,
		    class->label, info->label, why);
		return -1;
	}
	return 0;
}

static int
queue_time(struct remote_state *state, struct remote_class *class,
    size_t position, const struct dci_datum *datum, char *error,
    size_t error_size)
{
	if (state->pending_count == state->pending_capacity) {
		size_t capacity = state->pending_capacity == 0
		                      ? 64
		                      : state->pending_capacity * 2;
		struct remote_pending_time *grown;
		if (capacity > REMOTE_WALK_MAX_VARBINDS)
			return malformed_index(
			    state, "dciClassData", error, error_size);
		grown = realloc(state->pending, capacity * sizeof(*grown));
		if (grown == NULL) {
			snprintf(error, error_size, "out of memory");
			return -1;
		}
		state->pending = grown;
		state->pending_capacity = capacity;
	}
	state->pending[state->pending_count++] =
	    (struct remote_pending_time){class, position, datum};
	return 0;
}

/* The dciStatText OID of a pending time: .1.5.1.3 and the stat index
 * [class_length, class..., instance_words, instance..., datum]. */
static size_t
pending_text_oid(const struct remote_pending_time *pending, oid *name)
{
	const struct remote_class *class = pending->class;
	size_t length = table_root(SCHEMA_TABLE_STAT, name);
	const uint32_t *id =
	    class->instance_ids + pending->position * class->instance_words;

	name[length++] = SCHEMA_STAT_TEXT;
	name[length++] = class->id_length;
	for (size_t i = 0; i < class->id_length; i++)
		name[length++] = class->id[i];
	name[length++] = class->instance_words;
	for (size_t i = 0; i < class->instance_words; i++)
		name[length++] = id[i];
	name[length++] = pending->datum->info.id;
	return length;
}

/* Reads the pending times' texts with GETs of up to REMOTE_REPETITIONS
 * varbinds and sets each value. A value gone meanwhile (no such instance)
 * is left unset, as if the refresh had missed it. */
static int
read_pending_times(struct remote_state *state, char *error, size_t error_size)
{
	for (size_t first = 0; first < state->pending_count;
	     first += REMOTE_REPETITIONS) {
		size_t count = state->pending_count - first;
		netsnmp_pdu *request = snmp_pdu_create(SNMP_MSG_GET);
		netsnmp_pdu *response = NULL;
		netsnmp_variable_list *varbind;

		if (count > REMOTE_REPETITIONS)
			count = REMOTE_REPETITIONS;
		for (size_t i = 0; i < count; i++) {
			oid name[REMOTE_OID_MAX];
			size_t length =
			    pending_text_oid(&state->pending[first + i], name);
			snmp_add_null_var(request, name, length);
		}
		if (remote_request(
		        state, request, &response, error, error_size) != 0)
			return -1;
		varbind = response->variables;
		for (size_t i = 0; i < count; i++) {
			const struct remote_pending_time *pending =
			    &state->pending[first + i];
			const struct dci_datum_info *info =
			    &pending->datum->info;
			char text[64], why[256];
			int64_t value;

			if (varbind == NULL) {
				snprintf(error, error_size,
				    "%s: malformed answer: %zu varbinds "
				    "asked, fewer answered",
				    state->host, count);
				snmp_free_pdu(response);
				return -1;
			}
			if (varbind->type == SNMP_NOSUCHINSTANCE ||
			    varbind->type == SNMP_NOSUCHOBJECT) {
				varbind = varbind->next_variable;
				continue;
			}
			if (read_string(state, varbind, text, sizeof(text),
			        error, error_size) != 0 ||
			    !cli_remote_parse_time_text(text, info, &value)) {
				char quoted[REMOTE_QUOTED_SIZE];
				if (error[0] == '\0' ||
				    strstr(error, "malformed") == NULL)
					snprintf(error, error_size,
					    "%s: malformed answer: time "
					    "\"%s\" of datum %s",
					    state->host,
					    remote_quote(quoted, text),
					    info->label);
				snmp_free_pdu(response);
				return -1;
			}
			if ((info->format == DCI_STF_CTIME
			            ? dci_snapshot_builder_set_signed(
			                  pending->class->builder,
			                  pending
			                      ->class->rows[pending->position],
			                  info->id, value, why, sizeof(why))
			            : dci_snapshot_builder_set_unsigned(
			                  pending->class->builder,
			                  pending
			                      ->class->rows[pending->position],
			                  info->id, (uint64_t)value, why,
			                  sizeof(why))) != 0) {
				snprintf(error, error_size,
				    "%s: malformed answer: datum %s: %s",
				    state->host, info->label, why);
				snmp_free_pdu(response);
				return -1;
			}
			varbind = varbind->next_variable;
		}
		snmp_free_pdu(response);
	}
	return 0;
}

static int
value_varbind(struct remote_state *state, const uint64_t *suffix, size_t length,
    const netsnmp_variable_list *varbind, void *context, char *error,
    size_t error_size)
{
	struct remote_class *class = NULL;
	const struct dci_datum *datum;
	uint32_t instance[DCI_INSTANCE_ID_MAX_WORDS];
	size_t at;
	long position;

	(void)context;
	/* [class..., 1, datum, instance...]: no class id is a prefix of
	 * another, so at most one class matches: the class of the value
	 * before (the cursor), or the one of each length there is. */
	if (state->class_count > 0) {
		struct remote_class *last =
		    &state->classes[state->class_cursor];
		bool match = last->builder != NULL && length > last->id_length;
		for (size_t i = 0; match && i < last->id_length; i++)
			match = suffix[i] == last->id[i];
		if (match)
			class = last;
	}
	for (size_t l = 1;
	     l <= DCI_CLASS_ID_MAX_LEVELS && l < length && class == NULL; l++) {
		uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
		bool fits = true;
		for (size_t i = 0; i < l; i++) {
			fits = fits && suffix[i] <= UINT32_MAX;
			id[i] = (uint32_t)suffix[i];
		}
		if (fits)
			class = find_registered_class(state, id, l);
	}
	if (class == NULL)
		return 0; /* a class registered after this source opened */
	at = class->id_length;
	if (length - at < 2 || suffix[at] != 1 || suffix[at + 1] > UINT32_MAX ||
	    length - at - 2 != class->instance_words ||
	    class->instance_words == 0)
		return malformed_index(
		    state, "dciClassData", error, error_size);
	datum = dci_class_find_datum(class->class, (uint32_t)suffix[at + 1]);
	for (size_t i = 0; i < class->instance_words; i++) {
		if (suffix[at + 2 + i] > UINT32_MAX)
			return malformed_index(
			    state, "dciClassData", error, error_size);
		instance[i] = (uint32_t)suffix[at + 2 + i];
	}
	if (datum == NULL || (position = find_instance(class, instance)) < 0)
		return 0; /* came after the instance table's walk */
	if (datum->kind == DCI_KIND_TIMETICKS &&
	    datum->info.presentation != DCI_STP_RELATIVE)
		return queue_time(
		    state, class, (size_t)position, datum, error, error_size);
	return set_value(state, class, class->rows[position], datum, varbind,
	    error, error_size);
}

/* --- Refresh and open --------------------------------------------------- */

static int
read_uptime(struct remote_state *state, char *error, size_t error_size)
{
	netsnmp_pdu *request = snmp_pdu_create(SNMP_MSG_GET), *response = NULL;
	struct timespec now;

	snmp_add_null_var(
	    request, uptime_oid, sizeof(uptime_oid) / sizeof(*uptime_oid));
	if (remote_request(state, request, &response, error, error_size) != 0)
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
	clock_gettime(CLOCK_REALTIME, &now);
	state->now_unix_milliseconds =
	    (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
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
		free(class->rows);
		free(class->created_ticks);
		free(class->discontinuity_ticks);
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
	root_length = table_root(SCHEMA_TABLE_SUPPLIER, root);
	if (remote_walk(state, root, root_length, supplier_varbind, NULL, error,
	        error_size) != 0)
		return -1;
	root_length = table_root(SCHEMA_TABLE_CLASS, root);
	if (remote_walk(state, root, root_length, class_varbind, NULL, error,
	        error_size) != 0)
		return -1;
	root_length = table_root(SCHEMA_TABLE_DATUM, root);
	if (remote_walk(state, root, root_length, datum_varbind, NULL, error,
	        error_size) != 0)
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
		root_length = table_root(SCHEMA_TABLE_INSTANCE, root);
		root[root_length++] = SCHEMA_INSTANCE_LABEL;
		if (remote_walk(state, root, root_length,
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

	if (length < 1 || !cli_remote_decode_index(suffix + 1, length - 1,
	                      CLI_REMOTE_SHAPE_CLASS, &index))
		return malformed_index(
		    state, "dciClassTable", error, error_size);
	if (read_unsigned(state, varbind, &count, error, error_size) != 0)
		return -1;
	class = find_class(state, index.class_id, index.class_length);
	if (class == NULL || class->datum_count != count)
		check->changed = true;
	else
		check->met++;
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
		return malformed_index(
		    state, "dciSupplierTable", error, error_size);
	if (read_unsigned(state, varbind, &ticks, error, error_size) != 0)
		return -1;
	supplier = find_supplier(state, (uint32_t)suffix[1]);
	if (supplier == NULL || supplier->discontinuity_ticks != ticks)
		check->changed = true;
	else
		check->met++;
	return 0;
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
	oid root[REMOTE_OID_MAX];
	size_t entry_length, root_length;

	if (state->restarted)
		return 1;
	entry_length = table_root(SCHEMA_TABLE_CLASS, root);
	root_length = entry_length;
	root[root_length++] = SCHEMA_CLASS_DATUM_COUNT;
	if (remote_walk_from(state, root, root_length, entry_length,
	        datum_count_varbind, &classes, error, error_size) != 0)
		return -1;
	entry_length = table_root(SCHEMA_TABLE_SUPPLIER, root);
	root_length = entry_length;
	root[root_length++] = SCHEMA_SUPPLIER_DISCONTINUITY;
	if (remote_walk_from(state, root, root_length, entry_length,
	        supplier_time_varbind, &suppliers, error, error_size) != 0)
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
		entry_length = table_root(SCHEMA_TABLE_INSTANCE, root);
		length = entry_length;
		root[length++] = columns[c];
		root[length++] = class->id_length;
		for (size_t i = 0; i < class->id_length; i++)
			root[length++] = class->id[i];
		if (remote_walk_from(state, root, length, entry_length,
		        instance_varbind, NULL, error, error_size) != 0)
			return -1;
	}
	entry_length = table_root(SCHEMA_CLASS_DATA, root);
	length = entry_length;
	for (size_t i = 0; i < class->id_length; i++)
		root[length++] = class->id[i];
	return remote_walk_from(state, root, length, entry_length,
	    value_varbind, NULL, error, error_size);
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
		root_length = table_root(SCHEMA_TABLE_INSTANCE, root);
		if (remote_walk(state, root, root_length, instance_varbind,
		        NULL, error, error_size) != 0)
			goto fail;
		root_length = table_root(SCHEMA_CLASS_DATA, root);
		if (remote_walk(state, root, root_length, value_varbind, NULL,
		        error, error_size) != 0)
			goto fail;
	}
	if (read_pending_times(state, error, error_size) != 0)
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
			long position = find_instance(
			    class, dci_snapshot_instance_id(
			               class->class, snapshot, i));
			if (position < 0)
				continue;
			snapshot->instances[i].created_milliseconds =
			    moment_of_ticks(
			        state, class->created_ticks[position]);
			snapshot->instances[i].discontinuity_milliseconds =
			    moment_of_ticks(
			        state, class->discontinuity_ticks[position]);
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
		    moment_of_ticks(state, remote->discontinuity_ticks);
		supplier->last_refresh_milliseconds =
		    moment_of_ticks(state, remote->last_refresh_ticks);
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
		    find_supplier(state, class->supplier_index);
		struct dci_class_info info;
		char why[512], label[REMOTE_QUOTED_SIZE];

		if (supplier == NULL || supplier->supplier == NULL ||
		    class->level_count == 0 || class->datum_count == 0) {
			snprintf(error, error_size,
			    "%s: malformed answer: class \"%s\" has no "
			    "supplier, levels or datums",
			    state->host, remote_quote(label, class->label));
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
				    remote_quote(label, class->label));
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
		return malformed_index(
		    state, "dciInstanceTable", error, error_size);
	class = find_class(state, index.class_id, index.class_length);
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
	source->state = NULL;
	source->registry = NULL;
}

static const struct cli_source_operations remote_operations = {
    .refresh = remote_refresh,
    .wait_until = remote_wait_until,
    .close = remote_close,
};

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
	{
		int type = usm_lookup_auth_type(auth);
		const oid *protocol =
		    type < 0
		        ? NULL
		        : sc_get_auth_oid(type, &session->securityAuthProtoLen);
		if (protocol == NULL) {
			snprintf(error, error_size,
			    "-a %.64s: not an authentication protocol", auth);
			return -1;
		}
		session->securityAuthProto = snmp_duplicate_objid(
		    protocol, session->securityAuthProtoLen);
	}
	if (options->auth_passphrase == NULL) {
		snprintf(error, error_size, "-l %s needs -A PASSPHRASE", level);
		return -1;
	}
	session->securityAuthKeyLen = USM_AUTH_KU_LEN;
	if (generate_Ku(session->securityAuthProto,
	        (u_int)session->securityAuthProtoLen,
	        (const u_char *)options->auth_passphrase,
	        strlen(options->auth_passphrase), session->securityAuthKey,
	        &session->securityAuthKeyLen) != SNMPERR_SUCCESS) {
		snprintf(error, error_size,
		    "-A: the authentication key cannot be made from it (too "
		    "short?)");
		return -1;
	}
	if (session->securityLevel != SNMP_SEC_LEVEL_AUTHPRIV)
		return 0;
	{
		int type = usm_lookup_priv_type(privacy);
		const oid *protocol =
		    type < 0
		        ? NULL
		        : sc_get_priv_oid(type, &session->securityPrivProtoLen);
		if (protocol == NULL) {
			snprintf(error, error_size,
			    "-x %.64s: not a privacy protocol", privacy);
			return -1;
		}
		session->securityPrivProto = snmp_duplicate_objid(
		    protocol, session->securityPrivProtoLen);
	}
	if (options->privacy_passphrase == NULL) {
		snprintf(error, error_size, "-l authPriv needs -X PASSPHRASE");
		return -1;
	}
	session->securityPrivKeyLen = USM_PRIV_KU_LEN;
	if (generate_Ku(session->securityAuthProto,
	        (u_int)session->securityAuthProtoLen,
	        (const u_char *)options->privacy_passphrase,
	        strlen(options->privacy_passphrase), session->securityPrivKey,
	        &session->securityPrivKeyLen) != SNMPERR_SUCCESS) {
		snprintf(error, error_size,
		    "-X: the privacy key cannot be made from it (too short?)");
		return -1;
	}
	return 0;
}

int
cli_remote_source_open(struct cli_source *source,
    const struct cli_remote_options *options, char *error, size_t error_size)
{
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

	/* No MIB file is read: every OID here is numeric. */
	netsnmp_ds_set_boolean(
	    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	netsnmp_ds_set_boolean(
	    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(
	    NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
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
			remote_close(source);
			return -1;
		}
	} else if (strcmp(version, "3") == 0) {
		session.version = SNMP_VERSION_3;
		if (session_v3(&session, options, error, error_size) != 0) {
			free(session.securityName);
			free(session.securityAuthProto);
			free(session.securityPrivProto);
			remote_close(source);
			return -1;
		}
	} else {
		snprintf(
		    error, error_size, "-v %.16s: not 1, 2c or 3", version);
		remote_close(source);
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
		remote_close(source);
		return -1;
	}
	state->registry = dci_registry_new();
	if (state->registry == NULL) {
		snprintf(error, error_size, "out of memory");
		remote_close(source);
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
	remote_close(source);
	return -1;
}
