/*
 * The DCI Server's wire format (dcistatd's local socket, server/dci_server.h):
 * framing, the request every consumer sends, and the reading and writing of
 * the little-endian words both sides exchange. A room of its own because
 * both sides compile it in: the server (src/server), libdci (src/libdci),
 * dcistat's daemon source (src/cli) and the tests' consumers; nothing here
 * touches a socket, the registry or Net-SNMP, and it includes nothing of
 * dcistat's but the provider ABI's types.
 *
 * A message is a header of DCI_PROTOCOL_HEADER_SIZE bytes, then `length`
 * payload bytes. Header words, little-endian:
 *   u32 magic    DCI_PROTOCOL_MAGIC
 *   u16 version  DCI_PROTOCOL_VERSION; a server answers another version with
 *                DCI_PROTOCOL_ERROR, status DCI_PROTOCOL_NOIMPLEMENTATION, and
 *                closes the connection
 *   u16 type     enum dci_protocol_type
 *   u32 serial   the consumer's; the answer repeats it
 *   u32 length   payload bytes: at most DCI_PROTOCOL_REQUEST_MAX in a request,
 *                DCI_PROTOCOL_RESPONSE_MAX in an answer
 *
 * A request's payload (every request type has this one layout; a type
 * ignores what it does not use) is, in u32 words:
 *   class pattern     levels (1..DCI_CLASS_ID_MAX_LEVELS), then the levels;
 *                     DCI_PROTOCOL_ALL in a level matches any value there, and
 *                     as the last level any one or more levels (so [ALL]
 *                     is every class, [1, ALL] every class below 1)
 *   instance pattern  input mask (bit i set: level i of the class's
 *                     instance id is given; 0 is every instance, UMA's
 *                     DCI_ALL_INSTANCES), word count (at most
 *                     DCI_INSTANCE_ID_MAX_WORDS), the words of the given
 *                     levels in order
 *   datum id          1..2^32-2, or DCI_PROTOCOL_ALL for every datum
 * and nothing after it.
 *
 * An EVENTS message's payload: u32 events lost (not queued since the
 * last EVENTS message, the consumer's queue being full), u32 count, then
 * per event: u32 subscription (the serial of the SUBSCRIBE request it
 * matched), u32 event number (DCI_PROTOCOL_EVENT_*), u64 time
 * (nanoseconds since the epoch), class id, instance id, u32 datum id
 * (the datum whose value changed; 0 for the other events).
 *
 * An answer's payload: u32 summary status, u32 count, u64 start and u64
 * end time (nanoseconds since the epoch, when the server began and ended
 * the request), then `count` entries whose layout each request type gives
 * at its answer kind in server/dci_answer.c (a table: a new request type is
 * an entry there) and the reader of each in libdci's answer_decode.c.
 * Strings are u32 length then the bytes, padded with zeros
 * to a multiple of 4; byte blocks likewise.
 */
#ifndef DCISTAT_PROTOCOL_DCI_PROTOCOL_H
#define DCISTAT_PROTOCOL_DCI_PROTOCOL_H

#include <dcistat/provider.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DCI_PROTOCOL_MAGIC 0x31494344u /* "DCI1" as bytes on the wire */
#define DCI_PROTOCOL_VERSION 1u
#define DCI_PROTOCOL_HEADER_SIZE 16u
#define DCI_PROTOCOL_REQUEST_MAX 4096u
#define DCI_PROTOCOL_RESPONSE_MAX (4u * 1024u * 1024u)
/* UMA's DCI_ALL: 2^32 - 1 in a class level or as a datum id. */
#define DCI_PROTOCOL_ALL 0xffffffffu

enum dci_protocol_type {
	DCI_PROTOCOL_LIST_CLASSES = 1,
	DCI_PROTOCOL_LIST_INSTANCES = 2,
	DCI_PROTOCOL_GET_CLASS_ATTRIBUTES = 3,
	DCI_PROTOCOL_GET_DATA = 4,
	/* Writes. No provider declares one (DCIDataAttr has no
	 * DCI_SETTABLE or DCI_RESERVABLE, no class a configure operation):
	 * every instance the pattern matches is answered
	 * DCI_PROTOCOL_METHODOPUNAVAILABLE. The values a consumer would
	 * write are therefore not sent. */
	DCI_PROTOCOL_SET_DATA = 5,
	DCI_PROTOCOL_RESERVE_DATA = 6,
	DCI_PROTOCOL_RELEASE_DATA = 7,
	DCI_PROTOCOL_CONFIGURE = 8,
	/* Asks for the events of the classes and instances the pattern
	 * names (the datum id: DCI_PROTOCOL_EVENT_* in its low 8 bits, any
	 * flags above); the server sends them as DCI_PROTOCOL_EVENTS
	 * messages from then on (server/dci_server.h). */
	DCI_PROTOCOL_SUBSCRIBE = 9,
	/* dcistat's own (not UMA's): every supplier with its DCI4 detail
	 * (module, title, status, failure, reset), what a consumer needs to
	 * rebuild the registry dcistatd serves. The pattern is ignored. A
	 * server older than this type answers it NOTIMPLEMENTED, so the
	 * protocol version stays 1 and old consumers are unaffected. */
	DCI_PROTOCOL_LIST_SUPPLIERS = 10,
	/* dcistat's own, likewise: LIST_INSTANCES's entries, each with its
	 * parent's instance id (evcnt's ev_parent; no words: none). */
	DCI_PROTOCOL_LIST_INSTANCE_PARENTS = 11,
	/* dcistat's own, likewise: each instance with its label, parent,
	 * presence bitmap and whole record, all from one snapshot, so that a
	 * reader never pairs instances of one refresh with data of another
	 * (what LIST_INSTANCE_PARENTS then GET_DATA can give). The datum id
	 * is ignored. */
	DCI_PROTOCOL_GET_INSTANCE_DATA = 12,
	/* Server to consumer, unasked, serial 0: events. */
	DCI_PROTOCOL_EVENTS = 0x4000,
	/* An answer is its request's type with this bit set. */
	DCI_PROTOCOL_ANSWER = 0x8000,
	/* The server could not read a message: status says why, and the
	 * server closes the connection after it. */
	DCI_PROTOCOL_ERROR = 0xffff,
};

/* The statuses, named as the UMA DCI specification names them (which
 * gives no numbers: these are ours). */
enum dci_protocol_status {
	DCI_PROTOCOL_SUCCESS = 0,
	DCI_PROTOCOL_NOTPRESENT = 1, /* no such class, instance or datum, or
	                            one the consumer may not read */
	DCI_PROTOCOL_INVALIDARG = 2,
	DCI_PROTOCOL_INVALIDDATA = 3,       /* the datum has no valid value */
	DCI_PROTOCOL_ALLOCATIONFAILURE = 4, /* the answer would exceed
	                                   DCI_PROTOCOL_RESPONSE_MAX */
	DCI_PROTOCOL_NOTIMPLEMENTED = 5,    /* an unknown request type */
	DCI_PROTOCOL_NOIMPLEMENTATION = 6,  /* another protocol version */
	DCI_PROTOCOL_SYSERROR = 7,
	DCI_PROTOCOL_METHODOPUNAVAILABLE = 8, /* a write no provider offers */
};

/* The UMA event datum numbers (the low 8 bits of an event datum id). */
#define DCI_PROTOCOL_EVENT_INSTANCE_ADDED 0xf7u
#define DCI_PROTOCOL_EVENT_INSTANCE_REMOVED 0xf6u
#define DCI_PROTOCOL_EVENT_DATA_CHANGED 0xf5u

struct dci_protocol_header {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t serial;
	uint32_t length;
};

struct dci_protocol_request {
	uint32_t class_id[DCI_CLASS_ID_MAX_LEVELS];
	size_t class_levels;
	uint32_t input_mask;
	uint32_t instance[DCI_INSTANCE_ID_MAX_WORDS];
	size_t instance_words;
	uint32_t datum_id;
};

/* Reads a header from DCI_PROTOCOL_HEADER_SIZE bytes. Returns
 * DCI_PROTOCOL_SUCCESS, DCI_PROTOCOL_INVALIDARG (bad magic, or a length beyond
 * `length_max`) or DCI_PROTOCOL_NOIMPLEMENTATION (another version); the header
 * is filled in every case. */
enum dci_protocol_status dci_protocol_header_read(const unsigned char *bytes,
    uint32_t length_max, struct dci_protocol_header *header);
void dci_protocol_header_write(
    unsigned char *bytes, const struct dci_protocol_header *header);

/* Reads a request's payload; DCI_PROTOCOL_INVALIDARG when it is not exactly
 * the layout above with every count in its bounds. */
enum dci_protocol_status dci_protocol_request_read(const unsigned char *payload,
    size_t length, struct dci_protocol_request *request);
/* Writes one; returns the bytes written, or 0 when `size` is too small
 * or the request's counts are out of bounds. */
size_t dci_protocol_request_write(const struct dci_protocol_request *request,
    unsigned char *payload, size_t size);

/* A message being written: grows up to `limit` bytes; beyond, `overflow`
 * is set and nothing more is written. */
struct dci_protocol_writer {
	unsigned char *data;
	size_t length;
	size_t capacity;
	size_t limit;
	bool overflow;
};

void dci_protocol_writer_init(struct dci_protocol_writer *writer, size_t limit);
void dci_protocol_writer_free(struct dci_protocol_writer *writer);
void dci_protocol_put_u32(struct dci_protocol_writer *writer, uint32_t value);
void dci_protocol_put_u64(struct dci_protocol_writer *writer, uint64_t value);
/* u32 length, the bytes, zeros to a multiple of 4. */
void dci_protocol_put_block(
    struct dci_protocol_writer *writer, const void *bytes, size_t length);
/* The bytes as they are: what another writer wrote. */
void dci_protocol_put_bytes(
    struct dci_protocol_writer *writer, const void *bytes, size_t length);
/* Overwrites the u32 at `offset` (already written). */
void dci_protocol_patch_u32(
    struct dci_protocol_writer *writer, size_t offset, uint32_t value);

/* Reading what the other side sent: every read is bounded by `length`;
 * the first read past it sets `failed`, and every later one yields 0. */
struct dci_protocol_reader {
	const unsigned char *data;
	size_t length;
	size_t offset;
	bool failed;
};

uint32_t dci_protocol_get_u32(struct dci_protocol_reader *reader);
uint64_t dci_protocol_get_u64(struct dci_protocol_reader *reader);
/* A block as dci_protocol_put_block writes it: points into the data, sets
 * *length; NULL (and failed) when it does not fit or is longer than
 * `length_max`. */
const unsigned char *dci_protocol_get_block(
    struct dci_protocol_reader *reader, size_t length_max, size_t *length);

/* A u32 count (`min` to `max`) then that many u32 words, into `words`
 * and *count (as a class id or an instance id is written); false (and
 * failed) when the count is out of bounds or the words cut short. */
bool dci_protocol_get_words(struct dci_protocol_reader *reader, uint32_t *words,
    size_t min, size_t max, size_t *count);

/* One event of an EVENTS message (see the layout above). */
struct dci_protocol_event {
	uint32_t serial; /* of the subscription it matched */
	uint32_t number; /* DCI_PROTOCOL_EVENT_* */
	uint32_t datum_id;
	uint64_t time;
	uint32_t class_id[DCI_CLASS_ID_MAX_LEVELS];
	size_t class_levels;
	uint32_t instance[DCI_INSTANCE_ID_MAX_WORDS];
	size_t instance_words;
};

void dci_protocol_put_event(
    struct dci_protocol_writer *writer, const struct dci_protocol_event *event);
/* false when the event is cut short or its ids are longer than
 * DCI_CLASS_ID_MAX_LEVELS (1 at least) or DCI_INSTANCE_ID_MAX_WORDS. */
bool dci_protocol_get_event(
    struct dci_protocol_reader *reader, struct dci_protocol_event *event);

/* "SUCCESS", "NOTPRESENT", ...; "UNKNOWN" otherwise. */
const char *dci_protocol_status_name(uint32_t status);

#endif
