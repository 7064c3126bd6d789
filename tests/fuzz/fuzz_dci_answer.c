/*
 * libFuzzer target for libdci's decoder (src/libdci): whatever a DCI
 * Server might send, read by a consumer routine. The input's first byte
 * picks the routine; the rest is the stream of messages the "server"
 * sends, written into a socket pair before the call (and closed), so the
 * routine reads it as it would read dcistatd: answers by serial, events
 * between them, class attributes fetched when a GET_DATA entry needs
 * them. Besides ASan and UBSan it checks what a DCIReturn the library
 * hands out must be: its size the bytes written, every retval's id and
 * data inside it.
 *
 * Input: one byte (the routine), then messages. Built by `make fuzz` with
 * clang alone; run by `make fuzz-run` and CI.
 */
#define _GNU_SOURCE
#include <dci.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libdci/libdci_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The largest input written to the socket before the call. */
#define FUZZ_STREAM_MAX 65536u

static UMAUint4 metric_all[] = {
    /* DCIMetricId: size, class descriptor, instance descriptor, datum */
    48, 24, 12, 36, 12, DCI_ALL,
    /* DCIClassId {1, 1} */
    12, 1, 1,
    /* DCIInstanceId: every instance */
    12, 0, DCI_ALL};
static UMAUint4 metric_one[] = {
    52, 24, 12, 36, 16, 2, 12, 1, 1, 16, 1, DCI_ALL, 10};
static UMAUint4 class_all[] = {8, DCI_ALL};

static void
check_return(const DCIReturn *ret, size_t data_size, bool split)
{
	if (ret->size < DCI_RETURN_HEADER_SIZE ||
	    (ret->size - DCI_RETURN_HEADER_SIZE) / sizeof(DCIRetval) <
	        ret->count)
		abort();
	for (UMAUint4 i = 0; i < ret->count; i++) {
		const DCIRetval *retval = &ret->retval[i];
		size_t limit = split ? data_size : ret->size;

		if (retval->metricOffset + 4u > ret->size)
			abort();
		if (retval->dataSize > 0 &&
		    (retval->dataOffset > limit ||
		        retval->dataSize > limit - retval->dataOffset))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct DCIConnection *handle;
	DCIReturn *ret = NULL;
	void *split_data = NULL;
	UMAUint4 split_size = 0;
	UMATimeSpec none = {0, 0};
	int fds[2], buffer = 1 << 20;
	size_t written = 0;
	DCIStatus status;

	if (size < 1 || size - 1 > FUZZ_STREAM_MAX)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
		abort();
	(void)setsockopt(
	    fds[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof(buffer));
	(void)setsockopt(
	    fds[1], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof(buffer));
	while (written < size - 1) {
		ssize_t count = send(fds[1], data + 1 + written,
		    size - 1 - written, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (count <= 0)
			break;
		written += (size_t)count;
	}
	shutdown(fds[1], SHUT_WR);
	handle = calloc(1, sizeof(*handle));
	handle->fd = fds[0];
	handle->events = calloc(LIBDCI_EVENTS_MAX, sizeof(*handle->events));
	handle->subscriptions[0] = (struct libdci_subscription){
	    1, DCI_EVENTHDR | DCI_EVENTHDRCLASSID | DCI_EVENTHDRINSTANCEID |
	           DCI_EVENTHDRTIMESTAMP | DCI_EVENTHDRDATA | DCI_DATACHANGED};
	handle->subscription_count = 1;
	switch (data[0] % 8) {
	case 0:
		status = dciListClassId(
		    handle, (const DCIClassId *)class_all, 1, &ret, 0);
		break;
	case 1:
		status = dciGetClassAttributes(
		    handle, (const DCIClassId *)class_all, 1, &ret, 0);
		break;
	case 2:
		status = dciListInstanceId(
		    handle, (const DCIMetricId *)metric_all, 1, &ret, 0);
		break;
	case 3:
		status = dciGetInstAttributes(
		    handle, (const DCIMetricId *)metric_all, 1, &ret, 0);
		break;
	case 4:
		status = dciGetData(handle, (const DCIMetricId *)metric_all, 1,
		    &ret, 0, NULL, NULL);
		break;
	case 5:
		status = dciGetData(handle, (const DCIMetricId *)metric_one, 1,
		    &ret, 0, &split_data, &split_size);
		break;
	case 6:
		status = dciSetData(handle, DCI_OP_RELEASEDATA,
		    (const DCIMetricId *)metric_all, 1, NULL, 0, &ret, 0);
		break;
	default:
		status = dciWaitEvent(
		    handle, &ret, 0, &split_data, &split_size, &none);
		break;
	}
	(void)status;
	if (ret != NULL) {
		check_return(ret, split_size, split_data != NULL);
		dciFree(ret);
	}
	free(split_data);
	dciClose(handle);
	close(fds[1]);
	return 0;
}
