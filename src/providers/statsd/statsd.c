/*
 * statsd: a bridge that makes every application speaking the statsd line
 * protocol (Etsy statsd, DogStatsD tags) a supplier, with no
 * configuration per metric.
 *
 * It listens on UDP (option listen, default 127.0.0.1:8125) and, if asked,
 * on a unix datagram socket (unix_socket), from its start (provider.h): init
 * only checks those, so a check or a one-shot read beside a running daemon
 * takes nothing of it and serves no receiver row; a receiver thread
 * (statsd_receiver.h: why a thread) parses each datagram
 * (statsd_parse.h) into series (statsd_series.h), and every refresh serves
 * them as four classes, one instance per metric name and tag set, a
 * fifth with the receiver's own counts and a sixth with each sender's:
 *
 *   {2, 8125, 1} statsd_counters  count: the exact sum of the increments
 *                (value / sample rate) since the series appeared, Counter64
 *   {2, 8125, 2} statsd_gauges    value: the last value (a signed value
 *                moves it), rounded to an Integer32 (absent outside it);
 *                value_thousandths: the same in thousandths, signed 64-bit
 *                (dciStatText)
 *   {2, 8125, 3} statsd_timers    ms, h and d: count (samples, scaled by
 *                the sample rate) and sum since the series appeared; its
 *                minimum, maximum, mean and quantiles (t-digest,
 *                format/tdigest.h: within 1 % at p50..p99 on 10^6
 *                samples). Every value but count is in thousandths of the
 *                unit sent: microseconds for ms. Quantile datum ids are
 *                10000 + q x 10000 (p50 15000, p90 19000, p99 19900),
 *                labels p50, p90, p99_9
 *   {2, 8125, 4} statsd_sets      distinct: members seen in the last
 *                finished refresh interval
 *   {2, 8125, 5} statsd_receiver  one instance: packets, lines, what was
 *                refused and why, and receive_drops, the datagrams the
 *                kernel dropped for want of buffer (statsd_receiver.h)
 *   {2, 8125, 6} statsd_sources   what each sender holds and had refused:
 *                one instance per uid on the unix socket, {1, uid}, and
 *                one for UDP senders as a whole, {2, 0}
 *
 * Instance ids are two words, the series' 64-bit hash (statsd_series.h),
 * the same in every run; the label is the name and, after " #", the tags
 * sorted. A series lives until it is not updated for expire_after
 * seconds, or the provider stops (a reload that changes its options, or
 * the daemon's stop). Each uid on the unix socket, each UDP address, and
 * UDP as a whole have their shares of series and set members
 * (statsd_series.h).
 *
 * Options (defaults in dcistatd(8)): listen, unix_socket, receive_buffer,
 * max_packet_size, max_metrics_per_packet, max_series, max_timer_series,
 * max_series_per_source, max_udp_series, max_set_members,
 * max_set_members_total, max_set_members_per_source, max_udp_set_members,
 * expire_after, quantiles. A refused line, series or member is counted
 * in statsd_receiver and logged at most once a minute, with the first
 * such line escaped.
 */
#define _GNU_SOURCE

#include <dcistat/provider.h>

#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/datum_forms.h"
#include "providers/common/options.h"
#include "providers/common/start.h"
#include "providers/statsd/statsd_parse.h"
#include "providers/statsd/statsd_receiver.h"
#include "providers/statsd/statsd_series.h"
#include "text/escape.h"

#define STATSD_LISTEN_DEFAULT "127.0.0.1:8125"
#define STATSD_RECEIVE_BUFFER_DEFAULT (8u << 20)
#define STATSD_PACKET_DEFAULT 8192u
#define STATSD_PACKET_MAX 65535u
#define STATSD_METRICS_PER_PACKET_DEFAULT 1000u
#define STATSD_SERIES_DEFAULT 10000u
#define STATSD_SERIES_MAX 1000000u
/* A tenth of the series a uid or an address, a quarter for UDP in all:
 * a local user cannot leave the others without room, nor a UDP flood the
 * unix senders; the last share is root's. */
#define STATSD_SERIES_PER_SOURCE_DEFAULT 1000u
#define STATSD_UDP_SERIES_DEFAULT 2500u
/* A timer holds a t-digest of some 16 KiB: 2,000 of them, 32 MiB. */
#define STATSD_TIMER_SERIES_DEFAULT 2000u
#define STATSD_SET_MEMBERS_DEFAULT 10000u
/* A member takes 8 to 32 bytes of a set's table (kept a quarter to half
 * full), the table sized for the last interval is kept through the next:
 * 10^6 members, some 64 MiB at most; a source a tenth, UDP a quarter. */
#define STATSD_SET_MEMBERS_TOTAL_DEFAULT 1000000u
#define STATSD_SET_MEMBERS_PER_SOURCE_DEFAULT 100000u
#define STATSD_UDP_SET_MEMBERS_DEFAULT 250000u
/* statsd's deleteIdleStats drops a series after one idle flush; an SNMP
 * manager polling every few minutes, and a job that reports every five,
 * would see instances come and go. Ten minutes keeps those, and gives a
 * departed sender's slots back within minutes. */
#define STATSD_EXPIRE_DEFAULT 600u
#define STATSD_EXPIRE_MAX (7u * 24u * 3600u)
/* Member tables freed at an interval's end past which the allocator is
 * asked to return free memory to the system. */
#define STATSD_TRIM_BYTES (1u << 20)
#define STATSD_QUANTILES_MAX 8u
/* Problems are logged at most this often. */
#define STATSD_LOG_INTERVAL_SECONDS 60

/* Quantile datums: id 10000 + q x 10000. */
#define STATSD_QUANTILE_ID_BASE 10000u
#define STATSD_QUANTILE_SCALE 10000u

static const uint32_t statsd_class_ids[][3] = {{2, 8125, 1}, {2, 8125, 2},
    {2, 8125, 3}, {2, 8125, 4}, {2, 8125, 5}, {2, 8125, 6}};
enum {
	STATSD_CLASS_RECEIVER = STATSD_KINDS,
	STATSD_CLASS_SOURCES,
	STATSD_CLASSES
};
/* The most sources statsd_sources serves (the UDP row and uids). */
#define STATSD_SOURCE_ROWS_MAX 1024u
/* Instance ids of statsd_sources: {transport, uid}. */
enum { STATSD_SOURCE_UNIX = 1, STATSD_SOURCE_UDP = 2 };

static const struct dci_instance_level statsd_series_level = {
    .itype = DCI_ITYPE_DEVICE, .size = 8};
static const struct dci_instance_level statsd_receiver_level = {
    .itype = DCI_ITYPE_SINGLEINST, .size = 4};

/* STATSD_DATUM(id, label, type and format (STATSD_U64 ...), unit,
 * semantics, description): the type's macro expands first. */
#define STATSD_DATUM(...) STATSD_DATUM_(__VA_ARGS__)
#define STATSD_DATUM_(                                                         \
    id_, label_, type_, format_, unit_, semantics_, description_)              \
	DATUM_INFO(id_, label_, type_, format_, DCI_SIP_DECIMAL, 0,            \
	    DCI_SV_VOLATILE, unit_, semantics_, description_)
#define STATSD_U64 DCI_ST_INTEGER64, DCI_SIF_UNSIGNED
#define STATSD_S64 DCI_ST_INTEGER64, 0u
#define STATSD_S32 DCI_ST_INTEGER32, 0u
#define STATSD_U32 DCI_ST_INTEGER32, DCI_SIF_UNSIGNED

enum {
	COUNTER_COUNT = 1,
	GAUGE_VALUE = 1,
	GAUGE_THOUSANDTHS = 2,
	TIMER_COUNT = 1,
	TIMER_SUM = 2,
	TIMER_MINIMUM = 3,
	TIMER_MAXIMUM = 4,
	TIMER_MEAN = 5,
	SET_DISTINCT = 1,
};

static const struct dci_datum_info statsd_counter_datums[] = {
    STATSD_DATUM(COUNTER_COUNT, "count", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_COUNTER,
        "Sum of the increments (value / sample rate) received"),
};
static const struct dci_datum_info statsd_gauge_datums[] = {
    STATSD_DATUM(GAUGE_VALUE, "value", STATSD_S32, DCI_UNIT_NONE,
        DCI_SEMANTICS_GAUGE,
        "Last value, rounded; absent outside the Integer32 range"),
    STATSD_DATUM(GAUGE_THOUSANDTHS, "value_thousandths", STATSD_S64,
        DCI_UNIT_NONE, DCI_SEMANTICS_GAUGE, "Last value in thousandths"),
};
/* The timer datums before the quantiles. */
static const struct dci_datum_info statsd_timer_datums[] = {
    STATSD_DATUM(TIMER_COUNT, "count", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_COUNTER, "Samples received (scaled by sample rate)"),
    STATSD_DATUM(TIMER_SUM, "sum", STATSD_U64, DCI_UNIT_NONE,
        DCI_SEMANTICS_COUNTER,
        "Sum of the samples, thousandths of the unit sent (us for ms)"),
    STATSD_DATUM(TIMER_MINIMUM, "minimum", STATSD_U64, DCI_UNIT_NONE,
        DCI_SEMANTICS_GAUGE, "Smallest sample, thousandths of the unit"),
    STATSD_DATUM(TIMER_MAXIMUM, "maximum", STATSD_U64, DCI_UNIT_NONE,
        DCI_SEMANTICS_GAUGE, "Largest sample, thousandths of the unit"),
    STATSD_DATUM(TIMER_MEAN, "mean", STATSD_U64, DCI_UNIT_NONE,
        DCI_SEMANTICS_GAUGE, "Mean of the samples, thousandths of the unit"),
};
#define STATSD_TIMER_FIXED                                                     \
	(sizeof statsd_timer_datums / sizeof statsd_timer_datums[0])
static const struct dci_datum_info statsd_set_datums[] = {
    STATSD_DATUM(SET_DISTINCT, "distinct", STATSD_U32, DCI_UNIT_COUNT,
        DCI_SEMANTICS_GAUGE,
        "Distinct members received in the last refresh interval"),
};

/* The receiver's datums, each a member of struct statsd_counts or
 * computed. */
enum receiver_datum {
	RECEIVER_PACKETS = 1,
	RECEIVER_LINES,
	RECEIVER_METRICS,
	RECEIVER_MALFORMED,
	RECEIVER_UNKNOWN_TYPE,
	RECEIVER_REFUSED_VALUES,
	RECEIVER_OVER_PACKET_LIMIT,
	RECEIVER_OVERSIZE_PACKETS,
	RECEIVER_SERIES_REFUSED,
	RECEIVER_SOURCE_REFUSED,
	RECEIVER_MEMBERS_REFUSED,
	RECEIVER_DROPS,
	RECEIVER_SERIES,
	RECEIVER_BUFFER,
	RECEIVER_UDP_REFUSED,
	RECEIVER_TIMER_REFUSED,
	RECEIVER_COLLISIONS,
	RECEIVER_MEMBERS_TOTAL_REFUSED,
	RECEIVER_MEMBERS_SOURCE_REFUSED,
	RECEIVER_EXPIRED,
	RECEIVER_MEMBERS,
	RECEIVER_SOURCES,
	RECEIVER_MEMBER_BYTES,
};
static const struct dci_datum_info statsd_receiver_datums[] = {
    STATSD_DATUM(RECEIVER_PACKETS, "packets", STATSD_U64, DCI_UNIT_PACKETS,
        DCI_SEMANTICS_COUNTER, "Datagrams read"),
    STATSD_DATUM(RECEIVER_LINES, "lines", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_COUNTER, "Lines read (empty lines not counted)"),
    STATSD_DATUM(RECEIVER_METRICS, "metrics", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_COUNTER, "Lines applied to a series"),
    STATSD_DATUM(RECEIVER_MALFORMED, "malformed_lines", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER, "Lines that do not parse"),
    STATSD_DATUM(RECEIVER_UNKNOWN_TYPE, "unknown_type_lines", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER, "Lines of an unknown type"),
    STATSD_DATUM(RECEIVER_REFUSED_VALUES, "refused_values", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Negative counter increments and timer samples"),
    STATSD_DATUM(RECEIVER_OVER_PACKET_LIMIT, "over_packet_limit", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Lines past max_metrics_per_packet"),
    STATSD_DATUM(RECEIVER_OVERSIZE_PACKETS, "oversize_packets", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Datagrams longer than max_packet_size"),
    STATSD_DATUM(RECEIVER_SERIES_REFUSED, "series_refused", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Lines of new series past max_series (less root's share but "
        "for root)"),
    STATSD_DATUM(RECEIVER_SOURCE_REFUSED, "source_refused", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Lines of new series past max_series_per_source (a uid, an "
        "address)"),
    STATSD_DATUM(RECEIVER_MEMBERS_REFUSED, "set_members_refused", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Set members past max_set_members"),
    STATSD_DATUM(RECEIVER_DROPS, "receive_drops", STATSD_U64, DCI_UNIT_PACKETS,
        DCI_SEMANTICS_COUNTER,
        "Datagrams the kernel dropped for want of buffer"),
    STATSD_DATUM(RECEIVER_SERIES, "series", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_GAUGE, "Series held"),
    STATSD_DATUM(RECEIVER_BUFFER, "receive_buffer", STATSD_U64, DCI_UNIT_BYTES,
        DCI_SEMANTICS_GAUGE, "Socket receive buffer, as the kernel reports it"),
    STATSD_DATUM(RECEIVER_UDP_REFUSED, "udp_series_refused", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Lines of new series past max_udp_series"),
    STATSD_DATUM(RECEIVER_TIMER_REFUSED, "timer_series_refused", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Lines of new timers past max_timer_series"),
    STATSD_DATUM(RECEIVER_COLLISIONS, "colliding_series", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Lines of a new key whose id a series has"),
    STATSD_DATUM(RECEIVER_MEMBERS_TOTAL_REFUSED, "set_members_total_refused",
        STATSD_U64, DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Set members past max_set_members_total"),
    STATSD_DATUM(RECEIVER_MEMBERS_SOURCE_REFUSED, "set_members_source_refused",
        STATSD_U64, DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Set members past max_set_members_per_source or "
        "max_udp_set_members"),
    STATSD_DATUM(RECEIVER_EXPIRED, "series_expired", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_COUNTER,
        "Series removed, not updated for expire_after seconds"),
    STATSD_DATUM(RECEIVER_MEMBERS, "set_members", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_GAUGE, "Members over all sets, last interval"),
    STATSD_DATUM(RECEIVER_SOURCES, "sources", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_GAUGE, "Senders (uids, UDP addresses) accounted for"),
    STATSD_DATUM(RECEIVER_MEMBER_BYTES, "set_member_bytes", STATSD_U64,
        DCI_UNIT_BYTES, DCI_SEMANTICS_GAUGE,
        "Bytes the sets' member tables hold"),
};

enum {
	SOURCE_SERIES = 1,
	SOURCE_MEMBERS,
	SOURCE_SERIES_REFUSED,
	SOURCE_MEMBERS_REFUSED,
};
static const struct dci_datum_info statsd_source_datums[] = {
    STATSD_DATUM(SOURCE_SERIES, "series", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_GAUGE, "Series the sender holds"),
    STATSD_DATUM(SOURCE_MEMBERS, "set_members", STATSD_U64, DCI_UNIT_COUNT,
        DCI_SEMANTICS_GAUGE, "Set members it added in the last interval"),
    STATSD_DATUM(SOURCE_SERIES_REFUSED, "series_refused", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "Lines of new series refused, every reason"),
    STATSD_DATUM(SOURCE_MEMBERS_REFUSED, "set_members_refused", STATSD_U64,
        DCI_UNIT_ERRORS, DCI_SEMANTICS_COUNTER,
        "New set members refused, every reason"),
};

struct statsd_context {
	struct provider_context base; /* first: provider_fini */
	pthread_mutex_t lock;
	bool lock_ready;
	struct statsd_table *table;
	/* Opened by statsd_start, in the process that serves; NULL before
	 * (a check, a one-shot read: nothing received, no receiver row). */
	struct statsd_receiver *receiver;
	struct statsd_receiver_options receiver_options;
	struct dci_class *classes[STATSD_CLASSES];
	double quantiles[STATSD_QUANTILES_MAX];
	uint32_t quantile_ids[STATSD_QUANTILES_MAX];
	char quantile_labels[STATSD_QUANTILES_MAX][16];
	size_t quantile_count;
	struct statsd_source_view source_views[STATSD_SOURCE_ROWS_MAX];
	/* The problems logged so far, and when. */
	uint64_t problems_logged;
	int64_t logged_at;
	bool logged_once;
};

static int64_t
statsd_monotonic_seconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec;
}

/* quantiles: a list of fractions in (0, 1), multiples of 0.0001. */
static int
statsd_option_quantiles(struct dci_host *host, struct statsd_context *context)
{
	static const double defaults[] = {0.5, 0.9, 0.99};
	size_t count = dci_option_present(host, "quantiles")
	                   ? dci_option_count(host, "quantiles")
	                   : sizeof defaults / sizeof defaults[0];

	if (count > STATSD_QUANTILES_MAX) {
		dci_option_error(host, "quantiles", "at most 8 quantiles");
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		double q = defaults[i < 3 ? i : 0];
		if (dci_option_present(host, "quantiles")) {
			const char *text =
			    dci_option_item(host, "quantiles", i);
			char *end;
			q = text != NULL ? strtod(text, &end) : NAN;
			if (text == NULL || end == text || *end != '\0')
				q = NAN;
		}
		double scaled = q * STATSD_QUANTILE_SCALE;
		uint32_t steps =
		    (uint32_t)lround(isfinite(scaled) ? scaled : 0);
		if (!(q > 0.0 && q < 1.0) || fabs(scaled - steps) > 1e-6) {
			dci_option_error(host, "quantiles",
			    "expected fractions between 0 and 1 in steps of "
			    "0.0001, such as 0.5, 0.99, 0.999");
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (context->quantile_ids[j] ==
			    STATSD_QUANTILE_ID_BASE + steps) {
				dci_option_error(host, "quantiles",
				    "a quantile is listed twice");
				return -1;
			}
		context->quantiles[i] = q;
		context->quantile_ids[i] = STATSD_QUANTILE_ID_BASE + steps;
		/* p50, p99, p99_9, p99_99: the percent, '_' for the point. */
		char *label = context->quantile_labels[i];
		snprintf(label, sizeof context->quantile_labels[i], "p%u",
		    steps / 100);
		if (steps % 100 != 0) {
			size_t at = strlen(label);
			snprintf(label + at,
			    sizeof context->quantile_labels[i] - at, "_%02u",
			    steps % 100);
			if (label[strlen(label) - 1] == '0')
				label[strlen(label) - 1] = '\0';
		}
	}
	context->quantile_count = count;
	return 0;
}

static int
statsd_register(struct dci_host *host, struct statsd_context *context)
{
	static const struct dci_supplier_info supplier_info = {
	    .module = "statsd",
	    .title = "statsd bridge",
	    .description = "Metrics received in the statsd line protocol",
	    .version = 100,
	};
	static const char *const labels[STATSD_CLASSES] = {"statsd_counters",
	    "statsd_gauges", "statsd_timers", "statsd_sets", "statsd_receiver",
	    "statsd_sources"};
	static const char *const descriptions[STATSD_CLASSES] = {
	    "statsd counters (c), one instance per name and tag set",
	    "statsd gauges (g), one instance per name and tag set",
	    "statsd timers and histograms (ms, h, d), one instance per name "
	    "and tag set",
	    "statsd sets (s), one instance per name and tag set",
	    "What the statsd receiver read and refused",
	    "What each statsd sender (a uid on the unix socket, UDP as a "
	    "whole) holds and had refused"};
	struct dci_datum_info
	    timer_datums[STATSD_TIMER_FIXED + STATSD_QUANTILES_MAX];
	struct dci_supplier *supplier =
	    dci_supplier_register(host, &supplier_info);

	if (supplier == NULL)
		return -1;
	memcpy(timer_datums, statsd_timer_datums, sizeof statsd_timer_datums);
	for (size_t i = 0; i < context->quantile_count; i++)
		timer_datums[STATSD_TIMER_FIXED + i] =
		    (struct dci_datum_info)STATSD_DATUM(
		        context->quantile_ids[i], context->quantile_labels[i],
		        STATSD_U64, DCI_UNIT_NONE, DCI_SEMANTICS_GAUGE,
		        "Quantile estimate (t-digest), thousandths of the "
		        "unit");
	const struct dci_datum_info *datums[STATSD_CLASSES] = {
	    statsd_counter_datums, statsd_gauge_datums, timer_datums,
	    statsd_set_datums, statsd_receiver_datums, statsd_source_datums};
	const size_t datum_counts[STATSD_CLASSES] = {
	    sizeof statsd_counter_datums / sizeof statsd_counter_datums[0],
	    sizeof statsd_gauge_datums / sizeof statsd_gauge_datums[0],
	    STATSD_TIMER_FIXED + context->quantile_count,
	    sizeof statsd_set_datums / sizeof statsd_set_datums[0],
	    sizeof statsd_receiver_datums / sizeof statsd_receiver_datums[0],
	    sizeof statsd_source_datums / sizeof statsd_source_datums[0]};

	for (size_t c = 0; c < STATSD_CLASSES; c++) {
		struct dci_class_info info = CLASS_INFO(statsd_class_ids[c], 3,
		    labels[c], descriptions[c],
		    c == STATSD_CLASS_RECEIVER ? &statsd_receiver_level
		                               : &statsd_series_level,
		    1, datums[c], datum_counts[c]);
		context->classes[c] = dci_class_register(host, supplier, &info);
		if (context->classes[c] == NULL)
			return -1;
	}
	return 0;
}

/* Frees what the context holds (struct provider_context). */
static void
statsd_release(void *opaque)
{
	struct statsd_context *context = opaque;

	/* The thread stops before the table it feeds goes. */
	statsd_receiver_close(context->receiver);
	statsd_table_destroy(context->table);
	if (context->lock_ready)
		pthread_mutex_destroy(&context->lock);
}

/* The bounds on what senders make the table hold. */
static int
statsd_option_limits(struct dci_host *host, struct statsd_limits *limits)
{
	static const struct {
		const char *key;
		uint64_t minimum, maximum, default_value;
		size_t offset;
	} bounds[] = {
	    {"max_metrics_per_packet", 1, 65535,
	        STATSD_METRICS_PER_PACKET_DEFAULT,
	        offsetof(struct statsd_limits, max_metrics_per_packet)},
	    {"max_series", 1, STATSD_SERIES_MAX, STATSD_SERIES_DEFAULT,
	        offsetof(struct statsd_limits, max_series)},
	    {"max_series_per_source", 1, STATSD_SERIES_MAX,
	        STATSD_SERIES_PER_SOURCE_DEFAULT,
	        offsetof(struct statsd_limits, max_series_per_source)},
	    {"max_udp_series", 0, STATSD_SERIES_MAX, STATSD_UDP_SERIES_DEFAULT,
	        offsetof(struct statsd_limits, max_udp_series)},
	    {"max_timer_series", 1, STATSD_SERIES_MAX,
	        STATSD_TIMER_SERIES_DEFAULT,
	        offsetof(struct statsd_limits, max_timer_series)},
	    {"max_set_members", 1, 10000000, STATSD_SET_MEMBERS_DEFAULT,
	        offsetof(struct statsd_limits, max_set_members)},
	    {"max_set_members_total", 1, 100000000,
	        STATSD_SET_MEMBERS_TOTAL_DEFAULT,
	        offsetof(struct statsd_limits, max_set_members_total)},
	    {"max_set_members_per_source", 1, 100000000,
	        STATSD_SET_MEMBERS_PER_SOURCE_DEFAULT,
	        offsetof(struct statsd_limits, max_set_members_per_source)},
	    {"max_udp_set_members", 0, 100000000,
	        STATSD_UDP_SET_MEMBERS_DEFAULT,
	        offsetof(struct statsd_limits, max_udp_set_members)},
	};
	uint64_t expire;

	*limits = (struct statsd_limits){0};
	for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
		uint64_t value;
		if (provider_option_unsigned(host, bounds[i].key,
		        bounds[i].minimum, bounds[i].maximum,
		        bounds[i].default_value, &value) != 0)
			return -1;
		*(size_t *)((char *)limits + bounds[i].offset) = (size_t)value;
	}
	if (provider_option_unsigned(host, "expire_after", 0, STATSD_EXPIRE_MAX,
	        STATSD_EXPIRE_DEFAULT, &expire) != 0)
		return -1;
	limits->expire_after = (int64_t)expire;
	return 0;
}

/* The start init asks for (provider.h): binds the sockets and starts the
 * receiver thread. */
static int
statsd_start(struct dci_host *host, void *opaque)
{
	struct statsd_context *context = opaque;
	const struct statsd_receiver_options *options =
	    &context->receiver_options;
	struct statsd_receiver *receiver;
	char why[256];

	receiver = statsd_receiver_open(options, why, sizeof why);
	if (receiver == NULL) {
		dci_log(host, DCI_LOG_ERR, "%s", why);
		return -1;
	}
	if (statsd_receiver_start(receiver, context->table, &context->lock) !=
	    0) {
		dci_log(host, DCI_LOG_ERR, "cannot start the receiver thread");
		statsd_receiver_close(receiver);
		return -1;
	}
	context->receiver = receiver;
	dci_log(host, DCI_LOG_INFO,
	    "listening on %s%s%s, receive buffer %zu bytes",
	    options->listen != NULL ? options->listen : "",
	    options->listen != NULL && options->unix_path != NULL ? " and "
	                                                          : "",
	    options->unix_path != NULL ? "the unix socket" : "",
	    statsd_receiver_buffer(receiver));
	return 0;
}

static int
statsd_init(struct dci_host *host, void **context_pointer)
{
	struct statsd_context *context;
	struct statsd_limits limits;
	struct statsd_receiver_options *options;
	uint64_t buffer, packet;
	char why[256];

	context = provider_context_new(
	    host, context_pointer, sizeof *context, statsd_release);
	if (context == NULL)
		return -1;
	options = &context->receiver_options;
	if (provider_option_unsigned(host, "receive_buffer", 4096, 1u << 30,
	        STATSD_RECEIVE_BUFFER_DEFAULT, &buffer) != 0 ||
	    provider_option_unsigned(host, "max_packet_size", 512,
	        STATSD_PACKET_MAX, STATSD_PACKET_DEFAULT, &packet) != 0 ||
	    statsd_option_limits(host, &limits) != 0 ||
	    statsd_option_quantiles(host, context) != 0)
		return -1;
	options->listen = dci_option_present(host, "listen")
	                      ? dci_option_string(host, "listen")
	                      : STATSD_LISTEN_DEFAULT;
	/* `listen: none` (or empty) for the unix socket alone. */
	if (options->listen != NULL &&
	    (options->listen[0] == '\0' ||
	        strcmp(options->listen, "none") == 0))
		options->listen = NULL;
	options->unix_path = dci_option_string(host, "unix_socket");
	if (options->listen == NULL && options->unix_path == NULL) {
		dci_option_error(host, "listen",
		    "nothing to listen on: give listen or unix_socket");
		return -1;
	}
	options->receive_buffer = (size_t)buffer;
	options->max_packet_size = (size_t)packet;
	/* Its messages begin with the option's name. */
	if (statsd_receiver_check(options, why, sizeof why) != 0) {
		const char *key = strncmp(why, "unix_socket: ", 13) == 0
		                      ? "unix_socket"
		                      : "listen";
		dci_option_error(host, key, why + strlen(key) + 2);
		return -1;
	}
	if (statsd_register(host, context) != 0)
		return -1;
	context->table = statsd_table_create(&limits);
	if (context->table == NULL) {
		dci_log(host, DCI_LOG_ERR, "cannot allocate the series table");
		return -1;
	}
	if (pthread_mutex_init(&context->lock, NULL) != 0)
		return -1;
	context->lock_ready = true;
	/* The sockets and the thread: in the process that serves. */
	return dci_serve_start(host, statsd_start, context);
}

/* A non-negative value in thousandths, rounded; false past 2^64. */
static bool
statsd_thousandths(double value, uint64_t *out)
{
	double scaled = nearbyint(value * 1000.0);

	if (!(scaled >= 0.0 && scaled < 18446744073709551616.0))
		return false;
	*out = (uint64_t)scaled;
	return true;
}

static void
statsd_set_thousandths(
    struct dci_batch *batch, long row, uint32_t datum, double value)
{
	uint64_t scaled;

	if (statsd_thousandths(value, &scaled))
		dci_batch_set_unsigned(batch, row, datum, scaled);
}

static void
statsd_fill_series(struct statsd_context *context, struct dci_batch *batch,
    struct statsd_series *series)
{
	uint32_t id[2] = {(uint32_t)(series->id >> 32), (uint32_t)series->id};
	long row = dci_batch_instance(batch, id, 2, series->key);

	if (row < 0)
		return;
	switch (series->kind) {
	case STATSD_KIND_COUNTER:
		dci_batch_set_unsigned(
		    batch, row, COUNTER_COUNT, series->total);
		break;
	case STATSD_KIND_GAUGE: {
		double rounded = nearbyint(series->gauge);
		double scaled = nearbyint(series->gauge * 1000.0);
		if (rounded >= INT32_MIN && rounded <= INT32_MAX)
			dci_batch_set_signed(
			    batch, row, GAUGE_VALUE, (int64_t)rounded);
		if (scaled >= -9.2e18 && scaled <= 9.2e18)
			dci_batch_set_signed(
			    batch, row, GAUGE_THOUSANDTHS, (int64_t)scaled);
		break;
	}
	case STATSD_KIND_TIMER:
		dci_batch_set_unsigned(
		    batch, row, TIMER_COUNT, series->samples);
		statsd_set_thousandths(batch, row, TIMER_SUM, series->sum);
		if (dci_tdigest_count(series->digest) > 0.0) {
			statsd_set_thousandths(batch, row, TIMER_MINIMUM,
			    dci_tdigest_quantile(series->digest, 0.0));
			statsd_set_thousandths(batch, row, TIMER_MAXIMUM,
			    dci_tdigest_quantile(series->digest, 1.0));
			statsd_set_thousandths(batch, row, TIMER_MEAN,
			    series->sum / dci_tdigest_count(series->digest));
			for (size_t q = 0; q < context->quantile_count; q++)
				statsd_set_thousandths(batch, row,
				    context->quantile_ids[q],
				    dci_tdigest_quantile(
				        series->digest, context->quantiles[q]));
		}
		break;
	case STATSD_KIND_SET:
		dci_batch_set_unsigned(
		    batch, row, SET_DISTINCT, series->distinct_last);
		break;
	case STATSD_KINDS:
		break;
	}
}

static void
statsd_fill_receiver(struct statsd_context *context, struct dci_batch *batch,
    const struct statsd_counts *counts)
{
	const uint32_t id = 1;
	long row = dci_batch_instance(batch, &id, 1, "receiver");
	const uint64_t values[] = {
	    [RECEIVER_PACKETS] = counts->packets,
	    [RECEIVER_LINES] = counts->lines,
	    [RECEIVER_METRICS] = counts->metrics,
	    [RECEIVER_MALFORMED] = counts->malformed,
	    [RECEIVER_UNKNOWN_TYPE] = counts->unknown_type,
	    [RECEIVER_REFUSED_VALUES] = counts->refused_values,
	    [RECEIVER_OVER_PACKET_LIMIT] = counts->over_packet_limit,
	    [RECEIVER_OVERSIZE_PACKETS] = counts->oversize_packets,
	    [RECEIVER_SERIES_REFUSED] = counts->series_refused,
	    [RECEIVER_SOURCE_REFUSED] = counts->source_refused,
	    [RECEIVER_MEMBERS_REFUSED] = counts->members_refused,
	    [RECEIVER_DROPS] = statsd_receiver_drops(context->receiver),
	    [RECEIVER_SERIES] = statsd_table_series_count(context->table),
	    [RECEIVER_BUFFER] = statsd_receiver_buffer(context->receiver),
	    [RECEIVER_UDP_REFUSED] = counts->udp_refused,
	    [RECEIVER_TIMER_REFUSED] = counts->timer_refused,
	    [RECEIVER_COLLISIONS] = counts->collisions,
	    [RECEIVER_MEMBERS_TOTAL_REFUSED] = counts->members_total_refused,
	    [RECEIVER_MEMBERS_SOURCE_REFUSED] = counts->members_source_refused,
	    [RECEIVER_EXPIRED] = counts->expired,
	    [RECEIVER_MEMBERS] = counts->members_last,
	    [RECEIVER_SOURCES] = counts->sources,
	    [RECEIVER_MEMBER_BYTES] = statsd_table_member_bytes(context->table),
	};

	if (row < 0)
		return;
	for (uint32_t datum = RECEIVER_PACKETS; datum <= RECEIVER_MEMBER_BYTES;
	     datum++)
		dci_batch_set_unsigned(batch, row, datum, values[datum]);
}

static void
statsd_fill_sources(struct statsd_context *context, struct dci_batch *batch)
{
	size_t count = statsd_table_sources(
	    context->table, context->source_views, STATSD_SOURCE_ROWS_MAX);

	if (count > STATSD_SOURCE_ROWS_MAX)
		count = STATSD_SOURCE_ROWS_MAX;
	for (size_t i = 0; i < count; i++) {
		const struct statsd_source_view *view =
		    &context->source_views[i];
		bool udp = view->sender.transport == STATSD_FROM_UDP;
		uint32_t id[2] = {udp ? STATSD_SOURCE_UDP : STATSD_SOURCE_UNIX,
		    (uint32_t)view->sender.id};
		char label[32];
		long row;

		if (udp)
			snprintf(label, sizeof label, "udp");
		else if (view->sender.id == STATSD_UID_UNKNOWN)
			snprintf(label, sizeof label, "uid unknown");
		else
			snprintf(label, sizeof label, "uid %" PRIu64,
			    view->sender.id);
		row = dci_batch_instance(batch, id, 2, label);
		if (row < 0)
			continue;
		dci_batch_set_unsigned(batch, row, SOURCE_SERIES, view->series);
		dci_batch_set_unsigned(
		    batch, row, SOURCE_MEMBERS, view->members_last);
		dci_batch_set_unsigned(
		    batch, row, SOURCE_SERIES_REFUSED, view->series_refused);
		dci_batch_set_unsigned(
		    batch, row, SOURCE_MEMBERS_REFUSED, view->members_refused);
	}
}

/* Logs what was refused since the last log line, at most once every
 * STATSD_LOG_INTERVAL_SECONDS, quoting the first refused line escaped. */
static void
statsd_log_problems(struct dci_host *host, struct statsd_context *context,
    const struct statsd_counts *counts, const char *sample, bool has_sample)
{
	uint64_t problems =
	    counts->malformed + counts->unknown_type + counts->refused_values +
	    counts->over_packet_limit + counts->oversize_packets +
	    counts->series_refused + counts->timer_refused +
	    counts->collisions + counts->source_refused + counts->udp_refused +
	    counts->members_refused + counts->members_total_refused +
	    counts->members_source_refused;
	int64_t now = statsd_monotonic_seconds();
	char quoted[STATSD_NAME_MAX];

	if (problems == context->problems_logged ||
	    (context->logged_once &&
	        now - context->logged_at < STATSD_LOG_INTERVAL_SECONDS))
		return;
	dci_log(host, DCI_LOG_WARNING,
	    "%" PRIu64 " refused since the last report (totals: %" PRIu64
	    " malformed, %" PRIu64 " unknown type, %" PRIu64
	    " refused values, %" PRIu64
	    " past the packet's line bound, %" PRIu64
	    " oversize packets; new series: %" PRIu64
	    " past max_series, %" PRIu64 " past max_timer_series, %" PRIu64
	    " colliding, %" PRIu64 " past max_series_per_source, %" PRIu64
	    " past max_udp_series; set members: %" PRIu64
	    " past max_set_members, %" PRIu64
	    " past max_set_members_total, %" PRIu64
	    " past the sender's share)%s%s%s",
	    problems - context->problems_logged, counts->malformed,
	    counts->unknown_type, counts->refused_values,
	    counts->over_packet_limit, counts->oversize_packets,
	    counts->series_refused, counts->timer_refused, counts->collisions,
	    counts->source_refused, counts->udp_refused,
	    counts->members_refused, counts->members_total_refused,
	    counts->members_source_refused,
	    has_sample ? "; first line: \"" : "",
	    has_sample ? dci_text_quote(quoted, sizeof quoted, sample) : "",
	    has_sample ? "\"" : "");
	context->problems_logged = problems;
	context->logged_at = now;
	context->logged_once = true;
}

static int
statsd_refresh(struct dci_host *host, void *opaque)
{
	struct statsd_context *context = opaque;
	struct dci_batch *batches[STATSD_CLASSES];
	struct statsd_counts counts;
	char sample[STATSD_NAME_MAX];
	bool has_sample;
	int result = 0;

	for (size_t c = 0; c < STATSD_CLASSES; c++) {
		batches[c] = dci_batch_begin(host, context->classes[c]);
		if (batches[c] == NULL) {
			while (c-- > 0)
				dci_batch_abort(batches[c]);
			return -1;
		}
	}
	/* The receiver waits while the table is read; the socket buffer
	 * holds what arrives meanwhile. */
	pthread_mutex_lock(&context->lock);
	size_t freed = statsd_table_end_interval(
	    context->table, statsd_monotonic_seconds());
	size_t count = statsd_table_series_count(context->table);
	for (size_t i = 0; i < count; i++) {
		struct statsd_series *series =
		    statsd_table_series(context->table, i);
		statsd_fill_series(context, batches[series->kind], series);
	}
	counts = *statsd_table_counts(context->table);
	if (context->receiver != NULL)
		statsd_fill_receiver(
		    context, batches[STATSD_CLASS_RECEIVER], &counts);
	statsd_fill_sources(context, batches[STATSD_CLASS_SOURCES]);
	has_sample =
	    statsd_table_take_sample(context->table, sample, sizeof sample);
	pthread_mutex_unlock(&context->lock);
#ifdef __GLIBC__
	/* The receiver thread's arena keeps what a burst of sets freed. */
	if (freed >= STATSD_TRIM_BYTES)
		(void)malloc_trim(0);
#else
	(void)freed;
#endif

	for (size_t c = 0; c < STATSD_CLASSES; c++)
		if (dci_batch_commit(batches[c]) != 0)
			result = -1;
	statsd_log_problems(host, context, &counts, sample, has_sample);
	return result;
}

static const char *const statsd_option_keys[] = {"listen", "unix_socket",
    "receive_buffer", "max_packet_size", "max_metrics_per_packet", "max_series",
    "max_series_per_source", "max_udp_series", "max_set_members",
    "max_set_members_total", "max_set_members_per_source",
    "max_udp_set_members", "max_timer_series", "expire_after", "quantiles",
    NULL};

PROVIDER_ENTRY("statsd", "statsd line protocol (UDP, unix datagram) as classes",
    statsd_option_keys, statsd_init, statsd_refresh);
