/*
 * openmetrics: a dcistat provider that scrapes Prometheus/OpenMetrics
 * text endpoints (an application's /metrics) and serves each metric
 * family as a class, each label set as an instance.
 *
 * Targets (openmetrics_target.h) are scraped all at once, on the
 * refresh's own thread (openmetrics_fetch.h): at every refresh (the
 * provider's `refresh`), or when their `interval=` has passed, their last
 * scrape being committed again at the refreshes between. The scrapes of a
 * refresh have OM_BUDGET_PERCENT of the refresh period; each is checked
 * and served as it ends. A body is parsed whole (openmetrics_parse.h)
 * and every family grouped into series (openmetrics_series.h) before
 * anything is served: a body that breaks a bound or is malformed is
 * refused whole, with one log line naming the target, the line and the
 * reason, and nothing of that scrape is served. A target that cannot be
 * scraped or is refused commits no batch: its classes keep their last
 * snapshot until the host withdraws them after `stale-periods` refreshes
 * (dcistatd(8)), and the target's row of the status class says why. A
 * scrape still running when the budget is spent is late: that target
 * commits nothing at this refresh either (the same staleness rule), its
 * status row says "late: ...", and the scrape goes on at the next
 * refresh, within its own `timeout` from its start; no other scrape of
 * that target starts meanwhile. A problem is logged in the first refresh
 * that has it (not again while every refresh has it), and the target's
 * recovery once.
 *
 * Ids (stable across restarts and hosts):
 *   each target is a supplier whose module is its name; its word is the
 *   32-bit FNV-1a hash of that name (0 and 1 become 2);
 *   family F of target T: class {4, word(T), hi(h), lo(h), 1} where h is
 *   the 64-bit FNV-1a hash of F's name; a histogram's buckets are class
 *   {4, word(T), hi(h), lo(h), 2};
 *   a label set: instance {hi(s), lo(s)} (one level CHANNEL of 8 bytes)
 *   where s is the series id (openmetrics_series.h); a bucket: {hi(s),
 *   lo(s), n} (a second level BUCKET_NO), n its rank by le from 0;
 *   the status class: {4, 1}, one instance per target, {word(T)}.
 * Two targets whose words are equal are a configuration error; a family
 * whose hash another family of the target has is refused (logged).
 * Class labels are "<target>_<family>" (':' and '-' made '_'), cut to
 * OM_CLASS_LABEL_MAX characters with a hash when longer, so that the
 * generated MIB's descriptors stay within 64 characters; the bucket class
 * adds "_hist". A family's HELP is its class description (printable ASCII
 * kept, other bytes and quotes made '_').
 *
 * Datums (SNMP has no floating point: a value is served as a 64-bit
 * integer, and its exact text as the scrape wrote it beside it):
 *   counter      1 total (unsigned 64-bit counter, the value rounded down;
 *                absent when negative, NaN or too large), 2 total_text,
 *                3 created (_created, ST_TIME seconds since 1970)
 *   gauge, unknown  1 value (signed 64-bit gauge, rounded to nearest;
 *                absent when not finite or too large), 2 value_text
 *   info         1 info: the labels joined (a string)
 *   stateset     1 state: the sample's value is not 0 (a boolean)
 *   histogram, gaugehistogram  1 count (counter; a gauge for
 *                gaugehistogram), 2 sum, 3 sum_text, 4 created; the
 *                bucket class, as the supplier library's stats(3)
 *                histograms have it: one instance per (series, bucket),
 *                1 lower and 2 upper (the bounds' texts: the bucket
 *                counts lower < v <= upper; the first lower is -Inf),
 *                3 count (the bucket's own samples, the difference of
 *                two cumulative counts), 4 cumulative (le's count as
 *                scraped)
 *   summary      1 count, 2 sum, 3 sum_text, 4 created, and for each
 *                quantile q the family showed when its class was
 *                registered, with n = round(q * 10000): datum 1000 + 2n
 *                "pNN[_DD]" (signed 64-bit, rounded) and 1001 + 2n
 *                "pNN[_DD]_text"; a quantile seen later is not served.
 * A class's datums are fixed when it is registered (at the first scrape
 * that shows the family): a family that later changes its type is refused
 * (logged) until dcistatd reloads.
 * A counter that goes back is a discontinuity the host sets on the
 * instance (provider.h, enum dci_semantics).
 *
 * Options: targets (list, see openmetrics_target.h), timeout (default
 * 5s), allow-remote (default no), and the bounds of struct om_limits:
 * max-body-bytes (default 16 MiB), max-line-bytes (64 KiB), max-labels
 * (per series, 32), max-families (per target, 2000; also the most classes
 * a target may ever register), max-series (samples per target, 50000).
 */
#define _GNU_SOURCE

#include <dcistat/provider.h>

#include "openmetrics_fetch.h"
#include "openmetrics_layout.h"
#include "openmetrics_parse.h"
#include "openmetrics_series.h"
#include "openmetrics_target.h"
#include "providers/common/clock.h"
#include "providers/common/options.h"
#include "providers/common/start.h"
#include "providers/common/warnings.h"
#include "text/escape.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OM_INSTANCE_LABEL_SIZE 1024u
#define OM_BUDGET_PERCENT 75u

struct om_family_class {
	uint64_t hash;
	char *name;
	enum om_type type;
	bool refused; /* could not be registered, or a hash collision */
	struct dci_class *values;
	struct dci_class *buckets;
	uint32_t quantiles[OM_QUANTILES_MAX]; /* n = round(q * 10000) */
	size_t quantile_count;
};

struct om_target {
	struct om_target_config config;
	uint32_t word;
	struct dci_supplier *supplier;
	struct om_family_class *families;
	size_t family_count, family_capacity;
	uint32_t *family_slots; /* index + 1 by hash, power of two */
	size_t family_slot_count;
	struct om_body body;
	/* The last scrape served, pointing into body: served again at
	 * every refresh until the next scrape is due. */
	struct om_scrape scrape;
	bool have_scrape;
	uint64_t next_scrape_ms;
	uint64_t scrape_started_us;
	bool served; /* its rows committed at this refresh */
	bool up;
	bool was_failing;
	/* Its supplier was said failed (dci_supplier_state) with `status`:
	 * said again only when that changes, each call is a thread round
	 * trip. */
	bool supplier_failed;
	char status[OM_STATUS_SIZE];
	uint64_t last_success;
	uint32_t families_served, series_served, body_bytes, microseconds;
	uint64_t scrapes, failures, late_refreshes;
};

struct om_context {
	struct provider_context base; /* first: provider_fini */
	struct om_limits limits;
	struct om_target *targets;
	size_t target_count;
	struct om_fetch_set *fetches; /* one slot per target */
	struct om_series_set set;
	struct provider_warnings warnings;
	struct dci_supplier *supplier;
	struct dci_class *status_class;
	bool curl_ready;
};

/* --- Values ------------------------------------------------------------ */

static bool
to_unsigned(double value, uint64_t *out)
{
	if (!(value >= 0.0) || value >= 18446744073709551616.0)
		return false;
	*out = (uint64_t)value;
	return true;
}

static bool
to_signed(double value, int64_t *out)
{
	double rounded = round(value);
	if (!(rounded >= -9223372036854775808.0) ||
	    rounded >= 9223372036854775808.0)
		return false;
	*out = (int64_t)rounded;
	return true;
}

static void
set_counter(struct dci_batch *batch, long row, uint32_t datum, double value)
{
	uint64_t number;
	if (to_unsigned(value, &number))
		dci_batch_set_unsigned(batch, row, datum, number);
}

static void
set_gauge(struct dci_batch *batch, long row, uint32_t datum, double value)
{
	int64_t number;
	if (to_signed(value, &number))
		dci_batch_set_signed(batch, row, datum, number);
}

/* --- Families known to a target ---------------------------------------- */

/* Logs a problem of this refresh unless the previous refresh had it too
 * (providers/common/warnings.h): a target refused refresh after refresh,
 * or two families refused in every scrape, are logged once. */
static void
target_log_problem(
    struct om_context *context, struct om_target *target, const char *problem)
{
	uint32_t source = (uint32_t)(target - context->targets);
	if (provider_warnings_note(&context->warnings, source, 0, problem))
		dci_log(context->base.host, DCI_LOG_WARNING, "target %s: %s",
		    target->config.name, problem);
}

/* Whether the family's class has the datums of quantile number n
 * (om_quantile_number). */
static bool
family_has_quantile(const struct om_family_class *known, uint32_t n)
{
	for (size_t q = 0; q < known->quantile_count; q++)
		if (known->quantiles[q] == n)
			return true;
	return false;
}

/* Logs why a family is refused (target_log_problem: once while it lasts)
 * and returns NULL, the caller's answer for a refused family. */
__attribute__((format(printf, 3, 4))) static struct om_family_class *
family_refused(struct om_context *context, struct om_target *target,
    const char *format, ...)
{
	char problem[256];
	va_list arguments;

	va_start(arguments, format);
	vsnprintf(problem, sizeof(problem), format, arguments);
	va_end(arguments);
	target_log_problem(context, target, problem);
	return NULL;
}

/* The family's classes, registered on its first showing; NULL when it is
 * refused (logged once). */
static struct om_family_class *
family_classes(struct om_context *context, struct om_target *target,
    const struct om_family *family, const struct om_series_set *set,
    const struct om_scrape *scrape)
{
	uint64_t hash = om_fnv1a64(family->name, family->name_length);
	size_t mask = target->family_slot_count - 1;
	size_t at = (size_t)(hash ^ (hash >> 32)) & mask;
	char quoted[128];

	dci_text_escape(quoted, sizeof(quoted), family->name,
	    family->name_length, DCI_TEXT_ESCAPE_LABEL);
	while (target->family_slots[at] != 0) {
		struct om_family_class *known =
		    &target->families[target->family_slots[at] - 1];
		if (known->hash == hash) {
			if (known->refused)
				return NULL;
			if (strlen(known->name) != family->name_length ||
			    memcmp(known->name, family->name,
			        family->name_length) != 0) {
				return family_refused(context, target,
				    "family %s refused: its id is family "
				    "%.60s's",
				    quoted, known->name);
			}
			if (known->type != family->type) {
				return family_refused(context, target,
				    "family %s refused: type %s, registered "
				    "as %s",
				    quoted, om_type_name(family->type),
				    om_type_name(known->type));
			}
			return known;
		}
		at = (at + 1) & mask;
	}
	if (target->family_count >= context->limits.families) {
		return family_refused(context, target,
		    "family %s refused: the target registered %zu families "
		    "already (max-families)",
		    quoted, target->family_count);
	}
	struct om_family_class *known = &target->families[target->family_count];
	*known = (struct om_family_class){.hash = hash, .type = family->type};
	known->name = strndup(family->name, family->name_length);
	if (known->name == NULL)
		return NULL;
	/* A summary's quantiles: those every series of this scrape shows. */
	for (size_t s = 0; s < set->count && family->type == OM_TYPE_SUMMARY;
	     s++)
		for (uint32_t p = 0; p < set->series[s].part_count; p++) {
			const struct om_sample *sample =
			    &scrape->samples
			         [set->parts[set->series[s].part_first + p]];
			uint32_t n;
			if (om_quantile_number(sample->bound, &n) &&
			    !family_has_quantile(known, n) &&
			    known->quantile_count < OM_QUANTILES_MAX)
				known->quantiles[known->quantile_count++] = n;
		}
	target->family_slots[at] = (uint32_t)target->family_count + 1;
	target->family_count++;
	struct om_family_layout layout = {.target_name = target->config.name,
	    .target_word = target->word,
	    .family = family,
	    .family_hash = hash,
	    .quantiles = known->quantiles,
	    .quantile_count = known->quantile_count};
	if (om_layout_register_family(context->base.host, target->supplier,
	        &layout, &known->values, &known->buckets) != 0) {
		known->refused = true;
		return family_refused(context, target,
		    "family %s refused: its class could not be registered",
		    quoted);
	}
	return known;
}

/* --- Serving a family -------------------------------------------------- */

static const struct om_sample *
sample_at(const struct om_scrape *scrape, uint32_t index_plus_one)
{
	return index_plus_one == 0 ? NULL
	                           : &scrape->samples[index_plus_one - 1];
}

static void
series_values(struct om_context *context, const struct om_scrape *scrape,
    struct dci_batch *batch, long row, const struct om_family *family,
    const struct om_series *series, const struct om_family_class *known,
    char *label_buffer)
{
	const struct om_sample *sample;

	switch (family->type) {
	case OM_TYPE_COUNTER:
		if ((sample = sample_at(scrape, series->total)) != NULL) {
			set_counter(batch, row, 1, sample->value);
			dci_batch_set_string(batch, row, 2, sample->text);
		}
		if ((sample = sample_at(scrape, series->created)) != NULL)
			set_counter(batch, row, 3, sample->value);
		break;
	case OM_TYPE_GAUGE:
	case OM_TYPE_UNKNOWN:
		if ((sample = sample_at(scrape, series->value)) != NULL) {
			set_gauge(batch, row, 1, sample->value);
			dci_batch_set_string(batch, row, 2, sample->text);
		}
		break;
	case OM_TYPE_INFO:
		om_series_label(scrape, series, "", label_buffer, OM_INFO_SIZE);
		dci_batch_set_string(batch, row, 1, label_buffer);
		break;
	case OM_TYPE_STATESET:
		if ((sample = sample_at(scrape, series->value)) != NULL)
			dci_batch_set_unsigned(
			    batch, row, 1, sample->value != 0.0);
		break;
	case OM_TYPE_HISTOGRAM:
	case OM_TYPE_GAUGEHISTOGRAM:
	case OM_TYPE_SUMMARY:
		if ((sample = sample_at(scrape, series->count)) != NULL)
			set_counter(batch, row, 1, sample->value);
		if ((sample = sample_at(scrape, series->sum)) != NULL) {
			set_gauge(batch, row, 2, sample->value);
			dci_batch_set_string(batch, row, 3, sample->text);
		}
		if ((sample = sample_at(scrape, series->created)) != NULL &&
		    family->type != OM_TYPE_GAUGEHISTOGRAM)
			set_counter(batch, row, 4, sample->value);
		if (family->type != OM_TYPE_SUMMARY)
			break;
		for (uint32_t p = 0; p < series->part_count; p++) {
			const struct om_sample *part =
			    &scrape->samples
			         [context->set.parts[series->part_first + p]];
			uint32_t n;
			if (!om_quantile_number(part->bound, &n) ||
			    !family_has_quantile(known, n))
				continue;
			set_gauge(batch, row, OM_QUANTILE_DATUM_BASE + 2 * n,
			    part->value);
			dci_batch_set_string(batch, row,
			    OM_QUANTILE_DATUM_BASE + 2 * n + 1, part->text);
		}
		break;
	}
}

static void
buckets_serve(struct om_context *context, struct om_target *target,
    const struct om_family *family, const struct om_family_class *known,
    char *label_buffer, size_t label_size)
{
	const struct om_scrape *scrape = &target->scrape;
	const struct om_series_set *set = &context->set;
	struct dci_batch *batch =
	    dci_batch_begin(context->base.host, known->buckets);
	char base[OM_INSTANCE_LABEL_SIZE];

	if (batch == NULL)
		return;
	for (size_t s = 0; s < set->count; s++) {
		const struct om_series *series = &set->series[s];
		const char *lower = "-Inf";
		double previous = 0.0;
		om_series_label(scrape, series, "", base, sizeof(base));
		size_t base_length = strlen(base);
		if (base_length > 0 && base_length + 1 < sizeof(base))
			base[base_length++] = ' ';
		for (uint32_t p = 0; p < series->part_count; p++) {
			const struct om_sample *bucket =
			    &scrape
			         ->samples[set->parts[series->part_first + p]];
			uint32_t id[3] = {(uint32_t)(series->id >> 32),
			    (uint32_t)series->id, p};
			/* "<labels> le=<bound>", cut to the buffer. */
			size_t bound_length = strlen(bucket->bound_text);
			size_t used = base_length < label_size - 1
			                  ? base_length
			                  : label_size - 1;
			memcpy(label_buffer, base, used);
			if (used + 3 + bound_length < label_size) {
				memcpy(label_buffer + used, "le=", 3);
				memcpy(label_buffer + used + 3,
				    bucket->bound_text, bound_length);
				used += 3 + bound_length;
			}
			label_buffer[used] = '\0';
			long row =
			    dci_batch_instance(batch, id, 3, label_buffer);
			if (row < 0)
				continue;
			dci_batch_set_string(batch, row, 1, lower);
			dci_batch_set_string(batch, row, 2, bucket->bound_text);
			set_counter(batch, row, 4, bucket->value);
			if (bucket->value >= previous)
				set_counter(
				    batch, row, 3, bucket->value - previous);
			previous = bucket->value;
			lower = bucket->bound_text;
		}
	}
	dci_batch_commit(batch);
}

/* Serves family `index` (grouped already into context->set). Returns the
 * series served. */
static size_t
family_serve(
    struct om_context *context, struct om_target *target, uint32_t index)
{
	const struct om_scrape *scrape = &target->scrape;
	const struct om_family *family = &scrape->families[index];
	const struct om_series_set *set = &context->set;
	char label[OM_INSTANCE_LABEL_SIZE], family_name[256];
	struct om_family_class *known;
	struct dci_batch *batch;

	known = family_classes(context, target, family, set, scrape);
	if (known == NULL)
		return 0;
	if (set->collisions > 0) {
		char problem[256];
		snprintf(problem, sizeof(problem), "%zu label sets refused: %s",
		    set->collisions, set->collision);
		target_log_problem(context, target, problem);
	}
	snprintf(family_name, sizeof(family_name), "%.*s",
	    (int)(family->name_length < 255 ? family->name_length : 255),
	    family->name);
	batch = dci_batch_begin(context->base.host, known->values);
	if (batch == NULL)
		return 0;
	for (size_t s = 0; s < set->count; s++) {
		const struct om_series *series = &set->series[s];
		uint32_t id[2] = {
		    (uint32_t)(series->id >> 32), (uint32_t)series->id};
		om_series_label(
		    scrape, series, family_name, label, sizeof(label));
		long row = dci_batch_instance(batch, id, 2, label);
		if (row < 0)
			continue;
		series_values(
		    context, scrape, batch, row, family, series, known, label);
	}
	dci_batch_commit(batch);
	if (known->buckets != NULL)
		buckets_serve(
		    context, target, family, known, label, sizeof(label));
	return set->count;
}

/* --- Targets ----------------------------------------------------------- */

static void
target_fail(
    struct om_context *context, struct om_target *target, const char *why)
{
	bool said =
	    target->supplier_failed &&
	    strncmp(target->status, why, sizeof(target->status) - 1) == 0;

	target->was_failing = true;
	target->failures++;
	if (snprintf(target->status, sizeof(target->status), "%s", why) < 0)
		target->status[0] = '\0';
	target_log_problem(context, target, why);
	/* Its supplier row shows the same text as its status row. */
	if (!said && target->supplier != NULL &&
	    dci_supplier_state(context->base.host, target->supplier,
	        target->status[0] != '\0' ? target->status : "failed") == 0)
		target->supplier_failed = true;
}

/* Starts the target's scrape when it is due: at every refresh without
 * `interval=`, else once that has passed; never beside its scrape still
 * running from an earlier refresh. */
static void
target_begin(struct om_context *context, size_t index, uint64_t now_us)
{
	struct om_target *target = &context->targets[index];
	uint64_t now_ms = now_us / 1000;
	char why[OM_STATUS_SIZE], message[OM_STATUS_SIZE];

	target->served = false;
	if (om_fetch_running(context->fetches, index) ||
	    (target->config.interval_ms != 0 &&
	        now_ms < target->next_scrape_ms))
		return;
	target->next_scrape_ms = now_ms + target->config.interval_ms;
	target->scrapes++;
	target->scrape_started_us = now_us;
	/* The body the last scrape points into is written over. */
	target->have_scrape = false;
	if (om_fetch_start(context->fetches, index, &target->config,
	        &target->body, context->limits.body_bytes, why,
	        sizeof(why)) != 0) {
		if (snprintf(
		        message, sizeof(message), "scrape failed: %s", why) < 0)
			message[0] = '\0';
		target_fail(context, target, message);
	}
}

/* Commits the target's last scrape (every family grouped again into
 * context->set). */
static void
target_serve(struct om_context *context, struct om_target *target)
{
	size_t series = 0;

	for (uint32_t f = 0; f < target->scrape.family_count; f++) {
		om_series_group(&context->set, &target->scrape, f);
		series += family_serve(context, target, f);
	}
	target->families_served = (uint32_t)target->scrape.family_count;
	target->series_served = (uint32_t)series;
	target->served = true;
}

/* A scrape that ended (status 0: an HTTP 200 answer, else `why`): its
 * body is checked whole before anything of it is served, and served. */
static void
target_scraped(struct om_context *context, struct om_target *target, int status,
    const char *why)
{
	char problem[OM_STATUS_SIZE];
	struct om_scrape *scrape = &target->scrape;

	if (status != 0) {
		if (snprintf(
		        problem, sizeof(problem), "scrape failed: %s", why) < 0)
			problem[0] = '\0';
		target_fail(context, target, problem);
		return;
	}
	target->body_bytes =
	    (uint32_t)(target->body.length < UINT32_MAX ? target->body.length
	                                                : UINT32_MAX);
	if (om_parse(scrape, target->body.bytes, target->body.length,
	        &context->limits) != 0) {
		snprintf(problem, sizeof(problem), "refused: line %zu: %s",
		    scrape->error_line, scrape->error);
		target_fail(context, target, problem);
		return;
	}
	/* Everything is checked before anything is served. */
	for (uint32_t f = 0; f < scrape->family_count; f++)
		if (om_series_group(&context->set, scrape, f) != 0) {
			snprintf(problem, sizeof(problem), "refused: %s",
			    context->set.error);
			target_fail(context, target, problem);
			return;
		}
	if (target->was_failing)
		dci_log(context->base.host, DCI_LOG_NOTICE,
		    "target %s: scraped again", target->config.name);
	target->was_failing = false;
	if (target->supplier_failed &&
	    dci_supplier_state(context->base.host, target->supplier, NULL) == 0)
		target->supplier_failed = false;
	snprintf(target->status, sizeof(target->status), "ok");
	target->last_success = provider_monotonic_centiseconds();
	target->have_scrape = true;
	target_serve(context, target);
	uint64_t spent =
	    provider_monotonic_microseconds() - target->scrape_started_us;
	target->microseconds =
	    spent < UINT32_MAX ? (uint32_t)spent : UINT32_MAX;
}

/* Ends the target's part of a refresh whose scrapes' budget is over. A
 * scrape still running is late: the target commits nothing (its rows keep
 * their last snapshot only until the host's staleness limit) and its
 * status says so; a late scrape is not a failure, its supplier keeps its
 * state. A target not due commits its last scrape again. `up` says
 * whether its rows were committed at this refresh. */
static void
target_end(struct om_context *context, size_t index, unsigned budget_ms)
{
	struct om_target *target = &context->targets[index];

	if (om_fetch_running(context->fetches, index)) {
		target->late_refreshes++;
		snprintf(target->status, sizeof(target->status),
		    "late: no whole answer within the refresh's %u ms; its "
		    "scrape goes on, for %u ms at most",
		    budget_ms, target->config.timeout_ms);
		target_log_problem(context, target, target->status);
	} else if (!target->served && target->have_scrape)
		target_serve(context, target);
	target->up = target->served;
}

static void
status_commit(struct om_context *context)
{
	struct dci_batch *batch =
	    dci_batch_begin(context->base.host, context->status_class);
	if (batch == NULL)
		return;
	for (size_t t = 0; t < context->target_count; t++) {
		const struct om_target *target = &context->targets[t];
		long row = dci_batch_instance(
		    batch, &target->word, 1, target->config.name);
		if (row < 0)
			continue;
		dci_batch_set_string(
		    batch, row, OM_STATUS_NAME, target->config.name);
		dci_batch_set_string(
		    batch, row, OM_STATUS_URL, target->config.url);
		dci_batch_set_unsigned(batch, row, OM_STATUS_UP, target->up);
		dci_batch_set_string(
		    batch, row, OM_STATUS_TEXT, target->status);
		if (target->last_success != 0)
			dci_batch_set_unsigned(batch, row,
			    OM_STATUS_LAST_SUCCESS, target->last_success);
		const struct {
			uint32_t datum;
			uint64_t value;
		} counts[] = {
		    {OM_STATUS_FAMILIES, target->families_served},
		    {OM_STATUS_SERIES, target->series_served},
		    {OM_STATUS_BODY_BYTES, target->body_bytes},
		    {OM_STATUS_SCRAPE_MICROSECONDS, target->microseconds},
		    {OM_STATUS_SCRAPES, target->scrapes},
		    {OM_STATUS_FAILURES, target->failures},
		    {OM_STATUS_LATE, target->late_refreshes},
		};
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			dci_batch_set_unsigned(
			    batch, row, counts[c].datum, counts[c].value);
	}
	dci_batch_commit(batch);
}

/* The part of a refresh the scrapes may take: OM_BUDGET_PERCENT of the
 * refresh period, the rest left for parsing and committing, so that a
 * refresh ends within its period and the targets that answered are
 * committed before their previous rows go stale (the fewest stale-periods
 * are 2, counted from a refresh's start). On a host that does not say its
 * period, the longest timeout. */
static unsigned
refresh_budget_ms(struct om_context *context)
{
	unsigned period = dci_refresh_period(context->base.host);
	unsigned budget = 0;

	if (period != 0)
		return (unsigned)((uint64_t)period * OM_BUDGET_PERCENT / 100);
	for (size_t t = 0; t < context->target_count; t++)
		if (context->targets[t].config.timeout_ms > budget)
			budget = context->targets[t].config.timeout_ms;
	return budget;
}

/* Every due target's scrape runs at once (openmetrics_fetch.h); each is
 * checked and served as it ends, until all ended or the budget is spent. */
static int
openmetrics_refresh(struct dci_host *host, void *opaque)
{
	struct om_context *context = opaque;
	uint64_t start = provider_monotonic_microseconds();
	unsigned budget_ms = refresh_budget_ms(context);
	char why[OM_STATUS_SIZE];
	int status;
	long slot;

	(void)host;
	provider_warnings_begin(&context->warnings);
	for (size_t t = 0; t < context->target_count; t++)
		target_begin(context, t, start);
	while ((slot = om_fetch_next(context->fetches,
	            start + (uint64_t)budget_ms * 1000, &status, why,
	            sizeof(why))) >= 0)
		target_scraped(context, &context->targets[slot], status, why);
	for (size_t t = 0; t < context->target_count; t++)
		target_end(context, t, budget_ms);
	provider_warnings_end(&context->warnings);
	status_commit(context);
	return 0;
}

/* --- Options and registration ------------------------------------------ */

/* provider_option_unsigned for a size_t member. */
static int
option_size(struct dci_host *host, const char *key, size_t default_value,
    size_t minimum, size_t maximum, size_t *out)
{
	uint64_t value;

	if (provider_option_unsigned(
	        host, key, minimum, maximum, default_value, &value) != 0)
		return -1;
	*out = (size_t)value;
	return 0;
}

static int
options_read(struct dci_host *host, struct om_context *context,
    unsigned *timeout_ms, int *allow_remote)
{
	const char *timeout = dci_option_string(host, "timeout");
	struct om_limits *limits = &context->limits;

	*timeout_ms = 5000;
	if (timeout != NULL || dci_option_present(host, "timeout")) {
		*timeout_ms = om_duration_ms(timeout);
		if (*timeout_ms == 0) {
			dci_option_error(host, "timeout",
			    "expected a duration such as 500ms or 5s, at most "
			    "an hour");
			return -1;
		}
	}
	*allow_remote = dci_option_boolean(host, "allow-remote", 0);
	if (*allow_remote < 0)
		return -1;
	if (option_size(host, "max-body-bytes", 16u << 20, 64, 1u << 30,
	        &limits->body_bytes) != 0 ||
	    option_size(host, "max-line-bytes", 64u << 10, 64, 16u << 20,
	        &limits->line_bytes) != 0 ||
	    option_size(host, "max-labels", 32, 1, 1024,
	        &limits->labels_per_series) != 0 ||
	    option_size(host, "max-families", 2000, 1, 100000,
	        &limits->families) != 0 ||
	    option_size(
	        host, "max-series", 50000, 1, 10000000, &limits->series) != 0)
		return -1;
	return 0;
}

static int
targets_read(struct dci_host *host, struct om_context *context,
    unsigned timeout_ms, bool allow_remote)
{
	size_t count = dci_option_count(host, "targets");

	if (count == 0) {
		dci_option_error(host, "targets", "at least one target");
		return -1;
	}
	context->targets = calloc(count, sizeof(*context->targets));
	if (context->targets == NULL)
		return -1;
	for (size_t t = 0; t < count; t++) {
		struct om_target *target = &context->targets[t];
		char why[160], message[200];
		if (om_target_config_parse(dci_option_item(host, "targets", t),
		        timeout_ms, allow_remote, &target->config, why,
		        sizeof(why)) != 0) {
			snprintf(message, sizeof(message), "item %zu: %s",
			    t + 1, why);
			dci_option_error(host, "targets", message);
			return -1;
		}
		context->target_count++;
		target->word = om_fnv1a32(
		    target->config.name, strlen(target->config.name));
		if (target->word <= 1) /* {4, 1} is the status class */
			target->word = 2;
		for (size_t other = 0; other < t; other++)
			if (context->targets[other].word == target->word) {
				snprintf(message, sizeof(message),
				    "item %zu: name %s is taken (or has the "
				    "id of %s): give name=",
				    t + 1, target->config.name,
				    context->targets[other].config.name);
				dci_option_error(host, "targets", message);
				return -1;
			}
		size_t slots = 16;
		while (slots < 2 * context->limits.families)
			slots *= 2;
		target->family_slots = calloc(slots, sizeof(uint32_t));
		target->families =
		    calloc(context->limits.families, sizeof(*target->families));
		if (target->family_slots == NULL || target->families == NULL)
			return -1;
		target->family_slot_count = slots;
		snprintf(
		    target->status, sizeof(target->status), "not scraped yet");
		char url[OM_URL_SIZE];
		snprintf(url, sizeof(url), "%s", target->config.url);
		struct dci_supplier_info supplier = {
		    .module = target->config.name,
		    .title = "OpenMetrics target",
		    .description = url,
		    .version = 100};
		target->supplier = dci_supplier_register(host, &supplier);
		if (target->supplier == NULL)
			return -1;
	}
	return 0;
}

/* Frees what the context holds (struct provider_context). */
static void
openmetrics_release(void *opaque)
{
	struct om_context *context = opaque;

	/* First: a transfer still running writes into its target's body. */
	om_fetch_set_free(context->fetches);
	for (size_t t = 0; t < context->target_count; t++) {
		struct om_target *target = &context->targets[t];
		for (size_t f = 0; f < target->family_count; f++)
			free(target->families[f].name);
		free(target->families);
		free(target->family_slots);
		free(target->body.bytes);
		om_scrape_free(&target->scrape);
		om_target_config_free(&target->config);
	}
	free(context->targets);
	om_series_set_free(&context->set);
	provider_warnings_free(&context->warnings);
	if (context->curl_ready)
		om_fetch_global_cleanup();
}

static int
openmetrics_init(struct dci_host *host, void **opaque)
{
	struct om_context *context;
	unsigned timeout_ms;
	int allow_remote;

	context = provider_context_new(
	    host, opaque, sizeof *context, openmetrics_release);
	if (context == NULL)
		return -1;
	if (options_read(host, context, &timeout_ms, &allow_remote) != 0)
		return -1;
	if (om_fetch_global_init() != 0) {
		dci_log(host, DCI_LOG_ERR, "libcurl could not start");
		return -1;
	}
	context->curl_ready = true;
	context->status_class =
	    om_layout_register_status(host, &context->supplier);
	if (context->status_class == NULL ||
	    targets_read(host, context, timeout_ms, allow_remote != 0) != 0)
		return -1;
	context->fetches = om_fetch_set_new(context->target_count);
	if (context->fetches == NULL)
		return -1;
	return 0;
}

static const char *const openmetrics_option_keys[] = {"targets", "timeout",
    "allow-remote", "max-body-bytes", "max-line-bytes", "max-labels",
    "max-families", "max-series", NULL};

PROVIDER_ENTRY("openmetrics",
    "Prometheus/OpenMetrics endpoints scraped into classes",
    openmetrics_option_keys, openmetrics_init, openmetrics_refresh);
