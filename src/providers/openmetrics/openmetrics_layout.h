/*
 * openmetrics_layout: the classes a scraped metric family becomes, and the
 * class of the targets' status: ids, labels, levels and datums, as
 * openmetrics.c documents them (dcistatd(8), BUILTIN-PROVIDERS.md).
 */
#ifndef OPENMETRICS_LAYOUT_H
#define OPENMETRICS_LAYOUT_H

#include <dcistat/provider.h>

#include "openmetrics_parse.h"
#include "openmetrics_target.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define OM_CLASS_ARC 4u
#define OM_KIND_VALUES 1u
#define OM_KIND_BUCKETS 2u
#define OM_CLASS_ID_LENGTH 5u
#define OM_CLASS_LABEL_MAX 40u
#define OM_QUANTILE_DATUM_BASE 1000u
#define OM_QUANTILES_MAX 32u
#define OM_INFO_SIZE 1024u
#define OM_STATUS_SIZE 200u
#define OM_URL_SIZE (OM_TARGET_URL_MAX + 1)

enum om_status_datum {
	OM_STATUS_NAME = 1,
	OM_STATUS_URL,
	OM_STATUS_UP,
	OM_STATUS_TEXT,
	OM_STATUS_LAST_SUCCESS,
	OM_STATUS_FAMILIES,
	OM_STATUS_SERIES,
	OM_STATUS_BODY_BYTES,
	OM_STATUS_SCRAPE_MICROSECONDS,
	OM_STATUS_SCRAPES,
	OM_STATUS_FAILURES,
	OM_STATUS_LATE,
};

/* What a family's classes are made from. */
struct om_family_layout {
	const char *target_name;
	uint32_t target_word; /* the target's id word */
	const struct om_family *family;
	uint64_t family_hash;      /* FNV-1a 64-bit of the family's name */
	const uint32_t *quantiles; /* a summary's: n = round(q * 10000) */
	size_t quantile_count;
};

/* Registers the class of the family's values and, for a histogram, of its
 * buckets (else *buckets is NULL). Returns 0, or -1 (the host logged
 * why). */
int om_layout_register_family(struct dci_host *host,
    struct dci_supplier *supplier, const struct om_family_layout *layout,
    struct dci_class **values, struct dci_class **buckets);

/* Registers the provider's own supplier, "openmetrics", into *supplier and
 * the status class {4, 1} under it; returns the class or NULL. */
struct dci_class *om_layout_register_status(
    struct dci_host *host, struct dci_supplier **supplier);

/* n = round(q * 10000) for a quantile q in [0, 1]; false otherwise. */
bool om_quantile_number(double q, uint32_t *n);

#pragma GCC visibility pop

#endif
