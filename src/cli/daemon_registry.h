/*
 * The registry dcistatd serves, rebuilt from the DCI Server's answers
 * (protocol/dci_protocol.h): LIST_SUPPLIERS gives the suppliers with their
 * state, GET_CLASS_ATTRIBUTES the classes with their full DCI4 datum infos,
 * GET_INSTANCE_DATA each class's instances with their parents and their
 * records, all from one of the daemon's snapshots. What the daemon's source (source.h)
 * fills its registry with; touches no socket, so the unit tests and the fuzzer
 * feed it answers directly.
 *
 * Nothing in an answer is trusted: every count and length is bounded by
 * the payload, every registration goes through the registry's own checks
 * (a class the daemon accepted passes them again, since both run the same
 * code), and a record whose layout differs from the one the same infos
 * give here is refused rather than read.
 *
 * Not carried by the protocol (yet): the creation and
 * discontinuity times of the daemon's snapshots; a rebuilt instance is
 * created at the commit that first holds it.
 */
#ifndef DCISTAT_CLI_DAEMON_REGISTRY_H
#define DCISTAT_CLI_DAEMON_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "model/registry.h"

/* Adds the suppliers of a LIST_SUPPLIERS answer's payload to `registry`
 * (new and empty), each at the index the daemon gives it: an index the
 * daemon skips (a withdrawn supplier) is a withdrawn placeholder here.
 * Returns 0, or -1 with the reason in `error`. */
int cli_daemon_add_suppliers(struct dci_registry *registry,
    const unsigned char *answer, size_t length, char *error, size_t error_size);

/* Registers the classes of a GET_CLASS_ATTRIBUTES answer's payload under
 * the suppliers cli_daemon_add_suppliers added. Returns 0, or -1. */
int cli_daemon_add_classes(struct dci_registry *registry,
    const unsigned char *answer, size_t length, char *error, size_t error_size);

/* Commits one snapshot of `class` from a GET_INSTANCE_DATA answer for that
 * class alone, at `now_milliseconds`. Derived datums are computed again by the commit,
 * from the same arguments. Returns 0, or -1 (the class's snapshot is then
 * as it was). */
int cli_daemon_commit_class(struct dci_class *class,
    const unsigned char *answer, size_t length, int64_t now_milliseconds,
    char *error, size_t error_size);

#endif
