/*
 * Who may read which classes through the DCI Server: the rules of the
 * configuration's agent: dci-access, with user and group names resolved
 * once, when the server starts, and checked against the credentials the
 * kernel gives for each connection (SO_PEERCRED, SO_PEERGROUPS).
 *
 * The rule whose class id is the longest prefix of a class's id decides
 * for that class: the users it names, and the members of the groups it
 * names (primary or supplementary), may read it; nobody else, except
 * root. A class under no rule may be read by every local user, as /proc
 * lets them read the kernel's counters. A name that does not resolve when
 * the server starts is logged and admits nobody.
 *
 * A rule may name one instance (CLASS-ID/INSTANCE-ID): for that instance
 * of the classes at or below its class id, the longest such rule decides
 * instead of the class's. A consumer sees a class when the class's rule
 * admits it or when an instance rule under the class does, and of it the
 * instances it may read.
 */
#ifndef DCISTAT_SERVER_DCI_ACCESS_H
#define DCISTAT_SERVER_DCI_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"

struct dci_access_rule {
	uint32_t class_id[DCI_CLASS_ID_MAX_LEVELS];
	size_t class_id_length;
	uint32_t instance[DCI_INSTANCE_ID_MAX_WORDS];
	size_t instance_words; /* 0: the whole subtree */
	uid_t *uids;
	size_t uid_count;
	gid_t *gids;
	size_t gid_count;
};

struct dci_access {
	struct dci_access_rule *rules;
	size_t rule_count;
	bool per_instance; /* a rule names an instance */
};

/* A connected consumer, as the kernel vouches for it. */
#define DCI_ACCESS_GROUPS_MAX 1024u
struct dci_access_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t groups[DCI_ACCESS_GROUPS_MAX]; /* supplementary */
	size_t group_count;
};

/* Resolves the configured rules. Returns 0, or -1 (out of memory) with
 * nothing allocated. */
int dci_access_build(struct dci_access *access,
    const struct dci_config_dci_access *rules, size_t rule_count);
void dci_access_free(struct dci_access *access);

/* Fills `peer` from a connected Unix socket; -1 when the kernel does not
 * say who is at the other end. A peer with more than DCI_ACCESS_GROUPS_MAX
 * supplementary groups, or a kernel without SO_PEERGROUPS, is judged by
 * its primary group alone: groups only admit, so it is never given more
 * than its credentials allow. */
int dci_access_peer_read(int socket, struct dci_access_peer *peer);

/* Whether `peer` may know of the class: see above. */
bool dci_access_may_read(const struct dci_access *access,
    const struct dci_access_peer *peer, const uint32_t *class_id,
    size_t class_id_length);

/* Whether `peer` may read the instance `instance` (`words` words) of the
 * class. */
bool dci_access_may_read_instance(const struct dci_access *access,
    const struct dci_access_peer *peer, const uint32_t *class_id,
    size_t class_id_length, const uint32_t *instance, size_t words);

/* Whether no rule refuses `peer`: it may read every class there is or
 * will be (root, or a peer every rule admits). */
bool dci_access_may_read_every_class(
    const struct dci_access *access, const struct dci_access_peer *peer);

/* What every answer to `peer` depends on of the rules: whether it is
 * root, and which rules admit it. Two peers with the same admission are
 * shown the same classes and instances, so an answer given to one may be
 * given to the other (server/dci_cache.h). Written in
 * dci_access_admission_size bytes at `admission`. */
size_t dci_access_admission_size(const struct dci_access *access);
void dci_access_admission(const struct dci_access *access,
    const struct dci_access_peer *peer, unsigned char *admission);

#endif
