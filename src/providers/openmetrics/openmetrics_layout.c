/*
 * openmetrics_layout: see openmetrics_layout.h.
 */
#define _GNU_SOURCE

#include "openmetrics_layout.h"
#include "format/datum_forms.h"
#include "openmetrics_series.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A 64-bit number of a series: a counter, or a gauge that may be
 * negative. */
static struct dci_datum_info
datum_integer(uint32_t id, const char *label, bool is_signed,
    enum dci_semantics semantics, const char *description)
{
	return (struct dci_datum_info)DATUM_INFO(id, label, DCI_ST_INTEGER64,
	    is_signed ? 0 : DCI_SIF_UNSIGNED, DCI_SIP_DECIMAL, 0,
	    DCI_SV_VOLATILE, DCI_UNIT_NONE, semantics, description);
}

/* A NUL-terminated string of at most `size` bytes, NUL included. */
static struct dci_datum_info
datum_string(
    uint32_t id, const char *label, uint32_t size, const char *description)
{
	return (struct dci_datum_info)DATUM_INFO(id, label, DCI_ST_STRING,
	    DCI_SSF_ZEROTERM, DCI_SSP_LITERAL, size, DCI_SV_VOLATILE,
	    DCI_UNIT_NONE, DCI_SEMANTICS_DISCRETE, description);
}

/* The series' _created moment. */
static struct dci_datum_info
datum_created(uint32_t id)
{
	return (struct dci_datum_info)DATUM_INFO(id, "created", DCI_ST_TIME,
	    DCI_STF_CTIME, DCI_STP_ABSOLUTE, 0, DCI_SV_VARIABLE, DCI_UNIT_NONE,
	    DCI_SEMANTICS_DISCRETE, "When the series was created (_created)");
}

/* "p50", "p99_9" for n = round(q * 10000). */
static void
quantile_label(uint32_t n, bool text, char *out, size_t size)
{
	uint32_t whole = n / 100, fraction = n % 100;
	if (fraction == 0)
		snprintf(
		    out, size, "p%" PRIu32 "%s", whole, text ? "_text" : "");
	else if (fraction % 10 == 0)
		snprintf(out, size, "p%" PRIu32 "_%" PRIu32 "%s", whole,
		    fraction / 10, text ? "_text" : "");
	else
		snprintf(out, size, "p%" PRIu32 "_%02" PRIu32 "%s", whole,
		    fraction, text ? "_text" : "");
}

bool
om_quantile_number(double q, uint32_t *n)
{
	if (!(q >= 0.0 && q <= 1.0))
		return false;
	*n = (uint32_t)lround(q * 10000.0);
	return true;
}

/* "<target>_<family>", ':' and '-' made '_', cut with a hash past the
 * limit. */
static void
class_label(const struct om_family_layout *layout, const char *suffix,
    char *out, size_t size)
{
	const struct om_family *family = layout->family;
	char full[OM_CLASS_LABEL_MAX + 1];
	size_t name_length = strlen(layout->target_name);
	size_t length = name_length + 1 + family->name_length;

	if (length <= OM_CLASS_LABEL_MAX) {
		memcpy(full, layout->target_name, name_length);
		full[name_length] = '_';
		memcpy(
		    full + name_length + 1, family->name, family->name_length);
		full[length] = '\0';
	} else {
		/* The start of both, then the family's hash: 40 characters. */
		size_t keep = OM_CLASS_LABEL_MAX - 9 - name_length - 1;
		memcpy(full, layout->target_name, name_length);
		full[name_length] = '_';
		memcpy(full + name_length + 1, family->name, keep);
		uint32_t hash = om_fnv1a32(family->name, family->name_length);
		for (int i = 0; i < 8; i++)
			full[OM_CLASS_LABEL_MAX - 1 - i] =
			    "0123456789abcdef"[(hash >> (4 * i)) & 15];
		full[OM_CLASS_LABEL_MAX - 9] = '_';
		full[OM_CLASS_LABEL_MAX] = '\0';
	}
	for (char *c = full; *c != '\0'; c++)
		if (*c == ':' || *c == '-')
			*c = '_';
	if (snprintf(out, size, "%s%s", full, suffix) < 0)
		out[0] = '\0';
}

/* A HELP text as a description: printable ASCII but quotes. */
static void
description_copy(const char *help, char *out, size_t size)
{
	size_t i = 0;
	if (help == NULL) {
		out[0] = '\0';
		return;
	}
	for (; help[i] != '\0' && i + 1 < size; i++) {
		unsigned char c = (unsigned char)help[i];
		out[i] = c < 0x20 || c > 0x7e || c == '"' || c == '\\'
		             ? '_'
		             : (char)c;
	}
	out[i] = '\0';
}

static void
class_id(const struct om_family_layout *layout, uint32_t kind,
    uint32_t id[OM_CLASS_ID_LENGTH])
{
	id[0] = OM_CLASS_ARC;
	id[1] = layout->target_word;
	id[2] = (uint32_t)(layout->family_hash >> 32);
	id[3] = (uint32_t)layout->family_hash;
	id[4] = kind;
}

int
om_layout_register_family(struct dci_host *host, struct dci_supplier *supplier,
    const struct om_family_layout *layout, struct dci_class **values,
    struct dci_class **buckets)
{
	const struct om_family *family = layout->family;
	static const struct dci_instance_level series_level[] = {
	    {.itype = DCI_ITYPE_CHANNEL, .size = 8}};
	static const struct dci_instance_level bucket_levels[] = {
	    {.itype = DCI_ITYPE_CHANNEL, .size = 8},
	    {.itype = DCI_ITYPE_BUCKET_NO, .size = 4}};
	struct dci_datum_info datums[4 + 2 * OM_QUANTILES_MAX];
	char quantile_labels[2 * OM_QUANTILES_MAX][24];
	char label[OM_CLASS_LABEL_MAX + 8], description[DCI_LABEL_MAX + 1];
	uint32_t id[OM_CLASS_ID_LENGTH];
	size_t count = 0;
	bool gauge_histogram = family->type == OM_TYPE_GAUGEHISTOGRAM;

	switch (family->type) {
	case OM_TYPE_COUNTER:
		datums[count++] = datum_integer(1, "total", false,
		    DCI_SEMANTICS_COUNTER, "The counter (rounded down)");
		datums[count++] = datum_string(2, "total_text",
		    OM_VALUE_TEXT_MAX + 1, "The counter as scraped");
		datums[count++] = datum_created(3);
		break;
	case OM_TYPE_GAUGE:
	case OM_TYPE_UNKNOWN:
		datums[count++] = datum_integer(1, "value", true,
		    DCI_SEMANTICS_GAUGE, "The value (rounded)");
		datums[count++] = datum_string(2, "value_text",
		    OM_VALUE_TEXT_MAX + 1, "The value as scraped");
		break;
	case OM_TYPE_INFO:
		datums[count++] = datum_string(
		    1, "info", OM_INFO_SIZE, "The info labels, joined");
		break;
	case OM_TYPE_STATESET:
		datums[count++] = (struct dci_datum_info)DATUM_INFO(1, "state",
		    DCI_ST_BOOLEAN, DCI_SBF_NORMAL, DCI_SBP_TRUE_FALSE, 0,
		    DCI_SV_VOLATILE, DCI_UNIT_NONE, DCI_SEMANTICS_DISCRETE,
		    "Whether the state is set");
		break;
	case OM_TYPE_HISTOGRAM:
	case OM_TYPE_GAUGEHISTOGRAM:
	case OM_TYPE_SUMMARY:
		datums[count++] = datum_integer(1, "count", false,
		    gauge_histogram ? DCI_SEMANTICS_GAUGE
		                    : DCI_SEMANTICS_COUNTER,
		    "Samples observed");
		datums[count++] = datum_integer(2, "sum", true,
		    DCI_SEMANTICS_GAUGE, "Sum of the samples (rounded)");
		datums[count++] = datum_string(3, "sum_text",
		    OM_VALUE_TEXT_MAX + 1, "Sum of the samples as scraped");
		if (!gauge_histogram)
			datums[count++] = datum_created(4);
		for (size_t q = 0; q < layout->quantile_count; q++) {
			uint32_t n = layout->quantiles[q];
			quantile_label(n, false, quantile_labels[2 * q], 24);
			quantile_label(n, true, quantile_labels[2 * q + 1], 24);
			datums[count++] =
			    datum_integer(OM_QUANTILE_DATUM_BASE + 2 * n,
			        quantile_labels[2 * q], true,
			        DCI_SEMANTICS_GAUGE, "The quantile (rounded)");
			datums[count++] = datum_string(
			    OM_QUANTILE_DATUM_BASE + 2 * n + 1,
			    quantile_labels[2 * q + 1], OM_VALUE_TEXT_MAX + 1,
			    "The quantile as scraped");
		}
		break;
	}
	class_label(layout, "", label, sizeof(label));
	description_copy(family->help, description, sizeof(description));
	class_id(layout, OM_KIND_VALUES, id);
	struct dci_class_info info = CLASS_INFO(id, OM_CLASS_ID_LENGTH, label,
	    description[0] != '\0' ? description : NULL, series_level, 1,
	    datums, count);
	*buckets = NULL;
	*values = dci_class_register(host, supplier, &info);
	if (*values == NULL)
		return -1;
	if (family->type != OM_TYPE_HISTOGRAM &&
	    family->type != OM_TYPE_GAUGEHISTOGRAM)
		return 0;
	count = 0;
	datums[count] = datum_string(1, "lower", OM_VALUE_TEXT_MAX + 1,
	    "The bucket counts samples above this bound");
	datums[count++].volatility = DCI_SV_STATIC;
	datums[count] = datum_string(2, "upper", OM_VALUE_TEXT_MAX + 1,
	    "The bucket counts samples up to this bound (le)");
	datums[count++].volatility = DCI_SV_STATIC;
	datums[count++] = datum_integer(3, "count", false,
	    gauge_histogram ? DCI_SEMANTICS_GAUGE : DCI_SEMANTICS_COUNTER,
	    "Samples in the bucket");
	datums[count++] = datum_integer(4, "cumulative", false,
	    gauge_histogram ? DCI_SEMANTICS_GAUGE : DCI_SEMANTICS_COUNTER,
	    "Samples up to the upper bound (le), as scraped");
	class_label(layout, "_hist", label, sizeof(label));
	class_id(layout, OM_KIND_BUCKETS, id);
	info.id = id;
	info.levels = bucket_levels;
	info.level_count = 2;
	info.datum_count = count;
	*buckets = dci_class_register(host, supplier, &info);
	return *buckets != NULL ? 0 : -1;
}

static const uint32_t om_status_class_id[] = {OM_CLASS_ARC, 1};

struct dci_class *
om_layout_register_status(struct dci_host *host, struct dci_supplier **supplier)
{
	static const struct dci_instance_level levels[] = {
	    {.itype = DCI_ITYPE_DEVICE, .size = 4}};
	struct dci_datum_info datums[] = {
	    datum_string(OM_STATUS_NAME, "name", OM_TARGET_NAME_MAX + 1,
	        "The target's name (its supplier module)"),
	    datum_string(OM_STATUS_URL, "url", OM_URL_SIZE, "What is scraped"),
	    DATUM_INFO(OM_STATUS_UP, "up", DCI_ST_BOOLEAN, DCI_SBF_NORMAL,
	        DCI_SBP_YES_NO, 0, DCI_SV_VOLATILE, DCI_UNIT_NONE,
	        DCI_SEMANTICS_DISCRETE,
	        "Whether the target's rows were committed at the last refresh"),
	    datum_string(OM_STATUS_TEXT, "status", OM_STATUS_SIZE,
	        "ok, late, or why the last scrape was not served"),
	    DATUM_FORM_MOMENT(OM_STATUS_LAST_SUCCESS, "last_success",
	        DCI_SV_VOLATILE, DCI_UNIT_NONE,
	        "When a scrape was last served"),
	    DATUM_FORM_GAUGE32(OM_STATUS_FAMILIES, "families", DCI_UNIT_COUNT,
	        "Families in the last scrape served"),
	    DATUM_FORM_GAUGE32(OM_STATUS_SERIES, "series", DCI_UNIT_COUNT,
	        "Label sets in the last scrape served"),
	    DATUM_FORM_GAUGE32(OM_STATUS_BODY_BYTES, "body_bytes",
	        DCI_UNIT_BYTES, "Size of the last body read"),
	    DATUM_FORM_GAUGE32(OM_STATUS_SCRAPE_MICROSECONDS, "scrape_time",
	        DCI_UNIT_MICROSECONDS,
	        "Wall time of the last scrape served, "
	        "reading, parsing and committing"),
	    datum_integer(OM_STATUS_SCRAPES, "scrapes", false,
	        DCI_SEMANTICS_COUNTER, "Scrapes tried"),
	    datum_integer(OM_STATUS_FAILURES, "failures", false,
	        DCI_SEMANTICS_COUNTER, "Scrapes not served"),
	    datum_integer(OM_STATUS_LATE, "late", false, DCI_SEMANTICS_COUNTER,
	        "Refreshes that ended with the target's scrape still running"),
	};
	struct dci_supplier_info supplier_info = {.module = "openmetrics",
	    .title = "OpenMetrics scrapes",
	    .description = "The state of each scrape target",
	    .version = 100};
	struct dci_class_info info = CLASS_INFO(om_status_class_id, 2,
	    "openmetrics_targets", "One row per scrape target", levels, 1,
	    datums, FORM_ELEMENTS(datums));

	*supplier = dci_supplier_register(host, &supplier_info);
	if (*supplier == NULL)
		return NULL;
	return dci_class_register(host, *supplier, &info);
}
