/*
 * segment_file: a supplier segment as a file of the run directory: opened
 * without following links, its owner and size checked, mapped read-only,
 * and reads of it guarded against the file
 * being cut short under them (a mapping past the end of a file raises
 * SIGBUS; the guard turns that into a refusal of that segment).
 */
#ifndef SUPPLIERS_SEGMENT_FILE_H
#define SUPPLIERS_SEGMENT_FILE_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#pragma GCC visibility push(hidden)

/* Who may supply: a segment's owner must be root, dcistatd's own user, one
 * of `uids`, or a member of one of `gids`: the file's group is one of
 * them, or one of its owner's groups, supplementary ones included. */
struct segment_owners {
	uid_t *uids;
	size_t uid_count;
	gid_t *gids;
	size_t gid_count;
};

struct segment_file {
	int descriptor;
	const unsigned char *base;
	size_t size;
	dev_t device;
	ino_t inode;
	uid_t owner; /* the file's */
};

/* Opens `name` in directory `directory_descriptor` and maps it; -1 with
 * the reason in `why` (not a regular file, owner not allowed, size
 * outside [minimum, maximum]). */
int segment_file_open(int directory_descriptor, const char *name,
    const struct segment_owners *owners, size_t minimum, size_t maximum,
    struct segment_file *file, char *why, size_t why_size);
void segment_file_close(struct segment_file *file);

/*
 * The guard. Reads of mapped segments happen with segment_guard_armed set,
 * after a sigsetjmp(segment_guard_jump, 0) that returned 0, as
 *     segment_guard_armed = 1;
 *     if (sigsetjmp(segment_guard_jump, 0) == 0) { read; disarm }
 *     else { the file was cut short }
 * (C allows sigsetjmp only as such a controlling expression). A SIGBUS
 * while armed returns from sigsetjmp a second time, with 1. The handler
 * runs with SA_NODEFER, so no signal mask needs restoring.
 * segment_guard_install once (it keeps any previous handler for faults
 * outside a guard), segment_guard_thread on the reading thread (the host
 * blocks signals on its refresh threads; a synchronous SIGBUS there would
 * kill the process).
 */
int segment_guard_install(void);
void segment_guard_uninstall(void);
void segment_guard_thread(void);
extern _Thread_local sigjmp_buf segment_guard_jump;
extern _Thread_local volatile sig_atomic_t segment_guard_armed;

#pragma GCC visibility pop

#endif
