/*
 * supplier_bench: libdcistat-supplier's update path against PCP's MMV
 * (libpcp_mmv), and the suppliers provider's read of many segments.
 * Built and run by bench/supplier, which pins it or not; prints one
 * "name value unit" line per figure.
 *
 *   evcnt_1thread       ns per dcistat_evcnt_increment
 *   mmv_1thread         ns per mmv_inc_value (HAVE_MMV)
 *   plain_1thread       ns per ++ of a plain uint64_t (the floor)
 *   evcnt_2threads      ns per increment, two threads on one counter
 *   evcnt_lost          increments lost with two threads (read back)
 *   mmv_2threads, mmv_lost
 *   voi_32buckets       ns per dcistat_voi_update_absolute, 32 buckets
 *   devstat_pair        ns per start + end transaction
 *   devstat_pair_at     the same with the caller's times (_at variants)
 *   read_segments       CPU ms to read 1,000 segments x 100 instances x
 *                       20 datums as the provider does
 *   bytes_per_value     segment bytes per value served
 */
#define _GNU_SOURCE
#include <dcistat/supplier.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_MMV
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#endif

#include "providers/suppliers/segment_reader.h"

static double
seconds(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long iterations = 20000000;
static const char *directory;
static struct dcistat_evcnt *counter;
static volatile uint64_t plain;
#ifdef HAVE_MMV
static void *mmv_map;
static pmAtomValue *mmv_value;
#endif

static void *
evcnt_loop(void *argument)
{
	(void)argument;
	for (long i = 0; i < iterations; i++)
		dcistat_evcnt_increment(counter);
	return NULL;
}

#ifdef HAVE_MMV
static void *
mmv_loop(void *argument)
{
	(void)argument;
	for (long i = 0; i < iterations; i++)
		mmv_inc_value(mmv_map, mmv_value, 1);
	return NULL;
}
#endif

static void *
plain_loop(void *argument)
{
	(void)argument;
	for (long i = 0; i < iterations; i++)
		plain = plain + 1;
	return NULL;
}

/* ns per operation of `loop` run by `threads` threads at once. */
static double
timed(void *(*loop)(void *), int threads)
{
	pthread_t thread[2];
	double start = seconds(CLOCK_MONOTONIC);
	for (int t = 0; t < threads; t++)
		pthread_create(&thread[t], NULL, loop, NULL);
	for (int t = 0; t < threads; t++)
		pthread_join(thread[t], NULL);
	return (seconds(CLOCK_MONOTONIC) - start) * 1e9 / (double)iterations;
}

/* The value of the first instance's first datum in a segment file. */
static uint64_t
segment_first_value(const char *path)
{
	int descriptor = open(path, O_RDONLY);
	struct stat status;
	struct segment_view view;
	struct segment_class class_copy;
	struct segment_instance instance;
	struct segment_scratch scratch = {0};
	struct segment_value values[8];
	char why[256];
	void *base;
	uint64_t value = 0;

	fstat(descriptor, &status);
	base = mmap(NULL, (size_t)status.st_size, PROT_READ, MAP_SHARED,
	    descriptor, 0);
	close(descriptor);
	if (segment_view_open(base, (size_t)status.st_size, &view, why,
	        sizeof(why)) == 0 &&
	    segment_class_read(&view, 0, &class_copy, why, sizeof(why)) == 0) {
		if (segment_instance_read(&view, 0, &class_copy, 1, &instance,
		        why, sizeof(why)) == 1 &&
		    segment_values_read(&view, &class_copy, &instance, 0,
		        &scratch, values) == 0)
			value = values[0].number;
		segment_class_clear(&class_copy);
	}
	segment_scratch_clear(&scratch);
	munmap(base, (size_t)status.st_size);
	return value;
}

static void
update_path(void)
{
	struct dci_supplier_info info = {.module = "bench", .title = "b"};
	struct dcistat_supplier_options options = {
	    .size = sizeof(options), .directory = directory};
	struct dcistat_supplier *supplier =
	    dcistat_supplier_open(&info, 1, &options);
	struct dcistat_histogram buckets = {.kind = DCISTAT_HISTOGRAM_CONTINUOUS,
	    .layout = DCISTAT_LAYOUT_LINEAR, .low = 0, .high = 32, .step = 1};
	struct dcistat_voi_info voi = {.id = 1, .name = "v",
	    .statistics = DCISTAT_VOI_SUM | DCISTAT_VOI_MAX | DCISTAT_VOI_MIN |
	                  DCISTAT_VOI_HISTOGRAM,
	    .histogram = &buckets};
	struct dcistat_template *template_handle;
	struct dcistat_blob *blob;
	struct dcistat_devstat *device;
	double start;

	if (supplier == NULL) {
		fprintf(stderr, "%s\n", dcistat_supplier_error());
		exit(1);
	}
	counter = dcistat_evcnt_attach(
	    supplier, DCISTAT_EVCNT_TYPE_MISC, NULL, "bench", "count");
	printf("evcnt_1thread %.2f ns\n", timed(evcnt_loop, 1));
	printf("plain_1thread %.2f ns\n", timed(plain_loop, 1));
	printf("evcnt_2threads %.2f ns\n", timed(evcnt_loop, 2));
	printf("evcnt_lost %lld count\n",
	    (long long)(3 * (uint64_t)iterations -
	                segment_first_value(dcistat_supplier_path(supplier))));
#ifdef HAVE_MMV
	{
		mmv_registry_t *registry =
		    mmv_stats_registry("dcistat_bench", 42, 0);
		pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
		mmv_stats_add_metric(registry, "count", 1, MMV_TYPE_U64,
		    MMV_SEM_COUNTER, count, MMV_INDOM_NULL, "c", "c");
		mmv_map = mmv_stats_start(registry);
		mmv_value = mmv_lookup_value_desc(mmv_map, "count", NULL);
		if (mmv_value == NULL) {
			fprintf(stderr, "MMV: no value\n");
		} else {
			printf("mmv_1thread %.2f ns\n", timed(mmv_loop, 1));
			printf("mmv_2threads %.2f ns\n", timed(mmv_loop, 2));
			printf("mmv_lost %lld count\n",
			    (long long)(3 * (uint64_t)iterations -
			                mmv_value->ull));
		}
		mmv_stats_stop("dcistat_bench", mmv_map);
	}
#endif
	template_handle = dcistat_template_add(supplier, 1, "t", &voi, 1);
	blob = dcistat_blob_add(template_handle, 1, "b");
	start = seconds(CLOCK_MONOTONIC);
	for (long i = 0; i < iterations; i++)
		dcistat_voi_update_absolute(blob, 0, i & 31);
	printf("voi_32buckets %.2f ns\n",
	    (seconds(CLOCK_MONOTONIC) - start) * 1e9 / (double)iterations);
	device = dcistat_devstat_add(supplier, "bd", 0, 512, 0, 0, 0);
	start = seconds(CLOCK_MONOTONIC);
	for (long i = 0; i < iterations / 4; i++) {
		uint64_t begun = dcistat_devstat_start_transaction(device);
		dcistat_devstat_end_transaction(
		    device, 4096, DCISTAT_DEVSTAT_READ, begun);
	}
	printf("devstat_pair %.2f ns\n", (seconds(CLOCK_MONOTONIC) - start) *
	                                      1e9 / (double)(iterations / 4));
	/* The caller's own times (_at): the cost without the clock reads. */
	start = seconds(CLOCK_MONOTONIC);
	for (long i = 0; i < iterations / 4; i++) {
		uint64_t begun = dcistat_devstat_start_transaction_at(
		    device, (uint64_t)i * 2000u);
		dcistat_devstat_end_transaction_at(device, 4096,
		    DCISTAT_DEVSTAT_READ, begun, (uint64_t)i * 2000u + 1000u);
	}
	printf("devstat_pair_at %.2f ns\n",
	    (seconds(CLOCK_MONOTONIC) - start) * 1e9 /
	        (double)(iterations / 4));
	dcistat_supplier_close(supplier);
}

/* 1,000 segments x 100 instances x 20 counters, read as the suppliers
 * provider reads them each refresh (its segment_read loop). */
static void
read_path(void)
{
	enum { SEGMENTS = 1000, INSTANCES = 100, DATUMS = 20, ROUNDS = 5 };
	static struct dcistat_supplier *suppliers[SEGMENTS];
	struct dci_datum_info datums[DATUMS];
	char labels[DATUMS][16];
	static const uint32_t class_id[] = {16};
	static const struct dci_instance_level level = {DCI_ITYPE_CHANNEL, 4};
	struct dci_class_info info = {.id = class_id, .id_length = 1,
	    .label = "c", .levels = &level, .level_count = 1,
	    .datums = datums, .datum_count = DATUMS};
	struct segment_value values[DATUMS];
	struct segment_scratch scratch = {0};
	double best = 1e9, touched = 0;

	for (int d = 0; d < DATUMS; d++) {
		snprintf(labels[d], sizeof(labels[d]), "d%d", d);
		datums[d] = (struct dci_datum_info){.id = (uint32_t)d + 1,
		    .label = labels[d], .type = DCI_ST_INTEGER64,
		    .format = DCI_SIF_UNSIGNED,
		    .semantics = DCI_SEMANTICS_COUNTER};
	}
	for (int s = 0; s < SEGMENTS; s++) {
		char module[32];
		struct dci_supplier_info supplier = {.module = module};
		struct dcistat_supplier_options options = {
		    .size = sizeof(options), .directory = directory,
		    .thread_regions = 4, .classes = 2, .datums = DATUMS,
		    .instances = INSTANCES, .region_words = 4096};
		struct dcistat_class *class_handle;
		snprintf(module, sizeof(module), "s%d", s);
		suppliers[s] = dcistat_supplier_open(&supplier, 1, &options);
		if (suppliers[s] == NULL) {
			fprintf(stderr, "%s\n", dcistat_supplier_error());
			exit(1);
		}
		class_handle = dcistat_class_add(suppliers[s], &info);
		for (uint32_t i = 0; i < INSTANCES; i++) {
			char label[16];
			struct dcistat_instance *instance;
			snprintf(label, sizeof(label), "i%u", i);
			instance = dcistat_instance_add(class_handle, &i, 1, label);
			for (int d = 0; d < DATUMS; d++)
				dcistat_value_add(instance, d, i + (uint32_t)d);
		}
	}
	/* Mapped once, as the provider keeps them; each round is one
	 * refresh's reading. */
	static struct segment_view views[SEGMENTS];
	static struct segment_class classes[SEGMENTS];
	for (int s = 0; s < SEGMENTS; s++) {
		const char *path = dcistat_supplier_path(suppliers[s]);
		int descriptor = open(path, O_RDONLY | O_NOFOLLOW);
		struct stat status;
		char why[256];
		void *base;

		fstat(descriptor, &status);
		base = mmap(NULL, (size_t)status.st_size, PROT_READ, MAP_SHARED,
		    descriptor, 0);
		close(descriptor);
		segment_view_open(base, (size_t)status.st_size, &views[s], why,
		    sizeof(why));
		segment_class_read(&views[s], 0, &classes[s], why, sizeof(why));
	}
	for (int round = 0; round < ROUNDS; round++) {
		double start = seconds(CLOCK_PROCESS_CPUTIME_ID);
		uint64_t check = 0;
		touched = 0;
		for (int s = 0; s < SEGMENTS; s++) {
			struct segment_view *view = &views[s];
			char why[256];
			segment_scratch_clear(&scratch);
			for (uint32_t i = 0; i < segment_instance_high(view); i++) {
				struct segment_instance instance;
				if (segment_instance_read(view, i, &classes[s], 1,
				        &instance, why, sizeof(why)) != 1)
					continue;
				segment_values_read(view, &classes[s], &instance,
				    0, &scratch, values);
				check += values[DATUMS - 1].number;
				touched += (double)(instance.block_words *
				                    (segment_regions_in_use(view) + 1) * 8);
			}
		}
		double spent = seconds(CLOCK_PROCESS_CPUTIME_ID) - start;
		if (spent < best)
			best = spent;
		if (check == 0)
			fprintf(stderr, "nothing read\n");
	}
	for (int s = 0; s < SEGMENTS; s++) {
		segment_class_clear(&classes[s]);
		munmap((void *)views[s].base, views[s].size);
	}
	printf("read_segments %.2f ms\n", best * 1e3);
	printf("bytes_per_value %.1f bytes\n",
	    touched / (double)(SEGMENTS * INSTANCES * DATUMS));
	for (int s = 0; s < SEGMENTS; s++)
		dcistat_supplier_close(suppliers[s]);
	segment_scratch_clear(&scratch);
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s DIRECTORY update|read [ITERATIONS]\n",
		    argv[0]);
		return 2;
	}
	directory = argv[1];
	if (argc > 3)
		iterations = strtol(argv[3], NULL, 10);
	if (strcmp(argv[2], "update") == 0)
		update_path();
	else
		read_path();
	return 0;
}
