/*
 * libdci, providers: dciRegister and dciUnregister. A DCIClassAttr is read
 * (every descriptor bounded by the structure) and mapped to the DCI4 class
 * the supplier library takes: UMA types to DCI4 types, UMA units and
 * instance types to dcistat's. What has no DCI4 form is refused with
 * DCI_NOIMPLEMENTATION, what the server cannot do for a provider (methods
 * other than DCI_STORE and DCI_ADDRESS, operations other than getting
 * data) with DCI_METHODOPUNAVAILABLE, and what is malformed with
 * DCI_INVALIDARG.
 */
#define _GNU_SOURCE

#include "libdci/libdci_internal.h"
#include "libdci/provider_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CLASS_ATTR_FIXED_SIZE ((size_t)offsetof(DCIClassAttr, data))
#define DATA_ATTR_FIXED_SIZE ((size_t)offsetof(DCIDataAttr, data))
#define LABEL_FIXED_SIZE ((size_t)offsetof(DCILabel, data))

bool
libdci_provider_text(
    const unsigned char *at, size_t bound, char *text, size_t capacity)
{
	UMAUint4 size;
	size_t length;

	if (bound < 4)
		return false;
	memcpy(&size, at, 4);
	if (size < 4 || size > bound)
		return false;
	length = strnlen((const char *)at + 4, size - 4);
	if (length >= capacity)
		return false;
	memcpy(text, at + 4, length);
	text[length] = '\0';
	return true;
}

/* `descriptor` (offset, size) lies within `owner_size`. */
static bool
descriptor_fits(const UMAVarLenDescr *descriptor, size_t owner_size)
{
	return descriptor->offset <= owner_size &&
	       descriptor->size <= owner_size - descriptor->offset;
}

bool
libdci_provider_label(const unsigned char *owner, size_t owner_size,
    const UMAVarLenDescr *descriptor, char *text, size_t capacity)
{
	DCILabel label;
	const unsigned char *at;

	if (!descriptor_fits(descriptor, owner_size) ||
	    descriptor->size < LABEL_FIXED_SIZE)
		return false;
	at = owner + descriptor->offset;
	memcpy(&label, at, LABEL_FIXED_SIZE);
	if (label.size > descriptor->size || label.size < LABEL_FIXED_SIZE ||
	    !descriptor_fits(&label.ascii, label.size))
		return false;
	return libdci_provider_text(
	    at + label.ascii.offset, label.ascii.size, text, capacity);
}

DCIStatus
libdci_provider_class_id(
    const DCIClassId *class_id, size_t bound, uint32_t *id, size_t *id_length)
{
	size_t levels;

	if (class_id == NULL || bound < 4 || class_id->size > bound ||
	    class_id->size % 4 != 0 || class_id->size < 4 + 3 * 4)
		return DCI_INVALIDARG;
	levels = dciclassidlen(class_id);
	if (levels > DCI_CLASS_ID_MAX_LEVELS)
		return DCI_INVALIDARG;
	for (size_t i = 0; i < levels; i++) {
		if (class_id->data[i] == DCI_ALL)
			return DCI_INVALIDARG;
		id[i] = class_id->data[i];
	}
	if (id[0] != DCI_PROVIDER_CLASS_ARC || id[1] == 0 ||
	    id[2] < DCI_PROVIDER_CLASS_FIRST)
		return DCI_INVALIDARG;
	*id_length = levels;
	return DCI_SUCCESS;
}

struct libdci_provider_class *
libdci_provider_class_find(
    DCIProviderHandle handle, const uint32_t *id, size_t id_length)
{
	for (struct libdci_provider_class *c = handle->classes; c != NULL;
	     c = c->next)
		if (c->registered && c->id_length == id_length &&
		    memcmp(c->id, id, id_length * sizeof(*id)) == 0)
			return c;
	return NULL;
}

/* --- UMA to DCI4 --------------------------------------------------------- */

/* The UMA unit's dcistat unit; false when dcistat has none. */
static bool
unit_of(UMAUnit units, enum dci_unit *unit)
{
	static const struct {
		UMAUnit uma;
		enum dci_unit dcistat;
	} table[] = {{UMA_NOUNITS, DCI_UNIT_NONE}, {UMA_BYTES, DCI_UNIT_BYTES},
	    {UMA_KBYTES, DCI_UNIT_KBYTES}, {UMA_MBYTES, DCI_UNIT_MBYTES},
	    {UMA_GBYTES, DCI_UNIT_GBYTES}, {UMA_TBYTES, DCI_UNIT_TBYTES},
	    {UMA_SECS, DCI_UNIT_SECONDS},
	    {UMA_MILLISECS, DCI_UNIT_MILLISECONDS},
	    {UMA_MICROSECS, DCI_UNIT_MICROSECONDS},
	    {UMA_NANOSECS, DCI_UNIT_NANOSECONDS},
	    {UMA_PICOSECS, DCI_UNIT_PICOSECONDS}, {UMA_TICKS, DCI_UNIT_TICKS},
	    {UMA_COUNT, DCI_UNIT_COUNT}, {UMA_EVENT, DCI_UNIT_EVENTS},
	    {UMA_PAGES, DCI_UNIT_PAGES}, {UMA_BLOCKS, DCI_UNIT_BLOCKS},
	    {UMA_CHARACTERS, DCI_UNIT_CHARACTERS},
	    {UMA_PACKETS, DCI_UNIT_PACKETS}, {UMA_MESSAGES, DCI_UNIT_MESSAGES},
	    {UMA_TRANSACTIONS, DCI_UNIT_TRANSACTIONS},
	    {UMA_READS, DCI_UNIT_READS}, {UMA_WRITES, DCI_UNIT_WRITES},
	    {UMA_CONNECTIONS, DCI_UNIT_CONNECTIONS},
	    {UMA_RETRIES, DCI_UNIT_RETRIES},
	    {UMA_PROCESSORS, DCI_UNIT_PROCESSORS}, {UMA_DISKS, DCI_UNIT_DISKS},
	    {UMA_DCISTAT_INTERRUPTS, DCI_UNIT_INTERRUPTS},
	    {UMA_DCISTAT_CENTISECS, DCI_UNIT_CENTISECONDS},
	    {UMA_DCISTAT_MEGABITS_PER_SECOND, DCI_UNIT_MEGABITS_PER_SECOND},
	    {UMA_DCISTAT_OCTETS, DCI_UNIT_OCTETS},
	    {UMA_DCISTAT_ERRORS, DCI_UNIT_ERRORS},
	    {UMA_DCISTAT_HUNDREDTHS, DCI_UNIT_HUNDREDTHS}};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].uma == units) {
			*unit = table[i].dcistat;
			return true;
		}
	return false;
}

/* The UMA instance type's dcistat one; false when dcistat has none. */
static bool
itype_of(UMAInstTagType itype, enum dci_instance_type *out)
{
	switch (itype) {
	case UMA_SINGLEINST:
		*out = DCI_ITYPE_SINGLEINST;
		return true;
	case UMA_PROCESSOR:
		*out = DCI_ITYPE_PROCESSOR;
		return true;
	case UMA_DISKID:
		*out = DCI_ITYPE_DISKID;
		return true;
	case UMA_BUCKET_NO:
		*out = DCI_ITYPE_BUCKET_NO;
		return true;
	case UMA_DEVICE:
		*out = DCI_ITYPE_DEVICE;
		return true;
	case UMA_CHANNEL:
		*out = DCI_ITYPE_CHANNEL;
		return true;
	case UMA_CONTROLLERID:
		*out = DCI_ITYPE_CONTROLLERID;
		return true;
	case UMA_IPADDR:
		*out = DCI_ITYPE_IPADDR;
		return true;
	case UMA_DCISTAT_INTERFACE:
		*out = DCI_ITYPE_INTERFACE;
		return true;
	case UMA_DCISTAT_EVENTCOUNTER:
		*out = DCI_ITYPE_EVENT;
		return true;
	default:
		return false;
	}
}

/* The DCI4 form of a UMA datum, and the bytes its value takes in a posted
 * class data block (a text string: at least its size word). */
static DCIStatus
datum_of(
    const DCIDataAttr *attr, struct dci_datum_info *info, UMAUint4 *fixed_size)
{
	bool is_counter = (attr->flags & DCI_DCISTAT_COUNTER) != 0;

	memset(info, 0, sizeof(*info));
	info->id = attr->datumId;
	info->volatility = DCI_SV_VARIABLE;
	info->semantics =
	    is_counter ? DCI_SEMANTICS_COUNTER : DCI_SEMANTICS_GAUGE;
	switch (attr->type) {
	case UMA_INT4:
	case UMA_UINT4:
		info->type = DCI_ST_INTEGER32;
		info->size = 4;
		*fixed_size = 4;
		break;
	case UMA_INT8:
	case UMA_UINT8:
		info->type = DCI_ST_INTEGER64;
		info->size = 8;
		*fixed_size = 8;
		break;
	case UMA_BOOLEAN:
		info->type = DCI_ST_BOOLEAN;
		info->size = 4;
		info->presentation = DCI_SBP_TRUE_FALSE;
		*fixed_size = 4;
		break;
	case UMA_TIMESPEC:
		info->type = DCI_ST_TIME;
		info->format = DCI_STF_CTIME;
		info->size = 8;
		*fixed_size = 8;
		break;
	case UMA_TEXTSTRING:
		info->type = DCI_ST_STRING;
		info->size = DCISTAT_SUPPLIER_STRING_MAX;
		*fixed_size = 4;
		break;
	case UMA_OCTETSTRING:
	case UMA_TIMEVAL:
	case UMA_DERIVED:
	case UMA_CLASSDATA:
		return DCI_NOIMPLEMENTATION;
	default:
		return DCI_INVALIDARG;
	}
	if (attr->type == UMA_INT4 || attr->type == UMA_INT8) {
		info->presentation = DCI_SIP_DECIMAL;
	} else if (attr->type == UMA_UINT4 || attr->type == UMA_UINT8) {
		info->format = DCI_SIF_UNSIGNED;
		info->presentation = DCI_SIP_DECIMAL;
	} else {
		if (is_counter)
			return DCI_INVALIDARG; /* only integers count */
		info->semantics = DCI_SEMANTICS_DISCRETE;
	}
	if (!unit_of(attr->units, &info->unit))
		return DCI_NOIMPLEMENTATION;
	if (attr->flags & (DCI_SETTABLE | DCI_RESERVABLE))
		return DCI_METHODOPUNAVAILABLE;
	return DCI_SUCCESS;
}

DCIStatus
libdci_provider_method_type(DCIMethodType type, DCIMethodType *method)
{
	switch (type) {
	case DCI_STORE:
	case DCI_ADDRESS:
		*method = type;
		return DCI_SUCCESS;
	case DCI_WAIT:
	case DCI_CALLBACK:
		return DCI_METHODOPUNAVAILABLE;
	default:
		return DCI_INVALIDARG;
	}
}

/* The class method: none is DCI_STORE. */
static DCIStatus
class_method(const unsigned char *attr, size_t attr_size,
    const UMAVarLenDescr *descriptor, DCIMethodType *method)
{
	DCIMethod fixed;

	*method = DCI_STORE;
	if (descriptor->size == 0)
		return DCI_SUCCESS;
	if (!descriptor_fits(descriptor, attr_size) ||
	    descriptor->size < LIBDCI_METHOD_FIXED_SIZE)
		return DCI_INVALIDARG;
	memcpy(&fixed, attr + descriptor->offset, LIBDCI_METHOD_FIXED_SIZE);
	if (fixed.size < LIBDCI_METHOD_FIXED_SIZE ||
	    fixed.size > descriptor->size)
		return DCI_INVALIDARG;
	return libdci_provider_method_type(fixed.type, method);
}

/* Everything read from a DCIClassAttr, in the form the supplier library
 * takes; freed by class_draft_free. */
struct class_draft {
	char label[DCI_LABEL_MAX + 1];
	struct dci_instance_level levels[DCI_INSTANCE_ID_MAX_WORDS];
	size_t level_count;
	struct dci_datum_info *infos;
	char (*labels)[DCI_LABEL_MAX + 1];
	struct libdci_provider_datum *datums;
	size_t datum_count; /* in `datums`; `infos` omits the invalid word */
	size_t info_count;
};

static void
class_draft_free(struct class_draft *draft)
{
	free(draft->infos);
	free(draft->labels);
	free(draft->datums);
}

static DCIStatus
read_levels(const unsigned char *attr, size_t attr_size,
    const UMAArrayDescr *array, struct class_draft *draft, size_t *words)
{
	*words = 0;
	if (array->elementSize != sizeof(DCIInstLevel) || array->count == 0 ||
	    array->count > DCI_INSTANCE_ID_MAX_WORDS ||
	    array->offset > attr_size ||
	    array->count * sizeof(DCIInstLevel) > attr_size - array->offset)
		return DCI_INVALIDARG;
	for (size_t l = 0; l < array->count; l++) {
		DCIInstLevel level;

		memcpy(&level, attr + array->offset + l * sizeof(level),
		    sizeof(level));
		if (level.size == 0 || level.size % 4 != 0 ||
		    level.size > 4 * DCI_INSTANCE_ID_MAX_WORDS)
			return DCI_INVALIDARG;
		if (!itype_of(level.itype, &draft->levels[l].itype))
			return DCI_NOIMPLEMENTATION;
		draft->levels[l].size = level.size;
		*words += level.size / 4;
	}
	draft->level_count = array->count;
	return *words > DCI_INSTANCE_ID_MAX_WORDS ? DCI_INVALIDARG
	                                          : DCI_SUCCESS;
}

/* Two datums' value ranges in the block overlap. */
static bool
overlaps(const struct libdci_provider_datum *a,
    const struct libdci_provider_datum *b)
{
	return a->offset < b->offset + b->fixed_size &&
	       b->offset < a->offset + a->fixed_size;
}

static DCIStatus
read_datums(const unsigned char *attr, size_t attr_size,
    const UMAVarArrayDescr *array, struct class_draft *draft)
{
	size_t at;

	/* Each DCIDataAttr takes at least its fixed part: the count is
	 * bounded by the bytes before anything is allocated for it. */
	if (array->count == 0 || array->offset > attr_size ||
	    array->size > attr_size - array->offset ||
	    array->count > array->size / DATA_ATTR_FIXED_SIZE)
		return DCI_INVALIDARG;
	draft->infos = calloc(array->count, sizeof(*draft->infos));
	draft->labels = calloc(array->count, sizeof(*draft->labels));
	draft->datums = calloc(array->count, sizeof(*draft->datums));
	if (draft->infos == NULL || draft->labels == NULL ||
	    draft->datums == NULL)
		return DCI_ALLOCATIONFAILURE;
	at = array->offset;
	for (size_t d = 0; d < array->count; d++) {
		const unsigned char *one = attr + at;
		size_t room = array->offset + array->size - at;
		struct libdci_provider_datum *datum = &draft->datums[d];
		DCIDataAttr fixed;
		DCIStatus status;

		if (room < DATA_ATTR_FIXED_SIZE)
			return DCI_INVALIDARG;
		memcpy(&fixed, one, DATA_ATTR_FIXED_SIZE);
		if (fixed.size < DATA_ATTR_FIXED_SIZE || fixed.size > room ||
		    fixed.size % 4 != 0 || fixed.offset % 4 != 0 ||
		    fixed.datumId == 0 || fixed.datumId == DCI_ALL)
			return DCI_INVALIDARG;
		datum->id = fixed.datumId;
		datum->uma_type = fixed.type;
		datum->offset = fixed.offset;
		datum->segment_index = -1;
		if (fixed.datumId == DCI_INVALIDDATUMID) {
			/* The offset of the DCIInvalidData, 0 when every
			 * datum is valid: read, not stored. */
			if (fixed.type != UMA_UINT4)
				return DCI_INVALIDARG;
			datum->fixed_size = 4;
		} else {
			struct dci_datum_info *info =
			    &draft->infos[draft->info_count];

			status = datum_of(&fixed, info, &datum->fixed_size);
			if (status != DCI_SUCCESS)
				return status;
			if (!libdci_provider_label(one, fixed.size,
			        &fixed.label, draft->labels[d],
			        sizeof(draft->labels[d])) ||
			    draft->labels[d][0] == '\0')
				return DCI_INVALIDARG;
			info->label = draft->labels[d];
			datum->is_counter =
			    info->semantics == DCI_SEMANTICS_COUNTER;
			datum->segment_index = (int)draft->info_count++;
		}
		if (fixed.offset > UINT32_MAX - datum->fixed_size)
			return DCI_INVALIDARG;
		for (size_t e = 0; e < d; e++)
			if (draft->datums[e].id == datum->id ||
			    overlaps(&draft->datums[e], datum))
				return DCI_INVALIDARG;
		draft->datum_count = d + 1;
		at += fixed.size;
	}
	return at == array->offset + array->size ? DCI_SUCCESS : DCI_INVALIDARG;
}

/* --- the layout the server keeps ----------------------------------------- */

static int
datum_id_compare(const void *left, const void *right)
{
	const struct libdci_provider_datum *a =
	    *(const struct libdci_provider_datum *const *)left;
	const struct libdci_provider_datum *b =
	    *(const struct libdci_provider_datum *const *)right;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* The specification: the attributes a class is registered with do not
 * change, so every datum must be served at the offset the provider gave.
 * The server describes a class by its DCI4 datums, and a consumer lays
 * the class data block out from them (libdci_class_read): datums in id
 * order, each right after the one before, a text string in the slot its
 * DCI4 size sets (libdci_text_slot), the DCI_INVALIDDATUMID word last. A
 * layout that is this one for some string sizes is kept, each string's
 * DCI4 size chosen so that its slot reaches the next datum (and set in
 * draft->infos); any other (a hole, datums in another order than their
 * ids, the invalid word elsewhere than last, a string slot no size gives)
 * would be served at other offsets and is DCI_NOIMPLEMENTATION. */
static DCIStatus
layout_keep(struct class_draft *draft)
{
	struct libdci_provider_datum **order, *invalid = NULL;
	DCIStatus status = DCI_SUCCESS;
	size_t count = 0;
	uint64_t at = 0;

	order = calloc(draft->datum_count, sizeof(*order));
	if (order == NULL)
		return DCI_ALLOCATIONFAILURE;
	for (size_t d = 0; d < draft->datum_count; d++) {
		if (draft->datums[d].segment_index < 0)
			invalid = &draft->datums[d];
		else
			order[count++] = &draft->datums[d];
	}
	qsort(order, count, sizeof(*order), datum_id_compare);
	for (size_t i = 0; i < count && status == DCI_SUCCESS; i++) {
		struct libdci_provider_datum *datum = order[i];
		const struct libdci_provider_datum *next =
		    i + 1 < count ? order[i + 1] : invalid;
		uint64_t slot = datum->fixed_size;

		if (datum->offset != at) {
			status = DCI_NOIMPLEMENTATION;
			break;
		}
		if (datum->uma_type == UMA_TEXTSTRING) {
			UMAUint4 size = DCISTAT_SUPPLIER_STRING_MAX;

			if (next != NULL && next->offset < datum->offset + 8) {
				status = DCI_NOIMPLEMENTATION;
				break;
			}
			if (next != NULL) {
				slot = next->offset - datum->offset;
				if (slot - 5 < size)
					size = (UMAUint4)(slot - 5);
			} else {
				slot = libdci_text_slot(size);
			}
			if (libdci_text_slot(size) != slot) {
				status = DCI_NOIMPLEMENTATION;
				break;
			}
			draft->infos[datum->segment_index].size = size;
			datum->text_capacity = size;
		}
		datum->room = (UMAUint4)slot;
		at += slot;
	}
	if (status == DCI_SUCCESS && invalid != NULL) {
		invalid->room = 4;
		if (invalid->offset != at)
			status = DCI_NOIMPLEMENTATION;
	}
	free(order);
	return status;
}

/* Reads `attr` into `class` (but its segment class) and `draft`. */
static DCIStatus
read_class(const DCIClassAttr *attr, struct libdci_provider_class *class,
    struct class_draft *draft)
{
	const unsigned char *bytes = (const unsigned char *)attr;
	DCIClassAttr fixed;
	DCIStatus status;
	bool has_invalid_word = false;

	memcpy(&fixed, attr, CLASS_ATTR_FIXED_SIZE);
	if (fixed.size < CLASS_ATTR_FIXED_SIZE || fixed.size % 4 != 0)
		return DCI_INVALIDARG;
	if (fixed.flags & DCI_PROVIDER_INSTANCE)
		return DCI_METHODOPUNAVAILABLE; /* the server never asks */
	if (fixed.eventAttr.count != 0)
		return DCI_NOIMPLEMENTATION;
	if (!libdci_provider_label(bytes, fixed.size, &fixed.label,
	        draft->label, sizeof(draft->label)) ||
	    draft->label[0] == '\0')
		return DCI_INVALIDARG;
	status = class_method(bytes, fixed.size, &fixed.method, &class->method);
	if (status == DCI_SUCCESS)
		status = read_levels(bytes, fixed.size, &fixed.instLevel, draft,
		    &class->id_words);
	if (status == DCI_SUCCESS)
		status = read_datums(bytes, fixed.size, &fixed.dataAttr, draft);
	if (status == DCI_SUCCESS && draft->info_count == 0)
		status = DCI_INVALIDARG;
	if (status == DCI_SUCCESS)
		status = layout_keep(draft);
	if (status != DCI_SUCCESS)
		return status;
	class->level_count = draft->level_count;
	class->block_size = 0;
	for (size_t d = 0; d < draft->datum_count; d++) {
		const struct libdci_provider_datum *datum = &draft->datums[d];

		if (datum->offset + datum->fixed_size > class->block_size)
			class->block_size = datum->offset + datum->fixed_size;
		if (datum->uma_type == UMA_TEXTSTRING)
			class->has_text = true;
		if (datum->segment_index < 0)
			has_invalid_word = true;
	}
	/* The specification: a class that may present invalid data says
	 * where, with its DCI_INVALIDDATUMID datum. */
	if ((fixed.flags & DCI_POSSIBLEINVALIDDATA) && !has_invalid_word)
		return DCI_INVALIDARG;
	if (class->method == DCI_ADDRESS && class->has_text)
		return DCI_METHODOPUNAVAILABLE;
	return DCI_SUCCESS;
}

/* The supplier library's failure as a status. */
static DCIStatus
status_of_errno(void)
{
	switch (errno) {
	case ENOSPC:
	case ENOMEM:
		return DCI_ALLOCATIONFAILURE;
	case EEXIST:
	case EINVAL:
		return DCI_INVALIDARG;
	default:
		return DCI_SYSERROR;
	}
}

static void
provider_close(DCIProviderHandle handle)
{
	struct libdci_provider_class *class = handle->classes;

	while (class != NULL) {
		struct libdci_provider_class *next = class->next;

		while (class->instances != NULL) {
			struct libdci_provider_instance *instance =
			    class->instances;

			class->instances = instance->next;
			libdci_provider_instance_free(instance);
		}
		free(class->datums);
		free(class);
		class = next;
	}
	if (handle->supplier != NULL)
		dcistat_supplier_close(handle->supplier);
	pthread_mutex_destroy(&handle->lock);
	free(handle);
}

static DCIStatus
provider_open(DCIProviderHandle *handle, const char *name, uint32_t number)
{
	struct dci_supplier_info info = {.module = name,
	    .title = name,
	    .description = "a UMA DCI provider (libdci)"};
	DCIProviderHandle opened = calloc(1, sizeof(*opened));

	if (opened == NULL)
		return DCI_ALLOCATIONFAILURE;
	pthread_mutex_init(&opened->lock, NULL);
	opened->number = number;
	opened->supplier = dcistat_supplier_open(&info, number, NULL);
	if (opened->supplier == NULL) {
		DCIStatus status = status_of_errno();

		provider_close(opened);
		return status;
	}
	*handle = opened;
	return DCI_SUCCESS;
}

static DCIStatus
register_locked(DCIProviderHandle handle, const uint32_t *id, size_t id_length,
    const DCIClassAttr *attr)
{
	struct libdci_provider_class *class;
	struct class_draft draft;
	struct dci_class_info info;
	DCIStatus status;

	if (id[1] != handle->number)
		return DCI_INVALIDARG;
	for (class = handle->classes; class != NULL; class = class->next)
		if (class->id_length == id_length &&
		    memcmp(class->id, id, id_length * sizeof(*id)) == 0)
			return DCI_INVALIDARG; /* registered, or was */
	class = calloc(1, sizeof(*class));
	if (class == NULL)
		return DCI_ALLOCATIONFAILURE;
	memset(&draft, 0, sizeof(draft));
	memcpy(class->id, id, id_length * sizeof(*id));
	class->id_length = id_length;
	status = read_class(attr, class, &draft);
	if (status == DCI_SUCCESS) {
		info = (struct dci_class_info){.id = id + 2,
		    .id_length = id_length - 2,
		    .label = draft.label,
		    .levels = draft.levels,
		    .level_count = draft.level_count,
		    .datums = draft.infos,
		    .datum_count = draft.info_count};
		class->segment_class =
		    dcistat_class_add(handle->supplier, &info);
		if (class->segment_class == NULL)
			status = status_of_errno();
	}
	if (status != DCI_SUCCESS) {
		class_draft_free(&draft);
		free(class);
		return status;
	}
	class->datums = draft.datums;
	class->datum_count = draft.datum_count;
	draft.datums = NULL;
	class_draft_free(&draft);
	class->registered = true;
	class->next = handle->classes;
	handle->classes = class;
	return DCI_SUCCESS;
}

__attribute__((visibility("default"))) DCIStatus
dciRegister(DCIProviderHandle *handle, const char *providerName,
    const DCIClassId *classId, const DCIClassAttr *classAttr)
{
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
	size_t id_length;
	DCIStatus status;
	bool opened = false;

	if (handle == NULL || classAttr == NULL ||
	    libdci_provider_class_id(classId,
	        classId != NULL ? classId->size : 0, id,
	        &id_length) != DCI_SUCCESS)
		return DCI_INVALIDARG;
	if (*handle == NULL) {
		if (providerName == NULL || providerName[0] == '\0' ||
		    strlen(providerName) > DCI_LABEL_MAX)
			return DCI_INVALIDARG;
		status = provider_open(handle, providerName, id[1]);
		if (status != DCI_SUCCESS)
			return status;
		opened = true;
	}
	pthread_mutex_lock(&(*handle)->lock);
	status = register_locked(*handle, id, id_length, classAttr);
	pthread_mutex_unlock(&(*handle)->lock);
	if (status != DCI_SUCCESS && opened) {
		provider_close(*handle);
		*handle = NULL;
	}
	return status;
}

__attribute__((visibility("default"))) DCIStatus
dciUnregister(DCIProviderHandle handle, const DCIClassId *classId)
{
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
	size_t id_length;
	struct libdci_provider_class *class;
	bool any_left = false;

	if (handle == NULL)
		return DCI_INVALIDARG;
	if (classId == NULL) {
		provider_close(handle);
		return DCI_SUCCESS;
	}
	if (libdci_provider_class_id(classId, classId->size, id, &id_length) !=
	    DCI_SUCCESS)
		return DCI_INVALIDARG;
	pthread_mutex_lock(&handle->lock);
	class = libdci_provider_class_find(handle, id, id_length);
	if (class == NULL) {
		pthread_mutex_unlock(&handle->lock);
		return DCI_NOTPRESENT;
	}
	/* The supplier library keeps a class as long as its segment: the
	 * class is emptied, and goes when the last one is unregistered. */
	while (class->instances != NULL) {
		struct libdci_provider_instance *instance = class->instances;

		class->instances = instance->next;
		libdci_provider_instance_free(instance);
	}
	class->registered = false;
	for (class = handle->classes; class != NULL; class = class->next)
		any_left = any_left || class->registered;
	pthread_mutex_unlock(&handle->lock);
	if (!any_left)
		provider_close(handle);
	return DCI_SUCCESS;
}

/* Removes an instance from its segment and frees its record. */
void
libdci_provider_instance_free(struct libdci_provider_instance *instance)
{
	if (instance->segment_instance != NULL)
		dcistat_instance_remove(instance->segment_instance);
	free(instance->posted);
	free(instance);
}
