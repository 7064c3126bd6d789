/*
 * netif: a dcistat provider for Linux network interface counters.
 *
 * One class, netif {1, 1}, with one instance per interface, identified by
 * its ifIndex (so rows join with IF-MIB) and labelled with its name.
 *
 * A refresh reads every interface with a few system calls over rtnetlink
 * sockets kept open from init to fini. While the links stand still (no
 * notification on the RTNLGRP_LINK socket), it dumps counters alone
 * (RTM_GETSTATS) and keeps the rest of what the last link dump said; at
 * 1,000 veth interfaces the kernel builds that dump in a tenth of the time
 * of a full RTM_GETLINK dump. Any notification, a lost one, or a counters
 * dump that does not name exactly the links known, brings a full link
 * dump. The link speed is read only when an interface appears or its
 * carrier or operational state changed, since reading it queries the
 * driver under the RTNL lock: for many interfaces at once (the first
 * refresh, a burst) in one dump of ethtool's generic netlink family, for
 * a few, or where the kernel lacks that family, from sysfs.
 *
 * A link dump collects the served links, then sorts them by ifIndex; each
 * refresh fills the batch from them, comparing with the previous refresh
 * by a merge walk: O(n log n) at worst for n interfaces, O(n) on kernels
 * that dump in ifIndex order (6.8 and later).
 *
 * Datum ids are stable and part of the provider's interface:
 *   1 name, 2 address, 3 mtu, 4 oper_up, 5 speed, 6 last_change,
 *   10.. the counters, 10 + enum netif_counter (the order of struct
 *   rtnl_link_stats64): rx_packets 10 ... rx_nohandler 33.
 *
 * Options (read once in init): include and exclude, each a shell glob or a
 * list of them (fnmatch(3), no flags) matched against the interface name.
 * An interface is served when include is absent or one of its patterns
 * matches, and no exclude pattern matches.
 */
#define _GNU_SOURCE

#include <dcistat/provider.h>

#include "netif_ethtool.h"
#include "netif_netlink.h"
#include "format/datum_forms.h"
#include "providers/common/start.h"
#include "providers/common/clock.h"
#include "providers/common/file_buffer.h"
#include "providers/common/growable.h"
#include "providers/common/patterns.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum netif_datum_id {
	NETIF_DATUM_NAME = 1,
	NETIF_DATUM_ADDRESS = 2,
	NETIF_DATUM_MTU = 3,
	NETIF_DATUM_OPER_UP = 4,
	NETIF_DATUM_SPEED = 5,
	NETIF_DATUM_LAST_CHANGE = 6,
	NETIF_DATUM_COUNTER_BASE = 10, /* + enum netif_counter */
};

#define NETIF_FIXED_DATUM_COUNT 6u
#define NETIF_DATUM_COUNT (NETIF_FIXED_DATUM_COUNT + NETIF_COUNTER_COUNT)
#define NETIF_ETHERNET_ADDRESS_LENGTH 6u
/* Dumps tried per refresh while the kernel reports them interrupted by
 * concurrent link changes. */
#define NETIF_DUMP_ATTEMPTS 3
/* From this many interfaces whose speed must be read, one ethtool dump of
 * every interface beats a sysfs file per interface. */
#define NETIF_SPEED_DUMP_MINIMUM 8

static const struct dci_supplier_info netif_supplier = {
    .module = "netif",
    .title = "Network interfaces",
    .description = "Linux network interface counters, from rtnetlink",
    .type = 0,
    .version = 100,
};

static const uint32_t netif_class_id[] = {1, 1};

static const struct dci_instance_level netif_levels[] = {
    {.itype = DCI_ITYPE_INTERFACE, .size = 4},
};

static const struct dci_datum_info netif_fixed_datums[] = {
    DATUM_INFO(NETIF_DATUM_NAME, "name", DCI_ST_STRING, DCI_SSF_ZEROTERM,
        DCI_SSP_LITERAL, NETIF_NAME_SIZE, DCI_SV_VARIABLE, DCI_UNIT_NONE,
        DCI_SEMANTICS_DISCRETE, "Interface name"),
    DATUM_INFO(NETIF_DATUM_ADDRESS, "address", DCI_ST_ADDRESS, DCI_SAF_ETHERNET,
        DCI_SAP_NORMAL, NETIF_ETHERNET_ADDRESS_LENGTH, DCI_SV_VARIABLE,
        DCI_UNIT_NONE, DCI_SEMANTICS_DISCRETE,
        "Link-layer address, for interfaces with 6-byte (Ethernet) "
        "addresses only"),
    DATUM_INFO(NETIF_DATUM_MTU, "mtu", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED,
        DCI_SIP_DECIMAL, 0, DCI_SV_VARIABLE, DCI_UNIT_BYTES,
        DCI_SEMANTICS_GAUGE, "Largest packet the interface sends, in bytes"),
    DATUM_INFO(NETIF_DATUM_OPER_UP, "oper_up", DCI_ST_BOOLEAN, DCI_SBF_NORMAL,
        DCI_SBP_TRUE_FALSE, 0, DCI_SV_VOLATILE, DCI_UNIT_NONE,
        DCI_SEMANTICS_DISCRETE,
        "Operationally up (RFC 2863 up, or unknown while administratively "
        "up and running)"),
    DATUM_INFO(NETIF_DATUM_SPEED, "speed", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED,
        DCI_SIP_DECIMAL, 0, DCI_SV_VARIABLE, DCI_UNIT_MEGABITS_PER_SECOND,
        DCI_SEMANTICS_GAUGE,
        "Link speed in Mbit/s, where the driver reports one"),
    DATUM_FORM_MOMENT(NETIF_DATUM_LAST_CHANGE, "last_change", DCI_SV_VARIABLE,
        DCI_UNIT_CENTISECONDS,
        "When the operational state last changed, as seen by this provider "
        "(0: no change seen)"),
};

_Static_assert(sizeof netif_fixed_datums / sizeof netif_fixed_datums[0] ==
                   NETIF_FIXED_DATUM_COUNT,
    "fixed datum count");

/* Unit and description of each counter datum; its label is
 * netif_counter_names[counter], its id NETIF_DATUM_COUNTER_BASE + counter. */
static const struct {
	enum dci_unit unit;
	const char *description;
} netif_counter_datums[NETIF_COUNTER_COUNT] = {
    [NETIF_COUNTER_RX_PACKETS] = {DCI_UNIT_PACKETS, "Good packets received"},
    [NETIF_COUNTER_TX_PACKETS] = {DCI_UNIT_PACKETS,
        "Packets transmitted successfully"},
    [NETIF_COUNTER_RX_BYTES] = {DCI_UNIT_OCTETS,
        "Octets in good packets received"},
    [NETIF_COUNTER_TX_BYTES] = {DCI_UNIT_OCTETS,
        "Octets in packets transmitted successfully"},
    [NETIF_COUNTER_RX_ERRORS] = {DCI_UNIT_ERRORS,
        "Receive errors of all kinds"},
    [NETIF_COUNTER_TX_ERRORS] = {DCI_UNIT_ERRORS,
        "Transmit errors of all kinds"},
    [NETIF_COUNTER_RX_DROPPED] = {DCI_UNIT_PACKETS,
        "Received packets dropped without error, e.g. for lack of memory"},
    [NETIF_COUNTER_TX_DROPPED] = {DCI_UNIT_PACKETS,
        "Packets dropped on their way to transmission"},
    [NETIF_COUNTER_MULTICAST] = {DCI_UNIT_PACKETS,
        "Multicast packets received"},
    [NETIF_COUNTER_COLLISIONS] = {DCI_UNIT_EVENTS,
        "Collisions while transmitting"},
    [NETIF_COUNTER_RX_LENGTH_ERRORS] = {DCI_UNIT_ERRORS,
        "Received packets with a bad length"},
    [NETIF_COUNTER_RX_OVER_ERRORS] = {DCI_UNIT_ERRORS,
        "Received packets larger than the receive buffers"},
    [NETIF_COUNTER_RX_CRC_ERRORS] = {DCI_UNIT_ERRORS,
        "Received packets with a bad CRC"},
    [NETIF_COUNTER_RX_FRAME_ERRORS] = {DCI_UNIT_ERRORS,
        "Received frames with an alignment error"},
    [NETIF_COUNTER_RX_FIFO_ERRORS] = {DCI_UNIT_ERRORS, "Receive FIFO overruns"},
    [NETIF_COUNTER_RX_MISSED_ERRORS] = {DCI_UNIT_ERRORS,
        "Packets the device dropped for lack of receive buffers"},
    [NETIF_COUNTER_TX_ABORTED_ERRORS] = {DCI_UNIT_ERRORS,
        "Transmissions aborted, e.g. after excessive collisions"},
    [NETIF_COUNTER_TX_CARRIER_ERRORS] = {DCI_UNIT_ERRORS,
        "Transmissions failed for loss of carrier"},
    [NETIF_COUNTER_TX_FIFO_ERRORS] = {DCI_UNIT_ERRORS,
        "Transmit FIFO underruns"},
    [NETIF_COUNTER_TX_HEARTBEAT_ERRORS] = {DCI_UNIT_ERRORS,
        "Heartbeat (SQE test) errors"},
    [NETIF_COUNTER_TX_WINDOW_ERRORS] = {DCI_UNIT_ERRORS,
        "Late collisions while transmitting"},
    [NETIF_COUNTER_RX_COMPRESSED] = {DCI_UNIT_PACKETS,
        "Compressed packets received (CSLIP, PPP)"},
    [NETIF_COUNTER_TX_COMPRESSED] = {DCI_UNIT_PACKETS,
        "Compressed packets transmitted (CSLIP, PPP)"},
    [NETIF_COUNTER_RX_NOHANDLER] = {DCI_UNIT_PACKETS,
        "Received packets dropped for want of a protocol handler"},
};

/* What the provider remembers of one served interface between refreshes. */
struct netif_interface {
	uint32_t index;
	char name[NETIF_NAME_SIZE];
	uint8_t operstate;
	bool has_carrier_changes;
	uint32_t carrier_changes;
	bool has_speed;
	uint64_t speed;       /* Mbit/s, valid when has_speed */
	uint64_t last_change; /* centiseconds of CLOCK_MONOTONIC, 0 = none */
	/* During a refresh: its speed is to be read (netif_read_speeds);
	 * administratively up, which a speed needs (as sysfs has it). */
	bool needs_speed;
	bool up;
};

struct netif_interface_list {
	struct netif_interface *items;
	size_t count;
	size_t capacity;
};

struct netif_link_list {
	struct netif_link *items;
	size_t count;
	size_t capacity;
};

struct netif_context {
	struct provider_context base; /* first: provider_fini */
	struct dci_class *class_handle;
	int socket;        /* NETLINK_ROUTE, or -1 until reopened */
	uint32_t sequence; /* of the last dump request */
	/* RTNLGRP_LINK notifications, or -1: then every refresh dumps
	 * links (the kernel refused the subscription, or it failed). */
	int monitor;
	bool stats_unsupported; /* the kernel has no RTM_GETSTATS */
	/* NETLINK_GENERIC for speed dumps, its ethtool family, or -1 until
	 * first needed; ethtool_unsupported: never again (sysfs instead). */
	int ethtool;
	uint16_t ethtool_family;
	bool ethtool_unsupported;
	struct provider_patterns patterns;
	/* The served links of the last link dump, in dump order until
	 * sorted, then by ifIndex; their counters are updated by counters
	 * dumps while links_current holds. */
	struct netif_link_list links;
	bool links_current;  /* no link changed since links was dumped */
	size_t dumped_count; /* links in that dump, served or not */
	/* Interfaces served by the last refresh, sorted by index: what the
	 * next refresh compares with. Interfaces that vanished are not in
	 * it, so it never outgrows the system's interfaces. */
	struct netif_interface_list known;
	/* Being built by the refresh under way; becomes known. */
	struct netif_interface_list seen;
	bool failed; /* the dump's callback failed and logged why */
};

/*
 * Reads /sys/class/net/NAME/speed. Returns true and sets *speed (Mbit/s)
 * when the file holds a non-negative number; false when it is missing,
 * unreadable (EINVAL while the link is down, or for virtual interfaces) or
 * says -1 (SPEED_UNKNOWN).
 */
static bool
netif_read_speed(const char *name, uint64_t *speed)
{
	char path[64];
	char text[32];
	char *end;
	long long value;

	/* The kernel forbids these names; never build a path from them. */
	if (strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return false;
	if ((size_t)snprintf(path, sizeof path, "/sys/class/net/%s/speed",
	        name) >= sizeof path)
		return false;
	if (provider_file_read_small(path, text, sizeof text) <= 0)
		return false;

	errno = 0;
	value = strtoll(text, &end, 10);
	if (end == text || errno != 0 || value < 0)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '\0')
		return false;
	*speed = (uint64_t)value;
	return true;
}

static int
netif_compare_link_index(const void *left, const void *right)
{
	const struct netif_link *a = left;
	const struct netif_link *b = right;

	return (a->index > b->index) - (a->index < b->index);
}

/*
 * Fills current from link and from what the previous refresh saw of the
 * same interface (previous, or NULL). An interface new to the provider, or
 * renamed, starts afresh: its speed is to be read and no change is
 * recorded. A known one whose operational state or carrier change count
 * moved has its speed read again and last_change set to now; otherwise
 * both carry over.
 */
static void
netif_track(struct netif_interface *current,
    const struct netif_interface *previous, const struct netif_link *link,
    uint64_t now)
{
	bool changed;

	memset(current, 0, sizeof *current);
	current->index = link->index;
	memcpy(current->name, link->name, sizeof current->name);
	current->operstate = link->operstate;
	current->has_carrier_changes = link->has_carrier_changes;
	current->carrier_changes = link->carrier_changes;
	current->up = (link->flags & IFF_UP) != 0;

	if (previous == NULL || strcmp(previous->name, link->name) != 0) {
		current->last_change = 0;
		current->needs_speed = true;
		return;
	}
	changed = previous->operstate != link->operstate ||
	          previous->has_carrier_changes != link->has_carrier_changes ||
	          previous->carrier_changes != link->carrier_changes;
	if (changed) {
		current->last_change = now;
		current->needs_speed = true;
	} else {
		current->last_change = previous->last_change;
		current->has_speed = previous->has_speed;
		current->speed = previous->speed;
	}
}

/* Stores every datum of one row, in two calls (the name and address, then
 * the numbers). A value the host refuses leaves just its row out; the
 * host says why when the batch is committed. */
static void
netif_set_row(struct dci_batch *batch, long row, const struct netif_link *link,
    const struct netif_interface *interface)
{
	struct dci_row_bytes bytes[2];
	struct dci_row_value numbers[4 + NETIF_COUNTER_COUNT];
	size_t byte_count = 0, count = 0;

	bytes[byte_count++] = dci_row_string(NETIF_DATUM_NAME, link->name);
	/* Other address lengths (tunnels, InfiniBand) have no row. */
	if (link->address_length == NETIF_ETHERNET_ADDRESS_LENGTH)
		bytes[byte_count++] = dci_row_raw(
		    NETIF_DATUM_ADDRESS, link->address, link->address_length);
	if (link->has_mtu)
		numbers[count++] = dci_row_unsigned(NETIF_DATUM_MTU, link->mtu);
	numbers[count++] = dci_row_unsigned(
	    NETIF_DATUM_OPER_UP, netif_link_is_up(link) ? 1 : 0);
	if (interface->has_speed)
		numbers[count++] =
		    dci_row_unsigned(NETIF_DATUM_SPEED, interface->speed);
	numbers[count++] =
	    dci_row_unsigned(NETIF_DATUM_LAST_CHANGE, interface->last_change);
	/* Counters the kernel did not send (rx_nohandler before Linux 4.6)
	 * have no row. */
	for (size_t i = 0; i < link->counter_count && i < NETIF_COUNTER_COUNT;
	     i++)
		numbers[count++] = dci_row_unsigned(
		    NETIF_DATUM_COUNTER_BASE + (uint32_t)i, link->counters[i]);
	(void)dci_batch_set_row_bytes(batch, row, bytes, byte_count);
	(void)dci_batch_set_row(batch, row, numbers, count);
}

/* netif_link_dump's callback: keeps a copy of every served link. */
static int
netif_collect_link(const struct netif_link *link, void *opaque)
{
	struct netif_context *context = opaque;
	struct netif_link *items;

	context->dumped_count++;
	if (!provider_patterns_admit(&context->patterns, link->name))
		return 0;
	items = provider_grow(context->links.items, &context->links.capacity,
	    context->links.count + 1, sizeof *items);
	if (items == NULL) {
		dci_log(context->base.host, DCI_LOG_ERR,
		    "cannot remember interface %s: %s", link->name,
		    strerror(errno));
		context->failed = true;
		return -1;
	}
	context->links.items = items;
	items[context->links.count++] = *link;
	return 0;
}

/* (Re)opens the rtnetlink socket, dropping whatever the old one held. */
static int
netif_reopen(struct netif_context *context)
{
	if (context->socket >= 0)
		close(context->socket);
	context->socket = netif_netlink_open();
	if (context->socket < 0) {
		dci_log(context->base.host, DCI_LOG_ERR,
		    "cannot open rtnetlink socket: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Frees what the context holds (struct provider_context). */
static void
netif_release(void *opaque)
{
	struct netif_context *context = opaque;

	if (context->socket >= 0)
		close(context->socket);
	if (context->monitor >= 0)
		close(context->monitor);
	if (context->ethtool >= 0)
		close(context->ethtool);
	provider_patterns_free(&context->patterns);
	free(context->links.items);
	free(context->known.items);
	free(context->seen.items);
}

static int
netif_init(struct dci_host *host, void **context_pointer)
{
	struct netif_context *context;
	struct dci_datum_info datums[NETIF_DATUM_COUNT];
	struct dci_class_info class_info;

	context = provider_context_new(
	    host, context_pointer, sizeof *context, netif_release);
	if (context == NULL)
		return -1;
	context->socket = -1;
	context->monitor = -1;
	context->ethtool = -1;

	if (provider_patterns_read(host, &context->patterns, NULL, 0) != 0)
		return -1;

	if (netif_reopen(context) != 0)
		return -1;
	/* Opened before the first link dump, so no change after it is
	 * missed. */
	context->monitor = netif_monitor_open();
	if (context->monitor < 0)
		dci_log(host, DCI_LOG_WARNING,
		    "cannot subscribe to link notifications (%s): every "
		    "refresh dumps all links",
		    strerror(errno));
	/* Any start will do; replies are matched to requests exactly. */
	context->sequence = (uint32_t)time(NULL);

	memcpy(datums, netif_fixed_datums, sizeof netif_fixed_datums);
	for (size_t i = 0; i < NETIF_COUNTER_COUNT; i++)
		datums[NETIF_FIXED_DATUM_COUNT + i] =
		    (struct dci_datum_info)DATUM_FORM_COUNTER64(
		        NETIF_DATUM_COUNTER_BASE + (uint32_t)i,
		        netif_counter_names[i], netif_counter_datums[i].unit,
		        netif_counter_datums[i].description);
	class_info = (struct dci_class_info)CLASS_INFO(netif_class_id,
	    FORM_ELEMENTS(netif_class_id), "netif",
	    "Network interfaces, one instance per ifIndex", netif_levels,
	    FORM_ELEMENTS(netif_levels), datums, NETIF_DATUM_COUNT);
	context->class_handle =
	    provider_register_class(host, &netif_supplier, &class_info, 0);
	if (context->class_handle == NULL)
		return -1; /* the host has logged why */
	return 0;
}

/*
 * Reads what the monitor holds. Returns true when links changed (or may
 * have: notifications were lost); a monitor that fails is closed, leaving
 * every later refresh to dump links.
 */
static bool
netif_drain_monitor(struct netif_context *context)
{
	int changed;

	if (context->monitor < 0)
		return true;
	changed = netif_monitor_drain(context->monitor);
	if (changed >= 0)
		return changed != 0;
	dci_log(context->base.host, DCI_LOG_WARNING,
	    "link notifications failed (%s): every refresh dumps all links "
	    "from now on",
	    strerror(errno));
	close(context->monitor);
	context->monitor = -1;
	return true;
}

/* Sorts links by index and drops repeats (see netif_collect). */
static void
netif_sort_links(struct netif_link_list *links)
{
	size_t kept = 0;
	bool sorted = true;

	for (size_t i = 1; i < links->count && sorted; i++)
		sorted = links->items[i - 1].index < links->items[i].index;
	if (sorted)
		return;
	qsort(links->items, links->count, sizeof *links->items,
	    netif_compare_link_index);
	for (size_t i = 0; i < links->count; i++) {
		if (kept > 0 &&
		    links->items[kept - 1].index == links->items[i].index)
			continue;
		if (kept != i)
			links->items[kept] = links->items[i];
		kept++;
	}
	links->count = kept;
}

/*
 * Dumps the links into context->links. A dump the kernel flags as
 * interrupted by link changes is tried again; if links keep changing, the
 * last attempt is used all the same: it holds every link that existed
 * throughout it (kernels before 6.8 may repeat or, rarely, skip one), which
 * beats serving nothing for as long as the churn lasts. Returns 0, or -1
 * after logging why.
 */
static int
netif_collect(struct netif_context *context)
{
	/* The dump reflects what was notified so far. */
	netif_drain_monitor(context);
	context->links_current = false;
	for (int attempt = 1;; attempt++) {
		int error;

		context->links.count = 0;
		context->dumped_count = 0;
		context->failed = false;
		context->sequence++;
		if (netif_link_dump(context->socket, context->sequence,
		        netif_collect_link, context) == 0) {
			netif_sort_links(&context->links);
			context->links_current = context->monitor >= 0;
			return 0;
		}
		error = errno;
		if (context->failed)
			return -1;
		if (error == EINTR) {
			if (attempt < NETIF_DUMP_ATTEMPTS)
				continue;
			dci_log(context->base.host, DCI_LOG_DEBUG,
			    "links changed during each of %d dumps; using the "
			    "last",
			    NETIF_DUMP_ATTEMPTS);
			/* Not current: the next refresh dumps again. */
			netif_sort_links(&context->links);
			return 0;
		}
		dci_log(context->base.host, DCI_LOG_ERR,
		    "rtnetlink link dump failed: %s", strerror(error));
		/* The socket may still hold part of the dump. */
		netif_reopen(context);
		return -1;
	}
}

/* What a counters dump found, against context->links. */
struct netif_counters_walk {
	struct netif_context *context;
	size_t next;    /* where the next served link is likely to be */
	size_t matched; /* served links updated */
	size_t seen;    /* links in the dump, served or not */
};

/* Finds the served link of ifIndex index, trying first where the dump's
 * order (the links' own, on most kernels) says it is. */
static struct netif_link *
netif_find_link(struct netif_counters_walk *walk, uint32_t index)
{
	struct netif_link_list *links = &walk->context->links;
	size_t low = 0, high = links->count;

	if (walk->next < links->count &&
	    links->items[walk->next].index == index)
		return &links->items[walk->next++];
	while (low < high) {
		size_t middle = low + (high - low) / 2;

		if (links->items[middle].index < index)
			low = middle + 1;
		else
			high = middle;
	}
	if (low < links->count && links->items[low].index == index) {
		walk->next = low + 1;
		return &links->items[low];
	}
	return NULL;
}

/* netif_stats_dump's callback: stores the counters of a served link. */
static int
netif_store_counters(const struct netif_link_stats *stats, void *opaque)
{
	struct netif_counters_walk *walk = opaque;
	struct netif_link *link = netif_find_link(walk, stats->index);

	walk->seen++;
	if (link == NULL)
		return 0; /* not served, or new: the counts tell */
	memcpy(link->counters, stats->counters, sizeof link->counters);
	link->counter_count = stats->counter_count;
	link->counter_bits = 64;
	walk->matched++;
	return 0;
}

/*
 * Brings the counters of context->links up to date with a counters dump,
 * when the links themselves have not changed since they were dumped.
 * Returns true when it did; false when a link dump is needed: links
 * changed before or during the counters dump, the dump named other links,
 * or it failed (then logged why, unless the kernel simply lacks
 * RTM_GETSTATS).
 */
static bool
netif_update_counters(struct netif_context *context)
{
	struct netif_counters_walk walk = {.context = context};
	int error;

	if (!context->links_current || context->stats_unsupported)
		return false;
	context->sequence++;
	if (netif_stats_dump(context->socket, context->sequence,
	        netif_store_counters, &walk) != 0) {
		error = errno;
		if (error == EINTR)
			return false; /* links changed during the dump */
		if (error == EOPNOTSUPP || error == EINVAL) {
			dci_log(context->base.host, DCI_LOG_INFO,
			    "the kernel has no RTM_GETSTATS (%s): every "
			    "refresh dumps all links",
			    strerror(error));
			context->stats_unsupported = true;
			return false;
		}
		dci_log(context->base.host, DCI_LOG_ERR,
		    "rtnetlink counters dump failed: %s", strerror(error));
		netif_reopen(context);
		return false;
	}
	/* Drained after the dump: a change notified before it ended means
	 * the counters may belong to links the dump did not describe. */
	if (netif_drain_monitor(context))
		return false;
	return walk.matched == context->links.count &&
	       walk.seen == context->dumped_count;
}

/* netif_speed_dump's callback: the speed of an interface that needs one,
 * among `count` sorted by index. */
struct netif_speed_walk {
	struct netif_interface *items;
	size_t count;
	size_t next; /* where the next one is likely to be */
};

static int
netif_store_speed(const struct netif_speed *speed, void *opaque)
{
	struct netif_speed_walk *walk = opaque;
	size_t low = 0, high = walk->count;
	struct netif_interface *interface;

	if (walk->next < walk->count &&
	    walk->items[walk->next].index == speed->index) {
		low = walk->next;
	} else {
		while (low < high) {
			size_t middle = low + (high - low) / 2;

			if (walk->items[middle].index < speed->index)
				low = middle + 1;
			else
				high = middle;
		}
	}
	if (low == walk->count || walk->items[low].index != speed->index)
		return 0; /* not served */
	walk->next = low + 1;
	interface = &walk->items[low];
	/* As sysfs: no speed for an interface that is down. */
	if (interface->needs_speed && interface->up && speed->has_speed) {
		interface->has_speed = true;
		interface->speed = speed->megabits;
	}
	return 0;
}

/* Opens the ethtool socket when first needed; false when there is none
 * (then sysfs serves, and a kernel without the family is not asked
 * again). */
static bool
netif_ethtool_ready(struct netif_context *context)
{
	if (context->ethtool >= 0)
		return true;
	if (context->ethtool_unsupported)
		return false;
	context->ethtool = netif_ethtool_open(&context->ethtool_family);
	if (context->ethtool >= 0)
		return true;
	dci_log(context->base.host,
	    errno == ENOENT ? DCI_LOG_INFO : DCI_LOG_WARNING,
	    "no ethtool netlink family (%s): link speeds come from sysfs",
	    strerror(errno));
	context->ethtool_unsupported = errno == ENOENT;
	return false;
}

/*
 * Reads the speed of every one of the `count` interfaces of context->seen
 * (sorted by index) that needs it: in one ethtool dump when there are
 * many, else (or when the dump fails) from sysfs one by one.
 */
static void
netif_read_speeds(struct netif_context *context, size_t count)
{
	struct netif_interface *items = context->seen.items;
	size_t needed = 0;
	bool dumped = false;

	for (size_t i = 0; i < count; i++)
		needed += items[i].needs_speed;
	if (needed == 0)
		return;
	if (needed >= NETIF_SPEED_DUMP_MINIMUM &&
	    netif_ethtool_ready(context)) {
		struct netif_speed_walk walk = {items, count, 0};

		context->sequence++;
		dumped =
		    netif_speed_dump(context->ethtool, context->ethtool_family,
		        context->sequence, netif_store_speed, &walk) == 0;
		if (!dumped) {
			dci_log(context->base.host, DCI_LOG_WARNING,
			    "ethtool speed dump failed (%s): reading sysfs",
			    strerror(errno));
			close(context->ethtool);
			context->ethtool = -1;
		}
	}
	for (size_t i = 0; i < count; i++) {
		if (!items[i].needs_speed)
			continue;
		if (!dumped)
			items[i].has_speed =
			    netif_read_speed(items[i].name, &items[i].speed);
		items[i].needs_speed = false;
	}
}

/* Fills and commits a batch from context->links (sorted), and makes what
 * it published the known state. Returns 0, or -1 after logging why. */
static int
netif_publish(struct dci_host *host, struct netif_context *context)
{
	const struct netif_interface_list *known = &context->known;
	struct netif_interface_list swap;
	struct netif_interface *items;
	struct dci_batch *batch;
	uint64_t now = provider_monotonic_centiseconds();
	size_t next_known = 0;

	items = provider_grow(context->seen.items, &context->seen.capacity,
	    context->links.count, sizeof *items);
	if (items == NULL) {
		dci_log(host, DCI_LOG_ERR, "cannot remember %zu interfaces: %s",
		    context->links.count, strerror(errno));
		return -1;
	}
	context->seen.items = items;
	context->seen.count = 0;

	batch = dci_batch_begin(host, context->class_handle);
	if (batch == NULL) {
		dci_log(
		    host, DCI_LOG_ERR, "cannot begin a batch for class netif");
		return -1;
	}
	for (size_t i = 0; i < context->links.count; i++) {
		const struct netif_link *link = &context->links.items[i];
		const struct netif_interface *previous = NULL;

		/* Both lists are sorted by index: walk them together. */
		while (next_known < known->count &&
		       known->items[next_known].index < link->index)
			next_known++;
		if (next_known < known->count &&
		    known->items[next_known].index == link->index)
			previous = &known->items[next_known];
		netif_track(&context->seen.items[i], previous, link, now);
	}
	netif_read_speeds(context, context->links.count);
	for (size_t i = 0; i < context->links.count; i++) {
		const struct netif_link *link = &context->links.items[i];
		long row =
		    dci_batch_instance(batch, &link->index, 1, link->name);

		if (row < 0)
			continue; /* the host logged why; serve the others */
		context->seen.items[context->seen.count++] =
		    context->seen.items[i];
		netif_set_row(batch, row, link, &context->seen.items[i]);
	}

	/* What was seen is now known, whatever becomes of the commit. */
	swap = context->known;
	context->known = context->seen;
	context->seen = swap;
	context->seen.count = 0;

	if (dci_batch_commit(batch) != 0) {
		dci_log(host, DCI_LOG_ERR, "cannot commit class netif");
		return -1;
	}
	return 0;
}

static int
netif_refresh(struct dci_host *host, void *opaque)
{
	struct netif_context *context = opaque;

	/* After a failed reopen the socket is retried on every refresh. */
	if (context->socket < 0 && netif_reopen(context) != 0)
		return -1;
	if (!netif_update_counters(context)) {
		dci_log(host, DCI_LOG_DEBUG, "refresh: link dump");
		/* A failed counters dump reopens the socket, which may fail. */
		if (context->socket < 0 && netif_reopen(context) != 0)
			return -1;
		if (netif_collect(context) != 0)
			return -1;
	} else {
		dci_log(host, DCI_LOG_DEBUG, "refresh: counters dump");
	}
	return netif_publish(host, context);
}

static const char *const netif_option_keys[] = {"include", "exclude", NULL};

PROVIDER_ENTRY("netif", "Linux network interface counters, from rtnetlink",
    netif_option_keys, netif_init, netif_refresh);
