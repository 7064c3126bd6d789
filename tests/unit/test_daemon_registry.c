/*
 * The registry dcistat rebuilds from dcistatd's DCI answers
 * (cli/daemon_registry.h): the standard registry answered by the server's
 * own code (server/dci_answer.h) and read back gives the same suppliers
 * (a failed one with its failure, indexes kept), classes, instance labels
 * and parents, presence bits and records byte for byte; every truncation of an
 * answer is refused without reading past it.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli/daemon_registry.h"
#include "fixtures.h"
#include "model/snapshot_access.h"
#include "server/dci_access.h"
#include "server/dci_answer.h"
#include "protocol/dci_protocol.h"

static struct dci_access no_rules;
static struct dci_access_peer peer = {.uid = 0, .gid = 0};

static struct dci_protocol_writer
answer_of(const struct dci_registry *served, uint16_t type,
    const uint32_t *class_id, size_t levels)
{
	struct dci_protocol_request request = {.datum_id = DCI_PROTOCOL_ALL};
	struct dci_protocol_writer payload;

	memcpy(request.class_id, class_id, levels * sizeof(*class_id));
	request.class_levels = levels;
	dci_protocol_writer_init(&payload, DCI_PROTOCOL_RESPONSE_MAX);
	dci_answer(served, &no_rules, &peer, type, &request, &payload);
	ck_assert(!payload.overflow);
	return payload;
}

/* The served registry read back into a new one. */
static struct dci_registry *
rebuilt_of(const struct dci_registry *served)
{
	static const uint32_t every[] = {DCI_PROTOCOL_ALL};
	struct dci_registry *rebuilt = dci_registry_new();
	struct dci_protocol_writer answer;
	char error[512] = "";

	ck_assert_ptr_nonnull(rebuilt);
	answer = answer_of(served, DCI_PROTOCOL_LIST_SUPPLIERS, every, 1);
	ck_assert_msg(cli_daemon_add_suppliers(rebuilt, answer.data,
	                  answer.length, error, sizeof(error)) == 0,
	    "%s", error);
	dci_protocol_writer_free(&answer);
	answer = answer_of(served, DCI_PROTOCOL_GET_CLASS_ATTRIBUTES, every, 1);
	ck_assert_msg(cli_daemon_add_classes(rebuilt, answer.data,
	                  answer.length, error, sizeof(error)) == 0,
	    "%s", error);
	dci_protocol_writer_free(&answer);
	for (size_t i = 0; i < rebuilt->class_count; i++) {
		struct dci_class *class = rebuilt->classes[i];
		struct dci_protocol_writer instances =
		    answer_of(served, DCI_PROTOCOL_GET_INSTANCE_DATA,
		        class->id, class->id_length);

		ck_assert_msg(cli_daemon_commit_class(class, instances.data,
		                  instances.length, FX_COMMIT_MILLISECONDS, error,
		                  sizeof(error)) == 0,
		    "%s", error);
		dci_protocol_writer_free(&instances);
	}
	return rebuilt;
}

/* A class {4} "tree" whose instance 2 is the child of instance 1. */
static void
add_tree_class(struct dci_registry *served)
{
	static const uint32_t tree_id[] = {4}, root[] = {1}, child[] = {2};
	static const struct dci_instance_level level[] = {
	    {DCI_ITYPE_INTERFACE, 4},
	};
	struct dci_datum_info datums[] = {
	    fx_datum(1, "count", DCI_ST_INTEGER32, DCI_SIF_UNSIGNED, 0,
	        DCI_SEMANTICS_GAUGE),
	};
	struct dci_class_info info =
	    fx_class_info(tree_id, 1, "tree", level, 1, datums, 1);
	struct dci_class *tree =
	    fx_class(served, fx_supplier(served, "trees"), &info);
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(tree);
	char why[256];
	long row;

	row = fx_add(builder, root, 1, "root");
	fx_set_unsigned(builder, row, 1, 3);
	row = fx_add(builder, child, 1, "child");
	fx_set_unsigned(builder, row, 1, 4);
	ck_assert_int_eq(dci_snapshot_builder_set_parent(
	                     builder, row, root, 1, why, sizeof(why)),
	    0);
	fx_commit(builder, tree, FX_COMMIT_MILLISECONDS);
}

START_TEST(standard_registry_round_trip)
{
	struct dci_registry *served = fx_standard_registry(), *rebuilt;
	struct dci_supplier *failed = dci_registry_add_failed_supplier(
	    served, "/opt/broken.so", "cannot open shared object", NULL);
	bool parents_seen = false;

	ck_assert_ptr_nonnull(failed);
	add_tree_class(served);
	rebuilt = rebuilt_of(served);
	ck_assert_uint_eq(rebuilt->supplier_count, served->supplier_count);
	for (size_t i = 0; i < served->supplier_count; i++) {
		const struct dci_supplier *want = served->suppliers[i],
		                          *got = rebuilt->suppliers[i];

		ck_assert_uint_eq(got->index, want->index);
		ck_assert_str_eq(got->module, want->module);
		ck_assert_str_eq(got->title, want->title);
		ck_assert_uint_eq(got->status, want->status);
		ck_assert_uint_eq(got->version, want->version);
		ck_assert_mem_eq(got->reset, want->reset, 8);
		ck_assert_str_eq(got->failure, want->failure);
		ck_assert_int_eq(got->discontinuity_milliseconds,
		    want->discontinuity_milliseconds);
		ck_assert_int_eq(got->last_refresh_milliseconds,
		    want->last_refresh_milliseconds);
	}
	ck_assert_str_eq(rebuilt->suppliers[failed->index - 1]->failure,
	    "cannot open shared object");
	ck_assert_uint_eq(rebuilt->class_count, served->class_count);
	for (size_t c = 0; c < served->class_count; c++) {
		const struct dci_class *want = served->classes[c],
		                       *got = rebuilt->classes[c];
		const struct dci_snapshot *wanted = want->snapshot,
		                          *snapshot = got->snapshot;

		ck_assert_str_eq(got->label, want->label);
		ck_assert_uint_eq(got->supplier->index, want->supplier->index);
		ck_assert_uint_eq(got->datum_count, want->datum_count);
		for (size_t d = 0; d < want->datum_count; d++) {
			ck_assert_str_eq(got->datums[d].info.label,
			    want->datums[d].info.label);
			ck_assert_uint_eq(got->datums[d].info.format,
			    want->datums[d].info.format);
			ck_assert_uint_eq(got->datums[d].info.unit,
			    want->datums[d].info.unit);
		}
		if (wanted == NULL)
			continue;
		ck_assert_ptr_nonnull(snapshot);
		ck_assert_uint_eq(snapshot->count, wanted->count);
		ck_assert_mem_eq(snapshot->ids, wanted->ids,
		    wanted->count * want->instance_words * sizeof(uint32_t));
		for (size_t i = 0; i < wanted->count; i++) {
			const uint32_t *want_parent =
			    dci_snapshot_parent_id(want, wanted, i);
			const uint32_t *got_parent =
			    dci_snapshot_parent_id(got, snapshot, i);

			ck_assert_str_eq(snapshot->instances[i].label,
			    wanted->instances[i].label);
			ck_assert_int_eq(
			    got_parent != NULL, want_parent != NULL);
			if (want_parent != NULL) {
				parents_seen = true;
				ck_assert_mem_eq(got_parent, want_parent,
				    want->instance_words * sizeof(uint32_t));
			}
		}
		if (wanted->count > 0) {
			ck_assert_mem_eq(snapshot->present, wanted->present,
			    wanted->count * want->present_size);
			ck_assert_mem_eq(snapshot->values, wanted->values,
			    wanted->count * want->record_size);
		}
	}
	ck_assert(parents_seen);
	dci_registry_free(rebuilt);
	dci_registry_free(served);
}
END_TEST

/* Suppliers the daemon withdrew leave gaps in its indexes: the rebuilt
 * registry keeps every other supplier at its index, the gaps withdrawn. */
START_TEST(withdrawn_suppliers_keep_indexes)
{
	struct dci_registry *served = fx_standard_registry(), *rebuilt;
	struct dci_supplier *first =
	    dci_registry_add_failed_supplier(served, "first", "broken", NULL);
	struct dci_supplier *second =
	    dci_registry_add_failed_supplier(served, "second", "broken", NULL);
	struct dci_supplier *last = dci_registry_add_failed_supplier(
	    served, "last", "broken too", NULL);

	ck_assert_ptr_nonnull(first);
	ck_assert_ptr_nonnull(second);
	ck_assert_ptr_nonnull(last);
	dci_registry_withdraw_supplier(served, first);
	dci_registry_withdraw_supplier(served, second);
	rebuilt = rebuilt_of(served);
	ck_assert_uint_eq(rebuilt->supplier_count, served->supplier_count);
	ck_assert(rebuilt->suppliers[first->index - 1]->withdrawn);
	ck_assert(rebuilt->suppliers[second->index - 1]->withdrawn);
	ck_assert_str_eq(rebuilt->suppliers[last->index - 1]->module, "last");
	ck_assert_str_eq(
	    rebuilt->suppliers[last->index - 1]->failure, "broken too");
	dci_registry_free(rebuilt);
	dci_registry_free(served);
}
END_TEST

/* Every prefix of each answer is refused (and read within its length,
 * which ASan checks); so is a supplier count the payload cannot hold. */
START_TEST(truncated_answers_refused)
{
	static const uint32_t every[] = {DCI_PROTOCOL_ALL};
	struct dci_registry *served = fx_standard_registry();
	struct dci_protocol_writer suppliers =
	    answer_of(served, DCI_PROTOCOL_LIST_SUPPLIERS, every, 1);
	struct dci_protocol_writer classes =
	    answer_of(served, DCI_PROTOCOL_GET_CLASS_ATTRIBUTES, every, 1);
	char error[512];

	for (size_t cut = 0; cut < suppliers.length; cut++) {
		struct dci_registry *rebuilt = dci_registry_new();
		unsigned char *copy = malloc(cut + 1);

		memcpy(copy, suppliers.data, cut);
		ck_assert_int_eq(cli_daemon_add_suppliers(
		                     rebuilt, copy, cut, error, sizeof(error)),
		    -1);
		free(copy);
		dci_registry_free(rebuilt);
	}
	for (size_t cut = 0; cut < classes.length; cut++) {
		struct dci_registry *rebuilt = dci_registry_new();
		unsigned char *copy = malloc(cut + 1);

		ck_assert_int_eq(
		    cli_daemon_add_suppliers(rebuilt, suppliers.data,
		        suppliers.length, error, sizeof(error)),
		    0);
		memcpy(copy, classes.data, cut);
		ck_assert_int_eq(cli_daemon_add_classes(
		                     rebuilt, copy, cut, error, sizeof(error)),
		    -1);
		free(copy);
		dci_registry_free(rebuilt);
	}
	dci_protocol_writer_free(&suppliers);
	dci_protocol_writer_free(&classes);
	dci_registry_free(served);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("daemon_registry");
	TCase *answers = tcase_create("answers");

	tcase_add_test(answers, standard_registry_round_trip);
	tcase_add_test(answers, truncated_answers_refused);
	tcase_add_test(answers, withdrawn_suppliers_keep_indexes);
	suite_add_tcase(suite, answers);
	return unit_run_suite(suite);
}
