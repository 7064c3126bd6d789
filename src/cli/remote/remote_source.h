/*
 * The remote source of dcistat (src/cli/source.h): DCI-STATS-MIB read with
 * GETBULK from an agent running dcistatd or the snmpd module, by numeric
 * OIDs (no MIB file), into a model registry, so that every command and
 * format of dcistat reads it as it reads the local source.
 *
 * What it reads: sysUpTime.0 (the base of the agent's TimeStamps),
 * dciSupplierTable, dciClassTable, dciDatumTable and, from an agent
 * before revision 202611251200Z (no level sizes), the first column of
 * dciInstanceTable once at open (the registry's suppliers, classes and
 * datums), and again at a refresh when dciClassDatumCount or
 * dciSupplierDiscontinuity differ or sysUpTime went back (the registry is
 * then replaced: callers find their class again by name after every
 * refresh); then at open and at every refresh dciInstanceTable and the
 * per-class tables under dciClassData, or only one class's rows of them
 * (cli_remote_options.focus_class) (each class's snapshot, committed
 * through the model as a provider's batch is, so derived datums are computed
 * here as dcistatd computes them), and with GETs the dciStatText of every
 * absolute ST_TIME value, which the per-class tables give as a TimeStamp
 * (0 for a moment before the agent started). A class's description and
 * its instance levels' types and sizes are read from dciClassTable's
 * columns of revision 202611251200Z, and ST_UNUSED datums from their rows
 * of dciDatumTable, so the registry equals the agent's. An older agent
 * lacks them: its classes have no description, levels of type UNKNOWN
 * whose sizes split the instance ids' words into 4-byte levels (the last
 * taking the rest), and no ST_UNUSED datum.
 *
 * Everything read is untrusted: every length, count and sub-identifier is
 * bounded, and a malformed answer fails the operation with a message
 * naming the OID at fault.
 */
#ifndef DCISTAT_CLI_REMOTE_SOURCE_H
#define DCISTAT_CLI_REMOTE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/source.h"
#include "model/registry.h"

/* The session, in Net-SNMP's spelling: version "1", "2c" or "3"; v2c
 * takes `community`; v3 takes `user`, `level` (noAuthNoPriv, authNoPriv,
 * authPriv), `auth_protocol` (MD5, SHA, SHA-224, SHA-256, SHA-384,
 * SHA-512), `auth_passphrase`, `privacy_protocol` (DES, AES) and
 * `privacy_passphrase`. NULL fields take their defaults (2c, "public",
 * SHA, AES). */
struct cli_remote_options {
	const char *host; /* HOST[:PORT], or any Net-SNMP transport address */
	const char *version;
	const char *community;
	const char *user;
	const char *level;
	const char *auth_protocol;
	const char *auth_passphrase;
	const char *privacy_protocol;
	const char *privacy_passphrase;
	unsigned timeout_milliseconds; /* 0: 1000 */
	unsigned retries;
	/* The one class (label or id, as dci_registry_find_class takes it)
	 * whose instances and values every refresh reads, from that class's
	 * rows only; the others stay without a snapshot. NULL, or a name no
	 * class has: every class. The catalogue (suppliers, classes, datums)
	 * is read whole either way. */
	const char *focus_class;
};

/* Opens a session to the agent and fills a registry from it. Returns 0,
 * or -1 with "HOST: reason" in `error` (a timeout, an agent without
 * DCI-STATS-MIB, a malformed answer). */
int cli_remote_source_open(struct cli_source *source,
    const struct cli_remote_options *options, char *error, size_t error_size);

/* The index shapes of DCI-STATS-MIB's tables (table_index.h):
 *   class     [class_length, class...]
 *   datum     [class_length, class..., datum]
 *   instance  [class_length, class..., instance_words, instance...] */
enum cli_remote_shape {
	CLI_REMOTE_SHAPE_CLASS,
	CLI_REMOTE_SHAPE_DATUM,
	CLI_REMOTE_SHAPE_INSTANCE,
};

struct cli_remote_index {
	uint32_t class_id[DCI_CLASS_ID_MAX_LEVELS];
	size_t class_length;
	uint32_t instance[DCI_INSTANCE_ID_MAX_WORDS];
	size_t instance_words;
	uint32_t datum;
};

/* Decodes an index of `shape` from `subids` (a received OID's
 * sub-identifiers after the column). True only when the index is exactly
 * `length` sub-identifiers long, every length prefix is within its bound
 * (1..DCI_CLASS_ID_MAX_LEVELS, 1..DCI_INSTANCE_ID_MAX_WORDS) and every
 * sub-identifier fits 32 bits; `index` is then filled. Pure: for tests. */
bool cli_remote_decode_index(const uint64_t *subids, size_t length,
    enum cli_remote_shape shape, struct cli_remote_index *index);

/* A signed 64-bit datum's value from its text (the agent serves it only
 * so), as dci_value_render writes it for `presentation`: decimal; "0x" and
 * 1..16 lowercase hex digits of its 64 bits; or 8 dotted octets, most
 * significant first. False for anything else. */
bool cli_remote_parse_text_integer(
    const char *text, uint32_t presentation, int64_t *number);

/* An absolute ST_TIME datum's stored value from its text as
 * dci_value_render writes it: "none" (0); STF_MONOTONIC "S.CC seconds
 * after boot" (centiseconds); STF_CTIME "YYYY-MM-DD hh:mm:ss" UTC
 * (seconds since 1970); STF_5BYTE the same with an optional ".CC"
 * (centiseconds since 1900, below 2^40). False for anything else. */
bool cli_remote_parse_time_text(
    const char *text, const struct dci_datum_info *info, int64_t *value);

/* The instance levels of a class from dciClassLevelTypes (`types`) and
 * dciClassLevelSizes (`sizes`), 4 octets a level, most significant first,
 * into `levels` (room for DCI_INSTANCE_ID_MAX_WORDS). True only when
 * `level_count` (dciClassInstanceLevels) is 1..DCI_INSTANCE_ID_MAX_WORDS,
 * both lengths are 4 * level_count, and every size is a nonzero multiple
 * of 4 with a total of at most 4 * DCI_INSTANCE_ID_MAX_WORDS octets; any
 * 32-bit type is accepted (one this build does not name shows as
 * UNKNOWN). Pure: for tests. */
bool cli_remote_decode_levels(const unsigned char *types, size_t types_length,
    const unsigned char *sizes, size_t sizes_length, size_t level_count,
    struct dci_instance_level *levels);

/*
 * Where a row met in a table walk goes among the `count` rows read so
 * far, kept in ascending index order. The agent gives each column's rows
 * in ascending order (remote_walk_from refuses an OID that does not
 * follow the one before), so the first column's rows each sort after the
 * last one: one comparison says it is new, and no duplicate can arise. A
 * later column's row is the one after the row found last (`*cursor`), or
 * that one again; anything else costs a binary search. A walk is thus
 * linear in its rows.
 *   CLI_REMOTE_ROW_KNOWN   the row at *cursor (set to it);
 *   CLI_REMOTE_ROW_NEW     it sorts after every row: appended;
 *   CLI_REMOTE_ROW_MISSED  it falls between rows without being one (a
 *                            row added while the walk went on): ignored.
 * `compare` orders the row at `position` of `rows` against `key`
 * (negative, 0, positive). Pure: for tests.
 */
enum cli_remote_row {
	CLI_REMOTE_ROW_KNOWN,
	CLI_REMOTE_ROW_NEW,
	CLI_REMOTE_ROW_MISSED,
};
typedef int (*cli_remote_row_compare)(
    const void *rows, size_t position, const void *key);
enum cli_remote_row cli_remote_row_find(const void *rows, size_t count,
    const void *key, cli_remote_row_compare compare, size_t *cursor);

/* The unit whose dciDatumUnits name is `name` (dci_value_unit_name's
 * inverse); false when no unit has that name. */
bool cli_remote_unit_of_name(const char *name, enum dci_unit *unit);

#endif
