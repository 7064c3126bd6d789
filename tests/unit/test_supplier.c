/* libdcistat-supplier read back through the suppliers provider's reader:
 * values exact under threads, bucket boundaries, out-of-band counts, VOI
 * semantics, t-digest quantiles merged over thread regions, evcnt
 * attach/detach rules, devstat accounting, and the
 * reader's refusals of malformed segments and of a writer frozen inside an
 * update. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <dcistat/supplier.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "providers/suppliers/segment_reader.h"
#include "check_runner.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

static char directory[] = "/tmp/dcistat-supplier-XXXXXX";

static void
directory_make(void)
{
	strcpy(directory, "/tmp/dcistat-supplier-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(directory));
}

static void
directory_remove(void)
{
	char command[256];
	snprintf(command, sizeof(command), "rm -rf '%s'", directory);
	ck_assert_int_eq(system(command), 0);
}

static struct dcistat_supplier *
supplier_open(const char *module, uint32_t thread_regions)
{
	struct dci_supplier_info info = {.module = module,
	    .title = "Test",
	    .description = "unit test",
	    .version = 1};
	struct dcistat_supplier_options options = {.size = sizeof(options),
	    .directory = directory,
	    .thread_regions = thread_regions,
	    .region_words = 16384,
	    .instances = 1024};
	struct dcistat_supplier *supplier =
	    dcistat_supplier_open(&info, 77, &options);
	ck_assert_msg(supplier != NULL, "%s", dcistat_supplier_error());
	return supplier;
}

/* The segment as the provider sees it: mapped read-only, its classes
 * read. */
struct reading {
	void *base;
	size_t size;
	struct segment_view view;
	struct segment_class classes[64];
	uint32_t class_count;
	struct segment_scratch scratch;
};

static void
reading_open(struct reading *reading, const char *path)
{
	int descriptor = open(path, O_RDONLY);
	struct stat status;
	char why[256];

	memset(reading, 0, sizeof(*reading));
	ck_assert_int_ge(descriptor, 0);
	ck_assert_int_eq(fstat(descriptor, &status), 0);
	reading->size = (size_t)status.st_size;
	reading->base =
	    mmap(NULL, reading->size, PROT_READ, MAP_SHARED, descriptor, 0);
	close(descriptor);
	ck_assert_ptr_ne(reading->base, MAP_FAILED);
	ck_assert_msg(segment_view_open(reading->base, reading->size,
	                  &reading->view, why, sizeof(why)) == 0,
	    "%s", why);
	reading->class_count = segment_class_count(&reading->view);
	ck_assert_uint_le(reading->class_count, COUNT_OF(reading->classes));
	for (uint32_t c = 0; c < reading->class_count; c++)
		ck_assert_msg(segment_class_read(&reading->view, c,
		                  &reading->classes[c], why, sizeof(why)) == 0,
		    "%s", why);
}

static void
reading_close(struct reading *reading)
{
	for (uint32_t c = 0; c < reading->class_count; c++)
		segment_class_clear(&reading->classes[c]);
	segment_scratch_clear(&reading->scratch);
	munmap(reading->base, reading->size);
}

/* The value of datum `label` of the instance labelled `instance_label`;
 * fails the test when absent unless `present` is given. */
static uint64_t
reading_value(struct reading *reading, const char *instance_label,
    const char *label, bool *present)
{
	uint32_t high = segment_instance_high(&reading->view);
	char why[256];

	for (uint32_t i = 0; i < high; i++) {
		struct segment_instance instance;
		struct segment_class *copy;
		struct segment_value values[64];

		if (segment_instance_read(&reading->view, i, reading->classes,
		        reading->class_count, &instance, why,
		        sizeof(why)) != 1 ||
		    strcmp(instance.label, instance_label) != 0)
			continue;
		copy = &reading->classes[instance.class_index];
		reading->scratch.valid = false;
		ck_assert_int_eq(segment_values_read(&reading->view, copy,
		                     &instance, 0, &reading->scratch, values),
		    0);
		for (uint32_t d = 0; d < copy->datum_count; d++) {
			if (strcmp(copy->datums[d].label, label) != 0)
				continue;
			if (present != NULL)
				*present = values[d].present;
			else
				ck_assert_msg(values[d].present,
				    "%s %s absent", instance_label, label);
			return values[d].number;
		}
	}
	ck_abort_msg("no %s of %s", label, instance_label);
	return 0;
}

/* --- Exact under threads --- */

#define THREADS 8
#define INCREMENTS 200000

static struct dcistat_evcnt *shared_counter;
static struct dcistat_blob *shared_blob;
static struct dcistat_devstat *shared_device;

static void *
increment_worker(void *argument)
{
	(void)argument;
	for (int i = 0; i < INCREMENTS; i++) {
		uint64_t start;
		dcistat_evcnt_increment(shared_counter);
		dcistat_voi_update_absolute(shared_blob, 0, i % 10);
		start = dcistat_devstat_start_transaction(shared_device);
		dcistat_devstat_end_transaction(
		    shared_device, 4096, DCISTAT_DEVSTAT_WRITE, start);
	}
	return NULL;
}

static struct dcistat_blob *
voi_blob(struct dcistat_supplier *supplier,
    const struct dcistat_histogram *histogram, int is_signed)
{
	struct dcistat_voi_info voi = {.id = 1,
	    .name = "v",
	    .is_signed = is_signed,
	    .statistics = DCISTAT_VOI_SUM | DCISTAT_VOI_MAX |
	                  DCISTAT_VOI_MIN |
	                  (histogram != NULL ? DCISTAT_VOI_HISTOGRAM : 0),
	    .unit = DCI_UNIT_MICROSECONDS,
	    .histogram = histogram};
	struct dcistat_template *template_handle =
	    dcistat_template_add(supplier, 1, "t", &voi, 1);
	struct dcistat_blob *blob;

	ck_assert_msg(template_handle != NULL, "%s", dcistat_supplier_error());
	blob = dcistat_blob_add(template_handle, 1, "b");
	ck_assert_msg(blob != NULL, "%s", dcistat_supplier_error());
	return blob;
}

/* More threads than thread regions: the extra ones use the shared region
 * atomically, and nothing is lost either way. */
static void
threads_exact(uint32_t thread_regions)
{
	static const struct dcistat_histogram ten = {
	    .kind = DCISTAT_HISTOGRAM_CONTINUOUS,
	    .layout = DCISTAT_LAYOUT_LINEAR,
	    .low = 0,
	    .high = 10,
	    .step = 1,
	    .wide = 1};
	struct dcistat_supplier *supplier;
	struct reading reading;
	pthread_t threads[THREADS];

	directory_make();
	supplier = supplier_open("threads", thread_regions);
	shared_counter = dcistat_evcnt_attach(
	    supplier, DCISTAT_EVCNT_TYPE_MISC, NULL, "test", "count");
	shared_blob = voi_blob(supplier, &ten, 0);
	shared_device = dcistat_devstat_add(supplier, "td", 0, 512, 0, 0, 0);
	ck_assert_ptr_nonnull(shared_counter);
	ck_assert_ptr_nonnull(shared_device);
	for (int t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, increment_worker, NULL);
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	reading_open(&reading, dcistat_supplier_path(supplier));
	ck_assert_uint_eq(reading_value(&reading, "test count", "count", NULL),
	    (uint64_t)THREADS * INCREMENTS);
	ck_assert_uint_eq(reading_value(&reading, "b", "samples", NULL),
	    (uint64_t)THREADS * INCREMENTS);
	ck_assert_uint_eq(reading_value(&reading, "b", "sum", NULL),
	    (uint64_t)THREADS * (INCREMENTS / 10) * 45);
	ck_assert_uint_eq(reading_value(&reading, "b", "max", NULL), 9);
	ck_assert_uint_eq(reading_value(&reading, "b", "min", NULL), 0);
	ck_assert_uint_eq(reading_value(&reading, "b", "out_of_band", NULL), 0);
	for (int bucket = 0; bucket < 10; bucket++) {
		char label[64];
		snprintf(label, sizeof(label), "b [%d,%d)", bucket, bucket + 1);
		ck_assert_uint_eq(reading_value(&reading, label, "count", NULL),
		    (uint64_t)THREADS * INCREMENTS / 10);
	}
	ck_assert_uint_eq(reading_value(&reading, "td0", "num_writes", NULL),
	    (uint64_t)THREADS * INCREMENTS);
	ck_assert_uint_eq(reading_value(&reading, "td0", "bytes_written", NULL),
	    (uint64_t)THREADS * INCREMENTS * 4096);
	ck_assert_uint_eq(reading_value(&reading, "td0", "num_reads", NULL), 0);
	ck_assert_uint_eq(reading_value(&reading, "td0", "busy_count", NULL), 0);
	reading_close(&reading);
	dcistat_supplier_close(supplier);
	directory_remove();
}

START_TEST(test_threads_exact_own_regions)
{
	threads_exact(16);
}
END_TEST

START_TEST(test_threads_exact_shared_region)
{
	threads_exact(2);
}
END_TEST

/* --- T-digest quantiles --- */

#define DIGEST_THREADS 8
#define DIGEST_SAMPLES 100000

static struct dcistat_blob *digest_blob;
static int64_t digest_samples[DIGEST_THREADS][DIGEST_SAMPLES];

/* Thread t adds its row of digest_samples: log-normal microseconds
 * (mu 7, sigma 1), a fixed generator per thread, so that each thread's
 * digest differs and only their merge gives the right quantiles. */
static void *
digest_worker(void *argument)
{
	int64_t *samples = argument;
	for (int i = 0; i < DIGEST_SAMPLES; i++)
		dcistat_voi_update_absolute(digest_blob, 0, samples[i]);
	return NULL;
}

static int
compare_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void
digest_quantiles(uint32_t thread_regions)
{
	struct dcistat_voi_info voi = {.id = 1,
	    .name = "latency",
	    .statistics = DCISTAT_VOI_SUM | DCISTAT_VOI_TDIGEST,
	    .unit = DCI_UNIT_MICROSECONDS};
	static const struct {
		const char *label;
		double q;
	} quantiles[] = {{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}};
	static int64_t sorted[DIGEST_THREADS * DIGEST_SAMPLES];
	struct dcistat_supplier *supplier;
	struct dcistat_template *template_handle;
	struct reading reading;
	pthread_t threads[DIGEST_THREADS];
	uint64_t state = 0x9e3779b97f4a7c15u;
	bool present = true;

	for (int t = 0; t < DIGEST_THREADS; t++) {
		for (int i = 0; i < DIGEST_SAMPLES; i++) {
			double u1, u2;
			state ^= state << 13;
			state ^= state >> 7;
			state ^= state << 17;
			u1 = ((double)(state >> 11) + 1.0) / 9007199254740993.0;
			state ^= state << 13;
			state ^= state >> 7;
			state ^= state << 17;
			u2 = (double)(state >> 11) / 9007199254740992.0;
			/* Thread t sees larger values as t grows. */
			digest_samples[t][i] = (int64_t)exp(
			    7.0 + 0.1 * t +
			    sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
		}
	}
	directory_make();
	supplier = supplier_open("digest", thread_regions);
	template_handle = dcistat_template_add(supplier, 1, "t", &voi, 1);
	ck_assert_msg(template_handle != NULL, "%s", dcistat_supplier_error());
	digest_blob = dcistat_blob_add(template_handle, 1, "busy");
	ck_assert_ptr_nonnull(digest_blob);
	ck_assert_ptr_nonnull(dcistat_blob_add(template_handle, 2, "idle"));
	for (int t = 0; t < DIGEST_THREADS; t++)
		pthread_create(
		    &threads[t], NULL, digest_worker, digest_samples[t]);
	for (int t = 0; t < DIGEST_THREADS; t++)
		pthread_join(threads[t], NULL);
	memcpy(sorted, digest_samples, sizeof(sorted));
	qsort(sorted, COUNT_OF(sorted), sizeof(sorted[0]), compare_int64);

	reading_open(&reading, dcistat_supplier_path(supplier));
	ck_assert_uint_eq(reading_value(&reading, "busy", "samples", NULL),
	    (uint64_t)DIGEST_THREADS * DIGEST_SAMPLES);
	for (size_t q = 0; q < COUNT_OF(quantiles); q++) {
		double exact = (double)
		    sorted[(size_t)(quantiles[q].q * (double)COUNT_OF(sorted))];
		double served = (double)reading_value(
		    &reading, "busy", quantiles[q].label, NULL);
		/* Through the shared region the samples enter one digest in
		 * the order the threads take its lock, and that order moves
		 * this tail's p99 by up to about 1.2 % (seen under load):
		 * 2 % there, 1 % with a region per thread. */
		double tolerance =
		    thread_regions < DIGEST_THREADS && quantiles[q].q > 0.95
		        ? 0.02
		        : 0.01;
		ck_assert_msg(fabs(served - exact) <= tolerance * exact,
		    "%s: served %.0f, exact %.0f", quantiles[q].label, served,
		    exact);
	}
	/* A blob without a sample has no quantile. */
	reading_value(&reading, "idle", "p99", &present);
	ck_assert(!present);
	reading_close(&reading);
	dcistat_supplier_close(supplier);
	directory_remove();
}

START_TEST(test_digest_own_regions)
{
	digest_quantiles(16);
}
END_TEST

/* Two thread regions for eight threads: six share the shared region's
 * digest under its lock. */
START_TEST(test_digest_shared_region)
{
	digest_quantiles(2);
}
END_TEST

/* --- Histograms --- */

START_TEST(test_histogram_bounds)
{
	static const struct dcistat_histogram exponential = {
	    .kind = DCISTAT_HISTOGRAM_CONTINUOUS,
	    .layout = DCISTAT_LAYOUT_EXPONENTIAL,
	    .low = 1,
	    .high = 1000,
	    .base = 10};
	struct dcistat_supplier *supplier;
	struct dcistat_blob *blob;
	struct reading reading;
	bool present;

	directory_make();
	supplier = supplier_open("histogram", 4);
	blob = voi_blob(supplier, &exponential, 0);
	/* Buckets [1,10) [10,100) [100,1000); 0 and 1000 are out of band. */
	dcistat_voi_update_absolute(blob, 0, 0);
	dcistat_voi_update_absolute(blob, 0, 1);
	dcistat_voi_update_absolute(blob, 0, 9);
	dcistat_voi_update_absolute(blob, 0, 10);
	dcistat_voi_update_absolute(blob, 0, 999);
	dcistat_voi_update_absolute(blob, 0, 1000);
	reading_open(&reading, dcistat_supplier_path(supplier));
	ck_assert_uint_eq(reading_value(&reading, "b [1,10)", "count", NULL), 2);
	ck_assert_uint_eq(
	    reading_value(&reading, "b [10,100)", "count", NULL), 1);
	ck_assert_uint_eq(
	    reading_value(&reading, "b [100,1000)", "count", NULL), 1);
	ck_assert_uint_eq(
	    reading_value(&reading, "b [100,1000)", "lower", NULL), 100);
	ck_assert_uint_eq(
	    reading_value(&reading, "b [100,1000)", "upper", NULL), 1000);
	ck_assert_uint_eq(reading_value(&reading, "b", "out_of_band", NULL), 2);
	ck_assert_uint_eq(reading_value(&reading, "b", "samples", NULL), 6);
	ck_assert_uint_eq(reading_value(&reading, "b", "max", NULL), 1000);
	ck_assert_uint_eq(reading_value(&reading, "b", "min", NULL), 0);
	reading_value(&reading, "b", "min", &present);
	ck_assert(present);
	reading_close(&reading);
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

START_TEST(test_histogram_discrete_and_relative)
{
	static const int64_t values[] = {5, -3, 7};
	static const struct dcistat_histogram discrete = {
	    .kind = DCISTAT_HISTOGRAM_DISCRETE_VALUE,
	    .lower = values,
	    .count = 3};
	struct dcistat_supplier *supplier;
	struct dcistat_blob *blob;
	struct reading reading;

	directory_make();
	supplier = supplier_open("discrete", 4);
	blob = voi_blob(supplier, &discrete, 1);
	/* Relative: the value goes 5, 2, -3, 7; each new value a sample. */
	dcistat_voi_update_relative(blob, 0, 5);
	dcistat_voi_update_relative(blob, 0, -3);
	dcistat_voi_update_relative(blob, 0, -5);
	dcistat_voi_update_relative(blob, 0, 10);
	reading_open(&reading, dcistat_supplier_path(supplier));
	ck_assert_uint_eq(reading_value(&reading, "b =-3", "count", NULL), 1);
	ck_assert_uint_eq(reading_value(&reading, "b =5", "count", NULL), 1);
	ck_assert_uint_eq(reading_value(&reading, "b =7", "count", NULL), 1);
	ck_assert_uint_eq(reading_value(&reading, "b", "out_of_band", NULL), 1);
	ck_assert_int_eq(
	    (int64_t)reading_value(&reading, "b", "sum", NULL), 5 + 2 - 3 + 7);
	ck_assert_int_eq((int64_t)reading_value(&reading, "b", "min", NULL), -3);
	ck_assert_int_eq((int64_t)reading_value(&reading, "b", "max", NULL), 7);
	reading_close(&reading);
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

START_TEST(test_histogram_refusals)
{
	static const int64_t overlapping_lower[] = {0, 5}, upper[] = {6, 9};
	static const struct dcistat_histogram overlap = {
	    .kind = DCISTAT_HISTOGRAM_DISCRETE_RANGE,
	    .lower = overlapping_lower,
	    .upper = upper,
	    .count = 2};
	static const struct dcistat_histogram too_many = {
	    .kind = DCISTAT_HISTOGRAM_CONTINUOUS,
	    .layout = DCISTAT_LAYOUT_LINEAR,
	    .low = 0,
	    .high = 100000,
	    .step = 1};
	struct dcistat_voi_info voi = {.id = 1,
	    .name = "v",
	    .statistics = DCISTAT_VOI_HISTOGRAM,
	    .histogram = &overlap};
	struct dcistat_supplier *supplier;

	directory_make();
	supplier = supplier_open("refusals", 4);
	ck_assert_ptr_null(dcistat_template_add(supplier, 1, "t", &voi, 1));
	ck_assert_ptr_nonnull(strstr(dcistat_supplier_error(), "overlap"));
	voi.histogram = &too_many;
	ck_assert_ptr_null(dcistat_template_add(supplier, 2, "t", &voi, 1));
	ck_assert_ptr_nonnull(strstr(dcistat_supplier_error(), "buckets"));
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

/* --- evcnt --- */

START_TEST(test_evcnt_parent_rules)
{
	struct dcistat_supplier *supplier;
	struct dcistat_evcnt *parent, *child;
	struct reading reading;

	directory_make();
	supplier = supplier_open("evcnt", 4);
	parent = dcistat_evcnt_attach(
	    supplier, DCISTAT_EVCNT_TYPE_INTR, NULL, "irq", "total");
	child = dcistat_evcnt_attach(
	    supplier, DCISTAT_EVCNT_TYPE_INTR, parent, "irq", "line0");
	ck_assert_ptr_nonnull(parent);
	ck_assert_ptr_nonnull(child);
	dcistat_evcnt_add(child, 41);
	dcistat_evcnt_increment(child);
	/* A parent goes after its children. */
	ck_assert_int_eq(dcistat_evcnt_detach(parent), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_str_eq(dcistat_supplier_error(),
	    "evcnt: 1 counters attached under this one are to be detached "
	    "first");
	errno = 0;
	ck_assert_int_eq(dcistat_evcnt_detach(NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(dcistat_supplier_error(), "evcnt: no counter");
	ck_assert_int_eq(dcistat_devstat_remove(NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(dcistat_supplier_error(), "devstat: no device");
	reading_open(&reading, dcistat_supplier_path(supplier));
	ck_assert_uint_eq(reading_value(&reading, "irq line0", "count", NULL),
	    42);
	ck_assert_uint_eq(reading_value(&reading, "irq line0", "type", NULL),
	    DCISTAT_EVCNT_TYPE_INTR);
	reading_close(&reading);
	ck_assert_int_eq(dcistat_evcnt_detach(child), 0);
	ck_assert_int_eq(dcistat_evcnt_detach(parent), 0);
	/* And cannot be attached under a detached one. */
	ck_assert_ptr_null(dcistat_evcnt_attach(
	    supplier, DCISTAT_EVCNT_TYPE_MISC, parent, "irq", "late"));
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

/* --- devstat busy time --- */

static uint64_t
coarse_nanoseconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Whether CLOCK_MONOTONIC_COARSE ticks at least every 10 ms, as
 * devstat(9)'s clock did at hz 100: then transactions read it. */
static bool
coarse_clock_fine_enough(void)
{
	struct timespec tick;

	return clock_getres(CLOCK_MONOTONIC_COARSE, &tick) == 0 &&
	       tick.tv_sec == 0 && tick.tv_nsec <= 10000000L;
}

/* The tick of the transactions' clock, rounded up to milliseconds. */
static unsigned
transaction_tick_milliseconds(void)
{
	struct timespec tick;

	if (!coarse_clock_fine_enough() ||
	    clock_getres(CLOCK_MONOTONIC_COARSE, &tick) != 0)
		return 0;
	return (unsigned)((tick.tv_nsec + 999999) / 1000000);
}

/* Start and end read the clock as of the kernel's last tick (a few
 * nanoseconds instead of a full clock read) when that tick is no coarser
 * than devstat(9)'s: each start time lies between two reads of
 * CLOCK_MONOTONIC_COARSE around it. A full CLOCK_MONOTONIC read is ahead
 * of them, up to a tick. */
START_TEST(test_devstat_reads_the_tick_clock)
{
	struct dcistat_supplier *supplier;
	struct dcistat_devstat *device;
	unsigned ahead = 0;

	if (!coarse_clock_fine_enough())
		return;
	directory_make();
	supplier = supplier_open("devstat_tick", 4);
	device = dcistat_devstat_add(supplier, "da", 2, 512, 0, 0, 0);
	ck_assert_ptr_nonnull(device);
	for (int i = 0; i < 1000; i++) {
		uint64_t before = coarse_nanoseconds();
		uint64_t start = dcistat_devstat_start_transaction(device);
		uint64_t after = coarse_nanoseconds();

		ahead += start < before || start > after;
		dcistat_devstat_end_transaction(
		    device, 0, DCISTAT_DEVSTAT_NO_DATA, start);
	}
	ck_assert_uint_eq(ahead, 0);
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

START_TEST(test_devstat_busy)
{
	struct dcistat_supplier *supplier;
	struct dcistat_devstat *device;
	struct reading reading;
	struct timespec pause = {0, 20 * 1000 * 1000};
	uint64_t first, second;

	directory_make();
	supplier = supplier_open("devstat", 4);
	device = dcistat_devstat_add(supplier, "da", 1, 512, 0, 0, 0x110);
	ck_assert_ptr_nonnull(device);
	/* Two overlapping transactions: busy while either is out. */
	first = dcistat_devstat_start_transaction(device);
	nanosleep(&pause, NULL);
	second = dcistat_devstat_start_transaction(device);
	reading_open(&reading, dcistat_supplier_path(supplier));
	ck_assert_uint_eq(reading_value(&reading, "da1", "busy_count", NULL), 2);
	reading_close(&reading);
	dcistat_devstat_end_transaction(device, 1024, DCISTAT_DEVSTAT_READ, first);
	nanosleep(&pause, NULL);
	dcistat_devstat_end_transaction(device, 0, DCISTAT_DEVSTAT_FREE, second);
	reading_open(&reading, dcistat_supplier_path(supplier));
	ck_assert_uint_eq(reading_value(&reading, "da1", "busy_count", NULL), 0);
	/* 40 ms busy, served in ms; the sleeps last at least that long,
	 * less a tick of the clock the transactions read (each time is the
	 * clock as of its last tick). */
	ck_assert_uint_ge(reading_value(&reading, "da1", "busy_time", NULL),
	    40 - transaction_tick_milliseconds());
	ck_assert_uint_lt(reading_value(&reading, "da1", "busy_time", NULL),
	    2000);
	ck_assert_uint_ge(reading_value(&reading, "da1", "duration_read", NULL),
	    20 - transaction_tick_milliseconds());
	ck_assert_uint_eq(reading_value(&reading, "da1", "bytes_read", NULL),
	    1024);
	ck_assert_uint_eq(reading_value(&reading, "da1", "num_frees", NULL), 1);
	ck_assert_uint_eq(reading_value(&reading, "da1", "block_size", NULL),
	    512);
	ck_assert_uint_eq(reading_value(&reading, "da1", "priority", NULL),
	    0x110);
	reading_close(&reading);
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

/* The _at variants with the caller's times: busy time and durations
 * exact, in milliseconds as served. */
START_TEST(test_devstat_at_times)
{
	const uint64_t ms = 1000000; /* nanoseconds */
	struct dcistat_supplier *supplier;
	struct dcistat_devstat *device;
	struct reading reading;
	uint64_t first, second;

	directory_make();
	supplier = supplier_open("devstat", 4);
	device = dcistat_devstat_add(supplier, "da", 2, 512, 0, 0, 0);
	ck_assert_ptr_nonnull(device);
	/* Busy from 10 to 70 ms: two transactions overlapping. */
	first = dcistat_devstat_start_transaction_at(device, 10 * ms);
	ck_assert_uint_eq(first, 10 * ms);
	second = dcistat_devstat_start_transaction_at(device, 30 * ms);
	dcistat_devstat_end_transaction_at(
	    device, 4096, DCISTAT_DEVSTAT_READ, first, 50 * ms);
	dcistat_devstat_end_transaction_at(
	    device, 512, DCISTAT_DEVSTAT_WRITE, second, 70 * ms);
	/* Then from 100 to 130 ms. */
	first = dcistat_devstat_start_transaction_at(device, 100 * ms);
	dcistat_devstat_end_transaction_at(
	    device, 1024, DCISTAT_DEVSTAT_READ, first, 130 * ms);
	/* A time that went back: no busy time, no duration. */
	first = dcistat_devstat_start_transaction_at(device, 200 * ms);
	dcistat_devstat_end_transaction_at(
	    device, 0, DCISTAT_DEVSTAT_READ, first, 150 * ms);
	reading_open(&reading, dcistat_supplier_path(supplier));
	ck_assert_uint_eq(reading_value(&reading, "da2", "busy_count", NULL), 0);
	ck_assert_uint_eq(reading_value(&reading, "da2", "busy_time", NULL), 90);
	ck_assert_uint_eq(
	    reading_value(&reading, "da2", "duration_read", NULL), 70);
	ck_assert_uint_eq(
	    reading_value(&reading, "da2", "duration_write", NULL), 40);
	ck_assert_uint_eq(
	    reading_value(&reading, "da2", "bytes_read", NULL), 5120);
	ck_assert_uint_eq(
	    reading_value(&reading, "da2", "bytes_written", NULL), 512);
	ck_assert_uint_eq(reading_value(&reading, "da2", "num_reads", NULL), 3);
	reading_close(&reading);
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

/* --- Generic classes --- */

START_TEST(test_generic_class)
{
	static const uint32_t id[] = {20, 1};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_CHANNEL, 4}};
	static const struct dci_datum_info datums[] = {
	    {.id = 1,
	        .label = "requests",
	        .type = DCI_ST_INTEGER64,
	        .format = DCI_SIF_UNSIGNED,
	        .semantics = DCI_SEMANTICS_COUNTER},
	    {.id = 2,
	        .label = "depth",
	        .type = DCI_ST_INTEGER32,
	        .semantics = DCI_SEMANTICS_GAUGE},
	    {.id = 3,
	        .label = "state",
	        .type = DCI_ST_STRING,
	        .size = 16,
	        .semantics = DCI_SEMANTICS_DISCRETE},
	};
	static const uint32_t model_id[] = {1};
	struct dci_class_info info = {.id = id,
	    .id_length = 2,
	    .label = "pool",
	    .levels = levels,
	    .level_count = 1,
	    .datums = datums,
	    .datum_count = 3};
	struct dcistat_supplier *supplier;
	struct dcistat_class *class_handle;
	struct dcistat_instance *instance, *removed;
	struct reading reading;
	uint32_t instance_id = 9;
	int requests, depth, state;

	directory_make();
	supplier = supplier_open("generic", 4);
	class_handle = dcistat_class_add(supplier, &info);
	ck_assert_ptr_nonnull(class_handle);
	/* A second class with the same id, and a model's id, are refused. */
	ck_assert_ptr_null(dcistat_class_add(supplier, &info));
	info.id = model_id;
	info.id_length = 1;
	ck_assert_ptr_null(dcistat_class_add(supplier, &info));
	requests = dcistat_datum_index(class_handle, 1);
	depth = dcistat_datum_index(class_handle, 2);
	state = dcistat_datum_index(class_handle, 3);
	ck_assert_int_eq(dcistat_datum_index(class_handle, 4), -1);
	instance = dcistat_instance_add(class_handle, &instance_id, 1, "p9");
	instance_id = 10;
	removed = dcistat_instance_add(class_handle, &instance_id, 1, "p10");
	ck_assert_ptr_nonnull(instance);
	ck_assert_ptr_nonnull(removed);
	dcistat_value_add(instance, requests, 5);
	dcistat_value_add(instance, depth, 3);
	dcistat_value_add(instance, depth, (uint64_t)-1);
	ck_assert_int_eq(dcistat_value_set(instance, requests, 1), -1);
	ck_assert_int_eq(dcistat_value_set_string(instance, state, "running"), 0);
	ck_assert_int_eq(dcistat_instance_remove(removed), 0);
	reading_open(&reading, dcistat_supplier_path(supplier));
	ck_assert_uint_eq(reading_value(&reading, "p9", "requests", NULL), 5);
	ck_assert_int_eq(
	    (int64_t)reading_value(&reading, "p9", "depth", NULL), 2);
	ck_assert_uint_eq(segment_instance_high(&reading.view), 2);
	reading_close(&reading);
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

/* --- The reader's refusals --- */

START_TEST(test_reader_refuses_malformed)
{
	struct dcistat_supplier *supplier;
	struct segment_view view;
	struct dcistat_segment_header *header;
	unsigned char *copy;
	size_t size;
	char why[256];
	int descriptor;
	struct stat status;

	directory_make();
	supplier = supplier_open("malformed", 4);
	ck_assert_ptr_nonnull(dcistat_evcnt_attach(
	    supplier, DCISTAT_EVCNT_TYPE_MISC, NULL, "a", "b"));
	descriptor = open(dcistat_supplier_path(supplier), O_RDONLY);
	ck_assert_int_eq(fstat(descriptor, &status), 0);
	size = (size_t)status.st_size;
	copy = malloc(size);
	ck_assert_int_eq(pread(descriptor, copy, size, 0), (ssize_t)size);
	close(descriptor);
	header = (struct dcistat_segment_header *)copy;
	ck_assert_int_eq(segment_view_open(copy, size, &view, why, sizeof(why)), 0);
	/* Truncated. */
	ck_assert_int_eq(
	    segment_view_open(copy, size - 8, &view, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "the header says"));
	/* A table past the end. */
	header->instance_offset = size - 64;
	ck_assert_int_eq(segment_view_open(copy, size, &view, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "outside the file"));
	header->instance_offset = header->datum_offset;
	/* A count past its capacity is cut to it; a class whose datums lie
	 * past those published is refused. */
	header->class_capacity = 4;
	ck_assert_int_eq(segment_view_open(copy, size, &view, why, sizeof(why)), 0);
	{
		struct segment_class class_copy;
		struct dcistat_segment_class *record =
		    (struct dcistat_segment_class *)(copy + header->class_offset);
		record->datum_count = 100000;
		ck_assert_int_eq(segment_class_read(&view, 0, &class_copy, why,
		                     sizeof(why)),
		    -1);
		ck_assert_ptr_nonnull(strstr(why, "datums"));
		record->datum_count = 4;
		record->label[sizeof(record->label) - 1] = 'x';
		memset(record->label, 'x', sizeof(record->label));
		ck_assert_int_eq(segment_class_read(&view, 0, &class_copy, why,
		                     sizeof(why)),
		    -1);
		ck_assert_ptr_nonnull(strstr(why, "NUL"));
	}
	/* Not a segment at all. */
	memset(copy, 0x5a, 64);
	ck_assert_int_eq(segment_view_open(copy, size, &view, why, sizeof(why)), -1);
	free(copy);
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

/* A writer killed between begun and ended: the reader gives up on that
 * instance after its bounded tries, and reads the others. */
START_TEST(test_reader_skips_frozen_writer)
{
	struct dcistat_supplier *supplier;
	struct dcistat_evcnt *frozen, *fine;
	struct reading reading;
	uint32_t high;
	int descriptor;
	char why[256];
	int skipped = 0, read = 0;

	directory_make();
	supplier = supplier_open("frozen", 4);
	frozen = dcistat_evcnt_attach(
	    supplier, DCISTAT_EVCNT_TYPE_MISC, NULL, "a", "frozen");
	fine = dcistat_evcnt_attach(
	    supplier, DCISTAT_EVCNT_TYPE_MISC, NULL, "a", "fine");
	dcistat_evcnt_increment(frozen);
	dcistat_evcnt_increment(fine);
	/* Freeze: bump `begun` of the first instance's block in region 0. */
	reading_open(&reading, dcistat_supplier_path(supplier));
	{
		struct segment_instance instance;
		uint32_t begun = 1;
		off_t at;
		ck_assert_int_eq(segment_instance_read(&reading.view, 0,
		                     reading.classes, reading.class_count,
		                     &instance, why, sizeof(why)),
		    1);
		at = (off_t)(reading.view.region_offset + 8 * instance.block);
		descriptor = open(dcistat_supplier_path(supplier), O_WRONLY);
		ck_assert_int_eq(pwrite(descriptor, &begun, 4, at), 4);
		close(descriptor);
	}
	high = segment_instance_high(&reading.view);
	for (uint32_t i = 0; i < high; i++) {
		struct segment_instance instance;
		struct segment_value values[8];
		if (segment_instance_read(&reading.view, i, reading.classes,
		        reading.class_count, &instance, why, sizeof(why)) != 1)
			continue;
		reading.scratch.valid = false;
		if (segment_values_read(&reading.view,
		        &reading.classes[instance.class_index], &instance, 0,
		        &reading.scratch, values) != 0) {
			skipped++;
			ck_assert_str_eq(instance.label, "a frozen");
		} else {
			read++;
			ck_assert_str_eq(instance.label, "a fine");
			ck_assert_uint_eq(values[0].number, 1);
		}
	}
	ck_assert_int_eq(skipped, 1);
	ck_assert_int_eq(read, 1);
	reading_close(&reading);
	dcistat_supplier_close(supplier);
	directory_remove();
}
END_TEST

START_TEST(test_open_refusals)
{
	struct dci_supplier_info info = {.module = "bad module"};
	struct dcistat_supplier_options options = {
	    .size = sizeof(options), .directory = "/nonexistent/dir"};

	ck_assert_ptr_null(dcistat_supplier_open(&info, 1, &options));
	ck_assert_ptr_nonnull(strstr(dcistat_supplier_error(), "module"));
	info.module = "good";
	ck_assert_ptr_null(dcistat_supplier_open(&info, 0, &options));
	ck_assert_ptr_null(dcistat_supplier_open(&info, 1, &options));
	ck_assert_ptr_nonnull(strstr(dcistat_supplier_error(), "/nonexistent"));
}
END_TEST

static Suite *
supplier_suite(void)
{
	Suite *suite = suite_create("supplier");
	TCase *library = tcase_create("library");

	tcase_set_timeout(library, 120);
	tcase_add_test(library, test_threads_exact_own_regions);
	tcase_add_test(library, test_threads_exact_shared_region);
	tcase_add_test(library, test_digest_own_regions);
	tcase_add_test(library, test_digest_shared_region);
	tcase_add_test(library, test_histogram_bounds);
	tcase_add_test(library, test_histogram_discrete_and_relative);
	tcase_add_test(library, test_histogram_refusals);
	tcase_add_test(library, test_evcnt_parent_rules);
	tcase_add_test(library, test_devstat_busy);
	tcase_add_test(library, test_devstat_at_times);
	tcase_add_test(library, test_devstat_reads_the_tick_clock);
	tcase_add_test(library, test_generic_class);
	tcase_add_test(library, test_reader_refuses_malformed);
	tcase_add_test(library, test_reader_skips_frozen_writer);
	tcase_add_test(library, test_open_refusals);
	suite_add_tcase(suite, library);
	return suite;
}

int
main(void)
{
	return unit_run_suite(supplier_suite());
}
