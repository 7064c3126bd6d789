/*
 * The statsd receiver (statsd_receiver.h): sockets, recvmmsg batches, the
 * kernel's drop counter.
 */
#define _GNU_SOURCE

#include "providers/statsd/statsd_receiver.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Datagrams read by one recvmmsg call. */
#define STATSD_BATCH 64u
/* Batches read from one socket before the others get a turn. */
#define STATSD_BATCHES_A_TURN 16u

enum { STATSD_SOCKET_UDP, STATSD_SOCKET_UNIX, STATSD_SOCKETS };

struct statsd_receiver {
	int sockets[STATSD_SOCKETS]; /* -1: not open */
	uint32_t last_drops[STATSD_SOCKETS];
	uint64_t drops;
	size_t buffer_bytes;
	int stop; /* eventfd */
	/* The unix socket this receiver bound, removed at close while the
	 * path still is that file; NULL: none. */
	char *unix_path;
	dev_t unix_device;
	ino_t unix_inode;
	size_t max_packet_size;
	pthread_t thread;
	bool running;
	struct statsd_table *table;
	pthread_mutex_t *lock;
	/* STATSD_BATCH buffers of max_packet_size, and their headers. */
	char *buffers;
	struct mmsghdr messages[STATSD_BATCH];
	struct iovec vectors[STATSD_BATCH];
	struct sockaddr_storage addresses[STATSD_BATCH];
	/* SO_RXQ_OVFL's drop count; the unix socket's SCM_CREDENTIALS. */
	union {
		char bytes[CMSG_SPACE(sizeof(uint32_t)) +
		           CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} controls[STATSD_BATCH];
};

static void
statsd_socket_options(struct statsd_receiver *receiver, int fd)
{
	int size = receiver->buffer_bytes > (size_t)INT32_MAX / 2
	               ? INT32_MAX / 2
	               : (int)receiver->buffer_bytes;
	int on = 1;
	socklen_t length = sizeof size;

	/* FORCE passes net.core.rmem_max when the daemon may (root, before
	 * it drops privileges); else the kernel caps SO_RCVBUF at it. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	(void)setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &length) == 0 &&
	    size > 0)
		receiver->buffer_bytes = (size_t)size;
}

/* Splits "address:port" or "[address]:port" (numeric only: no name is
 * looked up) into the address to bind; NULL with the reason in `why`. */
static struct addrinfo *
statsd_listen_parse(const char *listen, char *why, size_t why_size)
{
	char host[64];
	const char *port, *host_start = listen, *host_end;
	struct addrinfo hints = {0}, *found = NULL;
	int error;

	if (listen[0] == '[') {
		host_start = listen + 1;
		host_end = strchr(host_start, ']');
		if (host_end == NULL || host_end[1] != ':') {
			snprintf(
			    why, why_size, "listen: expected [address]:port");
			return NULL;
		}
		port = host_end + 2;
	} else {
		host_end = strrchr(listen, ':');
		if (host_end == NULL) {
			snprintf(
			    why, why_size, "listen: expected address:port");
			return NULL;
		}
		port = host_end + 1;
	}
	if ((size_t)(host_end - host_start) >= sizeof host ||
	    host_end == host_start || *port == '\0') {
		snprintf(why, why_size, "listen: expected address:port");
		return NULL;
	}
	memcpy(host, host_start, (size_t)(host_end - host_start));
	host[host_end - host_start] = '\0';
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	error = getaddrinfo(host, port, &hints, &found);
	if (error != 0) {
		snprintf(why, why_size, "listen: %s", gai_strerror(error));
		return NULL;
	}
	return found;
}

/* Binds a UDP socket to `listen`. */
static int
statsd_open_udp(struct statsd_receiver *receiver, const char *listen, char *why,
    size_t why_size)
{
	struct addrinfo *found = statsd_listen_parse(listen, why, why_size);
	int fd;

	if (found == NULL)
		return -1;
	fd = socket(
	    found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, found->ai_addr, found->ai_addrlen) != 0) {
		snprintf(why, why_size, "listen: cannot bind UDP: %s",
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(found);
		return -1;
	}
	freeaddrinfo(found);
	statsd_socket_options(receiver, fd);
	receiver->sockets[STATSD_SOCKET_UDP] = fd;
	return 0;
}

/* The unix socket's address; -1 with the reason for a path that cannot
 * be one. */
static int
statsd_unix_address(
    const char *path, struct sockaddr_un *address, char *why, size_t why_size)
{
	*address = (struct sockaddr_un){.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof address->sun_path || path[0] != '/') {
		snprintf(why, why_size,
		    "unix_socket: an absolute path shorter than %zu bytes",
		    sizeof address->sun_path);
		return -1;
	}
	strcpy(address->sun_path, path);
	return 0;
}

/* Makes room for binding at `path`: nothing there, or a socket nobody
 * serves (left by a process that ended), which goes. A socket another
 * process serves is its, and anything else at the path is not ours to
 * remove: both refused. A datagram connect tells the two kinds of socket
 * apart without sending anything: it succeeds when a socket is bound
 * there, and is refused when none is. */
static int
statsd_unix_claim(const char *path, const struct sockaddr_un *address,
    char *why, size_t why_size)
{
	struct stat status;
	int probe, error;

	if (lstat(path, &status) != 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, why_size, "unix_socket: %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(status.st_mode)) {
		snprintf(why, why_size,
		    "unix_socket: %s exists and is not a socket", path);
		return -1;
	}
	probe = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (probe < 0) {
		snprintf(why, why_size, "unix_socket: %s: cannot probe: %s",
		    path, strerror(errno));
		return -1;
	}
	error = connect(probe, (const struct sockaddr *)address,
	            sizeof *address) == 0
	            ? 0
	            : errno;
	close(probe);
	if (error == 0) {
		snprintf(why, why_size,
		    "unix_socket: %s is served by another process (a running "
		    "dcistatd?); not taken",
		    path);
		return -1;
	}
	if (error != ECONNREFUSED) {
		snprintf(why, why_size,
		    "unix_socket: %s: cannot tell whether another process "
		    "serves it: %s",
		    path, strerror(error));
		return -1;
	}
	if (unlink(path) != 0 && errno != ENOENT) {
		snprintf(why, why_size,
		    "unix_socket: %s: cannot remove the stale socket: %s", path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

static int
statsd_open_unix(struct statsd_receiver *receiver, const char *path, char *why,
    size_t why_size)
{
	struct sockaddr_un address;
	struct stat status;
	int fd;

	if (statsd_unix_address(path, &address, why, why_size) != 0 ||
	    statsd_unix_claim(path, &address, why, why_size) != 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	/* Before the bind: the kernel attaches a sender's uid (its source,
	 * statsd_series.h) only to what it sends once this is set. */
	if (fd >= 0)
		(void)setsockopt(
		    fd, SOL_SOCKET, SO_PASSCRED, &(int){1}, sizeof(int));
	if (fd < 0 ||
	    bind(fd, (struct sockaddr *)&address, sizeof address) != 0) {
		snprintf(why, why_size, "unix_socket: %s: cannot bind: %s",
		    path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* What close may remove: this file, not one bound there later. */
	if (lstat(path, &status) == 0) {
		receiver->unix_device = status.st_dev;
		receiver->unix_inode = status.st_ino;
		receiver->unix_path = strdup(path);
	}
	/* Any local process may send, as any may to 127.0.0.1:8125. */
	(void)chmod(path, 0666);
	statsd_socket_options(receiver, fd);
	receiver->sockets[STATSD_SOCKET_UNIX] = fd;
	return 0;
}

int
statsd_receiver_check(
    const struct statsd_receiver_options *options, char *why, size_t why_size)
{
	struct sockaddr_un address;
	struct addrinfo *found;

	if (options->listen != NULL) {
		found = statsd_listen_parse(options->listen, why, why_size);
		if (found == NULL)
			return -1;
		freeaddrinfo(found);
	}
	if (options->unix_path != NULL &&
	    statsd_unix_address(options->unix_path, &address, why, why_size) !=
	        0)
		return -1;
	return 0;
}

struct statsd_receiver *
statsd_receiver_open(
    const struct statsd_receiver_options *options, char *why, size_t why_size)
{
	struct statsd_receiver *receiver = calloc(1, sizeof *receiver);

	if (receiver == NULL) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	receiver->sockets[STATSD_SOCKET_UDP] = -1;
	receiver->sockets[STATSD_SOCKET_UNIX] = -1;
	receiver->max_packet_size = options->max_packet_size;
	receiver->buffer_bytes = options->receive_buffer;
	receiver->stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	receiver->buffers = malloc(STATSD_BATCH * options->max_packet_size);
	if (receiver->stop < 0 || receiver->buffers == NULL) {
		snprintf(why, why_size, "cannot set up: %s", strerror(errno));
		statsd_receiver_close(receiver);
		return NULL;
	}
	size_t asked = receiver->buffer_bytes, udp_buffer = 0;
	if (options->listen != NULL &&
	    statsd_open_udp(receiver, options->listen, why, why_size) != 0) {
		statsd_receiver_close(receiver);
		return NULL;
	}
	udp_buffer = receiver->sockets[STATSD_SOCKET_UDP] >= 0
	                 ? receiver->buffer_bytes
	                 : 0;
	receiver->buffer_bytes = asked;
	if (options->unix_path != NULL &&
	    statsd_open_unix(receiver, options->unix_path, why, why_size) !=
	        0) {
		statsd_receiver_close(receiver);
		return NULL;
	}
	if (udp_buffer != 0)
		receiver->buffer_bytes = udp_buffer;
	return receiver;
}

/* A UDP sender's address as a number, the same for every port of one
 * address: the per-source bound counts addresses, not sockets. */
static uint64_t
statsd_address_of(const struct sockaddr_storage *address, socklen_t length)
{
	uint64_t hash = UINT64_C(0xcbf29ce484222325);
	const unsigned char *bytes = NULL;
	size_t count = 0;

	if (address->ss_family == AF_INET &&
	    length >= sizeof(struct sockaddr_in)) {
		bytes = (const unsigned char *)&(
		    (const struct sockaddr_in *)address)
		            ->sin_addr;
		count = 4;
	} else if (address->ss_family == AF_INET6 &&
	           length >= sizeof(struct sockaddr_in6)) {
		bytes = (const unsigned char *)&(
		    (const struct sockaddr_in6 *)address)
		            ->sin6_addr;
		count = 16;
	}
	for (size_t i = 0; i < count; i++) {
		hash ^= bytes[i];
		hash *= UINT64_C(0x100000001b3);
	}
	return hash ^ address->ss_family;
}

/* Who sent message `i` on socket `which`: a UDP address, or the uid the
 * kernel gave with a unix datagram (SO_PASSCRED: a sender cannot name
 * another uid without CAP_SETUID). */
static struct statsd_sender
statsd_sender_of(struct statsd_receiver *receiver, int which, unsigned i)
{
	struct msghdr *header = &receiver->messages[i].msg_hdr;
	struct statsd_sender sender = {
	    .transport = STATSD_FROM_UNIX, .id = STATSD_UID_UNKNOWN};

	if (which == STATSD_SOCKET_UDP)
		return (struct statsd_sender){.transport = STATSD_FROM_UDP,
		    .id = statsd_address_of(
		        &receiver->addresses[i], header->msg_namelen)};
	for (struct cmsghdr *control = CMSG_FIRSTHDR(header); control != NULL;
	     control = CMSG_NXTHDR(header, control)) {
		struct ucred credentials;
		if (control->cmsg_level != SOL_SOCKET ||
		    control->cmsg_type != SCM_CREDENTIALS ||
		    control->cmsg_len < CMSG_LEN(sizeof credentials))
			continue;
		memcpy(&credentials, CMSG_DATA(control), sizeof credentials);
		sender.id = credentials.uid;
	}
	return sender;
}

/* Takes a reading of socket `which`'s drop count (the kernel's 32-bit
 * sk_drops, from a message's SO_RXQ_OVFL or from SO_MEMINFO): adds how far
 * it went forward modulo 2^32. A reading older than one already taken (a
 * batch's messages, dequeued before refresh asked SO_MEMINFO) is no step
 * back: it is ignored. */
static void
statsd_drops_reading(
    struct statsd_receiver *receiver, int which, uint32_t total)
{
	uint32_t step = total - receiver->last_drops[which];

	if (step >= UINT32_C(0x80000000))
		return;
	receiver->drops += step;
	receiver->last_drops[which] = total;
}

/* The kernel's drop count in a message's control data, if there. */
static void
statsd_note_drops(
    struct statsd_receiver *receiver, int which, struct msghdr *header)
{
	for (struct cmsghdr *control = CMSG_FIRSTHDR(header); control != NULL;
	     control = CMSG_NXTHDR(header, control)) {
		uint32_t total;
		if (control->cmsg_level != SOL_SOCKET ||
		    control->cmsg_type != SO_RXQ_OVFL ||
		    control->cmsg_len < CMSG_LEN(sizeof total))
			continue;
		memcpy(&total, CMSG_DATA(control), sizeof total);
		statsd_drops_reading(receiver, which, total);
	}
}

/* Reads up to STATSD_BATCHES_A_TURN batches from one socket; false when
 * it has nothing more now. */
static bool
statsd_read_socket(struct statsd_receiver *receiver, int which)
{
	int fd = receiver->sockets[which];
	struct timespec now;

	for (unsigned turn = 0; turn < STATSD_BATCHES_A_TURN; turn++) {
		for (unsigned i = 0; i < STATSD_BATCH; i++) {
			receiver->vectors[i].iov_base =
			    receiver->buffers + i * receiver->max_packet_size;
			receiver->vectors[i].iov_len =
			    receiver->max_packet_size;
			receiver->messages[i].msg_hdr = (struct msghdr){
			    .msg_name = &receiver->addresses[i],
			    .msg_namelen = sizeof receiver->addresses[i],
			    .msg_iov = &receiver->vectors[i],
			    .msg_iovlen = 1,
			    .msg_control = receiver->controls[i].bytes,
			    .msg_controllen =
			        sizeof receiver->controls[i].bytes,
			};
		}
		int count = recvmmsg(
		    fd, receiver->messages, STATSD_BATCH, MSG_DONTWAIT, NULL);
		if (count <= 0)
			return false;
		clock_gettime(CLOCK_MONOTONIC, &now);
		pthread_mutex_lock(receiver->lock);
		statsd_table_clock(receiver->table, (int64_t)now.tv_sec);
		for (int i = 0; i < count; i++) {
			struct msghdr *header = &receiver->messages[i].msg_hdr;
			struct statsd_sender sender =
			    statsd_sender_of(receiver, which, (unsigned)i);
			statsd_note_drops(receiver, which, header);
			if ((header->msg_flags & MSG_TRUNC) != 0) {
				statsd_table_oversize(receiver->table);
				continue;
			}
			statsd_table_datagram(receiver->table, &sender,
			    receiver->vectors[i].iov_base,
			    receiver->messages[i].msg_len);
		}
		pthread_mutex_unlock(receiver->lock);
		if ((unsigned)count < STATSD_BATCH)
			return false;
	}
	return true;
}

static void *
statsd_receiver_main(void *opaque)
{
	struct statsd_receiver *receiver = opaque;

	for (;;) {
		struct pollfd polls[STATSD_SOCKETS + 1];
		int which[STATSD_SOCKETS + 1];
		nfds_t count = 0;
		bool more = false;

		for (int s = 0; s < STATSD_SOCKETS; s++) {
			if (receiver->sockets[s] < 0)
				continue;
			polls[count] = (struct pollfd){
			    .fd = receiver->sockets[s], .events = POLLIN};
			which[count++] = s;
		}
		polls[count] =
		    (struct pollfd){.fd = receiver->stop, .events = POLLIN};
		which[count++] = -1;
		if (poll(polls, count, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		for (nfds_t i = 0; i < count; i++) {
			if (polls[i].revents == 0)
				continue;
			if (which[i] < 0)
				return NULL;
			more |= statsd_read_socket(receiver, which[i]);
		}
		/* A socket with more left is read again after one poll,
		 * which returns at once. */
		(void)more;
	}
}

int
statsd_receiver_start(struct statsd_receiver *receiver,
    struct statsd_table *table, pthread_mutex_t *lock)
{
	int error;

	receiver->table = table;
	receiver->lock = lock;
	error = pthread_create(
	    &receiver->thread, NULL, statsd_receiver_main, receiver);
	if (error != 0) {
		errno = error;
		return -1;
	}
	receiver->running = true;
	return 0;
}

void
statsd_receiver_close(struct statsd_receiver *receiver)
{
	if (receiver == NULL)
		return;
	if (receiver->running) {
		uint64_t one = 1;
		if (write(receiver->stop, &one, sizeof one) != sizeof one)
			pthread_cancel(receiver->thread);
		pthread_join(receiver->thread, NULL);
	}
	for (int s = 0; s < STATSD_SOCKETS; s++)
		if (receiver->sockets[s] >= 0)
			close(receiver->sockets[s]);
	if (receiver->stop >= 0)
		close(receiver->stop);
	if (receiver->unix_path != NULL) {
		struct stat status;
		if (lstat(receiver->unix_path, &status) == 0 &&
		    status.st_dev == receiver->unix_device &&
		    status.st_ino == receiver->unix_inode)
			unlink(receiver->unix_path);
	}
	free(receiver->unix_path);
	free(receiver->buffers);
	free(receiver);
}

uint64_t
statsd_receiver_drops(struct statsd_receiver *receiver)
{
	/* SO_RXQ_OVFL reports drops only with a datagram read after them:
	 * those after the last one would wait for the next. SO_MEMINFO (Linux
	 * 4.12 and later) reads the count now. */
	for (int s = 0; s < STATSD_SOCKETS; s++) {
		uint32_t memory[SK_MEMINFO_VARS];
		socklen_t length = sizeof memory;

		if (receiver->sockets[s] >= 0 &&
		    getsockopt(receiver->sockets[s], SOL_SOCKET, SO_MEMINFO,
		        memory, &length) == 0 &&
		    length > SK_MEMINFO_DROPS * sizeof(uint32_t))
			statsd_drops_reading(
			    receiver, s, memory[SK_MEMINFO_DROPS]);
	}
	return receiver->drops;
}

size_t
statsd_receiver_buffer(const struct statsd_receiver *receiver)
{
	return receiver->buffer_bytes;
}
