/*
 * A UMA DCI consumer of dcistatd, written against <dci.h> alone:
 *   1. list every class the server lets us read;
 *   2. read every datum of every network interface (class 1.1) with one
 *      wildcarded dciGetData, and print each interface's name and the
 *      counters whose labels end in "_bytes";
 *   3. wait SECONDS (argument; default 0) for interfaces to come and go.
 *
 * Build:  cc -std=c11 $(pkg-config --cflags dci) -o dci-consumer \
 *             dci-consumer.c $(pkg-config --libs dci)
 * Run:    DCISTAT_DCI_SOCKET=/run/dcistat/dci.sock ./dci-consumer 30
 * (dcistatd's `agent: dci-socket` names the socket.)
 */
#include <dci.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ASCII label of a structure's DCILabel descriptor. */
static const char *
label_of(const void *base, UMAVarLenDescr descriptor)
{
	const DCILabel *label =
	    (const DCILabel *)((const char *)base + descriptor.offset);

	if (descriptor.size == 0)
		return "";
	return (
	    (const UMATextString *)((const char *)label + label->ascii.offset))
	    ->string;
}

static void
list_classes(DCIHandle handle)
{
	UMAUint4 every_class[] = {8, DCI_ALL}; /* DCIClassId: DCI_ALL */
	DCIReturn *ret = NULL;

	if (dciListClassId(handle, (const DCIClassId *)every_class, 1, &ret,
	        0) != DCI_SUCCESS) {
		fprintf(stderr, "dciListClassId failed\n");
		dciFree(ret);
		return;
	}
	printf("%" PRIu32 " classes:", ret->count);
	for (UMAUint4 i = 0; i < ret->count; i++) {
		const DCIClassId *class = dcireturnmetric(ret, i);

		printf(" ");
		for (UMAUint4 level = 0; level < dciclassidlen(class); level++)
			printf("%s%" PRIu32, level > 0 ? "." : "",
			    dciclassidlevel(class, level));
	}
	printf("\n");
	dciFree(ret);
}

static void
read_interfaces(DCIHandle handle)
{
	UMAUint4 netif[] = {12, 1, 1}; /* DCIClassId 1.1 */
	/* DCIMetricId: class 1.1, every instance, every datum. */
	UMAUint4 every_interface[] = {48, 24, 12, 36, 12, DCI_ALL, 12, 1, 1, 12,
	    DCI_ALL_INSTANCES, DCI_ALL};
	DCIReturn *attributes = NULL, *ret = NULL;
	const DCIClassAttr *attr;
	DCIStatus status;

	if (dciGetClassAttributes(handle, (const DCIClassId *)netif, 1,
	        &attributes, 0) != DCI_SUCCESS) {
		fprintf(stderr, "no class 1.1 (netif) to read\n");
		dciFree(attributes);
		return;
	}
	attr = dcireturndata(attributes, 0);
	status = dciGetData(handle, (const DCIMetricId *)every_interface, 1,
	    &ret, 0, NULL, NULL);
	if (status != DCI_SUCCESS && status != DCI_INVALIDDATAPRESENT) {
		fprintf(
		    stderr, "dciGetData failed: status %" PRIu32 "\n", status);
		dciFree(ret);
		dciFree(attributes);
		return;
	}
	for (UMAUint4 i = 0; i < ret->count; i++) {
		const DCIMetricId *metric = dcireturnmetric(ret, i);
		const unsigned char *block = dcireturndata(ret, i);
		const unsigned char *one =
		    (const unsigned char *)attr + attr->dataAttr.offset;

		if (ret->retval[i].dataSize == 0)
			continue;
		printf("ifIndex %" PRIu32 ":",
		    dcimetricinstanceid(metric)->data[0]);
		for (UMAUint4 d = 0; d < attr->dataAttr.count;
		     d++, one += ((const DCIDataAttr *)one)->size) {
			const DCIDataAttr *datum = (const DCIDataAttr *)one;
			const char *label = label_of(datum, datum->label);
			size_t length = strlen(label);
			UMAUint8 counter;

			if (datum->type == UMA_TEXTSTRING &&
			    strcmp(label, "name") == 0)
				printf(" %s",
				    ((const UMATextString *)(block +
				                             datum->offset))
				        ->string);
			if (datum->type == UMA_UINT8 && length > 6 &&
			    strcmp(label + length - 6, "_bytes") == 0) {
				memcpy(&counter, block + datum->offset, 8);
				printf(" %s=%" PRIu64, label, counter);
			}
		}
		printf("\n");
	}
	dciFree(ret);
	dciFree(attributes);
}

static void
wait_for_interfaces(UMAUint4 seconds)
{
	/* Two event ids of class 1.1, every instance, with the instance id
	 * in the event; event ids 1 and 2 are ours to tell them apart. */
	UMAUint4 events[] = {48, 24, 12, 36, 12,
	    DCI_EVENTHDR | DCI_EVENTHDRINSTANCEID | 1u << 8 | DCI_INSTANCEADDED,
	    12, 1, 1, 12, DCI_ALL_INSTANCES, DCI_ALL, 48, 24, 12, 36, 12,
	    DCI_EVENTHDR | DCI_EVENTHDRINSTANCEID | 2u << 8 |
	        DCI_INSTANCEREMOVED,
	    12, 1, 1, 12, DCI_ALL_INSTANCES, DCI_ALL};
	UMATimeSpec timeout = {seconds, 0};
	DCIHandle handle = NULL;
	DCIReturn *ret = NULL;

	if (dciOpen(&handle, (const DCIMetricId *)events, 2, NULL, 0) !=
	    DCI_SUCCESS) {
		/* The connection may be open with an event id refused. */
		if (handle != NULL)
			dciClose(handle);
		fprintf(stderr, "cannot ask for events of class 1.1\n");
		return;
	}
	while (dciWaitEvent(handle, &ret, 0, NULL, NULL, &timeout) ==
	       DCI_SUCCESS) {
		for (UMAUint4 i = 0; i < ret->count; i++) {
			const DCIMetricId *metric = dcireturnmetric(ret, i);

			if (ret->retval[i].status != DCI_SUCCESS)
				continue; /* events lost: we were slow */
			printf("ifIndex %" PRIu32 " %s\n",
			    dcimetricinstanceid(metric)->data[0],
			    dcidatumnumber(metric->datumId) == DCI_INSTANCEADDED
			        ? "added"
			        : "removed");
		}
		dciFree(ret);
		ret = NULL;
	}
	dciClose(handle);
}

int
main(int argc, char **argv)
{
	UMAUint4 seconds = argc > 1 ? (UMAUint4)strtoul(argv[1], NULL, 10) : 0;
	DCIHandle handle = NULL;

	if (dciOpen(&handle, NULL, 0, NULL, 0) != DCI_SUCCESS) {
		fprintf(stderr, "no DCI server (is agent: dci-socket set?)\n");
		return 1;
	}
	list_classes(handle);
	read_interfaces(handle);
	dciClose(handle);
	if (seconds > 0)
		wait_for_interfaces(seconds);
	return 0;
}
