/*
 * bench/statsd: statsd lines absorbed a second by the statsd provider's
 * code (issue 29's target: >= 500,000 lines/s on one core).
 *
 *   statsd_bench parse DATAGRAMS
 *       the parse and apply path alone (statsd_table_datagram), on the
 *       calling thread: DATAGRAMS datagrams of 20 lines (counters with and
 *       without tags and sample rates, gauges, timers, sets over 1,000
 *       series); prints "parse LINES_PER_SECOND".
 *   statsd_bench udp PORT DATAGRAMS
 *       the whole receiver (statsd_receiver.c: recvmmsg, the lock, the
 *       table) on 127.0.0.1:PORT, fed by a child process sending the same
 *       datagrams as fast as it can; prints "udp LINES_PER_SECOND DROPPED"
 *       (lines applied over the time from the first to the last, and the
 *       datagrams the kernel dropped, and whether read and dropped add
 *       up to what was sent). Pin with taskset: the receiver
 *       thread inherits the process's CPU set; the child frees itself to
 *       every CPU (BENCH_SENDER_CPU to choose one). RECEIVE_BUFFER
 *       (bytes, default 32 MiB): a small one makes the kernel drop.
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "bench_time.h"
#include "providers/statsd/statsd_receiver.h"
#include "providers/statsd/statsd_series.h"

#define LINES_PER_DATAGRAM 20
#define DATAGRAM_VARIANTS 64

static char datagrams[DATAGRAM_VARIANTS][2048];
static size_t lengths[DATAGRAM_VARIANTS];

static void
make_datagrams(void)
{
	for (int d = 0; d < DATAGRAM_VARIANTS; d++) {
		size_t at = 0;
		for (int l = 0; l < LINES_PER_DATAGRAM; l++) {
			int series = (d * LINES_PER_DATAGRAM + l) % 1000;
			char *out = datagrams[d] + at;
			size_t room = sizeof datagrams[d] - at;
			switch (l % 5) {
			case 0:
				at += (size_t)snprintf(
				    out, room, "app.requests.%d:1|c\n", series);
				break;
			case 1:
				at += (size_t)snprintf(out, room,
				    "app.bytes.%d:512|c|@0.5|#host:web%d,"
				    "env:prod\n",
				    series, series % 7);
				break;
			case 2:
				at += (size_t)snprintf(out, room,
				    "app.latency.%d:%d.%d|ms|#route:api\n",
				    series % 100, 3 + l, d % 10);
				break;
			case 3:
				at += (size_t)snprintf(out, room,
				    "app.queue.%d:%d|g\n", series % 50, d);
				break;
			default:
				at += (size_t)snprintf(out, room,
				    "app.users.%d:user%d|s\n", series % 20, d);
				break;
			}
		}
		lengths[d] = at;
	}
}

static const struct statsd_limits limits = {
    .max_series = 10000,
    .max_timer_series = 10000,
    .max_series_per_source = 10000,
    .max_udp_series = 10000,
    .max_set_members = 10000,
    .max_set_members_total = 1000000,
    .max_set_members_per_source = 1000000,
    .max_udp_set_members = 1000000,
    .max_metrics_per_packet = 1000,
};
static const struct statsd_sender sender = {STATSD_FROM_UDP, 1};

static int
bench_parse(size_t count)
{
	struct statsd_table *table = statsd_table_create(&limits);
	double start;

	if (table == NULL)
		return 1;
	/* Warm: every series made before the clock starts. */
	for (int d = 0; d < DATAGRAM_VARIANTS; d++)
		statsd_table_datagram(table, &sender, datagrams[d], lengths[d]);
	start = bench_now_nanoseconds();
	for (size_t i = 0; i < count; i++) {
		size_t d = i % DATAGRAM_VARIANTS;
		statsd_table_datagram(table, &sender, datagrams[d], lengths[d]);
	}
	double seconds = (bench_now_nanoseconds() - start) / 1e9;
	printf("parse %.0f\n", (double)count * LINES_PER_DATAGRAM / seconds);
	statsd_table_destroy(table);
	return 0;
}

static void
send_all(int port, size_t count)
{
	struct sockaddr_in address = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	const char *cpu = getenv("BENCH_SENDER_CPU");
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu != NULL && *cpu != '\0') {
		CPU_SET(atoi(cpu), &set);
	} else {
		for (int c = 0; c < CPU_SETSIZE; c++)
			CPU_SET(c, &set);
	}
	sched_setaffinity(0, sizeof set, &set);
	address.sin_port = htons((uint16_t)port);
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 ||
	    connect(fd, (struct sockaddr *)&address, sizeof address) != 0)
		_exit(1);
	for (size_t i = 0; i < count; i++) {
		size_t d = i % DATAGRAM_VARIANTS;
		while (send(fd, datagrams[d], lengths[d], 0) < 0)
			;
	}
	_exit(0);
}

static int
bench_udp(int port, size_t count)
{
	struct statsd_table *table = statsd_table_create(&limits);
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	char listen[64], why[256];
	struct statsd_receiver_options options = {
	    .listen = listen,
	    .receive_buffer = getenv("RECEIVE_BUFFER") != NULL
	                          ? strtoul(getenv("RECEIVE_BUFFER"), NULL, 10)
	                          : 32u << 20,
	    .max_packet_size = 8192,
	};
	struct statsd_receiver *receiver;
	double first = 0.0, last = 0.0, quiet_since;
	uint64_t packets = 0, drops = 0, seen = 0;
	pid_t child;

	snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
	receiver = statsd_receiver_open(&options, why, sizeof why);
	if (table == NULL || receiver == NULL ||
	    statsd_receiver_start(receiver, table, &lock) != 0) {
		fprintf(stderr, "statsd_bench: %s\n", why);
		return 1;
	}
	child = fork();
	if (child == 0)
		send_all(port, count);
	quiet_since = bench_now_nanoseconds();
	/* Until every datagram is read or dropped, or nothing comes for
	 * 2 s. */
	while (packets + drops < count &&
	       bench_now_nanoseconds() - quiet_since < 2e9) {
		usleep(200);
		pthread_mutex_lock(&lock);
		packets = statsd_table_counts(table)->packets;
		drops = statsd_receiver_drops(receiver);
		pthread_mutex_unlock(&lock);
		double now = bench_now_nanoseconds();
		if (packets != seen) {
			if (seen == 0)
				first = now;
			last = now;
			seen = packets;
			quiet_since = now;
		}
	}
	waitpid(child, NULL, 0);
	/* Every datagram sent is read or counted as dropped. */
	printf("udp %.0f %llu %s\n",
	    last > first ? (double)(packets - 1) * LINES_PER_DATAGRAM /
	                       ((last - first) / 1e9)
	                 : 0.0,
	    (unsigned long long)drops,
	    packets + drops == count ? "accounted" : "UNACCOUNTED");
	statsd_receiver_close(receiver);
	statsd_table_destroy(table);
	return 0;
}

int
main(int argc, char **argv)
{
	make_datagrams();
	if (argc == 3 && strcmp(argv[1], "parse") == 0)
		return bench_parse(strtoul(argv[2], NULL, 10));
	if (argc == 4 && strcmp(argv[1], "udp") == 0)
		return bench_udp(atoi(argv[2]), strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: statsd_bench parse N | udp PORT N\n");
	return 2;
}
