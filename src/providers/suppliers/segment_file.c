#define _GNU_SOURCE

#include "segment_file.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

_Thread_local sigjmp_buf segment_guard_jump;
_Thread_local volatile sig_atomic_t segment_guard_armed;

static struct sigaction guard_previous;
static bool guard_installed;

static bool
gid_allowed(const struct segment_owners *owners, gid_t gid)
{
	for (size_t i = 0; i < owners->gid_count; i++) {
		if (owners->gids[i] == gid)
			return true;
	}
	return false;
}

/* Whether the user `uid` is a member of an allowed group, supplementary
 * groups included (the documented set-up: usermod -a -G GROUP USER). */
static bool
member_allowed(const struct segment_owners *owners, uid_t uid)
{
	struct passwd entry, *found = NULL;
	char buffer[4096];
	gid_t *groups = NULL;
	int count = 64;
	bool allowed = false;

	if (owners->gid_count == 0 ||
	    getpwuid_r(uid, &entry, buffer, sizeof(buffer), &found) != 0 ||
	    found == NULL)
		return false;
	for (int tries = 0; tries < 2; tries++) {
		int capacity = count;
		gid_t *grown =
		    realloc(groups, (size_t)capacity * sizeof(*groups));
		if (grown == NULL)
			break;
		groups = grown;
		if (getgrouplist(
		        found->pw_name, found->pw_gid, groups, &count) >= 0) {
			for (int i = 0; i < count && !allowed; i++)
				allowed = gid_allowed(owners, groups[i]);
			break;
		}
		if (count <= capacity)
			break;
	}
	free(groups);
	return allowed;
}

static bool
owner_allowed(const struct segment_owners *owners, const struct stat *status)
{
	if (status->st_uid == 0 || status->st_uid == geteuid())
		return true;
	for (size_t i = 0; i < owners->uid_count; i++) {
		if (owners->uids[i] == status->st_uid)
			return true;
	}
	return gid_allowed(owners, status->st_gid) ||
	       member_allowed(owners, status->st_uid);
}

int
segment_file_open(int directory_descriptor, const char *name,
    const struct segment_owners *owners, size_t minimum, size_t maximum,
    struct segment_file *file, char *why, size_t why_size)
{
	struct stat status;
	void *base;

	memset(file, 0, sizeof(*file));
	file->descriptor = openat(directory_descriptor, name,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (file->descriptor < 0) {
		snprintf(why, why_size, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(file->descriptor, &status) != 0 || !S_ISREG(status.st_mode)) {
		snprintf(why, why_size, "not a regular file");
		goto refused;
	}
	if (!owner_allowed(owners, &status)) {
		snprintf(why, why_size,
		    "owned by uid %u gid %u, not a user or group allowed to "
		    "supply (options users, groups)",
		    (unsigned)status.st_uid, (unsigned)status.st_gid);
		goto refused;
	}
	if (status.st_mode & S_IWOTH) {
		snprintf(why, why_size, "writable by any user (mode %o)",
		    (unsigned)(status.st_mode & 07777));
		goto refused;
	}
	if ((uint64_t)status.st_size < minimum ||
	    (uint64_t)status.st_size > maximum) {
		snprintf(why, why_size,
		    "%lld bytes, outside %zu..%zu (option max-segment-size)",
		    (long long)status.st_size, minimum, maximum);
		goto refused;
	}
	base = mmap(NULL, (size_t)status.st_size, PROT_READ, MAP_SHARED,
	    file->descriptor, 0);
	if (base == MAP_FAILED) {
		snprintf(why, why_size, "cannot map: %s", strerror(errno));
		goto refused;
	}
	file->base = base;
	file->size = (size_t)status.st_size;
	file->device = status.st_dev;
	file->inode = status.st_ino;
	file->owner = status.st_uid;
	return 0;

refused:
	close(file->descriptor);
	file->descriptor = -1;
	return -1;
}

void
segment_file_close(struct segment_file *file)
{
	if (file->base != NULL)
		munmap((void *)file->base, file->size);
	if (file->descriptor >= 0)
		close(file->descriptor);
	memset(file, 0, sizeof(*file));
	file->descriptor = -1;
}

static void
guard_handler(int signal_number, siginfo_t *information, void *context)
{
	if (segment_guard_armed) {
		segment_guard_armed = 0;
		siglongjmp(segment_guard_jump, 1);
	}
	/* Not ours: what would have happened without the guard. */
	if (guard_previous.sa_flags & SA_SIGINFO &&
	    guard_previous.sa_sigaction != NULL) {
		guard_previous.sa_sigaction(signal_number, information, context);
		return;
	}
	if (guard_previous.sa_handler != SIG_IGN &&
	    guard_previous.sa_handler != SIG_DFL &&
	    guard_previous.sa_handler != NULL) {
		guard_previous.sa_handler(signal_number);
		return;
	}
	signal(signal_number, SIG_DFL);
	raise(signal_number);
}

int
segment_guard_install(void)
{
	struct sigaction action;

	if (guard_installed)
		return 0;
	memset(&action, 0, sizeof(action));
	action.sa_sigaction = guard_handler;
	action.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&action.sa_mask);
	if (sigaction(SIGBUS, &action, &guard_previous) != 0)
		return -1;
	guard_installed = true;
	return 0;
}

void
segment_guard_uninstall(void)
{
	if (!guard_installed)
		return;
	sigaction(SIGBUS, &guard_previous, NULL);
	guard_installed = false;
}

void
segment_guard_thread(void)
{
	sigset_t bus;

	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
}
