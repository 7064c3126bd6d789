/*
 * file_buffer: the buffer starts at a size that holds a typical /proc table
 * and doubles while the file does not fit, up to one byte past the limit,
 * so that a file over the limit is seen as such without reading it all.
 */
#define _GNU_SOURCE

#include "providers/common/file_buffer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first size of a buffer, in bytes: room for /proc/interrupts on a
 * few dozen CPUs, or /proc/diskstats with about a hundred devices. */
#define PROVIDER_FILE_INITIAL_SIZE 16384u

/* Makes room for more bytes after buffer->length, never more than ceiling
 * bytes in all. Returns 0, or -1 with errno ENOMEM. */
static int
provider_file_more_room(struct provider_file_buffer *buffer, size_t ceiling)
{
	size_t size = PROVIDER_FILE_INITIAL_SIZE;
	char *larger;

	if (buffer->capacity > 0)
		size = buffer->capacity > SIZE_MAX / 2 ? SIZE_MAX
		                                       : 2 * buffer->capacity;
	if (size > ceiling)
		size = ceiling;
	larger = realloc(buffer->bytes, size);
	if (larger == NULL) {
		errno = ENOMEM;
		return -1;
	}
	buffer->bytes = larger;
	buffer->capacity = size;
	return 0;
}

int
provider_file_read(
    const char *path, struct provider_file_buffer *buffer, size_t limit)
{
	/* One byte past the limit tells a file that is too large. */
	size_t ceiling = limit < SIZE_MAX ? limit + 1 : SIZE_MAX;
	int descriptor;
	int saved;

	buffer->length = 0;
	descriptor = open(path, O_RDONLY | O_CLOEXEC);
	if (descriptor < 0)
		return -1;
	for (;;) {
		size_t room;
		ssize_t got;

		if (buffer->length == buffer->capacity &&
		    provider_file_more_room(buffer, ceiling) != 0)
			goto failed;
		room = buffer->capacity - buffer->length;
		if (room > SSIZE_MAX)
			room = SSIZE_MAX;
		got = read(descriptor, buffer->bytes + buffer->length, room);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			goto failed;
		}
		if (got == 0)
			break;
		buffer->length += (size_t)got;
		if (buffer->length > limit) {
			errno = EFBIG;
			goto failed;
		}
	}
	close(descriptor);
	return 0;

failed:
	saved = errno;
	close(descriptor);
	buffer->length = 0;
	errno = saved;
	return -1;
}

void
provider_file_buffer_free(struct provider_file_buffer *buffer)
{
	free(buffer->bytes);
	memset(buffer, 0, sizeof *buffer);
}

long
provider_file_read_small(const char *path, char *text, size_t size)
{
	ssize_t length;
	int descriptor, saved;

	text[0] = '\0';
	descriptor = open(path, O_RDONLY | O_CLOEXEC);
	if (descriptor < 0)
		return -1;
	do
		length = read(descriptor, text, size - 1);
	while (length < 0 && errno == EINTR);
	saved = errno;
	close(descriptor);
	if (length < 0) {
		errno = saved;
		return -1;
	}
	text[length] = '\0';
	return (long)length;
}
