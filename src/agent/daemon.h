/*
 * dcistatd going into the background as init systems and operators expect.
 *
 * The pid file is created without following a symbolic link and must be a
 * regular file (a FIFO planted there is refused, not waited on); it is
 * locked for the daemon's life, so a second dcistatd given the same file
 * is refused while the first runs, and a file left by one that died is
 * taken over. The starting process exits only once the daemon has written
 * the pid file and finished its start-up, with status 0, or 1 when the
 * daemon failed first: `dcistatd -p FILE && cat FILE` always reads the
 * daemon's pid, and a start-up error reaches the caller. At exit, also an
 * exit on an error, the pid file is removed only if it is still the one
 * this daemon locked.
 */
#ifndef DCISTAT_AGENT_DAEMON_H
#define DCISTAT_AGENT_DAEMON_H

#include <stddef.h>
#include <sys/types.h>

struct agent_daemon {
	int pid_file;   /* the locked pid file, or -1 */
	char *pid_path; /* its absolute path, or NULL */
	dev_t pid_device;
	ino_t pid_inode;
	int ready_pipe; /* to the starting process, until ready; or -1 */
};

/* Opens and locks the pid file at `path` (absolute), writing this
 * process's pid. Returns 0, or -1 with the reason in `error`. */
int agent_daemon_pid_file_open(struct agent_daemon *background,
    const char *path, char *error, size_t error_size);

/* Closes every descriptor above standard error: for a daemon, first
 * thing, before it opens any of its own (pid file, log, providers), so
 * that it holds nothing its caller had open (a lock, a pipe whose reader
 * waits for its end) for its whole life. close_range, else each
 * descriptor /proc/self/fd lists. */
void agent_daemon_close_inherited(void);

/* Forks into the background (a new session, in /, standard input and
 * output on /dev/null) and rewrites the pid file with the daemon's pid.
 * Returns in the daemon only; the starting process waits for
 * agent_daemon_ready and exits. Returns 0, or -1 (fork failed; errno). */
int agent_daemon_detach(struct agent_daemon *background);

/* Start-up finished: the service manager is told (systemd's
 * Type=notify: READY=1), the starting process exits 0, and standard error
 * goes to /dev/null (a daemon that did not detach keeps it). */
void agent_daemon_ready(struct agent_daemon *background);

/* A reload begins, ends, or the daemon stops: the service manager is told
 * (RELOADING=1, READY=1, STOPPING=1), when there is one. */
void agent_daemon_reloading(void);
void agent_daemon_reloaded(void);
void agent_daemon_stopping(void);

/* Removes the pid file if the path still names the file this daemon
 * locked; closes it. */
void agent_daemon_pid_file_remove(struct agent_daemon *background);

/* The user dcistatd runs as once started (-u). */
struct agent_daemon_user {
	char name[64];
	uid_t uid;
	gid_t gid;
};

/* Looks `name` up (before anything is loaded, so that a mistyped user
 * stops the start at once). Returns 0, or -1 with the reason in
 * `error`. */
int agent_daemon_user_find(const char *name, struct agent_daemon_user *user,
    char *error, size_t error_size);

/* Becomes `user` with its groups and nothing else: supplementary groups,
 * then group, then user, each checked, and then that root cannot be taken
 * back. For every thread (glibc's setuid applies to all). Returns 0, or -1
 * with the reason in `error` (the caller stops: running on with more
 * privilege than asked is not an option). */
int agent_daemon_user_become(
    const struct agent_daemon_user *user, char *error, size_t error_size);

#endif
