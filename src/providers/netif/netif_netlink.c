/*
 * netif_netlink: the rtnetlink conversations of the netif provider. A dump
 * of every link (RTM_GETLINK) or of every link's counters (RTM_GETSTATS)
 * costs a few system calls however many interfaces there are; a socket
 * subscribed to link notifications tells whether the links themselves
 * changed since it was last drained.
 */
#define _GNU_SOURCE

#include "netif_netlink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

/* Seconds a receive may wait for the kernel before the dump fails. The
 * kernel answers at once; this only bounds a pathological stall of the
 * daemon's main thread. */
#define NETIF_RECEIVE_TIMEOUT_SECONDS 5
/* First receive buffer; grown when a datagram is larger. The kernel sizes
 * dump datagrams to at most 32 KiB unless a single message is larger. */
#define NETIF_RECEIVE_BUFFER_SIZE 32768u

static int
netif_malformed(void)
{
	errno = EBADMSG;
	return -1;
}

int
netif_netlink_open(void)
{
	return netif_netlink_open_protocol(NETLINK_ROUTE);
}

int
netif_netlink_open_protocol(int protocol)
{
	struct timeval timeout = {.tv_sec = NETIF_RECEIVE_TIMEOUT_SECONDS};
	int descriptor;

	descriptor = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
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

/* The error an NLMSG_ERROR or NLMSG_DONE message carries, read into
 * *error. Returns 0, or -1 when the message is too short for it. */
static int
netif_message_error(const struct nlmsghdr *message, int *error)
{
	if (mnl_nlmsg_get_payload_len(message) < sizeof *error)
		return -1;
	memcpy(error, mnl_nlmsg_get_payload(message), sizeof *error);
	return 0;
}

/* Handles one message of the dump of state's sequence. Returns 0 to go
 * on, -1 with errno to fail the dump. */
static int
netif_dump_message(
    struct netif_dump_state *state, const struct nlmsghdr *message)
{
	int error;

	if (message->nlmsg_flags & NLM_F_DUMP_INTR)
		state->interrupted = true;
	switch (message->nlmsg_type) {
	case NLMSG_NOOP:
		return 0;
	case NLMSG_DONE:
		state->done = true;
		/* Since Linux 4.x DONE carries the dump's result. */
		if (netif_message_error(message, &error) == 0 && error < 0) {
			errno = netif_kernel_error(error);
			return -1;
		}
		return 0;
	case NLMSG_ERROR:
		if (netif_message_error(message, &error) != 0)
			return netif_malformed();
		if (error == 0)
			return 0; /* an acknowledgement */
		errno = netif_kernel_error(error);
		return -1;
	default:
		if (state->stopped)
			return 0;
		error = state->each(message, state->context);
		if (error < 0)
			return -1;
		if (error > 0)
			state->stopped = true;
		return 0;
	}
}

/*
 * Not mnl_cb_run: it fails a dump at its first NLM_F_DUMP_INTR message
 * (netif_link_dump reads such a dump to its end), fails on another
 * sequence number (left over from a dump given up: skipped here), and
 * ends without an error at a message cut short (refused here).
 */
int
netif_dump_datagram(
    struct netif_dump_state *state, const void *datagram, size_t length)
{
	const struct nlmsghdr *message = datagram;
	int left;

	/* libmnl counts what is left in an int. */
	if (length > INT32_MAX)
		return netif_malformed();
	left = (int)length;
	while (left > 0 && !state->done) {
		/* mnl_nlmsg_ok compares nlmsg_len as an int: one of 2^31
		 * or more would pass as negative, hence the second test. */
		if (!mnl_nlmsg_ok(message, left) ||
		    message->nlmsg_len > (uint32_t)left)
			return netif_malformed();
		if (message->nlmsg_seq == state->sequence &&
		    netif_dump_message(state, message) != 0)
			return -1;
		message = mnl_nlmsg_next(message, &left);
	}
	return 0;
}

/* Sends a dump request: header, then the family header of length bytes. */
static int
netif_send_request(int descriptor, uint32_t sequence, uint16_t type,
    const void *family_header, size_t length)
{
	struct {
		struct nlmsghdr header;
		unsigned char family_header[NETIF_FAMILY_HEADER_MAX];
	} buffer;
	struct nlmsghdr *request;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	ssize_t sent;

	if (length > NETIF_FAMILY_HEADER_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(&buffer, 0, sizeof buffer); /* no stack bytes in the padding */
	request = mnl_nlmsg_put_header(&buffer);
	request->nlmsg_type = type;
	request->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	request->nlmsg_seq = sequence;
	memcpy(mnl_nlmsg_put_extra_header(request, (int)length), family_header,
	    length);
	do
		sent = sendto(descriptor, request, request->nlmsg_len, 0,
		    (const struct sockaddr *)&kernel, sizeof kernel);
	while (sent < 0 && errno == EINTR);
	if (sent < 0)
		return -1;
	if ((size_t)sent != request->nlmsg_len) {
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
netif_netlink_dump(int descriptor, uint32_t sequence, uint16_t type,
    const void *family_header, size_t length, netif_message_each each,
    void *context)
{
	struct netif_dump_state state = {
	    .sequence = sequence,
	    .each = each,
	    .context = context,
	};
	size_t capacity = NETIF_RECEIVE_BUFFER_SIZE;
	unsigned char *buffer;
	int saved;

	if (netif_send_request(
	        descriptor, sequence, type, family_header, length) != 0)
		return -1;
	buffer = malloc(capacity);
	if (buffer == NULL)
		return -1;
	while (!state.done) {
		bool from_kernel = false;
		ssize_t received;

		received =
		    netif_receive(descriptor, &buffer, &capacity, &from_kernel);
		if (received < 0)
			goto failed;
		if (!from_kernel)
			continue;
		if (netif_dump_datagram(&state, buffer, (size_t)received) != 0)
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

int
netif_each_parsed_message(const struct nlmsghdr *message, void *opaque)
{
	const struct netif_parsed_dump *dump = opaque;
	struct netif_link link;
	struct netif_link_stats stats;
	int parsed;

	switch (dump->kind) {
	case NETIF_DUMP_LINKS:
		parsed = netif_link_parse(message, &link);
		if (parsed <= 0)
			return parsed; /* -1: malformed; 0: another message */
		return dump->link_each(&link, dump->context) != 0;
	case NETIF_DUMP_STATS:
		parsed = netif_stats_parse(message, &stats);
		if (parsed <= 0)
			return parsed;
		return dump->stats_each(&stats, dump->context) != 0;
	}
	errno = EINVAL; /* a kind no dump is made with */
	return -1;
}

int
netif_link_dump(
    int descriptor, uint32_t sequence, netif_link_each each, void *context)
{
	struct netif_parsed_dump dump = {
	    .kind = NETIF_DUMP_LINKS, .link_each = each, .context = context};
	struct ifinfomsg information = {.ifi_family = AF_UNSPEC};

	return netif_netlink_dump(descriptor, sequence, RTM_GETLINK,
	    &information, sizeof information, netif_each_parsed_message, &dump);
}

int
netif_stats_dump(
    int descriptor, uint32_t sequence, netif_stats_each each, void *context)
{
	struct netif_parsed_dump dump = {
	    .kind = NETIF_DUMP_STATS, .stats_each = each, .context = context};
	struct if_stats_msg filter = {
	    .family = AF_UNSPEC,
	    .filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64),
	};

	return netif_netlink_dump(descriptor, sequence, RTM_GETSTATS, &filter,
	    sizeof filter, netif_each_parsed_message, &dump);
}

int
netif_monitor_open(void)
{
	struct sockaddr_nl local = {
	    .nl_family = AF_NETLINK,
	    .nl_groups = 1u << (RTNLGRP_LINK - 1),
	};
	int descriptor;

	descriptor = socket(
	    AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (descriptor < 0)
		return -1;
	if (bind(descriptor, (const struct sockaddr *)&local, sizeof local) !=
	    0) {
		int saved = errno;

		close(descriptor);
		errno = saved;
		return -1;
	}
	return descriptor;
}

int
netif_monitor_drain(int descriptor)
{
	unsigned char byte;
	int changed = 0;

	for (;;) {
		/* The content does not matter, only that there was some:
		 * MSG_TRUNC discards each notification whole. */
		ssize_t length = recv(
		    descriptor, &byte, sizeof byte, MSG_DONTWAIT | MSG_TRUNC);

		if (length >= 0) {
			changed = 1;
			continue;
		}
		switch (errno) {
		case EINTR:
			continue;
		case EAGAIN:
#if EWOULDBLOCK != EAGAIN
		case EWOULDBLOCK:
#endif
			return changed;
		case ENOBUFS:
			/* Notifications were lost: anything may have
			 * changed. The error is reported once; go on
			 * draining what is queued after it. */
			changed = 1;
			continue;
		default:
			return -1;
		}
	}
}
