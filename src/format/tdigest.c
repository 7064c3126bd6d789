/*
 * The merging t-digest (tdigest.h): a buffer of samples, sorted and merged
 * into centroids under the k1 scale function when it fills.
 */
#include "format/tdigest.h"

#include <dcistat/segment.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A digest is the segment format's (segment.h): the supplier library
 * updates one in place and the suppliers provider merges them. */
_Static_assert(
    sizeof(struct dci_tdigest) == sizeof(struct dcistat_segment_tdigest),
    "t-digest and segment layouts differ");
_Static_assert(offsetof(struct dci_tdigest, mean) ==
                   offsetof(struct dcistat_segment_tdigest, mean),
    "t-digest and segment layouts differ");
_Static_assert(offsetof(struct dci_tdigest, buffer) ==
                   offsetof(struct dcistat_segment_tdigest, buffer),
    "t-digest and segment layouts differ");
_Static_assert(
    DCI_TDIGEST_COMPRESSION == 400, "segment.h documents compression 400");

/* A centroid or a sample (weight 1) being merged. */
struct tdigest_point {
	double mean;
	double weight;
};

/* The most points one merge sorts: the centroids of two digests and their
 * buffers. */
#define TDIGEST_POINTS_MAX (2 * (DCI_TDIGEST_CENTROIDS + DCI_TDIGEST_BUFFER))

/* Below this many elements a partition is sorted by insertion. */
#define TDIGEST_INSERTION_SORT 16

/* pi, which C11 does not name. */
#define TDIGEST_PI 3.14159265358979323846

/* A double's bits as an unsigned key in the same order (no NaN reaches
 * here: dci_tdigest_add drops them), and back. */
static inline uint64_t
tdigest_order_key(double value)
{
	uint64_t bits;

	memcpy(&bits, &value, sizeof bits);
	return (bits >> 63) != 0 ? ~bits : bits | UINT64_C(1) << 63;
}

static inline double
tdigest_order_value(uint64_t key)
{
	uint64_t bits = (key >> 63) != 0 ? key & ~(UINT64_C(1) << 63) : ~key;
	double value;

	memcpy(&value, &bits, sizeof value);
	return value;
}

/* Sorts a buffer of samples ascending: a least-significant-digit radix
 * sort of their order keys, a byte a pass, skipping the bytes every key
 * shares (the sign and most of the exponent, as a rule). Its cost is
 * linear and without comparisons, which keeps the update within the cost
 * the header promises. */
static void
tdigest_sort_values(double *values, size_t count)
{
	uint64_t keys[DCI_TDIGEST_BUFFER], spare[DCI_TDIGEST_BUFFER];
	uint32_t histogram[8][256];
	uint64_t *from = keys, *to = spare;

	memset(histogram, 0, sizeof histogram);
	for (size_t i = 0; i < count; i++) {
		uint64_t key = tdigest_order_key(values[i]);
		keys[i] = key;
		for (unsigned byte = 0; byte < 8; byte++)
			histogram[byte][(key >> (8 * byte)) & 0xff]++;
	}
	for (unsigned byte = 0; byte < 8; byte++) {
		uint32_t *counts = histogram[byte], offset = 0;

		if (counts[(from[0] >> (8 * byte)) & 0xff] == count)
			continue; /* every key has this byte */
		for (unsigned digit = 0; digit < 256; digit++) {
			uint32_t here = counts[digit];
			counts[digit] = offset;
			offset += here;
		}
		for (size_t i = 0; i < count; i++)
			to[counts[(from[i] >> (8 * byte)) & 0xff]++] = from[i];
		uint64_t *swap = from;
		from = to;
		to = swap;
	}
	for (size_t i = 0; i < count; i++)
		values[i] = tdigest_order_value(from[i]);
}

/* The same for points, by mean. */
static void
tdigest_sort_points(struct tdigest_point *points, size_t count)
{
	while (count > TDIGEST_INSERTION_SORT) {
		double a = points[0].mean, b = points[count / 2].mean,
		       c = points[count - 1].mean;
		double pivot = a < b ? (b < c ? b : (a < c ? c : a))
		                     : (a < c ? a : (b < c ? c : b));
		size_t i = 0, j = count - 1;

		for (;;) {
			while (points[i].mean < pivot)
				i++;
			while (points[j].mean > pivot)
				j--;
			if (i >= j)
				break;
			struct tdigest_point swap = points[i];
			points[i] = points[j];
			points[j] = swap;
			i++;
			j--;
		}
		size_t left = j + 1;
		if (left < count - left) {
			tdigest_sort_points(points, left);
			points += left;
			count -= left;
		} else {
			tdigest_sort_points(points + left, count - left);
			count = left;
		}
	}
	for (size_t i = 1; i < count; i++) {
		struct tdigest_point point = points[i];
		size_t j = i;
		while (j > 0 && points[j - 1].mean > point.mean) {
			points[j] = points[j - 1];
			j--;
		}
		points[j] = point;
	}
}

/* k1: the scale, and the quantile at which a centroid that starts at
 * quantile q must end (one unit of k further). */
static double
tdigest_next_limit(double q)
{
	const double normalizer = DCI_TDIGEST_COMPRESSION / (2.0 * TDIGEST_PI);
	double k = normalizer * asin(2.0 * q - 1.0) + 1.0;

	if (k >= normalizer * TDIGEST_PI / 2.0)
		return 1.0;
	return (sin(k / normalizer) + 1.0) / 2.0;
}

/* Replaces the digest's centroids with `points` (sorted by mean, weights
 * positive) merged under the scale function. */
static void
tdigest_merge_points(struct dci_tdigest *digest,
    const struct tdigest_point *points, size_t count)
{
	double total = 0.0, before = 0.0, limit;
	size_t out = 0;

	for (size_t i = 0; i < count; i++)
		total += points[i].weight;
	digest->centroid_count = 0;
	if (count == 0 || !(total > 0.0))
		return;
	digest->mean[0] = points[0].mean;
	digest->weight[0] = points[0].weight;
	limit = total * tdigest_next_limit(0.0);
	for (size_t i = 1; i < count; i++) {
		double joined = digest->weight[out] + points[i].weight;

		/* The last slot takes whatever is left: the scale keeps the
		 * count well below the capacity, so this only bounds what
		 * rounding could do. */
		if (before + joined <= limit ||
		    out + 1 == DCI_TDIGEST_CENTROIDS) {
			digest->mean[out] +=
			    (points[i].mean - digest->mean[out]) *
			    points[i].weight / joined;
			digest->weight[out] = joined;
			continue;
		}
		before += digest->weight[out];
		limit = total * tdigest_next_limit(before / total);
		out++;
		digest->mean[out] = points[i].mean;
		digest->weight[out] = points[i].weight;
	}
	digest->centroid_count = out + 1;
}

void
dci_tdigest_init(struct dci_tdigest *digest)
{
	memset(digest, 0, sizeof *digest);
}

void
dci_tdigest_compress(struct dci_tdigest *digest)
{
	struct tdigest_point points[DCI_TDIGEST_CENTROIDS + DCI_TDIGEST_BUFFER];
	size_t centroids = (size_t)digest->centroid_count;
	size_t buffered = (size_t)digest->buffered;
	size_t count = 0, c = 0, b = 0;

	if (buffered == 0)
		return;
	/* Both runs sorted, then one pass merges them: no sort of the
	 * centroids again. */
	tdigest_sort_values(digest->buffer, buffered);
	while (c < centroids || b < buffered) {
		if (b == buffered ||
		    (c < centroids && digest->mean[c] <= digest->buffer[b])) {
			points[count].mean = digest->mean[c];
			points[count].weight = digest->weight[c];
			c++;
		} else {
			points[count].mean = digest->buffer[b];
			points[count].weight = 1.0;
			b++;
		}
		count++;
	}
	digest->buffered = 0;
	tdigest_merge_points(digest, points, count);
}

void
dci_tdigest_add(struct dci_tdigest *digest, double value)
{
	if (!isfinite(value))
		return;
	if (digest->count == 0.0 || value < digest->minimum)
		digest->minimum = value;
	if (digest->count == 0.0 || value > digest->maximum)
		digest->maximum = value;
	digest->count += 1.0;
	digest->buffer[digest->buffered++] = value;
	if (digest->buffered == DCI_TDIGEST_BUFFER)
		dci_tdigest_compress(digest);
}

/* Appends the centroids and samples of `digest` that are sound to
 * `points`; returns the new count and adds their weight to *weight. */
static size_t
tdigest_collect(const struct dci_tdigest *digest, struct tdigest_point *points,
    size_t count, double *weight)
{
	size_t centroids = digest->centroid_count < DCI_TDIGEST_CENTROIDS
	                       ? (size_t)digest->centroid_count
	                       : DCI_TDIGEST_CENTROIDS;
	size_t buffered = digest->buffered < DCI_TDIGEST_BUFFER
	                      ? (size_t)digest->buffered
	                      : DCI_TDIGEST_BUFFER;

	for (size_t i = 0; i < centroids; i++) {
		double mean = digest->mean[i], w = digest->weight[i];
		if (!isfinite(mean) || !isfinite(w) || !(w > 0.0))
			continue;
		points[count].mean = mean;
		points[count].weight = w;
		*weight += w;
		count++;
	}
	for (size_t i = 0; i < buffered; i++) {
		if (!isfinite(digest->buffer[i]))
			continue;
		points[count].mean = digest->buffer[i];
		points[count].weight = 1.0;
		*weight += 1.0;
		count++;
	}
	return count;
}

/* Merges every source into `digest` in one pass (one sort, one
 * compression), which keeps more accuracy than merging them one by one.
 * `points` has room for the digest's and every source's points. */
static void
tdigest_merge_into(struct dci_tdigest *digest,
    const struct dci_tdigest *const *sources, size_t source_count,
    struct tdigest_point *points)
{
	double own = 0.0, added = 0.0;
	size_t count = tdigest_collect(digest, points, 0, &own);
	size_t own_count = count;
	double low = INFINITY, high = -INFINITY;

	for (size_t s = 0; s < source_count; s++) {
		const struct dci_tdigest *source = sources[s];
		size_t first = count;
		double weight = 0.0;

		count = tdigest_collect(source, points, count, &weight);
		if (!(weight > 0.0))
			continue;
		added += weight;
		/* The extremes: the source's own if they are sound, else
		 * what its points say. */
		if (isfinite(source->minimum) && isfinite(source->maximum) &&
		    source->minimum <= source->maximum) {
			low = fmin(low, source->minimum);
			high = fmax(high, source->maximum);
			continue;
		}
		for (size_t i = first; i < count; i++) {
			low = fmin(low, points[i].mean);
			high = fmax(high, points[i].mean);
		}
	}
	if (!(added > 0.0))
		return;
	if (own_count == 0 || digest->count == 0.0 || low < digest->minimum)
		digest->minimum = low;
	if (own_count == 0 || digest->count == 0.0 || high > digest->maximum)
		digest->maximum = high;
	digest->count = own + added;
	digest->buffered = 0;
	tdigest_sort_points(points, count);
	tdigest_merge_points(digest, points, count);
}

void
dci_tdigest_merge(struct dci_tdigest *digest, const struct dci_tdigest *source)
{
	struct tdigest_point points[TDIGEST_POINTS_MAX];

	tdigest_merge_into(digest, &source, 1, points);
}

int
dci_tdigest_merge_all(struct dci_tdigest *digest,
    const struct dci_tdigest *const *sources, size_t count)
{
	size_t per_digest = DCI_TDIGEST_CENTROIDS + DCI_TDIGEST_BUFFER;
	struct tdigest_point *points;

	if (count > SIZE_MAX / sizeof(*points) / per_digest - 1)
		return -1;
	points = malloc((count + 1) * per_digest * sizeof(*points));
	if (points == NULL)
		return -1;
	tdigest_merge_into(digest, sources, count, points);
	free(points);
	return 0;
}

double
dci_tdigest_count(const struct dci_tdigest *digest)
{
	return digest->count;
}

static double
tdigest_between(
    double left, double left_weight, double right, double right_weight)
{
	double value = (left * left_weight + right * right_weight) /
	               (left_weight + right_weight);

	/* Rounding must not leave the interval. */
	return fmax(left, fmin(right, value));
}

double
dci_tdigest_quantile(struct dci_tdigest *digest, double q)
{
	size_t n;
	double total = 0.0, index, so_far;

	dci_tdigest_compress(digest);
	n = (size_t)digest->centroid_count;
	if (n == 0 || !(q >= 0.0 && q <= 1.0))
		return NAN;
	if (n == 1)
		return digest->mean[0];
	for (size_t i = 0; i < n; i++)
		total += digest->weight[i];
	index = q * total;
	if (index < 1.0)
		return digest->minimum;
	if (index > total - 1.0)
		return digest->maximum;
	/* Between the minimum and the first centroid's middle. */
	if (digest->weight[0] > 1.0 && index < digest->weight[0] / 2.0)
		return digest->minimum +
		       (index - 1.0) / (digest->weight[0] / 2.0 - 1.0) *
		           (digest->mean[0] - digest->minimum);
	/* Between the last centroid's middle and the maximum. */
	if (digest->weight[n - 1] > 1.0 &&
	    total - index <= digest->weight[n - 1] / 2.0)
		return digest->maximum -
		       (total - index - 1.0) /
		           (digest->weight[n - 1] / 2.0 - 1.0) *
		           (digest->maximum - digest->mean[n - 1]);
	so_far = digest->weight[0] / 2.0;
	for (size_t i = 0; i + 1 < n; i++) {
		double step = (digest->weight[i] + digest->weight[i + 1]) / 2.0;

		if (so_far + step > index) {
			double left_unit = 0.0, right_unit = 0.0;

			/* A single sample is a point, not a spread. */
			if (digest->weight[i] == 1.0) {
				if (index - so_far < 0.5)
					return digest->mean[i];
				left_unit = 0.5;
			}
			if (digest->weight[i + 1] == 1.0) {
				if (so_far + step - index <= 0.5)
					return digest->mean[i + 1];
				right_unit = 0.5;
			}
			double z1 = index - so_far - left_unit;
			double z2 = so_far + step - index - right_unit;
			if (z1 + z2 <= 0.0)
				return digest->mean[i];
			return tdigest_between(
			    digest->mean[i], z2, digest->mean[i + 1], z1);
		}
		so_far += step;
	}
	/* Past the last centroid's middle (reached only through
	 * rounding): towards the maximum. */
	double half = digest->weight[n - 1] / 2.0;
	double past = fmin(fmax(index - (total - half), 0.0), half);
	return tdigest_between(
	    digest->mean[n - 1], half - past, digest->maximum, past);
}
