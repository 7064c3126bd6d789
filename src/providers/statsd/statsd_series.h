/*
 * The statsd provider's series: what the received metrics add up to, one
 * series per type and key (name and sorted tags, statsd_parse.h), with
 * the bounds that keep what senders can make the daemon hold in check.
 * No sockets and no host calls: the receiver thread feeds datagrams in,
 * refresh reads the series out, both under the caller's lock.
 *
 * What a series keeps:
 *   counter  the exact sum of value / sample_rate since it appeared (a
 *            fraction is carried, so ten "1|c|@0.1" lines add 100);
 *            negative increments are refused (an SNMP counter only grows)
 *   gauge    the last value; a signed value is a delta of it
 *   timer    ms, h and d: sample count (scaled by the sample rate, as
 *            counters), sum, minimum, maximum and a t-digest of the
 *            samples since it appeared; negative samples are refused
 *   set      the distinct members since the last interval's end, and how
 *            many the interval before had (statsd_table_end_interval)
 *
 * Instance ids. A series' id is the 64-bit FNV-1a hash of its type and
 * key: the same series has the same id in every run. Two keys of one type
 * with the same hash: the later one is refused (counted), never merged.
 *
 * Senders. Each unix socket sender's uid is a source, and each UDP
 * address; UDP senders are also bounded all together, since an address
 * names no user (any local user may send from any of 127/8). A new series
 * or a new set member is charged to the source that sent it: a source
 * holds at most max_series_per_source series and adds at most
 * max_set_members_per_source members an interval, UDP all together
 * max_udp_series and max_udp_set_members; and the last
 * max_series_per_source series and max_set_members_per_source members of
 * the whole table are root's (uid 0 on the unix socket), so no number of
 * other users can leave root without room. Updates to a series that
 * exists are taken from any sender.
 *
 * Expiry. A series not updated for expire_after seconds is removed at the
 * end of an interval, and its slots return to its source.
 *
 * Hashes. Set members are kept as a keyed hash (SipHash-2-4, base/
 * siphash.h) with a key from getrandom at the table's creation, and the
 * index scatters series ids with a key from there too, so no sender can
 * precompute member names or keys that collide in this process.
 */
#ifndef DCISTAT_PROVIDERS_STATSD_SERIES_H
#define DCISTAT_PROVIDERS_STATSD_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/tdigest.h"
#include "providers/statsd/statsd_parse.h"

#pragma GCC visibility push(hidden)

/* The classes series fall in: timers take ms, h and d. */
enum statsd_kind {
	STATSD_KIND_COUNTER,
	STATSD_KIND_GAUGE,
	STATSD_KIND_TIMER,
	STATSD_KIND_SET,
	STATSD_KINDS,
};

struct statsd_limits {
	size_t max_series;            /* in all */
	size_t max_timer_series;      /* of those, timers (a digest each) */
	size_t max_series_per_source; /* series one source made */
	size_t max_udp_series;        /* series UDP senders made */
	size_t max_set_members;       /* distinct members a set keeps an
	                                 interval */
	size_t max_set_members_total; /* members over all sets */
	size_t max_set_members_per_source; /* members one source added */
	size_t max_udp_set_members;        /* members UDP senders added */
	size_t max_metrics_per_packet;
	int64_t expire_after; /* seconds without an update; 0: never */
};

/* Who sent a datagram. */
enum statsd_transport { STATSD_FROM_UDP, STATSD_FROM_UNIX };
struct statsd_sender {
	enum statsd_transport transport;
	uint64_t id; /* UDP: the address as a number (equal for one address);
	                unix: the uid, STATSD_UID_UNKNOWN without credentials */
};
#define STATSD_UID_UNKNOWN UINT64_C(0xffffffff)

/* What the table has met, for the receiver class and the log. Only grows,
 * but for the gauges at the end. */
struct statsd_counts {
	uint64_t packets;
	uint64_t lines;
	uint64_t metrics;           /* lines applied to a series */
	uint64_t malformed;         /* lines statsd_parse_line refused */
	uint64_t unknown_type;      /* lines of a type it does not know */
	uint64_t refused_values;    /* negative counter or timer values */
	uint64_t over_packet_limit; /* lines past max_metrics_per_packet */
	uint64_t series_refused;    /* past max_series (root's share kept) */
	uint64_t timer_refused;     /* past max_timer_series */
	uint64_t collisions;        /* a new key with an existing series' id */
	uint64_t source_refused;    /* past max_series_per_source, or no room
	                               for one more source */
	uint64_t udp_refused;       /* past max_udp_series */
	uint64_t members_refused;   /* past the set's max_set_members */
	uint64_t members_total_refused;  /* past max_set_members_total */
	uint64_t members_source_refused; /* past max_set_members_per_source
	                                    or max_udp_set_members */
	uint64_t oversize_packets;       /* datagrams past the packet bound */
	uint64_t expired;                /* series removed by expire_after */
	/* Now, not totals. */
	uint64_t members;      /* over all sets, this interval */
	uint64_t members_last; /* over all sets, the last finished one */
	uint64_t sources;      /* sources holding series or members */
};

struct statsd_series {
	enum statsd_kind kind;
	uint64_t id;                /* the instance id */
	char *key;                  /* NUL-terminated */
	struct statsd_sender owner; /* who made it: charged for it */
	int64_t updated;            /* statsd_table_clock's seconds */
	/* counter */
	uint64_t total;
	double fraction;
	/* gauge */
	double gauge;
	/* timer */
	uint64_t samples;
	double sample_fraction;
	double sum;
	struct dci_tdigest *digest;
	/* set: member hashes, open addressing (0 marks a free slot) */
	uint64_t *members;
	size_t member_count;
	size_t member_capacity;
	uint64_t distinct_last; /* the last finished interval's count */
};

struct statsd_table;

/* NULL without memory. */
struct statsd_table *statsd_table_create(const struct statsd_limits *limits);
void statsd_table_destroy(struct statsd_table *table);

/* Sets the table's clock (monotonic seconds), which stamps the series
 * updated from now on: the receiver calls it once a batch. */
void statsd_table_clock(struct statsd_table *table, int64_t now);

/* Applies every line of one datagram from `sender`. */
void statsd_table_datagram(struct statsd_table *table,
    const struct statsd_sender *sender, const char *datagram, size_t length);

/* Counts a datagram refused whole (longer than the packet bound). */
void statsd_table_oversize(struct statsd_table *table);

const struct statsd_counts *statsd_table_counts(
    const struct statsd_table *table);

/* The first malformed line met since the last call, cut to `size` - 1
 * bytes and NUL-terminated into `line` (raw bytes: escape before logging);
 * false when none. */
bool statsd_table_take_sample(
    struct statsd_table *table, char *line, size_t size);

size_t statsd_table_series_count(const struct statsd_table *table);
/* Series 0..count-1, in the order they appeared. */
struct statsd_series *statsd_table_series(
    struct statsd_table *table, size_t index);

/* Ends a refresh interval at `now` (the clock's seconds): each set's
 * distinct count becomes its distinct_last, its members are forgotten and
 * its member table shrinks to what that count needed (freed at 0); every
 * source's members are forgotten; series not updated for expire_after
 * seconds are removed (their pointers, from statsd_table_series, with
 * them). Returns the bytes of member tables freed. */
size_t statsd_table_end_interval(struct statsd_table *table, int64_t now);

/* Bytes the sets' member tables hold now. */
size_t statsd_table_member_bytes(const struct statsd_table *table);

/* What one source holds and had refused, for the operator: each uid on
 * the unix socket that holds series, added members in the last interval
 * or had anything refused, and UDP senders as one (transport
 * STATSD_FROM_UDP, id 0). A uid's refusals count from when its row
 * appeared; its row goes at an interval's end when it holds no series,
 * added no members and had nothing refused. */
struct statsd_source_view {
	struct statsd_sender sender;
	uint64_t series;          /* held */
	uint64_t members_last;    /* added in the last finished interval */
	uint64_t series_refused;  /* lines of new series, every reason */
	uint64_t members_refused; /* new members, every reason */
};

/* Fills up to `capacity` views, UDP's first; returns how many there are
 * (more than `capacity` when some did not fit). */
size_t statsd_table_sources(const struct statsd_table *table,
    struct statsd_source_view *views, size_t capacity);

#pragma GCC visibility pop

#endif
