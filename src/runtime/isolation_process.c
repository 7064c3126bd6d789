/*
 * The processes of isolated providers and what they start
 * (runtime/isolation_process.h).
 */
#define _GNU_SOURCE
#include "runtime/isolation_process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"

/* Rounds of killing what a provider left: each kills what the one before
 * found, and what those forked meanwhile is found by the next. */
#define KILL_ROUNDS 4
/* The longest dcistatd waits for killed processes to be reaped at stop. */
#define END_WAIT_MILLISECONDS 2000
#define REAP_INTERVAL_MILLISECONDS 500

/* The providers' processes started and not yet reaped, which the reaper of
 * adopted processes leaves to their owners; under `lock`, which is also
 * held across the fork, so that a new process is known before it can end. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t *leaders;
static size_t leader_count, leader_capacity;
static pid_t leaders_owner; /* the process that started them */
static bool exit_handler_set;
static bool adopting; /* dci_isolation_adopt_orphans ran */
static int64_t last_reap_milliseconds;

static bool
leader_known(pid_t pid)
{
	for (size_t i = 0; i < leader_count; i++)
		if (leaders[i] == pid)
			return true;
	return false;
}

static void
leader_forget(pid_t pid)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < leader_count; i++) {
		if (leaders[i] == pid) {
			leaders[i] = leaders[--leader_count];
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

/* --- /proc ----------------------------------------------------------- */

struct process_entry {
	pid_t pid, parent, session;
	char state;
};

/* Reads /proc/PID/stat: 0, or -1 when the process is gone or the file is
 * not as expected. */
static int
process_read(pid_t pid, struct process_entry *entry)
{
	char path[64], text[1024], *end;
	ssize_t length;
	int file;
	long parent, group, session;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	file = open(path, O_RDONLY | O_CLOEXEC);
	if (file < 0)
		return -1;
	length = read(file, text, sizeof(text) - 1);
	close(file);
	if (length <= 0)
		return -1;
	text[length] = '\0';
	/* "PID (COMM) STATE PPID PGRP SESSION ...": COMM may hold anything,
	 * ')' too; the last ')' ends it. */
	end = strrchr(text, ')');
	if (end == NULL || sscanf(end + 1, " %c %ld %ld %ld", &entry->state,
	                       &parent, &group, &session) != 4)
		return -1;
	entry->pid = pid;
	entry->parent = (pid_t)parent;
	entry->session = (pid_t)session;
	return 0;
}

/* Every process of the system; NULL (count 0) when /proc cannot be read. */
static struct process_entry *
processes_list(size_t *count)
{
	struct process_entry *entries = NULL, *grown;
	size_t capacity = 0;
	struct dirent *item;
	DIR *directory = opendir("/proc");

	*count = 0;
	if (directory == NULL)
		return NULL;
	while ((item = readdir(directory)) != NULL) {
		char *end;
		long pid = strtol(item->d_name, &end, 10);

		if (*end != '\0' || pid <= 0)
			continue;
		if (*count == capacity) {
			capacity = capacity ? capacity * 2 : 256;
			grown = realloc(entries, capacity * sizeof(*entries));
			if (grown == NULL)
				break;
			entries = grown;
		}
		if (process_read((pid_t)pid, &entries[*count]) == 0)
			(*count)++;
	}
	closedir(directory);
	return entries;
}

/* This process's children, from /proc/self/task/TID/children (each
 * thread's), or from the whole of /proc where the kernel has no such
 * file. Returns how many are in *children (malloc'd; NULL when none). */
static size_t
children_list(pid_t **children)
{
	size_t count = 0, capacity = 0;
	struct dirent *item;
	DIR *tasks = opendir("/proc/self/task");
	bool listed = false;

	*children = NULL;
	while (tasks != NULL && (item = readdir(tasks)) != NULL) {
		char path[96], text[4096], *cursor;
		ssize_t length;
		int file;

		if (item->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/children",
		    item->d_name);
		file = open(path, O_RDONLY | O_CLOEXEC);
		if (file < 0)
			continue;
		listed = true;
		/* A thread with more children than fit is read again on the
		 * next call, once some are reaped. */
		length = read(file, text, sizeof(text) - 1);
		close(file);
		if (length <= 0)
			continue;
		text[length] = '\0';
		for (cursor = text; *cursor != '\0';) {
			char *end;
			long pid = strtol(cursor, &end, 10);
			if (end == cursor)
				break;
			cursor = end;
			if (pid <= 0)
				continue;
			if (count == capacity) {
				pid_t *grown;
				capacity = capacity ? capacity * 2 : 16;
				grown = realloc(
				    *children, capacity * sizeof(*grown));
				if (grown == NULL)
					break;
				*children = grown;
			}
			(*children)[count++] = (pid_t)pid;
		}
	}
	if (tasks != NULL)
		closedir(tasks);
	if (!listed) {
		size_t all;
		struct process_entry *entries = processes_list(&all);
		pid_t self = getpid();

		*children = all ? malloc(all * sizeof(**children)) : NULL;
		for (size_t i = 0; *children != NULL && i < all; i++)
			if (entries[i].parent == self)
				(*children)[count++] = entries[i].pid;
		free(entries);
	}
	return count;
}

/* --- Start and end --------------------------------------------------- */

static size_t session_and_tree_kill(pid_t leader, bool stop_leader);

/* At exit (snmpd's, which keeps the module and its providers loaded to
 * the end): the providers' processes end with it (PR_SET_PDEATHSIG), and
 * what they started is killed here, which the signal would not reach. */
static void
leaders_kill_at_exit(void)
{
	/* Checked before the lock: a process forked while another thread
	 * held it (a provider's helper calling exit) must not wait for it. */
	if (__atomic_load_n(&leaders_owner, __ATOMIC_ACQUIRE) != getpid())
		return;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < leader_count; i++) {
		session_and_tree_kill(leaders[i], true);
		kill(-leaders[i], SIGKILL);
	}
	pthread_mutex_unlock(&lock);
}

pid_t
dci_isolation_process_start(
    const char *program, int socket, int *watch, char *why, size_t why_size)
{
	pid_t parent = getpid(), pid;

	*watch = -1;
	pthread_mutex_lock(&lock);
	if (leader_count == leader_capacity) {
		size_t capacity = leader_capacity ? leader_capacity * 2 : 8;
		pid_t *grown = realloc(leaders, capacity * sizeof(*grown));
		if (grown == NULL) {
			pthread_mutex_unlock(&lock);
			snprintf(why, why_size,
			    "cannot start an isolated process: out of memory");
			return -1;
		}
		leaders = grown;
		leader_capacity = capacity;
	}
	if (leaders_owner != parent) {
		/* Those of the process this one was forked from are not its
		 * own. */
		leader_count = 0;
		__atomic_store_n(&leaders_owner, parent, __ATOMIC_RELEASE);
	}
	if (!exit_handler_set)
		exit_handler_set = atexit(leaders_kill_at_exit) == 0;
	pid = fork();
	if (pid == 0) {
		/* Async-signal-safe calls only: dcistatd has threads. */
		sigset_t none;
		int null;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		/* A session of its own: what it forks is killed with it. */
		if (setsid() < 0)
			_exit(127);
		if (socket == 3)
			fcntl(3, F_SETFD, 0);
		else if (dup2(socket, 3) != 3)
			_exit(127);
		null = open("/dev/null", O_RDONLY);
		if (null >= 0 && null != 0)
			dup2(null, 0);
		close_range(4, ~0u, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execl(program, "dcistat-isolate", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		leaders[leader_count++] = pid;
	pthread_mutex_unlock(&lock);
	if (pid < 0) {
		snprintf(why, why_size,
		    "cannot start an isolated process: fork: %s",
		    strerror(errno));
		return -1;
	}
#ifdef SYS_pidfd_open
	*watch = (int)syscall(SYS_pidfd_open, pid, 0);
	if (*watch < 0)
		*watch = -1;
#endif
	return pid;
}

static void
status_text(int status, char *text, size_t size)
{
	if (WIFSIGNALED(status))
		snprintf(text, size, "killed by signal %d (%s)",
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(
		    text, size, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(text, size, "ended");
}

/* Whether `pid`, a child of this process, has ended (a zombie not yet
 * reaped, or reaped by someone else), without reaping it. */
static bool
child_ended(pid_t pid)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0)
		return errno == ECHILD;
	return info.si_pid == pid;
}

static int
entry_compare(const void *left, const void *right)
{
	pid_t a = ((const struct process_entry *)left)->pid;
	pid_t b = ((const struct process_entry *)right)->pid;

	return (a > b) - (a < b);
}

/* Whether `entry` is below `leader` in the tree: its parent, its parent's
 * parent... is `leader`; `entries` sorted by pid. */
static bool
entry_below(const struct process_entry *entries, size_t count,
    const struct process_entry *entry, pid_t leader)
{
	/* Deeper than any tree a provider makes in practice: given up. */
	for (int depth = 0; depth < 64; depth++) {
		struct process_entry key = {.pid = entry->parent};

		if (entry->parent == leader)
			return true;
		if (entry->parent <= 1)
			return false;
		entry = bsearch(
		    &key, entries, count, sizeof(*entries), entry_compare);
		if (entry == NULL)
			return false;
	}
	return false;
}

/* Kills, with SIGKILL, every process of the session `leader` leads and
 * every process below `leader` in the tree (while it lives its
 * descendants stay below it), in rounds until one finds nothing. `leader`
 * is stopped first when `stop_leader`, so that it forks nothing more
 * meanwhile; it is not killed here. Returns how many were killed. */
static size_t
session_and_tree_kill(pid_t leader, bool stop_leader)
{
	size_t killed = 0;

	if (stop_leader)
		kill(leader, SIGSTOP);
	for (int round = 0; round < KILL_ROUNDS; round++) {
		size_t count, found = 0;
		struct process_entry *entries = processes_list(&count);

		if (entries == NULL)
			break;
		qsort(entries, count, sizeof(*entries), entry_compare);
		for (size_t i = 0; i < count; i++) {
			const struct process_entry *entry = &entries[i];
			if (entry->pid == leader || entry->state == 'Z' ||
			    (entry->session != leader &&
			        !entry_below(entries, count, entry, leader)))
				continue;
			if (kill(entry->pid, SIGKILL) == 0)
				found++;
		}
		free(entries);
		killed += found;
		if (found == 0)
			break;
	}
	return killed;
}

void
dci_isolation_process_end(
    pid_t pid, unsigned grace_milliseconds, char *status, size_t status_size)
{
	int64_t give_up = dci_clock_milliseconds() + grace_milliseconds;
	size_t killed;
	int code = 0;
	pid_t ended;

	while (!child_ended(pid) && dci_clock_milliseconds() < give_up)
		usleep(5000);
	/* Ended or not, `pid` is not reaped yet: its number (its session's
	 * and group's) cannot be anyone else's. */
	killed = session_and_tree_kill(pid, true);
	if (kill(-pid, SIGKILL) != 0)
		kill(pid, SIGKILL);
	do
		ended = waitpid(pid, &code, 0);
	while (ended < 0 && errno == EINTR);
	if (ended == pid)
		status_text(code, status, status_size);
	else
		/* Reaped by someone else (snmpd's own child handling). */
		snprintf(status, status_size, "ended (%s)", strerror(errno));
	/* Processes of the session forked while it ended. */
	killed += session_and_tree_kill(pid, true);
	leader_forget(pid);
	if (killed > 0)
		log_info("isolated process %ld: %zu process%s it started "
		         "killed with it",
		    (long)pid, killed, killed == 1 ? "" : "es");
	dci_isolation_reap_adopted(true);
}

size_t
dci_isolation_process_kill_own(void)
{
	return session_and_tree_kill(getpid(), false);
}

/* --- Adopted processes (dcistatd) ------------------------------------ */

int
dci_isolation_adopt_orphans(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		log_warn("cannot become the reaper of isolated providers' "
		         "orphans; they are left to init");
		return -1;
	}
	pthread_mutex_lock(&lock);
	adopting = true;
	pthread_mutex_unlock(&lock);
	return 0;
}

void
dci_isolation_reap_adopted(bool now)
{
	pid_t *children, own_session;
	size_t count;
	int64_t at = dci_clock_milliseconds();

	pthread_mutex_lock(&lock);
	if (!adopting || (!now && at - last_reap_milliseconds <
	                              REAP_INTERVAL_MILLISECONDS)) {
		pthread_mutex_unlock(&lock);
		return;
	}
	last_reap_milliseconds = at;
	/* Only once due: dcistatd's loop calls this at every wake-up, one
	 * per AgentX request during a walk. */
	own_session = getsid(0);
	count = children_list(&children);
	for (size_t i = 0; i < count; i++) {
		struct process_entry entry;
		int code;

		if (leader_known(children[i]) ||
		    process_read(children[i], &entry) != 0 ||
		    entry.session == own_session || entry.state != 'Z')
			continue;
		if (waitpid(children[i], &code, WNOHANG) == children[i]) {
			char text[128];
			status_text(code, text, sizeof(text));
			log_debug("isolation",
			    "reaped process %ld, left by an isolated "
			    "provider: %s",
			    (long)children[i], text);
		}
	}
	pthread_mutex_unlock(&lock);
	free(children);
}

void
dci_isolation_end_adopted(void)
{
	int64_t give_up = dci_clock_milliseconds() + END_WAIT_MILLISECONDS;
	pid_t *killed_pids = NULL;
	size_t killed = 0;

	pthread_mutex_lock(&lock);
	if (!adopting) {
		pthread_mutex_unlock(&lock);
		return;
	}
	/* Killing one hands its own children to this process: again until
	 * none is left, or the time is up. */
	for (;;) {
		pid_t *children;
		size_t count = children_list(&children), left = 0;

		for (size_t i = 0; i < count; i++) {
			bool again = false;
			pid_t *grown;
			int code;

			if (leader_known(children[i]) ||
			    waitpid(children[i], &code, WNOHANG) == children[i])
				continue;
			left++;
			if (kill(children[i], SIGKILL) != 0)
				continue;
			/* Counted once, however many rounds it takes. */
			for (size_t k = 0; k < killed && !again; k++)
				again = killed_pids[k] == children[i];
			grown = again ? NULL
			              : realloc(killed_pids,
			                    (killed + 1) * sizeof(*grown));
			if (grown != NULL) {
				killed_pids = grown;
				killed_pids[killed++] = children[i];
			}
		}
		free(children);
		if (left == 0 || dci_clock_milliseconds() >= give_up)
			break;
		usleep(5000);
	}
	pthread_mutex_unlock(&lock);
	free(killed_pids);
	if (killed > 0)
		log_notice("killed %zu process%s left by isolated providers",
		    killed, killed == 1 ? "" : "es");
}
