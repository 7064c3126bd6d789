/* Strict paths (secure_path.h). */
#define _GNU_SOURCE
#include "base/secure_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool secure_path_on;
static uid_t secure_path_user;

void
dci_secure_path_require(bool required, uid_t trusted_user)
{
	secure_path_on = required;
	secure_path_user = trusted_user;
}

bool
dci_secure_path_required(void)
{
	return secure_path_on;
}

/* What gets a refused file past the rule, ending every refusal: the
 * operator's fix first, then the way out for a development tree (every
 * program that applies the rule takes the variable; dcistatd and dcistat
 * also take the option). */
#define SECURE_PATH_WAY_OUT                                                    \
	"; for a development tree, --insecure-paths or "                       \
	"DCISTAT_INSECURE_PATHS=1 (strict paths, see dcistatd(8))"

/* One file or directory of the resolved path: -1 with the reason and what
 * fixes it. */
static int
component_check(
    const char *path, const char *component, char *error, size_t error_size)
{
	struct stat status;

	if (stat(component, &status) != 0) {
		snprintf(error, error_size, "%s: %s: %s", path, component,
		    strerror(errno));
		return -1;
	}
	if (status.st_uid != 0 && status.st_uid != secure_path_user) {
		/* Giving the file to root is a fix; giving a directory (a
		 * home, say) is not one to suggest. */
		if (S_ISDIR(status.st_mode))
			snprintf(error, error_size,
			    "%s: %s is owned by uid %ld, not root%s: refused; "
			    "move the file to a directory only root can "
			    "change (e.g. /etc/dcistat)" SECURE_PATH_WAY_OUT,
			    path, component, (long)status.st_uid,
			    secure_path_user != 0 ? " or dcistatd's user" : "");
		else
			snprintf(error, error_size,
			    "%s: %s is owned by uid %ld, not root%s: refused; "
			    "give it to root (chown root '%s') or move it "
			    "where only root can change it" SECURE_PATH_WAY_OUT,
			    path, component, (long)status.st_uid,
			    secure_path_user != 0 ? " or dcistatd's user" : "",
			    component);
		return -1;
	}
	if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(error, error_size,
		    "%s: %s is writable by %s (mode %04o): refused; "
		    "%s" SECURE_PATH_WAY_OUT,
		    path, component,
		    (status.st_mode & S_IWOTH) != 0 ? "others" : "its group",
		    (unsigned)(status.st_mode & 07777),
		    S_ISDIR(status.st_mode)
		        ? "move the file to a directory only root can change "
		          "(e.g. /etc/dcistat)"
		        : "take the write permission away (chmod go-w) or "
		          "move the file where only root can change it");
		return -1;
	}
	return 0;
}

int
dci_secure_path_check(const char *path, char *error, size_t error_size)
{
	char *resolved, *slash;
	int result = 0;

	if (!secure_path_on)
		return 0;
	resolved = realpath(path, NULL);
	if (resolved == NULL) {
		snprintf(error, error_size, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* The file, then each directory up to /. */
	for (;;) {
		if (component_check(path, resolved[0] ? resolved : "/", error,
		        error_size) != 0) {
			result = -1;
			break;
		}
		if (resolved[0] == '\0')
			break;
		slash = strrchr(resolved, '/');
		if (slash == NULL)
			break;
		*slash = '\0';
	}
	free(resolved);
	return result;
}
