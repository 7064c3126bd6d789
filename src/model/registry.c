#define _GNU_SOURCE
#include "model/registry.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/derived.h"
#include "base/log.h"
#include "model/lower_bound.h"
#include "model/snapshot_data.h"
#include "text/escape.h"

struct dci_registry *
dci_registry_new(void)
{
	return calloc(1, sizeof(struct dci_registry));
}

static void
supplier_free(struct dci_supplier *supplier)
{
	free(supplier->module);
	free(supplier->title);
	free(supplier->description);
	free(supplier->provider_name);
	free(supplier);
}

static void
class_free(struct dci_class *class)
{
	if (class == NULL)
		return;
	dci_snapshot_free(class->snapshot);
	dci_snapshot_free(class->stale_snapshot);
	for (size_t i = 0; i < class->datum_count; i++) {
		free((char *)class->datums[i].info.label);
		free((char *)class->datums[i].info.description);
	}
	free(class->datums);
	free(class->datum_lookup);
	free(class->refusal_hashes);
	free(class->levels);
	free(class->label);
	free(class->description);
	free(class);
}

void
dci_registry_free(struct dci_registry *registry)
{
	if (registry == NULL)
		return;
	for (size_t i = 0; i < registry->class_count; i++)
		class_free(registry->classes[i]);
	for (size_t i = 0; i < registry->supplier_count; i++)
		supplier_free(registry->suppliers[i]);
	for (size_t i = 0; i < registry->reservation_count; i++) {
		free(registry->reservations[i].name);
		free(registry->reservations[i].holder);
	}
	free(registry->reservations);
	free(registry->classes);
	free(registry->classes_by_levels);
	free(registry->suppliers);
	free(registry);
}

/* The characters UMA reserves in class, datum and supplier labels. */
static const char reserved_label_characters[] = "!@#$%^&*()[]{}|,.'\"`:;";

/* UMA reserves `reserved` characters in labels (NULL: none reserved), and
 * every non-printing character except the blank. */
static bool
label_valid(const char *label, const char *reserved, char *why, size_t why_size)
{
	size_t length;

	if (label == NULL || label[0] == '\0') {
		log_reason(why, why_size, "empty label");
		return false;
	}
	length = strnlen(label, DCI_LABEL_MAX + 1);
	if (length > DCI_LABEL_MAX) {
		log_reason(why, why_size, "label longer than %u characters",
		    DCI_LABEL_MAX);
		return false;
	}
	for (size_t i = 0; i < length; i++) {
		unsigned char c = (unsigned char)label[i];
		/* The label refused is quoted escaped: it comes from a
		 * provider or a segment and goes to a log line. */
		char quoted[DCI_LABEL_MAX * DCI_TEXT_ESCAPE_GROWTH + 1];
		if (c < 0x20 || c > 0x7e) {
			log_reason(why, why_size,
			    "label \"%s\" has non-printing character 0x%02x "
			    "at %zu%s",
			    dci_text_quote(quoted, sizeof(quoted), label), c,
			    i + 1,
			    reserved != NULL ? " (UMA reserves it)" : "");
			return false;
		}
		if (reserved != NULL && strchr(reserved, c) != NULL) {
			log_reason(why, why_size,
			    "label \"%s\" has reserved character '%c' at %zu "
			    "(UMA reserves %s)",
			    dci_text_quote(quoted, sizeof(quoted), label), c,
			    i + 1, reserved);
			return false;
		}
	}
	return true;
}

bool
dci_registry_label_valid(const char *label, char *why, size_t why_size)
{
	return label_valid(label, reserved_label_characters, why, why_size);
}

/* The "\~HHHHHHHH" that ends a label cut to fit. */
#define INSTANCE_LABEL_CUT_MARK_LENGTH 10u

/* 32-bit FNV-1a: enough to tell apart labels that share a long prefix. */
static uint32_t
label_hash(const unsigned char *label)
{
	uint32_t hash = 2166136261u;

	for (; *label != '\0'; label++) {
		hash ^= *label;
		hash *= 16777619u;
	}
	return hash;
}

bool
dci_registry_instance_label_escape(const char *label,
    char escaped[DCI_INSTANCE_LABEL_SIZE], char *why, size_t why_size)
{
	size_t length;

	escaped[0] = '\0';
	if (label == NULL || label[0] == '\0') {
		log_reason(why, why_size, "empty label");
		return false;
	}
	/* Most labels ("eth0", "unit7") stand for themselves: copied whole,
	 * without the escaper's step per byte (a refresh adds every
	 * instance's label again). */
	for (length = 0; length <= DCI_LABEL_MAX; length++) {
		unsigned char c = (unsigned char)label[length];

		if (c == '\0') {
			memcpy(escaped, label, length + 1);
			return true;
		}
		if (c < 0x20 || c > 0x7e || c == '\\')
			break;
	}
	length += strlen(label + length);
	if (dci_text_escape(escaped, DCI_INSTANCE_LABEL_SIZE, label, length,
	        DCI_TEXT_ESCAPE_LABEL) < length) {
		/* Cut on a whole character or escape, leaving room for the
		 * mark. */
		size_t cut_used;
		dci_text_escape(escaped,
		    DCI_INSTANCE_LABEL_SIZE - INSTANCE_LABEL_CUT_MARK_LENGTH,
		    label, length, DCI_TEXT_ESCAPE_LABEL);
		cut_used = strlen(escaped);
		snprintf(escaped + cut_used, DCI_INSTANCE_LABEL_SIZE - cut_used,
		    "\\~%08x",
		    (unsigned)label_hash((const unsigned char *)label));
	}
	return true;
}

static char *
copy_text(const char *text)
{
	return strdup(text != NULL ? text : "");
}

/* DCI4 recommends the time of initialisation as the reset stamp. */
static void
supplier_stamp_reset(struct dci_supplier *supplier)
{
	struct timespec now;
	uint64_t stamp;

	clock_gettime(CLOCK_REALTIME, &now);
	stamp = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	for (int i = 0; i < 8; i++)
		supplier->reset[i] = (unsigned char)(stamp >> (56 - 8 * i));
}

static struct dci_supplier *
supplier_find(const struct dci_registry *registry, const char *module)
{
	for (size_t i = 0; i < registry->supplier_count; i++) {
		if (strcmp(registry->suppliers[i]->module, module) == 0)
			return registry->suppliers[i];
	}
	return NULL;
}

/* A new supplier entry at the next index, or the withdrawn one of the same
 * module, with its texts replaced. NULL: out of memory. */
static struct dci_supplier *
supplier_take(struct dci_registry *registry, struct dci_supplier *withdrawn,
    const char *module, const char *title, const char *description,
    const char *provider_name)
{
	struct dci_supplier *supplier = withdrawn, **grown;
	char *texts[4] = {copy_text(module), copy_text(title),
	    copy_text(description), copy_text(provider_name)};

	if (texts[0] == NULL || texts[1] == NULL || texts[2] == NULL ||
	    texts[3] == NULL)
		goto out_of_memory;
	if (supplier == NULL) {
		grown = realloc(registry->suppliers,
		    (registry->supplier_count + 1) * sizeof(*grown));
		if (grown == NULL)
			goto out_of_memory;
		registry->suppliers = grown;
		supplier = calloc(1, sizeof(*supplier));
		if (supplier == NULL)
			goto out_of_memory;
		supplier->index = (uint32_t)registry->supplier_count + 1;
		registry->suppliers[registry->supplier_count++] = supplier;
	} else {
		free(supplier->module);
		free(supplier->title);
		free(supplier->description);
		free(supplier->provider_name);
		supplier->last_refresh_milliseconds = 0;
	}
	supplier->module = texts[0];
	supplier->title = texts[1];
	supplier->description = texts[2];
	supplier->provider_name = texts[3];
	supplier->withdrawn = false;
	supplier->failure[0] = '\0';
	return supplier;

out_of_memory:
	for (size_t i = 0; i < 4; i++)
		free(texts[i]);
	return NULL;
}

struct dci_supplier *
dci_registry_add_supplier(struct dci_registry *registry,
    const struct dci_supplier_info *info, const char *provider_name, char *why,
    size_t why_size)
{
	char label_why[256];
	struct dci_supplier *supplier, *existing;

	if (info == NULL || info->module == NULL) {
		log_reason(why, why_size, "supplier has no module name");
		return NULL;
	}
	if (!dci_registry_label_valid(
	        info->module, label_why, sizeof(label_why))) {
		log_reason(why, why_size, "supplier module: %s", label_why);
		return NULL;
	}
	existing = supplier_find(registry, info->module);
	if (existing != NULL && !existing->withdrawn) {
		log_reason(why, why_size, "supplier \"%s\" already registered",
		    info->module);
		return NULL;
	}
	supplier = supplier_take(registry, existing, info->module, info->title,
	    info->description, provider_name);
	if (supplier == NULL) {
		log_reason(why, why_size, "out of memory");
		return NULL;
	}
	supplier->type = info->type;
	supplier->version = info->version;
	supplier->status = DCI_SUPPLIER_RUNNING;
	supplier->failure[0] = '\0';
	supplier->provider_failure[0] = '\0';
	supplier_stamp_reset(supplier);
	return supplier;
}

static struct dci_supplier_reservation *
reservation_find(const struct dci_registry *registry, const char *name)
{
	for (size_t i = 0; i < registry->reservation_count; i++) {
		if (strcmp(registry->reservations[i].name, name) == 0)
			return &registry->reservations[i];
	}
	return NULL;
}

int
dci_registry_reserve_supplier(struct dci_registry *registry, const char *name,
    const char *holder, bool replace)
{
	struct dci_supplier_reservation *found =
	    reservation_find(registry, name);
	struct dci_supplier_reservation *grown;
	char *copy;

	if (found != NULL && (!replace || strcmp(found->holder, holder) == 0))
		return 0;
	if ((copy = strdup(holder)) == NULL)
		return -1;
	if (found != NULL) {
		free(found->holder);
		found->holder = copy;
		return 0;
	}
	grown = realloc(registry->reservations,
	    (registry->reservation_count + 1) * sizeof(*grown));
	if (grown == NULL) {
		free(copy);
		return -1;
	}
	registry->reservations = grown;
	grown[registry->reservation_count].holder = copy;
	if ((grown[registry->reservation_count].name = strdup(name)) == NULL) {
		free(copy);
		return -1;
	}
	registry->reservation_count++;
	return 0;
}

const char *
dci_registry_supplier_holder(
    const struct dci_registry *registry, const char *name)
{
	const struct dci_supplier_reservation *found =
	    name != NULL ? reservation_find(registry, name) : NULL;

	return found != NULL ? found->holder : NULL;
}

void
dci_registry_reservations_retain(struct dci_registry *registry,
    const char *const *holders, size_t holder_count)
{
	size_t kept = 0;

	for (size_t i = 0; i < registry->reservation_count; i++) {
		struct dci_supplier_reservation *reservation =
		    &registry->reservations[i];
		bool configured = false;
		for (size_t h = 0; h < holder_count && !configured; h++)
			configured =
			    strcmp(reservation->holder, holders[h]) == 0;
		if (configured) {
			registry->reservations[kept++] = *reservation;
			continue;
		}
		free(reservation->name);
		free(reservation->holder);
	}
	registry->reservation_count = kept;
}

struct dci_supplier *
dci_registry_add_failed_supplier(struct dci_registry *registry,
    const char *module, const char *reason, void *owner)
{
	struct dci_supplier *existing = supplier_find(registry, module);
	struct dci_supplier *supplier;

	if (existing != NULL && !existing->withdrawn) {
		if (existing->owner != owner)
			return NULL;
		supplier = existing;
	} else {
		supplier =
		    supplier_take(registry, existing, module, "", "", module);
		if (supplier == NULL)
			return NULL;
		supplier->type = 0;
		supplier->version = 0;
		supplier_stamp_reset(supplier);
	}
	supplier->owner = owner;
	supplier->status = DCI_SUPPLIER_FAILED;
	snprintf(supplier->failure, sizeof(supplier->failure), "%s",
	    reason != NULL ? reason : "");
	return supplier;
}

static void
classes_remove(struct dci_class **classes, size_t count, struct dci_class *gone)
{
	for (size_t i = 0; i < count; i++) {
		if (classes[i] == gone) {
			memmove(classes + i, classes + i + 1,
			    (count - i - 1) * sizeof(*classes));
			return;
		}
	}
}

/* What a withdrawal takes: the classes and suppliers of `supplier` alone
 * when it is not NULL (a provider withdrawing one of its suppliers), else
 * everything `owner` registered (a provider unloaded or restarted). */
static bool
class_withdrawn_with(const struct dci_class *class, const void *owner,
    const struct dci_supplier *supplier)
{
	return supplier != NULL ? class->supplier == supplier
	                        : class->owner == owner;
}

static bool
supplier_withdrawn_with(const struct dci_supplier *candidate, const void *owner,
    const struct dci_supplier *supplier)
{
	return supplier != NULL ? candidate == supplier
	                        : candidate->owner == owner;
}

/* One withdrawal for both cases: the classes are removed and freed (their
 * rows go with them); the suppliers stay in the array, marked withdrawn,
 * so that their indexes remain reserved for their modules. */
static void
registry_withdraw(struct dci_registry *registry, const void *owner,
    const struct dci_supplier *supplier)
{
	size_t i = 0;

	while (i < registry->class_count) {
		struct dci_class *class = registry->classes[i];
		if (!class_withdrawn_with(class, owner, supplier)) {
			i++;
			continue;
		}
		classes_remove(registry->classes, registry->class_count, class);
		classes_remove(
		    registry->classes_by_levels, registry->class_count, class);
		registry->class_count--;
		class_free(class);
		dci_registry_changed();
	}
	for (i = 0; i < registry->supplier_count; i++) {
		struct dci_supplier *candidate = registry->suppliers[i];
		if (!candidate->withdrawn &&
		    supplier_withdrawn_with(candidate, owner, supplier)) {
			candidate->withdrawn = true;
			candidate->owner = NULL;
		}
	}
}

void
dci_registry_withdraw_owner(struct dci_registry *registry, void *owner)
{
	registry_withdraw(registry, owner, NULL);
}

void
dci_registry_withdraw_supplier(
    struct dci_registry *registry, struct dci_supplier *supplier)
{
	if (supplier != NULL)
		registry_withdraw(registry, NULL, supplier);
}

static _Atomic uint64_t registry_generation;

uint64_t
dci_registry_generation(void)
{
	return atomic_load_explicit(&registry_generation, memory_order_relaxed);
}

void
dci_registry_changed(void)
{
	atomic_fetch_add_explicit(
	    &registry_generation, 1, memory_order_relaxed);
}

void
dci_class_withdraw_snapshot(struct dci_class *class)
{
	if (class->snapshot == NULL)
		return;
	dci_registry_changed();
	dci_snapshot_free(class->stale_snapshot);
	class->stale_snapshot = class->snapshot;
	class->snapshot = NULL;
}

int
dci_class_id_compare(const uint32_t *left, size_t left_length,
    const uint32_t *right, size_t right_length)
{
	if (left_length != right_length)
		return left_length < right_length ? -1 : 1;
	for (size_t i = 0; i < left_length; i++) {
		if (left[i] != right[i])
			return left[i] < right[i] ? -1 : 1;
	}
	return 0;
}

void
dci_class_id_format(const struct dci_class *class, char *text, size_t text_size)
{
	size_t used = 0;

	text[0] = '\0';
	for (size_t i = 0; i < class->id_length && used < text_size; i++) {
		int n = snprintf(text + used, text_size - used, "%s%u",
		    i > 0 ? "." : "", class->id[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

void
dci_instance_id_format(const struct dci_class *class, const uint32_t *id,
    char *text, size_t text_size)
{
	size_t used = 0;

	text[0] = '\0';
	for (size_t i = 0; i < class->instance_words && used < text_size; i++) {
		int n = snprintf(text + used, text_size - used, "%s%u",
		    i > 0 ? "." : "", id[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

const char *
dci_instance_type_name(enum dci_instance_type itype)
{
	switch (itype) {
	case DCI_ITYPE_SINGLEINST:
		return "SINGLEINST";
	case DCI_ITYPE_PROCESSOR:
		return "PROCESSOR";
	case DCI_ITYPE_DISKID:
		return "DISKID";
	case DCI_ITYPE_BUCKET_NO:
		return "BUCKET_NO";
	case DCI_ITYPE_DEVICE:
		return "DEVICE";
	case DCI_ITYPE_CHANNEL:
		return "CHANNEL";
	case DCI_ITYPE_CONTROLLERID:
		return "CONTROLLERID";
	case DCI_ITYPE_IPADDR:
		return "IPADDR";
	case DCI_ITYPE_INTERFACE:
		return "INTERFACE";
	case DCI_ITYPE_EVENT:
		return "EVENT";
	}
	return "UNKNOWN";
}

struct dci_class *
dci_registry_find_class(const struct dci_registry *registry, const char *name)
{
	char id[DCI_CLASS_ID_MAX_LEVELS * 11];

	for (size_t i = 0; i < registry->class_count; i++) {
		if (strcmp(registry->classes[i]->label, name) == 0)
			return registry->classes[i];
	}
	for (size_t i = 0; i < registry->class_count; i++) {
		dci_class_id_format(registry->classes[i], id, sizeof(id));
		if (strcmp(id, name) == 0)
			return registry->classes[i];
	}
	return NULL;
}

const struct dci_datum *
dci_class_find_datum_by_name(const struct dci_class *class, const char *name)
{
	char id[11];

	for (size_t i = 0; i < class->datum_count; i++) {
		if (strcmp(class->datums[i].info.label, name) == 0)
			return &class->datums[i];
	}
	for (size_t i = 0; i < class->datum_count; i++) {
		snprintf(id, sizeof(id), "%" PRIu32, class->datums[i].info.id);
		if (strcmp(id, name) == 0)
			return &class->datums[i];
	}
	return NULL;
}

static void
format_id(const uint32_t *id, size_t length, char *text, size_t text_size)
{
	struct dci_class shape = {.id_length = length};

	memcpy(shape.id, id, length * sizeof(*id));
	dci_class_id_format(&shape, text, text_size);
}

static bool
is_prefix(const uint32_t *shorter, size_t shorter_length,
    const uint32_t *longer, size_t longer_length)
{
	return shorter_length < longer_length &&
	       memcmp(shorter, longer, shorter_length * sizeof(*shorter)) == 0;
}

static int
compare_datum_ids(const void *left, const void *right)
{
	const struct dci_datum *a = left, *b = right;

	return a->info.id < b->info.id ? -1 : a->info.id > b->info.id;
}

/* Checks the class id against the registered classes: no equal id, and no
 * class below an instantiated one (every registered class is instantiated:
 * a class without instance levels carries no data and is not registered). */
static bool
class_id_acceptable(const struct dci_registry *registry,
    const struct dci_class_info *info, const char *name, char *why,
    size_t why_size)
{
	for (size_t i = 0; i < registry->class_count; i++) {
		const struct dci_class *other = registry->classes[i];
		const char *nesting = NULL;
		char other_name[192];

		format_id(other->id, other->id_length, other_name,
		    sizeof(other_name));
		if (dci_class_id_compare(other->id, other->id_length, info->id,
		        info->id_length) == 0) {
			log_reason(why, why_size,
			    "class %s: id collides with class %s (\"%s\") of "
			    "supplier \"%s\"",
			    name, other_name, other->label,
			    other->supplier->module);
			return false;
		}
		if (is_prefix(
		        other->id, other->id_length, info->id, info->id_length))
			nesting = "subclass of instantiated class";
		else if (is_prefix(info->id, info->id_length, other->id,
		             other->id_length))
			nesting = "instantiated class above registered class";
		if (nesting != NULL) {
			log_reason(why, why_size,
			    "class %s: %s %s (\"%s\"); UMA forbids classes "
			    "below an instantiated class",
			    name, nesting, other_name, other->label);
			return false;
		}
	}
	return true;
}

static bool
class_shape_acceptable(const struct dci_class_info *info, const char *name,
    char *why, size_t why_size)
{
	char label_why[256];
	size_t words = 0;

	if (info->id == NULL || info->id_length == 0 ||
	    info->id_length > DCI_CLASS_ID_MAX_LEVELS) {
		log_reason(why, why_size,
		    "class %s: class id must have 1 to %u levels, has %zu",
		    name, DCI_CLASS_ID_MAX_LEVELS, info->id_length);
		return false;
	}
	for (size_t i = 0; i < info->id_length; i++) {
		if (info->id[i] == UINT32_MAX) {
			log_reason(why, why_size,
			    "class %s: level %zu is 2^32-1, the DCI_ALL "
			    "wildcard",
			    name, i + 1);
			return false;
		}
	}
	if (!dci_registry_label_valid(
	        info->label, label_why, sizeof(label_why))) {
		log_reason(why, why_size, "class %s: %s", name, label_why);
		return false;
	}
	if (info->levels == NULL || info->level_count == 0) {
		log_reason(why, why_size,
		    "class %s: no instance levels (use one level of type "
		    "DCI_ITYPE_SINGLEINST for a single instance)",
		    name);
		return false;
	}
	for (size_t i = 0; i < info->level_count; i++) {
		uint32_t size = info->levels[i].size;
		if (size == 0 || size % 4 != 0) {
			log_reason(why, why_size,
			    "class %s: instance level %zu has size %u, not a "
			    "positive multiple of 4 bytes",
			    name, i + 1, size);
			return false;
		}
		words += size / 4;
	}
	if (words > DCI_INSTANCE_ID_MAX_WORDS) {
		log_reason(why, why_size,
		    "class %s: instance id of %zu words is longer than %u",
		    name, words, DCI_INSTANCE_ID_MAX_WORDS);
		return false;
	}
	if (info->datums == NULL || info->datum_count == 0) {
		log_reason(why, why_size, "class %s: no datums", name);
		return false;
	}
	return true;
}

static bool
is_integer_datum(const struct dci_datum *datum)
{
	return datum->info.type >= DCI_ST_INTEGER8 &&
	       datum->info.type <= DCI_ST_INTEGER64;
}

/* A derived datum as its provider declared it: the registry sets the
 * fields it leaves 0 (derived_resolve). */
static bool
derived_declaration_valid(
    const struct dci_datum_info *source, char *why, size_t why_size)
{
	if (dci_derived_arity(source->unit) == 0) {
		log_reason(why, why_size,
		    "unit %u is not a derivation (DCI_UNIT_DERIVED_*)",
		    (unsigned)source->unit);
		return false;
	}
	if (source->format != 0 || source->presentation != 0 ||
	    source->size != 0 || source->semantics != 0) {
		log_reason(why, why_size,
		    "format, presentation, size and semantics of a derived "
		    "datum must be 0 (the host sets them)");
		return false;
	}
	if ((source->id & 0xffu) == 0) {
		log_reason(why, why_size,
		    "the low 8 bits of a derived datum's id (its own number) "
		    "must not be 0");
		return false;
	}
	return true;
}

/* Finds the arguments of derived datum `position` (the datums are sorted)
 * and sets its type fields; `why` names the argument at fault. */
static bool
derived_resolve(
    struct dci_class *class, size_t position, char *why, size_t why_size)
{
	struct dci_datum *derived = &class->datums[position];
	enum dci_unit derivation = derived->info.unit;
	size_t arity = dci_derived_arity(derivation);
	bool all_unsigned = true, all_counters = true;
	uint32_t volatility = DCI_SV_STATIC;

	for (size_t a = 0; a < DCI_DERIVED_ARGUMENTS_MAX; a++) {
		uint32_t byte = dci_derived_argument_byte(derived->info.id, a);
		const struct dci_datum *argument = NULL;

		if (a >= arity) {
			if (byte != 0) {
				log_reason(why, why_size,
				    "%s takes %zu arguments, but argument %zu "
				    "is 0x%02x (must be 0)",
				    dci_value_unit_name(derivation), arity,
				    a + 1, byte);
				return false;
			}
			continue;
		}
		for (size_t d = 0; d < class->datum_count; d++) {
			const struct dci_datum *other = &class->datums[d];
			if (other->info.type == DCI_ST_DERIVED ||
			    (other->info.id & 0xffu) != byte)
				continue;
			if (argument != NULL) {
				log_reason(why, why_size,
				    "argument %zu (0x%02x) names both datum "
				    "%u (\"%s\") and datum %u (\"%s\")",
				    a + 1, byte, argument->info.id,
				    argument->info.label, other->info.id,
				    other->info.label);
				return false;
			}
			argument = other;
		}
		if (argument == NULL) {
			log_reason(why, why_size,
			    "argument %zu (0x%02x) names no datum of the "
			    "class (the low 8 bits of a datum id)",
			    a + 1, byte);
			return false;
		}
		if (!is_integer_datum(argument)) {
			log_reason(why, why_size,
			    "argument %zu is datum %u (\"%s\"), a %s, not "
			    "an integer",
			    a + 1, argument->info.id, argument->info.label,
			    dci_value_type_name(argument->info.type));
			return false;
		}
		derived->arguments[a] = argument->index;
		all_unsigned &= (argument->info.format & DCI_SIF_UNSIGNED) != 0;
		all_counters &=
		    argument->info.semantics == DCI_SEMANTICS_COUNTER;
		if (argument->info.volatility > volatility)
			volatility = argument->info.volatility;
	}
	derived->info.format = all_unsigned && !dci_derived_is_ratio(derivation)
	                           ? DCI_SIF_UNSIGNED
	                           : 0;
	derived->info.size = dci_value_natural_size(DCI_ST_DERIVED, 0);
	derived->wraps =
	    all_counters && (derivation == DCI_UNIT_DERIVED_SUM2 ||
	                        derivation == DCI_UNIT_DERIVED_SUM3);
	derived->info.semantics =
	    derived->wraps ? DCI_SEMANTICS_COUNTER : DCI_SEMANTICS_GAUGE;
	derived->info.volatility = volatility;
	return dci_value_check_datum(&derived->info, why, why_size) == 0;
}

/* An unsigned 8- or 16-bit counter: served as a 32-bit counter the host
 * widens (struct dci_datum's provided_size). A signed counter is served
 * as Integer32, which has no wrap to extend. */
static bool
datum_widened(const struct dci_datum_info *info)
{
	return (info->type == DCI_ST_INTEGER8 ||
	           info->type == DCI_ST_INTEGER16) &&
	       (info->format & DCI_SIF_UNSIGNED) != 0 &&
	       info->semantics == DCI_SEMANTICS_COUNTER;
}

/* The lookup table of the class's small datum ids (struct dci_class's
 * datum_lookup): as large as the largest id below the bound, which a few
 * entries per datum keep small for the sparse ids of a large class. Out
 * of memory leaves it NULL: lookups are searched then. */
static void
datum_lookup_build(struct dci_class *class)
{
	size_t bound = 4 * class->datum_count + 64, size = 0;

	for (size_t i = 0; i < class->datum_count; i++)
		if (class->datums[i].info.id < bound)
			size = (size_t) class->datums[i].info.id + 1;
	class->datum_lookup = malloc(size * sizeof(*class->datum_lookup));
	if (class->datum_lookup == NULL)
		return;
	for (size_t id = 0; id < size; id++)
		class->datum_lookup[id] =
		    (struct dci_datum_lookup){.index = UINT32_MAX};
	for (size_t i = 0; i < class->datum_count; i++) {
		const struct dci_datum *datum = &class->datums[i];
		struct dci_datum_info provided = datum->info;
		struct dci_datum_lookup *entry;

		if (datum->info.id >= size)
			continue;
		entry = &class->datum_lookup[datum->info.id];
		*entry = (struct dci_datum_lookup){
		    .index = (uint32_t)i, .offset = datum->offset};
		if (datum->provided_size != 0) {
			provided.type = datum->provided_type;
			provided.size = datum->provided_size;
		}
		if (!dci_value_number_layout(&provided, &entry->number))
			entry->number.width = 0;
		dci_value_bytes_layout(&provided, &entry->bytes);
	}
	class->datum_lookup_size = size;
}

static int
datums_copy(struct dci_class *class, const struct dci_class_info *info,
    const char *name, char *why, size_t why_size)
{
	char datum_why[256];
	size_t offset = 0;

	class->datums = calloc(info->datum_count, sizeof(*class->datums));
	if (class->datums == NULL) {
		log_reason(why, why_size, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < info->datum_count; i++) {
		const struct dci_datum_info *source = &info->datums[i];
		struct dci_datum *datum = &class->datums[i];
		char quoted[64];

		datum->info = *source;
		datum->info.label = NULL;
		datum->info.description = NULL;
		class->datum_count = i + 1;
		if (source->id < DCI_DATUM_ID_MIN ||
		    source->id > DCI_DATUM_ID_MAX) {
			log_reason(why, why_size,
			    "class %s: datum %zu (\"%s\") has id %u, outside "
			    "1..2^32-2",
			    name, i + 1,
			    dci_text_quote(quoted, sizeof(quoted),
			        source->label ? source->label : ""),
			    source->id);
			return -1;
		}
		if (!dci_registry_label_valid(
		        source->label, datum_why, sizeof(datum_why))) {
			log_reason(why, why_size, "class %s: datum %u: %s",
			    name, source->id, datum_why);
			return -1;
		}
		if (source->type == DCI_ST_DERIVED) {
			if (!derived_declaration_valid(
			        source, datum_why, sizeof(datum_why))) {
				log_reason(why, why_size,
				    "class %s: datum %u (\"%s\"): %s", name,
				    source->id, source->label, datum_why);
				return -1;
			}
			class->derived_count++;
		} else if (datum->info.size == 0)
			datum->info.size = dci_value_natural_size(
			    source->type, source->format);
		if (source->type != DCI_ST_DERIVED &&
		    dci_value_check_datum(
		        &datum->info, datum_why, sizeof(datum_why)) != 0) {
			log_reason(why, why_size,
			    "class %s: datum %u (\"%s\"): %s", name, source->id,
			    source->label, datum_why);
			return -1;
		}
		if (datum_widened(&datum->info)) {
			datum->provided_type = datum->info.type;
			datum->provided_size = datum->info.size;
			datum->info.type = DCI_ST_INTEGER32;
			datum->info.size =
			    dci_value_natural_size(DCI_ST_INTEGER32, 0);
			class->widened_count++;
		}
		datum->info.label = strdup(source->label);
		datum->info.description = copy_text(source->description);
		if (datum->info.label == NULL ||
		    datum->info.description == NULL) {
			log_reason(why, why_size, "out of memory");
			return -1;
		}
	}
	qsort(class->datums, class->datum_count, sizeof(*class->datums),
	    compare_datum_ids);
	for (size_t i = 0; i < class->datum_count; i++) {
		struct dci_datum *datum = &class->datums[i];

		if (i > 0 && datum->info.id == class->datums[i - 1].info.id) {
			log_reason(why, why_size,
			    "class %s: datum id %u used by both \"%s\" and "
			    "\"%s\"",
			    name, datum->info.id,
			    class->datums[i - 1].info.label, datum->info.label);
			return -1;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(class->datums[j].info.label,
			        datum->info.label) == 0) {
				log_reason(why, why_size,
				    "class %s: datum label \"%s\" used by "
				    "datums %u and %u",
				    name, datum->info.label,
				    class->datums[j].info.id, datum->info.id);
				return -1;
			}
		}
		datum->index = (uint32_t)i;
	}
	for (size_t i = 0; i < class->datum_count; i++) {
		struct dci_datum *datum = &class->datums[i];

		if (datum->info.type == DCI_ST_DERIVED &&
		    !derived_resolve(class, i, datum_why, sizeof(datum_why))) {
			log_reason(why, why_size,
			    "class %s: derived datum %u (\"%s\"): %s", name,
			    datum->info.id, datum->info.label, datum_why);
			return -1;
		}
		datum->kind = dci_value_kind(&datum->info);
		/* Slots are 8-byte aligned so that any value can be read in
		 * place. */
		datum->offset = (uint32_t)offset;
		offset += (datum->info.size + 7u) & ~(size_t)7u;
		if (datum->kind != DCI_KIND_NONE)
			class->kind_mask |= 1u << datum->kind;
		if (datum->info.semantics == DCI_SEMANTICS_COUNTER)
			class->has_counters = true;
	}
	class->record_size = offset;
	class->present_size = (class->datum_count + 7) / 8;
	datum_lookup_build(class);
	return 0;
}

/* Orders class ids by their levels alone (a shorter id that is a prefix
 * sorts first, which never happens between registered classes). */
static int
class_levels_compare(const uint32_t *left, size_t left_length,
    const uint32_t *right, size_t right_length)
{
	for (size_t i = 0; i < left_length && i < right_length; i++)
		if (left[i] != right[i])
			return left[i] < right[i] ? -1 : 1;
	return left_length < right_length ? -1 : left_length > right_length;
}

/* Inserts `class` into `classes` (count entries, room for one more), in
 * length-prefixed order or by levels alone. */
static void
classes_insert(struct dci_class **classes, size_t count,
    struct dci_class *class, bool length_prefixed)
{
	size_t position;

	for (position = 0; position < count; position++) {
		const struct dci_class *other = classes[position];
		int order =
		    length_prefixed
		        ? dci_class_id_compare(class->id, class->id_length,
		              other->id, other->id_length)
		        : class_levels_compare(class->id, class->id_length,
		              other->id, other->id_length);
		if (order < 0)
			break;
	}
	memmove(&classes[position + 1], &classes[position],
	    (count - position) * sizeof(*classes));
	classes[position] = class;
}

struct dci_class *
dci_registry_add_class(struct dci_registry *registry,
    struct dci_supplier *supplier, const struct dci_class_info *info,
    void *owner, char *why, size_t why_size)
{
	struct dci_class *class, **grown;
	char name[256];

	if (info == NULL || supplier == NULL) {
		log_reason(why, why_size, "class registered without %s",
		    info == NULL ? "a description" : "a supplier");
		return NULL;
	}
	if (info->id != NULL && info->id_length > 0 &&
	    info->id_length <= DCI_CLASS_ID_MAX_LEVELS)
		format_id(info->id, info->id_length, name, sizeof(name));
	else {
		char quoted[sizeof(name) - 2];
		snprintf(name, sizeof(name), "\"%s\"",
		    dci_text_quote(quoted, sizeof(quoted),
		        info->label ? info->label : ""));
	}
	if (!class_shape_acceptable(info, name, why, why_size) ||
	    !class_id_acceptable(registry, info, name, why, why_size))
		return NULL;

	class = calloc(1, sizeof(*class));
	if (class == NULL) {
		log_reason(why, why_size, "out of memory");
		return NULL;
	}
	memcpy(class->id, info->id, info->id_length * sizeof(*info->id));
	class->id_length = info->id_length;
	class->supplier = supplier;
	class->owner = owner;
	class->label = strdup(info->label);
	class->description = copy_text(info->description);
	class->levels = calloc(info->level_count, sizeof(*class->levels));
	if (class->label == NULL || class->description == NULL ||
	    class->levels == NULL) {
		log_reason(why, why_size, "out of memory");
		class_free(class);
		return NULL;
	}
	memcpy(class->levels, info->levels,
	    info->level_count * sizeof(*info->levels));
	class->level_count = info->level_count;
	for (size_t i = 0; i < info->level_count; i++)
		class->instance_words += info->levels[i].size / 4;
	if (datums_copy(class, info, name, why, why_size) != 0) {
		class_free(class);
		return NULL;
	}

	grown = realloc(registry->classes_by_levels,
	    (registry->class_count + 1) * sizeof(*grown));
	if (grown != NULL) {
		registry->classes_by_levels = grown;
		grown = realloc(registry->classes,
		    (registry->class_count + 1) * sizeof(*grown));
	}
	if (grown == NULL) {
		log_reason(why, why_size, "out of memory");
		class_free(class);
		return NULL;
	}
	registry->classes = grown;
	classes_insert(registry->classes, registry->class_count, class, true);
	classes_insert(
	    registry->classes_by_levels, registry->class_count, class, false);
	registry->class_count++;
	dci_registry_changed();
	return class;
}

struct datum_search {
	const struct dci_class *class;
	uint32_t id;
};

static bool
datum_before_id(const void *context, size_t position)
{
	const struct datum_search *search = context;

	return search->class->datums[position].info.id < search->id;
}

const struct dci_datum *
dci_class_search_datum(const struct dci_class *class, uint32_t datum_id)
{
	struct datum_search search = {class, datum_id};
	size_t position =
	    dci_lower_bound(class->datum_count, datum_before_id, &search);

	if (position < class->datum_count &&
	    class->datums[position].info.id == datum_id)
		return &class->datums[position];
	return NULL;
}
