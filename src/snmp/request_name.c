#include "snmp/request_name.h"

#include <string.h>

_Static_assert(SCHEMA_ROW_NAME_MAX < SCHEMA_REQUEST_NAME_MAX,
    "a truncated request must be longer than every served name");

static uint64_t
normalised_subid(oid subid)
{
	uint64_t value = subid;

	if (value >= UINT64_C(0xffffffff80000000))
		return (uint32_t)value;
	return value;
}

void
schema_request_name_decode(
    const oid *name, size_t length, struct schema_request_name *request)
{
	request->truncated = length > SCHEMA_REQUEST_NAME_MAX;
	request->length = request->truncated ? SCHEMA_REQUEST_NAME_MAX : length;
	for (size_t i = 0; i < request->length; i++)
		request->subids[i] = normalised_subid(name[i]);
}

static int
compare(const uint64_t *request, size_t request_length, const oid *ours,
    size_t our_length)
{
	size_t common =
	    request_length < our_length ? request_length : our_length;

	for (size_t i = 0; i < common; i++) {
		if (request[i] != (uint64_t)ours[i])
			return request[i] < (uint64_t)ours[i] ? -1 : 1;
	}
	if (request_length == our_length)
		return 0;
	return request_length < our_length ? -1 : 1;
}

int
schema_request_name_compare(const struct schema_row_name *row,
    const struct schema_request_name *request)
{
	return -compare(
	    request->subids, request->length, row->subids, row->length);
}

int
schema_request_name_compare_prefix(
    const struct schema_request_name *request, const oid *prefix, size_t length)
{
	size_t compared = request->length < length ? request->length : length;

	return compare(request->subids, compared, prefix, compared);
}

void
schema_entry_prefix(unsigned table, oid *name)
{
	static const oid arc[] = {SCHEMA_MIB_ARC};

	memcpy(name, arc, sizeof(arc));
	name[SCHEMA_MIB_ARC_LENGTH] = SCHEMA_MIB_OBJECTS;
	name[SCHEMA_MIB_ARC_LENGTH + 1] = table;
	name[SCHEMA_MIB_ARC_LENGTH + 2] = 1;
}
