/* Access control of the DCI Server (server/dci_access.h). */
#define _GNU_SOURCE
#include "server/dci_access.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/log.h"

/* A user or group name from the configuration, resolved now into *id;
 * false when the system does not know it (logged: the rule then admits
 * nobody by that name). */
static bool
name_resolve(const char *name, bool is_group, id_t *id)
{
	char buffer[16384];
	bool found = false;

	if (is_group) {
		struct group entry, *group = NULL;

		found = getgrnam_r(name, &entry, buffer, sizeof(buffer),
		            &group) == 0 &&
		        group != NULL;
		if (found)
			*id = group->gr_gid;
	} else {
		struct passwd entry, *user = NULL;

		found = getpwnam_r(
		            name, &entry, buffer, sizeof(buffer), &user) == 0 &&
		        user != NULL;
		if (found)
			*id = user->pw_uid;
	}
	if (!found)
		log_warnx("dci-access: no %s %s: it is given no access",
		    is_group ? "group" : "user", name);
	return found;
}

int
dci_access_build(struct dci_access *access,
    const struct dci_config_dci_access *rules, size_t rule_count)
{
	*access = (struct dci_access){0};
	if (rule_count == 0)
		return 0;
	access->rules = calloc(rule_count, sizeof(*access->rules));
	if (access->rules == NULL)
		return -1;
	access->rule_count = rule_count;
	for (size_t i = 0; i < rule_count; i++) {
		const struct dci_config_dci_access *from = &rules[i];
		struct dci_access_rule *rule = &access->rules[i];
		id_t id;

		memcpy(rule->class_id, from->class_id,
		    from->class_id_length * sizeof(uint32_t));
		rule->class_id_length = from->class_id_length;
		memcpy(rule->instance, from->instance,
		    from->instance_words * sizeof(uint32_t));
		rule->instance_words = from->instance_words;
		if (rule->instance_words > 0)
			access->per_instance = true;
		rule->uids = calloc(from->user_count + 1, sizeof(uid_t));
		rule->gids = calloc(from->group_count + 1, sizeof(gid_t));
		if (rule->uids == NULL || rule->gids == NULL) {
			dci_access_free(access);
			return -1;
		}
		for (size_t j = 0; j < from->user_count; j++)
			if (name_resolve(from->users[j], false, &id))
				rule->uids[rule->uid_count++] = (uid_t)id;
		for (size_t j = 0; j < from->group_count; j++)
			if (name_resolve(from->groups[j], true, &id))
				rule->gids[rule->gid_count++] = (gid_t)id;
	}
	return 0;
}

void
dci_access_free(struct dci_access *access)
{
	for (size_t i = 0; i < access->rule_count; i++) {
		free(access->rules[i].uids);
		free(access->rules[i].gids);
	}
	free(access->rules);
	*access = (struct dci_access){0};
}

int
dci_access_peer_read(int socket, struct dci_access_peer *peer)
{
	struct ucred credentials;
	socklen_t length = sizeof(credentials);

	memset(peer, 0, sizeof(*peer));
	if (getsockopt(
	        socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0 ||
	    length != sizeof(credentials))
		return -1;
	peer->pid = credentials.pid;
	peer->uid = credentials.uid;
	peer->gid = credentials.gid;
	length = sizeof(peer->groups);
	/* Linux 4.13 and later; before, the primary group alone counts. */
	if (getsockopt(
	        socket, SOL_SOCKET, SO_PEERGROUPS, peer->groups, &length) == 0)
		peer->group_count = length / sizeof(gid_t);
	return 0;
}

static bool
peer_in_group(const struct dci_access_peer *peer, gid_t gid)
{
	if (peer->gid == gid)
		return true;
	for (size_t i = 0; i < peer->group_count; i++)
		if (peer->groups[i] == gid)
			return true;
	return false;
}

/* Whether `rule` admits `peer`. */
static bool
rule_admits(
    const struct dci_access_rule *rule, const struct dci_access_peer *peer)
{
	for (size_t i = 0; i < rule->uid_count; i++)
		if (rule->uids[i] == peer->uid)
			return true;
	for (size_t i = 0; i < rule->gid_count; i++)
		if (peer_in_group(peer, rule->gids[i]))
			return true;
	return false;
}

bool
dci_access_may_read_every_class(
    const struct dci_access *access, const struct dci_access_peer *peer)
{
	if (peer->uid == 0)
		return true;
	for (size_t i = 0; i < access->rule_count; i++)
		if (!rule_admits(&access->rules[i], peer))
			return false;
	return true;
}

/* Whether the rule's class id is a prefix of the class's. */
static bool
rule_covers(const struct dci_access_rule *rule, const uint32_t *class_id,
    size_t class_id_length)
{
	return rule->class_id_length <= class_id_length &&
	       memcmp(rule->class_id, class_id,
	           rule->class_id_length * sizeof(uint32_t)) == 0;
}

/* The class rule that decides for the class (the longest prefix), or
 * NULL. */
static const struct dci_access_rule *
class_rule(const struct dci_access *access, const uint32_t *class_id,
    size_t class_id_length)
{
	const struct dci_access_rule *decides = NULL;

	for (size_t i = 0; i < access->rule_count; i++) {
		const struct dci_access_rule *rule = &access->rules[i];

		if (rule->instance_words == 0 &&
		    rule_covers(rule, class_id, class_id_length) &&
		    (decides == NULL ||
		        rule->class_id_length > decides->class_id_length))
			decides = rule;
	}
	return decides;
}

bool
dci_access_may_read(const struct dci_access *access,
    const struct dci_access_peer *peer, const uint32_t *class_id,
    size_t class_id_length)
{
	const struct dci_access_rule *decides;

	if (peer->uid == 0)
		return true;
	decides = class_rule(access, class_id, class_id_length);
	if (decides == NULL || rule_admits(decides, peer))
		return true;
	for (size_t i = 0; access->per_instance && i < access->rule_count;
	     i++) {
		const struct dci_access_rule *rule = &access->rules[i];

		if (rule->instance_words > 0 &&
		    rule_covers(rule, class_id, class_id_length) &&
		    rule_admits(rule, peer))
			return true;
	}
	return false;
}

bool
dci_access_may_read_instance(const struct dci_access *access,
    const struct dci_access_peer *peer, const uint32_t *class_id,
    size_t class_id_length, const uint32_t *instance, size_t words)
{
	const struct dci_access_rule *decides = NULL;

	if (peer->uid == 0)
		return true;
	for (size_t i = 0; access->per_instance && i < access->rule_count;
	     i++) {
		const struct dci_access_rule *rule = &access->rules[i];

		if (rule->instance_words == words &&
		    memcmp(rule->instance, instance,
		        words * sizeof(uint32_t)) == 0 &&
		    rule_covers(rule, class_id, class_id_length) &&
		    (decides == NULL ||
		        rule->class_id_length > decides->class_id_length))
			decides = rule;
	}
	if (decides == NULL)
		decides = class_rule(access, class_id, class_id_length);
	return decides == NULL || rule_admits(decides, peer);
}

size_t
dci_access_admission_size(const struct dci_access *access)
{
	return 1 + (access->rule_count + 7) / 8;
}

void
dci_access_admission(const struct dci_access *access,
    const struct dci_access_peer *peer, unsigned char *admission)
{
	memset(admission, 0, dci_access_admission_size(access));
	/* Root is admitted everywhere: the rules do not matter. */
	if (peer->uid == 0) {
		admission[0] = 1;
		return;
	}
	for (size_t i = 0; i < access->rule_count; i++)
		if (rule_admits(&access->rules[i], peer))
			admission[1 + i / 8] |= (unsigned char)(1u << (i % 8));
}
