/*
 * Strict paths (sshd's StrictModes): a file dcistatd reads its
 * configuration from or loads code from must be one only root, or the
 * daemon's own user, can change. The file and every directory on its path,
 * after symbolic links are resolved (so a link is judged by where it
 * leads), must be owned by root or that user and not writable by group or
 * others. Otherwise anyone who can write one of them could have dcistatd,
 * running as root, load their code.
 *
 * The rule is off until dci_secure_path_require turns it on: dcistatd
 * does, unless told not to for a development tree (--insecure-paths).
 */
#ifndef DCISTAT_BASE_SECURE_PATH_H
#define DCISTAT_BASE_SECURE_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Turns the rule on or off; `trusted_user` may own paths besides root. */
void dci_secure_path_require(bool required, uid_t trusted_user);

/* Whether the rule is on. */
bool dci_secure_path_required(void);

/* 0 when `path` passes the rule (or the rule is off); else -1 with
 * "PATH: WHICH is RULE" in `error`, WHICH the file or directory at fault
 * (a file that cannot be resolved fails too). */
int dci_secure_path_check(const char *path, char *error, size_t error_size);

#endif
