/*
 * libdci's parts (src/libdci): the DCIReturn builder (return_builder.c),
 * the decoder of the DCI Server's answers (answer_decode.c), the
 * connection and its events (connection.c) and the routines of <dci.h>
 * (routines.c). Nothing here is exported (Symbols.list).
 *
 * Trust: everything read from the server is checked before use: every
 * count and length against the bytes that hold it and against the
 * protocol's bounds, every offset in a record against the record.
 */
#ifndef DCISTAT_LIBDCI_INTERNAL_H
#define DCISTAT_LIBDCI_INTERNAL_H

#include <dci.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/dci_protocol.h"

/* --- the DCIReturn being built ------------------------------------------ */

struct libdci_entry {
	DCIStatus status;
	size_t metric_offset; /* in metrics */
	size_t data_offset;   /* in data */
	size_t data_size;     /* 0: no data */
};

/* Entries, the ids they are about and their data, kept apart until
 * libdci_builder_finish lays them out as a DCIReturn. */
struct libdci_builder {
	struct libdci_entry *entries;
	size_t count, capacity;
	unsigned char *metrics;
	size_t metrics_length, metrics_capacity;
	unsigned char *data;
	size_t data_length, data_capacity;
	DCIStatus summary;
	bool summary_set;
	uint64_t start, end; /* nanoseconds since the epoch; 0: unknown */
	bool failed;         /* out of memory, or beyond a DCIReturn's size */
};

void libdci_builder_init(struct libdci_builder *builder);
void libdci_builder_free(struct libdci_builder *builder);
/* Appends `length` bytes (a multiple of 4) to the ids or the data; returns
 * their offset there, or SIZE_MAX (and failed). */
size_t libdci_builder_metric(
    struct libdci_builder *builder, const void *bytes, size_t length);
size_t libdci_builder_data(
    struct libdci_builder *builder, const void *bytes, size_t length);
/* Room for `length` zeroed data bytes; NULL (and failed) when none. The
 * pointer lasts until the next append. */
unsigned char *libdci_builder_data_room(
    struct libdci_builder *builder, size_t length, size_t *offset);
/* An entry; data_size 0 means none. */
void libdci_builder_entry(struct libdci_builder *builder, DCIStatus status,
    size_t metric_offset, size_t data_offset, size_t data_size);
/* Folds an answer's times and summary into the whole call's. */
void libdci_builder_times(
    struct libdci_builder *builder, uint64_t start, uint64_t end);
/* The summary: DCI_SUCCESS when every entry succeeded; otherwise the
 * first status that is not (DCI_INVALIDDATAPRESENT only when nothing
 * worse); DCI_NOTPRESENT when there is no entry. */
DCIStatus libdci_builder_summary(const struct libdci_builder *builder);

/* Lays the built return out in the caller's buffers, by the modes of
 * dciGetData(3): `data_buffer` NULL puts data and ids together in
 * *return_buffer; a *pointer that is NULL is allocated (dciFree), else
 * at most its size is written. Returns the summary, or the failure
 * (DCI_ALLOCATIONFAILURE, DCI_BUFFERTOOSMALL, DCI_INVALIDARG). */
DCIStatus libdci_builder_finish(struct libdci_builder *builder,
    DCIReturn **return_buffer, UMAUint4 return_buffer_size, void **data_buffer,
    UMAUint4 *data_buffer_size);
/* The same, returning DCI_SUCCESS once laid out whatever the summary. */
DCIStatus libdci_builder_layout(struct libdci_builder *builder,
    DCIReturn **return_buffer, UMAUint4 return_buffer_size, void **data_buffer,
    UMAUint4 *data_buffer_size);

/* The encodings of ids a DCIReturn carries. Return the offset in the
 * builder's ids. */
size_t libdci_put_class_id(
    struct libdci_builder *builder, const uint32_t *levels, size_t level_count);
size_t libdci_put_metric_id(struct libdci_builder *builder,
    const uint32_t *levels, size_t level_count, uint32_t input_mask,
    uint32_t output_mask, const uint32_t *words, size_t word_count,
    DCIDatumId datum_id);

/* --- what the server says about a class --------------------------------- */

struct libdci_datum {
	uint32_t id, type, format, presentation, size, volatility, unit,
	    semantics, offset;
	char *label, *description;
	/* In UMA terms; uma_type 0: not offered (ST_UNUSED, unknown). */
	uint32_t uma_type, uma_units, uma_offset, uma_size;
};

struct libdci_class {
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
	size_t id_length;
	char *label, *description;
	uint32_t level_count;
	uint32_t level_itype[DCI_INSTANCE_ID_MAX_WORDS];
	uint32_t level_size[DCI_INSTANCE_ID_MAX_WORDS];
	size_t instance_words;
	uint32_t record_size, present_size, datum_count;
	struct libdci_datum *datums;
	/* The class data block: its fixed part, and where the offset of the
	 * DCIInvalidData goes (UINT32_MAX: the class has a datum 255 of its
	 * own, so none). */
	uint32_t block_size, invalid_offset;
};

void libdci_class_free(struct libdci_class *class);

/* The bytes a UMA_TEXTSTRING of a DCI4 string datum of `size` bytes takes
 * in a class data block: its size word, then size + 1 bytes padded to 4.
 * The provider side (provider_classes.c) sizes strings by it, so that
 * the layout a consumer works out is the one the provider registered. */
uint64_t libdci_text_slot(uint32_t size);

/* Reads one GET_CLASS_ATTRIBUTES entry at the reader into `class` and
 * works out its UMA layout; false when anything is out of bounds (the
 * class is then freed). */
bool libdci_class_read(
    struct dci_protocol_reader *reader, struct libdci_class *class);

/* Writes the DCIClassAttr of `class` as data of the builder; returns its
 * size (0 on failure) and its offset in *offset. */
size_t libdci_class_attr_put(struct libdci_builder *builder,
    const struct libdci_class *class, size_t *offset);

/* Converts one instance's record and presence bitmap (as GET_DATA sends
 * them for every datum) into the class data block of <dci.h> appended to
 * the builder's data. Returns DCI_SUCCESS, DCI_INVALIDDATAPRESENT when a
 * datum has no value, DCI_SYSERROR when the sizes are not the class's
 * (the caller fetches the attributes again), DCI_ALLOCATIONFAILURE. */
DCIStatus libdci_block_put(struct libdci_builder *builder,
    const struct libdci_class *class, const unsigned char *record,
    size_t record_length, const unsigned char *present, size_t present_length,
    size_t *offset, size_t *size);

/* Converts one datum's slot into its UMA form; the same statuses. */
DCIStatus libdci_datum_put(struct libdci_builder *builder,
    const struct libdci_datum *datum, const unsigned char *slot,
    size_t slot_length, size_t *offset, size_t *size);

/* The datum of `class` with id `id`, or NULL. */
const struct libdci_datum *libdci_class_datum(
    const struct libdci_class *class, uint32_t id);

/* A DCILabel of `label` and `description` (either may be NULL) as data;
 * returns its size, 0 on failure. */
size_t libdci_label_size(const char *label, const char *description);
void libdci_label_write(
    unsigned char *at, const char *label, const char *description);

/* An answer's head: summary status, count, times. False when short. */
struct libdci_answer_head {
	uint32_t status, count;
	uint64_t start, end;
};
bool libdci_answer_head_read(
    struct dci_protocol_reader *reader, struct libdci_answer_head *head);

/* The server's status as <dci.h>'s. */
DCIStatus libdci_status(uint32_t protocol_status);

/* Reads a class id (level count, levels) or an instance id (word count,
 * words), bounded by the protocol's maxima; false when out of bounds. */
bool libdci_read_class_id(
    struct dci_protocol_reader *reader, uint32_t *levels, size_t *count);
bool libdci_read_instance_id(
    struct dci_protocol_reader *reader, uint32_t *words, size_t *count);

/* --- the connection ------------------------------------------------------ */

/* The events a connection keeps unread; beyond, they are counted as
 * lost. */
#define LIBDCI_EVENTS_MAX 1024u
/* How long a call waits for its answer. */
#define LIBDCI_ANSWER_TIMEOUT_MILLISECONDS 30000
/* Where dcistatd's DCI Server listens unless DCISTAT_DCI_SOCKET says
 * otherwise. */
#define LIBDCI_DEFAULT_SOCKET "/run/dcistat/dci.sock"

struct libdci_subscription {
	uint32_t serial;
	DCIDatumId datum_id; /* as the consumer gave it to dciOpen */
};

struct DCIConnection {
	int fd;
	uint32_t serial;
	struct libdci_class *classes; /* attributes fetched so far */
	size_t class_count;
	struct libdci_subscription subscriptions[16];
	size_t subscription_count;
	struct dci_protocol_event *events; /* LIBDCI_EVENTS_MAX */
	size_t event_count;
	uint64_t lost;
};

/* Sends `request` as `type` and reads until its answer, keeping the
 * events that come before it. On DCI_SUCCESS *payload (malloc'd, the
 * caller frees it) and *length hold the answer's payload. */
DCIStatus libdci_call(DCIHandle handle, uint16_t type,
    const struct dci_protocol_request *request, unsigned char **payload,
    size_t *length);

/* Reads a consumer's DCIMetricId (or DCIClassId, for the class routines)
 * into a request pattern; DCI_INVALIDARG when malformed. */
DCIStatus libdci_metric_pattern(
    const DCIMetricId *metric, struct dci_protocol_request *request);
DCIStatus libdci_class_pattern(
    const DCIClassId *class_id, struct dci_protocol_request *request);

/* Reads an EVENTS message's payload into the handle's queue; false when
 * it is malformed (what was read before stays). */
bool libdci_events_read(
    DCIHandle handle, const unsigned char *payload, size_t length);

/* The attributes of the class `levels` (exact), from the cache or the
 * server (`refresh`: from the server even when cached); NULL when the
 * class is absent or unreadable. */
const struct libdci_class *libdci_class_get(
    DCIHandle handle, const uint32_t *levels, size_t level_count, bool refresh);

#endif
