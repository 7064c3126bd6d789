/*
 * The forms of the configuration's scalar values: what each accepts and
 * how it is converted. Pure functions of the text, so the key tables
 * (config.c) can name them and the unit tests can call them.
 *
 * The `config_parse_` functions have the shape a key table's `parse`
 * takes: they store into the field only when the whole text is accepted.
 */
#ifndef DCISTAT_CONFIG_VALUES_H
#define DCISTAT_CONFIG_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONFIG_PING_INTERVAL_MIN_SECONDS 1u
#define CONFIG_PING_INTERVAL_MAX_SECONDS 3600u
#define CONFIG_BUSY_POLL_MAX_MICROSECONDS 1000u
#define CONFIG_DCI_WORK_MAX_MILLISECONDS 1000u
#define CONFIG_REFRESH_MIN_MILLISECONDS 10u
#define CONFIG_REFRESH_MAX_MILLISECONDS 86400000u
#define CONFIG_STALE_PERIODS_MIN 2u
#define CONFIG_STALE_PERIODS_MAX 1000u

/* The `metric` names of a derived entry, in the order of
 * DCI_UNIT_DERIVED_SUM2... */
extern const char *const config_derivation_names[7];

bool config_is_absolute_path(const char *text);
/* A plug-in name: letters, digits, '_' and '-'. */
bool config_is_module_name(const char *text);
/* A user or group name as useradd takes it. */
bool config_is_user_name(const char *text);
/* stderr, syslog or an absolute path. */
bool config_is_log_target(const char *text);

/* Decimal digits only, advancing *cursor past them; anything above `limit`
 * is reported as limit + 1. False when no digit is at *cursor. */
bool config_parse_whole_number(
    const char **cursor, unsigned long limit, unsigned long *value);

/* "1.2": 1 to DCI_CLASS_ID_MAX_LEVELS dot-separated levels, each
 * 0..2^32-2 (2^32-1 is the DCI_ALL wildcard), into levels and *length. */
bool config_parse_class_id(const char *text, uint32_t *levels, size_t *length);
/* A dci-access key: a class id as above, alone (*words 0) or followed by
 * '/' and an instance id of 1 to DCI_INSTANCE_ID_MAX_WORDS dot-separated
 * words, each 0..2^32-1, into instance and *words: "1.1/3". */
bool config_parse_access_key(const char *text, uint32_t *levels, size_t *length,
    uint32_t *instance, size_t *words);

bool config_parse_boolean(const char *text, void *field);       /* bool */
bool config_parse_ping_interval(const char *text, void *field); /* unsigned */
bool config_parse_busy_poll(const char *text, void *field);     /* unsigned */
bool config_parse_dci_work(const char *text, void *field);      /* unsigned */
/* "SECONDS[.FRACTION]" to unsigned milliseconds, rounded half up; the range
 * is checked on the exact value. */
bool config_parse_refresh(const char *text, void *field);
bool config_parse_stale_periods(const char *text, void *field); /* unsigned */
/* Permission bits in octal, as chmod takes them: "0660", "666". */
bool config_parse_socket_mode(const char *text, void *field); /* unsigned */
bool config_parse_derived_id(const char *text, void *field);  /* uint32_t */
bool config_parse_derivation(const char *text, void *field); /* enum dci_unit */

#endif
