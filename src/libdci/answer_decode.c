/*
 * What libdci reads from the DCI Server's answers (libdci_internal.h):
 * class attributes and their UMA layout, and the conversion of dcistat's
 * DCI4 records (model/value.h: integers in their format's byte order,
 * booleans 4 bytes little-endian, times 8 bytes little-endian, strings
 * NUL-padded) into the class data blocks of <dci.h>. Nothing the server
 * says is trusted: every count, size and offset is checked here.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "libdci/libdci_internal.h"

/* dcistat's DCI4 types and formats (<dcistat/provider.h>), by number: the
 * wire carries the numbers. */
#define ST_UNUSED 0u
#define ST_BOOLEAN 1u
#define ST_STRING 2u
#define ST_INTEGER8 3u
#define ST_INTEGER16 4u
#define ST_INTEGER32 5u
#define ST_INTEGER64 6u
#define ST_ADDRESS 7u
#define ST_TIME 8u
#define ST_DERIVED 9u

static size_t
round4(size_t length)
{
	return (length + 3u) & ~(size_t)3u;
}

DCIStatus
libdci_status(uint32_t protocol_status)
{
	switch (protocol_status) {
	case DCI_PROTOCOL_SUCCESS:
		return DCI_SUCCESS;
	case DCI_PROTOCOL_NOTPRESENT:
		return DCI_NOTPRESENT;
	case DCI_PROTOCOL_INVALIDARG:
		return DCI_INVALIDARG;
	case DCI_PROTOCOL_INVALIDDATA:
		return DCI_INVALIDDATA;
	case DCI_PROTOCOL_ALLOCATIONFAILURE:
		return DCI_ALLOCATIONFAILURE;
	case DCI_PROTOCOL_NOTIMPLEMENTED:
	case DCI_PROTOCOL_NOIMPLEMENTATION:
		return DCI_NOIMPLEMENTATION;
	case DCI_PROTOCOL_METHODOPUNAVAILABLE:
		return DCI_METHODOPUNAVAILABLE;
	default:
		return DCI_SYSERROR;
	}
}

bool
libdci_answer_head_read(
    struct dci_protocol_reader *reader, struct libdci_answer_head *head)
{
	head->status = dci_protocol_get_u32(reader);
	head->count = dci_protocol_get_u32(reader);
	head->start = dci_protocol_get_u64(reader);
	head->end = dci_protocol_get_u64(reader);
	return !reader->failed;
}

bool
libdci_read_class_id(
    struct dci_protocol_reader *reader, uint32_t *levels, size_t *count)
{
	return dci_protocol_get_words(
	    reader, levels, 1, DCI_CLASS_ID_MAX_LEVELS, count);
}

bool
libdci_read_instance_id(
    struct dci_protocol_reader *reader, uint32_t *words, size_t *count)
{
	return dci_protocol_get_words(
	    reader, words, 0, DCI_INSTANCE_ID_MAX_WORDS, count);
}

/* A block as a NUL-terminated copy; NULL when it does not fit. */
static char *
read_text(struct dci_protocol_reader *reader, size_t length_max, bool *ok)
{
	size_t length;
	const unsigned char *bytes =
	    dci_protocol_get_block(reader, length_max, &length);
	char *text;

	if (bytes == NULL) {
		*ok = false;
		return NULL;
	}
	text = malloc(length + 1);
	if (text == NULL) {
		*ok = false;
		return NULL;
	}
	memcpy(text, bytes, length);
	text[length] = '\0';
	return text;
}

void
libdci_class_free(struct libdci_class *class)
{
	if (class->datums != NULL)
		for (uint32_t i = 0; i < class->datum_count; i++) {
			free(class->datums[i].label);
			free(class->datums[i].description);
		}
	free(class->datums);
	free(class->label);
	free(class->description);
	memset(class, 0, sizeof(*class));
}

static uint32_t
uma_units_of(uint32_t unit)
{
	/* dcistat's enum dci_unit, in its order from 0. */
	static const uint32_t table[] = {UMA_NOUNITS, UMA_BYTES, UMA_KBYTES,
	    UMA_MBYTES, UMA_GBYTES, UMA_TBYTES, UMA_SECS, UMA_MILLISECS,
	    UMA_MICROSECS, UMA_NANOSECS, UMA_PICOSECS, UMA_TICKS, UMA_COUNT,
	    UMA_EVENT, UMA_PAGES, UMA_BLOCKS, UMA_CHARACTERS, UMA_PACKETS,
	    UMA_MESSAGES, UMA_TRANSACTIONS, UMA_READS, UMA_WRITES,
	    UMA_CONNECTIONS, UMA_RETRIES, UMA_PROCESSORS, UMA_DISKS,
	    UMA_DCISTAT_INTERRUPTS};

	if (unit < sizeof(table) / sizeof(table[0]))
		return table[unit];
	if (unit >= 0x10000u && unit <= 0x10004u)
		return UMA_DCISTAT_CENTISECS + (unit - 0x10000u);
	if (unit >= 0x20001u && unit <= 0x20007u)
		return UMA_DERIVED_SUM2 + (unit - 0x20001u);
	return UMA_NOUNITS;
}

static uint32_t
uma_itype_of(uint32_t itype)
{
	switch (itype) {
	case 1:
		return UMA_SINGLEINST;
	case 2:
		return UMA_PROCESSOR;
	case 3:
		return UMA_DISKID;
	case 4:
		return UMA_BUCKET_NO;
	case 5:
		return UMA_DEVICE;
	case 6:
		return UMA_CHANNEL;
	case 7:
		return UMA_CONTROLLERID;
	case 8:
		return UMA_IPADDR;
	case 0x10000:
		return UMA_DCISTAT_INTERFACE;
	case 0x10001:
		return UMA_DCISTAT_EVENTCOUNTER;
	default:
		return UMA_ENUMERATION;
	}
}

uint64_t
libdci_text_slot(uint32_t size)
{
	/* The size word, the slot and room for a NUL. */
	return 4 + (((uint64_t)size + 1 + 3) & ~(uint64_t)3);
}

/* The datum's UMA type and the bytes it takes in a class data block; 0
 * when it is not offered. */
static uint32_t
uma_type_of(const struct libdci_datum *datum, uint32_t *size)
{
	bool is_unsigned = (datum->format & 0x01u) != 0;

	switch (datum->type) {
	case ST_BOOLEAN:
		*size = 4;
		return datum->size == 4 ? UMA_BOOLEAN : 0;
	case ST_STRING:
		*size = (uint32_t)libdci_text_slot(datum->size);
		return UMA_TEXTSTRING;
	case ST_INTEGER8:
	case ST_INTEGER16:
	case ST_INTEGER32:
		*size = 4;
		if (datum->size != 1u << (datum->type - ST_INTEGER8))
			return 0;
		return is_unsigned ? UMA_UINT4 : UMA_INT4;
	case ST_INTEGER64:
		*size = 8;
		if (datum->size != 8)
			return 0;
		return is_unsigned ? UMA_UINT8 : UMA_INT8;
	case ST_ADDRESS:
		*size = (uint32_t)(4 + round4(datum->size));
		return UMA_OCTETSTRING;
	case ST_TIME:
		/* A time (STF_5BYTE, STF_CTIME) or an interval
		 * (STF_MONOTONIC, since boot) alike. */
		*size = 8;
		return datum->size == 8 ? UMA_TIMESPEC : 0;
	case ST_DERIVED:
		*size = 8;
		return datum->size == 8 ? UMA_DERIVED : 0;
	default:
		*size = 0;
		return 0;
	}
}

bool
libdci_class_read(
    struct dci_protocol_reader *reader, struct libdci_class *class)
{
	bool ok = true;
	uint32_t words = 0, block = 0, count;

	memset(class, 0, sizeof(*class));
	if (!libdci_read_class_id(reader, class->id, &class->id_length))
		return false;
	class->label = read_text(reader, DCI_LABEL_MAX, &ok);
	class->description = read_text(reader, DCI_STRING_MAX, &ok);
	(void)dci_protocol_get_u32(reader); /* supplier index */
	class->level_count = dci_protocol_get_u32(reader);
	if (!ok || class->level_count > DCI_INSTANCE_ID_MAX_WORDS)
		goto refused;
	for (uint32_t i = 0; i < class->level_count; i++) {
		class->level_itype[i] = dci_protocol_get_u32(reader);
		class->level_size[i] = dci_protocol_get_u32(reader);
		if (class->level_size[i] == 0 ||
		    class->level_size[i] % 4 != 0 ||
		    class->level_size[i] / 4 >
		        DCI_INSTANCE_ID_MAX_WORDS - words)
			goto refused;
		words += class->level_size[i] / 4;
	}
	class->instance_words = words;
	class->record_size = dci_protocol_get_u32(reader);
	class->present_size = dci_protocol_get_u32(reader);
	count = dci_protocol_get_u32(reader);
	/* Each datum takes at least 11 words of the answer. */
	if (reader->failed || count > (reader->length - reader->offset) / 44 ||
	    class->record_size > DCI_PROTOCOL_RESPONSE_MAX ||
	    class->present_size != (count + 7) / 8)
		goto refused;
	class->datums = calloc(count == 0 ? 1 : count, sizeof(*class->datums));
	if (class->datums == NULL)
		goto refused;
	class->datum_count = count;
	class->invalid_offset = 0;
	for (uint32_t i = 0; i < count; i++) {
		struct libdci_datum *datum = &class->datums[i];

		datum->id = dci_protocol_get_u32(reader);
		datum->type = dci_protocol_get_u32(reader);
		datum->format = dci_protocol_get_u32(reader);
		datum->presentation = dci_protocol_get_u32(reader);
		datum->size = dci_protocol_get_u32(reader);
		datum->volatility = dci_protocol_get_u32(reader);
		datum->unit = dci_protocol_get_u32(reader);
		datum->semantics = dci_protocol_get_u32(reader);
		datum->offset = dci_protocol_get_u32(reader);
		datum->label = read_text(reader, DCI_LABEL_MAX, &ok);
		datum->description = read_text(reader, DCI_STRING_MAX, &ok);
		if (!ok || reader->failed || datum->size > class->record_size ||
		    datum->offset > class->record_size - datum->size ||
		    datum->size > DCI_STRING_MAX)
			goto refused;
		if (datum->id == DCI_INVALIDDATUMID)
			class->invalid_offset = UINT32_MAX;
		datum->uma_type = uma_type_of(datum, &datum->uma_size);
		if (datum->uma_type == 0)
			continue;
		datum->uma_units = uma_units_of(datum->unit);
		datum->uma_offset = block;
		block += datum->uma_size;
	}
	if (class->invalid_offset == 0) {
		class->invalid_offset = block;
		block += 4;
	}
	class->block_size = block;
	return true;
refused:
	libdci_class_free(class);
	return false;
}

const struct libdci_datum *
libdci_class_datum(const struct libdci_class *class, uint32_t id)
{
	for (uint32_t i = 0; i < class->datum_count; i++)
		if (class->datums[i].id == id)
			return class->datums[i].uma_type != 0
			           ? &class->datums[i]
			           : NULL;
	return NULL;
}

/* --- values ------------------------------------------------------------- */

static uint64_t
load_little(const unsigned char *bytes, size_t length)
{
	uint64_t value = 0;

	for (size_t i = length; i-- > 0;)
		value = value << 8 | bytes[i];
	return value;
}

static uint64_t
load_big(const unsigned char *bytes, size_t length)
{
	uint64_t value = 0;

	for (size_t i = 0; i < length; i++)
		value = value << 8 | bytes[i];
	return value;
}

/* Seconds from 1900 to the Epoch. */
#define SECONDS_1900_TO_1970 INT64_C(2208988800)

/* A DCI4 time as a UMATimeSpec: STF_5BYTE (0) centiseconds since 1900
 * and STF_CTIME (1) seconds since the Epoch as times since the Epoch (0
 * before it), STF_MONOTONIC (2) centiseconds since boot as an interval;
 * seconds beyond 2^32-1 saturate. */
static UMATimeSpec
time_of(uint32_t format, uint64_t raw)
{
	UMATimeSpec time = {0, 0};
	int64_t seconds;
	uint64_t centiseconds = 0;

	if (format == 1)
		seconds = (int64_t)raw;
	else {
		if (format == 0)
			raw &= UINT64_C(0xffffffffff);
		centiseconds = raw % 100;
		seconds = (int64_t)(raw / 100);
		if (format == 0)
			seconds -= SECONDS_1900_TO_1970;
	}
	if (seconds < 0)
		return time;
	time.tv_sec =
	    seconds > (int64_t)UINT32_MAX ? UINT32_MAX : (UMAUint4)seconds;
	time.tv_nsec = (UMAUint4)(centiseconds * 10000000u);
	return time;
}

/* Writes the datum's UMA value at `at` (datum->uma_size bytes, zeroed)
 * from its slot (datum->size bytes). */
static void
value_write(unsigned char *at, const struct libdci_datum *datum,
    const unsigned char *slot)
{
	bool big = (datum->format & 0x02u) != 0;
	uint64_t raw;

	switch (datum->uma_type) {
	case UMA_BOOLEAN: {
		UMABoolean truth = load_little(slot, 4) != 0;

		if (datum->format == 1) /* SBF_INVERTED */
			truth = !truth;
		memcpy(at, &truth, 4);
		break;
	}
	case UMA_INT4:
	case UMA_UINT4: {
		unsigned bits = 8 * datum->size;
		uint32_t value;

		raw = big ? load_big(slot, datum->size)
		          : load_little(slot, datum->size);
		if (datum->uma_type == UMA_INT4 && bits < 32 &&
		    (raw >> (bits - 1)) & 1u)
			raw |= ~UINT64_C(0) << bits;
		value = (uint32_t)raw;
		memcpy(at, &value, 4);
		break;
	}
	case UMA_INT8:
	case UMA_UINT8:
	case UMA_DERIVED:
		raw = big && datum->type == ST_INTEGER64 ? load_big(slot, 8)
		                                         : load_little(slot, 8);
		memcpy(at, &raw, 8);
		break;
	case UMA_TIMESPEC: {
		UMATimeSpec time = time_of(datum->format, load_little(slot, 8));

		memcpy(at, &time, sizeof(time));
		break;
	}
	case UMA_TEXTSTRING: {
		size_t length = strnlen((const char *)slot, datum->size);
		UMAUint4 size = (UMAUint4)(4 + round4(length + 1));

		memcpy(at, &size, 4);
		memcpy(at + 4, slot, length);
		break;
	}
	case UMA_OCTETSTRING: {
		/* The exact length: a MAC address is 6 bytes. The slot
		 * keeps its padding to 4, so the next datum's offset is
		 * the same (dci(3), IMPLEMENTATION CHOICES). */
		UMAUint4 size = (UMAUint4)(4 + datum->size);

		memcpy(at, &size, 4);
		memcpy(at + 4, slot, datum->size);
		break;
	}
	default:
		break;
	}
}

DCIStatus
libdci_block_put(struct libdci_builder *builder,
    const struct libdci_class *class, const unsigned char *record,
    size_t record_length, const unsigned char *present, size_t present_length,
    size_t *offset, size_t *size)
{
	uint32_t invalid = 0;
	size_t length = class->block_size;
	unsigned char *block;

	if (record_length != class->record_size ||
	    present_length != class->present_size)
		return DCI_SYSERROR;
	for (uint32_t i = 0; i < class->datum_count; i++)
		if (class->datums[i].uma_type != 0 &&
		    !(present[i / 8] & (1u << (i % 8))))
			invalid++;
	if (invalid > 0 && class->invalid_offset != UINT32_MAX)
		length += 8 + 4 * (size_t)invalid;
	block = libdci_builder_data_room(builder, length, offset);
	if (block == NULL)
		return DCI_ALLOCATIONFAILURE;
	*size = length;
	for (uint32_t i = 0; i < class->datum_count; i++) {
		const struct libdci_datum *datum = &class->datums[i];

		if (datum->uma_type != 0 && (present[i / 8] & (1u << (i % 8))))
			value_write(block + datum->uma_offset, datum,
			    record + datum->offset);
	}
	if (invalid > 0 && class->invalid_offset != UINT32_MAX) {
		UMAUint4 at = class->block_size,
		         words[2] = {(UMAUint4)(8 + 4 * invalid), invalid};
		size_t next = at + 8;

		memcpy(block + class->invalid_offset, &at, 4);
		memcpy(block + at, words, 8);
		for (uint32_t i = 0; i < class->datum_count; i++)
			if (class->datums[i].uma_type != 0 &&
			    !(present[i / 8] & (1u << (i % 8)))) {
				memcpy(block + next, &class->datums[i].id, 4);
				next += 4;
			}
	}
	return invalid > 0 ? DCI_INVALIDDATAPRESENT : DCI_SUCCESS;
}

DCIStatus
libdci_datum_put(struct libdci_builder *builder,
    const struct libdci_datum *datum, const unsigned char *slot,
    size_t slot_length, size_t *offset, size_t *size)
{
	unsigned char *at;

	if (slot_length != datum->size)
		return DCI_SYSERROR;
	at = libdci_builder_data_room(builder, datum->uma_size, offset);
	if (at == NULL)
		return DCI_ALLOCATIONFAILURE;
	value_write(at, datum, slot);
	*size = datum->uma_size;
	return DCI_SUCCESS;
}

/* --- attributes --------------------------------------------------------- */

/* A DCIDataAttr's flags: queryable, and dcistat's counter and interval
 * flags (dci.h). */
static UMAUint4
data_flags_of(const struct libdci_datum *datum)
{
	UMAUint4 flags = DCI_QUERYABLE;

	if (datum->semantics == 1) /* DCI_SEMANTICS_COUNTER */
		flags |= DCI_DCISTAT_COUNTER;
	if (datum->uma_type == UMA_TIMESPEC && datum->format == 2)
		flags |= DCI_DCISTAT_INTERVAL; /* STF_MONOTONIC */
	return flags;
}

static size_t
text_size(const char *text)
{
	return 4 + round4(strlen(text) + 1);
}

size_t
libdci_label_size(const char *label, const char *description)
{
	size_t size = 20 + text_size(label != NULL ? label : "");

	if (description != NULL && description[0] != '\0')
		size += text_size(description);
	return size;
}

static void
put_word(unsigned char *at, UMAUint4 value)
{
	memcpy(at, &value, 4);
}

/* A UMATextString at `at`; returns its size. */
static size_t
text_write(unsigned char *at, const char *text)
{
	size_t size = text_size(text);

	put_word(at, (UMAUint4)size);
	memcpy(at + 4, text, strlen(text));
	return size;
}

void
libdci_label_write(
    unsigned char *at, const char *label, const char *description)
{
	size_t ascii = text_write(at + 20, label != NULL ? label : "");
	size_t i18n = 0;

	if (description != NULL && description[0] != '\0')
		i18n = text_write(at + 20 + ascii, description);
	put_word(at, (UMAUint4)(20 + ascii + i18n));
	put_word(at + 4, 20);
	put_word(at + 8, (UMAUint4)ascii);
	put_word(at + 12, (UMAUint4)(20 + ascii));
	put_word(at + 16, (UMAUint4)i18n);
}

/* The three events every class offers, and their labels. */
static const struct {
	uint32_t id;
	const char *label;
} event_attrs[] = {
    {DCI_INSTANCEADDED, "instance_added"},
    {DCI_INSTANCEREMOVED, "instance_removed"},
    {DCI_DATACHANGED, "data_changed"},
};

#define CLASS_ATTR_FIXED 76u
#define DATA_ATTR_FIXED 32u
#define EVENT_ATTR_FIXED 28u
#define EVENT_DATA_ATTR_FIXED 24u
#define METHOD_FIXED 16u

size_t
libdci_class_attr_put(struct libdci_builder *builder,
    const struct libdci_class *class, size_t *offset)
{
	size_t size = CLASS_ATTR_FIXED + METHOD_FIXED, at, data_start,
	       data_size = 0, event_start, event_size = 0, label;
	uint32_t data_count = 0;
	unsigned char *attr;
	bool invalid_listed = class->invalid_offset != UINT32_MAX;

	size += libdci_label_size(class->label, class->description);
	size += 12 * (size_t) class->level_count;
	for (uint32_t i = 0; i < class->datum_count; i++)
		if (class->datums[i].uma_type != 0) {
			data_size += DATA_ATTR_FIXED +
			             libdci_label_size(class->datums[i].label,
			                 class->datums[i].description);
			data_count++;
		}
	if (invalid_listed) {
		data_size +=
		    DATA_ATTR_FIXED + libdci_label_size("invalid_data", NULL);
		data_count++;
	}
	for (size_t i = 0; i < 3; i++)
		event_size += EVENT_ATTR_FIXED +
		              libdci_label_size(event_attrs[i].label, NULL);
	/* DCI_DATACHANGED's one datum: the id of the datum that changed. */
	event_size += EVENT_DATA_ATTR_FIXED + libdci_label_size("datum", NULL);
	size += data_size + event_size;
	attr = libdci_builder_data_room(builder, size, offset);
	if (attr == NULL)
		return 0;
	put_word(attr, (UMAUint4)size);
	put_word(attr + 4,
	    DCI_ENABLED | (invalid_listed ? DCI_POSSIBLEINVALIDDATA : 0));
	/* access: none kept per class here (dcistatd's dci-access rules) */
	put_word(attr + 8, CLASS_ATTR_FIXED);
	put_word(attr + 12, 0);
	/* method: DCI_STORE, the server keeps the values */
	at = CLASS_ATTR_FIXED;
	put_word(attr + 16, (UMAUint4)at);
	put_word(attr + 20, METHOD_FIXED);
	put_word(attr + at, METHOD_FIXED);
	put_word(attr + at + 4, DCI_STORE);
	put_word(attr + at + 8, (UMAUint4)(METHOD_FIXED));
	put_word(attr + at + 12, 0);
	at += METHOD_FIXED;
	label = libdci_label_size(class->label, class->description);
	put_word(attr + 24, (UMAUint4)at);
	put_word(attr + 28, (UMAUint4)label);
	libdci_label_write(attr + at, class->label, class->description);
	at += label;
	put_word(attr + 32, (UMAUint4)at);
	put_word(attr + 36, 12);
	put_word(attr + 40, class->level_count);
	for (uint32_t i = 0; i < class->level_count; i++, at += 12) {
		put_word(attr + at, UMA_UINT4);
		put_word(attr + at + 4, uma_itype_of(class->level_itype[i]));
		put_word(attr + at + 8, class->level_size[i]);
	}
	data_start = at;
	put_word(attr + 44, (UMAUint4)data_start);
	put_word(attr + 48, data_count);
	put_word(attr + 52, (UMAUint4)data_size);
	for (uint32_t i = 0; i <= class->datum_count; i++) {
		const struct libdci_datum *datum =
		    i < class->datum_count ? &class->datums[i] : NULL;
		const char *text, *description;
		size_t one;

		if (datum != NULL && datum->uma_type == 0)
			continue;
		if (datum == NULL && !invalid_listed)
			break;
		text = datum != NULL ? datum->label : "invalid_data";
		description = datum != NULL ? datum->description : NULL;
		label = libdci_label_size(text, description);
		one = DATA_ATTR_FIXED + label;
		put_word(attr + at, (UMAUint4)one);
		put_word(attr + at + 4,
		    datum != NULL ? datum->id : DCI_INVALIDDATUMID);
		put_word(
		    attr + at + 8, datum != NULL ? datum->uma_type : UMA_UINT4);
		put_word(attr + at + 12,
		    datum != NULL ? datum->uma_units : UMA_NOUNITS);
		put_word(attr + at + 16,
		    datum != NULL ? data_flags_of(datum) : DCI_QUERYABLE);
		put_word(attr + at + 20,
		    datum != NULL ? datum->uma_offset : class->invalid_offset);
		put_word(attr + at + 24, DATA_ATTR_FIXED);
		put_word(attr + at + 28, (UMAUint4)label);
		libdci_label_write(
		    attr + at + DATA_ATTR_FIXED, text, description);
		at += one;
	}
	event_start = at;
	put_word(attr + 56, (UMAUint4)event_start);
	put_word(attr + 60, 3);
	put_word(attr + 64, (UMAUint4)event_size);
	for (size_t i = 0; i < 3; i++) {
		bool changed = event_attrs[i].id == DCI_DATACHANGED;
		size_t one, data_label = libdci_label_size("datum", NULL);

		label = libdci_label_size(event_attrs[i].label, NULL);
		one = EVENT_ATTR_FIXED + label +
		      (changed ? EVENT_DATA_ATTR_FIXED + data_label : 0);
		put_word(attr + at, (UMAUint4)one);
		put_word(attr + at + 4, event_attrs[i].id);
		put_word(attr + at + 8, EVENT_ATTR_FIXED);
		put_word(attr + at + 12, (UMAUint4)label);
		put_word(attr + at + 16, (UMAUint4)(EVENT_ATTR_FIXED + label));
		put_word(attr + at + 20, changed ? 1 : 0);
		put_word(attr + at + 24,
		    changed ? (UMAUint4)(EVENT_DATA_ATTR_FIXED + data_label)
		            : 0);
		libdci_label_write(
		    attr + at + EVENT_ATTR_FIXED, event_attrs[i].label, NULL);
		if (changed) {
			unsigned char *data_attr =
			    attr + at + EVENT_ATTR_FIXED + label;

			put_word(data_attr,
			    (UMAUint4)(EVENT_DATA_ATTR_FIXED + data_label));
			put_word(data_attr + 4, UMA_UINT4);
			put_word(data_attr + 8, UMA_NOUNITS);
			put_word(
			    data_attr + 12, 0); /* first word of the data */
			put_word(data_attr + 16, EVENT_DATA_ATTR_FIXED);
			put_word(data_attr + 20, (UMAUint4)data_label);
			libdci_label_write(
			    data_attr + EVENT_DATA_ATTR_FIXED, "datum", NULL);
		}
		at += one;
	}
	/* extensions: none */
	put_word(attr + 68, (UMAUint4)at);
	put_word(attr + 72, 0);
	return size;
}
