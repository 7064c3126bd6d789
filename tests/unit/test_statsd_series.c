/*
 * Unit tests for the statsd provider's series table
 * (src/providers/statsd/statsd_series.c): what each type adds up to (exact
 * counter sums with sample rates, gauge deltas, timer samples, set
 * members per interval), and every bound: series in all, per source (a
 * uid on the unix socket, a UDP address) and for UDP as a whole with
 * root's share kept, set members per set, per source and over all sets,
 * lines per packet, refused values; expiry of idle series; member tables
 * that shrink at an interval's end; member hashes keyed per table.
 */
#include "providers/statsd/statsd_series.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/siphash.h"
#include "check_runner.h"

static const struct statsd_limits default_limits = {
    .max_series = 100,
    .max_timer_series = 100,
    .max_series_per_source = 50,
    .max_udp_series = 100,
    .max_set_members = 1000,
    .max_set_members_total = 100000,
    .max_set_members_per_source = 100000,
    .max_udp_set_members = 100000,
    .max_metrics_per_packet = 1000,
};

/* A datagram from UDP address `address`. */
static void
feed(struct statsd_table *table, uint64_t address, const char *text)
{
	struct statsd_sender sender = {STATSD_FROM_UDP, address};
	statsd_table_datagram(table, &sender, text, strlen(text));
}

/* A datagram on the unix socket from `uid`. */
static void
feed_uid(struct statsd_table *table, uint64_t uid, const char *text)
{
	struct statsd_sender sender = {STATSD_FROM_UNIX, uid};
	statsd_table_datagram(table, &sender, text, strlen(text));
}

/* COUNT lines "PREFIX.N:1|c" (or "PREFIX:mN|s" when `set`), from N =
 * FIRST on, one datagram each, from UDP address `address` or (address
 * UINT64_MAX) unix `uid`. */
static void
feed_many(struct statsd_table *table, uint64_t address, uint64_t uid,
    const char *prefix, int first, int count, bool set)
{
	char line[128];

	for (int i = first; i < first + count; i++) {
		if (set)
			snprintf(line, sizeof line, "%s:m%d|s", prefix, i);
		else
			snprintf(line, sizeof line, "%s.%d:1|c", prefix, i);
		if (address == UINT64_MAX)
			feed_uid(table, uid, line);
		else
			feed(table, address, line);
	}
}

static struct statsd_series *
find(struct statsd_table *table, enum statsd_kind kind, const char *key)
{
	for (size_t i = 0; i < statsd_table_series_count(table); i++) {
		struct statsd_series *series = statsd_table_series(table, i);
		if (series->kind == kind && strcmp(series->key, key) == 0)
			return series;
	}
	return NULL;
}

START_TEST(test_values)
{
	struct statsd_table *table = statsd_table_create(&default_limits);
	struct statsd_series *series;

	ck_assert_ptr_nonnull(table);
	for (int i = 0; i < 10; i++)
		feed(table, 1, "hits:1|c|@0.1\nhits:2|c");
	series = find(table, STATSD_KIND_COUNTER, "hits");
	ck_assert_ptr_nonnull(series);
	ck_assert_uint_eq(series->total, 10 * 10 + 10 * 2);

	feed(table, 1, "temp:10|g\ntemp:+5|g\ntemp:-3|g\ntemp:-7.25|g");
	series = find(table, STATSD_KIND_GAUGE, "temp");
	ck_assert(series->gauge == 4.75);
	feed(table, 1, "temp:3|g");
	ck_assert(series->gauge == 3.0);

	feed(table, 1, "lat:10|ms\nlat:20|h\nlat:30|d|@0.5");
	series = find(table, STATSD_KIND_TIMER, "lat");
	ck_assert_uint_eq(series->samples, 4); /* 1 + 1 + 1/0.5 */
	ck_assert(series->sum == 60.0);
	ck_assert(dci_tdigest_count(series->digest) == 3.0);
	ck_assert(dci_tdigest_quantile(series->digest, 1.0) == 30.0);

	/* One name, two types: two series. */
	feed(table, 1, "hits:4|g");
	ck_assert_ptr_nonnull(find(table, STATSD_KIND_GAUGE, "hits"));
	ck_assert_uint_eq(find(table, STATSD_KIND_COUNTER, "hits")->total, 120);

	feed(table, 1, "users:a|s\nusers:b|s\nusers:a|s");
	series = find(table, STATSD_KIND_SET, "users");
	statsd_table_end_interval(table, 0);
	ck_assert_uint_eq(series->distinct_last, 2);
	feed(table, 1, "users:c|s");
	statsd_table_end_interval(table, 0);
	ck_assert_uint_eq(series->distinct_last, 1);
	statsd_table_end_interval(table, 0);
	ck_assert_uint_eq(series->distinct_last, 0);

	/* Negative counter increments and timer samples are refused. */
	feed(table, 1, "hits:-1|c\nlat:-5|ms");
	ck_assert_uint_eq(statsd_table_counts(table)->refused_values, 2);
	ck_assert_uint_eq(find(table, STATSD_KIND_COUNTER, "hits")->total, 120);
	statsd_table_destroy(table);
}
END_TEST

START_TEST(test_series_bounds)
{
	struct statsd_limits limits = default_limits;
	struct statsd_table *table;

	limits.max_series = 10;
	limits.max_series_per_source = 4; /* and root's share */
	table = statsd_table_create(&limits);
	/* Address 1 makes 4 series, the fifth is refused. */
	feed_many(table, 1, 0, "one", 0, 5, false);
	ck_assert_uint_eq(statsd_table_series_count(table), 4);
	ck_assert_uint_eq(statsd_table_counts(table)->source_refused, 1);
	/* An existing series takes updates from any source. */
	feed(table, 2, "one.0:1|c");
	ck_assert_uint_eq(find(table, STATSD_KIND_COUNTER, "one.0")->total, 2);
	/* Others fill the table to 10 less root's 4; then only root. */
	feed_many(table, 2, 0, "two", 0, 3, false);
	ck_assert_uint_eq(statsd_table_series_count(table), 6);
	ck_assert_uint_eq(statsd_table_counts(table)->series_refused, 1);
	feed_uid(table, 1000, "user:1|g");
	ck_assert_uint_eq(statsd_table_counts(table)->series_refused, 2);
	feed_many(table, UINT64_MAX, 0, "root", 0, 5, false);
	ck_assert_uint_eq(statsd_table_series_count(table), 10);
	ck_assert_uint_eq(statsd_table_counts(table)->series_refused, 3);
	statsd_table_destroy(table);

	/* Timers, which hold a digest each, have a bound of their own. */
	limits = default_limits;
	limits.max_timer_series = 2;
	table = statsd_table_create(&limits);
	feed(table, 1, "t1:1|ms\nt2:1|h\nt3:1|d\nt1:2|ms\ng:1|g");
	ck_assert_uint_eq(statsd_table_series_count(table), 3);
	ck_assert_uint_eq(statsd_table_counts(table)->timer_refused, 1);
	ck_assert_uint_eq(find(table, STATSD_KIND_TIMER, "t1")->samples, 2);
	statsd_table_destroy(table);
}
END_TEST

/* Issue 39 item 8: one user flooding the unix socket and UDP from many
 * addresses leaves room for another user's series and root's. */
START_TEST(test_sources)
{
	struct statsd_limits limits = default_limits;
	struct statsd_table *table;

	limits.max_series = 100;
	limits.max_series_per_source = 10;
	limits.max_udp_series = 20;
	table = statsd_table_create(&limits);
	feed_many(table, UINT64_MAX, 1000, "flood.unix", 0, 50, false);
	ck_assert_uint_eq(statsd_table_series_count(table), 10);
	ck_assert_uint_eq(statsd_table_counts(table)->source_refused, 40);
	/* Ten addresses: UDP as a whole stops at 20. */
	for (uint64_t address = 1; address <= 10; address++)
		feed_many(table, address, 0, "flood.udp", (int)address * 100,
		    10, false);
	ck_assert_uint_eq(statsd_table_series_count(table), 30);
	ck_assert_uint_eq(statsd_table_counts(table)->udp_refused, 80);
	/* Another uid, a sender without credentials and root: their own. */
	feed_many(table, UINT64_MAX, 1001, "victim", 0, 5, false);
	feed_many(
	    table, UINT64_MAX, STATSD_UID_UNKNOWN, "unknown", 0, 5, false);
	feed_many(table, UINT64_MAX, 0, "root", 0, 5, false);
	ck_assert_uint_eq(statsd_table_series_count(table), 45);
	ck_assert_ptr_nonnull(find(table, STATSD_KIND_COUNTER, "victim.4"));
	/* Each sender's row: UDP as one, then each uid. */
	struct statsd_source_view views[8];
	size_t rows = statsd_table_sources(table, views, 8);
	ck_assert_uint_eq(rows, 5);
	ck_assert_uint_eq(views[0].sender.transport, STATSD_FROM_UDP);
	ck_assert_uint_eq(views[0].series, 20);
	ck_assert_uint_eq(views[0].series_refused, 80);
	for (size_t i = 1; i < rows; i++) {
		ck_assert_uint_eq(views[i].sender.transport, STATSD_FROM_UNIX);
		if (views[i].sender.id == 1000) {
			ck_assert_uint_eq(views[i].series, 10);
			ck_assert_uint_eq(views[i].series_refused, 40);
		} else {
			ck_assert_uint_eq(views[i].series, 5);
			ck_assert_uint_eq(views[i].series_refused, 0);
		}
	}
	/* Addresses 3 to 10 were refused before they took a source. */
	ck_assert_uint_eq(statsd_table_counts(table)->sources, 6);
	/* Many uids fill what is not root's: 90; root still makes series,
	 * up to its own bound of 10 (5 made before). */
	for (uint64_t uid = 2000; uid < 2010; uid++)
		feed_many(
		    table, UINT64_MAX, uid, "many", (int)uid * 100, 10, false);
	ck_assert_uint_eq(statsd_table_series_count(table), 90);
	ck_assert_uint_gt(statsd_table_counts(table)->series_refused, 0);
	feed_many(table, UINT64_MAX, 0, "root", 5, 6, false);
	ck_assert_uint_eq(statsd_table_series_count(table), 95);
	ck_assert_ptr_nonnull(find(table, STATSD_KIND_COUNTER, "root.9"));
	statsd_table_destroy(table);
}
END_TEST

/* A series idle for expire_after seconds goes, its slot back to its
 * source; those left are still found. */
START_TEST(test_expiry)
{
	struct statsd_limits limits = default_limits;
	struct statsd_table *table;
	struct statsd_series *kept;

	limits.max_series_per_source = 3;
	limits.expire_after = 10;
	table = statsd_table_create(&limits);
	statsd_table_clock(table, 100);
	feed(table, 1, "a:1|c\nb:1|c\nset:x|s\nd:1|c");
	ck_assert_uint_eq(statsd_table_counts(table)->source_refused, 1);
	statsd_table_clock(table, 105);
	feed(table, 2, "a:1|c");
	ck_assert_uint_eq(statsd_table_end_interval(table, 109), 0);
	ck_assert_uint_eq(statsd_table_series_count(table), 3);
	ck_assert_uint_gt(statsd_table_member_bytes(table), 0);
	/* b and the set, last updated at 100, go at 110; a stays. */
	statsd_table_end_interval(table, 110);
	ck_assert_uint_eq(statsd_table_series_count(table), 1);
	ck_assert_uint_eq(statsd_table_counts(table)->expired, 2);
	ck_assert_ptr_null(find(table, STATSD_KIND_COUNTER, "b"));
	ck_assert_uint_eq(statsd_table_member_bytes(table), 0);
	kept = find(table, STATSD_KIND_COUNTER, "a");
	ck_assert_ptr_nonnull(kept);
	ck_assert_uint_eq(kept->total, 2);
	/* The index, rebuilt, finds "a" again; address 1 has 2 slots back. */
	feed(table, 1, "a:1|c\nb:1|c\nc:1|c\nd:1|c");
	ck_assert_ptr_eq(find(table, STATSD_KIND_COUNTER, "a"), kept);
	ck_assert_uint_eq(kept->total, 3);
	ck_assert_uint_eq(statsd_table_series_count(table), 3);
	ck_assert_uint_eq(statsd_table_counts(table)->source_refused, 2);
	ck_assert_ptr_null(find(table, STATSD_KIND_COUNTER, "d"));
	statsd_table_destroy(table);

	/* expire_after 0: never. */
	limits.expire_after = 0;
	table = statsd_table_create(&limits);
	feed(table, 1, "a:1|c");
	statsd_table_end_interval(table, 1000000);
	ck_assert_uint_eq(statsd_table_series_count(table), 1);
	statsd_table_destroy(table);
}
END_TEST

/* Issue 39 item 9: members are bounded per source, for UDP as a whole
 * and over all sets (root's share kept), each interval; the tables shrink
 * when the interval's members go. */
START_TEST(test_set_totals)
{
	struct statsd_limits limits = default_limits;
	struct statsd_table *table;
	size_t burst_bytes;

	limits.max_set_members_total = 1000;
	limits.max_set_members_per_source = 100;
	limits.max_udp_set_members = 150;
	table = statsd_table_create(&limits);
	feed_many(table, UINT64_MAX, 1000, "s1", 0, 200, true);
	feed_many(table, 1, 0, "u1", 0, 200, true);
	feed_many(table, 2, 0, "u2", 0, 100, true);
	feed_many(table, UINT64_MAX, 1001, "v", 0, 50, true);
	ck_assert_uint_eq(
	    statsd_table_counts(table)->members_source_refused, 100 + 100 + 50);
	ck_assert_uint_eq(statsd_table_counts(table)->members, 300);
	{
		struct statsd_source_view views[8];
		ck_assert_uint_eq(statsd_table_sources(table, views, 8), 3);
		ck_assert_uint_eq(views[0].members_refused, 100 + 50);
	}
	burst_bytes = statsd_table_member_bytes(table);
	ck_assert_uint_gt(burst_bytes, 0);
	ck_assert_uint_eq(statsd_table_end_interval(table, 1), 0);
	ck_assert_uint_eq(statsd_table_counts(table)->members_last, 300);
	{
		struct statsd_source_view views[8];
		size_t rows = statsd_table_sources(table, views, 8);
		ck_assert_uint_eq(rows, 3);
		ck_assert_uint_eq(views[0].members_last, 150);
		for (size_t i = 1; i < rows; i++)
			ck_assert_uint_eq(views[i].members_last,
			    views[i].sender.id == 1000 ? 100 : 50);
	}
	ck_assert_uint_eq(
	    find(table, STATSD_KIND_SET, "s1")->distinct_last, 100);
	ck_assert_uint_eq(
	    find(table, STATSD_KIND_SET, "u2")->distinct_last, 50);
	ck_assert_uint_eq(find(table, STATSD_KIND_SET, "v")->distinct_last, 50);
	/* An interval without members: every table goes. */
	ck_assert_uint_eq(statsd_table_end_interval(table, 2), burst_bytes);
	ck_assert_uint_eq(statsd_table_member_bytes(table), 0);
	ck_assert_ptr_null(find(table, STATSD_KIND_SET, "s1")->members);
	/* A new interval, a new share. */
	feed_many(table, UINT64_MAX, 1000, "s1", 1000, 100, true);
	statsd_table_end_interval(table, 3);
	ck_assert_uint_eq(
	    find(table, STATSD_KIND_SET, "s1")->distinct_last, 100);
	statsd_table_destroy(table);

	/* Over all sets: what is not root's share goes first. */
	limits.max_set_members_total = 250;
	table = statsd_table_create(&limits);
	feed_many(table, UINT64_MAX, 1000, "a", 0, 100, true);
	feed_many(table, UINT64_MAX, 1001, "b", 0, 100, true);
	ck_assert_uint_eq(statsd_table_counts(table)->members, 150);
	ck_assert_uint_eq(
	    statsd_table_counts(table)->members_total_refused, 50);
	feed_many(table, UINT64_MAX, 0, "r", 0, 100, true);
	ck_assert_uint_eq(statsd_table_counts(table)->members, 250);
	statsd_table_destroy(table);
}
END_TEST

/* Member hashes are keyed per table: the same member is another number
 * in another table (a sender cannot precompute names that collide). */
START_TEST(test_members_keyed)
{
	static const struct dci_siphash_key vector_key = {
	    UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908)};
	unsigned char message[15];
	struct statsd_table *first = statsd_table_create(&default_limits);
	struct statsd_table *second = statsd_table_create(&default_limits);
	uint64_t hashes[2] = {0, 0};
	struct statsd_table *tables[2] = {first, second};

	/* SipHash-2-4's vectors: the empty message, and bytes 0..14. */
	for (unsigned i = 0; i < sizeof message; i++)
		message[i] = (unsigned char)i;
	ck_assert_uint_eq(
	    dci_siphash(&vector_key, message, 0), UINT64_C(0x726fdb47dd0e0e31));
	ck_assert_uint_eq(dci_siphash(&vector_key, message, 15),
	    UINT64_C(0xa129ca6149be45e5));
	for (int t = 0; t < 2; t++) {
		struct statsd_series *set;
		feed(tables[t], 1, "s:alice|s");
		set = find(tables[t], STATSD_KIND_SET, "s");
		for (size_t i = 0; i < set->member_capacity; i++)
			if (set->members[i] != 0)
				hashes[t] = set->members[i];
	}
	ck_assert_uint_ne(hashes[0], 0);
	ck_assert_uint_ne(hashes[0], hashes[1]);
	statsd_table_destroy(first);
	statsd_table_destroy(second);
}
END_TEST

START_TEST(test_packet_and_set_bounds)
{
	struct statsd_limits limits = default_limits;
	struct statsd_table *table;
	char datagram[4096], sample[64];
	size_t at = 0;

	limits.max_metrics_per_packet = 5;
	limits.max_set_members = 3;
	table = statsd_table_create(&limits);
	for (int i = 0; i < 8; i++)
		at += (size_t)snprintf(
		    datagram + at, sizeof datagram - at, "n:1|c\n");
	feed(table, 1, datagram);
	ck_assert_uint_eq(find(table, STATSD_KIND_COUNTER, "n")->total, 5);
	ck_assert_uint_eq(statsd_table_counts(table)->over_packet_limit, 3);

	feed(table, 1, "s:a|s\ns:b|s\ns:c|s\ns:d|s\ns:a|s");
	statsd_table_end_interval(table, 0);
	ck_assert_uint_eq(find(table, STATSD_KIND_SET, "s")->distinct_last, 3);
	ck_assert_uint_eq(statsd_table_counts(table)->members_refused, 1);

	/* Malformed lines and unknown types are counted, the first kept. */
	ck_assert(!statsd_table_take_sample(table, sample, sizeof sample));
	feed(table, 1, "bad\nx:1|zz\nok:1|c");
	ck_assert_uint_eq(statsd_table_counts(table)->malformed, 1);
	ck_assert_uint_eq(statsd_table_counts(table)->unknown_type, 1);
	ck_assert(statsd_table_take_sample(table, sample, sizeof sample));
	ck_assert_str_eq(sample, "bad");
	ck_assert(!statsd_table_take_sample(table, sample, sizeof sample));
	statsd_table_oversize(table);
	ck_assert_uint_eq(statsd_table_counts(table)->oversize_packets, 1);
	statsd_table_destroy(table);
}
END_TEST

/* A series' id depends on its type and key alone, so it is the same in
 * every run (tests/integration/statsd.sh computes it too). */
START_TEST(test_stable_ids)
{
	struct statsd_table *first = statsd_table_create(&default_limits);
	struct statsd_table *second = statsd_table_create(&default_limits);

	feed(first, 1, "a:1|c|#y,x");
	feed(second, 9, "b:1|c\na:1|c|#x,y");
	ck_assert_uint_eq(find(first, STATSD_KIND_COUNTER, "a #x,y")->id,
	    find(second, STATSD_KIND_COUNTER, "a #x,y")->id);
	ck_assert_uint_ne(find(second, STATSD_KIND_COUNTER, "a #x,y")->id,
	    find(second, STATSD_KIND_COUNTER, "b")->id);
	statsd_table_destroy(first);
	statsd_table_destroy(second);
}
END_TEST

/* The member hash the table used before it was keyed (FNV-1a, then
 * splitmix64's finaliser for the slot): what a sender could compute from
 * the source. */
static uint64_t
unkeyed_member_slot(const char *member, size_t length)
{
	uint64_t hash = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < length; i++) {
		hash ^= (unsigned char)member[i];
		hash *= UINT64_C(0x100000001b3);
	}
	hash ^= hash >> 30;
	hash *= UINT64_C(0xbf58476d1ce4e5b9);
	hash ^= hash >> 27;
	hash *= UINT64_C(0x94d049bb133111eb);
	return hash ^ (hash >> 31);
}

/* The longest run of occupied slots in a set's member table (cyclic). */
static size_t
longest_run(const struct statsd_series *set)
{
	size_t longest = 0, run = 0;

	for (size_t i = 0; i < 2 * set->member_capacity; i++) {
		run = set->members[i % set->member_capacity] != 0 ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest < set->member_capacity ? longest : set->member_capacity;
}

/* Issue 39 item 9: 2,000 members chosen to share one slot of a 4,096-slot
 * table under the unkeyed hash (one run of 2,000 slots before, every new
 * member probing through all of them) spread as any members do. */
START_TEST(test_members_flood_precomputed)
{
	enum { FLOOD = 2000, SLOT_MASK = 4095 };
	struct statsd_limits limits = default_limits;
	struct statsd_table *table;
	struct statsd_series *set;
	char member[32], line[64];
	int sent = 0;

	limits.max_set_members = 2 * FLOOD;
	table = statsd_table_create(&limits);
	for (unsigned n = 0; sent < FLOOD; n++) {
		int length = snprintf(member, sizeof member, "m%u", n);
		if ((unkeyed_member_slot(member, (size_t)length) & SLOT_MASK) !=
		    0)
			continue;
		snprintf(line, sizeof line, "flood:%s|s", member);
		feed(table, 1, line);
		sent++;
	}
	set = find(table, STATSD_KIND_SET, "flood");
	ck_assert_uint_eq(set->member_count, FLOOD);
	ck_assert_uint_eq(set->member_capacity, SLOT_MASK + 1);
	printf("longest run of the flood's %d members: %zu slots\n", FLOOD,
	    longest_run(set));
	ck_assert_uint_lt(longest_run(set), 200);
	statsd_table_destroy(table);
}
END_TEST

static Suite *
statsd_series_suite(void)
{
	Suite *suite = suite_create("statsd_series");
	TCase *tcase = tcase_create("statsd_series");

	tcase_add_test(tcase, test_values);
	tcase_add_test(tcase, test_series_bounds);
	tcase_add_test(tcase, test_sources);
	tcase_add_test(tcase, test_expiry);
	tcase_add_test(tcase, test_set_totals);
	tcase_add_test(tcase, test_members_keyed);
	tcase_add_test(tcase, test_members_flood_precomputed);
	tcase_add_test(tcase, test_packet_and_set_bounds);
	tcase_add_test(tcase, test_stable_ids);
	suite_add_tcase(suite, tcase);
	return suite;
}

int
main(void)
{
	return unit_run_suite(statsd_series_suite());
}
