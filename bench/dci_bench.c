/*
 * bench/dci's timed reader (see bench/dci and bench/README.md):
 *
 *   dci_bench dci CALLS
 *       on one connection to DCISTAT_DCI_SOCKET's DCI Server, CALLS
 *       wildcarded dciGetData of class 1.1 (netif): every instance, every
 *       datum (DCI_ALL), the library allocating the return buffer;
 *   dci_bench sys CALLS
 *       CALLS readings of what netif reads from sysfs for its counters:
 *       every file of /sys/class/net/IF/statistics/ of every interface
 *       (the names listed once, before the timing), each opened, read and
 *       parsed as a decimal number;
 * and prints one line, "median-ns N min-ns N instances N values N": the
 * median and the fastest call, and what the last call gave (instances;
 * values: the datums with a value, or the numbers read). Exit status 1
 * when a call fails.
 */
#define _GNU_SOURCE
#include <dci.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_time.h"

#define BENCH_CALLS_MAX 100000

/* A DCIMetricId of class 1.1, every instance, every datum. */
struct netif_everything {
	UMAUint4 size, class_offset, class_size, instance_offset, instance_size;
	DCIDatumId datum;
	UMAUint4 class_id[3];    /* size, 1, 1 */
	UMAUint4 instance_id[3]; /* size, levels mask, DCI_ALL */
};

/* The datums with a value in one wildcard answer: per instance, the class
 * data block less the invalid ones its DCIInvalidData lists. */
static int
dci_calls(unsigned long calls, double *samples)
{
	const struct netif_everything metric = {
	    .size = sizeof(metric),
	    .class_offset = 24,
	    .class_size = 12,
	    .instance_offset = 36,
	    .instance_size = 12,
	    .datum = DCI_ALL,
	    .class_id = {12, 1, 1},
	    .instance_id = {12, DCI_ALL_INSTANCES, DCI_ALL},
	};
	UMAUint4 class_words[3] = {12, 1, 1};
	DCIReturn *attributes = NULL;
	const DCIClassAttr *class;
	DCIHandle handle = NULL;
	UMAUint4 datums = 0, instances = 0, invalid_word = UINT32_MAX;
	unsigned long values = 0;

	if (dciOpen(&handle, NULL, 0, NULL, 0) != DCI_SUCCESS) {
		fprintf(stderr,
		    "dci_bench: dciOpen failed (DCISTAT_DCI_SOCKET?)\n");
		return 1;
	}
	if (dciGetClassAttributes(handle, (const DCIClassId *)class_words, 1,
	        &attributes, 0) != DCI_SUCCESS) {
		fprintf(stderr, "dci_bench: no class 1.1\n");
		return 1;
	}
	class = dcireturndata(attributes, 0);
	{
		const unsigned char *one =
		    (const unsigned char *)class + class->dataAttr.offset;

		for (UMAUint4 d = 0; d < class->dataAttr.count;
		     d++, one += ((const DCIDataAttr *)one)->size) {
			const DCIDataAttr *attr = (const DCIDataAttr *)one;

			if (attr->datumId == DCI_INVALIDDATUMID)
				invalid_word = attr->offset;
			else
				datums++;
		}
	}
	for (unsigned long i = 0; i < calls; i++) {
		DCIReturn *ret = NULL;
		double start = bench_now_nanoseconds();
		DCIStatus status = dciGetData(handle,
		    (const DCIMetricId *)&metric, 1, &ret, 0, NULL, NULL);

		samples[i] = bench_now_nanoseconds() - start;
		if (status != DCI_SUCCESS && status != DCI_INVALIDDATAPRESENT) {
			fprintf(stderr, "dci_bench: dciGetData: status %u\n",
			    (unsigned)status);
			return 1;
		}
		instances = ret->count;
		values = 0;
		for (UMAUint4 n = 0; n < ret->count; n++) {
			const unsigned char *data = dcireturndata(ret, n);
			UMAUint4 invalid_at = 0, invalid_count = 0;

			if (ret->retval[n].dataSize == 0)
				continue;
			/* The DCI_INVALIDDATUMID word: 0, or the offset of
			 * the DCIInvalidData appended to the block
			 * (dci(3)). */
			if (invalid_word != UINT32_MAX)
				memcpy(&invalid_at, data + invalid_word, 4);
			if (invalid_at != 0)
				memcpy(
				    &invalid_count, data + invalid_at + 4, 4);
			values += datums - invalid_count;
		}
		dciFree(ret);
	}
	dciFree(attributes);
	dciClose(handle);
	printf("instances %u values %lu", (unsigned)instances, values);
	return 0;
}

struct sys_file {
	char path[600];
};

static int
sys_calls(unsigned long calls, double *samples)
{
	struct sys_file *files = NULL;
	size_t count = 0, capacity = 0;
	unsigned long long sum = 0;
	unsigned instances = 0;
	DIR *net = opendir("/sys/class/net");
	struct dirent *interface;

	if (net == NULL)
		return 1;
	while ((interface = readdir(net)) != NULL) {
		char directory[300];
		DIR *statistics;
		struct dirent *file;

		if (interface->d_name[0] == '.')
			continue;
		snprintf(directory, sizeof(directory),
		    "/sys/class/net/%s/statistics", interface->d_name);
		statistics = opendir(directory);
		if (statistics == NULL)
			continue;
		instances++;
		while ((file = readdir(statistics)) != NULL) {
			if (file->d_name[0] == '.')
				continue;
			if (count == capacity) {
				capacity = capacity ? capacity * 2 : 1024;
				files =
				    realloc(files, capacity * sizeof(*files));
				if (files == NULL)
					return 1;
			}
			snprintf(files[count++].path, sizeof(files->path),
			    "%s/%s", directory, file->d_name);
		}
		closedir(statistics);
	}
	closedir(net);
	for (unsigned long i = 0; i < calls; i++) {
		double start = bench_now_nanoseconds();

		for (size_t f = 0; f < count; f++) {
			char text[32];
			int fd = open(files[f].path, O_RDONLY | O_CLOEXEC);
			ssize_t length;

			if (fd < 0)
				continue;
			length = read(fd, text, sizeof(text) - 1);
			close(fd);
			if (length <= 0)
				continue;
			text[length] = '\0';
			sum += strtoull(text, NULL, 10);
		}
		samples[i] = bench_now_nanoseconds() - start;
	}
	printf("instances %u values %zu", instances, count);
	free(files);
	/* The sum is used, so that no reading is optimised away. */
	return sum == 1 ? 0 : 0;
}

int
main(int argc, char **argv)
{
	unsigned long calls;
	double *samples, fastest;
	int result;

	if (argc != 3 || (calls = strtoul(argv[2], NULL, 10)) == 0 ||
	    calls > BENCH_CALLS_MAX) {
		fprintf(stderr, "usage: dci_bench dci|sys CALLS\n");
		return 2;
	}
	samples = calloc(calls, sizeof(*samples));
	if (samples == NULL)
		return 1;
	printf("%s ", argv[1]);
	if (strcmp(argv[1], "dci") == 0)
		result = dci_calls(calls, samples);
	else if (strcmp(argv[1], "sys") == 0)
		result = sys_calls(calls, samples);
	else
		result = 2;
	if (result != 0)
		return result;
	fastest = samples[0];
	for (unsigned long i = 1; i < calls; i++)
		if (samples[i] < fastest)
			fastest = samples[i];
	printf(" median-ns %.0f min-ns %.0f\n", bench_median(samples, calls),
	    fastest);
	free(samples);
	return 0;
}
