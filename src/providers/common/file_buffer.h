/*
 * file_buffer: read a whole file, such as one of /proc's tables, in one
 * pass into a buffer that keeps its memory from one refresh to the next.
 *
 * Part of the helpers every built-in provider compiles in (see
 * src/providers/common/); knows nothing of dcistat's provider ABI.
 * Everything here carries the provider_ prefix; the plug-ins export none of
 * it.
 */
#ifndef PROVIDER_FILE_BUFFER_H
#define PROVIDER_FILE_BUFFER_H

#include <stddef.h>

/* Internal to each plug-in: even without the build's export list, only
 * dci_provider_entry leaves the shared object. */
#pragma GCC visibility push(hidden)

/* A file's content, as last read. Start zeroed; free with
 * provider_file_buffer_free. */
struct provider_file_buffer {
	char *bytes; /* length bytes, not NUL-terminated */
	size_t length;
	size_t capacity; /* of bytes */
};

/*
 * Reads the file at path from its start to its end into buffer, replacing
 * what it held, and growing it as need be.
 *
 * Returns 0, or -1 with errno telling why, fit for strerror: open's or
 * read's error (ENOENT, EACCES, ...), EFBIG when the file holds more than
 * limit bytes (limit < SIZE_MAX), ENOMEM. After a failure buffer->length
 * is 0; the buffer's memory is kept, for the next read or for
 * provider_file_buffer_free.
 */
int provider_file_read(
    const char *path, struct provider_file_buffer *buffer, size_t limit);

/*
 * Reads the start of a small file, such as a sysfs attribute, in one read
 * into text (size bytes, size > 0), NUL-terminated. Returns the number of
 * bytes read (at most size - 1; 0 for an empty file), or -1 with errno
 * when the file cannot be opened or read.
 */
long provider_file_read_small(const char *path, char *text, size_t size);

/* Releases the buffer's memory and zeroes it. */
void provider_file_buffer_free(struct provider_file_buffer *buffer);

#pragma GCC visibility pop

#endif
