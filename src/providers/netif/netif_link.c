/*
 * netif_link: the rtnetlink messages that describe a link (RTM_NEWLINK) and
 * its counters (RTM_NEWSTATS), parsed without trusting a byte of them:
 * libmnl walks the attributes and checks their types' sizes, within the
 * bounds netif_attributes_parse sets it.
 */
#define _GNU_SOURCE

#include "netif_link.h"

#include <errno.h>
#include <string.h>

#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

const char *const netif_counter_names[NETIF_COUNTER_COUNT] = {
    [NETIF_COUNTER_RX_PACKETS] = "rx_packets",
    [NETIF_COUNTER_TX_PACKETS] = "tx_packets",
    [NETIF_COUNTER_RX_BYTES] = "rx_bytes",
    [NETIF_COUNTER_TX_BYTES] = "tx_bytes",
    [NETIF_COUNTER_RX_ERRORS] = "rx_errors",
    [NETIF_COUNTER_TX_ERRORS] = "tx_errors",
    [NETIF_COUNTER_RX_DROPPED] = "rx_dropped",
    [NETIF_COUNTER_TX_DROPPED] = "tx_dropped",
    [NETIF_COUNTER_MULTICAST] = "multicast",
    [NETIF_COUNTER_COLLISIONS] = "collisions",
    [NETIF_COUNTER_RX_LENGTH_ERRORS] = "rx_length_errors",
    [NETIF_COUNTER_RX_OVER_ERRORS] = "rx_over_errors",
    [NETIF_COUNTER_RX_CRC_ERRORS] = "rx_crc_errors",
    [NETIF_COUNTER_RX_FRAME_ERRORS] = "rx_frame_errors",
    [NETIF_COUNTER_RX_FIFO_ERRORS] = "rx_fifo_errors",
    [NETIF_COUNTER_RX_MISSED_ERRORS] = "rx_missed_errors",
    [NETIF_COUNTER_TX_ABORTED_ERRORS] = "tx_aborted_errors",
    [NETIF_COUNTER_TX_CARRIER_ERRORS] = "tx_carrier_errors",
    [NETIF_COUNTER_TX_FIFO_ERRORS] = "tx_fifo_errors",
    [NETIF_COUNTER_TX_HEARTBEAT_ERRORS] = "tx_heartbeat_errors",
    [NETIF_COUNTER_TX_WINDOW_ERRORS] = "tx_window_errors",
    [NETIF_COUNTER_RX_COMPRESSED] = "rx_compressed",
    [NETIF_COUNTER_TX_COMPRESSED] = "tx_compressed",
    [NETIF_COUNTER_RX_NOHANDLER] = "rx_nohandler",
};

/* The counters lie in the kernel's structures in enum netif_counter order;
 * these catch a header whose layout would break that. */
_Static_assert(offsetof(struct rtnl_link_stats64, rx_nohandler) ==
                   NETIF_COUNTER_RX_NOHANDLER * sizeof(uint64_t),
    "rtnl_link_stats64 layout");
_Static_assert(offsetof(struct rtnl_link_stats, rx_nohandler) ==
                   NETIF_COUNTER_RX_NOHANDLER * sizeof(uint32_t),
    "rtnl_link_stats layout");

static int
netif_malformed(void)
{
	errno = EBADMSG;
	return -1;
}

/*
 * Stores a struct rtnl_link_stats64 payload (IFLA_STATS64,
 * IFLA_STATS_LINK_64) in counters, zeroing those the kernel did not send;
 * counters newer kernels append past NETIF_COUNTER_COUNT are ignored.
 * Returns 0, or -1 when the payload is shorter than any kernel sends.
 */
static int
netif_store_counters64(uint64_t counters[NETIF_COUNTER_COUNT], size_t *count,
    const unsigned char *payload, size_t length)
{
	if (length < NETIF_COUNTER_MINIMUM * sizeof(uint64_t))
		return -1;
	*count = length / sizeof(uint64_t);
	if (*count > NETIF_COUNTER_COUNT)
		*count = NETIF_COUNTER_COUNT;
	memset(counters, 0, NETIF_COUNTER_COUNT * sizeof counters[0]);
	memcpy(counters, payload, *count * sizeof(uint64_t));
	return 0;
}

/* Stores one attribute of a link message in link (an mnl_attr_cb_t).
 * Returns MNL_CB_OK, or MNL_CB_ERROR when its payload is not of its
 * type's size (fixed-size integers exactly, counters at least what every
 * kernel sends, a name NUL-terminated within IFNAMSIZ). */
static int
netif_parse_link_attribute(const struct nlattr *attribute, void *target)
{
	struct netif_link *link = target;
	const unsigned char *payload;
	size_t length, count;

	/* Most attributes of a link are none of these: the payload is
	 * looked up only for those that are (each a call into libmnl). */
	switch (mnl_attr_get_type(attribute)) {
	case IFLA_IFNAME:
		if (mnl_attr_validate(attribute, MNL_TYPE_NUL_STRING) != 0)
			return MNL_CB_ERROR;
		count = strlen(mnl_attr_get_str(attribute));
		if (count == 0 || count >= NETIF_NAME_SIZE)
			return MNL_CB_ERROR;
		memcpy(link->name, mnl_attr_get_str(attribute), count + 1);
		break;
	case IFLA_STATS64:
		if (netif_store_counters64(link->counters, &link->counter_count,
		        mnl_attr_get_payload(attribute),
		        mnl_attr_get_payload_len(attribute)) != 0)
			return MNL_CB_ERROR;
		link->counter_bits = 64;
		break;
	case IFLA_STATS:
		payload = mnl_attr_get_payload(attribute);
		length = mnl_attr_get_payload_len(attribute);
		if (length < NETIF_COUNTER_MINIMUM * sizeof(uint32_t))
			return MNL_CB_ERROR;
		if (link->counter_bits == 64)
			break; /* IFLA_STATS64 came first and wins */
		count = length / sizeof(uint32_t);
		if (count > NETIF_COUNTER_COUNT)
			count = NETIF_COUNTER_COUNT;
		memset(link->counters, 0, sizeof link->counters);
		for (size_t i = 0; i < count; i++) {
			uint32_t value;

			memcpy(
			    &value, payload + i * sizeof value, sizeof value);
			link->counters[i] = value;
		}
		link->counter_count = count;
		link->counter_bits = 32;
		break;
	case IFLA_ADDRESS:
		length = mnl_attr_get_payload_len(attribute);
		if (length > NETIF_ADDRESS_MAX)
			return MNL_CB_ERROR;
		memcpy(link->address, mnl_attr_get_payload(attribute), length);
		link->address_length = length;
		break;
	case IFLA_MTU:
		if (mnl_attr_validate(attribute, MNL_TYPE_U32) != 0)
			return MNL_CB_ERROR;
		link->mtu = mnl_attr_get_u32(attribute);
		link->has_mtu = true;
		break;
	case IFLA_OPERSTATE:
		if (mnl_attr_validate(attribute, MNL_TYPE_U8) != 0)
			return MNL_CB_ERROR;
		link->operstate = mnl_attr_get_u8(attribute);
		break;
	case IFLA_CARRIER_CHANGES:
		if (mnl_attr_validate(attribute, MNL_TYPE_U32) != 0)
			return MNL_CB_ERROR;
		link->carrier_changes = mnl_attr_get_u32(attribute);
		link->has_carrier_changes = true;
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

/*
 * A loop of libmnl's own (mnl_attr_for_each_payload) rather than
 * mnl_attr_parse_payload: that would need a callback between it and store
 * to learn where the walk stopped, one more indirect call per attribute.
 */
int
netif_attributes_parse(
    const void *payload, size_t length, mnl_attr_cb_t store, void *target)
{
	const struct nlattr *attr; /* the name the loop macro uses */
	size_t reached = 0;

	/* libmnl measures what is left in an int. */
	if (length > INT32_MAX)
		return netif_malformed();
	mnl_attr_for_each_payload(payload, length)
	{
		if (store(attr, target) != MNL_CB_OK)
			return netif_malformed();
		reached = (size_t)((const unsigned char *)attr -
		                   (const unsigned char *)payload) +
		          MNL_ALIGN(attr->nla_len);
	}
	/* The walk stops silently at an attribute that does not fit; the
	 * last one's padding may lie past the bytes. */
	if (reached < length)
		return netif_malformed();
	return 0;
}

int
netif_message_attributes(const struct nlmsghdr *message,
    size_t family_header_size, mnl_attr_cb_t store, void *target)
{
	size_t offset = MNL_NLMSG_HDRLEN + MNL_ALIGN(family_header_size);

	if (message->nlmsg_len < offset)
		return netif_malformed();
	return netif_attributes_parse(
	    mnl_nlmsg_get_payload_offset(message, (int)family_header_size),
	    message->nlmsg_len - offset, store, target);
}

/*
 * Copies the fixed header (ifinfomsg, if_stats_msg: `size` bytes) that
 * follows the netlink header of a message of `type` into *header. Returns
 * 1; 0 for a message of another type; -1 (netif_malformed) when the message
 * is too short for it. Copied out: nothing here relies on the buffer's
 * alignment.
 */
static int
netif_message_header(
    const struct nlmsghdr *message, uint16_t type, void *header, size_t size)
{
	if (message->nlmsg_len < MNL_NLMSG_HDRLEN)
		return netif_malformed();
	if (message->nlmsg_type != type)
		return 0;
	if (mnl_nlmsg_get_payload_len(message) < size)
		return netif_malformed();
	memcpy(header, mnl_nlmsg_get_payload(message), size);
	return 1;
}

int
netif_link_parse(const struct nlmsghdr *message, struct netif_link *link)
{
	struct ifinfomsg information;
	int found = netif_message_header(
	    message, RTM_NEWLINK, &information, sizeof information);

	if (found != 1)
		return found;
	if (information.ifi_index <= 0)
		return netif_malformed();

	memset(link, 0, sizeof *link);
	link->index = (uint32_t)information.ifi_index;
	link->flags = information.ifi_flags;
	link->operstate = IF_OPER_UNKNOWN;

	if (netif_message_attributes(message, sizeof information,
	        netif_parse_link_attribute, link) != 0)
		return -1;
	if (link->name[0] == '\0')
		return netif_malformed();
	return 1;
}

bool
netif_link_is_up(const struct netif_link *link)
{
	const uint32_t up_running = IFF_UP | IFF_RUNNING;

	if (link->operstate == IF_OPER_UP)
		return true;
	return link->operstate == IF_OPER_UNKNOWN &&
	       (link->flags & up_running) == up_running;
}

static int
netif_parse_stats_attribute(const struct nlattr *attribute, void *target)
{
	struct netif_link_stats *stats = target;

	if (mnl_attr_get_type(attribute) != IFLA_STATS_LINK_64)
		return MNL_CB_OK;
	if (netif_store_counters64(stats->counters, &stats->counter_count,
	        mnl_attr_get_payload(attribute),
	        mnl_attr_get_payload_len(attribute)) != 0)
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

int
netif_stats_parse(
    const struct nlmsghdr *message, struct netif_link_stats *stats)
{
	struct if_stats_msg header;
	int found =
	    netif_message_header(message, RTM_NEWSTATS, &header, sizeof header);

	if (found != 1)
		return found;
	if (header.ifindex == 0 || header.ifindex > INT32_MAX)
		return netif_malformed();

	memset(stats, 0, sizeof *stats);
	stats->index = header.ifindex;
	if (netif_message_attributes(message, sizeof header,
	        netif_parse_stats_attribute, stats) != 0)
		return -1;
	/* Asked for by the dump's filter; a reply without it is no answer. */
	if (stats->counter_count == 0)
		return netif_malformed();
	return 1;
}
