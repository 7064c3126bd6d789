/*
 * netlink_bench: what the netif provider's netlink parsers cost, apart
 * from the kernel's work. It takes one real dump of every link
 * (RTM_GETLINK) and one of every link's counters (RTM_GETSTATS) in the
 * namespace it runs in, timing each (the process's CPU time: mostly the
 * kernel building the messages), then hands the datagrams it kept to
 * netif_dump_datagram and the parsers ROUNDS times, as a refresh does,
 * and prints the median CPU time of one pass.
 *
 * Usage: netlink_bench ROUNDS. Output, one line per dump:
 *   links|stats MESSAGES DATAGRAMS BYTES KERNEL_NS PARSE_NS
 * (KERNEL_NS: the dump taken from the socket; PARSE_NS: one pass of the
 * parsers over it, median).
 */
#define _GNU_SOURCE

#include "providers/netif/netif_netlink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "bench_time.h"

/* A dump's datagrams as the kernel sent them. */
struct bench_dump {
	unsigned char **datagrams;
	size_t *lengths;
	size_t count;
	size_t bytes;
	uint32_t sequence;
	unsigned long messages; /* parsed by the last pass */
};

static double
bench_cpu_nanoseconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

static void
bench_fail(const char *what)
{
	fprintf(stderr, "netlink_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* True when the datagram holds the dump's NLMSG_DONE. */
static bool
bench_ends_dump(const unsigned char *datagram, size_t length)
{
	size_t offset = 0;

	while (length - offset >= NLMSG_HDRLEN) {
		const struct nlmsghdr *message =
		    (const void *)(datagram + offset);

		if (message->nlmsg_len < NLMSG_HDRLEN ||
		    message->nlmsg_len > length - offset)
			return false;
		if (message->nlmsg_type == NLMSG_DONE)
			return true;
		offset += NLMSG_ALIGN(message->nlmsg_len);
	}
	return false;
}

/* Sends the dump request and keeps every datagram of the answer; returns
 * the CPU time that took. */
static double
bench_capture(struct bench_dump *dump, uint16_t type, const void *header,
    size_t length)
{
	struct {
		struct nlmsghdr header;
		unsigned char family_header[32];
	} request;
	int descriptor = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	double started = bench_cpu_nanoseconds();

	if (descriptor < 0)
		bench_fail("socket");
	memset(&request, 0, sizeof request);
	request.header.nlmsg_len = NLMSG_LENGTH(length);
	request.header.nlmsg_type = type;
	request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	request.header.nlmsg_seq = dump->sequence;
	memcpy(request.family_header, header, length);
	if (send(descriptor, &request, request.header.nlmsg_len, 0) < 0)
		bench_fail("send");
	for (;;) {
		unsigned char *datagram = malloc(65536);
		ssize_t received;

		if (datagram == NULL)
			bench_fail("malloc");
		received = recv(descriptor, datagram, 65536, 0);
		if (received <= 0)
			bench_fail("recv");
		dump->datagrams = realloc(dump->datagrams,
		    (dump->count + 1) * sizeof dump->datagrams[0]);
		dump->lengths = realloc(
		    dump->lengths, (dump->count + 1) * sizeof dump->lengths[0]);
		if (dump->datagrams == NULL || dump->lengths == NULL)
			bench_fail("realloc");
		dump->datagrams[dump->count] = datagram;
		dump->lengths[dump->count++] = (size_t)received;
		dump->bytes += (size_t)received;
		if (bench_ends_dump(datagram, (size_t)received))
			break;
	}
	close(descriptor);
	return bench_cpu_nanoseconds() - started;
}

static int
bench_count_link(const struct netif_link *link, void *context)
{
	struct bench_dump *dump = context;

	dump->messages += link->index != 0;
	return 0;
}

static int
bench_count_stats(const struct netif_link_stats *stats, void *context)
{
	struct bench_dump *dump = context;

	dump->messages += stats->index != 0;
	return 0;
}

/* One pass of the parsers over the dump; returns its CPU time. */
static double
bench_parse(struct bench_dump *dump, enum netif_dump_kind kind)
{
	struct netif_parsed_dump parsed = {.kind = kind,
	    .link_each = bench_count_link,
	    .stats_each = bench_count_stats,
	    .context = dump};
	struct netif_dump_state state = {.sequence = dump->sequence,
	    .each = netif_each_parsed_message,
	    .context = &parsed};
	double started = bench_cpu_nanoseconds();

	dump->messages = 0;
	for (size_t i = 0; i < dump->count; i++)
		if (netif_dump_datagram(
		        &state, dump->datagrams[i], dump->lengths[i]) != 0)
			bench_fail("netif_dump_datagram");
	return bench_cpu_nanoseconds() - started;
}

static void
bench_run(const char *name, enum netif_dump_kind kind, uint16_t type,
    const void *header, size_t length, uint32_t sequence, int rounds)
{
	struct bench_dump dump = {.sequence = sequence};
	double kernel = bench_capture(&dump, type, header, length);
	double *samples = malloc((size_t)rounds * sizeof samples[0]);

	if (samples == NULL)
		bench_fail("malloc");
	bench_parse(&dump, kind); /* warm */
	for (int round = 0; round < rounds; round++)
		samples[round] = bench_parse(&dump, kind);
	printf("%s %lu %zu %zu %.0f %.0f\n", name, dump.messages, dump.count,
	    dump.bytes, kernel, bench_median(samples, (size_t)rounds));
	free(samples);
	for (size_t i = 0; i < dump.count; i++)
		free(dump.datagrams[i]);
	free(dump.datagrams);
	free(dump.lengths);
}

int
main(int argc, char **argv)
{
	struct ifinfomsg information = {.ifi_family = AF_UNSPEC};
	struct if_stats_msg filter = {
	    .family = AF_UNSPEC,
	    .filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64),
	};
	int rounds = argc > 1 ? atoi(argv[1]) : 0;

	if (rounds < 1) {
		fprintf(stderr, "usage: netlink_bench ROUNDS\n");
		return 2;
	}
	bench_run("links", NETIF_DUMP_LINKS, RTM_GETLINK, &information,
	    sizeof information, 1, rounds);
	bench_run("stats", NETIF_DUMP_STATS, RTM_GETSTATS, &filter,
	    sizeof filter, 2, rounds);
	return 0;
}
