/*
 * The DCI Server's answers: one request (protocol/dci_protocol.h) read against
 * the registry's current snapshots, the same ones the SNMP tables serve,
 * with the classes the consumer may not read left out as if absent
 * (server/dci_access.h). Touches no socket; runs on the daemon's thread.
 */
#ifndef DCISTAT_SERVER_DCI_ANSWER_H
#define DCISTAT_SERVER_DCI_ANSWER_H

#include <stdbool.h>
#include <stdint.h>

#include "model/registry.h"
#include "server/dci_access.h"
#include "protocol/dci_protocol.h"

/* Appends the answer's payload to `payload` (see dci_answer.c for each
 * type's entries). `payload` may overflow its limit: the caller then
 * answers DCI_PROTOCOL_ALLOCATIONFAILURE instead. An unknown type is answered
 * with DCI_PROTOCOL_NOTIMPLEMENTED and no entries. */
void dci_answer(const struct dci_registry *registry,
    const struct dci_access *access, const struct dci_access_peer *peer,
    uint16_t type, const struct dci_protocol_request *request,
    struct dci_protocol_writer *payload);

/* Whether `request`'s class and instance patterns name the instance `id`
 * (class->instance_words words) of `class`: what a subscription's events
 * are filtered by. */
bool dci_answer_matches(const struct dci_protocol_request *request,
    const struct dci_class *class, const uint32_t *id);

/* An answer with `status`, no entries and both times now. */
void dci_answer_status(struct dci_protocol_writer *payload, uint32_t status);

#endif
