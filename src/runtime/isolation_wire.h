/*
 * The messages between dcistatd and the process an isolated provider runs
 * in (runtime/isolation.h), over a stream socket pair.
 *
 * A message is a frame: a 32-bit length (of what follows, at most
 * DCI_WIRE_FRAME_MAX), a type byte, then fields in the host's byte order
 * (both ends are the same build on the same machine): 32- and 64-bit
 * integers, and strings as a 32-bit length counting a terminating NUL,
 * then the bytes and the NUL (length 0: a NULL string).
 *
 * The child is untrusted (it runs provider code that may be broken): the
 * reader checks every length against the frame and every string for its
 * one NUL at the end, and a frame that breaks a rule ends the child.
 *
 * dcistatd -> child:
 *   SETUP     name, path, config file, module line, module column,
 *             refresh ms, option count, then per option: key, line,
 *             column, is_sequence (u32), value count, values
 *   REFRESH   (nothing)
 * child -> dcistatd (any number, then DONE):
 *   SUPPLIER  handle, module, title, description, type, version
 *   CLASS     handle, supplier handle, id length, id words, label,
 *             description, level count, (itype, size) per level, datum
 *             count, per datum: id, label, type, format, presentation,
 *             size, volatility, unit, semantics, description
 *   WITHDRAW  supplier handle
 *   LIMIT     refresh limit ms
 *   BATCH     class handle, then operations to the end of the frame: an
 *             operation byte and its fields (enum dci_wire_operation); the
 *             batch was committed in the child
 *   LOG       level, text
 *   DONE      result (u32: 0 or 1 for -1), after SETUP (init) or REFRESH
 *   SUPPLIER_STATE  supplier handle, failure ("" = works)
 */
#ifndef DCISTAT_RUNTIME_ISOLATION_WIRE_H
#define DCISTAT_RUNTIME_ISOLATION_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DCI_WIRE_FRAME_MAX (64u * 1024u * 1024u)

enum dci_wire_type {
	DCI_WIRE_SETUP = 1,
	DCI_WIRE_REFRESH,
	DCI_WIRE_SUPPLIER,
	DCI_WIRE_CLASS,
	DCI_WIRE_WITHDRAW,
	DCI_WIRE_LIMIT,
	DCI_WIRE_BATCH,
	DCI_WIRE_LOG,
	DCI_WIRE_DONE,
	DCI_WIRE_SUPPLIER_STATE,
};

enum dci_wire_operation {
	DCI_WIRE_INSTANCE = 1,  /* row, words, id words, label */
	DCI_WIRE_UNSIGNED,      /* row, datum, u64 */
	DCI_WIRE_SIGNED,        /* row, datum, u64 (two's complement) */
	DCI_WIRE_BYTES,         /* row, datum, length, bytes */
	DCI_WIRE_INVALID,       /* row, datum */
	DCI_WIRE_PARENT,        /* row, words, id words */
	DCI_WIRE_DISCONTINUITY, /* row */
};

/* A frame being written: grows as needed; `failed` once out of memory or
 * past DCI_WIRE_FRAME_MAX, after which appends do nothing. */
struct dci_wire_writer {
	unsigned char *data;
	size_t length, capacity;
	size_t frame_start; /* where the open frame's length goes */
	bool failed;
};

void dci_wire_frame_begin(
    struct dci_wire_writer *writer, enum dci_wire_type type);
/* Closes the open frame; false when the writer failed. */
bool dci_wire_frame_end(struct dci_wire_writer *writer);
void dci_wire_u8(struct dci_wire_writer *writer, uint8_t value);
void dci_wire_u32(struct dci_wire_writer *writer, uint32_t value);
void dci_wire_u64(struct dci_wire_writer *writer, uint64_t value);
void dci_wire_string(struct dci_wire_writer *writer, const char *text);
void dci_wire_bytes(
    struct dci_wire_writer *writer, const void *bytes, size_t length);
/* Writes the whole buffer to `socket` and empties it; -1 on an error. */
int dci_wire_send(struct dci_wire_writer *writer, int socket);
void dci_wire_writer_free(struct dci_wire_writer *writer);

/* A received frame's payload, read field by field. A read past its end or
 * a malformed string sets `failed` and returns 0 / NULL. */
struct dci_wire_reader {
	const unsigned char *data;
	size_t length, position;
	bool failed;
};

uint8_t dci_wire_read_u8(struct dci_wire_reader *reader);
uint32_t dci_wire_read_u32(struct dci_wire_reader *reader);
uint64_t dci_wire_read_u64(struct dci_wire_reader *reader);
/* Points into the frame; NULL for a NULL string (and on failure). */
const char *dci_wire_read_string(struct dci_wire_reader *reader);
const void *dci_wire_read_bytes(struct dci_wire_reader *reader, size_t length);
bool dci_wire_at_end(const struct dci_wire_reader *reader);

/* Reads one frame from `socket` into `*buffer` (grown as needed), waiting
 * at most until `deadline` (dci_clock_milliseconds; INT64_MAX: no limit).
 * Returns 1 with the type and payload, 0 at the end of the stream, -1 on an
 * error or a frame longer than DCI_WIRE_FRAME_MAX (`why` says which), -2
 * when the deadline passed, -3 when `watched` (a descriptor, e.g. the
 * sender's pidfd, or -1) became readable with nothing left to read: the
 * sender ended though others still hold the socket open. */
int dci_wire_receive(int socket, int watched, int64_t deadline,
    unsigned char **buffer, size_t *buffer_size, enum dci_wire_type *type,
    struct dci_wire_reader *payload, char *why, size_t why_size);

#endif
