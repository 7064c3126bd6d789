/* The instance labels of a snapshot in one arena (model/label_arena.h):
 * labels stay where they were put across chunks, a snapshot's labels are
 * the escaped ones and go with it (a gone instance's with the snapshot
 * that had it, a returned one's anew), and nothing leaks when a commit is
 * refused (checked by the sanitizer build's leak checker). */
#define _GNU_SOURCE
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "model/label_arena.h"
#include "model/snapshot_data.h"

enum {
	ARENA_LABELS = 20000,
	ARENA_INSTANCES = 3000,
};

/* Label `i` of the arena tests: 1..DCI_LABEL_MAX characters, every
 * length, so that chunks end on labels of every size. */
static size_t
arena_label(size_t i, char label[DCI_INSTANCE_LABEL_SIZE])
{
	size_t length = 1 + i % DCI_LABEL_MAX;
	char number[24];
	size_t digits = (size_t)snprintf(number, sizeof(number), "%zu", i);

	memset(label, 'a' + (int)(i % 26), length);
	memcpy(label, number, digits < length ? digits : length);
	label[length] = '\0';
	return length;
}

/* Puts `count` labels into `arena` as the builder does (room of the
 * longest, then what was written kept); their addresses go to `kept`. */
static size_t
arena_fill(struct dci_label_arena *arena, char **kept, size_t count)
{
	size_t bytes = 0;

	for (size_t i = 0; i < count; i++) {
		char label[DCI_INSTANCE_LABEL_SIZE];
		size_t length = arena_label(i, label);
		char *room =
		    dci_label_arena_room(arena, DCI_INSTANCE_LABEL_SIZE);

		ck_assert_ptr_nonnull(room);
		memcpy(room, label, length + 1);
		dci_label_arena_keep(arena, length + 1);
		kept[i] = room;
		bytes += length + 1;
	}
	return bytes;
}

/* How many labels do not start right after the one before: chunk
 * changes. */
static size_t
arena_breaks(char **kept, size_t count)
{
	size_t breaks = 0;

	for (size_t i = 1; i < count; i++)
		breaks += kept[i] != kept[i - 1] + strlen(kept[i - 1]) + 1;
	return breaks;
}

START_TEST(arena_keeps_every_label_across_chunks)
{
	struct dci_label_arena arena;
	char **kept = calloc(ARENA_LABELS, sizeof(*kept));
	size_t bytes;

	ck_assert_ptr_nonnull(kept);
	dci_label_arena_init(&arena, 0);
	bytes = arena_fill(&arena, kept, ARENA_LABELS);
	ck_assert_uint_eq(arena.bytes, bytes);
	/* From a first chunk of a few kilobytes to megabytes of labels:
	 * several chunks, each label where it was put. */
	ck_assert_uint_ge(arena_breaks(kept, ARENA_LABELS), 4);
	for (size_t i = 0; i < ARENA_LABELS; i++) {
		char label[DCI_INSTANCE_LABEL_SIZE];

		arena_label(i, label);
		ck_assert_str_eq(kept[i], label);
	}
	ck_assert_uint_eq(strlen(kept[DCI_LABEL_MAX - 1]), DCI_LABEL_MAX);
	dci_label_arena_free(&arena);
	ck_assert_ptr_null(arena.chunk);
	ck_assert_uint_eq(arena.bytes, 0);
	dci_label_arena_free(&arena); /* an empty arena is nothing */
	free(kept);
}
END_TEST

START_TEST(arena_sized_from_the_last_takes_one_chunk)
{
	struct dci_label_arena first, second;
	char **kept = calloc(ARENA_LABELS, sizeof(*kept));
	size_t bytes;

	ck_assert_ptr_nonnull(kept);
	dci_label_arena_init(&first, 0);
	bytes = arena_fill(&first, kept, ARENA_LABELS);
	/* The next snapshot's arena, sized from this one, holds the same
	 * labels in one chunk. */
	dci_label_arena_init(&second, first.bytes);
	dci_label_arena_free(&first);
	ck_assert_uint_eq(arena_fill(&second, kept, ARENA_LABELS), bytes);
	ck_assert_uint_eq(arena_breaks(kept, ARENA_LABELS), 0);
	dci_label_arena_free(&second);
	free(kept);
}
END_TEST

static const uint32_t label_class_id[] = {7, 11};
static const struct dci_instance_level label_levels[] = {
    {DCI_ITYPE_DEVICE, 4},
};

static struct dci_class *
label_class(struct dci_registry *registry)
{
	struct dci_datum_info datum = fx_datum(1, "value", DCI_ST_INTEGER64,
	    DCI_SIF_UNSIGNED, 0, DCI_SEMANTICS_GAUGE);
	struct dci_class_info info = fx_class_info(
	    label_class_id, 2, "labels", label_levels, 1, &datum, 1);

	return fx_class(registry, fx_supplier(registry, "labels"), &info);
}

/* The label given for instance `id`: plain ones of every length up to
 * the longest, ones to escape, and ones cut to fit. */
static void
instance_label(uint32_t id, char *label, size_t size)
{
	size_t length = 1 + id % (DCI_LABEL_MAX + 40);
	char number[16];
	size_t digits = (size_t)snprintf(number, sizeof(number), "%u", id);

	ck_assert_uint_gt(size, length);
	memset(label, 'x', length);
	memcpy(label, number, digits < length ? digits : length);
	if (digits < length)
		label[digits] = id % 7 == 0 ? '\n' : '.';
	label[length] = '\0';
}

/* One refresh of instances 1..ARENA_INSTANCES but `gone` (0: none). */
static void
label_refresh(struct dci_class *class, uint32_t gone, int64_t now)
{
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);

	ck_assert_ptr_nonnull(builder);
	for (uint32_t id = 1; id <= ARENA_INSTANCES; id++) {
		char label[DCI_LABEL_MAX + 64];
		long row;

		if (id == gone)
			continue;
		instance_label(id, label, sizeof(label));
		row = fx_add(builder, &id, 1, label);
		fx_set_unsigned(builder, row, 1, id);
	}
	fx_commit(builder, class, now);
}

/* Every served label is the escaped one, and the arena holds them all. */
static void
labels_served(const struct dci_class *class, uint32_t gone)
{
	const struct dci_snapshot *snapshot = class->snapshot;
	size_t bytes = 0, longest = 0;

	ck_assert_uint_eq(snapshot->count, ARENA_INSTANCES - (gone != 0));
	for (size_t i = 0; i < snapshot->count; i++) {
		uint32_t id = snapshot->ids[i];
		char given[DCI_LABEL_MAX + 64],
		    escaped[DCI_INSTANCE_LABEL_SIZE];
		char why[256];

		ck_assert_uint_ne(id, gone);
		instance_label(id, given, sizeof(given));
		ck_assert(dci_registry_instance_label_escape(
		    given, escaped, why, sizeof(why)));
		ck_assert_str_eq(snapshot->instances[i].label, escaped);
		bytes += strlen(escaped) + 1;
		if (strlen(escaped) > longest)
			longest = strlen(escaped);
	}
	ck_assert_uint_eq(snapshot->labels.bytes, bytes);
	ck_assert_uint_eq(longest, DCI_LABEL_MAX);
}

START_TEST(snapshot_owns_its_labels_gone_and_returned)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = label_class(registry);
	long row;

	label_refresh(class, 0, 1000);
	labels_served(class, 0);
	label_refresh(class, 77, 2000);
	labels_served(class, 77);
	label_refresh(class, 0, 3000);
	labels_served(class, 0);
	/* Instance 77 returned: a new instance, its label a new one. */
	row = dci_snapshot_find(class, class->snapshot, &(uint32_t){77});
	ck_assert_int_ge(row, 0);
	ck_assert_int_eq(
	    class->snapshot->instances[row].created_milliseconds, 3000);
	ck_assert_int_eq(
	    strncmp(class->snapshot->instances[row].label, "77\\x0axx", 8), 0);
	ck_assert_uint_eq(strlen(class->snapshot->instances[row].label), 81);
	/* The same instances again: their labels in the one chunk sized from
	 * the last snapshot's, one after another (added in id order). */
	label_refresh(class, 0, 4000);
	labels_served(class, 0);
	for (size_t i = 1; i < class->snapshot->count; i++) {
		const char *before = class->snapshot->instances[i - 1].label;

		ck_assert_ptr_eq(class->snapshot->instances[i].label,
		    before + strlen(before) + 1);
	}
	dci_registry_free(registry);
}
END_TEST

START_TEST(refused_commit_frees_its_labels)
{
	struct dci_registry *registry = dci_registry_new();
	struct dci_class *class = label_class(registry);
	struct dci_snapshot_builder *builder;
	char why[512] = "";

	label_refresh(class, 0, 1000);
	builder = dci_snapshot_builder_new(class);
	ck_assert_ptr_nonnull(builder);
	fx_add(builder, &(uint32_t){5}, 1, "five");
	fx_add(builder, &(uint32_t){3}, 1, "three");
	fx_add(builder, &(uint32_t){5}, 1, "five again");
	ck_assert_int_eq(
	    dci_snapshot_commit(builder, class, 2000, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "\"five\" and \"five again\""));
	/* The served snapshot and its labels untouched. */
	labels_served(class, 0);
	dci_registry_free(registry);
}
END_TEST

int
main(void)
{
	const TTest *tests[] = {
	    arena_keeps_every_label_across_chunks,
	    arena_sized_from_the_last_takes_one_chunk,
	    snapshot_owns_its_labels_gone_and_returned,
	    refused_commit_frees_its_labels,
	};

	return fx_run_tests("label_arena", tests, COUNT_OF(tests));
}
