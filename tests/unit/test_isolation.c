/*
 * Unit tests for runtime/isolation.c and runtime/isolation_wire.c: what an
 * isolated provider's process sends, written with the wire writer the
 * process uses and replayed through a plug-in's host as dcistatd replays
 * it; and the messages that break the protocol, refused.
 */
#include "runtime/isolation.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "runtime/isolation_wire.h"
#include "runtime/loader.h"
#include "runtime_fixtures.h"
#include "base/log.h"
#include "model/registry.h"
#include "model/snapshot.h"

static struct dci_config *config;
static struct dci_registry *registry;
static struct dci_plugin *plugin;
static struct dci_wire_writer writer;
static struct dci_isolation_replayer *replayer;

static void
setup(void)
{
	static const char text[] = "providers:\n"
	                           "  - module: /nowhere/provider.so\n"
	                           "    isolate: true\n";
	plugin = rx_plugin_new(text, &config, &registry);
	replayer = dci_isolation_replayer_new(plugin);
	ck_assert_ptr_nonnull(replayer);
	memset(&writer, 0, sizeof(writer));
}

static void
teardown(void)
{
	dci_isolation_replayer_free(replayer);
	dci_plugin_close(plugin);
	dci_registry_free(registry);
	dci_config_free(config);
	dci_wire_writer_free(&writer);
}

static int
replay(void)
{
	int result;

	ck_assert(!writer.failed);
	result = dci_isolation_replay(replayer, writer.data, writer.length);
	writer.length = 0;
	return result;
}

static void
write_supplier(uint32_t handle, const char *module)
{
	dci_wire_frame_begin(&writer, DCI_WIRE_SUPPLIER);
	dci_wire_u32(&writer, handle);
	dci_wire_string(&writer, module);
	dci_wire_string(&writer, "a supplier");
	dci_wire_string(&writer, NULL);
	dci_wire_u32(&writer, 0);
	dci_wire_u32(&writer, 100);
	ck_assert(dci_wire_frame_end(&writer));
}

static void
write_datum(uint32_t id, const char *label, enum dci_type type, uint32_t format,
    uint32_t size, enum dci_semantics semantics)
{
	dci_wire_u32(&writer, id);
	dci_wire_string(&writer, label);
	dci_wire_u32(&writer, type);
	dci_wire_u32(&writer, format);
	dci_wire_u32(&writer, 0);
	dci_wire_u32(&writer, size);
	dci_wire_u32(&writer, DCI_SV_VOLATILE);
	dci_wire_u32(&writer, 0);
	dci_wire_u32(&writer, semantics);
	dci_wire_string(&writer, NULL);
}

/* Class {9, 1} "isolated" of supplier 0: a counter and a string. */
static void
write_class(void)
{
	dci_wire_frame_begin(&writer, DCI_WIRE_CLASS);
	dci_wire_u32(&writer, 0);
	dci_wire_u32(&writer, 0);
	dci_wire_u32(&writer, 2);
	dci_wire_u32(&writer, 9);
	dci_wire_u32(&writer, 1);
	dci_wire_string(&writer, "isolated");
	dci_wire_string(&writer, NULL);
	dci_wire_u32(&writer, 1);
	dci_wire_u32(&writer, DCI_ITYPE_DEVICE);
	dci_wire_u32(&writer, 4);
	dci_wire_u32(&writer, 2);
	write_datum(1, "count", DCI_ST_INTEGER64, DCI_SIF_UNSIGNED, 8,
	    DCI_SEMANTICS_COUNTER);
	write_datum(2, "name", DCI_ST_STRING, 0, 16, DCI_SEMANTICS_DISCRETE);
	ck_assert(dci_wire_frame_end(&writer));
}

static void
write_instance(uint32_t row, uint32_t id, const char *label)
{
	dci_wire_u8(&writer, DCI_WIRE_INSTANCE);
	dci_wire_u32(&writer, row);
	dci_wire_u32(&writer, 1);
	dci_wire_u32(&writer, id);
	dci_wire_string(&writer, label);
}

static void
write_unsigned(uint32_t row, uint32_t datum, uint64_t value)
{
	dci_wire_u8(&writer, DCI_WIRE_UNSIGNED);
	dci_wire_u32(&writer, row);
	dci_wire_u32(&writer, datum);
	dci_wire_u64(&writer, value);
}

static void
write_supplier_state(uint32_t handle, const char *failure)
{
	dci_wire_frame_begin(&writer, DCI_WIRE_SUPPLIER_STATE);
	dci_wire_u32(&writer, handle);
	dci_wire_string(&writer, failure);
	ck_assert(dci_wire_frame_end(&writer));
}

static const struct dci_class *
class_9_1(void)
{
	static const uint32_t id[] = {9, 1};

	for (size_t i = 0; i < registry->class_count; i++)
		if (dci_class_id_compare(registry->classes[i]->id,
		        registry->classes[i]->id_length, id, 2) == 0)
			return registry->classes[i];
	return NULL;
}

START_TEST(a_refresh_replayed)
{
	const struct dci_class *class;
	const struct dci_snapshot *snapshot;
	struct dci_value value;
	static const uint32_t unit1[] = {1}, unit3[] = {3};
	long row;

	write_supplier(0, "isolated");
	write_class();
	dci_wire_frame_begin(&writer, DCI_WIRE_BATCH);
	dci_wire_u32(&writer, 0);
	for (uint32_t r = 0; r < 3; r++) {
		write_instance(r, r + 1,
		    r == 0   ? "unit1"
		    : r == 1 ? "unit2"
		             : "unit3");
		write_unsigned(r, 1, 100u * (r + 1));
	}
	dci_wire_u8(&writer, DCI_WIRE_BYTES);
	dci_wire_u32(&writer, 0);
	dci_wire_u32(&writer, 2);
	dci_wire_u32(&writer, 3);
	dci_wire_bytes(&writer, "eth", 3);
	dci_wire_u8(&writer, DCI_WIRE_INVALID);
	dci_wire_u32(&writer, 1);
	dci_wire_u32(&writer, 1);
	dci_wire_u8(&writer, DCI_WIRE_PARENT);
	dci_wire_u32(&writer, 2);
	dci_wire_u32(&writer, 1);
	dci_wire_u32(&writer, 1);
	ck_assert(dci_wire_frame_end(&writer));
	dci_wire_frame_begin(&writer, DCI_WIRE_DONE);
	dci_wire_u32(&writer, 0);
	dci_wire_string(&writer, NULL);
	ck_assert(dci_wire_frame_end(&writer));
	ck_assert_int_eq(replay(), 0);

	ck_assert_uint_eq(plugin->supplier_count, 1);
	ck_assert_str_eq(plugin->suppliers[0]->module, "isolated");
	class = class_9_1();
	ck_assert_ptr_nonnull(class);
	ck_assert_str_eq(class->label, "isolated");
	snapshot = class->snapshot;
	ck_assert_ptr_nonnull(snapshot);
	ck_assert_uint_eq(snapshot->count, 3);
	row = dci_snapshot_find(class, snapshot, unit1);
	ck_assert_int_eq(row, 0);
	dci_value_decode(&class->datums[0].info,
	    dci_snapshot_slot(class, snapshot, 0, &class->datums[0]), &value);
	ck_assert_uint_eq(value.number, 100);
	ck_assert(dci_snapshot_present(class, snapshot, 0, &class->datums[1]));
	ck_assert_str_eq((const char *)dci_snapshot_slot(
	                     class, snapshot, 0, &class->datums[1]),
	    "eth");
	/* unit2's count invalid: no value; unit3's parent is unit1. */
	ck_assert(!dci_snapshot_present(class, snapshot, 1, &class->datums[0]));
	row = dci_snapshot_find(class, snapshot, unit3);
	ck_assert_int_eq(row, 2);
	ck_assert_ptr_nonnull(dci_snapshot_parent_id(class, snapshot, 2));
	ck_assert_uint_eq(dci_snapshot_parent_id(class, snapshot, 2)[0], 1);

	/* The process's dci_supplier_state: failed with its reason, then
	 * working again. */
	write_supplier_state(0, "scrape failed: gone");
	ck_assert_int_eq(replay(), 0);
	ck_assert_int_eq(plugin->suppliers[0]->status, DCI_SUPPLIER_FAILED);
	ck_assert_str_eq(plugin->suppliers[0]->failure, "scrape failed: gone");
	write_supplier_state(0, "");
	ck_assert_int_eq(replay(), 0);
	ck_assert_int_eq(plugin->suppliers[0]->status, DCI_SUPPLIER_RUNNING);
	ck_assert_str_eq(plugin->suppliers[0]->failure, "");

	/* The supplier withdrawn: it and its class go. */
	dci_wire_frame_begin(&writer, DCI_WIRE_WITHDRAW);
	dci_wire_u32(&writer, 0);
	ck_assert(dci_wire_frame_end(&writer));
	ck_assert_int_eq(replay(), 0);
	ck_assert_ptr_null(class_9_1());
}
END_TEST

static void
assert_refused(const char *what)
{
	ck_assert_msg(replay() == -1, "%s not refused", what);
}

/* Each message that breaks a rule is refused (dcistatd then kills the
 * process); nothing of a broken batch is committed. */
START_TEST(broken_messages_refused)
{
	const struct dci_class *class;

	write_supplier(0, "isolated");
	write_class();
	ck_assert_int_eq(replay(), 0);
	class = class_9_1();
	ck_assert_ptr_nonnull(class);

	write_supplier(5, "skipped");
	assert_refused("a supplier handle out of order");
	ck_assert_uint_eq(plugin->supplier_count, 1);

	dci_wire_frame_begin(&writer, DCI_WIRE_LOG);
	dci_wire_u32(&writer, DCI_LOG_INFO);
	dci_wire_u32(&writer, 3);
	dci_wire_bytes(&writer, "abc", 3);
	ck_assert(dci_wire_frame_end(&writer));
	assert_refused("a string without its NUL");

	dci_wire_frame_begin(&writer, DCI_WIRE_BATCH);
	dci_wire_u32(&writer, 7);
	ck_assert(dci_wire_frame_end(&writer));
	assert_refused("a batch of a class never registered");

	dci_wire_frame_begin(&writer, DCI_WIRE_BATCH);
	dci_wire_u32(&writer, 0);
	write_unsigned(0, 1, 5);
	ck_assert(dci_wire_frame_end(&writer));
	assert_refused("a row set before it is added");

	dci_wire_frame_begin(&writer, DCI_WIRE_BATCH);
	dci_wire_u32(&writer, 0);
	write_instance(0, 1, "unit1");
	write_instance(5, 2, "unit2");
	ck_assert(dci_wire_frame_end(&writer));
	assert_refused("rows out of order");

	dci_wire_frame_begin(&writer, DCI_WIRE_BATCH);
	dci_wire_u32(&writer, 0);
	write_instance(0, 1, "unit1");
	dci_wire_u8(&writer, 99);
	ck_assert(dci_wire_frame_end(&writer));
	assert_refused("an unknown operation");
	ck_assert_ptr_null(class->snapshot);

	dci_wire_frame_begin(&writer, DCI_WIRE_CLASS);
	dci_wire_u32(&writer, 1);
	dci_wire_u32(&writer, 0);
	dci_wire_u32(&writer, 17);
	ck_assert(dci_wire_frame_end(&writer));
	assert_refused("a class id of 17 levels");

	write_supplier_state(9, "unknown");
	assert_refused("a supplier state of a handle never registered");

	write_supplier(1, "second");
	writer.length -= 3;
	assert_refused("a frame longer than what follows it");
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("isolation");
	TCase *replays = tcase_create("replay");
	SRunner *runner;
	int failed;

	log_open("stderr", "test_isolation");
	tcase_add_checked_fixture(replays, setup, teardown);
	tcase_add_test(replays, a_refresh_replayed);
	tcase_add_test(replays, broken_messages_refused);
	suite_add_tcase(suite, replays);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
