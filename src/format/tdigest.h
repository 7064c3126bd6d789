/*
 * The t-digest (Dunning and Ertl, "Computing extremely accurate quantiles
 * using t-digests"; stats(3)'s VOI_TDGST): a fixed-size summary of a
 * stream of samples from which any quantile is estimated, and which merges
 * with another digest of the same kind. One algorithm for every user:
 * libdcistat-supplier's VOIs (a digest per thread region, updated with
 * plain stores, merged by the suppliers provider), the statsd provider's
 * timers, and any bridge that serves quantiles.
 *
 * This is the merging variant with the k1 scale function
 * k(q) = compression / (2 pi) * asin(2q - 1): a centroid spans at most one
 * unit of k, so centroids are small near q = 0 and q = 1, where the tail
 * quantiles are read, and the digest keeps at most DCI_TDIGEST_CENTROIDS
 * of them whatever the number of samples. Samples are appended to a
 * buffer; a full buffer is sorted and merged into the centroids.
 *
 * Accuracy (tests/unit/test_tdigest.c asserts it; bench/tdigest measures
 * it): on 10^6 samples of a log-normal distribution the p50, p90 and p99
 * estimates are within 1 % (relative) of the exact quantiles of a sort, and
 * so are those of a digest merged from several. The minimum and maximum
 * are exact.
 *
 * Layout. Every member is 8 bytes and nothing is a pointer, so a digest
 * is a run of 64-bit words that can live in a shared-memory segment
 * (include/dcistat/segment.h). A digest read from outside the process is
 * untrusted: dci_tdigest_merge takes only its counts within the arrays and
 * its finite, positive weights.
 */
#ifndef DCISTAT_FORMAT_TDIGEST_H
#define DCISTAT_FORMAT_TDIGEST_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* The scale: at most about this many centroids after a merge. */
#define DCI_TDIGEST_COMPRESSION 400
/* Room for the centroids of one merge, with a margin. */
#define DCI_TDIGEST_CENTROIDS 512u
/* Samples appended before a merge; larger costs memory, smaller costs
 * update time (a merge is amortised over this many samples). */
#define DCI_TDIGEST_BUFFER 1024u

struct dci_tdigest {
	uint64_t centroid_count; /* centroids in use, sorted by mean */
	uint64_t buffered;       /* samples in buffer */
	double count;            /* samples in all, centroids and buffer */
	double minimum;          /* exact; meaningful when count > 0 */
	double maximum;
	double mean[DCI_TDIGEST_CENTROIDS];
	double weight[DCI_TDIGEST_CENTROIDS];
	double buffer[DCI_TDIGEST_BUFFER];
};

/* The size of a digest in 64-bit words. */
#define DCI_TDIGEST_WORDS (sizeof(struct dci_tdigest) / sizeof(uint64_t))

/* An empty digest. All zero is an empty digest too. */
void dci_tdigest_init(struct dci_tdigest *digest);

/* Adds one sample. A NaN or infinite sample is ignored. */
void dci_tdigest_add(struct dci_tdigest *digest, double value);

/* Folds the buffer into the centroids (after it, buffered is 0). */
void dci_tdigest_compress(struct dci_tdigest *digest);

/* Adds everything `source` holds to `digest`. `source` may come from an
 * untrusted writer: counts beyond the arrays are cut, centroids with a
 * weight that is not finite and positive or a mean that is not finite are
 * skipped, as are samples that are not finite; so `digest` stays a valid
 * digest whatever `source` holds. */
void dci_tdigest_merge(
    struct dci_tdigest *digest, const struct dci_tdigest *source);

/* Adds everything the `count` digests at `sources` hold to `digest` in
 * one merge: more accurate than merging them one at a time (each source
 * untrusted, as for dci_tdigest_merge). Returns 0, or -1 without memory
 * (`digest` unchanged). */
int dci_tdigest_merge_all(struct dci_tdigest *digest,
    const struct dci_tdigest *const *sources, size_t count);

/* The estimated q-quantile (0 <= q <= 1) of the samples added; NaN for an
 * empty digest. Compresses the digest first if it has buffered samples. */
double dci_tdigest_quantile(struct dci_tdigest *digest, double q);

/* The number of samples added (a whole number, as a double). */
double dci_tdigest_count(const struct dci_tdigest *digest);

#pragma GCC visibility pop

#endif
