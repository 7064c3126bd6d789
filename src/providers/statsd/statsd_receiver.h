/*
 * The statsd provider's receiver: its sockets (UDP, and a unix datagram
 * socket if asked) and the thread that reads them.
 *
 * Why a thread. dcistatd runs a provider's refresh once a period; a
 * socket drained only then must hold a whole period of packets (a burst
 * of 10^6 lines is some 20 MB), and holds nothing while a refresh is late.
 * The receiver thread reads as packets come (recvmmsg, a batch of
 * datagrams a call) and applies each batch to the series table under the
 * provider's lock; refresh takes the same lock to read the table. The
 * socket buffer (receive_buffer, SO_RCVBUFFORCE when the daemon may, else
 * SO_RCVBUF within net.core.rmem_max) covers the time refresh holds the
 * lock. What the kernel still drops is counted (SO_MEMINFO, SO_RXQ_OVFL)
 * and served.
 * The thread never calls the host (provider.h forbids it).
 */
#ifndef DCISTAT_PROVIDERS_STATSD_RECEIVER_H
#define DCISTAT_PROVIDERS_STATSD_RECEIVER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "providers/statsd/statsd_series.h"

#pragma GCC visibility push(hidden)

struct statsd_receiver_options {
	const char *listen;     /* "address:port", "[v6]:port"; NULL: none */
	const char *unix_path;  /* a unix datagram socket; NULL: none */
	size_t receive_buffer;  /* bytes asked of each socket */
	size_t max_packet_size; /* a longer datagram is refused whole */
};

struct statsd_receiver;

/* Checks `options` as statsd_receiver_open takes them (the form of the
 * listen address, the unix socket's path) without opening anything: what
 * init does, in a process that may never serve (provider.h). 0, or -1
 * with the reason in `why`. */
int statsd_receiver_check(
    const struct statsd_receiver_options *options, char *why, size_t why_size);

/* Opens and binds the sockets; NULL with the reason in `why`. A unix
 * socket path where another process serves a socket, or where something
 * else than a socket is, is refused; a socket nobody serves there (left
 * by a process that ended) is replaced. */
struct statsd_receiver *statsd_receiver_open(
    const struct statsd_receiver_options *options, char *why, size_t why_size);

/* Starts the thread, which feeds `table` under `lock`. 0 or -1 (errno). */
int statsd_receiver_start(struct statsd_receiver *receiver,
    struct statsd_table *table, pthread_mutex_t *lock);

/* Stops the thread, closes the sockets, removes the unix socket's file
 * if the path still is the one this receiver bound. NULL is accepted. */
void statsd_receiver_close(struct statsd_receiver *receiver);

/* Datagrams the kernel dropped for want of buffer, over all sockets, up
 * to now (SO_MEMINFO, else as SO_RXQ_OVFL last reported them). Call under
 * the lock given to start. */
uint64_t statsd_receiver_drops(struct statsd_receiver *receiver);

/* The receive buffer the UDP socket has (else the unix one's), in bytes as
 * the kernel reports it. */
size_t statsd_receiver_buffer(const struct statsd_receiver *receiver);

#pragma GCC visibility pop

#endif
