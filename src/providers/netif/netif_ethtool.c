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
	if (message->nlmsg_len < MNL_NLMSG_HDRLEN ||
	    mnl_nlmsg_get_payload_len(message) < MNL_ALIGN(GENL_HDRLEN))
		return -1;
	memcpy(header, mnl_nlmsg_get_payload(message), sizeof *header);
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
netif_store_family_attribute(const struct nlattr *attribute, void *target)
{
	struct netif_family *family = target;

	switch (mnl_attr_get_type(attribute)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attribute, MNL_TYPE_U16) != 0)
			return MNL_CB_ERROR;
		family->id = mnl_attr_get_u16(attribute);
		family->has_id = true;
		break;
	case CTRL_ATTR_FAMILY_NAME:
		/* NUL-terminated, within GENL_NAMSIZ. */
		if (mnl_attr_validate(attribute, MNL_TYPE_NUL_STRING) != 0 ||
		    mnl_attr_get_payload_len(attribute) > sizeof family->name)
			return MNL_CB_ERROR;
		memcpy(family->name, mnl_attr_get_payload(attribute),
		    mnl_attr_get_payload_len(attribute));
		family->has_name = true;
		break;
	default:
		break;
	}
	return MNL_CB_OK;
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
	if (netif_message_attributes(message, GENL_HDRLEN,
	        netif_store_family_attribute, &family) != 0)
		return -1;
	if (!family.has_name || !family.has_id)
		return netif_ethtool_malformed();
	if (strcmp(family.name, name) != 0)
		return 0;
	*id = family.id;
	return 1;
}

static int
netif_store_header_attribute(const struct nlattr *attribute, void *target)
{
	struct netif_speed *speed = target;

	if (mnl_attr_get_type(attribute) != ETHTOOL_A_HEADER_DEV_INDEX)
		return MNL_CB_OK;
	if (mnl_attr_validate(attribute, MNL_TYPE_U32) != 0)
		return MNL_CB_ERROR;
	speed->index = mnl_attr_get_u32(attribute);
	return MNL_CB_OK;
}

/* A LINKMODES reply's attributes, and which were there. */
struct netif_linkmodes {
	struct netif_speed *speed;
	bool has_header;
	bool has_speed_attribute;
	uint32_t speed_value;
};

static int
netif_store_linkmodes_attribute(const struct nlattr *attribute, void *target)
{
	struct netif_linkmodes *linkmodes = target;

	switch (mnl_attr_get_type(attribute)) {
	case ETHTOOL_A_LINKMODES_HEADER:
		linkmodes->has_header = true;
		if (netif_attributes_parse(mnl_attr_get_payload(attribute),
		        mnl_attr_get_payload_len(attribute),
		        netif_store_header_attribute, linkmodes->speed) != 0)
			return MNL_CB_ERROR;
		return MNL_CB_OK;
	case ETHTOOL_A_LINKMODES_SPEED:
		if (mnl_attr_validate(attribute, MNL_TYPE_U32) != 0)
			return MNL_CB_ERROR;
		linkmodes->has_speed_attribute = true;
		linkmodes->speed_value = mnl_attr_get_u32(attribute);
		return MNL_CB_OK;
	default:
		return MNL_CB_OK;
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
	if (netif_message_attributes(message, GENL_HDRLEN,
	        netif_store_linkmodes_attribute, &linkmodes) != 0)
		return -1;
	if (!linkmodes.has_header || speed->index == 0)
		return netif_ethtool_malformed();
	/* SPEED_UNKNOWN is all ones, beyond what sysfs would show. */
	speed->has_speed = linkmodes.has_speed_attribute &&
	                   linkmodes.speed_value <= NETIF_SPEED_SHOWN_MAX;
	speed->megabits = speed->has_speed ? linkmodes.speed_value : 0;
	return 1;
}

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
	/* The family header netif_netlink_dump sends: the generic netlink
	 * header, then the request header's flags in a nest, laid out by
	 * libmnl in a message of which only the payload is sent. */
	struct {
		struct nlmsghdr header;
		unsigned char family_header[NETIF_FAMILY_HEADER_MAX];
	} buffer;
	struct nlmsghdr *request;
	struct genlmsghdr *header;
	struct nlattr *nest;
	struct netif_speed_callback callback = {
	    .family = family, .each = each, .context = context};

	memset(&buffer, 0, sizeof buffer);
	request = mnl_nlmsg_put_header(&buffer);
	header = mnl_nlmsg_put_extra_header(request, sizeof *header);
	header->cmd = ETHTOOL_MSG_LINKMODES_GET;
	header->version = ETHTOOL_GENL_VERSION;
	/* The _check forms: what does not fit in buffer is refused. */
	nest = mnl_attr_nest_start_check(
	    request, sizeof buffer, ETHTOOL_A_LINKMODES_HEADER);
	if (nest == NULL ||
	    !mnl_attr_put_u32_check(request, sizeof buffer,
	        ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_COMPACT_BITSETS)) {
		errno = EMSGSIZE;
		return -1;
	}
	mnl_attr_nest_end(request, nest);
	return netif_netlink_dump(descriptor, sequence, family,
	    mnl_nlmsg_get_payload(request), mnl_nlmsg_get_payload_len(request),
	    netif_each_speed_message, &callback);
}
