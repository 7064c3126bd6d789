/*
 * dcistatd YAML configuration: reading, validation and the resulting tree.
 *
 * The whole file is validated before anything is returned, so a caller holding
 * a struct dci_config may rely on every documented range and form. Positions
 * are kept so that later checks (plug-in options, loading a module) can report
 * "FILE:LINE:COLUMN: message" against the text the user wrote.
 *
 * Aliases are resolved (libyaml shares the anchored node); a value reached
 * through an alias reports the position of its anchor. Tags are ignored.
 * An `agent`, `providers` or `options` key with an empty value (nothing, `~`
 * or `null`) counts as absent, so that a fully commented-out section is valid.
 */
#ifndef DCISTAT_CONFIG_CONFIG_H
#define DCISTAT_CONFIG_CONFIG_H

#include <dcistat/provider.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/events.h"

#define DCI_CONFIG_DEFAULT_PING_INTERVAL_SECONDS 5u
#define DCI_CONFIG_DEFAULT_REFRESH_MILLISECONDS 1000u
#define DCI_CONFIG_DEFAULT_STALE_PERIODS 3u

/*
 * Bounds on the input, so that no file can keep the reader busy or exhaust
 * memory. The schema nests a handful of levels; a collection nested deeper
 * than DCI_CONFIG_NESTING_MAX is refused at its position. dci_config_load
 * refuses a file longer than DCI_CONFIG_FILE_MAX_BYTES; dci_config_parse
 * takes any length (its time is bounded by the nesting limit).
 */
#define DCI_CONFIG_NESTING_MAX 64u
#define DCI_CONFIG_FILE_MAX_BYTES (1024u * 1024u)

struct dci_config_position {
	const char *file; /* points at dci_config.file */
	unsigned line;    /* 1-based */
	unsigned column;  /* 1-based */
};

struct dci_config_option {
	char *key;
	struct dci_config_position position; /* of the key */
	bool is_sequence; /* value was a YAML sequence of scalars */
	/*
	 * value_count scalars (1 for a scalar), as written: no type
	 * conversion, an empty value is "". Always followed by a NULL entry,
	 * so values is never NULL, even for an empty sequence.
	 */
	char **values;
	size_t value_count;
};

struct dci_config_provider {
	char *module; /* plug-in name ("netif") or absolute path of a .so */
	struct dci_config_position position;        /* of the sequence item */
	struct dci_config_position module_position; /* of the module value */
	unsigned refresh_milliseconds;     /* from `refresh`, default 1000 */
	/* From `stale-periods`, default 3: a class whose snapshot is older
	 * than this many refresh periods has its rows withdrawn. */
	unsigned stale_periods;
	/* From `isolate`, default false: the provider runs in a process of
	 * its own (runtime/isolation.h). */
	bool isolate;
	struct dci_config_option *options; /* in file order, keys unique */
	size_t option_count;
};

/* A derived metric (UMA_DERIVED) declared for a class of any provider:
 * the host adds it to the class when the class registers, as datum
 * (argument bytes << 8 | id), the argument bytes being the low 8 bits of
 * the ids of the datums named by `arguments`. */
struct dci_config_derived {
	struct dci_config_position position; /* of the sequence item */
	uint32_t class_id[DCI_CLASS_ID_MAX_LEVELS];
	size_t class_id_length;
	char *label;
	char *description; /* NULL: not set */
	uint32_t id;       /* 1..255: the datum's own low 8 bits */
	enum dci_unit derivation; /* DCI_UNIT_DERIVED_* */
	/* Datum labels, as many as the derivation takes, with positions. */
	char *arguments[3];
	struct dci_config_position argument_positions[3];
	size_t argument_count;
};

/* agent: in-place-answers: whether the subagent answers the master's Get
 * and GetNext itself (src/agent/agentx_direct.h) or through Net-SNMP's
 * agent. */
enum dci_config_in_place {
	DCI_CONFIG_IN_PLACE_AUTO, /* on the Net-SNMP versions it was tested on */
	DCI_CONFIG_IN_PLACE_ON,
	DCI_CONFIG_IN_PLACE_OFF,
};

/* notifications: data-changed: the datums of one class whose changes
 * are notified (UMA's DCI_DATACHANGED). The class is named by its label
 * or its dotted id, each datum by its label; counters are refused when
 * the class registers (model/events.h). */
#define DCI_CONFIG_WATCHED_DATUMS_MAX DCI_EVENTS_WATCHED_DATUMS_MAX
struct dci_config_watch {
	struct dci_config_position position; /* of the class's key */
	char *class_name;
	char **datums; /* labels, in file order, unique */
	struct dci_config_position *datum_positions;
	size_t datum_count;
};

/* notifications: which kinds are sent (each default on; data changed for
 * the datums `data-changed` lists, none by default) and the rate limit of
 * the instance and data notifications (`rate-limit: N per SECONDS`,
 * default 10 per 60; model/events.h bounds it). */
#define DCI_CONFIG_DEFAULT_NOTIFICATION_LIMIT 10u
#define DCI_CONFIG_DEFAULT_NOTIFICATION_WINDOW_MILLISECONDS 60000
struct dci_config_notifications {
	bool instance_added;
	bool instance_removed;
	bool supplier_failed;
	bool supplier_recovered;
	bool supplier_restarted;
	struct dci_config_watch *data_changed; /* in file order */
	size_t data_changed_count;
	uint32_t rate_limit;
	int64_t rate_window_milliseconds;
};

/* agent: dci-access: one class subtree of the DCI Server
 * (server/dci_access.h), or one instance in it, and who may read it: user
 * and group names as written, checked against the system when the server
 * starts. */
struct dci_config_dci_access {
	struct dci_config_position position; /* of the class id key */
	uint32_t class_id[DCI_CLASS_ID_MAX_LEVELS];
	size_t class_id_length;
	/* The instance id after the key's '/'; 0 words: the whole
	 * subtree. */
	uint32_t instance[DCI_INSTANCE_ID_MAX_WORDS];
	size_t instance_words;
	char **users;
	size_t user_count;
	char **groups;
	size_t group_count;
};

#define DCI_CONFIG_DEFAULT_DCI_SOCKET_MODE 0666u

struct dci_config {
	char *file; /* the path it was read from, or the name given to parse */
	char *agentx_socket; /* NULL: not set (Net-SNMP's default applies) */
	unsigned ping_interval_seconds; /* default 5 */
	enum dci_config_in_place in_place; /* default auto */
	/* agent: busy-poll: how long the subagent polls the master's socket
	 * after an answer given in place before it sleeps (agent/agent.h);
	 * default 0, none. */
	unsigned busy_poll_microseconds;
	char *log_target; /* NULL: not set; else "stderr", "syslog" or a path */
	char *plugin_dir; /* NULL: not set (the build's default applies) */
	char *user; /* NULL: not set; the user to run as once started */
	/* agent: dci-socket: where the DCI Server listens; NULL: no
	 * server. dci-socket-mode: its permission bits (default 0666). */
	char *dci_socket;
	unsigned dci_socket_mode;
	/* agent: dci-work: the daemon's CPU each user's DCI requests may
	 * take, milliseconds per second (server/dci_budget.h); default 20. */
	unsigned dci_work_milliseconds;
	struct dci_config_dci_access *dci_access; /* in file order */
	size_t dci_access_count;
	struct dci_config_provider *providers; /* in file order */
	size_t provider_count;
	struct dci_config_derived *derived; /* top-level `derived`, in order */
	size_t derived_count;
	struct dci_config_notifications notifications;
};

struct dci_registry;

/* Checks the watches of `notifications: data-changed` against the classes
 * registered: a datum a registered class does not have, or one whose
 * changes cannot be watched (dci_events_datum_watchable), is an error
 * "FILE:LINE:COLUMN: ..." (-1); a class no provider registered is logged
 * as a warning only, since an application supplier may register it later.
 * Returns 0 otherwise. */
int dci_config_check_watches(const struct dci_config *config,
    const struct dci_registry *registry, char *error, size_t error_size);

/* Reads "auto", "on" or "off"; false for anything else. */
bool dci_config_parse_in_place(const char *text, enum dci_config_in_place *mode);

/*
 * Reads and validates a configuration file. On error returns -1, writes
 * "FILE:LINE:COLUMN: message" into error (NUL-terminated, truncated to
 * error_size) and sets *config to NULL. Errors without a position (the file
 * cannot be opened or read, out of memory) are written as "FILE: message".
 * error may be NULL when error_size is 0. Returns 0 on success. A
 * configuration that loads no provider (no `providers`, or an empty list) is
 * valid: the agent then serves empty tables, so it is logged as a warning.
 */
int dci_config_load(const char *path, struct dci_config **config, char *error,
    size_t error_size);

/*
 * Same from memory; `name` stands in for the file name in positions and
 * messages. text need not be NUL-terminated.
 */
int dci_config_parse(const char *text, size_t length, const char *name,
    struct dci_config **config, char *error, size_t error_size);

/* Frees a configuration, including a partially built one; NULL is allowed. */
void dci_config_free(struct dci_config *config);

/* Finds an option of a provider by key, or NULL. */
const struct dci_config_option *dci_config_provider_option(
    const struct dci_config_provider *provider, const char *key);

#endif /* DCISTAT_CONFIG_CONFIG_H */
