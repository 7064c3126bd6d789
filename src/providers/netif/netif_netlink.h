/*
 * netif_netlink: the netif provider's rtnetlink sockets. One socket dumps
 * every link (RTM_GETLINK) or every link's counters (RTM_GETSTATS); another,
 * subscribed to link notifications, tells whether links changed since it
 * was last drained, so a refresh can take counters alone (a tenth of the
 * kernel's work of a link dump) while the links stand still.
 *
 * Everything here runs in the thread that calls it (the provider's init and
 * refresh); nothing keeps state between calls but the sockets themselves.
 */
#ifndef NETIF_NETLINK_H
#define NETIF_NETLINK_H

#include "netif_link.h"

#pragma GCC visibility push(hidden)

/*
 * Opens a NETLINK_ROUTE socket for netif_link_dump and netif_stats_dump
 * (close-on-exec, with a receive timeout so a silent kernel cannot block the
 * caller for ever). Returns the descriptor, or -1 with errno.
 */
int netif_netlink_open(void);

/* The same for another netlink protocol (NETLINK_GENERIC for ethtool). */
int netif_netlink_open_protocol(int protocol);

/*
 * Called once per link of a dump. The link is valid only during the call.
 * Returns 0 to go on, anything else to stop.
 */
typedef int (*netif_link_each)(const struct netif_link *link, void *context);

/*
 * Dumps every link (RTM_GETLINK, NLM_F_DUMP) through the NETLINK_ROUTE
 * socket descriptor (from netif_netlink_open), tagging the request with
 * sequence, and calls each for every link in the kernel's order. Replies
 * with another sequence number (left over from an earlier, failed dump) and
 * datagrams not from the kernel are skipped.
 *
 * Returns 0 when the dump completed. Otherwise -1 with errno:
 *   the kernel's error   NLMSG_ERROR, or NLMSG_DONE carrying an error
 *   EBADMSG              a malformed message (see netif_link_parse)
 *   EINTR                the kernel flagged the dump NLM_F_DUMP_INTR: links
 *                        changed during it, so a link may be missing or
 *                        repeated; every link was still passed to each,
 *                        and the socket is ready for a new dump
 *   ECANCELED            each returned non-zero; the rest of the dump was
 *                        read and discarded, so the socket is ready
 *   EAGAIN, ...          the socket failed or timed out
 * After a failure other than EINTR or ECANCELED the socket may still hold
 * part of the dump: a new dump on it skips that by sequence number, but
 * closing and reopening the socket is the safe course.
 */
int netif_link_dump(
    int descriptor, uint32_t sequence, netif_link_each each, void *context);

/* Called once per link of a counters dump, as netif_link_each is. */
typedef int (*netif_stats_each)(
    const struct netif_link_stats *stats, void *context);

/*
 * Dumps the 64-bit counters of every link (RTM_GETSTATS, filtered to
 * IFLA_STATS_LINK_64; Linux 4.7 and later), as netif_link_dump dumps links,
 * with the same results. A kernel without RTM_GETSTATS answers EOPNOTSUPP
 * (or EINVAL).
 */
int netif_stats_dump(
    int descriptor, uint32_t sequence, netif_stats_each each, void *context);

/*
 * Opens a NETLINK_ROUTE socket subscribed to RTNLGRP_LINK (close-on-exec,
 * non-blocking): the kernel queues a message on it whenever a link is
 * added, removed, renamed, or changes flags, state, carrier, MTU or
 * address, but never for counters. Returns the descriptor, or -1 with
 * errno.
 */
int netif_monitor_open(void);

/*
 * Reads and discards every notification queued on a netif_monitor_open
 * socket. Returns 1 when there was one, or when some were lost (ENOBUFS:
 * the queue overflowed), 0 when there was none, -1 with errno when the
 * socket failed.
 */
int netif_monitor_drain(int descriptor);

/*
 * Called for each message of a dump with the dump's sequence number, other
 * than NLMSG_NOOP, NLMSG_DONE and NLMSG_ERROR. Returns 0 to go on, 1 to
 * skip the rest of the dump (which is still read), -1 with errno to fail it
 * (EBADMSG for a malformed message).
 */
typedef int (*netif_message_each)(
    const struct nlmsghdr *message, void *context);

/* The longest family header a dump request carries. */
#define NETIF_FAMILY_HEADER_MAX 32u

/*
 * Sends a dump request (NLM_F_DUMP) of message type `type` with its family
 * header (at most NETIF_FAMILY_HEADER_MAX bytes: a struct, or a generic
 * netlink header and its attributes) and reads the whole answer, handing each
 * message of the dump to each (see netif_dump_state). Returns as
 * netif_link_dump does.
 */
int netif_netlink_dump(int descriptor, uint32_t sequence, uint16_t type,
    const void *family_header, size_t length, netif_message_each each,
    void *context);

/* What a parsed dump reads, and so which of its callbacks it calls. */
enum netif_dump_kind {
	NETIF_DUMP_LINKS, /* link_each */
	NETIF_DUMP_STATS, /* stats_each */
};

/*
 * A dump of links or counters, each handed parsed to the callback its
 * kind names (the other is not read). (ethtool's speeds are parsed in
 * netif_ethtool.c, above this transport.)
 */
struct netif_parsed_dump {
	enum netif_dump_kind kind;
	netif_link_each link_each;
	netif_stats_each stats_each;
	void *context; /* handed to the callback */
};

/*
 * The netif_message_each of such a dump (its context: the struct
 * netif_parsed_dump): parses each message as what the dump asks for and
 * calls the callback with it. Returns -1 with errno EBADMSG for a malformed
 * message, 0 for another message or when the callback returned 0, 1 when
 * it returned anything else (the rest of the dump is skipped).
 */
int netif_each_parsed_message(const struct nlmsghdr *message, void *opaque);

/*
 * The part of a dump that handles one received datagram, exposed for the
 * unit tests. Start with the state zeroed but for sequence, each and
 * context; feed datagrams until done is set or -1 is returned.
 */
struct netif_dump_state {
	uint32_t sequence;
	netif_message_each each;
	void *context;
	bool done;        /* NLMSG_DONE for our sequence seen */
	bool interrupted; /* some reply had NLM_F_DUMP_INTR */
	bool stopped;     /* each returned 1; later messages skipped */
};

/*
 * Handles the netlink messages of one datagram of length bytes (aligned as
 * recvmsg buffers are). Returns 0, or -1 with errno set as for
 * netif_link_dump (the kernel's error, or each's); stopped and interrupted
 * are reported through the state, not here.
 */
int netif_dump_datagram(
    struct netif_dump_state *state, const void *datagram, size_t length);

#pragma GCC visibility pop

#endif
