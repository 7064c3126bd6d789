/*
 * A DCI consumer written against <dci.h> alone, for tests/integration/
 * libdci.sh. The socket is DCISTAT_DCI_SOCKET's.
 *
 *   libdci_consumer classes
 *       every class the caller may read: "L1.L2..." a line
 *   libdci_consumer get CLASS INSTANCE|* DATUM|*
 *       first "status NAME" (the summary), then per value
 *       "INSTANCE DATUM TYPE VALUE", TYPE u4, i4, u8, i8, bool or text
 *       (decimal numbers; text as is); a one-level instance id
 *   libdci_consumer layout CLASS
 *       per DCIDataAttr of dciGetClassAttributes: "DATUM TYPE OFFSET"
 *   libdci_consumer time CLASS COUNT
 *       COUNT wildcarded dciGetData of every datum of every instance on
 *       one connection: "calls COUNT instances N microseconds-per-call M"
 *   libdci_consumer wait CLASS SECONDS
 *       prints "ready" once subscribed to DCI_INSTANCEADDED and
 *       DCI_INSTANCEREMOVED of CLASS, then "added INSTANCE" or "removed
 *       INSTANCE" per event until one came and SECONDS passed with no
 *       other, or SECONDS passed with none (exit status 1)
 */
#define _POSIX_C_SOURCE 200809L
#include <dci.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *
status_name(DCIStatus status)
{
	static const char *const names[] = {"SUCCESS", "NOTPRESENT",
	    "INVALIDARG", "INVALIDDATA", "ALLOCATIONFAILURE",
	    "NOIMPLEMENTATION", "SYSERROR", "NOTINITIALIZED", "INTERRUPTED",
	    "METHODOPUNAVAILABLE", "INVALIDDATAPRESENT", "BUFFERTOOSMALL",
	    "TIMEOUT"};

	return status < sizeof(names) / sizeof(names[0]) ? names[status]
	                                                 : "UNKNOWN";
}

/* "1.1" into a DCIClassId in `words` (room for 17). */
static DCIClassId *
class_parse(const char *text, UMAUint4 *words)
{
	size_t count = 0;
	char *end;

	do {
		if (count == 16)
			return NULL;
		words[1 + count++] = (UMAUint4)strtoul(text, &end, 10);
		text = end + 1;
	} while (*end == '.');
	words[0] = (UMAUint4)(4 + 4 * count);
	return (DCIClassId *)words;
}

/* A DCIMetricId of `class`, one instance word or every instance. */
static DCIMetricId *
metric_build(UMAUint4 *words, const DCIClassId *class, const char *instance,
    DCIDatumId datum)
{
	bool every = strcmp(instance, "*") == 0;
	UMAUint4 instance_size = every ? 12 : 16;
	UMAUint4 *at = words + 6;

	words[0] = 24 + class->size + instance_size;
	words[1] = 24;
	words[2] = class->size;
	words[3] = 24 + class->size;
	words[4] = instance_size;
	words[5] = datum;
	memcpy(at, class, class->size);
	at += class->size / 4;
	at[0] = instance_size;
	at[1] = every ? DCI_ALL_INSTANCES : 1;
	at[2] = DCI_ALL;
	if (!every)
		at[3] = (UMAUint4)strtoul(instance, NULL, 10);
	return (DCIMetricId *)words;
}

static void
value_print(UMAUint4 instance, const DCIDataAttr *attr, const void *value)
{
	UMAUint4 u4;
	UMAInt4 i4;
	UMAUint8 u8;
	UMAInt8 i8;

	switch (attr->type) {
	case UMA_UINT4:
		memcpy(&u4, value, 4);
		printf("%" PRIu32 " %" PRIu32 " u4 %" PRIu32 "\n", instance,
		    attr->datumId, u4);
		break;
	case UMA_INT4:
		memcpy(&i4, value, 4);
		printf("%" PRIu32 " %" PRIu32 " i4 %" PRId32 "\n", instance,
		    attr->datumId, i4);
		break;
	case UMA_UINT8:
		memcpy(&u8, value, 8);
		printf("%" PRIu32 " %" PRIu32 " u8 %" PRIu64 "\n", instance,
		    attr->datumId, u8);
		break;
	case UMA_INT8:
		memcpy(&i8, value, 8);
		printf("%" PRIu32 " %" PRIu32 " i8 %" PRId64 "\n", instance,
		    attr->datumId, i8);
		break;
	case UMA_BOOLEAN:
		memcpy(&u4, value, 4);
		printf("%" PRIu32 " %" PRIu32 " bool %" PRIu32 "\n", instance,
		    attr->datumId, u4);
		break;
	case UMA_TEXTSTRING:
		printf("%" PRIu32 " %" PRIu32 " text %s\n", instance,
		    attr->datumId, ((const UMATextString *)value)->string);
		break;
	default:
		break;
	}
}

static int
get(DCIHandle handle, const char *class_text, const char *instance,
    const char *datum_text)
{
	UMAUint4 class_words[17], metric_words[64];
	DCIClassId *class = class_parse(class_text, class_words);
	DCIDatumId datum = strcmp(datum_text, "*") == 0
	                       ? DCI_ALL
	                       : (DCIDatumId)strtoul(datum_text, NULL, 10);
	DCIReturn *attributes = NULL, *ret = NULL;
	const DCIClassAttr *attr;
	DCIStatus status;

	if (class == NULL)
		return 2;
	status = dciGetClassAttributes(handle, class, 1, &attributes, 0);
	if (status != DCI_SUCCESS) {
		/* A DCIReturn comes with the failure too. */
		dciFree(attributes);
		printf("status %s\n", status_name(status));
		return 0;
	}
	attr = dcireturndata(attributes, 0);
	status = dciGetData(handle,
	    metric_build(metric_words, class, instance, datum), 1, &ret, 0,
	    NULL, NULL);
	printf("status %s\n", status_name(status));
	for (UMAUint4 i = 0; ret != NULL && i < ret->count; i++) {
		const DCIMetricId *metric = dcireturnmetric(ret, i);
		UMAUint4 id = dcimetricinstanceid(metric)->data[0];
		const unsigned char *data = dcireturndata(ret, i);
		const unsigned char *one =
		    (const unsigned char *)attr + attr->dataAttr.offset;

		if (ret->retval[i].dataSize == 0)
			continue;
		for (UMAUint4 d = 0; d < attr->dataAttr.count;
		     d++, one += ((const DCIDataAttr *)one)->size) {
			const DCIDataAttr *data_attr = (const DCIDataAttr *)one;

			if (data_attr->datumId == DCI_INVALIDDATUMID)
				continue;
			if (datum == DCI_ALL)
				value_print(
				    id, data_attr, data + data_attr->offset);
			else if (data_attr->datumId == datum)
				value_print(id, data_attr, data);
		}
	}
	dciFree(ret);
	dciFree(attributes);
	return 0;
}

static const char *
type_name(UMADataType type)
{
	switch (type) {
	case UMA_UINT4:
		return "u4";
	case UMA_INT4:
		return "i4";
	case UMA_UINT8:
		return "u8";
	case UMA_INT8:
		return "i8";
	case UMA_BOOLEAN:
		return "bool";
	case UMA_TEXTSTRING:
		return "text";
	default:
		return "other";
	}
}

static int
layout(DCIHandle handle, const char *class_text)
{
	UMAUint4 class_words[17];
	DCIClassId *class = class_parse(class_text, class_words);
	DCIReturn *attributes = NULL;
	const DCIClassAttr *attr;
	const unsigned char *one;
	DCIStatus status;

	if (class == NULL)
		return 2;
	status = dciGetClassAttributes(handle, class, 1, &attributes, 0);
	if (status != DCI_SUCCESS) {
		dciFree(attributes);
		printf("status %s\n", status_name(status));
		return 1;
	}
	attr = dcireturndata(attributes, 0);
	one = (const unsigned char *)attr + attr->dataAttr.offset;
	for (UMAUint4 d = 0; d < attr->dataAttr.count;
	     d++, one += ((const DCIDataAttr *)one)->size) {
		const DCIDataAttr *data_attr = (const DCIDataAttr *)one;

		printf("%" PRIu32 " %s %" PRIu32 "\n", data_attr->datumId,
		    type_name(data_attr->type), data_attr->offset);
	}
	dciFree(attributes);
	return 0;
}

static double
seconds_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static int
time_reads(DCIHandle handle, const char *class_text, const char *count_text)
{
	UMAUint4 class_words[17], metric_words[64];
	DCIClassId *class = class_parse(class_text, class_words);
	unsigned long count = strtoul(count_text, NULL, 10), values = 0;
	double start;

	if (class == NULL || count == 0)
		return 2;
	metric_build(metric_words, class, "*", DCI_ALL);
	start = seconds_now();
	for (unsigned long i = 0; i < count; i++) {
		DCIReturn *ret = NULL;
		DCIStatus status = dciGetData(handle,
		    (const DCIMetricId *)metric_words, 1, &ret, 0, NULL, NULL);

		if (status != DCI_SUCCESS && status != DCI_INVALIDDATAPRESENT) {
			printf("status %s\n", status_name(status));
			dciFree(ret);
			return 1;
		}
		values = ret->count;
		dciFree(ret);
	}
	printf("calls %lu instances %lu microseconds-per-call %.0f\n", count,
	    values, (seconds_now() - start) * 1e6 / (double)count);
	return 0;
}

static int
wait_events(const char *class_text, const char *seconds_text)
{
	UMAUint4 class_words[17], list[128];
	DCIClassId *class = class_parse(class_text, class_words);
	UMATimeSpec timeout = {(UMAUint4)strtoul(seconds_text, NULL, 10), 0};
	DCIMetricId *added, *removed;
	DCIHandle handle = NULL;
	DCIReturn *ret = NULL;
	DCIStatus status;
	int seen = 0;

	if (class == NULL)
		return 2;
	added = metric_build(list, class, "*",
	    DCI_EVENTHDR | DCI_EVENTHDRINSTANCEID | DCI_INSTANCEADDED);
	removed = metric_build(list + added->size / 4, class, "*",
	    DCI_EVENTHDR | DCI_EVENTHDRINSTANCEID | DCI_INSTANCEREMOVED);
	(void)removed;
	status = dciOpen(&handle, added, 2, NULL, 0);
	if (status != DCI_SUCCESS) {
		/* An event id refused: the connection may be open. */
		if (handle != NULL)
			dciClose(handle);
		printf("status %s\n", status_name(status));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while ((status = dciWaitEvent(handle, &ret, 0, NULL, NULL, &timeout)) ==
	       DCI_SUCCESS) {
		for (UMAUint4 i = 0; i < ret->count; i++) {
			const DCIMetricId *metric = dcireturnmetric(ret, i);

			if (ret->retval[i].status != DCI_SUCCESS)
				continue;
			printf("%s %" PRIu32 "\n",
			    dcidatumnumber(metric->datumId) == DCI_INSTANCEADDED
			        ? "added"
			        : "removed",
			    dcimetricinstanceid(metric)->data[0]);
			seen++;
		}
		fflush(stdout);
		dciFree(ret);
		ret = NULL;
	}
	dciClose(handle);
	if (status != DCI_TIMEOUT)
		printf("status %s\n", status_name(status));
	return seen > 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	DCIHandle handle = NULL;
	DCIStatus status;
	int result = 2;

	if (argc == 4 && strcmp(argv[1], "wait") == 0)
		return wait_events(argv[2], argv[3]);
	status = dciOpen(&handle, NULL, 0, NULL, 0);
	if (status != DCI_SUCCESS) {
		printf("status %s\n", status_name(status));
		return 1;
	}
	if (argc == 2 && strcmp(argv[1], "classes") == 0) {
		UMAUint4 all[2] = {8, DCI_ALL};
		DCIReturn *ret = NULL;

		status = dciListClassId(handle, (DCIClassId *)all, 1, &ret, 0);
		for (UMAUint4 i = 0; ret != NULL && i < ret->count; i++) {
			const DCIClassId *class = dcireturnmetric(ret, i);

			for (UMAUint4 l = 0; l < dciclassidlen(class); l++)
				printf("%s%" PRIu32, l == 0 ? "" : ".",
				    dciclassidlevel(class, l));
			printf("\n");
		}
		dciFree(ret);
		result = 0;
	} else if (argc == 4 && strcmp(argv[1], "time") == 0)
		result = time_reads(handle, argv[2], argv[3]);
	else if (argc == 3 && strcmp(argv[1], "layout") == 0)
		result = layout(handle, argv[2]);
	else if (argc == 5 && strcmp(argv[1], "get") == 0)
		result = get(handle, argv[2], argv[3], argv[4]);
	dciClose(handle);
	return result;
}
