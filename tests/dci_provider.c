/*
 * A UMA DCI provider written against <dci.h> alone (and the structure
 * builders of dci_provider_build.h), for tests/integration/
 * libdci_provider.sh. The segment goes where DCISTAT_SUPPLIER_DIRECTORY
 * says.
 *
 *   dci_provider NUMBER
 *       registers class {3, NUMBER, 16} "requests" (DCI_STORE; datums 1
 *       served: UMA_UINT8 counter, 2 queue: UMA_INT4, 3 clients:
 *       UMA_UINT4, 4 name: UMA_TEXTSTRING) with instances 1 "alpha" and
 *       2 "beta", and class {3, NUMBER, 17} "traffic" (DCI_ADDRESS; datum
 *       1 bytes: UMA_UINT8 counter) with instance 3 "gamma"; prints
 *       "ready", then reads commands from stdin, answering each with
 *       "ok" or "status NAME":
 *   post INSTANCE SERVED QUEUE CLIENTS NAME
 *       dciPostData of a whole class data block of "requests"
 *   set-served INSTANCE SERVED
 *       dciPostData of datum 1 alone, the data in a buffer apart
 *   address BYTES
 *       stores BYTES into gamma's word (dciDatumAddress)
 *   add INSTANCE LABEL
 *       dciAddInstance to "requests", every value 0 and the name LABEL
 *   remove INSTANCE
 *       dciRemoveInstance from "requests"
 *   register-flags
 *       dciRegister of class {3, NUMBER, 18} "flags" (DCI_STORE; datums
 *       1 first, 2 second, 3 third: UMA_UINT4 at 0, 4 and 8, 4 name:
 *       UMA_TEXTSTRING at 12, 5 up and 6 down: UMA_BOOLEAN at 272 and
 *       276, as a provider with a 256-byte string would lay it out)
 *   add-flags INSTANCE LABEL
 *       dciAddInstance to "flags": first 11, second 22, third 33, name
 *       LABEL, up true, down false
 *   register-hole
 *       dciRegister of class {3, NUMBER, 19} "hole" (UMA_UINT4 at 0,
 *       UMA_UINT8 at 8: a C structure's padding between them)
 *   quit
 *       dciUnregister of everything
 */
#define _POSIX_C_SOURCE 200809L
#include <dci.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dci_provider_build.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

static UMAUint4 requests_id[] = {DCI_PROVIDER_CLASS_ARC, 0, 16};
static UMAUint4 traffic_id[] = {DCI_PROVIDER_CLASS_ARC, 0, 17};
static UMAUint4 flags_id[] = {DCI_PROVIDER_CLASS_ARC, 0, 18};
static UMAUint4 hole_id[] = {DCI_PROVIDER_CLASS_ARC, 0, 19};
static const DCIInstLevel level[] = {{UMA_UINT4, UMA_DEVICE, 4}};
static const struct build_datum requests_datums[] = {
    {1, UMA_UINT8, UMA_TRANSACTIONS, DCI_QUERYABLE | DCI_DCISTAT_COUNTER, 0,
        "served"},
    {2, UMA_INT4, UMA_COUNT, DCI_QUERYABLE, 8, "queue"},
    {3, UMA_UINT4, UMA_CONNECTIONS, DCI_QUERYABLE, 12, "clients"},
    {4, UMA_TEXTSTRING, UMA_NOUNITS, DCI_QUERYABLE, 16, "name"},
};
static const struct build_datum traffic_datums[] = {
    {1, UMA_UINT8, UMA_BYTES, DCI_QUERYABLE | DCI_DCISTAT_COUNTER, 0, "bytes"},
};
#define FLAGS_UP_OFFSET 272
#define FLAGS_SIZE 280
static const struct build_datum flags_datums[] = {
    {1, UMA_UINT4, UMA_COUNT, DCI_QUERYABLE, 0, "first"},
    {2, UMA_UINT4, UMA_COUNT, DCI_QUERYABLE, 4, "second"},
    {3, UMA_UINT4, UMA_COUNT, DCI_QUERYABLE, 8, "third"},
    {4, UMA_TEXTSTRING, UMA_NOUNITS, DCI_QUERYABLE, 12, "name"},
    {5, UMA_BOOLEAN, UMA_NOUNITS, DCI_QUERYABLE, FLAGS_UP_OFFSET, "up"},
    {6, UMA_BOOLEAN, UMA_NOUNITS, DCI_QUERYABLE, FLAGS_UP_OFFSET + 4, "down"},
};
static const struct build_datum hole_datums[] = {
    {1, UMA_UINT4, UMA_COUNT, DCI_QUERYABLE, 0, "count"},
    {2, UMA_UINT8, UMA_BYTES, DCI_QUERYABLE, 8, "bytes"},
};

static const char *
status_name(DCIStatus status)
{
	static const char *const names[] = {"SUCCESS", "NOTPRESENT",
	    "INVALIDARG", "INVALIDDATA", "ALLOCATIONFAILURE",
	    "NOIMPLEMENTATION", "SYSERROR", "NOTINITIALIZED", "INTERRUPTED",
	    "METHODOPUNAVAILABLE", "INVALIDDATAPRESENT", "BUFFERTOOSMALL",
	    "TIMEOUT"};

	return status < COUNT_OF(names) ? names[status] : "UNKNOWN";
}

/* The class data block of "requests"; returns its size. */
static UMAUint4
block_make(unsigned char *block, uint64_t served, int32_t queue,
    uint32_t clients, const char *name)
{
	size_t length = strnlen(name, 200);
	UMAUint4 text_size = (UMAUint4)(4 + ((length + 1 + 3) & ~(size_t)3));

	memset(block, 0, 16 + text_size);
	memcpy(block, &served, 8);
	memcpy(block + 8, &queue, 4);
	memcpy(block + 12, &clients, 4);
	memcpy(block + 16, &text_size, 4);
	memcpy(block + 20, name, length);
	return 16 + text_size;
}

static DCIStatus
add_requests(DCIProviderHandle handle, UMAUint4 instance, const char *label)
{
	unsigned char block[256];
	UMAUint4 size = block_make(block, 0, 0, 0, label);
	DCIMetricId *metric =
	    build_metric(requests_id, 3, 1, &instance, 1, DCI_ALL);
	DCIInstAttr *attr = build_inst_attr(label);
	DCIStatus status =
	    dciAddInstance(handle, metric, attr, NULL, block, size);

	free(metric);
	free(attr);
	return status;
}

/* dciRegister of one more class on the handle. */
static DCIStatus
register_class(DCIProviderHandle handle, const UMAUint4 *levels,
    const char *label, const struct build_datum *datums, size_t count)
{
	DCIClassId *id = build_class_id(levels, 3);
	DCIClassAttr *attr =
	    build_class_attr(label, 0, 0, level, 1, datums, count);
	DCIStatus status = dciRegister(&handle, NULL, id, attr);

	free(id);
	free(attr);
	return status;
}

static DCIStatus
add_flags(DCIProviderHandle handle, UMAUint4 instance, const char *label)
{
	unsigned char block[FLAGS_SIZE];
	UMAUint4 numbers[] = {11, 22, 33}, up = 1, down = 0;
	size_t length = strnlen(label, 200);
	UMAUint4 text_size = (UMAUint4)(4 + ((length + 1 + 3) & ~(size_t)3));
	DCIMetricId *metric =
	    build_metric(flags_id, 3, 1, &instance, 1, DCI_ALL);
	DCIInstAttr *attr = build_inst_attr(label);
	DCIStatus status;

	memset(block, 0, sizeof(block));
	memcpy(block, numbers, sizeof(numbers));
	memcpy(block + 12, &text_size, 4);
	memcpy(block + 16, label, length);
	memcpy(block + FLAGS_UP_OFFSET, &up, 4);
	memcpy(block + FLAGS_UP_OFFSET + 4, &down, 4);
	status =
	    dciAddInstance(handle, metric, attr, NULL, block, sizeof(block));
	free(metric);
	free(attr);
	return status;
}

static DCIStatus
post(DCIProviderHandle handle, UMAUint4 instance, DCIDatumId datum,
    const void *data, UMAUint4 size, int apart)
{
	DCIMetricId *metric =
	    build_metric(requests_id, 3, 1, &instance, 1, datum);
	const void *list[] = {data};
	DCIReturn *ret = build_post(&metric, list, &size, 1);
	DCIStatus status;

	if (apart) {
		ret->retval[0].dataOffset = 0;
		status = dciPostData(handle, DCI_OP_GETDATA, ret, data, size);
	} else {
		status = dciPostData(handle, DCI_OP_GETDATA, ret, NULL, 0);
	}
	free(ret);
	free(metric);
	return status;
}

static DCIStatus
setup(DCIProviderHandle *handle, UMAUint8 **gamma)
{
	DCIClassId *id = build_class_id(requests_id, 3);
	DCIClassAttr *attr = build_class_attr("requests", 0, 0, level, 1,
	    requests_datums, COUNT_OF(requests_datums));
	DCIStatus status = dciRegister(handle, "dciprovider", id, attr);
	UMAUint4 instance = 3;
	DCIMetricId *metric;
	DCIInstAttr *inst;

	free(id);
	free(attr);
	if (status != DCI_SUCCESS)
		return status;
	id = build_class_id(traffic_id, 3);
	attr = build_class_attr("traffic", 0, DCI_ADDRESS, level, 1,
	    traffic_datums, COUNT_OF(traffic_datums));
	status = dciRegister(handle, NULL, id, attr);
	free(id);
	free(attr);
	if (status == DCI_SUCCESS)
		status = add_requests(*handle, 1, "alpha");
	if (status == DCI_SUCCESS)
		status = add_requests(*handle, 2, "beta");
	if (status != DCI_SUCCESS)
		return status;
	metric = build_metric(traffic_id, 3, 1, &instance, 1, 1);
	inst = build_inst_attr("gamma");
	status = dciAddInstance(*handle, metric, inst, NULL, NULL, 0);
	if (status == DCI_SUCCESS)
		status = dciDatumAddress(*handle, metric, gamma);
	free(metric);
	free(inst);
	return status;
}

static DCIStatus
command(DCIProviderHandle handle, UMAUint8 *gamma, const char *line)
{
	unsigned long instance;
	unsigned long long served, bytes;
	long queue;
	unsigned long clients;
	char name[201];
	unsigned char block[256];

	if (sscanf(line, "post %lu %llu %ld %lu %200s", &instance, &served,
	        &queue, &clients, name) == 5) {
		UMAUint4 size = block_make(
		    block, served, (int32_t)queue, (uint32_t)clients, name);

		return post(
		    handle, (UMAUint4)instance, DCI_ALL, block, size, 0);
	}
	if (sscanf(line, "set-served %lu %llu", &instance, &served) == 2) {
		uint64_t value = served;

		return post(handle, (UMAUint4)instance, 1, &value, 8, 1);
	}
	if (sscanf(line, "address %llu", &bytes) == 1) {
		__atomic_store_n(gamma, (UMAUint8)bytes, __ATOMIC_RELAXED);
		return DCI_SUCCESS;
	}
	if (sscanf(line, "add %lu %200s", &instance, name) == 2)
		return add_requests(handle, (UMAUint4)instance, name);
	if (strcmp(line, "register-flags\n") == 0)
		return register_class(handle, flags_id, "flags", flags_datums,
		    COUNT_OF(flags_datums));
	if (sscanf(line, "add-flags %lu %200s", &instance, name) == 2)
		return add_flags(handle, (UMAUint4)instance, name);
	if (strcmp(line, "register-hole\n") == 0)
		return register_class(handle, hole_id, "hole", hole_datums,
		    COUNT_OF(hole_datums));
	if (sscanf(line, "remove %lu", &instance) == 1) {
		UMAUint4 id = (UMAUint4)instance;
		DCIMetricId *metric =
		    build_metric(requests_id, 3, 1, &id, 1, DCI_ALL);
		DCIStatus status = dciRemoveInstance(handle, metric);

		free(metric);
		return status;
	}
	return DCI_INVALIDARG;
}

int
main(int argc, char **argv)
{
	DCIProviderHandle handle = NULL;
	UMAUint8 *gamma = NULL;
	char line[512];
	DCIStatus status;

	if (argc != 2) {
		fprintf(stderr, "usage: dci_provider NUMBER\n");
		return 2;
	}
	requests_id[1] = traffic_id[1] = flags_id[1] = hole_id[1] =
	    (UMAUint4)strtoul(argv[1], NULL, 10);
	status = setup(&handle, &gamma);
	if (status != DCI_SUCCESS) {
		printf("status %s\n", status_name(status));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (strncmp(line, "quit", 4) == 0)
			break;
		status = command(handle, gamma, line);
		if (status == DCI_SUCCESS)
			printf("ok\n");
		else
			printf("status %s\n", status_name(status));
		fflush(stdout);
	}
	return dciUnregister(handle, NULL) == DCI_SUCCESS ? 0 : 1;
}
