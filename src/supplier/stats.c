/*
 * libdcistat-supplier: stats(3) variables of interest.
 *
 * A template numbered T holds VOIs; each VOI V is served as two classes:
 * {.., 3, T, V, 1}, one instance per blob with the VOI's samples, sum,
 * maximum, minimum and out-of-band count, and, with a histogram,
 * {.., 3, T, V, 2}, one instance per (blob, bucket number) (UMA_BUCKET_NO)
 * with the bucket's bounds and count, so a manager walks a distribution.
 * With a t-digest, {.., 3, T, V, 3}, one instance per blob with the
 * quantiles p50, p90 and p99 (format/tdigest.h; segment.h's TDIGEST).
 * One block per (blob, VOI) holds all of it under one sequence: a reader
 * never sees a sample in a bucket and not in the sum. A block is
 * [sequence, summary, buckets, digest lock, digest].
 *
 * Updates follow stats(3): an absolute update's value is the sample; a
 * relative update changes the VOI's value by its delta (threads adding
 * deltas at once lose none) and the new value is the sample. A sample
 * outside every bucket counts in out_of_band.
 */
#define _GNU_SOURCE

#include "supplier/supplier_internal.h"

#include "format/datum_forms.h"
#include "format/tdigest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dcistat_templates_free_all(struct dcistat_supplier *supplier);

enum summary_word {
	SUMMARY_SAMPLES = 0,
	SUMMARY_SUM = 1,
	SUMMARY_MAX = 2,
	SUMMARY_MIN = 3,
	SUMMARY_OUT_OF_BAND = 4,
	SUMMARY_WORDS = 5,
};
/* A bucket's words in its histogram instance: lower, upper, count. */
#define BUCKET_WORDS 3u
#define BUCKET_COUNT_WORD 2u

struct template_voi {
	uint32_t id;
	char *name;
	bool is_signed;
	unsigned statistics;
	enum dcistat_histogram_kind kind;
	bool wide;
	/* Buckets in ascending order: continuous [lower, next lower) up to
	 * `high`; discrete range [lower, upper]; discrete value lower. */
	int64_t *lower;
	int64_t *upper;
	uint32_t bucket_count;
	int64_t high;
	struct dcistat_class *summary_class;
	struct dcistat_class *histogram_class;
	struct dcistat_class *quantile_class; /* with DCISTAT_VOI_TDIGEST */
	uint32_t digest_lock; /* block word of the digest's lock; 0: none */
	uint32_t block_words;
};

/* The quantiles a VOI's t-digest is served as (segment.h: the datum id
 * names the quantile). */
static const struct {
	uint32_t id;
	const char *label;
	const char *description;
} voi_quantiles[] = {
    {DCISTAT_SEGMENT_QUANTILE_BASE + 5000, "p50",
        "Median of the samples (t-digest estimate)"},
    {DCISTAT_SEGMENT_QUANTILE_BASE + 9000, "p90",
        "90th percentile of the samples (t-digest estimate)"},
    {DCISTAT_SEGMENT_QUANTILE_BASE + 9900, "p99",
        "99th percentile of the samples (t-digest estimate)"},
};
#define VOI_QUANTILES (sizeof voi_quantiles / sizeof voi_quantiles[0])

struct dcistat_template {
	struct dcistat_supplier *supplier;
	uint32_t number;
	char *name;
	struct template_voi *vois;
	size_t voi_count;
	struct dcistat_blob *blobs;
	struct dcistat_template *next;
};

struct blob_voi {
	uint32_t block;
	int64_t value; /* for relative updates, atomically */
	struct dcistat_instance *summary;
	struct dcistat_instance **buckets;
	struct dcistat_instance *quantiles;
};

struct dcistat_blob {
	struct dcistat_template *template_handle;
	struct dcistat_supplier *supplier;
	uint32_t id;
	struct blob_voi *vois;
	struct dcistat_blob *next;
};

/* --- Bucket layouts --- */

static int
buckets_push(struct template_voi *voi, int64_t lower, int64_t upper)
{
	if (voi->bucket_count == DCISTAT_HISTOGRAM_BUCKETS_MAX)
		return dcistat_fail(EINVAL,
		    "VOI \"%s\": more than %u buckets", voi->name,
		    DCISTAT_HISTOGRAM_BUCKETS_MAX);
	voi->lower[voi->bucket_count] = lower;
	voi->upper[voi->bucket_count] = upper;
	voi->bucket_count++;
	return 0;
}

static int
buckets_continuous(
    struct template_voi *voi, const struct dcistat_histogram *histogram)
{
	int64_t low = histogram->low, high = histogram->high;

	if (histogram->layout != DCISTAT_LAYOUT_USER && low >= high)
		return dcistat_fail(EINVAL, "VOI \"%s\": low %" PRId64
		                            " is not below high %" PRId64,
		    voi->name, low, high);
	voi->high = high;
	switch (histogram->layout) {
	case DCISTAT_LAYOUT_USER:
		if (histogram->lower == NULL || histogram->count == 0)
			return dcistat_fail(EINVAL,
			    "VOI \"%s\": user buckets need lower bounds",
			    voi->name);
		for (size_t i = 0; i < histogram->count; i++) {
			if ((i > 0 && histogram->lower[i] <=
			                  histogram->lower[i - 1]) ||
			    histogram->lower[i] >= high)
				return dcistat_fail(EINVAL,
				    "VOI \"%s\": lower bounds must ascend "
				    "below high",
				    voi->name);
			if (buckets_push(voi, histogram->lower[i], 0) != 0)
				return -1;
		}
		break;
	case DCISTAT_LAYOUT_LINEAR:
		if (histogram->step <= 0)
			return dcistat_fail(
			    EINVAL, "VOI \"%s\": step must be > 0", voi->name);
		for (int64_t b = low; b < high;) {
			if (buckets_push(voi, b, 0) != 0)
				return -1;
			if (b > high - histogram->step)
				break;
			b += histogram->step;
		}
		break;
	case DCISTAT_LAYOUT_EXPONENTIAL:
	case DCISTAT_LAYOUT_LINEAR_EXPONENTIAL: {
		int64_t steps = histogram->layout == DCISTAT_LAYOUT_EXPONENTIAL
		                    ? 1
		                    : histogram->step;
		if (low <= 0 || histogram->base < 2 || steps <= 0)
			return dcistat_fail(EINVAL,
			    "VOI \"%s\": exponential buckets need low > 0, "
			    "base >= 2 and steps > 0",
			    voi->name);
		for (int64_t power = low; power < high;) {
			int64_t next = power > high / histogram->base
			                   ? high
			                   : power * histogram->base;
			int64_t width = (next - power) / steps;
			if (width < 1)
				width = 1;
			for (int64_t b = power; b < next && b < high;
			     b += width) {
				if (buckets_push(voi, b, 0) != 0)
					return -1;
				if (b > next - width)
					break;
			}
			power = next;
		}
		break;
	}
	default:
		return dcistat_fail(EINVAL, "VOI \"%s\": unknown layout %u",
		    voi->name, (unsigned)histogram->layout);
	}
	for (uint32_t i = 0; i < voi->bucket_count; i++)
		voi->upper[i] =
		    i + 1 < voi->bucket_count ? voi->lower[i + 1] : high;
	return 0;
}

static int
bucket_compare(const void *left, const void *right)
{
	const int64_t *a = left, *b = right;
	return (a[0] > b[0]) - (a[0] < b[0]);
}

static int
buckets_discrete(
    struct template_voi *voi, const struct dcistat_histogram *histogram)
{
	int64_t pairs[DCISTAT_HISTOGRAM_BUCKETS_MAX][2];
	bool range = histogram->kind == DCISTAT_HISTOGRAM_DISCRETE_RANGE;

	if (histogram->lower == NULL || histogram->count == 0 ||
	    histogram->count > DCISTAT_HISTOGRAM_BUCKETS_MAX ||
	    (range && histogram->upper == NULL))
		return dcistat_fail(EINVAL,
		    "VOI \"%s\": discrete buckets need 1..%u %s", voi->name,
		    DCISTAT_HISTOGRAM_BUCKETS_MAX, range ? "ranges" : "values");
	for (size_t i = 0; i < histogram->count; i++) {
		pairs[i][0] = histogram->lower[i];
		pairs[i][1] = range ? histogram->upper[i] : histogram->lower[i];
		if (pairs[i][1] < pairs[i][0])
			return dcistat_fail(EINVAL,
			    "VOI \"%s\": range %zu ends before it begins",
			    voi->name, i);
	}
	qsort(pairs, histogram->count, sizeof(pairs[0]), bucket_compare);
	for (size_t i = 0; i < histogram->count; i++) {
		if (i > 0 && pairs[i][0] <= pairs[i - 1][1])
			return dcistat_fail(EINVAL,
			    "VOI \"%s\": buckets overlap", voi->name);
		buckets_push(voi, pairs[i][0], pairs[i][1]);
	}
	return 0;
}

/* The bucket of `value`, or -1: out of band. */
static int
bucket_find(const struct template_voi *voi, int64_t value)
{
	uint32_t low = 0, high = voi->bucket_count;

	if (voi->bucket_count == 0 || value < voi->lower[0])
		return -1;
	while (high - low > 1) {
		uint32_t middle = low + (high - low) / 2;
		if (voi->lower[middle] <= value)
			low = middle;
		else
			high = middle;
	}
	if (voi->kind == DCISTAT_HISTOGRAM_CONTINUOUS)
		return value < voi->upper[low] ? (int)low : -1;
	return value <= voi->upper[low] ? (int)low : -1;
}

/* --- Classes --- */

static struct dci_datum_info
integer_datum(uint32_t id, const char *label, bool is_signed, bool wide,
    enum dci_unit unit, enum dci_semantics semantics, const char *text)
{
	return (struct dci_datum_info)DATUM_INFO(id, label,
	    wide ? DCI_ST_INTEGER64 : DCI_ST_INTEGER32,
	    is_signed ? 0 : DCI_SIF_UNSIGNED, DCI_SIP_DECIMAL, 0,
	    DCI_SV_VOLATILE, unit, semantics, text);
}

static int voi_histogram_class(struct dcistat_template *template_handle,
    struct template_voi *voi, enum dci_unit unit);
static int voi_quantile_class(struct dcistat_template *template_handle,
    struct template_voi *voi, enum dci_unit unit);

static int
voi_classes(struct dcistat_template *template_handle,
    struct template_voi *voi, enum dci_unit unit)
{
	static const struct dci_instance_level summary_levels[] = {
	    {.itype = DCI_ITYPE_CHANNEL, .size = 4},
	};
	struct dcistat_supplier *supplier = template_handle->supplier;
	uint32_t id[4] = {3, template_handle->number, voi->id, 1};
	struct dci_datum_info summary[SUMMARY_WORDS];
	unsigned char summary_combines[SUMMARY_WORDS] = {DCISTAT_COMBINE_SUM,
	    DCISTAT_COMBINE_SUM, DCISTAT_COMBINE_MAX, DCISTAT_COMBINE_MIN,
	    DCISTAT_COMBINE_SUM};
	char label[DCISTAT_SEGMENT_LABEL_SIZE];
	size_t summary_count = 0;
	struct dci_class_info info =
	    CLASS_INFO(id, 4, label, NULL, summary_levels, 1, summary, 0);

	summary[summary_count++] = integer_datum(1, "samples", false, true,
	    DCI_UNIT_COUNT, DCI_SEMANTICS_COUNTER, "Samples taken");
	summary[summary_count++] = integer_datum(2, "sum", voi->is_signed,
	    true, unit,
	    voi->is_signed ? DCI_SEMANTICS_GAUGE : DCI_SEMANTICS_COUNTER,
	    "Sum of the samples (stats(3) SUM)");
	summary[summary_count++] = integer_datum(3, "max", voi->is_signed,
	    true, unit, DCI_SEMANTICS_GAUGE, "Largest sample (stats(3) MAX)");
	summary[summary_count++] = integer_datum(4, "min", voi->is_signed,
	    true, unit, DCI_SEMANTICS_GAUGE, "Smallest sample (stats(3) MIN)");
	summary[summary_count++] = integer_datum(5, "out_of_band", false, true,
	    DCI_UNIT_COUNT, DCI_SEMANTICS_COUNTER,
	    "Samples outside every bucket of the histogram");
	info.datum_count = summary_count;
	snprintf(label, sizeof(label), "%.24s_%.32s", template_handle->name,
	    voi->name);
	voi->summary_class = dcistat_class_add_locked(supplier, id, 4, &info,
	    summary_combines, NULL);
	if (voi->summary_class == NULL)
		return -1;
	voi->block_words = 1 + SUMMARY_WORDS;
	if (voi->kind != DCISTAT_HISTOGRAM_NONE &&
	    voi_histogram_class(template_handle, voi, unit) != 0)
		return -1;
	if (!(voi->statistics & DCISTAT_VOI_TDIGEST))
		return 0;
	return voi_quantile_class(template_handle, voi, unit);
}

/* The histogram class {.., 3, T, V, 2}: one instance per bucket. */
static int
voi_histogram_class(struct dcistat_template *template_handle,
    struct template_voi *voi, enum dci_unit unit)
{
	static const struct dci_instance_level histogram_levels[] = {
	    {.itype = DCI_ITYPE_CHANNEL, .size = 4},
	    {.itype = DCI_ITYPE_BUCKET_NO, .size = 4},
	};
	struct dcistat_supplier *supplier = template_handle->supplier;
	uint32_t id[4] = {3, template_handle->number, voi->id, 2};
	struct dci_datum_info histogram[BUCKET_WORDS];
	unsigned char histogram_combines[BUCKET_WORDS] = {
	    DCISTAT_COMBINE_SHARED, DCISTAT_COMBINE_SHARED,
	    DCISTAT_COMBINE_SUM};
	char label[DCISTAT_SEGMENT_LABEL_SIZE];
	struct dci_class_info info = {.id = id, .id_length = 4, .label = label};

	histogram[0] = integer_datum(1, "lower", voi->is_signed, true, unit,
	    DCI_SEMANTICS_DISCRETE, "Lowest value the bucket counts");
	histogram[1] = integer_datum(2, "upper", voi->is_signed, true, unit,
	    DCI_SEMANTICS_DISCRETE,
	    voi->kind == DCISTAT_HISTOGRAM_CONTINUOUS
	        ? "Bound above the bucket (exclusive)"
	        : "Highest value the bucket counts");
	histogram[2] = integer_datum(3, "count", false, voi->wide,
	    DCI_UNIT_COUNT, DCI_SEMANTICS_COUNTER, "Samples in the bucket");
	histogram[0].volatility = DCI_SV_STATIC;
	histogram[1].volatility = DCI_SV_STATIC;
	info.levels = histogram_levels;
	info.level_count = 2;
	info.datums = histogram;
	info.datum_count = BUCKET_WORDS;
	snprintf(label, sizeof(label), "%.24s_%.27s_hist",
	    template_handle->name, voi->name);
	voi->histogram_class = dcistat_class_add_locked(supplier, id, 4, &info,
	    histogram_combines, NULL);
	if (voi->histogram_class == NULL)
		return -1;
	voi->block_words += BUCKET_WORDS * voi->bucket_count;
	return 0;
}

/* The quantile class {.., 3, T, V, 3}: one instance per blob, whose
 * values are the digest after its lock word, at the end of the block. */
static int
voi_quantile_class(struct dcistat_template *template_handle,
    struct template_voi *voi, enum dci_unit unit)
{
	static const struct dci_instance_level quantile_levels[] = {
	    {.itype = DCI_ITYPE_CHANNEL, .size = 4},
	};
	uint32_t id[4] = {3, template_handle->number, voi->id, 3};
	struct dci_datum_info quantiles[VOI_QUANTILES];
	unsigned char combines[VOI_QUANTILES];
	char label[DCISTAT_SEGMENT_LABEL_SIZE];
	struct dci_class_info info = CLASS_INFO(
	    id, 4, label, NULL, quantile_levels, 1, quantiles, VOI_QUANTILES);

	for (size_t q = 0; q < VOI_QUANTILES; q++) {
		quantiles[q] = integer_datum(voi_quantiles[q].id,
		    voi_quantiles[q].label, voi->is_signed, true, unit,
		    DCI_SEMANTICS_GAUGE, voi_quantiles[q].description);
		combines[q] = DCISTAT_COMBINE_TDIGEST;
	}
	snprintf(label, sizeof(label), "%.24s_%.29s_q", template_handle->name,
	    voi->name);
	voi->quantile_class = dcistat_class_add_locked(
	    template_handle->supplier, id, 4, &info, combines, NULL);
	if (voi->quantile_class == NULL)
		return -1;
	voi->digest_lock = voi->block_words;
	voi->block_words += 1 + (uint32_t)DCISTAT_SEGMENT_TDIGEST_WORDS;
	return 0;
}

static int
voi_prepare(struct template_voi *voi, const struct dcistat_voi_info *info)
{
	const struct dcistat_histogram *histogram = info->histogram;

	if (info->name == NULL || info->name[0] == '\0' || info->id == 0 ||
	    info->id == UINT32_MAX)
		return dcistat_fail(EINVAL, "a VOI needs a name and an id");
	voi->id = info->id;
	voi->name = strdup(info->name);
	voi->lower = calloc(DCISTAT_HISTOGRAM_BUCKETS_MAX, sizeof(int64_t));
	voi->upper = calloc(DCISTAT_HISTOGRAM_BUCKETS_MAX, sizeof(int64_t));
	if (voi->name == NULL || voi->lower == NULL || voi->upper == NULL)
		return dcistat_fail(ENOMEM, "out of memory");
	voi->is_signed = info->is_signed != 0;
	voi->statistics = info->statistics;
	if (!(info->statistics & DCISTAT_VOI_HISTOGRAM))
		return 0;
	if (histogram == NULL)
		return dcistat_fail(EINVAL,
		    "VOI \"%s\": a histogram needs its buckets", voi->name);
	voi->kind = histogram->kind;
	voi->wide = histogram->wide != 0;
	switch (histogram->kind) {
	case DCISTAT_HISTOGRAM_CONTINUOUS:
		return buckets_continuous(voi, histogram);
	case DCISTAT_HISTOGRAM_DISCRETE_RANGE:
	case DCISTAT_HISTOGRAM_DISCRETE_VALUE:
		return buckets_discrete(voi, histogram);
	default:
		return dcistat_fail(EINVAL, "VOI \"%s\": histogram kind %u",
		    voi->name, (unsigned)histogram->kind);
	}
}

static void
template_free(struct dcistat_template *template_handle)
{
	for (size_t v = 0; v < template_handle->voi_count; v++) {
		free(template_handle->vois[v].name);
		free(template_handle->vois[v].lower);
		free(template_handle->vois[v].upper);
	}
	free(template_handle->vois);
	free(template_handle->name);
	free(template_handle);
}

__attribute__((visibility("default"))) struct dcistat_template *
dcistat_template_add(struct dcistat_supplier *supplier, uint32_t number,
    const char *name, const struct dcistat_voi_info *vois, size_t voi_count)
{
	struct dcistat_template *template_handle;

	if (supplier == NULL || name == NULL || name[0] == '\0' ||
	    vois == NULL || voi_count == 0 || number == 0 ||
	    number == UINT32_MAX) {
		dcistat_fail(EINVAL,
		    "a template needs a number, a name and VOIs");
		return NULL;
	}
	template_handle = calloc(1, sizeof(*template_handle));
	if (template_handle == NULL ||
	    (template_handle->vois = calloc(voi_count,
	         sizeof(*template_handle->vois))) == NULL ||
	    (template_handle->name = strdup(name)) == NULL) {
		if (template_handle != NULL)
			free(template_handle->vois);
		free(template_handle);
		dcistat_fail(ENOMEM, "out of memory");
		return NULL;
	}
	template_handle->supplier = supplier;
	template_handle->number = number;
	template_handle->voi_count = voi_count;
	pthread_mutex_lock(&supplier->lock);
	for (struct dcistat_template *t = supplier->template_list; t != NULL;
	     t = t->next) {
		if (t->number == number) {
			dcistat_fail(EEXIST, "template %u is \"%s\"", number,
			    t->name);
			goto failed;
		}
	}
	for (size_t v = 0; v < voi_count; v++) {
		for (size_t w = 0; w < v; w++) {
			if (vois[w].id == vois[v].id) {
				dcistat_fail(EEXIST,
				    "template \"%s\": two VOIs of id %u", name,
				    vois[v].id);
				goto failed;
			}
		}
		if (voi_prepare(&template_handle->vois[v], &vois[v]) != 0 ||
		    voi_classes(template_handle, &template_handle->vois[v],
		        vois[v].unit) != 0)
			goto failed;
	}
	dcistat_supplier_on_close(supplier, dcistat_templates_free_all);
	template_handle->next = supplier->template_list;
	supplier->template_list = template_handle;
	pthread_mutex_unlock(&supplier->lock);
	return template_handle;

failed:
	/* Classes already published stay, without instances. */
	pthread_mutex_unlock(&supplier->lock);
	template_free(template_handle);
	return NULL;
}

__attribute__((visibility("default"))) int
dcistat_voi_index(
    const struct dcistat_template *template_handle, uint32_t voi_id)
{
	for (size_t v = 0; v < template_handle->voi_count; v++) {
		if (template_handle->vois[v].id == voi_id)
			return (int)v;
	}
	return -1;
}

/* --- Blobs --- */

static void
bucket_label(char *label, size_t size, const char *blob_label,
    const struct template_voi *voi, uint32_t bucket)
{
	if (voi->kind == DCISTAT_HISTOGRAM_DISCRETE_VALUE)
		snprintf(label, size, "%s =%" PRId64, blob_label,
		    voi->lower[bucket]);
	else
		snprintf(label, size, "%s [%" PRId64 ",%" PRId64 "%c", blob_label,
		    voi->lower[bucket], voi->upper[bucket],
		    voi->kind == DCISTAT_HISTOGRAM_CONTINUOUS ? ')' : ']');
}

static void
blob_voi_unpublish(
    struct dcistat_supplier *supplier, struct blob_voi *slot, uint32_t buckets)
{
	if (slot->buckets != NULL) {
		for (uint32_t b = 0; b < buckets; b++) {
			if (slot->buckets[b] != NULL)
				dcistat_instance_unpublish(slot->buckets[b]);
		}
	}
	free(slot->buckets);
	slot->buckets = NULL;
	if (slot->quantiles != NULL)
		dcistat_instance_unpublish(slot->quantiles);
	slot->quantiles = NULL;
	if (slot->summary != NULL)
		dcistat_instance_unpublish(slot->summary); /* frees the block */
	slot->summary = NULL;
}

static int
blob_voi_publish(struct dcistat_blob *blob, const struct template_voi *voi,
    struct blob_voi *slot, const char *label)
{
	struct dcistat_supplier *supplier = blob->supplier;
	char bucket_text[DCISTAT_SEGMENT_INSTANCE_LABEL_SIZE];
	uint32_t block = dcistat_block_allocate(supplier, voi->block_words);
	uint64_t *shared = dcistat_shared_region(supplier);

	if (block == 0)
		return -1;
	slot->block = block;
	slot->summary = dcistat_instance_publish_owning(voi->summary_class,
	    block, voi->block_words, block + 1, &blob->id, 1, label, 0);
	if (slot->summary == NULL)
		return -1;
	if (voi->quantile_class != NULL) {
		slot->quantiles = dcistat_instance_publish(voi->quantile_class,
		    block, voi->block_words, block + voi->digest_lock + 1,
		    &blob->id, 1, label, 0);
		if (slot->quantiles == NULL)
			return -1;
	}
	if (voi->histogram_class == NULL)
		return 0;
	slot->buckets = calloc(voi->bucket_count, sizeof(*slot->buckets));
	if (slot->buckets == NULL)
		return dcistat_fail(ENOMEM, "out of memory");
	for (uint32_t b = 0; b < voi->bucket_count; b++) {
		uint32_t values = block + 1 + SUMMARY_WORDS + BUCKET_WORDS * b;
		uint32_t id[2] = {blob->id, b};

		__atomic_store_n(&shared[values], (uint64_t)voi->lower[b],
		    __ATOMIC_RELAXED);
		__atomic_store_n(&shared[values + 1], (uint64_t)voi->upper[b],
		    __ATOMIC_RELAXED);
		bucket_label(bucket_text, sizeof(bucket_text), label, voi, b);
		slot->buckets[b] = dcistat_instance_publish(voi->histogram_class,
		    block, voi->block_words, values, id, 2, bucket_text, 0);
		if (slot->buckets[b] == NULL)
			return -1;
	}
	return 0;
}

__attribute__((visibility("default"))) struct dcistat_blob *
dcistat_blob_add(struct dcistat_template *template_handle, uint32_t blob_id,
    const char *label)
{
	struct dcistat_supplier *supplier;
	struct dcistat_blob *blob;

	if (template_handle == NULL || label == NULL || label[0] == '\0') {
		dcistat_fail(EINVAL, "a blob needs a template and a label");
		return NULL;
	}
	supplier = template_handle->supplier;
	blob = calloc(1, sizeof(*blob));
	if (blob == NULL ||
	    (blob->vois = calloc(template_handle->voi_count,
	         sizeof(*blob->vois))) == NULL) {
		free(blob);
		dcistat_fail(ENOMEM, "out of memory");
		return NULL;
	}
	blob->template_handle = template_handle;
	blob->supplier = supplier;
	blob->id = blob_id;
	pthread_mutex_lock(&supplier->lock);
	for (struct dcistat_blob *b = template_handle->blobs; b != NULL;
	     b = b->next) {
		if (b->id == blob_id) {
			dcistat_fail(EEXIST, "template \"%s\": blob %u exists",
			    template_handle->name, blob_id);
			goto failed;
		}
	}
	for (size_t v = 0; v < template_handle->voi_count; v++) {
		if (blob_voi_publish(blob, &template_handle->vois[v],
		        &blob->vois[v], label) != 0)
			goto failed;
	}
	blob->next = template_handle->blobs;
	template_handle->blobs = blob;
	pthread_mutex_unlock(&supplier->lock);
	return blob;

failed:
	for (size_t v = 0; v < template_handle->voi_count; v++)
		blob_voi_unpublish(supplier, &blob->vois[v],
		    template_handle->vois[v].bucket_count);
	pthread_mutex_unlock(&supplier->lock);
	free(blob->vois);
	free(blob);
	return NULL;
}

__attribute__((visibility("default"))) int
dcistat_blob_remove(struct dcistat_blob *blob)
{
	struct dcistat_template *template_handle;
	struct dcistat_blob **link;

	if (blob == NULL)
		return dcistat_fail(EINVAL, "no blob");
	template_handle = blob->template_handle;
	pthread_mutex_lock(&blob->supplier->lock);
	for (link = &template_handle->blobs; *link != NULL;
	     link = &(*link)->next) {
		if (*link == blob) {
			*link = blob->next;
			break;
		}
	}
	for (size_t v = 0; v < template_handle->voi_count; v++)
		blob_voi_unpublish(blob->supplier, &blob->vois[v],
		    template_handle->vois[v].bucket_count);
	pthread_mutex_unlock(&blob->supplier->lock);
	free(blob->vois);
	free(blob);
	return 0;
}

/* --- Updates --- */

/* Adds a sample to the digest after `lock` (segment.h): in a thread's own
 * region with plain stores; in the shared one, which threads beyond
 * thread_regions share, holding the lock word, as no atomic instruction
 * updates a digest. */
static void
voi_digest_add(uint64_t *lock, bool own_region, double sample)
{
	struct dci_tdigest *digest = (struct dci_tdigest *)(lock + 1);
	uint64_t free_word = 0;

	if (own_region) {
		dci_tdigest_add(digest, sample);
		return;
	}
	while (!__atomic_compare_exchange_n(
	    lock, &free_word, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		free_word = 0;
	dci_tdigest_add(digest, sample);
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

__attribute__((visibility("default"))) void
dcistat_voi_update_absolute(
    struct dcistat_blob *blob, int voi_index, int64_t value)
{
	const struct template_voi *voi =
	    &blob->template_handle->vois[(unsigned)voi_index];
	uint64_t *region = dcistat_thread_region(blob->supplier);
	bool own = region != NULL;
	uint32_t values = blob->vois[(unsigned)voi_index].block + 1;
	uint64_t sample = (uint64_t)value;
	int bucket = voi->bucket_count > 0 ? bucket_find(voi, value) : -1;

	if (!own)
		region = dcistat_shared_region(blob->supplier);
	dcistat_block_begin(&region[values - 1], own);
	dcistat_add(&region[values + SUMMARY_SAMPLES], 1, own);
	dcistat_add(&region[values + SUMMARY_SUM], sample, own);
	dcistat_raise(&region[values + SUMMARY_MAX],
	    dcistat_segment_order_encode(sample, voi->is_signed, 0), own);
	dcistat_raise(&region[values + SUMMARY_MIN],
	    dcistat_segment_order_encode(sample, voi->is_signed, 1), own);
	if (bucket >= 0)
		dcistat_add(&region[values + SUMMARY_WORDS +
		                    BUCKET_WORDS * (unsigned)bucket +
		                    BUCKET_COUNT_WORD],
		    1, own);
	else if (voi->kind != DCISTAT_HISTOGRAM_NONE)
		dcistat_add(&region[values + SUMMARY_OUT_OF_BAND], 1, own);
	if (voi->digest_lock != 0)
		voi_digest_add(&region[values - 1 + voi->digest_lock], own,
		    voi->is_signed ? (double)value : (double)sample);
	dcistat_block_end(&region[values - 1], own);
}

__attribute__((visibility("default"))) void
dcistat_voi_update_relative(
    struct dcistat_blob *blob, int voi_index, int64_t delta)
{
	int64_t *current = &blob->vois[(unsigned)voi_index].value;
	int64_t value = (int64_t)((uint64_t)__atomic_fetch_add(
	                              current, delta, __ATOMIC_RELAXED) +
	                          (uint64_t)delta);

	dcistat_voi_update_absolute(blob, voi_index, value);
}

static void
dcistat_templates_free_all(struct dcistat_supplier *supplier)
{
	while (supplier->template_list != NULL) {
		struct dcistat_template *template_handle =
		    supplier->template_list;
		supplier->template_list = template_handle->next;
		while (template_handle->blobs != NULL) {
			struct dcistat_blob *blob = template_handle->blobs;
			template_handle->blobs = blob->next;
			for (size_t v = 0; v < template_handle->voi_count;
			     v++) {
				struct blob_voi *slot = &blob->vois[v];
				if (slot->buckets != NULL) {
					for (uint32_t b = 0;
					     b < template_handle->vois[v]
					             .bucket_count;
					     b++)
						free(slot->buckets[b]);
				}
				free(slot->buckets);
				free(slot->quantiles);
				free(slot->summary);
			}
			free(blob->vois);
			free(blob);
		}
		template_free(template_handle);
	}
}
