/*
 * netif_ethtool: link speeds from the kernel's ethtool generic netlink
 * family (Linux 5.6 and later), every interface's in one dump
 * (ETHTOOL_MSG_LINKMODES_GET), where /sys/class/net/NAME/speed costs an
 * open, a read and a close per interface.
 *
 * The parsers take synthetic messages in the unit tests; everything here
 * runs in the thread that calls it and keeps no state but the socket.
 */
#ifndef NETIF_ETHTOOL_H
#define NETIF_ETHTOOL_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/*
 * Opens a NETLINK_GENERIC socket and finds the ethtool family's id (a dump
 * of the generic netlink controller's families). Returns the descriptor
 * and sets *family, or -1 with errno: ENOENT when the kernel has no
 * ethtool family, another value when the socket or the dump failed.
 */
int netif_ethtool_open(uint16_t *family);

/* One interface's speed as a LINKMODES reply gives it. */
struct netif_speed {
	uint32_t index;    /* ifIndex, > 0 */
	bool has_speed;    /* false: SPEED_UNKNOWN or beyond what sysfs shows */
	uint32_t megabits; /* Mbit/s, when has_speed */
};

/* Called once per interface of a speed dump; returns 0 to go on. */
typedef int (*netif_speed_each)(const struct netif_speed *speed, void *context);

/*
 * Dumps every interface's link modes with compact bit sets, tagging the
 * request with `sequence`, and calls each with the speed of every
 * interface whose driver reports link settings (the kernel leaves out the
 * others, lo for one). Returns as netif_link_dump does.
 */
int netif_speed_dump(int descriptor, uint16_t family, uint32_t sequence,
    netif_speed_each each, void *context);

/*
 * Parses a controller family message (CTRL_CMD_NEWFAMILY): 1 and *id when
 * it names `name`, 0 when it names another family or is another message,
 * -1 with errno EBADMSG when malformed.
 */
int netif_family_parse(
    const struct nlmsghdr *message, const char *name, uint16_t *id);

/*
 * Parses a LINKMODES reply of family `family`: 1 with *speed filled, 0
 * for another message, -1 with errno EBADMSG when malformed (no header,
 * no or a zero ifIndex, an attribute overrunning its message).
 */
int netif_speed_parse(
    const struct nlmsghdr *message, uint16_t family, struct netif_speed *speed);

#pragma GCC visibility pop

#endif
