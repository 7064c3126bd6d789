/*
 * netif_ethtool: link speeds over ethtool's generic netlink family
 * (netif_ethtool.h).
 */
#define _GNU_SOURCE

#include "netif_ethtool.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include "netif_link.h"
#include "netif_netlink.h"

#define NETIF_MESSAGE_HEADER_LENGTH                                            \
	((size_t)NLMSG_ALIGN(sizeof(struct nlmsghdr)))
#define NETIF_GENERIC_HEADER_LENGTH ((size_t)NLMSG_ALIGN(GENL_HDRLEN))
/* What /sys/class/net/NAME/speed shows: an int, negative for unknown. */
#define NETIF_SPEED_SHOWN_MAX 2147483647u

static int
netif_ethtool_malformed(void)
{
	errno = EBADMSG;
	return -1;
}

/* The generic netlink header of message, or -1 when it has none. */
static int
netif_generic_header(const struct nlmsghdr *message, struct genlmsghdr *header)
{
	if (message->nlmsg_len <
	    NETIF_MESSAGE_HEADER_LENGTH + NETIF_GENERIC_HEADER_LENGTH)
		return -1;
	memcpy(header,
	    (const unsigned char *)message + NETIF_MESSAGE_HEADER_LENGTH,
	    sizeof *header);
	return 0;
}

static int
netif_generic_attributes(
    const struct nlmsghdr *message, netif_attribute_store store, void *target)
{
	size_t offset =
	    NETIF_MESSAGE_HEADER_LENGTH + NETIF_GENERIC_HEADER_LENGTH;

	return netif_attributes_walk((const unsigned char *)message + offset,
	    message->nlmsg_len - offset, store, target);
}

static int
netif_read_u32(const unsigned char *payload, size_t length, uint32_t *value)
{
	if (length != sizeof *value)
		return -1;
	memcpy(value, payload, sizeof *value);
	return 0;
}

/* What a controller family message says. */
struct netif_family {
	char name[GENL_NAMSIZ];
	bool has_name;
	uint16_t id;
	bool has_id;
};

static int
netif_store_family_attribute(
    void *target, unsigned type, const unsigned char *payload, size_t length)
{
	struct netif_family *family = target;

	switch (type) {
	case CTRL_ATTR_FAMILY_ID:
		if (length != sizeof family->id)
			return -1;
		memcpy(&family->id, payload, sizeof family->id);
		family->has_id = true;
		break;
	case CTRL_ATTR_FAMILY_NAME:
		/* NUL-terminated, within GENL_NAMSIZ. */
		if (length == 0 || length > sizeof family->name ||
		    memchr(payload, '\0', length) == NULL)
			return -1;
		memcpy(family->name, payload, length);
		family->has_name = true;
		break;
	default:
		break;
	}
	return 0;
}

int
netif_family_parse(
    const struct nlmsghdr *message, const char *name, uint16_t *id)
{
	struct netif_family family = {0};
	struct genlmsghdr header;

	if (message->nlmsg_type != GENL_ID_CTRL)
		return 0;
	if (netif_generic_header(message, &header) != 0)
		return netif_ethtool_malformed();
	if (header.cmd != CTRL_CMD_NEWFAMILY)
		return 0;
	if (netif_generic_attributes(
	        message, netif_store_family_attribute, &family) != 0)
		return -1;
	if (!family.has_name || !family.has_id)
		return netif_ethtool_malformed();
	if (strcmp(family.name, name) != 0)
		return 0;
	*id = family.id;
	return 1;
}

static int
netif_store_header_attribute(
    void *target, unsigned type, const unsigned char *payload, size_t length)
{
	struct netif_speed *speed = target;

	if (type == ETHTOOL_A_HEADER_DEV_INDEX)
		return netif_read_u32(payload, length, &speed->index);
	return 0;
}

/* A LINKMODES reply's attributes, and which were there. */
struct netif_linkmodes {
	struct netif_speed *speed;
	bool has_header;
	bool has_speed_attribute;
	uint32_t speed_value;
};

static int
netif_store_linkmodes_attribute(
    void *target, unsigned type, const unsigned char *payload, size_t length)
{
	struct netif_linkmodes *linkmodes = target;

	switch (type) {
	case ETHTOOL_A_LINKMODES_HEADER:
		linkmodes->has_header = true;
		return netif_attributes_walk(payload, length,
		    netif_store_header_attribute, linkmodes->speed);
	case ETHTOOL_A_LINKMODES_SPEED:
		linkmodes->has_speed_attribute = true;
		return netif_read_u32(payload, length, &linkmodes->speed_value);
	default:
		return 0;
	}
}

int
netif_speed_parse(
    const struct nlmsghdr *message, uint16_t family, struct netif_speed *speed)
{
	struct netif_linkmodes linkmodes = {.speed = speed};
	struct genlmsghdr header;

	if (message->nlmsg_type != family)
		return 0;
	if (netif_generic_header(message, &header) != 0)
		return netif_ethtool_malformed();
	if (header.cmd != ETHTOOL_MSG_LINKMODES_GET_REPLY)
		return 0;
	memset(speed, 0, sizeof *speed);
	if (netif_generic_attributes(
	        message, netif_store_linkmodes_attribute, &linkmodes) != 0)
		return -1;
	if (!linkmodes.has_header || speed->index == 0)
		return netif_ethtool_malformed();
	/* SPEED_UNKNOWN is all ones, beyond what sysfs would show. */
	speed->has_speed = linkmodes.has_speed_attribute &&
	                   linkmodes.speed_value <= NETIF_SPEED_SHOWN_MAX;
	speed->megabits = speed->has_speed ? linkmodes.speed_value : 0;
	return 1;
}

/* A generic netlink request: its header and one nested attribute holding
 * one u32 (the request header's flags), as the dumps below send. */
struct netif_generic_request {
	struct genlmsghdr header;
	struct nlattr nest;
	struct nlattr flags_attribute;
	uint32_t flags;
};

/* netif_ethtool_open's dump callback. */
struct netif_family_search {
	uint16_t id;
	bool found;
};

static int
netif_each_family(const struct nlmsghdr *message, void *opaque)
{
	struct netif_family_search *search = opaque;

	switch (netif_family_parse(message, ETHTOOL_GENL_NAME, &search->id)) {
	case -1:
		return -1;
	case 1:
		search->found = true;
		return 1; /* the rest of the dump is read and skipped */
	default:
		return 0;
	}
}

int
netif_ethtool_open(uint16_t *family)
{
	struct genlmsghdr request = {.cmd = CTRL_CMD_GETFAMILY, .version = 1};
	struct netif_family_search search = {0};
	int descriptor, saved;

	descriptor = netif_netlink_open_protocol(NETLINK_GENERIC);
	if (descriptor < 0)
		return -1;
	if (netif_netlink_dump(descriptor, 1, GENL_ID_CTRL, &request,
	        sizeof request, netif_each_family, &search) != 0 &&
	    !(errno == ECANCELED && search.found))
		goto failed;
	if (!search.found) {
		errno = ENOENT;
		goto failed;
	}
	*family = search.id;
	return descriptor;

failed:
	saved = errno;
	close(descriptor);
	errno = saved;
	return -1;
}

/* The user's callback of a speed dump, and its family. */
struct netif_speed_callback {
	uint16_t family;
	netif_speed_each each;
	void *context;
};

static int
netif_each_speed_message(const struct nlmsghdr *message, void *opaque)
{
	const struct netif_speed_callback *callback = opaque;
	struct netif_speed speed;
	int parsed = netif_speed_parse(message, callback->family, &speed);

	if (parsed <= 0)
		return parsed; /* -1: malformed; 0: another message */
	return callback->each(&speed, callback->context) != 0;
}

int
netif_speed_dump(int descriptor, uint16_t family, uint32_t sequence,
    netif_speed_each each, void *context)
{
	struct netif_generic_request request = {
	    .header = {.cmd = ETHTOOL_MSG_LINKMODES_GET,
	        .version = ETHTOOL_GENL_VERSION},
	    .nest = {.nla_len = NLA_HDRLEN + NLA_HDRLEN + sizeof(uint32_t),
	        .nla_type = NLA_F_NESTED | ETHTOOL_A_LINKMODES_HEADER},
	    .flags_attribute = {.nla_len = NLA_HDRLEN + sizeof(uint32_t),
	        .nla_type = ETHTOOL_A_HEADER_FLAGS},
	    .flags = ETHTOOL_FLAG_COMPACT_BITSETS,
	};
	struct netif_speed_callback callback = {
	    .family = family, .each = each, .context = context};

	_Static_assert(sizeof request == GENL_HDRLEN + 2 * NLA_HDRLEN + 4,
	    "the request is packed as netlink lays it out");
	return netif_netlink_dump(descriptor, sequence, family, &request,
	    sizeof request, netif_each_speed_message, &callback);
}
