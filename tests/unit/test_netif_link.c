/*
 * Unit tests of the netif provider's rtnetlink part: parsing of synthetic
 * RTM_NEWLINK and RTM_NEWSTATS messages, handling of dump datagrams, real
 * link and counters dumps, and link notifications in a network namespace
 * of the test's own.
 *
 * Every message is handed to the parser in a heap block of exactly
 * nlmsg_len bytes, so AddressSanitizer catches any read past the message.
 */
#define _GNU_SOURCE

#include "providers/netif/netif_ethtool.h"
#include "providers/netif/netif_netlink.h"

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "check_runner.h"

/* A netlink message (or datagram of messages) under construction. */
struct netif_test_builder {
	_Alignas(8) unsigned char buffer[8192];
	size_t length;     /* of the whole datagram */
	size_t message_at; /* offset of the message being built */
};

static struct nlmsghdr *
netif_test_message(struct netif_test_builder *builder)
{
	return (
	    struct nlmsghdr *)(void *)(builder->buffer + builder->message_at);
}

/* Starts a new message after the previous ones (call with a zeroed builder
 * for the first). Link messages get an ifinfomsg, counters messages an
 * if_stats_msg. */
static void
netif_test_start(struct netif_test_builder *builder, uint16_t type,
    uint16_t flags, uint32_t sequence, int index, unsigned link_flags)
{
	struct nlmsghdr *header;

	builder->message_at = builder->length;
	header = netif_test_message(builder);
	header->nlmsg_type = type;
	header->nlmsg_flags = flags;
	header->nlmsg_seq = sequence;
	header->nlmsg_len = NLMSG_HDRLEN;
	if (type == RTM_NEWLINK || type == RTM_NEWADDR) {
		struct ifinfomsg *information = NLMSG_DATA(header);

		information->ifi_family = AF_UNSPEC;
		information->ifi_index = index;
		information->ifi_flags = link_flags;
		header->nlmsg_len = NLMSG_LENGTH(sizeof *information);
	} else if (type == RTM_NEWSTATS) {
		struct if_stats_msg *statistics = NLMSG_DATA(header);

		memset(statistics, 0, sizeof *statistics);
		statistics->family = AF_UNSPEC;
		statistics->ifindex = (uint32_t)index;
		statistics->filter_mask =
		    IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
		header->nlmsg_len = NLMSG_LENGTH(sizeof *statistics);
	}
	builder->length = builder->message_at + NLMSG_ALIGN(header->nlmsg_len);
}

/* Appends a payload to the current message (no attribute header). */
static void
netif_test_payload(
    struct netif_test_builder *builder, const void *data, size_t length)
{
	struct nlmsghdr *header = netif_test_message(builder);

	ck_assert_uint_le(
	    builder->length + NLMSG_ALIGN(length), sizeof builder->buffer);
	memcpy(builder->buffer + builder->length, data, length);
	header->nlmsg_len =
	    (uint32_t)(builder->length - builder->message_at + length);
	builder->length += NLMSG_ALIGN(length);
}

static void
netif_test_attribute(struct netif_test_builder *builder, unsigned short type,
    const void *data, size_t length)
{
	struct nlmsghdr *header = netif_test_message(builder);
	struct rtattr *attribute;

	ck_assert_uint_le(
	    builder->length + RTA_SPACE(length), sizeof builder->buffer);
	attribute =
	    (struct rtattr *)(void *)(builder->buffer + builder->length);
	attribute->rta_type = type;
	attribute->rta_len = (unsigned short)RTA_LENGTH(length);
	if (length > 0)
		memcpy(RTA_DATA(attribute), data, length);
	builder->length += RTA_SPACE(length);
	header->nlmsg_len = (uint32_t)(builder->length - builder->message_at);
}

static void
netif_test_string(
    struct netif_test_builder *builder, unsigned short type, const char *text)
{
	netif_test_attribute(builder, type, text, strlen(text) + 1);
}

static void
netif_test_u32(
    struct netif_test_builder *builder, unsigned short type, uint32_t value)
{
	netif_test_attribute(builder, type, &value, sizeof value);
}

/* The current message in a heap block of exactly its nlmsg_len bytes, so
 * AddressSanitizer catches a read past it; errno is cleared for the
 * parser. The caller frees it. */
static struct nlmsghdr *
netif_test_copy(const struct netif_test_builder *builder)
{
	const struct nlmsghdr *header =
	    (const struct nlmsghdr *)(const void *)(builder->buffer +
	                                            builder->message_at);
	struct nlmsghdr *copy = malloc(header->nlmsg_len);

	ck_assert_ptr_ne(copy, NULL);
	memcpy(copy, header, header->nlmsg_len);
	errno = 0;
	return copy;
}

/* Parses the current message as a link. */
static int
netif_test_parse(
    const struct netif_test_builder *builder, struct netif_link *link)
{
	struct nlmsghdr *copy = netif_test_copy(builder);
	int result = netif_link_parse(copy, link);

	free(copy);
	return result;
}

/* Parses the current message as counters. */
static int
netif_test_parse_stats(
    const struct netif_test_builder *builder, struct netif_link_stats *stats)
{
	struct nlmsghdr *copy = netif_test_copy(builder);
	int result = netif_stats_parse(copy, stats);

	free(copy);
	return result;
}

/* Handles the whole datagram from an exact-size heap copy. */
static int
netif_test_datagram(
    const struct netif_test_builder *builder, struct netif_dump_state *state)
{
	void *copy = malloc(builder->length);
	int result;

	ck_assert_ptr_ne(copy, NULL);
	memcpy(copy, builder->buffer, builder->length);
	errno = 0;
	result = netif_dump_datagram(state, copy, builder->length);
	free(copy);
	return result;
}

/* A link message with a name and nothing else. */
static void
netif_test_minimal(
    struct netif_test_builder *builder, int index, const char *name)
{
	memset(builder, 0, sizeof *builder);
	netif_test_start(builder, RTM_NEWLINK, NLM_F_MULTI, 1, index, 0);
	netif_test_string(builder, IFLA_IFNAME, name);
}

START_TEST(test_parse_fields)
{
	static const unsigned char address[6] = {
	    0x02, 0xfc, 0x00, 0x12, 0x34, 0x56};
	static const unsigned char broadcast[6] = {
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	struct netif_test_builder builder;
	struct netif_link link;
	uint8_t operstate = IF_OPER_UP;
	uint32_t queue = 1000;

	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWLINK, NLM_F_MULTI, 1, 7,
	    IFF_UP | IFF_RUNNING | IFF_BROADCAST);
	netif_test_u32(&builder, IFLA_TXQLEN, queue); /* ignored */
	netif_test_string(&builder, IFLA_IFNAME, "enp7s0");
	netif_test_attribute(&builder, IFLA_ADDRESS, address, sizeof address);
	netif_test_attribute(
	    &builder, IFLA_BROADCAST, broadcast, sizeof broadcast);
	netif_test_u32(&builder, IFLA_MTU, 9000);
	netif_test_attribute(
	    &builder, IFLA_OPERSTATE, &operstate, sizeof operstate);
	/* A nested attribute, flagged as such: skipped whole. */
	netif_test_attribute(
	    &builder, IFLA_LINKINFO | NLA_F_NESTED, "\0\0\0\0", 4);
	netif_test_u32(&builder, IFLA_CARRIER_CHANGES, 5);

	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.index, 7);
	ck_assert_str_eq(link.name, "enp7s0");
	ck_assert_uint_eq(link.flags, IFF_UP | IFF_RUNNING | IFF_BROADCAST);
	ck_assert(link.has_mtu);
	ck_assert_uint_eq(link.mtu, 9000);
	ck_assert_uint_eq(link.operstate, IF_OPER_UP);
	ck_assert_uint_eq(link.address_length, 6);
	ck_assert_int_eq(memcmp(link.address, address, 6), 0);
	ck_assert(link.has_carrier_changes);
	ck_assert_uint_eq(link.carrier_changes, 5);
	ck_assert_uint_eq(link.counter_count, 0);
	ck_assert_uint_eq(link.counter_bits, 0);
	ck_assert(netif_link_is_up(&link));
}
END_TEST

START_TEST(test_parse_defaults)
{
	struct netif_test_builder builder;
	struct netif_link link;

	netif_test_minimal(&builder, 3, "dummy0");
	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.index, 3);
	ck_assert_str_eq(link.name, "dummy0");
	ck_assert(!link.has_mtu);
	ck_assert(!link.has_carrier_changes);
	ck_assert_uint_eq(link.operstate, IF_OPER_UNKNOWN);
	ck_assert_uint_eq(link.address_length, 0);
	ck_assert_uint_eq(link.counter_count, 0);
}
END_TEST

/* Distinct values with high bits set, so a swapped field or a truncation
 * to 32 bits shows. */
#define NETIF_TEST_VALUE64(n) ((uint64_t)(n) << 40 | (uint64_t)(n)*0x1111u)
#define NETIF_TEST_VALUE32(n) (0x80000000u | (uint32_t)(n)*0x10101u)

#define NETIF_TEST_FILL_STATS(stats, value)                                    \
	do {                                                                   \
		(stats).rx_packets = value(1);                                 \
		(stats).tx_packets = value(2);                                 \
		(stats).rx_bytes = value(3);                                   \
		(stats).tx_bytes = value(4);                                   \
		(stats).rx_errors = value(5);                                  \
		(stats).tx_errors = value(6);                                  \
		(stats).rx_dropped = value(7);                                 \
		(stats).tx_dropped = value(8);                                 \
		(stats).multicast = value(9);                                  \
		(stats).collisions = value(10);                                \
		(stats).rx_length_errors = value(11);                          \
		(stats).rx_over_errors = value(12);                            \
		(stats).rx_crc_errors = value(13);                             \
		(stats).rx_frame_errors = value(14);                           \
		(stats).rx_fifo_errors = value(15);                            \
		(stats).rx_missed_errors = value(16);                          \
		(stats).tx_aborted_errors = value(17);                         \
		(stats).tx_carrier_errors = value(18);                         \
		(stats).tx_fifo_errors = value(19);                            \
		(stats).tx_heartbeat_errors = value(20);                       \
		(stats).tx_window_errors = value(21);                          \
		(stats).rx_compressed = value(22);                             \
		(stats).tx_compressed = value(23);                             \
		(stats).rx_nohandler = value(24);                              \
	} while (0)

/* Compares every counter with the kernel structure's field of that name. */
#define NETIF_TEST_CHECK_STATS(link, stats)                                    \
	do {                                                                   \
		const uint64_t *c = (link).counters;                           \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_RX_PACKETS], (stats).rx_packets);          \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_TX_PACKETS], (stats).tx_packets);          \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_RX_BYTES], (stats).rx_bytes);              \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_TX_BYTES], (stats).tx_bytes);              \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_RX_ERRORS], (stats).rx_errors);            \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_TX_ERRORS], (stats).tx_errors);            \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_RX_DROPPED], (stats).rx_dropped);          \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_TX_DROPPED], (stats).tx_dropped);          \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_MULTICAST], (stats).multicast);            \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_COLLISIONS], (stats).collisions);          \
		ck_assert_uint_eq(c[NETIF_COUNTER_RX_LENGTH_ERRORS],           \
		    (stats).rx_length_errors);                                 \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_RX_OVER_ERRORS], (stats).rx_over_errors);  \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_RX_CRC_ERRORS], (stats).rx_crc_errors);    \
		ck_assert_uint_eq(c[NETIF_COUNTER_RX_FRAME_ERRORS],            \
		    (stats).rx_frame_errors);                                  \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_RX_FIFO_ERRORS], (stats).rx_fifo_errors);  \
		ck_assert_uint_eq(c[NETIF_COUNTER_RX_MISSED_ERRORS],           \
		    (stats).rx_missed_errors);                                 \
		ck_assert_uint_eq(c[NETIF_COUNTER_TX_ABORTED_ERRORS],          \
		    (stats).tx_aborted_errors);                                \
		ck_assert_uint_eq(c[NETIF_COUNTER_TX_CARRIER_ERRORS],          \
		    (stats).tx_carrier_errors);                                \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_TX_FIFO_ERRORS], (stats).tx_fifo_errors);  \
		ck_assert_uint_eq(c[NETIF_COUNTER_TX_HEARTBEAT_ERRORS],        \
		    (stats).tx_heartbeat_errors);                              \
		ck_assert_uint_eq(c[NETIF_COUNTER_TX_WINDOW_ERRORS],           \
		    (stats).tx_window_errors);                                 \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_RX_COMPRESSED], (stats).rx_compressed);    \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_TX_COMPRESSED], (stats).tx_compressed);    \
		ck_assert_uint_eq(                                             \
		    c[NETIF_COUNTER_RX_NOHANDLER], (stats).rx_nohandler);      \
	} while (0)

START_TEST(test_parse_stats64)
{
	struct netif_test_builder builder;
	struct netif_link link;
	struct rtnl_link_stats64 stats;

	memset(&stats, 0xee, sizeof stats); /* fields past ours: ignored */
	NETIF_TEST_FILL_STATS(stats, NETIF_TEST_VALUE64);
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_attribute(&builder, IFLA_STATS64, &stats, sizeof stats);

	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.counter_bits, 64);
	ck_assert_uint_eq(link.counter_count, NETIF_COUNTER_COUNT);
	NETIF_TEST_CHECK_STATS(link, stats);
}
END_TEST

/* Kernels before 4.6 send 23 counters (no rx_nohandler). */
START_TEST(test_parse_stats64_short)
{
	struct netif_test_builder builder;
	struct netif_link link;
	struct rtnl_link_stats64 stats;

	memset(&stats, 0, sizeof stats);
	NETIF_TEST_FILL_STATS(stats, NETIF_TEST_VALUE64);
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_attribute(
	    &builder, IFLA_STATS64, &stats, 23 * sizeof(uint64_t));
	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.counter_count, 23);
	ck_assert_uint_eq(
	    link.counters[NETIF_COUNTER_TX_COMPRESSED], stats.tx_compressed);

	netif_test_minimal(&builder, 2, "eth0");
	netif_test_attribute(
	    &builder, IFLA_STATS64, &stats, 22 * sizeof(uint64_t));
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
	ck_assert_int_eq(errno, EBADMSG);
}
END_TEST

START_TEST(test_parse_stats32_fallback)
{
	struct netif_test_builder builder;
	struct netif_link link;
	struct rtnl_link_stats stats;

	memset(&stats, 0, sizeof stats);
	NETIF_TEST_FILL_STATS(stats, NETIF_TEST_VALUE32);
	netif_test_minimal(&builder, 4, "slip0");
	netif_test_attribute(&builder, IFLA_STATS, &stats, sizeof stats);

	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.counter_bits, 32);
	ck_assert_uint_eq(link.counter_count, NETIF_COUNTER_COUNT);
	NETIF_TEST_CHECK_STATS(link, stats);
	/* Widened, not sign-extended. */
	ck_assert_uint_eq(link.counters[NETIF_COUNTER_RX_PACKETS] >> 32, 0);
}
END_TEST

START_TEST(test_parse_stats64_preferred)
{
	struct netif_test_builder builder;
	struct netif_link link;
	struct rtnl_link_stats64 stats64;
	struct rtnl_link_stats stats32;

	memset(&stats64, 0, sizeof stats64);
	memset(&stats32, 0, sizeof stats32);
	NETIF_TEST_FILL_STATS(stats64, NETIF_TEST_VALUE64);
	NETIF_TEST_FILL_STATS(stats32, NETIF_TEST_VALUE32);

	/* The kernel's order: IFLA_STATS, then IFLA_STATS64. */
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_attribute(&builder, IFLA_STATS, &stats32, sizeof stats32);
	netif_test_attribute(&builder, IFLA_STATS64, &stats64, sizeof stats64);
	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.counter_bits, 64);
	NETIF_TEST_CHECK_STATS(link, stats64);

	/* The other order. */
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_attribute(&builder, IFLA_STATS64, &stats64, sizeof stats64);
	netif_test_attribute(&builder, IFLA_STATS, &stats32, sizeof stats32);
	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.counter_bits, 64);
	NETIF_TEST_CHECK_STATS(link, stats64);
}
END_TEST

START_TEST(test_parse_address_lengths)
{
	static const unsigned char tunnel[4] = {192, 0, 2, 1};
	unsigned char infiniband[20];
	unsigned char too_long[NETIF_ADDRESS_MAX + 1];
	struct netif_test_builder builder;
	struct netif_link link;

	netif_test_minimal(&builder, 5, "tunl0");
	netif_test_attribute(&builder, IFLA_ADDRESS, tunnel, sizeof tunnel);
	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.address_length, 4);
	ck_assert_int_eq(memcmp(link.address, tunnel, 4), 0);

	for (size_t i = 0; i < sizeof infiniband; i++)
		infiniband[i] = (unsigned char)(0xa0 + i);
	netif_test_minimal(&builder, 6, "ib0");
	netif_test_attribute(
	    &builder, IFLA_ADDRESS, infiniband, sizeof infiniband);
	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.address_length, 20);
	ck_assert_int_eq(memcmp(link.address, infiniband, 20), 0);

	memset(too_long, 1, sizeof too_long);
	netif_test_minimal(&builder, 6, "ib0");
	netif_test_attribute(&builder, IFLA_ADDRESS, too_long, sizeof too_long);
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
}
END_TEST

/* An attribute whose length runs past the end of the message. */
START_TEST(test_parse_truncated_attribute)
{
	struct netif_test_builder builder;
	struct netif_link link;
	struct rtnl_link_stats64 stats;
	struct nlmsghdr *header;

	memset(&stats, 0, sizeof stats);
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_attribute(&builder, IFLA_STATS64, &stats, sizeof stats);
	header = netif_test_message(&builder);
	header->nlmsg_len -= 8; /* cut into the stats payload */
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* Only part of an attribute header left. */
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_u32(&builder, IFLA_MTU, 1500);
	header = netif_test_message(&builder);
	header->nlmsg_len -= 6;
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* An attribute length shorter than its own header. */
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_u32(&builder, IFLA_MTU, 1500);
	((struct rtattr *)(void *)(builder.buffer + builder.length - 8))
	    ->rta_len = 2;
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* The name itself cut off. */
	netif_test_minimal(&builder, 2, "a-long-name");
	header = netif_test_message(&builder);
	header->nlmsg_len -= 4;
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
}
END_TEST

/* Attributes too short for their type. */
START_TEST(test_parse_short_payloads)
{
	static const unsigned short types[] = {
	    IFLA_MTU, IFLA_CARRIER_CHANGES, IFLA_OPERSTATE, IFLA_STATS};
	struct netif_test_builder builder;
	struct netif_link link;

	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		size_t length = types[i] == IFLA_OPERSTATE ? 0 : 2;

		netif_test_minimal(&builder, 2, "eth0");
		netif_test_attribute(&builder, types[i], "\1\2", length);
		ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
		ck_assert_int_eq(errno, EBADMSG);
	}
}
END_TEST

/* Fixed-size attributes of any other size, as libmnl's mnl_attr_validate
 * checks them: refused, longer as well as shorter. */
START_TEST(test_parse_exact_sizes)
{
	static const struct {
		unsigned short type;
		size_t length;
	} cases[] = {
	    {IFLA_MTU, 8},
	    {IFLA_CARRIER_CHANGES, 8},
	    {IFLA_OPERSTATE, 4},
	    {IFLA_OPERSTATE, 2},
	};
	static const unsigned char payload[8] = {0xdc, 5, 0, 0, 0, 0, 0, 0};
	struct netif_test_builder builder;
	struct netif_link link;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		netif_test_minimal(&builder, 2, "eth0");
		netif_test_attribute(
		    &builder, cases[i].type, payload, cases[i].length);
		ck_assert_msg(netif_test_parse(&builder, &link) == -1,
		    "case %zu accepted", i);
		ck_assert_int_eq(errno, EBADMSG);
	}
	/* The sizes the kernel sends. */
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_attribute(&builder, IFLA_MTU, payload, 4);
	netif_test_attribute(&builder, IFLA_OPERSTATE, "\6", 1);
	netif_test_u32(&builder, IFLA_CARRIER_CHANGES, 3);
	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.mtu, 1500);
	ck_assert_uint_eq(link.operstate, IF_OPER_UP);
	ck_assert_uint_eq(link.carrier_changes, 3);
}
END_TEST

/* The last attribute reaching into the alignment padding after nlmsg_len:
 * refused, nothing past nlmsg_len read (mnl_attr_parse itself would walk
 * to the aligned end). */
START_TEST(test_parse_attribute_into_padding)
{
	struct netif_test_builder builder;
	struct netif_link link;

	netif_test_minimal(&builder, 2, "eth0");
	netif_test_u32(&builder, IFLA_TXQLEN, 1000);
	netif_test_message(&builder)->nlmsg_len -= 3;
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* Ending exactly at an unaligned nlmsg_len is well formed. */
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_attribute(&builder, IFLA_OPERSTATE, "\6", 1);
	netif_test_message(&builder)->nlmsg_len -= 3;
	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_uint_eq(link.operstate, IF_OPER_UP);
}
END_TEST

START_TEST(test_parse_bad_names)
{
	struct netif_test_builder builder;
	struct netif_link link;

	/* No name at all. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWLINK, 0, 1, 2, 0);
	netif_test_u32(&builder, IFLA_MTU, 1500);
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);

	/* Empty. */
	netif_test_minimal(&builder, 2, "");
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);

	/* Longer than IFNAMSIZ - 1. */
	netif_test_minimal(&builder, 2, "sixteen-chars-xx");
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);

	/* The longest valid name. */
	netif_test_minimal(&builder, 2, "fifteen-chars-x");
	ck_assert_int_eq(netif_test_parse(&builder, &link), 1);
	ck_assert_str_eq(link.name, "fifteen-chars-x");

	/* Without its NUL. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWLINK, 0, 1, 2, 0);
	netif_test_attribute(&builder, IFLA_IFNAME, "eth0", 4);
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);

	/* A NUL inside, but not as its last byte. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWLINK, 0, 1, 2, 0);
	netif_test_attribute(&builder, IFLA_IFNAME, "eth0\0x", 6);
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
	ck_assert_int_eq(errno, EBADMSG);
}
END_TEST

START_TEST(test_parse_not_link)
{
	struct netif_test_builder builder;
	struct netif_link link;
	struct nlmsghdr *header;

	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWADDR, 0, 1, 2, 0);
	ck_assert_int_eq(netif_test_parse(&builder, &link), 0);

	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, NLMSG_DONE, NLM_F_MULTI, 1, 0, 0);
	ck_assert_int_eq(netif_test_parse(&builder, &link), 0);

	/* A link message too short for its ifinfomsg. */
	netif_test_minimal(&builder, 2, "eth0");
	header = netif_test_message(&builder);
	header->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg) - 4);
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* A link message with no valid ifIndex. */
	netif_test_minimal(&builder, 0, "eth0");
	ck_assert_int_eq(netif_test_parse(&builder, &link), -1);
}
END_TEST

START_TEST(test_is_up)
{
	static const struct {
		uint8_t operstate;
		uint32_t flags;
		bool up;
	} cases[] = {
	    {IF_OPER_UP, IFF_UP | IFF_RUNNING, true},
	    {IF_OPER_UP, 0, true},
	    {IF_OPER_UNKNOWN, IFF_UP | IFF_RUNNING | IFF_LOOPBACK, true},
	    {IF_OPER_UNKNOWN, IFF_UP, false},
	    {IF_OPER_UNKNOWN, IFF_RUNNING, false},
	    {IF_OPER_DOWN, IFF_UP | IFF_RUNNING, false},
	    {IF_OPER_LOWERLAYERDOWN, IFF_UP, false},
	    {IF_OPER_DORMANT, IFF_UP | IFF_RUNNING, false},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct netif_link link;

		memset(&link, 0, sizeof link);
		link.operstate = cases[i].operstate;
		link.flags = cases[i].flags;
		ck_assert_msg(
		    netif_link_is_up(&link) == cases[i].up, "case %zu", i);
	}
}
END_TEST

START_TEST(test_counter_names)
{
	static const char *const expected[NETIF_COUNTER_COUNT] = {"rx_packets",
	    "tx_packets", "rx_bytes", "tx_bytes", "rx_errors", "tx_errors",
	    "rx_dropped", "tx_dropped", "multicast", "collisions",
	    "rx_length_errors", "rx_over_errors", "rx_crc_errors",
	    "rx_frame_errors", "rx_fifo_errors", "rx_missed_errors",
	    "tx_aborted_errors", "tx_carrier_errors", "tx_fifo_errors",
	    "tx_heartbeat_errors", "tx_window_errors", "rx_compressed",
	    "tx_compressed", "rx_nohandler"};

	for (size_t i = 0; i < NETIF_COUNTER_COUNT; i++) {
		char path[128];

		ck_assert_str_eq(netif_counter_names[i], expected[i]);
		/* Named as this kernel's sysfs files are. */
		snprintf(path, sizeof path, "/sys/class/net/lo/statistics/%s",
		    netif_counter_names[i]);
		if (access("/sys/class/net/lo/statistics", F_OK) == 0)
			ck_assert_msg(
			    access(path, F_OK) == 0, "%s missing", path);
	}
}
END_TEST

/* Records what a dump hands to its callback. */
struct netif_test_seen {
	char names[8][NETIF_NAME_SIZE];
	size_t count;
	size_t stop_after; /* 0: never stop */
};

static int
netif_test_record(const struct netif_link *link, void *context)
{
	struct netif_test_seen *seen = context;

	if (seen->count < 8)
		memcpy(seen->names[seen->count], link->name, NETIF_NAME_SIZE);
	seen->count++;
	return seen->stop_after != 0 && seen->count >= seen->stop_after;
}

/* A dump's message callback that parses links and records them, as
 * netif_link_dump does with its link callback. */
static int
netif_test_link_message(const struct nlmsghdr *message, void *context)
{
	struct netif_link link;
	int result = netif_link_parse(message, &link);

	if (result <= 0)
		return result;
	return netif_test_record(&link, context) != 0;
}

/* A datagram of several parts: a stale reply, two links, DONE. */
START_TEST(test_datagram_multipart)
{
	struct netif_test_builder builder;
	struct netif_test_seen seen = {.count = 0};
	struct netif_dump_state state = {
	    .sequence = 42,
	    .each = netif_test_link_message,
	    .context = &seen,
	};
	int zero = 0;

	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWLINK, NLM_F_MULTI, 41, 9, 0);
	netif_test_string(&builder, IFLA_IFNAME, "stale");
	netif_test_start(&builder, RTM_NEWLINK, NLM_F_MULTI, 42, 1, 0);
	netif_test_string(&builder, IFLA_IFNAME, "lo");
	ck_assert_int_eq(netif_test_datagram(&builder, &state), 0);
	ck_assert(!state.done);

	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWLINK, NLM_F_MULTI, 42, 2, 0);
	netif_test_string(&builder, IFLA_IFNAME, "eth0");
	netif_test_start(&builder, NLMSG_DONE, NLM_F_MULTI, 42, 0, 0);
	netif_test_payload(&builder, &zero, sizeof zero);
	/* After DONE: not looked at. */
	netif_test_start(&builder, RTM_NEWLINK, NLM_F_MULTI, 42, 3, 0);
	netif_test_string(&builder, IFLA_IFNAME, "late");
	ck_assert_int_eq(netif_test_datagram(&builder, &state), 0);

	ck_assert(state.done);
	ck_assert(!state.interrupted);
	ck_assert(!state.stopped);
	ck_assert_uint_eq(seen.count, 2);
	ck_assert_str_eq(seen.names[0], "lo");
	ck_assert_str_eq(seen.names[1], "eth0");
}
END_TEST

START_TEST(test_datagram_errors)
{
	struct netif_test_builder builder;
	struct netif_test_seen seen = {.count = 0};
	struct netif_dump_state state = {
	    .sequence = 7,
	    .each = netif_test_link_message,
	    .context = &seen,
	};
	struct nlmsgerr error;
	int done_error = -EINTR;

	/* NLMSG_ERROR carries a negated errno. */
	memset(&builder, 0, sizeof builder);
	memset(&error, 0, sizeof error);
	error.error = -ENOBUFS;
	netif_test_start(&builder, NLMSG_ERROR, 0, 7, 0, 0);
	netif_test_payload(&builder, &error, sizeof error);
	ck_assert_int_eq(netif_test_datagram(&builder, &state), -1);
	ck_assert_int_eq(errno, ENOBUFS);

	/* An acknowledgement is no error. */
	memset(&builder, 0, sizeof builder);
	error.error = 0;
	netif_test_start(&builder, NLMSG_ERROR, 0, 7, 0, 0);
	netif_test_payload(&builder, &error, sizeof error);
	ck_assert_int_eq(netif_test_datagram(&builder, &state), 0);

	/* An error for someone else's sequence is skipped. */
	memset(&builder, 0, sizeof builder);
	error.error = -EPERM;
	netif_test_start(&builder, NLMSG_ERROR, 0, 6, 0, 0);
	netif_test_payload(&builder, &error, sizeof error);
	ck_assert_int_eq(netif_test_datagram(&builder, &state), 0);

	/* NLMSG_DONE with the dump's error. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, NLMSG_DONE, NLM_F_MULTI, 7, 0, 0);
	netif_test_payload(&builder, &done_error, sizeof done_error);
	ck_assert_int_eq(netif_test_datagram(&builder, &state), -1);
	ck_assert_int_eq(errno, EINTR);

	/* A message longer than the datagram. */
	memset(&state, 0, sizeof state);
	state.sequence = 7;
	state.each = netif_test_link_message;
	state.context = &seen;
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_message(&builder)->nlmsg_len += 64;
	ck_assert_int_eq(netif_test_datagram(&builder, &state), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* A length of 2^31 or more, which libmnl's mnl_nlmsg_ok compares as
	 * a negative int and passes. */
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_message(&builder)->nlmsg_len = 0xFFFFFFF0u;
	ck_assert_int_eq(netif_test_datagram(&builder, &state), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* A whole message, then less than a netlink header. */
	netif_test_minimal(&builder, 2, "eth0");
	netif_test_message(&builder)->nlmsg_seq = 6;
	builder.length += 8;
	ck_assert_int_eq(netif_test_datagram(&builder, &state), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* A malformed link message. */
	netif_test_minimal(&builder, 2, "");
	netif_test_message(&builder)->nlmsg_seq = 7;
	ck_assert_int_eq(netif_test_datagram(&builder, &state), -1);
	ck_assert_int_eq(errno, EBADMSG);
}
END_TEST

START_TEST(test_datagram_interrupted_and_stopped)
{
	struct netif_test_builder builder;
	struct netif_test_seen seen = {.stop_after = 1};
	struct netif_dump_state state = {
	    .sequence = 3,
	    .each = netif_test_link_message,
	    .context = &seen,
	};

	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWLINK, NLM_F_MULTI, 3, 1, 0);
	netif_test_string(&builder, IFLA_IFNAME, "lo");
	netif_test_start(
	    &builder, RTM_NEWLINK, NLM_F_MULTI | NLM_F_DUMP_INTR, 3, 2, 0);
	netif_test_string(&builder, IFLA_IFNAME, "eth0");
	netif_test_start(&builder, NLMSG_DONE, NLM_F_MULTI, 3, 0, 0);
	ck_assert_int_eq(netif_test_datagram(&builder, &state), 0);
	ck_assert(state.done);
	ck_assert(state.stopped);
	ck_assert(state.interrupted);
	ck_assert_uint_eq(seen.count, 1);
}
END_TEST

/* Reads a decimal number from a sysfs file; -1 when unreadable. */
static long long
netif_test_read_number(const char *path)
{
	FILE *file = fopen(path, "r");
	long long value = -1;

	if (file == NULL)
		return -1;
	if (fscanf(file, "%lld", &value) != 1)
		value = -1;
	fclose(file);
	return value;
}

struct netif_test_loopback {
	bool found;
	struct netif_link link;
	size_t links;
	size_t index_mismatches;
};

static int
netif_test_find_loopback(const struct netif_link *link, void *context)
{
	struct netif_test_loopback *result = context;
	char path[128];
	long long index;

	result->links++;
	if (strcmp(link->name, "lo") == 0) {
		result->found = true;
		result->link = *link;
	}
	/* The ifIndex agrees with sysfs (when the link still exists). */
	snprintf(path, sizeof path, "/sys/class/net/%s/ifindex", link->name);
	index = netif_test_read_number(path);
	if (index >= 0 && (uint32_t)index != link->index)
		result->index_mismatches++;
	return 0;
}

START_TEST(test_dump_real)
{
	struct netif_test_loopback result;
	long long before;
	int descriptor;

	before =
	    netif_test_read_number("/sys/class/net/lo/statistics/rx_bytes");
	ck_assert_msg(before >= 0, "cannot read lo rx_bytes from sysfs");
	descriptor = netif_netlink_open();
	ck_assert_msg(descriptor >= 0, "netif_link_open: %s", strerror(errno));

	memset(&result, 0, sizeof result);
	ck_assert_msg(netif_link_dump(descriptor, 1000,
	                  netif_test_find_loopback, &result) == 0,
	    "dump: %s", strerror(errno));
	ck_assert(result.found);
	ck_assert_uint_eq(result.link.index, 1);
	ck_assert_uint_ge(result.link.counter_count, NETIF_COUNTER_MINIMUM);
	ck_assert_uint_ge(
	    result.link.counters[NETIF_COUNTER_RX_BYTES], (uint64_t)before);
	ck_assert(result.link.has_mtu);
	ck_assert(netif_link_is_up(&result.link));
	ck_assert_uint_eq(result.index_mismatches, 0);
	close(descriptor);
}
END_TEST

/* A dump the callback stops is read to its end: the socket serves the
 * next dump as if nothing happened. */
START_TEST(test_dump_stopped_then_again)
{
	struct netif_test_seen seen = {.stop_after = 1};
	struct netif_test_loopback result;
	int descriptor;

	descriptor = netif_netlink_open();
	ck_assert_int_ge(descriptor, 0);
	ck_assert_int_eq(
	    netif_link_dump(descriptor, 5, netif_test_record, &seen), -1);
	ck_assert_int_eq(errno, ECANCELED);
	ck_assert_uint_eq(seen.count, 1);

	memset(&result, 0, sizeof result);
	ck_assert_int_eq(
	    netif_link_dump(descriptor, 6, netif_test_find_loopback, &result),
	    0);
	ck_assert(result.found);
	close(descriptor);
}
END_TEST

/* A counters message: ifIndex, the 64-bit counters, nothing else. */
START_TEST(test_stats_parse)
{
	struct netif_test_builder builder;
	struct netif_link_stats parsed;
	struct rtnl_link_stats64 stats;
	uint64_t extra[2] = {1, 2};

	memset(&stats, 0xee, sizeof stats); /* fields past ours: ignored */
	NETIF_TEST_FILL_STATS(stats, NETIF_TEST_VALUE64);
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWSTATS, NLM_F_MULTI, 1, 7, 0);
	/* Another statistics attribute first: skipped. */
	netif_test_attribute(&builder, IFLA_STATS_LINK_XSTATS | NLA_F_NESTED,
	    extra, sizeof extra);
	netif_test_attribute(
	    &builder, IFLA_STATS_LINK_64, &stats, sizeof stats);

	memset(&parsed, 0x55, sizeof parsed);
	ck_assert_int_eq(netif_test_parse_stats(&builder, &parsed), 1);
	ck_assert_uint_eq(parsed.index, 7);
	ck_assert_uint_eq(parsed.counter_count, NETIF_COUNTER_COUNT);
	NETIF_TEST_CHECK_STATS(parsed, stats);

	/* 23 counters (Linux before 4.6): the 24th is 0, not left over. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWSTATS, NLM_F_MULTI, 1, 8, 0);
	netif_test_attribute(
	    &builder, IFLA_STATS_LINK_64, &stats, 23 * sizeof(uint64_t));
	memset(&parsed, 0x55, sizeof parsed);
	ck_assert_int_eq(netif_test_parse_stats(&builder, &parsed), 1);
	ck_assert_uint_eq(parsed.index, 8);
	ck_assert_uint_eq(parsed.counter_count, 23);
	ck_assert_uint_eq(
	    parsed.counters[NETIF_COUNTER_TX_COMPRESSED], stats.tx_compressed);
	ck_assert_uint_eq(parsed.counters[NETIF_COUNTER_RX_NOHANDLER], 0);

	/* Not a counters message. */
	netif_test_minimal(&builder, 2, "eth0");
	ck_assert_int_eq(netif_test_parse_stats(&builder, &parsed), 0);
}
END_TEST

START_TEST(test_stats_parse_malformed)
{
	struct netif_test_builder builder;
	struct netif_link_stats parsed;
	struct rtnl_link_stats64 stats;

	memset(&stats, 0, sizeof stats);

	/* Too few counters. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWSTATS, NLM_F_MULTI, 1, 7, 0);
	netif_test_attribute(
	    &builder, IFLA_STATS_LINK_64, &stats, 22 * sizeof(uint64_t));
	ck_assert_int_eq(netif_test_parse_stats(&builder, &parsed), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* No counters at all. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWSTATS, NLM_F_MULTI, 1, 7, 0);
	ck_assert_int_eq(netif_test_parse_stats(&builder, &parsed), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* ifIndex 0, and one past INT32_MAX. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWSTATS, NLM_F_MULTI, 1, 0, 0);
	netif_test_attribute(
	    &builder, IFLA_STATS_LINK_64, &stats, sizeof stats);
	ck_assert_int_eq(netif_test_parse_stats(&builder, &parsed), -1);
	ck_assert_int_eq(errno, EBADMSG);
	((struct if_stats_msg *)NLMSG_DATA(netif_test_message(&builder)))
	    ->ifindex = (uint32_t)INT32_MAX + 1u;
	ck_assert_int_eq(netif_test_parse_stats(&builder, &parsed), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* An attribute running past the message. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWSTATS, NLM_F_MULTI, 1, 7, 0);
	netif_test_attribute(
	    &builder, IFLA_STATS_LINK_64, &stats, sizeof stats);
	netif_test_message(&builder)->nlmsg_len -= 8;
	ck_assert_int_eq(netif_test_parse_stats(&builder, &parsed), -1);
	ck_assert_int_eq(errno, EBADMSG);

	/* Shorter than its if_stats_msg. */
	memset(&builder, 0, sizeof builder);
	netif_test_start(&builder, RTM_NEWSTATS, NLM_F_MULTI, 1, 7, 0);
	netif_test_message(&builder)->nlmsg_len = NLMSG_LENGTH(4);
	ck_assert_int_eq(netif_test_parse_stats(&builder, &parsed), -1);
	ck_assert_int_eq(errno, EBADMSG);
}
END_TEST

/* The ifIndexes a dump named, however many links the machine has. */
struct netif_test_counted {
	uint32_t *indexes;
	size_t count;
	uint64_t loopback_rx_bytes;
	bool loopback_found;
};

static void
netif_test_count_index(struct netif_test_counted *counted, uint32_t index)
{
	counted->indexes = realloc(counted->indexes,
	    (counted->count + 1) * sizeof counted->indexes[0]);
	ck_assert_ptr_nonnull(counted->indexes);
	counted->indexes[counted->count++] = index;
}

static int
netif_test_count_link(const struct netif_link *link, void *context)
{
	netif_test_count_index(context, link->index);
	return 0;
}

static int
netif_test_count_stats(const struct netif_link_stats *stats, void *context)
{
	struct netif_test_counted *counted = context;

	netif_test_count_index(counted, stats->index);
	if (stats->index == 1) {
		counted->loopback_found = true;
		counted->loopback_rx_bytes =
		    stats->counters[NETIF_COUNTER_RX_BYTES];
	}
	return 0;
}

static int
netif_test_compare_index(const void *left, const void *right)
{
	uint32_t a = *(const uint32_t *)left, b = *(const uint32_t *)right;

	return (a > b) - (a < b);
}

/* A counters dump names the links a link dump names, and lo's counters
 * are at least what sysfs said before. */
START_TEST(test_stats_dump_real)
{
	struct netif_test_counted links, stats;
	long long before;
	int descriptor;

	before =
	    netif_test_read_number("/sys/class/net/lo/statistics/rx_bytes");
	ck_assert_msg(before >= 0, "cannot read lo rx_bytes from sysfs");
	descriptor = netif_netlink_open();
	ck_assert_msg(
	    descriptor >= 0, "netif_netlink_open: %s", strerror(errno));

	memset(&links, 0, sizeof links);
	memset(&stats, 0, sizeof stats);
	ck_assert_msg(
	    netif_link_dump(descriptor, 10, netif_test_count_link, &links) == 0,
	    "link dump: %s", strerror(errno));
	ck_assert_msg(netif_stats_dump(
	                  descriptor, 11, netif_test_count_stats, &stats) == 0,
	    "counters dump: %s", strerror(errno));
	ck_assert_uint_ge(links.count, 1);
	ck_assert_uint_eq(stats.count, links.count);
	qsort(links.indexes, links.count, sizeof links.indexes[0],
	    netif_test_compare_index);
	qsort(stats.indexes, stats.count, sizeof stats.indexes[0],
	    netif_test_compare_index);
	ck_assert_mem_eq(links.indexes, stats.indexes,
	    links.count * sizeof links.indexes[0]);
	ck_assert(stats.loopback_found);
	ck_assert_uint_ge(stats.loopback_rx_bytes, (uint64_t)before);
	free(links.indexes);
	free(stats.indexes);
	close(descriptor);
}
END_TEST

/* Sets or clears IFF_UP on lo of the test's namespace. */
static void
netif_test_loopback_up(int descriptor, bool up)
{
	struct ifreq request;

	memset(&request, 0, sizeof request);
	strcpy(request.ifr_name, "lo");
	ck_assert_int_eq(ioctl(descriptor, SIOCGIFFLAGS, &request), 0);
	if (up)
		request.ifr_flags |= IFF_UP;
	else
		request.ifr_flags &= ~IFF_UP;
	ck_assert_int_eq(ioctl(descriptor, SIOCSIFFLAGS, &request), 0);
}

/* Enters a network namespace of this (forked) test process alone, where
 * nothing but the test changes links. Returns false when not allowed. */
static bool
netif_test_private_namespace(void)
{
	if (unshare(CLONE_NEWNET) == 0)
		return true;
	fprintf(stderr,
	    "# cannot unshare a network namespace (%s): the "
	    "notification tests need root\n",
	    strerror(errno));
	return false;
}

/* Each link change is notified; a drained monitor says nothing. */
START_TEST(test_monitor_notifies)
{
	int monitor, control;

	if (!netif_test_private_namespace())
		return;
	monitor = netif_monitor_open();
	ck_assert_msg(monitor >= 0, "netif_monitor_open: %s", strerror(errno));
	control = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(control, 0);

	ck_assert_int_eq(netif_monitor_drain(monitor), 0);
	netif_test_loopback_up(control, true);
	ck_assert_int_eq(netif_monitor_drain(monitor), 1);
	ck_assert_int_eq(netif_monitor_drain(monitor), 0);
	netif_test_loopback_up(control, false);
	netif_test_loopback_up(control, true);
	ck_assert_int_eq(netif_monitor_drain(monitor), 1);
	ck_assert_int_eq(netif_monitor_drain(monitor), 0);
	close(control);
	close(monitor);
}
END_TEST

/* Notifications lost to a full queue still read as a change, once. */
START_TEST(test_monitor_overflow)
{
	int monitor, control, size = 1;

	if (!netif_test_private_namespace())
		return;
	monitor = netif_monitor_open();
	ck_assert_int_ge(monitor, 0);
	/* The kernel raises this to its minimum, far below 100 messages. */
	ck_assert_int_eq(
	    setsockopt(monitor, SOL_SOCKET, SO_RCVBUF, &size, sizeof size), 0);
	control = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(control, 0);
	for (int i = 0; i < 50; i++) {
		netif_test_loopback_up(control, true);
		netif_test_loopback_up(control, false);
	}
	ck_assert_int_eq(netif_monitor_drain(monitor), 1);
	ck_assert_int_eq(netif_monitor_drain(monitor), 0);
	close(control);
	close(monitor);
}
END_TEST

/* --- ethtool speeds ------------------------------------------------------- */

#define NETIF_TEST_ETHTOOL_FAMILY 27

/* Starts a generic netlink message of `type` with command `command`. */
static void
netif_test_generic(
    struct netif_test_builder *builder, uint16_t type, uint8_t command)
{
	struct genlmsghdr header = {.cmd = command, .version = 1};

	/* Started as a bare message: GENL_ID_CTRL is RTM_NEWLINK's number,
	 * which would get a link's family header. */
	netif_test_start(builder, NLMSG_NOOP, NLM_F_MULTI, 1, 0, 0);
	netif_test_message(builder)->nlmsg_type = type;
	netif_test_payload(builder, &header, sizeof header);
}

/* A LINKMODES reply: the header nest holding DEV_INDEX `index` (none when
 * 0), then SPEED `speed` unless `with_speed` is false. */
static void
netif_test_linkmodes(struct netif_test_builder *builder, uint32_t index,
    bool with_speed, uint32_t speed)
{
	_Alignas(4) unsigned char nest[16];
	struct rtattr inner = {.rta_len = RTA_LENGTH(sizeof index),
	    .rta_type = ETHTOOL_A_HEADER_DEV_INDEX};
	size_t nest_length = 0;

	if (index != 0) {
		memcpy(nest, &inner, sizeof inner);
		memcpy(nest + RTA_LENGTH(0), &index, sizeof index);
		nest_length = RTA_SPACE(sizeof index);
	}
	netif_test_generic(builder, NETIF_TEST_ETHTOOL_FAMILY,
	    ETHTOOL_MSG_LINKMODES_GET_REPLY);
	netif_test_attribute(builder, NLA_F_NESTED | ETHTOOL_A_LINKMODES_HEADER,
	    nest, nest_length);
	if (with_speed)
		netif_test_u32(builder, ETHTOOL_A_LINKMODES_SPEED, speed);
}

static int
netif_test_speed_parse(
    const struct netif_test_builder *builder, struct netif_speed *speed)
{
	struct nlmsghdr *copy = netif_test_copy(builder);
	int result = netif_speed_parse(copy, NETIF_TEST_ETHTOOL_FAMILY, speed);

	free(copy);
	return result;
}

START_TEST(test_speed_parse)
{
	struct netif_test_builder builder = {0};
	struct netif_speed speed;

	netif_test_linkmodes(&builder, 7, true, 10000);
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), 1);
	ck_assert_uint_eq(speed.index, 7);
	ck_assert(speed.has_speed);
	ck_assert_uint_eq(speed.megabits, 10000);
	/* SPEED_UNKNOWN, and beyond what sysfs shows: no speed. */
	memset(&builder, 0, sizeof builder);
	netif_test_linkmodes(&builder, 8, true, 0xFFFFFFFFu);
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), 1);
	ck_assert_uint_eq(speed.index, 8);
	ck_assert(!speed.has_speed);
	memset(&builder, 0, sizeof builder);
	netif_test_linkmodes(&builder, 8, true, 0x80000000u);
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), 1);
	ck_assert(!speed.has_speed);
	memset(&builder, 0, sizeof builder);
	netif_test_linkmodes(&builder, 9, false, 0);
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), 1);
	ck_assert_uint_eq(speed.index, 9);
	ck_assert(!speed.has_speed);
	/* Another family, or another command: not ours. */
	memset(&builder, 0, sizeof builder);
	netif_test_generic(&builder, NETIF_TEST_ETHTOOL_FAMILY + 1,
	    ETHTOOL_MSG_LINKMODES_GET_REPLY);
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), 0);
	memset(&builder, 0, sizeof builder);
	netif_test_generic(&builder, NETIF_TEST_ETHTOOL_FAMILY,
	    ETHTOOL_MSG_LINKINFO_GET_REPLY);
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), 0);
}
END_TEST

START_TEST(test_speed_parse_malformed)
{
	struct netif_test_builder builder = {0};
	struct netif_speed speed;
	struct nlmsghdr *header;

	/* No ifIndex in the header; no header at all. */
	netif_test_linkmodes(&builder, 0, true, 100);
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), -1);
	ck_assert_int_eq(errno, EBADMSG);
	memset(&builder, 0, sizeof builder);
	netif_test_generic(&builder, NETIF_TEST_ETHTOOL_FAMILY,
	    ETHTOOL_MSG_LINKMODES_GET_REPLY);
	netif_test_u32(&builder, ETHTOOL_A_LINKMODES_SPEED, 100);
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), -1);
	/* A speed of the wrong size. */
	memset(&builder, 0, sizeof builder);
	netif_test_linkmodes(&builder, 3, false, 0);
	netif_test_attribute(&builder, ETHTOOL_A_LINKMODES_SPEED, "ab", 2);
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), -1);
	/* The nest's attribute overruns the nest; the message cut inside its
	 * generic header. */
	memset(&builder, 0, sizeof builder);
	netif_test_linkmodes(&builder, 3, true, 100);
	builder.buffer[NLMSG_HDRLEN + GENL_HDRLEN + RTA_LENGTH(0)] = 200;
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), -1);
	ck_assert_int_eq(errno, EBADMSG);
	/* The nest ends in 2 bytes that are no attribute. */
	memset(&builder, 0, sizeof builder);
	netif_test_generic(&builder, NETIF_TEST_ETHTOOL_FAMILY,
	    ETHTOOL_MSG_LINKMODES_GET_REPLY);
	{
		_Alignas(4) unsigned char nest[12] = {0};
		struct rtattr inner = {.rta_len = RTA_LENGTH(4),
		    .rta_type = ETHTOOL_A_HEADER_DEV_INDEX};
		uint32_t index = 3;

		memcpy(nest, &inner, sizeof inner);
		memcpy(nest + RTA_LENGTH(0), &index, sizeof index);
		netif_test_attribute(&builder,
		    NLA_F_NESTED | ETHTOOL_A_LINKMODES_HEADER, nest, 10);
	}
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), -1);
	ck_assert_int_eq(errno, EBADMSG);
	memset(&builder, 0, sizeof builder);
	netif_test_linkmodes(&builder, 3, true, 100);
	header = netif_test_message(&builder);
	header->nlmsg_len = NLMSG_HDRLEN + 2;
	ck_assert_int_eq(netif_test_speed_parse(&builder, &speed), -1);
}
END_TEST

START_TEST(test_family_parse)
{
	struct netif_test_builder builder = {0};
	struct nlmsghdr *copy;
	uint16_t id = 0, ethtool_id = 21;

	netif_test_generic(&builder, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	netif_test_string(&builder, CTRL_ATTR_FAMILY_NAME, "ethtool");
	netif_test_attribute(
	    &builder, CTRL_ATTR_FAMILY_ID, &ethtool_id, sizeof ethtool_id);
	copy = netif_test_copy(&builder);
	ck_assert_int_eq(netif_family_parse(copy, "ethtool", &id), 1);
	ck_assert_uint_eq(id, 21);
	ck_assert_int_eq(netif_family_parse(copy, "nl80211", &id), 0);
	free(copy);
	/* A name without its NUL; no id. */
	memset(&builder, 0, sizeof builder);
	netif_test_generic(&builder, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	netif_test_attribute(&builder, CTRL_ATTR_FAMILY_NAME, "ethtool", 7);
	netif_test_attribute(
	    &builder, CTRL_ATTR_FAMILY_ID, &ethtool_id, sizeof ethtool_id);
	copy = netif_test_copy(&builder);
	ck_assert_int_eq(netif_family_parse(copy, "ethtool", &id), -1);
	free(copy);
	memset(&builder, 0, sizeof builder);
	netif_test_generic(&builder, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	netif_test_string(&builder, CTRL_ATTR_FAMILY_NAME, "ethtool");
	copy = netif_test_copy(&builder);
	ck_assert_int_eq(netif_family_parse(copy, "ethtool", &id), -1);
	free(copy);
	/* A NUL inside the name but not as its last byte; an id of 4
	 * bytes. */
	memset(&builder, 0, sizeof builder);
	netif_test_generic(&builder, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	netif_test_attribute(&builder, CTRL_ATTR_FAMILY_NAME, "ethtool\0x", 9);
	netif_test_attribute(
	    &builder, CTRL_ATTR_FAMILY_ID, &ethtool_id, sizeof ethtool_id);
	copy = netif_test_copy(&builder);
	ck_assert_int_eq(netif_family_parse(copy, "ethtool", &id), -1);
	ck_assert_int_eq(errno, EBADMSG);
	free(copy);
	memset(&builder, 0, sizeof builder);
	netif_test_generic(&builder, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	netif_test_string(&builder, CTRL_ATTR_FAMILY_NAME, "ethtool");
	netif_test_u32(&builder, CTRL_ATTR_FAMILY_ID, 21);
	copy = netif_test_copy(&builder);
	ck_assert_int_eq(netif_family_parse(copy, "ethtool", &id), -1);
	ck_assert_int_eq(errno, EBADMSG);
	free(copy);
}
END_TEST

/* netif_speed_dump's callback for the real dump: counts, and notes lo
 * (which the kernel leaves out: it has no link settings). */
struct netif_test_speeds {
	size_t count;
	bool saw_loopback;
};

static int
netif_test_count_speed(const struct netif_speed *speed, void *opaque)
{
	struct netif_test_speeds *speeds = opaque;

	speeds->count++;
	speeds->saw_loopback = speeds->saw_loopback || speed->index == 1;
	return 0;
}

/* The real kernel: the ethtool family is found and a dump completes
 * (whatever interfaces this machine has), twice on one socket. */
START_TEST(test_speed_dump_real)
{
	struct netif_test_speeds speeds = {0};
	uint16_t family = 0;
	int descriptor = netif_ethtool_open(&family);

	if (descriptor < 0 && errno == ENOENT)
		return; /* a kernel before 5.6: netif reads sysfs */
	ck_assert_msg(
	    descriptor >= 0, "netif_ethtool_open: %s", strerror(errno));
	ck_assert_uint_gt(family, GENL_ID_CTRL);
	ck_assert_msg(netif_speed_dump(descriptor, family, 5,
	                  netif_test_count_speed, &speeds) == 0,
	    "speed dump: %s", strerror(errno));
	ck_assert(!speeds.saw_loopback);
	speeds.count = 0;
	ck_assert_int_eq(netif_speed_dump(descriptor, family, 6,
	                     netif_test_count_speed, &speeds),
	    0);
	close(descriptor);
}
END_TEST

static Suite *
netif_test_suite(void)
{
	Suite *suite = suite_create("netif_link");
	TCase *parse = tcase_create("parse");
	TCase *dump = tcase_create("dump");
	TCase *monitor = tcase_create("monitor");

	tcase_add_test(parse, test_parse_fields);
	tcase_add_test(parse, test_parse_defaults);
	tcase_add_test(parse, test_parse_stats64);
	tcase_add_test(parse, test_parse_stats64_short);
	tcase_add_test(parse, test_parse_stats32_fallback);
	tcase_add_test(parse, test_parse_stats64_preferred);
	tcase_add_test(parse, test_parse_address_lengths);
	tcase_add_test(parse, test_parse_truncated_attribute);
	tcase_add_test(parse, test_parse_short_payloads);
	tcase_add_test(parse, test_parse_exact_sizes);
	tcase_add_test(parse, test_parse_attribute_into_padding);
	tcase_add_test(parse, test_parse_bad_names);
	tcase_add_test(parse, test_parse_not_link);
	tcase_add_test(parse, test_is_up);
	tcase_add_test(parse, test_counter_names);
	tcase_add_test(parse, test_stats_parse);
	tcase_add_test(parse, test_stats_parse_malformed);
	tcase_add_test(parse, test_speed_parse);
	tcase_add_test(parse, test_speed_parse_malformed);
	tcase_add_test(parse, test_family_parse);
	suite_add_tcase(suite, parse);

	tcase_add_test(dump, test_datagram_multipart);
	tcase_add_test(dump, test_datagram_errors);
	tcase_add_test(dump, test_datagram_interrupted_and_stopped);
	tcase_add_test(dump, test_dump_real);
	tcase_add_test(dump, test_dump_stopped_then_again);
	tcase_add_test(dump, test_stats_dump_real);
	tcase_add_test(dump, test_speed_dump_real);
	suite_add_tcase(suite, dump);

	tcase_add_test(monitor, test_monitor_notifies);
	tcase_add_test(monitor, test_monitor_overflow);
	suite_add_tcase(suite, monitor);
	return suite;
}

int
main(void)
{
	return unit_run_suite(netif_test_suite());
}
