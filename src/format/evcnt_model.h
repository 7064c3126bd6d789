/*
 * The evcnt(9) model: the datums of an event counter class, shared by the
 * built-in evcnt provider (Linux interrupts and softirqs) and
 * libdcistat-supplier (an application's counters). Datum ids are stable
 * and part of both interfaces; an application's counters have no cpu or
 * irq.
 */
#ifndef DCISTAT_MODELS_EVCNT_MODEL_H
#define DCISTAT_MODELS_EVCNT_MODEL_H

#include <dcistat/provider.h>

#pragma GCC visibility push(hidden)

enum evcnt_datum_id {
	EVCNT_DATUM_COUNT = 1,
	EVCNT_DATUM_TYPE = 2,
	EVCNT_DATUM_GROUP = 3,
	EVCNT_DATUM_NAME = 4,
	EVCNT_DATUM_CPU = 5,
	EVCNT_DATUM_IRQ = 6,
};

/* The longest group or name, NUL included. */
#define EVCNT_MODEL_STRING_SIZE 256u
#define EVCNT_MODEL_DATUM_COUNT 6u

extern const struct dci_datum_info evcnt_model_datums[EVCNT_MODEL_DATUM_COUNT];

#pragma GCC visibility pop

#endif
