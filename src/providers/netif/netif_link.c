/*
 * netif_link: one rtnetlink RTM_GETLINK dump gives every interface with all
 * its counters, so a refresh costs a few system calls however many
 * interfaces and counters there are, instead of one file read per counter
 * per interface under /sys/class/net.
 */
#define _GNU_SOURCE

#include "netif_link.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

/* Seconds a receive may wait for the kernel before the dump fails. The
 * kernel answers at once; this only bounds a pathological stall of the
 * daemon's main thread. */
#define NETIF_RECEIVE_TIMEOUT_SECONDS 5
/* First receive buffer; grown when a datagram is larger. The kernel sizes
 * dump datagrams to at most 32 KiB unless a single message is larger. */
#define NETIF_RECEIVE_BUFFER_SIZE 32768u

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

/* Stores one attribute's payload in link. Returns 0, or -1 when the payload
 * is too short (or too long) for its type. */
static int
netif_parse_attribute(struct netif_link *link, unsigned type,
    const unsigned char *payload, size_t length)
{
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
		if (length < NETIF_COUNTER_MINIMUM * sizeof(uint64_t))
			return -1;
		count = length / sizeof(uint64_t);
		if (count > NETIF_COUNTER_COUNT)
			count = NETIF_COUNTER_COUNT;
		memset(link->counters, 0, sizeof link->counters);
		memcpy(link->counters, payload, count * sizeof(uint64_t));
		link->counter_count = count;
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
netif_link_parse(const struct nlmsghdr *message, struct netif_link *link)
{
	const unsigned char *bytes = (const unsigned char *)message;
	size_t length = message->nlmsg_len;
	size_t offset;
	struct ifinfomsg information;

	if (length < NETIF_MESSAGE_HEADER_LENGTH)
		return netif_malformed();
	if (message->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (length < NETIF_MESSAGE_HEADER_LENGTH + sizeof information)
		return netif_malformed();
	/* Copied out: nothing here relies on the buffer's alignment. */
	memcpy(&information, bytes + NETIF_MESSAGE_HEADER_LENGTH,
	    sizeof information);
	if (information.ifi_index <= 0)
		return netif_malformed();

	memset(link, 0, sizeof *link);
	link->index = (uint32_t)information.ifi_index;
	link->flags = information.ifi_flags;
	link->operstate = IF_OPER_UNKNOWN;

	offset = NETIF_MESSAGE_HEADER_LENGTH + NLMSG_ALIGN(sizeof information);
	while (offset < length) {
		struct rtattr attribute;

		if (length - offset < sizeof attribute)
			return netif_malformed();
		memcpy(&attribute, bytes + offset, sizeof attribute);
		if (attribute.rta_len < NETIF_ATTRIBUTE_HEADER_LENGTH ||
		    attribute.rta_len > length - offset)
			return netif_malformed();
		if (netif_parse_attribute(link,
		        (unsigned)(attribute.rta_type & NLA_TYPE_MASK),
		        bytes + offset + NETIF_ATTRIBUTE_HEADER_LENGTH,
		        attribute.rta_len - NETIF_ATTRIBUTE_HEADER_LENGTH) != 0)
			return netif_malformed();
		/* The last attribute's padding may lie past the message. */
		offset += RTA_ALIGN(attribute.rta_len);
	}
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

int
netif_link_open(void)
{
	struct timeval timeout = {.tv_sec = NETIF_RECEIVE_TIMEOUT_SECONDS};
	int descriptor;

	descriptor = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (descriptor < 0)
		return -1;
	if (setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout,
	        sizeof timeout) != 0) {
		int saved = errno;

		close(descriptor);
		errno = saved;
		return -1;
	}
	return descriptor;
}

/* Converts a kernel error (a negated errno) to an errno value. */
static int
netif_kernel_error(int error)
{
	if (error < 0 && error > -4096)
		return -error;
	return EPROTO;
}

int
netif_link_dump_datagram(
    struct netif_link_dump_state *state, const void *datagram, size_t length)
{
	const unsigned char *bytes = datagram;
	size_t offset = 0;

	while (offset < length && !state->done) {
		const struct nlmsghdr *message;
		struct netif_link link;
		int error;

		if (length - offset < NETIF_MESSAGE_HEADER_LENGTH)
			return netif_malformed();
		message =
		    (const struct nlmsghdr *)(const void *)(bytes + offset);
		if (message->nlmsg_len < NETIF_MESSAGE_HEADER_LENGTH ||
		    message->nlmsg_len > length - offset)
			return netif_malformed();
		offset += NLMSG_ALIGN(message->nlmsg_len);

		/* Left over from an earlier dump that was given up. */
		if (message->nlmsg_seq != state->sequence)
			continue;
		if (message->nlmsg_flags & NLM_F_DUMP_INTR)
			state->interrupted = true;

		switch (message->nlmsg_type) {
		case NLMSG_NOOP:
			break;
		case NLMSG_DONE:
			state->done = true;
			/* Since Linux 4.x DONE carries the dump's result. */
			if (message->nlmsg_len >= NLMSG_LENGTH(sizeof error)) {
				memcpy(
				    &error, NLMSG_DATA(message), sizeof error);
				if (error < 0) {
					errno = netif_kernel_error(error);
					return -1;
				}
			}
			break;
		case NLMSG_ERROR:
			if (message->nlmsg_len < NLMSG_LENGTH(sizeof error))
				return netif_malformed();
			memcpy(&error, NLMSG_DATA(message), sizeof error);
			if (error == 0)
				break; /* an acknowledgement */
			errno = netif_kernel_error(error);
			return -1;
		default:
			if (state->stopped)
				break;
			switch (netif_link_parse(message, &link)) {
			case -1:
				return -1;
			case 0:
				break;
			default:
				if (state->each(&link, state->context) != 0)
					state->stopped = true;
				break;
			}
			break;
		}
	}
	return 0;
}

static int
netif_send_request(int descriptor, uint32_t sequence)
{
	struct {
		struct nlmsghdr header;
		struct ifinfomsg information;
	} request;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	ssize_t sent;

	memset(&request, 0, sizeof request);
	request.header.nlmsg_len = NLMSG_LENGTH(sizeof request.information);
	request.header.nlmsg_type = RTM_GETLINK;
	request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	request.header.nlmsg_seq = sequence;
	request.information.ifi_family = AF_UNSPEC;
	do
		sent = sendto(descriptor, &request, request.header.nlmsg_len, 0,
		    (const struct sockaddr *)&kernel, sizeof kernel);
	while (sent < 0 && errno == EINTR);
	if (sent < 0)
		return -1;
	if ((size_t)sent != request.header.nlmsg_len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * Receives one datagram into *buffer, first growing it to the datagram's
 * size (learned with MSG_PEEK | MSG_TRUNC), so nothing is ever cut off.
 * Sets *from_kernel when the sender is the kernel (port 0). Returns the
 * datagram's length, or -1 with errno.
 */
static ssize_t
netif_receive(
    int descriptor, unsigned char **buffer, size_t *capacity, bool *from_kernel)
{
	for (;;) {
		struct sockaddr_nl sender;
		struct iovec vector = {
		    .iov_base = *buffer, .iov_len = *capacity};
		struct msghdr header = {
		    .msg_name = &sender,
		    .msg_namelen = sizeof sender,
		    .msg_iov = &vector,
		    .msg_iovlen = 1,
		};
		ssize_t length;

		length = recvmsg(descriptor, &header, MSG_PEEK | MSG_TRUNC);
		if (length < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if ((size_t)length > *capacity) {
			size_t size = ((size_t)length + 4095u) & ~(size_t)4095u;
			unsigned char *larger = realloc(*buffer, size);

			if (larger == NULL)
				return -1;
			*buffer = larger;
			*capacity = size;
			continue; /* peek again into the larger buffer */
		}

		vector.iov_base = *buffer;
		vector.iov_len = *capacity;
		header.msg_namelen = sizeof sender;
		do
			length = recvmsg(descriptor, &header, 0);
		while (length < 0 && errno == EINTR);
		if (length < 0)
			return -1;
		if (header.msg_flags & MSG_TRUNC) {
			errno = EMSGSIZE;
			return -1;
		}
		*from_kernel = header.msg_namelen >= sizeof sender &&
		               sender.nl_family == AF_NETLINK &&
		               sender.nl_pid == 0;
		return length;
	}
}

int
netif_link_dump(
    int descriptor, uint32_t sequence, netif_link_each each, void *context)
{
	struct netif_link_dump_state state = {
	    .sequence = sequence,
	    .each = each,
	    .context = context,
	};
	size_t capacity = NETIF_RECEIVE_BUFFER_SIZE;
	unsigned char *buffer;
	int saved;

	if (netif_send_request(descriptor, sequence) != 0)
		return -1;
	buffer = malloc(capacity);
	if (buffer == NULL)
		return -1;
	while (!state.done) {
		bool from_kernel = false;
		ssize_t length;

		length =
		    netif_receive(descriptor, &buffer, &capacity, &from_kernel);
		if (length < 0)
			goto failed;
		if (!from_kernel)
			continue;
		if (netif_link_dump_datagram(&state, buffer, (size_t)length) !=
		    0)
			goto failed;
	}
	free(buffer);
	if (state.stopped) {
		errno = ECANCELED;
		return -1;
	}
	if (state.interrupted) {
		errno = EINTR;
		return -1;
	}
	return 0;

failed:
	saved = errno;
	free(buffer);
	errno = saved;
	return -1;
}
