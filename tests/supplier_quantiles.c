/*
 * An application supplier with a t-digest VOI, for
 * tests/integration/supplier_quantiles.sh: template 1 ("requests") with
 * VOI 1 ("latency", unsigned, microseconds, SUM and TDIGEST), one blob
 * (id 1, "api"). THREADS threads add the samples 1..SAMPLES between them,
 * thread t the values t+1, t+1+THREADS, ..., so that each thread region's
 * digest holds a part and only their merge has every sample. Prints
 * "ready" once every update is made, then waits for stdin to end.
 *
 * Usage: supplier_quantiles DIRECTORY MODULE NUMBER THREADS SAMPLES
 */
#define _GNU_SOURCE
#include <dcistat/supplier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define QUANTILES_THREADS_MAX 64

static struct dcistat_blob *blob;
static unsigned long thread_count, sample_count;

static void *
quantiles_worker(void *argument)
{
	unsigned long first = (unsigned long)(uintptr_t)argument + 1;

	for (unsigned long value = first; value <= sample_count;
	     value += thread_count)
		dcistat_voi_update_absolute(blob, 0, (int64_t)value);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct dcistat_voi_info voi = {.id = 1,
	    .name = "latency",
	    .statistics = DCISTAT_VOI_SUM | DCISTAT_VOI_TDIGEST,
	    .unit = DCI_UNIT_MICROSECONDS};
	struct dci_supplier_info info = {.module = NULL,
	    .title = "Quantiles application",
	    .description = "tests/supplier_quantiles.c",
	    .version = 1};
	struct dcistat_supplier_options options = {.size = sizeof(options)};
	pthread_t threads[QUANTILES_THREADS_MAX];
	struct dcistat_supplier *supplier;
	struct dcistat_template *template_handle;
	char line[64];

	if (argc != 6) {
		fprintf(stderr,
		    "usage: %s DIRECTORY MODULE NUMBER THREADS SAMPLES\n",
		    argv[0]);
		return 2;
	}
	options.directory = argv[1];
	info.module = argv[2];
	thread_count = strtoul(argv[4], NULL, 10);
	sample_count = strtoul(argv[5], NULL, 10);
	if (thread_count == 0 || thread_count > QUANTILES_THREADS_MAX)
		return 2;
	supplier = dcistat_supplier_open(
	    &info, (uint32_t)strtoul(argv[3], NULL, 10), &options);
	template_handle = supplier != NULL ? dcistat_template_add(supplier, 1,
	                                         "requests", &voi, 1)
	                                   : NULL;
	blob = template_handle != NULL
	           ? dcistat_blob_add(template_handle, 1, "api")
	           : NULL;
	if (blob == NULL) {
		fprintf(stderr, "%s: %s\n", argv[0], dcistat_supplier_error());
		return 1;
	}
	for (unsigned long t = 0; t < thread_count; t++)
		if (pthread_create(&threads[t], NULL, quantiles_worker,
		        (void *)(uintptr_t)t) != 0)
			return 1;
	for (unsigned long t = 0; t < thread_count; t++)
		pthread_join(threads[t], NULL);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL)
		;
	dcistat_supplier_close(supplier);
	return 0;
}
