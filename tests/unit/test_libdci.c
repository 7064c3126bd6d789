/*
 * libdci (src/libdci) against the DCI Server in this process, serving the
 * standard registry (fixtures.h) from a thread that drives it as the
 * daemon's loop does: every routine of <dci.h>, class and instance
 * wildcards, one datum or all, the UMA forms of the values, invalid data,
 * both buffer modes, the write refusals, events and their bound, and
 * malformed arguments.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dci.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "server/dci_server.h"

/* --- the server in a thread ---------------------------------------------- */

static struct dci_registry *registry;
static struct dci_server *server;
static char socket_path[108];
static pthread_t server_thread;
static pthread_mutex_t server_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile bool server_stopping;

static void *
server_run(void *unused)
{
	(void)unused;
	while (!server_stopping) {
		struct pollfd polled[1 + DCI_SERVER_CLIENTS_MAX];
		size_t count;

		pthread_mutex_lock(&server_lock);
		count = dci_server_poll_add(server, polled);
		pthread_mutex_unlock(&server_lock);
		if (poll(polled, count, 20) < 0)
			continue;
		pthread_mutex_lock(&server_lock);
		dci_server_poll_handle(server, polled, count);
		pthread_mutex_unlock(&server_lock);
	}
	return NULL;
}

static void
server_setup(void)
{
	struct dci_server_settings settings = {.mode = 0600};
	char why[256];

	registry = fx_standard_registry();
	snprintf(socket_path, sizeof(socket_path), "/tmp/dcih28l-unit.%ld",
	    (long)getpid());
	settings.path = socket_path;
	server = dci_server_start(&settings, registry, why, sizeof(why));
	ck_assert_msg(server != NULL, "%s", why);
	setenv("DCISTAT_DCI_SOCKET", socket_path, 1);
	server_stopping = false;
	ck_assert_int_eq(
	    pthread_create(&server_thread, NULL, server_run, NULL), 0);
}

static void
server_teardown(void)
{
	server_stopping = true;
	pthread_join(server_thread, NULL);
	dci_server_stop(server);
	dci_registry_free(registry);
}

/* --- ids ------------------------------------------------------------------ */

/* A DCIClassId in `words` (room for 17). */
static const DCIClassId *
class_id(UMAUint4 *words, const UMAUint4 *levels, size_t count)
{
	words[0] = (UMAUint4)(4 + 4 * count);
	memcpy(words + 1, levels, 4 * count);
	return (const DCIClassId *)words;
}

/* A DCIMetricId in `words` (room for 64). */
static const DCIMetricId *
metric_id(UMAUint4 *words, const UMAUint4 *levels, size_t level_count,
    UMAUint4 mask, const UMAUint4 *instance, size_t instance_words,
    DCIDatumId datum)
{
	size_t class_size = 4 + 4 * level_count;
	size_t instance_size = 12 + 4 * instance_words;
	UMAUint4 *at = words + 6;

	words[0] = (UMAUint4)(24 + class_size + instance_size);
	words[1] = 24;
	words[2] = (UMAUint4)class_size;
	words[3] = (UMAUint4)(24 + class_size);
	words[4] = (UMAUint4)instance_size;
	words[5] = datum;
	*at++ = (UMAUint4)class_size;
	memcpy(at, levels, 4 * level_count);
	at += level_count;
	*at++ = (UMAUint4)instance_size;
	*at++ = mask;
	*at++ = DCI_ALL;
	if (instance_words > 0)
		memcpy(at, instance, 4 * instance_words);
	return (const DCIMetricId *)words;
}

static const UMAUint4 netif[] = {1, 1}, disk[] = {1, 2}, sys[] = {2},
                      all[] = {DCI_ALL};

static DCIHandle
opened(void)
{
	DCIHandle handle = NULL;

	ck_assert_uint_eq(dciOpen(&handle, NULL, 0, NULL, 0), DCI_SUCCESS);
	ck_assert_ptr_nonnull(handle);
	return handle;
}

/* The DCIDataAttr of `datum` in `attr`; fails the test when absent. */
static const DCIDataAttr *
data_attr(const DCIClassAttr *attr, DCIDatumId datum)
{
	const unsigned char *at =
	    (const unsigned char *)attr + attr->dataAttr.offset;

	for (UMAUint4 i = 0; i < attr->dataAttr.count; i++) {
		const DCIDataAttr *one = (const DCIDataAttr *)at;

		ck_assert_uint_le((const unsigned char *)one + one->size -
		                      (const unsigned char *)attr,
		    attr->size);
		if (one->datumId == datum)
			return one;
		at += one->size;
	}
	ck_abort_msg("datum %u not in the class attributes", datum);
	return NULL;
}

static const char *
label_text(const void *base, UMAVarLenDescr descriptor)
{
	const DCILabel *label =
	    (const DCILabel *)((const char *)base + descriptor.offset);
	const UMATextString *ascii =
	    (const UMATextString *)((const char *)label + label->ascii.offset);

	return ascii->string;
}

/* --- the routines ----------------------------------------------------------
 */

START_TEST(classes_listed_with_wildcards)
{
	UMAUint4 words[17];
	DCIHandle handle = opened();
	DCIReturn *ret = NULL;
	const DCIClassId *found;

	ck_assert_uint_eq(
	    dciListClassId(handle, class_id(words, all, 1), 1, &ret, 0),
	    DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 4);
	ck_assert_uint_eq(ret->sumstatus, DCI_SUCCESS);
	ck_assert_uint_ne(ret->startTime.tv_sec, 0);
	ck_assert_uint_le(ret->startTime.tv_sec, ret->endTime.tv_sec);
	dciFree(ret);
	ret = NULL;
	/* Every class below 1: netif and disk, as DCIClassIds usable as
	 * input again. */
	ck_assert_uint_eq(
	    dciListClassId(handle,
	        class_id(words, (const UMAUint4[]){1, DCI_ALL}, 2), 1, &ret, 0),
	    DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 2);
	for (UMAUint4 i = 0; i < 2; i++) {
		found = dcireturnmetric(ret, i);
		ck_assert_uint_eq(found->size, 12);
		ck_assert_uint_eq(dciclassidlen(found), 2);
		ck_assert_uint_eq(dciclassidlevel(found, 0), 1);
		ck_assert_uint_eq(ret->retval[i].status, DCI_SUCCESS);
		ck_assert_uint_eq(ret->retval[i].dataSize, 0);
	}
	dciFree(ret);
	ret = NULL;
	/* No such class: one entry, NOTPRESENT, with the id asked. */
	ck_assert_uint_eq(
	    dciListClassId(handle, class_id(words, (const UMAUint4[]){9, 9}, 2),
	        1, &ret, 0),
	    DCI_NOTPRESENT);
	ck_assert_uint_eq(ret->count, 1);
	ck_assert_uint_eq(ret->retval[0].status, DCI_NOTPRESENT);
	found = dcireturnmetric(ret, 0);
	ck_assert_uint_eq(dciclassidlevel(found, 0), 9);
	dciFree(ret);
	dciClose(handle);
}
END_TEST

START_TEST(class_attributes_in_uma_terms)
{
	UMAUint4 words[17];
	DCIHandle handle = opened();
	DCIReturn *ret = NULL;
	const DCIClassAttr *attr;
	const DCIInstLevel *level;
	const DCIDataAttr *rx, *name, *invalid;

	ck_assert_uint_eq(dciGetClassAttributes(
	                      handle, class_id(words, netif, 2), 1, &ret, 0),
	    DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 1);
	attr = dcireturndata(ret, 0);
	ck_assert_uint_eq(attr->size, ret->retval[0].dataSize);
	ck_assert_uint_eq(attr->size % 4, 0);
	ck_assert_uint_eq(attr->flags, DCI_ENABLED | DCI_POSSIBLEINVALIDDATA);
	ck_assert_str_eq(label_text(attr, attr->label), "netif");
	ck_assert_uint_eq(attr->instLevel.count, 1);
	level =
	    (const DCIInstLevel *)((const char *)attr + attr->instLevel.offset);
	ck_assert_uint_eq(level->itype, UMA_DCISTAT_INTERFACE);
	ck_assert_uint_eq(level->size, 4);
	/* Three datums and the invalid-data list. */
	ck_assert_uint_eq(attr->dataAttr.count, 4);
	rx = data_attr(attr, 2);
	ck_assert_uint_eq(rx->type, UMA_UINT8);
	ck_assert_str_eq(label_text(rx, rx->label), "rx_bytes");
	ck_assert_uint_eq(rx->flags, DCI_QUERYABLE | DCI_DCISTAT_COUNTER);
	name = data_attr(attr, 1);
	ck_assert_uint_eq(name->type, UMA_TEXTSTRING);
	ck_assert_uint_eq(name->flags, DCI_QUERYABLE);
	ck_assert_uint_eq(data_attr(attr, 5)->type, UMA_UINT4);
	invalid = data_attr(attr, DCI_INVALIDDATUMID);
	ck_assert_uint_eq(invalid->type, UMA_UINT4);
	ck_assert_uint_eq(attr->eventAttr.count, 3);
	dciFree(ret);
	dciClose(handle);
}
END_TEST

/* The attributes of `levels`, for reading data. */
static DCIReturn *
attributes_of(DCIHandle handle, const UMAUint4 *levels, size_t count)
{
	UMAUint4 words[17];
	DCIReturn *ret = NULL;

	ck_assert_uint_eq(dciGetClassAttributes(handle,
	                      class_id(words, levels, count), 1, &ret, 0),
	    DCI_SUCCESS);
	return ret;
}

START_TEST(every_instance_every_datum)
{
	UMAUint4 words[64];
	DCIHandle handle = opened();
	DCIReturn *attributes = attributes_of(handle, netif, 2), *ret = NULL;
	const DCIClassAttr *attr = dcireturndata(attributes, 0);
	UMAUint4 rx_offset = data_attr(attr, 2)->offset;
	UMAUint4 name_offset = data_attr(attr, 1)->offset;
	UMAUint4 invalid_offset = data_attr(attr, DCI_INVALIDDATUMID)->offset;
	static const UMAUint4 ids[] = {10, 20, 30};
	static const UMAUint8 rx[] = {
	    FX_NETIF_RX_ETH0, FX_NETIF_RX_ETH1, FX_NETIF_RX_LO};
	static const char *const names[] = {"eth0", "eth1", "lo"};

	ck_assert_uint_eq(
	    dciGetData(handle,
	        metric_id(words, netif, 2, DCI_ALL_INSTANCES, NULL, 0, DCI_ALL),
	        1, &ret, 0, NULL, NULL),
	    DCI_INVALIDDATAPRESENT);
	ck_assert_uint_eq(ret->count, 3);
	ck_assert_uint_eq(ret->sumstatus, DCI_INVALIDDATAPRESENT);
	for (UMAUint4 i = 0; i < 3; i++) {
		const DCIMetricId *metric = dcireturnmetric(ret, i);
		const DCIInstanceId *instance = dcimetricinstanceid(metric);
		const unsigned char *block = dcireturndata(ret, i);
		const UMATextString *name =
		    (const UMATextString *)(block + name_offset);
		UMAUint8 value;
		UMAUint4 indirect;

		ck_assert_uint_eq(dciinstanceidwords(instance), 1);
		ck_assert_uint_eq(instance->data[0], ids[i]);
		ck_assert_uint_eq(metric->datumId, DCI_ALL);
		memcpy(&value, block + rx_offset, 8);
		ck_assert_uint_eq(value, rx[i]);
		ck_assert_str_eq(name->string, names[i]);
		ck_assert_uint_eq(name->size % 4, 0);
		memcpy(&indirect, block + invalid_offset, 4);
		if (ids[i] == 20) {
			/* eth1 has no queue: DCIInvalidData names datum 5. */
			const DCIInvalidData *invalid =
			    (const DCIInvalidData *)(block + indirect);

			ck_assert_uint_eq(
			    ret->retval[i].status, DCI_INVALIDDATAPRESENT);
			ck_assert_uint_ne(indirect, 0);
			ck_assert_uint_le(
			    indirect + invalid->size, ret->retval[i].dataSize);
			ck_assert_uint_eq(dciinvaliddatacount(invalid), 1);
			ck_assert_uint_eq(dciinvaliddatumid(invalid, 0), 5);
		} else {
			ck_assert_uint_eq(ret->retval[i].status, DCI_SUCCESS);
			ck_assert_uint_eq(indirect, 0);
		}
	}
	dciFree(ret);
	dciFree(attributes);
	dciClose(handle);
}
END_TEST

/* One datum of one instance of `levels`: the status, the value copied
 * to `value` (at most `size` bytes). */
static DCIStatus
one_datum(DCIHandle handle, const UMAUint4 *levels, size_t count,
    const UMAUint4 *instance, size_t words_count, DCIDatumId datum, void *value,
    size_t size)
{
	UMAUint4 words[64];
	DCIReturn *ret = NULL;
	DCIStatus status = dciGetData(handle,
	    metric_id(words, levels, count, words_count == 0 ? 0 : 1, instance,
	        words_count, datum),
	    1, &ret, 0, NULL, NULL);

	ck_assert_ptr_nonnull(ret);
	ck_assert_uint_eq(ret->count, 1);
	ck_assert_uint_eq(ret->retval[0].status, status);
	if (status == DCI_SUCCESS) {
		ck_assert_uint_le(size, ret->retval[0].dataSize);
		memcpy(value, dcireturndata(ret, 0), size);
	} else
		ck_assert_uint_eq(ret->retval[0].dataSize, 0);
	dciFree(ret);
	return status;
}

START_TEST(one_datum_in_its_uma_type)
{
	DCIHandle handle = opened();
	UMAUint8 counter = 0;
	UMAInt8 signed_value = 0;
	UMABoolean truth = 0;
	UMAUint4 queue = 0;
	UMATimeSpec elapsed = {0, 0};
	unsigned char hwaddr[12];
	DCIReturn *attributes;

	ck_assert_uint_eq(one_datum(handle, netif, 2, (const UMAUint4[]){10}, 1,
	                      2, &counter, 8),
	    DCI_SUCCESS);
	ck_assert_uint_eq(counter, FX_NETIF_RX_ETH0);
	ck_assert_uint_eq(one_datum(handle, netif, 2, (const UMAUint4[]){10}, 1,
	                      5, &queue, 4),
	    DCI_SUCCESS);
	ck_assert_uint_eq(queue, 7);
	/* eth1's queue has no value; datum 9 does not exist. */
	ck_assert_uint_eq(one_datum(handle, netif, 2, (const UMAUint4[]){20}, 1,
	                      5, &queue, 4),
	    DCI_INVALIDDATA);
	ck_assert_uint_eq(one_datum(handle, netif, 2, (const UMAUint4[]){20}, 1,
	                      9, &queue, 4),
	    DCI_NOTPRESENT);
	ck_assert_uint_eq(
	    one_datum(handle, sys, 1, NULL, 0, 1, &signed_value, 8),
	    DCI_SUCCESS);
	ck_assert_int_eq(signed_value, -42);
	ck_assert_uint_eq(
	    one_datum(handle, sys, 1, NULL, 0, 2, &truth, 4), DCI_SUCCESS);
	ck_assert_uint_eq(truth, 1);
	ck_assert_uint_eq(
	    one_datum(handle, sys, 1, NULL, 0, 6, &elapsed, 8), DCI_SUCCESS);
	/* 250 centiseconds since boot: an interval, as its attributes say;
	 * a gauge is no counter. */
	ck_assert_uint_eq(elapsed.tv_sec, 2);
	ck_assert_uint_eq(elapsed.tv_nsec, 500000000u);
	attributes = attributes_of(handle, sys, 1);
	ck_assert_uint_eq(data_attr(dcireturndata(attributes, 0), 6)->flags,
	    DCI_QUERYABLE | DCI_DCISTAT_INTERVAL);
	ck_assert_uint_eq(data_attr(dcireturndata(attributes, 0), 1)->flags,
	    DCI_QUERYABLE);
	dciFree(attributes);
	ck_assert_uint_eq(
	    one_datum(handle, sys, 1, NULL, 0, 4, hwaddr, 12), DCI_SUCCESS);
	/* UMAOctetString size: the size word and the 6 bytes. */
	ck_assert_uint_eq(hwaddr[0], 10);
	ck_assert_mem_eq(hwaddr + 4, fx_hwaddr, 6);
	dciClose(handle);
}
END_TEST

START_TEST(instances_listed_and_labelled)
{
	UMAUint4 words[64];
	DCIHandle handle = opened();
	DCIReturn *ret = NULL;
	const DCIMetricId *metric;
	const DCIInstAttr *attr;

	/* Disk's first level given (1): sda alone, with all three words. */
	ck_assert_uint_eq(
	    dciListInstanceId(handle,
	        metric_id(words, disk, 2, 1, (const UMAUint4[]){1}, 1, DCI_ALL),
	        1, &ret, 0),
	    DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 1);
	metric = dcireturnmetric(ret, 0);
	ck_assert_uint_eq(dciinstanceidwords(dcimetricinstanceid(metric)), 3);
	ck_assert_uint_eq(dcimetricinstanceid(metric)->data[2], 8);
	/* A bit a level: both of disk's. */
	ck_assert_uint_eq(dcimetricinstanceid(metric)->inputMask, 3);
	ck_assert_uint_eq(ret->retval[0].dataSize, 0);
	dciFree(ret);
	ret = NULL;
	/* An outputMask of the second level: its two words alone, for both
	 * disks, the inputMask saying which level they are. */
	metric_id(words, disk, 2, DCI_ALL_INSTANCES, NULL, 0, DCI_ALL);
	words[6 + 1 + 2 + 2] = 2; /* the DCIInstanceId's outputMask */
	ck_assert_uint_eq(dciListInstanceId(handle,
	                      (const DCIMetricId *)words, 1, &ret, 0),
	    DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 2);
	for (UMAUint4 i = 0; i < ret->count; i++) {
		const DCIMetricId *one = dcireturnmetric(ret, i);
		const DCIInstanceId *id = dcimetricinstanceid(one);

		ck_assert_uint_eq(id->inputMask, 2);
		ck_assert_uint_eq(id->outputMask, 2);
		ck_assert_uint_eq(dciinstanceidwords(id), 2);
		ck_assert_uint_eq(id->data[0], i == 0 ? 7 : 0);
		ck_assert_uint_eq(id->data[1], i == 0 ? 8 : 1);
	}
	dciFree(ret);
	ret = NULL;
	/* No level asked for back: refused, as the specification says. */
	words[6 + 1 + 2 + 2] = 0;
	ck_assert_uint_eq(dciListInstanceId(handle,
	                      (const DCIMetricId *)words, 1, &ret, 0),
	    DCI_INVALIDARG);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(dciGetInstAttributes(handle,
	                      metric_id(words, netif, 2, 1,
	                          (const UMAUint4[]){10}, 1, DCI_ALL),
	                      1, &ret, 0),
	    DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 1);
	attr = dcireturndata(ret, 0);
	ck_assert_uint_eq(attr->size, ret->retval[0].dataSize);
	ck_assert_str_eq(label_text(attr, attr->label), "eth0");
	dciFree(ret);
	dciClose(handle);
}
END_TEST

START_TEST(buffer_modes)
{
	UMAUint4 words[64];
	const DCIMetricId *all_netif =
	    metric_id(words, netif, 2, DCI_ALL_INSTANCES, NULL, 0, DCI_ALL);
	DCIHandle handle = opened();
	DCIReturn *allocated = NULL, *ret;
	unsigned char small[64], *mine, *data_mine;
	void *data = NULL;
	UMAUint4 data_size = 0, needed;

	ck_assert_uint_eq(
	    dciGetData(handle, all_netif, 1, &allocated, 0, NULL, NULL),
	    DCI_INVALIDDATAPRESENT);
	/* A caller's buffer too small: nothing but the size needed. */
	ret = (DCIReturn *)(void *)small;
	ck_assert_uint_eq(
	    dciGetData(handle, all_netif, 1, &ret, sizeof(small), NULL, NULL),
	    DCI_BUFFERTOOSMALL);
	ck_assert_ptr_eq(ret, (DCIReturn *)(void *)small);
	needed = ret->size;
	ck_assert_uint_eq(needed, allocated->size);
	/* Large enough: the same bytes as the library's own buffer, but
	 * the times. */
	mine = malloc(needed);
	ret = (DCIReturn *)(void *)mine;
	ck_assert_uint_eq(
	    dciGetData(handle, all_netif, 1, &ret, needed, NULL, NULL),
	    DCI_INVALIDDATAPRESENT);
	ck_assert_ptr_eq(ret, (DCIReturn *)(void *)mine);
	ck_assert_mem_eq(mine + DCI_RETURN_HEADER_SIZE,
	    (unsigned char *)allocated + DCI_RETURN_HEADER_SIZE,
	    needed - DCI_RETURN_HEADER_SIZE);
	/* Split, both allocated: the data apart, offsets from its start. */
	ret = NULL;
	ck_assert_uint_eq(
	    dciGetData(handle, all_netif, 1, &ret, 0, &data, &data_size),
	    DCI_INVALIDDATAPRESENT);
	ck_assert_ptr_nonnull(data);
	ck_assert_uint_eq(ret->size + data_size, allocated->size);
	for (UMAUint4 i = 0; i < ret->count; i++) {
		ck_assert_uint_eq(
		    ret->retval[i].dataSize, allocated->retval[i].dataSize);
		ck_assert_uint_le(
		    ret->retval[i].dataOffset + ret->retval[i].dataSize,
		    data_size);
		ck_assert_mem_eq(
		    (unsigned char *)data + ret->retval[i].dataOffset,
		    dcireturndata(allocated, i), ret->retval[i].dataSize);
	}
	dciFree(ret);
	dciFree(data);
	/* Split into the caller's buffers; a data buffer too small. */
	data_mine = malloc(data_size);
	ret = (DCIReturn *)(void *)mine;
	data = data_mine;
	ck_assert_uint_eq(
	    dciGetData(handle, all_netif, 1, &ret, needed, &data, &data_size),
	    DCI_INVALIDDATAPRESENT);
	ck_assert_ptr_eq(data, data_mine);
	data_size = 8;
	ck_assert_uint_eq(
	    dciGetData(handle, all_netif, 1, &ret, needed, &data, &data_size),
	    DCI_BUFFERTOOSMALL);
	free(data_mine);
	free(mine);
	dciFree(allocated);
	dciClose(handle);
}
END_TEST

START_TEST(writes_refused_by_the_server)
{
	UMAUint4 words[64], value = 1;
	DCIHandle handle = opened();
	DCIReturn *ret = NULL;
	const DCIMetricId *queue =
	    metric_id(words, netif, 2, DCI_ALL_INSTANCES, NULL, 0, 5);

	ck_assert_uint_eq(
	    dciSetData(handle, DCI_OP_SETDATA, queue, 1, &value, 4, &ret, 0),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(ret->count, 3);
	for (UMAUint4 i = 0; i < 3; i++)
		ck_assert_uint_eq(
		    ret->retval[i].status, DCI_METHODOPUNAVAILABLE);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(dciSetData(handle, DCI_OP_RESERVEDATA, queue, 1,
	                      &value, 4, &ret, 0),
	    DCI_METHODOPUNAVAILABLE);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(
	    dciSetData(handle, DCI_OP_RELEASEDATA, queue, 1, NULL, 0, &ret, 0),
	    DCI_METHODOPUNAVAILABLE);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(dciConfigure(handle, queue, 1, &value, 4, &ret, 0),
	    DCI_METHODOPUNAVAILABLE);
	dciFree(ret);
	ret = NULL;
	/* Nothing matched: absent rather than refused. */
	ck_assert_uint_eq(
	    dciSetData(handle, DCI_OP_SETDATA,
	        metric_id(words, (const UMAUint4[]){9}, 1, 0, NULL, 0, 5), 1,
	        &value, 4, &ret, 0),
	    DCI_NOTPRESENT);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(
	    dciSetData(handle, 0x80, queue, 1, &value, 4, &ret, 0),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciSetData(handle, DCI_OP_SETDATA, queue, 1, NULL, 0, &ret, 0),
	    DCI_INVALIDARG);
	ck_assert_ptr_null(ret);
	dciClose(handle);
}
END_TEST

START_TEST(bad_arguments_refused)
{
	UMAUint4 words[64];
	DCIHandle handle = opened(), none = NULL;
	DCIReturn *ret = NULL;
	UMAUint4 short_class[1] = {2};

	ck_assert_uint_eq(
	    dciListClassId(NULL, class_id(words, all, 1), 1, &ret, 0),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciListClassId(handle, (const DCIClassId *)short_class, 1, &ret, 0),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciListClassId(handle, class_id(words, all, 1), 1, NULL, 0),
	    DCI_INVALIDARG);
	/* A metric id whose class descriptor points outside it. */
	metric_id(words, netif, 2, 0, NULL, 0, DCI_ALL);
	words[1] = 400;
	ck_assert_uint_eq(dciGetData(handle, (const DCIMetricId *)words, 1,
	                      &ret, 0, NULL, NULL),
	    DCI_INVALIDARG);
	/* Datum 0 is no datum. */
	ck_assert_uint_eq(
	    dciGetData(handle, metric_id(words, netif, 2, 0, NULL, 0, 0), 1,
	        &ret, 0, NULL, NULL),
	    DCI_INVALIDARG);
	/* A mask naming a level the class does not have. */
	ck_assert_uint_eq(dciGetData(handle,
	                      metric_id(words, netif, 2, 2,
	                          (const UMAUint4[]){1}, 1, DCI_ALL),
	                      1, &ret, 0, NULL, NULL),
	    DCI_NOTPRESENT);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(dciFree(NULL), DCI_INVALIDARG);
	ck_assert_uint_eq(dciClose(NULL), DCI_INVALIDARG);
	ck_assert_uint_eq(dciOpen(NULL, NULL, 0, NULL, 0), DCI_INVALIDARG);
	dciClose(handle);
	/* No server there. */
	setenv("DCISTAT_DCI_SOCKET", "/nonexistent/dcih28l.sock", 1);
	ck_assert_uint_eq(dciOpen(&none, NULL, 0, NULL, 0), DCI_NOTINITIALIZED);
	ck_assert_ptr_null(none);
	setenv("DCISTAT_DCI_SOCKET", socket_path, 1);
}
END_TEST

/* --- events ------------------------------------------------------------- */

#define EVENT_FLAGS                                                            \
	(DCI_EVENTHDR | DCI_EVENTHDRCLASSID | DCI_EVENTHDRINSTANCEID |         \
	    DCI_EVENTHDRTIMESTAMP)

static void
event_inject(enum dci_events_kind kind, UMAUint4 instance)
{
	const struct dci_class *class = fx_find_class(registry, netif, 2);
	struct dci_events_instance event = {
	    .class = class, .kind = kind, .id = &instance, .label = "x"};

	pthread_mutex_lock(&server_lock);
	dci_server_event(server, &event);
	pthread_mutex_unlock(&server_lock);
}

START_TEST(events_delivered_as_asked)
{
	UMAUint4 words[128];
	const DCIMetricId *added = metric_id(words, netif, 2, DCI_ALL_INSTANCES,
	    NULL, 0, EVENT_FLAGS | 7u << 8 | DCI_INSTANCEADDED);
	const DCIMetricId *removed = metric_id(words + 64, disk, 2,
	    DCI_ALL_INSTANCES, NULL, 0, DCI_EVENTHDR | DCI_INSTANCEREMOVED);
	UMATimeSpec none = {0, 0}, two = {2, 0};
	DCIHandle handle = NULL;
	DCIReturn *ret = NULL;
	const unsigned char *event;
	const DCIClassId *event_class;
	const DCIInstanceId *event_instance;
	UMAUint4 header;

	/* Two event ids one after the other, as a list. */
	memmove(words + added->size / 4, words + 64, removed->size);
	ck_assert_uint_eq(dciOpen(&handle, added, 2, &ret, 0), DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 2);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(
	    dciWaitEvent(handle, &ret, 0, NULL, NULL, &none), DCI_TIMEOUT);
	/* An instance added to netif; one removed from netif, which no id
	 * asked for. */
	event_inject(DCI_EVENTS_INSTANCE_REMOVED, 10);
	event_inject(DCI_EVENTS_INSTANCE_ADDED, 40);
	ck_assert_uint_eq(
	    dciWaitEvent(handle, &ret, 0, NULL, NULL, &two), DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 1);
	ck_assert_uint_eq(
	    ((const DCIMetricId *)dcireturnmetric(ret, 0))->datumId,
	    EVENT_FLAGS | 7u << 8 | DCI_INSTANCEADDED);
	event = dcireturndata(ret, 0);
	memcpy(&header, event, 4);
	ck_assert_uint_eq(dcieventflags(header), EVENT_FLAGS);
	ck_assert_uint_eq(dcieventid(header), 7);
	ck_assert_uint_eq(dcieventheadersize(header), ret->retval[0].dataSize);
	event_class = (const DCIClassId *)(event + 4);
	ck_assert_uint_eq(event_class->size, 12);
	ck_assert_uint_eq(dciclassidlevel(event_class, 1), 1);
	event_instance = (const DCIInstanceId *)(event + 4 + 12);
	ck_assert_uint_eq(event_instance->data[0], 40);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(
	    dciWaitEvent(handle, &ret, 0, NULL, NULL, &none), DCI_TIMEOUT);
	dciClose(handle);
}
END_TEST

/* An event id for a class the registry does not have yet is kept: the
 * class's events come once it is registered. */
START_TEST(events_of_a_class_registered_later)
{
	static const uint32_t late_id[] = {1, 9};
	static const struct dci_instance_level level[] = {
	    {DCI_ITYPE_DEVICE, 4}};
	struct dci_datum_info datums[] = {fx_datum(1, "count", DCI_ST_INTEGER32,
	    DCI_SIF_UNSIGNED, 0, DCI_SEMANTICS_GAUGE)};
	struct dci_class_info info =
	    fx_class_info(late_id, 2, "late", level, 1, datums, 1);
	UMAUint4 words[64], instance = 77;
	UMATimeSpec none = {0, 0}, two = {2, 0};
	const DCIMetricId *added = metric_id(words, late_id, 2,
	    DCI_ALL_INSTANCES, NULL, 0, EVENT_FLAGS | DCI_INSTANCEADDED);
	struct dci_events_instance event = {
	    .kind = DCI_EVENTS_INSTANCE_ADDED, .id = &instance, .label = "x"};
	DCIHandle handle = NULL;
	DCIReturn *ret = NULL;
	const unsigned char *data;
	const DCIClassId *event_class;

	ck_assert_uint_eq(dciOpen(&handle, added, 1, &ret, 0), DCI_SUCCESS);
	ck_assert_uint_eq(ret->retval[0].status, DCI_SUCCESS);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(
	    dciWaitEvent(handle, &ret, 0, NULL, NULL, &none), DCI_TIMEOUT);
	pthread_mutex_lock(&server_lock);
	event.class = fx_class(registry, fx_supplier(registry, "late"), &info);
	dci_server_event(server, &event);
	pthread_mutex_unlock(&server_lock);
	ck_assert_uint_eq(
	    dciWaitEvent(handle, &ret, 0, NULL, NULL, &two), DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 1);
	data = dcireturndata(ret, 0);
	event_class = (const DCIClassId *)(data + 4);
	ck_assert_uint_eq(event_class->size, 12);
	ck_assert_uint_eq(dciclassidlevel(event_class, 1), 9);
	ck_assert_uint_eq(
	    ((const DCIInstanceId *)(data + 4 + 12))->data[0], instance);
	dciFree(ret);
	dciClose(handle);
}
END_TEST

/* dciOpen's event ids: a datum that is no event, a class that is not
 * there (kept, nothing comes), more than the server keeps, more than the
 * library takes. */
START_TEST(event_ids_checked)
{
	UMAUint4 words[64 * 17];
	DCIHandle handle = NULL;
	DCIReturn *ret = NULL;
	size_t at = 0;

	metric_id(words, netif, 2, 0, NULL, 0, DCI_EVENTHDR | 2u);
	ck_assert_uint_eq(
	    dciOpen(&handle, (const DCIMetricId *)words, 1, &ret, 0),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(ret->retval[0].status, DCI_INVALIDARG);
	dciFree(ret);
	ret = NULL;
	dciClose(handle);
	metric_id(words, (const UMAUint4[]){9}, 1, 0, NULL, 0,
	    DCI_EVENTHDR | DCI_INSTANCEADDED);
	ck_assert_uint_eq(
	    dciOpen(&handle, (const DCIMetricId *)words, 1, &ret, 0),
	    DCI_SUCCESS);
	dciFree(ret);
	ret = NULL;
	ck_assert_uint_eq(dciWaitEvent(handle, &ret, 0, NULL, NULL,
	                      &(const UMATimeSpec){0, 0}),
	    DCI_TIMEOUT);
	dciClose(handle);
	/* 16 at most: the 17th is refused before anything is sent. */
	for (int i = 0; i < 17; i++)
		at += metric_id(words + at, netif, 2, 0, NULL, 0,
		          DCI_EVENTHDR | DCI_INSTANCEADDED)
		          ->size /
		      4;
	ck_assert_uint_eq(
	    dciOpen(&handle, (const DCIMetricId *)words, 17, &ret, 0),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciOpen(&handle, (const DCIMetricId *)words, 16, &ret, 0),
	    DCI_SUCCESS);
	ck_assert_uint_eq(ret->count, 16);
	dciFree(ret);
	dciClose(handle);
}
END_TEST

START_TEST(events_unread_are_bounded)
{
	UMAUint4 words[64];
	const DCIMetricId *added = metric_id(words, netif, 2, DCI_ALL_INSTANCES,
	    NULL, 0, DCI_EVENTHDR | DCI_INSTANCEADDED);
	UMATimeSpec second = {1, 0};
	DCIHandle handle = NULL;
	DCIReturn *ret = NULL;
	UMAUint4 lost, delivered = 0, total_lost = 0;
	int turns = 0;

	ck_assert_uint_eq(dciOpen(&handle, added, 1, NULL, 0), DCI_SUCCESS);
	/* More than the server keeps for a consumer, in one go. */
	pthread_mutex_lock(&server_lock);
	for (UMAUint4 i = 0; i < DCI_SERVER_EVENTS_QUEUED_MAX + 44; i++) {
		const struct dci_class *class =
		    fx_find_class(registry, netif, 2);
		struct dci_events_instance event = {.class = class,
		    .kind = DCI_EVENTS_INSTANCE_ADDED,
		    .id = &i,
		    .label = "x"};

		dci_server_event(server, &event);
	}
	pthread_mutex_unlock(&server_lock);
	while (delivered + total_lost < DCI_SERVER_EVENTS_QUEUED_MAX + 44 &&
	       turns++ < 10) {
		DCIStatus status =
		    dciWaitEvent(handle, &ret, 0, NULL, NULL, &second);

		if (status == DCI_TIMEOUT)
			continue;
		for (UMAUint4 i = 0; i < ret->count; i++) {
			if (ret->retval[i].status == DCI_ALLOCATIONFAILURE) {
				memcpy(&lost, dcireturndata(ret, i), 4);
				total_lost += lost;
			} else
				delivered++;
		}
		dciFree(ret);
		ret = NULL;
	}
	ck_assert_uint_eq(delivered, DCI_SERVER_EVENTS_QUEUED_MAX);
	ck_assert_uint_eq(total_lost, 44);
	dciClose(handle);
}
END_TEST

static Suite *
libdci_suite(void)
{
	Suite *suite = suite_create("libdci");
	TCase *routines = tcase_create("routines");
	TCase *events = tcase_create("events");

	tcase_add_checked_fixture(routines, server_setup, server_teardown);
	tcase_set_timeout(routines, 60);
	tcase_add_test(routines, classes_listed_with_wildcards);
	tcase_add_test(routines, class_attributes_in_uma_terms);
	tcase_add_test(routines, every_instance_every_datum);
	tcase_add_test(routines, one_datum_in_its_uma_type);
	tcase_add_test(routines, instances_listed_and_labelled);
	tcase_add_test(routines, buffer_modes);
	tcase_add_test(routines, writes_refused_by_the_server);
	tcase_add_test(routines, bad_arguments_refused);
	suite_add_tcase(suite, routines);
	tcase_add_checked_fixture(events, server_setup, server_teardown);
	tcase_set_timeout(events, 60);
	tcase_add_test(events, events_delivered_as_asked);
	tcase_add_test(events, events_unread_are_bounded);
	tcase_add_test(events, event_ids_checked);
	tcase_add_test(events, events_of_a_class_registered_later);
	suite_add_tcase(suite, events);
	return suite;
}

int
main(void)
{
	return unit_run_suite(libdci_suite());
}
