/*
 * bulkwalk: a GETBULK walk that can start inside a subtree and stop after a
 * given number of varbinds, for bench/scale (snmpbulkwalk can do neither).
 *
 *   bulkwalk [-r REPS] [-n MAX] [-c COMMUNITY] PEER ROOT [START]
 *   bulkwalk -m [-r REPS] [-n MAX] [-c COMMUNITY] PEER COLUMN...
 *
 * Walks the subtree ROOT (numeric OID) with SNMPv2c GETBULK requests of REPS
 * repetitions (default 50), starting after START (default ROOT), until MAX
 * varbinds (default: no limit) or the end of the subtree.
 *
 * With -m, walks the columns (numeric OIDs, at most MAX_COLUMNS) side by
 * side as snmptable does: each GETBULK (non-repeaters 0) carries one varbind
 * per column not yet ended, and a column ends at its first varbind outside
 * it. Rows are counted per column; MAX, when given, caps their sum.
 *
 * Prints one line:
 *   COUNT MICROSECONDS REQUESTS LAST-OID
 * Exit status 0, or 1 on an error (message on stderr).
 *
 * Build: cc -O2 -o bulkwalk bulkwalk.c $(net-snmp-config --cflags --libs)
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

#define MAX_COLUMNS 64

static netsnmp_pdu *
ask(netsnmp_session *session, netsnmp_pdu *pdu)
{
	netsnmp_pdu *response = NULL;

	if (snmp_synch_response(session, pdu, &response) != STAT_SUCCESS ||
	    response == NULL || response->errstat != SNMP_ERR_NOERROR) {
		snmp_sess_perror("bulkwalk", session);
		exit(1);
	}
	return response;
}

/* -m: the columns side by side; returns the varbinds counted. */
static long
walk_columns(netsnmp_session *session, long reps, long max, int columns,
    char **names, long *requests, oid *last, size_t *last_length)
{
	struct column {
		oid root[MAX_OID_LEN], current[MAX_OID_LEN];
		size_t root_length, current_length;
		int done;
	} column[MAX_COLUMNS];
	int active = columns;
	long count = 0;

	for (int c = 0; c < columns; c++) {
		column[c].root_length = MAX_OID_LEN;
		if (!read_objid(names[c], column[c].root,
		        &column[c].root_length)) {
			fprintf(stderr, "bulkwalk: bad OID %s\n", names[c]);
			exit(1);
		}
		memcpy(column[c].current, column[c].root,
		    column[c].root_length * sizeof(oid));
		column[c].current_length = column[c].root_length;
		column[c].done = 0;
	}
	while (active > 0 && (max < 0 || count < max)) {
		netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK), *response;
		netsnmp_variable_list *v;
		int asked[MAX_COLUMNS], n = 0, repetition = 0;

		pdu->non_repeaters = 0;
		pdu->max_repetitions = reps;
		for (int c = 0; c < columns; c++)
			if (!column[c].done) {
				snmp_add_null_var(pdu, column[c].current,
				    column[c].current_length);
				asked[n++] = c;
			}
		(*requests)++;
		response = ask(session, pdu);
		/* Repetition after repetition, one varbind per column asked. */
		v = response->variables;
		for (; v != NULL && (max < 0 || count < max);
		     v = v->next_variable, repetition++) {
			struct column *col = &column[asked[repetition % n]];

			if (col->done)
				continue;
			if (v->type == SNMP_ENDOFMIBVIEW ||
			    v->type == SNMP_NOSUCHOBJECT ||
			    v->type == SNMP_NOSUCHINSTANCE ||
			    v->name_length <= col->root_length ||
			    snmp_oid_compare(col->root, col->root_length,
			        v->name, col->root_length) != 0 ||
			    snmp_oid_compare(v->name, v->name_length,
			        col->current, col->current_length) <= 0) {
				col->done = 1;
				active--;
				continue;
			}
			memcpy(col->current, v->name,
			    v->name_length * sizeof(oid));
			col->current_length = v->name_length;
			memcpy(last, v->name, v->name_length * sizeof(oid));
			*last_length = v->name_length;
			count++;
		}
		if (response->variables == NULL)
			active = 0;
		snmp_free_pdu(response);
	}
	return count;
}

int
main(int argc, char **argv)
{
	netsnmp_session settings, *session;
	oid root[MAX_OID_LEN], current[MAX_OID_LEN];
	size_t root_length = MAX_OID_LEN, current_length = MAX_OID_LEN;
	long reps = 50, max = -1, count = 0, requests = 0;
	const char *community = "public";
	char last[1024] = "-";
	long long start;
	int option;
	int done = 0, columns = 0;

	while ((option = getopt(argc, argv, "mr:n:c:")) != -1) {
		switch (option) {
		case 'm': columns = 1; break;
		case 'r': reps = atol(optarg); break;
		case 'n': max = atol(optarg); break;
		case 'c': community = optarg; break;
		default: goto usage;
		}
	}
	if (columns)
		columns = argc - optind - 1;
	if (argc - optind < 2 || (!columns && argc - optind > 3) ||
	    columns > MAX_COLUMNS || reps < 1)
		goto usage;
	init_snmp("bench-bulkwalk");
	netsnmp_ds_set_int(NETSNMP_DS_LIBRARY_ID,
	    NETSNMP_DS_LIB_OID_OUTPUT_FORMAT, NETSNMP_OID_OUTPUT_NUMERIC);
	if (!columns &&
	    (!read_objid(argv[optind + 1], root, &root_length) ||
	        !read_objid(argv[argc - optind == 3 ? optind + 2 : optind + 1],
	            current, &current_length))) {
		fprintf(stderr, "bulkwalk: bad OID\n");
		return 1;
	}
	snmp_sess_init(&settings);
	settings.version = SNMP_VERSION_2c;
	settings.peername = argv[optind];
	settings.community = (u_char *)community;
	settings.community_len = strlen(community);
	settings.timeout = 10 * 1000000L;
	settings.retries = 0;
	session = snmp_open(&settings);
	if (session == NULL) {
		snmp_sess_perror("bulkwalk", &settings);
		return 1;
	}
	start = now_us();
	if (columns) {
		current_length = 0;
		count = walk_columns(session, reps, max, columns,
		    argv + optind + 1, &requests, current, &current_length);
		done = 1;
	}
	while (!done && (max < 0 || count < max)) {
		netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK), *response;
		netsnmp_variable_list *v;

		pdu->non_repeaters = 0;
		pdu->max_repetitions = reps;
		snmp_add_null_var(pdu, current, current_length);
		requests++;
		response = ask(session, pdu);
		for (v = response->variables; v != NULL; v = v->next_variable) {
			if (v->type == SNMP_ENDOFMIBVIEW ||
			    v->type == SNMP_NOSUCHOBJECT ||
			    v->type == SNMP_NOSUCHINSTANCE ||
			    v->name_length < root_length ||
			    snmp_oid_compare(root, root_length, v->name,
			        root_length) != 0 ||
			    snmp_oid_compare(v->name, v->name_length, current,
			        current_length) <= 0) {
				done = 1;
				break;
			}
			memcpy(current, v->name, v->name_length * sizeof(oid));
			current_length = v->name_length;
			if (++count == max)
				break;
		}
		if (response->variables == NULL)
			done = 1;
		snmp_free_pdu(response);
	}
	snprint_objid(last, sizeof(last), current, current_length);
	printf("%ld %lld %ld %s\n", count, now_us() - start, requests, last);
	snmp_close(session);
	return 0;
usage:
	fprintf(stderr,
	    "usage: bulkwalk [-r REPS] [-n MAX] [-c COMMUNITY] PEER ROOT "
	    "[START]\n"
	    "       bulkwalk -m [-r REPS] [-n MAX] [-c COMMUNITY] PEER "
	    "COLUMN...\n");
	return 1;
}
