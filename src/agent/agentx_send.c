#define _GNU_SOURCE
#include "agent/agentx_send.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>

#include "base/clock.h"

/* Waits for room until `deadline`; false with errno set when there is
 * none by then. */
static bool
wait_writable(int socket, int64_t deadline)
{
	for (;;) {
		struct pollfd writable = {socket, POLLOUT, 0};
		int64_t left = deadline - dci_clock_milliseconds();
		int ready;

		if (left <= 0) {
			errno = ETIMEDOUT;
			return false;
		}
		ready = poll(
		    &writable, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (ready > 0)
			return true;
		if (ready < 0 && errno != EINTR)
			return false;
	}
}

bool
agent_agentx_send(int socket, const unsigned char *bytes, size_t length,
    int wait_milliseconds, size_t *written_out)
{
	size_t written = 0;
	int64_t deadline = -1;

	while (written < length) {
		ssize_t sent = send(socket, bytes + written, length - written,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent > 0) {
			written += (size_t)sent;
			continue;
		}
		if (sent == 0)
			errno = EIO;
		else if (errno == EINTR)
			continue;
		if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (deadline < 0)
				deadline = dci_clock_milliseconds() +
				           wait_milliseconds;
			if (wait_writable(socket, deadline))
				continue;
		}
		/* Cut short, or not taken at all within the wait: either way
		 * the connection goes (see agentx_send.h). */
		{
			int saved = errno;
			shutdown(socket, SHUT_RDWR);
			errno = saved;
		}
		*written_out = written;
		return false;
	}
	*written_out = written;
	return true;
}
