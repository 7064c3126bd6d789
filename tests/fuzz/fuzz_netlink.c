/*
 * libFuzzer target for the netif provider's netlink parsers: any bytes
 * handed over as one datagram of a dump (sequence 1) go through
 * netif_dump_datagram, and each message it passes on through every parser
 * the provider has (links, counters, ethtool speeds, generic netlink
 * families), which must accept it, pass it by, or refuse it with EBADMSG,
 * without a crash, a leak or undefined behaviour (ASan and UBSan).
 *
 * Built by `make fuzz` with clang alone; run by `make fuzz-run` and CI.
 */
#include "providers/netif/netif_ethtool.h"
#include "providers/netif/netif_link.h"
#include "providers/netif/netif_netlink.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The family id the speed parser is told is ethtool's. */
#define FUZZ_ETHTOOL_FAMILY 27

static void
fuzz_check(int result)
{
	if (result < -1 || result > 1 || (result == -1 && errno != EBADMSG))
		abort();
}

static int
fuzz_each(const struct nlmsghdr *message, void *context)
{
	struct netif_link link;
	struct netif_link_stats stats;
	struct netif_speed speed;
	uint16_t family;

	(void)context;
	errno = 0;
	fuzz_check(netif_link_parse(message, &link));
	errno = 0;
	fuzz_check(netif_stats_parse(message, &stats));
	errno = 0;
	fuzz_check(netif_speed_parse(message, FUZZ_ETHTOOL_FAMILY, &speed));
	errno = 0;
	fuzz_check(netif_family_parse(message, "ethtool", &family));
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netif_dump_state state = {.sequence = 1, .each = fuzz_each};
	/* Aligned as a receive buffer is, and exactly `size` long. */
	void *datagram = malloc(size > 0 ? size : 1);

	if (datagram == NULL)
		return 0;
	memcpy(datagram, data, size);
	(void)netif_dump_datagram(&state, datagram, size);
	free(datagram);
	return 0;
}
