/*
 * Segments removed when SIGTERM ends the process (pydcistat.h). Python
 * leaves SIGTERM at its default action, which ends the process without
 * running any exit code, so a supplier's segment would stay until dcistatd
 * saw its owner gone. While a Supplier is open and SIGTERM's action is the
 * default, a handler is in place that unlinks the segments this process
 * opened and holds, then ends the process by SIGTERM as the default action
 * would: the same wait status, nothing else run. A handler the application
 * sets, before or after, is never replaced; the default comes back when
 * the last segment is closed.
 *
 * The handler reads a fixed table: each slot is written while its `used`
 * word is 0 and published by setting it, so a handler never sees a path
 * being written. A forked child inherits the table with its parent's pid
 * in every slot and removes none of them. Slots are changed with the GIL
 * held, so only the handler runs beside a change.
 */
#include "pydcistat.h"

#include <limits.h>
#include <stdbool.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

struct termination_slot {
	volatile sig_atomic_t used;
	pid_t pid;
	char path[PATH_MAX];
};

static struct termination_slot termination_slots[PYDCI_TERMINATION_SLOTS];

/* The slot holds a segment of this process. */
static bool
termination_ours(const struct termination_slot *slot, pid_t self)
{
	return slot->used && slot->pid == self;
}

static void
termination_handler(int signal_number)
{
	pid_t self = getpid();

	for (size_t i = 0; i < PYDCI_TERMINATION_SLOTS; i++)
		if (termination_ours(&termination_slots[i], self))
			unlink(termination_slots[i].path);
	/* SA_RESETHAND restored the default action: the signal, blocked
	 * until this returns, then ends the process. */
	raise(signal_number);
}

/* Installs the handler when SIGTERM's action is the default (not when it
 * is the handler already, or the application's). */
static void
termination_install(void)
{
	struct sigaction current, handler;

	if (sigaction(SIGTERM, NULL, &current) != 0 ||
	    (current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL)
		return;
	memset(&handler, 0, sizeof(handler));
	handler.sa_handler = termination_handler;
	handler.sa_flags = SA_RESETHAND;
	sigemptyset(&handler.sa_mask);
	sigaction(SIGTERM, &handler, NULL);
}

/* Puts the default action back if the handler is still SIGTERM's. */
static void
termination_uninstall(void)
{
	struct sigaction current, default_action;

	if (sigaction(SIGTERM, NULL, &current) != 0 ||
	    (current.sa_flags & SA_SIGINFO) ||
	    current.sa_handler != termination_handler)
		return;
	memset(&default_action, 0, sizeof(default_action));
	default_action.sa_handler = SIG_DFL;
	sigemptyset(&default_action.sa_mask);
	sigaction(SIGTERM, &default_action, NULL);
}

int
pydci_termination_add(const char *path)
{
	pid_t self = getpid();

	if (strlen(path) >= PATH_MAX)
		return -1;
	for (size_t i = 0; i < PYDCI_TERMINATION_SLOTS; i++) {
		struct termination_slot *slot = &termination_slots[i];

		/* A slot of another process is a forked child's copy of its
		 * parent's: free here. */
		if (termination_ours(slot, self))
			continue;
		slot->used = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		slot->pid = self;
		strcpy(slot->path, path);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		slot->used = 1;
		termination_install();
		return (int)i;
	}
	return -1;
}

void
pydci_termination_remove(int index)
{
	pid_t self = getpid();

	if (index < 0 || index >= PYDCI_TERMINATION_SLOTS ||
	    !termination_ours(&termination_slots[index], self))
		return;
	termination_slots[index].used = 0;
	for (size_t i = 0; i < PYDCI_TERMINATION_SLOTS; i++)
		if (termination_ours(&termination_slots[i], self))
			return;
	termination_uninstall();
}
