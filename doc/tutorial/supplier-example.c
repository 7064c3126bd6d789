/*
 * dcistat-supplier-example: an application that publishes its own
 * statistics to dcistatd with libdcistat-supplier, using the four kinds the
 * library offers. Build it out of tree as doc/SUPPLIERS.md shows:
 *
 *   cc -std=c11 $(pkg-config --cflags dcistat-supplier) \
 *      -o supplier-example supplier-example.c \
 *      $(pkg-config --libs dcistat-supplier) -lpthread
 *
 * It starts THREADS threads (default 4) that each do ITERATIONS (default
 * 100000) rounds of: one evcnt increment, one devstat transaction of 512
 * bytes (reads and writes alternating), one latency sample (the round
 * number modulo 1000, in microseconds) in a histogram VOI, and one queue
 * depth change in a generic class. It then prints what it counted, in the
 * shape dcistat serves it, and waits until it is killed (or exits at once
 * with -x), so that the values can be read over SNMP.
 *
 * Usage: supplier-example [-t THREADS] [-n ITERATIONS] [-d DIRECTORY] [-x]
 */
#define _GNU_SOURCE

#include <dcistat/supplier.h>

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The application's class arc: {3, EXAMPLE_NUMBER, ...}. */
#define EXAMPLE_NUMBER 4242u
#define EXAMPLE_TEMPLATE 1u
#define EXAMPLE_VOI_LATENCY 1u

static struct dcistat_evcnt *requests, *requests_total;
static struct dcistat_devstat *disk;
static struct dcistat_blob *service;
static struct dcistat_instance *queue;
static int latency_index, queue_depth_index;
static long iterations = 100000;

static void *
worker(void *argument)
{
	(void)argument;
	for (long i = 0; i < iterations; i++) {
		uint64_t start;

		dcistat_evcnt_increment(requests);
		start = dcistat_devstat_start_transaction(disk);
		dcistat_devstat_end_transaction(disk, 512,
		    i % 2 ? DCISTAT_DEVSTAT_WRITE : DCISTAT_DEVSTAT_READ, start);
		dcistat_voi_update_absolute(service, latency_index, i % 1000);
		dcistat_value_add(queue, queue_depth_index, 1);
		dcistat_value_add(queue, queue_depth_index, (uint64_t)-1);
	}
	return NULL;
}

/* The application's four kinds of statistic: an evcnt pair (a parent
 * counting all, a child counting requests), a devstat disk, a histogram
 * VOI of latencies in a template instance, and a generic class with one
 * gauge. Returns 0, or -1 with dcistat_supplier_error() saying why. */
static int
publish(struct dcistat_supplier *supplier)
{
	static const uint32_t queue_class_id[] = {16};
	static const struct dci_instance_level queue_levels[] = {
	    {.itype = DCI_ITYPE_SINGLEINST, .size = 4}};
	static const struct dci_datum_info queue_datums[] = {
	    {.id = 1,
	        .label = "depth",
	        .type = DCI_ST_INTEGER32,
	        .format = 0,
	        .presentation = DCI_SIP_DECIMAL,
	        .volatility = DCI_SV_VOLATILE,
	        .unit = DCI_UNIT_COUNT,
	        .semantics = DCI_SEMANTICS_GAUGE,
	        .description = "Requests waiting"},
	};
	static const struct dci_class_info queue_class = {.id = queue_class_id,
	    .id_length = 1,
	    .label = "queue",
	    .description = "The example's request queue",
	    .levels = queue_levels,
	    .level_count = 1,
	    .datums = queue_datums,
	    .datum_count = 1};
	static const struct dcistat_histogram latency_buckets = {
	    .kind = DCISTAT_HISTOGRAM_CONTINUOUS,
	    .layout = DCISTAT_LAYOUT_LINEAR,
	    .low = 0,
	    .high = 800,
	    .step = 100,
	    .wide = 1};
	static const struct dcistat_voi_info vois[] = {
	    {.id = EXAMPLE_VOI_LATENCY,
	        .name = "latency",
	        .statistics = DCISTAT_VOI_SUM | DCISTAT_VOI_MAX |
	                      DCISTAT_VOI_MIN | DCISTAT_VOI_HISTOGRAM,
	        .unit = DCI_UNIT_MICROSECONDS,
	        .histogram = &latency_buckets},
	};
	struct dcistat_class *queue_handle;
	struct dcistat_template *template_handle;
	uint32_t queue_id = 1;

	requests_total = dcistat_evcnt_attach(
	    supplier, DCISTAT_EVCNT_TYPE_MISC, NULL, "example", "all");
	requests = dcistat_evcnt_attach(supplier, DCISTAT_EVCNT_TYPE_MISC,
	    requests_total, "example", "requests");
	disk = dcistat_devstat_add(supplier, "exdisk", 0, 512, 0, 0, 0x110);
	template_handle = dcistat_template_add(
	    supplier, EXAMPLE_TEMPLATE, "service", vois, 1);
	service = template_handle != NULL
	              ? dcistat_blob_add(template_handle, 1, "main")
	              : NULL;
	queue_handle = dcistat_class_add(supplier, &queue_class);
	queue = queue_handle != NULL
	            ? dcistat_instance_add(queue_handle, &queue_id, 1, "main")
	            : NULL;
	if (requests_total == NULL || requests == NULL || disk == NULL ||
	    service == NULL || queue == NULL)
		return -1;
	latency_index = dcistat_voi_index(template_handle, EXAMPLE_VOI_LATENCY);
	queue_depth_index = dcistat_datum_index(queue_handle, 1);
	dcistat_value_set(queue, queue_depth_index, 0);
	return 0;
}

/* What dcistat serves once THREAD_COUNT workers are done, computed from
 * the loop they ran, for a test (or a reader) to compare. */
static void
print_expected(struct dcistat_supplier *supplier, long thread_count)
{
	uint64_t total = (uint64_t)thread_count * (uint64_t)iterations;
	uint64_t reads =
	    (uint64_t)thread_count * (uint64_t)((iterations + 1) / 2);
	uint64_t writes = total - reads;
	uint64_t bucket[8] = {0}, sum = 0, out_of_band = 0;

	for (long i = 0; i < iterations; i++) {
		long sample = i % 1000;
		if (sample < 800)
			bucket[sample / 100] += (uint64_t)thread_count;
		else
			out_of_band += (uint64_t)thread_count;
		sum += (uint64_t)sample;
	}
	printf("segment %s\n", dcistat_supplier_path(supplier));
	printf("evcnt count %" PRIu64 "\n", total);
	printf("devstat num_reads %" PRIu64 " num_writes %" PRIu64
	       " bytes_read %" PRIu64 " bytes_written %" PRIu64 "\n",
	    reads, writes, reads * 512, writes * 512);
	printf("voi samples %" PRIu64 " sum %" PRIu64 "\n", total,
	    sum * (uint64_t)thread_count);
	printf("histogram");
	for (int b = 0; b < 8; b++)
		printf(" %" PRIu64, bucket[b]);
	printf("\n");
	printf("out_of_band %" PRIu64 "\n", out_of_band);
	printf("queue depth 0\n");
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	struct dci_supplier_info info = {.module = "example_app",
	    .title = "Example application",
	    .description = "libdcistat-supplier's example",
	    .version = 100};
	struct dcistat_supplier_options options = {.size = sizeof(options)};
	struct dcistat_supplier *supplier;
	pthread_t *threads;
	long thread_count = 4;
	int option, exit_at_once = 0;
	sigset_t stop;

	while ((option = getopt(argc, argv, "t:n:d:m:x")) != -1) {
		switch (option) {
		case 't':
			thread_count = strtol(optarg, NULL, 10);
			break;
		case 'n':
			iterations = strtol(optarg, NULL, 10);
			break;
		case 'd':
			options.directory = optarg;
			break;
		case 'm':
			info.module = optarg;
			break;
		case 'x':
			exit_at_once = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-t THREADS] [-n ITERATIONS] "
			                "[-d DIRECTORY] [-m MODULE] [-x]\n",
			    argv[0]);
			return 2;
		}
	}
	if (thread_count < 1 || thread_count > 1024 || iterations < 0) {
		fprintf(stderr, "%s: bad thread or iteration count\n", argv[0]);
		return 2;
	}
	supplier = dcistat_supplier_open(&info, EXAMPLE_NUMBER, &options);
	if (supplier == NULL) {
		fprintf(stderr, "%s: %s\n", argv[0], dcistat_supplier_error());
		return 1;
	}
	if (publish(supplier) != 0) {
		fprintf(stderr, "%s: %s\n", argv[0], dcistat_supplier_error());
		dcistat_supplier_close(supplier);
		return 1;
	}

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	threads = calloc((size_t)thread_count, sizeof(*threads));
	if (threads == NULL)
		return 1;
	for (long t = 0; t < thread_count; t++)
		pthread_create(&threads[t], NULL, worker, NULL);
	for (long t = 0; t < thread_count; t++)
		pthread_join(threads[t], NULL);
	free(threads);

	print_expected(supplier, thread_count);
	if (!exit_at_once) {
		int received;
		sigwait(&stop, &received);
	}
	dcistat_supplier_close(supplier);
	return 0;
}
