#define _GNU_SOURCE

#include "segment_owner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads the small file `name` of /proc/PID (its directory `directory`)
 * into `text`; its length, or -1. */
static ssize_t
proc_read(int directory, const char *name, char *text, size_t size)
{
	int descriptor = openat(directory, name, O_RDONLY | O_CLOEXEC);
	ssize_t length;

	if (descriptor < 0)
		return -1;
	length = read(descriptor, text, size - 1);
	close(descriptor);
	if (length < 0)
		return -1;
	text[length] = '\0';
	return length;
}

/* Fields 3 (the state) and 22 of /proc/PID/stat; the command name may
 * hold spaces and parentheses, so fields count from its last ')'. */
static bool
stat_fields(const char *text, char *state, unsigned long long *start)
{
	const char *field = strrchr(text, ')');

	if (field == NULL || sscanf(field + 1, " %c", state) != 1)
		return false;
	for (int i = 0; i < 20 && field != NULL; i++)
		field = strchr(field + 1, ' ');
	return field != NULL && sscanf(field + 1, "%llu", start) == 1;
}

/* The real and effective uids of /proc/PID/status's "Uid:" line. */
static bool
status_uids(const char *text, unsigned long *real, unsigned long *effective)
{
	const char *line = strstr(text, "\nUid:");

	return line != NULL &&
	       sscanf(line + 5, "%lu %lu", real, effective) == 2;
}

bool
segment_owner_check(
    uint32_t pid, uint64_t start, uid_t owner, char *why, size_t why_size)
{
	char path[32], text[2048];
	unsigned long long started;
	unsigned long real, effective;
	char state;
	int directory;
	bool alive = true;

	if (pid == 0 || pid > INT32_MAX) {
		snprintf(why, why_size, "it names no process (pid %u)", pid);
		return false;
	}
	if (start == 0) {
		snprintf(why, why_size,
		    "it records no start time for its process %u", pid);
		return false;
	}
	snprintf(path, sizeof(path), "/proc/%u", pid);
	/* Both files read through one directory: a pid reused between the
	 * two reads makes them fail, not mix two processes. */
	directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (directory < 0) {
		if (errno != ENOENT && errno != ESRCH)
			return true;
		snprintf(why, why_size, "its process %u is gone", pid);
		return false;
	}
	if (proc_read(directory, "stat", text, sizeof(text)) <= 0 ||
	    !stat_fields(text, &state, &started)) {
		snprintf(why, why_size, "its process %u is gone", pid);
		alive = false;
	} else if (state == 'Z' || state == 'X') {
		snprintf(why, why_size,
		    "its process %u exited (its parent has not reaped it yet)",
		    pid);
		alive = false;
	} else if (started != start) {
		snprintf(why, why_size,
		    "its process %u is gone (that pid now belongs to a process "
		    "started at %llu, not %llu)",
		    pid, started, (unsigned long long)start);
		alive = false;
	} else if (proc_read(directory, "status", text, sizeof(text)) <= 0 ||
	           !status_uids(text, &real, &effective)) {
		snprintf(why, why_size, "its process %u is gone", pid);
		alive = false;
	} else if (real != owner && effective != owner) {
		snprintf(why, why_size,
		    "its process %u runs as uid %lu, not as the file's owner "
		    "uid %u",
		    pid, effective, (unsigned)owner);
		alive = false;
	}
	close(directory);
	return alive;
}

bool
segment_owner_exists(uint32_t pid)
{
	return pid != 0 && pid <= INT32_MAX &&
	       (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}
