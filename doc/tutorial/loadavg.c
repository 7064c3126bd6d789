/*
 * loadavg: the provider of the tutorial in doc/PROVIDERS.md.
 *
 * Serves the fields of Linux's /proc/loadavg ("0.52 0.58 0.59 2/345 12345")
 * as one class, loadavg (2.10), with a single instance, "system":
 *   1 load1, 2 load5, 3 load15  the load averages in hundredths (0.52 is 52)
 *   4 runnable                  scheduling entities runnable now
 *   5 entities                  scheduling entities (threads) in all
 *
 * Built out of tree against an installed dcistat:
 *   cc -std=c11 -Wall -Wextra -O2 -fPIC -fvisibility=hidden \
 *      $(pkg-config --cflags dcistat-provider) -shared -o loadavg.so loadavg.c
 */
#include <dcistat/provider.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Datum ids: stable, part of what managers see. */
enum { LOAD1 = 1, LOAD5, LOAD15, RUNNABLE, ENTITIES };

/* An unsigned 32-bit gauge, served as dciStatGauge32. */
#define GAUGE(ID, LABEL, UNIT, TEXT)                                           \
	{                                                                      \
		.id = (ID), .label = (LABEL), .type = DCI_ST_INTEGER32,        \
		.format = DCI_SIF_UNSIGNED, .presentation = DCI_SIP_DECIMAL,   \
		.volatility = DCI_SV_VOLATILE, .unit = (UNIT),                 \
		.semantics = DCI_SEMANTICS_GAUGE, .description = (TEXT),      \
	}

static const struct dci_datum_info loadavg_datums[] = {
    GAUGE(LOAD1, "load1", DCI_UNIT_HUNDREDTHS, "Load average, 1 minute"),
    GAUGE(LOAD5, "load5", DCI_UNIT_HUNDREDTHS, "Load average, 5 minutes"),
    GAUGE(LOAD15, "load15", DCI_UNIT_HUNDREDTHS, "Load average, 15 minutes"),
    GAUGE(RUNNABLE, "runnable", DCI_UNIT_COUNT, "Runnable entities now"),
    GAUGE(ENTITIES, "entities", DCI_UNIT_COUNT, "Scheduling entities"),
};

static const uint32_t loadavg_class_id[] = {2, 10};

/* One instance level of one 4-byte word: a single-instance class. */
static const struct dci_instance_level loadavg_levels[] = {
    {.itype = DCI_ITYPE_SINGLEINST, .size = 4},
};

struct loadavg {
	struct dci_class *class; /* the host's handle, valid until fini */
};

static int
loadavg_init(struct dci_host *host, void **context)
{
	static const struct dci_supplier_info supplier_info = {
	    .module = "loadavg",
	    .title = "Load average",
	    .description = "Linux load averages, from /proc/loadavg",
	    .version = 100, /* 1.00 */
	};
	static const struct dci_class_info class_info = {
	    .id = loadavg_class_id,
	    .id_length = sizeof loadavg_class_id / sizeof loadavg_class_id[0],
	    .label = "loadavg",
	    .description = "System load",
	    .levels = loadavg_levels,
	    .level_count = 1,
	    .datums = loadavg_datums,
	    .datum_count = sizeof loadavg_datums / sizeof loadavg_datums[0],
	};
	struct loadavg *loadavg = calloc(1, sizeof *loadavg);
	struct dci_supplier *supplier;

	if (loadavg == NULL)
		return -1;
	*context = loadavg; /* fini frees it, also when init fails below */
	supplier = dci_supplier_register(host, &supplier_info);
	if (supplier == NULL)
		return -1; /* the host logged why */
	loadavg->class = dci_class_register(host, supplier, &class_info);
	return loadavg->class != NULL ? 0 : -1;
}

static int
loadavg_refresh(struct dci_host *host, void *context)
{
	struct loadavg *loadavg = context;
	unsigned whole[3], hundredths[3], runnable, entities;
	const uint32_t instance = 0;
	struct dci_batch *batch;
	FILE *file;
	int fields;
	long row;

	file = fopen("/proc/loadavg", "r");
	if (file == NULL) {
		dci_log(host, DCI_LOG_ERR, "/proc/loadavg: %s", strerror(errno));
		return -1; /* the previous snapshot stays */
	}
	/* The kernel prints two decimals: "0.52 0.58 0.59 2/345 12345". */
	fields = fscanf(file, "%u.%2u %u.%2u %u.%2u %u/%u", &whole[0],
	    &hundredths[0], &whole[1], &hundredths[1], &whole[2],
	    &hundredths[2], &runnable, &entities);
	fclose(file);
	if (fields != 8) {
		dci_log(host, DCI_LOG_ERR, "/proc/loadavg: unexpected format");
		return -1;
	}

	batch = dci_batch_begin(host, loadavg->class);
	if (batch == NULL)
		return -1;
	row = dci_batch_instance(batch, &instance, 1, "system");
	/* A refused value is logged by the host and left out; no need to
	 * check every call. */
	for (int i = 0; i < 3; i++)
		dci_batch_set_unsigned(batch, row, (uint32_t)(LOAD1 + i),
		    whole[i] * 100u + hundredths[i]);
	dci_batch_set_unsigned(batch, row, RUNNABLE, runnable);
	dci_batch_set_unsigned(batch, row, ENTITIES, entities);
	return dci_batch_commit(batch);
}

static void
loadavg_fini(struct dci_host *host, void *context)
{
	(void)host;
	free(context);
}

DCI_PROVIDER_DEFINE = {
    .abi_version = DCI_PROVIDER_ABI_VERSION,
    .name = "loadavg",
    .description = "Linux load averages, from /proc/loadavg",
    .option_keys = NULL, /* takes no options */
    .init = loadavg_init,
    .refresh = loadavg_refresh,
    .fini = loadavg_fini,
};
