/*
 * netif_link: the rtnetlink messages that describe a link (RTM_NEWLINK) and
 * its counters (RTM_NEWSTATS), parsed without trusting a byte of them.
 */
#define _GNU_SOURCE

#include "netif_link.h"

#include <errno.h>
#include <string.h>

#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#define NETIF_MESSAGE_HEADER_LENGTH                                            \
	((size_t)NLMSG_ALIGN(sizeof(struct nlmsghdr)))
#define NETIF_ATTRIBUTE_HEADER_LENGTH ((size_t)RTA_ALIGN(sizeof(struct rtattr)))

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

/* Stores one attribute's payload in link. Returns 0, or -1 when the payload
 * is too short (or too long) for its type. */
static int
netif_parse_link_attribute(
    void *target, unsigned type, const unsigned char *payload, size_t length)
{
	struct netif_link *link = target;
	size_t count;

	switch (type) {
	case IFLA_IFNAME:
		count = strnlen((const char *)payload, length);
		if (count == length || count == 0 || count >= NETIF_NAME_SIZE)
			return -1;
		memcpy(link->name, payload, count);
		link->name[count] = '\0';
		break;
	case IFLA_STATS64:
		if (netif_store_counters64(link->counters, &link->counter_count,
		        payload, length) != 0)
			return -1;
		link->counter_bits = 64;
		break;
	case IFLA_STATS:
		if (length < NETIF_COUNTER_MINIMUM * sizeof(uint32_t))
			return -1;
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
		if (length > NETIF_ADDRESS_MAX)
			return -1;
		memcpy(link->address, payload, length);
		link->address_length = length;
		break;
	case IFLA_MTU:
		if (length < sizeof link->mtu)
			return -1;
		memcpy(&link->mtu, payload, sizeof link->mtu);
		link->has_mtu = true;
		break;
	case IFLA_OPERSTATE:
		if (length < sizeof link->operstate)
			return -1;
		link->operstate = payload[0];
		break;
	case IFLA_CARRIER_CHANGES:
		if (length < sizeof link->carrier_changes)
			return -1;
		memcpy(&link->carrier_changes, payload,
		    sizeof link->carrier_changes);
		link->has_carrier_changes = true;
		break;
	default:
		break;
	}
	return 0;
}

int
netif_attributes_walk(const unsigned char *bytes, size_t length,
    netif_attribute_store store, void *target)
{
	size_t offset = 0;

	while (offset < length) {
		struct rtattr attribute;

		if (length - offset < sizeof attribute)
			return netif_malformed();
		memcpy(&attribute, bytes + offset, sizeof attribute);
		if (attribute.rta_len < NETIF_ATTRIBUTE_HEADER_LENGTH ||
		    attribute.rta_len > length - offset)
			return netif_malformed();
		if (store(target,
		        (unsigned)(attribute.rta_type & NLA_TYPE_MASK),
		        bytes + offset + NETIF_ATTRIBUTE_HEADER_LENGTH,
		        attribute.rta_len - NETIF_ATTRIBUTE_HEADER_LENGTH) != 0)
			return netif_malformed();
		/* The last attribute's padding may lie past the buffer. */
		offset += RTA_ALIGN(attribute.rta_len);
	}
	return 0;
}

/* The attributes of message from offset (past the family header). */
static int
netif_parse_attributes(const struct nlmsghdr *message, size_t offset,
    netif_attribute_store store, void *target)
{
	if (offset > message->nlmsg_len)
		return netif_malformed();
	return netif_attributes_walk((const unsigned char *)message + offset,
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
	size_t length = message->nlmsg_len;

	if (length < NETIF_MESSAGE_HEADER_LENGTH)
		return netif_malformed();
	if (message->nlmsg_type != type)
		return 0;
	if (length < NETIF_MESSAGE_HEADER_LENGTH + size)
		return netif_malformed();
	memcpy(header,
	    (const unsigned char *)message + NETIF_MESSAGE_HEADER_LENGTH, size);
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

	if (netif_parse_attributes(message,
	        NETIF_MESSAGE_HEADER_LENGTH + NLMSG_ALIGN(sizeof information),
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
netif_parse_stats_attribute(
    void *target, unsigned type, const unsigned char *payload, size_t length)
{
	struct netif_link_stats *stats = target;

	if (type != IFLA_STATS_LINK_64)
		return 0;
	return netif_store_counters64(
	    stats->counters, &stats->counter_count, payload, length);
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
	if (netif_parse_attributes(message,
	        NETIF_MESSAGE_HEADER_LENGTH + NLMSG_ALIGN(sizeof header),
	        netif_parse_stats_attribute, stats) != 0)
		return -1;
	/* Asked for by the dump's filter; a reply without it is no answer. */
	if (stats->counter_count == 0)
		return netif_malformed();
	return 1;
}
