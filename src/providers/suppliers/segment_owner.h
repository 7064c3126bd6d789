/*
 * segment_owner: whether the process a segment names as its owner is the
 * one that created it. A segment says which process wrote it (its pid and
 * that process's start time); the file says which user did. Both are the
 * writer's word until checked: a user may name any pid (pid 1, which never
 * exits) to keep a segment, and with it a module name, for ever. A claim
 * counts only when that process exists, runs as the file's owner (its real
 * or effective uid), and started at the recorded time; anything else is a
 * segment whose owner is gone.
 */
#ifndef SUPPLIERS_SEGMENT_OWNER_H
#define SUPPLIERS_SEGMENT_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#pragma GCC visibility push(hidden)

/* True when process `pid`, started at `start` (clock ticks since boot,
 * /proc/PID/stat field 22; 0, unknown, never counts), runs as `owner`
 * (and has not exited: a zombie its parent has not reaped is gone).
 * False with the reason in `why` otherwise. /proc unreadable for another
 * reason than the process's absence counts as alive: a live owner is
 * never judged gone on a doubt. */
bool segment_owner_check(
    uint32_t pid, uint64_t start, uid_t owner, char *why, size_t why_size);

/* The cheap check between two full ones: the pid exists. */
bool segment_owner_exists(uint32_t pid);

#pragma GCC visibility pop

#endif
