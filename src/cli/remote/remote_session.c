/* The SNMP session of the remote source: requests, walks, typed values
 * (remote_state.h). */
#define _GNU_SOURCE
#include "cli/remote/remote_state.h"

/* --- The session and the walk ------------------------------------------ */

const char *
cli_remote_quote(char quoted[REMOTE_QUOTED_SIZE], const char *text)
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
int
cli_remote_request(struct remote_state *state, netsnmp_pdu *request,
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

/* Walks the subtree `root` with GETBULK, in order, calling `callback` for
 * each varbind with the sub-identifiers after the first `suffix_start`
 * (at most root_length) of its name: a walk of one class's rows of a
 * column gives its callback the column and index, as a walk of the whole
 * table does. Every OID must sort after the one before (an agent that
 * goes backwards or repeats would loop) and be at most REMOTE_OID_MAX
 * sub-identifiers. Returns 0, or -1 with the reason in `error`. */
int
cli_remote_walk_from(struct remote_state *state, const oid *root,
    size_t root_length, size_t suffix_start, cli_remote_walk_callback callback,
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
		if (cli_remote_request(
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
int
cli_remote_walk(struct remote_state *state, const oid *root, size_t root_length,
    cli_remote_walk_callback callback, void *context, char *error,
    size_t error_size)
{
	return cli_remote_walk_from(state, root, root_length, root_length,
	    callback, context, error, error_size);
}

/* The root of a table's entry (.1.TABLE.1), as the agent writes it, or of
 * dciClassData (.1.6, the per-class tables have no common entry). `root`
 * has room for SCHEMA_ENTRY_PREFIX_LENGTH sub-identifiers. */
size_t
cli_remote_table_root(unsigned table, oid *root)
{
	schema_entry_prefix(table, root);
	return table == SCHEMA_CLASS_DATA ? SCHEMA_ENTRY_PREFIX_LENGTH - 1
	                                  : SCHEMA_ENTRY_PREFIX_LENGTH;
}

/* --- Reading typed values ------------------------------------------------ */

int
cli_remote_wrong_value(struct remote_state *state,
    const netsnmp_variable_list *varbind, char *error, size_t error_size)
{
	snprintf(error, error_size,
	    "%s: malformed answer: a value of the wrong type or form (ASN.1 "
	    "type 0x%02x)",
	    state->host, (unsigned)varbind->type);
	return -1;
}

int
cli_remote_read_unsigned(struct remote_state *state,
    const netsnmp_variable_list *varbind, uint32_t *value, char *error,
    size_t error_size)
{
	if ((varbind->type != ASN_UNSIGNED && varbind->type != ASN_GAUGE &&
	        varbind->type != ASN_COUNTER &&
	        varbind->type != ASN_TIMETICKS &&
	        varbind->type != ASN_INTEGER) ||
	    varbind->val.integer == NULL)
		return cli_remote_wrong_value(
		    state, varbind, error, error_size);
	*value = (uint32_t)*varbind->val.integer;
	return 0;
}

/* A DisplayString into `text` (text_size bytes, at most 255 used): an
 * embedded NUL, which no string the agent serves has, is refused. */
int
cli_remote_read_string(struct remote_state *state,
    const netsnmp_variable_list *varbind, char *text, size_t text_size,
    char *error, size_t error_size)
{
	if (varbind->type != ASN_OCTET_STR ||
	    (varbind->val_len > 0 && varbind->val.string == NULL))
		return cli_remote_wrong_value(
		    state, varbind, error, error_size);
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
int
cli_remote_read_octets(struct remote_state *state,
    const netsnmp_variable_list *varbind, unsigned char *octets,
    size_t capacity, size_t *length, char *error, size_t error_size)
{
	if (varbind->type != ASN_OCTET_STR ||
	    (varbind->val_len > 0 && varbind->val.string == NULL) ||
	    varbind->val_len > capacity)
		return cli_remote_wrong_value(
		    state, varbind, error, error_size);
	memcpy(octets, varbind->val.string, varbind->val_len);
	*length = varbind->val_len;
	return 0;
}

/* Our monotonic clock at a TimeStamp of the agent; 0 stays 0 ("never"). */
int64_t
cli_remote_moment_of_ticks(const struct remote_state *state, uint32_t ticks)
{
	if (ticks == 0)
		return 0;
	return state->start_milliseconds + (int64_t)ticks * 10;
}
