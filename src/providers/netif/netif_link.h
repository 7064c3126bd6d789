/*
 * netif_link: what the kernel says of a network interface (link) and of its
 * counters, parsed from RTM_NEWLINK and RTM_NEWSTATS messages.
 *
 * This part of the netif provider knows nothing of dcistat's provider ABI, so
 * the unit tests can feed it synthetic netlink messages. Everything here
 * carries the netif_ prefix; the plug-in exports none of it.
 */
#ifndef NETIF_LINK_H
#define NETIF_LINK_H

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Internal to the plug-in: even without the build's export list, only
 * dci_provider_entry leaves the shared object. */
#pragma GCC visibility push(hidden)

/* IFNAMSIZ: the longest interface name including its NUL. */
#define NETIF_NAME_SIZE 16u
/* MAX_ADDR_LEN: the longest link-layer address the kernel reports. */
#define NETIF_ADDRESS_MAX 32u

/*
 * The counters, in the order of the fields of struct rtnl_link_stats64 and
 * struct rtnl_link_stats (<linux/if_link.h>), which is also the order of
 * netif_link.counters and netif_counter_names.
 */
enum netif_counter {
	NETIF_COUNTER_RX_PACKETS,
	NETIF_COUNTER_TX_PACKETS,
	NETIF_COUNTER_RX_BYTES,
	NETIF_COUNTER_TX_BYTES,
	NETIF_COUNTER_RX_ERRORS,
	NETIF_COUNTER_TX_ERRORS,
	NETIF_COUNTER_RX_DROPPED,
	NETIF_COUNTER_TX_DROPPED,
	NETIF_COUNTER_MULTICAST,
	NETIF_COUNTER_COLLISIONS,
	NETIF_COUNTER_RX_LENGTH_ERRORS,
	NETIF_COUNTER_RX_OVER_ERRORS,
	NETIF_COUNTER_RX_CRC_ERRORS,
	NETIF_COUNTER_RX_FRAME_ERRORS,
	NETIF_COUNTER_RX_FIFO_ERRORS,
	NETIF_COUNTER_RX_MISSED_ERRORS,
	NETIF_COUNTER_TX_ABORTED_ERRORS,
	NETIF_COUNTER_TX_CARRIER_ERRORS,
	NETIF_COUNTER_TX_FIFO_ERRORS,
	NETIF_COUNTER_TX_HEARTBEAT_ERRORS,
	NETIF_COUNTER_TX_WINDOW_ERRORS,
	NETIF_COUNTER_RX_COMPRESSED,
	NETIF_COUNTER_TX_COMPRESSED,
	NETIF_COUNTER_RX_NOHANDLER,
	NETIF_COUNTER_COUNT
};

/*
 * Every kernel that sends a statistics attribute sends at least this many
 * counters (rx_nohandler arrived in Linux 4.6); a shorter attribute is
 * malformed.
 */
#define NETIF_COUNTER_MINIMUM 23u

/* Counter names, as the files in /sys/class/net/IF/statistics/ are named. */
extern const char *const netif_counter_names[NETIF_COUNTER_COUNT];

/* One link as one RTM_NEWLINK message describes it. */
struct netif_link {
	uint32_t index;             /* ifIndex, > 0 */
	char name[NETIF_NAME_SIZE]; /* IFLA_IFNAME, NUL-terminated, non-empty */
	uint32_t flags;             /* ifi_flags: IFF_UP, IFF_RUNNING, ... */
	/* IFLA_STATS64, or IFLA_STATS widened when the kernel sent no
	 * IFLA_STATS64. Only the first counter_count entries are valid (0, 23
	 * or 24); counter_bits is 64, 32 (fallback, wraps at 2^32) or 0. */
	uint64_t counters[NETIF_COUNTER_COUNT];
	size_t counter_count;
	unsigned counter_bits;
	uint32_t mtu; /* IFLA_MTU; valid when has_mtu */
	bool has_mtu;
	uint8_t operstate; /* IFLA_OPERSTATE (IF_OPER_*); IF_OPER_UNKNOWN when
	                      absent */
	unsigned char address[NETIF_ADDRESS_MAX]; /* IFLA_ADDRESS */
	size_t address_length;                    /* 0 when absent */
	uint32_t carrier_changes; /* IFLA_CARRIER_CHANGES; valid when has_ */
	bool has_carrier_changes;
};

/*
 * Parses one netlink message. The caller guarantees that message points to
 * message->nlmsg_len readable bytes (at least a struct nlmsghdr), aligned as
 * netlink messages are; nothing past nlmsg_len is read.
 *
 * Returns 1 and fills *link for an RTM_NEWLINK message; 0, leaving *link
 * unspecified, for any other message type; -1 with errno EBADMSG when the
 * message is malformed: shorter than its ifinfomsg, an attribute that
 * overruns the message, an IFLA_MTU or IFLA_CARRIER_CHANGES of other than 4
 * bytes or an IFLA_OPERSTATE of other than 1, IFLA_STATS64 or IFLA_STATS
 * shorter than NETIF_COUNTER_MINIMUM counters, an IFLA_ADDRESS longer than
 * NETIF_ADDRESS_MAX, an IFLA_IFNAME missing, empty, longer than
 * NETIF_NAME_SIZE - 1 or whose last byte is not its NUL, a non-positive
 * ifIndex.
 */
int netif_link_parse(const struct nlmsghdr *message, struct netif_link *link);

/*
 * True when the link is operationally up: IFLA_OPERSTATE is IF_OPER_UP, or
 * IF_OPER_UNKNOWN (drivers that do not report a state, as loopback) with
 * both IFF_UP and IFF_RUNNING set.
 */
bool netif_link_is_up(const struct netif_link *link);

/* The counters of one link as one RTM_NEWSTATS message carries them. */
struct netif_link_stats {
	uint32_t index; /* ifIndex, > 0 */
	/* IFLA_STATS_LINK_64; the first counter_count entries are valid
	 * (NETIF_COUNTER_MINIMUM or more), the others 0. */
	uint64_t counters[NETIF_COUNTER_COUNT];
	size_t counter_count;
};

/*
 * Parses one netlink message, under the same guarantees as
 * netif_link_parse. Returns 1 and fills *stats for an RTM_NEWSTATS message;
 * 0 for any other message type; -1 with errno EBADMSG when the message is
 * malformed: shorter than its if_stats_msg, an ifIndex of 0 or above
 * INT32_MAX, an attribute that overruns the message, no IFLA_STATS_LINK_64
 * or one too short for the counters every kernel sends.
 */
int netif_stats_parse(
    const struct nlmsghdr *message, struct netif_link_stats *stats);

/*
 * Hands each netlink attribute of the `length` bytes at `payload` (a
 * message past its family header, or a nested attribute's payload) to
 * store, in libmnl's walk (mnl_attr_for_each_payload); store reads it with
 * mnl_attr_get_* after mnl_attr_validate or its own length check, and
 * returns MNL_CB_OK, or MNL_CB_ERROR to refuse it. Nothing past `length`
 * is read. Returns 0, or -1 with errno EBADMSG when store refused an
 * attribute or the bytes end inside one (an attribute header cut short, or
 * a length below its header or past the bytes): libmnl's walk stops there
 * without a word, so this checks that it reached the end.
 */
int netif_attributes_parse(
    const void *payload, size_t length, mnl_attr_cb_t store, void *target);

/*
 * netif_attributes_parse over the attributes of message that follow its
 * family header of family_header_size bytes (aligned as netlink aligns
 * it), up to nlmsg_len. Returns as netif_attributes_parse does; -1 with
 * errno EBADMSG as well when the message is shorter than its headers.
 */
int netif_message_attributes(const struct nlmsghdr *message,
    size_t family_header_size, mnl_attr_cb_t store, void *target);

#pragma GCC visibility pop

#endif
