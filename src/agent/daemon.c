/* dcistatd going into the background (daemon.h). */
#define _GNU_SOURCE
#include "agent/daemon.h"
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

/* Replaces the pid file's content with this process's pid. */
static int
pid_file_write(struct agent_daemon *background)
{
	char text[32];
	int length = snprintf(text, sizeof(text), "%ld\n", (long)getpid());

	if (ftruncate(background->pid_file, 0) != 0 ||
	    pwrite(background->pid_file, text, (size_t)length, 0) != length)
		return -1;
	return 0;
}

/* The pid another process wrote into the file, or 0. */
static long
pid_file_holder(int file)
{
	char text[32];
	ssize_t length = pread(file, text, sizeof(text) - 1, 0);

	if (length <= 0)
		return 0;
	text[length] = '\0';
	return strtol(text, NULL, 10);
}

/* The daemon whose pid file goes if it exits on an error (fatal()). */
static struct agent_daemon *pid_file_owner;

static void
pid_file_remove_at_exit(void)
{
	if (pid_file_owner != NULL)
		agent_daemon_pid_file_remove(pid_file_owner);
}

int
agent_daemon_pid_file_open(struct agent_daemon *background, const char *path,
    char *error, size_t error_size)
{
	struct stat status;
	int file;

	background->pid_file = -1;
	background->pid_path = NULL;
	background->ready_pipe = -1;
	/* O_NONBLOCK: opening a FIFO must not wait for a reader. */
	file = open(
	    path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (file < 0) {
		snprintf(error, error_size, "pid file %s: %s%s", path,
		    strerror(errno),
		    errno == ELOOP ? " (a symbolic link: refused)" : "");
		return -1;
	}
	if (fstat(file, &status) != 0 || !S_ISREG(status.st_mode)) {
		snprintf(
		    error, error_size, "pid file %s: not a regular file", path);
		close(file);
		return -1;
	}
	if (flock(file, LOCK_EX | LOCK_NB) != 0) {
		long holder = pid_file_holder(file);

		if (errno == EWOULDBLOCK)
			snprintf(error, error_size,
			    "pid file %s: locked by a running dcistatd "
			    "(pid %ld)",
			    path, holder);
		else
			snprintf(error, error_size, "pid file %s: lock: %s",
			    path, strerror(errno));
		close(file);
		return -1;
	}
	background->pid_file = file;
	background->pid_device = status.st_dev;
	background->pid_inode = status.st_ino;
	background->pid_path = strdup(path);
	if (background->pid_path == NULL || pid_file_write(background) != 0) {
		snprintf(error, error_size, "pid file %s: cannot write: %s",
		    path, strerror(errno));
		agent_daemon_pid_file_remove(background);
		return -1;
	}
	if (pid_file_owner == NULL)
		atexit(pid_file_remove_at_exit);
	pid_file_owner = background;
	return 0;
}

/* The starting process: waits for the daemon's word and exits with it. A
 * daemon that exits first closes the pipe without a word: status 1. */
static void __attribute__((noreturn)) starter_wait(int pipe)
{
	unsigned char word = 1;
	ssize_t got;

	do
		got = read(pipe, &word, 1);
	while (got < 0 && errno == EINTR);
	if (got != 1 || word != 0) {
		fprintf(stderr, "dcistatd: the daemon stopped during its "
		                "start-up (its reason is in its log)\n");
		_exit(1);
	}
	_exit(0);
}

void
agent_daemon_close_inherited(void)
{
	DIR *directory;
	struct dirent *item;
	int *found = NULL;
	size_t count = 0;

	if (close_range(3, ~0u, 0) == 0)
		return;
	/* A kernel without close_range (before 5.9): the descriptors open,
	 * as /proc lists them, read whole before any is closed. */
	directory = opendir("/proc/self/fd");
	if (directory == NULL) {
		long maximum = sysconf(_SC_OPEN_MAX);
		for (long fd = 3; fd < (maximum > 0 ? maximum : 1024); fd++)
			close((int)fd);
		return;
	}
	while ((item = readdir(directory)) != NULL) {
		char *end;
		long fd = strtol(item->d_name, &end, 10);
		int *grown;

		if (*end != '\0' || end == item->d_name || fd < 3 ||
		    fd == dirfd(directory))
			continue;
		grown = realloc(found, (count + 1) * sizeof(*grown));
		if (grown == NULL)
			break;
		found = grown;
		found[count++] = (int)fd;
	}
	closedir(directory);
	for (size_t i = 0; i < count; i++)
		close(found[i]);
	free(found);
}

int
agent_daemon_detach(struct agent_daemon *background)
{
	int pipe[2], null;
	pid_t pid;

	if (pipe2(pipe, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipe[0]);
		close(pipe[1]);
		return -1;
	}
	if (pid > 0) {
		close(pipe[1]);
		starter_wait(pipe[0]);
	}
	close(pipe[0]);
	background->ready_pipe = pipe[1];
	setsid();
	if (chdir("/") != 0)
		return -1;
	/* Standard error stays the caller's until ready: what fails first
	 * can still be seen there. */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	if (background->pid_file >= 0 && pid_file_write(background) != 0)
		return -1;
	return 0;
}

/* sd_notify when systemd asked for it (NOTIFY_SOCKET); nothing else. */
static void
service_manager_tell(const char *state)
{
#ifdef HAVE_SYSTEMD
	sd_notifyf(0, "%s\nMAINPID=%lu", state, (unsigned long)getpid());
#else
	(void)state;
#endif
}

void
agent_daemon_reloading(void)
{
	service_manager_tell("RELOADING=1");
}

void
agent_daemon_reloaded(void)
{
	service_manager_tell("READY=1");
}

void
agent_daemon_stopping(void)
{
	service_manager_tell("STOPPING=1");
}

void
agent_daemon_ready(struct agent_daemon *background)
{
	unsigned char word = 0;
	int null;

	service_manager_tell("READY=1");
	if (background->ready_pipe < 0)
		return;
	if (write(background->ready_pipe, &word, 1) != 1) {
		/* The starting process is gone: nobody to tell. */
	}
	close(background->ready_pipe);
	background->ready_pipe = -1;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
}

void
agent_daemon_pid_file_remove(struct agent_daemon *background)
{
	struct stat status;

	if (background->pid_file < 0)
		return;
	if (background->pid_path != NULL &&
	    lstat(background->pid_path, &status) == 0 &&
	    status.st_dev == background->pid_device &&
	    status.st_ino == background->pid_inode)
		unlink(background->pid_path);
	close(background->pid_file);
	background->pid_file = -1;
	free(background->pid_path);
	background->pid_path = NULL;
}

int
agent_daemon_user_find(const char *name, struct agent_daemon_user *user,
    char *error, size_t error_size)
{
	struct passwd *entry;

	errno = 0;
	entry = getpwnam(name);
	if (entry == NULL) {
		snprintf(error, error_size, "user %s: %s", name,
		    errno != 0 ? strerror(errno) : "no such user");
		return -1;
	}
	if (strlen(entry->pw_name) >= sizeof(user->name)) {
		snprintf(error, error_size, "user %s: name too long", name);
		return -1;
	}
	strcpy(user->name, entry->pw_name);
	user->uid = entry->pw_uid;
	user->gid = entry->pw_gid;
	return 0;
}

int
agent_daemon_user_become(
    const struct agent_daemon_user *user, char *error, size_t error_size)
{
	/* Already that user (started unprivileged): nothing to drop. */
	if (getuid() == user->uid && geteuid() == user->uid &&
	    getgid() == user->gid && getegid() == user->gid)
		return 0;
	if (initgroups(user->name, user->gid) != 0) {
		snprintf(error, error_size, "user %s: supplementary groups: %s",
		    user->name, strerror(errno));
		return -1;
	}
	if (setresgid(user->gid, user->gid, user->gid) != 0 ||
	    setresuid(user->uid, user->uid, user->uid) != 0) {
		snprintf(error, error_size, "user %s: %s", user->name,
		    strerror(errno));
		return -1;
	}
	if (getuid() != user->uid || geteuid() != user->uid ||
	    getgid() != user->gid || getegid() != user->gid ||
	    (user->uid != 0 && setuid(0) == 0)) {
		snprintf(error, error_size,
		    "user %s: the change of user did not hold", user->name);
		return -1;
	}
	return 0;
}
