/* What a large class keeps resident across refreshes (model/snapshot.c):
 * each commit builds the next snapshot beside the served one and frees
 * the previous; what that leaves must go back to the system, so that a
 * class costs one snapshot between refreshes, not two, however many
 * refreshes ran. Measured as the process's resident pages (VmRSS), a
 * count, never a time. The builders are filled on a thread of their own,
 * as a provider's refresh thread fills them (its own malloc arena), and
 * committed on this one, as the main loop commits them. */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "model/large_block.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED_ALLOCATOR 1
#endif
#endif

enum {
	MEMORY_DATUMS = 64,       /* 8-byte slots: 512 bytes an instance */
	MEMORY_INSTANCES = 20000, /* about 10 MB of values a snapshot */
	MEMORY_REFRESHES = 6,
};

static const uint32_t memory_class_id[] = {7, 9};
static const struct dci_instance_level memory_levels[] = {
    {DCI_ITYPE_DEVICE, 4},
};

static struct dci_class *
memory_class(struct dci_registry *registry)
{
	static char labels[MEMORY_DATUMS][16];
	struct dci_datum_info datums[MEMORY_DATUMS];
	struct dci_class_info info;

	for (uint32_t d = 0; d < MEMORY_DATUMS; d++) {
		snprintf(labels[d], sizeof(labels[d]), "value%u", d + 1);
		datums[d] = fx_datum(d + 1, labels[d], DCI_ST_INTEGER64,
		    DCI_SIF_UNSIGNED, 0,
		    d % 4 == 0 ? DCI_SEMANTICS_COUNTER : DCI_SEMANTICS_GAUGE);
	}
	info = fx_class_info(memory_class_id, 2, "memory", memory_levels, 1,
	    datums, MEMORY_DATUMS);
	return fx_class(registry, fx_supplier(registry, "memory"), &info);
}

struct refresh {
	struct dci_class *class;
	uint64_t round;
	struct dci_snapshot_builder *builder;
};

/* A refresh thread's work: every instance and value into a builder. */
static void *
fill_builder(void *argument)
{
	struct refresh *refresh = argument;
	struct dci_snapshot_builder *builder =
	    dci_snapshot_builder_new(refresh->class);

	ck_assert_ptr_nonnull(builder);
	for (uint32_t id = 1; id <= MEMORY_INSTANCES; id++) {
		long row = fx_add(builder, &id, 1, "unit");
		for (uint32_t d = 1; d <= MEMORY_DATUMS; d++)
			fx_set_unsigned(
			    builder, row, d, refresh->round * id + d);
	}
	ck_assert_int_eq(dci_snapshot_builder_seal(builder, NULL, 0), 0);
	refresh->builder = builder;
	return NULL;
}

static void
refresh_once(struct dci_class *class, uint64_t round)
{
	struct refresh refresh = {class, round, NULL};
	pthread_t thread;

	ck_assert_int_eq(
	    pthread_create(&thread, NULL, fill_builder, &refresh), 0);
	ck_assert_int_eq(pthread_join(thread, NULL), 0);
	fx_commit(refresh.builder, class, (int64_t)(1000 * (round + 1)));
}

/* The value of datum `datum_id` of instance `id`, as served. */
static uint64_t
served(const struct dci_class *class, uint32_t id, uint32_t datum_id)
{
	const struct dci_datum *datum = dci_class_find_datum(class, datum_id);
	long row = dci_snapshot_find(class, class->snapshot, &id);
	struct dci_value value;

	ck_assert_ptr_nonnull(datum);
	ck_assert_int_ge(row, 0);
	dci_value_decode(&datum->info,
	    dci_snapshot_slot(class, class->snapshot, (size_t)row, datum),
	    &value);
	return value.number;
}

static long
resident_kilobytes(void)
{
	FILE *status = fopen("/proc/self/status", "r");
	char line[256];
	long kilobytes = -1;

	ck_assert_ptr_nonnull(status);
	while (fgets(line, sizeof(line), status) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kilobytes) == 1)
			break;
	fclose(status);
	ck_assert_int_ge(kilobytes, 0);
	return kilobytes;
}

START_TEST(large_class_costs_one_snapshot_after_many_refreshes)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = memory_class(registry);
	long first, last, snapshot_kilobytes;

	snapshot_kilobytes =
	    (long)(MEMORY_INSTANCES * class->record_size / 1024);
	refresh_once(class, 0);
	first = resident_kilobytes();
	for (uint64_t round = 1; round < MEMORY_REFRESHES; round++)
		refresh_once(class, round);
	last = resident_kilobytes();
	ck_assert_uint_eq(class->snapshot->count, MEMORY_INSTANCES);
	/* The last refresh's values are served from the mapped blocks. */
	ck_assert_uint_eq(served(class, 7, 3), (MEMORY_REFRESHES - 1) * 7 + 3);
	ck_assert_uint_eq(served(class, MEMORY_INSTANCES, MEMORY_DATUMS),
	    (uint64_t)(MEMORY_REFRESHES - 1) * MEMORY_INSTANCES +
	        MEMORY_DATUMS);
#ifdef SANITIZED_ALLOCATOR
	/* The sanitizer's allocator keeps freed blocks in quarantine: its
	 * resident size says nothing about malloc's. The refreshes above
	 * still ran its checks over the large blocks. */
	(void)first;
	(void)last;
	(void)snapshot_kilobytes;
#else
	/* Before the freed snapshots went back, `last` was a whole snapshot
	 * above `first`. */
	ck_assert_msg(last - first <= snapshot_kilobytes / 4,
	    "resident %ld kB after %d refreshes, %ld kB after the first: "
	    "%ld kB more, the snapshot's values are %ld kB",
	    last, MEMORY_REFRESHES, first, last - first, snapshot_kilobytes);
#endif
	dci_registry_free(registry);
}
END_TEST

/* Whether the kernel gives transparent huge pages to a mapping that asks
 * (`always` or `madvise`); false when it says nothing. */
static bool
huge_pages_on_advice(void)
{
	FILE *setting =
	    fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128] = "";
	bool on;

	if (setting == NULL)
		return false;
	on = fgets(line, sizeof(line), setting) != NULL &&
	     (strstr(line, "[always]") != NULL ||
	         strstr(line, "[madvise]") != NULL);
	fclose(setting);
	return on;
}

/* The kernel's count of huge page faults that fell back to small pages
 * (any process's: no huge page was free), or -1 when it keeps none. */
static long
huge_page_fallbacks(void)
{
	FILE *counts = fopen("/proc/vmstat", "r");
	char line[128];
	long fallbacks = -1, count;

	if (counts == NULL)
		return -1;
	while (fgets(line, sizeof(line), counts) != NULL)
		if (sscanf(line, "thp_fault_fallback %ld", &count) == 1)
			fallbacks = count;
	fclose(counts);
	return fallbacks;
}

/* Rss and AnonHugePages (kB) of the mapping that holds `address`. */
static void
mapping_resident(const void *address, long *resident, long *huge)
{
	FILE *maps = fopen("/proc/self/smaps", "r");
	char line[512];
	bool inside = false;
	uintptr_t start, end, at = (uintptr_t)address;
	long kilobytes;

	ck_assert_ptr_nonnull(maps);
	*resident = *huge = -1;
	while (fgets(line, sizeof(line), maps) != NULL) {
		/* Only a mapping's first line starts with two hex numbers. */
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &start, &end) ==
		    2) {
			inside = start <= at && at < end;
			continue;
		}
		if (!inside)
			continue;
		if (sscanf(line, "Rss: %ld kB", &kilobytes) == 1)
			*resident = kilobytes;
		else if (sscanf(line, "AnonHugePages: %ld kB", &kilobytes) == 1)
			*huge = kilobytes;
	}
	fclose(maps);
	ck_assert_int_ge(*resident, 0);
}

START_TEST(large_block_takes_huge_pages_at_its_own_size)
{
	/* Three huge pages and a bit: the bit must not cost a fourth. */
	size_t size = 3 * DCI_LARGE_BLOCK_HUGE + 4096, trimmed = size - 8192;
	long fallbacks = huge_page_fallbacks(), resident, huge;
	unsigned char *block = dci_large_block_alloc(size);

	ck_assert_ptr_nonnull(block);
	ck_assert(dci_large_block_zeroed(size));
	for (size_t i = 0; i < size; i += 4096)
		ck_assert_uint_eq(block[i], 0);
	memset(block, 0xa5, size);
	mapping_resident(block, &resident, &huge);
	/* Other blocks may share the mapping: at least this one's. */
	ck_assert_int_ge(resident, (long)(size / 1024));
	/* Unless the kernel had no huge page to give (memory too
	 * fragmented): then its fallback count moved. */
	if (huge_pages_on_advice() && fallbacks >= 0 &&
	    huge_page_fallbacks() == fallbacks) {
		/* Before the advice every page was a small one. */
		ck_assert_msg(huge >= (long)(DCI_LARGE_BLOCK_HUGE / 1024),
		    "%ld kB of huge pages in a block of %zu bytes", huge, size);
		ck_assert_int_le(huge, resident);
	}
	block = dci_large_block_resize(block, size, trimmed);
	ck_assert_ptr_nonnull(block);
	ck_assert_uint_eq(block[0], 0xa5);
	ck_assert_uint_eq(block[trimmed - 1], 0xa5);
	dci_large_block_free(block, trimmed);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("snapshot_memory");
	TCase *cases = tcase_create("snapshot_memory");
	SRunner *runner;
	int failed;

	tcase_set_timeout(cases, 60);
	tcase_add_test(
	    cases, large_class_costs_one_snapshot_after_many_refreshes);
	tcase_add_test(cases, large_block_takes_huge_pages_at_its_own_size);
	suite_add_tcase(suite, cases);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
