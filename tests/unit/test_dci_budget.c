/*
 * The DCI Server's work budget per user (server/dci_budget.h) and its
 * cache of answers (server/dci_cache.h): a uid in debt waits until the
 * debt is paid at its rate while other uids and root are served, and
 * reconnecting (a new bucket is never made for a known uid) does not pay
 * it; a kept answer is given only for the same request, admission and
 * generation, the cache stays within its bounds, and a commit changes the
 * generation.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "server/dci_access.h"
#include "server/dci_budget.h"
#include "server/dci_cache.h"

#define ALL DCI_PROTOCOL_ALL

START_TEST(debt_paid_at_the_rate)
{
	struct dci_budget budget;

	/* 1 ms of CPU per second. */
	dci_budget_init(&budget, 1000);
	ck_assert(dci_budget_allows(&budget, 1000, 0));
	ck_assert_int_eq(dci_budget_ready_at(&budget, 1000, 0), 0);
	/* A request that took 3 ms: 2 ms in debt. */
	dci_budget_charge(&budget, 1000, 3000, 0);
	ck_assert(!dci_budget_allows(&budget, 1000, 0));
	ck_assert_int_eq(dci_budget_ready_at(&budget, 1000, 0), 2001);
	ck_assert(!dci_budget_allows(&budget, 1000, 1000));
	ck_assert(!dci_budget_allows(&budget, 1000, 2000));
	ck_assert(dci_budget_allows(&budget, 1000, 2001));
	/* Other users and root have buckets of their own. */
	dci_budget_charge(&budget, 1000, 5000, 2001);
	ck_assert(!dci_budget_allows(&budget, 1000, 2001));
	ck_assert(dci_budget_allows(&budget, 1001, 2001));
	ck_assert(dci_budget_allows(&budget, 0, 2001));
	/* A full bucket holds one second's worth, however long it
	 * waited. */
	dci_budget_charge(&budget, 1001, 1000, 100000);
	ck_assert(!dci_budget_allows(&budget, 1001, 100000));
	ck_assert(dci_budget_allows(&budget, 1001, 100001));
}
END_TEST

START_TEST(debt_kept_when_the_table_is_busy)
{
	struct dci_budget budget;

	dci_budget_init(&budget, 1000);
	dci_budget_charge(&budget, 1000, 10000, 0);
	/* As many other users as there are entries, each in less debt:
	 * the entry taken for each new one is the fullest, never uid
	 * 1000's. */
	for (uid_t uid = 2000; uid < 2000 + DCI_BUDGET_USERS_MAX; uid++)
		dci_budget_charge(&budget, uid, 1500, 0);
	ck_assert(!dci_budget_allows(&budget, 1000, 0));
	ck_assert_int_eq(dci_budget_ready_at(&budget, 1000, 0), 9001);
}
END_TEST

static struct dci_protocol_request
every_datum_of(uint32_t class_level)
{
	struct dci_protocol_request request = {
	    .class_id = {class_level}, .class_levels = 1, .datum_id = ALL};

	return request;
}

START_TEST(cache_keyed_by_request_admission_generation)
{
	struct dci_cache cache = {0};
	struct dci_protocol_request request = every_datum_of(ALL),
	                            other = request;
	unsigned char admission[2] = {0, 1}, refused[2] = {0, 0};
	unsigned char *payload = malloc(DCI_CACHE_ANSWER_MIN_BYTES);
	const struct dci_cache_entry *kept;

	ck_assert_ptr_nonnull(payload);
	memset(payload, 'x', DCI_CACHE_ANSWER_MIN_BYTES);
	dci_cache_store(&cache, 7, DCI_PROTOCOL_GET_DATA, &request, admission,
	    sizeof(admission), payload, DCI_CACHE_ANSWER_MIN_BYTES);
	kept = dci_cache_find(&cache, 7, DCI_PROTOCOL_GET_DATA, &request,
	    admission, sizeof(admission));
	ck_assert_ptr_nonnull(kept);
	ck_assert_uint_eq(kept->length, DCI_CACHE_ANSWER_MIN_BYTES);
	ck_assert_mem_eq(kept->payload, payload, DCI_CACHE_ANSWER_MIN_BYTES);
	/* Another type, datum, class or instance pattern: not kept. */
	ck_assert_ptr_null(
	    dci_cache_find(&cache, 7, DCI_PROTOCOL_GET_INSTANCE_DATA, &request,
	        admission, sizeof(admission)));
	other.datum_id = 1;
	ck_assert_ptr_null(dci_cache_find(&cache, 7, DCI_PROTOCOL_GET_DATA,
	    &other, admission, sizeof(admission)));
	other = every_datum_of(1);
	ck_assert_ptr_null(dci_cache_find(&cache, 7, DCI_PROTOCOL_GET_DATA,
	    &other, admission, sizeof(admission)));
	other = request;
	other.input_mask = 1;
	other.instance_words = 1;
	ck_assert_ptr_null(dci_cache_find(&cache, 7, DCI_PROTOCOL_GET_DATA,
	    &other, admission, sizeof(admission)));
	/* A consumer the rules treat otherwise never gets it. */
	ck_assert_ptr_null(dci_cache_find(&cache, 7, DCI_PROTOCOL_GET_DATA,
	    &request, refused, sizeof(refused)));
	/* A new generation drops it. */
	ck_assert_ptr_null(dci_cache_find(&cache, 8, DCI_PROTOCOL_GET_DATA,
	    &request, admission, sizeof(admission)));
	ck_assert_uint_eq(cache.count, 0);
	ck_assert_uint_eq(cache.bytes, 0);
	/* A short answer is not kept. */
	dci_cache_store(&cache, 8, DCI_PROTOCOL_GET_DATA, &request, admission,
	    sizeof(admission), payload, DCI_CACHE_ANSWER_MIN_BYTES - 1);
	ck_assert_uint_eq(cache.count, 0);
	ck_assert(!dci_cache_keeps(DCI_PROTOCOL_LIST_SUPPLIERS));
	ck_assert(!dci_cache_keeps(DCI_PROTOCOL_SUBSCRIBE));
	ck_assert(dci_cache_keeps(DCI_PROTOCOL_GET_DATA));
	free(payload);
	dci_cache_free(&cache);
}
END_TEST

START_TEST(cache_bounded)
{
	struct dci_cache cache = {0};
	size_t large = DCI_CACHE_BYTES_MAX / 4 + 1;
	unsigned char *payload = calloc(1, large);
	unsigned char admission[1] = {0};
	struct dci_protocol_request request;

	ck_assert_ptr_nonnull(payload);
	/* More entries than the cache holds: the least recently given
	 * go. */
	for (uint32_t i = 0; i < DCI_CACHE_ENTRIES_MAX + 4; i++) {
		request = every_datum_of(i);
		dci_cache_store(&cache, 1, DCI_PROTOCOL_GET_DATA, &request,
		    admission, 1, payload, DCI_CACHE_ANSWER_MIN_BYTES);
		/* Class 0 is given each time: it stays. */
		request = every_datum_of(0);
		ck_assert_ptr_nonnull(dci_cache_find(
		    &cache, 1, DCI_PROTOCOL_GET_DATA, &request, admission, 1));
	}
	ck_assert_uint_eq(cache.count, DCI_CACHE_ENTRIES_MAX);
	request = every_datum_of(1);
	ck_assert_ptr_null(dci_cache_find(
	    &cache, 1, DCI_PROTOCOL_GET_DATA, &request, admission, 1));
	/* More bytes than it holds: at most 3 answers of a quarter. */
	for (uint32_t i = 100; i < 106; i++) {
		request = every_datum_of(i);
		dci_cache_store(&cache, 1, DCI_PROTOCOL_GET_DATA, &request,
		    admission, 1, payload, large);
		ck_assert_uint_le(cache.bytes, DCI_CACHE_BYTES_MAX);
	}
	ck_assert_uint_le(cache.count, DCI_CACHE_ENTRIES_MAX);
	free(payload);
	dci_cache_free(&cache);
}
END_TEST

/* Peers the rules treat alike share an admission; others do not. */
START_TEST(admission_by_rules)
{
	static uid_t uid_1001[] = {1001};
	static gid_t gid_50[] = {50};
	struct dci_access_rule rules[] = {
	    {.class_id = {1},
	        .class_id_length = 1,
	        .uids = uid_1001,
	        .uid_count = 1},
	    {.class_id = {1, 2},
	        .class_id_length = 2,
	        .gids = gid_50,
	        .gid_count = 1},
	};
	struct dci_access access = {.rules = rules, .rule_count = 2};
	struct dci_access_peer stranger = {.uid = 1000, .gid = 1000},
	                       another = {.uid = 1003, .gid = 1003},
	                       named = {.uid = 1001, .gid = 1001},
	                       member = {.uid = 1002,
	                           .gid = 1002,
	                           .groups = {50},
	                           .group_count = 1},
	                       root = {.uid = 0, .gid = 0};
	unsigned char a[2], b[2];

	ck_assert_uint_eq(dci_access_admission_size(&access), 2);
	dci_access_admission(&access, &stranger, a);
	dci_access_admission(&access, &another, b);
	ck_assert_mem_eq(a, b, 2);
	dci_access_admission(&access, &named, b);
	ck_assert(memcmp(a, b, 2) != 0);
	dci_access_admission(&access, &member, a);
	ck_assert(memcmp(a, b, 2) != 0);
	dci_access_admission(&access, &root, b);
	ck_assert(memcmp(a, b, 2) != 0);
	ck_assert_uint_eq(b[0], 1);
}
END_TEST

START_TEST(generation_changes_at_commit)
{
	struct dci_registry *registry = fx_standard_registry();
	struct dci_class *class = registry->classes[0];
	uint64_t before = dci_registry_generation();
	struct dci_snapshot_builder *builder = dci_snapshot_builder_new(class);

	ck_assert_ptr_nonnull(builder);
	fx_commit(builder, class, FX_COMMIT_MILLISECONDS + 1000);
	ck_assert_uint_ne(dci_registry_generation(), before);
	before = dci_registry_generation();
	dci_class_withdraw_snapshot(class);
	ck_assert_uint_ne(dci_registry_generation(), before);
	dci_registry_free(registry);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("dci_budget");
	TCase *budget = tcase_create("budget");
	TCase *cache = tcase_create("cache");

	tcase_add_test(budget, debt_paid_at_the_rate);
	tcase_add_test(budget, debt_kept_when_the_table_is_busy);
	tcase_add_test(cache, cache_keyed_by_request_admission_generation);
	tcase_add_test(cache, cache_bounded);
	tcase_add_test(cache, admission_by_rules);
	tcase_add_test(cache, generation_changes_at_commit);
	suite_add_tcase(suite, budget);
	suite_add_tcase(suite, cache);
	return unit_run_suite(suite);
}
