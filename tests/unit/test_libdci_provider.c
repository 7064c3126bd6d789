/* libdci's provider routines (dciRegister(3)) against a segment read back
 * through the suppliers provider's reader: DCI_STORE values as posted
 * (counters, gauges, booleans, times, text), DCI_ADDRESS values updated in
 * place, instances added and removed, every refusal with its status, and
 * posts applied whole or not at all. */
#define _GNU_SOURCE
#include <check.h>
#include <dci.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dci_provider_build.h"
#include "providers/suppliers/segment_reader.h"
#include "check_runner.h"

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))
#define NUMBER 4242u

static char directory[] = "/tmp/dcistat-dciprov-XXXXXX";
static const UMAUint4 class_levels[] = {DCI_PROVIDER_CLASS_ARC, NUMBER, 16, 1};
static const UMAUint4 address_levels[] = {DCI_PROVIDER_CLASS_ARC, NUMBER, 17};
static const DCIInstLevel one_level[] = {{UMA_UINT4, UMA_DEVICE, 4}};

/* The class every test registers: a block of 24 bytes and a string. */
static const struct build_datum datums[] = {
    {1, UMA_UINT8, UMA_COUNT, DCI_QUERYABLE | DCI_DCISTAT_COUNTER, 0, "served"},
    {2, UMA_INT4, UMA_COUNT, DCI_QUERYABLE, 8, "queue"},
    {3, UMA_BOOLEAN, UMA_NOUNITS, DCI_QUERYABLE, 12, "up"},
    {4, UMA_TIMESPEC, UMA_NOUNITS, DCI_QUERYABLE, 16, "started"},
    {5, UMA_TEXTSTRING, UMA_NOUNITS, DCI_QUERYABLE, 24, "name"},
};
static const struct build_datum address_datums[] = {
    {1, UMA_UINT8, UMA_BYTES, DCI_QUERYABLE | DCI_DCISTAT_COUNTER, 0, "bytes"},
    {2, UMA_UINT4, UMA_COUNT, DCI_QUERYABLE, 8, "clients"},
};

static void
directory_make(void)
{
	strcpy(directory, "/tmp/dcistat-dciprov-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(directory));
	setenv("DCISTAT_SUPPLIER_DIRECTORY", directory, 1);
}

static void
directory_remove(void)
{
	char command[256];

	snprintf(command, sizeof(command), "rm -rf '%s'", directory);
	ck_assert_int_eq(system(command), 0);
}

static void
segment_path(char *path, size_t size)
{
	snprintf(
	    path, size, "%s/dciprov.%ld.dciseg", directory, (long)getpid());
}

/* A class data block of the test class; returns its size. */
static UMAUint4
block_make(unsigned char *block, uint64_t served, int32_t queue, UMABoolean up,
    UMAUint4 started, const char *name)
{
	UMATimeSpec time = {started, 500};
	UMAUint4 text_size = (UMAUint4)(4 + ((strlen(name) + 1 + 3) & ~3u));

	memset(block, 0, 24 + text_size);
	memcpy(block, &served, 8);
	memcpy(block + 8, &queue, 4);
	memcpy(block + 12, &up, 4);
	memcpy(block + 16, &time, 8);
	memcpy(block + 24, &text_size, 4);
	memcpy(block + 28, name, strlen(name));
	return 24 + text_size;
}

static DCIStatus
register_class(DCIProviderHandle *handle)
{
	DCIClassId *id = build_class_id(class_levels, COUNT_OF(class_levels));
	DCIClassAttr *attr = build_class_attr(
	    "requests", 0, 0, one_level, 1, datums, COUNT_OF(datums));
	DCIStatus status = dciRegister(handle, "dciprov", id, attr);

	free(id);
	free(attr);
	return status;
}

static DCIMetricId *
metric_of(UMAUint4 instance, DCIDatumId datum)
{
	return build_metric(
	    class_levels, COUNT_OF(class_levels), 1u, &instance, 1, datum);
}

static DCIStatus
add_instance(DCIProviderHandle handle, UMAUint4 instance, const char *label,
    uint64_t served)
{
	unsigned char block[512];
	UMAUint4 size = block_make(block, served, -3, 1, 1700000000, label);
	DCIMetricId *metric = metric_of(instance, DCI_ALL);
	DCIInstAttr *attr = build_inst_attr(label);
	DCIStatus status =
	    dciAddInstance(handle, metric, attr, NULL, block, size);

	free(metric);
	free(attr);
	return status;
}

/* --- reading the segment as dcistatd does -------------------------------- */

struct reading {
	void *base;
	size_t size;
	struct segment_view view;
	struct segment_class classes[8];
	uint32_t class_count;
	struct segment_scratch scratch;
};

static void
reading_open(struct reading *reading)
{
	char path[512], why[256];
	int descriptor;
	struct stat status;

	segment_path(path, sizeof(path));
	descriptor = open(path, O_RDONLY);
	memset(reading, 0, sizeof(*reading));
	ck_assert_int_ge(descriptor, 0);
	ck_assert_int_eq(fstat(descriptor, &status), 0);
	reading->size = (size_t)status.st_size;
	reading->base =
	    mmap(NULL, reading->size, PROT_READ, MAP_SHARED, descriptor, 0);
	close(descriptor);
	ck_assert_ptr_ne(reading->base, MAP_FAILED);
	ck_assert_msg(segment_view_open(reading->base, reading->size,
	                  &reading->view, why, sizeof(why)) == 0,
	    "%s", why);
	reading->class_count = segment_class_count(&reading->view);
	ck_assert_uint_le(reading->class_count, COUNT_OF(reading->classes));
	for (uint32_t c = 0; c < reading->class_count; c++)
		ck_assert_msg(segment_class_read(&reading->view, c,
		                  &reading->classes[c], why, sizeof(why)) == 0,
		    "%s", why);
}

static void
reading_close(struct reading *reading)
{
	for (uint32_t c = 0; c < reading->class_count; c++)
		segment_class_clear(&reading->classes[c]);
	segment_scratch_clear(&reading->scratch);
	munmap(reading->base, reading->size);
}

/* The value of datum `label` of instance `instance_label`; false when
 * there is no such instance. */
static bool
reading_value(struct reading *reading, const char *instance_label,
    const char *label, struct segment_value *value)
{
	uint32_t high = segment_instance_high(&reading->view);
	char why[256];

	for (uint32_t i = 0; i < high; i++) {
		struct segment_instance instance;
		struct segment_class *copy;
		struct segment_value values[16];

		if (segment_instance_read(&reading->view, i, reading->classes,
		        reading->class_count, &instance, why,
		        sizeof(why)) != 1 ||
		    strcmp(instance.label, instance_label) != 0)
			continue;
		copy = &reading->classes[instance.class_index];
		reading->scratch.valid = false;
		ck_assert_int_eq(segment_values_read(&reading->view, copy,
		                     &instance, 0, &reading->scratch, values),
		    0);
		for (uint32_t d = 0; d < copy->datum_count; d++)
			if (strcmp(copy->datums[d].label, label) == 0) {
				*value = values[d];
				return true;
			}
		ck_abort_msg("%s has no datum %s", instance_label, label);
	}
	return false;
}

static uint64_t
number_of(const char *instance_label, const char *label)
{
	struct reading reading;
	struct segment_value value;

	reading_open(&reading);
	ck_assert_msg(reading_value(&reading, instance_label, label, &value),
	    "no instance %s", instance_label);
	reading_close(&reading);
	ck_assert(value.present);
	return value.number;
}

static bool
instance_present(const char *instance_label)
{
	struct reading reading;
	struct segment_value value;
	bool present;

	reading_open(&reading);
	present = reading_value(&reading, instance_label, "served", &value) ||
	          reading_value(&reading, instance_label, "bytes", &value);
	reading_close(&reading);
	return present;
}

/* --- DCI_STORE ----------------------------------------------------------- */

START_TEST(test_store_values)
{
	DCIProviderHandle handle = NULL;
	struct reading reading;
	struct segment_value value;
	unsigned char block[512];
	UMAUint4 size;

	directory_make();
	ck_assert_uint_eq(register_class(&handle), DCI_SUCCESS);
	ck_assert_ptr_nonnull(handle);
	ck_assert_uint_eq(add_instance(handle, 7, "front", 100), DCI_SUCCESS);
	/* The initial values, as given. */
	ck_assert_uint_eq(number_of("front", "served"), 100);
	ck_assert_uint_eq((uint32_t)number_of("front", "queue"), (uint32_t)-3);
	ck_assert_uint_eq(number_of("front", "up"), 1);
	ck_assert_uint_eq(number_of("front", "started"), 1700000000);
	reading_open(&reading);
	ck_assert(reading_value(&reading, "front", "name", &value));
	ck_assert_str_eq(value.text, "front");
	reading_close(&reading);

	/* A whole block, then one datum, the data apart. */
	{
		DCIMetricId *metric = metric_of(7, DCI_ALL);
		const void *data[] = {block};
		UMAUint4 sizes[1];
		DCIReturn *post;

		sizes[0] = block_make(block, 250, 12, 0, 1700000100, "renamed");
		post = build_post(&metric, data, sizes, 1);
		ck_assert_uint_eq(
		    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0),
		    DCI_SUCCESS);
		free(post);
		free(metric);
	}
	ck_assert_uint_eq(number_of("front", "served"), 250);
	ck_assert_uint_eq(number_of("front", "queue"), 12);
	ck_assert_uint_eq(number_of("front", "up"), 0);
	ck_assert_uint_eq(number_of("front", "started"), 1700000100);
	{
		DCIMetricId *metric = metric_of(7, 1);
		uint64_t served = 251;
		const void *data[] = {&served};
		UMAUint4 sizes[] = {0};
		DCIReturn *post = build_post(&metric, data, sizes, 1);

		/* dataOffset 0 and dataSize 8 in the buffer apart. */
		post->retval[0].dataOffset = 0;
		post->retval[0].dataSize = 8;
		ck_assert_uint_eq(dciPostData(handle, DCI_OP_GETDATA, post,
		                      &served, sizeof(served)),
		    DCI_SUCCESS);
		ck_assert_uint_eq(number_of("front", "served"), 251);
		/* A counter posted lower wraps forward to exactly that. */
		served = 5;
		ck_assert_uint_eq(dciPostData(handle, DCI_OP_GETDATA, post,
		                      &served, sizeof(served)),
		    DCI_SUCCESS);
		ck_assert_uint_eq(number_of("front", "served"), 5);
		free(post);
		free(metric);
	}
	size = block_make(block, 1, 1, 1, 1, "x");
	(void)size;
	ck_assert_uint_eq(dciUnregister(handle, NULL), DCI_SUCCESS);
	directory_remove();
}
END_TEST

START_TEST(test_post_whole_or_nothing)
{
	DCIProviderHandle handle = NULL;
	unsigned char block[512], long_text[300];
	DCIMetricId *metrics[2];
	const void *data[2];
	UMAUint4 sizes[2];
	DCIReturn *post;
	uint64_t served = 999;
	UMAUint4 word = 0;

	directory_make();
	ck_assert_uint_eq(register_class(&handle), DCI_SUCCESS);
	ck_assert_uint_eq(add_instance(handle, 1, "one", 10), DCI_SUCCESS);
	metrics[0] = metric_of(1, 1);
	data[0] = &served;
	sizes[0] = 8;
	/* The second entry names a datum the class has not. */
	metrics[1] = metric_of(1, 99);
	data[1] = &word;
	sizes[1] = 4;
	post = build_post(metrics, data, sizes, 2);
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0), DCI_NOTPRESENT);
	ck_assert_uint_eq(number_of("one", "served"), 10);
	free(post);
	free(metrics[1]);
	/* An instance never added. */
	metrics[1] = metric_of(2, 1);
	data[1] = &served;
	sizes[1] = 8;
	post = build_post(metrics, data, sizes, 2);
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0), DCI_NOTPRESENT);
	ck_assert_uint_eq(number_of("one", "served"), 10);
	/* Operations a DCI_STORE post cannot answer, and no operation. */
	ck_assert_uint_eq(dciPostData(handle, DCI_OP_SETDATA, post, NULL, 0),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(dciPostData(handle, DCI_OP_CONFIGURE, post, NULL, 0),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(
	    dciPostData(handle, 0, post, NULL, 0), DCI_INVALIDARG);
	/* Offsets beyond the structure. */
	post->retval[0].dataOffset = post->size;
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0), DCI_INVALIDARG);
	post->retval[0].metricOffset = post->size - 4;
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0), DCI_INVALIDARG);
	post->count = 1000;
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0), DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciPostData(NULL, DCI_OP_GETDATA, post, NULL, 0), DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, NULL, NULL, 0), DCI_INVALIDARG);
	free(post);
	free(metrics[1]);
	/* A value too short, a block too short. */
	sizes[0] = 4;
	post = build_post(metrics, data, sizes, 1);
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0), DCI_INVALIDARG);
	free(post);
	free(metrics[0]);
	metrics[0] = metric_of(1, DCI_ALL);
	data[0] = block;
	sizes[0] = block_make(block, 1, 1, 1, 1, "ab");
	sizes[0] = 26;
	post = build_post(metrics, data, sizes, 1);
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0), DCI_INVALIDARG);
	free(post);
	/* A string over DCISTAT_SUPPLIER_STRING_MAX - 1 bytes. */
	memset(long_text, 'a', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	sizes[0] = block_make(block, 1, 1, 1, 1, (const char *)long_text);
	post = build_post(metrics, data, sizes, 1);
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0), DCI_INVALIDARG);
	ck_assert_uint_eq(number_of("one", "served"), 10);
	free(post);
	free(metrics[0]);
	ck_assert_uint_eq(dciUnregister(handle, NULL), DCI_SUCCESS);
	directory_remove();
}
END_TEST

/* --- instances ----------------------------------------------------------- */

START_TEST(test_instances)
{
	DCIProviderHandle handle = NULL;
	unsigned char block[512];
	UMAUint4 size = block_make(block, 1, 2, 1, 4, "b");
	UMAUint4 id = 3, two[2] = {3, 4};
	DCIMetricId *metric;
	DCIInstAttr *attr = build_inst_attr("b");
	DCIMethod *wait = build_method(DCI_WAIT);
	DCIMethod *callback = build_method(DCI_CALLBACK);
	DCIMethod *address = build_method(DCI_ADDRESS);

	directory_make();
	ck_assert_uint_eq(register_class(&handle), DCI_SUCCESS);
	metric = metric_of(id, DCI_ALL);
	/* DCI_STORE needs every initial value. */
	ck_assert_uint_eq(dciAddInstance(handle, metric, attr, NULL, NULL, 0),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(dciAddInstance(handle, metric, attr, NULL, block, 20),
	    DCI_INVALIDARG);
	/* Methods the server cannot use; DCI_ADDRESS with a string. */
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, attr, wait, block, size),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, attr, callback, block, size),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, attr, address, block, size),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(dciAddInstance(NULL, metric, attr, NULL, block, size),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, NULL, NULL, block, size),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, attr, NULL, block, size),
	    DCI_SUCCESS);
	ck_assert(instance_present("b"));
	/* Twice the same id. */
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, attr, NULL, block, size),
	    DCI_INVALIDARG);
	free(metric);
	/* A wildcard, or a wrong length, is not an instance id. */
	metric = build_metric(
	    class_levels, COUNT_OF(class_levels), 0, NULL, 0, DCI_ALL);
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, attr, NULL, block, size),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(dciRemoveInstance(handle, metric), DCI_INVALIDARG);
	free(metric);
	metric = build_metric(
	    class_levels, COUNT_OF(class_levels), 1, two, 2, DCI_ALL);
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, attr, NULL, block, size),
	    DCI_INVALIDARG);
	free(metric);
	/* A class not registered. */
	metric = build_metric(
	    address_levels, COUNT_OF(address_levels), 1, &id, 1, DCI_ALL);
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, attr, NULL, block, size),
	    DCI_NOTPRESENT);
	ck_assert_uint_eq(dciRemoveInstance(handle, metric), DCI_NOTPRESENT);
	free(metric);
	/* Removed, it goes from the segment; a second time it is absent. */
	metric = metric_of(id, DCI_ALL);
	ck_assert_uint_eq(dciRemoveInstance(handle, metric), DCI_SUCCESS);
	ck_assert(!instance_present("b"));
	ck_assert_uint_eq(dciRemoveInstance(handle, metric), DCI_NOTPRESENT);
	ck_assert_uint_eq(dciRemoveInstance(NULL, metric), DCI_INVALIDARG);
	ck_assert_uint_eq(dciRemoveInstance(handle, NULL), DCI_INVALIDARG);
	free(metric);
	free(attr);
	free(wait);
	free(callback);
	free(address);
	ck_assert_uint_eq(dciUnregister(handle, NULL), DCI_SUCCESS);
	directory_remove();
}
END_TEST

/* --- DCI_ADDRESS --------------------------------------------------------- */

START_TEST(test_address_in_place)
{
	DCIProviderHandle handle = NULL;
	DCIClassId *id =
	    build_class_id(address_levels, COUNT_OF(address_levels));
	DCIClassAttr *attr = build_class_attr("traffic", 0, DCI_ADDRESS,
	    one_level, 1, address_datums, COUNT_OF(address_datums));
	DCIInstAttr *inst = build_inst_attr("link");
	UMAUint4 instance = 9;
	DCIMetricId *bytes = build_metric(
	    address_levels, COUNT_OF(address_levels), 1, &instance, 1, 1);
	DCIMetricId *clients = build_metric(
	    address_levels, COUNT_OF(address_levels), 1, &instance, 1, 2);
	UMAUint8 *bytes_word, *clients_word;

	directory_make();
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_SUCCESS);
	/* No initial data: the values start at 0 in the segment. */
	ck_assert_uint_eq(
	    dciAddInstance(handle, bytes, inst, NULL, NULL, 0), DCI_SUCCESS);
	ck_assert_uint_eq(number_of("link", "bytes"), 0);
	ck_assert_uint_eq(
	    dciDatumAddress(handle, bytes, &bytes_word), DCI_SUCCESS);
	ck_assert_uint_eq(
	    dciDatumAddress(handle, clients, &clients_word), DCI_SUCCESS);
	ck_assert_ptr_nonnull(bytes_word);
	ck_assert_uint_eq((uintptr_t)bytes_word % 8, 0);
	__atomic_store_n(bytes_word, UINT64_C(123456789012), __ATOMIC_RELAXED);
	__atomic_store_n(clients_word, 4, __ATOMIC_RELAXED);
	ck_assert_uint_eq(number_of("link", "bytes"), UINT64_C(123456789012));
	ck_assert_uint_eq(number_of("link", "clients"), 4);
	__atomic_fetch_add(bytes_word, 8, __ATOMIC_RELAXED);
	ck_assert_uint_eq(number_of("link", "bytes"), UINT64_C(123456789020));
	/* A DCI_ADDRESS instance is not posted to. */
	{
		UMAUint4 four = 5;
		const void *data[] = {&four};
		UMAUint4 sizes[] = {4};
		DCIReturn *post = build_post(&clients, data, sizes, 1);

		ck_assert_uint_eq(
		    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0),
		    DCI_METHODOPUNAVAILABLE);
		free(post);
	}
	free(clients);
	/* No such datum, a datum of no address, bad arguments. */
	clients = build_metric(
	    address_levels, COUNT_OF(address_levels), 1, &instance, 1, 77);
	ck_assert_uint_eq(
	    dciDatumAddress(handle, clients, &clients_word), DCI_NOTPRESENT);
	ck_assert_ptr_null(clients_word);
	ck_assert_uint_eq(
	    dciDatumAddress(handle, clients, NULL), DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciDatumAddress(NULL, clients, &clients_word), DCI_INVALIDARG);
	free(clients);
	/* A DCI_STORE instance has no address. */
	ck_assert_uint_eq(register_class(&handle), DCI_SUCCESS);
	ck_assert_uint_eq(add_instance(handle, 1, "stored", 1), DCI_SUCCESS);
	clients = metric_of(1, 1);
	ck_assert_uint_eq(dciDatumAddress(handle, clients, &clients_word),
	    DCI_METHODOPUNAVAILABLE);
	free(clients);
	ck_assert_uint_eq(dciRemoveInstance(handle, bytes), DCI_SUCCESS);
	ck_assert(!instance_present("link"));
	free(bytes);
	free(inst);
	free(attr);
	free(id);
	ck_assert_uint_eq(dciUnregister(handle, NULL), DCI_SUCCESS);
	directory_remove();
}
END_TEST

/* --- registration -------------------------------------------------------- */

/* dciRegister of the class with `datum` in place of the first datum and
 * the class flags and method given, on a fresh handle. */
static DCIStatus
register_variant(const UMAUint4 *levels, size_t level_count, UMAUint4 flags,
    DCIMethodType method, const struct build_datum *first)
{
	struct build_datum variant[COUNT_OF(datums)];
	DCIProviderHandle handle = NULL;
	DCIClassId *id = build_class_id(levels, level_count);
	DCIClassAttr *attr;
	DCIStatus status;

	memcpy(variant, datums, sizeof(variant));
	if (first != NULL)
		variant[0] = *first;
	attr = build_class_attr(
	    "variant", flags, method, one_level, 1, variant, COUNT_OF(variant));
	status = dciRegister(&handle, "dciprov", id, attr);
	if (status == DCI_SUCCESS) {
		ck_assert_ptr_nonnull(handle);
		ck_assert_uint_eq(dciUnregister(handle, NULL), DCI_SUCCESS);
	} else {
		ck_assert_ptr_null(handle);
	}
	free(id);
	free(attr);
	return status;
}

START_TEST(test_register_refusals)
{
	const UMAUint4 models[] = {DCI_PROVIDER_CLASS_ARC, NUMBER, 2};
	const UMAUint4 other_arc[] = {7, NUMBER, 16};
	const UMAUint4 wildcard[] = {DCI_PROVIDER_CLASS_ARC, NUMBER, DCI_ALL};
	const UMAUint4 short_id[] = {DCI_PROVIDER_CLASS_ARC, NUMBER};
	const UMAUint4 other_number[] = {DCI_PROVIDER_CLASS_ARC, 1, 16};
	struct build_datum octets = {1, UMA_OCTETSTRING, 0, 0, 0, "o"};
	struct build_datum queue_units = {1, UMA_UINT4, UMA_QLENGTH, 0, 0, "q"};
	struct build_datum unknown_type = {1, 99, 0, 0, 0, "u"};
	struct build_datum settable = {1, UMA_UINT8, 0, DCI_SETTABLE, 0, "s"};
	struct build_datum counting_truth = {
	    1, UMA_BOOLEAN, 0, DCI_DCISTAT_COUNTER, 0, "c"};
	struct build_datum overlapping = {1, UMA_UINT8, 0, 0, 8, "v"};
	struct build_datum same_id = {2, UMA_UINT8, 0, 0, 0, "i"};
	struct build_datum invalid_word = {
	    DCI_INVALIDDATUMID, UMA_UINT4, 0, 0, 0, "invalid"};
	struct build_datum unaligned = {1, UMA_UINT8, 0, 0, 2, "a"};
	/* Layouts a consumer would get at other offsets: a hole after a
	 * 4-byte first datum, a first datum whose id sorts after the rest. */
	struct build_datum hole = {1, UMA_UINT4, 0, 0, 0, "h"};
	struct build_datum out_of_order = {6, UMA_UINT8, 0, 0, 0, "late"};
	DCIProviderHandle handle = NULL;
	DCIClassId *id;
	DCIClassAttr *attr;

	directory_make();
	ck_assert_uint_eq(
	    register_variant(class_levels, 4, 0, 0, NULL), DCI_SUCCESS);
	ck_assert_uint_eq(
	    register_variant(models, 3, 0, 0, NULL), DCI_INVALIDARG);
	ck_assert_uint_eq(
	    register_variant(other_arc, 3, 0, 0, NULL), DCI_INVALIDARG);
	ck_assert_uint_eq(
	    register_variant(wildcard, 3, 0, 0, NULL), DCI_INVALIDARG);
	ck_assert_uint_eq(
	    register_variant(short_id, 2, 0, 0, NULL), DCI_INVALIDARG);
	ck_assert_uint_eq(register_variant(class_levels, 4, 0, 0, &octets),
	    DCI_NOIMPLEMENTATION);
	ck_assert_uint_eq(register_variant(class_levels, 4, 0, 0, &queue_units),
	    DCI_NOIMPLEMENTATION);
	ck_assert_uint_eq(
	    register_variant(class_levels, 4, 0, 0, &unknown_type),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(register_variant(class_levels, 4, 0, 0, &settable),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(
	    register_variant(class_levels, 4, 0, 0, &counting_truth),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(register_variant(class_levels, 4, 0, 0, &overlapping),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(
	    register_variant(class_levels, 4, 0, 0, &same_id), DCI_INVALIDARG);
	ck_assert_uint_eq(register_variant(class_levels, 4, 0, 0, &unaligned),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(register_variant(class_levels, 4, 0, 0, &hole),
	    DCI_NOIMPLEMENTATION);
	ck_assert_uint_eq(
	    register_variant(class_levels, 4, 0, 0, &out_of_order),
	    DCI_NOIMPLEMENTATION);
	/* Methods the server cannot use, a class whose instances only its
	 * provider knows, a string under DCI_ADDRESS. */
	ck_assert_uint_eq(register_variant(class_levels, 4, 0, DCI_WAIT, NULL),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(
	    register_variant(class_levels, 4, 0, DCI_CALLBACK, NULL),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(
	    register_variant(class_levels, 4, 0, DCI_ADDRESS, NULL),
	    DCI_METHODOPUNAVAILABLE);
	ck_assert_uint_eq(
	    register_variant(class_levels, 4, DCI_PROVIDER_INSTANCE, 0, NULL),
	    DCI_METHODOPUNAVAILABLE);
	/* Possibly invalid data needs the DCI_INVALIDDATUMID word. */
	ck_assert_uint_eq(
	    register_variant(class_levels, 4, DCI_POSSIBLEINVALIDDATA, 0, NULL),
	    DCI_INVALIDARG);
	/* With the word in place of datum 1, the others start at 8: a hole
	 * (test_invalid_data_word registers the word where it is kept). */
	invalid_word.offset = 200;
	ck_assert_uint_eq(register_variant(class_levels, 4,
	                      DCI_POSSIBLEINVALIDDATA, 0, &invalid_word),
	    DCI_NOIMPLEMENTATION);

	/* Malformed structures. */
	id = build_class_id(class_levels, 4);
	attr = build_class_attr(
	    "bad", 0, 0, one_level, 1, datums, COUNT_OF(datums));
	ck_assert_uint_eq(
	    dciRegister(NULL, "dciprov", id, attr), DCI_INVALIDARG);
	ck_assert_uint_eq(dciRegister(&handle, NULL, id, attr), DCI_INVALIDARG);
	ck_assert_uint_eq(dciRegister(&handle, "", id, attr), DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", NULL, attr), DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, NULL), DCI_INVALIDARG);
	attr->dataAttr.size += 4;
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_INVALIDARG);
	attr->dataAttr.size -= 4;
	attr->dataAttr.count += 1;
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_INVALIDARG);
	attr->dataAttr.count -= 1;
	attr->label.offset = attr->size;
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_INVALIDARG);
	attr->label.offset = (UMAUint4)offsetof(DCIClassAttr, data);
	attr->instLevel.elementSize = 8;
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_INVALIDARG);
	attr->instLevel.elementSize = sizeof(DCIInstLevel);
	attr->eventAttr.count = 1;
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_NOIMPLEMENTATION);
	attr->eventAttr.count = 0;
	ck_assert_ptr_null(handle);
	/* Registered; the same class again, or another number, refused. */
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_SUCCESS);
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_INVALIDARG);
	free(id);
	id = build_class_id(other_number, 3);
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_INVALIDARG);
	free(id);
	ck_assert_uint_eq(dciUnregister(handle, NULL), DCI_SUCCESS);
	free(attr);
	directory_remove();
}
END_TEST

/* The DCI_INVALIDDATUMID word is read, not stored: 0 (every datum valid)
 * is accepted, anything else refused, and the values stay. */
START_TEST(test_invalid_data_word)
{
	struct build_datum with_word[COUNT_OF(datums) + 1];
	DCIProviderHandle handle = NULL;
	DCIClassId *id = build_class_id(class_levels, COUNT_OF(class_levels));
	DCIClassAttr *attr;
	DCIInstAttr *inst = build_inst_attr("partial");
	DCIMetricId *metric = metric_of(6, DCI_ALL);
	unsigned char block[512];
	/* Last, right after the string's slot: where a consumer finds it. */
	UMAUint4 size, offset = 288, word = 0;
	const void *data[] = {block};
	DCIReturn *post;

	directory_make();
	memcpy(with_word, datums, sizeof(datums));
	with_word[COUNT_OF(datums)] = (struct build_datum){
	    DCI_INVALIDDATUMID, UMA_UINT4, UMA_NOUNITS, 0, offset, "invalid"};
	/* One word past the string's longest slot (264 bytes) is a hole. */
	with_word[COUNT_OF(datums)] = (struct build_datum){DCI_INVALIDDATUMID,
	    UMA_UINT4, UMA_NOUNITS, 0, offset + 4, "invalid"};
	attr = build_class_attr("partial", DCI_POSSIBLEINVALIDDATA, 0,
	    one_level, 1, with_word, COUNT_OF(with_word));
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_NOIMPLEMENTATION);
	ck_assert_ptr_null(handle);
	free(attr);
	with_word[COUNT_OF(datums)].offset = offset;
	attr = build_class_attr("partial", DCI_POSSIBLEINVALIDDATA, 0,
	    one_level, 1, with_word, COUNT_OF(with_word));
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_SUCCESS);
	memset(block, 0, sizeof(block));
	block_make(block, 40, 1, 1, 1, "p");
	size = offset + 4;
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, inst, NULL, block, size),
	    DCI_SUCCESS);
	ck_assert_uint_eq(number_of("partial", "served"), 40);
	block_make(block, 41, 1, 1, 1, "p");
	word = 8; /* "the DCIInvalidData is at 8": none can be kept */
	memcpy(block + offset, &word, 4);
	post = build_post(&metric, data, &size, 1);
	ck_assert_uint_eq(dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0),
	    DCI_NOIMPLEMENTATION);
	ck_assert_uint_eq(number_of("partial", "served"), 40);
	free(post);
	word = 0;
	memcpy(block + offset, &word, 4);
	post = build_post(&metric, data, &size, 1);
	ck_assert_uint_eq(
	    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0), DCI_SUCCESS);
	ck_assert_uint_eq(number_of("partial", "served"), 41);
	free(post);
	free(metric);
	free(inst);
	free(attr);
	free(id);
	ck_assert_uint_eq(dciUnregister(handle, NULL), DCI_SUCCESS);
	directory_remove();
}
END_TEST

/* A segment that cannot be created: DCI_SYSERROR, no handle. */
/* A string's slot reaching the next datum sets its DCI4 size in the
 * segment, which is what a consumer's layout is made from; a posted string
 * must fit both. */
START_TEST(test_string_slot)
{
	static const struct build_datum slotted[] = {
	    {1, UMA_UINT4, UMA_COUNT, DCI_QUERYABLE, 0, "count"},
	    {2, UMA_TEXTSTRING, UMA_NOUNITS, DCI_QUERYABLE, 4, "name"},
	    {3, UMA_BOOLEAN, UMA_NOUNITS, DCI_QUERYABLE, 4 + 260, "up"},
	};
	DCIProviderHandle handle = NULL;
	DCIClassId *id = build_class_id(class_levels, COUNT_OF(class_levels));
	DCIClassAttr *attr = build_class_attr(
	    "slotted", 0, 0, one_level, 1, slotted, COUNT_OF(slotted));
	DCIInstAttr *inst = build_inst_attr("one");
	DCIMetricId *metric = metric_of(1, DCI_ALL);
	unsigned char block[4 + 260 + 4];
	UMAUint4 text_size = 260, up = 1;
	struct reading reading;

	directory_make();
	ck_assert_uint_eq(
	    dciRegister(&handle, "dciprov", id, attr), DCI_SUCCESS);
	reading_open(&reading);
	ck_assert_uint_eq(reading.class_count, 1);
	ck_assert_uint_eq(reading.classes[0].datums[1].size, 255);
	reading_close(&reading);
	/* 255 characters and a NUL fill the slot, but the server keeps 254. */
	memset(block, 0, sizeof(block));
	memcpy(block + 4, &text_size, 4);
	memset(block + 8, 'x', 255);
	memcpy(block + 264, &up, 4);
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, inst, NULL, block, sizeof(block)),
	    DCI_INVALIDARG);
	block[8 + 254] = '\0';
	ck_assert_uint_eq(
	    dciAddInstance(handle, metric, inst, NULL, block, sizeof(block)),
	    DCI_SUCCESS);
	ck_assert_uint_eq(number_of("one", "up"), 1);
	/* A size word past the slot runs into the next datum. */
	text_size = 264;
	memcpy(block + 4, &text_size, 4);
	{
		const void *data[] = {block};
		UMAUint4 size = sizeof(block);
		DCIReturn *post = build_post(&metric, data, &size, 1);

		ck_assert_uint_eq(
		    dciPostData(handle, DCI_OP_GETDATA, post, NULL, 0),
		    DCI_INVALIDARG);
		free(post);
	}
	ck_assert_uint_eq(dciUnregister(handle, NULL), DCI_SUCCESS);
	free(metric);
	free(inst);
	free(attr);
	free(id);
	directory_remove();
}
END_TEST

START_TEST(test_segment_refused)
{
	DCIProviderHandle handle = NULL;

	setenv(
	    "DCISTAT_SUPPLIER_DIRECTORY", "/proc/dcistat-no-such-directory", 1);
	ck_assert_uint_eq(register_class(&handle), DCI_SYSERROR);
	ck_assert_ptr_null(handle);
}
END_TEST

/* --- unregistering, events, requests ------------------------------------- */

START_TEST(test_unregister_events_requests)
{
	DCIProviderHandle handle = NULL;
	DCIClassId *id = build_class_id(class_levels, 4);
	DCIClassId *address_id = build_class_id(address_levels, 3);
	DCIClassAttr *address_attr = build_class_attr("traffic", 0, 0,
	    one_level, 1, address_datums, COUNT_OF(address_datums));
	DCIMetricId *event;
	DCIReturn *request = NULL;
	UMAUint4 operation;
	char path[512];

	directory_make();
	segment_path(path, sizeof(path));
	ck_assert_uint_eq(register_class(&handle), DCI_SUCCESS);
	ck_assert_uint_eq(
	    dciRegister(&handle, NULL, address_id, address_attr), DCI_SUCCESS);
	ck_assert_uint_eq(add_instance(handle, 5, "five", 1), DCI_SUCCESS);

	/* Instance events are the server's; no other event is registered. */
	event = metric_of(5, DCI_INSTANCEADDED);
	ck_assert_uint_eq(
	    dciPostEvent(handle, event, NULL, 0), DCI_METHODOPUNAVAILABLE);
	event->datumId = DCI_INSTANCEREMOVED;
	ck_assert_uint_eq(
	    dciPostEvent(handle, event, NULL, 0), DCI_METHODOPUNAVAILABLE);
	event->datumId = 0x0101;
	ck_assert_uint_eq(dciPostEvent(handle, event, NULL, 0), DCI_NOTPRESENT);
	ck_assert_uint_eq(dciPostEvent(handle, event, NULL, 4), DCI_INVALIDARG);
	ck_assert_uint_eq(dciPostEvent(NULL, event, NULL, 0), DCI_INVALIDARG);
	ck_assert_uint_eq(dciPostEvent(handle, NULL, NULL, 0), DCI_INVALIDARG);
	free(event);
	/* DCI_WAIT and DCI_CALLBACK are not offered: nothing to wait for. */
	ck_assert_uint_eq(dciWaitRequest(handle, &operation, &request, 0, NULL),
	    DCI_NOIMPLEMENTATION);
	ck_assert_uint_eq(dciWaitRequest(NULL, &operation, &request, 0, NULL),
	    DCI_INVALIDARG);
	ck_assert_uint_eq(
	    dciWaitRequest(handle, NULL, &request, 0, NULL), DCI_INVALIDARG);

	/* One class goes with its instances; the segment stays for the
	 * other; the last one closes it. */
	ck_assert_uint_eq(dciUnregister(handle, id), DCI_SUCCESS);
	ck_assert(!instance_present("five"));
	ck_assert_uint_eq(dciUnregister(handle, id), DCI_NOTPRESENT);
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_uint_eq(dciUnregister(NULL, id), DCI_INVALIDARG);
	ck_assert_uint_eq(dciUnregister(handle, address_id), DCI_SUCCESS);
	ck_assert_int_ne(access(path, F_OK), 0);
	free(id);
	free(address_id);
	free(address_attr);
	directory_remove();
}
END_TEST

static Suite *
provider_suite(void)
{
	Suite *suite = suite_create("libdci_provider");
	TCase *routines = tcase_create("routines");

	tcase_add_test(routines, test_store_values);
	tcase_add_test(routines, test_post_whole_or_nothing);
	tcase_add_test(routines, test_instances);
	tcase_add_test(routines, test_address_in_place);
	tcase_add_test(routines, test_register_refusals);
	tcase_add_test(routines, test_unregister_events_requests);
	tcase_add_test(routines, test_invalid_data_word);
	tcase_add_test(routines, test_string_slot);
	tcase_add_test(routines, test_segment_refused);
	suite_add_tcase(suite, routines);
	return suite;
}

int
main(void)
{
	return unit_run_suite(provider_suite());
}
