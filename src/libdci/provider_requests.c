/*
 * libdci, providers: what the server does not take from a provider.
 * dciPostEvent: the instance events are raised by the server itself when
 * dciAddInstance and dciRemoveInstance change the segment (and data
 * changes by the configuration's watches), and dciRegister takes no
 * event attributes, so no event can be posted. dciWaitRequest: the server
 * never forwards a request (no DCI_WAIT or DCI_CALLBACK method).
 */
#include "libdci/provider_internal.h"

#include <stdlib.h>

__attribute__((visibility("default"))) DCIStatus
dciPostEvent(DCIProviderHandle handle, const DCIMetricId *eventId,
    const void *data, UMAUint4 dataSize)
{
	struct libdci_provider_class *class;
	uint32_t id[DCI_INSTANCE_ID_MAX_WORDS];
	size_t words;
	DCIStatus status;

	if (handle == NULL || eventId == NULL || (data == NULL && dataSize))
		return DCI_INVALIDARG;
	pthread_mutex_lock(&handle->lock);
	status = libdci_provider_metric(
	    handle, eventId, eventId->size, &class, id, &words);
	pthread_mutex_unlock(&handle->lock);
	if (status != DCI_SUCCESS)
		return status;
	switch (dcidatumnumber(eventId->datumId)) {
	case DCI_INSTANCEADDED:
	case DCI_INSTANCEREMOVED:
	case DCI_DATACHANGED:
		return DCI_METHODOPUNAVAILABLE; /* the server's own */
	default:
		return DCI_NOTPRESENT; /* no such event registered */
	}
}

__attribute__((visibility("default"))) DCIStatus
dciWaitRequest(DCIProviderHandle handle, UMAUint4 *operation,
    DCIReturn **request, UMAUint4 requestSize, const UMATimeSpec *timeout)
{
	(void)requestSize;
	(void)timeout;
	if (handle == NULL || operation == NULL || request == NULL)
		return DCI_INVALIDARG;
	return DCI_NOIMPLEMENTATION;
}
