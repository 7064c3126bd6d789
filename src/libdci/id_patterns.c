/*
 * The class and metric ids a consumer passes, checked and read into the
 * pattern of a request to the server (libdci_internal.h): used by the
 * request routines (routines.c) and by dciOpen's event ids
 * (connection.c).
 */
#include <string.h>

#include "libdci/libdci_internal.h"

/* The largest DCIClassId and DCIMetricId a request can carry. */
#define CLASS_ID_SIZE_MAX (4u + 4u * DCI_CLASS_ID_MAX_LEVELS)
#define INSTANCE_ID_SIZE_MAX (12u + 4u * DCI_INSTANCE_ID_MAX_WORDS)
#define METRIC_FIXED_SIZE 24u

DCIStatus
libdci_class_pattern(
    const DCIClassId *class_id, struct dci_protocol_request *request)
{
	size_t levels;

	memset(request, 0, sizeof(*request));
	if (class_id == NULL || class_id->size < 8 || class_id->size % 4 != 0 ||
	    class_id->size > CLASS_ID_SIZE_MAX)
		return DCI_INVALIDARG;
	levels = dciclassidlen(class_id);
	for (size_t i = 0; i < levels; i++)
		request->class_id[i] = class_id->data[i];
	request->class_levels = levels;
	request->datum_id = DCI_ALL;
	return DCI_SUCCESS;
}

DCIStatus
libdci_metric_pattern(
    const DCIMetricId *metric, struct dci_protocol_request *request)
{
	const DCIInstanceId *instance;
	DCIStatus status;

	memset(request, 0, sizeof(*request));
	if (metric == NULL || metric->size < METRIC_FIXED_SIZE + 4 + 12 ||
	    metric->size % 4 != 0 ||
	    metric->size >
	        METRIC_FIXED_SIZE + CLASS_ID_SIZE_MAX + INSTANCE_ID_SIZE_MAX ||
	    metric->classId.offset < METRIC_FIXED_SIZE ||
	    metric->classId.offset % 4 != 0 ||
	    metric->classId.size > metric->size ||
	    metric->classId.offset > metric->size - metric->classId.size ||
	    metric->instanceId.offset < METRIC_FIXED_SIZE ||
	    metric->instanceId.offset % 4 != 0 ||
	    metric->instanceId.size < 12 ||
	    metric->instanceId.size > metric->size ||
	    metric->instanceId.offset >
	        metric->size - metric->instanceId.size ||
	    metric->datumId == 0)
		return DCI_INVALIDARG;
	status = libdci_class_pattern(dcimetricclassid(metric), request);
	if (status != DCI_SUCCESS ||
	    dcimetricclassid(metric)->size != metric->classId.size)
		return DCI_INVALIDARG;
	instance = dcimetricinstanceid(metric);
	/* The specification: at least one level is asked for back. */
	if (instance->size != metric->instanceId.size ||
	    instance->size % 4 != 0 || instance->size > INSTANCE_ID_SIZE_MAX ||
	    instance->outputMask == 0)
		return DCI_INVALIDARG;
	request->input_mask = instance->inputMask;
	request->instance_words = dciinstanceidwords(instance);
	for (size_t i = 0; i < request->instance_words; i++)
		request->instance[i] = instance->data[i];
	/* No level named: every instance, whatever words were left. */
	if (request->input_mask == DCI_ALL_INSTANCES)
		request->instance_words = 0;
	request->datum_id = metric->datumId;
	return DCI_SUCCESS;
}
